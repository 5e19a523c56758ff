"""Kernels in words: what a kernel's name and launch say it is, its occupancy, and its hardware
counters (gen.analysis.counters facts), for the kernel tables, the findings and the verdicts."""

from __future__ import annotations

from gen.analysis import kernel_names, kernel_rules
from gen.analysis.values import missing
from gen.model import trace
from gen.report.words.common import call_of, duration_us, join_and, pct, plural


def occupancy_head(n: dict) -> str:
    """The figures beside a kernel's name in the occupancy list (tables.occupancy_facts): the theoretical
    occupancy to a tenth, as the counters line gives it, and the profiler's whole-percent estimate, or that the
    estimate is the theoretical figure rounded ("profiler's estimate 13%, theoretical
    12%" read as an estimate above its ceiling): "theoretical 12.5%, the profiler's estimate the same to a whole
    percent", "profiler's estimate 38%, theoretical 39.1%"."""
    est = "–" if missing(n["occupancy_pct"]) else pct(n["occupancy_pct"])
    if missing(n["theoretical_pct"]):
        return f"profiler's estimate {est}, theoretical –"
    th = pct(n["theoretical_pct"], 1)
    if n["estimate_at_theoretical"]:
        return f"theoretical {th}, the profiler's estimate the same to a whole percent"
    return f"profiler's estimate {est}, theoretical {th}"


def occupancy_explanation(n: dict) -> str:
    """What one kernel's occupancy figure does and does not mean (tables.occupancy_facts)."""
    parts = []
    if n["blocks_per_sm"] is not None:
        parts.append(
            f"{n['threads']} threads a block, {n['registers'] if n['registers'] is not None else '?'} registers a "
            f"thread and {n['shared_memory'] if n['shared_memory'] is not None else '?'} bytes of shared memory a "
            f"block allow {n['blocks_per_sm']} block(s) per SM, {pct(n['theoretical_pct'], 1)} of the SM's "
            f"{n['max_warps']} warps; {n['limiter']} set the limit")
    elif not n["limits_known"]:
        parts.append("the set did not record the GPU's per-SM limits, so no theoretical occupancy is computed")
    if n["no_estimate"]:
        said = "the profiler reported " + ("no occupancy" if missing(n["occupancy_pct"]) else "0%")
        if n["smem_opt_in"]:
            parts.append(f"{said}: the kernel uses {n['shared_memory'] // 1024} KiB of shared memory a block, above "
                         f"the {kernel_rules.SMEM_DEFAULT_LIMIT // 1024} KiB the profiler's estimate allows "
                         "(it leaves the "
                         "kernel's opt-in to more at zero), so the estimate fits no block. That is the estimate "
                         f"failing, not an idle GPU: the kernel ran for {duration_us(n['dur_us'])}")
        elif n["partial_wave"] and n["blocks"] is not None and n["sm_count"] and n["blocks"] < n["sm_count"]:
            parts.append(f"{said}, and rightly so in kind: its grid of {n['blocks']} block(s) leaves most of the "
                         f"{n['sm_count']} SMs without work")
        else:
            parts.append(f"{said}; the kernel fits the estimate's shared-memory limit, so the trace gives no reason")
    elif n["estimate_at_theoretical"]:
        parts.append(f"the profiler estimated {pct(n['occupancy_pct'])} achieved occupancy, the theoretical "
                     f"{pct(n['theoretical_pct'], 1)} to its whole percent")
    else:
        parts.append(f"the profiler estimated {pct(n['occupancy_pct'])} achieved occupancy")
    if n["partial_wave"]:
        parts.append(f"its grid has {n['blocks']} blocks for {n['sm_count']} SMs, less than one full wave, so some "
                     "SMs get no work")
    return "; ".join(parts) + "."


