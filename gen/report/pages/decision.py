"""The first screen of a measured set, on its page and on the home page: a chart of the decision and
a compact table of it, before any sentence.

Takes: a loaded measured set, its verdicts (gen.analysis.verdicts) and its advice
(gen.analysis.advice): no number of its own. Gives `chart_rows(ls)` (per workload with a
verdict, every ranked call's median at the verdict's point and its 95% interval, over the
recommended call's median; charts.decision draws them), `table_rows(ls)` (one row per call to
make: the workloads it is for, its gain over SDPA with no backend pinned, the condition it holds
under) and `facts(ls)`: both as plain data, and `view(facts)`: the chart as HTML (none where it would
draw one point: the table holds it, charts.drawn) and the table, for _decision_first.md.j2.

The recommended call of a workload is the advice's: its exception there, else its default call.
A workload whose recommended call was not measured, or with one call measured (nothing ranked
against it), is left out, as the advice leaves it out.
"""

from __future__ import annotations

import pandas as pd

from gen.analysis import advice, calls, growing_cache, verdict_point, verdicts
from gen.analysis.values import variant_role
from gen.model.schema import Mode
from gen.model.variants import VARIANTS
from gen.report import charts
from gen.report import format as fmt
from gen.report.site import chart_div, summary_command
from gen.report.words import common as words
from gen.report.words import compiles as compile_words
from gen.report.words import decision as decision_words
from gen.report.words import first_screen as screen_words
from gen.report.words import growing_cache as growing_words
from gen.report.words import mask_cost as mask_words
from gen.report.words import orders as orders_words
from gen.report.words import places
from gen.report.words import scenario_first as first_words
from gen.report.words import verdicts as verdict_words

X_TITLE = {"gpu_only": "GPU-only time, × the recommended call's (log)",
           "eager": "time per call in a Python loop, × the recommended call's (log)",
           "host": "host wall time, × the recommended call's (log)"}


def _workload(scenario: str, mode: str, title: str) -> str:
    """A workload's name on the chart's axis and in the table: the scenario's title, and the mode
    where the scenario is measured in both."""
    return f"{title} · training" if mode == Mode.TRAIN else title


def _ranked(ls) -> list[tuple[verdicts.Verdict, str]]:
    """Every verdict with its recommended call, where the call was measured and ranked against another."""
    a = advice.advice(ls)
    if a is None:
        return []
    picks = {(e.scenario, str(e.mode)): e.variant for e in a.exceptions}
    out = []
    for scenario in verdicts.scenarios(ls):
        for mode in Mode:
            v = verdicts.verdict(ls, scenario, mode)
            if v is None or v.field_of_one:
                continue
            rec = picks.get((scenario, str(mode)), a.default)
            if v.row(rec) is not None and v.spread(v.row(rec)) is not None:
                out.append((v, rec))
    return out


def _title(ls, scenario: str) -> str:
    rec = ls.outline.scenario(scenario)
    return rec.title if rec else scenario


def chart_rows(ls) -> list[dict]:
    auto = variant_role("automatic")
    a = advice.advice(ls)
    # a mask call What to call names the call that needs none before (mask_cost.MASKLESS_WHERE_SHARED): why it is not
    # the call is its build, not a bar it never faced ("under 1.2×" stood there)
    alts = {(e.scenario, str(e.mode), e.alternative): e for e in (a.exceptions if a is not None else ())
            if e.alternative is not None}
    rows = []
    for v, rec in _ranked(ls):
        base = v.spread(v.row(rec)).median
        if not base:
            continue
        point = verdict_words.point_label(verdicts.point_of(ls, v.scenario, v.mode))
        for t in v.rows:
            s = v.spread(t)
            if s is None or not s.n:
                continue
            lo, hi = verdicts.interval(s)
            workload = _workload(v.scenario, v.mode, _title(ls, v.scenario))
            # a call faster by its median than the recommended one says why it is not the call
            # never the recommended call's own tie partner: the same kernels are no faster call
            same = t.kernels is not None and t.kernels == v.row(rec).kernels
            why = (orders_words.not_the_call(verdicts.orders(t, v.row(rec), v.basis), fmt.label_of)
                   if t.variant != rec and s.median < base and t.variant not in v.same_kernel and not same else "")
            if why and (e := alts.get((v.scenario, str(v.mode), t.variant))) is not None:
                why = mask_words.not_the_call(e.mask_cost, e.mask_orders, e.mask) or why
            rows.append(dict(workload=workload, variant=fmt.label_of(t.variant), why=why,
                             role=charts.RECOMMENDED if t.variant == rec else
                             charts.DEFAULT_CALL if t.variant == auto else charts.OTHER_CALLS,
                             rel=s.median / base, rel_lo=lo / base, rel_hi=hi / base,
                             median_ms=s.median, ci_lo_ms=lo, ci_hi_ms=hi, point=point,
                             ci_level=words.level_pct(s.level)))
    return rows


