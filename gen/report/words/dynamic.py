"""The dynamic-lengths page and the forward/backward split: facts of gen.analysis.dynamic and
gen.analysis.fwdbwd -> sentences. Every number comes from the facts given; nothing here reads a set."""

from __future__ import annotations

from gen.analysis import rules
from gen.analysis.dynamic import (
    ALWAYS,
    BEYOND,
    NEVER,
    PLANS_PER_LENGTH,
    UP_TO,
    DynamicFacts,
    LengthOutcome,
    PhaseFacts,
    SwitchFacts,
)
from gen.report import format as fmt
from gen.report.words.common import join_and, us  # a new length's cost in words, as the home says it
from gen.report.words.scenario_first import cost_spread

PHASE_TITLE = {"prefill": "New prompt lengths (prefill)", "decode": "Decode steps with a growing KV cache"}

PHASE_AXIS = {"prefill": "prompt length (tokens), each a new length",
              "decode": "KV cache length (tokens), one decode step a token"}


PHASE_WHERE = {"prefill": "at new prompt lengths", "decode": "at decode steps"}
PHASE_LENGTH = {"prefill": "new prompt length", "decode": "decode step"}


NOT_RECORDED = "not recorded"

SPLIT_METHOD = {
    "events_behind_sleep": ("Each step's forward and backward are timed apart by CUDA events, the step queued "
                            "behind a GPU sleep longer than the host takes to queue it, so no host gap is counted."),
    "wall": "Each part is wall time on the CPU.",
}


SPLIT_NOT_RECORDED = ("not recorded: this set was captured before training steps were timed in two parts "
                      "(schema 4)")


def label(variant: str) -> str:
    return fmt.label_of(variant)


def calls(x: float | None) -> str:
    """A break-even count as the most whole calls a length below it (a fraction of a call is not a thing a
    server makes)."""
    n = PhaseFacts.calls_below(x)
    return fmt.DASH if n is None else f"{n:,}"


def calls_words(x: float | None) -> str:
    n = PhaseFacts.calls_below(x)
    return fmt.DASH if n is None else f"{n:,} call" + ("" if n == 1 else "s")


def _lengths(a: int, b: int) -> str:
    return f"{a:,}" if a == b else f"{a:,}–{b:,}"


def _segments(outs: tuple[LengthOutcome, ...]) -> list[tuple[str, list[LengthOutcome]]]:
    """Runs of consecutive lengths with the same outcome kind."""
    out: list[tuple[str, list[LengthOutcome]]] = []
    for o in outs:
        if out and out[-1][0] == o.kind:
            out[-1][1].append(o)
        else:
            out.append((o.kind, [o]))
    return out


# Runs of lengths with one outcome that per_length lists one by one; past this many, it counts them by outcome
PER_LENGTH_RUNS = 3


def _span(kind: str, group: list[LengthOutcome]) -> str | None:
    """The span of the whole-call counts of an UP_TO or BEYOND group ("380–704"), None where there is none."""
    ns = [] if kind in (ALWAYS, NEVER) else [PhaseFacts.calls_below(o.calls) if kind == UP_TO
                                             else PhaseFacts.calls_past(o.calls) for o in group]
    ns = [n for n in ns if n is not None]
    if not ns:
        return None
    return f"{min(ns):,}" if min(ns) == max(ns) else f"{min(ns):,}–{max(ns):,}"


def _outcome(kind: str, group: list[LengthOutcome]) -> str:
    """One kind of outcome over its lengths: 'any number', 'never', or 'up to' / 'past' the span of their counts
    (the most whole calls below each break-even)."""
    if kind == ALWAYS:
        return "any number"
    span = _span(kind, group)
    if span is None:
        return "never"
    return f"{'up to' if kind == UP_TO else 'past'} {span} calls"


def _per_kind(outs: tuple[LengthOutcome, ...]) -> str:
    """Outcomes counted by kind: 'any number at 12 of 30 lengths, up to 3,855–23,842 calls at 18'."""
    parts = []
    for kind in (ALWAYS, UP_TO, BEYOND, NEVER):
        group = [o for o in outs if o.kind == kind]
        if group:
            at = f"at {len(group)} of {len(outs)} lengths" if not parts else f"at {len(group)}"
            parts.append(f"{_outcome(kind, group)} {at}")
    return ", ".join(parts) + " (the outcome alternates from length to length)"


