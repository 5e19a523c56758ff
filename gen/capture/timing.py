"""Timing of one call: three labelled times, as raw samples (schema.Timing).

Takes: a zero-argument `call` (inputs bound; the backend context and
torch.no_grad() entered by the caller, outside every loop), a device and a
`Budget`. Gives: `measure(call, device, budget, graph=True) -> schema.Timing`:

- gpu_only_ms: N back-to-back calls captured in one CUDA graph, each replay
  timed with CUDA events, one sample = replay / N: the GPU's own time with no
  host gaps, the number that ranks. N is chosen so one replay lasts at least
  `graph_min_replay_ms` (capped at `graph_max_calls`). Where capture fails
  (a backend that syncs, compiled code that cannot be captured), the method is
  kernel_sum (analysis adds up the trace's kernels) and the first line of why
  is kept; on a CPU, no method and the reason "no GPU".
- eager_ms: CUDA events around each call of a bare back-to-back loop: what a
  Python loop sees, host gaps inside a call included. On a CPU, wall time.
- host_ms: host time from the call to its return, the GPU drained before each
  call (host dispatch, no queue back-pressure).

Warm-up runs until the clocks settle. The primitive loops live in a `Timer`
(one per device kind) so that tests inject a fake one, as
torch.utils.benchmark's _MockTimer does; the measuring logic is here. The
timed loops hold nothing but the call: no warnings filter, no bookkeeping.
Imports torch, the standard library and gen.model only.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from gen.model import schema

NO_GPU = "no GPU"
NOT_ASKED = "CUDA-graph timing not asked for"
GRAPH_WARM_REPLAYS = 3  # replays before timing: the graph's first launch uploads it
SIDE_STREAM_WARM_CALLS = 3  # PyTorch's docs warm up on a side stream before capture


@dataclass
class Budget:
    """How long to warm up and how many samples to take."""

    warmup_min: int = 10
    warmup_min_s: float = 0.5
    warmup_max_s: float = 4.0
    settle_tol: float = 0.03
    repeats: int = 100
    min_measure_s: float = 0.5
    max_repeats: int = 1000
    host_repeats: int = 200  # at most; and no more than min_measure_s of drained calls
    graph_min_replay_ms: float = 2.0  # one replay at least this long, so launch cost is amortised
    graph_max_calls: int = 200  # calls per graph at most (memory and capture time)
    graph_replays: int = 50  # replays timed, at most; at least 5


class GraphUnavailable(RuntimeError):
    """No CUDA graph on this device (a CPU)."""


class Timer:
    """The wall clock and the timed loops, for a CPU (synchronous calls).
    Subclasses: `CudaTimer` here, fake timers in tests."""

    gpu = False

    def now(self) -> float:
        """Host seconds."""
        return time.perf_counter()

    def sync(self) -> None:
        """Drain the device queue (nothing to drain on a CPU)."""

    def loop_ms(self, call: Callable, n: int) -> list[float]:
        """ms per call of n back-to-back calls (wall time on a CPU)."""
        perf = time.perf_counter
        stamps = [0.0] * (n + 1)
        stamps[0] = perf()
        for i in range(1, n + 1):
            call()
            stamps[i] = perf()
        return [(b - a) * 1e3 for a, b in zip(stamps, stamps[1:])]

    def host_ms(self, call: Callable, n: int) -> list[float]:
        """ms from each call to its return, the device drained before each."""
        perf, sync = time.perf_counter, self.sync
        starts, ends = [0.0] * n, [0.0] * n
        for i in range(n):
            sync()
            starts[i] = perf()
            call()
            ends[i] = perf()
        sync()
        return [(b - a) * 1e3 for a, b in zip(starts, ends)]

    def capture(self, call: Callable, n: int):
        """A graph of n back-to-back calls; raises where none can be made."""
        raise GraphUnavailable(NO_GPU)

    def replay_ms(self, graph, n: int) -> list[float]:
        """ms per replay of n back-to-back replays."""
        raise GraphUnavailable(NO_GPU)

    def release(self, graph) -> None:
        """Free a graph's memory pool."""


class CudaTimer(Timer):
    gpu = True

    def __init__(self, device):
        import torch

        self.torch = torch
        self.device = device

    def sync(self) -> None:
        self.torch.cuda.synchronize(self.device)

    def loop_ms(self, call: Callable, n: int) -> list[float]:
        event = self.torch.cuda.Event
        starts = [event(enable_timing=True) for _ in range(n)]
        ends = [event(enable_timing=True) for _ in range(n)]
        for s, e in zip(starts, ends):
            s.record()
            call()
            e.record()
        self.sync()
        return [s.elapsed_time(e) for s, e in zip(starts, ends)]

    def capture(self, call: Callable, n: int):
        torch = self.torch
        # Warm-up on a side stream before capture, as PyTorch's CUDA-graph docs
        # require (lazy init, cuBLAS workspaces, autograd's stream state).
        side = torch.cuda.Stream(self.device)
        side.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(side):
            for _ in range(SIDE_STREAM_WARM_CALLS):
                call()
        torch.cuda.current_stream(self.device).wait_stream(side)
        self.sync()
        # A graph allocates from a pool of its own: give the eager loops'
        # cached blocks back first, or a call that fits eager may not fit here.
        torch.cuda.empty_cache()
        graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(graph):
                for _ in range(n):
                    call()
        except BaseException:
            try:
                self.release(graph)
            except Exception:  # a capture that failed may leave nothing to reset; the first error matters
                pass
            raise
        return graph

    def replay_ms(self, graph, n: int) -> list[float]:
        event = self.torch.cuda.Event
        starts = [event(enable_timing=True) for _ in range(n)]
        ends = [event(enable_timing=True) for _ in range(n)]
        replay = graph.replay
        for s, e in zip(starts, ends):
            s.record()
            replay()
            e.record()
        self.sync()
        return [s.elapsed_time(e) for s, e in zip(starts, ends)]

    def release(self, graph) -> None:
        graph.reset()
        self.sync()
        self.torch.cuda.empty_cache()


