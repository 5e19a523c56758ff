"""The scenario sweep and the GPU's ceilings.

Takes: variants (gen.model.variants), scenarios (gen.model.scenarios), a
device, a staging folder and a deadline. Gives: `run_sweep(...) ->
list[schema.SweepPoint]`, one per (scenario, mode, point, variant), each with
its status (ok, or unavailable with PyTorch's reason, oom, skipped with why),
three labelled timings (gen.capture.timing), peak memory, the error against
float64 on a slice, and a trace of one profiled call; and `ceilings(device)`,
the GPU's measured matmul and copy limits.

Order: compiled variants last (they compile again at every shape), so that
the time limit costs the fewest points; within a series, lengths grow and a
point predicted to end past the deadline is skipped, one after an OOM is not
tried. Imports torch, the standard library and gen.model only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import math
import statistics
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch

from gen.capture import probe, staging, timers, timing
from gen.capture.attention import AUTOTUNE_ROOM_SHARE, build
from gen.capture.inputs import (
    DTYPES,
    check_heads,
    grad_output,
    make_inputs,
    reference_grads,
    reference_slice,
    rel_error,
)
from gen.capture.progress import Phases
from gen.capture.timers import timer_for
from gen.capture.timing import Budget, describe, warm_up
from gen.model import schema
from gen.model.scenarios import ARTICLE, Scenario
from gen.model.variants import Variant

# Short: a sweep has many points; the profiled runs take the full budget.
SWEEP_BUDGET = Budget(warmup_min=3, warmup_min_s=0.05, warmup_max_s=0.4, settle_tol=0.05, repeats=12,
                      min_measure_s=0.15, max_repeats=200, host_repeats=12, graph_replays=24, min_rounds=3,
                      max_rounds=5, round_s=0.02, max_measure_s=1.5)
# A point whose call is predicted (from the last point of its series) to take
# longer than this is not run: at that length the variant is far off every
# other (the naive product at 16k tokens), and a few calls of it would take
# a large share of the whole capture's budget.
MAX_CALL_MS = 250.0
# Likewise a first call (compile, autotuning at that length, plans) predicted
# past this: on the H200 the compiled naive product's first call took 17 s at
# 8k tokens and 72 s at 16k (its Triton kernels benchmarked at each length).
MAX_FIRST_CALL_S = 30.0


def budget_for(run: Budget) -> Budget:
    """The sweep's budget: SWEEP_BUDGET, cut further where the runs' budget is
    smaller (--quick), field by field."""
    return Budget(**{f.name: min(getattr(SWEEP_BUDGET, f.name), getattr(run, f.name))
                     for f in dataclasses.fields(Budget)})


# Kept to write the set after the last point the time limit lets start.
WRITE_MARGIN_S = 30.0


@dataclass(frozen=True)
class Job:
    """One planned sweep point."""

    scenario: Scenario
    mode: str
    point: schema.Point
    variant: Variant
    trace: str | None  # path relative to the set, None: no trace kept


def trace_name(scenario: str, variant: str, mode: str, p: schema.Point, article_default_dim: int | None) -> str | None:
    """Unique per scenario. The article's inference sweep keeps its schema-1
    names, with traces at its own head dim only (as before)."""
    if scenario == ARTICLE and mode == schema.Mode.INFERENCE:
        if p.head_dim != article_default_dim:
            return None
        return f"{schema.TRACE_DIR}/sweep__{variant}__s{p.kv_len}_d{p.head_dim}.json.gz"
    return f"{schema.TRACE_DIR}/{scenario}__{variant}__{mode}__q{p.q_len}_k{p.kv_len}.json.gz"


def plan(variants: list[Variant], scenarios: list[Scenario], modes: list[str]) -> list[list[Job]]:
    """Series of jobs (one scenario, mode, head dim and variant; lengths
    growing), compiled variants' series last."""
    series = []
    for compiled in (False, True):
        for s in scenarios:
            groups = [(schema.Mode.INFERENCE.value, s.points())]
            if schema.Mode.TRAIN in modes:
                groups.append((schema.Mode.TRAIN.value, s.train_points()))
            for mode, points in groups:
                for dim in dict.fromkeys(p.head_dim for p in points):
                    for v in s.variants_for(variants):
                        if v.compiled != compiled:
                            continue
                        jobs = [Job(s, mode, p, v, trace_name(s.name, v.name, mode, p, s.head_dim))
                                for p in points if p.head_dim == dim]
                        if jobs:
                            series.append(jobs)
    return series


