"""What a call that needs a BlockMask pays at a new mask layout (gen.analysis.mask_cost), in words: after how many calls
with one layout the build is repaid against the fastest call that needs none, and, for packed documents, which call a
loop that packs every batch anew should make, as What to call names it by
mask_cost.MASKLESS_WHERE_SHARED (MASKLESS_RULE says that rule on the methodology's table).
"""

from __future__ import annotations

from gen.analysis import rules
from gen.model import schema
from gen.report.words.common import join_and, label, one_timing, short_label, times, us
from gen.report.words.first_calls import secs
from gen.report.words.methodology import COMPILED_AHEAD_BRIEF
from gen.report.words.orders import state, sum_gain
from gen.report.words.sum_clocks import apart, possessive, short_lead, two_clocks

# packing as training does it: a new document layout every batch, so a new BlockMask every step
EVERY_BATCH = "a loop that packs each batch anew"

# how gen.capture.modules times the build: once, when the call is set up, by the host's
# clock between two syncs, with create_block_mask left uncompiled; builds of one size vary about 2x across points
BUILD_TIMED = "one timing of an uncompiled create_block_mask"
BUILD_ONCE = "timed once"  # the break-even rests on that one timing

# mask_cost.MASKLESS_WHERE_SHARED, on the methodology's rules table
MASKLESS_RULE = ("a loop that packs each batch anew builds the BlockMask once a step, and every call of that step "
                 "(every layer's) shares it, so which call costs less turns on a step's calls against the break-even "
                 "(the build over the mask call's lead a call); where packed documents' first rank is shared as run "
                 "by a call that builds a BlockMask and one that needs none (varlen_attn with cu_seqlens), the mask "
                 "call's lead is within noise, so the one that needs none is named, provided it too clears that "
                 "gain, and the mask call past the break-even. A mask call that leads decidedly as run stays named, "
                 "with the call that needs none beside it for a step of fewer calls than the break-even")

# the measures a lead is read by (gen.analysis.mask_cost.MaskCost.leads_ms), as a sentence names them
_MEASURES = {"as run": "whole medians", "kernel sum": "kernel sums", "forward rounds": "forward-round medians",
             "reversed rounds": "reversed-round medians"}


def _layout(mask: str | None) -> str:
    return "document layout" if mask == schema.Mask.DOCUMENT else "mask"


def _rough(n: float) -> str:
    """A break-even count rounded as the data allows: to ten below 100, to one figure from 100 on (80, 300)."""
    if n < 10:
        return f"{n:.0f}"
    step = 10 if n < 100 else 10 ** (len(str(int(n))) - 1)
    return f"{max(step, round(n / step) * step):,.0f}"


def fewer_than(m) -> str | None:
    """The calls a step below which the maskless call is the cheaper by every lead the set holds: the break-even's low
    end, rounded as _rough rounds it; one number wherever a step's calls are counted (What to call and the first
    screen's Call cell); None where a measure puts the mask call level or behind."""
    r = m.repay_range
    return _rough(r[0]) if r is not None else None


def calls_range(m) -> str | None:
    """The break-even as the leads make it: "roughly 80–300"; "about 90" where the ends round alike; None where a
    measure puts the call level or behind."""
    r = m.repay_range
    if r is None:
        return None
    lo, hi = _rough(r[0]), _rough(r[1])
    if lo == hi:  # the rounding would hide the spread the leads make ("40" for 39-44)
        lo, hi = f"{r[0]:.0f}", f"{r[1]:.0f}"
        return f"about {lo}" if lo == hi else f"{lo}–{hi}"
    return f"roughly {lo}–{hi}"


def more_than(m) -> str | None:
    """The calls a step above which the mask call is the cheaper by every lead the set holds: the break-even's top
    end, as calls_range rounds it ("300" of "roughly 80–300"); None where a measure puts the mask call level or
    behind."""
    r = m.repay_range
    if r is None:
        return None
    hi = _rough(r[1])
    return f"{r[1]:.0f}" if _rough(r[0]) == hi else hi


