"""The batch-1 grid words are short sentences a kernel reader can follow: the time at each batch first, then the traced
grid (one block per sequence and KV head, where the count says so), then the inferred grid at the smaller batch and
what one wave means for the time. The old clause ran "and grids scaled with the batch launch 8", read first as a noun
phrase."""

from __future__ import annotations

import re

from gen.analysis import batch_grid, calls, verdicts
from gen.report.words.batch_grid import grid_clause
from tests.conftest import committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def test_one_block_per_sequence_and_kv_head_is_read_from_the_point():
    ls = committed_set(LEAD)
    v = verdicts.verdict(ls, "decode", "inference")
    p = calls.point_of(ls, "decode", "inference")
    for g in v.other_batch.grids:
        assert g.per_sequence_head == (g.blocks == p.batch * p.kv_heads)
        assert g.other_blocks * v.other_batch.at_batch == g.blocks * v.other_batch.batch
    # without the point the count is not read as one block per sequence and KV head
    assert not any(g.per_sequence_head for g in batch_grid.grids(v, ls.environment.sm_count))


def test_the_grid_words_are_short_sentences_in_order():
    ls = committed_set(LEAD)
    v = verdicts.verdict(ls, "decode", "inference")
    b = v.other_batch
    said = grid_clause(b)
    assert "scaled with the batch launch" not in said and "for 1/8 of the KV cache:" not in said
    parts = said.split(". ")
    assert len(parts) == 4 and all(len(x.split()) <= 30 for x in parts)
    g = b.grids[0]
    assert parts[1] == (f"At batch {b.at_batch} their kernels launched {g.blocks} blocks, one per sequence and KV "
                        f"head, on {g.sm_count} SMs")
    assert parts[2] == f"At batch {b.batch} they would launch {g.other_blocks}"
    assert parts[3].endswith(f"(inferred; no grid was traced at batch {b.batch})")
    assert said.count(":") <= 1 and not re.search(r"\([^)]*\(", said)
