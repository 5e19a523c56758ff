"""Which sweep points are not run, and why: predictions from the points measured so far.

Takes: a planned `Job` (gen.capture.sweep_plan), the `Series` of points its
series measured so far (and, through `Growth`, what every series of the run
said of the variant's first calls), the run's deadline (time.monotonic())
and the device. Gives: `not_run(job, seen, deadline, device)`, None or the
reason a point is skipped: an OOM at a shorter length, a call predicted past
MAX_CALL_MS, a first call (compile, autotuning) predicted past
MAX_FIRST_CALL_S, a score matrix Inductor's autotuner would copy to the host,
or the time limit (less WRITE_MARGIN_S to write the set); and the
predictions it rests on (`predicted_call_ms`, `predicted_s`,
`Series.first_call_s`).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time
from dataclasses import dataclass

import torch

from gen.capture.attention import AUTOTUNE_ROOM_SHARE
from gen.capture.sweep_plan import Job
from gen.model import schema

# A point whose call is predicted (from the last point of its series) to take
# longer than this is not run: at that length the variant is far off every
# other (the naive product at 16k tokens), and a few calls of it would take
# a large share of the whole capture's budget.
MAX_CALL_MS = 250.0
# Likewise a first call (compile, autotuning at that length, plans) predicted
# past this: on the H200 the compiled naive product's first call took 17 s at
# 8k tokens and 72 s at 16k (its Triton kernels benchmarked at each length).
MAX_FIRST_CALL_S = 30.0

# Kept to write the set after the last point the time limit lets start.
WRITE_MARGIN_S = 30.0


def predicted_call_ms(last_ms: float, prev: schema.Point, nxt: schema.Point) -> float:
    """The next point's time per call from the last one's (work grows with q_len x kv_len)."""
    return last_ms * (nxt.kv_len / prev.kv_len) * (nxt.q_len / prev.q_len)


def predicted_s(last_s: float, prev: schema.Point, nxt: schema.Point, compiled: bool) -> float:
    """The next point's time from the last one's: prefill work grows with
    q_len x kv_len, decode with kv_len; a compiled variant's time is mostly
    its compile, which grows more slowly."""
    ratio = nxt.kv_len / prev.kv_len
    work = ratio * (nxt.q_len / prev.q_len)
    return last_s * (ratio if compiled else max(work, 1.0))


@dataclass
class Growth:
    """What every series of the run said so far about the first calls of a
    variant in one mode: (scenario, point, first call s) over
    FIRST_CALL_FLOOR_S, and the largest growth exponent one series showed.
    A series with too few first calls of its own (the article's D=128 points,
    the sliding window's one 16k point) is predicted from these."""

    firsts: dict = dataclasses.field(default_factory=dict)  # (variant, mode) -> [(scenario, point, s)]
    exponent: dict = dataclasses.field(default_factory=dict)  # (variant, mode) -> exponent


@dataclass
class Series:
    """What the measured points of one series (lengths growing) say about the next."""

    oom_at: int | None = None  # the first length that ran out of memory
    last_s: float = 0.0  # the last measured point's seconds, all phases
    prev: schema.Point | None = None  # the last measured point
    last_ms: float | None = None  # its time per call
    firsts: list = dataclasses.field(default_factory=list)  # (point, first call s) where over FIRST_CALL_FLOOR_S
    growth: Growth | None = None  # the run's, shared by its series
    key: tuple = ()  # (variant, mode)
    scenario: str = ""
    flat: bool = False  # a first call under FIRST_CALL_FLOOR_S came after one over it

    def add(self, p: schema.SweepPoint, point: schema.Point, seconds: float) -> None:
        if p.status == schema.Status.OK:
            self.last_s, self.prev = seconds, point
            times = p.timing.gpu_only_ms or p.timing.eager_ms
            self.last_ms = statistics.median(times) if times else None
            if self.firsts and p.first_call_s is not None and p.first_call_s <= FIRST_CALL_FLOOR_S:
                self.flat = True  # more work, and the first call fell back under a second: no growth
            if p.first_call_s and p.first_call_s > FIRST_CALL_FLOOR_S:
                self.firsts.append((point, p.first_call_s))
                if self.growth is not None:
                    self.growth.firsts.setdefault(self.key, []).append((self.scenario, point, p.first_call_s))
                    own = self._own_exponent()
                    if own is not None:
                        self.growth.exponent[self.key] = max(own, self.growth.exponent.get(self.key, 0.0))
        elif p.status == schema.Status.OOM and self.oom_at is None and not (p.reason or "").startswith("not run"):
            self.oom_at = point.kv_len

    def _own_exponent(self) -> float | None:
        if len(self.firsts) < 2:
            return None
        (p0, f0), (p1, f1) = self.firsts[-2:]
        w = _work(p1) / _work(p0)
        return min(1.0, max(0.0, math.log(f1 / f0) / math.log(w))) if w > 1.0 else None

    def first_call_s(self, nxt: schema.Point) -> tuple[float, float, str, str] | None:
        """(predicted first call, growth exponent, from what, whose growth) at `nxt`: a
        measured first call times the work ratio raised to an exponent (0 to
        1; 0: a compile's cost is mostly fixed, and only autotuning, which
        runs the kernels, grows with the work). From the series' last first
        call with the exponent its last two showed; with fewer than two, the
        largest exponent the variant showed in another series; with none, from
        the variant's largest first call (at no more work than this point's,
        and at least 1/MAX_CROSS_WORK_RATIO of it) in each other scenario
        (the same Python, the same kernels), the one that predicts the most."""
        shared = self.growth.exponent.get(self.key) if self.growth is not None else None
        if self.firsts:
            (p1, f1) = self.firsts[-1]
            own = self._own_exponent()
            exponent = own if own is not None else (0.0 if self.flat else shared or 0.0)
            whose = "the first calls so far" if own is not None or self.flat or not shared else \
                "the variant's first calls in another series"
            return (f1 * max(1.0, _work(nxt) / _work(p1)) ** exponent, exponent,
                    f"{f1:.1f} s at {p1.kv_len} tokens", whose)
        others = [(sc, p, f) for sc, p, f in (self.growth.firsts.get(self.key, []) if self.growth else [])
                  if _work(p) <= _work(nxt) <= _work(p) * MAX_CROSS_WORK_RATIO]
        if not others or shared is None:
            return None
        # Each scenario's largest first call (a small one is mostly the compile's fixed cost)...
        top = {sc: max((x for x in others if x[0] == sc), key=lambda x: _work(x[1])) for sc, _, _ in others}
        # ...and of those, the one that predicts the most.
        sc, p1, f1 = max(top.values(), key=lambda x: x[2] * (_work(nxt) / _work(x[1])) ** shared)
        return (f1 * (_work(nxt) / _work(p1)) ** shared, shared,
                f"{f1:.1f} s at {sc}'s {p1.kv_len} tokens (B={p1.batch}, {p1.q_heads} query heads)",
                "the variant's first calls in another series")


def _work(p: schema.Point) -> float:
    """The size of the score matrix: what the compiled naive product's autotuner runs its kernels over."""
    return float(p.batch) * float(p.q_heads) * float(p.q_len) * float(p.kv_len)

# A first call shorter than this is plans and loading, not a compile: it says nothing of the next.
FIRST_CALL_FLOOR_S = 1.0
# Another scenario's first call predicts this one's only from at most this many times less work: one
# decode step's score matrix is hundreds of times smaller than a 16k prefill's, and its compile
# (1 to 2 s, whatever the cache) says nothing of the prefill's autotuning. (A first H200 capture without
# this bound skipped the sliding window's FlexAttention, predicted 37 s from decode's 1.8 s.)
MAX_CROSS_WORK_RATIO = 16.0


# The compiled naive product writes its score matrix in place, so Inductor's autotuner must keep the
# matrix safe while it times candidate configs: a clone on the GPU where the peak memory seen so far
# leaves room for it (attention.room_for_autotuning lends half the free memory), else a pinned host
# copy made for every candidate and copied back after every timed call (triton_heuristics'
# copy_args_to_cpu_if_needed and restore_args_from_cpu). On the H200 that took 16.6 s of a 21.3 s
# first call at 8k tokens (17 GB; 4.7 s with the room: benchmarks/data/compile_probe_room.json), and it
# grows with the matrix: a point whose matrix is past the room is not run.
SCORE_BYTES = 2  # bf16
GIB = 2.0 ** 30


def _autotune_copies(job: Job, device: torch.device) -> str | None:
    """Why a compiled naive point is not run: its score matrix is past the room the autotuner's copy has."""
    if job.variant.kind != "naive_compiled" or device.type != "cuda" or not torch.cuda.is_available():
        return None
    pt = job.point
    scores = pt.batch * pt.q_heads * pt.q_len * pt.kv_len * SCORE_BYTES
    free, total = torch.cuda.mem_get_info(device)
    if scores > free:
        # free is what this process left, not the GPU's capacity: say both
        # in GiB, as PyTorch's out-of-memory messages beside it are
        return (f"not run: the {scores / GIB:.2f} GiB score matrix alone is more than the {free / GIB:.2f} GiB left "
                f"free on the GPU at this point (of its {total / GIB:.2f} GiB; the rest held by the capture)")
    # The room is a share of the free memory, and the matrix itself is allocated out of it first.
    if scores <= free * AUTOTUNE_ROOM_SHARE - scores:
        return None
    return (f"not run: the first call's autotuner would keep a pinned host copy of the {scores / GIB:.2f} GiB "
            f"score matrix for every candidate config and copy it back after every timed call, the matrix being "
            f"more than the room the capture lends the autotuner on the GPU (half the free memory, "
            f"{free * AUTOTUNE_ROOM_SHARE / GIB:.2f} GiB, less the matrix itself); "
            f"benchmarks/data/compile_probe_room.json measured that path at 8k tokens")


def not_run(job: Job, seen: Series, deadline: float, device: torch.device) -> str | None:
    """Why a point is not run, or None: an OOM at a shorter length, a call or
    a first call predicted past MAX_CALL_MS or MAX_FIRST_CALL_S, a score matrix
    the autotuner must copy to the host, or the run's time limit."""
    if seen.oom_at is not None:
        return f"not run: out of memory already at {seen.oom_at} tokens"
    if (copies := _autotune_copies(job, device)) is not None:
        return copies
    prev = seen.prev
    # On a GPU only: a CPU's times (a capture for tests) move with its load.
    first = seen.first_call_s(job.point) if device.type == "cuda" else None
    if first is not None and first[0] > MAX_FIRST_CALL_S:
        return (f"not run: predicted a first call of {first[0]:.0f} s from {first[2]} "
                f"({first[3]} grew as the work to the power {first[1]:.2f}), over the "
                f"{MAX_FIRST_CALL_S:.0f} s that a whole capture in minutes allows")
    if prev is not None and seen.last_ms and device.type == "cuda":
        call_ms = predicted_call_ms(seen.last_ms, prev, job.point)
        if call_ms > MAX_CALL_MS:
            return (f"not run: predicted {call_ms:.0f} ms a call from {seen.last_ms:.1f} ms at {prev.kv_len} "
                    f"tokens (work grows with q_len x kv_len), over the {MAX_CALL_MS:.0f} ms a call that a whole "
                    f"capture in minutes allows")
    predicted = predicted_s(seen.last_s, prev, job.point, job.variant.compiled) if prev else 0.0
    if time.monotonic() + predicted > deadline - WRITE_MARGIN_S:
        return (f"not run: predicted {predicted:.0f} s from the last point, past the run's time limit"
                if prev else "not run: the run's time limit was reached")
    return None
