"""How an exception of What to call stands over its scenario's sweep (gen.analysis.sweep_turns), in words: where the
default call is decidedly faster at other sizes, with the kernel sums first where the as-run clocks may flatter it
("with FlashAttention-4's clock the higher as run, 3.1% apart, by kernel sum 1.15×" had no
verb), how far the exception holds or ties, and the two calls at every other head dim the sweep ran (the article's
paragraph said nothing of head dim 128, where the two stay within a few percent)."""

from __future__ import annotations

from gen.analysis import advice as advice_mod
from gen.analysis import rules
from gen.analysis.sweep_turns import clocks_may_flatter
from gen.report.words import orders as orders_words
from gen.report.words.behind import short_count
from gen.report.words.common import join_and, label, short_label, times, us
from gen.report.words.sum_clocks import apart, clock_against, higher_clock, lower_clock, possessive, short_lead


def reversed_line(a: advice_mod.Advice, e: advice_mod.Exception_) -> str:
    """Where the exception's own scenario, at other sizes, turns the other way: the sizes where
    the default is decidedly faster, with both times; where those ran at clocks that may flatter the faster call, the
    kernel sums first and the as-run times after (sums_first), or, for a chunk size timed at several key lengths, the
    kernel sums beside them (clock_fair), outside the as-run bracket so no bracket nests.
    Where the prefill sweep has the exception's call decidedly ahead at other sizes too, or the two tied, those are
    named (never "at 1k only" where SDPA also leads at 256 and 512 and ties at 2k). Then the
    other head dims the sweep ran (other_dims_line)."""
    others = other_dims_line(a, e)
    if not e.reversed_at:
        return f" {others}" if others else ""
    by: dict = {}
    fair = e.reversed_orders or (None,) * len(e.reversed_at)
    for r, o in zip(e.reversed_at, fair):
        by.setdefault(r.q_len, []).append((r, o))
    parts, dim = [], f" (head dim {e.reversed_head_dim})" if e.reversed_head_dim else ""
    for q, rows in by.items():
        ratios = [r.variant_ms / r.default_ms for r, _ in rows]
        lo, hi = min(ratios), max(ratios)
        ratio = times(lo) if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}×"
        square = all(r.kv_len == q for r, _ in rows)  # prefill at its own length: no chunks
        what = (f"at {join_and(short_count(r.kv_len) for r, _ in rows)} tokens{dim}" if square
                else f"with {q:,}-query chunks{dim}" if q > 1 else f"with single queries{dim}")
        r, o = rows[0]
        if square and len(rows) == 1 and (
                first := sums_first(o, r.default_ms, r.variant_ms, r.default_mhz, r.variant_mhz)):
            parts.append(f"{what} {short_label(a.default)} is {first}")
            continue
        said = [f"{_clocked(r.default_ms, r.default_mhz)} against {_clocked(r.variant_ms, r.variant_mhz)}"
                + ("" if square else f" at {short_count(r.kv_len)} keys") for r, o in rows]
        sums = [("" if square or len(rows) == 1 else f"at {short_count(r.kv_len)} keys ") + f
                for r, o in rows if (f := clock_fair(o, r.default_mhz, r.variant_mhz))]
        as_run = " as run" if sums else ""
        parts.append(f"{what} {short_label(a.default)} is {ratio} faster{as_run} (" + join_and(said) + ")"
                     + (f"; {join_and(sums)}" if sums else ""))
    at_dim = f" at head dim {e.reversed_head_dim}" if others and e.reversed_head_dim else ""
    return f" {_held_line(a, e)}{'; '.join(parts)}; use {short_label(a.default)} there{at_dim}." + (
        f" {others}" if others else "")


