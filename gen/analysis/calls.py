"""Each variant's timed call at a scenario's point: its three labelled times and the flags beside them.

Takes: a loaded set (gen.analysis.tables), a scenario and a mode. Gives: `timed(ls, scenario, mode) ->
list[Timed]` (from the scenario's profiled runs, else its first sweep point), `timed_at(ls, scenario,
point, mode)`, `point_of` (the point a verdict is about); the interval rules on a Spread (`interval`,
`faster`, `overlaps`); `Noise` (a spread too wide, too few samples), `thin` (a table's n to mark);
`kernel_backend` (an SDPA kernel's backend by its name). Numbers only: gen.analysis.verdicts decides on these rows.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass

from gen.analysis import flops, host_rules, kernel_names, pair_noise, rules, tables, timings
from gen.analysis.values import missing
from gen.model import schema
from gen.model.variants import VARIANTS

MIN_SAMPLES = rules.MIN_SAMPLES


def thin(n: float | None) -> bool:
    """A timing with samples, but fewer than MIN_SAMPLES: its spread means little (a table marks its n)."""
    return not missing(n) and bool(n) and n < MIN_SAMPLES

# The SDPA backends, by the kernel that runs (the profiler's names).
KERNEL_BACKENDS = (("cudnn_generated", "cudnn"), ("flash_fwd", "flash"), ("flash_bwd", "flash"),
                   ("fmha_cutlass", "efficient"), ("fmha_", "efficient"))


def kernel_backend(name: str | None) -> str | None:
    """The SDPA backend a kernel belongs to, by its name; None for other kernels."""
    for marker, backend in KERNEL_BACKENDS:
        if name and marker in name:
            return backend
    return None


# --------------------------------------------------------------------------- rows


Spread = timings.Spread


def interval(s: Spread) -> tuple[float, float]:
    """The interval of a median (rules.CI_METHOD); the floor band (rules.TIME_FLOOR_PCT)
    around the median of a Spread made without one."""
    if not math.isnan(s.ci_lo) and not math.isnan(s.ci_hi):
        return s.ci_lo, s.ci_hi
    f = rules.TIME_FLOOR_PCT / 100.0
    return s.median * (1 - f), s.median * (1 + f)


def faster(a: Spread, b: Spread) -> bool:
    """a is decidedly faster than b: a's interval ends below b's begins."""
    return rules.apart(interval(a)[1], interval(b)[0])


def interval_gap(a: Spread, b: Spread) -> float:
    """How far apart the two medians' intervals are (ms): the slower's lower end less the faster's upper end,
    positive where they are apart (`faster` one way or the other), zero or less where they overlap. The one measure
    by which every page says how far outside the intervals a same-name pair lies."""
    (alo, ahi), (blo, bhi) = interval(a), interval(b)
    return max(blo - ahi, alo - bhi)


def overlaps(a: Spread, b: Spread) -> bool:
    """The two medians' intervals overlap: their order is within noise."""
    return not (faster(a, b) or faster(b, a))


def _present(s: Spread) -> Spread | None:
    return s if s.n else None


@dataclass(frozen=True)
class Noise:
    """A timing the report flags next to its number: too wide a spread, or too few samples."""

    variant: str
    timing: str  # gpu_only, eager, host
    kind: str  # "spread" (IQR over rules.NOISY_IQR_PCT of the median) or "few" (under MIN_SAMPLES)
    iqr_pct: float
    n: int


