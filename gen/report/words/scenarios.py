"""A scenario's page (gen.analysis.scenarios facts) -> its labels, axis titles, headline, table notes
and the sentences about backends, wrong answers, FP8, graphs and shared points."""

from __future__ import annotations

import re

from gen.analysis import rules
from gen.analysis import scenarios as sa
from gen.analysis.values import missing
from gen.model import datasheets
from gen.model.variants import FA4_INSTALL
from gen.report.format import tbps
from gen.report.words import ceiling_share, common, round_by_round
from gen.report.words import deterministic as deterministic_words
from gen.report.words import orders as orders_words
from gen.report.words import oriented as oriented_words
from gen.report.words import tables as table_words
from gen.report.words.common import apart_words, clock_time, floor_pct, flop_label, intervals, join_and, overlap_words
from gen.report.words.fp8_speed import fp8_cells  # noqa: F401  (moved there; its readers name it here)

FIGURE_UNIT = {sa.FIGURE_TFLOPS: "TFLOP/s", sa.FIGURE_TBPS: "TB/s"}


FIGURE_LABEL = {sa.FIGURE_TFLOPS: f"TFLOP/s ({sa.FLOP_LABEL})", sa.FIGURE_TBPS: f"TB/s ({sa.BYTES_LABEL})"}


def figure_label(figure: str, points=()) -> str:
    """The unit and count printed beside a figure: a TFLOP/s names the count its points take."""
    if figure == sa.FIGURE_TFLOPS:
        return f"TFLOP/s ({flop_label(points)})"
    return FIGURE_LABEL[figure]


CONVENTION = {sa.FIGURE_TFLOPS: sa.FLOP_CONVENTION, sa.FIGURE_TBPS: sa.BYTES_CONVENTION}


CEILING_NAME = {sa.CEILING_MATMUL: "the measured matmul ceiling as measured (at its own clock) and, in brackets, "
                                   "scaled to the point's clock (a model)",
                sa.CEILING_COPY: "the measured copy bandwidth",
                sa.CEILING_READ: "the measured read bandwidth"}


ROOFLINE_X = "arithmetic intensity (FLOPs, FlashAttention count, per byte of Q, K, V and output)"


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


def roof_line(ceil: dict | None, mhz: float | None = None) -> str:
    """What the dashed line of a roofline is; `mhz`: the SM clock the matmul ceiling was measured at."""
    if not ceil:
        return "the lower of the measured matmul ceiling and intensity × the measured bandwidth"
    what = {"copy": "device copy", "read": "read-only pass"}.get(ceil["bandwidth_name"], ceil["bandwidth_name"])
    at = f" at {mhz:.0f} MHz, as measured, not scaled to the points' clocks" if mhz is not None else ""
    return (f"the lower of the measured matmul ceiling ({ceil['matmul_tflops']:.0f} TFLOP/s{at}) and intensity × the "
            f"highest bandwidth measured on this GPU (its {what}, {tbps(ceil['bandwidth_gbps'] / 1e3)} TB/s)")


def above_roof(a: dict | None, sheet: datasheets.Datasheet | None = None, read_bytes: float | None = None,
               best_tbps: float | None = None, at_clock: dict | None = None) -> str | None:
    """Why points lie above a roofline (scaling.above_roof), or None when none does. With a
    read-only ceiling, `read_bytes` is what its sum read and `best_tbps` the points' best TB/s
    (their share of the datasheet's bandwidth is given beside it)."""
    if not a or not a["n"]:
        return None
    who = ", ".join(a["variants"])
    text = (f"{a['n']} of the {a['total']} points {'lies' if a['n'] == 1 else 'lie'} above the line ({who}), up to "
            f"{a['max_over']:.2f}× it: "
            "the line is a measured ceiling, not the GPU's peak.")
    if a["bandwidth"]:
        # With a read-only ceiling measured, that is the bound to explain (the copy's
        # line may sit a hair above it, and both are drawn).
        if a["bandwidth_name"] == "copy" and not read_bytes:
            text += (f" {a['bandwidth']} of them sit above the bandwidth slope, which is a device copy's rate: a copy "
                     "reads and writes as many bytes, while a kernel that almost only reads (decode reads the KV "
                     "cache and writes one token a head) need not switch the memory between reading and writing, "
                     "so it can pass a copy's rate.")
        else:
            over = f" (a torch.sum over {_gib(read_bytes)})" if read_bytes else ""
            text += (f" {a['bandwidth']} of them sit above the bandwidth slope: the read ceiling is one reduction"
                     f"{over}, a weak bound that understates the bandwidth a tuned kernel reaches.")
            if sheet is not None and best_tbps and not missing(best_tbps):
                text += (f" The best point, {tbps(best_tbps)} TB/s, is {100 * best_tbps / sheet.hbm_tbps:.0f}% of the "
                         f"datasheet's {sheet.hbm_tbps:g} TB/s.")
        if sheet is not None:
            text += f" The datasheet's {sheet.hbm_tbps:g} TB/s is the bound no kernel passes."
    if a["compute"]:
        text += " " + (matmul_over_words(a["compute"], at_clock) or (
            f"{a['compute']} {'sits' if a['compute'] == 1 else 'sit'} above the matmul ceiling, one large "
            "matrix product's measured rate, not the tensor cores' peak."))
    return text


