"""FlashAttention-4's kernels beside FlashAttention-2 (SDPA flash), cuDNN and the Triton template (FlexAttention),
from what a set recorded of them: Nsight Compute's counters of one call of the article's shape (kernel name,
grid, block, registers, shared memory, occupancy, SM, DRAM and tensor-pipe throughput) and the GPU's limits.

Takes: a ResultSet. Gives: `story(rs)` -> `Story` (None where neither FA4 variant has counters): per mode and
compared variant, its main kernels (`KernelFacts`, each with what its launch shape implies: warps, warpgroups,
registers of a block against the SM's register file, blocks against the SM count, what its name states).
Numbers only: gen.report.pages.kernel_story words them, and says what is not measured.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from gen.analysis import kernel_names
from gen.model import schema

FA4_VARIANTS = ("fa4", "flex_flash")
# The kernels FA4's are set beside: FlashAttention-2 as SDPA runs it, cuDNN's, and FlexAttention's Triton template
BESIDE = ("sdpa_flash", "sdpa_cudnn", "flex")
COMPARED = FA4_VARIANTS + BESIDE
SCENARIO = "article"  # the counter pass runs on the set's profiled runs, which are the article's shape
# A kernel is one of a call's main kernels where it takes at least this share of the call's counted time
MAIN_SHARE = 0.15
WARP = 32
WARPGROUP = 4 * WARP  # Hopper's wgmma is issued by a warpgroup of four warps
_CGA = re.compile(r"cga(\d+)x(\d+)x(\d+)")
FA4_CLASS = kernel_names.FA4_CLASS  # what ran, read from the kernel's name, not assumed from the package


@dataclass(frozen=True)
class KernelFacts:
    variant: str
    mode: str
    name: str
    duration_us: float | None
    share: float | None  # of the call's counted kernel time
    grid: tuple[int, ...]
    block: tuple[int, ...]
    registers_per_thread: int | None
    shared_memory_bytes: int | None
    theoretical_occupancy_pct: float | None
    achieved_occupancy_pct: float | None
    occupancy_limiter: str | None
    sm_throughput_pct: float | None
    dram_throughput_pct: float | None
    tensor_pipe_pct: float | None
    # derived from the launch shape and the GPU's limits
    threads: int | None
    warps: int | None
    warpgroups: int | None  # None where the block is not a whole number of warpgroups
    blocks: int | None
    registers_per_block: int | None
    register_file_share: float | None  # of the SM's registers (0-1)
    shared_memory_share: float | None  # of the SM's shared memory (0-1)
    blocks_per_sm_by_registers: int | None
    blocks_per_sm_by_shared_memory: int | None
    grid_is_sm_count: bool | None  # as many blocks as the GPU has SMs: one block a SM (a persistent grid)
    # what its name states (None: the name says nothing of it)
    name_sm90: bool
    name_wgmma: bool
    name_tma: bool
    name_cluster: tuple[int, int, int] | None
    fa4_class: str | None = None  # flash_attn.cute's kernel class by its name ("FlashAttentionForwardSm90")
    fa4_class_arch: int | None = None  # the architecture that class targets (90, 100)


@dataclass(frozen=True)
class Story:
    modes: dict[str, dict[str, list[KernelFacts]]] = field(default_factory=dict)  # mode -> variant -> kernels
    missing: dict[str, str] = field(default_factory=dict)  # variant -> why it has no counters here
    sm_count: int | None = None
    max_regs_per_sm: int | None = None
    max_shared_memory_per_sm: int | None = None
    compute_capability: str | None = None  # the GPU's ("9.0")
    # flash_attn.cute's kernel classes that ran here, by architecture (from any of the set's counted kernels)
    fa4_classes: dict[int, tuple[str, ...]] = field(default_factory=dict)


def _prod(xs) -> int | None:
    return math.prod(xs) if xs else None


def _kernel(variant: str, mode: str, k: schema.KernelCounters, total_ns: float, env: schema.Environment) -> KernelFacts:
    threads = _prod(k.block)
    regs_block = threads * k.registers_per_thread if threads and k.registers_per_thread else None
    blocks = _prod(k.grid)
    cga = _CGA.search(k.name)
    low = k.name.lower()
    cls = FA4_CLASS.search(k.name)
    return KernelFacts(
        variant=variant, mode=mode, name=k.name, duration_us=k.duration_ns / 1e3 if k.duration_ns else None,
        share=k.duration_ns / total_ns if k.duration_ns and total_ns else None,
        grid=tuple(k.grid), block=tuple(k.block), registers_per_thread=k.registers_per_thread,
        shared_memory_bytes=k.shared_memory_bytes, theoretical_occupancy_pct=k.theoretical_occupancy_pct,
        achieved_occupancy_pct=k.achieved_occupancy_pct, occupancy_limiter=k.occupancy_limiter,
        sm_throughput_pct=k.sm_throughput_pct, dram_throughput_pct=k.dram_throughput_pct,
        tensor_pipe_pct=k.tensor_pipe_pct, threads=threads, warps=threads // WARP if threads else None,
        warpgroups=threads // WARPGROUP if threads and threads % WARPGROUP == 0 else None, blocks=blocks,
        registers_per_block=regs_block,
        register_file_share=regs_block / env.max_regs_per_sm if regs_block and env.max_regs_per_sm else None,
        shared_memory_share=(k.shared_memory_bytes / env.max_shared_memory_per_sm
                             if k.shared_memory_bytes is not None and env.max_shared_memory_per_sm else None),
        blocks_per_sm_by_registers=env.max_regs_per_sm // regs_block if regs_block and env.max_regs_per_sm else None,
        blocks_per_sm_by_shared_memory=(env.max_shared_memory_per_sm // k.shared_memory_bytes
                                        if k.shared_memory_bytes and env.max_shared_memory_per_sm else None),
        grid_is_sm_count=blocks == env.sm_count if blocks and env.sm_count else None,
        name_sm90="sm90" in low, name_wgmma="wgmma" in low, name_tma="tma" in low,
        name_cluster=tuple(int(x) for x in cga.groups()) if cga else None,
        fa4_class=cls.group(0) if cls else None, fa4_class_arch=int(cls.group(1)) if cls else None)


def main_kernels(run: schema.VariantRun, env: schema.Environment) -> list[KernelFacts]:
    """The kernels of the run's counted call that take at least MAIN_SHARE of its counted time, in launch order."""
    ks = run.counters.kernels if run.counters and run.counters.status == schema.Status.OK else []
    total = sum(k.duration_ns or 0.0 for k in ks)
    facts = [_kernel(run.variant, run.mode, k, total, env) for k in ks]
    return [f for f in facts if f.share is not None and f.share >= MAIN_SHARE]


