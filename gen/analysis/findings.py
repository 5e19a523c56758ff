"""Findings derived by rules from a set's traces and verdicts: facts, not sentences.

Takes: a loaded result set (gen.analysis.tables), the kernel rows each rule is about
(gen.analysis.events) and each variant's checked hypothesis (gen.analysis.hypotheses, whose
`check_hypotheses` it re-exports). Gives `findings(ls)`, a list of `Finding`s produced by the rules below:
each a kind, a severity, the variant and mode, the kernel rows it is about and
the numbers it found. gen.report.words.findings turns a finding into its sentences (a
title, a short line, the full text), so every page words it the same way; a
new set gets its own findings with no code change. Thresholds and classifiers
come from gen.analysis.rules.

Rules (each a function `_rule_*` below):
- copy/fill: every memcpy or memset GPU event, and every kernel launched by a
  copy or fill op (aten::copy_, clone, fill_, zero_), grouped per variant and
  launching op; "unexpected" when the hypothesis said no copy or fill.
- float32: kernels whose launching op was given float32 tensors and no
  bf16/f16 one, or matrix products with f32 in their name, in a bf16/f16 set.
- mask rebuilt: triu/tril kernels, or a fill_ and an aten::where, inside the forward.
- occupancy: kernels for which the profiler reported 0% or no occupancy, per cause: more
  shared memory a block than its estimate allows, or a grid smaller than the GPU.
- fastest variant, SDPA backend picked without pinning, forward-to-forward
  kernel count changes, the in-place autograd check of the train run, compile times.

Tensor-core rule: `kernel_rules.tensor_core_verdict` (name based; the markers are
listed in gen.analysis.rules and quoted from there on the Findings page).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from gen.analysis import (
    calls,
    counters,
    determinism_rule,
    first_calls,
    flops,
    host_rules,
    kernel_rules,
    leads,
    rules,
    tables,
    values,
    verdicts,
)
from gen.analysis.events import (  # noqa: F401
    copy_events,
    copy_rows,
    float32_events,
    mask_events,
    no_estimate_rows,
    table_columns,
)
from gen.analysis.hypotheses import check_hypotheses, has_gpu  # noqa: F401
from gen.analysis.values import variant_role
from gen.model.schema import Mode, SetKind, Status
from gen.model.variants import VARIANTS


class Severity(enum.StrEnum):
    UNEXPECTED = "unexpected"  # against a hypothesis, or a cost the variant need not pay
    INFO = "info"


class FindingKind(enum.StrEnum):
    """What a finding is about; the Findings page groups them in this order."""

    COPY = "copy"
    PRECISION = "precision"
    MASK = "mask"
    OCCUPANCY = "occupancy"
    COUNTERS = "counters"
    BACKEND = "backend"
    SPEED = "speed"
    HOST = "host"
    HOST_SHORT = "host short"
    CONSISTENCY = "consistency"
    AUTOGRAD = "autograd"
    COMPILE = "compile"
    ANOMALY = "anomaly"


# --------------------------------------------------------------------------- findings


@dataclass(frozen=True)
class Finding:
    """One fact a rule found. `facts` holds its numbers and names (what each
    kind carries is listed at its rule); gen.report.words.findings words it."""

    id: str
    kind: FindingKind
    severity: Severity
    variant: str | None = None
    mode: str = Mode.INFERENCE
    kernels: tuple[int, ...] = ()  # launch indices of the GPU events it is about, in the variant's forward
    facts: dict[str, Any] = field(default_factory=dict)


def kernel_groups(indices) -> list[tuple[int, int]]:
    """Launch indices as runs of consecutive numbers: [1, 2, 3, 7] -> [(1, 3), (7, 7)]."""
    out: list[list[int]] = []
    for i in sorted({int(i) for i in indices}):
        if out and i == out[-1][1] + 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return [(a, b) for a, b in out]


def _indices(idx) -> tuple[int, ...]:
    return tuple(int(i) for i in idx)


def _gpu_total(kt: pd.DataFrame) -> float:
    return float(kt["dur_us"].sum()) if not kt.empty else 0.0


def _kernel_runs(ls, mode=Mode.INFERENCE):
    """(variant, kernel table) for each ok run of the mode that has GPU events."""
    for run in ls.rs.runs:
        if run.mode == mode and run.status == Status.OK and run.variant in VARIANTS:
            kt = tables.kernel_frame(ls, run.variant, mode)
            if not kt.empty:
                yield run.variant, kt


def rule_copies(ls) -> list[Finding]:
    """Every memcpy or memset, and every kernel of a copy op (kernel_rules.COPY_OPS), per
    variant and launching op. facts: event_kind, op, n, names, paths, dur_us,
    total_us, expected (the hypothesis expected a copy or fill)."""
    out = []
    for v, kt in _kernel_runs(ls):
        expected = VARIANTS[v].expect.copy_or_fill
        # The copies grouped by (kind, launching op) in the order they first come. Neither column is
        # ever missing (tables.kernel_table), so no row drops out of a group.
        groups: dict[tuple, list[int]] = {}
        kinds, ops = table_columns(kt, "kind", "launched_by")
        for i in copy_rows(kinds, ops):
            groups.setdefault((kinds[i], ops[i]), []).append(i)
        if not groups:
            continue
        index, short, paths, dur = table_columns(kt, "index", "short_name", "op_path", "dur_us")
        for (kind, op), at in groups.items():
            out.append(Finding(
                id=f"copy-{v}-{kind}-{(op or 'none').replace('aten::', '')}", kind=FindingKind.COPY,
                severity=Severity.INFO if expected else Severity.UNEXPECTED, variant=v,
                kernels=_indices(index[i] for i in at),
                facts=dict(event_kind=kind, op=op or None, n=len(at), names=sorted({short[i] for i in at}),
                           paths=sorted({paths[i] for i in at}), dur_us=_sum([dur[i] for i in at]),
                           total_us=_gpu_total(kt), expected=expected)))
    return out


def _sum(xs: list[float]) -> float:
    """What a float column's .sum() gives for these values: numpy's (pairwise) sum of the array."""
    return float(np.array(xs).sum())


def rule_float32(ls) -> list[Finding]:
    """Kernels in float32 in a 16-bit set. facts: dtype, n, events (GPU events of
    the forward), dur_us, total_us, gemms (float32 matrix products), conversions."""
    dtype = ls.config.dtype
    if dtype not in kernel_rules.SIXTEEN_BIT_DTYPES:
        return []
    out = []
    for v, kt in _kernel_runs(ls):
        f32, ups = float32_events(kt)
        if f32.empty:
            continue
        gem = f32[f32["category"] == "matrix product"]
        # A variant whose hypothesis expected it off the tensor cores (the math backend's float32 reference
        # path) meets its expectation here: a fact to read, not an unexpected one.
        hyp = VARIANTS[v].expect if v in VARIANTS else None
        expected = hyp is not None and hyp.tensor_cores is False
        out.append(Finding(
            id=f"float32-{v}", kind=FindingKind.PRECISION, severity=Severity.INFO if expected else Severity.UNEXPECTED,
            variant=v,
            kernels=_indices(list(f32["index"]) + list(ups["index"])),
            facts=dict(dtype=dtype, n=len(f32), events=len(kt), dur_us=float(f32["dur_us"].sum()),
                       total_us=_gpu_total(kt), gemms=list(gem["short_name"]), conversions=len(ups))))
    return out


def rule_mask(ls) -> list[Finding]:
    """The causal mask built again in every forward. facts: n, ops, dur_us."""
    out = []
    for v, kt in _kernel_runs(ls):
        parts = mask_events(kt)
        if parts.empty:
            continue
        out.append(Finding(
            id=f"mask-{v}", kind=FindingKind.MASK, severity=Severity.UNEXPECTED, variant=v,
            kernels=_indices(parts["index"]),
            facts=dict(n=len(parts), ops=list(dict.fromkeys(parts["launched_by"])),
                       dur_us=float(parts["dur_us"].sum()))))
    return out


# Why the profiler shows 0% or no occupancy for a kernel, in the order rule_occupancy checks them.
OCC_SHARED_MEMORY = "shared_memory"  # over kernel_rules.SMEM_DEFAULT_LIMIT a block: the estimate fits no block
OCC_SMALL_GRID = "small_grid"  # fewer blocks than SMs: near 0% is right, most SMs get no work
OCC_UNKNOWN = "unknown"


def occupancy_cause(shared_memory, blocks, sm_count) -> str:
    """Why one kernel's occupancy estimate reads 0% or nothing (OCC_*)."""
    if kernel_rules.estimate_blind(shared_memory):
        return OCC_SHARED_MEMORY
    if blocks is not None and not np.isnan(blocks) and sm_count and blocks < sm_count:
        return OCC_SMALL_GRID
    return OCC_UNKNOWN


