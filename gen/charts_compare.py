"""Comparison chart: GPU time per variant across every set. Pure, no I/O.

Takes: a long frame (set, variant, gpu_ms, kind) built from the summary
tables. Gives: grouped bars, one group per variant, one bar per set; bars of
reference sets (published figures, not measured here) are hatched lighter and
labelled "(published)" in the legend.
"""

from __future__ import annotations

import altair as alt
import pandas as pd


def gpu_time_by_set(df: pd.DataFrame) -> alt.Chart:
    d = df[df["gpu_ms"].notna()][["set", "variant", "gpu_ms", "kind"]].copy()
    d["set"] = d["set"] + d["kind"].map({"reference": " (published)"}).fillna("")
    return alt.Chart(d).mark_bar().encode(
        y=alt.Y("variant:N", sort=None, title=None),
        yOffset="set:N",
        x=alt.X("gpu_ms:Q", scale=alt.Scale(type="log"), title="GPU time per forward (ms, log)"),
        color=alt.Color("set:N", title="result set"),
        opacity=alt.condition(alt.datum.kind == "reference", alt.value(0.5), alt.value(1.0)),
        tooltip=["set", "variant", alt.Tooltip("gpu_ms:Q", format=".4f"), "kind"])
