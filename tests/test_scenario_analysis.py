"""Scenario analysis (gen.analysis.scenarios): conventions, per-point figures, anchors, the summary rows."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gen.analysis import scenarios as sa
from gen.analysis import tables, values
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
    fast = sa.fastest_frame(sa.point_frame(synthetic, "gqa-prefill"))
    inf = fast[fast["mode"] == "inference"].set_index("kv_len")["variant"].to_dict()
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
    fast = sa.fastest_frame(art).set_index(["head_dim", "kv_len"])["variant"]
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
    import subprocess
    import sys

    def gen(*args):
        return subprocess.run([sys.executable, "-m", "gen", "summary", "--results", str(synthetic.path.parent),
                               "--set", synthetic.name, *args], capture_output=True, text=True, timeout=120)

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
    p = subprocess.run([sys.executable, "-m", "gen", "summary", "--results", str(RESULTS), "--set",
                        anchors.CUDNN_NAME, "--scenario", "gqa-prefill"], capture_output=True, text=True, timeout=120)
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


def _headline_by_frames(points, versus, scenario):
    """headline as it read the frames (a mask per question), to compare the rows' reading with."""
    from gen.analysis import rules
    from gen.analysis.values import variant_role

    fast = sa.fastest_frame(points)
    if fast.empty:
        return None
    d = sa.own_head_dim(points, scenario)
    pick = fast[(fast["head_dim"] == d) & (fast["mode"] == schema.Mode.INFERENCE)]
    pick = pick if len(pick) else fast
    top = pick.sort_values(["kv_len", "q_len"]).iloc[-1].to_dict()
    ok = sa._ranked(points)
    at = ok[(ok["mode"] == top["mode"]) & (ok["head_dim"] == top["head_dim"]) & (ok["q_len"] == top["q_len"])
            & (ok["kv_len"] == top["kv_len"]) & (ok["variant"] != top["variant"])]
    auto = variant_role("automatic")
    same = [r["variant"] for _, r in at.iterrows()
            if isinstance(top["kernel_signature"], tuple) and r["kernel_signature"] == top["kernel_signature"]]
    by = {r["variant"]: r for _, r in at.iterrows()}
    apart = [(v, by[v]["gpu_only_ms"] / top["gpu_only_ms"] if top["gpu_only_ms"] else None) for v in same
             if rules.apart(top["gpu_only_ci_hi_ms"], by[v]["gpu_only_ci_lo_ms"])
             or rules.apart(by[v]["gpu_only_ci_hi_ms"], top["gpu_only_ci_lo_ms"])]
    ties = [v for v in same if v != auto and v not in dict(apart)]
    near = [r["variant"] for _, r in at.sort_values("gpu_only_ms").iterrows() if r["variant"] not in same
            and not rules.apart(top["gpu_only_ci_hi_ms"], r["gpu_only_ci_lo_ms"])]
    return dict(fastest=top, ties=ties, near=near, same_apart=apart, anchor=sa.strongest(versus, top["head_dim"]))


def test_the_headline_read_off_rows_is_the_one_read_off_frames(h200_new, synthetic, cudnn_anchor, fa3_anchor):
    """Every scenario of the committed H200 set and of the synthetic set, with and without its anchors,
    and with the wrong-answer column absent, the times tied and the order shuffled: the same dict,
    to the types of its values."""
    checked = 0
    for ls, sets in ((h200_new, [h200_new]), (synthetic, [synthetic, cudnn_anchor, fa3_anchor])):
        for name in sa.scenario_names([ls]):
            pts = sa.point_frame(ls, name)
            variants = [pts, pts.drop(columns=["wrong"]), pts.iloc[::-1].reset_index(drop=True),
                        pts.assign(gpu_only_ms=pts["gpu_only_ms"].round(1))]
            for p in variants:
                v = sa.versus_frame(p, sa.anchor_frame(sets, name))
                for versus in (v, v.iloc[0:0]):
                    assert repr(sa.headline(p, versus, name)) == repr(_headline_by_frames(p, versus, name)), name
                    checked += 1
    assert checked > 40


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


