"""What a call that needs a BlockMask pays at a new mask layout, against the fastest ranked call that needs none.

Packed documents as training packs them gives every batch a new document layout, so a FlexAttention call builds a new
BlockMask every step, where varlen_attn takes the layout as cu_seqlens and builds nothing.
The verdict ranks calls by their steady time alone; this adds the build to one call and says after how many calls with
one layout the build is repaid.

Takes: a loaded set and a verdict (gen.analysis.verdicts). Gives `mask_costs(ls, v) -> tuple[MaskCost, ...]`, one per
ranked call that measured a block mask build at the verdict's point (SweepPoint.facts "block_mask_build_s"), and
`mask_cost(ls, v, variant, dense)`, and `maskless_first(ls, v, dense)`: the call What to call names in place of the
fastest by the rule MASKLESS_WHERE_SHARED.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gen.analysis import leads, tables, verdicts
from gen.model import schema

# The rule, named once (the paired set named FlexAttention for packed documents while its
# own break-even said varlen_attn): a loop that packs each batch anew builds one BlockMask a step, shared by every call
# of that step (every layer's, as FlexAttention is used: one BlockMask a batch), so the break-even (calls_to_repay,
# repay_range) counts a step's calls, in every set. Where a packed-documents verdict's
# first rank is shared as run (Verdict.near) by a call that builds a BlockMask and a call that needs none, the mask
# call's lead a call is within noise, so the answer names the one that needs none, the mask call past the break-even;
# where the mask call leads decidedly as run, it stays named, the call that needs none beside it below the break-even.
MASKLESS_WHERE_SHARED = "maskless_where_shared"


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
    # the call's lead a call over `other` by each measure the set holds (ms; negative: behind): the whole medians,
    # the kernel sums, the forward-round and the reversed-round medians, where recorded; the break-even is as
    # uncertain as the lead, so the words give the range these make
    leads_ms: tuple[tuple[str, float], ...] = ()
    # the two kernel sums' window clocks (the call's, `other`'s), where leads_ms holds the kernel sums alone: the two
    # calls were timed apart (leads.Orders.timed_apart), so their as-run and round-orientation leads were taken in
    # different conditions and decide nothing; None elsewhere
    sums_only_mhz: tuple[float | None, float | None] | None = None
    # the two kernel sums themselves (the call's, `other`'s, ms) where sums_only_mhz is set: a sentence that prints
    # the two times beside the lead prints these, so the lead is their difference; None elsewhere
    sums_only_ms: tuple[float, float] | None = None

    @property
    def pair_ms(self) -> tuple[float, float | None]:
        """The call's time and `other`'s by the one measure the lead is read by: the kernel sums where the two were
        timed apart, the ranking medians elsewhere."""
        return self.sums_only_ms if self.sums_only_ms is not None else (self.call_ms, self.other_ms)

    @property
    def per_layout_ms(self) -> float:
        """One call at a new layout: the build and the call."""
        return self.build_ms + self.pair_ms[0]

    @property
    def lead_ms(self) -> float | None:
        """The call's lead a call over `other` (negative: behind it), by pair_ms's measure."""
        mine, theirs = self.pair_ms
        return theirs - mine if theirs is not None else None

    @property
    def calls_to_repay(self) -> float | None:
        """How many calls with one layout repay one build: the build over the lead a call; None where the call is not
        faster than `other` at all (no number of calls repays it) or there is no `other`."""
        lead = self.lead_ms
        return self.build_ms / lead if lead is not None and lead > 0 else None

    @property
    def repay_range(self) -> tuple[float, float] | None:
        """The fewest and the most calls with one layout that repay one build, over `leads_ms` (each measure's lead);
        None where any measure puts the call behind or level (then no number of calls surely repays it)."""
        ns = [self.build_ms / x for _, x in self.leads_ms]
        if not ns or any(x <= 0 for _, x in self.leads_ms):
            return None
        return min(ns), max(ns)

    @property
    def reversed_per_layout(self) -> bool:
        """A new layout every call reverses the order: the build and one call cost more than `other`'s call."""
        return self.other_ms is not None and self.per_layout_ms > self.pair_ms[1]


def _build_ms(rec) -> float | None:
    x = (rec.facts or {}).get("block_mask_build_s") if rec is not None else None
    return float(x) * 1e3 if x is not None else None


def _leads(o: leads.Orders | None) -> tuple[tuple[str, float], ...]:
    """o.second's time less o.first's by each measure o holds (o: the mask call first)."""
    if o is None:
        return ()
    (fa, ra), (fb, rb) = o.first_oriented_ms, o.second_oriented_ms
    pairs = (("kernel sum", o.first_ks_ms, o.second_ks_ms), ("forward rounds", fa, fb), ("reversed rounds", ra, rb))
    return tuple((by, b - a) for by, a, b in pairs if a is not None and b is not None)


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

    def lead(t, ms) -> tuple[tuple, tuple | None, tuple | None]:
        if other is None:
            return (), None, None
        o = verdicts.orders(t, v.row(other), v.basis)
        sums = [x for x in _leads(o) if x[0] == "kernel sum"]
        if o.timed_apart and sums:  # timed apart: only the kernel sums may stand for the lead
            return tuple(sums), (o.first_ks_mhz, o.second_ks_mhz), (o.first_ks_ms, o.second_ks_ms)
        return (("as run", other_ms - ms), *_leads(o)), None, None
    return tuple(MaskCost(t.variant, builds[t.variant], ms, other, other_ms, *lead(t, ms))
                 for t, ms in timed if t.variant in builds)


def mask_cost(ls: tables.LoadedSet, v: verdicts.Verdict, variant: str, dense: Callable[[str], bool]) -> MaskCost | None:
    return next((m for m in mask_costs(ls, v, dense) if m.variant == variant), None)


def maskless_first(ls: tables.LoadedSet, v: verdicts.Verdict, dense: Callable[[str], bool]) -> str | None:
    """MASKLESS_WHERE_SHARED: the call that needs no mask to name in place of v's fastest, where v is packed documents,
    its fastest builds a BlockMask and the two share the first rank as run (v.near: the fastest one that needs none);
    None elsewhere (the fastest stays named)."""
    p = verdicts.point_of(ls, v.scenario, v.mode)
    if p is None or p.mask != schema.Mask.DOCUMENT:
        return None
    m = mask_cost(ls, v, v.fastest.variant, dense)
    if m is None or m.other is None or m.other not in v.near:
        return None
    return m.other
