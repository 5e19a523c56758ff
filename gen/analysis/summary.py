"""`python -m gen summary`: one row per variant of one result set.

Takes: a results root and a set name. Gives: a text table or a JSON list
(the schema of each object is below in `records`; with a scenario, one row
per variant and sweep point, gen.analysis.scenarios.summary_rows). No torch needed.

The three times of each variant (gen.analysis.timings.JSON_FIELDS): gpu_only_ms
(the time that ranks and that speedup_vs_naive uses; gpu_only_method says
cuda_graph or kernel_sum), kernel_sum_ms, eager_ms, host_ms, host_bound (true,
false, or null within noise) with host_bound_outcome (yes, no, within noise), the
interval of each median (gpu_only_ci_lo_ms, gpu_only_ci_hi_ms...). The conditions
of the GPU-only time (NVML): sm_clock_mhz, sm_clock_min_mhz, power_w, temp_c, null
with telemetry_reason where not recorded; `telemetry` holds every timed window's;
gpu_only_ms_at_ref_clock is the GPU-only time at the set's reference clock ref_mhz (its GPU's
maximum SM clock; gen.analysis.clocks.at_ref_clock), the time that ranks kernels by their efficiency,
null where the clock or the reference is not recorded or the window has no single clock
(rules.one_clock: its sm_clock_min_mhz too far under its mean). graph_fidelity and graph_differences say
whether a graph replay ran the kernels of an eager call. With --scenario, each point's row carries
the same conditions and
sol_pct (its TFLOP/s over the speed of light at its sampled SM clock,
gen.analysis.clocks; null where the window has no single clock). The older fields keep what they
held: gpu_time_ms and its quartiles are the eager time (CUDA events around each call), cpu_time_ms the
host dispatch time. Each entry of `kernels` carries its Nsight Compute counters (op_path,
achieved/theoretical occupancy and limiter, registers, shared memory, SM, DRAM
and tensor-pipe throughput), null where not measured; `counters` says why not.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd

from gen.analysis import clocks, counters, rules, tables, timings
from gen.analysis.values import integer, number, text_table
from gen.model import layout, output, schema


def pick_set(root: Path, name: str | None) -> tables.LoadedSet:
    layout.settle(root)  # a set that a killed publish left aside is put back (or named), never read around
    if name:
        known = [p.name for p in schema.list_sets(root)]
        if name not in known:
            raise schema.UserError(f"--set: no result set {name!r} under {root} (found: {', '.join(known) or 'none'})")
        return tables.load_set(root / name)
    sets, skipped = tables.load_sets(root, skip_broken=True)
    for s in skipped:  # said, so that a broken GPU set is not silently replaced by another
        print(f"note: skipped result set {s.name}: {s.error}", file=sys.stderr)
    if not sets:
        raise schema.UserError(f"--results: no readable result sets under {root}")
    return sets[0]  # GPU sets sort first


def _num(x, digits: int = 4):
    return number(x, digits)


def _str(x) -> str | None:
    return x if isinstance(x, str) and x else None


def _op_paths(ls: tables.LoadedSet, mode: str, variant: str) -> dict[str, list[str]]:
    """Each GPU event name's op path (outermost op first) at its first launch in the first profiled call."""
    tr = ls.trace(mode, variant)
    out: dict[str, list[str]] = {}
    for g in tr.forwards[0].gpu if tr is not None and tr.forwards else []:
        out.setdefault(g.name, list(g.op_path))
    return out


def _extra(ls: tables.LoadedSet, rec) -> dict:
    """The conditions of every window and the graph check of one run or sweep point."""
    if rec is None:
        return dict(telemetry=None, graph_differences=None, conditions_window=None)
    tr = ls.sweep_trace(rec.trace) if rec.trace and rec.status == "ok" and rec.scenario != "article" else (
        ls.trace(rec.mode, rec.variant) if rec.trace and rec.status == "ok" else None)
    tm = ls.times(rec, tr)
    f = tm.fidelity
    diff = None if f is None or f.fidelity == schema.GraphFidelity.NOT_CHECKED else dict(
        only_in_graph=[dict(name=n, launches=c) for n, c in f.only_graph],
        only_in_eager=[dict(name=n, launches=c) for n, c in f.only_eager])
    c = tm.gpu_only_conditions
    return dict(telemetry=clocks.windows_json(tm), graph_differences=diff,
                conditions_window=str(c.window.value if hasattr(c.window, "value") else c.window)
                if tm.gpu_only.n and c.recorded else None)


CONDITION_FIELDS = ["sm_clock_mhz", "sm_clock_min_mhz", "power_w", "temp_c", "telemetry_reason", "burst_ms",
                    "burst_sm_clock_mhz", "host_bound_outcome", "gpu_only_ci_lo_ms", "gpu_only_ci_hi_ms", "sol_pct",
                    "ceiling"]