def test_points_at_are_the_rows_a_mask_picks(h200_new):
    """versus_frame finds our rows at each published point through one grouping: the rows (and their order)
    a mask on mode, head dim and lengths picks; none where we have no such point; no anchor, no
    row (and no ranking made)."""
    name = next(n for n in sa.scenario_names([h200_new]) if len(sa.point_frame(h200_new, n)))
    pts = sa.point_frame(h200_new, name)
    at = sa._dicts_at(pts)
    for p in [pts.iloc[i] for i in range(0, len(pts), 7)] + [dict(pts.iloc[0], q_len=-1)]:
        mask = pts[(pts["mode"] == p["mode"]) & (pts["head_dim"] == p["head_dim"]) & (pts["q_len"] == p["q_len"])
                   & (pts["kv_len"] == p["kv_len"])]
        got = at.get(tuple(p[k] for k in sa._AT_KEYS), [])
        assert repr(got) == repr(sa._dicts(mask)) and len(got) == len(mask)
    assert sa._dicts_at(pts.iloc[0:0]) == {}
    none = sa.versus_frame(pts, pd.DataFrame(columns=["variant", "mode", "head_dim", "q_len", "kv_len"]))
    assert none.empty and list(none.columns) == sa.VERSUS_COLUMNS


def _fastest_by_masks(points):
    """fastest_frame as first written (a groupby's idxmin, a Series per pick, a mask per unpinned win):
    the reference for the faster reading."""
    from gen.analysis.values import variant_role

    ok = sa._ranked(points)
    if ok.empty:
        return ok
    idx = ok.groupby(["mode", "head_dim", "q_len", "kv_len"], sort=True)["gpu_only_ms"].idxmin()
    auto = variant_role("automatic")
    picks = []
    for i in idx.values:
        r = ok.loc[i]
        if r["variant"] == auto and r["main_kernel"]:
            same = ok[(ok["mode"] == r["mode"]) & (ok["head_dim"] == r["head_dim"]) & (ok["q_len"] == r["q_len"])
                      & (ok["kv_len"] == r["kv_len"]) & (ok["main_kernel"] == r["main_kernel"])
                      & (ok["variant"] != auto)]
            i = same["gpu_only_ms"].idxmin() if len(same) else i
        picks.append(i)
    return ok.loc[picks].reset_index(drop=True)


@pytest.mark.parametrize("which", ["h200", "h200_new"])
def test_fastest_frame_is_the_groupby_and_masks_reading(which, request):
    """Every scenario of both committed H200 sets, whole and at each head dim, with ties made (an
    unpinned SDPA row as fast as the pinned one running its kernel): the rows the groupby gave."""
    ls = request.getfixturevalue(which)
    checked = 0
    for name in sa.scenario_names([ls]):
        pts = sa.point_frame(ls, name)
        tied = pts.copy()
        if len(tied):
            tied["gpu_only_ms"] = tied["gpu_only_ms"].round(0)  # many equal times: the first of equals wins
        for frame in (pts, tied, *(pts[pts["head_dim"] == d] for d in pts["head_dim"].unique())):
            pd.testing.assert_frame_equal(sa.fastest_frame(frame), _fastest_by_masks(frame), check_exact=True)
            checked += 1
    assert checked > 10


def _versus_by_rows(points, anchor):
    """versus_frame's selection as first written (iterrows, a frame slice and a mask per anchor): the reference."""
    keys = ["mode", "head_dim", "q_len", "kv_len"]

    def points_at(df):
        groups = df.groupby(keys, sort=False).indices if len(df) else {}
        return lambda p: df.iloc[groups[tuple(p[k] for k in keys)]] if tuple(p[k] for k in keys) in groups \
            else df.iloc[0:0]

    rows = []
    if anchor.empty:
        return pd.DataFrame(rows, columns=sa.VERSUS_COLUMNS)
    widths = points["dtype"].map(sa._width) if len(points) else points["dtype"]
    by_width = {w: (points_at(sa._ranked(points[widths == w])), points_at(sa.fastest_frame(points[widths == w])))
                for w in (1, 2)}
    for _, a in anchor.iterrows():
        ok_at, fastest_at = by_width[sa._width(a["dtype"]) if "dtype" in a and isinstance(a["dtype"], str) else 2]
        at, top = ok_at(a), fastest_at(a)
        fast = top.iloc[0] if len(top) else None
        same = at[at["variant"] == a["variant"]]
        same = same.iloc[0] if len(same) else None
        rows.append(sa.versus_row(a, same, fast))  # the row itself is built as versus_frame builds it
    return pd.DataFrame(rows, columns=sa.VERSUS_COLUMNS)


