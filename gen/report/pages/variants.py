"""The variants: an index, one page per variant over every set (its code and a compact
table of the sets), one page per set and variant (its kernels, timeline and counters),
and the raw traces they link.

Takes: a `site.Context`. Gives: `build(ctx)` (the index and the pages over every set,
from each set's facts), `set_pages(ctx, ls)` (the set's page of each of its variants),
`facts(ctx, ls)` (per variant and mode: its standing in the set's verdict and its
kernels' short names), `trace_files(ctx)`; the view model of one mode of a set's
variant, `tab_view(ctx, ls, variant, mode, page)`: the summary row, the hypothesis
check, the findings in words, the compiled kernels, the training comparison, the kernel
table, the occupancy facts with their words, the timeline; and the variant's kernels in
each scenario (pages.scenarios.variant_kernels).
Templates: variants_index.md.j2, variant.md.j2 (+ _scenario_kernels.md.j2).
"""

from __future__ import annotations

from collections.abc import Iterator

from gen.analysis import counters, first_calls, lessons, tables, verdicts
from gen.analysis.findings import FindingKind
from gen.analysis.values import missing, variant_order, variant_role
from gen.model import variants
from gen.model.schema import Mode
from gen.report import charts, site
from gen.report import format as fmt
from gen.report.pages import scenarios as scenario_pages
from gen.report.site import Context, Page, capped, chart_div
from gen.report.words import common as words
from gen.report.words import findings as finding_words
from gen.report.words import kernels as kernel_words
from gen.report.words import lessons as lesson_words
from gen.report.words import methodology as method_words
from gen.report.words import tables as table_words

# Kinds with their own paragraph on the variant page, not in its findings list.
OWN_PARAGRAPH = frozenset({FindingKind.COMPILE, FindingKind.AUTOGRAD})


def _one(ctx: Context, what: tuple, df, variant: str) -> dict | None:
    """The first row of `df` (a frame the context keeps, named by `what`) of the variant, as a dict of
    its own: the frame is read into rows once per set, not masked once per variant and mode."""
    def first_rows() -> dict:
        out: dict = {}
        for r in (df.to_dict("records") if not df.empty else []):
            out.setdefault(r["variant"], r)
        return out

    row = ctx._once(("first row by variant", *what), first_rows).get(variant)
    return dict(row) if row is not None else None


def _hypothesis(ctx: Context, ls, v: str, mode: str) -> dict | None:
    if mode != Mode.INFERENCE or v not in variants.VARIANTS:
        return None
    h = _one(ctx, ("hypotheses", ls.name, mode), ctx.hypotheses(ls, mode), v)
    if h:
        h["note"] = finding_words.hypothesis_note(h)
        h["rank_range"] = not missing(h["rank_lo"]) and h["rank_lo"] != h["rank_hi"]
        for k in ("expected_backend", "measured_backend"):  # the frame's NaN where a variant pins no backend
            h[k] = None if missing(h.get(k)) else h[k]
    return h


def _findings(ctx: Context, ls, v: str, mode: str) -> list[dict]:
    out = []
    for w in ctx.findings(ls):
        if w.finding.variant == v and w.finding.mode == mode and w.finding.kind not in OWN_PARAGRAPH:
            shown, more = capped(list(w.finding.kernels), site.MAX_LINKS)
            out.append(dict(title=w.words.title, severity=w.finding.severity, text=w.words.text, kernels_more=more,
                            kernels=[dict(index=i, anchor=ctx.kernel_anchor(ls.name, v, mode, i)) for i in shown]))
    return out


def _train(ctx: Context, ls, v: str) -> dict | None:
    t = _one(ctx, ("train", ls.name), ctx.train(ls), v)
    if t:
        t.update(rule=method_words.HOST_BOUND_RULE, consequence=method_words.HOST_BOUND_CONSEQUENCE)
    return t


def _autograd(ls, v: str) -> dict | None:
    check = tables.inplace_autograd(ls)
    if v != variant_role("inplace") or check is None:
        return None
    return dict(claim=method_words.AUTOGRAD_CLAIM, outcome=check.outcome,
                detail=finding_words.autograd_outcome(check.outcome, check.max_abs_grad_diff),
                why=method_words.AUTOGRAD_WHY_MATCH if check.outcome == "gradients match" else None)


