"""Scenario analysis (gen.analysis.scenarios): conventions, per-point figures, anchors, the summary rows."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gen.analysis import scenarios as sa
from gen.analysis import tables
from gen.model import anchors, schema
from gen.model import scenarios as declared
from tests import scenario_sets
from tests.conftest import RESULTS


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    return tables.load_set(scenario_sets.build(tmp_path_factory.mktemp("sets")))


@pytest.fixture(scope="module")
def cudnn_anchor():
    return tables.load_set(RESULTS / anchors.CUDNN_NAME)


@pytest.fixture(scope="module")
def fa3_anchor():
    return tables.load_set(RESULTS / anchors.FA3_NAME)


def P(q, k, mask="causal", window=None, b=1, hq=2, hkv=1, d=8):
    return schema.Point(batch=b, q_heads=hq, kv_heads=hkv, head_dim=d, q_len=q, kv_len=k, mask=mask, window=window)


def brute_pairs(p: schema.Point) -> int:
    """The pairs capture's mask keeps (gen.capture.attention: causal, and with a window
    fewer than `window` tokens back), queries aligned to the end of the keys."""
    pos = np.arange(p.q_len)[:, None] + (p.kv_len - p.q_len)
    key = np.arange(p.kv_len)[None, :]
    keep = np.ones((p.q_len, p.kv_len), bool) if p.mask == "none" else key <= pos
    if p.mask == "sliding":
        keep &= pos - key < p.window
    return int(keep.sum())


# --------------------------------------------------------------------------- conventions


def test_flops_follow_flashattention_counting():
    # Dense: 4·B·Hq·Sq·Sk·D; causal: halved (S²/2, not S(S+1)/2).
    assert sa.flops(P(64, 64, "none", b=2, hq=4, d=16)) == 4 * 2 * 4 * 64 * 64 * 16
    assert sa.flops(P(64, 64, b=2, hq=4, d=16)) == 4 * 2 * 4 * 64 * 64 * 16 / 2
    # Training: forward + backward at 2.5x = 3.5x.
    assert sa.flops(P(64, 64), "train") == pytest.approx(3.5 * sa.flops(P(64, 64)))


@pytest.mark.parametrize("p", [P(64, 64, "sliding", 16), P(64, 64, "sliding", 64), P(40, 64, "sliding", 10),
                               P(1, 300, "none"), P(1, 300, "causal"), P(5, 300, "sliding", 50),
                               P(33, 33, "sliding", 1)])
def test_sliding_window_and_decode_pairs_are_counted_exactly(p):
    assert sa.score_pairs(p) == brute_pairs(p)


def test_sliding_window_at_the_scenario_shape():
    s = declared.SCENARIOS["sliding-window"]
    p = s.point(16384)
    n, w = 16384, 4096
    assert sa.score_pairs(p) == w * (w + 1) / 2 + (n - w) * w  # ramp, then W keys per query
    assert sa.score_pairs(p) < sa.score_pairs(P(n, n, d=128))  # fewer than plain causal


def test_decode_bytes_read_q_kv_and_write_output_once():
    p = declared.SCENARIOS["decode"].point(4096)  # B 8, 32 q heads over 8 kv heads, D 128, bf16
    assert sa.io_bytes(p, 2) == 2 * (2 * 8 * 32 * 1 * 128 + 2 * 8 * 8 * 4096 * 128)
    assert sa.is_decode(p) and sa.figure_of(p, "inference") == sa.FIGURE_TBPS
    assert sa.figure_of(declared.SCENARIOS["gqa-prefill"].point(2048), "inference") == sa.FIGURE_TFLOPS


def test_cudnn_convention_reproduces_its_published_rates(cudnn_anchor):
    # The anchor's own count over its own time gives its published TFLOP/s (rounded in the CSV);
    # ours is S/(S+1) of it at the same time.
    for p in cudnn_anchor.rs.sweep:
        theirs = sa.cudnn_flops(p.point) / (p.published.gpu_time_ms * 1e-3) / 1e12
        assert theirs == pytest.approx(p.published.tflops, rel=0.01)
        assert sa.flops(p.point) / sa.cudnn_flops(p.point) == pytest.approx(p.point.q_len / (p.point.q_len + 1))


def test_the_convention_is_named_once_with_its_numbers():
    assert "4·B·Hq·Sq·Sk·D" in sa.FLOP_CONVENTION and "halved when causal" in sa.FLOP_CONVENTION
    assert "2.5×" in sa.FLOP_CONVENTION and sa.BACKWARD_FACTOR == 2.5
    assert "Q, K, V" in sa.BYTES_CONVENTION


# --------------------------------------------------------------------------- measured points


def test_scenarios_in_declared_order(synthetic):
    assert sa.scenario_names([synthetic]) == ["article", "gqa-prefill", "decode", "sliding-window"]


def test_prefill_rates_from_gpu_only_time(synthetic):
    df = sa.point_frame(synthetic, "gqa-prefill")
    r = df[(df["variant"] == "sdpa_cudnn") & (df["kv_len"] == 2048) & (df["mode"] == "inference")].iloc[0]
    flops = 4 * 1 * 64 * 2048 * 2048 * 128 / 2
    assert r["gpu_only_ms"] == pytest.approx(0.15) and r["gpu_only_method"] == "cuda_graph"
    assert r["tflops"] == pytest.approx(flops / 0.15e-3 / 1e12)
    assert math.isnan(r["tbps"]) and r["ceiling"] == sa.CEILING_MATMUL
    matmul = 2 * 8192**3 / (scenario_sets.MATMUL_MS * 1e-3) / 1e12
    assert r["pct_of_ceiling"] == pytest.approx(100 * r["tflops"] / matmul)
    assert r["kernels_per_call"] >= 1 and r["eager_ms"] == pytest.approx(0.165)
    train = df[df["mode"] == "train"]
    assert set(train["variant"]) == {"sdpa_flash", "sdpa_cudnn"}
    t = train[train["variant"] == "sdpa_cudnn"].iloc[0]
    assert t["tflops"] == pytest.approx(3.5 * 4 * 64 * 4096 * 4096 * 128 / 2 / 1.2e-3 / 1e12)
    oom = df[df["status"] == "oom"].iloc[0]
    assert oom["variant"] == "naive" and math.isnan(oom["tflops"]) and math.isnan(oom["gpu_only_ms"])


def test_decode_bandwidth_against_copy_ceiling_and_datasheet(synthetic):
    df = sa.point_frame(synthetic, "decode")
    r = df[(df["variant"] == "sdpa_flash") & (df["kv_len"] == 16384)].iloc[0]
    p = declared.SCENARIOS["decode"].point(16384)
    tbps = sa.io_bytes(p, 2) / 0.06e-3 / 1e12
    copy = scenario_sets.COPY_BYTES / (scenario_sets.COPY_MS * 1e-3) / 1e12
    assert r["tbps"] == pytest.approx(tbps) and math.isnan(r["tflops"])
    assert r["ceiling"] == sa.CEILING_COPY and r["pct_of_ceiling"] == pytest.approx(100 * tbps / copy)
    assert r["datasheet_tbps"] == 4.8 and r["pct_of_datasheet"] == pytest.approx(100 * tbps / 4.8)
    refused = df[df["variant"] == "sdpa_cudnn"]
    assert (refused["status"] == "unavailable").all() and (refused["reason"] == scenario_sets.REFUSED).all()


def test_unknown_gpu_has_no_datasheet_figure(tmp_path):
    d = scenario_sets.build(tmp_path)
    data = json.loads((d / "result.json").read_text())
    data["environment"]["gpu_name"] = "Some Future GPU"
    (d / "result.json").write_text(json.dumps(data))
    df = sa.point_frame(tables.load_set(d), "decode")
    assert df["datasheet_tbps"].isna().all() and df["tbps"].notna().any()


def test_fastest_per_point(synthetic):
    fast = sa.fastest_rows(sa.point_rows(synthetic, "gqa-prefill"))
    inf = {r["kv_len"]: r["variant"] for r in fast if r["mode"] == "inference"}
    assert inf == {2048: "sdpa_cudnn", 4096: "sdpa_cudnn"}


# --------------------------------------------------------------------------- anchors


def test_cudnn_anchor_lands_on_gqa_prefill_converted_from_its_time(synthetic, cudnn_anchor, fa3_anchor):
    sets = [synthetic, cudnn_anchor, fa3_anchor]
    a = sa.anchor_frame(sets, "gqa-prefill")
    assert set(a["anchor_set"]) == {anchors.CUDNN_NAME}  # FA3's points are not GQA: no match
    assert set(a["kv_len"]) == {2048, 4096}  # only the lengths we measured
    r = a[a["kv_len"] == 2048].iloc[0]
    assert r["same_shape"] and r["tflops_from"] == sa.FROM_TIME
    assert r["tflops"] == pytest.approx(sa.flops(declared.SCENARIOS["gqa-prefill"].point(2048)) / 0.142e-3 / 1e12)
    assert r["published_tflops"] == 484.0 and r["published_convention"] == anchors.CUDNN_CONVENTION


def test_fa3_anchor_lands_on_the_article_by_rate_only(synthetic, cudnn_anchor, fa3_anchor):
    a = sa.anchor_frame([synthetic, cudnn_anchor, fa3_anchor], "article")
    assert set(a["anchor_set"]) == {anchors.FA3_NAME} and set(a["kv_len"]) == {1024} and set(a["head_dim"]) == {64}
    assert not a["same_shape"].any() and (a["tflops_from"] == sa.FROM_SAME_CONVENTION).all()
    assert (a["tflops"] == a["published_tflops"]).all() and a["approximate"].all()
    assert sa.anchor_frame([synthetic, cudnn_anchor, fa3_anchor], "decode").empty


def test_versus_compares_times_only_for_the_same_shape(synthetic, cudnn_anchor, fa3_anchor):
    sets = [synthetic, cudnn_anchor, fa3_anchor]
    pts = sa.point_frame(synthetic, "gqa-prefill")
    v = sa.versus_frame(pts, sa.anchor_frame(sets, "gqa-prefill"))
    r = v[v["kv_len"] == 2048].iloc[0]
    assert r["fastest_variant"] == "sdpa_cudnn" and r["time_ratio"] == pytest.approx(0.15 / 0.142)
    assert r["same_time_ratio"] == pytest.approx(0.15 / 0.142)
    assert r["rate_ratio"] == pytest.approx(0.142 / 0.15)
    art = sa.versus_frame(sa.point_frame(synthetic, "article"), sa.anchor_frame(sets, "article"))
    assert art["time_ratio"].isna().all() and art["rate_ratio"].notna().all()
    h = sa.headline(pts, v, "gqa-prefill")
    assert h["fastest"]["variant"] == "sdpa_cudnn" and h["fastest"]["kv_len"] == 4096
    assert h["anchor"]["kv_len"] == 4096 and h["anchor"]["time_ratio"] == pytest.approx(0.5 / 0.465)


def test_differences_name_gpu_and_cudnn(synthetic, cudnn_anchor, fa3_anchor):
    diff = {d["what"]: (d["published"], d["ours"]) for d in sa.differences(synthetic, cudnn_anchor)}
    assert diff["cuDNN"] == ("9.19.1", "9.19.0") and "GPU" not in diff
    diff = {d["what"]: (d["published"], d["ours"]) for d in sa.differences(synthetic, fa3_anchor)}
    assert diff["GPU"] == ("NVIDIA H100 80GB SXM5", "NVIDIA H200") and diff["dtype"] == ("fp16", "bf16")
    assert sa.cudnn_version("8907") == "8.9.7"


# --------------------------------------------------------------------------- kernels and summary


def test_kernels_per_scenario_from_the_point_trace(synthetic):
    k = sa.kernels_frame(synthetic, "sdpa_flash")
    assert set(k["scenario"]) == {"article", "gqa-prefill", "decode"}  # refused on the sliding window
    gqa = k[(k["scenario"] == "gqa-prefill") & (k["mode"] == "inference")]
    assert set(gqa["kv_len"]) == {4096}  # the largest length with a trace
    assert (k["count"] >= 1).all() and k["name"].str.len().gt(0).all()


def test_summary_rows(synthetic):
    rows = sa.summary_rows(synthetic, "decode")
    assert len(rows) == 6 and json.loads(json.dumps(rows)) == rows
    keys = {"scenario", "variant", "mode", "point", "status", "reason", "gpu_only_ms", "eager_ms", "tflops", "tbps",
            "kernels_per_call"}
    assert all(keys <= set(r) for r in rows)
    assert set(rows[0]["point"]) >= {"batch", "q_heads", "kv_heads", "head_dim", "q_len", "kv_len", "window"}
    ok = [r for r in rows if r["status"] == "ok"]
    assert all(r["tflops"] is None and r["tbps"] > 0 and r["kernels_per_call"] >= 1 for r in ok)
    refused = [r for r in rows if r["status"] == "unavailable"]
    assert refused and all(r["reason"] == scenario_sets.REFUSED and r["gpu_only_ms"] is None for r in refused)
    prefill = sa.summary_rows(synthetic, "gqa-prefill")
    assert all(r["tbps"] is None for r in prefill)
    assert any(r["tflops"] for r in prefill if r["status"] == "ok")
    with pytest.raises(schema.UserError, match="--scenario: .* no points of scenario 'nope'"):
        sa.summary_rows(synthetic, "nope")


def test_committed_h200_set_every_scenario(h200, cudnn_anchor, fa3_anchor):
    assert sa.scenario_names([h200]) == ["article", "gqa-prefill", "decode", "sliding-window"]
    for name in sa.scenario_names([h200]):
        df = sa.point_frame(h200, name)
        ok = df[df["status"] == "ok"]
        assert len(ok) and (ok["gpu_only_method"] == "cuda_graph").all() and ok["gpu_only_ms"].notna().all()
        rate = ok["tbps"] if name == "decode" else ok["tflops"]
        assert rate.notna().all() and (rate > 0).all()
        assert df[df["status"] != "ok"]["reason"].map(bool).all()  # every refusal says why
    # GQA: the memory-efficient backend refuses a different number of query and KV heads, in PyTorch's words.
    gqa = sa.point_frame(h200, "gqa-prefill")
    eff = gqa[gqa["variant"] == "sdpa_efficient"]
    assert (eff["status"] == "unavailable").all() and eff["reason"].str.contains("num_heads").all()
    # The cuDNN frontend's figures land on every GQA length, with times compared.
    v = sa.versus_frame(gqa, sa.anchor_frame([h200, cudnn_anchor, fa3_anchor], "gqa-prefill", h200))
    assert sorted(v["kv_len"]) == [2048, 4096, 8192, 16384, 32768] and v["time_ratio"].notna().all()
    # The anchors' "our fastest" is the same pick as the headline's and every other page's.
    art = sa.point_frame(h200, "article")
    fast = {(r["head_dim"], r["kv_len"]): r["variant"] for r in sa.fastest_rows(sa.point_rows(h200, "article"))}
    va = sa.versus_frame(art, sa.anchor_frame([h200, fa3_anchor], "article", h200))
    assert len(va) and all(fast[(r.head_dim, r.kv_len)] == r.fastest_variant for r in va.itertuples())


def test_schema1_set_falls_back_to_the_kernel_sum():
    ls = tables.load_set(Path(__file__).parent / "data" / "sets" / "nvidia-h200__torch-2.11.0__schema1")
    ok = sa.point_frame(ls, "article").query("status == 'ok'")
    assert (ok["gpu_only_method"] == "kernel_sum").all()  # schema 1: no graph replay, the trace stands in
    traced = ok[ok["trace"].notna()]
    assert len(traced) and traced["tflops"].notna().all()
    assert ok[ok["trace"].isna()]["tflops"].isna().all()  # no GPU-only time, so no rate


def test_summary_text_names_conventions_and_refusals(synthetic):
    text = sa.summary_text(synthetic, "decode", sa.summary_rows(synthetic, "decode"))
    lines = text.splitlines()
    assert "scenario decode" in lines[0] and sa.FLOP_CONVENTION in lines[1] and sa.BYTES_CONVENTION in lines[2]
    assert sum(1 for ln in lines if ln.startswith("sdpa_flash ")) == 2
    assert f"sdpa_cudnn at kv_len 4096 (inference): unavailable: {scenario_sets.REFUSED}" in text


def test_summary_verb_with_a_scenario(synthetic, tmp_path):
    from tests import gen_main

    def gen(*args):
        # the verb's output and exit status, from the CLI's main in this process (tests/gen_main.py)
        return gen_main.run("summary", "--results", str(synthetic.path.parent), "--set", synthetic.name, *args)

    p = gen("--scenario", "gqa-prefill", "--format", "json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)["rows"]
    # the scenario's rows, each with the conditions of its GPU-only time and its share of the speed of light
    base = json.loads(json.dumps(sa.summary_rows(synthetic, "gqa-prefill")))
    same = [k for k in base[0] if k not in ("point", "peak_memory_bytes")]  # the output's point has every key
    assert [{k: r[k] for k in same} for r in rows] == [{k: b[k] for k in same} for b in base]
    assert all(r["point"].items() >= b["point"].items() for r, b in zip(rows, base, strict=True))
    assert all({"sm_clock_mhz", "sol_pct", "telemetry"} <= set(r) for r in rows)
    assert {r["mode"] for r in rows} == {"inference", "train"} and all(r["scenario"] == "gqa-prefill" for r in rows)
    p = gen("--scenario", "decode")
    assert p.returncode == 0 and "scenario decode" in p.stdout and sa.BYTES_CONVENTION in p.stdout
    p = gen("--scenario", "nope")  # not a scenario at all: argparse's choices name the option
    assert p.returncode == 2 and "--scenario" in p.stderr and "'nope'" in p.stderr
    p = gen("--scenario", "fp8-prefill")  # a scenario the set holds no points of
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "no points of scenario 'fp8-prefill'" in p.stderr
    p = gen_main.run("summary", "--results", str(RESULTS), "--set", anchors.CUDNN_NAME, "--scenario", "gqa-prefill")
    assert p.returncode == 2 and "published figures, not measured points" in p.stderr


def test_a_scenario_headline_names_what_its_times_cannot_set_apart_from_the_fastest(h200_new):
    """chunked-prefill's largest point on the H200: varlen_attn and causal_lower_right run the same
    flash kernel and their 95% intervals overlap; the headline says so and names the point by its
    queries. Unpinned SDPA, which runs the pinned cuDNN kernel, is never named beside it."""
    from gen.analysis import scenarios as sa
    from gen.report.words import scenarios as scenario_words

    pts = sa.point_frame(h200_new, "chunked-prefill")
    h = sa.headline(pts, pts.iloc[0:0], "chunked-prefill")
    near = set(h["near"]) | set(h["ties"])
    assert h["fastest"]["variant"] in {"varlen", "sdpa_lower_right"} and near & {"varlen", "sdpa_lower_right"}
    text = scenario_words.headline(dict(h, anchor=None), sa.FIGURE_TFLOPS, False, str)
    assert text.startswith("At 512 queries × KV 32,768, D 128, ") and "is fastest by its median" in text
    g = sa.headline(sa.point_frame(h200_new, "gqa-prefill"), pts.iloc[0:0], "gqa-prefill")
    assert "sdpa_auto" not in g["near"] + g["ties"]


@pytest.mark.parametrize("which", ["h200", "h200_new"])
def test_kernels_frame_groups_each_call_as_a_named_aggregation_does(which, request):
    """kernels_frame groups each call's GPU events itself and sums their µs in one grouping of every call:
    the frame a named .agg of each call's kernel table gives (first launch, launches, summed µs of each
    distinct kernel, in launch order), to the last digit, for both committed H200 sets."""
    h200 = request.getfixturevalue(which)
    for variant in sorted({p.variant for p in h200.rs.sweep}):
        got = sa.kernels_frame(h200, variant)
        want = []
        for (scenario, mode), g in got.groupby(["scenario", "mode"], sort=False):
            first = g.iloc[0]
            p = next(p for p in h200.rs.sweep if p.scenario == scenario and p.variant == variant and p.mode == mode
                     and p.status == "ok" and p.trace
                     and all(getattr(p.point, k) == first[k] for k in ("q_len", "kv_len", "head_dim", "batch")))
            kt = tables.kernel_table(h200, variant, mode, tr=h200.sweep_trace(p.trace))
            agg = kt.groupby(["name", "short_name", "kind", "category"], sort=False, dropna=False).agg(
                index=("index", "min"), count=("index", "size"), duration_us=("dur_us", "sum")).reset_index()
            want.append(agg.sort_values("index"))
        want = pd.concat(want, ignore_index=True) if want else got
        for c in ("index", "name", "short_name", "kind", "category", "count", "duration_us"):
            assert [repr(x) for x in got[c]] == [repr(x) for x in want[c]], (variant, c)




# --------------------------------------------------------------------------- behaviour on made-up rows


def _row(variant, ms, q=1024, mode="inference", d=128, **kw):
    """A point frame's row with what the rules read (ranked: ran, timed, not wrong)."""
    return dict(dict(variant=variant, mode=mode, head_dim=d, q_len=q, kv_len=q, status="ok", gpu_only_ms=ms,
                     wrong=False, main_kernel=None, dtype="bf16", reason=None, rel_error=0.001, facts={},
                     gpu_only_ci_lo_ms=ms * 0.99, gpu_only_ci_hi_ms=ms * 1.01, kernel_signature=None), **kw)


