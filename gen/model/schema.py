"""The results schema: versioned plain dataclasses, read and written as JSON.

Takes: nothing from other stages. Gives: the record types every stage shares
(`ResultSet`, `Environment`, `RunConfig`, `VariantRun`, `SweepPoint`, `Ceilings`),
`load_set` / `save_set` with atomic writes, and `SchemaError` for bad files.

This is the one place the on-disk layout is documented:

    results/<gpu-slug>__torch-<version>[__<label>]/
        result.json                 the ResultSet below (schema_version inside)
        traces/<mode>__<variant>.json.gz     Chrome trace of the profiled forwards
        traces/sweep__<variant>__s<S>_d<D>.json.gz   one profiled forward per sweep point

Raw samples are stored (per-forward GPU and CPU times, per-draw errors);
statistics (median, IQR) are derived by the analysis stage, never stored.
Imports only the standard library: capture runs it on the GPU machine.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
RESULT_FILE = "result.json"
TRACE_DIR = "traces"


class SchemaError(ValueError):
    """A result set that cannot be read: the message names the file at fault."""


@dataclass(frozen=True)
class Environment:
    """Where a set was measured. `gpu_name` is None on a CPU-only machine."""

    device: str  # "cuda" or "cpu"
    gpu_name: str | None
    compute_capability: str | None
    sm_count: int | None
    max_threads_per_sm: int | None
    max_regs_per_sm: int | None
    max_shared_memory_per_sm: int | None
    l2_cache_bytes: int | None
    gpu_memory_bytes: int | None
    driver: str | None
    cuda: str | None
    cudnn: str | None
    torch: str
    python: str
    platform: str
    cpu: str
    date: str
    git_commit: str | None


@dataclass(frozen=True)
class RunConfig:
    """What was asked for: the identity of the measurement, not its outcome."""

    batch: int
    heads: int
    seq_len: int
    head_dim: int
    dtype: str
    modes: list[str]
    variants: list[str]
    warmup_min: int
    repeats: int
    profile_wait: int
    profile_warmup: int
    profile_active: int
    error_draws: int
    seed: int


@dataclass
class VariantRun:
    """One variant in one mode: raw samples and where its trace lies."""

    variant: str
    mode: str  # "inference" or "train"
    status: str  # "ok" or "unavailable"
    reason: str | None = None
    device: str = "cuda"
    gpu_time_ms: list[float] = field(default_factory=list)
    cpu_time_ms: list[float] = field(default_factory=list)
    warmup_iters: int = 0
    warmup_window_ms: list[float] = field(default_factory=list)
    peak_memory_bytes: int | None = None
    baseline_memory_bytes: int | None = None
    rel_errors: list[float] = field(default_factory=list)
    trace: str | None = None  # path relative to the set directory
    profiled_forwards: int = 0
    compile_time_s: float | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    # Only in reference sets: figures as published (kernels_per_forward,
    # kernels: [names], gpu_time_ms, cpu_time_ms as single numbers, note).
    published: dict[str, Any] = field(default_factory=dict)


@dataclass
class SweepPoint:
    """One (variant, sequence length, head dim) point of the scaling sweep."""

    variant: str
    seq_len: int
    head_dim: int
    status: str  # "ok", "oom", "unavailable", "skipped"
    reason: str | None = None
    gpu_time_ms: list[float] = field(default_factory=list)
    cpu_time_ms: list[float] = field(default_factory=list)
    peak_memory_bytes: int | None = None
    baseline_memory_bytes: int | None = None
    rel_error: float | None = None
    trace: str | None = None


@dataclass
class Ceilings:
    """The GPU's own measured limits (not datasheet figures)."""

    matmul_shape: list[int]
    matmul_dtype: str
    matmul_ms: list[float]
    copy_bytes: int  # bytes read plus bytes written by one copy
    copy_ms: list[float]


