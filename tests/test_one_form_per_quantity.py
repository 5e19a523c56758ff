"""One quantity, one precision and one form, on every page (gen.report.format names each rule): a ratio range at two
decimals ("1.00–21.56×" stood beside "1.000–1.196×"), a time at the site's one resolution wherever it appears (175.08
µs on one page, 175.1 µs on the other; "425.9 ms" beside "521.216 ms"), a range in one unit ("37.8 ms to 0.16 s"), a
clock gap at sum_clocks.apart's precision and in one form, the higher side named ("FP8's clock 5% higher" for 5.3%;
"X's clock 3.2% the higher", "the higher clock for X, 6.5% apart", "clocks 6.2% apart")."""

from __future__ import annotations

import re

from gen.report.words import common, first_calls, fp8_speed
from tests.test_review_20_l import _prose

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def test_a_ratio_range_beside_a_line_keeps_two_decimals():
    assert common.range_beside(1.0, 1.1961, 1.2) == "1.00× to just under 1.2×"
    assert common.range_beside(1.0, 1.1, 1.2) == "1.00–1.10×"
    assert common.range_beside(1.1, 1.1001, 1.2) == "1.10×"


def test_a_first_call_range_across_two_units_reads_in_one():
    assert first_calls.span([0.0378, 0.1584]) == "37.8–158.4 ms"
    assert first_calls.span([0.48, 1.24]) == "0.48–1.24 s" and first_calls.span([0.0376, 0.0731]) == "37.6–73.1 ms"


def test_a_clock_gap_takes_the_precision_of_every_other_gap():
    assert fp8_speed._clock(1779.0, 1690.0, "SDPA cuDNN's") == "FP8's clock 5.3% higher"
    assert fp8_speed._clock(1779.0, 1606.9, "SDPA cuDNN's") == "FP8's clock 11% higher"


def _pages(results_docs):
    return {p: _prose(p.read_text(encoding="utf-8")) for p in (results_docs / "generated").rglob("*.md")}


def test_no_page_gives_a_clock_gap_in_another_form(results_docs):
    for p, text in _pages(results_docs).items():
        assert "% the higher" not in text and "the higher clock for" not in text, p
        assert not re.search(r"clock \d%", text), p  # a gap under 10% at whole percent
        assert not re.search(r"\bclocks \d+(\.\d)?% apart", text), p


def test_the_home_gives_its_gains_over_sdpa_at_one_precision(results_docs):
    home = " ".join(_prose((results_docs / "generated" / x).read_text(encoding="utf-8"))
                    for x in (".first.md", ".home.md"))
    assert "1.00–21.56×" in home and "1.000–1.196×" not in home
    assert not re.search(r"\d+\.\d ms to \d+\.\d+ s", home)


def test_a_time_reads_alike_on_every_page(results_docs):
    pages = _pages(results_docs)
    decode = pages[results_docs / "generated" / "sets" / OLDER / "scenarios" / "decode.md"]
    there = re.search(r"There, in the same order: (.*?)\. The", decode).group(1)
    assert not re.search(r"\d+\.\d\d µs", there), there  # 175.08 µs on the decode page was 175.1 µs elsewhere
    dyn = pages[results_docs / "generated" / "sets" / OLDER / "scenarios" / "dynamic-lengths.md"]
    spread = re.search(r"pays a median (.*?) a decode step \((.*?) at the first\)", dyn)
    figures = re.findall(r"\d+\.(\d+)", spread.group(0))
    assert len(figures) >= 4 and {len(d) for d in figures} == {3}, spread.group(0)