def _held_line(a: advice_mod.Advice, e: advice_mod.Exception_) -> str:
    """How far the exception holds over the sweep, before the sizes where it turns: "SDPA leads at 256 and 512
    tokens too, and the two tie at 2k (head dim 64); FlashAttention-4 leads from 4k tokens: "; "This holds at 1k
    only: " where no other size holds it or ties."""
    sq = e.kv_len is not None and not e.q_len
    if not sq or not (e.held_at or e.tied_at):
        size = (f"for {e.q_len:,}-query chunks" if e.q_len
                else f"at {short_count(e.kv_len)} only" if e.kv_len else "at the verdict's point only")
        return f"This holds {size}: "
    dim = f" (head dim {e.reversed_head_dim})" if e.reversed_head_dim else ""
    held = sorted(p.kv_len for p in e.held_at)
    tied = sorted(p.kv_len for p in e.tied_at)
    text = (f"{short_label(e.variant)} leads at {join_and(short_count(kv) for kv in held)} tokens too" if held
            else f"{short_label(e.variant)} leads at {short_count(e.kv_len)} only")
    if tied:
        text += f", and the two tie at {join_and(short_count(kv) for kv in tied)}"
    turn = sorted(r.kv_len for r in e.reversed_at)
    start = "from" if turn[0] > max(held + tied + [e.kv_len]) else "at"
    return text + f"{dim}; {short_label(a.default)} leads {start} {short_count(turn[0])} tokens: "


def _sums(o) -> str:
    """The two kernel sums with their clocks, the as-run leader's first, and what the sums' own clocks explain:
    "2.007 ms against 2.306 ms, both at 1980 MHz"; "7.633 ms at 1890 MHz against 8.887 ms at 1965 MHz"."""
    note = lower_clock(o) or higher_clock(o, short_label, named=False)
    who = short_label(o.first if o.kernel_sum >= 1 else o.second)
    note = f", {who} {note}" if note.startswith(("at ", "against ")) else (f", {note}" if note else "")
    if o.first_ks_mhz and f"{o.first_ks_mhz:.0f}" == f"{o.second_ks_mhz or 0:.0f}":
        return f"{us(o.first_ks_ms)} against {us(o.second_ks_ms)}, both at {o.first_ks_mhz:.0f} MHz{note}"
    return f"{_clocked(o.first_ks_ms, o.first_ks_mhz)} against {_clocked(o.second_ks_ms, o.second_ks_mhz)}{note}"


def sums_first(o, d: float, x: float, a_mhz: float | None, b_mhz: float | None) -> str:
    """One size where the as-run clocks may flatter the faster call (clocks_may_flatter) and its kernel sums put it
    ahead too: the kernel sums first, then the as-run times with whose clock ran higher:
    "1.15× faster by kernel sum (2.007 ms against 2.306 ms, both at 1980 MHz) and 1.20× as run (2.020 ms at 1917 MHz
    against 2.430 ms at 1857 MHz, FlashAttention-4's clock 3.1% the higher)"; "" elsewhere."""
    if not clocks_may_flatter(a_mhz, b_mhz) or o is None or o.kernel_sum is None or o.kernel_sum < 1 or not (
            o.first_ks_ms and o.second_ks_ms):
        return ""
    whose = clock_against(a_mhz, b_mhz, possessive(short_label(o.first)), possessive(short_label(o.second)))
    return (f"{times(o.kernel_sum)} faster by kernel sum ({_sums(o)}) and {times(x / d)} as run ({_clocked(d, a_mhz)} "
            f"against {_clocked(x, b_mhz)}, {whose})")