def _generated(ctx: Context, ls, v: str, mode: str, run) -> dict | None:
    """Inductor's Triton kernels of a compiled variant, the library kernels it still
    calls, and the baseline's GPU events they stand in for."""
    if run.compile_time_s is None:
        return None
    # The rows are shared (tables.kernel_rows): read only.
    rows = tables.kernel_rows(ls, v, mode)
    if not rows:
        return None
    link = lambda k: dict(index=k["index"], short_name=k["short_name"], name=k["name"], dur_us=k["dur_us"],  # noqa: E731
                          anchor=ctx.kernel_anchor(ls.name, v, mode, k["index"]))
    base = variant_role("baseline")
    triton = [k for k in rows if k["name"].startswith("triton_")]
    library = [k for k in rows if not k["name"].startswith("triton_") and k["kind"] == "kernel"]
    replaced = tables.replaced_kernels(ls, v, base, mode)["short_name"].tolist() if ls.rs.run(base, mode) else []
    return dict(triton=[link(k) for k in triton[:site.MAX_LINKS]], triton_n=len(triton),
                library=[link(k) for k in library[:site.MAX_LINKS]],
                library_more=max(0, len(library) - site.MAX_LINKS), baseline=base,
                replaced=replaced[:site.MAX_LINKS], replaced_n=len(replaced))


def _occupancy(ls, v: str, mode: str) -> list[dict]:
    return [dict(n, head=kernel_words.occupancy_head(n), explanation=kernel_words.occupancy_explanation(n))
            for n in tables.occupancy_facts(ls, v, mode)]


def _standing(ctx: Context, ls, v: str, mode: str, row: dict | None) -> dict | None:
    """Where the variant stands in the set's verdict: its rank, fastest or not, host-bound or not."""
    verdict = verdicts.verdict(ls, "article", mode)
    if verdict is None or v not in verdict.ranking:
        return None
    return dict(rank=verdict.rank(v), of=len(verdict.ranking), basis=method_words.TIMING[verdict.basis],
                fastest=verdict.fastest.variant == v, host_bound=bool(row and row["host_bound"]),
                tie=tuple(words.label(x) for x in (verdict.fastest.variant, *verdict.same_kernel)
                          if v in (verdict.fastest.variant, *verdict.same_kernel) and x != v))


def _lessons(ctx: Context, ls, v: str, mode: str) -> dict | None:
    """The article's lessons that belong on this variant's page, its claims, and why its hypothesis was contradicted."""
    found = lessons.lessons(ls) if mode == Mode.INFERENCE else None
    if found is None:
        return None
    items = []
    for fact in found.for_variant(v):
        w = lesson_words.lesson(fact)
        shown, more = capped([k for k in w.kernels if k.variant == v], site.MAX_LINKS)
        links = [dict(index=k.index, anchor=ctx.kernel_anchor(ls.name, k.variant, k.mode, k.index)) for k in shown]
        items.append(dict(title=w.title, text=w.text, kernels=links, kernels_more=more))
    claims = [lesson_words.claim(c) for c in found.claims if c.variant == v]
    why = [lesson_words.explanation(e) for e in ctx.explanations(ls, v)]
    return dict(found=items, claims=claims, explanations=why) if items or claims or why else None


def _times(ls, row: dict | None) -> dict | None:
    """How the GPU-only time was taken, and why it is a kernel sum or missing (words)."""
    if row is None or not ls.measured or ls.environment.device != "cuda":
        return None
    return dict(label=method_words.GPU_ONLY_LABEL.get(row["gpu_only_method"]),
                note=table_words.gpu_only_note(row["gpu_only_method"], row["gpu_only_reason"], row["gpu_only_absent"]))