def matmul_over_words(n: int, at: dict | None) -> str | None:
    """Points above the unscaled matmul line (scenarios.above_matmul_at_clock), set against the ceiling at
    their own clock; None where the clocks are not known or a point's window had no single clock (no_clock)."""
    if (not at or at.get("ceiling_mhz") is None or at.get("pct_lo") is None or at.get("mhz_lo") is None
            or at.get("no_clock")):
        return None
    verb = "sits" if n == 1 else "sit"
    clocks = (f"{at['mhz_lo']:.0f} MHz" if round(at["mhz_lo"]) == round(at["mhz_hi"])
              else f"{at['mhz_lo']:.0f}–{at['mhz_hi']:.0f} MHz")
    share = (f"{at['pct_lo']:.0f}%" if round(at["pct_lo"]) == round(at["pct_hi"])
             else f"{at['pct_lo']:.0f}–{at['pct_hi']:.0f}%")
    if at["within_at_clock"] == at["n"]:
        return (f"{n} {verb} above the unscaled matmul line only because the matmul ceiling ran at "
                f"{at['ceiling_mhz']:.0f} MHz; "
                + (f"at its own clock ({clocks}) it sits" if n == 1
                   else f"at the points' own clocks ({clocks}) all sit")
                + f" at {share} of it.")
    return (f"{n} {verb} above the matmul ceiling (measured at {at['ceiling_mhz']:.0f} MHz), {share} of it even "
            f"at the points' own clocks ({clocks}): one matrix product's rate is not the tensor cores' peak.")


def _gib(n: float) -> str:
    return f"{n / 1024**3:g} GiB"


def length_axis(decode: bool) -> str:
    return "KV cache length (tokens, log scale)" if decode else "sequence length (tokens, log scale)"


def figure_value(x, figure: str) -> str:
    if missing(x):
        return "–"
    if figure == sa.FIGURE_TBPS:
        return tbps(x)
    return f"{x:,.0f}" if figure == sa.FIGURE_TFLOPS and x >= 10 else f"{x:.3g}"


def length(n, decode: bool) -> str:
    return f"KV {int(n):,}" if decode else f"S = {int(n):,}"


def point_label(row: dict, decode: bool, show_head_dim: bool) -> str:
    text = length(row["kv_len"], decode)
    q = row.get("q_len")
    if not decode and q is not None and not missing(q) and int(q) != int(row["kv_len"]):
        text = f"{int(q):,} queries × KV {int(row['kv_len']):,}"  # a chunk against a longer cache
    return f"{text}, D {int(row['head_dim'])}" if show_head_dim else text


