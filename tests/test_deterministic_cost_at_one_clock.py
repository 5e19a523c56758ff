"""A determinism cost read off two kernel sums whose windows ran within rules.CLOCK_GAP_PCT of each other is one clock:
the line gives the kernel-sum ratio with its clocks and no second, equal-clock figure that only rounds it otherwise
(SDPA flash's 9.997 against 6.441 ms at 1980 and 1976 MHz read "1.55× by kernel sum, 1.56× at equal clock")."""

from __future__ import annotations

import pytest

from gen.analysis import advice, determinism, rules
from gen.report.words import deterministic
from tests.conftest import committed_set

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def costs():
    a = advice.advice(committed_set(OLDER))
    return a, {d.variant: d for d in a.determinism}


def test_kernel_sums_within_the_clock_gate_get_no_equal_clock_ratio(costs):
    _, ds = costs
    checked = 0
    for d in ds.values():
        if d.sums_mhz and all(d.sums_mhz):
            gap = rules.clock_gap_pct(*d.sums_mhz)
            assert (d.ratio_at_ref is None) == (gap <= rules.CLOCK_GAP_PCT)
            checked += 1
    assert checked >= 2
    flash = ds["sdpa_flash_det"]
    assert flash.ratio == pytest.approx(1.552, abs=0.002) and flash.ratio_at_ref is None
    assert determinism.fair_sums((flash.det_ms, flash.sums_mhz[0]), (flash.base_ms, flash.sums_mhz[1]))


def test_the_first_screen_gives_the_kernel_sum_ratio_alone_with_its_clocks(costs):
    a, _ = costs
    line = deterministic._determinism(a)
    assert "1.55× by kernel sum (at 1980 against 1976 MHz)" in line
    assert "2.78× by kernel sum (both at 1980 MHz)" in line
    assert "1.56× at equal clock" not in line and "2.78× at equal clock" not in line
