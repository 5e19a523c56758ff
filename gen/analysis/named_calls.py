"""Facts the first screen gives beside a named call: the loop of the call an
exception names, the call a Python loop of eager calls makes the answer, and whether an exception's gain over SDPA
with no backend pinned is a mask argument's. Takes verdicts (gen.analysis.verdicts) and a loaded set; gives numbers
and variant names for gen.analysis.advice's Pick, Exception_ and Advice. No words here.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import calls, tables, verdicts
from gen.analysis.values import missing, variant_role
from gen.model import schema
from gen.model.variants import VARIANTS


@dataclass(frozen=True)
class LoopCall:
    """The eager loop's fastest call where a loop of eager calls answers otherwise than the verdict (Pick.loop_call)."""

    variant: str  # the loop's call
    eager_ms: float  # its eager median
    own_ms: float  # the eager median of the call the loop answers against


@dataclass(frozen=True)
class HostCall:
    """An exception's call in inference and its eager over GPU-only time at the verdict's point (Advice.host_calls)."""

    scenario: str
    variant: str
    eager_ratio: float


def loop_call(v: verdicts.Verdict, t) -> LoopCall | None:
    """The eager loop's fastest call where the loop changes the verdict's answer away from `t`'s variant."""
    h = v.host
    if h is None or not h.changes_answer or h.eager_fastest == t.variant or t.eager is None:
        return None
    top = v.row(h.eager_fastest)
    if top is None or top.eager is None or missing(top.eager.median) or missing(t.eager.median):
        return None
    return LoopCall(top.variant, top.eager.median, t.eager.median) if top.eager.median < t.eager.median else None


def mask_arg(ls: tables.LoadedSet, v: verdicts.Verdict, variant: str) -> str | None:
    """The backend SDPA with no backend pinned ran where it got the point's mask as a dense boolean attn_mask and
    `variant` is SDPA with no backend pinned too (the same call, another mask argument); None elsewhere."""
    auto = variant_role("automatic")
    decl, base = VARIANTS.get(variant), VARIANTS.get(auto)
    if decl is None or base is None or variant == auto or decl.backend or not variant.startswith("sdpa"):
        return None
    p = calls.point_of(ls, v.scenario, v.mode)
    if p is None or p.mask == schema.Mask.NONE or (p.mask == schema.Mask.CAUSAL and p.q_len == p.kv_len):
        return None  # no mask, or the plain causal flag: SDPA got no dense mask
    pick = v.auto if v.auto is not None and v.auto.variant == auto else None
    return (pick.backend or pick.kernel_backend or "") if pick is not None else ""


def host_calls(vs: list[verdicts.Verdict], exceptions: tuple) -> tuple[HostCall, ...]:
    """Each exception in inference: its call's eager over GPU-only time."""
    out = []
    for e in exceptions:
        v = next((v for v in vs if v.scenario == e.scenario and v.mode == e.mode), None)
        r = v.row(e.variant) if v is not None and e.mode == schema.Mode.INFERENCE else None
        if r is not None and not missing(r.eager_over_gpu_only):
            out.append(HostCall(e.scenario, e.variant, r.eager_over_gpu_only))
    return tuple(out)
