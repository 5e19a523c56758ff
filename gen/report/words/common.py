"""Words every page uses: durations (gen.report.format's, by the names the words call them), ratios and counts as
text, a variant's label, a backend's name, a list joined with "and", a capture's reason cut short, and why a call did
not run (`refusal`)."""

from __future__ import annotations

import datetime
import re

from gen.analysis import determinism as determinism_facts
from gen.analysis import flops
from gen.model.variants import VARIANTS

# A sentence's times are formatted in gen.report.format, the one module that formats times; the words modules call
# them by these names
from gen.report.format import once_ms as one_timing  # noqa: F401
from gen.report.format import sentence_ms as us
from gen.report.format import sentence_us as duration_us  # noqa: F401

# --------------------------------------------------------------------------- numbers


def times(x: float, digits: int = 2) -> str:
    """A ratio: "1.23×"."""
    return f"{x:.{digits}f}×"


def digits_beside(x: float, line: float, digits: int = 2) -> int:
    """The decimals a ratio set beside a line needs: `digits`, more where fewer would round it onto the line or past
    it."""
    for d in range(digits, digits + 4):
        shown = round(x, d)
        if (shown < line) == (x < line) and (shown > line) == (x > line):
            return d
    return digits + 4


def times_beside(x: float, line: float, digits: int = 2) -> str:
    """A ratio set beside a line ("under the 1.5× line"): as `times`, with more digits where fewer would round it
    onto the line or past it (1.497×, never 1.50× "under 1.5×")."""
    return times(x, digits_beside(x, line, digits))


def range_beside(lo: float, hi: float, line: float) -> str:
    """A range of ratios beside a line, both ends at the two decimals every ratio of a range takes (the first screen's
    "1.00–21.56×" in the cell above it): "1.00–1.16×", one figure where both ends read alike; where the upper end
    would read as the line at them while under it, the line in words instead of more digits ("1.000–1.196×" beside
    "1.00–21.56×" gave one quantity two precisions): "1.00× to just under 1.2×"."""
    if times(hi) == times(line) and hi < line:
        return f"{times(lo)} to just under {line:g}×"
    return times(hi) if times(lo) == times(hi) else f"{lo:.2f}–{times(hi)}"


def level_pct(level: float) -> str:
    """An interval's level as a percentage to two decimals, a whole one whole: 0.95 "95%", 0.9375 "93.75%", 0.95904
    "95.90%" (not "95.9%" beside "95.86%": one precision)."""
    text = f"{100 * level:.2f}"
    return (text[:-3] if text.endswith(".00") else text) + "%"


def intervals(*spreads, one: bool = False, note: str | None = None) -> str:
    """The name of the intervals of medians a sentence sets side by side: "95% intervals", or where one of them rests
    on too few rounds for 95% (timings.Spread.level, stats.interval_level) its real level and how it was built: "93.75%
    intervals (the range of 5 rounds)", and where
    the ±1% floor widened one (timings.Spread.widened) "(the range of 5 rounds, widened to ±1%)". `spreads`:
    timings.Spread, or (rounds, n) or (rounds, n, widened) of a row; `one`: the singular; `note`: said in the same
    parenthesis ("0.27 µs apart"). Two medians at different levels are each named: "93.75% and 96.88% intervals (the
    range of 5 and 6 rounds)", the counts only where each gives one level and each interval is the range of its units;
    more levels, or counts that do not pair with them, by their span: "intervals (each at the level its samples allow,
    93.75–97.85%)"."""
    text, built = interval_parts(*spreads, one=one)
    inside = "; ".join(x for x in (built, note) if x)
    return f"{text} ({inside})" if inside else text


