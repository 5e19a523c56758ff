"""Review 2026-12-07-3 item 5: two calls timed in the same shared rounds are compared round by round (the paired rule,
rules.paired_interval / rules.paired_leads inside rules.lead_decided), and a scenario's verdict reads the sweep's
record where the sweep timed its profiled runs' point in shared rounds (calls.shared_sweep). Synthetic edges of the
rule, then the committed paired H100 set; numbers are read from the set, never typed in where it gives them."""

from __future__ import annotations

import re

import pytest

from gen.analysis import calls, leads, pair_noise, rules, timings, verdicts
from gen.model import schema, stats
from gen.report.words import round_by_round
from gen.report.words import verdicts as verdict_words

FLOOR = rules.TIME_FLOOR


@pytest.fixture(scope="module")
def older():
    """The older H100 set (before paired rounds were the set's design: 5 rounds a point)."""
    from gen.analysis import tables
    from tests.conftest import CAPTURED_LATER, RESULTS

    return tables.load_set(RESULTS / CAPTURED_LATER[0])


# --------------------------------------------------------------------------- the rule's edges (synthetic)

def test_too_few_rounds_give_no_paired_interval_and_each_orientation_gets_its_own():
    assert rules.paired_intervals([[1.2] * (rules.PAIRED_MIN_ROUNDS - 1)]) is None
    assert rules.paired_intervals([[1.2, 1.3], []]) is None  # an orientation without a round
    # review 2026-12-07-5 item 6: one round in an orientation is a single ratio, no interval of a median
    each = rules.PAIRED_MIN_ORIENTATION_ROUNDS
    assert each == 2 and rules.PAIRED_MIN_ROUNDS == 2 * each
    assert rules.paired_intervals([[1.2, 1.3], [1.25] * (each - 1)]) is None
    assert rules.paired_intervals([[1.2, 1.3], [1.25] * each]) is not None
    assert rules.paired_intervals([[1.2, 1.3, 1.1]]) is None  # unreversed: as many in all as two orientations
    few = [1.05, 1.20, 1.10, 1.15]
    assert rules.paired_intervals([few]) == ((min(few), max(few)),)  # too few for the level: the whole range
    many = [1.0 + i / 100 for i in range(1, 21)]
    k = stats.order_statistic_rank(len(many))
    assert k > 1 and rules.paired_intervals([many]) == ((sorted(many)[k - 1], sorted(many)[len(many) - k]),)
    assert rules.paired_intervals([[1.1, None, 1.2, 1.3]]) is None  # a round without a ratio: no interval
    fwd, rev = [1.1, 1.2], [1.05, 1.3]
    assert rules.paired_intervals([fwd, rev]) == ((1.1, 1.2), (1.05, 1.3))


def test_a_lead_past_the_line_in_every_orientation_is_decided_though_the_unpaired_intervals_overlap():
    ivs = rules.paired_intervals([(1.08, 1.02, 1.04), (1.13, 1.14)])
    assert rules.paired_leads(ivs) is True  # no identical pair anywhere: the floor alone
    assert rules.lead_decided(False, 1.13, None, same_rounds=True, paired=True)
    assert not rules.lead_decided(False, 1.13, None, same_rounds=True)  # the overlapping intervals decide nothing
    # rounds not shared, or not known to be: the pairing means nothing
    assert not rules.lead_decided(False, 1.13, None, same_rounds=False, paired=True)
    assert not rules.lead_decided(False, 1.13, None, same_rounds=None, paired=True)


def test_identical_kernels_swinging_more_than_the_lead_leave_it_not_decided():
    """Review 2026-12-07-4 item 1: SDPA cuDNN against SDPA with no backend pinned read 0.85-1.23x round by round at
    GQA 16k; a pair ahead by 1.05-1.15x in every round is within that."""
    ivs = rules.paired_intervals([(1.08, 1.05, 1.10), (1.13, 1.14, 1.15)])
    assert rules.paired_leads(ivs) is True and rules.paired_leads(ivs, 1.0) is True
    line = 1.233
    assert rules.paired_leads(ivs, line) is None
    assert rules.paired_leads(rules.paired_intervals([(1.30, 1.28), (1.29, 1.27)]), line) is True  # past it
    # the line is set by the identical pair's round ratio both ways: 1 / 0.851 counts as 1.175
    assert rules.paired_leads(rules.paired_intervals([(1.19, 1.20), (1.19, 1.21)]), 1 / 0.851) is True
    assert rules.paired_leads(rules.paired_intervals([(1.17, 1.20), (1.19, 1.21)]), 1 / 0.851) is None


