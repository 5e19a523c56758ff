"""The home page's partial (included by docs/index.md): the sets held and the headline table.

Takes: a `site.Context`. Gives: `build(ctx)`; the view model `home_view(ctx)`
(one headline row per variant with one cell per set that has a time at its default
shape, the sets whose figures sit at other shapes, and the chart of the first measured GPU set). Template: home.md.j2.
"""

from __future__ import annotations

from collections.abc import Iterator

from gen.model.schema import Mode
from gen.report import charts
from gen.report import format as fmt
from gen.report import wording_verdicts as words
from gen.report.pages import scenarios as scenario_pages
from gen.report.site import Context, Page, chart_div, summary_command


def _cell(ctx: Context, ls, variant: str) -> dict | None:
    df = ctx.summary(ls, Mode.INFERENCE)
    row = df[df["variant"] == variant].to_dict("records") if not df.empty else []
    return row[0] if row else None


def _has_figure(ctx: Context, ls) -> bool:
    """The set has a time for some variant at its default shape: a GPU-only time, or a CPU set's wall time."""
    df = ctx.summary(ls, Mode.INFERENCE)
    return not df.empty and bool(df["gpu_only_ms"].notna().any() or df["host_ms"].notna().any())


def home_view(ctx: Context) -> dict:
    # A set with no time for any variant at its default shape (a published set whose figures sit at
    # other shapes) would only fill a column with dashes: it is named below the table instead.
    columns = [ls for ls in ctx.sets if _has_figure(ctx, ls)]
    elsewhere = [ls for ls in ctx.sets if ls not in columns]
    headline = [dict(variant=v, label=fmt.label_of(v), cells=[_cell(ctx, ls, v) for ls in columns])
                for v in ctx.variant_names]
    chart, chart_set = None, None
    for ls in ctx.sets:
        df = ctx.summary(ls, Mode.INFERENCE)
        if ls.measured and not df.empty and df["gpu_only_ms"].notna().any():
            chart = chart_div(charts.gpu_time(df), "GPU-only time per variant", summary_command(ls.name))
            chart_set = ls
            break
    conditions = [dict(ls=ls, text=words.conditions_range(ctx.summary(ls, Mode.INFERENCE).to_dict("records")))
                  for ls in ctx.sets if ls.measured and ls.rs.environment.device == "cuda"]
    return dict(sets=ctx.sets, skipped=ctx.skipped, headline=headline, chart=chart, chart_set=chart_set,
                columns=columns, elsewhere=[dict(ls=ls, scenarios=scenario_pages.set_links(ctx, ls, "index.md"))
                                            for ls in elsewhere], conditions=conditions)


def build(ctx: Context) -> Iterator[Page]:
    here = "index.md"  # links resolve from the page that includes the partial
    yield Page(f"{fmt.GENERATED}/.home.md", ctx.template("home.md.j2").render(here=here, **home_view(ctx)))
