"""Two calls' orders at one point (gen.analysis.verdicts.Orders) in words, briefly: as run beside the point's noise of
identical kernels, by kernel sum, and the equal-clock model (labelled so: it decides nothing), beside "within noise" or
"not decided" (rules.lead_decided); and their outputs' errors where the two take different inputs (FP8 against
bf16)."""

from __future__ import annotations

from gen.analysis import calls, rules
from gen.analysis.leads import beyond_floor as _beyond_floor
from gen.model.variants import VARIANTS
from gen.report.words.common import short_label, times, times_beside, us
from gen.report.words.sentences import Aside, Clause, flat, inline
from gen.report.words.sum_clocks import (
    MEMORY_BOUND_GATE,  # noqa: F401  (moved there; its readers name it here)
    apart,
    clock_gate,
    clocks_note,
    higher_clock,
    lower_clock,
    short_lead,
    sums_clocks,
)

# The equal-clock time is printed as a model, never as evidence: round times do not follow their window's clock
# (rules, "who leads"), so every place that prints it says so.
EQUAL_CLOCK_SHORT = "at equal clock (a model)"


def noise_point(n) -> str:
    """Where an identical pair ran: "article, 16,384 tokens, head dim 128"."""
    p = n.point
    size = f"{p.q_len:,} tokens" if p.q_len == p.kv_len else f"{p.q_len:,} queries over {p.kv_len:,} keys"
    return f"{n.scenario}, {size}, head dim {p.head_dim}" + ("" if n.mode == "inference" else f", {n.mode}")


def oriented_line(n) -> str:
    """The line a lead's weaker round orientation is set against (rules.beyond_pair_noise) in words: "up to 1.021× in
    one round orientation", or, where no identical pair reversed its rounds, that the whole medians' line stands."""
    if n.oriented is None:
        return "their rounds not reversed, so this line stands for each round orientation too"
    return f"up to {times(n.oriented, 3)} in one round orientation" + (" at such points" if n.borrowed else "")


def pair_noise(n, label, oriented: bool = False) -> str:
    """The as-run noise of identical kernels (gen.analysis.pair_noise) in words: "at this point (SDPA cuDNN and SDPA
    not pinned, same kernels, 1.07× apart)", or where it is borrowed, from where; with `oriented` (the lead has round
    orientations to check), the orientations' line too ("..., up to 1.09× in one round orientation")."""
    return str(pair_noise_aside(n, label, oriented))


def pair_noise_aside(n, label, oriented: bool = False, before: str = "") -> Aside:
    """pair_noise as an Aside, `before` ahead of it: the bracket's clauses kept apart, for a note said in sentences."""
    pair = f"{label(n.fast)} and {label(n.slow)}, same kernels, {times(n.ratio, 3)} apart"
    if n.borrowed:
        return Aside(f"{before}borrowed from another point", (_none_here(n),
                                                              f"{pair} at {noise_point(n)}",
                                                              *([oriented_line(n)] if oriented else [])))
    return Aside(f"{before}at this point", (pair + (f", {oriented_line(n)}" if oriented else ""),))


def _none_here(n) -> str:
    """Why a point borrows its noise line: no pair of identical kernels ran there, or the one that did was replayed at
    graph lengths past rules.SAME_REPLAY_PCT apart ("no identical pair ran here" beside a tie of the
    same kernels)."""
    if n.unequal_replay is None:
        return "no identical pair ran here"
    na, nb = n.unequal_replay.first_calls, n.unequal_replay.second_calls
    return (f"the pair here with the same kernels was replayed {na} and {nb} calls at a time, more than "
            f"{rules.SAME_REPLAY_PCT:g}% apart, so its gap is not read as noise")


def telling(o) -> bool:
    """The pair has an order to give beside "within noise": the as-run intervals apart, or another order past the
    floor."""
    return o.apart or _beyond_floor(o.equal_clock) or _beyond_floor(o.kernel_sum)


