"""The host-bound rule: whether a Python loop's GPU waits for the host, from the eager loop against the GPU-only
time and the host's own cost of a call, with its margins named once (split from gen.analysis.rules, which holds the
outcomes YES, NO and WITHIN_NOISE this rule gives).

Takes: plain numbers (ms). Gives: the constants and the small predicates that analysis applies and that pages and
docs quote (never restate a number from here as a literal: import it). No tables, no words.
"""

from __future__ import annotations

from gen.analysis.rules import NO, WITHIN_NOISE, YES
from gen.analysis.values import missing

# A call is host-bound when the GPU waits for the host in a Python loop. Two
# measurements speak to it; the call is host-bound (yes) when both say so, not
# host-bound (no) when both say not, and within noise otherwise:
# 1. the eager loop: a Python loop sees at least HOST_BOUND_EAGER_RATIO times the
#    call's GPU-only time (the GPU sits idle for at least a fifth of each call),
#    with the intervals of both medians: yes when the ratio's lower end reaches
#    the line, no when its upper end stays below it. 1.25 restates the report's
#    earlier line, kernels busy for less than 80% of the call. A project choice,
#    not a standard.
# 2. the host's own cost of a call, its dispatch with the GPU drained, taken at
#    HOST_COST_QUANTILE (noise on a host only adds time: timeit's advice to read
#    the low end): yes when it is at least HOST_YES_MARGIN times the GPU-only
#    time (a host that much faster would still keep the GPU waiting), no when
#    it is at most 1/HOST_HEADROOM of it (a host twice as slow still keeps
#    ahead), within noise in between. The host is far less steady than the GPU:
#    on one H200 machine the same call's host cost moved 1.5-3x between windows
#    a second apart in one process (benchmarks/host_window_probe.py), and three
#    captures on two machines read host costs up to 2.5x apart for the same
#    point while their GPU-only times agreed within 1%. Over those captures'
#    72 outcomes, pairwise, 20 differed with these margins against 32 with a
#    yes at 1x; no margin makes them all agree (benchmarks/capture_agreement.md,
#    where the margins were chosen on those same captures: they decide less
#    often, and that is part of why they differ less).
# And where the eager interval straddles the line (a 129 ms call timed four
# times has a wide one), a host that costs at most 1/HOST_CLEAR of the GPU-only
# time decides: it cannot keep the GPU waiting, no. (Only there: a call that
# syncs inside itself has a small drained host cost and still idles the GPU.)
# Where a set has no host samples, the eager loop alone decides.
HOST_BOUND_EAGER_RATIO = 1.25
HOST_COST_QUANTILE = 10  # percentile
HOST_YES_MARGIN = 1.5
HOST_HEADROOM = 2.0
HOST_CLEAR = 10.0


def host_bound_outcome(eager_lo: float | None, eager_hi: float | None, gpu_lo: float | None,
                       gpu_hi: float | None, host_cost: float | None = None) -> str | None:
    """YES, NO or WITHIN_NOISE by the rule above, from the intervals of the eager and
    GPU-only medians and the host's cost of a call (ms); None when a time is missing."""
    if any(missing(x) or x <= 0 for x in (eager_lo, eager_hi, gpu_lo, gpu_hi)):
        return None
    eager = YES if eager_lo / gpu_hi >= HOST_BOUND_EAGER_RATIO else (
        NO if eager_hi / gpu_lo < HOST_BOUND_EAGER_RATIO else WITHIN_NOISE)
    if missing(host_cost):
        return eager
    if eager == WITHIN_NOISE and host_cost * HOST_CLEAR <= gpu_lo:
        return NO
    host = YES if host_cost >= HOST_YES_MARGIN * gpu_hi else (
        NO if host_cost * HOST_HEADROOM <= gpu_lo else WITHIN_NOISE)
    return eager if eager == host else WITHIN_NOISE


def host_bound_why(eager_lo: float | None, eager_hi: float | None, gpu_lo: float | None,
                   gpu_hi: float | None, host_cost: float | None = None) -> str | None:
    """Why host_bound_outcome says WITHIN_NOISE, so that the words never contradict the ratio they
    report: "eager" (the ratio's interval straddles HOST_BOUND_EAGER_RATIO), "host" (the ratio is
    clear of the line but the host's own cost of a call sits in the band where a loop waits or not
    depending on the host), "both"; None for another outcome."""
    if host_bound_outcome(eager_lo, eager_hi, gpu_lo, gpu_hi, host_cost) != WITHIN_NOISE:
        return None
    eager = host_bound_outcome(eager_lo, eager_hi, gpu_lo, gpu_hi)
    if eager != WITHIN_NOISE:
        return "host"
    host_near = not missing(host_cost) and host_cost * HOST_HEADROOM > gpu_lo
    return "both" if host_near else "eager"


