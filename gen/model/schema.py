"""The results schema: versioned plain dataclasses, read and written as JSON.

Takes: nothing from other stages. Gives: the record types every stage shares
(`ResultSet`, `Environment`, `RunConfig`, `Point`, `ScenarioRecord`, `Timing`,
`VariantRun`, `SweepPoint`, `Ceilings`, `Counters`, `KernelCounters`,
`Telemetry`, `GraphCheck`),
`from_dict` / `load_set` (type-checked, migrated), `dumps`, the enums of the
fields that take one of a few values, and `SchemaError` for bad files.

The on-disk layout of a set:

    results/<gpu-slug>__torch-<version>[__<label>]/
        result.json                 the ResultSet below (schema_version inside)
        capture.log                 what the capture printed
        traces/<scenario>__<mode>__<variant>.json.gz       profiled calls of a run
        traces/sweep__<variant>__s<S>_d<D>.json.gz         one profiled call per sweep point
        (schema 1 named run traces traces/<mode>__<variant>.json.gz)

Raw samples are stored; statistics (median, IQR) are derived by analysis.
Every field is type-checked on load and unknown keys are refused, each with
one line naming the file and the field. Older versions are upgraded one step
at a time by `MIGRATIONS` (asv's update_to_N). Imports only the standard
library: capture runs it on the GPU machine.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 3
RESULT_FILE = "result.json"
TRACE_DIR = "traces"


class UserError(Exception):
    """A problem with the user's input (a file, a field, an option): the CLI
    prints its one-line message and exits 2. Anything else is a bug and keeps
    its traceback."""


class SchemaError(UserError):
    """A result set that cannot be read: the message names the file and field."""


class Mode(enum.StrEnum):
    INFERENCE = "inference"
    TRAIN = "train"


class Status(enum.StrEnum):
    OK = "ok"
    UNAVAILABLE = "unavailable"  # the variant refused this workload (PyTorch's reason kept)
    OOM = "oom"
    SKIPPED = "skipped"  # not run: the time limit


class GpuOnlyMethod(enum.StrEnum):
    CUDA_GRAPH = "cuda_graph"  # replay of N back-to-back calls captured in one graph, / N
    KERNEL_SUM = "kernel_sum"  # the GPU events of one profiled call added up (trace)


class Mask(enum.StrEnum):
    CAUSAL = "causal"
    NONE = "none"
    SLIDING = "sliding"  # causal within a window of `window` tokens
    DOCUMENT = "document"  # causal within each packed document (Point.docs), nothing across them


class SetKind(enum.StrEnum):
    MEASURED = "measured"
    REFERENCE = "reference"  # figures as published by someone else, not measured here


# Fields whose str values must be one of an enum's (checked on load).
ENUM_FIELDS: dict[str, type[enum.StrEnum]] = {
    "mode": Mode, "status": Status, "gpu_only_method": GpuOnlyMethod, "mask": Mask, "kind": SetKind,
}  # + "fidelity" (GraphFidelity), added where that enum is declared


@dataclass(frozen=True)
class Environment:
    """Where a set was measured. `gpu_name` is None on a CPU-only machine; a
    reference set knows only what its source published."""

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
    torch: str | None
    python: str | None
    platform: str | None
    cpu: str | None
    date: str | None
    git_commit: str | None
    ncu: str | None = None  # Nsight Compute's version, when it read the counters
    # schema 3, from NVML where it could be read
    nvml: str | None = None  # NVML's version, or why it was not read
    sm_clock_max_mhz: float | None = None  # the highest SM clock the GPU allows
    power_limit_w: float | None = None  # the enforced board power limit


@dataclass(frozen=True)
class RunConfig:
    """What was asked for: the identity of the measurement, not its outcome.
    The shape is the `article` scenario's default point."""

    batch: int
    heads: int
    seq_len: int
    head_dim: int
    dtype: str
    modes: list[str]
    variants: list[str]
    warmup_min: int | None
    repeats: int | None
    profile_wait: int
    profile_warmup: int
    profile_active: int
    error_draws: int | None
    seed: int | None
    graph_calls: int | None = None  # back-to-back calls captured per CUDA graph