def _mhz(a: float | None, b: float | None, la: str = "", lb: str = "") -> str:
    """The two windows' clocks, each named by its call where the labels are given."""
    if a is None or b is None:
        return ""
    if f"{a:.0f}" == f"{b:.0f}":
        return f"both at {a:.0f} MHz"
    return f"{la} at {a:.0f} MHz, {lb} at {b:.0f} MHz" if la and lb else f"at {a:.0f} against {b:.0f} MHz"


def _lead(o, r: float, label) -> tuple[str, float, bool]:
    """(who leads by the ratio r, by how much, whether it is `first`)."""
    return (label(o.first), r, True) if r >= 1 else (label(o.second), 1 / r, False)


def sums(o, first_leads: bool, label) -> str:
    """The two kernel sums, the leader's first, and their windows' clocks, each named."""
    if o.first_ks_ms is None or o.second_ks_ms is None:
        return ""
    ms, mhz, who = (o.first_ks_ms, o.second_ks_ms), (o.first_ks_mhz, o.second_ks_mhz), (o.first, o.second)
    if not first_leads:
        ms, mhz, who = ms[::-1], mhz[::-1], who[::-1]
    at = _mhz(*mhz, label(who[0]), label(who[1]))
    return f"{us(ms[0])} against {us(ms[1])}" + (f", {at}" if at else "")


def _sums_detail(o, first_leads: bool, label) -> str:
    """`sums`, and where the leader's clock was past rules.CLOCK_GAP_PCT higher, what is left past that gap: "1.109 ms
    against 1.232 ms, X at 1950 MHz, Y at 1845 MHz: X's clock 5.4% higher, 1.05× past what that gap can explain"."""
    said, higher = sums(o, first_leads, label), higher_clock(o, label, named=False)
    return f"{said}: {higher}" if said and higher else said


def brief(o, label, clocks: bool = True, noise: bool = True, detail: bool = True, than: bool = False) -> str:
    """brief_clauses as one running clause."""
    return inline(brief_clauses(o, label, clocks, noise, detail, than))


def brief_clauses(o, label, clocks: bool = True, noise: bool = True, detail: bool = True,
                  than: bool = False) -> list[Clause]:
    """The orders as clauses (`brief` joins them into one), grouped by the call each puts ahead: "X 1.09× faster as
    run and 1.10× at equal clock (a model)", "Y 1.02× faster by kernel sum (2.757 ms against 2.819 ms, both at
    1965 MHz)", "within the as-run noise of identical kernels at this point (A and B, same kernels, 1.12× apart)" (an
    Aside: its bracket's clauses kept apart), two clocks each named by its call; an as-run order within its intervals
    is said so where `noise`; without `detail`, no kernel sums in parentheses, only their clocks where they ran past
    rules.CLOCK_GAP_PCT (sum_clocks.clocks_note); with `than`, each leader's
    counterpart named ("X 1.01× faster than Y by kernel sum"), for a sentence that gives the orders of more than one
    pair."""
    items = []  # (leader, ratio as printed, how, detail)
    if o.apart and o.as_run is not None:
        at = _mhz(o.first_mhz, o.second_mhz, label(o.first), label(o.second))
        items.append((label(o.first), times(o.as_run), "as run",
                      at if detail and clocks and at and not at.startswith("both") else ""))
    if _beyond_floor(o.equal_clock):
        who, r, _ = _lead(o, o.equal_clock, label)
        items.append((who, times(r), EQUAL_CLOCK_SHORT, ""))
    if _beyond_floor(o.kernel_sum):
        who, r, first = _lead(o, o.kernel_sum, label)
        items.append((who, least(o) + sum_gain(r), "by kernel sum",
                      _sums_detail(o, first, label) if detail else clocks_note(o, short_label)))
    groups: dict[str, list] = {}
    for it in items:
        groups.setdefault(it[0], []).append(it)
    parts: list[Clause] = [] if o.apart or not noise else ["within noise as run"]
    pair = (label(o.first), label(o.second))
    for who, its in groups.items():
        other = pair[1] if who == pair[0] else pair[0]
        each = [f"{r} {(f'faster than {other} ' if than else 'faster ') if k == 0 else ''}{how}"
                + (f" ({detail})" if detail else "")
                for k, (_, r, how, detail) in enumerate(its)]
        parts.append(f"{who} " + " and ".join(each))
    parts.extend(filter(None, [off_graph(o, label)]))  # the kernel sums set aside (rules.KERNEL_SUM_GRAPH_RATIO)
    if o.timed_apart:  # the noise line and the orientations are of the shared rounds: neither applies
        return [*parts, *timed_apart_clauses(o, label)]
    if not o.apart and _beyond_floor(o.kernel_sum) and o.oriented:
        # why one kernel-sum lead within noise as run counts as behind and another not (Orders.kernels_leader)
        parts.append(sums_backing(o, label))
    if o.orientation_split:
        parts.append(orientations(o, label))
    if o.apart and o.noise is not None:
        parts += noise_clauses(o, label)
    return parts


