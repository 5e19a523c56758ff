"""`python -m gen compare SET_A SET_B`: two result sets side by side, per variant.

Takes: two loaded sets (gen.analysis.tables). Gives: `compare_frame(a, b, mode)`,
one row per variant of either set: kernels per forward on each side, kernels
added and removed (matched by short name, as multisets; memcpy and memset
events match by kind), GPU and CPU time on each side with the ratio B/A, and
the speed rank on each side. `run(root, a, b, fmt)` is the CLI verb (text
table or JSON), `default_pair(sets)` the pair the site shows first and `pairs(sets)`
every pair it shows.

A reference set holds only what its source published: where it named fewer
kernels than it counted, the kernel lists are partial and only the names it
did publish are matched; the columns say so. No torch.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from gen.analysis import comparability, tables
from gen.analysis.values import number, text_table, variant_order
from gen.model import layout, schema, trace

COLUMNS = ["variant", "status_a", "status_b", "kernels_a", "kernels_b", "kernels_added", "kernels_removed",
           "kernel_match", "gpu_only_ms_a", "gpu_only_ms_b", "gpu_only_ratio", "gpu_only_method_a", "gpu_only_method_b",
           "host_ms_a", "host_ms_b", "host_ratio", "rank_a",
           "rank_b", "time_basis_a", "time_basis_b"]


def _key(name: str, kind: str | None = None) -> str:
    if kind == "memcpy" or name.startswith("Memcpy"):
        return "Memcpy"
    if kind == "memset" or name.startswith("Memset"):
        return "Memset"
    return trace.short_name(name)


def kernel_names(ls: tables.LoadedSet, variant: str, mode: str) -> tuple[list[str], bool] | None:
    """Matching keys of one forward's GPU events, and whether the list is complete.
    None when the set has no kernel list for the variant (CPU set, not run)."""
    run = ls.rs.run(variant, mode)
    if run is None or run.status != "ok":
        return None
    if ls.rs.kind == "reference":
        names = [_key(n) for n in (run.published.kernels if run.published else [])]
        count = run.published.kernels_per_forward if run.published else None
        if not names:
            return None
        return names, count is not None and len(names) >= count
    kt = tables.kernel_table(ls, variant, mode)
    if kt.empty:
        return None
    return [_key(n, k) for n, k in zip(kt["name"], kt["kind"])], True


def _ranks(df: pd.DataFrame) -> tuple[pd.Series, str]:
    """Rank by median GPU-only time, or by host wall time where the set has no GPU time."""
    if df.empty:
        return pd.Series(dtype=float), "none"
    col, basis = ("gpu_only_ms", "GPU-only") if df["gpu_only_ms"].notna().any() else ("host_ms", "host wall")
    return df.set_index("variant")[col].rank(method="min"), basis


def _num(x) -> float:
    """A float for the frame: NaN where missing."""
    n = number(x)
    return np.nan if n is None else n


# The summary columns a comparison reads of each variant's row.
_READ = ("variant", "status", "kernels_per_forward", "gpu_only_ms", "gpu_only_method", "host_ms")


def _first_rows(st: pd.DataFrame) -> dict[str, dict]:
    """variant -> the first summary row of it, the columns compare_frame reads (those the table has),
    as to_dict("records") gives them: read off the columns once (a mask and to_dict per variant before)."""
    if st.empty:
        return {}
    cols = [c for c in _READ if c in st.columns]
    out: dict[str, dict] = {}
    for values in zip(*(st[c].tolist() for c in cols)):
        row = dict(zip(cols, values))
        out.setdefault(row["variant"], row)
    return out


def compare_frame(a: tables.LoadedSet, b: tables.LoadedSet, mode: str = "inference") -> pd.DataFrame:
    sa, sb = tables.summary_table(a, mode), tables.summary_table(b, mode)
    ra, basis_a = _ranks(sa)
    rb, basis_b = _ranks(sb)
    seen = set(sa.get("variant", [])) | set(sb.get("variant", []))
    order = variant_order(seen)
    by_a, by_b = _first_rows(sa), _first_rows(sb)
    rows = []
    for v in order:
        ea, eb = by_a.get(v, {}), by_b.get(v, {})
        ka, kb = kernel_names(a, v, mode), kernel_names(b, v, mode)
        added = removed = None
        if ka is None or kb is None:
            match = "no kernel list on " + " and ".join(
                s for s, k in (("A", ka), ("B", kb)) if k is None)
        else:
            ca, cb = Counter(ka[0]), Counter(kb[0])
            # Names on a partial side that the complete side lacks are surely
            # added (or removed); "none" can only be said when both are complete.
            plus, minus = sorted((cb - ca).elements()), sorted((ca - cb).elements())
            added = plus if ka[1] and (kb[1] or plus) else None
            removed = minus if kb[1] and (ka[1] or minus) else None
            match = "full" if ka[1] and kb[1] else "partial: " + " and ".join(
                f"{s} names only {len(k[0])} kernel(s)" for s, k in (("A", ka), ("B", kb)) if not k[1])
        ga, gb = _num(ea.get("gpu_only_ms")), _num(eb.get("gpu_only_ms"))
        ca_, cb_ = _num(ea.get("host_ms")), _num(eb.get("host_ms"))
        rows.append(dict(
            variant=v, status_a=ea.get("status", "absent"), status_b=eb.get("status", "absent"),
            kernels_a=_num(ea.get("kernels_per_forward")), kernels_b=_num(eb.get("kernels_per_forward")),
            kernels_added=added, kernels_removed=removed, kernel_match=match,
            gpu_only_ms_a=ga, gpu_only_ms_b=gb, gpu_only_ratio=gb / ga if ga and gb else np.nan,
            gpu_only_method_a=ea.get("gpu_only_method"), gpu_only_method_b=eb.get("gpu_only_method"),
            host_ms_a=ca_, host_ms_b=cb_, host_ratio=cb_ / ca_ if ca_ and cb_ else np.nan,
            rank_a=_num(ra.get(v)) if ea.get("status") == "ok" else np.nan,
            rank_b=_num(rb.get(v)) if eb.get("status") == "ok" else np.nan,
            time_basis_a=basis_a, time_basis_b=basis_b,
        ))
    return pd.DataFrame(rows, columns=COLUMNS)


def default_pair(sets: list[tables.LoadedSet]) -> tuple[tables.LoadedSet, tables.LoadedSet] | None:
    """The site's default comparison: the first measured GPU set against the first reference set
    (or against the next measured set when there is no reference)."""
    gpu = [s for s in sets if s.measured and s.rs.environment.device == "cuda"]
    ref = [s for s in sets if s.rs.kind == "reference"]
    if gpu and ref:
        return gpu[0], ref[0]
    others = [s for s in sets if s.measured and (not gpu or s is not gpu[0])]
    if gpu and others:
        return gpu[0], others[0]
    return None


def pairs(sets: list[tables.LoadedSet]) -> list[tuple[tables.LoadedSet, tables.LoadedSet]]:
    """Every pair the site shows: the default pair first, then its A (the first
    measured GPU set) against each other set in the sets' order, so that a new
    set gets its comparison with no code change."""
    first = default_pair(sets)
    if first is None:
        return []
    a = first[0]
    return [first] + [(a, s) for s in sets if s is not a and s is not first[1]]


def describe(ls: tables.LoadedSet) -> str:
    env = ls.rs.environment
    where = env.gpu_name or f"CPU: {env.cpu}"
    text = f"{ls.name} ({where}"
    text += f", torch {env.torch})" if env.torch else ")"
    if ls.rs.kind == "reference":
        text += f": published figures, not measured here; source: {ls.rs.source}"
    return text


def _pick(root: Path, name: str, option: str) -> tables.LoadedSet:
    layout.settle(root)  # a set that a killed publish left aside is put back (or named), never read around
    known = [p.name for p in schema.list_sets(root)]
    if name not in known:
        raise schema.UserError(f"{option}: no result set {name!r} under {root}; "
                               f"known sets: {', '.join(known) or 'none'}")
    return tables.load_set(root / name)


def _clean(x):
    if isinstance(x, (float, np.floating, np.integer)):
        return number(x, 4)
    return x


def records(df: pd.DataFrame) -> list[dict]:
    out = []
    for r in df.to_dict("records"):
        rec = {k: _clean(v) for k, v in r.items()}
        for k in ("kernels_a", "kernels_b", "rank_a", "rank_b"):
            rec[k] = None if rec[k] is None else int(rec[k])
        out.append(rec)
    return out


def _f(x, spec: str) -> str:
    return "—" if x is None else format(x, spec)


def table(a: tables.LoadedSet, b: tables.LoadedSet, recs: list[dict], mode: str) -> str:
    cols = ["variant", "kernels A", "kernels B", "added in B", "removed in B", "GPU-only ms A", "GPU-only ms B",
            "B/A", "host ms A", "host ms B", "B/A", "rank A", "rank B"]
    rows = []
    for r in recs:
        def names(x):
            return "?" if x is None else (", ".join(x) or "none")
        rows.append([r["variant"], _f(r["kernels_a"], "d"), _f(r["kernels_b"], "d"), names(r["kernels_added"]),
                     names(r["kernels_removed"]), _f(r["gpu_only_ms_a"], ".4f"), _f(r["gpu_only_ms_b"], ".4f"),
                     _f(r["gpu_only_ratio"], ".2f"), _f(r["host_ms_a"], ".4f"), _f(r["host_ms_b"], ".4f"),
                     _f(r["host_ratio"], ".2f"), _f(r["rank_a"], "d"), _f(r["rank_b"], "d")])
    lines = [f"A: {describe(a)}", f"B: {describe(b)}", f"mode: {mode}; ratios are B/A; '?' = not known "
             "(a side published only some kernel names, or has no kernels)", *text_table(cols, rows)]
    return "\n".join(lines)


def issue_line(i: comparability.Issue) -> str:
    """One comparability issue as a line of the CLI's output."""
    if i.kind == "shape":
        return (f"warning: different shapes: A {comparability.point_text(i.a)}, B {comparability.point_text(i.b)}; "
                "times at different shapes are not comparable")
    if i.kind == "noisy":
        def one(n) -> str:
            return f"{n.variant} ({n.timing}: " + (f"n={n.n})" if n.kind == "few" else f"IQR {n.iqr_pct:.0f}%)")

        sides = [f"{side} " + ", ".join(one(n) for n in ns) for side, ns in (("A", i.a), ("B", i.b)) if ns]
        return "warning: noisy or thin timings: " + "; ".join(sides)
    if i.kind == "scenario":
        return f"warning: {'A' if not i.a else 'B'} has no data for scenario {i.quantity}"
    what = {"definition": f"{i.quantity} time defined differently"}.get(i.kind, f"different {i.kind}s")
    return f"warning: {what}: A {i.a}, B {i.b}"


def run(root: Path, set_a: str, set_b: str, fmt: str = "table", mode: str = "inference", force: bool = False,
        warn=None) -> str:
    """The compare verb. Refuses sets measured at different shapes, dtypes or without the
    scenario (comparability.Incomparable, one line) unless `force`; every issue is a
    "warning:" line on top of the table, or handed to `warn` (the CLI's stderr) with JSON."""
    a = _pick(Path(root), set_a, "SET_A")
    b = _pick(Path(root), set_b, "SET_B")
    found = comparability.issues(a, b, "article", mode) if force else comparability.require_comparable(a, b, "article",
                                                                                                       mode)
    lines = [issue_line(i) for i in found]
    recs = records(compare_frame(a, b, mode))
    if fmt == "json":
        for line in lines:
            (warn or (lambda _: None))(line)
        return json.dumps(recs, indent=1, ensure_ascii=False)
    return "\n".join([*lines, table(a, b, recs, mode)])
