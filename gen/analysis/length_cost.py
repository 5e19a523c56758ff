"""What cuDNN costs the first screen's decision where lengths vary: its first call at each new length against its
steady call, per phase, from a set's dynamic-lengths runs (schema 4), and the call that costs less in all below the
fewest calls per length.

Takes: a loaded set, its verdicts and the decision's picks, exceptions and default call (gen.analysis.advice). Gives:
`cudnn_lengths(...) -> LengthCost | None`, `lengths(ls, variant)`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gen.analysis import dynamic, tables, verdicts
from gen.analysis.values import variant_role
from gen.model.variants import VARIANTS


@dataclass(frozen=True)
class PhaseCost:
    """cuDNN's median first-call extra at a new length in one phase, and its warm call in a loop."""

    phase: str
    first_extra_ms: float
    steady_ms: float


@dataclass(frozen=True)
class Instead:
    """A call to make instead of cuDNN in one phase where lengths vary, with its LengthOutcomes against the steady
    best (gen.analysis.dynamic)."""

    phase: str
    variant: str
    outcomes: tuple


@dataclass(frozen=True)
class Switch:
    """A switch probe of the set (an environment variable set for one run): its effect and detail as recorded."""

    name: str
    effect: str | None
    detail: str | None


@dataclass(frozen=True)
class LengthCost:
    """cuDNN's cost where lengths vary (the decision recommends a call that runs cuDNN): its first call at
    each new length against its steady call, per phase, from the set's dynamic-lengths runs (schema 4),
    and the variant that costs less in all below the fewest calls per length (its break-even calls).
    `measured` False: the set has no dynamic-lengths run of it (the words then say so)."""

    variant: str
    measured: bool
    phases: tuple[PhaseCost, ...] = ()
    instead: tuple[Instead, ...] = ()
    switch: Switch | None = None
    switch_steady: tuple[float, float] | None = None  # the steady call with the switch set, and without it (ms)
    # The decision's calls run no cuDNN, but unpinned SDPA, the call most code makes, picks cuDNN in this set: the
    # cost is said as that call's
    aside: bool = False
    # (phase, the steady best) that each `instead` call is set against: the words name it
    against: tuple[tuple[str, str], ...] = ()
    switch_facts: object | None = None  # the switch probe's dynamic.SwitchFacts (its first calls length by length)
    why_not: str | None = None  # not measured, the set's runs started no length: why (capture_gaps.Gaps.not_reached)



def _runs_cudnn(picks: tuple, exceptions: tuple, default: str) -> str | None:
    """The variant of the decision that runs cuDNN, if any: the default pinned to it, the default whose picks
    ran it, or an exception naming it."""
    if VARIANTS.get(default) is not None and VARIANTS[default].backend == "cudnn":
        return default
    if any(p.backend == "cudnn" for p in picks):
        return default
    return next((e.variant for e in exceptions if VARIANTS.get(e.variant) and VARIANTS[e.variant].backend == "cudnn"),
                None)


def lengths(ls: tables.LoadedSet, variant: str | None) -> LengthCost | None:
    """cuDNN's first-call cost per new length (schema 4's dynamic-lengths runs, no switch set), and per phase
    the variant that breaks even first against the steady fastest."""
    if variant is None:
        return None
    # the per-length costs and break-evens as the dynamic-lengths page gives them (gen.analysis.dynamic)
    pfs = {ph: dynamic.phase_facts(ls.rs, ph) for ph in dynamic.phases(ls.rs)}
    runs = [f for pf in pfs.values() for f in pf.measured]
    mine = [d for d in runs if d.variant in (variant, "sdpa_cudnn") and d.first_overhead_ms is not None
            and (d.variant == "sdpa_cudnn" or VARIANTS[variant].backend == "cudnn")]
    if not mine:  # runs the capture never started: why, not "no runs"
        return LengthCost(variant, False, why_not=dict(ls.gaps.not_reached).get("dynamic-lengths"))
    cudnn = {d.phase: d for d in mine if d.variant == "sdpa_cudnn"} or {d.phase: d for d in mine}
    phases = tuple(PhaseCost(ph, d.first_overhead_ms, d.steady_ms) for ph, d in cudnn.items()
                   if d.steady_ms is not None)
    instead, against = [], []
    for ph in cudnn:
        # a pinned call to make instead (the unpinned call's pick can differ between shapes)
        others = [d for d in pfs[ph].break_even if d.variant != cudnn[ph].variant
                  and d.variant != variant_role("automatic")]
        if others:  # the page's order: cheaper at any count at the most lengths first, then by the calls it holds
            instead.append(Instead(ph, others[0].variant, pfs[ph].per_length.get(others[0].variant, ())))
            against.append((ph, pfs[ph].steady_best.variant))
    probe = next((p for p in getattr(ls.rs, "switches", None) or []), None)
    sw = next((f for f in dynamic.switch_facts(ls.rs) if probe is not None and f.name == probe.name), None)
    steady = ((sw.steady_with_ms, sw.steady_without_ms) if sw is not None and sw.steady_with_ms is not None
              and sw.steady_without_ms is not None else None)
    return LengthCost(cudnn[next(iter(cudnn))].variant, True, phases, tuple(instead),
                      Switch(probe.name, probe.effect, probe.detail) if probe is not None else None, steady,
                      against=tuple(against), switch_facts=sw)


def cudnn_lengths(ls: tables.LoadedSet, vs: list[verdicts.Verdict], picks, exceptions,
                   default: str) -> LengthCost | None:
    """What cuDNN pays per new length where the decision runs it; else where unpinned SDPA picks it in this set
    (said aside: the call most code makes); else nothing."""
    got = lengths(ls, _runs_cudnn(picks, exceptions, default))
    if got is not None:
        return got
    auto = variant_role("automatic")
    if any(v.auto is not None and v.auto.variant == auto and (v.auto.backend or v.auto.kernel_backend) == "cudnn"
           for v in vs):
        got = lengths(ls, auto)
        return replace(got, aside=True) if got is not None and got.measured else None
    return None


