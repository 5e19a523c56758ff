"""A scenario's verdict at its point at a glance (`verdict_point`): each ranked call's median with its interval (at
the level its rounds give), one row per call, the verdict's call and the calls sharing its rank marked; one colour per
series (a mode, or a set on the page over every set). A kernel sum of profiled calls is another measure than a graph
replay: its mark is hollow and its tooltip says so, with the clock of its window (review 2026-12-07-2 item 7); the call
What to call names is ringed (item 2). The axis' labelled ticks enclose the data (item 16).

Takes: rows of gen.report.pages.scenario_first (plain records). Gives: an Altair chart.
"""

from __future__ import annotations

import math

import pandas as pd

from gen.report.charts.base import alt


def _role_legend():  # one legend for the place, the colour's and the shape's merged (a function: altair imported late)
    return alt.Legend(orient="bottom", direction="vertical", labelLimit=0)


# The look of each place, in the order of the `roles` given (the verdict's call first): as the home's decision marks
# its recommended call (charts.decisions)
_COLOURS, _SHAPES, _SIZES = ("#e8590c", "#4f7fd6", "#9e9eaa"), ("diamond", "square", "circle"), (140, 70, 40)
# one colour a series where there are several: hues far apart (review 2026-12-07-2 item 16: two blues)
_SERIES = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#e377c2", "#7f7f7f")
POINT_FIELDS = ("call", "series", "role", "median_ms", "lo_ms", "hi_ms", "level", "at", "rel", "measure", "mhz",
                "hollow", "named")
LINE_CHARS = 22  # a call's name is wrapped to lines of about this many characters (cut at 390 px otherwise)
LINE_PX = 13  # one line of a wrapped name
# a long series name in the legend on two lines, cut at its last " · " (a set's title runs past 390 px with its mode)
_TWO_LINES = ("length(datum.label) > 40 ? [slice(datum.label, 0, lastindexof(datum.label, ' · ')), "
              "slice(datum.label, lastindexof(datum.label, ' · ') + 3)] : datum.label")


def wrap(name: str, width: int = LINE_CHARS) -> list[str]:
    """A call's name in lines for the axis: its bracket on a line of its own, each part wrapped by words."""
    head, sep, rest = name.partition(" (")
    out: list[str] = []
    for part in [head, *([f"({rest}"] if sep else [])]:
        line = ""
        for w in part.split(" "):
            if line and len(line) + 1 + len(w) > width:
                out.append(line)
                line = w
            else:
                line = f"{line} {w}" if line else w
        out.append(line)
    return out


def ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Labelled ticks of a log axis that enclose [lo, hi]: the densest of 1-1.5-2-3-5-7, 1-2-5, 1-3 and 1 a decade with
    at most `most`, the first at or below lo and the last at or above hi (the axis' domain)."""
    if not (lo > 0 and hi >= lo):
        return []
    for mantissas in ((1, 1.5, 2, 3, 5, 7), (1, 2, 5), (1, 3), (1,)):
        values = [m * 10.0 ** k for k in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
                  for m in mantissas]
        below = max(v for v in values if v <= lo * (1 + 1e-9))
        above = min(v for v in values if v >= hi * (1 - 1e-9))
        got = [float(f"{v:.6g}") for v in values if below <= v <= above]
        if len(got) <= most:
            return got
    return got


def verdict_point(rows: list[dict], roles: tuple[str, ...], x_title: str | list[str]) -> alt.LayerChart:
    """One row per call (in the order the first series ranks them), its median on a log axis and its interval as a
    rule; the marks' shape by their place (`roles`, the verdict's call first), their colour by series (by place too
    where there is one series), hollow where the time is a kernel sum, ringed where What to call names the call.
    `rows`: gen.report.pages.scenario_first's points, each with its series."""
    d = pd.DataFrame([{c: r.get(c) for c in POINT_FIELDS} for r in rows], columns=list(POINT_FIELDS))
    d["row"] = ["|".join(wrap(c)) for c in d["call"]]
    order = list(dict.fromkeys(d["row"]))
    series = list(dict.fromkeys(d["series"]))
    # the places drawn, each with its look (by its place in `roles`): the legend names only these
    drawn = [(r, i) for i, r in enumerate(roles) if r in set(d["role"])]
    roles = [r for r, _ in drawn]
    colours, shapes, sizes = ([look[i] for _, i in drawn] for look in (_COLOURS, _SHAPES, _SIZES))
    lines = max((r.count("|") + 1 for r in order), default=1)
    band = LINE_PX * lines + 8 + (6 * (len(series) - 1) if len(series) > 1 else 0)
    y = alt.Y("row:N", sort=order, title=None,
              axis=alt.Axis(labelExpr="split(datum.label, '|')", labelLimit=0, labelLineHeight=LINE_PX))
    values = ticks(float(d["lo_ms"].min()), float(d["hi_ms"].max())) if len(d) else []
    scale = alt.Scale(type="log", domain=[values[0], values[-1]], nice=False) if values else \
        alt.Scale(type="log", nice=False, padding=12)
    axis = alt.Axis(values=values, format="~g", labelOverlap="greedy") if values else alt.Axis()
    tooltip = [alt.Tooltip("series:N", title="of"), alt.Tooltip("at:N", title="at"),
               alt.Tooltip("call:N", title="call"), alt.Tooltip("role:N", title="its place"),
               alt.Tooltip("named:N", title="What to call names it"),
               alt.Tooltip("median_ms:Q", title="median (ms)", format=".4g"),
               alt.Tooltip("measure:N", title="measured as"),
               alt.Tooltip("mhz:Q", title="SM clock of its window (MHz)", format=".0f"),
               alt.Tooltip("lo_ms:Q", title="interval from (ms)", format=".4g"),
               alt.Tooltip("hi_ms:Q", title="interval to (ms)", format=".4g"),
               alt.Tooltip("level:N", title="interval's level"),
               alt.Tooltip("rel:Q", title="× the verdict's call's median", format=".3g")]
    # one series: the colour marks the place too (the verdict's call as the home's decision marks its call); several:
    # one colour a series (its legend above the chart, the places' below: side by side they overrun 390 px), the
    # shape alone marks the place, and each series its own lane in a row (yOffset: no mark hides another's)
    colour = (alt.Color("series:N", title=None, sort=series, scale=alt.Scale(domain=series,
                                                                           range=list(_SERIES[:len(series)])),
                        legend=alt.Legend(orient="top", direction="vertical", labelLimit=0, labelExpr=_TWO_LINES))
              if len(series) > 1
              else alt.Color("role:N", title=None, legend=_role_legend(), scale=alt.Scale(
                  domain=roles, range=colours)))
    shape = alt.Shape("role:N", title=None, scale=alt.Scale(domain=roles, range=shapes), legend=_role_legend())
    size = alt.Size("role:N", title=None, sort=roles, scale=alt.Scale(domain=roles, range=sizes), legend=_role_legend())
    lane = dict(yOffset=alt.YOffset("series:N", sort=series)) if len(series) > 1 else {}
    x = alt.X("median_ms:Q", scale=scale, title=x_title, axis=axis)
    base = alt.Chart(d)
    ci = base.mark_rule(strokeWidth=2, opacity=0.6).encode(
        x=alt.X("lo_ms:Q", scale=scale, title=x_title, axis=axis), x2=alt.X2("hi_ms:Q"), y=y, color=colour,
        tooltip=tooltip, **lane)
    dots = base.mark_point(filled=True, opacity=0.95).encode(
        x=x, y=y, color=colour, shape=shape, size=size, tooltip=tooltip, **lane).transform_filter("!datum.hollow")
    hollow = base.mark_point(filled=False, opacity=1, strokeWidth=2).encode(
        x=x, y=y, color=colour, shape=shape, size=size, tooltip=tooltip, **lane).transform_filter("datum.hollow")
    ring = base.mark_point(shape="circle", filled=False, size=420, strokeWidth=1.5, color="#222").encode(
        x=x, y=y, tooltip=tooltip, **lane).transform_filter("datum.named")
    return alt.layer(ci, dots, hollow, ring, width="container", height=band * max(1, len(order)) + 10)
