"""The dynamic-lengths scenario as numbers: what each variant's first call at a new length costs, its
steady cost, the calls per length at which it breaks even, and what an environment switch changed.

Takes: a ResultSet (schema 4's `dynamic` and `switches`; older sets hold none). Gives: `runs(rs)` (one
`DynamicFacts` per variant, phase and switch setting, in the capture's order), `length_rows(rs)` (one row
per variant, phase, switch setting and length: the charts' data), `phase_facts(rs, phase)` (the run fastest
once warm, the one whose first calls cost least, who breaks even with whom), `switch_facts(rs)` (each probed
switch, with the first calls of the run with it beside the run without it). Numbers only: the words are
gen.report.pages.dynamic's.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field, replace

from gen.analysis import host_rules, rules
from gen.model import schema
from gen.model.scenarios import DYNAMIC, break_even_calls

PHASES = ("prefill", "decode")


@dataclass(frozen=True)
class NewLength:
    """One length of a run past its warm-up: what the new length cost beyond a warm call, and the loop's warm call."""

    kv_len: int
    cost_ms: float
    steady_ms: float


@dataclass(frozen=True)
class DynamicFacts:
    """One variant over a run of new lengths, as recorded (gen.model.schema.DynamicRun), with what the
    page reads worked out once: the first calls' median and sum, the lengths measured."""

    variant: str
    phase: str
    status: str
    reason: str | None
    env: tuple[tuple[str, str], ...]  # the switches set for this run (empty: none)
    lengths: int  # lengths with a first call measured
    # Median of the first call's excess over a warm call (`excess`) over the lengths after the warm-up
    # (rules.WARMUP_FACTOR): what each new length costs once the run is warm
    first_overhead_ms: float | None
    steady_ms: float | None  # median over lengths of the steady call
    break_even_calls: float | None
    first_median_ms: float | None  # median of the first calls themselves
    first_total_ms: float | None  # every first call of the run, added up: what the run of lengths paid once
    first_max_ms: float | None
    kv_lens: tuple[int, ...] = field(default_factory=tuple)
    # Building the call at each new length in the capture's harness (its module; FlexAttention's block mask, the
    # naive product's mask tensor): its median, apart from the first call's cost
    build_median_ms: float | None = None
    # The leading lengths of the warm-up and what they cost beyond first_overhead_ms each, added up: paid once
    warmup_lengths: int = 0
    warmup_ms: float | None = None
    # Of first_overhead_ms, FlexAttention's block mask built per length (median; None: none built or not recorded)
    mask_median_ms: float | None = None
    # A warm call's GPU-only time (a replayed CUDA graph), median over lengths (None: not recorded), and why none
    gpu_median_ms: float | None = None
    gpu_reason: str | None = None
    # The dearest length after the warm-up (a recompile there would show), ms
    later_max_ms: float | None = None
    # Lengths in order, after the warm-up and never the run's first (its first call also pays the run's own start:
    # SDPA flash's first decode length cost 3.73 ms against 0.046 ms after): what the break-even counts compare
    per_length: tuple[NewLength, ...] = ()
    # What the lengths left out of per_length cost (the warm-up's, else the run's first), ms, in order
    before_ms: tuple[float, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == schema.Status.OK and self.steady_ms is not None

    @property
    def switched(self) -> bool:
        return bool(self.env)


def warmup(overheads: list[float]) -> tuple[int, float | None, float | None]:
    """(lengths of warm-up, the overhead per new length after them, what the warm-up cost beyond that) of a
    run's first-call overheads in length order (rules.WARMUP_FACTOR); (0, None, None) for none."""
    if not overheads:
        return 0, None, None
    settled = statistics.median(overheads[len(overheads) // 2:])
    bar = max(rules.WARMUP_FACTOR * max(settled, 0.0), rules.WARMUP_FLOOR_MS)
    n = 0
    while n < len(overheads) - 1 and overheads[n] > bar:
        n += 1
    per = statistics.median(overheads[n:])
    return n, per, sum(o - per for o in overheads[:n]) if n else 0.0


def excess(c: schema.LengthCost) -> float | None:
    """What a new length cost beyond a warm call: the first call against the second, both on a wall clock with
    the GPU drained before and after (the steady call, timed by CUDA events in a loop, is no like for like: set
    against a wall clock it reads a constant offset as a cost; the steady call where no second was timed), plus
    FlexAttention's block mask built for the length (`mask_ms`), which a server that meets the length pays too.
    The harness's own module (the rest of `build_ms`) is not in it."""
    if c.first_ms is None:
        return None
    warm = c.second_ms if c.second_ms is not None else c.steady_ms
    return None if warm is None else c.first_ms - warm + (c.mask_ms or 0.0)


def _facts(run: schema.DynamicRun) -> DynamicFacts:
    firsts = [c.first_ms for c in run.lengths if c.first_ms is not None]
    builds = [c.build_ms for c in run.lengths if c.build_ms is not None and c.first_ms is not None]
    costed = [(c, x) for c in run.lengths if (x := excess(c)) is not None]
    n, per, once = warmup([x for _, x in costed])
    # what each new length costs: the median over the lengths past the warm-up and never the run's first, as the
    # chart and the break-even counts read them (per_length)
    if n == 0 and len(costed) > 1:
        per = statistics.median(x for _, x in costed[1:])
    masks = [c.mask_ms for c, _ in costed[n:] if c.mask_ms is not None]  # over first_overhead_ms's lengths
    gpus = [c.gpu_ms for c, _ in costed if c.gpu_ms is not None]
    why = next((c.gpu_reason for c, _ in costed if c.gpu_reason), None)
    return DynamicFacts(
        variant=run.variant, phase=run.phase, status=run.status, reason=run.reason,
        env=tuple(sorted(run.env.items())), lengths=len(firsts),
        first_overhead_ms=max(0.0, per) if per is not None else run.first_overhead_ms, steady_ms=run.steady_ms,
        break_even_calls=run.break_even_calls, warmup_lengths=n, warmup_ms=once,
        first_median_ms=statistics.median(firsts) if firsts else None,
        first_total_ms=sum(firsts) if firsts else None, first_max_ms=max(firsts) if firsts else None,
        kv_lens=tuple(c.kv_len for c in run.lengths if c.first_ms is not None),
        build_median_ms=statistics.median(builds) if builds else None,
        mask_median_ms=statistics.median(masks) if masks else None,
        gpu_median_ms=statistics.median(gpus) if gpus else None, gpu_reason=None if gpus else why,
        later_max_ms=max((x for _, x in costed[n:]), default=None) if n else None,
        per_length=tuple(NewLength(c.kv_len, max(0.0, x), c.steady_ms) for c, x in costed[max(n, 1):]
                         if c.steady_ms is not None),
        before_ms=tuple(x for _, x in costed[:max(n, 1)]) if len(costed) > 1 else ())


def has_dynamic(rs: schema.ResultSet) -> bool:
    return bool(rs.dynamic)


def runs(rs: schema.ResultSet, phase: str | None = None, switched: bool | None = None) -> list[DynamicFacts]:
    """The set's dynamic-lengths runs (of one phase; with or without a switch set), in the capture's order."""
    out = [_facts(r) for r in rs.dynamic]
    return [f for f in out if (phase is None or f.phase == phase) and (switched is None or f.switched == switched)]


def phases(rs: schema.ResultSet) -> list[str]:
    held = {r.phase for r in rs.dynamic}
    return [p for p in PHASES if p in held] + sorted(held - set(PHASES))


LENGTH_CALLS = (("first call", "first_ms"), ("steady call", "steady_ms"), ("GPU-only", "gpu_ms"))


def length_rows(rs: schema.ResultSet, phase: str) -> list[dict]:
    """One row per run without a switch, length and kind of call (first, steady in a loop, GPU-only where
    recorded): the chart's data, in the capture's order. `step`: the length's place in the run (0 first),
    `kv_len`: its KV length."""
    out = []
    for run in rs.dynamic:
        if run.phase != phase or run.env or run.status != schema.Status.OK:
            continue
        for i, c in enumerate(run.lengths):
            for kind, value in ((kind, getattr(c, name)) for kind, name in LENGTH_CALLS):
                if value is not None and value > 0:
                    out.append(dict(variant=run.variant, step=i, q_len=c.q_len, kv_len=c.kv_len, call=kind,
                                    ms=value))
    return out


ALWAYS, UP_TO, BEYOND, NEVER = "always", "up to", "beyond", "never"


@dataclass(frozen=True)
class LengthOutcome:
    """One length of a run against the phase's fastest once warm at the same length: `kind` ALWAYS (it costs less
    in all whatever the calls a length), UP_TO (for up to `calls` calls), BEYOND (past `calls` calls), NEVER."""

    kv_len: int
    kind: str
    calls: float | None = None


def outcomes(f: DynamicFacts, best: DynamicFacts) -> tuple[LengthOutcome, ...]:
    """`f` against `best` length by length, both past their warm-ups and first lengths (DynamicFacts.per_length): a
    new length's cost plus n warm loop calls
    (break_even_calls at each length; medians over lengths would mix short and long calls). New-length costs within
    rules.NEW_LENGTH_NOISE_MS of each other count as equal, and warm calls within rules.LOOP_CALL_NOISE (a share)."""
    theirs = {x.kv_len: (x.cost_ms, x.steady_ms) for x in best.per_length}
    out = []
    for x in f.per_length:
        kv, o, s = x.kv_len, x.cost_ms, x.steady_ms
        if kv not in theirs:
            continue
        ob, sb = theirs[kv]
        o = ob if abs(o - ob) < rules.NEW_LENGTH_NOISE_MS else o
        s = sb if abs(s - sb) <= rules.LOOP_CALL_NOISE * sb else s
        if o <= ob and s <= sb:
            out.append(LengthOutcome(kv, ALWAYS))
        elif o < ob:
            out.append(LengthOutcome(kv, UP_TO, break_even_calls(o, s, ob, sb)))
        elif s < sb:
            out.append(LengthOutcome(kv, BEYOND, (o - ob) / (sb - s)))
        else:
            out.append(LengthOutcome(kv, NEVER))
    return tuple(out)


def least_up_to(got: tuple[LengthOutcome, ...]) -> float | None:
    """The fewest calls a length up to which a run costs less in all at every length where it does so by count."""
    counts = [o.calls for o in got if o.kind == UP_TO and o.calls is not None]
    return min(counts) if counts else None


@dataclass(frozen=True)
class WarmCache:
    """An unpinned SDPA run whose first calls came after a pinned run's that plans per length, at the same lengths."""

    variant: str
    before: str  # the pinned variant run before it
    chose: str | None  # the backend the set saw the unpinned call pick elsewhere, where one


@dataclass(frozen=True)
class PhaseFacts:
    """Who is fastest once warm, whose first calls cost least, and who breaks even with the fastest."""

    phase: str
    measured: list[DynamicFacts]  # runs without a switch that measured a steady cost, fastest once warm first
    not_measured: list[DynamicFacts]  # runs without a switch that did not (refused, skipped), with why
    steady_best: DynamicFacts | None  # the fastest once warm of the runs whose first calls were measured cold
    first_best: DynamicFacts | None  # the lowest first-call overhead
    # Runs that cost less in all than the fastest once warm up to their break-even calls per length
    break_even: list[DynamicFacts]
    costliest: DynamicFacts | None = None  # the highest first-call overhead
    # Unpinned SDPA's runs whose first calls came after a pinned run that plans per length (cuDNN) at the
    # same lengths in the same process. Their cheap first calls can be that plan cache's hits.
    warm_cache: tuple[WarmCache, ...] = ()
    # variant -> its lengths against steady_best's (past both warm-ups and first lengths)
    per_length: dict[str, tuple[LengthOutcome, ...]] = field(default_factory=dict)

    @property
    def lowest_warm(self) -> DynamicFacts | None:
        """The lowest warm call in a loop over every run measured, cache-warmed ones included: where it is not
        steady_best, the page says why that one is no reference."""
        return self.measured[0] if self.measured else None

    def wins(self, variant: str) -> bool:
        """Does the run cost less in all than the fastest once warm at some length, for some number of calls?"""
        return any(o.kind in (ALWAYS, UP_TO) for o in self.per_length.get(variant, ()))

    def cache_warmed(self, variant: str) -> bool:
        return any(w.variant == variant for w in self.warm_cache)

    @property
    def first_alike(self) -> list[DynamicFacts]:
        """The other runs measured cold whose first calls at a new length cost within rules.NEW_LENGTH_NOISE_MS of
        first_best's: not told apart from it."""
        first = self.first_best
        if first is None:
            return []
        return [f for f in self.measured if f.variant != first.variant and not self.cache_warmed(f.variant)
                and f.first_overhead_ms is not None
                and f.first_overhead_ms - first.first_overhead_ms < rules.NEW_LENGTH_NOISE_MS]

    @property
    def loop_waits_on_host(self) -> bool:
        """Every measured run's warm loop call at least host_rules.HOST_BOUND_EAGER_RATIO times its GPU-only time (two
        runs or more with both): the loop waited on the host's dispatch, so its order is the host's."""
        ratios = [f.steady_ms / f.gpu_median_ms for f in self.measured if f.gpu_median_ms and f.steady_ms]
        return len(ratios) >= 2 and min(ratios) >= host_rules.HOST_BOUND_EAGER_RATIO

    @property
    def startup_paid(self) -> list[DynamicFacts]:
        """The runs measured cold that paid a warm-up of rules.STARTUP_NOTE_S or more at their first lengths, once per
        process: a compile and the recompiles to dynamic shapes, or a library's first load."""
        return [f for f in self.measured if f.warmup_lengths and f.warmup_ms is not None
                and f.warmup_ms >= rules.STARTUP_NOTE_S * 1e3 and not self.cache_warmed(f.variant)]

    @staticmethod
    def calls_below(x: float | None) -> int | None:
        """The most calls a length for which a run that breaks even at `x` still costs less in all:
        the largest whole number below x (None: it never does)."""
        if x is None:
            return None
        n = math.ceil(x) - 1
        return n if n >= 1 else None

    @staticmethod
    def calls_past(x: float) -> int:
        """The fewest whole calls a length past which a run whose warm call is faster (BEYOND at `x`) costs less."""
        return int(x) + 1

    def overtakers(self) -> list[Overtaker]:
        """The runs (measured cold) that cost more than the fastest once warm at every length for few calls but
        less past some count at some lengths (BEYOND): what a headline saying none breaks even would hide, fewest calls
        first."""
        best = self.steady_best
        if best is None:
            return []
        ref = {x.kv_len: x.steady_ms for x in best.per_length}
        out = []
        for f in self.measured:
            outs = self.per_length.get(f.variant, ())
            past = [o for o in outs if o.kind == BEYOND and o.calls is not None]
            if not past or self.cache_warmed(f.variant) or self.wins(f.variant):
                continue
            at = sorted({o.kv_len for o in past})
            mine = {x.kv_len: x.steady_ms for x in f.per_length}
            warm = [mine[kv] for kv in at]
            theirs = [ref[kv] for kv in at]
            rest = [s for kv, s in mine.items() if kv not in at and kv in ref]
            counts = [self.calls_past(o.calls) for o in past]
            places = [i for i, o in enumerate(outs) if o.kv_len in at]
            out.append(Overtaker(f.variant, tuple(at), min(counts), max(counts), (min(warm), max(warm)),
                                 (min(theirs), max(theirs)), len(rest),
                                 (min(rest), max(rest)) if rest else None,
                                 together=places[-1] - places[0] + 1 == len(places)))
        return sorted(out, key=lambda o: (o.fewest_calls, o.variant))


def new_length_rows(pf: PhaseFacts) -> list[dict]:
    """What each new length cost beyond a warm call, length by length (DynamicFacts.per_length: past the run's warm-up
    and its first length), one row per run measured cold and length: the chart of the dynamic-lengths page. A run whose
    first calls hit another run's cached plans measured no such cost and has none (PhaseFacts.cache_warmed)."""
    return [dict(variant=f.variant, kv_len=x.kv_len, ms=x.cost_ms) for f in pf.measured
            if not pf.cache_warmed(f.variant) for x in f.per_length]


@dataclass(frozen=True)
class Overtaker:
    """A run that costs less than the fastest once warm only past some calls a length, at some lengths (BEYOND):
    there its warm loop call was faster, its new length dearer. Times in ms, (least, most) over the lengths."""

    variant: str
    kv_lens: tuple[int, ...]  # the lengths where it costs less past some calls
    fewest_calls: int  # the fewest whole calls a length past which it costs less, over those lengths
    most_calls: int
    warm_ms: tuple[float, float]  # its warm loop call at those lengths
    best_warm_ms: tuple[float, float]  # the fastest once warm's at the same lengths
    other_lengths: int  # its other lengths compared (where it never costs less)
    other_warm_ms: tuple[float, float] | None  # its warm loop call there
    together: bool = True  # the lengths are one run of consecutive lengths compared (no others between)


# The pinned variant whose per-length plan a later unpinned call can find cached
PLANS_PER_LENGTH = "sdpa_cudnn"


def _warm_cache(rs: schema.ResultSet, phase: str) -> tuple[WarmCache, ...]:
    """Unpinned SDPA runs measured after the pinned cuDNN run at the same lengths (capture order), with the
    backend the set's sweep recorded the unpinned call choosing (sdpa_choice), where it recorded one."""
    from gen.analysis.values import variant_role

    auto = variant_role("automatic")
    order = [r for r in rs.dynamic if r.phase == phase and not r.env and r.status == schema.Status.OK]
    names = [r.variant for r in order]
    if auto not in names or PLANS_PER_LENGTH not in names or names.index(PLANS_PER_LENGTH) > names.index(auto):
        return ()
    lens = lambda r: {c.kv_len for c in r.lengths if c.first_ms is not None}  # noqa: E731
    a, c = order[names.index(auto)], order[names.index(PLANS_PER_LENGTH)]
    if not lens(a) or not lens(a) <= lens(c):
        return ()
    chose = {p.sdpa_choice for p in rs.sweep if p.variant == auto and p.sdpa_choice}
    return (WarmCache(auto, PLANS_PER_LENGTH, chose.pop() if len(chose) == 1 else None),)


def phase_facts(rs: schema.ResultSet, phase: str) -> PhaseFacts:
    mine = runs(rs, phase, switched=False)
    ok = sorted((f for f in mine if f.ok), key=lambda f: (f.steady_ms, f.variant))
    warm = _warm_cache(rs, phase)
    warmed = {w.variant for w in warm}
    # A run whose first calls were another run's cached plans measured no first-call cost: it is neither the
    # baseline the break-even counts are taken against nor a run that breaks even. The counts are
    # worked out again against the fastest once warm of the others (the capture took them against all runs).
    cold = [f for f in ok if f.variant not in warmed]
    best = cold[0] if cold else None
    per = {f.variant: outcomes(f, best) for f in cold if best is not None and f is not best}
    ok = [replace(f, break_even_calls=least_up_to(per.get(f.variant, ()))) for f in ok]
    cold = [f for f in ok if f.variant not in warmed]
    overheads = [f for f in cold if f.first_overhead_ms is not None]
    pf = PhaseFacts(
        phase=phase, measured=ok, not_measured=[f for f in mine if not f.ok],
        steady_best=cold[0] if cold else None,
        first_best=min(overheads, key=lambda f: (f.first_overhead_ms, f.variant)) if overheads else None,
        break_even=[], costliest=max(overheads, key=lambda f: (f.first_overhead_ms, f.variant)) if overheads else None,
        warm_cache=warm, per_length=per)
    # those that win at some length: the ones cheaper at any count first, then by the calls they hold out for
    winners = sorted((f for f in cold if pf.wins(f.variant)), key=lambda f: (
        -sum(o.kind == ALWAYS for o in per[f.variant]), -(f.break_even_calls or 0.0)))
    return replace(pf, break_even=winners)


@dataclass(frozen=True)
class SwitchFacts:
    """One probed switch: what the capture recorded, and the first calls of the run with it set against
    those of the same variant and phase without it, length by length."""

    name: str
    value: str
    present: bool | None
    effect: str | None
    detail: str | None
    variant: str | None = None
    phase: str | None = None
    pairs: list[dict] = field(default_factory=list)  # kv_len, without_ms, with_ms (first calls)
    # The medians over the lengths after the first (the first pays the backend's one-time start as well)
    median_without_ms: float | None = None
    median_with_ms: float | None = None
    steady_without_ms: float | None = None
    steady_with_ms: float | None = None
    # the phases the set's dynamic-lengths runs measured without the switch that no run with it set covered (decode,
    # where only prefill was probed): what it does there is not measured
    unprobed: tuple[str, ...] = ()

    @property
    def ratio(self) -> float | None:
        if self.median_with_ms is None or not self.median_without_ms:
            return None
        return self.median_with_ms / self.median_without_ms

    @property
    def length_ratios(self) -> list[float]:
        """Each length's first call with the switch over its first call without it, where both ran (slower at 8 of 8
        lengths, which "no effect" hid)."""
        return [p["with_ms"] / p["without_ms"] for p in self.pairs
                if p["with_ms"] is not None and p["without_ms"]]


def switch_facts(rs: schema.ResultSet) -> list[SwitchFacts]:
    out = []
    for sw in rs.switches:
        with_ = next((r for r in rs.dynamic if r.env.get(sw.name) == sw.value), None)
        without = next((r for r in rs.dynamic if with_ is not None and not r.env and r.variant == with_.variant
                        and r.phase == with_.phase), None)
        if with_ is None or without is None:
            out.append(SwitchFacts(sw.name, sw.value, sw.present, sw.effect, sw.detail))
            continue
        base = {c.kv_len: c for c in without.lengths}
        pairs = [dict(kv_len=c.kv_len, without_ms=base[c.kv_len].first_ms, with_ms=c.first_ms)
                 for c in with_.lengths if c.kv_len in base]
        later = [p for p in pairs[1:] if p["without_ms"] is not None and p["with_ms"] is not None]
        probed = {r.phase for r in rs.dynamic if r.env.get(sw.name) == sw.value}
        out.append(SwitchFacts(
            sw.name, sw.value, sw.present, sw.effect, sw.detail, with_.variant, with_.phase, pairs,
            statistics.median(p["without_ms"] for p in later) if later else None,
            statistics.median(p["with_ms"] for p in later) if later else None,
            without.steady_ms, with_.steady_ms,
            tuple(ph for ph in phases(rs) if ph not in probed and any(not r.env and r.phase == ph
                                                                     for r in rs.dynamic))))
    return out


def scenario_title(rs: schema.ResultSet) -> str | None:
    rec = rs.scenario(DYNAMIC)
    return rec.title if rec else None


@dataclass(frozen=True)
class BatchOrder:
    """The dynamic-lengths decode runs' GPU-only order at their own batch, set beside a decode verdict at another
    batch of the same heads, head dim and query count: the verdict's order holds at its
    batch only (on the H100 set FA4 leads at batch 8 and takes 4.2x cuDNN's GPU time at batch 1)."""

    batch: int  # the dynamic runs' batch
    at_batch: int  # the verdict's batch
    kv_lo: int  # the KV lengths the runs' GPU-only medians are taken over
    kv_hi: int
    lengths: int
    # (variant, median GPU-only ms over the lengths), fastest first, down to the slowest of the verdict's calls
    order: tuple[tuple[str, float], ...]
    named: tuple[str, ...]  # the verdict's calls the order reaches (its first rank), in its order
    # The runs' SM clock where their lengths record one; None: not recorded (no schema records it yet)
    clock_mhz: float | None = None
    # the `named` calls whose traced grid at the verdict's point is under the GPU's SMs (batch_grid.GridAt)
    grids: tuple = ()


def decode_at_other_batch(rs: schema.ResultSet, point: schema.Point | None,
                          named: tuple[str, ...]) -> BatchOrder | None:
    """The order of the set's dynamic-lengths decode runs where they differ from a decode verdict's `point` in the
    batch alone: the same heads, head dim and queries, the verdict's KV length inside the runs' lengths. `named`:
    the verdict's first-rank calls; the order runs down to the slowest of them measured. None where the set has no
    such runs, or none of `named` has a GPU-only time there."""
    if point is None:
        return None
    got = []
    spans = []
    clocks: list[float] = []
    for run in rs.dynamic:
        p = run.point
        if run.phase != "decode" or run.env or run.status != schema.Status.OK or p.batch == point.batch:
            continue
        if (p.q_heads, p.kv_heads, p.head_dim) != (point.q_heads, point.kv_heads, point.head_dim):
            continue
        lens = [c for c in run.lengths if c.gpu_ms is not None and c.q_len == point.q_len]
        if not lens or not min(c.kv_len for c in lens) <= point.kv_len <= max(c.kv_len for c in lens):
            continue
        got.append((run.variant, statistics.median(c.gpu_ms for c in lens), p.batch))
        clocks += [x for c in lens if (x := getattr(c, "sm_clock_mhz", None)) is not None]
        spans.append((min(c.kv_len for c in lens), max(c.kv_len for c in lens), len(lens)))
    if not got or len({b for _, _, b in got}) != 1:
        return None
    order = sorted(((x, ms) for x, ms, _ in got), key=lambda r: (r[1], r[0]))
    ranked = [x for x, _ in order]
    mine = [x for x in ranked if x in named]
    if not mine:
        return None
    order = order[:ranked.index(mine[-1]) + 1]
    lo, hi, n = min(s[0] for s in spans), max(s[1] for s in spans), max(s[2] for s in spans)
    return BatchOrder(got[0][2], point.batch, lo, hi, n, tuple(order), tuple(mine),
                      statistics.median(clocks) if clocks else None)
