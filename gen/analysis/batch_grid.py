"""Why a decode verdict's call may lose at a smaller batch, where the set holds the evidence: its main kernel's grid
at the verdict's point, traced, launched fewer thread blocks than the GPU has SMs, so the batch the dynamic-lengths runs
timed (dynamic.BatchOrder) under-fills the GPU further. FlashAttention-4 at decode: 64 blocks for 132 SMs at batch 8,
48.1 µs there and 45.6 µs at batch 1, an eighth of the cache read.

Takes: a decode verdict (gen.analysis.verdicts.Verdict, its other_batch set), the GPU's SM count and the verdict's
point. Gives `grids(v, sm_count, point) -> tuple[GridAt, ...]`, one per call of the other batch's order from the
verdict's first rank whose traced grid is under the SM count (a count, no tuned line). The grid at the smaller batch is
not traced: the words say what scaling it with the batch would give, as an inference. Numbers only:
gen.report.words.batch_grid words them.
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
    # one block per sequence and KV head (blocks == batch x KV heads at the point): no split over keys, so each
    # block's work is the same at either batch
    per_sequence_head: bool = False
    # the blocks a grid scaled with the batch would launch at the other batch (inferred); None where not whole
    other_blocks: int | None = None


def grids(v, sm_count: int | None, point=None) -> tuple[GridAt, ...]:
    """The first-rank calls of v.other_batch whose traced grid at the verdict's point (`point`, for its KV heads) is
    under `sm_count`, where the other batch is the smaller; () elsewhere."""
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
        n = int(t.main_blocks)
        per_head = point is not None and n == b.at_batch * point.kv_heads
        scaled = n * b.batch // b.at_batch if n * b.batch % b.at_batch == 0 else None
        out.append(GridAt(x, at_other[x], s.median, n, int(sm_count), per_head, scaled))
    return tuple(out)
