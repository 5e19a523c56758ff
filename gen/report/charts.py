"""Charts: pure functions from a DataFrame to an `alt.Chart`. No file I/O, no display.

Takes: frames from gen.analysis (`timeline_frames`, `summary_table`). Gives:
Altair charts; the render stage turns them into Vega-Lite specs
(`spec(chart)`) and embeds them offline.

Each chart keeps only the columns it shows, so that the pages stay small.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache

import altair as alt
import pandas as pd

# One colour per kind of event. Copies and fills must stand out from kernels.
KIND_DOMAIN = ["aten op", "annotation", "runtime call", "kernel", "memcpy", "memset"]
KIND_RANGE = ["#8c8c8c", "#b39ddb", "#66bb6a", "#4f7fd6", "#e8590c", "#d6336c"]
CPU_KIND = {"cpu_op": "aten op", "user_annotation": "annotation",
            "cuda_runtime": "runtime call", "cuda_driver": "runtime call"}
ROW_PX = 20


def _lane(depth: int, thread: str = "main") -> str:
    return f"CPU {depth}" if thread == "main" else f"CPU {thread} {depth}"


def _num(x, digits: int = 3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    return round(float(x), digits)


def timeline_data(cpu: pd.DataFrame, gpu: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The two frames the timeline shows (only its columns) and its lanes, top to bottom."""
    threads = cpu["thread"].astype(str) if "thread" in cpu else pd.Series(["main"] * len(cpu), dtype=str)
    keys = sorted({(t != "main", t, int(d)) for t, d in zip(threads, cpu["depth"])})
    lanes = [_lane(d, t) for _, t, d in keys] + ["GPU"]
    c = pd.DataFrame({
        "lane": [_lane(int(d), t) for t, d in zip(threads, cpu["depth"])],
        "name": cpu["name"].astype(str),
        "kind": [CPU_KIND.get(str(k), "aten op") for k in cpu["cat"]],
        "start_us": [_num(x) for x in cpu["start_us"]],
        "end_us": [_num(x) for x in cpu["end_us"]],
        "dur_us": [_num(x) for x in cpu["dur_us"]],
    })
    g = pd.DataFrame({
        "lane": ["GPU"] * len(gpu),
        "index": [int(i) for i in gpu["index"]],
        "name": gpu["name"].astype(str),
        "short_name": gpu["short_name"].astype(str),
        "kind": gpu["kind"].astype(str),
        "category": gpu["category"].astype(str),
        "start_us": [_num(x) for x in gpu["start_us"]],
        "end_us": [_num(x) for x in gpu["end_us"]],
        "dur_us": [_num(x) for x in gpu["dur_us"]],
        "launched_by": gpu["launched_by"].fillna("").astype(str),
        "launch_api": gpu["launch_api"].fillna("").astype(str),
        "occupancy_pct": [_num(x, 1) for x in gpu["occupancy_pct"]],
    })
    return c, g, lanes


def timeline(cpu: pd.DataFrame, gpu: pd.DataFrame) -> alt.LayerChart:
    """CPU lanes (ops and runtime calls, one row per thread and nesting depth) above a GPU
    lane (kernels, memcpys, memsets) on one time axis in µs. Zoom and pan act on
    the time axis only; hovering shows each event's full details."""
    c, g, lanes = timeline_data(cpu, gpu)
    return _timeline_chart(c, g, lanes)


def _timeline_chart(c: pd.DataFrame, g: pd.DataFrame, lanes: list[str]) -> alt.LayerChart:
    x = alt.X("start_us:Q", title="time since the forward's start (µs)",
              axis=alt.Axis(grid=True))
    y = alt.Y("lane:N", title=None, sort=lanes, scale=alt.Scale(domain=lanes, paddingInner=0.15))
    color = alt.Color("kind:N", title="event",
                      scale=alt.Scale(domain=KIND_DOMAIN, range=KIND_RANGE),
                      legend=alt.Legend(orient="bottom", direction="horizontal", columns=3))
    zoom = alt.selection_interval(bind="scales", encodings=["x"], name="zoom")
    cpu_layer = alt.Chart(c).mark_bar(cornerRadius=1).encode(
        x=x, x2="end_us:Q", y=y, color=color,
        tooltip=[alt.Tooltip("name:N", title="op"), alt.Tooltip("kind:N", title="kind"),
                 alt.Tooltip("start_us:Q", title="start (µs)", format=",.1f"),
                 alt.Tooltip("dur_us:Q", title="duration (µs)", format=",.1f")],
    ).add_params(zoom)
    # A thin outline keeps back-to-back kernels apart.
    gpu_layer = alt.Chart(g).mark_bar(cornerRadius=1, stroke="#ffffff", strokeWidth=0.6, strokeOpacity=0.7).encode(
        x=x, x2="end_us:Q", y=y, color=color,
        tooltip=[alt.Tooltip("index:Q", title="#"), alt.Tooltip("short_name:N", title="kernel"),
                 alt.Tooltip("name:N", title="full name"), alt.Tooltip("kind:N", title="kind"),
                 alt.Tooltip("category:N", title="category"),
                 alt.Tooltip("launched_by:N", title="launched by"),
                 alt.Tooltip("launch_api:N", title="launch API"),
                 alt.Tooltip("start_us:Q", title="start (µs)", format=",.1f"),
                 alt.Tooltip("dur_us:Q", title="duration (µs)", format=",.2f"),
                 alt.Tooltip("occupancy_pct:Q", title="occupancy (%)")],
    )
    return alt.layer(cpu_layer, gpu_layer).properties(
        width="container", height=ROW_PX * len(lanes),
    )