def sum_off_graph(x, name: str) -> str:
    """One call's kernel sum against its graph replay (calls.OffGraph), the larger over the smaller, the rule's line
    beside the ratio and why by direction: "SDPA flash's kernel sum is 1.19× its graph replay, past
    the 1.1× the rule allows (both at 1980 MHz): the profiled window's reading, not the kernels'", or "SDPA cuDNN's
    graph replay is 1.13× its kernel sum, …: the replay holds idle time between kernels that the sum leaves out"."""
    at = _mhz(x.kernel_sum_mhz, x.graph_mhz) or "clocks not recorded"
    over = (f"kernel sum is {times(x.ratio)} its graph replay" if x.ratio >= 1
            else f"graph replay is {times(1 / x.ratio)} its kernel sum")
    if x.slower_at_higher_clock:
        # no clock gap explains it (rules.sum_slower_at_higher_clock); said only past the gate the within-gap clause
        # reads by (printed for 1980 against 1975 MHz, 0.25% apart)
        over += " though taken at the higher clock"
    # a sum above the replay is the profiled window's; a sum below it leaves out what the replay holds besides kernels
    why = ("the sum is the profiled window's reading, not the kernels'" if x.ratio >= 1
           else "the replay holds idle time between kernels that the sum leaves out")
    # the clocks after a comma, not in a bracket: the clause often sits in one
    return (f"{_possessive(name)} {over}, past the {rules.KERNEL_SUM_GRAPH_RATIO:g}× the rule allows, {at}; {why}")


def off_graph(o, label) -> str:
    """Why the kernel sums decide nothing for the pair (Orders.off_graph, rules.KERNEL_SUM_GRAPH_RATIO): "the kernel
    sums decide nothing here: SDPA flash's kernel sum is 1.19× its graph replay, past the 1.1× the rule allows (both at
    1980 MHz): …, so the as-run order alone is read"; a twin's sum named as such; "" where the sums stand."""
    if not o.off_graph:
        return ""
    said = []
    for member, x in dict(o.off_graph).items():
        own = sum_off_graph(x, label(x.variant))
        said.append(own if member == x.variant else f"{own}; and {label(member)} runs the same kernels")
    return f"the kernel sums decide nothing here: {'; '.join(said)}; so the as-run order alone is read"


