"""Analysis: result sets and their traces -> pandas tables.

Takes: the results/ tree (gen.schema) and its traces (gen.trace). Gives:
`load_sets`, and one DataFrame builder per table the report shows: the
summary per variant, the kernel list of one forward, the timeline lanes, the
occupancy notes, time by kernel category. Statistics are derived here from
the raw samples; nothing is stored back. No torch, no plotting.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from gen.analysis import trace
from gen.model import reference, schema
from gen.model.variants import VARIANTS

# --------------------------------------------------------------------------- loading


@dataclass
class Skipped:
    name: str
    error: str


@dataclass
class LoadedSet:
    name: str
    path: Path
    rs: schema.ResultSet
    _traces: dict = field(default_factory=dict, repr=False)
    _tables: dict = field(default_factory=dict, repr=False)

    @property
    def measured(self) -> bool:
        return self.rs.kind == "measured"

    def trace_path(self, mode: str, variant: str) -> Path | None:
        run = self.rs.run(variant, mode)
        return self.path / run.trace if run and run.trace else None

    def trace(self, mode: str, variant: str) -> trace.Trace | None:
        key = (mode, variant)
        if key not in self._traces:
            p = self.trace_path(mode, variant)
            self._traces[key] = trace.parse(p) if p else None
        return self._traces[key]

    def sweep_trace(self, rel: str) -> trace.Trace:
        if rel not in self._traces:
            self._traces[rel] = trace.parse(self.path / rel)
        return self._traces[rel]

    def check_traces(self) -> None:
        """Parse every profiled trace once, so a bad one fails at load time."""
        for run in self.rs.runs:
            if run.trace:
                self.trace(run.mode, run.variant)


def load_set(path: Path) -> LoadedSet:
    ls = LoadedSet(path.name, path, schema.load_set(path))
    ls.check_traces()
    return ls


def load_sets(root: str | Path, skip_broken: bool = False) -> tuple[list[LoadedSet], list[Skipped]]:
    """Every result set under root: measured GPU sets, measured CPU sets, then
    published reference sets, each group by name.
    A broken set raises (one line naming the file) unless skip_broken."""
    loaded, skipped = [], []
    for path in schema.list_sets(root):
        try:
            loaded.append(load_set(path))
        except (schema.SchemaError, trace.TraceError) as exc:
            if not skip_broken:
                raise
            skipped.append(Skipped(path.name, str(exc)))
    # GPU sets first (the report's subject), then CPU sets, then published ones.
    loaded.sort(key=lambda s: (not s.measured, s.rs.environment.device != "cuda", s.name))
    return loaded, skipped


# --------------------------------------------------------------------------- statistics


def stats(samples: list[float]) -> dict[str, float]:
    if not samples:
        return dict(median=np.nan, q1=np.nan, q3=np.nan, min=np.nan, max=np.nan, n=0, iqr_pct=np.nan)
    a = np.asarray(samples, dtype=float)
    q1, med, q3 = np.percentile(a, [25, 50, 75])
    return dict(median=med, q1=q1, q3=q3, min=a.min(), max=a.max(), n=len(a),
                iqr_pct=100.0 * (q3 - q1) / med if med else np.nan)


# --------------------------------------------------------------------------- kernels

CATEGORIES = ["matrix product", "fused attention", "softmax", "reduction", "elementwise", "copy and fill"]

_GEMM = re.compile(r"gemm|nvjet|xmma|cutlass.*(gemm|tensorop)|s\d+gemm|ampere_|sm\d+_xmma|Kernel2|splitKreduce", re.I)
_ATTN = re.compile(r"fmha|flash|sdpa|attention|_tem_fused", re.I)
_COPY_OPS = {"aten::copy_", "aten::clone", "aten::contiguous", "aten::fill_", "aten::zero_", "aten::zeros",
             "aten::zeros_like", "aten::_to_copy", "aten::to", "aten::empty_like"}


def category(name: str, kind: str, launched_by: str | None) -> str:
    if kind in ("memcpy", "memset"):
        return "copy and fill"
    if _ATTN.search(name):
        return "fused attention"
    if _GEMM.search(name):
        return "matrix product"
    if "softmax" in name.lower():
        return "softmax"
    if re.search(r"reduce|triton_red|reduction", name, re.I):
        return "reduction"
    if launched_by in _COPY_OPS:
        return "copy and fill"
    return "elementwise"


_BACKEND_OPS = [
    ("aten::_scaled_dot_product_flash_attention", "flash"),
    ("aten::_scaled_dot_product_efficient_attention", "efficient"),
    ("aten::_scaled_dot_product_cudnn_attention", "cudnn"),
    ("aten::_scaled_dot_product_flash_attention_for_cpu", "flash (CPU)"),
    ("aten::_scaled_dot_product_attention_math", "math"),
    ("aten::_scaled_dot_product_fused_attention_overrideable", "overrideable"),
]


def backend_of(tr: trace.Trace | None) -> str | None:
    """Which SDPA backend ran, read off the aten ops of the first forward."""
    if tr is None or not tr.forwards:
        return None
    names = {c.name for c in tr.forwards[0].cpu}
    for op, backend in _BACKEND_OPS:
        if op in names:
            return backend
    return None


def _dims(t) -> str:
    return "×".join(str(x) for x in t) if t else ""


def kernel_table(ls: LoadedSet, variant: str, mode: str = "inference", forward: int = 0,
                 tr: trace.Trace | None = None) -> pd.DataFrame:
    """One row per GPU event of one profiled forward, in launch order.
    Built once per trace and forward; callers get a copy."""
    tr = tr or ls.trace(mode, variant)
    key = (id(tr), forward)
    if tr is not None and key not in ls._tables:
        ls._tables[key] = _kernel_table(tr, forward)
    return ls._tables[key].copy() if tr is not None else _kernel_table(None, forward)


def _kernel_table(tr: trace.Trace | None, forward: int) -> pd.DataFrame:
    cols = ["index", "name", "short_name", "kind", "category", "launched_by", "op_path", "launch_api",
            "start_us", "dur_us", "grid", "block", "threads_per_block", "blocks", "registers_per_thread",
            "shared_memory", "occupancy_pct", "bytes", "input_types", "launch_us", "queue_us"]
    if tr is None or not tr.forwards:
        return pd.DataFrame(columns=cols)
    rows = []
    for g in tr.forwards[forward].gpu:
        rows.append(dict(
            index=g.index, name=g.name, short_name=g.short_name, kind=g.kind,
            category=category(g.name, g.kind, g.launched_by), launched_by=g.launched_by or "",
            op_path=" > ".join(g.op_path), launch_api=g.launch_api or "", start_us=g.ts, dur_us=g.dur,
            grid=_dims(g.grid), block=_dims(g.block),
            threads_per_block=math.prod(g.block) if g.block else np.nan,
            blocks=math.prod(g.grid) if g.grid else np.nan,
            registers_per_thread=g.registers_per_thread if g.registers_per_thread is not None else np.nan,
            shared_memory=g.shared_memory if g.shared_memory is not None else np.nan,
            occupancy_pct=g.occupancy_pct if g.occupancy_pct is not None else np.nan,
            bytes=g.bytes if g.bytes is not None else np.nan,
            input_types=", ".join(g.input_types), launch_us=g.launch_ts if g.launch_ts is not None else np.nan,
            queue_us=(g.ts - g.launch_ts) if g.launch_ts is not None else np.nan,
        ))
    return pd.DataFrame(rows, columns=cols)


def kernel_summary(ls: LoadedSet, variant: str, mode: str = "inference") -> pd.DataFrame:
    """Kernels of one forward grouped by full name: count per forward, total and
    mean duration across all profiled forwards, reported occupancy."""
    tr = ls.trace(mode, variant)
    cols = ["name", "short_name", "kind", "category", "launched_by", "count_per_forward", "duration_us",
            "occupancy_pct"]
    if tr is None or not tr.forwards:
        return pd.DataFrame(columns=cols)
    frames = [kernel_table(ls, variant, mode, i, tr).assign(forward=i) for i in range(len(tr.forwards))]
    df = pd.concat(frames, ignore_index=True)
    n = len(tr.forwards)
    g = df.groupby(["name", "short_name", "kind", "category"], sort=False, dropna=False)
    out = g.agg(launched_by=("launched_by", "first"), count=("index", "size"), total=("dur_us", "sum"),
                occupancy_pct=("occupancy_pct", "median"), first=("index", "min")).reset_index()
    out["count_per_forward"] = out["count"] / n
    out["duration_us"] = out["total"] / n
    return out.sort_values("first")[cols].reset_index(drop=True)


def main_kernel(df: pd.DataFrame) -> pd.Series | None:
    kernels = df[df["kind"] == "kernel"]
    if kernels.empty:
        return None
    return kernels.loc[kernels["dur_us"].idxmax()]


# --------------------------------------------------------------------------- summary


def summary_table(ls: LoadedSet, mode: str = "inference") -> pd.DataFrame:
    """One row per variant of the set in this mode. Built once per set and
    mode (findings, compare, training and render all ask); callers get a copy."""
    key = ("summary", mode)
    if key not in ls._tables:
        ls._tables[key] = _summary_table(ls, mode)
    return ls._tables[key].copy()


def _summary_table(ls: LoadedSet, mode: str) -> pd.DataFrame:
    rows = []
    for run in ls.rs.runs:
        if run.mode != mode:
            continue
        v = VARIANTS.get(run.variant)
        g, c = stats(run.timing.eager_ms), stats(run.timing.host_ms)
        tr = ls.trace(mode, run.variant) if run.status == "ok" else None
        kt = kernel_table(ls, run.variant, mode, tr=tr) if tr else None
        mk = main_kernel(kt) if kt is not None else None
        counts = tr.counts if tr else []
        rows.append(dict(
            variant=run.variant, label=v.label if v else run.variant, status=run.status, reason=run.reason or "",
            device=run.device,
            kernels_per_forward=counts[0] if counts and ls.rs.environment.device == "cuda" else np.nan,
            counts_consistent=tr.counts_consistent if tr else True,
            forward_counts=counts,
            gpu_ms=g["median"], gpu_q1=g["q1"], gpu_q3=g["q3"], gpu_min=g["min"], gpu_max=g["max"],
            gpu_n=g["n"], gpu_iqr_pct=g["iqr_pct"],
            cpu_ms=c["median"], cpu_q1=c["q1"], cpu_q3=c["q3"], cpu_n=c["n"],
            peak_mb=run.peak_memory_bytes / 2**20 if run.peak_memory_bytes else np.nan,
            extra_mb=(run.peak_memory_bytes - run.baseline_memory_bytes) / 2**20
            if run.peak_memory_bytes and run.baseline_memory_bytes is not None else np.nan,
            max_rel_error=max(run.rel_errors) if run.rel_errors else np.nan,
            backend=backend_of(tr) if v and v.kind == "sdpa" else None,
            main_kernel=mk["short_name"] if mk is not None else None,
            main_occupancy_pct=mk["occupancy_pct"] if mk is not None else np.nan,
            compile_s=run.compile_time_s if run.compile_time_s is not None else np.nan,
            kernel_ms=busy_idle(tr)["busy_us"] / 1e3 if tr and tr.forwards else np.nan,
        ))
        if ls.rs.kind == "reference":  # one published number per field, no samples or trace
            rows[-1].update(reference.published_fields(run))
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    # Speed-up over naive on GPU time, or on wall time where no GPU timed it.
    t = df["gpu_ms"].where(df["gpu_ms"].notna(), df["cpu_ms"]) if "gpu_ms" in df else df["cpu_ms"]
    base = t[df["variant"] == "naive"]
    df["speedup_vs_naive"] = base.iloc[0] / t if len(base) and base.notna().all() else np.nan
    df["fill_pct"] = fill_pct(df["kernel_ms"], df["gpu_ms"])
    return df


def fill_pct(kernel_ms, gpu_ms):
    """Share of a call's GPU time (events, no profiler) in which its kernels ran
    (their union, in one profiled call). Capped at 100: the two come from different calls."""
    return (100.0 * kernel_ms / gpu_ms).clip(upper=100.0)


# --------------------------------------------------------------------------- timeline


def timeline_frames(ls: LoadedSet, variant: str, mode: str = "inference", forward: int = 0,
                    tr: trace.Trace | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The CPU lane (ops and runtime calls, nested) and the GPU lane of one forward."""
    tr = tr or ls.trace(mode, variant)
    cpu_cols = ["name", "cat", "start_us", "end_us", "dur_us", "depth", "thread"]
    gpu_cols = ["index", "short_name", "name", "kind", "category", "start_us", "end_us", "dur_us",
                "launched_by", "launch_api", "occupancy_pct"]
    if tr is None or not tr.forwards:
        return pd.DataFrame(columns=cpu_cols), pd.DataFrame(columns=gpu_cols)
    fw = tr.forwards[forward]
    tids = sorted({c.tid for c in fw.cpu}, key=lambda t: min(c.ts for c in fw.cpu if c.tid == t))
    cpu = pd.DataFrame([dict(name=c.name, cat=c.cat, start_us=c.ts, end_us=c.ts + c.dur, dur_us=c.dur,
                             depth=c.depth, thread="main" if c.tid == tids[0] else "autograd")
                        for c in fw.cpu], columns=cpu_cols)
    kt = kernel_table(ls, variant, mode, forward, tr)
    gpu = kt.assign(end_us=kt["start_us"] + kt["dur_us"])[gpu_cols]
    return cpu, gpu