@dataclass(frozen=True)
class Timed:
    """One variant in one scenario and mode: its three labelled times and its kernels."""

    variant: str
    status: str
    gpu_only: Spread | None = None
    gpu_only_method: str | None = None  # schema.GpuOnlyMethod
    eager: Spread | None = None
    host: Spread | None = None
    events: int | None = None  # GPU events per call
    main_kernel: str | None = None  # the longest kernel's full name
    main_short: str | None = None
    main_index: int | None = None
    backend: str | None = None  # the SDPA backend its aten op names
    host_bound: bool = False  # the report's one host-bound flag: outcome yes (the summary table's; see _host_bound)
    eager_over_gpu_only: float | None = None  # what a Python loop sees over the GPU's own time
    host_bound_outcome: str | None = None  # rules.YES, NO, WITHIN_NOISE; None where undecided
    signature: timings.KernelSignature | None = None  # every GPU event of one call (timings.kernel_signature)
    main_us: float | None = None  # the main kernel's duration in the profiled call
    main_blocks: int | None = None  # the main kernel's launch: thread blocks in its grid
    wrong: bool = False  # a wrong answer (rules.wrong_answer): shown, never ranked
    events_us: float | None = None  # every GPU event of the profiled call, added up
    eager_ratio_ci: tuple[float, float] | None = None  # eager over GPU-only, by the intervals of both medians
    host_cost_ms: float | None = None  # the host's own cost of a call (host_rules.HOST_COST_QUANTILE)
    host_noise_why: str | None = None  # host_rules.host_bound_why: "eager", "host", "both", "same kernels"
    host_ref_ms: float | None = None  # the host's reference call beside this record's host windows (median)
    # The conditions of the GPU-only time (its window's mean SM clock and board power) and the time at the
    # set's reference clock (clocks.at_ref_clock): the equal-clock time, which ranks kernels by efficiency.
    sm_clock_mhz: float | None = None
    power_w: float | None = None
    # schema 5: the window's mean of NVML's averaged power (power_w is then the instant reading) and the share of
    # its samples held down for power; None where the set did not record them
    power_avg_w: float | None = None
    power_cap_share: float | None = None
    power_window_s: float | None = None  # the window's length: an averaged reading lags in one under a second
    at_ref_ms: float | None = None
    # False where scaling by the SM clock does not apply (rules.equal_clock_applies: a memory-bound point);
    # at_ref_ms is then None and the as-run time stands alone.
    equal_clock: bool = True
    # False where the window has no single clock to scale by (rules.one_clock: its lowest sample, sm_clock_min_mhz,
    # too far under its mean): at_ref_ms is then None too
    one_clock: bool = True
    sm_clock_min_mhz: float | None = None
    reason: str | None = None  # why not measured (status other than ok), as the capture recorded it
    # The kernel sum of the profiled calls (median, ms) and its window's mean SM clock: the order that may overrule
    # the as-run one (rules.lead_decided)
    kernel_sum_ms: float | None = None
    kernel_sum_mhz: float | None = None
    # The output's relative error against float64 (the worst of the record's) and the inputs' dtype where the
    # record gives one, so that a verdict between calls of different inputs (FP8 against bf16) gives both errors
    rel_error: float | None = None
    dtype: str | None = None
    # Where the inputs were rounded to the call's own dtype (FP8): what that rounding alone moves the answer by
    # (the record's fact fp8_input_rounding_error); rel_error is then the kernel's error alone
    input_rounding_error: float | None = None
    # The as-run noise of identical kernels at the row's point (gen.analysis.pair_noise), which an as-run lead must
    # exceed (rules.lead_decided); None where not known
    as_run_noise: pair_noise.AsRunNoise | None = None
    # The GPU-only median over the forward rounds and over the reversed ones (timings.orientation_medians), which a
    # lead must hold in each (rules.lead_decided); None where the set did not reverse its rounds
    forward_ms: float | None = None
    reversed_ms: float | None = None
    # Where its GPU-only time was taken (rounds_of): SHARED, in the point's shared rounds with `rounds_with`;
    # LATER, in later rounds with the others that ran out of memory in them; ALONE, retried alone after them;
    # AFTER, its graph replayed alone after them; OWN, the point has no shared
    # rounds (each call timed in a sequence of its own); None (UNKNOWN) where the set does not record it
    rounds: str | None = None
    rounds_with: tuple[str, ...] = ()
    # The GPU-only time's median in each of its rounds, in order, where it is the graph's and has several (two calls
    # timed in the same rounds are compared round by round: rules.paired_intervals)
    round_ms: tuple[float, ...] = ()
    # The same call's row in the sweep's shared rounds at this point, where the row is a profiled run's (each call in a
    # sequence of its own) and the sweep timed every measured call of the runs in its shared rounds (shared_sweep): the
    # record the verdict's orders read (gen.analysis.verdicts.orders), cited as the evidence of the order. The row's
    # own times, clocks, eager and host figures stay the runs' on every page.
    rounds_record: Timed | None = None
    # Its kernel sum, or that of a call running the same kernels at this point, past rules.KERNEL_SUM_GRAPH_RATIO from
    # its own graph replay (off_graph): no pair it is in is decided by kernel sums
    off_graph: OffGraph | None = None

    @property
    def deciding(self) -> Timed:
        """The row the order between calls reads: the sweep's shared rounds where the row has them, else itself."""
        return self.rounds_record or self

    @property
    def kernels(self):
        """What runs on the GPU, from kernel evidence: every GPU event of one call, else the main
        kernel's name; None without a trace (a CPU set). Equal kernels make a tie."""
        return self.signature or self.main_kernel

    @property
    def identity(self):
        """What runs: its kernels, else (no trace) the SDPA backend its aten op names."""
        return self.kernels or (f"backend:{self.backend}" if self.backend else None)

    @property
    def main_arch(self) -> int | None:
        return kernel_names.arch(self.main_kernel) if self.main_kernel else None

    def noise(self) -> list[Noise]:
        out = []
        for name in ("gpu_only", "eager", "host"):
            s = getattr(self, name)
            if s is None:
                continue
            if s.n < MIN_SAMPLES:
                out.append(Noise(self.variant, name, "few", s.iqr_pct, s.n))
            elif rules.noisy(s.iqr_pct):
                out.append(Noise(self.variant, name, "spread", s.iqr_pct, s.n))
        return out