def per_length(outs: tuple[LengthOutcome, ...]) -> str:
    """A run against the fastest once warm, length by length, in a few words: 'up to 441–816 calls (1,001–2,049),
    any number (3,001–4,099)'; runs that alternate past PER_LENGTH_RUNS are counted by kind (`_per_kind`)."""
    segments = _segments(outs)
    if len(segments) > PER_LENGTH_RUNS:
        return _per_kind(outs)
    return ", ".join(f"{_outcome(kind, group)} ({_lengths(group[0].kv_len, group[-1].kv_len)})"
                     for kind, group in segments) or fmt.DASH


def per_length_clause(outs: tuple[LengthOutcome, ...]) -> str:
    """`per_length` as the end of a sentence: "while a length is called up to 380–704 times (at
    1,001–2,049 tokens), and at any number of calls at 3,001–8,209 tokens"; alternating runs counted by kind."""
    segments = _segments(outs)
    if len(segments) > PER_LENGTH_RUNS:
        return f"by length: {_per_kind(outs)}"
    parts = []
    for kind, group in segments:
        at = f"{_lengths(group[0].kv_len, group[-1].kv_len)} tokens"
        span = _span(kind, group)
        if kind == ALWAYS:
            parts.append(f"at any number of calls at {at}")
        elif span is None:
            parts.append(f"at no number of calls at {at}")
        else:
            parts.append(f"while a length is called up to {span} times (at {at})" if kind == UP_TO
                         else f"once a length is called {span} times or more (at {at})")
    if not parts:
        return fmt.DASH
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f", and {parts[-1]}"


# A first call this many times a warm one is worth a sentence of its own on the phase's headline
COSTLY_FIRST_CALL = 10.0


# The break-even list of a headline names this many variants at most (the rest are in the table)
HEADLINE_BREAK_EVEN = 2


def short(headline_text: str | None) -> str | None:
    """A headline's first sentence (the pages over all sets show one line a set)."""
    if not headline_text:
        return headline_text
    head, sep, _ = headline_text.partition(". ")
    return head + ("." if sep else "")


def _lowest(pf: PhaseFacts, best: DynamicFacts) -> str:
    """Who is lowest once warm, over every row: where that is a run whose new lengths were not costed (its first
    calls hit another run's cached plans), it is named, and why the reference is another; no closing stop (the headline
    goes on)."""
    low = pf.lowest_warm
    if low is not None and low.variant != best.variant and pf.cache_warmed(low.variant):
        return (f"Once warm, {label(low.variant)} has the lowest median call in a Python loop over the "
                f"{low.lengths} lengths ({fmt.ms(low.steady_ms)} ms), but its first calls hit the plans another run "
                f"had cached (below), so what its new lengths cost is not known. Of the calls whose new lengths were "
                f"costed, {label(best.variant)}'s is the lowest ({fmt.ms(best.steady_ms)} ms; the reference of the "
                "table's last column, which says length by length where others cost less)")
    return (f"Once warm, {label(best.variant)}'s call in a Python loop has the lowest median over the "
            f"{best.lengths} lengths ({fmt.ms(best.steady_ms)} ms; length by length, the table's last column says "
            "where others cost less)")


