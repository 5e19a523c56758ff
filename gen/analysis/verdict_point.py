"""The verdict's point of a scenario as the few facts a scenario page opens with (a
reader sees the answer as a chart and a table before any paragraph, at the point the home page answers for).

Takes: a loaded set and a scenario (gen.analysis.verdicts, the one ranking rule; gen.analysis.advice, the call What to
call names for the workload). Gives `point_facts(ls, scenario, mode) -> PointFacts | None` and
`point_facts_all(ls, scenario)` (every mode whose verdict ranks two calls or more; where a verdict ranks deterministic
calls led by a plain one, the deterministic calls' own verdict first): the verdict's call
and the calls sharing its rank with each one's orders, its time as run with its window's SM clock, board power and
share held for power, the next call (the verdict's runner-up) and the gain over it by the measure the rule decides by
(leads.Orders.answer, as the home's map gives it) with the orders behind it, whether the lead holds
(verdicts.first_pair), the call What to call names and its orders against the verdict's call (where it shares the
first rank, its own time and window: NamedAt, the row leading with it), the eager loop's call
where a Python loop sees another answer or a first-rank call waits on the host, and every ranked call's median with
its interval, its measure and its clock (`calls`: the chart's rows). Numbers only: gen.report.words.scenario_first
words them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gen.analysis import calls, kernel_names, rules, verdicts
from gen.analysis.calls import Spread, Timed, interval
from gen.analysis.determinism_rule import deterministic
from gen.analysis.leads import AS_RUN, Orders
from gen.model import schema

# A ranked call's place at the verdict's point: the verdict's fastest, a call sharing its first rank (the same kernels,
# or within noise: verdicts.Verdict.same_kernel, near), or behind it. The fastest is not always the call What to call
# names (a maskless call sharing the first rank is named over a BlockMask call: mask_cost.MASKLESS_WHERE_SHARED), so
# its place says "fastest" and the ring marks the named call
FASTEST, FIRST_RANK, BEHIND = "fastest by median", "sharing its rank", "behind it"
ROLES = (FASTEST, FIRST_RANK, BEHIND)
DETERMINISTIC = "deterministic"  # PointFacts.scope of a verdict over the deterministic calls alone


@dataclass(frozen=True)
class CallAt:
    """One ranked call at the verdict's point: its median (the ranking time), its interval and that interval's real
    level (timings.Spread.level), the SM clock its window ran at, how its GPU-only time was taken (schema.GpuOnlyMethod:
    a kernel sum is another measure than a graph replay, drawn apart) and whether What to
    call names it for the workload."""

    variant: str
    role: str  # ROLES
    median_ms: float
    lo_ms: float
    hi_ms: float
    level: float
    sm_clock_mhz: float | None
    method: str | None = None
    named: bool = False


@dataclass(frozen=True)
class LoopTime:
    """One call in a Python loop of eager calls: its eager median, that over its GPU-only time, and whether it is
    host-bound."""

    variant: str
    eager_ms: float
    eager_ratio: float | None
    host_bound: bool


@dataclass(frozen=True)
class WrongFaster:
    """A call faster in the loop than the loop's fastest whose answer is wrong (rules.wrong_answer, never ranked)."""

    variant: str
    eager_ms: float
    rel_error: float


@dataclass(frozen=True)
class Loop:
    """A Python loop of eager calls at the point (verdicts.HostChange): the call it finds fastest and the calls of the
    first rank and the named call in it."""

    fastest: str
    fastest_ms: float
    changes_answer: bool
    calls: tuple[LoopTime, ...]
    # calls faster in the loop than `fastest` whose answer is wrong: is_causal=True at a chunk, 75.4 against 131.6 µs
    wrong_faster: tuple[WrongFaster, ...] = ()


@dataclass(frozen=True)
class NamedAt:
    """The call What to call names where it shares the first rank but is not the fastest by median: the row leads with
    it (the table gave the fastest's time and "Next call: <the named call>, Holds: no"),
    so its own median, interval and window: SM clock, board power (instant and averaged), the window's length and its
    share held for power."""

    median_ms: float
    method: str | None
    spread: Spread
    sm_clock_mhz: float | None
    power_w: float | None
    power_avg_w: float | None
    power_window_s: float | None
    power_cap_share: float | None


