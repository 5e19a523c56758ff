"""Clocks, power and the speed of light (gen.model.datasheets, gen.analysis.clocks, summary JSON):
the datasheet table against the whitepapers' peaks, a synthetic schema-3 set, and the committed
schema-2 sets, whose telemetry is "not recorded"."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from gen.analysis import clocks, rules, scenarios, summary, tables, values
from gen.model import anchors, datasheets
from tests import html_table, schema3_sets

H200_NAME = "nvidia-h200__torch-2.11.0"


@pytest.mark.parametrize("cc, dtype, published", [
    ("8.0", "bf16", 312.0), ("8.0", "fp16", 312.0), ("8.0", "tf32", 156.0),
    ("9.0", "bf16", 989.4), ("9.0", "fp16", 989.4), ("9.0", "tf32", 494.7), ("9.0", "fp8", 1978.9),
])
def test_tensor_rates_reproduce_the_whitepapers_peaks(cc, dtype, published):
    r = datasheets.tensor_rate(cc, dtype)
    assert r.published_tflops == published
    # SMs x clock x dense FLOPs per clock per SM gives the published peak (A100: 108 x 1410 MHz x 2048)
    assert datasheets.peak_tflops(r, r.sms, r.clock_mhz) == pytest.approx(published, rel=5e-3)
    assert "whitepaper" in r.source


def test_tensor_rate_relations():
    for cc in ("8.0", "9.0"):
        bf16 = datasheets.tensor_rate(cc, "bfloat16").flops_per_clk_per_sm
        assert datasheets.tensor_rate(cc, "tf32").flops_per_clk_per_sm * 2 == bf16  # tf32: half of bf16
    assert datasheets.tensor_rate("9.0", "fp8").flops_per_clk_per_sm == 2 * datasheets.tensor_rate("9.0", "bf16") \
        .flops_per_clk_per_sm
    assert datasheets.tensor_rate("8.0", "fp8") is None and datasheets.tensor_rate("7.5", "bf16") is None
    assert datasheets.tensor_rate("9.0", "fp32") is None  # float32 has no tensor-core rate of its own


def test_speed_of_light_at_the_sampled_clock(h200):
    env = h200.rs.environment
    s = clocks.sol(600.0, env, "bf16", 1670.0)
    assert s.peak_tflops == pytest.approx(132 * 1670e6 * 4096 / 1e12) and s.pct == pytest.approx(600 / 9.0296, 1e-3)
    # the same rate at a lower clock is a larger share: the clock is in the denominator
    assert clocks.sol(600.0, env, "bf16", 1500.0).pct > s.pct
    missing = clocks.sol(600.0, env, "bf16", None, "not recorded: before schema 3")
    assert missing.pct != missing.pct and "not recorded" in missing.reason


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    d = schema3_sets.build(root)
    anchors.write(root)
    sets, _ = tables.load_sets(root)
    return root, tables.load_set(d), sets


def test_schema3_set_loads_with_every_window(s3):
    _, ls, _ = s3
    p = next(p for p in ls.rs.sweep if p.status == "ok")
    assert p.timing.rounds == 3 and p.timing.telemetry["gpu_only"].sm_clock_mhz == schema3_sets.SUSTAINED_MHZ


def test_ceilings_say_their_clocks_and_the_read_ceiling_bounds_decode(s3, h200):
    _, ls, _ = s3
    got = {c.kind: c for c in clocks.ceilings(ls)}
    assert set(got) == {"matmul", "copy", "read"}
    assert got["matmul"].conditions.sm_clock_mhz == 1650.0 and got["read"].conditions.power_w == 430.0
    assert got["read"].value == pytest.approx(schema3_sets.READ_BYTES / (schema3_sets.READ_MS * 1e-3) / 1e12)
    # the matmul's own share of the speed of light at the clock it ran at
    assert got["matmul"].sol.pct == pytest.approx(100 * got["matmul"].value / (132 * 1650e6 * 4096 / 1e12))
    pts = scenarios.point_frame(ls, "decode")
    assert set(pts.loc[pts["status"] == "ok", "ceiling"]) == {scenarios.CEILING_READ}
    # the committed schema-2 set: no clock, said so; its decode points pass the copy ceiling, which
    # writes as much as it reads: the wrong bound for a kernel that only reads
    old = {c.kind: c for c in clocks.ceilings(h200)}
    assert set(old) == {"matmul", "copy"} and "not recorded" in old["matmul"].conditions.reason
    above = clocks.above_ceiling_rows(scenarios.point_rows(h200, "decode"))
    assert len(above) and {r["ceiling"] for r in above} == {"copy"} and all(r["pct_of_ceiling"] > 100 for r in above)
    assert clocks.above_ceiling_rows(scenarios.point_rows(h200, "gqa-prefill")) == []
    # a wrong answer, a failed call and one within the floor above 100% are not above it
    ok = dict(status="ok", pct_of_ceiling=150.0, wrong=False)
    made = [ok, dict(ok, wrong=True), dict(ok, status="oom"), dict(ok, pct_of_ceiling=100.5),
            dict(ok, pct_of_ceiling=float("nan")), dict(ok, wrong=float("nan"))]
    assert clocks.above_ceiling_rows(made) == [ok, made[-1]]


def test_burst_against_the_published_time_by_the_clock_rule(s3, h200):
    _, ls, sets = s3
    pts = scenarios.point_frame(ls, "gqa-prefill")
    b = clocks.burst_frame(pts, scenarios.anchor_frame(sets, "gqa-prefill", ls))
    r = b[b["kv_len"] == schema3_sets.ANCHOR_8K["kv_len"]].iloc[0]
    assert r["variant"] == "sdpa_cudnn" and r["anchor_ms"] == pytest.approx(0.465)
    assert r["sustained_clock_mhz"] == schema3_sets.SUSTAINED_MHZ and r["burst_clock_mhz"] == schema3_sets.BURST_MHZ
    # 0.465 ms published x 1980 / 1670 = 0.551 ms: our sustained time; the bare ratio would read 1.18x
    assert r["sustained_vs_anchor"] == pytest.approx(0.551 / 0.465, rel=1e-3)
    assert r["anchor_at_sustained_clock_ms"] == pytest.approx(0.465 * 1980 / 1670)
    assert r["explained"] == rules.YES
    assert r["expected_burst_ms"] == pytest.approx(0.551 * 1670 / 1980) and abs(r["burst_vs_expected"] - 1) < 0.01
    # a point whose sustained time the clock does not explain: the rule says no
    off = pts.copy()
    off.loc[(off["variant"] == "sdpa_cudnn") & (off["kv_len"] == 4096), "gpu_only_ms"] = 0.70
    assert clocks.burst_frame(off, scenarios.anchor_frame(sets, "gqa-prefill", ls))["explained"].iloc[-1] == rules.NO
    # the committed set: no burst, no clocks: no verdict, and why
    old = clocks.burst_frame(scenarios.point_frame(h200, "gqa-prefill"),
                             scenarios.anchor_frame([h200, *[s for s in sets if s.rs.kind == "reference"]],
                                                    "gqa-prefill", h200))
    assert len(old) and old["explained"].isna().all() and old["reason"].str.contains("not recorded").all()
    # the frame's rows given instead of the frame: the same frame
    anc = scenarios.anchor_frame(sets, "gqa-prefill", ls)
    pd.testing.assert_frame_equal(clocks.burst_frame(None, anc, values.rows(pts)), b)
    # a burst that slowed within itself: its leading calls and the window's highest clock stand for it
    slowed = pts.assign(burst_throttled=True, burst_early_ms=pts["burst_ms"] * 0.9, burst_early_n=3,
                        burst_sm_clock_max_mhz=1980.0)
    t = clocks.burst_frame(slowed, anc)
    t = t[t["kv_len"] == schema3_sets.ANCHOR_8K["kv_len"]].iloc[0]
    assert t["burst_throttled"] and t["burst_ms"] == pytest.approx(r["burst_ms"] * 0.9)
    assert t["burst_all_ms"] == r["burst_ms"] and t["burst_clock_mhz"] == 1980.0 and t["burst_early_n"] == 3
    assert clocks.burst_frame(pts.iloc[0:0], anc).empty


def test_summary_json_carries_the_conditions(s3, schema2_results):
    root, ls, _ = s3
    rows = json.loads(summary.run(root, ls.name, "json", scenario="gqa-prefill"))["rows"]
    ok = [r for r in rows if r["status"] == "ok" and r["mode"] == "inference"]
    assert ok and all(r["sm_clock_mhz"] == schema3_sets.SUSTAINED_MHZ for r in ok)
    assert all(r["power_w"] == 690.0 and r["temp_c"] == 61.0 and r["sm_clock_min_mhz"] == 1640.0 for r in ok)
    for r in ok:
        peak = 132 * schema3_sets.SUSTAINED_MHZ * 1e6 * 4096 / 1e12
        assert r["sol_pct"] == pytest.approx(100 * r["tflops"] / peak, rel=2e-3)
        assert r["telemetry"]["gpu_only"]["sm_clock_mhz"] == schema3_sets.SUSTAINED_MHZ
    cudnn = next(r for r in ok if r["variant"] == "sdpa_cudnn" and r["point"]["kv_len"] == 4096)
    assert cudnn["burst_ms"] == pytest.approx(schema3_sets.GQA_BURST_MS)
    assert cudnn["burst_sm_clock_mhz"] == schema3_sets.BURST_MHZ
    # the graph check: the naive point fell back to the kernel sum, the copy kernel named
    art = json.loads(summary.run(root, ls.name, "json", scenario="article"))["rows"]
    naive = next(r for r in art if r["variant"] == "naive")
    assert naive["gpu_only_method"] == "kernel_sum" and naive["gpu_only_ms"] == pytest.approx(0.38)
    assert naive["graph_differences"]["only_in_graph"] == [dict(name=schema3_sets.MEMCPY, launches=1)]
    assert naive["telemetry"]["kernel_sum"]["sm_clock_mhz"] == schema3_sets.SUSTAINED_MHZ - 20
    assert naive["sm_clock_mhz"] == schema3_sets.SUSTAINED_MHZ - 20  # the window GPU-only came from
    # per run (no --scenario): the same fields
    (run,) = json.loads(summary.run(root, ls.name, "json"))["rows"]
    assert run["sm_clock_mhz"] == schema3_sets.SUSTAINED_MHZ and run["power_w"] == 690.0
    # the committed schema-2 set: every figure null, with the reason
    old = json.loads(summary.run(schema2_results, H200_NAME, "json", scenario="gqa-prefill"))["rows"]
    assert all(r["sm_clock_mhz"] is None and r["sol_pct"] is None for r in old)
    assert all("not recorded" in r["telemetry_reason"] for r in old if r["status"] == "ok")
    runs = json.loads(summary.run(schema2_results, H200_NAME, "json"))["rows"]
    assert all(r["sm_clock_mhz"] is None and r["power_w"] is None and r["temp_c"] is None for r in runs)
    assert all(r["sm_clock_min_mhz"] is None and "not recorded" in r["telemetry_reason"] for r in runs)


@pytest.fixture(scope="module")
def s3_docs(s3, tmp_path_factory) -> Path:
    """s3's results built as Markdown pages (a set's own pages read line by line; the build converts them),
    once for the tests below, which read them (each built the same pages before)."""
    from gen.report import build

    docs = tmp_path_factory.mktemp("s3-docs") / "docs"
    build.run(s3[0], docs, convert=False)
    return docs


def test_pages_show_the_conditions(s3, s3_docs):
    """The built pages of the schema-3 set: the clock beside every GPU-only time, each ceiling's clock, the
    speed of light, the gap to the published time explained by the clock rule with both clocks printed,
    and the kernel-sum fallback with its reason and the kernels that differ."""
    _, ls, _ = s3
    gen = s3_docs / "generated"
    own = gen / "sets" / ls.name  # the set's own pages: its page of each scenario
    gqa = (own / "scenarios" / "gqa-prefill.md").read_text(encoding="utf-8")
    # a window under 1 s: its averaged power marked ≈
    assert "Matmul ceiling&#58; a large matrix product" in gqa and "1650 MHz (min 1620) · ≈700 W · 61 °C" in gqa
    assert "Read ceiling&#58; a read-only pass" in gqa
    line = next(x for x in gqa.splitlines() if x.startswith("- At 4,096 tokens, SDPA cuDNN"))
    assert "published 0.465 ms" in line and "0.551 ms as run" in line and "too short to call sustained" in line
    assert "1670 MHz, 690 W" in line
    assert "0.466 ms in a burst of 20 calls from idle (1980 MHz)" in line
    assert "0.465 × 1980 / 1670 &#61; 0.551 ms" in line and "the gap is the clock" in line
    rows = [x for x in html_table.lines(gqa) if x.startswith("| SDPA cuDNN |") and "ok" in x]
    # the fabricated windows last under a second: NVML's 1-s power average is marked as lagging
    assert rows and all("1670 MHz (min 1640) · ≈690 W · 61 °C" in x for x in rows)
    assert "% of speed of light" in gqa and "4096 dense bf16 FLOP per clock per SM" in gqa
    art = (own / "scenarios" / "article.md").read_text(encoding="utf-8")
    assert "1650 MHz" in art
    page = (gen / "sets" / f"{ls.name}.md").read_text(encoding="utf-8")
    assert "@ 1670 MHz" in page and "SDPA flash 1670 MHz (min 1640) · ≈690 W · 61 °C" in page
    # The home page's chart is this set's: its conditions under it; every set's times with their clock on Compare.
    home = (gen / ".home.md").read_text(encoding="utf-8")
    assert "SM clock 1670 MHz, ≈690–690 W" in home and "up to 61 °C" in home
    compare = (gen / "compare.md").read_text(encoding="utf-8")
    assert "@ 1670 MHz" in compare and "SM clock 1670 MHz, ≈690–690 W" in compare


def test_pages_say_not_recorded_for_older_sets(tmp_path, h200_dir):
    import shutil

    from gen.report import build

    shutil.copytree(h200_dir, tmp_path / "results" / h200_dir.name)
    anchors.write(tmp_path / "results")
    build.run(tmp_path / "results", tmp_path / "docs", convert=False)
    gen = tmp_path / "docs" / "generated"
    gqa = (gen / "sets" / h200_dir.name / "scenarios" / "gqa-prefill.md").read_text(encoding="utf-8")
    assert "clock not recorded&#58; captured before schema 3" in gqa
    assert "The clock rule cannot be applied&#58; the sustained window&#39;s SM clock&#58; not recorded" in gqa
    page = (gen / "sets" / f"{h200_dir.name}.md").read_text(encoding="utf-8")
    assert "MHz" not in page and "Here&#58; not recorded&#58; captured before schema 3" in page


def test_set_page_lists_every_windows_conditions(s3, s3_docs):
    _, ls, _ = s3
    page = (s3_docs / "generated" / "sets" / f"{ls.name}.md").read_text(encoding="utf-8")
    head = next(x for x in page.splitlines() if "| Variant | GPU-only (graph replays) | Eager loop |" in x)
    assert "Burst from idle" in head and "Profiled calls (kernel sum)" in head
    row = next(x for x in page.splitlines() if x.strip().startswith("| SDPA flash | 1670 MHz"))
    assert row.count("1670 MHz (min 1640) · 690 W · 61 °C") == 3 and row.count("not recorded") == 2


def test_a_burst_that_slows_within_itself_is_read_by_its_leading_calls():
    from gen.analysis import rules

    flat = [6.5] * 20
    assert rules.burst_lead(flat) is None
    hot = [25.55, 25.48] + [29.4] * 18  # 20 calls of 25 ms at 700 W: the clock falls after two
    assert rules.burst_lead(hot) == [25.55, 25.48]
    slow_first = [7.0, 6.5, 6.5, 6.6, 7.6] + [7.6] * 15  # a slow first call (clocks ramping) is skipped
    assert rules.burst_lead(slow_first) == [6.5, 6.5, 6.6]
    assert rules.burst_lead([6.5] * 5) is None  # too few calls to tell


def test_power_read_in_a_short_window_is_marked_and_explained():
    from gen.analysis import rules
    from gen.report.words import tables as table_words

    long = dict(status="ok", variant="sdpa_cudnn", sm_clock_mhz=1700.0, sm_clock_min_mhz=1650.0, power_w=690.0,
                temp_c=60.0, telemetry_window_s=2.0)
    short = dict(long, telemetry_window_s=0.2)
    assert table_words.conditions_cell(long) == "1700 MHz (min 1650) · 690 W · 60 °C"
    assert table_words.conditions_cell(short) == "1700 MHz (min 1650) · ≈690 W · 60 °C"
    assert "A power marked ≈" not in table_words.conditions_note([long])
    assert "NVML's averaged reading is an average over about a second" in table_words.conditions_note([long, short])
    assert rules.power_lags(0.5) and not rules.power_lags(1.5) and not rules.power_lags(None)
    # the instant reading (NVML field 186) is a 5 ms sample inside the window: it does not lag, however short
    assert not rules.power_lags(0.5, "instant") and rules.power_lags(0.5, "average")


