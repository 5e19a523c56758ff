"""Host speed as a property of the host: what a capture's loop saw against the host-bound line, and the
crossover (the GPU time of a call against what the host took to dispatch it)."""

from __future__ import annotations

from gen.analysis import host_rules, rules
from gen.analysis.values import missing
from gen.report.words.common import ordinal, times, us


def usec(ms: float) -> str:
    """A host-side quantity (a call's host cost, its reference call) in µs: one unit and one value per quantity,
    save where a sentence sets it against a GPU time of 1 ms or more (in_unit_of). The crossover is a call's GPU time,
    worded by `us` like every other duration."""
    return f"{ms * 1000:.1f} µs"


def in_unit_of(ms: float, beside_ms: float | None) -> str:
    """A host-side time in the unit of the GPU time it is set against in the same sentence: ms (to the µs) where that
    time is 1 ms or more, as `us` gives it, else µs (`usec`), so that one sentence reads its times in one unit
    ("under 1.583 ms ...; this host took 5.577 ms", not "5577.0 µs")."""
    return f"{ms:.3f} ms" if beside_ms is not None and not missing(beside_ms) and beside_ms >= 1 else usec(ms)


def host_cost(host_cost_ms: float, host_median_ms: float | None = None, beside_ms: float | None = None) -> str:
    """The host's cost of a call as the rule reads it, named as the quantile it is (host_rules.HOST_COST_QUANTILE),
    with the median beside it where known: "104.2 µs at its 10th percentile
    (median 134.5 µs)"; in the unit of `beside_ms`, the GPU time the sentence sets it against (in_unit_of)."""
    text = f"{in_unit_of(host_cost_ms, beside_ms)} at its {ordinal(host_rules.HOST_COST_QUANTILE)} percentile"
    if host_median_ms is not None and not missing(host_median_ms):
        text += f" (median {in_unit_of(host_median_ms, beside_ms)})"
    return text


def host_crossover(gpu_ms: float | None, host_cost_ms: float | None, host_ref_ms: float | None,
                   host_median_ms: float | None = None) -> str | None:
    """Host speed as a property of the host: the GPU time of a call is the crossover (a loop keeps the GPU
    busy while the host dispatches a call faster than the GPU runs it), against what this capture's host
    took (host_cost) and its reference call. None without a GPU time or a host cost."""
    if gpu_ms is None or missing(gpu_ms) or host_cost_ms is None or missing(host_cost_ms):
        return None
    text = (f"a Python loop keeps the GPU busy while the host dispatches a call in under {us(gpu_ms)} (the "
            f"call's GPU time); this capture's host took {host_cost(host_cost_ms, host_median_ms, gpu_ms)}")
    if host_ref_ms is not None and not missing(host_ref_ms):
        text += f" (its reference call: {usec(host_ref_ms)})"
    return text


def loop_gain(first_ms: float, second_ms: float, who: str | None = None, how: str = "") -> str:
    """A host-bound call's gain in an eager loop on this host (two eager medians, ms, in the order the sentence names
    the calls), which is not its gain on the GPU alone: "1.38× (131.6 µs against 181.5 µs a call: X
    is host-bound)"."""
    ratio = max(first_ms, second_ms) / min(first_ms, second_ms)
    said = f": {who} is host-bound" if who else ""
    return f"{times(ratio)}{how} ({us(first_ms)} against {us(second_ms)} a call{said})"


def loop_clause(loop_ms: tuple[float, float] | None, who: str) -> str:
    """After "X is 2.96× slower" of a host-bound call `who` ((its eager median, X's), ms): what an eager loop on this
    host gets instead; "" where the call is not host-bound (loop_ms None)."""
    if loop_ms is None:
        return ""
    # the loop can reverse the GPU's order: the word is read from the two eager medians
    said = loop_gain(*loop_ms[::-1], who, " slower" if loop_ms[1] >= loop_ms[0] else " faster")
    return f"; that is on the GPU alone: in an eager loop on this host it is {said}"


def loop_lead(gpu_leader: str, other: str, loop_ms: tuple[float, float], gpu_ratio: float, tie: bool = False) -> str:
    """A verdict whose fastest call is host-bound: which call leads in an eager loop on this host, read from the two
    eager medians (`loop_ms`: the GPU leader's, the other's, ms), beside the GPU-only lead (`gpu_ratio`). The loop can
    reverse the GPU's order (1.01x on the GPU, the other call 2.10x ahead in a loop); `tie`: the two
    share the first rank on the GPU, said as a tie, not a lead."""
    mine, theirs = loop_ms
    if tie:  # the two share the first rank on the GPU ("leads by 1.01×" where the verdict ties them)
        first, second, ms = (gpu_leader, other, (mine, theirs)) if mine <= theirs else (other, gpu_leader,
                                                                                       (theirs, mine))
        return (f"In an eager loop on this host {first} leads {second} by {loop_gain(*ms)}, where on the GPU alone "
                f"the two tie, within noise")
    if mine <= theirs:
        return (f"In an eager loop on this host {gpu_leader} leads {other} by {loop_gain(mine, theirs)}, not by the "
                f"{times(gpu_ratio)} it leads by on the GPU alone")
    return (f"In an eager loop on this host {other} leads {gpu_leader} by {loop_gain(theirs, mine)}, the other way "
            f"from the GPU alone, where {gpu_leader} leads by {times(gpu_ratio)}")


