"""Nsight Compute counters against the trace's kernels (gen.analysis.counters)."""

from __future__ import annotations

import dataclasses
import math

import pandas as pd
import pytest

from gen.analysis import counters, tables, values
from gen.analysis.values import missing
from gen.model import schema, trace
from tests.conftest import RESULTS
from tests.test_analysis_timings import gpu_event

FLASH = ("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
         "cutlass::bfloat16_t>, false, true, false>(Flash_fwd_params)")
# ncu's demangler prints some template arguments differently from the trace's.
FLASH_NCU = ("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<(int)64, (int)128, (int)128, (int)4, "
             "(bool)0, (bool)0, cutlass::bfloat16_t>, (bool)0, (bool)1, (bool)0>(T1)")


def kc(index: int, name: str, **kw) -> schema.KernelCounters:
    return schema.KernelCounters(index=index, name=name, **kw)


def a_trace(*events: trace.GpuEvent) -> trace.Trace:
    return trace.Trace("t", [trace.Forward(0, 0.0, 500.0, gpu=list(events))], 0, [])


def a_run(kernels=None, status="ok", counters_status="ok", reason=None, device="cuda", published=None):
    c = None if kernels is None else schema.Counters(status=counters_status, reason=reason, kernels=kernels)
    return schema.VariantRun(variant="v", mode="inference", status=status, device=device, counters=c,
                             published=published)


@pytest.mark.parametrize("sm, dram, want", [
    (90.0, 20.0, counters.Bound.COMPUTE),
    (20.0, 85.0, counters.Bound.MEMORY),
    (70.0, 70.0, counters.Bound.BOTH),  # both past the line's band and within the band of each other
    (73.0, 69.0, counters.Bound.BOTH),
    (70.0, 80.0, counters.Bound.MEMORY),  # both past the band, DRAM higher by more than the band
    (54.9, 54.9, counters.Bound.LATENCY),  # below the line by more than its band
    (59.9, 59.9, counters.Bound.LINE),  # within the band either side of 60%: too close to call
    (60.0, 10.0, counters.Bound.LINE),
    (65.0, 10.0, counters.Bound.COMPUTE),  # at the band's top
    (None, 50.0, None),
    (float("nan"), 50.0, None),
])
def test_bound(sm, dram, want):
    assert counters.bound(sm, dram) == want


@pytest.mark.parametrize("trace_names, ncu_names, pairings, where", [
    (["a", "b", "c"], ["a", "b", "c"], ["ok", "ok", "ok"], []),
    # a name printed differently at the same place: paired, recorded
    (["a", "b", "c"], ["a", "x", "c"], ["ok", "name_differs", "ok"], ["both"]),
    # ncu missed a kernel: the rest still pair by name
    (["a", "b", "c"], ["a", "c"], ["ok", "no_counters", "ok"], ["trace"]),
    # ncu saw one the trace did not attribute to the call
    (["a", "c"], ["a", "b", "c"], ["ok", "ok"], ["ncu"]),
    ([], ["a"], [], ["ncu"]),
])
def test_pair(trace_names, ncu_names, pairings, where):
    pairs, mism = counters.pair(trace_names, ncu_names)
    assert [p[0] for p in pairs] == list(range(len(trace_names)))
    assert [p[2].value for p in pairs] == pairings
    assert [m["where"] for m in mism] == where


def test_match_skips_memcpy_and_keeps_the_trace_index():
    tr = a_trace(gpu_event(0, 3.0, "memset", "Memset (Device)"),
                 dataclasses.replace(gpu_event(1, 96.0, name=FLASH), occupancy_pct=13.0, op_path=("aten::sdpa", "f")),
                 gpu_event(2, 4.0, name="void at::native::vectorized_elementwise_kernel<8, F>(int, F)"))
    run = a_run([kc(0, FLASH_NCU, duration_ns=95_000.0, registers_per_thread=255, shared_memory_bytes=49152,
                    achieved_occupancy_pct=12.4, theoretical_occupancy_pct=12.5, occupancy_limiter="registers",
                    sm_throughput_pct=71.0, dram_throughput_pct=18.0, tensor_pipe_pct=64.0, l2_hit_rate_pct=80.0,
                    rules=[schema.NcuRule("IssueSlotUtilization", 12.0), schema.NcuRule("Occupancy", None)]),
                 kc(1, "void at::native::vectorized_elementwise_kernel<(int)8, F>(int, T2)")])
    m = counters.match(run, tr)
    assert m.absent is None and m.measured and m.mismatches == []
    assert list(m.frame.columns) == counters.COLUMNS
    assert list(m.frame["index"]) == [1, 2] and list(m.frame["pairing"]) == ["ok", "ok"]
    f = m.frame.iloc[0]
    assert f["op_path"] == ["aten::sdpa", "f"] and f["ncu_duration_us"] == pytest.approx(95.0)
    assert f["registers_per_thread"] == 255 and f["occupancy_limiter"] == "registers"
    assert f["bound"] == counters.Bound.COMPUTE
    second = m.frame.iloc[1]
    assert math.isnan(second["achieved_occupancy_pct"]) and missing(second["occupancy_limiter"])
    assert missing(second["bound"])