def shape(p: dict, lengths: list[int], dtype: str, q_lens: list[int] | None = None) -> str:
    """The scenario's shape in one line: batch, heads, head dim, queries, mask, lengths, dtype."""
    heads = (f"{p['q_heads']} query heads over {p['kv_heads']} KV heads" if p["q_heads"] != p["kv_heads"]
             else f"{p['q_heads']} heads")
    queries = "one query token per sequence" if p["q_len"] == 1 else "queries = the whole sequence"
    chunks = [q for q in (q_lens or []) if q not in lengths]
    if chunks == [1]:
        queries = "one query token per sequence (decode), against the KV cache"
    elif chunks:
        queries = (f"chunks of {', '.join(f'{q:,}' for q in chunks)} queries, the last tokens of the sequence, "
                   "against the KV cache")
    if p["mask"] == "sliding":
        mask = f"causal mask within a {p['window']:,}-token window"
    elif p["mask"] == "document" and p.get("docs"):
        mask = (f"{len(p['docs'])} packed documents of {', '.join(f'{d:,}' for d in p['docs'])} tokens, "
                "causal within each, nothing across them")
    else:
        mask = {"causal": "causal mask", "none": "no mask"}.get(p["mask"], p["mask"])
    lens = ", ".join(f"{n:,}" for n in lengths)
    what = "KV cache" if p["q_len"] == 1 else "sequence length"
    return f"batch {p['batch']}, {heads}, {queries}, {mask}, {what} {lens}, {dtype}"


def _time_and_rate(f: dict) -> str:
    """A headline row's time and rate, with its share of the measured ceiling: "25.1 ms GPU-only, 690 TFLOP/s (...),
    88% of the measured matmul ceiling (...)"."""
    fig = figure_of_row(f)
    text = (f"{common.us(f['gpu_only_ms'])} GPU-only"
            f"{' (kernel sum of one call)' if f['gpu_only_method'] == 'kernel_sum' else ''}, "
            f"{figure_value(f[fig], fig)} {figure_label(fig, [f])}")
    if not missing(f["pct_of_ceiling"]) and f["ceiling"] == sa.CEILING_MATMUL:
        text += ", " + ceiling_share.matmul_share(f)
    elif not missing(f["pct_of_ceiling"]) and f["ceiling"]:
        text += f", {f['pct_of_ceiling']:.0f}% of {CEILING_NAME[f['ceiling']]}"
    if fig == sa.FIGURE_TBPS and not missing(f["pct_of_datasheet"]):
        text += f" and {f['pct_of_datasheet']:.0f}% of the datasheet's {f['datasheet_tbps']:g} TB/s"
    if f["ceiling"] != sa.CEILING_MATMUL and f["ceiling"] in CEILING_NAME:
        text += table_words.pass_flag(f["pct_of_ceiling"], CEILING_NAME[f["ceiling"]].replace("bandwidth", "pass"))
    return text


def determinism_opening(d, row: dict, variant_label) -> str:
    """Where a point ranks deterministic calls led by a plain one (gen.analysis.determinism.DeterministicHead), what the
    headline opens with: the fastest call that runs deterministically, the next one, and
    what determinism costs it against the same call by default; the plain fastest follows as context."""
    text = f"the fastest deterministic call is {variant_label(d.first)}: {_time_and_rate(row)}."
    if d.second is not None:
        text += (f" It is {d.ratio:.2f}× ahead of the next, {variant_label(d.second)}"
                 f"{deterministic_words.lead_measure(d.method, d.ks_ratio, d.ks_mhz)}." if d.decided else
                 f" It is within noise of the next, {variant_label(d.second)} ({d.ratio:.2f}× its time).")
    if d.cost is not None:  # by kernel sum first where both steps' sums ran at one clock
        text += f" {deterministic_words.cost_clause(d.cost, variant_label(d.cost.base), d.cost.base != d.plain)}."
    return text + " Without determinism, "