def rule_occupancy(ls) -> list[Finding]:
    """Kernels with no occupancy estimate, per cause (OCC_*). facts: cause, apis (the launch APIs),
    n, names, dur_us, shared_memory (bytes a block, per kernel), small_grids (blocks of grids smaller
    than the SM count), sm_count, smem_limit (kernel_rules.SMEM_DEFAULT_LIMIT), measured (the achieved
    occupancy Nsight Compute measured for those kernels, where the run has counters; empty otherwise)."""
    out = []
    sms = ls.environment.sm_count
    for v, kt in _kernel_runs(ls):
        achieved = _achieved(ls, v)
        # The kernels with no estimate, grouped by cause.
        kind, occ = table_columns(kt, "kind", "occupancy_pct")
        zero = no_estimate_rows(kind, occ)
        if not zero:
            continue
        index, short, api, dur, smem, blocks = table_columns(kt, "index", "short_name", "launch_api", "dur_us",
                                                        "shared_memory", "blocks")
        by_cause: dict[str, list[int]] = {}
        for i in zero:
            by_cause.setdefault(occupancy_cause(smem[i], blocks[i], sms), []).append(i)
        for cause, g in by_cause.items():
            out.append(Finding(
                id=f"occupancy-{v}-{cause}", kind=FindingKind.OCCUPANCY, severity=Severity.INFO, variant=v,
                kernels=_indices(index[i] for i in g),
                facts=dict(cause=cause, apis=list(dict.fromkeys(api[i] for i in g if api[i])), n=len(g),
                           names=list(dict.fromkeys(short[i] for i in g)), dur_us=_sum([dur[i] for i in g]),
                           shared_memory=[int(smem[i]) for i in g if not np.isnan(smem[i])],
                           small_grids=[int(blocks[i]) for i in g if blocks[i] < (sms or 0)], sm_count=sms,
                           smem_limit=kernel_rules.SMEM_DEFAULT_LIMIT,
                           measured=[achieved[index[i]] for i in g if index[i] in achieved])))
    return out


