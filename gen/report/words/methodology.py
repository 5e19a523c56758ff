"""The report's rules, stated once in words (the Methodology page quotes them, other pages point at
them): host-bound, tensor cores, noise, the verdict's ranking, the three times a call is given."""

from __future__ import annotations

from gen.analysis import host_rules, kernel_rules, rules
from gen.report.words import orders as orders_words
from gen.report.words.common import LEVEL_ALLOWED, duration_us, join_and, label, level_pct, level_span, times
from gen.report.words.places import place_of
from gen.report.words.sum_clocks import clock_against, possessive


def _full() -> int:
    """The fewest units (rounds, or samples with one round) whose interval of a median reaches stats.CI_LEVEL."""
    from gen.model import stats

    return next(n for n in range(1, 100) if stats.interval_level(n) >= stats.CI_LEVEL)


def ci_levels(units=(), by_set=()) -> str:
    """The levels the intervals of medians have on these pages, never "95%" alone (one span for
    the home and the methodology, not 75%-96.88% from a set's medians on one and the rule's 93.75%-96.88% on the other):
    the span over
    `units` (verdicts.ranked_units of the sets shown), from common.level_span as the home's line is, then each level
    below 95% with the count that gives it. Without units, the rule's own span (5 rounds and 6). `by_set`: (set title,
    its units, whether it has rounds) of each set shown; where their spans differ, each span with the sets that give
    it, so a set page's range is found here by its set (the methodology's 75%-98.83%
    beside the home's 75%-96.88%)."""
    from gen.model import stats

    full = _full()
    shown = sorted({int(u) for u in units if u and u > 0})
    got = shown or [full - 1, full]
    each = [f"{level_pct(stats.interval_level(u))} for {u}" for u in got if u < full]
    return (f"{level_span(got)}, {LEVEL_ALLOWED} ({'over the sets shown here: ' if shown else ''}"
            + ", ".join([*each, f"at least {level_pct(stats.CI_LEVEL)} from {full}"]) + _per_set(by_set) + ")")


def _per_set(by_set) -> str:
    """"; by set: 75%–96.88% in A and B (the top from 6 rounds), 75%–98.83% in C (the top from 11 raw samples)" where
    the sets' spans (common.level_span) differ; "" elsewhere. `by_set`: (title, units, whether its timings have rounds:
    a set without them has its raw samples as units); the top is the fewest units that give the highest level (levels
    do not rise with every unit: 11 samples give 98.83%, 20 give 95.86%)."""
    from gen.model import stats

    spans: dict[tuple, list[str]] = {}
    for title, units, rounds in by_set:
        span = level_span(units)
        if span is not None:
            top = min((u for u in units if u and u > 0), key=lambda u: (-stats.interval_level(int(u)), u))
            spans.setdefault((span, int(top), rounds), []).append(title)
    if len({span for span, _, _ in spans}) < 2:
        return ""
    return "; by set: " + ", ".join(
        f"{span} in {join_and(titles)} (the top from {top} {'rounds' if rounds else 'raw samples, in one round'})"
        for (span, top, rounds), titles in spans.items())


def _short_interval() -> str:
    """Where too few units leave no 95% interval, the interval is their whole range and its real level is said
    (stats.interval_level): from the rule itself, never a capture's numbers."""
    from gen.model import stats

    full = _full()
    few = full - 1
    return (f"with fewer than {full} rounds no pair of order statistics reaches 95%, so the interval is the range of "
            f"the rounds and the pages name its real level: the range of {few} rounds is a "
            f"{level_pct(stats.interval_level(few))} interval (1 - 2/{2 ** few}), of {full} a "
            f"{level_pct(stats.interval_level(full))} one. Elsewhere \"95% interval\" means at least 95%: the "
            "order statistics chosen cover 95% or a little more (six rounds: the figure above)")


SHORT_INTERVAL = _short_interval()

# The condition of host_rules.host_bound_outcome, as a "when" clause: "A call is host-bound when ...".
HOST_BOUND_RULE = (
    f"a Python loop sees at least {host_rules.HOST_BOUND_EAGER_RATIO:.2f}× its GPU-only time per call (its eager time "
    "over its GPU-only time, the intervals of both medians, at the level their rounds allow (the methodology's rules "
    "table gives the levels), clear of the line: the GPU then sits "
    f"idle for at "
    f"least {100 * (1 - 1 / host_rules.HOST_BOUND_EAGER_RATIO):.0f}% of each call, waiting for the host's next launch) "
    f"and the host's own cost of a call (its dispatch with the GPU drained, at the "
    f"{host_rules.HOST_COST_QUANTILE}th percentile of its samples) is at least {host_rules.HOST_YES_MARGIN:g}× the "
    f"GPU-only time. It is not host-bound when the loop stays under {host_rules.HOST_BOUND_EAGER_RATIO:.2f}× and the "
    f"GPU-only time is at least {host_rules.HOST_HEADROOM:g}× the host's cost, or whenever it is at least "
    f"{host_rules.HOST_CLEAR:.0f}× that cost (the last only where the loop's interval straddles its line); otherwise "
    f"it is within noise: whether "
    f"a loop waits depends on the host that day (a call's host cost moves far more between captures than its "
    f"GPU-only time). Calls that run the same kernels share one outcome")


