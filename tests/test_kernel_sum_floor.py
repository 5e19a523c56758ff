"""A kernel-sum lead whose leader ran its profiled window at the lower clock, past the gate, is a floor on its lead at
one clock, never its value: the pages say "at least", give the ratio at the digits the line beside it needs (1.195×,
never 1.20×), and never set it against the 1.2× bar What to call asks before naming another call. The overlap as run
is the reason no call is named there. Checked on the committed set's FP8 prefill (cuDNN FP8's sums at 1755 against
FlashAttention-4's 1965 MHz) and on synthetic orders."""

from __future__ import annotations

import pytest

from gen.analysis import leads, verdict_point, verdicts
from gen.report.pages import decision as decision_page
from gen.report.words import first_screen, orders
from gen.report.words import scenario_first as scenario_words
from gen.report.words.common import label
from tests.conftest import committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def _orders(**kw) -> leads.Orders:
    base = dict(first="a", second="b", as_run=1.08, apart=False, equal_clock=None, kernel_sum=1.195,
                first_mhz=1675.0, second_mhz=1660.0, first_ks_ms=5.038, second_ks_ms=6.022, first_ks_mhz=1755.0,
                second_ks_mhz=1965.0, clock_gap_pct=None, decided=False, forward=1.07, reverse=1.19)
    base.update(kw)
    return leads.Orders(**base)


@pytest.fixture(scope="module")
def fp8():
    ls = committed_set(LEAD)
    f = verdict_point.point_facts(ls, "fp8-prefill", "inference")
    return ls, f


def test_a_lead_taken_at_the_lower_clock_is_a_floor():
    assert _orders().kernel_sum_least
    # at one clock, or with the leader at the higher clock, the ratio is no floor
    assert not _orders(second_ks_mhz=1770.0).kernel_sum_least
    assert not _orders(first_ks_mhz=1965.0, second_ks_mhz=1755.0).kernel_sum_least
    said = orders.kernels_ahead(_orders(), label)
    assert said.startswith("a at least 1.195× faster by kernel sum")
    assert "at least" not in orders.kernels_ahead(_orders(second_ks_mhz=1770.0), label)


def test_fp8_prefill_gives_its_kernel_sum_lead_as_a_floor_on_every_page(fp8):
    ls, f = fp8
    o = f.named_orders
    assert o is not None and o.kernel_sum_least and o.kernel_sum == pytest.approx(6.0219 / 5.0380, rel=1e-3)
    for text in (orders.kernels_ahead(o, label), orders.kernels_ahead_detail(o, label), orders.brief(o, label),
                 orders.not_the_call(o, label), scenario_words.named_note(f), scenario_words.gain_cell(f)):
        assert "at least 1.195×" in text, text
        assert "1.20×" not in text, text
    # the set page's as-run paragraph ("1.07× faster at equal clock (a model) and 1.20× by kernel sum"; the equal-clock
    # model has left it since the FP8 windows had no single clock: rules.one_clock)
    assert "at least 1.195× faster by kernel sum" in orders.brief(o, label)


def test_no_page_holds_a_floor_against_the_first_screens_bar(fp8):
    ls, f = fp8
    o = f.named_orders
    bar = "under the 1.2×"
    assert bar not in scenario_words.named_note(f)
    assert "under 1.2×" not in orders.not_the_call(o, label)
    led = first_screen._led([(("FP8 prefill", "inference"), orders.kernels_ahead(o, label), o)])
    assert bar not in led and "1.2×" not in led.replace("1.195×", "")
    # the reason given is the overlap as run, with its clocks
    assert "within noise as run, 1.08× at 1675 against 1660 MHz, so no rule decides it faster" in led
    # the first screen's own row, as the page builds it
    rows = decision_page.table_rows(ls)
    text = " ".join(str(v) for r in rows for v in r.values())
    assert "FP8 prefill" in text and bar + " the first screen asks" not in text


def test_a_floor_is_not_worded_where_the_sums_ran_at_one_clock():
    v = verdicts.verdict(committed_set(LEAD), "packed-documents", "inference")
    o, _ = verdicts.first_pair(v)
    assert o is not None and not o.kernel_sum_least
    assert "at least" not in orders.brief(o, label)
