"""What a scenario page shows first, in words (review 2026-12-07-1 finding 1): the cells of the table of the verdict's
point (gen.analysis.verdict_point), the titles of the folds that hold the full argument, and the note under the
dynamic-lengths page's chart of what a new length costs.

Every number comes from the facts passed in; the rules' words are gen.report.words.orders' (the home map's).
"""

from __future__ import annotations

from gen.analysis import rules
from gen.report.words import orders as orders_words
from gen.report.words.common import join_and, label, times_beside, us
from gen.report.words.methodology import TIMING
from gen.report.words.tables import NOT_RECORDED, watts

MODE_WORD = {"inference": "forward", "train": "training step"}  # a series of the chart, a mode in a cell

COLUMNS = dict(at="At the verdict's point", call="Call", time="Time as run", conditions="SM clock · power",
               next="Next call", gain="Gain over it", holds="Holds")


def short_point(p, batch: bool = True) -> str:
    """A point in a few words for a table cell: "16 queries × 8,192 keys, head dim 128", with its batch where over 1
    ("batch 8, 1 query × 4,096 keys, head dim 128") unless `batch` is false."""
    if p is None:
        return ""
    text = f"{p.kv_len:,} tokens" if p.q_len == p.kv_len else \
        f"{p.q_len:,} quer{'y' if p.q_len == 1 else 'ies'} × {p.kv_len:,} keys"
    text += (f", window {p.window:,}" if p.window else "") + f", head dim {p.head_dim}"
    return (f"batch {p.batch}, " if batch and p.batch > 1 else "") + text


def at_cell(f) -> str:
    """"forward · 16 queries × 8,192 keys, head dim 128"."""
    return f"{MODE_WORD.get(f.mode, f.mode)} · {short_point(f.point)}"


def call_cell(f) -> str:
    """The first rank: the verdict's call, with its ties on the same kernels and the calls within noise of it."""
    if f.same_kernel and not f.near:
        return f"{join_and(label(x) for x in f.first_rank)}: the same kernels, one rank"
    if f.near:
        return f"{join_and(label(x) for x in f.first_rank)}: within noise, one rank"
    return label(f.fastest)


def time_cell(f) -> str:
    """The verdict's call's median, by the time it ranks by: "59.3 µs", "0.7373 ms (kernel sum)"."""
    note = " (kernel sum)" if f.basis == "gpu_only" and f.method == "kernel_sum" else \
        "" if f.basis == "gpu_only" else f" ({TIMING[f.basis]})"
    return us(f.median_ms) + note


def conditions_cell(f, env=None) -> str:
    """The SM clock and board power of the verdict's call's window: "1980 MHz · 512 W instant, 480 W averaged"."""
    if f.sm_clock_mhz is None:
        return NOT_RECORDED
    power = watts(f.power_w, env, f.power_window_s, f.power_avg_w)
    return f"{f.sm_clock_mhz:.0f} MHz" + (f" · {power}" if power else "")


def next_cell(f) -> str:
    """The runner-up, its median and its window's clock: "FlashAttention-4 (flash_attn.cute), 85.6 µs at 1980 MHz"."""
    if f.runner_up is None:
        return "–"
    at = f" at {f.runner_mhz:.0f} MHz" if f.runner_mhz is not None else ""
    return f"{label(f.runner_up)}, {us(f.runner_ms)}{at}" if f.runner_ms is not None else label(f.runner_up)


def gain_cell(f) -> str:
    """The runner-up's time over the verdict's call's, by the measure the rule decides by (the home map's): "1.44× as
    run"."""
    if f.gain is None:
        return "–"
    # more digits where two would round it onto the line the first screen asks before naming a call (1.195×, never
    # 1.20×: review 2026-12-07-1 item 7)
    by = orders_words.MEASURE.get(f.gain_by, f.gain_by or "")
    return f"{times_beside(f.gain, rules.ADVICE_MIN_GAIN)} {by}".strip()


def holds_cell(f) -> str:
    """Whether the lead over the next call holds, by the rule (leads.Orders.decided): "yes: the intervals apart, in
    both round orientations, past identical kernels' noise"; "yes, by kernel sum (...)"; or the home map's "no: ..."
    with the rule's reason (orders.map_state)."""
    o = f.orders
    if f.settled and o is not None:
        if o.sums_decide:
            why = "timed apart" if o.timed_apart else "as run within identical kernels' noise"
            return f"yes, by kernel sum ({why})"
        if o.timed_apart:
            return f"yes: timed apart, but past {rules.TIMED_APART_REACH:g}× as run"
        parts = ["the intervals apart"] + (["in both round orientations"] if o.oriented else []) + \
            (["past identical kernels' noise"] if o.noise is not None else [])
        return "yes: " + ", ".join(parts)
    return orders_words.map_state(f.settled, o, f.why_not, *f.spreads, label=label)


def x_title(basis: str) -> str:
    """The chart's axis: "GPU-only time at the verdict's point (ms, log)"."""
    return f"{TIMING.get(basis, basis)} time at the verdict's point (ms, log)"


FULL_VERDICT = "The verdict at this point in full"  # the fold of the verdict's own headline
LARGEST_POINT = "At the scenario's largest point, in full"  # the fold of the headline paragraph
COUNTING = "How the rates are counted"  # the fold of the conventions paragraph
CONDITIONS = "What the conditions and the speed of light are"  # the fold of their notes


def chart_label(title: str) -> str:
    return f"each ranked call's time at the verdict's point, {title}"


# The dynamic-lengths page's chart of what each new length cost (gen.analysis.dynamic.new_length_rows)
NEW_LENGTH_AXIS = "cost of a new length beyond a warm call (ms, log)"


def new_length_note(dropped: int, warmed: list[str]) -> str:
    """Under the chart of what each new length cost: which lengths it draws, and what it leaves out (a cost of zero
    has no place on a log axis; a run whose first calls hit another run's cached plans measured no cost)."""
    text = ("Each mark is one length past the run's warm-up and its first length, what the first call there cost "
            "beyond the second (the table's column of each new length is their median)")
    if dropped:
        text += (f"; {dropped} length{'s' if dropped > 1 else ''} whose first call cost no more than the second "
                 f"{'have' if dropped > 1 else 'has'} no mark on the log axis")
    if warmed:
        one = len(warmed) == 1
        text += (f"; {join_and(warmed)} {'is' if one else 'are'} left out: {'its' if one else 'their'} first calls "
                 "hit another run's cached plans")
    return text + "."
