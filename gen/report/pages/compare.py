"""The Compare pages: the matrix of sets (the fastest variant of each, every variant's GPU-only
time), and per set its comparison with the first measured GPU set.

Takes: a `site.Context`. Gives: `build(ctx)` (the Compare page: the heat map of the
fastest variants, one row per set of every variant's time, one row per set linking its
comparison), `set_pages(ctx, ls)` (the page comparing ctx.first with the set), `facts(ctx, ls)`
(whether that comparison is like for like); the view model `pair_view(a, b)` (rows of
gen.analysis.compare and which columns the pair can fill).
Template: compare_page.md.j2. Reference sets are said to hold published figures.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from gen.analysis import comparability, compare
from gen.analysis import scenarios as sa
from gen.analysis.values import missing
from gen.model.schema import Mode, SetKind
from gen.report import format as fmt
from gen.report.pages import home
from gen.report.site import Context, Page, records
from gen.report.words import compare as compare_words
from gen.report.words import published as published_words
from gen.report.words import scenarios as scenario_words
from gen.report.words import tables as table_words

PAGE = f"{fmt.GENERATED}/compare.md"


def _elsewhere(ctx: Context | None, a, b, here: str = PAGE) -> list[dict]:
    """A published set with no figure at A's default shape: its figures at its own points that match
    a point A measured, set against A's variant running the same kernel (else A's fastest)."""
    if ctx is None or b.kind != SetKind.REFERENCE or any(r.scenario == "article" for r in b.outline.runs):
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
                fmt.set_scenario_page(a.name, name), here), point=scenario_words.point_label(r, decode, True),
                anchor_name=published_words.anchor_name(r["anchor_variant"]),
                ours_label=published_words.ours_name(r, fmt.label_of) if r["ours_variant"] else None,
                ours_clock=f"{r['ours_clock_mhz']:.0f} MHz" if not missing(r.get("ours_clock_mhz")) else "–"))
    return out


def _issues(ctx: Context | None, a, b, here: str = PAGE) -> tuple[list, list[dict]]:
    """What keeps A and B from being like for like, and B's figures at its own points (a published
    set with none at A's shape): then the shape and scenario issues are the reason for that table."""
    found = comparability.issues(a, b)
    elsewhere = _elsewhere(ctx, a, b, here)
    if elsewhere:  # no figure of B at A's shape: the per-variant table would be all dashes
        found = [i for i in found if i.kind not in ("scenario", "shape")]
        # a noisy timing is a caveat only for a variant the published figures are set against
        shown = {r["ours_variant"] for r in elsewhere}
        found = [_only(i, shown) for i in found]
        found = [i for i in found if i is not None]
    return found, elsewhere


def _only(i, shown: set) -> object | None:
    """A noisy-timing issue cut to the variants in `shown` (None when none is left); other issues as they are."""
    if i.kind != "noisy":
        return i
    a = tuple(n for n in i.a if n.variant in shown)
    b = tuple(n for n in i.b if n.variant in shown)
    return dataclasses.replace(i, a=a, b=b) if a or b else None


def pair_view(a, b, ctx: Context | None = None, here: str = PAGE) -> dict:
    rows = compare.records(compare.compare_frame(a, b))

    def has(*cols):
        return any(r[c] is not None for r in rows for c in cols)

    found, elsewhere = _issues(ctx, a, b, here)
    clock_line, clock_column = compare_words.clocks(rows)
    return dict(a=a, b=b, rows=rows, elsewhere=elsewhere, reference_b=b.kind == SetKind.REFERENCE,
                clock_line=clock_line, clock_column=clock_column,
                clock_note=compare_words.published_clock_note(elsewhere) if elsewhere else None,
                cross_device=a.environment.device != b.environment.device,
                refused=[compare_words.issue(i) for i in found if i.refuse],
                flagged=[compare_words.issue(i) for i in found if not i.refuse],
                gpu=has("gpu_only_ms_a", "gpu_only_ms_b"), gpu_b=has("gpu_only_ms_b"),
                cpu=has("host_ms_a", "host_ms_b"), host_ref=has("host_ref_ms_a") and has("host_ref_ms_b"),
                host_note=compare_words.host_note(
                    [r["host_ref_ms_a"] for r in rows if r["host_ref_ms_a"] is not None and r["host_ms_a"] is not None],
                    [r["host_ref_ms_b"] for r in rows if r["host_ref_ms_b"] is not None and r["host_ms_b"] is not None],
                    sum(r["rank_a"] is not None for r in rows), sum(r["rank_b"] is not None for r in rows)),
                kernels=has("kernels_a", "kernels_b"), ranks=has("rank_a", "rank_b"),
                describe_a=compare.describe(a), describe_b=compare.describe(b),
                diffs=[r for r in rows if r["kernel_match"].startswith(("full", "partial"))],
                as_run_apart=compare_words.as_run_apart(compare.as_run_apart(a, b), fmt.label_of))


