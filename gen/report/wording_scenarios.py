"""Wording of the scenario pages: facts from gen.analysis.scenarios -> sentences.

Takes: rows of `point_frame`, `headline`, `versus_frame` and `differences`,
the conventions named in gen.analysis.scenarios, a datasheet figure
(gen.model.datasheets). Gives: the figure labels printed next to every
number, the axis titles, the point labels, the headline and anchor
sentences, the differences line, the datasheet line. Plain text: pages
escape it where they show it. Part of the report's wording (gen.report.wording
holds the rest).
"""

from __future__ import annotations

from gen.analysis import scenarios as sa
from gen.analysis.values import missing
from gen.model import anchors, datasheets
from gen.report import wording

FIGURE_UNIT = {sa.FIGURE_TFLOPS: "TFLOP/s", sa.FIGURE_TBPS: "TB/s"}
FIGURE_LABEL = {sa.FIGURE_TFLOPS: f"TFLOP/s ({sa.FLOP_LABEL})", sa.FIGURE_TBPS: f"TB/s ({sa.BYTES_LABEL})"}
CONVENTION = {sa.FIGURE_TFLOPS: sa.FLOP_CONVENTION, sa.FIGURE_TBPS: sa.BYTES_CONVENTION}
CEILING_NAME = {sa.CEILING_MATMUL: "the measured matmul ceiling", sa.CEILING_COPY: "the measured copy bandwidth"}
HOW = {sa.FROM_TIME: "our count over its published time",
       sa.FROM_SAME_CONVENTION: "its published rate: its count is ours"}
ROOFLINE_X = "arithmetic intensity (FLOPs, FlashAttention count, per byte of Q, K, V and output)"


# The sources' own names for the variants gen.model.anchors maps onto ours.
SOURCE_NAMES = {"sdpa_cudnn": "cuDNN", "sdpa_flash": "FlashAttention-2", anchors.FA3_VARIANT: "FlashAttention-3"}


def anchor_name(variant: str) -> str:
    """A published variant as its source names it, with ours where it maps onto one."""
    theirs = SOURCE_NAMES.get(variant)
    return f"{theirs} (our {variant})" if theirs and variant != anchors.FA3_VARIANT else (theirs or variant)


def why(text: str) -> str:
    """A scenario's declared `why` as a sentence."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


# The measured copy ceiling (Ceilings.copy_bytes: bytes read plus bytes written by one device copy) is the
# bandwidth of a workload that reads and writes equally; decode almost only reads.
COPY_CEILING_NOTE = ("The measured copy bandwidth counts the bytes a device-to-device copy reads plus those it "
                     "writes; decode almost only reads (the output is one token per head), and memory that only "
                     "reads need not switch between reading and writing, so decode can pass the copy's rate. The "
                     "datasheet's peak is the bound it cannot pass.")
ABOVE_COPY = ("Above 100% of the measured copy bandwidth is possible: a copy writes as much as it reads, decode "
              "almost only reads.")


def length_axis(decode: bool) -> str:
    return "KV cache length (tokens, log scale)" if decode else "sequence length (tokens, log scale)"


def figure_value(x, figure: str) -> str:
    if missing(x):
        return "–"
    return f"{x:,.0f}" if figure == sa.FIGURE_TFLOPS and x >= 10 else f"{x:.3g}"


def length(n, decode: bool) -> str:
    return f"KV {int(n):,}" if decode else f"S = {int(n):,}"


def point_label(row: dict, decode: bool, show_head_dim: bool) -> str:
    text = length(row["kv_len"], decode)
    return f"{text}, D {int(row['head_dim'])}" if show_head_dim else text


def shape(p: dict, lengths: list[int], dtype: str) -> str:
    """The scenario's shape in one line: batch, heads, head dim, queries, mask, lengths, dtype."""
    heads = (f"{p['q_heads']} query heads over {p['kv_heads']} KV heads" if p["q_heads"] != p["kv_heads"]
             else f"{p['q_heads']} heads")
    queries = "one query token per sequence" if p["q_len"] == 1 else "queries = the whole sequence"
    if p["mask"] == "sliding":
        mask = f"causal mask within a {p['window']:,}-token window"
    else:
        mask = {"causal": "causal mask", "none": "no mask"}.get(p["mask"], p["mask"])
    lens = ", ".join(f"{n:,}" for n in lengths)
    what = "KV cache" if p["q_len"] == 1 else "sequence length"
    return f"batch {p['batch']}, {heads}, {queries}, {mask}, {what} {lens}, {dtype}"


def headline(h: dict, figure: str, decode: bool, variant_label) -> str:
    """"At S = 32,768, X is fastest: 25.1 ms GPU-only, 690 TFLOP/s (...), 88% of the measured matmul ceiling." """
    f = h["fastest"]
    fig = figure_of_row(f)
    text = (f"At {length(f['kv_len'], decode)}{' (training step)' if f['mode'] == 'train' else ''}, "
            f"{variant_label(f['variant'])} is fastest: {f['gpu_only_ms']:.4g} ms GPU-only"
            f"{' (kernel sum of one call)' if f['gpu_only_method'] == 'kernel_sum' else ''}, "
            f"{figure_value(f[fig], fig)} {FIGURE_LABEL[fig]}")
    if not missing(f["pct_of_ceiling"]) and f["ceiling"]:
        text += f", {f['pct_of_ceiling']:.0f}% of {CEILING_NAME[f['ceiling']]}"
    if fig == sa.FIGURE_TBPS and not missing(f["pct_of_datasheet"]):
        text += f" and {f['pct_of_datasheet']:.0f}% of the datasheet's {f['datasheet_tbps']:g} TB/s"
    text += "."
    if f["ceiling"] == sa.CEILING_COPY and not missing(f["pct_of_ceiling"]) and f["pct_of_ceiling"] > 100:
        text += " " + ABOVE_COPY
    return text


