"""The first screen's table of a set's decision in words (gen.report.pages.decision): the default row's standing,
every workload named or counted, and what its gain range is against. Numbers come from the advice and the verdicts;
gen.report.words.decision re-exports these names."""

from __future__ import annotations

from gen.analysis import rules
from gen.model.schema import Mode
from gen.report.words.common import backend as backend_name
from gen.report.words.common import join_and, range_beside, times, us
from gen.report.words.deterministic import lead_measure
from gen.report.words.orders import BEHIND_BY_KERNELS, MEASURE
from gen.report.words.sum_clocks import two_clocks


def _low(title: str) -> str:
    """A title mid-sentence: its capital dropped where the next letter is small ("Packed documents" ->
    "packed documents", "FP8 prefill" stays)."""
    return title[0].lower() + title[1:] if len(title) > 1 and title[1].islower() else title


def workloads(items) -> str:
    """Workloads named mid-sentence by their scenarios' titles, (title, mode) each: inference first, then the
    training ones after "in training:", so that a scenario measured in both modes does not read as named twice: "prefill
    with grouped-query attention and packed documents, and in training: the article's
    shape and deterministic backward"."""
    items = list(items)
    inference = list(dict.fromkeys(_low(t) for t, mode in items if mode != Mode.TRAIN))
    train = list(dict.fromkeys(_low(t) for t, mode in items if mode == Mode.TRAIN))
    if not train:
        return join_and(inference)
    if not inference:
        return f"training: {join_and(train)}"
    return f"{join_and(inference)}, and in training: {join_and(train)}"


def behind_margin() -> str:
    """What a gain under rules.ADVICE_MIN_GAIN means: not enough for the report to name another call."""
    return (f"under the {rules.ADVICE_MIN_GAIN:g}× gain the report asks before it names another call for a workload "
            "(read by the measure that decides the order: as run, or the kernel sums where they decide)")


def keep_default(default: str, ratio: float, by: str) -> str:
    """An exception row keeping SDPA unpinned where the row above's call is decidedly slower, under the bar."""
    return f"keep the default: {default} {times(ratio)} slower{' ' + MEASURE.get(by, by) if by else ''}"


def _loop_where(workload: tuple[str, str]) -> str:
    title, mode = workload
    return _low(title) + (" (training)" if mode == str(Mode.TRAIN) else "")


def loop_keeps(workload: tuple[str, str], gain: float, loop_ratio: float) -> str:
    """A workload ((title, mode)) in the default's row where its GPU gain over SDPA unpinned is under the bar and an
    eager loop calls SDPA (advice.Pick.loop_keeps), for the row's detail: "decode from a
    KV cache at batch 8: 1.03× over SDPA on the GPU, under the 1.2× a second code path asks; in an eager loop call
    SDPA, 2.80× faster"."""
    return (f"{_loop_where(workload)}: {times(gain)} over SDPA on the GPU, under the {rules.ADVICE_MIN_GAIN:g}× a "
            f"second code path asks; in an eager loop call SDPA, {times(loop_ratio)} faster")


def loop_keeps_short(workloads: list[tuple[str, str]]) -> str | None:
    """Those workloads named once on the first screen (the row must stay within it), their
    figures in the detail: "in an eager loop call SDPA for decode from a KV cache at batch 8 and the article's shape
    (training)"; None for none."""
    return f"in an eager loop call SDPA for {join_and([_loop_where(w) for w in workloads])}" if workloads else None


def bar_cleared(cleared: list[str], dense: bool, rest: list[float]) -> str | None:
    """Where the default row's gain over SDPA unpinned reaches rules.ADVICE_MIN_GAIN, the gain a second code path asks,
    and the range of its gains in the row's other workloads, for the first screen (the row
    flagged 2 of the 6 workloads where it gains under the bar), a sentence: "Gains 1.2× or more over SDPA only where
    SDPA gets a dense mask (sliding windows and packed documents); 1.000–1.196× in 6 others."; `cleared`: those
    workloads in a reader's words, `dense`: SDPA got a dense mask in each; None where every gain reaches the bar."""
    if not rest:
        return None
    line = rules.ADVICE_MIN_GAIN
    span = range_beside(min(rest), max(rest), line)
    if not cleared:
        return f"Gains under {line:g}× over SDPA in every workload ({span})."
    where = f"where SDPA gets a dense mask ({join_and(cleared)})" if dense else f"in {join_and(cleared)}"
    return f"Gains {line:g}× or more over SDPA only {where}; {span} in {len(rest)} other{'s' if len(rest) > 1 else ''}."


