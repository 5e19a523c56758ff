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

import copy
import dataclasses
import enum
import functools
import json
import math
import os
import re
import sys
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 4
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
    # schema 4: the reference SM clock of equal-clock times (gen.analysis.clocks.at_ref_clock): the GPU's
    # maximum SM clock, read by NVML at capture; None where unknown (then no equal-clock time is given)
    ref_mhz: float | None = None


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



# The reference call's batch after each round's host window (Timing.host_ref_ms). The first call of
# a batch runs cold (its median about 5x the others' on the H200 machines): analysis reads the rest.
HOST_REF_CALLS = 8

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
    # Optional (no version bump): the host's cost of a fixed reference call (one add of two
    # one-element tensors on the device, the GPU drained first), a few samples after each round's
    # host window: how fast the host dispatched at that moment, so that two captures' host costs
    # can be compared with the host's own speed set aside (issue 16's evidence).
    host_ref_ms: list[float] = field(default_factory=list)  # batches of HOST_REF_CALLS, one per round
    # schema 4: the variants of one point timed in interleaved rounds (A, B, C, A, B, C...), so that a
    # clock that falls under sustained load falls on all of them alike. `interleaved_with`: the variants
    # of the point in the order of each round (this one among them; empty: timed alone); `slots`:
    # Window -> for each round, the window's place in the point's whole sequence of timed windows
    # (0 first); `round_telemetry`: Window -> each round's own conditions, in order.
    interleaved_with: list[str] = field(default_factory=list)
    slots: dict[str, list[int]] = field(default_factory=dict)
    round_telemetry: dict[str, list[Telemetry]] = field(default_factory=dict)
    # schema 4, training only: the forward and the backward of one step timed apart, GPU-only (each
    # a CUDA graph of its own where one can be made, else CUDA events around eager calls), ms per call;
    # fwd_bwd_method says which, fwd_bwd_reason why empty
    fwd_ms: list[float] = field(default_factory=list)
    bwd_ms: list[float] = field(default_factory=list)
    fwd_bwd_method: str | None = None  # GpuOnlyMethod, or "eager" on a CPU (wall time)
    fwd_bwd_reason: str | None = None


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
    # Optional (no version bump): where this launch repeats one profiled before (the same
    # kernel, grid, block and shared memory), that launch, "<mode>__<variant>#<index>",
    # whose counters these are; None: profiled itself.
    same_as: str | None = None


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
    # The SM clock the source states its figures were taken at (a fixed clock), None where it states none:
    # a published figure is compared with ours at equal clock only where this is known.
    clock_mhz: float | None = None


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
    # Optional (no version bump): the start (environment.date) of the capture call that measured it,
    # where `gen import --merge` brought it from another call; None: the set's own call.
    captured: str | None = None
    first_in_process: bool | None = None  # schema 3: the first call of this backend in the process
    # Optional (no version bump): True where a side process compiled this call before the capture
    # timed anything (gen.capture.precompile); compile_time_s is then that process's first call, and
    # first_call_s this process's, which found the compiled code in Inductor's cache.
    compiled_ahead: bool | None = None
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
    captured: str | None = None  # as VariantRun.captured
    compiled_ahead: bool | None = None  # as VariantRun.compiled_ahead

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
class LengthCost:
    """One new length of a dynamic-lengths run: what its first call cost (plan building, compile,
    loading: a wall clock around the call, the device drained before and after), its second, and a
    warm call's cost (the median of warm calls, CUDA events; wall time on a CPU), all in ms."""

    q_len: int
    kv_len: int
    build_ms: float | None = None  # making the call for this length (a block mask, a plan object), host time
    first_ms: float | None = None
    second_ms: float | None = None
    steady_ms: float | None = None
    reason: str | None = None  # why not measured (a refusal, out of memory)


@dataclass
class DynamicRun:
    """Schema 4: one variant over a run of new lengths (the dynamic-lengths scenario): `phase` prefill
    (a new prompt length each time) or decode (one query, a KV cache growing a token each step).
    `break_even_calls`: the calls per length below which this variant costs less in all (first call
    plus steady calls) than the variant fastest in steady state; None where it never does (it is the
    fastest, or its first calls cost no less)."""

    variant: str
    phase: str  # "prefill" or "decode"
    status: str  # Status
    point: Point  # the first length's point; batch, heads, head dim and mask hold for every length
    reason: str | None = None
    env: dict[str, str] = field(default_factory=dict)  # environment variables set for this run (a switch probe)
    lengths: list[LengthCost] = field(default_factory=list)
    first_overhead_ms: float | None = None  # median over lengths of first_ms - steady_ms
    steady_ms: float | None = None  # median over lengths of steady_ms
    break_even_calls: float | None = None


@dataclass
class SwitchProbe:
    """Schema 4: does this PyTorch read an environment switch, and does it change what it should?"""

    name: str  # the environment variable
    value: str
    present: bool | None  # PyTorch's library names the variable; None: could not tell
    effect: str | None = None  # "lower first calls", "no effect", or why not measured
    detail: str | None = None


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
    dynamic: list[DynamicRun] = field(default_factory=list)  # schema 4: the dynamic-lengths scenario
    switches: list[SwitchProbe] = field(default_factory=list)  # schema 4

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


@functools.cache
@typing.no_type_check
def _hints(cls) -> dict[str, Any]:
    # Cached: resolving the hints is most of a load's time otherwise (0.3 s for the H200 set).
    return typing.get_type_hints(cls)