@dataclass(frozen=True)
class PointFacts:
    """A verdict's point, for a first look at a scenario (module docstring)."""

    scenario: str
    mode: str
    point: schema.Point | None
    basis: str  # the ranking time: "gpu_only", else "eager" or "host" (a set without GPU times)
    method: str | None  # how the fastest's GPU-only time was taken (schema.GpuOnlyMethod)
    fastest: str
    same_kernel: tuple[str, ...]
    near: tuple[str, ...]
    median_ms: float
    sm_clock_mhz: float | None
    power_w: float | None
    power_avg_w: float | None
    power_window_s: float | None
    runner_up: str | None
    runner_ms: float | None
    runner_mhz: float | None
    # the runner-up's time over the fastest's, by `gain_by`; as run, the ratio of the two times the table and the chart
    # show (the profiled runs' where the order is read off the sweep's shared rounds: `rounds_ms`)
    gain: float | None
    gain_by: str | None  # leads.AS_RUN or leads.BY_KERNEL_SUM (Orders.answer)
    settled: bool | None  # the fastest decidedly ahead of the runner-up (verdicts.Verdict.settled)
    orders: Orders | None  # the fastest against the runner-up
    why_not: str | None  # where not settled, why (verdicts.first_pair)
    spreads: tuple[Spread | None, Spread | None]  # the fastest's and the runner-up's ranking times
    calls: tuple[CallAt, ...]  # every ranked call with a time, in ranking order
    power_cap_share: float | None = None  # the share of the fastest's window held down for power (schema 5)
    # the fastest against each call of `near` (verdicts.Verdict.orders), and the near calls another scenario ordered
    # the other way at this point (verdicts.Verdict.order_flips): why each shares the rank
    near_orders: tuple[Orders, ...] = ()
    flipped: tuple[str, ...] = ()
    scope: str | None = None  # None: every ranked call; DETERMINISTIC: the deterministic calls alone
    # The call What to call names for this workload (advice: its exception here, else its default call; the fastest
    # deterministic call beside it for the deterministic scope: advice.Advice.det_leads), its rank here, the fastest
    # against it where it is another call than the fastest and its ties (verdicts.orders), and both rows (their output
    # errors where their inputs differ); None where it names none here or it was not ranked
    named: str | None = None
    named_rank: int | None = None
    named_orders: Orders | None = None
    named_rows: tuple[Timed, ...] = ()
    loop: Loop | None = None  # where a Python loop sees another answer, or a first-rank call waits on the host
    # in a row beside the deterministic calls' own (scope DETERMINISTIC), its calls that are not deterministic
    plain: tuple[str, ...] = ()
    # Where the fastest's and the runner-up's times are the profiled runs' and their order is read off the sweep's
    # shared rounds at this point (calls.Timed.rounds_record): the two medians there, the evidence the Holds cell cites
    # (one record per quantity, the other labelled); None elsewhere
    rounds_ms: tuple[float, float] | None = None
    # Where the fastest is host-bound: its eager median and the runner-up's (verdicts.Verdict.loop_ms), the gain an
    # eager loop on this host gets beside the GPU-only one the Gain cell gives
    loop_ms: tuple[float, float] | None = None
    named_default: bool = False  # `named` is What to call's default, kept where it shares the first rank
    named_at: NamedAt | None = None  # where the named call shares the first rank and is not the fastest
    # where the named call runs the fastest's own kernels (a tie, one rank): its own median and clock, which the row
    # gives beside the fastest's (SDPA cuDNN's 58.9 µs stood bare under "What to call
    # names SDPA (backend not pinned)", whose median is 59.2 µs)
    named_tie: NamedAt | None = None

    @property
    def lead(self) -> str:
        """The call the row leads with: the named call where it shares the first rank (`named_at`), else the fastest."""
        return self.named if self.named_at is not None else self.fastest

    @property
    def as_run(self) -> float | None:
        """The runner-up's time over the fastest's as the table and the chart show them (`spreads`)."""
        return self.runner_ms / self.median_ms if self.runner_ms is not None and self.median_ms else None

    @property
    def first_rank(self) -> tuple[str, ...]:
        """The calls of the first rank: the fastest, its ties on the same kernels, the calls within noise of it."""
        return (self.fastest, *self.same_kernel, *self.near)

    @property
    def named_apart(self) -> bool:
        """What to call names another call than the verdict's fastest and its ties on the same kernels."""
        return self.named is not None and self.named not in (self.fastest, *self.same_kernel)

    @property
    def named_under_bar(self) -> bool:
        """The fastest's lead over the named call under rules.ADVICE_MIN_GAIN, the gain What to call asks before naming
        another call, both by kernel sum and as run (the larger of the two under it); False where either is not
        known."""
        o, n = self.named_orders, self.named_at
        if o is None or o.kernel_sum is None or n is None or not self.median_ms:
            return False
        return max(o.kernel_sum, n.median_ms / self.median_ms) < rules.ADVICE_MIN_GAIN


