"""Analysis: a loaded set and its traces -> pandas tables.

Takes: a loaded set (gen.analysis.loading, whose `load_set`, `load_sets` and `LoadedSet` it re-exports)
and its traces (gen.model.trace). Gives one DataFrame builder per table the report shows: the summary
per variant, the kernel list of one forward, the timeline lanes, occupancy facts of the longest
kernels, time by kernel category, the training table. Statistics are derived here from the raw samples;
thresholds and classifiers come from gen.analysis.rules. No torch, no plotting, no sentences.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from gen.analysis import determinism_rule, kernel_rules, rules, timings, values
from gen.analysis.loading import LoadedSet, Skipped, load_set, load_sets  # noqa: F401
from gen.analysis.values import integer, missing, variant_role
from gen.model import reference, schema, trace
from gen.model.variants import VARIANTS

# --------------------------------------------------------------------------- statistics


def stats(samples: list[float]) -> dict[str, float]:
    if not samples:
        return dict(median=np.nan, q1=np.nan, q3=np.nan, min=np.nan, max=np.nan, n=0, iqr_pct=np.nan)
    a = np.asarray(samples, dtype=float)
    q1, med, q3 = np.percentile(a, [25, 50, 75])
    return dict(median=med, q1=q1, q3=q3, min=a.min(), max=a.max(), n=len(a),
                iqr_pct=100.0 * (q3 - q1) / med if med else np.nan)


# --------------------------------------------------------------------------- kernels

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
    return _kernel_frame(ls, variant, mode, forward, tr).copy()


def kernel_frame(ls: LoadedSet, variant: str, mode: str = "inference", forward: int = 0,
                 tr: trace.Trace | None = None) -> pd.DataFrame:
    """kernel_table's frame itself, shared, not a copy: for readers that change nothing in it (the
    findings' rules, the lessons, the hypotheses, the variant pages)."""
    return _kernel_frame(ls, variant, mode, forward, tr)


def kernel_rows(ls: LoadedSet, variant: str, mode: str = "inference") -> list[dict]:
    """The first profiled call's kernel table as rows (values.rows: the frame's Python values), made
    once per trace and shared: read them, or copy a row before changing it (the variant pages read them)."""
    tr = ls.trace(mode, variant)
    if tr is None:
        return []
    key = ("kernel rows", id(tr))
    got = ls._tables.get(key)
    if got is None or got[0] is not tr:  # the trace is kept: its id stays its own
        got = ls._tables[key] = (tr, values.rows(_kernel_frame(ls, variant, mode, 0, tr)))
    return got[1]


def _kernel_frame(ls: LoadedSet, variant: str, mode: str = "inference", forward: int = 0,
                  tr: trace.Trace | None = None) -> pd.DataFrame:
    """kernel_table's frame itself, not a copy: for this module's readers, which make new frames or
    lists from it and change nothing in it."""
    tr = tr or ls.trace(mode, variant)
    if tr is None:
        return _kernel_table(None, forward)
    key = (id(tr), forward)
    if key not in ls._tables:
        ls._tables[key] = _kernel_table(tr, forward)
    return ls._tables[key]


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
            category=kernel_rules.category(g.name, g.kind, g.launched_by), launched_by=g.launched_by or "",
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
    frames = [_kernel_frame(ls, variant, mode, i, tr).assign(forward=i) for i in range(len(tr.forwards))]
    df = pd.concat(frames, ignore_index=True)
    n = len(tr.forwards)
    g = df.groupby(["name", "short_name", "kind", "category"], sort=False, dropna=False)
    # column by column: what a named .agg gives
    out = pd.DataFrame({"launched_by": g["launched_by"].first(), "count": g["index"].size(),
                        "total": g["dur_us"].sum(), "occupancy_pct": g["occupancy_pct"].median(),
                        "first": g["index"].min()}).reset_index()
    out["count_per_forward"] = out["count"] / n
    out["duration_us"] = out["total"] / n
    return out.sort_values("first")[cols].reset_index(drop=True)


def main_kernel(df: pd.DataFrame) -> pd.Series | None:
    """The row of the longest kernel (the first of equals), or None without kernels."""
    at = _main_position(df)
    return None if at is None else df.iloc[at]