HOST_BOUND_CONSEQUENCE = ("the GPU waits for the host's launches: its eager time measures mostly how fast the host "
                          "dispatches, while its GPU-only time still measures the kernels")


def host_speed(median_ms: float, p10_ms: float, p90_ms: float, n: int) -> str:
    """The capture's host speed (timings.HostReference) beside its host-bound outcomes, which are this host's."""
    return (f"Host-bound outcomes belong to this capture's host as well as to its GPU. The host's speed: a "
            f"reference call (a one-element add, its dispatch host-timed with the GPU drained, in the calls' own "
            f"context, a few calls after every round's host window, the first of each few left out as cold) took "
            f"{duration_us(median_ms * 1e3)} (median of {n:,}; 10th–90th percentile {duration_us(p10_ms * 1e3)}–"
            f"{duration_us(p90_ms * 1e3)}). "
            f"A call whose host cost is near its GPU-only time can keep the GPU waiting behind a slower host and "
            f"not behind a faster one: compare sets' host-bound outcomes beside their hosts' speeds.")


def markers(names) -> str:
    """Regex markers as a reader sees them: `_s\\d+gemm` -> `_sNNgemm`."""
    return ", ".join(f"`{m.replace(chr(92) + 'd+', 'NN')}`" for m in names)


TENSOR_CORE_RULE = (
    "a matrix product or fused attention kernel whose name says float32 math ("
    + markers(kernel_rules.OFF_TENSOR_CORE_MARKERS) + ") is counted off the tensor cores; one whose name carries a "
    "16-bit type or a matrix-unit marker (" + markers(kernel_rules.ON_TENSOR_CORE_MARKERS)
    + ") on them; any other is undecided")


NOISE_RULE = (f"above {rules.NOISY_IQR_PCT:.0f}% a timing is marked noisy (torch.utils.benchmark warns at the "
              "same line)")


AUTOGRAD_CLAIM = "in-place ops are unsafe for training"


AUTOGRAD_WHY_MATCH = (
    "masked_fill_ overwrites the output of `scores * scale`; the backward of a multiplication by a Python number "
    "needs no saved tensor, and softmax's backward saves its own output, so autograd's version counter finds "
    "nothing it needs overwritten")


# Where a side process compiled a call before the timings (gen.capture.precompile): in full, and
# in brief for the verdicts' lines and the findings' one-line summaries (the methodology page says
# the rest). Several side processes compile at once, sharing the host's cores: such a compile can
# take longer than one alone (benchmarks/capture_time.md: two captures, the same calls, 65 and 45 s).
COMPILED_AHEAD = ("measured in a side process that compiled it before the capture timed anything, beside "
                  "other side processes compiling at the same time, so it can take longer than a compile "
                  "alone; the capture's own first call then found the compiled code in Inductor's cache")
# Where the capture's own first call took longer than the side process's compile, it found no such cache for the
# whole call (FlexAttention's FLASH backend JIT-compiles its CuTe-DSL kernel outside Inductor): the larger is the
# start-up a user pays.
COMPILED_AHEAD_SLOWER_TAB = ("a side process compiled it before the capture timed anything; the capture's own first "
                             "call, the start-up a user pays, was slower than that compile")
COMPILED_AHEAD_SLOWER = ("a side process compiled it before the capture timed anything, in {ahead}; the capture's "
                         "own first call still took {own}, so that is the start-up a user pays: at least {own}")


COMPILED_AHEAD_BRIEF = "in a side process, before the timings"
# Under a scaling page's sweep table: the mark on a replay median above its eager loop (pages.scaling._above_eager)
REPLAY_ABOVE_EAGER = ("‡: the GPU-only time is the median of a graph replay that reads more than {pct:g}% above the "
                      "eager loop's median at that point. The graph check kept the replay, and its median carries the "
                      "spread of its rounds (the IQR beside it), each round following another call.")
# The opening of a variant page's Compiled paragraph: whose call the compile time is, so that
# "The first call, which compiled the variant, took 0.24 s" never stands beside the capture's own first call, 3.61 s
COMPILED_OPENER = {True: "A side process's first call, which compiled the variant, took",
                   False: "The first call, which compiled the variant, took"}