def predicted_call_ms(last_ms: float, prev: schema.Point, nxt: schema.Point) -> float:
    """The next point's time per call from the last one's (work grows with q_len x kv_len)."""
    return last_ms * (nxt.kv_len / prev.kv_len) * (nxt.q_len / prev.q_len)


def predicted_s(last_s: float, prev: schema.Point, nxt: schema.Point, compiled: bool) -> float:
    """The next point's time from the last one's: prefill work grows with
    q_len x kv_len, decode with kv_len; a compiled variant's time is mostly
    its compile, which grows more slowly."""
    ratio = nxt.kv_len / prev.kv_len
    work = ratio * (nxt.q_len / prev.q_len)
    return last_s * (ratio if compiled else max(work, 1.0))


def job_key(job: Job) -> str:
    return staging.key_of("sweep", job.scenario.name, job.mode, job.variant.name, point=job.point)


def point_groups(series: list[list[Job]]) -> list[list[Job]]:
    """The jobs of `plan` by point: every variant of one (scenario, mode, point) together, timed in turn
    (its variants in plan's order, compiled ones last); the groups of one scenario, mode and head dim
    together, lengths growing as in plan."""
    by: dict[tuple, list[Job]] = {}
    runs: dict[tuple, list] = {}
    for jobs in series:
        for j in jobs:
            by.setdefault((j.scenario.name, j.mode, j.point), []).append(j)
            run = runs.setdefault((j.scenario.name, j.mode, j.point.head_dim), [])
            if j.point not in run:
                run.append(j.point)
    return [by[(sc, mode, pt)] for (sc, mode, _), pts in runs.items() for pt in pts]


def run_sweep(variants: list[Variant], scenarios: list[Scenario], modes: list[str], device: torch.device,
              staging_dir: Path, deadline: float, seed: int = 0, budget: Budget | None = None, store=None,
              sampler=None, progress=None, bursts: set | None = None,
              ahead: dict | None = None) -> list[schema.SweepPoint]:
    """Every job of `plan`, each a SweepPoint; `deadline` is time.monotonic().
    The variants of one point are prepared one after another (built, checked, warmed up, their graphs
    captured and held), then timed in interleaved rounds (gen.capture.timing.interleave), so that each
    point's variants share the GPU's conditions; a variant that does not fit in memory beside the
    others is timed alone after them. With a `store` (gen.capture.staging), a point kept there is read
    back, not measured; each point measured is kept as its group ends. `bursts`: keys
    (scenario, variant, mode, point) also timed from an idle GPU. `ahead`: {job
    key: first call s} of points a side process compiled first (gen.capture.precompile)."""
    budget = budget or SWEEP_BUDGET
    series = plan(variants, scenarios, modes)
    # What lives now (torch, the runs) lives to the end: the collections
    # between points need not walk it again.
    gc.collect()
    gc.freeze()
    total = sum(len(s) for s in series)
    out: list[schema.SweepPoint] = []
    totals = Phases()
    growth = _Growth()
    sweep = _Sweep(device, budget, staging_dir, seed, sampler, bursts, ahead or {}, store, progress, totals, total,
                   deadline, growth)
    for group in point_groups(series):
        sweep.group(group, out)
    if totals:
        probe.log("  sweep, seconds by phase over every point: " + totals.line())
    return out