def headline(pf: PhaseFacts) -> str | None:
    """The phase's answer in two or three sentences: fastest once warm, what its new lengths cost, who pays
    least for one, and who breaks even with it."""
    best, first = pf.steady_best, pf.first_best
    if best is None:
        return None
    unit = PHASE_LENGTH.get(pf.phase, "new length")
    out = [_lowest(pf, best)]
    if best.first_overhead_ms is not None and pf.cache_warmed(best.variant):
        out[0] += "."
    elif best.first_overhead_ms is not None:
        ratio = best.first_overhead_ms / best.steady_ms if best.steady_ms else None
        out[0] += (f"; its first call at each {unit} costs {us(best.first_overhead_ms)} more than its second"
                   + (f" ({ratio:,.0f}× a warm call)" if ratio is not None and ratio >= 2 else "")) + "."
    else:
        out[0] += "."
    out += cache_notes(pf)
    once = warmup_note(pf)
    if once:
        out.append(once)
    if first is not None and first.variant != best.variant and not pf.cache_warmed(first.variant):
        alike = pf.first_alike  # not told apart from the cheapest
        if alike:
            paid = fmt.ms_span((first.first_overhead_ms, max(f.first_overhead_ms for f in alike)))
            out.append(f"{join_and(label(f.variant) for f in [first, *alike])} pay about the same for a {unit} "
                       f"(their first calls there {paid} ms more than their second, within "
                       f"{rules.NEW_LENGTH_NOISE_MS * 1e3:.0f} µs: not told apart).")
        else:
            out.append(f"{label(first.variant)} pays the least for a {unit}: its first call there took "
                       f"{us(first.first_overhead_ms)} more than its second (both on the wall clock).")
    worst = pf.costliest
    if (worst is not None and worst.variant != best.variant and worst.steady_ms
            and worst.first_overhead_ms / worst.steady_ms >= COSTLY_FIRST_CALL):
        out.append(f"{label(worst.variant)} pays {cost_spread(worst, unit)}, "
                   f"{worst.first_overhead_ms / worst.steady_ms:,.0f}× its warm call of {us(worst.steady_ms)}.")
    cold = [f for f in pf.break_even if not pf.cache_warmed(f.variant)]
    if cold:
        # one plain sentence a variant, its lengths said in tokens ("for as
        # many calls a length as (tokens in brackets): ..., up to 380–704 calls (1,001–2,049)")
        out += [f"Counting each length's cost, {label(f.variant)} costs less in all than {label(best.variant)} "
                f"{per_length_clause(pf.per_length[f.variant])}." for f in cold[:HEADLINE_BREAK_EVEN]]
    elif first is not None and first.variant == best.variant and not pf.cache_warmed(best.variant):
        out.append(f"{label(best.variant)} also pays the least for a new length: {_none_breaks_even(pf)}.")
    return " ".join(out)


def _none_breaks_even(pf: PhaseFacts) -> str:
    """Where no run costs less in all than the fastest once warm for few calls a length: 'no variant breaks even
    with it', unless some costs less past some count at some lengths (its warm call faster there), which is said
    with the count, the lengths and the warm calls; no closing stop."""
    over = pf.overtakers()
    if not over:
        return "no variant breaks even with it"
    ref = label(pf.steady_best.variant)
    parts = []
    for o in over[:HEADLINE_BREAK_EVEN]:
        rest = (f"; at its other {o.other_lengths} length{'' if o.other_lengths == 1 else 's'} "
                f"{label(o.variant)}'s was {fmt.ms_span(o.other_warm_ms)} ms" if o.other_warm_ms is not None else "")
        parts.append(f"{label(o.variant)} costs less past {_calls_span(o.fewest_calls, o.most_calls)} at "
                     f"{_where(o)} tokens, where its warm loop call, "
                     f"{fmt.ms_span(o.warm_ms)} ms, fell below {ref}'s {fmt.ms_span(o.best_warm_ms)} ms{rest}")
    return (f"no variant breaks even with it below {over[0].fewest_calls:,} calls a length "
            f"({'; '.join(parts)})")


def _where(o) -> str:
    """An overtaker's lengths: their span where they run together, else how many lie between the two ends."""
    if o.together:
        return _lengths(o.kv_lens[0], o.kv_lens[-1])
    return f"{len(o.kv_lens)} lengths between {o.kv_lens[0]:,} and {o.kv_lens[-1]:,}"


def _calls_span(a: int, b: int) -> str:
    return f"{a:,} calls" if a == b else f"{a:,}–{b:,} calls"


