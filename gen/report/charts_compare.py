"""Comparison chart: GPU time per variant across every set. Pure, no I/O.

Takes: a long frame (set, variant, gpu_ms, gpu_q1, gpu_q3, kind) built from
the summary tables. Gives: a dot plot on a log time axis, one row per variant
and one dot per set within it (median GPU time), with a rule over the
interquartile range where the set has samples. Reference sets (published
figures, not measured here) are drawn as hollow diamonds and labelled
"(published)"; sets with no GPU time (CPU sets) have no rows and are absent.

Points, not bars: a bar starts at zero, which a log scale cannot place, so bars
on a log axis draw nothing.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from gen.model.variants import VARIANTS

MEASURED = "measured (median, IQR)"
PUBLISHED = "published (one figure)"
ROW_PX = 16  # per set, within each variant's band
# Fit to the data (a "nice" log domain would run to the next power of ten), with room for the dots.
LOG_X = alt.Scale(type="log", nice=False, padding=16)


def chart_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The chart's rows: every (set, variant) with a GPU time."""
    cols = ["set", "variant", "gpu_ms", "gpu_q1", "gpu_q3", "kind"]
    d = df[df["gpu_ms"].notna()].reindex(columns=cols).copy()
    pub = d["kind"] == "reference"
    d["set"] = d["set"] + pub.map({True: " (published)", False: ""})
    d["figure"] = pub.map({True: PUBLISHED, False: MEASURED})
    # A published figure has no spread; a measured one without samples neither.
    d.loc[pub, ["gpu_q1", "gpu_q3"]] = float("nan")
    return d.reset_index(drop=True)


def gpu_time_by_set(df: pd.DataFrame) -> alt.LayerChart:
    d = chart_frame(df)
    order = [v for v in VARIANTS if v in set(d["variant"])] + sorted(set(d["variant"]) - set(VARIANTS))
    n_sets = max(1, d["set"].nunique())
    title = "GPU time per forward (ms, log scale)"
    x = alt.X("gpu_ms:Q", scale=LOG_X, title=title)
    base = alt.Chart(d).encode(
        y=alt.Y("variant:N", sort=order, title=None),
        yOffset=alt.YOffset("set:N"),
        color=alt.Color("set:N", title="result set", legend=alt.Legend(orient="bottom", direction="vertical",
                                                                      labelLimit=0)))
    iqr = base.transform_filter("isValid(datum.gpu_q1) && isValid(datum.gpu_q3)").mark_rule(
        strokeWidth=2).encode(x=alt.X("gpu_q1:Q", scale=LOG_X, title=title), x2="gpu_q3:Q")
    dots = base.mark_point(size=70, strokeWidth=2).encode(
        x=x,
        shape=alt.Shape("figure:N", title="figure", scale=alt.Scale(domain=[MEASURED, PUBLISHED],
                                                                    range=["circle", "diamond"]),
                        legend=alt.Legend(orient="bottom", labelLimit=0)),
        fill=alt.condition(alt.datum.kind == "reference", alt.value("transparent"), alt.Color("set:N", legend=None)),
        tooltip=["set", "variant", alt.Tooltip("gpu_ms:Q", title="GPU ms (median or published)", format=".4f"),
                 alt.Tooltip("gpu_q1:Q", title="IQR from", format=".4f"),
                 alt.Tooltip("gpu_q3:Q", title="IQR to", format=".4f"), "figure"])
    return alt.layer(iqr, dots).properties(width="container", height=ROW_PX * n_sets * len(order) + 10)
