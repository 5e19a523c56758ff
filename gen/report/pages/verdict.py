"""The verdict blocks: "which attention here, and why", for the first screen of
the home page and of each set page.

Takes: a `site.Context`. Gives: `block(ls, scenario, mode)` (the view model of
one verdict: its words from gen.report.words.verdicts and the facts the page
marks in data attributes, so tests read every page's verdict the same way),
`set_blocks(ls)` (one per scenario of a set, the article's first), `decision(ls)`
(the first screen: what to call and why, gen.analysis.advice worded), `facts(ctx, ls)`
(a set's blocks, its decision and headline, and per scenario its fastest variant for the
heat map of the matrix, gen.report.charts.fastest_map) and `build(ctx)`: the home page's
partials generated/.first.md (the first measured GPU set's decision as a chart and a table:
the page opens with it) and generated/.verdict.md (after the map and the headline chart of
.home.md: that set's decision in words, short, and its verdicts folded; each other measured
set's decision in a line; the heat map above it has them all).
Templates: _decision_first.md.j2, verdict.md.j2 (and verdict_block.md.j2, which set.md.j2 includes).
"""

from __future__ import annotations

from collections.abc import Iterator

from gen.analysis import advice, capture_gaps, launches, timings, unmeasured, verdicts
from gen.model.schema import Mode, SetKind
from gen.report import format as fmt
from gen.report.pages import decision as first_screen
from gen.report.site import Context, Page
from gen.report.words import capture as capture_words
from gen.report.words import decision as decision_words
from gen.report.words import home as home_words
from gen.report.words import methodology as method_words
from gen.report.words import orders as orders_words
from gen.report.words import verdicts as verdict_words
from gen.report.words.common import each_median_interval

HOME_PARTIAL = f"{fmt.GENERATED}/.verdict.md"
HOME_FIRST = f"{fmt.GENERATED}/.first.md"  # the first screen: the decision as a chart and a table (docs/index.md)


def _scenario_title(ls, scenario: str) -> str:
    rec = ls.outline.scenario(scenario)
    return rec.title if rec else scenario


def block(ls, scenario: str = "article", mode: str = Mode.INFERENCE) -> dict | None:
    """One verdict, ready to lay out; None when the set has none (a reference set, nothing timed)."""
    v = verdicts.verdict(ls, scenario, mode)
    if v is None:
        return None
    w = verdict_words.verdict(v, launches.verdict_launches(ls, v))
    return dict(set=ls.name, set_title=fmt.set_title(ls), scenario=scenario,
                scenario_title=_scenario_title(ls, scenario),
                point=verdict_words.point_label(verdicts.point_of(ls, scenario, mode)), mode=str(mode),
                headline=w.headline, lines=w.lines, reasons=w.reasons,
                fastest=w.fastest, fastest_label=w.fastest_label, fastest_ms=f"{w.fastest_ms:.6g}", basis=w.basis,
                runner_up=v.runner_up.variant if v.runner_up else "", settled=v.settled,
                host_bound=" ".join(v.host_bound), noisy=bool(v.noise),
                auto_backend=(v.auto.backend or v.auto.kernel_backend or "") if v.auto else "")


def decision(ls, lengths_beside=None) -> dict | None:
    """The first screen of a set: the decision and its reason, then one line per exception,
    start-up and host; None for a set with nothing ranked. `lengths_beside`: what a set of the same GPU model and
    PyTorch measured of cuDNN at new lengths (Context.lengths_beside), cited where this set measured none."""
    a = advice.advice(ls)
    if a is None:
        return None
    w = decision_words.advice(a, lengths_beside)
    fa4 = verdict_words.fa4_missing_line([x.variant for x in unmeasured.absent_fa4(ls.rs, ())])
    units = verdicts.ranked_units(ls)
    return dict(set=ls.name, set_title=fmt.set_title(ls), decision=w.decision,
                head=home_words.head(w.sentences), rest=home_words.rest(w.sentences),
                rest_title=home_words.rest_title(w.sentences),
                intervals=each_median_interval(units), units=units, rounds=timings.has_rounds(ls.rs),
                lines=[*w.lines, *([fa4] if fa4 else [])],
                default=w.default,
                exceptions=" ".join(f"{e.scenario}:{e.variant}" for e in a.exceptions))


