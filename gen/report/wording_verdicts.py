"""Wording of verdicts, lessons, contradictions and comparability: facts -> sentences.

Takes: gen.analysis.verdicts.Verdict, gen.analysis.lessons facts,
gen.analysis.comparability.Issue. Gives: `verdict(v) -> VerdictWords` (the
first-screen answer: a headline and its supporting lines), `lesson(fact)` ->
`LessonWords` for each lesson, `explanation(e)` and `claim(c)` for the
hypotheses, `issue(i)` for comparisons. Plain text: pages escape it where
they show it. The seed article is cited as ARTICLE; no sentence of it is
copied. Part of the report's wording (gen.report.wording holds the rest).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gen.analysis import advice as advice_mod
from gen.analysis import clocks, comparability, flops, kernel_names, lessons, paged, rules, unmeasured, verdicts
from gen.analysis.values import missing
from gen.model import trace
from gen.model.variants import VARIANTS
from gen.report import wording, wording_dynamic
from gen.report.wording import join_and as _join

ARTICLE = 'the seed article ("Profiling in PyTorch (Part 3): Attention is all you profile", Hugging Face blog, ' \
    "July 2026), measured on an NVIDIA A100"
ARTICLE_SHORT = "the seed article (A100)"


def label(variant: str) -> str:
    """A variant's label as it reads inside a sentence: "SDPA, backend not pinned" -> "SDPA (backend not pinned)"."""
    v = VARIANTS.get(variant)
    text = v.label if v else variant
    head, sep, rest = text.partition(", ")
    # A comma inside a bracket already ("varlen_attn (packed, cu_seqlens)") stays as it is.
    return f"{head} ({rest})" if sep and "(" not in head else text


def short_label(variant: str) -> str:
    """A variant's label without its bracket, for a possessive: "FlexAttention (compiled)" -> "FlexAttention"."""
    return label(variant).split(" (")[0]


FAMILY = {"cudnn_sdpa": "cuDNN-generated kernel", "fmha_cutlass": "CUTLASS fmha kernel",
          "flash2": "FlashAttention-2 kernel", "nvjet": "cuBLAS nvjet kernel", "cublas_xmma": "cuBLAS xmma kernel"}


def kernel_family(name: str | None) -> str:
    """A kernel as a reader names it: its family when the name is known, else its short name."""
    d = kernel_names.decode(name or "")
    return FAMILY.get(d.family, "kernel") if d.family else f"kernel {name}"


LIBRARY = {"cudnn_sdpa": "cuDNN", "fmha_cutlass": "CUTLASS", "cublas_xmma": "cuBLAS", "nvjet": "cuBLAS",
           "triton": "Triton", "flash_attn_cute": "flash_attn.cute"}


def kernel_path(p: kernel_names.KernelPath) -> str:
    """How a kernel computes, as its name and launch shape say it, as a noun phrase:
    "a cuDNN kernel compiled for sm90 that uses wgmma, Hopper's warpgroup matrix instructions"."""
    if p.reduction:
        return "a reduction kernel that combines the partial results of a split over the keys"
    if p.family == "flash2":
        text = ("FlashAttention-2, PyTorch's flash backend (its attention kernels issue warp-level mma.sync and load "
                "tiles with cp.async: an sm80 design, no TMA, no wgmma)")
    elif p.matrix == "ffma":
        text = "a float32 matrix product on the CUDA cores (float32 FMA by its name), off the tensor cores"
    elif p.family == "triton":
        return "a Triton template Inductor generated (its name does not say which matrix instructions it uses)"
    else:
        lib = LIBRARY.get(p.family)
        text = f"a {lib} kernel" if lib else "a kernel"
        if p.arch is not None:
            text += f" compiled for {arch_name(p.arch)}"
        if p.matrix == "wgmma":
            text += " that uses wgmma, Hopper's warpgroup matrix instructions"
        elif p.matrix == "mma":
            text += " that uses warp-level matrix instructions (the sm80 design), no wgmma"
    if p.persistent:
        text += ", persistent (one block per SM, each looping over tiles)"
    return text


def kernel_path_short(p: kernel_names.KernelPath) -> str:
    """The same in a few words, for a list: "cuDNN, sm90, wgmma", "FlashAttention-2, mma.sync"."""
    if p.reduction:
        return "a reduction kernel"
    if p.family == "flash2":
        return "FlashAttention-2, warp-level mma.sync"
    if p.matrix == "ffma":
        return "float32 on the CUDA cores"
    if p.kernel_class:  # flash_attn.cute's kernels say their class, which names what they are better than a tag
        return f"flash_attn.cute {p.kernel_class}"
    parts = [LIBRARY.get(p.family, "kernel")]
    if p.arch is not None:
        parts.append(f"sm{p.arch}")
    parts += {"wgmma": ["wgmma"], "mma": ["warp-level mma"]}.get(p.matrix, [])
    if p.family == "triton" or (p.arch is None and p.matrix is None):
        parts.append("instructions not in its name")
    return ", ".join(parts)


def kernel_paths(names) -> str:
    """What the names of a call's kernels say, kernels that read the same grouped:
    "X: a cuDNN kernel compiled for ...; Y, Z: a reduction kernel ..."."""
    groups: dict[str, list[str]] = {}
    for n in dict.fromkeys(names):
        p = kernel_names.path(n)
        if p.family is None and p.matrix is None and not p.reduction:
            continue
        groups.setdefault(kernel_path(p), []).append(trace.short_name(n))
    return "; ".join(f"{', '.join(dict.fromkeys(ns))}: {desc}" for desc, ns in groups.items())
PROSE_KERNEL_CHARS = 32


def prose_kernel(name: str | None) -> str:
    """A kernel as prose names it: its family where the name is known ("cuDNN-generated kernel"),
    else its short name cut at PROSE_KERNEL_CHARS characters with an ellipsis. The full name
    stays in the tables and the search."""
    if not name:
        return "kernel"
    d = kernel_names.decode(name)
    if d.family in FAMILY:
        return FAMILY[d.family]
    short = name.split("(")[0].split("<")[0].removeprefix("void ").strip() or name
    return short if len(short) <= PROSE_KERNEL_CHARS else short[:PROSE_KERNEL_CHARS - 1] + "…"


def us(ms: float) -> str:
    """A time given in ms, shown in µs below 1 ms."""
    return f"{ms * 1000:.1f} µs" if ms < 1 else f"{ms:.3f} ms"


def times(x: float) -> str:
    return f"{x:.2f}×"


