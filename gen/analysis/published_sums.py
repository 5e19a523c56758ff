"""Ours against a published time where the source timed its kernels: the cuDNN frontend
benchmark's times are the forward kernels' device time under torch.profiler, what our kernel sum is, so they are set
against our kernel sum (with its window's clock) first and our as-run time second; and one record per call and shape
on each page (`anchor_rows`: a published figure is set against the page's own timing of our call where the page timed
it at that point, else against our call in the scenario the figure belongs to). Numbers only:
gen.report.words.published words them."""

from __future__ import annotations

import math

from gen.analysis import rules
from gen.analysis.values import missing

NOT_RECORDED = "not recorded"

# What the clock rule lets a published comparison read of our time against the published one (PublishedRead): an
# order ("slower", "faster"), or none because the clock explains the gap, or none because the rule cannot be applied
SLOWER, FASTER, SAME = "slower", "faster", "the same"
CLOCK = "clock"  # the rule holds: our burst at the burst clock lands on the published time
NO_RULE = "no rule"  # a clock or our burst is not recorded: no order is read


def _num(r: dict | None, key: str) -> float:
    v = r.get(key, math.nan) if r is not None else math.nan
    return math.nan if missing(v) else float(v)


def rule_inputs(p: dict) -> tuple[float, float, float, bool, str | None]:
    """Our point as the clock rule takes it (clocks.burst_frame): (its burst ms and the burst's clock, the sustained
    window's clock, whether the burst slowed within itself, why the rule cannot be applied or None). A burst that
    slowed within itself stands as its first calls at the window's highest clock (rules.BURST_EARLY_CALLS)."""
    fs, fb, burst = _num(p, "sm_clock_mhz"), _num(p, "burst_sm_clock_mhz"), _num(p, "burst_ms")
    throttled = bool(p.get("burst_throttled")) and not missing(p.get("burst_early_ms"))
    if throttled:
        burst = _num(p, "burst_early_ms")
        fb = _num(p, "burst_sm_clock_max_mhz") if "burst_sm_clock_max_mhz" in p else fb
    reason = None
    if missing(fs):
        reason = f"the sustained window's SM clock: {p.get('telemetry_reason') or NOT_RECORDED}"
    elif missing(burst):
        reason = "no burst was timed at this point"  # a set with telemetry: schema 3
    elif missing(fb):
        reason = f"the burst window's SM clock: {NOT_RECORDED}"
    return burst, fb, fs, throttled, reason


def order_read(p: dict | None, published_ms: float, ratio: float) -> dict:
    """What our time over a published one (`ratio`, ours over theirs) may be called, by the clock rule at our point
    `p` (ks_read): SLOWER or FASTER (SAME at exactly 1) only where the rule leaves a gap, that is, our own burst at the
    burst clock does not land on the published time (rules.clock_explains); CLOCK where it does (a ratio taken at a
    lower clock is then the clock's, not a speed: an H200 kernel sum 1.16× the published time at 1651 MHz, whose
    burst at 1980 MHz was 1.02× it); NO_RULE where the rule cannot be applied (no burst timed, or a clock not
    recorded), so no order is read; None where there is no ratio. With the burst's clock (ks_burst_mhz) and why the
    rule cannot be applied (ks_rule_reason)."""
    if missing(ratio) or p is None:
        return dict(ours_ks_read=None, ours_ks_burst_mhz=math.nan, ours_ks_rule_reason=None)
    burst, fb, _, _, reason = rule_inputs(p)
    if reason is not None:
        read = NO_RULE
    elif rules.clock_explains(burst, published_ms) == rules.YES:
        read = CLOCK
    else:
        read = FASTER if ratio < 1 else (SLOWER if ratio != 1 else SAME)
    return dict(ours_ks_read=read, ours_ks_burst_mhz=fb, ours_ks_rule_reason=reason)


def versus_sums(a, ours: dict | None, fast: dict | None, comparable_time: bool) -> dict:
    """A versus row's kernel-sum columns: where the published time is a kernel time (the anchor's `kernel_time`) and
    the shape is ours, our call's kernel sum, its window's clock and its ratio to the published time; the scenario our
    figures were read in; and the fastest's share of the matmul ceiling scaled to its own clock (a model, beside the
    share as measured), with that clock."""
    kernel_time = bool(a.get("kernel_time", False)) if hasattr(a, "get") else False
    ks = _num(ours, "kernel_sum_ms") if kernel_time and comparable_time else math.nan
    published = a["published_ms"]
    # ceiling_mhz is the matmul ceiling's clock, there only where the point is set against that ceiling
    at_clock = _num(fast, "pct_of_matmul_at_clock") if not missing(_num(fast, "ceiling_mhz")) else math.nan
    ratio = ks / published if not (missing(ks) or missing(published)) and published else math.nan
    return dict(kernel_time=kernel_time, ours_ks_ms=ks,
                ours_ks_mhz=_num(ours, "kernel_sum_mhz") if not missing(ks) else math.nan,
                ours_ks_time_ratio=ratio, **order_read(ours, published, ratio),
                ours_scenario=ours.get("scenario") if ours is not None else None,
                fastest_pct_at_clock=at_clock,
                fastest_clock_mhz=_num(fast, "sm_clock_mhz") if not missing(at_clock) else math.nan)


def burst_sums(a: dict, p: dict) -> dict:
    """A burst row's kernel-sum columns (gen.analysis.clocks.burst_frame): where the published time is a kernel time,
    our kernel sum at the point, its window's clock and its ratio to the published time; the scenario of our row."""
    ks = _num(p, "kernel_sum_ms") if a.get("kernel_time") else math.nan
    return dict(kernel_time=bool(a.get("kernel_time")), ks_ms=ks,
                ks_mhz=_num(p, "kernel_sum_mhz") if not missing(ks) else math.nan,
                ks_vs_anchor=ks / a["published_ms"] if not missing(ks) and a["published_ms"] else math.nan,
                ours_scenario=p.get("scenario"))


def anchor_rows(scenario: str, anchors: list[dict], rows: list[dict], rows_of) -> list[tuple[list[dict], list[dict]]]:
    """The published figures of one scenario page (`anchors`: rows of scenarios.anchor_frame) grouped by the rows
    they are set against: the page's own (`rows`) wherever the page timed that call at that point, so that a call and
    shape reads one figure of ours on each page (SDPA cuDNN at GQA 16k read 7.264 ms in the
    FP8 page's own table and range, 6.705 ms in its published block, taken from gqa-prefill); else the rows of the
    figure's own scenario (`rows_of(name)`: that scenario's point rows), where the set timed that call there at that
    point; else the page's own. [(anchors, rows)], the page's own first."""
    at = ("variant", "mode", "head_dim", "q_len", "kv_len")

    def timed(a: dict, xs: list[dict]) -> bool:
        return any(r["status"] == "ok" and all(r[k] == a[k] for k in at) for r in xs)

    own, other = [], {}
    for a in anchors:
        name = a.get("anchor_scenario")
        if not isinstance(name, str) or name == scenario or timed(a, rows):
            own.append(a)
            continue
        theirs = rows_of(name)
        if timed(a, theirs):
            other.setdefault(name, (theirs, []))[1].append(a)
        else:
            own.append(a)
    return [(own, rows)] * bool(own) + [(xs, theirs) for theirs, xs in other.values()]
