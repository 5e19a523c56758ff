"""Review 2026-12-07-6 items 1-4 (packed documents): the answer names the call that needs no BlockMask where it shares
the first rank with a mask call (mask_cost.MASKLESS_WHERE_SHARED); the break-even is a range from every lead the set
holds and says how the build was timed; the older set's runner-up note charges the build once a step; the paired
first-screen cell is short with brackets one deep."""

from __future__ import annotations

import re

import pytest

from gen.analysis import advice, mask_cost, rules, verdict_point, verdicts
from gen.model import schema
from gen.report.pages import decision, methodology, scenario_first
from gen.report.words import decision as decision_words
from gen.report.words import mask_cost as mask_words
from gen.report.words import sum_clocks
from tests.conftest import H100_PAIRED, RESULTS, committed_set


@pytest.fixture(scope="module")
def loaded() -> dict:
    out = {}
    for p in schema.list_sets(RESULTS):
        ls = committed_set(p)
        if ls.measured:
            out[ls.name] = ls
    return out


def _needs_mask(ls, v, variant: str) -> bool:
    rec = verdicts.point_records(ls, v.scenario, v.mode).get(variant)
    return rec is not None and "block_mask_build_s" in (rec.facts or {})


def test_a_packed_answer_never_names_a_mask_call_sharing_its_first_rank_with_a_maskless_call(loaded):
    """On every committed set: the call What to call names for packed documents, where it builds a BlockMask, shares
    its first rank with no call that needs none (and is not a dense-mask SDPA call); and the scenario page marks the
    same call as the one What to call names."""
    checked = 0
    for ls in loaded.values():
        a = advice.advice(ls)
        for e in a.exceptions if a is not None else ():
            if e.mask != schema.Mask.DOCUMENT:
                continue
            v = verdicts.verdict(ls, e.scenario, e.mode)
            checked += 1
            if _needs_mask(ls, v, e.variant):
                first = [v.fastest.variant, *v.near] if e.variant in (v.fastest.variant, *v.near) else []
                maskless = [x for x in first if x != e.variant and not _needs_mask(ls, v, x)
                            and not advice.dense_mask_at(ls, v, x)]
                assert not maskless, (ls.name, e.variant, maskless)
            f = verdict_point.point_facts(ls, e.scenario, e.mode)
            assert f is not None and f.named == e.variant, (ls.name, f and f.named)
    assert checked >= 2


def test_paired_names_varlen_with_flex_the_alternative(loaded):
    ls = loaded[H100_PAIRED]
    a = advice.advice(ls)
    e = next(x for x in a.exceptions if x.scenario == "packed-documents")
    v = verdicts.verdict(ls, "packed-documents", "inference")
    assert v.fastest.variant == "flex" and "varlen" in v.near  # the rule's case: within noise as run
    assert (e.variant, e.alternative) == ("varlen", "flex")
    # the gain is varlen_attn's own over SDPA unpinned (15.72 / 1.286 ms)
    assert e.ratio == pytest.approx(12.23, abs=0.02)
    assert e.call_ms == pytest.approx(v.spread(v.row("varlen")).median)
    assert all(b.variant != "flex" for b in e.between)  # the alternative is worded as such, not as a call between
    # the scenario page rings the named call: varlen_attn, not the verdict's fastest
    f = scenario_first.facts(ls, "packed-documents")
    points = [p for p in f["points"] if p["named"]]
    assert [p["call"] for p in points] == ["varlen_attn (packed, cu_seqlens)"]