@dataclass(frozen=True)
class OffGraph:
    """A call whose kernel sum and graph replay disagree (sums_off_graph): the sum over the replay's median, and the
    two windows' clocks."""

    variant: str
    ratio: float
    kernel_sum_mhz: float | None
    graph_mhz: float | None

    @property
    def slower_at_higher_clock(self) -> bool:
        """The sum slower than the replay though its window ran at the higher clock, more than rules.CLOCK_GAP_PCT
        apart: off under rules.sum_slower_at_higher_clock, not under the within-gap clause."""
        return (self.ratio > 1 and bool(self.kernel_sum_mhz) and bool(self.graph_mhz)
                and self.kernel_sum_mhz > self.graph_mhz and rules.clocks_apart(self.kernel_sum_mhz, self.graph_mhz))


def sums_off_graph(t: Timed) -> OffGraph | None:
    """t's kernel sum set against its own graph replay's median where the two lie past rules.KERNEL_SUM_GRAPH_RATIO
    apart (the larger over the smaller) beyond what their windows' clock gap can explain (rules.clock_left), those
    clocks within rules.CLOCK_GAP_PCT (or not known), or at any gap where the sum reads slower than the replay though
    taken at an equal or higher clock (rules.sum_slower_at_higher_clock); None where they agree or cannot be set side
    by side (no replay, no sum, clocks apart the other way)."""
    g = t.gpu_only
    if t.gpu_only_method != schema.GpuOnlyMethod.CUDA_GRAPH or g is None or not g.median or not t.kernel_sum_ms:
        return None
    r = t.kernel_sum_ms / g.median
    if (rules.clocks_apart(t.kernel_sum_mhz, t.sm_clock_mhz)
            and not rules.sum_slower_at_higher_clock(r, t.kernel_sum_mhz, t.sm_clock_mhz)):
        return None
    left = rules.clock_left(r, t.sm_clock_mhz, t.kernel_sum_mhz) or r
    if max(left, 1 / left) <= rules.KERNEL_SUM_GRAPH_RATIO:
        return None
    return OffGraph(t.variant, r, t.kernel_sum_mhz, t.sm_clock_mhz)


def _off_graph(rows: list[Timed]) -> list[Timed]:
    """Each row marked with its own off_graph, else that of a row running the same kernels (the furthest off): the
    profiled sums of those kernels at this point are in doubt for every call that runs them, so a tie is never split
    by one twin's sum."""
    off = {t.variant: sums_off_graph(t) for t in rows}
    out = []
    for t in rows:
        same = [o for x in rows if (o := off[x.variant]) is not None
                and (x is t or (t.signature is not None and x.signature == t.signature))]
        mark = max(same, key=lambda o: max(o.ratio, 1 / o.ratio), default=None)
        out.append(dataclasses.replace(t, off_graph=mark) if mark is not None else t)
    return out


def _trace(ls: tables.LoadedSet, run: schema.VariantRun):
    if not run.trace or run.status != schema.Status.OK:
        return None
    if run.scenario == "article":
        return ls.trace(run.mode, run.variant)
    return ls.sweep_trace(run.trace)


