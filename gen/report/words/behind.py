"""The sweep's sizes past the verdicts' points where another call is decidedly faster than the first screen's
default (gen.analysis.advice.Advice.behind_at) -> one line: the sizes, the call, the ratio, the clocks, and the measure
that decides each (as run, the shared rounds, or the kernel sums); then those not decided, with their orders."""

from __future__ import annotations

from gen.analysis import advice as advice_mod
from gen.analysis import rules
from gen.report.words import orders as orders_words
from gen.report.words import round_by_round
from gen.report.words.common import intervals, join_and, label, short_label, times
from gen.report.words.places import place_of as _place_of
from gen.report.words.sentences import note_sentences


def short_count(n: int) -> str:
    """A count of tokens or keys as the pages write it: 131072 as 128k, 1000 as 1,000."""
    return f"{n // 1024}k" if n % 1024 == 0 and n >= 1024 else f"{n:,}"


def behind_line(a: advice_mod.Advice) -> str | None:
    """The sweep points past the verdicts' where another call is decidedly faster than the default (rules.lead_decided),
    with the clocks they ran at; then those whose as-run intervals are apart but which the noise of identical kernels
    or the kernel sums leave not decided, with the orders: the default's claims hold at the verdicts' points only."""
    rest = [b for b in a.behind_at if not b.at_verdict]
    if not rest:
        return None
    behind = [b for b in rest if b.decided]
    led = [b for b in rest if b.by_kernels]
    open_ = [b for b in rest if not b.decided and not b.by_kernels]
    text = ""
    by_sums = [b for b in behind if b.orders is not None and b.orders.sums_decide]
    by_rounds = [b for b in behind if b not in by_sums and b.orders is not None and b.orders.decided_by_rounds]
    as_run = [b for b in behind if b not in by_sums and b not in by_rounds]
    if behind:
        # sentences, not one chain of colons (the H200 set's had no main clause): the as-run leads
        # with their intervals, then what the kernel sums say of them, then the leads the rounds or the sums decide
        text = f"Past the verdicts' points, {label(a.default)} is not first at every size."
        if as_run:
            text += (" At " + "; at ".join(_behind_group(a, bs, clause=True) for bs in _groups(as_run).values())
                     + f", the {intervals(*(x for b in as_run for x in b.spreads))} apart and beyond the as-run "
                     "noise of identical kernels there. " + _sums_against(as_run))
        if rest_ := [_by_rounds(a, b) for b in by_rounds] + [_by_sums(b) for b in by_sums]:
            joined = "; ".join(rest_)
            text += " " + joined[0].upper() + joined[1:] + "."
        text = text[:-1] + " (each size on its scenario page)."
    if open_:
        lead = "Not decided past the verdicts' points" if not behind else "Not decided"
        # each size's orders one clause a sentence after it: in one running clause they chained colons and nested a
        # bracket of clauses
        text += (" " if text else "") + (
            f"{lead}, where another call is faster as run but by no more than identical kernels read apart at "
            f"that point, or the kernel sums (their windows within {rules.CLOCK_GAP_PCT:g}% in clock, or past the "
            "gap's reach) put "
            f"{short_label(a.default)} ahead" + (", or the two were timed apart" if any(
                b.orders is not None and b.orders.timed_apart for b in open_) else "")
            + " (each size on its scenario page). "
            + " ".join(" ".join(note_sentences(f"{_place_of(b.scenario, b.mode)} at {_size(b, False)}",
                                               orders_words.brief_clauses(b.orders, label)))
                       for b in open_))
    if led:  # the status the first screen counts as behind at a verdict's point (FP8 prefill)
        text += (" " if text else "") + (
            ("Also past them" if text else "Past the verdicts' points") + f", {short_label(a.default)} is "
            f"{orders_words.BEHIND_BY_KERNELS}: "
            + "; ".join(f"{_place_of(b.scenario, b.mode)} at {_size(b, False)} ("
                        + ", ".join(x for x in (orders_words.kernels_ahead(b.orders, label),
                                                orders_words.both_orientations(b.orders)) if x)
                        + ")" for b in led) + ".")
    return text