def test_versus_frame_is_the_row_by_row_reading(h200_new):
    """Every scenario of the committed set against the committed published figures (whole, and at each
    head dim): versus_frame reading rows as dicts gives the frame the row-by-row reading gave."""
    from gen.model import anchors
    from tests.conftest import RESULTS

    refs = [tables.load_set(RESULTS / n) for n in (anchors.FA3_NAME, anchors.CUDNN_NAME)]
    compared = 0
    for name in sa.scenario_names([h200_new]):
        pts, anc = sa.point_frame(h200_new, name), sa.anchor_frame([h200_new, *refs], name, h200_new)
        for frame in (pts, *(pts[pts["head_dim"] == d] for d in pts["head_dim"].unique())):
            pd.testing.assert_frame_equal(sa.versus_frame(frame, anc), _versus_by_rows(frame, anc), check_exact=True)
            compared += len(anc)
    assert compared > 20


def _above_roof_by_frames(points, ceil):
    """The page's reading before sa.above_roof: the points a bf16 ceiling may judge (a mask on the
    dtype), roofline_frame of them, then scaling.above_roof of that frame."""
    from gen.analysis import scaling

    judged = points if "dtype" not in points else points[~points["dtype"].fillna("").astype(str).str.startswith("fp8")]
    return scaling.above_roof(sa.roofline_frame(judged), ceil, "intensity", "tflops")


@pytest.mark.parametrize("which", ["h200", "h200_new", "synthetic"])
def test_above_roof_read_off_rows_is_the_frames_reading(which, request):
    """sa.above_roof against the frames' reading, to the type: every scenario of the committed and
    synthetic sets, under the set's ceilings and under ceilings low enough that points pass them
    (both sides of the ridge), with FP8, wrong, untimed and zero-time rows made up."""
    from gen.analysis import scaling

    ls = request.getfixturevalue(which)
    ceil = scaling.ceilings(ls)
    low = dict(ceil, matmul_tflops=ceil["matmul_tflops"] / 20, bandwidth_gbps=ceil["bandwidth_gbps"] / 20)
    over = 0
    for name in sa.scenario_names([ls]):
        pts = sa.point_frame(ls, name)
        odd = pts.copy()
        if len(odd) > 4:
            odd.loc[odd.index[0], "dtype"] = "fp8_e4m3"
            odd.loc[odd.index[1], "wrong"] = True
            odd.loc[odd.index[2], "gpu_only_ms"] = math.nan
            odd.loc[odd.index[3], "gpu_only_ms"] = 0.0
        for frame in (pts, odd, pts.drop(columns=["dtype", "wrong"]), pts.iloc[0:0]):
            for c in (ceil, low, None):
                got, want = sa.above_roof(frame, c), _above_roof_by_frames(frame, c)
                assert got == want and type(got) is type(want), (name, got, want)
                # (the rows given, as the page gives them: the same, to the type)
                assert repr(sa.above_roof(frame, c, values.rows(frame))) == repr(got)
                if got is not None:
                    assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in want.items()}
                    over += got["n"] > 0
    assert over > 0


def _point_table_by_frames(rows):
    """point_frame's assembly before sa._point_table: a frame of the rows, timings.share_outcomes on it,
    then sort_values on the variant's order and the mode."""
    from gen.analysis import timings
    from gen.analysis.values import variant_order

    df = timings.share_outcomes(pd.DataFrame(rows, columns=sa.COLUMNS), by=["mode", *sa.POINT_KEYS])
    if len(df):
        order = {v: i for i, v in enumerate(variant_order(df["variant"]))}
        df = df.assign(_v=df["variant"].map(order), _m=df["mode"] != schema.Mode.INFERENCE).sort_values(
            ["_v", "_m", "head_dim", "kv_len", "q_len"], kind="stable").drop(columns=["_v", "_m"])
        df = df.reset_index(drop=True)
    return df


@pytest.mark.parametrize("which", ["h200", "h200_new", "h200_merged", "synthetic"])
def test_point_table_is_the_frames_share_outcomes_and_sort(which, request):
    """sa._point_table against the frame reading (share_outcomes, then a stable sort_values), to the
    dtype and the bit: every scenario of the committed and synthetic sets, the rows also reversed
    (the sort has work to do), with outcomes made to disagree within a group of equal kernels (some
    missing: pandas' str column holds them as NaN, which shared_outcome ignores as it does None), and none."""
    import copy

    ls = request.getfixturevalue(which)
    shared = 0
    for name in sa.scenario_names([ls]):
        rows = sa._point_rows(ls, name)
        odd = copy.deepcopy(rows[::-1])
        for i, r in enumerate(odd):
            r["host_bound_outcome"] = ("yes", "no", None)[i % 3]
        nones = [dict(r, host_bound_outcome=None) for r in rows]  # a column of None alone: not text
        for got in (rows, rows[::-1], odd, nones, []):
            want = _point_table_by_frames(copy.deepcopy(got))
            table = sa._point_table(copy.deepcopy(got))
            pd.testing.assert_frame_equal(table, want, check_exact=True)
            assert table["host_bound"].tolist() == want["host_bound"].tolist()
            shared += (table["host_bound_outcome"] != pd.DataFrame(got, columns=sa.COLUMNS)
                       .sort_index()["host_bound_outcome"]).any() if len(got) else 0
    assert shared > 0