GPU_ONLY_MEANING = "GPU-only is the GPU's own time per call, with no host gaps (the time that ranks)"


EAGER_MEANING = "Eager is what a Python loop sees per call (CUDA events around each call of a bare loop)"


HOST_MEANING = "Host dispatch is the host's time to launch one call, with the GPU drained first"


# How a GPU-only time was taken, by gpu_only_method.
GPU_ONLY_HOW = {
    "cuda_graph": "GPU-only times come from CUDA-graph replays of many back-to-back calls, divided by the number of "
                  "calls.",
    "kernel_sum": "GPU-only times marked kernel sum could not be taken from a CUDA graph: they are the GPU events of "
                  "one profiled call added up (median over the profiled calls), so they leave out the gaps between "
                  "kernels.",
    "published": "GPU-only times of a published set are the figures its source published.",
}


GPU_ONLY_LABEL = {"cuda_graph": "graph", "kernel_sum": "kernel sum", "published": "published"}


METHOD = {
    "cuda_graph": "GPU-only time, by CUDA-graph replay of back-to-back calls",
    "kernel_sum": "GPU-only time, as the GPU events of each profiled call added up (this set has no CUDA-graph "
                  "timing)",
}


BASIS = {"gpu_only": "on the GPU alone", "eager": "per call in a Python loop (no GPU-only time in this set)",
         "host": "in wall time on the host (no GPU in this set)"}


TIMING = {"gpu_only": "GPU-only", "eager": "eager per-call", "host": "host"}


def verdict_rule(levels: str) -> str:
    """The verdict's rule in words, the levels of its intervals (`levels`: ci_levels of the sets shown) in it."""
    return (
    "Each set's verdict, on the home page and atop its page, is made by one rule from the data: variants rank by "
    "their median GPU-only time as run (CUDA-graph replay, or the kernel sum of the profiled calls where a set has no "
    "graph timing; a set without GPU times ranks by eager, then host time): what a user gets, each kernel at the SM "
    "clock NVML sampled during its window, which also reflects the variants timed just before it. Beside each time "
    "stand the SM clock and board power it ran at and, at a compute-bound point, its time at equal clock (the set's "
    "reference clock), a model of the kernels' efficiency that decides nothing (a memory-bound point, judged in "
    "TB/s, keeps its as-run time: HBM bandwidth does not follow the SM clock); where the two "
    "orders differ, the verdict names the pair and who paid for reaching the power limit. "
    f"Each median carries its interval, at {levels}, "
    f"{rules.CI_METHOD}, never narrower than ±{rules.TIME_FLOOR_PCT:g}% (two captures on one GPU differ by that "
    f"much); {SHORT_INTERVAL}. A variant's rank is one more than the number of variants decidedly faster than "
    "it (their interval ends below its own begins), so variants the times cannot tell apart share a rank, and "
    "variants that run the same kernels (the same GPU events in one call) are one rank, a tie, unless their "
    "intervals are apart (then the names hide other arguments, and the times rank them). The fastest is "
    "set against the fastest variant running other kernels: decidedly ahead, or within noise. SDPA with no "
    "backend pinned is named beside the pinned variant whose kernels it runs. The verdict says when the eager "
    "ranking, what a Python loop sees, cannot tell the fastest from a variant the GPU-only ranking keeps apart, "
    "and gives one reason read off the kernels: the fastest built for this GPU's architecture (its sm tag) against "
    "rivals built for an older one, or fewer GPU events a call. The same ranking gives the Fastest finding, the "
    "hypotheses' ranks, the variant pages' ranks and the scaling page's fastest.")


# What a window's clock is: rounds are two graph replays (about 25 ms) interleaved among
# variants, and NVML's power is a one-second average, so a window's clock also reflects its neighbours' draw.
AS_RUN_CLOCK = ("each kernel at the SM clock NVML sampled during its window, which also reflects the variants timed "
                "just before it")


MEMORY_BOUND_CLOCK = (": this point is memory-bound (judged in TB/s), and HBM bandwidth does not follow the SM clock, "
                      "so equal clock does not apply: each time stands as run.")


def interleave_order(rotated: int, fixed: int, varied: int = 0) -> str | None:
    """What a set's interleaved rounds guard against, by how their order changed (gen.analysis.method)."""
    if not rotated and not fixed:
        return None
    same = ("each variant has the same predecessor every round, so one timed after a variant that heats the GPU or "
            "draws it to its power limit takes over that window's lower clock in every round: the rounds spread drift "
            "over time across the variants, not a predecessor's heat")
    parts = []
    if varied:
        parts.append(f"{varied} ran each round in a rotated order, backwards every other round, so whom a variant "
                     "follows changes from round to round")
    if rotated - varied:
        parts.append(f"{rotated - varied} rotated the order each round (round r starts at variant r mod n), which "
                     f"moves the start but keeps the neighbours: {same}")
    if fixed:
        parts.append(f"{fixed} ran in a fixed order (A, B, C, A, B, C): {same}")
    return f"Of the {rotated + fixed} interleaved variant-points, " + "; ".join(parts) + "."


