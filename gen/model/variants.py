"""The variants: one declarative record each, with what we expect before a run.

Takes: nothing. Gives: `VARIANTS` (name -> `Variant`), `resolve(names)` for
the CLI, `by_role(role)` / `inplace_pair()` (so no stage hard-codes a
variant's name: the baseline, the in-place pair and the automatic choice are
roles declared here), `with_keyword(word)`, and `source(variant)` (the code
the variant runs, read from gen/capture/modules.py and extras.py as text, so
no torch is imported here).

Adding a variant is one `Variant(...)` entry below, plus a class in
gen/capture/modules.py (or extras.py) and its builder in gen/capture/attention.py
when it needs new code. Every variant runs every
scenario (gen.model.scenarios); what it refuses is recorded with PyTorch's
reason, so no capability is declared as a filter. `gqa` and `masks` say how
the variant meets grouped KV heads and masks, for the report.
"""

from __future__ import annotations

import ast
import enum
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from gen.model.records import UserError

# The kinds torch.compile compiles (gen.capture.attention resets Dynamo before building each)
TORCH_COMPILED_KINDS = ("naive_compiled", "flex", "flex_triton", "flex_paged", "flex_fp8", "flex_flash")


@dataclass(frozen=True)
class Hypothesis:
    """What we expect before any run. Written by hand, checked by analysis."""

    kernels_per_forward: int
    copy_or_fill: bool  # a memcpy, memset or fill/copy kernel in the forward
    tensor_cores: bool  # bf16 GEMM or fused attention kernel on the matrix units
    rank: int  # expected speed rank among the default variants, 1 = fastest
    why: str
    backend: str | None = None  # the SDPA backend it should run when none is pinned (checked from its trace)


class Role(enum.StrEnum):
    """What a variant stands for in the comparisons, so stages ask for a role, not a name."""

    BASELINE = "baseline"  # the unfused reference others are compared against
    INPLACE = "inplace"  # the baseline with its mask applied in place: the pair (BASELINE, INPLACE)
    AUTOMATIC = "automatic"  # PyTorch picks the backend; compared with the pinned ones


class Gqa(enum.StrEnum):
    """How a variant meets fewer KV heads than query heads."""

    EXPAND = "expand"  # repeat_interleave copies each KV head per query head: the cost shows
    NATIVE = "native"  # enable_gqa=True: the kernel maps query heads to KV heads


