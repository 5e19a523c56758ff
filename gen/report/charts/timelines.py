"""The timeline of one call: host lanes (ops and runtime calls, one per thread and nesting depth) above a
GPU lane (kernels, memcpys, memsets) on one time axis.

Takes: the rows of gen.analysis.tables.timeline_events. Gives: `timeline` (the Altair chart),
`timeline_spec` (its spec from a skeleton Altair made once: a page holds a timeline per run) and
`timeline_window` (the events a timeline draws, bounded whatever the trace holds).
"""

from __future__ import annotations

import json
from functools import lru_cache

import numpy as np
import pandas as pd

from gen.analysis.values import missing, number
from gen.report import format as fmt
from gen.report.charts.base import ROW_PX, alt

# One colour per kind of event. Copies and fills must stand out from kernels.
KIND_DOMAIN = ["aten op", "annotation", "runtime call", "kernel", "memcpy", "memset"]
KIND_RANGE = ["#8c8c8c", "#b39ddb", "#66bb6a", "#4f7fd6", "#e8590c", "#d6336c"]
CPU_KIND = {"cpu_op": "aten op", "user_annotation": "annotation",
            "cuda_runtime": "runtime call", "cuda_driver": "runtime call"}


def _lane(depth: int, thread: str = "main") -> str:
    """A host lane: ops nested `depth` deep on a thread (a depth, not a CPU core)."""
    return f"host · depth {depth}" if thread == "main" else f"host · {thread} · depth {depth}"


def _occupancy(x) -> str:
    """The profiler's estimate for a tooltip: a percentage, or why there is none."""
    return "not reported" if number(x) is None else fmt.num(x, ".0f", "%")


def timeline(cpu: list[dict], gpu: list[dict]) -> alt.LayerChart:
    """Host lanes (ops and runtime calls, one row per thread and nesting depth) above a GPU
    lane (kernels, memcpys, memsets) on one time axis in µs. Zoom and pan act on
    the time axis only; hovering shows each event's full details."""
    c, g, lanes = _timeline_rows(cpu, gpu)
    return _timeline_chart(pd.DataFrame(c, columns=list(CPU_FIELDS)), pd.DataFrame(g, columns=list(GPU_FIELDS)),
                           lanes)


def _timeline_chart(c: pd.DataFrame, g: pd.DataFrame, lanes: list[str]) -> alt.LayerChart:
    x = alt.X("start_us:Q", title="time since the forward's start (µs)",
              axis=alt.Axis(grid=True))
    y = alt.Y("lane:N", title=None, sort=lanes, scale=alt.Scale(domain=lanes, paddingInner=0.15))
    color = alt.Color("kind:N", title="event",
                      scale=alt.Scale(domain=KIND_DOMAIN, range=KIND_RANGE),
                      legend=alt.Legend(orient="bottom", direction="horizontal", columns=3))
    zoom = alt.selection_interval(bind="scales", encodings=["x"], name="zoom")
    cpu_layer = alt.Chart(c).mark_bar(cornerRadius=1).encode(
        x=x, x2=alt.X2("end_us:Q"), y=y, color=color,
        tooltip=[alt.Tooltip("name:N", title="op"), alt.Tooltip("kind:N", title="kind"),
                 alt.Tooltip("start_us:Q", title="start (µs)", format=",.1f"),
                 alt.Tooltip("dur_us:Q", title="duration (µs)", format=",.1f")],
    ).add_params(zoom)
    # A thin outline keeps back-to-back kernels apart.
    gpu_layer = alt.Chart(g).mark_bar(cornerRadius=1, stroke="#ffffff", strokeWidth=0.6, strokeOpacity=0.7).encode(
        x=x, x2=alt.X2("end_us:Q"), y=y, color=color,
        tooltip=[alt.Tooltip("index:Q", title="#"), alt.Tooltip("short_name:N", title="kernel"),
                 alt.Tooltip("name:N", title="full name"), alt.Tooltip("kind:N", title="kind"),
                 alt.Tooltip("category:N", title="category"),
                 alt.Tooltip("launched_by:N", title="launched by"),
                 alt.Tooltip("launch_api:N", title="launch API"),
                 alt.Tooltip("start_us:Q", title="start (µs)", format=",.1f"),
                 alt.Tooltip("dur_us:Q", title="duration (µs)", format=",.2f"),
                 alt.Tooltip("occupancy:N", title="occupancy (profiler's estimate)")],
    )
    return alt.layer(cpu_layer, gpu_layer).properties(
        width="container", height=ROW_PX * len(lanes),
    )


@lru_cache(maxsize=1)
def _timeline_skeleton() -> str:
    """The timeline's spec with placeholder data, made by Altair once."""
    c = pd.DataFrame({k: [] for k in CPU_FIELDS})
    g = pd.DataFrame({k: [] for k in GPU_FIELDS})
    spec = _timeline_chart(c, g, ["GPU"]).to_dict(validate=True)
    return json.dumps(spec, sort_keys=True)


