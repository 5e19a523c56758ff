"""The charts of one set in one scenario: GPU-only time (`scenario_time`), TFLOP/s or TB/s
(`scenario_rate`, under the measured ceilings) against length, with published figures beside ours, and the
roofline (`scenario_roofline`).

Takes: frames of gen.analysis.scenarios (`point_frame`, `anchor_frame`) of one set and scenario. Gives:
Altair charts. Measured points are filled circles, published ones hollow diamonds (MEASURED / PUBLISHED).
"""

from __future__ import annotations

import math

import pandas as pd

from gen.analysis.values import number, variant_order
from gen.report.charts.base import MEASURED, PUBLISHED, alt
from gen.report.charts.base import figure_shapes as _figure_shapes
from gen.report.charts.base import length as _length
from gen.report.charts.base import log as _log

# Every chart of a scenario: given to alt.layer as it is made (.properties() after it copies the whole chart again)
SIZE = dict(width="container", height=280)
_SCENARIO_NUMERIC = ("kv_len", "head_dim", "value", "q1", "q3", "intensity", "tflops")


def _clean(df: pd.DataFrame) -> pd.DataFrame:
    """Numbers as float columns (Altair writes their NaN as null; an object column of
    None would come out as NaN, which is not JSON), text as strings."""
    df = df.copy()
    for c in df.columns:
        df[c] = pd.to_numeric(df[c], errors="coerce").astype(float) if c in _SCENARIO_NUMERIC else df[c].astype(str)
    return df


def _measured(points: pd.DataFrame, col: str) -> pd.DataFrame:
    ok = points[(points["status"] == "ok") & (points["mode"] == "inference") & points[col].notna()]
    d = pd.DataFrame({
        "series": ok["variant"].astype(str), "kv_len": ok["kv_len"].astype(int), "head_dim": ok["head_dim"].astype(int),
        "value": [number(x, 6) for x in ok[col]], "figure": MEASURED,
    })
    if col == "gpu_only_ms":
        d["q1"] = [number(x, 6) for x in ok["gpu_only_q1_ms"]]
        d["q3"] = [number(x, 6) for x in ok["gpu_only_q3_ms"]]
    return d


def _published(anchors: pd.DataFrame, col: str, same_shape_only: bool) -> pd.DataFrame:
    a = anchors[anchors["mode"] == "inference"] if len(anchors) else anchors
    if len(a) and same_shape_only:
        a = a[a["same_shape"].astype(bool)]
    a = a[a[col].notna()] if len(a) else a
    return pd.DataFrame({
        "series": [f"{v} ({g}, published)" for v, g in zip(a["variant"], a["gpu"])],
        "kv_len": [int(x) for x in a["kv_len"]], "head_dim": [int(x) for x in a["head_dim"]],
        "value": [number(x, 6) for x in a[col]], "figure": PUBLISHED,
    })


def _series_order(d: pd.DataFrame) -> list[str]:
    measured = variant_order(d.loc[d["figure"] == MEASURED, "series"])
    return measured + sorted(set(d.loc[d["figure"] == PUBLISHED, "series"]))


def _ticks(d: pd.DataFrame) -> list[int]:
    """The lengths measured: the length axis is ticked at them (a few points would
    otherwise get linear-looking ticks between them)."""
    return sorted({int(x) for x in d["kv_len"].dropna()})


def _x(ticks: list[int], title: str) -> alt.X:
    """Lengths on a base-2 log axis, ticked at the lengths measured."""
    return alt.X("kv_len:Q", scale=_length(), title=title, axis=alt.Axis(values=ticks, format=",", labelAngle=0))


def _color(order: list[str]) -> alt.Color:
    # Up to 20 series: the measured variants and the published ones must not share a colour.
    return alt.Color("series:N", title=None, sort=order, scale=alt.Scale(scheme="tableau20"),
                     legend=alt.Legend(orient="bottom", columns=2, labelLimit=0))


