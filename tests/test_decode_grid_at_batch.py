"""A decode call that loses at the dynamic-lengths runs' smaller batch gives the evidence the set holds for why: its
time there beside its time at the verdict's batch, and its traced grid at the verdict's point against the GPU's SMs,
with what a grid scaled with the batch would launch said as an inference (no grid was traced at batch 1). Said only
where the traced grid is under the SM count."""

from __future__ import annotations

import gzip
import json
import math

import pytest

from gen.analysis import batch_grid, verdicts
from gen.report.words import verdicts as verdict_words
from gen.report.words.batch_grid import grid_clause
from tests.conftest import RESULTS, committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def _traced_blocks(variant: str) -> int:
    path = RESULTS / LEAD / "traces" / f"decode__{variant}__inference__q1_k4096.json.gz"
    events = json.loads(gzip.open(path).read())["traceEvents"]
    main = max((e for e in events if e.get("cat") == "kernel"), key=lambda e: e["dur"])
    return math.prod(main["args"]["grid"])


def test_the_grid_evidence_is_the_traced_grid_and_both_batches_times():
    ls = committed_set(LEAD)
    v = verdicts.verdict(ls, "decode", "inference")
    gs = {g.variant: g for g in v.other_batch.grids}
    assert set(gs) == {"fa4", "flex_flash"}  # SDPA's kernels split over keys: 256 blocks, no under-filled grid
    for x, g in gs.items():
        assert g.blocks == _traced_blocks(x) == 64 and g.sm_count == ls.environment.sm_count == 132
        assert g.own_ms == pytest.approx(v.spread(v.row(x)).median)
        assert g.other_ms == pytest.approx(dict(v.other_batch.order)[x])
    assert gs["fa4"].own_ms * 1e3 == pytest.approx(48.1, abs=0.05)
    assert gs["fa4"].other_ms * 1e3 == pytest.approx(45.6, abs=0.05)


def test_the_decode_verdict_states_the_grid_beside_the_batch_order():
    v = verdicts.verdict(committed_set(LEAD), "decode", "inference")
    said = verdict_words.batch_sentence(v.other_batch)
    assert ("FlashAttention-4 (flash_attn.cute) and FlexAttention (FLASH backend): at batch 1 they read 1/8 of the KV "
            "cache in 45.6 and 45.9 µs, against 48.1 and 47.8 µs at batch 8. At batch 8 their kernels launched 64 "
            "blocks, one per sequence and KV head, on 132 SMs. At batch 1 they would launch 8. Either way that is one "
            "wave, so the time is one block's (inferred; no grid was traced at batch 1)") in said
    one = grid_clause(v.other_batch, ("fa4",))
    assert one.startswith("FlashAttention-4 (flash_attn.cute): at batch 1 it reads 1/8 of the KV cache in 45.6 µs, "
                          "against 48.1 µs at batch 8. At batch 8 its kernel launched 64 blocks")


def test_no_grid_is_said_where_it_fills_the_gpu():
    v = verdicts.verdict(committed_set(LEAD), "decode", "inference")
    assert batch_grid.grids(v, 64) == ()  # 64 blocks on a GPU of 64 SMs: not under-filled
    assert {g.variant for g in batch_grid.grids(v, 300)} == {"fa4", "flex_flash"}
