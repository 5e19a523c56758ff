"""Charts: pure functions from a DataFrame to an Altair chart. No file I/O, no display.

Takes: frames from gen.analysis (`tables.timeline_frames`, `tables.summary_table`,
`scaling.sweep_frame` and friends, the summary tables of every set). Gives:
the timeline of one forward (`timeline`, and `timeline_spec`, the same spec from `tables.timeline_events`
rows, made faster), GPU time per variant (`gpu_time`), GPU time per variant in every
set (`gpu_time_by_set`), the scaling charts (`time_vs_seq`,
`memory_vs_seq`, `roofline`, `category_bars`, `busy_vs_seq`), per
scenario (`scenario_time`, `scenario_rate`, `scenario_roofline`), and the matrix of
sets and scenarios (`fastest_map`: the fastest variant of each). The page
builders embed them (gen.report.site.chart_div).

Shared look: one log scale for times (`_log`, fitted to the data), one base-2
axis for sequence lengths, one colour per event kind, one row height. Each
chart keeps only the columns it shows, so that the pages stay small.
"""

from __future__ import annotations

import hashlib
import json
import math
from functools import lru_cache

import numpy as np
import pandas as pd

from gen.analysis.scenarios import tflops_at
from gen.analysis.values import missing, number, variant_order
from gen.report import format as fmt

# One colour per kind of event. Copies and fills must stand out from kernels.
KIND_DOMAIN = ["aten op", "annotation", "runtime call", "kernel", "memcpy", "memset"]
KIND_RANGE = ["#8c8c8c", "#b39ddb", "#66bb6a", "#4f7fd6", "#e8590c", "#d6336c"]
CPU_KIND = {"cpu_op": "aten op", "user_annotation": "annotation",
            "cuda_runtime": "runtime call", "cuda_driver": "runtime call"}
ROW_PX = 20  # one lane or one variant
MEASURED_COLOUR = "#4f7fd6"
# Times span orders of magnitude: log axes, fitted to the data (a "nice" log
# domain would run to the next power of ten), with room for the marks. A bar
# starts at zero, which a log scale cannot place: on it, draw points, not bars.
def _log():  # a function: altair is imported where a chart is made
    return alt.Scale(type="log", nice=False, padding=12)

def _seq_len():  # a function: altair is imported where a chart is made
    return alt.Scale(type="log", base=2)


class _Altair:
    """altair, imported where a chart is first made with it: a build whose chart shapes are all kept
    (gen.report.cache's "shapes") fills them without it, and its start is 0.2 s shorter."""

    def __getattr__(self, name: str):
        import altair

        return getattr(altair, name)


alt = _Altair()


def preload() -> None:
    """Import altair now (where the caller has time to spare, or before forking workers that will draw)."""
    import altair  # noqa: F401


