"""The figures the methodology quotes, read from a measured set, so its prose states none by hand.

Takes: a loaded set (gen.analysis.tables). Gives: `method_facts(ls) -> MethodFacts | None` (None for
a published or CPU set): the kernel sum against the CUDA-graph replay per variant, the kernels the
profiler's occupancy estimate reads 0% for and their shared memory, one host-bound call's kernel
and loop times, the sweep's lengths, head dims and ceilings, and the who-leads rule's evidence
(`ClockEvidence`). Numbers only; the methodology's
partials word them.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from gen.analysis import calls, flops, host_rules, kernel_rules, pair_noise, rules, scaling, tables, timings, verdicts
from gen.analysis.pair_noise import AsRunNoise
from gen.model import schema


@dataclass(frozen=True)
class GraphVsSum:
    """One inference variant timed both ways at the default shape."""

    variant: str
    graph_ms: float
    kernel_sum_ms: float


@dataclass(frozen=True)
class ZeroEstimate:
    """A kernel whose occupancy the profiler reads 0% for (kernel_rules.estimate_blind), with what launched it."""

    kernel: str
    smem_bytes: int  # shared memory a block
    launch_api: str


@dataclass(frozen=True)
class Estimated:
    """A kernel the profiler's occupancy estimate still reads, with its shared memory a block."""

    kernel: str
    smem_bytes: int
    occupancy_pct: float


@dataclass(frozen=True)
class HostExample:
    """The methodology's host example: a host-bound forward, or one within noise whose loop waits (`waits`); else the
    fastest forward, whose loop does not, so the page says "yet" only where a loop waits."""

    variant: str
    events_us: float  # its GPU events a forward (its main kernel's where no events were summed)
    gpu_only_ms: float
    eager_ms: float
    waits: bool
    host_cost_ms: float | None
    slow_loop: bool  # its loop past the eager line (host_rules.host_bound), though its host may be under the GPU

    @property
    def loop_ratio(self) -> float:
        return self.eager_ms / self.gpu_only_ms


@dataclass(frozen=True)
class TimedApart:
    """The sweep's variant-points timed apart from their point's shared rounds (see timed_apart)."""

    alone: int  # retried alone after the shared rounds
    after: int  # graph replayed alone after them
    later: int  # retried in later rounds with the others that ran out of memory


@dataclass(frozen=True)
class MethodFacts:
    set_name: str
    graph_vs_sum: tuple[GraphVsSum, ...]
    zero_estimate: tuple[ZeroEstimate, ...]
    estimated: tuple[Estimated, ...]  # those with the most shared memory
    host_bound: HostExample | None
    lengths: tuple[int, ...]  # the article sweep's sequence lengths
    head_dims: tuple[int, ...]
    ceilings: dict | None  # scaling.ceilings
    # Timed records interleaved with others in rounds: how many rotated the order each round (the capture's
    # timing.interleave_rotated; a record without the field ran in a fixed order) and how many did not
    rotated: int = 0
    fixed: int = 0
    varied: int = 0  # of the rotated, those whose predecessor changed from round to round
    clocks: ClockEvidence | None = None  # why equal clock is a model, and the as-run noise of identical kernels
    orientation: Orientation | None = None  # how far the two round orientations read apart
    apart: TimedApart | None = None  # None: the set does not record where its calls were timed (no slots)
    sums: SweepSums | None = None  # the kernel sum against the graph replay over every sweep point
    one_clock: OneClockSplit | None = None  # the set's evidence for rules.one_clock


@dataclass(frozen=True)
class SumAt:
    """One variant-point's kernel sum over its graph replay (the median of each)."""

    ratio: float
    variant: str
    scenario: str
    mode: str
    point: schema.Point