@dataclass(frozen=True)
class Variant:
    name: str
    # A qualifier in a bracket: labels stand in comma lists, where "SDPA, backend not pinned" reads as two items
    label: str
    kind: str  # builder in gen/capture/attention.py
    backend: str | None  # pinned SDPA backend, None = not pinned
    classes: tuple[str, ...]  # classes in gen/capture/modules.py or extras.py that hold its code
    expect: Hypothesis
    train: bool = True  # runs forward and backward in --mode train
    default: bool = True  # in the default --variants list
    role: Role | None = None
    keywords: tuple[str, ...] = ()  # for grouping and search: "eager", "fused", "compiled", ...
    gqa: Gqa = Gqa.NATIVE
    masks: str = ""  # how the mask reaches the kernel
    # Why its answer is wrong on purpose where the mask is not plain causal
    # (a labelled scale reference, never a winner), or None.
    wrong: str | None = None
    # The inputs' dtype when it sets its own (a gen.capture DTYPES key, "fp8_e4m3"),
    # recorded even where it never ran; and `twin`, the variant running the same
    # kind of kernel at the scenario's dtype, for "what FP8 buys" (speed and error).
    dtype: str | None = None
    twin: str | None = None
    # A paging variant's same call on a contiguous cache (no page table): paging's own cost is its time against
    # this one, never against another kernel that happens to be the fastest.
    contiguous: str | None = None
    # A set-up the call's constructor does outside every timing, and so no first call records (the
    # cuDNN frontend graph's validate, build and plan selection in CudnnFP8Attention.__init__), or None
    untimed_setup: str | None = None

    @property
    def compiled(self) -> bool:
        """Compiled at each new shape (torch.compile, or FlashAttention-4's CuTe DSL): run last, timed
        after a first call, its first call recorded as its compile time."""
        return "compiled" in self.keywords

    @property
    def torch_compiled(self) -> bool:
        """Compiled by torch.compile (FlexAttention of every backend, the compiled naive product): the capture starts
        each build of it from a fresh compile (Dynamo reset), so a run's first call compiles by construction."""
        return self.kind in TORCH_COMPILED_KINDS

    @property
    def optional(self) -> bool:
        """Runs only where an extra package is installed; said once on its page, not in its label."""
        return "optional" in self.keywords


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
            role=Role.BASELINE,
            keywords=("eager", "unfused"),
            gqa=Gqa.EXPAND,
            masks="a boolean mask tensor, masked_fill with -inf",
        ),
        Variant(
            "naive_inplace",
            "Naive (in-place mask)",
            "naive_inplace",
            None,
            ("NaiveAttention", "NaiveInplaceAttention"),
            Hypothesis(5, False, True, 7, "masked_fill_ writes into the scores: the copy should go"),
            role=Role.INPLACE,
            keywords=("eager", "unfused", "in-place"),
            gqa=Gqa.EXPAND,
            masks="a boolean mask tensor, masked_fill_ in place",
        ),
        Variant(
            "sdpa_math",
            "SDPA math",
            "sdpa",
            "math",
            ("SDPAttention",),
            Hypothesis(20, True, False, 9, "the reference path: upcasts, rebuilds the mask, safe softmax"),
            keywords=("sdpa", "pinned", "unfused"),
            gqa=Gqa.NATIVE,
            masks="is_causal, or an explicit boolean attn_mask",
        ),
        Variant(
            "sdpa_efficient",
            "SDPA efficient",
            "sdpa",
            "efficient",
            ("SDPAttention",),
            Hypothesis(1, False, True, 5, "one fused memory-efficient (xformers/CUTLASS) kernel"),
            keywords=("sdpa", "pinned", "fused"),
            gqa=Gqa.NATIVE,
            masks="is_causal, or an explicit boolean attn_mask",
        ),
        Variant(
            "sdpa_flash",
            "SDPA flash",
            "sdpa",
            "flash",
            ("SDPAttention",),
            Hypothesis(1, False, True, 1, "one FlashAttention-2 kernel, scores never leave the chip"),
            keywords=("sdpa", "pinned", "fused"),
            gqa=Gqa.NATIVE,
            masks="is_causal only (no explicit mask)",
        ),
        Variant(
            "sdpa_cudnn",
            "SDPA cuDNN",
            "sdpa",
            "cudnn",
            ("SDPAttention",),
            Hypothesis(1, False, True, 3, "one cuDNN-generated fused kernel, launched with cuLaunchKernelEx"),
            keywords=("sdpa", "pinned", "fused"),
            gqa=Gqa.NATIVE,
            masks="is_causal, or an explicit boolean attn_mask",
        ),
        Variant(
            "sdpa_auto",
            "SDPA (backend not pinned)",
            "sdpa",
            None,
            ("SDPAttention",),
            Hypothesis(1, False, True, 2, "PyTorch should pick a fused backend, flash first", backend="flash"),
            role=Role.AUTOMATIC,
            keywords=("sdpa", "automatic", "fused"),
            gqa=Gqa.NATIVE,
            masks="is_causal, or an explicit boolean attn_mask",
        ),
        Variant(
            "flex",
            "FlexAttention (compiled)",
            "flex",
            None,
            ("FlexBlockMaskAttention",),
            Hypothesis(1, False, True, 4, "one Triton kernel generated from the causal block mask"),
            keywords=("flex", "compiled", "fused"),
            gqa=Gqa.NATIVE,
            masks="a block mask from a mask_mod; none when nothing is masked",
        ),
        Variant(
            "naive_compiled",
            "Naive under torch.compile",
            "naive_compiled",
            None,
            ("NaiveAttention",),
            Hypothesis(3, False, True, 6, "two GEMMs around one fused scale-mask-softmax Triton kernel"),
            keywords=("compiled", "fused"),
            gqa=Gqa.EXPAND,
            masks="a boolean mask tensor, fused by Inductor",
        ),
        Variant(
            "varlen",
            "varlen_attn (packed, cu_seqlens)",
            "varlen",
            None,
            ("VarlenAttention",),
            Hypothesis(1, False, True, 1, "FlashAttention-2's variable-length kernel over the packed tokens"),
            default=False,
            keywords=("varlen", "fused"),
            gqa=Gqa.NATIVE,
            masks="cu_seqlens per sequence or document; causal and windows as window_size=(left, 0)",
        ),
        Variant(
            "sdpa_nested",
            "SDPA on nested jagged tensors",
            "sdpa_nested",
            None,
            ("NestedJaggedAttention",),
            Hypothesis(1, False, True, 2, "one document per nested row: SDPA runs flash over the jagged batch",
                       backend="flash"),
            default=False,
            keywords=("sdpa", "nested", "fused"),
            gqa=Gqa.EXPAND,
            masks="is_causal within each nested row",
        ),
        Variant(
            "sdpa_padded",
            "SDPA over the padded batch",
            "sdpa_padded",
            None,
            ("PaddedBatchAttention",),
            Hypothesis(4, True, True, 3, "each document padded to the longest: the padding is computed too",
                       backend="flash"),
            default=False,
            keywords=("sdpa", "padded", "fused"),
            gqa=Gqa.NATIVE,
            masks="is_causal per padded row (right padding keeps the real rows exact)",
        ),
        Variant(
            "sdpa_is_causal",
            "SDPA is_causal=True (top-left, whole sequence)",
            "sdpa_is_causal",
            None,
            ("SDPAIsCausal",),
            Hypothesis(1, False, True, 1, "flash with the causal mask aligned to the top-left corner",
                       backend="flash"),
            default=False,
            keywords=("sdpa", "fused", "wrong-mask"),
            gqa=Gqa.NATIVE,
            masks="is_causal=True whatever the mask: top-left aligned, across documents",
            wrong="is_causal=True aligns the mask top-left over the whole sequence: with queries at the end "
                  "of a longer cache it hides keys they should see, and over a pack it attends across "
                  "documents",
        ),
        Variant(
            "sdpa_lower_right",
            "SDPA with causal_lower_right",
            "sdpa_lower_right",
            None,
            ("SDPALowerRight",),
            Hypothesis(1, False, True, 1, "the lower-right causal bias dispatches to flash, else efficient",
                       backend="flash"),
            default=False,
            keywords=("sdpa", "fused"),
            gqa=Gqa.NATIVE,
            masks="torch.nn.attention.bias.causal_lower_right(q_len, kv_len)",
        ),
        Variant(
            "flex_triton",
            "FlexAttention (main kernel forced)",
            "flex_triton",
            None,
            ("FlexBlockMaskAttention", "FlexForcedKernel"),
            Hypothesis(1, False, True, 3, "the prefill Triton kernel, forced where the decoding kernel "
                       "would be picked"),
            default=False,
            keywords=("flex", "compiled", "fused"),
            gqa=Gqa.NATIVE,
            masks="a block mask from a mask_mod; none when nothing is masked",
        ),
        Variant(
            "flex_paged",
            "FlexAttention on a paged KV cache (experimental)",
            "flex_paged",
            None,
            ("FlexPagedAttention",),
            Hypothesis(1, False, True, 3, "the decoding kernel reading pages through a page table"),
            default=False,
            keywords=("flex", "compiled", "fused", "paged", "experimental"),
            gqa=Gqa.NATIVE,
            masks="the block mask converted to physical pages by PagedAttention",
            contiguous="flex",
        ),
        Variant(
            "flex_fp8",
            "FlexAttention (float8 e4m3 inputs)",
            "flex_fp8",
            None,
            ("FlexBlockMaskAttention",),
            Hypothesis(1, False, True, 1, "the same Triton kernel on float8 inputs: half the bytes"),
            default=False,
            keywords=("flex", "compiled", "fused", "fp8"),
            gqa=Gqa.NATIVE,
            masks="a block mask from a mask_mod; none when nothing is masked",
            dtype="fp8_e4m3",
            twin="flex",
        ),
        Variant(
            "cudnn_fp8",
            "cuDNN FP8 attention (frontend graph)",
            "cudnn_fp8",
            None,
            ("CudnnFP8Attention",),
            Hypothesis(1, False, True, 1, "cuDNN's FP8 fused attention kernel: twice bf16's tensor-core rate"),
            train=False,
            default=False,
            keywords=("cudnn", "fused", "fp8", "optional"),
            gqa=Gqa.NATIVE,
            masks="the diagonal band of the cuDNN graph (right bound 0: causal)",
            dtype="fp8_e4m3",
            twin="sdpa_cudnn",
            untimed_setup="its cuDNN graph build (validation, the operation graph and plan selection, in the "
                          "module's constructor)",
        ),
        Variant(
            "flex_flash",
            "FlexAttention (FLASH backend)",
            "flex_flash",
            None,
            ("FlexBlockMaskAttention", "FlexFlashAttention"),
            Hypothesis(1, False, True, 2, "flash_attn.cute's CuTe DSL kernel generated from the same block mask "
                       "instead of a Triton one; on Hopper its Sm90 class, FlashAttention-3's design"),
            keywords=("flex", "fa4", "compiled", "fused", "optional"),
            gqa=Gqa.NATIVE,
            masks="a block mask from a mask_mod (flex's own); none when nothing is masked",
        ),
        Variant(
            "fa4",
            "FlashAttention-4 (flash_attn.cute)",
            "fa4",
            None,
            ("FA4Plan", "FA4Attention"),
            Hypothesis(1, False, True, 1, "flash_attn.cute's CuTe DSL kernels, picked by architecture: on Hopper "
                       "its Sm90 kernels, FlashAttention-3's design of warp specialization, TMA loads and wgmma; "
                       "FlashAttention-4's own techniques target Blackwell. Compiled on the first call of each new "
                       "configuration"),
            keywords=("fa4", "compiled", "fused", "optional"),
            gqa=Gqa.NATIVE,
            masks="causal=True; window_size=(W - 1, 0) for a window of W tokens; cu_seqlens per packed document",
        ),
        Variant(
            "fa4_paged",
            "FlashAttention-4 on a paged KV cache",
            "fa4_paged",
            None,
            ("FA4Plan", "FA4Attention"),
            Hypothesis(1, False, True, 1, "FlashAttention-4's kernel reading K and V pages through page_table"),
            train=False,
            default=False,
            keywords=("fa4", "compiled", "fused", "paged", "optional"),
            gqa=Gqa.NATIVE,
            masks="page_table of pages of 128 tokens (flash_attn_varlen_func); causal and windows as fa4",
            contiguous="fa4",
        ),
        Variant(
            "fa4_det",
            "FlashAttention-4 (deterministic backward)",
            "fa4_deterministic",
            None,
            ("FA4Plan", "FA4Attention"),
            Hypothesis(1, False, True, 1, "the same kernels with deterministic=True: the backward accumulates dQ "
                       "in a fixed order"),
            default=False,
            keywords=("fa4", "compiled", "fused", "deterministic", "optional"),
            gqa=Gqa.NATIVE,
            masks="causal=True; window_size=(W - 1, 0) for a window of W tokens",
        ),
    ]
    + [
        Variant(
            f"sdpa_{b}_det",
            f"SDPA {b} (deterministic)",
            "sdpa_deterministic",
            b,
            ("SDPAttention",),
            Hypothesis(1, False, True, 5, "the same backend under torch.use_deterministic_algorithms(True)"),
            default=False,
            keywords=("sdpa", "pinned", "fused", "deterministic"),
            gqa=Gqa.NATIVE,
            masks="is_causal, or an explicit boolean attn_mask",
        )
        for b in ("flash", "efficient", "cudnn")
    ]
}