def timed_row(ls: tables.LoadedSet, run: schema.VariantRun, peers=()) -> Timed:
    """One run's Timed row (see Timed)."""
    tr = _trace(ls, run)
    tm = ls.times(run, tr)
    gpu, eager, host = _present(tm.gpu_only), _present(tm.eager), _present(tm.host)
    events, main, short, index, main_us, events_us, blocks = _kernels(ls, run, tr)
    known = VARIANTS.get(run.variant)
    backend = tables.backend_of(tr) if known and known.kind == "sdpa" else None
    outcome = _host_bound(ls, run, tm)
    return Timed(run.variant, run.status, gpu, tm.gpu_only_method if gpu else None, eager, host, events, main, short,
                 index, backend, outcome == rules.YES, _num(tm.eager_over_gpu_only), outcome,
                 ls.kernel_signature(tr, run.timing.graph_check), main_us=main_us, events_us=events_us,
                 main_blocks=blocks, wrong=rules.wrong_answer(max(run.rel_errors) if run.rel_errors else None),
                 reason=run.reason, rel_error=max(run.rel_errors) if run.rel_errors else None,
                 dtype=getattr(run, "dtype", None),
                 **_host_facts(tm), **_clock_facts(ls, tm, run.point, run.mode), **_orientation_facts(run, tm),
                 **_rounds_facts(run, peers))


def _kernels(ls: tables.LoadedSet, rec, tr) -> tuple:
    """(GPU events, main kernel's name, short name, index, its µs, all events' µs) of a profiled call."""
    if tr is None or not tr.forwards:
        return None, None, None, None, None, None, None
    mk, events, total = tables.kernel_totals(ls, rec.variant, rec.mode, tr)
    total = total if events else None
    if mk is None:
        return events, None, None, None, None, total, None
    blocks = mk.get("blocks")
    blocks = int(blocks) if blocks is not None and not math.isnan(blocks) else None
    return events, mk["name"], mk["short_name"], int(mk["index"]), float(mk["dur_us"]), total, blocks


def _num(x: float) -> float | None:
    return None if x is None or math.isnan(x) else x


def _host_facts(tm: timings.Times) -> dict:
    """The numbers behind a host-bound outcome: the ratio's interval, the host's cost, why within noise."""
    e, g = _present(tm.eager), _present(tm.gpu_only)
    if e is None or g is None:
        return {}
    elo, ehi, glo, ghi = e.ci_lo, e.ci_hi, g.ci_lo, g.ci_hi
    cost = _num(tm.host_cost_ms) if tm.host_cost_ms is not None else None
    known = not any(math.isnan(x) for x in (elo, ehi, glo, ghi)) and glo > 0 and ghi > 0
    return dict(eager_ratio_ci=(elo / ghi, ehi / glo) if known else None, host_cost_ms=cost,
                host_noise_why=host_rules.host_bound_why(elo, ehi, glo, ghi, cost), host_ref_ms=_num(tm.host_ref_ms))


def _clock_facts(ls: tables.LoadedSet, tm: timings.Times, point: schema.Point | None = None,
                 mode: str | None = None) -> dict:
    """The GPU-only time's clock and power, and its time at the set's reference clock where equal clock
    applies to the point (rules.equal_clock_applies) and its window has one clock (rules.one_clock)."""
    if not tm.gpu_only.n:
        return {}
    c = tm.gpu_only_conditions
    mhz, watts = _num(c.sm_clock_mhz), _num(c.power_w)
    applies = point is None or mode is None or rules.equal_clock_applies(flops.figure_of(point, mode))
    at = timings.at_ref_clock(tm.gpu_only.median, mhz, ls.environment.ref_mhz) if applies and c.one_clock else None
    ks = tm.kernel_sum.median if tm.kernel_sum.n else None
    ks_mhz = _num(tm.window(schema.Window.KERNEL_SUM).sm_clock_mhz) if ks is not None else None
    return dict(sm_clock_mhz=mhz, power_w=watts, power_avg_w=_num(c.power_avg_w),
                power_cap_share=_num(c.power_cap_share), power_window_s=_num(c.duration_s), at_ref_ms=at,
                equal_clock=applies, one_clock=c.one_clock, sm_clock_min_mhz=_num(c.sm_clock_min_mhz),
                kernel_sum_ms=_num(ks), kernel_sum_mhz=ks_mhz)