def loop_cell(gain: str, loop_ms: tuple[float, float]) -> str:
    """An exception row's gain cell where its call is host-bound: the gain an eager loop on this
    host gets beside the GPU's, and why, in one clause (loop_ms: (its eager median, SDPA unpinned's), ms): "2.96× on
    the GPU; 1.38× in an eager loop, where the call is host-bound (131.6 µs against 181.5 µs a call)"."""
    mine, theirs = loop_ms
    # the loop can put SDPA unpinned ahead: then its lead, never a gain below 1×
    loop = (f"{times(theirs / mine)} in an eager loop" if mine <= theirs
            else f"SDPA (backend not pinned) {times(mine / theirs)} faster in an eager loop")
    return f"{gain} on the GPU; {loop}, where the call is host-bound ({us(mine)} against {us(theirs)} a call)"


TIMED_APART = "not decided (timed apart)"  # a pair never in the same rounds: no noise comparison (Orders.timed_apart)


def not_decided(why: str) -> str:
    """A pair the rule leaves not decided, with why (orders.undecided_why): "not decided (timed apart)"."""
    return f"not decided ({why})"


def standing(first: int, total: int, alone, shared, noise: dict, behind, apart: dict | None = None, led=(),
             notes=()) -> str:
    """The default row's condition with every workload named: first outright, first on the
    same kernels as another call, within noise of a named call ({call label: workloads}), not decided against a named
    call ({(call label, why): workloads}), behind ((workload, the faster call's label, its gain or None) each).
    Workloads as `workloads` takes them."""
    parts = [f"ranks first in {first} of {total} workloads"]
    if alone:
        parts.append(f"outright in {workloads(alone)}")
    if shared:
        parts.append(f"sharing the first rank in {workloads(shared)}")
    parts += [f"within noise of {x} in {workloads(ws)}" for x, ws in noise.items()]
    parts += [f"{not_decided(why)} against {x} in {workloads(ws)}" for (x, why), ws in (apart or {}).items()]
    parts += [_led(led)] if led else []
    parts += list(notes)
    for w, faster, gain in behind:
        parts.append(f"behind in {workloads([w])} ({faster} " + (f"{times(gain)} faster, " if gain else "")
                     + f"{behind_margin()})")
    return "; ".join(parts)


def _led(led) -> str:
    """Workloads within noise as run where another call leads by its kernels ((workload, orders.kernels_ahead, the
    pair's Orders) each), and why the default stays named there: the report names another call only where the rule
    decides it faster (by the measure that decides), and by at least rules.ADVICE_MIN_GAIN. The bar is said only
    beside a kernel-sum ratio taken at one clock: one whose leader ran the lower clock is a floor on its lead
    (Orders.kernel_sum_least), and the overlap as run is reason enough (cuDNN FP8's 1.195× at a 12% lower clock read
    "under the 1.2×")."""
    line = f"{rules.ADVICE_MIN_GAIN:g}×"

    def why(o):
        at = f" {two_clocks(o.first_mhz, o.second_mhz)}" if o.first_mhz and o.second_mhz else ""
        noise = f"within noise as run, {times(o.as_run)}{at}, so no rule decides it faster"
        if o.sums_under_bar:
            return noise if o.kernel_sum_least else f"under the {line} the first screen asks; and {noise}"
        return f"{noise}, and the report names another call only where the rule decides it faster, by at least {line}"
    return f"{BEHIND_BY_KERNELS} in " + join_and(
        f"{workloads([w])} ({x}; {why(o)})" if o is not None and o.as_run else f"{workloads([w])} ({x})"
        for w, x, o in led)