def _achieved(ls, variant: str, mode: str = Mode.INFERENCE) -> dict[int, float]:
    """Launch index -> achieved occupancy measured by Nsight Compute, for the kernels that have it."""
    m = counters.for_run(ls, mode, variant)
    if not m.measured:
        return {}
    return {int(r["index"]): float(r["achieved_occupancy_pct"]) for r in m.rows
            if not values.missing(r["achieved_occupancy_pct"])}


def rule_counters(ls) -> list[Finding]:
    """What Nsight Compute's counters say about each variant's main kernel (the
    longest of its forward): facts: kernel (short name), name, dur_us, category,
    counters (counters.kernel_facts: estimate against measured occupancy, what
    limits the theoretical occupancy, memory-, compute- or latency-bound, ncu's
    rules), mismatches (kernels the trace and ncu did not pair by name). A
    measured GPU set with counters for none of its runs gets one finding saying
    why (facts: absent, reason)."""
    if not has_gpu(ls):
        return []
    out, why = [], None
    for v, kt in _kernel_runs(ls):
        m = counters.for_run(ls, Mode.INFERENCE, v)
        if not m.measured:
            why = why or (m.absent.value if m.absent else "unmatched", m.reason)
            continue
        main = tables.main_kernel(kt)
        # The main kernel's row of the match's rows.
        at = int(main["index"]) if main is not None else None
        row = next((r for r in m.rows if r["index"] == at), None) if at is not None else None
        if row is None:
            continue
        out.append(Finding(
            id=f"counters-{v}", kind=FindingKind.COUNTERS, severity=Severity.INFO, variant=v,
            kernels=(int(main["index"]),),
            facts=dict(kernel=main["short_name"], name=main["name"], dur_us=float(main["dur_us"]),
                       category=main["category"], counters=counters.kernel_facts(row),
                       mismatches=len(m.mismatches))))
    if not out and why:
        out.append(Finding(id="counters-absent", kind=FindingKind.COUNTERS, severity=Severity.INFO,
                           facts=dict(absent=why[0], reason=why[1])))
    return out


