"""Review 2026-12-07-3 item 5: two calls timed in the same shared rounds are compared round by round (the paired rule,
rules.paired_interval / rules.paired_leads inside rules.lead_decided), and a scenario's verdict reads the sweep's
record where the sweep timed its profiled runs' point in shared rounds (calls.shared_sweep). Synthetic edges of the
rule, then the committed paired H100 set; numbers are read from the set, never typed in where it gives them."""

from __future__ import annotations

import pytest

from gen.analysis import calls, leads, rules, timings, verdicts
from gen.model import schema, stats
from gen.report.words import orders as orders_words
from gen.report.words import verdicts as verdict_words

FLOOR = rules.TIME_FLOOR


# --------------------------------------------------------------------------- the rule's edges (synthetic)

def test_too_few_rounds_give_no_paired_interval_and_enough_give_the_order_statistic_one():
    assert rules.paired_interval([1.2] * (rules.PAIRED_MIN_ROUNDS - 1)) is None
    few = [1.05, 1.20, 1.10]
    assert rules.paired_interval(few) == (min(few), max(few))  # too few for the level: the whole range
    many = [1.0 + i / 100 for i in range(1, 21)]
    k = stats.order_statistic_rank(len(many))
    assert k > 1 and rules.paired_interval(many) == (sorted(many)[k - 1], sorted(many)[len(many) - k])
    assert rules.paired_interval([1.1, None, 1.2, 1.3]) is None  # a round without a ratio: no interval


def test_a_lead_in_every_shared_round_is_decided_though_the_unpaired_intervals_overlap():
    ratios = (1.08, 1.13, 1.02, 1.14, 1.04, 1.15)
    iv = rules.paired_interval(ratios)
    assert rules.paired_leads(iv) is True
    assert rules.lead_decided(False, 1.13, None, same_rounds=True, paired=iv)
    # the rule without the pairing: the overlapping intervals decide nothing
    assert not rules.lead_decided(False, 1.13, None, same_rounds=True)
    # rounds not shared, or not known to be: the pairing means nothing
    assert not rules.lead_decided(False, 1.13, None, same_rounds=False, paired=iv)
    assert not rules.lead_decided(False, 1.13, None, same_rounds=None, paired=iv)


def test_a_ratio_crossing_one_decides_nothing_and_one_past_the_floor_the_other_way_undoes_a_lead():
    crossing = rules.paired_interval((1.08, 0.97, 1.12, 1.05))
    assert rules.paired_leads(crossing) is None
    assert not rules.lead_decided(False, 1.06, None, same_rounds=True, paired=crossing)
    assert rules.lead_decided(True, 1.06, None, same_rounds=True, paired=crossing)  # the unpaired rule still stands
    against = rules.paired_interval((0.95, 0.97, 0.96))
    assert rules.paired_leads(against) is False
    assert not rules.lead_decided(True, 1.06, None, same_rounds=True, paired=against)


def test_an_interval_at_the_floor_decides_nothing_and_just_past_it_decides():
    at = (FLOOR, FLOOR * 1.05, FLOOR * 1.1)
    assert rules.paired_leads(rules.paired_interval(at)) is None
    assert not rules.lead_decided(False, 1.05, None, same_rounds=True, paired=rules.paired_interval(at))
    past = (FLOOR * 1.0001, FLOOR * 1.05, FLOOR * 1.1)
    assert rules.lead_decided(False, 1.05, None, same_rounds=True, paired=rules.paired_interval(past))
    # below 1 by the floor the same way
    assert rules.paired_leads((1 / FLOOR * 0.999, 0.99 / FLOOR)) is False
    assert rules.paired_leads((0.9, 1 / FLOOR)) is None


def test_fair_kernel_sums_against_the_rounds_leave_it_not_decided():
    iv = rules.paired_interval((1.05, 1.06, 1.07))
    assert not rules.lead_decided(False, 1.06, None, kernel_sum_ratio=0.95, kernel_sum_gap=1.0, same_rounds=True,
                                  paired=iv)
    # sums far apart in clock neither decide nor contradict
    assert rules.lead_decided(False, 1.06, None, kernel_sum_ratio=0.95, kernel_sum_gap=20.0, same_rounds=True,
                              paired=iv)


