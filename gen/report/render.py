"""Render: loaded result sets -> the Markdown pages of docs/generated/ and the navigation.

Takes: a `site.Context` over `gen.analysis` sets. Gives: `render(ctx) -> list[Page]`
(each set's unit, gen.report.units, then every builder of `PAGE_BUILDERS` over all sets,
in order), `assemble(ctx, units)` (the same from units already made, as the build makes
them with its cache) and `nav(pages)`; the build stage (gen.report.build) writes them.
No file writes here, no torch.

Two kinds of builder:
- per set (gen.report.units: `set_pages(ctx, ls)` and `facts(ctx, ls)` of a page module):
  the pages that show one set (its page, its variants, findings, scaling, scenarios, its
  comparison), made once per set, in parallel, and cached by the set's content;
- over all sets (`PAGE_BUILDERS`, `build(ctx)`): home, indexes, the variant, findings,
  scaling, scenario and compare pages. They read each set's facts (`ctx.fact(ls, name)`,
  `ctx.summary`) and its ResultSet, never its traces, and summarise the matrix in a size
  that does not grow with it: a row per lead set at most (`Context.lead`: each GPU's newest
  set, the lead set, the published sets), the others counted and linked to the list of sets.

Adding a page
-------------
Write a module in gen/report/pages/ with a view model (rows ready to lay out,
from analysis and gen.report.words) and `build(ctx) -> Iterator[Page]`
that renders its template, and append `build` to `PAGE_BUILDERS`:

    def build(ctx: Context) -> Iterator[Page]:
        text = ctx.template("scaling_page.md.j2").render(here=PAGE, sets=[set_view(ctx, ls) for ls in ctx.sets])
        yield Page(PAGE, text, nav=("Scaling",))

- `path` is relative to docs/ and must lie under generated/.
- `nav` is where the page sits in the site navigation: titles of the sections
  then the page's own title; pages whose path ends in `index.md` are their
  section's page. None keeps a page out of the navigation (partials that a
  hand-written page includes with `--8<--` start with a dot, e.g. `.home.md`).
  Navigation order is the order of PAGE_BUILDERS, then the order a builder yields.
- `copy_from` copies a file (a trace) instead of writing `text`.
- Templates hold loops, conditions and formatting filters only: use the `md`
  filter for any text inside Markdown (it escapes `< > & | * _ [ ] \\`` and
  friends), plain `{{ }}` inside raw HTML (autoescaped), and `ctx.chart(chart)`
  for a chart's `<div>`.
- Use `ctx.summary(ls, mode)`, `ctx.findings(ls)` and the other cached helpers
  so each table is computed once; a page over all sets reads what it needs of a set
  from that set's facts.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

from gen.report import units as set_units
from gen.report.format import GENERATED, md, ms, printable, set_page, size, variant_page  # noqa: F401 (build uses)
from gen.report.pages import compare, dynamic, findings, home, methodology, scaling, scenarios, sets, variants, verdict
from gen.report.site import Context, Page  # noqa: F401

# Hand-written pages of docs/ that the navigation holds, before and after the generated ones. matrix.md (how to
# gather sets from many machines) tells a reader of the report nothing: the home page's "How to regenerate" links it,
# and mkdocs.yml lists it under not_in_nav.
NAV_HEAD = [("Home", "index.md")]
NAV_TAIL = [("Methodology", "methodology.md"), ("Data format", "data-format.md")]

PAGE_BUILDERS: list[Callable[[Context], Iterable[Page]]] = [
    home.build, verdict.build, sets.build, variants.build, methodology.skipped, methodology.build, variants.trace_files,
    findings.build, scaling.build, scenarios.build, dynamic.build, compare.build,
]


def render(ctx: Context, workers: int | None = None, units: dict[str, set_units.Unit] | None = None) -> list[Page]:
    """Every page: each set's unit (made now, in parallel processes with several sets, unless
    `units` brings them), then the builders over all sets, in PAGE_BUILDERS order. The pages
    and their order are the same however many workers, and whether a unit was cached."""
    return assemble(ctx, set_units.make_all(ctx, workers) if units is None else units)


def assemble(ctx: Context, units: dict[str, set_units.Unit]) -> list[Page]:
    """The pages over all sets (from the units' facts) followed by each set's own pages."""
    ctx.facts = {name: u.facts for name, u in units.items()}
    if ctx.first is None:
        ctx.first = set_units.first_gpu_set(ctx.sets)
    built = [(b.__name__, list(b(ctx))) for b in PAGE_BUILDERS]
    # the navigation lists the lead sets' pages (a row per GPU, however many sets): the others are one link
    # away in the list of result sets
    lead = {ls.name for ls in ctx.lead}
    built += [(f"set {ls.name}", units[ls.name].pages if ls.name in lead
               else [dataclasses.replace(p, nav=None) for p in units[ls.name].pages]) for ls in ctx.sets]
    pages: list[Page] = []
    for name, made in built:
        for p in made:
            if not p.path.startswith(f"{GENERATED}/") or ".." in PurePosixPath(p.path).parts:
                raise ValueError(f"{name}: page {p.path} must lie under {GENERATED}/")
            pages.append(p)
    seen: set[str] = set()
    dupes = sorted({p.path for p in pages if p.path in seen or seen.add(p.path)})
    if dupes:
        raise ValueError(f"two pages at {', '.join(dupes)}")
    return pages


def _nav_title(text: str) -> str:
    # HTML, not Markdown: Material prints a nav title as raw HTML. Its <title> un-escapes
    # it with striptags, and overrides/main.html escapes it again there.
    return html.escape(printable(text))


def nav(pages: list[Page]) -> list:
    """mkdocs `nav`: the hand-written head, the generated pages by section, the tail.

    Titles are HTML-escaped here: mkdocs-material prints nav titles as raw HTML
    (sidebar, tabs, <title>, search index), and set, GPU and variant names are data."""
    tree: list = [{t: p} for t, p in NAV_HEAD]
    sections: dict[str, list] = {}
    for p in pages:
        if not p.nav:
            continue
        if len(p.nav) == 1:
            tree.append({_nav_title(p.nav[0]): p.path})
            continue
        *parents, title = (_nav_title(t) for t in p.nav)
        holder = tree
        for name in parents:
            key = "/".join(parents[: parents.index(name) + 1])
            if key not in sections:
                sections[key] = []
                holder.append({name: sections[key]})
            holder = sections[key]
        holder.append(p.path if p.path.endswith("/index.md") else {title: p.path})
    tree.extend({t: p} for t, p in NAV_TAIL)
    return tree