def _lead_span(m) -> str:
    xs = sorted(x for _, x in m.leads_ms)
    return us(xs[0]) if len(xs) == 1 or us(xs[0]) == us(xs[-1]) else f"{us(xs[0])} to {us(xs[-1])}"


def _two_times(m) -> str:
    """`other`'s time a call against the mask call's, by the measure its lead is read by (MaskCost.pair_ms), so the
    lead that follows is their difference: "takes 1.307 ms a call against 1.100 ms"; where the two were timed apart,
    the kernel sums with their clocks: "takes 6.460 ms a call by kernel sum against FlexAttention's 4.690 ms (at
    1860 against 1980 MHz; the two were timed apart, so only the sums count)"."""
    if m.sums_only_ms is None:
        return f"takes {us(m.other_ms)} a call against {us(m.call_ms)}"
    mine, theirs = m.sums_only_ms
    a, b = m.sums_only_mhz
    return (f"takes {us(theirs)} a call by kernel sum against {possessive(short_label(m.variant))} {us(mine)} "
            f"({two_clocks(b, a)}; the two were timed apart, so only the sums count)")


def repay(m, mask: str | None, sums_said: bool = False) -> str:
    """How many calls with one layout repay one build, from every lead the set holds.
    `sums_said`: the sentence has printed the two kernel sums and their clocks already (_two_times), so the lead
    needs no bracket of its own."""
    layout = _layout(mask)
    n = calls_range(m)
    if n is None:
        behind = [_MEASURES.get(by, by) for by, x in m.leads_ms if x <= 0]
        return (f"by its {join_and(behind)} {short_label(m.variant)} is not ahead of {short_label(m.other)}, so no "
                f"number of calls with one "
                f"{layout} surely repays the build")
    by = join_and([_MEASURES.get(b, b) for b, _ in m.leads_ms])
    if m.sums_only_mhz is not None:  # timed apart: the kernel sums alone, with their clocks
        by += f" alone, {two_clocks(*m.sums_only_mhz)}, as the two were timed apart"
    how = "" if sums_said and m.sums_only_ms is not None else f" (by its {by})"
    # the lead named by its call: "its" read as the maskless call's, the noun before it
    return (f"{short_label(m.variant)}'s lead of {_lead_span(m)} a call{how} repays one build, "
            f"{BUILD_ONCE}, only after {n} calls with one {layout}")


def mask_cost_line(m, mask: str | None, who: str = "Its") -> str | None:
    """The named call's build against the maskless call; None where there is no build or no call that needs none to
    weigh it by. `who`: whose build, as the sentence opens ("Its", or a call's label with "'s")."""
    if m is None or m.other is None:
        return None
    build, other = one_timing(m.build_ms), label(m.other)
    if m.calls_to_repay is None:  # not faster than the call that needs no mask: nothing repays the build
        return (f"{who} BlockMask took {build} to build ({BUILD_TIMED}); {other} needs none and is no slower, as it "
                f"{_two_times(m)}. Call {short_label(m.other)} wherever the {_layout(mask)} changes.")
    text = (f"{who} BlockMask took {build} to build ({BUILD_TIMED}); {other}, which needs none, {_two_times(m)}: "
            f"{repay(m, mask, sums_said=True)}")
    if mask == schema.Mask.DOCUMENT:
        text += f". {per_step(m)}"
    return text + "."


def per_step(m) -> str:
    """How a loop that packs each batch anew pays the build, in the one wording every set's packed-documents page
    gives (the paired page said "the build is paid every step" without that every layer
    shares it): one mask serves every call of a step with that layout (each layer's, forward and backward), so the
    break-even counts a step's calls, not steps: "A loop that packs each batch anew builds it every step, once for
    all of that step's calls (every layer's shares it): with fewer than 40 such calls a step, call varlen_attn"."""
    n = fewer_than(m)
    fewer = f"with fewer than {n} such calls a step" if n is not None else "there"
    return (f"{EVERY_BATCH[0].upper()}{EVERY_BATCH[1:]} builds it every step, once for all of that step's calls "
            f"(every layer's shares it): {fewer}, call {short_label(m.other)}")


