"""Whose clock was higher is said by name, never left to a preposition ("FP8's clock 11% higher", not "FP8 at an 11%
higher clock" beside "FP8 against a 6% higher clock"); a tie row's gain gives the named call's own beside the faster
call's, as its time cell gives the named call's own median."""

from __future__ import annotations

import re

from gen.analysis import verdict_point
from gen.report.words import common as words
from gen.report.words import fp8_speed, scenario_first
from tests.conftest import H100_PAIRED
from tests.test_review_20_l import _prose


def test_a_clock_gap_names_the_side_with_the_higher_clock():
    flex = "FlexAttention (compiled)'s"
    assert fp8_speed._clock(1810.5, 1920.0, flex) == f"{flex} clock 6.0% higher"  # a tenth below 10% (sum_clocks.apart)
    assert fp8_speed._clock(1779.0, 1606.9, "SDPA cuDNN's") == "FP8's clock 11% higher"
    r = dict(speedup=1.43, run_speedup=1.43, run_fp8_mhz=1779.0, run_twin_mhz=1606.9, ks_speedup=1.40,
             ks_fp8_mhz=1779.0, ks_twin_mhz=1606.9, twin="sdpa_cudnn", kernel_sums=False)
    said = fp8_speed.speed(r)
    assert "FP8's clock 11% higher" in said and " at a " not in said and "against a" not in said


def test_no_page_leaves_the_higher_clock_to_a_preposition(results_docs):
    for p in (results_docs / "generated").rglob("*.md"):
        text = _prose(p.read_text(encoding="utf-8"))
        assert not re.search(r"\b(at|against) an? \d+(\.\d+)?% higher clock", text), p


def test_a_tie_rows_gain_gives_the_named_calls_own(loaded):
    f = verdict_point.point_facts(loaded[H100_PAIRED], "gqa-prefill", "inference")
    assert f.named_tie is not None and f.gain_by == "as run"
    own = f.runner_ms / f.named_tie.median_ms
    cell = scenario_first.gain_cell(f)
    assert cell.startswith(f"{words.times(f.gain)} as run (SDPA cuDNN's; SDPA's own {words.times(own)})"), cell
    assert words.times(own) != words.times(f.gain)
