"""Scaling charts: pure functions from gen.scaling frames to Altair charts. No I/O.

Takes: `scaling.sweep_frame`, `scaling.ceilings`, `scaling.category_frame`,
`scaling.busy_frame`. Gives: time and peak memory against sequence length
(log-log, a line per variant, a facet per head dim), the roofline, GPU time
by kernel category, and busy share against sequence length.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

LOG = alt.Scale(type="log")


def _ok(df: pd.DataFrame, col: str) -> pd.DataFrame:
    return df[df[col].notna()]


def time_vs_seq(sweep: pd.DataFrame) -> alt.FacetChart:
    """Median GPU time (with IQR band) against sequence length, log-log."""
    d = _ok(sweep, "gpu_ms")[["variant", "seq_len", "head_dim", "gpu_ms", "gpu_q1", "gpu_q3"]]
    base = alt.Chart().encode(
        x=alt.X("seq_len:Q", scale=alt.Scale(type="log", base=2), title="sequence length"),
        color=alt.Color("variant:N", title="variant"))
    line = base.mark_line(point=True).encode(
        y=alt.Y("gpu_ms:Q", scale=LOG, title="GPU time per forward (ms, median)"),
        tooltip=["variant", "seq_len", "head_dim", alt.Tooltip("gpu_ms:Q", format=".4f")])
    band = base.mark_area(opacity=0.2).encode(y="gpu_q1:Q", y2="gpu_q3:Q")
    return alt.layer(band, line, data=d).facet(column=alt.Column("head_dim:O", title="head dim"))


def memory_vs_seq(sweep: pd.DataFrame) -> alt.FacetChart:
    """Peak allocator memory against sequence length, log-log."""
    d = _ok(sweep, "peak_mb")[["variant", "seq_len", "head_dim", "peak_mb"]]
    return alt.Chart(d).mark_line(point=True).encode(
        x=alt.X("seq_len:Q", scale=alt.Scale(type="log", base=2), title="sequence length"),
        y=alt.Y("peak_mb:Q", scale=LOG, title="peak memory (MiB)"),
        color="variant:N", tooltip=["variant", "seq_len", "head_dim", alt.Tooltip("peak_mb:Q", format=",.0f")],
    ).facet(column=alt.Column("head_dim:O", title="head dim"))


def roofline(sweep: pd.DataFrame, ceil: dict) -> alt.LayerChart:
    """Arithmetic intensity (causal-useful FLOPs per minimum byte) against achieved
    TFLOP/s, log-log, under the measured copy-bandwidth slope and matmul ceiling."""
    d = _ok(sweep, "tflops_causal")[["variant", "seq_len", "head_dim", "intensity", "tflops_causal"]]
    lo, hi = max(d["intensity"].min() / 2, 1.0), d["intensity"].max() * 2
    xs = [lo * (hi / lo) ** (i / 40) for i in range(41)]
    roof = pd.DataFrame(dict(intensity=xs, tflops=[min(ceil["matmul_tflops"], x * ceil["copy_gbps"] / 1e3)
                                                    for x in xs]))
    line = alt.Chart(roof).mark_line(color="black", strokeDash=[4, 3]).encode(
        x="intensity:Q", y="tflops:Q")
    pts = alt.Chart(d).mark_point(filled=True).encode(
        x=alt.X("intensity:Q", scale=LOG, title="arithmetic intensity (causal-useful FLOP / minimum byte)"),
        y=alt.Y("tflops_causal:Q", scale=LOG, title="achieved TFLOP/s (causal-useful count)"),
        color="variant:N", shape="head_dim:N",
        tooltip=["variant", "seq_len", "head_dim", alt.Tooltip("tflops_causal:Q", format=".1f")])
    return alt.layer(line, pts)


def category_bars(cat: pd.DataFrame) -> alt.Chart:
    """Stacked GPU time of one forward by kernel category, per variant."""
    return alt.Chart(cat[["variant", "category", "duration_us"]]).mark_bar().encode(
        y=alt.Y("variant:N", sort=None, title=None),
        x=alt.X("duration_us:Q", title="GPU time per forward (µs)"),
        color=alt.Color("category:N", title="kernel category"),
        tooltip=["variant", "category", alt.Tooltip("duration_us:Q", format=".1f")])


def busy_vs_seq(busy: pd.DataFrame) -> alt.Chart:
    """Share of one forward's span in which the GPU ran something, against sequence length."""
    d = busy[busy["source"] == "sweep"][["variant", "seq_len", "busy_pct", "launch_gap_us"]]
    return alt.Chart(d).mark_line(point=True).encode(
        x=alt.X("seq_len:Q", scale=alt.Scale(type="log", base=2), title="sequence length (head dim 64)"),
        y=alt.Y("busy_pct:Q", scale=alt.Scale(domain=[0, 100]), title="GPU busy (% of the forward's span)"),
        color="variant:N",
        tooltip=["variant", "seq_len", alt.Tooltip("busy_pct:Q", format=".0f"),
                 alt.Tooltip("launch_gap_us:Q", format=".1f")])
