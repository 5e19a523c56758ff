"""FlexAttention's sweep points compiled ahead, in side processes, before anything is timed.

Takes: the calls to compile (`spec_of`: the runs' FlexAttention calls, which
compile first in a process, and the sweep's points). Gives: `start(first, rest,
folder) -> Ahead`, worker processes already compiling, and `Ahead.wait() -> {key:
first call s}`, what each call's first call took in its worker: the runs' first
in a fresh process (its one-time costs included, as in the capture's own), each
sweep point's a compile at a new shape in a process that has compiled
FlexAttention once before (each such worker compiles a small shape first), as in
the capture's own process. Run as `python -m gen.capture.precompile` it is one
worker: its calls as JSON on stdin, one JSON line per call on stdout.

Why: each sweep point of a FlexAttention variant compiles its kernel for its
shape on its first call, 1.7-3 s on the H200 from an empty cache and 0.14 s
once Inductor's on-disk cache holds that shape's graph
(benchmarks/data/compile_probe_flex.json); one after another in the capture's
process they took 47.6 s of a 395 s capture. Workers side by side fill that
cache (the FX graph cache and Triton's, which every process of the user shares
unless told otherwise) while the capture's own process starts up, so that its
first calls find the compiled code. The code is the same: the cache is keyed by
the graph, the inputs' shapes and the compiler's settings, and a hit loads what
the worker compiled.

Only FlexAttention's kinds (PRECOMPILED_KINDS; its FLASH backend's too: what of
its compile Inductor's caches keep, a worker fills, and what they do not keep, the
capture's own first call pays and records). Without max-autotune its attention
kernels (forward, backward, decoding templates) get one config each and none is
timed, so a compile beside other work gives the same kernels. The small kernels
Inductor generates around them (the backward's row sum of O*dO, a persistent
reduction; decoding's combine of its split-KV partials, a tiled pointwise kernel)
can have a few candidate configs that Inductor times on the GPU on their first
call and keeps in its on-disk cache: the capture runs the pick a worker made
beside the others (kernels of a few percent of a call at most, whose pick varied
between single-process captures too). The compiled naive product's autotuner
times candidate configs of its main kernel on the GPU, and other processes'
kernels would sway its choice: it compiles in the capture's process, alone, as
before. The capture times nothing while the workers run.

Imports torch only in the worker (python -m); the parent side uses the standard
library.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

PRECOMPILED_KINDS = ("flex", "flex_triton", "flex_paged", "flex_fp8", "flex_flash")
# Kinds with one-time costs of their own beyond FlexAttention's (the FLASH backend imports and
# starts the CuTe DSL): a worker with such points warms them too, with a call of that kind.
OWN_WARM_KINDS = ("flex_flash",)
# Workers at most: each is a process with torch and a CUDA context (~0.5 GB of
# GPU memory) that spends ~10 s loading Inductor and FlexAttention before its
# first point; beyond a few, that start dominates.
MAX_WORKERS = 8
JOBS_PER_WORKER = 3  # fewer workers when there are few points
WAIT_S = 240.0  # the workers' whole budget; a point not done by then compiles in the capture, as before
# A shape no sweep uses: each worker compiles it first, so that its points' first calls are
# compiles at a new shape in a process that has compiled FlexAttention before.
WARM_LEN = 128


# Kinds a worker can compile only where FlashAttention-4 is installed (FlexAttention's FLASH backend is
# built on flash_attn.cute); looked up, not imported, so the capture's own first call still pays the import.
NEEDS_FA4 = ("flex_flash",)


def wanted(variant) -> bool:
    if variant.kind in NEEDS_FA4 and importlib.util.find_spec("flash_attn") is None:
        return False  # no worker would compile it: the capture records it unavailable, once per point
    return variant.kind in PRECOMPILED_KINDS


def spec_of(key: str, kind: str, backend: str | None, mode: str, dtype: str, point, seed: int) -> dict:
    """What a worker needs to make one call's first call: a JSON-able dict."""
    from dataclasses import asdict

    return {"key": key, "kind": kind, "backend": backend, "mode": mode, "dtype": dtype, "point": asdict(point),
            "seed": seed}