def _host_bound(ls: tables.LoadedSet, run: schema.VariantRun, tm: timings.Times) -> str | None:
    """The report's one host-bound outcome: the summary table's, where the run has a
    row there (so every page shows the same), else the timings' rule."""
    if ls.kind != schema.SetKind.MEASURED or run.device != "cuda" or run.status != schema.Status.OK:
        return None
    if run.scenario == "article":
        key = ("summary host-bound", run.mode)  # variant -> its first row's outcome, read once per set and mode
        if key not in ls._tables:
            st = tables.summary_table(ls, run.mode)
            ls._tables[key] = {} if st.empty or "host_bound_outcome" not in st else dict(
                reversed(list(zip(st["variant"].tolist(), st["host_bound_outcome"].tolist()))))
        outcomes = ls._tables[key]
        if run.variant in outcomes:
            return outcomes[run.variant]
    return tm.host_bound_outcome


def _sweep_row(ls: tables.LoadedSet, p: schema.SweepPoint, peers=()) -> Timed:
    tr = ls.sweep_trace(p.trace) if p.trace and p.status == schema.Status.OK else None
    tm = ls.times(p, tr)
    gpu = _present(tm.gpu_only)
    measured = ls.kind == schema.SetKind.MEASURED and ls.environment.device == "cuda"
    outcome = tm.host_bound_outcome if measured and p.status == schema.Status.OK else None
    events, main, short, index, main_us, events_us, blocks = _kernels(ls, p, tr)
    return Timed(p.variant, p.status, gpu, tm.gpu_only_method if gpu else None, _present(tm.eager),
                 _present(tm.host), events, main, short, index, host_bound=outcome == rules.YES,
                 eager_over_gpu_only=_num(tm.eager_over_gpu_only), host_bound_outcome=outcome,
                 signature=ls.kernel_signature(tr, p.timing.graph_check), main_us=main_us, events_us=events_us,
                 main_blocks=blocks, wrong=rules.wrong_answer(p.rel_error), reason=p.reason, rel_error=p.rel_error,
                 dtype=p.dtype, input_rounding_error=_num((p.facts or {}).get("fp8_input_rounding_error")),
                 **_host_facts(tm),
                 **_clock_facts(ls, tm, p.point, p.mode), **_orientation_facts(p, tm), **_rounds_facts(p, peers))


def _orientation_facts(rec, tm: timings.Times) -> dict:
    """The GPU-only time's forward and reversed medians where it is the graph's (not a kernel sum standing in)."""
    if tm.gpu_only_method != schema.GpuOnlyMethod.CUDA_GRAPH or not tm.gpu_only.n:
        return {}
    fwd, rev = timings.orientation_medians(rec.timing)
    t = rec.timing
    per_round = timings.round_medians(t.gpu_only_ms, (t.round_sizes or {}).get(schema.Window.GPU_ONLY))
    return dict(forward_ms=fwd, reversed_ms=rev, round_ms=tuple(per_round))


# Where a call's GPU-only time was taken, relative to the point's other calls (rounds_of)
SHARED = "shared"  # in the point's interleaved rounds, with the others (Timing.interleaved_with)
ALONE = "alone"  # retried alone after the shared rounds: it ran out of memory beside the others (gen.capture.sweep)
LATER = "later rounds"  # in rounds after the shared ones, taken in turn by the calls that ran out of memory there
AFTER = "graph after"  # its eager and host windows in the shared rounds, its graph replayed alone after them
OWN = "own"  # the point has no shared rounds: each call timed in a sequence of its own (the profiled runs)
UNKNOWN = None  # a set before slots were recorded (schema 4): not known, treated as shared


def rounds_of(rec, peers) -> tuple[str | None, tuple[str, ...]]:
    """Where `rec`'s GPU-only time was taken among `peers` (the point's records, rec among them), from what the set
    records (gen.capture.timing): `interleaved_with` names the calls that took turns in one sequence of windows and
    `slots` each window's place in it. A call retried alone after the others (gen.capture.sweep.group: only one
    that ran out of memory beside them) has an empty interleaved_with and a sequence of its own (its GPU-only slots
    step by its own windows a round, from 0) while others at the point share rounds; a graph replayed alone after the
    rounds (timing._Rounds.graph_after: its pool and an eager call did not fit together) has every GPU-only slot
    after its last eager one (in a shared round the graph window comes first). (rounds, the calls it shared rounds
    with)."""
    t = getattr(rec, "timing", None)
    if t is None or not t.slots:
        return UNKNOWN, ()
    with_ = tuple(t.interleaved_with or ())
    if len(with_) > 1:
        g, e = t.slots.get(schema.Window.GPU_ONLY.value) or [], t.slots.get(schema.Window.EAGER.value) or []
        return (AFTER if g and e and min(g) > max(e) else LATER if t.interleave_later else SHARED), with_
    shared = any(len(getattr(p.timing, "interleaved_with", None) or ()) > 1 for p in peers
                 if p is not rec and getattr(p, "timing", None) is not None)
    return (ALONE if shared else OWN), ()


