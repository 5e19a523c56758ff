"""Scaling and the limit: the sweep against the GPU's own measured ceilings.

Takes: a loaded set's `sweep`, `ceilings` and traces (gen.analysis.tables). Gives
DataFrames, no charts: `sweep_frame` (per point: median GPU-only time with its
IQR and method, eager and host time (gen.analysis.timings), peak memory,
FLOPs, achieved TFLOP/s, fraction of the measured ceiling, memory-bound time,
arithmetic intensity), `ceilings`, `oom_sizes`, `category_frame` (GPU time by kernel
category per variant) and `busy_frame`
(busy/idle share and launch-to-start gap, default shape and sweep traces).

FLOPs and bytes are counted under the report's one convention (gen.analysis.flops:
FlashAttention's count, halved when causal; q, k, v read and the output written once).
The columns keep their historical names (`flops_causal`, `tflops_causal`): they hold
that count. Softmax and scaling FLOPs are left out. Rates are on GPU-only time (a
CUDA-graph replay, or the kernel sum of the point's trace, labelled by gpu_only_method).

At the measured bandwidth ceiling the minimum bytes give the time below which no
implementation can go (the memory bound). Bandwidth ceilings are whichever the set
measured (`BANDWIDTH_CEILINGS`: a device copy, and a read-only pass where capture
took one); the roofline uses the highest, so no point sits above it for want of a
ceiling the set holds.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from gen.analysis import flops as flops_mod
from gen.analysis import host_rules, tables, verdicts
from gen.analysis.ceilings import (  # noqa: F401 (read as scaling.* too)
    above_roof,
    ceilings,
    matmul_at,
    matmul_clock,
    roof_tflops,
)
from gen.model import schema
from gen.model.scenarios import ARTICLE

ELEM_SIZE = flops_mod.ELEM_SIZE
# Bandwidth ceilings a set may hold: (name, field of its bytes, field of its samples in ms).
# The copy's bytes are read plus written; a read-only pass (when capture takes one) counts reads.


def _point(b: int, h: int, s: int, d: int) -> schema.Point:
    return schema.Point(batch=b, q_heads=h, kv_heads=h, head_dim=d, q_len=s, kv_len=s, mask=schema.Mask.CAUSAL)


def flops(b: int, h: int, s: int, d: int) -> dict[str, float]:
    """FLOPs of one causal forward: dense (every score) and under the report's convention (gen.analysis.flops)."""
    p = _point(b, h, s, d)
    return dict(dense=flops_mod.dense_flops(p), causal=flops_mod.flops(p))


def min_bytes(b: int, h: int, s: int, d: int, elem_size: int) -> float:
    """q, k, v read and the output written once (gen.analysis.flops.io_bytes)."""
    return flops_mod.io_bytes(_point(b, h, s, d), elem_size)


SWEEP_COLUMNS = ["variant", "seq_len", "head_dim", "status", "reason", "gpu_only_ms", "gpu_only_q1_ms",
                 "gpu_only_q3_ms", "gpu_only_n", "gpu_only_method", "gpu_only_absent", "eager_ms", "host_ms",
                 "peak_mb", "rel_error", "flops_dense", "flops_causal", "tflops_causal",
                 "fraction_of_matmul", "fraction_of_matmul_at_clock", "min_bytes", "intensity", "memory_bound_ms",
                 "compute_bound_ms",
                 "bound_ms", "fraction_of_bound", "pct_of_matmul", "pct_of_matmul_at_clock", "pct_of_bound", "trace"]


def article_sweep(ls: tables.LoadedSet) -> list[schema.SweepPoint]:
    """The S x D sweep this module scales: the article scenario's inference points. A set's
    sweep also holds other scenarios' points (decode, GQA, sliding window), whose FLOPs and
    sizes follow other rules (gen.analysis.scenarios)."""
    return [p for p in ls.rs.sweep if p.scenario == ARTICLE and p.mode == schema.Mode.INFERENCE]





def sweep_frame(ls: tables.LoadedSet) -> pd.DataFrame:
    """One row per sweep point of the article scenario (all statuses; times NaN where it did not run).
    Built once per set (the scaling page, its facts and fastest_at_largest all ask); callers get a copy."""
    key = ("sweep frame",)
    if key not in ls._tables:
        ls._tables[key] = _sweep_frame(ls)
    return ls._tables[key].copy()


