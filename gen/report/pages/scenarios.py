"""The scenario pages: one per workload over every set, their index, and one per measured set and
workload.

Takes: a `site.Context`. Gives: `build(ctx)` (the index, and per workload what it is and one row per set:
its headline, linking the set's page of it), `set_pages(ctx, ls)` (the set's page of each workload, its view
made by gen.report.pages.scenario_set), `facts(ctx, ls)`, `scenario_page(name)`, `scenario_view(ctx, name)`
(what the workload is), `beside` / `set_links` (the scenario pages that show a set) and `variant_kernels`
(a variant's kernels in each scenario). Templates: scenarios_index.md.j2, scenario_page.md.j2.
"""

from __future__ import annotations

from collections.abc import Iterator

from gen.analysis import capture_gaps, scaling
from gen.analysis import dynamic as dyn
from gen.analysis import scenarios as sa
from gen.model import scenarios as declared
from gen.report import format as fmt
from gen.report.pages import scenario_first
from gen.report.pages.scenario_paths import INDEX, over_sets, scenario_page
from gen.report.pages.scenario_set import set_view, table_rows
from gen.report.site import MAX_KERNEL_ROWS, Context, Page
from gen.report.words import capture as capture_words
from gen.report.words import common as words
from gen.report.words import kernels as kernel_words
from gen.report.words import scenario_first as first_words
from gen.report.words import scenarios as scenario_words

SCALING_PAGE = f"{fmt.GENERATED}/scaling.md"


def index_page(ctx: Context) -> str | None:
    """The scenarios' index where the build makes it (a measured set has sweep points of a scenario, or ran
    the dynamic-lengths one), else None: other pages link it only then."""
    return INDEX if sa.scenario_names(ctx.sets) or any(ls.measured and dyn.has_dynamic(ls.rs) for ls in ctx.sets) \
        else None


def _ran(ls, name: str) -> bool:
    return ls.measured and any(p.scenario == name for p in ls.outline.sweep)


def link_of(ctx: Context, name: str) -> str | None:
    """Where a link to scenario `name` leads (over_sets): its page over every set, or the one set's own page of
    it. The rows are the lead sets that ran it (as _summary gives them); where none of them did, any set that did."""
    rows = [ls for ls in ctx.lead if _ran(ls, name)] or [ls for ls in ctx.sets if _ran(ls, name)]
    return over_sets(rows, scenario_page(name), lambda ls: fmt.set_scenario_page(ls.name, name))


def scenario_view(ctx: Context, name: str, here: str | None = None, sets: list[dict] | None = None,
                  figure: str | None = None) -> dict:
    """What the scenario is (why, shape, conventions), with `sets`: the per-set views to show in full."""
    s = declared.SCENARIOS.get(name)
    first = next((ls for ls in ctx.sets if ls.measured and ls.outline.scenario(name)), None)
    rec = first.outline.scenario(name) if first else None
    held = (rec.points or rec.train_points) if rec else []  # a training-only scenario has no inference points
    own = (s.points() or s.train_points()) if s else []
    p = held[0] if held else (own[0] if own else None)
    lengths = sorted({q.kv_len for q in held}) if rec else sorted({q.kv_len for q in own})
    sets = sets or []
    figure = figure or (sets[0]["figure"] if sets else sa.FIGURE_TFLOPS)
    one = sets[0]["ls"] if len(sets) == 1 and here != scenario_page(name) else None
    return dict(
        here=here or scenario_page(name), name=name, title=sa.scenario_title(ctx.sets, name),
        why=scenario_words.why(s.why) if s else None,
        shape=scenario_words.shape(vars(p), lengths, rec.dtype if rec else s.dtype,
                                   sorted({q.q_len for q in held}) if rec else list(s.q_lens) if s else [])
        if p else None,
        head_dims=sorted({q.head_dim for q in rec.points}) if rec else [],
        train=[q.kv_len for q in rec.train_points] if rec else [],
        figure=figure, convention=scenario_words.CONVENTION[figure], flop_convention=sa.FLOP_CONVENTION,
        flop_label=words.flop_label(held or own),
        bytes_convention=sa.BYTES_CONVENTION, label=scenario_words.figure_label(figure, held or own), sets=sets,
        article=name == declared.ARTICLE,
        # a set's own page links its scaling page, which only a measured GPU set has (a CPU set's sweep none)
        scaling=SCALING_PAGE if one is None else (
            fmt.set_subpage(one.name, "scaling") if scaling.scalable(one) else None),
        # a set's own page links the index (which links the page over every set, made only where two sets or
        # more ran the scenario: a set's page is made from the set alone, gen.report.units)
        one_set=one, summary=None, scenario_link=fmt.relpath(INDEX, here) if one is not None else None,
        first=None, fold=dict(verdict=first_words.FULL_VERDICT, largest=first_words.LARGEST_POINT,
                              counting=first_words.COUNTING, conditions=first_words.CONDITIONS),
    )


