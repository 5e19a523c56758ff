"""A scenario's measured points: every variant at every point, its times, rates and share of the ceilings.

Takes: a measured loaded set (gen.analysis.tables.LoadedSet) and a scenario's name. Gives:
`scenario_names(sets)` (in declared order); `point_frame(ls, scenario)` / `point_rows`, one row per
(variant, mode, point) with its three times (gen.analysis.timings), TFLOP/s or TB/s, share of the
measured ceiling, kernels per call, peak memory, error (`COLUMNS`); `fastest_rows` (per point the
fastest, by the verdict's rule); `above_roof`;
`backend_rows` (why SDPA picked its backend); `kernel_rows(ls, variant)` (the kernels of one call per
scenario); the counting conventions of gen.analysis.flops. Numbers only, no words.

Which figure a point gets: decode (one query token against a KV cache) reads every byte of the cache
for little arithmetic, so it is judged by bandwidth (TB/s against the measured copy ceiling); prefill
and training by TFLOP/s against the measured matmul ceiling.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import pandas as pd

from gen.analysis import ceilings as ceilings_mod
from gen.analysis import clocks, kernel_rules, rules, tables, timings, values
from gen.analysis import flops as flops_mod
from gen.analysis.values import missing, variant_order, variant_role
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
    seen = {p.scenario for ls in sets if ls.measured for p in ls.outline.sweep}
    return [n for n in declared.SCENARIOS if n in seen] + sorted(seen - set(declared.SCENARIOS))


def scenario_title(sets: list[tables.LoadedSet], scenario: str) -> str:
    """The title as a measured set recorded it, else as declared, else the name."""
    for ls in sets:
        rec = ls.outline.scenario(scenario) if ls.measured else None
        if rec is not None:
            return rec.title
    s = declared.SCENARIOS.get(scenario)
    return s.title if s else scenario


def scenario_dtype(ls: tables.LoadedSet, scenario: str) -> str:
    rec = ls.outline.scenario(scenario)
    return rec.dtype if rec else ls.config.dtype


# --------------------------------------------------------------------------- measured points

POINT_KEYS = ("batch", "q_heads", "kv_heads", "head_dim", "q_len", "kv_len", "mask", "window")
COLUMNS = [
    "scenario", "variant", "mode", *POINT_KEYS, "status", "reason", "figure",
    *timings.COLUMNS, "noisy", "graph_above_eager",
    "flops", "bytes", "intensity", "tflops", "tbps", "ceiling", "ceiling_value", "pct_of_ceiling",
    "pct_of_matmul", "pct_of_matmul_at_clock", "ceiling_mhz", "ceiling_cap_share", "pct_of_copy", "pct_of_read",
    "sol_pct", "sol_floor_pct", "datasheet_tbps", "pct_of_datasheet", "ridge_intensity", "roof_tflops", "achieved_tbps",
    "kernels_per_call", "counts_consistent", "peak_memory_bytes", "rel_error", "trace", "main_kernel",
    "main_kernel_us", "other_events_us", "dtype", "wrong", "sdpa_choice", "facts", "kernel_signature", "captured",
]


def _point_dict(p: schema.Point) -> dict[str, Any]:
    return {k: getattr(p, k) for k in POINT_KEYS}


def ceilings(ls: tables.LoadedSet) -> dict | None:
    """scaling.ceilings of the set, made once per set: every scenario's points and page read them.
    Shared: read it, do not change it."""
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
        ls._tables[key] = pd.DataFrame(_table_of(ls, scenario), columns=COLUMNS)
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
    gpu = ls.environment.device == "cuda"  # a CPU trace has no GPU events to count
    sheet = datasheets.bandwidth(ls.environment.gpu_name) if gpu else None
    own_dtype = scenario_dtype(ls, scenario)
    mm_clock = ceilings_mod.matmul_clock(ls) if cl else None
    mm_held = _matmul_cap_share(ls) if cl else None
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
        # the share of the matmul ceiling as measured (its own clock and power state)
        # is the figure; scaled to the point's clock it is a model, which assumes a product that can run at that
        # clock under the power limit (the measured one could not: it was held for power at a lower clock)
        # a window with no single clock (rules.one_clock) is set against a ceiling at no clock of its own
        one = t["one_clock"]
        mm_at = ceilings_mod.matmul_at(cl["matmul_tflops"], mm_clock, t["sm_clock_mhz"]) if cl and one else math.nan
        pct_mm = 100 * tflops / cl["matmul_tflops"] if cl else math.nan
        pct_mm_at = 100 * tflops / mm_at if cl and one else math.nan
        pct_cp = 100 * tbps / (cl["copy_gbps"] / 1e3) if cl else math.nan
        read = cl["read_tbps"] if cl and not missing(cl.get("read_tbps")) else math.nan
        pct_rd = 100 * tbps / read if not missing(read) else math.nan
        ceiling = (CEILING_COPY if missing(read) else CEILING_READ) if fig == FIGURE_TBPS else CEILING_MATMUL
        if ceiling == CEILING_MATMUL and elem == 1:  # the measured matrix product is bf16: no bound on FP8
            cl_row, pct_mm, pct_mm_at = None, math.nan, math.nan
        else:
            cl_row = cl
        value = ({CEILING_COPY: cl["copy_gbps"] / 1e3, CEILING_READ: read}.get(ceiling, cl["matmul_tflops"])
                 if cl_row else math.nan)
        matmul_row = bool(cl_row) and ceiling == CEILING_MATMUL
        rows.append(dict(
            scenario=scenario, variant=rec.variant, mode=rec.mode, **_point_dict(rec.point), status=rec.status,
            reason=rec.reason, figure=fig, **t, noisy=rules.noisy(t["gpu_only_iqr_pct"]),
            graph_above_eager=rules.graph_above_eager(t["gpu_only_ms"], t["eager_ms"], t["gpu_only_method"]),
            flops=f, bytes=b, intensity=f / b,
            tflops=tflops if fig == FIGURE_TFLOPS else math.nan, tbps=tbps if fig == FIGURE_TBPS else math.nan,
            ceiling=ceiling if cl_row else None, ceiling_value=value,
            pct_of_ceiling={CEILING_COPY: pct_cp, CEILING_READ: pct_rd}.get(ceiling, pct_mm), pct_of_matmul=pct_mm,
            pct_of_matmul_at_clock=pct_mm_at,
            ceiling_mhz=mm_clock if matmul_row and mm_clock is not None else math.nan,
            ceiling_cap_share=mm_held if matmul_row and mm_held is not None else math.nan,
            pct_of_copy=pct_cp, pct_of_read=pct_rd,
            sol_pct=clocks.sol(tflops, ls.environment, dtype, t["sm_clock_mhz"]).pct if one else math.nan,
            # the share at the GPU's maximum clock, which no kernel runs above (a floor): a window with no single
            # clock has no other, and a table holding one reads every row by it (sol_floors)
            sol_floor_pct=clocks.sol(tflops, ls.environment, dtype, ls.environment.ref_mhz).pct,
            datasheet_tbps=sheet.hbm_tbps if sheet else math.nan,
            pct_of_datasheet=100 * tbps / sheet.hbm_tbps if sheet and fig == FIGURE_TBPS else math.nan,
            # the roofline's side of the point: its ridge, the roof at its intensity and
            # the bandwidth it reached, whatever figure its scenario is rated in
            ridge_intensity=cl["ridge_intensity"] if cl else math.nan,
            roof_tflops=ceilings_mod.roof_tflops(f / b, cl) if cl and b else math.nan, achieved_tbps=tbps,
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


def _shared_and_sorted(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The point frame's rows from _point_rows (which it changes, and sorts): calls that run the same kernels
    at a point share one host-bound outcome (timings.share_outcomes, "ties"), then the rows go in variant
    order, inference first, then head dim, length, query length (a stable sort)."""
    timings.share_outcomes(rows, by=("mode", *POINT_KEYS))
    order = {v: i for i, v in enumerate(variant_order(r["variant"] for r in rows))}
    rows.sort(key=lambda r: (order[r["variant"]], r["mode"] != schema.Mode.INFERENCE, r["head_dim"], r["kv_len"],
                             r["q_len"]))
    return rows


