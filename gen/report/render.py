"""Render: loaded result sets -> Markdown pages (Jinja templates hold the layout).

Takes: `gen.analysis` sets and tables. Gives: `render(ctx) -> list[Page]`, the
pages of docs/generated/ and the navigation (`nav(pages)`), all as text; the
build stage (gen.build) writes them. No file writes here, no torch.

Adding a page
-------------
Write a function `ctx -> Iterable[Page]` and append it to `PAGE_BUILDERS`:

    def scaling_pages(ctx: Context) -> Iterator[Page]:
        text = ctx.template("scaling.md.j2").render(sets=ctx.sets, ...)
        yield Page("generated/scaling.md", text, nav=("Scaling",))

- `path` is relative to docs/ and must lie under generated/.
- `nav` is where the page sits in the site navigation: titles of the sections
  then the page's own title; pages whose path ends in `index.md` are their
  section's page. None keeps a page out of the navigation (partials that a
  hand-written page includes with `--8<--` start with a dot, e.g. `.home.md`).
  Navigation order is the order of PAGE_BUILDERS, then the order a builder yields.
- `copy_from` copies a file (a trace) instead of writing `text`.
- Tables and charts: use the `md` filter for any text inside Markdown
  (it escapes `< > & | * _ [ ] \\`` and friends), plain `{{ }}` inside raw HTML
  (autoescaped), and `ctx.chart(alt_chart)` for a chart's `<div>`.
- Use `ctx.summary(ls, mode)` and other cached helpers so each table is computed once.
"""

from __future__ import annotations

import html
import json
import math
import multiprocessing as mp
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath

import altair as alt
import jinja2
import pandas as pd
from markupsafe import Markup

from gen.analysis import findings, tables
from gen.model import variants
from gen.report import charts

TEMPLATES = Path(__file__).with_name("templates")
GENERATED = "generated"
# Hand-written pages of docs/ that the navigation holds, before and after the generated ones.
NAV_HEAD = [("Home", "index.md")]
NAV_TAIL = [("Methodology", "methodology.md")]
MODES = ("inference", "train")
# A training step whose host time reaches this share of its GPU time is bound by the host.


@dataclass(frozen=True)
class Page:
    path: str  # relative to docs/, under generated/
    text: str | None = None
    nav: tuple[str, ...] | None = None
    copy_from: Path | None = None


# --------------------------------------------------------------------------- escaping and formatting

_MD_ESCAPES = {
    "|": "&#124;", "*": "&#42;", "_": "&#95;", "`": "&#96;", "[": "&#91;", "]": "&#93;",
    "\\": "&#92;", "#": "&#35;", "~": "&#126;", "$": "&#36;", "^": "&#94;", "=": "&#61;",
    "!": "&#33;", "{": "&#123;", "}": "&#125;", ":": "&#58;", "\n": " ",
}
_MD_TABLE = str.maketrans(_MD_ESCAPES)


def md(value) -> Markup:
    """Text that shows literally inside Markdown: paragraphs, headings, table cells."""
    if _missing(value):
        return Markup("–")
    # Quotes are escaped after the table: their entities carry a `#` that must stay as it is.
    text = html.escape(str(value), quote=False).translate(_MD_TABLE)
    return Markup(text.replace('"', "&quot;").replace("'", "&#39;"))


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x)) or x is pd.NA or x is pd.NaT


def num(x, fmt: str = ".3g", unit: str = "") -> str:
    if _missing(x):
        return "–"
    return f"{x:{fmt}}{unit}"


def ms(x) -> str:
    """Milliseconds with four significant figures at most."""
    if _missing(x):
        return "–"
    return f"{x:.4g}" if x >= 0.001 else f"{x:.2e}"


def us(x) -> str:
    if _missing(x):
        return "–"
    return f"{x:,.1f}" if x >= 10 else f"{x:.2f}"


def size(x) -> str:
    """Bytes in B / KiB / MiB / GiB."""
    if _missing(x):
        return "–"
    x = float(x)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(x) < 1024 or unit == "GiB":
            return f"{x:.0f} {unit}" if unit == "B" else f"{x:.1f} {unit}"
        x /= 1024
    return f"{x:.1f} GiB"


def integer(x) -> str:
    return "–" if _missing(x) else f"{int(x):,}"


def slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in text)


# --------------------------------------------------------------------------- context