def interval_parts(*spreads, one: bool = False) -> tuple[str, str | None]:
    """`intervals` in two parts, the name and how the intervals were built (None where the level says it all), so
    that a sentence already inside a bracket can give the second without a bracket in a bracket: ("93.75%
    intervals", "the range of 5 rounds, widened to ±1%")."""
    from gen.analysis.timings import ci_level  # words over the analysis' facts: the level is one rule
    from gen.model.stats import CI_LEVEL, order_statistic_rank

    noun = "interval" if one else "intervals"
    units, widened = [], False
    for sp in spreads:
        if sp is None:
            continue
        if hasattr(sp, "rounds"):
            rounds, n, w = sp.rounds, sp.n, sp.widened
        else:
            rounds, n, w = (*sp, None)[:3]
        rounds, n = int(rounds or 1), int(n or 0)
        units.append((rounds if rounds > 1 else n, rounds > 1))
        widened = widened or bool(w)
    levels = sorted({(ci_level(u), u, r) for u, r in units if u})
    low = levels[0] if levels else None
    if low is None:
        return f"{level_pct(CI_LEVEL)} {noun}", None
    distinct = sorted({x[0] for x in levels})
    if len(distinct) > 1 and not one:  # each median's own level (5 rounds beside 6)
        kinds: dict[str, list[str]] = {}
        for _, u, r in levels:
            kinds.setdefault("rounds" if r else "samples", []).append(str(u))
        # the counts are named only where each gives one level and each interval is the range of its units
        paired = len(levels) == len(distinct) and all(order_statistic_rank(u) == 1 for _, u, _ in levels)
        if len(distinct) == 2 and not low[0] < CI_LEVEL:  # both at 95% or above: the levels say it all
            return f"{' and '.join(map(level_pct, distinct))} {noun}", None
        if len(distinct) == 2 and paired:
            built = "the range of " + " and ".join(f"{join_and(dict.fromkeys(us))} {k}" for k, us in kinds.items())
            text = f"{' and '.join(map(level_pct, distinct))} {noun}"
        else:  # levels that do not pair with their counts: their span, one precision
            span = f"{level_pct(distinct[0])}–{level_pct(distinct[-1])}"
            built, text = f"each at the level its {' or '.join(kinds)} allow, {span}", noun
        return text, built + (f", widened to {floor_pct()}" if widened else "")
    if not low[0] < CI_LEVEL:  # the real level of the rounds, never "95%" for 96.88%
        return f"{level_pct(low[0])} {noun}", None
    what = "rounds" if low[2] else "samples"
    return f"{level_pct(low[0])} {noun}", f"the range of {low[1]} {what}" + (
        f", widened to {floor_pct()}" if widened else "")


def floor_pct() -> str:
    """The floor every interval of a median is held to: "±1%" (rules.TIME_FLOOR_PCT)."""
    from gen.analysis import rules

    return f"±{rules.TIME_FLOOR_PCT:g}%"


def overlap_words(first, others, label) -> str:
    """What the overlap of `first`'s interval with each of `others` ((variant, Spread)) rests on, for a "within
    noise" parenthesis: "the 95% intervals of the medians overlap" where the rounds
    themselves overlap; where only the ±1% floor joins them (timings.floor_only_overlap), "every round apart;
    within the ±1% floor of the 93.75% intervals, each the range of 5 rounds, widened to ±1%", naming the calls where
    only some are so. How the intervals were built follows as a clause: the words stand inside a bracket."""
    from gen.analysis.timings import floor_only_overlap

    # said inside a bracket: how the intervals were built follows as a clause, never a second bracket
    name, built = interval_parts(first, *(sp for _, sp in others))
    each = "" if not built else f", {'each ' if built.startswith('the range') else ''}{built}"
    level = name + each
    floor = [v for v, sp in others if floor_only_overlap(first, sp)]
    if not floor:
        return f"the {name} of the medians overlap{each}"
    if len(floor) == len(others):
        return f"every round apart; within the {floor_pct()} floor of the {level}"
    rest = [v for v, _ in others if v not in floor]
    return (f"the {name} of the medians overlap{each}; {join_and(label(v) for v in floor)}'s rounds all apart from "
            f"its, within the {floor_pct()} floor only, and {join_and(label(v) for v in rest)}'s overlap")


def level_span(units) -> str | None:
    """The levels of the intervals of medians over `units` (each median's rounds, or samples with one round:
    timings.ci_level), lowest to highest: "75%–96.88%", "93.75%"; None without units. The one place every page's range
    of levels comes from: the home's line under its decision and the methodology's rules table."""
    from gen.analysis.timings import ci_level

    levels = sorted({ci_level(u) for u in units if u and u > 0})
    if not levels:
        return None
    return level_pct(levels[0]) if len(levels) == 1 else f"{level_pct(levels[0])}–{level_pct(levels[-1])}"


LEVEL_ALLOWED = "the level its rounds, or its profiled calls, allow"  # what sets an interval's level, in words


def each_median_interval(units) -> str:
    """The intervals a set's verdicts rank by, named with their real levels: "the 95%
    interval of each median" where every one reaches 95%, else "the interval of each median (at 93.75–96.88%, the
    level its rounds allow)" (level_span). `units`: each ranked median's rounds (or samples, with one round)."""
    from gen.analysis.timings import ci_level
    from gen.model.stats import CI_LEVEL

    span = level_span(units)
    if span is None:
        return f"the {level_pct(CI_LEVEL)} interval of each median"
    if "–" not in span and ci_level(next(u for u in units if u and u > 0)) >= CI_LEVEL:  # the real level
        return f"the {span} interval of each median"
    return f"the interval of each median (at {span}, {LEVEL_ALLOWED})"


