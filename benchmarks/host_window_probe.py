"""What moves the host's cost of a call between captures: a trial on the GPU, not a test.

Usage (GPU): python benchmarks/host_window_probe.py OUT_DIR

Two fresh processes, one after the other, share one new Inductor cache (the
first compiles from cold, the second finds the cache warm, as a second
capture on the same machine does). Each builds the decode scenario's
variants at its 16k-token cache point and, for each, measures the call
three times with the capture's own `timing.measure` (the sweep's budget),
one second apart, recording each window's host cost (10th percentile and
median of the host samples), eager and GPU-only medians. Writes
OUT_DIR/host_window_probe.json and prints a table: how far the host cost
moves between windows of one process, and between the two processes.
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
import json, statistics, sys, time
import torch
from gen.capture import attention, probe, sweep, timing
from gen.model import scenarios, variants
sc = scenarios.resolve(["decode"])[0]
point = next(p for p in sc.points() if p.kv_len == 16384)
dev = torch.device("cuda")
budget = sweep.budget_for(timing.Budget())
out = {}
for v in variants.resolve(sys.argv[1].split(",")):
    b = attention.build(v.kind, v.backend, point, dev)
    q, k, v_ = attention.make_inputs(point, attention.DTYPES[sc.dtype], dev, 0)
    step = probe.call(b, q, k, v_)
    rows = []
    with b.context(), torch.no_grad():
        t = time.perf_counter(); step(); torch.cuda.synchronize(); first = time.perf_counter() - t
        for w in range(int(sys.argv[2])):
            tm = timing.measure(step, dev, budget, graph=True)
            hs = sorted(tm.host_ms)
            rows.append(dict(host_p10=hs[max(0, int(len(hs) * 0.1) - 1)] if hs else None,
                             host_med=statistics.median(hs) if hs else None,
                             eager_med=statistics.median(tm.eager_ms) if tm.eager_ms else None,
                             gpu_med=statistics.median(tm.gpu_only_ms) if tm.gpu_only_ms else None,
                             n_host=len(hs)))
            time.sleep(1.0)
    out[v.name] = dict(first_s=first, windows=rows)
    del b, q, k, v_, step
    probe.free(dev)
print("RESULT " + json.dumps(out))
"""


def child(cache: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TORCHINDUCTOR_CACHE_DIR=cache)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", CHILD, ",".join(VARIANTS), str(WINDOWS)], capture_output=True,
                       text=True, env=env, cwd=ROOT, timeout=240)
    res = next((json.loads(line[7:]) for line in p.stdout.splitlines() if line.startswith("RESULT ")), None)
    return {"process_s": time.perf_counter() - t, "result": res, "stderr": None if res else p.stderr[-3000:]}


def main() -> int:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    cache = tempfile.mkdtemp(prefix="ind-host-")
    res = {"cold": child(cache), "warm": child(cache)}
    (out_dir / "host_window_probe.json").write_text(json.dumps(res, indent=1))
    for name in VARIANTS:
        line = [name]
        for key in ("cold", "warm"):
            r = (res[key]["result"] or {}).get(name)
            if not r:
                line.append(f"{key}: -")
                continue
            w = r["windows"]
            line.append(f"{key}: first {r['first_s']:.2f}s host p10 " + "/".join(f"{x['host_p10']:.4f}" for x in w)
                        + " med " + "/".join(f"{x['host_med']:.4f}" for x in w)
                        + " eager " + "/".join(f"{x['eager_med']:.4f}" for x in w)
                        + " gpu " + "/".join(f"{x['gpu_med']:.4f}" for x in w))
        print(" | ".join(line), flush=True)
    for key in ("cold", "warm"):
        if res[key]["stderr"]:
            print(key, "stderr:", res[key]["stderr"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