def warmup(f: DynamicFacts) -> str:
    """A run's warm-up as a table cell: what it paid once, over how many first lengths."""
    if not f.warmup_lengths or f.warmup_ms is None:
        return fmt.DASH
    return f"{fmt.ms(f.warmup_ms)} over {f.warmup_lengths} length" + ("" if f.warmup_lengths == 1 else "s")


def warmup_note(pf: PhaseFacts) -> str | None:
    """The runs that paid a warm-up at their first lengths worth a note (PhaseFacts.startup_paid), paid once per
    process: a compile and the recompiles to dynamic shapes, or a library's first load."""
    paid = pf.startup_paid
    if not paid:
        return None
    parts = [f"{label(f.variant)} {f.warmup_ms / 1e3:.2f} s "
             + ("at its first length" if f.warmup_lengths == 1 else f"over its first {f.warmup_lengths} lengths")
             for f in paid]
    later = [f"{label(f.variant)} {fmt.ms(f.later_max_ms)} ms" for f in paid if f.later_max_ms is not None]
    after = (f" Past them no length, up to {max(max(f.kv_lens) for f in paid):,} tokens, cost more than "
             f"{join_and(later)}." if later and len(later) == len(paid) else "")
    return (f"Paid once, at the first lengths, before the per-length costs: {join_and(parts)} (compiling, or "
            "loading code the capture had compiled or a library, and recompiling for dynamic shapes; a fresh process "
            f"pays it again).{after}")


def cache_notes(pf: PhaseFacts) -> list[str]:
    """An unpinned run measured after pinned cuDNN at the same lengths: its first calls do not show the plan
    build a server calling it would pay."""
    out = []
    for w in pf.warm_cache:
        variant, before, chose = w.variant, w.before, w.chose
        runs = f"runs {BACKEND_WORDS.get(chose, chose)} (its pick at the set's other points); " if chose else ""
        twin = next((f for f in pf.measured if f.variant == before), None)
        mine = next((f for f in pf.measured if f.variant == variant), None)
        same = (f" Once warm it runs the same backend as {label(before)}: {_twins(mine, twin, label(before))}."
                if chose == "cudnn" and twin is not None and mine is not None else "")
        out.append(f"{label(variant)} {runs}its first calls were measured after {label(before)}'s at the same "
                   "lengths in the same process, so they hit the plan cache that run filled and do not show the "
                   f"plan-build cost; this set did not measure them cold (a server calling it at a length no call "
                   f"had planned would pay the build).{same}")
    return out


def _twins(mine: DynamicFacts, twin: DynamicFacts, twin_label: str) -> str:
    """An unpinned run and the pinned run of the backend it picks, once warm: their GPU-only times and their calls in
    a loop, and what each loop call holds beyond its GPU-only time; nothing said of why the two differ, which the set
    does not record (0.04954 against 0.09119 ms a loop call, 0.0107 ms GPU-only each)."""
    loop = f"in a Python loop {fmt.ms(mine.steady_ms)} against {fmt.ms(twin.steady_ms)} ms a call"
    if mine.gpu_median_ms is None or twin.gpu_median_ms is None:
        return loop
    return (f"GPU-only {fmt.ms(mine.gpu_median_ms)} against {fmt.ms(twin.gpu_median_ms)} ms a call, {loop}; beyond its "
            f"GPU-only time the loop's call holds {fmt.ms(mine.steady_ms - mine.gpu_median_ms)} against "
            f"{fmt.ms(twin.steady_ms - twin.gpu_median_ms)} ms for {twin_label} (the host's dispatch and launch; this "
            "set does not record where the difference goes)")


BACKEND_WORDS = {"cudnn": "cuDNN", "flash": "flash", "efficient": "memory-efficient", "math": "math"}


