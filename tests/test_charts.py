"""Charts are pure: DataFrame in, Vega-Lite spec out, with only the data they show."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from gen.analysis import tables
from gen.report import charts


def _spec(chart) -> dict:
    return chart.to_dict()  # validates against the Vega-Lite schema


def test_timeline_lanes_zoom_and_kinds(h200):
    cpu, gpu = tables.timeline_frames(h200, "naive", "inference")
    spec = _spec(charts.timeline(cpu, gpu))
    layers = spec["layer"]
    assert len(layers) == 2
    # Zoom and pan on the time axis only.
    params = spec.get("params", []) + [p for layer in layers for p in layer.get("params", [])]
    assert len(params) == 1
    assert params[0]["select"] == {"type": "interval", "encodings": ["x"]}
    assert params[0]["bind"] == "scales"
    # One time axis for both lanes; memcpy and memset have their own colours in the legend.
    enc = layers[1]["encoding"]
    assert enc["x"]["field"] == "start_us" and enc["x2"]["field"] == "end_us"
    scale = enc["color"]["scale"]
    colours = dict(zip(scale["domain"], scale["range"]))
    assert len({colours["kernel"], colours["memcpy"], colours["memset"]}) == 3
    lanes = enc["y"]["scale"]["domain"]
    assert lanes[-1] == "GPU" and lanes[0] == "host · depth 0"  # a nesting depth, not a CPU core
    # The data is only what the chart shows: one forward's events.
    data = spec["datasets"]
    rows = sum(len(v) for v in data.values())
    assert rows == len(cpu) + len(gpu)
    gpu_rows = next(v for v in data.values() if v and "short_name" in v[0])
    assert {r["kind"] for r in gpu_rows} == {"kernel", "memcpy", "memset"}
    assert set(gpu_rows[0]) <= {"lane", "index", "name", "short_name", "kind", "category", "start_us",
                                "end_us", "dur_us", "launched_by", "launch_api", "occupancy"}


def test_timeline_threads_get_their_own_lanes(h200):
    cpu, gpu = tables.timeline_frames(h200, "sdpa_math", "train")
    spec = _spec(charts.timeline(cpu, gpu))
    lanes = spec["layer"][0]["encoding"]["y"]["scale"]["domain"]
    assert any("autograd" in lane for lane in lanes), lanes


def test_hostile_names_stay_data_and_tooltips_show_no_null():
    cpu = pd.DataFrame([dict(name="aten::<x>|*_`", cat="cpu_op", start_us=0.0, end_us=1.0, dur_us=1.0,
                             depth=0, thread="main")])
    gpu = pd.DataFrame([dict(index=0, short_name="k<T*>", name="void k<T*, a|b>(int&) __x__", kind="kernel",
                             category="elementwise", start_us=0.5, end_us=2.0, dur_us=1.5, launched_by=None,
                             launch_api="cudaLaunchKernel", occupancy_pct=float("nan"))])
    spec = json.loads(json.dumps(_spec(charts.timeline(cpu, gpu))))
    (cpu_rows, gpu_rows) = sorted(spec["datasets"].values(), key=lambda rows: "short_name" in rows[0])
    assert cpu_rows[0]["name"] == "aten::<x>|*_`" and gpu_rows[0]["name"] == "void k<T*, a|b>(int&) __x__"
    # A missing occupancy or launching op reads as words in the tooltip, never "null".
    assert gpu_rows[0]["occupancy"] == "not reported" and gpu_rows[0]["launched_by"] == ""
    fields = {t["field"] for layer in spec["layer"] for t in layer["encoding"]["tooltip"]}
    assert all(row.get(f) is not None for rows in (cpu_rows, gpu_rows) for row in rows for f in fields
               if f in row)


def test_gpu_time_chart(h200):
    df = tables.summary_table(h200, "inference")
    spec = _spec(charts.gpu_time(df))
    points = next(v for v in spec["datasets"].values())
    assert len(points) == int((df["status"] == "ok").sum())
    medians = [p["median"] for p in points]
    assert medians == sorted(medians)


def test_fast_timeline_spec_matches_altair(h200):
    """The spec made from the cached skeleton is what Altair would make."""
    cpu, gpu = tables.timeline_frames(h200, "sdpa_math", "train")
    slow = charts.timeline(cpu, gpu).to_dict()
    fast = charts.timeline_spec(*tables.timeline_events(h200, "sdpa_math", "train"))
    rows = lambda spec: sorted(json.dumps(r, sort_keys=True) for v in spec["datasets"].values() for r in v)  # noqa: E731
    assert rows(slow) == rows(fast)
    strip = lambda layer: {k: v for k, v in layer.items() if k not in ("data", "name")}  # noqa: E731
    assert [strip(layer) for layer in slow["layer"]] == [strip(layer) for layer in fast["layer"]]
    assert slow["height"] == fast["height"]
    assert [p["select"] for p in slow["params"]] == [p["select"] for p in fast["params"]]


def test_fast_specs_are_altairs(h200):
    """Each chart's `*_spec` (Altair makes the shape once, the rows go in after) is the spec Altair
    itself makes, for every scenario and the sweep of the committed set, twice (the second from
    the shape kept), with published figures and ceilings beside."""
    from gen.analysis import scaling
    from gen.analysis import scenarios as sa
    from gen.model import anchors
    from gen.report import charts
    from tests.conftest import RESULTS

    refs = [tables.load_set(RESULTS / n) for n in (anchors.FA3_NAME, anchors.CUDNN_NAME)]
    ceil = scaling.ceilings(h200)
    for _ in range(2):
        for name in ("article", "gqa-prefill", "decode", "sliding-window"):
            pts, anc = sa.point_frame(h200, name), sa.anchor_frame([h200, *refs], name, h200)
            assert charts.scenario_time_spec(pts, anc, "length") == \
                charts.scenario_time(pts, anc, "length").to_dict(validate=False), name
            for ceilings in ([("matmul", 683.0)], [("copy", 4.1), ("datasheet", 4.8)], []):
                assert charts.scenario_rate_spec(pts, anc, "tflops", "rate", "length", ceilings) == \
                    charts.scenario_rate(pts, anc, "tflops", "rate", "length", ceilings).to_dict(validate=False)
            args = (pts, ceil["matmul_tflops"], ceil["copy_gbps"] / 1e3, "intensity")
            assert charts.scenario_roofline_spec(*args) == charts.scenario_roofline(*args).to_dict(validate=False)
        sweep = scaling.sweep_frame(h200)
        for fast, slow, args in ((charts.time_vs_seq_spec, charts.time_vs_seq, (sweep,)),
                                 (charts.memory_vs_seq_spec, charts.memory_vs_seq, (sweep,)),
                                 (charts.roofline_spec, charts.roofline, (sweep, ceil)),
                                 (charts.category_bars_spec, charts.category_bars, (scaling.category_frame(h200),)),
                                 (charts.busy_vs_seq_spec, charts.busy_vs_seq, (scaling.busy_frame(h200),)),
                                 (charts.gpu_time_spec, charts.gpu_time,
                                  (tables.summary_table(h200, "train"), "step"))):
            assert fast(*args) == slow(*args).to_dict(validate=False), fast.__name__


def test_the_gpu_time_chart_marks_a_kernel_sum_row():
    import pandas as pd

    from gen.report import charts

    df = pd.DataFrame({"status": ["ok", "ok"], "label": ["Naive", "SDPA flash"], "gpu_only_ms": [1.06, 0.09],
                       "gpu_only_q1_ms": [1.05, 0.09], "gpu_only_q3_ms": [1.07, 0.09], "gpu_only_n": [3, 24],
                       "gpu_only_method": ["kernel_sum", "cuda_graph"]})
    d = charts.times._summary_points(df)
    assert set(d["label"]) == {"Naive (kernel sum)", "SDPA flash"}



def test_a_frames_rows_are_those_altair_gives():
    """charts.fill.values_of (a chart's rows, column by column) gives Altair's data transformer's rows to
    the type (json text compared: 1 and 1.0 differ there), for each kind of column; kinds it does
    not read itself (categories, nullable integers, dates) go to Altair."""
    import altair as alt
    import numpy as np

    def altair(df):
        return json.dumps(alt.data_transformers.get()(df)["values"])

    frame = pd.DataFrame({
        "i": [1, -2, 3], "u": np.array([1, 2, 3], dtype=np.uint8), "b": [True, False, True],
        "f": [1.5, float("nan"), float("inf")], "f32": np.array([0.1, -np.inf, 2], dtype=np.float32),
        "o": ["a<b>", None, float("nan")], "text": pd.Series(["a", "b|*", "c"], dtype=object), "mixed": [1, "x", 2.5],
        "s": pd.array(["x", None, "z"], dtype="str"),
        "neg0": [-0.0, 0.0, 1e300],
    })
    odd = [pd.Series(["a", "b", None], dtype="category"), pd.array([1, None, 3], dtype="Int64"),
           pd.to_datetime(["2026-01-01", None, "2026-01-03"]), [np.int64(1), np.float64(2.0), None],
           pd.array(["x", None, "z"], dtype="string")]
    for df in [frame, frame.iloc[:0], frame.iloc[[2, 0]]] + [frame.assign(odd=o) for o in odd]:
        assert json.dumps(charts.fill.values_of(df)) == altair(df)


def test_every_chart_frame_of_the_committed_set_gives_altairs_rows(h200, monkeypatch):
    """The frames the scenario pages' charts are filled with (every chart of the committed set's
    scenario pages): charts.fill.values_of is Altair's data transformer, to the type; and the ceiling rules
    made with no frame (charts.scenario._rule_rows) are its rows of the frames they stand for."""
    import altair as alt

    from gen.report import site
    from gen.report.pages import scenarios

    seen = []
    real, real_rules = charts.fill.values_of, charts.scenario._rule_rows

    def altair(df):
        return alt.data_transformers.get()(df)["values"]

    def values(df):
        got = real(df)
        seen.append(df)
        assert json.dumps(got) == json.dumps(altair(df))
        return got

    def rule_rows(ceilings):
        got, frames = real_rules(ceilings), charts.scenario._rule_frames(ceilings)
        seen.extend(frames.values())  # (the frames the rules stand for, each counted as before)
        assert json.dumps(got) == json.dumps({n: altair(f) for n, f in frames.items()})
        return got

    monkeypatch.setattr(charts.fill, "values_of", values)
    monkeypatch.setattr(charts.scenario, "_rule_rows", rule_rows)
    monkeypatch.setattr(charts.fill, "_SHAPES", {})  # (the charts whose shape is made here fill it from frames)
    list(scenarios.set_pages(site.Context([h200]), h200))
    assert len(seen) > 10


def test_scenario_charts_rows_read_off_the_frames_are_altairs_to_the_type(h200_new):
    """The scenario time and rate charts of every scenario of the committed set, with published figures and
    ceilings beside, once their shape is known (their rows then come off the point frames, no chart frame
    made): Altair's own spec, compared as JSON text (an int and a float differ there, not in ==)."""
    from gen.analysis import scaling
    from gen.analysis import scenarios as sa
    from gen.model import anchors
    from tests.conftest import RESULTS

    def text(spec):
        return json.dumps(spec, sort_keys=True)

    refs = [tables.load_set(RESULTS / n) for n in (anchors.FA3_NAME, anchors.CUDNN_NAME)]
    ceil = scaling.ceilings(h200_new)
    filled = 0
    for name in sa.scenario_names([h200_new]):
        pts, anc = sa.point_frame(h200_new, name), sa.anchor_frame([h200_new, *refs], name, h200_new)
        figure = "tbps" if (pts["tbps"].notna().any()) else "tflops"
        all_ceilings = ([("measured matmul", ceil["matmul_tflops"])], [("copy", 4.1), ("datasheet", 4.8)], [])
        charts.scenario_time_spec(pts, anc, "length")  # the shapes made (the frames' path) ...
        for ceilings in all_ceilings:
            charts.scenario_rate_spec(pts, anc, figure, "rate", "length", ceilings)
        # ... then filled with the rows read off the frames
        assert text(charts.scenario_time_spec(pts, anc, "length")) == \
            text(charts.scenario_time(pts, anc, "length").to_dict(validate=False)), name
        for ceilings in all_ceilings:
            assert text(charts.scenario_rate_spec(pts, anc, figure, "rate", "length", ceilings)) == text(
                charts.scenario_rate(pts, anc, figure, "rate", "length", ceilings).to_dict(validate=False)), name
        filled += len(charts.scenario._measured_rows(pts, "gpu_only_ms")) > 0
        for top in ((ceil["matmul_tflops"], ceil["copy_gbps"] / 1e3), (1e9, 1e-6)):  # the roofline, its roof too
            args = (pts, *top, "intensity")
            charts.scenario_roofline_spec(*args)
            assert text(charts.scenario_roofline_spec(*args)) == text(charts.scenario_roofline(*args).to_dict(
                validate=False)), name
    assert filled > 5


