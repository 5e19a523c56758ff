"""The scenario sweep: every planned point measured, its variants timed in turn.

Takes: variants (gen.model.variants), scenarios (gen.model.scenarios), a
device, a staging folder and a deadline. Gives: `run_sweep(...) ->
list[schema.SweepPoint]`, one per (scenario, mode, point, variant), each with
its status (ok, or unavailable with PyTorch's reason, oom, skipped with why),
three labelled timings (gen.capture.timing), peak memory, the error against
float64 on a slice, and a trace of one profiled call; `budget_for(run)`, the
sweep's timing budget.

Order (gen.capture.sweep_plan): compiled variants last (they compile again at
every shape), so that the time limit costs the fewest points; within a
series, lengths grow and a point predicted to end past the deadline is
skipped, one after an OOM is not tried (gen.capture.sweep_limits). The GPU's
ceilings are gen.capture.ceilings'. Imports torch, the standard library,
gen.model and gen.capture.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch

from gen.capture import extras, probe, staging, timers, timing
from gen.capture.attention import build
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
from gen.capture.sweep_limits import Growth, Series, not_run
from gen.capture.sweep_plan import Job, burst_key, job_key, plan, point_groups
from gen.capture.timing import Budget, describe
from gen.model import schema
from gen.model.scenarios import Scenario
from gen.model.variants import Variant

# Short: a sweep has many points; the profiled runs take the full budget. Rounds in pairs (forward, reversed:
# _Rounds.done) up to 6: the order statistics of 6 rounds give a 96.9% interval of the median, where 5 give 93.75%.
SWEEP_BUDGET = Budget(warmup_min=3, warmup_min_s=0.05, warmup_max_s=0.4, settle_tol=0.05, repeats=12,
                      min_measure_s=0.15, max_repeats=200, host_repeats=12, graph_replays=24, min_rounds=4,
                      max_rounds=6, round_s=0.02, max_measure_s=1.5)


def budget_for(run: Budget) -> Budget:
    """The sweep's budget: SWEEP_BUDGET, cut further where the runs' budget is
    smaller (--quick), field by field."""
    return Budget(**{f.name: min(getattr(SWEEP_BUDGET, f.name), getattr(run, f.name))
                     for f in dataclasses.fields(Budget)})


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
    growth = Growth()
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
    growth: Growth
    seen_by: dict = dataclasses.field(default_factory=dict)  # (scenario, mode, head dim, variant) -> Series

    def _seen(self, job: Job) -> Series:
        skey = (job.scenario.name, job.mode, job.point.head_dim, job.variant.name)
        return self.seen_by.setdefault(skey, Series(growth=self.growth, key=(job.variant.name, job.mode),
                                                     scenario=job.scenario.name))

    def _burst(self, job: Job) -> bool:
        return self.bursts is not None and burst_key(job) in self.bursts

    def _not_run(self, job: Job, seen: Series) -> tuple[str, str] | None:
        """(status, reason) of a point not run: a package not installed first, so that past the time limit the
        point still says why it could not run; then sweep_limits.not_run's reasons."""
        if (why := extras.missing(job.variant)) is not None:
            return schema.Status.UNAVAILABLE.value, why
        if (why := not_run(job, seen, self.deadline, self.device)) is not None:
            return (schema.Status.OOM.value if seen.oom_at is not None else schema.Status.SKIPPED.value), why
        return None

    def group(self, group: list[Job], out: list, second: bool = False) -> None:
        """One point's variants: kept ones read back, the others prepared in turn, timed in
        interleaved rounds, finished and kept. Those that ran out of memory beside the others take turns
        in rounds of their own after them (`second`), so that they can still be compared with one another;
        one that runs out of memory there too, or that is the only one, alone after."""
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
            if (why := self._not_run(job, seen)) is not None:
                p.status, p.reason = why
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
        for r, _ in ready:
            r.prep.timing.interleave_later = second
        still = _interleave([r for r, _ in ready], device, retry)
        alone += [(r.job, seen) for r, seen in ready if r in retry]
        ready = [(r, seen) for r, seen in ready if r not in retry]
        if retry:  # they took no rounds here: those that did name only one another
            names = [r.prep.name for r, _ in ready]
            for r, _ in ready:
                r.prep.timing.interleaved_with = names if len(names) > 1 else []
        retry.clear()  # their tensors: freed before they run alone
        for r, seen in ready:
            p = _finish_point(r, device) if r in still else r.p
            p = _settled(p, r.job, device, staging_dir, r.phases, self.ahead.get(job_key(r.job)), free=False)
            self.done(r.job, p, seen, r.seconds + r.phases.get("rounds", 0.0), r.phases, out)
        ready.clear()
        still.clear()
        self._after(alone, out, second)

    def _after(self, alone: list, out: list, second: bool) -> None:
        """The calls that ran out of memory beside the others: in later rounds of their own, or each alone."""
        if alone or self.device.type == "cuda":
            probe.free(self.device, collect=True)
        if len(alone) > 1 and not second:
            self.group([job for job, _ in alone], out, second=True)
            return
        for job, seen in alone:
            phases, t0 = Phases(), time.monotonic()
            p = sweep_point(job, self.device, self.budget, self.staging_dir, self.seed, sampler=self.sampler,
                            burst=self._burst(job), phases=phases, ahead_s=self.ahead.get(job_key(job)))
            self.done(job, p, seen, time.monotonic() - t0, phases, out)

    def done(self, job: Job, p: schema.SweepPoint, seen: Series, seconds: float, phases: Phases, out: list,
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