def sums_backing(o, label) -> str:
    """Why a kernel-sum lead within noise as run does or does not count as behind (Orders.kernels_leader), said as
    measured ("the round orientations' medians disagree" where both put the other call
    ahead, against the sums): both orientations with the sums; both against them, naming whom they put ahead; the
    orientations split; or the sums' leader at the higher clock, past rules.CLOCK_GAP_PCT."""
    if o.kernels_leader:
        return "the kernel-sum leader also ahead in both round orientations' medians"
    ks_first = o.kernel_sum > 1
    fw_first, rv_first = o.forward > 1, o.reverse > 1
    if fw_first == rv_first and fw_first != ks_first:
        who = label(o.first if fw_first else o.second)
        fw, rv = (max(r, 1 / r) for r in (o.forward, o.reverse))
        return (f"both round orientations' medians put {who} ahead ({times(fw, 3)} forward, {times(rv, 3)} reversed), "
                "against the kernel sums' order, so the sums put no call behind")
    if fw_first != rv_first:
        return "the round orientations' medians put different calls ahead, so the sums put no call behind"
    return (f"the kernel sums' leader ran at the higher clock, more than {rules.CLOCK_GAP_PCT:g}% apart, by more than "
            "its lead past the floor, so the sums put no call behind")


def noise_clause(o, label) -> str:
    """noise_clauses as one running clause."""
    return inline(noise_clauses(o, label))


def noise_clauses(o, label) -> list[Clause]:
    """Where a pair's lead stands against the as-run noise of identical kernels (rules.lead_decided): beyond it, or
    within it, naming the weaker round orientation where that, not the median's ratio, is what falls within; the kernel
    sums' decision after it where they decide."""
    line = "the as-run noise of identical kernels "
    if not o.within_noise_of_pair:
        return [pair_noise_aside(o.noise, label, o.oriented, f"beyond {line}")]
    weak = min(((r, name) for r, name in ((o.forward, "forward"), (o.reverse, "reversed")) if r is not None),
               default=None)
    median_beyond = o.as_run is not None and rules.beyond_pair_noise(o.as_run, (None, None), o.noise.ratio)
    head = (f"its {weak[1]} rounds' {times(weak[0])} within {line}" if median_beyond and weak is not None
            else f"within {line}")
    decide = SUMS_DECIDE.replace(f"taken at clocks within {rules.CLOCK_GAP_PCT:g}% of each other", sums_clocks(o))
    return [pair_noise_aside(o.noise, label, o.oriented, head), *([decide] if o.decided_by_kernel_sum else [])]


# Where a noise line, the point's own or borrowed, gives way to the kernel sums (rules.lead_decided): said beside the
# line it overrules.
SUMS_DECIDE = ("the kernel sums, taken at clocks within "
               f"{rules.CLOCK_GAP_PCT:g}% of each other, and both round orientations agree with the as-run order, so "
               "they decide it against that line (the rule in the methodology)")


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def where_timed(o, label) -> str:
    """Why two calls' times were taken in different conditions (Orders.timed_apart, gen.analysis.calls.rounds_of):
    "FlexAttention (FLASH backend) was timed alone after the others (it ran out of memory beside them), so its time and
    FlashAttention-4's were taken in different conditions"; "" where they shared rounds or it is not known."""
    if not o.timed_apart:
        return ""
    a, b = label(o.first), label(o.second)
    how = {o.first: o.first_rounds, o.second: o.second_rounds}
    later = [x for x in (o.first, o.second) if how[x] == calls.LATER]
    if len(later) == 1 and not any(how[x] in (calls.ALONE, calls.AFTER) for x in (o.first, o.second)):
        x = later[0]
        other = label(o.second if x == o.first else o.first)
        mates = [label(m) for m in (o.first_with if x == o.first else o.second_with) if m != x]
        turns = (f", taking turns with {' and '.join(mates)}, which did not fit either" if mates else "")
        return (f"{label(x)} did not fit in memory beside the others and was timed in later rounds of its own{turns}, "
                f"so its time and {_possessive(other)} were taken in different conditions")
    alone = [x for x in (o.first, o.second) if how[x] == calls.ALONE]
    after = [x for x in (o.first, o.second) if how[x] == calls.AFTER]
    if len(alone) == 2:
        return (f"{a} and {b} were each timed alone after the others (each ran out of memory beside them), so their "
                "times were taken in different conditions")
    if alone or after:
        x = (alone or after)[0]
        other = label(o.second if x == o.first else o.first)
        why = ("was timed alone after the others (it ran out of memory beside them)" if alone else
               "had its CUDA graph replayed alone after the shared rounds (its graph and an eager call did not fit in "
               "memory together)")
        return f"{label(x)} {why}, so its time and {_possessive(other)} were taken in different conditions"
    if calls.OWN in how.values():
        return (f"{a} and {b} were each timed in a sequence of their own (this point has no shared rounds), so their "
                "times were taken in different conditions")
    return f"{a} and {b} were not timed in the same rounds, so their times were taken in different conditions"