def test_the_fastest_per_point_prefers_the_pinned_variant_running_the_same_kernel():
    """fastest_rows: per (mode, head dim, lengths) the lowest GPU-only time; a failed,
    untimed or wrong row never wins; unpinned SDPA gives way to the pinned variant running its main kernel."""
    rows = [_row("sdpa_auto", 1.0, main_kernel="flash_fwd"), _row("sdpa_flash", 1.05, main_kernel="flash_fwd"),
            _row("naive", 0.5, wrong=True), _row("flex", 0.7, status="oom"), _row("sdpa_math", math.nan),
            _row("sdpa_auto", 2.0, q=2048, main_kernel="cudnn_fwd"), _row("sdpa_flash", 2.2, q=2048,
                                                                          main_kernel="flash_fwd"),
            _row("naive", 3.0, q=4096), _row("flex", 3.0, q=4096)]
    got = sa.fastest_rows(rows)
    assert [(r["q_len"], r["variant"]) for r in got] == [(1024, "sdpa_flash"), (2048, "sdpa_auto"), (4096, "naive")]
    assert sa.fastest_rows([_row("naive", 1.0, wrong=True)]) == []


def test_own_head_dim_and_the_strongest_published_figure():
    """own_head_dim_of: the scenario's declared head dim where present, else the most common (the smallest
    of equals). strongest_of: at the largest length we ran, the highest published rate (missing last)."""
    decode = declared.SCENARIOS["decode"].head_dim
    assert sa.own_head_dim_of([dict(head_dim=64)] * 3 + [dict(head_dim=decode)], "decode") == decode
    assert sa.own_head_dim_of([dict(head_dim=64), dict(head_dim=256), dict(head_dim=256), dict(head_dim=64)],
                              "no such scenario") == 64
    assert sa.own_head_dim_of([], "decode") is None

    def v(kv, tflops, d=128, fastest="sdpa_flash"):
        return dict(kv_len=kv, anchor_tflops=tflops, head_dim=d, fastest_variant=fastest)

    rows = [v(4096, 500.0), v(8192, 400.0), v(8192, math.nan), v(8192, 450.0, d=64), v(16384, 900.0, fastest=None)]
    assert sa.strongest_of(rows)["anchor_tflops"] == 450.0  # 16k: none of ours ran there
    assert sa.strongest_of(rows, 128)["anchor_tflops"] == 400.0
    assert sa.strongest_of([v(8192, 1.0, fastest=None)]) is None and sa.strongest_of([]) is None
    got = sa.strongest_of(rows, 128)
    assert got == rows[1] and got is not rows[1]  # a copy