def clock_fair(o, a_mhz: float | None, b_mhz: float | None) -> str:
    """Beside an as-run ratio whose two windows ran at clocks past rules.CLOCK_GAP_PCT, or within it but with the
    faster call (the default, `a_mhz`) at the higher clock (8k's 1.20× as run at 1917
    against 1857 MHz is 1.15× by kernel sum, both at 1980 MHz), the kernel sums (o: the pair's leads.Orders, the
    as-run leader first), one bracket deep, the gap in the one form every gap takes (sum_clocks.clock_against):
    "FlashAttention-4's clock 8.6% higher, so by kernel sum 1.16× (7.634 ms at 1890 MHz against 8.887 ms at 1965 MHz,
    FlexAttention's clock 4.0% higher)"; "" where a clock is not recorded or the clocks cannot flatter the lead."""
    if not clocks_may_flatter(a_mhz, b_mhz):
        return ""
    if o is not None:  # the one form a clock gap takes (sum_clocks.clock_against): the higher side named
        whose = clock_against(a_mhz, b_mhz, possessive(short_label(o.first)), possessive(short_label(o.second)))
    else:
        whose = f"clocks {apart(a_mhz, b_mhz)} apart"
    text = (f"{whose}, so by kernel sum " if rules.clocks_apart(a_mhz, b_mhz) else
            f"with {whose} as run, by kernel sum ")
    if o is not None and o.off_graph:
        return text + f"nothing ({orders_words.off_graph(o, short_label)})"
    if o is None or o.kernel_sum is None or not o.first_ks_ms or not o.second_ks_ms:
        return text + "not measured"
    ratio = times(o.kernel_sum) if o.kernel_sum >= 1 else times(1 / o.kernel_sum) + " the other way"
    return text + f"{ratio} ({_sums(o)})"


def _clocked(ms: float, mhz: float | None) -> str:
    """A time with its window's SM clock, as the verdicts give it, or "clock not recorded"."""
    return f"{us(ms)} at {mhz:.0f} MHz" if mhz else f"{us(ms)} (clock not recorded)"


def _by_leader(points, ratio, names) -> list[tuple[str, list[int]]]:
    """(the call a ratio puts ahead, its sizes) in the order met: `ratio(q)`, the exception's call's time over the
    default's at point q (above 1: the default ahead)."""
    out: dict[str, list[int]] = {}
    for q in points:
        out.setdefault(names[0] if ratio(q) >= 1 else names[1], []).append(q.kv_len)
    return list(out.items())


def _ahead(groups) -> str:
    """"SDPA ahead at 1k, FlashAttention-4 at 4k and 16k"."""
    return ", ".join(f"{who}{' ahead' if i == 0 else ''} at {join_and(short_count(kv) for kv in kvs)}"
                     for i, (who, kvs) in enumerate(groups))


def other_dims_line(a: advice_mod.Advice, e: advice_mod.Exception_) -> str:
    """The default and the exception's call at every other head dim the scenario swept (sweep_turns.OtherDim), one
    sentence a head dim: where neither is decidedly faster at any size, how close the two stay as run (and by kernel
    sum, where every size has sums) and which is ahead where: "At head dim 128 neither call leads decidedly at any of
    1k, 4k and 16k tokens: the two stay within 1.04× of each other as run (SDPA ahead at 1k, FlashAttention-4 at 4k
    and 16k) and within 1.06× by kernel sum."; elsewhere which leads where: "At head dim 128, SDPA leads at 1k
    (1.10× as run), and neither leads decidedly at 4k and 16k (within 1.04× as run)."; "" where none was swept."""
    names = (short_label(a.default), short_label(e.variant))
    out = []
    for od in e.other_dims:
        pts = od.points
        if not pts:
            continue
        as_run = [q.variant_ms / q.default_ms for q in pts]
        sizes = join_and(short_count(q.kv_len) for q in pts)
        if not any(q.leader for q in pts):
            groups = _by_leader(pts, lambda q: q.variant_ms / q.default_ms, names)
            text = (f"At head dim {od.head_dim} neither call leads decidedly at "
                    f"{'any of ' if len(pts) > 1 else ''}{sizes} tokens: the two stay within "
                    f"{times(max(max(r, 1 / r) for r in as_run))} of each other as run ({_ahead(groups)})")
            if all(sums := [q.orders.kernel_sum if q.orders is not None else None for q in pts]):
                ks = _by_leader(pts, lambda q: q.orders.kernel_sum, names)
                text += (f" and within {times(max(max(s, 1 / s) for s in sums))} by kernel sum"
                         + (f" ({_ahead(ks)})" if ks != groups else ""))
            out.append(text + ".")
            continue
        said = []
        for lead, who in ((a.default, names[0]), (e.variant, names[1]), (None, None)):
            rs = [max(r, 1 / r) for q, r in zip(pts, as_run) if q.leader == lead]
            if not rs:
                continue
            at = join_and(short_count(q.kv_len) for q in pts if q.leader == lead)
            span = times(min(rs)) if f"{min(rs):.2f}" == f"{max(rs):.2f}" else f"{min(rs):.2f}–{max(rs):.2f}×"
            said.append(f"{who} leads at {at} ({span} as run)" if who else
                        f"neither leads decidedly at {at} (within {times(max(rs))} as run)")
        out.append(f"At head dim {od.head_dim}, {join_and(said)}.")
    return " ".join(out + [x for od in e.other_dims for q in od.points if (x := _third(q, od.head_dim))])


