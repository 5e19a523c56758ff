"""The decision of one set at a glance (`decision`): per workload, each measured call's median at the
verdict's point over the recommended call's, with its interval (at the level its rounds give); the recommended call
and the default call marked.

Takes: rows of gen.report.pages.decision.chart_rows. Gives: an Altair chart.
"""

from __future__ import annotations

import pandas as pd

from gen.analysis.values import variant_role
from gen.model.variants import VARIANTS
from gen.report.charts.base import ROW_PX, alt

RECOMMENDED = "recommended call"
NOT_THE_CALL = "†"  # above a dot faster than the recommended call: the note under the chart says why it is not the call
DEFAULT_CALL = VARIANTS[variant_role("automatic")].label  # named as every table and sentence names it
OTHER_CALLS = "other measured calls"
DECISION_ROLES = (RECOMMENDED, DEFAULT_CALL, OTHER_CALLS)
DECISION_FIELDS = ("workload", "variant", "role", "rel", "rel_lo", "rel_hi", "median_ms", "ci_lo_ms", "ci_hi_ms",
                   "ci_level", "point", "why")


def _role_legend():  # one legend for the role, the colour's, shape's and size's merged (altair is imported late)
    return alt.Legend(orient="bottom", direction="vertical", labelLimit=0)


def decision(rows: pd.DataFrame, x_title: str) -> alt.LayerChart:
    """The decision of one set at a glance: one row per workload (a scenario and mode with a
    verdict), each measured call's median at the verdict's point over the recommended call's
    median (log), its interval as a rule (`ci_level`: its real level); the
    recommended call and SDPA with no backend pinned (the call made by default) marked. `rows` as
    gen.report.pages.decision.chart_rows gives them."""
    d = pd.DataFrame({c: rows[c] if c in rows else "" for c in DECISION_FIELDS}) if len(rows) else \
        pd.DataFrame(columns=DECISION_FIELDS)
    order = list(dict.fromkeys(d["workload"]))
    # drawn last, on top: the other calls first, the recommended call over them
    d = d.assign(layer=[DECISION_ROLES[::-1].index(r) for r in d["role"]],
                 why=d["why"].fillna("")).sort_values("layer", kind="stable")
    y = alt.Y("workload:N", sort=order, title=None)
    x = alt.X("rel:Q", scale=alt.Scale(type="log", nice=False, padding=10), title=x_title)
    tooltip = [alt.Tooltip("workload:N", title="workload"), alt.Tooltip("point:N", title="at"),
               alt.Tooltip("variant:N", title="call"), alt.Tooltip("role:N", title="marked as"),
               alt.Tooltip("median_ms:Q", title="median (ms)", format=".4g"),
               alt.Tooltip("ci_lo_ms:Q", title="interval from (ms)", format=".4g"),
               alt.Tooltip("ci_hi_ms:Q", title="interval to (ms)", format=".4g"),
               alt.Tooltip("ci_level:N", title="interval's level"),
               alt.Tooltip("rel:Q", title="× the recommended call", format=".3g"),
               alt.Tooltip("why:N", title="not the call")]
    # colour, shape and size mark the role: one legend, each channel given it alike (a legend on one and none on the
    # others is a conflict Vega-Lite warns of), the size sorted as its scale (an unsorted discrete size is warned of)
    roles = list(DECISION_ROLES)
    colour = alt.Color("role:N", title=None, scale=alt.Scale(domain=roles, range=["#e8590c", "#4f7fd6", "#9e9eaa"]),
                       legend=_role_legend())
    shape = alt.Shape("role:N", title=None, scale=alt.Scale(domain=roles, range=["diamond", "circle", "circle"]),
                      legend=_role_legend())
    size = alt.Size("role:N", title=None, sort=roles, scale=alt.Scale(domain=roles, range=[130, 70, 30]),
                    legend=_role_legend())
    ci = alt.Chart(d).mark_rule(strokeWidth=2, opacity=0.6).encode(
        x=alt.X("rel_lo:Q", scale=alt.Scale(type="log", nice=False, padding=10), title=x_title), x2=alt.X2("rel_hi:Q"),
        y=y, color=colour, tooltip=tooltip)
    dots = alt.Chart(d).mark_point(filled=True, opacity=0.95).encode(
        x=x, y=y, color=colour, shape=shape, size=size, tooltip=tooltip, order=alt.Order("layer:Q"))
    # a call faster than the recommended one by its median, marked with why it is not the call (else
    # the home's FP8 dot would sit left of the diamond, unmarked)
    why = alt.Chart(d).mark_text(text=NOT_THE_CALL, dy=-10, fontSize=12, color="#55555f").encode(
        x=x, y=y, tooltip=tooltip).transform_filter(alt.datum.why != "")  # one dataset: the saved CSV's rows
    return alt.layer(ci, dots, why, width="container", height=ROW_PX * max(1, len(order)) + 10)
