"""The charts of one set in one scenario: GPU-only time (`scenario_time`), TFLOP/s or TB/s
(`scenario_rate`, under the measured ceilings) against length, with published figures beside ours, and the
roofline (`scenario_roofline`); each with its `*_spec`, the same spec from the page's rows, made faster.

Takes: frames of gen.analysis.scenarios (`point_frame`, `anchor_frame`) of one set and scenario, or the
point frame's rows. Gives: Altair charts, or their specs. Measured points are filled circles, published ones
hollow diamonds (MEASURED / PUBLISHED).
"""

from __future__ import annotations

import math

import pandas as pd

from gen.analysis.scenarios import tflops_at
from gen.analysis.values import missing, number, variant_order
from gen.report.charts.base import MEASURED, PUBLISHED, alt
from gen.report.charts.base import figure_shapes as _figure_shapes
from gen.report.charts.base import length as _length
from gen.report.charts.base import log as _log
from gen.report.charts.fill import fast as _fast
from gen.report.charts.fill import open_shape as _open

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
        y=alt.Y("value:Q", scale=_log(), title=y_title), detail="head_dim:N")
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


def _finite(x) -> float | None:
    """number(x, 6) as _clean's float column holds it and values_of writes it: None where missing or infinite."""
    x = number(x, 6)
    return x if x is not None and math.isfinite(x) else None


def _frame(points) -> pd.DataFrame:
    """A point frame, or one given as a function that makes it (the page has the frame's rows: the
    frame is made only where a chart's shape is new or its rows do not fill it)."""
    return points() if callable(points) else points


def _columns(points: pd.DataFrame, cols, rows: list[dict] | None) -> list[tuple]:
    """The frame's columns `cols` row by row, read off `rows` (values.rows(points), where the caller has
    them: the same Python values a column's tolist gives) or else off the frame."""
    if rows is not None:
        return [tuple(r[c] for c in cols) for r in rows]
    points = _frame(points)
    return list(zip(*(points[c].tolist() for c in cols)))


def _measured_rows(points: pd.DataFrame, col: str, rows: list[dict] | None = None) -> list[dict]:
    """values_of(_clean(_measured(points, col))), read off the columns (tests compare them); `rows`: as _columns."""
    cols = ["status", "mode", col, "variant", "kv_len", "head_dim"] + \
        (["gpu_only_q1_ms", "gpu_only_q3_ms"] if col == "gpu_only_ms" else [])
    out = []
    for r in _columns(points, cols, rows):
        if r[0] == "ok" and r[1] == "inference" and not missing(r[2]):
            row = dict(series=str(r[3]), kv_len=float(int(r[4])), head_dim=float(int(r[5])), value=_finite(r[2]),
                       figure=MEASURED)
            if col == "gpu_only_ms":
                row.update(q1=_finite(r[6]), q3=_finite(r[7]))
            out.append(row)
    return out


def _published_rows(anchors: pd.DataFrame, col: str, same_shape_only: bool) -> list[dict]:
    """values_of(_clean(_published(anchors, col, same_shape_only)))."""
    if not len(anchors):
        return []
    out = []
    for mode, same, v, g, kv, d, x in zip(*(anchors[c].tolist() for c in ("mode", "same_shape", "variant", "gpu",
                                                                         "kv_len", "head_dim", col))):
        if mode == "inference" and (bool(same) or not same_shape_only) and not missing(x):
            out.append(dict(series=f"{v} ({g}, published)", kv_len=float(int(kv)), head_dim=float(int(d)),
                            value=_finite(x), figure=PUBLISHED))
    return out


def _order_and_ticks(rows: list[dict]) -> tuple[list[str], list[int]]:
    """_series_order and _ticks of the rows' frame."""
    order = variant_order([r["series"] for r in rows if r["figure"] == MEASURED]) + \
        sorted({r["series"] for r in rows if r["figure"] == PUBLISHED})
    return order, sorted({int(r["kv_len"]) for r in rows})


def _time_points(points: pd.DataFrame, anchors: pd.DataFrame) -> pd.DataFrame:
    d = pd.concat([_measured(points, "gpu_only_ms"), _published(anchors, "published_ms", True)], ignore_index=True)
    return _clean(d.reindex(columns=["series", "kv_len", "head_dim", "value", "figure", "q1", "q3"]))


def scenario_time(points: pd.DataFrame, anchors: pd.DataFrame, x_title: str) -> alt.LayerChart:
    """GPU-only time per call against length, per variant (line and dots; a rule over the IQR),
    with published times where the anchor has our exact shape. Log-log."""
    d = _time_points(points, anchors)
    return _scenario_time(d, _series_order(d), _ticks(d), x_title)


