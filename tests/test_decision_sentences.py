"""Review 2026-12-07-1, second reader, N3: the "What to call" paragraph (words.decision.advice(...).decision, on the
home page and each set's page) was one sentence of 418 words with brackets three deep. Every set's paragraph, and the
fixed-order capture's, is now short sentences: none over 80 words, none with a bracket inside a bracket."""

from __future__ import annotations

import re

import pytest

from gen.analysis import advice, tables
from gen.report.words import decision as decision_words
from tests.conftest import RESULTS

MAX_WORDS = 80
SETS = sorted(p.name for p in RESULTS.iterdir() if (p / "result.json").is_file())


def sentences(text: str) -> list[str]:
    """`text` cut after each ". " that a capital follows (no number or name in these pages has one)."""
    return re.split(r"(?<=\.) (?=[A-Z])", text)


def depth(text: str) -> int:
    """How deep the brackets nest; a trademark sign in a CPU's name ("Intel(R) Xeon(R)") is no bracket."""
    deepest = level = 0
    for ch in re.sub(r"\((?:R|TM|C)\)", "", text):
        level += (ch == "(") - (ch == ")")
        deepest = max(deepest, level)
    return deepest


def check(decision: str) -> None:
    for s in sentences(decision):
        assert len(s.split()) <= MAX_WORDS, f"{len(s.split())} words: {s}"
        assert depth(s) <= 1, f"brackets {depth(s)} deep: {s}"


def test_what_to_call_is_short_sentences_with_brackets_one_deep(fixed_order):
    checked = 0
    for ls in [*(tables.load_set(RESULTS / name) for name in SETS), fixed_order]:
        a = advice.advice(ls)
        if a is not None:  # a published set has no first screen
            check(decision_words.advice(a).decision)
            checked += 1
    assert checked >= 4  # the H100 (the 418-word paragraph), H200 and CPU sets, and the fixed-order capture
    # the check itself: the old shape (one sentence, brackets nested) fails it
    with pytest.raises(AssertionError):
        check("It ranks first for decode (within noise as run; in an eager loop, call SDPA (backend not pinned)).")
    with pytest.raises(AssertionError):
        check("It ranks first " + "at one point and " * 30 + "more.")
