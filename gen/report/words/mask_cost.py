"""What a call that needs a BlockMask pays at a new mask layout (gen.analysis.mask_cost), in words: after how many calls
with one layout the build is repaid against the fastest call that needs none, and, for packed documents, which call a
loop that packs every batch anew should make (review 2026-12-07-5 item 2)."""

from __future__ import annotations

from gen.model import schema
from gen.report.words.common import label, short_label, us

# packing as training does it: a new document layout every batch, so a new BlockMask every step
EVERY_BATCH = "a loop that packs each batch anew"


def _layout(mask: str | None) -> str:
    return "document layout" if mask == schema.Mask.DOCUMENT else "mask"


def mask_cost_line(m, mask: str | None, who: str = "Its") -> str | None:
    """The build against the maskless call; None where there is no build or no call that needs none to weigh it by.
    `who`: whose build, as the sentence opens ("Its", or a call's label with "'s")."""
    if m is None or m.other is None:
        return None
    build, other = us(m.build_ms), label(m.other)
    n = m.calls_to_repay
    if n is None:  # not faster than the call that needs no mask: nothing repays the build
        return (f"{who} BlockMask took {build} to build, and {other} needs none and is no slower ({us(m.other_ms)} a "
                f"call against {us(m.call_ms)}): call {short_label(m.other)} wherever the {_layout(mask)} changes.")
    text = (f"{who} BlockMask took {build} to build; {other}, which needs none, takes {us(m.other_ms)} a call against "
            f"{us(m.call_ms)}, so the build is repaid only where one {_layout(mask)} serves about {n:.0f} calls")
    if mask == schema.Mask.DOCUMENT:
        # one mask serves every call of a step with that layout (each layer's, forward and backward), so the
        # break-even counts a step's calls, not steps
        text += (f"; {EVERY_BATCH} builds it every step ({us(m.per_layout_ms)} against {us(m.other_ms)} for a step of "
                 f"one call; every layer's call that step shares the one build): with fewer than about {n:.0f} such "
                 f"calls a step, call {short_label(m.other)}")
    return text + "."


def new_layout_short(m, mask: str | None) -> str | None:
    """The first screen's cell: which call a new document layout every batch asks for, where the build reverses the
    order; None elsewhere."""
    if m is None or m.other is None or mask != schema.Mask.DOCUMENT or not m.reversed_per_layout:
        return None
    n = m.calls_to_repay
    under = f", under about {n:.0f} calls a step" if n is not None else ""
    return (f"a new layout every batch{under}: {short_label(m.other)} ({us(m.other_ms)} against "
            f"{us(m.per_layout_ms)} with the BlockMask build)")


def scenario_note(costs, fastest: str, runner_up: str | None, mask: str | None) -> str | None:
    """Under a packed-documents verdict's table: the BlockMask build of the fastest call (as What to call says it), or
    of the next call where the fastest needs none (its order stands, and a new layout every batch widens it)."""
    if mask != schema.Mask.DOCUMENT:
        return None
    mine = {m.variant: m for m in costs}
    if fastest in mine:
        return mask_cost_line(mine[fastest], mask, f"{label(fastest)}'s")
    m = mine.get(runner_up) if runner_up is not None else None
    if m is None or m.other != fastest:
        return None
    return (f"{label(m.variant)}, the next call, needs a BlockMask and {short_label(fastest)} none: its build took "
            f"{us(m.build_ms)}, so {EVERY_BATCH} pays {us(m.per_layout_ms)} a call against {us(m.other_ms)}; the "
            "order stands, wider.")