def timed_apart(o, label) -> str:
    """timed_apart_clauses as one running clause."""
    return inline(timed_apart_clauses(o, label))


def timed_apart_clauses(o, label) -> list[str]:
    """A pair timed apart (rules.lead_decided): where each was timed, and what decides: the kernel sums at one clock,
    or nothing."""
    if o.past_reach:  # timed apart: the callers ask o.timed_apart first
        return [where_timed(o, label), f"the lead, {times(o.as_run)}, is past the {rules.TIMED_APART_REACH:g}× that "
                "such conditions can account for, so it stands"]
    text = where_timed(o, label) + ": the as-run order decides nothing between them"
    if o.decided:
        return [f"{text}, and the kernel sums, {sums_clocks(o)}, agree with it beyond {rules.TIME_FLOOR_PCT:g}% and "
                "decide it"]
    if o.off_graph:
        return [f"{text}, and the kernel sums cannot decide it either"]
    if o.kernel_sum is None:
        return [f"{text}, and there are no kernel sums to decide it"]
    if o.kernel_sum_clocks_apart:
        gate, *why = clock_gate(o, apart(o.first_ks_mhz, o.second_ks_mhz), label)
        return [f"{text}, and {gate}, cannot decide it either", *why]
    return [f"{text}, and the kernel sums do not agree with it beyond {rules.TIME_FLOOR_PCT:g}%, so they cannot "
            "decide it"]



def orientations(o, label) -> str:
    """The two round orientations' orders where they do not agree (rules.lead_decided): "FlashAttention-4 ahead in the
    forward rounds (1.18×), FlexAttention (FLASH backend) in the reversed rounds (1.06×): the order follows which call
    ran before (the rounds' neighbour effect, methodology)"."""
    fw, rv = _lead(o, o.forward, label), _lead(o, o.reverse, label)
    floor = f"{rules.TIME_FLOOR_PCT:g}%"

    def side(lead, where):
        who, r, _ = lead
        if not _beyond_floor(r):
            return f"within {floor} in the {where} rounds ({times(r, 3)})"
        return f"{who} ahead in the {where} rounds ({times(r)})"
    if fw[0] == rv[0] and _beyond_floor(o.forward) and _beyond_floor(o.reverse):
        return ""  # one leader beyond the floor in both: no split to tell
    if _beyond_floor(o.forward) and _beyond_floor(o.reverse):
        text = f"{fw[0]} ahead in the forward rounds ({times(fw[1])}), {rv[0]} in the reversed rounds ({times(rv[1])})"
    else:
        text = f"{side(fw, 'forward')}, {side(rv, 'reversed')}"
    return text + ": the order follows which call ran before (the rounds' neighbour effect, methodology)"


def sum_gain(r: float) -> str:
    """A kernel-sum lead's ratio, printed beside the first screen's rules.ADVICE_MIN_GAIN line it is set against:
    "1.195×", never "1.20×" for a gain under 1.2×."""
    return times_beside(r, rules.ADVICE_MIN_GAIN)


def least(o) -> str:
    """"at least " before a kernel-sum ratio whose leader ran the lower clock past the gate (Orders.kernel_sum_least):
    the ratio is a floor on its lead at one clock, not its value; "" elsewhere."""
    return "at least " if o.kernel_sum_least else ""


