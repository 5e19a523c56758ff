"""The result sets: an index, and one page per set with its summary table per mode.

Takes: a `site.Context`. Gives: `build(ctx)` (the index), `set_pages(ctx, ls)` (the
set's page), `facts(ctx, ls)` (its summary tables, for the pages over all sets); the
view model `set_view(ctx, ls)` (per mode: rows ready to lay out, the chart, the notes
under the table, the host-bound calls; the links to the set's own pages; which modes come
before the decision's words and which after). Template: sets_index.md.j2, set.md.j2 (and
_set_mode.md.j2, a mode's section).
"""

from __future__ import annotations

from collections.abc import Iterator

from gen.analysis import calls, compare, fwdbwd, rules, scenarios, timings, verdicts
from gen.analysis.findings import FindingKind
from gen.analysis.values import missing
from gen.model.schema import Mode, Window
from gen.report import charts
from gen.report import format as fmt
from gen.report.pages import compare as compare_pages
from gen.report.pages import decision as first_screen
from gen.report.pages import kernel_story, scenario_set, training, verdict
from gen.report.pages import scaling as scaling_pages
from gen.report.pages import scenarios as scenario_pages
from gen.report.site import Context, Page, chart_div, records, summary_command
from gen.report.words import capture as capture_words
from gen.report.words import common as words
from gen.report.words import home as home_words
from gen.report.words import host as host_words
from gen.report.words import methodology as method_words
from gen.report.words import published as published_words
from gen.report.words import scenarios as scenario_words
from gen.report.words import tables as table_words


def _min_samples(rows: list[dict], col: str) -> int | None:
    counts = [int(r[col]) for r in rows if r["status"] == "ok" and not missing(r[col]) and r[col] > 0]
    return min(counts) if counts else None


def mode_view(ctx: Context, ls, mode: str, say_reading: bool = True) -> dict | None:
    """One mode's table, chart and notes; `say_reading`: its conditions note names the set's power reading
    (once a page: the first mode timed on the GPU says it)."""
    df = ctx.summary(ls, mode)
    if df.empty:
        return None
    rows = records(df)
    v = verdicts.verdict(ls, "article", mode)
    for r in rows:
        r["why_not"] = words.refusal(r["status"], r["reason"], r["needs_cuda"])
        r["fastest"] = v is not None and r["variant"] == v.fastest.variant
        r["thin"] = calls.thin(r["gpu_only_n"])
        r["gpu_only_label"] = method_words.GPU_ONLY_LABEL.get(r["gpu_only_method"]) \
            if r["gpu_only_method"] == "kernel_sum" else None
        r["clock"] = table_words.clock_cell(r, ls.environment.ref_mhz, ls.environment) \
            if r["status"] == "ok" else None
        r["rank"] = v.rank(r["variant"]) if v is not None else None
        r["tie"] = v is not None and r["variant"] in v.same_kernel
    gpu = bool(df["gpu_only_ms"].notna().any())
    # one variant timed: its row in the table below says it (charts.drawn)
    spec = charts.drawn(charts.gpu_time(df, words.call_of(mode))) if gpu else None
    chart = chart_div(spec, f"GPU-only time per variant, {mode}", summary_command(ls.name, mode)) \
        if spec is not None else None
    methods = frozenset(m for m in df["gpu_only_method"] if isinstance(m, str))
    notes = table_words.timing_notes(mode, gpu, _min_samples(rows, "eager_n"), _min_samples(rows, "host_n"),
                                     ls.config.error_draws, methods)
    if gpu:
        notes = [*notes, table_words.conditions_note(rows, per_variant=True, env=ls.environment,
                                                     say_reading=say_reading), *table_words.fidelity_lines(rows)]
    anomalies = [w.words for w in ctx.findings(ls)
                 if w.finding.kind == FindingKind.ANOMALY and w.finding.mode == mode]
    split = training.view(fwdbwd.run_rows(ls.rs), mode, summary_command(ls.name, mode)) \
        if mode == Mode.TRAIN and ls.measured else None
    return dict(mode=mode, gpu=gpu, call=words.call_of(mode), rows=rows, chart=chart, notes=notes, split=split,
                reference=ls.kind == "reference", anomalies=anomalies, windows=_windows(ls, mode),
                speedup_basis=("GPU-only; †: both kernel sums, naive's and the row's times being of two kinds" if any(
                    bool(r.get("speedup_kernel_sums")) for r in rows) else "GPU-only") if gpu else "wall time",
                host_bound=[r for r in rows if r["host_bound"]],
                host_noise=[dict(r, host_words=_host_words(v, r)) for r in rows
                            if r.get("host_bound_outcome") == rules.WITHIN_NOISE],
                host_speed_lead=host_words.HOST_SPEED_LEAD, host_bound_consequence=method_words.HOST_BOUND_CONSEQUENCE)


