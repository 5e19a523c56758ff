"""What FP8 buys, with the clocks behind it: an FP8 call and its bf16 twin (rows of a
scenario's point frame) set side by side as run, by kernel sum and at equal clock (a model), each with the two
windows' clocks, so a speed-up taken with FP8 at the higher clock is not read as the kernels' alone. Numbers only:
gen.report.words.fp8_speed words them; gen.analysis.scenarios.fp8_frame adds them to its rows."""

from __future__ import annotations

import math

from gen.analysis import rules
from gen.analysis.values import missing

COLUMNS = ["run_speedup", "run_fp8_mhz", "run_twin_mhz", "ks_speedup", "ks_fp8_mhz", "ks_twin_mhz", "eq_speedup"]


def _n(r: dict, key: str) -> float:
    v = r.get(key, math.nan)
    return math.nan if missing(v) else float(v)


def _over(twin: float, fp8: float) -> float:
    return twin / fp8 if not (missing(twin) or missing(fp8)) and fp8 else math.nan


def speeds(r: dict, t: dict, kernel_sums: bool) -> dict:
    """The twin's time over the FP8 call's (above 1: FP8 faster) as run (graph replays; NaN where the table's times
    are kernel sums, `kernel_sums`: a replay and a sum do not compare), by kernel sum, and at equal clock (each time
    × its window's clock: the replays', else the sums'; NaN at a memory-bound point, rules.equal_clock_applies, or
    where a replay's window has no single clock, rules.one_clock), with
    the clocks of both windows."""
    run = math.nan if kernel_sums else _over(_n(t, "gpu_only_ms"), _n(r, "gpu_only_ms"))
    ks = _over(_n(t, "kernel_sum_ms"), _n(r, "kernel_sum_ms"))
    if not missing(run):  # a replay's window with no single clock (rules.one_clock) has no time at equal clock
        one = all(bool(x.get("one_clock", True)) for x in (r, t))
        eq = run * _n(t, "sm_clock_mhz") / _n(r, "sm_clock_mhz") if one else math.nan
    else:
        eq = ks * _n(t, "kernel_sum_mhz") / _n(r, "kernel_sum_mhz")
    applies = rules.equal_clock_applies(r.get("figure"))
    return dict(run_speedup=run, run_fp8_mhz=_n(r, "sm_clock_mhz"), run_twin_mhz=_n(t, "sm_clock_mhz"),
                ks_speedup=ks, ks_fp8_mhz=_n(r, "kernel_sum_mhz"), ks_twin_mhz=_n(t, "kernel_sum_mhz"),
                eq_speedup=eq if applies and not missing(eq) else math.nan)
