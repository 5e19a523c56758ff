"""Ours against published figures (gen.model.anchors sources): the sources' names, the like-with-like
comparison of times and rates, the sources' shapes and clocks, sustained against burst."""

from __future__ import annotations

import math

from gen.analysis import published_sums, rules
from gen.analysis import scenarios as sa
from gen.analysis.values import missing
from gen.model import anchors, datasheets
from gen.model.variants import VARIANTS
from gen.report.format import published_ms as _ms  # the published blocks' one precision, tables too
from gen.report.words import tables as table_words
from gen.report.words.scenarios import length

HOW = {sa.FROM_TIME: "our count over its published time",
       sa.FROM_SAME_CONVENTION: "its published rate: its count is ours"}


# The sources' own names for the variants gen.model.anchors maps onto ours.
SOURCE_NAMES = {"sdpa_cudnn": "cuDNN", "sdpa_flash": "FlashAttention-2", anchors.FA3_VARIANT: "FlashAttention-3",
                anchors.CUDNN_FP8_VARIANT: "cuDNN FP8"}


def anchor_name(variant: str) -> str:
    """A published variant as its source names it, with ours where it maps onto one."""
    theirs = SOURCE_NAMES.get(variant)
    return f"{theirs} (our {variant})" if theirs and variant != anchors.FA3_VARIANT else (theirs or variant)


def ours_name(v: dict, variant_label) -> str:
    """Which of ours a published figure stands against: the variant running its kernel, else our fastest."""
    if v["ours_same"]:
        return f"our {variant_label(v['ours_variant'])}"
    # ours stand against a published figure at its input width only: an FP8 variant is the fastest of our FP8
    # calls, not of the page (a bf16 call can be faster there)
    decl = VARIANTS.get(v["ours_variant"])
    width = f" {FP8_WORD}" if decl is not None and decl.dtype and decl.dtype.startswith("fp8") else ""
    return f"our fastest{width}{' variant' if width else ''}, {variant_label(v['ours_variant'])}"


FP8_WORD = "FP8"


def versus(v: dict, anchor_title: str, variant_label, decode: bool, scenario: str | None = None) -> str:
    """Ours against one published figure, like with like: times when the shape is the same (a published kernel time
    against our kernel sum first), rates always; `scenario`: the page's, where ours may come from another."""
    where = f"{length(v['kv_len'], decode)}, D {int(v['head_dim'])}"
    approx = "about " if v["approximate"] else ""
    rate = (f"{approx}{v['anchor_tflops']:,.0f} TFLOP/s in our count ({HOW.get(v['tflops_from'], 'not convertible')})"
            if not missing(v["anchor_tflops"]) else "no rate in our count")
    # ms to the thousandth, as burst_line gives the same figures in the sentence beside
    ms = f"{_ms(v['anchor_ms'])} ms, " if not missing(v["anchor_ms"]) else ""
    parts = [f"At {where}, {anchor_title} gives {anchor_name(v['anchor_variant'])}: {ms}{rate}."]
    if v["ours_variant"] is None:
        return parts[0]
    ours = ours_name(v, variant_label)
    ours = ours[0].upper() + ours[1:] + ("" if v["ours_same"] else ",")
    ours += _scenario_of(v, scenario)
    if not missing(v.get("ours_ks_time_ratio", math.nan)):  # a published kernel time: our kernel sum first
        ks = v["ours_ks_time_ratio"]
        at = f"at {v['ours_ks_mhz']:.0f} MHz" if not missing(v["ours_ks_mhz"]) else "clock not recorded"
        parts.append(f"{ours} takes {ks:.2f}× its time by kernel sum ({_ms(v['ours_ks_ms'])} ms {at}; "
                     f"{_ks_read(v)}the source's time is its kernels' device time under a profiler, "
                     f"which our kernel sum is), {v['ours_time_ratio']:.2f}× as run, and reaches "
                     f"{v['ours_rate_ratio']:.2f}× its rate as run.{_ks_unread(v)}")
    elif not missing(v["ours_time_ratio"]):
        parts.append(f"{ours} takes {v['ours_time_ratio']:.2f}× its time ({_faster(v['ours_time_ratio'], time=True)})"
                     f" and reaches {v['ours_rate_ratio']:.2f}× its rate.")
    elif not missing(v["ours_rate_ratio"]):
        parts.append(f"{ours} reaches {v['ours_rate_ratio']:.2f}× its rate "
                     f"({_faster(v['ours_rate_ratio'], time=False)}); times do not compare: "
                     + ("the batch and head count differ." if not v["same_shape"] else "the source published no time."))
    if not missing(v.get("ours_rate_ratio_at_clock", math.nan)):
        parts.append(f"The source states its clock fixed at {v['anchor_clock_mhz']:.0f} MHz and ours ran at "
                     f"{v['ours_clock_mhz']:.0f} MHz: at equal clock (a model: ours × {v['anchor_clock_mhz']:.0f} / "
                     f"{v['ours_clock_mhz']:.0f}) {ours[0].lower() + ours[1:].rstrip(',')} reaches "
                     f"{v['ours_rate_ratio_at_clock']:.2f}× its rate.")
    if not v["ours_same"] and not missing(v["fastest_pct_of_ceiling"]):
        at = v.get("fastest_pct_at_clock", math.nan)
        parts.append(f"That is {v['fastest_pct_of_ceiling']:.0f}% of the measured ceiling as measured"
                     + (f" ({at:.0f}% of it scaled to its {v['fastest_clock_mhz']:.0f} MHz, a model)."
                        if not missing(at) else "."))
    return " ".join(parts)


