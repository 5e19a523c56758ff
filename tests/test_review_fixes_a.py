"""The review's measurement-truth items (notes/review.md, items 1-3, 6-11, 18, 21, 31, 32), each asserted
on a synthetic record or on the committed lead H100 set, through the fact layer and the words.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from gen.analysis import calls, host_rules, rules, timings, verdicts
from gen.analysis.advice import HostLoop
from gen.model import schema
from gen.report.words import as_run as as_run_words
from gen.report.words import common as words
from gen.report.words import decision as decision_words
from gen.report.words import host as host_words
from gen.report.words import lessons as lesson_words
from gen.report.words import methodology as method_words
from gen.report.words import tables as table_words
from gen.report.words import verdicts as verdict_words
from tests.conftest import committed_set

ROOT = Path(__file__).resolve().parent.parent
LEAD = ROOT / "results" / "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def lead():
    return committed_set(LEAD)


def _graph_timing(graph, eager, ksum) -> schema.Timing:
    t = schema.Timing(gpu_only_ms=list(graph), eager_ms=list(eager), kernel_sum_ms=list(ksum))
    t.gpu_only_method = schema.GpuOnlyMethod.CUDA_GRAPH.value
    t.graph_check = schema.GraphCheck(fidelity=schema.GraphFidelity.SAME.value, graph_kernels=["k"],
                                      eager_kernels=["k"])
    return t


def _run(t: schema.Timing) -> schema.VariantRun:
    return schema.VariantRun(variant="v", mode="inference", status="ok", timing=t)


# --------------------------------------------------------------------------- item 1: graph far below the kernels


def test_graph_far_below_kernel_sum_and_eager_falls_back_synthetic():
    """A replay 2x below both the profiled kernels and the eager loop ranks on the kernel sum, with why."""
    t = _graph_timing([6.40, 6.42, 6.44, 6.41, 6.43], [12.9, 12.95, 13.0], [12.68, 12.69, 12.70])
    tm = timings.times(_run(t))
    assert tm.gpu_only_method == schema.GpuOnlyMethod.KERNEL_SUM
    assert tm.gpu_only.median == pytest.approx(12.69)
    assert "kernel sum" in tm.gpu_only_reason and f"{rules.GRAPH_BELOW_KERNELS_RATIO:g}" in tm.gpu_only_reason
    assert tm.graph.median == pytest.approx(6.42)  # the graph's figure is kept, not ranked
    # the rule needs both: a graph below the kernel sum alone (eager agrees with the graph) stands
    ok = _graph_timing([6.40, 6.42, 6.44], [6.5, 6.5, 6.6], [12.68, 12.69, 12.70])
    assert timings.times(_run(ok)).gpu_only_method == schema.GpuOnlyMethod.CUDA_GRAPH
    # and within the factor it stands too (memory-bound decode reads 1.19x on the H100 set)
    near = _graph_timing([1.0, 1.0, 1.0], [1.4, 1.4, 1.4], [1.4, 1.4, 1.4])
    assert timings.times(_run(near)).gpu_only_method == schema.GpuOnlyMethod.CUDA_GRAPH
    assert not rules.graph_below_kernels(1.0, 1.4, 1.4) and rules.graph_below_kernels(1.0, 1.6, 1.6)


def test_fp8_flex_ranks_on_its_kernel_sum(lead):
    """The committed H100 set: FP8 FlexAttention's CUDA-graph replay reads about half its profiled kernel sum (6.4
    against 12.7 ms): the graph replays less work, so it ranks on its kernel sum."""
    rows = {t.variant: t for t in calls.timed(lead, "fp8-prefill")}
    fp8 = rows["flex_fp8"]
    assert fp8.gpu_only_method == schema.GpuOnlyMethod.KERNEL_SUM
    rec = next(p for p in lead.rs.sweep if p.scenario == "fp8-prefill" and p.variant == "flex_fp8")
    assert fp8.gpu_only.median == pytest.approx(statistics.median(rec.timing.kernel_sum_ms), rel=1e-6)
    assert statistics.median(rec.timing.gpu_only_ms) < fp8.gpu_only.median / rules.GRAPH_BELOW_KERNELS_RATIO
    v = verdicts.verdict(lead, "fp8-prefill", "inference")
    assert v.ranking.index("flex_fp8") > v.ranking.index("flex")
    # the page says why: the fidelity line carries the reason
    point = next(p for p in lead.rs.sweep if p.scenario == "fp8-prefill" and p.variant == "flex_fp8")
    row = dict(variant="flex_fp8", status="ok", gpu_only_method="kernel_sum",
               gpu_only_reason=timings.times(point).gpu_only_reason)
    line = " ".join(table_words.fidelity_lines([row]))
    assert "kernel sum" in line and "graph replay reads" in line
    # with the kernel sum, the loop no longer reads as waiting for the host (item 2)
    assert fp8.eager_over_gpu_only < host_rules.HOST_BOUND_EAGER_RATIO


# --------------------------------------------------------------------------- items 2, 8, 18: the host is not the gap


def test_host_faster_than_gpu_is_never_waited_for():
    """cuDNN at the article's shape: 1.60x in the loop, host 55.6 µs against 58.9 µs of GPU (item 8)."""
    text = host_words.host_ratio_words(1.60, (1.55, 1.65), None, 0.0556, 0.0589)
    assert "waited for this host" not in text and "not established" in text and "55.6 µs" in text
    # a host far below the GPU (FP8 Flex as first read: 0.59 ms against 6.4 ms): the kernels, not the host (item 2)
    text = host_words.host_ratio_words(2.02, (2.0, 2.04), None, 0.5945, 6.422)
    assert "waited" not in text and "does not explain" in text
    # at the line, a host ten times faster (FA4 sliding windows: 0.33 ms against 3.12 ms): not host-bound (item 18)
    text = host_words.host_ratio_words(1.1, (0.96, 1.28), None, 0.3298, 3.1234)
    assert "line behind this host" not in text and "not behind this host" in text and "not the host's" in text
    # a host slower than the GPU still reads as waited for
    assert "waited for this host" in host_words.host_ratio_words(3.0, (2.9, 3.1), None, 0.2, 0.06)
    assert host_rules.host_under_gpu(0.0556, 0.0589) and not host_rules.host_under_gpu(0.2, 0.06)
    assert host_rules.host_far_under_gpu(0.3, 3.12) and not host_rules.host_far_under_gpu(0.5, 3.12)
    assert host_rules.host_well_under_gpu(0.33, 3.12) and not host_rules.host_well_under_gpu(2.0, 3.12)