def headline(h: dict, figure: str, decode: bool, variant_label, unmeasured: list[str] | None = None,
             orders=(), rows=(), determinism=None, oriented=None) -> str:
    """"At S = 32,768, X is fastest: 25.1 ms GPU-only, 690 TFLOP/s (...), 88% of the measured matmul ceiling."
    With `unmeasured` (the FA4 variants the set did not measure): "fastest of those measured", and what was not.
    `orders`: the fastest against the calls sharing its rank at that point (gen.analysis.verdicts.Orders), said
    beside it where they tell more than noise; `rows`: those calls' Timed rows (their errors, where inputs differ);
    `determinism`: (DeterministicHead, its first call's row) where the point ranks deterministic calls led by a plain
    one: the headline opens with the fastest deterministic call (determinism_opening)."""
    f = h["fastest"]
    near, ties = h.get("near") or [], h.get("ties") or []
    undecided = [o for o in orders if orders_words.state(o) == "not decided"]
    sp = h.get("spreads") or {}
    text = (f"At {point_label(f, decode, False)}, D {int(f['head_dim'])}"
            f"{' (training step)' if f['mode'] == 'train' else ''}, "
            + (determinism_opening(*determinism, variant_label) if determinism else "")
            + _fastest(f, h.get("auto_tie"), sp, variant_label, bool(unmeasured), bool(near or ties or undecided),
                       oriented)
            + oriented_words.sentence(oriented, lambda x: figure_value(x, figure_of_row(f)),
                                      FIGURE_LABEL[figure_of_row(f)].split(" ")[0], _oriented_ceiling(f),
                                      variant_label))
    if ties:
        sps = [sp.get(v) for v in (f["variant"], *ties)]
        text += (f" It shares its rank with {join_and(variant_label(v) for v in ties)}: kernels of the same names, "
                 f"and the {intervals(*sps)} of the medians overlap.")
    for v, ratio, gap in h.get("same_apart") or []:
        took = f"takes {ratio:.2f}× its time" if ratio is not None else "takes another time"
        text += (f" {variant_label(v)} runs kernels of the same names with other arguments and {took}, "
                 f"{apart_words(gap, f['gpu_only_ms'], sp.get(f['variant']), sp.get(v))}: not tied.")
    near = [v for v in near if v not in {o.second for o in undecided}]
    paired = [o for o in orders if o.second in near and o.decided_by_rounds]  # rules.paired_leads decides
    near = [v for v in near if v not in {o.second for o in paired}]
    led = [o for o in orders if o.second in near and orders_words.kernels_behind(o)]
    near = [v for v in near if v not in {o.second for o in led}]
    if led:  # within noise as run, behind by kernel sum, as the first screen says
        behind = [variant_label(orders_words.kernels_behind(o)) for o in led]
        text += (f" It and {join_and(variant_label(o.second) for o in led)} are within noise as run ("
                 + overlap_words(sp.get(f['variant']), [(o.second, sp.get(o.second)) for o in led], variant_label)
                 + "), but "
                 f"{join_and(behind)} {'are' if len(behind) > 1 else 'is'} behind by kernel sum: "
                 + "; ".join(orders_words.kernels_ahead_detail(o, variant_label, len(led) > 1) for o in led) + ".")
    if near:
        text += (f" The times cannot set it apart from {join_and(variant_label(v) for v in near)} ("
                 + overlap_words(sp.get(f['variant']), [(v, sp.get(v)) for v in near], variant_label)
                 + "): within noise.")
    text += "".join(f" It leads {variant_label(o.second)}: {round_by_round.paired(o, variant_label)}." for o in paired)
    text += _orders_sentences(orders, undecided, near, rows, variant_label)
    if f["ceiling"] == sa.CEILING_COPY and not missing(f["pct_of_ceiling"]) and f["pct_of_ceiling"] > 100:
        text += " " + ABOVE_COPY
    if unmeasured:
        text += (f" Not measured in this set: {join_and(variant_label(v) for v in unmeasured)} "
                 f"({FA4_INSTALL} was not in its capture).")
    return text


def _oriented_ceiling(f: dict) -> tuple[float, str] | None:
    """The ceiling the headline's median is set against, for its orientations' rates: (its rate, its short name)."""
    if not f.get("ceiling") or missing(f.get("ceiling_value")) or missing(f.get("pct_of_ceiling")):
        return None
    name = "the measured ceiling" if f["ceiling"] == sa.CEILING_MATMUL else CEILING_NAME[f["ceiling"]]
    return f["ceiling_value"], name


