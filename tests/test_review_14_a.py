"""Review 2026-12-07-5 (review 14) items 1, 2 and 5: the first row names no workload where its call is decidedly
slower than SDPA with no backend pinned; a call that needs a BlockMask for packed documents says what one new layout
costs and which call to make when the layout changes every batch; a set that did not measure new lengths cites the
sibling set (same GPU model and PyTorch) that did."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.analysis import advice, capture_gaps, mask_cost, verdicts
from gen.analysis.values import variant_role
from gen.model import schema
from gen.report import site, units
from gen.report.pages import decision, scenario_first
from gen.report.words import decision as decision_words
from gen.report.words import first_screen
from gen.report.words import lengths_beside as lengths_words
from gen.report.words import mask_cost as mask_words
from gen.report.words.common import label, one_timing
from tests.conftest import H100_PAIRED, RESULTS, committed_set

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def _measured() -> list[Path]:
    return [p for p in schema.list_sets(RESULTS)]


@pytest.fixture(scope="module")
def loaded() -> dict:
    out = {}
    for p in _measured():
        ls = committed_set(p)
        if ls.measured:
            out[ls.name] = ls
    return out


@pytest.fixture(scope="module")
def h100(loaded):
    return loaded[H100]


def test_first_row_names_no_workload_where_its_call_is_decidedly_slower_than_sdpa_unpinned(loaded):
    """Item 1, on every committed set: a workload of the first (default) row is none where SDPA unpinned decidedly
    leads the row's call; such a workload has its own row keeping SDPA unpinned."""
    auto = variant_role("automatic")
    checked = 0
    for ls in loaded.values():
        a = advice.advice(ls)
        if a is None:
            continue
        told = {(e.scenario, str(e.mode)) for e in a.exceptions}
        for v, _ in decision._ranked(ls):
            if (v.scenario, str(v.mode)) in told or a.default == auto:
                continue
            d, u = v.row(a.default), v.row(auto)
            checked += 1
            assert u is None or d is None or not verdicts.leads(u, d, v.basis), (ls.name, v.scenario, v.mode)
    assert checked  # the older H100 set's first row (FA4) is read


def test_the_article_shape_keeps_sdpa_unpinned_on_the_older_h100_set(h100):
    """Item 1's case: FA4 1.18x slower at the article's shape (59.0 against 69.6 us as run): its own row keeps SDPA
    unpinned, with the ratio; the first row neither names it nor reads a gain under 1."""
    a = advice.advice(h100)
    keep = [e for e in a.exceptions if e.keeps_default]
    assert [(e.scenario, str(e.mode), e.variant) for e in keep] == [("article", "inference", "sdpa_auto")]
    assert keep[0].ratio == pytest.approx(1.18, abs=0.01)
    rows = decision.table_rows(h100)
    assert "article" not in rows[0]["workload"]
    lo = float(rows[0]["gain"].split("–")[0].rstrip("×*"))
    assert lo >= 1.0
    own = next(r for r in rows if r["variant"] == "sdpa_auto")
    assert own["condition"].startswith(first_screen.keep_default("FlashAttention-4 (flash_attn.cute)", 1.18, "as run"))


def test_keep_default_words():
    assert first_screen.keep_default("FA4", 1.183, "as run") == "keep the default: FA4 1.18× slower as run"
    assert first_screen.keep_default("FA4", 1.22, "kernel sum") == "keep the default: FA4 1.22× slower by kernel sum"


# item 2: the BlockMask build against the call that needs none

def test_mask_cost_break_even_arithmetic():
    m = mask_cost.MaskCost("flex", build_ms=12.647, call_ms=1.1395, other="varlen", other_ms=1.2856)
    assert m.calls_to_repay == pytest.approx(12.647 / (1.2856 - 1.1395), rel=1e-9)
    assert m.per_layout_ms == pytest.approx(13.7865) and m.reversed_per_layout
    slower = mask_cost.MaskCost("flex", build_ms=5.0, call_ms=2.0, other="varlen", other_ms=1.5)
    assert slower.calls_to_repay is None  # not faster at all: no number of calls repays the build
    line = mask_words.mask_cost_line(slower, schema.Mask.DOCUMENT)
    assert "Call varlen_attn wherever the document layout changes" in line
    assert mask_cost.MaskCost("flex", 1.0, 1.0).calls_to_repay is None  # nothing to weigh it by
    assert mask_words.mask_cost_line(mask_cost.MaskCost("flex", 1.0, 1.0), schema.Mask.DOCUMENT) is None


@pytest.fixture(scope="module")
def paired(loaded):
    return loaded[H100_PAIRED]


