"""A verdict's as-run lines: a gen.analysis.verdicts.Verdict -> what ranks it (`ranked_by`) and each named
time with the SM clock and board power its window ran at, beside its equal-clock time (`equal_clock_line`).
gen.report.words.verdicts puts them among the verdict's lines."""

from __future__ import annotations

from gen.analysis import equal_clock_shown as ecs
from gen.analysis import rules, verdicts
from gen.report.words import ceiling_share
from gen.report.words import orders as orders_words
from gen.report.words import tables as table_words
from gen.report.words.common import label, us
from gen.report.words.methodology import AS_RUN_CLOCK, MEMORY_BOUND_CLOCK, METHOD


def ranked_by(v: verdicts.Verdict) -> str:
    """Which of the two times ranks, and why: the as-run time (what a user gets), with the equal-clock time
    beside it where the set has a reference clock."""
    text = f"Ranked by the as-run {METHOD.get(v.method, v.method)}"
    if v.ref_mhz is not None and getattr(v, "memory_bound", False):
        return text + MEMORY_BOUND_CLOCK
    if v.ref_mhz is None or not (ecs.shown(v) or ecs.flips_shown(v)):
        return text + "."
    return (text + f": what a user gets, {AS_RUN_CLOCK}. Beside it stands the time at equal clock "
            f"({v.ref_mhz:.0f} MHz, the GPU's maximum: the time × its clock / {v.ref_mhz:.0f}), a model that decides "
            "nothing: this set's round times do not follow their window's clock (see the methodology), and an order "
            "of the kernels' efficiency would need locked clocks, which this project does not set.")


def _as_run(t: verdicts.Timed, v: verdicts.Verdict) -> str:
    s = v.spread(t)
    text = f"{label(t.variant)} {us(s.median)}"
    if t.sm_clock_mhz is None:
        return text + " (SM clock not recorded)"
    text += f" at {t.sm_clock_mhz:.0f} MHz"
    # the verdict carries the set's reading and limit; the window's length marks an averaged reading that lags
    power = table_words.watts(t.power_w, v, t.power_window_s, t.power_avg_w)
    if power:
        text += f" and {power}"
    if t.at_ref_ms is not None and t.variant in ecs.shown(v):
        text += f", {us(t.at_ref_ms)} {orders_words.EQUAL_CLOCK_SHORT}"
    elif t.equal_clock and not t.one_clock:  # rules.one_clock: no time at equal clock
        text += f", {ceiling_share.no_single_clock(vars(t), say_mean=False, what=' to scale by')}"
    return text


MAX_FLIPS = 3  # pairs the equal-clock line names; the rest counted


def _held_pair(ta: verdicts.Timed, tb: verdicts.Timed, v: verdicts.Verdict) -> str:
    """The power hold of both windows of a pair whose clocks a line sets side by side (schema 5: NVML's word for
    each sample, with the clock each ran at; a hold at a clock near the maximum said to cost none); before schema 5,
    what the slower-clocked one's power says (_held_for_power)."""
    if ta.power_cap_share is None and tb.power_cap_share is None:
        return _held_for_power(tb, v)
    held = [f"{label(t.variant)} " + (table_words.held_for_power(t.power_cap_share, t.sm_clock_mhz, v.ref_mhz,
                                                                  "its window's samples")
                                      or "held for power: not recorded")
            for t in (tb, ta)]
    return "; " + ", ".join(held)


def _held_for_power(t: verdicts.Timed, v: verdicts.Verdict) -> str:
    """What a window's power says of its clock being held down by the limit, as far as its reading shows it."""
    if t.power_cap_share is not None:  # schema 5: NVML's own word for each sample
        return "; " + table_words.held_for_power(t.power_cap_share, t.sm_clock_mhz, v.ref_mhz, "its window's samples")
    held = t.power_avg_w if t.power_avg_w is not None else t.power_w  # the limit holds the averaged reading
    if not rules.at_power_limit(held, v.power_limit_w):
        return ""
    power = table_words.watts(t.power_w, v, t.power_window_s, t.power_avg_w)
    read = f"; its window's NVML power read {power} against a {v.power_limit_w:.0f} W limit"
    if rules.reads_instant(t.power_w, v.power_limit_w, v.power_reading):
        # instant samples are taken inside the window, so they show this window drew the power; one can exceed
        # the limit in a transient, because the limit holds an average over about a second
        return read + " (instant samples within the window: the limit holds an average over about a second)"
    # the averaged reading lags over about a second, longer than a window: a reading near the limit does not
    # show that this window, rather than the ones before it, drew it
    return read + " (a lagging average: it does not show which window drew the power)" if v.power_reading \
        else read + " (if it is the averaged reading, a lagging average: it does not show which window drew the power)"