def test_lead_set_pages_never_say_waited_for_a_faster_host(lead):
    """Every verdict's host line on the lead set: no "waited"/"behind this host" where the host is under the GPU."""
    for sc in ("article", "gqa-prefill", "decode", "fp8-prefill", "sliding-window"):
        v = verdicts.verdict(lead, sc, "inference")
        for x in v.host_noise:
            t = v.row(x)
            text = host_words.host_ratio_words(t.eager_over_gpu_only, t.eager_ratio_ci, t.host_noise_why,
                                               t.host_cost_ms, t.gpu_only.median, t.host_ref_ms)
            if host_rules.host_under_gpu(t.host_cost_ms, t.gpu_only.median):
                assert "waited for this host" not in text and "line behind this host" not in text, (sc, x, text)


# --------------------------------------------------------------------------- item 3: "longer" only where longer


def test_loops_line_does_not_say_longer():
    a = type("A", (), {"loops": (HostLoop("gqa-prefill", 1.94, (1.9, 2.0), rules.YES, None, None),
                                 HostLoop("decode", 4.49, (4.4, 4.6), rules.YES, None, None)),
                       "default": "sdpa_auto", "host_calls": ()})()
    text = decision_words._loops(a)
    assert "longer" not in text and text.startswith("A loop of SDPA (backend not pinned) also waited in")


# --------------------------------------------------------------------------- item 9: the parenthetical's label


def test_closed_gap_parenthetical_names_both_variants(lead):
    v = verdicts.verdict(lead, "article", "inference")
    if v.host is None or not v.host.closed:
        pytest.skip("the lead set's article verdict has no closed gap")
    text = verdict_words._host_line(v)
    assert "its time on the GPU alone" not in text and "on the GPU alone" in text
    x = v.host.closed[0]
    ratio = v.row(x).gpu_only.median / v.fastest.gpu_only.median
    assert f"takes {ratio:.2f}× " in text