def apart_words(gap_ms: float | None, faster_ms: float | None, *spreads) -> str:
    """Two medians' intervals that are apart, said with how far where the gap is small (rules.just_outside): "just
    outside the 95% intervals (0.27 µs apart)", else "the 95% intervals apart"."""
    from gen.analysis import rules

    if rules.just_outside(gap_ms, faster_ms):
        gap = gap_ms * 1000
        note = f"{gap:.2g} µs apart" if gap < 1 else f"{gap:.1f} µs apart"
        return f"just outside the {intervals(*spreads, note=note)}"
    return f"the {intervals(*spreads)} apart"


def tie_by_medians(a_ms: float, b_ms: float) -> str:
    """Two calls of the same kernels, one rank: "one rank, a tie, by their medians 1.341 ms and 1.340 ms"."""
    return f"one rank, a tie, by their medians {us(a_ms)} and {us(b_ms)}"


def pct(x: float, digits: int = 0) -> str:
    return f"{x:.{digits}f}%"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def ordinal(n: int | None) -> str:
    if n is None:
        return "apart"
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def join_and(items) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def clock_time(iso: str | None) -> str:
    """'2026-12-03T23:09:12+00:00' -> '23:09 UTC on 2026-12-03'; a value that does not parse names no time."""
    try:
        t = datetime.datetime.fromisoformat(iso or "")
    except ValueError:
        return "another time"
    return f"{t:%H:%M} UTC on {t:%Y-%m-%d}"


# --------------------------------------------------------------------------- FLOP counts

# The label printed beside a TFLOP/s, by the count its point takes (flops.count_kind): each names the count used
COUNT_LABEL = {"square": flops.FLOP_LABEL,
               "lower_right": "FlashAttention count over the exact lower-right causal pairs, diagonal counted",
               "window": "FlashAttention count over the exact pairs inside the window",
               "documents": "FlashAttention count over each document's own causal square, S²/2",
               "dense": "FlashAttention count over every pair"}


def flop_label(points) -> str:
    """The count label of some points (dicts or schema.Points with mask, q_len, kv_len): one label where they
    take one count, else each count's label once, in the points' order; flops.FLOP_LABEL for none."""
    def kind(p):
        get = p.get if isinstance(p, dict) else lambda k: getattr(p, k)
        return flops.count_kind(get("mask"), get("q_len"), get("kv_len"))

    kinds = list(dict.fromkeys(kind(p) for p in points))
    return "; ".join(COUNT_LABEL[k] for k in kinds) if kinds else flops.FLOP_LABEL


# --------------------------------------------------------------------------- calls, variants and backends


def call_of(mode: str) -> str:
    """What one timed call is in a mode."""
    return "forward" if mode == "inference" else "training step"


def per_call(mode: str) -> str:
    return "a forward" if mode == "inference" else "a training step"


def label(variant: str) -> str:
    """A variant's label, the one form for sentences and tables ("SDPA (backend not pinned)"); its name where none
    is declared."""
    v = VARIANTS.get(variant)
    return v.label if v else variant


def short_label(variant: str) -> str:
    """A variant's label without its bracket, for a possessive: "FlexAttention (compiled)" -> "FlexAttention"."""
    return label(variant).split(" (")[0]


BACKENDS = {"cudnn": "cuDNN", "flash": "flash", "efficient": "memory-efficient", "math": "math",
            "flash (CPU)": "flash (its CPU kernel)"}


def backend(name: str | None) -> str:
    return BACKENDS.get(name, name) if name else "an unnamed backend"


def variant_backend(x: str) -> str | None:
    """The SDPA backend a variant pins, None where it pins none."""
    var = VARIANTS.get(x)
    return var.backend if var else None


# --------------------------------------------------------------------------- why a call did not run

# A capture's skip reason names the memory free when it got there as "the GPU's N GB free": memory its own
# process held, not the GPU's capacity
_GPU_FREE = re.compile(r"more than the GPU's ([\d.]+ [KMGT]?i?B) free")


