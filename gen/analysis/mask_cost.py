"""What a call that needs a BlockMask pays at a new mask layout, against the fastest ranked call that needs none.

Packed documents as training packs them gives every batch a new document layout, so a FlexAttention call builds a new
BlockMask every step, where varlen_attn takes the layout as cu_seqlens and builds nothing (review 2026-12-07-5 item 2).
The verdict ranks calls by their steady time alone; this adds the build to one call and says after how many calls with
one layout the build is repaid.

Takes: a loaded set and a verdict (gen.analysis.verdicts). Gives `mask_costs(ls, v) -> tuple[MaskCost, ...]`, one per
ranked call that measured a block mask build at the verdict's point (SweepPoint.facts "block_mask_build_s"), and
`mask_cost(ls, v, variant, dense)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gen.analysis import tables, verdicts


@dataclass(frozen=True)
class MaskCost:
    """One call's BlockMask build beside its steady call, against the fastest ranked call that builds no mask.

    Times are ms, by the verdict's ranking time (its medians), so the break-even reads by the time the verdict ranks
    by. `other` None: no ranked call there builds no mask (nothing to weigh the build against)."""

    variant: str
    build_ms: float
    call_ms: float
    other: str | None = None
    other_ms: float | None = None

    @property
    def per_layout_ms(self) -> float:
        """One call at a new layout: the build and the call."""
        return self.build_ms + self.call_ms

    @property
    def lead_ms(self) -> float | None:
        """The call's lead a call over `other` (negative: behind it)."""
        return self.other_ms - self.call_ms if self.other_ms is not None else None

    @property
    def calls_to_repay(self) -> float | None:
        """How many calls with one layout repay one build: the build over the lead a call; None where the call is not
        faster than `other` at all (no number of calls repays it) or there is no `other`."""
        lead = self.lead_ms
        return self.build_ms / lead if lead is not None and lead > 0 else None

    @property
    def reversed_per_layout(self) -> bool:
        """A new layout every call reverses the order: the build and one call cost more than `other`'s call."""
        return self.other_ms is not None and self.per_layout_ms > self.other_ms


def _build_ms(rec) -> float | None:
    x = (rec.facts or {}).get("block_mask_build_s") if rec is not None else None
    return float(x) * 1e3 if x is not None else None


def mask_costs(ls: tables.LoadedSet, v: verdicts.Verdict, dense: Callable[[str], bool]) -> tuple[MaskCost, ...]:
    """Each ranked call with a block mask build at the verdict's point, against the fastest ranked call with none.

    A call given the mask as a dense boolean attn_mask (SDPA) builds a mask too, one whose cost no record holds: it is
    not counted as needing none. `dense(variant)` says which do (gen.analysis.advice.dense_mask_at, which reads this
    module: passed in, not imported)."""
    recs = verdicts.point_records(ls, v.scenario, v.mode)
    timed = [(t, s.median) for t in v.rows if (s := v.spread(t)) is not None and s.n and s.median]
    builds = {t.variant: b for t, _ in timed if (b := _build_ms(recs.get(t.variant))) is not None}
    if not builds:
        return ()
    free = sorted(((ms, t.variant) for t, ms in timed
                   if t.variant not in builds and not dense(t.variant)))
    other_ms, other = free[0] if free else (None, None)
    return tuple(MaskCost(t.variant, builds[t.variant], ms, other, other_ms) for t, ms in timed if t.variant in builds)


def mask_cost(ls: tables.LoadedSet, v: verdicts.Verdict, variant: str, dense: Callable[[str], bool]) -> MaskCost | None:
    return next((m for m in mask_costs(ls, v, dense) if m.variant == variant), None)