def _role(v: verdicts.Verdict, variant: str) -> str:
    if variant == v.fastest.variant:
        return FASTEST
    return FIRST_RANK if variant in v.same_kernel or variant in v.near else BEHIND


def _loop(v: verdicts.Verdict, named: str | None) -> Loop | None:
    """The eager loop's answer where it changes the verdict's (HostChange.changes_answer) or a call of the first rank,
    or the named one, is host-bound (host_rules.host_bound_outcome: yes); None elsewhere."""
    h = v.host
    firsts = [x for x, r in v.rank_of_ if r == 1]
    mine = list(dict.fromkeys([*firsts, *([named] if named else [])]))
    rows = [t for x in mine if (t := v.row(x)) is not None and t.eager is not None and t.eager.n]
    if h is None or not rows or not (h.changes_answer or any(t.host_bound for t in rows)):
        return None
    top = v.row(h.eager_fastest)
    if top is None or top.eager is None or not top.eager.n:
        return None
    return Loop(top.variant, top.eager.median, h.changes_answer,
                tuple(LoopTime(t.variant, t.eager.median, t.eager_over_gpu_only, t.host_bound) for t in rows))


def _facts(v: verdicts.Verdict, point, named: str | None, scope: str | None = None) -> PointFacts:
    f, r = v.fastest, v.runner_up
    fs, rs = v.spread(f), (v.spread(r) if r is not None else None)
    o, why = verdicts.first_pair(v)
    gain, by = o.answer if o is not None else (v.ratio, None)
    rounds = _rounds_ms(v)
    if rounds is not None and by == AS_RUN:
        gain = v.ratio  # the times shown are the runs' (the chart's too); the shared rounds' ratio is cited apart
    named = named if named is not None and v.row(named) is not None and v.spread(v.row(named)) else None
    out = []
    for t in v.rows:
        s = v.spread(t)
        if s is None or not s.n:
            continue
        lo, hi = interval(s)
        out.append(CallAt(t.variant, _role(v, t.variant), s.median, lo, hi, s.level, t.sm_clock_mhz,
                          t.gpu_only_method if v.basis == "gpu_only" else None, t.variant == named))
    apart = named is not None and named not in (f.variant, *v.same_kernel)
    n = v.row(named) if apart and named in v.near else None
    named_at = _named_at(v, n) if n is not None else None
    tie = v.row(named) if named is not None and named != f.variant and named in v.same_kernel else None
    return PointFacts(
        scenario=v.scenario, mode=str(v.mode), point=point, basis=v.basis, method=v.method, fastest=f.variant,
        same_kernel=v.same_kernel, near=v.near, median_ms=fs.median, sm_clock_mhz=f.sm_clock_mhz,
        power_w=f.power_w, power_avg_w=f.power_avg_w, power_window_s=f.power_window_s,
        runner_up=r.variant if r is not None else None, runner_ms=rs.median if rs is not None else None,
        runner_mhz=r.sm_clock_mhz if r is not None else None, gain=gain, gain_by=by, settled=v.settled, orders=o,
        why_not=why, spreads=(fs, rs), calls=tuple(out), power_cap_share=f.power_cap_share,
        near_orders=v.orders,
        flipped=tuple(x.second for x in v.order_flips if x.first == f.variant and x.second in v.near),
        scope=scope, named=named, named_rank=v.rank(named) if named else None,
        named_orders=verdicts.orders(f, v.row(named), v.basis) if apart else None,
        named_rows=(f, v.row(named)) if apart else (), loop=_loop(v, named), rounds_ms=rounds,
        named_at=named_at, loop_ms=v.loop_ms, named_tie=_named_at(v, tie) if tie is not None else None)


