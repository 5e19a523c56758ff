"""Capture: run each variant under torch.profiler and write one result set.

Takes: a list of variants, a shape, a dtype, modes, an output root.
Gives: results/<gpu-slug>__torch-<version>/ (see gen.schema for the layout),
written into a hidden staging folder and renamed into place at the end.

Imports only torch, numpy-free standard library, and the torch-free gen
modules: it must run as-is on the GPU machine (Python 3.12, no registry).
"""

from __future__ import annotations

import datetime as _dt
import gzip
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch

from gen.capture.attention import build
from gen.model import layout, schema
from gen.model.variants import Variant

COMPILED_KINDS = {"flex", "naive_compiled"}
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


_LOG: list[str] = []


def log(msg: str) -> None:
    """Progress on stderr, kept too for the set's capture.log."""
    _LOG.append(msg)
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- environment


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


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
    device = slug(env.gpu_name) if env.gpu_name else "cpu-" + slug(env.cpu)[:40].strip("-")
    name = f"{device}__torch-{env.torch.split('+')[0]}"
    return f"{name}__{slug(label)}" if label else name


# --------------------------------------------------------------------------- timing


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_device(step, n: int, device: torch.device) -> list[float]:
    """Per-call device time in ms. On CUDA: events around each call, the
    queue kept full so that launch gaps inside a call stay but none between
    calls is counted. On CPU: wall time of the (synchronous) call."""
    if device.type != "cuda":
        out = []
        for _ in range(n):
            t0 = time.perf_counter()
            step()
            out.append((time.perf_counter() - t0) * 1e3)
        return out
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for s, e in zip(starts, ends):
        s.record()
        step()
        e.record()
    torch.cuda.synchronize(device)
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]


def time_host(step, n: int, device: torch.device) -> list[float]:
    """Host dispatch time per call in ms: from the call to its return, with the
    GPU drained before each call so no queue back-pressure is counted."""
    out = []
    for _ in range(n):
        _sync(device)
        t0 = time.perf_counter()
        step()
        out.append((time.perf_counter() - t0) * 1e3)
    _sync(device)
    return out


@dataclass
class Budget:
    warmup_min: int = 10
    warmup_min_s: float = 0.5
    warmup_max_s: float = 4.0
    settle_tol: float = 0.03
    repeats: int = 100
    min_measure_s: float = 0.5
    max_repeats: int = 1000
    host_repeats: int = 20


def warm_up(step, device: torch.device, b: Budget) -> tuple[int, list[float]]:
    """Run until the clocks settle: windows of calls whose median times agree
    within settle_tol twice in a row, after at least warmup_min calls and
    warmup_min_s seconds. Returns calls made and each window's median (ms)."""
    t0 = time.perf_counter()
    iters, windows, window = 0, [], 3
    while True:
        times = time_device(step, window, device)
        iters += window
        windows.append(statistics.median(times))
        elapsed = time.perf_counter() - t0
        settled = len(windows) >= 3 and all(
            abs(windows[-i] - windows[-i - 1]) <= b.settle_tol * windows[-i - 1] for i in (1, 2)
        )
        if (iters >= b.warmup_min and elapsed >= b.warmup_min_s and settled) or elapsed >= b.warmup_max_s:
            return iters, windows
        # Windows of about 20 ms, so one window is long enough to be stable.
        window = max(3, min(200, int(20.0 / max(windows[-1], 1e-3))))


def measure(step, device: torch.device, b: Budget) -> tuple[list[float], list[float], int, list[float]]:
    iters, windows = warm_up(step, device, b)
    per_call = statistics.median(windows[-3:]) if windows else 1.0
    n = max(b.repeats, min(b.max_repeats, math.ceil(b.min_measure_s * 1e3 / max(per_call, 1e-3))))
    gpu = time_device(step, n, device) if device.type == "cuda" else []
    # Host samples drain the GPU before each call: a few suffice for slow calls.
    host_n = max(3, min(b.host_repeats, math.ceil(b.min_measure_s * 1e3 / max(per_call, 1e-3))))
    host = time_host(step, host_n, device)
    return gpu, host, iters, windows