@dataclass
class _Sweep:
    """What every point of a sweep shares, and its bookkeeping once a point is done."""

    device: object
    budget: Budget
    staging_dir: Path
    seed: int
    sampler: object
    bursts: set | None
    ahead: dict
    store: object
    progress: object
    totals: Phases
    total: int
    deadline: float
    growth: _Growth
    seen_by: dict = dataclasses.field(default_factory=dict)  # (scenario, mode, head dim, variant) -> _Series

    def _seen(self, job: Job) -> _Series:
        skey = (job.scenario.name, job.mode, job.point.head_dim, job.variant.name)
        return self.seen_by.setdefault(skey, _Series(growth=self.growth, key=(job.variant.name, job.mode),
                                                     scenario=job.scenario.name))

    def _burst(self, job: Job) -> bool:
        return self.bursts is not None and burst_key(job) in self.bursts

    def group(self, group: list[Job], out: list) -> None:
        """One point's variants: kept ones read back, the others prepared in turn, timed in
        interleaved rounds, finished and kept; one that ran out of memory beside the others, alone after."""
        device, staging_dir = self.device, self.staging_dir
        ready, alone = [], []
        for job in group:
            seen, key = self._seen(job), job_key(job)
            kept = self.store.get(key) if self.store is not None else None
            if kept is not None:
                p = staging.load(schema.SweepPoint, kept["record"], f"{self.store.path}/items/{key}.json")
                self.done(job, p, seen, kept.get("seconds", 0.0), Phases(kept.get("phases") or {}), out, kept=True)
                continue
            phases, t0 = Phases(), time.monotonic()
            p = schema.SweepPoint(variant=job.variant.name, point=job.point, status=schema.Status.OK.value,
                                  scenario=job.scenario.name, mode=job.mode)
            p.reason = _not_run(job, seen, self.deadline, device)
            if p.reason is not None:
                p.status = schema.Status.OOM.value if seen.oom_at is not None else schema.Status.SKIPPED.value
                self.done(job, p, seen, time.monotonic() - t0, phases, out)
                continue
            p, r = _prepare_point(job, device, self.budget, staging_dir, self.seed, self.sampler, self._burst(job),
                                  phases)
            if r is not None:
                ready.append((r, seen))
            elif p.status == schema.Status.OOM and ready:
                alone.append((job, seen))  # perhaps the others' memory: alone, after them
            else:
                p = _settled(p, job, device, staging_dir, phases, self.ahead.get(key))
                self.done(job, p, seen, time.monotonic() - t0, phases, out)
        retry: list[_Ready] = []
        still = _interleave([r for r, _ in ready], device, retry)
        alone += [(r.job, seen) for r, seen in ready if r in retry]
        ready = [(r, seen) for r, seen in ready if r not in retry]
        retry.clear()  # their tensors: freed before they run alone
        for r, seen in ready:
            p = _finish_point(r, device) if r in still else r.p
            p = _settled(p, r.job, device, staging_dir, r.phases, self.ahead.get(job_key(r.job)), free=False)
            self.done(r.job, p, seen, r.seconds + r.phases.get("rounds", 0.0), r.phases, out)
        ready.clear()
        still.clear()
        if alone or self.device.type == "cuda":
            probe.free(device, collect=True)
        for job, seen in alone:
            phases, t0 = Phases(), time.monotonic()
            p = sweep_point(job, device, self.budget, staging_dir, self.seed, sampler=self.sampler,
                            burst=self._burst(job), phases=phases, ahead_s=self.ahead.get(job_key(job)))
            self.done(job, p, seen, time.monotonic() - t0, phases, out)

    def done(self, job: Job, p: schema.SweepPoint, seen: _Series, seconds: float, phases: Phases, out: list,
             kept: bool = False) -> None:
        if not kept and self.store is not None:
            self.store.put(job_key(job), {"kind": "sweep", "stage": f"sweep {job.scenario.name}",
                                          "record": dataclasses.asdict(p), "seconds": seconds,
                                          "phases": {k: round(x, 4) for k, x in phases.items()}})
        seen.add(p, job.point, seconds)
        out.append(p)
        for k, x in phases.items():
            self.totals[k] = self.totals.get(k, 0.0) + x
        if self.progress is not None and not kept:
            self.progress.done(f"sweep {job.scenario.name}", seconds)
        _log_point(p, job, len(out), self.total, seconds, kept, self.progress, phases)


def _log_point(p: schema.SweepPoint, job: Job, i: int, total: int, seconds: float, kept: bool, progress,
               phases: Phases | None = None) -> None:
    what = describe(p.timing) if p.status == schema.Status.OK else f"{p.status} ({p.reason})"
    pt = job.point
    tail = f" in {seconds:.1f} s" + (f" [{phases.line()}]" if phases else "")
    tail += f", {progress.suffix()}" if progress is not None else ""
    if kept:
        tail = " (kept from an earlier session)"
    probe.log(f"  sweep [{i}/{total}] {job.scenario.name} {job.mode} {job.variant.name} "
              f"q={pt.q_len} kv={pt.kv_len} D={pt.head_dim}: {what}"
              + (f", err {p.rel_error:.1e}" if p.rel_error is not None else "") + tail)


