"""The calls an exception of What to call (gen.analysis.advice.Exception_) ranks between its own call and the default,
where the default got the mask as a dense attn_mask: each with its time over the exception's, and, where host-bound,
what an eager loop of it pays. Records only: advice fills them, gen.report.words.decision words them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Between:
    """A call given the mask's structure, ranked between the exception's call and the default (Exception_.between)."""

    variant: str
    ratio: float  # its time over the exception's call's


@dataclass(frozen=True)
class BetweenLoop:
    """A host-bound call of Exception_.between: what a Python loop of eager calls of it pays on this host."""

    variant: str
    loop_ms: tuple[float, float]  # its eager median and the exception's call's
    host_ms: float | None  # its host median, where measured
