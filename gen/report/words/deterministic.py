"""The first screen's line on deterministic training (gen.analysis.determinism facts in Advice.determinism): which
backend PyTorch refuses under torch.use_deterministic_algorithms(True), what determinism costs each that runs, and the
fastest deterministic call; gen.report.words.decision re-exports these names."""

from __future__ import annotations

from gen.analysis import advice as advice_mod
from gen.analysis import determinism as determinism_facts
from gen.report.words.common import backend, label, per_call, times, us
from gen.report.words.orders import EQUAL_CLOCK_SHORT
from gen.report.words.sum_clocks import two_clocks


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
        if determinism_facts.fair_sums(d.det_ks, d.base_ks):  # the kernel sums first, as run beside, the model last
            parts.append(_by_sums(d))
            continue
        # one label for the ratio, the measure both sides are: a kernel sum is not as run
        how = {"kernel_sum": " by kernel sum", "cuda_graph": " as run"}.get(d.det_method, "") \
            if d.det_method == d.base_method else ""
        parts.append(f"{label(d.variant)} takes {us(d.det_ms)} against {us(d.base_ms)} without determinism"
                     f"{_methods(d.det_method, d.base_method)}, {times(d.ratio)}{_cost_clock(d, how)}")
    if not parts:
        return None
    text = ("For deterministic training (torch.use_deterministic_algorithms(True), GPU-only time of "
            f"{per_call(ds[0].mode)}): " + "; ".join(parts))
    if costs:
        best = costs[0]
        # each deterministic call by its own label, as the verdicts and the first screen name it
        text += f". {label(best.variant)} is the fastest deterministic call"
        plain_ms = best.fastest_plain_ms
        if best.fastest_plain and determinism_facts.fair_sums(best.det_ks, best.plain_ks):
            (dk, dm), (pk, pm) = best.det_ks, best.plain_ks
            text += (f": it costs {times(dk / pk)} the fastest step without determinism by kernel sum "
                     f"({label(best.fastest_plain)}, {us(pk)}; {two_clocks(dm, pm)})"
                     + (f"; {times(best.det_ms / plain_ms)}{_det_clock(best)}" if plain_ms and best.det_ms else ""))
        elif best.fastest_plain and plain_ms and best.det_ms:
            text += (f": it costs {times(best.det_ms / plain_ms)} the fastest step without determinism "
                     f"({label(best.fastest_plain)}, {us(plain_ms)}){_det_clock(best)}")
    return text + "."


def _cost_clock(d: determinism_facts.Determinism, how: str) -> str:
    """After a cost's ratio and its measure (`how`): the equal-clock ratio where the model adds one; two kernel sums
    at one clock (Determinism.sums_mhz, no ratio_at_ref) get their clocks instead, the ratio alone."""
    if d.ratio_at_ref is not None:
        return f"{how}, {times(d.ratio_at_ref)} {EQUAL_CLOCK_SHORT}"
    if getattr(d, "sums_mhz", None) and all(d.sums_mhz):
        return f"{how} ({two_clocks(*d.sums_mhz)})"
    return how


def _by_sums(d: determinism_facts.Determinism) -> str:
    """A cost whose steps are graph replays with fair kernel sums (Determinism.det_ks): the sums' ratio first, then
    the as-run one with its clocks, then the equal-clock model."""
    (dk, dm), (bk, bm) = d.det_ks, d.base_ks
    as_run = f"{times(d.ratio)} as run, {us(d.det_ms)} against {us(d.base_ms)} " + (
        f"at {d.det_mhz:.0f} against {d.base_mhz:.0f} MHz" if d.det_mhz and d.base_mhz else "(clocks not recorded)")
    model = f"; {times(d.ratio_at_ref)} {EQUAL_CLOCK_SHORT.replace(' (a model)', ', a model')}" \
        if d.ratio_at_ref is not None else ""
    return (f"{label(d.variant)} takes {us(dk)} against {us(bk)} without determinism by kernel sum "
            f"({two_clocks(dm, bm)}), {times(dk / bk)} ({as_run}{model})")


# The measure of a ratio between two deterministic steps, by how both GPU-only times were taken (schema.GpuOnlyMethod)
LEAD_MEASURE = {"cuda_graph": "as run", "kernel_sum": "by kernel sum"}


def lead_measure(method: str | None, ks_ratio: float | None, ks_mhz) -> str:
    """After a lead between two deterministic calls: its measure, and the kernel sums beside an as-run ratio where they
    ran at one clock (determinism.pair_sums): " as run, and 2.87× by kernel sum (both at 1980 MHz)"; "" where the
    two times were taken differently and no sums stand."""
    how = LEAD_MEASURE.get(method or "")
    if ks_ratio is not None and method != "kernel_sum":
        return (f" {how}, and" if how else ",") + f" {times(ks_ratio)} by kernel sum ({two_clocks(*ks_mhz)})"
    return f" {how}" if how else ""


def _det_clock(d: determinism_facts.Determinism) -> str:
    """The clocks behind an as-run ratio across two steps, and the ratio at equal clock."""
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
    both named where the two differ (never a graph replay against a kernel sum
    unsaid)."""
    if det == base:
        return " (both kernel sums)" if det == "kernel_sum" else ""
    name = {"kernel_sum": "kernel sum", "cuda_graph": "graph replay"}
    return f" ({name.get(det, det or 'unknown')} against {name.get(base, base or 'unknown')})"


def cost_clause(c: determinism_facts.Determinism, base: str, times_shown: bool) -> str:
    """A scenario headline's cost of determinism against the same call by default (`base`, its label): by kernel sum,
    as run beside, where the two steps' sums ran at one clock (fair_sums); else the GPU-only ratio, with the two times
    where `times_shown` or both are kernel sums."""
    if determinism_facts.fair_sums(c.det_ks, c.base_ks):
        (dk, dm), (bk, bm) = c.det_ks, c.base_ks
        return (f"Determinism costs it {dk / bk:.2f}× the time of the same call by default, {base}, by kernel sum "
                f"({us(dk)} against {us(bk)}, {two_clocks(dm, bm)}; {c.ratio:.2f}× as run)")
    sums = " (both kernel sums)" if c.det_method == c.base_method == "kernel_sum" else ""
    return (f"Determinism costs it {c.ratio:.2f}× the time of the same call by default, {base}"
            + (f" ({us(c.det_ms)} against {us(c.base_ms)}{sums})" if sums or times_shown else ""))