def _gain(v: verdicts.Verdict, rec: str, over: str) -> float | None:
    """`over`'s median over `rec`'s in one verdict: how much faster the recommended call is."""
    a, b = v.row(over), v.row(rec)
    sa, sb = (v.spread(a) if a else None), (v.spread(b) if b else None)
    return sa.median / sb.median if sa and sb and sb.median else None


def _gains(values: list[float]) -> str:
    if not values:
        return "–"
    lo, hi = min(values), max(values)
    return words.times(lo) if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}×"


def _shape(p) -> str:
    """The verdict's point in a few words for a table cell (as a scenario page's first look says it)."""
    return first_words.short_point(p, batch=False)


def _reader(ls, v: verdicts.Verdict, clash: frozenset = frozenset()) -> str:
    """A workload in a reader's words (words.places.SCENARIO_WORDS: several scenarios read as "prefill"); where
    another row's workload reads the same (`clash`), the scenario's own (PRECISE_WORDS)."""
    said = places.SCENARIO_WORDS.get(v.scenario, _title(ls, v.scenario))
    if said in clash and v.mode != Mode.TRAIN:
        said = places.PRECISE_WORDS.get(v.scenario, said)
    return said if v.mode != Mode.TRAIN or "training" in said else "training"


def _readers(ls, vs, clash: frozenset = frozenset()) -> list[str]:
    """The workloads of verdicts `vs` in a reader's words, inference first, each once; a workload with its batch where
    the set measured it at another (a decode verdict's other_batch), and so every verdict read in
    the same words at that batch (the decode kernels: "decode" too)."""
    scoped = {(_reader(ls, v, clash), v.other_batch.at_batch) for v in vs if v.other_batch is not None}

    def said(v) -> str:
        p = verdicts.point_of(ls, v.scenario, v.mode)
        at = next((b for w, b in scoped if w == _reader(ls, v, clash) and p is not None and p.batch == b), None)
        return _reader(ls, v, clash) + (f" at batch {at}" if at is not None else "")
    return list(dict.fromkeys(said(v) for v in sorted(vs, key=lambda v: v.mode == Mode.TRAIN)))


def _at_batch(v: verdicts.Verdict) -> str:
    return f" at batch {v.other_batch.at_batch}" if v.other_batch is not None else ""


def _clash(a, vs) -> frozenset:
    """The reader's words (SCENARIO_WORDS: several scenarios read as "prefill") that the first row's workloads `vs`
    say in each scenario's own: those of an exception's inference, and those two of the row's own inference workloads
    read where the default stands otherwise in them (the article's shape, behind, beside grouped-query prefill,
    first), so the gain range's workloads are all named; where it stands alike in them,
    one word (decode and the decode kernels, both first at batch 8: "decode at batch 8" once)."""
    stands: dict = {}
    for v in vs:
        if v.mode != Mode.TRAIN:
            stands.setdefault(places.SCENARIO_WORDS.get(v.scenario), set()).add(v.rank(a.default) == 1)
    return frozenset([*(places.SCENARIO_WORDS.get(e.scenario) for e in a.exceptions if e.mode != Mode.TRAIN),
                      *(w for w, ranks in stands.items() if len(ranks) > 1)])


FOLD_OVER = 4  # a first row naming more workloads than this folds its list on a narrow screen (table_rows)