def _shared_first(m) -> str:
    """Why What to call names the call that needs none where the two share the first rank as run
    (mask_cost.MASKLESS_WHERE_SHARED), after per_step: the mask call's lead as run is within noise, so it is named
    only past the break-even."""
    top = more_than(m)
    where = f"makes more than about {top} calls" if top is not None else "makes more calls than the break-even"
    return (f"; {possessive(short_label(m.variant))} lead as run is within noise here (the two share the first "
            f"rank), so What to call names {short_label(m.other)}, and {short_label(m.variant)} only where a step "
            f"{where}")


def alternative_line(m, o, mask: str | None) -> str | None:
    """Where What to call names the call that needs no mask (mask_cost.MASKLESS_WHERE_SHARED): the mask call beside it,
    its standing (`o`: their Orders, the mask call first) and when it is the better call. None elsewhere."""
    if m is None or m.other is None or o is None:
        return None
    alt = label(m.variant)
    ks = (f", and is faster by kernel sum, {short_lead(o, times(o.kernel_sum))}"
          if o.kernels_leader == o.first and o.kernel_sum is not None else "")
    return (f"{alt} shares the first rank with it as run ({us(m.call_ms)} against {us(m.other_ms)}){ks}, but needs a "
            f"BlockMask for each new {_layout(mask)}: {one_timing(m.build_ms)} to build ({BUILD_TIMED}); "
            f"{repay(m, mask)}. {per_step(m)}{_shared_first(m)}.")


def _past_clock(o) -> str:
    """The kernel-sum lead past its leader's higher clock, short, for the first screen, with both clocks (a percentage
    alone left the reader to the † note): " (1.05× past its clock 5.4% higher, 1950 against 1845 MHz)", the gap in
    the one form and precision every gap takes (sum_clocks.apart, clock_against); "" where the leader's sums ran at no
    higher clock."""
    a, b = o.first_ks_mhz, o.second_ks_mhz
    left = rules.clock_left(o.kernel_sum, a, b)
    if left is None or a <= b:
        return ""
    return f" ({times(left)} past its clock {apart(a, b)} higher, {a:.0f} against {b:.0f} MHz)"


def alternative_short(m, o, mask: str | None) -> str | None:
    """The first screen's cell where What to call names the call that needs no mask: short, brackets one deep; the rest
    sits in What to call."""
    if m is None or m.other is None or o is None:
        return None
    alt = short_label(m.variant)
    ks = (f"; {alt} is {times(o.kernel_sum)} faster by kernel sum{_past_clock(o)}"
          if o.kernels_leader == o.first and o.kernel_sum is not None else f"; {alt}")
    n = calls_range(m)
    repaid = f", repaid after {n} calls" if n is not None else ""
    return (f"within noise of {alt} as run ({us(m.other_ms)} against {us(m.call_ms)}){ks} but builds a "
            f"{one_timing(m.build_ms)} BlockMask per layout{repaid}")


def not_the_call(m, o, mask: str | None) -> str | None:
    """Under the decision chart, why the mask call What to call names the call that needs none before is not the call
    (orders.not_the_call's words for its standing, then its build and the break-even in place of a bar it never
    faced): "within noise as run; 1.11× by kernel sum (…); builds a 12.6 ms BlockMask per layout, repaid after roughly
    80–300 calls a step"."""
    if m is None or m.other is None or o is None:
        return None
    said = f"{state(o)} as run"
    if o.kernels_leader == o.first and o.kernel_sum is not None:
        said += f"; {short_lead(o, sum_gain(o.kernel_sum) + ' by kernel sum')}"
    n = calls_range(m)
    return said + f"; builds a {one_timing(m.build_ms)} BlockMask per {_layout(mask)}" + (
        f", repaid after {n} calls a step" if n is not None and mask == schema.Mask.DOCUMENT else
        f", repaid after {n} calls with one {_layout(mask)}" if n is not None else "")


def _anew(m, mask: str | None) -> bool:
    return m is not None and m.other is not None and mask == schema.Mask.DOCUMENT and m.reversed_per_layout