def kernels_ahead(o, label) -> str:
    """A lead by kernel sum that the as-run times cannot show (Orders.kernels_leader), briefly: "cuDNN FP8 attention
    (frontend graph) at least 1.195× faster by kernel sum, FlashAttention-4's clock 12% higher (1755 against 1965
    MHz, the kernel sums' windows)" (or the two sums and clocks where they ran within rules.CLOCK_GAP_PCT)."""
    who, r, first = _lead(o, o.kernel_sum, label)
    return f"{who} {least(o)}{sum_gain(r)} faster by kernel sum, " + (lower_clock(o, named=True)
                                                                     or _sums_detail(o, first, label))


def both_orientations(o) -> str:
    """The round orientations' ratios of a kernel-sum lead that counts as behind (Orders.kernels_leader holds only where
    both agree with the sums): "ahead as run in both round orientations (1.02× forward, 1.02× reversed)"; "" where
    the set did not reverse its rounds."""
    if not o.oriented or o.kernels_leader is None:
        return ""
    first = o.kernels_leader == o.first
    fw, rv = (o.forward, o.reverse) if first else (1 / o.forward, 1 / o.reverse)
    return f"ahead as run in both round orientations ({times(fw)} forward, {times(rv)} reversed)"


def kernels_behind(o) -> str | None:
    """The call of a pair within noise as run that the kernel sums put behind (Orders.kernels_leader), None where they
    name no leader: the first screen counts its workload as behind, not as a first place,
    and every page says so the same way (BEHIND_BY_KERNELS)."""
    lead = o.kernels_leader
    return None if lead is None else o.second if lead == o.first else o.first


BEHIND_BY_KERNELS = "within noise as run but behind by kernel sum"  # the first screen's words (words.first_screen)


def kernels_ahead_detail(o, label, than: bool = False) -> str:
    """kernels_ahead in full, for a verdict: the two sums and their clocks, the clock gap the sums' leader ran at, both
    round orientations and the equal-clock model: "cuDNN FP8 attention (frontend graph) at least 1.195× faster by
    kernel sum (5.038 ms against 6.022 ms, X at 1755 MHz, Y at 1965 MHz: Y's clock 12% higher), ahead as run in both
    round orientations (1.07× forward, 1.19× reversed), and 1.07× at equal clock (a model)"; with `than`, the
    counterpart named ("X 1.195× faster than Y by kernel sum"), for a sentence of more than one pair."""
    who, r, first = _lead(o, o.kernel_sum, label)
    lower = lower_clock(o) or higher_clock(o, label, named=False)
    other = f"than {label(o.second if first else o.first)} " if than else ""
    text = (f"{who} {least(o)}{sum_gain(r)} faster {other}by kernel sum ({sums(o, first, label)}"
            + (f": {lower})" if lower else ")"))
    extra = []
    if o.oriented:
        fw, rv = (o.forward, o.reverse) if first else (1 / o.forward, 1 / o.reverse)
        extra.append(f"ahead as run in both round orientations ({times(fw)} forward, {times(rv)} reversed)")
    if _beyond_floor(o.equal_clock) and (o.equal_clock > 1) == first:
        extra.append(f"{times(max(o.equal_clock, 1 / o.equal_clock))} {EQUAL_CLOCK_SHORT}")
    if extra:
        text += ", " + (", and ".join(extra) if len(extra) == 2 else extra[0])
    return text


# The measure a lead is decided by (leads.Orders.deciding), beside its ratio on the home map
MEASURE = {"as run": "as run", "kernel sum": "by kernel sum"}


