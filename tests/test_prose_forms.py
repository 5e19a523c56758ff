"""How names, counts and clauses read in running text: a call's name in a comma list, a refused kernel-sum lead beside
what its clock gap explains, rounds that decide nothing, the odd-rounds count, one new-length cost at one precision
in a table and its sentences, and a count of one in the singular. Unit checks on the words, then the pages gen build
makes of results/ (conftest.results_docs)."""

from __future__ import annotations

import re

import pytest

from gen.analysis import calls, leads, method
from gen.model.variants import VARIANTS
from gen.report import charts
from gen.report import format as fmt
from gen.report.words import methodology as method_words
from gen.report.words import orders as orders_words
from gen.report.words.common import label, us
from tests.test_review_20_l import _prose

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def _pages(results_docs):
    return {p.relative_to(results_docs).as_posix(): _prose(p.read_text(encoding="utf-8"))
            for p in sorted((results_docs / "generated").rglob("*.md"))}


# --------------------------------------------------------------------------- a call's name in a comma list

def test_no_label_carries_a_qualifier_after_a_comma():
    """"Against SDPA, backend not pinned: SDPA, backend not pinned 1.02× faster (..., SDPA, backend not pinned at 1965
    MHz, ...)": a name with a comma of its own reads as two items in a list. Its qualifier goes in a bracket."""
    outside = {v: x.label for v, x in VARIANTS.items() if ", " in re.sub(r"\([^)]*\)", "", x.label)}
    assert outside == {}
    assert label("sdpa_auto") == "SDPA (backend not pinned)" and label("flex_flash") == "FlexAttention (FLASH backend)"
    assert fmt.label_of("sdpa_auto") == label("sdpa_auto")  # one form for tables and sentences


def test_no_page_gives_a_call_its_comma_name(results_docs):
    old = ("SDPA, backend not pinned", "FlexAttention, FLASH backend", "Naive, in-place mask",
           "FlashAttention-4, deterministic backward", "FlexAttention, main kernel forced", "SDPA, no backend pinned")
    found = {rel: n for rel, text in _pages(results_docs).items() for n in old if n in text}
    assert found == {}
    index = _prose((results_docs / "generated" / "scenarios" / "index.md").read_text(encoding="utf-8"))
    # the charts' legends too, in the specs the prose leaves out
    raw = {p.name: p.read_text(encoding="utf-8") for p in (results_docs / "generated").rglob("*.md")}
    assert [n for n, text in raw.items() if "SDPA, no backend pinned" in text] == []
    assert charts.DEFAULT_CALL == label("sdpa_auto") and any(charts.DEFAULT_CALL in t for t in raw.values())
    assert "Against SDPA (backend not pinned): " in index and "FlexAttention (FLASH backend) has the lowest" in index


# --------------------------------------------------------------------------- a refused kernel-sum lead


def _orders(**kw) -> leads.Orders:
    base = dict(first="a", second="b", as_run=1.024, apart=True, equal_clock=None, first_mhz=1980.0,
                second_mhz=1980.0, clock_gap_pct=None, decided=False, same_rounds=False, first_rounds=calls.SHARED,
                second_rounds=calls.ALONE)
    base.update(kw)
    return leads.Orders(**base)


def _gate(o) -> list[str]:
    """The clock gate's reasons: the clauses after the one that says the sums cannot decide (each its own sentence
    where the page gives sentences; a bracket of three clauses stood on the home)."""
    clauses = orders_words.timed_apart_clauses(o, str)
    at = next(i for i, x in enumerate(clauses) if "cannot decide it either" in x)
    return clauses[at + 1:]


@pytest.mark.parametrize("memory_bound", [False, True])
def test_a_refused_kernel_sum_lead_is_set_inside_what_its_clock_gap_explains(memory_bound):
    """Decode 64k: FA4's sum 683.55 µs at 1860 MHz, cuDNN's 673.24 µs at 1980 MHz: a 1.02× lead, a gap that explains
    1.065×. It read "that gap can explain up to 1.065× and their lead is 1.02×, not 1% more" in a bracket that also
    held a colon."""
    o = _orders(kernel_sum=683.55 / 673.24, first_ks_ms=0.67324, second_ks_ms=0.68355, first_ks_mhz=1980.0,
                second_ks_mhz=1860.0, memory_bound=memory_bound)
    text = orders_words.timed_apart(o, str)
    gate = _gate(o)
    assert "their 1.02× lead is inside the 1.065× that a 6.5% clock gap can explain" in gate
    # no clause of the gate holds a colon or a bracket: each reads as a sentence
    assert "% more" not in text and not any(":" in x or "(" in x for x in gate)
    assert any("memory-bound points too" in x for x in gate) == memory_bound