def arch_name(a: int | None) -> str:
    """sm90 (Hopper), sm80 (Ampere)..."""
    if a is None:
        return "no architecture tag"
    family = {7: "Volta/Turing", 8: "Ampere/Ada", 9: "Hopper", 10: "Blackwell", 12: "Blackwell"}.get(a // 10)
    if a in (80, 86, 87):
        family = "Ampere"
    elif a == 89:
        family = "Ada"
    return f"sm{a} ({family})" if family else f"sm{a}"


METHOD = {
    "cuda_graph": "GPU-only time, by CUDA-graph replay of back-to-back calls",
    "kernel_sum": "GPU-only time, as the GPU events of each profiled call added up (this set has no CUDA-graph "
                  "timing)",
}
BASIS = {"gpu_only": "on the GPU alone", "eager": "per call in a Python loop (no GPU-only time in this set)",
         "host": "in wall time on the host (no GPU in this set)"}
TIMING = {"gpu_only": "GPU-only", "eager": "eager per-call", "host": "host"}


# --------------------------------------------------------------------------- the verdict

VERDICT_RULE = (
    "Each set's verdict, on the home page and atop its page, is made by one rule from the data: variants rank by "
    "their median GPU-only time as run (CUDA-graph replay, or the kernel sum of the profiled calls where a set has no "
    "graph timing; a set without GPU times ranks by eager, then host time): what a user gets, each kernel at the SM "
    "clock NVML sampled during its window, which also reflects the variants timed just before it. Beside each time "
    "stand the SM clock and board power it ran at and, at a compute-bound point, its time at equal clock (the set's "
    "reference clock), which ranks the kernels by their efficiency (a memory-bound point, judged in TB/s, keeps its "
    "as-run time: HBM bandwidth does not follow the SM clock); where the two "
    "orders differ, the verdict names the pair and who paid for reaching the power limit. "
    "Each median carries its 95% interval, "
    f"{rules.CI_METHOD}, never narrower than ±{rules.TIME_FLOOR_PCT:g}% (two captures on one GPU differ by that "
    "much). A variant's rank is one more than the number of variants decidedly faster than it (their interval "
    "ends below its own begins), so variants the times cannot tell apart share a rank, and variants that run the "
    "same kernels (the same GPU events in one call) are one rank, a tie, unless their intervals are apart (then "
    "the names hide other arguments, and the times rank them). The fastest is "
    "set against the fastest variant running other kernels: decidedly ahead, or within noise. SDPA with no "
    "backend pinned is named beside the pinned variant whose kernels it runs. The verdict says when the eager "
    "ranking, what a Python loop sees, cannot tell the fastest from a variant the GPU-only ranking keeps apart, "
    "and gives one reason read off the kernels: the fastest built for this GPU's architecture (its sm tag) against "
    "rivals built for an older one, or fewer GPU events a call. The same ranking gives the Fastest finding, the "
    "hypotheses' ranks, the variant pages' ranks and the scaling page's fastest.")


@dataclass(frozen=True)
class VerdictWords:
    headline: str  # the answer in one sentence: which attention here, by how much
    lines: tuple[str, ...]  # the automatic choice, the host, why, noise: one sentence each
    fastest: str  # the fastest variant's name, for tests and links
    fastest_label: str
    fastest_ms: float  # its ranking time (ms)
    basis: str
    reasons: tuple[tuple[str, str], ...] = ()  # (who, reason) in full where a line shortened it


def noise(n: verdicts.Noise) -> str:
    if n.kind == "few":
        return f"{label(n.variant)}'s {TIMING[n.timing]} time rests on {n.n} sample{'s' if n.n != 1 else ''}"
    return f"{label(n.variant)}'s {TIMING[n.timing]} time spreads {n.iqr_pct:.0f}% (IQR over median)"


def noises(ns) -> str:
    """Noise flags grouped: the thin timings together, then the spread ones."""
    ns = list(ns)
    out = []
    few = [n for n in ns if n.kind == "few"]
    for timing in dict.fromkeys(n.timing for n in few):
        group = [n for n in few if n.timing == timing]
        counts = sorted({n.n for n in group})
        samples = f"{_join(str(c) for c in counts)} sample{'s' if counts != [1] else ''}"
        if len(group) == 1:
            out.append(f"the {TIMING[timing]} time of {label(group[0].variant)} rests on {samples}")
        else:
            out.append(f"the {TIMING[timing]} times of {_join(label(n.variant) for n in group)} rest on {samples} each")
    spread = [n for n in ns if n.kind == "spread"]
    if spread:
        out.append(_join(f"{label(n.variant)}'s {TIMING[n.timing]} time spreads {n.iqr_pct:.0f}%" for n in spread)
                   + f" (IQR over median; the report calls a timing noisy above {rules.NOISY_IQR_PCT:.0f}%)")
    return "; ".join(out)


def _per(mode: str) -> str:
    return "a forward" if mode == "inference" else "a training step"


BACKENDS = {"cudnn": "cuDNN", "flash": "flash", "efficient": "memory-efficient", "math": "math",
            "flash (CPU)": "flash (its CPU kernel)"}


def backend(name: str | None) -> str:
    return BACKENDS.get(name, name) if name else "an unnamed backend"


def _auto_line(v: verdicts.Verdict) -> str:
    a = v.auto
    text = f"With no backend pinned, scaled_dot_product_attention ran {backend(a.backend or a.kernel_backend)}"
    if a.same_as:
        text += f", the same {'kernels' if a.kernel else 'backend'} as {_join(label(x) for x in a.same_as)}"
    elif a.kernel:
        text += f" ({prose_kernel(a.kernel)})"
    if a.is_fastest:
        text += ": the fastest choice here"
    elif a.ratio:
        text += f": {times(a.ratio)} the fastest's time"
    if a.contradicted and a.expected_refused:
        # the expected backend could not run this call: no hypothesis to contradict
        text += f" ({backend(a.expected_backend)} could not run this call: {a.expected_refused.rstrip('.')})"
    elif a.contradicted:
        hyp = VARIANTS[a.variant].expect if a.variant in VARIANTS else None
        said = f": {hyp.why}" if hyp is not None and hyp.why else ""
        text += (f", not {backend(a.expected_backend)}, which the report's hypothesis for this variant (set before "
                 f"measuring) expected{said}")
    return text + "."


def _host_line(v: verdicts.Verdict) -> str:
    f, h = v.fastest, v.host
    parts, shrinks = [], True
    for x in h.closed:
        t = v.row(x)
        gpu_ratio = t.gpu_only.median / f.gpu_only.median
        shrinks = shrinks and t.eager.median / f.eager.median < gpu_ratio
        parts.append(f"{label(x)} takes {us(t.eager.median)} per eager call against {us(f.eager.median)} for "
                     f"{label(f.variant)} (on the GPU alone {label(x)} takes {times(gpu_ratio)} "
                     f"{label(f.variant)}'s time)")
    if h.changes_answer:
        top = v.row(h.eager_fastest)
        head = (f"For short calls in a Python loop the answer changes: {label(top.variant)} is the fastest per "
                f"eager call ({us(top.eager.median)})")
        return head + (": " + "; ".join(parts) if parts else "") + ". The host's cost per call decides it."
    lead = leaders_eager(v)
    eager_ci = all(x is not None and not math.isnan(x.ci_lo)
                   for x in (f.eager, *(v.row(y).eager for y in (*h.closed, *v.near))))
    loop = "In a Python loop (eager calls" + ("" if eager_ci else ", no interval recorded") + ")"
    if lead and not host_can_hide(v):  # no call brought up by the host's cost to name (review2 N3)
        return f"{loop}, {lead}."
    if lead:  # the pair compared is the tied leaders first, then the call the loop brings up to them (item 29)
        return (f"For short calls in a Python loop, {lead}" + (
            "; a call behind them on the GPU alone comes within the eager spread of the fastest (their 95% "
            "intervals overlap): " + "; ".join(parts) if parts else "") + ".")
    if shrinks and not host_can_hide(v):
        # no host time recorded, or calls far longer than the time a loop spends off the GPU (review2 N3)
        return (f"{loop} " + "; ".join(parts)
                + f"; {label(f.variant)} still leads: the eager and GPU-only times come from "
                "other windows, and the host's cost was not what set them apart.")
    if shrinks:
        return ("For short calls in a Python loop the lead shrinks into the spread: " + "; ".join(parts)
                + ". The host's cost per call hides the GPU's difference.")
    return ("For short calls in a Python loop the order holds but cannot be told apart: " + "; ".join(parts)
            + ". The eager times spread so widely that their 95% intervals overlap.")


def host_can_hide(v: verdicts.Verdict) -> bool:
    """The host's cost can hide a GPU difference only where the scenario recorded the host (a host time or its
    cost a call) and a loop spends at least that difference off the GPU: the fastest's eager time over its
    GPU-only time covers every closed call's GPU-only lead (review2 N3: never for millisecond calls whose
    eager time runs under the GPU difference)."""
    f = v.fastest
    if f.eager is None or f.gpu_only is None or (f.host is None and f.host_cost_ms is None):
        return False
    off_gpu = f.eager.median - f.gpu_only.median
    return all(v.row(x).gpu_only.median - f.gpu_only.median <= off_gpu for x in v.host.closed)


def leaders_eager(v: verdicts.Verdict) -> str | None:
    """Where calls share the first rank (within noise), their eager times side by side: the comparison a reader
    expects before any call further down (review item 29)."""
    f = v.fastest
    near = [v.row(x) for x in v.near if v.row(x) is not None and v.row(x).eager is not None]
    if not near or f.eager is None:
        return None
    return (f"the calls sharing the first rank take, per eager call: {label(f.variant)} {us(f.eager.median)}, "
            + _join(f"{label(t.variant)} {us(t.eager.median)}" for t in near))


def _why_line(v: verdicts.Verdict) -> str | None:
    w = v.why
    if w is None:
        return None
    if w.kind == "dense_mask":
        return dense_mask_line(w, label(v.runner_up.variant), label(v.fastest.variant))
    if w.kind == "fewer_events":
        runner = label(v.runner_up.variant)
        text = (f"Why: it runs {w.fastest_events} GPU event{'s' if w.fastest_events != 1 else ''} a call against "
                f"{w.runner_up_events} for {runner}")
        if w.runner_up_events_us and w.runner_up_main_us and w.fastest_events_us:
            gap = w.runner_up_events_us - w.fastest_events_us
            text += (f": {runner}'s events besides its main kernel take "
                     f"{us((w.runner_up_events_us - w.runner_up_main_us) / 1000)}"
                     + of_gap(w.runner_up_events_us - w.runner_up_main_us, gap))
            if w.fastest_main_us:
                text += (f"; the main kernels themselves: {kernel_path(kernel_names.path(v.fastest.main_kernel or ''))}"
                         f"{took(w.fastest_main_us)} against {runner}'s {us(w.runner_up_main_us / 1000)}")
        return text + "." + launches(w, runner)
    mine = kernel_path(kernel_names.path(v.fastest.main_kernel or ""))
    rivals = "; ".join(f"{label(x)} runs {kernel_path(kernel_names.path(k or ''))}{took(t)}" for x, k, t in w.compared)
    if w.kind == "main_kernel" and w.fastest_main_us and w.runner_up_main_us:
        return main_kernel_line(w, v.fastest.main_kernel, label(v.runner_up.variant))
    if w.kind == "main_kernel":
        extra = ""
        if w.runner_up_events_us and w.runner_up_main_us and w.runner_up_events_us > w.runner_up_main_us:
            extra = f"; {label(v.runner_up.variant)}'s other GPU events take " \
                    f"{us((w.runner_up_events_us - w.runner_up_main_us) / 1000)}"
            if w.fastest_events_us and w.runner_up_events_us > w.fastest_events_us:
                extra += of_gap(w.runner_up_events_us - w.runner_up_main_us,
                                w.runner_up_events_us - w.fastest_events_us)
        return f"Why: the attention kernels themselves: its main kernel is {mine}{took(w.fastest_main_us)}; " \
               f"{rivals}{extra}.{launches(w, label(v.runner_up.variant))}"
    return native_arch_line(w, mine, rivals)


def native_arch_line(w: verdicts.Why, mine: str, rivals: str) -> str | None:
    """The kernels' build as the reason, only where the profiled calls bear it out: None where a rival's main
    kernel ran quicker than the fastest's (the build then explains nothing of the win)."""
    if w.fastest_main_us and any(t is not None and t < w.fastest_main_us for _, _, t in w.compared):
        return None
    return f"Why: its main kernel is {mine}{took(w.fastest_main_us)}; {rivals}."


def main_kernel_line(w: verdicts.Why, fastest_kernel: str | None, runner: str) -> str:
    """The measured cause where the main kernels make the gap: their times in the profiled calls and how much of
    the gap their difference is, then each kernel by what its name says (an identity, not a reason: why one
    kernel is quicker than the other is not measured here beyond its launch)."""
    rival = w.compared[0][1] if w.compared else None
    diff = w.runner_up_main_us - w.fastest_main_us
    gap = w.runner_up_events_us - w.fastest_events_us if w.runner_up_events_us and w.fastest_events_us else None
    text = (f"Why: the main kernels make the difference. In the profiled calls its own took "
            f"{us(w.fastest_main_us / 1000)} and that of {runner} {us(w.runner_up_main_us / 1000)}, "
            f"{us(diff / 1000)} apart" + (of_gap(diff, gap, rest=None) if gap else ""))
    if gap and 0 < gap < diff:
        # the main kernels differ the same way as the whole calls, by more: the other kernels give some back
        text += (f": its other GPU events take {us((diff - gap) / 1000)} more than {runner}'s, which the slower "
                 f"main kernel of {runner} more than outweighs (the other kernels differ the other way)")
    if w.runner_up_events_us and w.runner_up_main_us and w.runner_up_events_us > w.runner_up_main_us:
        text += (f"; {runner}'s other GPU events take {us((w.runner_up_events_us - w.runner_up_main_us) / 1000)}"
                 + (of_gap(w.runner_up_events_us - w.runner_up_main_us, gap, rest=None) if gap else ""))
    mine, theirs = (kernel_path_short(kernel_names.path(k or "")) for k in (fastest_kernel, rival))
    text += (f". Both main kernels: {mine}" if mine == theirs else f". Kernels: {mine} against {theirs}")
    return text + "." + launches(w, runner)


def of_gap(part_us: float, gap_us: float, rest: str | None = "the main kernels") -> str:
    """A part set against the gap between two profiled calls: "of the gap" only where it fits in it (never
    "3.6 µs of the 3.2 µs gap"); a larger part is set beside the whole gap, and `rest` (what the gap holds besides
    the part) then differs the other way (None: not said)."""
    if gap_us <= 0:
        return ""
    if part_us <= gap_us:
        return f" of the {us(gap_us / 1000)} gap in the profiled calls"
    return (f", more than the whole {us(gap_us / 1000)} gap between the profiled calls"
            + (f" ({rest} differ the other way)" if rest else ""))


def launches(w: verdicts.Why, runner: str) -> str:
    """The two main kernels' grids against the GPU's SMs, where the trace gave them and they differ:
    a grid of fewer blocks than SMs leaves SMs idle (a decode step or a short chunk, no split of the keys)."""
    a, b, sms = w.fastest_main_blocks, w.runner_up_main_blocks, w.sm_count
    # Only where a grid leaves SMs idle: past that, blocks that exit at once (a varlen grid sized
    # by the longest document) make a count of blocks say nothing of the work.
    if not a or not b or a == b or not sms or min(a, b) >= sms:
        return ""
    text = f" Launches: its main kernel runs {a:,} thread blocks, {runner}'s {b:,}"
    if sms:
        text += f", on {sms} SMs"
        idle = [f"{n:,} blocks leave {sms - n} SMs without one" for n in (a, b) if n < sms]
        if idle:
            text += f" ({'; '.join(idle)})"
    return text + "."


def took(x: float | None) -> str:
    """A main kernel's duration in its profiled call (µs in), as a parenthesis."""
    return f" ({us(x / 1000)} in its profiled call)" if x else ""


def dense_mask_line(w: verdicts.Why, runner: str, fastest: str) -> str:
    """Why a call that scores every (query, key) pair loses to one that skips the masked ones."""
    p = w.point
    if p.mask == "sliding":
        arg, mask, inside = "no sliding-window argument", f"the {p.window:,}-token window", "inside the window"
    else:
        arg, mask, inside = f"no argument for a {p.mask} mask of this shape", "the mask", "the mask lets through"
    text = (f"Why: the work. scaled_dot_product_attention has {arg}, so {mask} goes in as a dense boolean "
            f"attn_mask of {p.q_len:,} × {p.kv_len:,} and {runner} scores every (query, key) pair: "
            f"{w.dense_flops / 1e12:.2f} TFLOP against {w.masked_flops / 1e12:.2f} TFLOP {inside} "
            f"({w.dense_flops / w.masked_flops:.1f}×, {flops.FLOP_LABEL})")
    if w.runner_up_main_us and w.runner_up_events_us:
        text += (f"; its attention kernel takes {w.runner_up_main_us / 1000:.2f} of the "
                 f"{w.runner_up_events_us / 1000:.2f} ms of GPU events in its profiled call")
    skip = "the blocks wholly outside the window" if p.mask == "sliding" else "the blocks the mask removes wholly"
    return text + f". {fastest}'s block mask lets it skip {skip}."


REASON_CHARS = 100  # a reason inside a verdict's sentence; the verdict keeps the full text beside it


def shortened(text: str, limit: int = REASON_CHARS) -> str:
    """text, or where longer than limit its words that fit with an ellipsis: a cut never ends inside
    a word or a number (139.80 GiB cut to "139.8" would be another figure), unless its last word
    is longer than half the limit: that one is cut where the limit falls."""
    if len(text) <= limit:
        return text
    head = text[:limit - 1]
    if not text[limit - 1].isspace():
        space = max(head.rfind(" "), head.rfind("\n"))
        if space > limit // 2:
            head = head[:space]
    return head.rstrip(" \n,;:.(") + "…"


def _clause(reason: str, backend_name: str | None) -> str:
    # PyTorch's refusals open with "No available kernel. Aborting execution."; the clause naming the
    # backend says why.
    reason = advice_mod.reason_clause(reason, backend_name) or reason
    return wording.free_memory_words(reason.split("\n")[0].removeprefix("not run: ").strip())




def short_reason(reason: str | None, backend_name: str | None = None) -> str:
    """A capture's reason for a variant it did not measure, short: its first clause, at most
    REASON_CHARS characters, cut between words."""
    if not reason:
        return "no reason recorded"
    return shortened(_clause(reason, backend_name))


def _backend(x: str) -> str | None:
    var = VARIANTS.get(x)
    return var.backend if var else None


def cut_reasons(v: verdicts.Verdict) -> tuple[tuple[str, str], ...]:
    """The reasons the verdict's lines shortened, in full as the capture recorded them, each once
    with the variants it is about: (who, reason)."""
    said = [(x, reason, _backend(x)) for x, _, reason in v.not_measured]
    if v.sweep_gaps:
        said.append((*v.sweep_gaps[0], None))
    by: dict[str, list[str]] = {}
    for x, reason, backend in said:
        if reason and len(_clause(reason, backend)) > REASON_CHARS:
            by.setdefault(reason, []).append(label(x))
    return tuple((_join(list(dict.fromkeys(xs))), reason) for reason, xs in by.items())


def not_measured_line(v: verdicts.Verdict) -> str | None:
    """The variants of the scenario that were not measured, with their reasons, grouped by reason."""
    if not v.not_measured:
        return None
    by: dict = {}
    for x, status, reason in v.not_measured:
        by.setdefault(f"{status}: {short_reason(reason, _backend(x))}", []).append(label(x))
    parts = "; ".join(f"{_join(xs)} ({why})" for why, xs in by.items())
    kind = v.missing_kind
    lead = f"No {kind.upper()} variant was measured" if kind else "Not measured here"
    return f"{lead}: {parts}."


def paged_line(v: verdicts.Verdict) -> str | None:
    """For a paged KV cache: the answer from the variants that page; SDPA reads a contiguous cache only."""
    p = paged.paged_facts(v)
    if p is None:
        return None
    if not p.ranked:
        return ("For a paged KV cache: no variant that pages was measured here ("
                + "; ".join(f"{label(x)}: {short_reason(r, _backend(x))}" for x, _, r in p.not_measured)
                + "); SDPA reads a contiguous cache only, so this set gives no paged answer.")
    best, best_ms = p.ranked[0]
    text = (f"For a paged KV cache, call {label(best)}: {us(best_ms)} {_per(v.mode)}, the fastest of the calls "
            f"measured that read pages ({_join(label(x) for x, _ in p.ranked)}); SDPA reads a contiguous cache only")
    if best != p.fastest and best_ms > 0:
        text += (f". Against the fastest call on a contiguous cache ({label(p.fastest)}, {us(p.fastest_ms)}), paging "
                 f"costs {times(best_ms / p.fastest_ms)}")
    return text + "."


def fa4_missing_line(missing: list[str]) -> str | None:
    """The decision box's line where a set measured no FA4 path: its rankings are of the calls measured."""
    if not missing:
        return None
    return (f"Not measured in this set: {_join(label(x) for x in missing)} ({unmeasured.ABSENT_REASON}); every "
            "ranking here is of the calls measured, and its fastest the fastest of those.")


def _sweep_gaps_line(v: verdicts.Verdict) -> list[str]:
    """Where ranked rows come from the profiled runs but the sweep at the same point skipped them."""
    if not v.sweep_gaps:
        return []
    return [f"{_join(label(x) for x, _ in v.sweep_gaps)}: from the profiled run at this point; the sweep at the "
            f"same point did not measure {'it' if len(v.sweep_gaps) == 1 else 'them'} "
            f"({short_reason(v.sweep_gaps[0][1])}), so the scaling page has no such row."]


def _headline(v: verdicts.Verdict) -> str:
    f = v.fastest
    fs = v.spread(f)
    # Where FA4 was not measured the ranking is of those measured, and says so (issue 32)
    here = "of those measured here" if unmeasured.fa4_missing(v.not_measured) else "here"
    if v.unrankable:
        firsts = [x for x, r in v.rank_of_ if r == 1]
        spreads = sorted(p for _, p in v.unrankable)
        span = f"{spreads[0]:.0f}%" if len(spreads) == 1 else f"{spreads[0]:.0f}–{spreads[-1]:.0f}%"
        return (f"The times here cannot rank {_join(label(x) for x in firsts)}: "
                f"{'its' if len(v.unrankable) == 1 else 'their'} {TIMING[v.basis]} times spread {span} (IQR over "
                f"median, past the {rules.CANNOT_RANK_IQR_PCT:.0f}% at which a median says little); the medians read "
                + _join(f"{us(v.spread(v.row(x)).median)} for {label(x)}" for x in firsts)
                + (", and their 95% intervals overlap" if len(firsts) > 1 else ""))
    flips = order_flips_clause(v)
    if flips:
        head = flips
    elif v.near:
        head = (f"{_join(label(x) for x in (f.variant, *v.near))} are the fastest {here}, within noise: "
                f"{us(fs.median)} {_per(v.mode)} {BASIS[v.basis]} for {label(f.variant)} against "
                + _join(f"{us(v.spread(v.row(x)).median)} for {label(x)}" for x in v.near)
                + "; the 95% intervals of their medians overlap, so they share the first rank")
    elif v.field_of_one:
        only = _join(label(x) for x in (f.variant, *v.same_kernel))
        head = (f"A field of one: {only} {'is the only call' if not v.same_kernel else 'the only kernels'} "
                f"measured here, {us(fs.median)} {_per(v.mode)} {BASIS[v.basis]}, with nothing to rank it against")
    else:
        if v.same_kernel:
            twins = _join(f"{us(v.spread(v.row(x)).median)} for {label(x)}" for x in v.same_kernel)
            head = (f"{_join(label(x) for x in (f.variant, *v.same_kernel))} tie for the fastest {here} (the same "
                    f"kernels: one rank): {us(fs.median)} {_per(v.mode)} {BASIS[v.basis]} for {label(f.variant)}, "
                    f"{twins}")
        else:
            head = f"{label(f.variant)} is the fastest {here}: {us(fs.median)} {_per(v.mode)} {BASIS[v.basis]}"
        if v.runner_up is not None:
            head += (f", {times(v.ratio)} ahead of {label(v.runner_up.variant)} "
                     f"({us(v.spread(v.runner_up).median)}); the 95% intervals of the two medians do not overlap")
    named = {v.fastest.variant, *v.same_kernel, *v.near, *((v.runner_up.variant,) if v.runner_up else ())}
    gaps = [x for x, _ in v.sweep_gaps if x in named]
    if gaps:
        head += (f" ({_join(label(x) for x in gaps)}: from the profiled run at this point, which the sweep "
                 "skipped)")
    return head


# What a window's clock is (review item 11): rounds are two graph replays (about 25 ms) interleaved among
# variants, and NVML's power is a one-second average, so a window's clock also reflects its neighbours' draw.
AS_RUN_CLOCK = ("each kernel at the SM clock NVML sampled during its window, which also reflects the variants timed "
                "just before it")
MEMORY_BOUND_CLOCK = (": this point is memory-bound (judged in TB/s), and HBM bandwidth does not follow the SM clock, "
                      "so equal clock does not apply: each time stands as run.")


def order_flips_clause(v: verdicts.Verdict) -> str | None:
    """Where another scenario timed this point with the fastest and a call sharing its rank the other way round
    (Verdict.order_flips), no ranking between them: the order flips with the window's clock (review N1)."""
    f = v.fastest
    pairs = [(b, other, ms_a, ms_b) for a, b, other, ms_a, ms_b in v.order_flips if a == f.variant and b in v.near]
    if not pairs:
        return None
    fs = v.spread(f)
    others = [v.row(b) for b, _, _, _ in pairs]
    by_other: dict[str, dict[str, float]] = {}
    for b, other, ms_a, ms_b in pairs:
        by_other.setdefault(other, {})[f.variant] = ms_a
        by_other[other][b] = ms_b
    there = "; ".join(f"the {other} scenario timed the same point: " + _join(
        f"{label(x)} {us(ms)}" for x, ms in sorted(times_.items(), key=lambda kv: kv[1]))
        for other, times_ in by_other.items())
    return (f"{_join(label(x) for x in (f.variant, *dict.fromkeys(t.variant for t in others)))} cannot be ranked at "
            f"this point: the order flips with the window's clock. Here {label(f.variant)} took {us(fs.median)} "
            f"{_per(v.mode)} {BASIS[v.basis]} against " + _join(f"{us(v.spread(t).median)} for {label(t.variant)}"
                                                                   for t in others)
            + f"; {there}")


def ranked_by(v: verdicts.Verdict) -> str:
    """Which of the two times ranks, and why: the as-run time (what a user gets), with the equal-clock time
    beside it where the set has a reference clock."""
    text = f"Ranked by the as-run {METHOD.get(v.method, v.method)}"
    if v.ref_mhz is not None and getattr(v, "memory_bound", False):
        return text + MEMORY_BOUND_CLOCK
    if v.ref_mhz is None or not v.equal_clock_order:
        return text + "."
    return (text + f": what a user gets, {AS_RUN_CLOCK}. The time at "
            f"equal clock ({v.ref_mhz:.0f} MHz, the GPU's maximum: the time × its clock / {v.ref_mhz:.0f}) ranks "
            "the kernels by their efficiency instead.")


def _as_run(t: verdicts.Timed, v: verdicts.Verdict) -> str:
    s = v.spread(t)
    text = f"{label(t.variant)} {us(s.median)}"
    if t.sm_clock_mhz is None:
        return text + " (SM clock not recorded)"
    text += f" at {t.sm_clock_mhz:.0f} MHz"
    if t.power_w is not None:
        text += f" and {t.power_w:.0f} W"
    if t.at_ref_ms is not None:
        text += f", {us(t.at_ref_ms)} at equal clock"
    return text


MAX_FLIPS = 3  # pairs the equal-clock line names; the rest counted


def equal_clock_line(v: verdicts.Verdict) -> str | None:
    """Each named time with the SM clock and power it ran at and its equal-clock time; whether the equal-clock
    ranking orders the rows otherwise, and who pays for reaching the power limit."""
    if v.ref_mhz is None or not v.equal_clock_order:
        return None
    named = [v.fastest.variant, *v.same_kernel, *v.near, *((v.runner_up.variant,) if v.runner_up else ())]
    rows = [v.row(x) for x in dict.fromkeys(named) if v.row(x) is not None]
    text = "As run, with the SM clock and board power of each window: " + "; ".join(_as_run(t, v) for t in rows)
    if not v.clock_flips:
        return text + ". At equal clock the order is the same."
    parts = []
    for a, b in v.clock_flips[:MAX_FLIPS]:
        ta, tb = v.row(a), v.row(b)
        pays = (f"{label(b)} ran at {tb.sm_clock_mhz:.0f} MHz against {ta.sm_clock_mhz:.0f} MHz for {label(a)}"
                if tb.sm_clock_mhz is not None and ta.sm_clock_mhz is not None else "")
        if pays and rules.at_power_limit(tb.power_w, v.power_limit_w):
            # NVML's power is a lagging average over about a second, longer than a window: a reading near the
            # limit does not show that this window, rather than the ones before it, drew it
            pays += (f"; its window's NVML power read {tb.power_w:.0f} W against a {v.power_limit_w:.0f} W limit "
                     "(a lagging average: it does not show which window drew the power)")
        parts.append(f"{label(b)} ({us(tb.at_ref_ms)}) ahead of {label(a)} ({us(ta.at_ref_ms)})"
                     + (f": {pays}" if pays else ""))
    more = len(v.clock_flips) - MAX_FLIPS
    text += (". At equal clock the order differs: " + "; ".join(parts)
             + (f"; and {more} more pair{'s' if more != 1 else ''}" if more > 0 else "")
             + ". The as-run time is what a user gets, at the clock of its window (which also reflects the "
               "variants timed just before it); the equal-clock order is the kernels' efficiency.")
    return text


def other_calls_line(v: verdicts.Verdict) -> list[str]:
    """Where a merged set's ranked rows come from two capture calls: which, and what that means."""
    if not v.other_calls:
        return []
    later = sorted({w for _, w in v.other_calls})
    return [f"Measured in two capture calls: {_join(label(x) for x, _ in v.other_calls)} in a later call "
            f"(started {_join(wording.clock_time(w) for w in later)}, merged into this set by gen import --merge), "
            f"the other rows in the set's own call (started {wording.clock_time(v.own_call)}). Comparisons between "
            "the two cross processes: each row's clock and power are its own (the conditions table), and the "
            "first compiled variant there paid that process's first compile."]


def same_kernel_line(v: verdicts.Verdict) -> str:
    """Calls that run kernels of the same names within noise of each other share a rank; where their times are
    apart (the 95% intervals do not overlap) they run the same kernel class with other arguments: no tie, and the
    measured ratio (review item 15, review2 N7)."""
    f = v.fastest
    fs = v.spread(f)
    out = []
    if v.same_kernel:
        out.append(f"{_join(label(x) for x in (f.variant, *v.same_kernel))} run the same kernels: one rank, a tie.")
    for x in v.same_kernel_apart:
        s = v.spread(v.row(x))
        out.append(f"{label(x)} runs kernels of the same names as {label(f.variant)}, with other arguments (a "
                   f"kernel's name does not show them, a page table say): it takes {times(s.median / fs.median)} "
                   f"{label(f.variant)}'s time, the 95% intervals apart, so it ranks {ordinal(v.rank(x))}, not tied.")
    return " ".join(out)


def ordinal(n: int | None) -> str:
    if n is None:
        return "apart"
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def other_dtype_line(v: verdicts.Verdict) -> str | None:
    """Where a scenario's calls that set their own inputs' dtype (FP8) lose to a call that does not: the fastest
    is no FP8 kernel, and which FP8 calls were not measured (review item 13)."""
    def own(x: str) -> str | None:
        return VARIANTS[x].dtype if x in VARIANTS else None

    if own(v.fastest.variant):
        return None
    ran = [t for t in v.rows if own(t.variant)]
    unmeasured_ = [(x, r) for x, _, r in v.not_measured if own(x)]
    if not ran and not unmeasured_:
        return None
    text = f"The fastest here, {label(v.fastest.variant)}, is not an FP8 call"
    if ran:
        text += ("; no FP8 kernel measured here beats it: " + _join(
            f"{label(t.variant)} {us(v.spread(t).median)}" for t in ran if v.spread(t) is not None))
    if unmeasured_:
        text += "; not measured: " + _join(f"{label(x)} ({_bare(short_reason(r))})" if r else label(x)
                                           for x, r in unmeasured_)
    return text + "."


def verdict(v: verdicts.Verdict) -> VerdictWords:
    f = v.fastest
    fs = v.spread(f)
    head = _headline(v)
    lines = [ranked_by(v)] if v.method else []
    clock = equal_clock_line(v)
    if clock:
        lines.append(clock)
    gaps = not_measured_line(v)
    if gaps:
        lines.insert(0, gaps)
    lines += other_calls_line(v)
    lines += _sweep_gaps_line(v)
    lines += [x for x in (paged_line(v),) if x]
    lines += [x for x in (other_dtype_line(v),) if x]
    if v.same_kernel or v.same_kernel_apart:
        lines.append(same_kernel_line(v))
    if v.auto is not None:
        lines.append(_auto_line(v))
    lines += _host_lines(v)
    why = _why_line(v)
    if why:
        lines.append(why)
    if v.noise:
        lines.append(f"Read with care: {noises(v.noise)}.")
    return VerdictWords(head + ".", tuple(lines), f.variant, label(f.variant), fs.median, v.basis, cut_reasons(v))


def _host_lines(v: verdicts.Verdict) -> list[str]:
    """The verdict's host lines: the eager ranking where it matters, the host-bound variants, the host's noise."""
    lines = []
    if v.host is not None and v.host.matters:
        lines.append(_host_line(v))
    if v.host_bound:
        lines.append(f"Host-bound (see the rule in the methodology): {_join(label(x) for x in v.host_bound)}.")
    if v.host_noise:
        parts = []
        for x in v.host_noise:
            t = v.row(x)
            ratio = host_ratio_words(t.eager_over_gpu_only, t.eager_ratio_ci, t.host_noise_why, t.host_cost_ms,
                                     t.gpu_only.median if t.gpu_only else None, t.host_ref_ms)
            parts.append(f"{label(x)}: {ratio}")
        lines.append(f"{HOST_SPEED_LEAD}: {'. '.join(parts)}.")
    return lines


# --------------------------------------------------------------------------- conditions of a time

NOT_RECORDED = "not recorded"


def conditions_cell(r, ref_mhz: float | None = None) -> str:
    """The conditions of a GPU-only time (a row of timings.COLUMNS) for a table cell:
    "1670 MHz (min 1640) · 690 W · 61 °C", or "not recorded"; with the set's reference clock, the time at
    equal clock after them ("· 0.1250 ms at 1980 MHz")."""
    mhz = r.get("sm_clock_mhz")
    if missing(mhz):
        return NOT_RECORDED
    parts = [f"{mhz:.0f} MHz" + ("" if missing(r.get("sm_clock_min_mhz")) else f" (min {r['sm_clock_min_mhz']:.0f})")]
    if not missing(r.get("power_w")):
        lag = rules.power_lags(r.get("telemetry_window_s"))
        parts.append(f"{'≈' if lag else ''}{r['power_w']:.0f} W")
    if not missing(r.get("temp_c")):
        parts.append(f"{r['temp_c']:.0f} °C")
    if r.get("gpu_only_method") == "kernel_sum":  # one source per row: the window its time comes from (item 31)
        parts.append(KERNEL_SUM_WINDOW)
    at = _equal_clock_ms(r, mhz, ref_mhz)
    if at is not None:
        parts.append(f"{at:.4g} ms at {ref_mhz:.0f} MHz (equal clock)")
    elif ref_mhz is not None and not rules.equal_clock_applies(r.get("figure")):
        parts.append(NO_EQUAL_CLOCK)
    return " · ".join(parts)


KERNEL_SUM_WINDOW = "profiled calls' window"
NO_EQUAL_CLOCK = "as run (memory-bound: equal clock does not apply)"


def _equal_clock_ms(r, mhz, ref_mhz) -> float | None:
    """A row's time at equal clock, None where equal clock does not apply to its point (rules.equal_clock_applies:
    a row that carries its figure)."""
    if not rules.equal_clock_applies(r.get("figure")):
        return None
    return clocks.at_ref_clock(r.get("gpu_only_ms"), mhz, ref_mhz)


def clock_cell(r, ref_mhz: float | None = None) -> str | None:
    """The conditions of a GPU-only time, for beside it in a table: its mean SM clock, board power and, with
    the set's reference clock, its time at equal clock ("1670 MHz, 690 W; 0.1250 ms at 1980 MHz"), or None."""
    mhz = r.get("sm_clock_mhz")
    if missing(mhz):
        return None
    text = f"{mhz:.0f} MHz"
    if not missing(r.get("power_w")):
        text += f", {'≈' if rules.power_lags(r.get('telemetry_window_s')) else ''}{r['power_w']:.0f} W"
    at = _equal_clock_ms(r, mhz, ref_mhz)
    if at is not None:
        text += f"; {at:.4g} ms at {ref_mhz:.0f} MHz (equal clock)"
    elif ref_mhz is not None and not rules.equal_clock_applies(r.get("figure")):
        text += f"; {NO_EQUAL_CLOCK}"
    return text


def conditions_note(rows, per_variant: bool = False) -> str:
    """One line under a table: where its times' conditions came from, or why there are none; with
    per_variant, each variant's clock, minimum, power and temperature."""
    ok = [r for r in rows if r.get("status") == "ok"]
    reasons = {r.get("telemetry_reason") for r in ok if missing(r.get("sm_clock_mhz"))}
    reasons.discard(None)
    text = ("Conditions: the SM clock (mean over the window, and its minimum), board power (mean) and GPU "
            "temperature (maximum) that NVML read while the GPU-only time was taken.")
    if per_variant:
        recorded = [f"{label(r['variant'])} {conditions_cell(r)}" for r in ok if not missing(r.get("sm_clock_mhz"))]
        if recorded:
            text += " " + "; ".join(recorded) + "."
    if any(rules.power_lags(r.get("telemetry_window_s")) for r in ok if not missing(r.get("power_w"))):
        text += (f" A power marked ≈ was read in a window shorter than {rules.NVML_POWER_WINDOW_S:g} s: NVML's "
                 "reading is an average over about a second, so it lags what the GPU drew in the window.")
    if reasons:
        text += " Here: " + "; ".join(sorted(str(x) for x in reasons)) + "."
    return text


def conditions_range(rows) -> str:
    """A set's GPU-only times in one phrase: the range of their mean SM clocks, power and temperature,
    or why they were not recorded."""
    ok = [r for r in rows if r.get("status") == "ok"]
    mhz = [r["sm_clock_mhz"] for r in ok if not missing(r.get("sm_clock_mhz"))]
    if not mhz:
        reasons = sorted({str(r.get("telemetry_reason")) for r in ok if r.get("telemetry_reason")})
        return "; ".join(reasons) or NOT_RECORDED
    watts = [r["power_w"] for r in ok if not missing(r.get("power_w"))]
    temps = [r["temp_c"] for r in ok if not missing(r.get("temp_c"))]
    text = f"SM clock {min(mhz):.0f}–{max(mhz):.0f} MHz" if min(mhz) != max(mhz) else f"SM clock {mhz[0]:.0f} MHz"
    if watts:
        lag = any(rules.power_lags(r.get("telemetry_window_s")) for r in ok if not missing(r.get("power_w")))
        text += f", {'≈' if lag else ''}{min(watts):.0f}–{max(watts):.0f} W"
        if lag:
            text += (f" (≈: windows under {rules.NVML_POWER_WINDOW_S:g} s, where NVML's power, an average over "
                     "about a second, lags what the GPU drew)")
    if temps:
        text += f", up to {max(temps):.0f} °C"
    missing_n = len(ok) - len(mhz)
    return text + (f" ({missing_n} time{'s' if missing_n != 1 else ''} without a clock)" if missing_n else "")


def ceiling_line(c: clocks.Ceiling) -> str:
    """One measured ceiling with the clock it was measured at."""
    what = {"matmul": "a large matrix product", "copy": "a device-to-device copy (reads and writes)",
            "read": "a read-only pass (what a decode kernel mostly does)"}.get(c.kind, c.kind)
    value = f"{c.value:.0f} {c.unit}" if c.unit == "TFLOP/s" else f"{c.value:.2f} {c.unit}"
    cond = c.conditions
    at = (f"at {conditions_cell(cond.__dict__)}" if cond.recorded else f"clock {cond.reason or NOT_RECORDED}")
    text = f"{c.kind.capitalize()} ceiling: {what}, {value} (median of {c.n}), {at}"
    if c.sol is not None and not missing(c.sol.pct):
        text += (f"; {c.sol.pct:.0f}% of the speed of light at that clock ({c.sol.peak_tflops:.0f} TFLOP/s = "
                 f"SMs × {c.sol.clock_mhz:.0f} MHz × {c.sol.rate.flops_per_clk_per_sm} dense FLOP per clock per SM)")
    return text + "."


def sol_note(rate) -> str:
    """What "% of speed of light" means, with the table's source."""
    if rate is None:
        return "Speed of light: no dense tensor rate listed for this GPU and dtype (gen/model/datasheets.py)."
    return (f"% of speed of light: the TFLOP/s over SMs × the SM clock NVML sampled during the GPU-only time × "
            f"{rate.flops_per_clk_per_sm} dense {rate.dtype} FLOP per clock per SM ({rate.arch}; {rate.source}); "
            "a time without a recorded clock has none. The share of the matmul ceiling, beside it, sets the ceiling "
            "at the point's own clock (its TFLOP/s × the point's SM clock / the clock it was measured at: a tensor-"
            "core product scales with the clock); a point without a recorded clock gets none. The copy and read "
            "ceilings are bandwidths, not scaled. The measured matrix product is BF16: an FP8 point is set against "
            "no ceiling (no FP8 ceiling is measured), only against the FP8 speed of light.")


def above_ceiling_line(rows, ceiling: str) -> str | None:
    """The points a ceiling does not bound, or None."""
    if not len(rows):
        return None
    worst = max(rows, key=lambda r: r["pct_of_ceiling"])
    why = (" A copy writes as much as it reads; a kernel that only reads is not bound by it: the set needs the "
           "read-only ceiling, measured from schema 3 on." if ceiling == "copy" else "")
    return (f"{len(rows)} point{'s' if len(rows) != 1 else ''} pass{'' if len(rows) != 1 else 'es'} the measured "
            f"{ceiling} ceiling (up to {worst['pct_of_ceiling']:.0f}%, {label(worst['variant'])} at "
            f"{worst['kv_len']:,}): that ceiling does not bound them.{why}")


def fidelity_lines(rows) -> list[str]:
    """Where a GPU-only time is not a graph replay of the same work: the kernel-sum fallback with its
    reason, and the kernels a graph replay ran that an eager call did not (and the reverse)."""
    out = []
    for r in rows:
        if r.get("status") != "ok":
            continue
        name = label(r["variant"])
        if r.get("gpu_only_method") == "kernel_sum" and r.get("gpu_only_reason"):
            out.append(f"{name}: GPU-only time is the eager call's kernel sum, not a graph replay: "
                       f"{r['gpu_only_reason']}.")
        if r.get("graph_fidelity") == "differs":
            diff = [f"only in the graph: {r['graph_only_in_graph']}" if r.get("graph_only_in_graph") else None,
                    f"only in the eager call: {r['graph_only_in_eager']}" if r.get("graph_only_in_eager") else None]
            out.append(f"{name}: the graph replay ran other kernels than an eager call"
                       + (f" ({r['graph_detail']})" if r.get("graph_detail") else "")
                       + (": " + "; ".join(x for x in diff if x) if any(diff) else "") + ".")
    return out


# --------------------------------------------------------------------------- the first screen

# How a scenario reads in the decision (a reader's words for the workload); others by their name.
SCENARIO_WORDS = {"article": "prefill", "gqa-prefill": "prefill", "decode": "decode",
                  "sliding-window": "sliding windows", "packed-documents": "packed documents",
                  "chunked-prefill": "chunked prefill (a chunk of queries against a KV cache)",
                  "decode-kernels": "decode", "fp8-prefill": "FP8 prefill",
                  "deterministic-backward": "deterministic training"}
CALL = "scaled_dot_product_attention"


@dataclass(frozen=True)
class AdviceWords:
    decision: str  # what to call, and the reason, in one or two sentences
    lines: tuple[str, ...]  # the exceptions, the start-up, the host: one sentence each
    default: str  # the variant, for tests and links


def _workload(scenario: str, mode: str) -> str:
    return "training" if mode == "train" else SCENARIO_WORDS.get(scenario, scenario)


def _where(picks) -> str:
    """The workloads of some picks, inference before training."""
    ordered = sorted(picks, key=lambda p: p.mode == "train")
    return _join(dict.fromkeys(_workload(p.scenario, p.mode) for p in ordered))


def _millions(x: float) -> str:
    return f"{x / 1e6:.1f} M" if x < 1e9 else f"{x / 1e9:.2f} G"


def _place(a: advice_mod.Advice) -> str:
    if a.device == "cuda":
        return f"On this GPU ({a.gpu}) and PyTorch {a.torch}"
    return f"On this CPU ({a.cpu or 'unnamed'}) and PyTorch {a.torch}"


def _default_call(a: advice_mod.Advice) -> str:
    if a.default_is_auto:
        return f"call {CALL} with no backend pinned"
    v = VARIANTS.get(a.default)
    if v is not None and v.backend:
        return f"call {CALL} with the {backend(v.backend)} backend pinned"
    return f"call {label(a.default)}"


def _picks(a: advice_mod.Advice) -> str:
    """What the default call ran where it ranks first, grouped by backend; a default that pins its call: where it
    is first, where within noise of whom, and where it is not first at a verdict's point (review items 5, 19)."""
    if not a.default_is_auto:
        return _ranks(a)
    first = [p for p in a.picks if p.outcome != "slower"]
    if not first:
        return ""
    by: dict = {}
    for p in first:
        by.setdefault(p.backend, []).append(p)
    parts = []
    for b, ps in by.items():
        text = f"picks {backend(b)} for {_where(ps)}" if a.default_is_auto and b else f"ranks first for {_where(ps)}"
        noise = [p for p in ps if p.outcome == "within noise"]
        twin = next((p.twin for p in ps if p.twin), None)
        pinned = (f"the pinned {backend(b.split(' ')[0])} call" if b and VARIANTS.get(twin) and VARIANTS[twin].backend
                  else label(twin) if twin else "")
        where = "" if all(p.twin for p in ps) else " wherever both were measured"
        if twin and not noise:
            text += f", and {pinned} runs the same kernels{where}: a tie"
        elif twin:
            text += f", as {pinned} does; the two are within noise of each other"
        elif noise:
            text += f", within noise of {_join(dict.fromkeys(label(p.fastest) for p in noise))}"
        parts.append(text)
    lead = "It already " if a.default_is_auto else "It "
    return lead + "; it ".join(parts) + "."


# The workloads of the default's own claims, apart where SCENARIO_WORDS reads two as one ("prefill")
PLACE_WORDS = {"article": "the article's shape", "gqa-prefill": "prefill with grouped-query attention",
               "decode-kernels": "the decode kernels compared"}


def _place_of(scenario: str, mode: str) -> str:
    if mode == "train":
        return "training" if scenario != "deterministic-backward" else SCENARIO_WORDS[scenario]
    return PLACE_WORDS.get(scenario) or SCENARIO_WORDS.get(scenario, scenario)


def other_dtype_clause(a: advice_mod.Advice, scenario: str) -> str:
    """Where the default ranks first in a scenario of FP8 calls while itself not FP8: it is no FP8 kernel, and
    which FP8 calls were not measured, and why (review item 13)."""
    got = next((x for x in a.other_dtype if x[0] == scenario), None)
    if got is None:
        return ""
    _, dtype, _, missing_ = got
    text = f"as a {DTYPE_WORDS.get(dtype, dtype) or 'wider'} call (no FP8 kernel measured there beats it"
    if missing_:
        text += ", and " + _join(f"{label(x)} was not measured: {_bare(short_reason(r))}" if r else
                                 f"{label(x)} was not measured" for x, r in missing_)
    return text + ")"


def _bare(reason: str) -> str:
    """A reason without its exception's type and final stop, to sit inside a sentence."""
    head, sep, rest = reason.partition(": ")
    return (rest if sep and head.endswith(("Error", "Exception")) else reason).rstrip(".")


def _places(picks) -> str:
    ordered = sorted(picks, key=lambda p: p.mode == "train")
    return _join(dict.fromkeys(_place_of(p.scenario, p.mode) for p in ordered))


def _ranks(a: advice_mod.Advice) -> str:
    """A pinned default's standing at each verdict's point: first, within noise of a named call (the tie placed
    with its workloads), or not first, with who is faster there and by how much."""
    first = [p for p in a.picks if p.outcome == "fastest"]
    noise = [p for p in a.picks if p.outcome == "within noise"]
    told = {(e.scenario, e.mode) for e in a.exceptions}
    slower = [p for p in a.picks if p.outcome == "slower" and (p.scenario, p.mode) not in told]
    parts = []
    odd = [p for p in first if other_dtype_clause(a, p.scenario)]
    first = [p for p in first if p not in odd]
    if first:
        parts.append(f"It ranks first at the verdict's point for {_places(first)}")
    parts += [f"{'it' if parts else 'It'} ranks first for {_place_of(p.scenario, p.mode)} "
              f"{other_dtype_clause(a, p.scenario)}" for p in odd]
    by: dict = {}
    for p in noise:
        by.setdefault(p.fastest, []).append(p)
    for x, ps in by.items():
        parts.append(f"{'it' if parts else 'It'} is within noise of {label(x)} for {_places(ps)}")
    text = "; ".join(parts) + ("." if parts else "")
    if slower:
        text += (" It is not first at the verdict's point for " + _join(
            f"{_place_of(p.scenario, p.mode)} ({label(p.fastest)} is {times(p.ratio)} faster)" for p in slower) + ".")
    return text.strip()


def _k(n: int) -> str:
    return f"{n // 1024}k" if n % 1024 == 0 and n >= 1024 else f"{n:,}"


def behind_line(a: advice_mod.Advice) -> str | None:
    """The sweep points past the verdicts' where another call is decidedly faster than the default (intervals
    apart), with the clocks they ran at: the default's claims hold at the verdicts' points only."""
    rest = [b for b in a.behind_at if not b.at_verdict]
    if not rest:
        return None
    groups: dict = {}
    for b in rest:
        groups.setdefault((b.scenario, b.mode, b.fastest), []).append(b)
    parts = []
    for (sc, mode, x), bs in groups.items():
        unit = " keys" if bs[0].q_len == 1 else " tokens"
        sizes = _join((_k(b.kv_len) if b.q_len in (1, b.kv_len) else f"{b.q_len:,} × {_k(b.kv_len)}") + unit
                      + (f" (head dim {b.head_dim})" if b.head_dim else "") for b in bs)
        lo, hi = min(b.ratio for b in bs), max(b.ratio for b in bs)
        ratio = times(lo) if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}×"
        text = f"{_place_of(sc, mode)} at {sizes}: {label(x)} {ratio} faster"
        clocks_ = [(b.default_mhz, b.fastest_mhz) for b in bs if b.default_mhz and b.fastest_mhz]
        if clocks_ and any(abs(d - f) >= 1 for d, f in clocks_):
            text += (f" as run ({short_label(a.default)} at " + _join(f"{d:.0f}" for d, _ in clocks_)
                     + " MHz against " + _join(f"{f:.0f}" for _, f in clocks_) + " MHz)")
        parts.append(text)
    return (f"Past the verdicts' points, {label(a.default)} is not first at every size: " + "; ".join(parts)
            + " (the 95% intervals apart; each size on its scenario page).")


