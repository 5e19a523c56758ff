"""What a call compiled per configuration (Variant.compiled: FlashAttention-4's CuTe DSL, FlexAttention under
torch.compile) pays at its first call: at one workload's configuration, and over a set.

Takes: a loaded set. Gives `at_point(ls, scenario, mode, variant) -> FirstCompile | None`, the compile a process pays
at its first call of the workload's configuration, and `spans(ls, variant) -> Spans | None`, the range over the set's
first calls that compiled, a forward's apart from a training step's (whose backward compiles too). The capture
appends records in the order it ran them (profiled runs, then the sweep: gen.analysis.first_calls), one process, so a
configuration compiled by an earlier workload is found warm by a later one: FlashAttention-4 at FP8 prefill took 6.9 ms,
grouped-query prefill's 2.13 s compile of the same configuration before it. Calls torch.compile compiles are built
afresh each run (Variant.torch_compiled): their own point's record holds their compile. A first call of
rules.STARTUP_NOTE_S or more compiled; under it, it found its configuration compiled. Numbers only:
gen.report.words.compiles words them.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import calls, rules, tables
from gen.analysis.recompiles import CONFIG_FIELDS
from gen.model import schema
from gen.model.scenarios import ARTICLE
from gen.model.variants import VARIANTS


@dataclass(frozen=True)
class CompiledBefore:
    """A compile by another variant of the same library (its classes), at the same configuration and mode, just before
    this one (FlashAttention-4's plain step before its deterministic one); what the two share is not recorded."""

    variant: str
    seconds: float


@dataclass(frozen=True)
class CompileRange:
    """The first calls of one variant in one mode that compiled: the fewest and most seconds, and how many."""

    fewest_s: float
    most_s: float
    count: int


@dataclass(frozen=True)
class FirstCompile:
    """The compile a first call at one workload's configuration paid, and which record paid it."""

    variant: str
    seconds: float
    mode: str
    own: bool  # paid at the workload's own point; else by `scenario`, which ran the configuration first
    scenario: str
    title: str | None = None  # `scenario`'s title, as the set records it
    ahead: bool = False  # a side process's compile, before the timings (gen.capture.precompile)
    merged: bool = False  # measured by a later capture call merged into the set
    after: CompiledBefore | None = None


@dataclass(frozen=True)
class Spans:
    """The set's first calls of one variant that compiled, a forward's and a training step's; None for a mode with
    none."""

    variant: str
    forward: CompileRange | None
    train: CompileRange | None
    # Training steps of another variant of the same library that compiled right after one of this variant's, at the
    # same configuration (FlashAttention-4's deterministic step; `variant` of each the other one). Outside the range
    # above, and what it would cost alone is not measured, yet the first screen may name that variant for
    # deterministic training
    train_after: tuple[CompiledBefore, ...] = ()


def _records(ls: tables.LoadedSet, variant: str, mode: str) -> list:
    """The variant's records in one mode that ran, in capture order."""
    return [r for r in (*ls.rs.runs, *ls.rs.sweep)
            if r.variant == variant and str(r.mode) == str(mode) and r.status == schema.Status.OK]


def _point(ls: tables.LoadedSet, r) -> schema.Point | None:
    return r.point if r.point is not None else calls.point_of(ls, r.scenario, r.mode)


def _config(p: schema.Point | None) -> tuple | None:
    if p is None:
        return None
    return tuple(tuple(v) if isinstance(v := getattr(p, f, None), list) else v for f in CONFIG_FIELDS)


def _compiled(r) -> bool:
    return r.compile_time_s is not None and r.compile_time_s >= rules.STARTUP_NOTE_S


def _own(ls: tables.LoadedSet, scenario: str, mode: str, variant: str, p: schema.Point):
    """The record of the workload's own point whose first call is reported: for the article its profiled run first,
    the capture's first call at that shape (the sweep's point at the same shape comes after it); elsewhere the sweep's
    point (another scenario's runs are at another shape)."""
    recs = [r for r in _records(ls, variant, mode) if r.scenario == scenario and _point(ls, r) == p]
    if scenario != ARTICLE:
        recs = [r for r in recs if r in ls.rs.sweep]
    return next((r for r in recs if r.compile_time_s is not None), None)


def _after(ls: tables.LoadedSet, rec, mode: str) -> CompiledBefore | None:
    """FirstCompile.after: the nearest earlier record of a variant with the same classes, at the same configuration
    and mode, that compiled."""
    mine = VARIANTS[rec.variant].classes
    recs = [r for r in (*ls.rs.runs, *ls.rs.sweep) if str(r.mode) == str(mode) and r.status == schema.Status.OK]
    at = next((i for i, r in enumerate(recs) if r is rec), None)
    cfg = _config(_point(ls, rec))
    for r in reversed(recs[:at] if at is not None else []):
        if (r.variant != rec.variant and r.variant in VARIANTS and VARIANTS[r.variant].classes == mine
                and _compiled(r) and _config(_point(ls, r)) == cfg):
            return CompiledBefore(r.variant, r.compile_time_s)
    return None


def at_point(ls: tables.LoadedSet, scenario: str, mode: str, variant: str | None) -> FirstCompile | None:
    """The compile `variant`'s first call at the workload's configuration pays (module docstring); None where it is
    not compiled per configuration, or the set records no compile for it there."""
    decl = VARIANTS.get(variant) if variant else None
    p = calls.point_of(ls, scenario, mode)
    if decl is None or not decl.compiled or p is None:
        return None
    rec = _own(ls, scenario, mode, variant, p)
    own = True
    if rec is None:  # not run at this workload
        return None
    if not decl.torch_compiled and not _compiled(rec):
        # found warm here: the configuration's first call in the capture paid it
        cfg = _config(p)
        rec = next((r for r in _records(ls, variant, mode) if _compiled(r) and _config(_point(ls, r)) == cfg), None)
        own = False
    if rec is None or rec.compile_time_s is None:
        return None
    sc = ls.outline.scenario(rec.scenario)
    after = None if decl.torch_compiled else _after(ls, rec, mode)
    return FirstCompile(variant, rec.compile_time_s, str(mode), own, rec.scenario, sc.title if sc else None,
                        bool(rec.compiled_ahead), bool(rec.captured), after)


def spans(ls: tables.LoadedSet, variant: str) -> Spans | None:
    """The variant's first calls over the set that compiled, by mode; None where it is not compiled per configuration
    by its own library (torch.compile's runs compile by construction, each a fresh build) or none compiled."""
    decl = VARIANTS.get(variant)
    if decl is None or not decl.compiled or decl.torch_compiled:
        return None

    def span(mode: str) -> CompileRange | None:
        xs = [r.compile_time_s for r in _records(ls, variant, mode) if _compiled(r)]
        return CompileRange(min(xs), max(xs), len(xs)) if xs else None
    fw, tr = span(schema.Mode.INFERENCE), span(schema.Mode.TRAIN)
    if not (fw or tr):
        return None
    kin = [x for x, d in VARIANTS.items() if x != variant and d.compiled and not d.torch_compiled
           and d.classes == decl.classes]
    after = tuple(CompiledBefore(r.variant, r.compile_time_s) for x in kin for r in _records(ls, x, schema.Mode.TRAIN)
                  if _compiled(r) and (b := _after(ls, r, schema.Mode.TRAIN)) is not None and b.variant == variant)
    return Spans(variant, fw, tr, after)
