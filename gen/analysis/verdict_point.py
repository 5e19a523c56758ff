"""The verdict's point of a scenario as the few facts a scenario page opens with (review 2026-12-07-1 finding 1: a
reader sees the answer as a chart and a table before any paragraph, at the point the home page answers for).

Takes: a loaded set and a scenario (gen.analysis.verdicts, the one ranking rule). Gives `point_facts(ls, scenario,
mode) -> PointFacts | None` and `point_facts_all(ls, scenario)` (every mode whose verdict ranks two calls or more): the
verdict's call and the calls sharing its rank, its time as run with its window's SM clock and board power, the next
call (the verdict's runner-up) and the gain over it by the measure the rule decides by (leads.Orders.answer, as the
home's map gives it), whether the lead holds (verdicts.first_pair), and every ranked call's median with its interval
(`calls`: the chart's rows). Numbers only: gen.report.words.verdict_point words them.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import verdicts
from gen.analysis.calls import Spread, interval
from gen.analysis.leads import Orders
from gen.model import schema

# A ranked call's place at the verdict's point: the verdict's fastest, a call sharing its first rank (the same kernels,
# or within noise: verdicts.Verdict.same_kernel, near), or behind it
FASTEST, FIRST_RANK, BEHIND = "the verdict's call", "sharing its rank", "behind it"
ROLES = (FASTEST, FIRST_RANK, BEHIND)


@dataclass(frozen=True)
class CallAt:
    """One ranked call at the verdict's point: its median (the ranking time), its interval and that interval's real
    level (timings.Spread.level), and the SM clock its window ran at."""

    variant: str
    role: str  # ROLES
    median_ms: float
    lo_ms: float
    hi_ms: float
    level: float
    sm_clock_mhz: float | None


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
    gain: float | None  # the runner-up's time over the fastest's, by `gain_by`
    gain_by: str | None  # leads.AS_RUN or leads.BY_KERNEL_SUM (Orders.answer)
    settled: bool | None  # the fastest decidedly ahead of the runner-up (verdicts.Verdict.settled)
    orders: Orders | None  # the fastest against the runner-up
    why_not: str | None  # where not settled, why (verdicts.first_pair)
    spreads: tuple[Spread | None, Spread | None]  # the fastest's and the runner-up's ranking times
    calls: tuple[CallAt, ...]  # every ranked call with a time, in ranking order

    @property
    def first_rank(self) -> tuple[str, ...]:
        """The calls of the first rank: the fastest, its ties on the same kernels, the calls within noise of it."""
        return (self.fastest, *self.same_kernel, *self.near)


def _role(v: verdicts.Verdict, variant: str) -> str:
    if variant == v.fastest.variant:
        return FASTEST
    return FIRST_RANK if variant in v.same_kernel or variant in v.near else BEHIND


def _facts(ls, v: verdicts.Verdict, point) -> PointFacts:
    f, r = v.fastest, v.runner_up
    fs, rs = v.spread(f), (v.spread(r) if r is not None else None)
    o, why = verdicts.first_pair(v)
    gain, by = o.answer if o is not None else (v.ratio, None)
    out = []
    for t in v.rows:
        s = v.spread(t)
        if s is None or not s.n:
            continue
        lo, hi = interval(s)
        out.append(CallAt(t.variant, _role(v, t.variant), s.median, lo, hi, s.level, t.sm_clock_mhz))
    return PointFacts(
        scenario=v.scenario, mode=str(v.mode), point=point, basis=v.basis, method=v.method, fastest=f.variant,
        same_kernel=v.same_kernel, near=v.near, median_ms=fs.median, sm_clock_mhz=f.sm_clock_mhz,
        power_w=f.power_w, power_avg_w=f.power_avg_w, power_window_s=f.power_window_s,
        runner_up=r.variant if r is not None else None, runner_ms=rs.median if rs is not None else None,
        runner_mhz=r.sm_clock_mhz if r is not None else None, gain=gain, gain_by=by, settled=v.settled, orders=o,
        why_not=why, spreads=(fs, rs), calls=tuple(out))


def point_facts(ls, scenario: str, mode: str) -> PointFacts | None:
    """The facts of one verdict's point; None where the set has no verdict there, or one with nothing ranked against
    its fastest (a field of one: no gain, no order to show)."""
    v = verdicts.verdict(ls, scenario, mode)
    if v is None or v.field_of_one or v.spread(v.fastest) is None:
        return None
    return _facts(ls, v, verdicts.point_of(ls, scenario, mode))


def point_facts_all(ls, scenario: str) -> list[PointFacts]:
    """Each mode's facts (inference first) where the set is measured and its verdict ranks two calls or more."""
    if ls.rs.kind != schema.SetKind.MEASURED:
        return []
    return [p for mode in schema.Mode if (p := point_facts(ls, scenario, mode)) is not None]
