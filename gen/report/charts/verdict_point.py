"""A scenario's verdict at its point at a glance (`verdict_point`): each ranked call's median with its interval (at
the level its rounds give), one row per call, the verdict's call and the calls sharing its rank marked; one colour per
series (a mode, or a set on the page over every set).

Takes: rows of gen.report.pages.scenario_first (plain records). Gives: an Altair chart.
"""

from __future__ import annotations

import pandas as pd

from gen.report.charts.base import ROW_PX, alt
from gen.report.charts.base import log as _log


def _role_legend():  # one legend for the place, the colour's and the shape's merged (a function: altair imported late)
    return alt.Legend(orient="bottom", direction="vertical", labelLimit=0)


# The look of each place, in the order of the `roles` given (the verdict's call first): as the home's decision marks
# its recommended call (charts.decisions)
_COLOURS, _SHAPES, _SIZES = ("#e8590c", "#4f7fd6", "#9e9eaa"), ("diamond", "square", "circle"), (140, 70, 40)
POINT_FIELDS = ("call", "series", "role", "median_ms", "lo_ms", "hi_ms", "level", "at", "rel")


def verdict_point(rows: list[dict], roles: tuple[str, ...], x_title: str) -> alt.LayerChart:
    """One row per call (in the order the first series ranks them), its median on a log axis and its interval as a
    rule; the marks' shape by their place (`roles`, the verdict's call first), their colour by series (by place too
    where there is one series). `rows`: gen.report.pages.scenario_first's points, each with its series."""
    d = pd.DataFrame([{c: r[c] for c in POINT_FIELDS} for r in rows], columns=list(POINT_FIELDS))
    order = list(dict.fromkeys(d["call"]))
    series = list(dict.fromkeys(d["series"]))
    # the places drawn, each with its look (by its place in `roles`): the legend names only these
    drawn = [(r, i) for i, r in enumerate(roles) if r in set(d["role"])]
    roles = [r for r, _ in drawn]
    colours, shapes, sizes = ([look[i] for _, i in drawn] for look in (_COLOURS, _SHAPES, _SIZES))
    y = alt.Y("call:N", sort=order, title=None)
    scale = _log()
    tooltip = [alt.Tooltip("series:N", title="of"), alt.Tooltip("at:N", title="at"),
               alt.Tooltip("call:N", title="call"), alt.Tooltip("role:N", title="its place"),
               alt.Tooltip("median_ms:Q", title="median (ms)", format=".4g"),
               alt.Tooltip("lo_ms:Q", title="interval from (ms)", format=".4g"),
               alt.Tooltip("hi_ms:Q", title="interval to (ms)", format=".4g"),
               alt.Tooltip("level:N", title="interval's level"),
               alt.Tooltip("rel:Q", title="× the verdict's call", format=".3g")]
    # one series: the colour marks the place too (the verdict's call as the home's decision marks its call); several:
    # one colour a series (its legend above the chart, the places' below: side by side they overrun 390 px), the
    # shape alone marks the place
    colour = (alt.Color("series:N", title=None, sort=series, scale=alt.Scale(scheme="tableau10"),
                        legend=alt.Legend(orient="top", direction="vertical", labelLimit=0)) if len(series) > 1
              else alt.Color("role:N", title=None, legend=_role_legend(), scale=alt.Scale(
                  domain=roles, range=colours)))
    shape = alt.Shape("role:N", title=None, scale=alt.Scale(domain=roles, range=shapes), legend=_role_legend())
    size = alt.Size("role:N", title=None, sort=roles, scale=alt.Scale(domain=roles, range=sizes), legend=_role_legend())
    ci = alt.Chart(d).mark_rule(strokeWidth=2, opacity=0.6).encode(
        x=alt.X("lo_ms:Q", scale=scale, title=x_title), x2=alt.X2("hi_ms:Q"), y=y, color=colour, tooltip=tooltip)
    dots = alt.Chart(d).mark_point(filled=True, opacity=0.95).encode(
        x=alt.X("median_ms:Q", scale=scale, title=x_title), y=y, color=colour, shape=shape, size=size,
        tooltip=tooltip)
    return alt.layer(ci, dots, width="container", height=ROW_PX * max(1, len(order)) + 10)