def test_an_orientation_that_does_not_hold_on_its_own_leaves_it_not_decided():
    """Review 2026-12-07-4 item 2: the ratio split by orientation. 12 rounds: the median of all twelve has an
    order-statistic interval (the two lowest rounds fall outside it), the forward and reversed six each have the whole
    range; two reversed rounds within the floor leave the lead not decided."""
    fwd, rev = [1.10, 1.12, 1.11, 1.09, 1.13, 1.10], [1.005, 1.004, 1.10, 1.09, 1.11, 1.10]
    together = [x for pair in zip(fwd, rev) for x in pair]
    assert stats.median_interval(together)[0] > FLOOR  # one pool of rounds would decide it
    assert rules.paired_leads(rules.paired_intervals([fwd, rev])) is None
    assert rules.paired_leads(rules.paired_intervals([fwd, fwd])) is True


def test_an_interval_at_the_line_decides_nothing_and_just_past_it_decides():
    line = 1.02
    at = [(line * FLOOR, line * FLOOR * 1.05, line * FLOOR * 1.1, line * FLOOR * 1.2)]
    assert rules.paired_leads(rules.paired_intervals(at), line) is None
    past = [(line * FLOOR * 1.0001, line * FLOOR * 1.05, line * FLOOR * 1.1, line * FLOOR * 1.2)]
    assert rules.paired_leads(rules.paired_intervals(past), line) is True
    # below 1 by the line the same way
    assert rules.paired_leads(((1 / (line * FLOOR) * 0.999, 0.99 / (line * FLOOR)),), line) is False
    assert rules.paired_leads(((0.9, 1 / (line * FLOOR)),), line) is None
    # a line under 1 (none can be: a ratio either way) is read as the floor alone
    assert rules.paired_leads(((FLOOR * 1.001, 1.1),), 0.99) is True


def test_a_ratio_past_the_line_the_other_way_undoes_a_lead():
    assert not rules.lead_decided(True, 1.06, None, same_rounds=True, paired=False)
    assert rules.lead_decided(True, 1.06, None, same_rounds=True, paired=None)  # the unpaired rule still stands


def test_fair_kernel_sums_against_the_rounds_leave_it_not_decided_past_their_own_noise():
    assert not rules.lead_decided(False, 1.06, None, kernel_sum_ratio=0.95, kernel_sum_gap=1.0, same_rounds=True,
                                  paired=True)
    # sums far apart in clock neither decide nor contradict
    assert rules.lead_decided(False, 1.06, None, kernel_sum_ratio=0.95, kernel_sum_gap=20.0, same_rounds=True,
                              paired=True)
    # review 2026-12-07-4 item 6: within the kernel sums' own noise of identical kernels they say nothing
    assert rules.lead_decided(False, 1.06, None, kernel_sum_ratio=0.985, kernel_sum_gap=1.0, same_rounds=True,
                              paired=True, kernel_sum_noise=1.019)
    assert not rules.lead_decided(False, 1.06, None, kernel_sum_ratio=0.985, kernel_sum_gap=1.0, same_rounds=True,
                                  paired=True)
    assert rules.kernel_sum_floor(None) == FLOOR and rules.kernel_sum_floor(1.001) == FLOOR
    assert rules.kernel_sum_floor(1.019) == 1.019