def test_timeline_rows_are_the_frames_records(h200_new):
    """timeline_spec's rows, read off the event frames: the records of timeline_data's frames (JSON text,
    types included) for every profiled run of the committed set, windowed as the pages window them, and
    for frames with missing names, launchers and occupancies."""
    from gen.report import site

    checked = 0
    for run in h200_new.rs.runs:
        if run.status != "ok" or not run.trace or run.scenario != "article":
            continue
        cpu, gpu = tables.timeline_frames(h200_new, run.variant, run.mode)
        cpu, gpu, _, _ = _window_frames(cpu, gpu, site.MAX_TIMELINE_EVENTS, site.MAX_TIMELINE_DEPTH)
        frames = [(cpu, gpu)]
        if len(gpu):
            frames.append((cpu, gpu.assign(launched_by=None, occupancy_pct=float("nan"), launch_api=None)))
        for c_in, g_in in frames:
            c, g, lanes = charts.timeline_data(c_in, g_in)
            rc, rg, rlanes = charts.timelines._timeline_rows(c_in.to_dict("records"), g_in.to_dict("records"))
            assert json.dumps([charts.fill._records(c), charts.fill._records(g), lanes]) == json.dumps([rc, rg, rlanes])
            checked += 1
    assert checked > 10


def _window_mapping_every_column(cpu, gpu, max_events, max_depth, max_name=2_000):
    """charts.timeline_window as it was: every name column mapped, long names or not."""
    return _window_frames(cpu, gpu, max_events, max_depth, max_name, every=True)


