"""What a scenario page shows first, in words: the cells of the
table of the verdict's point (gen.analysis.verdict_point), the lines under it (why What to call names another call,
what a Python loop should call), the line on the scenario's largest point, the titles of the folds that hold the full
argument, and the note under the dynamic-lengths page's chart of what a new length costs.

Every number comes from the facts passed in; the rules' words are gen.report.words.orders' (the home map's).
"""

from __future__ import annotations

from gen.analysis import leads, rules
from gen.analysis.verdict_point import DETERMINISTIC
from gen.model import schema
from gen.model.records import PowerReading
from gen.report import format as fmt
from gen.report.words import orders as orders_words
from gen.report.words import round_by_round, shared_rounds, sum_clocks
from gen.report.words.common import intervals, join_and, label, short_label, tie_by_medians, times, times_beside, us
from gen.report.words.host import in_loop
from gen.report.words.methodology import TIMING
from gen.report.words.sentences import cap, inline
from gen.report.words.tables import NOT_RECORDED, held_for_power, watts

MODE_WORD = {"inference": "forward", "train": "training step"}  # a series of the chart, a mode in a cell

COLUMNS = dict(at="At the verdict's point", call="Call", time="Time as run", conditions="SM clock · power",
               next="Next call", gain="Gain over it", holds="Holds")
NAMED = "What to call"  # the decision's title, on the home and on each set's page: the call it names is marked


def short_point(p, batch: bool = True) -> str:
    """A point in a few words for a table cell: "16 queries × 8,192 keys, head dim 128", with its batch where over 1
    ("batch 8, 1 query × 4,096 keys, head dim 128") unless `batch` is false."""
    if p is None:
        return ""
    text = f"{p.kv_len:,} tokens" if p.q_len == p.kv_len else \
        f"{p.q_len:,} quer{'y' if p.q_len == 1 else 'ies'} × {p.kv_len:,} keys"
    text += (f", window {p.window:,}" if p.window else "") + f", head dim {p.head_dim}"
    return (f"batch {p.batch}, " if batch and p.batch > 1 else "") + text


SCOPE_WORD = {DETERMINISTIC: "deterministic calls only"}


def at_cell(f) -> str:
    """"forward · 16 queries × 8,192 keys, head dim 128"; a verdict over the deterministic calls alone says so."""
    scope = f" · {SCOPE_WORD[f.scope]}" if f.scope in SCOPE_WORD else ""
    return f"{MODE_WORD.get(f.mode, f.mode)} · {short_point(f.point)}{scope}"


def _name(f, x: str) -> str:
    """A call's label, marked "not deterministic" in a row beside the deterministic calls' own (the page opened with FA4
    and SDPA cuDNN, neither deterministic, and did not say so)."""
    return label(x) + (", not deterministic" if x in f.plain else "")


def rank_reason(f, x: str) -> str:
    """Why call `x` shares the verdict's first rank, by the rule (never "within noise" of
    a pair timed apart, whose intervals do not overlap): "the same kernels", "within noise" (the as-run intervals
    overlap), or "not decided (timed apart)" with the rule's reason."""
    if x in f.same_kernel:
        return "the same kernels"
    o = next((o for o in f.near_orders if o.second == x), None)
    if x in f.flipped and (o is None or o.decided):
        return "not decided (another scenario timed the two the other way round)"
    if o is None or not o.apart:
        return "within noise"
    return f"not decided ({orders_words.undecided_why(o)})"


def call_cell(f) -> str:
    """The first rank: the verdict's call, with its ties on the same kernels and the calls sharing its rank, each with
    its reason (rank_reason)."""
    if not f.same_kernel and not f.near:
        return _name(f, f.fastest)
    # the call the row leads with first (verdict_point.PointFacts.lead: the named call where it shares the rank)
    names = join_and(_name(f, x) for x in dict.fromkeys((f.lead, *f.first_rank)))
    reasons: dict[str, list[str]] = {}
    for x in f.first_rank[1:]:
        reasons.setdefault(rank_reason(f, x), []).append(x)
    if len(reasons) == 1:
        return f"{names}: {next(iter(reasons))}, one rank"
    return f"{names}: one rank ({'; '.join(f'{join_and(label(x) for x in xs)}: {r}' for r, xs in reasons.items())})"


