"""Scenarios against published anchors, in one row, and as the summary verb prints them.

Takes: loaded sets (gen.analysis.tables.LoadedSet), measured and reference (published anchors,
gen.model.anchors), and a scenario's measured points (gen.analysis.points, whose names it re-exports:
pages read the scenario API as one module). Gives numbers only, no words:

- `anchor_frame(sets, scenario)`: the published figures that fall on the scenario's points, converted
  to our convention where a published time allows (`cudnn_flops` is the cuDNN frontend benchmark's own
  count: its anchors are converted from their times, never mixed);
- `versus_frame(points, anchors)`: per anchor point, the anchor beside our same-named variant and our
  fastest; `headline(points, anchors)`; `strongest_of` (the comparison to lead with);
- `published_frame`, `source_shapes`, `differences(ours, theirs)` (what differs from an anchor);
- `summary_rows(ls, scenario)` and `summary_text`: `python -m gen summary --scenario NAME`;
- `determinism_frame` and `fp8_frame`: each deterministic or FP8 variant beside its twin.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from gen.analysis import determinism_rule, fp8_speed, published_sums, rules, tables, values
from gen.analysis.loading import Recorded
from gen.analysis.points import (  # noqa: F401
    AT_KEYS,
    BACKWARD_FACTOR,
    BYTES_CONVENTION,
    BYTES_LABEL,
    CEILING_COPY,
    CEILING_MATMUL,
    CEILING_READ,
    FIGURE_TBPS,
    FIGURE_TFLOPS,
    FLOP_CONVENTION,
    FLOP_LABEL,
    POINT_KEYS,
    SAME_AS_OURS,
    _point_dict,
    _records,
    above_matmul_at_clock,
    above_roof,
    backend_frame,
    backend_rows,
    ceilings,
    cudnn_flops,
    document_frame,
    element_size,
    fastest_rows,
    figure_of,
    flops,
    io_bytes,
    is_decode,
    kernel_rows,
    kernels_frame,
    may_win,
    own_head_dim_of,
    point_frame,
    point_rows,
    scenario_dtype,
    scenario_names,
    scenario_title,
    score_pairs,
)
from gen.analysis.same_point import same_point_elsewhere  # noqa: F401  (the scenario pages' and verdicts' name)
from gen.analysis.timings import row_spread  # noqa: F401  (pages read it here)
from gen.analysis.values import integer, missing, number, text_table, variant_role
from gen.model import datasheets, schema, variants

# --------------------------------------------------------------------------- published anchors

ANCHOR_COLUMNS = [
    "anchor_set", "gpu", "source", "variant", "mode", *POINT_KEYS, "dtype", "same_shape", "our_batch", "our_q_heads",
    "our_kv_heads", "published_ms", "published_tflops", "published_convention", "approximate", "tflops",
    "tflops_from", "note", "clock_mhz", "kernel_time", "anchor_scenario",
]
_EMPTY_ANCHORS = pd.DataFrame([], columns=ANCHOR_COLUMNS)
FROM_TIME = "published time"  # our count over the published time
FROM_SAME_CONVENTION = "same convention"  # the published rate, already under our count


def _match(p: schema.Point, ours: list[schema.Point]) -> schema.Point | None:
    """Our point at the same length, head dim, mask and query-to-KV grouping (batch and head
    count may differ: rates compare, times do not)."""
    for o in ours:
        if (o.q_len, o.kv_len, o.head_dim, o.mask, o.window) == (p.q_len, p.kv_len, p.head_dim, p.mask, p.window) \
                and o.q_heads * p.kv_heads == p.q_heads * o.kv_heads:
            return o
    return None


def our_points(sets: list[tables.LoadedSet], scenario: str) -> dict[int, list[schema.Point]]:
    """Our points of the scenario by the bytes an element of their inputs takes (1 or 2: a published
    FP8 figure stands beside our FP8 points only, a 16-bit one beside 16-bit), each once, in order."""
    out: dict[int, list[schema.Point]] = {1: [], 2: []}
    for ls in sets:
        if ls.measured:
            for p in ls.outline.sweep:
                if p.scenario != scenario:
                    continue
                mine = out[_width(_dtype_of(ls, p))]
                if p.point not in mine:
                    mine.append(p.point)
    return out


def _dtype_of(ls: tables.LoadedSet, p: schema.SweepPoint | Recorded) -> str:
    """A point's input dtype: its own, else its variant's declared one, else its scenario's (or set's)."""
    decl = variants.VARIANTS.get(p.variant) if ls.measured else None
    rec = ls.outline.scenario(p.scenario)
    return p.dtype or (decl.dtype if decl else None) or (rec.dtype if rec else ls.config.dtype)


def _width(dtype: str | None) -> int:
    """Which inputs compare: 8-bit (1) with 8-bit only; fp16, bf16 (and wider) with each other (2)."""
    return 1 if dtype and element_size(dtype) == 1 else 2


def published_rate(p: schema.SweepPoint) -> tuple[float, str | None]:
    """A published point's TFLOP/s under our FLOP_CONVENTION and how it was had: from its time
    (FROM_TIME), or its own rate where its convention is ours (FROM_SAME_CONVENTION); else NaN, None."""
    pub = p.published
    if pub.gpu_time_ms:
        return flops(p.point, p.mode) / (pub.gpu_time_ms * 1e-3) / 1e12, FROM_TIME
    if pub.tflops is not None and pub.flop_convention in SAME_AS_OURS and p.point.window is None:
        return pub.tflops, FROM_SAME_CONVENTION
    return math.nan, None


def anchor_frame(sets: list[tables.LoadedSet], scenario: str, measured: tables.LoadedSet | None = None) -> pd.DataFrame:
    """Published figures on the scenario's points: a reference set's sweep points of the same
    scenario, or of another whose point matches ours in length, head dim, mask and grouping.
    `tflops` is under our FLOP_CONVENTION: our count over the published time where one is
    published (`tflops_from` FROM_TIME), the published rate where its convention is ours
    (FROM_SAME_CONVENTION), else NaN (the published rate stays beside it, under its own).
    With `measured`, only the points that set measured; else those of any measured set."""
    mine_of = [measured] if measured is not None else sets
    ours = our_points(mine_of, scenario)
    rows = []
    for ls in sets:
        if ls.kind != schema.SetKind.REFERENCE:
            continue
        for p in ls.rs.sweep:
            pub = p.published
            if pub is None:
                continue
            dtype = _dtype_of(ls, p)
            mine = _match(p.point, ours.get(_width(dtype), []))
            if mine is None and not (p.scenario == scenario and not any(ours.values())):
                continue
            tf, how = published_rate(p)
            rows.append(dict(
                anchor_set=ls.name, gpu=ls.environment.gpu_name, source=ls.outline.source, variant=p.variant,
                mode=p.mode, **_point_dict(p.point), dtype=dtype, same_shape=mine == p.point,
                our_batch=mine.batch if mine else math.nan, our_q_heads=mine.q_heads if mine else math.nan,
                our_kv_heads=mine.kv_heads if mine else math.nan,
                published_ms=pub.gpu_time_ms if pub.gpu_time_ms is not None else math.nan,
                published_tflops=pub.tflops if pub.tflops is not None else math.nan,
                published_convention=pub.flop_convention, approximate=pub.approximate, tflops=tf, tflops_from=how,
                note=pub.note, clock_mhz=pub.clock_mhz if pub.clock_mhz is not None else math.nan,
                kernel_time=bool(getattr(pub, "kernel_time", False)), anchor_scenario=p.scenario))
    if not rows:  # (most scenarios: an empty frame is made once, then copied)
        return _EMPTY_ANCHORS.copy()
    return pd.DataFrame(rows, columns=ANCHOR_COLUMNS)


VERSUS_COLUMNS = [
    "anchor_set", "gpu", "anchor_variant", "mode", "head_dim", "q_len", "kv_len", "same_shape", "approximate",
    "anchor_ms", "anchor_published_tflops", "anchor_tflops", "tflops_from", "same_variant_ms", "same_variant_tflops",
    "fastest_variant",
    "fastest_ms", "fastest_tflops", "fastest_pct_of_ceiling", "time_ratio", "rate_ratio", "same_time_ratio",
    "same_rate_ratio", "ours_variant", "ours_same", "ours_ms", "ours_tflops", "ours_time_ratio", "ours_rate_ratio",
    "anchor_clock_mhz", "ours_clock_mhz", "ours_rate_ratio_at_clock", "kernel_time", "ours_ks_ms", "ours_ks_mhz",
    "ours_ks_time_ratio", "ours_ks_read", "ours_ks_burst_mhz",
    "ours_ks_rule_reason", "ours_scenario", "fastest_pct_at_clock", "fastest_clock_mhz", "fastest_tie",
]


def _dicts(df: pd.DataFrame) -> list[dict]:
    """df's rows as dicts (values.rows)."""
    return values.rows(df) if len(df) else []


