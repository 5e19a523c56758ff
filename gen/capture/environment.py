"""The machine and software a result set is captured on.

Takes: nothing (it asks torch, nvidia-smi, git and /proc). Gives:
`environment() -> schema.Environment` (the GPU and its properties, driver,
CUDA, cuDNN, torch, Python, platform, CPU, date and the code's git commit,
"+modified" where the working tree differs from it), `ref_mhz(env, sampler)`
(the reference clock of equal-clock times) and `set_name(env, label)` (the
result set's folder name, gen.model.layout's rule).
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import subprocess
from pathlib import Path

import torch

from gen.model import layout, schema


def _cmd(args: list[str]) -> str | None:
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=20, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _commit() -> str | None:
    """HEAD's commit, "+modified" where tracked files differ from it: a copy of a working tree with
    an older .git beside it (a remote GPU machine's) reports an old HEAD for newer code."""
    head = _cmd(["git", "rev-parse", "HEAD"])
    if head is None:
        return None
    changed = _cmd(["git", "status", "--porcelain", "--untracked-files=no"])
    return f"{head}+modified" if changed else head


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment() -> schema.Environment:
    cuda = torch.cuda.is_available()
    props = torch.cuda.get_device_properties(0) if cuda else None
    commit = os.environ.get("GEN_GIT_COMMIT") or _commit()
    driver = None
    if cuda:
        driver = _cmd(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
        driver = driver.splitlines()[0] if driver else None
    return schema.Environment(
        device="cuda" if cuda else "cpu",
        gpu_name=props.name if props else None,
        compute_capability=f"{props.major}.{props.minor}" if props else None,
        sm_count=props.multi_processor_count if props else None,
        max_threads_per_sm=getattr(props, "max_threads_per_multi_processor", None),
        max_regs_per_sm=getattr(props, "regs_per_multiprocessor", None),
        max_shared_memory_per_sm=getattr(props, "shared_memory_per_multiprocessor", None),
        l2_cache_bytes=getattr(props, "L2_cache_size", None),
        gpu_memory_bytes=props.total_memory if props else None,
        driver=driver,
        cuda=torch.version.cuda,
        cudnn=str(torch.backends.cudnn.version()) if torch.backends.cudnn.is_available() else None,
        torch=torch.__version__,
        python=platform.python_version(),
        platform=platform.platform(),
        cpu=_cpu_name(),
        date=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        git_commit=commit,
    )


def ref_mhz(env: schema.Environment, sampler) -> float | None:
    """The reference clock of equal-clock times: the GPU's maximum SM clock as NVML reads it, else a
    known GPU's (schema.KNOWN_MAX_SM_MHZ); None on a CPU."""
    if env.device != "cuda":
        return None
    return sampler.sm_clock_max_mhz or schema.known_ref_mhz(env.gpu_name)


def set_name(env: schema.Environment, label: str | None = None) -> str:
    return layout.set_name(env.gpu_name, env.cpu, env.torch, label)