def timed_alone(alone: int, after: int, later: int = 0, reach=None) -> str:
    """How the capture times a variant that ran out of memory beside the others, and how the verdicts treat it
    (rules.lead_decided), with the set's counts (gen.analysis.method.timed_apart) and, where given, the set's own
    bound on what the conditions can move a time (gen.analysis.reach.Reach)."""
    counts = []
    if alone:
        were = "were" if alone != 1 else "was"
        counts.append(f"{alone} variant-point{'s' if alone != 1 else ''} of this set's sweep {were} timed alone after "
                      "the others")
    if later:
        counts.append(f"{later} {'were' if later != 1 else 'was'} timed in later rounds with the others that ran "
                      "out of memory beside the first ones")
    if after:
        counts.append(f"{after} had {'their' if after != 1 else 'its'} CUDA graph replayed alone after the rounds, "
                      "the graph and an eager call not fitting in memory together")  # one bracket deep
    return ("Variants that run out of memory beside the others of their point are timed after them, in later rounds "
            "of their own (taken in turn where there are several, alone where one is left), in other thermal and power "
            "conditions"
            + (f" ({'; '.join(counts)})" if counts else "")
            + ". Its as-run time is not compared with the others': a lead between two calls not timed in the same "
            f"rounds is decided only by their kernel sums, where those were taken within {rules.CLOCK_GAP_PCT:g}% of "
            "each other's clock (or farther apart, by more than the gap can explain) and agree with the as-run order "
            f"by more than {rules.TIME_FLOOR_PCT:g}%, or where the "
            f"as-run lead is past {rules.TIMED_APART_REACH:g}×, more than the conditions can move a time (the lowest "
            "clock under load and the spread of identical kernels together), the fair kernel sums not contradicting "
            "it; otherwise the pair is not decided, and the verdict says which call was timed alone."
            + reach_words(reach))


def reach_words(r) -> str:
    """The set's bound behind rules.TIMED_APART_REACH (gen.analysis.reach.Reach), sentences after timed_alone's
    (outside its bracket, so that no bracket nests in another; never "the nearest to it", which would name a lead
    six times past the line): " In this set ..."; "" where
    the set gives none."""
    if r is None:
        return ""
    w, p = r.lowest_at, r.lowest_at.point
    text = (f" In this set the lowest clock sampled in a timed window is {r.lowest_mhz:.0f} MHz, at {w.scenario} with "
            f"{label(w.variant)}, {p.kv_len:,} tokens, head dim {p.head_dim}: {r.clock_ratio:.2f}× under "
            f"its {r.ref_mhz:.0f} MHz maximum; identical kernels read up to {r.pair:.3f}× apart as run: "
            f"{r.bound:.2f}× together.")
    line = f"{rules.TIMED_APART_REACH:g}×"
    more = f"; past it, the fair kernel sums decide {r.sums_decide} more on their own" if r.sums_decide else ""
    n = len(r.decides)
    if r.decides:
        x, p = r.decides[0], r.decides[0].point
        size = f"{p.kv_len:,} keys" if p.q_len != p.kv_len else f"{p.kv_len:,} tokens"
        why = _why_sums_not(r.nearest)
        smallest = "its lead" if n == 1 else f"the smallest lead of the {n}"
        text += (f" The {line} line alone decides {n} pair{'s' if n != 1 else ''} here{more}; {smallest} is "
                 f"{x.as_run:.2f}×: {label(x.first)} ahead of {label(x.second)} at {x.scenario}, {size}"
                 + (f", {x.mode}" if x.mode != "inference" else "") + (f" ({why})" if why else "") + ".")
    elif more:
        text += f" The {line} line alone decides no pair here{more}."
    return text