def _main_position(df: pd.DataFrame) -> int | None:
    """main_kernel's row, by position."""
    where = np.flatnonzero(df["kind"].to_numpy() == "kernel")
    if not len(where):
        return None
    dur = df["dur_us"].to_numpy(dtype=float)[where]
    if np.isnan(dur).any():  # idxmax's rule for what a trace never holds (NaN skipped, all NaN refused)
        kernels = df.iloc[where]
        return df.index.get_loc(kernels["dur_us"].idxmax())
    return int(where[int(np.argmax(dur))])


def kernel_totals(ls: LoadedSet, variant: str, mode: str, tr: trace.Trace) -> tuple[dict | None, int, float]:
    """(main kernel, GPU events, their µs added up) of the first profiled forward of `tr`, made once per
    trace: the scenario points and the verdicts ask for every profiled call's. The main kernel is
    main_kernel's row of the call's kernel table as a dict of what its readers read (name, short_name,
    index, dur_us, blocks, occupancy_pct). It is shared: read it."""
    key = ("kernel totals", id(tr))
    if key not in ls._tables and (id(tr), 0) not in ls._tables and tr.forwards:
        # most calls are sweep points, whose kernel table no page shows: read off the events
        got = _totals_of(tr.forwards[0].gpu)
        if got is not None:
            ls._tables[key] = got
    if key not in ls._tables:
        kt = _kernel_frame(ls, variant, mode, 0, tr)
        at = _main_position(kt)
        # each value as the row's Python value (what values.rows of that one row gives)
        mk = None if at is None else {c: kt[c].to_numpy()[at:at + 1].tolist()[0] for c in _MAIN_KERNEL_KEYS}
        ls._tables[key] = (mk, len(kt), float(kt["dur_us"].sum()))
    return ls._tables[key]


_MAIN_KERNEL_KEYS = ("name", "short_name", "index", "dur_us", "blocks", "occupancy_pct")


def _totals_of(gpu: list[trace.GpuEvent]) -> tuple[dict | None, int, float] | None:
    """kernel_totals' value from a forward's GPU events, without its kernel table: each number of the main
    kernel typed as _kernel_table's column holds it (a column of whole numbers with any float or NaN is a
    float column), the µs added up as the column's sum adds them. None where a duration is not a finite number
    (main_kernel's rule for NaN is then the frame's)."""
    durs = [g.dur for g in gpu]
    if not all(type(d) in (int, float) and math.isfinite(d) for d in durs):
        return None
    total = float(np.asarray(durs, dtype=np.float64 if any(type(d) is float for d in durs) else np.int64).sum()) \
        if durs else 0.0
    kernels = [i for i, g in enumerate(gpu) if g.kind == "kernel"]
    if not kernels:
        return None, len(gpu), total
    at = kernels[0]
    for i in kernels[1:]:
        if float(durs[i]) > float(durs[at]):  # the first of equals
            at = i
    top = gpu[at]
    blocks = [math.prod(g.grid) if g.grid else math.nan for g in gpu]
    occupancy = [g.occupancy_pct if g.occupancy_pct is not None else math.nan for g in gpu]
    mk = dict(name=top.name, short_name=top.short_name, index=int(top.index), dur_us=_as_column(durs, at),
              blocks=_as_column(blocks, at), occupancy_pct=_as_column(occupancy, at))
    return mk, len(gpu), total