@dataclass
class Ahead:
    """Worker processes compiling; `wait()` collects them."""

    procs: list = field(default_factory=list)  # (Popen, log path)
    started: float = 0.0
    jobs: int = 0

    def wait(self, timeout: float = WAIT_S, log=print) -> dict[str, float]:
        """{key: first call s} of the points the workers compiled; the others are logged and left
        to the capture. Kills what is still running at `timeout`."""
        got: dict[str, float] = {}
        end = self.started + timeout
        for proc, path in self.procs:
            try:
                out, _ = proc.communicate(timeout=max(1.0, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
                log(f"  compile ahead: a worker still busy after {timeout:.0f} s was stopped")
            for line in (out or "").splitlines():
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if "s" in r:
                    got[r["key"]] = float(r["s"])
                elif "error" in r:
                    log(f"  compile ahead: {r['key']}: {r['error']}")
            if proc.returncode not in (0, None) and path.exists():
                tail = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
                log(f"  compile ahead: a worker exited with {proc.returncode}: {' | '.join(tail)}")
        return got

    def stop(self) -> None:
        for proc, _ in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def deal(first: list[dict], rest: list[dict], n: int) -> list[dict]:
    """Each worker's input. The runs' calls (`first`) open their workers: the first of them
    (the inference run) in worker 0 with no warm compile, so that its first call pays the
    one-time costs, as the capture's first compile of FlexAttention did; the others (the
    training run) in worker 1 after a warm compile, as they came after the inference run in
    the capture's process. `rest` goes to the least loaded worker, except a call that a run or an
    earlier point already makes (the same shape in another scenario): it follows that one in its
    worker, so that its first call is a load from the cache in every capture, as in the capture's
    process, and not a compile or a load depending on which worker got there first. Loads in units
    of about one compile at a new shape (2 s): a process's one-time costs count four, a load from
    the cache a tenth."""
    work = [{"warm": True, "specs": []} for _ in range(n)]
    load = [4.0] * n
    if first:
        work[0] = {"warm": False, "specs": first[:1]}
        load[0] = 6.0
        w = 1 if n > 1 else 0
        work[w]["specs"] += first[1:]
        load[w] += 2.0 * len(first[1:])
    def call(s):
        return s["kind"], s["backend"], s["mode"], s["dtype"], json.dumps(s["point"], sort_keys=True), s["seed"]

    made = {call(s): (0 if i == 0 or n == 1 else 1) for i, s in enumerate(first)}
    for s in rest:
        # A sweep point that is a run's own call, or an earlier point's, goes after it, in its worker:
        # there, as in the capture's process, its first call finds that compile in the cache.
        again = call(s) in made
        i = made[call(s)] if again else min(range(n), key=lambda j: (load[j], j))
        made.setdefault(call(s), i)
        work[i]["specs"].append(s)
        load[i] += 0.1 if again else 1
    return [w for w in work if w["specs"]]


def workers_for(n_jobs: int, cpus: int | None = None) -> int:
    cpus = cpus or os.cpu_count() or 1
    return max(0, min(MAX_WORKERS, max(1, cpus // 2), -(-n_jobs // JOBS_PER_WORKER)))


def start(first: list[dict], rest: list[dict], work_dir: Path, cpus: int | None = None) -> Ahead:
    """Workers for the specs (spec()), dealt by deal(); their stderr goes to files in work_dir."""
    n = workers_for(len(first) + len(rest), cpus)
    ahead = Ahead(started=time.monotonic(), jobs=len(first) + len(rest))
    if not n:
        return ahead
    env = dict(os.environ)
    # One process compiles its kernels itself: a pool of compile workers per worker process
    # would start dozens of processes for one kernel each.
    env["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    work_dir.mkdir(parents=True, exist_ok=True)
    for i, mine in enumerate(deal(first, rest, n)):
        path = work_dir / f"compile_ahead_{i}.log"
        with open(path, "w", encoding="utf-8") as err:
            proc = subprocess.Popen([sys.executable, "-m", "gen.capture.precompile"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=err, text=True, env=env, cwd=root)
        ahead.procs.append((proc, path))
        try:
            proc.stdin.write(json.dumps(mine))
            proc.stdin.close()
        except BrokenPipeError:  # it died at once: wait() reads its exit and its log's last lines
            pass
        proc.stdin = None  # communicate() must not write again
    return ahead


def prepare_imports() -> None:
    """Import what a first compile of FlexAttention imports (Inductor, Triton, FlexAttention: ~5 s
    on the H200's host), so that a process waiting anyway pays it then."""
    try:
        import torch._inductor.compile_fx  # noqa: F401
        import triton  # noqa: F401
        from torch.nn.attention import flex_attention  # noqa: F401
    except Exception:  # the first compile imports them itself, or refuses and says why
        pass


# --------------------------------------------------------------------------- the worker


def _first_call(s: dict, device) -> float:
    """One job's first call (its compile), in seconds; its tensors freed after."""
    from gen.capture import probe
    from gen.capture.attention import build
    from gen.capture.inputs import DTYPES, grad_output, make_inputs
    from gen.model import schema

    point = schema.Point(**s["point"])
    train = s["mode"] == schema.Mode.TRAIN
    built = build(s["kind"], s["backend"], point, device, room=False)
    dtype = built.dtype or s["dtype"]
    q, k, v = make_inputs(point, DTYPES[dtype], device, s["seed"], grad=train, layout=built.layout)
    go = grad_output(point, DTYPES[s["dtype"]], device, s["seed"] + 7) if train else None
    step = probe.call(built, q, k, v, go)
    with built.context(), probe.mode_context(train):
        t0 = time.perf_counter()
        step()
        probe.sync(device)
        took = time.perf_counter() - t0
    del step, q, k, v, go, built
    probe.free(device)  # collects and empties the CUDA cache
    return took


def warm_calls(specs: list[dict]) -> dict[str, dict]:
    """{kind: the spec whose point shapes its warm call}: FlexAttention's (Triton) always, from the
    first spec; each OWN_WARM_KINDS kind among the specs, from its first spec."""
    out = {"flex": specs[0]}
    for s in specs:
        if s["kind"] in OWN_WARM_KINDS:
            out.setdefault(s["kind"], s)
    return out


def worker(work: dict) -> None:
    import dataclasses
    import warnings

    import torch

    from gen.model import schema

    warnings.simplefilter("ignore")
    device = torch.device("cuda")
    specs = work.get("specs") or []
    if specs and work.get("warm"):
        # The warm compiles: FlexAttention's and Inductor's one-time costs in this process, and
        # those of a kind with its own (OWN_WARM_KINDS) where this worker has points of it.
        for kind, s0 in warm_calls(specs).items():
            p = schema.Point(**s0["point"])
            warm = dataclasses.replace(p, q_len=min(p.q_len, WARM_LEN), kv_len=WARM_LEN, window=None, docs=None,
                                       mask=schema.Mask.CAUSAL if p.q_len > 1 else schema.Mask.NONE)
            try:
                _first_call({**s0, "kind": kind, "backend": None, "mode": "inference",
                             "point": dataclasses.asdict(warm)}, device)
            except Exception as exc:  # the points still compile below; their times include the one-time costs
                print(json.dumps({"key": "warm", "error": f"{type(exc).__name__}: {str(exc)[:200]}"}), flush=True)
    parent = os.getppid()
    for s in specs:
        if os.getppid() != parent:  # the capture is gone (killed): its compiles are of no use now
            return
        try:
            print(json.dumps({"key": s["key"], "s": _first_call(s, device)}), flush=True)
        except Exception as exc:  # the capture compiles it itself and records why it fails, if it does
            print(json.dumps({"key": s["key"], "error": f"{type(exc).__name__}: {str(exc)[:200]}"}), flush=True)


if __name__ == "__main__":
    worker(json.loads(sys.stdin.read() or "{}"))
