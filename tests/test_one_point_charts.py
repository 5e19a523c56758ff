"""Issue 33: a chart with one point, or one point a series where it draws lines (every variant at one length),
is not drawn: the page's table holds its rows (charts.drawn, at every place a page emits a chart). Checked on
synthetic frames of each kind of chart, and on the pages built from the committed H100 and H200 sets."""

from __future__ import annotations

import html
import json
import re

import pandas as pd

from gen.report import charts

ANCHORS = pd.DataFrame(columns=["mode", "same_shape", "variant", "gpu", "kv_len", "head_dim", "published_ms",
                                "tflops"])
_SPEC = re.compile(r"data-spec='([^']*)'")


def _points(lengths: dict[str, list[int]]) -> pd.DataFrame:
    rows = [dict(status="ok", mode="inference", variant=v, kv_len=n, head_dim=64, gpu_only_ms=0.1 * (i + 1) * n / 1024,
                 gpu_only_q1_ms=0.09 * n / 1024, gpu_only_q3_ms=0.11 * n / 1024, tflops=100.0 + i, tbps=1.0,
                 intensity=50.0 * n / 1024, flops=1e9 * n, wrong=False)
            for i, (v, ns) in enumerate(lengths.items()) for n in ns]
    return pd.DataFrame(rows)


def test_scenario_charts_of_one_length_a_variant_are_rows():
    one = _points({"sdpa_flash": [4096], "sdpa_cudnn": [4096], "naive": [4096]})
    two = _points({"sdpa_flash": [2048, 4096], "sdpa_cudnn": [4096]})
    ceilings = [("measured matmul", 700.0)]
    assert charts.drawn(charts.scenario_time(one, ANCHORS, "length")) is None
    assert charts.drawn(charts.scenario_rate(one, ANCHORS, "tflops", "TFLOP/s", "length", ceilings)) is None
    # a variant at two lengths draws a line: the chart stays
    assert charts.drawn(charts.scenario_time(two, ANCHORS, "length")) is not None
    assert charts.drawn(charts.scenario_rate(two, ANCHORS, "tflops", "TFLOP/s", "length", ceilings)) is not None
    # the roofline's roof is a line of many points: a chart, however few the dots
    assert charts.drawn(charts.scenario_roofline(one, 700.0, 3.0, "intensity")) is not None


def test_one_variant_or_one_cell_is_a_row():
    summary = pd.DataFrame(dict(status=["ok"], label=["SDPA flash"], gpu_only_ms=[0.2], gpu_only_q1_ms=[0.19],
                                gpu_only_q3_ms=[0.21], gpu_only_n=[30], gpu_only_method=["graph"]))
    assert charts.one_point(charts.gpu_time(summary).to_dict())
    both = pd.concat([summary, summary.assign(label=["SDPA cuDNN"], gpu_only_ms=[0.3])], ignore_index=True)
    assert not charts.one_point(charts.gpu_time(both).to_dict())
    cell = pd.DataFrame(dict(set_title=["H100"], scenario=["decode"], scenario_title=["Decode"], point=["4k"],
                             fastest=["sdpa_flash"], fastest_label=["SDPA flash"], fastest_ms=[0.1], basis=["gpu"],
                             runner_up=["SDPA cuDNN"], ratio=[1.2], settled=[True]))
    assert charts.drawn(charts.fastest_map(cell)) is None
    assert charts.drawn(charts.fastest_map(pd.concat([cell, cell.assign(scenario=["article"])]))) is not None


def test_lines_of_one_length_a_series_are_rows():
    sweep = pd.DataFrame(dict(variant=["naive", "sdpa_flash", "naive"], seq_len=[1024, 1024, 1024],
                              head_dim=[64, 64, 128], gpu_only_ms=[1.0, 0.2, 2.0], gpu_only_q1_ms=[0.9, 0.19, 1.9],
                              gpu_only_q3_ms=[1.1, 0.21, 2.1], peak_mb=[10.0, 5.0, 20.0]))
    # one point a variant in each facet (head dim): nothing to draw a line through
    assert charts.one_point(charts.time_vs_seq(sweep).to_dict())
    assert charts.one_point(charts.memory_vs_seq(sweep).to_dict())
    longer = pd.concat([sweep, sweep.assign(seq_len=2048)], ignore_index=True)
    assert not charts.one_point(charts.time_vs_seq(longer).to_dict())
    rows = [dict(variant="sdpa_cudnn", kv_len=512, call=call, ms=ms) for call, ms in (("first call", 60.0),
                                                                                    ("steady call", 0.1))]
    assert charts.drawn(charts.dynamic_lengths(rows, "length")) is None
    more = rows + [dict(r, kv_len=1024) for r in rows]
    assert charts.drawn(charts.dynamic_lengths(more, "length")) is not None


def test_a_timeline_of_one_event_a_lane_is_a_row_and_bars_stay_charts():
    cpu = [dict(thread="main", depth=0, name="aten::sdpa", cat="cpu_op", start_us=0.0, end_us=5.0, dur_us=5.0)]
    gpu = [dict(index=0, name="k", short_name="k", kind="kernel", category="fused attention", start_us=1.0,
                end_us=4.0, dur_us=3.0, launched_by="aten::sdpa", launch_api="cudaLaunchKernel", occupancy_pct=50.0)]
    assert charts.one_point(charts.timeline_spec(cpu, gpu))
    assert not charts.one_point(charts.timeline_spec(cpu * 2, gpu))
    # a stacked bar of one variant's forward and backward: bars, no line: it stays
    split = [dict(label="SDPA flash", fwd_ms=1.0, bwd_ms=2.0, order=0)]
    assert charts.drawn(charts.fwd_bwd(split)) is not None


def test_no_chart_on_the_built_pages_draws_one_point(gpu_docs):
    specs = [(p, json.loads(html.unescape(s))) for p in gpu_docs.rglob("*.md") for s in _SPEC.findall(p.read_text())]
    assert len(specs) > 50
    single = [str(p.relative_to(gpu_docs)) for p, s in specs if charts.one_point(s)]
    assert not single, single
