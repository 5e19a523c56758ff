"""Render: loaded result sets -> the Markdown pages of docs/generated/ and the navigation.

Takes: a `site.Context` over `gen.analysis` sets. Gives: `render(ctx) -> list[Page]`
(every builder of `PAGE_BUILDERS`, in order) and `nav(pages)`; the build stage
(gen.report.build) writes them. No file writes here, no torch.

Adding a page
-------------
Write a module in gen/report/pages/ with a view model (rows ready to lay out,
from analysis and gen.report.wording) and `build(ctx) -> Iterator[Page]`
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
  so each table is computed once.
"""

from __future__ import annotations

import ctypes
import html
import multiprocessing as mp
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import PurePosixPath

from gen.report.format import GENERATED, md, ms, printable, set_page, size, variant_page  # noqa: F401 (build uses)
from gen.report.pages import compare, findings, home, methodology, scaling, scenarios, sets, variants, verdict
from gen.report.site import Context, Page, chart_div  # noqa: F401

# Hand-written pages of docs/ that the navigation holds, before and after the generated ones.
NAV_HEAD = [("Home", "index.md")]
NAV_TAIL = [("Many machines", "matrix.md"), ("Methodology", "methodology.md")]

PAGE_BUILDERS: list[Callable[[Context], Iterable[Page]]] = [
    home.build, verdict.build, sets.build, variants.build, methodology.skipped, methodology.build, variants.trace_files,
    findings.build, scaling.build, scenarios.build, compare.build,
]


_FORKED: Context | None = None  # the context a forked worker inherits


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with_parent(parent: int) -> None:
    """A worker's initializer: the worker ends when the build that forked it ends, even
    by SIGKILL (no cleanup runs then, and the workers would wait on their pipe for
    minutes). Linux: the kernel sends SIGKILL (prctl PR_SET_PDEATHSIG); elsewhere a
    thread watches for the parent to change."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        watched = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0
    except (OSError, AttributeError):
        watched = True
    if os.getppid() != parent:  # the parent died before the prctl took hold
        os._exit(1)
    if watched:
        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()


def _run_builder(i: int) -> list[Page]:
    assert _FORKED is not None
    return list(PAGE_BUILDERS[i](_FORKED))


def _parallel(ctx: Context) -> int:
    """Worker processes for the builders: one per core, forked (so they inherit the
    parsed sets), and only where forking is safe: no other thread in this process."""
    if len(ctx.sets) < 2 or "fork" not in mp.get_all_start_methods() or threading.active_count() > 1:
        return 1
    return max(1, min(len(PAGE_BUILDERS), os.cpu_count() or 1))


def render(ctx: Context, workers: int | None = None) -> list[Page]:
    """Every builder's pages, in PAGE_BUILDERS order. With several sets the builders
    run in parallel processes; the pages and their order are the same either way."""
    global _FORKED
    workers = _parallel(ctx) if workers is None else workers
    if workers > 1:
        _FORKED = ctx
        try:
            with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork"), initializer=_die_with_parent,
                                     initargs=(os.getpid(),)) as pool:
                # Last registered first: the pages over all sets (findings, scaling) come
                # last and cost most, and a long task started early balances the workers.
                futures = {i: pool.submit(_run_builder, i) for i in reversed(range(len(PAGE_BUILDERS)))}
                per_builder = [futures[i].result() for i in range(len(PAGE_BUILDERS))]
        finally:
            _FORKED = None
    else:
        per_builder = [list(b(ctx)) for b in PAGE_BUILDERS]
    pages: list[Page] = []
    for builder, built in zip(PAGE_BUILDERS, per_builder):
        for p in built:
            if not p.path.startswith(f"{GENERATED}/") or ".." in PurePosixPath(p.path).parts:
                raise ValueError(f"{builder.__name__}: page {p.path} must lie under {GENERATED}/")
            pages.append(p)
    paths = [p.path for p in pages]
    dupes = sorted({p for p in paths if paths.count(p) > 1})
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
