"""The GPU's own ceilings: a bf16 matrix product, a device-to-device copy and a read-only pass, sustained.

Takes: a device and optionally an NVML sampler (gen.capture.telemetry).
Gives: `ceilings(device, sampler) -> schema.Ceilings | None` (None on a CPU),
each figure taken after a warm-up that settles the clocks, with the
telemetry of its window.
"""

from __future__ import annotations

import contextlib
import math
import statistics

import torch

from gen.capture import probe
from gen.capture.timers import timer_for
from gen.capture.timing import Budget, warm_up
from gen.model import schema

CEILING_BUDGET = Budget(warmup_min=5, warmup_min_s=0.3, warmup_max_s=1.5, repeats=20, min_measure_s=0.5)


def _sustained(fn, device: torch.device, sampler) -> tuple[list[float], schema.Telemetry | None]:
    """Warm-up until settled, then back-to-back calls for min_measure_s: the sustained figure."""
    timer = timer_for(device)
    b = CEILING_BUDGET
    warm_up(fn, timer, b)
    intervals: list = []
    with (sampler.window(intervals) if sampler is not None else contextlib.nullcontext()):
        ms = timer.loop_ms(fn, 3)
        n = max(b.repeats, min(b.max_repeats, math.ceil(b.min_measure_s * 1e3 / max(statistics.median(ms), 1e-6))))
        ms = timer.loop_ms(fn, n)
    tel = sampler.of(intervals) if sampler is not None and sampler.ok else None
    return ms, tel


def _matmul_ms(device: torch.device, n: int, sampler=None):
    a, b = (torch.randn(n, n, device=device, dtype=torch.bfloat16) for _ in range(2))
    return _sustained(lambda: a @ b, device, sampler)


def _copy_ms(device: torch.device, elems: int, sampler=None):
    src = torch.randn(elems // 1024, 1024, device=device).to(torch.bfloat16).flatten()
    dst = torch.empty_like(src)
    ms, tel = _sustained(lambda: dst.copy_(src), device, sampler)
    return ms, 2 * src.numel() * src.element_size(), tel  # bytes read plus bytes written


def _read_ms(device: torch.device, elems: int, sampler=None):
    """A reduction over a large buffer: it reads every byte once and writes one number."""
    src = torch.randn(elems // 1024, 1024, device=device).to(torch.bfloat16).flatten()
    ms, tel = _sustained(lambda: src.sum(dtype=torch.float32), device, sampler)
    return ms, src.numel() * src.element_size(), tel


def ceilings(device: torch.device, sampler=None) -> schema.Ceilings | None:
    """The GPU's own limits, measured on random data, sustained (after a
    warm-up that settles the clocks; the telemetry says at what clock): a bf16
    matrix product, a device-to-device copy of 4 GiB and a read-only pass
    (a sum) over 4 GiB. Each helper frees its tensors on return."""
    if device.type != "cuda":
        return None
    n = 8192
    mm, mm_tel = _matmul_ms(device, n, sampler)
    probe.free(device)
    cp, copy_bytes, cp_tel = _copy_ms(device, 2 * 1024**3, sampler)
    probe.free(device)
    rd, read_bytes, rd_tel = _read_ms(device, 2 * 1024**3, sampler)
    probe.free(device)
    tel = {k: v for k, v in (("matmul", mm_tel), ("copy", cp_tel), ("read", rd_tel)) if v is not None}
    return schema.Ceilings([n, n, n], "bf16", mm, copy_bytes, cp, read_bytes=read_bytes, read_ms=rd, telemetry=tel)
