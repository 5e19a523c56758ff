"""A ratio of our kernel sum to a published kernel time is called slower or faster only where the clock rule leaves a
gap (published_sums.order_read): where our own burst at the burst clock lands on the published time the clock explains
it; where no burst was timed, no order is read."""

from __future__ import annotations

import math

import pytest

from gen.analysis import published_sums, rules
from gen.report.words import published


def _point(burst_ms=26.025, burst_mhz=1980.0, mhz=1651.0):
    return dict(sm_clock_mhz=mhz, burst_ms=burst_ms, burst_sm_clock_mhz=burst_mhz, burst_throttled=False)


def test_a_burst_on_the_published_time_is_the_clock():
    got = published_sums.order_read(_point(), 25.566, 29.739 / 25.566)
    assert got["ours_ks_read"] == published_sums.CLOCK and got["ours_ks_burst_mhz"] == 1980


def test_no_burst_reads_no_order():
    got = published_sums.order_read(_point(burst_ms=math.nan), 25.566, 28.257 / 25.566)
    assert got["ours_ks_read"] == published_sums.NO_RULE
    assert got["ours_ks_rule_reason"] == "no burst was timed at this point"


def test_a_gap_the_clock_leaves_is_read():
    slow = 25.566 * (1 + 2 * rules.CLOCK_RULE_PCT / 100)  # our burst beyond the rule's tolerance
    assert published_sums.order_read(_point(burst_ms=slow), 25.566, 1.2)["ours_ks_read"] == published_sums.SLOWER
    assert published_sums.order_read(_point(burst_ms=slow), 25.566, 0.9)["ours_ks_read"] == published_sums.FASTER


def _versus(read, reason=None):
    return dict(kv_len=32768, head_dim=128, approximate=False, anchor_tflops=688.0, tflops_from="from_time",
                anchor_ms=25.566, anchor_variant="sdpa_cudnn", ours_variant="sdpa_cudnn", ours_same=True,
                ours_ks_time_ratio=1.16, ours_ks_mhz=1651.0, ours_ks_ms=29.739, ours_time_ratio=1.18,
                ours_rate_ratio=0.85, ours_ks_read=read, ours_ks_burst_mhz=1980.0, ours_ks_rule_reason=reason,
                ours_rate_ratio_at_clock=math.nan, fastest_pct_of_ceiling=math.nan)


@pytest.mark.parametrize("read, said, unsaid", [
    (published_sums.CLOCK, "The clock explains the kernel sum's 1.16×: our own burst at 1980 MHz lands within 5% of "
                           "the published time.", "slower"),
    (published_sums.NO_RULE, "The kernel sum's 1.16× is read as neither slower nor faster: no burst was timed at this "
                             "point, so the clock rule cannot be applied.", "slower:"),
    (published_sums.SLOWER, "(29.739 ms at 1651 MHz; slower: the source's time", "clock explains"),
])
def test_the_published_block_words_the_read(read, said, unsaid):
    text = published.versus(_versus(read, "no burst was timed at this point"), "NVIDIA H200 · published",
                            lambda x: "SDPA cuDNN", False)
    assert said in text and unsaid not in text