def _host_words(v, r: dict) -> str:
    """A summary row's host line (host_words.host_ratio_words), from the verdict's row where it ranks one, so the
    set page and the verdict give one value per quantity."""
    t = v.row(r["variant"]) if v is not None else None
    if t is not None and t.gpu_only is not None:
        return host_words.host_ratio_words(t.eager_over_gpu_only, t.eager_ratio_ci, t.host_noise_why,
                                           t.host_cost_ms, t.gpu_only.median, t.host_ref_ms,
                                           t.host.median if t.host and t.host.n else None)
    gpu, eager = r.get("gpu_only_ms"), r.get("eager_ms")
    ratio = eager / gpu if not (missing(gpu) or missing(eager)) and gpu else None
    return host_words.host_ratio_words(ratio, None, None, r.get("host_cost_ms"), None if missing(gpu) else gpu,
                                       r.get("host_ref_ms"), r.get("host_ms"))


def _own_pages(ctx: Context, ls, page: str) -> list[dict]:
    """The set's own pages beyond this one (gen.report.units), as title and link."""
    out = [dict(title="Findings", link=fmt.relpath(fmt.set_subpage(ls.name, "findings"), page))]
    if kernel_story.has_page(ls):
        out.append(dict(title=kernel_story.TITLE, link=fmt.relpath(kernel_story.page(ls.name), page)))
    if scaling_pages.has_page(ls):
        out.append(dict(title="Scaling", link=fmt.relpath(fmt.set_subpage(ls.name, "scaling"), page)))
    partner = compare.partner(ls, ctx.sets, ctx.first)
    if ctx.first is not None and ctx.first is not ls and partner is not None and partner is not ls \
            and compare_pages.useful(ctx, partner, ls):
        out.append(dict(title=f"Compared with {fmt.set_title(partner)}",
                        link=fmt.relpath(fmt.set_subpage(ls.name, "compare"), page)))
    return out


def published_view(ls) -> dict | None:
    """A reference set's figures at its own points: the shapes in one line and one row per figure."""
    if ls.kind != "reference":
        return None
    pub = scenarios.published_frame(ls)
    if pub.empty:
        return None
    rows = records(pub)
    for r in rows:
        r["label"] = scenario_words.point_label(r, bool(r["q_len"] == 1 and r["kv_len"] > 1), True)
        r["name"] = published_words.anchor_name(r["variant"])
    return dict(shape=published_words.published_shape(scenarios.source_shapes(pub)), rows=rows,
                dtypes=sorted({rec.dtype for rec in ls.outline.scenarios if rec.dtype}),
                conventions=sorted({c for c in pub["published_convention"] if isinstance(c, str)}),
                notes=scenario_set.source_notes(pub["note"]),
                ours=scenarios.FLOP_CONVENTION)


def _windows(ls, mode: str) -> dict | None:
    """Every timed window's conditions per run (schema.Window order), where any was recorded."""
    rows = []
    for run in ls.rs.runs:
        if run.mode == mode and run.scenario == "article" and run.status == "ok":
            windows, why = timings.window_conditions(run.timing)  # not the run's times: only its windows
            rows.append(dict(label=fmt.label_of(run.variant),
                             cells=[table_words.conditions_cell(timings.window(windows, why, w).__dict__,
                                                                env=ls.environment)
                                    for w in Window]))
    if not any(c != table_words.NOT_RECORDED for r in rows for c in r["cells"]):
        return None
    return dict(heads=[WINDOW_HEADS[w] for w in Window], rows=rows)