@lru_cache(maxsize=1)
def _timeline_skeleton() -> str:
    """The timeline's spec with placeholder data, made by Altair once."""
    c = pd.DataFrame({k: [] for k in ("lane", "name", "kind", "start_us", "end_us", "dur_us")})
    g = pd.DataFrame({k: [] for k in GPU_FIELDS})
    spec = _timeline_chart(c, g, ["GPU"]).to_dict(validate=True)
    return json.dumps(spec, sort_keys=True)


GPU_FIELDS = ("lane", "index", "name", "short_name", "kind", "category", "start_us", "end_us", "dur_us",
              "launched_by", "launch_api", "occupancy_pct")


def timeline_spec(cpu: pd.DataFrame, gpu: pd.DataFrame) -> dict:
    """`timeline(cpu, gpu).to_dict()` without Altair's cost per chart: the spec
    Altair made once, with this forward's rows and lanes put in. Same Vega-Lite."""
    c, g, lanes = timeline_data(cpu, gpu)
    spec = json.loads(_timeline_skeleton())
    spec["datasets"] = {"cpu": _records(c), "gpu": _records(g)}
    for layer, name in zip(spec["layer"], ("cpu", "gpu")):
        layer["data"] = {"name": name}
        layer["encoding"]["y"]["scale"]["domain"] = lanes
        layer["encoding"]["y"]["sort"] = lanes
    spec["height"] = ROW_PX * len(lanes)
    return spec


def _records(df: pd.DataFrame) -> list[dict]:
    cols = list(df.columns)
    values = [df[c].tolist() for c in cols]
    return [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in zip(cols, row)}
            for row in zip(*values)]


def gpu_time(summary: pd.DataFrame, per: str = "forward") -> alt.LayerChart:
    """Median GPU time per variant (point) with its interquartile range (rule),
    on a log axis, fastest on top."""
    ok = summary[summary["status"] == "ok"]
    d = pd.DataFrame({
        "label": ok["label"].astype(str),
        "median": [_num(x, 4) for x in ok["gpu_ms"]],
        "q1": [_num(x, 4) for x in ok["gpu_q1"]],
        "q3": [_num(x, 4) for x in ok["gpu_q3"]],
        "n": [int(n) for n in ok["gpu_n"]],
    }).dropna(subset=["median"]).sort_values(["median", "label"])
    order = list(d["label"])
    y = alt.Y("label:N", sort=order, title=None)
    scale = alt.Scale(type="log", nice=False, padding=12)
    rule = alt.Chart(d).mark_rule(strokeWidth=3, color="#4f7fd6").encode(
        x=alt.X("q1:Q", scale=scale, title=f"GPU time per {per} (ms, log scale)"), x2="q3:Q", y=y)
    point = alt.Chart(d).mark_point(filled=True, size=60, color="#4f7fd6").encode(
        x=alt.X("median:Q", scale=scale), y=y,
        tooltip=[alt.Tooltip("label:N", title="variant"),
                 alt.Tooltip("median:Q", title="median (ms)", format=".4f"),
                 alt.Tooltip("q1:Q", title="Q1 (ms)", format=".4f"),
                 alt.Tooltip("q3:Q", title="Q3 (ms)", format=".4f"),
                 alt.Tooltip("n:Q", title="samples")])
    return alt.layer(rule, point).properties(width="container", height=ROW_PX * max(1, len(d)) + 10)