@pytest.mark.parametrize("which", ["h200", "h200_new", "h200_merged", "synthetic"])
def test_fastest_rows_are_the_fastest_frames_rows(which, request):
    """fastest_rows of a point frame's rows against fastest_frame's frame as rows, to the type (repr:
    NaN as NaN), every scenario, the rows also reversed and with the unpinned SDPA made fastest."""
    from gen.analysis import values

    ls = request.getfixturevalue(which)
    for name in sa.scenario_names([ls]):
        pts = sa.point_frame(ls, name)
        auto = pts.copy()
        auto.loc[auto["variant"] == "sdpa_auto", "gpu_only_ms"] = 1e-6
        for frame in (pts, pts.iloc[::-1].reset_index(drop=True), auto, pts.iloc[0:0]):
            assert repr(sa.fastest_rows(values.rows(frame))) == repr(values.rows(sa.fastest_frame(frame))), name


def _our_points_by_width(sets, scenario, width):
    """_our_points' reading before it took both widths in one pass: one pass per width."""
    out = []
    for ls in sets:
        if ls.measured:
            for p in sa._records(ls, scenario):
                if p.point not in out and sa._width(sa._dtype_of(ls, p)) == width:
                    out.append(p.point)
    return out


def test_anchor_points_in_one_pass_and_the_empty_anchor_frame(h200, h200_new, h200_merged, synthetic, cudnn_anchor,
                                                               fa3_anchor):
    """_our_points against one pass per width (every scenario of every committed and synthetic set,
    alone and together, FP8 points among them), and the empty anchor frame against a frame made of
    no rows, to the dtype (a copy each call: a caller's change stays its own)."""
    from gen.model import reference

    refs = [cudnn_anchor, fa3_anchor, tables.load_set(RESULTS / reference.NAME)]
    measured = [h200, h200_new, h200_merged, synthetic]
    fp8 = 0
    for group in [[m] for m in measured] + [measured]:
        for name in sa.scenario_names(group):
            got = sa._our_points(group, name)
            assert got == {w: _our_points_by_width(group, name, w) for w in (1, 2)}, name
            fp8 += len(got[1])
            frame = sa.anchor_frame([*group, *refs], name, group[0] if len(group) == 1 else None)
            if frame.empty:
                pd.testing.assert_frame_equal(frame, pd.DataFrame([], columns=sa.ANCHOR_COLUMNS))
                assert frame is not sa.anchor_frame([*group, *refs], name, group[0] if len(group) == 1 else None)
    assert fp8 > 0


def _source_shapes_by_frames(anchor):
    """source_shapes' reading before it read the columns as lists: drop_duplicates, unique, groupby."""
    a = anchor.drop_duplicates(["batch", "q_heads", "kv_heads", "q_len", "kv_len", "head_dim"])
    tokens = (a["batch"] * a["q_len"]).unique()
    hidden = (a["q_heads"] * a["head_dim"]).unique()
    return dict(tokens=int(tokens[0]) if len(tokens) == 1 else None,
                hidden=int(hidden[0]) if len(hidden) == 1 else None,
                heads={int(d): (int(g["q_heads"].iloc[0]), int(g["kv_heads"].iloc[0]))
                       for d, g in a.groupby("head_dim")},
                batches={int(n): int(g["batch"].iloc[0]) for n, g in a.groupby("q_len")},
                shapes=[tuple(int(x) for x in r) for r in a[["batch", "q_heads", "kv_heads", "q_len", "head_dim"]]
                        .itertuples(index=False)])