def loop_waited_short_of_rule(eager_lo: float | None, eager_hi: float | None, gpu_lo: float | None,
                              gpu_hi: float | None, host_cost: float | None) -> bool:
    """Within noise by host_bound_outcome, though the eager loop alone says yes (its ratio's interval clear above
    HOST_BOUND_EAGER_RATIO) and the host's cost of a call is at least the GPU time: a loop that waited on a host slower
    than the GPU, whose cost stops short of HOST_YES_MARGIN (FA4 at the H100 set's default shape, a
    loop at 2.16x, the host's low end 1.497x). The findings list these beside the host-bound calls, with why."""
    return (host_bound_outcome(eager_lo, eager_hi, gpu_lo, gpu_hi, host_cost) == WITHIN_NOISE
            and host_bound_outcome(eager_lo, eager_hi, gpu_lo, gpu_hi) == YES
            and not missing(host_cost) and host_cost >= gpu_hi)


# The crossover: a host that dispatches a call in less time than the GPU runs it (its cost, at
# HOST_COST_QUANTILE, under the call's GPU-only time) keeps a Python loop's GPU busy. A loop that still
# reads above HOST_BOUND_EAGER_RATIO then did not wait for this host at its low end; where the host's median cost is
# over the GPU time (host_over_gpu_at_median: the H100 set's decode, cuDNN's 40.8 µs at the 10th percentile and
# 55.0 µs at the median against 49.8 µs), the loop waits on the host at most calls and the words say so; else the
# gap's cause is not established. Where the ratio's interval straddles the line and the host costs at
# most 1/HOST_HEADROOM of the GPU time, the call is not host-bound (FA4 in sliding windows: 0.33 ms of
# host against 3.12 ms of GPU). Where the host costs at most 1/HOST_CLEAR of the GPU time, the host
# cannot be the cause at all: the eager call's kernels ran slower than the GPU-only time says, or its
# spread is the clock's.
def host_under_gpu(host_cost_ms: float | None, gpu_ms: float | None) -> bool:
    """The host's cost of a call is under the call's GPU-only time (the crossover above)."""
    return not (missing(host_cost_ms) or missing(gpu_ms)) and host_cost_ms < gpu_ms


def host_over_gpu_at_median(host_median_ms: float | None, gpu_ms: float | None) -> bool:
    """The host's median cost of a call is at or above its GPU-only time: whatever its low end (host_under_gpu), the
    typical dispatch is slower than the GPU's work, so a loop waits on the host at most calls."""
    return not (missing(host_median_ms) or missing(gpu_ms)) and not host_under_gpu(host_median_ms, gpu_ms)


def host_well_under_gpu(host_cost_ms: float | None, gpu_ms: float | None) -> bool:
    """The host's cost is at most 1/HOST_HEADROOM of the GPU-only time: a host twice as slow still keeps
    ahead, so a loop whose ratio straddles the line is not host-bound."""
    return not (missing(host_cost_ms) or missing(gpu_ms)) and host_cost_ms * HOST_HEADROOM <= gpu_ms


def host_far_under_gpu(host_cost_ms: float | None, gpu_ms: float | None) -> bool:
    """The host's cost is at most 1/HOST_CLEAR of the GPU-only time: it explains no gap."""
    return not (missing(host_cost_ms) or missing(gpu_ms)) and host_cost_ms * HOST_CLEAR <= gpu_ms


def loop_waited(ratio: float) -> bool:
    """A loop's eager over GPU-only ratio at or past HOST_BOUND_EAGER_RATIO: at its median, the loop waited."""
    return ratio >= HOST_BOUND_EAGER_RATIO


def straddles_line(ci: tuple[float, float] | None) -> bool:
    """A ratio's interval (low, high) that reaches across HOST_BOUND_EAGER_RATIO: the loop alone decides nothing."""
    return ci is not None and ci[0] < HOST_BOUND_EAGER_RATIO <= ci[1]


def host_short_of_margin(host_cost_ms: float | None, gpu_ms: float | None) -> bool:
    """The host's cost of a call (at HOST_COST_QUANTILE) under HOST_YES_MARGIN times its GPU time: the host measure
    does not call the loop host-bound. False where either is zero or not known (a NaN is not known to be over)."""
    return bool(host_cost_ms) and bool(gpu_ms) and not host_cost_ms >= HOST_YES_MARGIN * gpu_ms


def host_measure(host_cost_ms: float | None, gpu_ms: float | None) -> str | None:
    """What the host's cost of a call says alone, on two point values (no interval): YES at or past HOST_YES_MARGIN
    times the GPU time, NO at or under 1/HOST_HEADROOM of it, WITHIN_NOISE between the two lines; None where either is
    missing or zero. Where the loop's ratio says yes and this does not, host_bound_outcome leaves the call undecided."""
    if missing(host_cost_ms) or missing(gpu_ms) or not gpu_ms or not host_cost_ms:
        return None
    if host_cost_ms >= HOST_YES_MARGIN * gpu_ms:
        return YES
    return NO if host_cost_ms * HOST_HEADROOM <= gpu_ms else WITHIN_NOISE


def host_bound(eager_ms: float | None, gpu_only_ms: float | None) -> bool | None:
    """The eager-loop line alone on two medians (no interval, no host cost): what a
    reader can check by hand; the report classifies with host_bound_outcome."""
    if missing(eager_ms) or missing(gpu_only_ms) or not gpu_only_ms:
        return None
    return bool(eager_ms >= HOST_BOUND_EAGER_RATIO * gpu_only_ms)