def _row(variant, rounds_ms, with_=("a", "b")):
    med = sorted(rounds_ms)[len(rounds_ms) // 2]
    s = timings.Spread(n=8 * len(rounds_ms), median=med, q1=min(rounds_ms), q3=max(rounds_ms), ci_lo=min(rounds_ms),
                       ci_hi=max(rounds_ms), rounds=len(rounds_ms))
    return calls.Timed(variant, "ok", gpu_only=s, rounds=calls.SHARED, rounds_with=tuple(with_),
                       round_ms=tuple(rounds_ms))


def test_orders_pair_the_rounds_and_the_words_give_them():
    # b swings with the round orientation as much as a: the intervals overlap, a ahead in every round
    a = _row("a", [1.28, 1.12, 1.30, 1.11, 1.26, 1.10])
    b = _row("b", [1.37, 1.26, 1.33, 1.27, 1.32, 1.27])
    o = leads.orders(a, b, "gpu_only")
    assert not o.apart and o.decided and o.decided_by_rounds and o.paired_leader == "a"
    assert o.per_round == pytest.approx(tuple(y / x for x, y in zip(a.round_ms, b.round_ms)))
    text = orders_words.paired(o, str)
    assert "a was ahead in each of the 6 rounds the two shared" in text and "so the shared rounds decide it" in text
    # one round the other way: not decided, the ratios said beside it
    b2 = _row("b", [1.37, 1.26, 1.33, 1.27, 1.32, 1.05])
    o2 = leads.orders(a, b2, "gpu_only")
    assert not o2.decided and not o2.decided_by_rounds
    text = orders_words.paired(o2, str)
    assert f"{b2.round_ms[-1] / a.round_ms[-1]:.3f}" in text and "do not decide it either" in text
    # not timed in the same rounds: no pairing
    alone = leads.orders(a, calls.Timed("b", "ok", gpu_only=b.gpu_only, rounds=calls.ALONE, round_ms=b.round_ms),
                         "gpu_only")
    assert alone.per_round == () and orders_words.paired(alone, str) == ""


# --------------------------------------------------------------------------- the committed paired H100 set

def _round_medians(ls, scenario, variant):
    rec = next(p for p in ls.rs.sweep if p.scenario == scenario and p.variant == variant
               and p.mode == schema.Mode.INFERENCE)
    return timings.round_medians(rec.timing.gpu_only_ms, rec.timing.round_sizes.get(schema.Window.GPU_ONLY))


def test_packed_documents_is_decided_by_the_shared_rounds(paired):
    v = verdicts.verdict(paired, "packed-documents", schema.Mode.INFERENCE)
    flex, varlen = (_round_medians(paired, "packed-documents", x) for x in ("flex", "varlen"))
    ratios = [y / x for x, y in zip(flex, varlen)]
    assert min(ratios) > 1  # FlexAttention ahead in every shared round
    assert v.fastest.variant == "flex" and "varlen" not in v.near and v.runner_up.variant == "varlen" and v.settled
    o = verdicts.orders(v.fastest, v.runner_up, v.basis)
    assert not o.apart and o.decided_by_rounds  # the unpaired intervals overlap
    assert o.paired == pytest.approx(stats.median_interval(ratios))
    head = verdict_words._headline(v)
    assert "within noise" not in head and "share the first rank" not in head
    assert ", ".join(f"{r:.3f}" for r in ratios) in head and "so the shared rounds decide it" in head


def test_the_article_verdict_reads_the_sweeps_shared_rounds_at_its_point(paired):
    v = verdicts.verdict(paired, "article", schema.Mode.INFERENCE)
    point = calls.point_of(paired, "article", schema.Mode.INFERENCE)
    sweep = {t.variant: t for t in calls.timed_at(paired, "article", point)}
    f = v.fastest
    # the order reads the shared rounds; the times shown stay the profiled runs' (review 2026-12-07-4 item 4)
    assert f.rounds == calls.OWN and f.rounds_record.rounds == calls.SHARED
    assert f.rounds_record.gpu_only.median == sweep[f.variant].gpu_only.median
    o = verdicts.orders(f, v.runner_up, v.basis)
    assert not o.timed_apart and o.decided
    head = verdict_words._headline(v)
    assert "sequence of their own" not in head and "in the sweep's shared rounds at this point, which decide" in head
    # the training step has no sweep point: still the profiled runs, timed apart, said so
    t = verdicts.verdict(paired, "article", schema.Mode.TRAIN)
    assert t.fastest.rounds == calls.OWN and "sequence of their own" in verdict_words._headline(t)


def test_on_the_paired_set_no_identical_kernels_are_told_apart_by_the_rounds(paired):
    seen = 0
    for p in {(r.scenario, r.mode, r.point) for r in paired.rs.sweep if r.point is not None}:
        rows = [t for t in calls.timed_at(paired, p[0], p[2], p[1]) if t.status == "ok" and t.gpu_only]
        for a in rows:
            for b in rows:
                if a is b or not a.signature or a.signature != b.signature or not calls.same_rounds(a, b):
                    continue
                o = leads.orders(a, b, "gpu_only")
                if o.paired is not None:
                    seen += 1
                    assert o.paired_leader is None, (p, a.variant, b.variant, o.paired)
    assert seen


def test_the_methodology_states_the_round_by_round_rule_with_its_thresholds():
    from gen.report.words import methodology

    row = dict(methodology.lead_rules())[f"{methodology.LEAD}: round by round"]
    assert f"from {rules.PAIRED_MIN_ROUNDS} rounds" in row and f"1 + {rules.TIME_FLOOR_PCT:g}%" in row
    assert f"within {rules.CLOCK_GAP_PCT:g}%" in row
