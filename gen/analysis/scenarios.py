"""Scenarios: every variant at every point of a workload, against the GPU's measured ceilings and published anchors.

Takes: loaded sets (gen.analysis.tables.LoadedSet), measured and reference
(published anchors, gen.model.anchors). Gives numbers only, no words:

- the counting conventions of gen.analysis.flops (named there once) with the label pages print next
  to every figure: `flops(point, mode)` under `FLOP_CONVENTION`, `io_bytes(point,
  elem)` under `BYTES_CONVENTION`; `cudnn_flops(point)` is the cuDNN frontend
  benchmark's own count (its anchors are converted from their times, never mixed);
- `scenario_names(sets)`: the scenarios measured sets hold, in declared order;
- `point_frame(ls, scenario)`: one row per (variant, mode, point) with its
  three times (gen.analysis.timings), TFLOP/s or TB/s, share of the measured
  ceiling, kernels per call, peak memory, error (`COLUMNS`);
- `fastest_frame(points)`: per (mode, head dim, length) the fastest variant;
- `anchor_frame(sets, scenario)`: the published figures that fall on the
  scenario's points, converted to our convention where a published time allows;
- `versus_frame(points, anchors)`: per anchor point, the anchor beside our
  same-named variant and our fastest; `headline(points, anchors)`;
- `differences(ours, theirs)`: what differs between a measured set and an anchor;
- `kernels_frame(ls, variant)`: the kernels of one call per scenario (from the point's trace), and
  `kernel_rows(ls, variant)` its rows;
- `summary_rows(ls, scenario)`: `python -m gen summary --scenario NAME --format json`.

Which figure a point gets: decode (one query token against a KV cache) reads
every byte of the cache for little arithmetic, so it is judged by bandwidth
(TB/s against the measured copy ceiling); prefill and training by TFLOP/s
against the measured matmul ceiling.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from gen.analysis import ceilings as ceilings_mod
from gen.analysis import clocks, rules, tables, timings, values
from gen.analysis import flops as flops_mod
from gen.analysis.values import integer, missing, number, text_table, variant_order, variant_role
from gen.model import anchors, datasheets, said, schema, variants
from gen.model import scenarios as declared

# --------------------------------------------------------------------------- conventions

# The counting conventions live in gen.analysis.flops (named once); re-exported for the pages.
FLOP_CONVENTION, FLOP_LABEL = flops_mod.FLOP_CONVENTION, flops_mod.FLOP_LABEL
BYTES_CONVENTION, BYTES_LABEL = flops_mod.BYTES_CONVENTION, flops_mod.BYTES_LABEL
BACKWARD_FACTOR = flops_mod.BACKWARD_FACTOR
score_pairs, flops, io_bytes = flops_mod.score_pairs, flops_mod.flops, flops_mod.io_bytes
# Published conventions that equal ours where there is no window: their rates are ours unchanged.
SAME_AS_OURS = frozenset({anchors.FA3_CONVENTION})

FIGURE_TFLOPS = flops_mod.FIGURE_TFLOPS
FIGURE_TBPS = rules.MEMORY_BOUND_FIGURE  # (rules.equal_clock_applies reads it)
CEILING_MATMUL = "matmul"
CEILING_COPY = "copy"
CEILING_READ = "read"  # schema 3: a read-only pass; decode, which almost only reads, is set against it


is_decode = flops_mod.is_decode
figure_of = flops_mod.figure_of


def cudnn_flops(p: schema.Point) -> float:
    """The cuDNN frontend benchmark's count (anchors.CUDNN_CONVENTION): 2·B·Hq·N·(Dqk+Dvo), N the
    unmasked score entries, S·(S+1)/2 when causal. Kept to check its published rates, not to rank."""
    n = p.q_len * (p.q_len + 1) / 2 if p.mask == schema.Mask.CAUSAL else p.q_len * p.kv_len
    return 2.0 * p.batch * p.q_heads * n * 2 * p.head_dim


element_size = flops_mod.element_size


def document_frame(p: schema.Point, mode: str = schema.Mode.INFERENCE) -> pd.DataFrame:
    """Per packed document (Mask.DOCUMENT): its tokens, its useful FLOPs under
    FLOP_CONVENTION, its share of the pack's, and what padding every document
    to the longest computes for it (the padded batch's rows)."""
    docs = list(p.docs or ())
    if not docs:
        return pd.DataFrame(columns=["document", "tokens", "flops", "share_pct", "padded_flops"])
    width = max(docs)
    per = [flops(schema.Point(p.batch, p.q_heads, p.kv_heads, p.head_dim, d, d, schema.Mask.CAUSAL), mode)
           for d in docs]
    padded = flops(schema.Point(p.batch, p.q_heads, p.kv_heads, p.head_dim, width, width, schema.Mask.CAUSAL), mode)
    total = sum(per)
    return pd.DataFrame({"document": range(1, len(docs) + 1), "tokens": docs, "flops": per,
                         "share_pct": [100 * f / total for f in per], "padded_flops": [padded] * len(docs)})


# --------------------------------------------------------------------------- which scenarios


def _records(ls: tables.LoadedSet, scenario: str) -> list[schema.SweepPoint]:
    return [p for p in ls.rs.sweep if p.scenario == scenario]


def scenario_names(sets: list[tables.LoadedSet]) -> list[str]:
    """Scenarios with sweep points in a measured set: the declared ones first, in
    their order (gen.model.scenarios), then any other by name."""
    seen = {p.scenario for ls in sets if ls.measured for p in ls.rs.sweep}
    return [n for n in declared.SCENARIOS if n in seen] + sorted(seen - set(declared.SCENARIOS))


def scenario_title(sets: list[tables.LoadedSet], scenario: str) -> str:
    """The title as a measured set recorded it, else as declared, else the name."""
    for ls in sets:
        rec = ls.rs.scenario(scenario) if ls.measured else None
        if rec is not None:
            return rec.title
    s = declared.SCENARIOS.get(scenario)
    return s.title if s else scenario


def scenario_dtype(ls: tables.LoadedSet, scenario: str) -> str:
    rec = ls.rs.scenario(scenario)
    return rec.dtype if rec else ls.rs.config.dtype


# --------------------------------------------------------------------------- measured points

POINT_KEYS = ("batch", "q_heads", "kv_heads", "head_dim", "q_len", "kv_len", "mask", "window")
COLUMNS = [
    "scenario", "variant", "mode", *POINT_KEYS, "status", "reason", "figure",
    *timings.COLUMNS, "noisy", "graph_above_eager",
    "flops", "bytes", "intensity", "tflops", "tbps", "ceiling", "ceiling_value", "pct_of_ceiling",
    "pct_of_matmul", "pct_of_copy", "pct_of_read", "sol_pct", "datasheet_tbps", "pct_of_datasheet",
    "kernels_per_call", "counts_consistent", "peak_memory_bytes", "rel_error", "trace", "main_kernel",
    "main_kernel_us", "other_events_us", "dtype", "wrong", "sdpa_choice", "facts", "kernel_signature", "captured",
]


def _point_dict(p: schema.Point) -> dict[str, Any]:
    return {k: getattr(p, k) for k in POINT_KEYS}


def ceilings(ls: tables.LoadedSet) -> dict | None:
    """scaling.ceilings of the set, made once per set: every scenario's points and page read them
    (their stored samples' medians, some 0.3 ms a call). Shared: read it, do not change it."""
    key = ("scenario ceilings",)
    if key not in ls._tables:
        ls._tables[key] = ceilings_mod.ceilings(ls)
    return ls._tables[key]


def _main_kernel(ls: tables.LoadedSet, rec, tr) -> tuple[str | None, float, float]:
    """The longest kernel's name of the point's profiled call (what runs: verdicts' identity), its
    µs, and the µs of the call's other GPU events (NaN without a trace)."""
    if tr is None or not tr.forwards:
        return None, math.nan, math.nan
    mk, _, total_us = tables.kernel_totals(ls, rec.variant, rec.mode, tr)
    if mk is None:
        return None, math.nan, math.nan
    main_us = float(mk["dur_us"])
    return mk["name"], main_us, total_us - main_us


def point_frame(ls: tables.LoadedSet, scenario: str) -> pd.DataFrame:
    """One row per sweep point of the scenario in a measured set (every status; NaN
    where it did not run), variants in declared order, then mode, head dim, length.
    Rates use the GPU-only time (CUDA graph, or the kernel sum of one call, labelled
    by `gpu_only_method`); a point with no GPU-only time has no rate."""
    key = ("scenario_points", scenario)
    if key not in ls._tables:
        rows = _table_of(ls, scenario)
        ls._tables[key] = pd.DataFrame(rows, columns=COLUMNS) if rows else _point_table([])
    return ls._tables[key].copy()


def point_rows(ls: tables.LoadedSet, scenario: str) -> list[dict[str, Any]]:
    """values.rows(point_frame(ls, scenario)): fresh dicts each call."""
    return values.rows(point_frame(ls, scenario))


def _table_of(ls: tables.LoadedSet, scenario: str) -> list[dict[str, Any]]:
    """The point frame's rows as made (_point_rows, outcomes shared and sorted: _shared_and_sorted), before
    any frame; made once per set and scenario (point_frame and point_rows read them; neither changes them)."""
    key = ("scenario point rows", scenario)
    if key not in ls._tables:
        ls._tables[key] = _shared_and_sorted(_point_rows(ls, scenario))
    return ls._tables[key]


def _point_rows(ls: tables.LoadedSet, scenario: str) -> list[dict[str, Any]]:
    """point_frame's rows in the set's order, before its points share their outcomes."""
    recs = _records(ls, scenario)
    cl = ceilings(ls) if ls.measured else None
    gpu = ls.rs.environment.device == "cuda"  # a CPU trace has no GPU events to count
    sheet = datasheets.bandwidth(ls.rs.environment.gpu_name) if gpu else None
    own_dtype = scenario_dtype(ls, scenario)
    mm_clock = ceilings_mod.matmul_clock(ls) if cl else None
    rows = []
    for rec in recs:
        # a variant refused while being built recorded no dtype: its declared one (FP8 variants)
        decl = variants.VARIANTS.get(rec.variant)
        dtype = rec.dtype or (decl.dtype if decl else None) or own_dtype
        elem = element_size(dtype)
        ok = rec.status == schema.Status.OK
        tr = ls.sweep_trace(rec.trace) if ok and rec.trace else None
        tm = ls.times(rec, tr)
        t = timings.row(tm)
        f, b = flops(rec.point, rec.mode), io_bytes(rec.point, elem)
        ms = t["gpu_only_ms"]
        has_time = ok and not missing(ms) and ms > 0
        tflops = f / (ms * 1e-3) / 1e12 if has_time else math.nan
        tbps = b / (ms * 1e-3) / 1e12 if has_time and rec.mode == schema.Mode.INFERENCE else math.nan
        fig = figure_of(rec.point, rec.mode)
        mm_at = ceilings_mod.matmul_at(cl["matmul_tflops"], mm_clock, t["sm_clock_mhz"]) if cl else math.nan
        pct_mm = 100 * tflops / mm_at if cl else math.nan
        pct_cp = 100 * tbps / (cl["copy_gbps"] / 1e3) if cl else math.nan
        read = cl["read_tbps"] if cl and not missing(cl.get("read_tbps")) else math.nan
        pct_rd = 100 * tbps / read if not missing(read) else math.nan
        ceiling = (CEILING_COPY if missing(read) else CEILING_READ) if fig == FIGURE_TBPS else CEILING_MATMUL
        if ceiling == CEILING_MATMUL and elem == 1:  # the measured matrix product is bf16: no bound on FP8
            cl_row, pct_mm = None, math.nan
        else:
            cl_row = cl
        value = ({CEILING_COPY: cl["copy_gbps"] / 1e3, CEILING_READ: read}.get(ceiling, mm_at)
                 if cl_row else math.nan)
        rows.append(dict(
            scenario=scenario, variant=rec.variant, mode=rec.mode, **_point_dict(rec.point), status=rec.status,
            reason=rec.reason, figure=fig, **t, noisy=rules.noisy(t["gpu_only_iqr_pct"]),
            graph_above_eager=rules.graph_above_eager(t["gpu_only_ms"], t["eager_ms"], t["gpu_only_method"]),
            flops=f, bytes=b, intensity=f / b,
            tflops=tflops if fig == FIGURE_TFLOPS else math.nan, tbps=tbps if fig == FIGURE_TBPS else math.nan,
            ceiling=ceiling if cl_row else None, ceiling_value=value,
            pct_of_ceiling={CEILING_COPY: pct_cp, CEILING_READ: pct_rd}.get(ceiling, pct_mm), pct_of_matmul=pct_mm,
            pct_of_copy=pct_cp, pct_of_read=pct_rd,
            sol_pct=clocks.sol(tflops, ls.rs.environment, dtype, t["sm_clock_mhz"]).pct,
            datasheet_tbps=sheet.hbm_tbps if sheet else math.nan,
            pct_of_datasheet=100 * tbps / sheet.hbm_tbps if sheet and fig == FIGURE_TBPS else math.nan,
            kernels_per_call=tr.counts[0] if tr and tr.forwards and gpu else math.nan,
            counts_consistent=tr.counts_consistent if tr else True,
            peak_memory_bytes=rec.peak_memory_bytes if rec.peak_memory_bytes else math.nan,
            rel_error=rec.rel_error if rec.rel_error is not None else math.nan, trace=rec.trace,
            **dict(zip(("main_kernel", "main_kernel_us", "other_events_us"), _main_kernel(ls, rec, tr))),
            dtype=dtype, wrong=rules.wrong_answer(rec.rel_error), sdpa_choice=rec.sdpa_choice,
            facts=dict(rec.facts),
            kernel_signature=ls.kernel_signature(tr, rec.timing.graph_check) if ok else None,
            captured=rec.captured,  # a later capture call merged into the set measured it (else None)
        ))
    return rows


def _point_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The point frame of _point_rows (which it changes): calls that run the same kernels at a point
    share one host-bound outcome (timings.share_outcomes' rule, "ties"), then the rows go in variant
    order, inference first, then head dim, length, query length (a stable sort). Done on the rows,
    so that one frame is made, not four (share_outcomes and sort_values on the frame: tests keep
    that reading and compare)."""
    if not rows:
        return timings.share_outcomes(pd.DataFrame(rows, columns=COLUMNS), by=["mode", *POINT_KEYS])
    return pd.DataFrame(_shared_and_sorted(rows), columns=COLUMNS)


def _shared_and_sorted(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """_point_table's work on the rows (which it changes, and sorts): the rows its frame is made of."""
    groups: dict[tuple, list[int]] = {}
    for pos, r in enumerate(rows):
        if isinstance(r["kernel_signature"], tuple):
            at = tuple(None if missing(r[k]) else r[k] for k in ("mode", *POINT_KEYS))
            groups.setdefault((*at, r["kernel_signature"]), []).append(pos)
    outcomes = [r["host_bound_outcome"] for r in rows]
    for positions in groups.values():
        if len(positions) > 1:
            shared = rules.shared_outcome([outcomes[pos] for pos in positions])
            for pos in positions:
                outcomes[pos] = None if missing(shared) else shared
    for r, o in zip(rows, outcomes):
        r["host_bound_outcome"], r["host_bound"] = o, {rules.YES: True, rules.NO: False}.get(o)
    order = {v: i for i, v in enumerate(variant_order(r["variant"] for r in rows))}
    rows.sort(key=lambda r: (order[r["variant"]], r["mode"] != schema.Mode.INFERENCE, r["head_dim"], r["kv_len"],
                             r["q_len"]))
    return rows


def roofline_frame(points: pd.DataFrame) -> pd.DataFrame:
    """The points a roofline draws: every point that ran with a GPU-only time, its arithmetic
    intensity and its TFLOP/s under the report's count (decode included, whose figure is TB/s).
    A wrong answer (rules.wrong_answer) is left out: it did less work than its FLOPs count."""
    ok = _ranked(points)
    return pd.DataFrame({"variant": ok["variant"], "mode": ok["mode"], "kv_len": ok["kv_len"],
                         "intensity": ok["intensity"],
                         "tflops": ok["flops"] / (ok["gpu_only_ms"] * 1e-3) / 1e12}).reset_index(drop=True)


def _div(a: float, b: float) -> float:
    """a / b as a frame's float columns divide: by zero ±inf, or NaN for 0/0 (Python would raise)."""
    if b == 0:
        return math.nan if a == 0 or missing(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def tflops_at(flops: float, ms: float) -> float:
    """flops / (ms × 1e-3) / 1e12 in plain floats, as a frame's float columns compute it."""
    return _div(flops, ms * 1e-3) / 1e12


def above_roof(points: pd.DataFrame | None, ceil: dict | None, rows: list[dict] | None = None) -> dict | None:
    """ceilings_mod.above_roof(roofline_frame(points a bf16 ceiling may judge), ceil, "intensity", "tflops"),
    read off the point frame's columns in plain Python (a frame and a mask per step before; tests keep
    that reading and compare). FP8 points are left out: the measured matrix product is bf16.
    `rows`: values.rows(points), where the caller has them (the same values the columns' tolist gives;
    then `points` is not read and may be None)."""
    if ceil is None or (not rows if rows is not None else points.empty):
        return None
    cols = ("dtype", "status", "gpu_only_ms", "wrong", "flops", "intensity", "variant")
    if rows is not None:  # (a row without a dtype or wrong: none to leave out, as the frame's reindex reads it)
        table = [tuple(r.get(c, math.nan) for c in cols) for r in rows]
    else:
        got = points.reindex(columns=cols)  # (a frame without a dtype column: no FP8 to leave out)
        table = list(zip(*(got[c].tolist() for c in cols)))
    d = []
    for dtype, status, ms, wrong, f, intensity, variant in table:
        fp8 = not missing(dtype) and str(dtype).startswith("fp8")
        if fp8 or status != schema.Status.OK or missing(ms) or (not missing(wrong) and bool(wrong)):
            continue
        tf = tflops_at(f, ms)
        if not missing(tf) and not missing(intensity):
            d.append((intensity, tf, variant))
    if not d:
        return None
    over = [(x, tf, v, ceilings_mod.roof_tflops(x, ceil)) for x, tf, v in d if tf > ceilings_mod.roof_tflops(x, ceil)]
    slope = [o for o in over if o[0] * ceil["bandwidth_gbps"] / 1e3 < ceil["matmul_tflops"]]
    return dict(n=len(over), total=len(d), bandwidth=len(slope), compute=len(over) - len(slope),
                variants=list(dict.fromkeys(v for _, _, v, _ in over)),
                bandwidth_name=ceil["bandwidth_name"], bandwidth_gbps=ceil["bandwidth_gbps"],
                max_over=float(max(_div(tf, roof) for _, tf, _, roof in over))
                if over else None)


def above_matmul_at_clock(rows: list[dict], ceil: dict | None, ceiling_mhz: float | None) -> dict | None:
    """The bf16 points whose rate passes the matmul ceiling as measured (the roofline's unscaled line) and
    what they read against it at their own SM clock (pct_of_matmul: scaling.matmul_at): n, how many stay
    within it there (at most 100% + rules.TIME_FLOOR_PCT), the range of their share and of their clocks,
    and the clock the ceiling was measured at. A ceiling measured at a lower clock sits below points that
    ran faster without their passing it. None where no point passes the unscaled line."""
    if ceil is None or not rows:
        return None
    over = []
    for r in rows:
        fp8 = not missing(r.get("dtype")) and str(r.get("dtype")).startswith("fp8")
        ms = r.get("gpu_only_ms")
        if fp8 or r.get("status") != schema.Status.OK or missing(ms) or bool(r.get("wrong")) is True:
            continue
        if tflops_at(r["flops"], ms) > ceil["matmul_tflops"]:
            over.append(r)
    if not over:
        return None
    pct = [r["pct_of_matmul"] for r in over if not missing(r.get("pct_of_matmul"))]
    mhz = [r["sm_clock_mhz"] for r in over if not missing(r.get("sm_clock_mhz"))]
    within = sum(p <= 100.0 + rules.TIME_FLOOR_PCT for p in pct)
    return dict(n=len(over), within_at_clock=within if len(pct) == len(over) else 0,
                pct_lo=min(pct) if pct else None, pct_hi=max(pct) if pct else None,
                mhz_lo=min(mhz) if mhz else None, mhz_hi=max(mhz) if mhz else None, ceiling_mhz=ceiling_mhz)


_SAME_POINT_KEYS = ("mode", "batch", "q_heads", "kv_heads", "head_dim", "q_len", "kv_len", "mask", "window", "dtype")


def _timed_by_point(ls: tables.LoadedSet, scenario: str) -> dict[tuple, dict[str, dict]]:
    """A scenario's timed rows that answered right, by point (_SAME_POINT_KEYS; packed documents left out)."""
    out: dict[tuple, dict[str, dict]] = {}
    for r in point_rows(ls, scenario):
        if r.get("docs") and not missing(r.get("docs")):
            continue
        if r["status"] == schema.Status.OK and not missing(r["gpu_only_ms"]) and not bool(r.get("wrong")):
            out.setdefault(tuple(str(r.get(k)) for k in _SAME_POINT_KEYS), {})[r["variant"]] = r
    return out


def same_point_elsewhere(ls: tables.LoadedSet, scenario: str) -> list[dict]:
    """Variants this scenario timed at a point another scenario of the set timed too (the same shape, mask
    and dtype; packed documents never match): per other scenario and point, each shared variant's as-run
    time and SM clock here and there, and whether the as-run order of the shared variants differs between
    the two (the same kernels in two windows: their clocks, not their kernels, set that order)."""
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
            out.append(dict(other=other, mode=here[k][shared[0]].get("mode"), q_len=here[k][shared[0]]["q_len"],
                            kv_len=here[k][shared[0]]["kv_len"],
                            variants=tuple(mine), orders_differ=mine != theirs, order_there=tuple(theirs),
                            here=tuple((v, here[k][v]["gpu_only_ms"], here[k][v]["sm_clock_mhz"]) for v in mine),
                            there=tuple((v, rows[v]["gpu_only_ms"], rows[v]["sm_clock_mhz"]) for v in mine)))
    return out


def _ranked(points: pd.DataFrame) -> pd.DataFrame:
    """Rows that may win: ran, timed, and answered right (rules.wrong_answer)."""
    wrong = points["wrong"].fillna(False).astype(bool) if "wrong" in points else False
    return points[(points["status"] == schema.Status.OK) & points["gpu_only_ms"].notna() & ~wrong]


BACKEND_COLUMNS = ["variant", "mode", "q_len", "kv_len", "head_dim", "sdpa_choice", "backend", "verdict", "reason"]
ELIGIBLE = rules.ELIGIBLE


def backend_frame(ls: tables.LoadedSet, scenario: str) -> pd.DataFrame:
    """Why SDPA picked its backend: per unpinned SDPA point, one row per backend
    with what PyTorch chose, and "eligible" or PyTorch's reason for not running it
    (`verdict`: chosen, eligible, refused, not asked)."""
    return pd.DataFrame(backend_rows(ls, scenario), columns=BACKEND_COLUMNS)


def backend_rows(ls: tables.LoadedSet, scenario: str) -> list[dict[str, Any]]:
    """backend_frame's rows as values.rows reads them off the frame (the same Python values, to the type:
    tests compare), with no frame made (the scenario pages read the rows)."""
    rows = []
    for rec in _records(ls, scenario):
        if not rec.backend_reasons and rec.sdpa_choice is None:
            continue
        for backend, why in rec.backend_reasons.items():
            if backend == rec.sdpa_choice:
                verdict = "chosen"
            elif why == ELIGIBLE:
                verdict = "eligible"
            elif why.startswith("not asked"):
                verdict = "not asked"
            else:
                verdict = "refused"
            rows.append(dict(variant=rec.variant, mode=rec.mode, q_len=rec.point.q_len, kv_len=rec.point.kv_len,
                             head_dim=rec.point.head_dim, sdpa_choice=rec.sdpa_choice, backend=backend,
                             verdict=verdict, reason=None if why == ELIGIBLE else said.reasons(why)))
    return _as_text_columns(rows, ("sdpa_choice", "reason"))


def _as_text_columns(rows: list[dict], columns) -> list[dict]:
    """The rows with each of `columns` (text or None) as a frame's column holds it: a column with some text
    and some None holds NaN for None (pandas' str column); one of None only, None."""
    for c in columns:
        got = [r[c] for r in rows]
        if None in got and any(x is not None for x in got):
            for r in rows:
                if r[c] is None:
                    r[c] = math.nan
    return rows


def fastest_frame(points: pd.DataFrame) -> pd.DataFrame:
    """Per (mode, head dim, q_len, kv_len): the row of the variant with the lowest GPU-only
    time, by the verdict's rule (gen.analysis.verdicts): SDPA with no backend pinned gives
    way to the pinned variant running its very kernel, so every page names the same one."""
    ok = _ranked(points)
    if ok.empty:
        return ok
    cols = [ok[c].tolist() for c in (*_AT_KEYS, "gpu_only_ms", "variant", "main_kernel")]
    return ok.iloc[_fastest_positions(list(zip(*cols[:4])), *cols[4:])].reset_index(drop=True)


def fastest_rows(rows: list[dict]) -> list[dict]:
    """fastest_frame of a point frame given as its rows (values.rows): the same rows, as dicts (they are
    the rows given: read them). No frame, mask or iloc made (tests compare)."""
    ok = [r for r in rows if _may_win(r)]
    if not ok:
        return []
    keys = [tuple(r[k] for k in _AT_KEYS) for r in ok]
    picks = _fastest_positions(keys, [r["gpu_only_ms"] for r in ok], [r["variant"] for r in ok],
                               [r["main_kernel"] for r in ok])
    return [ok[i] for i in picks]


def _fastest_positions(keys: list[tuple], ms: list, variant: list, kernel: list) -> list[int]:
    """fastest_frame's picks among the ranked rows (their point keys, times, variants, main kernels):
    one position per point, points sorted."""
    # What a groupby's idxmin per point (sorted by point, the first of equal times) and a mask per
    # unpinned win gave, read off the columns as lists: a Series per pick and a mask per win before.
    at: dict[tuple, list[int]] = {}
    for pos, key in enumerate(keys):
        if not any(missing(k) for k in key):  # (a groupby drops a key with a missing part)
            at.setdefault(key, []).append(pos)

    def first_fastest(positions: list[int]) -> int:
        return min(positions, key=lambda pos: ms[pos])  # the first of equals, as idxmin

    auto = variant_role("automatic")
    picks = []
    for key in sorted(at):
        i = first_fastest(at[key])
        if variant[i] == auto and kernel[i]:
            same = [pos for pos in at[key] if kernel[pos] == kernel[i] and variant[pos] != auto]
            i = first_fastest(same) if same else i
        picks.append(i)
    return picks


def own_head_dim_of(rows: list[dict], scenario: str) -> int | None:
    """The scenario's own head dim (declared first) among the rows (a point frame's values.rows), else
    the most common one (the smallest of equally common ones); None without rows."""
    dims = [r["head_dim"] for r in rows if not missing(r["head_dim"])]
    s = declared.SCENARIOS.get(scenario)
    if s is not None and s.head_dim in dims:
        return s.head_dim
    if not dims:
        return None
    counts: dict = {}
    for d in dims:
        counts[d] = counts.get(d, 0) + 1
    top = max(counts.values())
    return int(min(d for d, n in counts.items() if n == top))


# --------------------------------------------------------------------------- published anchors

ANCHOR_COLUMNS = [
    "anchor_set", "gpu", "source", "variant", "mode", *POINT_KEYS, "dtype", "same_shape", "our_batch", "our_q_heads",
    "our_kv_heads", "published_ms", "published_tflops", "published_convention", "approximate", "tflops",
    "tflops_from", "note", "clock_mhz",
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


def _our_points(sets: list[tables.LoadedSet], scenario: str) -> dict[int, list[schema.Point]]:
    """Our points of the scenario by the bytes an element of their inputs takes (1 or 2: a published
    FP8 figure stands beside our FP8 points only, a 16-bit one beside 16-bit), each once, in order.
    (One pass for both widths; each width's own pass before: tests keep that reading.)"""
    out: dict[int, list[schema.Point]] = {1: [], 2: []}
    for ls in sets:
        if ls.measured:
            for p in _records(ls, scenario):
                mine = out[_width(_dtype_of(ls, p))]
                if p.point not in mine:
                    mine.append(p.point)
    return out


def _dtype_of(ls: tables.LoadedSet, p: schema.SweepPoint) -> str:
    """A point's input dtype: its own, else its variant's declared one, else its scenario's (or set's)."""
    decl = variants.VARIANTS.get(p.variant) if ls.measured else None
    rec = ls.rs.scenario(p.scenario)
    return p.dtype or (decl.dtype if decl else None) or (rec.dtype if rec else ls.rs.config.dtype)


def _width(dtype: str | None) -> int:
    """Which inputs compare: 8-bit (1) with 8-bit only; fp16, bf16 (and wider) with each other (2)."""
    return 1 if dtype and element_size(dtype) == 1 else 2


def anchor_frame(sets: list[tables.LoadedSet], scenario: str, measured: tables.LoadedSet | None = None) -> pd.DataFrame:
    """Published figures on the scenario's points: a reference set's sweep points of the same
    scenario, or of another whose point matches ours in length, head dim, mask and grouping.
    `tflops` is under our FLOP_CONVENTION: our count over the published time where one is
    published (`tflops_from` FROM_TIME), the published rate where its convention is ours
    (FROM_SAME_CONVENTION), else NaN (the published rate stays beside it, under its own).
    With `measured`, only the points that set measured; else those of any measured set."""
    mine_of = [measured] if measured is not None else sets
    ours = _our_points(mine_of, scenario)
    rows = []
    for ls in sets:
        if ls.rs.kind != schema.SetKind.REFERENCE:
            continue
        for p in ls.rs.sweep:
            pub = p.published
            if pub is None:
                continue
            dtype = _dtype_of(ls, p)
            mine = _match(p.point, ours.get(_width(dtype), []))
            if mine is None and not (p.scenario == scenario and not any(ours.values())):
                continue
            f = flops(p.point, p.mode)
            if pub.gpu_time_ms:
                tf, how = f / (pub.gpu_time_ms * 1e-3) / 1e12, FROM_TIME
            elif pub.tflops is not None and pub.flop_convention in SAME_AS_OURS and p.point.window is None:
                tf, how = pub.tflops, FROM_SAME_CONVENTION
            else:
                tf, how = math.nan, None
            rows.append(dict(
                anchor_set=ls.name, gpu=ls.rs.environment.gpu_name, source=ls.rs.source, variant=p.variant,
                mode=p.mode, **_point_dict(p.point), dtype=dtype, same_shape=mine == p.point,
                our_batch=mine.batch if mine else math.nan, our_q_heads=mine.q_heads if mine else math.nan,
                our_kv_heads=mine.kv_heads if mine else math.nan,
                published_ms=pub.gpu_time_ms if pub.gpu_time_ms is not None else math.nan,
                published_tflops=pub.tflops if pub.tflops is not None else math.nan,
                published_convention=pub.flop_convention, approximate=pub.approximate, tflops=tf, tflops_from=how,
                note=pub.note, clock_mhz=pub.clock_mhz if pub.clock_mhz is not None else math.nan))
    if not rows:  # (most scenarios: an empty frame is made once, then copied)
        return _EMPTY_ANCHORS.copy()
    return pd.DataFrame(rows, columns=ANCHOR_COLUMNS)


VERSUS_COLUMNS = [
    "anchor_set", "gpu", "anchor_variant", "mode", "head_dim", "q_len", "kv_len", "same_shape", "approximate",
    "anchor_ms", "anchor_published_tflops", "anchor_tflops", "tflops_from", "same_variant_ms", "same_variant_tflops",
    "fastest_variant",
    "fastest_ms", "fastest_tflops", "fastest_pct_of_ceiling", "time_ratio", "rate_ratio", "same_time_ratio",
    "same_rate_ratio", "ours_variant", "ours_same", "ours_ms", "ours_tflops", "ours_time_ratio", "ours_rate_ratio",
    "anchor_clock_mhz", "ours_clock_mhz", "ours_rate_ratio_at_clock",
]


_AT_KEYS = ("mode", "head_dim", "q_len", "kv_len")


def _dicts(df: pd.DataFrame) -> list[dict]:
    """df's rows as dicts (values.rows)."""
    return values.rows(df) if len(df) else []


def _dicts_at(df: pd.DataFrame) -> dict[tuple, list[dict]]:
    """(mode, head dim, q_len, kv_len) -> the rows of df there (as dicts, in df's order); a row
    with a missing key is at no point (as a groupby drops it)."""
    return _rows_at(_dicts(df))


def _rows_at(rows: list[dict]) -> dict[tuple, list[dict]]:
    """_dicts_at of a frame given as its rows."""
    out: dict[tuple, list[dict]] = {}
    for r in rows:
        key = tuple(r[k] for k in _AT_KEYS)
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
        **_at_stated_clock(a, ours, ratio))


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
    # (the frame cut by width, its ranked rows and its fastest before: tests keep that reading)
    by_width = {}
    for w in (1, 2):
        mine = [r for r in points_rows if _width(r["dtype"]) == w]
        by_width[w] = (_rows_at([r for r in mine if _may_win(r)]), _rows_at(fastest_rows(mine)))
    for a in _dicts(anchor):  # rows as dicts: a Series per row and a mask per anchor before (the same frame)
        ok_at, fastest_at = by_width[_width(a["dtype"]) if "dtype" in a and isinstance(a["dtype"], str) else 2]
        key = tuple(a[k] for k in _AT_KEYS)
        at, top = ok_at.get(key, []), fastest_at.get(key, [])
        fast = top[0] if top else None
        same = next((r for r in at if r["variant"] == a["variant"]), None)
        rows.append(versus_row(a, same, fast))
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
    point = tuple(top[k] for k in _AT_KEYS)
    at = [r for r in points_rows if _may_win(r) and tuple(r[k] for k in _AT_KEYS) == point
          and r["variant"] != top["variant"]]
    auto = variant_role("automatic")
    same = [r["variant"] for r in at
            if isinstance(top["kernel_signature"], tuple) and r["kernel_signature"] == top["kernel_signature"]]
    # Kernels of the same names whose intervals are apart from the fastest's run other arguments: no tie, but
    # (variant, its time over the fastest's) (review2 N7)
    by = {r["variant"]: r for r in at}
    apart = [(v, by[v]["gpu_only_ms"] / top["gpu_only_ms"] if top["gpu_only_ms"] else None) for v in same
             if rules.apart(top["gpu_only_ci_hi_ms"], by[v]["gpu_only_ci_lo_ms"])
             or rules.apart(by[v]["gpu_only_ci_hi_ms"], top["gpu_only_ci_lo_ms"])]
    ties = [v for v in same if v != auto and v not in dict(apart)]  # unpinned SDPA gives way to the pinned twin
    # By time, in the order pandas' sort_values gives (numpy's quicksort, NaN last)
    order = np.argsort(np.array([r["gpu_only_ms"] for r in at], dtype=float), kind="quicksort")
    near = [at[i]["variant"] for i in order if at[i]["variant"] not in same
            and not rules.apart(top["gpu_only_ci_hi_ms"], at[i]["gpu_only_ci_lo_ms"])]
    return dict(fastest=top, ties=ties, near=near, same_apart=apart,
                anchor=strongest_of(values.rows(versus) if versus_rows is None else versus_rows, top["head_dim"]))


def _may_win(r: dict) -> bool:
    """_ranked's rule on one row: ran, timed, and answered right."""
    wrong = r.get("wrong", False)
    return (r["status"] == schema.Status.OK and not missing(r["gpu_only_ms"])
            and not (not missing(wrong) and bool(wrong)))


def strongest(versus: pd.DataFrame, head_dim: int | None = None) -> dict | None:
    """strongest_of the versus frame's rows."""
    return strongest_of(values.rows(versus), head_dim)


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
        f = flops(p.point, p.mode)
        if pub.gpu_time_ms:
            tf, how = f / (pub.gpu_time_ms * 1e-3) / 1e12, FROM_TIME
        elif pub.tflops is not None and pub.flop_convention in SAME_AS_OURS and p.point.window is None:
            tf, how = pub.tflops, FROM_SAME_CONVENTION
        else:
            tf, how = math.nan, None
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
    # Read off the columns as lists (drop_duplicates, unique and two groupbys before: tests keep that
    # reading): each distinct point once, in order; a groupby's groups in sorted order, each its first row.
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
    a, b = theirs.rs.environment, ours.rs.environment
    pairs = [("GPU", a.gpu_name, b.gpu_name), ("cuDNN", cudnn_version(a.cudnn), cudnn_version(b.cudnn)),
             ("PyTorch", a.torch, b.torch), ("dtype", theirs.rs.config.dtype, ours.rs.config.dtype)]
    return [dict(what=w, published=x, ours=y) for w, x, y in pairs if x != y and (x or y)]


# --------------------------------------------------------------------------- kernels per scenario

KERNEL_COLUMNS = ["scenario", "mode", *POINT_KEYS, "index", "name", "short_name", "kind", "category", "count",
                  "duration_us"]


def kernels_frame(ls: tables.LoadedSet, variant: str) -> pd.DataFrame:
    """The GPU events of one profiled call of `variant` per (scenario, mode), at the largest
    length (own head dim) whose point kept a trace: one row per distinct kernel in launch
    order with its launches and total µs in that call."""
    return pd.DataFrame(kernel_rows(ls, variant), columns=KERNEL_COLUMNS)


def kernel_rows(ls: tables.LoadedSet, variant: str) -> list[dict[str, Any]]:
    """kernels_frame's rows, as values.rows reads them off the frame (the variant pages read the rows)."""
    rows = []
    for scenario in scenario_names([ls]):
        pts = [p for p in _records(ls, scenario) if p.variant == variant and p.status == schema.Status.OK and p.trace]
        if not pts:
            continue
        dims = {p.point.head_dim for p in pts}
        s = declared.SCENARIOS.get(scenario)
        d = s.head_dim if s and s.head_dim in dims else min(dims)
        for mode in [m for m in schema.Mode if any(p.mode == m for p in pts)]:
            cand = [p for p in pts if p.mode == mode and p.point.head_dim == d] or [p for p in pts if p.mode == mode]
            p = max(cand, key=lambda x: (x.point.kv_len, x.point.q_len))
            tr = ls.sweep_trace(p.trace)
            # The call's kernels grouped by name, short name, kind and category (first launch, launches,
            # summed µs), read off its events.
            groups: dict[tuple, list] = {}
            keys, durs = [], []
            for g in tr.forwards[0].gpu if tr.forwards else []:
                key = (g.name, g.short_name, g.kind, rules.category(g.name, g.kind, g.launched_by))
                acc = groups.setdefault(key, [g.index, 0])
                acc[0], acc[1] = min(acc[0], g.index), acc[1] + 1
                keys.append(key)
                durs.append(g.dur)
            if not durs:
                continue
            sums = tables.group_sums(keys, durs)
            point = _point_dict(p.point)
            for key, (first, count) in sorted(groups.items(), key=lambda kv: kv[1][0]):
                name, short, kind, category = key
                rows.append(dict(scenario=scenario, mode=mode, **point, index=int(first), name=name, short_name=short,
                                 kind=kind, category=category, count=count, duration_us=sums[key]))
    # A window (None where the point has none) as the frame's column holds it: floats and NaN where
    # some rows have one and some not (a float column), else as given.
    windows = [r["window"] for r in rows]
    if None in windows and any(w is not None for w in windows):
        for r in rows:
            r["window"] = math.nan if r["window"] is None else float(r["window"])
    return rows


# --------------------------------------------------------------------------- the summary verb


def _text(x) -> str | None:
    return x if isinstance(x, str) and x else None


def summary_rows(ls: tables.LoadedSet, scenario: str) -> list[dict[str, Any]]:
    """One JSON-ready row per variant and sweep point of the scenario: scenario, variant,
    mode, point (batch, q_heads, kv_heads, head_dim, q_len, kv_len, mask, window), status,
    reason, gpu_only_ms (+ method), eager_ms, tflops and tbps under the conventions above
    (null where they do not apply), pct_of_ceiling, kernels_per_call, peak memory, error;
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
        out.append(dict(
            scenario=r["scenario"], variant=r["variant"], mode=r["mode"],
            point={k: (integer(r[k]) if k != "mask" else r[k]) for k in POINT_KEYS}
            | ({"docs": docs[(r["q_len"], r["kv_len"])]} if (r["q_len"], r["kv_len"]) in docs else {}),
            status=r["status"], reason=_text(r["reason"]),
            gpu_only_ms=number(r["gpu_only_ms"], 6), gpu_only_method=_text(r["gpu_only_method"]),
            eager_ms=number(r["eager_ms"], 6), tflops=number(r["tflops"], 2), tbps=number(r["tbps"], 4),
            pct_of_ceiling=number(r["pct_of_ceiling"], 1), kernels_per_call=integer(r["kernels_per_call"]),
            peak_memory_bytes=integer(r["peak_memory_bytes"]), rel_error=number(r["rel_error"], 8),
            dtype=r["dtype"], wrong_answer=bool(r["wrong"]), sdpa_choice=_text(r["sdpa_choice"]),
            backend_reasons=reasons.get((r["variant"], r["mode"], r["q_len"], r["kv_len"], r["head_dim"]), {}),
            facts={k: number(v, 6) for k, v in (r["facts"] or {}).items()},
        ))
    return out


def summary_text(ls: tables.LoadedSet, scenario: str, rows: list[dict[str, Any]]) -> str:
    """`summary_rows` as a plain-text table for the terminal, the conventions on top, refusals below."""
    env = ls.rs.environment
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
                       "default_ms", "deterministic_ms", "ratio", "status", "reason"]


def is_deterministic(variant: str) -> bool:
    """Whether determinism_frame has rows for the variant: it is declared deterministic
    (kind "sdpa_deterministic") and a pinned variant of its backend exists."""
    det = variants.VARIANTS.get(variant)
    return det is not None and det.kind == "sdpa_deterministic" and any(
        d.kind == "sdpa" and d.backend == det.backend for d in variants.VARIANTS.values())


def has_twin(variant: str) -> bool:
    """Whether fp8_frame has rows for the variant: it declares a twin."""
    decl = variants.VARIANTS.get(variant)
    return decl is not None and decl.twin is not None


def determinism_frame(points: pd.DataFrame, rows: list[dict] | None = None) -> pd.DataFrame:
    """What reproducible gradients cost: per backend and point, the deterministic variant
    (gen.model.variants kind "sdpa_deterministic") against the same backend pinned without it:
    both GPU-only times and their ratio (deterministic / default); where the deterministic one
    did not run, its status and reason instead. Wrong answers are left out. `rows`: values.rows(points),
    where the caller has them (read as rows: iterrows and a mask per row before; tests keep that reading)."""
    out = []
    if not rows if rows is not None else points.empty:  # (rows given: `points` is not read, may be None)
        return pd.DataFrame(columns=DETERMINISM_COLUMNS)
    rows = values.rows(points) if rows is None else rows
    key = ["mode", "head_dim", "q_len", "kv_len"]
    for v in dict.fromkeys(r["variant"] for r in rows):
        det = variants.VARIANTS.get(v)
        if det is None or det.kind != "sdpa_deterministic":
            continue
        base = next((b for b, d in variants.VARIANTS.items() if d.kind == "sdpa" and d.backend == det.backend), None)
        if base is None:
            continue
        for r in [r for r in rows if r["variant"] == v]:
            d = next((x for x in rows if x["variant"] == base and all(x[k] == r[k] for k in key)), None)
            if d is None:
                continue
            ok = lambda x: x["status"] == schema.Status.OK and not missing(x["gpu_only_ms"]) and not x["wrong"]  # noqa: E731
            ratio = r["gpu_only_ms"] / d["gpu_only_ms"] if ok(r) and ok(d) else math.nan
            out.append(dict(backend=det.backend, **{k: r[k] for k in key}, default_variant=base,
                            deterministic_variant=v, default_ms=d["gpu_only_ms"] if ok(d) else math.nan,
                            deterministic_ms=r["gpu_only_ms"] if ok(r) else math.nan, ratio=ratio,
                            status=r["status"], reason=None if ok(r) else r["reason"]))
    return pd.DataFrame(out, columns=DETERMINISM_COLUMNS)


FP8_COLUMNS = ["variant", "twin", "mode", "head_dim", "q_len", "kv_len", "dtype", "twin_dtype", "fp8_ms",
               "twin_ms", "speedup", "fp8_error", "twin_error", "input_rounding_error", "status", "reason"]


def fp8_frame(points: pd.DataFrame, rows: list[dict] | None = None) -> pd.DataFrame:
    """What FP8 buys and costs: per variant that declares a twin (gen.model.variants: the same kind
    of kernel at the scenario's dtype) and point, both GPU-only times, speedup = twin ms / FP8 ms
    (>1: FP8 is faster), both errors against float64, and the error of rounding the inputs alone
    (the variant's fact fp8_input_rounding_error); where the FP8 one did not run, its status and
    reason instead; where the twin did not run, its time and error are NaN. `rows`: values.rows(points),
    where the caller has them (read as rows: iterrows and a mask per row before; tests keep that reading)."""
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
            out.append(dict(
                variant=v, twin=decl.twin, **{k: r[k] for k in key}, dtype=r["dtype"],
                twin_dtype=t["dtype"] if t is not None else None, fp8_ms=fp8_ms, twin_ms=twin_ms,
                speedup=twin_ms / fp8_ms if not (missing(fp8_ms) or missing(twin_ms)) and fp8_ms else math.nan,
                fp8_error=r["rel_error"] if ran(r) else math.nan,
                twin_error=t["rel_error"] if ran(t) else math.nan,
                input_rounding_error=(r["facts"] or {}).get("fp8_input_rounding_error", math.nan),
                status=r["status"], reason=None if ran(r) else r["reason"]))
    return pd.DataFrame(out, columns=FP8_COLUMNS)