def _as_column(col: list, at: int):
    """col[at] as a frame's column of these values gives it back: a float where any value is a float."""
    return float(col[at]) if any(type(x) is float for x in col) else int(col[at])


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
        tr = ls.trace(mode, run.variant) if run.status == "ok" else None
        # main_kernel's row of the call's kernel table, off the trace's events
        mk = kernel_totals(ls, run.variant, mode, tr)[0] if tr else None
        counts = tr.counts if tr else []
        rows.append(dict(
            variant=run.variant, label=v.label if v else run.variant, status=run.status, reason=run.reason or "",
            device=run.device, needs_cuda=rules.needs_cuda(run.status, run.device, v.backend if v else None),
            kernels_per_forward=counts[0] if counts and ls.environment.device == "cuda" else np.nan,
            counts_consistent=tr.counts_consistent if tr else True,
            forward_counts=counts,
            **timings.row(ls.times(run, tr)),
            peak_mb=run.peak_memory_bytes / 2**20 if run.peak_memory_bytes else np.nan,
            extra_mb=(run.peak_memory_bytes - run.baseline_memory_bytes) / 2**20
            if run.peak_memory_bytes and run.baseline_memory_bytes is not None else np.nan,
            max_rel_error=max(run.rel_errors) if run.rel_errors else np.nan,
            backend=backend_of(tr) if v and v.kind == "sdpa" else None,
            main_kernel=mk["short_name"] if mk is not None else None,
            main_occupancy_pct=mk["occupancy_pct"] if mk is not None else np.nan,
            compile_s=run.compile_time_s if run.compile_time_s is not None else np.nan,
            compile_calls=compile_calls(run),
            kernel_signature=ls.kernel_signature(tr, run.timing.graph_check),
        ))
        if ls.kind == "reference":  # one published number per field, no samples or trace
            rows[-1].update(reference.published_fields(run))
    timings.share_outcomes(rows)  # the same kernels, one host-bound outcome (rules, "ties")
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    # Speed-up over the baseline on GPU-only time; where no GPU timed the set, on
    # eager (wall) time, else host time: the first of the three every row has.
    t = df["gpu_only_ms"]
    for alt in ("eager_ms", "host_ms"):
        if t.notna().any():
            break
        t = df[alt]
    base = t[df["variant"] == variant_role("baseline")]
    df["speedup_vs_naive"] = base.iloc[0] / t if len(base) and base.notna().all() else np.nan
    df["speedup_kernel_sums"] = False
    if df["gpu_only_ms"].notna().any() and len(base) and base.notna().all():  # (t is the GPU-only time)
        _like_with_like_speedups(df, base.index[0])
    measured = ls.kind == schema.SetKind.MEASURED
    df["host_bound"] = [bool(measured and s == schema.Status.OK and hb)
                        for s, hb in zip(df["status"], df["host_bound"])]
    df["noisy"] = [rules.noisy(x) for x in df["gpu_only_iqr_pct"]]
    return df


def _like_with_like_speedups(df: pd.DataFrame, at: int) -> None:
    """The speed-up over the baseline on GPU-only times of one kind (determinism_rule.like_with_like): where the
    baseline's is a graph replay and a row's a kernel sum, or the other way round, both kernel sums, and
    speedup_kernel_sums True (naive's 1.253 ms kernel sum over SDPA cuDNN's graph time
    read 21.23x, both sums 21.70x)."""
    b = df.loc[at]
    for i, r in df.iterrows():
        if i == at or missing(r["gpu_only_ms"]):
            continue
        row_ms, base_ms, sums = determinism_rule.like_with_like(
            r["gpu_only_ms"], r["gpu_only_method"], r["kernel_sum_ms"], b["gpu_only_ms"], b["gpu_only_method"],
            b["kernel_sum_ms"])
        if sums and row_ms:
            df.at[i, "speedup_vs_naive"] = base_ms / row_ms
            df.at[i, "speedup_kernel_sums"] = True


def compile_calls(run: schema.VariantRun) -> float:
    """The first (compiling) call's time in timed calls at their median: what
    compilation costs in calls (eager samples, or host wall time without them)."""
    med = stats(run.timing.eager_ms or run.timing.host_ms)["median"]
    if run.compile_time_s is None or missing(med) or med <= 0:
        return np.nan
    return run.compile_time_s * 1000 / med


# --------------------------------------------------------------------------- timeline


def timeline_events(ls: LoadedSet, variant: str, mode: str = "inference", forward: int = 0,
                    tr: trace.Trace | None = None) -> tuple[list[dict], list[dict]]:
    """The CPU lane (ops and runtime calls, nested) and the GPU lane of one forward, as rows (each a dict),
    made straight from the trace's events and the kernel table's columns: the page's timeline reads these."""
    tr = tr or ls.trace(mode, variant)
    if tr is None or not tr.forwards:
        return [], []
    kt = _kernel_frame(ls, variant, mode, forward, tr)
    cols = {c: kt[c].tolist() for c in _TIMELINE_GPU if c != "end_us"}
    cols["end_us"] = [s + d for s, d in zip(cols["start_us"], cols["dur_us"])]
    gpu = [dict(zip(_TIMELINE_GPU, row)) for row in zip(*(cols[c] for c in _TIMELINE_GPU))]
    return _cpu_rows(tr.forwards[forward]), gpu


