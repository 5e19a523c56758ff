"""Where a scenario's times come from its profiled runs (each call in a loop of its own) and its order from the sweep's
shared rounds at the same point (gen.analysis.calls.Timed.rounds_record): every time a
page shows is the runs', and the shared rounds are cited, labelled with their record, clock and power, as the evidence
that decides the order."""

from __future__ import annotations

from gen.analysis.values import missing
from gen.report.words import orders as orders_words
from gen.report.words import round_by_round
from gen.report.words.common import intervals, times, us

RUNS = "in the profiled runs (each call timed in a loop of its own)"
SHARED = "in the sweep's shared rounds at this point"


def window(t) -> str:
    """A GPU-only window's clock and its share held for power: "at 1977 MHz, held for power 20% of samples", "at 1980
    MHz, never held for power"."""
    parts = [f"at {t.sm_clock_mhz:.0f} MHz"] if t.sm_clock_mhz is not None else []
    share = t.power_cap_share
    if share is not None and not missing(share):
        parts.append("never held for power" if share == 0 else f"held for power {100 * share:.0f}% of samples")
    return ", ".join(parts)


def decided_in_rounds(first, second) -> bool:
    """Both rows carry the sweep's shared rounds, the record their order is read from."""
    return first.rounds_record is not None and second.rounds_record is not None


def runs_pair(first, second, label) -> str:
    """The two rows' own record and windows: "in the profiled runs (each call timed in a loop of its own: SDPA cuDNN
    at 1980 MHz, never held for power; FlashAttention-4 at 1980 MHz, never held for power)"."""
    return (f"{RUNS[:-1]}: {label(first.variant)} {window(first)}; {label(second.variant)} {window(second)})")


def evidence(first, second, o, label) -> str:
    """The shared rounds' numbers that decide `first` ahead of `second` (o: their orders, read off the shared rounds):
    "in the sweep's shared rounds at this point, which decide the order: 58.7 against 69.4 µs (SDPA cuDNN at 1977
    MHz, held for power 20% of samples; FlashAttention-4 at 1980 MHz, never held for power), 1.18×; the 93.75%
    intervals of the two medians do not overlap, ahead in both round orientations (1.19× forward, 1.19× reversed),
    and beyond the as-run noise of identical kernels ..."."""
    a, b = first.rounds_record, second.rounds_record
    text = (f"{SHARED}, which decide the order: {us(a.gpu_only.median)} against {us(b.gpu_only.median)} "
            f"({label(first.variant)} {window(a)}; {label(second.variant)} {window(b)}), {times(o.as_run)}")
    if o.decided_by_rounds:
        return text + f"; {round_by_round.paired(o, label)}"
    text += f"; the {intervals(a.gpu_only, b.gpu_only)} of the two medians " + (
        "do not overlap" if o.apart else "overlap")
    if o.oriented:
        text += f", ahead in both round orientations ({times(o.forward)} forward, {times(o.reverse)} reversed)"
    return text + (f", and {orders_words.noise_clause(o, label)}" if o.noise is not None else "")
