"""The three labelled times of every run and sweep point, with their spread, and the host-bound rule.

Takes: a run or sweep point (gen.model.schema `VariantRun` / `SweepPoint`) and
its parsed trace (gen.model.trace) when it has one. Gives: `times(record,
trace) -> Times`, and `times_frame(ls)`, one row per run and sweep point of a
set with the columns of `COLUMNS`. Numbers only; one name per quantity:

- gpu_only_ms: the GPU's own time of one call, the number that ranks. From
  CUDA-graph replay of back-to-back calls (method cuda_graph: one sample per
  replay), or else the GPU events of one profiled call added up (method
  kernel_sum: one sample per profiled call of the trace), labelled so.
- kernel_sum_ms: the GPU events of one profiled call added up (median over the
  profiled calls), whenever there is a trace, whatever the method.
- eager_ms: events around each call of a bare loop: what a Python loop sees.
- host_ms: host dispatch of one call, the GPU drained first.
- host_overhead_ms = eager_ms - gpu_only_ms (medians): what the loop sees
  beyond the GPU's own work (gaps between launches, launch latency).
- host_bound_outcome: yes, no or within noise by host_rules.host_bound_outcome (the
  eager loop against GPU-only time, with the intervals of both medians, and the
  host's own cost of a call); host_bound is True only for yes.
- burst_ms (schema 3): a handful of calls from an idle GPU, as publishers time;
  graph_ms: the graph replay kept where GPU-only fell back to the kernel sum.
- the conditions of each timed window (schema 3, NVML): SM clock mean and
  minimum, board power, temperature (`Conditions`; "not recorded", with the
  reason, for older sets); the GPU-only time's own in the sm_clock_mhz,
  sm_clock_min_mhz, power_w, temp_c columns.
- graph fidelity (schema 3): whether a graph replay ran the kernels of an eager
  call, and which differ (`GraphFidelity`).

Each time carries its median, quartiles, n, IQR / median and the interval of its
median (`Spread`, rules.CI_METHOD). No torch, no words.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from gen.analysis import host_rules, rules
from gen.analysis.values import missing
from gen.model import graph_rule, schema, stats
from gen.model import trace as trace_mod


@dataclass(frozen=True)
class Spread:
    """Median, quartiles and count of raw samples (ms); NaN and 0 when there are none.
    ci_lo, ci_hi: the interval of the median (rules.CI_METHOD, at least +-rules.TIME_FLOOR_PCT);
    raw_lo, raw_hi: that interval before the floor widened it (the range of the rounds where they are few);
    units: how many rounds (or, with one round, samples) the interval rests on."""

    median: float = math.nan
    q1: float = math.nan
    q3: float = math.nan
    n: int = 0
    ci_lo: float = math.nan
    ci_hi: float = math.nan
    rounds: int = 1
    raw_lo: float = math.nan
    raw_hi: float = math.nan

    @property
    def widened(self) -> bool | None:
        """The +-rules.TIME_FLOOR_PCT floor set the interval, wider than the rounds give (None: not known)."""
        if math.isnan(self.raw_lo) or math.isnan(self.raw_hi) or math.isnan(self.ci_lo):
            return None
        return self.ci_lo < self.raw_lo or self.ci_hi > self.raw_hi

    @property
    def units(self) -> int:
        """The units the interval rests on: the rounds' medians where there are several, else the samples."""
        return self.rounds if self.rounds > 1 else self.n

    @property
    def level(self) -> float:
        """The interval's real coverage before the floor (stats.interval_level): rules.CI_LEVEL or more, less where
        too few units leave the whole range (5 rounds: 93.75%)."""
        return ci_level(self.units)

    @property
    def iqr_pct(self) -> float:
        """IQR / median in percent: the spread the report shows (and rules.noisy judges)."""
        if self.n == 0 or not self.median:
            return math.nan
        return 100.0 * (self.q3 - self.q1) / self.median


def ci_level(units: int) -> float:
    """The real coverage of the interval of a median over `units` (stats.interval_level); a row's units are its
    gpu_only_rounds where over 1, else its gpu_only_n."""
    return stats.interval_level(int(units)) if units and units > 0 else math.nan


