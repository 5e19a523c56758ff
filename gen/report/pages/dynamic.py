"""The dynamic-lengths scenario: one page per measured set that ran it (what each variant's first call
at a new prompt length and at each decode step of a growing cache costs, its steady cost, the calls per
length to break even, the environment switch probed), and one page over all sets in the Scenarios section.

Takes: a `site.Context`. Gives: `set_pages(ctx, ls)`, `facts(ctx, ls)` (each phase's headline, for the
page over all sets), `build(ctx)` (that page), `page(name)` / `set_page(set_name)` and `index_row(ctx)` (the
scenarios index's row). Numbers from gen.analysis.dynamic, words from gen.report.words.dynamic, charts from
gen.report.charts. Template: dynamic_page.md.j2.
"""

from __future__ import annotations

from collections.abc import Iterator

from gen.analysis import dynamic as dyn
from gen.analysis import recompiles, rules
from gen.model import scenarios as declared
from gen.report import charts
from gen.report import format as fmt
from gen.report.pages import scenario_paths
from gen.report.site import Context, Page, chart_div
from gen.report.words import capture as capture_words
from gen.report.words import compiles as compile_words
from gen.report.words import decision as decision_words
from gen.report.words import dynamic as dynamic_words
from gen.report.words import lengths_beside as lengths_words
from gen.report.words import scenario_first as first_words
from gen.report.words import scenarios as scenario_words

NAME = declared.DYNAMIC
PAGE = f"{fmt.GENERATED}/scenarios/{fmt.slug(NAME)}.md"


def set_page(set_name: str) -> str:
    return fmt.set_scenario_page(set_name, NAME)


def title(ctx: Context) -> str:
    for ls in ctx.sets:
        got = dyn.scenario_title(ls.rs) if ls.measured else None
        if got:
            return got
    s = declared.SCENARIOS.get(NAME)
    return s.title if s else NAME


# A run whose first calls hit another run's cached plans measured no first-call cost
CACHE_HITS = "not a cost estimate (plan-cache hits)"


def _row(f: dyn.DynamicFacts, pf: dyn.PhaseFacts) -> dict:
    best = pf.steady_best is not None and f.variant == pf.steady_best.variant
    against = (CACHE_HITS if pf.cache_warmed(f.variant) else "fastest once warm" if best else
               dynamic_words.per_length(pf.per_length.get(f.variant, ())))
    return dict(label=dynamic_words.label(f.variant), lengths=f.lengths, first_median_ms=f.first_median_ms,
                first_overhead_ms=f.first_overhead_ms, steady_ms=f.steady_ms, gpu_ms=f.gpu_median_ms,
                warmup=dynamic_words.warmup(f), break_even=against, best=best)


def _beside(pf: dyn.PhaseFacts, phase: str, beside) -> dict:
    """Where the set measured no length, what its sibling set (same GPU model and PyTorch; Context.lengths_beside)
    measured in this phase, and a link to that set's page of it (the set page cited it,
    this page said only "Nothing measured")."""
    if pf.measured or beside is None or phase not in {p.phase for p in beside.phases}:
        return {}
    return dict(beside=lengths_words.lengths_beside(beside, decision_words.PHASE_WORDS, phases=(phase,)),
                beside_page=set_page(beside.name), beside_title=beside.title)


def phase_view(ls, phase: str, beside=None) -> dict:
    """One phase's view; `beside`: Context.lengths_beside, cited where the set measured no length."""
    pf = dyn.phase_facts(ls.rs, phase)
    rows = dyn.length_rows(ls.rs, phase)
    # (one length a variant: the table below says it, charts.drawn)
    spec = charts.drawn(charts.dynamic_lengths(rows, dynamic_words.PHASE_AXIS.get(phase, "length (tokens)"))) \
        if rows else None
    chart = chart_div(spec, f"first and steady call against length, {phase}") if spec else None
    costs = dyn.new_length_rows(pf)
    axis = dynamic_words.PHASE_AXIS.get(phase, "length (tokens)")
    cost = charts.drawn(charts.new_length_cost(costs, axis, first_words.NEW_LENGTH_AXIS,
                                               [r["variant"] for r in rows])) if costs else None
    p = next((r.point for r in ls.rs.dynamic if r.phase == phase), None)
    return dict(
        # no length measured: one line and why, in place of empty tables
        nothing=None if pf.measured else capture_words.nothing_measured(pf.not_measured, p, dynamic_words.label),
        **_beside(pf, phase, beside),
        phase=phase, title=dynamic_words.PHASE_TITLE.get(phase, phase), chart=chart,
        cost_chart=chart_div(cost, f"what each new length cost against length, {phase}") if cost else None,
        cost_note=first_words.new_length_note(sum(1 for r in costs if not r["ms"] > 0),
                                              [dynamic_words.label(w.variant) for w in pf.warm_cache]),
        headline=dynamic_words.headline(pf), advice=dynamic_words.advice(pf),
        notes=[n for n in (dynamic_words.host_note(pf), dynamic_words.mask_note(pf),
                           dynamic_words.gpu_missing(pf), _recompiled(ls, phase)) if n],
        example=dynamic_words.break_even_example(pf), warmup_factor=f"{rules.WARMUP_FACTOR:g}",
        noise_us=f"{rules.NEW_LENGTH_NOISE_MS * 1e3:.0f}", loop_noise=f"{rules.LOOP_CALL_NOISE:.0%}",
        best=dynamic_words.label(pf.steady_best.variant) if pf.steady_best else None,
        rows=[_row(f, pf) for f in pf.measured],
        not_measured=dynamic_words.not_measured(pf.not_measured),
        lengths=", ".join(f"{n:,}" for n in (pf.measured[0].kv_lens if pf.measured else ())),
        shape=(f"batch {p.batch}, {p.q_heads} query heads and {p.kv_heads} KV heads, head dim {p.head_dim}, "
               f"{'causal' if p.mask == 'causal' else 'no mask'}" + (", one query a step" if p.q_len == 1 else ""))
        if p else None,
    )