@dataclass(frozen=True)
class Point:
    """One workload shape. Prefill has q_len == kv_len; decode has q_len 1."""

    batch: int
    q_heads: int
    kv_heads: int
    head_dim: int
    q_len: int
    kv_len: int
    mask: str  # Mask
    window: int | None = None  # tokens, with Mask.SLIDING
    # Optional (no version bump): the lengths of the documents packed into
    # the sequence, with Mask.DOCUMENT (they add up to q_len == kv_len).
    docs: tuple[int, ...] | None = None


@dataclass(frozen=True)
class ScenarioRecord:
    """A scenario as it was declared when the set was captured (gen.model.scenarios)."""

    name: str
    title: str
    dtype: str
    points: list[Point]  # the inference sweep, in order
    train_points: list[Point] = field(default_factory=list)


class Window(enum.StrEnum):
    """The timed windows of one call, each with its own NVML telemetry."""

    GPU_ONLY = "gpu_only"  # CUDA-graph replays
    EAGER = "eager"  # the back-to-back Python loop
    HOST = "host"  # drained calls (host dispatch)
    BURST = "burst"  # a handful of calls from an idle GPU, as publishers often time
    KERNEL_SUM = "kernel_sum"  # the profiled eager calls whose kernels are added up


@dataclass
class Telemetry:
    """What NVML read while one window was timed, sampled in a thread every few
    ms: the conditions of the time (a 700 W-limited GPU runs its SMs slower under
    sustained load than in a burst). Every figure None, with `reason`, where NVML
    could not be read (no pynvml, no GPU, a set older than schema 3)."""

    samples: int = 0
    duration_s: float | None = None
    sm_clock_mhz: float | None = None  # mean over the samples
    sm_clock_min_mhz: float | None = None
    sm_clock_max_mhz: float | None = None
    power_w: float | None = None  # mean board power
    power_max_w: float | None = None
    temp_c: float | None = None  # the highest GPU temperature read
    reason: str | None = None  # why not recorded


@dataclass
class GraphCheck:
    """Does one CUDA-graph replay run the same kernels as one eager call?
    Names (demangled, as the profiler gives them) in launch order, for one call
    each. A graph may run other work than eager code (a device-to-device copy
    that the copy engine does eagerly becomes a memcpy kernel in a graph)."""

    fidelity: str  # GraphFidelity
    graph_kernels: list[str] = field(default_factory=list)
    eager_kernels: list[str] = field(default_factory=list)
    detail: str | None = None  # the difference in words, or why not checked


class GraphFidelity(enum.StrEnum):
    SAME = "same"
    DIFFERS = "differs"
    NOT_CHECKED = "not_checked"


ENUM_FIELDS["fidelity"] = GraphFidelity


@dataclass
class Timing:
    """Three labelled times of one call, as raw samples in ms.

    gpu_only_ms: one sample per graph replay (replay time / calls per replay):
    the GPU's own time with no host gaps; the number that ranks. Empty when
    gpu_only_method is kernel_sum (analysis adds up the trace) or None.
    eager_ms: CUDA events around each call of a bare back-to-back loop: what a
    Python loop sees, host gaps included. host_ms: from the call to its return
    with the GPU drained first (host dispatch). On CPU, eager_ms is wall time.

    Schema 3: the three are timed in interleaved rounds (`round_sizes` gives, per
    window, how many samples each round added, in order), each window with its
    NVML `telemetry`; `burst_ms` times a handful of calls from an idle GPU;
    `kernel_sum_ms` adds up the kernels of profiled eager calls (one sample per
    call), the fallback GPU-only time where `graph_check` finds that the graph
    runs other kernels than eager code, or where the graph time exceeds eager
    beyond the spread (gpu_only_method kernel_sum, with the reason).
    """

    gpu_only_ms: list[float] = field(default_factory=list)
    gpu_only_method: str | None = None  # GpuOnlyMethod
    gpu_only_reason: str | None = None  # why not cuda_graph
    calls_per_replay: int | None = None
    eager_ms: list[float] = field(default_factory=list)
    host_ms: list[float] = field(default_factory=list)
    warmup_iters: int = 0
    warmup_window_ms: list[float] = field(default_factory=list)
    # schema 3
    rounds: int = 1
    round_sizes: dict[str, list[int]] = field(default_factory=dict)  # Window -> samples per round
    graph_ms: list[float] = field(default_factory=list)  # replay / N, kept when gpu_only falls back
    burst_ms: list[float] = field(default_factory=list)
    kernel_sum_ms: list[float] = field(default_factory=list)
    telemetry: dict[str, Telemetry] = field(default_factory=dict)  # Window -> conditions
    telemetry_reason: str | None = None  # why no telemetry at all
    graph_check: GraphCheck | None = None