DTYPE_WORDS = {"fp8_e4m3": "float8 e4m3", "fp8_e5m2": "float8 e5m2"}


def _exception(a: advice_mod.Advice, e: advice_mod.Exception_, told: bool = False) -> str:
    """One exception; `told`: an earlier one already said how SDPA takes a dense mask (said shorter here)."""
    where = _workload(e.scenario, e.mode)
    at = f" at {e.kv_len // 1024}k" if e.kv_len and e.kv_len % 1024 == 0 else (f" at {e.kv_len}" if e.kv_len else "")
    fwd = " in a forward pass" if e.forward_only else ""
    why_fwd = "; this scenario timed no training step" if e.forward_only else ""
    if e.q_len and at:  # a chunk against a cache: the ratio is of that chunk's size
        at = (f" with {e.q_len:,} quer{'y' if e.q_len == 1 else 'ies'} against{at[3:]} keys (the verdict's point; "
              f"other chunk sizes differ, each on the scenario page{why_fwd})")
    elif why_fwd:
        at += f" ({why_fwd[2:]})"
    text = f"For {where}, use {label(e.variant)}: {label(a.default)} is {times(e.ratio)} slower{fwd}{at}"
    if e.q_len and "wrong-mask" not in VARIANTS.get(e.variant, VARIANTS["sdpa_is_causal"]).keywords:
        # fewer queries than keys: the plain causal flag is the wrong call here, whatever its speed
        why = VARIANTS["sdpa_is_causal"].wrong.split(": ", 1)[0].removeprefix("is_causal=True ")
        text += f". Not SDPA with is_causal=True: it {why}, which gives a wrong answer here"
    text += _dense_mask_text(e, told)
    text += "." + reversed_line(a, e)
    if e.mask_build_s is not None and e.call_ms:
        text += (f" Its block mask took {us(e.mask_build_s * 1e3)} to build, against {us(e.call_ms)} a call: build "
                 "it once per mask and reuse it" + ("; built for every call, it would cost more than the call itself"
                                                    if e.mask_build_s * 1e3 > e.call_ms else "") + ".")
    if e.compile_s is not None:
        text += f" Its first call at this shape compiled it in {e.compile_s:.1f} s"
        text += " (in a later capture call, merged)." if e.compile_merged else (
            f" ({wording.COMPILED_AHEAD_BRIEF})." if e.compile_ahead else ".")
    if e.error is not None and e.default_error is not None:
        text += f" Its relative error: {e.error:.1e} ({short_label(a.default)}: {e.default_error:.1e})"
        if e.input_rounding_error is not None:
            text += (f"; rounding q, k, v to {DTYPE_WORDS.get(e.dtype, e.dtype)} alone moves the answer by "
                     f"{e.input_rounding_error:.1e}")
        text += "."
    return text