def named_cell(f) -> str:
    """The call What to call names for this workload, under the Call cell: "What to call
    names it"; where it names another call, which, the line under the table saying why; "" where it names none."""
    if f.named is None:
        return ""
    if (f.named == f.fastest and not f.same_kernel and not f.near) or f.named_at is not None:
        return f"{NAMED} names it" + (" (why: under the table)" if f.named_at is not None else "")
    if not f.named_apart:
        return f"{NAMED} names {label(f.named)}"
    return f"{NAMED} names {_name(f, f.named)} (why: under the table)"


def time_cell(f) -> str:
    """The median of the call the row leads with (PointFacts.lead), by the time it ranks by: "59.3 µs", "0.7373 ms
    (kernel sum)"."""
    n = f.named_at
    method, ms = (n.method, n.median_ms) if n is not None else (f.method, f.median_ms)
    note = " (kernel sum)" if f.basis == "gpu_only" and method == "kernel_sum" else \
        "" if f.basis == "gpu_only" else f" ({TIMING[f.basis]})"
    return us(ms) + note + tie_note(f)


def tie_note(f) -> str:
    """Where What to call names the fastest's tie on the same kernels (PointFacts.named_tie), whose time the row gives
    and the named call's own beside it: " (SDPA cuDNN's; SDPA's own 59.2 µs)"; ""
    elsewhere or where the two read alike."""
    t = f.named_tie
    if t is None or us(t.median_ms) == us(f.median_ms):
        return ""
    first, named = sum_clocks.possessive(short_label(f.fastest)), sum_clocks.possessive(short_label(f.named))
    return f" ({first}; {named} own {us(t.median_ms)})"


def conditions_cell(f, env=None) -> str:
    """The SM clock and board power of the window of the call the row leads with (PointFacts.lead), with its share
    held for power: "1980 MHz · 687 W instant, at the 700 W limit · held for power 0% of
    samples". NVML's averaged reading is given only for a window of at least rules.NVML_POWER_WINDOW_S: in a shorter
    one it is the seconds before."""
    w = f.named_at if f.named_at is not None else f
    if w.sm_clock_mhz is None:
        return NOT_RECORDED
    lags = rules.power_lags(w.power_window_s, PowerReading.AVERAGE)
    power = watts(w.power_w, env, w.power_window_s, None if lags else w.power_avg_w)
    limit = getattr(env, "power_limit_w", None)
    if power and rules.at_power_limit(w.power_w, limit) and getattr(env, "power_reading", None) == \
            PowerReading.INSTANT:
        power += f", at the {limit:.0f} W limit"
    held = held_for_power(w.power_cap_share, w.sm_clock_mhz, getattr(env, "ref_mhz", None), say_mhz=False)
    t = f.named_tie if f.named_at is None else None  # the named tie's own clock, where it differs
    apart = t is not None and t.sm_clock_mhz and round(t.sm_clock_mhz) != round(w.sm_clock_mhz)
    mhz = f"{w.sm_clock_mhz:.0f} MHz" + (
        f" ({sum_clocks.possessive(short_label(f.fastest))}; {sum_clocks.possessive(short_label(f.named))} "
        f"{t.sm_clock_mhz:.0f} MHz)" if apart else "")
    return " · ".join([mhz, *([power] if power else []), *([held] if held else [])])


def next_cell(f) -> str:
    """The runner-up, its median and its window's clock: "FlashAttention-4 (flash_attn.cute), 85.6 µs at 1980 MHz";
    where the row leads with the named call (PointFacts.named_at), the fastest, which shares its rank: "FlexAttention
    (compiled), sharing the rank: 1.140 ms at 1844 MHz"."""
    if f.named_at is not None:
        at = f" at {f.sm_clock_mhz:.0f} MHz" if f.sm_clock_mhz is not None else ""
        return f"{_name(f, f.fastest)}, sharing the rank: {us(f.median_ms)}{at}"
    if f.runner_up is None:
        return "–"
    at = f" at {f.runner_mhz:.0f} MHz" if f.runner_mhz is not None else ""
    if f.runner_up in _sums(f):  # its replay set aside: the time is a kernel sum, never "as run"
        at = f", a kernel sum (its replay set aside){at}"
    return f"{_name(f, f.runner_up)}, {us(f.runner_ms)}{at}" if f.runner_ms is not None else _name(f, f.runner_up)


