"""Issue 31's verdicts after review 3 (docs/notes/review-2026-12-06-1.md items 1-3, 16; review 2 N7, N8): one rule
for who leads where the as-run, equal-clock and kernel-sum orders disagree, the orders said beside "not decided",
FP8's lead by its kernels and its error, a tie by kernel names never against disjoint intervals, the launch's
conclusion, and the interleave order said per set. Each test fails if the rule is broken."""

from __future__ import annotations

import math
import re
import types

import pytest

from gen.analysis import advice, calls, launches, method, rules, verdicts
from gen.report.words import behind as behind_words
from gen.report.words import decision as decision_words
from gen.report.words import orders as orders_words
from gen.report.words import verdicts as verdict_words
from gen.report.words import why as why_words
from gen.report.words.common import join_and, label, times
from gen.report.words.sentences import flat
from tests.conftest import all_verdicts, committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def lead():
    return committed_set(LEAD)



def test_the_rule_on_numbers():
    """rules.lead_decided(apart, as_run, noise, kernel_sum, kernel_sum_gap): review 2026-12-06-2 item 2 changed it, so
    equal clock is no argument any more (tests/test_lead_noise.py has the noise's own cases)."""
    f = 1 + rules.TIME_FLOOR_PCT / 100
    gap = rules.CLOCK_GAP_PCT
    assert not rules.lead_decided(False, 1.3, 1.0, 1.3, 0.0)  # the intervals overlap: never decided
    assert rules.lead_decided(True, 1.1, 1.0, 1.1, 0.0)  # all agree, same clocks
    assert rules.lead_decided(True, 1.1, None, None, None)  # nothing to contradict it
    assert not rules.lead_decided(True, 1.1, 1.0, 1 / (f + 0.01), 0.0)  # the kernel sums put the other ahead
    assert rules.lead_decided(True, 1.1, 1.0, 1 / (f - 0.005), 0.0)  # a reversal within the floor is no order
    # the kernel sums' own windows apart: they cannot overrule (review 2026-12-06-2 item 3), nor bear out
    assert rules.lead_decided(True, 1.1, 1.0, 1 / 1.13, gap + 1)
    assert not rules.lead_decided(True, 1.1, 1.0, 1 / 1.13, gap - 1)
    # a lead far beyond the noise stands on the as-run intervals (packed documents: 13.5x)
    assert rules.lead_decided(True, 13.5, 1.16, None, None)
    assert rules.clock_gap_pct(1800, 1500) == pytest.approx(100 * 300 / 1500)  # the higher over the lower, less one


def test_ranks_follow_the_rule(lead, fixed_order):
    """No row ranks behind another that does not lead it by the rule; a pair apart as run that the other orders
    overrule shares the first rank, and its headline names no winner but gives the orders. On the set and on the
    fixed-order capture, whose windows' clocks set pairs apart as run (the set's rotated rounds hold none)."""
    seen = 0
    for v in [*all_verdicts(lead), *all_verdicts(fixed_order)]:
        for o in v.orders:
            assert o.decided is False or not o.apart
            assert v.rank(o.second) == 1
        for o in v.undecided():
            seen += 1
            head = verdict_words.verdict(v).headline
            assert "not decided" in head and "is the fastest here" not in head
            assert o.as_run is not None and times(o.as_run) in head
            for r in (o.equal_clock, o.kernel_sum):
                if r is not None and abs(r - 1) * 100 > rules.TIME_FLOOR_PCT:
                    assert times(max(r, 1 / r)) in head
        for t in v.rows:
            r = v.rank(t.variant)
            ahead = [x for x in v.rows if x is not t and not (t.kernels and x.kernels == t.kernels)
                     and verdicts.leads(x, t, v.basis)]
            assert r >= 1 + len(ahead) or t.variant in v.same_kernel_apart
    assert seen  # the fixed-order capture's sliding windows: FLASH 1.09× as run, FA4 ahead by kernel sum


def test_the_decision_names_no_winner_where_the_orders_disagree(lead, fixed_order):
    seen = [0, 0]
    for ls in (lead, fixed_order):
        seen = [x + y for x, y in zip(seen, _decision_names_no_winner(ls))]
    assert all(seen)  # the fixed-order capture: sliding windows not decided; FP8 led by its kernels