def round_medians(samples: Sequence[float], sizes: Sequence[int] | None) -> list[float]:
    """The median of each round, where `sizes` (samples per round, in order) cuts the samples
    whole; else [] (one round, or sizes that do not add up: the raw samples stand)."""
    if not sizes or len(sizes) < 2 or sum(sizes) != len(samples) or min(sizes) < 1:
        return []
    a = np.asarray(samples, dtype=float)
    if min(sizes) == max(sizes):  # rounds of one size (as captured): one call for all (np.median costs ~15 µs a call)
        return np.median(a.reshape(len(sizes), -1), axis=1).tolist()
    return [float(np.median(r)) for r in np.split(a, np.cumsum(sizes)[:-1])]


NO_SAMPLES = Spread()


def orientation_medians(t: schema.Timing) -> tuple[float | None, float | None]:
    """(forward, reversed): the median of a graph-replay GPU-only time's round medians over the rounds that ran in
    the point's forward order (rounds 1, 3, 5) and over those that ran backwards (2, 4: Timing.interleave_reversed,
    gen.capture.timing._rotated); (None, None) where the rounds were not reversed (sets before it, calls timed alone)
    or the GPU-only time is not the graph's. A variant alternates between two predecessors, one per orientation, and
    at power-limited points a round's time follows its predecessor's draw, so the two
    medians are the order as seen after each neighbour. The whole median (over every sample) leans to the forward
    rounds, which outnumber the reversed (3 of 5, 2 of 3), but may still fall in a reversed round (median_rounds: 47 of the H100 set's 229)."""
    if (not getattr(t, "interleave_reversed", False) or t.gpu_only_method != schema.GpuOnlyMethod.CUDA_GRAPH
            or not t.gpu_only_ms):
        return None, None
    meds = round_medians(t.gpu_only_ms, (t.round_sizes or {}).get(schema.Window.GPU_ONLY))
    fwd, rev = meds[0::2], meds[1::2]
    if not fwd or not rev:
        return None, None
    return float(np.median(fwd)), float(np.median(rev))


def has_rounds(rs: schema.ResultSet) -> bool:
    """Whether a set's GPU-only timings come in rounds (else a median's units are raw samples)."""
    return any(len((r.timing.round_sizes or {}).get(schema.Window.GPU_ONLY) or ()) > 1
               for r in (*rs.runs, *rs.sweep) if r.timing is not None)