def test_source_shapes_read_off_lists_are_the_frames_reading(h200, h200_new, synthetic, cudnn_anchor, fa3_anchor):
    """source_shapes against the frames' reading, to the type and the order of its dicts: every source
    of every scenario of the committed and synthetic sets, its rows also reversed and doubled."""
    from gen.model import reference

    refs = [cudnn_anchor, fa3_anchor, tables.load_set(RESULTS / reference.NAME)]
    seen = 0
    for ls in (h200, h200_new, synthetic):
        for name in sa.scenario_names([ls]):
            frame = sa.anchor_frame([ls, *refs], name, ls)
            for source in dict.fromkeys(frame["anchor_set"]):
                a = frame[frame["anchor_set"] == source]
                for cut in (a, a.iloc[::-1], pd.concat([a, a.iloc[::-1]])):
                    got, want = sa.source_shapes(cut), _source_shapes_by_frames(cut)
                    assert repr(got) == repr(want) and list(got["heads"]) == list(want["heads"]), (name, source)
                    seen += 1
    assert seen > 3


def _kernels_frame_by_series(ls, variant):
    """kernels_frame as it was before kernel_rows: each call's µs summed by a Series' groupby, the frame
    made from the rows (the reference for the rows read without them)."""
    from gen.analysis import rules

    rows = []
    for scenario in sa.scenario_names([ls]):
        pts = [p for p in sa._records(ls, scenario) if p.variant == variant and p.status == schema.Status.OK
               and p.trace]
        if not pts:
            continue
        dims = {p.point.head_dim for p in pts}
        s = declared.SCENARIOS.get(scenario)
        d = s.head_dim if s and s.head_dim in dims else min(dims)
        for mode in [m for m in schema.Mode if any(p.mode == m for p in pts)]:
            cand = [p for p in pts if p.mode == mode and p.point.head_dim == d] or [p for p in pts if p.mode == mode]
            p = max(cand, key=lambda x: (x.point.kv_len, x.point.q_len))
            tr = ls.sweep_trace(p.trace)
            groups, durs, codes = {}, [], []
            for g in tr.forwards[0].gpu if tr.forwards else []:
                key = (g.name, g.short_name, g.kind, rules.category(g.name, g.kind, g.launched_by))
                acc = groups.get(key)
                if acc is None:
                    acc = groups[key] = [g.index, 0, len(groups)]
                acc[0], acc[1] = min(acc[0], g.index), acc[1] + 1
                durs.append(g.dur)
                codes.append(acc[2])
            if not durs:
                continue
            sums = pd.Series(durs, dtype=float).groupby(np.asarray(codes, dtype=np.intp), sort=False).sum().to_numpy()
            point = sa._point_dict(p.point)
            for (name, short, kind, category), (first, count, code) in sorted(groups.items(), key=lambda kv: kv[1][0]):
                rows.append(dict(scenario=scenario, mode=mode, **point, index=int(first), name=name, short_name=short,
                                 kind=kind, category=category, count=count, duration_us=float(sums[code])))
    return pd.DataFrame(rows, columns=sa.KERNEL_COLUMNS)


def test_kernel_rows_are_the_series_grouped_frames_rows(synthetic, h200, h200_new, h200_merged, h200_v1):
    """Every variant of the committed sets and the synthetic one (windows on some points, none on others):
    kernel_rows are the rows of the frame a Series' groupby summed, to the type and the bit, and
    kernels_frame is that frame."""
    from gen.report.site import records

    checked = 0
    for ls in [synthetic, h200, h200_new, h200_merged, h200_v1]:
        for variant in sorted({p.variant for p in ls.rs.sweep}):
            want = _kernels_frame_by_series(ls, variant)
            assert repr(sa.kernel_rows(ls, variant)) == repr(records(want)), variant
            got = sa.kernels_frame(ls, variant)
            pd.testing.assert_frame_equal(got, want)
            checked += len(want)
    assert checked > 100


