"""Clocks: every GPU-only time against the conditions it was measured under.

Takes: a loaded set (gen.analysis.tables), its points (gen.analysis.scenarios
point frames) and the datasheets' tensor rates (gen.model.datasheets). Gives
numbers only, no words:

- `at_ref_clock(ms, mhz, ref_mhz)`: a time at the reference clock (equal-clock time, the one
  that ranks kernels by their efficiency; the set's reference clock is its environment's ref_mhz);
- `sol(tflops, env, dtype, clock_mhz) -> Sol`: the speed of light at the
  sampled SM clock, SMs x clock x dense tensor FLOPs per clock per SM, and the
  share of it a rate reaches (`pct`), or why it cannot be given;
- `ceilings(ls) -> list[Ceiling]`: each measured ceiling (matmul, copy, read)
  with its value, the clock, power and temperature NVML read while it was
  measured, and, for the matmul, its own share of the speed of light;
- `above_ceiling_rows(rows)`: the points (a point frame's rows) whose rate exceeds the ceiling
  they are set against (a ceiling must bound its points);
- `burst_frame(points, anchors, env)`: at the points with a published anchor
  and a burst time, the sustained time and clock against the burst time and
  clock, and the anchor against both by the clock rule (rules.CLOCK_RULE_PCT).

"not recorded" (NaN with a reason) wherever the set did not record a clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from gen.analysis import ceilings as ceilings_mod
from gen.analysis import published_sums, rules, tables, timings, values
from gen.analysis.values import missing
from gen.model import datasheets, schema

NOT_RECORDED = published_sums.NOT_RECORDED


# --------------------------------------------------------------------------- equal clock


# Defined in gen.analysis.timings (below the verdicts, which rank by them); named here too, where the clocks are.
at_ref_clock = timings.at_ref_clock


# --------------------------------------------------------------------------- speed of light


@dataclass(frozen=True)
class Sol:
    """The speed of light at one clock: peak TFLOP/s and the share a rate reaches of it."""

    peak_tflops: float = math.nan
    pct: float = math.nan
    clock_mhz: float = math.nan
    rate: datasheets.TensorRate | None = None
    reason: str | None = None  # why no speed of light: no clock, no rate for this GPU and dtype


def sol(tflops: float | None, env: schema.Environment, dtype: str | None, clock_mhz: float | None,
        clock_reason: str | None = None) -> Sol:
    """The speed of light of a rate measured at `clock_mhz` (the sampled mean SM clock)."""
    rate = datasheets.tensor_rate(env.compute_capability, dtype)
    if env.device != "cuda":
        return Sol(reason="no GPU")
    if rate is None:
        return Sol(reason=f"no dense tensor rate listed for compute capability {env.compute_capability} and {dtype}")
    if missing(clock_mhz):
        return Sol(rate=rate, reason=f"SM clock {clock_reason or NOT_RECORDED}")
    peak = datasheets.peak_tflops(rate, env.sm_count, clock_mhz)
    if peak is None:
        return Sol(rate=rate, reason="the set recorded no SM count")
    pct = 100.0 * tflops / peak if not missing(tflops) else math.nan
    return Sol(peak, pct, float(clock_mhz), rate)


# --------------------------------------------------------------------------- ceilings


@dataclass(frozen=True)
class Ceiling:
    """One measured ceiling with the conditions it was measured under."""

    kind: str  # "matmul" (TFLOP/s), "copy" or "read" (TB/s)
    value: float
    unit: str
    n: int
    conditions: timings.Conditions
    sol: Sol | None = None  # the matmul's own share of the speed of light at its clock


def ceilings(ls: tables.LoadedSet) -> list[Ceiling]:
    """The set's measured ceilings (scaling.ceilings), each with its NVML conditions."""
    c, cl = ls.rs.ceilings, ceilings_mod.ceilings(ls)
    if c is None or cl is None:
        return []
    why = None if c.telemetry else f"{NOT_RECORDED}: captured before schema 3, without NVML telemetry"

    def cond(kind: str) -> timings.Conditions:
        return timings.conditions(kind, c.telemetry.get(kind), why)

    env = ls.environment
    mm = cond("matmul")
    out = [Ceiling("matmul", cl["matmul_tflops"], "TFLOP/s", cl["matmul_n"], mm,
                   sol(cl["matmul_tflops"], env, c.matmul_dtype, mm.sm_clock_mhz, mm.reason)),
           Ceiling("copy", cl["copy_gbps"] / 1e3, "TB/s", cl["copy_n"], cond("copy"))]
    if not missing(cl.get("read_tbps")):
        out.append(Ceiling("read", cl["read_tbps"], "TB/s", cl["read_n"], cond("read")))
    return out