def useful(ctx: Context, a, b) -> bool:
    """A comparison page tells something: the pair is like for like (no refusal: same shape, scenario and dtype),
    or B is a published set with figures at A's points (`_elsewhere`). A page that could only say "not like for
    like" (a CPU set's small shape against a GPU set's) is not made, nor linked."""
    found, elsewhere = _issues(ctx, a, b)
    return bool(elsewhere) or not any(i.refuse for i in found)


def _compared(ctx: Context, ls) -> bool:
    a = compare.partner(ls, ctx.sets, ctx.first)
    return a is not None and a is not ls and ctx.fact(ls, "compare").get("useful", True)


def set_pages(ctx: Context, ls) -> Iterator[Page]:
    a = compare.partner(ls, ctx.sets, ctx.first)
    if a is None or a is ls or not useful(ctx, a, ls):
        return
    page = fmt.set_subpage(ls.name, "compare")
    text = ctx.template("compare_page.md.j2").render(here=page, pairs=[pair_view(a, ls, ctx, page)],
                                                     one_set=ls, references=[], fastest=None, every=None, pair_pages=[])
    yield Page(page, text)


def facts(ctx: Context, ls) -> dict:
    a = compare.partner(ls, ctx.sets, ctx.first)
    if a is None or a is ls:
        return dict(refused=0, flagged=0)
    found, elsewhere = _issues(ctx, a, ls)
    return dict(refused=sum(i.refuse for i in found), flagged=sum(not i.refuse for i in found),
                useful=bool(elsewhere) or not any(i.refuse for i in found))


def _has_figure(ctx: Context, ls) -> bool:
    """The set has a time for some variant at its default shape: a GPU-only time, or a CPU set's wall time."""
    df = ctx.summary(ls, Mode.INFERENCE)
    return not df.empty and bool(df["gpu_only_ms"].notna().any() or df["host_ms"].notna().any())


def every_view(ctx: Context) -> dict | None:
    """One row per set, one column per variant: its median GPU-only time in one forward (with the SM
    clock it ran at), a CPU set's wall time, and the speed-up over the naive variant of the same set
    (the home page's headline, for every set). A set with no time at its default shape (a published
    set whose figures sit at other shapes) would only fill a row with dashes: it is named below the
    table instead, with the scenarios its figures stand beside. Then each GPU set's conditions (NVML)."""
    rows, elsewhere = [], []
    for ls in ctx.lead:  # a row per GPU's newest set: each other set's times are on its own page
        if not _has_figure(ctx, ls):
            elsewhere.append(dict(ls=ls, scenarios=[dict(title=t, link=fmt.relpath(target, PAGE))
                                                    for t, target in ctx.fact(ls, "beside")]))
            continue
        by = {r["variant"]: r for r in ctx.summary_records(ls, Mode.INFERENCE)}
        rows.append(dict(ls=ls, cells=[by.get(v) for v in ctx.variant_names]))
    if not rows and not elsewhere:
        return None
    conditions = [dict(ls=ls, text=table_words.conditions_range(ctx.summary_records(ls, Mode.INFERENCE),
                                                                   ls.environment))
                  for ls in ctx.lead if ls.measured and ls.environment.device == "cuda"]
    return dict(variants=[dict(name=v, label=fmt.label_of(v), link=fmt.relpath(fmt.variant_page(v), PAGE))
                          for v in ctx.variant_names], rows=rows, elsewhere=elsewhere, conditions=conditions)


def build(ctx: Context) -> Iterator[Page]:
    pair_pages = [dict(ls=ls, a=compare.partner(ls, ctx.sets, ctx.first),
                       link=fmt.relpath(fmt.set_subpage(ls.name, "compare"), PAGE), **ctx.fact(ls, "compare"))
                  for ls in ctx.lead if _compared(ctx, ls)]
    text = ctx.template("compare_page.md.j2").render(
        here=PAGE, pairs=[], one_set=None, first=ctx.first, pair_pages=pair_pages, left_out=ctx.left_out,
        fastest=home.fastest_chart(ctx, PAGE), every=every_view(ctx),
        references=[ls for ls in ctx.sets if ls.kind == SetKind.REFERENCE])
    yield Page(PAGE, text, nav=("Compare",))
