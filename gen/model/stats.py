"""The interval of a median: one rule for capture and analysis.

Takes: samples (floats). Gives: `order_statistic_rank(n)`, the binomial rule (which order statistics
bound the median at CI_LEVEL); `interval_level(n)`, the coverage that interval really has (below CI_LEVEL where n
is too small and the whole range stands); `median_interval(units)`, the distribution-free interval of the median of
`units`; `median_ci(xs)`, (median, low, high). Standard library only: capture decides with it on the GPU
machine, and analysis (gen.analysis.timings' spread) reads every set with it.
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Sequence

CI_LEVEL = 0.95


@functools.cache
def order_statistic_rank(n: int, level: float = CI_LEVEL) -> int:
    """The largest k (1-based) with P(x(k) <= median <= x(n+1-k)) >= level for n units,
    that is 1 - 2 P(Bin(n, 1/2) <= k-1) >= level; 1 (the whole range) when none reaches it."""
    cdf, k = 0.0, 1
    log_half = n * math.log(0.5)
    for i in range(0, (n + 1) // 2):
        cdf += math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half)
        if 1 - 2 * cdf < level:  # cdf = P(Bin <= i): the coverage of rank i + 1 falls short
            break
        k = i + 1
    return k if n else 0


@functools.cache
def interval_level(n: int, level: float = CI_LEVEL) -> float:
    """The coverage of median_interval over n units: 1 - 2 P(Bin(n, 1/2) <= k-1) at k = order_statistic_rank(n),
    at least `level` where n allows it; below it where the interval falls back to the whole range (5 units: 1 - 2/32
    = 93.75%); NaN without units."""
    if n < 1:
        return math.nan
    k = order_statistic_rank(n, level)
    log_half = n * math.log(0.5)
    cdf = sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half)
              for i in range(k))
    return 1 - 2 * cdf


def median_interval(units: Sequence[float], level: float = CI_LEVEL) -> tuple[float, float]:
    """The distribution-free interval of the median of `units` (order_statistic_rank):
    [x(k), x(n+1-k)] of the sorted units; the whole range where n is too small for the level."""
    x = sorted(float(u) for u in units)
    if not x:
        return math.nan, math.nan
    k = order_statistic_rank(len(x), level)
    return x[k - 1], x[len(x) - k]


def median_ci(xs: Sequence[float]) -> tuple[float, float, float]:
    """(median, low, high): the median of xs and its interval (median_interval)."""
    return (statistics.median(xs), *median_interval(xs))