def new_layout_call(m, mask: str | None) -> str | None:
    """The first screen's Call cell's second call, where What to call names the mask call (it leads decidedly as run)
    but its build reverses the order for a batch packed anew, as this scenario packs it: the Call cell names both, so
    the row does not name one call and tell the scenario's reader to make the other."""
    if not _anew(m, mask):
        return None
    # a step's calls share one build: the cell says up to how many the maskless call stays the cheaper, as What to
    # call does
    n = fewer_than(m)
    return f"{label(m.other)} where each batch is packed anew" + (f" and a step makes fewer than {n} calls"
                                                                  if n is not None else "")


def new_layout_short(m, mask: str | None, o=None) -> str | None:
    """The first screen's Holds cell beside new_layout_call: the mask call's lead as run, its kernel sums' beside it
    where they put it ahead (o: the pair's Orders, the mask call first; the as-run windows may run at different
    clocks), its build and the break-even as the leads make it (calls_range); None
    elsewhere."""
    if not _anew(m, mask):
        return None
    n = calls_range(m)
    repaid = f": repaid after {n} calls with one layout" if n is not None else ""
    ks = (f", {times(o.kernel_sum)} by kernel sum{_past_clock(o)}"
          if o is not None and o.kernel_sum is not None and o.kernel_sum > 1 else "")
    return (f"{short_label(m.variant)} {times(m.other_ms / m.call_ms)} faster a call as run ({us(m.call_ms)} against "
            f"{us(m.other_ms)}){ks}, but its BlockMask takes {one_timing(m.build_ms)} per layout ({BUILD_TIMED})"
            + repaid)


def scenario_note(costs, fastest: str, runner_up: str | None, mask: str | None, named: str | None = None) -> str | None:
    """Under a packed-documents verdict's table: the BlockMask build of the fastest call (as What to call says it, or,
    where it names the call that needs none, `named`, as the alternative to it), or of the next call where the fastest
    needs none (its order stands, and a new layout every batch widens it)."""
    if mask != schema.Mask.DOCUMENT:
        return None
    mine = {m.variant: m for m in costs}
    if fastest in mine:
        m = mine[fastest]
        if named is not None and named == m.other:
            return (f"{label(fastest)}'s BlockMask took {one_timing(m.build_ms)} to build ({BUILD_TIMED}); "
                    f"{label(m.other)} needs none; {repay(m, mask)}. {per_step(m)}{_shared_first(m)}.")
        return mask_cost_line(m, mask, f"{label(fastest)}'s")
    m = mine.get(runner_up) if runner_up is not None else None
    if m is None or m.other != fastest:
        return None
    # the build is paid once a step, on top of each call, so it only widens the lead
    other = short_label(fastest)
    return (f"{label(m.variant)}, the next call, is slower and needs a BlockMask besides: {one_timing(m.build_ms)} to "
            f"build ({BUILD_TIMED}). {EVERY_BATCH[0].upper()}{EVERY_BATCH[1:]} pays it once a step, on top of "
            f"{us(m.call_ms)} a call against {other}'s {us(m.other_ms)}: {other}'s lead only grows.")


def first_costs(variant: str, compile_s: float | None, ahead: bool, merged: bool, m, mask: str | None) -> str | None:
    """Under a verdict's table where What to call names a call that builds a BlockMask outside packed documents (a
    sliding window, whose page gave neither cost there): its first call's compile and its build with the calls that
    repay it, in one sentence, as the packed-documents page states its build there; None without a build."""
    if m is None or m.build_ms is None:
        return None
    where = " in a later capture call, merged" if merged else (f", {COMPILED_AHEAD_BRIEF}" if ahead else "")
    text = (f"{label(variant)}'s first call at this configuration compiles ({secs(compile_s)}{where}); its"
            if compile_s is not None else f"{label(variant)}'s")
    n = calls_range(m) if m.other is not None else None
    repaid = f", repaid after {n} calls with one {_layout(mask)}" if n is not None else ""
    return f"{text} BlockMask takes {one_timing(m.build_ms)} to build ({BUILD_TIMED}){repaid}."
