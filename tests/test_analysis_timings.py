"""GPU-only, eager and host times (gen.analysis.timings): synthetic records, then the committed sets."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gen.analysis import host_rules, rules, tables, timings
from gen.model import graph_rule, schema, stats, trace
from tests.conftest import RESULTS


def gpu_event(index: int, dur: float, kind: str = "kernel", name: str = "k") -> trace.GpuEvent:
    return trace.GpuEvent(index=index, name=name, short_name=trace.short_name(name), kind=kind, ts=10.0 * index,
                          dur=dur, stream=7, grid=(1, 1, 1), block=(128, 1, 1), registers_per_thread=32,
                          shared_memory=0, blocks_per_sm=None, warps_per_sm=None, occupancy_pct=None, bytes=None,
                          launch_api="cudaLaunchKernel", launch_ts=0.0, launched_by="aten::op", op_path=("aten::op",),
                          input_types=())


def fake_trace(*calls: list[float]) -> trace.Trace:
    """One forward per list of GPU event durations (µs)."""
    fws = [trace.Forward(i, 1000.0 * i, 900.0, gpu=[gpu_event(j, d) for j, d in enumerate(durs)])
           for i, durs in enumerate(calls)]
    return trace.Trace("fake.json.gz", fws, 0, [])


def run(**timing) -> schema.VariantRun:
    return schema.VariantRun(variant="v", mode="inference", status="ok", timing=schema.Timing(**timing))


def test_spread_table():
    for samples, med, n, iqr in [
        ([], math.nan, 0, math.nan),
        ([2.0], 2.0, 1, 0.0),
        ([1.0, 2.0, 3.0, 4.0, 5.0], 3.0, 5, 100.0 * (4.0 - 2.0) / 3.0),
    ]:
        s = timings.spread(samples)
        assert s.n == n
        assert (math.isnan(s.median) and math.isnan(med)) or s.median == pytest.approx(med)
        assert (math.isnan(s.iqr_pct) and math.isnan(iqr)) or s.iqr_pct == pytest.approx(iqr)


@pytest.mark.parametrize("timing, tr, method, gpu_only, kernel_sum, reason", [
    # CUDA graph: the replay samples rank; the kernel sum is still read off the trace.
    (dict(gpu_only_ms=[0.050, 0.052, 0.051], gpu_only_method="cuda_graph", calls_per_replay=40,
          eager_ms=[0.1, 0.1]), fake_trace([20.0, 30.0], [25.0, 30.0]), "cuda_graph", 0.051, 0.0525, None),
    # kernel_sum: the GPU events of each profiled call added up, median over calls.
    (dict(gpu_only_method="kernel_sum", gpu_only_reason="capture synced", eager_ms=[1.0]),
     fake_trace([100.0, 20.0], [110.0, 20.0], [300.0, 20.0]), "kernel_sum", 0.130, 0.130, "capture synced"),
    # cuda_graph named but no samples stored: labelled kernel_sum, with why.
    (dict(gpu_only_method="cuda_graph", eager_ms=[1.0]), fake_trace([40.0]), "kernel_sum", 0.040, 0.040,
     "no CUDA-graph samples stored"),
    # kernel_sum without a trace: the method stands, the time is missing.
    (dict(gpu_only_method="kernel_sum", gpu_only_reason="r", eager_ms=[1.0]), None, "kernel_sum", math.nan,
     math.nan, "r"),
    # A CPU run: no GPU-only time at all.
    (dict(gpu_only_reason="no GPU", eager_ms=[3.0]), None, None, math.nan, math.nan, "no GPU"),
])
def test_gpu_only_source(timing, tr, method, gpu_only, kernel_sum, reason):
    t = timings.times(run(**timing), tr)
    assert t.gpu_only_method == method and t.gpu_only_reason == reason
    for got, want in ((t.gpu_only.median, gpu_only), (t.kernel_sum.median, kernel_sum)):
        assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want)


def test_memcpy_and_memset_count_in_the_kernel_sum():
    tr = trace.Trace("f", [trace.Forward(0, 0.0, 100.0, gpu=[gpu_event(0, 5.0, "memset", "Memset (Device)"),
                                                            gpu_event(1, 20.0)])], 0, [])
    assert timings.kernel_sum_samples(tr) == pytest.approx([0.025])


@pytest.mark.parametrize("gpu_only, eager, host, outcome", [
    ([0.100], [0.100], [], rules.NO),
    ([0.100], [0.120], [], rules.NO),  # 1.2x: the interval (±1% each) stays under 1.25
    ([0.100], [0.124], [], rules.WITHIN_NOISE),  # 1.24x: the intervals reach the line
    ([0.100], [0.126], [], rules.WITHIN_NOISE),
    ([0.100], [0.130], [], rules.YES),  # 1.3x: clear of the line
    ([0.100], [0.300], [], rules.YES),
    ([0.100], [0.090], [], rules.NO),  # eager under GPU-only (noise): overhead negative, not bound
    # the host's own cost must agree: a loop that waited, with a host under HOST_YES_MARGIN (1.5x) the GPU:
    # within noise (a host 1.5x as fast would keep up); 1.5x or more: yes
    ([0.100], [0.300], [0.080] * 20, rules.WITHIN_NOISE),
    ([0.100], [0.300], [0.150] * 20, rules.WITHIN_NOISE),
    ([0.100], [0.300], [0.250] * 20, rules.YES),
    # a loop that kept up, with a host at most half the GPU time: no; above half: within noise
    ([0.100], [0.102], [0.040] * 20, rules.NO),
    ([0.100], [0.102], [0.060] * 20, rules.WITHIN_NOISE),
    # a host at most a tenth of the GPU time cannot keep it waiting: no, whatever the loop's interval
    ([0.100], [0.101, 0.098, 0.099, 0.102, 0.150], [0.005] * 20, rules.NO),
    ([0.100], [0.101, 0.098, 0.099, 0.102, 0.150], [0.040] * 20, rules.WITHIN_NOISE),
    # only there: a loop that clearly waited with a tiny host cost (a call that syncs inside) is not "no"
    ([0.100], [0.300], [0.005] * 20, rules.WITHIN_NOISE),
    ([], [0.300], [], None),  # no GPU-only time: undecided
])
def test_host_bound_rule(gpu_only, eager, host, outcome):
    t = timings.times(run(gpu_only_ms=gpu_only, gpu_only_method="cuda_graph" if gpu_only else None, eager_ms=eager,
                          host_ms=host))
    assert t.host_bound_outcome == outcome
    assert t.host_bound is {rules.YES: True, rules.NO: False}.get(outcome)
    if gpu_only:
        assert t.host_overhead_ms == pytest.approx(eager[0] - gpu_only[0])
        assert t.eager_over_gpu_only == pytest.approx(eager[0] / gpu_only[0])


def test_host_cost_is_the_low_end_of_the_host_samples():
    """Noise on a host only adds time: the cost of a call is read at the 10th percentile, so a few slow
    dispatches (a page fault, the garbage collector) do not make the call host-bound."""
    host = [0.030] * 18 + [0.500, 0.900]
    t = timings.times(run(gpu_only_ms=[0.1] * 10, gpu_only_method="cuda_graph", eager_ms=[0.1] * 10, host_ms=host))
    assert t.host_cost_ms == pytest.approx(0.030)
    assert t.host_bound_outcome == rules.NO


@pytest.mark.parametrize("n, k", [(1, 1), (5, 1), (6, 1), (9, 2), (10, 2), (20, 6), (50, 18), (100, 40)])
def test_order_statistic_rank_matches_the_binomial_table(n, k):
    """The 95% distribution-free interval of a median, [x(k), x(n+1-k)]: the ranks of the standard
    tables (e.g. Conover, Practical Nonparametric Statistics: n = 20 gives x(6)..x(15))."""
    assert stats.order_statistic_rank(n) == k
    cover = 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2 ** n
    assert cover >= rules.CI_LEVEL or k == 1
    if k + 1 <= (n + 1) // 2:
        assert 1 - 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n < rules.CI_LEVEL


def test_interval_over_rounds_sees_what_changes_between_rounds():
    """Three rounds of twenty samples, each round tight but the second 10% slower: over the raw samples the
    interval of the median is narrow; over the rounds it spans the three round medians."""
    samples = [1.00] * 20 + [1.10] * 20 + [1.02] * 20
    flat = timings.spread(samples)
    by_round = timings.spread(samples, [20, 20, 20])
    assert by_round.rounds == 3 and flat.rounds == 1
    assert by_round.ci_lo == pytest.approx(min(1.0, 1.02 * 0.99)) and by_round.ci_hi == pytest.approx(1.10)
    assert flat.ci_hi - flat.ci_lo < by_round.ci_hi - by_round.ci_lo
    # sizes that do not add up to the samples: the raw samples stand
    assert timings.spread(samples, [20, 20]).rounds == 1


def test_round_medians_of_equal_rounds_are_each_rounds_median():
    """Rounds of one size take one vectorised call: the same medians as one round at a time (odd and even
    sizes), and rounds of several sizes stay cut where their sizes say."""
    samples = [3.0, 1.0, 2.0, 9.0, 7.0, 8.0, 0.5, 0.25, 0.75, 4.0, 6.0, 5.0]
    for n in (1, 2, 3, 4, 6):
        sizes = [n] * (len(samples) // n)
        assert timings.round_medians(samples, sizes) == [float(np.median(samples[i:i + n]))
                                                         for i in range(0, len(samples), n)]
    assert timings.round_medians(samples, [2, 10]) == [2.0, 4.5]
    assert timings.round_medians(samples, [12]) == []


def test_a_sets_times_are_made_once_per_record_and_trace(h200):
    """LoadedSet.times keeps each record's Times (the pages ask several times): the same object again, equal to
    timings.times, and apart for another trace or record."""
    run, other = h200.rs.runs[0], h200.rs.runs[1]
    tr = h200.trace(run.mode, run.variant)
    first = h200.times(run, tr)
    assert h200.times(run, tr) is first and first == timings.times(run, tr)
    assert h200.times(run) == timings.times(run) and h200.times(other, tr) == timings.times(other, tr)


def test_interval_is_never_narrower_than_the_floor():
    s = timings.spread([2.0] * 100)
    assert s.ci_lo == pytest.approx(2.0 * (1 - rules.TIME_FLOOR_PCT / 100))
    assert s.ci_hi == pytest.approx(2.0 * (1 + rules.TIME_FLOOR_PCT / 100))


def test_row_has_every_column_once():
    r = timings.row(timings.times(run(gpu_only_ms=[1.0, 2.0], gpu_only_method="cuda_graph", eager_ms=[3.0],
                                      host_ms=[0.5])))
    assert list(r) == timings.COLUMNS
    assert r["gpu_only_ms"] == 1.5 and r["eager_ms"] == 3.0 and r["host_ms"] == 0.5
    # eager 2x the GPU-only median, but the two GPU-only samples span 1-2 ms and the host costs a third of it
    assert r["host_bound_outcome"] == rules.WITHIN_NOISE and r["host_bound"] is None


# --------------------------------------------------------------------------- committed sets


def test_h200_set_ranks_on_cuda_graph_replays(h200):
    """The committed H200 set: every run and ok sweep point has CUDA-graph GPU-only samples; the trace's
    kernel sum of the same call stays close to it (it leaves out the gaps between kernels, and profiled
    calls run with the profiler on)."""
    df = timings.times_frame(h200)
    ok = df[df["status"] == "ok"]
    assert set(ok["gpu_only_method"]) == {"cuda_graph"} and ok["gpu_only_reason"].isna().all()
    assert ok["gpu_only_ms"].gt(0).all() and ok["calls_per_replay"].ge(1).all() and ok["gpu_only_n"].ge(5).all()
    runs = ok[ok["record"] == "run"].set_index(["mode", "variant"])
    assert (abs(runs["kernel_sum_ms"] / runs["gpu_only_ms"] - 1) < 0.05).all()
    # cuDNN's forward: its kernels take ~59 µs, a Python loop sees ~85 µs a call, yet the host's own cost
    # of a call (53 µs at its 10th percentile) is under the GPU's time: at the edge, within noise (a second
    # capture's loop saw 1.02x).
    cudnn = runs.loc[("inference", "sdpa_cudnn")]
    assert cudnn["eager_over_gpu_only"] >= host_rules.HOST_BOUND_EAGER_RATIO
    assert cudnn["gpu_only_ms"] / host_rules.HOST_HEADROOM < cudnn["host_cost_ms"] < cudnn["gpu_only_ms"]
    assert cudnn["host_bound_outcome"] == rules.WITHIN_NOISE and cudnn["host_bound"] is None
    assert cudnn["host_overhead_ms"] == pytest.approx(cudnn["eager_ms"] - cudnn["gpu_only_ms"])
    # FlexAttention's training step: 2.2x in the loop, and the host alone costs 1.9x the GPU's time.
    flex = runs.loc[("train", "flex")]
    assert flex["host_bound_outcome"] == rules.YES
    assert flex["host_cost_ms"] > host_rules.HOST_YES_MARGIN * flex["gpu_only_ci_hi_ms"]
    naive = runs.loc[("inference", "naive")]
    assert not naive["host_bound"] and abs(naive["eager_over_gpu_only"] - 1) < 0.05


def test_schema1_h200_set_falls_back_to_the_kernel_sum(h200_v1):
    df = timings.times_frame(h200_v1)
    runs = df[(df["record"] == "run") & (df["status"] == "ok")].set_index(["mode", "variant"])
    assert set(runs["gpu_only_method"]) == {"kernel_sum"}
    assert runs["gpu_only_reason"].str.contains("schema 1").all()
    assert (runs["gpu_only_ms"] == runs["kernel_sum_ms"]).all() and runs["gpu_only_ms"].gt(0).all()
    assert (runs["gpu_only_n"] == 3).all()  # three profiled calls per run
    assert runs["eager_n"].ge(100).all() and runs["host_n"].gt(0).all()
    # The flash forward: its one kernel's three profiled durations, their median (trace).
    tr = trace.parse(h200_v1.path / "traces" / "inference__sdpa_flash.json.gz")
    durs = sorted(fw.gpu[0].dur for fw in tr.forwards)
    assert runs.loc[("inference", "sdpa_flash"), "gpu_only_ms"] == pytest.approx(durs[1] / 1e3)
    # cuDNN's forward: 57 µs of GPU events in a ~96 µs eager call, but a host that costs 53 µs a call: within
    # noise; FlexAttention's: 80 µs against 169 µs eager and 111 µs of host, under 1.5x the GPU's: within
    # noise too.
    cudnn = runs.loc[("inference", "sdpa_cudnn")]
    assert cudnn["eager_over_gpu_only"] > host_rules.HOST_BOUND_EAGER_RATIO
    assert cudnn["host_bound_outcome"] == rules.WITHIN_NOISE
    assert runs.loc[("inference", "flex"), "host_bound_outcome"] == rules.WITHIN_NOISE
    assert runs.loc[("inference", "naive"), "host_bound_outcome"] == rules.NO


def test_schema1_sweep_points_without_a_trace_say_why(h200_v1):
    df = timings.times_frame(h200_v1)
    sw = df[(df["record"] == "sweep") & (df["status"] == "ok")]
    traced = {(p.variant, p.point.head_dim, p.point.kv_len) for p in h200_v1.rs.sweep if p.trace}
    has = [(v, d, s) in traced for v, d, s in zip(sw["variant"], sw["head_dim"], sw["kv_len"])]
    assert sum(has) > 50 and sw[has]["gpu_only_ms"].gt(0).all() and sw[has]["gpu_only_absent"].isna().all()
    # Schema 1 traced the head-dim-64 points only: the others have no kernel sum, and say why.
    untraced = sw[[not h for h in has]]
    assert len(untraced) and untraced["gpu_only_ms"].isna().all()
    assert set(untraced["gpu_only_absent"]) == {"no_trace"} and untraced["eager_ms"].gt(0).all()
    naive = sw[(sw["variant"] == "naive") & (sw["head_dim"] == 64)].sort_values("kv_len")
    assert naive["gpu_only_ms"].is_monotonic_increasing  # longer sequences take longer


def test_cpu_set_has_no_gpu_only_time():
    path = next(p for p in schema.list_sets(RESULTS) if p.name.startswith("cpu-"))
    df = timings.times_frame(tables.load_set(path))
    ok = df[df["status"] == "ok"]
    assert len(ok) and ok["gpu_only_ms"].isna().all() and ok["gpu_only_method"].isna().all()
    assert set(ok["gpu_only_absent"]) == {"not_measured"}
    assert ok["host_ms"].gt(0).all() and ok["host_bound"].isna().all()  # schema 1 kept the CPU's wall time as host time


def test_json_fields():
    j = timings.json_fields(timings.row(timings.times(run(gpu_only_method="kernel_sum", gpu_only_reason="why",
                                                          eager_ms=[0.2, 0.2]), fake_trace([100.0]))))
    assert list(j) == timings.JSON_FIELDS
    assert j["gpu_only_ms"] == 0.1 and j["gpu_only_method"] == "kernel_sum" and j["kernel_sum_ms"] == 0.1
    assert j["host_ms"] is None and j["host_n"] == 0 and j["host_bound"] is True and j["gpu_only_reason"] == "why"
    j = timings.json_fields(timings.row(timings.times(run(eager_ms=[1.0]))))
    assert j["gpu_only_ms"] is None and j["gpu_only_method"] is None and j["host_bound"] is None


def test_a_kernel_signature_holds_each_launchs_configuration():
    """Inductor names its Triton kernels per graph: FlexAttention's bf16 and FP8 graphs both launch a
    triton_tem_fused_flex_attention_0. The same name with another launch configuration is other code,
    not a tie; the same name and configuration is the same kernel (pinned cuDNN and unpinned SDPA)."""
    import dataclasses

    name = "triton_tem_fused_flex_attention_0"

    def one(**launch):
        ev = dataclasses.replace(gpu_event(0, 50.0, name=name), **launch)
        return trace.Trace("t.json.gz", [trace.Forward(0, 0.0, 90.0, gpu=[ev])], 0, [])

    bf16, fp8 = one(registers_per_thread=168, shared_memory=98304), one(registers_per_thread=128, shared_memory=65536)
    assert timings.kernel_signature(bf16) != timings.kernel_signature(fp8)
    assert timings.kernel_signature(bf16) == timings.kernel_signature(one(registers_per_thread=168,
                                                                         shared_memory=98304))
    assert timings.kernel_signature(one(grid=(64, 16, 8))) != timings.kernel_signature(one(grid=(32, 16, 8)))


def test_host_reference_pools_every_record_and_reaches_the_json(h200):
    """The host's speed beside its host-bound outcomes: the reference call's samples of every run and
    sweep point pooled (timings.host_reference), and each record's own median in `summary --format json`."""
    import json
    import statistics

    from gen.analysis import summary

    ls = tables.load_set(RESULTS / "nvidia-h200__torch-2.11.0")
    # every batch's first call runs cold (several times the others): left out
    firsts = [x for r in (*ls.rs.runs, *ls.rs.sweep) for x in r.timing.host_ref_ms[::schema.HOST_REF_CALLS]]
    samples = [x for r in (*ls.rs.runs, *ls.rs.sweep) for k, x in enumerate(r.timing.host_ref_ms)
               if k % schema.HOST_REF_CALLS]
    assert statistics.median(firsts) > 3 * statistics.median(samples)
    ref = timings.host_reference(ls.rs)
    assert ref.n == len(samples) > 1000
    assert ref.median_ms == pytest.approx(statistics.median(samples))
    assert ref.p10_ms < ref.median_ms < ref.p90_ms
    rows = json.loads(summary.run(RESULTS, ls.name, "json"))["rows"]
    run = next(r for r in ls.rs.runs if r.mode == "inference" and r.variant == rows[0]["variant"])
    assert rows[0]["host_ref_ms"] == pytest.approx(statistics.median(timings.warm_refs(run.timing.host_ref_ms)),
                                                   abs=1e-6)
    # the schema-2 fixture was captured before the reference call existed: none, and null in the JSON
    assert timings.host_reference(h200.rs) is None
    assert all(r["host_ref_ms"] is None for r in json.loads(summary.run(h200.path.parent, h200.name, "json"))["rows"])


