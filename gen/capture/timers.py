"""The clocks and the primitive timed loops of one call, per device kind, and training's forward and backward apart.

Takes: a zero-argument `call` (or, for `fwd_bwd_ms`, the variant's `fn` with
its inputs and output gradient) and a device. Gives: `Timer` (a CPU's wall
clock and loops: n back-to-back calls, host time per call with the device
drained before each) and `CudaTimer` (the same with CUDA events, plus a CUDA
graph's capture, replay, listed work and release); `timer_for(device)`; and
`fwd_bwd_ms(...) -> (fwd ms, bwd ms, method)`. Tests subclass `Timer` with
fake clocks, as torch.utils.benchmark's _MockTimer does; the measuring logic
is in gen.capture.timing. The timed loops run with Python's garbage collector
paused (`gc_paused`), as timeit runs its loops, and hold nothing but the call.
Imports torch (inside CudaTimer and fwd_bwd_ms only) and the standard library.
"""

from __future__ import annotations

import functools
import gc
import time
from collections.abc import Callable

NO_GPU = "no GPU"
SIDE_STREAM_WARM_CALLS = 3  # PyTorch's docs warm up on a side stream before capture
WARM_SPAN_S = 0.02  # the graph's warm calls and replays stop past this (a 100 ms call: one each)


def gc_paused(loop):
    """Run a timed loop with the garbage collector off (restored after, as it was)."""
    @functools.wraps(loop)
    def run(*args, **kwargs):
        was = gc.isenabled()
        gc.disable()
        try:
            return loop(*args, **kwargs)
        finally:
            if was:
                gc.enable()
    return run


class GraphUnavailable(RuntimeError):
    """No CUDA graph on this device (a CPU)."""


class Timer:
    """The wall clock and the timed loops, for a CPU (synchronous calls).
    Subclasses: `CudaTimer` here, fake timers in tests."""

    gpu = False

    def now(self) -> float:
        """Host seconds."""
        return time.perf_counter()

    def sleep(self, s: float) -> None:
        time.sleep(s)

    def sync(self) -> None:
        """Drain the device queue (nothing to drain on a CPU)."""

    @gc_paused
    def loop_ms(self, call: Callable, n: int) -> list[float]:
        """ms per call of n back-to-back calls (wall time on a CPU)."""
        perf = time.perf_counter
        stamps = [0.0] * (n + 1)
        stamps[0] = perf()
        for i in range(1, n + 1):
            call()
            stamps[i] = perf()
        return [(b - a) * 1e3 for a, b in zip(stamps, stamps[1:])]

    @gc_paused
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

    def reference(self) -> Callable | None:
        """The fixed call whose host cost says how fast the host dispatches now (None: none here)."""
        return None

    @gc_paused
    def replay_ms(self, graph, n: int) -> list[float]:
        """ms per replay of n back-to-back replays."""
        raise GraphUnavailable(NO_GPU)

    def graph_work(self, graph) -> list[str] | None:
        """The GPU work (kernel, memcpy and memset names, in order) of one replay; None: cannot be listed."""
        return None

    def release(self, graph) -> None:
        """Free a graph's memory pool."""

    def is_oom(self, exc: BaseException) -> bool:
        return type(exc).__name__ == "OutOfMemoryError"


class CudaTimer(Timer):
    gpu = True

    def __init__(self, device):
        import torch

        self.torch = torch
        self.device = device

    def sync(self) -> None:
        self.torch.cuda.synchronize(self.device)

    @gc_paused
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

    def reference(self) -> Callable | None:
        if getattr(self, "_ref", None) is None:
            a = self.torch.ones(1, device=self.device)
            out = self.torch.empty_like(a)
            add = self.torch.add
            self._ref = lambda: add(a, a, out=out)
        return self._ref

    def capture(self, call: Callable, n: int):
        torch = self.torch
        # Warm-up on a side stream before capture, as PyTorch's CUDA-graph docs
        # require (lazy init, cuBLAS workspaces, autograd's stream state).
        side = torch.cuda.Stream(self.device)
        side.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(side):
            # Up to SIDE_STREAM_WARM_CALLS, but not past WARM_SPAN_S: the call
            # is warm already (warm_up ran); this is the stream's own state.
            t0 = time.perf_counter()
            for _ in range(SIDE_STREAM_WARM_CALLS):
                call()
                self.sync()
                if time.perf_counter() - t0 > WARM_SPAN_S:
                    break
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

    @gc_paused
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

    def graph_work(self, graph) -> list[str] | None:
        from gen.capture import gpuwork

        return gpuwork.graph_work(graph, self.device)

    def release(self, graph) -> None:
        graph.reset()
        self.sync()
        self.torch.cuda.empty_cache()

    def is_oom(self, exc: BaseException) -> bool:
        return isinstance(exc, self.torch.OutOfMemoryError)


SLEEP_HZ = 2.0e9  # cycles per second of the GPU's sleep kernel, at most (a slower clock sleeps longer)
FWD_BWD_METHOD_GPU = "events_behind_sleep"
FWD_BWD_METHOD_CPU = "wall"


def fwd_bwd_ms(fn: Callable, q, k, v, grad_out, device, calls: int) -> tuple[list[float], list[float], str]:
    """The forward and the backward of a training step, each timed apart, `calls` times: (fwd ms,
    bwd ms, method). On a GPU each step is queued behind a sleep kernel longer than the host takes to
    queue the step, so that CUDA events around its forward and its backward time the GPU's work with
    no host gaps (GPU-only without a graph, which could not hold the autograd graph between the two);
    on a CPU, wall time."""
    import torch

    def zero():
        q.grad = k.grad = v.grad = None

    if getattr(device, "type", str(device)) != "cuda":
        fwd, bwd = [], []
        for _ in range(calls):
            zero()
            t0 = time.perf_counter()
            out = fn(q, k, v)
            t1 = time.perf_counter()
            out.backward(grad_out)
            fwd.append((t1 - t0) * 1e3)
            bwd.append((time.perf_counter() - t1) * 1e3)
        return fwd, bwd, FWD_BWD_METHOD_CPU
    sync = functools.partial(torch.cuda.synchronize, device)
    zero()
    fn(q, k, v).backward(grad_out)
    sync()
    t0 = time.perf_counter()
    zero()
    fn(q, k, v).backward(grad_out)
    host_s = time.perf_counter() - t0  # an upper bound on the host's queueing of one step
    sync()
    cycles = int((3 * host_s + 1e-3) * SLEEP_HZ)
    ev = [[torch.cuda.Event(enable_timing=True) for _ in range(3)] for _ in range(calls)]
    for e0, e1, e2 in ev:
        zero()
        torch.cuda._sleep(cycles)
        e0.record()
        out = fn(q, k, v)
        e1.record()
        out.backward(grad_out)
        e2.record()
        del out
    sync()
    return [a.elapsed_time(b) for a, b, _ in ev], [b.elapsed_time(c) for _, b, c in ev], FWD_BWD_METHOD_GPU


def timer_for(device) -> Timer:
    return CudaTimer(device) if getattr(device, "type", str(device)) == "cuda" else Timer()