def _sums_against(bs) -> str:
    """What the kernel sums said of decided as-run leads, as sentences: not against, or set aside where a call's sum
    and its graph replay disagree (Orders.off_graph), with what the set-aside sums would
    have said (Orders.kernel_sum_aside: at the H200 set's 256 tokens they would put SDPA 1.15× ahead,
    the other way from the as-run lead)."""
    off = [b for b in bs if b.orders is not None and b.orders.off_graph]
    if not off:
        return "The kernel sums are not against them."
    said = []
    for b in off:
        o, k = b.orders, b.orders.kernel_sum_aside
        would = ""
        if k is not None:
            who = o.first if k >= 1 else o.second
            other_way = who != b.fastest
            would = (f"would put {short_label(who)} {times(max(k, 1 / k))} ahead"
                     + (", the other way," if other_way else "") + " but ")
        why = "; ".join(orders_words.sum_off_graph(x, label(x.variant))
                        + ("" if member == x.variant else f"; and {label(member)} runs the same kernels")
                        for member, x in dict(o.off_graph).items())
        where = "There" if len(bs) == 1 else f"At {_place_of(b.scenario, b.mode)} at {_size(b, False)}"
        said.append(f"{where} the kernel sums {would}decide "
                    f"nothing: {why}. So the as-run order alone is read there.")
    return " ".join(said) + (" Elsewhere the kernel sums are not against them." if len(off) < len(bs) else "")


def _by_sums(b) -> str:
    """A sweep point where the kernel sums decide the default's place (Orders.sums_decide): they lead,
    the as-run ratio beside them with why it decides nothing."""
    o = b.orders
    why = "timed apart" if o.timed_apart else "within identical kernels' noise"
    return (f"{_place_of(b.scenario, b.mode)} at {_size(b, False)}: {orders_words.kernels_ahead(o, label)}, which "
            f"decides the order (as run {times(b.ratio)}, {why})")


def _by_rounds(a: advice_mod.Advice, b) -> str:
    """A sweep point where the shared rounds decide the default's place (rules.paired_leads), its intervals not
    apart: the rounds' evidence, not the intervals'."""
    return _behind_group(a, [b]) + "; " + round_by_round.paired(b.orders, label)


def _groups(bs) -> dict:
    groups: dict = {}
    for b in bs:
        groups.setdefault((b.scenario, b.mode, b.fastest), []).append(b)
    return groups


def _size(b, mixed: bool) -> str:
    unit = " keys" if b.q_len == 1 else " tokens"
    # head dims said for every size where the group mixes them ("512 and 1k tokens (head dim 128)": both at 128?)
    return ((short_count(b.kv_len) if b.q_len in (1, b.kv_len) else f"{b.q_len:,} × {short_count(b.kv_len)}") + unit
            + (f" (head dim {b.point_head_dim})" if mixed and b.point_head_dim
               else f" (head dim {b.head_dim})" if b.head_dim else ""))


def _behind_group(a: advice_mod.Advice, bs, clause: bool = False) -> str:
    """One scenario's sizes where one call is decidedly ahead of the default, with the windows' clocks."""
    sc, mode, x = bs[0].scenario, bs[0].mode, bs[0].fastest
    mixed = len({b.point_head_dim for b in a.behind_at if (b.scenario, b.mode, b.fastest, b.decided, b.at_verdict)
                 == (sc, mode, x, True, False)}) > 1  # its sizes decided by kernel sum, said apart, too
    sizes = join_and(_size(b, mixed) for b in bs)
    lo, hi = min(b.ratio for b in bs), max(b.ratio for b in bs)
    ratio = times(lo) if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}×"
    # `clause`: "the article's shape at 256 tokens, FlexAttention (compiled) is 1.02× faster", for a sentence
    text = (f"{_place_of(sc, mode)} at {sizes}, {label(x)} is {ratio} faster" if clause
            else f"{_place_of(sc, mode)} at {sizes}: {label(x)} {ratio} faster")
    clocks_ = [(b.default_mhz, b.fastest_mhz) for b in bs if b.default_mhz and b.fastest_mhz]
    if clocks_ and any(abs(d - f) >= 1 for d, f in clocks_):
        # each clock named by its call ("SDPA at 1939 MHz against 1980 MHz" left the
        # call at 1980 MHz unnamed)
        fx, dx = short_label(x), short_label(a.default)
        fx, dx = (label(x), label(a.default)) if fx == dx else (fx, dx)  # two FlexAttentions: their full names
        text += (f" as run ({fx} at " + join_and(f"{f:.0f}" for _, f in clocks_)
                 + f" MHz against {dx}'s " + join_and(f"{d:.0f}" for d, _ in clocks_) + " MHz)")
    return text