def standing_short(first: int, total: int, counts, behind, led=()) -> str:
    """The default row's standing in counts ((n, "outright") ...), with the workloads where it is behind named
    (the first screen): behind by kernel sum (`led`) first, then as run; short at 390 px, the ratios of the kernel
    sums and of several workloads are in the folded detail (standing)."""
    text = f"first in {first} of {total} workloads (" + ", ".join(f"{n} {w}" for n, w in counts if n) + ")"
    where = [f"{workloads([w for w, *_ in led])} (by kernel sum)"] if led else []
    if len(behind) == 1:
        w, faster, gain = behind[0]
        where.append(f"{workloads([w])} ({faster} " + (f"{times(gain)} faster)" if gain else "faster)"))
    elif behind:
        gains = [g for _, _, g in behind if g]
        span = (times(min(gains)) if f"{min(gains):.2f}" == f"{max(gains):.2f}" else
                f"{min(gains):.2f}–{max(gains):.2f}×") if gains else None
        where.append(f"{len(behind)} more" + (f" (another call {span} faster)" if span else ""))
    return text + (f"; behind in {join_and(where)}" if where else "")


def gain_note(dense, loss) -> str:
    """What the default row's gain range is against: SDPA given a dense mask where it was,
    and the workloads where the gain is under 1× (the default is slower there)."""
    parts = []
    if dense:
        parts.append(f"against SDPA given a dense boolean mask in {workloads(dense)}, scoring every pair")
    if loss:
        parts.append(f"under 1×: slower than SDPA, in {workloads(loss)}")
    return f" ({'; '.join(parts)})" if parts else ""


def mask_arg_note(gain: str, backend: str | None, masks: str) -> str:
    """An exception's gain that is a mask argument's: the same SDPA call with no backend pinned, the
    baseline given the mask as a dense boolean attn_mask, this one given `masks` (its declared way)."""
    went = f", which sent it to {backend_name(backend)}" if backend else ""
    return (f"*The {gain} is over the same SDPA call, backend not pinned, given the mask as a dense boolean attn_mask"
            f"{went}: the gain is the mask argument's; pass {masks} instead.")


def deterministic_lead(d, workload) -> str:
    """Which pair a verdict's lead is between where plain calls lead deterministic ones, and the lead among the
    deterministic calls (gen.analysis.determinism.DeterministicLead): "in deterministic
    backward the lead is between FlashAttention-4 and SDPA cuDNN, neither deterministic; among the deterministic calls,
    FlashAttention-4 (deterministic backward) is 2.74× ahead of SDPA flash (deterministic) as run, 2.87× by kernel sum,
    both at 1980 MHz": the lead by its measure, and the kernel sums beside it where they ran at one clock (a ratio
    given bare did not match the two kernel sums the paragraph below divides)."""
    from gen.report.words.common import label

    pair = f"{label(d.fastest)} and {label(d.runner_up)}" if d.runner_up else label(d.fastest)
    title, mode = workload
    where = f"{_low(title)} ({'training' if mode == Mode.TRAIN else 'inference'})"
    return (f"in {where}, the lead is between {pair}, {'neither' if d.runner_up else 'not'} "
            f"deterministic; among the deterministic calls, {label(d.det_first)} is {times(d.det_ratio)} ahead of "
            f"{label(d.det_second)}{lead_measure(d.det_method, d.det_ks_ratio, d.det_ks_mhz)}")


def not_the_call_note(mark: str, items) -> str | None:
    """Under the decision chart, what `mark` above a dot means and why each such call is not the call ((workload,
    call label, why) each: orders.not_the_call: FP8's dot left of the diamond, unmarked);
    None where no dot is faster than its workload's recommended call."""
    items = list(dict.fromkeys(items))
    if not items:
        return None
    return (f"{mark} A call faster by its median than the recommended one, and why it is not the call: "
            + "; ".join(f"{w}, {call}: {why}" for w, call, why in items) + ".")


# What the first row's long list of workloads is, where a narrow screen folds it (pages.decision.table_rows): with
# exception rows below it, and without
WORKLOADS_FOLD = {True: "every workload but the rows below", False: "every workload measured"}
