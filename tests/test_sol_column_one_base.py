"""A table's compute-SOL column is one base: where any row it rates had no single clock (rules.one_clock), every row
reads its share at the GPU's maximum clock, a floor marked ≥, with the share at its own clock in brackets as a model.
The sliding-window table at 16,384 keys read FlexAttention (FLASH backend), the slower call at its own 1562 MHz, at
74% beside FlashAttention-4's floor of ≥64%."""

from __future__ import annotations

import pytest

from gen.analysis import clocks, points
from gen.report.words import ceiling_share
from gen.report.words import scenarios as scenario_words
from tests.conftest import committed_set

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def sliding():
    ls = committed_set(OLDER)
    return ls, [r for r in points.point_rows(ls, "sliding-window") if r["mode"] == "inference"]


def _at(rows, variant, kv=16384):
    return next(r for r in rows if r["variant"] == variant and r["kv_len"] == kv)


def test_a_table_with_an_unscaled_window_reads_every_share_at_the_maximum_clock(sliding):
    ls, rows = sliding
    assert points.sol_floors(rows)
    flex, fa4 = _at(rows, "flex_flash"), _at(rows, "fa4")
    assert flex["one_clock"] and not fa4["one_clock"]
    assert flex["gpu_only_ms"] > fa4["gpu_only_ms"]  # the slower call
    for r in (flex, fa4):  # the floor is the rate over the peak at the GPU's maximum clock
        peak = clocks.sol(r["tflops"], ls.environment, r["dtype"], ls.environment.ref_mhz).pct
        assert r["sol_floor_pct"] == pytest.approx(peak, rel=1e-9)
    assert flex["sol_floor_pct"] < fa4["sol_floor_pct"]  # one base: the faster call reads the higher share
    assert flex["sol_floor_pct"] == pytest.approx(59, abs=1) and flex["sol_pct"] == pytest.approx(74, abs=1)
    assert ceiling_share.sol_cell(flex, True) == f"≥{flex['sol_floor_pct']:.0f}% ({flex['sol_pct']:.0f}%)"
    assert ceiling_share.sol_cell(fa4, True) == f"≥{fa4['sol_floor_pct']:.0f}%"
    cells = [ceiling_share.sol_cell(r, True) for r in rows if r["status"] == "ok" and not r.get("wrong")
             and r.get("sol_floor_pct") is not None and r["sol_floor_pct"] == r["sol_floor_pct"]]
    assert cells and all(c.startswith("≥") for c in cells)


def test_the_legend_says_the_column_is_a_floor_where_it_is(sliding):
    _, rows = sliding
    note = scenario_words.table_note("tflops", "inference", points=rows)
    assert "speed of light at the GPU's maximum clock, a floor (≥)" in note
    assert "speed of light at the window's clock" not in note
    one = [r for r in rows if r["one_clock"]]
    assert not points.sol_floors(one)
    assert "speed of light at the window's clock" in scenario_words.table_note("tflops", "inference", points=one)
    assert all(not ceiling_share.sol_cell(r, points.sol_floors(one)).startswith("≥") for r in one)