def test_mismatches_name_the_trace_index_and_the_counter_index():
    tr = a_trace(gpu_event(0, 1.0, "memcpy", "Memcpy DtoD"), gpu_event(1, 5.0, name="alpha"),
                 gpu_event(2, 5.0, name="beta"))
    m = counters.match(a_run([kc(0, "alpha"), kc(1, "gamma")]), tr)
    assert list(m.frame["pairing"]) == ["ok", "name_differs"]
    (mm,) = m.mismatches
    assert (mm["index"], mm["counter_index"], mm["trace_name"], mm["ncu_name"]) == (2, 1, "beta", "gamma")


@pytest.mark.parametrize("run, device, tr, absent, reason", [
    (a_run(None), "cuda", a_trace(), counters.Absent.NOT_CAPTURED, None),
    (a_run([], counters_status="unavailable", reason="ERR_NVGPUCTRPERM"), "cuda", a_trace(),
     counters.Absent.UNAVAILABLE, "ERR_NVGPUCTRPERM"),
    (a_run(None, device="cpu"), "cpu", None, counters.Absent.NO_GPU, None),
    (a_run([kc(0, "a")], status="oom"), "cuda", None, counters.Absent.NOT_RUN, None),
    (a_run(None, published=schema.Published(gpu_time_ms=1.0)), "cuda", None, counters.Absent.PUBLISHED, None),
    (a_run([kc(0, "a")]), "cuda", None, counters.Absent.NO_TRACE, None),
])
def test_absent(run, device, tr, absent, reason):
    m = counters.match(run, tr, device)
    assert m.absent == absent and m.reason == reason and m.frame.empty and not m.measured


@pytest.mark.parametrize("row, facts", [
    # cuLaunchKernelEx: the profiler gives 0%, ncu measured 40%
    (dict(estimate_pct=0.0, achieved_occupancy_pct=40.0, theoretical_occupancy_pct=100.0,
          launch_api="cuLaunchKernelEx"), ["estimate_vs_measured"]),
    # estimate close to measured: nothing to say
    (dict(estimate_pct=45.0, achieved_occupancy_pct=40.0, theoretical_occupancy_pct=100.0), []),
    (dict(estimate_pct=90.0, achieved_occupancy_pct=40.0, theoretical_occupancy_pct=100.0), ["estimate_vs_measured"]),
    # flash: register-limited theoretical occupancy, compute-bound, one rule with a speed-up
    (dict(estimate_pct=13.0, achieved_occupancy_pct=12.4, theoretical_occupancy_pct=12.5,
          occupancy_limiter="registers", registers_per_thread=255, shared_memory_bytes=49152,
          sm_throughput_pct=71.0, dram_throughput_pct=18.0, tensor_pipe_pct=64.0, bound=counters.Bound.COMPUTE,
          rules=[dict(name="A", estimated_speedup_pct=3.0), dict(name="B", estimated_speedup_pct=9.0),
                 dict(name="C", estimated_speedup_pct=None)]),
     ["occupancy_limit", "bound", "ncu_rule", "ncu_rule"]),
    (dict(pairing="no_counters", estimate_pct=0.0), []),
    # a frame row: missing values are NaN, not None
    (dict(estimate_pct=20.0, achieved_occupancy_pct=math.nan, theoretical_occupancy_pct=50.0,
          occupancy_limiter=math.nan, bound=math.nan, rules=[]), ["occupancy_limit"]),
])
def test_kernel_facts(row, facts):
    got = counters.kernel_facts(row)
    assert [f["fact"] for f in got] == facts
    assert all(isinstance(v, (int, float, str, bool, type(None))) for f in got for v in f.values())
    rules = [f for f in got if f["fact"] == "ncu_rule"]
    assert [r["name"] for r in rules] == sorted((r["name"] for r in rules), reverse=True)  # largest speed-up first
    limit = [f for f in got if f["fact"] == "occupancy_limit"]
    if limit and row.get("registers_per_thread"):
        assert limit[0]["limiter"] == "registers" and limit[0]["registers_per_thread"] == 255
    elif limit:
        assert limit[0]["limiter"] is None and limit[0]["achieved_pct"] is None