@dataclass
class Context:
    sets: list[tables.LoadedSet]
    skipped: list[tables.Skipped] = field(default_factory=list)
    _summaries: dict = field(default_factory=dict, repr=False)

    @cached_property
    def env(self) -> jinja2.Environment:
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(TEMPLATES)),
            autoescape=True, undefined=jinja2.StrictUndefined,
            trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        )
        env.tests["missing"] = _missing
        env.filters.update(md=md, day=day, num=num, ms=ms, us=us, size=size, integer=integer)
        env.globals.update(ctx=self, host_bound_ratio=tables.HOST_BOUND_RATIO, host_bound_fill=tables.HOST_BOUND_FILL_PCT, set_title=set_title, set_page=set_page, variant_page=variant_page,
                           trace_page=trace_page, relpath=relpath, label_of=label_of)
        return env

    def template(self, name: str) -> jinja2.Template:
        return self.env.get_template(name)

    def summary(self, ls: tables.LoadedSet, mode: str) -> pd.DataFrame:
        return tables.summary_table(ls, mode)  # cached by analysis

    def runs(self, ls: tables.LoadedSet, mode: str) -> list[dict]:
        df = self.summary(ls, mode)
        return [] if df.empty else df.to_dict("records")

    def hypotheses(self, ls: tables.LoadedSet, mode: str = "inference") -> pd.DataFrame:
        key = ("hyp", ls.name, mode)
        if key not in self._summaries:
            self._summaries[key] = findings.check_hypotheses(ls, mode)
        return self._summaries[key]

    def findings(self, ls: tables.LoadedSet) -> list:
        key = ("findings", ls.name)
        if key not in self._summaries:
            self._summaries[key] = findings.findings(ls)
        return self._summaries[key]

    def train(self, ls: tables.LoadedSet) -> pd.DataFrame:
        key = ("train", ls.name)
        if key not in self._summaries:
            self._summaries[key] = tables.train_table(ls)
        return self._summaries[key]

    @cached_property
    def _kernel_owner(self) -> dict:
        """(variant, mode) -> the first set (in report order) with a kernel table for it:
        its rows carry the plain `findings.anchor` ids, other sets' rows a set suffix."""
        owner: dict = {}
        for ls in self.sets:
            for run in ls.rs.runs:
                if run.status == "ok" and run.trace and (run.variant, run.mode) not in owner \
                        and ls.rs.environment.device == "cuda":
                    owner[(run.variant, run.mode)] = ls.name
        return owner

    def kernel_anchor(self, set_name: str, variant: str, mode: str, index: int) -> str:
        """The HTML id of a kernel row on the variant page: `findings.anchor(variant,
        mode, index)` in the first set that lists the variant's kernels, the same with
        `--<set>` appended in the others (ids must be unique on a page)."""
        base = findings.anchor(variant, mode, int(index))
        if self._kernel_owner.get((variant, mode)) == set_name:
            return base
        return f"{base}--{slug(set_name)}"

    def chart(self, chart: alt.TopLevelMixin, label: str) -> Markup:
        return chart_div(chart, label)

    @cached_property
    def variant_names(self) -> list[str]:
        """Every variant of any set: the declared order first, then unknown ones by name."""
        seen = {r.variant for ls in self.sets for r in ls.rs.runs}
        known = [v for v in variants.VARIANTS if v in seen]
        return known + sorted(seen - set(known))


def chart_div(chart: alt.TopLevelMixin | dict, label: str) -> Markup:
    """A chart's Vega-Lite spec in an HTML-escaped data-spec attribute, drawn by
    docs/assets/report.js. Keys sorted, so that a rebuild gives the same bytes.
    Takes an Altair chart or a spec already made (charts.timeline_spec)."""
    spec = chart if isinstance(chart, dict) else chart.to_dict(validate=False)
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    # Single-quoted, so JSON's many double quotes need no escaping: pages stay small
    # and quick for mkdocs to parse. Search skips the chart's data.
    value = html.escape(text, quote=False).replace("'", "&#39;")
    return Markup('<div class="vega-chart" data-search-exclude role="img" aria-label="{}" data-spec=\'').format(
        label) + Markup(value) + Markup("'></div>")


def set_title(ls: tables.LoadedSet) -> str:
    """A set's name for people: GPU, PyTorch, and the label if any; the folder name otherwise."""
    env = ls.rs.environment
    gpu = env.gpu_name or (f"CPU ({env.cpu})" if env.cpu else "CPU")
    if ls.rs.kind == "reference":
        return f"{gpu} · published ({ls.name.split('__', 1)[-1]})"
    title = f"{gpu} · PyTorch {env.torch.split('+')[0]}" if env.torch else gpu
    suffix = ls.name.split("__", 2)[2] if ls.name.count("__") >= 2 else ""
    return f"{title} · {suffix}" if suffix else title