def _sweep_frame(ls: tables.LoadedSet) -> pd.DataFrame:
    sw = article_sweep(ls)
    if not sw:
        return pd.DataFrame(columns=SWEEP_COLUMNS)
    es = ELEM_SIZE.get(ls.config.dtype, 2)
    cl = ceilings(ls)
    mm_clock = matmul_clock(ls) if cl else None
    rows = []
    for p in sw:
        tm = ls.times(p, ls.sweep_trace(p.trace) if p.trace and p.status == "ok" else None)
        g = tm.gpu_only
        b, h = p.point.batch, p.point.q_heads
        f = flops(b, h, p.seq_len, p.head_dim)
        mb = min_bytes(b, h, p.seq_len, p.head_dim, es)
        t = g.median
        tflops = f["causal"] / (t * 1e-3) / 1e12 if t and not math.isnan(t) else np.nan
        mem_ms = mb / (cl["bandwidth_gbps"] * 1e9) * 1e3 if cl else np.nan
        cmp_ms = f["causal"] / (cl["matmul_tflops"] * 1e12) * 1e3 if cl else np.nan
        bound = max(mem_ms, cmp_ms) if cl else np.nan
        rows.append(dict(
            variant=p.variant, seq_len=p.seq_len, head_dim=p.head_dim, status=p.status, reason=p.reason or "",
            gpu_only_ms=t, gpu_only_q1_ms=g.q1, gpu_only_q3_ms=g.q3, gpu_only_n=g.n,
            gpu_only_method=tm.gpu_only_method, gpu_only_absent=tm.gpu_only_absent, eager_ms=tm.eager.median,
            host_ms=tm.host.median,
            peak_mb=p.peak_memory_bytes / 2**20 if p.peak_memory_bytes else np.nan,
            rel_error=p.rel_error if p.rel_error is not None else np.nan,
            flops_dense=f["dense"], flops_causal=f["causal"], tflops_causal=tflops,
            # as measured (its own clock and power state) is the figure; at the point's clock, a model (points.py)
            fraction_of_matmul=tflops / cl["matmul_tflops"] if cl else np.nan,
            fraction_of_matmul_at_clock=tflops / matmul_at(cl["matmul_tflops"], mm_clock,
                                                           tm.gpu_only_conditions.sm_clock_mhz)
            if cl and tm.gpu_only_conditions.one_clock else np.nan,  # rules.one_clock: else no clock to scale to
            min_bytes=mb, intensity=f["causal"] / mb, memory_bound_ms=mem_ms, compute_bound_ms=cmp_ms,
            bound_ms=bound, fraction_of_bound=bound / t if cl and t and not math.isnan(t) else np.nan,
            trace=p.trace,
        ))
        rows[-1].update(pct_of_matmul=100 * rows[-1]["fraction_of_matmul"],
                        pct_of_matmul_at_clock=100 * rows[-1]["fraction_of_matmul_at_clock"],
                        pct_of_bound=100 * rows[-1]["fraction_of_bound"])
    return pd.DataFrame(rows, columns=SWEEP_COLUMNS)


def oom_sizes(ls: tables.LoadedSet) -> dict[str, dict[int, list[int]]]:
    """variant -> head dim -> sequence lengths at which it ran out of memory."""
    out: dict[str, dict[int, list[int]]] = {}
    for p in article_sweep(ls):
        if p.status == "oom":
            out.setdefault(p.variant, {}).setdefault(p.head_dim, []).append(p.seq_len)
    for v in out.values():
        for d in v:
            v[d].sort()
    return out


def fastest_at_largest(ls: tables.LoadedSet) -> pd.DataFrame:
    """Per head dim: the fastest variant at the largest sequence length where one ran,
    by the verdict's rule (gen.analysis.verdicts.verdict_at: the one every page
    uses), with its achieved TFLOP/s and fraction of the measured matmul ceiling."""
    df = sweep_frame(ls)
    df = df[df["gpu_only_ms"].notna()]
    if df.empty:
        return df
    # Each head dim's rows, in the frame's order.
    dims, lens, names = (df[c].tolist() for c in ("head_dim", "seq_len", "variant"))
    rows = []
    for d in sorted(set(dims)):
        where = [i for i, x in enumerate(dims) if x == d]
        largest = max(lens[i] for i in where)
        top = [i for i in where if lens[i] == largest]
        p = next((p for p in article_sweep(ls) if p.head_dim == d and p.seq_len == largest), None)
        v = verdicts.verdict_at(ls, p.scenario, p.point) if p is not None else None
        # the verdict's first rank with the calls running its very kernels, a tie: the tie's faster median stands for
        # it and the others are named, as every page does
        tie = {v.fastest.variant, *v.same_kernel} if v is not None else set()
        pick = sorted((i for i in top if names[i] in tie), key=lambda i: df["gpu_only_ms"].iloc[i])
        row = (df.iloc[pick[0]] if pick else df.iloc[top].sort_values("gpu_only_ms").iloc[0]).copy()
        row["tie"] = tuple(names[i] for i in pick[1:])
        # the calls of other kernels sharing the first rank (within noise of it): the row is then the lowest median,
        # no call decided (flex_flash "fastest" at D128 16k where the home says none leads)
        row["within"] = tuple(x.variant for x in v.rows if x.variant not in tie and x.variant != row["variant"]
                              and v.rank(x.variant) == 1) if v is not None else ()
        rows.append(row)
    return pd.DataFrame(rows).reset_index(drop=True)