def _type_name(tp) -> str:
    if isinstance(tp, type):
        return {"str": "a string", "int": "an integer", "float": "a number", "bool": "true or false",
                "list": "a list", "dict": "an object"}.get(tp.__name__, tp.__name__)
    return str(tp).replace("typing.", "")


# --------------------------------------------------------------------------- what a set may hold
#
# A set is untrusted: whatever load accepts, every later stage must take without a
# traceback, and every page must show without a string turning into markup. So load
# refuses, each with one line naming the file and the field:
# - names that become folders, files, URLs and anchors (sets, variants, scenarios,
#   dtypes, trace files) unless they match NAME_RE, and the names of pages a name
#   would overwrite (RESERVED_NAMES);
# - in any other string: control characters (tab and newline only in the free-text
#   fields of _MULTI_LINE), line and paragraph separators, bidirectional overrides,
#   lone surrogates and U+FFFE/U+FFFF, and text longer than MAX_TEXT;
# - numbers that are not finite or lie beyond ±MAX_NUMBER, negative ones (but those
#   of _SIGNED), zero ones where zero makes no sense (_POSITIVE), percentages of
#   _PERCENT over 100, and shapes that make no sense (_check_point);
# - JSON nested deeper than MAX_JSON_DEPTH, or with a key twice in one object.

NAME_PATTERN = r"[a-z0-9][a-z0-9._-]{0,99}"
NAME_RE = re.compile(NAME_PATTERN)
NAME_RULE = "lower-case letters, digits, '.', '_' and '-', starting with a letter or digit, at most 100 characters"
# A name that would take the place of a page the report writes itself (generated/<kind>/index.md),
# or of a device on Windows, where a checkout of results/ may land.
RESERVED_NAMES = frozenset({"index", "con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
                            *(f"lpt{i}" for i in range(10))})
TRACE_RE = re.compile(rf"{TRACE_DIR}/[a-z0-9][a-z0-9._-]{{0,199}}")
MAX_JSON_DEPTH = 32  # a result.json nests 8 deep; this leaves room for new fields
MAX_NUMBER = 1e15  # beyond any count, byte size or time a set holds; well inside float64's exact integers
MAX_DIM = 2**24  # any one dimension of a shape: batch, heads, head dim, lengths, window
MAX_WORK = 2**60  # batch × query heads × query length × KV length × head dim: FLOPs stay exact in int64
MAX_TEXT = 4096  # characters of a one-line string (the longest kernel names are ~500)
MAX_FREE_TEXT = 65536  # characters of a free-text field (a refusal's reason)

# Free text: the reasons and notes PyTorch or a source wrote, which may hold line breaks.
_MULTI_LINE = frozenset({"reason", "error_detail", "gpu_only_reason", "note", "error"})
_BAD_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")
_BAD_FREE_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                            "\ud800-\udfff\ufffe\uffff]")
# Numbers that must be above zero: shapes, the GPU's sizes, and every time sample (a call takes time).
_SHAPE = frozenset({"batch", "heads", "seq_len", "head_dim", "q_heads", "kv_heads", "q_len", "kv_len", "window"})
_POSITIVE = _SHAPE | frozenset({
    "sm_count", "max_threads_per_sm", "max_regs_per_sm", "max_shared_memory_per_sm", "l2_cache_bytes",
    "gpu_memory_bytes", "calls_per_replay", "graph_calls", "copy_bytes", "matmul_shape", "grid", "block",
    "gpu_only_ms", "eager_ms", "host_ms", "warmup_window_ms", "matmul_ms", "copy_ms", "gpu_time_ms",
    "cpu_time_ms", "tflops",
})
# Where the least sensible value is above 1: a GPU runs at least one warp (32 threads) per SM.
_AT_LEAST = {"max_threads_per_sm": 32}
_PERCENT = frozenset({"achieved_occupancy_pct", "theoretical_occupancy_pct", "occupancy_pct", "estimated_speedup_pct"})
_SIGNED = frozenset({"seed"})


class _BadNumber:
    """A JSON number no field may hold (NaN, Infinity, 1e400, an integer of 400 digits),
    kept as its text until the field that holds it is known."""

    def __init__(self, text: str):
        self.text = text if len(text) <= 24 else f"{text[:12]}... ({len(text)} digits)"


def _parse_float(text: str) -> float | _BadNumber:
    value = float(text)
    return value if math.isfinite(value) else _BadNumber(text)


def _parse_int(text: str) -> int | _BadNumber:
    # Python refuses to read integers of over 4300 digits with a ValueError; anything
    # beyond MAX_NUMBER is refused anyway, so long ones never reach int().
    return int(text) if len(text) <= 20 else _BadNumber(text)


class _Duplicated(dict):
    """A JSON object that had a key twice: json.loads keeps the last, load refuses it."""

    duplicates: list[str]


_STRINGS_RE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS_RE = re.compile(r"[^\[\]{}]+")