@dataclass(frozen=True)
class FlashTrade:
    """Pinning SDPA's flash backend against the cuDNN call in one phase, once warm (Beside.flash_trade)."""

    flash_ms: float  # flash's warm call
    against_ms: float  # the cuDNN call's warm call
    # the calls at one length past which the cuDNN call costs less in all, its plan included: (cuDNN's first-call extra
    # - flash's) / (flash's warm - its); None where flash is no slower warm, so it costs less at any count
    calls: float | None
    against: str  # the cuDNN call: the default's where it is faster warm than pinned cuDNN, else pinned cuDNN
    pinned_ms: float  # pinned cuDNN's warm call


@dataclass(frozen=True)
class Beside:
    """What another set of the same GPU model and PyTorch measured of cuDNN at new lengths, for a set that did not: its
    name and title, per phase cuDNN's median first-call extra (LengthCost.phases, as
    that set's own page gives it) and SDPA flash's, pinned, where it ran."""

    name: str
    title: str
    phases: tuple[PhaseCost, ...]
    flash: tuple[tuple[str, float], ...] = ()  # (phase, SDPA flash's first-call extra ms)
    # (phase, SDPA flash's warm call in a loop, ms): pinning flash trades cuDNN's plan per new length for flash's
    # warm call, slower than cuDNN's in prefill (247 against 124 µs), and the advice
    # to pin it must say so
    flash_warm: tuple[tuple[str, float], ...] = ()
    # (phase, the default call's warm call in a loop, ms) where that call, SDPA unpinned, ran cuDNN's kernels there
    # (dynamic.PhaseFacts.warm_cache): in decode it is faster warm than pinned cuDNN (49.5 against 91.2 µs), and
    # pinning flash is set against the call the reader would otherwise make
    auto_warm: tuple[tuple[str, float], ...] = ()
    # (phase, the run fastest once warm of those whose first calls were measured cold, its first-call extra ms, its
    # warm call ms) where it runs no cuDNN (dynamic.PhaseFacts.steady_best), and (phase, the runs' batch): what a
    # decode page names for a growing cache (gen.analysis.growing_cache)
    best: tuple[tuple[str, str, float, float], ...] = ()
    batches: tuple[tuple[str, int], ...] = ()
    switches: tuple = ()  # the set's switch probes (dynamic.SwitchFacts): the phases each ran in and did not

    def flash_trade(self, phase: str) -> FlashTrade | None:
        """Flash's warm call against the cuDNN call's in `phase`, and the calls a length that decide between them;
        None where a warm call is not measured."""
        warm, extra = dict(self.flash_warm), dict(self.flash)
        cudnn = next(((p.first_extra_ms, p.steady_ms) for p in self.phases if p.phase == phase), None)
        if cudnn is None or phase not in warm:
            return None
        f, (cx, cw) = warm[phase], cudnn
        auto = dict(self.auto_warm).get(phase)
        who, ref = (variant_role("automatic"), auto) if auto is not None and auto < cw else ("sdpa_cudnn", cw)
        if f <= ref:
            return FlashTrade(f, ref, None, who, cw)
        return FlashTrade(f, ref, (cx - extra.get(phase, 0.0)) / (f - ref), who, cw)


def first_extra(ls: tables.LoadedSet, variant: str, field: str = "first_overhead_ms") -> tuple[tuple[str, float], ...]:
    """(phase, median first-call extra ms) of one variant's dynamic-lengths runs (gen.analysis.dynamic); `field`
    another of their DynamicFacts' medians ("steady_ms": its warm call in a loop)."""
    out = []
    for ph in dynamic.phases(ls.rs):
        d = next((d for d in dynamic.phase_facts(ls.rs, ph).measured if d.variant == variant), None)
        if d is not None and getattr(d, field) is not None:
            out.append((ph, getattr(d, field)))
    return tuple(out)


def beside(ls: tables.LoadedSet, title: str) -> Beside | None:
    """A set's cuDNN cost at new lengths as another set cites it; None where it measured none."""
    got = lengths(ls, "sdpa_cudnn")
    if got is None or not got.measured or not got.phases:
        return None
    auto = variant_role("automatic")
    on_cudnn = {ph for ph in dynamic.phases(ls.rs)
                if any(w.variant == auto and w.chose == "cudnn" for w in dynamic.phase_facts(ls.rs, ph).warm_cache)}
    return Beside(ls.name, title, got.phases, first_extra(ls, "sdpa_flash"), first_extra(ls, "sdpa_flash", "steady_ms"),
                  tuple((ph, ms) for ph, ms in first_extra(ls, auto, "steady_ms") if ph in on_cudnn),
                  _best(ls), tuple(dict.fromkeys((r.phase, r.point.batch) for r in ls.rs.dynamic if not r.env)),
                  tuple(dynamic.switch_facts(ls.rs)))


def _best(ls: tables.LoadedSet) -> tuple[tuple[str, str, float, float], ...]:
    """Beside.best: per phase the fastest once warm of the runs measured cold, where it runs no cuDNN."""
    out = []
    for ph in dynamic.phases(ls.rs):
        b = dynamic.phase_facts(ls.rs, ph).steady_best
        if b is not None and b.first_overhead_ms is not None and b.steady_ms is not None and \
                getattr(VARIANTS.get(b.variant), "backend", None) != "cudnn":
            out.append((ph, b.variant, b.first_overhead_ms, b.steady_ms))
    return tuple(out)
