"""What a scenario page shows before any paragraph: the verdict's point, the one the
home page answers for, as a chart (each ranked call's median and interval there) and a small table (the verdict's call,
its time as run with its SM clock and power, the next call, the gain over it and whether it holds), with the call What
to call names marked and, under the table, why it names another call and what a Python loop should call; and the line on
the scenario's largest point after it (`largest_lines`).

Takes: a loaded set and a scenario (facts of gen.analysis.verdict_point). Gives `facts(ls, name)` (plain data: the
table's rows worded, the chart's rows; the page over every set reads them from the build's cache), `view(...)` (the
chart drawn and the table, for _scenario_first.md.j2), `set_view(ls, name)` (one set's page) and `largest_lines`.
Words from gen.report.words.scenario_first, the chart from gen.report.charts.
"""

from __future__ import annotations

from gen.analysis import advice, compiles, growing_cache, mask_cost, rules, unmeasured, verdict_point, verdicts
from gen.model import schema
from gen.report import charts
from gen.report import format as fmt
from gen.report.site import BUILD_COMMAND, chart_div, summary_command
from gen.report.words import compiles as compile_words
from gen.report.words import decision as decision_words
from gen.report.words import growing_cache as growing_words
from gen.report.words import mask_cost as mask_words
from gen.report.words import scenario_first as words
from gen.report.words import scenarios as scenario_words
from gen.report.words.common import label, level_pct


def _points(f, title: str) -> list[dict]:
    """The chart's rows of one verdict's point; beside the deterministic calls' own verdict, the other row draws only
    the calls that are not deterministic (each call once: verdict_point.PointFacts.plain)."""
    return [dict(call=label(c.variant), mode=f.mode, scope=f.scope, point=words.short_point(f.point, batch=False),
                 set_title=title, role=c.role, median_ms=c.median_ms, lo_ms=c.lo_ms, hi_ms=c.hi_ms,
                 level=level_pct(c.level), at=words.at_cell(f), rel=c.median_ms / f.median_ms if f.median_ms else None,
                 measure=words.MEASURE_WORD.get(c.method, c.method or ""), mhz=c.sm_clock_mhz,
                 hollow=c.method == "kernel_sum", named="yes" if c.named else "")
            for c in f.calls if not f.plain or c.variant in f.plain]


def _mask_note(ls, f) -> tuple[str | None, bool]:
    """A packed-documents verdict's BlockMask build against the call that needs none;
    elsewhere, where What to call names a call that builds a BlockMask (a sliding window), its compile and its build
    (mask_words.first_costs, from What to call's own exception); and whether it gave the named call's compile."""
    v = verdicts.verdict(ls, f.scenario, f.mode) if f.scope is None and f.point is not None else None
    if v is None:
        return None, False
    note = mask_words.scenario_note(mask_cost.mask_costs(ls, v, lambda x: advice.dense_mask_at(ls, v, x)), f.fastest,
                                    f.runner_up, f.point.mask, f.named)
    if note is not None or f.point.mask == schema.Mask.DOCUMENT:
        return note, False
    a = advice.advice(ls)
    e = next((e for e in a.exceptions if (e.scenario, str(e.mode), e.variant) == (f.scenario, f.mode, f.named)),
             None) if a is not None else None
    if e is None or e.mask_cost is None:
        return None, False
    return (mask_words.first_costs(e.variant, e.compile_s, e.compile_ahead, e.compile_merged, e.mask_cost, e.mask),
            e.compile_s is not None)


def facts(ls, name: str, beside=None) -> dict | None:
    """The first look at one set's scenario as plain data; None where no verdict there ranks two calls or more.
    `beside`: what a set of the same GPU model and PyTorch measured at new lengths (length_cost.Beside), which a
    decode answer on cuDNN cites for a growing cache where this set measured none (growing_cache)."""
    found = verdict_point.point_facts_all(ls, name)
    if not found:
        return None
    env = ls.environment
    rows, points = [], []
    for f in found:
        # several rows: each note says whose it is ("Training step: ...")
        whose = f"{words.at_cell(f).split(' · ')[0].capitalize()}: " if len(found) > 1 else ""
        setup = decision_words.untimed_setup(f.named, fmt.label_of(f.named)) if f.named is not None else None
        grows = growing_cache.growing(ls, f, beside)
        mask, compiled = _mask_note(ls, f)
        # the named call's compile at this configuration, where the mask's note did not give it (each workload is a
        # configuration of its own: the first screen's one compile was the article's)
        compile_note = None if compiled else compile_words.note(compiles.at_point(ls, f.scenario, f.mode, f.named))
        notes = [whose + x for x in (words.named_note(f), words.loop_note(f), compile_note, mask, setup,
                                     growing_words.note(grows)) if x]
        folds = [dict(title=growing_words.FOLD_TITLE, text=x)] if (x := growing_words.argument(grows)) else []
        rows.append(dict(mode=f.mode, variant=f.lead, set=ls.name, set_title=fmt.set_title(ls),
                         rounds_note=[whose + x if i == 0 else x for i, x in enumerate(words.rounds_note(f))],
                         at=words.at_cell(f), call=words.call_cell(f), named=words.named_cell(f),
                         time=words.time_cell(f), conditions=words.conditions_cell(f, env), next=words.next_cell(f),
                         gain=words.gain_cell(f), holds=words.holds_cell(f), notes=notes, folds=folds))
        points += _points(f, fmt.set_title(ls))
    return dict(set=ls.name, rows=rows, points=points, basis=found[0].basis)