def timer_for(device) -> Timer:
    return CudaTimer(device) if getattr(device, "type", str(device)) == "cuda" else Timer()


def warm_up(call: Callable, timer: Timer, b: Budget) -> tuple[int, list[float]]:
    """Run until the clocks settle: windows of calls whose median times agree
    within settle_tol twice in a row, after at least warmup_min calls and
    warmup_min_s seconds; at most warmup_max_s. Returns the calls made and each
    window's median (ms)."""
    t0 = timer.now()
    iters, windows, window = 0, [], 3
    while True:
        windows.append(statistics.median(timer.loop_ms(call, window)))
        iters += window
        elapsed = timer.now() - t0
        settled = len(windows) >= 3 and all(
            abs(windows[-i] - windows[-i - 1]) <= b.settle_tol * windows[-i - 1] for i in (1, 2)
        )
        if (iters >= b.warmup_min and elapsed >= b.warmup_min_s and settled) or elapsed >= b.warmup_max_s:
            return iters, windows
        # Windows of about 20 ms, so that one window's median is stable.
        window = max(3, min(200, int(20.0 / max(windows[-1], 1e-3))))


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def graph_calls(per_call_ms: float, b: Budget) -> int:
    """Calls per graph so that one replay lasts graph_min_replay_ms, capped."""
    return max(1, min(b.graph_max_calls, math.ceil(b.graph_min_replay_ms / max(per_call_ms, 1e-6))))


def gpu_only(call: Callable, timer: Timer, b: Budget, per_call_ms: float) -> tuple[list[float], int]:
    """Samples of replay / N and N. The estimate per call comes from eager
    time, which host gaps inflate: when the first replay is shorter than
    wanted, capture once more with N from the replay itself."""
    n = graph_calls(per_call_ms, b)
    graph = timer.capture(call, n)
    try:
        probe = timer.replay_ms(graph, GRAPH_WARM_REPLAYS)
        replay = statistics.median(probe)
        better = graph_calls(replay / n, b)
        if replay < b.graph_min_replay_ms and better > n:
            timer.release(graph)
            graph, n = None, better
            graph = timer.capture(call, n)
            replay = statistics.median(timer.replay_ms(graph, GRAPH_WARM_REPLAYS))
        reps = max(5, min(b.graph_replays, math.ceil(b.min_measure_s * 1e3 / max(replay, 1e-6))))
        samples = timer.replay_ms(graph, reps)
    finally:
        if graph is not None:
            timer.release(graph)
    return [s / n for s in samples], n


def measure(call: Callable, device, budget: Budget, graph: bool = True, timer: Timer | None = None) -> schema.Timing:
    """Warm up, then eager, host and GPU-only samples of `call` (see the module doc)."""
    b = budget
    timer = timer or timer_for(device)
    iters, windows = warm_up(call, timer, b)
    per_call = statistics.median(windows[-3:])
    fits = math.ceil(b.min_measure_s * 1e3 / max(per_call, 1e-6))
    eager = timer.loop_ms(call, max(b.repeats, min(b.max_repeats, fits)))
    # Host samples drain the GPU before each call: a few suffice for slow calls.
    host = timer.host_ms(call, max(3, min(b.host_repeats, fits)))
    t = schema.Timing(eager_ms=eager, host_ms=host, warmup_iters=iters, warmup_window_ms=windows)
    if not timer.gpu:
        t.gpu_only_reason = NO_GPU
    elif not graph:
        t.gpu_only_reason = NOT_ASKED
    else:
        # Last, so that a capture that fails leaves the other samples whole.
        try:
            t.gpu_only_ms, t.calls_per_replay = gpu_only(call, timer, b, per_call)
            t.gpu_only_method = schema.GpuOnlyMethod.CUDA_GRAPH.value
        except Exception as exc:  # CUDA, cuDNN, Inductor and Triton raise their own types
            t.gpu_only_method = schema.GpuOnlyMethod.KERNEL_SUM.value
            t.gpu_only_reason = first_line(exc)
    return t


def describe(t: schema.Timing) -> str:
    """One line of medians for the capture log."""
    def med(xs):
        return f"{statistics.median(xs):.4f}" if xs else "-"

    if t.gpu_only_method == schema.GpuOnlyMethod.CUDA_GRAPH:
        gpu = f"graph {med(t.gpu_only_ms)} ms (N={t.calls_per_replay})"
    else:
        gpu = f"graph - ({t.gpu_only_method or 'none'}: {t.gpu_only_reason})"
    return f"{gpu}, eager {med(t.eager_ms)} ms, host {med(t.host_ms)} ms"
