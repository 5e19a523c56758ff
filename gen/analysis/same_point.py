"""The same point timed by two scenarios of one set (the same shape, mask and dtype; packed documents never match):
each shared variant's times in the two windows, like with like, and whether the windows' conditions moved them past
their intervals. Takes a loaded set; gives `same_point_elsewhere`.
Numbers only: gen.report.words.scenarios.same_point_line words them."""

from __future__ import annotations

from gen.analysis import determinism_rule, points, rules, tables, timings
from gen.analysis.timings import row_spread
from gen.analysis.values import missing
from gen.model import schema

_SAME_POINT_KEYS = ("mode", "batch", "q_heads", "kv_heads", "head_dim", "q_len", "kv_len", "mask", "window", "dtype")


def _timed_by_point(ls: tables.LoadedSet, scenario: str) -> dict[tuple, dict[str, dict]]:
    """A scenario's timed rows that answered right, by point (_SAME_POINT_KEYS; packed documents left out).
    Made once per set and scenario (every verdict and scenario page asks for every other scenario's): shared,
    read it."""
    key = ("timed by point", scenario)
    if key not in ls._tables:
        ls._tables[key] = _timed_by_point_of(ls, scenario)
    return ls._tables[key]


def _timed_by_point_of(ls: tables.LoadedSet, scenario: str) -> dict[tuple, dict[str, dict]]:
    out: dict[tuple, dict[str, dict]] = {}
    for r in points.point_rows(ls, scenario):
        if r.get("docs") and not missing(r.get("docs")):
            continue
        if r["status"] == schema.Status.OK and not missing(r["gpu_only_ms"]) and not bool(r.get("wrong")):
            out.setdefault(tuple(str(r.get(k)) for k in _SAME_POINT_KEYS), {})[r["variant"]] = r
    return out


def same_point_elsewhere(ls: tables.LoadedSet, scenario: str) -> list[dict]:
    """Variants this scenario timed at a point another scenario of the set timed too (the same shape, mask
    and dtype; packed documents never match): per other scenario and point, each shared variant's as-run
    time and SM clock here and there (`here`, `there`, and `variants`/`order_there`, the two as-run orders by bare
    medians, which the verdicts read), and for the page, like with like:

    - `rows`: per shared variant, in the order here, (variant, time here, its clock, time there, its clock, both
      kernel sums, its two intervals apart): a variant whose GPU-only time is a graph replay in one window and a
      kernel sum in the other is compared by both kernel sums (determinism_rule.like_with_like), each at its own
      window's clock, and then has no intervals to set apart (None);
    - `orders_differ`: the like-with-like order differs between the two windows; `swapped`: the pairs it puts the
      other way round, (ahead here, ahead there, their intervals overlap here, there) each (None: a kernel sum);
    - `moved`: the variants whose two intervals (one window each) are apart: only there did the windows' conditions
      move a time past what its intervals hold;
    - `floor_only`: the variants whose two intervals overlap only through the ±1% floor, every round of one window
      apart from every round of the other (timings.floor_only_overlap);
    - `memory_bound`: the point's figure is TB/s (rules.equal_clock_applies: no equal-clock time);
    - `units`: (rounds, samples, widened by the floor) of every interval compared, for their level
      (timings.ci_level) and how they were built."""

    if not ls.measured:
        return []
    here = _timed_by_point(ls, scenario)
    out = []
    for other in dict.fromkeys(p.scenario for p in ls.rs.sweep):
        if other == scenario or not here:
            continue
        there = {k: rows for k, rows in _timed_by_point(ls, other).items() if k in here}
        for k, rows in there.items():
            shared = [v for v in here[k] if v in rows]
            if len(shared) < 2:
                continue
            mine = sorted(shared, key=lambda v: here[k][v]["gpu_only_ms"])
            theirs = sorted(shared, key=lambda v: rows[v]["gpu_only_ms"])
            like = {}
            for v in mine:
                a, b = here[k][v], rows[v]
                a_ms, b_ms, sums = determinism_rule.like_with_like(
                    a["gpu_only_ms"], a.get("gpu_only_method"), a.get("kernel_sum_ms"), b["gpu_only_ms"],
                    b.get("gpu_only_method"), b.get("kernel_sum_ms"))
                mhz = (lambda r: r.get("kernel_sum_mhz")) if sums else (lambda r: r.get("sm_clock_mhz"))
                apart = None if sums else not _overlap(a, b)
                like[v] = (v, a_ms, mhz(a), b_ms, mhz(b), sums, apart)
            order_here = sorted(mine, key=lambda v: like[v][1])
            order_there = sorted(mine, key=lambda v: like[v][3])
            swapped = tuple(
                (x, y, None if like[x][5] or like[y][5] else _overlap(here[k][x], here[k][y]),
                 None if like[x][5] or like[y][5] else _overlap(rows[x], rows[y]))
                for i, x in enumerate(order_here) for y in order_here[i + 1:]
                if order_there.index(y) < order_there.index(x))
            figure = here[k][shared[0]].get("figure")
            out.append(dict(other=other, mode=here[k][shared[0]].get("mode"), q_len=here[k][shared[0]]["q_len"],
                            kv_len=here[k][shared[0]]["kv_len"],
                            variants=tuple(mine), order_there=tuple(theirs),
                            here=tuple((v, here[k][v]["gpu_only_ms"], here[k][v]["sm_clock_mhz"]) for v in mine),
                            there=tuple((v, rows[v]["gpu_only_ms"], rows[v]["sm_clock_mhz"]) for v in mine),
                            rows=tuple(like[v] for v in order_here), orders_differ=order_here != order_there,
                            swapped=swapped, moved=tuple(v for v in order_here if like[v][6]),
                            floor_only=tuple(v for v in order_here if not like[v][5] and timings.floor_only_overlap(
                                row_spread(here[k][v]), row_spread(rows[v]))),
                            memory_bound=not rules.equal_clock_applies(figure),
                            units=tuple((r.get("gpu_only_rounds"), r.get("gpu_only_n"), row_spread(r).widened)
                                        for v in order_here
                                        if not like[v][5] for r in (here[k][v], rows[v])
                                        if not missing(r.get("gpu_only_rounds")) and not missing(r.get("gpu_only_n")))))
    return out


def _overlap(a: dict, b: dict) -> bool:
    """Two rows' GPU-only intervals overlap (missing bounds: they cannot be told apart)."""
    lo_a, hi_a, lo_b, hi_b = (a.get("gpu_only_ci_lo_ms"), a.get("gpu_only_ci_hi_ms"), b.get("gpu_only_ci_lo_ms"),
                              b.get("gpu_only_ci_hi_ms"))
    return not (rules.apart(hi_a, lo_b) or rules.apart(hi_b, lo_a))
