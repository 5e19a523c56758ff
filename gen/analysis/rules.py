"""Every threshold and classifier of the report, named once, each with where it comes from.

Takes: plain numbers and kernel names. Gives: the constants and the small
predicates that analysis applies and that pages and docs quote (never restate
a number from here as a literal: import it). Rules that judge a whole set
(findings, verdicts) build on these; this module holds no tables and no words.
"""

from __future__ import annotations

from gen.analysis.values import missing
from gen.model import graph_rule, stats
from gen.model.records import PowerReading

# --------------------------------------------------------------------------- uncertainty

# Every classification (host-bound, fastest, each rank) has three outcomes: yes, no, or within noise (the times cannot
# tell), never a bare comparison of two medians. The uncertainty of a median is CI_METHOD at CI_LEVEL, widened to at
# least +-TIME_FLOOR_PCT of the median.
YES, NO, WITHIN_NOISE = "yes", "no", "within noise"
OUTCOMES = (YES, NO, WITHIN_NOISE)

CI_LEVEL = stats.CI_LEVEL
# Distribution-free: no assumption about the shape of the samples (timings have long right tails). With rounds (schema 3
# times each window in interleaved rounds), the unit is a round's median, so that what changes between rounds (clocks,
# the host's state) is in the interval; without, the raw samples.
CI_METHOD = ("the distribution-free confidence interval of the median from order statistics (the binomial "
             "interval), over the medians of the interleaved rounds where a timing has several, else over its "
             "raw samples")
# Too few units for a 95% order-statistic interval (fewer than 6): the interval is then the whole range of the units,
# and its level is what that range gives. The floor: GPU-only medians of the same call in two captures on one H200, 13
# minutes apart, differ by up to 0.8% (benchmarks/capture_agreement.md), more than one capture's order-statistic
# interval of 50 replays allows (0.1-0.3%): a capture's own samples do not see what changes between captures (clocks,
# memory placement). So no interval is narrower than +-1%.
TIME_FLOOR_PCT = 1.0
TIME_FLOOR = 1 + TIME_FLOOR_PCT / 100.0  # the floor as a ratio of two times


# Two intervals apart by less than this share of the faster median are "just outside" each other: the gap is
# smaller than half the floor's own half-width (TIME_FLOOR_PCT), so one more round, or a floor a hair wider, would
# close it. The words then give the gap (paged FA4 against FA4: 0.27 µs at 175 µs, 0.15%),
# never a bare "apart".
JUST_OUTSIDE_PCT = TIME_FLOOR_PCT / 2


def just_outside(gap_ms: float | None, faster_ms: float | None) -> bool:
    """Two intervals apart (gap_ms > 0), by at most JUST_OUTSIDE_PCT of the faster median."""
    return (not missing(gap_ms) and not missing(faster_ms) and faster_ms > 0
            and 0 < gap_ms <= faster_ms * JUST_OUTSIDE_PCT / 100)


def apart(a_hi: float, b_lo: float) -> bool:
    """Time a is decidedly shorter than time b: a's interval ends below b's begins."""
    return not missing(a_hi) and not missing(b_lo) and a_hi < b_lo


# --------------------------------------------------------------------------- who leads