def _lines(d: pd.DataFrame, order: list[str], ticks: list[int], y_title: str, x_title: str) -> alt.LayerChart:
    x = _x(ticks, x_title)
    color = _color(order)
    base = alt.Chart(d).encode(x=x, color=color)
    line = base.transform_filter(alt.datum.figure == MEASURED).mark_line().encode(
        y=alt.Y("value:Q", scale=_log(), title=y_title), detail=alt.Detail("head_dim:N"))
    dots = base.mark_point(size=60, strokeWidth=2).encode(
        y=alt.Y("value:Q", scale=_log(), title=y_title),
        shape=alt.Shape("figure:N", scale=_figure_shapes(), title=None, legend=alt.Legend(orient="bottom")),
        fill=alt.condition(alt.datum.figure == MEASURED, alt.Color("series:N", sort=order, legend=None,
                                                                   scale=alt.Scale(scheme="tableau20")),
                           alt.value("transparent")),
        tooltip=[alt.Tooltip("series:N", title="variant"), alt.Tooltip("kv_len:Q", title="length", format=","),
                 alt.Tooltip("head_dim:Q", title="head dim"), alt.Tooltip("value:Q", title=y_title, format=".4g"),
                 alt.Tooltip("figure:N")])
    return alt.layer(line, dots)


def _time_points(points: pd.DataFrame, anchors: pd.DataFrame) -> pd.DataFrame:
    d = pd.concat([_measured(points, "gpu_only_ms"), _published(anchors, "published_ms", True)], ignore_index=True)
    return _clean(d.reindex(columns=["series", "kv_len", "head_dim", "value", "figure", "q1", "q3"]))


def scenario_time(points: pd.DataFrame, anchors: pd.DataFrame, x_title: str) -> alt.LayerChart:
    """GPU-only time per call against length, per variant (line and dots; a rule over the IQR),
    with published times where the anchor has our exact shape. Log-log."""
    d = _time_points(points, anchors)
    order, ticks = _series_order(d), _ticks(d)
    title = "GPU-only time per call (ms, log scale)"
    iqr = alt.Chart(d).transform_filter("isValid(datum.q1) && isValid(datum.q3)").mark_rule(strokeWidth=3).encode(
        x=_x(ticks, x_title), y=alt.Y("q1:Q", scale=_log(), title=title), y2=alt.Y2("q3:Q"), color=_color(order))
    return alt.layer(iqr, _lines(d, order, ticks, title, x_title), **SIZE)


def _rule_frames(ceilings: list[tuple[str, float]]) -> dict[str, pd.DataFrame]:
    """The ceilings' rules, and one frame per ceiling's label (highest first); none without a ceiling."""
    frames = {}
    rules = pd.DataFrame([dict(ceiling=name, value=v) for name, v in ceilings if v and not math.isnan(v)])
    if len(rules):
        frames["rules"] = rules
        # The highest label above its rule, the others below theirs, each right of the one before (_label_dx):
        # two close ceilings stay legible.
        by_value = rules.sort_values("value", ascending=False).reset_index(drop=True)
        frames.update({f"label{i}": by_value.iloc[[i]] for i in range(len(by_value))})
    return frames


def scenario_rate(points: pd.DataFrame, anchors: pd.DataFrame, figure: str, y_title: str, x_title: str,
                  ceilings: list[tuple[str, float]]) -> alt.LayerChart:
    """TFLOP/s (figure "tflops") or TB/s ("tbps") against length per variant, published rates
    under our convention beside them (any shape), and each ceiling (label, value) as a dashed rule."""
    # Anchors publish rates of compute (prefill); none publishes a bandwidth.
    parts = [_measured(points, figure)] + ([_published(anchors, "tflops", False)] if figure == "tflops" else [])
    frames = {"d": _clean(pd.concat(parts, ignore_index=True)), **_rule_frames(ceilings)}
    order, ticks = _series_order(frames["d"]), _ticks(frames["d"])
    chart = _lines(frames["d"], order, ticks, y_title, x_title)
    if "rules" in frames:
        rule = alt.Chart(frames["rules"]).mark_rule(strokeDash=[5, 3], color="#444").encode(
            y=alt.Y("value:Q", scale=_log()), tooltip=[alt.Tooltip("ceiling"), alt.Tooltip("value:Q", format=".4g")])
        names = [str(frames[k]["ceiling"].iloc[0]) for k in frames if k.startswith("label")]
        labels = [alt.Chart(frames[f"label{i}"]).mark_text(align="left", dx=dx, dy=-6 if i == 0 else 12,
                                                           color="#444", fontSize=11).encode(
            x=alt.XValue(0), y=alt.Y("value:Q", scale=_log()), text=alt.Text("ceiling:N"))
            for i, dx in enumerate(_label_dx(names))]
        return alt.layer(chart, rule, *labels, **SIZE)
    return chart.properties(**SIZE)