@pytest.mark.parametrize("seed", range(40))
def test_group_sums_are_pandas_groupby_sums_to_the_bit(seed):
    """_group_sums against a Series' groupby sum (codes numbered first seen first): launches together
    or interleaved, with NaN, ±inf, huge and tiny values, ints, one group, many."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    k = int(rng.integers(1, min(n, 12) + 1))
    raw = rng.integers(0, k, n) if seed % 2 else np.sort(rng.integers(0, k, n))
    first: dict = {}
    codes = [first.setdefault(int(c), len(first)) for c in raw]
    durs = (rng.random(n) * 10.0 ** rng.integers(-3, 12, n)).tolist()
    if seed % 5 == 1:
        durs[int(rng.integers(0, n))] = math.nan
    if seed % 7 == 2:
        durs[int(rng.integers(0, n))] = math.inf
    if seed % 7 == 3:
        durs[0], durs[-1] = math.inf, -math.inf
    if seed % 3 == 0:
        durs = [int(x) for x in rng.integers(0, 10 ** 6, n)]
    want = pd.Series(durs, dtype=float).groupby(np.asarray(codes, dtype=np.intp), sort=False).sum().to_numpy()
    got = sa._group_sums(durs, codes, len(first))
    assert [repr(float(x)) for x in got] == [repr(float(x)) for x in want]


def _determinism_by_masks(points):
    """determinism_frame as it read the point frame before: iterrows and a mask per row."""
    from gen.model import variants

    rows = []
    if points.empty:
        return pd.DataFrame(columns=sa.DETERMINISM_COLUMNS)
    key = ["mode", "head_dim", "q_len", "kv_len"]
    for v in dict.fromkeys(points["variant"]):
        det = variants.VARIANTS.get(v)
        if det is None or det.kind != "sdpa_deterministic":
            continue
        base = next((b for b, d in variants.VARIANTS.items() if d.kind == "sdpa" and d.backend == det.backend), None)
        if base is None:
            continue
        for _, r in points[points["variant"] == v].iterrows():
            same = points[(points["variant"] == base) & (points[key] == r[key]).all(axis=1)]
            if same.empty:
                continue
            d = same.iloc[0]
            ok = lambda x: x["status"] == schema.Status.OK and not sa.missing(x["gpu_only_ms"]) and not x["wrong"]  # noqa: E731
            ratio = r["gpu_only_ms"] / d["gpu_only_ms"] if ok(r) and ok(d) else math.nan
            rows.append(dict(backend=det.backend, **{k: r[k] for k in key}, default_variant=base,
                             deterministic_variant=v, default_ms=d["gpu_only_ms"] if ok(d) else math.nan,
                             deterministic_ms=r["gpu_only_ms"] if ok(r) else math.nan, ratio=ratio,
                             status=r["status"], reason=None if ok(r) else r["reason"]))
    return pd.DataFrame(rows, columns=sa.DETERMINISM_COLUMNS)


def _fp8_by_masks(points):
    """fp8_frame as it read the point frame before: iterrows and a mask per row."""
    from gen.model import variants

    rows = []
    if points.empty:
        return pd.DataFrame(columns=sa.FP8_COLUMNS)
    key = ["mode", "head_dim", "q_len", "kv_len"]
    for v in dict.fromkeys(points["variant"]):
        decl = variants.VARIANTS.get(v)
        if decl is None or decl.twin is None:
            continue
        for _, r in points[points["variant"] == v].iterrows():
            same = points[(points["variant"] == decl.twin) & (points[key] == r[key]).all(axis=1)]
            t = same.iloc[0] if len(same) else None
            ran = lambda x: x is not None and x["status"] == schema.Status.OK and not sa.missing(x["gpu_only_ms"])  # noqa: E731
            fp8_ms = r["gpu_only_ms"] if ran(r) else math.nan
            twin_ms = t["gpu_only_ms"] if ran(t) else math.nan
            rows.append(dict(
                variant=v, twin=decl.twin, **{k: r[k] for k in key}, dtype=r["dtype"],
                twin_dtype=t["dtype"] if t is not None else None, fp8_ms=fp8_ms, twin_ms=twin_ms,
                speedup=twin_ms / fp8_ms if not (sa.missing(fp8_ms) or sa.missing(twin_ms)) and fp8_ms else math.nan,
                fp8_error=r["rel_error"] if ran(r) else math.nan,
                twin_error=t["rel_error"] if ran(t) else math.nan,
                input_rounding_error=(r["facts"] or {}).get("fp8_input_rounding_error", math.nan),
                status=r["status"], reason=None if ran(r) else r["reason"]))
    return pd.DataFrame(rows, columns=sa.FP8_COLUMNS)


def _odd_point_frames(pts):
    """The point frame, reversed, with some calls refused, wrong or untimed, and with no row."""
    odd = pts.copy()
    if len(odd) > 4:
        odd.loc[odd.index[::3], "status"] = "error"
        odd.loc[odd.index[1::4], "wrong"] = True
        odd.loc[odd.index[2::5], "gpu_only_ms"] = float("nan")
    return [pts, pts.iloc[::-1].reset_index(drop=True), odd, pts.iloc[0:0]]


def test_determinism_and_fp8_frames_read_off_rows_are_the_masks_frames(synthetic, h200_new, h200_merged):
    """Every scenario of the committed sets with deterministic and FP8 variants and of the synthetic set, as
    they are, reversed, with refusals, wrong answers and missing times: the same frames (to the dtype) and
    the same rows (to the type), with the rows given or read."""
    from gen.report.site import records

    made = 0
    for ls in (synthetic, h200_new, h200_merged):
        for name in sa.scenario_names([ls]):
            for p in _odd_point_frames(sa.point_frame(ls, name)):
                for new, old in ((sa.determinism_frame, _determinism_by_masks), (sa.fp8_frame, _fp8_by_masks)):
                    want = old(p)
                    for got in (new(p), new(p, records(p))):
                        pd.testing.assert_frame_equal(got, want)
                        assert repr(records(got)) == repr(records(want))
                    made += len(want)
    assert made > 20


def _backend_frame_as_made(ls, scenario):
    """backend_frame as it was made before backend_rows: a frame of the rows (None where PyTorch gave no
    reason or chose no backend), the reference for the rows read without it."""
    from gen.model import said

    rows = []
    for rec in sa._records(ls, scenario):
        if not rec.backend_reasons and rec.sdpa_choice is None:
            continue
        for backend, why in rec.backend_reasons.items():
            if backend == rec.sdpa_choice:
                verdict = "chosen"
            elif why == sa.ELIGIBLE:
                verdict = "eligible"
            elif why.startswith("not asked"):
                verdict = "not asked"
            else:
                verdict = "refused"
            rows.append(dict(variant=rec.variant, mode=rec.mode, q_len=rec.point.q_len, kv_len=rec.point.kv_len,
                             head_dim=rec.point.head_dim, sdpa_choice=rec.sdpa_choice, backend=backend,
                             verdict=verdict, reason=None if why == sa.ELIGIBLE else said.reasons(why)))
    return pd.DataFrame(rows, columns=sa.BACKEND_COLUMNS)


def test_backend_rows_are_the_frames_rows(synthetic, h200, h200_new, h200_merged, monkeypatch):
    """Every scenario of the committed and synthetic sets (reasons given for every backend, for some, for
    none), and with SDPA's choice taken away from some points and all: backend_rows are the rows of the frame
    made before, to the type (NaN where a text column mixes text and None), and backend_frame that frame."""
    import dataclasses

    from gen.report.site import records

    def check(ls):
        n = 0
        for name in sa.scenario_names([ls]):
            want = _backend_frame_as_made(ls, name)
            assert repr(sa.backend_rows(ls, name)) == repr(records(want)), name
            pd.testing.assert_frame_equal(sa.backend_frame(ls, name), want)
            n += len(want)
        return n

    checked = sum(check(ls) for ls in (synthetic, h200, h200_new, h200_merged))
    real = sa._records
    for every in (2, 1):
        monkeypatch.setattr(sa, "_records", lambda ls, s, every=every: [
            dataclasses.replace(p, sdpa_choice=None) if i % every == 0 else p for i, p in enumerate(real(ls, s))])
        checked += check(h200_new)
    assert checked > 100


def _typed(rows: list[dict]) -> list[list[tuple]]:
    """Rows to the type: each value's key, type and repr (NaN as NaN)."""
    return [[(k, type(v), repr(v)) for k, v in r.items()] for r in rows]