# Who leads a pair at one point is read from the as-run order (the GPU-only medians with their intervals, each
# timed in a window of its own), checked against the kernel sum (the GPU events of the profiled calls added up, those
# calls in windows of their own). The as-run order names a leader only where
#   - its intervals are apart (`apart`),
#   - its ratio exceeds the point's as-run noise of identical kernels (gen.analysis.pair_noise: two calls there that
#     ran the very same kernels, larger median over smaller) by more than TIME_FLOOR_PCT (that ratio is itself two
#     medians, each known to the floor), and
#   - the kernel sum, where both calls have one and their profiled windows' mean SM clocks are within CLOCK_GAP_PCT
#     of each other, does not put the other call ahead by more than TIME_FLOOR_PCT.
# Otherwise the pair is not decided: it shares the rank, within noise, and the words give the orders beside it.
# Why the noise of identical kernels: on the H100 set SDPA with cuDNN pinned and SDPA
# with no backend pinned run the same kernels, their kernel sums within 0.1%, yet read 1.07-1.16x apart as run: the
# windows' conditions alone move as-run times that much; the intervals do not see it.
# Equal clock (time x window mean SM clock / reference clock) is no check of this rule: round times do not follow
# their window's clock (gen.analysis.method.clock_evidence), so it is printed as a model only (clocks are never locked).
# The kernel sums' windows: two sums taken 13% apart in clock put FA4 1.13x ahead where every other order put
# FLASH ahead, so only sums of windows within the gap line may overrule.
# Each orientation on its own: forward rounds and reversed ones give each variant a
# different predecessor, and at power-limited points a round's time follows its predecessor's draw; the whole median
# stands for neither orientation, so a lead is decided only where the leader is ahead by more than TIME_FLOOR_PCT in
# the median of its forward rounds and in that of its reversed rounds, each on its own.
# Each orientation against a line of its own: identical kernels' orientation medians move
# further apart than their whole ones, so the weaker orientation is set against the identical pairs' larger
# forward-or-reversed ratio (pair_noise.AsRunNoise.oriented). A noise line is one draw of identical kernels' windows
#: where the kernel sums ran within CLOCK_GAP_PCT of each other's clock, agree with the
# as-run order beyond TIME_FLOOR_PCT, and both orientations agree, the sums decide instead of the line.
# Timed apart: a variant that ran out of memory beside the others is retried
# alone after them (gen.capture.sweep.group), a graph whose pool did not fit beside an eager call is replayed alone
# after the rounds (gen.capture.timing._Rounds.graph_after), and a set's first-shape runs are timed each in a
# sequence of its own: such times were taken in other thermal and power conditions. A lead between two calls not
# timed in the same rounds (gen.analysis.calls.same_rounds) is not decided by the as-run times, nor by the point's
# noise line or orientations (both of the shared rounds): only the kernel sums may decide it, where their windows ran
# within CLOCK_GAP_PCT of each other's clock (or past it, below) and agree with the as-run order beyond
# TIME_FLOOR_PCT. A set that does not record where a call was timed (before slots) is read as before.
CLOCK_GAP_PCT = 5.0
# Sums farther apart in clock still decide where their lead exceeds what the gap can explain:
# a kernel's time falls at most in proportion to 1 / clock, so a clock g above the other's explains at most
# (1 + g) of its sum's lead (paired H100 set, sliding windows: FlexAttention 1.38x by kernel sum at 1980 against 1860
# MHz, 1.29x left). What is left (sums_past_clock) decides as sums at one clock would; not at memory-bound points.
# ... except a lead too large for the conditions to explain: the SM clock under load stays above about 1200 MHz
# (1185 MHz the lowest sampled on the H100 set, 1.67x below 1980) and identical kernels read at most 1.147x apart as
# run; together 1.92x, under 2x, so a lead beyond it is the kernels' own wherever the two were
# timed. gen.analysis.reach computes the bound from each set (the methodology prints it; a test fails where it
# reaches this line while it decides a pair). The kernel sums, where fair, must not contradict it.
TIMED_APART_REACH = 2.0
# The methodology's count of variant-points whose forward and reversed medians differ (gen.analysis.method): by more
# than this share of the smaller (61 of 225 on the H100 set), a gap past any interval
# the rounds give (their floor is TIME_FLOOR_PCT).
ORIENTATION_GAP_PCT = 5.0
# Two graph replays run identical kernels (gen.analysis.pair_noise) where their graph kernels and launches are the same
# and their calls per replay within this share of each other: a replay's time is divided by its calls, and capture
# sizes replays by time, so the same kernels get 34 and 35 calls (article 1024 tokens, D 64) or 180 and 181; one call
# more only spreads the replay's one launch over one more call.
SAME_REPLAY_PCT = 5.0
# The methodology's evidence that equal clock is a model (gen.analysis.method.clock_evidence): a variant-point's rounds
# are checked where their mean SM clocks span at least this much (of the highest), so that time x clock, were time
# inverse to clock, would pull the rounds together by more than their own spread (1-3% at these points).
ROUND_CLOCK_SPAN_PCT = 8.0
# A kernel sum this far above both its call's own graph and eager medians is no order's evidence: the profiled
# calls ran otherwise than the timed ones (gen.analysis.leads.kernel_sum_ms)
KERNEL_SUM_EXCESS = 1.10
# A kernel sum and its own call's graph replay further apart than this (the larger over the smaller, past what their
# windows' clock gap explains, the windows within CLOCK_GAP_PCT), and no kernel sum decides a pair with that call or its
# twins (gen.analysis.calls.sums_off_graph): SDPA flash's decode sums read 1.17-1.19x its replays at one clock in both
# H100 sets (the same kernels in both; cuDNN's within 1%), so a lead "by kernel sum" there is the profiler's, not the
# kernels'. The line is past the sums' own noise (identical kernels' sums read up to
# 1.07x apart) and the floor; the as-run order alone is then read. A sum slower than its replay though taken at an
# equal or higher clock is checked at any gap (sum_slower_at_higher_clock): the clock can only have helped it, so it is
# off by at least its ratio (older H100 set: SDPA cuDNN at GQA 32k 1.08x at 1839 against 1720 MHz).
KERNEL_SUM_GRAPH_RATIO = 1.10


def sum_slower_at_higher_clock(ratio: float | None, sum_mhz: float | None, graph_mhz: float | None) -> bool:
    """A kernel sum over its graph replay above 1 with the sum's window at an equal or higher clock."""
    return not (missing(ratio) or missing(sum_mhz) or missing(graph_mhz)) and ratio > 1 and sum_mhz >= graph_mhz