# --------------------------------------------------------------------------- time use

# A call is host-bound when the GPU waits on the host: either its kernels ran
# for less than 80% of its GPU time (median, timed without the profiler), so
# the GPU idled between launches inside the call, or the host's dispatch time
# reached 80% of the GPU time, so the host barely keeps ahead of the GPU.
HOST_BOUND_FILL_PCT = 80.0
HOST_BOUND_RATIO = 0.8


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def host_bound(fill_pct: float | None, cpu_ms: float | None, gpu_ms: float | None) -> bool:
    """The one host-bound rule of the report (see the constants above).
    fill_pct: the share of the call's GPU time its kernels ran (`fill_pct`)."""
    if not _missing(fill_pct) and fill_pct < HOST_BOUND_FILL_PCT:
        return True
    return not (_missing(cpu_ms) or _missing(gpu_ms)) and cpu_ms >= HOST_BOUND_RATIO * gpu_ms


def category_split(ls: LoadedSet, variant: str, mode: str = "inference") -> pd.DataFrame:
    """GPU time of one forward by kernel category (mean over profiled forwards)."""
    ks = kernel_summary(ls, variant, mode)
    if ks.empty:
        return pd.DataFrame(columns=["variant", "category", "duration_us"])
    out = ks.groupby("category", sort=False)["duration_us"].sum().reset_index()
    return out.assign(variant=variant)[["variant", "category", "duration_us"]]


