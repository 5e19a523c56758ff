"""Capture: run each variant under torch.profiler and write one result set.

Takes: a list of variants, a shape, a dtype, modes, an output root.
Gives: results/<gpu-slug>__torch-<version>/ (see gen.schema for the layout),
written into a hidden staging folder and renamed into place at the end.

Imports only torch, numpy-free standard library, and the torch-free gen
modules: it must run as-is on the GPU machine (Python 3.12, no registry).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import gc
import os
import platform
import shutil
import subprocess
import time
import traceback
import warnings
from pathlib import Path

import torch

from gen.capture import counters as counter_defs
from gen.capture import sweep
from gen.capture.attention import (
    DTYPES,
    build,
    check_heads,
    grad_output,
    make_inputs,
    reference_grads,
    reference_slice,
    rel_error,
)
from gen.capture.probe import LOG as _LOG
from gen.capture.probe import call, log, peak_memory, profile_to
from gen.capture.probe import free as _free
from gen.capture.probe import mode_context as _mode_context
from gen.capture.probe import out_of_memory as _mem_reason
from gen.capture.probe import refusal as _reason
from gen.capture.probe import sync as _sync
from gen.capture.timing import Budget, describe, measure
from gen.model import layout, schema
from gen.model import scenarios as scenario_defs
from gen.model import variants as variant_defs
from gen.model.variants import Variant

# --------------------------------------------------------------------------- environment


def _cmd(args: list[str]) -> str | None:
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=20, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment() -> schema.Environment:
    cuda = torch.cuda.is_available()
    props = torch.cuda.get_device_properties(0) if cuda else None
    commit = os.environ.get("GEN_GIT_COMMIT") or _cmd(["git", "rev-parse", "HEAD"])
    driver = None
    if cuda:
        driver = _cmd(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
        driver = driver.splitlines()[0] if driver else None
    return schema.Environment(
        device="cuda" if cuda else "cpu",
        gpu_name=props.name if props else None,
        compute_capability=f"{props.major}.{props.minor}" if props else None,
        sm_count=props.multi_processor_count if props else None,
        max_threads_per_sm=getattr(props, "max_threads_per_multi_processor", None),
        max_regs_per_sm=getattr(props, "regs_per_multiprocessor", None),
        max_shared_memory_per_sm=getattr(props, "shared_memory_per_multiprocessor", None),
        l2_cache_bytes=getattr(props, "L2_cache_size", None),
        gpu_memory_bytes=props.total_memory if props else None,
        driver=driver,
        cuda=torch.version.cuda,
        cudnn=str(torch.backends.cudnn.version()) if torch.backends.cudnn.is_available() else None,
        torch=torch.__version__,
        python=platform.python_version(),
        platform=platform.platform(),
        cpu=_cpu_name(),
        date=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        git_commit=commit,
    )


def set_name(env: schema.Environment, label: str | None = None) -> str:
    return layout.set_name(env.gpu_name, env.cpu, env.torch, label)


# --------------------------------------------------------------------------- timing


# --------------------------------------------------------------------------- correctness

# Above this many float64 scores per batch element, the check takes a few heads only.
FULL_CHECK_SCORES = 2**28


def _checked_heads(point: schema.Point) -> list[int]:
    if point.q_heads * point.q_len * point.kv_len <= FULL_CHECK_SCORES:
        return list(range(point.q_heads))
    return check_heads(point)


def output_error(fn, point: schema.Point, dtype, device, seed: int) -> float:
    """Relative error of the output against float64, on fresh inputs: the
    first and last batch elements (all heads, or a few at long sequences)."""
    q, k, v = make_inputs(point, dtype, device, seed)
    with torch.no_grad():
        out = fn(q, k, v)
        heads = _checked_heads(point)
        batches = sorted({0, point.batch - 1})
        got = torch.cat([out[b, heads] for b in batches])
        want = torch.cat([reference_slice(q, k, v, point, heads, batch=b) for b in batches])
    return rel_error(got, want)


def grad_error(fn, point: schema.Point, dtype, device, seed: int) -> float:
    """The worst relative error of dq, dk, dv against float64 gradients, on
    fresh inputs: batch element 0, through the first KV head and its query heads."""
    q, k, v = make_inputs(point, dtype, device, seed, grad=True)
    go = grad_output(point, dtype, device, seed + 1)
    fn(q, k, v).backward(go)
    groups = point.q_heads // point.kv_heads
    dq, dk, dv = reference_grads(q, k, v, go, point, kv_head=0, batch=0)
    got = (q.grad[0, :groups], k.grad[0, 0], v.grad[0, 0])
    return max(rel_error(a, b) for a, b in zip(got, (dq, dk, dv)))


# --------------------------------------------------------------------------- profiling


# --------------------------------------------------------------------------- one variant


def _grads(out, inputs, grad_out):
    for t in inputs:
        t.grad = None
    out.backward(grad_out)
    return [t.grad for t in inputs]


def run_variant(v: Variant, mode: str, cfg: schema.RunConfig, device: torch.device, budget: Budget,
                staging: Path, point: schema.Point | None = None, scenario: str = "article",
                dtype: str | None = None) -> schema.VariantRun:
    """One variant in one mode at one point (default: the config's shape, causal):
    correctness, the three timings, peak memory and a profiled trace."""
    point = point or _point(cfg, cfg.seq_len, cfg.head_dim)
    dtype = DTYPES[dtype or cfg.dtype]
    run = schema.VariantRun(variant=v.name, mode=mode, status="ok", device=device.type, scenario=scenario,
                            point=point)
    if mode == "train" and not v.train:
        run.status, run.reason = "unavailable", "this variant declares no training run"
        return run
    train = mode == "train"
    caught: list = []
    try:
        # Warnings are recorded only while building and on the first calls: a
        # pinned backend says there why it refuses. The timed loops run
        # outside, without the cost of a warnings filter.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            built = build(v.kind, v.backend, point, device)
            q, k, v_ = make_inputs(point, dtype, device, cfg.seed, grad=train)
            grad_out = grad_output(point, dtype, device, cfg.seed + 7) if train else None
            with built.context():
                step = call(built, q, k, v_, grad_out)

                with _mode_context(train):
                    t0 = time.perf_counter()
                    step()  # the first call: compiles, plans, or refuses
                    _sync(device)
                    first_call_s = time.perf_counter() - t0
                if built.compiled:
                    run.compile_time_s = first_call_s
                run.first_call_s = first_call_s
                # Correctness on fresh inputs each draw, against float64.
                check = grad_error if train else output_error
                run.rel_errors = [check(built.fn, point, dtype, device, cfg.seed + 100 + 2 * d)
                                  for d in range(cfg.error_draws)]
                _free(device)

        # torch.no_grad() (inference) is entered here, once, outside every loop.
        with built.context(), _mode_context(train):
            run.timing = measure(step, device, budget, graph=True)
            q.grad = k.grad = v_.grad = None
            _free(device)
            run.peak_memory_bytes, run.baseline_memory_bytes = peak_memory(step, device)
            rel = f"{schema.TRACE_DIR}/{scenario}__{mode}__{v.name}.json.gz"
            run.profiled_forwards = profile_to(
                step, staging / rel, device, cfg.profile_wait, cfg.profile_warmup, cfg.profile_active
            )
            run.trace = rel
    except torch.OutOfMemoryError as exc:
        run.status, run.reason = "unavailable", _mem_reason(exc)
    except (RuntimeError, NotImplementedError, ValueError, AssertionError) as exc:
        run.status, run.reason = "unavailable", _reason(exc, caught)
        run.error_detail = traceback.format_exc().strip().splitlines()[-1][:300]
    except Exception as exc:  # Inductor and Triton raise their own types; never crash the run
        run.status, run.reason = "unavailable", _reason(exc, caught)
    finally:
        _free(device)
    return run


def inplace_autograd_check(cfg: schema.RunConfig, device: torch.device) -> schema.InplaceCheck:
    """Does masked_fill_ break training? Run naive and naive_inplace backward on
    the same inputs and compare their gradients, instead of assuming."""
    point = _point(cfg, cfg.seq_len, cfg.head_dim)
    dtype = DTYPES[cfg.dtype]
    q, k, v = make_inputs(point, dtype, device, cfg.seed + 300, grad=True)
    go = grad_output(point, dtype, device, cfg.seed + 301)
    base, inplace = variant_defs.inplace_pair()
    ref = build(base.kind, base.backend, point, device).fn
    inp = build(inplace.kind, inplace.backend, point, device).fn
    g_ref = [g.clone() for g in _grads(ref(q, k, v), (q, k, v), go)]
    try:
        g_inp = _grads(inp(q, k, v), (q, k, v), go)
    except RuntimeError as exc:
        return schema.InplaceCheck(outcome="autograd error", error=str(exc).strip().splitlines()[0])
    diffs = [float((a.double() - b.double()).abs().max()) for a, b in zip(g_inp, g_ref)]
    _free(device)
    return schema.InplaceCheck(outcome="gradients match" if max(diffs) == 0.0 else "gradients differ",
                               max_abs_grad_diff=max(diffs))


def counter_pass(runs: list[schema.VariantRun], modes: list[str], cfg: schema.RunConfig, device: torch.device,
                 env: schema.Environment) -> schema.Environment:
    """Nsight Compute's counters of one warm call per variant that ran, per mode,
    at the run point, in a process of its own (gen.capture.counters). Returns
    the environment with ncu's version."""
    for mode in modes:
        ok = [r for r in runs if r.mode == mode and r.status == schema.Status.OK]
        if not ok:
            continue
        _free(device)
        got = counter_defs.collect([r.variant for r in ok], mode, ok[0].point or _point(cfg, cfg.seq_len, cfg.head_dim),
                                   cfg.dtype, seed=cfg.seed or 0, device=device.type)
        for r in ok:
            r.counters = got.counters[r.variant]
        for line in got.log:
            log(f"  ncu: {line}")
        kernels = sum(len(c.kernels) for c in got.counters.values())
        reasons = sorted({c.reason for c in got.counters.values() if c.reason})
        log(f"counter pass {mode}: {sum(c.status == 'ok' for c in got.counters.values())}/{len(ok)} variants, "
            f"{kernels} kernels in {got.seconds:.1f} s" + (f" ({'; '.join(reasons)})" if reasons else ""))
        if got.ncu_version:
            env = dataclasses.replace(env, ncu=got.ncu_version)
    return env


def _point(cfg: schema.RunConfig, seq: int, dim: int) -> schema.Point:
    return schema.Point(batch=cfg.batch, q_heads=cfg.heads, kv_heads=cfg.heads, head_dim=dim, q_len=seq,
                        kv_len=seq, mask="causal")


# --------------------------------------------------------------------------- the whole run


def profile(variants: list[Variant], shape: tuple[int, int, int, int], dtype: str, modes: list[str],
            out_root: Path, force: bool = False, label: str | None = None, budget: Budget | None = None,
            sweep_seqs: list[int] | None = None, sweep_dims: list[int] | None = None,
            time_limit_s: float = 3600.0, seed: int = 0, if_missing: bool = False,
            scenarios: list[scenario_defs.Scenario] | None = None, counters: bool = True) -> Path:
    """Run everything asked for and publish one result set; returns its path.
    `scenarios` (gen.model.scenarios, shaped by the CLI) say what is swept;
    without them, the article's at `shape`, swept over sweep_seqs x sweep_dims.
    The profiled runs are the article's run point, when it is among them."""
    t_start = time.monotonic()
    _LOG.clear()
    # The objects of the imports (torch's are hundreds of thousands) are left out of every
    # collection from here on: each free() between runs then takes a millisecond, not 0.1-0.3 s.
    gc.freeze()
    budget = budget or Budget()
    if dtype not in DTYPES:
        raise schema.UserError(f"--dtype: {dtype!r} is not one of {', '.join(DTYPES)}")
    env = environment()
    device = torch.device("cuda" if env.device == "cuda" else "cpu")
    if device.type == "cpu":
        log("no GPU found (torch.cuda.is_available() is False): profiling the CPU side only; "
            "variants that need CUDA are recorded as unavailable")
    name = set_name(env, label)
    final = Path(out_root) / name
    if final.exists() and if_missing:
        log(f"{final} exists: nothing to profile")
        return final
    if final.exists() and not force:
        raise schema.UserError(f"{final}: result set exists; pass --force to replace it, or --label to keep both")
    B, H, S, D = shape
    cfg = schema.RunConfig(
        batch=B, heads=H, seq_len=S, head_dim=D, dtype=dtype, modes=list(modes),
        variants=[v.name for v in variants], warmup_min=budget.warmup_min, repeats=budget.repeats,
        profile_wait=1, profile_warmup=1, profile_active=3, error_draws=3, seed=seed,
    )
    layout.recover(Path(out_root))  # what a killed run left: restored or removed, and said
    staging = layout.make_staging(Path(out_root), name)
    (staging / schema.TRACE_DIR).mkdir()
    try:
        log(f"profiling into {final} on {env.gpu_name or 'CPU'} with torch {env.torch}, "
            f"shape B={B} H={H} S={S} D={D} {dtype}")
        if device.type == "cuda":
            # Bring the clocks up before the first variant, not during it.
            a = torch.randn(4096, 4096, device=device, dtype=torch.bfloat16)
            t_end = time.perf_counter() + 2.0
            while time.perf_counter() < t_end:
                for _ in range(20):
                    a @ a
                torch.cuda.synchronize()
            del a
        if scenarios is None:
            dims = [D] + [d for d in (sweep_dims or []) if d != D]
            scenarios = [scenario_defs.with_overrides(
                scenario_defs.SCENARIOS[scenario_defs.ARTICLE], batch=B, heads=H, run_length=S, head_dims=dims,
                lengths=sweep_seqs or [], dtype=dtype)]
        runs = []
        with_runs = any(s.run_length for s in scenarios)
        steps = [(m, v) for m in modes for v in variants] if with_runs else []
        for i, (mode, v) in enumerate(steps, 1):
            t0 = time.monotonic()
            r = run_variant(v, mode, cfg, device, budget, staging)
            if mode == "train" and v.role == variant_defs.Role.INPLACE and r.status == "ok":
                r.inplace_autograd = inplace_autograd_check(cfg, device)
            runs.append(r)
            what = r.reason if r.status != "ok" else (
                f"{describe(r.timing)}, "
                f"err {max(r.rel_errors) if r.rel_errors else float('nan'):.2e}"
            )
            log(f"[{i}/{len(steps)}] {mode} {v.name}: {r.status} ({what}) in {time.monotonic() - t0:.1f} s")
        if counters and runs:
            env = counter_pass(runs, modes, cfg, device, env)
        rs = schema.ResultSet(schema.SCHEMA_VERSION, name, env, cfg, runs)
        rs.scenarios = [s.record(modes) for s in scenarios]
        if sweep.plan(variants, scenarios, modes):
            log("measuring the GPU's ceilings")
            rs.ceilings = sweep.ceilings(device)
            # The sweep stops starting points once the run's time limit nears,
            # keeping time to write the set; points not reached say so.
            rs.sweep = sweep.run_sweep(variants, scenarios, modes, device, staging, t_start + time_limit_s,
                                       seed=seed, budget=sweep.budget_for(budget))
        rs.duration_s = time.monotonic() - t_start
        log(f"finished in {rs.duration_s:.0f} s")
        layout.atomic_write_text(staging / "capture.log", "\n".join(_LOG) + "\n")
        layout.atomic_write_text(staging / schema.RESULT_FILE, schema.dumps(rs))
        layout.publish_set(staging, final, force)
        log(f"wrote {final} in {rs.duration_s:.0f} s")
        return final
    finally:
        shutil.rmtree(staging, ignore_errors=True)
