"""Where a call its own library compiles per configuration (FlashAttention-4's CuTe DSL) compiled again in the
dynamic-lengths runs, and what differed from the set's earlier run of it nearest in configuration.

Takes: a ResultSet (its `dynamic` runs and inference `sweep`). Gives: `recompiles(rs)`, one `Recompile` per run of a
compiled variant whose first length paid rules.STARTUP_NOTE_S or more: the earlier run that had compiled the
configuration nearest to it (fewest of CONFIG_FIELDS differing), and the fields that differ. The dynamic-lengths runs
come after the set's other scenarios in the same capture process, so a configuration compiled there was warm, and a
compile here is one the configuration fields that differ, or something the set does not record, must explain. Calls
torch.compile compiles are left out: the capture starts each of their runs from a fresh compile
(Variant.torch_compiled), so their first length compiles by construction.
Numbers only: the words are gen.report.words.decision's and gen.report.pages.dynamic's.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import rules
from gen.model import schema
from gen.model.variants import VARIANTS

# The point's fields a compiled call's configuration is compared on; the lengths (q_len, kv_len) are not among them:
# the set's decode runs at 16k-128k keys paid no compile after the first at 4k
CONFIG_FIELDS = ("batch", "q_heads", "kv_heads", "head_dim", "mask", "window", "docs")


@dataclass(frozen=True)
class FieldDiff:
    """One of CONFIG_FIELDS on which a recompiled run differs from the earlier run nearest in configuration."""

    name: str
    there: object  # the earlier run's value
    here: object  # this run's


@dataclass(frozen=True)
class Recompile:
    variant: str
    phase: str  # the dynamic-lengths phase: prefill or decode
    first_ms: float  # the run's first call, at its first length
    scenario: str  # the earlier run nearest in configuration: its scenario
    earlier_first_s: float | None  # that run's first call (its compile), s
    differs: tuple[FieldDiff, ...]  # each of CONFIG_FIELDS that differs
    same: tuple[tuple[str, object], ...]  # (field, value) for each that is the same


def _value(p: schema.Point, name: str):
    v = getattr(p, name, None)
    return tuple(v) if isinstance(v, list) else v


def _differing(there: schema.Point, here: schema.Point) -> list[str]:
    return [f for f in CONFIG_FIELDS if _value(there, f) != _value(here, f)]


def recompiles(rs: schema.ResultSet) -> tuple[Recompile, ...]:
    out = []
    for run in rs.dynamic or ():
        decl = VARIANTS.get(run.variant)
        if (decl is None or not decl.compiled or decl.torch_compiled or run.env or not run.lengths
                or run.status != schema.Status.OK):
            continue
        first = run.lengths[0].first_ms
        if first is None or first < rules.STARTUP_NOTE_S * 1e3:
            continue
        decode = run.point.q_len == 1
        earlier = [s for s in rs.sweep if s.variant == run.variant and s.mode == schema.Mode.INFERENCE
                   and s.status == schema.Status.OK and (s.point.q_len == 1) == decode]
        if not earlier:
            continue

        near = min(earlier, key=lambda s: len(_differing(s.point, run.point)))  # the first in capture order of those
        diff = _differing(near.point, run.point)
        out.append(Recompile(run.variant, run.phase, first, near.scenario, near.first_call_s,
                             tuple(FieldDiff(f, _value(near.point, f), _value(run.point, f)) for f in diff),
                             tuple((f, _value(run.point, f)) for f in CONFIG_FIELDS if f not in diff
                                   and _value(run.point, f) is not None)))
    return tuple(out)