def clock_gap_pct(a_mhz: float | None, b_mhz: float | None) -> float | None:
    """How far apart two windows' mean SM clocks are: the higher over the lower, less one, in % (1980 against 1860
    MHz: 6.5%), the most of a time ratio the gap can explain (clock_left), so that a gap and what it explains read
    alike ("6.1% apart", of the higher, beside "can explain up to 1.065×"); None where
    either is missing."""
    if missing(a_mhz) or missing(b_mhz) or min(a_mhz, b_mhz) <= 0:
        return None
    return (max(a_mhz, b_mhz) / min(a_mhz, b_mhz) - 1) * 100.0


def clocks_apart(a_mhz: float | None, b_mhz: float | None) -> bool:
    """Two windows' clocks more than CLOCK_GAP_PCT apart (clock_gap_pct); False where either is missing."""
    gap = clock_gap_pct(a_mhz, b_mhz)
    return gap is not None and gap > CLOCK_GAP_PCT


# A window has one clock to scale its time by only where its lowest SM clock sample lies within CLOCK_GAP_PCT of its
# mean: past that, it held clocks the report counts as two, and its rounds did too (a window past the line has rounds
# whose clocks span ROUND_CLOCK_SPAN_PCT or more far more often than one within it: gen.analysis.method.one_clock_split,
# which a test holds to the sets). Such a window gets no time at equal clock and no share of a ceiling at its clock;
# its share of the speed of light is given at the GPU's maximum clock, a floor (a kernel never runs above it).
def one_clock(mean_mhz: float | None, min_mhz: float | None) -> bool:
    """The window's lowest clock sample within CLOCK_GAP_PCT of its mean; True where either is not recorded."""
    return not clocks_apart(mean_mhz, min_mhz)


def clock_left(ratio: float | None, a_mhz: float | None, b_mhz: float | None) -> float | None:
    """The kernel sums' ratio (b's over a's) less the most their windows' clock gap can explain (above): the leader's
    lead over its clock ratio, whole where it ran at the lower clock; None where a figure is missing."""
    if missing(ratio) or missing(a_mhz) or missing(b_mhz) or a_mhz <= 0 or b_mhz <= 0:
        return None
    return ratio / max(a_mhz / b_mhz, 1) if ratio >= 1 else ratio * max(b_mhz / a_mhz, 1)


def sums_past_clock(ratio: float | None, a_mhz: float | None, b_mhz: float | None,
                    floor: float = TIME_FLOOR) -> float | None:
    """clock_left, where what is left is beyond `floor` (kernel_sum_floor); None where a figure is missing or it is
    within (the sums then say nothing past the gap). A bound, not a model: what is left never turns the order round."""
    left = clock_left(ratio, a_mhz, b_mhz)
    if left is None:
        return None
    return left if (left > floor if ratio >= 1 else left * floor < 1) else None


# Kernel sums of identical kernels read apart too (SDPA cuDNN 49.86 µs against SDPA with no
# backend pinned 50.82 µs at paired decode, 4,096 keys, 1.019x, both at 1980 MHz; the sliding-window point of the
# older H100 set 1.069x at clocks 1.4% apart): three profiled calls a side are one draw of their windows. So wherever
# kernel sums decide, overrule or name a leader (lead_decided, sums_past_clock, leads.Orders.kernels_leader), they count
# only past the point's kernel-sum noise of identical kernels (gen.analysis.pair_noise: the larger sum over the smaller,
# less what their clock gap explains, as clock_left reads any two sums), or TIME_FLOOR where that is smaller; a point
# with no identical pair borrows the set's largest among points rated in the same figure, as the as-run line does.
def kernel_sum_floor(noise: float | None) -> float:
    """The ratio two kernel sums must pass to say anything: the point's kernel-sum noise of identical kernels, or
    TIME_FLOOR, whichever is larger."""
    return TIME_FLOOR if missing(noise) else max(TIME_FLOOR, noise)


def beyond_pair_noise(as_run: float | None, orientations: tuple[float | None, float | None], noise: float | None,
                      noise_oriented: float | None = None) -> bool:
    """The lead stands beyond the as-run noise of identical kernels (the rule above): its as-run ratio beyond the whole
    medians' line `noise` by more than TIME_FLOOR_PCT, its weaker round orientation beyond the orientations' line
    `noise_oriented` (`noise` where None) by as much. True where there is no line."""
    if missing(noise):
        return True
    oriented = [r for r in orientations if not missing(r)]
    line = noise if missing(noise_oriented) else noise_oriented
    return (not missing(as_run) and as_run > noise * TIME_FLOOR
            and (not oriented or min(oriented) > line * TIME_FLOOR))