def above_ceiling_rows(rows: list[dict]) -> list[dict]:
    """The ok points of a point frame's rows (values.rows) whose rate passes the ceiling they are set against
    (pct_of_ceiling > 100% + rules.TIME_FLOOR_PCT): a ceiling that does not bound its points is the wrong
    ceiling for them. A wrong answer (rules.wrong_answer) is left out: it did less work than its count says."""
    def wrong(r: dict) -> bool:
        w = r.get("wrong", False)
        return not missing(w) and bool(w)

    return [r for r in rows if "pct_of_ceiling" in r and r["status"] == schema.Status.OK
            and not wrong(r) and rules.above_ceiling(r["pct_of_ceiling"])]


# --------------------------------------------------------------------------- burst and sustained

BURST_COLUMNS = ["variant", "mode", "head_dim", "q_len", "kv_len", "anchor_set", "anchor_ms", "sustained_ms",
                 "sustained_clock_mhz", "sustained_power_w", "burst_ms", "burst_n", "burst_clock_mhz",
                 "expected_burst_ms", "burst_vs_expected", "anchor_at_sustained_clock_ms",
                 "sustained_vs_anchor", "sustained_vs_anchor_at_clock", "burst_vs_anchor", "sustained_explained",
                 "burst_explained", "explained", "reason", "burst_throttled", "burst_all_ms",
                 "burst_early_n", "main_kernel_ms", "other_events_ms", "untimed_work", "sustained_window_s",
                 "kernel_time", "ks_ms", "ks_mhz", "ks_vs_anchor", "ours_scenario"]


def _ratio(a, b) -> float:
    return a / b if not (missing(a) or missing(b)) and b else math.nan


def untimed_work(main_ms: float, other_ms: float) -> bool:
    """Our call runs other GPU work beside its attention kernel that is a visible share of the two together: at least
    rules.CLOCK_RULE_PCT, the tolerance of the clock rule. A source that times its forward kernels leaves it out."""
    return not (missing(main_ms) or missing(other_ms)) and other_ms >= rules.CLOCK_RULE_PCT / 100 * (main_ms + other_ms)


def _explained(sustained, at_clock, burst, published, reason) -> dict:
    if reason is not None:
        return dict(sustained_explained=None, burst_explained=None, explained=None)
    s, b = rules.clock_explains(sustained, at_clock), rules.clock_explains(burst, published)
    both = rules.YES if s == rules.YES and b == rules.YES else rules.NO
    return dict(sustained_explained=s, burst_explained=b, explained=both)


_BURST_AT = ("variant", "mode", "head_dim", "q_len", "kv_len")  # an anchor's point among ours


def _ours_at(rows: list[dict]) -> dict[tuple, dict]:
    """Our points that ran (a point frame's rows) by (variant, mode, head dim, q_len, kv_len), the first of
    each."""
    ours: dict[tuple, dict] = {}
    for r in rows:
        if r["status"] == schema.Status.OK:
            ours.setdefault(tuple(r[k] for k in _BURST_AT), r)
    return ours


