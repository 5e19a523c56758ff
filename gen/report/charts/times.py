"""GPU time per variant: of one set (`gpu_time`), of every set side by side
(`gpu_time_by_set`, its rows `compare_frame`), and the matrix of sets and scenarios (`fastest_map`: the
fastest variant of each).

Takes: summary tables (gen.analysis.tables.summary_table, the summary of every set) and the matrix's rows
(gen.report.pages.verdict.fastest_rows). Gives: Altair charts.
"""

from __future__ import annotations

import pandas as pd

from gen.analysis.values import number, variant_order
from gen.report import format as fmt
from gen.report.charts.base import MEASURED, MEASURED_COLOUR, PUBLISHED, ROW_PX, alt
from gen.report.charts.base import log as _log


def _summary_points(summary: pd.DataFrame) -> pd.DataFrame:
    ok = summary[summary["status"] == "ok"]
    # A GPU-only time that is a kernel sum (no CUDA graph of that call) says so on its row.
    sums = ok["gpu_only_method"] == "kernel_sum" if "gpu_only_method" in ok else pd.Series(False, index=ok.index)
    return pd.DataFrame({
        "label": [f"{x} (kernel sum)" if s else str(x) for x, s in zip(ok["label"], sums)],
        "median": [number(x, 4) for x in ok["gpu_only_ms"]],
        "q1": [number(x, 4) for x in ok["gpu_only_q1_ms"]],
        "q3": [number(x, 4) for x in ok["gpu_only_q3_ms"]],
        "n": [int(n) for n in ok["gpu_only_n"]],
    }).dropna(subset=["median"]).sort_values(["median", "label"])


def gpu_time(summary: pd.DataFrame, per: str = "forward") -> alt.LayerChart:
    """Median GPU-only time per variant (point) with its interquartile range (rule),
    on a log axis, fastest on top."""
    d = _summary_points(summary)
    order = list(d["label"])
    y = alt.Y("label:N", sort=order, title=None)
    rule = alt.Chart(d).mark_rule(strokeWidth=3, color=MEASURED_COLOUR).encode(
        x=alt.X("q1:Q", scale=_log(), title=f"GPU-only time per {per} (ms, log scale)"), x2=alt.X2("q3:Q"), y=y)
    point = alt.Chart(d).mark_point(filled=True, size=60, color=MEASURED_COLOUR).encode(
        x=alt.X("median:Q", scale=_log()), y=y,
        tooltip=[alt.Tooltip("label:N", title="variant"),
                 alt.Tooltip("median:Q", title="median (ms)", format=".4f"),
                 alt.Tooltip("q1:Q", title="Q1 (ms)", format=".4f"),
                 alt.Tooltip("q3:Q", title="Q3 (ms)", format=".4f"),
                 alt.Tooltip("n:Q", title="samples")])
    return alt.layer(rule, point, width="container", height=ROW_PX * max(1, len(order)) + 10)


# --------------------------------------------------------------------------- every set

SET_ROW_PX = 16  # per set, within each variant's band


def compare_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The chart's rows: every (set, variant) with a GPU-only time (or a published GPU time)."""
    cols = ["set", "variant", "gpu_only_ms", "gpu_only_q1_ms", "gpu_only_q3_ms", "kind"]
    d = df[df["gpu_only_ms"].notna()].reindex(columns=cols).copy()
    pub = d["kind"] == "reference"
    d["set"] = d["set"] + pub.map({True: " (published)", False: ""})
    d["figure"] = pub.map({True: PUBLISHED, False: MEASURED})
    # A published figure has no spread; a measured one without samples neither.
    d.loc[pub, ["gpu_only_q1_ms", "gpu_only_q3_ms"]] = float("nan")
    return d.reset_index(drop=True)


def gpu_time_by_set(df: pd.DataFrame) -> alt.LayerChart:
    """One row per variant, one dot per set within it (median GPU time, or the
    published figure as a hollow diamond), a rule over the IQR where there are
    samples; sets with no GPU time (CPU sets) are absent."""
    d = compare_frame(df)
    order = variant_order(d["variant"])
    n_sets = max(1, d["set"].nunique())
    title = "GPU-only time per forward (ms, log scale)"
    x = alt.X("gpu_only_ms:Q", scale=_log(), title=title)
    base = alt.Chart(d).encode(
        y=alt.Y("variant:N", sort=order, title=None),
        yOffset=alt.YOffset("set:N"),
        color=alt.Color("set:N", title="result set", legend=alt.Legend(orient="bottom", direction="vertical",
                                                                      labelLimit=0)))
    iqr = base.transform_filter("isValid(datum.gpu_only_q1_ms) && isValid(datum.gpu_only_q3_ms)").mark_rule(
        strokeWidth=2).encode(x=alt.X("gpu_only_q1_ms:Q", scale=_log(), title=title), x2=alt.X2("gpu_only_q3_ms:Q"))
    dots = base.mark_point(size=70, strokeWidth=2).encode(
        x=x,
        shape=alt.Shape("figure:N", title="figure", scale=alt.Scale(domain=[MEASURED, PUBLISHED],
                                                                    range=["circle", "diamond"]),
                        legend=alt.Legend(orient="bottom", labelLimit=0)),
        fill=alt.condition(alt.datum.kind == "reference", alt.value("transparent"), alt.Color("set:N", legend=None)),
        tooltip=[alt.Tooltip("set"), alt.Tooltip("variant"),
                 alt.Tooltip("gpu_only_ms:Q", title="GPU-only ms (median or published)", format=".4f"),
                 alt.Tooltip("gpu_only_q1_ms:Q", title="IQR from", format=".4f"),
                 alt.Tooltip("gpu_only_q3_ms:Q", title="IQR to", format=".4f"), alt.Tooltip("figure")])
    return alt.layer(iqr, dots, width="container", height=SET_ROW_PX * n_sets * len(order) + 10)