def _json_depth(text: str) -> int:
    """How deep JSON text nests, without recursing (json.loads recurses, and a file nested
    100,000 deep ends in RecursionError): brackets counted outside strings."""
    brackets = _NOT_BRACKETS_RE.sub("", _STRINGS_RE.sub("", text))
    depth = deepest = 0
    for c in brackets:
        depth += 1 if c in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether decoded JSON nests more than `limit` deep (as _json_depth counts: a list or object
    is one deeper than what holds it): a walk over the containers, level by level."""
    level = [data] if isinstance(data, list | dict) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below = []
        for c in level:
            values = c.values() if isinstance(c, dict) else c
            # the types first (a loop in C): most lists are samples, numbers only
            if any(issubclass(k, list | dict) for k in set(map(type, values))):
                below += [v for v in values if isinstance(v, list | dict)]
        level = below
    return False


def _too_deep(text: str, where: str) -> SchemaError | None:
    depth = _json_depth(text)
    if depth > MAX_JSON_DEPTH:
        return SchemaError(f"{where}: JSON nested {depth} deep; a result set nests at most {MAX_JSON_DEPTH}")
    return None


def parse_json(text: str, where: str) -> Any:
    """JSON text of a set, read as load trusts it: nesting at most MAX_JSON_DEPTH, no key
    twice in an object (each one line naming where), and NaN, Infinity and numbers too
    large to be finite kept for `_check` to refuse by field. The nesting is counted in the
    text (_json_depth: 13 ms of a 3 MB file) only where the decoder gave up (RecursionError:
    the C decoder nests within Python's recursion limit), the text was not JSON (the nesting's
    error comes first, as it did) or what it decoded is too deep."""
    seen_duplicate = []

    def pairs(items: list[tuple[str, Any]]) -> dict:
        obj = dict(items)
        if len(obj) == len(items):
            return obj
        dup = _Duplicated(obj)
        keys = [k for k, _ in items]
        dup.duplicates = sorted({k for k in keys if keys.count(k) > 1})
        seen_duplicate.append(dup)
        return dup

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_float=_parse_float, parse_int=_parse_int,
                          parse_constant=_BadNumber)
    except RecursionError:
        raise _too_deep(text, where) or SchemaError(f"{where}: JSON nested too deep to read") from None
    except json.JSONDecodeError as exc:
        raise _too_deep(text, where) or SchemaError(f"{where}: not valid JSON ({exc})") from None
    if _deeper_than(data, MAX_JSON_DEPTH):
        raise _too_deep(text, where)
    if seen_duplicate:
        path, keys = _find_duplicate(data)
        raise SchemaError(f"{where}: {path} has the key {keys[0]!r} twice "
                          f"(a damaged file: which of the two is meant is unknown)")
    return data


def _find_duplicate(data: Any) -> tuple[str, list[str]]:
    """Where the first object with a key twice lies, and its keys (a walk without recursion)."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, _Duplicated):
            return (f"field {path}" if path else "the top object"), node.duplicates
        if isinstance(node, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(node))))
    raise AssertionError("a duplicated key was seen but not found")


def _shown(value: Any) -> str:
    """A value as a message shows it: JSON, one line, cut at 60 characters."""
    if isinstance(value, _BadNumber):
        return value.text
    try:
        return json.dumps(value, default=lambda v: getattr(v, "text", "?"))[:60]
    except (ValueError, RecursionError):  # a huge integer made in memory, not read from a file
        return f"a {type(value).__name__}"


def _char_name(c: str) -> str:
    import unicodedata

    if "\ud800" <= c <= "\udfff":
        return f"U+{ord(c):04X} (a lone surrogate)"
    return f"U+{ord(c):04X}" + (f" ({unicodedata.name(c)})" if unicodedata.name(c, "") else "")


def _check_text(value: str, where: str, fname: str, short: str) -> None:
    free = short in _MULTI_LINE
    bad = (_BAD_FREE_TEXT if free else _BAD_TEXT).search(value)
    if bad:
        raise SchemaError(f"{where}: field {fname} holds {_char_name(bad.group())} at character {bad.start()}: "
                          f"control characters{'' if free else ' (tab and newline too)'}, line separators, "
                          f"bidirectional overrides and lone surrogates are refused")
    limit = MAX_FREE_TEXT if free else MAX_TEXT
    if len(value) > limit:
        raise SchemaError(f"{where}: field {fname} is {len(value)} characters long; at most {limit}")


@functools.cache
def _number_rule(short: str) -> tuple[float, bool, float, str]:
    """(least, whether the least itself is allowed, most, the rule in words) of a field."""
    if short in _POSITIVE:
        top = MAX_DIM if short in _SHAPE else MAX_NUMBER
        if short in _AT_LEAST:
            return _AT_LEAST[short], True, top, f"from {_AT_LEAST[short]} to {top:g}"
        return 0, False, top, f"above 0 and at most {top:g}"
    if short in _PERCENT:
        return 0, True, 100, "a percentage from 0 to 100"
    if short in _SIGNED:
        return -MAX_NUMBER, True, MAX_NUMBER, f"within ±{MAX_NUMBER:g}"
    return 0, True, MAX_NUMBER, f"from 0 to {MAX_NUMBER:g}"


def _numbers_ok(values: list, item: type, short: str) -> bool:
    """All of a list of numbers of type item (ints for int; no bools, no NaN) within its
    field's rule: one pass, for the long lists of time samples; _check says which is not."""
    least, closed, most, _ = _number_rule(short)
    kinds = (int, float) if item is float else (int,)
    if not all(type(v) in kinds for v in values):
        return False
    if closed:
        return all(least <= v <= most for v in values)
    return all(least < v <= most for v in values)