def day(value) -> str:
    """The date part of an ISO timestamp."""
    return str(value)[:10] if value else "–"


def label_of(variant: str) -> str:
    v = variants.VARIANTS.get(variant)
    return v.label if v else variant


def set_page(name: str) -> str:
    return f"{GENERATED}/sets/{slug(name)}.md"


def variant_page(name: str) -> str:
    return f"{GENERATED}/variants/{slug(name)}.md"


def trace_page(set_name: str, trace_rel: str) -> str:
    return f"{GENERATED}/traces/{slug(set_name)}/{PurePosixPath(trace_rel).name}"


def relpath(target: str, page: str) -> str:
    """A Markdown link from one docs/-relative page to another (mkdocs checks it)."""
    return os.path.relpath(target, os.path.dirname(page) or ".").replace(os.sep, "/")


# --------------------------------------------------------------------------- page builders


def home_partial(ctx: Context) -> Iterator[Page]:
    """Included by docs/index.md: the sets held and the headline table."""
    here = "index.md"  # links resolve from the page that includes the partial
    headline = []
    for v in ctx.variant_names:
        cells = []
        for ls in ctx.sets:
            df = ctx.summary(ls, "inference")
            row = df[df["variant"] == v].to_dict("records") if not df.empty else []
            cells.append(row[0] if row else None)
        headline.append(dict(variant=v, label=label_of(v), cells=cells))
    chart, chart_set = None, None
    for ls in ctx.sets:
        df = ctx.summary(ls, "inference")
        if ls.measured and not df.empty and df["gpu_ms"].notna().any():
            chart, chart_set = chart_div(charts.gpu_time(df), "GPU time per variant"), ls
            break
    text = ctx.template("home.md.j2").render(here=here, headline=headline, chart=chart, chart_set=chart_set)
    yield Page(f"{GENERATED}/.home.md", text)


def set_pages(ctx: Context) -> Iterator[Page]:
    index = f"{GENERATED}/sets/index.md"
    yield Page(index, ctx.template("sets_index.md.j2").render(here=index), nav=("Result sets", "Result sets"))
    for ls in ctx.sets:
        page = set_page(ls.name)
        modes = []
        for mode in MODES:
            df = ctx.summary(ls, mode)
            if df.empty:
                continue
            chart = chart_div(charts.gpu_time(df, "forward" if mode == "inference" else "training step"),
                              f"GPU time per variant, {mode}") \
                if df["gpu_ms"].notna().any() else None
            rows = df.to_dict("records")
            if mode == "train":
                for r in rows:
                    r["host_bound"] = tables.host_bound(r["fill_pct"], r["cpu_ms"], r["gpu_ms"])
            modes.append(dict(mode=mode, rows=rows, chart=chart,
                              host_bound=[r for r in rows if r.get("host_bound")]))
        text = ctx.template("set.md.j2").render(here=page, ls=ls, modes=modes)
        yield Page(page, text, nav=("Result sets", set_title(ls)))


def variant_pages(ctx: Context) -> Iterator[Page]:
    index = f"{GENERATED}/variants/index.md"
    vs = [dict(name=v, label=label_of(v), variant=variants.VARIANTS.get(v)) for v in ctx.variant_names]
    yield Page(index, ctx.template("variants_index.md.j2").render(here=index, variants=vs),
               nav=("Variants", "Variants"))
    for v in ctx.variant_names:
        page = variant_page(v)
        known = variants.VARIANTS.get(v)
        sections = []
        for mode in MODES:
            tabs = []
            for ls in ctx.sets:
                run = ls.rs.run(v, mode)
                if run is None:
                    continue
                tabs.append(_variant_tab(ctx, ls, v, mode, run, page))
            if tabs:
                sections.append(dict(mode=mode, tabs=tabs))
        text = ctx.template("variant.md.j2").render(
            here=page, name=v, label=label_of(v), variant=known,
            source=variants.source(known) if known else None, sections=sections)
        yield Page(page, text, nav=("Variants", label_of(v)))