# Paired rounds: two calls timed in the same
# shared rounds (calls.same_rounds) ran each round's windows one after the other, so their ratio within a round
# (second's round median over first's) drops what moves whole rounds apart, but not what moves one window against the
# next: identical kernels in the same round read 0.85-1.23x apart at the paired set's GQA 16k (SDPA cuDNN against SDPA
# with no backend pinned), and a pair's per-round ratio splits by which of the two ran first (packed documents:
# 1.01-1.04x in the rounds FlexAttention ran first, 1.08-1.15x in the others). So a lead the unpaired intervals leave
# open is decided round by round only where, in the forward rounds and in the reversed ones each on its own (as the as-
# run rule reads its orientations), the interval of the median of the per-round ratios (stats.median_interval: the whole
# range where the rounds are too few for CI_LEVEL) lies past the point's per-round noise of identical kernels
# (gen.analysis.pair_noise: their largest per-round ratio, either call over the other; borrowed where the point has
# none, as the as-run line is) by more than TIME_FLOOR_PCT. Up to 8 rounds an orientation, that interval is the whole
# range: every shared round must clear the line, whichever call ran first in it, and the pages say so jointly ("ahead
# in all 5 shared rounds, each past the line"), not as per-orientation levels.
# The fair kernel sums must not put the other call ahead past kernel_sum_floor, and the lead must hold against each
# member of a tie (leads.orders: a call ahead of SDPA with no backend pinned is ahead of SDPA cuDNN too, or of neither).
# Each orientation needs PAIRED_MIN_ORIENTATION_ROUNDS rounds of its own: one round is a
# single ratio, no interval of a median at all (its "level" 0%), yet 3 shared rounds left one orientation with one. A
# set that did not reverse its rounds needs as many rounds in all as two orientations would.
PAIRED_MIN_ORIENTATION_ROUNDS = 2
PAIRED_MIN_ROUNDS = 2 * PAIRED_MIN_ORIENTATION_ROUNDS


def paired_intervals(groups) -> tuple[tuple[float, float], ...] | None:
    """Each orientation's interval of the median of its per-round ratios (`groups`: the ratios of the forward rounds
    and of the reversed ones, or one group where the set did not reverse its rounds; the rule above); None where
    fewer than PAIRED_MIN_ROUNDS rounds in all, an orientation with fewer than PAIRED_MIN_ORIENTATION_ROUNDS, or a
    ratio missing."""
    groups = [list(g or ()) for g in groups or ()]
    if (not groups or any(len(g) < PAIRED_MIN_ORIENTATION_ROUNDS for g in groups)
            or sum(map(len, groups)) < PAIRED_MIN_ROUNDS
            or any(missing(r) for g in groups for r in g)):
        return None
    return tuple(stats.median_interval(g) for g in groups)


def paired_past(line: float | None) -> float:
    """The ratio a round, or an orientation's interval, must pass to count for a lead (paired_leads): the per-round
    noise line `line` (None: no identical pair, the floor alone) by more than TIME_FLOOR_PCT."""
    return (1.0 if missing(line) else max(line, 1.0)) * TIME_FLOOR


def paired_leads(intervals: tuple[tuple[float, float], ...] | None, line: float | None = None) -> bool | None:
    """Over the shared rounds (paired_intervals: second's time over first's), the first leads (True), the second does
    (False), or neither (None): every orientation's interval past the per-round noise line `line` (None: no identical
    pair in the set, the floor alone) by more than TIME_FLOOR_PCT, on the one side."""
    if not intervals:
        return None
    past = paired_past(line)
    if all(lo > past for lo, _ in intervals):
        return True
    if all(hi * past < 1 for _, hi in intervals):
        return False
    return None


