"""How an exception of What to call (gen.analysis.advice.Exception_) stands over its scenario's sweep, as facts: the
sizes at its own head dim where the default call is decidedly faster, where the exception's call leads too and where
neither does, and the two calls at each size of every other head dim the
sweep ran (the article's paragraph said nothing of head dim 128, where SDPA and
FlashAttention-4 stay within a few percent from 1k to 16k tokens).

Takes: a loaded set, the exception's verdict and the two calls. Gives `turns(ls, v, variant, default)` (the fields of
Exception_ it fills: reversed_at, reversed_orders, held_at, tied_at, other_dims), `head_dim_if_several(ls, v)`, the
`ReversedAt` / `Size` / `OtherDim` / `DimPoint` facts and `clocks_may_flatter` (whether two as-run clocks may flatter
a lead). Numbers only: gen.report.words.sweep_turns words them.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import calls, rules, tables, verdicts
from gen.analysis.leads import Orders


def clocks_may_flatter(a_mhz: float | None, b_mhz: float | None) -> bool:
    """Two as-run windows' clocks may flatter the faster call's (`a_mhz`) lead: more than rules.CLOCK_GAP_PCT apart,
    or within it with the faster call at the higher clock; False where either is not recorded."""
    return rules.clock_gap_pct(a_mhz, b_mhz) is not None and (rules.clocks_apart(a_mhz, b_mhz) or a_mhz > b_mhz)


@dataclass(frozen=True)
class Size:
    """A sweep point's size: its queries and keys."""

    q_len: int
    kv_len: int


@dataclass(frozen=True)
class ReversedAt:
    """A sweep point where the default call is decidedly faster than the exception's call: their medians and windows'
    SM clocks (MHz, None where not recorded)."""

    q_len: int
    kv_len: int
    default_ms: float
    variant_ms: float
    default_mhz: float | None
    variant_mhz: float | None


@dataclass(frozen=True)
class Third:
    """A call faster by median than both the default and the exception's call at a point: its median (ms) and its
    orders against each of the two, the default first (itself first in each)."""

    variant: str
    median_ms: float
    orders: tuple[Orders, Orders]


@dataclass(frozen=True)
class DimPoint:
    """The default call and the exception's call at one size of another head dim: their medians and windows' SM
    clocks, which of the two is decidedly faster (calls.faster; None where neither), and their orders (the default
    first: as run, by kernel sum)."""

    kv_len: int
    default_ms: float
    variant_ms: float
    default_mhz: float | None
    variant_mhz: float | None
    leader: str | None
    orders: Orders
    # Where neither call is the fastest by median there, that call (its orders with their noise verdict:
    # Orders.decided): at head dim 128, 16k, FlexAttention led both: against the default too, and decided or not
    third: Third | None = None


@dataclass(frozen=True)
class OtherDim:
    """Every size of one head dim, other than the verdict point's, at which the sweep timed both calls square
    (queries = keys), in order of size."""

    head_dim: int
    points: tuple[DimPoint, ...]


def turns(ls: tables.LoadedSet, v: verdicts.Verdict, variant: str, default: str) -> dict:
    """The scenario's other sweep points at the verdict point's head dim where `default` is decidedly faster than
    `variant` (Exception_.reversed_at, with the pair's orders: reversed_orders), where `variant` is too (held_at) and
    where neither is (tied_at); and the square sizes of every other head dim (other_dims)."""
    here = calls.point_of(ls, v.scenario, v.mode)
    out, orders, held, tied, other = [], [], [], [], {}
    for p in calls._points(ls, v.scenario, v.mode):
        if p == here:
            continue
        at = verdicts.verdict_at(ls, v.scenario, p, v.mode)
        if at is None or at.row(default) is None or at.row(variant) is None:
            continue
        d, x = at.spread(at.row(default)), at.spread(at.row(variant))
        if d is None or x is None:
            continue
        if here is not None and p.head_dim != here.head_dim:
            if p.q_len == p.kv_len:
                lead = default if calls.faster(d, x) else variant if calls.faster(x, d) else None
                # a call running either's kernels (SDPA cuDNN beside SDPA unpinned) is no third call
                ours = {at.row(default).kernels, at.row(variant).kernels} - {None, ()}
                f = at.fastest
                third = Third(f.variant, at.spread(f).median, tuple(verdicts.orders(f, at.row(c), at.basis)
                                                                      for c in (default, variant))) \
                    if f.variant not in (default, variant) and f.kernels not in ours and at.spread(f) is not None \
                    else None
                other.setdefault(p.head_dim, []).append(DimPoint(
                    p.kv_len, d.median, x.median, at.row(default).sm_clock_mhz, at.row(variant).sm_clock_mhz, lead,
                    verdicts.orders(at.row(default), at.row(variant), at.basis), third))
        elif calls.faster(d, x):
            out.append(ReversedAt(p.q_len, p.kv_len, d.median, x.median, at.row(default).sm_clock_mhz,
                                  at.row(variant).sm_clock_mhz))
            orders.append(verdicts.orders(at.row(default), at.row(variant), at.basis))
        else:
            (held if calls.faster(x, d) else tied).append(Size(p.q_len, p.kv_len))
    dims = tuple(OtherDim(dim, tuple(sorted(ps, key=lambda q: q.kv_len))) for dim, ps in sorted(other.items()))
    return dict(reversed_at=tuple(out), reversed_orders=tuple(orders), held_at=tuple(held), tied_at=tuple(tied),
                other_dims=dims)


def head_dim_if_several(ls: tables.LoadedSet, v: verdicts.Verdict) -> int | None:
    """The verdict point's head dim where the scenario's sweep has more than one (a size alone names no point)."""
    here = calls.point_of(ls, v.scenario, v.mode)
    dims = {p.head_dim for p in calls._points(ls, v.scenario, v.mode)}
    return here.head_dim if here is not None and len(dims) > 1 else None