def test_paired_packed_documents_says_the_break_even_and_the_call_for_a_new_layout_every_batch(paired):
    """Paired set: FlexAttention's 12.6 ms BlockMask against varlen_attn's 0.146 ms a call behind it (as run). Since
    review 2026-12-07-6 items 1 and 2 What to call names varlen_attn (the two share the first rank) and gives the
    break-even as the range the set's leads make (roughly 80-300 calls), FlexAttention the alternative."""
    a = advice.advice(paired)
    e = next(x for x in a.exceptions if x.scenario == "packed-documents")
    assert (e.variant, e.alternative) == ("varlen", "flex")
    m = e.mask_cost
    assert (m.variant, m.other) == ("flex", "varlen")
    v = verdicts.verdict(paired, "packed-documents", "inference")
    assert m.call_ms == pytest.approx(v.spread(v.row("flex")).median)  # the verdict's ranking time
    assert m.other_ms == pytest.approx(v.spread(v.row("varlen")).median)
    assert m.build_ms == pytest.approx(12.647, abs=0.01) and m.calls_to_repay == pytest.approx(86.6, abs=1.0)
    assert m.reversed_per_layout
    lo, hi = m.repay_range
    assert lo == pytest.approx(80, abs=3) and hi == pytest.approx(305, abs=10)
    line = next(x for x in decision_words.advice(a).lines if x.startswith("For packed documents"))
    assert line.startswith("For packed documents, use varlen_attn (packed, cu_seqlens)")
    assert "repays one build, timed once, only after roughly 80–300 calls with one document layout" in line
    assert "about 87" not in line and mask_words.BUILD_TIMED in line
    row = next(r for r in decision.table_rows(paired) if r["workload"] == "Packed documents")
    assert row["variant"] == "varlen"
    assert mask_words.alternative_short(m, e.mask_orders, e.mask) in row["condition"]


def test_every_document_mask_exception_that_a_new_layout_reverses_names_the_maskless_call(loaded):
    """On every committed set: where What to call names a call that builds a BlockMask for packed documents and the
    build with one call costs more than the maskless call, the first screen's row names that call for a batch packed
    anew, beside the named call (review 2026-12-07-6 item 1)."""
    for ls in loaded.values():
        a = advice.advice(ls)
        rows = {r["workload"]: r for r in decision.table_rows(ls)} if a is not None else {}
        for e in a.exceptions if a is not None else ():
            m = e.mask_cost
            if (m is None or m.other is None or e.mask != schema.Mask.DOCUMENT or not m.reversed_per_layout
                    or e.alternative is not None):
                continue
            row = next(r for w, r in rows.items() if w.lower().startswith("packed"))
            # since review 2026-12-07-7 item 1 the Call cell names the call a batch packed anew asks for
            # and, as What to call, only below the break-even: a step's calls share one build (review 17 item 1)
            n = mask_words.fewer_than(m)
            assert row["call_note"] == f"{label(m.other)} where each batch is packed anew" + (
                f" and a step makes fewer than {n} calls" if n is not None else ""), (ls.name, row)
            # one timing of the build, to three figures (review 2026-12-07-8 item 7)
            assert f"but its BlockMask takes {one_timing(m.build_ms)} per layout" in row["condition"], (ls.name, row)


def test_the_older_sets_packed_page_counts_the_runner_ups_blockmask(loaded):
    """Older H100 set: FA4 needs no mask, FlexAttention (FLASH) next needs one; the note says the build is paid once a
    step on top of each call, so FA4's lead only grows (review 2026-12-07-6 item 3: no longer "9.773 ms a call")."""
    f = scenario_first.facts(loaded[H100], "packed-documents")
    notes = [n for r in f["rows"] for n in r["notes"]]
    said = [n for n in notes if "BlockMask" in n]
    assert len(said) == 1
    assert said[0].startswith("FlexAttention (FLASH backend), the next call, is slower and needs a BlockMask besides")
    assert "pays it once a step, on top of" in said[0] and said[0].endswith("FlashAttention-4's lead only grows.")
    assert "9.773 ms" not in said[0] and "order stands" not in said[0]


# item 5: a set that did not measure new lengths cites its sibling that did

def test_the_paired_set_cites_its_siblings_new_length_cost(loaded, paired, h100):
    sets = list(loaded.values())
    b = units.lengths_beside(sets, paired)
    assert b is not None and b.name == H100
    own = advice.advice(h100).lengths  # as the sibling's own page gives it
    assert [p.phase for p in b.phases] == [p.phase for p in own.phases]
    assert [p.first_extra_ms for p in b.phases] == pytest.approx([p.first_extra_ms for p in own.phases], rel=1e-9)
    assert {p.phase: p.first_extra_ms for p in b.phases} == pytest.approx({"prefill": 36.71, "decode": 56.37}, abs=0.01)
    line = decision_words.lengths_line(advice.advice(paired), b)
    assert "this set did not measure what that costs" in line and f"({H100})" in line
    assert "36.714 ms at a new prompt length" in line and "56.375 ms at a decode step" in line
    # the advice to pin flash carries flash's warm cost against cuDNN's (review 15 item 8)
    assert lengths_words.PIN_FLASH in line and lengths_words.BUCKET in line
    assert lengths_words.flash_trade(b) in line and "247.4 µs against SDPA cuDNN's 124.1 µs" in line
    # a set with no such sibling keeps the advice to measure
    alone = next(ls for ls in sets if ls.name.startswith("nvidia-h200__torch"))
    assert units.lengths_beside(sets, alone) is None


def test_siblings_are_same_gpu_and_torch_and_in_the_own_parts_key(loaded, paired):
    sets = list(loaded.values())
    sib = capture_gaps.siblings(sets, paired)
    assert [s.name for s in sib] == [H100]
    env = paired.environment
    assert all((s.environment.gpu_name, s.environment.torch) == (env.gpu_name, env.torch) for s in sib)
    ctx = site.Context(sets)
    plan = units._Plan("code", {s.name: f"key-{s.name}" for s in sets})
    assert H100 in units._reads(ctx, plan, paired, "own")  # a sibling's change rebuilds the page citing it