# --------------------------------------------------------------------------- item 7: the ceiling at the points' clock


def test_points_above_a_throttled_matmul_ceiling_are_set_at_their_clock(lead):
    from gen.analysis import scaling, values
    from gen.analysis import scenarios as sa
    from gen.report.words import scenarios as scenario_words
    ceil, mhz = sa.ceilings(lead), scaling.matmul_clock(lead)
    assert mhz is not None and mhz < 1500  # the lead set's ceiling ran throttled
    rows = values.rows(sa.point_frame(lead, "gqa-prefill"))
    at = sa.above_matmul_at_clock(rows, ceil, mhz)
    assert at["n"] >= 1
    # a point whose window had one clock is set against the ceiling there; this set's one point above the line
    # (FlexAttention at 32k: mean 1601, min 1230 MHz) had none, so it is set against no clock of its own
    assert at["no_clock"] == at["n"] and at["pct_hi"] is None
    text = scenario_words.above_roof(sa.above_roof(rows, ceil), None, None, None, at)
    assert "a kernel can pass it" not in text and "not the tensor cores' peak" in text and "own clock" not in text
    one = [dict(r, one_clock=True, pct_of_matmul_at_clock=100 * r["tflops"] / scaling.matmul_at(
        ceil["matmul_tflops"], mhz, r["sm_clock_mhz"])) for r in rows]  # as if every window had one clock
    at = sa.above_matmul_at_clock(one, ceil, mhz)
    assert at["n"] >= 1 and at["within_at_clock"] == at["n"] and at["pct_hi"] <= 100 and not at["no_clock"]
    text = scenario_words.above_roof(sa.above_roof(one, ceil), None, None, None, at)
    assert "a kernel can pass it" not in text and f"{mhz:.0f} MHz" in text and "own clock" in text
    # without clocks the words still never claim a kernel passes the tensor cores
    assert "a kernel can pass it" not in scenario_words.above_roof(sa.above_roof(rows, ceil))


def test_findings_share_of_the_ceiling_at_the_calls_clock(lead):
    from gen.analysis import lessons
    x = lessons.flash_occupancy(lead)
    text = lesson_words._on_chip_clause(x)
    share = 100 * x.tflops / x.ceiling_at_clock_tflops
    assert x.ceiling_mhz < x.sm_clock_mhz and f"about {share:.0f}% of it scaled to the {x.sm_clock_mhz:.0f} MHz" in text


# --------------------------------------------------------------------------- items 10, 11: equal clock, window clock


def test_equal_clock_only_where_compute_bound(lead):
    from gen.analysis import scenarios as sa
    from gen.analysis import summary, values
    assert sa.FIGURE_TBPS == rules.MEMORY_BOUND_FIGURE
    assert rules.equal_clock_applies(sa.FIGURE_TFLOPS) and not rules.equal_clock_applies(sa.FIGURE_TBPS)
    decode = verdicts.verdict(lead, "decode", "inference")
    assert decode.memory_bound and all(t.at_ref_ms is None for t in decode.rows)
    text = as_run_words.ranked_by(decode)
    assert "equal clock does not apply" in text and as_run_words.equal_clock_line(decode) is None
    # the table cells and the summary JSON agree: no equal-clock time at a decode point
    row = next(r for r in values.rows(sa.point_frame(lead, "decode")) if r["status"] == "ok")
    cell = table_words.conditions_cell(row, lead.rs.environment.ref_mhz)
    assert "(equal clock)" not in cell and "does not apply" in cell
    assert all(r["gpu_only_ms_at_ref_clock"] is None for r in summary.scenario_rows(lead, "decode"))
    # a compute-bound point keeps its equal-clock time
    gqa = verdicts.verdict(lead, "gqa-prefill", "inference")
    assert not gqa.memory_bound and any(t.at_ref_ms is not None for t in gqa.rows)


def test_the_window_clock_is_not_called_the_kernels_own():
    rule = method_words.verdict_rule(method_words.ci_levels())
    assert "its own power draw left the GPU" not in rule
    assert "variants timed just before it" in rule and "variants timed just before it" in method_words.AS_RUN_CLOCK


# --------------------------------------------------------------------------- item 21: deterministic cost at equal clock


