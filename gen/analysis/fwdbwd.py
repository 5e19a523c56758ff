"""A training step's forward and backward, timed apart (schema 4's `fwd_ms` and `bwd_ms`), as numbers.

Takes: a ResultSet. Gives: `split(timing)` (the medians of one call's forward and backward, or why there
are none), `run_rows(rs, scenario)` (one row per training run of a scenario's profiled runs: the set
page's table) and `point_rows(rs, scenario)` (one row per training sweep point: a scenario page's table),
each row with the step's GPU-only median beside its two parts. A set captured before the split (schema 3
and older) holds none: its rows say so (`recorded` False, `reason` None). Numbers only.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from gen.model import schema
from gen.model.variants import VARIANTS


@dataclass(frozen=True)
class Split:
    fwd_ms: float | None
    bwd_ms: float | None
    fwd_n: int
    bwd_n: int
    method: str | None  # how the parts were timed (a GpuOnlyMethod, or "eager" on a CPU)
    reason: str | None  # why the capture has no split for this call (None: it recorded one, or predates it)

    @property
    def recorded(self) -> bool:
        return self.fwd_ms is not None and self.bwd_ms is not None

    @property
    def bwd_share(self) -> float | None:
        """The backward's share of forward plus backward (0-1)."""
        if not self.recorded or self.fwd_ms + self.bwd_ms <= 0:
            return None
        return self.bwd_ms / (self.fwd_ms + self.bwd_ms)


def split(timing: schema.Timing) -> Split:
    fwd, bwd = list(timing.fwd_ms), list(timing.bwd_ms)
    return Split(statistics.median(fwd) if fwd else None, statistics.median(bwd) if bwd else None,
                 len(fwd), len(bwd), timing.fwd_bwd_method, timing.fwd_bwd_reason)


def _step_ms(timing: schema.Timing) -> float | None:
    return statistics.median(timing.gpu_only_ms) if timing.gpu_only_ms else None


def _order(variant: str) -> int:
    names = list(VARIANTS)
    return names.index(variant) if variant in names else len(names)


def _row(variant: str, status: str, reason: str | None, timing: schema.Timing, point: schema.Point | None) -> dict:
    s = split(timing)
    return dict(variant=variant, status=status, status_reason=reason, point=point, order=_order(variant),
                fwd_ms=s.fwd_ms, bwd_ms=s.bwd_ms, fwd_n=s.fwd_n, bwd_n=s.bwd_n, method=s.method,
                reason=s.reason, recorded=s.recorded, bwd_share=s.bwd_share, step_ms=_step_ms(timing),
                parts_ms=(s.fwd_ms + s.bwd_ms) if s.recorded else None)


def run_rows(rs: schema.ResultSet, scenario: str = "article") -> list[dict]:
    """One row per training run of `scenario` (the set's profiled runs), in declared variant order."""
    rows = [_row(r.variant, r.status, r.reason, r.timing, r.point) for r in rs.runs
            if r.mode == schema.Mode.TRAIN and r.scenario == scenario]
    return sorted(rows, key=lambda r: r["order"])


def point_rows(rs: schema.ResultSet, scenario: str) -> list[dict]:
    """One row per training sweep point of `scenario`, by length then declared variant order."""
    rows = [_row(p.variant, p.status, p.reason, p.timing, p.point) for p in rs.sweep
            if p.mode == schema.Mode.TRAIN and p.scenario == scenario]
    return sorted(rows, key=lambda r: (r["point"].kv_len if r["point"] else 0, r["order"]))


def any_recorded(rows: list[dict]) -> bool:
    return any(r["recorded"] for r in rows)
