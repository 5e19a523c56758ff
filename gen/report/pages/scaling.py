"""The scaling pages: per measured GPU set, the sweep against the GPU's own measured ceilings, time
by kernel category, and which calls are host-bound; over all sets, their ceilings and fastest variants.

Takes: a `site.Context`. Gives: `set_pages(ctx, ls)` (the set's scaling page),
`facts(ctx, ls)` (its row of the summary), `build(ctx)` (the Scaling page: what the
numbers mean, and one row per set linking its page); the view model `set_view(ctx, ls)`.
Template: scaling_page.md.j2.
"""

from __future__ import annotations

from collections.abc import Iterator

from gen.analysis import flops, host_rules, rules, scaling, scenarios
from gen.model import datasheets
from gen.model.scenarios import ARTICLE
from gen.report import charts
from gen.report import format as fmt
from gen.report.pages import scenarios as scenario_pages
from gen.report.site import Context, Page, records, summary_command
from gen.report.words import host as host_words
from gen.report.words import methodology as method_words
from gen.report.words import scenarios as scenario_words
from gen.report.words.common import ordinal

PAGE = f"{fmt.GENERATED}/scaling.md"


def _charts(ctx: Context, ls, sw, ceil, cat, busy) -> dict:
    """The sweep's charts by name; one of one point (or one point a variant where lines are drawn) is left
    out (charts.drawn): the table of every point below holds it."""
    made = {}
    points = summary_command(ls.name, scenario=ARTICLE)  # the sweep's rows, one per variant and point
    if len(sw) and sw["gpu_only_ms"].notna().any():
        made["time"] = (charts.time_vs_seq(sw), "GPU-only time against sequence length", points)
        made["memory"] = (charts.memory_vs_seq(sw), "peak memory against sequence length", points)
        if ceil:
            made["roofline"] = (charts.roofline(sw, ceil), "roofline", points)
    if len(cat):
        made["categories"] = (charts.category_bars(cat), "GPU time by kernel category")
    if len(busy) and (busy["source"] == "sweep").any():
        made["busy"] = (charts.busy_vs_seq(busy), "GPU busy share against sequence length")
    specs = {name: (charts.drawn(chart), words) for name, (chart, *words) in made.items()}
    return {name: ctx.chart(spec, *words) for name, (spec, words) in specs.items() if spec is not None}


def _fastest(ctx: Context, ls) -> list[dict]:
    """The fastest variant at the largest size per head dim, as rows: made once for the page and its facts
    (each row a copy)."""
    rows = ctx._once(("scaling fastest", ls.name), lambda: records(scaling.fastest_at_largest(ls)))
    return [dict(r) for r in rows]


def set_view(ctx: Context, ls) -> dict:
    sw, ceil = scaling.sweep_frame(ls), scaling.ceilings(ls)
    cat, busy = scaling.category_frame(ls), scaling.busy_frame(ls)
    return dict(ls=ls, ceil=ceil, has_sweep=bool(len(sw)), oom=scaling.oom_sizes(ls),
                copy_size=ceil["copy_bytes"] // 2 if ceil else None,  # read once, written once: half moved
                fastest=_fastest(ctx, ls), charts=_charts(ctx, ls, sw, ceil, cat, busy),
                busy_default=_host_cells(records(busy[busy["source"] == "default"])) if len(busy) else [],
                sweep_rows=_above_eager(records(sw[sw["gpu_only_ms"].notna() | sw["eager_ms"].notna()
                                                   | (sw["status"] != "ok")])) if len(sw) else [],
                measured=ls.measured, gpu=ls.environment.device == "cuda",
                above_eager_note=method_words.REPLAY_ABOVE_EAGER.format(pct=rules.GRAPH_ABOVE_EAGER_PCT),
                above_roof=scenario_words.above_roof(scaling.above_roof(sw, ceil), datasheets.bandwidth(
                    ls.environment.gpu_name)) if len(sw) else None,
                roof_line=scenario_words.roof_line(ceil, scaling.matmul_clock(ls)))


def _above_eager(rows: list[dict]) -> list[dict]:
    """Each sweep row marked where its GPU-only time is a graph replay's median above the eager loop's median at that
    point by more than the one line for it, rules.graph_above_eager (naive and flex at D128 4k,
    11-15% above, unmarked: 18.304 against 18.303 ms marked beside them)."""
    for r in rows:
        g, e = r.get("gpu_only_ms"), r.get("eager_ms")
        r["above_eager"] = (isinstance(g, float) and isinstance(e, float)
                            and rules.graph_above_eager(g, e, r.get("gpu_only_method")))
    return rows


def _host_cells(rows: list[dict]) -> list[dict]:
    """Each row with its host-bound cell: the outcome, and where within noise, the measure that left it so
    (host_words.noise_cell)."""
    for r in rows:
        o = r.get("host_bound_outcome")
        r["host_cell"] = host_words.noise_cell(
            r.get("host_noise_why"), r.get("eager_over_gpu_only"), r.get("host_cost_ms"),
            r.get("gpu_only_ms"), (r.get("eager_ratio_lo"), r.get("eager_ratio_hi"))) \
            if o == rules.WITHIN_NOISE else (o or "–")
    return rows


def has_page(ls) -> bool:
    """A measured GPU set has a scaling page (gen.analysis.scaling.scalable)."""
    return scaling.scalable(ls)


def _article_page(ctx: Context) -> str | None:
    """The article scenario's page over every set, or the one set's own page of it (scenario_pages.link_of)."""
    return scenario_pages.link_of(ctx, ARTICLE)


def _words(ctx: Context) -> dict:
    """What every scaling page says of its counts and rules (the scenarios' index linked only where
    the build makes it: scenario_pages.index_page)."""
    return dict(host_bound_rule=method_words.HOST_BOUND_RULE, fa_label=flops.FLOP_LABEL,
                host_quantile=ordinal(host_rules.HOST_COST_QUANTILE),
                flop_convention=flops.FLOP_CONVENTION, bytes_convention=flops.BYTES_CONVENTION,
                scenarios_index=scenario_pages.index_page(ctx))


def set_pages(ctx: Context, ls) -> Iterator[Page]:
    if not has_page(ls):
        return
    page = fmt.set_subpage(ls.name, "scaling")
    article = fmt.set_scenario_page(ls.name, ARTICLE) if ARTICLE in scenarios.scenario_names([ls]) else None
    text = ctx.template("scaling_page.md.j2").render(
        here=page, sets=[set_view(ctx, ls)], one_set=ls, summary=None, without=[], article_page=article,
        **_words(ctx))
    yield Page(page, text)


def facts(ctx: Context, ls) -> dict:
    """The set's row of the Scaling page: its ceilings and the fastest variant at the largest size."""
    return dict(page=has_page(ls), ceil=scaling.ceilings(ls), fastest=_fastest(ctx, ls),
                sweep=bool(len(scaling.sweep_frame(ls))) if has_page(ls) else False)


def build(ctx: Context) -> Iterator[Page]:
    summary = [dict(ls=ls, link=fmt.relpath(fmt.set_subpage(ls.name, "scaling"), PAGE), **ctx.fact(ls, "scaling"))
               for ls in ctx.lead]
    text = ctx.template("scaling_page.md.j2").render(
        here=PAGE, left_out=ctx.left_out, sets=[], one_set=None, summary=[r for r in summary if r["page"]],
        without=[r["ls"] for r in summary if not r["page"]], article_page=_article_page(ctx), **_words(ctx))
    yield Page(PAGE, text, nav=("Scaling",))
