"""The clocks two kernel sums were taken at, beside a lead the sums give (gen.analysis.leads.Orders): within
rules.CLOCK_GAP_PCT of each other, or past it with the leader at the lower clock (the gap can only have shrunk the
lead), or at the higher one (then how much of the lead the gap can explain, and what is left past it). One set of
words for every page that gives a kernel-sum lead, at length or short, so no page gives a
lead bare ("1.11×" at clocks 5.7% apart) where another says what its clock gap explains."""

from __future__ import annotations

from gen.analysis import rules
from gen.report.words.common import short_label, times


def apart(a_mhz: float, b_mhz: float) -> str:
    """How far apart two clocks are, as every page words a clock gap: rules.clock_gap_pct (the higher over the lower,
    less one: the measure the gate rules.CLOCK_GAP_PCT is set in and what "that gap can explain" reads), whole from 10%,
    to a tenth below it so that a gap just past the gate never reads as the gate itself
    (one gap read two ways for the same two clocks): "22%", "5.7%"."""
    gap = rules.clock_gap_pct(a_mhz, b_mhz)
    return f"{gap:.0f}%" if round(gap, 1) >= 10 else f"{gap:.1f}%"


def two_clocks(a: float | None, b: float | None) -> str:
    """Two windows' clocks in a bracket's clause: "both at 1980 MHz", "at 1860 against 1980 MHz", or "clocks not
    recorded" where either is missing."""
    if not a or not b:
        return "clocks not recorded"
    return f"both at {a:.0f} MHz" if round(a) == round(b) else f"at {a:.0f} against {b:.0f} MHz"


def _leader_mhz(o) -> tuple[float, float] | None:
    """(the kernel-sum leader's window clock, the other's); None where a figure is missing."""
    if o.kernel_sum is None or not o.first_ks_mhz or not o.second_ks_mhz:
        return None
    return (o.first_ks_mhz, o.second_ks_mhz) if o.kernel_sum >= 1 else (o.second_ks_mhz, o.first_ks_mhz)


def possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def clock_against(own_mhz: float, other_mhz: float, own: str, other: str, n: str | None = None) -> str:
    """Where one call's window ran against the other's, in the one measure a clock gap is given in (apart: the
    higher over the lower, less one), the side with the higher clock named, so no preposition is left to tell it
   :
    "FP8's clock 11% higher", "FlexAttention's clock 6% higher". `own`, `other`: the two sides' possessives; `n`: the
    gap as already printed ("12"), where the page gives it to another precision."""
    n = n if n is not None else apart(own_mhz, other_mhz)[:-1]
    return f"{own if own_mhz > other_mhz else other} clock {n}% higher"


def _sides(o, label=short_label) -> tuple[str, str]:
    """The kernel-sum leader's possessive and the other call's."""
    lead, other = (o.first, o.second) if o.kernel_sum >= 1 else (o.second, o.first)
    return possessive(label(lead)), possessive(label(other))


def lower_clock(o, named: bool = False) -> str:
    """ "FlashAttention-4's clock 12% higher": a kernel-sum lead taken at clocks past rules.CLOCK_GAP_PCT, its leader
    at the lower one (Orders.kernel_sum_conservative), so the gap can only have shrunk it; the call at the higher clock
    named; `named`: the two clocks too, where the sentence gives no sums beside it: "FlashAttention-4's clock 12%
    higher (1755 against 1965 MHz, the kernel sums' windows)"."""
    pct = o.kernel_sum_leader_clock_pct
    if o.kernel_sum_one_clock or not o.kernel_sum_conservative or pct is None:
        return ""
    lead, other = _leader_mhz(o)
    return clock_against(lead, other, *_sides(o)) + (
        f" ({lead:.0f} against {other:.0f} MHz, the kernel sums' windows)" if named else "")