def test_a_refused_lead_past_what_its_gap_explains_says_by_how_much():
    # memory-bound: the sums never decide past the gate, however far past the gap their lead
    o = _orders(kernel_sum=1.09, first_ks_ms=1.0, second_ks_ms=1.09, first_ks_mhz=1980.0, second_ks_mhz=1860.0,
                memory_bound=True)
    assert "their 1.09× lead is 1.024× past the 1.065× that a 6.5% clock gap can explain" in \
        orders_words.timed_apart(o, str)


# --------------------------------------------------------------------------- odd rounds, counted plainly

@pytest.mark.parametrize("odd, reversed_, want", [
    (229, 47, "at all 229 variant-points timed in both orientations the rounds were odd in number (5 rounds, 3 "
              "forward and 2 reversed, at 220; 3 rounds, 2 and 1, at 9), so the forward rounds outnumber the reversed "
              "and the median leans to the forward order; at 47 the median still came from a reversed round."),
    (9, 28, "at 9 of the 229 variant-points timed in both orientations the rounds were odd in number"),
    (229, 0, "at none did the median come from a reversed round."),
])
def test_the_odd_rounds_are_counted_plainly(odd, reversed_, want):
    rounds = ((3, 9), (5, 220)) if odd == 229 else ((3, 9), (6, 220))
    text = method_words.orientation(method.Orientation(229, 61, 40, 3, odd, rounds, reversed_))
    assert want in text
    assert "229 of the 229" not in text and "it may still fall" not in text and "every middle sample" not in text
    if odd < 229:  # the even ones lean nowhere: no "still"
        assert f"at {reversed_} of the 229 the median came from a reversed round" in text


def test_the_methodology_page_counts_its_odd_rounds_plainly(results_docs):
    text = _prose((results_docs / "generated" / ".method_interleave.md").read_text(encoding="utf-8"))
    assert "at all 229 variant-points timed in both orientations the rounds were odd" in text
    assert re.search(r"; at \d+ the median still came from a reversed round\.", text)
    assert "variant-points below" not in text and "(it did in " not in text


# --------------------------------------------------------------------------- rounds that decide nothing

def test_no_page_says_in_none_of_the_rounds(results_docs):
    pages = _pages(results_docs)
    assert not [rel for rel, text in pages.items() if re.search(r"in none of the \d+ shared rounds", text)]
    assert not [rel for rel, text in pages.items() if "clears it; so" in text or "not 1% more" in text]
    assert any("no round clears it, so the shared rounds do not decide it" in t for t in pages.values())


# --------------------------------------------------------------------------- one cost, one precision

@pytest.mark.parametrize("ms", [56.3754, 36.7141, 1.0, 0.9162, 0.09119, 0.045437, 0.0107, 425.873])
def test_a_table_cell_gives_a_time_the_digits_its_sentence_gives(ms):
    said = us(ms)
    digits = said.split()[0] if said.endswith(" ms") else f"{float(said.split()[0]) / 1000:.4f}"
    assert fmt.ms(ms) == digits


def test_the_dynamic_lengths_table_gives_the_new_length_cost_as_its_sentences_do(results_docs):
    """The older set's decode table read 56.37 where its sentence and the home said 56.375 ms for one median."""
    page = (results_docs / "generated" / "sets" / OLDER / "scenarios" / "dynamic-lengths.md").read_text(
        encoding="utf-8")
    said = re.findall(r"pays a median (\d+\.\d+) ms a decode step", _prose(page))
    cell = r"[>|] ?{} ?(\||<)"  # a table cell, as Markdown or HTML
    assert said and re.search(cell.format(re.escape(said[0])), page)
    assert not re.search(cell.format(re.escape(f"{float(said[0]):.2f}")), page)  # no cell at two decimals


# --------------------------------------------------------------------------- a count of one

def test_a_count_of_one_is_singular(results_docs):
    pages = _pages(results_docs)
    one = re.compile(r"(?<![\d.,])(?<!and )1 (calls|replays|rounds|lengths)\b")  # "2 and 1 calls" is a plural
    assert not [rel for rel, text in pages.items() if one.search(text)]
    assert any("replays of 1 call;" in text for text in pages.values())
