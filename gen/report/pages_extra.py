"""Findings, scaling and comparison pages, added to the site through
`gen.render.PAGE_BUILDERS` (render.py appends `BUILDERS` below).

Takes: a `render.Context`. Gives: page builders; the numbers come from
gen.findings, gen.scaling and gen.compare, the charts from gen.charts_scaling
and gen.charts_compare, the layout from templates/findings_*, scaling_*,
compare_*. Every page that shows a reference set says it holds published
figures, not measurements, and names the source.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pandas as pd

from gen.analysis import compare, findings, scaling, tables
from gen.report import charts_compare, charts_scaling

if TYPE_CHECKING:
    from gen.report import render

# gen.render imports this module at its end to register BUILDERS, so render is
# imported inside the functions here, never at import time.
GENERATED = "generated"

FINDINGS = f"{GENERATED}/findings.md"
SCALING = f"{GENERATED}/scaling.md"
COMPARE = f"{GENERATED}/compare.md"


def _records(df: pd.DataFrame) -> list[dict]:
    return [] if df.empty else df.to_dict("records")


def _kernel_links(ctx, ls, f: dict) -> list[tuple[str, str]]:
    """(label, href) per run of consecutive kernel rows of one finding: "#4", "#6–#9"."""
    from gen.report import render

    if not f["kernels"] or not f["variant"]:
        return []
    page = render.relpath(render.variant_page(f["variant"]), FINDINGS)
    anchor = getattr(ctx, "kernel_anchor", None)
    out = []
    for a, b in findings.kernel_groups(k["index"] for k in f["kernels"]):
        aid = anchor(ls.name, f["variant"], f["mode"], a) if anchor else findings.anchor(f["variant"], f["mode"], a)
        out.append((f"#{a}" if a == b else f"#{a}–#{b}", f"{page}#{aid}"))
    return out


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and x != x)


def _hypothesis_columns(rows: list[dict]) -> dict:
    """Which checks this set can show: a column only where some variant has a measured value."""
    def some(col):
        return any(not _missing(r[col]) for r in rows)

    return dict(kernels=some("measured_kernels"), copy_fill=some("measured_copy_or_fill"),
                tensor_cores=some("measured_tensor_cores"), rank=some("measured_rank"))


def findings_pages(ctx: render.Context) -> Iterator:
    from gen.report import render

    sets = []
    for ls in ctx.sets:
        hyp = ctx.hypotheses(ls) if hasattr(ctx, "hypotheses") else findings.check_hypotheses(ls)
        found = ctx.findings(ls) if hasattr(ctx, "findings") else findings.findings(ls)
        rows = _records(hyp)
        for r in rows:
            r["contradicted_items"] = [name for col, name in (
                ("kernels_contradicted", "kernels"), ("copy_contradicted", "copy or fill"),
                ("tensor_cores_contradicted", "tensor cores"), ("rank_contradicted", "rank")) if r[col] is True]
        dicts = [f.to_dict() for f in found]
        for f in dicts:
            f["links"] = _kernel_links(ctx, ls, f)
        groups = [dict(kind=k, title=title, note=findings.KIND_NOTES.get(k, ""),
                       items=[f for f in dicts if f["kind"] == k]) for k, title in findings.KINDS.items()]
        groups += [dict(kind=k, title=k, note="", items=[f for f in dicts if f["kind"] == k])
                   for k in dict.fromkeys(f["kind"] for f in dicts) if k not in findings.KINDS]
        sets.append(dict(ls=ls, hypotheses=rows, columns=_hypothesis_columns(rows),
                         gpu=ls.measured and ls.rs.environment.device == "cuda",
                         contradicted=sum(r["contradicted"] for r in rows),
                         groups=[g for g in groups if g["items"]], findings=dicts))
    text = ctx.template("findings_page.md.j2").render(here=FINDINGS, sets=sets)
    yield render.Page(FINDINGS, text, nav=("Findings",))


def scaling_pages(ctx: render.Context) -> Iterator:
    from gen.report import render

    sets = []
    for ls in ctx.sets:
        sw = scaling.sweep_frame(ls)
        ceil = scaling.ceilings(ls)
        cat = scaling.category_frame(ls)
        busy = scaling.busy_frame(ls)
        item = dict(ls=ls, ceil=ceil, has_sweep=bool(len(sw)), oom=scaling.oom_sizes(ls),
                    fastest=_records(scaling.fastest_at_largest(ls)), charts={}, categories=_records(cat),
                    busy_default=_records(busy[busy["source"] == "default"]) if len(busy) else [],
                    sweep_rows=_records(sw[sw["gpu_ms"].notna() | (sw["status"] != "ok")]) if len(sw) else [],
                    measured=ls.measured, gpu=ls.rs.environment.device == "cuda")
        if len(sw) and sw["gpu_ms"].notna().any():
            item["charts"]["time"] = ctx.chart(charts_scaling.time_vs_seq(sw), "GPU time against sequence length")
            item["charts"]["memory"] = ctx.chart(charts_scaling.memory_vs_seq(sw),
                                                 "peak memory against sequence length")
            if ceil:
                item["charts"]["roofline"] = ctx.chart(charts_scaling.roofline(sw, ceil), "roofline")
        if len(cat):
            item["charts"]["categories"] = ctx.chart(charts_scaling.category_bars(cat), "GPU time by kernel category")
        if len(busy) and (busy["source"] == "sweep").any():
            item["charts"]["busy"] = ctx.chart(charts_scaling.busy_vs_seq(busy), "GPU busy share against sequence length")
        sets.append(item)
    text = ctx.template("scaling_page.md.j2").render(here=SCALING, sets=sets,
                                                     host_bound_ratio=tables.HOST_BOUND_RATIO,
                                                     host_bound_fill=tables.HOST_BOUND_FILL_PCT)
    yield render.Page(SCALING, text, nav=("Scaling",))


def _pair_item(a, b) -> dict:
    rows = compare.records(compare.compare_frame(a, b))

    def has(*cols):
        return any(r[c] is not None for r in rows for c in cols)

    return dict(a=a, b=b, rows=rows, gpu=has("gpu_ms_a", "gpu_ms_b"), gpu_b=has("gpu_ms_b"), cpu=has("cpu_ms_a", "cpu_ms_b"),
                kernels=has("kernels_a", "kernels_b"), ranks=has("rank_a", "rank_b"),
                basis_a=rows[0]["time_basis_a"] if rows else "", basis_b=rows[0]["time_basis_b"] if rows else "",
                diffs=[r for r in rows if r["kernel_match"].startswith(("full", "partial"))])


def compare_pages(ctx: render.Context) -> Iterator:
    from gen.report import render

    frames = [ctx.summary(ls, "inference").assign(set=ls.name, kind=ls.rs.kind) for ls in ctx.sets]
    frames = [f for f in frames if not f.empty]
    allsets = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    chart = None
    timed = set(allsets["set"][allsets["gpu_ms"].notna()]) if len(allsets) else set()
    if timed:
        chart = ctx.chart(charts_compare.gpu_time_by_set(allsets), "GPU time per variant in every set")
    pairs = [_pair_item(a, b) for a, b in compare.pairs(ctx.sets)]
    text = ctx.template("compare_page.md.j2").render(
        here=COMPARE, pairs=pairs, chart=chart, describe=compare.describe,
        untimed=[ls for ls in ctx.sets if ls.name not in timed],
        references=[ls for ls in ctx.sets if ls.rs.kind == "reference"])
    yield render.Page(COMPARE, text, nav=("Compare",))


BUILDERS = [findings_pages, scaling_pages, compare_pages]


def pages(sets) -> list[tuple[str, str]]:
    """(path, markdown) of these pages alone, for a caller without the render stage."""
    from gen.report import render

    ctx = render.Context(sets=sets)
    return [(p.path, p.text) for b in BUILDERS for p in b(ctx)]
