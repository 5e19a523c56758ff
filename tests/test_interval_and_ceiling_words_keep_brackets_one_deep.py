"""Within-noise brackets, a rate's share above the measured ceiling, and a headline whose round orientations differ
keep brackets one deep and chain no colons: the older gqa-prefill 32k paragraph read "(24.131 ms, 729 TFLOP/s, above
the measured ceiling (102% of it))" and "(the 93.75% intervals (the range of 5 rounds, widened to ±1%) of the medians
overlap)", and its share opened "102% of the measured matmul ceiling (...): above the measured ceiling (...); ..."."""

from __future__ import annotations

import re

import pytest

from gen.analysis import timings
from gen.report import site
from gen.report.pages import scenario_set
from gen.report.words import ceiling_share
from gen.report.words import common as words
from tests.conftest import committed_set

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"
NESTED = re.compile(r"\([^()]*\(")


def _rounds(medians, per=3):
    return [m for m in medians for _ in range(per)], [per] * len(medians)


def test_overlap_words_give_how_the_intervals_were_built_without_a_bracket():
    a = timings.spread(*_rounds([100.0, 90.0, 110.0, 95.0, 105.0]))
    b = timings.spread(*_rounds([101.0, 91.0, 111.0, 96.0, 106.0]))
    said = words.overlap_words(a, [("y", b)], str)
    assert "(" not in said and said.endswith("each the range of 5 rounds")
    # the name alone keeps its bracket where it stands outside one
    assert words.intervals(a, b) == "93.75% intervals (the range of 5 rounds)"


def test_a_share_above_the_measured_ceiling_is_one_clause_without_a_colon():
    f = dict(pct_of_ceiling=103.0, ceiling_value=700.0, ceiling_mhz=1400.0, ceiling_cap_share=1.0,
             sm_clock_mhz=1600.0, pct_of_matmul_at_clock=90.0)
    text = ceiling_share.matmul_share(f)
    assert ":" not in text and not NESTED.search(text)
    assert text.startswith("103% of the measured matmul ceiling (700 TFLOP/s at 1400 MHz")


@pytest.mark.parametrize("scenario", ["gqa-prefill", "fp8-prefill", "chunked-prefill"])
def test_the_committed_headlines_nest_no_bracket(scenario):
    ls = committed_set(OLDER)
    head = scenario_set.set_view(site.Context([ls]), ls, scenario)["headline"]
    # the brackets these words open: the within-noise one and the orientations' median (a call's label may carry
    # its own bracket elsewhere in the paragraph)
    inside = re.findall(r"within noise as run \(([^)]*)\)|cannot set it apart from [^(]*\(([^)]*)\)|"
                        r"The median lies with the \w+ rounds \(([^)]*)\)", head)
    assert inside or scenario == "chunked-prefill"
    for parts in inside:
        assert all("(" not in x for x in parts), parts
    assert "intervals (the range" not in head and "(102% of it)" not in head
    assert "above the measured ceiling (" not in head and "methodology marks:" not in head
    if scenario == "gqa-prefill":
        assert "729 TFLOP/s, 102% of the measured ceiling)" in head
        assert "matmul ceiling (717 TFLOP/s at 1428 MHz, held for power 100% of its samples), above the measured " \
               "ceiling, which was held for power at 1428 MHz against this point's 1601 MHz;" in head