def _series(p: dict, several: bool, points: bool) -> str:
    """A chart row's series: its mode on one set's page; its set (and mode, where training) over every set; with the
    point where a set's series are at different points (forward at 2,048 tokens and
    training at 4,096 on one axis, the legend saying only "forward / training step"); "deterministic calls" for a
    verdict over those alone."""
    mode = words.MODE_WORD.get(p["mode"], p["mode"])
    scope = f" · {words.SCOPE_WORD[p['scope']]}" if p.get("scope") in words.SCOPE_WORD else \
        " · the other calls" if p.get("scope") is None and p.get("split") else ""
    at = f" · {p['point']}" if points else ""
    if not several:
        return f"{mode}{at}{scope}"
    return p["set_title"] + ("" if p["mode"] == "inference" else f" · {mode}") + at + scope


def view(found: list[dict], title: str, command: str = BUILD_COMMAND) -> dict | None:
    """The chart and the table from `facts` of one set or more (a column of sets where more than one)."""
    found = [f for f in found if f]
    if not found:
        return None
    several = len(found) > 1
    points = []
    for f in found:
        at_points = len({p["point"] for p in f["points"]}) > 1
        split = any(p.get("scope") for p in f["points"])
        points += [dict(p, series=_series(dict(p, split=split), several, at_points)) for p in f["points"]]
    title_lines = [words.x_title(found[0]["basis"])]
    if any(p["hollow"] for p in points):
        title_lines.append(words.HOLLOW_NOTE)
    if any(p["named"] for p in points):
        title_lines.append(words.NAMED_MARK)
    title_lines += [x for f in found for r in f["rows"] for x in r.get("rounds_note") or ()]
    spec = charts.drawn(charts.verdict_point(points, verdict_point.ROLES,
                                             title_lines if len(title_lines) > 1 else title_lines[0])) \
        if points else None
    return dict(rows=[r for f in found for r in f["rows"]], several=several, columns=words.COLUMNS,
                chart=chart_div(spec, words.chart_label(title), command) if spec else None,
                sets=" ".join(f["set"] for f in found))


def set_view(ls, name: str, title: str, beside=None) -> dict | None:
    """One set's page of a scenario: its first look (`beside` as `facts` takes it)."""
    return view([facts(ls, name, beside)], title, summary_command(ls.name, scenario=name))


def largest_lines(ls, name: str, head: dict, v: verdicts.Verdict, p: schema.Point, mode: str) -> list[str]:
    """Where the scenario's headline point is another than the verdict's: the line on it (words.headline_elsewhere),
    naming every call within noise of its fastest, its head dim where the scenario ran
    that length at others too, and a line for each of those (the article's largest point at head dim 64 is not
    "the scenario's largest" where at head dim 128 FlashAttention-4 does not lead)."""
    top = head["fastest"]
    if (top["q_len"], top["kv_len"], top["head_dim"]) == (p.q_len, p.kv_len, p.head_dim):
        return []
    firsts = (v.fastest.variant, *v.same_kernel, *v.near)
    others = sorted({s.point for s in ls.rs.sweep if s.scenario == name and s.mode == mode
                     and (s.point.q_len, s.point.kv_len) == (top["q_len"], top["kv_len"])
                     and s.point.head_dim != top["head_dim"]}, key=lambda q: q.head_dim)
    size = scenario_words.point_label(top, top["q_len"] == 1, False)
    at = size if others else f"{size}, D {int(top['head_dim'])}"
    auto, sp = head.get("auto_tie"), head.get("spreads") or {}
    tie = ((auto, sp[top["variant"]].median, sp[auto].median)
           if auto and sp.get(top["variant"]) and sp.get(auto) else None)
    measured = bool(unmeasured.fa4_missing(v.not_measured))  # "of those measured"
    out = [words.headline_elsewhere(at, top["variant"], firsts,
                                    (*(head.get("near") or ()), *(head.get("ties") or ())), tie,
                                    int(top["head_dim"]) if others else None, measured)]
    for q in others:
        w = verdicts.verdict_at(ls, name, q, mode)
        if w is not None and not w.field_of_one:
            named = (w.fastest.variant, *w.same_kernel, *w.near)
            timed = [(x, s.median, w.row(x).sm_clock_mhz, _above_eager(w, w.row(x), s.median)) for x in named
                     if w.row(x) is not None and (s := w.spread(w.row(x))) is not None]
            out.append(words.other_head_dim(f"head dim {q.head_dim} ({size})", w.fastest.variant, w.same_kernel,
                                            w.near, timed, measured))
    return out


def _above_eager(w, t, ms: float) -> float | None:
    """The eager loop's median where the time given is a graph replay's median above it by more than the one line for
    that, rules.graph_above_eager (the scaling tables' "‡": SDPA cuDNN's 16.582 ms at D128 16k,
    its eager loop 15.640 ms, given bare as a leader's time); else None."""
    eager = t.eager.median if t.eager is not None else None
    return eager if w.basis == "gpu_only" and rules.graph_above_eager(ms, eager, t.gpu_only_method) else None
