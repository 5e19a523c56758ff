"""Which equal-clock times a verdict's as-run line may give (gen.analysis.verdicts.Verdict -> facts): the calls it
names, those given a time at equal clock, whether the equal-clock order can be said to be the as-run one, and the
clock flips it can give with both times. A model time beside a window with no single clock (rules.one_clock) sets
two calls on different bases, so where any named call lacks one, none of them gets an equal-clock time."""

from __future__ import annotations

from gen.analysis.verdict_notes import ClockFlip


def named(v) -> tuple[str, ...]:
    """The ranked calls the as-run line names: the fastest, its kernels' ties, the calls within noise of it and the
    runner-up."""
    runner = (v.runner_up.variant,) if v.runner_up else ()
    return tuple(x for x in dict.fromkeys((v.fastest.variant, *v.same_kernel, *v.near, *runner))
                 if v.row(x) is not None)


def shown(v) -> tuple[str, ...]:
    """The named calls given a time at equal clock: none where any named call's window had no single clock."""
    rows = [v.row(x) for x in named(v)]
    if any(t.equal_clock and not t.one_clock for t in rows):
        return ()
    return tuple(t.variant for t in rows if t.at_ref_ms is not None)


def flips_shown(v) -> tuple[ClockFlip, ...]:
    """The verdict's clock flips that a line can give with both times: none naming a call withheld its time."""
    withheld = set(named(v)) - set(shown(v))
    return tuple(f for f in v.clock_flips if f.first not in withheld and f.second not in withheld)


def same_order(v) -> bool:
    """The equal-clock order can be said to be the as-run one: no flip to give, and at least two named calls have an
    equal-clock time (an order among one call, or none, says nothing)."""
    return not flips_shown(v) and len(shown(v)) >= 2
