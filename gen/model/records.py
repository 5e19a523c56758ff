"""The records of a result set: versioned plain dataclasses, and their JSON text.

Takes: nothing from other stages. Gives: the record types every stage shares (`ResultSet`,
`Environment`, `RunConfig`, `Point`, `ScenarioRecord`, `Timing`, `VariantRun`, `SweepPoint`,
`Ceilings`, `Counters`, `KernelCounters`, `Telemetry`, `GraphCheck`, ...), the enums of the fields
that take one of a few values, `UserError` and `SchemaError`, and `to_dict` / `dumps`. Raw samples
are stored; statistics are derived by analysis. Standard library only: capture runs it on the GPU
machine. Reading a set back (checks, migrations, load_set) is gen.model.schema's.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 6
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
    # schema 5: which NVML power reading Telemetry.power_w holds ("instant": field 186, a 5 ms sample
    # that can exceed the limit in a transient; "average": nvmlDeviceGetPowerUsage); None where not recorded
    power_reading: str | None = None


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


class PowerReading(enum.StrEnum):
    """Which NVML power reading Telemetry.power_w holds (Environment.power_reading, schema 5)."""

    INSTANT = "instant"  # field 186 (NVML_FI_DEV_POWER_INSTANT): a 5 ms sample, above the limit in a transient
    AVERAGE = "average"  # nvmlDeviceGetPowerUsage: an average over about a second, the one the limit holds


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
    # schema 5: the mean of NVML's averaged power reading (the one the enforced limit holds), where
    # power_w is the instant one; the share of samples whose clock NVML said was held down for power
    power_avg_w: float | None = None
    power_cap_share: float | None = None
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
    # Optional (no version bump): the interleaved rounds' order rotated, round r starting r calls further
    # into `interleaved_with`; False (every set before it): each round in that same order, so each variant
    # followed the same one every round.
    interleave_rotated: bool = False
    # Optional: odd rounds also ran backwards, so whom a variant follows changes from round to round (a rotation
    # alone keeps each variant's predecessor)
    interleave_reversed: bool = False
    # Optional: these rounds came after the point's first ones, taken in turn by the calls that ran out of memory
    # beside the others there (gen.capture.sweep.group), so they compare with one another, not with the first ones
    interleave_later: bool = False


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
    # The source's time is its kernels' device time under a profiler (what our kernel sum is), not a replay or a
    # wall-clock time: it is set against our kernel sum first.
    kernel_time: bool = False


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
    # Optional (no version bump): of build_ms, FlexAttention's block mask (create_block_mask, eager, the device
    # drained before and after): what a server that builds one per new length pays
    mask_ms: float | None = None
    # Optional: a warm call's GPU-only time (a CUDA graph of GRAPH_CALLS calls, replayed; ms a call), and why none
    gpu_ms: float | None = None
    gpu_reason: str | None = None
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
    # Written by captures before interleave_rotated and gpu_ms existed (median of first_ms - steady_ms, and the
    # break-even against it); no longer written: the analysis derives both from `lengths` (one definition)
    first_overhead_ms: float | None = None
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


def to_dict(rs: ResultSet) -> dict[str, Any]:
    return dataclasses.asdict(rs)


def dumps(rs: ResultSet) -> str:
    return json.dumps(to_dict(rs), indent=1, sort_keys=True) + "\n"


