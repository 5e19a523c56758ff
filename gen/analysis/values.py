"""Small shared helpers for values: missing numbers, JSON-ready numbers, text tables, variant order.

Takes: plain values. Gives: `missing`, `number`, `text_table`, `variant_order`, `rows` (a frame's rows as dicts).
One definition each: analysis, the CLI verbs and the report all use these.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from gen.model.variants import VARIANTS


def missing(x) -> bool:
    """None, NaN (float or numpy), pandas' NA or NaT."""
    if x is None:
        return True
    t = type(x)
    if t is float:  # most calls (pd.isna costs a microsecond): NaN is the one float unequal to itself
        return x != x
    if t is int or t is bool or t is str:
        return False
    if isinstance(x, (str, bytes, list, tuple, dict, set)):
        return False
    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):  # an array-like: not one missing value
        return False


def rows(df: pd.DataFrame) -> list[dict]:
    """df.to_dict("records"): each row a dict of Python values (NaN as it is)."""
    if df.empty:
        return []
    cols = list(df.columns)
    return [dict(zip(cols, row)) for row in df.to_numpy(dtype=object).tolist()]


def number(x, digits: int | None = None) -> float | None:
    """A float for JSON (rounded when digits is given), or None when missing."""
    if missing(x):
        return None
    x = float(x)
    return x if digits is None else round(x, digits)


def integer(x) -> int | None:
    return None if missing(x) else int(x)


def text_table(columns: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A plain-text table: a header, a rule, one line per row, columns padded to fit."""
    rows = [list(r) for r in rows]
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(x.ljust(w) for x, w in zip(r, widths)) for r in rows]
    return lines


def variant_order(names: Iterable[str]) -> list[str]:
    """Variant names in declared order (gen.model.variants), unknown ones after, by name."""
    seen = set(names)
    known = [v for v in VARIANTS if v in seen]
    return known + sorted(seen - set(known))


# Variant roles. TODO(H1b): gen.model.variants is gaining roles (baseline,
# in-place pair, automatic); once a Variant carries `role`, `variant_role`
# reads it from there and the fallback names below go.
_ROLE_FALLBACK = {"baseline": "naive", "inplace": "naive_inplace", "automatic": "sdpa_auto"}


def variant_role(role: str) -> str:
    """The name of the variant that plays a role: "baseline" (the speed-ups'
    reference), "inplace" (the in-place twin of the baseline), "automatic"
    (SDPA with no backend pinned)."""
    for v in VARIANTS.values():
        if getattr(v, "role", None) == role:
            return v.name
    return _ROLE_FALLBACK[role]
