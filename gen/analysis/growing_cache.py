"""Where a decode answer names a call that runs cuDNN: the answer holds at a fixed KV length, as the decode scenarios
time it (a preallocated cache, each shape's plan built before any timing), and a cache that grows a token a step is a
new shape for cuDNN every step. What that costs a step and what to call there, from the set's own dynamic-lengths
runs or those of a set of the same GPU model and PyTorch (length_cost.Beside).

Takes: a loaded set, a verdict point's facts (verdict_point.PointFacts) and the sibling's Beside (or None). Gives
`growing(ls, f, beside) -> Growing | None` and `runs_cudnn(ls, scenario, mode, variant)`. Numbers only:
gen.report.words.growing_cache words them.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import length_cost, verdicts
from gen.analysis.values import variant_role
from gen.model.variants import VARIANTS

PHASE = "decode"  # the dynamic-lengths phase whose cache grows a token a step


@dataclass(frozen=True)
class Growing:
    """A decode answer that runs cuDNN, against a cache that grows (module docstring). `source` None: no set of this
    GPU model and PyTorch measured decode at new lengths (the words then say so)."""

    calls: tuple[str, ...]  # the calls the page names at the point that run cuDNN (What to call's, the eager loop's)
    loop_only: bool  # only the eager loop's call runs cuDNN (What to call names another)
    source: str | None = None  # the set that measured it: this set's name, or a sibling's
    title: str | None = None
    own: bool = False
    batch: int | None = None  # the dynamic-lengths decode runs' batch
    cudnn_ms: float | None = None  # SDPA cuDNN's first call at a new length beyond its second (median over lengths)
    cudnn_warm_ms: float | None = None  # its warm call in a loop
    instead: str | None = None  # the run fastest once warm of those measured cold, which runs no cuDNN
    instead_ms: float | None = None  # its first call at a new length beyond its second
    instead_warm_ms: float | None = None
    # the cuDNN call set against `instead` once warm: unpinned SDPA where it ran cuDNN's kernels faster warm than
    # pinned cuDNN (Beside.auto_warm), else pinned cuDNN; and its warm call
    against: str | None = None
    against_warm_ms: float | None = None
    # the calls a length below which `instead` costs less in all, each new length included; None where it is no
    # slower once warm (it costs less at any count)
    calls_below: float | None = None
    # a switch the measuring set probed for cuDNN's new lengths in another phase, no decode step run with it
    # (dynamic.SwitchFacts.unprobed): its name, and the phase it was probed in
    unprobed_switch: tuple[str, str | None] | None = None


def runs_cudnn(ls, scenario: str, mode: str, variant: str | None) -> bool:
    """The call runs cuDNN's kernels at the verdict's point: pinned to it, or unpinned SDPA picking cuDNN there."""
    if variant is None or VARIANTS.get(variant) is None:
        return False
    if VARIANTS[variant].backend == "cudnn":
        return True
    v = verdicts.verdict(ls, scenario, mode)
    if v is None:
        return False
    if v.auto is not None and v.auto.variant == variant:  # its pick, by the kernel that ran (verdicts.AutoPick)
        return (v.auto.backend or v.auto.kernel_backend) == "cudnn"
    t = v.row(variant)
    return t is not None and t.backend == "cudnn"


def growing(ls, f, beside: length_cost.Beside | None) -> Growing | None:
    """The fact for one verdict point's facts `f` (a decode point: one query against the cache); None where the point
    is not decode or neither What to call's call nor the eager loop's runs cuDNN. `beside`: what a sibling measured,
    read where this set has no decode runs at new lengths."""
    if f.point is None or f.point.q_len != 1 or f.scope is not None:
        return None
    loop = f.loop.fastest if f.loop is not None and f.loop.changes_answer else None
    named = tuple(x for x in dict.fromkeys((f.named, loop)) if runs_cudnn(ls, f.scenario, f.mode, x))
    if not named:
        return None
    loop_only = named == (loop,) and loop != f.named
    own = length_cost.beside(ls, "")
    b = own if own is not None and any(p.phase == PHASE for p in own.phases) else beside
    cudnn = next((p for p in b.phases if p.phase == PHASE), None) if b is not None else None
    if cudnn is None:
        return Growing(named, loop_only)
    best = next(((v, x, w) for ph, v, x, w in b.best if ph == PHASE), None)
    auto = dict(b.auto_warm).get(PHASE)
    who, ref = ((variant_role("automatic"), auto) if auto is not None and auto < cudnn.steady_ms
                else ("sdpa_cudnn", cudnn.steady_ms))
    below = None
    if best is not None and best[2] > ref:
        below = (cudnn.first_extra_ms - best[1]) / (best[2] - ref)
    sw = next(((s.name, s.phase) for s in b.switches if PHASE in s.unprobed), None)
    return Growing(named, loop_only, b.name, b.title, b is own, dict(b.batches).get(PHASE), cudnn.first_extra_ms,
                   cudnn.steady_ms, *(best if best is not None else (None, None, None)), who, ref, below, sw)
