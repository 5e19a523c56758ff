"""The program Nsight Compute profiles: one warm call per variant, each inside
an NVTX range of its own, so that only that call's kernels are profiled.

Takes (argv): --mode and --variants, in pairs (one pair per mode: every
mode in one process, so torch is imported once), --point (JSON of a
schema.Point), --dtype, --seed; with --wait-for FILE it imports what the
calls need, then waits for FILE to name the calls to run (the capture starts
it before its timings and tells it to go once the runs are timed). Gives: on stdout one line
per variant and mode, `ran <mode>__<name>` or `refused <mode>__<name>: <why>`; the NVTX
ranges `gen.<mode>__<variant>` around the profiled calls. Run by
gen.capture.counters under `ncu`; never on its own for numbers.

The ranges are start/end ranges, not push/pop: autograd runs backward on a
thread of its own, and a push/pop range holds only the pushing thread.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
import warnings
from pathlib import Path

import torch

from gen.capture import precompile
from gen.capture.attention import build
from gen.capture.inputs import DTYPES, grad_output, make_inputs
from gen.model import schema, variants

RANGE_PREFIX = "gen."
WARM_CALLS = 2  # the first call compiles or plans; the second is warm


def job_name(mode: str, variant: str) -> str:
    return f"{mode}__{variant}"


def range_name(mode: str, variant: str) -> str:
    return RANGE_PREFIX + job_name(mode, variant)


def profile_one(v: variants.Variant, mode: str, point: schema.Point, dtype, seed: int) -> None:
    """Warm calls, then one call inside the variant's NVTX range."""
    device = torch.device("cuda")
    train = mode == schema.Mode.TRAIN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = build(v.kind, v.backend, point, device)
    q, k, v_ = make_inputs(point, dtype, device, seed, grad=train, layout=built.layout)
    go = grad_output(point, dtype, device, seed + 7) if train else None

    def step():
        if train:
            q.grad = k.grad = v_.grad = None
            built.fn(q, k, v_).backward(go)
        else:
            built.fn(q, k, v_)

    with built.context(), (contextlib.nullcontext() if train else torch.no_grad()):
        for _ in range(WARM_CALLS):
            step()
        torch.cuda.synchronize()
        rid = torch.cuda.nvtx.range_start(range_name(mode, v.name))
        step()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_end(rid)


def run(names: list[str], mode: str, point: schema.Point, dtype, seed: int, parent: int | None = None) -> bool:
    """Each variant's profiled call; False if the capture (`parent`) ended first (killed: ncu runs in
    a session of its own and would replay kernels on for minutes, beside whatever runs next)."""
    for v in variants.resolve(names):
        if not alive(parent):
            return False
        name = job_name(mode, v.name)
        t0 = time.monotonic()
        try:
            profile_one(v, mode, point, dtype, seed)
            # The seconds include ncu's replays of the profiled call's kernels.
            print(f"ran {name} in {time.monotonic() - t0:.1f} s", flush=True)
        except Exception as exc:  # the main run records why a variant refuses; here it is skipped
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            print(f"refused {name}: {type(exc).__name__}: {first[:200]}", flush=True)
        finally:
            torch.cuda.empty_cache()
    return True


def alive(pid: int | None) -> bool:
    """The process is running (None: not asked). A zombie, killed but not yet reaped, is not."""
    if pid is None:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists under another user
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # no /proc: os.kill's answer stands
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def wait_for(go: Path, parent: int | None, poll_s: float = 0.2) -> dict[str, list[str]] | None:
    """The calls to run, per mode, once `go` appears; None if the parent process ends first."""
    while not go.exists():
        if not alive(parent):
            return None
        time.sleep(poll_s)
    return json.loads(go.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:

    p = argparse.ArgumentParser(prog="python -m gen.capture.ncu_target")
    p.add_argument("--mode", required=True, action="append", choices=[m.value for m in schema.Mode])
    p.add_argument("--variants", required=True, action="append", help="comma-separated, one list per --mode")
    p.add_argument("--point", required=True, help="a schema.Point as JSON")
    p.add_argument("--dtype", default="bf16", choices=list(DTYPES))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--wait-for", type=Path, help="start, then run only once this file names the calls to run "
                   "(JSON: mode -> variants, a subset of those given; none: exit)")
    p.add_argument("--parent-pid", type=int, help="stop (waiting, or before the next call) if this process ends")
    a = p.parse_args(argv)
    if len(a.mode) != len(a.variants):
        p.error("give one --variants list per --mode")
    point = schema.Point(**json.loads(a.point))
    todo = {mode: names.split(",") for mode, names in zip(a.mode, a.variants)}
    if a.wait_for is not None:
        precompile.prepare_imports()
        go = wait_for(a.wait_for, a.parent_pid)
        if go is None:
            return 0
        todo = {m: [n for n in todo.get(m, []) if n in names] for m, names in go.items()}
    for mode, names in todo.items():
        if names and not run(names, mode, point, DTYPES[a.dtype], a.seed, a.parent_pid):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