def _fastest(f: dict, auto: str | None, sp: dict, variant_label, unmeasured: bool, others: bool,
             oriented=None) -> str:
    """The headline's fastest: "X is fastest by its median: 1.341 ms GPU-only, ...", or where unpinned SDPA runs the
    same kernels within its intervals (gen.analysis.scenarios.headline's auto_tie), both named as the verdicts name
    them (SDPA cuDNN was "fastest by its median: 1.341 ms" beside an unpinned call of
    1.340 ms): "X and Y run the same kernels and are fastest: one rank, a tie, by their medians 1.341 ms and 1.340 ms.
    X: 1.341 ms GPU-only, ..."; where a call sharing its rank is faster in the other round orientation
    (calls.OrientedRate.lower_there), "X has the lowest median only through its forward rounds: ..."."""
    measured = " of those measured" if unmeasured else ""
    a, b = sp.get(f["variant"]), sp.get(auto)
    if auto is None or a is None or b is None:
        first = (f"has the lowest median{measured} only through its {oriented.median_with} rounds"
                 if oriented is not None and oriented.lower_there
                 else f"is fastest{measured}{' by its median' if others else ''}")
        return f"{variant_label(f['variant'])} {first}: {_time_and_rate(f)}."
    return (f"{variant_label(f['variant'])} and {variant_label(auto)} run the same kernels and are fastest{measured}: "
            f"{common.tie_by_medians(a.median, b.median)}. "
            f"{variant_label(f['variant'])}: {_time_and_rate(f)}.")


def _orders_sentences(orders, undecided, near, rows, variant_label) -> str:
    """The headline's fastest against the calls sharing its rank: the orders where not decided or telling more than
    noise, and the outputs' errors where their inputs differ."""
    text = ""
    for o in orders:
        if orders_words.kernels_behind(o) and o.second not in near and o not in undecided:
            continue  # said with its kernel sums above
        if o in undecided:
            text += (f" Against {variant_label(o.second)} it is not decided: {orders_words.brief(o, variant_label)}; "
                     + ("so no winner is named." if o.timed_apart else "the orders disagree, so no winner is named."))
        elif o.second in near and (orders_words.telling(o) or o.paired is not None):
            said = [orders_words.brief(o, variant_label, noise=False) if orders_words.telling(o) else "",
                    round_by_round.paired(o, variant_label)]
            text += f" Against {variant_label(o.second)}: {'; '.join(x for x in said if x)}."
    err = orders_words.errors(rows, variant_label)
    return text + (f" {err[0].upper()}{err[1:]}." if err else "")


def figure_of_row(row: dict) -> str:
    return sa.FIGURE_TBPS if row["figure"] == sa.FIGURE_TBPS else sa.FIGURE_TFLOPS


def table_note(figure: str, mode: str, ceiling: str | None = None, sheet: datasheets.Datasheet | None = None,
               points=()) -> str:
    """What the columns of a scenario table are; `ceiling` is the one its rows were set against
    (sa.CEILING_*; by default the figure's usual one); `points`: the table's rows, whose FLOP count it names."""
    name = CEILING_NAME[ceiling or (sa.CEILING_COPY if figure == sa.FIGURE_TBPS else sa.CEILING_MATMUL)]
    call = "training step" if mode == "train" else "call"
    share = (f"; % of datasheet is of the datasheet's {sheet.hbm_tbps:g} TB/s" if figure == sa.FIGURE_TBPS and sheet
             else ceiling_share.sol_clause(points))
    return (f"{figure_label(figure, points)} from the GPU-only time; % of ceiling is of {name}{share}. GPU-only ms "
            f"is the median per {call} with its interquartile range; eager ms is what a Python loop sees per {call}, "
            f"host gaps included. Kernels / call counts the GPU events of one profiled {call}; peak memory is the "
            "allocator's peak; error is the relative error against float64.")


BACKEND_NAMES = {"flash": "FlashAttention-2", "efficient": "memory-efficient", "cudnn": "cuDNN", "math": "math",
                 "none": "none (no backend could run)"}


def backend_name(b: str | None) -> str:
    return BACKEND_NAMES.get(b or "", b or "not recorded")


def backend_verdict(verdict: str, reason: str | None) -> str:
    """One cell of the backend table: chosen, eligible, or PyTorch's reason."""
    if verdict == "chosen":
        return "chosen"
    if verdict == "eligible":
        return "eligible, not chosen (lower in PyTorch's priority order)"
    return reason or "refused (PyTorch gave no reason)"


BACKEND_NOTE = ("What SDPA ran with no backend pinned and, for each backend it did not run, the reason PyTorch "
                "gives: torch.backends.cuda.can_use_flash_attention (and its efficient and cuDNN siblings) with "
                "debug=True, on the very inputs, mask and flags of the measured call; the choice is "
                "torch._fused_sdp_choice's (nested tensors: their own dispatcher; causal_lower_right: its own "
                "order, flash then efficient then math).")


