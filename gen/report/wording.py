"""Wording: facts from analysis -> the sentences a reader sees. The one place that words them.

Takes: `findings.Finding`s, hypothesis rows, occupancy facts and the constants
of gen.analysis.rules. Gives: `finding(f) -> Words` (a title, a short line and
the full text, built from the same clauses so they cannot disagree), the
group titles and notes of the Findings page, and the sentences that state a
rule (host-bound, tensor cores), quoted from gen.analysis.rules. Plain text:
pages escape it where they show it.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass

from gen.analysis import rules
from gen.analysis.findings import Finding, FindingKind
from gen.analysis.values import missing


@dataclass(frozen=True)
class Words:
    title: str
    short: str  # one line with the numbers, for the Findings page
    text: str  # the same in full, with the why


# --------------------------------------------------------------------------- numbers in words


def us(x: float) -> str:
    """A duration in µs, or in ms from 1000 µs on."""
    return f"{x:.1f} µs" if x < 1000 else f"{x / 1000:.3f} ms"


def times(x: float, digits: int = 2) -> str:
    """A ratio: "1.23×"."""
    return f"{x:.{digits}f}×"


def pct(x: float, digits: int = 0) -> str:
    return f"{x:.{digits}f}%"


def call_of(mode: str) -> str:
    """What one timed call is in a mode."""
    return "forward" if mode == "inference" else "training step"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# --------------------------------------------------------------------------- rules, stated once

# The condition of rules.host_bound_outcome, as a "when" clause: "A call is host-bound when ...".
HOST_BOUND_RULE = (
    f"a Python loop sees at least {rules.HOST_BOUND_EAGER_RATIO:.2f}× its GPU-only time per call (its eager time "
    f"over its GPU-only time, the 95% intervals of both medians clear of the line: the GPU then sits idle for at "
    f"least {100 * (1 - 1 / rules.HOST_BOUND_EAGER_RATIO):.0f}% of each call, waiting for the host's next launch) "
    f"and the host's own cost of a call (its dispatch with the GPU drained, at the "
    f"{rules.HOST_COST_QUANTILE}th percentile of its samples) is at least {rules.HOST_YES_MARGIN:g}× the GPU-only "
    f"time. It is not host-bound when the loop stays under {rules.HOST_BOUND_EAGER_RATIO:.2f}× and the GPU-only "
    f"time is at least {rules.HOST_HEADROOM:g}× the host's cost, or whenever it is at least {rules.HOST_CLEAR:.0f}× "
    f"that cost (the last only where the loop's interval straddles its line); otherwise it is within noise: whether "
    f"a loop waits depends on the host that day (a call's host cost moves far more between captures than its "
    f"GPU-only time). Calls that run the same kernels share one outcome")
HOST_BOUND_CONSEQUENCE = ("the GPU waits for the host's launches: its eager time measures mostly how fast the host "
                          "dispatches, while its GPU-only time still measures the kernels")


def host_speed(median_ms: float, p10_ms: float, p90_ms: float, n: int) -> str:
    """The capture's host speed (timings.HostReference) beside its host-bound outcomes, which are this host's."""
    return (f"Host-bound outcomes belong to this capture's host as well as to its GPU. The host's speed: a "
            f"reference call (a one-element add, its dispatch host-timed with the GPU drained, in the calls' own "
            f"context, a few calls after every round's host window, the first of each few left out as cold) took "
            f"{us(median_ms * 1e3)} (median of {n:,}; 10th–90th percentile {us(p10_ms * 1e3)}–{us(p90_ms * 1e3)}). "
            f"A call whose host cost is near its GPU-only time can keep the GPU waiting behind a slower host and "
            f"not behind a faster one: compare sets' host-bound outcomes beside their hosts' speeds.")


def markers(names) -> str:
    """Regex markers as a reader sees them: `_s\\d+gemm` -> `_sNNgemm`."""
    return ", ".join(f"`{m.replace(chr(92) + 'd+', 'NN')}`" for m in names)


TENSOR_CORE_RULE = (
    "a matrix product or fused attention kernel whose name says float32 math ("
    + markers(rules.OFF_TENSOR_CORE_MARKERS) + ") is counted off the tensor cores; one whose name carries a 16-bit "
    "type or a matrix-unit marker (" + markers(rules.ON_TENSOR_CORE_MARKERS) + ") on them; any other is undecided")
NOISE_RULE = (f"above {rules.NOISY_IQR_PCT:.0f}% a timing is marked noisy (torch.utils.benchmark warns at the "
              "same line)")
AUTOGRAD_CLAIM = "in-place ops are unsafe for training"
AUTOGRAD_WHY_MATCH = (
    "masked_fill_ overwrites the output of `scores * scale`; the backward of a multiplication by a Python number "
    "needs no saved tensor, and softmax's backward saves its own output, so autograd's version counter finds "
    "nothing it needs overwritten")

# Kinds in the order the Findings page groups them, with the group's heading.
KIND_TITLES: dict[FindingKind, str] = {
    FindingKind.COPY: "Copies and fills",
    FindingKind.PRECISION: "float32 in a 16-bit model",
    FindingKind.MASK: "Causal mask rebuilt every forward",
    FindingKind.OCCUPANCY: "Occupancy the profiler shows as 0%",
    FindingKind.COUNTERS: "Hardware counters of the main kernels",
    FindingKind.BACKEND: "Backend choice",
    FindingKind.SPEED: "Fastest",
    FindingKind.HOST: "GPU waiting on the host",
    FindingKind.CONSISTENCY: "Kernel counts",
    FindingKind.AUTOGRAD: "Training: in-place autograd",
    FindingKind.COMPILE: "Compile time",
    FindingKind.ANOMALY: "Timings the set itself contradicts",
}
# Why the profiler's occupancy estimate reads 0% for a kernel over the default shared memory (rules.estimate_blind).
ESTIMATE_BLIND = (
    f"The profiler's estimate runs CUDA's occupancy calculator without the kernel's opt-in to more than "
    f"{rules.SMEM_DEFAULT_LIMIT // 1024} KiB of shared memory a block, so any kernel that uses more fits no block "
    "by that calculation and reads 0%, whatever API launched it: a failed estimate, not an idle GPU")
# What a group's findings have in common, said once above them on the Findings page.
KIND_NOTES: dict[FindingKind, str] = {
    FindingKind.OCCUPANCY: "The profiler reported 0% or no occupancy for these kernels. " + ESTIMATE_BLIND + ". A "
                           "kernel whose grid has fewer blocks than the GPU has SMs reads near 0% rightly: most SMs "
                           "get no work.",
    FindingKind.COUNTERS: "Nsight Compute's measurements of each variant's longest kernel, in one warm call: "
                          "achieved occupancy against the profiler's estimate, what limits the theoretical "
                          "occupancy, and whether the SMs or DRAM bound it.",
    FindingKind.HOST: "Calls bound by the host, by the report's host-bound rule (the Methodology states it "
                      "once): a Python loop waits on the host, and the host's own cost of a call exceeds the "
                      "GPU's time.",
    FindingKind.PRECISION: "Kernels whose launching op was given float32 tensors and no 16-bit one, or matrix "
                           "products with f32 in their name.",
    FindingKind.ANOMALY: "Figures a table shows that the same set's samples or traces say not to read at face value: "
                         f"calls {rules.SPLIT_RATIO:.0f}× apart in one timing, fewer than {rules.MIN_SAMPLES} samples, "
                         f"compiled code {rules.COMPILED_SLOWER_RATIO:.0f}× slower than the module it compiles, a "
                         f"training step {rules.TRAIN_OVER_FORWARD_RATIO:.0f}× its forward.",
}
# Kinds whose findings name no variant on the Findings page: the line itself says which.
KINDS_WITHOUT_VARIANT = frozenset({FindingKind.SPEED, FindingKind.AUTOGRAD, FindingKind.COMPILE, FindingKind.ANOMALY})


# --------------------------------------------------------------------------- findings


def _copy(f: Finding) -> Words:
    x = f.facts
    kind, op, n = x["event_kind"], x["op"] or "no op", x["n"]
    what, whats = {"memcpy": ("memory copy", "memory copies"), "memset": ("memory fill", "memory fills")}.get(
        kind, (None, f"{kind}s"))
    names = ", ".join(x["names"])
    cost = f"{us(x['dur_us'])}, {pct(100 * x['dur_us'] / x['total_us'], 1)} of the forward's {us(x['total_us'])}"
    text = (f"In each forward of {f.variant}, {n} {what or kind + ' doing a copy or fill'} event(s) ({names}) "
            f"launched by {op}, under {' | '.join(x['paths'])}: {cost} of GPU time. "
            + ("The hypothesis expected copies or fills in this variant." if x["expected"] else
               "The hypothesis expected none in this variant."))
    short = (f"{n} {(whats if n > 1 else what or kind)} ({names}) from {op}: {us(x['dur_us'])}, "
             f"{pct(100 * x['dur_us'] / x['total_us'], 1)} of GPU time; "
             + ("expected" if x["expected"] else "the hypothesis expected none"))
    return Words(f"{f.variant}: {n} {kind} from {op}", short, text)


def _precision(f: Finding) -> Words:
    x = f.facts
    share = pct(100 * x["dur_us"] / x["total_us"])
    text = (f"{x['n']} of the {x['events']} GPU events of a {f.variant} forward compute in float32 in this "
            f"{x['dtype']} set: {us(x['dur_us'])}, {share} of its GPU time.")
    short = f"{x['n']} of {x['events']} GPU events in float32: {us(x['dur_us'])}, {share} of GPU time"
    if x["gemms"]:
        text += (f" Its matrix products among them ({', '.join(x['gemms'])}) are float32 kernels, which the "
                 "tensor-core rule counts off the tensor cores.")
        short += f"; {len(x['gemms'])} of them matrix products (off the tensor cores)"
    if x["conversions"]:
        text += (f" {x['conversions']} more kernel(s) convert between {x['dtype']} and float32 "
                 "(aten::copy_ under aten::to).")
        short += f"; {x['conversions']} conversion kernel(s) to and from float32"
    return Words(f"{f.variant}: {x['n']} kernels in float32 in a {x['dtype']} model", short, text)


def _mask(f: Finding) -> Words:
    x = f.facts
    short = f"{x['n']} kernel(s) from {', '.join(x['ops'])}: {us(x['dur_us'])} a forward"
    text = (f"{f.variant} builds the causal mask again in every forward: {short}. A mask built once and kept, or "
            "a kernel that applies causality itself, would not pay this.")
    return Words(f"{f.variant}: the causal mask is rebuilt in every forward", short, text)


def _kib(n: int) -> str:
    return f"{n / 1024:.0f} KiB"


def _occupancy(f: Finding) -> Words:
    x = f.facts
    apis = " and ".join(x["apis"]) or "an unknown API"
    names = ", ".join(x["names"])
    head = (f"The profiler reported 0% or no occupancy for {plural(x['n'], 'kernel')} of a {f.variant} forward "
            f"({names}, launched with {apis}; {us(x['dur_us'])} in all)")
    if x["cause"] == "shared_memory":
        smem = sorted(set(x["shared_memory"]))
        used = " and ".join(_kib(m) for m in smem)
        title = f"{f.variant}: no occupancy estimate ({used} of shared memory a block)"
        short = f"{plural(x['n'], 'kernel')} using {used} of shared memory a block: the estimate reads 0%"
        text = (f"{head}. {'It uses' if x['n'] == 1 else 'They use'} {used} of shared memory a block, more than the "
                f"{_kib(x['smem_limit'])} the profiler's estimate allows a block (it leaves the kernel's opt-in to "
                "more at zero), so the estimate fits no block and reads 0%: a failed estimate, not an idle GPU.")
    elif x["cause"] == "small_grid":
        grids = ", ".join(map(str, x["small_grids"]))
        title = f"{f.variant}: near-zero occupancy from grids smaller than the GPU"
        short = f"{plural(x['n'], 'kernel')} with grids of {grids} block(s) for {x['sm_count']} SMs"
        text = (f"{head}. Their grids have {grids} block(s) for {x['sm_count']} SMs: the estimate is right in "
                "kind, most SMs get no work from these kernels.")
    else:
        title = f"{f.variant}: no occupancy estimate"
        short = f"{plural(x['n'], 'kernel')} with no occupancy estimate"
        text = (f"{head}. They fit the estimate's shared-memory limit and fill the GPU's SMs, so the trace gives "
                "no reason for it.")
    if x.get("measured"):
        lo, hi = min(x["measured"]), max(x["measured"])
        got = pct(lo, 1) if lo == hi else f"{pct(lo, 1)}–{pct(hi, 1)}"
        text += f" Nsight Compute measured {got} achieved occupancy for them."
        short += f"; measured {got} (Nsight Compute)"
    return Words(title, short, text)


def _counters(f: Finding) -> Words:
    x = f.facts
    if "absent" in x:
        why = counters_absent(x["absent"], x["reason"])
        return Words("No hardware counters in this set", why, why[0].upper() + why[1:] + ".")
    said = kernel_facts(x["counters"], fused_attention=x["category"] == "fused attention")
    bound = next((c["kind"] for c in x["counters"] if c["fact"] == "bound"), None)
    clauses = [kernel_fact(c, fused_attention=x["category"] == "fused attention") for c in x["counters"]
               if c["fact"] in ("estimate_vs_measured", "occupancy_limit")]
    short = f"{x['kernel']} ({us(x['dur_us'])})" + (f": {BOUND_SHORT[bound]}" if bound else "") + "".join(
        f"; {c}" for c in clauses)
    text = f"The longest kernel of a {f.variant} forward, {x['kernel']} ({us(x['dur_us'])}). " + (
        said or "Its counters show nothing beyond the kernel table.")
    if x["mismatches"]:
        text += f" {plural(x['mismatches'], 'kernel')} of this forward did not pair with Nsight Compute's by name."
    return Words(f"{f.variant}: {x['kernel']}" + (f", {BOUND_SHORT[bound]}" if bound else ""), short, text)


def _speed(f: Finding) -> Words:
    x = f.facts
    how = "published" if x["published"] else "median"
    what = {"gpu": "GPU time", "gpu_only": "GPU-only time", "eager": "eager per-call time"}.get(
        x["basis"], "wall time on the host")
    text = f"{f.variant} is the fastest variant of this set by {how} {what}: {x['ms']:.4f} ms a forward"
    short = f"{f.variant}: {x['ms']:.4f} ms a forward ({how} {what})"
    if x["published"]:
        text += f" (a figure published in {x['source']}, not measured here)"
    if x["next_variant"]:
        ahead = f"{times(x['next_ms'] / x['ms'])} ahead of {x['next_variant']} ({x['next_ms']:.4f} ms)"
        text += f", {ahead}"
        short += f", {ahead}"
        if x["overlap"]:
            text += "; the 95% intervals of their medians overlap: within noise, they share the first rank"
            short += ", within noise: they share the first rank"
    if x["baseline"]:
        slower = f"{x['baseline']} takes {times(x['baseline_ms'] / x['ms'], 1)} as long"
        text += f". {slower[0].upper()}{slower[1:]}"
        short += f"; {slower}"
    if x["basis"] == "host":
        text += ". No GPU timed this set"
    return Words(f"Fastest: {f.variant}", short, text + ".")


def _host(f: Finding) -> Words:
    x = f.facts
    call = call_of(f.mode)
    how = " (kernel sum)" if x["gpu_only_method"] == "kernel_sum" else ""
    short = (f"{f.mode}: eager {x['eager_ms']:.4f} ms a {call} against {x['gpu_only_ms']:.4f} ms GPU-only{how} "
             f"({times(x['ratio'])}); host dispatch {x['host_ms']:.4f} ms")
    text = (f"A Python loop sees {x['eager_ms']:.4f} ms per {call} of {f.variant}, {times(x['ratio'])} its "
            f"{x['gpu_only_ms']:.4f} ms of GPU-only time{how}: for {x['host_overhead_ms']:.4f} ms of each {call} "
            f"({pct(100 * x['host_overhead_ms'] / x['eager_ms'])}) the GPU waits on the host, whose dispatch takes "
            f"{x['host_ms']:.4f} ms. The kernels are faster than a loop shows; the GPU-only time ranks them.")
    return Words(f"{f.variant}: host-bound", short, text)


def _backend(f: Finding) -> Words:
    x = f.facts
    text = f"With no backend pinned, scaled_dot_product_attention ran the {x['backend']} backend"
    short = f"no backend pinned: ran {x['backend']}"
    if x["main_kernel"]:
        text += f" (main kernel {x['main_kernel']})"
    if x["pinned_variant"]:
        against = f"{x['ms']:.4f} ms against {x['pinned_ms']:.4f} ms for {x['pinned_variant']} pinned"
        text += f"; it took {against}"
        short += f", {against}"
    if x["fastest_pinned"]:
        fastest = f"{x['fastest_pinned']} ({x['fastest_pinned_ms']:.4f} ms)"
        text += f". The fastest pinned backend here is {fastest}"
        short += f"; fastest pinned: {fastest}"
    if x["hypothesis"]:
        text += f". The hypothesis said: {x['hypothesis']}"
    return Words(f"{f.variant} chose {x['backend']}", short, text + ".")


def _consistency(f: Finding) -> Words:
    x = f.facts
    if "counts" in x:
        counts = ", ".join(map(str, x["counts"]))
        return Words(f"{f.variant} ({f.mode}): kernel count varies",
                     f"{f.variant} ({f.mode}): {counts} GPU events in its forwards",
                     f"The {len(x['counts'])} profiled forwards of {f.variant} in {f.mode} launched {counts} GPU "
                     "events: the work differs from call to call.")
    return Words("Kernel counts are stable",
                 f"every profiled forward of each of the {x['runs']} runs with GPU events launched as many GPU "
                 "events as the others of its run",
                 f"Every profiled forward of each of the {x['runs']} runs with GPU events launched the same number "
                 "of GPU events as the others of its run.")


def autograd_outcome(outcome: str, max_abs_grad_diff: float | None) -> str:
    """The outcome of the in-place autograd check with its largest gradient difference."""
    if max_abs_grad_diff is None:
        return outcome
    return f"{outcome} (largest gradient difference from the out-of-place variant: {max_abs_grad_diff:g})"


def _autograd(f: Finding) -> Words:
    x = f.facts
    outcome = autograd_outcome(x["outcome"], x["max_abs_grad_diff"])
    text = f"Claim tested: {AUTOGRAD_CLAIM}. Outcome: {outcome}"
    if x["outcome"] == "gradients match":
        text += f". Why: {AUTOGRAD_WHY_MATCH}"
    return Words(f"In-place masked_fill_ under autograd: {x['outcome']}", outcome, text + ".")


def compile_cost(compile_s: float, calls: float | None) -> str:
    """The compile time and what it costs in timed calls."""
    text = f"{compile_s:.2f} s"
    return text if calls is None or missing(calls) else f"{text}, the time of about {calls:,.0f} timed calls"


# Where a side process compiled a call before the timings (gen.capture.precompile): in full, and
# in brief for the verdicts' lines and the findings' one-line summaries (the methodology page says
# the rest). Several side processes compile at once, sharing the host's cores: such a compile can
# take longer than one alone (benchmarks/capture_time.md: two captures, the same calls, 65 and 45 s).
COMPILED_AHEAD = ("measured in a side process that compiled it before the capture timed anything, beside "
                  "other side processes compiling at the same time, so it can take longer than a compile "
                  "alone; the capture's own first call then found the compiled code in Inductor's cache")
COMPILED_AHEAD_BRIEF = "in a side process, before the timings"


def _compile(f: Finding) -> Words:
    x = f.facts
    head = f"{f.variant} ({f.mode})"
    text = f"{head}: the first call, which compiles, took {compile_cost(x['compile_s'], x['calls'])}"
    if x.get("ahead"):
        own = x.get("first_call_s")
        text += f" ({COMPILED_AHEAD}" + (f" and took {own:.2f} s)" if own is not None else ")")
    short = f"{head}: first call {compile_cost(x['compile_s'], x['calls'])}"
    if x.get("ahead"):
        short += f" ({COMPILED_AHEAD_BRIEF})"
    return Words(f"{f.variant}: compile time ({f.mode})", short, text + ".")


TIMING_WORDS = {"gpu_only": "GPU-only time", "eager": "eager time", "host": "wall time"}


def _ms(x: float) -> str:
    return f"{x:.3g} ms" if x < 100 else f"{x:,.0f} ms"


def _anomaly(f: Finding) -> Words:
    w = _anomaly_words(f)
    return Words(w.title, f"{f.variant} ({f.mode}): {w.short}", w.text)


def _anomaly_words(f: Finding) -> Words:
    x = f.facts
    call, what = call_of(f.mode), TIMING_WORDS.get(x["timing"], x["timing"])
    if x["what"] == "split":
        short = (f"{what} per {call} from {_ms(x['min_ms'])} to {_ms(x['max_ms'])} over {x['n']} calls "
                 f"(median {_ms(x['median_ms'])})")
        text = (f"The {what} of a {f.variant} {call} ranges from {_ms(x['min_ms'])} to {_ms(x['max_ms'])} over its "
                f"{x['n']} timed calls (median {_ms(x['median_ms'])}, IQR {pct(x['iqr_pct'])} of it): the calls ran at "
                "very different speeds, so the median says which of them the middle call was like, not what a call "
                "costs. The set does not record why.")
        return Words(f"{f.variant} ({f.mode}): calls at very different speeds", short, text)
    if x["what"] == "thin":
        text = (f"The {what} of a {f.variant} {call} rests on {plural(x['n'], 'sample')}, fewer than the "
                f"{rules.MIN_SAMPLES} the report asks for a spread to mean anything.")
        return Words(f"{f.variant} ({f.mode}): {plural(x['n'], 'sample')}", f"{what} from {plural(x['n'], 'sample')}",
                     text)
    if x["what"] == "compiled_slower":
        calls = ", ".join(_ms(m) for m in x["profiled_ms"])
        rising = len(x["profiled_ms"]) > 1 and all(a < b for a, b in zip(x["profiled_ms"], x["profiled_ms"][1:]))
        short = f"{times(x['ratio'], 1)} the {what} of {x['eager_variant']}, the module it compiles"
        text = (f"{f.variant} takes {times(x['ratio'], 1)} the {what} of {x['eager_variant']}, the eager module it "
                f"compiles ({_ms(x['ms'])} against {_ms(x['eager_ms'])} a {call}): compiled code that much slower is "
                "no steady cost of the compiler.")
        if calls:
            text += (f" Its profiled calls took {calls}" + (", each slower than the last: the calls had not settled"
                                                             if rising else "") + ".")
        return Words(f"{f.variant} ({f.mode}): slower than the module it compiles", short, text)
    if x["what"] == "train_over_forward":
        short = (f"a training step {times(x['ratio'], 0)} its forward ({_ms(x['step_ms'])} against "
                 f"{_ms(x['forward_ms'])}); the FLOP count says {times(x['flop_ratio'], 1)}")
        text = (f"A training step of {f.variant} takes {times(x['ratio'], 0)} its forward ({_ms(x['step_ms'])} against "
                f"{_ms(x['forward_ms'])} of {what}), where the report's FLOP count puts a step at "
                f"{times(x['flop_ratio'], 1)} a forward.")
        k = (x["op_step_us_per_call"] / x["op_forward_us_per_call"]
             if x["op"] and x["op_forward_us_per_call"] else None)
        if k is not None and k >= rules.COMPILED_SLOWER_RATIO:
            text += (f" In its profiled step, {x['op']} takes {us(x['op_step_us_per_call'])} a call against "
                     f"{us(x['op_forward_us_per_call'])} in a profiled forward: the same op runs {times(k, 0)} slower "
                     "inside the step, so the backward's arithmetic does not explain the step's time. The set does "
                     "not record what does.")
        elif x.get("step_op"):
            text += (f" Its forward op takes about as long inside the step; of the ops only the step runs, "
                     f"{x['step_op']} takes the most, {us(x['step_op_us_per_call'])} a call.")
        return Words(f"{f.variant}: training step {times(x['ratio'], 0)} its forward", short, text)
    raise ValueError(f"no words for anomaly {x['what']!r}")


_WORDERS: dict[FindingKind, Callable[[Finding], Words]] = {
    FindingKind.COPY: _copy, FindingKind.PRECISION: _precision, FindingKind.MASK: _mask,
    FindingKind.OCCUPANCY: _occupancy, FindingKind.COUNTERS: _counters, FindingKind.SPEED: _speed,
    FindingKind.HOST: _host,
    FindingKind.BACKEND: _backend, FindingKind.CONSISTENCY: _consistency, FindingKind.AUTOGRAD: _autograd,
    FindingKind.COMPILE: _compile, FindingKind.ANOMALY: _anomaly,
}


def finding(f: Finding) -> Words:
    """The title, short line and full text of one finding."""
    return _WORDERS[f.kind](f)


# --------------------------------------------------------------------------- hypotheses and occupancy


def hypothesis_note(row: dict) -> str:
    """Why a hypothesis row has no or few measured checks; empty when measured."""
    return {
        "not run": f"not run: {row.get('reason') or 'no reason recorded'}",
        "reference": "published figures only: kernel names and events were not all published",
        "no gpu": "no GPU in this set: no kernels, no GPU times to check",
    }.get(row["basis"], "")


def occupancy_explanation(n: dict) -> str:
    """What one kernel's occupancy figure does and does not mean (tables.occupancy_facts)."""
    parts = []
    if n["blocks_per_sm"] is not None:
        parts.append(
            f"{n['threads']} threads a block, {n['registers'] if n['registers'] is not None else '?'} registers a "
            f"thread and {n['shared_memory'] if n['shared_memory'] is not None else '?'} bytes of shared memory a "
            f"block allow {n['blocks_per_sm']} block(s) per SM, {pct(n['theoretical_pct'])} of the SM's "
            f"{n['max_warps']} warps; {n['limiter']} set the limit")
    elif not n["limits_known"]:
        parts.append("the set did not record the GPU's per-SM limits, so no theoretical occupancy is computed")
    if n["no_estimate"]:
        said = "the profiler reported " + ("no occupancy" if missing(n["occupancy_pct"]) else "0%")
        if n["smem_opt_in"]:
            parts.append(f"{said}: the kernel uses {n['shared_memory'] // 1024} KiB of shared memory a block, above "
                         f"the {rules.SMEM_DEFAULT_LIMIT // 1024} KiB the profiler's estimate allows (it leaves the "
                         "kernel's opt-in to more at zero), so the estimate fits no block. That is the estimate "
                         f"failing, not an idle GPU: the kernel ran for {us(n['dur_us'])}")
        elif n["partial_wave"] and n["blocks"] is not None and n["sm_count"] and n["blocks"] < n["sm_count"]:
            parts.append(f"{said}, and rightly so in kind: its grid of {n['blocks']} block(s) leaves most of the "
                         f"{n['sm_count']} SMs without work")
        else:
            parts.append(f"{said}; the kernel fits the estimate's shared-memory limit, so the trace gives no reason")
    else:
        parts.append(f"the profiler estimated {pct(n['occupancy_pct'])} achieved occupancy")
    if n["partial_wave"]:
        parts.append(f"its grid has {n['blocks']} blocks for {n['sm_count']} SMs, less than one full wave, so some "
                     "SMs get no work")
    return "; ".join(parts) + "."


