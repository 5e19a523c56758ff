"""What a kernel is, by the rules the report applies to its name and launch: on or off the tensor cores, its
category (GEMM, attention, reduction, copy), whether the profiler's occupancy estimate can see it (CUDA's
occupancy calculator's constants), what bounds it by its hardware counters, and its inferred tiles' work. Takes
kernel names, launch APIs and attributes; gives labels and booleans.
Each constant is named here once, with why it holds (the rest of the report's thresholds: gen.analysis.rules)."""

from __future__ import annotations

import functools
import re

from gen.analysis.values import missing

# --------------------------------------------------------------------------- tensor cores

# Name based (the profiler does not say which pipe ran): float32 math in a GEMM
# name (cuBLAS/CUTLASS spell it f32f32, sgemm, ffma) is off the tensor cores; a
# 16-bit type or a matrix-unit marker (hmma, wgmma, tensorop, cuBLASLt's nvjet,
# fused attention fmha/flash, Inductor's triton templates) is on. cuBLAS's
# `s16816gemm` / `s884gemm` name an MMA shape (tensor cores) with float32
# accumulation, so they are on, not off (an earlier `_s\d+gemm` marker said off).
OFF_TENSOR_CORE_MARKERS = ("f32f32", "sgemm", "ffma")
ON_TENSOR_CORE_MARKERS = ("bf16", "bfloat16", "f16", "fp16", "h16", "half", "hmma", "wgmma", "tensorop", "nvjet",
                          "fmha", "flash", "triton_tem")
OFF_TC = re.compile("|".join(OFF_TENSOR_CORE_MARKERS), re.I)
ON_TC = re.compile("|".join(ON_TENSOR_CORE_MARKERS), re.I)
# Kernel categories the tensor-core rule judges; others are never on the matrix units here.
TC_CATEGORIES = frozenset({"matrix product", "fused attention"})


def tensor_core_verdict(name: str) -> bool | None:
    """True: on the tensor cores by the name rule; False: off; None: undecided."""
    if OFF_TC.search(name):
        return False
    if ON_TC.search(name):
        return True
    return None


# The dtypes the report calls 16-bit, and an op the profiler saw given float32 tensors and no 16-bit one: work
# that stays off the tensor cores' 16-bit path.
SIXTEEN_BIT_DTYPES = frozenset({"bf16", "fp16", "f16", "bfloat16", "float16"})


def is_float32_only(input_types: str) -> bool:
    """An op given float32 tensors and no 16-bit one (the profiler's input types)."""
    toks = [t.strip() for t in input_types.split(",")]
    return "float" in toks and not any("BFloat16" in t or "Half" in t for t in toks)


# --------------------------------------------------------------------------- kernel categories

GEMM = re.compile(r"gemm|nvjet|xmma|cutlass.*(gemm|tensorop)|s\d+gemm|ampere_|sm\d+_xmma|Kernel2|splitKreduce", re.I)
ATTENTION = re.compile(r"fmha|flash|sdpa|attention|_tem_fused", re.I)
REDUCTION = re.compile(r"reduce|triton_red|reduction", re.I)

# One definition of a copy op: aten ops whose kernels only move or set memory
# (a dtype conversion, aten::to/_to_copy, is a copy too). A kernel they launch
# is a copy or fill, in the category split and in the copy findings alike.
COPY_OPS = frozenset({"aten::copy_", "aten::clone", "aten::contiguous", "aten::fill_", "aten::zero_", "aten::zeros",
                      "aten::zeros_like", "aten::_to_copy", "aten::to", "aten::empty_like"})
# GPU events that are not kernels but copies and fills by the runtime itself.
COPY_KINDS = frozenset({"memcpy", "memset"})


@functools.lru_cache(maxsize=4096)  # every kernel table asks, for the same few kernels (long names, five patterns)
def category(name: str, kind: str, launched_by: str | None) -> str:
    """The kernel category of one GPU event, by kind, name, then launching op."""
    if kind in COPY_KINDS:
        return "copy and fill"
    if ATTENTION.search(name):
        return "fused attention"
    if GEMM.search(name):
        return "matrix product"
    if "softmax" in name.lower():
        return "softmax"
    if REDUCTION.search(name):
        return "reduction"
    if launched_by in COPY_OPS:
        return "copy and fill"
    return "elementwise"


def is_copy(kind: str, launched_by: str | None) -> bool:
    """A memcpy or memset, or a kernel launched by a copy op."""
    return kind in COPY_KINDS or launched_by in COPY_OPS


# --------------------------------------------------------------------------- occupancy

# CUDA's occupancy calculator: warps of 32 threads; registers are given to a
# warp in units of 256; 1 KiB of shared memory per block is reserved by the
# runtime on sm80 and later; at most 32 blocks per SM (sm80-sm90).
WARP = 32
REG_ALLOC_UNIT = 256
SMEM_RESERVED = 1024
MAX_BLOCKS_PER_SM = 32
# A block gets 48 KiB of shared memory without opting in at launch.
SMEM_DEFAULT_LIMIT = 48 * 1024
# Launch APIs that pass attributes (clusters, dynamic shared memory set at launch). Not why the
# profiler shows 0% occupancy (see estimate_blind): kernels launched with them that use little
# shared memory get an estimate like any other.
LAUNCH_EX_APIS = ("cuLaunchKernelEx", "cudaLaunchKernelEx")


