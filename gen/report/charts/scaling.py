"""The sequence-length sweep of one set: GPU-only time (`time_vs_seq`) and peak memory (`memory_vs_seq`)
against length, the roofline under the GPU's measured ceilings (`roofline`), GPU time by kernel category
(`category_bars`) and the GPU's busy share (`busy_vs_seq`).

Takes: frames of gen.analysis.scaling (`sweep_frame` and friends) and the set's ceilings. Gives: Altair
charts.
"""

from __future__ import annotations

import pandas as pd

from gen.report.charts.base import alt
from gen.report.charts.base import log as _log
from gen.report.charts.base import seq_len as _seq_len


def _tips(*fields: str) -> list:
    """Plain tooltips, one per field, as channel objects: Altair wraps a bare name through its schema
    (`from_dict`, about 2 ms a name in Altair 6), an object as it is, to the same spec."""
    return [alt.Tooltip(f) for f in fields]


def _ok(df: pd.DataFrame, col: str) -> pd.DataFrame:
    return df[df[col].notna()]


def time_vs_seq(sweep: pd.DataFrame) -> alt.FacetChart:
    """Median GPU-only time (with IQR band) against sequence length, log-log."""
    d = _ok(sweep, "gpu_only_ms")[["variant", "seq_len", "head_dim", "gpu_only_ms", "gpu_only_q1_ms",
                                   "gpu_only_q3_ms"]]
    base = alt.Chart().encode(
        x=alt.X("seq_len:Q", scale=_seq_len(), title="sequence length"),
        color=alt.Color("variant:N", title="variant"))
    line = base.mark_line(point=True).encode(
        y=alt.Y("gpu_only_ms:Q", scale=_log(), title="GPU-only time per forward (ms, median)"),
        tooltip=[*_tips("variant", "seq_len", "head_dim"), alt.Tooltip("gpu_only_ms:Q", format=".4f")])
    band = base.mark_area(opacity=0.2).encode(y=alt.Y("gpu_only_q1_ms:Q"), y2=alt.Y2("gpu_only_q3_ms:Q"))
    return alt.layer(band, line, data=d).facet(column=alt.Column("head_dim:O", title="head dim"))


def memory_vs_seq(sweep: pd.DataFrame) -> alt.FacetChart:
    """Peak allocator memory against sequence length, log-log."""
    return alt.Chart(_ok(sweep, "peak_mb")[["variant", "seq_len", "head_dim", "peak_mb"]]).mark_line(point=True).encode(
        x=alt.X("seq_len:Q", scale=_seq_len(), title="sequence length"),
        y=alt.Y("peak_mb:Q", scale=_log(), title="peak memory (MiB)"),
        color=alt.Color("variant:N"),
        tooltip=[*_tips("variant", "seq_len", "head_dim"), alt.Tooltip("peak_mb:Q", format=",.0f")],
    ).facet(column=alt.Column("head_dim:O", title="head dim"))


def roofline(sweep: pd.DataFrame, ceil: dict) -> alt.LayerChart:
    """Arithmetic intensity (FLOPs per minimum byte, the report's count) against achieved
    TFLOP/s, log-log, under the highest measured bandwidth's slope and the matmul ceiling."""
    d = _ok(sweep, "tflops_causal")[["variant", "seq_len", "head_dim", "intensity", "tflops_causal"]]
    lo, hi = max(d["intensity"].min() / 2, 1.0), d["intensity"].max() * 2
    xs = [lo * (hi / lo) ** (i / 40) for i in range(41)]
    roof = pd.DataFrame(dict(intensity=xs, tflops=[min(ceil["matmul_tflops"], x * ceil["bandwidth_gbps"] / 1e3)
                                                    for x in xs]))
    line = alt.Chart(roof).mark_line(color="black", strokeDash=[4, 3]).encode(
        x=alt.X("intensity:Q"), y=alt.Y("tflops:Q"))
    pts = alt.Chart(d).mark_point(filled=True).encode(
        x=alt.X("intensity:Q", scale=_log(), title="arithmetic intensity (FLOP, FlashAttention count / minimum byte)"),
        y=alt.Y("tflops_causal:Q", scale=_log(), title="achieved TFLOP/s (FlashAttention count)"),
        color=alt.Color("variant:N"), shape=alt.Shape("head_dim:N"),
        tooltip=[*_tips("variant", "seq_len", "head_dim"), alt.Tooltip("tflops_causal:Q", format=".1f")])
    return alt.layer(line, pts)


def category_bars(cat: pd.DataFrame) -> alt.Chart:
    """Stacked GPU time of one forward by kernel category, per variant."""
    return alt.Chart(cat[["variant", "category", "duration_us"]]).mark_bar().encode(
        y=alt.Y("variant:N", sort=None, title=None),
        x=alt.X("duration_us:Q", title="GPU time per forward (µs)"),
        color=alt.Color("category:N", title="kernel category"),
        tooltip=[*_tips("variant", "category"), alt.Tooltip("duration_us:Q", format=".1f")])


def busy_vs_seq(busy: pd.DataFrame) -> alt.Chart:
    """Share of one forward's span in which the GPU ran something, against sequence length."""
    d = busy[busy["source"] == "sweep"][["variant", "seq_len", "busy_pct", "launch_gap_us"]]
    return alt.Chart(d).mark_line(point=True).encode(
        x=alt.X("seq_len:Q", scale=_seq_len(), title="sequence length (head dim 64)"),
        y=alt.Y("busy_pct:Q", scale=alt.Scale(domain=[0, 100]), title="GPU busy (% of the forward's span)"),
        color=alt.Color("variant:N"),
        tooltip=[*_tips("variant", "seq_len"), alt.Tooltip("busy_pct:Q", format=".0f"),
                 alt.Tooltip("launch_gap_us:Q", format=".1f")])
