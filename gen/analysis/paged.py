"""The paged-KV answer of a verdict (issue 32): it rests on the variants that page (a page table: FA4's
`page_table`, FlexAttention's paged block mask), never on SDPA, which reads a contiguous cache only.

Takes: a verdict. Gives: `paged_facts(v)`: the paging variants ranked by the verdict's own time, the fastest
call of all beside them, the fastest paging call's same call on a contiguous cache (Variant.contiguous: what
paging alone costs) where that was measured, and those that page but were not measured; None where the scenario
has no paging variant at all. Numbers only.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis.calls import overlaps
from gen.analysis.unmeasured import NotMeasured
from gen.model.variants import VARIANTS, pages


@dataclass(frozen=True)
class PagedFacts:
    ranked: tuple[tuple[str, float], ...]  # (variant, median of the verdict's basis, ms), fastest first
    fastest: str  # the verdict's fastest call, which may read a contiguous cache only
    fastest_ms: float
    not_measured: tuple[NotMeasured, ...]  # paging variants with no time
    # The fastest paging call's same call on a contiguous cache (Variant.contiguous), where measured: its median, and
    # whether the two medians' 95% intervals are apart. Paging's own cost is ranked[0] against it: the fastest call on
    # a contiguous cache may run another kernel, whose gap is not paging's.
    contiguous: str | None = None
    contiguous_ms: float | None = None
    contiguous_apart: bool | None = None


def paged_facts(v) -> PagedFacts | None:
    ranked = []
    for t in v.rows:
        s = v.spread(t)
        if pages(t.variant) and s is not None:
            ranked.append((t.variant, s.median))
    missing = tuple(x for x in v.not_measured if pages(x.variant))
    if not ranked and not missing:
        return None
    fs = v.spread(v.fastest)
    ranked = sorted(ranked, key=lambda r: r[1])
    same = {}
    if ranked:
        twin = VARIANTS[ranked[0][0]].contiguous
        a, b = v.spread(v.row(ranked[0][0])), v.spread(v.row(twin)) if twin and v.row(twin) else None
        if a is not None and b is not None:
            same = dict(contiguous=twin, contiguous_ms=b.median, contiguous_apart=not overlaps(a, b))
    return PagedFacts(tuple(ranked), v.fastest.variant, fs.median if fs is not None else float("nan"), missing,
                      **same)