def _cpu_rows(fw: trace.Forward) -> list[dict]:
    """The CPU lane's events of one forward, each thread named by whether it started first."""
    first: dict = {}  # each thread's first start, in one pass (not one scan per thread)
    for c in fw.cpu:
        first[c.tid] = min(first.get(c.tid, c.ts), c.ts)
    main = min(first, key=first.get) if first else None
    return [dict(name=c.name, cat=c.cat, start_us=c.ts, end_us=c.ts + c.dur, dur_us=c.dur, depth=c.depth,
                 thread="main" if c.tid == main else "autograd") for c in fw.cpu]


_TIMELINE_GPU = ("index", "short_name", "name", "kind", "category", "start_us", "end_us", "dur_us",
                 "launched_by", "launch_api", "occupancy_pct")


# --------------------------------------------------------------------------- time use

def category_split(ls: LoadedSet, variant: str, mode: str = "inference") -> pd.DataFrame:
    """GPU time of one forward by kernel category (mean over profiled forwards): kernel_summary's
    duration_us summed by category, categories in the order they first come."""
    ks = kernel_summary(ls, variant, mode)
    if ks.empty:
        return pd.DataFrame(columns=["variant", "category", "duration_us"])
    out = ks.groupby("category", sort=False)["duration_us"].sum().reset_index()
    return out.assign(variant=variant)[["variant", "category", "duration_us"]]


def group_sums(keys: list, values: list[float]) -> dict:
    """key -> the float sum of its values (pandas' grouped sum), keys in the order they first come."""
    codes: dict = {}
    at = [codes.setdefault(k, len(codes)) for k in keys]
    sums = pd.Series(values, dtype=float).groupby(np.array(at, dtype=np.intp), sort=False).sum()
    return dict(zip(codes, sums.tolist()))


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


def sm_limits(env: schema.Environment) -> dict[str, int] | None:
    """The per-SM limits the set recorded, or None when it lacks any: then no
    theoretical occupancy is computed (no silent fallback to another GPU's)."""
    limits = dict(threads=env.max_threads_per_sm, registers=env.max_regs_per_sm,
                  shared_memory=env.max_shared_memory_per_sm)
    return None if any(v is None for v in limits.values()) else limits