def wrong_note(label: str, why: str | None, worst: float) -> str:
    text = f"{label} answers wrong on purpose here (error up to {worst:.2g} against float64)"
    return text + (f": {why}." if why else ".") + " It is shown for scale, never ranked."


def wrong_by_error(label: str, worst: float, limit: float) -> str:
    return (f"{label}'s error against float64 reaches {worst:.2g}, past {limit:g}: a wrong answer, shown, never "
            "ranked.")


FACT_WORDS = {
    "block_mask_build_s": ("BlockMask build time", lambda x: common.one_timing(x * 1e3)),
    "block_mask_sparsity_pct": ("tiles the block mask skips", lambda x: f"{x:.1f}%"),
    "window_extra_keys": ("keys seen beyond W with window_size=(W, 0)",
                          lambda x: f"{x:.0f} (so W − {x:.0f} is passed to see exactly W keys)"),
    "fp8_input_rounding_error": ("error from rounding q, k, v to float8 e4m3 alone (float64 attention of the "
                                 "rounded inputs against the unrounded)", lambda x: f"{x:.2g}"),
    "cudnn_backend_version": ("cuDNN library the frontend graph ran on",
                              lambda x: f"{int(x) // 10000}.{int(x) % 10000 // 100}.{int(x) % 100}"),
    "fp8_output": ("output", lambda x: "float8 e4m3 from the kernel (cuDNN gives BF16 output on Blackwell "
                                       "only), scaled by a power of two and turned back into BF16 in the call"
                   if x else "BF16 from the kernel"),
}


FP8_NOTE = ("Each FP8 variant beside the variant running the same kind of kernel in the scenario's dtype, at the "
            "same point: GPU-only times, like with like (where one is a graph replay and the other a kernel sum, "
            "both kernel sums, marked so), the speed of FP8 (the twin's time over the FP8 time: above 1× FP8 is "
            "faster), and both errors against the float64 reference of the very inputs each was given. The "
            "last column is what rounding q, k and v to float8 e4m3 does alone, before any kernel runs (float64 "
            "attention of the rounded inputs against the unrounded ones). The FP8 variant's own error is taken "
            "against float64 attention of the rounded inputs it was given: it is the kernel's error alone. The "
            "two are separate costs: a model that holds bf16 activations pays both.")


def fp8_sol(rate) -> str:
    """After sol_note (gen.report.words.tables), on a page with FP8 rows: the rate they are set against, in words, not
    by the source file that holds it; sol_note has said they meet no measured ceiling."""
    if rate is None:
        return " FP8 rows: no dense FP8 rate for this GPU among the datasheet figures this report carries."
    return (f" FP8 rows are set against the dense FP8 rate instead, {rate.flops_per_clk_per_sm} FP8 FLOP per clock per "
            "SM, from the same datasheet figures.")


def facts(label: str, point: str, got: dict) -> str:
    """The facts a variant measured while being built, in one line."""
    parts = []
    for k, v in got.items():
        if v is None or missing(v):
            continue
        name, f = FACT_WORDS.get(k, (k, lambda x: f"{x:g}"))
        parts.append(f"{name}: {f(v)}")
    return f"{label} at {point}: " + "; ".join(parts) + "." if parts else ""


def documents_note(total_tokens: int, padded_tokens: int, padded_flops: float, useful_flops: float) -> str:
    return (f"Useful work is each document's own causal square. Padding every document to the longest makes "
            f"{padded_tokens:,} token slots of {total_tokens:,}, and {padded_flops / useful_flops:.2f}× the useful "
            "FLOPs; attending over the whole pack with a plain causal mask computes "
            "cross-document pairs too (and answers wrong).")


_OOM_ASKED = re.compile(r"Tried to allocate ([\d.]+ [KMGT]?i?B)")


_OOM_FREE = re.compile(r"total capacity of ([\d.]+ [KMGT]?i?B) of which ([\d.]+ [KMGT]?i?B) is free")


def oom_short(reason: str) -> str:
    """PyTorch's out-of-memory message (a paragraph of allocator statistics) as the one fact a
    reader needs: what the call asked for and what was free; the reason itself where it says neither."""
    asked, free = _OOM_ASKED.search(reason), _OOM_FREE.search(reason)
    if not asked:
        return reason
    text = f"out of memory: it asked for {asked.group(1)} more"
    return text + (f" with {free.group(2)} of the GPU's {free.group(1)} free" if free else "")