def _check_number(value: float, where: str, fname: str, short: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):  # a dataclass built in memory
        raise SchemaError(f"{where}: field {fname} is {value}, not a finite number")
    least, closed, most, what = _number_rule(short)
    if not ((least <= value) if closed else (least < value)) or not value <= most:
        raise SchemaError(f"{where}: field {fname} is {value!r}, expected {what}")


def check_name(value: str, where: str, what: str, reserved: bool = True) -> None:
    """A name that becomes a folder, a file, a URL or an anchor: NAME_RE, and not one of
    RESERVED_NAMES. One line naming where and what."""
    if not NAME_RE.fullmatch(value):
        shown = json.dumps(value if len(value) <= 60 else value[:60] + "...")
        raise SchemaError(f"{where}: {what} {shown} is not a name ({NAME_RULE})")
    if reserved and value in RESERVED_NAMES:
        raise SchemaError(f"{where}: {what} {value!r} is reserved (the report writes a page of that name); "
                          f"rename it")


def _check_point(p: Point, where: str, fname: str) -> None:
    """A shape that attention can have."""
    if p.q_heads % p.kv_heads:
        raise SchemaError(f"{where}: field {fname}: {p.q_heads} query heads do not group over {p.kv_heads} KV heads")
    if (p.mask == Mask.SLIDING) != (p.window is not None):
        raise SchemaError(f"{where}: field {fname}.window: a window goes with mask 'sliding', and only with it")
    if p.mask in (Mask.CAUSAL, Mask.SLIDING) and p.q_len > p.kv_len:
        raise SchemaError(f"{where}: field {fname}: q_len {p.q_len} exceeds kv_len {p.kv_len} under a "
                          f"{p.mask} mask (the queries are the last q_len of the keys)")
    if p.batch * p.q_heads * p.q_len * p.kv_len * p.head_dim > MAX_WORK:
        raise SchemaError(f"{where}: field {fname}: batch × q_heads × q_len × kv_len × head_dim exceeds 2^60")


def _check_set(rs: ResultSet, where: str) -> None:
    """What a set holds as a whole: names, shapes, one record per key, one record per trace."""
    check_name(rs.name, where, "field name")
    cfg = rs.config
    for i, v in enumerate(cfg.variants):
        check_name(v, where, f"field config.variants[{i}]")
    for i, m in enumerate(cfg.modes):
        if m not in {e.value for e in Mode}:
            raise SchemaError(f"{where}: field config.modes[{i}] is {m!r}, expected one of {', '.join(Mode)}")
    check_name(cfg.dtype, where, "field config.dtype", reserved=False)
    declared: set[str] = set()
    for i, s in enumerate(rs.scenarios):
        check_name(s.name, where, f"field scenarios[{i}].name")
        if s.name in declared:
            raise SchemaError(f"{where}: field scenarios[{i}].name: scenario {s.name} is declared twice")
        declared.add(s.name)
        check_name(s.dtype, where, f"field scenarios[{i}].dtype", reserved=False)
        for kind in ("points", "train_points"):
            for j, p in enumerate(getattr(s, kind)):
                _check_point(p, where, f"scenarios[{i}].{kind}[{j}]")
    if rs.ceilings is not None:
        check_name(rs.ceilings.matmul_dtype, where, "field ceilings.matmul_dtype", reserved=False)
        if len(rs.ceilings.matmul_shape) != 3:
            raise SchemaError(f"{where}: field ceilings.matmul_shape has {len(rs.ceilings.matmul_shape)} "
                              f"sizes, expected 3 (m, n, k)")
    traces: dict[str, str] = {}
    keys: dict[tuple, str] = {}
    for kind, records in (("runs", rs.runs), ("sweep", rs.sweep)):
        for i, rec in enumerate(records):
            at = f"{kind}[{i}]"
            check_name(rec.variant, where, f"field {at}.variant")
            check_name(rec.scenario, where, f"field {at}.scenario")
            if declared and rec.scenario not in declared:
                raise SchemaError(f"{where}: field {at}.scenario {rec.scenario!r} is not declared in scenarios")
            if rec.point is not None:
                _check_point(rec.point, where, f"{at}.point")
            key = (kind, rec.scenario, rec.variant, rec.mode) + ((rec.point,) if kind == "sweep" else ())
            if key in keys:
                raise SchemaError(f"{where}: field {at} repeats {keys[key]} (scenario {rec.scenario}, variant "
                                  f"{rec.variant}, mode {rec.mode}{', same point' if kind == 'sweep' else ''})")
            keys[key] = at
            if rec.trace is not None:
                if rec.trace.startswith(("/", "\\")) or ".." in re.split(r"[/\\]", rec.trace):
                    raise SchemaError(f"{where}: field {at}.trace {_shown(rec.trace)} points outside the set's folder")
                if not TRACE_RE.fullmatch(rec.trace):
                    shown = json.dumps(rec.trace if len(rec.trace) <= 60 else rec.trace[:60] + "...")
                    raise SchemaError(f"{where}: field {at}.trace {shown} is not {TRACE_DIR}/<file name> "
                                      f"(the file name: lower-case letters, digits, '.', '_', '-', at most 200)")
                if rec.trace in traces:
                    raise SchemaError(f"{where}: field {at}.trace names the file of {traces[rec.trace]}.trace "
                                      f"({rec.trace}); each record has its own trace")
                traces[rec.trace] = at
            counters = getattr(rec, "counters", None)
            for j, k in enumerate(counters.kernels if counters else []):
                for dim in ("grid", "block"):
                    if len(getattr(k, dim)) > 3:
                        raise SchemaError(f"{where}: field {at}.counters.kernels[{j}].{dim} has more than 3 sizes")