def _named_at(v: verdicts.Verdict, n) -> NamedAt:
    return NamedAt(v.spread(n).median, n.gpu_only_method if v.basis == "gpu_only" else None, v.spread(n),
                   n.sm_clock_mhz, n.power_w, n.power_avg_w, n.power_window_s, n.power_cap_share)


def _rounds_ms(v: verdicts.Verdict) -> tuple[float, float] | None:
    """The fastest's and the runner-up's medians in the sweep's shared rounds, where both rows are the profiled runs'
    carrying them (calls.Timed.rounds_record: the record their order is read off); None elsewhere."""
    f, r = v.fastest, v.runner_up
    if r is None or f.rounds_record is None or r.rounds_record is None:
        return None
    a, b = v.spread(f.rounds_record), v.spread(r.rounds_record)
    return (a.median, b.median) if a is not None and b is not None and a.median else None


_DEFAULT = (None, None, "default")  # _named's key for What to call's default call


def _named(ls) -> dict:
    """(scenario, mode, scope) -> the call What to call names (gen.analysis.advice), made once a set."""
    key = ("verdict_point", "named")
    if key not in ls._tables:
        from gen.analysis import advice  # advice reads the verdicts this module reads

        a = advice.advice(ls)
        out = {}
        if a is not None:
            for scenario in verdicts.scenarios(ls):
                for mode in schema.Mode:
                    out[(scenario, str(mode), None)] = a.default
            out.update({(e.scenario, str(e.mode), None): e.variant for e in a.exceptions})
            out.update({(d.scenario, str(d.mode), DETERMINISTIC): d.det_first for d in a.det_leads})
            out[_DEFAULT] = a.default
        ls._tables[key] = out
    return ls._tables[key]


def _deterministic(ls, v: verdicts.Verdict) -> verdicts.Verdict | None:
    """The verdict over the deterministic calls alone, where the verdict ranks two or more of them and a plain call
    leads (determinism.deterministic_leads' rule): a user who needs determinism reads this answer first."""
    det = [t for t in v.rows if deterministic(t.variant)]
    if len(det) < 2 or deterministic(v.fastest.variant):
        return None
    env = ls.environment
    return verdicts.decide(det, ls.name, v.scenario, v.mode, kernel_names.gpu_arch(env.compute_capability),
                           verdicts.point_of(ls, v.scenario, v.mode), sm_count=env.sm_count, ref_mhz=env.ref_mhz,
                           power_limit_w=env.power_limit_w, power_reading=env.power_reading)


def point_facts(ls, scenario: str, mode: str) -> PointFacts | None:
    """The facts of one verdict's point; None where the set has no verdict there, or one with nothing ranked against
    its fastest (a field of one: no gain, no order to show)."""
    v = verdicts.verdict(ls, scenario, mode)
    if v is None or v.field_of_one or v.spread(v.fastest) is None:
        return None
    f = _facts(v, verdicts.point_of(ls, scenario, mode), _named(ls).get((scenario, str(mode), None)))
    if f.named is not None and f.named == _named(ls).get(_DEFAULT):
        f = replace(f, named_default=True)
    if f.loop is not None:
        wrong = tuple(WrongFaster(t.variant, t.eager.median, t.rel_error) for t in calls.timed(ls, scenario, mode)
                      if t.wrong and t.eager is not None and t.eager.n and t.eager.median < f.loop.fastest_ms)
        f = replace(f, loop=replace(f.loop, wrong_faster=wrong)) if wrong else f
    return f


def point_facts_all(ls, scenario: str) -> list[PointFacts]:
    """Each mode's facts (inference first) where the set is measured and its verdict ranks two calls or more; before
    a mode's, its deterministic calls' own where they have one (`_deterministic`)."""
    if ls.kind != schema.SetKind.MEASURED:
        return []
    out = []
    for mode in schema.Mode:
        f = point_facts(ls, scenario, mode)
        if f is None:
            continue
        d = _deterministic(ls, verdicts.verdict(ls, scenario, mode))
        if d is not None and not d.field_of_one and d.spread(d.fastest) is not None:
            out.append(_facts(d, f.point, _named(ls).get((scenario, str(mode), DETERMINISTIC)), DETERMINISTIC))
            f = replace(f, plain=tuple(c.variant for c in f.calls if not deterministic(c.variant)))
        out.append(f)
    return out