def _stub(ctx: Context, ls, name: str, page: str) -> str:
    """The set's page of a scenario its time limit kept it from: that, and a sibling's page of it where one measured
    it (Context.scenarios_beside); no table, chart or ceiling."""
    title = sa.scenario_title(ctx.sets, name)
    other = ctx.scenarios_beside.get(name)
    return ctx.template("scenario_stub.md.j2").render(
        here=page, title=title, one_set=ls, scenario_link=fmt.relpath(INDEX, page),
        not_reached=capture_words.unreached_page(title, ls.gaps),
        beside=capture_words.measured_by(other[1]) if other else None,
        beside_link=fmt.relpath(fmt.set_scenario_page(other[0], name), page) if other else None)


def set_pages(ctx: Context, ls) -> Iterator[Page]:
    if not ls.measured:
        return
    for name in sa.scenario_names([ls]):
        if (name, capture_gaps.STOPPED) in ls.gaps.not_reached:
            page = fmt.set_scenario_page(ls.name, name)
            yield Page(page, _stub(ctx, ls, name, page))
            continue
        view = set_view(ctx, ls, name)
        if view is None:
            continue
        page = fmt.set_scenario_page(ls.name, name)
        # (the tables' rows written for this page: their links are relative to it; the view stays as made)
        view = dict(view, modes=[dict(m, rows_html=table_rows(m, view["key"], page)) for m in view["modes"]])
        page_view = scenario_view(ctx, name, page, [view])
        page_view.update(first=scenario_first.set_view(ls, name, page_view["title"], ctx.lengths_beside))
        text = ctx.template("scenario_page.md.j2").render(**page_view)
        yield Page(page, text)


def facts(ctx: Context, ls) -> dict:
    """scenario -> the set's headline in it (and against a published figure), for the pages over all sets."""
    out = {}
    if ls.measured:
        for name in sa.scenario_names([ls]):
            v = set_view(ctx, ls, name)
            if v is not None:
                out[name] = dict(headline=v["headline"], versus_short=v["versus_short"], figure=v["figure"],
                                 title=sa.scenario_title([ls], name),
                                 first=scenario_first.facts(ls, name, ctx.lengths_beside))
    return out


def _summary(ctx: Context, name: str) -> list[dict]:
    page = scenario_page(name)
    return [dict(ls=ls, link=fmt.relpath(fmt.set_scenario_page(ls.name, name), page), **ctx.fact(ls, "scenarios")[name])
            for ls in ctx.lead if ls.measured and name in ctx.fact(ls, "scenarios")]


def build(ctx: Context) -> Iterator[Page]:
    if index_page(ctx) is None:
        return
    names = sa.scenario_names(ctx.sets)
    views = []
    for n in names:
        rows = _summary(ctx, n)
        view = scenario_view(ctx, n, figure=rows[0]["figure"] if rows else None)
        view.update(summary=rows, left_out=ctx.left_out, link=link_of(ctx, n),
                    first=scenario_first.view([r["first"] for r in rows], view["title"]))
        headed = [r for r in rows if r["headline"]]
        view.update(lead=headed[0] if headed else None, others=max(0, len(headed) - 1))
        views.append(view)
    from gen.report.pages import dynamic  # (its page is built by its own module; the index lists it)
    row = dynamic.index_row(ctx)
    index = ctx.template("scenarios_index.md.j2").render(here=INDEX, scenarios=views + ([row] if row else []))
    yield Page(INDEX, index, nav=("Scenarios", "Scenarios"))
    for v in views:
        if v["link"] == v["here"]:
            yield Page(v["here"], ctx.template("scenario_page.md.j2").render(**v), nav=("Scenarios", v["title"]))