def rule_fastest(ls) -> list[Finding]:
    """The fastest variant. facts: basis ("gpu_only", "eager" or "host" for a
    measured set: the verdict's ranking time; "gpu" or "host" for published
    figures), published, source, ms, next_variant, next_ms, overlap (IQRs
    overlap), baseline, baseline_ms; baseline_of_ms, baseline_sums: the fastest's time the baseline's is set against,
    and whether both are kernel sums (determinism_rule.like_with_like). A measured set's is its verdict's
    (gen.analysis.verdicts), the one every page shows."""
    v = verdicts.verdict(ls, "article", Mode.INFERENCE)
    found = _fastest_of_verdict(v) if v is not None else fastest(tables.summary_table(ls, Mode.INFERENCE))
    if found is None:
        return []
    variant, facts = found
    facts.update(published=ls.kind == SetKind.REFERENCE, source=ls.outline.source)
    return [Finding(id="fastest", kind=FindingKind.SPEED, severity=Severity.INFO, variant=variant, facts=facts)]


def _fastest_of_verdict(v: verdicts.Verdict) -> tuple[str, dict]:
    f, r = v.fastest, v.runner_up
    o, why = verdicts.first_pair(v)
    # why the first place is not settled (leads.Orders.why_not_decided): overlapping intervals are one reason of several
    facts = dict(basis=v.basis, ms=v.spread(f).median, next_variant=r.variant if r else None,
                 next_ms=v.spread(r).median if r else None, unsettled=why, overlap=why == leads.OVERLAP, orders=o,
                 spreads=(v.spread(f), v.spread(r)) if r else None, baseline=None, baseline_ms=None)
    base = v.row(variant_role("baseline"))
    if base is not None and base is not f:
        b_ms, f_ms, sums = v.spread(base).median, v.spread(f).median, False
        if v.basis == "gpu_only":  # like with like, as the main table's speed-up
            b_ms, f_ms, sums = determinism_rule.like_with_like(b_ms, base.gpu_only_method, base.kernel_sum_ms, f_ms,
                                                               f.gpu_only_method, f.kernel_sum_ms)
        facts.update(baseline=base.variant, baseline_ms=b_ms, baseline_of_ms=f_ms, baseline_sums=sums)
    return f.variant, facts