def _sums(f) -> set[str]:
    """The fastest and the runner-up, where its GPU-only time is a kernel sum standing in for a set-aside replay."""
    return {c.variant for c in f.calls if c.variant in (f.fastest, f.runner_up)
            and c.method == schema.GpuOnlyMethod.KERNEL_SUM}


def sums_at(o, first_leads: bool = True) -> str:
    """Two kernel sums with their windows' clocks, the leader's first: "57.7 against 71.0 µs, both at 1980 MHz";
    "5.038 ms at 1755 MHz against 6.022 ms at 1965 MHz"."""
    ms, mhz = (o.first_ks_ms, o.second_ks_ms), (o.first_ks_mhz, o.second_ks_mhz)
    if not first_leads:
        ms, mhz = ms[::-1], mhz[::-1]
    if None in mhz:
        return f"{us(ms[0])} against {us(ms[1])}"
    if f"{mhz[0]:.0f}" == f"{mhz[1]:.0f}":
        return f"{us(ms[0])} against {us(ms[1])}, both at {mhz[0]:.0f} MHz"
    return f"{us(ms[0])} at {mhz[0]:.0f} MHz against {us(ms[1])} at {mhz[1]:.0f} MHz"


def gain_cell(f) -> str:
    """The runner-up's time over the verdict's call's, by the measure the rule decides by (the home map's): "1.44× as
    run"; by kernel sum, the two sums and their clocks that it divides, and the as-run ratio of the row's own times
    beside it: "1.23× by kernel sum (57.7 against 71.0 µs, both at 1980 MHz); 1.18× as
    run"."""
    if f.named_at is not None:
        return _shared_gain(f)
    if f.gain is None:
        return "–"
    # more digits where two would round it onto the line the first screen asks before naming a call (1.195×, never
    # 1.20×)
    by = orders_words.MEASURE.get(f.gain_by, f.gain_by or "")
    if f.gain_by == leads.AS_RUN and (ks := _sums(f)):  # a kernel sum is never "as run"
        by = "(both kernel sums)" if len(ks) == 2 else "(one side a kernel sum)"
    text = f"{times_beside(f.gain, rules.ADVICE_MIN_GAIN)} {by}".strip() + _tie_gain(f)
    o = f.orders
    apart = ""
    if f.gain_by == leads.BY_KERNEL_SUM and o is not None and o.first_ks_ms and o.second_ks_ms:
        higher = sum_clocks.higher_clock(o, label, named=False)  # what is left past a clock gap
        text += f" ({sums_at(o, f.gain >= 1)}" + (f": {higher})" if higher else ")")
        as_run = f.as_run if f.as_run is not None else o.as_run  # the ratio of the times the table shows
        if as_run is not None:
            text += f"; {times(as_run)} as run"
            # two calls timed apart: the as-run ratio is no gap, only the table's two times divided
            apart = ", timed apart, which decides nothing" if o.timed_apart else ""
    if f.loop_ms is not None and f.runner_up is not None:  # host-bound: a loop's gain is not the GPU's
        return text + f" on the GPU{apart}; {_loop_gain(f)}"
    return text + apart


def _tie_gain(f) -> str:
    """Where the row gives the fastest's time for the tie What to call names (tie_note), the named call's own gain
    over the runner-up beside the fastest's, as the time cell gives its own median: " (SDPA cuDNN's; SDPA's own
    1.54×)"; "" elsewhere, where the two read alike, or where the gain is by kernel sum (no own sum is held)."""
    t = f.named_tie
    if t is None or f.gain_by != leads.AS_RUN or f.runner_ms is None or not t.median_ms:
        return ""
    own = f.runner_ms / t.median_ms
    if times(own) == times(f.gain):
        return ""
    first, named = sum_clocks.possessive(short_label(f.fastest)), sum_clocks.possessive(short_label(f.named))
    return f" ({first}; {named} own {times(own)})"