def _variant_tab(ctx: Context, ls, v: str, mode: str, run, page: str) -> dict:
    df = ctx.summary(ls, mode)
    row = df[df["variant"] == v].to_dict("records")
    tab = dict(ls=ls, run=run, row=row[0] if row else None, kernels=[], chart=None, notes=[], trace=None,
               hypothesis=None, findings=[], generated=None, train=None, autograd=None)
    if mode == "inference" and v in variants.VARIANTS:
        hyp = ctx.hypotheses(ls, mode)
        h = hyp[hyp["variant"] == v].to_dict("records") if not hyp.empty else []
        tab["hypothesis"] = h[0] if h else None
    for f in ctx.findings(ls):
        # Compile time and the autograd check have their own paragraphs on the page.
        if f.variant == v and f.mode == mode and f.kind not in ("compile", "autograd"):
            links = [dict(index=k["index"], anchor=ctx.kernel_anchor(ls.name, v, mode, k["index"]))
                     for k in f.kernels]
            tab["findings"].append(dict(title=f.title, severity=f.severity, text=f.text, kernels=links))
    if mode == "train":
        tt = ctx.train(ls)
        t = tt[tt["variant"] == v].to_dict("records") if not tt.empty else []
        tab["train"] = t[0] if t else None
        if v == "naive_inplace":
            tab["autograd"] = tables.inplace_autograd(ls)
    if run.status != "ok" or ls.trace(mode, v) is None:
        return tab
    kt = tables.kernel_table(ls, v, mode)
    tab["kernels"] = [dict(k, anchor=ctx.kernel_anchor(ls.name, v, mode, k["index"])) for k in kt.to_dict("records")]
    known = variants.VARIANTS.get(v)
    if known and known.kind in ("flex", "naive_compiled") or run.compile_time_s is not None:
        gk = tables.generated_kernels(ls, v, mode)
        if not gk.empty:
            gen = gk[gk["generated"]]
            lib = gk[~gk["generated"] & (gk["kind"] == "kernel")]
            tab["generated"] = dict(
                triton=[dict(index=k["index"], short_name=k["short_name"], name=k["name"], dur_us=k["dur_us"],
                             anchor=ctx.kernel_anchor(ls.name, v, mode, k["index"])) for _, k in gen.iterrows()],
                library=[dict(index=k["index"], short_name=k["short_name"],
                              anchor=ctx.kernel_anchor(ls.name, v, mode, k["index"])) for _, k in lib.iterrows()],
                replaced=tables.replaced_kernels(ls, v, "naive", mode)["short_name"].tolist()
                if ls.rs.run("naive", mode) else [])
    cpu, gpu = tables.timeline_frames(ls, v, mode)
    if len(cpu) or len(gpu):
        tab["chart"] = chart_div(charts.timeline_spec(cpu, gpu), f"timeline of one {mode} forward of {v}")
    tab["notes"] = tables.occupancy_notes(ls, v, mode)
    tab["trace"] = relpath(trace_page(ls.name, run.trace), page) if run.trace else None
    tab["forwards"] = len(ls.trace(mode, v).forwards)
    return tab


def trace_files(ctx: Context) -> Iterator[Page]:
    """The raw traces of the pages, copied so that each variant page links its own."""
    for ls in ctx.sets:
        for run in ls.rs.runs:
            if run.trace and run.status == "ok":
                yield Page(trace_page(ls.name, run.trace), copy_from=ls.path / run.trace)


def methodology_partial(ctx: Context) -> Iterator[Page]:
    """Included by docs/methodology.md: each set's configuration and environment."""
    text = ctx.template("methodology.md.j2").render(here="methodology.md")
    yield Page(f"{GENERATED}/.methodology.md", text)


def skipped_page(ctx: Context) -> Iterator[Page]:
    if ctx.skipped:
        page = f"{GENERATED}/skipped.md"
        yield Page(page, ctx.template("skipped.md.j2").render(here=page), nav=("Skipped sets",))


PAGE_BUILDERS: list[Callable[[Context], Iterable[Page]]] = [
    home_partial, set_pages, variant_pages, skipped_page, methodology_partial, trace_files,
]


_FORKED: Context | None = None  # the context a forked worker inherits


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
            with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as pool:
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
            tree.append({html.escape(p.nav[0]): p.path})
            continue
        *parents, title = (html.escape(t) for t in p.nav)
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


# Findings, scaling and comparison pages (gen/pages_extra.py), after the others in the navigation.
from gen.report import pages_extra  # noqa: E402  (imports this module back, once it is defined)

PAGE_BUILDERS += pages_extra.BUILDERS