def _rows_at(rows: list[dict]) -> dict[tuple, list[dict]]:
    """(mode, head dim, q_len, kv_len) -> the rows there (in their order); a row with a missing key is at
    no point."""
    out: dict[tuple, list[dict]] = {}
    for r in rows:
        key = tuple(r[k] for k in AT_KEYS)
        if not any(missing(k) for k in key):
            out.setdefault(key, []).append(r)
    return out


def versus_row(a, same, fast) -> dict:
    """One row of versus_frame: published figure `a` against our variant of its name (`same`) and our
    fastest (`fast`) at its point (rows as dicts or Series; None where we have none)."""
    comparable_time = bool(a["same_shape"]) and not missing(a["published_ms"])

    def ratio(x, y):
        return x / y if not (missing(x) or missing(y)) and y else math.nan

    ours = same if same is not None else fast
    return dict(
        anchor_set=a["anchor_set"], gpu=a["gpu"], anchor_variant=a["variant"], mode=a["mode"],
        head_dim=a["head_dim"], q_len=a["q_len"], kv_len=a["kv_len"], same_shape=bool(a["same_shape"]),
        approximate=bool(a["approximate"]), anchor_ms=a["published_ms"],
        anchor_published_tflops=a["published_tflops"], anchor_tflops=a["tflops"],
        tflops_from=a["tflops_from"],
        same_variant_ms=same["gpu_only_ms"] if same is not None else math.nan,
        same_variant_tflops=same["tflops"] if same is not None else math.nan,
        fastest_variant=fast["variant"] if fast is not None else None,
        fastest_ms=fast["gpu_only_ms"] if fast is not None else math.nan,
        fastest_tflops=fast["tflops"] if fast is not None else math.nan,
        fastest_pct_of_ceiling=fast["pct_of_ceiling"] if fast is not None else math.nan,
        time_ratio=ratio(fast["gpu_only_ms"], a["published_ms"]) if fast is not None and comparable_time
        else math.nan,
        rate_ratio=ratio(fast["tflops"], a["tflops"]) if fast is not None else math.nan,
        same_time_ratio=ratio(same["gpu_only_ms"], a["published_ms"]) if same is not None and comparable_time
        else math.nan,
        same_rate_ratio=ratio(same["tflops"], a["tflops"]) if same is not None else math.nan,
        ours_variant=ours["variant"] if ours is not None else None, ours_same=same is not None,
        ours_ms=ours["gpu_only_ms"] if ours is not None else math.nan,
        ours_tflops=ours["tflops"] if ours is not None else math.nan,
        ours_time_ratio=ratio(ours["gpu_only_ms"], a["published_ms"]) if ours is not None and comparable_time
        else math.nan,
        ours_rate_ratio=ratio(ours["tflops"], a["tflops"]) if ours is not None else math.nan,
        **_at_stated_clock(a, ours, ratio), **published_sums.versus_sums(a, ours, fast, comparable_time))