def grows_each_step(pf: PhaseFacts) -> str | None:
    """Decode with a KV cache that grows a token a step makes every step a new length: the run that pays most
    for one (at least COSTLY_FIRST_CALL times its warm call) is one to avoid there, and so is unpinned SDPA where
    the set saw it pick that run's backend (its own first calls were cache hits)."""
    worst, cheap = pf.costliest, pf.first_best
    if pf.phase != "decode" or worst is None or not worst.steady_ms or cheap is None or cheap is worst \
            or worst.first_overhead_ms / worst.steady_ms < COSTLY_FIRST_CALL:
        return None
    picks = [w.variant for w in pf.warm_cache
             if w.before == worst.variant and w.before == PLANS_PER_LENGTH and w.chose == "cudnn"]
    also = f" (and {join_and(label(v) for v in picks)}, which picks it)" if picks else ""
    return (f"For decode with a KV cache that grows each step, avoid {label(worst.variant)}{also}: beyond a warm "
            f"call it paid {cost_spread(worst, 'new length')}; {label(cheap.variant)} a median "
            f"{us(cheap.first_overhead_ms)}.")


def advice(pf: PhaseFacts) -> str | None:
    """What to do where the fastest once warm pays much for a new length."""
    best = pf.steady_best
    grows = grows_each_step(pf)
    if best is None or not pf.break_even:
        return grows
    text = _advice(pf, best)
    return f"{grows} {text}" if grows else text


def _advice(pf: PhaseFacts, best: DynamicFacts) -> str:
    # a run whose cheap first calls are another run's cached plans is no way around the plan build
    cold = [f for f in pf.break_even if not pf.cache_warmed(f.variant)]
    text = (f"Where lengths vary, {label(best.variant)} pays its first call again at every "
            f"{PHASE_LENGTH.get(pf.phase)}: pad or bucket the lengths to a few (each pays its first call once)")
    if not cold:
        return text + "."
    top = cold[0]
    return (text + f", or call a variant whose new lengths cost little. {label(top.variant)} costs less in all "
            f"than {label(best.variant)}, counting each new length's cost, "
            f"{per_length_clause(pf.per_length[top.variant])}.")


def break_even_example(pf: PhaseFacts) -> str | None:
    """One break-even count worked out from one length's numbers: the first variant that breaks even by count,
    at its first such length."""
    best = pf.steady_best
    cold = [f for f in pf.break_even if not pf.cache_warmed(f.variant)]
    if best is None:
        return None
    theirs = {x.kv_len: (x.cost_ms, x.steady_ms) for x in best.per_length}
    for v in cold:
        mine = {x.kv_len: (x.cost_ms, x.steady_ms) for x in v.per_length}
        o = next((o for o in pf.per_length.get(v.variant, ()) if o.kind == UP_TO and o.calls is not None), None)
        if o is None or o.kv_len not in theirs or o.kv_len not in mine:
            continue
        (ob, sb), (ov, sv) = theirs[o.kv_len], mine[o.kv_len]
        return (f"For example, {label(v.variant)} against {label(best.variant)} at {o.kv_len:,} tokens: "
                f"({fmt.ms(ob)} − {fmt.ms(ov)}) / ({fmt.ms(sv)} − {fmt.ms(sb)}) = {o.calls:,.1f}: up to "
                f"{calls_words(o.calls)}.")
    return None


def mask_note(pf: PhaseFacts) -> str | None:
    """FlexAttention's block mask, built at every new length: its share of what a new length costs."""
    got = [f for f in pf.measured if f.mask_median_ms is not None]
    if not got:
        return None
    parts = [f"{label(f.variant)} {fmt.ms(f.mask_median_ms)} ms of {fmt.ms(f.first_overhead_ms)}" for f in got
             if f.first_overhead_ms is not None]
    return (f"Each new length's cost includes the block mask built for it (create_block_mask, eager): "
            f"{join_and(parts)} ms. A server that builds one at every new length pays it; building one mask at "
            "the longest length, or compiling create_block_mask, was not measured here.") if parts else None