@dataclass
class _Growth:
    """What every series of the run said so far about the first calls of a
    variant in one mode: (scenario, point, first call s) over
    FIRST_CALL_FLOOR_S, and the largest growth exponent one series showed.
    A series with too few first calls of its own (the article's D=128 points,
    the sliding window's one 16k point) is predicted from these."""

    firsts: dict = dataclasses.field(default_factory=dict)  # (variant, mode) -> [(scenario, point, s)]
    exponent: dict = dataclasses.field(default_factory=dict)  # (variant, mode) -> exponent


@dataclass
class _Series:
    """What the measured points of one series (lengths growing) say about the next."""

    oom_at: int | None = None  # the first length that ran out of memory
    last_s: float = 0.0  # the last measured point's seconds, all phases
    prev: schema.Point | None = None  # the last measured point
    last_ms: float | None = None  # its time per call
    firsts: list = dataclasses.field(default_factory=list)  # (point, first call s) where over FIRST_CALL_FLOOR_S
    growth: _Growth | None = None  # the run's, shared by its series
    key: tuple = ()  # (variant, mode)
    scenario: str = ""
    flat: bool = False  # a first call under FIRST_CALL_FLOOR_S came after one over it

    def add(self, p: schema.SweepPoint, point: schema.Point, seconds: float) -> None:
        if p.status == schema.Status.OK:
            self.last_s, self.prev = seconds, point
            times = p.timing.gpu_only_ms or p.timing.eager_ms
            self.last_ms = statistics.median(times) if times else None
            if self.firsts and p.first_call_s is not None and p.first_call_s <= FIRST_CALL_FLOOR_S:
                self.flat = True  # more work, and the first call fell back under a second: no growth
            if p.first_call_s and p.first_call_s > FIRST_CALL_FLOOR_S:
                self.firsts.append((point, p.first_call_s))
                if self.growth is not None:
                    self.growth.firsts.setdefault(self.key, []).append((self.scenario, point, p.first_call_s))
                    own = self._own_exponent()
                    if own is not None:
                        self.growth.exponent[self.key] = max(own, self.growth.exponent.get(self.key, 0.0))
        elif p.status == schema.Status.OOM and self.oom_at is None and not (p.reason or "").startswith("not run"):
            self.oom_at = point.kv_len

    def _own_exponent(self) -> float | None:
        if len(self.firsts) < 2:
            return None
        (p0, f0), (p1, f1) = self.firsts[-2:]
        w = _work(p1) / _work(p0)
        return min(1.0, max(0.0, math.log(f1 / f0) / math.log(w))) if w > 1.0 else None

    def first_call_s(self, nxt: schema.Point) -> tuple[float, float, str, str] | None:
        """(predicted first call, growth exponent, from what, whose growth) at `nxt`: a
        measured first call times the work ratio raised to an exponent (0 to
        1; 0: a compile's cost is mostly fixed, and only autotuning, which
        runs the kernels, grows with the work). From the series' last first
        call with the exponent its last two showed; with fewer than two, the
        largest exponent the variant showed in another series; with none, from
        the variant's largest first call (at no more work than this point's,
        and at least 1/MAX_CROSS_WORK_RATIO of it) in each other scenario
        (the same Python, the same kernels), the one that predicts the most."""
        shared = self.growth.exponent.get(self.key) if self.growth is not None else None
        if self.firsts:
            (p1, f1) = self.firsts[-1]
            own = self._own_exponent()
            exponent = own if own is not None else (0.0 if self.flat else shared or 0.0)
            whose = "the first calls so far" if own is not None or self.flat or not shared else \
                "the variant's first calls in another series"
            return (f1 * max(1.0, _work(nxt) / _work(p1)) ** exponent, exponent,
                    f"{f1:.1f} s at {p1.kv_len} tokens", whose)
        others = [(sc, p, f) for sc, p, f in (self.growth.firsts.get(self.key, []) if self.growth else [])
                  if _work(p) <= _work(nxt) <= _work(p) * MAX_CROSS_WORK_RATIO]
        if not others or shared is None:
            return None
        # Each scenario's largest first call (a small one is mostly the compile's fixed cost)...
        top = {sc: max((x for x in others if x[0] == sc), key=lambda x: _work(x[1])) for sc, _, _ in others}
        # ...and of those, the one that predicts the most.
        sc, p1, f1 = max(top.values(), key=lambda x: x[2] * (_work(nxt) / _work(x[1])) ** shared)
        return (f1 * (_work(nxt) / _work(p1)) ** shared, shared,
                f"{f1:.1f} s at {sc}'s {p1.kv_len} tokens (B={p1.batch}, {p1.q_heads} query heads)",
                "the variant's first calls in another series")


