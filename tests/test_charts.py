"""Charts are pure: DataFrame in, Vega-Lite spec out, with only the data they show."""

from __future__ import annotations

import json

import pandas as pd

from gen.analysis import tables
from gen.report import charts


def _spec(chart) -> dict:
    return chart.to_dict()  # validates against the Vega-Lite schema


def test_timeline_lanes_zoom_and_kinds(h200):
    cpu, gpu = tables.timeline_events(h200, "naive", "inference")
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
    cpu, gpu = tables.timeline_events(h200, "sdpa_math", "train")
    spec = _spec(charts.timeline(cpu, gpu))
    lanes = spec["layer"][0]["encoding"]["y"]["scale"]["domain"]
    assert any("autograd" in lane for lane in lanes), lanes


def test_hostile_names_stay_data_and_tooltips_show_no_null():
    cpu = [dict(name="aten::<x>|*_`", cat="cpu_op", start_us=0.0, end_us=1.0, dur_us=1.0, depth=0, thread="main")]
    gpu = [dict(index=0, short_name="k<T*>", name="void k<T*, a|b>(int&) __x__", kind="kernel",
                category="elementwise", start_us=0.5, end_us=2.0, dur_us=1.5, launched_by=None,
                launch_api="cudaLaunchKernel", occupancy_pct=float("nan"))]
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


def test_the_timeline_spec_is_altairs_for_the_same_rows(h200, h200_new):
    """timeline_spec (Altair's skeleton made once, each forward's rows put in) is the spec Altair makes of the
    same rows, but for the names Altair gives its datasets and views (hashes of the content), for every
    profiled run of two sets."""
    def named(spec: dict) -> dict:
        """The spec with its two datasets named "cpu" and "gpu", and its one view "view"."""
        spec = json.loads(json.dumps(spec))
        names = {layer["data"]["name"]: new for layer, new in zip(spec["layer"], ("cpu", "gpu"))}
        spec["datasets"] = {names[k]: v for k, v in spec["datasets"].items()}
        for layer in spec["layer"]:
            layer["data"]["name"] = names[layer["data"]["name"]]
            if "name" in layer:
                layer["name"] = "view"
        for param in spec["params"]:
            param["views"] = ["view"]
        return spec

    checked = 0
    for ls in (h200, h200_new):
        for run in ls.rs.runs:
            if run.status != "ok" or not run.trace:
                continue
            cpu, gpu = tables.timeline_events(ls, run.variant, run.mode)
            assert named(charts.timeline_spec(cpu, gpu)) == named(charts.timeline(cpu, gpu).to_dict()), run.variant
            checked += 1
    assert checked > 10


def _event(start: float, depth: int = 0, name: str = "op") -> dict:
    return dict(name=name, cat="cpu_op", start_us=start, end_us=start + 1, dur_us=1.0, depth=depth, thread="main")


def _kernel(start: float, name: str = "k", launched_by: str | None = "aten::mm") -> dict:
    return dict(index=0, short_name=name, name=name, kind="kernel", category="gemm", start_us=start,
                end_us=start + 1, dur_us=1.0, launched_by=launched_by, launch_api="cudaLaunchKernel",
                occupancy_pct=50.0)


def test_a_timeline_window_under_its_caps_keeps_every_event():
    cpu, gpu = [_event(0.0), _event(1.0, depth=2)], [_kernel(0.5)]
    assert charts.timeline_window(cpu, gpu, max_events=3, max_depth=2) == (cpu, gpu, 0, None)