def fastest(st: pd.DataFrame) -> tuple[str, dict] | None:
    """The fastest variant of a summary table, by median GPU time, or by host
    time where nothing has a GPU time; the runner-up, whether their IQRs overlap,
    and how long the baseline takes."""
    if st.empty:
        return None
    # GPU-only time; on a set without one, wall time on the host (eager on a CPU, else host).
    col, basis = next(((c, b) for c, b in (("gpu_only_ms", "gpu"), ("eager_ms", "host"), ("host_ms", "host"))
                       if st[c].notna().any()), ("host_ms", "host"))
    d = st[st[col].notna()].sort_values(col)
    if d.empty:
        return None
    best = d.iloc[0]
    facts = dict(basis=basis, ms=float(best[col]), next_variant=None, next_ms=None, overlap=False, baseline=None,
                 baseline_ms=None)
    if len(d) > 1:
        nxt = d.iloc[1]
        facts.update(next_variant=nxt["variant"], next_ms=float(nxt[col]))
        facts["overlap"] = bool(col == "gpu_only_ms" and not math.isnan(best["gpu_only_q3_ms"])
                                and not math.isnan(nxt["gpu_only_q1_ms"])
                                and best["gpu_only_q3_ms"] >= nxt["gpu_only_q1_ms"])
    base = d[d["variant"] == variant_role("baseline")]
    if len(base) and best["variant"] != variant_role("baseline"):
        facts.update(baseline=variant_role("baseline"), baseline_ms=float(base.iloc[0][col]))
    return best["variant"], facts


def rule_backend(ls) -> list[Finding]:
    """Which backend SDPA picked with none pinned. facts: backend, main_kernel,
    ms, pinned_variant and pinned_ms (the same backend pinned), fastest_pinned,
    fastest_pinned_ms, hypothesis (what its hypothesis said)."""
    auto = variant_role("automatic")
    st = tables.summary_table(ls, Mode.INFERENCE)
    r = st[(st["variant"] == auto) & (st["status"] == Status.OK)] if not st.empty else st
    if r.empty or not r.iloc[0]["backend"]:
        return []
    r = r.iloc[0]
    v = verdicts.verdict(ls, "article", Mode.INFERENCE)
    if v is not None and v.row(auto) is not None:
        return [_backend_of_verdict(v, auto, r["backend"])]
    main = tables.main_kernel(tables.kernel_frame(ls, auto))
    facts = dict(backend=r["backend"], main_kernel=main["short_name"] if main is not None else None,
                 ms=float(r["gpu_only_ms"]), pinned_variant=None, pinned_ms=None, fastest_pinned=None,
                 fastest_pinned_ms=None,
                 hypothesis=VARIANTS[auto].expect.why if auto in VARIANTS else None)
    pinned = st[(st["backend"] == r["backend"]) & (st["variant"] != auto)]
    if len(pinned) and not math.isnan(pinned.iloc[0]["gpu_only_ms"]) and not math.isnan(r["gpu_only_ms"]):
        facts.update(pinned_variant=pinned.iloc[0]["variant"], pinned_ms=float(pinned.iloc[0]["gpu_only_ms"]))
    pinned_backend = st["variant"].map(lambda name: name in VARIANTS and VARIANTS[name].backend is not None)
    fast = st[pinned_backend & st["gpu_only_ms"].notna()]
    if len(fast):
        f = fast.sort_values("gpu_only_ms").iloc[0]
        facts.update(fastest_pinned=f["variant"], fastest_pinned_ms=float(f["gpu_only_ms"]))
    return [Finding(id="sdpa-auto-backend", kind=FindingKind.BACKEND, severity=Severity.INFO, variant=auto,
                    kernels=(int(main["index"]),) if main is not None else (), facts=facts)]


def _backend_of_verdict(v: verdicts.Verdict, auto: str, backend: str) -> Finding:
    """rule_backend's finding from the verdict's ranking time (the one every page ranks by)."""
    a, row = v.auto, v.row(auto)
    facts = dict(backend=backend, main_kernel=a.kernel, ms=v.spread(row).median, pinned_variant=None,
                 pinned_ms=None, fastest_pinned=None, fastest_pinned_ms=None,
                 hypothesis=VARIANTS[auto].expect.why if auto in VARIANTS else None)
    if a.same_as:
        facts.update(pinned_variant=a.same_as[0], pinned_ms=v.spread(v.row(a.same_as[0])).median)
    pinned = [t for t in v.rows if t.variant in VARIANTS and VARIANTS[t.variant].backend is not None]
    if pinned:
        facts.update(fastest_pinned=pinned[0].variant, fastest_pinned_ms=v.spread(pinned[0]).median)
    return Finding(id="sdpa-auto-backend", kind=FindingKind.BACKEND, severity=Severity.INFO, variant=auto,
                   kernels=(a.kernel_index,) if a.kernel_index is not None else (), facts=facts)