# --------------------------------------------------------------------------- tables of a set


def refusal(status: str, reason: str | None, needs_cuda: bool = False) -> str:
    """Why a variant did not run, for a table cell or a failure box."""
    if needs_cuda:
        return "needs CUDA: PyTorch has no CPU kernel for this backend, so pinning it leaves no viable backend"
    return reason if isinstance(reason, str) and reason else "no reason recorded"  # NaN from a frame too


def timing_notes(mode: str, gpu: bool, samples: int | None, host_samples: int | None,
                 error_draws: int | None, methods: frozenset[str] = frozenset()) -> list[str]:
    """The sentences under a set's table: what its three times, spreads, memory
    and error columns are, with only what the set recorded. `methods`: the
    gpu_only_method values of its rows."""
    out = []
    call = call_of(mode)
    if gpu and samples:
        out.append(f"Three times per {call}, each a median: {GPU_ONLY_MEANING}. {EAGER_MEANING}, over {samples} or "
                   f"more timed calls. {HOST_MEANING}. The IQR (Q1–Q3) and the spread (IQR as a share of the median) "
                   f"are the GPU-only time's; {NOISE_RULE}.")
        if "cuda_graph" in methods:
            out.append(GPU_ONLY_HOW["cuda_graph"])
        if "kernel_sum" in methods:
            out.append(GPU_ONLY_HOW["kernel_sum"])
    elif host_samples:
        out.append(f"No GPU timed this set: host ms is the median wall time of one {call} on the host "
                   f"over {host_samples} or more calls.")
    else:
        out.append("Published figures: one number per field, no samples and no spread.")
    out.append("Peak MiB is the allocator's peak during one call, extra MiB the part above the inputs already "
               "allocated.")
    if error_draws:
        out.append(f"Error is the largest relative L2 error against a float64 reference over {error_draws} draws.")
    return out


