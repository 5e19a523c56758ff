"""Review 2026-12-07-11 (review 20), Part 1 items 4, 7 and 9: one figure of ours per call and shape on the FP8 page
(tests/test_review_18_e.py), one precision for one quantity, no source file named in reader text, one convention for
a clock gap, and brackets one deep in reader sentences. Checked on the words' producers and on the pages gen build
makes of results/ (conftest.results_docs)."""

from __future__ import annotations

import html
import re

import pytest

from gen.report import format as fmt
from gen.report.words import first_screen as screen_words
from gen.report.words import scenarios as scenario_words
from gen.report.words.common import range_beside

# --------------------------------------------------------------------------- one precision for one range


def test_a_ratio_range_beside_a_line_gives_both_ends_one_precision():
    assert range_beside(1.0, 1.1961, 1.2) == "1.000–1.196×"  # was "1.00–1.196×"
    assert range_beside(1.0, 1.1, 1.2) == "1.00–1.10×"
    assert range_beside(1.1, 1.1001, 1.2) == "1.10×"
    said = screen_words.bar_cleared(["sliding windows"], True, [1.0, 1.1961])
    assert "1.000–1.196× in 2 others" in said


def test_an_interval_gives_both_ends_one_precision():
    assert fmt.span((0.406, 0.4067)) == "0.4060–0.4067"
    assert fmt.span((1.1, 1.102)) == "1.100–1.102"
    assert fmt.span((2.997, 3.0)) == "2.997–3.000"
    assert fmt.span((9.901, 10.06)) == "9.90–10.06"
    assert fmt.span((float("nan"), 1.0)) == fmt.DASH


# --------------------------------------------------------------------------- no source file in reader text


def test_the_fp8_rate_is_named_in_words():
    class Rate:
        flops_per_clk_per_sm = 8192

    for said in (scenario_words.fp8_sol(Rate()), scenario_words.fp8_sol(None)):
        assert ".py" not in said and "datasheet figures" in said
    assert "8192 FP8 FLOP per clock per SM" in scenario_words.fp8_sol(Rate())


# --------------------------------------------------------------------------- the pages as built


def _prose(text: str) -> str:
    """A Markdown page's reader text: code spans and blocks, chart specs and tags left out."""
    text = re.sub(r"(?s)<(script|style|code|pre)\b.*?</\1>", " ", text)
    text = re.sub(r"(?s)```.*?```", " ", text)
    text = re.sub(r"`[^`\n]*`", " ", text)
    text = re.sub(r'(?s)data-spec="[^"]*"', " ", text)
    text = re.sub(r"(?s)<[^>]+>", " ", text)
    return " ".join(html.unescape(text).replace("\\", "").split())


@pytest.fixture(scope="module")
def prose(results_docs) -> dict[str, str]:
    return {p.relative_to(results_docs).as_posix(): _prose(p.read_text(encoding="utf-8"))
            for p in sorted((results_docs / "generated").rglob("*.md"))}


MIXED_RANGE = re.compile(r"(?<![\d.])(\d+)\.(\d+)–(\d+)\.(\d+)(?![\d.])")


def test_no_range_on_the_pages_mixes_precisions(prose):
    seen = 0
    for path, text in prose.items():
        for m in MIXED_RANGE.finditer(text):
            seen += 1
            assert len(m.group(2)) == len(m.group(4)), f"{path}: {m.group(0)}"
    assert seen > 100


# a source's own file named where its figures come from (the FA3 paper's benchmark script in its repository) is a
# citation, not this report's code
CITED = re.compile(r"benchmarks/benchmark_flash_attention\.py in the same repository")


def test_no_source_file_of_the_report_is_named_in_reader_text(prose):
    for path, text in prose.items():
        named = re.findall(r"[\w/]+\.py\b", CITED.sub(" ", text))
        assert not named, f"{path}: {named}"
