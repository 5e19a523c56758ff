"""The as-run noise of identical kernels at each point (rules.lead_decided): two calls of one point that ran the very
same kernels, timed on graph replay, read apart only by their windows' conditions, so their ratio is how far apart an
as-run order can read with nothing to say about the kernels (SDPA with cuDNN pinned and
SDPA with no backend pinned, 1.07-1.16x apart). Both calls read the same inputs: a paged call and its contiguous twin
launch the same kernels, but their gap is paging's cost (`_same_inputs`).

The same pairs give two more lines: where both ran in the point's shared rounds,
how far apart their per-round ratio swings (`per_round`: the paired rule, rules.paired_leads), and how far apart their
kernel sums read (`kernel_sum`: rules.kernel_sum_floor). Each is borrowed as the as-run line is (`largest`) where the
point has none of its own.

Takes: a loaded set (gen.analysis.tables). Gives: `AsRunNoise` and `noise_at(ls, kind, scenario, mode, point)`, the
point's own where it has an identical pair, else the set's largest, marked borrowed. Numbers only."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from gen.analysis import flops, rules, timings
from gen.model import schema, variants

RUN, SWEEP = "run", "sweep"  # a scenario's profiled runs and its sweep points are timed apart: each its own point


@dataclass(frozen=True)
class UnequalReplay:
    """Two calls of a point that ran the very same kernels on the same inputs, replayed at graph lengths past
    rules.SAME_REPLAY_PCT apart: their calls per replay."""

    first: str
    second: str
    first_calls: int
    second_calls: int


@dataclass(frozen=True)
class AsRunNoise:
    """The largest as-run ratio (larger GPU-only median over smaller) between two calls of one point that ran
    identical kernels; `fast` and `slow` name that pair. `borrowed`: the point has no such pair, and this is the
    set's largest, measured at `scenario`, `mode`, `point`. `oriented`: the line for one round orientation's medians
    (rules.lead_decided), the largest ratio of identical kernels' forward-round medians or of their reversed-round
    medians, over the point's identical pairs (where borrowed, over the points it is borrowed from); None where no
    such pair had its rounds reversed (the whole medians' line then stands for each orientation too).
    `per_round`: the largest per-round ratio (either call's round median over the other's, both directions) of
    identical kernels timed in the same shared rounds, the paired rule's line (rules.paired_leads); `kernel_sum`: the
    largest kernel-sum ratio of identical kernels (larger over smaller; past rules.CLOCK_GAP_PCT apart in clock, less
    what the gap explains: rules.clock_left), the kernel sums' line (rules.kernel_sum_floor); each None where no pair
    gives it, and `*_borrowed` where taken from other points (`largest`).
    `twins`: the point's identical pairs timed in the same shared rounds, and `rounds` their round medians (variant,
    medians): a lead the shared rounds decide must hold against each member of a tie (leads.orders). `identical`: every
    identical pair of the point, shared rounds or not (the methodology's orientation count: gen.analysis.method)."""

    ratio: float
    fast: str
    slow: str
    scenario: str
    mode: str
    point: schema.Point
    borrowed: bool = False
    oriented: float | None = None
    per_round: float | None = None
    per_round_borrowed: bool = False
    kernel_sum: float | None = None
    kernel_sum_borrowed: bool = False
    twins: tuple[tuple[str, str], ...] = ()
    rounds: tuple[tuple[str, tuple[float, ...]], ...] = ()
    identical: tuple[tuple[str, str], ...] = ()
    # Where borrowed: a pair of the point that ran the very same kernels on the same inputs but was replayed at
    # graph lengths past rules.SAME_REPLAY_PCT apart, so not read as noise ("no identical pair ran
    # here" beside a tie of the same kernels); None where none
    unequal_replay: UnequalReplay | None = None

    def round_ms(self, variant: str) -> tuple[float, ...]:
        """A twin's round medians (`rounds`); () where it is none."""
        return next((r for v, r in self.rounds if v == variant), ())

    def partners(self, variant: str) -> tuple[str, ...]:
        """The calls that ran the very same kernels as `variant` in the same shared rounds (`twins`)."""
        return tuple(b if a == variant else a for a, b in self.twins if variant in (a, b))


def _graph_kernels(rec) -> tuple | None:
    """What one graph replay ran: its kernels' names with their counts; None where the GPU-only time is not the
    graph's (no samples, no graph check)."""
    t = rec.timing
    if (rec.status != schema.Status.OK or t.gpu_only_method != schema.GpuOnlyMethod.CUDA_GRAPH or not t.gpu_only_ms
            or t.graph_check is None or not t.graph_check.graph_kernels):
        return None
    return tuple(sorted(Counter(t.graph_check.graph_kernels).items()))


def _same_replay(a, b) -> bool:
    """Calls per replay within rules.SAME_REPLAY_PCT of each other (both known)."""
    na, nb = a.timing.calls_per_replay, b.timing.calls_per_replay
    return bool(na and nb) and abs(na - nb) <= rules.SAME_REPLAY_PCT / 100.0 * max(na, nb)


def _signature(ls, rec):
    """Every GPU event of the profiled call with its launch (timings.kernel_signature): graph kernels' names alone
    do not tell FlexAttention's bf16 graph from its FP8 one (Inductor names both triton_tem_fused_flex_attention_0)."""
    tr = ls.sweep_trace(rec.trace) if rec.trace and rec.status == schema.Status.OK else None
    return ls.kernel_signature(tr, rec.timing.graph_check)


def _same_inputs(a, b) -> bool:
    """Both calls read the cache the same way: a paged call and a contiguous one can launch kernels of the same names
    and grids (paged FA4 and FA4) while the page table moves every read, so their gap is paging's cost, not the
    windows' noise."""
    return variants.pages(a.variant) == variants.pages(b.variant)


def _oriented(a, b) -> float | None:
    """Two identical calls' larger forward-or-reversed ratio (larger median over smaller in the forward rounds, and in
    the reversed ones; timings.orientation_medians); None where either's rounds were not reversed."""
    (fa, ra), (fb, rb) = timings.orientation_medians(a.timing), timings.orientation_medians(b.timing)
    if not (fa and ra and fb and rb):
        return None
    return max(max(fa, fb) / min(fa, fb), max(ra, rb) / min(ra, rb))


def _round_medians(rec) -> tuple[float, ...]:
    """The GPU-only graph time's median in each round, where the call ran in the point's shared rounds (not retried
    alone, nor its graph replayed alone after them: gen.analysis.calls.rounds_of); () elsewhere."""
    t = rec.timing
    if len(t.interleaved_with or ()) < 2 or t.gpu_only_method != schema.GpuOnlyMethod.CUDA_GRAPH:
        return ()
    g, e = t.slots.get(schema.Window.GPU_ONLY.value) or [], t.slots.get(schema.Window.EAGER.value) or []
    if g and e and min(g) > max(e):  # the graph replayed alone after the rounds
        return ()
    return tuple(timings.round_medians(t.gpu_only_ms, (t.round_sizes or {}).get(schema.Window.GPU_ONLY)))


def _per_round(a, b) -> float | None:
    """Two identical calls' largest per-round ratio, either over the other, where both ran in the same shared rounds
    (each in the other's interleaved_with, as many rounds); None elsewhere."""
    ra, rb = _round_medians(a), _round_medians(b)
    if (not ra or len(ra) != len(rb) or min(ra + rb) <= 0 or b.variant not in a.timing.interleaved_with
            or a.variant not in b.timing.interleaved_with or a.timing.interleave_later != b.timing.interleave_later):
        return None
    return max(max(x / y, y / x) for x, y in zip(ra, rb))


def _kernel_sum(ls, a, b) -> float | None:
    """Two identical calls' kernel sums, larger over smaller, as any two sums are read (rules.lead_decided): past
    rules.CLOCK_GAP_PCT apart in clock, less what the gap explains (rules.clock_left; not at a memory-bound point,
    where the sums at clocks apart say nothing); None where either has none."""
    ks, mhz = [], []
    for r in (a, b):
        tr = ls.sweep_trace(r.trace) if r.trace and not r.timing.kernel_sum_ms else None
        tm = ls.times(r, tr)
        ks.append(tm.kernel_sum.median if tm.kernel_sum.n else None)
        mhz.append(tm.window(schema.Window.KERNEL_SUM).sm_clock_mhz if tm.kernel_sum.n else None)
    if None in ks or min(ks) <= 0:
        return None
    ratio = ks[1] / ks[0]
    gap = rules.clock_gap_pct(*mhz)
    if gap is not None and gap > rules.CLOCK_GAP_PCT and not _memory_bound(a.point, a.mode):
        left = rules.clock_left(ratio, *mhz)  # a bound: what the clock explains is gone, the order never turned
        return max(left if ratio >= 1 else 1 / left, 1.0)
    return max(ratio, 1 / ratio)


def _largest(xs) -> float | None:
    xs = [x for x in xs if x is not None]
    return max(xs) if xs else None


def _identical(ls, same: list):
    """The pairs of one group of records with the same graph kernels that ran identical kernels on the same inputs."""
    for i, a in enumerate(same):
        for b in same[i + 1:]:
            if not (a.variant == b.variant or not _same_inputs(a, b) or not _same_replay(a, b)
                    or _signature(ls, a) != _signature(ls, b)):
                yield a, b


def _point_noise(ls, key: tuple, recs: list) -> AsRunNoise | None:
    groups: dict[tuple, list] = {}
    for r in recs:
        g = _graph_kernels(r)
        if g is not None:
            groups.setdefault(g, []).append(r)
    best, oriented, per_round, sums, twins, rounds, pairs = None, [], [], [], [], {}, []
    for same in groups.values():
        for a, b in _identical(ls, same):
            ma, mb = (ls.times(r).gpu_only.median for r in (a, b))
            if not ma or not mb:
                continue
            fast, slow = (a, b) if ma <= mb else (b, a)
            ratio = max(ma, mb) / min(ma, mb)
            pairs.append(tuple(sorted((a.variant, b.variant))))
            oriented.append(_oriented(a, b))
            sums.append(_kernel_sum(ls, a, b))
            if (pr := _per_round(a, b)) is not None:
                per_round.append(pr)
                twins.append(tuple(sorted((a.variant, b.variant))))
                rounds.update({r.variant: _round_medians(r) for r in (a, b)})
            if best is None or ratio > best.ratio:
                best = AsRunNoise(ratio, fast.variant, slow.variant, key[1], key[2], key[3])
    if best is None:
        return None
    return replace(best, oriented=_largest(oriented), per_round=_largest(per_round), kernel_sum=_largest(sums),
                   twins=tuple(sorted(twins)), rounds=tuple(sorted(rounds.items())), identical=tuple(sorted(pairs)))


def _points(ls) -> dict[tuple, list]:
    """(kind, scenario, mode, point) -> the point's records; made once."""
    cache = ("as-run noise points",)
    if cache not in ls._tables:
        points: dict[tuple, list] = {}
        for kind, recs in ((RUN, ls.rs.runs), (SWEEP, ls.rs.sweep)):
            for r in recs:
                if r.point is not None:
                    points.setdefault((kind, r.scenario, r.mode, r.point), []).append(r)
        ls._tables[cache] = points
    return ls._tables[cache]


def measured(ls) -> dict[tuple, AsRunNoise]:
    """(kind, scenario, mode, point) -> that point's own noise, for every point with an identical pair; made once."""
    cache = ("as-run noise",)
    if cache not in ls._tables:
        found = {k: _point_noise(ls, k, rs) for k, rs in _points(ls).items()}
        ls._tables[cache] = {k: n for k, n in found.items() if n is not None}
    return ls._tables[cache]


def _unequal_replay(ls, key: tuple) -> UnequalReplay | None:
    """A pair of the point's records that ran the very same kernels on the same inputs, replayed at graph lengths
    past rules.SAME_REPLAY_PCT apart (`_same_replay` fails, all else holds)."""
    groups: dict[tuple, list] = {}
    for r in _points(ls).get(key, ()):
        if (g := _graph_kernels(r)) is not None:
            groups.setdefault(g, []).append(r)
    for same in groups.values():
        for i, a in enumerate(same):
            for b in same[i + 1:]:
                if (a.variant != b.variant and _same_inputs(a, b) and not _same_replay(a, b)
                        and a.timing.calls_per_replay and b.timing.calls_per_replay
                        and _signature(ls, a) == _signature(ls, b)):
                    return UnequalReplay(a.variant, b.variant, a.timing.calls_per_replay, b.timing.calls_per_replay)
    return None


def _memory_bound(point: schema.Point, mode: str) -> bool:
    """Rated in TB/s (flops.figure_of): the figure the scenario is rated in, not the point's intensity against the
    roofline's ridge (chunked prefill's 16-query chunk, rated in TFLOP/s, sits below it);
    the methodology's rules table says so."""
    return not rules.equal_clock_applies(flops.figure_of(point, mode))


def largest(ls, point: schema.Point | None = None, mode: str | None = None) -> AsRunNoise | None:
    """The largest identical-pair ratio of the set's points as bound as `point` (memory-bound or not), else of all
    its points; marked borrowed. The largest, not a quantile: a point with no pair of its own may have run in
    conditions as far apart as any other point's, and a lead wrongly left undecided costs less than one wrongly named
    (on the H100 set the largest, 1.16x, stands beside leads of 13.5x that stay decided). As bound: a memory-bound
    point's time does not follow the SM clock and power state that move compute-bound pairs apart (the H100 set's
    decode pairs read 1.000-1.003x, its compute-bound ones up to 1.16x)."""
    own = list(measured(ls).values())
    if point is not None and mode is not None:
        alike = [n for n in own if _memory_bound(n.point, n.mode) == _memory_bound(point, mode)]
        own = alike or own
    if not own:
        return None
    return replace(max(own, key=lambda n: n.ratio), borrowed=True, oriented=_largest(n.oriented for n in own),
                   per_round=_largest(n.per_round for n in own), per_round_borrowed=True,
                   kernel_sum=_largest(n.kernel_sum for n in own), kernel_sum_borrowed=True, twins=(), rounds=(),
                   identical=())


def noise_at(ls, kind: str, scenario: str, mode: str, point: schema.Point | None) -> AsRunNoise | None:
    """The as-run noise at one point: its own, else borrowed (`largest`); None where the set has no identical pair
    (a set without graph replay or traces)."""
    if ls.kind != schema.SetKind.MEASURED:
        return None
    own = measured(ls).get((kind, scenario, mode, point))
    if own is None:
        lent = largest(ls, point, mode)
        unequal = _unequal_replay(ls, (kind, scenario, mode, point))
        return replace(lent, unequal_replay=unequal) if lent is not None and unequal else lent
    if own.per_round is not None and own.kernel_sum is not None:
        return own
    lent = largest(ls, point, mode)  # the lines the point's own pairs do not give, borrowed as the as-run one is
    if own.per_round is None and lent.per_round is not None:
        own = replace(own, per_round=lent.per_round, per_round_borrowed=True)
    if own.kernel_sum is None and lent.kernel_sum is not None:
        own = replace(own, kernel_sum=lent.kernel_sum, kernel_sum_borrowed=True)
    return own