def _counters(ls, v: str, mode: str, kernels: list[dict], notes: list[dict]) -> dict:
    """Nsight Compute's counters beside the kernel rows and the occupancy notes, or why there are none."""
    m = counters.for_run(ls, mode, v)
    for row in kernels + notes:
        row["counters"] = None
    if not m.measured:
        why = m.absent.value if m.absent else "unmatched"
        return dict(measured=False, note=kernel_words.counters_absent(why, m.reason), mismatches=[])
    # The match's rows, copied (records of its frame before: the same values to the type, test).
    by_index = {int(r["index"]): dict(r) for r in m.rows}
    for k in kernels:
        c = by_index.get(int(k["index"]))
        k["counters"] = c if c and c["pairing"] != counters.Pairing.NO_COUNTERS else None
        if k["counters"] is not None:
            k["counters"]["copied_from"] = kernel_words.copied_from(counters.source(c.get("same_as")))
    for n in notes:
        c = by_index.get(int(n["index"]))
        facts = counters.kernel_facts(c) if c else []
        n["counters"] = kernel_words.kernel_facts(facts)
    return dict(measured=True, note=kernel_words.counters_repeated(counters.repeats(m.rows), v, mode),
                mismatches=[kernel_words.counter_mismatch(x) for x in m.mismatches])


def _kernel_rows(kernels: list[dict], with_counters: bool) -> site.RowsHTML:
    """The kernel table's rows (variant.md.j2's layout, one <tr> a line), written here rather than in the
    template (some 25 values a row). Each value of the set or its trace is finalized and escaped as a
    template would (site.hole); a number's formatted text (digits, signs, '.', ',', '%', units, the dash)
    needs neither and is written as it is."""
    h, us, num, dash = site.hole, fmt.us, fmt.num, fmt.DASH
    out = []
    for k in kernels:
        kind = k["kind"]
        row = (f'<tr id="{h(k["anchor"])}" class="kind-{h(kind)}"><td>{h(k["index"])}</td><td class="kernel-name">'
               f'<details><summary title="{h(k["name"])}">{h(k["short_name"])}</summary><code>{h(k["name"])}</code>'
               f'</details></td><td>{us(k["dur_us"])}</td><td>{num(k["occupancy_pct"], ".0f", "%")}</td>')
        if with_counters:
            c = k["counters"]
            if c:
                same = f' <span class="same-as" title="{h(c["copied_from"])}">≡</span>' if c["copied_from"] else ""
                limiter = f' ({h(c["occupancy_limiter"])})' if c["occupancy_limiter"] else ""
                row += (f'<td>{num(c["achieved_occupancy_pct"], ".1f", "%")}{same}</td>'
                        f'<td>{num(c["theoretical_occupancy_pct"], ".1f", "%")}{limiter}</td>'
                        f'<td>{num(c["sm_throughput_pct"], ".0f")}</td><td>{num(c["dram_throughput_pct"], ".0f")}</td>'
                        f'<td>{num(c["tensor_pipe_pct"], ".0f")}</td>')
            else:
                row += "<td>–</td>" * 5
        row += (f'<td title="{h(k["op_path"])}">{h(k["launched_by"] or dash)}</td><td>{h(kind)}</td>'
                f'<td>{h(k["grid"] or dash)}</td><td>{h(k["block"] or dash)}</td>'
                f'<td>{fmt.integer(k["registers_per_thread"])}</td>'
                f'<td>{fmt.size(k["shared_memory"]) if kind == "kernel" else dash}</td>'
                f'<td>{h(k["launch_api"] or dash)}</td><td>{h(k["category"])}</td><td>{us(k["start_us"])}</td></tr>')
        out.append(row)
    return site.RowsHTML("\n".join(out))


