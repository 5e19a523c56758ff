"""Every threshold and classifier of the report, named once, each with where it comes from.

Takes: plain numbers and kernel names. Gives: the constants and the small
predicates that analysis applies and that pages and docs quote (never restate
a number from here as a literal: import it). Rules that judge a whole set
(findings, verdicts) build on these; this module holds no tables and no words.
"""

from __future__ import annotations

import re

from gen.analysis.values import missing

# --------------------------------------------------------------------------- host-bound

# A call is host-bound when the GPU waits on the host. Either its kernels ran
# for less than HOST_BOUND_FILL_PCT of its GPU time (the union of its GPU
# events in one profiled call, against the median timed call): the GPU idled
# between launches inside the call. Or the host's dispatch reached
# HOST_BOUND_RATIO of the GPU time: the host barely keeps ahead, and a slower
# host would pace the GPU. 80% is this project's choice, not a standard: at
# the H200's default shape it separates the cuDNN forward (57 µs of kernels in
# 96 µs of GPU time) from the GPU-bound ones (fill above 95%), and a re-run
# moved flagged steps by up to 2x while unflagged ones held.
HOST_BOUND_FILL_PCT = 80.0
HOST_BOUND_RATIO = 0.8


def host_bound(fill_pct: float | None, cpu_ms: float | None, gpu_ms: float | None) -> bool:
    """The one host-bound rule of the report (see the constants above)."""
    return host_bound_reason(fill_pct, cpu_ms, gpu_ms) is not None


def host_bound_reason(fill_pct: float | None, cpu_ms: float | None, gpu_ms: float | None) -> str | None:
    """Which half of the rule fired: "idle" (kernels fill too little of the GPU
    time), "dispatch" (the host's dispatch is close to the GPU time), or None."""
    if not missing(fill_pct) and fill_pct < HOST_BOUND_FILL_PCT:
        return "idle"
    if not (missing(cpu_ms) or missing(gpu_ms)) and cpu_ms >= HOST_BOUND_RATIO * gpu_ms:
        return "dispatch"
    return None


# --------------------------------------------------------------------------- noise

# torch.utils.benchmark's Measurement warns when IQR / median exceeds 10%
# ("may be unstable"); the report uses the same line for a noisy timing.
NOISY_IQR_PCT = 10.0


def noisy(iqr_pct: float | None) -> bool:
    return not missing(iqr_pct) and iqr_pct > NOISY_IQR_PCT


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


# --------------------------------------------------------------------------- precision

SIXTEEN_BIT_DTYPES = frozenset({"bf16", "fp16", "f16", "bfloat16", "float16"})


def is_float32_only(input_types: str) -> bool:
    """An op given float32 tensors and no 16-bit one (the profiler's input types)."""
    toks = [t.strip() for t in input_types.split(",")]
    return "float" in toks and not any("BFloat16" in t or "Half" in t for t in toks)


# --------------------------------------------------------------------------- refusals

# SDPA backends PyTorch builds for CUDA only: pinned on a CPU machine, none is
# viable and PyTorch says "No viable backend ... turning off both the math
# kernel and the fused kernels", when what it means is that they need CUDA.
CUDA_ONLY_BACKENDS = frozenset({"efficient", "cudnn"})


def needs_cuda(status: str, device: str, backend: str | None) -> bool:
    """A variant refused on a CPU machine because its pinned backend is CUDA-only."""
    return status == "unavailable" and device == "cpu" and backend in CUDA_ONLY_BACKENDS


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
# Launch APIs that pass attributes (clusters, dynamic shared memory) the
# profiler's occupancy estimate does not read: it reports 0% or nothing.
LAUNCH_EX_APIS = ("cuLaunchKernelEx", "cudaLaunchKernelEx")


def launched_with_attributes(api: str | None) -> bool:
    return bool(api) and api.startswith(LAUNCH_EX_APIS)


def no_occupancy_estimate(pct: float | None) -> bool:
    """The profiler reported 0% or nothing: a failed estimate, not an idle GPU."""
    return missing(pct) or pct == 0
