"""Review 22 (docs/notes/review-2026-12-07-13.md): its Part 1 residues and new findings, each rule with a test that
fails if it is broken. Numbers are read from the committed sets, with tolerances; the pages are those gen build makes
of results/ (conftest.results_docs)."""

from __future__ import annotations

import re

import pytest

from gen.analysis import advice, kernel_rules, verdict_point
from gen.model import schema
from gen.report.words import kernels as kernel_words
from gen.report.words import mask_cost as mask_words
from gen.report.words.sum_clocks import clock_against
from tests.test_review_20_l import _prose

PAIRED = "nvidia-h100-80gb-hbm3__torch-2.11.0__paired"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def prose(results_docs) -> dict[str, str]:
    return {p.relative_to(results_docs).as_posix(): _prose(p.read_text(encoding="utf-8"))
            for p in sorted((results_docs / "generated").rglob("*.md"))}


# --------------------------------------------------------------------------- item 1: a clock gap's percent is true


def test_a_clock_gap_is_said_of_the_higher_clock():
    assert clock_against(1789.6, 1681.1, "A's", "B's") == "A's clock 6.5% higher"  # 1789.6 / 1681.1 - 1
    assert clock_against(1681.1, 1789.6, "A's", "B's") == "B's clock 6.5% higher"  # not "6.5% lower": 6.1%
    assert clock_against(1755, 1965, "A's", "B's", "12") == "B's clock 12% higher"


# the leader's clock first in the bracket, the named side the other's: "FlashAttention-4's clock 12% higher (1755
# against 1965 MHz"
_HIGHER = re.compile(r"(\S+)'s? clock (\d+(?:\.\d)?)% higher[ ,(]+(\d{3,4}) against (\d{3,4}) MHz")


def test_no_page_gives_a_clock_gap_as_the_lower_clocks_shortfall(prose):
    seen = 0
    for path, text in prose.items():
        assert not re.search(r"\d% lower clock", text), path
        assert not re.search(r"\b(at|against) an? \d+(\.\d+)?% higher clock", text), path  # whose, by name
        for _who, pct, a, b in _HIGHER.findall(text):
            seen += 1
            hi, lo = max(float(a), float(b)), min(float(a), float(b))
            assert abs(float(pct) - (hi / lo - 1) * 100) <= (0.1 if "." in pct else 0.6), (path, pct, a, b)
    assert seen >= 3


# --------------------------------------------------------------------------- item 2: one rule for the build


def test_both_sets_word_the_per_step_build_alike(prose):
    for name in (PAIRED, H200):
        page = prose[f"generated/sets/{name}/scenarios/packed-documents.md"]
        assert "builds it every step, once for all of that step's calls (every layer's shares it): with fewer than " \
               in page, name
        assert "paid every step" not in page and "one layout serves that many" not in page, name
    paired = prose[f"generated/sets/{PAIRED}/scenarios/packed-documents.md"]
    # the measured difference that names another call in the paired set, stated
    assert "lead as run is within noise here (the two share the first rank), so What to call names varlen_attn" \
        in paired
    assert "lead is under the 1.2×" not in paired


def test_the_chart_note_gives_the_build_not_the_bar_for_a_mask_call(loaded):
    from gen.report.pages import decision

    rows = decision.chart_rows(loaded[PAIRED])
    flex = next(r for r in rows if r["workload"] == "Packed documents" and r["why"] and "FlexAttention" in r["variant"])
    assert "BlockMask per document layout, repaid after roughly 80–300 calls a step" in flex["why"]
    assert "under 1.2×" not in flex["why"]


def test_the_step_rule_is_one_sentence():
    m = __import__("gen.analysis.mask_cost", fromlist=["MaskCost"]).MaskCost(
        "flex", 8.32, 1.10, "varlen", 1.307, (("as run", 0.2076), ("kernel sum", 0.1888)))
    said = mask_words.per_step(m)
    assert said.endswith("with fewer than 40 such calls a step, call varlen_attn")
    assert said in mask_words.mask_cost_line(m, schema.Mask.DOCUMENT)


# --------------------------------------------------------------------------- item 3: occupancy, one rounding


def test_an_estimate_that_is_the_theoretical_figure_rounded_is_said_so():
    assert kernel_rules.estimate_at_theoretical(13, 12.5) and kernel_rules.estimate_at_theoretical(63, 62.5)
    assert not kernel_rules.estimate_at_theoretical(38, 39.0625) and not kernel_rules.estimate_at_theoretical(0, 12.5)
    n = dict(occupancy_pct=13.0, theoretical_pct=12.5, estimate_at_theoretical=True)
    assert kernel_words.occupancy_head(n) == "theoretical 12.5%, the profiler's estimate the same to a whole percent"
    n = dict(occupancy_pct=38.0, theoretical_pct=39.0625, estimate_at_theoretical=False)
    assert kernel_words.occupancy_head(n) == "profiler's estimate 38%, theoretical 39.1%"


def test_no_page_gives_an_estimate_above_its_theoretical_ceiling(prose):
    seen = 0
    for path, text in prose.items():
        for est, th in re.findall(r"profiler's estimate (\d+)%, theoretical (\d+(?:\.\d)?)%", text):
            seen += 1
            assert float(est) <= float(th) + kernel_rules.ESTIMATE_STEP_PCT / 2 or float(est) - float(th) > 1, \
                (path, est, th)
            assert abs(float(est) - float(th)) > kernel_rules.ESTIMATE_STEP_PCT / 2, (path, est, th)
        assert not re.search(r"theoretical \d+%,", text), path  # to a tenth, as the counters line gives it
    assert seen >= 1


# --------------------------------------------------------------------------- item 4: the named tie's own time


def test_the_row_gives_the_named_ties_own_time(loaded):
    from gen.report.words import scenario_first as first_words
    from gen.report.words.common import us

    f = next(x for x in verdict_point.point_facts_all(loaded[PAIRED], "article") if x.mode == "inference")
    assert f.named_tie is not None and f.named in f.same_kernel
    cell = first_words.time_cell(f)
    assert cell.startswith(us(f.median_ms)) and f"own {us(f.named_tie.median_ms)}" in cell
    assert f.named_tie.median_ms == pytest.approx(0.0592, rel=0.01)


# --------------------------------------------------------------------------- Part 1 items 4 and 6


def test_the_compile_paragraph_says_whose_first_call_compiled(prose):
    seen = 0
    for path, text in prose.items():
        for para in re.findall(r"Compiled\. (.*?) It is timed apart", text.replace("*", "")):
            if "the capture's own first call" in para:  # a side process compiled it: its first call is not the user's
                seen += 1
                assert para.startswith("A side process's first call, which compiled the variant, took"), (path, para)
    assert seen >= 3


def test_the_fp8_scenario_page_says_the_graph_build_was_not_timed(loaded):
    from gen.report.pages import scenario_first

    a = advice.advice(loaded[H200])
    assert any(e.variant == "cudnn_fp8" for e in a.exceptions)
    f = scenario_first.facts(loaded[H200], "fp8-prefill")
    notes = " ".join(n for r in f["rows"] for n in r["notes"])
    assert "cuDNN graph build" in notes and "was not timed: its start-up is not known" in notes