def _work(p: schema.Point) -> float:
    """The size of the score matrix: what the compiled naive product's autotuner runs its kernels over."""
    return float(p.batch) * float(p.q_heads) * float(p.q_len) * float(p.kv_len)


# A first call shorter than this is plans and loading, not a compile: it says nothing of the next.
FIRST_CALL_FLOOR_S = 1.0
# Another scenario's first call predicts this one's only from at most this many times less work: one
# decode step's score matrix is hundreds of times smaller than a 16k prefill's, and its compile
# (1 to 2 s, whatever the cache) says nothing of the prefill's autotuning. (A first H200 capture without
# this bound skipped the sliding window's FlexAttention, predicted 37 s from decode's 1.8 s.)
MAX_CROSS_WORK_RATIO = 16.0


# The compiled naive product writes its score matrix in place, so Inductor's autotuner must keep the
# matrix safe while it times candidate configs: a clone on the GPU where the peak memory seen so far
# leaves room for it (attention.room_for_autotuning lends half the free memory), else a pinned host
# copy made for every candidate and copied back after every timed call (triton_heuristics'
# copy_args_to_cpu_if_needed and restore_args_from_cpu). On the H200 that took 16.6 s of a 21.3 s
# first call at 8k tokens (17 GB; 4.7 s with the room: benchmarks/data/compile_probe_room.json), and it
# grows with the matrix: a point whose matrix is past the room is not run.
SCORE_BYTES = 2  # bf16


def _autotune_copies(job: Job, device: torch.device) -> str | None:
    """Why a compiled naive point is not run: its score matrix is past the room the autotuner's copy has."""
    if job.variant.kind != "naive_compiled" or device.type != "cuda" or not torch.cuda.is_available():
        return None
    pt = job.point
    scores = pt.batch * pt.q_heads * pt.q_len * pt.kv_len * SCORE_BYTES
    free, total = torch.cuda.mem_get_info(device)
    if scores > free:
        # free is what this process left, not the GPU's capacity: say both (review item 17)
        return (f"not run: the {scores / 1e9:.0f} GB score matrix alone is more than the {free / 1e9:.0f} GB left "
                f"free on the GPU at this point (of its {total / 1e9:.0f} GB; the rest held by the capture)")
    # The room is a share of the free memory, and the matrix itself is allocated out of it first.
    if scores <= free * AUTOTUNE_ROOM_SHARE - scores:
        return None
    return (f"not run: the first call's autotuner would keep a pinned host copy of the {scores / 1e9:.0f} GB "
            f"score matrix for every candidate config and copy it back after every timed call, the matrix being "
            f"more than the room the capture lends the autotuner on the GPU (half the free memory, "
            f"{free * AUTOTUNE_ROOM_SHARE / 1e9:.0f} GB, less the matrix itself); "
            f"benchmarks/data/compile_probe_room.json measured that path at 8k tokens")