def capture_lines(ctx: Context, ls, across: bool = True) -> list[str]:
    """Beside a set's answer: the optional packages its capture did not have, what
    its time limit left out, and (`across`: the home page, made over every set) each other set of the same GPU model
    and PyTorch that answers otherwise, and why. A set's own page is made from that set alone (its cache key)."""
    def answer(x):
        return ((ctx.fact(x, "verdict") or {}).get("decision") or {}).get("default") if x.measured else None

    mine = answer(ls) if across else None
    others = [(fmt.set_title(o), a, o.gaps, mine) for o, a in capture_gaps.different_answers(ctx.sets, ls, answer)] \
        if across else []
    return capture_words.lines(ls.gaps, {s.name: s.title for s in ls.outline.scenarios}, others)


def with_capture(view: dict | None, ctx: Context, ls, across: bool = True) -> dict | None:
    """A first screen (or a decision) with `capture_lines` beside its answer."""
    return dict(view, capture=capture_lines(ctx, ls, across)) if view else None


def set_blocks(ls) -> list[dict]:
    """The verdict of each scenario of a set that has one, the article's first."""
    return [b for b in (block(ls, s) for s in verdicts.scenarios(ls)) if b]


def fastest_rows(ls) -> list[dict]:
    """Per scenario with a verdict (inference): the fastest variant and how sure, for the
    heat map of the matrix (gen.report.charts.fastest_map)."""
    rows = []
    env = ls.environment
    for scenario in verdicts.scenarios(ls):
        v = verdicts.verdict(ls, scenario, Mode.INFERENCE)
        if v is None:
            continue
        spread = v.spread(v.fastest)
        o, why = verdicts.first_pair(v)
        ratio, by = o.answer if o is not None else (v.ratio, None)
        rows.append(dict(set=ls.name, set_title=fmt.set_title(ls), gpu=env.gpu_name or "CPU",
                         torch=fmt.set_title(ls).split(" · ", 1)[-1], scenario=scenario,
                         scenario_title=_scenario_title(ls, scenario),
                         point=verdict_words.point_label(verdicts.point_of(ls, scenario, Mode.INFERENCE)),
                         fastest=v.fastest.variant, fastest_label=fmt.label_of(v.fastest.variant),
                         fastest_ms=spread.median if spread else None, basis=method_words.TIMING[v.basis],
                         runner_up=fmt.label_of(v.runner_up.variant) if v.runner_up else None,
                         ratio=ratio, ratio_by=orders_words.MEASURE.get(by, "–"), settled=v.settled,
                         sure=orders_words.map_state(v.settled, o, why, spread,
                                                     v.spread(v.runner_up) if v.runner_up else None,
                                                     label=fmt.label_of),
                         near=", ".join(fmt.label_of(n) for n in v.near),
                         tie=", ".join(fmt.label_of(n) for n in v.same_kernel)))
    return rows


def facts(ctx: Context, ls) -> dict:
    """What the home page reads of a set: its verdicts, its article verdict (a line when it is
    not the first set), its decision, and per scenario its fastest variant for the heat map."""
    return dict(blocks=set_blocks(ls), line=block(ls), decision=decision(ls, ctx.lengths_beside),
                fastest=fastest_rows(ls),
                first=first_screen.facts(ls, ctx.lengths_beside))


def home_view(ctx: Context) -> dict:
    measured = [ls for ls in ctx.sets if ls.kind == SetKind.MEASURED]
    gpu = [ls for ls in measured if ls.environment.device == "cuda"]
    first = gpu[0] if gpu else (measured[0] if measured else None)
    facts = {ls.name: ctx.fact(ls, "verdict") for ls in measured}
    main = facts[first.name]["blocks"] if first else []
    others = []
    lead = {id(ls) for ls in ctx.lead}  # a line per GPU's newest set, however many sets: the list has the rest
    for ls in measured:
        b = facts[ls.name]["line"]
        if ls is not first and b and id(ls) in lead:
            others.append(dict(b, decision=facts[ls.name]["decision"], capture=capture_lines(ctx, ls)))
    decided = facts[first.name]["decision"] if first else None
    # the lines beside the answer: under the first screen's table (the decision's chart and table open the page)
    return dict(main=main, main_set=first, others=others,
                first=decided, first_screen=with_capture(first_screen.view(facts[first.name]["first"]), ctx, first)
                if first else None,
                left_out=ctx.left_out, what_to_call=home_words.WHAT_TO_CALL)


def build(ctx: Context) -> Iterator[Page]:
    here = "index.md"  # links resolve from the page that includes the partial
    view = home_view(ctx)
    # the pictures first: the decision's chart and table open the page, the map and the
    # headline chart follow (.home.md), then this partial's words, short, the argument folded (docs/index.md)
    first = ctx.template("_decision_first.md.j2").render(f=view["first_screen"]) if view["first_screen"] else ""
    yield Page(HOME_FIRST, first)
    yield Page(HOME_PARTIAL, ctx.template("verdict.md.j2").render(here=here, **view))