def test_timeline_window_maps_only_columns_with_long_names(h200_new):
    """timeline_window leaves a column whose names all fit as it is; the spec drawn from its frames is the
    one the window that mapped every column gave (JSON text), for every profiled run of the committed set,
    with the pages' caps, tighter caps, and names cut at 20 characters."""
    from gen.report import site

    checked = 0
    for run in h200_new.rs.runs:
        if run.status != "ok" or not run.trace:
            continue
        cpu, gpu = tables.timeline_frames(h200_new, run.variant, run.mode)
        for caps in ((site.MAX_TIMELINE_EVENTS, site.MAX_TIMELINE_DEPTH), (20, 2), (20, 2, 20)):
            *new, nl, nu = _window_frames(cpu, gpu, *caps)
            *old, ol, ou = _window_mapping_every_column(cpu, gpu, *caps)
            assert (nl, nu) == (ol, ou)
            assert json.dumps(_spec_frames(*new)) == json.dumps(_spec_frames(*old))
            checked += 1
    assert checked > 30


def _window_frames(cpu, gpu, max_events, max_depth, max_name=2_000, every=False):
    """charts.timeline_window as it read frames (tables.timeline_frames'), before it read rows; `every`:
    as it was before that, every name column mapped, long names or not."""
    import numpy as np
    import pandas as pd

    def cut(df, cols):
        df = df.copy()
        for c in cols:
            if every or any(isinstance(x, str) and len(x) > max_name for x in df[c].tolist()):
                df[c] = df[c].map(lambda x: x[:max_name] + "…" if isinstance(x, str) and len(x) > max_name else x)
        return df

    deep = cpu["depth"] > max_depth if len(cpu) else pd.Series([], dtype=bool)
    left = int(deep.sum())
    cpu = cpu[~deep] if left else cpu
    starts = np.concatenate([cpu["start_us"].to_numpy(float), gpu["start_us"].to_numpy(float)])
    until = None
    if len(starts) > max_events:
        first = np.argsort(starts, kind="stable")[:max_events]
        keep = np.zeros(len(starts), dtype=bool)
        keep[first] = True
        n = len(cpu)
        cpu, gpu = cpu[keep[:n]], gpu[keep[n:]]
        left, until = left + len(starts) - max_events, float(starts[first[-1]])
    return cut(cpu, ["name"]), cut(gpu, ["name", "short_name", "launched_by"]), left, until