def test_estimate_vs_measured_numbers():
    (f,) = counters.kernel_facts(dict(estimate_pct=None, achieved_occupancy_pct=33.0, theoretical_occupancy_pct=100.0,
                                      launch_api="cuLaunchKernelEx"))
    assert f == dict(fact="estimate_vs_measured", estimate_pct=None, achieved_pct=33.0, theoretical_pct=100.0,
                     launch_api="cuLaunchKernelEx", estimate_missing=True, shared_memory_bytes=None)


# --------------------------------------------------------------------------- committed sets


def test_real_naive_trace_against_ncu_style_names(h200):
    """The naive forward's real trace, with counters named the way ncu prints them:
    every kernel pairs, the memset and memcpy are skipped."""
    tr = h200.trace("inference", "naive")
    kernels = [g for g in tr.forwards[0].gpu if g.kind == "kernel"]
    ncu = [kc(i, g.name.replace(", ", ",").replace("8,", "(int)8,"), achieved_occupancy_pct=50.0)
           for i, g in enumerate(kernels)]
    run = dataclasses.replace(h200.rs.run("naive"), counters=schema.Counters("ok", None, ncu))
    m = counters.match(run, tr)
    assert m.mismatches == [] and set(m.frame["pairing"]) == {"ok"}
    assert list(m.frame["index"]) == [g.index for g in kernels] and len(kernels) < len(tr.forwards[0].gpu)
    # the two matrix products launched with cuLaunchKernelEx: the estimate is 0%, the counters measured one
    ex = m.frame[m.frame["launch_api"] == "cuLaunchKernelEx"]
    assert len(ex) == 2
    facts = [counters.kernel_facts(r) for _, r in ex.iterrows()]
    assert all(f[0]["fact"] == "estimate_vs_measured" and f[0]["estimate_missing"] for f in facts)


def test_committed_h200_counters_pair_with_every_kernel(h200):
    """The committed H200 set's counter pass: every kernel of every run (the backward's too, launched from
    autograd's thread) pairs with the trace by name; flash is register-limited at 12.5% theoretical occupancy
    and cuDNN's 0% estimate (cuLaunchKernelEx) is a measured occupancy above zero."""
    for run in h200.rs.runs:
        m = counters.for_run(h200, run.mode, run.variant)
        assert m.measured and m.mismatches == [], (run.mode, run.variant)
        assert len(m.frame) == len(run.counters.kernels)
    (flash,) = counters.for_run(h200, "inference", "sdpa_flash").frame.to_dict("records")
    assert flash["occupancy_limiter"] == "registers" and flash["registers_per_thread"] == 255
    assert flash["theoretical_occupancy_pct"] == pytest.approx(12.5)
    (cudnn,) = counters.for_run(h200, "inference", "sdpa_cudnn").frame.to_dict("records")
    assert cudnn["estimate_pct"] == 0 and cudnn["achieved_occupancy_pct"] > 0
    assert counters.kernel_facts(cudnn)[0]["fact"] == "estimate_vs_measured"


def test_other_sets_say_why_there_are_no_counters(h200_v1):
    for run in h200_v1.rs.runs:
        m = counters.match(run, h200_v1.trace(run.mode, run.variant) if run.status == "ok" else None)
        assert m.absent == (counters.Absent.NOT_CAPTURED if run.status == "ok" else counters.Absent.NOT_RUN)
    for path in schema.list_sets(RESULTS):
        ls = tables.load_set(path)
        if ls.rs.environment.ncu:
            continue
        for run in ls.rs.runs:
            m = counters.match(run, None, ls.rs.environment.device)
            assert m.absent is not None
            if ls.rs.kind == "reference" and run.published is not None:
                assert m.absent == counters.Absent.PUBLISHED
            if ls.rs.environment.device == "cpu":
                assert m.absent == counters.Absent.NO_GPU