def test_determinism_and_fp8_set_each_variant_beside_its_twin():
    """determinism_frame: each deterministic SDPA variant beside the same backend pinned without it, the
    ratio of their times, the status and reason where it did not run; fp8_frame: each FP8 variant beside
    its declared twin, the speedup and both errors."""
    rows = [_row("sdpa_flash", 1.0), _row("sdpa_flash_det", 1.5), _row("sdpa_flash", 2.0, q=2048),
            _row("sdpa_flash_det", math.nan, q=2048, status="unavailable", reason="no"),
            _row("sdpa_cudnn", 1.0, rel_error=0.002), _row("cudnn_fp8", 0.5, dtype="fp8_e4m3", rel_error=0.03,
                                                           facts={"fp8_input_rounding_error": 0.02})]
    det = sa.determinism_frame(pd.DataFrame(rows))
    assert det[["backend", "q_len", "default_variant", "ratio"]].iloc[0].tolist() == ["flash", 1024, "sdpa_flash", 1.5]
    assert math.isnan(det["ratio"].iloc[1]) and det["status"].iloc[1] == "unavailable" and det["reason"].iloc[1] == "no"
    fp8 = sa.fp8_frame(pd.DataFrame(rows))
    assert len(fp8) == 1 and fp8["twin"].iloc[0] == "sdpa_cudnn" and fp8["speedup"].iloc[0] == 2.0
    assert (fp8["fp8_error"].iloc[0], fp8["twin_error"].iloc[0], fp8["input_rounding_error"].iloc[0]) == (0.03, 0.002,
                                                                                                          0.02)
    assert sa.determinism_frame(pd.DataFrame(rows).iloc[0:0]).empty


