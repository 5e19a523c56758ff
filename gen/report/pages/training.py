"""A training table's forward and backward, apart: the view that the set page and each scenario page put
under their training table (template _fwd_bwd.md.j2), for every variant of the table.

Takes: rows of gen.analysis.fwdbwd (`run_rows` or `point_rows`). Gives: `view(rows, name, command)`: the
stacked chart, the rows worded, the note, or, for a set captured before the split, one line saying it was not
recorded. Words from gen.report.words.dynamic.
"""

from __future__ import annotations

from gen.analysis import fwdbwd
from gen.model import schema
from gen.report import charts
from gen.report import format as fmt
from gen.report.site import chart_div
from gen.report.words import dynamic as dynamic_words
from gen.report.words import scenarios as scenario_words


def view(rows: list[dict], name: str, command: str) -> dict | None:
    """None where there is no training row at all."""
    if not rows:
        return None
    several = len({r["point"].kv_len for r in rows if r["point"] is not None}) > 1
    out = []
    for r in rows:
        point = scenario_words.point_label(dict(vars(r["point"])), False, False) if several and r["point"] else None
        out.append(dict(r, label=fmt.label_of(r["variant"]) + (f", {point}" if point else ""),
                        cell=dynamic_words.fwd_bwd_cell(r), ok=r["status"] == schema.Status.OK))
    if not fwdbwd.any_recorded(rows):
        # The old-schema line only where a step ran unsplit: rows that never ran have their own reasons.
        ran = any(r["status"] == schema.Status.OK for r in rows)
        return dict(rows=[], chart=None, note=None, not_recorded=dynamic_words.SPLIT_NOT_RECORDED
                    if ran and not any(r["reason"] for r in rows) else None,
                    reasons=sorted({r["reason"] for r in rows if r["reason"]}))
    spec = charts.drawn(charts.fwd_bwd([r for r in out if r["ok"]]))  # (one bar: the table below says it)
    chart = chart_div(spec, f"forward and backward per variant, {name}", command) if spec else None
    return dict(rows=out, chart=chart, note=dynamic_words.fwd_bwd_note(rows), not_recorded=None, reasons=[])
