"""The regression gate of `compare BASE NEW`: per variant, NEW/BASE of GPU-only time with its interval.

Takes: two loaded sets (gen.analysis.tables), a mode, a scenario and variants. Gives numbers only:
`ratios(base, new, mode, scenario, variants) -> list[Ratio]`, one per variant (and sweep point of a
scenario) that either set holds, each with

- the ratio of the GPU-only medians NEW/BASE and its 95% interval: a bootstrap (BOOTSTRAP_RESAMPLES,
  seeded: the same sets give the same interval) over each side's units, the round medians where the
  capture timed in rounds, else the samples (the units gen.analysis.timings' intervals rest on);
- `tie`: the two medians' own 95% intervals (timings.spread) overlap;
- the equal-clock ratio: each side's time at the reference clock (clocks.at_ref_clock, ref_mhz the
  GPU's highest SM clock) where both recorded their SM clock;

and `slower(r, fail_above)`, the gate's rule: slower than fail_above with intervals that do not overlap.
No torch, no words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gen.analysis import clocks, rules, tables, timings
from gen.model import schema

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
# The highest SM clock of the GPUs whose sets do not record it (schema < 3): the H100 and H200 SXM.
DEFAULT_REF_MHZ = {"9.0": 1980.0}


@dataclass(frozen=True)
class Side:
    """One set's GPU-only time of one record: its spread, its units and the clock it ran at."""

    status: str
    spread: timings.Spread
    units: tuple[float, ...]
    method: str | None
    sm_clock_mhz: float
    host_ms: float = math.nan
    one_clock: bool = True  # rules.one_clock: else the window has no single clock, and no equal-clock ratio


@dataclass(frozen=True)
class Ratio:
    variant: str
    scenario: str
    mode: str
    point: schema.Point | None
    base: Side
    new: Side
    ratio: float
    ci_lo: float
    ci_hi: float
    tie: bool | None
    ref_mhz: float
    ratio_at_ref_clock: float


ABSENT = Side("absent", timings.NO_SAMPLES, (), None, math.nan)


def ref_mhz(env: schema.Environment) -> float:
    """The reference clock of a set: schema 4's environment.ref_mhz, else the highest SM clock its GPU allows, else its
    model's (DEFAULT_REF_MHZ); NaN where neither is known (a CPU, an older GPU without the field)."""
    if env.ref_mhz:
        return float(env.ref_mhz)
    if env.sm_clock_max_mhz:
        return float(env.sm_clock_max_mhz)
    return DEFAULT_REF_MHZ.get(env.compute_capability or "", math.nan)


def _units(rec, ls: tables.LoadedSet, tm: timings.Times) -> tuple[float, ...]:
    """The samples behind the GPU-only spread, as rounds where it was timed in rounds."""
    t = rec.timing
    if t is None or not tm.gpu_only.n:
        return ()
    sizes = t.round_sizes or {}
    if tm.gpu_only_method == schema.GpuOnlyMethod.CUDA_GRAPH:
        samples, cut = t.gpu_only_ms, sizes.get(schema.Window.GPU_ONLY)
    elif t.kernel_sum_ms:
        samples, cut = t.kernel_sum_ms, sizes.get(schema.Window.KERNEL_SUM)
    else:
        samples, cut = timings.kernel_sum_samples(_trace(ls, rec)), None
    return tuple(timings.round_medians(samples, cut) or samples)


def _trace(ls: tables.LoadedSet, rec):
    return ls.sweep_trace(rec.trace) if rec.trace and rec.status == schema.Status.OK else None


def side(ls: tables.LoadedSet, rec) -> Side:
    if rec is None:
        return ABSENT
    if ls.kind == "reference" or rec.timing is None:
        return Side(rec.status, timings.NO_SAMPLES, (), None, math.nan)
    tm = ls.times(rec, _trace(ls, rec))
    clock = tm.gpu_only_conditions.sm_clock_mhz
    return Side(rec.status, tm.gpu_only, _units(rec, ls, tm), tm.gpu_only_method, clock, tm.host.median,
                tm.gpu_only_conditions.one_clock)