CPU_FIELDS = ("lane", "name", "kind", "start_us", "end_us", "dur_us")
GPU_FIELDS = ("lane", "index", "name", "short_name", "kind", "category", "start_us", "end_us", "dur_us",
              "launched_by", "launch_api", "occupancy")


def timeline_window(cpu: list[dict], gpu: list[dict], max_events: int, max_depth: int,
                    max_name: int = 2_000) -> tuple[list[dict], list[dict], int, float | None]:
    """The events a timeline draws (rows as tables.timeline_events gives them), so that it stays small
    whatever the trace holds: CPU events at most max_depth deep, then the first max_events of both
    lanes by start, their names (shown on hover) cut to max_name characters.
    Returns (cpu, gpu, how many were left out, the last start drawn or None if all were)."""
    def cut(rows: list[dict], cols) -> list[dict]:  # a row is copied only where a name is too long
        long = lambda x: isinstance(x, str) and len(x) > max_name  # noqa: E731
        return [dict(r, **{c: r[c][:max_name] + "…" for c in cols if long(r[c])})
                if any(long(r[c]) for c in cols) else r for r in rows]

    kept = [c for c in cpu if not c["depth"] > max_depth]
    left, until = len(cpu) - len(kept), None
    if len(kept) + len(gpu) > max_events:  # rare: numpy's stable sort, NaN last, as the frames had it
        starts = np.array([r["start_us"] for r in kept + gpu], dtype=float)
        first = np.argsort(starts, kind="stable")[:max_events]
        keep = np.zeros(len(starts), dtype=bool)
        keep[first] = True
        n = len(kept)
        kept, gpu = [r for r, k in zip(kept, keep[:n]) if k], [r for r, k in zip(gpu, keep[n:]) if k]
        left, until = left + len(starts) - max_events, float(starts[first[-1]])
    return cut(kept, ["name"]), cut(gpu, ["name", "short_name", "launched_by"]), left, until


def timeline_spec(cpu: list[dict], gpu: list[dict]) -> dict:
    """`timeline(cpu, gpu).to_dict()` without Altair's cost per chart: the spec Altair made once, with
    this forward's rows and lanes put in (the datasets named "cpu" and "gpu"). Same Vega-Lite. The spec
    shares what it does not change with the skeleton parsed once per process: read it, do not change it."""
    c, g, lanes = _timeline_rows(cpu, gpu)
    base = _timeline_base()
    spec = dict(base, datasets={"cpu": c, "gpu": g}, height=ROW_PX * len(lanes), layer=[])
    for layer, name in zip(base["layer"], ("cpu", "gpu")):
        enc = layer["encoding"]
        y = dict(enc["y"], scale=dict(enc["y"]["scale"], domain=lanes), sort=lanes)
        spec["layer"].append(dict(layer, data={"name": name}, encoding=dict(enc, y=y)))
    return spec


@lru_cache(maxsize=1)
def _timeline_base() -> dict:
    """The skeleton, parsed once."""
    return json.loads(_timeline_skeleton())


def _as_text(x) -> str:
    """str(x) as a frame's astype(str) gives it (pandas keeps a missing value missing)."""
    return x if type(x) is str else (None if missing(x) else str(x))


def _timeline_rows(cpu: list[dict], gpu: list[dict]) -> tuple[list[dict], list[dict], list[str]]:
    """The rows the timeline draws (only its columns: lane, names, kind, times; the GPU lane's launcher,
    launch API and occupancy as words where missing), and its lanes, top to bottom."""
    lanes = [_lane(d, t) for _, t, d in sorted({(t != "main", t, d)
                                                for t, d in ((str(r["thread"]), int(r["depth"])) for r in cpu)})]
    c = [dict(lane=_lane(int(r["depth"]), str(r["thread"])), name=_as_text(r["name"]),
              kind=CPU_KIND.get(str(r["cat"]), "aten op"), start_us=number(r["start_us"], 3),
              end_us=number(r["end_us"], 3), dur_us=number(r["dur_us"], 3)) for r in cpu]
    g = [dict(lane="GPU", index=int(r["index"]), name=_as_text(r["name"]), short_name=_as_text(r["short_name"]),
              kind=_as_text(r["kind"]), category=_as_text(r["category"]), start_us=number(r["start_us"], 3),
              end_us=number(r["end_us"], 3), dur_us=number(r["dur_us"], 3),
              launched_by="" if missing(r["launched_by"]) else _as_text(r["launched_by"]),
              launch_api="" if missing(r["launch_api"]) else _as_text(r["launch_api"]),
              occupancy=_occupancy(r["occupancy_pct"]))
         for r in gpu]
    return c, g, lanes + ["GPU"]
