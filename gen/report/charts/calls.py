"""Charts of calls of one set: each variant's first call at a new length against its steady call
(`dynamic_lengths`, the dynamic-lengths scenario), what each new length cost beyond a warm call (`new_length_cost`)
and a training step's forward and backward, stacked (`fwd_bwd`).

Takes: rows of gen.analysis.dynamic.length_rows and .new_length_rows, and of gen.analysis.fwdbwd (plain records).
Gives: Altair charts, and the frames they draw (`dynamic_lengths_frame`, `fwd_bwd_frame`).
"""

from __future__ import annotations

import pandas as pd

from gen.analysis.values import missing, number, variant_order
from gen.report import format as fmt
from gen.report.charts.base import ROW_PX, alt
from gen.report.charts.base import log as _log

FIRST_CALL, STEADY_CALL, GPU_ONLY = "first call", "steady call", "GPU-only"
_DASH = {FIRST_CALL: [1, 0], STEADY_CALL: [4, 3], GPU_ONLY: [1, 2]}
_SHAPE = {FIRST_CALL: "circle", STEADY_CALL: "square", GPU_ONLY: "triangle"}


def dynamic_lengths_frame(rows: list[dict]) -> pd.DataFrame:
    """The chart's rows: variant label, KV length, kind of call, ms (positive: a log axis)."""
    ok = [r for r in rows if not missing(r["ms"]) and r["ms"] > 0]
    return pd.DataFrame({
        "series": [fmt.label_of(r["variant"]) for r in ok], "kv_len": [int(r["kv_len"]) for r in ok],
        "call": [str(r["call"]) for r in ok], "ms": [number(r["ms"], 6) for r in ok]},
        columns=["series", "kv_len", "call", "ms"])


def _call_legend():  # one legend for the kind of call, the dash's and the shape's merged (altair is imported late)
    return alt.Legend(orient="top", direction="horizontal")


def dynamic_lengths(rows: list[dict], x_title: str) -> alt.LayerChart:
    """Per variant, its first call at each new length (solid line), its warm call in a loop there (dashed) and,
    where recorded, its GPU-only time (dotted), in ms on a log axis against the length: the gap between the first
    two is what each new length costs; between the last two, what the loop waited on the host."""
    d = dynamic_lengths_frame(rows)
    calls = [c for c in _DASH if c in set(d["call"])]
    order = variant_order(dict.fromkeys(r["variant"] for r in rows))
    labels = list(dict.fromkeys(fmt.label_of(v) for v in order))
    color = alt.Color("series:N", title=None, sort=labels, scale=alt.Scale(scheme="tableau10"),
                      legend=alt.Legend(orient="bottom", columns=2, labelLimit=0))
    # the dash and the shape mark the same field: one legend, both given it alike (a legend on one and none on the
    # other is a conflict Vega-Lite warns of, "Conflicting legend property"); above the chart, the series' below (side
    # by side, the calls' legend fell outside the chart at 390 px)
    dash = alt.StrokeDash("call:N", title=None, scale=alt.Scale(domain=calls, range=[_DASH[c] for c in calls]),
                          legend=_call_legend())
    x = alt.X("kv_len:Q", title=x_title, scale=alt.Scale(zero=False, nice=False),
              axis=alt.Axis(format=",d", labelAngle=0))
    y = alt.Y("ms:Q", scale=_log(), title="time of the call (ms, log scale)")
    base = alt.Chart(d).encode(x=x, y=y, color=color)
    line = base.mark_line().encode(strokeDash=dash, detail=alt.Detail("call:N"))
    dots = base.mark_point(size=30, filled=True).encode(
        shape=alt.Shape("call:N", title=None, legend=_call_legend(),
                        scale=alt.Scale(domain=calls, range=[_SHAPE[c] for c in calls])),
        tooltip=[alt.Tooltip("series:N", title="variant"), alt.Tooltip("call:N", title="call"),
                 alt.Tooltip("kv_len:Q", title="KV length", format=","),
                 alt.Tooltip("ms:Q", title="ms", format=".4g")])
    return alt.layer(line, dots, width="container", height=260)