def in_loop(loop_ms: tuple[float, float], other: str) -> str:
    """A host-bound leader's gain in an eager loop on this host, for a cell beside its GPU-only gain ((its eager
    median, `other`'s), ms): "1.38× in an eager loop"; where the loop reverses the order, `other`'s lead."""
    mine, theirs = loop_ms
    if mine <= theirs:
        return f"{times(theirs / mine)} in an eager loop"
    return f"{other} {times(mine / theirs)} faster in an eager loop"


HOST_SPEED_LEAD = ("Whether a Python loop waits on the host is a property of the host as much as of the kernel; "
                   "what this capture's host gave")


def host_not_the_gap(ratio: float | None, ci: tuple[float, float] | None, host_cost_ms: float | None,
                     gpu_ms: float | None, host_median_ms: float | None = None) -> str | None:
    """Where the loop reads at or above the host-bound line but the host dispatches faster than the GPU runs
    the call at its low end (host_rules.host_under_gpu): the gap as measured, and that the host is not its cause; or,
    where the host's median is over the GPU time (host_rules.host_over_gpu_at_median), that the loop waits on the host
    at most calls; None elsewhere."""
    line = host_rules.HOST_BOUND_EAGER_RATIO
    straddles = host_rules.straddles_line(ci)
    if ratio is None or not host_rules.host_under_gpu(host_cost_ms, gpu_ms) or not (
            straddles or host_rules.loop_waited(ratio)):
        return None
    host, gpu = usec(host_cost_ms), us(gpu_ms)
    if host_rules.loop_waited(ratio) and host_rules.host_over_gpu_at_median(host_median_ms, gpu_ms):
        return (f"the eager loop took {times(ratio)} the GPU-only time. The host's cost of a call is under the GPU "
                f"time at its {ordinal(host_rules.HOST_COST_QUANTILE)} percentile ({host}) but over it at the median "
                f"({usec(host_median_ms)} against {gpu}). So the loop waits on the host at most calls")
    if straddles and host_rules.host_well_under_gpu(host_cost_ms, gpu_ms):
        return (f"at the {times(line)} line ({times(ci[0])} to {times(ci[1])} its GPU-only time), but not behind "
                f"this host: its cost ({host} a call at its {ordinal(host_rules.HOST_COST_QUANTILE)} percentile) is "
                "under "
                f"half the GPU time ({gpu}), so the spread is not the "
                "host's")
    if not straddles and host_rules.host_far_under_gpu(host_cost_ms, gpu_ms):
        return (f"its eager call takes {times(ratio)} the GPU-only time: the kernels ran slower in the eager loop "
                f"than the GPU-only time shows; the host, at {host} a call ({ordinal(host_rules.HOST_COST_QUANTILE)} "
                f"percentile) against {gpu} of GPU time, does not "
                "explain it")
    if not host_rules.loop_waited(ratio):  # the median under the line, inside its noise (1.01×, 1.02×): no gap
        return None
    return (f"the eager loop took {times(ratio)} the GPU-only time, though the host's cost (its "
            f"{ordinal(host_rules.HOST_COST_QUANTILE)} percentile: {host}) is under the "
            f"GPU time ({gpu}); the cause of the gap is not established")


def on_this_host(ratio: float | None, ci: tuple[float, float] | None, host_cost_ms: float | None = None,
                 gpu_ms: float | None = None, host_median_ms: float | None = None) -> str:
    """What this capture's loop saw, as measured: host-bound on this host, not, or at the line where the
    ratio's interval reaches across it. Never "within noise": a ratio clear of the line is its answer here.
    Never "waited for this host" where the host is faster than the GPU (host_not_the_gap)."""
    line = host_rules.HOST_BOUND_EAGER_RATIO
    if ratio is None:
        return "no eager time"
    not_host = host_not_the_gap(ratio, ci, host_cost_ms, gpu_ms, host_median_ms)
    if not_host:
        return not_host
    if host_rules.straddles_line(ci) and not host_rules.loop_waited(ratio):
        return (f"the GPU stayed busy behind this host at the median ({times(ratio)} its GPU-only time; the "
                f"interval, {times(ci[0])} to {times(ci[1])}, reaches the {times(line)} line)")
    if host_rules.straddles_line(ci):
        return f"at the {times(line)} line behind this host ({times(ci[0])} to {times(ci[1])} its GPU-only time)"
    state = "a loop waited for this host" if host_rules.loop_waited(ratio) else "the GPU stayed busy behind this host"
    return f"{state} ({times(ratio)} its GPU-only time)"


def against_line(share: float, line: float) -> tuple[str, str]:
    """A host's cost over a GPU time set beside one of the rule's lines, at the two decimals every host ratio takes,
    with where it reads against the line at them: ("1.30×", "under"), ("1.50×", "at") for FA4's 1.498 (three decimals
    only there read as a figure apart from the others), ("2.10×", "over")."""
    shown = times(share)
    return shown, "at" if shown == times(line) else "under" if share < line else "over"


