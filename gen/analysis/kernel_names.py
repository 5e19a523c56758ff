"""Kernel names read as data: the architecture tag, and the fields of the names
the article decodes (xformers/CUTLASS fmha, FlashAttention-2, cuDNN, cuBLAS), and
what a name and launch shape say about how a kernel computes (`path`).

Takes: a kernel's name as the profiler gives it (demangled C++, full of < > ,).
Gives: `arch(name)` (the SM architecture a kernel was built for, e.g. 80 from
`sm80`, `Sm80` or `sm_90a`; None when the name carries none), `gpu_arch(cc)`
(90 from "9.0"), `decode(name) -> DecodedName`: the family and one `Field`
per token, each a kind and a value, and `path(name, grid, sm_count) -> KernelPath`:
which matrix instructions the name says it uses and whether its grid is one block
per SM. Facts only: gen.report's wording says what a kind means. A name no
pattern knows decodes to family None, no fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# sm80, sm_90, sm90a, Sm80 (cutlass::arch::Sm80): the tag libraries put in a
# kernel's name for the architecture its code was compiled for.
_ARCH = re.compile(r"(?<![A-Za-z0-9])(?:sm_?|Sm)(\d{2,3})a?(?![0-9])|_sm(\d{2,3})a?(?![0-9])")


def arch(name: str) -> int | None:
    """The highest SM architecture tag in a kernel name (80 for sm80), or None."""
    tags = [int(a or b) for a, b in _ARCH.findall(name or "")]
    return max(tags) if tags else None


def gpu_arch(compute_capability: str | None) -> int | None:
    """The GPU's own architecture as a tag number: "9.0" -> 90, "8.6" -> 86."""
    if not compute_capability:
        return None
    m = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", compute_capability)
    return int(m.group(1)) * 10 + int(m.group(2)) if m else None


@dataclass(frozen=True)
class Field:
    token: str  # as it appears in the name
    kind: str  # op, library, direction, dtype, alignment, tile, accumulator, arch, instruction, knob, warps,
    #            layout, cluster, algorithm, head_dim, block_m, block_n
    value: str | int | tuple[int, ...] | bool


@dataclass(frozen=True)
class DecodedName:
    family: str | None  # fmha_cutlass, flash2, cudnn_sdpa, cublas_xmma, nvjet, or None
    fields: tuple[Field, ...] = ()
    arch: int | None = None

    def get(self, kind: str):
        """The value of the first field of a kind, or None."""
        return next((f.value for f in self.fields if f.kind == kind), None)


def _tile(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("x"))


_DTYPES = {"bf16": "bf16", "f16": "f16", "fp16": "f16", "f32": "f32", "fp32": "f32"}

# fmha_cutlassF_bf16_aligned_64x64_rf_sm80: xformers' memory-efficient kernel.
_FMHA = re.compile(r"fmha_cutlass(?P<dir>[FB])_(?P<dtype>bf16|f16|f32)_(?P<align>aligned|notaligned)_"
                   r"(?P<tile>\d+x\d+)(?:_(?P<rf>rf))?_(?P<arch>sm\d+)")
# cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0:
# read token by token after "sdpa_", since cuDNN's engines add or drop tokens.
_CUDNN = re.compile(r"cudnn_generated_\w*?sdpa_(?P<rest>\w+)")
_CUDNN_TOKENS = [
    (re.compile(r"sm(\d+)a?"), "arch", lambda m: int(m[1])),
    (re.compile(r"flash"), "algorithm", lambda m: "flash"),
    (re.compile(r"fprop"), "direction", lambda m: "forward"),
    (re.compile(r"bprop|dgrad"), "direction", lambda m: "backward"),
    (re.compile(r"wgmma|hmma|wmma|mma"), "instruction", lambda m: m[0]),
    (re.compile(r"bf16|f16|fp16"), "dtype", lambda m: _DTYPES[m[0]]),
    (re.compile(r"\d+x\d+x\d+"), "tile", lambda m: _tile(m[0])),
    (re.compile(r"cga(\d+x\d+x\d+)"), "cluster", lambda m: _tile(m[1])),
]
# pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, ...
_FLASH = re.compile(r"flash_(?P<dir>fwd|bwd)\w*_kernel<\s*Flash_(?:fwd|bwd)_kernel_traits<\s*(?P<d>\d+),\s*"
                    r"(?P<m>\d+),\s*(?P<n>\d+),\s*(?P<w>\d+)")
# sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_...
_XMMA = re.compile(r"(?P<arch>sm\d+)_xmma_gemm_(?P<ab>[a-z0-9]+?)f32_[a-z0-9_]*?tilesize(?P<tile>\d+x\d+x\d+)"
                   r"\w*?_(?P<inst>ffma|hmma|imma)")
# nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT: cuBLASLt's Hopper GEMMs.
_NVJET = re.compile(r"nvjet_(?P<arch>sm\d+)_\w*?_(?P<tile>\d+x\d+)_")


def _fmha(m: re.Match) -> tuple[Field, ...]:
    fields = [Field("fmha", "op", "fused multi-head attention"),
              Field(f"cutlass{m['dir']}", "library", "cutlass"),
              Field(m["dir"], "direction", "forward" if m["dir"] == "F" else "backward"),
              Field(m["dtype"], "dtype", _DTYPES[m["dtype"]]),
              Field(m["align"], "alignment", m["align"] == "aligned"),
              Field(m["tile"], "tile", _tile(m["tile"]))]
    if m["rf"]:
        fields.append(Field("rf", "accumulator", "registers"))
    fields.append(Field(m["arch"], "arch", int(m["arch"][2:])))
    return tuple(fields)


def _cudnn_token(tok: str, seen_tile: bool) -> Field | None:
    for pat, kind, value in _CUDNN_TOKENS:
        if t := pat.fullmatch(tok):
            # The first AxBxC is the tile; the next one is an engine layout
            # parameter cuDNN does not document (not the warp count: the H200
            # kernel tagged 4x1x1 runs 384 threads a block).
            if kind == "tile" and seen_tile:
                kind = "layout"
            return Field(tok, kind, value(t))
    return None


def _cudnn(m: re.Match) -> tuple[Field, ...]:
    fields = [Field("cudnn_generated", "library", "cudnn"), Field("sdpa", "op", "scaled dot-product attention")]
    tokens = m["rest"].split("_")
    for i, tok in enumerate(tokens):
        if tok == "knob" and i + 1 < len(tokens) and tokens[i + 1].isdigit():
            fields.append(Field(f"knob_{tokens[i + 1]}", "knob", int(tokens[i + 1])))
        elif f := _cudnn_token(tok, any(x.kind == "tile" for x in fields)):
            fields.append(f)
    return tuple(fields)


def _flash(m: re.Match) -> tuple[Field, ...]:
    return (Field(f"flash_{m['dir']}", "direction", "forward" if m["dir"] == "fwd" else "backward"),
            Field(m["d"], "head_dim", int(m["d"])), Field(m["m"], "block_m", int(m["m"])),
            Field(m["n"], "block_n", int(m["n"])), Field(m["w"], "warps", int(m["w"])))


def _xmma(m: re.Match) -> tuple[Field, ...]:
    return (Field(m["arch"], "arch", int(m["arch"][2:])), Field(f"{m['ab']}f32", "dtype", "f32"),
            Field(m["tile"], "tile", _tile(m["tile"])), Field(m["inst"], "instruction", m["inst"]))


def _nvjet(m: re.Match) -> tuple[Field, ...]:
    return (Field(m["arch"], "arch", int(m["arch"][2:])), Field(m["tile"], "tile", _tile(m["tile"])))


