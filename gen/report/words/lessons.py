"""The article's lessons checked against a set (gen.analysis.lessons facts) -> `LessonWords`, the
claims' outcomes, and why a hypothesis' item was contradicted. The seed article is cited as ARTICLE;
no sentence of it is copied."""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import flops, kernel_names, kernel_rules, lessons
from gen.report.words import first_calls as first_call_words
from gen.report.words.common import backend, intervals, join_and, label, times, us
from gen.report.words.kernels import BOUND_SHORT, arch_name, decoded, kernel_path, kernel_path_short, prose_kernel

ARTICLE = 'the seed article ("Profiling in PyTorch (Part 3): Attention is all you profile", Hugging Face blog, ' \
    "July 2026), measured on an NVIDIA A100"


ARTICLE_SHORT = "the seed article (A100)"


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
                     + ("(by both kernel sums: one call's GPU-only time is a graph replay, the other's a kernel sum)"
                        if x.saved_by_sums else
                        f"(the {intervals(*x.units)} of the two medians do not overlap)" if x.settled else
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
                 f"{join_and(sorted({arch_name(kernel_names.arch(r.short_name)) for r in x.off_tensor_cores}))}"
                 f"{pipe}): "
                 "float32 arithmetic off the tensor cores, not the architecture their names carry, is what makes "
                 "them slow. ")
    build = sum(r.dur_us for r in x.mask_build)
    apply = sum(r.dur_us for r in x.mask_apply)
    ops = join_and(dict.fromkeys(r.launched_by for r in x.mask_build))
    text += (f"The causal mask is built again in every call ({len(x.mask_build)} kernels from {ops}, "
             f"{us(build / 1000)}, rows {_rows(x.mask_build)})")
    if x.mask_apply:
        text += (f" and added to the scores as a float32 bias by aten::add_ ({us(apply / 1000)}, "
                 f"row {_rows(x.mask_apply)})")
    safe = sum(r.dur_us for r in x.safe_softmax)
    sops = join_and(dict.fromkeys(r.launched_by for r in x.safe_softmax))
    text += (f". _safe_softmax, which keeps fully masked rows from turning into NaN, adds {len(x.safe_softmax)} "
             f"kernels around the softmax ({sops}; rows {_rows(x.safe_softmax)}): {us(safe / 1000)}, "
             f"{x.safe_softmax_share_pct:.1f}% of the call, against {us(x.softmax_us / 1000)} for the softmax itself.")
    return LessonWords("math_reference", "Why the math backend is slow", text,
                       x.upcasts + x.mask_build + x.mask_apply + x.safe_softmax)


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
        # the label, not the whole convention three brackets deep: the scaling page states it
        text += f" Measured: {x.tflops:.0f} TFLOP/s ({flops.FLOP_LABEL}; the whole count is on the scaling page)"
        if x.ceiling_tflops:
            text += (f", {100 * x.tflops / x.ceiling_tflops:.0f}% of the {x.ceiling_tflops:.0f} TFLOP/s a large bf16 "
                     "matrix product reached on this GPU (2·M·N·K)") + _ceiling_clock_clause(x)
        text += "."
    return text


def _ceiling_clock_clause(x: lessons.FlashOccupancy) -> str:
    """The ceiling's share at the call's own clock, where the two clocks differ."""
    at, cm, m = getattr(x, "ceiling_at_clock_tflops", None), getattr(x, "ceiling_mhz", None), \
        getattr(x, "sm_clock_mhz", None)
    if not at or not cm or not m or round(cm) == round(m):
        return ""
    return (f" at {cm:.0f} MHz (about {100 * x.tflops / at:.0f}% of it scaled to the {m:.0f} MHz this call "
            "ran at, a model: it assumes a product that runs at that clock under the power limit)")


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
        bits.append(f"{BOUND_SHORT.get(c['bound'], c['bound'])} by Nsight Compute's line")
    return " Nsight Compute measured: " + ", ".join(bits) + "."


def flash_occupancy(x: lessons.FlashOccupancy) -> LessonWords:
    text = _occupancy_clause(x) + _on_chip_clause(x) + _counters_clause(x.counters)
    shown = lessons.article_figures().flash_occupancy_pct
    if shown is not None:
        text += f" {ARTICLE_SHORT[0].upper()}{ARTICLE_SHORT[1:]} reported about {shown:.0f}% for its flash kernel."
    return LessonWords("flash_on_chip", "Flash's low occupancy, by design", text, (x.kernel,))