def _graph_timing(graph, eager, ksum=(142.0, 142.0, 142.4)) -> schema.Timing:
    t = schema.Timing(gpu_only_ms=list(graph), eager_ms=list(eager), kernel_sum_ms=list(ksum))
    t.gpu_only_method = schema.GpuOnlyMethod.CUDA_GRAPH.value
    t.graph_check = schema.GraphCheck(fidelity=schema.GraphFidelity.SAME.value, graph_kernels=["k"],
                                      eager_kernels=["k"])
    return t


def test_every_replay_slower_than_the_median_eager_call_falls_back():
    """The naive 16k point of an H200 capture (run3): four replays at 149 ms, eager calls at 141 ms but the
    first at 152 ms, which stretches eager's interval (four samples: their whole range) over the graph's.
    Every replay is slower than the median eager call: the graph does not stand for the call."""
    t = _graph_timing([149.0, 149.7, 149.2, 149.4], [152.3, 140.7, 141.1, 140.9])
    why = graph_rule.fallback_reason(t)
    assert why and why.startswith("every graph replay") and "149" in why
    # a power-limited point whose replays straddle the eager median (fp8-prefill, 16k): kept
    assert graph_rule.fallback_reason(_graph_timing([7.44, 7.77, 7.85, 7.70], [7.51, 7.59, 7.77, 7.60])) is None
    # analysis applies the same rule to a set captured before it: kernel sum, the reason, the graph kept
    tm = timings.times(schema.VariantRun(variant="naive", mode="inference", status="ok", timing=t))
    assert tm.gpu_only_method == schema.GpuOnlyMethod.KERNEL_SUM and tm.gpu_only_reason == why
    assert tm.gpu_only.median == pytest.approx(142.0) and tm.graph.median == pytest.approx(149.3)
    # with no kernel sum to fall back to, the graph stays (and the pages mark it)
    t.kernel_sum_ms = []
    kept = timings.times(schema.VariantRun(variant="naive", mode="inference", status="ok", timing=t))
    assert kept.gpu_only_method == schema.GpuOnlyMethod.CUDA_GRAPH