def peak_memory(step, device: torch.device) -> tuple[int | None, int | None]:
    if device.type != "cuda":
        return None, None
    _sync(device)
    torch.cuda.reset_peak_memory_stats(device)
    base = torch.cuda.memory_allocated(device)
    step()
    _sync(device)
    return torch.cuda.max_memory_allocated(device), base


# --------------------------------------------------------------------------- correctness


def reference(q, k, v, heads: slice | None = None):
    """Causal attention in float64, one batch element at a time to bound memory."""
    outs = []
    for b in range(q.shape[0]):
        qb, kb, vb = (t[b].double() if heads is None else t[b, heads].double() for t in (q, k, v))
        s = (qb @ kb.transpose(-2, -1)) * (q.shape[-1] ** -0.5)
        n = s.shape[-1]
        s.masked_fill_(torch.ones(n, n, dtype=torch.bool, device=s.device).triu(1), float("-inf"))
        outs.append(torch.softmax(s, dim=-1) @ vb)
    return torch.stack(outs)


def rel_error(out, ref) -> float:
    out = out.double()
    if not torch.isfinite(out).all():
        return float("nan")
    return float(torch.linalg.vector_norm(out - ref) / torch.linalg.vector_norm(ref))


def make_inputs(shape, dtype, device, seed: int, grad: bool = False):
    # Drawn on the device: the CPU generator takes seconds at 16k tokens.
    g = torch.Generator(device=device).manual_seed(seed)
    ts = [torch.randn(shape, generator=g, device=device, dtype=torch.float32).to(dtype) for _ in range(3)]
    if grad:
        for t in ts:
            t.requires_grad_(True)
    return ts


# --------------------------------------------------------------------------- profiling