def _dataset_name(values: list) -> str:
    """The name altair gives an inline dataset of these rows (altair.vegalite.v6.api._dataset_name: the
    sha256 of its sorted JSON), without importing altair: a chart filled from a kept shape needs no
    altair at all (a test compares the two)."""
    if values == [{}]:
        return "empty"
    return "data-" + hashlib.sha256(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()[:32]



def _lane(depth: int, thread: str = "main") -> str:
    """A host lane: ops nested `depth` deep on a thread (a depth, not a CPU core)."""
    return f"host · depth {depth}" if thread == "main" else f"host · {thread} · depth {depth}"


def _occupancy(x) -> str:
    """The profiler's estimate for a tooltip: a percentage, or why there is none."""
    return "not reported" if number(x) is None else fmt.num(x, ".0f", "%")


def timeline_data(cpu: pd.DataFrame, gpu: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The two frames the timeline shows (only its columns) and its lanes, top to bottom."""
    threads = cpu["thread"].astype(str) if "thread" in cpu else pd.Series(["main"] * len(cpu), dtype=str)
    keys = sorted({(t != "main", t, int(d)) for t, d in zip(threads, cpu["depth"])})
    lanes = [_lane(d, t) for _, t, d in keys] + ["GPU"]
    c = pd.DataFrame({
        "lane": [_lane(int(d), t) for t, d in zip(threads, cpu["depth"])],
        "name": cpu["name"].astype(str),
        "kind": [CPU_KIND.get(str(k), "aten op") for k in cpu["cat"]],
        "start_us": [number(x, 3) for x in cpu["start_us"]],
        "end_us": [number(x, 3) for x in cpu["end_us"]],
        "dur_us": [number(x, 3) for x in cpu["dur_us"]],
    })
    g = pd.DataFrame({
        "lane": ["GPU"] * len(gpu),
        "index": [int(i) for i in gpu["index"]],
        "name": gpu["name"].astype(str),
        "short_name": gpu["short_name"].astype(str),
        "kind": gpu["kind"].astype(str),
        "category": gpu["category"].astype(str),
        "start_us": [number(x, 3) for x in gpu["start_us"]],
        "end_us": [number(x, 3) for x in gpu["end_us"]],
        "dur_us": [number(x, 3) for x in gpu["dur_us"]],
        "launched_by": gpu["launched_by"].fillna("").astype(str),
        "launch_api": gpu["launch_api"].fillna("").astype(str),
        "occupancy": [_occupancy(x) for x in gpu["occupancy_pct"]],
    })
    return c, g, lanes


def timeline(cpu: pd.DataFrame, gpu: pd.DataFrame) -> alt.LayerChart:
    """Host lanes (ops and runtime calls, one row per thread and nesting depth) above a GPU
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
                 alt.Tooltip("occupancy:N", title="occupancy (profiler's estimate)")],
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
    """`timeline(cpu, gpu).to_dict()` (of the frames these rows make) without Altair's cost per chart:
    the spec Altair made once, with this forward's rows and lanes put in. Same Vega-Lite. The spec
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
    """The skeleton parsed once (json.loads of it on every chart before)."""
    return json.loads(_timeline_skeleton())


def _as_text(x) -> str:
    """str(x) as a frame's astype(str) gives it (pandas keeps a missing value missing)."""
    return x if type(x) is str else (None if missing(x) else str(x))


def _timeline_rows(cpu: list[dict], gpu: list[dict]) -> tuple[list[dict], list[dict], list[str]]:
    """_records of timeline_data's two frames (of the frames these rows make), and its lanes, made off
    the rows (tests compare them)."""
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


def _records(df: pd.DataFrame) -> list[dict]:
    cols = list(df.columns)
    values = [df[c].tolist() for c in cols]
    return [{k: (None if isinstance(v, float) and v != v else v) for k, v in zip(cols, row)}
            for row in zip(*values)]


# The same spec, made faster: a chart's shape (its marks, encodings, scales, titles: all but
# its rows) is made by Altair once per process and shape, then filled with each call's rows.
# Altair takes some 60 ms a chart, and a set brings about twenty. Each `*_spec` function below
# gives what its chart's `.to_dict()` gives (tests/test_charts.py compares them).

_MARK = "__frame__"
_SHAPES: dict[tuple, tuple[str, dict[str, str]]] = {}


def shapes() -> dict:
    """The chart shapes this process holds (key -> shape): a build keeps them between runs
    (gen.report.units, in its cache, keyed by the code), so a new set's charts skip Altair."""
    return dict(_SHAPES)


def add_shapes(shapes: dict) -> None:
    _SHAPES.update(shapes)


def _fast(key: tuple, frames: dict[str, pd.DataFrame], build) -> dict:
    """build(frames).to_dict(): Altair builds the chart once per `key` (everything build reads
    besides the frames' rows), from one marked row per frame; the real rows go in after."""
    if any(len(f) == 0 for f in frames.values()):
        return build(frames).to_dict(validate=False)
    if key not in _SHAPES:
        marked = {n: f.iloc[:1].assign(**{_MARK: n}) for n, f in frames.items()}
        spec = build(marked).to_dict(validate=False)
        slots = {name: rows[0][_MARK] for name, rows in spec.get("datasets", {}).items()}
        if len(set(slots.values())) != len(frames):  # a frame Altair did not keep as a dataset
            return build(frames).to_dict(validate=False)
        _SHAPES[key] = (json.dumps(spec), slots)
    return _filled(key, {n: _values(f) for n, f in frames.items()})


def _filled(key: tuple, values: dict[str, list[dict]], subs: dict[str, str] | None = None) -> dict:
    """The shape kept for `key`, filled with each frame's rows (as _values gives them), and each
    placeholder's JSON text in `subs` replaced by its chart's (_open)."""
    text, slots = _SHAPES[key]
    names = {n: _dataset_name(v) for n, v in values.items()}
    for old, frame in slots.items():
        text = text.replace(f'"{old}"', f'"{names[frame]}"')
    for old, real in (subs or {}).items():
        text = text.replace(old, real)
    spec = json.loads(text)
    spec["datasets"] = {names[frame]: values[frame] for frame in slots.values()}
    return spec


# The scenario charts differ from set to set and scenario to scenario mostly by their series order
# (the variants drawn) and length ticks: their shape is made once per process with placeholders in
# their place, and each chart's order and ticks are written into its text (a shape per order and
# ticks before: some thirty Altair charts in a worker's first set, 1 s of its CPU).
_ORDER_MARK = "__series_order__"  # no variant's name
_TICKS_MARK = -7770001  # no length


def _open(key: tuple, frames, build, order: list[str], ticks: list[int] | None,
          values: dict[str, list[dict]]) -> dict | None:
    """build(frames, order, ticks).to_dict() with `values` its frames' rows (as _values gives them),
    from a shape made once per `key` (everything build reads besides the rows, the order and the
    ticks) with placeholders for the order and ticks. `frames()` gives the frames where the shape
    is to be made. None where no shape can be made so (an empty frame or order; a frame Altair did
    not keep as a dataset): the caller makes the chart as before."""
    if not order or ticks == []:
        return None
    if key not in _SHAPES:
        made = frames()
        if any(len(f) == 0 for f in made.values()):
            return None
        marked = {n: f.iloc[:1].assign(**{_MARK: n}) for n, f in made.items()}
        spec = build(marked, [_ORDER_MARK], [_TICKS_MARK] if ticks is not None else None).to_dict(validate=False)
        slots = {name: rows[0][_MARK] for name, rows in spec.get("datasets", {}).items()}
        if len(set(slots.values())) != len(made):
            return None
        _SHAPES[key] = (json.dumps(spec), slots)
    subs = {json.dumps([_ORDER_MARK]): json.dumps(order)}
    if ticks is not None:
        subs[json.dumps([_TICKS_MARK])] = json.dumps(ticks)
    return _filled(key, values, subs)


def _all_text(vals: list) -> bool:
    return all(type(v) is str for v in vals)


def _values(df: pd.DataFrame) -> list[dict]:
    """The rows Altair's data transformer gives for a frame (`alt.data_transformers.get()(df)["values"]`:
    its row limit, sanitize_pandas_dataframe, to_dict(orient="records")), read column by column: a
    quarter of a scenario page's time went to Altair's copies and casts. Integers and booleans as
    Python's; floats too, NaN and ±inf as None; text as it is (pandas' str columns: a missing value
    as None). Any other column (an object column of anything but text, categories, dates...) goes
    to Altair."""
    cols = list(df.columns)
    if (len(df) > 5000 or not all(type(c) is str for c in cols) or len(set(cols)) != len(cols)
            or isinstance(df.index, pd.MultiIndex)):
        return alt.data_transformers.get()(df)["values"]
    out = []
    for i in range(len(cols)):
        col = df.iloc[:, i]
        numpy, kind = isinstance(col.dtype, np.dtype), col.dtype.kind
        if numpy and kind in "iub":
            out.append(col.tolist())
        elif numpy and kind == "f":
            a = col.to_numpy()
            bad = ~np.isfinite(a)
            vals = a.tolist()
            if bad.any():
                for j in np.flatnonzero(bad).tolist():
                    vals[j] = None
            out.append(vals)
        elif col.dtype == object and _all_text(vals := col.tolist()):
            out.append(vals)  # (with a missing value, pandas' `where` makes it NaN: Altair's say)
        elif isinstance(col.dtype, pd.StringDtype) and col.dtype.na_value is not pd.NA:
            out.append([None if type(v) is float else v for v in col.tolist()])  # NaN: missing
        else:
            return alt.data_transformers.get()(df)["values"]
    return [dict(zip(cols, row)) for row in zip(*out)] if cols else [{} for _ in range(len(df))]


def _summary_points(summary: pd.DataFrame) -> pd.DataFrame:
    ok = summary[summary["status"] == "ok"]
    # A GPU-only time that is a kernel sum (no CUDA graph of that call) says so on its row.
    sums = ok["gpu_only_method"] == "kernel_sum" if "gpu_only_method" in ok else pd.Series(False, index=ok.index)
    return pd.DataFrame({
        "label": [f"{x} (kernel sum)" if s else str(x) for x, s in zip(ok["label"], sums)],
        "median": [number(x, 4) for x in ok["gpu_only_ms"]],
        "q1": [number(x, 4) for x in ok["gpu_only_q1_ms"]],
        "q3": [number(x, 4) for x in ok["gpu_only_q3_ms"]],
        "n": [int(n) for n in ok["gpu_only_n"]],
    }).dropna(subset=["median"]).sort_values(["median", "label"])


def gpu_time(summary: pd.DataFrame, per: str = "forward") -> alt.LayerChart:
    """Median GPU-only time per variant (point) with its interquartile range (rule),
    on a log axis, fastest on top."""
    d = _summary_points(summary)
    return _gpu_time(d, list(d["label"]), per)


def gpu_time_spec(summary: pd.DataFrame, per: str = "forward") -> dict:
    d = _summary_points(summary)
    order = list(d["label"])
    return _fast(("gpu_time", tuple(order), per), {"d": d}, lambda f: _gpu_time(f["d"], order, per))


def _gpu_time(d: pd.DataFrame, order: list[str], per: str) -> alt.LayerChart:
    y = alt.Y("label:N", sort=order, title=None)
    rule = alt.Chart(d).mark_rule(strokeWidth=3, color=MEASURED_COLOUR).encode(
        x=alt.X("q1:Q", scale=_log(), title=f"GPU-only time per {per} (ms, log scale)"), x2="q3:Q", y=y)
    point = alt.Chart(d).mark_point(filled=True, size=60, color=MEASURED_COLOUR).encode(
        x=alt.X("median:Q", scale=_log()), y=y,
        tooltip=[alt.Tooltip("label:N", title="variant"),
                 alt.Tooltip("median:Q", title="median (ms)", format=".4f"),
                 alt.Tooltip("q1:Q", title="Q1 (ms)", format=".4f"),
                 alt.Tooltip("q3:Q", title="Q3 (ms)", format=".4f"),
                 alt.Tooltip("n:Q", title="samples")])
    return alt.layer(rule, point).properties(width="container", height=ROW_PX * max(1, len(order)) + 10)


# --------------------------------------------------------------------------- every set

MEASURED = "measured (median, IQR)"
PUBLISHED = "published (one figure)"
SET_ROW_PX = 16  # per set, within each variant's band


def compare_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The chart's rows: every (set, variant) with a GPU-only time (or a published GPU time)."""
    cols = ["set", "variant", "gpu_only_ms", "gpu_only_q1_ms", "gpu_only_q3_ms", "kind"]
    d = df[df["gpu_only_ms"].notna()].reindex(columns=cols).copy()
    pub = d["kind"] == "reference"
    d["set"] = d["set"] + pub.map({True: " (published)", False: ""})
    d["figure"] = pub.map({True: PUBLISHED, False: MEASURED})
    # A published figure has no spread; a measured one without samples neither.
    d.loc[pub, ["gpu_only_q1_ms", "gpu_only_q3_ms"]] = float("nan")
    return d.reset_index(drop=True)


def gpu_time_by_set(df: pd.DataFrame) -> alt.LayerChart:
    """One row per variant, one dot per set within it (median GPU time, or the
    published figure as a hollow diamond), a rule over the IQR where there are
    samples; sets with no GPU time (CPU sets) are absent."""
    d = compare_frame(df)
    order = variant_order(d["variant"])
    n_sets = max(1, d["set"].nunique())
    title = "GPU-only time per forward (ms, log scale)"
    x = alt.X("gpu_only_ms:Q", scale=_log(), title=title)
    base = alt.Chart(d).encode(
        y=alt.Y("variant:N", sort=order, title=None),
        yOffset=alt.YOffset("set:N"),
        color=alt.Color("set:N", title="result set", legend=alt.Legend(orient="bottom", direction="vertical",
                                                                      labelLimit=0)))
    iqr = base.transform_filter("isValid(datum.gpu_only_q1_ms) && isValid(datum.gpu_only_q3_ms)").mark_rule(
        strokeWidth=2).encode(x=alt.X("gpu_only_q1_ms:Q", scale=_log(), title=title), x2="gpu_only_q3_ms:Q")
    dots = base.mark_point(size=70, strokeWidth=2).encode(
        x=x,
        shape=alt.Shape("figure:N", title="figure", scale=alt.Scale(domain=[MEASURED, PUBLISHED],
                                                                    range=["circle", "diamond"]),
                        legend=alt.Legend(orient="bottom", labelLimit=0)),
        fill=alt.condition(alt.datum.kind == "reference", alt.value("transparent"), alt.Color("set:N", legend=None)),
        tooltip=["set", "variant",
                 alt.Tooltip("gpu_only_ms:Q", title="GPU-only ms (median or published)", format=".4f"),
                 alt.Tooltip("gpu_only_q1_ms:Q", title="IQR from", format=".4f"),
                 alt.Tooltip("gpu_only_q3_ms:Q", title="IQR to", format=".4f"), "figure"])
    return alt.layer(iqr, dots).properties(width="container", height=SET_ROW_PX * n_sets * len(order) + 10)


# --------------------------------------------------------------------------- the matrix

MAP_FIELDS = ("set_title", "scenario", "scenario_title", "point", "fastest_label", "fastest_ms", "basis",
              "runner_up", "ratio", "sure")


def _text(rows: pd.DataFrame, col: str) -> list[str]:
    """A column of names as text, a dash where there is none (or no such column)."""
    return [str(x) if isinstance(x, str) and x else "–" for x in (rows[col] if col in rows else [None] * len(rows))]


def fastest_map(rows: pd.DataFrame) -> alt.LayerChart:
    """The fastest variant of every set (a row: GPU and PyTorch) in every scenario (a
    column), in one forward: the cell is coloured by the variant and names it; a pale cell
    is one whose order is not settled (the 95% intervals of the fastest's and the runner-up's
    medians overlap, gen.analysis.verdicts); its tooltip names the variants tied with it (the
    same kernels) and those within noise.
    `rows` as gen.report.pages.verdict.fastest_rows gives them, in the sets' order; one
    colour per variant, in the declared order of the variants."""
    d = pd.DataFrame({
        "set_title": rows["set_title"].astype(str), "scenario": rows["scenario"].astype(str),
        "scenario_title": rows["scenario_title"].astype(str), "point": rows["point"].fillna("").astype(str),
        "fastest_label": rows["fastest_label"].astype(str),
        "fastest_ms": [number(x, 4) for x in rows["fastest_ms"]], "basis": rows["basis"].astype(str),
        "runner_up": rows["runner_up"].fillna("–").astype(str),
        "ratio": [number(x, 3) for x in rows["ratio"]],
        "sure": ["yes" if s is True else "no: the 95% intervals overlap" if s is False else "–"
                 for s in rows["settled"]],
        "near": _text(rows, "near"), "tie": _text(rows, "tie"),
    })
    sets = list(dict.fromkeys(d["set_title"]))
    scenarios = list(dict.fromkeys(d["scenario"]))
    labels = [fmt.label_of(v) for v in variant_order(rows["fastest"])]
    x = alt.X("scenario:N", sort=scenarios, title=None,
              axis=alt.Axis(orient="top", labelAngle=-40, labelAlign="left"))
    y = alt.Y("set_title:N", sort=sets, title=None)
    tooltip = [alt.Tooltip("set_title:N", title="set"), alt.Tooltip("scenario_title:N", title="scenario"),
               alt.Tooltip("point:N", title="at"), alt.Tooltip("fastest_label:N", title="fastest"),
               alt.Tooltip("fastest_ms:Q", title="median (ms)", format=".4g"),
               alt.Tooltip("basis:N", title="ranked by"), alt.Tooltip("runner_up:N", title="runner-up"),
               alt.Tooltip("ratio:Q", title="runner-up / fastest", format=".2f"),
               alt.Tooltip("sure:N", title="order settled"), alt.Tooltip("tie:N", title="tied (same kernels)"),
               alt.Tooltip("near:N", title="within noise")]
    cell = alt.Chart(d).mark_rect(stroke="#ffffff", strokeWidth=1).encode(
        x=x, y=y, tooltip=tooltip,
        color=alt.Color("fastest_label:N", title="fastest variant", scale=alt.Scale(domain=labels, scheme="tableau10"),
                        legend=alt.Legend(orient="bottom", direction="horizontal", columns=2)),
        opacity=alt.condition(alt.datum.sure == "yes", alt.value(0.9), alt.value(0.4)),
    )
    # A cell's name is cut to its cell (an ellipsis where it does not fit): names never run into the next cell.
    text = alt.Chart(d).mark_text(fontSize=10, limit=alt.ExprRef("max(bandwidth('x') - 6, 1)"), color="#1f1f24").encode(
        x=x, y=y, text="fastest_label:N", tooltip=tooltip)
    return alt.layer(cell, text).properties(width="container", height=ROW_PX * max(1, len(sets)))


# --------------------------------------------------------------------------- scaling

def _ok(df: pd.DataFrame, col: str) -> pd.DataFrame:
    return df[df[col].notna()]


def time_vs_seq(sweep: pd.DataFrame) -> alt.FacetChart:
    """Median GPU-only time (with IQR band) against sequence length, log-log."""
    return _time_vs_seq(_time_frame(sweep))


def time_vs_seq_spec(sweep: pd.DataFrame) -> dict:
    return _fast(("time_vs_seq",), {"d": _time_frame(sweep)}, lambda f: _time_vs_seq(f["d"]))


def _time_frame(sweep: pd.DataFrame) -> pd.DataFrame:
    return _ok(sweep, "gpu_only_ms")[["variant", "seq_len", "head_dim", "gpu_only_ms", "gpu_only_q1_ms",
                                      "gpu_only_q3_ms"]]


def _time_vs_seq(d: pd.DataFrame) -> alt.FacetChart:
    base = alt.Chart().encode(
        x=alt.X("seq_len:Q", scale=_seq_len(), title="sequence length"),
        color=alt.Color("variant:N", title="variant"))
    line = base.mark_line(point=True).encode(
        y=alt.Y("gpu_only_ms:Q", scale=_log(), title="GPU-only time per forward (ms, median)"),
        tooltip=["variant", "seq_len", "head_dim", alt.Tooltip("gpu_only_ms:Q", format=".4f")])
    band = base.mark_area(opacity=0.2).encode(y="gpu_only_q1_ms:Q", y2="gpu_only_q3_ms:Q")
    return alt.layer(band, line, data=d).facet(column=alt.Column("head_dim:O", title="head dim"))


def memory_vs_seq(sweep: pd.DataFrame) -> alt.FacetChart:
    """Peak allocator memory against sequence length, log-log."""
    return _memory_vs_seq(_ok(sweep, "peak_mb")[["variant", "seq_len", "head_dim", "peak_mb"]])


def memory_vs_seq_spec(sweep: pd.DataFrame) -> dict:
    d = _ok(sweep, "peak_mb")[["variant", "seq_len", "head_dim", "peak_mb"]]
    return _fast(("memory_vs_seq",), {"d": d}, lambda f: _memory_vs_seq(f["d"]))


def _memory_vs_seq(d: pd.DataFrame) -> alt.FacetChart:
    return alt.Chart(d).mark_line(point=True).encode(
        x=alt.X("seq_len:Q", scale=_seq_len(), title="sequence length"),
        y=alt.Y("peak_mb:Q", scale=_log(), title="peak memory (MiB)"),
        color="variant:N", tooltip=["variant", "seq_len", "head_dim", alt.Tooltip("peak_mb:Q", format=",.0f")],
    ).facet(column=alt.Column("head_dim:O", title="head dim"))


def roofline(sweep: pd.DataFrame, ceil: dict) -> alt.LayerChart:
    """Arithmetic intensity (FLOPs per minimum byte, the report's count) against achieved
    TFLOP/s, log-log, under the highest measured bandwidth's slope and the matmul ceiling."""
    return _roofline(*_roofline_frames(sweep, ceil))


def roofline_spec(sweep: pd.DataFrame, ceil: dict) -> dict:
    d, roof = _roofline_frames(sweep, ceil)
    return _fast(("roofline",), {"d": d, "roof": roof}, lambda f: _roofline(f["d"], f["roof"]))


def _roofline_frames(sweep: pd.DataFrame, ceil: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    d = _ok(sweep, "tflops_causal")[["variant", "seq_len", "head_dim", "intensity", "tflops_causal"]]
    lo, hi = max(d["intensity"].min() / 2, 1.0), d["intensity"].max() * 2
    xs = [lo * (hi / lo) ** (i / 40) for i in range(41)]
    roof = pd.DataFrame(dict(intensity=xs, tflops=[min(ceil["matmul_tflops"], x * ceil["bandwidth_gbps"] / 1e3)
                                                    for x in xs]))
    return d, roof


def _roofline(d: pd.DataFrame, roof: pd.DataFrame) -> alt.LayerChart:
    line = alt.Chart(roof).mark_line(color="black", strokeDash=[4, 3]).encode(
        x="intensity:Q", y="tflops:Q")
    pts = alt.Chart(d).mark_point(filled=True).encode(
        x=alt.X("intensity:Q", scale=_log(), title="arithmetic intensity (FLOP, FlashAttention count / minimum byte)"),
        y=alt.Y("tflops_causal:Q", scale=_log(), title="achieved TFLOP/s (FlashAttention count)"),
        color="variant:N", shape="head_dim:N",
        tooltip=["variant", "seq_len", "head_dim", alt.Tooltip("tflops_causal:Q", format=".1f")])
    return alt.layer(line, pts)


def category_bars(cat: pd.DataFrame) -> alt.Chart:
    """Stacked GPU time of one forward by kernel category, per variant."""
    return _category_bars(cat[["variant", "category", "duration_us"]])


def category_bars_spec(cat: pd.DataFrame) -> dict:
    return _fast(("category_bars",), {"d": cat[["variant", "category", "duration_us"]]},
                 lambda f: _category_bars(f["d"]))


def _category_bars(d: pd.DataFrame) -> alt.Chart:
    return alt.Chart(d).mark_bar().encode(
        y=alt.Y("variant:N", sort=None, title=None),
        x=alt.X("duration_us:Q", title="GPU time per forward (µs)"),
        color=alt.Color("category:N", title="kernel category"),
        tooltip=["variant", "category", alt.Tooltip("duration_us:Q", format=".1f")])


def busy_vs_seq(busy: pd.DataFrame) -> alt.Chart:
    """Share of one forward's span in which the GPU ran something, against sequence length."""
    return _busy_vs_seq(busy[busy["source"] == "sweep"][["variant", "seq_len", "busy_pct", "launch_gap_us"]])


def busy_vs_seq_spec(busy: pd.DataFrame) -> dict:
    d = busy[busy["source"] == "sweep"][["variant", "seq_len", "busy_pct", "launch_gap_us"]]
    return _fast(("busy_vs_seq",), {"d": d}, lambda f: _busy_vs_seq(f["d"]))


def _busy_vs_seq(d: pd.DataFrame) -> alt.Chart:
    return alt.Chart(d).mark_line(point=True).encode(
        x=alt.X("seq_len:Q", scale=_seq_len(), title="sequence length (head dim 64)"),
        y=alt.Y("busy_pct:Q", scale=alt.Scale(domain=[0, 100]), title="GPU busy (% of the forward's span)"),
        color="variant:N",
        tooltip=["variant", "seq_len", alt.Tooltip("busy_pct:Q", format=".0f"),
                 alt.Tooltip("launch_gap_us:Q", format=".1f")])

# --------------------------------------------------------------------------- scenarios
# Frames of gen.analysis.scenarios (`point_frame`, `anchor_frame`) of one set and scenario.
# Measured points are filled circles, published ones hollow diamonds (MEASURED / PUBLISHED).

def _length():  # a function: altair is imported where a chart is made
    return alt.Scale(type="log", base=2, nice=False, padding=12)

def _figure_shapes():  # a function: altair is imported where a chart is made
    return alt.Scale(domain=[MEASURED, PUBLISHED], range=["circle", "diamond"])



_SCENARIO_NUMERIC = ("kv_len", "head_dim", "value", "q1", "q3", "intensity", "tflops")


def _clean(df: pd.DataFrame) -> pd.DataFrame:
    """Numbers as float columns (Altair writes their NaN as null; an object column of
    None would come out as NaN, which is not JSON), text as strings."""
    df = df.copy()
    for c in df.columns:
        df[c] = pd.to_numeric(df[c], errors="coerce").astype(float) if c in _SCENARIO_NUMERIC else df[c].astype(str)
    return df


def _measured(points: pd.DataFrame, col: str) -> pd.DataFrame:
    ok = points[(points["status"] == "ok") & (points["mode"] == "inference") & points[col].notna()]
    d = pd.DataFrame({
        "series": ok["variant"].astype(str), "kv_len": ok["kv_len"].astype(int), "head_dim": ok["head_dim"].astype(int),
        "value": [number(x, 6) for x in ok[col]], "figure": MEASURED,
    })
    if col == "gpu_only_ms":
        d["q1"] = [number(x, 6) for x in ok["gpu_only_q1_ms"]]
        d["q3"] = [number(x, 6) for x in ok["gpu_only_q3_ms"]]
    return d


def _published(anchors: pd.DataFrame, col: str, same_shape_only: bool) -> pd.DataFrame:
    a = anchors[anchors["mode"] == "inference"] if len(anchors) else anchors
    if len(a) and same_shape_only:
        a = a[a["same_shape"].astype(bool)]
    a = a[a[col].notna()] if len(a) else a
    return pd.DataFrame({
        "series": [f"{v} ({g}, published)" for v, g in zip(a["variant"], a["gpu"])],
        "kv_len": [int(x) for x in a["kv_len"]], "head_dim": [int(x) for x in a["head_dim"]],
        "value": [number(x, 6) for x in a[col]], "figure": PUBLISHED,
    })


def _series_order(d: pd.DataFrame) -> list[str]:
    measured = variant_order(d.loc[d["figure"] == MEASURED, "series"])
    return measured + sorted(set(d.loc[d["figure"] == PUBLISHED, "series"]))


def _ticks(d: pd.DataFrame) -> list[int]:
    """The lengths measured: the length axis is ticked at them (a few points would
    otherwise get linear-looking ticks between them)."""
    return sorted({int(x) for x in d["kv_len"].dropna()})


def _x(ticks: list[int], title: str) -> alt.X:
    """Lengths on a base-2 log axis, ticked at the lengths measured."""
    return alt.X("kv_len:Q", scale=_length(), title=title, axis=alt.Axis(values=ticks, format=",", labelAngle=0))


def _color(order: list[str]) -> alt.Color:
    # Up to 20 series: the measured variants and the published ones must not share a colour.
    return alt.Color("series:N", title=None, sort=order, scale=alt.Scale(scheme="tableau20"),
                     legend=alt.Legend(orient="bottom", columns=2, labelLimit=0))


def _lines(d: pd.DataFrame, order: list[str], ticks: list[int], y_title: str, x_title: str) -> alt.LayerChart:
    x = _x(ticks, x_title)
    color = _color(order)
    base = alt.Chart(d).encode(x=x, color=color)
    line = base.transform_filter(alt.datum.figure == MEASURED).mark_line().encode(
        y=alt.Y("value:Q", scale=_log(), title=y_title), detail="head_dim:N")
    dots = base.mark_point(size=60, strokeWidth=2).encode(
        y=alt.Y("value:Q", scale=_log(), title=y_title),
        shape=alt.Shape("figure:N", scale=_figure_shapes(), title=None, legend=alt.Legend(orient="bottom")),
        fill=alt.condition(alt.datum.figure == MEASURED, alt.Color("series:N", sort=order, legend=None,
                                                                   scale=alt.Scale(scheme="tableau20")),
                           alt.value("transparent")),
        tooltip=[alt.Tooltip("series:N", title="variant"), alt.Tooltip("kv_len:Q", title="length", format=","),
                 alt.Tooltip("head_dim:Q", title="head dim"), alt.Tooltip("value:Q", title=y_title, format=".4g"),
                 alt.Tooltip("figure:N")])
    return alt.layer(line, dots)


def _finite(x) -> float | None:
    """number(x, 6) as a float column of _clean holds it and _values writes it: None where missing or infinite."""
    x = number(x, 6)
    return x if x is not None and math.isfinite(x) else None


def _frame(points) -> pd.DataFrame:
    """A point frame, or one given as a function that makes it (the page has the frame's rows: the
    frame is made only where a chart's shape is new or its rows do not fill it)."""
    return points() if callable(points) else points


def _columns(points: pd.DataFrame, cols, rows: list[dict] | None) -> list[tuple]:
    """The frame's columns `cols` row by row, read off `rows` (values.rows(points), where the caller has
    them: the same Python values a column's tolist gives) or else off the frame."""
    if rows is not None:
        return [tuple(r[c] for c in cols) for r in rows]
    points = _frame(points)
    return list(zip(*(points[c].tolist() for c in cols)))


def _measured_rows(points: pd.DataFrame, col: str, rows: list[dict] | None = None) -> list[dict]:
    """_values(_clean(_measured(points, col))), read off the columns (tests compare them); `rows`: as _columns."""
    cols = ["status", "mode", col, "variant", "kv_len", "head_dim"] + \
        (["gpu_only_q1_ms", "gpu_only_q3_ms"] if col == "gpu_only_ms" else [])
    out = []
    for r in _columns(points, cols, rows):
        if r[0] == "ok" and r[1] == "inference" and not missing(r[2]):
            row = dict(series=str(r[3]), kv_len=float(int(r[4])), head_dim=float(int(r[5])), value=_finite(r[2]),
                       figure=MEASURED)
            if col == "gpu_only_ms":
                row.update(q1=_finite(r[6]), q3=_finite(r[7]))
            out.append(row)
    return out


def _published_rows(anchors: pd.DataFrame, col: str, same_shape_only: bool) -> list[dict]:
    """_values(_clean(_published(anchors, col, same_shape_only)))."""
    if not len(anchors):
        return []
    out = []
    for mode, same, v, g, kv, d, x in zip(*(anchors[c].tolist() for c in ("mode", "same_shape", "variant", "gpu",
                                                                         "kv_len", "head_dim", col))):
        if mode == "inference" and (bool(same) or not same_shape_only) and not missing(x):
            out.append(dict(series=f"{v} ({g}, published)", kv_len=float(int(kv)), head_dim=float(int(d)),
                            value=_finite(x), figure=PUBLISHED))
    return out


def _order_and_ticks(rows: list[dict]) -> tuple[list[str], list[int]]:
    """_series_order and _ticks of the rows' frame."""
    order = variant_order([r["series"] for r in rows if r["figure"] == MEASURED]) + \
        sorted({r["series"] for r in rows if r["figure"] == PUBLISHED})
    return order, sorted({int(r["kv_len"]) for r in rows})


def _time_points(points: pd.DataFrame, anchors: pd.DataFrame) -> pd.DataFrame:
    d = pd.concat([_measured(points, "gpu_only_ms"), _published(anchors, "published_ms", True)], ignore_index=True)
    return _clean(d.reindex(columns=["series", "kv_len", "head_dim", "value", "figure", "q1", "q3"]))


def scenario_time(points: pd.DataFrame, anchors: pd.DataFrame, x_title: str) -> alt.LayerChart:
    """GPU-only time per call against length, per variant (line and dots; a rule over the IQR),
    with published times where the anchor has our exact shape. Log-log."""
    d = _time_points(points, anchors)
    return _scenario_time(d, _series_order(d), _ticks(d), x_title)


def scenario_time_spec(points, anchors: pd.DataFrame, x_title: str, point_rows: list[dict] | None = None) -> dict:
    # The chart's rows read off the point and anchor frames where its shape is known (no frames
    # made: a third of a scenario page's charts' time); the frames and Altair otherwise.
    # `point_rows`: values.rows(points), where the caller has them (no column read). `points`: the
    # point frame, or a function that makes it (_frame).
    rows = [dict(r, **({} if "q1" in r else dict(q1=None, q3=None)))
            for r in _measured_rows(points, "gpu_only_ms", point_rows) + _published_rows(anchors, "published_ms", True)]
    if rows:
        order, ticks = _order_and_ticks(rows)
        got = _open(("scenario_time", x_title), lambda: {"d": _time_points(_frame(points), anchors)},
                    lambda f, o, t: _scenario_time(f["d"], o, t, x_title), order, ticks, {"d": rows})
        if got is not None:
            return got
    d = _time_points(_frame(points), anchors)
    order, ticks = _series_order(d), _ticks(d)
    return _fast(("scenario_time", tuple(order), tuple(ticks), x_title), {"d": d},
                 lambda f: _scenario_time(f["d"], order, ticks, x_title))


def _scenario_time(d: pd.DataFrame, order: list[str], ticks: list[int], x_title: str) -> alt.LayerChart:
    title = "GPU-only time per call (ms, log scale)"
    iqr = alt.Chart(d).transform_filter("isValid(datum.q1) && isValid(datum.q3)").mark_rule(strokeWidth=3).encode(
        x=_x(ticks, x_title), y=alt.Y("q1:Q", scale=_log(), title=title), y2="q3:Q", color=_color(order))
    return alt.layer(iqr, _lines(d, order, ticks, title, x_title)).properties(width="container", height=280)


def _rate_frames(points: pd.DataFrame, anchors: pd.DataFrame, figure: str,
                 ceilings: list[tuple[str, float]]) -> dict[str, pd.DataFrame]:
    """The points, the ceilings' rules, and one frame per ceiling's label (highest first)."""
    # Anchors publish rates of compute (prefill); none publishes a bandwidth.
    parts = [_measured(points, figure)] + ([_published(anchors, "tflops", False)] if figure == "tflops" else [])
    return {"d": _clean(pd.concat(parts, ignore_index=True)), **_rule_frames(ceilings)}


def _rule_rows(ceilings: list[tuple[str, float]]) -> dict[str, list[dict]]:
    """_values of each of _rule_frames' frames, made from the ceilings with no frame (tests compare them):
    a frame and a sort per chart before."""
    rules = [dict(ceiling=name, value=v) for name, v in ceilings if v and not math.isnan(v)]
    if not rules:
        return {}
    if not all(type(r["value"]) is int for r in rules):  # (the frame's column: int where every value is one)
        rules = [dict(r, value=float(r["value"])) for r in rules]
    # (sort_values' order, highest first: equal values keep theirs, as its stable sort of a few rows)
    by_value = sorted(rules, key=lambda r: -r["value"])
    def value(r: dict) -> dict:
        return r if type(r["value"]) is int else dict(r, value=_finite_or_none(r["value"]))

    return {"rules": [value(r) for r in rules], **{f"label{i}": [value(r)] for i, r in enumerate(by_value)}}


def _rule_frames(ceilings: list[tuple[str, float]]) -> dict[str, pd.DataFrame]:
    """The ceilings' rules, and one frame per ceiling's label (highest first); none without a ceiling."""
    frames = {}
    rules = pd.DataFrame([dict(ceiling=name, value=v) for name, v in ceilings if v and not math.isnan(v)])
    if len(rules):
        frames["rules"] = rules
        # The highest label above its rule, the others below theirs: two close ceilings stay legible.
        by_value = rules.sort_values("value", ascending=False).reset_index(drop=True)
        frames.update({f"label{i}": by_value.iloc[[i]] for i in range(len(by_value))})
    return frames


def scenario_rate(points: pd.DataFrame, anchors: pd.DataFrame, figure: str, y_title: str, x_title: str,
                  ceilings: list[tuple[str, float]]) -> alt.LayerChart:
    """TFLOP/s (figure "tflops") or TB/s ("tbps") against length per variant, published rates
    under our convention beside them (any shape), and each ceiling (label, value) as a dashed rule."""
    frames = _rate_frames(points, anchors, figure, ceilings)
    return _scenario_rate(frames, _series_order(frames["d"]), _ticks(frames["d"]), y_title, x_title)


def scenario_rate_spec(points, anchors: pd.DataFrame, figure: str, y_title: str, x_title: str,
                       ceilings: list[tuple[str, float]], point_rows: list[dict] | None = None) -> dict:
    # `points`: as scenario_time_spec's.
    rows = _measured_rows(points, figure, point_rows) + (_published_rows(anchors, "tflops", False)
                                                         if figure == "tflops" else [])
    if rows:  # as scenario_time_spec: the rows read off the frames (the ceilings' with no frame)
        order, ticks = _order_and_ticks(rows)
        rules = _rule_rows(ceilings)
        got = _open(("scenario_rate", y_title, x_title, ("d", *rules)),
                    lambda: _rate_frames(_frame(points), anchors, figure, ceilings),
                    lambda f, o, t: _scenario_rate(f, o, t, y_title, x_title), order, ticks, {"d": rows, **rules})
        if got is not None:
            return got
    frames = _rate_frames(_frame(points), anchors, figure, ceilings)
    order, ticks = _series_order(frames["d"]), _ticks(frames["d"])
    return _fast(("scenario_rate", tuple(order), tuple(ticks), y_title, x_title, tuple(frames)), frames,
                 lambda f: _scenario_rate(f, order, ticks, y_title, x_title))


def _scenario_rate(frames: dict[str, pd.DataFrame], order: list[str], ticks: list[int], y_title: str,
                   x_title: str) -> alt.LayerChart:
    chart = _lines(frames["d"], order, ticks, y_title, x_title)
    if "rules" in frames:
        rule = alt.Chart(frames["rules"]).mark_rule(strokeDash=[5, 3], color="#444").encode(
            y=alt.Y("value:Q", scale=_log()), tooltip=["ceiling", alt.Tooltip("value:Q", format=".4g")])
        labels = [alt.Chart(frames[f"label{i}"]).mark_text(align="left", dx=4, dy=-6 if i == 0 else 12,
                                                           color="#444", fontSize=11).encode(
            x=alt.value(0), y=alt.Y("value:Q", scale=_log()), text="ceiling:N")
            for i in range(sum(k.startswith("label") for k in frames))]
        chart = alt.layer(chart, rule, *labels)
    return chart.properties(width="container", height=280)


def _roof_frames(points: pd.DataFrame, matmul_tflops: float, copy_tbps: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    ok = points[(points["status"] == "ok") & points["tflops"].notna()]
    ok = ok if len(ok) else points[(points["status"] == "ok") & points["gpu_only_ms"].notna()]
    tf = ok["flops"] / (ok["gpu_only_ms"] * 1e-3) / 1e12
    d = _clean(pd.DataFrame({"variant": ok["variant"].astype(str), "mode": ok["mode"].astype(str),
                             "kv_len": ok["kv_len"].astype(int), "intensity": [number(x, 4) for x in ok["intensity"]],
                             "tflops": [number(x, 4) for x in tf]}))
    lo = max(min(d["intensity"]) / 4, 0.1) if len(d) else 1.0
    hi = max(d["intensity"]) * 4 if len(d) else 1e3
    ridge = matmul_tflops / copy_tbps
    lo, hi = min(lo, ridge / 8), max(hi, ridge * 8)
    xs = [lo * (hi / lo) ** (i / 60) for i in range(61)]
    roof = pd.DataFrame(dict(intensity=xs, tflops=[min(matmul_tflops, x * copy_tbps) for x in xs]))
    return d, roof


def scenario_roofline(points: pd.DataFrame, matmul_tflops: float, copy_tbps: float, x_title: str) -> alt.LayerChart:
    """Arithmetic intensity (FLOPs per byte, both conventions of gen.analysis.scenarios) against
    achieved TFLOP/s, log-log, under the roof min(matmul ceiling, intensity × copy bandwidth)."""
    d, roof = _roof_frames(points, matmul_tflops, copy_tbps)
    return _scenario_roofline(d, roof, variant_order(d["variant"]) if len(d) else [], x_title)


def _roof_rows(points: pd.DataFrame, matmul_tflops: float, copy_tbps: float,
               rows: list[dict] | None = None) -> tuple[list[dict], list[dict]]:
    """_values of each of _roof_frames' frames, read off the point frame's columns (tests compare them);
    `rows`: as _columns."""
    cols = ("status", "tflops", "gpu_only_ms", "variant", "mode", "kv_len", "intensity", "flops")
    pts = _columns(points, cols, rows)
    ok = [r for r in pts if r[0] == "ok" and not missing(r[1])] or \
        [r for r in pts if r[0] == "ok" and not missing(r[2])]
    # float64 arithmetic as the frame's columns do it, each number rounded as number() and NaN kept
    # where _clean's to_numeric makes one (min and max below read the column so)
    nan = float("nan")
    inten = [nan if (x := number(i, 4)) is None else x for *_, i, _f in ok]
    tf = [nan if (x := number(tflops_at(f, ms), 4)) is None else x for _s, _t, ms, *_, f in ok]
    d = [dict(variant=str(v), mode=str(m), kv_len=float(int(kv)), intensity=_finite_or_none(i),
              tflops=_finite_or_none(t)) for (_s, _t, _ms, v, m, kv, _i, _f), i, t in zip(ok, inten, tf)]
    lo = max(min(inten) / 4, 0.1) if ok else 1.0
    hi = max(inten) * 4 if ok else 1e3
    ridge = matmul_tflops / copy_tbps
    lo, hi = min(lo, ridge / 8), max(hi, ridge * 8)
    xs = [lo * (hi / lo) ** (i / 60) for i in range(61)]
    roof = [dict(intensity=_finite_or_none(x), tflops=_finite_or_none(min(matmul_tflops, x * copy_tbps))) for x in xs]
    return d, roof


def _finite_or_none(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def scenario_roofline_spec(points, matmul_tflops: float, copy_tbps: float, x_title: str,
                           point_rows: list[dict] | None = None) -> dict:
    # As scenario_time_spec: the rows read off the point frame where the shape is known (`points` as its).
    rows, roof_rows = _roof_rows(points, matmul_tflops, copy_tbps, point_rows)
    if rows:
        got = _open(("scenario_roofline", x_title),
                    lambda: dict(zip(("d", "roof"), _roof_frames(_frame(points), matmul_tflops, copy_tbps))),
                    lambda f, o, _: _scenario_roofline(f["d"], f["roof"], o, x_title),
                    variant_order([r["variant"] for r in rows]), None, {"d": rows, "roof": roof_rows})
        if got is not None:
            return got
    d, roof = _roof_frames(_frame(points), matmul_tflops, copy_tbps)
    order = variant_order(d["variant"]) if len(d) else []
    return _fast(("scenario_roofline", tuple(order), x_title), {"d": d, "roof": roof},
                 lambda f: _scenario_roofline(f["d"], f["roof"], order, x_title))


def _scenario_roofline(d: pd.DataFrame, roof: pd.DataFrame, order: list[str], x_title: str) -> alt.LayerChart:
    line = alt.Chart(roof).mark_line(color="#444", strokeDash=[4, 3]).encode(
        x=alt.X("intensity:Q", scale=_log(), title=x_title), y=alt.Y("tflops:Q", scale=_log()))
    pts = alt.Chart(d).mark_point(filled=True, size=60).encode(
        x=alt.X("intensity:Q", scale=_log(), title=x_title),
        y=alt.Y("tflops:Q", scale=_log(), title="achieved TFLOP/s (FlashAttention count)"),
        color=alt.Color("variant:N", sort=order, title=None, scale=alt.Scale(scheme="tableau20"),
                        legend=alt.Legend(orient="bottom", columns=3)),
        shape=alt.Shape("mode:N", title=None),
        tooltip=["variant", "mode", alt.Tooltip("kv_len:Q", format=","), alt.Tooltip("intensity:Q", format=".3g"),
                 alt.Tooltip("tflops:Q", format=".4g")])
    return alt.layer(line, pts).properties(width="container", height=280)


# --------------------------------------------------------------------------- dynamic lengths and forward/backward
# Rows of gen.analysis.dynamic.length_rows and gen.analysis.fwdbwd: plain records, each chart its own shape.

FIRST_CALL, STEADY_CALL = "first call", "steady call"


def dynamic_lengths_frame(rows: list[dict]) -> pd.DataFrame:
    """The chart's rows: variant label, KV length, kind of call, ms (positive: a log axis)."""
    ok = [r for r in rows if not missing(r["ms"]) and r["ms"] > 0]
    return pd.DataFrame({
        "series": [fmt.label_of(r["variant"]) for r in ok], "kv_len": [int(r["kv_len"]) for r in ok],
        "call": [str(r["call"]) for r in ok], "ms": [number(r["ms"], 6) for r in ok]},
        columns=["series", "kv_len", "call", "ms"])


def dynamic_lengths(rows: list[dict], x_title: str) -> alt.LayerChart:
    """Per variant, its first call at each new length (solid line) and its steady call there (dashed),
    in ms on a log axis against the length: the gap between the two is what each new length costs."""
    d = dynamic_lengths_frame(rows)
    order = variant_order(dict.fromkeys(r["variant"] for r in rows))
    labels = list(dict.fromkeys(fmt.label_of(v) for v in order))
    color = alt.Color("series:N", title=None, sort=labels, scale=alt.Scale(scheme="tableau10"),
                      legend=alt.Legend(orient="bottom", columns=2, labelLimit=0))
    dash = alt.StrokeDash("call:N", title=None, scale=alt.Scale(domain=[FIRST_CALL, STEADY_CALL],
                                                                   range=[[1, 0], [4, 3]]),
                          legend=alt.Legend(orient="bottom"))
    x = alt.X("kv_len:Q", title=x_title, scale=alt.Scale(zero=False, nice=False),
              axis=alt.Axis(format=",", labelAngle=0))
    y = alt.Y("ms:Q", scale=_log(), title="time of the call (ms, log scale)")
    base = alt.Chart(d).encode(x=x, y=y, color=color)
    line = base.mark_line().encode(strokeDash=dash, detail="call:N")
    dots = base.mark_point(size=30, filled=True).encode(
        shape=alt.Shape("call:N", legend=None, scale=alt.Scale(domain=[FIRST_CALL, STEADY_CALL],
                                                               range=["circle", "square"])),
        tooltip=[alt.Tooltip("series:N", title="variant"), alt.Tooltip("call:N", title="call"),
                 alt.Tooltip("kv_len:Q", title="KV length", format=","),
                 alt.Tooltip("ms:Q", title="ms", format=".4g")])
    return alt.layer(line, dots).properties(width="container", height=260)


def fwd_bwd_frame(rows: list[dict]) -> pd.DataFrame:
    """One row per variant (and point) and part of a training step: label, part, ms, where both parts
    were recorded."""
    out = []
    for r in rows:
        if missing(r.get("fwd_ms")) or missing(r.get("bwd_ms")):
            continue
        for part, col in (("forward", "fwd_ms"), ("backward", "bwd_ms")):
            out.append(dict(label=str(r["label"]), part=part, ms=number(r[col], 6), order=r["order"]))
    return pd.DataFrame(out, columns=["label", "part", "ms", "order"])


def fwd_bwd(rows: list[dict]) -> alt.Chart:
    """A training step's forward and backward, stacked, per variant (GPU-only medians, each timed apart):
    the backward is most of a step, and variants differ in it more than in their forward."""
    d = fwd_bwd_frame(rows)
    labels = list(dict.fromkeys(d.sort_values(["order", "label"])["label"]))
    return alt.Chart(d).mark_bar().encode(
        x=alt.X("ms:Q", title="GPU-only time per training step, forward then backward (ms)", stack="zero"),
        y=alt.Y("label:N", sort=labels, title=None),
        color=alt.Color("part:N", title=None, sort=["forward", "backward"],
                        scale=alt.Scale(domain=["forward", "backward"], range=["#4f7fd6", "#e8590c"]),
                        legend=alt.Legend(orient="bottom")),
        order=alt.Order("part_order:Q"),
        tooltip=[alt.Tooltip("label:N", title="variant"), alt.Tooltip("part:N", title="part"),
                 alt.Tooltip("ms:Q", title="median (ms)", format=".4f")],
    ).transform_calculate(part_order="datum.part === 'forward' ? 0 : 1").properties(
        width="container", height=ROW_PX * max(1, len(labels)) + 10)


# --------------------------------------------------------------------------- the decision

RECOMMENDED = "recommended call"
DEFAULT_CALL = "SDPA, no backend pinned"
OTHER_CALLS = "other measured calls"
DECISION_ROLES = (RECOMMENDED, DEFAULT_CALL, OTHER_CALLS)
DECISION_FIELDS = ("workload", "variant", "role", "rel", "rel_lo", "rel_hi", "median_ms", "ci_lo_ms", "ci_hi_ms",
                   "point")


def one_point(spec: dict) -> bool:
    """A chart that draws one point at most (every dataset one row or none): a table row says it
    better, so the pages give a row instead of the chart."""
    sets = list((spec.get("datasets") or {}).values())
    inline = [(spec.get("data") or {}).get("values")] + [(layer.get("data") or {}).get("values")
                                                          for layer in spec.get("layer", [])]
    sets += [v for v in inline if isinstance(v, list)]
    return all(len(rows) <= 1 for rows in sets)


def decision(rows: pd.DataFrame, x_title: str) -> alt.LayerChart:
    """The decision of one set at a glance: one row per workload (a scenario and mode with a
    verdict), each measured call's median at the verdict's point over the recommended call's
    median (log), its 95% interval as a rule; the recommended call and SDPA with no backend pinned
    (the call made by default) marked. `rows` as gen.report.pages.decision.chart_rows gives them."""
    d = pd.DataFrame({c: rows[c] for c in DECISION_FIELDS}) if len(rows) else pd.DataFrame(columns=DECISION_FIELDS)
    order = list(dict.fromkeys(d["workload"]))
    # drawn last, on top: the other calls first, the recommended call over them
    d = d.assign(layer=[DECISION_ROLES[::-1].index(r) for r in d["role"]]).sort_values("layer", kind="stable")
    y = alt.Y("workload:N", sort=order, title=None)
    x = alt.X("rel:Q", scale=alt.Scale(type="log", nice=False, padding=10), title=x_title)
    tooltip = [alt.Tooltip("workload:N", title="workload"), alt.Tooltip("point:N", title="at"),
               alt.Tooltip("variant:N", title="call"), alt.Tooltip("role:N", title="marked as"),
               alt.Tooltip("median_ms:Q", title="median (ms)", format=".4g"),
               alt.Tooltip("ci_lo_ms:Q", title="95% interval from (ms)", format=".4g"),
               alt.Tooltip("ci_hi_ms:Q", title="95% interval to (ms)", format=".4g"),
               alt.Tooltip("rel:Q", title="× the recommended call", format=".3g")]
    colour = alt.Color("role:N", title=None, scale=alt.Scale(domain=list(DECISION_ROLES),
                                                             range=["#e8590c", "#4f7fd6", "#9e9eaa"]),
                       legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=0))
    shape = alt.Shape("role:N", scale=alt.Scale(domain=list(DECISION_ROLES), range=["diamond", "circle", "circle"]),
                      legend=None)
    size = alt.Size("role:N", scale=alt.Scale(domain=list(DECISION_ROLES), range=[130, 70, 30]), legend=None)
    ci = alt.Chart(d).mark_rule(strokeWidth=2, opacity=0.6).encode(
        x=alt.X("rel_lo:Q", scale=alt.Scale(type="log", nice=False, padding=10), title=x_title), x2="rel_hi:Q",
        y=y, color=colour, tooltip=tooltip)
    dots = alt.Chart(d).mark_point(filled=True, opacity=0.95).encode(
        x=x, y=y, color=colour, shape=shape, size=size, tooltip=tooltip, order=alt.Order("layer:Q"))
    return alt.layer(ci, dots).properties(width="container", height=ROW_PX * max(1, len(order)) + 10)
