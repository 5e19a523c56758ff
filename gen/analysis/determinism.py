"""The cost of determinism in a set: its verdicts (gen.analysis.verdicts.Verdict) -> a `Determinism` for every
deterministic variant (keyword "deterministic") beside the same backend's plain one, with the ratio of their
times, or its refusal and `reason_clause`, the clause of PyTorch's reason that names the backend.
gen.analysis.advice puts them in its Advice; gen.report.words.decision says them.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import determinism_rule, rules, verdicts
from gen.analysis.determinism_rule import deterministic
from gen.model import schema
from gen.model.variants import VARIANTS


@dataclass(frozen=True)
class Determinism:
    """One backend's training step with deterministic algorithms against without: the cost of
    determinism (ratio of the medians), or its refusal with the clause of PyTorch's reason naming it."""

    scenario: str
    mode: str
    backend: str | None
    variant: str  # the deterministic variant
    base: str | None  # the same backend, not deterministic
    det_ms: float | None
    base_ms: float | None
    ratio: float | None  # det over base
    refused: str | None  # the status where it did not run (unavailable, oom, skipped)
    reason: str | None
    det_method: str | None = None  # the deterministic step's GPU-only method (cuda_graph, kernel_sum)
    base_method: str | None = None
    fastest_plain: str | None = None  # the scenario's fastest call without determinism, and its time
    fastest_plain_ms: float | None = None
    ratio_at_ref: float | None = None  # det over base at equal clock (each step's time at the reference clock)
    # det over the fastest plain step at equal clock, and the two steps' SM clocks (an as-run
    # ratio across different clocks is given with its equal-clock one)
    plain_ratio_at_ref: float | None = None
    det_mhz: float | None = None
    plain_mhz: float | None = None
    # Where the steps' GPU-only times are graph replays: each step's kernel sum and its window's clock (ms, MHz), the
    # deterministic one's, its plain one's and the fastest plain step's, given first where the two set side by side
    # ran within rules.CLOCK_GAP_PCT in clock and neither is off its replay (fair_sums:
    # FA4 1.13x by kernel sum, both at 1980 MHz, beside 1.14x as run at clocks 4% apart and 1.09x at equal clock)
    base_mhz: float | None = None  # the plain step's SM clock, beside det_mhz
    det_ks: tuple[float, float | None] | None = None
    base_ks: tuple[float, float | None] | None = None
    plain_ks: tuple[float, float | None] | None = None
    # Where the ratio is of two kernel sums (det_method and base_method both kernel_sum): their windows' clocks. Within
    # rules.CLOCK_GAP_PCT of each other they are one clock, and ratio_at_ref is None.
    sums_mhz: tuple[float | None, float | None] | None = None


def _ks(t) -> tuple[float, float | None] | None:
    """A graph-replayed step's kernel sum and clock; None where it has none, or it is off its replay."""
    if (t is None or t.gpu_only_method != schema.GpuOnlyMethod.CUDA_GRAPH or not t.kernel_sum_ms
            or t.off_graph is not None):
        return None
    return t.kernel_sum_ms, t.kernel_sum_mhz


def fair_sums(a: tuple[float, float | None] | None, b: tuple[float, float | None] | None) -> bool:
    """Two steps' kernel sums (_ks) may stand for their ratio: both there, at clocks within rules.CLOCK_GAP_PCT (or not
    known)."""
    if a is None or b is None:
        return False
    gap = rules.clock_gap_pct(a[1], b[1])
    return gap is None or gap <= rules.CLOCK_GAP_PCT


def reason_clause(reason: str | None, backend: str | None) -> str | None:
    """The clause of a refusal that names the backend ("cuDNN attention kernel not used because: ..."),
    else the whole first line."""
    if not reason:
        return None
    clauses = reason.splitlines()[0].split("; ")
    mine = [c for c in clauses if backend and backend.lower() in c.lower().replace(" ", "")
            and "because" in c]
    if not mine:
        mine = [c for c in clauses if "because" in c]
    return (mine[0].split("because:", 1)[-1].strip() if mine else clauses[0]) or None


def determinism_costs(vs: list[verdicts.Verdict]) -> tuple[Determinism, ...]:
    """Every deterministic variant (keyword "deterministic") beside the same backend's plain one, in
    the scenario that measured them: a rule, from the data."""
    out = []
    for v in vs:
        rows = {t.variant: t for t in v.rows}
        missing_rows = {x.variant: (x.status, x.reason) for x in v.not_measured}
        for name in [*rows, *missing_rows]:
            if not deterministic(name):
                continue
            var = VARIANTS[name]
            base = determinism_rule.base_of(name, rows)
            t, b = rows.get(name), rows.get(base) if base else None
            ts, bs = (v.spread(t) if t else None), (v.spread(b) if b else None)
            status, reason = missing_rows.get(name, (None, None))
            # v.rows are ranked: the first without determinism is the step a user has before turning it on.
            fp = next((r for r in v.rows if r.variant in VARIANTS
                       and "deterministic" not in VARIANTS[r.variant].keywords and v.spread(r) is not None), None)
            det_ms, base_ms = ts.median if ts else None, bs.median if bs else None
            det_method, base_method = (t.gpu_only_method if t else None), (b.gpu_only_method if b else None)
            ratio_at_ref = (t.at_ref_ms / b.at_ref_ms if t and b and t.at_ref_ms is not None and b.at_ref_ms
                            else None)
            # like with like (determinism_rule.like_with_like); with both kernel sums the equal-clock ratio scales each
            # by its own window's clock (the reference clock cancels)
            sums, sums_mhz = False, None
            if t and b:
                det_ms, base_ms, sums = determinism_rule.like_with_like(det_ms, det_method, t.kernel_sum_ms, base_ms,
                                                                        base_method, b.kernel_sum_ms)
            if sums:
                det_method = base_method = schema.GpuOnlyMethod.KERNEL_SUM.value
                sums_mhz = (t.kernel_sum_mhz, b.kernel_sum_mhz)
                # within the clock gate the two windows ran at one clock: the model would only restate the ratio
                one = fair_sums((det_ms, t.kernel_sum_mhz), (base_ms, b.kernel_sum_mhz))
                ratio_at_ref = (det_ms * t.kernel_sum_mhz / (base_ms * b.kernel_sum_mhz)
                                if t.equal_clock and b.equal_clock and t.kernel_sum_mhz and b.kernel_sum_mhz
                                and not one else None)
            out.append(Determinism(v.scenario, v.mode, var.backend, name, base, det_ms, base_ms,
                                   det_ms / base_ms if det_ms is not None and base_ms else None,
                                   status, reason_clause(reason, var.backend),
                                   det_method=det_method, base_method=base_method,
                                   fastest_plain=fp.variant if fp else None,
                                   fastest_plain_ms=v.spread(fp).median if fp else None,
                                   ratio_at_ref=ratio_at_ref,
                                   plain_ratio_at_ref=t.at_ref_ms / fp.at_ref_ms if t and fp and t.at_ref_ms
                                   is not None and fp.at_ref_ms else None,
                                   det_mhz=t.sm_clock_mhz if t else None, plain_mhz=fp.sm_clock_mhz if fp else None,
                                   base_mhz=b.sm_clock_mhz if b else None,
                                   det_ks=_ks(t), base_ks=_ks(b), plain_ks=_ks(fp), sums_mhz=sums_mhz))
    return tuple(out)