def host_note(pf: PhaseFacts) -> str | None:
    """Where the loop waited on the host (PhaseFacts.loop_waits_on_host), the loop's ranking is the host's dispatch:
    say so, and which kernel is fastest by GPU-only time."""
    got = [f for f in pf.measured if f.gpu_median_ms and f.steady_ms]
    if len(got) < 2:
        return None
    ratios = [f.steady_ms / f.gpu_median_ms for f in got]
    order = sorted(got, key=lambda f: (f.gpu_median_ms, f.variant))
    fastest = order[0]
    rest = [f"{label(f.variant)} {f.gpu_median_ms / fastest.gpu_median_ms:.1f}×" for f in order[1:]]
    by_gpu = (f"By GPU-only time (a replayed CUDA graph, the median over lengths) {label(fastest.variant)} is the "
              f"fastest: {fmt.ms(fastest.gpu_median_ms)} ms a call; against it {join_and(rest)}.")
    if pf.loop_waits_on_host:
        return (f"Every variant's warm call in the loop took {min(ratios):.1f}–{max(ratios):.1f}× its GPU-only time: "
                f"the loop waited on the host's dispatch, so its order is the host's, not the kernels'. " + by_gpu)
    return by_gpu


def gpu_missing(pf: PhaseFacts) -> str | None:
    """Why the table has no GPU-only column's numbers (a set captured before they were recorded, or no GPU)."""
    if any(f.gpu_median_ms is not None for f in pf.measured):
        return None
    why = next((f.gpu_reason for f in pf.measured if f.gpu_reason), None)
    return ("GPU-only time a length: " + (f"not measured ({why})." if why else
                                           "not recorded (this set was captured before it was).")) \
        if pf.measured else None


def not_measured(runs: list[DynamicFacts]) -> list[str]:
    """The runs that measured nothing, grouped by status and reason: one line each, naming its variants."""
    groups: dict[tuple, list[str]] = {}
    for f in runs:
        groups.setdefault((f.status, f.reason), []).append(label(f.variant))
    return [f"{', '.join(names)}: {status}" + (f" ({reason})" if reason else "")
            for (status, reason), names in groups.items()]


def switch_present(present: bool | None) -> str:
    return {True: "named in this PyTorch's libraries", False: "not named in this PyTorch's libraries",
            None: "could not tell whether this PyTorch reads it"}[present]


def switch_sentence(s: SwitchFacts) -> str:
    """What the switch did, in the set's numbers, each number once (the
    medians twice in a row, two colons chained, a bare "(1.09×)"): "X=1 is named in this PyTorch's libraries. With it
    set, SDPA cuDNN's first call was slower at every length, ... Its steady call took 0.1237 ms with it and 0.1241 ms
    without." """
    head = f"{s.name}={s.value} is {switch_present(s.present)}."
    if s.ratio is None:
        return head + (f" Its effect: {s.effect}." if s.effect else " Its effect was not measured.")
    measured = switch_measured(s)
    text = (f"{head} With it set, {measured}." if measured else
            f"{head} With it set, {label(s.variant)}'s median first call at the lengths after the first was "
            f"{fmt.ms(s.median_with_ms)} ms against {fmt.ms(s.median_without_ms)} ms without it; the capture judged: "
            f"{s.effect or 'not judged'}.")
    steady = steady_change(s.steady_with_ms, s.steady_without_ms)
    if steady:
        return text + steady
    if s.steady_with_ms is not None and s.steady_without_ms is not None:
        text += (f" Its steady call took {fmt.ms(s.steady_with_ms)} ms with it and {fmt.ms(s.steady_without_ms)} ms "
                 "without.")
    return text


def switch_measured(s: SwitchFacts) -> str | None:
    """What the switch did to the first calls, length by length, as measured, a clause to follow "With it set, "
    ("no effect", with "a first call at a new length varies by tens of percent", where
    it was slower at every length and the lengths without it spanned 7%): "SDPA cuDNN's first call was slower at
    every length, 1.05–1.66× its time without it (median over the lengths after the first 40.16 ms against 36.89
    ms), one run each, so the switch brought no gain; whether it costs anything is not established"; None where no
    length ran both ways."""
    rs = s.length_ratios
    if not rs or s.ratio is None:
        return None
    return _lengths_measured(s, rs) + unprobed(s)


# A phase's lengths as the switch's sentence counts them, and what no run with it set covered there
SWITCH_LENGTHS = {"prefill": "prompt length", "decode": "KV length of a decode step"}
SWITCH_UNPROBED = {"decode": "no decode step ran with it, so what it does to a cache that grows a token a step is "
                             "not measured"}