def _why_sums_not(o) -> str:
    """Why the kernel sums do not decide the reach's nearest pair on their own (rules.lead_decided for a lead within
    the reach): "its kernel sums at 1575 against 1755 MHz, FlexAttention's clock 11% higher"; "" where no pair."""
    if o is None:
        return ""
    gap = rules.clock_gap_pct(o.first_ks_mhz, o.second_ks_mhz)
    if o.off_graph:
        return orders_words.off_graph(o, label)
    if o.kernel_sum is None:
        return "no kernel sums fit to compare"
    if gap is None:
        return "its kernel sums' clocks not recorded"
    clocks = f"at {o.first_ks_mhz:.0f} against {o.second_ks_mhz:.0f} MHz"
    sides = possessive(label(o.first)), possessive(label(o.second))
    if o.kernel_sum_clocks_apart:  # past the gap they decide where it cannot explain them, except memory-bound
        bound = ", at a memory-bound point" if o.memory_bound else ""
        return f"its kernel sums {clocks}, {clock_against(o.first_ks_mhz, o.second_ks_mhz, *sides)}{bound}"
    return f"its kernel sums within {rules.TIME_FLOOR_PCT:g}% of each other ({clocks})"


def _odd_rounds(rounds) -> str:
    """How many rounds ran, forward and reversed, per odd count of rounds, most common first ("2 of 3
    forward in 3" read as a riddle): "5 rounds, 3 forward and 2 reversed, at 220; 3 rounds, 2 and 1, at 9"."""
    odd = sorted(((k, n) for k, n in rounds if k % 2), key=lambda x: (-x[1], -x[0]))
    return "; ".join(f"{k} rounds, {(k + 1) // 2}" + (" forward and " if i == 0 else " and ") + f"{k // 2}"
                     + (" reversed" if i == 0 else "") + f", at {n}" for i, (k, n) in enumerate(odd))


def round_places(rounds) -> tuple[str, str]:
    """The forward rounds and the reversed ones, by their place, at the set's most common number of rounds
    (Orientation.rounds: (rounds, variant-points)): "1, 3, 5" and "2, 4, 6" for 6 (a
    6-round set read "(2, 4)"); where counts differ, "of its usual N" follows."""
    counts = sorted(rounds, key=lambda x: (-x[1], -x[0]))
    n = counts[0][0] if counts else 0
    usual = f" of its usual {n}" if len(counts) > 1 else ""
    return (", ".join(str(i) for i in range(1, n + 1, 2)) + usual,
            ", ".join(str(i) for i in range(2, n + 1, 2)) + usual)


def swaps(o) -> str:
    """The points whose fastest differs by orientation, a swap between calls that run the very same kernels counted
    apart as a tie: "at 14 of the 23 points timed in reversed rounds the fastest differs by
    orientation; at 12 of them the two run the same kernels, a tie: SDPA cuDNN and SDPA (backend not pinned); a call
    with other kernels takes the lead at 2"."""
    from collections import Counter

    # the points with two or more calls timed in both orientations ("timed in reversed rounds" read
    # as if the others had none)
    head = f"of the {o.points} points where two or more calls ran in both orientations"
    if not o.swapped:
        return f"at none {head} does the fastest differ by orientation"
    text = f"at {o.swapped} {head} the fastest differs by orientation"
    other = o.swapped - len(o.ties)
    if not o.ties:
        return text + ", each time a call with other kernels taking the lead"
    common = Counter(o.ties).most_common()
    names = "; ".join(f"{label(a)} and {label(b)}" + (f" at {n}" if len(common) > 1 else "") for (a, b), n in common)
    # the labels carry brackets of their own: the tie's names follow a colon, not inside brackets
    return (text + f"; at {len(o.ties)} of them the two run the same kernels, a tie: {names}"
            + (f"; a call with other kernels takes the lead at {other}" if other else
               "; at none does a call with other kernels take the lead"))


def orientation(o) -> str | None:
    """The neighbour effect of reversed rounds (gen.analysis.method.Orientation) in words, and the capture it asks
    for."""
    if o is None:
        return None
    forward, reversed_ = round_places(o.rounds)
    where = f"all {o.timed}" if o.odd == o.timed else f"{o.odd} of the {o.timed}"
    # a count and a plain clause, not "it may still fall ... (it did in 47: ...)"; "still" only
    # where every variant-point leaned forward: median_reversed counts the even ones too
    still = ("at none did the median come from a reversed round" if not o.median_reversed else
             f"at {o.median_reversed} the median still came from a reversed round" if o.odd == o.timed else
             f"at {o.median_reversed} of the {o.timed} the median came from a reversed round")
    pairs = (f"Each variant alternates between two predecessors, one in the forward rounds ({forward}) and the "
             f"other in the reversed ones ({reversed_}); at {where} variant-points timed in both orientations the "
             f"rounds were odd in number ({_odd_rounds(o.rounds)}), so the forward rounds outnumber the reversed and "
             f"the median leans to the forward order; {still}" if o.odd else
             "Each variant alternates between two predecessors, one in the forward rounds and the other in the "
             "reversed ones, and the rounds came in pairs, so each counts equally in the median")
    return (f"{pairs}. At power-limited points a round's time follows the call that ran before it: of the "
            f"{o.timed} variant-points with both orientations, {o.apart} have forward and reversed medians more than "
            f"{rules.ORIENTATION_GAP_PCT:g}% apart; {swaps(o)}. A lead is therefore "
            "decided only where it holds in each orientation on its own (the rules table). The capture now runs its "
            "rounds in pairs (a forward and a reversed one), so that each predecessor counts equally in the sets it "
            "makes; not done: an idle gap before each window, long enough for the power average to fall.")