def lead_decided(as_run_apart: bool, as_run: float | None, noise: float | None,
                 kernel_sum_ratio: float | None = None, kernel_sum_gap: float | None = None,
                 orientations: tuple[float | None, float | None] = (None, None),
                 same_rounds: bool | None = None, noise_oriented: float | None = None,
                 kernel_sum_clocks: tuple[float | None, float | None] = (None, None),
                 paired: bool | None = None, kernel_sum_noise: float | None = None) -> bool:
    """The rule above for a pair whose as-run median puts a ahead of b: `as_run` and `kernel_sum_ratio` are b's time
    over a's (above 1: a ahead; None where that order is not there); `noise`: the point's as-run noise of identical
    kernels (larger median over smaller; None where the set has no identical pair, so none to check);
    `kernel_sum_gap`: clock_gap_pct of the two profiled calls' windows (None: not known, the sums stand);
    `orientations`: b over a in the forward rounds' medians and in the reversed rounds' (None: the set did not
    reverse its rounds, nothing to check); `same_rounds`: False
    where the two were not timed in the same rounds (only the kernel sums at one clock decide), None where not known;
    `noise_oriented`: the line for one orientation's medians (beyond_pair_noise; None: `noise` stands for it);
    `kernel_sum_clocks`: a's and b's kernel-sum windows' clocks (sums past CLOCK_GAP_PCT decide by sums_past_clock);
    `paired`: the shared rounds' outcome (paired_leads, held against each member of a tie: leads.orders): True, a
    ahead; False, b ahead; None, neither or not timed in the same rounds; `kernel_sum_noise`: the point's kernel-sum
    noise of identical kernels (kernel_sum_floor; None: the floor alone). True: a leads; False: not decided."""
    if missing(as_run):
        return False
    floor, ks_floor = TIME_FLOOR, kernel_sum_floor(kernel_sum_noise)
    past = sums_past_clock(kernel_sum_ratio, *kernel_sum_clocks, floor=ks_floor)
    if kernel_sum_gap is not None and kernel_sum_gap > CLOCK_GAP_PCT and past is not None:
        kernel_sum_ratio, kernel_sum_gap = past, 0.0  # the lead left past the clock gap decides as at one clock
    by_rounds = paired if same_rounds else None
    if by_rounds is False:
        return False  # b ahead past the line in the rounds both shared: the medians' order is not a's
    if by_rounds:  # a ahead past the line within the rounds both shared, whatever the unpaired intervals
        sums_fair = kernel_sum_gap is None or kernel_sum_gap <= CLOCK_GAP_PCT
        return not (sums_fair and not missing(kernel_sum_ratio) and kernel_sum_ratio * ks_floor < 1)
    if not as_run_apart:
        return False
    if same_rounds is False:  # timed apart: the as-run times were taken in different conditions
        sums_fair = kernel_sum_gap is not None and kernel_sum_gap <= CLOCK_GAP_PCT and not missing(kernel_sum_ratio)
        if as_run > TIMED_APART_REACH:  # past what the conditions can move a time
            return not (sums_fair and kernel_sum_ratio * ks_floor < 1)
        return sums_fair and kernel_sum_ratio > ks_floor
    oriented = [r for r in orientations if not missing(r)]
    if len(oriented) == 2 and min(oriented) <= floor:
        return False  # flips, or within the floor, after one of its two neighbours
    sums_fair = kernel_sum_gap is None or kernel_sum_gap <= CLOCK_GAP_PCT
    sums_decide = (len(oriented) == 2 and kernel_sum_gap is not None and sums_fair
                   and not missing(kernel_sum_ratio) and kernel_sum_ratio > ks_floor)
    # the weaker orientation bears the lead as much as the median does: a lead beyond the line only in the forward
    # rounds, which the 5-round median is taken from, is within it (packed documents
    # 1.17x as run, 1.07x in the reversed rounds, against a 1.147x line), and an orientation's line is the identical
    # pairs' orientation medians', not their whole medians'
    if not beyond_pair_noise(as_run, orientations, noise, noise_oriented) and not sums_decide:
        return False  # within what identical kernels read apart at this point
    return not (sums_fair and not missing(kernel_sum_ratio) and kernel_sum_ratio * ks_floor < 1)


def orientation_gap_pct(forward_ms: float | None, reversed_ms: float | None) -> float | None:
    """How far apart a variant-point's forward and reversed medians are, in % of the smaller."""
    if missing(forward_ms) or missing(reversed_ms) or min(forward_ms, reversed_ms) <= 0:
        return None
    return (max(forward_ms, reversed_ms) / min(forward_ms, reversed_ms) - 1) * 100.0


# --------------------------------------------------------------------------- masked work

# A verdict names the work an SDPA call does outside the mask as the reason it loses (SDPA takes a
# sliding window only as a dense attn_mask and scores every pair) when scoring every pair is at least
# this many times the work inside the mask (gen.analysis.flops): below it, the extra work is too small
# to be the reason by itself.
MASKED_WORK_RATIO = 1.5


# A verdict gives "fewer GPU events a call" as the reason the fastest wins only when the runner-up's
# events besides its main kernel take at least this share of the gap between the two calls (in the
# profiled call): a sub-microsecond fill beside a kernel milliseconds slower explains nothing, and the
# verdict then compares the main kernels themselves.
EVENTS_REASON_SHARE = 0.5


# --------------------------------------------------------------------------- first calls

