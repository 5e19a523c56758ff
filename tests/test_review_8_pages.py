"""Review 2026-12-06-6 (review 8), the findings on the pages below the first screen: 4 (the same point in two
scenarios), 6 (the home map's reason for an unsettled cell), 7 (where the whole median falls), 8 (dynamic lengths'
reference call and a run's first length), 10 (like with like in FP8's twin table and the speed-up over naive),
12 (an interval's real level) and 13 (the methodology's held-for-power sentence). Each test fails if its rule is
broken: on the committed H100 set, or on synthetic rows."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from gen.analysis import method, rules, tables, timings
from gen.model import schema
from gen.report.words import methodology as method_words
from tests.conftest import RESULTS

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def lead():
    return tables.load_set(RESULTS / LEAD)


# --------------------------------------------------------------------------- item 7: where the whole median falls


def test_median_rounds_names_the_rounds_of_the_middle_samples():
    # 5 rounds of 2 samples; the sorted middle (5th and 6th of 10) are 3.0 and 3.5, both in round 1 (reversed)
    samples = [1.0, 9.0, 3.0, 3.5, 2.0, 8.0, 0.5, 9.5, 2.5, 7.0]
    assert timings.median_rounds(samples, [2] * 5) == (1,)
    assert timings.median_rounds([1.0, 2.0, 3.0], [1, 1, 1]) == (1,)  # an odd count: one middle sample
    assert timings.median_rounds([1.0, 2.0], [3]) == ()  # sizes that do not cut the samples
    # the whole median of the samples is what median_rounds locates
    assert np.median(samples) == pytest.approx((3.0 + 3.5) / 2)


def test_the_methodology_says_the_median_may_fall_in_a_reversed_round(lead):
    """The H100 set: 47 of its 229 oriented variant-points have their whole median in a reversed round (the review's
    recount), 9 of them on 3 rounds; the page says so and never that the median is a forward-round value."""
    o = method.orientation(lead.rs)
    by_hand = 0
    for r in (*lead.rs.runs, *lead.rs.sweep):
        if r.status != schema.Status.OK or r.timing is None or None in timings.orientation_medians(r.timing):
            continue
        sizes = r.timing.round_sizes[schema.Window.GPU_ONLY]
        of = np.repeat(np.arange(len(sizes)), sizes)
        order = np.argsort(r.timing.gpu_only_ms, kind="stable")
        n = len(order)
        by_hand += all(of[order[i]] % 2 == 1 for i in {(n - 1) // 2, n // 2})
    assert o.median_reversed == by_hand == 47 and o.timed == 229
    assert dict(o.rounds) == {5: 220, 3: 9}
    text = method_words.orientation(o)
    assert "forward-round value" not in text
    assert "3 of 5 forward in 220, 2 of 3 in 9" in text and "it did in 47" in text
    assert "leans to the forward order" in text
    assert "forward-round value" not in method_words.orientation(dataclasses.replace(o, median_reversed=0))
    # the docstring and the rules' comment say the same
    assert "always a forward" not in timings.orientation_medians.__doc__
    assert "always a forward-round value" not in (ROOT / "gen" / "analysis" / "rules.py").read_text()


def test_the_interleaved_count_is_of_variant_points():
    text = method_words.interleave_order(247, 0, 247)
    assert text.startswith("Of the 247 interleaved variant-points,")


# --------------------------------------------------------------------------- item 13: held for power


def test_the_methodology_says_what_the_pages_say_of_a_hold_near_the_maximum():
    from gen.report.pages import methodology
    from gen.report.site import environment
    from gen.report.words import tables as table_words

    doc = (ROOT / "docs" / "methodology.md").read_text(encoding="utf-8")
    assert "no clock this set can tell" not in doc
    assert "a mean hides the window's dips" in doc
    # the pages' words, and the rules table gives the line they use
    cell = table_words.held_for_power(0.18, 1977.0, 1980.0)
    assert f"within {rules.CLOCK_GAP_PCT:g}% of the 1980 MHz maximum" in cell
    partial = environment().get_template("rules.md.j2").render(**methodology.rules_view())
    assert f"its mean SM clock within {rules.CLOCK_GAP_PCT:g}% of the GPU's maximum" in partial
