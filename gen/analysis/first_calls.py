"""A call's first calls over one capture, each classed by what it paid: cuDNN's start-up is
not one-time. In the committed H100 and H200 sets a new kind of problem (the backward, decode, another mask or head
dim) paid 0.38-1.79 s again, a new shape of a kind already set up 36 ms to 0.16 s, the same problem again under a
millisecond.

Takes: a loaded set and a variant. Gives `first_calls(ls, variant)`: its records that timed a first call (the profiled
runs, then the sweep's points, in the order the capture appends them: one process, gen.capture.runner), each with
what was new about it. The split between a new kind and a new shape is by the time paid (NEW_KIND_S), never by hand;
what was new (`new`) describes a point, it does not class it. No words.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import calls, tables
from gen.model import schema

# A first call at a new point that took at least this long set up a new kind of problem (cuDNN builds and loads
# another engine); under it, a new shape of a kind already set up. The committed sets part at a wide gap: new shapes
# took 36-89 ms (a deterministic backward's 0.13-0.16 s), new kinds 0.38-1.79 s. 0.25 s sits in that gap near its
# geometric middle. A project choice read off those sets, not a cuDNN constant.
NEW_KIND_S = 0.25

# What makes a kind of problem, in the order a point's description names them: the pass (forward or backward), the
# head dim, one query a step (decode) or more, the mask
KIND_FIELDS = ("mode", "head_dim", "decode", "mask")


@dataclass(frozen=True)
class FirstCall:
    scenario: str
    mode: str
    point: schema.Point
    first_call_s: float
    first: bool  # the variant's first record in the capture (its first call in the process, where it is one)
    run: bool  # a profiled run's first call, else a sweep point's
    seen: bool  # the same mode at the same point was called before: the same problem again, nothing new to set up
    # KIND_FIELDS on which this point differs from the nearest kind called before (the fewest fields apart; all
    # nearest kinds' fields where several tie); () where its kind was called before or it is the first
    new: tuple[str, ...] = ()

    @property
    def new_kind(self) -> bool:
        """A first call that set up a new kind of problem, by what it paid (NEW_KIND_S)."""
        return not self.first and not self.seen and self.first_call_s >= NEW_KIND_S

    @property
    def new_shape(self) -> bool:
        """A first call at a new point of a kind already set up, by what it paid."""
        return not self.first and not self.seen and self.first_call_s < NEW_KIND_S


def kind(mode: str, p: schema.Point) -> tuple:
    """A point's kind of problem: its values of KIND_FIELDS."""
    return (str(mode), p.head_dim, p.q_len == 1, str(p.mask))


def _new(k: tuple, before: list[tuple]) -> tuple[str, ...]:
    """The fields on which kind `k` differs from the nearest kinds in `before` (see FirstCall.new)."""
    if not before or k in before:
        return ()
    apart = [{f for f, a, b in zip(KIND_FIELDS, k, o) if a != b} for o in dict.fromkeys(before)]
    fewest = min(len(x) for x in apart)
    fields = set().union(*(x for x in apart if len(x) == fewest))
    return tuple(f for f in KIND_FIELDS if f in fields)


def first_calls(ls: tables.LoadedSet, variant: str) -> tuple[FirstCall, ...]:
    """The variant's records that timed a first call, in capture order (runs, then the sweep), classed; () where its
    runs do not record whether they were the process's first call of their backend (before schema 3): such a capture
    cannot tell what a new problem paid from what a new process paid."""
    runs = [r for r in ls.rs.runs if r.variant == variant]
    if not any(r.first_in_process is not None for r in runs):
        return ()
    recs = [(r, True) for r in runs] + [(s, False) for s in ls.rs.sweep if s.variant == variant]
    out, kinds, points = [], [], set()
    for r, run in recs:
        p = r.point if r.point is not None else calls.point_of(ls, r.scenario, r.mode)
        if r.status != schema.Status.OK or r.first_call_s is None or p is None:
            continue
        k = kind(r.mode, p)
        out.append(FirstCall(r.scenario, str(r.mode), p, r.first_call_s, first=not out, run=run,
                             seen=(str(r.mode), p) in points, new=_new(k, kinds)))
        kinds.append(k)
        points.add((str(r.mode), p))
    return tuple(out)


def own_first_slower(run) -> bool:
    """A side process compiled the call before the timings (compiled_ahead) and the capture's own first call still took
    longer than that compile: the start-up a user pays is then the own first call, not the compile (the variant page led
    with the 0.24 s compile where the findings gave the 3.61 s start-up)."""
    own, ahead = run.first_call_s, run.compile_time_s
    return bool(run.compiled_ahead) and own is not None and ahead is not None and own > ahead
