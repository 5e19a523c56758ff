"""Timing of one call: three labelled times, as raw samples (schema.Timing).

Takes: a zero-argument `call` (inputs bound; the backend context and
torch.no_grad() entered by the caller, outside every loop), a device, a
`Budget`, and optionally an NVML `Sampler` (gen.capture.telemetry) and a
`profiled` callback (profiled eager calls: their GPU work per call). Gives:
`measure(...) -> schema.Timing`:

- gpu_only_ms: N back-to-back calls captured in one CUDA graph, each replay
  timed with CUDA events, one sample = replay / N: the GPU's own time with no
  host gaps, the number that ranks. N is chosen so one replay lasts at least
  `graph_min_replay_ms` (capped at `graph_max_calls`).
- eager_ms: CUDA events around each call of a bare back-to-back loop: what a
  Python loop sees, host gaps inside a call included. On a CPU, wall time.
- host_ms: host time from the call to its return, the GPU drained before each
  call (host dispatch, no queue back-pressure). After each round's host window,
  a few calls of a fixed reference call are host-timed the same way
  (host_ref_ms): how fast the host dispatched at that moment.

The three are taken in interleaved rounds (graph, eager, host; then again),
so that a drift of the clocks (a 700 W GPU slows its SMs under sustained
load) falls on all three alike; rounds stop once the medians' confidence
intervals are tight (as torch.utils.benchmark's adaptive_autorange does),
after `min_rounds` and at most `max_rounds` or `max_measure_s`. Each window's
intervals give its NVML telemetry.

Graph fidelity: the kernels of one graph replay are compared with those of
one profiled eager call. Where they differ (a device-to-device copy that the
copy engine runs eagerly becomes a memcpy kernel in a graph), or the graph
reads slower than eager (gen.model.graph_rule, shared with analysis), GPU-only
falls back to the kernel sum of the profiled eager calls (`kernel_sum`, with the
reason), and the graph samples stay in graph_ms. Where capture fails (a backend that syncs,
compiled code that cannot be captured), the method is kernel_sum too.

The timed loops run with Python's garbage collector paused, as timeit runs
its loops: a collection in the middle of a window is the host's noise, not
the call's cost. The primitive loops live in a `Timer` (one per device kind,
gen.capture.timers) so that tests inject a fake one, as torch.utils.benchmark's
_MockTimer does; the measuring logic is here. The graph's work is compared with
eager's by gen.capture.gpuwork.compare_work. The timed loops hold nothing but the call.
Imports the standard library, gen.model and gen.capture (no torch of its own).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from gen.capture.gpuwork import compare_work
from gen.capture.timers import NO_GPU, WARM_SPAN_S, Timer, timer_for
from gen.model import schema
from gen.model.graph_rule import fallback_reason, median_ci

NOT_ASKED = "CUDA-graph timing not asked for"
GRAPH_WARM_REPLAYS = 3  # replays before timing: the graph's first launch uploads it
BURST_CALLS = 20  # as cuDNN frontend's benchmark and most published tables: a handful of calls
HOST_REF_CALLS = schema.HOST_REF_CALLS  # after each round's host window (Timing.host_ref_ms): ~0.1 ms
BURST_IDLE_S = 1.0  # the GPU idles this long first, so that it starts at its burst clock
W = schema.Window


@dataclass
class Budget:
    """How long to warm up and how many samples to take."""

    warmup_min: int = 10
    warmup_min_s: float = 0.3
    warmup_max_s: float = 2.0
    settle_tol: float = 0.03
    repeats: int = 60  # eager samples at least, over all rounds (fewer for calls slower than round_s)
    min_measure_s: float = 0.45  # all windows together, at least
    max_repeats: int = 1000
    host_repeats: int = 60  # at most, over all rounds
    graph_min_replay_ms: float = 2.0  # one replay at least this long, so launch cost is amortised
    graph_max_calls: int = 200  # calls per graph at most (memory and capture time)
    graph_replays: int = 50  # replays timed at most, over all rounds
    min_rounds: int = 3
    max_rounds: int = 6
    round_s: float = 0.05  # each window of a round lasts about this long
    max_measure_s: float = 3.0  # rounds stop here even when the intervals are wide
    ci_tol: float = 0.005  # GPU-only: the median's 95% interval within ±0.5%
    eager_ci_tol: float = 0.02  # eager and host carry host noise: ±2%
    kernel_sum_calls: int = 3  # profiled eager calls whose kernels are added up
    # The variants of one point replay their graphs in turn this long before the recorded rounds, so
    # that the rounds start in the sustained (power-limited) state rather than the first one timed
    # running cooler than the last.
    heat_s: float = 1.0




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


def ci_rel(xs: list[float]) -> float:
    """Half the width of the median's interval over the median."""
    if len(xs) < 2:
        return math.inf
    med, lo, hi = median_ci(xs)
    return (hi - lo) / 2 / med if med > 0 else math.inf


