"""A lead printed after two times is their difference: where a BlockMask call and the call that needs none were timed
apart, the break-even reads by their kernel sums alone, so the sentence prints the two kernel sums (with their
clocks), not the two as-run medians, beside the lead (gen.report.words.mask_cost)."""

from __future__ import annotations

import re

import pytest

from gen.analysis import advice, mask_cost
from gen.report.words import mask_cost as mask_words
from tests.conftest import H100_PAIRED

_MS = {"ms": 1.0, "µs": 1e-3}


def _ms(x: str, unit: str) -> float:
    return float(x) * _MS[unit]


def _half_unit(x: str, unit: str) -> float:
    """Half the last printed digit, in ms: the rounding a printed time may carry."""
    decimals = len(x.partition(".")[2])
    return 0.5 * 10 ** -decimals * _MS[unit]


def _times_and_lead(line: str):
    t = re.search(r"takes ([\d.,]+) (ms|µs) a call(?: by kernel sum)? against (?:\S+'s? )?([\d.,]+) (ms|µs)", line)
    lead = re.search(r"lead of ([\d.,]+) (ms|µs)(?: to ([\d.,]+) (ms|µs))? a call", line)
    assert t and lead, line
    a, ua, b, ub = t.groups()
    lo, ulo, hi, uhi = lead.groups()
    hi, uhi = (hi, uhi) if hi else (lo, ulo)
    diff = _ms(a, ua) - _ms(b, ub)
    slack = _half_unit(a, ua) + _half_unit(b, ub) + _half_unit(lo, ulo)
    return diff, _ms(lo, ulo), _ms(hi, uhi), slack


def test_every_break_even_sentence_prints_times_whose_difference_is_its_lead(loaded):
    seen = sums = 0
    for name, ls in loaded.items():
        a = advice.advice(ls)
        for e in (a.exceptions if a is not None else ()):
            m = e.mask_cost
            if m is None or m.other is None or m.calls_to_repay is None:
                continue
            line = mask_words.mask_cost_line(m, e.mask)
            diff, lo, hi, slack = _times_and_lead(line)
            assert lo - slack <= diff <= hi + slack, (name, e.scenario, line)
            seen += 1
            sums += m.sums_only_ms is not None
    assert seen >= 3 and sums >= 1  # the paired sliding-window pair was timed apart


def test_the_paired_sliding_window_sentence_gives_the_kernel_sums_with_their_clocks(loaded):
    a = advice.advice(loaded[H100_PAIRED])
    e = next(x for x in a.exceptions if x.scenario == "sliding-window")
    m = e.mask_cost
    mine, theirs = m.sums_only_ms
    assert theirs - mine == pytest.approx(m.leads_ms[0][1], rel=1e-9)
    line = mask_words.mask_cost_line(m, e.mask)
    assert (f"takes {mask_words.us(theirs)} a call by kernel sum against FlexAttention's {mask_words.us(mine)} "
            f"(at {m.sums_only_mhz[1]:.0f} against {m.sums_only_mhz[0]:.0f} MHz; the two were timed apart, so only "
            f"the sums count): FlexAttention's lead of {mask_words.us(theirs - mine)} a call repays") in line
    assert mask_words.us(m.call_ms) not in line  # the as-run median, which the lead is not taken from


def test_calls_timed_apart_weigh_the_build_by_the_kernel_sums():
    """As run the mask call leads; by kernel sum it does not: nothing repays the build, and the sentence's two times
    are the sums that say so."""
    m = mask_cost.MaskCost("flex", build_ms=10.0, call_ms=4.0, other="varlen", other_ms=6.0,
                           leads_ms=(("kernel sum", -0.2),), sums_only_mhz=(1980.0, 1860.0), sums_only_ms=(5.2, 5.0))
    assert m.lead_ms == pytest.approx(-0.2) and m.calls_to_repay is None and m.repay_range is None
    line = mask_words.mask_cost_line(m, "sliding_window")
    assert "no slower, as it takes 5.000 ms a call by kernel sum against FlexAttention's 5.200 ms" in line
    assert "4.000 ms" not in line and "6.000 ms" not in line
    # timed together: the medians, as before
    together = mask_cost.MaskCost("flex", 10.0, 4.0, "varlen", 6.0, (("as run", 2.0),))
    assert together.lead_ms == pytest.approx(2.0) and together.calls_to_repay == pytest.approx(5.0)
    assert "takes 6.000 ms a call against 4.000 ms: FlexAttention's lead of 2.000 ms a call" in \
        mask_words.mask_cost_line(together, "sliding_window")