@dataclass
class ResultSet:
    schema_version: int
    name: str
    environment: Environment
    config: RunConfig
    runs: list[VariantRun]
    sweep: list[SweepPoint] = field(default_factory=list)
    sweep_batch: int | None = None
    sweep_heads: int | None = None
    ceilings: Ceilings | None = None
    duration_s: float | None = None
    kind: str = "measured"  # "measured", or "reference" for published figures
    source: str | None = None  # for reference sets: where the figures were published

    def run(self, variant: str, mode: str = "inference") -> VariantRun | None:
        for r in self.runs:
            if r.variant == variant and r.mode == mode:
                return r
        return None


def to_dict(rs: ResultSet) -> dict[str, Any]:
    return dataclasses.asdict(rs)


def _build(cls, data: Any, where: str):
    if not isinstance(data, dict):
        raise SchemaError(f"{where}: expected an object for {cls.__name__}")
    names = {f.name for f in dataclasses.fields(cls)}
    required = {
        f.name
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    missing = required - data.keys()
    if missing:
        raise SchemaError(f"{where}: {cls.__name__} lacks {', '.join(sorted(missing))}")
    return cls(**{k: v for k, v in data.items() if k in names})


def from_dict(data: Any, where: str = RESULT_FILE) -> ResultSet:
    if not isinstance(data, dict):
        raise SchemaError(f"{where}: not a JSON object")
    version = data.get("schema_version")
    if not isinstance(version, int):
        raise SchemaError(f"{where}: no integer schema_version")
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"{where}: schema_version {version} is newer than this code reads "
            f"({SCHEMA_VERSION}); update the project"
        )
    data = migrate(data, where)
    try:
        return ResultSet(
            schema_version=SCHEMA_VERSION,
            name=data["name"],
            environment=_build(Environment, data["environment"], where),
            config=_build(RunConfig, data["config"], where),
            runs=[_build(VariantRun, r, where) for r in data["runs"]],
            sweep=[_build(SweepPoint, p, where) for p in data.get("sweep") or []],
            sweep_batch=data.get("sweep_batch"),
            sweep_heads=data.get("sweep_heads"),
            ceilings=_build(Ceilings, data["ceilings"], where) if data.get("ceilings") else None,
            duration_s=data.get("duration_s"),
            kind=data.get("kind", "measured"),
            source=data.get("source"),
        )
    except KeyError as exc:
        raise SchemaError(f"{where}: missing field {exc.args[0]!r}") from None
    except TypeError as exc:
        raise SchemaError(f"{where}: malformed record ({exc})") from None


# Upgrades one version at a time, like asv's update_to_N; none exist yet.
MIGRATIONS: dict[int, Any] = {}


def migrate(data: dict[str, Any], where: str) -> dict[str, Any]:
    version = data["schema_version"]
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise SchemaError(f"{where}: schema_version {version} is too old to read")
        data = step(data)
        version = data["schema_version"]
    return data


def load_set(directory: str | os.PathLike) -> ResultSet:
    """Read and validate one result set directory."""
    path = Path(directory) / RESULT_FILE
    if not path.is_file():
        raise SchemaError(f"{path}: no {RESULT_FILE} in this result set")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SchemaError(f"{path}: not valid JSON ({exc})") from None
    rs = from_dict(data, str(path))
    for run in rs.runs:
        if run.trace and not (Path(directory) / run.trace).is_file():
            raise SchemaError(f"{path}: trace {run.trace} of {run.variant} is missing")
    return rs


def list_sets(root: str | os.PathLike) -> list[Path]:
    """Result set directories under root, sorted by name; hidden ones skipped."""
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write a file so that readers see the old content or the new, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def dumps(rs: ResultSet) -> str:
    return json.dumps(to_dict(rs), indent=1, sort_keys=True) + "\n"


def publish_set(staging: Path, final: Path, force: bool) -> None:
    """Move a fully written staging directory into place in one rename.

    An existing set is only replaced with force, and then the old one is kept
    aside until the new one is in place, so an interruption loses neither.
    """
    if final.exists() and not force:
        raise FileExistsError(
            f"{final}: result set exists; pass --force to replace it, or --label to keep both"
        )
    backup = None
    if final.exists():
        backup = final.with_name(f".{final.name}.old-{os.getpid()}")
        os.replace(final, backup)
    os.replace(staging, final)
    if backup is not None:
        shutil.rmtree(backup)