def table_rows(ls, beside=None) -> list[dict]:
    """The default call's row (its workloads, its gains over SDPA unpinned, how it stands), then one
    row per exception (its workload, its gain, the point and what else it costs). `beside`: a sibling's costs at new
    lengths (length_cost.Beside), which a decode answer on cuDNN cites where this set measured none (_growing)."""
    a = advice.advice(ls)
    ranked = _ranked(ls)
    if a is None or not ranked:
        return []
    auto = variant_role("automatic")
    exceptions = {(e.scenario, str(e.mode)): e for e in a.exceptions}
    mine = [(v, rec) for v, rec in ranked if (v.scenario, str(v.mode)) not in exceptions]
    out = []
    if mine:
        picks = {(p.scenario, str(p.mode)): p for p in a.picks}
        within = {k: p.within for k, p in picks.items()}
        first = [v for v, _ in mine if v.rank(a.default) == 1]
        noise = [v for v in first if within.get((v.scenario, str(v.mode)))]
        apart, led = _undecided(noise, picks), _led(noise, picks)
        first = [v for v in first if v not in led]
        noise = [v for v in noise if v not in led and v not in apart]
        behind = [v for v, _ in mine if v.rank(a.default) != 1]
        sums = [v for v in first if (p := picks.get((v.scenario, str(v.mode)))) is not None and p.by_sums]
        cond = _standing(ls, a, mine, first, noise, behind, within, apart, led, sums)
        short = _standing_short(ls, a, mine, first, noise, behind, apart, led)
        # where its gain reaches the bar and its range elsewhere: in the folded detail,
        # the visible cell having no line to spare on the first screen (2 px at 390 px on the older H100 set's page)
        bar = _bar(ls, a, mine, auto) if a.default != auto else None
        # a workload the row names that gives no reason to switch from SDPA unpinned (advice.Pick.loop_keeps)
        kept = [(_named(ls, [v])[0], p) for v, _ in mine
                if (p := picks.get((v.scenario, str(v.mode)))) is not None and p.loop_keeps]
        if said := screen_words.loop_keeps_short([w for w, _ in kept]):
            short += f"; {said}"
            cond += "".join(f"; {screen_words.loop_keeps(w, p.loop_keeps, p.loop_call.own_ms / p.loop_call.eager_ms)}"
                            for w, p in kept)
        for g in _growing(ls, [v for v, _ in mine], beside):  # the decode answer holds at a fixed KV length
            # the visible cell has no line to spare at 390 px where it names the eager loop's call already (the older
            # H100 set's row): an eager-loop answer's qualifier sits in the detail, beside that loop's figures
            short += "" if g.loop_only else f"; {growing_words.short(g)}"
            cond += f"; {growing_words.clause(g)}"
        note = _gain_note(ls, a, mine, auto)
        gain = "same call" if a.default == auto else _gains(
            [g for v, _ in mine if (g := _gain(v, a.default, auto)) is not None]) + ("*" if note else "")
        reader = _readers(ls, [v for v, _ in mine], _clash(a, [v for v, _ in mine]))
        # the cell on the first screen is short; every workload named sits folded in it. A long list folds on a
        # narrow screen under what it is (`fold`; the template shows the list itself on a wide one), so the row stays
        # whole on the first screen (the older H100 set's row names each prefill)
        out.append(dict(workload=words.join_and(reader) if exceptions
                        else f"every workload measured: {words.join_and(reader)}",
                        fold=(None if len(reader) <= FOLD_OVER else
                              screen_words.WORKLOADS_FOLD[bool(exceptions)]),
                        call=fmt.label_of(a.default), variant=a.default, gain=gain, condition=short + ".",
                        detail=cond + "." + (f" {bar}" if bar else "") + (f" *Gain{note}." if note else "")))
    for v, rec in ranked:
        e = exceptions.get((v.scenario, str(v.mode)))
        if e is None:
            continue
        g = _gain(v, rec, auto)
        gain = "same call" if rec == auto else (words.times(g) if g is not None else "–")
        if a.default != auto:
            by = orders_words.MEASURE.get(e.ratio_by, e.ratio_by)
            gain += f" ({words.times(e.ratio)} {by} over {words.short_label(a.default)})"
        cond, gain = _exception_cell(ls, a, v, e, rec, g, gain)
        # the call a batch packed anew asks for, beside the mask call named
        anew = mask_words.new_layout_call(e.mask_cost, e.mask) if e.alternative is None else None
        out.append(dict(workload=_workload(v.scenario, v.mode, _title(ls, v.scenario)), call=fmt.label_of(rec),
                        call_note=anew, variant=rec, gain=gain, condition=cond + ".", detail=None))
    return out