def _loop_gain(f) -> str:
    """The row's eager-loop gain: the fastest's over the runner-up (host.in_loop) where no third call is faster in the
    loop than both; else that call's lead over the row's call, as the line under the table names it ("1.46× in an eager
    loop" over FlexAttention stood where SDPA is 3.49× faster than FlashAttention-4 in a loop):
    "in an eager loop SDPA (backend not pinned) is 3.49× faster than FlashAttention-4"."""
    mine, theirs = f.loop_ms
    lp = f.loop
    if lp is not None and lp.fastest not in (f.fastest, f.runner_up) and lp.fastest_ms < min(mine, theirs):
        return (f"in an eager loop {label(lp.fastest)} is {times(mine / lp.fastest_ms)} faster than "
                f"{short_label(f.fastest)}")
    return in_loop(f.loop_ms, label(f.runner_up))


def _shared_gain(f) -> str:
    """Where the row leads with the named call: the fastest's lead over it, short, by the measure the pages give the
    pair (Orders.answer) and as run; the kernel sums and their clocks once, under the table (named_note): "FlexAttention
    (compiled) faster: 1.11× by kernel sum, 1.13× as run"."""
    o, n = f.named_orders, f.named_at
    parts = []  # (who leads, by how much, by which measure)
    r, by = o.answer
    if by == leads.BY_KERNEL_SUM and r is not None:
        parts.append((f.fastest if r >= 1 else f.named,
                      orders_words.least(o) + times_beside(max(r, 1 / r), rules.ADVICE_MIN_GAIN),
                      orders_words.MEASURE[by]))
    parts.append((f.fastest, times(n.median_ms / f.median_ms), orders_words.MEASURE[leads.AS_RUN]))
    if len({who for who, *_ in parts}) == 1:
        return f"{_name(f, f.fastest)} faster: " + ", ".join(f"{x} {m}" for _, x, m in parts)
    return "; ".join(f"{_name(f, who)} {x} faster {m}" for who, x, m in parts)


def _sums_reason(o) -> str:
    """Why the kernel sums decide a pair (leads.Orders.sums_decide), from its orders: timed
    apart; the whole as-run ratio within identical kernels' noise; or only its weaker round orientation within the
    line for one orientation."""
    if o.timed_apart:
        return "timed apart"
    n = o.noise
    if n is None or o.as_run is None or not rules.beyond_pair_noise(o.as_run, (None, None), n.ratio):
        line = f", {times(n.ratio, 3)}" if n is not None else ""
        return f"as run {times(o.as_run)}, within identical kernels' noise{line}"
    weak = min((r, w) for r, w in ((o.forward, "forward"), (o.reverse, "reversed")) if r is not None)
    line = n.oriented if n.oriented is not None else n.ratio
    return (f"as run {times(o.as_run)}, past identical kernels' noise; its {weak[1]} rounds' {times(weak[0])} within "
            f"that noise in one orientation, {times(line, 3)}")


