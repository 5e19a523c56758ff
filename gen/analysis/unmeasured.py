"""FlashAttention-4 where a verdict did not measure it (issue 32): a set captured without the `.[fa4]` extra, or
before the variants existed, ranks what it measured, and the fastest of those is not the fastest of all.

Takes: a ResultSet and the variants a verdict holds. Gives: `absent_fa4(rs, held)`: the FA4 variants the verdict
holds no record of and the set records nowhere, each a NotMeasured with the install command as the reason, for a
GPU set
(FA4 runs only on one); `fa4_missing(not_measured)`: whether any FA4 variant is among a verdict's unmeasured.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gen.model import schema
from gen.model.variants import FA4_INSTALL

# The FA4 paths every ranked scenario can run: the direct call and FlexAttention's FLASH backend
FA4_FAMILY = ("fa4", "flex_flash")
NOT_MEASURED = "not measured"
ABSENT_REASON = f"{FA4_INSTALL} was not in this set's capture (or the capture predates the variant)"


@dataclass(frozen=True)
class NotMeasured:
    """A variant a verdict holds no time of, with the status and reason the capture recorded (Verdict.not_measured)."""

    variant: str
    status: str
    reason: str | None


def absent_fa4(rs: schema.ResultSet, held: Iterable[str]) -> tuple[NotMeasured, ...]:
    if rs.kind != schema.SetKind.MEASURED or rs.environment.device != "cuda":
        return ()
    held = set(held)
    # A variant the set records elsewhere but not in this verdict does not apply to its scenario: not missing
    known = {r.variant for r in rs.runs} | {p.variant for p in rs.sweep}
    return tuple(NotMeasured(v, NOT_MEASURED, ABSENT_REASON) for v in FA4_FAMILY if v not in held and v not in known)


def fa4_missing(not_measured: Iterable[NotMeasured]) -> list[str]:
    """The FA4 variants among a verdict's unmeasured rows, in FA4_FAMILY's order."""
    got = {x.variant for x in not_measured}
    return [v for v in FA4_FAMILY if v in got]