def test_a_sources_shapes():
    """source_shapes: tokens and hidden where each is one number across the source's points, heads per head
    dim, batch per length, and each distinct shape once in order."""
    a = pd.DataFrame([dict(batch=16, q_heads=16, kv_heads=16, q_len=512, kv_len=512, head_dim=64),
                      dict(batch=16, q_heads=16, kv_heads=16, q_len=512, kv_len=512, head_dim=64),
                      dict(batch=8, q_heads=8, kv_heads=8, q_len=1024, kv_len=1024, head_dim=128)])
    got = sa.source_shapes(a)
    assert got == dict(tokens=8192, hidden=1024, heads={64: (16, 16), 128: (8, 8)}, batches={512: 16, 1024: 8},
                       shapes=[(16, 16, 16, 512, 64), (8, 8, 8, 1024, 128)])
    assert sa.source_shapes(a.iloc[:1].assign(batch=2))["tokens"] == 1024
    assert sa.source_shapes(pd.concat([a, a.assign(q_len=2048, kv_len=2048)]))["tokens"] is None


def test_a_headline_names_the_variants_its_times_cannot_set_apart():
    """headline: the fastest at the largest length (own head dim, inference); the pinned variant running
    the same kernels as a tie, a variant within the fastest's interval as near, one apart from it neither."""
    sig = (("kernel", "flash_fwd", 1),)
    rows = [_row("sdpa_flash", 1.0, q=4096, kernel_signature=sig), _row("sdpa_auto", 1.001, q=4096, kernel_signature=sig),
            _row("flex", 1.005, q=4096), _row("naive", 3.0, q=4096), _row("naive", 0.1, q=1024)]
    h = sa.headline(pd.DataFrame(rows), pd.DataFrame(columns=sa.VERSUS_COLUMNS), "gqa-prefill")
    assert h["fastest"]["variant"] == "sdpa_flash" and h["fastest"]["q_len"] == 4096
    assert h["ties"] == [] and h["near"] == ["flex"] and h["same_apart"] == [] and h["anchor"] is None
    assert sa.headline(pd.DataFrame(rows[3:4]).assign(status="oom"), pd.DataFrame(), "gqa-prefill") is None
    # the unpinned call of the same kernels within the fastest's interval is named with it (review 2026-12-06-7 item
    # 11); apart from it (other arguments), it is not
    assert h["auto_tie"] == "sdpa_auto"
    rows[1] = _row("sdpa_auto", 1.2, q=4096, kernel_signature=sig)
    h = sa.headline(pd.DataFrame(rows), pd.DataFrame(columns=sa.VERSUS_COLUMNS), "gqa-prefill")
    assert h["auto_tie"] is None and [a[0] for a in h["same_apart"]] == ["sdpa_auto"]


def test_determinism_compares_like_with_like():
    """Review 2026-12-06-5 item 3: a graph replay against a kernel sum mixes two measures: where the two steps'
    GPU-only times are of different kinds, both kernel sums are set against each other, and said so."""
    rows = [_row("sdpa_flash", 6.441, gpu_only_method="kernel_sum", kernel_sum_ms=6.441),
            _row("sdpa_flash_det", 10.088, gpu_only_method="cuda_graph", kernel_sum_ms=9.997)]
    det = sa.determinism_frame(pd.DataFrame(rows)).iloc[0]
    assert det["kernel_sums"] and det["deterministic_ms"] == 9.997 and det["ratio"] == pytest.approx(9.997 / 6.441)
    same = [dict(r, gpu_only_method="cuda_graph") for r in rows]
    det = sa.determinism_frame(pd.DataFrame(same)).iloc[0]
    assert not det["kernel_sums"] and det["ratio"] == pytest.approx(10.088 / 6.441)