def map_state(settled: bool | None, o, why: str | None, *spreads, label=None) -> str:
    """Whether a verdict's first place is settled, for the home map's tooltip: "yes",
    or "no" with the reason the rule gives (gen.analysis.verdicts.first_pair): the intervals overlap (at their real
    level: `spreads`, the fastest's and the runner-up's), timed apart, the lead flips in one round orientation, within
    the as-run noise of identical kernels, the kernel sums put the other ahead, or another scenario ordered the two
    the other way round; "–" without a runner-up. Within noise as run where the kernel sums name a leader
    (kernels_behind), the cell says so as every page does, with `label`: "no: the 93.75%
    intervals (...) overlap; FlashAttention-4 within noise as run but behind by kernel sum (cuDNN FP8 attention
    (frontend graph) at least 1.195× faster by kernel sum, FlashAttention-4's clock 12% higher)"."""
    from gen.analysis import leads, verdicts
    from gen.report.words.common import intervals

    if settled is None:
        return "–"
    if settled:
        return "yes"
    if why == leads.OVERLAP:
        behind = kernels_behind(o) if o is not None and label is not None else None
        also = f"; {label(behind)} {BEHIND_BY_KERNELS} ({kernels_ahead(o, label)})" if behind else ""
        return f"no: the {intervals(*spreads)} overlap{also}"
    if why == leads.TIMED_APART:
        return "no: timed apart (not in the same rounds), and the kernel sums do not decide"
    if why == leads.ORIENTATION:
        return f"no: the lead flips or falls within {rules.TIME_FLOOR_PCT:g}% in one round orientation"
    if why == leads.PAIR_NOISE and o is not None and o.noise is not None:
        where = "at another point" if o.noise.borrowed else "here"
        return f"no: within identical kernels' as-run noise ({times(o.noise.ratio, 3)} apart {where})"
    if why == leads.KERNEL_SUMS:
        return "no: the kernel sums put the runner-up ahead"
    if why == verdicts.OTHER_WINDOW:
        return "no: another scenario timed the two the other way round"
    return "no"


def undecided_why(o) -> str:
    """Why the rule leaves a pair whose as-run intervals are apart not decided (leads.Orders.why_not_decided), as the
    first screen's short reason: "timed apart", "flips with the round order", "within identical kernels' noise", or
    "the kernel sums against it" (the verdict gives the orders)."""
    from gen.analysis import leads

    return {leads.TIMED_APART: "timed apart", leads.ORIENTATION: "flips with the round order",
            leads.PAIR_NOISE: "within identical kernels' noise"}.get(o.why_not_decided, "the kernel sums against it")


def state(o) -> str:
    """"not decided" where the as-run intervals are apart and another order says otherwise, else "within noise"."""
    return "not decided" if o.apart and not o.decided else "within noise"


def errors(rows, label) -> str | None:
    """Where calls sharing a rank take different inputs (a variant's own dtype, FP8, against the scenario's): each
    one's output error against float64, "output error against float64: 3.4e-02 for X, 2.1e-03 for Y (bf16)"."""
    rows = [t for t in rows if t is not None and t.rel_error is not None]
    own = {t.variant: VARIANTS[t.variant].dtype if t.variant in VARIANTS else None for t in rows}
    if len(rows) < 2 or len({own[t.variant] for t in rows}) < 2:
        return None
    return "output error against float64: " + ", ".join(
        f"{t.rel_error:.1e} for {label(t.variant)}" + (f" with {DTYPE_WORDS.get(t.dtype, t.dtype)} inputs"
                                                       if t.dtype else "") + _rounding(t, rows)
        for t in rows)


def _rounding(t, rows) -> str:
    """Beside an error taken against float64 of the rounded inputs (the kernel's alone), what rounding the others'
    inputs to its dtype costs first (a model holding bf16 activations pays both)."""
    err = getattr(t, "input_rounding_error", None)
    if err is None:
        return ""
    src = next((u.dtype for u in rows if u.dtype and u.dtype != t.dtype), None)
    return (f" (the kernel's own; rounding {DTYPE_WORDS.get(src, src) + ' ' if src else ''}inputs to "
            f"{DTYPE_WORDS.get(t.dtype, t.dtype)} alone costs {err:.1e})")


DTYPE_WORDS = {"fp8_e4m3": "float8 e4m3", "fp8_e5m2": "float8 e5m2"}


