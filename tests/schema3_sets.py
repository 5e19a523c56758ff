"""A synthetic schema-3 set: tests/scenario_sets.py's set with what schema 3 adds, filled in.

NVML telemetry for every timed window (sustained graph replays at SUSTAINED_MHZ and
690 W, bursts from idle at BURST_MHZ), interleaved rounds, a burst time at the
gqa-prefill point the cuDNN frontend published (chosen so that the clock rule
explains the gap: 0.465 ms x 1980 / 1670 = 0.551 ms), a read-bandwidth ceiling with
its clocks, and one graph check that differs (the naive article point, which falls
back to the kernel sum with the reason). Numbers are made up for the tests.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from gen.model import schema
from tests import scenario_sets

SUSTAINED_MHZ, BURST_MHZ = 1670.0, 1980.0
ANCHOR_8K = dict(kv_len=4096, published_ms=0.465)  # the cuDNN frontend's time at 4096 (tests' point)
GQA_SUSTAINED_MS = 0.551  # = 0.465 x 1980 / 1670: the clock explains the gap
GQA_BURST_MS = 0.466
READ_BYTES, READ_MS = 8 * 2**30, 1.8  # 4.77 TB/s read-only
MEMCPY = "memcpy32_post"


def telemetry(mhz: float, watts: float = 690.0) -> schema.Telemetry:
    return schema.Telemetry(samples=40, duration_s=0.2, sm_clock_mhz=mhz, sm_clock_min_mhz=mhz - 30,
                            sm_clock_max_mhz=mhz + 10, power_w=watts, power_max_w=watts + 8, temp_c=61.0)


def _rounds(t: schema.Timing) -> None:
    """Three interleaved rounds per window, samples split evenly where they divide."""
    t.rounds = 3
    for w, xs in ((schema.Window.GPU_ONLY, t.gpu_only_ms), (schema.Window.EAGER, t.eager_ms),
                  (schema.Window.HOST, t.host_ms)):
        if xs and len(xs) % 3 == 0:
            t.round_sizes[str(w)] = [len(xs) // 3] * 3
    for w in (schema.Window.GPU_ONLY, schema.Window.EAGER, schema.Window.HOST):
        t.telemetry[str(w)] = telemetry(SUSTAINED_MHZ)


def build(root: Path, name: str = "nvidia-h200__torch-2.11.0__schema3") -> Path:
    d = scenario_sets.build(root, name)
    rs = schema.load_set(d)
    rs.environment = schema.Environment(**{**rs.environment.__dict__, "nvml": "12.580", "sm_clock_max_mhz": 1980.0,
                                           "power_limit_w": 700.0})
    for p in rs.sweep:
        if p.status != "ok":
            continue
        t = p.timing
        _rounds(t)
        t.graph_check = schema.GraphCheck(fidelity="same", graph_kernels=["k"], eager_kernels=["k"])
        if p.scenario == "gqa-prefill" and p.variant == "sdpa_cudnn" and p.mode == "inference" \
                and p.point.kv_len == ANCHOR_8K["kv_len"]:
            ms = GQA_SUSTAINED_MS
            t.gpu_only_ms = [ms * 0.995, ms, ms * 1.005]
            t.eager_ms = [ms * 1.01] * 3
            t.burst_ms = [GQA_BURST_MS] * 20
            t.telemetry[str(schema.Window.BURST)] = telemetry(BURST_MHZ, 420.0)
        if p.scenario == "article" and p.variant == "naive":
            # the graph runs the hidden copy as a kernel: GPU-only falls back to the eager kernel sum
            t.graph_ms, t.gpu_only_ms = t.gpu_only_ms, []
            t.gpu_only_method = schema.GpuOnlyMethod.KERNEL_SUM.value
            t.gpu_only_reason = f"the graph runs the copy as a {MEMCPY} kernel"
            t.kernel_sum_ms = [0.38, 0.381, 0.379]
            t.round_sizes[str(schema.Window.KERNEL_SUM)] = [1, 1, 1]
            t.telemetry[str(schema.Window.KERNEL_SUM)] = telemetry(SUSTAINED_MHZ - 20)
            t.graph_check = schema.GraphCheck(fidelity="differs", graph_kernels=["mm", MEMCPY, "softmax", "mm"],
                                              eager_kernels=["mm", "softmax", "mm"],
                                              detail=f"the graph runs the copy as a {MEMCPY} kernel")
    # one profiled run of the article's forward, with the same conditions
    flash = next(p for p in rs.sweep if p.scenario == "article" and p.variant == "sdpa_flash")
    # each record has its own trace (load refuses two records on one file): the run's is a copy
    run_trace = f"{schema.TRACE_DIR}/article__inference__sdpa_flash.json.gz"
    shutil.copyfile(d / flash.trace, d / run_trace)
    rs.runs.append(schema.VariantRun(variant="sdpa_flash", mode="inference", status="ok", point=flash.point,
                                     timing=flash.timing, trace=run_trace, peak_memory_bytes=2**30,
                                     rel_errors=[1e-3]))
    c = rs.ceilings
    c.read_bytes, c.read_ms = READ_BYTES, [READ_MS] * 3
    c.telemetry = {"matmul": telemetry(1650.0, 700.0), "copy": telemetry(1755.0, 450.0),
                   "read": telemetry(1755.0, 430.0)}
    (d / schema.RESULT_FILE).write_text(schema.dumps(rs), encoding="utf-8")
    return d
