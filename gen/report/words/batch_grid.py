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
    """One clause for the calls of `who` (every under-filled call where empty) in b.grids (dynamic.BatchOrder):
    "FlashAttention-4 (flash_attn.cute) takes 45.6 µs at batch 1 against 48.1 µs at batch 8, for 1/8 of the KV cache:
    its grid at batch 8 launched 64 blocks for 132 SMs, and one scaled with the batch launches 8 at batch 1 (inferred;
    no grid was traced at batch 1)"; None where none."""
    gs = [g for g in getattr(b, "grids", ()) if not who or g.variant in who]
    if not gs:
        return None
    one = len(gs) == 1
    share = f"1/{b.at_batch // b.batch}" if b.at_batch % b.batch == 0 else f"{b.batch}/{b.at_batch}"
    blocks = sorted({g.blocks for g in gs})
    launched = join_and(f"{n:,}" for n in blocks)
    scaled = [n * b.batch // b.at_batch for n in blocks if n * b.batch % b.at_batch == 0]
    text = (f"{join_and(label(g.variant) for g in gs)} {'takes' if one else 'take'} "
            f"{_times([g.other_ms for g in gs])} at batch {b.batch} against "
            f"{_times([g.own_ms for g in gs])} at batch {b.at_batch}, for {share} of the KV cache: "
            f"{'its grid' if one else 'their grids'} at batch {b.at_batch} launched {launched} blocks for "
            f"{gs[0].sm_count} SMs")
    if scaled and len(scaled) == len(blocks):
        text += (f", and {'one' if one else 'grids'} scaled with the batch {'launches' if one else 'launch'} "
                 f"{join_and(f'{n:,}' for n in scaled)} at batch {b.batch} (inferred; no grid was traced at batch "
                 f"{b.batch})")
    return text