_SCALAR_OK = {
    bool: lambda v: isinstance(v, bool),
    int: lambda v: isinstance(v, int) and not isinstance(v, bool),
    float: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    str: lambda v: isinstance(v, str),
}


def _form(tp) -> tuple[str, tuple]:
    """What _check does with a type hint: (any, union, dataclass, list, tuple, dict or scalar, its arguments)."""
    if tp is Any:
        return "any", ()
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return "union", typing.get_args(tp)
    if dataclasses.is_dataclass(tp):
        return "dataclass", ()
    if origin in (list, tuple, dict):
        return origin.__name__, typing.get_args(tp)
    return "scalar", ()


_FORMS: dict = {}  # type hint -> _form: the same few hints are checked tens of thousands of times a set


@functools.cache
def _enum_values(short: str) -> frozenset[str]:
    return frozenset(e.value for e in ENUM_FIELDS[short])


def _short(fname: str) -> str:
    """A field's own name (what its rules are keyed by): `x` of `runs[2].timing.x[4]`."""
    return fname.rsplit(".", 1)[-1].split("[")[0]


def _check(value: Any, tp, where: str, fname: str, short: str | None = None) -> Any:
    """Value checked against a type hint; dataclasses built. Returns the value to store.
    `short`: _short(fname), passed down (the same for a list's items; a field's or key's own
    name below) instead of cut out of the path again for each of a set's 40,000 values."""
    if short is None:
        short = _short(fname)
    try:
        form, targs = _FORMS[tp]
    except KeyError:
        form, targs = _FORMS[tp] = _form(tp)
    except TypeError:  # a hint that cannot be a key
        form, targs = _form(tp)
    # The forms by how often a set holds them: scalars (18,000 a set), unions (14,000: optional fields).
    if form == "scalar":
        ok = _SCALAR_OK.get(tp)
        if ok is None:
            raise TypeError(f"schema: no check for type {tp!r} of {fname}")  # a bug here, not bad input
        if isinstance(value, _BadNumber):
            raise SchemaError(f"{where}: field {fname} is {value.text}, not a finite number "
                              f"(numbers in a set lie within ±{MAX_NUMBER:.0e})")
        if not ok(value):
            raise SchemaError(f"{where}: field {fname} is {_shown(value)}, expected {_type_name(tp)}")
        if tp is str and short in ENUM_FIELDS and value not in _enum_values(short):
            allowed = ", ".join(e.value for e in ENUM_FIELDS[short])
            raise SchemaError(f"{where}: field {fname} is {value!r}, expected one of {allowed}")
        if tp is str:
            _check_text(value, where, fname, short)
        elif tp in (int, float):
            _check_number(value, where, fname, short)
        return float(value) if tp is float else value
    if form == "union":
        args = targs
        if value is None and type(None) in args:
            return None
        others = _not_none(args)
        if len(others) == 1:  # X | None: X's own error, as the loop below gives it
            return _check(value, others[0], where, fname, short)
        errors = []
        for arg in others:
            try:
                return _check(value, arg, where, fname, short)
            except SchemaError as exc:
                errors.append(exc)
        raise errors[0] if len(errors) == 1 else SchemaError(
            f"{where}: field {fname} is {_shown(value)}, expected {_type_name(tp)}")
    if form == "dataclass":
        return _build(tp, value, where, fname)
    if form == "list":
        if not isinstance(value, list):
            raise SchemaError(f"{where}: field {fname} must be a list, not {type(value).__name__}")
        (item,) = targs
        if item in (int, float) and value and _numbers_ok(value, item, short):
            return [float(v) for v in value] if item is float else list(value)  # samples: checked in one pass
        return [_check(v, item, where, f"{fname}[{i}]", short) for i, v in enumerate(value)]
    if form == "tuple":  # tuple[X, ...]: a JSON list
        if not isinstance(value, list | tuple):
            raise SchemaError(f"{where}: field {fname} must be a list, not {type(value).__name__}")
        item = targs[0]
        return tuple(_check(v, item, where, f"{fname}[{i}]", short) for i, v in enumerate(value))
    if form == "dict":
        if not isinstance(value, dict):
            raise SchemaError(f"{where}: field {fname} must be an object, not {type(value).__name__}")
        _, item = targs
        return {str(k): _check(v, item, where, f"{fname}.{k}", _short(str(k))) for k, v in value.items()}
    return value  # "any"


@functools.cache
def _not_none(args: tuple) -> tuple:
    return tuple(a for a in args if a is not type(None))


@functools.cache
def _fields(cls) -> tuple[frozenset[str], tuple[str, ...]]:
    """A dataclass's field names, and those without a default, in order (read once per class)."""
    fields = dataclasses.fields(cls)
    return frozenset(f.name for f in fields), tuple(
        f.name for f in fields if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)


def _build(cls, data: Any, where: str, path: str = ""):
    """One dataclass from a JSON object: every field type-checked, unknown keys refused."""
    name = path or cls.__name__
    if not isinstance(data, dict):
        raise SchemaError(f"{where}: field {name} must be an object ({cls.__name__})")
    names, required = _fields(cls)
    if not names.issuperset(data):
        unknown = sorted(set(data) - names)
        raise SchemaError(f"{where}: field {name} has unknown key(s) {', '.join(unknown)} "
                          f"(a newer schema, or a damaged file)")
    missing = [f for f in required if f not in data]
    if missing:
        raise SchemaError(f"{where}: {cls.__name__} lacks {', '.join(missing)}"
                          + (f" (in {path})" if path else ""))
    hints = _hints(cls)
    prefix = f"{path}." if path else ""
    return cls(**{k: _check(v, hints[k], where, prefix + k, k) for k, v in data.items()})