LEAD = "Who leads a pair"  # the rows of the rule in the rules table begin with it


def lead_rules() -> list[tuple[str, str]]:
    """rules.lead_decided in words, with its thresholds as code holds them: one short row per condition of the rules
    table, each with brackets one deep (one cell of about 490 words, brackets two deep)."""
    from gen.model import stats

    floor, gap = f"{rules.TIME_FLOOR_PCT:g}%", f"{rules.CLOCK_GAP_PCT:g}%"
    ks_line = f"the kernel sums' own noise line, at least {floor}"
    sums = (f"kernel sums taken within {gap} of each other's clock (or farther apart, by more than the gap can "
            f"explain: the row on clocks apart) that agree with the as-run order past {ks_line}")
    whole = max(n for n in range(1, 64) if stats.order_statistic_rank(n) == 1)  # rounds whose interval is their range
    each = rules.PAIRED_MIN_ORIENTATION_ROUNDS
    conditions = [
        (f"{LEAD}: intervals", "the two medians' intervals are apart"),
        (f"{LEAD}: each round orientation",
         f"the leader is ahead by more than {floor} in the median of its forward rounds and in that of its reversed "
         "rounds, each on its own, where a set reversed its rounds. Each variant follows a different call in each "
         "orientation, so a lead that flips or vanishes in one follows its neighbour, not its kernels"),
        (f"{LEAD}: identical kernels' noise",
         f"the as-run ratio exceeds the as-run noise of identical kernels at that point by more than {floor}: the "
         "larger median over the smaller of two calls there that ran the very same kernels, such as SDPA with cuDNN "
         "pinned and SDPA with no backend pinned (the same graph kernels and launches on the same inputs, calls per "
         f"replay within {rules.SAME_REPLAY_PCT:g}%)"),
        (f"{LEAD}: that noise in each orientation",
         "the lead's weaker round orientation is beyond a noise line of the orientations' own: the largest ratio of "
         "identical kernels' forward-round medians or of their reversed-round medians at that point (an "
         "orientation's median rests on 2 or 3 rounds and moves further than a whole one). Where no identical pair "
         "reversed its rounds, the whole medians' line stands, and the verdict says so"),
        (f"{LEAD}: kernel sums not against",
         f"the kernel sums, where their windows' mean SM clocks are within {gap} of each other (or farther apart, "
         f"past what the gap can explain), do not put the other call ahead past {ks_line}. This clock gate "
         "holds at memory-bound points too, where the sums never decide past it: how far their kernels' "
         "time follows the SM clock is not measured here, and no memory clock is recorded"),
    ]
    after = [
        (f"{LEAD}: a point with no identical pair",
         "it borrows the set's largest noise among points rated in the same figure as itself (TB/s, the memory-bound "
         "scenarios, or TFLOP/s: the figure its scenario is rated in, not its arithmetic intensity against the "
         "roofline's ridge), and says so. A paged call and the same call on a contiguous cache launch the same "
         "kernels, but their gap is paging's cost: no such pair"),
        (f"{LEAD}: the kernel sums' own noise",
         "kernel sums of identical kernels read apart too, each from three profiled calls: where kernel sums decide, "
         "overrule or put a call behind, they count only past the point's largest kernel-sum ratio of two calls "
         f"that ran the very same kernels (less what their clock gap explains), or past {floor}, whichever is larger. "
         "A point with no such pair borrows it as the as-run line is borrowed"),
        (f"{LEAD}: kernel sums instead of the noise line",
         f"against either line, the point's own or a borrowed one, {sums}, with both orientations agreeing, decide "
         "instead: the line is one draw of identical kernels' windows, the sums the best-controlled order"),
        (f"{LEAD}: a clock gap",
         f"how far apart two windows' mean SM clocks are, on every page and for every gate (the {gap} one among "
         "them): the higher over the lower, less one, as a percentage. That is the most of a time ratio the gap can "
         "explain, since a kernel's time falls at most in proportion to 1 / clock: a gap g explains at most 1 + g"),
        (f"{LEAD}: kernel sums at clocks apart",
         f"kernel sums more than {gap} apart in clock still decide where their lead exceeds what that gap can "
         "explain (the row above). The leader's lead over its clock ratio (whole where it ran at the lower clock) "
         f"must exceed the kernel sums' own noise line (at least 1 + {floor}); it then counts as sums at one clock, "
         "wherever sums are read. Not at memory-bound points"),
        (f"{LEAD}: kernel sums off their graph replay",
         f"a call's kernel sum more than {rules.KERNEL_SUM_GRAPH_RATIO:g}× from its own graph replay, either way, "
         f"past what a clock gap within {gap} explains, or at any gap where the sum is slower at an equal or higher "
         "clock: its sums, and those of its kernels' twins there, decide no pair; the as-run order alone is read. A "
         "sum above its replay is the profiled window's reading (SDPA flash at decode); one below it leaves out the "
         "replay's idle time between kernels (calls of a few µs)"),
        (f"{LEAD}: round by round",
         "another path, for two calls timed in the same rounds whose intervals overlap: it skips the intervals and "
         "the as-run noise rows. In each round orientation on its own, the interval of the median of the per-round "
         f"time ratios lies past the per-round noise of identical kernels (next row) by more than {floor}, and fair "
         "kernel sums do not put the other call ahead past their line"),
        (f"{LEAD}: round by round, its noise and ties",
         "within one round two calls do not share one stretch of clock and power: SDPA cuDNN and SDPA with no "
         "backend pinned, the same kernels, read well apart round by round at power-limited points. The "
         "line is the point's largest such ratio, either call over the other, borrowed as the as-run line is. A "
         "lead decided this way holds against each call running the same kernels as either side, or stands for none: "
         "a tie is never split"),
        (f"{LEAD}: round by round, how many rounds",
         f"each orientation needs at least {each} rounds of its own, so at least {rules.PAIRED_MIN_ROUNDS} shared "
         f"rounds: one round is a single ratio, no interval at all. Up to {whole} rounds an orientation the interval "
         "is the whole range, so every shared round must clear the line, and the pages say so jointly (ahead in all "
         "the shared rounds, each past the line)"),
        (f"{LEAD}: calls timed apart",
         "two calls not timed in the same rounds are decided by neither their as-run times nor that noise; only "
         f"{sums} decide them, or an as-run lead past {rules.TIMED_APART_REACH:g}× that such sums do not "
         "contradict"),
        (f"{LEAD}: why calls are timed apart",
         "one ran out of memory beside the others and was retried alone after them, or in later rounds with the "
         "others that did; its CUDA graph was replayed alone after the rounds (the graph and an eager call did not "
         "fit together); or each was timed in a sequence of its own at a point with no shared rounds, as a set's "
         "profiled runs of its first shape may be"),
        (f"{LEAD}: otherwise",
         "the pair is not decided and shares the rank, with its orders and that noise given beside it. The time at "
         "equal clock (time × window clock / reference clock) is printed as a model and decides nothing: round times "
         "do not follow their window's clock (the evidence in the methodology's text). An order of the kernels' "
         "efficiency would need locked clocks, which this project does not set: it never changes clocks"),
    ]
    head = (LEAD, f"the as-run order names a leader only where each of the next {len(conditions)} rows holds; where "
                  "its ratio, or its weaker round orientation, is within its noise line, the kernel sums may decide "
                  "instead; calls timed in the same rounds may be decided round by round, another path with rows of "
                  "its own; calls timed apart have a row of their own; otherwise the pair is not decided")
    return [head, *conditions, *after]