def category_frame(ls: tables.LoadedSet, mode: str = "inference") -> pd.DataFrame:
    """GPU time of one forward by kernel category, every variant with kernels."""
    frames = [tables.category_split(ls, r.variant, mode) for r in ls.rs.runs
              if r.mode == mode and r.status == "ok" and r.trace]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=["variant", "category", "duration_us"])
    return pd.concat(frames, ignore_index=True)


BUSY_COLUMNS = ["variant", "seq_len", "head_dim", "source", "span_us", "busy_us", "idle_us", "busy_pct",
                "launch_gap_us", "host_ms", "eager_ms", "gpu_only_ms", "gpu_only_method", "eager_over_gpu_only",
                "host_bound", "host_bound_outcome", "host_cost_ms", "host_noise_why", "eager_ratio_lo",
                "eager_ratio_hi"]


def busy_frame(ls: tables.LoadedSet, mode: str = "inference") -> pd.DataFrame:
    """Busy/idle and launch-to-start gap of one forward: at the default shape
    (source "default") and at each sweep point that kept a trace (source "sweep").
    host_bound: host_rules.host_bound, the report's one rule (eager against GPU-only time)."""
    rows = []
    c = ls.config
    for r in ls.rs.runs:
        if r.mode == mode and r.status == "ok":
            tr = ls.trace(mode, r.variant)
            if tr is not None and tr.forwards and tr.forwards[0].gpu:
                rows.append(dict(variant=r.variant, seq_len=c.seq_len, head_dim=c.head_dim, source="default",
                                 **tables.busy_idle(tr), **_times(ls, r, tr)))
    if mode == "inference":
        for p in article_sweep(ls):
            if p.status == "ok" and p.trace:
                tr = ls.sweep_trace(p.trace)
                if tr.forwards and tr.forwards[0].gpu:
                    rows.append(dict(variant=p.variant, seq_len=p.seq_len, head_dim=p.head_dim, source="sweep",
                                     **tables.busy_idle(tr), **_times(ls, p, tr)))
    return pd.DataFrame(rows, columns=BUSY_COLUMNS)


def _times(ls: tables.LoadedSet, rec, tr) -> dict:
    tm = ls.times(rec, tr)
    return dict(host_ms=tm.host.median, eager_ms=tm.eager.median, gpu_only_ms=tm.gpu_only.median,
                gpu_only_method=tm.gpu_only_method, eager_over_gpu_only=tm.eager_over_gpu_only,
                host_bound=bool(tm.host_bound), host_bound_outcome=tm.host_bound_outcome, host_cost_ms=tm.host_cost_ms,
                # why within noise (host_rules.host_bound_why), for the table's cell
                host_noise_why=host_rules.host_bound_why(tm.eager.ci_lo, tm.eager.ci_hi, tm.gpu_only.ci_lo,
                                                         tm.gpu_only.ci_hi, tm.host_cost_ms),
                # the eager/GPU-only ratio's interval as the rule reads it (host_rules.host_bound_outcome)
                eager_ratio_lo=tm.eager.ci_lo / tm.gpu_only.ci_hi if tm.gpu_only.ci_hi else None,
                eager_ratio_hi=tm.eager.ci_hi / tm.gpu_only.ci_lo if tm.gpu_only.ci_lo else None)


def scalable(ls) -> bool:
    """A measured GPU set is scaled against its own ceilings (a CPU set has no ceilings or GPU sweep,
    a published one no ceilings): the sets that get a scaling page."""
    return ls.measured and ls.environment.device == "cuda"