def holds_cell(f) -> str:
    """Whether the lead over the next call holds, by the rule (leads.Orders.decided): "yes: the intervals apart, in
    both round orientations, past identical kernels' noise"; "yes, by kernel sum (why: _sums_reason)"; or the home
    map's "no: ..." with the rule's reason (orders.map_state). Where the table's times are the profiled runs' and the
    order is read off the sweep's shared rounds (PointFacts.rounds_ms), the shared rounds' medians are cited, labelled,
    as the record the rule read: "yes, in the sweep's shared rounds at this point (58.7 µs
    against 69.4 µs, 1.18×): the intervals apart, ...". Where the row leads with the named call (PointFacts.named_at):
    "no: the 96.88% intervals overlap", with the fastest's own swing between round orientations where past its lead."""
    if f.named_at is not None:
        reason = rank_reason(f, f.named)
        if reason != "within noise":
            return f"no: {reason}"
        swing = sum_clocks.swing_note(f.named_orders, label)  # a swing past the lead: why the intervals overlap
        return f"no: the {intervals(f.spreads[0], f.named_at.spread)} overlap" + (f"; {swing}" if swing else "")
    o = f.orders
    where = rounds_cited(f)
    if f.settled and o is not None:
        if o.sums_decide:
            return f"yes, by kernel sum ({_sums_reason(o)})"
        if o.decided_by_rounds and o.paired is not None:
            return (f"yes, round by round{where}: {round_by_round.paired_joint(o)}"
                    + ("" if o.apart else " (the medians' intervals overlap)"))
        if o.timed_apart:
            return f"yes: timed apart, but past {rules.TIMED_APART_REACH:g}× as run"
        parts = ["the intervals apart"] + (["in both round orientations"] if o.oriented else []) + \
            (["past identical kernels' noise"] if o.noise is not None else [])
        return (f"yes, {where.lstrip(' ,')}: " if where else "yes: ") + ", ".join(parts)
    # a lead by kernel sum is given in full in the Gain cell: said here once more, its clause carries no numbers
    by_sums = f.gain_by == leads.BY_KERNEL_SUM and o is not None and (behind := orders_words.kernels_behind(o))
    state = orders_words.map_state(f.settled, o, f.why_not, *f.spreads, label=None if by_sums else label)
    if by_sums and f.why_not == leads.OVERLAP:
        state += f"; {label(behind)} {orders_words.BEHIND_BY_KERNELS}, as Gain over it gives"
    return state + (f"; read{where}" if where else "")


def rounds_cited(f) -> str:
    """Where the order is read off the sweep's shared rounds and the table's times are the profiled runs' (PointFacts.
    rounds_ms): " in the sweep's shared rounds at this point (58.7 µs against 69.4 µs, 1.18×)"; "" elsewhere."""
    if f.rounds_ms is None:
        return ""
    a, b = f.rounds_ms
    return f" {shared_rounds.SHARED} ({us(a)} against {us(b)}, {times(b / a)})"


def named_note(f) -> str | None:
    """Under the table where What to call names another call than the verdict's fastest:
    which, and why by the rule: it shares the first rank (with the orders of the pair), or the fastest leads it by
    less than rules.ADVICE_MIN_GAIN, the gain What to call asks before naming another call than its own."""
    if not f.named_apart or f.named_orders is None:
        return None
    o, n, first = f.named_orders, _name(f, f.named), _name(f, f.fastest)
    head = f"{NAMED} names {n} here, not {first}"
    if f.named_rank != 1:
        r, by = o.deciding
        return (f"{head}: {first} leads it {times_beside(r, rules.ADVICE_MIN_GAIN)} "
                f"{orders_words.MEASURE.get(by, by)}, under the {rules.ADVICE_MIN_GAIN:g}× {NAMED} asks before "
                "naming another call than its default.")
    err = orders_words.errors(f.named_rows, label)
    if o.kernels_leader == o.first and o.kernel_sum is not None and f.named_at is not None:
        said = [head, *_faster_unranked(f, o)]
    else:
        said = [f"{head}: the two share the first rank, {rank_reason(f, f.named)}: "
                + inline(orders_words.brief_clauses(o, label, noise=o.apart)), *_why_named(f, n, first)]
    return " ".join(_sentence(x) for x in [*said, *([err] if err else [])])


def _why_named(f, n: str, first: str) -> list[str]:
    """Why What to call names its call over a fastest it ties with (a tie alone gave no reason): the
    rule it used, that it keeps its default where the default shares the first rank, and where an eager loop on this
    host puts the named call ahead, by how much."""
    out = []
    if f.named_default:
        out.append(f"{NAMED} keeps its default, {n}, wherever it shares the first rank: it names another call only at "
                   f"a lead of {rules.ADVICE_MIN_GAIN:g}× or more")
    if f.loop_ms is not None and f.runner_up == f.named and f.loop_ms[0] > f.loop_ms[1]:
        out.append(f"In an eager loop on this host {n} is also {times(f.loop_ms[0] / f.loop_ms[1])} faster, "
                   f"{us(f.loop_ms[1])} against {first}'s {us(f.loop_ms[0])} a call")
    return out