def profile_to(step, path: Path, device: torch.device, wait: int, warmup: int, active: int) -> int:
    """Profile wait+warmup+active calls, each in its own record_function range
    `forward#i`; keep the active ones as a gzipped Chrome trace. Returns active."""
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    activities = [ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    raw = path.with_suffix("")  # foo.json.gz -> foo.json

    def ready(prof):
        prof.export_chrome_trace(str(raw))

    with profile(
        activities=activities,
        schedule=schedule(wait=wait, warmup=warmup, active=active, repeat=1),
        record_shapes=True,
        on_trace_ready=ready,
    ) as prof:
        for i in range(wait + warmup + active):
            with record_function(f"forward#{i}"):
                step()
            _sync(device)
            prof.step()
    # mtime=0 so that the same trace gives the same bytes.
    with open(raw, "rb") as src, gzip.GzipFile(path, "wb", compresslevel=9, mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    raw.unlink()
    return active


# --------------------------------------------------------------------------- one variant


def _reason(exc: BaseException, caught: list) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    extra = [str(w.message).strip().splitlines()[0] for w in caught if str(w.message).strip()]
    # PyTorch says why a pinned backend refused in warnings just before the error.
    extra = [e for e in dict.fromkeys(extra) if "reason" in e.lower() or "not" in e.lower()]
    return "; ".join([f"{type(exc).__name__}: {first}"] + extra[:4])


def _mem_reason(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0]
    return f"out of memory: {first[:200]}"


def _free(device: torch.device) -> None:
    import gc

    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def _grads(out, inputs, grad_out):
    for t in inputs:
        t.grad = None
    out.backward(grad_out)
    return [t.grad for t in inputs]


def run_variant(v: Variant, mode: str, cfg: schema.RunConfig, device: torch.device, budget: Budget,
                staging: Path) -> schema.VariantRun:
    shape = (cfg.batch, cfg.heads, cfg.seq_len, cfg.head_dim)
    dtype = DTYPES[cfg.dtype]
    run = schema.VariantRun(variant=v.name, mode=mode, status="ok", device=device.type)
    if mode == "train" and not v.train:
        run.status, run.reason = "unavailable", "this variant declares no training run"
        return run
    train = mode == "train"
    caught: list = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            built = build(v.kind, v.backend, cfg.seq_len, cfg.head_dim, device)
            q, k, v_ = make_inputs(shape, dtype, device, cfg.seed, grad=train)
            grad_out = make_inputs(shape, dtype, device, cfg.seed + 7)[0] if train else None
            with built.context():
                if train:
                    def step():
                        for t in (q, k, v_):
                            t.grad = None
                        built.fn(q, k, v_).backward(grad_out)
                else:
                    def step():
                        with torch.no_grad():
                            return built.fn(q, k, v_)

                t0 = time.perf_counter()
                step()  # the first call: compiles, plans, or refuses
                _sync(device)
                first_call_s = time.perf_counter() - t0
                if built.compiled:
                    run.compile_time_s = first_call_s
                run.first_call_s = first_call_s

                # Correctness on fresh inputs each draw, against float64.
                for d in range(cfg.error_draws):
                    qi, ki, vi = make_inputs(shape, dtype, device, cfg.seed + 100 + d, grad=train)
                    if train:
                        go = make_inputs(shape, dtype, device, cfg.seed + 200 + d)[0]
                        got = _grads(built.fn(qi, ki, vi), (qi, ki, vi), go)
                        refs = [t.detach().double().requires_grad_(True) for t in (qi, ki, vi)]
                        want = _grads(reference(*refs), refs, go.double())
                        run.rel_errors.append(max(rel_error(a, b) for a, b in zip(got, want)))
                    else:
                        with torch.no_grad():
                            out = built.fn(qi, ki, vi)
                            run.rel_errors.append(rel_error(out, reference(qi, ki, vi)))
                    del qi, ki, vi
                _free(device)

                gpu, host, iters, windows = measure(step, device, budget)
                run.timing = schema.Timing(eager_ms=gpu, host_ms=host, warmup_iters=iters, warmup_window_ms=windows)
                run.peak_memory_bytes, run.baseline_memory_bytes = peak_memory(step, device)

                rel = f"{schema.TRACE_DIR}/{mode}__{v.name}.json.gz"
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
    shape = (cfg.batch, cfg.heads, cfg.seq_len, cfg.head_dim)
    dtype = DTYPES[cfg.dtype]
    q, k, v = make_inputs(shape, dtype, device, cfg.seed + 300, grad=True)
    go = make_inputs(shape, dtype, device, cfg.seed + 301)[0]
    ref = build("naive", None, cfg.seq_len, cfg.head_dim, device).fn
    inp = build("naive_inplace", None, cfg.seq_len, cfg.head_dim, device).fn
    g_ref = [g.clone() for g in _grads(ref(q, k, v), (q, k, v), go)]
    try:
        g_inp = _grads(inp(q, k, v), (q, k, v), go)
    except RuntimeError as exc:
        return schema.InplaceCheck(outcome="autograd error", error=str(exc).strip().splitlines()[0])
    diffs = [float((a.double() - b.double()).abs().max()) for a, b in zip(g_inp, g_ref)]
    _free(device)
    return schema.InplaceCheck(outcome="gradients match" if max(diffs) == 0.0 else "gradients differ",
                               max_abs_grad_diff=max(diffs))


# --------------------------------------------------------------------------- sweep and ceilings


def _matmul_ms(device: torch.device, n: int) -> list[float]:
    a, b = (torch.randn(n, n, device=device, dtype=torch.bfloat16) for _ in range(2))
    return measure(lambda: a @ b, device, Budget(repeats=30, min_measure_s=1.0))[0]


def _copy_ms(device: torch.device, elems: int) -> tuple[list[float], int]:
    src = torch.randn(elems // 1024, 1024, device=device).to(torch.bfloat16).flatten()
    dst = torch.empty_like(src)
    ms = measure(lambda: dst.copy_(src), device, Budget(repeats=30, min_measure_s=1.0))[0]
    return ms, 2 * src.numel() * src.element_size()  # bytes read plus bytes written


def ceilings(device: torch.device) -> schema.Ceilings | None:
    """The GPU's own limits, measured on random data: a bf16 matrix product and
    a device-to-device copy of 4 GiB. Each helper frees its tensors on return."""
    if device.type != "cuda":
        return None
    n = 8192
    mm = _matmul_ms(device, n)
    _free(device)
    cp, copy_bytes = _copy_ms(device, 2 * 1024**3)
    _free(device)
    return schema.Ceilings([n, n, n], "bf16", mm, copy_bytes, cp)


def _point(cfg: schema.RunConfig, seq: int, dim: int) -> schema.Point:
    return schema.Point(batch=cfg.batch, q_heads=cfg.heads, kv_heads=cfg.heads, head_dim=dim, q_len=seq,
                        kv_len=seq, mask="causal")


def sweep_point(v: Variant, seq: int, dim: int, cfg: schema.RunConfig, device: torch.device,
                budget: Budget, staging: Path, keep_trace: bool) -> schema.SweepPoint:
    shape = (cfg.batch, cfg.heads, seq, dim)
    p = schema.SweepPoint(variant=v.name, point=_point(cfg, seq, dim), status="ok")
    caught: list = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            built = build(v.kind, v.backend, seq, dim, device)
            q, k, v_ = make_inputs(shape, DTYPES[cfg.dtype], device, cfg.seed)
            with built.context(), torch.no_grad():
                step = lambda: built.fn(q, k, v_)  # noqa: E731
                out = step()
                # Two heads of one batch element against float64: the full
                # reference at 16k tokens would not fit.
                h = slice(0, min(2, cfg.heads))
                p.rel_error = rel_error(out[:1, h], reference(q[:1], k[:1], v_[:1], heads=h))
                del out
                eager, host, _, _ = measure(step, device, budget)
                p.timing = schema.Timing(eager_ms=eager, host_ms=host)
                p.peak_memory_bytes, p.baseline_memory_bytes = peak_memory(step, device)
                if keep_trace:
                    rel = f"{schema.TRACE_DIR}/sweep__{v.name}__s{seq}_d{dim}.json.gz"
                    profile_to(step, staging / rel, device, 0, 1, 1)
                    p.trace = rel
    except torch.OutOfMemoryError as exc:
        p.status, p.reason = "oom", _mem_reason(exc)
    except Exception as exc:  # a refused shape, a compiler error: a point, not a crash
        p.status, p.reason = "unavailable", _reason(exc, caught)
    finally:
        _free(device)
    return p


def run_sweep(variants: list[Variant], seqs: list[int], dims: list[int], cfg: schema.RunConfig,
              device: torch.device, staging: Path, deadline: float, trace_dim: int) -> list[schema.SweepPoint]:
    budget = Budget(warmup_min=5, warmup_min_s=0.2, warmup_max_s=1.0, settle_tol=0.05,
                    repeats=10, min_measure_s=0.3, max_repeats=200, host_repeats=10)
    points = []
    total = len(variants) * len(seqs) * len(dims)
    # Compiled variants recompile at every shape: run them last, so that a
    # time limit costs the fewest points.
    order = [(d, v) for d in dims for v in variants if v.kind not in COMPILED_KINDS]
    order += [(d, v) for d in dims for v in variants if v.kind in COMPILED_KINDS]
    for dim, v in order:
        oom_at, last_s = None, 0.0
        for seq in seqs:
            # Doubling S quadruples the work: skip a point that would end past the deadline.
            predicted = last_s * (2.0 if v.kind in COMPILED_KINDS else 4.0)
            if oom_at is not None:
                p = schema.SweepPoint(v.name, _point(cfg, seq, dim), "oom", f"not run: out of memory already at S={oom_at}")
            elif time.monotonic() + predicted > deadline:
                p = schema.SweepPoint(v.name, _point(cfg, seq, dim), "skipped",
                                      "not run: it would not have finished within the run's time limit")
            else:
                t0 = time.monotonic()
                p = sweep_point(v, seq, dim, cfg, device, budget, staging, keep_trace=dim == trace_dim)
                last_s = time.monotonic() - t0
                if p.status == "oom":
                    oom_at = seq
            points.append(p)
            med = f"{statistics.median(p.timing.eager_ms or p.timing.host_ms):.3f} ms" if p.status == "ok" else p.status
            log(f"  sweep [{len(points)}/{total}] {v.name} S={seq} D={dim}: {med}")
    return points


# --------------------------------------------------------------------------- the whole run


def profile(variants: list[Variant], shape: tuple[int, int, int, int], dtype: str, modes: list[str],
            out_root: Path, force: bool = False, label: str | None = None, budget: Budget | None = None,
            sweep_seqs: list[int] | None = None, sweep_dims: list[int] | None = None,
            time_limit_s: float = 3600.0, seed: int = 0, if_missing: bool = False) -> Path:
    """Run everything asked for and publish one result set; returns its path."""
    t_start = time.monotonic()
    _LOG.clear()
    budget = budget or Budget()
    if dtype not in DTYPES:
        raise ValueError(f"--dtype: {dtype!r} is not one of {', '.join(DTYPES)}")
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
        raise FileExistsError(f"{final}: result set exists; pass --force to replace it, or --label to keep both")
    B, H, S, D = shape
    cfg = schema.RunConfig(
        batch=B, heads=H, seq_len=S, head_dim=D, dtype=dtype, modes=list(modes),
        variants=[v.name for v in variants], warmup_min=budget.warmup_min, repeats=budget.repeats,
        profile_wait=1, profile_warmup=1, profile_active=3, error_draws=3, seed=seed,
    )
    Path(out_root).mkdir(parents=True, exist_ok=True)
    staging = Path(out_root) / f".staging-{name}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    (staging / schema.TRACE_DIR).mkdir(parents=True)
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
        runs = []
        steps = [(m, v) for m in modes for v in variants]
        for i, (mode, v) in enumerate(steps, 1):
            t0 = time.monotonic()
            r = run_variant(v, mode, cfg, device, budget, staging)
            if mode == "train" and v.name == "naive_inplace" and r.status == "ok":
                r.inplace_autograd = inplace_autograd_check(cfg, device)
            runs.append(r)
            what = r.reason if r.status != "ok" else (
                f"{statistics.median(r.timing.eager_ms or r.timing.host_ms):.4f} ms, "
                f"err {max(r.rel_errors) if r.rel_errors else float('nan'):.2e}"
            )
            log(f"[{i}/{len(steps)}] {mode} {v.name}: {r.status} ({what}) in {time.monotonic() - t0:.1f} s")
        rs = schema.ResultSet(schema.SCHEMA_VERSION, name, env, cfg, runs)
        if sweep_seqs:
            log("measuring the GPU's ceilings")
            rs.ceilings = ceilings(device)
            rs.sweep_batch, rs.sweep_heads = B, H
            # The sweep stops starting points once the run's time limit nears,
            # keeping 30 s to write the set; points not reached say so.
            rs.sweep = run_sweep(variants, sweep_seqs, sweep_dims or [D], cfg, device, staging,
                                 t_start + time_limit_s - 30.0, trace_dim=D)
        rs.duration_s = time.monotonic() - t_start
        log(f"finished in {rs.duration_s:.0f} s")
        layout.atomic_write_text(staging / "capture.log", "\n".join(_LOG) + "\n")
        layout.atomic_write_text(staging / schema.RESULT_FILE, schema.dumps(rs))
        layout.publish_set(staging, final, force)
        log(f"wrote {final} in {rs.duration_s:.0f} s")
        return final
    finally:
        shutil.rmtree(staging, ignore_errors=True)
