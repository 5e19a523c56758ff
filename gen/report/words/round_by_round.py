"""Two calls timed in the same rounds, round by round (gen.analysis.leads.Orders.per_round; rules.paired_leads) in
words: the per-round noise line they are set against, the per-round ratios, how many rounds clear the line, and
whether the shared rounds decide the lead."""

from __future__ import annotations

from gen.analysis import rules
from gen.report.words.common import short_label, times

# The ending of every pair the shared rounds leave undecided
NOT_DECIDED = "so the shared rounds do not decide it"


def paired_line(o) -> str:
    """The per-round noise line of identical kernels a paired lead is set against (rules.paired_leads): "the 1.233× line
    (identical kernels' per-round noise here)", or borrowed, or none where the set has no identical pair."""
    n = o.noise
    if n is None or n.per_round is None:
        return "even (no identical kernels shared rounds in this set to set a line)"
    where = ("borrowed from other points: no identical kernels shared rounds here" if n.per_round_borrowed
             else "here")
    return f"the {times(n.per_round, 3)} line (identical kernels' per-round noise {where})"


def paired_rounds(o) -> str:
    """The per-round ratios by orientation: "forward rounds 1.076, 1.011, 1.043; reversed rounds 1.126, 1.143, 1.152",
    or all of them where the set did not reverse its rounds."""
    groups = o.round_groups
    said = [", ".join(f"{r:.3f}" for r in g) for g in groups]
    return said[0] if len(said) == 1 else f"forward rounds {said[0]}; reversed rounds {said[1]}"


def _whole_range(o) -> bool:
    """Every orientation's interval is the whole range of its rounds (stats.order_statistic_rank 1): the rule then asks
    every round to clear the line."""
    from gen.model.stats import order_statistic_rank

    return all(order_statistic_rank(len(g)) == 1 for g in o.round_groups)


def _cleared(o) -> int:
    """How many shared rounds put the first call ahead past the line by more than rules.TIME_FLOOR_PCT."""
    past = rules.paired_past(o.paired_line)
    return sum(1 for r in o.per_round if r > past)


def paired_joint(o) -> str:
    """The shared rounds' evidence for the first call, jointly (not per-orientation
    intervals at 50% or 75%): "ahead in all 5 shared rounds, each past the 1.001× line (...) by more than 1%", or "ahead
    past the 1.233× line (...) by more than 1% in 3 of the 6 shared rounds"."""
    k, n = _cleared(o), len(o.per_round)
    line, floor = paired_line(o), f"{rules.TIME_FLOOR_PCT:g}%"
    if k == n:
        return f"ahead in all {n} shared rounds, each past {line} by more than {floor}"
    text = f"ahead past {line} by more than {floor} in {f'{k} of the {n} shared rounds' if k else 'no shared round'}"
    if not _whole_range(o) and rules.paired_leads(o.paired, o.paired_line):  # more rounds than the whole range
        text += ", and each orientation's interval of the median past it"
    return text


def _undecided_why(o, label) -> str:
    """Why rounds that do not decide the lead leave it: a clause that ends before NOT_DECIDED. Where no round clears
    the line, that alone is said, not "not every round clears it"."""
    a, joint, lead = label(o.first), paired_joint(o), o.paired_leader
    if o.tie_against is not None:
        return (f"{a} {joint}, clear of the line against {label(o.second)} but not against "
                f"{label(o.tie_against)}, which runs the very same kernels, and a tie is not split")
    if lead is None and not _cleared(o):
        return (f"{a} must clear {paired_line(o)} by more than {rules.TIME_FLOOR_PCT:g}% to lead; no round clears "
                "it")
    if lead is None:
        return f"{a} {joint}; " + ("not every round clears it" if _whole_range(o)
                                   else "not every orientation's interval of the median clears it")
    return (f"{a} {joint}; past the line with {label(lead)} ahead, "
            + ("but the kernel sums put the other call ahead" if lead == o.first else "against the medians' order"))


def paired(o, label) -> str:
    """Two calls timed in the same rounds, round by round (rules.paired_leads): where the paired rule decides the lead
    (leads.Orders.decided_by_rounds), "A was ahead in all 5 shared rounds, each past the 1.001× line (identical
    kernels' per-round noise here) by more than 1%, so the shared rounds decide it (B over A, round by round: forward
    rounds ...; reversed rounds ...)"; elsewhere the per-round ratios, why they do not decide, and NOT_DECIDED;
    "" where the two shared no rounds or too few (rules.PAIRED_MIN_ORIENTATION_ROUNDS)."""
    if o.paired is None:
        return ""
    a, b, n = label(o.first), label(o.second), len(o.per_round)
    ratios = paired_rounds(o)
    if o.decided_by_rounds:
        # the calls in the bracket by their short names, which carry no brackets
        return (f"{a} was {paired_joint(o)}, so the shared rounds decide it ({short_label(o.second)} over "
                f"{short_label(o.first)}, round by round: {ratios})")
    return f"{b} over {a} in the {n} rounds the two shared, round by round: {ratios}; {_undecided_why(o, label)}, " \
           f"{NOT_DECIDED}"