def same_rounds(a: Timed, b: Timed) -> bool | None:
    """Both calls' GPU-only times taken in the same shared rounds (True), or not (False: one or both alone, after,
    or at a point without shared rounds); None where either is not known (older sets: no change)."""
    if a.rounds is UNKNOWN or b.rounds is UNKNOWN:
        return None
    return a.rounds == b.rounds in (SHARED, LATER) and b.variant in a.rounds_with and a.variant in b.rounds_with


def loop_ms(call: Timed, base: Timed | None) -> tuple[float, float] | None:
    """Where `call` is host-bound (the rule's yes), its eager median and `base`'s, ms: a lead taken on the GPU alone is
    not what an eager loop on this host gets (2.96x on the GPU, 1.38x in a loop); None elsewhere."""
    if not call.host_bound or base is None or call.eager is None or base.eager is None:
        return None
    a, b = _num(call.eager.median), _num(base.eager.median)
    return (a, b) if a and b else None


def _rounds_facts(rec, peers) -> dict:
    r, w = rounds_of(rec, peers)
    return dict(rounds=r, rounds_with=w)


def _share(rows: list[Timed]) -> list[Timed]:
    """Rows that run the same kernels get one host-bound outcome (rules.shared_outcome)."""
    out = []
    for t in rows:
        if t.signature is None:
            out.append(t)
            continue
        o = rules.shared_outcome(x.host_bound_outcome for x in rows if x.signature == t.signature)
        why = t.host_noise_why if o == t.host_bound_outcome else ("same kernels" if o == rules.WITHIN_NOISE else None)
        out.append(dataclasses.replace(t, host_bound_outcome=o, host_bound=o == rules.YES, host_noise_why=why))
    return out


def point_of(ls: tables.LoadedSet, scenario: str = "article", mode: str = "inference") -> schema.Point | None:
    """The point a scenario's verdict is about: its profiled runs' point, else its first sweep point."""
    run = next((r for r in ls.rs.runs if r.scenario == scenario and r.mode == mode and r.point), None)
    if run is not None:
        return run.point
    points = _points(ls, scenario, mode)
    return points[0] if points else None


def _points(ls: tables.LoadedSet, scenario: str, mode: str) -> list[schema.Point]:
    """A scenario's sweep points in one mode: its training points for a training step where it has them
    (a scenario measured in training only, deterministic backward, has no others)."""
    rec = ls.outline.scenario(scenario)
    if rec is None:
        return []
    if mode == schema.Mode.TRAIN and getattr(rec, "train_points", None):
        return list(rec.train_points)
    return list(rec.points)


def timed(ls: tables.LoadedSet, scenario: str = "article", mode: str = "inference") -> list[Timed]:
    """Every variant of one scenario and mode: from its profiled runs, or where
    the scenario has none, from the sweep at the scenario's first point. Where the sweep timed the runs' point with
    every measured call of the runs in its shared rounds (shared_sweep), each run's row carries the sweep's row of the
    same call (Timed.rounds_record): the order between calls is decided in the shared rounds (the profiled runs time
    each call in a sequence of its own, OWN, so no two of their times were taken in the same conditions), while the
    times, clocks, eager and host figures every page shows stay the runs' (the
    profiled, longer loops)."""
    runs = [r for r in ls.rs.runs if r.scenario == scenario and r.mode == mode]
    if runs:
        noise = pair_noise.noise_at(ls, pair_noise.RUN, scenario, mode, runs[0].point)
        rows = [dataclasses.replace(t, as_run_noise=noise)
                for t in _off_graph(_share([timed_row(ls, r, runs) for r in runs]))]
        shared = {t.variant: t for t in shared_sweep(ls, scenario, mode, runs) or ()
                  if t.status == schema.Status.OK and t.rounds == SHARED}
        return [dataclasses.replace(t, rounds_record=shared[t.variant]) if t.variant in shared else t for t in rows]
    points = _points(ls, scenario, mode)
    return timed_at(ls, scenario, points[0], mode) if points else []


