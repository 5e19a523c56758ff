"""Intervals of medians at several levels are named so a reader can pair them: two levels with the counts that give
them where each count gives one level and each interval is the range of its units; else the levels' span, one
precision, no counts ("93.75%, 95.13%, 95.86%, 95.9%, 96.15%, 96.48% and 97.85% intervals (the range of 5, 125,
70, 20, 35, 40, 15 and 10 samples)" gave 7 levels against 8 counts, "the range" of 125 samples, and a bracket two
deep)."""

from __future__ import annotations

import re

from gen.analysis.timings import ci_level
from gen.report.words import common
from tests.conftest import bracket_depth
from tests.test_review_20_l import _prose

ARTICLE_SAMPLES = (5, 125, 70, 20, 35, 40, 15, 10)


def test_levels_that_do_not_pair_with_their_counts_are_given_by_their_span():
    said = common.intervals(*((1, k) for k in ARTICLE_SAMPLES))
    assert said == "intervals (each at the level its samples allow, 93.75%–97.85%)"
    assert "range of" not in said


def test_two_ranges_pair_with_their_counts():
    assert (common.intervals((5, 40, True), (6, 48, True))
            == "93.75% and 96.88% intervals (the range of 5 and 6 rounds, widened to ±1%)")
    assert common.intervals((1, 125), (1, 20)) == "95.13% and 95.86% intervals"  # both at 95% or more: no counts


def test_a_level_keeps_two_decimals_beside_others():
    assert common.level_pct(ci_level(35)) == "95.90%" and common.level_pct(ci_level(20)) == "95.86%"
    assert common.level_pct(0.95) == "95%" and common.level_pct(0.75) == "75%"


def test_the_graph_notes_name_their_levels_by_span_one_bracket_deep(results_docs):
    seen = 0
    for p in (results_docs / "generated").rglob("*.md"):
        text = _prose(p.read_text(encoding="utf-8"))
        for note in re.findall(r"rows? marked graph above eager:.*?Read the two", text):
            seen += 1
            assert bracket_depth(note) <= 1, (p, note)
            assert not re.search(r"the range of \d+, \d+", note), (p, note)
            assert not re.search(r"\d+\.\d%", note), (p, note)  # no level at one decimal beside two
    assert seen >= 4
