"""What a scenario page shows before any paragraph (review 2026-12-07-1 finding 1): the verdict's point, the one the
home page answers for, as a chart (each ranked call's median and interval there) and a small table (the verdict's call,
its time as run with its SM clock and power, the next call, the gain over it and whether it holds).

Takes: a loaded set and a scenario (facts of gen.analysis.verdict_point). Gives `facts(ls, name)` (plain data: the
table's rows worded, the chart's rows; the page over every set reads them from the build's cache), `view(...)` (the
chart drawn and the table, for _scenario_first.md.j2) and `set_view(ls, name)` (one set's page). Words from
gen.report.words.scenario_first, the chart from gen.report.charts.
"""

from __future__ import annotations

from gen.analysis import verdict_point
from gen.report import charts
from gen.report import format as fmt
from gen.report.site import BUILD_COMMAND, chart_div, summary_command
from gen.report.words import scenario_first as words
from gen.report.words.common import level_pct


def facts(ls, name: str) -> dict | None:
    """The first look at one set's scenario as plain data; None where no verdict there ranks two calls or more."""
    found = verdict_point.point_facts_all(ls, name)
    if not found:
        return None
    env = ls.rs.environment
    rows, points = [], []
    for f in found:
        rows.append(dict(mode=f.mode, variant=f.fastest, set=ls.name, set_title=fmt.set_title(ls),
                         at=words.at_cell(f), call=words.call_cell(f), time=words.time_cell(f),
                         conditions=words.conditions_cell(f, env), next=words.next_cell(f), gain=words.gain_cell(f),
                         holds=words.holds_cell(f)))
        points += [dict(call=fmt.label_of(c.variant), mode=f.mode, set_title=fmt.set_title(ls), role=c.role,
                        median_ms=c.median_ms, lo_ms=c.lo_ms, hi_ms=c.hi_ms, level=level_pct(c.level),
                        at=words.at_cell(f), rel=c.median_ms / f.median_ms if f.median_ms else None)
                   for c in f.calls]
    return dict(set=ls.name, rows=rows, points=points, basis=found[0].basis)


def _series(p: dict, several: bool) -> str:
    """A chart row's series: its mode on one set's page; its set (and mode, where training) over every set."""
    mode = words.MODE_WORD.get(p["mode"], p["mode"])
    if not several:
        return mode
    return p["set_title"] + ("" if p["mode"] == "inference" else f" · {mode}")


def view(found: list[dict], title: str, command: str = BUILD_COMMAND) -> dict | None:
    """The chart and the table from `facts` of one set or more (a column of sets where more than one)."""
    found = [f for f in found if f]
    if not found:
        return None
    several = len(found) > 1
    points = [dict(p, series=_series(p, several)) for f in found for p in f["points"]]
    spec = charts.drawn(charts.verdict_point(points, verdict_point.ROLES, words.x_title(found[0]["basis"]))) \
        if points else None
    return dict(rows=[r for f in found for r in f["rows"]], several=several, columns=words.COLUMNS,
                chart=chart_div(spec, words.chart_label(title), command) if spec else None,
                sets=" ".join(f["set"] for f in found))


def set_view(ls, name: str, title: str) -> dict | None:
    """One set's page of a scenario: its first look."""
    return view([facts(ls, name)], title, summary_command(ls.name, scenario=name))