COUNTERS_ABSENT = {
    "no_gpu": "no GPU in this set, so no hardware counters",
    "published": "published figures: no counter pass",
    "not_run": "the run did not complete, so no counters",
    "not_captured": "this set's capture took no Nsight Compute pass (sets captured with schema 1 predate it), so "
                    "occupancy is the profiler's estimate only",
    "not_taken": "this capture took no Nsight Compute pass: none is among its recorded stages (a pass that could not "
                 "read counters, Nsight Compute missing on the machine included, records why), so occupancy is the "
                 "profiler's estimate only",
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
                f"{kernel_rules.BOUND_BAND_PCT:.0f} points of {kernel_rules.BOUND_PCT:.0f}% of peak, Nsight Compute's "
                "line"),
    "both": ("at both limits: SM throughput {sm:.0f}% and DRAM {dram:.0f}% of peak, both above "
             f"{kernel_rules.BOUND_PCT:.0f}% by more than {kernel_rules.BOUND_BAND_PCT:.0f} points and within "
             f"{kernel_rules.BOUND_BAND_PCT:.0f} points of each other"),
    # at the line, the unit read is named, and what it is too close to call follows it
    "line": ("at Nsight Compute's line: the SMs at {sm:.1f}% of peak and DRAM at {dram:.1f}%, the SMs the higher, "
             f"within {kernel_rules.BOUND_BAND_PCT:.0f} points of {kernel_rules.BOUND_PCT:.0f}%: too close to call "
             "compute- or latency-bound"),
    "line_dram": ("at Nsight Compute's line: DRAM at {dram:.1f}% of peak and the SMs at {sm:.1f}%, DRAM the higher, "
                  f"within {kernel_rules.BOUND_BAND_PCT:.0f} points of {kernel_rules.BOUND_PCT:.0f}%: too close to "
                  "call memory- or latency-bound"),
}


# How a kernel's bound reads in a title or a short line.
BOUND_SHORT = {"memory": "memory-bound", "compute": "compute-bound", "latency": "latency-bound",
               "line": "at Nsight Compute's line", "both": "at both limits"}


LIMITER_WORDS = {"registers": "registers", "shared_memory": "shared memory", "warps": "the warps per SM",
                 "blocks": "the blocks per SM"}


def kernel_fact(x: dict) -> str:
    """One counters fact (gen.analysis.counters.kernel_facts) as a clause."""
    f = x["fact"]
    if f == "estimate_vs_measured":
        est = "no estimate" if x["estimate_pct"] is None else f"an estimate of {pct(x['estimate_pct'])}"
        smem = x.get("shared_memory_bytes")
        limit_kib = kernel_rules.SMEM_DEFAULT_LIMIT // 1024
        why = (f" (the estimate fits no block that uses more than {limit_kib} KiB of shared "
               f"memory; this one uses {smem // 1024} KiB)"
               if x["estimate_missing"] and kernel_rules.estimate_blind(smem)
               else "")
        return f"the profiler gave {est}{why}, but Nsight Compute measured {pct(x['achieved_pct'], 1)} achieved"
    if f == "occupancy_limit":
        lim = x["limiter"]
        by = {"registers": f"{x['registers_per_thread']} registers per thread" if x["registers_per_thread"] else
              "registers",
              "shared_memory": (f"{x['shared_memory_bytes'] // 1024} KiB of shared memory per block"
                                if x["shared_memory_bytes"] else "shared memory")}.get(lim, LIMITER_WORDS.get(lim, lim))
        text = f"theoretical occupancy {pct(x['theoretical_pct'], 1)}" + (f", limited by {by}" if by else "")
        if x.get("main_loop") and lim == "registers":  # an attention main loop only: kernel_rules.ATTENTION_AUX
            text += (", by design: a fused attention kernel holds its tiles (the query block, the running output "
                     "and the softmax state) in registers, trading occupancy for reuse")
        return text
    if f == "bound":
        kind = "line_dram" if x["kind"] == "line" and x.get("higher") == "dram" else x["kind"]
        text = BOUND_WORDS[kind].format(sm=x["sm_pct"], dram=x["dram_pct"])
        if x["tensor_pipe_pct"] is not None:
            text += f"; tensor pipes busy {pct(x['tensor_pipe_pct'])} of the time"
        return text
    if f == "ncu_rule":
        return f"Nsight Compute's {x['name']} rule estimates up to {pct(x['estimated_speedup_pct'])} to gain"
    raise ValueError(f"no words for counters fact {f!r}")


def kernel_facts(facts: list[dict]) -> str:
    """A kernel's counters facts as one sentence (empty when there are none)."""
    if not facts:
        return ""
    text = "; ".join(kernel_fact(x) for x in facts)
    return text[0].upper() + text[1:] + "."


FAMILY = {"cudnn_sdpa": "cuDNN-generated kernel", "fmha_cutlass": "CUTLASS fmha kernel",
          "flash2": "FlashAttention-2 kernel", "nvjet": "cuBLAS nvjet kernel", "cublas_xmma": "cuBLAS xmma kernel"}


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