def _left(o) -> float | None:
    """The leader's kernel-sum lead less the most its higher clock can explain (rules.clock_left), as the leader's
    ratio (below 1 where the gap explains more than the whole lead)."""
    left = rules.clock_left(o.kernel_sum, o.first_ks_mhz, o.second_ks_mhz)
    if left is None:
        return None
    return left if o.kernel_sum >= 1 else 1 / left


def higher_clock(o, label, named: bool = True) -> str:
    """A kernel-sum lead taken at clocks more than rules.CLOCK_GAP_PCT apart with its leader at the higher one: the
    gap (apart, the one measure every clock gap is worded in) and what of the lead is left past what it can explain
    (a kernel's time falls at most in proportion to 1 / clock; rules.clock_left), in the one form a clock gap takes
    (clock_against): "FlexAttention (compiled)'s sums at 1950 against 1845 MHz, its clock 5.4% higher; 1.05× past what
    that gap can explain"; without `named` (the clocks said beside it already) "FlexAttention (compiled)'s clock 5.4%
    higher, 1.05× past what that gap can explain"; "" where the sums ran within the gate or their leader at the lower
    clock (lower_clock says that)."""
    mhz = _leader_mhz(o)
    if mhz is None or o.kernel_sum_one_clock or o.kernel_sum_conservative:
        return ""
    lead, other = mhz
    who = label(o.first if o.kernel_sum >= 1 else o.second)
    left = _left(o)
    past = (f"{times(left, 3 if f'{left:.2f}' == '1.00' else 2)} past what that gap can explain" if left > 1
            else "no more than that gap can explain")
    if named:
        return (f"{possessive(who)} sums at {lead:.0f} against {other:.0f} MHz, its clock {apart(lead, other)} "
                f"higher; {past}")
    return f"{possessive(who)} clock {apart(lead, other)} higher, {past}"


def clocks_note(o, label) -> str:
    """What a short kernel-sum lead ("behind by kernel sum, 1.11×") carries about its clocks, where they ran past
    rules.CLOCK_GAP_PCT: the higher clock and what is left past it (higher_clock), or the leader's lower clock, both
    named: "cuDNN FP8 attention (frontend graph)'s sums at 1755 against 1965 MHz, FlashAttention-4's clock 12%
    higher" (the whole
    lead is left past it); "" within the gate."""
    if higher := higher_clock(o, label):
        return higher
    if not lower_clock(o):
        return ""
    lead, other = _leader_mhz(o)
    who = label(o.first if o.kernel_sum >= 1 else o.second)
    return f"{possessive(who)} sums at {lead:.0f} against {other:.0f} MHz, {clock_against(lead, other, *_sides(o))}"


def swing_note(o, label) -> str:
    """Beside a pair's leads, where the as-run leader's own forward and reversed round medians lie further apart than
    its as-run lead (Orders.own_swing): "FlexAttention (compiled)'s own round orientations differ by 1.15×, more than
    its 1.13× lead as run"; "" elsewhere. Against the as-run lead only: the swing is of the rounds, and the kernel
    sums were taken outside them ("more than this lead" would misread beside a kernel-sum lead)."""
    if o.as_run is None or o.as_run <= 0:
        return ""
    leader = o.first if o.as_run >= 1 else o.second
    swing, lead = o.own_swing(leader), max(o.as_run, 1 / o.as_run)
    if swing is None or swing <= lead:
        return ""
    return (f"{possessive(label(leader))} own round orientations differ by {times(swing)}, more than its "
            f"{times(lead)} lead as run")


def short_lead(o, text: str) -> str:
    """A kernel-sum lead said short (`text`: "1.11×"), with what it must carry beside it: its clocks past the gate
    (clocks_note) and the as-run leader's own swing between round orientations where that is larger than its as-run
    lead (swing_note): "1.11× (FlexAttention (compiled)'s sums at the higher clock, 1950 against 1845 MHz, 5.4%
    apart; 1.05× past what that gap can explain; FlexAttention (compiled)'s own round orientations differ by 1.15×,
    more than its 1.13× lead as run)"."""
    # the notes sit in brackets: the calls in them by their short names, which carry no brackets of their own
    notes = [x for x in (clocks_note(o, short_label), swing_note(o, short_label)) if x]
    return text + (f" ({'; '.join(notes)})" if notes else "")