def _rows_frames(cpu, gpu):
    """charts.timelines._timeline_rows as it read the frames' columns, before it read rows."""
    from gen.analysis.values import missing, number

    threads = [str(t) for t in cpu["thread"].tolist()] if "thread" in cpu else ["main"] * len(cpu)
    depth = [int(d) for d in cpu["depth"].tolist()]
    tl = charts.timelines
    lanes = [tl._lane(d, t) for _, t, d in sorted({(t != "main", t, d) for t, d in zip(threads, depth)})]
    c = [dict(lane=tl._lane(d, t), name=tl._as_text(n), kind=charts.CPU_KIND.get(str(k), "aten op"),
              start_us=number(s, 3), end_us=number(e, 3), dur_us=number(u, 3))
         for t, d, n, k, s, e, u in zip(threads, depth, *(cpu[x].tolist() for x in ("name", "cat", "start_us",
                                                                                    "end_us", "dur_us")))]
    text = charts.timelines._as_text
    g = [dict(lane="GPU", index=int(i), name=text(n), short_name=text(sn), kind=text(k), category=text(cat),
              start_us=number(s, 3), end_us=number(e, 3), dur_us=number(u, 3),
              launched_by="" if missing(lb) else text(lb), launch_api="" if missing(la) else text(la),
              occupancy=charts.timelines._occupancy(o))
         for i, n, sn, k, cat, s, e, u, lb, la, o in zip(*(gpu[x].tolist() for x in (
             "index", "name", "short_name", "kind", "category", "start_us", "end_us", "dur_us", "launched_by",
             "launch_api", "occupancy_pct")))]
    return c, g, lanes + ["GPU"]


