"""A decode answer that runs cuDNN holds at a fixed KV length (the decode scenarios preallocate the cache); a cache
that grows a token a step is a new shape for cuDNN every step. The pages that name such a call say so, with what the
dynamic-lengths runs measured (this set's, else a set of the same GPU model and PyTorch) and what to call there."""

from __future__ import annotations

import pytest

from gen.analysis import growing_cache, length_cost, verdict_point
from gen.report import units
from gen.report.pages import decision, scenario_first
from gen.report.words import growing_cache as words
from tests.conftest import H100_PAIRED, RESULTS, bracket_depth, committed_set

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def sets() -> list:
    return [committed_set(p) for p in sorted(RESULTS.iterdir()) if (p / "result.json").is_file()]


def _set(sets, name):
    return next(s for s in sets if s.name == name)


def _fact(sets, name, scenario="decode"):
    ls = _set(sets, name)
    f = verdict_point.point_facts(ls, scenario, "inference")
    return growing_cache.growing(ls, f, units.lengths_beside(sets, ls))


def test_the_paired_decode_answer_cites_its_siblings_cost(sets):
    g = _fact(sets, H100_PAIRED)
    assert g.calls == ("sdpa_auto",) and not g.loop_only and not g.own and g.source == OLDER
    # the older set's decode runs: 56.375 ms a new length for SDPA cuDNN, 45.4 µs for SDPA flash, batch 1
    assert g.cudnn_ms == pytest.approx(56.375, abs=0.001) and g.instead == "sdpa_flash"
    assert g.instead_ms == pytest.approx(0.0454, abs=0.0001) and g.batch == 1
    # flash's warm call against unpinned SDPA on cuDNN's kernels, faster warm than pinned cuDNN: about 12,000 calls
    assert g.against == "sdpa_auto" and g.calls_below == pytest.approx(12_000, rel=0.05)


def test_the_older_decode_page_names_the_eager_loops_call_only(sets):
    g = _fact(sets, OLDER)
    assert g.loop_only and g.calls == ("sdpa_auto",) and g.own  # What to call names FA4, the loop SDPA on cuDNN


def test_the_h200_has_no_measurement_and_says_so(sets):
    g = _fact(sets, H200)
    assert g is not None and g.source is None
    assert words.note(g).endswith("whose cost no set of this GPU model and PyTorch measured.")
    assert words.argument(g) is None and words.clause(g) is None


def test_a_prefill_answer_gets_no_note(sets):
    ls = _set(sets, H100_PAIRED)
    f = verdict_point.point_facts(ls, "gqa-prefill", "inference")
    assert growing_cache.growing(ls, f, units.lengths_beside(sets, ls)) is None


def test_the_paired_decode_top_block_says_it_in_one_sentence(sets):
    ls = _set(sets, H100_PAIRED)
    row = scenario_first.facts(ls, "decode", units.lengths_beside(sets, ls))["rows"][0]
    note = next(x for x in row["notes"] if "fixed KV length" in x)
    assert note == ("SDPA (backend not pinned) runs cuDNN here and holds at a fixed KV length, as timed (a "
                    "preallocated cache): with a cache that grows a token a step, every step is a new shape for cuDNN, "
                    "56.375 ms a step for SDPA cuDNN against 45.4 µs for SDPA flash on NVIDIA H100 80GB HBM3 · "
                    "PyTorch 2.11.0 (batch 1), so call SDPA flash there.")
    assert note.count(". ") == 0 and bracket_depth(note) == 1
    fold = row["folds"][0]["text"]  # the argument folds away under it
    assert "56.375 ms more than its second" in fold and "fewer than about 12,000 times" in fold


def test_the_set_pages_row_links_decode_to_the_growing_cache(sets):
    ls = _set(sets, H100_PAIRED)
    row = decision.table_rows(ls, units.lengths_beside(sets, ls))[0]
    assert "decode's answer holds at a fixed KV length (with a growing cache, call SDPA flash)" in row["condition"]
    assert "costs SDPA cuDNN 56.375 ms a step, against 45.4 µs for SDPA flash" in row["detail"]


def test_the_homes_eager_loop_advice_for_decode_is_qualified(sets):
    ls = _set(sets, OLDER)
    row = decision.table_rows(ls, units.lengths_beside(sets, ls))[0]
    assert "in an eager loop call SDPA for" in row["condition"]
    # in the row's detail, beside the loop's figures: the visible cell has no line to spare at 390 px
    assert ("in an eager loop call SDPA, 2.80× faster; decode's eager-loop answer holds at a fixed KV length: a cache "
            "that grows a token a step costs SDPA cuDNN 56.375 ms a step, against 45.4 µs for SDPA flash, the call "
            "there (this set's dynamic-lengths runs, batch 1)") in row["detail"]


def test_the_own_set_is_read_before_a_sibling(sets):
    ls = _set(sets, OLDER)
    assert units.lengths_beside(sets, ls) is None and length_cost.beside(ls, "").best  # it measured its own
