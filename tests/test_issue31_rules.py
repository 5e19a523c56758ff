"""Issue 31, the second reader's N6 and N11 (review 2026-12-07-1): the levels of the intervals of medians come from one
place (words.common.level_span over the medians the verdicts rank), so the home's line and the methodology agree with
what the pages show (Naive's 3 profiled calls: 75%); the rules table's "Who leads a pair" is short rows, brackets one
deep, every rule kept."""

from __future__ import annotations

import re

import pytest

from gen.analysis import tables, timings, verdicts
from gen.report.words import common as words
from gen.report.words import methodology as method_words
from tests.conftest import H200_NEW, ROOT, bracket_depth, committed_set

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def lead():
    return committed_set(H100)


def _span(text: str) -> tuple[float, float]:
    lo, hi = re.match(r"([\d.]+)%–([\d.]+)%", text).groups()
    return float(lo), float(hi)


def test_the_home_and_the_methodology_read_the_levels_off_the_medians_ranked(gpu_docs, lead):
    units = verdicts.ranked_units(lead)
    # the H100 set ranks kernel sums of 3 profiled calls (Naive among them): 75%, the low end of its span
    low = [t.variant for s in verdicts.scenarios(lead) for m in ("inference", "train")
           if (v := verdicts.verdict(lead, s, m)) is not None for t in v.rows
           if v.spread(t) is not None and v.spread(t).n and v.spread(t).units == min(units)]
    assert min(units) == 3 and timings.ci_level(3) == 0.75 and "naive" in low
    home_span = words.level_span(units)
    assert home_span == "75%–96.88%"
    home = (gpu_docs / "generated" / ".verdict.md").read_text(encoding="utf-8")
    assert f"the ranking with the interval of each median (at {home_span}, {words.LEVEL_ALLOWED})" in home
    # the methodology's rules table: the same function over the sets the site shows (here the two GPU sets)
    both = units + verdicts.ranked_units(tables.load_set(H200_NEW))
    rules_md = (gpu_docs / "generated" / ".rules.md").read_text(encoding="utf-8")
    row = next(line for line in rules_md.splitlines() if line.startswith("| Interval of a median |"))
    said = words.level_span(both)
    assert f"at {said}, " in row and "75% for 3" in row and "93.75% for 5" in row
    (hlo, hhi), (mlo, mhi) = _span(home_span), _span(said)
    assert mlo <= hlo and mhi >= hhi  # the home's span lies within the methodology's
    # the verdict's rule above the table gives the same levels; the hand-written text gives none of its own
    assert f"Each median carries its interval, at {said}, " in " ".join(rules_md.split())
    doc = " ".join((ROOT / "docs" / "methodology.md").read_text(encoding="utf-8").split())
    assert not re.search(r"\d%\s+for (five|5|six|6|three|3)\b", doc)


def test_the_levels_come_from_one_function():
    assert words.level_span([5, 5, 6]) == "93.75%–96.88%" and words.level_span([6]) == "96.88%"
    assert words.level_span([]) is None
    assert method_words.ci_levels([3, 5, 6]).startswith(words.level_span([3, 5, 6]) + ", ")
    assert words.each_median_interval([3, 5, 6]) == (f"the interval of each median (at {words.level_span([3, 5, 6])}, "
                                                     f"{words.LEVEL_ALLOWED})")



def test_who_leads_a_pair_is_short_rows_with_every_rule_kept(gpu_docs):
    rows = method_words.lead_rules()
    assert len(rows) >= 6 and all(name.startswith(method_words.LEAD) for name, _ in rows)
    for name, text in rows:
        assert len(text.split()) <= 90, name  # the one cell was about 490 words
        assert bracket_depth(text) <= 1, name  # brackets one deep (they were two)
    text = " ".join(t for _, t in rows)
    for rule in ("intervals are apart", "in the median of its forward rounds and in that of its reversed rounds",
                 "noise of identical kernels", "calls per replay within", "borrows the set's largest",
                 "noise line of the orientations' own", "memory-bound points too", "decide instead",
                 "not timed in the same rounds", "as-run lead past", "not decided and shares the rank",
                 "decides nothing", "locked clocks"):
        assert rule in text, rule
    table = (gpu_docs / "generated" / ".rules.md").read_text(encoding="utf-8")
    lines = [line for line in table.splitlines() if line.startswith(f"| {method_words.LEAD}")]
    assert len(lines) == len(rows)
    for line in table.splitlines():  # no row of the rules table holds brackets two deep
        if line.startswith("| ") and not line.startswith("|---"):
            assert bracket_depth(line) <= 1, line[:80]