# A first call counts as a one-time setup (a library's plan, a compile) when it takes more than this
# many times the other fused backends' first calls at the same problem: theirs load a precompiled
# kernel (tens of milliseconds at most on the H200), a setup takes a second.
FIRST_CALL_RATIO = 10.0
# A run over new lengths (the dynamic-lengths scenario): its leading lengths whose first call costs more
# than WARMUP_FACTOR times the overhead it settles at (the median over its later half of lengths), and more
# than WARMUP_FLOOR_MS, are its warm-up, paid once (a compile and its recompiles to dynamic shapes, or loading
# compiled code or a library); the overhead per new length is the median over the lengths after them. The floor
# keeps an eager call's one slow first call (a few ms: an allocation, a first launch) out: a compile or a load
# of compiled code takes tens of milliseconds or more.
WARMUP_FACTOR = 10.0
WARMUP_FLOOR_MS = 50.0
# Two runs' costs of a new length (first call against second, each on the wall clock with the GPU drained) that
# differ by less than this are not told apart: a drained wall-clock call moves by tens of microseconds run to run.
NEW_LENGTH_NOISE_MS = 0.05
# Two warm calls in a loop this close (a share of the faster) count as equal in a break-even: at decode a loop call
# is mostly the host's dispatch, and a difference of a few tenths of a microsecond would make break-evens of
# hundreds of thousands of calls out of noise
LOOP_CALL_NOISE = 0.03

# --------------------------------------------------------------------------- ties

# Calls that run the same kernels (the same multiset of GPU events in one call:
# kind and full name, from the trace, else from capture's graph check) do the
# same work on the GPU. They are one rank (a tie) on every page whatever their
# medians, and they share their host-bound outcome: where the rule above gives
# them different ones, only the host's noise tells them apart, so all are within
# noise. (Pinned cuDNN and SDPA with no backend pinned run the very same kernels.)


def shared_outcome(outcomes) -> str | None:
    """The one outcome of calls that run the same kernels: theirs where they agree
    (a missing one, None or a text column's NaN, ignored), else WITHIN_NOISE."""
    seen = {o for o in outcomes if not missing(o)}
    if not seen:
        return None
    return seen.pop() if len(seen) == 1 else WITHIN_NOISE


# --------------------------------------------------------------------------- clocks

# A 700 W-limited GPU runs its SMs slower under sustained load than in a short
# burst from idle (the H200: about 1980 MHz in a burst, 1640-1670 MHz at its
# power limit). A publisher timing a handful of calls from an idle GPU times
# them at the burst clock. The clock rule: a published time t_pub, taken at the
# burst clock f_b, is expected at our sustained clock f_s to read t_pub x f_b / f_s
# (a kernel bound by its tensor cores takes time in proportion to 1 / clock).
# The gap to the published time is the clock (explained) when our sustained time
# lands within CLOCK_RULE_PCT of that; a kernel bound by memory, whose time does
# not follow the SM clock, fails the rule and the page says so.
CLOCK_RULE_PCT = 5.0
# A timed window whose mean board power is at least this share of the enforced power limit ran at the
# limit: the GPU lowered its SM clock to hold it, and the kernel pays for its own draw in its as-run time.
POWER_AT_LIMIT_PCT = 95.0
# "Sustained" names only a window that ran at least this long: the clock a GPU settles at under its power
# limit takes seconds to reach, and a window of 0.09 s at the maximum clock is a burst, not a sustained state.
SUSTAINED_WINDOW_S = 2.0


# Equal clock (a time × its SM clock / the reference clock) holds only for a kernel bound by its SMs (the
# tensor cores take the same cycles at any clock). HBM bandwidth does not follow the SM clock: a point judged
# by the bytes it moves (its scenario's figure is TB/s: decode reads the KV cache once, far left of the
# ridge point) keeps its as-run time, and equal clock does not apply to it. Scaled anyway, FA4's decode at
# 64k on the H100 (0.711 ms at 1802 MHz) would read 0.647 ms "at 1980 MHz", 3.32 TB/s: above the measured
# read ceiling (3.08 TB/s) and at the datasheet's 3.35.
MEMORY_BOUND_FIGURE = "tbps"

# A backend PyTorch's dispatcher would have run at a point, as gen.capture.explain.backend_reasons writes it
ELIGIBLE = "eligible"


def equal_clock_applies(figure: str | None) -> bool:
    """Scaling a time by the SM clock applies to the point: its figure is not MEMORY_BOUND_FIGURE."""
    return figure != MEMORY_BOUND_FIGURE


def at_power_limit(power_w: float | None, limit_w: float | None) -> bool:
    """The window's mean power reached POWER_AT_LIMIT_PCT of the enforced limit."""
    return not (missing(power_w) or missing(limit_w)) and bool(limit_w) and \
        100.0 * power_w / limit_w >= POWER_AT_LIMIT_PCT


def sustained(window_s: float | None) -> bool:
    """The window ran long enough to be called sustained (SUSTAINED_WINDOW_S)."""
    return not missing(window_s) and window_s >= SUSTAINED_WINDOW_S
# A burst long enough to heat the GPU (20 calls of 25 ms at 700 W) slows within itself: its
# last BURST_EARLY_CALLS calls over its fastest early call by more than CLOCK_RULE_PCT. Its
# figure is then its leading calls within CLOCK_RULE_PCT of that fastest one, before the first
# slower call: the handful a publisher times from an idle GPU.
BURST_EARLY_CALLS = 5