def _at_stated_clock(a, ours, ratio) -> dict:
    """Ours against a figure whose source states a fixed clock, at that clock: our rate x its clock / the
    clock ours ran at (a tensor-core kernel's rate scales with the SM clock). NaN where either clock is unknown."""
    stated = a.get("clock_mhz", math.nan) if hasattr(a, "get") else math.nan
    mine = ours.get("sm_clock_mhz", math.nan) if ours is not None else math.nan
    known = not (missing(stated) or missing(mine)) and mine > 0
    at = ratio(ours["tflops"] * stated / mine, a["tflops"]) if known else math.nan
    return dict(anchor_clock_mhz=stated if not missing(stated) else math.nan,
                ours_clock_mhz=mine if not missing(mine) else math.nan, ours_rate_ratio_at_clock=at)


def versus_frame(points: pd.DataFrame | None, anchor: pd.DataFrame, rows: list[dict] | None = None) -> pd.DataFrame:
    """Per anchor figure: our same-named variant and our fastest at the matching point (inference).
    time_ratio = our fastest's GPU-only ms / the published ms (only for the same shape: >1 is
    slower); rate_ratio = our fastest's TFLOP/s / the anchor's under our convention (>1 is faster).
    same_* are the same for our variant of the anchor's name; ours are taken at the anchor's input
    width only (a bf16 figure against our bf16 calls, FP8 against FP8). ours_* compare like with like:
    our variant running the published kernel (gen.model.anchors maps FlashAttention-2 onto
    sdpa_flash, cuDNN onto sdpa_cudnn) where we ran it there, else our fastest (a kernel
    PyTorch does not run, FlashAttention-3, stands against our best); ours_same says which.
    `rows`: values.rows(points), where the caller has them (then `points` is not read and may be None)."""
    if anchor.empty:  # nothing published at this scenario: no row, and no ranking to make
        return pd.DataFrame([], columns=VERSUS_COLUMNS)
    points_rows = values.rows(points) if rows is None else rows
    rows = []
    # ours at the anchor's input width only: a published bf16 figure against our bf16 calls, FP8 against FP8
    by_width = {}
    for w in (1, 2):
        mine = [r for r in points_rows if _width(r["dtype"]) == w]
        by_width[w] = (_rows_at([r for r in mine if may_win(r)]), _rows_at(fastest_rows(mine)))
    for a in _dicts(anchor):
        ok_at, fastest_at = by_width[_width(a["dtype"]) if "dtype" in a and isinstance(a["dtype"], str) else 2]
        key = tuple(a[k] for k in AT_KEYS)
        at, top = ok_at.get(key, []), fastest_at.get(key, [])
        fast = top[0] if top else None
        same = next((r for r in at if r["variant"] == a["variant"]), None)
        sig = fast["kernel_signature"] if fast is not None else None  # the fastest's twins: a tie, named with it
        rows.append(dict(versus_row(a, same, fast), fastest_tie=tuple(
            r["variant"] for r in at if isinstance(sig, tuple) and r is not fast and r["kernel_signature"] == sig)))
    return pd.DataFrame(rows, columns=VERSUS_COLUMNS)


