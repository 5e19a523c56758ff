"""The scenario sweep and the GPU's ceilings.

Takes: variants (gen.model.variants), scenarios (gen.model.scenarios), a
device, a staging folder and a deadline. Gives: `run_sweep(...) ->
list[schema.SweepPoint]`, one per (scenario, mode, point, variant), each with
its status (ok, or unavailable with PyTorch's reason, oom, skipped with why),
three labelled timings (gen.capture.timing), peak memory, the error against
float64 on a slice, and a trace of one profiled call; and `ceilings(device)`,
the GPU's measured matmul and copy limits.

Order: compiled variants last (they compile again at every shape), so that
the time limit costs the fewest points; within a series, lengths grow and a
point predicted to end past the deadline is skipped, one after an OOM is not
tried. Imports torch, the standard library and gen.model only.
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch

from gen.capture import probe
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
from gen.capture.timing import Budget, describe, measure
from gen.model import schema
from gen.model.scenarios import ARTICLE, Scenario
from gen.model.variants import Variant

# Short: a sweep has many points; the profiled runs take the full budget.
SWEEP_BUDGET = Budget(warmup_min=5, warmup_min_s=0.2, warmup_max_s=1.0, settle_tol=0.05,
                      repeats=10, min_measure_s=0.3, max_repeats=200, host_repeats=10, graph_replays=20)


def budget_for(run: Budget) -> Budget:
    """The sweep's budget: SWEEP_BUDGET, cut further where the runs' budget is
    smaller (--quick), field by field."""
    return Budget(**{f.name: min(getattr(SWEEP_BUDGET, f.name), getattr(run, f.name))
                     for f in dataclasses.fields(Budget)})


# Kept to write the set after the last point the time limit lets start.
WRITE_MARGIN_S = 30.0


@dataclass(frozen=True)
class Job:
    """One planned sweep point."""

    scenario: Scenario
    mode: str
    point: schema.Point
    variant: Variant
    trace: str | None  # path relative to the set, None: no trace kept


def trace_name(scenario: str, variant: str, mode: str, p: schema.Point, article_default_dim: int | None) -> str | None:
    """Unique per scenario. The article's inference sweep keeps its schema-1
    names, with traces at its own head dim only (as before)."""
    if scenario == ARTICLE and mode == schema.Mode.INFERENCE:
        if p.head_dim != article_default_dim:
            return None
        return f"{schema.TRACE_DIR}/sweep__{variant}__s{p.kv_len}_d{p.head_dim}.json.gz"
    return f"{schema.TRACE_DIR}/{scenario}__{variant}__{mode}__q{p.q_len}_k{p.kv_len}.json.gz"


def plan(variants: list[Variant], scenarios: list[Scenario], modes: list[str]) -> list[list[Job]]:
    """Series of jobs (one scenario, mode, head dim and variant; lengths
    growing), compiled variants' series last."""
    series = []
    for compiled in (False, True):
        for s in scenarios:
            groups = [(schema.Mode.INFERENCE.value, s.points())]
            if schema.Mode.TRAIN in modes:
                groups.append((schema.Mode.TRAIN.value, s.train_points()))
            for mode, points in groups:
                for dim in dict.fromkeys(p.head_dim for p in points):
                    for v in s.variants_for(variants):
                        if v.compiled != compiled:
                            continue
                        jobs = [Job(s, mode, p, v, trace_name(s.name, v.name, mode, p, s.head_dim))
                                for p in points if p.head_dim == dim]
                        if jobs:
                            series.append(jobs)
    return series


def predicted_s(last_s: float, prev: schema.Point, nxt: schema.Point, compiled: bool) -> float:
    """The next point's time from the last one's: prefill work grows with
    q_len x kv_len, decode with kv_len; a compiled variant's time is mostly
    its compile, which grows more slowly."""
    ratio = nxt.kv_len / prev.kv_len
    work = ratio * (nxt.q_len / prev.q_len)
    return last_s * (ratio if compiled else max(work, 1.0))


def run_sweep(variants: list[Variant], scenarios: list[Scenario], modes: list[str], device: torch.device,
              staging: Path, deadline: float, seed: int = 0, budget: Budget | None = None) -> list[schema.SweepPoint]:
    """Every job of `plan`, each a SweepPoint; `deadline` is time.monotonic()."""
    budget = budget or SWEEP_BUDGET
    series = plan(variants, scenarios, modes)
    total = sum(len(s) for s in series)
    out: list[schema.SweepPoint] = []
    for jobs in series:
        oom_at, last_s, prev = None, 0.0, None
        for job in jobs:
            p = schema.SweepPoint(variant=job.variant.name, point=job.point, status=schema.Status.OK.value,
                                  scenario=job.scenario.name, mode=job.mode)
            predicted = predicted_s(last_s, prev, job.point, job.variant.compiled) if prev else 0.0
            if oom_at is not None:
                p.status, p.reason = schema.Status.OOM.value, f"not run: out of memory already at {oom_at} tokens"
            elif time.monotonic() + predicted > deadline - WRITE_MARGIN_S:
                p.status = schema.Status.SKIPPED.value
                p.reason = (f"not run: predicted {predicted:.0f} s from the last point, past the run's time limit"
                            if prev else "not run: the run's time limit was reached")
            else:
                t0 = time.monotonic()
                p = sweep_point(job, device, budget, staging, seed)
                last_s, prev = time.monotonic() - t0, job.point
                if p.status == schema.Status.OOM:
                    oom_at = job.point.kv_len
            out.append(p)
            what = describe(p.timing) if p.status == schema.Status.OK else f"{p.status} ({p.reason})"
            pt = job.point
            probe.log(f"  sweep [{len(out)}/{total}] {job.scenario.name} {job.mode} {job.variant.name} "
                      f"q={pt.q_len} kv={pt.kv_len} D={pt.head_dim}: {what}"
                      + (f", err {p.rel_error:.1e}" if p.rel_error is not None else ""))
    return out