def _recompiled(ls, phase: str) -> str | None:
    """What differed where a compiled call compiled again at the phase's first length."""
    recs = [r for r in recompiles.recompiles(ls.rs) if r.phase == phase]
    return compile_words.recompiled(recs, dynamic_words.PHASE_WHERE.get(phase, phase))


def set_view(ctx: Context, ls) -> dict:
    return ctx._once(("dynamic view", ls.name), lambda: dict(
        ls=ls, phases=[phase_view(ls, ph, ctx.lengths_beside) for ph in dyn.phases(ls.rs)],
        switches=[dict(name=s.name, sentence=dynamic_words.switch_sentence(s), pairs=s.pairs,
                       variant=dynamic_words.label(s.variant) if s.variant else None)
                  for s in dyn.switch_facts(ls.rs)],
        dtype=(ls.outline.scenario(NAME).dtype if ls.outline.scenario(NAME) else None)))


def set_pages(ctx: Context, ls) -> Iterator[Page]:
    if not ls.measured or not dyn.has_dynamic(ls.rs):
        return
    here = set_page(ls.name)
    why = scenario_words.why(declared.SCENARIOS[NAME].why) if NAME in declared.SCENARIOS else None
    yield Page(here, ctx.template("dynamic_page.md.j2").render(
        here=here, title=title(ctx), one_set=ls, why=why, scenario_link=fmt.relpath(scenario_paths.INDEX, here),
        summary=None,
        sets=[set_view(ctx, ls)]))


def facts(ctx: Context, ls) -> dict:
    """phase -> its headline, for the page over all sets (empty where the set did not run the scenario)."""
    if not ls.measured or not dyn.has_dynamic(ls.rs):
        return {}
    return {v["phase"]: dict(title=v["title"], headline=v["headline"], short=dynamic_words.short(v["headline"]))
            for v in set_view(ctx, ls)["phases"]}


def _summary(ctx: Context) -> list[dict]:
    out = []
    for ls in ctx.sets:
        got = ctx.fact(ls, "dynamic") if ls.measured else None
        if got:
            out.append(dict(ls=ls, link=fmt.relpath(set_page(ls.name), PAGE), phases=list(got.values())))
    return out


def link(ctx: Context) -> str | None:
    """Where a link to this scenario leads: its page over every set, or the one set's own page where one set ran
    it (scenario_paths.over_sets)."""
    return scenario_paths.over_sets([r["ls"] for r in _summary(ctx)], PAGE, lambda ls: set_page(ls.name))


def index_row(ctx: Context) -> dict | None:
    """The scenarios index's row for this scenario, where a set ran it."""
    rows = _summary(ctx)
    if not rows:
        return None
    lead = rows[0]
    first = next((p for p in lead["phases"] if p["headline"]), None)
    return dict(here=PAGE, link=link(ctx), title=title(ctx),
                shape="new prompt lengths, then decode steps with a growing KV cache",
                lead=dict(ls=lead["ls"], headline=first["short"], versus_short=None) if first else None,
                others=len(rows) - 1)


def build(ctx: Context) -> Iterator[Page]:
    rows = _summary(ctx)
    if link(ctx) != PAGE:  # no set ran it, or one: the index links that set's page instead
        return
    why = scenario_words.why(declared.SCENARIOS[NAME].why) if NAME in declared.SCENARIOS else None
    yield Page(PAGE, ctx.template("dynamic_page.md.j2").render(here=PAGE, title=title(ctx), one_set=None, why=why,
                                                              summary=rows, sets=[]),
               nav=("Scenarios", title(ctx)))