def headline(points: pd.DataFrame | None, versus: pd.DataFrame, scenario: str,
             rows: list[dict] | None = None, versus_rows: list[dict] | None = None) -> dict | None:
    """The scenario in one row: at the largest length (own head dim, inference; else training)
    where a variant ran, the fastest, its figure and share of the measured ceiling; and the
    anchor comparison at the largest point that has one at the same head dim (else at any).
    `rows`: values.rows(points), where the caller has them (then `points` is not read and may be None);
    `versus_rows`: values.rows(versus), likewise."""
    points_rows = values.rows(points) if rows is None else rows
    # (copies: the headline's fastest row leaves with it, the caller's rows stay as they are)
    fast = [dict(r) for r in fastest_rows(points_rows)]
    if not fast:
        return None
    d = own_head_dim_of(points_rows, scenario)
    rows = fast
    pick = [r for r in rows if r["head_dim"] == d and r["mode"] == schema.Mode.INFERENCE] or rows
    top = pick[0]
    for r in pick:  # the last of the largest (kv_len, q_len): a stable sort's last row
        if (r["kv_len"], r["q_len"]) >= (top["kv_len"], top["q_len"]):
            top = r
    # The other rows at that point the times cannot set apart from it (the verdict's interval rule):
    # "fastest" is then said with them.
    point = tuple(top[k] for k in AT_KEYS)
    at = [r for r in points_rows if may_win(r) and tuple(r[k] for k in AT_KEYS) == point
          and r["variant"] != top["variant"]]
    auto = variant_role("automatic")
    same = [r["variant"] for r in at
            if isinstance(top["kernel_signature"], tuple) and r["kernel_signature"] == top["kernel_signature"]]
    # Kernels of the same names whose intervals are apart from the fastest's run other arguments: no tie, but
    # (variant, its time over the fastest's, the intervals' gap in ms). The tie test is the verdict's
    # own (calls.overlaps), so the set page and the scenario page never differ on it.
    from gen.analysis import calls  # calls reads tables, which reads this module's points

    by = {r["variant"]: r for r in at}
    sp = {v: row_spread(r) for v, r in [(top["variant"], top), *by.items()]}
    apart = [(v, by[v]["gpu_only_ms"] / top["gpu_only_ms"] if top["gpu_only_ms"] else None,
              calls.interval_gap(sp[top["variant"]], sp[v])) for v in same
             if not calls.overlaps(sp[top["variant"]], sp[v])]
    # unpinned SDPA gives way to the pinned twin, which is named with it: the same kernels, one rank
    ties = [v for v in same if v != auto and v not in {a[0] for a in apart}]
    auto_tie = auto if auto in same and auto not in {a[0] for a in apart} else None
    # By time, in the order pandas' sort_values gives (numpy's quicksort, NaN last)
    order = np.argsort(np.array([r["gpu_only_ms"] for r in at], dtype=float), kind="quicksort")
    near = [at[i]["variant"] for i in order if at[i]["variant"] not in same
            and not rules.apart(top["gpu_only_ci_hi_ms"], at[i]["gpu_only_ci_lo_ms"])]
    return dict(fastest=top, ties=ties, auto_tie=auto_tie, near=near, same_apart=apart, spreads=sp,
                anchor=strongest_of(values.rows(versus) if versus_rows is None else versus_rows, top["head_dim"]))