@dataclass
class NcuRule:
    """A rule Nsight Compute fired on a kernel, with its estimated speed-up."""

    name: str
    estimated_speedup_pct: float | None = None


@dataclass
class KernelCounters:
    """Hardware counters of one kernel launch, from Nsight Compute."""

    index: int  # launch order within the profiled call, from 0
    name: str  # as ncu names it (demangled)
    duration_ns: float | None = None
    grid: list[int] = field(default_factory=list)
    block: list[int] = field(default_factory=list)
    registers_per_thread: int | None = None
    shared_memory_bytes: int | None = None  # static + dynamic, per block
    achieved_occupancy_pct: float | None = None
    theoretical_occupancy_pct: float | None = None
    occupancy_limiter: str | None = None  # registers, shared_memory, warps, blocks
    sm_throughput_pct: float | None = None
    dram_throughput_pct: float | None = None
    tensor_pipe_pct: float | None = None
    l2_hit_rate_pct: float | None = None
    rules: list[NcuRule] = field(default_factory=list)


@dataclass
class Counters:
    """The counter pass of one run: ok, or why not (no ncu, no permission)."""

    status: str  # Status: ok or unavailable
    reason: str | None = None
    kernels: list[KernelCounters] = field(default_factory=list)


@dataclass
class InplaceCheck:
    """Does masked_fill_ break training? Gradients of naive and naive_inplace
    compared on the same inputs."""

    outcome: str  # "gradients match", "gradients differ", "autograd error"
    max_abs_grad_diff: float | None = None
    error: str | None = None


@dataclass
class Published:
    """Figures a reference set's source published for one variant (no samples)."""

    kernels_per_forward: int | None = None
    kernels: list[str] = field(default_factory=list)
    gpu_time_ms: float | None = None
    cpu_time_ms: float | None = None
    occupancy_pct: float | None = None
    launch_api: str | None = None
    note: str | None = None
    # Added after schema 2 shipped, optional with defaults, so files without them
    # still load unchanged: no version bump. tflops is as the source computed it,
    # under flop_convention; approximate when read off a chart, not a table.
    tflops: float | None = None
    flop_convention: str | None = None
    approximate: bool = False


@dataclass
class VariantRun:
    """One variant in one mode at one scenario's point: raw samples, trace, counters."""

    variant: str
    mode: str  # Mode
    status: str  # Status
    reason: str | None = None
    device: str = "cuda"
    scenario: str = "article"
    point: Point | None = None
    timing: Timing = field(default_factory=Timing)
    peak_memory_bytes: int | None = None
    baseline_memory_bytes: int | None = None
    rel_errors: list[float] = field(default_factory=list)
    trace: str | None = None  # path relative to the set directory
    profiled_forwards: int = 0
    compile_time_s: float | None = None
    first_call_s: float | None = None
    error_detail: str | None = None  # last line of the traceback of a refusal
    first_in_process: bool | None = None  # schema 3: the first call of this backend in the process
    counters: Counters | None = None
    inplace_autograd: InplaceCheck | None = None
    published: Published | None = None  # reference sets only


@dataclass
class SweepPoint:
    """One (scenario, variant, mode, point) of a sweep: lighter than a run."""

    variant: str
    point: Point
    status: str  # Status
    reason: str | None = None
    scenario: str = "article"
    mode: str = "inference"  # Mode
    timing: Timing = field(default_factory=Timing)
    peak_memory_bytes: int | None = None
    baseline_memory_bytes: int | None = None
    rel_error: float | None = None
    trace: str | None = None
    compile_time_s: float | None = None
    published: Published | None = None  # reference sets only; optional, so no version bump
    first_call_s: float | None = None  # schema 3: the first call at this shape (compile, plan, load)
    # Optional (no version bump), issue 20:
    dtype: str | None = None  # the inputs' dtype when the variant sets its own (fp8), else the scenario's
    # Unpinned SDPA only: what PyTorch chose (flash, efficient, cudnn, math) and,
    # per backend, "eligible" or the reason PyTorch gives for refusing it here.
    sdpa_choice: str | None = None
    backend_reasons: dict[str, str] = field(default_factory=dict)
    # Facts a variant measured about itself while being built: e.g. a block
    # mask's build time (block_mask_build_s) and the share of blocks it skips
    # (block_mask_sparsity_pct).
    facts: dict[str, float] = field(default_factory=dict)

    @property
    def seq_len(self) -> int:
        """The KV length: the sequence length of prefill, the cache of decode."""
        return self.point.kv_len

    @property
    def head_dim(self) -> int:
        return self.point.head_dim


