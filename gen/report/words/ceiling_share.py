"""A point's rate against a ceiling at a clock, in words: its share of the measured matmul ceiling (as measured and,
where its window had one clock, scaled to that clock: a model), its compute-SOL cell, and what a window with no single
clock (rules.one_clock: gen.analysis.points gives no share at its clock, and its SOL at the GPU's maximum clock, a
floor) gets instead. A ceiling is set against a point only at that point's clock."""

from __future__ import annotations

from gen.analysis import points, rules
from gen.analysis.values import missing
from gen.report import format as fmt
from gen.report.words import tables as table_words

# The mark of a share that is a floor (its window had no single clock: the share at the GPU's maximum clock)
FLOOR_MARK = "≥"


def no_single_clock(r, say_mean: bool = True, what: str = "") -> str:
    """Why a window's time is not scaled (`r`: a row, or a Timed's fields): "no single clock (min 1230 against a mean
    of 1601 MHz)"; without `say_mean` (its mean said just before) "no single clock (min 1230 MHz)"; `what` after
    "clock" (" to scale by")."""
    lo, mean = r.get("sm_clock_min_mhz"), r.get("sm_clock_mhz")
    if missing(lo):
        return f"no single clock{what}"
    if say_mean and not missing(mean):
        return f"no single clock{what} (min {lo:.0f} against a mean of {mean:.0f} MHz)"
    return f"no single clock{what} (min {lo:.0f} MHz)"


def sol_cell(r, floors: bool = False) -> str:
    """A compute-SOL cell: the share at the window's clock, "84%"; in a table read at the GPU's maximum clock
    (`floors`: gen.analysis.points.sol_floors), the share there marked as a floor with the share at the window's own
    clock after it where it had one, a model, "≥59% (74%)"; a window with no single clock, "≥68%"; "–" where there
    is none."""
    floor = r.get("sol_floor_pct")
    if (floors or not table_words.one_clock(r)) and not missing(floor):
        at = r.get("sol_pct") if floors and table_words.one_clock(r) else None
        return FLOOR_MARK + fmt.num(floor, ".0f", "%") + (f" ({fmt.num(at, '.0f', '%')})" if not missing(at) else "")
    return fmt.num(r.get("sol_pct"), ".0f", "%")


def sol_clause(rows) -> str:
    """The table note's compute-SOL clause: at the window's clock; where the column is read at the GPU's maximum
    clock (points.sol_floors), what the mark and the bracket mean."""
    if not points.sol_floors(rows):
        return "; compute SOL is the TFLOP/s over the speed of light at the window's clock"
    return (f"; compute SOL is the TFLOP/s over the speed of light at the GPU's maximum clock, a floor ({FLOOR_MARK}), "
            "since a window here had no single clock (see the methodology); in brackets, the share at the "
            "window's own clock where it had one (a model)")


def matmul_share(f: dict) -> str:
    """A point's share of the matmul ceiling as measured, with the ceiling's value, clock and power state
    ("102% of the measured matmul ceiling (717 TFLOP/s at 1428 MHz, held for power 100% of its samples)"); a rate
    above it flagged with both clocks (rules.above_ceiling); the share at the point's own clock after it,
    labelled a model: scaling the ceiling by the clock assumes a product that runs at the point's clock under the
    power limit, which the measured one did not. A window with no single clock gets no such share, and says why."""
    value = f.get("ceiling_value")
    cmhz, held = f.get("ceiling_mhz"), f.get("ceiling_cap_share")
    cond = []
    if not missing(value):
        cond.append(f"{value:.0f} TFLOP/s")
    if not missing(cmhz):
        cond[-1:] = [" ".join([*cond[-1:], f"at {cmhz:.0f} MHz"])]
    if not missing(held):
        cond.append(f"held for power {100 * held:.0f}% of its samples")
    text = f"{f['pct_of_ceiling']:.0f}% of the measured matmul ceiling" + (f" ({', '.join(cond)})" if cond else "")
    mhz = f.get("sm_clock_mhz")
    if rules.above_ceiling(f["pct_of_ceiling"]):
        state = "held for power" if not missing(held) and held > 0 else "measured"
        # a clause of its own, no colon and no second bracket: the share's bracket is already open before it
        text += ", above the measured ceiling" + (
            f", which was {state} at {cmhz:.0f} MHz against this point's {mhz:.0f} MHz"
            if not missing(cmhz) and not missing(mhz) else "")
    at = f.get("pct_of_matmul_at_clock")
    if not table_words.one_clock(f) and not missing(cmhz) and not missing(mhz):
        text += f"; its window had {no_single_clock(f, what=' to scale the ceiling to')}"
    elif not missing(at) and not missing(cmhz) and not missing(mhz) and round(cmhz) != round(mhz):
        text += f"; {at:.0f}% of it scaled to this point's {mhz:.0f} MHz (a model)"
    return text + table_words.memory_side(f)