@dataclass(frozen=True)
class SweepSums:
    """The kernel sum against the graph replay over every sweep point, not the default shape alone: of the
    variant-points timed both ways (`timed`), those whose two windows ran within rules.CLOCK_GAP_PCT
    in clock (`compared`), the lowest and highest ratio among them, and those past rules.KERNEL_SUM_GRAPH_RATIO beyond
    their clock gap (calls.sums_off_graph: their kernel sums, and their twins', decide no pair), largest off first."""

    timed: int
    compared: int
    low: SumAt
    high: SumAt
    off: tuple[SumAt, ...]
    # Of the others, those whose sum read slower than its replay though taken at an equal or higher clock (no clock gap
    # explains them: rules.sum_slower_at_higher_clock), largest first: the range above leaves them out.
    # Replays set aside by rules.graph_below_kernels are not among them (there the replay, not the
    # sum, is the figure set aside): `aside` holds those, largest first (FP8 FlexAttention's 1.88x)
    slower: tuple[SumAt, ...] = ()
    aside: tuple[SumAt, ...] = ()


@dataclass(frozen=True)
class Orientation:
    """The neighbour effect of reversed rounds (rules.lead_decided): of the variant-points with a forward and a
    reversed median (`timed`), those whose two differ by more than rules.ORIENTATION_GAP_PCT (`apart`); of the points
    with two or more such variants (`points`), those whose fastest in the forward rounds is not the fastest in the
    reversed ones (`swapped`: the first two swap places, or another call takes the first), and of those the swaps
    between two calls that ran the very same kernels (`ties`: each swap's pair, pair_noise.AsRunNoise.identical: SDPA
    cuDNN and SDPA with no backend pinned trading places are no other call); of `timed`,
    those with an odd number of rounds (`odd`: the forward rounds outnumber the reversed, so the median leans to the
    forward order), how many had each number of rounds (`rounds`: (rounds, variant-points) each, fewest rounds
    first), and those whose whole median still fell in a reversed round (`median_reversed`: every middle sample in one;
    timings.median_rounds).
    """

    timed: int
    apart: int
    points: int
    swapped: int
    odd: int = 0
    rounds: tuple[tuple[int, int], ...] = ()
    median_reversed: int = 0
    ties: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ClockEvidence:
    """The who-leads rule's evidence (rules, "who leads"): of the compute-bound variant-points whose rounds' clocks
    span rules.ROUND_CLOCK_SPAN_PCT or more (`checked`), those whose round medians x round clock spread more than the
    raw round medians (`scaled_wider`: time does not follow clock); the points with an identical pair
    (gen.analysis.pair_noise) and their ratios' range, `widest` that pair."""

    checked: int
    scaled_wider: int
    pair_points: int
    pair_low: float | None
    widest: AsRunNoise | None


def _graph_vs_sum(ls) -> tuple[GraphVsSum, ...]:
    st = tables.summary_table(ls, schema.Mode.INFERENCE)
    out = []
    for _, r in st.iterrows():
        if r["gpu_only_method"] == schema.GpuOnlyMethod.CUDA_GRAPH and not math.isnan(r["kernel_sum_ms"]):
            out.append(GraphVsSum(r["variant"], float(r["gpu_only_ms"]), float(r["kernel_sum_ms"])))
    return tuple(out)


def _occupancy(ls) -> tuple[tuple[ZeroEstimate, ...], tuple[Estimated, ...]]:
    zero, est = {}, {}
    for run in ls.rs.runs:
        if run.scenario != "article" or run.status != schema.Status.OK or not run.trace:
            continue
        tr = ls.trace(run.mode, run.variant)
        for g in (tr.forwards[0].gpu if tr and tr.forwards else []):
            if g.kind != "kernel" or g.shared_memory is None or g.occupancy_pct is None:
                continue
            if kernel_rules.estimate_blind(g.shared_memory) and g.occupancy_pct == 0:
                zero.setdefault(g.short_name, ZeroEstimate(g.short_name, g.shared_memory, g.launch_api or ""))
            elif g.occupancy_pct > 0:
                est.setdefault(g.short_name, Estimated(g.short_name, g.shared_memory, g.occupancy_pct))
    top = max((x.smem_bytes for x in est.values()), default=None)
    return (tuple(sorted(zero.values(), key=lambda x: -x.smem_bytes)),
            tuple(x for x in est.values() if x.smem_bytes == top))