_SAMPLES = [1, -3, 2 ** 62, 2 ** 63, 2.5, -0.0, math.nan, math.inf, None, True, False, "a", "", (1, 2), {"k": 1},
            [1], np.float64(1.5), np.int64(4), np.bool_(True), np.float32(2.0), pd.NA]


def test_frame_rows_are_the_frames_rows_for_every_mixture_of_two_and_three_kinds():
    """sa.frame_rows against values.rows of the frame pandas makes of the same rows, to the type: every
    column of one, two and three of the samples (ints, floats, NaN, None, bools, text, containers, numpy
    scalars), each column alone and beside the others; where it declines (None), the frame is needed."""
    import itertools

    cols = [list(c) for n in (1, 2, 3) for c in itertools.product(_SAMPLES, repeat=n)]
    read = declined = 0
    for col in cols:
        rows = [dict(x=v, y="t", z=i) for i, v in enumerate(col)]
        got = sa.frame_rows(rows, ["x", "y", "z"])
        if got is None:
            declined += 1
            continue
        want = values.rows(pd.DataFrame(rows, columns=["x", "y", "z"]))
        assert _typed(got) == _typed(want), col
        read += 1
    assert read > len(cols) // 2 and declined > 0
    # every column at once (their mixtures side by side), rows lacking or adding a column declined
    ok = [c for c in cols if len(c) == 3 and sa.frame_rows([dict(x=v) for v in c], ["x"]) is not None]
    rows = [{f"c{j}": c[i] for j, c in enumerate(ok)} for i in range(3)]
    assert _typed(sa.frame_rows(rows, list(rows[0]))) == _typed(values.rows(pd.DataFrame(rows, columns=list(rows[0]))))
    assert sa.frame_rows([dict(x=1), dict(y=2)], ["x", "y"]) is None
    assert sa.frame_rows([dict(x=1, y=2)], ["x"]) is None
    assert sa.frame_rows([], ["x"]) == []