@dataclass(frozen=True)
class DeterministicLead:
    """A verdict that ranks deterministic calls beside plain ones, led by a plain one:
    the pair its lead is between (the fastest and the next call on other kernels, with whether each is deterministic),
    and the lead among the deterministic calls, the one that matters to a user who needs determinism."""

    scenario: str
    mode: str
    fastest: str
    runner_up: str | None
    det_first: str
    det_second: str
    det_ratio: float  # det_second's median over det_first's: as run where both are graph replays
    # det_second's kernel sum over det_first's and their windows' clocks, where both are graph replays with fair sums
    # (fair_sums: within rules.CLOCK_GAP_PCT): said beside the as-run ratio (2.74x as run, 2.87x by kernel sum)
    det_ks_ratio: float | None = None
    det_ks_mhz: tuple[float | None, float | None] | None = None
    det_method: str | None = None  # how both GPU-only times were taken, where the same (schema.GpuOnlyMethod)


def deterministic_leads(vs: list[verdicts.Verdict]) -> tuple[DeterministicLead, ...]:
    """Every verdict with two or more deterministic calls measured and a plain call first (a rule, from the data)."""
    out = []
    for v in vs:
        timed = sorted((t for t in v.rows if v.spread(t) is not None and v.spread(t).median),
                       key=lambda t: v.spread(t).median)
        det = [t for t in timed if deterministic(t.variant)]
        if len(det) < 2 or deterministic(v.fastest.variant):
            continue
        runner = next((t.variant for t in timed if t.variant != v.fastest.variant
                       and t.variant not in v.same_kernel), None)
        out.append(DeterministicLead(v.scenario, v.mode, v.fastest.variant, runner, det[0].variant, det[1].variant,
                                     v.spread(det[1]).median / v.spread(det[0]).median, *pair_sums(det[0], det[1])))
    return tuple(out)


def pair_sums(first, second) -> tuple[float | None, tuple[float | None, float | None] | None, str | None]:
    """Two steps' (second's kernel sum over first's, their windows' clocks) where both are graph replays with fair sums
    (fair_sums), else (None, None); and how both GPU-only times were taken where the same (schema.GpuOnlyMethod)."""
    a, b = _ks(first), _ks(second)
    method = first.gpu_only_method if first.gpu_only_method == second.gpu_only_method else None
    if not fair_sums(a, b):
        return None, None, method
    return b[0] / a[0], (a[1], b[1]), method


@dataclass(frozen=True)
class DeterministicHead:
    """A scenario point that ranks deterministic calls beside plain ones, led by a plain one: what its headline opens
    with, the fastest call that runs deterministically, the next one (and whether the
    first decidedly leads it: rules.lead_decided), the first's cost of determinism, and the plain fastest as context."""

    first: str
    second: str | None
    ratio: float | None  # second's median over first's
    decided: bool
    cost: Determinism | None  # first's, against the same call without determinism (determinism_costs)
    plain: str  # the fastest call of the point, not deterministic
    # `ratio`'s kernel sums and clocks, and its measure, as DeterministicLead has them (pair_sums)
    ks_ratio: float | None = None
    ks_mhz: tuple[float | None, float | None] | None = None
    method: str | None = None


def deterministic_head(v: verdicts.Verdict | None) -> DeterministicHead | None:
    """The verdict's DeterministicHead; None where it ranks no deterministic call or a deterministic call leads."""
    if v is None or deterministic(v.fastest.variant):
        return None
    det = sorted((t for t in v.rows if deterministic(t.variant) and v.spread(t) is not None and v.spread(t).median),
                 key=lambda t: v.spread(t).median)
    if not det:
        return None
    first, second = det[0], (det[1] if len(det) > 1 else None)
    cost = next((d for d in determinism_costs([v]) if d.variant == first.variant and d.ratio is not None), None)
    return DeterministicHead(first.variant, second.variant if second else None,
                             v.spread(second).median / v.spread(first).median if second else None,
                             bool(second and verdicts.leads(first, second, v.basis)), cost, v.fastest.variant,
                             *(pair_sums(first, second) if second else ()))
