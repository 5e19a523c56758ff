"""The Compare page: GPU time per variant in every set, then the first measured GPU set against each other set.

Takes: a `site.Context`. Gives: `build(ctx)`; the view model `pair_view(a, b)`
(rows of gen.analysis.compare and which columns the pair can fill).
Template: compare_page.md.j2. Reference sets are said to hold published figures.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd

from gen.analysis import comparability, compare
from gen.analysis import scenarios as sa
from gen.model.schema import Mode, SetKind
from gen.report import charts
from gen.report import format as fmt
from gen.report import wording_scenarios as scenario_words
from gen.report import wording_verdicts as words
from gen.report.pages import scenarios as scenario_pages
from gen.report.site import Context, Page, records

PAGE = f"{fmt.GENERATED}/compare.md"


def _elsewhere(ctx: Context | None, a, b) -> list[dict]:
    """A published set with no figure at A's default shape: its figures at its own points that match
    a point A measured, set against A's variant running the same kernel (else A's fastest)."""
    if ctx is None or b.rs.kind != SetKind.REFERENCE or any(r.scenario == "article" for r in b.rs.runs):
        return []
    out = []
    for name in sa.scenario_names(ctx.sets):
        anchors = sa.anchor_frame(ctx.sets, name, a)
        anchors = anchors[anchors["anchor_set"] == b.name] if len(anchors) else anchors
        if anchors.empty:
            continue
        pts = sa.point_frame(a, name)
        decode = bool(pts["q_len"].eq(1).all()) if len(pts) else False
        for r in records(sa.versus_frame(pts, anchors)):
            out.append(dict(r, scenario=sa.scenario_title(ctx.sets, name), link=fmt.relpath(
                scenario_pages.scenario_page(name), PAGE), point=scenario_words.point_label(r, decode, True),
                anchor_name=scenario_words.anchor_name(r["anchor_variant"]),
                ours_label=scenario_words.ours_name(r, fmt.label_of) if r["ours_variant"] else None))
    return out


def pair_view(a, b, ctx: Context | None = None) -> dict:
    rows = compare.records(compare.compare_frame(a, b))

    def has(*cols):
        return any(r[c] is not None for r in rows for c in cols)

    found = comparability.issues(a, b)
    elsewhere = _elsewhere(ctx, a, b)
    if elsewhere:  # no figure of B at A's shape: the per-variant table would be all dashes
        found = [i for i in found if i.kind not in ("scenario", "shape")]
    return dict(a=a, b=b, rows=rows, elsewhere=elsewhere, reference_b=b.rs.kind == SetKind.REFERENCE,
                refused=[words.issue(i) for i in found if i.refuse],
                flagged=[words.issue(i) for i in found if not i.refuse],
                gpu=has("gpu_only_ms_a", "gpu_only_ms_b"), gpu_b=has("gpu_only_ms_b"),
                cpu=has("host_ms_a", "host_ms_b"),
                kernels=has("kernels_a", "kernels_b"), ranks=has("rank_a", "rank_b"),
                describe_a=compare.describe(a), describe_b=compare.describe(b),
                diffs=[r for r in rows if r["kernel_match"].startswith(("full", "partial"))])


def build(ctx: Context) -> Iterator[Page]:
    frames = [ctx.summary(ls, Mode.INFERENCE).assign(set=ls.name, kind=ls.rs.kind) for ls in ctx.sets]
    frames = [f for f in frames if not f.empty]
    allsets = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    timed = set(allsets["set"][allsets["gpu_only_ms"].notna()]) if len(allsets) else set()
    chart = ctx.chart(charts.gpu_time_by_set(allsets), "GPU-only time per variant in every set") if timed else None
    text = ctx.template("compare_page.md.j2").render(
        here=PAGE, pairs=[pair_view(a, b, ctx) for a, b in compare.pairs(ctx.sets)], chart=chart,
        untimed=[ls for ls in ctx.sets if ls.name not in timed],
        references=[ls for ls in ctx.sets if ls.rs.kind == SetKind.REFERENCE])
    yield Page(PAGE, text, nav=("Compare",))