WINDOW_HEADS = {Window.GPU_ONLY: "GPU-only (graph replays)", Window.EAGER: "Eager loop", Window.HOST: "Host dispatch",
                Window.BURST: "Burst from idle", Window.KERNEL_SUM: "Profiled calls (kernel sum)"}


def _host_speed(ls) -> str | None:
    ref = timings.host_reference(ls.rs)
    return method_words.host_speed(ref.median_ms, ref.p10_ms, ref.p90_ms, ref.n) if ref else None


def description(ls, decision: dict | None) -> str:
    """The page's description (a shared link's preview): what to call there, else what the set is."""
    if decision:
        return decision["decision"]
    if ls.kind == "reference":
        return f"{fmt.set_title(ls)}: published figures, not measured here, beside the sets measured for this report."
    return f"{fmt.set_title(ls)}: every attention variant's time, kernels and memory in this result set."


def set_view(ctx: Context, ls) -> dict:
    page = fmt.set_page(ls.name)
    modes: list[dict] = []
    for mode in Mode:
        m = mode_view(ctx, ls, mode, say_reading=not any(x["gpu"] for x in modes))
        if m:
            modes.append(m)
    decision = verdict.decision(ls, ctx.lengths_beside) if ls.measured else None
    first = first_screen.view(first_screen.facts(ls, ctx.lengths_beside)) if ls.measured else None
    # what the capture left out, beside its answer: under the first screen's table, else in the decision's box
    if first:
        first = verdict.with_capture(first, ctx, ls, across=False)
    elif decision:
        decision = verdict.with_capture(decision, ctx, ls, across=False)
    # pictures first: where the set opens with its decision's chart and table, its first mode's
    # chart and table (the numbers the verdicts quote) come next, before the verdicts' words; the other modes after
    up_front = 1 if first else 0
    return dict(ls=ls, modes=modes, first_modes=modes[:up_front], later_modes=modes[up_front:],
                what_to_call=home_words.WHAT_TO_CALL,
                scenarios=scenario_pages.set_links(ctx, ls, page), verdicts=verdict.set_blocks(ls),
                not_reached=capture_words.not_reached(ls.gaps, {s.name: s.title for s in ls.outline.scenarios})
                if ls.measured else None,
                variant_pages={r.variant: fmt.relpath(fmt.set_variant_page(ls.name, r.variant), page)
                               for r in ls.rs.runs},
                own_pages=_own_pages(ctx, ls, page), published=published_view(ls),
                # once a page, under the last mode's host-bound outcomes, where any mode has some
                host_speed=_host_speed(ls) if any(m["host_bound"] or m["host_noise"] for m in modes) else None,
                decision=decision, description=description(ls, decision), first=first)


def set_pages(ctx: Context, ls) -> Iterator[Page]:
    page = fmt.set_page(ls.name)
    text = ctx.template("set.md.j2").render(here=page, **set_view(ctx, ls))
    yield Page(page, text, nav=("Result sets", fmt.set_title(ls)))


def facts(ctx: Context, ls) -> dict:
    """The summary table per mode: the pages over all sets read it instead of the traces."""
    return {mode: ctx.summary(ls, mode) for mode in Mode}


def host_reference(ctx: Context, ls) -> timings.HostReference | None:
    """The set's reference call (timings.host_reference), for the list of sets: a fact of the set."""
    return timings.host_reference(ls.rs)


def build(ctx: Context) -> Iterator[Page]:
    index = f"{fmt.GENERATED}/sets/index.md"
    refs = {ls.name: ctx.fact(ls, "host_reference") for ls in ctx.sets}
    text = ctx.template("sets_index.md.j2").render(
        here=index, sets=ctx.sets, skipped=ctx.skipped,
        host_speed={name: words.duration_us(r.median_ms * 1e3) if r else None for name, r in refs.items()})
    yield Page(index, text, nav=("Result sets", "Result sets"))