# Why the kernel sums' clock gate holds at a memory-bound point too: the pages give
# such a point no equal-clock time, but that is no finding that its time ignores the SM clock. One clause with no
# colon: it may sit in a running clause beside others
MEMORY_BOUND_GATE = ("the gate holds at memory-bound points too, since how far their kernels' time follows the SM "
                     "clock is not measured here and no memory clock is recorded")


def _gap_explains(lead: float, explains: float, gap: str) -> str:
    """A refused kernel-sum lead beside what its clock gap can explain: "their 1.02× lead is inside the 1.065× that a
    6.5% clock gap can explain", or where it passes that, by how much: "their 1.08× lead is 1.014× past the ..."."""
    where = "inside" if lead <= explains else f"{times(lead / explains, 3)} past"
    return f"their {times(lead)} lead is {where} the {times(explains, 3)} that a {gap} clock gap can explain"


def clock_gate(o, gap: str, label=short_label) -> list[str]:
    """Kernel sums refused for their clocks (rules.CLOCK_GAP_PCT), with the real reason, as clauses each a sentence
    where the page gives sentences (one bracket of three clauses stood on the home), the gap in the one form a clock
    gap takes (clock_against): "the kernel sums, taken with SDPA's clock 6.5% higher", "the sums may decide only at
    clocks within 5% of each other", "their 1.02× lead is inside the 1.065× that a 6.5% clock gap can explain", and
    at a memory-bound point MEMORY_BOUND_GATE."""
    higher = o.kernel_sum_leader_clock_pct is not None and o.kernel_sum_leader_clock_pct < 0
    sides = (possessive(label(o.first)), possessive(label(o.second)))
    taken = (f"taken with {clock_against(o.first_ks_mhz, o.second_ks_mhz, *sides, gap[:-1])}"
             if o.first_ks_mhz and o.second_ks_mhz else f"taken at clocks {gap} apart")
    why = [f"the sums may decide only at clocks within {rules.CLOCK_GAP_PCT:g}% of each other"]
    if higher and o.kernel_sum is not None and o.first_ks_mhz and o.second_ks_mhz:
        c = max(o.first_ks_mhz / o.second_ks_mhz, o.second_ks_mhz / o.first_ks_mhz)
        why.append(_gap_explains(max(o.kernel_sum, 1 / o.kernel_sum), c, gap))
    if o.memory_bound:
        why.append(MEMORY_BOUND_GATE)
    return [f"the kernel sums, {taken}", *why]


def sums_clocks(o) -> str:
    """At which clocks the kernel sums were taken, where they decide (rules.lead_decided): "taken at clocks within 5%
    of each other", or, past that gap, how much of their lead it can explain: "taken with FlexAttention's clock 6.5%
    higher (1980 against 1860 MHz) and leading by 1.38×, more than the 1.065× that gap can explain (1.29× left)"."""
    if o.past_clock is None:
        return f"taken at clocks within {rules.CLOCK_GAP_PCT:g}% of each other"
    gap = apart(o.first_ks_mhz, o.second_ks_mhz)
    lead, left = max(o.kernel_sum, 1 / o.kernel_sum), max(o.past_clock, 1 / o.past_clock)
    mhz = _leader_mhz(o)
    # "and leading by": the clause needs its own verb ("their 1.38× lead more than ..." had none)
    return (f"taken with {clock_against(*mhz, *_sides(o), gap[:-1])} ({mhz[0]:.0f} against {mhz[1]:.0f} MHz) and "
            f"leading by {times(lead)}, more "
            f"than the {times(o.clock_explains, 3)} that gap can explain ({times(left)} left; a kernel's time falls at "
            "most in proportion to 1 / clock)")
