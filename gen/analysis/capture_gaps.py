"""What a capture left out, and why: optional packages not installed, scenarios its time limit never reached.

A capture without an optional package (gen.model.variants.EXTRA_PACKAGES) records that package's variants
"unavailable: ... the optional <package> package ... is not installed" wherever it reached them; one stopped by its
time limit records the points it did not start "skipped: ... the run's time limit ...", and the dynamic-lengths runs it
did not start "stopped at N tokens: the run's time limit was reached" with no length. A variant of a missing package
past the time limit read as "the time limit was reached": a longer run would not have
measured it either.

Takes: a schema.ResultSet. Gives: `gaps(rs) -> Gaps` (the packages not installed and the variants they cost, whether
the time limit stopped the capture, the scenarios measured, those never reached with their reason, and those cut
short), read from the records (a record of such a variant that the time limit kept from running gives the package's
reason first: the capture writes it so from schema 6, gen.model.migrations.update_to_6 before);
`different_answers(sets, name, answer)`: the sets of the same GPU model and PyTorch whose answer differs.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.model import schema
from gen.model.migrations import NOT_INSTALLED, TIME_LIMIT
from gen.model.variants import EXTRA_PACKAGES

DYNAMIC = "dynamic-lengths"


@dataclass(frozen=True)
class Cut:
    """A scenario the time limit cut short: the points it measured of those planned (Gaps.cut)."""

    scenario: str
    measured: int
    planned: int


@dataclass(frozen=True)
class Gaps:
    packages: tuple[tuple[str, str], ...]  # (package, reader's name) not installed, in EXTRA_PACKAGES' order
    variants: tuple[str, ...]  # the variants they cost
    stopped: bool  # the time limit stopped the capture before some point
    duration_s: float | None
    measured: tuple[str, ...]  # scenarios with at least one measured point (or dynamic length), the set's order
    not_reached: tuple[tuple[str, str], ...]  # (scenario, why): none measured
    cut: tuple[Cut, ...]  # where the time limit cut a scenario short

    @property
    def any(self) -> bool:
        return bool(self.packages or self.not_reached or self.cut)


def _records(rs: schema.ResultSet):
    return [*rs.runs, *rs.sweep, *getattr(rs, "dynamic", [])]


def package_of(reason: str | None) -> str | None:
    """The package a reason says is not installed, or None."""
    m = NOT_INSTALLED.search(reason or "")
    return m.group(1) if m else None


STOPPED = "stopped by the time limit"  # Gaps.not_reached's why for a scenario the time limit kept the capture from


def _why(reasons: list[str]) -> str:
    if any(TIME_LIMIT in r for r in reasons):
        return STOPPED
    return "nothing measured"


def gaps(rs: schema.ResultSet) -> Gaps:
    """What the capture left out, read from its records."""
    lacking: dict[str, str] = {}
    for r in _records(rs):
        if (pkg := package_of(r.reason)) is not None:
            lacking.setdefault(r.variant, pkg)
    names = {p for p, _, _ in EXTRA_PACKAGES.values()}
    packages = tuple((p, who) for p, _, who in EXTRA_PACKAGES.values() if p in set(lacking.values()) & names)
    stopped = any(TIME_LIMIT in (r.reason or "") for r in _records(rs))
    order = [s.name for s in rs.scenarios] or list(dict.fromkeys(p.scenario for p in rs.sweep))
    measured, not_reached, cut = [], [], []
    for name in order:
        if name == DYNAMIC:
            runs = getattr(rs, "dynamic", [])
            if any(x.steady_ms is not None for r in runs for x in r.lengths):
                measured.append(name)
            elif runs:
                not_reached.append((name, _why([r.reason or "" for r in runs])))
            continue
        pts = [p for p in rs.sweep if p.scenario == name]
        if not pts:
            continue
        points = list(dict.fromkeys((p.mode, p.point) for p in pts))
        ok = [k for k in points if any(p.status == schema.Status.OK and (p.mode, p.point) == k for p in pts)]
        if not ok:
            not_reached.append((name, _why([p.reason or "" for p in pts])))
            continue
        measured.append(name)
        limited = [k for k in points if k not in ok and any(
            TIME_LIMIT in (p.reason or "") for p in pts if (p.mode, p.point) == k)]
        if limited:
            cut.append(Cut(name, len(ok), len(points)))
    return Gaps(packages, tuple(lacking), stopped, rs.duration_s, tuple(measured), tuple(not_reached), tuple(cut))


def siblings(sets, ls) -> list:
    """The other measured GPU sets of `ls`'s GPU model and PyTorch version."""
    env = ls.environment
    return [o for o in sets if o is not ls and o.kind == schema.SetKind.MEASURED and o.environment.device == "cuda"
            and (o.environment.gpu_name, o.environment.torch) == (env.gpu_name, env.torch)]


def measured_beside(sets, ls) -> dict[str, object]:
    """Per scenario the time limit kept `ls`'s capture from (Gaps.not_reached, STOPPED), the first of its siblings that
    measured it: its page of the scenario stands in for this set's."""
    out = {}
    for name, why in ls.gaps.not_reached:
        other = next((o for o in siblings(sets, ls) if name in o.gaps.measured), None) if why == STOPPED else None
        if other is not None:
            out[name] = other
    return out


def different_answers(sets, ls, answer_of) -> list[tuple[object, str]]:
    """The other measured sets of `ls`'s GPU model and PyTorch version whose answer (`answer_of(set)`: the variant it
    recommends, or None) differs from `ls`'s, as (set, its answer)."""
    mine = answer_of(ls)
    out = []
    for other in siblings(sets, ls):
        theirs = answer_of(other)
        if theirs is not None and mine is not None and theirs != mine:
            out.append((other, theirs))
    return out