def tab_view(ctx: Context, ls, v: str, mode: str, page: str) -> dict:
    run = ls.rs.run(v, mode)
    row = ctx.summary_row(ls, mode, v)
    tab = dict(ls=ls, run=run, row=row, call=words.call_of(mode), kernels=[], chart=None, notes=[], trace=None,
               why_not=words.refusal(run.status, run.reason, bool(row and row["needs_cuda"])),
               hypothesis=_hypothesis(ctx, ls, v, mode), findings=_findings(ctx, ls, v, mode),
               generated=None, train=_train(ctx, ls, v) if mode == Mode.TRAIN else None,
               autograd=_autograd(ls, v) if mode == Mode.TRAIN else None,
               standing=_standing(ctx, ls, v, mode, row), lessons=_lessons(ctx, ls, v, mode),
               times=_times(ls, row), counters=None,
               # Its compile time was a side process's first call (gen.capture.precompile): say so.
               compiled_ahead=(((method_words.COMPILED_AHEAD_SLOWER_TAB if first_calls.own_first_slower(run)
                                 else method_words.COMPILED_AHEAD), method_words.COMPILED_AHEAD_BRIEF)
                               if run.compiled_ahead else None),
               compiled_opener=method_words.COMPILED_OPENER[bool(run.compiled_ahead)],
               # the start-up a user pays, where the capture's own first call outlasted the side process's compile:
               # the summary line leads with it, as the findings do
               startup_s=run.first_call_s if first_calls.own_first_slower(run) else None)
    tr = ls.trace(mode, v) if run.status == "ok" else None
    if tr is None:
        return tab
    tab["generated"] = _generated(ctx, ls, v, mode, run)
    # Bounded whatever the trace holds: the first rows and events, and how many were left out.
    # The shared rows of its kernel table (records of a copy's head before: the same rows, test), each
    # row a new dict: the counters are added to it.
    kt = tables.kernel_rows(ls, v, mode)
    tab["kernels"] = [dict(k, anchor=ctx.kernel_anchor(ls.name, v, mode, k["index"]))
                      for k in kt[:site.MAX_KERNEL_ROWS]]
    tab["kernels_left_out"] = max(0, len(kt) - site.MAX_KERNEL_ROWS)
    tab["kernels_more_anchor"] = ctx.kernel_anchor(ls.name, v, mode, site.MAX_KERNEL_ROWS)
    cpu, gpu = tables.timeline_events(ls, v, mode)
    cpu, gpu, left, until = charts.timeline_window(cpu, gpu, site.MAX_TIMELINE_EVENTS, site.MAX_TIMELINE_DEPTH)
    tab.update(timeline_left_out=left, timeline_until_us=until, timeline_max_depth=site.MAX_TIMELINE_DEPTH,
               timeline_max_events=site.MAX_TIMELINE_EVENTS)
    spec = charts.drawn(charts.timeline_spec(cpu, gpu)) if len(cpu) or len(gpu) else None  # (one event: its row)
    if spec is not None:
        tab["chart"] = chart_div(spec, f"timeline of one {words.call_of(mode)} of {v}")
    tab["notes"] = _occupancy(ls, v, mode)
    if ls.measured:  # a CPU set's tab says it has no GPU, hence no counters
        tab["counters"] = _counters(ls, v, mode, tab["kernels"], tab["notes"])
    tab["kernel_html"] = _kernel_rows(tab["kernels"], bool(tab["counters"] and tab["counters"]["measured"]))
    tab["trace"] = fmt.relpath(fmt.trace_page(ls.name, run.trace), page) if run.trace else None
    tab["trace_bytes"] = (ls.path / run.trace).stat().st_size if run.trace else None
    tab["forwards"] = len(tr.forwards)
    return tab


def _runs(ls) -> list[str]:
    """The variants the set has a run of, in the declared order."""
    return variant_order(r.variant for r in ls.outline.runs)


def _scenario_kernels(ctx: Context, ls, v: str) -> list[dict]:
    """The variant's kernels in each scenario of the set, made once for its page and its facts."""
    page = fmt.set_variant_page(ls.name, v)
    return ctx._once(("scenario_kernels", ls.name, v), lambda: scenario_pages.variant_kernels(ctx, v, page, [ls]))


def set_variant_view(ctx: Context, ls, v: str) -> dict:
    """The page of one variant in one set: each mode it ran in, and its kernels in each scenario."""
    page = fmt.set_variant_page(ls.name, v)
    known = variants.VARIANTS.get(v)
    sections = []
    for mode in Mode:
        if ls.rs.run(v, mode) is not None:
            sections.append(dict(mode=mode, call=words.call_of(mode), tabs=[tab_view(ctx, ls, v, mode, page)]))
    return dict(here=page, name=v, label=fmt.label_of(v), heading=f"{fmt.label_of(v)} · {fmt.set_title(ls)}",
                variant=known, extra=variants.extra_install(known) if known else None, source=None,
                sections=sections, one_set=ls, matrix=None,
                variant_link=fmt.relpath(fmt.variant_page(v), page), set_link=fmt.relpath(fmt.set_page(ls.name), page),
                scenario_kernels=_scenario_kernels(ctx, ls, v))