def from_dict(data: Any, where: str = RESULT_FILE) -> ResultSet:
    rs = _build(ResultSet, _upgraded(data, where), where)
    _check_set(rs, where)
    return rs


def _upgraded(data: Any, where: str) -> dict:
    """A set's top object, migrated to SCHEMA_VERSION; its version checked first."""
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
    return migrate(data, where)


# --------------------------------------------------------------------------- the quick check
#
# A good set is read by a quicker path than the one above, which names what is wrong: the same
# rules, each type hint's check made once as a function (no field path built per value, no
# dispatch on the hint's form per value), the numbers read by json's own C code (no Python call
# per number), and the lists of samples checked by C loops (min, max, sum). Its only answer to
# bad input is "not quick" (_NotQuick, or any error): load_set then reads the file again by
# parse_json and from_dict, whose one-line error names the file and the field. So it may refuse
# more than they do (a set only loads slower), never less, and what it builds equals what they
# build, to the type (tests/test_schema.py compares the two on every committed set and on
# damaged copies). The H200 set's load_set: 40 ms of CPU instead of 84 (min of 10).


class _NotQuick(Exception):
    """The quick check found something that the full check names (or something it does not check)."""


def _pairs_quick(items: list[tuple[str, Any]]) -> dict:
    obj = dict(items)
    if len(obj) != len(items):  # a key twice: parse_json names it
        raise _NotQuick
    return obj


def _quick_set(text: str, where: str) -> ResultSet | None:
    """The ResultSet of a result.json's text, checked by the quick path; None where it is not quick.
    Without _NUMBER_HOOKS a number too large to be finite reads as inf (or a long integer), which
    every number's range refuses; nesting deeper than MAX_JSON_DEPTH cannot pass the checks, which
    follow the schema's own nesting (8 deep)."""
    try:
        data = json.loads(text, object_pairs_hook=_pairs_quick, parse_constant=_BadNumber)
        if isinstance(data, dict) and data.get("schema_version") != SCHEMA_VERSION \
                and _deeper_than(data, MAX_JSON_DEPTH):
            return None  # an older set's migrations drop fields whose depth the checks below never see
        rs = _quick(ResultSet, "")(_upgraded(data, where))
        _check_set(rs, where)
        return rs
    except Exception:  # noqa: BLE001 - anything the quick path meets, the full path reads and names
        return None


@functools.cache
def _quick(tp, short: str, optional: bool = False) -> typing.Callable[[Any], Any]:
    """The check of a type hint for a field named `short` (the rules of _check): a function from
    the decoded value to the value to store, raising _NotQuick where _check would refuse.
    `optional`: None is taken too (X | None: one function, not a union's around X's)."""
    form, targs = _form(tp)
    if form == "union":
        others = _not_none(targs)
        optional = optional or type(None) in targs
        if len(others) == 1:
            return _quick(others[0], short, optional)
        checks = [_quick(a, short) for a in others]

        def union_of(v):
            if v is None and optional:
                return None
            for c in checks:
                try:
                    return c(v)
                except _NotQuick:
                    pass
            raise _NotQuick
        return union_of
    if form == "scalar":
        return _quick_scalar(tp, short, optional)
    if form == "dataclass":
        return _quick_dataclass(tp, optional)
    if form == "list":
        return _quick_list(targs[0], short, optional)
    if form == "tuple":
        each = _quick(targs[0], short)

        def tuple_of(v):
            if v is None and optional:
                return None
            if not isinstance(v, list | tuple):
                raise _NotQuick
            return tuple(map(each, v))
        return tuple_of
    if form == "dict":
        return _quick_dict(targs[1], optional)
    return lambda v: v  # "any"


def _quick_scalar(tp, short: str, optional: bool) -> typing.Callable[[Any], Any]:
    if tp is str:
        allowed = _enum_values(short) if short in ENUM_FIELDS else None
        free = short in _MULTI_LINE
        bad = (_BAD_FREE_TEXT if free else _BAD_TEXT).search
        limit = MAX_FREE_TEXT if free else MAX_TEXT

        # Printable ASCII holds none of the characters refused (a test of the string's own, far
        # quicker than the search); other text is searched. Interned: a set names the same kernels,
        # variants and statuses thousands of times, each its own string as decoded, and a set
        # pickled to the cache or from a worker holds each once (1.9 MB -> 0.8 MB for the H200 set).
        def text(v):
            if v is None and optional:
                return None
            if (not isinstance(v, str) or (allowed is not None and v not in allowed)
                    or not (v.isascii() and v.isprintable()) and bad(v) or len(v) > limit):
                raise _NotQuick
            return sys.intern(v)
        return text
    if tp is bool:
        def flag(v):
            if v is None and optional:
                return None
            if not isinstance(v, bool):
                raise _NotQuick
            return v
        return flag
    if tp in (int, float):
        least, closed, most, _ = _number_rule(short)
        kinds = (int, float) if tp is float else int

        # NaN fails every comparison, so it fails the range too (as _check_number refuses it)
        def number(v):
            if v is None and optional:
                return None
            if (not isinstance(v, kinds) or isinstance(v, bool) or not (least <= v if closed else least < v)
                    or not v <= most):
                raise _NotQuick
            return float(v) if tp is float else v
        return number
    raise TypeError(f"schema: no check for type {tp!r}")  # as _check: a bug; the full path raises it