def _div(a: float, b: float) -> float:
    """a / b as a frame's float columns divide: by zero ±inf, or NaN for 0/0 (Python would raise)."""
    if b == 0:
        return math.nan if a == 0 or missing(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def tflops_at(flops: float, ms: float) -> float:
    """flops / (ms × 1e-3) / 1e12 in plain floats, as a frame's float columns compute it."""
    return _div(flops, ms * 1e-3) / 1e12


def above_roof(rows: list[dict], ceil: dict | None) -> dict | None:
    """ceilings_mod.above_roof over the point frame's rows (values.rows) that a bf16 ceiling may judge: those
    that ran, timed, and answered right, at their intensity and TFLOP/s. FP8 points are left out: the measured
    matrix product is bf16."""
    if ceil is None or not rows:
        return None
    cols = ("dtype", "status", "gpu_only_ms", "wrong", "flops", "intensity", "variant")
    # (a row without a dtype or wrong: none to leave out)
    table = [tuple(r.get(c, math.nan) for c in cols) for r in rows]
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


def _matmul_cap_share(ls: tables.LoadedSet) -> float | None:
    """The share of the matmul ceiling's samples NVML said were held down for power (schema 5), or None."""
    t = ls.rs.ceilings.telemetry.get("matmul") if ls.rs.ceilings is not None and ls.rs.ceilings.telemetry else None
    share = getattr(t, "power_cap_share", None) if t is not None else None
    return None if missing(share) else float(share)


def above_matmul_at_clock(rows: list[dict], ceil: dict | None, ceiling_mhz: float | None) -> dict | None:
    """The bf16 points whose rate passes the matmul ceiling as measured (the roofline's unscaled line) and
    what they read against it at their own SM clock (pct_of_matmul_at_clock: scaling.matmul_at, a model): n, how
    many stay within it there (at most 100% + rules.TIME_FLOOR_PCT), the range of their share and of their clocks,
    and the clock the ceiling was measured at; `no_clock`, how many ran in a window with no single clock
    (rules.one_clock), set against no clock of their own. A ceiling measured at a lower clock sits below points that
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
    pct = [r["pct_of_matmul_at_clock"] for r in over if not missing(r.get("pct_of_matmul_at_clock"))]
    mhz = [r["sm_clock_mhz"] for r in over if not missing(r.get("sm_clock_mhz"))]
    within = sum(p <= 100.0 + rules.TIME_FLOOR_PCT for p in pct)
    return dict(n=len(over), within_at_clock=within if len(pct) == len(over) else 0,
                no_clock=sum(1 for r in over if not r.get("one_clock", True)),
                pct_lo=min(pct) if pct else None, pct_hi=max(pct) if pct else None,
                mhz_lo=min(mhz) if mhz else None, mhz_hi=max(mhz) if mhz else None, ceiling_mhz=ceiling_mhz)


BACKEND_COLUMNS = ["variant", "mode", "q_len", "kv_len", "head_dim", "sdpa_choice", "backend", "verdict", "reason"]
ELIGIBLE = rules.ELIGIBLE


def backend_frame(ls: tables.LoadedSet, scenario: str) -> pd.DataFrame:
    """Why SDPA picked its backend: per unpinned SDPA point, one row per backend
    with what PyTorch chose, and "eligible" or PyTorch's reason for not running it
    (`verdict`: chosen, eligible, refused, not asked)."""
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
    return pd.DataFrame(rows, columns=BACKEND_COLUMNS)


def backend_rows(ls: tables.LoadedSet, scenario: str) -> list[dict[str, Any]]:
    """values.rows(backend_frame(ls, scenario)): the scenario pages read the rows."""
    return values.rows(backend_frame(ls, scenario))


# A point: the rows the fastest is picked among.
AT_KEYS = ("mode", "head_dim", "q_len", "kv_len")


def may_win(r: dict) -> bool:
    """Whether a point frame's row (as a dict) may win: ran, timed, and answered right (rules.wrong_answer)."""
    wrong = r.get("wrong", False)
    return (r["status"] == schema.Status.OK and not missing(r["gpu_only_ms"])
            and not (not missing(wrong) and bool(wrong)))


def fastest_rows(rows: list[dict]) -> list[dict]:
    """Per (mode, head dim, q_len, kv_len) of a point frame's rows (values.rows), points sorted: the row of
    the variant with the lowest GPU-only time among those that may win (the first of equals), by the
    verdict's rule (gen.analysis.verdicts): SDPA with no backend pinned gives way to the pinned variant
    running its very kernel, so every page names the same one. The rows given, as dicts: read them."""
    at: dict[tuple, list[dict]] = {}
    for r in rows:
        key = tuple(r[k] for k in AT_KEYS)
        if may_win(r) and not any(missing(k) for k in key):
            at.setdefault(key, []).append(r)

    def first_fastest(candidates: list[dict]) -> dict:
        return min(candidates, key=lambda r: r["gpu_only_ms"])

    auto = variant_role("automatic")
    picks = []
    for key in sorted(at):
        best = first_fastest(at[key])
        if best["variant"] == auto and best["main_kernel"]:
            same = [r for r in at[key] if r["main_kernel"] == best["main_kernel"] and r["variant"] != auto]
            best = first_fastest(same) if same else best
        picks.append(best)
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
    counts = Counter(dims)
    top = max(counts.values())
    return int(min(d for d, n in counts.items() if n == top))


# --------------------------------------------------------------------------- kernels per scenario

KERNEL_COLUMNS = ["scenario", "mode", *POINT_KEYS, "index", "name", "short_name", "kind", "category", "count",
                  "duration_us"]


def kernels_frame(ls: tables.LoadedSet, variant: str) -> pd.DataFrame:
    """The GPU events of one profiled call of `variant` per (scenario, mode), at the largest
    length (own head dim) whose point kept a trace: one row per distinct kernel in launch
    order with its launches and total µs in that call."""
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
                key = (g.name, g.short_name, g.kind, kernel_rules.category(g.name, g.kind, g.launched_by))
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
    return pd.DataFrame(rows, columns=KERNEL_COLUMNS)


def kernel_rows(ls: tables.LoadedSet, variant: str) -> list[dict[str, Any]]:
    """values.rows(kernels_frame(ls, variant)): the variant pages read the rows."""
    return values.rows(kernels_frame(ls, variant))


def sol_floors(rows) -> bool:
    """A table's compute-SOL column is read at the GPU's maximum clock in every row (sol_floor_pct, a floor): some
    row it rates (measured, a right answer, with a floor) had no single clock (rules.one_clock), and shares at
    each window's own clock beside floors at the maximum would set one column on two bases."""
    return any(r.get("status") == schema.Status.OK and not r.get("wrong") and not missing(r.get("sol_floor_pct"))
               and not missing(r.get("one_clock")) and not r.get("one_clock") for r in rows)