def _host_bound(ls) -> HostExample | None:
    v = verdicts.verdict(ls, "article", schema.Mode.INFERENCE)
    # the example: a host-bound forward, else one at the edge (within noise) whose loop still waits past the line,
    # else the fastest, a loop that keeps the GPU busy
    if v is None:
        return None
    waits = [x for x in v.host_noise if (t := v.row(x)) is not None and t.eager is not None and t.gpu_only is not None
             and host_rules.host_bound(t.eager.median, t.gpu_only.median)
             and not host_rules.host_under_gpu(t.host_cost_ms, t.gpu_only.median)]  # a host slower than the GPU
    edge = v.host_bound or tuple(waits)
    t = v.row(edge[0]) if edge else v.fastest
    if t is None or t.main_us is None or t.gpu_only is None or t.eager is None:
        return None
    # a loop past the eager line whose host is still under the GPU (the H200 set's cuDNN forward: 1.44x) says so
    slow_loop = bool(host_rules.host_bound(t.eager.median, t.gpu_only.median))
    return HostExample(t.variant, t.events_us or t.main_us, t.gpu_only.median, t.eager.median, bool(edge),
                       t.host_cost_ms, slow_loop)


def method_facts(ls: tables.LoadedSet) -> MethodFacts | None:
    if not ls.measured or ls.environment.device != "cuda":
        return None
    zero, est = _occupancy(ls)
    sweep = scaling.article_sweep(ls)
    return MethodFacts(ls.name, _graph_vs_sum(ls), zero, est, _host_bound(ls),
                       tuple(sorted({p.seq_len for p in sweep})), tuple(sorted({p.head_dim for p in sweep})),
                       scaling.ceilings(ls), *interleave_orders(ls.rs), clock_evidence(ls), orientation(ls),
                       timed_apart(ls.rs), sweep_sums(ls), one_clock_split([ls]))


def sweep_sums(ls) -> SweepSums | None:
    """SweepSums of a set; None where no sweep point was timed both ways at clocks within rules.CLOCK_GAP_PCT."""
    timed, near, off, slower = 0, [], [], []
    for key in dict.fromkeys((p.scenario, p.mode, p.point) for p in ls.rs.sweep):
        for t in calls.timed_at(ls, key[0], key[2], key[1]):
            g = t.gpu_only
            if (t.status != schema.Status.OK or t.gpu_only_method != schema.GpuOnlyMethod.CUDA_GRAPH or g is None
                    or not g.median or not t.kernel_sum_ms):
                continue
            timed += 1
            at = SumAt(t.kernel_sum_ms / g.median, t.variant, *key)
            if (rules.clock_gap_pct(t.kernel_sum_mhz, t.sm_clock_mhz) or 0.0) <= rules.CLOCK_GAP_PCT:
                near.append(at)
            elif rules.sum_slower_at_higher_clock(at.ratio, t.kernel_sum_mhz, t.sm_clock_mhz):
                slower.append(at)
            if calls.sums_off_graph(t) is not None:
                off.append(at)
    aside = _set_aside(ls)  # timed both ways too, their replay set aside
    if not near:
        return None
    return SweepSums(timed + len(aside), len(near),
                     min(near, key=lambda a: a.ratio), max(near, key=lambda a: a.ratio),
                     tuple(sorted(off, key=lambda a: -max(a.ratio, 1 / a.ratio))),
                     tuple(sorted(slower, key=lambda a: -a.ratio)), tuple(sorted(aside, key=lambda a: -a.ratio)))


def _set_aside(ls) -> list[SumAt]:
    """The sweep's variant-points whose graph replay was set aside for reading far below their kernel sum
    (rules.graph_below_kernels): their sum over the replay set aside, where the sum ran at an equal or higher clock."""
    out = []
    for p in ls.rs.sweep:
        if p.status != schema.Status.OK:
            continue
        tm = ls.times(p)
        if (tm.gpu_only_method != schema.GpuOnlyMethod.KERNEL_SUM or not tm.graph.n or not tm.kernel_sum.n
                or not rules.graph_below_kernels(tm.graph.median, tm.kernel_sum.median, tm.eager.median)):
            continue
        r = tm.kernel_sum.median / tm.graph.median
        if rules.sum_slower_at_higher_clock(r, tm.window(schema.Window.KERNEL_SUM).sm_clock_mhz,
                                            tm.window(schema.Window.GPU_ONLY).sm_clock_mhz):
            out.append(SumAt(r, p.variant, p.scenario, p.mode, p.point))
    return out


