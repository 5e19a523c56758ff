"""One variant in one mode at one point of the article's run: checked, timed, profiled.

Takes: a `Variant`, a mode, the run's `schema.RunConfig` and a device, the
timing `Budget` and the staging folder its trace goes into. Gives:
`run_variant(...) -> schema.VariantRun` (the error against float64 on fresh
inputs, the three timings, the forward and backward apart in training, peak
memory and a profiled trace; what it refuses, with PyTorch's reason);
`output_error` / `grad_error` (the checks, against gen.capture.inputs'
float64 reference); `inplace_autograd_check` (does masked_fill_ break
training: naive and naive_inplace's gradients compared); `runrun_point(cfg,
seq, dim)`, the run's causal point.
"""

from __future__ import annotations

import time
import traceback
import warnings
from pathlib import Path

import torch

from gen.capture import probe
from gen.capture.attention import build
from gen.capture.inputs import (
    DTYPES,
    check_heads,
    grad_output,
    make_inputs,
    reference_grads,
    reference_slice,
    rel_error,
)
from gen.capture.probe import call, peak_memory, profile_to
from gen.capture.probe import free as _free
from gen.capture.probe import mode_context as _mode_context
from gen.capture.probe import out_of_memory as _mem_reason
from gen.capture.probe import refusal as _reason
from gen.capture.probe import sync as _sync
from gen.capture.timers import fwd_bwd_ms
from gen.capture.timing import Budget, first_line, measure
from gen.model import schema
from gen.model import variants as variant_defs
from gen.model.variants import Variant

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


def _grads(out, inputs, grad_out):
    for t in inputs:
        t.grad = None
    out.backward(grad_out)
    return [t.grad for t in inputs]


def run_variant(v: Variant, mode: str, cfg: schema.RunConfig, device: torch.device, budget: Budget,
                staging: Path, point: schema.Point | None = None, scenario: str = "article",
                dtype: str | None = None, sampler=None, burst: bool = False,
                ahead_s: float | None = None) -> schema.VariantRun:
    """One variant in one mode at one point (default: the config's shape, causal):
    correctness, the three timings, peak memory and a profiled trace. `ahead_s`: a side
    process's first call of this compiled call (gen.capture.precompile), its compile time."""
    point = point or run_point(cfg, cfg.seq_len, cfg.head_dim)
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
            q, k, v_ = make_inputs(point, dtype, device, cfg.seed, grad=train, layout=built.layout)
            grad_out = grad_output(point, dtype, device, cfg.seed + 7) if train else None
            with built.context():
                step = call(built, q, k, v_, grad_out)

                with _mode_context(train):
                    run.first_in_process = probe.first_in_process(v.kind, v.backend)
                    t0 = time.perf_counter()
                    step()  # the first call: compiles, plans, or refuses
                    _sync(device)
                    first_call_s = time.perf_counter() - t0
                if built.compiled:
                    run.compile_time_s = first_call_s if ahead_s is None else ahead_s
                    run.compiled_ahead = ahead_s is not None or None
                run.first_call_s = first_call_s
                # Correctness on fresh inputs each draw, against float64.
                check = grad_error if train else output_error
                run.rel_errors = [check(built.fn, point, dtype, device, cfg.seed + 100 + 2 * d)
                                  for d in range(cfg.error_draws)]
                _free(device)

        # torch.no_grad() (inference) is entered here, once, outside every loop.
        with built.context(), _mode_context(train):
            rel = f"{schema.TRACE_DIR}/{scenario}__{mode}__{v.name}.json.gz"
            run.peak_memory_bytes, run.baseline_memory_bytes = peak_memory(step, device)
            q.grad = k.grad = v_.grad = None

            def profiled():
                work: list = []
                run.profiled_forwards = profile_to(step, staging / rel, device, cfg.profile_wait,
                                                   cfg.profile_warmup, cfg.profile_active, work=work)
                return work or None

            run.timing = measure(step, device, budget, graph=True, sampler=sampler, profiled=profiled,
                                 do_burst=burst)
            if train:
                _fwd_bwd(run.timing, built.fn, q, k, v_, grad_out, device, budget)
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


def _fwd_bwd(t: schema.Timing, fn, q, k, v, go, device, budget: Budget) -> None:
    """The forward and the backward of a training step timed apart (schema.Timing.fwd_ms, bwd_ms)."""
    try:
        t.fwd_ms, t.bwd_ms, t.fwd_bwd_method = fwd_bwd_ms(fn, q, k, v, go, device, calls=max(3, budget.repeats // 2))
    except torch.OutOfMemoryError as exc:
        t.fwd_bwd_reason = _mem_reason(exc)
    except Exception as exc:  # noqa: BLE001 - the step itself ran: its split is a detail, not the run's status
        t.fwd_bwd_reason = first_line(exc)
    finally:
        q.grad = k.grad = v.grad = None


def inplace_autograd_check(cfg: schema.RunConfig, device: torch.device) -> schema.InplaceCheck:
    """Does masked_fill_ break training? Run naive and naive_inplace backward on
    the same inputs and compare their gradients, instead of assuming."""
    point = run_point(cfg, cfg.seq_len, cfg.head_dim)
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



def run_point(cfg: schema.RunConfig, seq: int, dim: int) -> schema.Point:
    return schema.Point(batch=cfg.batch, q_heads=cfg.heads, kv_heads=cfg.heads, head_dim=dim, q_len=seq,
                        kv_len=seq, mask="causal")
