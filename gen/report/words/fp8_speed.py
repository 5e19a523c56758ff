"""One row of the What-FP8-buys table (gen.analysis.scenarios.fp8_frame) in words: the speed of FP8 as a range over
the measures, each with its windows' clocks (gen.analysis.fp8_speed), "1.22–1.31× (1.29×
as run, FP8's clock 5.3% higher; 1.31× by kernel sum, FP8's clock 7.3% higher; 1.22× at equal clock, a model)"."""

from __future__ import annotations

from gen.analysis import rules
from gen.analysis.values import missing
from gen.report.words.common import label
from gen.report.words.sum_clocks import clock_against, possessive


def _clock(fp8_mhz: float, twin_mhz: float, twin: str = "the other call's") -> str:
    """Where FP8's window ran against its twin's, the side with the higher clock named, the gap as every page gives
    one (sum_clocks.apart): "FP8's clock 5.3% higher", "FlexAttention (compiled)'s clock 6.1% higher" (`twin`: the
    twin's possessive), "both at 1980 MHz"."""
    gap = rules.clock_gap_pct(None if missing(fp8_mhz) else fp8_mhz, None if missing(twin_mhz) else twin_mhz)
    if gap is None:
        return "clocks not recorded"
    if f"{gap:.0f}" == "0":
        return f"both at {fp8_mhz:.0f} MHz" if round(fp8_mhz) == round(twin_mhz) else "at clocks within 1%"
    return clock_against(fp8_mhz, twin_mhz, "FP8's", twin)  # at sum_clocks.apart's precision: "FP8's clock 5.3% higher"


def speed(r: dict) -> str:
    """The speed of FP8: the table's own ratio alone where no other measure is there; else the range over as run, by
    kernel sum and at equal clock (a model), each with its clocks, the side at the higher clock named."""
    # the twin's full label: its short one can be the FP8 call's own ("FlexAttention")
    twin = possessive(label(r["twin"])) if isinstance(r.get("twin"), str) else "the other call's"
    sums = bool(r.get("kernel_sums")) and not missing(r.get("kernel_sums"))
    if missing(r["speedup"]):
        return "–"
    if sums:  # the table's times are the kernel sums already: their clocks, and the model where it reads otherwise
        eq = r.get("eq_speedup")
        model = (f"; {eq:.2f}× at equal clock, a model" if not missing(eq) and f"{eq:.2f}" != f"{r['speedup']:.2f}"
                 else "")
        clock = _clock(r.get("ks_fp8_mhz"), r.get("ks_twin_mhz"), twin)
        return f"{r['speedup']:.2f}× (both kernel sums, {clock}{model})"
    said = [(r[k], f"{r[k]:.2f}× {how}" + (f", {_clock(r[a], r[b], twin)}" if a else ""))
            for k, how, a, b in (("run_speedup", "as run", "run_fp8_mhz", "run_twin_mhz"),
                                 ("ks_speedup", "by kernel sum", "ks_fp8_mhz", "ks_twin_mhz"),
                                 ("eq_speedup", "at equal clock, a model", None, None))
            if not missing(r.get(k))]
    if len(said) < 2:
        return f"{r['speedup']:.2f}×"
    lo, hi = min(x for x, _ in said), max(x for x, _ in said)
    span = f"{lo:.2f}×" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}×"
    return f"{span} ({'; '.join(text for _, text in said)})"


def fp8_cells(r: dict, variant_label) -> dict:
    """One row of the FP8 table (gen.analysis.scenarios.fp8_frame), worded."""
    ran = not missing(r["fp8_ms"])
    why = None if ran else f"{r['status']}: {r['reason'] or 'no reason recorded'}"
    sums = bool(r.get("kernel_sums")) and not missing(r.get("kernel_sums"))
    said = speed(r)
    # the cell holds the range; the measures and their clocks go under the table (a 1280 px screen fits the table)
    cell, _, detail = said.partition(" (")
    return dict(label=variant_label(r["variant"]), twin=variant_label(r["twin"]), why=why,
                basis=" (kernel sum)" if sums else "", speed=cell,
                speed_detail=f"{variant_label(r['variant'])}: {cell} ({detail}" if detail else None)