def _check(built, train: bool, point: schema.Point, q, k, v, go) -> float:
    """The first call (it compiles, plans or refuses) checked against float64
    on a slice: one batch element and two query heads (inference), or one KV
    head and its query heads' gradients (train). The full float64 reference
    at these lengths would not fit."""
    if not train:
        heads = check_heads(point)
        out = built.fn(q, k, v)
        return rel_error(out[0, heads], reference_slice(q, k, v, point, heads))
    built.fn(q, k, v).backward(go)
    groups = point.q_heads // point.kv_heads
    want = reference_grads(q, k, v, go, point)
    got = (q.grad[0, :groups], k.grad[0, 0], v.grad[0, 0])
    return max(rel_error(a, b) for a, b in zip(got, want))


def sweep_point(job: Job, device: torch.device, budget: Budget, staging: Path, seed: int = 0) -> schema.SweepPoint:
    """One variant at one scenario point; a refusal or an OOM is a status, never a crash."""
    p = _sweep_point(job, device, budget, staging, seed)
    # Here, not inside: the point's tensors and graphs are unreferenced only
    # once that frame is gone, and the next point may need all the memory.
    probe.free(device)
    if p.status != schema.Status.OK:
        # A point that failed half-way keeps no timing or trace of its own.
        p.timing, p.trace = schema.Timing(), None
        if job.trace:
            (staging / job.trace).unlink(missing_ok=True)
    return p


def _sweep_point(job: Job, device: torch.device, budget: Budget, staging: Path, seed: int) -> schema.SweepPoint:
    v, point, train = job.variant, job.point, job.mode == schema.Mode.TRAIN
    p = schema.SweepPoint(variant=v.name, point=point, status=schema.Status.OK.value, scenario=job.scenario.name,
                          mode=job.mode)
    if train and not v.train:
        p.status, p.reason = schema.Status.UNAVAILABLE.value, "this variant declares no training run"
        return p
    caught: list = []
    try:
        # Warnings are recorded while building and on the first call only: a
        # pinned backend says there why it refuses; the timed loops run bare.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            built = build(v.kind, v.backend, point, device)
            p.dtype, p.facts = built.dtype or job.scenario.dtype, dict(built.facts)
            q, k, v_ = make_inputs(point, DTYPES[p.dtype], device, seed, grad=train, layout=built.layout)
            go = grad_output(point, DTYPES[job.scenario.dtype], device, seed + 7) if train else None
            if built.explain is not None:
                p.sdpa_choice, p.backend_reasons = built.explain(q, k, v_)
            with built.context(), probe.mode_context(train):
                t0 = time.perf_counter()
                p.rel_error = _check(built, train, point, q, k, v_, go)
                probe.sync(device)
                if built.compiled:
                    p.compile_time_s = time.perf_counter() - t0
        step = probe.call(built, q, k, v_, go)
        probe.free(device)
        with built.context(), probe.mode_context(train):
            p.timing = measure(step, device, budget, graph=True)
            q.grad = k.grad = v_.grad = None
            probe.free(device)
            p.peak_memory_bytes, p.baseline_memory_bytes = probe.peak_memory(step, device)
            if job.trace:
                probe.profile_to(step, staging / job.trace, device, 0, 1, 1)
                p.trace = job.trace
    except torch.OutOfMemoryError as exc:
        p.status, p.reason = schema.Status.OOM.value, probe.out_of_memory(exc)
    except Exception as exc:  # a refused shape, a compiler error: a point, not a crash
        p.status, p.reason = schema.Status.UNAVAILABLE.value, probe.refusal(exc, caught)
    return p


# --------------------------------------------------------------------------- ceilings


def _matmul_ms(device: torch.device, n: int) -> list[float]:
    a, b = (torch.randn(n, n, device=device, dtype=torch.bfloat16) for _ in range(2))
    return measure(lambda: a @ b, device, Budget(repeats=30, min_measure_s=1.0), graph=False).eager_ms


def _copy_ms(device: torch.device, elems: int) -> tuple[list[float], int]:
    src = torch.randn(elems // 1024, 1024, device=device).to(torch.bfloat16).flatten()
    dst = torch.empty_like(src)
    ms = measure(lambda: dst.copy_(src), device, Budget(repeats=30, min_measure_s=1.0), graph=False).eager_ms
    return ms, 2 * src.numel() * src.element_size()  # bytes read plus bytes written


def ceilings(device: torch.device) -> schema.Ceilings | None:
    """The GPU's own limits, measured on random data: a bf16 matrix product and
    a device-to-device copy of 4 GiB. Each helper frees its tensors on return."""
    if device.type != "cuda":
        return None
    n = 8192
    mm = _matmul_ms(device, n)
    probe.free(device)
    cp, copy_bytes = _copy_ms(device, 2 * 1024**3)
    probe.free(device)
    return schema.Ceilings([n, n, n], "bf16", mm, copy_bytes, cp)