def rule_counts(ls) -> list[Finding]:
    """Profiled forwards that launched different numbers of GPU events (facts:
    counts), or one finding that all were stable (facts: runs checked)."""
    if ls.kind != SetKind.MEASURED:
        return []
    out, checked = [], 0
    for run in ls.rs.runs:
        tr = ls.trace(run.mode, run.variant) if run.status == Status.OK else None
        if tr is None or not tr.forwards or not any(tr.counts):
            continue
        checked += 1
        if not tr.counts_consistent:
            out.append(Finding(id=f"counts-{run.mode}-{run.variant}", kind=FindingKind.CONSISTENCY,
                               severity=Severity.UNEXPECTED, variant=run.variant, mode=run.mode,
                               facts=dict(counts=list(tr.counts))))
    if not out and checked:
        out.append(Finding(id="counts-stable", kind=FindingKind.CONSISTENCY, severity=Severity.INFO,
                           facts=dict(runs=checked)))
    return out


def rule_autograd(ls) -> list[Finding]:
    """The in-place autograd check of the train run. facts: outcome, max_abs_grad_diff."""
    run = ls.rs.run(variant_role("inplace"), Mode.TRAIN)
    note = run.inplace_autograd if run else None
    if not note:
        return []
    return [Finding(id="inplace-autograd", kind=FindingKind.AUTOGRAD, severity=Severity.INFO, variant=run.variant,
                    mode=Mode.TRAIN, facts=dict(outcome=note.outcome, max_abs_grad_diff=note.max_abs_grad_diff))]


def rule_compile(ls) -> list[Finding]:
    """Compile time of the first call. facts: compile_s, calls (in timed calls at their median),
    ahead (a side process compiled it before the timings), first_call_s (the capture's own first call);
    own_slower: a side process compiled it and the capture's own first call still took longer, so the start-up a
    user pays is at least that (startup_s, startup_calls: the larger of the two, in seconds and timed calls)."""
    out = []
    for run in ls.rs.runs:
        if run.compile_time_s is None:
            continue
        n = tables.compile_calls(run)
        own = run.first_call_s
        own_slower = first_calls.own_first_slower(run)
        startup = own if own_slower else run.compile_time_s
        out.append(Finding(id=f"compile-{run.mode}-{run.variant}", kind=FindingKind.COMPILE,
                           severity=Severity.INFO, variant=run.variant, mode=run.mode,
                           facts=dict(compile_s=run.compile_time_s, calls=None if math.isnan(n) else float(n),
                                      ahead=bool(run.compiled_ahead), first_call_s=own, own_slower=own_slower,
                                      startup_s=startup, startup_calls=None if math.isnan(n) or not run.compile_time_s
                                      else float(n) * startup / run.compile_time_s)))
    return out


def rule_host(ls) -> list[Finding]:
    """Calls the host-bound rule (host_rules.host_bound) flags (HOST), and those within noise whose loop waited on a
    host slower than the GPU (HOST_SHORT: host_rules.loop_waited_short_of_rule). facts: eager_ms, gpu_only_ms,
    gpu_only_method, ratio (eager over GPU-only), host_ms (dispatch, median), host_overhead_ms (eager minus GPU-only),
    host_cost_ms (the host's cost the rule reads, its low end)."""
    out = []
    for mode in Mode:
        st = tables.summary_table(ls, mode)
        if st.empty:
            continue
        for _, r in st.iterrows():
            short = host_rules.loop_waited_short_of_rule(*(r.get(c) for c in (
                "eager_ci_lo_ms", "eager_ci_hi_ms", "gpu_only_ci_lo_ms", "gpu_only_ci_hi_ms", "host_cost_ms")))
            if not (r["host_bound"] or short):
                continue
            out.append(Finding(
                id=f"host-{mode}-{r['variant']}", kind=FindingKind.HOST_SHORT if short else FindingKind.HOST,
                severity=Severity.INFO, variant=r["variant"], mode=mode, facts=dict(
                    eager_ms=float(r["eager_ms"]), gpu_only_ms=float(r["gpu_only_ms"]),
                    gpu_only_method=r["gpu_only_method"], ratio=float(r["eager_over_gpu_only"]),
                    host_ms=float(r["host_ms"]), host_overhead_ms=float(r["host_overhead_ms"]),
                    host_cost_ms=float(r["host_cost_ms"]))))
    return out