def _equal_clock(row: dict, ref: float | None, figure: str | None = None) -> dict:
    """The equal-clock fields of a row that holds gpu_only_ms and sm_clock_mhz (and power_w); no equal-clock
    time at a point it does not apply to (rules.equal_clock_applies: a memory-bound point) or from a window with no
    single clock (rules.one_clock)."""
    at = clocks.at_ref_clock(row.get("gpu_only_ms"), row.get("sm_clock_mhz"), ref) \
        if rules.equal_clock_applies(figure) and rules.one_clock(row.get("sm_clock_mhz"), row.get("sm_clock_min_mhz")) \
        else None
    return dict(gpu_only_ms_at_ref_clock=None if at is None else round(at, 6), ref_mhz=ref,
                power_w=row.get("power_w"))


def scenario_rows(ls: tables.LoadedSet, scenario: str) -> list[dict]:
    """gen.analysis.scenarios.summary_rows, each with the conditions of its GPU-only time and
    sol_pct (CONDITION_FIELDS), and every window's conditions (`telemetry`)."""
    from gen.analysis import scenarios

    rows = scenarios.summary_rows(ls, scenario)
    df = scenarios.point_frame(ls, scenario)
    recs = [p for p in ls.rs.sweep if p.scenario == scenario]
    by_key = {(p.variant, p.mode, p.point): p for p in recs}
    for row, (_, r) in zip(rows, df.iterrows(), strict=True):
        for k in CONDITION_FIELDS:
            v = r[k]
            row[k] = v if isinstance(v, str) else (None if v is None or pd.isna(v) else round(float(v), 6))
        point = next((p.point for p in recs if p.variant == r["variant"] and p.mode == r["mode"]
                      and all(_same(getattr(p.point, k), row["point"][k]) for k in row["point"])), None)
        row.update(_extra(ls, by_key.get((r["variant"], r["mode"], point))))
        row.update(_equal_clock(row, ls.environment.ref_mhz, r.get("figure")))
    return rows


def _same(a, b) -> bool:
    """A point's field against its JSON form: the documents' lengths are a tuple in the point, a list in the
    row (compared as they are, packed-documents rows would find no record and lose their telemetry)."""
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        return list(a) == list(b)
    return a == b or str(a) == str(b) if a is not None and b is not None else a == b


def records(ls: tables.LoadedSet, mode: str) -> list[dict]:
    df = tables.summary_table(ls, mode)
    ref = ls.environment.ref_mhz
    out = []
    for _, r in df.iterrows():
        ks = tables.kernel_summary(ls, r["variant"], mode) if r["status"] == "ok" else None
        m = counters.for_run(ls, mode, r["variant"])
        by = counters.by_name(m.frame)
        paths = _op_paths(ls, mode, r["variant"]) if ks is not None else {}
        out.append(dict(
            variant=r["variant"], status=r["status"], reason=_str(r["reason"]), mode=mode,
            kernels_per_forward=integer(r["kernels_per_forward"]),
            counts_consistent=bool(r["counts_consistent"]), forward_counts=list(r["forward_counts"]),
            **timings.json_fields(r),
            peak_memory_mb=_num(r["peak_mb"], 1), max_rel_error=_num(r["max_rel_error"], 6),
            speedup_vs_naive=_num(r["speedup_vs_naive"], 2), backend=_str(r["backend"]),
            **_extra(ls, ls.rs.run(r["variant"], mode)),
            counters="measured" if m.measured else m.absent.value if m.absent else "no kernels matched",
            counters_reason=m.reason, counter_mismatches=len(m.mismatches),
            kernels=[] if ks is None else [
                dict(name=k["name"], short_name=k["short_name"], kind=k["kind"], launched_by=k["launched_by"],
                     count_per_forward=_num(k["count_per_forward"], 3), duration_us=_num(k["duration_us"], 3),
                     occupancy_pct=_num(k["occupancy_pct"], 1),
                     **{**counters.json_fields(by.loc[k["name"]] if k["name"] in by.index else None),
                        "op_path": paths.get(k["name"])})
                for _, k in ks.iterrows()
            ],
        ))
        out[-1].update(_equal_clock(out[-1], ref))
    return out


def _fmt(x, spec: str) -> str:
    return "—" if x is None else format(x, spec)