def test_a_missing_outcome_is_no_outcome_in_a_tie():
    """Calls of the same kernels where one has no host-bound outcome: the others' outcome is theirs
    (a text column holds the missing one as NaN; it once counted as an outcome of its own and
    turned an agreed "yes" into "within noise")."""
    import pandas as pd

    from gen.analysis import rules

    assert rules.shared_outcome([rules.YES, float("nan")]) == rules.YES
    assert rules.shared_outcome([rules.YES, None, pd.NA]) == rules.YES
    assert rules.shared_outcome([float("nan"), None]) is None
    assert rules.shared_outcome([rules.YES, rules.NO, float("nan")]) == rules.WITHIN_NOISE
    sig = ("k", 1)
    rows = [dict(kernel_signature=sig, host_bound_outcome=o) for o in (rules.YES, None)]
    timings.share_outcomes(rows)
    assert [(r["host_bound_outcome"], r["host_bound"]) for r in rows] == [(rules.YES, True), (rules.YES, True)]


# --------------------------------------------------------------------------- behaviour on small made-up inputs


def test_calls_of_the_same_kernels_share_one_outcome_within_their_group():
    """share_outcomes: rows of one kernel signature (within the groups of `by`) take rules.shared_outcome
    of their outcomes; a row with no signature, or alone in its group, keeps its own."""
    sig = ("k", 1)

    def rows():
        return [dict(kernel_signature=s, host_bound_outcome=o, mode=m)
                for s, o, m in [(sig, "yes", "a"), (sig, "no", "a"), (None, "yes", "a"), (sig, None, float("nan"))]]

    every = rows()
    timings.share_outcomes(every)
    assert [r["host_bound_outcome"] for r in every] == [rules.WITHIN_NOISE, rules.WITHIN_NOISE, "yes",
                                                        rules.WITHIN_NOISE]
    assert [r["host_bound"] for r in every] == [None, None, True, None]
    by_mode = rows()
    timings.share_outcomes(by_mode, by=["mode"])
    assert [r["host_bound_outcome"] for r in by_mode] == [rules.WITHIN_NOISE, rules.WITHIN_NOISE, "yes", None]


