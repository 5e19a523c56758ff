"""Datasheet figures: what a GPU's maker publishes as its memory bandwidth and its tensor-core rate.

Takes: a GPU name as torch reports it (`Environment.gpu_name`), or a compute
capability ("9.0") and a dtype. Gives: `bandwidth(gpu_name) -> Datasheet | None`
(None: a GPU not listed here, which the report calls unknown rather than
guessing); `tensor_rate(cc, dtype) -> TensorRate | None`, the dense tensor-core
FLOPs per clock per SM of an architecture, from which the speed of light at a
sampled clock is SMs x clock x rate (`peak_tflops`). These are the maker's
figures, not measurements; the report puts them beside what was measured on the
same GPU (`Ceilings`), which is the ceiling it ranks against. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Datasheet:
    gpu: str  # the maker's product name
    hbm_tbps: float  # peak memory bandwidth, TB/s (10^12 bytes per second)
    source: str


# Keyed by torch.cuda.get_device_name(); only the SXM parts, whose names say so.
_BANDWIDTH = {
    "NVIDIA H200": Datasheet("NVIDIA H200 SXM (141 GB HBM3e)", 4.8,
                             "NVIDIA H200 Tensor Core GPU datasheet, 'GPU memory bandwidth' of the H200 SXM "
                             "(nvidia.com/en-us/data-center/h200/)"),
    "NVIDIA H100 80GB HBM3": Datasheet("NVIDIA H100 SXM5 (80 GB HBM3)", 3.35,
                                       "NVIDIA H100 Tensor Core GPU datasheet, 'GPU memory bandwidth' of the "
                                       "H100 SXM (nvidia.com/en-us/data-center/h100/)"),
    "NVIDIA A100-SXM4-80GB": Datasheet("NVIDIA A100 SXM4 (80 GB HBM2e)", 2.039,
                                       "NVIDIA A100 Tensor Core GPU datasheet, 'GPU memory bandwidth' of the "
                                       "A100 80GB SXM (nvidia.com/en-us/data-center/a100/)"),
}


# One GPU under two names: a source's name for a part -> the name torch.cuda.get_device_name() gives it (the FA3
# paper's "H100 80GB SXM5" is the board NVML names "NVIDIA H100 80GB HBM3", not another GPU). The one place a GPU-name
# comparison looks them up (same_gpu).
GPU_ALIASES = {"NVIDIA H100 80GB SXM5": "NVIDIA H100 80GB HBM3"}


def same_gpu(a: str | None, b: str | None) -> bool:
    """Whether two GPU names name one part (GPU_ALIASES), both given."""
    return bool(a and b) and GPU_ALIASES.get(a, a) == GPU_ALIASES.get(b, b)


def bandwidth(gpu_name: str | None) -> Datasheet | None:
    return _BANDWIDTH.get(gpu_name or "")


# --------------------------------------------------------------------------- tensor cores


@dataclass(frozen=True)
class TensorRate:
    """Dense (no 2:4 sparsity) tensor-core FLOPs per clock per SM of one architecture and dtype,
    2 FLOPs a multiply-add, with the product whose published peak it reproduces:
    sms x clock_mhz x flops_per_clk_per_sm = published_tflops."""

    arch: str  # "sm80", "sm90"
    dtype: str
    flops_per_clk_per_sm: int
    product: str
    sms: int
    clock_mhz: float  # the clock the published peak is stated at
    published_tflops: float
    source: str


A100_WHITEPAPER = ("NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 1 (A100 SXM4: 108 SMs, "
                   "1410 MHz boost) and Table 3 (peak dense Tensor TFLOPS: BF16/FP16 312, TF32 156), "
                   "images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf")
H100_WHITEPAPER = ("NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 2 (H100 SXM5: 132 SMs; peak "
                   "dense Tensor TFLOPS: BF16/FP16 989.4, TF32 494.7, FP8 1978.9, at the 1830 MHz clock the figures "
                   "are computed for), resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper")

# Keyed by (compute capability, dtype). The H200 is the same sm90 part as the H100 SXM5 (132 SMs),
# with more and faster memory: its tensor rate per clock per SM is the H100's.
_TENSOR = {
    ("8.0", "bf16"): TensorRate("sm80", "bf16", 2048, "A100 SXM4", 108, 1410, 312.0, A100_WHITEPAPER),
    ("8.0", "fp16"): TensorRate("sm80", "fp16", 2048, "A100 SXM4", 108, 1410, 312.0, A100_WHITEPAPER),
    ("8.0", "tf32"): TensorRate("sm80", "tf32", 1024, "A100 SXM4", 108, 1410, 156.0, A100_WHITEPAPER),
    ("9.0", "bf16"): TensorRate("sm90", "bf16", 4096, "H100 SXM5", 132, 1830, 989.4, H100_WHITEPAPER),
    ("9.0", "fp16"): TensorRate("sm90", "fp16", 4096, "H100 SXM5", 132, 1830, 989.4, H100_WHITEPAPER),
    ("9.0", "tf32"): TensorRate("sm90", "tf32", 2048, "H100 SXM5", 132, 1830, 494.7, H100_WHITEPAPER),
    ("9.0", "fp8"): TensorRate("sm90", "fp8", 8192, "H100 SXM5", 132, 1830, 1978.9, H100_WHITEPAPER),
}
# Our dtype names (RunConfig.dtype, ScenarioRecord.dtype) onto the table's.
_DTYPE = {"bf16": "bf16", "bfloat16": "bf16", "fp16": "fp16", "f16": "fp16", "float16": "fp16", "tf32": "tf32",
          "fp8": "fp8", "float8_e4m3fn": "fp8", "float8_e5m2": "fp8", "fp8_e4m3": "fp8", "fp8_e5m2": "fp8"}


def tensor_rate(compute_capability: str | None, dtype: str | None) -> TensorRate | None:
    """The dense tensor-core rate of an architecture and dtype; None where not listed (fp32
    has no tensor-core rate of its own here: PyTorch runs it on TF32 only when allowed)."""
    return _TENSOR.get((compute_capability or "", _DTYPE.get(dtype or "", "")))


def peak_tflops(rate: TensorRate | None, sms: int | None, clock_mhz: float | None) -> float | None:
    """The speed of light at a clock: SMs x clock x FLOPs per clock per SM, in TFLOP/s."""
    if rate is None or not sms or clock_mhz is None or clock_mhz != clock_mhz or clock_mhz <= 0:
        return None
    return sms * clock_mhz * 1e6 * rate.flops_per_clk_per_sm / 1e12