def _faster_unranked(f, o) -> list[str]:
    """Where the fastest leads the named call by kernel sum and in both round orientations but no rank is decided
    ("ahead as run in both round orientations" stood beside "a lead the as-run times cannot
    show"): its leads, the kernel sums with their clocks once on the page's table and notes, then why no rank is
    decided (the intervals overlap; its own rounds' swing where past its lead) and the bar What to call asks."""
    first, as_run = _name(f, f.fastest), f.named_at.median_ms / f.median_ms
    # the bracket names the call short: a label carries brackets of its own
    clock = sum_clocks.lower_clock(o) or sum_clocks.higher_clock(o, short_label, named=False)
    gain = orders_words.least(o) + orders_words.sum_gain(o.kernel_sum)
    lead = (f"{first} is {gain} faster by kernel sum ({sums_at(o)}" + (f": {clock})" if clock else ")")
            + f" and {times(as_run)} as run")
    if o.oriented:
        lead += f", ahead in both round orientations ({times(o.forward)} forward, {times(o.reverse)} reversed)"
    overlap = f"the two medians' {intervals(f.spreads[0], f.named_at.spread)} overlap"
    swing = sum_clocks.swing_note(o, label)
    why = f"But {swing}, so {overlap} and no rank is decided" if swing else f"But {overlap}, so no rank is decided"
    # packed documents: the call that needs no mask is named for the build (the note under the table says it), not
    # for a bar the two never faced (the H200's 1.19x mask call is named); nor is the bar held against a kernel-sum
    # ratio that is only the least its lead would be at one clock (Orders.kernel_sum_least): the overlap decides
    under = (f.named_under_bar and not o.kernel_sum_least
             and getattr(f.point, "mask", None) != schema.Mask.DOCUMENT)
    return [lead, why, *([f"{sum_clocks.possessive(first)} lead is under the {rules.ADVICE_MIN_GAIN:g}× {NAMED} "
                          "asks before naming another call"] if under else [])]


def _sentence(x: str) -> str:
    return cap(x) + ("" if x.endswith(".") else ".")


def loop_note(f) -> str | None:
    """Where a Python loop of eager calls answers otherwise, or a call of the first rank waits on the host there
    (verdict_point.Loop): which call the loop should make, with each first-rank call's time
    in the loop and its ratio to its GPU-only time."""
    lp = f.loop
    if lp is None:
        return None
    each = "a training step" if f.mode == "train" else "a call"

    def one(c):
        what = ", ".join(([f"{times(c.eager_ratio, 1)} its GPU-only time"] if c.eager_ratio is not None else [])
                         + (["host-bound"] if c.host_bound else []))
        return f"{label(c.variant)} {us(c.eager_ms)}" + (f" ({what})" if what else "")
    others = [one(c) for c in lp.calls if c.variant != lp.fastest]
    # a faster call whose answer is wrong is named, never called the fastest past it
    wrong = "".join(f" {label(w.variant)} is faster in the loop ({us(w.eager_ms)} {each}) but gives a wrong answer "
                    f"here (relative error {w.rel_error:.1e} against float64), so it is not the call."
                    for w in lp.wrong_faster)
    correct = " correct" if lp.wrong_faster else ""
    if lp.changes_answer:
        return (f"In an eager Python loop (host gaps included), call {label(lp.fastest)}: {us(lp.fastest_ms)} {each}, "
                f"against {join_and(others)}; the times above are of the GPU alone (a CUDA graph).{wrong}")
    mine = next((c for c in lp.calls if c.variant == lp.fastest), None)
    if f.loop_ms is not None and f.runner_up is not None and lp.fastest == f.fastest and not any(
            c.variant == f.runner_up for c in lp.calls):  # the next call's loop time, the loop's gain
        gpu = f", not the {times(f.gain)} of the GPU alone" if f.gain is not None else ""
        others.append(f"{label(f.runner_up)} {us(f.loop_ms[1])}: a {times(f.loop_ms[1] / f.loop_ms[0])} lead in the "
                      f"loop{gpu}")
    return (f"In an eager Python loop (host gaps included), {label(lp.fastest)} is still the fastest{correct} call: "
            f"{one(mine) if mine else us(lp.fastest_ms)} {each}"
            + (f", against {join_and(others)}" if others else "") + "." + wrong)