def test_spread_of_rounds_and_of_odd_samples():
    """spread: numpy's linear quartiles; the interval over the rounds' medians where the sizes cut the
    samples whole (else over the samples); NaN, zeros and an infinity are read, not refused."""
    s = timings.spread([1.0, 2.0, 3.0, 4.0])
    assert (s.median, s.q1, s.q3, s.n, s.rounds) == (2.5, 1.75, 3.25, 4, 1)
    assert (s.ci_lo, s.ci_hi) == (1.0, 4.0)  # four samples: the whole range
    r = timings.spread([1.0, 1.0, 9.0, 9.0, 9.0, 5.0], [2, 3, 1])  # round medians 1, 9, 5
    assert r.rounds == 3 and r.median == 7.0 and (r.ci_lo, r.ci_hi) == (1.0, 9.0)
    assert timings.spread([1.0, 2.0, 3.0], [1, 1]).rounds == 1  # sizes that do not add up: the samples stand
    assert timings.spread([0.0, 0.0, 0.0]).median == 0.0
    with np.errstate(all="ignore"):
        assert math.isnan(timings.spread([1.0, float("nan"), 2.0]).median)
        assert timings.spread([1.0, 2.0, float("inf")]).n == 3


def test_times_of_a_kept_graph_and_of_a_burst_that_slowed():
    """Where the graph's replays stand for the call, GPU-only time is the graph's spread (one spread, the
    same samples and rounds); a burst whose leading calls ran faster is marked throttled, those calls apart."""
    t = schema.Timing(gpu_only_ms=[1.0, 1.1, 1.2, 1.0], gpu_only_method="cuda_graph", eager_ms=[1.3] * 4,
                      kernel_sum_ms=[1.0, 1.0, 1.05], host_ms=[0.2] * 10, burst_ms=[1.0] * 5 + [1.5] * 5,
                      round_sizes={schema.Window.GPU_ONLY: [2, 2]})
    tm = timings.times(schema.VariantRun(variant="v", mode="inference", status="ok", timing=t))
    assert tm.gpu_only == tm.graph and tm.gpu_only.rounds == 2 and tm.gpu_only_method == "cuda_graph"
    assert tm.kernel_sum.median == 1.0 and tm.host_cost_ms == pytest.approx(0.2)
    assert tm.burst_throttled and tm.burst_early.n == 5 and tm.burst_early.median == 1.0
    row = timings.row(tm)
    assert list(row) == timings.COLUMNS
    assert (row["gpu_only_ms"], row["gpu_only_rounds"], row["burst_early_n"]) == (tm.gpu_only.median, 2, 5)
    assert row["graph_fidelity"] is None and row["telemetry_reason"] == "not recorded"


