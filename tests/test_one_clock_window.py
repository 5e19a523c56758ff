"""A ceiling is compared with a point only at that point's clock: a window whose lowest SM clock sample lies more than
rules.CLOCK_GAP_PCT under its mean has no single clock (rules.one_clock), so it gets no time at equal clock, no
"faster at equal clock", no share of a ceiling at its clock, and its compute SOL is the share at the GPU's maximum
clock, marked as a floor. The GQA 32k FlexAttention window (mean 1601, min 1230 MHz) read 84% of the tensor peak."""

from __future__ import annotations

import math

import pytest

from gen.analysis import clocks, method, points, rules, verdicts
from gen.model import schema
from gen.report.words import ceiling_share
from gen.report.words import tables as table_words
from tests.conftest import committed_set
from tests.test_review_20_l import _prose

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"
GQA_32K = schema.Point(1, 64, 8, 128, 32768, 32768, "causal")


@pytest.fixture(scope="module")
def older():
    return committed_set(OLDER)


def _row(ls, scenario: str, variant: str, kv: int) -> dict:
    return next(r for r in points.point_rows(ls, scenario)
                if r["variant"] == variant and r["mode"] == "inference" and r["kv_len"] == kv)


def test_a_window_has_one_clock_only_within_the_clock_gap_of_its_mean():
    line = 1 + rules.CLOCK_GAP_PCT / 100  # the mean over the minimum, as rules.clock_gap_pct reads two clocks
    assert rules.one_clock(1980.0, 1980.0) and rules.one_clock(1900.0, 1900.0 / line + 1)
    assert not rules.one_clock(1601.0, 1230.0)  # GQA 32k FlexAttention: min 23% under the mean
    assert not rules.one_clock(1900.0, 1900.0 / line - 1)
    assert rules.one_clock(1601.0, None) and rules.one_clock(math.nan, 1230.0)  # not recorded: nothing to refuse


def test_the_line_splits_the_sets_windows_by_whether_their_rounds_ran_at_one_clock(loaded):
    """The threshold's evidence, held to the committed sets: windows past the line ran rounds whose clocks span
    rules.ROUND_CLOCK_SPAN_PCT or more far more often than those within it (126 of 147 against 9 of 207)."""
    s = method.one_clock_split(loaded.values())
    assert s.past >= 50 and s.within >= 50
    assert s.past_spanning / s.past > 0.75 > 0.1 > s.within_spanning / s.within


def test_the_gqa_32k_window_gets_a_floor_not_a_share_at_its_mean_clock(older):
    r = _row(older, "gqa-prefill", "flex_flash", 32768)
    assert r["sm_clock_min_mhz"] == pytest.approx(1230, abs=1) and r["sm_clock_mhz"] == pytest.approx(1601, abs=1)
    assert r["one_clock"] is False or not r["one_clock"]
    at_mean = clocks.sol(r["tflops"], older.environment, r["dtype"], r["sm_clock_mhz"]).pct
    assert at_mean == pytest.approx(84, abs=1)  # what the column printed
    assert math.isnan(r["sol_pct"]) and math.isnan(r["pct_of_matmul_at_clock"])
    assert r["sol_floor_pct"] == pytest.approx(at_mean * r["sm_clock_mhz"] / older.environment.ref_mhz, rel=1e-6)
    assert r["sol_floor_pct"] == pytest.approx(68, abs=1)
    cell = ceiling_share.sol_cell(r)
    assert cell == f"{ceiling_share.FLOOR_MARK}{r['sol_floor_pct']:.0f}%" and cell != "84%"
    cond = table_words.conditions_cell(r, older.environment.ref_mhz, older.environment)
    assert table_words.NO_SINGLE_CLOCK in cond and "(equal clock, a model)" not in cond


def test_one_fa4_kernel_reads_one_floor_in_two_windows(older):
    """FA4 at 16,384 tokens, GQA 64/8, D 128 in the GQA and FP8 scenarios: the shares at the two windows' mean clocks
    read 80% and 70% for times 3% apart; both windows have no single clock, and their floors lie within the times'
    gap."""
    a, b = _row(older, "gqa-prefill", "fa4", 16384), _row(older, "fp8-prefill", "fa4", 16384)
    assert not a["one_clock"] and not b["one_clock"]
    times = max(a["gpu_only_ms"], b["gpu_only_ms"]) / min(a["gpu_only_ms"], b["gpu_only_ms"])
    floors = max(a["sol_floor_pct"], b["sol_floor_pct"]) / min(a["sol_floor_pct"], b["sol_floor_pct"])
    assert floors == pytest.approx(times, rel=1e-6) and floors < 1.05


def test_no_window_without_one_clock_gets_an_equal_clock_time_or_order(older):
    checked = 0
    for sc in verdicts.scenarios(older):
        for p in {r.point for r in older.rs.sweep if r.scenario == sc and r.mode == "inference"}:
            v = verdicts.verdict_at(older, sc, p)
            if v is None:
                continue
            for t in v.rows:
                if not t.one_clock:
                    checked += 1
                    assert t.at_ref_ms is None and t.variant not in v.equal_clock_order
            for o in v.orders:
                if o.equal_clock is not None:
                    assert v.row(o.first).one_clock and v.row(o.second).one_clock
    assert checked > 10


def test_the_gqa_32k_verdict_gives_no_faster_at_equal_clock(older):
    v = verdicts.verdict_at(older, "gqa-prefill", GQA_32K)
    assert v.fastest.variant == "flex_flash" and not v.fastest.one_clock
    assert v.orders and all(o.equal_clock is None for o in v.orders)


def test_the_gqa_32k_headline_says_its_lowest_median_rests_on_one_orientation(results_docs):
    page = _prose((results_docs / "generated" / "sets" / OLDER / "scenarios" / "gqa-prefill.md").read_text(
        encoding="utf-8"))
    at = page.index("At S = 32,768, D 128, FlexAttention")
    head = page[at:page.index("The times cannot set it apart", at)]
    assert "FlexAttention (FLASH backend) has the lowest median only through its forward rounds" in head
    assert "is fastest by its median" not in head
    assert "behind FlashAttention-4 (flash_attn.cute)'s 23.686 ms there" in head
    assert "faster at equal clock" not in head and "scaled to this point's 1601 MHz" not in head
    assert "its window had no single clock to scale the ceiling to (min 1230 against a mean of 1601 MHz)" in head