def _quick_dataclass(cls, optional: bool) -> typing.Callable[[Any], Any]:
    names, required = _fields(cls)
    required = frozenset(required)
    hints = _hints(cls)
    checks = {name: _quick(hints[name], name) for name in names}

    def build(v):
        if v is None and optional:
            return None
        if not isinstance(v, dict) or not names.issuperset(v) or not required <= v.keys():
            raise _NotQuick
        return cls(**{k: checks[k](x) for k, x in v.items()})
    return build


def _quick_list(item, short: str, optional: bool) -> typing.Callable[[Any], Any]:
    each = _quick(item, short)
    if item not in (int, float):
        def list_of(v):
            if v is None and optional:
                return None
            if not isinstance(v, list):
                raise _NotQuick
            return list(map(each, v))
        return list_of
    least, closed, most, _ = _number_rule(short)
    kinds = {int, float} if item is float else {int}

    def numbers(v):
        if v is None and optional:
            return None
        if not isinstance(v, list):
            raise _NotQuick
        # Samples, the most of a set's values: their types, sum (not finite where one is NaN or
        # infinite), least and most, each a loop in C; _numbers_ok's reading, item by item.
        types = set(map(type, v))
        if v and types <= kinds and (item is int or math.isfinite(sum(v))):
            low, high = min(v), max(v)
            if (least <= low if closed else least < low) and high <= most:
                # the decoded list itself where it holds the stored values already (it is not kept)
                return v if types == {item} else list(map(item, v))
        return list(map(each, v))
    return numbers


QUICK_KEYS = 1000  # the dict keys whose checks a dict field keeps (a file's keys are its own: bounded)


def _quick_dict(item, optional: bool) -> typing.Callable[[Any], Any]:
    by_key: dict[str, typing.Callable] = {}  # a value's rules are its key's (Timing.round_sizes, SweepPoint.facts)

    def dict_of(v):
        if v is None and optional:
            return None
        if not isinstance(v, dict):
            raise _NotQuick
        out = {}
        for k, x in v.items():
            k = str(k)
            check = by_key.get(k)
            if check is None:
                check = _quick(item, _short(k))
                if len(by_key) < QUICK_KEYS:
                    by_key[k] = check
            out[k] = check(x)
        return out
    return dict_of


# --------------------------------------------------------------------------- migrations


