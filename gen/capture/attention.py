"""The variants' builders: one variant at one point, ready to call.

Takes: a variant's `kind` and `backend` (gen.model.variants), a
`schema.Point` and a device. Gives: `build(kind, backend, point, device) ->
Built`, a callable `fn(q, k, v)` plus the context it must run inside (a
pinned SDPA backend), the inputs' layout and dtype it wants, the facts it
measured while being built and, for unpinned SDPA, how to explain PyTorch's
choice; `COMPILED_KINDS`; `room_for_autotuning`. The code the variants run is
in gen.capture.modules and gen.capture.extras, their inputs and float64
reference in gen.capture.inputs, SDPA's explanations in gen.capture.explain.
Imports torch: only the capture stage uses this module.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

from gen.capture import extras
from gen.capture.explain import explain_lower_right, explain_nested, explain_sdpa
from gen.capture.extras import CudnnFP8Attention, FA4Attention
from gen.capture.inputs import DTYPES, _attend64, rel_error
from gen.capture.modules import (
    FlexBlockMaskAttention,
    FlexFlashAttention,
    FlexForcedKernel,
    FlexPagedAttention,
    NaiveAttention,
    NaiveInplaceAttention,
    NestedJaggedAttention,
    PaddedBatchAttention,
    SDPAIsCausal,
    SDPALowerRight,
    SDPAttention,
    VarlenAttention,
)
from gen.model import schema
from gen.model.variants import BACKEND_ENUM, TORCH_COMPILED_KINDS


@contextlib.contextmanager
def deterministic():
    """torch.use_deterministic_algorithms(True) inside, as it was after. With
    PyTorch's defaults, so new memory is also filled (fill_uninitialized_memory)."""
    before = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(before, warn_only=warn_only)


@dataclass
class Built:
    """A variant ready to call. Beyond fn and context, what capture needs to
    call it generically: `layout` of the inputs it wants from make_inputs
    (bhsd; bshd: (B, S, H, D) memory seen as (B, H, S, D), so packed views
    cost no copy; v_col: V column-major, as FP8 GEMMs want it), `dtype`
    when it sets its own (a DTYPES key), `facts` it measured while being
    built (SweepPoint.facts), and `explain(q, k, v)` -> (choice, reasons) for
    unpinned SDPA (SweepPoint.sdpa_choice / backend_reasons), else None."""

    fn: Callable
    context: Callable[[], contextlib.AbstractContextManager]
    compiled: bool = False
    layout: str = "bhsd"
    dtype: str | None = None
    facts: dict[str, float] = field(default_factory=dict)
    explain: Callable | None = None


def _fp8_input_error(point: schema.Point, device) -> float:
    """What rounding q, k, v to float8 e4m3 alone does to the answer: float64
    attention of the rounded inputs against that of the unrounded (N(0, 1)
    draws, one head, the last 256 queries). The kernel's own error adds to it."""
    g = torch.Generator(device=device).manual_seed(2)
    rows = min(256, point.q_len)
    sub = schema.Point(1, 1, 1, point.head_dim, rows, point.kv_len, point.mask, point.window, point.docs)
    if point.mask == schema.Mask.DOCUMENT:
        sub = dataclasses.replace(sub, q_len=point.kv_len)
    x = [torch.randn(1, sub.q_len if i == 0 else sub.kv_len, point.head_dim, generator=g, device=device)
         for i in range(3)]
    r = [t.to(torch.float8_e4m3fn) for t in x]
    return rel_error(_attend64(*r, sub, slice(None)), _attend64(*x, sub, slice(None)))


def _sdpa(backend, point, device) -> Built:
    module = SDPAttention(point, device)
    if backend is None:
        return Built(module, contextlib.nullcontext, explain=explain_sdpa(module))
    pinned = getattr(SDPBackend, BACKEND_ENUM[backend])
    return Built(module, lambda: sdpa_kernel(pinned))


def _sdpa_deterministic(backend, point, device) -> Built:
    pinned = getattr(SDPBackend, BACKEND_ENUM[backend])

    @contextlib.contextmanager
    def both():
        with sdpa_kernel(pinned), deterministic():
            yield
    return Built(SDPAttention(point, device), both)


def _flex(backend, point, device) -> Built:
    module = FlexBlockMaskAttention(point, device)
    return Built(module, contextlib.nullcontext, compiled=True, facts=module.facts)


def _flex_triton(backend, point, device) -> Built:
    module = FlexForcedKernel(point, device)
    return Built(module, contextlib.nullcontext, compiled=True, facts=module.facts)


def _flex_fp8(backend, point, device) -> Built:
    if "fp8_e4m3" not in DTYPES:
        raise ValueError(f"torch {torch.__version__} has no float8_e4m3fn")
    module = FlexBlockMaskAttention(point, device)
    facts = {**module.facts, "fp8_input_rounding_error": _fp8_input_error(point, device)}
    return Built(module, contextlib.nullcontext, compiled=True, layout="v_col", dtype="fp8_e4m3", facts=facts)


def _cudnn_fp8(backend, point, device) -> Built:
    if "fp8_e4m3" not in DTYPES:
        raise ValueError(f"torch {torch.__version__} has no float8_e4m3fn")
    module = CudnnFP8Attention(point, device)
    facts = {**module.facts, "fp8_input_rounding_error": _fp8_input_error(point, device)}
    return Built(module, contextlib.nullcontext, layout="bshd", dtype="fp8_e4m3", facts=facts)


