"""What a verdict (gen.analysis.verdicts.Verdict) notes beside its ranking, as records read by name: rows the sweep
did not measure at the verdict's point, rows measured by a later capture call, and pairs that another window's or
the equal-clock order puts the other way round. Numbers and names only: gen.report.words words them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SweepGap:
    """A row ranked from the profiled runs that the sweep did not measure at the same point, with the sweep's reason."""

    variant: str
    reason: str | None


@dataclass(frozen=True)
class OrderFlip:
    """Two ranked rows another scenario timed at the same point in the opposite as-run order: its times of the two."""

    first: str  # ahead here
    second: str  # ahead there
    scenario: str  # the other scenario
    first_ms: float
    second_ms: float


@dataclass(frozen=True)
class OtherCall:
    """A ranked row measured by another capture call than the set's own (merged in by gen import --merge)."""

    variant: str
    captured: str  # that call's start, ISO 8601


@dataclass(frozen=True)
class ClockFlip:
    """Two ranked rows the equal-clock order puts the other way round from the as-run one (Verdict.clock_flips)."""

    first: str  # ahead as run
    second: str  # ahead at equal clock