def _spread(xs: list[float]) -> float:
    return max(xs) / min(xs)


def clock_evidence(ls) -> ClockEvidence:
    """ClockEvidence of a set."""
    checked = wider = 0
    for r in (*ls.rs.runs, *ls.rs.sweep):
        t = r.timing
        if (r.status != schema.Status.OK or r.point is None or t.gpu_only_method != schema.GpuOnlyMethod.CUDA_GRAPH
                or not rules.equal_clock_applies(flops.figure_of(r.point, r.mode))):
            continue
        meds = timings.round_medians(t.gpu_only_ms, (t.round_sizes or {}).get(schema.Window.GPU_ONLY))
        mhz = [w.sm_clock_mhz for w in (t.round_telemetry or {}).get(schema.Window.GPU_ONLY, [])]
        if len(meds) < 2 or len(mhz) != len(meds) or any(m is None or m <= 0 for m in mhz) or min(meds) <= 0:
            continue
        if 100.0 * (max(mhz) - min(mhz)) / max(mhz) < rules.ROUND_CLOCK_SPAN_PCT:
            continue
        checked += 1
        wider += _spread([m * c for m, c in zip(meds, mhz)]) > _spread(meds)
    own = list(pair_noise.measured(ls).values())
    widest = max(own, key=lambda n: n.ratio) if own else None
    return ClockEvidence(checked, wider, len(own), min((n.ratio for n in own), default=None), widest)


@dataclass(frozen=True)
class OneClockSplit:
    """The evidence for rules.one_clock over some sets: of the compute-bound variant-points timed on graph replay in
    rounds with their clocks, those whose GPU-only window's lowest clock lies past the line under its mean (`past`)
    and those within it (`within`), each with how many ran rounds whose mean clocks span rules.ROUND_CLOCK_SPAN_PCT
    or more (`*_spanning`)."""

    past: int
    past_spanning: int
    within: int
    within_spanning: int


def one_clock_split(sets) -> OneClockSplit:
    """OneClockSplit over the loaded sets `sets` (those without clocks add nothing); a set's own is in its
    MethodFacts, so that pages over several sets add those up (`added`) without reading the sets again."""
    counts = Counter()
    for ls in sets:
        for r in (*ls.rs.runs, *ls.rs.sweep):
            t = r.timing
            if (r.status != schema.Status.OK or r.point is None or t is None or not t.telemetry
                    or t.gpu_only_method != schema.GpuOnlyMethod.CUDA_GRAPH
                    or not rules.equal_clock_applies(flops.figure_of(r.point, r.mode))):
                continue
            w = t.telemetry.get(schema.Window.GPU_ONLY)
            mhz = [x.sm_clock_mhz for x in (t.round_telemetry or {}).get(schema.Window.GPU_ONLY, [])]
            if w is None or not w.sm_clock_mhz or not w.sm_clock_min_mhz or len(mhz) < 2 or not all(mhz):
                continue
            side = "within" if rules.one_clock(w.sm_clock_mhz, w.sm_clock_min_mhz) else "past"
            counts[side] += 1
            counts[side + "_spanning"] += 100.0 * (max(mhz) - min(mhz)) / max(mhz) >= rules.ROUND_CLOCK_SPAN_PCT
    return OneClockSplit(counts["past"], counts["past_spanning"], counts["within"], counts["within_spanning"])


def added(splits) -> OneClockSplit:
    """Several sets' OneClockSplit added up (None ones left out)."""
    got = [s for s in splits if s is not None]
    return OneClockSplit(*(sum(getattr(s, k) for s in got) for k in ("past", "past_spanning", "within",
                                                                      "within_spanning")))