# --------------------------------------------------------------------------- the three times


GPU_ONLY_MEANING = "GPU-only is the GPU's own time per call, with no host gaps (the time that ranks)"
EAGER_MEANING = "Eager is what a Python loop sees per call (CUDA events around each call of a bare loop)"
HOST_MEANING = "Host dispatch is the host's time to launch one call, with the GPU drained first"
# How a GPU-only time was taken, by gpu_only_method.
GPU_ONLY_HOW = {
    "cuda_graph": "GPU-only times come from CUDA-graph replays of many back-to-back calls, divided by the number of "
                  "calls.",
    "kernel_sum": "GPU-only times marked kernel sum could not be taken from a CUDA graph: they are the GPU events of "
                  "one profiled call added up (median over the profiled calls), so they leave out the gaps between "
                  "kernels.",
    "published": "GPU-only times of a published set are the figures its source published.",
}
GPU_ONLY_LABEL = {"cuda_graph": "graph", "kernel_sum": "kernel sum", "published": "published"}


def gpu_only_note(method: str | None, reason: str | None, absent: str | None) -> str:
    """Why a GPU-only time is a kernel sum, or missing; empty for a CUDA-graph time."""
    if absent == "not_measured":
        return f"no GPU-only time: {reason or 'not measured'}"
    if absent == "no_trace":
        return (f"no GPU-only time: no CUDA-graph timing ({reason or 'no reason recorded'}) and no profiled call "
                "to add up")
    if method == "kernel_sum":
        return f"GPU-only time is the kernel sum of the trace (no CUDA-graph timing: {reason or 'no reason recorded'})"
    return ""


