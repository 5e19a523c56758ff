"""gen.capture.timing with a fake timer (simulated clock, chosen costs), on the CPU."""

from __future__ import annotations

import dataclasses
import statistics
import time

import pytest

pytest.importorskip("torch")

from gen.capture import gpuwork, timers, timing  # noqa: E402
from gen.model import schema  # noqa: E402


class FakeTimer(timers.Timer):
    """A simulated device: each call costs `eager(i)` ms of loop time (i counts
    calls), `host` ms of dispatch and `gpu` ms of GPU time inside a graph."""

    def __init__(self, eager, gpu=None, host=0.05, capture_error=None):
        self.eager, self.gpu_cost, self.host = eager, gpu, host
        self.gpu = gpu is not None
        self.capture_error = capture_error
        self.clock_s = 0.0
        self.calls = 0
        self.captures: list[int] = []
        self.released = 0

    def now(self):
        return self.clock_s

    def _one(self, call, cost_ms):
        call()
        self.calls += 1
        self.clock_s += cost_ms / 1e3
        return cost_ms

    def loop_ms(self, call, n):
        return [self._one(call, self.eager(self.calls)) for _ in range(n)]

    def host_ms(self, call, n):
        return [self._one(call, self.host) for _ in range(n)]

    def capture(self, call, n):
        if self.capture_error:
            raise self.capture_error
        self.captures.append(n)
        return n

    def replay_ms(self, graph, n):
        self.clock_s += n * graph * self.gpu_cost / 1e3
        return [graph * self.gpu_cost] * n

    def release(self, graph):
        self.released += 1


def nothing():
    return None


BUDGET = timing.Budget()