class Graph:
    """The captured graph of a measurement and its N; capture once, re-capture
    once with N from the replay itself when the eager estimate was too high."""

    def __init__(self, call: Callable, timer: Timer, b: Budget, per_call_ms: float):
        self.timer, self.call = timer, call
        self.n = graph_calls(per_call_ms, b)
        self.graph = timer.capture(call, self.n)
        try:
            # One replay uploads the graph; more only while they are short.
            first = timer.replay_ms(self.graph, 1)
            more = GRAPH_WARM_REPLAYS - 1 if first[0] < WARM_SPAN_S * 1e3 else 1
            replay = statistics.median(timer.replay_ms(self.graph, more))
            better = graph_calls(replay / self.n, b)
            if replay < b.graph_min_replay_ms and better > self.n:
                timer.release(self.graph)
                self.graph, self.n = None, better
                self.graph = timer.capture(call, self.n)
                replay = statistics.median(timer.replay_ms(self.graph, GRAPH_WARM_REPLAYS))
        except BaseException:
            self.release()
            raise
        self.replay_ms = replay

    def samples(self, reps: int) -> list[float]:
        return [s / self.n for s in self.timer.replay_ms(self.graph, reps)]

    def release(self) -> None:
        if self.graph is not None:
            g, self.graph = self.graph, None
            self.timer.release(g)