def variant_kernels(ctx: Context, variant: str, page: str, sets=None) -> list[dict]:
    """For a variant page: per measured GPU set (of `sets`, default every set), scenario and mode,
    the kernels of one profiled call at the largest length that kept a trace
    (gen.analysis.scenarios.kernels_frame)."""
    out = []
    for ls in ctx.sets if sets is None else sets:
        if not ls.measured or ls.environment.device != "cuda":
            continue
        calls: dict[tuple, list[dict]] = {}  # (scenario, mode) -> its call's kernels
        for r in sa.kernel_rows(ls, variant):
            calls.setdefault((r["scenario"], r["mode"]), []).append(r)
        for (scenario, mode), g in calls.items():
            first = dict(g[0])
            decode = first["q_len"] == 1 and first["kv_len"] > 1
            out.append(dict(ls=ls, scenario=scenario, title=sa.scenario_title(ctx.sets, scenario), mode=mode,
                            link=fmt.relpath(fmt.set_scenario_page(ls.name, scenario), page),
                            point=scenario_words.point_label(first, decode, True), kernels=g[:MAX_KERNEL_ROWS],
                            left_out=max(0, len(g) - MAX_KERNEL_ROWS),
                            total_us=sum(float(r["duration_us"]) for r in g),
                            launches=sum(int(r["count"]) for r in g)))
    several = len({g["ls"].name for g in out}) > 1
    for g in out:
        g["what"] = kernel_words.kernel_paths(
            k["name"] for k in g["kernels"] if k["category"] in ("fused attention", "matrix product", "reduction")
            and k["kind"] == "kernel")
        g["set_suffix"] = f" · {fmt.set_title(g['ls'])}" if several else ""
        g["call"] = words.call_of(g["mode"])
        g["events"] = words.plural(g["launches"], "GPU event")
    return out


def beside(ctx: Context, ls) -> list[tuple[str, str]]:
    """The scenario pages that show this set, as (title, page): a measured set's own page of each
    scenario it measured, or the scenario pages a published set's figures stand beside. A fact of
    the set (gen.report.units), for the pages over all sets."""
    names = sa.scenario_names(ctx.sets)
    if ls.measured:
        held = [n for n in names if any(p.scenario == n for p in ls.outline.sweep)]
        out = [(sa.scenario_title(ctx.sets, n), fmt.set_scenario_page(ls.name, n)) for n in held]
        if ls.rs.dynamic:  # the dynamic-lengths scenario has no sweep points: its own page (pages.dynamic)
            from gen.report.pages import dynamic
            out.append((dynamic.title(ctx), dynamic.set_page(ls.name)))
        return out
    def shown(n: str) -> bool:
        # a figure stands beside ours only in a mode we measured there (forward figures are not shown
        # beside a training-only scenario: its page says no published figure is known). The figures and the
        # modes are the same for the set page and the set's facts: made once (each reads every measured set)
        a = ctx._once(("anchors over every set", n), lambda: sa.anchor_frame(ctx.sets, n))
        modes = ctx._once(("modes measured", n), lambda: {p.mode for m in ctx.sets if m.measured
                                                          for p in m.outline.sweep if p.scenario == n})
        return bool(((a["anchor_set"] == ls.name) & a["mode"].isin(modes)).any())

    return [(sa.scenario_title(ctx.sets, n), link_of(ctx, n)) for n in names if shown(n)]


def set_links(ctx: Context, ls, page: str) -> list[dict]:
    """For a set page: `beside(ctx, ls)` as title and link, less a measured set's scenarios with no measured point
    (the set page names those apart, with why: gen.report.words.capture.not_reached)."""
    from gen.report.pages import dynamic

    gone = {dynamic.set_page(ls.name) if n == "dynamic-lengths" else fmt.set_scenario_page(ls.name, n)
            for n, _ in (ls.gaps.not_reached if ls.measured else ())}
    return [dict(title=title, link=fmt.relpath(target, page)) for title, target in beside(ctx, ls)
            if target not in gone]