DEFAULT_VARIANTS = [v.name for v in VARIANTS.values() if v.default]


def by_role(role: Role | str) -> Variant | None:
    """The variant declared with a role (one each), or None."""
    return next((v for v in VARIANTS.values() if v.role == role), None)


def inplace_pair() -> tuple[Variant, Variant] | None:
    """(baseline, its in-place twin): their gradients are compared in training."""
    base, inplace = by_role(Role.BASELINE), by_role(Role.INPLACE)
    return (base, inplace) if base and inplace else None


PAGED_KEYWORD = "paged"


def pages(variant: str) -> bool:
    """The variant reads its KV cache through a page table (FA4's page_table, FlexAttention's paged block mask)."""
    v = VARIANTS.get(variant)
    return v is not None and PAGED_KEYWORD in v.keywords


def with_keyword(word: str) -> list[Variant]:
    return [v for v in VARIANTS.values() if word in v.keywords]


def resolve(names: str | list[str] | None) -> list[Variant]:
    """Variants from a comma list (or list); unknown names are a one-line error."""
    if names is None:
        return [VARIANTS[n] for n in DEFAULT_VARIANTS]
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise UserError(
            f"--variants: unknown variant(s) {', '.join(unknown)}; known: {', '.join(VARIANTS)}"
        )
    if not names:
        raise UserError(f"--variants: no variant named; known: {', '.join(VARIANTS)}")
    return [VARIANTS[n] for n in names]


