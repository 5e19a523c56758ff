"""Trial of HolisticTraceAnalysis (HTA) on one of our real traces.

Not part of the pipeline: it records why gen/model/trace.py does its own
parsing (see docs/notes/hta-trial.md). Needs HTA (`pip install HolisticTraceAnalysis`,
not a dependency of the project):

    python benchmarks/hta_trial.py [--set results/nvidia-h200__torch-2.11.0] [--variant naive]

For each of the inference and train traces of VARIANT it copies the trace into
its own directory (HTA reads a directory of per-rank traces), loads it with
hta.trace_analysis.TraceAnalysis, times that, and tries the APIs we would need:
kernel breakdown, per-annotation attribution, kernel -> launching CPU op, the
backward (autograd thread) kernels, and the kernel launch arguments. Each
number is printed next to what gen.trace.parse finds in the same file.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def quiet() -> None:
    warnings.filterwarnings("ignore")
    from hta.configs.config import logger

    logger.setLevel(logging.ERROR)


def ours(path: Path) -> dict:
    from gen.model import trace

    t0 = time.perf_counter()
    tr = trace.parse(path)
    dt = time.perf_counter() - t0
    per = {f"forward#{fw.index}": sum(g.kind == "kernel" for g in fw.gpu) for fw in tr.forwards}
    attributed = sum(1 for fw in tr.forwards for g in fw.gpu if g.launched_by)
    total = sum(len(fw.gpu) for fw in tr.forwards)
    regs = sum(1 for fw in tr.forwards for g in fw.gpu if g.registers_per_thread is not None)
    return {"parse_s": dt, "kernels_per_forward": per, "gpu_events": total,
            "gpu_with_op": attributed, "kernels_with_registers": regs}


def load(trace_dir: Path, *, last_step: bool, full_args: bool):
    from hta.configs.parser_config import ParserConfig
    from hta.trace_analysis import TraceAnalysis

    cfg = ParserConfig.get_default_cfg()
    if full_args:
        cfg.set_args(ParserConfig.ARGS_COMPLETE)
        cfg.set_drop_gpu_user_annotation(False)
    else:
        cfg = ParserConfig()  # HTA's out-of-the-box defaults
    ParserConfig.set_default_cfg(cfg)
    t0 = time.perf_counter()
    ta = TraceAnalysis(trace_dir=str(trace_dir), include_last_profiler_step=last_step)
    return ta, time.perf_counter() - t0


def names(ta, ids):
    sym = ta.t.symbol_table.get_sym_table()
    return [sym[int(i)] if int(i) >= 0 else None for i in ids]


def trial(src: Path, work: Path) -> None:
    d = work / src.name.split(".")[0]
    d.mkdir()
    shutil.copy(src, d / src.name)
    print(f"\n=== {src.name} ({src.stat().st_size} bytes gz)")
    o = ours(src)
    print(f"gen.trace.parse: {o['parse_s'] * 1e3:.1f} ms; kernels per forward {o['kernels_per_forward']}; "
          f"{o['gpu_with_op']}/{o['gpu_events']} GPU events with a launching op; "
          f"{o['kernels_with_registers']} with registers")

    # 1. Out-of-the-box load: no rank in the file (warning, rank 0), last ProfilerStep dropped.
    ta, dt = load(d, last_step=False, full_args=False)
    df = ta.t.get_trace(0)
    print(f"TraceAnalysis default load: {dt * 1e3:.0f} ms, {len(df)} rows; "
          f"profiler steps {[int(s) for s in ta.get_profiler_steps()]}")
    print(f"  columns: {df.columns.tolist()}")
    kernels = df[df['stream'].ge(0) & df['index_correlation'].ge(0)]
    print(f"  GPU events kept: {len(kernels)} (ours: {o['gpu_events']})")

    # 2. Keep every step and every kernel arg, keep GPU user annotations.
    ta, dt = load(d, last_step=True, full_args=True)
    df = ta.t.get_trace(0)
    gpu = df[df["stream"].gt(0)]
    print(f"TraceAnalysis load (include_last_profiler_step, ARGS_COMPLETE): {dt * 1e3:.0f} ms, "
          f"{len(df)} rows, {len(gpu)} GPU rows")
    launch_cols = [c for c in ("registers_per_thread", "shared_memory", "blocks_per_sm",
                               "warps_per_sm", "est_occupancy", "grid_dim_x", "block_dim_x")
                   if c in df.columns]
    print(f"  launch-arg columns present: {launch_cols}")
    if "registers_per_thread" in df.columns:
        print(f"  kernels with registers_per_thread > 0: {int(gpu['registers_per_thread'].gt(0).sum())}")

    # 3. Kernel breakdown.
    t0 = time.perf_counter()
    by_type, by_kernel = ta.get_gpu_kernel_breakdown(visualize=False)
    print(f"get_gpu_kernel_breakdown: {(time.perf_counter() - t0) * 1e3:.0f} ms")
    print("  " + by_type.to_string().replace("\n", "\n  "))
    print(f"  per-kernel rows: {len(by_kernel)}, columns {by_kernel.columns.tolist()}")

    # 4. Per-annotation attribution (GPU-side forward#N annotations).
    # HTA rounds our sub-µs timestamps to whole µs; a 0.6 µs memset can come out
    # with dur -1, which this call rejects. Record the failure, then clamp and retry.
    print(f"  GPU rows with dur < 0 after HTA's rounding: {int(gpu['dur'].lt(0).sum())}; "
          f"min GPU dur {gpu['dur'].min()} (ts dtype {df['ts'].dtype})")
    t0 = time.perf_counter()
    try:
        ka = ta.get_gpu_kernels_with_user_annotations(rank=0)
    except ValueError as e:
        print(f"get_gpu_kernels_with_user_annotations failed: {e}")
        df["dur"] = df["dur"].clip(lower=0)
        t0 = time.perf_counter()
        ka = ta.get_gpu_kernels_with_user_annotations(rank=0)
        print("  retried with dur clamped to >= 0")
    print(f"get_gpu_kernels_with_user_annotations: {(time.perf_counter() - t0) * 1e3:.0f} ms")
    if ka is not None:
        col = "s_user_annotation" if "s_user_annotation" in ka.columns else "user_annotation"
        print(f"  kernels per annotation: {ka[col].value_counts().sort_index().to_dict()}")
    try:
        ub = ta.get_gpu_user_annotation_breakdown(visualize=False)
        if ub is not None:
            print(f"get_gpu_user_annotation_breakdown: {len(ub)} rows, columns {ub.columns.tolist()}")
            print("  " + ub.to_string().replace("\n", "\n  "))
    except Exception as e:  # noqa: BLE001
        print(f"get_gpu_user_annotation_breakdown failed: {type(e).__name__}: {e}")

    # 5. Kernel -> launching CPU runtime call -> innermost op, by the index_correlation column.
    df = ta.t.get_trace(0)
    gpu = df[df["stream"].gt(0)]
    launch = df.loc[gpu["index_correlation"][gpu["index_correlation"].ge(0)]]
    print(f"index_correlation: {int(gpu['index_correlation'].ge(0).sum())}/{len(gpu)} GPU rows have a "
          f"launch call; launch names {sorted(set(names(ta, launch['name'])))}")
    print(f"  launch threads: {launch['tid'].value_counts().to_dict()}")
    # The iteration column (ProfilerStep#N, by time for CPU rows on any thread,
    # then through index_correlation for GPU rows) is the closest to forward#N.
    print(f"  GPU rows per iteration column: {gpu['iteration'].value_counts().sort_index().to_dict()}")
    print(f"  fwdbwd link columns present: {'fwdbwd_index' in df.columns}")
    t0 = time.perf_counter()
    try:
        aten = ta.get_aten_op_kernels_and_delay()
        a0 = aten[0]
        print(f"get_aten_op_kernels_and_delay: {(time.perf_counter() - t0) * 1e3:.0f} ms, "
              f"{len(a0)} op->kernel paths, columns {a0.columns.tolist()}")
    except Exception as e:  # noqa: BLE001 - the point is to record what fails
        print(f"get_aten_op_kernels_and_delay failed: {type(e).__name__}: {e}")

    # 6. Call stacks: parent chain of each kernel's launch up to a forward#N range.
    from hta.common.trace_call_graph import CallGraph

    t0 = time.perf_counter()
    try:
        cg = CallGraph(ta.t)
        cg_s = time.perf_counter() - t0
        print(f"CallGraph: {cg_s * 1e3:.0f} ms; stacks {cg.mapping[['tid', 'label']].to_dict('records')}")
        sym = ta.t.symbol_table.get_sym_table()
        df = ta.t.get_trace(0)
        counts: dict[str, int] = {}
        for idx in launch.index:
            anc, p = None, idx
            for _ in range(64):
                p = int(df.loc[p, "parent"]) if "parent" in df.columns else -1
                if p < 0:
                    break
                n = sym[int(df.loc[p, "name"])]
                if n.startswith("forward#"):
                    anc = n
                    break
            counts[anc or "(none)"] = counts.get(anc or "(none)", 0) + 1
        print(f"  GPU events whose launch has a forward#N ancestor: {dict(sorted(counts.items()))}")
    except Exception as e:  # noqa: BLE001
        import numpy
        import pandas

        print(f"CallGraph failed: {type(e).__name__}: {e} (pandas {pandas.__version__}, "
              f"numpy {numpy.__version__})")


def trace_paths(set_dir: Path, variant: str) -> list[Path]:
    """The inference and train traces of a variant, as the set's result.json names them (their
    file names changed between schema versions: read, never guessed)."""
    from gen.model import schema

    rs = schema.load_set(set_dir)
    runs = [rs.run(variant, mode) for mode in ("inference", "train")]
    paths = [set_dir / r.trace for r in runs if r is not None and r.trace]
    if not paths:
        raise SystemExit(f"--variant: {set_dir.name} holds no trace of {variant!r}")
    return paths


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", default=str(ROOT / "results" / "nvidia-h200__torch-2.11.0"), help="a result set folder")
    ap.add_argument("--variant", default="naive", help="whose traces to load (default naive)")
    a = ap.parse_args()
    paths = trace_paths(Path(a.set), a.variant)
    t0 = time.perf_counter()
    try:
        import hta  # noqa: F401
        from hta.trace_analysis import TraceAnalysis  # noqa: F401
    except ImportError:
        raise SystemExit("hta_trial needs HTA: pip install HolisticTraceAnalysis") from None
    quiet()
    print(f"import hta: {(time.perf_counter() - t0) * 1e3:.0f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            trial(path, Path(tmp))


if __name__ == "__main__":
    main()
