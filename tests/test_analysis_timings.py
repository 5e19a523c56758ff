"""GPU-only, eager and host times (gen.analysis.timings): synthetic records, then the committed sets."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gen.analysis import rules, tables, timings
from gen.model import graph_rule, schema, trace
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
    assert timings.order_statistic_rank(n) == k
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
    assert cudnn["eager_over_gpu_only"] >= rules.HOST_BOUND_EAGER_RATIO
    assert cudnn["gpu_only_ms"] / rules.HOST_HEADROOM < cudnn["host_cost_ms"] < cudnn["gpu_only_ms"]
    assert cudnn["host_bound_outcome"] == rules.WITHIN_NOISE and cudnn["host_bound"] is None
    assert cudnn["host_overhead_ms"] == pytest.approx(cudnn["eager_ms"] - cudnn["gpu_only_ms"])
    # FlexAttention's training step: 2.2x in the loop, and the host alone costs 1.9x the GPU's time.
    flex = runs.loc[("train", "flex")]
    assert flex["host_bound_outcome"] == rules.YES
    assert flex["host_cost_ms"] > rules.HOST_YES_MARGIN * flex["gpu_only_ci_hi_ms"]
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
    assert cudnn["eager_over_gpu_only"] > rules.HOST_BOUND_EAGER_RATIO
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


def _share_outcomes_by_rows(df, by=()):
    """share_outcomes as it was written first (row by row with iterrows), the reference for the faster one."""
    from gen.analysis import rules

    df = df.copy()
    if df.empty or "kernel_signature" not in df:
        return df
    groups: dict = {}
    for i, r in df.iterrows():
        if isinstance(r["kernel_signature"], tuple):
            key = tuple(None if timings._nan(r[k]) else r[k] for k in by)
            groups.setdefault((*key, r["kernel_signature"]), []).append(i)
    for idx in groups.values():
        if len(idx) > 1:
            o = rules.shared_outcome(df.loc[idx, "host_bound_outcome"])
            for i in idx:
                df.at[i, "host_bound_outcome"] = o
    df["host_bound"] = [{rules.YES: True, rules.NO: False}.get(o) for o in df["host_bound_outcome"]]
    return df


def test_shared_outcomes_column_by_column_are_the_row_by_row_ones(h200_new):
    """Every scenario's points of the committed set (and a frame where calls of the same kernels disagree):
    share_outcomes gives the frame the row-by-row reading gave."""
    import pandas as pd

    from gen.analysis import scenarios as sa

    for name in sa.scenario_names([h200_new]):
        pts = sa.point_frame(h200_new, name)
        for by in ((), ("mode", *sa.POINT_KEYS)):
            got, want = timings.share_outcomes(pts, by=list(by)), _share_outcomes_by_rows(pts, by=list(by))
            pd.testing.assert_frame_equal(got, want, check_exact=True)
    sig = ("k", 1)
    df = pd.DataFrame({"kernel_signature": [sig, sig, None, sig], "host_bound_outcome": ["yes", "no", "yes", None],
                       "mode": ["a", "a", "a", float("nan")]}, index=[5, 3, 9, 1])
    for by in ((), ("mode",)):
        pd.testing.assert_frame_equal(timings.share_outcomes(df, by=list(by)), _share_outcomes_by_rows(df, by=list(by)))


def _spread_by_numpy(samples, sizes=None):
    """spread as numpy computes it (percentile, median per round, sorted order statistics): the reference."""
    import numpy as np

    a = np.asarray(samples, dtype=float)
    q1, med, q3 = np.percentile(a, [25, 50, 75])
    rounds = timings.round_medians(a, sizes)
    lo, hi = timings.median_interval(rounds or a)
    floor = timings.rules.TIME_FLOOR_PCT / 100.0
    lo, hi = min(lo, med * (1 - floor)), max(hi, med * (1 + floor))
    return timings.Spread(float(med), float(q1), float(q3), len(a), float(lo), float(hi), len(rounds) or 1)


def test_spread_without_numpy_is_numpys_to_the_bit():
    """A few samples are read without numpy (timings._spread_small): the same floats as numpy's percentile,
    medians and order statistics, for thousands of random windows (ties, rounds of equal and unequal sizes,
    sizes that do not add up); NaN, infinities, zeros and many samples go to numpy."""
    import random

    rng = random.Random(21)
    cases = []
    for _ in range(3000):
        k = rng.randint(1, 60)
        scale = 10 ** rng.uniform(-4, 3)
        s = [round(rng.uniform(0.1, 10) * scale, rng.choice([2, 4, 6, 12])) for _ in range(k)]
        if rng.random() < 0.3:
            s = [rng.choice(s) for _ in s]
        sizes = None
        if rng.random() < 0.6 and len(s) >= 2:
            cuts = sorted(rng.sample(range(1, len(s)), rng.randint(1, len(s) - 1)))
            sizes = [b - a for a, b in zip([0, *cuts], [*cuts, len(s)])]
            if rng.random() < 0.1:
                sizes[0] += 1  # does not add up: the raw samples stand
        cases.append((s, sizes))
    cases += [([1.0, float("nan"), 2.0], None), ([1.0, float("inf")], None), ([0.0, -0.0, 1.0], None),
              ([2.0] * 1500, None), ([3.5], None), ([1.0, 2.0], [1, 1])]
    import numpy as np

    with np.errstate(all="ignore"):  # infinities: numpy warns as it computes NaN, on both sides
        for s, sizes in cases:
            assert repr(timings.spread(s, sizes)) == repr(_spread_by_numpy(s, sizes)), (s, sizes)


def test_small_percentiles_are_numpys_to_the_bit():
    """timings.small_percentiles (the host cost's 10th percentile, tables.stats' quartiles): numpy.percentile's
    floats and type for random small samples at several percentiles; None (numpy decides) for the rest."""
    import random

    import numpy as np

    rng = random.Random(7)
    for _ in range(2000):
        s = [round(rng.uniform(0.01, 100) * 10 ** rng.uniform(-3, 3), rng.choice([1, 3, 9]))
             for _ in range(rng.randint(1, 80))]
        s = [x for x in s if x > 0] or [1.0]
        for qs in ([25, 50, 75], [10], [90], [1], [99], [0, 100]):
            got, want = timings.small_percentiles(s, qs), np.percentile(np.asarray(s, dtype=float), qs)
            assert [repr(x) for x in got] == [repr(x) for x in want], (s, qs)
    for s in ([], [0.0, 1.0], [1.0, float("nan")], [float("inf")], [1.0] * 1001):
        assert timings.small_percentiles(s, [50]) is None


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
    df = pd.DataFrame({"kernel_signature": [sig, sig], "host_bound_outcome": [rules.YES, None]})
    got = timings.share_outcomes(df)
    assert got["host_bound_outcome"].tolist() == [rules.YES, rules.YES]
    assert got["host_bound"].tolist() == [True, True]


# --------------------------------------------------------------------------- the readings the faster ones replaced


def _bits(x):
    """A value to the type and the bit: dataclasses field by field, floats by repr (NaN and -0.0 too)."""
    import dataclasses

    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return type(x).__name__, tuple((f.name, _bits(getattr(x, f.name))) for f in dataclasses.fields(x))
    if isinstance(x, (tuple, list)):
        return type(x).__name__, tuple(_bits(v) for v in x)
    return type(x).__name__, repr(x)


def _times_reference(record, tr=None) -> timings.Times:
    """timings.times as it was before the graph's spread stood for GPU-only's and the host cost was read off
    the host's sorted samples: every spread made apart by numpy (_spread_by_numpy), burst_lead asked twice,
    the host cost by small_percentiles or numpy.percentile."""
    import statistics

    def spread(xs, sizes=None):
        return timings.Spread() if len(xs) == 0 else _spread_by_numpy(xs, sizes)

    t = record.timing
    sizes = t.round_sizes or {}
    ksum = spread(t.kernel_sum_ms, sizes.get(schema.Window.KERNEL_SUM)) if t.kernel_sum_ms else \
        spread(timings.kernel_sum_samples(tr))
    method, reason = t.gpu_only_method, t.gpu_only_reason
    graph_kept = method == schema.GpuOnlyMethod.CUDA_GRAPH and bool(t.gpu_only_ms)
    late = graph_rule.fallback_reason(t) if graph_kept and t.kernel_sum_ms else None
    if graph_kept and late is None and t.kernel_sum_ms and t.eager_ms:  # review item 1's clause
        late = timings.graph_below_reason(t.gpu_only_ms, t.kernel_sum_ms, t.eager_ms)
    if graph_kept and late is None:
        gpu_only = spread(t.gpu_only_ms, sizes.get(schema.Window.GPU_ONLY))
    elif method is not None:
        if method == schema.GpuOnlyMethod.CUDA_GRAPH:
            reason = late or reason or "no CUDA-graph samples stored"
        method, gpu_only = schema.GpuOnlyMethod.KERNEL_SUM.value, ksum
    else:
        gpu_only = timings.Spread()
    absent = None if gpu_only.n else ("not_measured" if method is None else "no_trace")
    graph = spread(t.gpu_only_ms if graph_kept else t.graph_ms, sizes.get(schema.Window.GPU_ONLY))
    windows = tuple(timings.conditions(w, t.telemetry.get(w), t.telemetry_reason) for w in schema.Window
                    if w in t.telemetry)
    host_cost = float((timings.small_percentiles(t.host_ms, [rules.HOST_COST_QUANTILE])
                       or np.percentile(t.host_ms, [rules.HOST_COST_QUANTILE]))[0]) if t.host_ms else math.nan
    return timings.Times(
        gpu_only=gpu_only, gpu_only_method=method, gpu_only_reason=reason, kernel_sum=ksum,
        eager=spread(t.eager_ms, sizes.get(schema.Window.EAGER)),
        host=spread(t.host_ms, sizes.get(schema.Window.HOST)), calls_per_replay=t.calls_per_replay,
        gpu_only_absent=absent, burst=spread(t.burst_ms, sizes.get(schema.Window.BURST)),
        burst_throttled=rules.burst_lead(t.burst_ms) is not None,
        burst_early=spread(rules.burst_lead(t.burst_ms) or []), graph=graph,
        windows=windows, telemetry_reason=t.telemetry_reason or (None if windows else "not recorded"),
        fidelity=timings.graph_fidelity(t.graph_check), host_cost_ms=host_cost,
        host_ref_ms=statistics.median(refs) if (refs := timings.warm_refs(t.host_ref_ms)) else math.nan)


def _committed_sets(*fixtures):
    return list(fixtures) + [tables.load_set(p) for p in sorted(RESULTS.iterdir()) if p.is_dir()]


def _random_timings(seed: int, count: int) -> list[schema.Timing]:
    """Windows of random samples (ties, rounds that add up or not, a NaN, zero or infinite sample now and
    then), with each GPU-only method and the graph kept or not."""
    import random

    rng = random.Random(seed)

    def samples(k: int) -> list[float]:
        scale = 10 ** rng.uniform(-3, 2)
        xs = [round(rng.uniform(0.5, 2) * scale, rng.choice([3, 6, 12])) for _ in range(k)]
        if rng.random() < 0.3:
            xs = [rng.choice(xs) for _ in xs]
        if xs and rng.random() < 0.05:
            xs[rng.randrange(len(xs))] = rng.choice([float("nan"), 0.0, -0.0, float("inf"), -1.0])
        return xs

    def rounds(n: int) -> list[int] | None:
        if n < 2 or rng.random() < 0.3:
            return None
        cuts = sorted(rng.sample(range(1, n), rng.randint(1, min(n - 1, 6))))
        got = [b - a for a, b in zip([0, *cuts], [*cuts, n])]
        if rng.random() < 0.1:
            got[0] += 1
        return got

    out = []
    for _ in range(count):
        windows = {w: samples(rng.choice([0, 1, 3, 10, 40, 200])) for w in
                   ("gpu_only", "eager", "host", "kernel_sum", "burst", "graph")}
        sizes = {w: r for w, xs in windows.items() if w != "graph" and (r := rounds(len(xs)))}
        method = rng.choice([None, "cuda_graph", "cuda_graph", "kernel_sum"])
        burst = windows["burst"] if rng.random() < 0.5 else [1.0] * 5 + [1.5] * 5  # one that slowed
        out.append(schema.Timing(
            gpu_only_ms=windows["gpu_only"], gpu_only_method=method, gpu_only_reason=rng.choice([None, "why"]),
            eager_ms=windows["eager"], host_ms=windows["host"], kernel_sum_ms=windows["kernel_sum"],
            burst_ms=burst, graph_ms=windows["graph"], round_sizes=sizes,
            host_ref_ms=samples(rng.choice([0, 3, 9]))))
    return out


def test_times_are_the_earlier_readings_to_the_bit(h200, h200_v1):
    """timings.times (the graph's spread standing for GPU-only's where they are the same samples, the host
    cost read off the host spread's sorted samples, one finiteness test a window): the Times of the earlier
    reading (_times_reference), field by field to the type and the bit, for every run and sweep point of
    the committed sets with their traces, and for random records."""
    seen = 0
    with np.errstate(all="ignore"):  # infinities and NaN: numpy warns as it computes NaN, on both sides
        for ls in _committed_sets(h200, h200_v1):
            for rec in [*ls.rs.runs, *ls.rs.sweep]:
                tr = ls.sweep_trace(rec.trace) if rec.trace and rec.status == schema.Status.OK else None
                assert _bits(timings.times(rec, tr)) == _bits(_times_reference(rec, tr)), (ls.name, rec.trace)
                seen += 1
        for timing in _random_timings(5, 1500):
            rec = schema.VariantRun(variant="v", mode="inference", status="ok", timing=timing)
            assert _bits(timings.times(rec)) == _bits(_times_reference(rec)), timing
            assert _bits(timings.times(rec, fake_trace([5.0, 2.5], [6.0]))) == \
                _bits(_times_reference(rec, fake_trace([5.0, 2.5], [6.0])))
    assert seen > 500


def _row_reference(tm: timings.Times) -> dict:
    """timings.row as it was before it wrote COLUMNS' order in one dict: the keys made per spread, the
    properties read as the columns asked, then the dict reordered."""
    out: dict = {}
    for name, s in (("gpu_only", tm.gpu_only), ("eager", tm.eager), ("host", tm.host)):
        out.update({f"{name}_ms": s.median, f"{name}_q1_ms": s.q1, f"{name}_q3_ms": s.q3, f"{name}_n": s.n,
                    f"{name}_iqr_pct": s.iqr_pct, f"{name}_ci_lo_ms": s.ci_lo, f"{name}_ci_hi_ms": s.ci_hi})
    c = tm.gpu_only_conditions
    launches = timings._launches
    out.update(gpu_only_rounds=tm.gpu_only.rounds, gpu_only_method=tm.gpu_only_method,
               gpu_only_reason=tm.gpu_only_reason, gpu_only_absent=tm.gpu_only_absent,
               calls_per_replay=tm.calls_per_replay, kernel_sum_ms=tm.kernel_sum.median,
               kernel_sum_n=tm.kernel_sum.n, host_cost_ms=tm.host_cost_ms, host_ref_ms=tm.host_ref_ms,
               host_overhead_ms=tm.host_overhead_ms,
               eager_over_gpu_only=tm.eager_over_gpu_only, host_bound=tm.host_bound,
               host_bound_outcome=tm.host_bound_outcome, burst_ms=tm.burst.median, burst_n=tm.burst.n,
               graph_ms=tm.graph.median, graph_fidelity=tm.fidelity.fidelity if tm.fidelity else None,
               graph_detail=tm.fidelity.detail if tm.fidelity else None,
               graph_only_in_graph=launches(tm.fidelity.only_graph) if tm.fidelity else None,
               graph_only_in_eager=launches(tm.fidelity.only_eager) if tm.fidelity else None,
               sm_clock_mhz=c.sm_clock_mhz, sm_clock_min_mhz=c.sm_clock_min_mhz, power_w=c.power_w, temp_c=c.temp_c,
               telemetry_window_s=c.duration_s,
               telemetry_reason=None if c.recorded else c.reason,
               burst_sm_clock_mhz=tm.window(schema.Window.BURST).sm_clock_mhz,
               burst_sm_clock_max_mhz=tm.window(schema.Window.BURST).sm_clock_max_mhz,
               burst_throttled=tm.burst_throttled, burst_early_ms=tm.burst_early.median,
               burst_early_n=tm.burst_early.n)
    return {k: out[k] for k in timings.COLUMNS}


def test_rows_are_the_earlier_readings_to_the_bit(h200, h200_new, h200_v1):
    """timings.row (one dict in COLUMNS' order): the earlier reading's keys, in order, and values to the
    type and the bit, for every run and sweep point of the committed sets and for random records (the
    schema-3 set's telemetry and graph checks, CPU sets, outcomes of every kind)."""
    tms = []
    for ls in _committed_sets(h200, h200_v1):
        for rec in [*ls.rs.runs, *ls.rs.sweep]:
            tms.append(timings.times(rec, ls.sweep_trace(rec.trace) if rec.trace and rec.status == "ok" else None))
    with np.errstate(all="ignore"):
        for timing in _random_timings(9, 600):
            timing.graph_check = h200_new.rs.runs[0].timing.graph_check
            timing.telemetry = dict(h200_new.rs.runs[len(tms) % 5].timing.telemetry)
            if len(tms) % 3 == 0:
                timing.telemetry.pop(schema.Window.GPU_ONLY, None)
            tms.append(timings.times(schema.VariantRun(variant="v", mode="inference", status="ok", timing=timing)))
    outcomes = set()
    for tm in tms:
        got, want = timings.row(tm), _row_reference(tm)
        assert list(got) == list(want) and _bits(list(got.values())) == _bits(list(want.values())), tm
        outcomes.add(got["host_bound_outcome"])
    assert outcomes == {rules.YES, rules.NO, rules.WITHIN_NOISE, None}


def test_a_records_windows_without_its_times_are_its_times_windows(h200, h200_v1):
    """The set page reads each run's windows off timings.window_conditions (not the run's whole times): the
    conditions Times.window gave, as it read them (its windows searched, else "not recorded" with the
    reason), for every window of every record of the committed sets, with telemetry or none."""
    def window_reference(tm, name):
        found = next((c for c in tm.windows if c.window == name), None)
        return found or timings.Conditions(name, reason=tm.telemetry_reason or "not recorded")

    recorded = 0
    for ls in _committed_sets(h200, h200_v1):
        for rec in [*ls.rs.runs, *ls.rs.sweep]:
            tm = _times_reference(rec)
            windows, why = timings.window_conditions(rec.timing)
            for w in schema.Window:
                got = timings.window(windows, why, w)
                assert _bits(got) == _bits(window_reference(tm, w)), (ls.name, rec.trace, w)
                recorded += got.recorded
    assert recorded > 100


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