def _dense_mask_text(e: advice_mod.Exception_, told: bool) -> str:
    """An exception's words on SDPA's dense mask, "" where it has none; `told` as in `_exception`."""
    if not (e.dense_mask and e.pairs_scored and e.pairs_needed):
        return ""
    text = ""
    what = {"sliding": ("no window", "inside the window", "block mask skips the blocks outside it"),
            "document": ("no document mask", "inside the documents",
                         "block mask skips the blocks wholly outside the documents")}.get(
        e.mask or "", ("no such mask", "the mask lets through", "call computes only those"))
    if told:
        text += (f". SDPA has {what[0]} either: {e.pairs_scored / e.pairs_needed:.1f}× the "
                 f"{_millions(e.pairs_needed)} pairs {what[1]} per head scored")
    else:
        text += (f". SDPA has {what[0]}: it gets the mask as a dense boolean attn_mask, so its kernel scores "
                 f"every (query, key) pair, {e.kv_len:,} × {e.kv_len:,}, {e.pairs_scored / e.pairs_needed:.1f}× "
                 f"the {_millions(e.pairs_needed)} pairs {what[1]} per head, where {short_label(e.variant)}'s "
                 f"{what[2]}")
    if e.flops_dense and e.flops_needed and not told:
        text += f" ({e.flops_dense / 1e12:.1f} TFLOP against {e.flops_needed / 1e12:.2f})"
    text += f"; the {times(e.ratio)} is against that dense mask"
    if e.between:
        text += ("; calls given the mask's structure rather than a dense mask are closer: " + _join(
            f"{label(x)} {r:.2f}× slower than {short_label(e.variant)}" for x, r in e.between))
    return text