# --------------------------------------------------------------------------- hardware counters

COUNTERS_ABSENT = {
    "no_gpu": "no GPU in this set, so no hardware counters",
    "published": "published figures: no counter pass",
    "not_run": "the run did not complete, so no counters",
    "not_captured": "this set's capture took no Nsight Compute pass (sets captured with schema 1 predate it), so "
                    "occupancy is the profiler's estimate only",
    "unavailable": "Nsight Compute could not read the counters",
    "no_trace": "counters were read, but there is no trace to match them to",
    "unmatched": "counters were read, but none of their kernels pairs with the trace's by name",
}


def counters_absent(absent: str, reason: str | None) -> str:
    """Why a run has no hardware counters (counters.Absent), with capture's reason."""
    text = COUNTERS_ABSENT[absent]
    return f"{text}: {reason}" if reason else text


def counters_repeated(repeats: list[dict], variant: str, mode: str) -> str | None:
    """Which kernels show the counters of an identical launch profiled in another call (the
    same kernel, grid, block and shared memory, inputs of the same shapes), by that call; and
    which show none because the capture took them from a launch of another mode."""
    if not repeats:
        return None

    def calls(rs: list[dict]) -> str:
        by: dict[tuple[str, str], int] = {}
        for r in rs:
            by[(r["variant"], r["mode"])] = by.get((r["variant"], r["mode"]), 0) + 1
        return join_and(f"{v}'s {call_of(m)} ({n})" for (v, m), n in by.items())

    same = [r for r in repeats if r["mode"] == mode]
    other = [r for r in repeats if r["mode"] != mode]
    parts = []
    if same:
        parts.append(f"{plural(len(same), 'kernel')} of this {call_of(mode)} {'was' if len(same) == 1 else 'were'} "
                     f"not profiled again: each matches a launch Nsight Compute profiled in {calls(same)} (the "
                     f"same kernel, grid, block and shared memory, inputs of the same shapes) and shows that "
                     f"launch's counters")
    if other:
        parts.append(f"{plural(len(other), 'kernel')} show{'s' if len(other) == 1 else ''} none: the capture "
                     f"took {'it' if len(other) == 1 else 'them'} from a launch of another mode, "
                     f"{calls(other)}, the same kernel at the same shape but called with other arguments (a "
                     f"training forward also writes its softmax statistics)")
    return "; ".join(parts)