def x_title(basis: str) -> str:
    """The chart's axis: "GPU-only time at the verdict's point (ms, log)"."""
    return f"{TIMING.get(basis, basis)} time at the verdict's point (ms, log)"


# The chart's marks by how a GPU-only time was taken: a kernel sum is another measure
MEASURE_WORD = {"cuda_graph": "CUDA-graph replay", "kernel_sum": "kernel sum of profiled calls"}
HOLLOW_NOTE = "hollow: a kernel sum, not a graph replay"


def rounds_note(f) -> list[str]:
    """Under the chart where the lead over the next call is decided by the shared rounds (the whiskers, the medians'
    intervals, overlap beside "yes"): what decided it, in two short lines; [] elsewhere."""
    o = f.orders
    if not (f.settled and o is not None and o.decided_by_rounds and o.paired is not None):
        return []
    return [f"{_name(f, o.first)} ahead of {_name(f, o.second)}: decided round by round, not by these whiskers",
            round_by_round.paired_joint(o)]
NAMED_MARK = f"ringed: the call {NAMED} names"

FULL_VERDICT = "The verdict at this point in full"  # the fold of the verdict's own headline
LARGEST_POINT = "At the scenario's largest point, in full"  # the fold of the headline paragraph
COUNTING = "How the rates are counted"  # the fold of the conventions paragraph
CONDITIONS = "What the conditions and the speed of light are"  # the fold of their notes


def chart_label(title: str) -> str:
    return f"each ranked call's time at the verdict's point, {title}"


def headline_elsewhere(head_point: str, head_fastest: str, verdict_fastest: tuple[str, ...],
                       near: tuple[str, ...] = (), tie: tuple[str, float, float] | None = None,
                       head_dim: int | None = None, measured: bool = False) -> str:
    """Where the scenario's headline below is at another point than the verdict's: which point it is, and whether
    its fastest differs from the verdict's (the reason the two answers differ: another size); `near`: the calls the
    headline's point cannot set apart from its fastest, every one named; `tie`: (the
    unpinned call, the fastest's median, its median) where the two run the same kernels (gen.analysis.scenarios.
    headline's auto_tie), named as the headline names them, a tie by both medians.
    A leader with calls within noise "leads by its median" wherever it is. The page's table is the
    verdict's point, which What to call answers for; this line never says the two name the same call. `head_dim`: the
    point's, where the scenario ran that length at other head dims too. `measured`: calls
    were not measured in the set, so the order is of those measured."""
    text = "At the scenario's largest point" + (f" at head dim {head_dim}" if head_dim else "") + f" ({head_point})"
    text += OF_MEASURED if measured else ""
    lead = {head_fastest, *(tie[:1] if tie else ())}
    if tie:
        who = f"{label(head_fastest)} and {label(tie[0])} run the same kernels and lead, {tie_by_medians(*tie[1:])}"
    else:
        who = f"{label(head_fastest)} " + ("leads by its median" if near else "is fastest")
    them = "them" if tie else "it"
    others = [x for x in dict.fromkeys(near) if x not in lead]
    noise = (f", and {join_and(label(x) for x in others)} {'is' if len(others) == 1 else 'are'} within noise of "
             f"{them} as run" if others else "")
    if lead & set(verdict_fastest):
        return text + f", {who if tie or near else label(head_fastest) + ' leads'} there too{noise}."
    if any(x in near for x in verdict_fastest):
        return (text + f", {who}{noise} (the paragraph in full below says what else decides "
                f"there); the table above is the verdict's point, which {NAMED} answers for.")
    return (text + f", {who} instead of {join_and(label(x) for x in verdict_fastest)}{noise}: the order changes with "
            f"the size; the table above is the verdict's point, which {NAMED} answers for.")


# Where the set did not measure every call (FA4 absent): an order is of those it measured
OF_MEASURED = ", of those measured"