def _decision_names_no_winner(lead) -> tuple[int, int]:
    a = advice.advice(lead)
    w = decision_words.advice(a)
    undecided = [p for p in a.picks if any(orders_words.state(o) == "not decided" for o in p.orders)]
    name = decision_words._place_namer(a.picks)  # "training at prefill with grouped-query attention" where two train
    for p in undecided:
        place = name(p)
        notes = f"{decision_words._cap(place)}: "  # the workload's notes, in sentences (review 2026-12-07-1 N3)
        assert f"{notes}{label(p.fastest)} is" not in w.decision  # not "not first at ..."
        assert p.outcome == "within noise"
        # said "not decided": the sentence where every open pair leads with it (review 8 item 5), else its note for
        # the pair the orders leave open (beside "within noise as run" for another)
        assert notes in w.decision
        if all(orders_words.state(o) == "not decided" for o in p.orders):
            who = join_and(label(x) for x in p.within)
            assert place in w.decision.split(f"not decided against {who} for ", 1)[1].split(". ")[0]
        else:
            assert "not decided: " in w.decision.split(notes, 1)[1].split(". It is ")[0].lower()
    # within noise as run, but the kernel sums (their windows at close clocks) name a leader: their ratio, the
    # equal-clock model labelled so where it is given, and the errors where the inputs differ (FP8 against bf16)
    led = [(p, o) for p in a.picks for o in p.orders if orders_words.kernels_lead(o)]
    for p, o in led:
        ks = max(o.kernel_sum, 1 / o.kernel_sum)
        # "faster than <its counterpart>" where the sentence gives more than one pair's orders (review item 11)
        # the gain beside the first screen's 1.2x line keeps its side of it (review 2026-12-07-1 item 7: 1.195x)
        shown = "|".join(re.escape(x) for x in {times(ks), orders_words.sum_gain(ks)})
        assert re.search(f"(?:{shown})" + r" (faster (than [^;]+? )?)?by kernel sum", w.decision)
        if o.equal_clock is not None and abs(o.equal_clock - 1) * 100 > rules.TIME_FLOOR_PCT:
            assert "at equal clock (a model)" in w.decision
        dtypes = {t.variant: t.dtype for t in p.rows}
        if len({d for d in dtypes.values()}) > 1:
            for t in p.rows:
                assert f"{t.rel_error:.1e} for {label(t.variant)}" in w.decision
    return len(undecided), len(led)


def test_past_the_verdicts_points_gives_each_undecided_size_its_orders(lead):
    a = advice.advice(lead)
    line = behind_words.behind_line(a)
    for b in a.behind_at:
        if b.at_verdict or b.decided or b.by_kernels:  # behind by kernel sum: tests/test_review8_home.py
            continue
        part = line.split("Not decided", 1)[1]
        # its orders one clause a sentence (sentences.note_sentences)
        assert all(f"{x[0].upper()}{x[1:]}." in part or f": {x}." in part
                   for x in flat(orders_words.brief_clauses(b.orders, label)))
        assert "kernel sum" in part and "MHz" in part
    assert "the windows' clocks, not the kernels" not in line and "not the kernels' order" not in line


def test_scenario_headline_names_no_fastest_without_its_caveat(lead, fixed_order):
    from gen.analysis import scenarios as sa
    from gen.report.pages import scenario_set
    from gen.report.words import scenarios as scenario_words

    seen = 0
    sets = (lead, fixed_order)
    for ls, name in [(ls, n) for ls in sets for n in ("gqa-prefill", "sliding-window", "fp8-prefill")]:
        head = sa.headline(None, None, name, sa.point_rows(ls, name), [])
        orders, rows = scenario_set._head_orders(ls, name, head)
        text = scenario_words.headline(head, "tflops", False, label, [], orders, rows)
        for o in orders:
            if orders_words.state(o) == "not decided":
                seen += 1
                assert "is fastest by its median" in text and "not decided" in text
                assert orders_words.brief(o, label) in text
            elif orders_words.kernels_behind(o) and o.second in (head.get("near") or []):
                assert orders_words.kernels_ahead_detail(o, label) in text  # the first screen's "behind" (review 5)
            elif orders_words.telling(o) and o.second in (head.get("near") or []):
                assert orders_words.brief(o, label, noise=False) in text
        if name == "fp8-prefill":
            assert "Output error against float64" in text
    assert seen  # the fixed-order capture: gqa-prefill at 32k and sliding windows


def test_a_tie_by_kernel_names_never_stands_beside_disjoint_intervals(lead):
    for v in all_verdicts(lead):
        line = verdict_words.same_kernel_line(v)
        fs = v.spread(v.fastest)
        for x in v.same_kernel:
            s = v.spread(v.row(x))
            assert calls.overlaps(fs, s) or v.auto is not None and v.auto.variant in (x, v.fastest.variant)
        for x in v.same_kernel_apart:
            assert "not tied" in line and v.rank(x) > 1
        paged = verdict_words.paged_line(v)
        if paged and "paging costs" in paged:
            # paging's cost is set against the same call on a contiguous cache (review 2026-12-06-2 item 11), said
            # within noise exactly where those two calls' intervals overlap
            from gen.analysis import paged as paged_facts

            p = paged_facts.paged_facts(v)
            assert p.contiguous is not None
            assert ("within noise" in paged) == calls.overlaps(v.spread(v.row(p.contiguous)),
                                                               v.spread(v.row(p.ranked[0][0])))
            assert "one rank" not in paged