def copied_from(source: dict | None) -> str | None:
    """A kernel row's counters read at another call's identical launch (counters.source), said in a
    tooltip. Without its index: ncu's, among kernels only, not the trace's row, which counts copies too."""
    if source is None:
        return None
    return f"counters of the identical launch in {source['variant']}'s {call_of(source['mode'])}, profiled there"


def counter_mismatch(m: dict) -> str:
    """One kernel the trace and Nsight Compute name differently, or only one of them saw."""
    if m["where"] == "both":
        return f"#{m['index']}: the trace says {m['trace_name']}, Nsight Compute {m['ncu_name']}"
    if m["where"] == "trace":
        return f"#{m['index']} {m['trace_name']}: not in Nsight Compute's pass"
    return f"Nsight Compute's kernel {m['counter_index']} {m['ncu_name']}: not in the trace's call"


BOUND_WORDS = {
    "memory": "memory-bound: DRAM throughput {dram:.0f}% of peak against {sm:.0f}% for the SMs",
    "compute": "compute-bound: SM throughput {sm:.0f}% of peak against {dram:.0f}% for DRAM",
    "latency": ("latency-bound: neither the SMs ({sm:.0f}%) nor DRAM ({dram:.0f}%) come within "
                f"{rules.BOUND_BAND_PCT:.0f} points of {rules.BOUND_PCT:.0f}% of peak, Nsight Compute's line"),
    "both": ("at both limits: SM throughput {sm:.0f}% and DRAM {dram:.0f}% of peak, both above "
             f"{rules.BOUND_PCT:.0f}% by more than {rules.BOUND_BAND_PCT:.0f} points and within "
             f"{rules.BOUND_BAND_PCT:.0f} points of each other"),
    "line": ("at Nsight Compute's line: the SMs at {sm:.1f}% of peak and DRAM at {dram:.1f}%, the higher within "
             f"{rules.BOUND_BAND_PCT:.0f} points of {rules.BOUND_PCT:.0f}%, too close to call compute- or "
             "latency-bound"),
}
# How a kernel's bound reads in a title or a short line.
BOUND_SHORT = {"memory": "memory-bound", "compute": "compute-bound", "latency": "latency-bound",
               "line": "at Nsight Compute's line", "both": "at both limits"}
