"""The charts of one set in one scenario: GPU-only time (`scenario_time`), TFLOP/s or TB/s
(`scenario_rate`, under the measured ceilings) against length, with published figures beside ours, and the
roofline (`scenario_roofline`).

Takes: frames of gen.analysis.scenarios (`point_frame`, `anchor_frame`) of one set and scenario. Gives:
Altair charts. Measured points are filled circles, published ones hollow diamonds (MEASURED / PUBLISHED).

Each view's mark, encoding and transforms are written in Vega-Lite's own JSON grammar (dicts, every field's
type given), and its data as rows (Vega-Lite's inline values); Altair's `Chart` and `layer` hold them and name
the datasets. A set draws some thirty of these charts, and Altair copies its channel objects several times a chart
and cleans each frame it is given: dicts copy cheaply, and rows need no cleaning.
"""

from __future__ import annotations

import math

import pandas as pd

from gen.analysis.values import number, variant_order
from gen.report.charts.base import FIGURE_SHAPES, LENGTH, LOG, MEASURED, PUBLISHED, alt, inline
from gen.report.charts.base import nominal as _n
from gen.report.charts.base import quantitative as _q
from gen.report.charts.base import view as _view

# Every chart of a scenario: given to alt.layer as it is made (.properties() after it copies the whole chart again)
SIZE = dict(width="container", height=280)
IS_MEASURED = f"(datum.figure === '{MEASURED}')"  # what alt.datum.figure == MEASURED writes
PALETTE = {"scheme": "tableau20"}  # up to 20 series: measured and published ones must not share a colour


def _measured(points: pd.DataFrame, col: str) -> list[dict]:
    """The chart's rows of our points: inference calls that ran, with the column's figure (`value`); a time's
    quartiles beside it (q1, q3). Lengths as floats, as every number a chart's row holds."""
    ok = points[(points["status"] == "ok") & (points["mode"] == "inference") & points[col].notna()]
    rows = [dict(series=str(v), kv_len=float(int(k)), head_dim=float(int(h)), value=number(x, 6), figure=MEASURED)
            for v, k, h, x in zip(ok["variant"], ok["kv_len"], ok["head_dim"], ok[col])]
    if col == "gpu_only_ms":
        for r, q1, q3 in zip(rows, ok["gpu_only_q1_ms"], ok["gpu_only_q3_ms"]):
            r.update(q1=number(q1, 6), q3=number(q3, 6))
    return rows


def _published(anchors: pd.DataFrame, col: str, same_shape_only: bool) -> list[dict]:
    """The chart's rows of published figures (gen.analysis.scenarios.anchor_frame) with the column's figure."""
    a = anchors[anchors["mode"] == "inference"] if len(anchors) else anchors
    if len(a) and same_shape_only:
        a = a[a["same_shape"].astype(bool)]
    a = a[a[col].notna()] if len(a) else a
    if not len(a):
        return []
    return [dict(series=f"{v} ({g}, published)", kv_len=float(int(k)), head_dim=float(int(h)), value=number(x, 6),
                 figure=PUBLISHED) for v, g, k, h, x in zip(a["variant"], a["gpu"], a["kv_len"], a["head_dim"], a[col])]


def _series_order(rows: list[dict]) -> list[str]:
    measured = variant_order(r["series"] for r in rows if r["figure"] == MEASURED)
    return measured + sorted({r["series"] for r in rows if r["figure"] == PUBLISHED})


def _ticks(rows: list[dict]) -> list[int]:
    """The lengths measured: the length axis is ticked at them (a few points would
    otherwise get linear-looking ticks between them)."""
    return sorted({int(r["kv_len"]) for r in rows})


def _x(ticks: list[int], title: str) -> dict:
    """Lengths on a base-2 log axis, ticked at the lengths measured."""
    return _q("kv_len", scale=LENGTH, title=title, axis={"values": ticks, "format": ",", "labelAngle": 0})


def _color(order: list[str]) -> dict:
    return _n("series", title=None, sort=order, scale=PALETTE,
              legend={"orient": "bottom", "columns": 2, "labelLimit": 0})


def _lines(d: dict | None, order: list[str], ticks: list[int], y_title: str,
           x_title: str) -> alt.LayerChart:
    """Lines through the measured points, dots at every point (filled where measured): of `d`, or of the
    data of the layer that holds them (None)."""
    x, color, y = _x(ticks, x_title), _color(order), _q("value", scale=LOG, title=y_title)
    line = _view(None, {"type": "line"}, [{"filter": IS_MEASURED}], x=x, color=color, y=y, detail=_n("head_dim"))
    dots = _view(
        None, {"type": "point", "size": 60, "strokeWidth": 2}, x=x, color=color, y=y,
        shape=_n("figure", scale=FIGURE_SHAPES, title=None, legend={"orient": "bottom"}),
        fill={"condition": _n("series", test=IS_MEASURED, sort=order, legend=None, scale=PALETTE),
              "value": "transparent"},
        tooltip=[_n("series", title="variant"), _q("kv_len", title="length", format=","),
                 _q("head_dim", title="head dim"), _q("value", title=y_title, format=".4g"), _n("figure")])
    return alt.layer(line, dots, **({} if d is None else {"data": d}))


def scenario_time(points: pd.DataFrame, anchors: pd.DataFrame, x_title: str) -> alt.LayerChart:
    """GPU-only time per call against length, per variant (line and dots; a rule over the IQR),
    with published times where the anchor has our exact shape. Log-log."""
    # (a published time has no quartiles: its q1 and q3 are null, as every row holds every field)
    rows = _measured(points, "gpu_only_ms") + [dict(r, q1=None, q3=None)
                                                for r in _published(anchors, "published_ms", True)]
    order, ticks = _series_order(rows), _ticks(rows)
    title = "GPU-only time per call (ms, log scale)"
    iqr = _view(None, {"type": "rule", "strokeWidth": 3}, [{"filter": "isValid(datum.q1) && isValid(datum.q3)"}],
                x=_x(ticks, x_title), y=_q("q1", scale=LOG, title=title), y2={"field": "q3"}, color=_color(order))
    return alt.layer(iqr, _lines(None, order, ticks, title, x_title), data=inline(rows), **SIZE)