def burst_frame(points: pd.DataFrame | None, anchors: pd.DataFrame, rows: list[dict] | None = None) -> pd.DataFrame:
    """Per published anchor time at the same shape as one of our points, our same-named variant:

    - sustained: its GPU-only time (graph replays, the GPU warm) and the mean SM clock of that window;
    - burst: a handful of calls from an idle GPU (schema 3), as publishers often time, and its clock;
      where the burst slowed within itself (rules.burst_throttled), its first calls and the window's
      highest clock (burst_throttled; burst_all_ms keeps the whole burst's median);
    - expected_burst_ms = sustained_ms x sustained clock / burst clock: the burst time if only the
      clock differed (a kernel whose time is the tensor cores' scales with the SM clock);
    - anchor_at_sustained_clock_ms = anchor_ms x burst clock / sustained clock: the published time
      had it been timed at our sustained clock, on the rule that the publisher's calls, a handful
      from an idle GPU, ran at the burst clock;
    - sustained_explained: rules.clock_explains(sustained, anchor at the sustained clock);
    - burst_explained: rules.clock_explains(burst, anchor): the rule assumes the publisher ran at our
      burst clock (sources do not state their clock settings), so our own burst must land on the
      published time too;
    - explained: YES only when both are, NO when either is not, None when a clock is not recorded
      (`reason`);
    - untimed_work: our call's GPU work besides its attention kernel is a visible share of it (untimed_work).
    `rows`: values.rows(points), where the caller has them (then `points` is not read and may be None)."""
    if (not rows if rows is not None else points.empty) or anchors.empty:
        return pd.DataFrame(columns=BURST_COLUMNS)
    # Rows as dicts (values.rows) and our points looked up by their key.
    ours = _ours_at(values.rows(points) if rows is None else rows)
    rows = []
    for a in values.rows(anchors):
        if not a["same_shape"] or missing(a["published_ms"]):
            continue
        p = ours.get(tuple(a[k] for k in _BURST_AT))
        if p is None:
            continue
        burst_all = p["burst_ms"]
        burst, fb, fs, throttled, reason = published_sums.rule_inputs(p)
        # the burst that slowed within itself stands as its first calls (published_sums.rule_inputs)
        p = dict(p, burst_ms=burst) if throttled else p
        expected = p["gpu_only_ms"] * fs / fb if not (missing(fs) or missing(fb)) else math.nan
        at_clock = a["published_ms"] * fb / fs if not (missing(fs) or missing(fb)) else math.nan
        main, other = p.get("main_kernel_us", math.nan) / 1e3, p.get("other_events_us", math.nan) / 1e3
        rows.append(dict(
            variant=p["variant"], mode=p["mode"], head_dim=p["head_dim"], q_len=p["q_len"], kv_len=p["kv_len"],
            anchor_set=a["anchor_set"], anchor_ms=a["published_ms"], sustained_ms=p["gpu_only_ms"],
            sustained_clock_mhz=fs, sustained_power_w=p["power_w"], burst_ms=p["burst_ms"], burst_n=p["burst_n"],
            burst_clock_mhz=fb, expected_burst_ms=expected, burst_vs_expected=_ratio(p["burst_ms"], expected),
            anchor_at_sustained_clock_ms=at_clock, sustained_vs_anchor=_ratio(p["gpu_only_ms"], a["published_ms"]),
            sustained_vs_anchor_at_clock=_ratio(p["gpu_only_ms"], at_clock),
            burst_vs_anchor=_ratio(p["burst_ms"], a["published_ms"]), burst_throttled=throttled,
            burst_all_ms=burst_all, burst_early_n=p.get("burst_early_n") if throttled else math.nan,
            main_kernel_ms=main, other_events_ms=other, untimed_work=untimed_work(main, other),
            sustained_window_s=p.get("telemetry_window_s", math.nan), **published_sums.burst_sums(a, p),
            **_explained(p["gpu_only_ms"], at_clock, p["burst_ms"], a["published_ms"], reason), reason=reason))
    return pd.DataFrame(rows, columns=BURST_COLUMNS)


# --------------------------------------------------------------------------- JSON


def windows_json(tm: timings.Times) -> dict[str, dict]:
    """Every timed window's conditions for `summary --format json`: null figures and the reason where
    not recorded."""
    out = {}
    for w in schema.Window:
        c = tm.window(w)
        out[str(w)] = dict(
            sm_clock_mhz=_num(c.sm_clock_mhz), sm_clock_min_mhz=_num(c.sm_clock_min_mhz), power_w=_num(c.power_w),
            temp_c=_num(c.temp_c), samples=c.samples, reason=None if c.recorded else c.reason,
            power_avg_w=_num(c.power_avg_w),
            power_cap_share=None if missing(c.power_cap_share) else round(float(c.power_cap_share), 3))
    return out


def _num(x: float) -> float | None:
    return None if missing(x) else round(float(x), 1)
