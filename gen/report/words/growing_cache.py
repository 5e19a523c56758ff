"""A decode answer that runs cuDNN, against a KV cache that grows a token a step (gen.analysis.growing_cache), in words:
one sentence under a decode page's first table (the answer holds at a fixed KV length; what a growing cache costs a
step and what to call there) and the argument behind it, folded under it; a short clause for the set page's row and
the home's eager-loop advice."""

from __future__ import annotations

from gen.report.words.common import join_and, label, times, us
from gen.report.words.lengths_beside import about_count

FOLD_TITLE = "Why a growing KV cache changes the call"


def _who(g) -> str:
    """Whose answer runs cuDNN: What to call's, or only the eager loop's."""
    calls = join_and(label(x) for x in g.calls)
    return f"The eager loop's answer, {calls}, runs cuDNN and" if g.loop_only else f"{calls} runs cuDNN here and"


def _where(g) -> str:
    """Who measured the cost: this set, or the sibling by its title."""
    return "in this set's dynamic-lengths runs" if g.own else f"on {g.title}"


def note(g) -> str | None:
    """One sentence: "SDPA (backend not pinned) runs cuDNN here and holds at a fixed KV length, as timed (a
    preallocated cache): with a cache that grows a token a step, every step is a new shape for cuDNN, 56.375 ms a step
    for SDPA cuDNN against 45.4 µs for SDPA flash on NVIDIA H100 80GB HBM3 · PyTorch 2.11.0 (batch 1), so call SDPA
    flash there."; None without a fact."""
    if g is None:
        return None
    head = (f"{_who(g)} holds at a fixed KV length, as timed (a preallocated cache): with a cache that grows a token a "
            "step, every step is a new shape for cuDNN")
    if g.source is None:
        return head + ", whose cost no set of this GPU model and PyTorch measured."
    text = f"{head}, {us(g.cudnn_ms)} a step for {label('sdpa_cudnn')}"
    if g.instead is None:
        return text + f" {_where(g)}" + (f" (batch {g.batch})" if g.batch else "") + "."
    return (text + f" against {us(g.instead_ms)} for {label(g.instead)} {_where(g)}"
            + (f" (batch {g.batch})" if g.batch else "") + f", so call {label(g.instead)} there.")


def argument(g) -> str | None:
    """The argument the note stands on, for its fold: how the scenario times decode, what cuDNN does at a new shape,
    and what the call named instead costs once warm against the cuDNN call, with the calls a length below which it
    costs less in all; None without a measured cost."""
    if g is None or g.source is None:
        return None
    where = ("This set's dynamic-lengths runs timed a growing cache" if g.own else
             f"This set did not time a growing cache; {g.title}, the same GPU model and PyTorch, did in its "
             "dynamic-lengths runs")
    text = ("This scenario times each KV length with its cache allocated ahead, the same shape every call, so cuDNN's "
            "plan for that shape is built before any timing. A cache that grows a token a step gives cuDNN a new "
            f"shape every step, and cuDNN builds a plan for each new shape on its first call. {where}"
            + (f" at batch {g.batch}" if g.batch else "") + f": {label('sdpa_cudnn')}'s first call at each new length "
            f"cost a median {us(g.cudnn_ms)} more than its second, about {g.cudnn_ms / g.cudnn_warm_ms:,.0f}× its warm "
            f"call in a loop ({us(g.cudnn_warm_ms)}).")
    text += _unprobed(g)
    if g.instead is None:
        return text
    text += f" {label(g.instead)}'s first call cost {us(g.instead_ms)} more than its second."
    against = label(g.against) + ("" if g.against == "sdpa_cudnn" else " on cuDNN's kernels")
    if g.calls_below is None:
        return text + f" Once warm it is no slower than {against} ({us(g.instead_warm_ms)} a call in a loop)."
    ratio = times(g.instead_warm_ms / g.against_warm_ms)
    return (text + f" Once warm it takes {us(g.instead_warm_ms)} a call in a loop, {ratio} "
            f"the {us(g.against_warm_ms)} of {against}, so counting each new length it costs less in all at a length "
            f"called fewer than about {about_count(g.calls_below)} times.")


# The phase a switch was probed in, as the fold names it
PROBED_AT = {"prefill": "at new prompt lengths"}


def _unprobed(g) -> str:
    """Where the measuring set probed a switch for cuDNN's new lengths in another phase only (Growing.unprobed_switch):
    " TORCH_CUDNN_SDPA_AVOID_RECOMPILE=1 was probed at new prompt lengths only: no decode step ran with it, so what it
    does to a growing cache is not measured."; "" elsewhere."""
    if g.unprobed_switch is None:
        return ""
    name, phase = g.unprobed_switch
    at = PROBED_AT.get(phase, f"in {phase}") if phase else "elsewhere"
    return (f" {name}=1 was probed {at} only: no decode step ran with it, so what it does to a growing cache is not "
            "measured.")


def _decode(g) -> str:
    """Which decode answer: the eager loop's, or the row's own."""
    return "decode's eager-loop answer" if g.loop_only else "decode's answer"


def short(g) -> str | None:
    """The first screen's cell: "decode's answer holds at a fixed KV length (with a growing cache, call SDPA flash)";
    None without a measured cost."""
    if g is None or g.source is None:
        return None
    there = f" (with a growing cache, call {label(g.instead)})" if g.instead is not None else ""
    return f"{_decode(g)} holds at a fixed KV length{there}"


def clause(g) -> str | None:
    """The row's detail: "decode's answer holds at a fixed KV length: a cache that grows a token a step costs SDPA
    cuDNN 56.375 ms a step, against 45.4 µs for SDPA flash, the call there (NVIDIA H100 80GB HBM3 · PyTorch 2.11.0,
    batch 1)"; None without a measured cost."""
    if g is None or g.source is None:
        return None
    text = (f"{_decode(g)} holds at a fixed KV length: a cache that grows a token a step costs {label('sdpa_cudnn')} "
            f"{us(g.cudnn_ms)} a step")
    if g.instead is not None:
        text += f", against {us(g.instead_ms)} for {label(g.instead)}, the call there"
    said = ("this set's dynamic-lengths runs" if g.own else g.title) + (f", batch {g.batch}" if g.batch else "")
    return f"{text} ({said})"