@dataclass
class Ceilings:
    """The GPU's own measured limits (not datasheet figures)."""

    matmul_shape: list[int]
    matmul_dtype: str
    matmul_ms: list[float]
    copy_bytes: int  # bytes read plus bytes written by one copy
    copy_ms: list[float]
    # schema 3: a read-only pass (a reduction over a large buffer): a decode
    # kernel almost only reads, so a copy, which writes as much as it reads,
    # does not bound it.
    read_bytes: int | None = None
    read_ms: list[float] = field(default_factory=list)
    telemetry: dict[str, Telemetry] = field(default_factory=dict)  # "matmul", "copy", "read"


@dataclass
class ResultSet:
    schema_version: int
    name: str
    environment: Environment
    config: RunConfig
    runs: list[VariantRun]
    sweep: list[SweepPoint] = field(default_factory=list)
    scenarios: list[ScenarioRecord] = field(default_factory=list)
    ceilings: Ceilings | None = None
    duration_s: float | None = None
    kind: str = "measured"  # SetKind
    source: str | None = None  # for reference sets: where the figures were published
    stage_seconds: dict[str, float] = field(default_factory=dict)  # schema 3: capture time by stage

    def run(self, variant: str, mode: str = "inference", scenario: str = "article") -> VariantRun | None:
        for r in self.runs:
            if r.variant == variant and r.mode == mode and r.scenario == scenario:
                return r
        return None

    def scenario(self, name: str) -> ScenarioRecord | None:
        return next((s for s in self.scenarios if s.name == name), None)


# --------------------------------------------------------------------------- reading


def to_dict(rs: ResultSet) -> dict[str, Any]:
    return dataclasses.asdict(rs)


def dumps(rs: ResultSet) -> str:
    return json.dumps(to_dict(rs), indent=1, sort_keys=True) + "\n"


@typing.no_type_check
def _hints(cls) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _type_name(tp) -> str:
    if isinstance(tp, type):
        return {"str": "a string", "int": "an integer", "float": "a number", "bool": "true or false",
                "list": "a list", "dict": "an object"}.get(tp.__name__, tp.__name__)
    return str(tp).replace("typing.", "")