def _spec_frames(cpu, gpu):
    """charts.timeline_spec as it read the frames: the skeleton parsed on every call, rows off the columns."""
    c, g, lanes = _rows_frames(cpu, gpu)
    spec = json.loads(charts.timelines._timeline_skeleton())
    spec["datasets"] = {"cpu": c, "gpu": g}
    for layer, name in zip(spec["layer"], ("cpu", "gpu")):
        layer["data"] = {"name": name}
        layer["encoding"]["y"]["scale"]["domain"] = lanes
        layer["encoding"]["y"]["sort"] = lanes
    spec["height"] = charts.ROW_PX * len(lanes)
    return spec


def _odd(cpu, gpu, i):
    """The frames made odd, differently for each case: long names, missing launchers and occupancies,
    integer times, start times tied, an autograd thread first."""
    import math

    if i == 0:
        return (cpu.assign(name=[n * 300 for n in cpu["name"]]),
                gpu.assign(name=["k" * 2_500] * len(gpu), short_name=["s" * 2_001] * len(gpu),
                           launched_by=[[None, "x" * 3_000, math.nan][j % 3] for j in range(len(gpu))]))
    if i == 1:
        return cpu, gpu.assign(launched_by=None, launch_api=None, occupancy_pct=math.nan)
    if i == 2:
        return (cpu.assign(start_us=[int(x) for x in cpu["start_us"]], end_us=[int(x) for x in cpu["end_us"]]),
                gpu.assign(start_us=0.0))
    return cpu.assign(thread=["autograd" if t == "main" else "main" for t in cpu["thread"]]), gpu


def test_timeline_from_rows_gives_the_frames_spec(h200, h200_new, h200_v1):
    """The pages' timeline made from tables.timeline_events' rows (window and spec on lists): the same
    spec (JSON text) and the same events left out as the frames, windowed and read as they were, for
    every profiled run of the committed sets, with the pages' caps and tighter ones, and odd frames."""
    from gen.report import site
    from tests.conftest import RESULTS

    checked = cut = 0
    sets = [h200, h200_new, h200_v1] + [tables.load_set(p) for p in sorted(RESULTS.iterdir()) if p.is_dir()]
    for ls in sets:
        for run in ls.rs.runs:
            if run.status != "ok":
                continue
            cpu, gpu = tables.timeline_frames(ls, run.variant, run.mode)
            rc, rg = tables.timeline_events(ls, run.variant, run.mode)
            assert (len(rc), len(rg)) == (len(cpu), len(gpu))
            cases = [(cpu, gpu, rc, rg)]
            if len(gpu) and len(cpu):
                for i in range(4):
                    c, g = _odd(cpu, gpu, i)
                    cases.append((c, g, c.to_dict("records"), g.to_dict("records")))
            for c, g, rows_c, rows_g in cases:
                for caps in ((site.MAX_TIMELINE_EVENTS, site.MAX_TIMELINE_DEPTH), (20, 2), (7, 0, 20)):
                    *old, ol, ou = _window_frames(c, g, *caps)
                    *new, nl, nu = charts.timeline_window(rows_c, rows_g, *caps)
                    assert (nl, nu) == (ol, ou)
                    assert json.dumps(charts.timeline_spec(*new)) == json.dumps(_spec_frames(*old))
                    checked += 1
                    cut += any(str(r.get("name", "")).endswith("…") for r in new[1])
    assert checked > 100 and cut
    # the skeleton is left as it was parsed
    assert json.dumps(charts.timelines._timeline_base(), sort_keys=True) == charts.timelines._timeline_skeleton()


