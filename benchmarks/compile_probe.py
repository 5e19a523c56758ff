"""Where the first call of torch.compile'd naive attention spends its time, and
what Nsight Compute's passes cost: a trial on the GPU, not a test.

Usage (GPU): python benchmarks/compile_probe.py OUT_DIR [compile|ncu|room|all]

room: the static 8k first call in two fresh processes, the autotuner left to
copy the mutated buffer to host memory (as torch does by default), then with
the capture's peak raised first (gen.capture.attention.room_for_autotuning),
so that it clones on the GPU.

compile: in fresh processes (each with an Inductor cache of its own), the
article's naive attention at 8k tokens compiled (a) for its static shape, as
the capture does, with cProfile around the first call; (b) with dynamic
shapes, first called at 1024 tokens, then at 8192; the first call and the
per-call time (CUDA events over 10 calls) of each. ncu: gen.capture.ncu_target
under ncu at the article's run point with the capture's sections, then with
the same metrics asked for by name, seconds and passes per kernel of each.
Writes OUT_DIR/compile_probe.json and prints a summary.

flex: where a fresh process's first FlexAttention call goes (the run stage's
first compile, and the counter pass's): in fresh processes sharing one
Inductor cache, (a) cold, (b) warm cache, (c) warm cache with Inductor's
compile machinery imported and its worker pool made ready first; each with
cProfile around the first call at the article's run point, then the first
calls at four sweep lengths (a fresh dynamo state per build, as the capture
builds). Then gen.capture.ncu_target's flex call under ncu, warm cache, with
and without that preparation. Writes OUT_DIR/compile_probe_flex.json.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import cProfile, io, json, pstats, sys, time
import torch
from gen.model import schema
from gen.capture.inputs import make_inputs
from gen.capture.modules import NaiveAttention
mode, first_len, len_ = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
dev = torch.device("cuda")
def point(n):
    return schema.Point(batch=8, q_heads=16, kv_heads=16, head_dim=64, q_len=n, kv_len=n, mask="causal")
out = {"mode": mode}
torch.cuda.init()
if mode == "dynamic":
    mod = NaiveAttention(point(len_), dev)
    fn = torch.compile(mod, dynamic=True)
    # the mask buffer is for len_: the first call at first_len slices none, so use a module per length
    small = NaiveAttention(point(first_len), dev)
    fn_small = torch.compile(small, dynamic=True)
    q, k, v = make_inputs(point(first_len), torch.bfloat16, dev, 0)
    t = time.perf_counter()
    with torch.no_grad():
        fn_small(q, k, v)
    torch.cuda.synchronize()
    out["first_small_s"] = time.perf_counter() - t
else:
    fn = torch.compile(NaiveAttention(point(len_), dev))
q, k, v = make_inputs(point(len_), torch.bfloat16, dev, 0)
if mode == "room":
    from gen.capture.attention import room_for_autotuning
    room_for_autotuning(dev)
prof = cProfile.Profile()
t = time.perf_counter()
prof.enable()
with torch.no_grad():
    fn(q, k, v)
torch.cuda.synchronize()
prof.disable()
out["first_s"] = time.perf_counter() - t
s = io.StringIO()
pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(45)
out["profile"] = s.getvalue()[-9000:]
e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
with torch.no_grad():
    fn(q, k, v)
    e0.record()
    for _ in range(10):
        fn(q, k, v)
    e1.record()
torch.cuda.synchronize()
out["per_call_ms"] = e0.elapsed_time(e1) / 10
print("RESULT " + json.dumps(out))
"""


FLEX_CHILD = r"""
import cProfile, io, json, pstats, sys, time
t0 = time.perf_counter()
import torch
out = {"variant": sys.argv[1], "prepare": sys.argv[2], "import_s": time.perf_counter() - t0}
from gen.model import schema
from gen.capture.attention import build
from gen.capture.inputs import make_inputs
t = time.perf_counter()
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
out["cuda_init_s"] = time.perf_counter() - t
if sys.argv[2] == "prepare":
    t = time.perf_counter()
    import triton  # noqa
    from torch._inductor import compile_fx  # noqa
    from torch._inductor.async_compile import AsyncCompile, maybe_warm_pool
    from torch.nn.attention import flex_attention  # noqa
    maybe_warm_pool()
    out["prepare_import_s"] = time.perf_counter() - t
    AsyncCompile.wait_pool_ready()
    out["prepare_s"] = time.perf_counter() - t
dev = torch.device("cuda")
def point(n, d=64):
    return schema.Point(batch=8, q_heads=16, kv_heads=16, head_dim=d, q_len=n, kv_len=n, mask="causal")
def first(n, prof=None):
    t = time.perf_counter()
    b = build(sys.argv[1], None, point(n), dev)
    q, k, v = make_inputs(point(n), torch.bfloat16, dev, 0)
    tb = time.perf_counter() - t
    if prof: prof.enable()
    with torch.no_grad():
        b.fn(q, k, v)
    torch.cuda.synchronize()
    if prof: prof.disable()
    return tb, time.perf_counter() - t - tb
prof = cProfile.Profile()
out["build_s"], out["first_s"] = first(1024, prof)
s = io.StringIO()
pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(40)
out["profile"] = s.getvalue()[-7000:]
out["compile_times"] = str(torch._dynamo.utils.compile_times())[-3000:]
out["sweep"] = {n: first(n) for n in (512, 2048, 4096, 8192)}
print("RESULT " + json.dumps(out))
"""