def _heads(sh: dict) -> str:
    several = len(sh["heads"]) > 1
    return ", ".join((f"{h} heads" if h == kv else f"{h} query / {kv} KV heads") + (f" at D {d}" if several else "")
                     for d, (h, kv) in sorted(sh["heads"].items()))


def published_shape(sh: dict) -> str:
    """A published set's shapes from its points (scenarios.source_shapes), in one line."""
    bs = sorted(sh["batches"].items())
    if len({b for _, b in bs}) == 1:
        batch = f"batch {bs[0][1]}"
    elif sh["tokens"]:
        batch = (f"batch × length held at {sh['tokens']:,} tokens (batch {bs[0][1]} at S = {bs[0][0]:,} down to "
                 f"batch {bs[-1][1]} at S = {bs[-1][0]:,})")
    else:
        batch = "batch " + ", ".join(f"{b} at S = {n:,}" for n, b in bs)
    heads = _heads(sh)
    if sh["hidden"] and len(sh["heads"]) > 1:
        heads = f"query heads × head dim held at {sh['hidden']:,} ({heads})"
    else:
        heads += "".join(f", head dim {d}" for d in sh["heads"])
    lengths = (f"S = {bs[0][0]:,} to {bs[-1][0]:,}" if len(bs) > 1 else f"S = {bs[0][0]:,}")
    return f"{batch}; {heads}; {lengths}"


def source_shape(sh: dict) -> str:
    """How the source's batch and heads differ from ours, from its points (scenarios.source_shapes)."""
    if sh["tokens"] and sh["hidden"]:
        heads = ", ".join(f"{h} heads at D {d}" if h == kv else f"{h} query / {kv} KV heads at D {d}"
                          for d, (h, kv) in sorted(sh["heads"].items()))
        bs = sorted(sh["batches"].items())
        batches = (f"batch {bs[0][1]} at S = {bs[0][0]:,} down to batch {bs[-1][1]} at S = {bs[-1][0]:,}"
                   if len(bs) > 1 else f"batch {bs[0][1]}")
        return (f"The source held batch × length at {sh['tokens']:,} tokens ({batches}) and query heads × head dim "
                f"at {sh['hidden']:,} ({heads}), not this scenario's batch and heads: rates compare, times do not.")
    shapes = "; ".join(f"batch {b}, {h} query / {kv} KV heads, S = {n:,}, D {d}" if h != kv else
                       f"batch {b}, {h} heads, S = {n:,}, D {d}" for b, h, kv, n, d in sh["shapes"])
    return f"The source measured {shapes}, not this scenario's batch and heads: rates compare, times do not."


def _ks_read(v: dict) -> str:
    """The order a kernel sum's ratio to a published kernel time gives, where the clock rule leaves one
    (published_sums.order_read): "slower: "; "" where the clock explains the ratio or no order is read (_ks_unread)."""
    read = v.get("ours_ks_read")
    return f"{read}: " if read in (published_sums.SLOWER, published_sums.FASTER, published_sums.SAME) else ""


def _ks_unread(v: dict) -> str:
    """Why a kernel sum's ratio to a published kernel time is read as no order: our burst at its clock lands on the
    published time, so the ratio is the clock's; or the clock rule cannot be applied. "" where an order is read."""
    read, ks = v.get("ours_ks_read"), f"{v['ours_ks_time_ratio']:.2f}×"
    if read == published_sums.CLOCK:
        fb = v.get("ours_ks_burst_mhz")
        at = f" at {fb:.0f} MHz" if not missing(fb) else ""
        return (f" The clock explains the kernel sum's {ks}: our own burst{at} lands within "
                f"{rules.CLOCK_RULE_PCT:g}% of the published time.")
    if read == published_sums.NO_RULE:
        why = v.get("ours_ks_rule_reason") or "a clock was not recorded"
        return (f" The kernel sum's {ks} is read as neither slower nor faster: {why}, so the clock rule cannot be "
                "applied.")
    return ""


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
        return (f"Datasheet bandwidth: unknown for {gpu or 'this device'} (not among the datasheet figures this report "
                "carries).")
    return f"Datasheet bandwidth: {sheet.hbm_tbps:g} TB/s for the {sheet.gpu} (the maker's peak; {sheet.source})."