def reversed_line(a: advice_mod.Advice, e: advice_mod.Exception_) -> str:
    """Where the exception's own scenario, at other sizes, turns the other way (review item 12): the sizes where
    the default is decidedly faster, with both times."""
    if not e.reversed_at:
        return ""
    by: dict = {}
    for q, kv, d, x in e.reversed_at:
        by.setdefault(q, []).append((kv, d, x))
    parts = []
    for q, rows in by.items():
        lo, hi = min(x / d for _, d, x in rows), max(x / d for _, d, x in rows)
        ratio = times(lo) if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}×"
        what = f"{q:,}-query chunks" if q > 1 else "single queries"
        parts.append(f"with {what} {short_label(a.default)} is {ratio} faster (" + _join(
            f"{us(d)} against {us(x)} at {_k(kv)} keys" for kv, d, x in rows) + ")")
    size = f"{e.q_len:,}-query chunks" if e.q_len else "the verdict's point"
    return f" This holds for {size}: {'; '.join(parts)}; use {short_label(a.default)} there."


def _startup(a: advice_mod.Advice) -> str | None:
    s = a.startup
    if s is None:
        return None
    b = backend(s.backend) if s.backend else label(s.variant)
    who = "the process's" if s.in_process else "the capture's"
    decl = VARIANTS.get(s.variant)
    if decl is not None and decl.compiled and not s.backend:
        # A call compiled per configuration (FA4's CuTe DSL): its first call is a compile at that shape, not a
        # one-time start-up
        text = (f"{label(s.variant)} is compiled on its first call, which took {s.first_call_s:.2f} s at the "
                f"article's shape ({who} first call of it)")
        if s.later_first_call_s is not None:
            text += f", against {us(s.later_first_call_s * 1e3)} for {label(s.later_variant)} after it"
        # measured at one shape: whether another configuration or length compiles again is not (review item 22)
        if s.lengths_status != "ok":
            text += ("; that was measured at the article's shape only: whether a new configuration or new lengths "
                     "compile again was not measured" + (f" (the dynamic-lengths runs: {s.lengths_status})"
                                                         if s.lengths_status else ""))
        return text + "."
    text = f"Expect about {s.first_call_s:.1f} s of one-time {b} start-up: {who} first {b} call"
    if s.backend:  # the variant beside its backend; a call that pins none is named by its variant already
        text += f" ({label(s.variant)})"
    text += f" took {s.first_call_s:.2f} s"
    if s.later_first_call_s is not None:
        text += (f", and the first call of {label(s.later_variant)} after it, the same kernels at the same shape, "
                 f"{us(s.later_first_call_s * 1e3)}")
    return text + "."