def test_by_name_takes_the_median_of_a_name_and_its_first_path():
    tr = a_trace(dataclasses.replace(gpu_event(0, 5.0, name="k"), op_path=("aten::a",)),
                 dataclasses.replace(gpu_event(1, 5.0, name="k"), op_path=("aten::b",)),
                 gpu_event(2, 5.0, name="j"), gpu_event(3, 5.0, name="lost"))
    m = counters.match(a_run([kc(0, "k", achieved_occupancy_pct=10.0, occupancy_limiter="warps"),
                              kc(1, "k", achieved_occupancy_pct=30.0, occupancy_limiter="registers"),
                              kc(2, "j", sm_throughput_pct=5.0)]), tr)
    b = counters.by_name(m.frame)
    assert list(b.index) == ["k", "j"]  # "lost" has no counters
    assert b.loc["k", "achieved_occupancy_pct"] == 20.0 and b.loc["k", "op_path"] == ["aten::a"]
    assert b.loc["k", "occupancy_limiter"] == "warps" and b.loc["j", "sm_throughput_pct"] == 5.0
    assert counters.by_name(counters.match(a_run(None), tr).frame).empty


def test_json_fields():
    tr = a_trace(dataclasses.replace(gpu_event(0, 5.0, name="k"), op_path=("aten::a", "aten::b")))
    m = counters.match(a_run([kc(0, "k", registers_per_thread=255, achieved_occupancy_pct=12.345,
                                 occupancy_limiter="registers")]), tr)
    j = counters.json_fields(counters.by_name(m.frame).loc["k"])
    assert set(j) == {"op_path", *counters.COUNTER_FIELDS}
    assert j["op_path"] == ["aten::a", "aten::b"] and j["registers_per_thread"] == 255
    assert j["achieved_occupancy_pct"] == 12.35 and j["occupancy_limiter"] == "registers"
    assert j["dram_throughput_pct"] is None and j["shared_memory_bytes"] is None
    assert counters.json_fields(None) == {k: None for k in j}


def test_repeated_launches_name_the_launch_whose_counters_they_carry():
    name = "void at::native::vectorized_elementwise_kernel<8, F>(int, F)"
    tr = a_trace(gpu_event(0, 4.0, name=name), gpu_event(1, 4.0, name=name), gpu_event(2, 96.0, name=FLASH))
    run = a_run([kc(0, name, duration_ns=4000.0, same_as="inference__naive#0"),
                 kc(1, name, duration_ns=4000.0, same_as="inference__naive#1"),
                 kc(2, FLASH_NCU, duration_ns=95_000.0, same_as="train__sdpa_flash#3")])
    m = counters.match(run, tr)
    assert counters.repeats(m.rows) == [dict(index=0, mode="inference", variant="naive", at=0),
                                         dict(index=1, mode="inference", variant="naive", at=1),
                                         dict(index=2, mode="train", variant="sdpa_flash", at=3)]
    # a launch of another mode stands in for nothing: the kernel shows no counters
    f = m.frame.set_index("index")
    assert f.loc[2, "pairing"] == counters.Pairing.NO_COUNTERS and math.isnan(f.loc[2, "ncu_duration_us"])
    assert f.loc[0, "pairing"] == counters.Pairing.OK and f.loc[0, "ncu_duration_us"] == pytest.approx(4.0)
    assert counters.repeats(counters.match(a_run([kc(0, name)]), a_trace(gpu_event(0, 4.0, name=name))).rows) == []
    from gen.report.words import kernels as kernel_words
    note = kernel_words.counters_repeated(counters.repeats(m.rows), "v", "inference")
    assert note.startswith("2 kernels of this forward were not profiled again: each matches a launch Nsight "
                           "Compute profiled in naive's forward (2) (the same kernel, grid, block and shared "
                           "memory, inputs of the same shapes) and shows that launch's counters; ")
    assert note.endswith("1 kernel shows none: the capture took it from a launch of another mode, sdpa_flash's "
                         "training step (1), the same kernel at the same shape but called with other arguments "
                         "(a training forward also writes its softmax statistics)")