def scenario_time_spec(points, anchors: pd.DataFrame, x_title: str, point_rows: list[dict] | None = None) -> dict:
    # The chart's rows read off the point and anchor frames where its shape is known (no frames
    # made: a third of a scenario page's charts' time); the frames and Altair otherwise.
    # `point_rows`: values.rows(points), where the caller has them (no column read). `points`: the
    # point frame, or a function that makes it (_frame).
    rows = [dict(r, **({} if "q1" in r else dict(q1=None, q3=None)))
            for r in _measured_rows(points, "gpu_only_ms", point_rows) + _published_rows(anchors, "published_ms", True)]
    if rows:
        order, ticks = _order_and_ticks(rows)
        got = _open(("scenario_time", x_title), lambda: {"d": _time_points(_frame(points), anchors)},
                    lambda f, o, t: _scenario_time(f["d"], o, t, x_title), order, ticks, {"d": rows})
        if got is not None:
            return got
    d = _time_points(_frame(points), anchors)
    order, ticks = _series_order(d), _ticks(d)
    return _fast(("scenario_time", tuple(order), tuple(ticks), x_title), {"d": d},
                 lambda f: _scenario_time(f["d"], order, ticks, x_title))


def _scenario_time(d: pd.DataFrame, order: list[str], ticks: list[int], x_title: str) -> alt.LayerChart:
    title = "GPU-only time per call (ms, log scale)"
    iqr = alt.Chart(d).transform_filter("isValid(datum.q1) && isValid(datum.q3)").mark_rule(strokeWidth=3).encode(
        x=_x(ticks, x_title), y=alt.Y("q1:Q", scale=_log(), title=title), y2="q3:Q", color=_color(order))
    return alt.layer(iqr, _lines(d, order, ticks, title, x_title)).properties(width="container", height=280)


def _rate_frames(points: pd.DataFrame, anchors: pd.DataFrame, figure: str,
                 ceilings: list[tuple[str, float]]) -> dict[str, pd.DataFrame]:
    """The points, the ceilings' rules, and one frame per ceiling's label (highest first)."""
    # Anchors publish rates of compute (prefill); none publishes a bandwidth.
    parts = [_measured(points, figure)] + ([_published(anchors, "tflops", False)] if figure == "tflops" else [])
    return {"d": _clean(pd.concat(parts, ignore_index=True)), **_rule_frames(ceilings)}


def _rule_rows(ceilings: list[tuple[str, float]]) -> dict[str, list[dict]]:
    """fill.values_of of each of _rule_frames' frames, made from the ceilings with no frame (tests compare them):
    a frame and a sort per chart before."""
    rules = [dict(ceiling=name, value=v) for name, v in ceilings if v and not math.isnan(v)]
    if not rules:
        return {}
    if not all(type(r["value"]) is int for r in rules):  # (the frame's column: int where every value is one)
        rules = [dict(r, value=float(r["value"])) for r in rules]
    # (sort_values' order, highest first: equal values keep theirs, as its stable sort of a few rows)
    by_value = sorted(rules, key=lambda r: -r["value"])
    def value(r: dict) -> dict:
        return r if type(r["value"]) is int else dict(r, value=_finite_or_none(r["value"]))

    return {"rules": [value(r) for r in rules], **{f"label{i}": [value(r)] for i, r in enumerate(by_value)}}


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
    frames = _rate_frames(points, anchors, figure, ceilings)
    return _scenario_rate(frames, _series_order(frames["d"]), _ticks(frames["d"]), y_title, x_title)


def scenario_rate_spec(points, anchors: pd.DataFrame, figure: str, y_title: str, x_title: str,
                       ceilings: list[tuple[str, float]], point_rows: list[dict] | None = None) -> dict:
    # `points`: as scenario_time_spec's.
    rows = _measured_rows(points, figure, point_rows) + (_published_rows(anchors, "tflops", False)
                                                         if figure == "tflops" else [])
    if rows:  # as scenario_time_spec: the rows read off the frames (the ceilings' with no frame)
        order, ticks = _order_and_ticks(rows)
        rules = _rule_rows(ceilings)
        names = tuple(r[0]["ceiling"] for k, r in rules.items() if k.startswith("label"))
        got = _open(("scenario_rate", y_title, x_title, ("d", *rules), names),
                    lambda: _rate_frames(_frame(points), anchors, figure, ceilings),
                    lambda f, o, t: _scenario_rate(f, o, t, y_title, x_title), order, ticks, {"d": rows, **rules})
        if got is not None:
            return got
    frames = _rate_frames(_frame(points), anchors, figure, ceilings)
    order, ticks = _series_order(frames["d"]), _ticks(frames["d"])
    names = tuple(f["ceiling"].iloc[0] for k, f in frames.items() if k.startswith("label"))
    return _fast(("scenario_rate", tuple(order), tuple(ticks), y_title, x_title, tuple(frames), names), frames,
                 lambda f: _scenario_rate(f, order, ticks, y_title, x_title))


LABEL_CHAR_PX = 7  # the most a character of an 11 px label takes, about


def _label_dx(names: list[str]) -> list[int]:
    """Each ceiling's label's offset from the left of the plot: one after the other, so that two ceilings
    close in value (the measured read and copy bandwidths) never write their labels over each other."""
    out, dx = [], 4
    for name in names:
        out.append(dx)
        dx += len(name) * LABEL_CHAR_PX + 10
    return out