def usec(ms: float) -> str:
    """A host-side quantity (a call's host cost, its reference call) always in µs, on every page: one unit and one
    value per quantity. The crossover is a call's GPU time, worded by `us` like every other duration."""
    return f"{ms * 1000:.1f} µs"


def host_crossover(gpu_ms: float | None, host_cost_ms: float | None, host_ref_ms: float | None) -> str | None:
    """Host speed as a property of the host: the GPU time of a call is the crossover (a loop keeps the GPU
    busy while the host dispatches a call faster than the GPU runs it), against what this capture's host
    took and its reference call. None without a GPU time or a host cost."""
    if gpu_ms is None or missing(gpu_ms) or host_cost_ms is None or missing(host_cost_ms):
        return None
    text = (f"a Python loop keeps the GPU busy while the host dispatches a call in under {us(gpu_ms)} (the "
            f"call's GPU time); this capture's host took {usec(host_cost_ms)}")
    if host_ref_ms is not None and not missing(host_ref_ms):
        text += f" (its reference call: {usec(host_ref_ms)})"
    return text


HOST_SPEED_LEAD = ("Whether a Python loop waits on the host is a property of the host as much as of the kernel; "
                   "what this capture's host gave")


def host_not_the_gap(ratio: float | None, ci: tuple[float, float] | None, host_cost_ms: float | None,
                     gpu_ms: float | None) -> str | None:
    """Where the loop reads at or above the host-bound line but the host dispatches faster than the GPU runs
    the call (rules.host_under_gpu): the gap as measured, and that the host is not its cause; None elsewhere."""
    line = rules.HOST_BOUND_EAGER_RATIO
    straddles = ci is not None and ci[0] < line <= ci[1]
    if ratio is None or not rules.host_under_gpu(host_cost_ms, gpu_ms) or not (straddles or ratio >= line):
        return None
    host, gpu = usec(host_cost_ms), us(gpu_ms)
    if straddles and rules.host_well_under_gpu(host_cost_ms, gpu_ms):
        return (f"at the {times(line)} line ({times(ci[0])} to {times(ci[1])} its GPU-only time), but not behind "
                f"this host: its cost ({host} a call) is under half the GPU time ({gpu}), so the spread is not the "
                "host's")
    if not straddles and rules.host_far_under_gpu(host_cost_ms, gpu_ms):
        return (f"its eager call takes {times(ratio)} the GPU-only time: the kernels ran slower in the eager loop "
                f"than the GPU-only time shows; the host, at {host} a call against {gpu} of GPU time, does not "
                "explain it")
    if ratio < line:  # the median sits under the line, inside its noise (1.01×, 1.02×): no gap to explain (N6)
        return None
    return (f"the eager loop took {times(ratio)} the GPU-only time, though the host's cost ({host}) is under the "
            f"GPU time ({gpu}); the cause of the gap is not established")


def on_this_host(ratio: float | None, ci: tuple[float, float] | None, host_cost_ms: float | None = None,
                 gpu_ms: float | None = None) -> str:
    """What this capture's loop saw, as measured: host-bound on this host, not, or at the line where the
    ratio's interval reaches across it. Never "within noise": a ratio clear of the line is its answer here.
    Never "waited for this host" where the host is faster than the GPU (host_not_the_gap)."""
    line = rules.HOST_BOUND_EAGER_RATIO
    if ratio is None:
        return "no eager time"
    not_host = host_not_the_gap(ratio, ci, host_cost_ms, gpu_ms)
    if not_host:
        return not_host
    if ci is not None and ci[0] < line <= ci[1] and ratio < line:
        return (f"the GPU stayed busy behind this host at the median ({times(ratio)} its GPU-only time; the "
                f"interval, {times(ci[0])} to {times(ci[1])}, reaches the {times(line)} line)")
    if ci is not None and ci[0] < line <= ci[1]:
        return f"at the {times(line)} line behind this host ({times(ci[0])} to {times(ci[1])} its GPU-only time)"
    state = "a loop waited for this host" if ratio >= line else "the GPU stayed busy behind this host"
    return f"{state} ({times(ratio)} its GPU-only time)"


def host_ratio_words(ratio: float | None, ci: tuple[float, float] | None, why: str | None,
                     host_cost_ms: float | None, gpu_ms: float | None, host_ref_ms: float | None = None) -> str:
    """The eager/GPU-only ratio as measured, what it makes of this capture's host, and the crossover
    (host_crossover): whether a loop waits is a property of the host, so the host's numbers stand beside it."""
    text = on_this_host(ratio, ci, host_cost_ms, gpu_ms)
    if why == "same kernels":
        text += "; a variant running the same kernels came out otherwise"
    # where the host's cost is already set against the GPU time, the crossover would say it twice
    cross = None if host_not_the_gap(ratio, ci, host_cost_ms, gpu_ms) else \
        host_crossover(gpu_ms, host_cost_ms, host_ref_ms)
    return text + (f"; {cross}" if cross else "")


def _determinism(a: advice_mod.Advice) -> str | None:
    """Deterministic training: which backend refuses under torch.use_deterministic_algorithms(True), and
    what determinism costs each backend that runs, from the deterministic-backward scenario."""
    ds = a.determinism
    if not ds:
        return None
    refused = [d for d in ds if d.refused]
    costs = sorted((d for d in ds if d.ratio is not None), key=lambda d: d.det_ms)
    parts = []
    for d in refused:
        why = f" ({d.reason.rstrip('.')})" if d.reason else ""
        # PyTorch's dispatcher declines the backend under torch.use_deterministic_algorithms(True), not the library
        parts.append(f"PyTorch's dispatcher refuses {_det_name(d)}{why}" if d.refused == "unavailable"
                     else f"{_det_name(d)}: {d.refused}{why}")
    for d in costs:
        clock = f" as run, {times(d.ratio_at_ref)} at equal clock" if d.ratio_at_ref is not None else ""
        parts.append(f"{_det_name(d)} deterministic takes {_ms(d.det_ms)}{_sum_mark(d.det_method)} against "
                     f"{_ms(d.base_ms)}{_sum_mark(d.base_method)} by default, {times(d.ratio)}{clock}")
    if not parts:
        return None
    text = ("For deterministic training (torch.use_deterministic_algorithms(True), GPU-only time of "
            f"{_per(ds[0].mode)}): " + "; ".join(parts))
    if costs:
        best = costs[0]
        name = _det_name(best)
        text += f". {name[0].upper() + name[1:]} is the fastest deterministic call"
        plain_ms = best.fastest_plain_ms
        if best.fastest_plain and plain_ms and best.det_ms:
            text += (f": turning it on costs {times(best.det_ms / plain_ms)} the fastest step without it "
                     f"({label(best.fastest_plain)}, {_ms(plain_ms)}){_det_clock(best)}")
    return text + "."


def _det_clock(d: advice_mod.Determinism) -> str:
    """The clocks behind an as-run ratio across two steps, and the ratio at equal clock (review item 21)."""
    dm, pm, at = getattr(d, "det_mhz", None), getattr(d, "plain_mhz", None), getattr(d, "plain_ratio_at_ref", None)
    if dm is None or pm is None or round(dm) == round(pm):
        return ""
    return f" as run ({dm:.0f} against {pm:.0f} MHz)" + (f", {times(at)} at equal clock" if at is not None else "")


PHASE_WORDS = {"prefill": "a new prompt length", "decode": "a decode step (the KV cache one token longer)"}


def lengths_line(a: advice_mod.Advice) -> str | None:
    """Where the decision runs cuDNN: what a new length costs (the set's dynamic-lengths runs) and what to do
    instead; where the set has none, that it was not measured."""
    x = a.lengths
    if x is None:
        return None
    if not x.measured:
        return ("Where lengths vary (prompts of many lengths, or decode with a growing KV cache), cuDNN plans each "
                "new shape on its first call: this set did not measure what that costs (it has no dynamic-lengths "
                "runs). Bucket or pad lengths to a few shapes, or measure the first call at new lengths before "
                "relying on the steady times.")
    costs = "; ".join(f"{PHASE_WORDS.get(ph, ph)}: {us(first)} more than its steady {us(steady)}"
                      for ph, first, steady in x.phases)
    text = (f"Where lengths vary, {label(x.variant)}'s first call at each new shape costs more (the set's "
            f"dynamic-lengths runs, median over lengths): {costs}. Bucket or pad lengths to a few shapes so each "
            "plan is reused")
    if x.instead:
        text += ", or call " + "; ".join(
            f"{label(v)} in {ph}, which costs less in all than the steady fastest below "
            f"{calls:,.0f}" if calls >= 10 else f"{label(v)} in {ph}, which costs less in all than the steady fastest "
            f"below {calls:.1f}" for ph, v, calls in x.instead)
        text += " calls per length" if len(x.instead) == 1 else " calls per length respectively"
    text += "."
    if x.switch is not None:
        name, effect, detail = x.switch
        text += f" {name}=1: {effect or 'not measured'}" + (f" ({detail})" if detail else "") + "."
        if x.switch_steady is not None:
            text += wording_dynamic.steady_change(*x.switch_steady)
    return text


def _det_name(d: advice_mod.Determinism) -> str:
    """A deterministic call by its SDPA backend, or by its variant where it pins none (never "an unnamed
    backend")."""
    if d.backend:
        return backend(d.backend)
    return label(d.base or d.variant)


def _sum_mark(method: str | None) -> str:
    """A GPU-only time that is a kernel sum (no CUDA graph could be captured) says so where it meets a graph's."""
    return " (kernel sum)" if method == "kernel_sum" else ""


def _ms(x: float | None) -> str:
    return us(x) if x is not None else "–"