def behind_rule() -> str:
    """leads.Orders.kernels_leader in words, with its thresholds as code holds them (the
    pages said FP8's FlashAttention-4 is "behind by kernel sum" at clocks 11% apart, by a rule the table never
    stated)."""
    floor = f"{rules.TIME_FLOOR_PCT:g}%"
    return (f"within noise as run (the as-run intervals overlap), the other call's kernel sum ahead past the "
            f"kernel sums' own noise line (the rules' row; at least {floor}), at clocks within "
            f"{rules.CLOCK_GAP_PCT:g}% of each other (or farther apart, by more than the gap can explain: the rules' "
            "row on clocks apart) or, however far apart, with that call "
            "at the same or a lower clock (this assumes a kernel's time does not fall as its clock falls, so at equal "
            "clock its lead would only grow: a weaker assumption than the equal-clock model, which decides nothing), "
            "and ahead in both round orientations' medians where the set reversed its rounds; it changes no rank and "
            "names no other call (that takes a decided lead): the first screen counts the workload as behind, not as "
            "a first place")


def lead_evidence(ev) -> str | None:
    """A set's evidence for the who-leads rule (gen.analysis.method.ClockEvidence) in words."""
    if ev is None or (not ev.checked and ev.widest is None):
        return None
    parts = []
    if ev.checked:
        parts.append(f"of the {ev.checked} compute-bound variant-points whose rounds' mean SM clocks span "
                     f"{rules.ROUND_CLOCK_SPAN_PCT:g}% or more, {ev.scaled_wider} spread more across their rounds "
                     "after scaling each round's median by its clock (time × clock) than before: their times do not "
                     "follow their clock, so the time at equal clock is a model, not the clock taken out")
    if ev.widest is not None:
        w = ev.widest
        parts.append(f"calls that ran identical kernels were timed at {ev.pair_points} points and read "
                     f"{times(ev.pair_low, 3)} to {times(w.ratio, 3)} apart as run, the widest "
                     f"{label(w.fast)} against {label(w.slow)} at {orders_words.noise_point(w)}: the as-run noise "
                     "the who-leads rule sets each lead against")
    text = "; ".join(parts)
    return text + "."