def table(ls: tables.LoadedSet, recs: list[dict]) -> str:
    env = ls.environment
    head = (f"{ls.name}: {env.gpu_name or 'CPU: ' + env.cpu}, torch {env.torch}, "
            f"B={ls.config.batch} H={ls.config.heads} S={ls.config.seq_len} "
            f"D={ls.config.head_dim} {ls.config.dtype}, {recs[0]['mode'] if recs else ''}")
    cols = ["variant", "status", "kernels", "GPU-only ms (IQR)", "eager ms", "host ms", "speed-up", "peak MB",
            "rel err", "backend"]
    rows = []
    for r in recs:
        gpu = "—" if r["gpu_only_ms"] is None else f"{r['gpu_only_ms']:.4f}" + (
            "" if r["gpu_only_q1_ms"] is None else f" ({r['gpu_only_q1_ms']:.4f}-{r['gpu_only_q3_ms']:.4f})") + (
            " kernel sum" if r["gpu_only_method"] == "kernel_sum" else "") + (" host-bound" if r["host_bound"] else "")
        kern = _fmt(r["kernels_per_forward"], "d") + ("" if r["counts_consistent"] else " (varies!)")
        rows.append([r["variant"], r["status"], kern, gpu, _fmt(r["eager_ms"], ".4f"), _fmt(r["host_ms"], ".4f"),
                     _fmt(r["speedup_vs_naive"], ".2f"), _fmt(r["peak_memory_mb"], ".0f"),
                     _fmt(r["max_rel_error"], ".1e"), r["backend"] or ""])
    if ls.kind == "reference":
        head += f"\npublished figures, not measured here; source: {ls.outline.source}"
    lines = [head, *text_table(cols, rows)]
    lines += [f"  {r['variant']}: {r['reason']}" for r in recs if r["status"] != "ok"]
    return "\n".join(lines)


def _article_row(ls: tables.LoadedSet, rec: dict) -> dict:
    """A `records` row in the fields of gen.model.output.SummaryRow."""
    run = ls.rs.run(rec["variant"], rec["mode"])
    row = {k: v for k, v in rec.items() if k not in _RENAMED}
    row.update(scenario="article", point=_point(run.point if run else None), dtype=ls.config.dtype,
               kernels_per_call=rec["kernels_per_forward"], rel_error=rec["max_rel_error"])
    return row


def _scenario_row(rec: dict) -> dict:
    """A `scenario_rows` row in the fields of gen.model.output.SummaryRow."""
    row = {k: v for k, v in rec.items() if k != "peak_memory_bytes"}
    b = rec.get("peak_memory_bytes")
    row["peak_memory_mb"] = None if b is None else round(b / 2**20, 1)
    row["point"] = {k: row["point"].get(k) for k in ("batch", "q_heads", "kv_heads", "head_dim", "q_len", "kv_len",
                                                      "mask", "window", "docs")}
    return row


_RENAMED = ("kernels_per_forward", "max_rel_error")


def _point(p: schema.Point | None) -> dict | None:
    if p is None:
        return None
    return dict(batch=p.batch, q_heads=p.q_heads, kv_heads=p.kv_heads, head_dim=p.head_dim, q_len=p.q_len,
                kv_len=p.kv_len, mask=str(p.mask), window=p.window, docs=list(p.docs) if p.docs else None)


def _at_ref(row: dict, ref: float) -> dict:
    """The equal-clock time (clocks.at_ref_clock) where the row does not carry it already."""
    if "gpu_only_ms_at_ref_clock" in row:
        return row
    ms, mhz = row.get("gpu_only_ms"), row.get("sm_clock_mhz")
    known = (ms is not None and mhz is not None and not math.isnan(ref)
             and rules.one_clock(mhz, row.get("sm_clock_min_mhz")))
    return {**row, "ref_mhz": None if math.isnan(ref) else ref,
            "gpu_only_ms_at_ref_clock": round(clocks.at_ref_clock(ms, mhz, ref), 6) if known else None}


def json_rows(ls: tables.LoadedSet, mode: str | None, scenario: str | None) -> list[output.SummaryRow]:
    """The summary's rows as gen.model.output.SummaryRow, whichever the options: a scenario's points (of
    `mode`, or every mode), or the article's variants (of `mode`, inference by default)."""
    from gen.analysis import gate

    ref = gate.ref_mhz(ls.environment)
    if scenario:
        raw = [_scenario_row(r) for r in scenario_rows(ls, scenario) if mode is None or r["mode"] == mode]
    else:
        raw = [_article_row(ls, r) for r in records(ls, mode or "inference")]
    return [output.from_dict(output.SummaryRow, _at_ref(r, ref)) for r in raw]


def run(root: Path, name: str | None, fmt: str, mode: str | None = None, scenario: str | None = None) -> str:
    """The summary verb. Without --scenario, the article's variants in `mode` (inference by default);
    with it, the scenario's points in `mode` (every mode by default)."""
    ls = pick_set(root, name)
    if fmt == "json":
        from gen.analysis import sets

        return sets.envelope("summary", [sets.identity(ls)], json_rows(ls, mode, scenario),
                             mode=mode if scenario else mode or "inference", scenario=scenario)
    if scenario:  # one row per variant and sweep point of that scenario (gen.analysis.scenarios)
        from gen.analysis import scenarios

        rows = [r for r in scenario_rows(ls, scenario) if mode is None or r["mode"] == mode]
        return scenarios.summary_text(ls, scenario, rows)
    return table(ls, records(ls, mode or "inference"))