def strongest_of(rows: list[dict], head_dim: int | None = None) -> dict | None:
    """The comparison to lead with, among a versus frame's rows (values.rows): at the largest length where
    we ran and a source published (at `head_dim` where one was published there), the published figure
    with the highest rate (the hardest to match; missing rates last, the first of equals). A copy."""
    v = [r for r in rows if not missing(r["fastest_variant"])]
    if head_dim is not None and any(r["head_dim"] == head_dim for r in v):
        v = [r for r in v if r["head_dim"] == head_dim]
    lens = [r["kv_len"] for r in v if not missing(r["kv_len"])]
    if not lens:
        return None
    at = [r for r in v if r["kv_len"] == max(lens)]

    def key(r: dict) -> tuple:  # highest rate first, missing last; then the highest head dim
        t, d = r["anchor_tflops"], r["head_dim"]
        return (missing(t), 0.0 if missing(t) else -t, missing(d), 0.0 if missing(d) else -d)

    return dict(min(at, key=key))


PUBLISHED_COLUMNS = ["variant", "scenario", "mode", *POINT_KEYS, "published_ms", "published_tflops",
                     "published_convention", "approximate", "tflops", "tflops_from", "note"]


def published_frame(ls: tables.LoadedSet) -> pd.DataFrame:
    """Every figure a reference set published at its own points (its sweep), with the rate under
    our FLOP_CONVENTION where its time or its convention allows (`tflops_from` as in anchor_frame)."""
    rows = []
    for p in ls.rs.sweep:
        pub = p.published
        if pub is None:
            continue
        tf, how = published_rate(p)
        rows.append(dict(variant=p.variant, scenario=p.scenario, mode=p.mode, **_point_dict(p.point),
                         published_ms=pub.gpu_time_ms if pub.gpu_time_ms is not None else math.nan,
                         published_tflops=pub.tflops if pub.tflops is not None else math.nan,
                         published_convention=pub.flop_convention, approximate=pub.approximate, tflops=tf,
                         tflops_from=how, note=pub.note))
    return pd.DataFrame(rows, columns=PUBLISHED_COLUMNS)


def source_shapes(anchor: pd.DataFrame) -> dict:
    """How a source's points hold batch and heads: tokens (batch × length) and hidden (query heads ×
    head dim) when each is one number across its points, and per head dim the heads, per length
    the batch; `shapes` lists each distinct (batch, query heads, KV heads, length, head dim)."""
    # Each distinct point once, in order; per head dim and per length, the first point's heads and batch.
    cols = ("batch", "q_heads", "kv_heads", "q_len", "kv_len", "head_dim")
    a = list(dict.fromkeys(zip(*(anchor[c].tolist() for c in cols))))
    tokens = list(dict.fromkeys(b * q for b, _, _, q, _, _ in a))
    hidden = list(dict.fromkeys(hq * d for _, hq, _, _, _, d in a))
    heads: dict[int, tuple[int, int]] = {}
    batches: dict[int, int] = {}
    for b, hq, hkv, q, _, d in a:
        heads.setdefault(int(d), (int(hq), int(hkv)))
        batches.setdefault(int(q), int(b))
    return dict(tokens=int(tokens[0]) if len(tokens) == 1 else None,
                hidden=int(hidden[0]) if len(hidden) == 1 else None,
                heads=dict(sorted(heads.items())), batches=dict(sorted(batches.items())),
                shapes=[(int(b), int(hq), int(hkv), int(q), int(d)) for b, hq, hkv, q, _, d in a])


