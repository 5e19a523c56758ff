"""Charts: pure functions from data (frames of gen.analysis, or rows) to an Altair chart or its
Vega-Lite spec. No file I/O, no display. The page builders embed them (gen.report.site.chart_div).

Modules, each taking its data and giving its charts:
- `timelines`: the timeline of one call (host lanes above the GPU lane);
- `times`: GPU time per variant, of one set and of every set, and the matrix of the fastest variants;
- `scaling`: a set's sequence-length sweep (time, memory, roofline, kernel categories, busy share);
- `scenario`: one set in one scenario (time, rate against the ceilings, roofline);
- `calls`: first against steady calls at new lengths, what a new length costs, and a training step's forward
  and backward;
- `decisions`: a set's decision at a glance;
- `verdict_point`: a scenario's verdict at its point at a glance;
- `points`: which specs draw too few points to be a chart (a table row says it better);
- `base`: the shared scales, colours and the lazy altair.

Shared look: one log scale for times (fitted to the data), one base-2 axis for sequence lengths,
one colour per event kind, one row height. Each chart keeps only the columns it shows, so that the
pages stay small. Every name a page reads is here.
"""

from __future__ import annotations

from gen.report.charts.base import PUBLISHED, preload
from gen.report.charts.calls import dynamic_lengths, fwd_bwd, new_length_cost
from gen.report.charts.decisions import DEFAULT_CALL, OTHER_CALLS, RECOMMENDED, decision
from gen.report.charts.points import drawn, one_point
from gen.report.charts.scaling import busy_vs_seq, category_bars, memory_vs_seq, roofline, time_vs_seq
from gen.report.charts.scenario import scenario_rate, scenario_roofline, scenario_time
from gen.report.charts.timelines import timeline, timeline_spec, timeline_window
from gen.report.charts.times import fastest_map, gpu_time, gpu_time_by_set
from gen.report.charts.verdict_point import verdict_point

__all__ = [
    "DEFAULT_CALL", "OTHER_CALLS", "PUBLISHED", "RECOMMENDED", "busy_vs_seq", "category_bars", "decision", "drawn",
    "dynamic_lengths", "fastest_map", "fwd_bwd", "gpu_time", "gpu_time_by_set", "memory_vs_seq", "new_length_cost",
    "one_point", "preload", "roofline", "scenario_rate", "scenario_roofline", "scenario_time", "time_vs_seq",
    "timeline", "timeline_spec", "timeline_window", "verdict_point",
]