def _obj(value: Any) -> dict:
    """A migration's view of what should be an object: empty when it is not."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _ints(*values: Any) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


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
    data = copy.deepcopy(data)  # never alter the caller's dict
    # What this step reads may be of any type in a damaged file: it reads what it
    # understands and leaves the rest as it is, for the load to name.
    cfg = _obj(data.get("config"))
    env = _obj(data.get("environment"))
    device = env.get("device", "cuda")
    b, h, s, d = (cfg.get(k) for k in ("batch", "heads", "seq_len", "head_dim"))
    default = {"batch": b, "q_heads": h, "kv_heads": h, "head_dim": d, "q_len": s, "kv_len": s, "mask": "causal"}
    for run in _list(data.get("runs")):
        if not isinstance(run, dict):
            continue
        run["timing"] = _timing_v1(run, run.get("device", device))
        run["point"] = dict(default)
        notes = run.pop("notes", None) or {}
        if not isinstance(notes, dict):
            run["notes"] = notes  # refused by the load, by name
            notes = {}
        if "first_call_s" in notes:
            run["first_call_s"] = notes.pop("first_call_s")
        if "traceback_tail" in notes:
            run["error_detail"] = notes.pop("traceback_tail")
        if isinstance(notes.get("inplace_autograd"), dict):
            check = dict(notes.pop("inplace_autograd"))
            check.pop("explanation", None)
            check.pop("claim", None)
            run["inplace_autograd"] = check
        if notes:
            run["notes"] = notes  # unknown notes stay, and the load refuses them by name
        if not run.get("published"):
            run.pop("published", None)
    sb, sh = data.pop("sweep_batch", None) or b, data.pop("sweep_heads", None) or h
    for p in _list(data.get("sweep")):
        if not isinstance(p, dict):
            continue
        p["timing"] = _timing_v1(p, device)
        seq, dim = p.pop("seq_len", None), p.pop("head_dim", None)
        p["point"] = {"batch": sb, "q_heads": sh, "kv_heads": sh, "head_dim": dim, "q_len": seq, "kv_len": seq,
                      "mask": "causal"}
    sweep_points = sorted({(p["point"]["head_dim"], p["point"]["kv_len"]) for p in _list(data.get("sweep"))
                           if isinstance(p, dict) and _ints(p["point"]["head_dim"], p["point"]["kv_len"])},
                          key=lambda x: (x[0] != d, x))
    points = [default] + [{**default, "batch": sb, "q_heads": sh, "kv_heads": sh, "head_dim": dd, "q_len": ss,
                           "kv_len": ss} for dd, ss in sweep_points if (dd, ss) != (d, s)]
    data["scenarios"] = [{"name": "article", "title": "The article's shape", "dtype": cfg.get("dtype", "bf16"),
                          "points": points,
                          "train_points": [default] if "train" in _list(cfg.get("modes")) else []}]
    data["schema_version"] = 2
    return data


TELEMETRY_NOT_RECORDED = "not recorded: captured before schema 3, without NVML telemetry"
GRAPH_NOT_CHECKED = "not checked: captured before schema 3, which compares a graph's kernels with eager ones"


def update_to_3(data: dict) -> dict:
    """Schema 2 -> 3: NVML telemetry, interleaved rounds, the graph check, the
    burst and read-bandwidth figures are new; what an older set did not record
    is marked so (never guessed). Measured sets only: reference sets publish no
    samples, so nothing of theirs was left unrecorded."""
    data = copy.deepcopy(data)  # not a JSON round trip: a number no field may hold is still _BadNumber here
    measured = data.get("kind", SetKind.MEASURED.value) == SetKind.MEASURED.value
    records = [r for key in ("runs", "sweep") for r in _list(data.get(key)) if isinstance(r, dict)]
    for rec in records:
        t = rec.get("timing")
        if not measured or not isinstance(t, dict) or not (t.get("eager_ms") or t.get("gpu_only_ms")):
            continue
        t["telemetry_reason"] = TELEMETRY_NOT_RECORDED
        if t.get("gpu_only_method") == GpuOnlyMethod.CUDA_GRAPH.value:
            t["graph_check"] = {"fidelity": GraphFidelity.NOT_CHECKED.value, "detail": GRAPH_NOT_CHECKED}
    data["schema_version"] = 3
    return data


# The maximum SM clock of the GPUs whose sets predate schema 4 without NVML's reading of it.
KNOWN_MAX_SM_MHZ = {"H100": 1980.0, "H200": 1980.0}


def known_ref_mhz(gpu_name: str | None) -> float | None:
    """The maximum SM clock of a GPU named in KNOWN_MAX_SM_MHZ (by a word of its name), else None."""
    words = re.split(r"[^A-Za-z0-9]+", (gpu_name or "").upper())
    return next((mhz for key, mhz in KNOWN_MAX_SM_MHZ.items() if key in words), None)


def update_to_4(data: dict) -> dict:
    """Schema 3 -> 4: the reference clock of equal-clock times (environment.ref_mhz): the maximum SM
    clock NVML read where the set has it, else that of a known GPU by its name, else None (then no
    equal-clock time). The interleaving, forward/backward and dynamic-lengths fields are new and
    default empty: an older set did not record them."""
    data = copy.deepcopy(data)
    env = data.get("environment")
    if isinstance(env, dict) and "ref_mhz" not in env:
        recorded = env.get("sm_clock_max_mhz")
        ok = isinstance(recorded, (int, float)) and not isinstance(recorded, bool) and recorded > 0
        env["ref_mhz"] = float(recorded) if ok else known_ref_mhz(env.get("gpu_name") if isinstance(
            env.get("gpu_name"), str) else None)
    data["schema_version"] = 4
    return data


# update_to_N upgrades a file of version N-1 to N, one step at a time.
MIGRATIONS: dict[int, typing.Callable[[dict], dict]] = {2: update_to_2, 3: update_to_3, 4: update_to_4}


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
    # First: the folder becomes a page, a URL and a folder of traces (and a name of
    # 10,000 characters cannot even be looked up: ENAMETOOLONG).
    check_name(directory.name, str(directory.parent), "the set's folder name")
    path = directory / RESULT_FILE
    if not path.is_file():
        raise SchemaError(f"{path}: no {RESULT_FILE} in this result set")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{path}: not valid JSON ({exc})") from None
    rs = _quick_set(text, str(path)) or from_dict(parse_json(text, str(path)), str(path))
    _check_trace_files(directory, str(path), rs)
    return rs


def _check_trace_files(directory: Path, where: str, rs: ResultSet) -> None:
    """Each trace a record names resolves inside the set's folder and is a file."""
    if not any(rec.trace for records in (rs.runs, rs.sweep) for rec in records):
        return  # a published set names no trace: its folder is not looked at
    # Each trace is traces/<file name> (_check_set, TRACE_RE): the folder is resolved once, and a
    # file in it resolves to itself unless it is a link (resolving each path: 9 ms of the H200 set).
    root, folder = _resolved(directory, where), _resolved(directory / TRACE_DIR, where)
    for kind, records in (("runs", rs.runs), ("sweep", rs.sweep)):
        for i, rec in enumerate(records):
            if not rec.trace:
                continue
            target = folder / rec.trace.removeprefix(f"{TRACE_DIR}/")
            if target.is_symlink():
                target = _resolved(target, f"{where}: field {kind}[{i}].trace")
            if os.path.isabs(rec.trace) or not target.is_relative_to(root):
                raise SchemaError(f"{where}: field {kind}[{i}].trace {rec.trace!r} points outside the set's folder")
            if not target.is_file():
                raise SchemaError(f"{where}: field {kind}[{i}].trace: trace {rec.trace} of {rec.variant} is missing")


def _resolved(path: Path, where: str) -> Path:
    """path.resolve(), or one line where links loop (Python 3.11 raises RuntimeError, later ones OSError)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError) as exc:
        raise SchemaError(f"{where}: {path} cannot be resolved ({exc})") from None


def list_sets(root: str | os.PathLike) -> list[Path]:
    """Result set directories under root, sorted by name; hidden ones skipped."""
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