def equal_clock_line(v: verdicts.Verdict) -> str | None:
    """Each named time with the SM clock and power it ran at and its equal-clock time; whether the equal-clock
    ranking orders the rows otherwise, and who pays for reaching the power limit."""
    # a window with no single clock (rules.one_clock) has no equal-clock time, but its clock is still said
    unscaled = any(t.equal_clock and not t.one_clock for t in v.rows)
    if v.ref_mhz is None or not (v.equal_clock_order or unscaled):
        return None
    rows = [v.row(x) for x in ecs.named(v)]
    unsaid = v.power_reading is None and any(t.power_w is not None for t in rows)
    text = (f"As run, with the SM clock and board power of each window"
            f"{f' (power {table_words.READING_NOT_RECORDED})' if unsaid else ''}: "
            + "; ".join(_as_run(t, v) for t in rows))
    apart = _leaders_apart(v)
    if apart:
        text += ". " + apart
    if ecs.same_order(v):
        # the equal-clock order leaves out the rows whose window had no single clock (verdicts._equal_clock)
        among = " among the calls with one clock" if unscaled else ""
        return text + f". {orders_words.EQUAL_CLOCK_SHORT.capitalize()} the order is the same{among}."
    if not ecs.flips_shown(v):
        return text + "."
    parts = []
    shown = {t.variant for t in rows}
    # the pairs among the rows named above first: a flip further down the ranking says less about this verdict
    flips = sorted(ecs.flips_shown(v), key=lambda ab: not (ab.first in shown and ab.second in shown))
    for f in flips[:MAX_FLIPS]:
        a, b = f.first, f.second
        ta, tb = v.row(a), v.row(b)
        pays = (f"{label(b)} ran at {tb.sm_clock_mhz:.0f} MHz against {ta.sm_clock_mhz:.0f} MHz for {label(a)}"
                if tb.sm_clock_mhz is not None and ta.sm_clock_mhz is not None else "")
        if pays:
            pays += _held_pair(ta, tb, v)
        parts.append(f"{label(b)} ({us(tb.at_ref_ms)}) ahead of {label(a)} ({us(ta.at_ref_ms)})"
                     + (f": {pays}" if pays else ""))
    more = len(ecs.flips_shown(v)) - MAX_FLIPS
    among = any(f.first in shown and f.second in shown for f in ecs.flips_shown(v))
    model = orders_words.EQUAL_CLOCK_SHORT
    text += ((f". {model.capitalize()} the order differs: " if among
              else f". Further down, {model} the order differs: ")
             + "; ".join(parts)
             + (f"; and {more} more pair{'s' if more != 1 else ''}" if more > 0 else "")
             + ". The as-run time is what a user gets, at the clock of its window (which also reflects the "
               "variants timed just before it); the equal-clock order is a model of the kernels' efficiency that "
               "this set's rounds do not bear out, and it decides nothing.")
    return text


def _leaders_apart(v: verdicts.Verdict) -> str | None:
    """Calls sharing the first rank within noise as run that the equal-clock or kernel-sum order sets apart by more
    than rules.TIME_FLOOR_PCT: who leads by each, by how much, and at which clocks each ran."""
    out = []
    told = [o for o in v.orders if not o.apart and orders_words.telling(o)]
    for o in told:
        at = (f" ({label(o.first)} at {o.first_mhz:.0f} MHz, {label(o.second)} at {o.second_mhz:.0f} MHz)"
              if o.first_mhz and o.second_mhz else "")
        out.append(f"{orders_words.brief(o, label, noise=False, than=len(told) > 1)}, within noise of each other "
                   f"as run{at}")
    return "; ".join(out) if out else None