def _flex_flash(backend, point, device) -> Built:
    extras._fa4()  # Inductor generates the FLASH backend's kernels with flash_attn.cute
    if device.type != "cuda":
        raise ValueError(f"FlexAttention's FLASH backend generates CUDA kernels (CuTe DSL): it runs on CUDA GPUs, "
                         f"not on {device.type}")
    module = FlexFlashAttention(point, device)
    return Built(module, contextlib.nullcontext, compiled=True, facts=module.facts)


def _fa4_kind(paged: bool = False, deterministic: bool = False):
    """A builder of FA4Attention. compiled: the CuTe DSL compiles its kernels on the first call
    of each new configuration (seconds), like torch.compile at a new shape."""
    def make(backend, point, device) -> Built:
        api, import_s = extras._fa4()
        if device.type != "cuda":
            raise ValueError(f"FlashAttention-4 runs on CUDA GPUs, not on {device.type}")
        module = FA4Attention(point, device, paged=paged, deterministic=deterministic, api=api)
        # The process's first import of flash_attn.cute, where this build paid it (a cost beside the compile).
        facts = {"fa4_import_s": import_s} if import_s else {}
        return Built(module, contextlib.nullcontext, compiled=True, layout="bshd", facts=facts)
    return make


def _varlen(backend, point, device) -> Built:
    module = VarlenAttention(point, device)
    return Built(module, contextlib.nullcontext, layout="bshd", facts=module.facts)


def _explained(cls, explainer, layout: str = "bhsd"):
    def make(backend, point, device) -> Built:
        module = cls(point, device)
        return Built(module, contextlib.nullcontext, layout=layout,
                     explain=explainer(module) if explainer else None)
    return make


_BUILDERS: dict[str, Callable[..., Built]] = {
    "naive": lambda b, p, d: Built(NaiveAttention(p, d), contextlib.nullcontext),
    "naive_inplace": lambda b, p, d: Built(NaiveInplaceAttention(p, d), contextlib.nullcontext),
    "naive_compiled": lambda b, p, d: Built(torch.compile(NaiveAttention(p, d)), contextlib.nullcontext,
                                            compiled=True),
    "sdpa": _sdpa,
    "sdpa_deterministic": _sdpa_deterministic,
    "flex": _flex,
    "flex_triton": _flex_triton,
    "flex_fp8": _flex_fp8,
    "cudnn_fp8": _cudnn_fp8,
    "flex_paged": lambda b, p, d: Built(FlexPagedAttention(p, d), contextlib.nullcontext, compiled=True),
    "flex_flash": _flex_flash,
    "fa4": _fa4_kind(),
    "fa4_paged": _fa4_kind(paged=True),
    "fa4_deterministic": _fa4_kind(deterministic=True),
    "varlen": _varlen,
    "sdpa_nested": _explained(NestedJaggedAttention, explain_nested, "bshd"),
    "sdpa_padded": _explained(PaddedBatchAttention, explain_sdpa, "bshd"),
    "sdpa_is_causal": _explained(SDPAIsCausal, explain_sdpa),
    "sdpa_lower_right": _explained(SDPALowerRight, explain_lower_right),
}
COMPILED_KINDS = TORCH_COMPILED_KINDS


def build(kind: str, backend: str | None, point: schema.Point, device, room: bool = True,
          fresh: bool = True) -> Built:
    """Make the callable for one variant at one point; `kind` and `backend` come from gen.model.variants.
    `room`: lend a compiled variant's autotuner room on the GPU (room_for_autotuning); the
    precompile workers, which compile FlexAttention (no candidates timed for its attention
    kernels, nor an in-place score matrix to copy), do not. `fresh=False` keeps dynamo's compiled
    code (the dynamic-lengths scenario's one compiled function across lengths)."""
    device = torch.device(device)
    if kind not in _BUILDERS:
        raise ValueError(f"unknown variant kind {kind!r}")
    if kind in COMPILED_KINDS and fresh:
        # A fresh compile per build: otherwise every new module instance and
        # shape counts against dynamo's recompile limit, and past it the
        # "compiled" variant silently runs eager.
        torch._dynamo.reset()
        if room:
            room_for_autotuning(device)
    return _BUILDERS[kind](backend, point, device)


# Inductor's autotuner times the candidate configs of a kernel that writes into
# one of its inputs on clones of that input when the clones fit under the
# process's peak memory so far; otherwise it keeps a pinned host copy for every
# candidate and copies it back after every timed call (copy_args_to_cpu_if_needed
# and restore_args_from_cpu in torch/_inductor/runtime/triton_heuristics.py). For
# the compiled naive product at 8k tokens that is a 17 GB score matrix: 16.6 of
# the 21.3 s of its first call (4.7 s with the room below, the same per-call time
# after it; benchmarks/data/compile_probe_room.json). Raising the allocator's
# recorded peak to this share of the free memory lets the clone stay on the GPU;
# a clone never exceeds the room, so it fits. Peak memory is measured after a
# reset (probe.peak_memory): unaffected. A compile after such a reset (a
# recompile) finds no room and takes the host path: slower, not different.
AUTOTUNE_ROOM_SHARE = 0.5


def room_for_autotuning(device) -> None:
    """Raise the CUDA allocator's peak to AUTOTUNE_ROOM_SHARE of the free memory, and release it."""
    if device.type != "cuda" or AUTOTUNE_ROOM_SHARE <= 0:
        return
    free, _ = torch.cuda.mem_get_info(device)
    size = int(free * AUTOTUNE_ROOM_SHARE)
    if size > 0:
        torch.empty(size, dtype=torch.uint8, device=device)  # allocated and freed at once
        torch.cuda.empty_cache()
