"""Review 2026-12-06-3 items 4 and 6: "held for power" is given for both windows of a pair a verdict sets side by
side, with each window's clock, and is no clock penalty near the GPU's maximum; a point's share of the matmul
ceiling is of the ceiling as measured (its clock and power state printed), a rate above it is flagged with both
clocks, and the share scaled to the point's clock is labelled a model."""

from __future__ import annotations

import pytest

from gen.analysis import rules, scaling, values, verdicts
from gen.analysis import scenarios as sa
from gen.analysis.values import missing
from gen.report.words import as_run as as_run_words
from gen.report.words import ceiling_share
from gen.report.words import tables as table_words
from gen.report.words.common import label
from tests import one_clock_off

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def h100():
    from gen.analysis import tables
    from tests.conftest import RESULTS

    return tables.load_set(RESULTS / H100)


def test_the_matmul_share_is_of_the_ceiling_as_measured_and_a_rate_above_it_is_flagged(h100):
    ceil, mhz = sa.ceilings(h100), scaling.matmul_clock(h100)
    rows = [r for sc in sa.scenario_names([h100]) for r in values.rows(sa.point_frame(h100, sc))
            if r["status"] == "ok" and r["ceiling"] == sa.CEILING_MATMUL and not missing(r["tflops"])]
    assert rows and mhz is not None
    above = 0
    for r in rows:
        assert r["pct_of_ceiling"] == pytest.approx(100 * r["tflops"] / ceil["matmul_tflops"])  # as measured
        assert r["ceiling_value"] == pytest.approx(ceil["matmul_tflops"]) and r["ceiling_mhz"] == pytest.approx(mhz)
        text = ceiling_share.matmul_share(r)
        assert text.startswith(f"{r['pct_of_ceiling']:.0f}% of the measured matmul ceiling "
                               f"({ceil['matmul_tflops']:.0f} TFLOP/s at {mhz:.0f} MHz")
        if not missing(r["pct_of_matmul_at_clock"]) and round(r["sm_clock_mhz"]) != round(mhz):
            assert f"{r['pct_of_matmul_at_clock']:.0f}% of it scaled to this point's " \
                   f"{r['sm_clock_mhz']:.0f} MHz (a model)" in text
        if not r["one_clock"]:  # no single clock to scale the ceiling to (rules.one_clock)
            assert missing(r["pct_of_matmul_at_clock"]) and "its window had no single clock" in text
        flagged = "above the measured ceiling" in text
        assert flagged == rules.above_ceiling(r["pct_of_ceiling"])
        if flagged:
            above += 1
            assert f"at {mhz:.0f} MHz against this point's {r['sm_clock_mhz']:.0f} MHz" in text
    assert above >= 1  # the set has a point above its power-held ceiling (FLASH at GQA 32k): the test reads it


def test_above_ceiling_rule():
    floor = 100.0 + rules.TIME_FLOOR_PCT
    assert rules.above_ceiling(floor + 0.1) and not rules.above_ceiling(floor) and not rules.above_ceiling(None)
    f = dict(pct_of_ceiling=floor + 1, ceiling_value=700.0, ceiling_mhz=1400.0, ceiling_cap_share=1.0,
             sm_clock_mhz=1600.0, pct_of_matmul_at_clock=100 * (floor + 1) / 100 * 1400 / 1600)
    assert ("above the measured ceiling, which was held for power at 1400 MHz against this point's 1600 MHz"
            in ceiling_share.matmul_share(f))
    assert "above" not in ceiling_share.matmul_share(dict(f, pct_of_ceiling=floor))


def test_held_for_power_names_the_clock_and_only_the_mean_near_the_maximum():
    top = 2000.0
    near = top * (1 - rules.CLOCK_GAP_PCT / 200)
    far = top * (1 - 2 * rules.CLOCK_GAP_PCT / 100)
    assert rules.clock_near_max(near, top) and not rules.clock_near_max(far, top)
    said = table_words.held_for_power(1.0, near, top)
    assert said.startswith(f"held for power 100% of samples at {near:.0f} MHz") and "mean clock within" in said
    assert "no clock" not in said  # a mean hides the window's dips: no claim that the hold cost nothing
    assert table_words.held_for_power(1.0, far, top) == f"held for power 100% of samples at {far:.0f} MHz"
    assert "mean clock" not in table_words.held_for_power(0.0, near, top)


def test_a_verdict_gives_the_power_hold_of_both_sides_of_a_pair(h100):
    """On the set's rows with every window taken to have one clock (tests/one_clock_off): the committed verdicts
    hold no pair the equal-clock order reorders, each such pair having a window with no single clock."""
    assert not any(verdicts.verdict(h100, sc).clock_flips for sc in ("sliding-window", "gqa-prefill", "article"))
    seen = 0
    for sc in ("sliding-window", "gqa-prefill", "article"):
        v = one_clock_off.verdict(h100, sc)
        line = as_run_words.equal_clock_line(v) or ""
        for f in v.clock_flips[:as_run_words.MAX_FLIPS]:
            ta, tb = v.row(f.first), v.row(f.second)
            if ta.power_cap_share is None or tb.power_cap_share is None or "held for power" not in line:
                continue
            for t in (ta, tb):
                assert f"{label(t.variant)} held for power {100 * t.power_cap_share:.0f}% of its window's samples " \
                       f"at {t.sm_clock_mhz:.0f} MHz" in line, (sc, t.variant)
            seen += 1
    assert seen >= 1