def _scenario_rate(frames: dict[str, pd.DataFrame], order: list[str], ticks: list[int], y_title: str,
                   x_title: str) -> alt.LayerChart:
    chart = _lines(frames["d"], order, ticks, y_title, x_title)
    if "rules" in frames:
        rule = alt.Chart(frames["rules"]).mark_rule(strokeDash=[5, 3], color="#444").encode(
            y=alt.Y("value:Q", scale=_log()), tooltip=["ceiling", alt.Tooltip("value:Q", format=".4g")])
        names = [str(frames[k]["ceiling"].iloc[0]) for k in frames if k.startswith("label")]
        labels = [alt.Chart(frames[f"label{i}"]).mark_text(align="left", dx=dx, dy=-6 if i == 0 else 12,
                                                           color="#444", fontSize=11).encode(
            x=alt.value(0), y=alt.Y("value:Q", scale=_log()), text="ceiling:N")
            for i, dx in enumerate(_label_dx(names))]
        chart = alt.layer(chart, rule, *labels)
    return chart.properties(width="container", height=280)


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
    return _scenario_roofline(d, roof, variant_order(d["variant"]) if len(d) else [], x_title)


def _roof_rows(points: pd.DataFrame, matmul_tflops: float, copy_tbps: float,
               rows: list[dict] | None = None) -> tuple[list[dict], list[dict]]:
    """fill.values_of of each of _roof_frames' frames, read off the point frame's columns (tests compare them);
    `rows`: as _columns."""
    cols = ("status", "tflops", "gpu_only_ms", "variant", "mode", "kv_len", "intensity", "flops")
    pts = _columns(points, cols, rows)
    ok = [r for r in pts if r[0] == "ok" and not missing(r[1])] or \
        [r for r in pts if r[0] == "ok" and not missing(r[2])]
    # float64 arithmetic as the frame's columns do it, each number rounded as number() and NaN kept
    # where _clean's to_numeric makes one (min and max below read the column so)
    nan = float("nan")
    inten = [nan if (x := number(i, 4)) is None else x for *_, i, _f in ok]
    tf = [nan if (x := number(tflops_at(f, ms), 4)) is None else x for _s, _t, ms, *_, f in ok]
    d = [dict(variant=str(v), mode=str(m), kv_len=float(int(kv)), intensity=_finite_or_none(i),
              tflops=_finite_or_none(t)) for (_s, _t, _ms, v, m, kv, _i, _f), i, t in zip(ok, inten, tf)]
    lo = max(min(inten) / 4, 0.1) if ok else 1.0
    hi = max(inten) * 4 if ok else 1e3
    ridge = matmul_tflops / copy_tbps
    lo, hi = min(lo, ridge / 8), max(hi, ridge * 8)
    xs = [lo * (hi / lo) ** (i / 60) for i in range(61)]
    roof = [dict(intensity=_finite_or_none(x), tflops=_finite_or_none(min(matmul_tflops, x * copy_tbps))) for x in xs]
    return d, roof


def _finite_or_none(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def scenario_roofline_spec(points, matmul_tflops: float, copy_tbps: float, x_title: str,
                           point_rows: list[dict] | None = None) -> dict:
    # As scenario_time_spec: the rows read off the point frame where the shape is known (`points` as its).
    rows, roof_rows = _roof_rows(points, matmul_tflops, copy_tbps, point_rows)
    if rows:
        got = _open(("scenario_roofline", x_title),
                    lambda: dict(zip(("d", "roof"), _roof_frames(_frame(points), matmul_tflops, copy_tbps))),
                    lambda f, o, _: _scenario_roofline(f["d"], f["roof"], o, x_title),
                    variant_order([r["variant"] for r in rows]), None, {"d": rows, "roof": roof_rows})
        if got is not None:
            return got
    d, roof = _roof_frames(_frame(points), matmul_tflops, copy_tbps)
    order = variant_order(d["variant"]) if len(d) else []
    return _fast(("scenario_roofline", tuple(order), x_title), {"d": d, "roof": roof},
                 lambda f: _scenario_roofline(f["d"], f["roof"], order, x_title))


def _scenario_roofline(d: pd.DataFrame, roof: pd.DataFrame, order: list[str], x_title: str) -> alt.LayerChart:
    line = alt.Chart(roof).mark_line(color="#444", strokeDash=[4, 3]).encode(
        x=alt.X("intensity:Q", scale=_log(), title=x_title), y=alt.Y("tflops:Q", scale=_log()))
    pts = alt.Chart(d).mark_point(filled=True, size=60).encode(
        x=alt.X("intensity:Q", scale=_log(), title=x_title),
        y=alt.Y("tflops:Q", scale=_log(), title="achieved TFLOP/s (FlashAttention count)"),
        color=alt.Color("variant:N", sort=order, title=None, scale=alt.Scale(scheme="tableau20"),
                        legend=alt.Legend(orient="bottom", columns=3)),
        shape=alt.Shape("mode:N", title=None),
        tooltip=["variant", "mode", alt.Tooltip("kv_len:Q", format=","), alt.Tooltip("intensity:Q", format=".3g"),
                 alt.Tooltip("tflops:Q", format=".4g")])
    return alt.layer(line, pts).properties(width="container", height=280)