def median_rounds(samples: Sequence[float], sizes: Sequence[int] | None) -> tuple[int, ...]:
    """The rounds (0 first) that hold the middle sample or samples of the whole median of `samples` (numpy's, the
    mean of the two middle ones for an even count), where `sizes` cuts them whole into rounds; () otherwise."""
    if not sizes or sum(sizes) != len(samples) or len(samples) == 0:
        return ()
    of = np.repeat(np.arange(len(sizes)), sizes)
    order = np.argsort(np.asarray(samples, dtype=float), kind="stable")
    n = len(samples)
    return tuple(sorted({int(of[order[(n - 1) // 2]]), int(of[order[n // 2]])}))


def spread(samples: Sequence[float], sizes: Sequence[int] | None = None) -> Spread:
    """Median and quartiles of the samples (numpy's percentile), and the interval of the median
    (gen.model.stats.median_interval) over the rounds' medians where `sizes` cuts the samples into
    rounds, else over the samples; never narrower than +-rules.TIME_FLOOR_PCT."""
    if len(samples) == 0:
        return NO_SAMPLES
    a = np.asarray(samples, dtype=float)
    q1, med, q3 = np.percentile(a, [25, 50, 75])
    rounds = round_medians(a, sizes)
    raw_lo, raw_hi = stats.median_interval(rounds or a)
    floor = rules.TIME_FLOOR_PCT / 100.0
    lo, hi = min(raw_lo, med * (1 - floor)), max(raw_hi, med * (1 + floor))
    return Spread(float(med), float(q1), float(q3), len(a), float(lo), float(hi), len(rounds) or 1,
                  float(raw_lo), float(raw_hi))


def floor_only_overlap(a: Spread | None, b: Spread | None) -> bool:
    """Two medians' intervals overlap only through the +-rules.TIME_FLOOR_PCT floor: the intervals the rounds give
    (raw_lo, raw_hi) are apart (every round of one below every round of the other, where the interval is the range
    of the rounds), the floored ones overlap. The ranking rule still reads the floored
    intervals; this is what the words say of them."""
    if a is None or b is None:
        return False
    floored_apart = rules.apart(a.ci_hi, b.ci_lo) or rules.apart(b.ci_hi, a.ci_lo)
    raw_apart = rules.apart(a.raw_hi, b.raw_lo) or rules.apart(b.raw_hi, a.raw_lo)
    return raw_apart and not floored_apart


# --------------------------------------------------------------------------- equal clock


def at_ref_clock(ms: float | None, mhz: float | None, ref_mhz: float | None) -> float | None:
    """`ms` measured at an SM clock of `mhz`, as it would read at `ref_mhz`: a kernel bound by SM
    cycles takes the same cycles at any clock, so ms * mhz / ref_mhz. None where any is missing."""
    if missing(ms) or missing(mhz) or missing(ref_mhz) or not ref_mhz or mhz <= 0:
        return None
    return float(ms) * float(mhz) / float(ref_mhz)


# --------------------------------------------------------------------------- conditions


@dataclass(frozen=True)
class Conditions:
    """What NVML read during one timed window (schema.Telemetry), or why nothing."""

    window: str
    sm_clock_mhz: float = math.nan
    sm_clock_min_mhz: float = math.nan
    sm_clock_max_mhz: float = math.nan
    power_w: float = math.nan
    power_max_w: float = math.nan
    temp_c: float = math.nan
    samples: int = 0
    duration_s: float = math.nan
    reason: str | None = None  # why not recorded
    # schema 5: NVML's averaged power (the reading the limit holds) beside power_w, the instant one, and the
    # share of samples held down for power; nan where the set did not record them
    power_avg_w: float = math.nan
    power_cap_share: float = math.nan

    @property
    def recorded(self) -> bool:
        return not math.isnan(self.sm_clock_mhz)

    @property
    def one_clock(self) -> bool:
        """The window has one clock to scale its time by (rules.one_clock)."""
        return rules.one_clock(self.sm_clock_mhz, self.sm_clock_min_mhz)


def _f(x) -> float:
    return math.nan if x is None else float(x)


def conditions(window: str, t: schema.Telemetry | None, reason: str | None) -> Conditions:
    """One window's conditions; "not recorded" with the set's reason where NVML gave nothing."""
    if t is None or t.sm_clock_mhz is None:
        why = (t.reason if t is not None and t.reason else None) or reason or "not recorded"
        return Conditions(window, reason=why)
    return Conditions(window, _f(t.sm_clock_mhz), _f(t.sm_clock_min_mhz), _f(t.sm_clock_max_mhz), _f(t.power_w),
                      _f(t.power_max_w), _f(t.temp_c), t.samples, _f(t.duration_s), t.reason,
                      _f(t.power_avg_w), _f(t.power_cap_share))


WINDOWS = tuple(schema.Window)


def window_conditions(t: schema.Timing) -> tuple[tuple[Conditions, ...], str | None]:
    """Times.windows and Times.telemetry_reason of a record's timing: every timed window's conditions
    (schema.Window order) and why none has any. Apart from the times, for what reads only these (the
    set page's table of each run's windows)."""
    windows = tuple(conditions(w, t.telemetry.get(w), t.telemetry_reason) for w in WINDOWS
                    if w in t.telemetry) if t.telemetry else ()
    return windows, t.telemetry_reason or (None if windows else "not recorded")


def window(windows: Sequence[Conditions], reason: str | None, name: str) -> Conditions:
    """The conditions of one window (schema.Window) among `windows`, "not recorded" (or `reason`) where
    it has none."""
    found = next((c for c in windows if c.window == name), None)
    return found or Conditions(name, reason=reason or "not recorded")


# --------------------------------------------------------------------------- graph fidelity


@dataclass(frozen=True)
class GraphFidelity:
    """Did one graph replay run the kernels of one eager call? `only_graph` and
    `only_eager`: (kernel name, how many more launches) on each side."""

    fidelity: str  # schema.GraphFidelity
    detail: str | None
    graph_kernels: int = 0
    eager_kernels: int = 0
    only_graph: tuple[tuple[str, int], ...] = ()
    only_eager: tuple[tuple[str, int], ...] = ()


def graph_fidelity(g: schema.GraphCheck | None) -> GraphFidelity | None:
    if g is None:
        return None
    a, b = Counter(g.graph_kernels), Counter(g.eager_kernels)
    return GraphFidelity(g.fidelity, g.detail, len(g.graph_kernels), len(g.eager_kernels),
                         tuple(sorted((a - b).items())), tuple(sorted((b - a).items())))


@dataclass(frozen=True)
class Times:
    """The three times of one run or sweep point. `gpu_only_method` is
    cuda_graph or kernel_sum (None where no GPU-only time exists, e.g. a CPU
    run); `gpu_only_reason` is why not cuda_graph, as capture or the migration
    recorded it. `kernel_sum` is from the trace (empty without one)."""

    gpu_only: Spread
    gpu_only_method: str | None
    gpu_only_reason: str | None
    kernel_sum: Spread
    eager: Spread
    host: Spread
    calls_per_replay: int | None = None
    # Why there is no GPU-only time: "not_measured" (no method: a CPU, or graph timing not asked
    # for; gpu_only_reason says which) or "no_trace" (kernel_sum with no trace to add up).
    gpu_only_absent: str | None = None
    burst: Spread = Spread()
    burst_throttled: bool = False  # rules.burst_throttled: its clock fell within it
    burst_early: Spread = Spread()  # where it slowed: its leading calls (rules.burst_lead)
    graph: Spread = Spread()  # the graph replay, also where GPU-only fell back to the kernel sum
    windows: tuple[Conditions, ...] = ()  # every timed window's conditions (schema.Window order)
    telemetry_reason: str | None = None  # why no window has any
    fidelity: GraphFidelity | None = None
    host_cost_ms: float = math.nan  # the host's own cost of a call (host_rules.HOST_COST_QUANTILE of host_ms)
    host_ref_ms: float = math.nan  # the reference call's host time beside this record's host windows (median)

    @property
    def host_overhead_ms(self) -> float:
        return self.eager.median - self.gpu_only.median

    def window(self, name: str) -> Conditions:
        """The conditions of one window (schema.Window), "not recorded" where it has none."""
        return window(self.windows, self.telemetry_reason, name)

    @property
    def gpu_only_conditions(self) -> Conditions:
        """The conditions of the window the GPU-only time comes from (graph replay or kernel sum)."""
        w = schema.Window.KERNEL_SUM if self.gpu_only_method == schema.GpuOnlyMethod.KERNEL_SUM else \
            schema.Window.GPU_ONLY
        c = self.window(w)
        return c if c.recorded or w == schema.Window.GPU_ONLY else self.window(schema.Window.GPU_ONLY)

    @property
    def host_bound_outcome(self) -> str | None:
        """host_rules.host_bound_outcome: yes, no, within noise; None when a time is missing."""
        return host_rules.host_bound_outcome(self.eager.ci_lo, self.eager.ci_hi, self.gpu_only.ci_lo,
                                        self.gpu_only.ci_hi, self.host_cost_ms)

    @property
    def eager_over_gpu_only(self) -> float:
        """eager_ms / gpu_only_ms (medians): 1 when the GPU never waits on the host."""
        g = self.gpu_only.median
        return self.eager.median / g if g and not math.isnan(g) else math.nan

    @property
    def host_bound(self) -> bool | None:
        """True when host-bound (yes), False when not (no); None within noise or undecided."""
        return {rules.YES: True, rules.NO: False}.get(self.host_bound_outcome)


def kernel_sum_samples(tr: trace_mod.Trace | None) -> list[float]:
    """One sample per profiled call: its GPU events' durations added up (ms).
    Calls with no GPU event give none (a CPU trace)."""
    if tr is None:
        return []
    return [sum(g.dur for g in fw.gpu) / 1e3 for fw in tr.forwards if fw.gpu]


KernelSignature = tuple[tuple, ...]  # (kind, name, grid, block, registers, shared memory, launches) or (kind, name, launches)


def kernel_signature(tr: trace_mod.Trace | None, check: schema.GraphCheck | None = None) -> KernelSignature | None:
    """What one call runs on the GPU: (kind, full name, grid, block, registers, shared memory,
    launches) of every GPU event of the first profiled call, sorted; (kind, name, launches) from
    capture's graph check (eager kernels) without a trace; None without either. Equal signatures
    make a tie (rules, "ties")."""
    if tr is not None and tr.forwards and tr.forwards[0].gpu:
        # With each launch's configuration: Inductor names its Triton kernels per graph, so every
        # compiled FlexAttention graph has a triton_tem_fused_flex_attention_0, bf16 or FP8 alike.
        c = Counter((g.kind, g.name, g.grid, g.block, g.registers_per_thread, g.shared_memory)
                    for g in tr.forwards[0].gpu)
        return tuple(sorted(((*key, m) for key, m in c.items()), key=repr))
    if check is not None and check.eager_kernels:
        return tuple(sorted(("kernel", n, m) for n, m in Counter(check.eager_kernels).items()))
    return None


def share_outcomes(rows: list[dict[str, Any]], by: Sequence[str] = ()) -> None:
    """Rows that run the same kernels (equal `kernel_signature`, within the groups of `by`; a missing key
    is a group of its own) get one host-bound outcome (rules.shared_outcome); host_bound follows each
    row's outcome. Changes the rows."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if isinstance(r["kernel_signature"], tuple):
            at = tuple(None if missing(r[k]) else r[k] for k in by)
            groups.setdefault((*at, r["kernel_signature"]), []).append(r)
    for group in groups.values():
        if len(group) > 1:
            shared = rules.shared_outcome([r["host_bound_outcome"] for r in group])
            for r in group:
                r["host_bound_outcome"] = None if missing(shared) else shared
    for r in rows:
        r["host_bound"] = {rules.YES: True, rules.NO: False}.get(r["host_bound_outcome"])


def graph_below_reason(graph_ms: Sequence[float], kernel_sum_ms: Sequence[float],
                       eager_ms: Sequence[float]) -> str | None:
    """Why a graph replay that reads far below the same call's kernel sum and eager loop
    (rules.graph_below_kernels) does not stand for the call; None where it does."""
    g, k, e = (statistics.median(x) for x in (graph_ms, kernel_sum_ms, eager_ms))
    if not rules.graph_below_kernels(g, k, e):
        return None
    return (f"the graph replay reads {g:.4g} ms, {k / g:.2f}× below the kernel sum of the profiled calls "
            f"({k:.4g} ms) and {e / g:.2f}× below the eager loop ({e:.4g} ms); a replay removes host gaps, not "
            f"kernel time, so the graph figure (or its count of calls a replay) does not stand for the call and "
            f"the kernel sum ranks in its place (more than {rules.GRAPH_BELOW_KERNELS_RATIO:g}× apart)")


def times(record: schema.VariantRun | schema.SweepPoint, tr: trace_mod.Trace | None = None) -> Times:
    """The three times of one record; `tr` is its parsed trace, if any. The kernel sum
    capture stored (schema 3, one sample per profiled call) stands before the trace's."""
    t = record.timing
    sizes = t.round_sizes or {}
    ksum = spread(t.kernel_sum_ms, sizes.get(schema.Window.KERNEL_SUM)) if t.kernel_sum_ms else \
        spread(kernel_sum_samples(tr))
    method, reason = t.gpu_only_method, t.gpu_only_reason
    graph_kept = method == schema.GpuOnlyMethod.CUDA_GRAPH and bool(t.gpu_only_ms)
    # The capture's graph rule again, on the raw samples: a set captured before one of its clauses gets it.
    late = graph_rule.fallback_reason(t) if graph_kept and t.kernel_sum_ms else None
    if graph_kept and late is None and t.kernel_sum_ms and t.eager_ms:
        late = graph_below_reason(t.gpu_only_ms, t.kernel_sum_ms, t.eager_ms)
    # the graph's samples: in gpu_only_ms where the capture kept them (even if the rule now falls back)
    graph = spread(t.gpu_only_ms if graph_kept else t.graph_ms, sizes.get(schema.Window.GPU_ONLY))
    if graph_kept and late is None:
        gpu_only = graph  # the same samples and rounds as the graph's: the same spread, made once
    elif method is not None:
        # kernel_sum, or cuda_graph with no samples kept: the trace stands in, labelled so.
        if method == schema.GpuOnlyMethod.CUDA_GRAPH:
            reason = late or reason or "no CUDA-graph samples stored"
        method, gpu_only = schema.GpuOnlyMethod.KERNEL_SUM.value, ksum
    else:
        gpu_only = NO_SAMPLES
    absent = None if gpu_only.n else ("not_measured" if method is None else "no_trace")
    windows, telemetry_reason = window_conditions(t)
    host = spread(t.host_ms, sizes.get(schema.Window.HOST))
    host_cost = float(np.percentile(t.host_ms, host_rules.HOST_COST_QUANTILE)) if t.host_ms else math.nan
    lead = rules.burst_lead(t.burst_ms)
    return Times(gpu_only=gpu_only, gpu_only_method=method, gpu_only_reason=reason, kernel_sum=ksum,
                 eager=spread(t.eager_ms, sizes.get(schema.Window.EAGER)),
                 host=host, calls_per_replay=t.calls_per_replay,
                 gpu_only_absent=absent, burst=spread(t.burst_ms, sizes.get(schema.Window.BURST)),
                 burst_throttled=lead is not None, burst_early=spread(lead or []), graph=graph,
                 windows=windows, telemetry_reason=telemetry_reason, fidelity=graph_fidelity(t.graph_check), host_cost_ms=host_cost,
                 host_ref_ms=statistics.median(refs) if (refs := warm_refs(t.host_ref_ms)) else math.nan)


# The columns of `times_frame` and `row`; each name is used for the same quantity on every page and in the JSON.
TELEMETRY_COLUMNS = ["sm_clock_mhz", "sm_clock_min_mhz", "power_w", "temp_c", "telemetry_reason"]
COLUMNS = [
    "gpu_only_ms", "gpu_only_q1_ms", "gpu_only_q3_ms", "gpu_only_n", "gpu_only_iqr_pct", "gpu_only_ci_lo_ms",
    "gpu_only_ci_hi_ms", "gpu_only_raw_lo_ms", "gpu_only_raw_hi_ms", "gpu_only_rounds", "gpu_only_method", "gpu_only_reason", "gpu_only_absent",
    "calls_per_replay", "kernel_sum_ms", "kernel_sum_n", "kernel_sum_mhz",
    "eager_ms", "eager_q1_ms", "eager_q3_ms", "eager_n", "eager_iqr_pct", "eager_ci_lo_ms", "eager_ci_hi_ms",
    "host_ms", "host_q1_ms", "host_q3_ms", "host_n", "host_iqr_pct", "host_cost_ms", "host_ref_ms",
    "host_overhead_ms", "eager_over_gpu_only", "host_bound", "host_bound_outcome",
    "burst_ms", "burst_n", "graph_ms", "graph_fidelity", "graph_detail", "graph_only_in_graph", "graph_only_in_eager",
    *TELEMETRY_COLUMNS, "burst_sm_clock_mhz", "burst_sm_clock_max_mhz", "burst_throttled", "burst_early_ms",
    "burst_early_n", "telemetry_window_s", "power_avg_w", "power_cap_share", "one_clock",
]


def _launches(pairs: tuple[tuple[str, int], ...]) -> str | None:
    """Kernel names with their extra launches, "name ×n; ...", or None for none."""
    return "; ".join(f"{n} ×{c}" for n, c in pairs) or None


def row(tm: Times) -> dict[str, Any]:
    """One flat row of `COLUMNS` (NaN where missing; host_bound None within noise or undecided).
    The telemetry columns are the GPU-only time's window's ("not recorded" in telemetry_reason).
    Written in COLUMNS' order."""
    g, e, h = tm.gpu_only, tm.eager, tm.host
    c = tm.gpu_only_conditions
    outcome = tm.host_bound_outcome
    burst = tm.window(schema.Window.BURST)
    fid = tm.fidelity
    return {
        "gpu_only_ms": g.median, "gpu_only_q1_ms": g.q1, "gpu_only_q3_ms": g.q3, "gpu_only_n": g.n,
        "gpu_only_iqr_pct": g.iqr_pct, "gpu_only_ci_lo_ms": g.ci_lo, "gpu_only_ci_hi_ms": g.ci_hi,
        "gpu_only_raw_lo_ms": g.raw_lo, "gpu_only_raw_hi_ms": g.raw_hi,
        "gpu_only_rounds": g.rounds, "gpu_only_method": tm.gpu_only_method, "gpu_only_reason": tm.gpu_only_reason,
        "gpu_only_absent": tm.gpu_only_absent, "calls_per_replay": tm.calls_per_replay,
        "kernel_sum_ms": tm.kernel_sum.median, "kernel_sum_n": tm.kernel_sum.n,
        "kernel_sum_mhz": tm.window(schema.Window.KERNEL_SUM).sm_clock_mhz if tm.kernel_sum.n else math.nan,
        "eager_ms": e.median, "eager_q1_ms": e.q1, "eager_q3_ms": e.q3, "eager_n": e.n, "eager_iqr_pct": e.iqr_pct,
        "eager_ci_lo_ms": e.ci_lo, "eager_ci_hi_ms": e.ci_hi,
        "host_ms": h.median, "host_q1_ms": h.q1, "host_q3_ms": h.q3, "host_n": h.n, "host_iqr_pct": h.iqr_pct,
        "host_cost_ms": tm.host_cost_ms, "host_ref_ms": tm.host_ref_ms,
        "host_overhead_ms": tm.host_overhead_ms, "eager_over_gpu_only": tm.eager_over_gpu_only,
        "host_bound": {rules.YES: True, rules.NO: False}.get(outcome), "host_bound_outcome": outcome,
        "burst_ms": tm.burst.median, "burst_n": tm.burst.n, "graph_ms": tm.graph.median,
        "graph_fidelity": fid.fidelity if fid else None, "graph_detail": fid.detail if fid else None,
        "graph_only_in_graph": _launches(fid.only_graph) if fid else None,
        "graph_only_in_eager": _launches(fid.only_eager) if fid else None,
        "sm_clock_mhz": c.sm_clock_mhz, "sm_clock_min_mhz": c.sm_clock_min_mhz, "power_w": c.power_w,
        "temp_c": c.temp_c, "telemetry_reason": None if c.recorded else c.reason,
        "burst_sm_clock_mhz": burst.sm_clock_mhz, "burst_sm_clock_max_mhz": burst.sm_clock_max_mhz,
        "burst_throttled": tm.burst_throttled, "burst_early_ms": tm.burst_early.median,
        "burst_early_n": tm.burst_early.n, "telemetry_window_s": c.duration_s,
        "power_avg_w": c.power_avg_w, "power_cap_share": c.power_cap_share, "one_clock": c.one_clock,
    }


def _point_columns(p: schema.Point | None) -> dict[str, Any]:
    keys = ("batch", "q_heads", "kv_heads", "head_dim", "q_len", "kv_len", "mask")
    return {k: getattr(p, k) if p else None for k in keys}


@dataclass(frozen=True)
class HostReference:
    """How fast the capture's host dispatched: the reference call's host time (schema.Timing.host_ref_ms,
    a one-element add host-timed after every round's host window) over the whole set, in ms."""

    median_ms: float
    p10_ms: float
    p90_ms: float
    n: int


def warm_refs(host_ref_ms: list[float]) -> list[float]:
    """The reference calls after the first of each batch (schema.HOST_REF_CALLS): the first runs cold."""
    return [x for k, x in enumerate(host_ref_ms) if k % schema.HOST_REF_CALLS]


def host_reference(rs: schema.ResultSet) -> HostReference | None:
    """The reference call's samples of every run and sweep point of a set pooled (each batch's first,
    cold call left out: warm_refs); None where the set has none (sets captured before the reference
    call existed, CPU sets)."""
    samples = [x for r in (*rs.runs, *rs.sweep) if r.timing is not None for x in warm_refs(r.timing.host_ref_ms)]
    if not samples:
        return None
    p10, med, p90 = (float(x) for x in np.percentile(samples, [10, 50, 90]))
    return HostReference(med, p10, p90, len(samples))


def times_frame(ls, trace_of: Callable[[str], trace_mod.Trace] | None = None) -> pd.DataFrame:
    """One row per run and sweep point of a loaded set (gen.analysis.tables.LoadedSet,
    or anything with `.rs` and `.sweep_trace(relative_path)`): `record` ("run" or
    "sweep"), variant, mode, scenario, status, the point, then `COLUMNS`. Traces are
    read only for records whose GPU-only time or kernel sum needs them."""
    trace_of = trace_of or ls.sweep_trace
    rows = []
    records: Iterable = [("run", r) for r in ls.rs.runs] + [("sweep", p) for p in ls.rs.sweep]
    for kind, rec in records:
        tr = trace_of(rec.trace) if rec.trace and rec.status == schema.Status.OK else None
        rows.append(dict(record=kind, variant=rec.variant, mode=rec.mode, scenario=rec.scenario, status=rec.status,
                         **_point_columns(rec.point), **row(times(rec, tr))))
    head = ["record", "variant", "mode", "scenario", "status", "batch", "q_heads", "kv_heads", "head_dim", "q_len",
            "kv_len", "mask"]
    return pd.DataFrame(rows, columns=head + COLUMNS)


# The fields `python -m gen summary --format json` adds per variant, from a row of COLUMNS.
JSON_FIELDS = ["gpu_only_ms", "gpu_only_q1_ms", "gpu_only_q3_ms", "gpu_only_n", "gpu_only_ci_lo_ms",
               "gpu_only_ci_hi_ms", "gpu_only_method", "gpu_only_reason",
               "kernel_sum_ms", "eager_ms", "eager_q1_ms", "eager_q3_ms", "eager_n", "eager_ci_lo_ms", "eager_ci_hi_ms",
               "host_ms", "host_n", "host_cost_ms", "host_ref_ms", "host_overhead_ms", "host_bound", "host_bound_outcome",
               "burst_ms", "burst_n", "graph_ms", "graph_fidelity", "graph_detail", *TELEMETRY_COLUMNS,
               "burst_sm_clock_mhz", "burst_throttled", "burst_early_ms"]


def json_fields(r) -> dict[str, Any]:
    """JSON-ready values of JSON_FIELDS (None where missing) from a row of COLUMNS."""
    out: dict[str, Any] = {}
    for k in JSON_FIELDS:
        v = r[k]
        if isinstance(v, str) or v is None:
            out[k] = v
        elif k == "host_bound":  # true (yes), false (no), null (within noise, or undecided)
            o = r["host_bound_outcome"]
            out[k] = {rules.YES: True, rules.NO: False}.get(o) if isinstance(o, str) else (
                None if pd.isna(v) else bool(v))
        elif k.endswith("_n"):
            out[k] = int(v)
        elif k in ("graph_fidelity", "graph_detail", "telemetry_reason", "host_bound_outcome"):
            out[k] = None if pd.isna(v) else str(v)
        else:
            out[k] = None if pd.isna(v) else round(float(v), 6)
    return out


def row_spread(r: dict) -> Spread:
    """A summary row's GPU-only median and interval as a Spread (the verdict's tie test reads Spreads)."""
    def num(k: str, default: float) -> float:
        x = r.get(k)
        return default if missing(x) else x

    return Spread(median=num("gpu_only_ms", math.nan), n=int(num("gpu_only_n", 0)),
                  ci_lo=num("gpu_only_ci_lo_ms", math.nan), ci_hi=num("gpu_only_ci_hi_ms", math.nan),
                  rounds=int(num("gpu_only_rounds", 1)), raw_lo=num("gpu_only_raw_lo_ms", math.nan),
                  raw_hi=num("gpu_only_raw_hi_ms", math.nan))