def theoretical_occupancy(threads: int, regs: int | None, smem: int | None, env: schema.Environment) -> dict | None:
    """CUDA's occupancy calculation from a kernel's launch resources and the
    GPU's limits recorded in the set (gen.analysis.rules). Returns blocks per SM
    by each limit, or None when the set did not record the GPU's limits."""
    sm = sm_limits(env)
    if sm is None or not threads:
        return None
    max_warps = sm["threads"] // kernel_rules.WARP
    warps = math.ceil(threads / kernel_rules.WARP)
    # the SM's warps and its block slots are two limits, each named (a 128-thread block held to 16
    # a SM by the 64 warps read "block size set the limit"; Nsight Compute names it "warps")
    limits = {"warps per SM": max_warps // warps if warps else 0, "blocks per SM": kernel_rules.MAX_BLOCKS_PER_SM}
    if regs:
        per_warp = math.ceil(regs * kernel_rules.WARP / kernel_rules.REG_ALLOC_UNIT) * kernel_rules.REG_ALLOC_UNIT
        limits["registers"] = (sm["registers"] // per_warp) // warps
    if smem:
        limits["shared memory"] = sm["shared_memory"] // (smem + kernel_rules.SMEM_RESERVED)
    blocks = min(limits.values())
    limiter = min(limits, key=lambda k: (limits[k], k != "registers"))
    return dict(blocks_per_sm=blocks, limits=limits, limiter=limiter, max_warps=max_warps,
                theoretical_pct=100.0 * blocks * warps / max_warps)


def _longest(kt: pd.DataFrame, top: int) -> list[dict]:
    """The first `top` kernels of distinct names, longest first (missing times last), as rows."""
    k = kt[kt["kind"] == "kernel"]
    return values.rows(k.sort_values("dur_us", ascending=False).drop_duplicates("name").head(top))


def occupancy_facts(ls: LoadedSet, variant: str, mode: str = "inference", top: int = 3) -> list[dict]:
    """For the longest kernels of one forward (distinct names): launch resources,
    reported and theoretical occupancy, what limits it, and why the profiler may
    have reported none. Numbers and flags only; gen.report.words words them."""
    env = ls.environment
    kt = kernel_frame(ls, variant, mode) if ls.trace(mode, variant) is not None else None
    kernels = _longest(kt, top) if kt is not None else []
    if not kernels or env.device != "cuda":
        return []
    out = []
    for k in kernels:
        threads = integer(k["threads_per_block"]) or 0
        regs, smem = integer(k["registers_per_thread"]), integer(k["shared_memory"])
        blocks = integer(k["blocks"])
        th = theoretical_occupancy(threads, regs, smem, env)
        out.append(dict(
            index=int(k["index"]), short_name=k["short_name"], name=k["name"], dur_us=k["dur_us"],
            category=k["category"],
            occupancy_pct=k["occupancy_pct"], launch_api=k["launch_api"], threads=threads, registers=regs,
            shared_memory=smem, blocks=blocks, sm_count=env.sm_count,
            limits_known=sm_limits(env) is not None,
            theoretical_pct=th["theoretical_pct"] if th else np.nan, limiter=th["limiter"] if th else None,
            blocks_per_sm=th["blocks_per_sm"] if th else None, max_warps=th["max_warps"] if th else None,
            no_estimate=kernel_rules.no_occupancy_estimate(k["occupancy_pct"]),
            estimate_at_theoretical=kernel_rules.estimate_at_theoretical(
                k["occupancy_pct"], th["theoretical_pct"] if th else None),
            launch_attributes=kernel_rules.launched_with_attributes(k["launch_api"]),
            smem_opt_in=bool(smem and smem > kernel_rules.SMEM_DEFAULT_LIMIT),
            partial_wave=bool(blocks is not None and env.sm_count and th
                              and blocks < env.sm_count * th["blocks_per_sm"]),
        ))
    return out


# --------------------------------------------------------------------------- training and compilation


def train_table(ls: LoadedSet) -> pd.DataFrame:
    """Forward alone against forward plus backward, per variant: what the
    backward adds in kernels, GPU time and memory."""
    inf = summary_table(ls, "inference")
    trn = summary_table(ls, "train")
    if inf.empty or trn.empty:
        return pd.DataFrame()
    keep = ["variant", "label", "status", "reason", "kernels_per_forward", "gpu_only_ms", "gpu_only_q1_ms",
            "gpu_only_q3_ms", "gpu_only_method", "eager_ms", "host_ms", "peak_mb", "max_rel_error", "backend",
            "eager_over_gpu_only", "host_bound"]
    df = trn[keep].merge(inf[["variant", "kernels_per_forward", "gpu_only_ms", "peak_mb"]], on="variant",
                         how="left", suffixes=("", "_fwd"))
    df = df.rename(columns={"kernels_per_forward": "kernels_per_step", "gpu_only_ms": "step_gpu_only_ms",
                            "gpu_only_q1_ms": "step_gpu_only_q1_ms", "gpu_only_q3_ms": "step_gpu_only_q3_ms",
                            "eager_ms": "step_eager_ms", "host_ms": "step_host_ms", "peak_mb": "step_peak_mb",
                            "max_rel_error": "grad_rel_error"})
    df["backward_kernels"] = df["kernels_per_step"] - df["kernels_per_forward_fwd"]
    # GPU-only times: what the backward adds on the GPU, host gaps left out.
    df["backward_ms"] = df["step_gpu_only_ms"] - df["gpu_only_ms_fwd"]
    df["backward_over_forward"] = df["backward_ms"] / df["gpu_only_ms_fwd"]
    return df


def inplace_autograd(ls: LoadedSet) -> schema.InplaceCheck | None:
    """What autograd did with the in-place mask, as the train run recorded it."""
    run = ls.rs.run(variant_role("inplace"), "train")
    return run.inplace_autograd if run else None


def replaced_kernels(ls: LoadedSet, variant: str, base: str | None = None, mode: str = "inference") -> pd.DataFrame:
    """GPU events of `base`'s forward (the baseline variant by default) that `variant`'s forward no longer runs,
    matched by short name as multisets: what compilation fused away."""
    mine = _kernel_frame(ls, variant, mode)  # read only: what it returns is a new frame
    theirs = _kernel_frame(ls, base or variant_role("baseline"), mode)
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