def versus_short(v: dict, anchor_title: str, decode: bool, variant_label=None) -> str:
    """One clause for the index: ours against the strongest published figure, like with like."""
    ratios = []
    sums = not missing(v.get("ours_ks_time_ratio", math.nan))
    if sums:  # a published kernel time: our kernel sum first
        at = f" (at {v['ours_ks_mhz']:.0f} MHz)" if not missing(v["ours_ks_mhz"]) else ""
        ratios.append(f"{v['ours_ks_time_ratio']:.2f}× its time by kernel sum{at}")
    if not missing(v["ours_time_ratio"]):
        ratios.append(f"{v['ours_time_ratio']:.2f}× its time" + (" as run" if ratios else ""))
    if not missing(v["ours_rate_ratio"]):
        ratios.append(f"{v['ours_rate_ratio']:.2f}× its rate" + (" as run" if sums else "" if ratios
                                                                   else " (times do not compare)"))
    if not ratios:
        return ""
    who = ours_name(v, variant_label or (lambda x: x))
    return (f"Against {anchor_name(v['anchor_variant'])} at {length(v['kv_len'], decode)}, D {int(v['head_dim'])} "
            f"as published ({anchor_title}), {who}: {', '.join(ratios)}.")


NO_ANCHOR = ("No published figure is known for this scenario's shape: none of the sources this report carries "
             "measured it.")


def _work_timed(b: dict) -> str:
    """What else our call runs besides its attention kernel, where that is a visible share of it
    (gen.analysis.clocks.untimed_work): the source times its forward kernels, our time is the whole call."""
    other, main = b.get("other_events_ms"), b.get("main_kernel_ms")
    if not b.get("untimed_work"):
        return "; the kernels or the library differ"
    return (f"; part of it is work the source does not time: our call runs {other:.3f} ms of other GPU work "
            f"beside its {main:.3f} ms attention kernel (in its profiled call; the source times its forward "
            "kernels)")


def _burst_words(b: dict) -> str:
    """Our burst, as the clock rule uses it: where it slowed within itself, its leading calls."""
    if b.get("burst_throttled"):
        n = int(b["burst_early_n"])
        lead = f"its first {n} calls" if n != 1 else "its first call"
        text = (f"; a burst of {int(b['burst_n'])} calls from idle slowed within itself ({_ms(b['burst_all_ms'])} ms "
                f"over all its calls): {lead} took {_ms(b['burst_ms'])} ms"
                + (" (one call: thin evidence)" if n == 1 else ""))
        if not missing(b["burst_clock_mhz"]):
            text += f" (taken at the window's highest clock, {b['burst_clock_mhz']:.0f} MHz)"
        return text
    text = f", {_ms(b['burst_ms'])} ms in a burst of {int(b['burst_n'])} calls from idle"
    return text + (f" ({b['burst_clock_mhz']:.0f} MHz)" if not missing(b["burst_clock_mhz"]) else "")


def as_run_window(window_s: float | None) -> str:
    """How a GPU-only time ran, opening a parenthesis: "sustained" only for a window of at least
    rules.SUSTAINED_WINDOW_S, else named by its length."""
    if rules.sustained(window_s):
        return f"sustained (graph replays over {window_s:.1f} s, the GPU warm"
    if missing(window_s):
        return "as run (graph replays, the GPU warm; window length not recorded"
    return (f"as run (graph replays over {window_s:.2f} s, too short to call sustained, under "
            f"{rules.SUSTAINED_WINDOW_S:g} s")


def _scenario_of(b: dict, scenario: str | None) -> str:
    """Where our figure was timed, said where it is another scenario than the page's (published_sums.anchor_rows)."""
    theirs = b.get("ours_scenario")
    return (f" (timed in {theirs}, the scenario of the published figure: this one did not time it at this shape)"
            if scenario is not None and isinstance(theirs, str) and theirs != scenario else "")