def _not_run(job: Job, seen: _Series, deadline: float, device: torch.device) -> str | None:
    """Why a point is not run, or None: an OOM at a shorter length, a call or
    a first call predicted past MAX_CALL_MS or MAX_FIRST_CALL_S, a score matrix
    the autotuner must copy to the host, or the run's time limit."""
    if seen.oom_at is not None:
        return f"not run: out of memory already at {seen.oom_at} tokens"
    if (copies := _autotune_copies(job, device)) is not None:
        return copies
    prev = seen.prev
    # On a GPU only: a CPU's times (a capture for tests) move with its load.
    first = seen.first_call_s(job.point) if device.type == "cuda" else None
    if first is not None and first[0] > MAX_FIRST_CALL_S:
        return (f"not run: predicted a first call of {first[0]:.0f} s from {first[2]} "
                f"({first[3]} grew as the work to the power {first[1]:.2f}), over the "
                f"{MAX_FIRST_CALL_S:.0f} s that a whole capture in minutes allows")
    if prev is not None and seen.last_ms and device.type == "cuda":
        call_ms = predicted_call_ms(seen.last_ms, prev, job.point)
        if call_ms > MAX_CALL_MS:
            return (f"not run: predicted {call_ms:.0f} ms a call from {seen.last_ms:.1f} ms at {prev.kv_len} "
                    f"tokens (work grows with q_len x kv_len), over the {MAX_CALL_MS:.0f} ms a call that a whole "
                    f"capture in minutes allows")
    predicted = predicted_s(seen.last_s, prev, job.point, job.variant.compiled) if prev else 0.0
    if time.monotonic() + predicted > deadline - WRITE_MARGIN_S:
        return (f"not run: predicted {predicted:.0f} s from the last point, past the run's time limit"
                if prev else "not run: the run's time limit was reached")
    return None


def burst_key(job: Job) -> tuple:
    return (job.scenario.name, job.variant.name, job.mode, job.point)


def _check(built, train: bool, point: schema.Point, q, k, v, go, device, first: list) -> float:
    """The first call (it compiles, plans or refuses) checked against float64
    on a slice: one batch element and two query heads (inference), or one KV
    head and its query heads' gradients (train). The full float64 reference
    at these lengths would not fit."""
    t0 = time.perf_counter()
    if not train:
        heads = check_heads(point)
        out = built.fn(q, k, v)
        probe.sync(device)
        first.append(time.perf_counter() - t0)
        return rel_error(out[0, heads], reference_slice(q, k, v, point, heads))
    built.fn(q, k, v).backward(go)
    probe.sync(device)
    first.append(time.perf_counter() - t0)
    groups = point.q_heads // point.kv_heads
    want = reference_grads(q, k, v, go, point)
    got = (q.grad[0, :groups], k.grad[0, 0], v.grad[0, 0])
    return max(rel_error(a, b) for a, b in zip(got, want))


@dataclass
class _Ready:
    """A point built, checked and warmed up, its graph captured: waiting for its rounds."""

    job: Job
    p: schema.SweepPoint
    prep: timing.Prepared
    profiled: object
    context: object
    phases: Phases
    seconds: float = 0.0  # its own: preparation, then finish (the rounds' time is in phases)


def sweep_point(job: Job, device: torch.device, budget: Budget, staging: Path, seed: int = 0, sampler=None,
                burst: bool = False, phases: Phases | None = None, ahead_s: float | None = None) -> schema.SweepPoint:
    """One variant at one scenario point, timed alone; a refusal or an OOM is a status, never a crash.
    `phases` gets the seconds of each phase (build, first call, warm-up...). `ahead_s`: a side
    process's first call of this point (its compile, gen.capture.precompile)."""
    ph = phases if phases is not None else Phases()
    p, ready = _prepare_point(job, device, budget, staging, seed, sampler, burst, ph)
    if ready is not None:
        _interleave([ready], device)
        p = _finish_point(ready, device)
    return _settled(p, job, device, staging, ph, ahead_s)


def _settled(p: schema.SweepPoint, job: Job, device, staging: Path, ph: Phases, ahead_s: float | None,
             free: bool = True) -> schema.SweepPoint:
    if ahead_s is not None and p.compile_time_s is not None:
        p.compile_time_s, p.compiled_ahead = ahead_s, True
    # Here, not inside: the point's tensors and graphs are unreferenced only
    # once that frame is gone, and the next point may need all the memory.
    # Reference counting frees a plain call's tensors; a collection (0.15 s
    # with torch loaded) only where cycles are likely: a compiled variant,
    # or a point that raised (its traceback holds the frame).
    if free:
        with ph("free"):
            probe.free(device, collect=job.variant.compiled or p.status != schema.Status.OK)
    if p.status != schema.Status.OK:
        # A point that failed half-way keeps no timing or trace of its own.
        p.timing, p.trace = schema.Timing(), None
        if job.trace:
            (staging / job.trace).unlink(missing_ok=True)
    return p


