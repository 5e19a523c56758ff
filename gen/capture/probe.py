"""One call under watch: its peak memory, a profiler trace of it, why it refused, and the capture log.

Takes: a zero-argument step and a device. Gives: `peak_memory`, `profile_to`
(a gzipped Chrome trace of profiled calls), `refusal` / `out_of_memory`
(one-line reasons from an exception and the warnings PyTorch gave before it),
`free` (the allocator's cache back), `mode_context` and `log` (progress on
stderr, kept in `LOG` for the set's capture.log). Shared by the profiled runs
(runner) and the scenario sweep (sweep). Imports torch and the standard library.
"""

from __future__ import annotations

import contextlib
import gc
import gzip
import os
import re
import shutil
from pathlib import Path

import torch

LOG: list[str] = []
LOG_FILE: list[Path] = []  # where each line is appended as it is said (a resumable capture's log)
_SEEN_BACKENDS: set[str] = set()


def log(msg: str) -> None:
    """Progress on stderr, kept too for the set's capture.log."""
    LOG.append(msg)
    from gen.capture import progress

    progress.say(msg)
    for path in LOG_FILE:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(msg + "\n")


def first_in_process(kind: str, backend: str | None) -> bool:
    """True the first time a backend is called in this process (its libraries
    load, its plans are made then), False after."""
    key = f"{kind}:{backend}"
    first = key not in _SEEN_BACKENDS
    _SEEN_BACKENDS.add(key)
    return first


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def free(device: torch.device, collect: bool = True) -> None:
    if collect:
        gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def mode_context(train: bool):
    """torch.no_grad() for inference, entered once outside every loop."""
    return contextlib.nullcontext() if train else torch.no_grad()


def call(built, q, k, v, grad_out=None):
    """The one call that is timed, traced and graph-captured: a forward, or with
    grad_out a forward and backward. Gradients are set to None first, so none
    accumulate; a CUDA graph captures that too, the grads being None before capture."""
    if grad_out is None:
        def step():
            return built.fn(q, k, v)
    else:
        def step():
            q.grad = k.grad = v.grad = None
            built.fn(q, k, v).backward(grad_out)
    return step


def peak_memory(step, device: torch.device) -> tuple[int | None, int | None]:
    """(peak bytes allocated during one call, bytes allocated before it); None on a CPU."""
    if device.type != "cuda":
        return None, None
    sync(device)
    torch.cuda.reset_peak_memory_stats(device)
    base = torch.cuda.memory_allocated(device)
    step()
    sync(device)
    return torch.cuda.max_memory_allocated(device), base


def profile_to(step, path: Path | None, device: torch.device, wait: int, warmup: int, active: int,
               work: list | None = None) -> int:
    """Profile wait+warmup+active calls, each in its own record_function range
    `forward#i`; keep the active ones as a gzipped Chrome trace (path None: no
    trace kept). Returns active; on a GPU, `work` gets one (names, ms) per
    active call: its GPU work and their summed time (gen.capture.gpuwork)."""
    import tempfile

    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    activities = [ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    if path is None:
        fd, tmp = tempfile.mkstemp(prefix="gen-prof-", suffix=".json")
        os.close(fd)
        raw = Path(tmp)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
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
            sync(device)
            prof.step()
    if work is not None and device.type == "cuda":
        from gen.capture import gpuwork

        work.extend(gpuwork.work_of_trace(raw))
    if path is not None:
        # mtime=0 so that the same trace gives the same bytes. Level 6: level 9
        # took seconds a trace for a few percent.
        with open(raw, "rb") as src, gzip.GzipFile(path, "wb", compresslevel=6, mtime=0) as dst:
            shutil.copyfileobj(src, dst)
    raw.unlink()
    return active


# PyTorch's C++ warnings end with where they were raised: noise in a reason.
_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?")
REFUSAL_WARNINGS = 6  # warnings kept in a reason at most


def refusal(exc: BaseException, caught: list) -> str:
    """The exception's first line, then what PyTorch warned just before it: a
    pinned SDPA backend warns "<backend> kernel not used because:" and then
    one warning per failed check (GQA, an explicit mask, a head dim...)."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    said = [_TRIGGERED.sub("", str(w.message)).strip() for w in caught]
    said = [m.splitlines()[0] for m in dict.fromkeys(said) if m]
    text = "; ".join([f"{type(exc).__name__}: {first}"] + said[:REFUSAL_WARNINGS])
    return text.replace("because:; ", "because: ")


OOM_REASON_CHARS = 400  # PyTorch's OOM line names the allocation, the GPU's total and what it holds


def out_of_memory(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0]
    if len(first) > OOM_REASON_CHARS:  # between words, and said cut
        first = first[:OOM_REASON_CHARS].rsplit(" ", 1)[0] + " …"
    return f"out of memory: {first}"
