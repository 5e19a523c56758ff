"""Where the first screen's default call is not first (gen.analysis.advice.Advice.behind_at): at each verdict's
point and its scenario's other sweep points, the fastest call that leads the default by the rule, or the fastest as run
where the rule leaves the lead not decided, with the orders and both clocks (split from gen.analysis.advice, by job).

Takes: a loaded measured set and its verdicts. Gives `Behind` and `behind_at`. Numbers only."""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import calls, tables, verdicts


@dataclass(frozen=True)
class Behind:
    """A point (a verdict's, or a sweep point of its scenario) where the default is not first: the fastest call there
    that leads it by the rule (or, not decided, the fastest as run), its time over the default's, and both SM clocks
    as run."""

    scenario: str
    mode: str
    kv_len: int
    q_len: int
    fastest: str
    ratio: float  # the default's time over the fastest's
    default_mhz: float | None
    fastest_mhz: float | None
    at_verdict: bool  # the verdict's own point
    head_dim: int | None = None  # where it differs from the verdict's point's
    point_head_dim: int | None = None  # the point's head dim, always
    # The default's time over the fastest's, both at the reference clock, where equal clock applies to the point
    # (under 1: the default leads at equal clock, a model that decides nothing: rules, "who leads")
    equal_clock_ratio: float | None = None
    # The orders of the fastest against the default there (verdicts.Orders), and whether they decide it
    # (rules.lead_decided): a point whose as-run intervals are apart but which the rule leaves not decided
    # is listed too, as not decided
    orders: verdicts.Orders | None = None
    decided: bool = True
    # (rounds, samples) of the fastest's and the default's medians there: the level of their intervals
    # (timings.ci_level: 93.75% for 5 rounds)
    spreads: tuple = ()
    # Within noise as run, the fastest ahead by kernel sum (Orders.kernels_leader): behind by kernel sum, as the first
    # screen counts FP8 prefill; `decided` is then False
    by_kernels: bool = False


def behind_at(ls: tables.LoadedSet, vs: list[verdicts.Verdict], default: str, exceptions) -> tuple[Behind, ...]:
    """Every point where another call is decidedly faster than the default (intervals apart): at the verdict's
    point where the default is not first there, and at the scenario's other sweep points; the exceptions'
    verdict points are the exceptions' own."""
    out = []
    # an exception's scenario is the exception's to word, at every size (its other chunk sizes, say)
    skip = {(e.scenario, e.mode) for e in exceptions}
    for v in vs:
        if v.field_of_one or (v.scenario, v.mode) in skip:
            continue
        here = calls.point_of(ls, v.scenario, v.mode)
        for p in [here] + [q for q in calls._points(ls, v.scenario, v.mode) if q != here]:
            at = v if p == here else verdicts.verdict_at(ls, v.scenario, p, v.mode)
            if at is None or at.row(default) is None or at.fastest.variant == default:
                continue
            d = at.row(default)
            f = _leader(at, d)
            if f is None:
                continue
            fs, ds = at.spread(f), at.spread(d)
            if not fs or not ds or not fs.median:
                continue
            pair = verdicts.orders(f, d, at.basis)
            led = (p != here and at.rank(default) == 1 and not pair.apart and pair.kernels_leader == f.variant
                   and not (d.kernels and f.kernels == d.kernels))  # never between identical kernels (a tie)
            if at.rank(default) == 1 and not (pair.apart and not pair.decided) and not led:
                continue  # within noise as run and by kernel sum: not behind, and nothing overruled
            eq = (d.at_ref_ms / f.at_ref_ms if at.equal_clock_order and d.at_ref_ms and f.at_ref_ms else None)
            out.append(Behind(v.scenario, v.mode, p.kv_len, p.q_len, f.variant, ds.median / fs.median,
                              d.sm_clock_mhz, f.sm_clock_mhz, p == here,
                              p.head_dim if here is not None and p.head_dim != here.head_dim else None, p.head_dim,
                              eq, pair, pair.decided, ((fs.rounds, fs.n), (ds.rounds, ds.n)), led))
    return tuple(out)


def _leader(at: verdicts.Verdict, d):
    """The call to set against the default `d` at one point: where the default is not first, the fastest call that
    leads it by the rule (the fastest itself may sit within noise of it, the default ranked down by another); where
    it is first, the fastest call with other kernels (the default's own kernels, SDPA cuDNN against
    SDPA with no backend pinned, are a tie, never "another call faster"); None where there is none."""
    if at.rank(d.variant) != 1:
        ahead = [x for x in at.rows if x is not d and at.spread(x) and verdicts.leads(x, d, at.basis)]
        return min(ahead, key=lambda x: at.spread(x).median) if ahead else None
    if not (d.kernels and at.fastest.kernels == d.kernels):
        return at.fastest
    ds = at.spread(d)
    other = [x for x in at.rows if x.kernels != d.kernels and at.spread(x) and ds and at.spread(x).median < ds.median]
    return min(other, key=lambda x: at.spread(x).median) if other else None