def clock_explains(ours_ms: float | None, expected_ms: float | None) -> str | None:
    """YES when our time is within CLOCK_RULE_PCT of the clock rule's expectation, NO when not;
    None when either is missing."""
    if missing(ours_ms) or missing(expected_ms) or not expected_ms:
        return None
    return YES if abs(ours_ms / expected_ms - 1) * 100 <= CLOCK_RULE_PCT else NO


# --------------------------------------------------------------------------- advice

# The first screen's decision (gen.analysis.advice): call SDPA with no backend pinned where it ranks first everywhere;
# name another call for a scenario only where it is decidedly faster (intervals apart) and by at least ADVICE_MIN_GAIN:
# a smaller gain is not worth a second code path. A one-time start-up is named when it takes at least STARTUP_NOTE_S,
# about a thousand calls of the article's shape on a GPU.
ADVICE_MIN_GAIN = 1.2
STARTUP_NOTE_S = 0.1


# --------------------------------------------------------------------------- timings that contradict themselves

# A timing whose slowest sample is this many times its fastest has split into groups of calls that
# ran at different speeds (a host busy with something else, a recompile): its median says which group
# the middle sample fell in, not what a call costs.
SPLIT_RATIO = 10.0
# A compiled variant this many times slower than the eager variant running the same module: compiled
# code should not be slower than eager, so the figure needs a word before it is read.
COMPILED_SLOWER_RATIO = 2.0
# A training step this many times its forward: the report's FLOP count puts a step at 3.5 forwards
# (gen.analysis.flops.BACKWARD_FACTOR), so ten is far beyond what the arithmetic explains.
TRAIN_OVER_FORWARD_RATIO = 10.0


# --------------------------------------------------------------------------- noise

# torch.utils.benchmark's Measurement warns when IQR / median exceeds 10%
# ("may be unstable"); the report uses the same line for a noisy timing.
NOISY_IQR_PCT = 10.0
# A ranking time whose IQR is more than half its median (a CPU host's loop at 94-278%) says little of where the
# median lies: a verdict whose first rank rests on such a time says it cannot rank, rather than naming a fastest.
CANNOT_RANK_IQR_PCT = 50.0


# A CUDA graph's replay reading above the eager time by more than this falls back to the kernel sum
# (gen.model.graph_rule, which capture shares); where there is no kernel sum to fall back to (sets of
# schema 2), the point is marked.
GRAPH_ABOVE_EAGER_PCT = graph_rule.GRAPH_ABOVE_EAGER_PCT


def graph_above_eager(gpu_only_ms: float | None, eager_ms: float | None, method: str | None) -> bool:
    """GPU-only from a graph's replay, above the eager time by more than GRAPH_ABOVE_EAGER_PCT."""
    if method != "cuda_graph" or missing(gpu_only_ms) or missing(eager_ms):
        return False
    return gpu_only_ms > eager_ms * (1 + GRAPH_ABOVE_EAGER_PCT / 100)


# A CUDA graph's replay reading below both the kernel sum of the profiled eager calls and the eager loop
# by more than this factor: a replay removes host gaps, never kernel time, so one kernel cannot run 2x
# faster in a graph (the H100 set's FP8 FlexAttention: 6.42 ms replayed against 12.69 ms profiled and
# 12.95 ms eager, at a lower clock than either). The graph figure, or its calls-per-replay accounting, is
# then wrong, and the kernel sum ranks in its place. 1.5 is far beyond anything clocks or host gaps give:
# over the committed H100 and H200 sets the next-largest kernel sum over graph reads 1.19 (memory-bound
# decode, where the eager loop agrees with the graph).
GRAPH_BELOW_KERNELS_RATIO = 1.5


def graph_below_kernels(graph_ms: float | None, kernel_sum_ms: float | None, eager_ms: float | None) -> bool:
    """The graph's median is below both the kernel sum's and eager's by more than GRAPH_BELOW_KERNELS_RATIO."""
    if missing(graph_ms) or missing(kernel_sum_ms) or missing(eager_ms) or graph_ms <= 0:
        return False
    return kernel_sum_ms > GRAPH_BELOW_KERNELS_RATIO * graph_ms and eager_ms > GRAPH_BELOW_KERNELS_RATIO * graph_ms


def burst_lead(burst_ms: list[float] | None) -> list[float] | None:
    """The leading calls of a burst that slowed within itself (see BURST_EARLY_CALLS), else None."""
    if not burst_ms or len(burst_ms) < 2 * BURST_EARLY_CALLS:
        return None
    import statistics

    ref = min(burst_ms[:BURST_EARLY_CALLS])
    tol = 1 + CLOCK_RULE_PCT / 100
    if statistics.median(burst_ms[-BURST_EARLY_CALLS:]) <= ref * tol:
        return None
    lead: list[float] = []
    for x in burst_ms:
        if x <= ref * tol:
            lead.append(x)
        elif lead:  # the first slower call after fast ones ends the lead (a slow first call is skipped)
            break
    return lead or None