def kernels_lead(o) -> bool:
    """Within noise as run, the kernel sums past the floor, their windows within rules.CLOCK_GAP_PCT of each other, or
    further apart with the sums' leader at the lower clock, where equal clock could only widen its lead
    (Orders.kernel_sum_conservative; the equal-clock model decides nothing)."""
    return not o.apart and _beyond_floor(o.kernel_sum) and (o.kernel_sum_fair or o.kernel_sum_conservative)


def noted_parts(orders, rows, label, lead: bool = True) -> list[str]:
    """A workload's notes beside "within noise of", one clause a sentence (sentences.flat): the pairs' orders where
    the as-run order is overruled ("not decided: …") or where the kernel sums, taken at clocks close enough, name a
    leader the as-run times cannot show, and the outputs' errors where the inputs differ; [] for none. Without
    `lead`, no "not decided: " before a pair's orders (the clause says it)."""
    told = [o for o in orders if state(o) == "not decided" or kernels_lead(o)]
    notes: list[str] = []
    for o in told:
        head = "not decided: " if lead and state(o) == "not decided" else ""
        notes += [head + x if i == 0 else x
                  for i, x in enumerate(flat(brief_clauses(o, label, detail=False, than=len(told) > 1)))]
    err = errors(rows, label)
    return [*notes, *([err] if err else [])]


def first_place(shares, by_sums, label) -> str:
    """An exception's standing at its verdict's point, as its verdict gives it (the set
    page named FlexAttention for packed documents bare while its verdict said "within noise"): "shares the first rank
    with X (within noise as run; X behind by kernel sum, 1.11× (...))", the lead said as sum_clocks.short_lead says it
    (its clocks past the gate, its leader's own orientation swing); "shares the first rank
    with X (not decided: timed
    apart)"; "first by kernel sum (timed apart), 1.38× (...)"; "" where it leads outright. `shares`: its Orders
    against each call sharing its first rank (its call first); `by_sums`: the Orders of a first place the kernel sums
    decide, else None."""
    said = []
    for o in shares:
        head = f"shares the first rank with {label(o.second)}"
        if o.apart and not o.decided:
            said.append(f"{head} (not decided: {undecided_why(o)})")
            continue
        also = (f"; {label(o.second)} behind by kernel sum, {short_lead(o, times(o.kernel_sum))}"
                if kernels_behind(o) == o.second and o.kernel_sum is not None else "")
        said.append(f"{head} (within noise as run{also})")
    if not said and by_sums is not None:
        lead = (f", {short_lead(by_sums, times(by_sums.kernel_sum))}"
                if by_sums.kernel_sum is not None and not by_sums.kernel_sum_one_clock else "")
        return "first by kernel sum" + (" (timed apart)" if by_sums.timed_apart else "") + lead
    return "; ".join(said)


def not_the_call(o, label) -> str:
    """Why a call faster by its median than the recommended one is not the call (the home
    chart's FP8 dot left of the diamond, unmarked), from their Orders (the faster call first): "within noise as run",
    "not decided (timed apart)", each with a lead its kernels alone give, said as words.sum_clocks.short_lead says it,
    or its decided gain under rules.ADVICE_MIN_GAIN: "1.08× as run, under 1.2×"."""
    if not o.decided:
        said = f"{state(o)} as run" if not o.apart else f"not decided ({undecided_why(o)})"
        if o.kernels_leader == o.first and o.kernel_sum is not None:  # ahead by its kernels alone
            # a floor on the lead at one clock is held against no bar (Orders.kernel_sum_least)
            said += (f"; {short_lead(o, least(o) + sum_gain(o.kernel_sum) + ' by kernel sum')}" + (
                f", under {rules.ADVICE_MIN_GAIN:g}×" if o.sums_under_bar and not o.kernel_sum_least else ""))
        return said
    r, by = o.deciding
    return f"{times_beside(r, rules.ADVICE_MIN_GAIN)} {MEASURE.get(by, by)}, under {rules.ADVICE_MIN_GAIN:g}×"