def set_pages(ctx: Context, ls) -> Iterator[Page]:
    for v in _runs(ls):
        view = set_variant_view(ctx, ls, v)
        yield Page(view["here"], ctx.template("variant.md.j2").render(**view))


def facts(ctx: Context, ls) -> dict:
    """variant -> mode -> its standing in the set's verdict and the short names of its kernels,
    in its profiled call and in each scenario (the page over every set lists them for search,
    once each: the set's own pages are left out of the search index)."""
    out: dict = {}
    for v in _runs(ls):
        for mode in Mode:
            run = ls.rs.run(v, mode)
            if run is None:
                continue
            row = ctx.summary_row(ls, mode, v)
            names = []
            if run.status == "ok" and run.trace:
                names = list(dict.fromkeys(tables.kernel_frame(ls, v, mode)["short_name"]))
            names += [k["short_name"] for g in _scenario_kernels(ctx, ls, v) if g["mode"] == mode for k in g["kernels"]]
            out.setdefault(v, {})[mode] = dict(standing=_standing(ctx, ls, v, mode, row),
                                               kernels=list(dict.fromkeys(names)))
    return out


def matrix_view(ctx: Context, v: str) -> list[dict]:
    """Per mode: one row per set with a run of the variant (its summary row, its standing, the
    link to its page in that set), and every kernel name they list, once."""
    page = fmt.variant_page(v)
    out = []
    for mode in Mode:
        rows, names = [], {}
        lead = {id(ls) for ls in ctx.lead}  # a row per GPU's newest set: the list of result sets has the others
        for ls in ctx.sets:
            run = ls.outline.run(v, mode)
            if run is None:
                continue
            f = ctx.fact(ls, "variants")[v][mode]
            names.update(dict.fromkeys(f["kernels"]))  # every set's kernel names, once: search finds the page
            if id(ls) not in lead:
                continue
            row = ctx.summary_row(ls, mode, v)
            rows.append(dict(ls=ls, run=run, row=row, standing=f["standing"],
                             why_not=words.refusal(run.status, run.reason, bool(row and row["needs_cuda"])),
                             link=fmt.relpath(fmt.set_variant_page(ls.name, v), page)))
        if rows:
            out.append(dict(mode=mode, call=words.call_of(mode), rows=rows, kernel_names=list(names),
                            per="forward" if mode == Mode.INFERENCE else "step",
                            gpu=any(r["row"] and not missing(r["row"]["gpu_only_ms"]) for r in rows)))
    return out


def variant_view(ctx: Context, v: str) -> dict:
    page = fmt.variant_page(v)
    known = variants.VARIANTS.get(v)
    return dict(here=page, name=v, label=fmt.label_of(v), heading=fmt.label_of(v), variant=known,
                extra=variants.extra_install(known) if known else None,
                source=variants.source(known) if known else None, sections=[], one_set=None,
                matrix=matrix_view(ctx, v), scenario_kernels=[], left_out=ctx.left_out)


def build(ctx: Context) -> Iterator[Page]:
    index = f"{fmt.GENERATED}/variants/index.md"
    vs = [dict(name=v, label=fmt.label_of(v), variant=variants.VARIANTS.get(v),
               extra=variants.extra_install(variants.VARIANTS[v]) if v in variants.VARIANTS else None)
          for v in ctx.variant_names]
    yield Page(index, ctx.template("variants_index.md.j2").render(here=index, variants=vs),
               nav=("Variants", "Variants"))
    for v in ctx.variant_names:
        view = variant_view(ctx, v)
        yield Page(view["here"], ctx.template("variant.md.j2").render(**view), nav=("Variants", fmt.label_of(v)))


def trace_files(ctx: Context) -> Iterator[Page]:
    """The raw traces of the pages, copied so that each variant page links its own."""
    for ls in ctx.sets:
        for run in ls.outline.runs:
            if run.trace and run.status == "ok":
                yield Page(fmt.trace_page(ls.name, run.trace), copy_from=ls.path / run.trace)