def test_a_same_name_call_apart_but_not_decided_is_no_tie_by_names(lead):
    """Paged FA4 runs FA4's kernel names with its interval apart from FA4's; with the point's noise of identical kernels
    set wider than their gap, the lead is not decided: the two share the first rank as rivals, the headline says not
    decided with the orders, and no line calls it a tie by kernel names (nor says the intervals overlap)."""
    from dataclasses import replace

    from gen.analysis import pair_noise

    point = verdicts.point_of(lead, "decode-kernels", "inference")
    rows = calls.timed_at(lead, "decode-kernels", point)
    fa4, pg = (next(t for t in rows if t.variant == x) for x in ("fa4", "fa4_paged"))
    assert fa4.kernels == pg.kernels and not calls.overlaps(fa4.gpu_only, pg.gpu_only)  # the premise
    gap = pg.gpu_only.median / fa4.gpu_only.median * 1.05
    # the lines of identical kernels all wider than the gap: as run, and round by round (rules.paired_leads)
    wide = pair_noise.AsRunNoise(gap, "a", "b", "decode-kernels", "inference", point, per_round=gap * 1.05)
    # and no kernel sums, so that they decide nothing against that line either (review 9 item 3)
    rows = [replace(t, kernel_sum_ms=None) for t in rows]
    v = verdicts.decide([replace(t, as_run_noise=wide) for t in rows], lead.name, "decode-kernels", "inference",
                        point=point, ref_mhz=lead.rs.environment.ref_mhz)
    assert v.fastest.variant == "fa4"
    assert "fa4_paged" not in v.same_kernel and "fa4_paged" not in v.same_kernel_apart
    assert v.rank("fa4_paged") == 1 and "fa4_paged" in v.near
    o = next(o for o in v.orders if o.second == "fa4_paged")
    assert o.apart and not o.decided
    head = verdict_words.verdict(v).headline
    assert "not decided" in head and label("fa4_paged") in head and "within the as-run noise" in head
    assert label("fa4_paged") not in verdict_words.same_kernel_line(v)


def test_the_articles_why_draws_the_launchs_conclusion(lead):
    v = verdicts.verdict(lead, "article", "inference")
    got = launches.verdict_launches(lead, v)
    line = why_words.why_line(v, got)
    loser = got[v.runner_up.variant]
    rows = loser.tile_rows
    assert rows and math.ceil(loser.queries / rows) == loser.tiles_per_head  # the inference checks against the grid
    assert f"{loser.padded_rows:,} rows for {loser.queries:,} queries" in line and "inferred" in line
    a, b = got[v.fastest.variant].tensor_busy_us, loser.tensor_busy_us
    assert f"({b:.1f} µs)" in line and f"({a:.1f} µs)" in line and f"{b / a:.2f}×" in line
    # a tie within noise explains no win: no Why line
    for w in all_verdicts(lead):
        if w.runner_up is not None and w.runner_up.variant in w.near:
            assert why_words.why_line(w, launches.verdict_launches(lead, w)) is None


def test_interleave_order_is_read_per_set():
    def rs(*flags):
        recs = [types.SimpleNamespace(timing=types.SimpleNamespace(interleaved_with=["a", "b"], **(
            {} if f is None else {"interleave_rotated": f[0], "interleave_reversed": f[1]}))) for f in flags]
        return types.SimpleNamespace(runs=recs, sweep=[])
    assert method.interleave_orders(rs(None, None)) == (0, 2, 0)  # a missing field: a fixed order
    assert method.interleave_orders(rs((True, True), (True, False))) == (2, 0, 1)
    assert method.interleave_orders(rs((True, False), None)) == (1, 1, 0)
    from gen.report.words import methodology as mw
    assert "same predecessor every round" in mw.interleave_order(0, 3)
    # a rotation alone keeps the neighbours (review 2026-12-06-2, item 1): said so, not "no variant follows the same"
    assert "keeps the neighbours" in mw.interleave_order(3, 0) and "same predecessor" in mw.interleave_order(3, 0)
    assert "changes from round to round" in mw.interleave_order(3, 0, 3)
    assert "same predecessor" not in mw.interleave_order(3, 0, 3)
    from pathlib import Path
    assert "cooler for having gone first" not in Path("docs/methodology.md").read_text()


def test_a_kernel_sum_far_above_its_own_graph_and_eager_times_is_no_order():
    """Review 2026-12-06-2 item 8: SDPA flash's kernel sum at decode 131k keys read 19% above its own graph and eager
    medians; such a sum does not order a pair (rules.KERNEL_SUM_EXCESS)."""
    from gen.analysis import leads

    def spread(ms):
        return types.SimpleNamespace(median=ms)

    t = types.SimpleNamespace(kernel_sum_ms=1.0, gpu_only=spread(1.0), eager=spread(1.01))
    assert leads.kernel_sum_ms(t) == 1.0
    t.kernel_sum_ms = 1.01 * rules.KERNEL_SUM_EXCESS * 1.01
    assert leads.kernel_sum_ms(t) is None
    t.gpu_only, t.eager = None, None
    assert leads.kernel_sum_ms(t) == t.kernel_sum_ms  # nothing to check it against: kept