@pytest.mark.parametrize("which", ["h200", "h200_new", "h200_merged", "h200_v1", "synthetic"])
def test_point_rows_are_the_point_frames_rows(which, request):
    """point_rows (no frame made) against values.rows of point_frame, to the type, every scenario of the
    committed and synthetic sets; fresh dicts each call; and the frame reading is used where frame_rows
    declines (a column it does not know)."""
    ls = request.getfixturevalue(which)
    n = 0
    for name in sa.scenario_names([ls]):
        got, want = sa.point_rows(ls, name), values.rows(sa.point_frame(ls, name))
        assert _typed(got) == _typed(want), name
        assert all(a is not b for a, b in zip(got, sa.point_rows(ls, name)))
        n += len(got)
    assert n > 0


def test_point_rows_fall_back_to_the_frame(h200_new, monkeypatch):
    name = sa.scenario_names([h200_new])[0]
    want = values.rows(sa.point_frame(h200_new, name))
    monkeypatch.setattr(sa, "frame_rows", lambda rows, columns: None)
    assert _typed(sa.point_rows(h200_new, name)) == _typed(want)


@pytest.mark.parametrize("which", ["h200", "h200_new", "h200_merged", "synthetic"])
def test_own_head_dim_of_rows_is_the_frames(which, request):
    """own_head_dim_of (rows) against own_head_dim (the frame's mode), to the type: every scenario, as it
    is, under another scenario's name (no declared head dim among them), with head dims made to tie, and
    of the versus frame's rows."""
    ls = request.getfixturevalue(which)
    for name in sa.scenario_names([ls]):
        pts = sa.point_frame(ls, name)
        for frame in (pts, pts.assign(head_dim=[(i % 3) * 32 + 64 for i in range(len(pts))]),
                      pts.assign(head_dim=[(i % 2) * 64 + 64 for i in range(len(pts))]).iloc[::-1], pts.iloc[0:0]):
            for scen in (name, "no such scenario"):
                got, want = sa.own_head_dim_of(values.rows(frame), scen), sa.own_head_dim(frame, scen)
                assert repr(got) == repr(want) and type(got) is type(want), (name, scen)


@pytest.mark.parametrize("which", ["h200", "h200_new", "h200_merged", "synthetic"])
def test_strongest_of_rows_is_the_frames(which, request, cudnn_anchor, fa3_anchor):
    """strongest_of (the versus frame's rows) against strongest (masks, a sort, an iloc), to the type: every
    scenario's versus frame beside the published sets, each source's and all, at every head dim and none,
    reversed, with the published rates made to tie and go missing, and no fastest at the largest length."""
    ls = request.getfixturevalue(which)
    n = 0
    for name in sa.scenario_names([ls]):
        anc = sa.anchor_frame([ls, cudnn_anchor, fa3_anchor], name, ls)
        v = sa.versus_frame(sa.point_frame(ls, name), anc)
        tie = v.assign(anchor_tflops=[(i % 2) * 1.0 if i % 3 else math.nan for i in range(len(v))])
        nofast = v.assign(fastest_variant=[None if x == v["kv_len"].max() else f for x, f in
                                           zip(v["kv_len"], v["fastest_variant"])]) if len(v) else v
        frames = [v, v.iloc[::-1], tie, tie.iloc[::-1], nofast, v.iloc[0:0]]
        frames += [v[v["anchor_set"] == s] for s in set(v["anchor_set"])]
        for f in frames:
            f = f.reset_index(drop=True)
            for d in [None, *sorted(set(f["head_dim"])), 12345]:
                got, want = sa.strongest_of(values.rows(f), d), sa.strongest(f, d)
                assert _typed([got] if got else []) == _typed([want] if want else []), (name, d)
                n += got is not None
    if which != "synthetic":
        assert n > 0