def test_deterministic_conclusion_gives_both_ratios(lead):
    from gen.analysis import advice
    a = advice.advice(lead)
    best = sorted((d for d in a.determinism if d.ratio is not None), key=lambda d: d.det_ms)[0]
    text = decision_words._determinism(a)
    tail = text.split("is the fastest deterministic call", 1)[1]
    assert round(best.det_mhz) != round(best.plain_mhz)
    assert f"as run ({best.det_mhz:.0f} against {best.plain_mhz:.0f} MHz)" in tail
    if best.plain_ratio_at_ref is not None:
        assert f"{best.plain_ratio_at_ref:.2f}× at equal clock" in tail
    else:  # a window with no single clock (rules.one_clock: FA4's deterministic step, 1821 MHz, min 1725) has none
        row = verdicts.verdict(lead, best.scenario, best.mode).row(best.variant)
        assert not row.one_clock and "at equal clock" not in tail, tail


# --------------------------------------------------------------------------- items 31, 32: one source per row


def test_summary_rows_name_the_window_the_page_prints(lead):
    import json

    from gen.analysis import scenarios as sa
    from gen.analysis import summary, values
    for sc in ("packed-documents", "gqa-prefill"):
        rows = json.loads(summary.run(LEAD.parent, LEAD.name, "json", scenario=sc))["rows"]
        ok = [r for r in rows if r["status"] == "ok" and r["gpu_only_ms"] is not None]
        assert ok and all(r["telemetry"] for r in ok), sc  # packed documents' rows found their records
        pts = [r for r in values.rows(sa.point_frame(lead, sc)) if r["status"] == "ok"]
        for r in ok:
            w = r["conditions_window"]
            assert w == ("kernel_sum" if r["gpu_only_method"] == "kernel_sum" else "gpu_only"), (sc, r["variant"])
            assert r["telemetry"][w]["sm_clock_mhz"] == pytest.approx(r["sm_clock_mhz"], abs=0.1)
            assert r["telemetry"][w]["power_w"] == pytest.approx(r["power_w"], abs=0.1)
        # the page's cell prints that same window, and says so for a kernel sum
        for p in pts:
            if p["gpu_only_method"] == "kernel_sum" and not p.get("sm_clock_mhz") != p.get("sm_clock_mhz"):
                cell = table_words.conditions_cell(p)
                assert table_words.KERNEL_SUM_WINDOW in cell and f"{p['sm_clock_mhz']:.0f} MHz" in cell


# --------------------------------------------------------------------------- item 6: the same point in two scenarios


def test_the_same_point_in_two_scenarios_is_cross_referenced(lead):
    from gen.analysis import scenarios as sa
    from gen.report.words import scenarios as scenario_words
    for here, there in (("fp8-prefill", "gqa-prefill"), ("gqa-prefill", "fp8-prefill")):
        got = [d for d in sa.same_point_elsewhere(lead, here) if d["other"] == there]
        assert got and got[0]["q_len"] == 16384 and {"sdpa_cudnn", "fa4", "flex_flash"} <= set(got[0]["variants"])
        assert got[0]["orders_differ"]  # cuDNN 6.777 ms at 1832 MHz there, 7.525 ms at 1595 MHz here
        text = scenario_words.same_point_line(got[0], words.label)
        # each call's two intervals overlap: the order differs inside them (review 2026-12-06-6 item 4)
        assert there in text and "inside the intervals" in text and "does not rank the kernels" not in text
    # packed documents never match a dense point
    assert not any(d["other"] == "packed-documents" for d in sa.same_point_elsewhere(lead, "gqa-prefill"))


def test_the_fp8_page_says_why_flex_fp8_ranks_on_its_kernel_sum(lead):
    from gen.analysis import scenarios as sa
    from gen.report.words import scenarios as scenario_words
    lines = scenario_words.graph_below_lines(sa.point_rows(lead, "fp8-prefill"), words.label)
    rec = next(p for p in lead.rs.sweep if p.scenario == "fp8-prefill" and p.variant == "flex_fp8")
    summed, graph = statistics.median(rec.timing.kernel_sum_ms), statistics.median(rec.timing.gpu_only_ms)
    assert len(lines) == 1 and words.us(summed) in lines[0] and words.us(graph) in lines[0]
    assert not scenario_words.graph_below_lines(sa.point_rows(lead, "gqa-prefill"), words.label)