def _exception_cell(ls, a, v, e, rec: str, g: float | None, gain: str) -> tuple[str, str]:
    """An exception row's Holds cell, and its gain cell marked where the gain is a mask argument's."""
    auto = variant_role("automatic")
    cond = f"at {_shape(verdicts.point_of(ls, v.scenario, v.mode))}"
    if e.keeps_default:  # the pinned default decidedly slower there, under the bar
        cond = screen_words.keep_default(fmt.label_of(a.default), e.ratio, e.ratio_by) + "; " + cond
    if standing := orders_words.first_place(e.shares, e.by_sums, fmt.label_of):  # as its verdict says
        cond = f"{standing}; {cond}"
    if e.mask_arg_backend is not None and g is not None and rec != auto:  # the gain is a mask argument's
        gain = gain.replace(words.times(g), words.times(g) + "*", 1)
        cond += ". " + decision_words.mask_arg_note(words.times(g), e.mask_arg_backend,
                                                    VARIANTS[rec].masks).removesuffix(".")
    if rec != auto and (loop := calls.loop_ms(v.row(rec), v.row(auto))) is not None:
        gain = screen_words.loop_cell(gain, loop)
    if e.compile_s is not None:
        cond += f"; {compile_words.cell(e.compile_s)}"
    if e.alternative is not None:  # the mask call it is named before
        if (alt := mask_words.alternative_short(e.mask_cost, e.mask_orders, e.mask)) is not None:
            cond = f"{alt}; {cond}"
    elif (layout := mask_words.new_layout_short(e.mask_cost, e.mask, e.mask_orders)) is not None:
        cond = f"{layout}; {cond}"  # beside the call it qualifies
    if e.error is not None and e.default_error is not None:
        cond += f"; relative error {e.error:.1e} against {e.default_error:.1e}"
    return cond, gain


def _named(ls, vs, sums=()) -> list[tuple[str, str]]:
    """Verdicts as the workloads words.decision.workloads names: (scenario title, mode); with the batch where the set
    measured another, and "(by kernel sum)" for those in `sums` (a first place the kernel sums decide)."""
    return [(_title(ls, v.scenario) + _at_batch(v) + (" (by kernel sum)" if v in sums else ""), str(v.mode))
            for v in vs]


def _behind(ls, a, behind) -> list[tuple]:
    return [(_named(ls, [v])[0], fmt.label_of(v.fastest.variant), _gain(v, v.fastest.variant, a.default))
            for v in behind]


def _bar(ls, a, mine, auto: str) -> str | None:
    """Where the default's gain over SDPA unpinned reaches the bar What to call asks, and its range elsewhere."""
    gains = [(v, g) for v, _ in mine if (g := _gain(v, a.default, auto)) is not None]
    cleared = [v for v, g in gains if advice.clears_bar(g)]
    return screen_words.bar_cleared(_readers(ls, cleared, _clash(a, [v for v, _ in mine])),
                                    all(advice.dense_mask_at(ls, v, auto) for v in cleared),
                                    [g for _, g in gains if not advice.clears_bar(g)])


def _gain_note(ls, a, mine, auto: str) -> str:
    dense = [v for v, _ in mine if advice.dense_mask_at(ls, v, auto)]
    loss = [v for v, _ in mine if (g := _gain(v, a.default, auto)) is not None and g < 1]
    return decision_words.gain_note(_named(ls, dense), _named(ls, loss))


def _others(v, picks, keep) -> list[tuple]:
    """(the other call, their Orders) for each call sharing the default's rank in v's pick whose Orders `keep`."""
    p = picks.get((v.scenario, str(v.mode)))
    if p is None:
        return []
    return [(o.first if o.first in p.within else o.second, o) for o in p.orders if keep(o)]


def _undecided(noise, picks) -> dict:
    """The within-noise workloads where the as-run intervals of the default and a call sharing its rank are apart and
    the rule leaves them not decided (Orders.undecided): timed apart, or within the noise
    of identical kernels, or otherwise. {verdict: [(the other call, why in words)]}."""
    return {v: [(x, orders_words.undecided_why(o)) for x, o in xs] for v in noise
            if (xs := _others(v, picks, lambda o: o.undecided))}