def cudnn_version(raw: str | None) -> str | None:
    """torch.backends.cudnn.version()'s integer as a dotted version: 91900 -> 9.19.0, 8907 -> 8.9.7."""
    if not raw or not str(raw).isdigit():
        return raw
    v = int(raw)
    major, rest = (v // 10000, v % 10000) if v >= 90000 else (v // 1000, v % 1000)
    return f"{major}.{rest // 100}.{rest % 100}"


def differences(ours: tables.LoadedSet, theirs: tables.LoadedSet) -> list[dict[str, str]]:
    """What differs between a measured set and an anchor: GPU, cuDNN, PyTorch, dtype;
    one dict per difference with `what`, `published` and `ours` (missing shown as None)."""
    a, b = theirs.environment, ours.environment
    pairs = [("GPU", a.gpu_name, b.gpu_name), ("cuDNN", cudnn_version(a.cudnn), cudnn_version(b.cudnn)),
             ("PyTorch", a.torch, b.torch), ("dtype", theirs.config.dtype, ours.config.dtype)]
    return [dict(what=w, published=x, ours=y) for w, x, y in pairs
            if x != y and (x or y) and not (w == "GPU" and datasheets.same_gpu(x, y))]


# --------------------------------------------------------------------------- the summary verb


def _text(x) -> str | None:
    return x if isinstance(x, str) and x else None


def summary_rows(ls: tables.LoadedSet, scenario: str) -> list[dict[str, Any]]:
    """One JSON-ready row per variant and sweep point of the scenario: scenario, variant,
    mode, point (batch, q_heads, kv_heads, head_dim, q_len, kv_len, mask, window), status,
    reason, gpu_only_ms (+ method), eager_ms, tflops and tbps under the conventions above
    (null where they do not apply, and for a wrong answer), pct_of_ceiling, kernels_per_call, peak memory, error;
    dtype of the inputs, wrong_answer (error past rules.WRONG_ANSWER_REL_ERROR), and for
    unpinned SDPA sdpa_choice and backend_reasons; facts the variant measured (block masks)."""
    if not ls.measured:
        raise schema.UserError(f"--set: {ls.name} holds published figures, not measured points; the scenario pages "
                               "show them beside a measured set's")
    known = scenario_names([ls])
    if scenario not in known:
        raise schema.UserError(f"--scenario: set {ls.name} holds no points of scenario {scenario!r} "
                               f"(it has: {', '.join(known) or 'none'})")
    df = point_frame(ls, scenario)
    reasons = {(p.variant, p.mode, p.point.q_len, p.point.kv_len, p.point.head_dim): dict(p.backend_reasons)
               for p in _records(ls, scenario)}
    docs = {(p.point.q_len, p.point.kv_len): list(p.point.docs) for p in _records(ls, scenario) if p.point.docs}
    out = []
    for _, r in df.iterrows():
        # A wrong answer did other work than its count says: no rate, no share of a ceiling (rules.wrong_answer)
        rated = not r["wrong"]
        out.append(dict(
            scenario=r["scenario"], variant=r["variant"], mode=r["mode"],
            point={k: (integer(r[k]) if k != "mask" else r[k]) for k in POINT_KEYS}
            | ({"docs": docs[(r["q_len"], r["kv_len"])]} if (r["q_len"], r["kv_len"]) in docs else {}),
            status=r["status"], reason=_text(r["reason"]),
            gpu_only_ms=number(r["gpu_only_ms"], 6), gpu_only_method=_text(r["gpu_only_method"]),
            gpu_only_reason=_text(r.get("gpu_only_reason")),  # why not the graph (docs/data-format.md)
            eager_ms=number(r["eager_ms"], 6), tflops=number(r["tflops"], 2) if rated else None,
            tbps=number(r["tbps"], 4) if rated else None,
            pct_of_ceiling=number(r["pct_of_ceiling"], 1) if rated else None,
            kernels_per_call=integer(r["kernels_per_call"]),
            peak_memory_bytes=integer(r["peak_memory_bytes"]), rel_error=number(r["rel_error"], 8),
            dtype=r["dtype"], wrong_answer=bool(r["wrong"]), sdpa_choice=_text(r["sdpa_choice"]),
            backend_reasons=reasons.get((r["variant"], r["mode"], r["q_len"], r["kv_len"], r["head_dim"]), {}),
            facts={k: number(v, 6) for k, v in (r["facts"] or {}).items()},
        ))
    return out


def summary_text(ls: tables.LoadedSet, scenario: str, rows: list[dict[str, Any]]) -> str:
    """`summary_rows` as a plain-text table for the terminal, the conventions on top, refusals below."""
    env = ls.environment
    head = [f"{ls.name}: {env.gpu_name or 'CPU: ' + str(env.cpu)}, torch {env.torch}, scenario {scenario}",
            f"TFLOP/s: {FLOP_CONVENTION}", f"TB/s: {BYTES_CONVENTION}; % of the measured matmul (TFLOP/s) or "
            "copy (TB/s) ceiling"]

    def f(x, spec: str) -> str:
        return "—" if x is None else format(x, spec)

    cols = ["variant", "mode", "B", "Hq/Hkv", "D", "q_len", "kv_len", "window", "status", "GPU-only ms",
            "eager ms", "TFLOP/s", "TB/s", "% ceiling", "kernels"]
    body = []
    for r in rows:
        p = r["point"]
        gpu = f(r["gpu_only_ms"], ".4g") + (" (kernel sum)" if r["gpu_only_method"] == "kernel_sum" else "")
        body.append([r["variant"], r["mode"], str(p["batch"]), f"{p['q_heads']}/{p['kv_heads']}", str(p["head_dim"]),
                     str(p["q_len"]), str(p["kv_len"]), f(p["window"], "d"), r["status"], gpu,
                     f(r["eager_ms"], ".4g"), f(r["tflops"], ".1f"), f(r["tbps"], ".3f"),
                     f(r["pct_of_ceiling"], ".0f"), f(r["kernels_per_call"], "d")])
    notes = [f"  {r['variant']} at kv_len {r['point']['kv_len']} ({r['mode']}): {r['status']}: {r['reason']}"
             for r in rows if r["status"] != schema.Status.OK]
    return "\n".join(head + text_table(cols, body) + notes)


DETERMINISM_COLUMNS = ["backend", "mode", "head_dim", "q_len", "kv_len", "default_variant", "deterministic_variant",
                       "default_ms", "deterministic_ms", "ratio", "status", "reason", "kernel_sums"]


def is_deterministic(variant: str) -> bool:
    """Whether determinism_frame has rows for the variant: it is deterministic and the same call without determinism
    is declared (determinism_rule.base_of)."""
    return determinism_rule.base_of(variant, variants.VARIANTS) is not None


def has_twin(variant: str) -> bool:
    """Whether fp8_frame has rows for the variant: it declares a twin."""
    decl = variants.VARIANTS.get(variant)
    return decl is not None and decl.twin is not None


def determinism_frame(points: pd.DataFrame, rows: list[dict] | None = None) -> pd.DataFrame:
    """What reproducible gradients cost: per backend and point, each deterministic variant against the same call
    without determinism (determinism_rule.base_of: the same SDPA backend pinned, FlashAttention-4's default for its
    deterministic backward), both GPU-only times and their ratio (deterministic / default), like with like
    (determinism_rule.like_with_like); where the deterministic one did not run, its status and reason instead. Wrong
    answers are left out. `rows`: values.rows(points), where the caller has them (`points` is then not read)."""
    out = []
    if not rows if rows is not None else points.empty:  # (rows given: `points` is not read, may be None)
        return pd.DataFrame(columns=DETERMINISM_COLUMNS)
    rows = values.rows(points) if rows is None else rows
    key = ["mode", "head_dim", "q_len", "kv_len"]
    names = dict.fromkeys(r["variant"] for r in rows)
    for v in names:
        base = determinism_rule.base_of(v, names)
        if base is None:
            continue
        det = variants.VARIANTS[v]
        for r in [r for r in rows if r["variant"] == v]:
            d = next((x for x in rows if x["variant"] == base and all(x[k] == r[k] for k in key)), None)
            if d is None:
                continue
            ok = lambda x: x["status"] == schema.Status.OK and not missing(x["gpu_only_ms"]) and not x["wrong"]  # noqa: E731
            det_ms = r["gpu_only_ms"] if ok(r) else math.nan
            base_ms = d["gpu_only_ms"] if ok(d) else math.nan
            sums = False
            if ok(r) and ok(d):
                det_ms, base_ms, sums = determinism_rule.like_with_like(
                    det_ms, r.get("gpu_only_method"), r.get("kernel_sum_ms"), base_ms, d.get("gpu_only_method"),
                    d.get("kernel_sum_ms"))
            ratio = det_ms / base_ms if ok(r) and ok(d) else math.nan
            out.append(dict(backend=det.backend, **{k: r[k] for k in key}, default_variant=base,
                            deterministic_variant=v, default_ms=base_ms, deterministic_ms=det_ms, ratio=ratio,
                            status=r["status"], reason=None if ok(r) else r["reason"], kernel_sums=bool(sums)))
    return pd.DataFrame(out, columns=DETERMINISM_COLUMNS)


FP8_COLUMNS = ["variant", "twin", "mode", "head_dim", "q_len", "kv_len", "dtype", "twin_dtype", "fp8_ms",
               "twin_ms", "speedup", "kernel_sums", "fp8_error", "twin_error", "input_rounding_error", "status",
               "reason", *fp8_speed.COLUMNS]


def fp8_frame(points: pd.DataFrame, rows: list[dict] | None = None) -> pd.DataFrame:
    """What FP8 buys and costs: per variant that declares a twin (gen.model.variants: the same kind
    of kernel at the scenario's dtype) and point, both GPU-only times, like with like (determinism_rule.like_with_like:
    both kernel sums where one is a graph replay and the other a kernel sum, `kernel_sums` then True), speedup = twin ms
    / FP8 ms (>1: FP8 is faster), both errors against float64, and the
    error of rounding the inputs alone
    (the variant's fact fp8_input_rounding_error); where the FP8 one did not run, its status and
    reason instead; where the twin did not run, its time and error are NaN. `rows`: values.rows(points),
    where the caller has them (`points` is then not read)."""
    out = []
    if not rows if rows is not None else points.empty:  # (rows given: `points` is not read, may be None)
        return pd.DataFrame(columns=FP8_COLUMNS)
    rows = values.rows(points) if rows is None else rows
    key = ["mode", "head_dim", "q_len", "kv_len"]
    for v in dict.fromkeys(r["variant"] for r in rows):
        decl = variants.VARIANTS.get(v)
        if decl is None or decl.twin is None:
            continue
        for r in [r for r in rows if r["variant"] == v]:
            t = next((x for x in rows if x["variant"] == decl.twin and all(x[k] == r[k] for k in key)), None)
            ran = lambda x: x is not None and x["status"] == schema.Status.OK and not missing(x["gpu_only_ms"])  # noqa: E731
            fp8_ms = r["gpu_only_ms"] if ran(r) else math.nan
            twin_ms = t["gpu_only_ms"] if ran(t) else math.nan
            sums = False
            if ran(r) and ran(t):
                fp8_ms, twin_ms, sums = determinism_rule.like_with_like(
                    fp8_ms, r.get("gpu_only_method"), r.get("kernel_sum_ms"), twin_ms, t.get("gpu_only_method"),
                    t.get("kernel_sum_ms"))
            out.append(dict(
                variant=v, twin=decl.twin, **{k: r[k] for k in key}, dtype=r["dtype"],
                twin_dtype=t["dtype"] if t is not None else None, fp8_ms=fp8_ms, twin_ms=twin_ms,
                speedup=twin_ms / fp8_ms if not (missing(fp8_ms) or missing(twin_ms)) and fp8_ms else math.nan,
                kernel_sums=sums,
                fp8_error=r["rel_error"] if ran(r) else math.nan,
                twin_error=t["rel_error"] if ran(t) else math.nan,
                input_rounding_error=(r["facts"] or {}).get("fp8_input_rounding_error", math.nan),
                status=r["status"], reason=None if ran(r) else r["reason"],
                **(fp8_speed.speeds(r, t, sums) if ran(r) and ran(t) else {})))
    return pd.DataFrame(out, columns=FP8_COLUMNS)
