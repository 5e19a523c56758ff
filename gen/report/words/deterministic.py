"""The first screen's line on deterministic training (gen.analysis.determinism facts in Advice.determinism): which
backend PyTorch refuses under torch.use_deterministic_algorithms(True), what determinism costs each that runs, and the
fastest deterministic call; gen.report.words.decision re-exports these names."""

from __future__ import annotations

from gen.analysis import advice as advice_mod
from gen.analysis import determinism as determinism_facts
from gen.report.words.common import backend, label, per_call, times, us
from gen.report.words.orders import EQUAL_CLOCK_SHORT


def _determinism(a: advice_mod.Advice) -> str | None:
    """Deterministic training: which backend refuses under torch.use_deterministic_algorithms(True), and
    what determinism costs each backend that runs, from the deterministic-backward scenario."""
    ds = a.determinism
    if not ds:
        return None
    refused = [d for d in ds if d.refused]
    costs = sorted((d for d in ds if d.ratio is not None), key=lambda d: d.det_ms)
    parts = []
    for d in refused:
        why = f" ({d.reason.rstrip('.')})" if d.reason else ""
        # PyTorch's dispatcher declines the backend under torch.use_deterministic_algorithms(True), not the library
        parts.append(f"PyTorch's dispatcher refuses {_det_name(d)}{why}" if d.refused == "unavailable"
                     else f"{_det_name(d)}: {d.refused}{why}")
    for d in costs:
        # one label for the ratio, the measure both sides are (review 2026-12-06-4 item 8): a kernel sum is not as run
        how = {"kernel_sum": " by kernel sum", "cuda_graph": " as run"}.get(d.det_method, "") \
            if d.det_method == d.base_method else ""
        clock = f"{how}, {times(d.ratio_at_ref)} {EQUAL_CLOCK_SHORT}" if d.ratio_at_ref is not None else how
        parts.append(f"{_det_name(d)} deterministic takes {_ms(d.det_ms)} against {_ms(d.base_ms)} by default"
                     f"{_methods(d.det_method, d.base_method)}, {times(d.ratio)}{clock}")
    if not parts:
        return None
    text = ("For deterministic training (torch.use_deterministic_algorithms(True), GPU-only time of "
            f"{per_call(ds[0].mode)}): " + "; ".join(parts))
    if costs:
        best = costs[0]
        name = _det_name(best)
        text += f". {name[0].upper() + name[1:]} is the fastest deterministic call"
        plain_ms = best.fastest_plain_ms
        if best.fastest_plain and plain_ms and best.det_ms:
            text += (f": turning it on costs {times(best.det_ms / plain_ms)} the fastest step without it "
                     f"({label(best.fastest_plain)}, {_ms(plain_ms)}){_det_clock(best)}")
    return text + "."


def _det_clock(d: determinism_facts.Determinism) -> str:
    """The clocks behind an as-run ratio across two steps, and the ratio at equal clock (review item 21)."""
    dm, pm, at = getattr(d, "det_mhz", None), getattr(d, "plain_mhz", None), getattr(d, "plain_ratio_at_ref", None)
    if dm is None or pm is None or round(dm) == round(pm):
        return ""
    return f" as run ({dm:.0f} against {pm:.0f} MHz)" + (f", {times(at)} {EQUAL_CLOCK_SHORT}" if at is not None else "")


def _det_name(d: determinism_facts.Determinism) -> str:
    """A deterministic call by its SDPA backend, or by its variant where it pins none (never "an unnamed
    backend")."""
    if d.backend:
        return backend(d.backend)
    return label(d.base or d.variant)


def _methods(det: str | None, base: str | None) -> str:
    """Which measure a ratio of two GPU-only times sets against which: said where a kernel sum is one side, and
    both named where the two differ (review 2026-12-06-3 item 11: never a graph replay against a kernel sum
    unsaid)."""
    if det == base:
        return " (both kernel sums)" if det == "kernel_sum" else ""
    name = {"kernel_sum": "kernel sum", "cuda_graph": "graph replay"}
    return f" ({name.get(det, det or 'unknown')} against {name.get(base, base or 'unknown')})"


def _ms(x: float | None) -> str:
    return us(x) if x is not None else "–"
