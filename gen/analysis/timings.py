"""The three labelled times of every run and sweep point, with their spread, and the host-bound rule.

Takes: a run or sweep point (gen.model.schema `VariantRun` / `SweepPoint`) and
its parsed trace (gen.analysis.trace) when it has one. Gives: `times(record,
trace) -> Times`, and `times_frame(ls)`, one row per run and sweep point of a
set with the columns of `COLUMNS`. Numbers only; one name per quantity:

- gpu_only_ms: the GPU's own time of one call, the number that ranks. From
  CUDA-graph replay of back-to-back calls (method cuda_graph: one sample per
  replay), or else the GPU events of one profiled call added up (method
  kernel_sum: one sample per profiled call of the trace), labelled so.
- kernel_sum_ms: the GPU events of one profiled call added up (median over the
  profiled calls), whenever there is a trace, whatever the method.
- eager_ms: events around each call of a bare loop: what a Python loop sees.
- host_ms: host dispatch of one call, the GPU drained first.
- host_overhead_ms = eager_ms - gpu_only_ms (medians): what the loop sees
  beyond the GPU's own work (gaps between launches, launch latency).
- host_bound: eager_ms >= rules.HOST_BOUND_EAGER_RATIO x gpu_only_ms (the report's one rule).

Each time carries its median, quartiles, n and IQR / median (`Spread`).
No torch, no words.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from gen.analysis import rules
from gen.analysis import trace as trace_mod
from gen.model import schema


@dataclass(frozen=True)
class Spread:
    """Median, quartiles and count of raw samples (ms); NaN and 0 when there are none."""

    median: float = math.nan
    q1: float = math.nan
    q3: float = math.nan
    n: int = 0

    @property
    def iqr_pct(self) -> float:
        """IQR / median in percent: the spread the report shows (and rules.noisy judges)."""
        if self.n == 0 or not self.median:
            return math.nan
        return 100.0 * (self.q3 - self.q1) / self.median


def spread(samples: Sequence[float]) -> Spread:
    if len(samples) == 0:
        return Spread()
    a = np.asarray(samples, dtype=float)
    q1, med, q3 = np.percentile(a, [25, 50, 75])
    return Spread(float(med), float(q1), float(q3), len(a))


@dataclass(frozen=True)
class Times:
    """The three times of one run or sweep point. `gpu_only_method` is
    cuda_graph or kernel_sum (None where no GPU-only time exists, e.g. a CPU
    run); `gpu_only_reason` is why not cuda_graph, as capture or the migration
    recorded it. `kernel_sum` is from the trace (empty without one)."""

    gpu_only: Spread
    gpu_only_method: str | None
    gpu_only_reason: str | None
    kernel_sum: Spread
    eager: Spread
    host: Spread
    calls_per_replay: int | None = None
    # Why there is no GPU-only time: "not_measured" (no method: a CPU, or graph timing not asked
    # for; gpu_only_reason says which) or "no_trace" (kernel_sum with no trace to add up).
    gpu_only_absent: str | None = None

    @property
    def host_overhead_ms(self) -> float:
        return self.eager.median - self.gpu_only.median

    @property
    def eager_over_gpu_only(self) -> float:
        """eager_ms / gpu_only_ms (medians): 1 when the GPU never waits on the host."""
        g = self.gpu_only.median
        return self.eager.median / g if g and not math.isnan(g) else math.nan

    @property
    def host_bound(self) -> bool | None:
        """The report's one host-bound rule; None when either time is missing."""
        return rules.host_bound(self.eager.median, self.gpu_only.median)


def kernel_sum_samples(tr: trace_mod.Trace | None) -> list[float]:
    """One sample per profiled call: its GPU events' durations added up (ms).
    Calls with no GPU event give none (a CPU trace)."""
    if tr is None:
        return []
    return [sum(g.dur for g in fw.gpu) / 1e3 for fw in tr.forwards if fw.gpu]


def times(record: schema.VariantRun | schema.SweepPoint, tr: trace_mod.Trace | None = None) -> Times:
    """The three times of one record; `tr` is its parsed trace, if any."""
    t = record.timing
    ksum = spread(kernel_sum_samples(tr))
    method, reason = t.gpu_only_method, t.gpu_only_reason
    if method == schema.GpuOnlyMethod.CUDA_GRAPH and t.gpu_only_ms:
        gpu_only = spread(t.gpu_only_ms)
    elif method is not None:
        # kernel_sum, or cuda_graph with no samples kept: the trace stands in, labelled so.
        if method == schema.GpuOnlyMethod.CUDA_GRAPH:
            reason = reason or "no CUDA-graph samples stored"
        method, gpu_only = schema.GpuOnlyMethod.KERNEL_SUM.value, ksum
    else:
        gpu_only = Spread()
    absent = None if gpu_only.n else ("not_measured" if method is None else "no_trace")
    return Times(gpu_only=gpu_only, gpu_only_method=method, gpu_only_reason=reason, kernel_sum=ksum,
                 eager=spread(t.eager_ms), host=spread(t.host_ms), calls_per_replay=t.calls_per_replay,
                 gpu_only_absent=absent)