def replay_above(eager_ms: float | None) -> str:
    """After a time that is a graph replay's median above its eager loop's by more than rules.graph_above_eager allows
    (the scaling tables mark such "‡"): " (‡ a graph replay's median, above its eager loop's
    15.640 ms)"; "" for eager_ms None."""
    return "" if eager_ms is None else f" (‡ a graph replay's median, above its eager loop's {us(eager_ms)})"


def other_head_dim(at: str, fastest: str, same: tuple[str, ...], near: tuple[str, ...], timed=(),
                   measured: bool = False) -> str:
    """The scenario's largest length at another head dim than its own (the article's
    largest point at head dim 64 is not the scenario's where at head dim 128 another call leads): "At head
    dim 128 (S = 16,384), FlexAttention (FLASH backend) leads by its median, and FlashAttention-4 (flash_attn.cute) and
    SDPA cuDNN are within noise of it as run."; `timed`: (call, its GPU-only median ms, its window's SM clock) of
    each call named, given after (the line gave no time or clock), and its eager loop's
    median where that time is a graph replay's above it (replay_above); `measured`: as headline_elsewhere's."""
    at += OF_MEASURED if measured else ""
    ties = f" and {join_and(label(x) for x in same)}, the same kernels," if same else ""
    times_of = ("; " + ", ".join(f"{label(x)} {us(ms)}" + (f" at {mhz:.0f} MHz" if mhz else "") + replay_above(eager)
                                 for x, ms, mhz, eager in timed)) if timed else ""
    if not near:
        return f"At {at}, {label(fastest)}{ties} {'are' if same else 'is'} fastest{times_of}."
    lead = "lead by their medians" if same else "leads by its median"
    return (f"At {at}, {label(fastest)}{ties} {lead}, and {join_and(label(x) for x in near)} "
            f"{'is' if len(near) == 1 else 'are'} within noise of {'them' if same else 'it'} as run{times_of}.")


# The dynamic-lengths page's chart of what each new length cost (gen.analysis.dynamic.new_length_rows)
NEW_LENGTH_AXIS = "cost of a new length beyond a warm call (ms, log)"


def new_length_note(dropped: int, warmed: list[str]) -> str:
    """Under the chart of what each new length cost: which lengths it draws, and what it leaves out (a cost of zero
    has no place on a log axis; a run whose first calls hit another run's cached plans measured no cost). The table's
    column is the median over the same lengths (gen.analysis.dynamic.DynamicFacts.first_overhead_ms), those without a
    mark counted."""
    text = ("Each mark is one length past the run's warm-up and its first length, what the first call there cost "
            "beyond the second; the table's column of each new length is the median over the same lengths")
    if dropped:
        text += (f"; {dropped} length{'s' if dropped > 1 else ''} whose first call cost no more than the second "
                 f"{'have' if dropped > 1 else 'has'} no mark on the log axis (the median counts "
                 f"{'them' if dropped > 1 else 'it'}, and the line breaks there)")
    if warmed:
        one = len(warmed) == 1
        text += (f"; {join_and(warmed)} {'is' if one else 'are'} left out: {'its' if one else 'their'} first calls "
                 "hit another run's cached plans")
    return text + "."


def cost_spread(f, unit: str) -> str:
    """What a run paid for a new length, as a median with its spread ("56.42 ms at every
    decode step" where the steps cost 35 ms to 0.52 s): "a median 56.375 ms a decode step (35.399–521.216 ms over its
    31 lengths after the first; 425.919 ms at the first)"; every figure of the one quantity by `us`, as the home gives
    the median (it read 56.37 ms here and 56.375 ms there; "425.9 ms" stood beside "521.216 ms")."""
    costs = [x.cost_ms for x in f.per_length]
    text = f"a median {us(f.first_overhead_ms)} a {unit}"
    if len(costs) > 1:
        text += (f" ({fmt.span((min(costs), max(costs)))} ms over its {len(costs)} lengths after the "
                 f"{'warm-up' if f.warmup_lengths else 'first'}")
        before = join_and(us(c) for c in f.before_ms)
        text += (f"; {before} at the {'first' if len(f.before_ms) == 1 else f'first {len(f.before_ms)}'})"
                 if f.before_ms else ")")
    return text
