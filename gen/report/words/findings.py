"""Findings (gen.analysis.findings.Finding) -> `Words`: a title, a short line and the full text, built
from the same clauses so they cannot disagree; the Findings page's group titles and notes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gen.analysis import kernel_rules, leads, rules
from gen.analysis.findings import Finding, FindingKind
from gen.analysis.values import missing
from gen.report.format import spread_ms
from gen.report.words import orders
from gen.report.words.common import call_of, duration_us, pct, plural, times
from gen.report.words.host import host_short_of_line
from gen.report.words.kernels import BOUND_SHORT, counters_absent, kernel_fact, kernel_facts
from gen.report.words.methodology import (
    AUTOGRAD_CLAIM,
    AUTOGRAD_WHY_MATCH,
    COMPILED_AHEAD,
    COMPILED_AHEAD_BRIEF,
    COMPILED_AHEAD_SLOWER,
)


@dataclass(frozen=True)
class Words:
    title: str
    short: str  # one line with the numbers, for the Findings page
    text: str  # the same in full, with the why


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
    FindingKind.HOST_SHORT: "Loops that waited on the host, not called host-bound",
    FindingKind.CONSISTENCY: "Kernel counts",
    FindingKind.AUTOGRAD: "Training: in-place autograd",
    FindingKind.COMPILE: "Compile time",
    FindingKind.ANOMALY: "Timings the set itself contradicts",
}


# Why the profiler's occupancy estimate reads 0% for a kernel over the default shared memory
# (kernel_rules.estimate_blind).
ESTIMATE_BLIND = (
    f"The profiler's estimate runs CUDA's occupancy calculator without the kernel's opt-in to more than "
    f"{kernel_rules.SMEM_DEFAULT_LIMIT // 1024} KiB of shared memory a block, so any kernel that uses more fits no "
    "block "
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
    FindingKind.HOST_SHORT: "A Python loop of these calls waited on the host (its time past the rule's line over the "
                            "GPU-only time, and the host slower than the GPU), but the host's own cost of a call "
                            "stops short of the margin the rule asks, so the rule does not call them host-bound: "
                            "on a host that much faster the loop would keep the GPU busy.",
    FindingKind.PRECISION: "Kernels whose launching op was given float32 tensors and no 16-bit one, or matrix "
                           "products with f32 in their name.",
    FindingKind.ANOMALY: "Figures a table shows that the same set's samples or traces say not to read at face value: "
                         f"calls {rules.SPLIT_RATIO:.0f}× apart in one timing, fewer than {rules.MIN_SAMPLES} samples, "
                         f"compiled code {rules.COMPILED_SLOWER_RATIO:.0f}× slower than the module it compiles, a "
                         f"training step {rules.TRAIN_OVER_FORWARD_RATIO:.0f}× its forward.",
}


# Kinds whose findings name no variant on the Findings page: the line itself says which.
KINDS_WITHOUT_VARIANT = frozenset({FindingKind.SPEED, FindingKind.AUTOGRAD, FindingKind.COMPILE, FindingKind.ANOMALY})


def _copy(f: Finding) -> Words:
    x = f.facts
    kind, op, n = x["event_kind"], x["op"] or "no op", x["n"]
    what, whats = {"memcpy": ("memory copy", "memory copies"), "memset": ("memory fill", "memory fills")}.get(
        kind, (None, f"{kind}s"))
    names = ", ".join(x["names"])
    cost = (f"{duration_us(x['dur_us'])}, {pct(100 * x['dur_us'] / x['total_us'], 1)} of the forward's "
            f"{duration_us(x['total_us'])}")
    text = (f"In each forward of {f.variant}, {n} {what or kind + ' doing a copy or fill'} event(s) ({names}) "
            f"launched by {op}, under {' | '.join(x['paths'])}: {cost} of GPU time. "
            + ("The hypothesis expected copies or fills in this variant." if x["expected"] else
               "The hypothesis expected none in this variant."))
    short = (f"{n} {(whats if n > 1 else what or kind)} ({names}) from {op}: {duration_us(x['dur_us'])}, "
             f"{pct(100 * x['dur_us'] / x['total_us'], 1)} of GPU time; "
             + ("expected" if x["expected"] else "the hypothesis expected none"))
    return Words(f"{f.variant}: {n} {kind} from {op}", short, text)


def _precision(f: Finding) -> Words:
    x = f.facts
    share = pct(100 * x["dur_us"] / x["total_us"])
    text = (f"{x['n']} of the {x['events']} GPU events of a {f.variant} forward compute in float32 in this "
            f"{x['dtype']} set: {duration_us(x['dur_us'])}, {share} of its GPU time.")
    short = f"{x['n']} of {x['events']} GPU events in float32: {duration_us(x['dur_us'])}, {share} of GPU time"
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
    short = f"{x['n']} kernel(s) from {', '.join(x['ops'])}: {duration_us(x['dur_us'])} a forward"
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
            f"({names}, launched with {apis}; {duration_us(x['dur_us'])} in all)")
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
    said = kernel_facts(x["counters"])
    bound = next((c["kind"] for c in x["counters"] if c["fact"] == "bound"), None)
    clauses = [kernel_fact(c) for c in x["counters"]
               if c["fact"] in ("estimate_vs_measured", "occupancy_limit")]
    short = f"{x['kernel']} ({duration_us(x['dur_us'])})" + (f": {BOUND_SHORT[bound]}" if bound else "") + "".join(
        f"; {c}" for c in clauses)
    text = f"The longest kernel of a {f.variant} forward, {x['kernel']} ({duration_us(x['dur_us'])}). " + (
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
        if x.get("unsettled"):
            why = orders.map_state(False, x["orders"], x["unsettled"], *x["spreads"]).removeprefix("no: ")
            if x["unsettled"] == leads.OVERLAP:
                text += f"; {why}: within noise, they share the first rank"
                short += ", within noise: they share the first rank"
            else:
                text += f"; the lead is not decided ({why})"
                short += ", not decided"
        elif x.get("overlap"):  # a summary table's order (findings.fastest): its interquartile ranges
            text += "; the interquartile ranges of their times overlap: within noise, they share the first rank"
            short += ", within noise: they share the first rank"
    if x["baseline"]:
        sums = x.get("baseline_sums")  # like with like: both kernel sums where one is a graph replay
        ratio = x["baseline_ms"] / x.get("baseline_of_ms", x["ms"])
        slower = f"{x['baseline']} takes {times(ratio, 2 if sums else 1)} as long" + (" (both kernel sums)" if sums
                                                                                      else "")
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


def _host_short(f: Finding) -> Words:
    """A loop that waited, within noise by the rule (host_rules.loop_waited_short_of_rule): the loop's ratio, the GPU's
    idle share, and the host's cost against the rule's margin (FA4's 2.16x loop was on no list)."""
    x = f.facts
    call = call_of(f.mode)
    how = " (kernel sum)" if x["gpu_only_method"] == "kernel_sum" else ""
    idle = pct(100 * x["host_overhead_ms"] / x["eager_ms"])
    short = (f"{f.mode}: eager {x['eager_ms']:.4f} ms a {call} against {x['gpu_only_ms']:.4f} ms GPU-only{how} "
             f"({times(x['ratio'])}, the GPU idle {idle} of each {call}); host dispatch {x['host_ms']:.4f} ms at its "
             f"median. {host_short_of_line(x['host_cost_ms'], x['gpu_only_ms'], x['ratio'])}")
    return Words(f"{f.variant}: a loop waited, not called host-bound", short, short[0].upper() + short[1:] + ".")


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


def _compile(f: Finding) -> Words:
    x = f.facts
    head = f"{f.variant} ({f.mode})"
    if x.get("own_slower"):  # the capture's own first call took longer: that is the start-up
        cost = compile_cost(x["startup_s"], x.get("startup_calls"))
        detail = COMPILED_AHEAD_SLOWER.format(ahead=f"{x['compile_s']:.2f} s", own=f"{x['startup_s']:.2f} s")
        return Words(f"{f.variant}: compile time ({f.mode})", f"{head}: start-up at least {cost} (the capture's own "
                     f"first call; {x['compile_s']:.2f} s {COMPILED_AHEAD_BRIEF})",
                     f"{head}: the first call took at least {cost} ({detail}).")
    text = f"{head}: the first call, which compiles, took {compile_cost(x['compile_s'], x['calls'])}"
    if x.get("ahead"):
        own = x.get("first_call_s")
        text += f" ({COMPILED_AHEAD}" + (f" and took {own:.2f} s)" if own is not None else ")")
    short = f"{head}: first call {compile_cost(x['compile_s'], x['calls'])}"
    if x.get("ahead"):
        short += f" ({COMPILED_AHEAD_BRIEF})"
    return Words(f"{f.variant}: compile time ({f.mode})", short, text + ".")


TIMING_WORDS = {"gpu_only": "GPU-only time", "eager": "eager time", "host": "wall time"}


def _anomaly(f: Finding) -> Words:
    w = _anomaly_words(f)
    return Words(w.title, f"{f.variant} ({f.mode}): {w.short}", w.text)


def _anomaly_words(f: Finding) -> Words:
    x = f.facts
    call, what = call_of(f.mode), TIMING_WORDS.get(x["timing"], x["timing"])
    if x["what"] == "split":
        short = (f"{what} per {call} from {spread_ms(x['min_ms'])} to {spread_ms(x['max_ms'])} over {x['n']} calls "
                 f"(median {spread_ms(x['median_ms'])})")
        text = (f"The {what} of a {f.variant} {call} ranges from {spread_ms(x['min_ms'])} to "
                f"{spread_ms(x['max_ms'])} over its {x['n']} timed calls (median {spread_ms(x['median_ms'])}, IQR "
                f"{pct(x['iqr_pct'])} of it): the calls ran at very different speeds, so the median says which of them "
                "the middle call was like, not what a call costs. The set does not record why.")
        return Words(f"{f.variant} ({f.mode}): calls at very different speeds", short, text)
    if x["what"] == "thin":
        text = (f"The {what} of a {f.variant} {call} rests on {plural(x['n'], 'sample')}, fewer than the "
                f"{rules.MIN_SAMPLES} the report asks for a spread to mean anything.")
        return Words(f"{f.variant} ({f.mode}): {plural(x['n'], 'sample')}", f"{what} from {plural(x['n'], 'sample')}",
                     text)
    if x["what"] == "compiled_slower":
        calls = ", ".join(spread_ms(m) for m in x["profiled_ms"])
        rising = len(x["profiled_ms"]) > 1 and all(a < b for a, b in zip(x["profiled_ms"], x["profiled_ms"][1:]))
        short = f"{times(x['ratio'], 1)} the {what} of {x['eager_variant']}, the module it compiles"
        text = (f"{f.variant} takes {times(x['ratio'], 1)} the {what} of {x['eager_variant']}, the eager module it "
                f"compiles ({spread_ms(x['ms'])} against {spread_ms(x['eager_ms'])} a {call}): compiled code that much "
                "slower is no steady cost of the compiler.")
        if calls:
            text += (f" Its profiled calls took {calls}" + (", each slower than the last: the calls had not settled"
                                                             if rising else "") + ".")
        return Words(f"{f.variant} ({f.mode}): slower than the module it compiles", short, text)
    if x["what"] == "train_over_forward":
        short = (f"a training step {times(x['ratio'], 0)} its forward ({spread_ms(x['step_ms'])} against "
                 f"{spread_ms(x['forward_ms'])}); the FLOP count says {times(x['flop_ratio'], 1)}")
        text = (f"A training step of {f.variant} takes {times(x['ratio'], 0)} its forward "
                f"({spread_ms(x['step_ms'])} against {spread_ms(x['forward_ms'])} of {what}), where the report's FLOP "
                f"count puts a step at {times(x['flop_ratio'], 1)} a forward.")
        if x["op_slower"]:
            text += (f" In its profiled step, {x['op']} takes {duration_us(x['op_step_us_per_call'])} a call against "
                     f"{duration_us(x['op_forward_us_per_call'])} in a profiled forward: the same op runs "
                     f"{times(x['op_ratio'], 0)} slower inside the step, so the backward's arithmetic does not "
                     "explain the step's time. The set does not record what does.")
        elif x.get("step_op"):
            text += (f" Its forward op takes about as long inside the step; of the ops only the step runs, "
                     f"{x['step_op']} takes the most, {duration_us(x['step_op_us_per_call'])} a call.")
        return Words(f"{f.variant}: training step {times(x['ratio'], 0)} its forward", short, text)
    raise ValueError(f"no words for anomaly {x['what']!r}")


_WORDERS: dict[FindingKind, Callable[[Finding], Words]] = {
    FindingKind.COPY: _copy, FindingKind.PRECISION: _precision, FindingKind.MASK: _mask,
    FindingKind.OCCUPANCY: _occupancy, FindingKind.COUNTERS: _counters, FindingKind.SPEED: _speed,
    FindingKind.HOST: _host, FindingKind.HOST_SHORT: _host_short,
    FindingKind.BACKEND: _backend, FindingKind.CONSISTENCY: _consistency, FindingKind.AUTOGRAD: _autograd,
    FindingKind.COMPILE: _compile, FindingKind.ANOMALY: _anomaly,
}


def finding(f: Finding) -> Words:
    """The title, short line and full text of one finding."""
    return _WORDERS[f.kind](f)


def hypothesis_note(row: dict) -> str:
    """Why a hypothesis row has no or few measured checks; empty when measured."""
    return {
        "not run": f"not run: {row.get('reason') or 'no reason recorded'}",
        "reference": "published figures only: kernel names and events were not all published",
        "no gpu": "no GPU in this set: no kernels, no GPU times to check",
    }.get(row["basis"], "")