def test_kernel_sums_decide_a_lead_only_past_their_own_noise():
    # intervals apart, within the as-run line, both orientations: the sums decide past their line, not within it
    args = dict(as_run_apart=True, as_run=1.05, noise=1.10, kernel_sum_gap=1.0, orientations=(1.05, 1.05),
                same_rounds=True)
    assert rules.lead_decided(kernel_sum_ratio=1.015, **args)
    assert not rules.lead_decided(kernel_sum_ratio=1.015, kernel_sum_noise=1.019, **args)
    assert rules.lead_decided(kernel_sum_ratio=1.025, kernel_sum_noise=1.019, **args)
    # past the clock gap: what is left must clear the sums' line too
    assert rules.sums_past_clock(1.10, 1900, 1800) is not None
    assert rules.sums_past_clock(1.10, 1900, 1800, floor=1.05) is None


def _row(variant, rounds_ms, with_=("a", "b"), noise=None):
    med = sorted(rounds_ms)[len(rounds_ms) // 2]
    s = timings.Spread(n=8 * len(rounds_ms), median=med, q1=min(rounds_ms), q3=max(rounds_ms), ci_lo=min(rounds_ms),
                       ci_hi=max(rounds_ms), rounds=len(rounds_ms))
    fwd, rev = (sorted(g)[len(g) // 2] for g in (rounds_ms[0::2], rounds_ms[1::2]))
    return calls.Timed(variant, "ok", gpu_only=s, rounds=calls.SHARED, rounds_with=tuple(with_),
                       round_ms=tuple(rounds_ms), forward_ms=fwd, reversed_ms=rev, as_run_noise=noise)


def _noise(per_round=None, twins=(), rounds=()):
    return pair_noise.AsRunNoise(1.5, "x", "y", "s", "inference", None, per_round=per_round, twins=twins,
                                 rounds=rounds)


def test_orders_pair_the_rounds_and_the_words_give_them():
    # b swings with the round orientation as much as a: the intervals overlap, a ahead in every round
    a = _row("a", [1.28, 1.12, 1.30, 1.11, 1.26, 1.10])
    b = _row("b", [1.37, 1.26, 1.33, 1.27, 1.32, 1.27])
    o = leads.orders(a, b, "gpu_only")
    assert not o.apart and o.decided and o.decided_by_rounds and o.paired_leader == "a"
    assert o.per_round == pytest.approx(tuple(y / x for x, y in zip(a.round_ms, b.round_ms)))
    text = round_by_round.paired(o, str)
    # review 2026-12-07-5 item 6: the evidence jointly, not per-orientation intervals at 50% or 75%
    assert "a was ahead in all 6 shared rounds, each past even (no identical kernels shared rounds" in text
    assert "by more than 1%, so the shared rounds decide it" in text
    assert "forward rounds" in text and "reversed rounds" in text and "%)" not in text
    # one round the other way: not decided, the ratios said beside it
    b2 = _row("b", [1.37, 1.26, 1.33, 1.27, 1.32, 1.05])
    o2 = leads.orders(a, b2, "gpu_only")
    assert not o2.decided and not o2.decided_by_rounds
    text = round_by_round.paired(o2, str)
    assert f"{b2.round_ms[-1] / a.round_ms[-1]:.3f}" in text and text.endswith("so the shared rounds do not decide it")
    # not timed in the same rounds: no pairing
    alone = leads.orders(a, calls.Timed("b", "ok", gpu_only=b.gpu_only, rounds=calls.ALONE, round_ms=b.round_ms),
                         "gpu_only")
    assert alone.per_round == () and round_by_round.paired(alone, str) == ""


def test_orders_set_the_rounds_against_identical_kernels_per_round_noise():
    a = [1.28, 1.12, 1.30, 1.11, 1.26, 1.10]
    b = [1.37, 1.26, 1.33, 1.27, 1.32, 1.27]
    wide = _noise(per_round=1.233)
    o = leads.orders(_row("a", a, noise=wide), _row("b", b, noise=wide), "gpu_only")
    assert not o.decided and not o.decided_by_rounds and o.paired_leader is None
    text = round_by_round.paired(o, str)
    # no round past the line: said once, not "in none of the 6 ...: not every round" (review 2026-12-07-13 item 6)
    assert text.endswith("a must clear the 1.233× line (identical kernels' per-round noise here) by more than 1% to "
                         "lead; no round clears it, so the shared rounds do not decide it")
    assert "not every round" not in text and "in none of" not in text
    narrow = _noise(per_round=1.002)
    assert leads.orders(_row("a", a, noise=narrow), _row("b", b, noise=narrow), "gpu_only").decided_by_rounds


def test_a_tie_is_not_split_by_the_rounds():
    """x ahead of b by 6% a round, of b's identical twin a by 3%, the twins 2.9% apart a round: x over b clears the
    twins' line, x over a does not, so x leads neither (review 2026-12-07-4 item 1: FA4 decided over SDPA with no
    backend pinned at GQA 16k, not over SDPA cuDNN)."""
    x, b, a = [1.0] * 6, [1.06] * 6, [1.03] * 6
    line = max(max(p / q, q / p) for p, q in zip(a, b))
    noise = _noise(per_round=line, twins=(("a", "b"),), rounds=(("a", tuple(a)), ("b", tuple(b))))
    rx, rb, ra = (_row(v, r, with_=("x", "a", "b"), noise=noise) for v, r in (("x", x), ("b", b), ("a", a)))
    over_b, over_a = leads.orders(rx, rb, "gpu_only"), leads.orders(rx, ra, "gpu_only")
    assert rules.paired_leads(rules.paired_intervals([over_b.per_round[0::2], over_b.per_round[1::2]]), line)
    assert over_b.by_rounds is None and over_b.tie_against == "a" and not over_b.decided
    assert over_a.by_rounds is None and not over_a.decided
    assert "which runs the very same kernels, and a tie is not split" in round_by_round.paired(over_b, str)
    # x further ahead, past the line against both: decided over both
    far = [1.0 / 1.05] * 6
    rf = _row("x", far, with_=("x", "a", "b"), noise=noise)
    assert leads.orders(rf, rb, "gpu_only").decided_by_rounds and leads.orders(rf, ra, "gpu_only").decided_by_rounds


def test_the_verdict_chart_says_when_the_rounds_decided():
    """Review 2026-12-07-4 item 9: the chart's whiskers overlap beside "yes" where the rounds decide."""
    from types import SimpleNamespace

    from gen.report.words import scenario_first as first_words

    a = _row("a", [1.28, 1.12, 1.30, 1.11, 1.26, 1.10])
    b = _row("b", [1.37, 1.26, 1.33, 1.27, 1.32, 1.27])
    o = leads.orders(a, b, "gpu_only")
    f = SimpleNamespace(settled=True, orders=o, plain=())
    note = first_words.rounds_note(f)
    assert note and "decided round by round, not by these whiskers" in note[0]
    assert note[1] == round_by_round.paired_joint(o) and note[1].startswith("ahead in all 6 shared rounds, each past")
    assert first_words.rounds_note(SimpleNamespace(settled=False, orders=o, plain=())) == []


# --------------------------------------------------------------------------- the committed paired H100 set

def _round_medians(ls, scenario, variant):
    rec = next(p for p in ls.rs.sweep if p.scenario == scenario and p.variant == variant
               and p.mode == schema.Mode.INFERENCE)
    return timings.round_medians(rec.timing.gpu_only_ms, rec.timing.round_sizes.get(schema.Window.GPU_ONLY))


def test_packed_documents_is_not_decided_by_rounds_that_split_by_orientation(paired):
    """Review 2026-12-07-4 item 2: FlexAttention ahead in each of the 6 shared rounds, but by 1.01-1.08x in the forward
    rounds, within identical kernels' per-round noise (borrowed: no identical pair at the point); the kernel sums, past
    their own noise and the clock gap, still put varlen behind."""
    v = verdicts.verdict(paired, "packed-documents", schema.Mode.INFERENCE)
    flex, varlen = (_round_medians(paired, "packed-documents", x) for x in ("flex", "varlen"))
    ratios = [y / x for x, y in zip(flex, varlen)]
    assert min(ratios) > 1  # FlexAttention ahead in every shared round
    o = verdicts.orders(v.fastest, v.runner_up, v.basis)
    assert v.fastest.variant == "flex" and v.runner_up.variant == "varlen" and not v.settled
    assert not o.apart and not o.decided and not o.decided_by_rounds and o.paired_leader is None
    assert o.noise.per_round_borrowed and o.noise.per_round > max(ratios)
    assert o.paired == tuple(stats.median_interval(g) for g in (ratios[0::2], ratios[1::2]))
    assert o.kernels_leader == "flex"  # behind by kernel sum: the better evidence (the review)
    head = verdict_words._headline(v)
    assert "decide it" not in head and "within noise as run" in head and "behind by kernel sum" in head


def test_on_the_older_h100_set_the_rounds_split_no_tie_and_decide_only_decode_128k(older):
    """Review 2026-12-07-4 item 1: of the 14 pairs the rounds decided there, 7 split a same-kernel tie; the rest but
    decode at 131,072 keys (identical kernels 0.999-1.000 a round) fall within identical kernels' per-round noise."""
    decided, splits = [], []
    for sc in verdicts.scenarios(older):
        for mode in schema.Mode:
            for p in calls._points(older, sc, mode):
                rows = [t for t in calls.timed_at(older, sc, p, mode) if t.status == "ok" and t.gpu_only]
                for x in rows:
                    for b in rows:
                        o = leads.orders(x, b, "gpu_only") if x is not b else None
                        if o is None or not o.decided_by_rounds:
                            continue
                        decided.append((sc, p.kv_len, x.variant, b.variant))
                        twins = [t for t in rows if t is not b and t.signature and t.signature == b.signature]
                        splits += [(sc, p, x.variant, t.variant) for t in twins
                                   if not leads.orders(x, t, "gpu_only").decided]
    assert decided and not splits
    assert {(sc, kv) for sc, kv, *_ in decided} == {("decode", 131072)}, decided


def test_paired_decode_4k_identical_kernel_sums_name_no_call_behind(paired):
    """Review 2026-12-07-4 item 6: SDPA cuDNN against SDPA with no backend pinned, same kernels, 1.019x by kernel sum
    at one clock, more than the 1% floor the sums decided by."""
    p = next(q for q in calls._points(paired, "decode", schema.Mode.INFERENCE) if q.kv_len == 4096)
    rows = {t.variant: t for t in calls.timed_at(paired, "decode", p)}
    cu, auto = rows["sdpa_cudnn"], rows["sdpa_auto"]
    ratio = max(cu.kernel_sum_ms, auto.kernel_sum_ms) / min(cu.kernel_sum_ms, auto.kernel_sum_ms)
    assert ratio > FLOOR and cu.kernel_sum_mhz == auto.kernel_sum_mhz
    o = leads.orders(*((cu, auto) if cu.gpu_only.median <= auto.gpu_only.median else (auto, cu)), "gpu_only")
    assert o.kernel_sum_noise >= ratio and o.kernels_leader is None and not o.decided


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
    """Review 2026-12-07-4 item 8: the head's "each of the next N rows" and the round-by-round rows agree: the rows say
    it is another path, which rows it skips, and its minimum (review 2026-12-07-5 item 6: 2 rounds an orientation, 4
    in all, no per-orientation level of 50% or 75%)."""
    from gen.report.words import methodology

    rows = dict(methodology.lead_rules())
    row = rows[f"{methodology.LEAD}: round by round"]
    least = rows[f"{methodology.LEAD}: round by round, how many rounds"]
    assert (f"at least {rules.PAIRED_MIN_ORIENTATION_ROUNDS} rounds of its own, so at least {rules.PAIRED_MIN_ROUNDS} "
            "shared rounds" in least and f"by more than {rules.TIME_FLOOR_PCT:g}%" in row)
    assert "another path" in row and "skips the intervals and the as-run noise rows" in row
    assert "In each round orientation on its own" in row
    assert "every shared round must clear the line" in least and not re.search(r"\b(50|75)%", row + least)
    assert "0.85" not in row and "largely cancels" not in " ".join(rows.values())
    ties = rows[f"{methodology.LEAD}: round by round, its noise and ties"]
    assert "borrowed as the as-run line is" in ties and "a tie is never split" in ties
    assert "round by round, another path" in methodology.lead_rules()[0][1]
    sums = rows[f"{methodology.LEAD}: the kernel sums' own noise"]
    assert f"past {rules.TIME_FLOOR_PCT:g}%, whichever is larger" in sums