def shared_sweep(ls: tables.LoadedSet, scenario: str, mode: str, runs: list) -> list[Timed] | None:
    """The sweep's rows at the profiled runs' one point, for the runs' calls, where each call the runs measured has an
    OK sweep record timed in the point's shared rounds (SHARED) and no run was itself timed in shared rounds; the
    runs' own rows for calls they did not measure. None elsewhere (no such sweep point, a call missing from its
    rounds, or a set that does not record where a call was timed: nothing changes)."""
    point = runs[0].point
    if point is None or any(r.point != point for r in runs):
        return None
    ok = [r for r in runs if r.status == schema.Status.OK]
    if not ok or any(rounds_of(r, runs)[0] != OWN for r in ok):
        return None
    sweep = {t.variant: t for t in timed_at(ls, scenario, point, mode)}
    if any(r.variant not in sweep or sweep[r.variant].status != schema.Status.OK
           or sweep[r.variant].rounds != SHARED for r in ok):
        return None
    return [sweep[r.variant] if r.status == schema.Status.OK else timed_row(ls, r, runs) for r in runs]


def timed_at(ls: tables.LoadedSet, scenario: str, point: schema.Point, mode: str = "inference") -> list[Timed]:
    """Every variant's sweep record at one point of a scenario."""
    noise = pair_noise.noise_at(ls, pair_noise.SWEEP, scenario, mode, point)
    here = [p for p in ls.rs.sweep if p.scenario == scenario and p.mode == mode and p.point == point]
    rows = _off_graph(_share([_sweep_row(ls, p, here) for p in here]))
    return [dataclasses.replace(t, as_run_noise=noise) for t in rows]


@dataclass(frozen=True)
class OrientedRate:
    """A headline's rate where its call's forward and reversed medians lie more than rules.ORIENTATION_GAP_PCT apart
    (GQA prefill at 32k keys gave FlexAttention's 729 TFLOP/s from its forward rounds
    alone, its reversed rounds 1.27x slower): each orientation's median and rate, where the whole median lies, and
    the kernel sum's. A rate scales as 1 / time at one point."""

    forward_ms: float
    reversed_ms: float
    forward_rate: float
    reversed_rate: float
    median_with: str  # "forward" or "reversed": the orientation the whole median lies nearer
    kernel_sum_ms: float | None
    kernel_sum_rate: float | None
    # the calls sharing its rank whose median in the other orientation is below its own there, (variant, that
    # median), fastest first: its lowest median holds only through `median_with`
    lower_there: tuple[tuple[str, float], ...] = ()

    @property
    def ratio(self) -> float:
        return max(self.forward_ms, self.reversed_ms) / min(self.forward_ms, self.reversed_ms)


def oriented_rate(t: Timed | None, median_ms: float | None, rate: float | None,
                  rivals: Iterable[Timed] = ()) -> OrientedRate | None:
    """OrientedRate of `t` (the headline's Timed row) from its median and that median's rate, against `rivals` (the
    calls sharing its rank); None where its orientations lie within rules.ORIENTATION_GAP_PCT, or are not known."""
    if t is None or missing(median_ms) or missing(rate) or not median_ms:
        return None
    fwd, rev = t.forward_ms, t.reversed_ms
    gap = rules.orientation_gap_pct(fwd, rev)
    if gap is None or gap <= rules.ORIENTATION_GAP_PCT:
        return None
    work = rate * median_ms
    ks = t.kernel_sum_ms
    with_ = "forward" if abs(median_ms - fwd) <= abs(median_ms - rev) else "reversed"
    own = rev if with_ == "forward" else fwd
    there = [(r.variant, x) for r in rivals if r is not None and r.variant != t.variant
             and (x := r.reversed_ms if with_ == "forward" else r.forward_ms) is not None and x < own]
    return OrientedRate(fwd, rev, work / fwd, work / rev, with_, ks, work / ks if ks else None,
                        tuple(sorted(there, key=lambda p: p[1])))
