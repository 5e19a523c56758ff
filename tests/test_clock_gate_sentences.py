"""Kernel sums refused for their clocks give their reasons as clauses, each a sentence where a page gives sentences,
never one bracket of clauses joined by semicolons: the first screen's lines past the verdicts' points and its notes
on sliding windows read the gate, what the clock gap explains and the memory-bound caveat one sentence each."""

from __future__ import annotations

import re

from gen.analysis import advice, leads
from gen.report.words import decision as decision_words
from gen.report.words import orders
from gen.report.words.common import label
from gen.report.words.sentences import flat
from gen.report.words.sum_clocks import MEMORY_BOUND_GATE, clock_gate
from tests.conftest import committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def _orders(**kw) -> leads.Orders:
    # decode at 64k keys: SDPA cuDNN 673.2 µs at 1980 MHz against FA4's 683.5 µs at 1860 MHz, timed apart
    base = dict(first="a", second="b", as_run=1.02, apart=True, equal_clock=None, kernel_sum=683.5 / 673.2,
                first_mhz=1977.0, second_mhz=1738.0, first_ks_ms=0.6732, second_ks_ms=0.6835, first_ks_mhz=1980.0,
                second_ks_mhz=1860.0, clock_gap_pct=None, decided=False, same_rounds=False, memory_bound=True)
    base.update(kw)
    return leads.Orders(**base)


def _brackets_with_clauses(text: str) -> list[str]:
    """The innermost brackets that hold a semicolon."""
    return [m for m in re.findall(r"\(([^()]*)\)", text) if ";" in m]


def test_the_clock_gate_gives_its_reasons_as_clauses():
    gate = clock_gate(_orders(), "6.5%")
    assert gate[0] == "the kernel sums, taken with a's clock 6.5% higher"
    assert "the sums may decide only at clocks within 5% of each other" in gate
    assert "their 1.02× lead is inside the 1.065× that a 6.5% clock gap can explain" in gate
    assert gate[-1] == MEMORY_BOUND_GATE
    said = flat(orders.timed_apart_clauses(_orders(), label))
    assert said[0].endswith("cannot decide it either") and "(" not in said[0].split("kernel sums")[-1]
    assert len(said) == 4


def test_the_first_screen_reads_the_clock_gate_one_sentence_a_reason():
    a = advice.advice(committed_set(LEAD))
    w = decision_words.advice(a)
    text = " ".join([*w.sentences, *w.lines])
    assert "within which they may decide" not in text
    assert "The sums may decide only at clocks within 5% of each other." in text
    assert "Their 1.02× lead is inside the 1.065× that a 6.5% clock gap can explain." in text
    assert f"{MEMORY_BOUND_GATE[0].upper()}{MEMORY_BOUND_GATE[1:]}." in text
    # no bracket holds clauses of the gate
    assert not [b for b in _brackets_with_clauses(text) if "clock gap can explain" in b or "memory-bound" in b]