# Older captures wrote their own skip reasons' sizes in whole GB (10^9 bytes) while PyTorch's out-of-memory
# messages give GiB: one GPU's memory would read in two units two sentences apart. A whole GB is said as the GiB
# it is, rounded as the GB was: "34 GB" is 33.5-34.5 GB, 31.2-32.1 GiB, so "≈32 GiB"
_WHOLE_GB = re.compile(r"(?<![\d.])(\d+) GB\b")
GB, GIB = 1e9, 2.0 ** 30


def _gib(m: re.Match) -> str:
    n = int(m.group(1))
    return f"≈{n * GB / GIB:.0f} GiB" if n else f"<{0.5 * GB / GIB:.1f} GiB"


def gib_units(text: str) -> str:
    """A capture's reason with its whole GB said in GiB (_WHOLE_GB)."""
    return _WHOLE_GB.sub(_gib, text)


def free_memory_words(reason: str) -> str:
    return gib_units(_GPU_FREE.sub(r"more than the \1 the capture left free (not the GPU's capacity)", reason))


_FREE_READING = re.compile(r"\bfree\b")


def free_readings_note(texts: list[str]) -> str | None:
    """Where several reasons in one list each give the GPU's free memory: that each was read when its call was
    reached, so they differ with what the capture held then (4.31 GiB free for one call, ≈1 GiB
    left free for the next, two sentences apart); None for fewer than two."""
    n = sum(1 for t in texts if _FREE_READING.search(t))
    if n < 2:
        return None
    return (f"{'Both' if n == 2 else f'The {n}'} free-memory figures above were read at different moments, each when "
            "its call was reached: they differ with what the capture held then, not with the GPU.")


def refusal(status: str, reason: str | None, needs_cuda: bool = False) -> str:
    """Why a variant or a point did not run, for a table cell or a failure box: PyTorch's reason as capture
    kept it (the report's words for a CUDA-only backend pinned on a CPU machine)."""
    if needs_cuda:
        return "needs CUDA: PyTorch has no CPU kernel for this backend, so pinning it leaves no viable backend"
    if isinstance(reason, str) and reason:  # from a frame, a missing reason is NaN, which is truthy
        return free_memory_words(reason)
    return {"oom": "out of memory", "skipped": "not run"}.get(status, "no reason recorded")


REASON_CHARS = 100  # a reason inside a verdict's sentence; the verdict keeps the full text beside it


def shortened(text: str, limit: int = REASON_CHARS) -> str:
    """text, or where longer than limit its clauses (or else its words) that fit with an ellipsis: a cut never
    ends inside a word or a number (139.80 GiB cut to "139.8" would be another figure), unless its last word
    is longer than half the limit: that one is cut where the limit falls."""
    if len(text) <= limit:
        return text
    head = text[:limit - 1]
    # a whole clause or sentence reads better than one cut mid-clause ("… a new module and a…"): the
    # last boundary past a third of the limit, else the last word
    clause = max(head.rfind(sep) for sep in ("; ", ". ", ", "))
    if clause > limit // 3:
        head = head[:clause]
    elif not text[limit - 1].isspace():
        space = max(head.rfind(" "), head.rfind("\n"))
        if space > limit // 2:
            head = head[:space]
    return head.rstrip(" \n,;:.(") + "…"


def reason_first_clause(reason: str, backend_name: str | None) -> str:
    """A reason's first line; for PyTorch's refusals, which open with "No available kernel. Aborting
    execution.", the clause naming the backend."""
    reason = determinism_facts.reason_clause(reason, backend_name) or reason
    return free_memory_words(reason.split("\n")[0].removeprefix("not run: ").strip())


def short_reason(reason: str | None, backend_name: str | None = None) -> str:
    """A capture's reason for a variant it did not measure, short: its first clause, at most
    REASON_CHARS characters, cut between words."""
    if not reason:
        return "no reason recorded"
    return shortened(reason_first_clause(reason, backend_name))


NOT_MEASURED = "not measured"


def kept_status(reason: str | None, status: str = NOT_MEASURED) -> str:
    """A reason cut short (short_reason) behind the status it ends in, so that a cut never drops the verdict (cut
    alone, "the compiled naive product holds a mask of one length…" would not say it was not measured): "not measured
    (the compiled naive product holds a mask of one length…)"; the status alone where
    there is no reason."""
    if not reason:
        return status
    text = reason.rstrip(". ").removesuffix(f"; {status}").removesuffix(f", {status}")
    return f"{status} ({bare_reason(short_reason(text))})"


def bare_reason(reason: str) -> str:
    """A reason without its exception's type and final stop, to sit inside a sentence."""
    head, sep, rest = reason.partition(": ")
    return (rest if sep and head.endswith(("Error", "Exception")) else reason).rstrip(".")
