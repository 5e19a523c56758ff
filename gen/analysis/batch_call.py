"""The call to make for decode at the dynamic-lengths runs' batch, where a decode verdict holds at another: with a
growing KV cache every step is a new length, so the call must be cheap once warm and cheap at each new
length. Numbers only, all from the set's `dynamic` records through gen.analysis.dynamic's facts; the words are
gen.report.words.decision's.

Rule: the run that is both the fastest once warm in a Python loop and the cheapest at a new length, of the runs
measured cold (dynamic.PhaseFacts.steady_best and first_best: a run whose first calls hit another run's cached plans
measured no new-length cost), costs least in all at any number of calls a length; it is named where it is not the
verdict's default and is faster than the default on the GPU and once warm. Where no one run is both, none is named.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from gen.analysis import dynamic

PHASE = "decode"


@dataclass(frozen=True)
class GpuFaster:
    """A run faster on the GPU than the call named, with what it pays at each new length: why it is not the call."""

    variant: str
    gpu_ms: float
    new_length_ms: float | None


@dataclass(frozen=True)
class BatchCall:
    batch: int  # the dynamic-lengths runs' batch
    at_batch: int  # the decode verdict's batch, where the default holds
    kv_lo: int
    kv_hi: int
    variant: str  # the call to make at `batch`
    gpu_ms: float  # its warm call's GPU-only time (replayed graph), median over lengths
    steady_ms: float  # its warm call in a Python loop, median over lengths
    new_length_ms: float  # what each new length costs it beyond a warm call (dynamic.DynamicFacts.first_overhead_ms)
    default: str
    default_gpu_ms: float
    default_steady_ms: float
    gpu_faster: GpuFaster | None = None  # the fastest run on the GPU where faster than `variant`
    # The runs' mean SM clock; None where the records hold none (schema 5's dynamic runs record no clock)
    clock_mhz: float | None = None

    @property
    def gpu_ratio(self) -> float:
        return self.default_gpu_ms / self.gpu_ms

    @property
    def steady_ratio(self) -> float:
        return self.default_steady_ms / self.steady_ms


def _clock(rs, variant: str) -> float | None:
    """The run's window clock where its lengths record one (no schema does yet: None)."""
    run = next((r for r in rs.dynamic if r.variant == variant and r.phase == PHASE and not r.env), None)
    got = [x for c in (run.lengths if run else ()) if (x := getattr(c, "sm_clock_mhz", None)) is not None]
    return statistics.median(got) if got else None


def batch_call(rs, order: dynamic.BatchOrder | None, default: str) -> BatchCall | None:
    """The call for decode at `order`'s batch (the decode verdict's other_batch), by the rule above; None where the
    set has no such runs, no run is both fastest once warm and cheapest per new length, or it is the default."""
    if order is None or PHASE not in dynamic.phases(rs):
        return None
    pf = dynamic.phase_facts(rs, PHASE)
    best, mine = pf.steady_best, next((f for f in pf.measured if f.variant == default), None)
    if (best is None or pf.first_best is None or best.variant != pf.first_best.variant or best.variant == default
            or mine is None or None in (best.gpu_median_ms, mine.gpu_median_ms, best.first_overhead_ms)):
        return None
    if not (best.gpu_median_ms < mine.gpu_median_ms and best.steady_ms < mine.steady_ms):
        return None
    faster = sorted((f for f in pf.measured if f.gpu_median_ms is not None and f.gpu_median_ms < best.gpu_median_ms),
                    key=lambda f: f.gpu_median_ms)
    # a run whose first calls were another's cached plans stands for that run (dynamic.PhaseFacts.warm_cache)
    faster = [f for f in faster if not pf.cache_warmed(f.variant)]
    gf = GpuFaster(faster[0].variant, faster[0].gpu_median_ms, faster[0].first_overhead_ms) if faster else None
    return BatchCall(order.batch, order.at_batch, order.kv_lo, order.kv_hi, best.variant, best.gpu_median_ms,
                     best.steady_ms, best.first_overhead_ms, default, mine.gpu_median_ms, mine.steady_ms, gf,
                     _clock(rs, best.variant))
