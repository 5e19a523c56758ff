"""Why a decode verdict's call may lose at a smaller batch, where the set holds the evidence: its main kernel's grid
at the verdict's point, traced, launched fewer thread blocks than the GPU has SMs, so the batch the dynamic-lengths runs
timed (dynamic.BatchOrder) under-fills the GPU further. FlashAttention-4 at decode: 64 blocks for 132 SMs at batch 8,
48.1 µs there and 45.6 µs at batch 1, an eighth of the cache read.

Takes: a decode verdict (gen.analysis.verdicts.Verdict, its other_batch set) and the GPU's SM count. Gives
`grids(v, sm_count) -> tuple[GridAt, ...]`, one per call of the other batch's order from the verdict's first rank whose
traced grid is under the SM count (a count, no tuned line). The grid at the smaller batch is not traced: the words
say what scaling it with the batch would give, as an inference. Numbers only: gen.report.words.verdicts words them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GridAt:
    variant: str
    other_ms: float  # its GPU-only median at the other batch (BatchOrder.order), over its lengths
    own_ms: float  # its ranking median at the verdict's batch
    blocks: int  # its main kernel's thread blocks at the verdict's point (calls.Timed.main_blocks, traced)
    sm_count: int


def grids(v, sm_count: int | None) -> tuple[GridAt, ...]:
    """The first-rank calls of v.other_batch whose traced grid at the verdict's point is under `sm_count`, where the
    other batch is the smaller; () elsewhere."""
    b = v.other_batch
    if b is None or not sm_count or b.batch >= b.at_batch:
        return ()
    at_other = dict(b.order)
    out = []
    for x in b.named:
        t = v.row(x)
        s = v.spread(t) if t is not None else None
        if s is None or not s.median or x not in at_other or not t.main_blocks or t.main_blocks >= sm_count:
            continue
        out.append(GridAt(x, at_other[x], s.median, int(t.main_blocks), int(sm_count)))
    return tuple(out)