def _led(noise, picks) -> dict:
    """The within-noise workloads where another call leads the default by its kernels (Orders.kernels_leader):
    not counted as a first place for the default. {verdict: that pair's Orders}."""
    return {v: xs[0][1] for v in noise
            if (xs := [(x, o) for x, o in _others(v, picks, lambda o: o.kernels_leader is not None)
                       if o.kernels_leader == x])}


def _led_named(ls, led) -> list[tuple]:
    return [(_named(ls, [v])[0], orders_words.kernels_ahead(o, fmt.label_of), o) for v, o in led.items()]


def _standing_short(ls, a, mine, first, noise, behind, apart, led) -> str:
    alone = [v for v in first if v not in noise and v not in apart and not v.same_kernel and not v.near]
    noise = [v for v in noise if v not in apart]
    # short at 390 px: the detail says why each is not decided and against which call
    # short at 390 px: which first places the kernel sums decide is in the detail (standing)
    counts = [(len(alone), "outright"), (len(first) - len(alone) - len(noise) - len(apart), "shared"),
              (len(noise), "within noise"), (len(apart), "not decided")]
    return decision_words.standing_short(len(first), len(mine), counts, _behind(ls, a, behind), _led_named(ls, led))


def _standing(ls, a, mine, first, noise, behind, within, apart, led, sums=()) -> str:
    """`within`: (scenario, mode) -> the calls the default shares the first rank with within noise (Pick.within)."""
    alone = [v for v in first if v not in noise and v not in apart and not v.same_kernel and not v.near]
    shared = [v for v in first if v not in noise and v not in apart and v not in alone]
    by: dict = {}
    for v in noise:
        if v not in apart:
            by.setdefault(words.join_and(fmt.label_of(x) for x in within[(v.scenario, str(v.mode))]), []).append(v)
    off: dict = {}
    for v, xs in apart.items():
        for why in dict.fromkeys(w for _, w in xs):
            off.setdefault((words.join_and(fmt.label_of(x) for x, w in xs if w == why), why), []).append(v)
    return decision_words.standing(len(first), len(mine), _named(ls, alone, sums), _named(ls, shared),
                                   {x: _named(ls, vs) for x, vs in by.items()}, _behind(ls, a, behind),
                                   {x: _named(ls, vs) for x, vs in off.items()}, _led_named(ls, led),
                                   [decision_words.deterministic_lead(d, (_title(ls, d.scenario), str(d.mode)))
                                    for d in a.det_leads if any(v.scenario == d.scenario and v.mode == d.mode
                                                                for v, _ in mine)])


def _growing(ls, vs, beside) -> list:
    """The row's decode verdicts whose answer (or eager loop's) runs cuDNN, as growing_cache facts a growing cache's
    cost was measured for (this set's or `beside`'s), one per verdict."""
    out = []
    for v in vs:
        f = verdict_point.point_facts(ls, v.scenario, v.mode)
        g = growing_cache.growing(ls, f, beside) if f is not None else None
        if g is not None and g.source is not None:
            out.append(g)
    return out


def facts(ls, beside=None) -> dict | None:
    """What the first screen shows of a set, as plain data (the home page reads it from the build's cache):
    the table's rows, the chart's rows and the ranking time; None for a set with nothing ranked. `beside` as
    table_rows takes it."""
    table = table_rows(ls, beside)
    if not table:
        return None
    basis = next((v.basis for v, _ in _ranked(ls)), "gpu_only")
    return dict(set=ls.name, table=table, rows=chart_rows(ls), basis=basis)


def view(f: dict | None) -> dict | None:
    """The first screen from `facts`: the chart (None where it would draw one point: the table holds it,
    charts.drawn) and the table."""
    if not f:
        return None
    chart = None
    if f["rows"]:
        spec = charts.drawn(charts.decision(pd.DataFrame(f["rows"]), X_TITLE.get(f["basis"], X_TITLE["gpu_only"])))
        if spec is not None:
            chart = chart_div(spec, "the decision: each workload's calls against the recommended one",
                              summary_command(f["set"]))
    note = screen_words.not_the_call_note(charts.NOT_THE_CALL, [(r["workload"], r["variant"], r["why"])
                                                               for r in f["rows"] if r.get("why")]) if chart else None
    return dict(set=f["set"], chart=chart, chart_note=note, table=f["table"],
                gain_over=fmt.label_of(variant_role("automatic")))