def sweep_sums(s) -> str | None:
    """The kernel sum against the graph replay over every sweep point (gen.analysis.method.SweepSums), and the calls
    whose sums therefore decide no pair (rules.KERNEL_SUM_GRAPH_RATIO); None where the set has no such figure."""
    if s is None:
        return None
    def at(a) -> str:
        return f"{label(a.variant)} at {place_of(a.scenario, a.mode)}, {_sizes([a.point])}"
    line = f"{rules.KERNEL_SUM_GRAPH_RATIO:g}×"
    text = (f" Over every point of its sweep the two part further: of the {s.timed} variant-points timed both ways, "
            f"the {s.compared} whose two windows ran within {rules.CLOCK_GAP_PCT:g}% in clock read from "
            f"{times(s.low.ratio)} to {times(s.high.ratio)} the graph replay: the lowest {at(s.low)}; the highest "
            f"{at(s.high)}.")
    if s.slower:
        top = s.slower[0]
        one = len(s.slower) == 1
        text += (f" Of the others, whose windows ran further apart in clock, {len(s.slower)} "
                 f"{'reads' if one else 'read'} slower than {'its' if one else 'their'} replay though the sum's window "
                 f"ran at an equal or higher clock, {'at' if one else 'up to'} {times(top.ratio)}, {at(top)}: no "
                 "clock gap explains that direction, so they are checked as if at one clock.")
    if s.aside:
        one = len(s.aside) == 1
        text += (f" Not counted there: {join_and(f'{at(a)}, its sum {times(a.ratio)} its replay' for a in s.aside)}"
                 f". {'That replay is' if one else 'Those replays are'} set aside, not the sum: "
                 f"{'it reads' if one else 'they read'} far below both the sum and the eager time "
                 "(the rules' row on graphs below the kernels), and the sum stands for the call.")
    if not s.off:
        return text + (f" None lies more than {line} apart from its replay (the larger over the smaller) past what its "
                       "clock gap explains, so every kernel sum may decide a pair (the rules table).")
    groups: dict = {}
    for a in s.off:
        groups.setdefault((a.variant, a.scenario, a.mode), []).append(a)
    said = []
    for (v, sc, m), xs in groups.items():
        lo, hi = min(a.ratio for a in xs), max(a.ratio for a in xs)
        span = times(lo) if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}×"
        said.append(f"{label(v)} at {place_of(sc, m)} ({_sizes([a.point for a in xs])}: its kernel sum {span} its "
                    "replay)")
    return text + (f" Over all {s.timed} variant-points, at {len(s.off)} the kernel sum and the replay lie more "
                   f"than {line} apart (the larger over the smaller), past what their clock gap explains: "
                   f"{'; '.join(said)}. There the kernel sums of that call, and of any call running the same"
                   " kernels at that point, decide no pair (the rules table): a sum above its replay is the profiled "
                   "window's reading, not the kernels'; one below it leaves out the idle time between kernels that "
                   "the replay holds.")


def _sizes(points) -> str:
    """Points of one call and scenario in few words: "16,384, 65,536 and 131,072 keys, head dim 128"; each in full
    where they differ in more than their lengths."""
    ps = sorted(points, key=lambda p: (p.kv_len, p.q_len))
    if len({(p.q_len == p.kv_len, p.q_len if p.q_len != p.kv_len else 0, p.head_dim, p.window) for p in ps}) > 1:
        return join_and(_sizes([p]) for p in ps)
    p = ps[0]
    lengths = join_and(f"{x.kv_len:,}" for x in ps)
    what = (f"{lengths} tokens" if p.q_len == p.kv_len else f"{lengths} keys" if p.q_len == 1
            else f"{p.q_len:,} queries × {lengths} keys")
    return what + (f", window {p.window:,}" if p.window else "") + f", head dim {p.head_dim}"