def host_short_of_line(host_cost_ms: float | None, gpu_ms: float | None, ratio: float | None = None) -> str | None:
    """Where the host's cost of a call is under host_rules.HOST_YES_MARGIN times its GPU time, the rule's outcome as
    short sentences, each capitalised, the last without its full stop. Where the share rounds onto the line (FA4's
    1.498, against_line): "It is within noise of the host-bound line. Its 10th-percentile host cost is 1.50× its GPU
    time, at the rule's 1.5× line". Elsewhere what each measure says (host_rules.host_measure), from the rule's own
    lines: "The host-bound rule leaves it undecided. The loop's 1.40× says host-bound. Its 10th-percentile host cost,
    0.82× its GPU time, lies between the rule's 0.5× and 1.5× lines". None elsewhere. Never "within noise of the line"
    for a share far under it (0.82× read as close to 1.5×)."""
    if not host_rules.host_short_of_margin(host_cost_ms, gpu_ms):
        return None
    upper, lower = host_rules.HOST_YES_MARGIN, 1 / host_rules.HOST_HEADROOM
    cost = f"Its {ordinal(host_rules.HOST_COST_QUANTILE)}-percentile host cost"
    shown, where = against_line(host_cost_ms / gpu_ms, upper)
    if where == "at":
        return (f"It is within noise of the host-bound line. {cost} is {shown} its GPU time, at the rule's {upper:g}× "
                "line")
    loop = f"The loop's {times(ratio)}" if ratio is not None and not missing(ratio) else "The loop's ratio"
    if host_rules.host_measure(host_cost_ms, gpu_ms) == rules.NO:
        said = f"is under the rule's {lower:g}× line, where the host says not host-bound"
    else:
        said = f"lies between the rule's {lower:g}× and {upper:g}× lines"
    return (f"The host-bound rule leaves it undecided. {loop} says host-bound. {cost}, {shown} its GPU time, "
            f"{said}")


def host_ratio_words(ratio: float | None, ci: tuple[float, float] | None, why: str | None,
                     host_cost_ms: float | None, gpu_ms: float | None, host_ref_ms: float | None = None,
                     host_median_ms: float | None = None) -> str:
    """The eager/GPU-only ratio as measured, what it makes of this capture's host, and the crossover
    (host_crossover): whether a loop waits is a property of the host, so the host's numbers stand beside it."""
    text = on_this_host(ratio, ci, host_cost_ms, gpu_ms, host_median_ms)
    if ratio is not None and host_rules.loop_waited(ratio) and (short := host_short_of_line(host_cost_ms, gpu_ms,
                                                                                             ratio)):
        # the loop waited, yet the rule's second measure stops short: the rule's outcome in sentences of its own
        text += f". {short}"
    if why == "same kernels":
        text += "; a variant running the same kernels came out otherwise"
    # where the host's cost is already set against the GPU time, the crossover would say it twice
    cross = None if host_not_the_gap(ratio, ci, host_cost_ms, gpu_ms, host_median_ms) else \
        host_crossover(gpu_ms, host_cost_ms, host_ref_ms, host_median_ms)
    return text + (f"; {cross}" if cross else "")


def noise_cell(why: str | None, ratio: float | None, host_cost_ms: float | None, gpu_ms: float | None,
               ci: tuple[float, float] | None = None) -> str:
    """A "within noise" host-bound cell with the measure that left it undecided (host_rules.host_bound_why), so the
    label follows from numbers a reader can check (FA4's 2.16x loop and cuDNN's 1.02x one read the
    same): "within noise: the loop waited (2.16×), the host's low end 1.50× the GPU time, at 1.5×"."""
    line = host_rules.HOST_BOUND_EAGER_RATIO
    if why == "host" and ratio is not None and host_cost_ms and gpu_ms:
        share = host_cost_ms / gpu_ms
        if host_rules.loop_waited(ratio) and host_rules.host_under_gpu(host_cost_ms, gpu_ms):
            shown, where = against_line(share, 1)
            return (f"within noise: the loop took {times(ratio)}, but the host's low end is {where} the GPU time "
                    f"({shown}): the gap is not shown to be the host's")
        if host_rules.loop_waited(ratio):
            shown, where = against_line(share, host_rules.HOST_YES_MARGIN)
            return (f"within noise: the loop waited ({times(ratio)}), the host's low end {shown} the GPU time, "
                    f"{where} {host_rules.HOST_YES_MARGIN:g}×")
        low, where = against_line(share, 1 / host_rules.HOST_HEADROOM)
        return (f"within noise: the loop kept the GPU busy ({times(ratio)}), the host's low end {low} the GPU time, "
                f"{where} 1/{host_rules.HOST_HEADROOM:g}")
    if why in ("eager", "both"):
        where = f", {times(ci[0])} to {times(ci[1])}," if ci and None not in ci else ""
        return f"within noise: the loop's interval{where} reaches the {times(line)} line"
    return "within noise"
