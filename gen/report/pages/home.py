"""The home page's partials (included by docs/index.md): the heat map of the fastest variant of each set
in each scenario and the first measured GPU set's headline chart (.home.md, right after the decision's chart
and table: pictures first), and the matrix of sets held (.home-sets.md, after the words).

Takes: a `site.Context` (each set's facts: gen.report.units). Gives: `build(ctx)`; the
view model `home_view(ctx)`: the sets by GPU (one row per GPU, a link per set), the
published sets (and the scenarios their figures stand beside), the heat map of the fastest
variants (gen.report.charts.fastest_map) and the chart of the first measured GPU set with the
conditions (NVML) of its times. Its size grows by a row per GPU, not by a column or a table
per set: every set's time of every variant is on the Compare page. Templates: home.md.j2, home_sets.md.j2.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd

from gen.model.schema import Mode, SetKind
from gen.report import charts
from gen.report import format as fmt
from gen.report.site import Context, Page, chart_div, summary_command
from gen.report.words import home as home_words
from gen.report.words import tables as table_words

HOME = "index.md"  # links resolve from the page that includes the partial


def _by_gpu(ctx: Context) -> list[dict]:
    """One row per GPU (CPU sets by their CPU), in the sets' order: a link to its newest set (ctx.lead),
    named by what tells it apart from the others on its GPU (PyTorch, label), and how many older sets it
    has (the list of result sets has them): a row per GPU, however many sets each holds."""
    rows: dict[str, dict] = {}
    lead = {id(ls) for ls in ctx.lead}
    for ls in ctx.sets:
        if ls.kind == SetKind.REFERENCE:
            continue
        title = fmt.set_title(ls)
        gpu, _, rest = title.partition(" · ")
        row = rows.setdefault(gpu, dict(gpu=gpu, sets=[], more=0))
        if id(ls) in lead:
            row["sets"].append(dict(ls=ls, label=rest or title, link=fmt.relpath(fmt.set_page(ls.name), HOME)))
        else:
            row["more"] += 1
    return list(rows.values())


def fastest_chart(ctx: Context, page: str):
    """The heat map of the fastest variant per set and scenario (the lead sets: a row per GPU), or None when
    no set has a verdict."""
    rows = [r for ls in ctx.lead if ls.kind == SetKind.MEASURED for r in ctx.fact(ls, "verdict")["fastest"]]
    if not rows:
        return None
    spec = charts.drawn(charts.fastest_map(pd.DataFrame(rows)))  # (one cell: the verdicts' table says it)
    return chart_div(spec, "fastest variant per set and scenario") if spec else None


def home_view(ctx: Context) -> dict:
    chart, chart_set, kernel_sum = None, None, False
    for ls in ctx.sets:
        df = ctx.summary(ls, Mode.INFERENCE)
        if ls.measured and not df.empty and df["gpu_only_ms"].notna().any():
            spec = charts.drawn(charts.gpu_time(df))  # (one variant timed: the set's table says it)
            chart = chart_div(spec, "GPU-only time per variant", summary_command(ls.name)) if spec else None
            chart_set = ls
            kernel_sum = bool(((df["status"] == "ok") & (df["gpu_only_method"] == "kernel_sum")).any())
            break
    conditions = table_words.conditions_range(ctx.summary_records(chart_set, Mode.INFERENCE),
                                              chart_set.environment) \
        if chart_set is not None and chart_set.environment.device == "cuda" else None
    published = [dict(ls=ls, scenarios=[dict(title=t, link=fmt.relpath(target, HOME))
                                        for t, target in ctx.fact(ls, "beside")])
                 for ls in ctx.sets if ls.kind == SetKind.REFERENCE]
    return dict(sets=ctx.sets, left_out=ctx.left_out, skipped=ctx.skipped, by_gpu=_by_gpu(ctx), published=published,
                fastest=fastest_chart(ctx, HOME), chart=chart, chart_set=chart_set, conditions=conditions,
                kernel_sum=kernel_sum)


def build(ctx: Context) -> Iterator[Page]:
    view = home_view(ctx)
    # the pictures (the map, the headline chart) come right after the decision's chart and table; the sets after
    # the words (docs/index.md)
    yield Page(f"{fmt.GENERATED}/.home.md", ctx.template("home.md.j2").render(here=HOME, words=home_words, **view))
    yield Page(f"{fmt.GENERATED}/.home-sets.md", ctx.template("home_sets.md.j2").render(here=HOME, **view))