def _failed(p: schema.SweepPoint, exc: BaseException, caught: list) -> schema.SweepPoint:
    if isinstance(exc, torch.OutOfMemoryError):
        p.status, p.reason = schema.Status.OOM.value, probe.out_of_memory(exc)
    else:  # a refused shape, a compiler error: a point, not a crash
        p.status, p.reason = schema.Status.UNAVAILABLE.value, probe.refusal(exc, caught)
    return p


def _interleave(ready: list[_Ready], device, retry: list | None = None) -> list[_Ready]:
    """The rounds of the ready points of one point in turn (gen.capture.timing.interleave); a
    point whose window raises is marked failed and sits the rest out, or, out of memory beside
    others, goes to `retry` (to be timed alone). Returns those still ready."""
    failed: list = []

    def on_error(prep, exc):
        r = next(x for x in ready if x.prep is prep)
        timing.release(prep)
        if retry is not None and len(ready) > 1 and isinstance(exc, torch.OutOfMemoryError):
            retry.append(r)
        else:
            _failed(r.p, exc, [])
        failed.append(r)

    timing.interleave([r.prep for r in ready], on_error=on_error)
    return [r for r in ready if r not in failed]


def _both(built, train: bool):
    @contextlib.contextmanager
    def entered():
        with built.context(), probe.mode_context(train):
            yield
    return entered


def _prepare_point(job: Job, device: torch.device, budget: Budget, staging: Path, seed: int, sampler,
                   burst: bool, ph: Phases) -> tuple[schema.SweepPoint, _Ready | None]:
    """Build, first call checked against float64, peak memory, warm-up and graph: (the point, its
    _Ready), or (the point with its status, None) where it stopped before its rounds."""
    t0 = time.monotonic()
    v, point, train = job.variant, job.point, job.mode == schema.Mode.TRAIN
    p = schema.SweepPoint(variant=v.name, point=point, status=schema.Status.OK.value, scenario=job.scenario.name,
                          mode=job.mode)
    if train and not v.train:
        p.status, p.reason = schema.Status.UNAVAILABLE.value, "this variant declares no training run"
        return p, None
    # The declared dtype first: a variant refused while building still says what it would have run.
    p.dtype = getattr(v, "dtype", None) or job.scenario.dtype
    caught: list = []
    try:
        # Warnings are recorded while building and on the first call only: a
        # pinned backend says there why it refuses; the timed loops run bare.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with ph("build"):
                built = build(v.kind, v.backend, point, device)
                p.dtype, p.facts = built.dtype or job.scenario.dtype, dict(built.facts)
                q, k, v_ = make_inputs(point, DTYPES[p.dtype], device, seed, grad=train, layout=built.layout)
                go = grad_output(point, DTYPES[job.scenario.dtype], device, seed + 7) if train else None
                if built.explain is not None:
                    p.sdpa_choice, p.backend_reasons = built.explain(q, k, v_)
            with built.context(), probe.mode_context(train), ph("first+check"):
                first: list[float] = []
                p.rel_error = _check(built, train, point, q, k, v_, go, device, first)
                p.first_call_s = first[0]
                if built.compiled:
                    p.compile_time_s = first[0]
        step = probe.call(built, q, k, v_, go)
        with ph("memory"):
            probe.free(device, collect=False)
            with built.context(), probe.mode_context(train):
                q.grad = k.grad = v_.grad = None
                p.peak_memory_bytes, p.baseline_memory_bytes = probe.peak_memory(step, device)
        context = _both(built, train)
        with context():

            def profiled():
                # The kernels of profiled eager calls: the trace kept, and the
                # kernel sum that stands in where the graph runs other work.
                work: list = []
                path = staging / job.trace if job.trace else None
                probe.profile_to(step, path, device, 0, 1, budget.kernel_sum_calls, work=work)
                return work or None

            prep = timing.prepare(step, device, budget, graph=True, sampler=sampler, do_burst=burst, phases=ph,
                                  context=context, name=v.name)
        if train:
            with context(), ph("fwd+bwd"):
                _fwd_bwd(prep.timing, built, q, k, v_, go, device, budget)
    except Exception as exc:  # noqa: BLE001 - a refusal, an OOM, a compiler error: a status
        return _failed(p, exc, caught), None
    return p, _Ready(job, p, prep, profiled, context, ph, time.monotonic() - t0)