def _s(x: float) -> str:
    """A first call's time: seconds from 0.1 s, below that the report's one rule for a time (common.us), as the home
    gives the same first calls (363.4 µs, not 0.4 ms)."""
    return f"{x:.2f} s" if x >= 0.1 else us(x * 1000)


def _first_calls(x: lessons.CudnnCosts) -> str:
    """The first calls as the set recorded them: the process's first cuDNN call, the same problem again,
    a new problem (the first training step), new shapes where the set records first calls per point."""
    if x.first_call_s is None:
        return ""
    others = [v for v in x.others_first_call_s if x.others_first_call_s[v] is not None]
    against = (" against " + join_and(f"{_s(x.others_first_call_s[v])} for {label(v)}" for v in others)
               if others else "")
    if x.first_in_process:
        text = (f"Its first forward was the first cuDNN call of the capture's process and took {_s(x.first_call_s)}"
                f"{against}: it holds loading cuDNN and creating its handle as well as setting up this problem, "
                "which one timing cannot separate.")
    else:
        text = f"Its first forward took {_s(x.first_call_s)}{against}."
    if x.same_problem_first_s:
        text += (" " + join_and(f"{label(v)}, calling cuDNN on the same problem afterwards, took {_s(t)}"
                             for v, t in x.same_problem_first_s.items())
                 + " on its first call: the setup is kept for the process.")
    if x.train_first_call_s is not None and x.first_in_process:
        tr = [v for v in x.others_train_first_call_s if x.others_train_first_call_s[v] is not None]
        text += (f" Its first training step, new problems for cuDNN (the backward) in a process where cuDNN was "
                 f"already loaded, took {_s(x.train_first_call_s)}"
                 + (" against " + join_and(f"{_s(x.others_train_first_call_s[v])} for {label(v)}" for v in tr)
                    if tr else ""))
        text += (": a new problem pays a setup again." if x.new_problem_cost else
                 ": no setup cost of its own shows there." if x.new_problem_cost is False else ".")
    if split := first_call_words.sweep_split(x.first_calls):
        text += " " + split
    else:
        text += " What a new shape of the forward costs, this set does not record (no first call per sweep point)."
    return text


def cudnn_costs(x: lessons.CudnnCosts) -> LessonWords:
    text = _first_calls(x)
    if x.host_ms is not None:
        hs = [v for v in x.others_host_ms if x.others_host_ms[v] is not None]
        text += f" Each later call costs {us(x.host_ms)} of host dispatch"
        if hs:
            text += " against " + join_and(f"{us(x.others_host_ms[v])} ({label(v)})" for v in hs)
        text += "."
    text += f" Its kernel is launched with {x.launch_api}"
    if x.reported_pct is not None and x.reported_pct == 0 and kernel_rules.estimate_blind(x.shared_memory):
        text += (f"; the profiler shows {x.reported_pct:.0f}% occupancy because the kernel uses "
                 f"{x.shared_memory // 1024} KiB of shared memory a block, more than the "
                 f"{kernel_rules.SMEM_DEFAULT_LIMIT // 1024} KiB its estimate allows, not because of the launch API")
    text += "."
    tp = {v: n for v, n in x.transposes.items() if n is not None}
    if x.variant in tp:
        rest = {v: n for v, n in tp.items() if v != x.variant}
        text += f" Transposes: {tp[x.variant]} transpose op{'s' if tp[x.variant] != 1 else ''} in its call"
        if rest:
            text += " against " + join_and(f"{n} for {label(v)}" for v, n in rest.items())
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
               + (f"; it runs the same kernel as {join_and(label(x) for x, _ in e.faster)}" if e.faster else ""))
    elif e.cause in ("beaten", "ahead"):
        kernels = dict(e.main_kernels)

        def what(x, a) -> str:
            return kernel_path_short(kernel_names.path(kernels[x])) if kernels.get(x) else arch_name(a)

        why = (("ran slower than " if e.cause == "beaten" else "ran faster than ")
               + join_and(f"{label(x)} ({what(x, a)})" for x, a in e.faster)
               + (", which the hypothesis ranked behind it" if e.cause == "beaten" else
                  ", which the hypothesis ranked ahead of it")
               + f"; its own main kernel: {what(e.variant, e.arch)}")
    elif e.cause == "off_tensor_cores":
        why = "off the tensor cores by name: " + join_and(prose_kernel(k.short_name) for k in e.kernels)
    else:
        why = f"the GPU events differ: {len(e.kernels)} in all"
    stands = {True: " The article's lesson for this variant holds all the same.",
              False: " The article's lesson on this point does not hold here.", None: ""}[e.lesson_stands]
    return f"{head}: {why}.{stands}"