# The columns of `times_frame` and `row`; each name is used for the same quantity on every page and in the JSON.
COLUMNS = [
    "gpu_only_ms", "gpu_only_q1_ms", "gpu_only_q3_ms", "gpu_only_n", "gpu_only_iqr_pct", "gpu_only_method",
    "gpu_only_reason", "gpu_only_absent", "calls_per_replay", "kernel_sum_ms", "kernel_sum_n",
    "eager_ms", "eager_q1_ms", "eager_q3_ms", "eager_n", "eager_iqr_pct",
    "host_ms", "host_q1_ms", "host_q3_ms", "host_n", "host_iqr_pct",
    "host_overhead_ms", "eager_over_gpu_only", "host_bound",
]


def row(tm: Times) -> dict[str, Any]:
    """One flat row of `COLUMNS` (NaN where missing; host_bound None where undecided)."""
    out: dict[str, Any] = {}
    for name, s in (("gpu_only", tm.gpu_only), ("eager", tm.eager), ("host", tm.host)):
        out.update({f"{name}_ms": s.median, f"{name}_q1_ms": s.q1, f"{name}_q3_ms": s.q3, f"{name}_n": s.n,
                    f"{name}_iqr_pct": s.iqr_pct})
    out.update(gpu_only_method=tm.gpu_only_method, gpu_only_reason=tm.gpu_only_reason, gpu_only_absent=tm.gpu_only_absent,
               calls_per_replay=tm.calls_per_replay, kernel_sum_ms=tm.kernel_sum.median,
               kernel_sum_n=tm.kernel_sum.n, host_overhead_ms=tm.host_overhead_ms,
               eager_over_gpu_only=tm.eager_over_gpu_only, host_bound=tm.host_bound)
    return {k: out[k] for k in COLUMNS}


def _point_columns(p: schema.Point | None) -> dict[str, Any]:
    keys = ("batch", "q_heads", "kv_heads", "head_dim", "q_len", "kv_len", "mask")
    return {k: getattr(p, k) if p else None for k in keys}


def times_frame(ls, trace_of: Callable[[str], trace_mod.Trace] | None = None) -> pd.DataFrame:
    """One row per run and sweep point of a loaded set (gen.analysis.tables.LoadedSet,
    or anything with `.rs` and `.sweep_trace(relative_path)`): `record` ("run" or
    "sweep"), variant, mode, scenario, status, the point, then `COLUMNS`. Traces are
    read only for records whose GPU-only time or kernel sum needs them."""
    trace_of = trace_of or ls.sweep_trace
    rows = []
    records: Iterable = [("run", r) for r in ls.rs.runs] + [("sweep", p) for p in ls.rs.sweep]
    for kind, rec in records:
        tr = trace_of(rec.trace) if rec.trace and rec.status == schema.Status.OK else None
        rows.append(dict(record=kind, variant=rec.variant, mode=rec.mode, scenario=rec.scenario, status=rec.status,
                         **_point_columns(rec.point), **row(times(rec, tr))))
    head = ["record", "variant", "mode", "scenario", "status", "batch", "q_heads", "kv_heads", "head_dim", "q_len",
            "kv_len", "mask"]
    return pd.DataFrame(rows, columns=head + COLUMNS)


# The fields `python -m gen summary --format json` adds per variant, from a row of COLUMNS.
JSON_FIELDS = ["gpu_only_ms", "gpu_only_q1_ms", "gpu_only_q3_ms", "gpu_only_n", "gpu_only_method", "gpu_only_reason",
               "kernel_sum_ms", "eager_ms", "eager_q1_ms", "eager_q3_ms", "eager_n", "host_ms", "host_n",
               "host_overhead_ms", "host_bound"]


def json_fields(r) -> dict[str, Any]:
    """JSON-ready values of JSON_FIELDS (None where missing) from a row of COLUMNS."""
    out: dict[str, Any] = {}
    for k in JSON_FIELDS:
        v = r[k]
        if isinstance(v, str) or v is None:
            out[k] = v
        elif k == "host_bound":
            out[k] = None if pd.isna(v) else bool(v)
        elif k.endswith("_n"):
            out[k] = int(v)
        else:
            out[k] = None if pd.isna(v) else round(float(v), 6)
    return out
