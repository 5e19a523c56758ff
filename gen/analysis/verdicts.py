"""The verdict of a set and scenario: which attention here, and why, as facts.

Takes: a loaded set (gen.analysis.tables), a scenario and a mode; each variant's timed call at its point
(gen.analysis.calls: `timed`, `Timed`). Gives `verdict(ls, scenario, mode) -> Verdict | None` and
`verdict_at(ls, scenario, point, mode)`, built by `decide(rows, ...)` from those rows alone, so that
tests feed it small synthetic rows:

- fastest: the variant with the lowest median GPU-only time (CUDA-graph
  replay, or the kernel sum of the profiled calls where the set has no graph
  timing), against the runner-up: the fastest variant that runs other kernels
  (variants running the same kernels within noise of it are one rank, a tie,
  named with the fastest; apart, they rank by their times: other arguments), by
  how much, and whether the intervals of the two medians keep them
  apart (rules.CI_METHOD); `fastest_outcome` yes, or within noise where another
  variant's interval reaches the fastest's;
- ranks: competition ranks under uncertainty: a variant's rank is 1 + the number
  of variants decidedly faster (their interval ends below its own begins, their ratio beyond
  the point's as-run noise of identical kernels, the kernel sums not against: rules.lead_decided);
  variants running the same kernels never are, but for the fastest where their intervals are apart;
- auto: what SDPA ran with no backend pinned (its aten op and its kernel),
  which pinned variant runs the same kernel, and whether that is the fastest;
- host: whether the eager per-call ranking (a Python loop, host gaps
  included) gives another answer than the GPU-only ranking;
- why (gen.analysis.why): one reason read off the kernels and the counted FLOPs: an SDPA runner-up
  given the mask as a dense attn_mask, scoring every pair the fastest skips;
  the fastest's main kernel built for this GPU's architecture against rivals'
  built for an older one; or fewer GPU events a call.

Every flag comes from gen.analysis.rules (noise, host-bound); no sentences
here: gen.report's wording turns a Verdict into words. Reference sets have
one published figure per variant and no verdict; CPU sets rank by wall time.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from gen.analysis import batch_grid, dynamic, kernel_names, rules, tables, unmeasured
from gen.analysis import leads as leads_mod
from gen.analysis.calls import (
    Noise,
    Spread,
    Timed,
    interval,  # noqa: F401 - gen.report.pages.decision reads verdicts.interval
    kernel_backend,
    loop_ms,
    overlaps,
    point_of,
    timed,
    timed_at,
)
from gen.analysis.leads import Orders
from gen.analysis.values import variant_role
from gen.analysis.verdict_notes import ClockFlip, OrderFlip, OtherCall, SweepGap
from gen.analysis.why import Why, reason
from gen.model import scenarios as declared_scenarios
from gen.model import schema
from gen.model.variants import VARIANTS


def verdict_at(ls: tables.LoadedSet, scenario: str, point: schema.Point, mode: str = "inference") -> Verdict | None:
    """The verdict at one sweep point (the scaling page's "fastest at the largest
    size"): the same rule as `verdict`, on the sweep's records."""
    if ls.kind != schema.SetKind.MEASURED:
        return None
    key = ("verdict_at", scenario, point, mode)
    if key not in ls._tables:
        env = ls.environment
        ls._tables[key] = decide(timed_at(ls, scenario, point, mode), ls.name, scenario, mode,
                                 kernel_names.gpu_arch(env.compute_capability), point, sm_count=env.sm_count,
                                 ref_mhz=env.ref_mhz, power_limit_w=env.power_limit_w,
                                 power_reading=env.power_reading)
    return ls._tables[key]


# --------------------------------------------------------------------------- the verdict


def orders(a: Timed, b: Timed, basis: str) -> Orders:
    """Two rows' orders (leads.orders), read off the sweep's shared rounds where both rows carry them
    (Timed.rounds_record: the profiled runs time each call alone, the shared rounds time them together); every page
    asks here, so one pair has one order wherever it is worded."""
    if a.rounds_record is not None and b.rounds_record is not None:
        return leads_mod.orders(a.rounds_record, b.rounds_record, basis)
    return leads_mod.orders(a, b, basis)


def leads(a: Timed, b: Timed, basis: str) -> bool:
    """a decidedly ahead of b (rules.lead_decided), on the record `orders` reads."""
    return orders(a, b, basis).decided


def _ranking_spread(t: Timed, basis: str | None) -> Spread | None:
    """The spread the ranking reads: the shared rounds' where the row carries them (Timed.deciding)."""
    return _basis(t.deciding, basis)


@dataclass(frozen=True)
class AutoPick:
    """What scaled_dot_product_attention ran with no backend pinned."""

    variant: str
    backend: str | None  # by its aten op
    kernel: str | None  # main kernel, short name
    kernel_index: int | None
    kernel_backend: str | None  # by the kernel's name
    same_as: tuple[str, ...]  # pinned variants that run the same main kernel
    is_fastest: bool  # runs the fastest variant's kernel, or is within its spread
    ratio: float | None  # its time over the fastest's (the ranking time)
    expected_backend: str | None  # what the hypothesis said it would pick
    contradicted: bool | None  # None when the hypothesis named no backend
    # the reason PyTorch recorded for refusing the expected backend at this point (its attn_mask, say): the
    # hypothesis could not hold here
    expected_refused: str | None = None


@dataclass(frozen=True)
class HostChange:
    """The eager per-call ranking against the GPU-only one."""

    eager_order: tuple[str, ...]
    gpu_order: tuple[str, ...]
    eager_fastest: str
    ties: tuple[str, ...]  # variants whose eager IQR overlaps the eager fastest's, other kernels only
    closed: tuple[str, ...]  # of those, the ones the GPU-only ranking keeps apart from the fastest
    changes_answer: bool  # the eager fastest runs another kernel than the GPU-only fastest

    @property
    def matters(self) -> bool:
        """A Python loop sees another answer, or cannot tell the fastest from a rival the GPU keeps apart."""
        return self.changes_answer or bool(self.closed)


@dataclass(frozen=True)
class Verdict:
    set_name: str
    scenario: str
    mode: str
    basis: str  # the timing that ranks: "gpu_only"; on a set without one (a CPU set) "eager", else "host"
    method: str | None  # how the GPU-only time was taken: cuda_graph, kernel_sum (mixed: the fastest's)
    ranking: tuple[str, ...]
    fastest: Timed
    same_kernel: tuple[str, ...]  # the fastest's kernels, times within noise of its own: one rank, a tie
    runner_up: Timed | None
    ratio: float | None  # runner-up over fastest
    settled: bool | None  # the intervals of the two medians do not overlap (rules.CI_METHOD)
    auto: AutoPick | None
    host: HostChange | None
    why: Why | None
    noise: tuple[Noise, ...] = field(default_factory=tuple)  # the ranking time's, of the fastest, runner-up, auto
    host_bound: tuple[str, ...] = ()  # every host-bound variant (outcome yes), in ranking order
    rows: tuple[Timed, ...] = ()  # every ranked row, in ranking order
    rank_of_: tuple[tuple[str, int], ...] = ()  # competition rank under uncertainty (see `ranks`)
    fastest_outcome: str = rules.YES  # YES, or WITHIN_NOISE when `near` is not empty
    near: tuple[str, ...] = ()  # variants running other kernels whose interval reaches the fastest's
    host_noise: tuple[str, ...] = ()  # variants whose host-bound outcome is within noise, in ranking order
    not_measured: tuple[unmeasured.NotMeasured, ...] = ()  # the rows with no time
    sweep_gaps: tuple[SweepGap, ...] = ()  # ranked from profiled runs, not measured by the sweep at the same point
    # Ranked rows measured by another capture call than the set's own (merged in by gen import --merge), and the set's
    # own call's start.
    other_calls: tuple[OtherCall, ...] = ()
    own_call: str | None = None
    # Equal clock: the set's reference clock, the enforced power limit, the ranking by each row's time at the
    # reference clock (of the rows that have one: rules.one_clock), and the pairs (ahead as run, ahead at equal
    # clock) whose order the two rankings give the other way round, by more than rules.TIME_FLOOR_PCT at equal clock.
    ref_mhz: float | None = None
    power_limit_w: float | None = None
    power_reading: str | None = None  # which NVML reading the rows' power is (Environment.power_reading)
    equal_clock_order: tuple[str, ...] = ()
    clock_flips: tuple[ClockFlip, ...] = ()
    # Pairs of ranked rows that another scenario timed at this very point in the opposite as-run order
    # (scenarios.same_point_elsewhere). Their order here is set by the windows' clocks, so the verdict ranks neither
    # ahead.
    order_flips: tuple[OrderFlip, ...] = ()
    # Rows running kernels of the fastest's names whose intervals are apart from its own: the same kernel class
    # with other arguments, ranked by their times like any other row.
    same_kernel_apart: tuple[str, ...] = ()
    # The fastest against each call sharing its first rank with other kernels (`near`): the three orders, so that the
    # words give them beside "within noise" or "not decided" (rules.lead_decided)
    orders: tuple[Orders, ...] = ()
    # A decode verdict's first rank holds at its batch: the set's dynamic-lengths decode runs at another batch of the
    # same heads give their own GPU-only order; None where the set has none
    other_batch: dynamic.BatchOrder | None = None

    def undecided(self) -> tuple[Orders, ...]:
        """The pairs of `orders` whose as-run intervals are apart but which the other orders leave not decided."""
        return tuple(o for o in self.orders if o.apart and not o.decided)

    @property
    def loop_ms(self) -> tuple[float, float] | None:
        """A host-bound fastest call's eager median and the runner-up's (calls.loop_ms), else None."""
        return loop_ms(self.fastest, self.runner_up)

    @property
    def memory_bound(self) -> bool:
        """Every ranked row with a clock is at a point equal clock does not apply to (rules.equal_clock_applies)."""
        clocked = [t for t in self.rows if t.sm_clock_mhz is not None]
        return bool(clocked) and not any(t.equal_clock for t in clocked)

    @property
    def missing_kind(self) -> str | None:
        """The scenario's own kind of call (a word of its name that variants carry as a keyword, "fp8")
        when no variant carrying it was measured and one that carries it was not: the verdict then
        says nothing about that kind."""
        words = set(self.scenario.split("-"))
        def kinds(names):
            return {k for n in names if n in VARIANTS for k in VARIANTS[n].keywords} & words
        lost = kinds(x.variant for x in self.not_measured) - kinds(t.variant for t in self.rows)
        return min(lost) if lost else None

    @property
    def paged(self) -> tuple[str, ...]:
        """The ranked rows that read a paged KV cache (keyword "paged"), in ranking order: where a scenario
        measures a paged cache, only these answer for it (SDPA cannot page)."""
        return tuple(t.variant for t in self.rows if t.variant in VARIANTS and "paged" in VARIANTS[t.variant].keywords)

    @property
    def unrankable(self) -> tuple[tuple[str, float], ...]:
        """(variant, IQR % of its ranking time) of the first-rank rows whose ranking time spreads past
        rules.CANNOT_RANK_IQR_PCT: then the verdict cannot rank them."""
        out = []
        for x, r in self.rank_of_:
            s = self.spread(self.row(x)) if r == 1 else None
            if s is not None and s.iqr_pct > rules.CANNOT_RANK_IQR_PCT:
                out.append((x, s.iqr_pct))
        return tuple(out)

    @property
    def field_of_one(self) -> bool:
        """Fewer than two calls running different kernels were measured: nothing to rank against."""
        return self.runner_up is None

    def row(self, variant: str) -> Timed | None:
        return next((t for t in self.rows if t.variant == variant), None)

    def rank(self, variant: str) -> int | None:
        """The variant's rank: 1 + the variants decidedly faster; ties share it."""
        return dict(self.rank_of_).get(variant)

    def spread(self, t: Timed) -> Spread | None:
        return _basis(t, self.basis)


def _basis(t: Timed, basis: str | None) -> Spread | None:
    return getattr(t, basis) if basis else None


def _ratio(a: Spread | None, b: Spread | None) -> float | None:
    return b.median / a.median if a and b and a.median else None


def _host_change(ok: list[Timed], fastest: Timed, basis: str, firsts: frozenset = frozenset()) -> HostChange | None:
    """The eager ranking against the GPU-only one; `firsts`: the calls sharing the first rank, none of which the loop
    can make a changed answer by coming first."""
    eager = [t for t in ok if t.eager is not None]
    if basis != "gpu_only" or len(eager) < 2:
        return None
    eo = sorted(eager, key=lambda t: t.eager.median)
    go = sorted([t for t in ok if t.gpu_only is not None], key=lambda t: t.gpu_only.median)
    top = eo[0]
    ties = [t for t in eo[1:] if overlaps(t.eager, top.eager)]
    # Another kernel than the GPU-only fastest's that a Python loop cannot tell
    # apart from it, though the GPU-only ranking does.
    other = [t for t in [top, *ties] if t.identity != fastest.identity or t.identity is None]
    other = [t for t in other if t.variant != fastest.variant]
    closed = tuple(t.variant for t in other if t.gpu_only is not None and fastest.gpu_only is not None
                   and not overlaps(t.deciding.gpu_only or t.gpu_only, fastest.deciding.gpu_only or fastest.gpu_only)
                   and (fastest.eager is None or overlaps(t.eager, fastest.eager) or t is top))
    return HostChange(tuple(t.variant for t in eo), tuple(t.variant for t in go), top.variant,
                      tuple(t.variant for t in ties if t.identity != top.identity or t.identity is None),
                      closed, top.variant not in firsts and (
                          top.identity != fastest.identity or top.identity is None and top is not fastest))


def decide(rows: list[Timed], set_name: str = "", scenario: str = "article", mode: str = "inference",
           gpu_arch: int | None = None, point: schema.Point | None = None,
           sm_count: int | None = None, ref_mhz: float | None = None,
           power_limit_w: float | None = None, power_reading: str | None = None) -> Verdict | None:
    """The verdict from Timed rows alone (see the module docstring); None when
    no variant has a time to rank by."""
    # A wrong answer is shown on its page, never ranked (rules.wrong_answer).
    ok = [t for t in rows if t.status == schema.Status.OK and not t.wrong]
    # The ranking time every row has (GPU-only first): rows timed another way are never dropped from the ranking.
    bases = ("gpu_only", "eager", "host")
    basis = next((b for b in bases if ok and all(getattr(t, b) for t in ok)), None) or \
        max(bases, key=lambda b: sum(1 for t in ok if getattr(t, b)))
    ranked = sorted([t for t in ok if _basis(t, basis) is not None],
                    key=lambda t: (_ranking_spread(t, basis) or _basis(t, basis)).median)
    if not ranked:
        return None
    auto_name = variant_role("automatic")
    # The automatic choice and the pinned variant running the same kernel tie by
    # construction: the ranking names the pinned one first, the automatic pick next to it.
    auto_row = next((t for t in ranked if t.variant == auto_name), None)
    twin = next((t for t in ranked if auto_row and t is not auto_row and auto_row.identity
                 and t.identity == auto_row.identity), None)
    if twin is not None and ranked.index(auto_row) < ranked.index(twin):
        ranked.remove(auto_row)
        ranked.insert(ranked.index(twin) + 1, auto_row)
    fastest = ranked[0]
    twins = [t for t in ranked[1:] if fastest.kernels and t.kernels == fastest.kernels]
    # Kernels of the same names whose times are apart all the same run other arguments (a page table): not a tie
    #; they are no rival of other kernels either.
    fb = _basis(fastest, basis)
    # The automatic pick and its pinned twin make the very same call: they tie by construction, whatever the times.
    by_call = [t for t in twins if auto_name in (t.variant, fastest.variant)]
    timed_twins = [t for t in twins if t not in by_call and fb is not None and _basis(t, basis) is not None]
    apart = tuple(t.variant for t in timed_twins if leads(fastest, t, basis))
    # A tie by kernel names stands only where the intervals overlap; a twin apart from the fastest by its interval yet
    # not decidedly behind (within the as-run noise of identical kernels) is a rival sharing the first rank, its
    # orders said with "not decided" (rules.lead_decided), never a tie by names.
    same = tuple(t.variant for t in twins if t in by_call or t not in timed_twins
                 or (t.variant not in apart and overlaps(_ranking_spread(fastest, basis) or fb,
                                                         _ranking_spread(t, basis) or _basis(t, basis))))
    rivals = [t for t in ranked[1:] if t.variant not in same and t.variant not in apart]
    runner = rivals[0] if rivals else None
    rank_of = _competition_ranks(ranked, basis, apart)
    near = tuple(t.variant for t in rivals if rank_of[t.variant] == 1)
    fs, rs_ = _basis(fastest, basis), _basis(runner, basis) if runner else None
    auto = None
    a = next((t for t in ok if t.variant == auto_name), None)
    if a is not None:
        pinned = tuple(t.variant for t in ok if t.variant != auto_name and a.identity
                       and t.identity == a.identity)
        hyp = VARIANTS[auto_name].expect if auto_name in VARIANTS else None
        expected = getattr(hyp, "backend", None) if hyp else None
        # "flash (CPU)" is the flash backend's CPU kernel: the same choice.
        ran = (a.backend or kernel_backend(a.main_kernel) or "").split(" ")[0] or None
        sa = _basis(a, basis)
        is_fastest = a is fastest or a.variant in same or (sa is not None and fs is not None and overlaps(sa, fs))
        auto = AutoPick(a.variant, a.backend, a.main_short, a.main_index, kernel_backend(a.main_kernel), pinned,
                        bool(is_fastest), _ratio(fs, sa), expected,
                        None if expected is None or ran is None else ran != expected)
    # The ranking time's noise, for the rows the verdict names.
    noise = tuple(dict.fromkeys(n for t in (fastest, runner, a) if t is not None for n in t.noise()
                                if n.timing == basis))
    return Verdict(
        set_name=set_name, scenario=scenario, mode=mode, basis=basis,
        method=fastest.gpu_only_method if basis == "gpu_only" else None,
        ranking=tuple(t.variant for t in ranked), fastest=fastest, same_kernel=same, same_kernel_apart=apart,
        runner_up=runner,
        ratio=_ratio(fs, rs_), settled=None if rs_ is None else leads(fastest, runner, basis), auto=auto,
        host=_host_change(ok, fastest, basis, frozenset(v for v, r in rank_of.items() if r == 1)),
        why=reason(fastest, runner, rivals, gpu_arch, point, sm_count),
        noise=noise, host_bound=tuple(t.variant for t in ranked if t.host_bound), rows=tuple(ranked),
        rank_of_=tuple(rank_of.items()), fastest_outcome=rules.WITHIN_NOISE if near else rules.YES, near=near,
        orders=tuple(orders(fastest, t, basis) for t in rivals if t.variant in near),
        host_noise=tuple(t.variant for t in ranked if t.host_bound_outcome == rules.WITHIN_NOISE),
        not_measured=tuple(unmeasured.NotMeasured(t.variant, t.status, t.reason) for t in rows
                           if t.status != schema.Status.OK),
        ref_mhz=ref_mhz if basis == "gpu_only" else None, power_limit_w=power_limit_w, power_reading=power_reading,
        **_equal_clock(ranked, basis))


def _equal_clock(ranked: list[Timed], basis: str) -> dict:
    """The ranking at equal clock of the rows that have an equal-clock time (a window with no single clock has none:
    rules.one_clock) and the pairs it orders the other way round from the as-run ranking."""
    if basis != "gpu_only" or not any(t.at_ref_ms is not None for t in ranked):
        return {}
    order = sorted((t for t in ranked if t.at_ref_ms is not None), key=lambda t: t.at_ref_ms)
    floor = 1 - rules.TIME_FLOOR_PCT / 100.0
    flips = tuple(ClockFlip(a.variant, b.variant) for i, a in enumerate(ranked) for b in ranked[i + 1:]
                  if a.at_ref_ms is not None and b.at_ref_ms is not None and b.at_ref_ms < a.at_ref_ms * floor
                  and not (a.kernels and a.kernels == b.kernels))
    return dict(equal_clock_order=tuple(t.variant for t in order), clock_flips=flips)


def _competition_ranks(ranked: list[Timed], basis: str, apart: tuple[str, ...] = ()) -> dict[str, int]:
    """variant -> 1 + the rows decidedly faster (intervals apart), rows running the same kernels not counted (a
    tie) but for the fastest row against `apart` (Verdict.same_kernel_apart): a call of its kernel names whose
    interval is apart from its own runs other arguments and ranks behind it. Equal ranks where the
    times cannot tell rows apart."""
    out = {}
    top = ranked[0] if ranked else None
    for t in ranked:
        st = _basis(t, basis)
        out[t.variant] = 1 + sum(1 for o in ranked if o is not t
                                 and ((o is top and t.variant in apart) or not (t.kernels and o.kernels == t.kernels))
                                 and st is not None and _basis(o, basis) is not None and leads(o, t, basis))
    return out


def verdict(ls: tables.LoadedSet, scenario: str = "article", mode: str = "inference") -> Verdict | None:
    """The verdict of one set, scenario and mode; None for a reference set
    (published figures, not a measurement to rank) or one with nothing timed.
    Cached on the set: every page asks the same question and gets the same object."""
    if ls.kind != schema.SetKind.MEASURED:
        return None
    key = ("verdict", scenario, mode)
    if key not in ls._tables:
        env = ls.environment
        v = decide(timed(ls, scenario, mode), ls.name, scenario, mode,
                   kernel_names.gpu_arch(env.compute_capability), point_of(ls, scenario, mode),
                   sm_count=env.sm_count, ref_mhz=env.ref_mhz, power_limit_w=env.power_limit_w,
                   power_reading=env.power_reading)
        if v is not None:
            v = dataclasses.replace(v, sweep_gaps=_sweep_gaps(ls, v), other_calls=_other_calls(ls, v),
                                    own_call=ls.environment.date,
                                    # FA4 unmeasured here is named: the fastest is then of those measured
                                    not_measured=v.not_measured + unmeasured.absent_fa4(
                                        ls.rs, [t.variant for t in v.rows] + [x.variant for x in v.not_measured]))
            v = _with_order_flips(ls, v)
            if mode == "inference":
                firsts = tuple(x for x, r in v.rank_of_ if r == 1)
                v = dataclasses.replace(v, other_batch=dynamic.decode_at_other_batch(
                    ls.rs, point_of(ls, scenario, mode), firsts))
                if v.other_batch is not None:
                    at = batch_grid.grids(v, ls.environment.sm_count, point_of(ls, scenario, mode))
                    v = dataclasses.replace(v, other_batch=dataclasses.replace(v.other_batch, grids=at))
            if v.auto is not None and v.auto.expected_backend:
                rec = point_records(ls, scenario, mode).get(v.auto.variant)
                why = ((rec.backend_reasons or {}).get(v.auto.expected_backend) if rec is not None else None)
                if why and why != rules.ELIGIBLE:
                    v = dataclasses.replace(v, auto=dataclasses.replace(v.auto, expected_refused=why))
        ls._tables[key] = v
    return ls._tables[key]


def _with_order_flips(ls: tables.LoadedSet, v: Verdict) -> Verdict:
    """The verdict with the pairs another scenario ordered the other way at this point (Verdict.order_flips);
    where the runner-up is one of them, it shares the first rank: the as-run order of the two is the clocks'."""
    from gen.analysis import scenarios as scenario_facts  # scenarios' tables sit above the verdicts

    p = point_of(ls, v.scenario, v.mode)
    if p is None or v.basis != "gpu_only":
        return v
    ranked = [t.variant for t in v.rows]
    flips = []
    for d in scenario_facts.same_point_elsewhere(ls, v.scenario):
        if d.get("mode") not in (None, v.mode) or (int(d["q_len"]), int(d["kv_len"])) != (p.q_len, p.kv_len):
            continue
        there = dict((x, ms) for x, ms, _ in d["there"])
        order = d["order_there"]
        for i, a in enumerate(d["variants"]):
            for b in d["variants"][i + 1:]:
                if a in ranked and b in ranked and order.index(b) < order.index(a):
                    flips.append(OrderFlip(a, b, d["other"], there[a], there[b]))
    if not flips:
        return v
    out = dict(order_flips=tuple(flips))
    flipped = {x.second for x in flips if x.first == v.fastest.variant}
    if v.runner_up is not None and v.runner_up.variant in flipped:
        near = tuple(dict.fromkeys((*v.near, *(x for x in ranked if x in flipped and x not in v.same_kernel))))
        ranks = tuple((x, 1 if x in near else r) for x, r in v.rank_of_)
        out.update(near=near, rank_of_=ranks, fastest_outcome=rules.WITHIN_NOISE, settled=False,
                   orders=tuple(orders(v.fastest, v.row(x), v.basis) for x in near if v.row(x) is not None))
    return dataclasses.replace(v, **out)


# Why a verdict's first place is not settled where another scenario timed its point with the two the other way round
OTHER_WINDOW = "other window"


def first_pair(v: Verdict) -> tuple[Orders | None, str | None]:
    """The fastest against the runner-up, the pair `settled` and `ratio` are of: their orders (leads.orders) and,
    where not settled, why (Orders.why_not_decided, or OTHER_WINDOW where another scenario ordered the two the other
    way: Verdict.order_flips); (None, None) without a runner-up."""
    if v.runner_up is None:
        return None, None
    o = orders(v.fastest, v.runner_up, v.basis)
    if v.settled:
        return o, None
    flipped = any(x.first == v.fastest.variant and x.second == v.runner_up.variant for x in v.order_flips)
    return o, OTHER_WINDOW if flipped and o.decided else o.why_not_decided


def point_records(ls: tables.LoadedSet, scenario: str, mode: str) -> dict[str, schema.SweepPoint]:
    """variant -> its sweep record at the verdict's point of a scenario and mode (point_of)."""
    p = point_of(ls, scenario, mode)
    return {s.variant: s for s in ls.rs.sweep if s.scenario == scenario and s.mode == mode and s.point == p}


def _sweep_gaps(ls: tables.LoadedSet, v: Verdict) -> tuple[SweepGap, ...]:
    """Ranked rows that come from the profiled runs where the sweep, at the same point, did not measure
    the variant: the verdict then says where those rows come from (the scaling page has no such row)."""
    if not any(r.scenario == v.scenario and r.mode == v.mode for r in ls.rs.runs):
        return ()
    sweep = point_records(ls, v.scenario, v.mode)
    return tuple(SweepGap(t.variant, sweep[t.variant].reason) for t in v.rows
                 if t.variant in sweep and sweep[t.variant].status != schema.Status.OK)


def _other_calls(ls: tables.LoadedSet, v: Verdict) -> tuple[OtherCall, ...]:
    """Ranked rows whose record (the sweep point at the verdict's point, else the profiled run) a
    later capture call measured: a merged set's comparisons then cross two processes."""
    sweep = {n: s for n, s in point_records(ls, v.scenario, v.mode).items() if s.status == schema.Status.OK}
    out = []
    for t in v.rows:
        rec = sweep.get(t.variant) or ls.rs.run(t.variant, v.mode, v.scenario)
        if rec is not None and rec.captured and rec.captured != ls.environment.date:
            out.append(OtherCall(t.variant, rec.captured))
    return tuple(out)


def scenarios(ls: tables.LoadedSet) -> list[str]:
    """The scenarios of a set that have something timed, the article's first."""
    names = [s.name for s in ls.outline.scenarios] or ["article"]
    have = {r.scenario for r in ls.rs.runs} | {p.scenario for p in ls.rs.sweep}
    # in the declared order (gen.model.scenarios), not the order a capture ran them in
    order = list(declared_scenarios.SCENARIOS)
    return sorted((n for n in names if n in have), key=lambda n: order.index(n) if n in order else len(order))


def ranked_units(ls: tables.LoadedSet) -> list[int]:
    """The units (rounds, or with one round the samples: timings.Spread.units) of every median the set's verdicts rank:
    the levels of their intervals are what the pages show (the home's 75%-96.88% and the
    methodology's range are both read off these)."""
    out = []
    for scenario in scenarios(ls):
        for mode in schema.Mode:
            v = verdict(ls, scenario, mode)
            for t in v.rows if v is not None else ():
                s = v.spread(t)
                if s is not None and s.n:
                    out.append(s.units)
    return out


def ranks(v: Verdict | None) -> dict[str, tuple[int, int, int]]:
    """variant -> (rank, best and worst rank its interval allows), from the verdict: the
    one ranking every page shows. The rank is 1 + the variants decidedly faster (ties and
    rows within noise share it); the worst, the variants not decidedly slower, itself and
    its ties included."""
    if v is None:
        return {}
    out = {}
    for t in v.rows:
        s = v.spread(t)
        rank = v.rank(t.variant)
        worst = sum(1 for o in v.rows if o is t or (t.kernels and o.kernels == t.kernels)
                    or s is None or v.spread(o) is None or not leads(t, o, v.basis))
        out[t.variant] = (rank, rank, max(worst, rank))
    return out


@dataclass(frozen=True)
class Classes:
    """Every classification one verdict makes, as plain values: what two captures of the
    same GPU and PyTorch must agree on (benchmarks/capture_agreement.py compares them)."""

    scenario: str
    mode: str
    fastest: tuple[str, ...]  # the variants of rank 1 (the fastest, its ties and any within noise)
    fastest_outcome: str  # rules.YES or WITHIN_NOISE
    ranks: tuple[tuple[str, int], ...]  # variant -> rank, in ranking order
    ties: tuple[tuple[str, ...], ...]  # groups of variants that run the same kernels (two or more)
    host_bound: tuple[tuple[str, str | None], ...]  # variant -> rules.YES, NO, WITHIN_NOISE (None: undecided)


def classes(v: Verdict) -> Classes:
    groups: dict = {}
    for t in v.rows:
        if t.kernels:
            groups.setdefault(t.kernels, []).append(t.variant)
    return Classes(v.scenario, v.mode, tuple(x for x, r in v.rank_of_ if r == 1), v.fastest_outcome, v.rank_of_,
                   tuple(sorted(tuple(sorted(g)) for g in groups.values() if len(g) > 1)),
                   tuple((t.variant, t.host_bound_outcome) for t in v.rows))


def all_classes(ls: tables.LoadedSet) -> dict[tuple[str, str], Classes]:
    """(scenario, mode) -> the classifications of its verdict, for every scenario and mode the set ranks."""
    out = {}
    for scenario in scenarios(ls):
        for mode in schema.Mode:
            v = verdict(ls, scenario, mode)
            if v is not None:
                out[(scenario, str(mode))] = classes(v)
    return out
