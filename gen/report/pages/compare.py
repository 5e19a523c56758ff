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

from collections.abc import Iterator

from gen.analysis import comparability, compare
from gen.model.schema import Mode, SetKind
from gen.report import format as fmt
from gen.report import wording_verdicts as words
from gen.report.pages import home
from gen.report.site import Context, Page

PAGE = f"{fmt.GENERATED}/compare.md"


def pair_view(a, b) -> dict:
    rows = compare.records(compare.compare_frame(a, b))

    def has(*cols):
        return any(r[c] is not None for r in rows for c in cols)

    found = comparability.issues(a, b)
    return dict(a=a, b=b, rows=rows, refused=[words.issue(i) for i in found if i.refuse],
                flagged=[words.issue(i) for i in found if not i.refuse],
                gpu=has("gpu_only_ms_a", "gpu_only_ms_b"), gpu_b=has("gpu_only_ms_b"),
                cpu=has("host_ms_a", "host_ms_b"),
                kernels=has("kernels_a", "kernels_b"), ranks=has("rank_a", "rank_b"),
                describe_a=compare.describe(a), describe_b=compare.describe(b),
                diffs=[r for r in rows if r["kernel_match"].startswith(("full", "partial"))])


def set_pages(ctx: Context, ls) -> Iterator[Page]:
    if ctx.first is None or ctx.first is ls:
        return
    page = fmt.set_subpage(ls.name, "compare")
    text = ctx.template("compare_page.md.j2").render(here=page, pairs=[pair_view(ctx.first, ls)], one_set=ls,
                                                     references=[], fastest=None, every=None, pair_pages=[])
    yield Page(page, text)


def facts(ctx: Context, ls) -> dict:
    found = comparability.issues(ctx.first, ls)
    return dict(refused=sum(i.refuse for i in found), flagged=sum(not i.refuse for i in found))


def every_view(ctx: Context) -> dict | None:
    """One row per set, one column per variant: its median GPU-only time in one forward and its
    speed-up over the naive variant of the same set (the home page's headline, for every set)."""
    rows = []
    for ls in ctx.sets:
        df = ctx.summary(ls, Mode.INFERENCE)
        by = {r["variant"]: r for r in df.to_dict("records")} if not df.empty else {}
        rows.append(dict(ls=ls, cells=[by.get(v) for v in ctx.variant_names]))
    if not rows:
        return None
    return dict(variants=[dict(name=v, label=fmt.label_of(v), link=fmt.relpath(fmt.variant_page(v), PAGE))
                          for v in ctx.variant_names], rows=rows)


def build(ctx: Context) -> Iterator[Page]:
    pair_pages = [dict(ls=ls, link=fmt.relpath(fmt.set_subpage(ls.name, "compare"), PAGE), **ctx.fact(ls, "compare"))
                  for ls in ctx.sets if ctx.first is not None and ls is not ctx.first]
    text = ctx.template("compare_page.md.j2").render(
        here=PAGE, pairs=[], one_set=None, first=ctx.first, pair_pages=pair_pages,
        fastest=home.fastest_chart(ctx, PAGE), every=every_view(ctx),
        references=[ls for ls in ctx.sets if ls.rs.kind == SetKind.REFERENCE])
    yield Page(PAGE, text, nav=("Compare",))
