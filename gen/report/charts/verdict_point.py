"""A scenario's verdict at its point at a glance (`verdict_point`): each ranked call's median with its interval (at
the level its rounds give), one row per call, the verdict's call and the calls sharing its rank marked; one colour per
series (a mode, or a set on the page over every set). A kernel sum of profiled calls is another measure than a graph
replay: its mark is hollow and its tooltip says so, with the clock of its window; the call
What to call names is ringed. The axis' labelled ticks enclose the data.

Takes: rows of gen.report.pages.scenario_first (plain records). Gives: an Altair chart.
"""

from __future__ import annotations

import math

import pandas as pd

from gen.report.charts.base import alt
from gen.report.charts.base import nominal as _n
from gen.report.charts.base import quantitative as _q
from gen.report.charts.base import view as _view

ROLE_LEGEND = {"orient": "bottom", "direction": "vertical", "labelLimit": 0}  # one legend for the place: the
# colour's, the shape's and the size's merged


# The look of each place, in the order of the `roles` given (the verdict's call first): as the home's decision marks
# its recommended call (charts.decisions)
_COLOURS, _SHAPES, _SIZES = ("#e8590c", "#4f7fd6", "#9e9eaa"), ("diamond", "square", "circle"), (140, 70, 40)
# one colour a series where there are several: hues far apart (two blues)
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
    y = _n("row", sort=order, title=None, axis={"labelExpr": "split(datum.label, '|')", "labelLimit": 0,
                                               "labelLineHeight": LINE_PX})
    values = ticks(float(d["lo_ms"].min()), float(d["hi_ms"].max())) if len(d) else []
    scale = {"type": "log", "domain": [values[0], values[-1]], "nice": False} if values else \
        {"type": "log", "nice": False, "padding": 12}
    axis = {"values": values, "format": "~g", "labelOverlap": "greedy"} if values else {}
    tooltip = [_n("series", title="of"), _n("at", title="at"), _n("call", title="call"), _n("role", title="its place"),
               _n("named", title="What to call names it"), _q("median_ms", title="median (ms)", format=".4g"),
               _n("measure", title="measured as"), _q("mhz", title="SM clock of its window (MHz)", format=".0f"),
               _q("lo_ms", title="interval from (ms)", format=".4g"),
               _q("hi_ms", title="interval to (ms)", format=".4g"),
               _n("level", title="interval's level"), _q("rel", title="× the fastest's median", format=".3g")]
    # one series: the colour marks the place too (the verdict's call as the home's decision marks its call); several:
    # one colour a series (its legend above the chart, the places' below: side by side they overrun 390 px), the
    # shape alone marks the place, and each series its own lane in a row (yOffset: no mark hides another's)
    colour = (_n("series", title=None, sort=series, scale={"domain": series, "range": list(_SERIES[:len(series)])},
                 legend={"orient": "top", "direction": "vertical", "labelLimit": 0, "labelExpr": _TWO_LINES})
              if len(series) > 1
              else _n("role", title=None, legend=ROLE_LEGEND, scale={"domain": roles, "range": colours}))
    shape = _n("role", title=None, scale={"domain": roles, "range": shapes}, legend=ROLE_LEGEND)
    size = _n("role", title=None, sort=roles, scale={"domain": roles, "range": sizes}, legend=ROLE_LEGEND)
    lane = dict(yOffset=_n("series", sort=series)) if len(series) > 1 else {}
    x = _q("median_ms", scale=scale, title=x_title, axis=axis)
    ci = _view(None, {"type": "rule", "strokeWidth": 2, "opacity": 0.6},
               x=_q("lo_ms", scale=scale, title=x_title, axis=axis), x2={"field": "hi_ms"}, y=y, color=colour,
               tooltip=tooltip, **lane)
    dots = _view(None, {"type": "point", "filled": True, "opacity": 0.95}, [{"filter": "!datum.hollow"}],
                 x=x, y=y, color=colour, shape=shape, size=size, tooltip=tooltip, **lane)
    hollow = _view(None, {"type": "point", "filled": False, "opacity": 1, "strokeWidth": 2},
                   [{"filter": "datum.hollow"}], x=x, y=y, color=colour, shape=shape, size=size, tooltip=tooltip,
                   **lane)
    ring = _view(None, {"type": "point", "shape": "circle", "filled": False, "size": 420, "strokeWidth": 1.5,
                        "color": "#222"}, [{"filter": "datum.named"}], x=x, y=y, tooltip=tooltip, **lane)
    # (the data given once, to the layer: its four views share it)
    return alt.layer(ci, dots, hollow, ring, data=d, width="container", height=band * max(1, len(order)) + 10)