def test_a_window_without_telemetry_says_why():
    """window_conditions and window: a window NVML read gives its figures; another window is "not recorded",
    with the set's reason where it gave one."""
    t = schema.Timing(telemetry={schema.Window.EAGER: schema.Telemetry(samples=3, sm_clock_mhz=1980.0)},
                      telemetry_reason=None)
    windows, why = timings.window_conditions(t)
    assert why is None and [c.window for c in windows] == [schema.Window.EAGER]
    assert timings.window(windows, why, schema.Window.EAGER).sm_clock_mhz == 1980.0
    other = timings.window(windows, why, schema.Window.BURST)
    assert not other.recorded and other.reason == "not recorded"
    none, why = timings.window_conditions(schema.Timing(telemetry_reason="no pynvml"))
    assert none == () and timings.window(none, why, schema.Window.EAGER).reason == "no pynvml"


def _committed_sets(*fixtures):
    return list(fixtures) + [tables.load_set(p) for p in sorted(RESULTS.iterdir()) if p.is_dir()]


def test_a_sets_kernel_signatures_are_made_once_per_trace(h200, h200_v1):
    """LoadedSet.kernel_signature: timings.kernel_signature of every record with its trace (or none: the
    graph check's names), the same object again for the same trace, for the committed sets."""
    kept = 0
    for ls in _committed_sets(h200, h200_v1):
        for rec in [*ls.rs.runs, *ls.rs.sweep]:
            check = rec.timing.graph_check if rec.timing else None
            for tr in ((ls.sweep_trace(rec.trace),) if rec.trace else ()) + (None,):
                got = ls.kernel_signature(tr, check)
                assert got == timings.kernel_signature(tr, check), (ls.name, rec.trace)
                if tr is not None and tr.forwards and tr.forwards[0].gpu:
                    assert ls.kernel_signature(tr, check) is got
                    kept += 1
    assert kept > 300