def _finish_point(r: _Ready, device) -> schema.SweepPoint:
    """After the rounds: the graph's work, the profiled calls and the trace."""
    t0 = time.monotonic()
    p = r.p
    if p.status != schema.Status.OK:
        return p
    try:
        with r.context():
            p.timing = timing.finish(r.prep, r.profiled)
        if r.job.trace:
            p.trace = r.job.trace
    except Exception as exc:  # noqa: BLE001 - as in _prepare_point
        timing.release(r.prep)
        _failed(p, exc, [])
    r.seconds += time.monotonic() - t0
    return p


def _fwd_bwd(t: schema.Timing, built, q, k, v, go, device, budget: Budget) -> None:
    """Training: the forward and the backward of one step timed apart (Timing.fwd_ms, bwd_ms)."""
    try:
        t.fwd_ms, t.bwd_ms, t.fwd_bwd_method = timers.fwd_bwd_ms(built.fn, q, k, v, go, device,
                                                               calls=max(3, budget.repeats // 2))
    except torch.OutOfMemoryError as exc:
        t.fwd_bwd_reason = probe.out_of_memory(exc)
    except Exception as exc:  # noqa: BLE001 - the step itself ran: its split is a detail, not the point's status
        t.fwd_bwd_reason = timing.first_line(exc)


# --------------------------------------------------------------------------- ceilings


CEILING_BUDGET = Budget(warmup_min=5, warmup_min_s=0.3, warmup_max_s=1.5, repeats=20, min_measure_s=0.5)


def _sustained(fn, device: torch.device, sampler) -> tuple[list[float], schema.Telemetry | None]:
    """Warm-up until settled, then back-to-back calls for min_measure_s: the sustained figure."""
    timer = timer_for(device)
    b = CEILING_BUDGET
    warm_up(fn, timer, b)
    intervals: list = []
    with (sampler.window(intervals) if sampler is not None else contextlib.nullcontext()):
        ms = timer.loop_ms(fn, 3)
        n = max(b.repeats, min(b.max_repeats, math.ceil(b.min_measure_s * 1e3 / max(statistics.median(ms), 1e-6))))
        ms = timer.loop_ms(fn, n)
    tel = sampler.of(intervals) if sampler is not None and sampler.ok else None
    return ms, tel


def _matmul_ms(device: torch.device, n: int, sampler=None):
    a, b = (torch.randn(n, n, device=device, dtype=torch.bfloat16) for _ in range(2))
    return _sustained(lambda: a @ b, device, sampler)


def _copy_ms(device: torch.device, elems: int, sampler=None):
    src = torch.randn(elems // 1024, 1024, device=device).to(torch.bfloat16).flatten()
    dst = torch.empty_like(src)
    ms, tel = _sustained(lambda: dst.copy_(src), device, sampler)
    return ms, 2 * src.numel() * src.element_size(), tel  # bytes read plus bytes written


def _read_ms(device: torch.device, elems: int, sampler=None):
    """A reduction over a large buffer: it reads every byte once and writes one number."""
    src = torch.randn(elems // 1024, 1024, device=device).to(torch.bfloat16).flatten()
    ms, tel = _sustained(lambda: src.sum(dtype=torch.float32), device, sampler)
    return ms, src.numel() * src.element_size(), tel


def ceilings(device: torch.device, sampler=None) -> schema.Ceilings | None:
    """The GPU's own limits, measured on random data, sustained (after a
    warm-up that settles the clocks; the telemetry says at what clock): a bf16
    matrix product, a device-to-device copy of 4 GiB and a read-only pass
    (a sum) over 4 GiB. Each helper frees its tensors on return."""
    if device.type != "cuda":
        return None
    n = 8192
    mm, mm_tel = _matmul_ms(device, n, sampler)
    probe.free(device)
    cp, copy_bytes, cp_tel = _copy_ms(device, 2 * 1024**3, sampler)
    probe.free(device)
    rd, read_bytes, rd_tel = _read_ms(device, 2 * 1024**3, sampler)
    probe.free(device)
    tel = {k: v for k, v in (("matmul", mm_tel), ("copy", cp_tel), ("read", rd_tel)) if v is not None}
    return schema.Ceilings([n, n, n], "bf16", mm, copy_bytes, cp, read_bytes=read_bytes, read_ms=rd, telemetry=tel)