def busy_idle(tr: trace.Trace) -> dict[str, float]:
    """Within one forward, from its first launch call to its last GPU event's end:
    the time the GPU ran something, the time it sat idle, and the median gap
    from a launch call on the CPU to the start of its work on the GPU."""
    fw = tr.forwards[0]
    if not fw.gpu:
        return dict(span_us=np.nan, busy_us=np.nan, idle_us=np.nan, busy_pct=np.nan, launch_gap_us=np.nan)
    start = min(g.launch_ts if g.launch_ts is not None else g.ts for g in fw.gpu)
    end = fw.gpu_end
    spans = sorted((g.ts, g.ts + g.dur) for g in fw.gpu)
    busy, cur_s, cur_e = 0.0, spans[0][0], spans[0][1]
    for s, e in spans[1:]:
        if s > cur_e:
            busy += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    busy += cur_e - cur_s
    span = end - start
    gaps = [g.ts - g.launch_ts for g in fw.gpu if g.launch_ts is not None]
    return dict(span_us=span, busy_us=busy, idle_us=span - busy, busy_pct=100.0 * busy / span if span else np.nan,
                launch_gap_us=float(np.median(gaps)) if gaps else np.nan)


# --------------------------------------------------------------------------- occupancy

WARP = 32
REG_ALLOC_UNIT = 256  # registers are given to a warp in blocks of 256
SMEM_RESERVED = 1024  # per block, on sm80 and later
MAX_BLOCKS_PER_SM = 32