def test_a_copied_kernels_row_says_where_its_counters_were_read():
    from gen.report.words import kernels as kernel_words

    assert counters.source("inference__naive#3") == dict(mode="inference", variant="naive", at=3)
    assert kernel_words.copied_from(counters.source("inference__naive#3")) == (
        "counters of the identical launch in naive's forward, profiled there")
    assert counters.source(None) is None and counters.source(float("nan")) is None
    assert kernel_words.copied_from(None) is None


def test_a_run_is_measured_where_any_kernel_has_counters(h200_new):
    """Matched.measured: some kernel paired with counters (any pairing but no_counters), and nothing absent."""
    sets = [h200_new] + [tables.load_set(p) for p in sorted(RESULTS.iterdir()) if p.is_dir()]
    one = next(m for ls in sets for r in ls.rs.runs if (m := counters.for_run(ls, r.mode, r.variant)).absent is None
               and len(m.frame) > 1)
    no, n = counters.Pairing.NO_COUNTERS, len(one.frame)
    for pairing, measured in (([no] * n, False), ([no] * (n - 1) + ["ok"], True), ([None] + [no] * (n - 1), True),
                              ([math.nan] + [no] * (n - 1), True), (["name_differs"] * n, True)):
        m = dataclasses.replace(one, rows=values.rows(one.frame.assign(pairing=pairing)))
        assert m.measured is measured, pairing
    assert dataclasses.replace(one, rows=[]).measured is False
    assert dataclasses.replace(one, absent=counters.Absent.NOT_CAPTURED).measured is False


def test_a_runs_rows_hold_the_values_its_frame_holds():
    """Matched.rows are the frame's rows (values.rows): in a column of numbers with one missing, ints are
    floats and the missing one NaN; a run with no counters has the trace's kernels unpaired."""
    name = "void at::native::elementwise_kernel<128, 4>(int, Lambda)"
    tr = a_trace(gpu_event(0, 4.0, name=name), gpu_event(1, 2.0, name=name), gpu_event(2, 1.0, name="other"))
    m = counters.match(a_run([kc(0, name, registers_per_thread=40), kc(1, name, registers_per_thread=None)]), tr,
                       "cuda")
    regs = [r["registers_per_thread"] for r in m.rows]
    assert regs[0] == 40.0 and type(regs[0]) is float and math.isnan(regs[1])
    assert [r["index"] for r in m.rows] == [0, 1, 2] and type(m.rows[0]["index"]) is int
    pd.testing.assert_frame_equal(m.frame, pd.DataFrame(m.rows, columns=counters.COLUMNS))
    assert counters.match(a_run(None), tr, "cuda").absent == counters.Absent.NOT_CAPTURED




def test_repeats_name_the_launch_each_copied_row_was_read_from():
    """repeats: the rows whose counters came from another launch (same_as), each with where it was read;
    a missing same_as (None, NaN, pd.NA) is no repeat."""
    rows = [dict(index=3, same_as="inference__naive#0"), dict(index=1, same_as=None),
            dict(index=2, same_as=math.nan), dict(index=0, same_as=pd.NA)]
    assert counters.repeats(rows) == [dict(index=3, mode="inference", variant="naive", at=0)]
    assert counters.repeats([]) == []


def test_the_readers_of_a_runs_counters(h200_new):
    """findings._achieved: each paired kernel's achieved occupancy by launch index; lessons._counters: a
    kernel's counters and bound where it was paired, None for a launch with none or a run without a trace."""
    from gen.analysis import findings, lesson_facts

    seen = 0
    for run in h200_new.rs.runs:
        if run.mode != "inference":
            continue
        m = counters.for_run(h200_new, run.mode, run.variant)
        paired = [r for r in m.rows if r["pairing"] != counters.Pairing.NO_COUNTERS] if m.measured else []
        want = {int(r["index"]): float(r["achieved_occupancy_pct"]) for r in paired
                if not values.missing(r["achieved_occupancy_pct"])}
        assert findings._achieved(h200_new, run.variant) == want
        for r in paired:
            got = lesson_facts._counters(h200_new, run, r["index"])
            assert list(got) == [*counters.COUNTER_FIELDS, "bound"] and got["bound"] == (
                None if values.missing(r["bound"]) else r["bound"])
            seen += 1
        assert lesson_facts._counters(h200_new, run, -1) is None
    assert seen > 10
    assert lesson_facts._counters(h200_new, None, 0) is None