def kernel_sum_first(b: dict) -> str:
    """A published kernel time against our kernel sum (published_sums.burst_sums), for the head of burst_line:
    "published 6.531 ms, its forward kernels' device time under a profiler, which our kernel sum is; ours 6.696 ms by
    kernel sum (1955 MHz), 1.03× it. Ours"; "" where the source's time is not a kernel time or we have no kernel sum."""
    if not b.get("kernel_time") or missing(b.get("ks_ms", math.nan)):
        return ""
    at = f"{b['ks_mhz']:.0f} MHz" if not missing(b["ks_mhz"]) else "clock not recorded"
    return (f"published {_ms(b['anchor_ms'])} ms, its forward kernels' device time under a profiler, which our kernel "
            f"sum is; ours {_ms(b['ks_ms'])} ms by kernel sum ({at}), {b['ks_vs_anchor']:.2f}× it. Ours")


def burst_line(b: dict, variant_label, env=None, scenario: str | None = None) -> str:
    """Sustained against burst and the published time (gen.analysis.clocks.burst_frame): the gap is
    the clock only when the clock rule holds for our sustained time and our own burst lands on the
    published time too; the publisher's clock is an assumption (sources do not state it). A published kernel time
    meets our kernel sum first (kernel_sum_first). `env`: the set's environment, whose power reading the power names
    (gen.report.words.tables.watts); `scenario`: the page's, where our figure may come from another."""
    first = kernel_sum_first(b)
    head = (f"At {b['kv_len']:,} tokens, {variant_label(b['variant'])}{_scenario_of(b, scenario)}: "
            + (first if first else f"published {_ms(b['anchor_ms'])} ms; ours")
            + f" {_ms(b['sustained_ms'])} ms {as_run_window(b.get('sustained_window_s'))}")
    if not missing(b["sustained_clock_mhz"]):
        head += f", {b['sustained_clock_mhz']:.0f} MHz"
        power = table_words.watts(b["sustained_power_w"], env)
        if power:
            head += f", {power}"
    head += ")"
    if not missing(b["burst_ms"]):
        head += _burst_words(b)
    head += f". Ours {'as run ' if first else ''}over published: {b['sustained_vs_anchor']:.2f}×."
    if isinstance(b["reason"], str):
        return head + f" The clock rule cannot be applied: {b['reason']}."
    tol = f"{rules.CLOCK_RULE_PCT:g}%"
    rule = (f" The clock rule assumes the publisher's calls ran at our burst clock, {b['burst_clock_mhz']:.0f} MHz "
            "(the source does not state its clock settings): the published time at our as-run clock would "
            f"read {_ms(b['anchor_ms'])} × {b['burst_clock_mhz']:.0f} / {b['sustained_clock_mhz']:.0f} = "
            f"{_ms(b['anchor_at_sustained_clock_ms'])} ms, and ours is {b['sustained_vs_anchor_at_clock']:.2f}× that "
            f"({'within' if b['sustained_explained'] == rules.YES else 'beyond'} {tol}).")
    burst = (f" Our own burst at that clock took {_ms(b['burst_ms'])} ms, {b['burst_vs_anchor']:.2f}× the published "
             f"time ({'within' if b['burst_explained'] == rules.YES else 'beyond'} {tol})")
    if b["explained"] == rules.YES:
        rule += burst + ": the gap is the clock."
    elif b["sustained_explained"] == rules.YES:
        rule += burst + ": the clock alone does not explain the gap."
    elif b["burst_explained"] == rules.YES:
        # Our burst lands on the published time: the same kernels at the same clock. The sustained
        # time is then the clock's doing, though not in proportion to it (a call's time need not
        # scale as 1/clock: memory and the clock's swings within the window do not follow it).
        faster = "less" if b["sustained_vs_anchor_at_clock"] < 1 else "more"
        rule += (burst + ": at the burst clock our call matches the published one, so the gap is the clock, "
                 f"though our as-run call slows {faster} than 1/clock predicts.")
    else:
        rule += burst + ": the clock does not explain the gap" + _work_timed(b) + "."
    if not missing(b["expected_burst_ms"]):
        rule += (f" Our burst against {_ms(b['expected_burst_ms'])} ms expected from the as-run time at the "
                 f"burst clock: {b['burst_vs_expected']:.2f}×.")
    return head + rule


def timed_elsewhere(rows: list[dict], scenario: str) -> list[str]:
    """Under a published table: the rows whose figures of ours were read in another scenario, the published figure's
    own, where the page's scenario did not time that call at that shape (published_sums.anchor_rows)."""
    other = {r["ours_scenario"] for r in rows
             if isinstance(r.get("ours_scenario"), str) and r["ours_scenario"] != scenario}
    return [f"Rows of {', '.join(sorted({r['anchor_name'] for r in rows if r.get('ours_scenario') == o}))}: ours as "
            f"timed in {o}, the published figure's own scenario: this one did not time that call at that shape."
            for o in sorted(other)]
