"""The variants: one declarative record each, with what we expect before a run.

Takes: nothing. Gives: `VARIANTS` (name -> `Variant`), `resolve(names)` for
the CLI, and `source(variant)` (the code the variant runs, read from
gen/attention.py as text, so no torch is imported here).

Adding a variant is one `Variant(...)` entry below, plus a class in
gen/attention.py when it needs new code.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path


@dataclass(frozen=True)
class Hypothesis:
    """What we expect before any run. Written by hand, checked by analysis."""

    kernels_per_forward: int
    copy_or_fill: bool  # a memcpy, memset or fill/copy kernel in the forward
    tensor_cores: bool  # bf16 GEMM or fused attention kernel on the matrix units
    rank: int  # expected speed rank among the default variants, 1 = fastest
    why: str


@dataclass(frozen=True)
class Variant:
    name: str
    label: str
    kind: str  # builder in gen/attention.py
    backend: str | None  # pinned SDPA backend, None = not pinned
    classes: tuple[str, ...]  # classes in gen/attention.py that hold its code
    expect: Hypothesis
    train: bool = True  # runs forward and backward in --mode train
    default: bool = True  # in the default --variants list


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in [
        Variant(
            "naive",
            "Naive",
            "naive",
            None,
            ("NaiveAttention",),
            Hypothesis(6, True, True, 8, "five ops, and out-of-place masked_fill copies the scores first"),
        ),
        Variant(
            "naive_inplace",
            "Naive, in-place mask",
            "naive_inplace",
            None,
            ("NaiveAttention", "NaiveInplaceAttention"),
            Hypothesis(5, False, True, 7, "masked_fill_ writes into the scores: the copy should go"),
        ),
        Variant(
            "sdpa_math",
            "SDPA math",
            "sdpa",
            "math",
            ("SDPAttention",),
            Hypothesis(20, True, False, 9, "the reference path: upcasts, rebuilds the mask, safe softmax"),
        ),
        Variant(
            "sdpa_efficient",
            "SDPA efficient",
            "sdpa",
            "efficient",
            ("SDPAttention",),
            Hypothesis(1, False, True, 5, "one fused memory-efficient (xformers/CUTLASS) kernel"),
        ),
        Variant(
            "sdpa_flash",
            "SDPA flash",
            "sdpa",
            "flash",
            ("SDPAttention",),
            Hypothesis(1, False, True, 1, "one FlashAttention-2 kernel, scores never leave the chip"),
        ),
        Variant(
            "sdpa_cudnn",
            "SDPA cuDNN",
            "sdpa",
            "cudnn",
            ("SDPAttention",),
            Hypothesis(1, False, True, 3, "one cuDNN-generated fused kernel, launched with cuLaunchKernelEx"),
        ),
        Variant(
            "sdpa_auto",
            "SDPA, backend not pinned",
            "sdpa",
            None,
            ("SDPAttention",),
            Hypothesis(1, False, True, 2, "PyTorch should pick a fused backend, flash first"),
        ),
        Variant(
            "flex",
            "FlexAttention (compiled)",
            "flex",
            None,
            ("FlexCausalAttention",),
            Hypothesis(1, False, True, 4, "one Triton kernel generated from the causal block mask"),
        ),
        Variant(
            "naive_compiled",
            "Naive under torch.compile",
            "naive_compiled",
            None,
            ("NaiveAttention",),
            Hypothesis(3, False, True, 6, "two GEMMs around one fused scale-mask-softmax Triton kernel"),
        ),
    ]
}

DEFAULT_VARIANTS = [v.name for v in VARIANTS.values() if v.default]


def resolve(names: str | list[str] | None) -> list[Variant]:
    """Variants from a comma list (or list); unknown names are a one-line error."""
    if names is None:
        return [VARIANTS[n] for n in DEFAULT_VARIANTS]
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise ValueError(
            f"--variants: unknown variant(s) {', '.join(unknown)}; known: {', '.join(VARIANTS)}"
        )
    return [VARIANTS[n] for n in names]


ATTENTION_FILE = Path(__file__).resolve().parent.parent / "capture" / "attention.py"


@cache
def _class_sources() -> dict[str, str]:
    text = ATTENTION_FILE.read_text(encoding="utf-8")
    tree = ast.parse(text)
    return {
        node.name: ast.get_source_segment(text, node)
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }


def source(variant: Variant) -> str:
    """The code a variant runs, with how it is called."""
    classes = _class_sources()
    parts = [classes[c] for c in variant.classes]
    if variant.kind == "sdpa":
        if variant.backend:
            call = (
                "# pinned around every measured call:\n"
                f"with sdpa_kernel(SDPBackend.{BACKEND_ENUM[variant.backend]}):\n"
                "    out = SDPAttention()(q, k, v)"
            )
        else:
            call = "# no backend pinned: PyTorch chooses\nout = SDPAttention()(q, k, v)"
    elif variant.kind == "naive_compiled":
        call = "out = torch.compile(NaiveAttention(seq_len, head_dim, device))(q, k, v)"
    elif variant.kind == "flex":
        call = "out = FlexCausalAttention(seq_len, device)(q, k, v)"
    else:
        call = f"out = {variant.classes[-1]}(seq_len, head_dim, device)(q, k, v)"
    return "\n\n\n".join(parts) + "\n\n\n" + call + "\n"


BACKEND_ENUM = {
    "math": "MATH",
    "efficient": "EFFICIENT_ATTENTION",
    "flash": "FLASH_ATTENTION",
    "cudnn": "CUDNN_ATTENTION",
}
