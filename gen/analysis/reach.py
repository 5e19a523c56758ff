"""What the conditions of two calls timed apart can move a time by, from the set itself (rules.TIMED_APART_REACH):
the lowest SM clock sampled in any GPU-only window against the set's reference clock (the
GPU's maximum), times the largest ratio of identical kernels as run (gen.analysis.pair_noise.largest). A timed-apart
lead past rules.TIMED_APART_REACH stands only if this bound stays under it; `decides` lists the pairs the reach alone
decides (the fair kernel sums not deciding them on their own).

Takes: a loaded measured set. Gives: `reach(ls) -> Reach | None`. Numbers only: gen.report.words.methodology words
them."""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import calls, leads, pair_noise, tables, verdicts
from gen.model import schema


@dataclass(frozen=True)
class WindowAt:
    """Where a GPU-only window was timed: its scenario, variant and point."""

    scenario: str
    variant: str
    point: schema.Point


@dataclass(frozen=True)
class PastLine:
    """A pair timed apart whose as-run lead is past rules.TIMED_APART_REACH: the one ahead, the other, that lead."""

    scenario: str
    mode: str
    point: schema.Point
    first: str
    second: str
    as_run: float


@dataclass(frozen=True)
class Reach:
    lowest_mhz: float  # the lowest SM clock sampled in a GPU-only window of the set
    lowest_at: WindowAt  # that window
    ref_mhz: float  # the set's reference clock (the GPU's maximum)
    pair: float  # the set's largest as-run ratio of identical kernels
    # Pairs timed apart that the as-run lead past rules.TIMED_APART_REACH alone decides, the fair kernel sums not
    # deciding them on their own (leads.Orders.reach_decides), the smallest lead (the nearest the line) first
    decides: tuple[PastLine, ...] = ()
    # Pairs timed apart past the line that the fair kernel sums decide on their own (not the reach's to count)
    sums_decide: int = 0
    # The orders of decides[0] (its kernel sums and their clocks: why they do not decide it); None: no pair
    nearest: leads.Orders | None = None

    @property
    def clock_ratio(self) -> float:
        return self.ref_mhz / self.lowest_mhz

    @property
    def bound(self) -> float:
        """How far the two together can move a time: under rules.TIMED_APART_REACH where the rule is sound."""
        return self.clock_ratio * self.pair


def _lowest(ls: tables.LoadedSet) -> tuple[float, WindowAt] | None:
    got = []
    for p in ls.rs.sweep:
        tel = (p.timing.telemetry or {}).get("gpu_only") if p.timing is not None else None
        if tel is not None and tel.sm_clock_min_mhz:
            got.append((tel.sm_clock_min_mhz, WindowAt(p.scenario, p.variant, p.point)))
    return min(got, key=lambda g: g[0]) if got else None


def _past_the_line(ls: tables.LoadedSet) -> list[tuple]:
    """Every pair timed apart decided with an as-run lead past rules.TIMED_APART_REACH: (scenario, mode, point, the one
    ahead, the other, its lead as run, its leads.Orders), the smallest lead first."""
    out = []
    for sc in verdicts.scenarios(ls):
        for mode in schema.Mode:
            for p in calls._points(ls, sc, mode):
                v = verdicts.verdict_at(ls, sc, p, mode)
                rows = [t for t in (v.rows if v is not None else ()) if v.spread(t) is not None]
                for i, a in enumerate(rows):
                    for b in rows[i + 1:]:
                        o = verdicts.orders(a, b, v.basis)
                        if o.past_reach:
                            out.append((sc, str(mode), p, o.first, o.second, o.as_run, o))
    return sorted(out, key=lambda x: x[-2])


def reach(ls: tables.LoadedSet) -> Reach | None:
    """The set's bound (see the module docstring); None off the GPU, or where the set records no window clock, no
    reference clock or no identical pair."""
    if ls.kind != schema.SetKind.MEASURED or ls.environment.device != "cuda":
        return None
    low, ref, pair = _lowest(ls), ls.environment.ref_mhz, pair_noise.largest(ls)
    if low is None or not ref or pair is None:
        return None
    past = _past_the_line(ls)
    alone = [x for x in past if x[-1].reach_decides]
    return Reach(low[0], low[1], ref, pair.ratio, tuple(PastLine(*x[:-1]) for x in alone), len(past) - len(alone),
                 alone[0][-1] if alone else None)