# NVML's averaged power reading (nvmlDeviceGetPowerUsage, the one the enforced limit holds) is an average
# over about one second on Ampere and newer GPUs: a window shorter than this reads a power that lags what
# the GPU drew in it. The instant reading (field 186, what capture reads where the driver has it) is a 5 ms
# sample taken inside the window: it does not lag. A set that did not record its reading (before schema 5)
# may hold either, so its short windows keep the mark.
NVML_POWER_WINDOW_S = 1.0


def reads_instant(power_w: float | None, limit_w: float | None, reading: str | None) -> bool:
    """The power is NVML's instant reading: the set says so, or, in a set that does not say which reading
    it holds, the mean is above the enforced limit, which the averaged reading is held to (only a 5 ms
    instant sample reaches past it, in a transient)."""
    if reading is not None:
        return reading == PowerReading.INSTANT
    return not (missing(power_w) or missing(limit_w)) and bool(limit_w) and power_w > limit_w


def power_lags(window_s: float | None, reading: str | None = None) -> bool:
    """A window's power may lag what the GPU drew in it: the reading is (or may be) the averaged one, and
    the window is shorter than NVML_POWER_WINDOW_S."""
    return reading != PowerReading.INSTANT and not missing(window_s) and window_s < NVML_POWER_WINDOW_S


# "Held for power" (NVML's clock-event reason, schema 5) beside a window's mean SM clock within CLOCK_GAP_PCT of the
# GPU's maximum (the gap at which two clocks count as the same one for the kernel-sum rule): the words say the mean
# is near the maximum and claim no more, since a mean hides the window's dips (a
# window 4% below the maximum dipped to 1725 MHz).
def clock_near_max(mhz: float | None, max_mhz: float | None) -> bool:
    """A window's mean SM clock is within CLOCK_GAP_PCT of the GPU's maximum (clock_gap_pct: the gate's measure)."""
    if missing(mhz) or missing(max_mhz) or not max_mhz or not mhz:
        return False
    return float(mhz) >= float(max_mhz) or not clocks_apart(float(mhz), float(max_mhz))


# A rate passes a measured ceiling only beyond the time floor (TIME_FLOOR_PCT): a point within it reads the
# ceiling itself. One above it shows the ceiling does not bound it as measured (the matmul ceiling ran held
# for power at a lower clock than the point's window), and the page flags it.
def above_ceiling(pct_of_ceiling: float | None) -> bool:
    """A share of a measured ceiling above 100% + TIME_FLOOR_PCT."""
    return not missing(pct_of_ceiling) and pct_of_ceiling > 100.0 + TIME_FLOOR_PCT


def noisy(iqr_pct: float | None) -> bool:
    return not missing(iqr_pct) and iqr_pct > NOISY_IQR_PCT


# A timing with fewer samples than this is thin: its spread says little. CUDA-graph
# timing takes at least 5 replays (gen.capture.timing); a kernel sum of the article's
# 3 profiled calls falls under it, and the verdicts say so.
MIN_SAMPLES = 5

# A memset shorter than this (µs) is bookkeeping a library adds before its kernel
# (Hopper's cuBLAS nvjet GEMMs and cuDNN clear a small buffer), not a copy of the
# attention's data: the lessons tell such an event from the article's hidden copy.
SUB_US_MEMSET_US = 1.0


# An answer this far from the float64 reference (relative L2 norm of the difference) is a wrong answer, not rounding: it
# is shown, never ranked. A bf16 attention at 16k tokens errs by about 4e-3; float8 e4m3 keeps 3 mantissa bits (2^-4 =
# 6% per element), averaged down by attention's weighted sums; a mask aligned to the wrong corner, or one attending
# across documents, errs by 0.3 to several times the answer itself (issue 20's CPU runs).
WRONG_ANSWER_REL_ERROR = 0.1


def wrong_answer(rel_error: float | None) -> bool:
    return not missing(rel_error) and rel_error > WRONG_ANSWER_REL_ERROR


# --------------------------------------------------------------------------- refusals

# SDPA backends PyTorch builds for CUDA only: pinned on a CPU machine, none is viable and PyTorch says "No viable
# backend ... turning off both the math kernel and the fused kernels", when what it means is that they need CUDA.
CUDA_ONLY_BACKENDS = frozenset({"efficient", "cudnn"})


def needs_cuda(status: str, device: str, backend: str | None) -> bool:
    """A variant refused on a CPU machine because its pinned backend is CUDA-only."""
    return status == "unavailable" and device == "cpu" and backend in CUDA_ONLY_BACKENDS
