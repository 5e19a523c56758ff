"""A power or clock range never mixes a profiled call's window with CUDA-graph windows without saying so
(review 2, item 31): a kernel-sum time's conditions come from its profiled calls, and every place that shows
them with graph replays' says which window each comes from."""

from __future__ import annotations

import html

from gen.analysis import rules
from gen.analysis.values import missing
from gen.model.records import PowerReading
from gen.report.words import tables as table_words

SHORT = 0.05  # a window's length in s: under NVML's second, so its power reads ≈


def _row(variant, watts, method="cuda_graph", temp=50.0):
    return dict(variant=variant, status="ok", sm_clock_mhz=1980.0, power_w=watts, temp_c=temp,
                telemetry_window_s=SHORT, gpu_only_method=method, gpu_only_ms=1.0, figure="tflops")


def test_a_range_over_graph_and_kernel_sum_windows_gives_each_apart():
    rows = [_row("sdpa_flash", 545.0), _row("sdpa_cudnn", 654.0), _row("naive", 332.0, "kernel_sum", 47.0)]
    text = table_words.conditions_range(rows)
    graph, _, summed = text.partition(" over the CUDA-graph replays' windows; ")
    assert "≈545–654 W" in graph and "332" not in graph
    assert summed.startswith("SM clock 1980 MHz, ≈332 W") and "profiled calls' window of Naive's kernel sum" in summed
    assert text.count("≈:") == 1  # what ≈ means, said once


def test_a_range_of_one_window_kind_reads_as_before():
    text = table_words.conditions_range([_row("sdpa_flash", 545.0), _row("sdpa_cudnn", 654.0)])
    assert text.startswith("SM clock 1980 MHz, ≈545–654 W (≈: windows under")
    assert "replays' windows" not in text and "profiled calls" not in text


def test_a_kernel_sum_time_names_its_window_beside_its_power():
    cell = table_words.clock_cell(_row("naive", 332.0, "kernel_sum"), 1980.0)
    assert cell.startswith("1980 MHz, ≈332 W (profiled calls' window);")
    assert "window" not in table_words.clock_cell(_row("sdpa_flash", 545.0), 1980.0)


def test_the_h100_pages_give_the_naive_window_apart(gpu_docs):
    """The lead set's article runs: Naive ranks on its kernel sum (the graph runs other work), timed in the
    profiled calls' window; its power is given with that window named, never inside the replays' range."""
    from gen.analysis import tables, timings
    from tests.conftest import RESULTS

    ls = tables.load_set(RESULTS / "nvidia-h100-80gb-hbm3__torch-2.11.0")
    run = next(r for r in ls.rs.runs if r.variant == "naive" and r.mode == "inference" and r.scenario == "article")
    tm = timings.times(run)
    assert tm.gpu_only_method == "kernel_sum"
    tel = run.timing.telemetry["kernel_sum"]
    main = html.unescape((gpu_docs / "generated" / "sets" / "nvidia-h100-80gb-hbm3__torch-2.11.0.md").read_text())
    env = ls.rs.environment
    reading = env.power_reading
    # ≈ marks a reading that lags: an averaged one (or one that may be) read in a window under NVML's second
    instant = rules.reads_instant(tel.power_w, env.power_limit_w, reading)
    lag = "≈" if not instant and rules.power_lags(tel.duration_s, reading) else ""
    word = "instant" if instant else table_words.READING_WORD.get(reading)
    if missing(tel.power_avg_w):  # before schema 5: one reading, named where the set recorded it
        power = f"{lag}{tel.power_w:.0f} W" + (f" {word}" if word else "")
    else:  # schema 5: the instant mean, then the averaged one and the share of samples held down for power
        avg_lag = "≈" if rules.power_lags(tel.duration_s, PowerReading.AVERAGE) else ""
        power = (f"{lag}{tel.power_w:.0f} W {word}, {avg_lag}{tel.power_avg_w:.0f} W "
                 f"averaged, held for power {100 * tel.power_cap_share:.0f}% of samples")
    assert f"{power} (profiled calls' window)" in main