def _third(q, head_dim: int) -> str | None:
    """Where a third call is the fastest by median at a point of another head dim (DimPoint.third), set
    against both calls by the same rules as every pair (Orders.decided: "1.12× ahead" stood
    where the article page calls the pair within noise, and SDPA went unmentioned): "At head dim 128, 16k tokens,
    FlexAttention (FLASH backend) has the lowest median, 12.364 ms as run, but SDPA and FlashAttention-4 are within
    noise of it: SDPA 1.15× behind as run, FlexAttention's clock 9.8% higher, and by kernel sum 1.09×;
    FlashAttention-4 1.12× behind as run, FlexAttention's clock 6.5% higher, and by kernel sum 1.03×. No call leads
    decidedly there."; None elsewhere."""
    if q.third is None:
        return None
    who, ms, pair = q.third.variant, q.third.median_ms, q.third.orders
    ahead = [o for o in pair if o.decided and o.first == who]
    noisy = [o for o in pair if o not in ahead]
    text = (f"At head dim {head_dim}, {short_count(q.kv_len)} tokens, {label(who)} has the lowest median, "
            f"{us(ms)} as run")
    if not ahead:
        text += f", but {join_and(short_label(o.second) for o in noisy)} {'is' if len(noisy) == 1 else 'are'} " \
                "within noise of it"
    else:
        text += f", decidedly ahead of {join_and(short_label(o.second) for o in ahead)}" + (
            f", while {join_and(short_label(o.second) for o in noisy)} {'is' if len(noisy) == 1 else 'are'} within "
            "noise of it" if noisy else "")
    text += ": " + "; ".join(_third_pair(o) for o in pair) + "."
    return text + (" No call leads decidedly there." if not ahead and q.leader is None else "")


def _third_pair(o) -> str:
    """One call against the third (Orders, the third first): its as-run lag with the clock gap of the as-run windows,
    then the kernel sums with their clocks where past the gate (sum_clocks.short_lead): "SDPA 1.15× behind as run,
    FlexAttention's clock 9.8% higher, and by kernel sum 1.09×"."""
    other = short_label(o.second)
    r = o.as_run
    text = f"{other} {times(max(r, 1 / r))} {'behind' if r >= 1 else 'ahead'} as run"
    if o.first_mhz and o.second_mhz:
        text += (" at the same clock" if round(o.first_mhz) == round(o.second_mhz) else
                 f", {clock_against(o.second_mhz, o.first_mhz, possessive(other), possessive(short_label(o.first)))},")
    if o.kernel_sum is not None:
        k = o.kernel_sum
        text += " and by kernel sum " + short_lead(o, f"{times(max(k, 1 / k))}"
                                                   f"{'' if (k >= 1) == (r >= 1) else ' the other way'}")
    return text