def test_warm_up_waits_for_the_clocks_to_settle():
    # Clocks unsteady: runs of 2 ms and 1 ms calls for the first 600 calls
    # (0.9 s, past warmup_min_s), then steady at 1 ms.
    timer = FakeTimer(lambda i: 2.0 if i < 600 and (i // 25) % 2 == 0 else 1.0)
    iters, windows = timing.warm_up(nothing, timer, BUDGET)
    assert iters >= 600 and iters == timer.calls
    assert max(windows) == 2.0 and windows[-3:] == [1.0, 1.0, 1.0]
    # it stopped soon after settling: four windows of 20 calls at most past the change
    assert iters <= 600 + 4 * 20


def test_warm_up_runs_its_minimum_time_even_when_settled_at_once():
    timer = FakeTimer(lambda i: 1.0)
    iters, windows = timing.warm_up(nothing, timer, BUDGET)
    assert timer.clock_s >= BUDGET.warmup_min_s and iters >= BUDGET.warmup_min
    assert timer.clock_s < BUDGET.warmup_min_s + 0.05


def test_warm_up_gives_up_at_its_maximum_time_when_times_never_settle():
    # Every call 10% slower than the one before a window earlier: never within 3%.
    timer = FakeTimer(lambda i: 0.5 * 1.01**i)
    b = timing.Budget(warmup_max_s=0.3)
    iters, windows = timing.warm_up(nothing, timer, b)
    assert 0.3 <= timer.clock_s < 0.3 + windows[-1] * 201 / 1e3
    assert windows == sorted(windows) and len(windows) >= 3


def test_measure_gives_three_labelled_times_from_the_right_loops_in_interleaved_rounds():
    timer = FakeTimer(lambda i: 0.15, gpu=0.1, host=0.04)
    t = timing.measure(nothing, "cuda", BUDGET, timer=timer)
    assert t.gpu_only_method == schema.GpuOnlyMethod.CUDA_GRAPH and t.gpu_only_reason is None
    assert t.gpu_only_ms and all(s == pytest.approx(0.1) for s in t.gpu_only_ms)
    assert set(t.eager_ms) == {0.15} and set(t.host_ms) == {0.04}
    # one replay lasts at least graph_min_replay_ms: the eager estimate (0.15 ms)
    # asked for 14 calls, too few at 0.1 ms, so it captured again with 20
    assert timer.captures == [14, 20] and t.calls_per_replay == 20
    assert t.calls_per_replay * 0.1 >= BUDGET.graph_min_replay_ms
    assert timer.released == 2  # every graph's memory given back
    assert t.warmup_iters > 0 and t.warmup_window_ms
    # interleaved: every window sampled in every round, the sizes recorded per round
    assert BUDGET.min_rounds <= t.rounds <= BUDGET.max_rounds
    assert {k: len(v) for k, v in t.round_sizes.items()} == {"gpu_only": t.rounds, "eager": t.rounds, "host": t.rounds}
    assert sum(t.round_sizes["eager"]) == len(t.eager_ms) and sum(t.round_sizes["host"]) == len(t.host_ms)
    assert sum(t.round_sizes["gpu_only"]) == len(t.gpu_only_ms)
    assert len(t.eager_ms) <= BUDGET.max_repeats and len(t.host_ms) <= BUDGET.host_repeats * 2
    # and nothing but these loops called it
    assert timer.calls == t.warmup_iters + len(t.eager_ms) + len(t.host_ms)


def test_steady_times_stop_at_the_least_rounds_and_noisy_ones_run_to_the_most():
    steady = timing.measure(nothing, "cuda", BUDGET, timer=FakeTimer(lambda i: 1.0, gpu=0.9))
    # min_measure_s reached within the least rounds, the intervals of the medians zero wide
    assert steady.rounds == BUDGET.min_rounds or sum(steady.round_sizes["eager"]) * 1.0 < BUDGET.min_measure_s * 1e3

    class Noisy(FakeTimer):
        def replay_ms(self, graph, n):
            self.clock_s += n * graph * 0.9 / 1e3
            return [graph * 0.9 * (1 + 0.2 * ((self.calls + j) % 3)) for j in range(n)]

    noisy = timing.measure(nothing, "cuda", BUDGET, timer=Noisy(lambda i: 1.0 + 0.5 * (i % 2), gpu=0.9))
    assert noisy.rounds == BUDGET.max_rounds


def test_graph_that_runs_other_work_falls_back_to_the_eager_kernel_sum_with_the_reason():
    class CopyKernel(FakeTimer):
        def graph_work(self, graph):  # inside a graph the copy is a kernel
            return ["gemm", "memcpy32_post", "softmax", "gemm"] * graph

    timer = CopyKernel(lambda i: 16.3, gpu=17.6)
    eager = (["gemm", "Memcpy DtoD (Device -> Device)", "softmax", "gemm"], 16.27)
    t = timing.measure(nothing, "cuda", BUDGET, timer=timer, profiled=lambda: [eager] * 3)
    assert t.graph_check.fidelity == schema.GraphFidelity.DIFFERS
    assert "memcpy32_post" in t.graph_check.detail and "Memcpy DtoD" in t.graph_check.detail
    assert t.gpu_only_method == schema.GpuOnlyMethod.KERNEL_SUM
    assert t.gpu_only_reason.startswith("the graph runs other GPU work than an eager call")
    assert t.gpu_only_ms == t.kernel_sum_ms == [16.27] * 3
    assert t.graph_ms and statistics.median(t.graph_ms) == pytest.approx(17.6)  # kept, set aside


def test_same_work_keeps_the_graph_and_records_the_kernel_sum_beside_it():
    class Same(FakeTimer):
        def graph_work(self, graph):
            return ["gemm", "softmax"] * graph

    t = timing.measure(nothing, "cuda", BUDGET, timer=Same(lambda i: 0.3, gpu=0.2),
                       profiled=lambda: [(["gemm", "softmax"], 0.2)] * 3)
    assert t.graph_check.fidelity == schema.GraphFidelity.SAME
    assert t.graph_check.graph_kernels == t.graph_check.eager_kernels == ["gemm", "softmax"]
    assert t.gpu_only_method == schema.GpuOnlyMethod.CUDA_GRAPH and not t.graph_ms
    assert t.kernel_sum_ms == [0.2] * 3


def test_graph_slower_than_eager_beyond_the_spread_falls_back():
    class Same(FakeTimer):
        def graph_work(self, graph):
            return ["k"] * graph

    t = timing.measure(nothing, "cuda", BUDGET, timer=Same(lambda i: 1.0, gpu=1.06),
                       profiled=lambda: [(["k"], 0.99)] * 3)
    assert t.graph_check.fidelity == schema.GraphFidelity.SAME
    assert t.gpu_only_method == schema.GpuOnlyMethod.KERNEL_SUM and "exceeds eager" in t.gpu_only_reason
    assert t.gpu_only_ms == [0.99] * 3 and statistics.median(t.graph_ms) == pytest.approx(1.06)


def test_median_ci_is_distribution_free_and_narrows_with_samples():
    med, lo, hi = timing.median_ci([5.0, 1.0, 3.0])
    assert (med, lo, hi) == (3.0, 1.0, 5.0)  # three samples: the whole range
    xs = [float(i) for i in range(101)]
    med, lo, hi = timing.median_ci(xs)
    assert med == 50.0 and 38 <= lo < 50 < hi <= 62


def test_burst_idles_first_then_times_a_handful_of_calls():
    timer = FakeTimer(lambda i: 2.0, gpu=1.9)
    slept = []
    timer.sleep = lambda s: slept.append(s)
    t = timing.measure(nothing, "cuda", BUDGET, timer=timer, do_burst=True)
    assert slept == [timing.BURST_IDLE_S] and t.burst_ms == [2.0] * timing.BURST_CALLS


def test_capture_failure_falls_back_to_kernel_sum_with_the_first_line_of_why():
    err = RuntimeError("CUDA error: operation not permitted when stream is capturing\nCompile with TORCH_USE_CUDA_DSA")
    timer = FakeTimer(lambda i: 0.2, gpu=0.1, capture_error=err)
    t = timing.measure(nothing, "cuda", BUDGET, timer=timer)
    assert t.gpu_only_method == schema.GpuOnlyMethod.KERNEL_SUM
    assert t.gpu_only_reason == "RuntimeError: CUDA error: operation not permitted when stream is capturing"
    assert t.gpu_only_ms == [] and t.calls_per_replay is None
    assert t.eager_ms and t.host_ms  # the other two times are still there


def test_no_gpu_means_no_gpu_only_time():
    timer = FakeTimer(lambda i: 0.3)
    t = timing.measure(nothing, "cpu", BUDGET, timer=timer)
    assert t.gpu_only_method is None and t.gpu_only_reason == timers.NO_GPU and not t.gpu_only_ms
    assert t.eager_ms and t.host_ms


def test_graph_false_is_said_so():
    t = timing.measure(nothing, "cuda", BUDGET, graph=False, timer=FakeTimer(lambda i: 0.3, gpu=0.2))
    assert t.gpu_only_method is None and t.gpu_only_reason == timing.NOT_ASKED


def test_the_real_cpu_timer_measures_wall_time_per_call():
    def busy():
        end = time.perf_counter() + 0.002
        while time.perf_counter() < end:
            pass

    b = timing.Budget(warmup_min=2, warmup_min_s=0.0, warmup_max_s=0.05, repeats=6, min_measure_s=0.0,
                      host_repeats=3, max_repeats=6, round_s=0.1, min_rounds=3, max_rounds=3)
    t = timing.measure(busy, "cpu", b)
    assert len(t.eager_ms) == 6 and len(t.host_ms) == 3 and t.rounds == 3
    assert min(t.eager_ms) >= 2.0 and min(t.host_ms) >= 2.0
    assert statistics.median(t.eager_ms) < 20.0  # a loop of 2 ms calls, not of the whole run
    with pytest.raises(timers.GraphUnavailable):
        timers.Timer().capture(busy, 2)


def test_timing_is_a_valid_schema_record():
    t = timing.measure(nothing, "cuda", BUDGET, timer=FakeTimer(lambda i: 0.15, gpu=0.1))
    run = schema.VariantRun(variant="x", mode="inference", status="ok", timing=t)
    rs = schema.ResultSet(schema.SCHEMA_VERSION, "s", schema.Environment(
        "cuda", *[None] * 17), schema.RunConfig(1, 1, 1, 1, "bf16", ["inference"], ["x"], 1, 1, 0, 0, 1, 1, 0),
        [run])
    back = schema.from_dict(schema.to_dict(rs))
    assert back.runs[0].timing == t


def test_memsets_match_whatever_memory_the_profiler_names_but_a_copy_engine_copy_is_not_a_kernel():
    same = gpuwork.compare_work(["Memset (Unknown)", "gemm"], ["Memset (Device)", "gemm"], 1)
    assert same.fidelity == schema.GraphFidelity.SAME
    differs = gpuwork.compare_work(["gemm", "memcpy32_post"] * 2, ["gemm", "Memcpy DtoD (Device -> Device)"], 2)
    assert differs.fidelity == schema.GraphFidelity.DIFFERS and differs.graph_kernels == ["gemm", "memcpy32_post"]


def test_each_round_times_the_reference_call_after_its_host_window():
    refs = []

    class WithReference(FakeTimer):
        def reference(self):
            return lambda: refs.append(1)

    timer = WithReference(lambda i: 0.15, gpu=0.1, host=0.04)
    t = timing.measure(nothing, "cuda", BUDGET, timer=timer)
    assert len(t.host_ref_ms) == len(refs) == timing.HOST_REF_CALLS * t.rounds
    assert set(t.host_ref_ms) == {0.04}  # host-timed like the host window
    # a timer without a reference call (a CPU) records none
    assert timing.measure(nothing, "cuda", BUDGET, timer=FakeTimer(lambda i: 0.15, gpu=0.1)).host_ref_ms == []



def test_rounds_stop_only_after_a_pair_below_the_most():
    """Interleaved rounds alternate forward and reversed (gen.capture.timing._rotated): a call stops early only after
    an even number of rounds, so that each orientation weighs the same (review 2026-12-06-3 item 2); at max_rounds it
    stops whatever the count."""
    odd = dataclasses.replace(BUDGET, min_rounds=3, max_rounds=7, min_measure_s=0.0)
    steady = timing.measure(nothing, "cuda", odd, timer=FakeTimer(lambda i: 1.0, gpu=0.9))
    assert steady.rounds == 4  # tight after 3, but a pair is completed first
    capped = dataclasses.replace(BUDGET, min_rounds=3, max_rounds=3, min_measure_s=0.0)
    assert timing.measure(nothing, "cuda", capped, timer=FakeTimer(lambda i: 1.0, gpu=0.9)).rounds == 3
    from gen.capture.sweep import SWEEP_BUDGET
    assert SWEEP_BUDGET.max_rounds % 2 == 0 and SWEEP_BUDGET.min_rounds % 2 == 0
