"""A decode call's time at a smaller batch beside its traced grid (gen.analysis.batch_grid), in words: its time hardly
follows the batch where its grid under-fills the GPU, which the set shows at the verdict's batch and infers at the
smaller one."""

from __future__ import annotations

from gen.report.words.common import join_and, label, us


def _times(mss: list[float]) -> str:
    """"45.6 and 45.9 µs": the unit once where all read in the same one."""
    words = [us(ms) for ms in mss]
    if len({w.split(" ")[1] for w in words}) == 1:
        return f"{join_and(w.split(' ')[0] for w in words)} {words[0].split(' ')[1]}"
    return join_and(words)


def grid_clause(b, who: tuple[str, ...] = ()) -> str | None:
    """Short sentences, without the last full stop, for the calls of `who` (every under-filled call where empty) in
    b.grids (dynamic.BatchOrder): "At batch 1 they read 1/8 of the KV cache in 45.6 and 45.9 µs, against 48.1 and
    47.8 µs at batch 8. At batch 8 their kernels launched 64 blocks, one per sequence and KV head, on 132 SMs. At
    batch 1 they would launch 8. Either way that is one wave, so the time is one block's (inferred; no grid was traced
    at batch 1)"; None where none."""
    gs = [g for g in getattr(b, "grids", ()) if not who or g.variant in who]
    if not gs:
        return None
    one = len(gs) == 1
    they, read, launched = ("it", "reads", "its kernel") if one else ("they", "read", "their kernels")
    share = f"1/{b.at_batch // b.batch}" if b.at_batch % b.batch == 0 else f"{b.batch}/{b.at_batch}"
    blocks = sorted({g.blocks for g in gs})
    per_head = ", one per sequence and KV head," if all(g.per_sequence_head for g in gs) else ""
    text = (f"{join_and(label(g.variant) for g in gs)}: at batch {b.batch} {they} {read} {share} of the KV cache "
            f"in {_times([g.other_ms for g in gs])}, against {_times([g.own_ms for g in gs])} at batch {b.at_batch}. "
            f"At batch {b.at_batch} {launched} launched {join_and(f'{n:,}' for n in blocks)} blocks{per_head} on "
            f"{gs[0].sm_count} SMs")
    scaled = sorted({g.other_blocks for g in gs})
    if None not in scaled:
        text += (f". At batch {b.batch} {they} would launch {join_and(f'{n:,}' for n in scaled)}. Either way that is "
                 f"one wave, so the time is one block's (inferred; no grid was traced at batch {b.batch})")
    return text