def not_run(label: str, status: str, why_not: str | None) -> str:
    """A variant of a scenario that ran at no point, said where the verdict is."""
    why = (why_not or "no reason recorded").removeprefix("not run: ")
    if status == "oom":
        why = oom_short(why).removeprefix("out of memory: ")
    return f"{label} did not run here ({status}: {why}); it is not ranked."


def measured_modes(why: str, inference: bool, train: bool) -> str | None:
    """What a scenario measured, where its declared purpose names the other mode."""
    if inference and not train and "train" in why.lower():
        return "Measured here: forward passes only (inference); no training step was timed."
    if train and not inference and "inference" in why.lower():
        return "Measured here: training steps only (forward and backward)."
    return None


def determinism_line(r: dict, variant_label, show_length: bool = False) -> str:
    """One backend's price of torch.use_deterministic_algorithms(True): its deterministic time over its default."""
    at = f" at S = {int(r['kv_len']):,}" if show_length else ""
    who = variant_label(r["default_variant"])
    if missing(r["ratio"]):
        why = r["reason"] if isinstance(r["reason"], str) else "no time"
        return (f"{who}{at}: the deterministic variant did not run ({r['status']}: {why}), so there is no price "
                "to give: this backend has no deterministic backward here.")
    return (f"{who}{at}: {common.us(r['deterministic_ms'])} a training step deterministic against "
            f"{common.us(r['default_ms'])} by default" + (" (both kernel sums)" if r.get("kernel_sums") is True else "")
            + f", {r['ratio']:.2f}× the time.")


def graph_above_eager_note(n: int, found: list | None = None, samples=()) -> str | None:
    """Why some rows' GPU-only time reads above their eager time, and what it means; `found`: (label, kernels
    only in the graph, kernels only in the eager call) where the capture's graph check saw the two differ,
    said as found (never "cause not established" beside it); `samples`: the marked rows' graph replays and eager
    calls, counted, whose intervals the graph rule (gen.model.graph_rule) sets side by side: their real level is
    said (five replays: 93.75%)."""
    if not n:
        return None
    level = intervals(*((1, k) for k in samples if k and not missing(k)))
    seen = "".join(f" The capture's graph check found {who}'s graph replay running other kernels than its eager "
                   f"call: {g or 'none'} only in the graph, {e or 'none'} only in the eager call."
                   for who, g, e in found or [])
    return (f"{n} row{'s' if n != 1 else ''} marked graph above eager: the CUDA graph's replay read more than "
            f"{rules.GRAPH_ABOVE_EAGER_PCT:g}% above the eager calls by median, and the graph rule kept the graph's "
            f"time, since the medians' {level} overlapped and at least one replay came within "
            f"{rules.GRAPH_ABOVE_EAGER_PCT:g}% of the median eager call, or the set holds no kernel sum to fall back "
            "to. Read the two as one figure within that gap; the row's conditions show whether the clock moved "
            "during its windows." + seen)


def calls_note(labels: list[str], later: list[str], own: str | None, later_mhz: list[float],
               own_mhz: list[float]) -> str:
    """A merged scenario: which rows a later capture call measured, when, and at what clocks."""
    def mhz(xs: list[float]) -> str:
        if not xs:
            return "clock not recorded"
        lo, hi = min(xs), max(xs)
        return f"mean SM clock {lo:.0f} MHz" if round(lo) == round(hi) else f"mean SM clocks {lo:.0f}–{hi:.0f} MHz"

    return (f"Two capture calls measured this scenario: {join_and(labels)} in a later call (started "
            f"{join_and(clock_time(w) for w in later)}, merged into this set by gen import --merge; "
            f"{mhz(later_mhz)}), the other rows in the set's own call (started {clock_time(own)}; "
            f"{mhz(own_mhz)}). A ratio between rows of the two calls also holds the difference of their "
            "clocks (each row's conditions are in the table below).")


def _swap(p: tuple, label) -> str:
    """One pair the two windows order the other way round (same_point_elsewhere's `swapped`), with where its
    intervals keep it apart."""
    x, y, here, there = p
    head = f"{label(y)} ahead of {label(x)} there"
    if here is None or there is None:
        return f"{head}, by kernel sums"
    if here and there:
        return f"{head}, within noise in both windows"
    return f"{head}, {'within noise' if here else 'apart'} here and {'within noise' if there else 'apart'} there"