# FlashAttention-2's kernels as PyTorch names them when the profiler drops the template arguments
# (pytorch_flash::flash_fwd_kernel, flash_fwd_splitkv_kernel, flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel).
_FLASH_PLAIN = re.compile(r"(?<![A-Za-z0-9])flash_(?:fwd|bwd)\w*_kernel(?![A-Za-z0-9])")
# Inductor's Triton templates (triton_tem_*: FlexAttention, matrix products); its fused pointwise and
# reduction kernels (triton_poi/per/red_*) do no matrix work and are left unnamed here.
_TRITON = re.compile(r"(?<![A-Za-z0-9])triton_tem_")

# Each family: its pattern, and how its match reads field by field (first match wins).
FAMILIES = [("fmha_cutlass", _FMHA, _fmha), ("cudnn_sdpa", _CUDNN, _cudnn), ("flash2", _FLASH, _flash),
            ("flash2", _FLASH_PLAIN, lambda m: ()), ("cublas_xmma", _XMMA, _xmma), ("nvjet", _NVJET, _nvjet)]


@dataclass(frozen=True)
class KernelPath:
    """What a kernel's name and launch shape say about how it computes (no timing).

    matrix: "wgmma" (Hopper's warpgroup matrix instructions, named in the kernel), "mma"
    (warp-level tensor-core instructions: mma.sync/wmma, the sm80 design: FlashAttention-2,
    CUTLASS's Sm80 fmha, a cuDNN kernel tagged wmma/hmma), "ffma" (float32 fused multiply-add on
    the CUDA cores, off the tensor cores), or None where the name does not say (Triton, nvjet).
    persistent: the grid has exactly one block per SM (the kernel loops over its tiles), None
    when the grid or the SM count is unknown. reduction: a kernel that combines partial results
    (split-KV decode: lean_reduction, flash_fwd_splitkv_combine)."""

    family: str | None
    arch: int | None
    matrix: str | None
    persistent: bool | None = None
    reduction: bool = False
    kernel_class: str | None = None  # the class a CuTe DSL kernel is named after ("FlashAttentionForwardSm90")


_REDUCTION = re.compile(r"lean_reduction|splitkv_combine", re.I)
# flash_attn.cute (FlashAttention-4's package) names each kernel after the class that built it, which carries the
# architecture it targets: FlashAttentionForwardSm90, FlashAttentionBackwardSm100...
FA4_CLASS = re.compile(r"FlashAttention(?:Forward|Backward)\w*?Sm(\d+)")


def path(name: str, grid: tuple[int, ...] | None = None, sm_count: int | None = None) -> KernelPath:
    """How a kernel computes, read off its name (and its grid against the SM count)."""
    d = decode(name)
    inst = d.get("instruction")
    if _REDUCTION.search(name or ""):
        matrix = None
    elif inst == "wgmma":
        matrix = "wgmma"
    elif inst in ("wmma", "hmma", "mma") or d.family in ("flash2", "fmha_cutlass"):
        matrix = "mma"
    elif inst == "ffma" or re.search(r"sgemm|f32f32", name or "", re.I):
        matrix = "ffma"
    else:
        matrix = None
    blocks = None
    if grid:
        blocks = 1
        for g in grid:
            blocks *= int(g)
    persistent = None if not blocks or not sm_count else blocks == sm_count
    cute = FA4_CLASS.search(name or "")
    family = d.family or ("flash_attn_cute" if cute else "triton" if _TRITON.search(name or "") else None)
    return KernelPath(family, d.arch, matrix, persistent, bool(_REDUCTION.search(name or "")),
                      cute.group(0) if cute else None)


def decode(name: str) -> DecodedName:
    """One kernel name, field by field (see the module docstring)."""
    name = name or ""
    for family, pattern, read in FAMILIES:
        if m := pattern.search(name):
            return DecodedName(family, read(m), arch(name))
    return DecodedName(None, (), arch(name))