# The files holding the variants' classes (gen.capture.modules, gen.capture.extras).
CLASS_FILES = tuple(Path(__file__).resolve().parent.parent / "capture" / name
                    for name in ("modules.py", "extras.py"))


@cache
def _class_sources() -> dict[str, str]:
    out: dict[str, str] = {}
    for path in CLASS_FILES:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        # Whole classes are whole lines: sliced from the file's lines.
        lines = text.splitlines(keepends=True)
        out.update({
            node.name: "".join(lines[node.lineno - 1:node.end_lineno]).rstrip("\n")
            for node in tree.body
            if isinstance(node, ast.ClassDef)
        })
    return out


def source(variant: Variant) -> str:
    """The code a variant runs, with how it is called."""
    classes = _class_sources()
    parts = [classes[c] for c in variant.classes]
    if variant.kind in ("sdpa", "sdpa_deterministic"):
        if variant.kind == "sdpa_deterministic":
            call = (
                "# pinned, and deterministic, around every measured call:\n"
                f"with sdpa_kernel(SDPBackend.{BACKEND_ENUM[variant.backend]}), deterministic():\n"
                "    out = SDPAttention(point, device)(q, k, v)"
            )
        elif variant.backend:
            call = (
                "# pinned around every measured call:\n"
                f"with sdpa_kernel(SDPBackend.{BACKEND_ENUM[variant.backend]}):\n"
                "    out = SDPAttention(point, device)(q, k, v)"
            )
        else:
            call = "# no backend pinned: PyTorch chooses\nout = SDPAttention(point, device)(q, k, v)"
    elif variant.kind == "flex_fp8":
        call = "# q, k, v drawn in float8_e4m3fn\nout = FlexBlockMaskAttention(point, device)(q, k, v)"
    elif variant.kind == "cudnn_fp8":
        call = ("# pip install .[cudnn]; q, k, v drawn in float8_e4m3fn, in (B, S, H, D) memory\n"
                "out = CudnnFP8Attention(point, device)(q, k, v)")
    elif variant.kind in FA4_CALLS:
        call = FA4_CALLS[variant.kind]
    elif variant.kind == "naive_compiled":
        call = "out = torch.compile(NaiveAttention(point, device))(q, k, v)"
    else:
        call = f"out = {variant.classes[-1]}(point, device)(q, k, v)"
    return "\n\n\n".join(parts) + "\n\n\n" + call + "\n"