def flex_child(variant: str, prepare: str, cache: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TORCHINDUCTOR_CACHE_DIR=cache, TRITON_CACHE_DIR=cache + "/triton")
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", FLEX_CHILD, variant, prepare], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=240)
    res = next((json.loads(line[7:]) for line in p.stdout.splitlines() if line.startswith("RESULT ")), {})
    res["process_s"] = time.perf_counter() - t
    if not res.get("first_s"):
        res["stderr"] = p.stderr[-3000:]
    print(variant, prepare, {k: v for k, v in res.items() if k not in ("profile", "compile_times", "stderr")},
          flush=True)
    return res


NCU_FLEX = r"""
import sys, time
if sys.argv[1] == "prepare":
    import torch, triton  # noqa
    from torch._inductor import compile_fx  # noqa
    from torch._inductor.async_compile import AsyncCompile, maybe_warm_pool
    maybe_warm_pool(); AsyncCompile.wait_pool_ready()
from gen.capture import ncu_target
ncu_target.main(sys.argv[2:])
"""


def ncu_flex(prepare: str, cache: str) -> dict:
    from gen.capture import counters
    ncu = counters.find_ncu()
    point = {"batch": 8, "q_heads": 16, "kv_heads": 16, "head_dim": 64, "q_len": 1024, "kv_len": 1024,
             "mask": "causal", "window": None, "docs": None}
    cmd = [ncu, "--clock-control", "none", "--target-processes", "application-only", "--nvtx",
           "--nvtx-include", counters.range_name("inference", "flex")]
    for s in counters.SECTIONS:
        cmd += ["--section", s]
    cmd += ["--export", tempfile.mkdtemp() + "/r.ncu-rep", sys.executable, "-c", NCU_FLEX, prepare,
            "--mode", "inference", "--variants", "flex", "--mode", "train", "--variants", "flex",
            "--point", json.dumps(point)]
    env = dict(os.environ, PYTHONPATH=str(ROOT), TORCHINDUCTOR_CACHE_DIR=cache, TRITON_CACHE_DIR=cache + "/triton")
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    res = {"seconds": time.perf_counter() - t, "ran": re.findall(r"ran \S+ in [\d.]+ s", p.stdout),
           "tail": (p.stdout + p.stderr)[-800:]}
    print("ncu flex", prepare, res["seconds"], res["ran"], flush=True)
    return res


def child(mode: str, first_len: int, length: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TORCHINDUCTOR_CACHE_DIR=tempfile.mkdtemp(prefix="ind-"))
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", CHILD, mode, str(first_len), str(length)],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=240)
    res = next((json.loads(line[7:]) for line in p.stdout.splitlines() if line.startswith("RESULT ")), {})
    res["process_s"] = time.perf_counter() - t
    if not res.get("first_s"):
        res["stderr"] = p.stderr[-3000:]
    return res


def ncu_trial(sections: bool, variants: str) -> dict:
    from gen.capture import counters
    ncu = counters.find_ncu()
    if not ncu:
        return {"error": "no ncu"}
    extra = counters._extra_metrics(ncu)
    cmd = [ncu, "--clock-control", "none", "--target-processes", "application-only", "--nvtx"]
    for n in variants.split(","):
        cmd += ["--nvtx-include", counters.range_name("inference", n)]
    if sections:
        for s in counters.SECTIONS:
            cmd += ["--section", s]
        metrics = extra
    else:
        for s in ("Occupancy", "LaunchStats"):
            cmd += ["--section", s]
        metrics = extra + [m for ms in counters.FIELDS.values() for m in ms]
    cmd += ["--metrics", ",".join(dict.fromkeys(metrics))]
    rep = Path(tempfile.mkdtemp()) / "r.ncu-rep"
    point = {"batch": 8, "q_heads": 16, "kv_heads": 16, "head_dim": 64, "q_len": 1024, "kv_len": 1024,
             "mask": "causal", "window": None, "docs": None}
    cmd += ["--export", str(rep), sys.executable, "-m", "gen.capture.ncu_target", "--mode", "inference",
            "--variants", variants, "--point", json.dumps(point)]
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                       timeout=300)
    took = time.perf_counter() - t
    passes = [int(m.group(1)) for m in re.finditer(r"(\d+) pass", p.stdout + p.stderr)]
    base = [ncu, "--import", str(rep), "--csv", "--print-units", "base"]
    raw = subprocess.run(base + ["--page", "raw"], capture_output=True, text=True).stdout
    details = subprocess.run(base + ["--page", "details"], capture_output=True, text=True).stdout
    rows = counters.read_raw(raw)
    rules = counters.read_rules(details)
    ks = [counters.kernel(i, r, rules.get(r.get("ID", ""), [])) for i, r in enumerate(rows)]
    return {"sections": sections, "seconds": took, "kernels": len(rows), "passes": passes,
            "fields": [{f: getattr(k, f) for f in ("name", "duration_ns", "achieved_occupancy_pct",
                                                   "sm_throughput_pct", "dram_throughput_pct",
                                                   "l2_hit_rate_pct", "tensor_pipe_pct")} | {
                "rules": [r.name for r in k.rules]} for k in ks],
            "tail": (p.stdout + p.stderr)[-1500:]}