def story(rs: schema.ResultSet) -> Story | None:
    env = rs.environment
    modes: dict[str, dict[str, list[KernelFacts]]] = {}
    missing: dict[str, str] = {}
    for mode in schema.Mode:
        for v in COMPARED:
            run = rs.run(v, mode, SCENARIO)
            if run is None:
                missing.setdefault(v, "not in this set")
                continue
            if run.status != schema.Status.OK:
                missing.setdefault(v, f"{run.status}: {run.reason}" if run.reason else run.status)
                continue
            got = main_kernels(run, env)
            if got:
                modes.setdefault(mode, {})[v] = got
            else:
                missing.setdefault(v, run.counters.reason if run.counters and run.counters.reason
                                   else "no hardware counters recorded")
    if not any(v in by for by in modes.values() for v in FA4_VARIANTS):
        return None
    return Story(modes, {v: why for v, why in missing.items() if not any(v in by for by in modes.values())},
                 env.sm_count, env.max_regs_per_sm, env.max_shared_memory_per_sm, env.compute_capability,
                 _classes(modes))


def _classes(modes: dict[str, dict[str, list[KernelFacts]]]) -> dict[int, tuple[str, ...]]:
    """flash_attn.cute's kernel classes among the main kernels, by the architecture each targets."""
    classes: dict[int, set[str]] = {}
    for k in (k for by in modes.values() for got in by.values() for k in got if k.fa4_class):
        classes.setdefault(k.fa4_class_arch, set()).add(k.fa4_class)
    return {a: tuple(sorted(c)) for a, c in sorted(classes.items())}