def _rule_rows(ceilings: list[tuple[str, float]]) -> list[dict]:
    """The ceilings' rules (label, value), in the order given; none without a ceiling."""
    return [dict(ceiling=name, value=float(v)) for name, v in ceilings if v and not math.isnan(v)]


def scenario_rate(points: pd.DataFrame, anchors: pd.DataFrame, figure: str, y_title: str, x_title: str,
                  ceilings: list[tuple[str, float]]) -> alt.LayerChart:
    """TFLOP/s (figure "tflops") or TB/s ("tbps") against length per variant, published rates
    under our convention beside them (any shape), and each ceiling (label, value) as a dashed rule."""
    # Anchors publish rates of compute (prefill); none publishes a bandwidth.
    rows = _measured(points, figure) + (_published(anchors, "tflops", False) if figure == "tflops" else [])
    order, ticks = _series_order(rows), _ticks(rows)
    chart = _lines(inline(rows), order, ticks, y_title, x_title)
    rules = _rule_rows(ceilings)
    if not rules:
        return chart.properties(**SIZE)
    rule = _view(inline(rules), {"type": "rule", "strokeDash": [5, 3], "color": "#444"},
                 y=_q("value", scale=LOG), tooltip=[_n("ceiling"), _q("value", format=".4g")])
    # The highest label above its rule, the others below theirs, each right of the one before (_label_dx): two
    # close ceilings stay legible.
    highest = sorted(rules, key=lambda r: r["value"], reverse=True)
    labels = [_view(inline([r]), {"type": "text", "align": "left", "dx": dx, "dy": -6 if i == 0 else 12,
                                                 "color": "#444", "fontSize": 11},
                    x={"value": 0}, y=_q("value", scale=LOG), text=_n("ceiling"))
              for i, (r, dx) in enumerate(zip(highest, _label_dx([r["ceiling"] for r in highest])))]
    return alt.layer(chart, rule, *labels, **SIZE)


LABEL_CHAR_PX = 7  # the most a character of an 11 px label takes, about


def _label_dx(names: list[str]) -> list[int]:
    """Each ceiling's label's offset from the left of the plot: one after the other, so that two ceilings
    close in value (the measured read and copy bandwidths) never write their labels over each other."""
    out, dx = [], 4
    for name in names:
        out.append(dx)
        dx += len(name) * LABEL_CHAR_PX + 10
    return out


def _finite(x: float) -> float | None:
    """A number of a chart's row: None where it is missing or not finite (JSON has no NaN nor infinity)."""
    return x if math.isfinite(x) else None


def _roof_rows(points: pd.DataFrame, matmul_tflops: float, copy_tbps: float) -> tuple[list[dict], list[dict]]:
    """Our points' rows (their bounds fit the roof around them) and the roof's rows."""
    ok = points[(points["status"] == "ok") & points["tflops"].notna()]
    ok = ok if len(ok) else points[(points["status"] == "ok") & points["gpu_only_ms"].notna()]
    tf = ok["flops"] / (ok["gpu_only_ms"] * 1e-3) / 1e12
    nan = math.nan
    intensity = [nan if (x := number(i, 4)) is None else x for i in ok["intensity"]]
    d = [dict(variant=str(v), mode=str(m), kv_len=float(int(k)), intensity=_finite(i),
              tflops=_finite(nan if (x := number(t, 4)) is None else x))
         for v, m, k, i, t in zip(ok["variant"], ok["mode"], ok["kv_len"], intensity, tf)]
    lo = max(min(intensity) / 4, 0.1) if d else 1.0
    hi = max(intensity) * 4 if d else 1e3
    ridge = matmul_tflops / copy_tbps
    lo, hi = min(lo, ridge / 8), max(hi, ridge * 8)
    xs = [lo * (hi / lo) ** (i / 60) for i in range(61)]
    roof = [dict(intensity=float(x), tflops=float(min(matmul_tflops, x * copy_tbps))) for x in xs]
    return d, roof


def scenario_roofline(points: pd.DataFrame, matmul_tflops: float, copy_tbps: float, x_title: str) -> alt.LayerChart:
    """Arithmetic intensity (FLOPs per byte, both conventions of gen.analysis.scenarios) against
    achieved TFLOP/s, log-log, under the roof min(matmul ceiling, intensity × copy bandwidth)."""
    d, roof = _roof_rows(points, matmul_tflops, copy_tbps)
    order = variant_order(r["variant"] for r in d)
    line = _view(inline(roof), {"type": "line", "color": "#444", "strokeDash": [4, 3]},
                 x=_q("intensity", scale=LOG, title=x_title), y=_q("tflops", scale=LOG))
    pts = _view(
        inline(d), {"type": "point", "filled": True, "size": 60}, x=_q("intensity", scale=LOG, title=x_title),
        y=_q("tflops", scale=LOG, title="achieved TFLOP/s (FlashAttention count)"),
        color=_n("variant", sort=order, title=None, scale=PALETTE, legend={"orient": "bottom", "columns": 3}),
        shape=_n("mode", title=None),
        tooltip=[_n("variant"), _n("mode"), _q("kv_len", format=","), _q("intensity", format=".3g"),
                 _q("tflops", format=".4g")])
    return alt.layer(line, pts, **SIZE)