def unprobed(s: SwitchFacts) -> str:
    """After the switch's first calls, a sentence on the phases it was not run in (SwitchFacts.unprobed): ". No decode
    step ran with it, so what it does to a cache that grows a token a step is not measured"; "" where it covered
    every phase measured."""
    said = [SWITCH_UNPROBED.get(ph, f"no {ph} run had it set, so its effect there is not measured")
            for ph in s.unprobed]
    return "".join(f". {x[0].upper()}{x[1:]}" for x in said)


def _lengths_measured(s: SwitchFacts, rs: list[float]) -> str:
    """switch_measured's clause on the lengths it ran at, each named by its phase ("every prompt length")."""
    slower = sum(r > 1 for r in rs)
    span = f"{min(rs):.2f}–{max(rs):.2f}× its time without it" if len(rs) > 1 else f"{rs[0]:.2f}× its time without it"
    medians = (f"median over the lengths after the first {fmt.ms(s.median_with_ms)} ms against "
               f"{fmt.ms(s.median_without_ms)} ms")
    who = f"{label(s.variant)}'s first call"
    unit = SWITCH_LENGTHS.get(s.phase, "length")
    if slower == len(rs):
        return (f"{who} was slower at every {unit}, {span} ({medians}), one run each, so the switch brought no "
                "gain; whether it costs anything is not established")
    if slower == 0:
        return (f"{who} was faster at every {unit}, {span} ({medians}), one run each, so how much of that is the "
                "switch is not established")
    return (f"{who} was faster at {len(rs) - slower} of {len(rs)} {unit}s and slower at {slower}, {span} "
            f"({medians}), one run each, so no change is established")


# A steady call this far from the run without the switch is a change worth saying (the first calls' judgement
# does not cover it)
STEADY_CHANGE = 0.10


SWITCH_SET_HOW = ("The switch was set in the environment of a fresh subprocess before it started, the run without "
                  "it in the capture's own process after other variants")


def steady_change(with_ms: float | None, without_ms: float | None) -> str:
    """What the switch's run did to the steady call, which the capture's judgement (of first calls) leaves out,
    and how the variable was set."""
    if with_ms is None or not without_ms or abs(with_ms / without_ms - 1) < STEADY_CHANGE:
        return ""
    r = without_ms / with_ms
    way = f"{r:.2f}× faster" if r > 1 else f"{1 / r:.2f}× slower"
    return (f" Beyond its first calls, with the switch set the steady call ran {way} "
            f"({fmt.ms(with_ms)} against {fmt.ms(without_ms)} ms). "
            f"{SWITCH_SET_HOW}, so the two runs differ in process as well as in the switch.")


def fwd_bwd_cell(r: dict) -> str:
    """A variant's forward / backward for a table's cell, or why there is none."""
    if r["status"] != "ok":
        return fmt.DASH
    if r["recorded"]:
        return f"{fmt.ms(r['fwd_ms'])} / {fmt.ms(r['bwd_ms'])}"
    return f"not recorded ({r['reason']})" if r["reason"] else NOT_RECORDED


def fwd_bwd_note(rows: list[dict]) -> str | None:
    """Under the split's table: which part is most of a step, over the rows that recorded both."""
    got = [r for r in rows if r["recorded"] and r["bwd_share"] is not None]
    if not got:
        return None
    lo = min(got, key=lambda r: r["bwd_share"])
    hi = max(got, key=lambda r: r["bwd_share"])
    fastest_bwd = min(got, key=lambda r: r["bwd_ms"])
    return (f"The backward is {lo['bwd_share']:.0%} ({label(lo['variant'])}) to {hi['bwd_share']:.0%} "
            f"({label(hi['variant'])}) of forward plus backward; the fastest backward is "
            f"{label(fastest_bwd['variant'])}'s ({fmt.ms(fastest_bwd['bwd_ms'])} ms). "
            + " ".join(dict.fromkeys(SPLIT_METHOD.get(r["method"], f"Timed by {r['method']}.") for r in got))
            + " Forward plus backward need not equal the step's GPU-only time, which is timed whole (graph replays).")