# --------------------------------------------------------------------------- the matrix

MAP_FIELDS = ("set_title", "scenario", "scenario_title", "point", "fastest_label", "fastest_ms", "basis",
              "runner_up", "ratio", "ratio_by", "sure")


def _text(rows: pd.DataFrame, col: str) -> list[str]:
    """A column of names as text, a dash where there is none (or no such column)."""
    return [str(x) if isinstance(x, str) and x else "–" for x in (rows[col] if col in rows else [None] * len(rows))]


def fastest_map(rows: pd.DataFrame) -> alt.LayerChart:
    """The fastest variant of every set (a row: GPU and PyTorch) in every scenario (a
    column), in one forward: the cell is coloured by the variant and names it; a pale cell
    is one whose order against the runner-up is not settled (gen.analysis.verdicts), its tooltip giving why as the
    rows word it (`sure`; "no" where a row has none), and the runner-up's ratio by the measure that decides, or by
    kernel sum where that puts one of two within noise behind (`ratio_by`; leads.Orders.answer); it names the
    variants tied with it (the same kernels) and those within noise.
    `rows` as gen.report.pages.verdict.fastest_rows gives them, in the sets' order; one
    colour per variant, in the declared order of the variants."""
    d = pd.DataFrame({
        "set_title": rows["set_title"].astype(str), "scenario": rows["scenario"].astype(str),
        "scenario_title": rows["scenario_title"].astype(str), "point": rows["point"].fillna("").astype(str),
        "fastest_label": rows["fastest_label"].astype(str),
        "fastest_ms": [number(x, 4) for x in rows["fastest_ms"]], "basis": rows["basis"].astype(str),
        "runner_up": rows["runner_up"].fillna("–").astype(str),
        "ratio": [number(x, 3) for x in rows["ratio"]], "ratio_by": _text(rows, "ratio_by"),
        "sure": [w if isinstance(w, str) and w else "yes" if s is True else "no" if s is False else "–"
                 for s, w in zip(rows["settled"], rows["sure"] if "sure" in rows else [None] * len(rows))],
        "near": _text(rows, "near"), "tie": _text(rows, "tie"),
    })
    sets = list(dict.fromkeys(d["set_title"]))
    scenarios = list(dict.fromkeys(d["scenario"]))
    labels = [fmt.label_of(v) for v in variant_order(rows["fastest"])]
    x = alt.X("scenario:N", sort=scenarios, title=None,
              axis=alt.Axis(orient="top", labelAngle=-40, labelAlign="left"))
    y = alt.Y("set_title:N", sort=sets, title=None)
    tooltip = [alt.Tooltip("set_title:N", title="set"), alt.Tooltip("scenario_title:N", title="scenario"),
               alt.Tooltip("point:N", title="at"), alt.Tooltip("fastest_label:N", title="fastest"),
               alt.Tooltip("fastest_ms:Q", title="median (ms)", format=".4g"),
               alt.Tooltip("basis:N", title="ranked by"), alt.Tooltip("runner_up:N", title="runner-up"),
               alt.Tooltip("ratio:Q", title="runner-up / fastest", format=".3f"),
               alt.Tooltip("ratio_by:N", title="ratio measured"),
               alt.Tooltip("sure:N", title="order settled"), alt.Tooltip("tie:N", title="tied (same kernels)"),
               alt.Tooltip("near:N", title="within noise")]
    cell = alt.Chart(d).mark_rect(stroke="#ffffff", strokeWidth=1).encode(
        x=x, y=y, tooltip=tooltip,
        color=alt.Color("fastest_label:N", title="fastest variant", scale=alt.Scale(domain=labels, scheme="tableau10"),
                        legend=alt.Legend(orient="bottom", direction="horizontal", columns=2)),
        opacity=alt.condition(alt.datum.sure == "yes", alt.value(0.9), alt.value(0.4)),  # settled: "yes" only
    )
    # A cell's name is cut to its cell (an ellipsis where it does not fit): names never run into the next cell.
    text = alt.Chart(d).mark_text(fontSize=10, limit=alt.ExprRef("max(bandwidth('x') - 6, 1)"), color="#1f1f24").encode(
        x=x, y=y, text=alt.Text("fastest_label:N"), tooltip=tooltip)
    return alt.layer(cell, text, width="container", height=ROW_PX * max(1, len(sets)))
