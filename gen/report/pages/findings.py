"""The Findings: per set, the hypotheses against the data, then the rules' findings grouped by kind.

Takes: a `site.Context`. Gives: `set_pages(ctx, ls)` (the set's findings page),
`facts(ctx, ls)` (its row of the summary) and `build(ctx)` (the Findings page: one row per
set, linking its page); the view model `set_view(ctx, ls, page)` (hypothesis rows with
their notes, the columns the set can fill, the findings in words grouped by kind with
links to the kernel rows of the set's variant pages). Template: findings_page.md.j2.
Every set that holds published figures says so and names the source.
"""

from __future__ import annotations

from collections.abc import Iterator

from gen.analysis import findings, lessons
from gen.analysis.values import missing
from gen.report import format as fmt
from gen.report.pages import verdict
from gen.report.site import MAX_LINKS, Context, Page, Worded, capped, records
from gen.report.words import findings as finding_words
from gen.report.words import lessons as lesson_words
from gen.report.words import methodology as method_words

PAGE = f"{fmt.GENERATED}/findings.md"


def kernel_links(ctx: Context, set_name: str, f: findings.Finding, here: str = PAGE) -> list[tuple[str, str]]:
    """(label, href) per run of consecutive kernel rows of one finding: "#4", "#6–#9"."""
    if not f.kernels or not f.variant:
        return []
    page = fmt.relpath(fmt.set_variant_page(set_name, f.variant), here)
    every = findings.kernel_groups(f.kernels)
    groups, more = capped(every, MAX_LINKS)
    links = [(f"#{a}" if a == b else f"#{a}–#{b}", f"{page}#{ctx.kernel_anchor(set_name, f.variant, f.mode, a)}")
             for a, b in groups]
    if more:  # the rest: one link, to the first of them
        a = every[MAX_LINKS][0]
        links.append((f"{more:,} more", f"{page}#{ctx.kernel_anchor(set_name, f.variant, f.mode, a)}"))
    return links


def _hypothesis_rows(ctx: Context, ls) -> list[dict]:
    rows = records(ctx.hypotheses(ls))
    for r in rows:
        r["note"] = finding_words.hypothesis_note(r)
        r["rank_range"] = not missing(r["rank_lo"]) and r["rank_lo"] != r["rank_hi"]
    return rows


def _columns(rows: list[dict]) -> dict:
    """Which checks this set can show: a column only where some variant has a measured value."""
    def some(col):
        return any(not missing(r[col]) for r in rows)

    return dict(kernels=some("measured_kernels"), copy_fill=some("measured_copy_or_fill"),
                tensor_cores=some("measured_tensor_cores"), rank=some("measured_rank"))


def _item(ctx: Context, ls, w: Worded, here: str) -> dict:
    f = w.finding
    return dict(kind=f.kind, severity=f.severity, variant=f.variant, mode=f.mode, title=w.words.title,
                short=w.words.short, text=w.words.text, links=kernel_links(ctx, ls.name, f, here),
                n_kernels=len(f.kernels),
                name_variant=bool(f.variant) and f.kind not in finding_words.KINDS_WITHOUT_VARIANT)


def _lessons(ctx: Context, ls, here: str) -> dict | None:
    """The article's lessons recomputed from a set: does each hold, its text with the
    variant page it belongs to, and every contradicted hypothesis item explained."""
    found = lessons.lessons(ls)
    if found is None:
        return None
    claims = [dict(variant=c.variant, text=lesson_words.CLAIMS.get(c.key, c.key), holds=c.holds,
                   here=lesson_words.HOLDS[c.holds],
                   link=fmt.relpath(fmt.set_variant_page(ls.name, c.variant), here)) for c in found.claims]
    texts = []
    for fact in (found.hidden_copy, found.math_backend, found.efficient_kernel, found.flash_occupancy,
                 found.cudnn_costs):
        if fact is not None:
            w = lesson_words.lesson(fact)
            texts.append(dict(title=w.title, text=w.text, variant=fact.variant,
                              link=fmt.relpath(fmt.set_variant_page(ls.name, fact.variant), here)))
    explained = [dict(variant=e.variant, text=lesson_words.explanation(e)) for e in ctx.explanations(ls)]
    return dict(claims=claims, found=texts, explained=explained)


def set_view(ctx: Context, ls, here: str) -> dict:
    rows = _hypothesis_rows(ctx, ls)
    ran = {r.variant for r in ls.outline.runs}
    for r in rows:  # the set's page of the variant, where it has one
        r["page"] = fmt.relpath(fmt.set_variant_page(ls.name, r["variant"]), here) if r["variant"] in ran else None
    items = [_item(ctx, ls, w, here) for w in ctx.findings(ls)]
    groups = [dict(kind=k, title=title, note=finding_words.KIND_NOTES.get(k, ""),
                   items=[f for f in items if f["kind"] == k]) for k, title in finding_words.KIND_TITLES.items()]
    return dict(ls=ls, hypotheses=rows, columns=_columns(rows), gpu=ls.measured and ls.environment.device == "cuda",
                contradicted=sum(r["contradicted"] for r in rows), groups=[g for g in groups if g["items"]],
                findings=items, not_run=[r for r in rows if r["status"] != "ok"],
                verdict=verdict.block(ls), lessons=_lessons(ctx, ls, here))


def set_pages(ctx: Context, ls) -> Iterator[Page]:
    page = fmt.set_subpage(ls.name, "findings")
    text = ctx.template("findings_page.md.j2").render(here=page, sets=[set_view(ctx, ls, page)], one_set=ls,
                                                      summary=None, tensor_core_rule=method_words.TENSOR_CORE_RULE)
    yield Page(page, text)


def facts(ctx: Context, ls) -> dict:
    """The set's row of the Findings page: what was checked, what was contradicted (each
    item, as the set's page marks it), how many findings, and which lessons hold."""
    rows = _hypothesis_rows(ctx, ls)
    found = [w.finding for w in ctx.findings(ls)]
    les = lessons.lessons(ls)
    v = verdict.block(ls)
    return dict(gpu=ls.measured and ls.environment.device == "cuda", checked=sum(r["status"] == "ok" for r in rows),
                contradicted=[dict(variant=r["variant"], label=r["label"], items=list(r["contradicted_items"]))
                              for r in rows if r["contradicted_items"]],
                findings=len(found), unexpected=sum(f.severity == "unexpected" for f in found),
                lessons_hold=sum(c.holds is True for c in les.claims) if les else None,
                lessons=len(les.claims) if les else None,
                fastest=dict(variant=v["fastest"], label=v["fastest_label"]) if v else None)


def build(ctx: Context) -> Iterator[Page]:
    summary = [dict(ls=ls, link=fmt.relpath(fmt.set_subpage(ls.name, "findings"), PAGE), **ctx.fact(ls, "findings"))
               for ls in ctx.lead]
    text = ctx.template("findings_page.md.j2").render(here=PAGE, sets=[], one_set=None, summary=summary,
                                                      left_out=ctx.left_out,
                                                      tensor_core_rule=method_words.TENSOR_CORE_RULE)
    yield Page(PAGE, text, nav=("Findings",))
