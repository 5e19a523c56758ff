"""How names, counts and clauses read in running text: a call's name in a comma list, a refused kernel-sum lead beside
what its clock gap explains, rounds that decide nothing, the odd-rounds count, one new-length cost at one precision
in a table and its sentences, and a count of one in the singular. Unit checks on the words, then the pages gen build
makes of results/ (conftest.results_docs)."""

from __future__ import annotations

import re

from gen.model.variants import VARIANTS
from gen.report import format as fmt
from gen.report.words.common import label
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
           "FlashAttention-4, deterministic backward", "FlexAttention, main kernel forced")
    found = {rel: n for rel, text in _pages(results_docs).items() for n in old if n in text}
    assert found == {}
    index = _prose((results_docs / "generated" / "scenarios" / "index.md").read_text(encoding="utf-8"))
    assert "Against SDPA (backend not pinned): " in index and "FlexAttention (FLASH backend)'s kernel sum" in index