def eager_chunk(b: Budget, per_call_ms: float) -> int:
    """Eager calls per round: about round_s of them, at least repeats / min_rounds
    when they fit in three rounds' time, at most max_repeats / max_rounds."""
    least = max(1, math.ceil(b.repeats / b.min_rounds))
    n = max(_chunk(b.round_s, per_call_ms, b.max_repeats), min(least, _chunk(3 * b.round_s, per_call_ms, least)))
    return min(n, max(1, b.max_repeats // b.max_rounds))


def _chunk(round_s: float, per_ms: float, cap: int) -> int:
    return max(1, min(cap, math.ceil(round_s * 1e3 / max(per_ms, 1e-6))))


def burst(call: Callable, timer: Timer, sampler=None, calls: int = BURST_CALLS, idle_s: float = BURST_IDLE_S):
    """A handful of calls from an idle GPU, each timed, as publishers often
    time (no warm-up beyond the first call, made before). Returns (ms, telemetry)."""
    timer.sync()
    timer.sleep(idle_s)
    intervals: list = []
    t0 = timer.now()
    ms = timer.loop_ms(call, calls)
    intervals.append((t0, timer.now()))
    return ms, (sampler.of(intervals) if sampler is not None else None)


class _Rounds:
    """The interleaved rounds of one measurement: samples, sizes per round and
    the time intervals of each window (for its telemetry)."""

    def __init__(self, call: Callable, timer: Timer, b: Budget, per_call: float, g: Graph | None, sampler):
        self.call, self.timer, self.b, self.per_call, self.g, self.sampler = call, timer, b, per_call, g, sampler
        self.order = [W.GPU_ONLY, W.EAGER, W.HOST] if g is not None else [W.EAGER, W.HOST]
        self.samples: dict[W, list[float]] = {w: [] for w in self.order}
        self.sizes: dict[W, list[int]] = {w: [] for w in self.order}
        self.intervals: dict[W, list] = {w: [] for w in [*self.order, W.KERNEL_SUM]}
        self.graph_alone = False  # the graph's pool and an eager call did not fit together
        self.rounds = 0
        self.ref = timer.reference()
        self.host_ref: list[float] = []
        self.slots: dict[W, list[int]] = {w: [] for w in self.order}
        self.slot = _Counter()  # the point's sequence of windows: shared by the variants interleaved
        self.spent = 0.0

    def window(self, w: W):
        return self.sampler.window(self.intervals[w]) if self.sampler is not None else _Null()

    def _take(self, w: W) -> list[float]:
        b, timer = self.b, self.timer
        if w == W.GPU_ONLY:
            return self.g.samples(_chunk(b.round_s, self.g.replay_ms, max(1, b.graph_replays // b.min_rounds)))
        if w == W.EAGER:
            return timer.loop_ms(self.call, eager_chunk(b, self.per_call))
        return timer.host_ms(self.call, _chunk(b.round_s, self.per_call, max(1, b.host_repeats // b.min_rounds)))

    def one(self) -> None:
        t0 = self.timer.now()
        for w in self.order:
            if w == W.GPU_ONLY and self.g is None:
                continue
            with self.window(w):
                try:
                    got = self._take(w)
                except Exception as exc:
                    if self.g is None or w == W.GPU_ONLY or not self.timer.is_oom(exc):
                        raise
                    # The graph's own pool holds a call's memory: time it alone, after.
                    self.g.release()
                    self.g, self.graph_alone = None, True
                    got = self._take(w)
            self.samples[w] += got
            self.sizes[w].append(len(got))
            self.slots[w].append(self.slot.next())
            if w == W.HOST and self.ref is not None:
                self.host_ref += self.timer.host_ms(self.ref, HOST_REF_CALLS)
        self.rounds += 1
        self.spent += self.timer.now() - t0

    def run(self) -> None:
        while True:
            self.one()
            if self.done():
                break

    def done(self) -> bool:
        """Enough rounds: past max_rounds, or past min_rounds with the intervals tight or the time spent; below
        max_rounds, only after an even number of rounds: interleaved rounds alternate forward and reversed, and a
        variant follows one neighbour in each, so an odd count weighs one neighbour more and the median takes its
        rounds (3 forward against 2 reversed)."""
        b, elapsed = self.b, self.spent  # its own windows' time: the others' turns do not count
        if self.rounds >= b.max_rounds:
            return True
        return self.rounds % 2 == 0 and self.rounds >= b.min_rounds and (elapsed >= b.max_measure_s or (
            elapsed >= b.min_measure_s and _tight(self.samples, b)))

    def heat(self) -> None:
        """One untimed window of the GPU-only kind (eager where there is no graph): load, not samples."""
        if self.g is not None:
            self.g.samples(_chunk(self.b.round_s, self.g.replay_ms, max(1, self.b.graph_replays)))
        else:
            self.timer.loop_ms(self.call, eager_chunk(self.b, self.per_call))

    def graph_after(self, g: Graph) -> None:
        """GPU-only samples alone, after the others (their memory did not fit together)."""
        self.g, self.samples[W.GPU_ONLY], self.sizes[W.GPU_ONLY] = g, [], []
        self.slots[W.GPU_ONLY] = []
        with self.window(W.GPU_ONLY):
            for _ in range(self.b.min_rounds):
                got = self._take(W.GPU_ONLY)
                self.samples[W.GPU_ONLY] += got
                self.sizes[W.GPU_ONLY].append(len(got))
                self.slots[W.GPU_ONLY].append(self.slot.next())


def _graph_or_reason(call: Callable, timer: Timer, b: Budget, per_call: float, graph: bool, t: schema.Timing):
    if not timer.gpu:
        t.gpu_only_reason = NO_GPU
    elif not graph:
        t.gpu_only_reason = NOT_ASKED
    else:
        try:
            return Graph(call, timer, b, per_call)
        except Exception as exc:  # CUDA, cuDNN, Inductor and Triton raise their own types
            t.gpu_only_method = schema.GpuOnlyMethod.KERNEL_SUM.value
            t.gpu_only_reason = first_line(exc)
    return None


class _Counter:
    def __init__(self):
        self.n = 0

    def next(self) -> int:
        self.n += 1
        return self.n - 1


@dataclass
class Prepared:
    """One call warmed up, its graph captured, ready for rounds (`prepare`, then `interleave` or
    `_Rounds.run`, then `finish`). `context`: what the call must run inside (a backend pin,
    torch.no_grad()), entered around each of its windows when several calls take turns."""

    call: Callable
    timer: Timer
    budget: Budget
    sampler: object
    per_call: float
    rounds: _Rounds
    timing: schema.Timing
    phases: object
    graph: bool
    context: Callable | None = None
    name: str = ""

    def entered(self):
        return self.context() if self.context is not None else _Null()


def prepare(call: Callable, device, budget: Budget, graph: bool = True, timer: Timer | None = None,
            sampler=None, do_burst: bool = False, phases=None, context=None, name: str = "") -> Prepared:
    """The burst (if asked), the warm-up and the graph of `call`: a Prepared for rounds."""
    b = budget
    ph = phases if phases is not None else _NoPhases()
    timer = timer or timer_for(device)
    t = schema.Timing()
    if do_burst:
        with ph("burst"):
            t.burst_ms, tel = burst(call, timer, sampler)
        if tel is not None and getattr(sampler, "ok", False):
            t.telemetry[W.BURST.value] = tel
    with ph("warmup"):
        t.warmup_iters, t.warmup_window_ms = warm_up(call, timer, b)
    per_call = statistics.median(t.warmup_window_ms[-3:])
    with ph("graph"):
        g = _graph_or_reason(call, timer, b, per_call, graph, t)
    return Prepared(call, timer, b, sampler, per_call, _Rounds(call, timer, b, per_call, g, sampler), t, ph,
                    graph, context, name)


def interleave(preps: list[Prepared], heat_s: float | None = None, on_error=None) -> None:
    """The rounds of several calls of one point taken in turn (A, B, C; A, C, B; C, A, B; C, B, A...), each call's three
    windows in its turn, after `heat_s` (default: the first budget's heat_s; none on a CPU) of their
    GPU-only windows in turn, untimed. Rounds go on until every call is done by its own rule
    (`_Rounds.done`); a call done early sits the rest out. Each window's place in the point's sequence
    is kept (Timing.slots), and the calls it took turns with (Timing.interleaved_with). `on_error(p, exc)`:
    a call whose window raised, out of the turns from then on (without it, the error propagates)."""
    if not preps:
        return
    slot = _Counter()
    names = [p.name for p in preps]
    for p in preps:
        p.rounds.slot = slot
        p.timing.interleaved_with = names if len(preps) > 1 else []
    timer = preps[0].timer
    heat = preps[0].budget.heat_s if heat_s is None else heat_s
    active = list(preps)

    def turn(p: Prepared, step: Callable) -> None:
        try:
            with p.phases("rounds"), p.entered():
                step(p.rounds)
        except Exception as exc:
            if on_error is None:
                raise
            active.remove(p)
            on_error(p, exc)

    if timer.gpu and heat > 0:
        _heat(active, turn, timer, heat)
    for p in preps:
        p.timing.interleave_rotated = p.timing.interleave_reversed = len(preps) > 1
    r = 0
    while active:
        for p in _rotated(active, r):
            p in active and turn(p, _Rounds.one)
        active[:] = [p for p in active if not p.rounds.done()]
        r += 1


def _rotated(active: list, r: int) -> list:
    """Round r's order: r places further on, and backwards in odd rounds. A rotation alone moves the start but keeps
    each call's neighbours (each follows the same one every round); running every other round backwards changes
    whom a call follows, so the heat and power a window inherits from the one before it falls on each call in turn."""
    k = r % len(active)
    order = active[k:] + active[:k]
    return order[::-1] if r % 2 else order


def _heat(active: list[Prepared], turn: Callable, timer: Timer, heat_s: float) -> None:
    t0 = timer.now()
    while active and timer.now() - t0 < heat_s:
        for p in list(active):
            turn(p, _Rounds.heat)


def measure(call: Callable, device, budget: Budget, graph: bool = True, timer: Timer | None = None,
            sampler=None, profiled: Callable[[], list | None] | None = None,
            do_burst: bool = False, phases=None) -> schema.Timing:
    """Warm up; then GPU-only, eager and host samples of `call` in interleaved
    rounds; then the profiled calls and the graph check (see the module doc).
    `profiled()` runs the profiled eager calls and returns their GPU work, one
    (names, ms) per call, or None where there is none (a CPU). One call timed alone:
    `prepare`, `interleave` and `finish` time several in turn."""
    p = prepare(call, device, budget, graph, timer, sampler, do_burst, phases)
    try:
        with p.phases("rounds"):
            p.rounds.run()
    except BaseException:
        p.rounds.g is not None and p.rounds.g.release()
        raise
    return finish(p, profiled)


def release(p: Prepared) -> None:
    """Free a Prepared's graph (a point given up half-way)."""
    if p.rounds.g is not None:
        p.rounds.g.release()


def finish(p: Prepared, profiled: Callable[[], list | None] | None = None) -> schema.Timing:
    """After the rounds: the graph timed alone where its memory did not fit beside the eager calls,
    the graph's work listed, the profiled calls, and the Timing filled in."""
    r, t, timer, b, ph, call, sampler = p.rounds, p.timing, p.timer, p.budget, p.phases, p.call, p.sampler
    n, graph_work = None, None
    try:
        with ph("rounds"):
            if r.graph_alone:
                r.graph_after(Graph(call, timer, b, p.per_call))
        if r.g is not None:
            with ph("graph_work"):
                n, graph_work = r.g.n, timer.graph_work(r.g.graph)
    finally:
        if r.g is not None:
            r.g.release()
    work = None
    if profiled is not None:
        with r.window(W.KERNEL_SUM), ph("profiled"):
            work = profiled()
    t.rounds = r.rounds
    t.eager_ms, t.host_ms = r.samples[W.EAGER], r.samples[W.HOST]
    t.host_ref_ms = r.host_ref
    t.round_sizes = {w.value: s for w, s in r.sizes.items() if s}
    t.slots = {w.value: s for w, s in r.slots.items() if s}
    t.kernel_sum_ms = [ms for _, ms in work] if work else []
    _telemetry(t, sampler, r.intervals)
    if n is not None:
        t.calls_per_replay, t.gpu_only_ms = n, r.samples[W.GPU_ONLY]
        t.gpu_only_method = schema.GpuOnlyMethod.CUDA_GRAPH.value
        t.graph_check = compare_work(graph_work, list(work[0][0]) if work else None, n)
        reason = fallback_reason(t)
        if reason is not None and t.kernel_sum_ms:
            t.graph_ms, t.gpu_only_ms = t.gpu_only_ms, list(t.kernel_sum_ms)
            t.gpu_only_method, t.gpu_only_reason = schema.GpuOnlyMethod.KERNEL_SUM.value, reason
    return t


class _NoPhases:
    def __call__(self, name: str):
        return _Null()


def _telemetry(t: schema.Timing, sampler, intervals: dict) -> None:
    if sampler is not None and getattr(sampler, "ok", False):
        t.telemetry.update({w.value: sampler.of(iv) for w, iv in intervals.items() if iv})
        # Each round's window on its own, so that every time can be shown with its conditions.
        t.round_telemetry = {w.value: [sampler.of([x]) for x in iv] for w, iv in intervals.items()
                             if len(iv) > 1 and w != W.KERNEL_SUM}
    elif sampler is not None:
        t.telemetry, t.telemetry_reason = {}, sampler.reason


def _tight(samples: dict, b: Budget) -> bool:
    for w, xs in samples.items():
        tol = b.ci_tol if w == W.GPU_ONLY else b.eager_ci_tol
        if ci_rel(xs) > tol:
            return False
    return True


class _Null:
    def __enter__(self):
        return []

    def __exit__(self, *exc):
        return False


def describe(t: schema.Timing) -> str:
    """One line of medians for the capture log."""
    def med(xs):
        return f"{statistics.median(xs):.4f}" if xs else "-"

    if t.gpu_only_method == schema.GpuOnlyMethod.CUDA_GRAPH:
        gpu = f"graph {med(t.gpu_only_ms)} ms (N={t.calls_per_replay})"
    elif t.graph_ms:
        gpu = f"kernel sum {med(t.gpu_only_ms)} ms (graph {med(t.graph_ms)} ms set aside: {t.gpu_only_reason})"
    else:
        gpu = f"graph - ({t.gpu_only_method or 'none'}: {t.gpu_only_reason})"
    out = f"{gpu}, eager {med(t.eager_ms)} ms, host {med(t.host_ms)} ms, {t.rounds} rounds"
    if t.burst_ms:
        out += f", burst {med(t.burst_ms)} ms"
    tel = t.telemetry.get(W.GPU_ONLY.value) or t.telemetry.get(W.EAGER.value)
    if tel is not None and tel.sm_clock_mhz is not None:
        out += f", {tel.sm_clock_mhz:.0f} MHz {tel.power_w or 0:.0f} W"
    return out