# How the FlashAttention-4 variants are called (pip install .[fa4]); their inputs are in (B, S, H, D) memory.
FA4_INSTALL = "pip install .[fa4]"
FA4_CALLS = {
    "flex_flash": f"# {FA4_INSTALL}\nout = FlexFlashAttention(point, device)(q, k, v)",
    "fa4": f"# {FA4_INSTALL}; q, k, v in (B, S, H, D) memory\nout = FA4Attention(point, device)(q, k, v)",
    "fa4_paged": f"# {FA4_INSTALL}; q, k, v in (B, S, H, D) memory\n"
                 "out = FA4Attention(point, device, paged=True)(q, k, v)",
    "fa4_deterministic": f"# {FA4_INSTALL}; q, k, v in (B, S, H, D) memory\n"
                         "out = FA4Attention(point, device, deterministic=True)(q, k, v)",
}


def extra_install(variant: Variant) -> str | None:
    """The install command of an optional variant's extra, None for a variant that needs none."""
    if not variant.optional:
        return None
    return CUDNN_INSTALL if variant.kind == "cudnn_fp8" else FA4_INSTALL


CUDNN_INSTALL = "pip install .[cudnn]"
# Each extra's package: (its name on the index, the module the capture imports, a reader's name). A capture without
# the package records its variants unavailable: "the optional <name> package ... is not installed" (gen.capture.extras).
EXTRA_PACKAGES = {FA4_INSTALL: ("flash-attn-4", "flash_attn", "FlashAttention-4"),
                  CUDNN_INSTALL: ("nvidia-cudnn-frontend", "cudnn", "the cuDNN frontend")}


def extra_package(variant: Variant) -> tuple[str, str, str] | None:
    """(package, module, reader's name) of an optional variant's extra (EXTRA_PACKAGES); None: it needs none."""
    install = extra_install(variant)
    return EXTRA_PACKAGES[install] if install else None

BACKEND_ENUM = {
    "math": "MATH",
    "efficient": "EFFICIENT_ATTENTION",
    "flash": "FLASH_ATTENTION",
    "cudnn": "CUDNN_ATTENTION",
}