@pytest.mark.parametrize("ceilings", [[], [("measured matmul", 683.2)], [("copy", 4.1), ("datasheet", 4.8)],
                                      [("a", 3), ("b", 7), ("c", 3)], [("a", 2.0), ("b", 2.0), ("c", 5.5)],
                                      [("a", 1), ("b", 2.5)], [("a", float("nan")), ("b", 0), ("c", None), ("d", 9.0)],
                                      [("a", float("inf")), ("b", 1.0)], [("x", 5.0), ("y", 5.0), ("z", 5.0)]])
def test_ceiling_rules_made_without_frames_are_the_frames_values(ceilings):
    """The rate chart's ceiling rules and labels, made with no frame: _values of _rule_frames' frames, as JSON
    text (ints, floats, ties, missing, zero and infinite ceilings)."""
    from gen.report import charts

    want = {n: charts.fill.values_of(f) for n, f in charts.scenario._rule_frames(ceilings).items()}
    assert json.dumps(charts.scenario._rule_rows(ceilings)) == json.dumps(want)
    assert list(charts.scenario._rule_rows(ceilings)) == list(want)


def test_scenario_charts_from_the_pages_rows_are_the_frames_charts(h200, h200_new, monkeypatch):
    """Every scenario's charts of the committed sets (each head dim, and all), their rows given as the page
    reads them (values.rows of the point frame) and read off the frame: the same JSON text; also with the
    frame given as a function that makes it (as the page gives it), the shapes new to the process."""
    from gen.analysis import scaling
    from gen.analysis import scenarios as sa
    from gen.analysis.values import rows as rows_of
    from gen.model import anchors
    from tests.conftest import RESULTS

    refs = [tables.load_set(RESULTS / n) for n in (anchors.FA3_NAME, anchors.CUDNN_NAME)]
    monkeypatch.setattr(charts.fill, "_SHAPES", {})  # (the shapes made here: the frames made from the function)
    drawn = 0
    for ls in (h200, h200_new):
        ceil = scaling.ceilings(ls)
        for name in sa.scenario_names([ls]):
            pts, anc = sa.point_frame(ls, name), sa.anchor_frame([ls, *refs], name, ls)
            for p in [pts] + [pts[pts["head_dim"] == d] for d in sorted(set(pts["head_dim"]))]:
                rows = rows_of(p)
                rates = {f: (anc, f, "rate", "len", [("copy", 4.1), ("m", 683)]) for f in ("tflops", "tbps")}
                roof = (ceil["matmul_tflops"], ceil["copy_gbps"] / 1e3, "I")
                want = None  # the frames' charts, made once a frame (on the first pass, while shapes are new)
                for _ in range(2):  # (the shapes made, then filled)
                    for q in (lambda p=p: p, p):  # (the frame as a function: the page's; then the frame)
                        got = [json.dumps(charts.scenario_time_spec(q, anc, "len", rows)),
                               *(json.dumps(charts.scenario_rate_spec(q, *rates[f], rows)) for f in rates),
                               json.dumps(charts.scenario_roofline_spec(q, *roof, rows))]
                        want = want or [json.dumps(charts.scenario_time_spec(p, anc, "len")),
                                        *(json.dumps(charts.scenario_rate_spec(p, *rates[f])) for f in rates),
                                        json.dumps(charts.scenario_roofline_spec(p, *roof))]
                        assert got == want, name
                drawn += len(rows)
    assert drawn > 100


def test_dataset_names_are_altairs():
    """charts.fill._dataset_name (no altair import) names a dataset as altair does, for rows of every kind a
    chart holds (numbers, NaN-free floats, text, None, nested lists, unicode) and the empty ones."""
    import random

    from altair.vegalite.v6.api import _dataset_name

    rng = random.Random(21)
    values = [[{}], [], [{"a": 1}], [{"b": "é<>&", "a": None, "c": [1, 2.5]}]]
    for _ in range(200):
        values.append([{k: rng.choice([rng.random(), rng.randint(-9, 9), "x" * rng.randint(0, 3), None, True])
                        for k in rng.sample("abcdef", rng.randint(0, 4))} for _ in range(rng.randint(1, 4))])
    for v in values:
        assert charts.fill._dataset_name(v) == _dataset_name(v), v