def figure_of_row(row: dict) -> str:
    return sa.FIGURE_TBPS if row["figure"] == sa.FIGURE_TBPS else sa.FIGURE_TFLOPS


def versus(v: dict, anchor_title: str, variant_label, decode: bool) -> str:
    """Our fastest against one published figure: times when the shape is the same, rates always."""
    where = length(v["kv_len"], decode)
    approx = "about " if v["approximate"] else ""
    rate = (f"{approx}{v['anchor_tflops']:,.0f} TFLOP/s in our count ({HOW.get(v['tflops_from'], 'not convertible')})"
            if not missing(v["anchor_tflops"]) else "no rate in our count")
    ms = f"{v['anchor_ms']:.4g} ms, " if not missing(v["anchor_ms"]) else ""
    parts = [f"At {where}, {anchor_title} gives {anchor_name(v['anchor_variant'])}: {ms}{rate}."]
    ours = f"Our fastest, {variant_label(v['fastest_variant'])}"
    if not missing(v["time_ratio"]):
        parts.append(f"{ours}, takes {v['time_ratio']:.2f}× its time ({_faster(v['time_ratio'], time=True)})"
                     f" and reaches {v['rate_ratio']:.2f}× its rate.")
    elif not missing(v["rate_ratio"]):
        parts.append(f"{ours}, reaches {v['rate_ratio']:.2f}× its rate ({_faster(v['rate_ratio'], time=False)}); "
                     "times do not compare: " + ("the batch and head count differ." if not v["same_shape"]
                                                 else "the source published no time."))
    if not missing(v["fastest_pct_of_ceiling"]):
        parts.append(f"That is {v['fastest_pct_of_ceiling']:.0f}% of the measured ceiling.")
    return " ".join(parts)


def _faster(ratio: float, time: bool) -> str:
    faster = ratio < 1 if time else ratio > 1
    return "faster" if faster else ("slower" if ratio != 1 else "the same")


def differences(diffs: list[dict]) -> str:
    """"Differs from this set: GPU H100 (here H200); cuDNN 9.19.1 (here 9.19.0)." """
    if not diffs:
        return "Same GPU, cuDNN, PyTorch and dtype as this set, as far as the source says."
    parts = [f"{d['what']} {d['published'] or 'not stated'} (here {d['ours'] or 'not recorded'})" for d in diffs]
    return "Differs from this set: " + "; ".join(parts) + "."


def datasheet(sheet: datasheets.Datasheet | None, gpu: str | None) -> str:
    if sheet is None:
        return f"Datasheet bandwidth: unknown for {gpu or 'this device'} (not listed in gen/model/datasheets.py)."
    return f"Datasheet bandwidth: {sheet.hbm_tbps:g} TB/s for the {sheet.gpu} (the maker's peak; {sheet.source})."


def refusal(status: str, reason: str | None, needs_cuda: bool = False) -> str:
    """Why a point did not run: PyTorch's reason as capture kept it (the report's words for a
    CUDA-only backend pinned on a CPU machine)."""
    if needs_cuda:
        return wording.refusal(status, reason, True)
    if isinstance(reason, str) and reason:  # from a frame, a missing reason is NaN, which is truthy
        return reason
    return {"oom": "out of memory", "skipped": "not run"}.get(status, "no reason recorded")


def table_note(figure: str, mode: str) -> str:
    """What the columns of a scenario table are."""
    ceiling = CEILING_NAME[sa.CEILING_COPY if figure == sa.FIGURE_TBPS else sa.CEILING_MATMUL]
    call = "training step" if mode == "train" else "call"
    return (f"{FIGURE_LABEL[figure]} from the GPU-only time; % of ceiling is of {ceiling}. GPU-only ms is the median "
            f"per {call} with its interquartile range; eager ms is what a Python loop sees per {call}, host gaps "
            f"included. Kernels / call counts the GPU events of one profiled {call}; peak memory is the allocator's "
            "peak; error is the relative error against float64.")


def versus_short(v: dict, anchor_title: str, decode: bool) -> str:
    """One clause for the index: our fastest against the strongest published figure."""
    ratios = []
    if not missing(v["time_ratio"]):
        ratios.append(f"{v['time_ratio']:.2f}× its time")
    if not missing(v["rate_ratio"]):
        ratios.append(f"{v['rate_ratio']:.2f}× its rate" + ("" if ratios else " (times do not compare)"))
    if not ratios:
        return ""
    return (f"Against {anchor_name(v['anchor_variant'])} at {length(v['kv_len'], decode)} as published "
            f"({anchor_title}): {', '.join(ratios)}.")
