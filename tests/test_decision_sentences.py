"""Review 2026-12-07-1, second reader, N3: the "What to call" paragraph (on the home page and each measured set's
page) was one sentence of 418 words with brackets three deep. It is short sentences, none over 80 words, none with a
bracket inside a bracket: checked on the pages as built from results/, and on the fixed-order capture's words. The
sentences are made so by the notes' producers, which give their clauses as lists (gen.report.words.sentences): no
code cuts the report's own text apart."""

from __future__ import annotations

import html
import re

import pytest

from gen.analysis import advice, tables
from gen.report.words import decision as decision_words
from gen.report.words import sentences
from tests.conftest import RESULTS

MAX_WORDS = 80
SETS = sorted(p.name for p in RESULTS.iterdir() if (p / "result.json").is_file())


def cut(text: str) -> list[str]:
    """A page's paragraph as a reader's sentences: cut after each ". " that a capital follows (no number or name in
    these pages has one)."""
    return re.split(r"(?<=\.) (?=[A-Z])", text)


def depth(text: str) -> int:
    """How deep the brackets nest; a trademark sign in a CPU's name ("Intel(R) Xeon(R)") is no bracket."""
    deepest = level = 0
    for ch in re.sub(r"\((?:R|TM|C)\)", "", text):
        level += (ch == "(") - (ch == ")")
        deepest = max(deepest, level)
    return deepest


def check(said: list[str]) -> None:
    for s in said:
        assert len(s.split()) <= MAX_WORDS, f"{len(s.split())} words: {s}"
        assert depth(s) <= 1, f"brackets {depth(s)} deep: {s}"


# Where the pages show a set's decision: its own page's box and the home's first box (_decision.md.j2: its first
# sentences, the rest folded under them), the home's line for each other set (verdict.md.j2)
BOX = re.compile(r'<div [^>]*data-decision data-set="([^"]+)".*?class="decision-headline"><strong>(.*?)</strong></p>\n'
                 r'(?:<details class="decision-more"[^>]*>\n<summary>[^<]*</summary>\n'
                 r'<p class="decision-rest">(.*?)</p>)?', re.S)
LINE = re.compile(r'<span data-decision data-set="([^"]+)"[^>]*>(.*?)</span>', re.S)


def _shown(found) -> tuple[str, str]:
    """A box's set and its paragraph, the sentences shown and those folded together."""
    name, head, *rest = found
    return name, " ".join(x for x in (head, *rest) if x)


def test_what_to_call_on_the_pages_is_short_sentences_with_brackets_one_deep(results_docs):
    generated = results_docs / "generated"
    shown: dict[str, list[str]] = {}
    for page in [generated / ".verdict.md", *sorted((generated / "sets").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for name, paragraph in [*map(_shown, BOX.findall(text)), *LINE.findall(text)]:
            shown.setdefault(name, []).append(html.unescape(paragraph))
    measured = {}
    for name in SETS:
        a = advice.advice(tables.load_set(RESULTS / name))
        if a is not None:  # a published set has no first screen
            measured[name] = decision_words.advice(a)
    assert len(measured) >= 3 and set(shown) == set(measured)  # the H100 (the 418-word paragraph), H200 and CPU sets
    for name, w in measured.items():
        assert len(shown[name]) >= 2  # its page and the home page
        for paragraph in shown[name]:
            assert paragraph == w.decision  # the producers' sentences, as made
            check(cut(paragraph))
        check(list(w.sentences))


def test_the_fixed_order_captures_what_to_call_is_short_sentences(fixed_order):
    w = decision_words.advice(advice.advice(fixed_order))
    check(list(w.sentences))
    check(cut(w.decision))
    # its notes hold a borrowed noise line whose pair names a call with a bracket of its own: said as sentences
    assert "borrowed from another point: no identical pair ran here." in w.decision


def test_the_check_fails_the_old_shape():
    with pytest.raises(AssertionError):
        check(cut("It ranks first for decode (within noise as run; in an eager loop, call SDPA (backend not pinned))."))
    with pytest.raises(AssertionError):
        check(cut("It ranks first " + "at one point and " * 30 + "more."))


def test_a_note_is_its_producers_clauses_one_a_sentence():
    """A clause's own punctuation moves no sentence: only the list its producer gave does; a clause with clauses in a
    bracket (an Aside) reads as one bracket in a running clause and as sentences in a note."""
    aside = sentences.Aside("borrowed from another point", ("no identical pair ran here", "X (y) and Z, 1.1× apart"))
    assert str(aside) == "borrowed from another point (no identical pair ran here; X (y) and Z, 1.1× apart)"
    assert sentences.inline(["a; b", aside]) == f"a; b; {aside}"
    assert sentences.note_sentences("decode", ["within noise as run; (kept)", aside, "cuDNN ahead"]) == [
        "Decode: within noise as run; (kept).", "Borrowed from another point: no identical pair ran here.",
        "X (y) and Z, 1.1× apart.", "cuDNN ahead."]
    assert sentences.note_sentences("decode", []) == []