def bootstrap_ratio(base: tuple[float, ...], new: tuple[float, ...], level: float = rules.CI_LEVEL,
                    resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """The percentile-bootstrap interval of median(new) / median(base), each side resampled on its own."""
    if len(base) < 2 or len(new) < 2:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    b, n = np.asarray(base, dtype=float), np.asarray(new, dtype=float)
    mb = np.median(b[rng.integers(0, len(b), (resamples, len(b)))], axis=1)
    mn = np.median(n[rng.integers(0, len(n), (resamples, len(n)))], axis=1)
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(mn / mb, [tail, 100 - tail])
    return float(lo), float(hi)


def _ratio(b: Side, n: Side) -> tuple[float, float, float, bool | None]:
    mb, mn = b.spread.median, n.spread.median
    if not (b.spread.n and n.spread.n and mb > 0):
        return math.nan, math.nan, math.nan, None
    lo, hi = bootstrap_ratio(b.units, n.units)
    tie = not (n.spread.ci_lo > b.spread.ci_hi or n.spread.ci_hi < b.spread.ci_lo)
    return mn / mb, lo, hi, tie


def _at_ref(b: Side, n: Side, ref: float) -> float:
    if math.isnan(ref) or math.isnan(b.sm_clock_mhz) or math.isnan(n.sm_clock_mhz) or not b.spread.n \
            or not n.spread.n or not (b.one_clock and n.one_clock):
        return math.nan
    return clocks.at_ref_clock(n.spread.median, n.sm_clock_mhz, ref) / clocks.at_ref_clock(
        b.spread.median, b.sm_clock_mhz, ref)


def _records(ls: tables.LoadedSet, mode: str, scenario: str) -> dict[tuple, object]:
    """(variant, point key) -> the record, of one mode and scenario (the article's runs, else sweep points)."""
    recs = [r for r in ls.rs.runs if r.mode == mode and r.scenario == scenario]
    if scenario != "article" or not recs:
        recs = recs + [p for p in ls.rs.sweep if p.mode == mode and p.scenario == scenario]
    out: dict[tuple, object] = {}
    for r in recs:
        out.setdefault((r.variant, _point_key(r.point, scenario)), r)
    return out


def _point_key(p: schema.Point | None, scenario: str) -> tuple:
    """The article's runs match whatever their point; a scenario's points match by shape."""
    if p is None or scenario == "article":
        return ()
    return (p.batch, p.q_heads, p.kv_heads, p.head_dim, p.q_len, p.kv_len, p.mask, p.window)


def ratios(base: tables.LoadedSet, new: tables.LoadedSet, mode: str = "inference", scenario: str = "article",
           variants: list[str] | None = None) -> list[Ratio]:
    """One Ratio per variant (and point) either set holds in this mode and scenario, in BASE's order then NEW's."""
    rb, rn = _records(base, mode, scenario), _records(new, mode, scenario)
    keys = list(dict.fromkeys([*rb, *rn]))
    if variants:
        keys = [k for k in keys if k[0] in variants]
    ref = ref_mhz(new.environment)
    if math.isnan(ref):
        ref = ref_mhz(base.environment)
    out = []
    for key in keys:
        recb, recn = rb.get(key), rn.get(key)
        b, n = side(base, recb), side(new, recn)
        ratio, lo, hi, tie = _ratio(b, n)
        point = (recn or recb).point
        out.append(Ratio(key[0], scenario, mode, point, b, n, ratio, lo, hi, tie, ref, _at_ref(b, n, ref)))
    return out


def slower(r: Ratio, fail_above: float) -> bool | None:
    """The gate's rule: NEW slower than BASE by more than fail_above, the two medians' intervals apart.
    None where there is no ratio to judge (a side absent, unavailable, or without GPU-only time)."""
    if math.isnan(r.ratio) or r.tie is None:
        return None
    return r.ratio > fail_above and not r.tie