def new_length_cost(rows: list[dict], x_title: str, y_title: str, variants=()) -> alt.LayerChart:
    """Per variant, what each new length cost beyond a warm call (gen.analysis.dynamic.new_length_rows), in ms on a log
    axis against the length: a plan built per length (cuDNN's tens of ms) stands apart from calls that only launch
    (tenths of a ms). A cost of zero has no place on the log axis: left out (the page counts it). `variants`: those
    the page's other chart of the phase draws, so that a variant has one colour on both (the legend names those
    drawn here). A line breaks where a length has no mark (it bridged two lengths of
    FlashAttention-4 at no cost, reading about 0.08 ms there): each run of marked lengths is its own segment."""
    ok, part, seg = [], {}, {}
    for r in sorted(rows, key=lambda r: (r["variant"], int(r["kv_len"]))):
        if missing(r["ms"]) or not r["ms"] > 0:
            part[r["variant"]] = part.get(r["variant"], 0) + 1
            continue
        ok.append(r)
        seg[id(r)] = f"{r['variant']}#{part.get(r['variant'], 0)}"
    d = pd.DataFrame({"series": [fmt.label_of(r["variant"]) for r in ok], "kv_len": [int(r["kv_len"]) for r in ok],
                      "ms": [number(r["ms"], 6) for r in ok], "segment": [seg[id(r)] for r in ok]},
                     columns=["series", "kv_len", "ms", "segment"])
    labels = list(dict.fromkeys(fmt.label_of(v) for v in variant_order(
        dict.fromkeys([*variants, *(r["variant"] for r in rows)]))))
    shown = [x for x in labels if x in set(d["series"])]
    color = alt.Color("series:N", title=None, sort=labels, scale=alt.Scale(domain=labels, scheme="tableau10"),
                      legend=alt.Legend(orient="bottom", columns=2, labelLimit=0, values=shown))
    x = alt.X("kv_len:Q", title=x_title, scale=alt.Scale(zero=False, nice=False),
              axis=alt.Axis(format=",d", labelAngle=0))
    # a log axis to whole powers of ten: the decades apart read off at a glance
    base = alt.Chart(d).encode(x=x, y=alt.Y("ms:Q", scale=alt.Scale(type="log", nice=True), title=y_title),
                               color=color)
    dots = base.mark_point(size=30, filled=True).encode(
        tooltip=[alt.Tooltip("series:N", title="variant"), alt.Tooltip("kv_len:Q", title="KV length", format=","),
                 alt.Tooltip("ms:Q", title="the new length cost (ms)", format=".4g")])
    return alt.layer(base.mark_line(opacity=0.7).encode(detail="segment:N"), dots, width="container", height=240)


def fwd_bwd_frame(rows: list[dict]) -> pd.DataFrame:
    """One row per variant (and point) and part of a training step: label, part, ms, where both parts
    were recorded."""
    out = []
    for r in rows:
        if missing(r.get("fwd_ms")) or missing(r.get("bwd_ms")):
            continue
        for part, col in (("forward", "fwd_ms"), ("backward", "bwd_ms")):
            out.append(dict(label=str(r["label"]), part=part, ms=number(r[col], 6), order=r["order"]))
    return pd.DataFrame(out, columns=["label", "part", "ms", "order"])


def fwd_bwd(rows: list[dict]) -> alt.Chart:
    """A training step's forward and backward, stacked, per variant (GPU-only medians, each timed apart):
    the backward is most of a step, and variants differ in it more than in their forward."""
    d = fwd_bwd_frame(rows)
    labels = list(dict.fromkeys(d.sort_values(["order", "label"])["label"]))
    return alt.Chart(d).mark_bar().encode(
        x=alt.X("ms:Q", title="GPU-only time per training step, forward then backward (ms)", stack="zero"),
        y=alt.Y("label:N", sort=labels, title=None),
        color=alt.Color("part:N", title=None, sort=["forward", "backward"],
                        scale=alt.Scale(domain=["forward", "backward"], range=["#4f7fd6", "#e8590c"]),
                        legend=alt.Legend(orient="bottom")),
        order=alt.Order("part_order:Q"),
        tooltip=[alt.Tooltip("label:N", title="variant"), alt.Tooltip("part:N", title="part"),
                 alt.Tooltip("ms:Q", title="median (ms)", format=".4f")],
    ).transform_calculate(part_order="datum.part === 'forward' ? 0 : 1").properties(
        width="container", height=ROW_PX * max(1, len(labels)) + 10)