def ncu_overhead() -> dict:
    """Seconds of the counter pass's program (both modes, every article variant
    at the run point): alone; under ncu profiling no kernel; under ncu as the
    capture runs it; and the same with ncu's rules off."""
    from gen.capture import counters
    ncu = counters.find_ncu()
    names = "naive,naive_inplace,sdpa_math,sdpa_efficient,sdpa_flash,sdpa_cudnn,sdpa_auto,flex,naive_compiled"
    point = {"batch": 8, "q_heads": 16, "kv_heads": 16, "head_dim": 64, "q_len": 1024, "kv_len": 1024,
             "mask": "causal", "window": None, "docs": None}
    target = [sys.executable, "-m", "gen.capture.ncu_target", "--mode", "inference", "--variants", names,
              "--mode", "train", "--variants", names, "--point", json.dumps(point)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = {}

    def timed(key, cmd):
        t = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
        res[key] = {"seconds": time.perf_counter() - t, "profiled": len(re.findall(r"==PROF== Profiling", p.stdout)),
                    "tail": (p.stdout + p.stderr)[-600:]}
        print(key, round(res[key]["seconds"], 1), res[key]["profiled"], flush=True)

    timed("alone", target)
    base = [ncu, "--clock-control", "none", "--target-processes", "application-only", "--nvtx"]
    sec = [x for s in counters.SECTIONS for x in ("--section", s)]
    timed("ncu_no_kernel", base + ["--nvtx-include", "gen.nothing"] + sec + target)
    rng = [x for m in ("inference", "train") for n in names.split(",")
           for x in ("--nvtx-include", counters.range_name(m, n))]
    timed("ncu_rules_off", base + rng + sec + ["--apply-rules", "no"] + target)
    return res


def main() -> int:
    out_dir = Path(sys.argv[1])
    what = sys.argv[2] if len(sys.argv) > 2 else "all"
    out_dir.mkdir(parents=True, exist_ok=True)
    res: dict = {}
    if what in ("compile", "all"):
        res["static_8k"] = child("static", 8192, 8192)
        print("static 8k:", {k: v for k, v in res["static_8k"].items() if k != "profile"}, flush=True)
        res["dynamic_1k_8k"] = child("dynamic", 1024, 8192)
        print("dynamic:", {k: v for k, v in res["dynamic_1k_8k"].items() if k != "profile"}, flush=True)
    if what in ("ncu", "all"):
        v = "naive,sdpa_flash,sdpa_cudnn,flex"
        res["ncu_sections"] = ncu_trial(True, v)
        print("ncu sections:", res["ncu_sections"]["seconds"], res["ncu_sections"].get("passes"), flush=True)
        res["ncu_by_name"] = ncu_trial(False, v)
        print("ncu by name:", res["ncu_by_name"]["seconds"], res["ncu_by_name"].get("passes"), flush=True)
    if what == "room":
        for key, mode in (("static_8k_host_copies", "static"), ("static_8k_room", "room")):
            res[key] = child(mode, 8192, 8192)
            print(key, {k: v for k, v in res[key].items() if k not in ("profile", "stderr")}, flush=True)
        (out_dir / "compile_probe_room.json").write_text(json.dumps(res, indent=1))
        return 0
    if what == "flex":
        cache = tempfile.mkdtemp(prefix="ind-flex-")
        for key, prep in (("cold", "none"), ("warm", "none"), ("warm_prepared", "prepare")):
            res[key] = flex_child("flex", prep, cache)
        res["naive_compiled_warm_prepared"] = flex_child("naive_compiled", "prepare", cache)
        for prep in ("none", "prepare"):
            res[f"ncu_{prep}"] = ncu_flex(prep, cache)
        (out_dir / "compile_probe_flex.json").write_text(json.dumps(res, indent=1))
        return 0
    if what == "ncu2":
        res["ncu_overhead"] = ncu_overhead()
    (out_dir / "compile_probe.json").write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
