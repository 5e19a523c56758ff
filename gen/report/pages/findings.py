"""The Findings page: per set, the hypotheses against the data, then the rules' findings grouped by kind.

Takes: a `site.Context`. Gives: `build(ctx)`; the view model `set_view(ctx, ls)`
(hypothesis rows with their notes, the columns the set can fill, the findings
in words grouped by kind with kernel-row links). Template: findings_page.md.j2.
Every set that holds published figures says so and names the source.
"""

from __future__ import annotations

from collections.abc import Iterator

from gen.analysis import findings, lessons
from gen.analysis.values import missing
from gen.report import format as fmt
from gen.report import wording
from gen.report import wording_verdicts as words
from gen.report.pages import verdict
from gen.report.site import MAX_LINKS, Context, Page, Worded, capped, records

PAGE = f"{fmt.GENERATED}/findings.md"


def kernel_links(ctx: Context, set_name: str, f: findings.Finding) -> list[tuple[str, str]]:
    """(label, href) per run of consecutive kernel rows of one finding: "#4", "#6–#9"."""
    if not f.kernels or not f.variant:
        return []
    page = fmt.relpath(fmt.variant_page(f.variant), PAGE)
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
        r["note"] = wording.hypothesis_note(r)
        r["rank_range"] = not missing(r["rank_lo"]) and r["rank_lo"] != r["rank_hi"]
    return rows


def _columns(rows: list[dict]) -> dict:
    """Which checks this set can show: a column only where some variant has a measured value."""
    def some(col):
        return any(not missing(r[col]) for r in rows)

    return dict(kernels=some("measured_kernels"), copy_fill=some("measured_copy_or_fill"),
                tensor_cores=some("measured_tensor_cores"), rank=some("measured_rank"))


def _item(ctx: Context, ls, w: Worded) -> dict:
    f = w.finding
    return dict(kind=f.kind, severity=f.severity, variant=f.variant, mode=f.mode, title=w.words.title,
                short=w.words.short, text=w.words.text, links=kernel_links(ctx, ls.name, f), n_kernels=len(f.kernels),
                name_variant=bool(f.variant) and f.kind not in wording.KINDS_WITHOUT_VARIANT)


def _lessons(ctx: Context, ls) -> dict | None:
    """The article's lessons recomputed from a set: does each hold, its text with the
    variant page it belongs to, and every contradicted hypothesis item explained."""
    found = lessons.lessons(ls)
    if found is None:
        return None
    claims = [dict(variant=c.variant, text=words.CLAIMS.get(c.key, c.key), holds=c.holds, here=words.HOLDS[c.holds],
                   link=fmt.relpath(fmt.variant_page(c.variant), PAGE)) for c in found.claims]
    texts = []
    for fact in (found.hidden_copy, found.math_backend, found.efficient_kernel, found.flash_occupancy,
                 found.cudnn_costs):
        if fact is not None:
            w = words.lesson(fact)
            texts.append(dict(title=w.title, text=w.text, variant=fact.variant,
                              link=fmt.relpath(fmt.variant_page(fact.variant), PAGE)))
    explained = [dict(variant=e.variant, text=words.explanation(e)) for e in lessons.explain(ls, ctx.hypotheses(ls))]
    return dict(claims=claims, found=texts, explained=explained)


def set_view(ctx: Context, ls) -> dict:
    rows = _hypothesis_rows(ctx, ls)
    items = [_item(ctx, ls, w) for w in ctx.findings(ls)]
    groups = [dict(kind=k, title=title, note=wording.KIND_NOTES.get(k, ""),
                   items=[f for f in items if f["kind"] == k]) for k, title in wording.KIND_TITLES.items()]
    return dict(ls=ls, hypotheses=rows, columns=_columns(rows), gpu=ls.measured and ls.rs.environment.device == "cuda",
                contradicted=sum(r["contradicted"] for r in rows), groups=[g for g in groups if g["items"]],
                findings=items, not_run=[r for r in rows if r["status"] != "ok"],
                verdict=verdict.block(ls), lessons=_lessons(ctx, ls))


def build(ctx: Context) -> Iterator[Page]:
    text = ctx.template("findings_page.md.j2").render(here=PAGE, sets=[set_view(ctx, ls) for ls in ctx.sets],
                                                      tensor_core_rule=wording.TENSOR_CORE_RULE)
    yield Page(PAGE, text, nav=("Findings",))