def _host(a: advice_mod.Advice) -> str | None:
    if a.host_outcome not in (rules.YES, rules.WITHIN_NOISE) or a.host_ratio is None:
        return None
    # The first screen's short form of the verdict's host line: what this host saw, and the crossover.
    text = ("In short calls at the article's shape, "
            f"{on_this_host(a.host_ratio, a.host_ratio_ci, a.host_cost_ms, a.host_gpu_ms)}")
    cross = None if host_not_the_gap(a.host_ratio, a.host_ratio_ci, a.host_cost_ms, a.host_gpu_ms) else \
        host_crossover(a.host_gpu_ms, a.host_cost_ms, a.host_ref_ms)
    return text + (f": {cross}" if cross else "") + "."


def _loops(a: advice_mod.Advice) -> str | None:
    """Where else a loop of the default call clearly waited for the host (decode's short calls)."""
    if not a.loops:
        return None
    outcome = {rules.YES: "host-bound", rules.WITHIN_NOISE: "host-bound on this host",
               rules.NO: "not host-bound by the host's own cost"}
    parts = [f"{SCENARIO_WORDS.get(sc, sc)}, {r:.2f}× its GPU-only time (at least {lo:.2f}×; "
             f"{outcome.get(o, 'undecided')})" for sc, r, (lo, _), o in a.loops]
    return f"A loop also waited in {'; '.join(parts)}."


def advice(a: advice_mod.Advice) -> AdviceWords:
    """The first screen: the decision and its reason, then one sentence per exception, start-up, host."""
    decision = f"{_place(a)}: {_default_call(a)}."
    picks = _picks(a)
    if picks:
        decision += " " + picks
    dense = [i for i, e in enumerate(a.exceptions) if e.dense_mask and e.pairs_scored and e.pairs_needed]
    lines = [_exception(a, e, told=bool(dense) and i != dense[0] and i in dense) for i, e in enumerate(a.exceptions)]
    # The loop lines share one paragraph: the first screen must end above the fold.
    loop = " ".join(x for x in (_host(a), _loops(a)) if x) or None
    if loop:
        loop += " A CUDA graph, or more work per call, keeps the GPU fed."
    for extra in (behind_line(a), _determinism(a), lengths_line(a), _startup(a), loop):
        if extra:
            lines.append(extra)
    if a.device != "cuda":
        lines.append("Ranked by wall time on the host: this set has no GPU.")
    return AdviceWords(decision, tuple(lines), a.default)




# --------------------------------------------------------------------------- lessons


@dataclass(frozen=True)
class LessonWords:
    key: str
    title: str
    text: str
    kernels: tuple[lessons.KernelRef, ...] = ()  # rows the text refers to


def _rows(refs) -> str:
    return ", ".join(f"#{r.index}" for r in refs)


def hidden_copy(x: lessons.HiddenCopy) -> LessonWords:
    if x.copies:
        c = x.copies[0]
        text = (f"Out-of-place masked_fill copies the scores before it fills them: a {c.short_name} of "
                f"{us(x.copy_us / 1000)} under {x.op_path} (row {_rows(x.copies)}), {x.copy_share_pct:.1f}% of the "
                f"call's GPU events.")
    else:
        text = "No memory copy under masked_fill in this set: the hidden copy the article found does not appear."
    if x.inplace_events is not None:
        text += (f" The in-place masked_fill_ launches {'no copy' if x.inplace_memcpys == 0 else 'a copy too'}: "
                 f"{x.inplace_events} GPU events instead of {x.events}")
        if x.saved_ms is not None:
            text += (f", and {us(x.saved_ms)} ({x.saved_pct:.1f}%) less GPU-only time a call "
                     + ("(the 95% intervals of the two medians do not overlap)" if x.settled else
                        "(within noise: the intervals of the two medians overlap)"))
        text += "."
    if x.train_copies:
        c = x.train_copies[0]
        text += (f" The saving is the forward's: in training the in-place variant still copies, because autograd's "
                 f"backward of masked_fill_ is an out-of-place masked_fill ({x.train_op_path}): a {c.short_name} of "
                 f"{us(sum(r.dur_us for r in x.train_copies) / 1000)} in each training step "
                 f"(row {_rows(x.train_copies)} "
                 "of its step).")
    a = lessons.article_figures()
    if a.naive_events and a.inplace_events:
        text += (f" {ARTICLE_SHORT[0].upper()}{ARTICLE_SHORT[1:]} found the same copy: {a.naive_events} GPU events, "
                 f"{a.inplace_events} in place.")
    return LessonWords("hidden_copy", "The hidden copy of masked_fill", text, x.copies + x.train_copies)


def math_backend(x: lessons.MathBackend) -> LessonWords:
    f32_gemms = len(x.off_tensor_cores)
    text = (f"The math backend is PyTorch's reference path: {x.events} GPU events"
            + (f", {times(x.slowdown)} the in-place naive call's GPU-only time" if x.slowdown else "")
            + (f" (the article: {times(lessons.article_figures().math_over_inplace)} on its A100)"
               if x.slowdown and lessons.article_figures().math_over_inplace else "") + ". "
            f"Float32: {x.float32_share_pct:.0f}% of its GPU time runs on float32 tensors; "
            f"{len(x.upcasts)} conversion kernels move data between bf16 and float32. ")
    if f32_gemms:
        pipe = (f"; Nsight Compute measured the tensor pipes busy {x.gemm_tensor_pipe_pct:.2f}% of their time"
                if x.gemm_tensor_pipe_pct is not None else "")
        text += (f"Its {f32_gemms} matrix products, {x.gemm_share_pct:.0f}% of the call, run in float32 on the CUDA "
                 f"cores (ffma in their names, cuBLAS kernels compiled for "
                 f"{_join(sorted({arch_name(kernel_names.arch(r.short_name)) for r in x.off_tensor_cores}))}{pipe}): "
                 "float32 arithmetic off the tensor cores, not the architecture their names carry, is what makes "
                 "them slow. ")
    build = sum(r.dur_us for r in x.mask_build)
    apply = sum(r.dur_us for r in x.mask_apply)
    ops = _join(dict.fromkeys(r.launched_by for r in x.mask_build))
    text += (f"The causal mask is built again in every call ({len(x.mask_build)} kernels from {ops}, "
             f"{us(build / 1000)}, rows {_rows(x.mask_build)})")
    if x.mask_apply:
        text += (f" and added to the scores as a float32 bias by aten::add_ ({us(apply / 1000)}, "
                 f"row {_rows(x.mask_apply)})")
    safe = sum(r.dur_us for r in x.safe_softmax)
    sops = _join(dict.fromkeys(r.launched_by for r in x.safe_softmax))
    text += (f". _safe_softmax, which keeps fully masked rows from turning into NaN, adds {len(x.safe_softmax)} "
             f"kernels around the softmax ({sops}; rows {_rows(x.safe_softmax)}): {us(safe / 1000)}, "
             f"{x.safe_softmax_share_pct:.1f}% of the call, against {us(x.softmax_us / 1000)} for the softmax itself.")
    return LessonWords("math_reference", "Why the math backend is slow", text,
                       x.upcasts + x.mask_build + x.mask_apply + x.safe_softmax)


FIELD_MEANING = {
    "op": lambda v: v,
    "library": lambda v: {"cutlass": "built with NVIDIA's CUTLASS templates", "cudnn": "generated by cuDNN"}.get(v, v),
    "direction": lambda v: f"the {v} pass",
    "dtype": lambda v: {"bf16": "bfloat16 inputs, no upcast", "f16": "16-bit floating point (the name says f16)",
                        "f32": "float32"}.get(v, v),
    "alignment": lambda v: "inputs meet the kernel's memory alignment, so it loads whole vectors" if v else
    "inputs not aligned: a slower loading path",
    "tile": lambda v: "a tile of " + "×".join(map(str, v)) + (" (queries × keys a block works on)" if len(v) == 2
                                                              else " (the engine's tile shape)"),
    "accumulator": lambda v: "the output accumulator stays in the register file, the fastest storage there is",
    "arch": lambda v: f"compiled for {arch_name(v)}",
    "instruction": lambda v: {"wgmma": "Hopper's warpgroup matrix-multiply instructions",
                              "wmma": "warp-level matrix-multiply instructions", "ffma": "float32 fused multiply-add "
                              "on the CUDA cores, not the tensor cores"}.get(v, v),
    "knob": lambda v: f"engine knob {v}, chosen for this problem",
    "warps": lambda v: f"{v} warps a block",
    "layout": lambda v: "×".join(map(str, v)) + ", an engine layout parameter cuDNN does not document",
    "cluster": lambda v: "a thread-block cluster of " + "×".join(map(str, v)),
    "algorithm": lambda v: f"the {v}-attention algorithm",
    "head_dim": lambda v: f"head dimension {v}",
    "block_m": lambda v: f"{v} query rows a block",
    "block_n": lambda v: f"{v} key rows a step",
}


def decoded(d: kernel_names.DecodedName) -> list[tuple[str, str]]:
    """(token, meaning) per field of a decoded kernel name."""
    return [(f.token, FIELD_MEANING.get(f.kind, lambda v: str(v))(f.value)) for f in d.fields
            if not (f.kind == "direction" and f.token == "F")]


def efficient_kernel(x: lessons.EfficientKernel) -> LessonWords:
    parts = "; ".join(f"{tok}: {meaning}" for tok, meaning in decoded(x.decoded))
    text = f"The memory-efficient backend runs one kernel, {x.kernel.short_name}. Its name, field by field: {parts}."
    if x.decoded.arch is not None and x.gpu_arch is not None and x.decoded.arch < x.gpu_arch:
        text += (f" This GPU is {arch_name(x.gpu_arch)}, but the kernel is written for {arch_name(x.decoded.arch)}: "
                 "warp-level matrix instructions, none of Hopper's wgmma." if x.gpu_arch >= 90 else
                 f" This GPU is {arch_name(x.gpu_arch)}; the kernel is written for {arch_name(x.decoded.arch)}.")
    return LessonWords("efficient_fused", "The efficient kernel's name, decoded", text, (x.kernel,))


def _kib(b: float) -> str:
    return f"{b / 1024:.0f} KiB" if b < 2**20 else f"{b / 2**20:.0f} MiB"


def _occupancy_clause(x: lessons.FlashOccupancy) -> str:
    text = (f"Flash runs at {x.reported_pct:.0f}% occupancy by the profiler's estimate" if x.reported_pct is not None
            else "The profiler gave no occupancy for flash")
    if x.theoretical_pct is not None:
        text += (f" ({x.theoretical_pct:.1f}% by CUDA's occupancy calculation): {x.threads} threads a block at "
                 f"{x.registers} registers a thread leave room for {x.blocks_per_sm} blocks an SM, so "
                 f"{x.limiter} set the limit")
        other = {k: n for k, n in (x.limits or {}).items() if k != x.limiter}
        if "shared memory" in other and x.shared_memory:
            text += f" (its {_kib(x.shared_memory)} of shared memory a block would allow {other['shared memory']})"
    return text + "."


def _on_chip_clause(x: lessons.FlashOccupancy) -> str:
    text = " That is a trade, not waste: "
    if x.block_m and x.block_n:
        text += (f"each block keeps a {x.block_m}-query tile of Q, its {x.block_m}×{x.block_n} score tile and the "
                 f"running softmax state on chip ({_kib(x.register_bytes or 0)} of registers and "
                 f"{_kib(x.shared_memory or 0)} of shared memory a block) while {x.block_n}-key tiles of K and V "
                 "stream through")
    else:
        text += "each block keeps its tiles and the running softmax state in registers and shared memory"
    if x.score_matrix_bytes:
        text += (f", so the {_kib(x.score_matrix_bytes)} score matrix a naive call writes to memory never leaves "
                 "the chip")
    text += "."
    if x.tflops:
        text += f" Measured: {x.tflops:.0f} TFLOP/s ({flops.FLOP_CONVENTION})"
        if x.ceiling_tflops:
            text += (f", {100 * x.tflops / x.ceiling_tflops:.0f}% of the {x.ceiling_tflops:.0f} TFLOP/s a large bf16 "
                     "matrix product reached on this GPU (2·M·N·K)") + _ceiling_clock_clause(x)
        text += "."
    return text


def _ceiling_clock_clause(x: lessons.FlashOccupancy) -> str:
    """The ceiling's share at the call's own clock, where the two clocks differ (review item 7)."""
    at, cm, m = getattr(x, "ceiling_at_clock_tflops", None), getattr(x, "ceiling_mhz", None), \
        getattr(x, "sm_clock_mhz", None)
    if not at or not cm or not m or round(cm) == round(m):
        return ""
    return (f" at {cm:.0f} MHz (about {100 * x.tflops / at:.0f}% of it scaled to the {m:.0f} MHz this call "
            "ran at)")