def _samples(run, basis: str) -> list[float]:
    """The raw samples of a run's ranking timing (gpu_only, eager or host)."""
    return list(getattr(run.timing, f"{basis}_ms", None) or [])


def _op_calls(tr) -> dict[str, tuple[float, int]]:
    """aten op -> (µs in all, calls) over the first profiled call's CPU events."""
    out: dict[str, tuple[float, int]] = {}
    if tr is None or not tr.forwards:
        return out
    for c in tr.forwards[0].cpu:
        if c.name.startswith("aten::"):
            us, n = out.get(c.name, (0.0, 0))
            out[c.name] = (us + c.dur, n + 1)
    return out


def _per_call(ops: dict[str, tuple[float, int]], op: str | None) -> float | None:
    return ops[op][0] / ops[op][1] if op in ops else None


def _spread_anomaly(ls, v: verdicts.Verdict, t: calls.Timed, mode: str) -> Finding | None:
    """split or thin, for one row of a verdict (see rule_anomalies)."""
    run = ls.rs.run(t.variant, mode)
    xs = _samples(run, v.basis) if run else []
    if not xs:  # a kernel sum: its samples are the trace's, few by design (rules.MIN_SAMPLES)
        return None
    if min(xs) > 0 and max(xs) >= rules.SPLIT_RATIO * min(xs):
        s = v.spread(t)
        return Finding(id=f"anomaly-split-{mode}-{t.variant}", kind=FindingKind.ANOMALY, severity=Severity.UNEXPECTED,
                       variant=t.variant, mode=mode,
                       facts=dict(what="split", timing=v.basis, n=len(xs), min_ms=min(xs), median_ms=s.median,
                                  max_ms=max(xs), iqr_pct=s.iqr_pct))
    if len(xs) < rules.MIN_SAMPLES:
        return Finding(id=f"anomaly-thin-{mode}-{t.variant}", kind=FindingKind.ANOMALY, severity=Severity.INFO,
                       variant=t.variant, mode=mode, facts=dict(what="thin", timing=v.basis, n=len(xs)))
    return None


def _compiled_anomaly(ls, v: verdicts.Verdict, t: calls.Timed, mode: str) -> Finding | None:
    """compiled_slower, for one row of a verdict (see rule_anomalies)."""
    me = VARIANTS.get(t.variant)
    twin = next((x for x in VARIANTS.values() if me and me.compiled and not x.compiled and x.classes == me.classes),
                None)
    other = v.row(twin.name) if twin else None
    if other is None or v.spread(t).median < rules.COMPILED_SLOWER_RATIO * v.spread(other).median:
        return None
    tr = ls.trace(mode, t.variant)
    return Finding(id=f"anomaly-compiled-{mode}-{t.variant}", kind=FindingKind.ANOMALY, severity=Severity.UNEXPECTED,
                   variant=t.variant, mode=mode,
                   facts=dict(what="compiled_slower", timing=v.basis, eager_variant=twin.name, ms=v.spread(t).median,
                              eager_ms=v.spread(other).median, ratio=v.spread(t).median / v.spread(other).median,
                              profiled_ms=[f.dur / 1000 for f in tr.forwards] if tr else []))


