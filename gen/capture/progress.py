"""Progress of a capture: a bar with the time left, and the time by stage.

Takes: the number of items a capture will measure (runs, counter passes,
ceilings, sweep points) and, as each ends, its stage and seconds. Gives:
`Progress.done(stage, seconds)`, `left_s()` (remaining items times the mean
seconds of their stage so far, else of every item), `suffix()` for the log
line ("12/243, 3m10s left"), and a tqdm bar on a terminal (tqdm is optional:
without it, or when stderr is not a terminal, the log lines carry the same
figures). `say(line)` prints a log line above the bar. Standard library only
(tqdm imported guarded).
"""

from __future__ import annotations

import sys
from collections import defaultdict

_BAR: list = []  # the live bar, if any: log lines go above it


def say(msg: str) -> None:
    if _BAR:
        _BAR[0].write(msg, file=sys.stderr)
    else:
        print(msg, file=sys.stderr, flush=True)


def _fmt(s: float) -> str:
    s = max(0, int(round(s)))
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Progress:
    def __init__(self, remaining: dict[str, int], bar: bool | None = None):
        """remaining: items still to do per stage."""
        self.remaining = dict(remaining)
        self.total = sum(remaining.values())
        self.count = 0
        self.seconds: dict[str, list[float]] = defaultdict(list)
        self.bar = None
        use = sys.stderr.isatty() if bar is None else bar
        if use and self.total:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=self.total, unit="pt", file=sys.stderr, dynamic_ncols=True,
                                bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{postfix}]")
                _BAR[:] = [self.bar]

    def done(self, stage: str, seconds: float) -> None:
        self.count += 1
        self.seconds[stage].append(seconds)
        if self.remaining.get(stage, 0) > 0:
            self.remaining[stage] -= 1
        if self.bar is not None:
            self.bar.set_postfix_str(f"{_fmt(self.left_s())} left", refresh=False)
            self.bar.update(1)

    def left_s(self) -> float:
        every = [s for xs in self.seconds.values() for s in xs]
        mean_all = sum(every) / len(every) if every else 0.0
        left = 0.0
        for stage, n in self.remaining.items():
            xs = self.seconds.get(stage)
            left += n * (sum(xs) / len(xs) if xs else mean_all)
        return left

    def suffix(self) -> str:
        return f"{self.count}/{self.total} done, {_fmt(self.left_s())} left"

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
            _BAR.clear()


def summary(stage_seconds: dict[str, float]) -> list[str]:
    """The closing lines: time by stage, largest first, with shares."""
    total = sum(stage_seconds.values()) or 1.0
    lines = [f"time by stage ({_fmt(total)} in all):"]
    for stage, s in sorted(stage_seconds.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {stage:<22} {s:7.1f} s  {100 * s / total:4.1f}%")
    return lines


class Phases(dict):
    """Seconds per phase of one item (build, first call, warm-up, rounds,
    profiled calls...): `with phases("build"): ...` adds to "build". The
    capture log gives them per point, and their sum over the sweep, so that
    where a capture's time goes inside a stage can be read."""

    def __call__(self, name: str):
        return _PhaseTimer(self, name)

    def line(self) -> str:
        return " ".join(f"{k} {v:.2f}" for k, v in self.items() if v >= 0.005)


class _PhaseTimer:
    def __init__(self, phases: Phases, name: str):
        self.phases, self.name = phases, name

    def __enter__(self):
        import time

        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        import time

        self.phases[self.name] = self.phases.get(self.name, 0.0) + time.perf_counter() - self.t0
        return False