def _check(value: Any, tp, where: str, fname: str) -> Any:
    """Value checked against a type hint; dataclasses built. Returns the value to store."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _check(value, arg, where, fname)
            except SchemaError as exc:
                errors.append(exc)
        raise errors[0] if len(errors) == 1 else SchemaError(
            f"{where}: field {fname} is {json.dumps(value)[:60]}, expected {_type_name(tp)}")
    if dataclasses.is_dataclass(tp):
        return _build(tp, value, where, fname)
    if origin is list:
        if not isinstance(value, list):
            raise SchemaError(f"{where}: field {fname} must be a list, not {type(value).__name__}")
        (item,) = typing.get_args(tp)
        return [_check(v, item, where, f"{fname}[{i}]") for i, v in enumerate(value)]
    if origin is tuple:  # tuple[X, ...]: a JSON list
        if not isinstance(value, list | tuple):
            raise SchemaError(f"{where}: field {fname} must be a list, not {type(value).__name__}")
        item = typing.get_args(tp)[0]
        return tuple(_check(v, item, where, f"{fname}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, dict):
            raise SchemaError(f"{where}: field {fname} must be an object, not {type(value).__name__}")
        _, item = typing.get_args(tp)
        return {str(k): _check(v, item, where, f"{fname}.{k}") for k, v in value.items()}
    ok = {
        bool: lambda v: isinstance(v, bool),
        int: lambda v: isinstance(v, int) and not isinstance(v, bool),
        float: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        str: lambda v: isinstance(v, str),
    }.get(tp)
    if ok is None:
        raise TypeError(f"schema: no check for type {tp!r} of {fname}")  # a bug here, not bad input
    if not ok(value):
        raise SchemaError(f"{where}: field {fname} is {json.dumps(value)[:60]}, expected {_type_name(tp)}")
    short = fname.rsplit(".", 1)[-1].split("[")[0]
    if tp is str and short in ENUM_FIELDS and value not in {e.value for e in ENUM_FIELDS[short]}:
        allowed = ", ".join(e.value for e in ENUM_FIELDS[short])
        raise SchemaError(f"{where}: field {fname} is {value!r}, expected one of {allowed}")
    return float(value) if tp is float else value


def _build(cls, data: Any, where: str, path: str = ""):
    """One dataclass from a JSON object: every field type-checked, unknown keys refused."""
    name = path or cls.__name__
    if not isinstance(data, dict):
        raise SchemaError(f"{where}: field {name} must be an object ({cls.__name__})")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise SchemaError(f"{where}: field {name} has unknown key(s) {', '.join(unknown)} "
                          f"(a newer schema, or a damaged file)")
    required = [f for f in fields.values()
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    missing = [f.name for f in required if f.name not in data]
    if missing:
        raise SchemaError(f"{where}: {cls.__name__} lacks {', '.join(missing)}"
                          + (f" (in {path})" if path else ""))
    hints = _hints(cls)
    prefix = f"{path}." if path else ""
    return cls(**{k: _check(v, hints[k], where, prefix + k) for k, v in data.items()})


def from_dict(data: Any, where: str = RESULT_FILE) -> ResultSet:
    if not isinstance(data, dict):
        raise SchemaError(f"{where}: not a JSON object")
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise SchemaError(f"{where}: no integer schema_version")
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"{where}: schema_version {version} is newer than this code reads "
            f"({SCHEMA_VERSION}); update the project"
        )
    data = migrate(data, where)
    return _build(ResultSet, data, where)


# --------------------------------------------------------------------------- migrations


def _timing_v1(rec: dict, device: str | None) -> dict:
    """Schema 1 timed each call with events (now eager_ms) and host dispatch
    (host_ms); it had no CUDA-graph replay, so GPU-only time falls back to the
    kernel sum of the trace."""
    t = {"eager_ms": rec.pop("gpu_time_ms", []), "host_ms": rec.pop("cpu_time_ms", [])}
    if device == "cuda" and (t["eager_ms"] or rec.get("trace")):
        t.update(gpu_only_method=GpuOnlyMethod.KERNEL_SUM.value,
                 gpu_only_reason="captured with schema 1, before CUDA-graph timing")
    for key in ("warmup_iters", "warmup_window_ms"):
        if key in rec:
            t[key] = rec.pop(key)
    return t


def update_to_2(data: dict) -> dict:
    """Schema 1 -> 2: timings nested and renamed (three labelled times), notes
    split into typed fields (the stored English explanation dropped: the report
    words it), scenarios and points added (everything in schema 1 is the
    `article` scenario), published figures typed."""
    data = json.loads(json.dumps(data))  # a deep copy: never alter the caller's dict
    cfg = data.get("config") or {}
    env = data.get("environment") or {}
    device = env.get("device", "cuda")
    b, h, s, d = (cfg.get(k) for k in ("batch", "heads", "seq_len", "head_dim"))
    default = {"batch": b, "q_heads": h, "kv_heads": h, "head_dim": d, "q_len": s, "kv_len": s, "mask": "causal"}
    for run in data.get("runs") or []:
        if not isinstance(run, dict):
            continue
        run["timing"] = _timing_v1(run, run.get("device", device))
        run["point"] = dict(default)
        notes = run.pop("notes", None) or {}
        if "first_call_s" in notes:
            run["first_call_s"] = notes.pop("first_call_s")
        if "traceback_tail" in notes:
            run["error_detail"] = notes.pop("traceback_tail")
        if "inplace_autograd" in notes:
            check = dict(notes.pop("inplace_autograd"))
            check.pop("explanation", None)
            check.pop("claim", None)
            run["inplace_autograd"] = check
        if notes:
            run["notes"] = notes  # unknown notes stay, and the load refuses them by name
        if not run.get("published"):
            run.pop("published", None)
    sb, sh = data.pop("sweep_batch", None) or b, data.pop("sweep_heads", None) or h
    for p in data.get("sweep") or []:
        if not isinstance(p, dict):
            continue
        p["timing"] = _timing_v1(p, device)
        seq, dim = p.pop("seq_len", None), p.pop("head_dim", None)
        p["point"] = {"batch": sb, "q_heads": sh, "kv_heads": sh, "head_dim": dim, "q_len": seq, "kv_len": seq,
                      "mask": "causal"}
    sweep_points = sorted({(p["point"]["head_dim"], p["point"]["kv_len"]) for p in data.get("sweep") or []
                           if isinstance(p, dict)}, key=lambda x: (x[0] != d, x))
    points = [default] + [{**default, "batch": sb, "q_heads": sh, "kv_heads": sh, "head_dim": dd, "q_len": ss,
                           "kv_len": ss} for dd, ss in sweep_points if (dd, ss) != (d, s)]
    data["scenarios"] = [{"name": "article", "title": "The article's shape", "dtype": cfg.get("dtype", "bf16"),
                          "points": points,
                          "train_points": [default] if "train" in (cfg.get("modes") or []) else []}]
    data["schema_version"] = 2
    return data


TELEMETRY_NOT_RECORDED = "not recorded: captured before schema 3, without NVML telemetry"
GRAPH_NOT_CHECKED = "not checked: captured before schema 3, which compares a graph's kernels with eager ones"


def update_to_3(data: dict) -> dict:
    """Schema 2 -> 3: NVML telemetry, interleaved rounds, the graph check, the
    burst and read-bandwidth figures are new; what an older set did not record
    is marked so (never guessed). Measured sets only: reference sets publish no
    samples, so nothing of theirs was left unrecorded."""
    data = json.loads(json.dumps(data))
    measured = data.get("kind", SetKind.MEASURED.value) == SetKind.MEASURED.value
    records = [r for key in ("runs", "sweep") for r in data.get(key) or [] if isinstance(r, dict)]
    for rec in records:
        t = rec.get("timing")
        if not measured or not isinstance(t, dict) or not (t.get("eager_ms") or t.get("gpu_only_ms")):
            continue
        t["telemetry_reason"] = TELEMETRY_NOT_RECORDED
        if t.get("gpu_only_method") == GpuOnlyMethod.CUDA_GRAPH.value:
            t["graph_check"] = {"fidelity": GraphFidelity.NOT_CHECKED.value, "detail": GRAPH_NOT_CHECKED}
    data["schema_version"] = 3
    return data


# update_to_N upgrades a file of version N-1 to N, one step at a time.
MIGRATIONS: dict[int, typing.Callable[[dict], dict]] = {2: update_to_2, 3: update_to_3}


def migrate(data: dict[str, Any], where: str) -> dict[str, Any]:
    version = data["schema_version"]
    for target in range(version + 1, SCHEMA_VERSION + 1):
        step = MIGRATIONS.get(target)
        if step is None:
            raise SchemaError(f"{where}: schema_version {version} is too old to read (no update_to_{target})")
        data = step(data)
        if data.get("schema_version") != target:
            raise AssertionError(f"update_to_{target} left schema_version {data.get('schema_version')}")
    return data


def load_set(directory: str | os.PathLike) -> ResultSet:
    """Read, migrate and validate one result set directory. Trace paths must
    resolve inside the set's folder and exist."""
    directory = Path(directory)
    path = directory / RESULT_FILE
    if not path.is_file():
        raise SchemaError(f"{path}: no {RESULT_FILE} in this result set")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SchemaError(f"{path}: not valid JSON ({exc})") from None
    rs = from_dict(data, str(path))
    root = directory.resolve()
    for kind, records in (("runs", rs.runs), ("sweep", rs.sweep)):
        for i, rec in enumerate(records):
            if not rec.trace:
                continue
            target = (directory / rec.trace).resolve()
            if Path(rec.trace).is_absolute() or not target.is_relative_to(root):
                raise SchemaError(f"{path}: field {kind}[{i}].trace {rec.trace!r} points outside the set's folder")
            if not target.is_file():
                raise SchemaError(f"{path}: trace {rec.trace} of {rec.variant} is missing")
    return rs


def list_sets(root: str | os.PathLike) -> list[Path]:
    """Result set directories under root, sorted by name; hidden ones skipped."""
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