def _counters_clause(c: dict | None) -> str:
    if not c:
        return " No Nsight Compute counters in this set: the occupancy above is the profiler's and CUDA's estimate."
    bits = []
    if c.get("achieved_occupancy_pct") is not None:
        bits.append(f"{c['achieved_occupancy_pct']:.1f}% achieved occupancy")
    if c.get("occupancy_limiter"):
        bits.append(f"limited by {c['occupancy_limiter']}")
    for key, what in (("sm_throughput_pct", "SM throughput"), ("dram_throughput_pct", "DRAM throughput"),
                      ("tensor_pipe_pct", "tensor pipe")):
        if c.get(key) is not None:
            bits.append(f"{what} {c[key]:.0f}%")
    if c.get("bound"):
        bits.append(f"{wording.BOUND_SHORT.get(c['bound'], c['bound'])} by Nsight Compute's line")
    return " Nsight Compute measured: " + ", ".join(bits) + "."


def flash_occupancy(x: lessons.FlashOccupancy) -> LessonWords:
    text = _occupancy_clause(x) + _on_chip_clause(x) + _counters_clause(x.counters)
    shown = lessons.article_figures().flash_occupancy_pct
    if shown is not None:
        text += f" {ARTICLE_SHORT[0].upper()}{ARTICLE_SHORT[1:]} reported about {shown:.0f}% for its flash kernel."
    return LessonWords("flash_on_chip", "Flash's low occupancy, by design", text, (x.kernel,))


def _s(x: float) -> str:
    return f"{x:.2f} s" if x >= 0.1 else f"{x * 1000:.1f} ms"


def _first_calls(x: lessons.CudnnCosts) -> str:
    """The first calls as the set recorded them: the process's first cuDNN call, the same problem again,
    a new problem (the first training step), new shapes where the set records first calls per point."""
    if x.first_call_s is None:
        return ""
    others = [v for v in x.others_first_call_s if x.others_first_call_s[v] is not None]
    against = (" against " + _join(f"{_s(x.others_first_call_s[v])} for {label(v)}" for v in others)) if others else ""
    if x.first_in_process:
        text = (f"Its first forward was the first cuDNN call of the capture's process and took {_s(x.first_call_s)}"
                f"{against}: it holds loading cuDNN and creating its handle as well as setting up this problem, "
                "which one timing cannot separate.")
    else:
        text = f"Its first forward took {_s(x.first_call_s)}{against}."
    if x.same_problem_first_s:
        text += (" " + _join(f"{label(v)}, calling cuDNN on the same problem afterwards, took {_s(t)}"
                             for v, t in x.same_problem_first_s.items())
                 + " on its first call: the setup is kept for the process.")
    if x.train_first_call_s is not None and x.first_in_process:
        tr = [v for v in x.others_train_first_call_s if x.others_train_first_call_s[v] is not None]
        text += (f" Its first training step, new problems for cuDNN (the backward) in a process where cuDNN was "
                 f"already loaded, took {_s(x.train_first_call_s)}"
                 + (" against " + _join(f"{_s(x.others_train_first_call_s[v])} for {label(v)}" for v in tr)
                    if tr else ""))
        text += (": a new problem pays a setup again." if x.new_problem_cost else
                 ": no setup cost of its own shows there." if x.new_problem_cost is False else ".")
    if x.new_shape_first_call_s:
        text += (" At new shapes of the forward, its first calls took "
                 + _join(f"{_s(t)} (KV {n:,})" for n, t in sorted(x.new_shape_first_call_s.items())) + ".")
    else:
        text += " What a new shape of the forward costs, this set does not record (no first call per sweep point)."
    return text


def cudnn_costs(x: lessons.CudnnCosts) -> LessonWords:
    text = _first_calls(x)
    if x.host_ms is not None:
        hs = [v for v in x.others_host_ms if x.others_host_ms[v] is not None]
        text += f" Each later call costs {us(x.host_ms)} of host dispatch"
        if hs:
            text += " against " + _join(f"{us(x.others_host_ms[v])} ({label(v)})" for v in hs)
        text += "."
    text += f" Its kernel is launched with {x.launch_api}"
    if x.reported_pct is not None and x.reported_pct == 0 and rules.estimate_blind(x.shared_memory):
        text += (f"; the profiler shows {x.reported_pct:.0f}% occupancy because the kernel uses "
                 f"{x.shared_memory // 1024} KiB of shared memory a block, more than the "
                 f"{rules.SMEM_DEFAULT_LIMIT // 1024} KiB its estimate allows, not because of the launch API")
    text += "."
    tp = {v: n for v, n in x.transposes.items() if n is not None}
    if x.variant in tp:
        rest = {v: n for v, n in tp.items() if v != x.variant}
        text += f" Transposes: {tp[x.variant]} transpose op{'s' if tp[x.variant] != 1 else ''} in its call"
        if rest:
            text += " against " + _join(f"{n} for {label(v)}" for v, n in rest.items())
        text += "."
    if x.memsets:
        text += (f" It clears a buffer with a {us(x.memsets[0].dur_us / 1000)} {x.memsets[0].short_name} first "
                 f"(row {_rows(x.memsets)}).")
    if x.arch is not None:
        p = kernel_names.path(x.name, (x.grid_blocks,) if x.grid_blocks else None, x.sm_count)
        text += f" From its name and launch: {kernel_path(p)}"
        if p.persistent and x.threads:
            text += f": {x.grid_blocks} blocks of {x.threads} threads on {x.sm_count} SMs"
        text += "."
    return LessonWords("cudnn_planning", "cuDNN: a one-time setup per problem, paid on the host", text,
                       (x.kernel, *x.memsets))


LESSON_WORDERS = {lessons.HiddenCopy: hidden_copy, lessons.MathBackend: math_backend,
                  lessons.EfficientKernel: efficient_kernel, lessons.FlashOccupancy: flash_occupancy,
                  lessons.CudnnCosts: cudnn_costs}


def lesson(fact) -> LessonWords:
    return LESSON_WORDERS[type(fact)](fact)


CLAIMS = {
    "hidden_copy": "out-of-place masked_fill launches a copy nobody asked for",
    "copy_removed": "masked_fill_ in place removes that copy from the forward, one GPU event fewer",
    "math_reference": "the math backend is the slow reference: float32, the mask rebuilt, safe softmax",
    "efficient_fused": "the efficient backend is one fused kernel on the tensor cores",
    "flash_fastest": "flash is the fastest backend",
    "flash_on_chip": "flash's low occupancy is a deliberate trade for on-chip memory",
    "cudnn_planning": "cuDNN pays a one-time setup on the host for each new problem (the article: it generates a "
                      "kernel per problem)",
}


HOLDS = {True: "holds", False: "does not hold", None: "cannot tell"}


def claim(c: lessons.Claim) -> str:
    verdict_ = {True: "holds here", False: "does not hold here", None: "cannot be checked here"}[c.holds]
    return f"The article's lesson, {CLAIMS.get(c.key, c.key)}: {verdict_}."


# --------------------------------------------------------------------------- contradictions


ITEMS = {"kernels": "kernels per forward", "copy_or_fill": "copy or fill", "tensor_cores": "tensor cores",
         "rank": "speed rank", "backend": "backend picked"}


def _yn(x) -> str:
    return ("yes" if x else "no") if isinstance(x, bool) else str(x)


# Which library issues a memset, by the op that launched it.
MEMSET_BY = {"aten::bmm": "cuBLAS", "aten::mm": "cuBLAS", "aten::addmm": "cuBLAS", "aten::baddbmm": "cuBLAS",
             "aten::_cudnn_attention_forward": "cuDNN"}


def explanation(e: lessons.Explanation) -> str:
    """What differs and why, for one contradicted item; the lesson's verdict apart."""
    shown = (backend(e.expected), backend(e.measured)) if e.item == "backend" else (_yn(e.expected), _yn(e.measured))
    head = f"{ITEMS.get(e.item, e.item)}: expected {shown[0]}, measured {shown[1]}"
    if e.cause == "memset":
        m = e.kernels[0] if e.kernels else None
        who = f" launched by {m.launched_by}" if m and m.launched_by else ""
        what = (f"a {us(m.dur_us / 1000)} {m.short_name}{who} (row {_rows(e.kernels)})" if m else "a memset")
        lib = MEMSET_BY.get(m.launched_by if m else "", "the library")
        why = (f"{what}, a memory fill {lib} issues before its kernel on this GPU, not a copy of the attention's "
               "data; the article's A100 trace showed no such event")
        if e.item == "kernels" and e.without is not None:
            why += f". Without it the count is {e.without}, as expected"
    elif e.cause == "backend":
        why = (f"PyTorch's own order on this GPU and version put {backend(e.measured)} first"
               + (f", though {backend(e.expected)} runs here when pinned" if e.expected_ran else "")
               + (f"; it runs the same kernel as {_join(label(x) for x, _ in e.faster)}" if e.faster else ""))
    elif e.cause in ("beaten", "ahead"):
        kernels = dict(e.main_kernels)

        def what(x, a) -> str:
            return kernel_path_short(kernel_names.path(kernels[x])) if kernels.get(x) else arch_name(a)

        why = (("ran slower than " if e.cause == "beaten" else "ran faster than ")
               + _join(f"{label(x)} ({what(x, a)})" for x, a in e.faster)
               + (", which the hypothesis ranked behind it" if e.cause == "beaten" else
                  ", which the hypothesis ranked ahead of it")
               + f"; its own main kernel: {what(e.variant, e.arch)}")
    elif e.cause == "off_tensor_cores":
        why = "off the tensor cores by name: " + _join(prose_kernel(k.short_name) for k in e.kernels)
    else:
        why = f"the GPU events differ: {len(e.kernels)} in all"
    stands = {True: " The article's lesson for this variant holds all the same.",
              False: " The article's lesson on this point does not hold here.", None: ""}[e.lesson_stands]
    return f"{head}: {why}.{stands}"


# --------------------------------------------------------------------------- comparability

DEFINITIONS = {
    "gpu_only_cuda_graph": "GPU-only time by CUDA-graph replay",
    "gpu_only_kernel_sum": "the GPU events of a profiled call added up",
    "published_cuda_time": "the CUDA time a profiler showed per call, as published",
    "host_dispatch": "host dispatch time with the GPU drained first",
    "published_cpu_time": "the profiler's CPU time per call, as published (the op's whole CPU time, not dispatch "
                          "alone)",
}


def issue(i: comparability.Issue) -> str:
    if i.kind == "shape":
        return (f"Different shapes: A measured {_point(i.a)}, B {_point(i.b)}. Times at different shapes are "
                "not comparable.")
    if i.kind == "dtype":
        return f"Different dtypes: A computed in {i.a}, B in {i.b}."
    if i.kind == "scenario":
        missing = _join(s for s, has in (("A", i.a), ("B", i.b)) if not has)
        return f"{missing} {'has' if ' and ' not in missing else 'have'} no data for the {i.quantity} scenario."
    if i.kind == "definition":
        q = {"gpu": "GPU time", "cpu": "CPU time"}[i.quantity]
        return (f"{q} is defined differently: A shows {DEFINITIONS.get(i.a, i.a)}, B "
                f"{DEFINITIONS.get(i.b, i.b)}. Their ratio mixes two quantities.")
    if i.kind == "noisy":
        parts = [f"in {side}, {noises(ns)}" for side, ns in (("A", i.a), ("B", i.b)) if ns]
        return "Noisy or thin timings: " + "; ".join(parts) + "."
    return i.kind


def point_label(p) -> str:
    """A point in a few words for a title: "batch 8 · 16 heads · 1024 tokens · head dim 64"."""
    if p is None:
        return ""
    heads = f"{p.q_heads} heads" if p.kv_heads == p.q_heads else f"{p.q_heads} query / {p.kv_heads} KV heads"
    length = f"{p.kv_len} tokens" if p.q_len == p.kv_len else f"{p.q_len} query × {p.kv_len} cached tokens"
    return f"batch {p.batch} · {heads} · {length} · head dim {p.head_dim}" + (f" · window {p.window}" if p.window
                                                                              else "")


def _point(p) -> str:
    s = f"batch {p.batch}, {p.q_heads} query heads"
    if p.kv_heads != p.q_heads:
        s += f" over {p.kv_heads} KV heads"
    s += f", {p.q_len} queries × {p.kv_len} keys, head dim {p.head_dim}, mask {p.mask}"
    return s + (f" (window {p.window})" if p.window else "")