def same_point_line(d: dict, label) -> str:
    """A point another scenario timed too (gen.analysis.same_point.same_point_elsewhere): each shared variant's time
    and clock here and there, like with like (both kernel sums where one window has a graph replay and the other a
    kernel sum), and what the two windows' order says: where a variant's two intervals are apart, the windows'
    conditions moved it past them; where only the order differs, it differs inside the intervals. No equal-clock pointer
    at a memory-bound point."""
    def each(side):
        out = []
        for v, a_ms, a_mhz, b_ms, b_mhz, sums, _ in d["rows"]:
            ms, mhz = (a_ms, a_mhz) if side == "here" else (b_ms, b_mhz)
            out.append(f"{label(v)} {common.us(ms)}" + (f" at {mhz:.0f} MHz" if not missing(mhz) else "")
                       + (" (kernel sum)" if sums else ""))
        return "; ".join(out)
    q = int(d["q_len"])
    text = (f"The same point ({q:,} {'query' if q == 1 else 'queries'} against {int(d['kv_len']):,} keys, same shape "
            f"and dtype) was timed in {d['other']} too, in other windows. Here: {each('here')}. "
            f"There, in the same order: {each('there')}.")
    sums = [r[0] for r in d["rows"] if r[5]]
    if sums:
        text += (f" {join_and(label(v) for v in sums)}: both kernel sums, each at its window's clock (a graph replay "
                 "in one window and a kernel sum in the other compare like with like only so).")
    level = intervals(*d["units"])
    if d["moved"]:
        moved = [r for r in d["rows"] if r[0] in d["moved"]]
        text += (" " + join_and(f"{label(v)} {max(a, b) / min(a, b):.2f}× apart" for v, a, _, b, _, _, _ in moved)
                 + f" between the two windows, {'its' if len(moved) == 1 else 'their'} two {level} apart (one "
                 "window each): the windows' conditions moved "
                 + ("it" if len(moved) == 1 else "them") + " past what the intervals hold, so at this point the "
                 "as-run order also tells the windows apart. Read it with the kernel sums"
                 + ("" if d["memory_bound"] else " and the equal-clock model") + " beside it.")
    elif d["orders_differ"]:
        swaps = "; ".join(_swap(p, label) for p in d["swapped"])
        floor = [label(v) for v in d.get("floor_only") or ()]
        overlap = (f"each call's two {level} overlap (one window each)" if not floor else
                   f"each call's two {level} overlap (one window each), {join_and(floor)}'s only through the "
                   f"{floor_pct()} floor (every round apart)" if len(floor) < len(d["rows"]) else
                   f"each call's two {level} (one window each) have every round apart; within the {floor_pct()} "
                   "floor")
        text += (f" The as-run order differs between the two windows ({swaps}), inside the intervals: {overlap}, so "
                 "the windows' conditions did not move any call past them.")
    return text


def graph_below_lines(rows, label) -> list[str]:
    """Points ranked on their kernel sum because the graph replay read far below it and the eager loop
    (rules.graph_below_kernels): what each read, once per variant."""
    out: dict[str, str] = {}
    for r in rows:
        g, k, e = r.get("graph_ms"), r.get("kernel_sum_ms"), r.get("eager_ms")
        if r.get("status") != "ok" or r.get("gpu_only_method") != "kernel_sum" or r["variant"] in out \
                or not rules.graph_below_kernels(g, k, e):
            continue
        out[r["variant"]] = (
            f"{label(r['variant'])} ({r['q_len']:,} × {r['kv_len']:,}): ranked on the kernel sum of its profiled "
            f"calls ({k:.3f} ms), not on its graph replay ({g:.3f} ms): the replay reads {k / g:.2f}× below the "
            f"kernel sum and {e / g:.2f}× below the eager loop ({e:.3f} ms), more than "
            f"{rules.GRAPH_BELOW_KERNELS_RATIO:g}× apart. A replay removes host gaps, not kernel time, so the graph "
            "figure (or its count of calls a replay) does not stand for the call.")
    return list(out.values())