LIMITER_WORDS = {"registers": "registers", "shared_memory": "shared memory", "warps": "the warps per SM",
                 "blocks": "the blocks per SM"}


def kernel_fact(x: dict, fused_attention: bool = False) -> str:
    """One counters fact (gen.analysis.counters.kernel_facts) as a clause."""
    f = x["fact"]
    if f == "estimate_vs_measured":
        est = "no estimate" if x["estimate_pct"] is None else f"an estimate of {pct(x['estimate_pct'])}"
        smem = x.get("shared_memory_bytes")
        why = (f" (the estimate fits no block that uses more than {rules.SMEM_DEFAULT_LIMIT // 1024} KiB of shared "
               f"memory; this one uses {smem // 1024} KiB)" if x["estimate_missing"] and rules.estimate_blind(smem)
               else "")
        return f"the profiler gave {est}{why}, but Nsight Compute measured {pct(x['achieved_pct'], 1)} achieved"
    if f == "occupancy_limit":
        lim = x["limiter"]
        by = {"registers": f"{x['registers_per_thread']} registers per thread" if x["registers_per_thread"] else
              "registers",
              "shared_memory": (f"{x['shared_memory_bytes'] // 1024} KiB of shared memory per block"
                                if x["shared_memory_bytes"] else "shared memory")}.get(lim, LIMITER_WORDS.get(lim, lim))
        text = f"theoretical occupancy {pct(x['theoretical_pct'], 1)}" + (f", limited by {by}" if by else "")
        if fused_attention and lim == "registers":
            text += (", by design: a fused attention kernel holds its tiles (the query block, the running output "
                     "and the softmax state) in registers, trading occupancy for reuse")
        return text
    if f == "bound":
        text = BOUND_WORDS[x["kind"]].format(sm=x["sm_pct"], dram=x["dram_pct"])
        if x["tensor_pipe_pct"] is not None:
            text += f"; tensor pipes busy {pct(x['tensor_pipe_pct'])} of the time"
        return text
    if f == "ncu_rule":
        return f"Nsight Compute's {x['name']} rule estimates up to {pct(x['estimated_speedup_pct'])} to gain"
    raise ValueError(f"no words for counters fact {f!r}")


def kernel_facts(facts: list[dict], fused_attention: bool = False) -> str:
    """A kernel's counters facts as one sentence (empty when there are none)."""
    if not facts:
        return ""
    text = "; ".join(kernel_fact(x, fused_attention) for x in facts)
    return text[0].upper() + text[1:] + "."


def clock_time(iso: str | None) -> str:
    """'2026-12-03T23:09:12+00:00' -> '23:09 UTC on 2026-12-03'; a value that does not parse names no time."""
    try:
        t = datetime.datetime.fromisoformat(iso or "")
    except ValueError:
        return "another time"
    return f"{t:%H:%M} UTC on {t:%Y-%m-%d}"


def join_and(items) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# A capture's skip reason names the memory free when it got there as "the GPU's N GB free": memory its own
# process held, not the GPU's capacity (review item 17)
_GPU_FREE = re.compile(r"more than the GPU's ([\d.]+ [KMGT]?i?B) free")


def free_memory_words(reason: str) -> str:
    return _GPU_FREE.sub(r"more than the \1 the capture left free (not the GPU's capacity)", reason)
