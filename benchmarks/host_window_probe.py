"""What moves the host's cost of a call between captures: a trial on the GPU, not a test.

Usage (GPU): python benchmarks/host_window_probe.py OUT_DIR [--pin]

Two fresh processes, one after the other, share one new Inductor cache (the
first compiles from cold, the second finds the cache warm, as a second
capture on the same machine does). Each builds the decode scenario's
variants at its 16k-token cache point and, for each, measures the call
three times with the capture's own `timing.measure` (the sweep's budget),
one second apart, recording each window's host cost (10th percentile and
median of the host samples), eager and GPU-only medians. Writes
OUT_DIR/host_window_probe.json and prints a table: how far the host cost
moves between windows of one process, and between the two processes.

With `--pin`, a third and a fourth process (the cache warm) run pinned to one
CPU core (os.sched_setaffinity), to see whether the host cost steadies when the
process cannot migrate. Each window also records the CPU the process ran on
and that CPU's clock as the kernel reports it (/proc/cpuinfo "cpu MHz",
cpufreq's scaling_cur_freq where present), read before and after the window.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VARIANTS = ["sdpa_cudnn", "sdpa_auto", "sdpa_flash", "flex", "naive_compiled", "naive"]
WINDOWS = 3

CHILD = r"""
import json, os, statistics, sys, time
import torch
if len(sys.argv) > 3 and sys.argv[3] != "-":
    os.sched_setaffinity(0, {int(sys.argv[3])})
def cpu_now():
    with open("/proc/self/stat") as fh:
        cpu = int(fh.read().rsplit(")", 1)[1].split()[36])
    mhz = None
    try:
        with open(f"/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_cur_freq") as fh:
            mhz = int(fh.read()) / 1e3
    except OSError:
        with open("/proc/cpuinfo") as fh:
            blocks = fh.read().split("\n\n")
        for b in blocks:
            if f"processor\t: {cpu}\n" in b + "\n":
                mhz = float(b.split("cpu MHz")[1].split(":")[1].split()[0])
    return cpu, mhz
from gen.capture import attention, inputs, probe, sweep, timing
from gen.model import scenarios, variants
sc = scenarios.resolve(["decode"])[0]
point = next(p for p in sc.points() if p.kv_len == 16384)
dev = torch.device("cuda")
budget = sweep.budget_for(timing.Budget())
out = {}
for v in variants.resolve(sys.argv[1].split(",")):
    b = attention.build(v.kind, v.backend, point, dev)
    q, k, v_ = inputs.make_inputs(point, inputs.DTYPES[sc.dtype], dev, 0)
    step = probe.call(b, q, k, v_)
    rows = []
    with b.context(), torch.no_grad():
        t = time.perf_counter(); step(); torch.cuda.synchronize(); first = time.perf_counter() - t
        for w in range(int(sys.argv[2])):
            before = cpu_now()
            tm = timing.measure(step, dev, budget, graph=True)
            after = cpu_now()
            hs = sorted(tm.host_ms)
            rows.append(dict(host_p10=hs[max(0, int(len(hs) * 0.1) - 1)] if hs else None,
                             host_med=statistics.median(hs) if hs else None,
                             eager_med=statistics.median(tm.eager_ms) if tm.eager_ms else None,
                             gpu_med=statistics.median(tm.gpu_only_ms) if tm.gpu_only_ms else None,
                             n_host=len(hs), cpu_before=before, cpu_after=after))
            time.sleep(1.0)
    out[v.name] = dict(first_s=first, windows=rows)
    del b, q, k, v_, step
    probe.free(dev)
print("RESULT " + json.dumps(out))
"""


def child(cache: str, pin: str = "-") -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TORCHINDUCTOR_CACHE_DIR=cache)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", CHILD, ",".join(VARIANTS), str(WINDOWS), pin], capture_output=True,
                       text=True, env=env, cwd=ROOT, timeout=240)
    res = next((json.loads(line[7:]) for line in p.stdout.splitlines() if line.startswith("RESULT ")), None)
    return {"process_s": time.perf_counter() - t, "result": res, "stderr": None if res else p.stderr[-3000:]}


def main() -> int:
    out_dir = Path(sys.argv[1])
    out_name = "host_window_probe_pinned.json" if "--pin" in sys.argv else "host_window_probe.json"
    out_dir.mkdir(parents=True, exist_ok=True)
    cache = tempfile.mkdtemp(prefix="ind-host-")
    res = {"cold": child(cache), "warm": child(cache)}
    keys = ["cold", "warm"]
    if "--pin" in sys.argv:
        core = str(sorted(os.sched_getaffinity(0))[-1])
        res["pinned"], res["pinned2"] = child(cache, core), child(cache, core)
        keys += ["pinned", "pinned2"]
    (out_dir / out_name).write_text(json.dumps(res, indent=1))
    for name in VARIANTS:
        line = [name]
        for key in keys:
            r = (res[key]["result"] or {}).get(name)
            if not r:
                line.append(f"{key}: -")
                continue
            w = r["windows"]
            line.append(f"{key}: first {r['first_s']:.2f}s host p10 " + "/".join(f"{x['host_p10']:.4f}" for x in w)
                        + " med " + "/".join(f"{x['host_med']:.4f}" for x in w)
                        + " eager " + "/".join(f"{x['eager_med']:.4f}" for x in w)
                        + " gpu " + "/".join(f"{x['gpu_med']:.4f}" for x in w)
                        + " cpu " + "/".join(f"{x['cpu_before'][0]}@{x['cpu_before'][1]}" for x in w))
        print(" | ".join(line), flush=True)
    for key in keys:
        if res[key]["stderr"]:
            print(key, "stderr:", res[key]["stderr"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