def test_a_timeline_window_leaves_out_deep_ops_then_the_latest_events():
    """Ops deeper than max_depth go first; then, past max_events, the latest starts of both lanes (ties in
    the order given, a start that is not a number after every number); it counts what it left out and names
    the last start it kept."""
    cpu = [_event(5.0), _event(1.0, depth=3), _event(float("nan")), _event(2.0, name="tie-a")]
    gpu = [_kernel(2.0, name="tie-b"), _kernel(0.0), _kernel(9.0)]
    kept_cpu, kept_gpu, left, until = charts.timeline_window(cpu, gpu, max_events=3, max_depth=2)
    assert [r["name"] for r in kept_cpu] == ["tie-a"] and [r["name"] for r in kept_gpu] == ["tie-b", "k"]
    assert left == 4 and until == 2.0
    _, _, left, until = charts.timeline_window(cpu, gpu, max_events=99, max_depth=0)
    assert (left, until) == (1, None)


def test_a_timeline_window_cuts_long_names_only():
    """Names past max_name characters end in an ellipsis after max_name of them (the op's name; the kernel's
    names and its launcher); the events given are left as they were."""
    cpu, gpu = [_event(0.0, name="o" * 30), _event(1.0, name="short")], [_kernel(0.0, "k" * 30, "l" * 30)]
    kept_cpu, kept_gpu, _, _ = charts.timeline_window(cpu, gpu, max_events=9, max_depth=9, max_name=10)
    assert [r["name"] for r in kept_cpu] == ["o" * 10 + "…", "short"]
    assert {kept_gpu[0][c] for c in ("name", "short_name")} == {"k" * 10 + "…"}
    assert kept_gpu[0]["launched_by"] == "l" * 10 + "…" and kept_gpu[0]["launch_api"] == "cudaLaunchKernel"
    assert cpu[0]["name"] == "o" * 30 and gpu[0]["name"] == "k" * 30


def _rate_layers(ceilings):
    pts = pd.DataFrame(dict(status="ok", mode="inference", variant="sdpa_flash", kv_len=[1024, 2048], head_dim=64,
                            tflops=[100.0, 200.0]))
    anchors = pd.DataFrame(columns=["mode", "same_shape", "variant", "gpu", "kv_len", "head_dim", "tflops"])
    spec = charts.scenario_rate(pts, anchors, "tflops", "TFLOP/s", "length", ceilings).to_dict()
    layers = spec["layer"]
    rules = [v for layer in layers if layer.get("mark", {}).get("type") == "rule"
             for v in spec["datasets"][layer["data"]["name"]]]
    labels = [(layer["mark"], spec["datasets"][layer["data"]["name"]]) for layer in layers
              if layer.get("mark", {}).get("type") == "text"]
    return rules, labels


def test_a_rate_charts_ceilings_are_rules_labelled_highest_first_side_by_side():
    """Each ceiling with a value is a dashed rule; its label stands in its own place: the highest above its
    rule, the others below theirs, each right of the one before by its length (two close ceilings stay
    legible); a ceiling without a value (missing, zero) draws nothing."""
    rules, labels = _rate_layers([("copy", 3.9), ("datasheet", 4.8), ("none", float("nan")), ("zero", 0)])
    assert sorted(r["ceiling"] for r in rules) == ["copy", "datasheet"]
    assert [rows[0]["ceiling"] for _, rows in labels] == ["datasheet", "copy"]
    (first, _), (second, _) = labels
    assert first["dy"] < 0 < second["dy"]
    assert second["dx"] - first["dx"] >= len("datasheet") * charts.scenario.LABEL_CHAR_PX
    assert _rate_layers([]) == ([], [])


def test_the_gpu_time_chart_marks_a_kernel_sum_row():
    import pandas as pd

    from gen.report import charts

    df = pd.DataFrame({"status": ["ok", "ok"], "label": ["Naive", "SDPA flash"], "gpu_only_ms": [1.06, 0.09],
                       "gpu_only_q1_ms": [1.05, 0.09], "gpu_only_q3_ms": [1.07, 0.09], "gpu_only_n": [3, 24],
                       "gpu_only_method": ["kernel_sum", "cuda_graph"]})
    d = charts.times._summary_points(df)
    assert set(d["label"]) == {"Naive (kernel sum)", "SDPA flash"}