LABEL_CHAR_PX = 7  # the most a character of an 11 px label takes, about


def _label_dx(names: list[str]) -> list[int]:
    """Each ceiling's label's offset from the left of the plot: one after the other, so that two ceilings
    close in value (the measured read and copy bandwidths) never write their labels over each other."""
    out, dx = [], 4
    for name in names:
        out.append(dx)
        dx += len(name) * LABEL_CHAR_PX + 10
    return out


def _roof_frames(points: pd.DataFrame, matmul_tflops: float, copy_tbps: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    ok = points[(points["status"] == "ok") & points["tflops"].notna()]
    ok = ok if len(ok) else points[(points["status"] == "ok") & points["gpu_only_ms"].notna()]
    tf = ok["flops"] / (ok["gpu_only_ms"] * 1e-3) / 1e12
    d = _clean(pd.DataFrame({"variant": ok["variant"].astype(str), "mode": ok["mode"].astype(str),
                             "kv_len": ok["kv_len"].astype(int), "intensity": [number(x, 4) for x in ok["intensity"]],
                             "tflops": [number(x, 4) for x in tf]}))
    lo = max(min(d["intensity"]) / 4, 0.1) if len(d) else 1.0
    hi = max(d["intensity"]) * 4 if len(d) else 1e3
    ridge = matmul_tflops / copy_tbps
    lo, hi = min(lo, ridge / 8), max(hi, ridge * 8)
    xs = [lo * (hi / lo) ** (i / 60) for i in range(61)]
    roof = pd.DataFrame(dict(intensity=xs, tflops=[min(matmul_tflops, x * copy_tbps) for x in xs]))
    return d, roof


def scenario_roofline(points: pd.DataFrame, matmul_tflops: float, copy_tbps: float, x_title: str) -> alt.LayerChart:
    """Arithmetic intensity (FLOPs per byte, both conventions of gen.analysis.scenarios) against
    achieved TFLOP/s, log-log, under the roof min(matmul ceiling, intensity × copy bandwidth)."""
    d, roof = _roof_frames(points, matmul_tflops, copy_tbps)
    order = variant_order(d["variant"]) if len(d) else []
    line = alt.Chart(roof).mark_line(color="#444", strokeDash=[4, 3]).encode(
        x=alt.X("intensity:Q", scale=_log(), title=x_title), y=alt.Y("tflops:Q", scale=_log()))
    pts = alt.Chart(d).mark_point(filled=True, size=60).encode(
        x=alt.X("intensity:Q", scale=_log(), title=x_title),
        y=alt.Y("tflops:Q", scale=_log(), title="achieved TFLOP/s (FlashAttention count)"),
        color=alt.Color("variant:N", sort=order, title=None, scale=alt.Scale(scheme="tableau20"),
                        legend=alt.Legend(orient="bottom", columns=3)),
        shape=alt.Shape("mode:N", title=None),
        tooltip=[alt.Tooltip("variant"), alt.Tooltip("mode"),
                 alt.Tooltip("kv_len:Q", format=","), alt.Tooltip("intensity:Q", format=".3g"),
                 alt.Tooltip("tflops:Q", format=".4g")])
    return alt.layer(line, pts, **SIZE)