def launched_with_attributes(api: str | None) -> bool:
    return bool(api) and api.startswith(LAUNCH_EX_APIS)


# The profiler's occupancy estimate (Kineto's kernelOccupancy) runs CUDA's occupancy calculator
# with the kernel's opt-in to more shared memory left at zero (maxDynamicSharedSizeBytes = 0,
# FUNC_SHMEM_LIMIT_DEFAULT): a block is allowed SMEM_DEFAULT_LIMIT, so a kernel using more fits no
# block by that calculation and reads 0%, whatever API launched it. On the H200 set every kernel
# above 48 KiB reads 0% and every one at or below it (flash_fwd_kernel at exactly 48 KiB) gets one.
def estimate_blind(shared_memory: float | None) -> bool:
    """The profiler's occupancy estimate cannot fit a block of this kernel: it reads 0%."""
    return not missing(shared_memory) and shared_memory > SMEM_DEFAULT_LIMIT


def no_occupancy_estimate(pct: float | None) -> bool:
    """The profiler reported 0% or nothing (a failed estimate where estimate_blind, else a grid too
    small to fill the GPU, or a reason the trace does not give)."""
    return missing(pct) or pct == 0


# The profiler (CUPTI's "est. achieved occupancy %") gives its estimate to a whole percent, rounding half up: a
# theoretical 12.5% reads 13% there. An estimate within half this step of the theoretical figure is that figure
# rounded, not an estimate above the ceiling ("estimate 13%, theoretical 12%").
ESTIMATE_STEP_PCT = 1.0


def estimate_at_theoretical(estimate_pct: float | None, theoretical_pct: float | None) -> bool:
    """The profiler's whole-percent estimate is the theoretical occupancy, rounded (ESTIMATE_STEP_PCT)."""
    if no_occupancy_estimate(estimate_pct) or missing(theoretical_pct):
        return False
    return abs(estimate_pct - theoretical_pct) <= ESTIMATE_STEP_PCT / 2


# --------------------------------------------------------------------------- hardware counters

# Nsight Compute's own Speed Of Light rule (SOLBottleneck) calls a kernel
# latency-bound when both its compute (SM) and its memory throughput stay below
# 60% of peak; above that, the larger of the two is what bounds it. The same
# line here, on the SM and DRAM throughput of the counter pass (gen.analysis.counters).
BOUND_PCT = 60.0
# A kernel whose higher throughput (SM or DRAM) lies within this many points of BOUND_PCT is called
# "at the line", not bound one way or the other: one counter a hair either side of 60% must not swap
# the class (the same masked_fill kernel read 60.05% in one call and 59.92% in another). Ncu's own
# run-to-run spread on these counters is a few points.
BOUND_BAND_PCT = 5.0
# The profiler's occupancy estimate and the measured (ncu) value are "apart" when
# they differ by more than this many points: below it, the estimate's rounding
# (whole blocks per SM) and ncu's sampling explain the gap.
ESTIMATE_GAP_PCT = 10.0
# The pairs a kernel's inferred query tiles visit (gen.analysis.launches.tile_work) "account for all" of its
# tensor-pipe time over another's when the two ratios agree within this share: each tensor-pipe time is one counted
# call (ncu's run-to-run spread on such a counter is a few points: BOUND_BAND_PCT), and the pairs leave out key
# tiles and each tile's fixed prologue and epilogue. Closer than that these numbers cannot tell.
TILE_WORK_MATCH = 0.05
# The key-block widths (kBlockN) a query tile's pairs are counted over: a causal row tile loops over whole key blocks
# up to ceil(last row / kBlockN), and the traces do not record kBlockN. 1 is no key
# tiling (the fewest pairs a tile can visit); 64 and 128 are the key-block widths of FlashAttention-3's Hopper
# forward tiles at head dims 64-256 (flash-attention's hopper/tile_size.h: 192x128 at hdim 64 causal, 128x128 and
# 128x176 above, 128x80 and 128x64 at the largest), rounded to the two powers of two they take. The pairs' ratio is
# said as the range over these widths.
TILE_KEY_BLOCKS = (1, 64, 128)


# An attention kernel's main loop holds its tiles (the query block, the running output, the softmax state) in registers:
# its low occupancy is by design. The kernels beside it hold none: a backward's pre- and post-processing (rowsum(dO∘O),
# dQ's conversion) and a split's combine are elementwise work and reductions (FA4's
# flash_bwd_preprocess, 46 registers, tensor pipes 0%, was given the main loop's reason). By name, and by Nsight
# Compute where it measured the tensor pipes idle (a main loop's matrix products run on them).
ATTENTION_AUX = re.compile(r"preprocess|postprocess|convert_dq|dot_do_o|clear_dq|splitkv_combine|lean_reduction",
                           re.I)


def attention_main_loop(name: str | None, kind: str = "kernel", launched_by: str | None = None,
                        tensor_pipe_pct: float | None = None) -> bool:
    """The kernel is an attention main loop: a fused attention kernel by its category, not one of the kernels beside
    it (ATTENTION_AUX), and not measured with its tensor pipes idle."""
    if not name or category(name, kind, launched_by) != "fused attention" or ATTENTION_AUX.search(name):
        return False
    return missing(tensor_pipe_pct) or tensor_pipe_pct > 0