def theoretical_occupancy(threads: int, regs: int | None, smem: int | None, env: schema.Environment) -> dict:
    """CUDA's occupancy calculation from a kernel's launch resources and the
    GPU's limits recorded in the set. Returns blocks per SM by each limit."""
    max_threads = env.max_threads_per_sm or 2048
    max_warps = max_threads // WARP
    warps = math.ceil(threads / WARP)
    limits = {"block size": min(MAX_BLOCKS_PER_SM, max_warps // warps) if warps else 0}
    if regs:
        per_warp = math.ceil(regs * WARP / REG_ALLOC_UNIT) * REG_ALLOC_UNIT
        warps_by_regs = (env.max_regs_per_sm or 65536) // per_warp
        limits["registers"] = warps_by_regs // warps
    if smem:
        limits["shared memory"] = (env.max_shared_memory_per_sm or 233472) // (smem + SMEM_RESERVED)
    blocks = min(limits.values())
    limiter = min(limits, key=lambda k: (limits[k], k != "registers"))
    return dict(blocks_per_sm=blocks, limits=limits, limiter=limiter,
                theoretical_pct=100.0 * blocks * warps / max_warps)


def occupancy_notes(ls: LoadedSet, variant: str, mode: str = "inference", top: int = 3) -> list[dict]:
    """For the longest kernels of one forward: reported and theoretical occupancy,
    what limits it, and a plain sentence on what the figure does and does not mean."""
    env = ls.rs.environment
    kt = kernel_table(ls, variant, mode)
    kt = kt[kt["kind"] == "kernel"]
    if kt.empty or env.device != "cuda":
        return []
    notes = []
    for _, k in kt.sort_values("dur_us", ascending=False).drop_duplicates("name").head(top).iterrows():
        threads = int(k["threads_per_block"]) if not math.isnan(k["threads_per_block"]) else 0
        regs = None if math.isnan(k["registers_per_thread"]) else int(k["registers_per_thread"])
        smem = None if math.isnan(k["shared_memory"]) else int(k["shared_memory"])
        th = theoretical_occupancy(threads, regs, smem, env) if threads else None
        rep = k["occupancy_pct"]
        blocks = int(k["blocks"]) if not math.isnan(k["blocks"]) else None
        parts = []
        if th:
            parts.append(
                f"{threads} threads a block, {regs if regs is not None else '?'} registers a thread and "
                f"{smem if smem is not None else '?'} bytes of shared memory a block allow "
                f"{th['blocks_per_sm']} block(s) per SM, {th['theoretical_pct']:.0f}% of the SM's "
                f"{(env.max_threads_per_sm or 2048) // WARP} warps; {th['limiter']} set the limit"
            )
        if math.isnan(rep) or rep == 0:
            why = []
            if k["launch_api"].startswith("cuLaunchKernelEx") or k["launch_api"].startswith("cudaLaunchKernelEx"):
                why.append(f"it was launched with {k['launch_api']}, whose launch attributes (clusters, "
                           "dynamic shared memory set at launch) the profiler's estimate does not take in")
            if smem and smem > 48 * 1024:
                why.append(f"it asks for {smem // 1024} KiB of shared memory, above the 48 KiB a block gets "
                           "without opting in, so it is sized at launch")
            parts.append(
                "the profiler reported " + ("0%" if rep == 0 else "no occupancy") +
                (": " + "; ".join(why) if why else "") +
                ". That is the estimate failing, not an idle GPU: the kernel ran for "
                f"{k['dur_us']:.1f} µs"
            )
        else:
            parts.append(f"the profiler estimated {rep:.0f}% achieved occupancy")
        if blocks is not None and env.sm_count and th and blocks < env.sm_count * th["blocks_per_sm"]:
            parts.append(f"its grid has {blocks} blocks for {env.sm_count} SMs, less than one full wave, "
                         "so some SMs get no work")
        notes.append(dict(short_name=k["short_name"], name=k["name"], dur_us=k["dur_us"],
                          occupancy_pct=rep, theoretical_pct=th["theoretical_pct"] if th else np.nan,
                          limiter=th["limiter"] if th else None, launch_api=k["launch_api"],
                          explanation="; ".join(parts) + "."))
    return notes


# --------------------------------------------------------------------------- training and compilation


def train_table(ls: LoadedSet) -> pd.DataFrame:
    """Forward alone against forward plus backward, per variant: what the
    backward adds in kernels, GPU time and memory."""
    inf = summary_table(ls, "inference")
    trn = summary_table(ls, "train")
    if inf.empty or trn.empty:
        return pd.DataFrame()
    keep = ["variant", "label", "status", "reason", "kernels_per_forward", "gpu_ms", "gpu_q1", "gpu_q3",
            "cpu_ms", "peak_mb", "max_rel_error", "backend", "fill_pct"]
    df = trn[keep].merge(inf[["variant", "kernels_per_forward", "gpu_ms", "peak_mb"]], on="variant",
                         how="left", suffixes=("", "_fwd"))
    df = df.rename(columns={"kernels_per_forward": "kernels_per_step", "gpu_ms": "step_ms",
                            "gpu_q1": "step_q1", "gpu_q3": "step_q3", "cpu_ms": "step_cpu_ms",
                            "peak_mb": "step_peak_mb", "max_rel_error": "grad_rel_error",
                            "fill_pct": "step_fill_pct"})
    df["backward_kernels"] = df["kernels_per_step"] - df["kernels_per_forward_fwd"]
    df["backward_ms"] = df["step_ms"] - df["gpu_ms_fwd"]
    df["backward_over_forward"] = df["backward_ms"] / df["gpu_ms_fwd"]
    df["host_bound"] = [host_bound(f, c, g) for f, c, g in zip(df["step_fill_pct"], df["step_cpu_ms"], df["step_ms"])]
    return df


def inplace_autograd(ls: LoadedSet) -> dict | None:
    """What autograd did with the in-place mask, as the train run recorded it."""
    run = ls.rs.run("naive_inplace", "train")
    return run.inplace_autograd if run else None


def generated_kernels(ls: LoadedSet, variant: str, mode: str = "inference") -> pd.DataFrame:
    """Kernels that Inductor generated (Triton) for a compiled variant, and
    the library kernels it still calls."""
    kt = kernel_table(ls, variant, mode)
    if kt.empty:
        return kt
    return kt.assign(generated=kt["name"].str.startswith("triton_"))


def replaced_kernels(ls: LoadedSet, variant: str, base: str = "naive", mode: str = "inference") -> pd.DataFrame:
    """GPU events of `base`'s forward that `variant`'s forward no longer runs,
    matched by short name as multisets: what compilation fused away."""
    mine = kernel_table(ls, variant, mode)
    theirs = kernel_table(ls, base, mode)
    if mine.empty or theirs.empty:
        return theirs.iloc[0:0]
    left = mine["short_name"].value_counts().to_dict()
    keep = []
    for i, name in enumerate(theirs["short_name"]):
        if left.get(name, 0) > 0:
            left[name] -= 1
        else:
            keep.append(i)
    return theirs.iloc[keep].reset_index(drop=True)