def orientation(ls) -> Orientation | None:
    """Orientation of a loaded set; None where no record has reversed rounds. A scenario's profiled runs and its sweep
    are each their own points (pair_noise.RUN, SWEEP), as the noise of identical kernels reads them."""
    by_point: dict[tuple, dict[str, tuple[float, float]]] = {}
    rounds: dict[tuple, tuple[int, bool]] = {}  # variant-point -> (its rounds, its whole median in a reversed one)
    for kind, recs in ((pair_noise.RUN, ls.rs.runs), (pair_noise.SWEEP, ls.rs.sweep)):
        for r in recs:
            if r.status != schema.Status.OK or r.timing is None:
                continue
            fwd, rev = timings.orientation_medians(r.timing)
            if fwd is None or rev is None:
                continue
            by_point.setdefault((kind, r.scenario, r.mode, r.point), {})[r.variant] = (fwd, rev)
            sizes = (r.timing.round_sizes or {}).get(schema.Window.GPU_ONLY) or []
            middle = timings.median_rounds(r.timing.gpu_only_ms, sizes)
            rounds[(kind, r.scenario, r.mode, r.point, r.variant)] = (len(sizes),
                                                                      bool(middle) and all(i % 2 == 1 for i in middle))
    odd = sum(n % 2 for n, _ in rounds.values())
    counts = Counter(n for n, _ in rounds.values())
    reversed_ = sum(rev for _, rev in rounds.values())
    timed = [m for ms in by_point.values() for m in ms.values()]
    if not timed:
        return None
    apart = sum(1 for f, v in timed if rules.orientation_gap_pct(f, v) > rules.ORIENTATION_GAP_PCT)
    shared = {k: ms for k, ms in by_point.items() if len(ms) >= 2}
    noise = pair_noise.measured(ls)
    swaps = [(k, tuple(sorted((min(ms, key=lambda x: ms[x][0]), min(ms, key=lambda x: ms[x][1])))))
             for k, ms in shared.items()]
    swaps = [(k, pair) for k, pair in swaps if pair[0] != pair[1]]
    ties = tuple(pair for k, pair in swaps if k in noise and pair in noise[k].identical)
    return Orientation(len(timed), apart, len(shared), len(swaps), odd, tuple(sorted(counts.items())), reversed_,
                       ties)


def timed_apart(rs: schema.ResultSet) -> TimedApart | None:
    """TimedApart: the sweep's variant-points retried alone after their point's shared rounds, those whose
    graph was replayed alone after them, and those retried in later rounds of their own with the others that ran out
    of memory beside them (gen.analysis.calls.rounds_of); None where the set records no slots."""
    here: dict = {}
    for p in rs.sweep:
        here.setdefault((p.scenario, p.mode, p.point), []).append(p)
    got = [calls.rounds_of(p, peers)[0] for peers in here.values() for p in peers if p.status == schema.Status.OK]
    if all(r is calls.UNKNOWN for r in got):
        return None
    return TimedApart(got.count(calls.ALONE), got.count(calls.AFTER), got.count(calls.LATER))


def interleave_orders(rs: schema.ResultSet) -> tuple[int, int, int]:
    """(rotated, fixed, varied): the records timed in interleaved rounds with other variants whose order rotated each
    round, and those whose order stayed the same (schema.Timing.interleave_rotated; missing, as in sets captured
    before it, means a fixed order); `varied`: of the rotated, those whose odd rounds ran backwards
    (interleave_reversed), so their predecessor changed; a rotation alone keeps it."""
    timed = [r.timing for r in (*rs.runs, *rs.sweep) if r.timing is not None and len(r.timing.interleaved_with) > 1]
    rotated = sum(1 for t in timed if getattr(t, "interleave_rotated", False) is True)
    varied = sum(1 for t in timed if getattr(t, "interleave_rotated", False)
                 and getattr(t, "interleave_reversed", False))
    return rotated, len(timed) - rotated, varied