def test_the_h200_keeps_flex_named_with_the_every_batch_call_beside_it(loaded):
    """The H200 set: FlexAttention leads decidedly as run (1.100 against 1.307 ms): it stays named, and the cell opens
    with the call a batch packed anew asks for."""
    ls = loaded["nvidia-h200__torch-2.11.0"]
    e = next(x for x in advice.advice(ls).exceptions if x.scenario == "packed-documents")
    assert e.variant == "flex" and e.alternative is None
    row = next(r for r in decision.table_rows(ls) if r["workload"] == "Packed documents")
    # review 2026-12-07-7 item 1: the Call cell names both calls, the cell the break-even as the leads make it (the
    # set's leads: whole medians 40.1 and kernel sums 44.1 calls; "40" alone hid the range)
    assert row["call"] == "FlexAttention (compiled)"
    assert row["call_note"] == ("varlen_attn (packed, cu_seqlens) where each batch is packed anew and a step makes "
                                "fewer than 40 calls")
    # one number for one quantity: What to call counts a step's calls as the Call cell does (the break-even's low end)
    said = " ".join(decision_words.advice(advice.advice(ls)).lines)
    assert "with fewer than 40 such calls a step, call varlen_attn" in said
    assert row["condition"].startswith("FlexAttention 1.19× faster a call as run (1.100 ms against 1.307 ms)")
    assert "repaid after 40–44 calls with one layout" in row["condition"]
    # its as-run lead ran at clocks in its favour: the kernel sums beside it, past their clock gap (review 17 item 2)
    o = e.mask_orders
    assert (o.first, o.second) == ("flex", "varlen") and o.kernel_sum > 1
    left = rules.clock_left(o.kernel_sum, o.first_ks_mhz, o.second_ks_mhz)
    gap = sum_clocks.apart(o.first_ks_mhz, o.second_ks_mhz)
    assert (f"(1.100 ms against 1.307 ms), {o.kernel_sum:.2f}× by kernel sum ({left:.2f}× past its clock {gap} "
            f"higher, {o.first_ks_mhz:.0f} against {o.second_ks_mhz:.0f} MHz") in row["condition"]


def test_break_even_range_from_every_lead():
    """Item 2: the range over the whole medians, kernel sums and each round orientation, rounded as the data allows."""
    m = mask_cost.MaskCost("flex", 12.647, 1.1395, "varlen", 1.2856,
                           (("as run", 0.1461), ("kernel sum", 0.1229), ("forward rounds", 0.0415),
                            ("reversed rounds", 0.1589)))
    lo, hi = m.repay_range
    assert lo == pytest.approx(79.6, abs=0.1) and hi == pytest.approx(304.8, abs=0.5)
    assert mask_words.calls_range(m) == "roughly 80–300"
    behind = mask_cost.MaskCost("flex", 12.647, 1.1395, "varlen", 1.2856,
                                (("as run", 0.1461), ("forward rounds", -0.01)))
    assert behind.repay_range is None  # one measure puts it behind: no number of calls surely repays the build
    assert "not ahead of varlen_attn" in mask_words.repay(behind, schema.Mask.DOCUMENT)
    assert mask_words._rough(86.6) == "90" and mask_words._rough(1234) == "1,000" and mask_words._rough(7.2) == "7"


def test_paired_first_screen_cell_is_short_with_brackets_one_deep(loaded):
    """Item 4: under about 45 words, no bracket inside a bracket, no "for a step of one call"."""
    row = next(r for r in decision.table_rows(loaded[H100_PAIRED]) if r["workload"] == "Packed documents")
    cell = row["condition"]
    assert len(cell.split()) <= 48, cell  # 45, and the clocks in MHz review 2026-12-07-7 item 8 asked for
    depth = 0
    for ch in cell:
        depth += ch == "("
        depth -= ch == ")"
        assert depth <= 1, cell
    assert "for a step of one call" not in cell
    assert re.search(r"within noise of FlexAttention as run \(1\.286 ms against 1\.140 ms\)", cell)
    assert "BlockMask per layout, repaid after roughly 80–300 calls; at 16,384 tokens" in cell


def test_the_rule_is_on_the_methodology_rules_table():
    assert methodology.rules_view()["maskless_rule"] == mask_words.MASKLESS_RULE


def test_the_paired_what_to_call_says_how_the_build_was_timed(loaded):
    a = advice.advice(loaded[H100_PAIRED])
    line = next(x for x in decision_words.advice(a).lines if x.startswith("For packed documents"))
    assert "12.6 ms to build (one timing of an uncompiled create_block_mask)" in line  # 3 figures: 2026-12-07-8 #7
    assert "FlexAttention only where a step makes more than about 300 calls" in line  # the band's top