def _train_anomalies(ls) -> list[Finding]:
    """train_over_forward (see rule_anomalies)."""
    fwd, step = verdicts.verdict(ls, "article", Mode.INFERENCE), verdicts.verdict(ls, "article", Mode.TRAIN)
    if fwd is None or step is None or fwd.basis != step.basis:
        return []
    out = []
    for t in step.rows:
        f = fwd.row(t.variant)
        if f is None or not fwd.spread(f).median:
            continue
        ratio = step.spread(t).median / fwd.spread(f).median
        if ratio < rules.TRAIN_OVER_FORWARD_RATIO:
            continue
        ops_step = _op_calls(ls.trace(Mode.TRAIN, t.variant))
        ops_fwd = _op_calls(ls.trace(Mode.INFERENCE, t.variant))
        # The op with the most time in the step among those a forward runs too: the same op, per call.
        top = max((k for k in ops_step if k in ops_fwd), key=lambda k: ops_step[k][0], default=None)
        own = max((k for k in ops_step if k not in ops_fwd), key=lambda k: ops_step[k][0], default=None)
        op_step, op_fwd = _per_call(ops_step, top), _per_call(ops_fwd, top)
        op_ratio = op_step / op_fwd if top and op_fwd else None
        out.append(Finding(
            id=f"anomaly-train-{t.variant}", kind=FindingKind.ANOMALY, severity=Severity.UNEXPECTED,
            variant=t.variant, mode=Mode.TRAIN,
            facts=dict(what="train_over_forward", timing=step.basis, step_ms=step.spread(t).median,
                       forward_ms=fwd.spread(f).median, ratio=ratio, flop_ratio=1 + flops.BACKWARD_FACTOR,
                       op=top, op_step_us_per_call=op_step, op_forward_us_per_call=op_fwd, op_ratio=op_ratio,
                       op_slower=op_ratio is not None and op_ratio >= rules.COMPILED_SLOWER_RATIO,
                       step_op=own, step_op_us_per_call=_per_call(ops_step, own))))
    return out


def rule_anomalies(ls) -> list[Finding]:
    """Timings the set itself says not to take at face value (thresholds in gen.analysis.rules), per
    variant and mode; facts by `what`:

    - split: the ranking timing's slowest sample is rules.SPLIT_RATIO times its fastest or more
      (timing, n, min_ms, median_ms, max_ms, iqr_pct);
    - thin: fewer than rules.MIN_SAMPLES samples (timing, n);
    - compiled_slower: a compiled variant rules.COMPILED_SLOWER_RATIO times or more the eager variant
      running the same module (eager_variant, ms, eager_ms, ratio, profiled_ms: its profiled calls);
    - train_over_forward: a training step rules.TRAIN_OVER_FORWARD_RATIO times or more its forward
      (step_ms, forward_ms, ratio, flop_ratio, op, op_step_us_per_call, op_forward_us_per_call: of the
      ops a forward runs too, the one with the most time in the step, per call in the step and in the
      forward; op_ratio, their ratio, op_slower: at least rules.COMPILED_SLOWER_RATIO, more than the backward's
      arithmetic explains; step_op, step_op_us_per_call: of the ops only the step runs, the one with the most time).
    Measured sets only; the ranking timing is the verdict's (GPU-only on a GPU, wall time on a CPU)."""
    if ls.kind != SetKind.MEASURED:
        return []
    out = []
    for mode in Mode:
        v = verdicts.verdict(ls, "article", mode)
        for t in v.rows if v is not None else ():
            out += [f for f in (_spread_anomaly(ls, v, t, mode), _compiled_anomaly(ls, v, t, mode)) if f]
    return out + _train_anomalies(ls)


RULES = [rule_copies, rule_float32, rule_mask, rule_occupancy, rule_counters, rule_fastest, rule_host, rule_backend,
         rule_counts, rule_autograd, rule_compile, rule_anomalies]


def findings(ls: tables.LoadedSet) -> list[Finding]:
    """Every rule's findings for one set, in rule order."""
    out: list[Finding] = []
    for rule in RULES:
        out.extend(rule(ls))
    return out
