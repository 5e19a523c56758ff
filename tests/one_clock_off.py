"""Verdicts made from a set's rows with every window taken to have one clock (rules.one_clock left out): once the
windows with no single clock get no equal-clock time, no committed set holds a pair the equal-clock order puts the
other way round, so the words for such a pair (who pays, the power hold of both sides) are checked on the committed
rows as they stood before that rule."""

from __future__ import annotations

import dataclasses

from gen.analysis import kernel_names, timings, verdicts


def rows(ls, timed) -> list:
    """`timed` (calls.Timed rows of `ls`), each window with no single clock given its equal-clock time back."""
    ref = ls.environment.ref_mhz
    return [dataclasses.replace(t, one_clock=True, at_ref_ms=timings.at_ref_clock(t.gpu_only.median, t.sm_clock_mhz,
                                                                                   ref))
            if t.equal_clock and not t.one_clock and t.gpu_only is not None and t.gpu_only.n and t.sm_clock_mhz
            else t for t in timed]


def verdict(ls, scenario: str, mode: str = "inference"):
    """verdicts.verdict's rule on those rows (its later additions, order flips and other batches, left out)."""
    env = ls.environment
    return verdicts.decide(rows(ls, verdicts.timed(ls, scenario, mode)), ls.name, scenario, mode,
                           kernel_names.gpu_arch(env.compute_capability), verdicts.point_of(ls, scenario, mode),
                           sm_count=env.sm_count, ref_mhz=env.ref_mhz, power_limit_w=env.power_limit_w,
                           power_reading=env.power_reading)
