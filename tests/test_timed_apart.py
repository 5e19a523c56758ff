"""Calls timed apart from their point's shared rounds (a variant that ran out of memory beside the others, retried alone
after them): where each call was timed is read off the set (calls.rounds_of), and a lead between two calls not timed in
the same rounds is decided by no as-run time, only by kernel sums at one clock (rules.lead_decided). Each test fails if
the rule or its words are broken."""

from __future__ import annotations

import dataclasses

import pytest

from gen.analysis import calls, leads, method, rules, timings, verdicts
from gen.model import schema
from gen.report.words import methodology as method_words
from gen.report.words import orders as orders_words
from gen.report.words import verdicts as verdict_words
from gen.report.words.common import label
from tests.conftest import all_verdicts, committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"
FLOOR = 1 + rules.TIME_FLOOR_PCT / 100
CLOSE = 1980 * (1 - rules.CLOCK_GAP_PCT / 2 / 100)  # within the gap line of 1980 MHz
FAR = 1980 * (1 - 2 * rules.CLOCK_GAP_PCT / 100)  # past it


@pytest.fixture(scope="module")
def lead():
    return committed_set(LEAD)


def _rec(variant: str, with_: list[str], gpu: list[int], eager: list[int]) -> schema.SweepPoint:
    t = schema.Timing(interleaved_with=with_, slots={schema.Window.GPU_ONLY.value: gpu,
                                                     schema.Window.EAGER.value: eager},
                      interleave_reversed=len(with_) > 1)
    return schema.SweepPoint(variant=variant, point=None, status="ok", timing=t)


def test_rounds_of_reads_shared_alone_after_own_and_unknown():
    shared = ["a", "b", "c"]
    a = _rec("a", shared, [0, 12, 18], [1, 13, 19])
    b = _rec("b", shared, [3, 9, 21], [4, 10, 22])
    c = _rec("c", shared, [30, 31, 32], [7, 16, 25])  # its graph replayed after the rounds
    d = _rec("d", [], [0, 3, 6], [1, 4, 7])  # retried alone: a sequence of its own
    peers = [a, b, c, d]
    assert [calls.rounds_of(r, peers)[0] for r in peers] == [calls.SHARED, calls.SHARED, calls.AFTER, calls.ALONE]
    assert calls.rounds_of(a, peers)[1] == tuple(shared)
    # no shared rounds at the point: each in a sequence of its own
    assert calls.rounds_of(d, [d, _rec("e", [], [0, 3], [1, 4])])[0] == calls.OWN
    # a set before slots: not known, read as before
    old = schema.SweepPoint(variant="a", point=None, status="ok", timing=schema.Timing())
    assert calls.rounds_of(old, [old, d]) == (calls.UNKNOWN, ())


def _row(variant, ms, rounds, with_=(), ks=None, ks_mhz=None):
    """A row whose as-run interval is the floor band around `ms`, timed where `rounds` says."""
    s = timings.Spread(n=20, median=ms, q1=ms, q3=ms, ci_lo=ms / FLOOR, ci_hi=ms * FLOOR, rounds=5)
    return calls.Timed(variant, "ok", gpu_only=s, kernel_sum_ms=ks, kernel_sum_mhz=ks_mhz, rounds=rounds,
                       rounds_with=tuple(with_), forward_ms=ms if rounds == calls.SHARED else None,
                       reversed_ms=ms if rounds == calls.SHARED else None)


def test_a_pair_timed_apart_is_not_decided_by_the_as_run_times():
    pair = ("fa4", "flex_flash")
    a = _row("fa4", 2.80, calls.SHARED, pair, ks=2.79, ks_mhz=1920)
    b = _row("flex_flash", 3.06, calls.ALONE, ks=2.87, ks_mhz=1575)  # the sliding-window pattern: clocks 18% apart
    o = leads.orders(a, b, "gpu_only")
    assert o.apart and o.as_run > FLOOR and o.timed_apart and not o.decided
    assert orders_words.state(o) == "not decided"
    # the same as-run times taken in the same rounds decide
    together = leads.orders(a, dataclasses.replace(b, rounds=calls.SHARED, rounds_with=pair), "gpu_only")
    assert not together.timed_apart and together.decided
    text = orders_words.brief(o, label)
    assert ("FlexAttention (FLASH backend) was timed alone after the others (it ran out of memory beside them), so its "
            "time and FlashAttention-4 (flash_attn.cute)'s were taken in different conditions") in text
    assert "the as-run order decides nothing between them" in text and "cannot decide it" in text
    assert "noise of identical kernels" not in text  # the noise line is of the shared rounds
    # the rule itself, without the Orders
    assert not rules.lead_decided(True, 1.09, None, same_rounds=False)
    assert rules.lead_decided(True, 1.09, None, same_rounds=None)


def test_a_pair_timed_apart_is_decided_by_kernel_sums_at_close_clocks():
    pair = ("fa4", "flex_flash")
    a = _row("fa4", 2.80, calls.SHARED, pair, ks=2.70, ks_mhz=1980)
    b = _row("flex_flash", 3.06, calls.ALONE, ks=2.70 * FLOOR * 1.05, ks_mhz=CLOSE)
    o = leads.orders(a, b, "gpu_only")
    assert o.timed_apart and o.decided
    assert "agree with it beyond" in orders_words.brief(o, label) and "decide it" in orders_words.brief(o, label)
    # not at clocks past the line, nor with sums within the floor, nor with sums that disagree
    assert not leads.orders(a, dataclasses.replace(b, kernel_sum_mhz=FAR), "gpu_only").decided
    assert not leads.orders(a, dataclasses.replace(b, kernel_sum_ms=2.70 * FLOOR * 0.999), "gpu_only").decided
    assert not leads.orders(a, dataclasses.replace(b, kernel_sum_ms=2.60), "gpu_only").decided
    assert not leads.orders(a, dataclasses.replace(b, kernel_sum_ms=None), "gpu_only").decided
    # both timed alone, each in a sequence of its own: not in the same rounds either
    both = leads.orders(dataclasses.replace(a, rounds=calls.ALONE, rounds_with=()),
                        dataclasses.replace(b, kernel_sum_mhz=FAR), "gpu_only")
    assert both.timed_apart and not both.decided and "were each timed alone" in orders_words.brief(both, label)


def _apart_at_verdict(v) -> list[str]:
    return [t.variant for t in v.rows if t.rounds in (calls.ALONE, calls.AFTER)]


def test_a_lead_past_what_conditions_can_move_stands_though_timed_apart():
    reach = rules.TIMED_APART_REACH
    assert rules.lead_decided(True, reach * 1.5, None, same_rounds=False)  # e.g. 12x over a compiled naive product
    assert not rules.lead_decided(True, reach * 0.95, None, same_rounds=False)
    # the fair kernel sums contradicting it: not decided
    assert not rules.lead_decided(True, reach * 1.5, None, kernel_sum_ratio=0.9, kernel_sum_gap=1.0, same_rounds=False)
    # unfair sums (clocks far apart) neither decide nor contradict
    assert rules.lead_decided(True, reach * 1.5, None, kernel_sum_ratio=0.9, kernel_sum_gap=20.0, same_rounds=False)


def test_on_the_set_no_lead_over_a_call_timed_apart_stands_on_the_as_run_order(lead):
    seen = 0
    for v in all_verdicts(lead):
        if v.basis != "gpu_only":
            continue
        for t in v.rows:
            for x in v.rows:
                if x is t or t.gpu_only is None or x.gpu_only is None or calls.same_rounds(t, x) is not False:
                    continue
                o = leads.orders(t, x, v.basis)
                seen += 1
                if o.decided and o.as_run <= rules.TIMED_APART_REACH:  # by the kernel sums at one clock alone
                    assert o.kernel_sum is not None and o.kernel_sum > FLOOR and o.kernel_sum_fair
                    assert rules.clock_gap_pct(o.first_ks_mhz, o.second_ks_mhz) is not None
                elif o.decided:  # past what the conditions can move a time, the fair sums not contradicting
                    assert not (o.kernel_sum_fair and o.kernel_sum is not None and o.kernel_sum * FLOOR < 1)
    assert seen


def test_the_sliding_window_verdict_does_not_name_a_leader_over_a_call_timed_alone(lead):
    v = verdicts.verdict(lead, "sliding-window", schema.Mode.INFERENCE)
    alone = [x for x in _apart_at_verdict(v) if v.row(x).rounds == calls.ALONE]
    assert alone, "the set records a call at this point retried alone after the shared rounds"
    f = v.fastest
    rivals = [x for x in alone if x != f.variant and v.row(x).gpu_only is not None]
    # the set's fastest call and its nearest rival timed alone, by as-run median
    rival = min(rivals, key=lambda x: v.row(x).gpu_only.median)
    o = leads.orders(f, v.row(rival), v.basis)
    assert o.timed_apart
    words = verdict_words.verdict(v).headline
    if not o.decided:
        assert rival in v.near and "is the fastest here" not in words and "not decided" in words
    assert (f"{label(rival)} was timed alone after the others (it ran out of memory beside them), so its time and "
            f"{label(f.variant)}'s were taken in different conditions") in words
    # the scenario page's headline says it too
    from gen.report.words import scenarios as scenario_words
    note = scenario_words._orders_sentences(v.orders, v.undecided(), [], v.rows, label)
    assert "was timed alone after the others" in note


def test_the_methodology_says_how_a_call_timed_alone_is_treated(lead):
    counts = method.timed_apart(lead.rs)
    text = method_words.timed_alone(counts.alone, counts.after, counts.later)
    assert "timed after them, in later rounds of their own" in text and f"within {rules.CLOCK_GAP_PCT:g}%" in text
    assert f"{counts.alone} variant-points of this set's sweep were timed alone" in text
    by_hand = 0
    here: dict = {}
    for p in lead.rs.sweep:
        here.setdefault((p.scenario, p.mode, p.point), []).append(p)
    for peers in here.values():
        shared = any(len(p.timing.interleaved_with) > 1 for p in peers if p.timing is not None)
        by_hand += sum(1 for p in peers if p.status == "ok" and shared and p.timing.slots
                       and not p.timing.interleaved_with)
    assert counts.alone == by_hand


def test_calls_retried_together_in_later_rounds_compare_with_one_another_not_with_the_first_rounds():
    first, later = ["a", "b"], ["c", "d"]
    a, b = _rec("a", first, [0, 6, 12], [1, 7, 13]), _rec("b", first, [3, 9, 15], [4, 10, 16])
    c, d = _rec("c", later, [0, 6, 12], [1, 7, 13]), _rec("d", later, [3, 9, 15], [4, 10, 16])
    c.timing.interleave_later = d.timing.interleave_later = True
    peers = [a, b, c, d]
    assert [calls.rounds_of(r, peers)[0] for r in peers] == [calls.SHARED, calls.SHARED, calls.LATER, calls.LATER]
    row = {r.variant: _row(r.variant, 3.0, calls.rounds_of(r, peers)[0], calls.rounds_of(r, peers)[1]) for r in peers}
    assert calls.same_rounds(row["c"], row["d"]) and calls.same_rounds(row["a"], row["b"])
    assert not calls.same_rounds(row["a"], row["c"])
    o = leads.orders(_row("fa4", 2.80, calls.SHARED, ("fa4", "x"), ks=2.79, ks_mhz=1920),
                     _row("flex_flash", 3.06, calls.LATER, ("flex_flash", "flex"), ks=2.87, ks_mhz=1575), "gpu_only")
    assert o.timed_apart and not o.decided
    # the calls it took turns with named (review 2026-12-07-9 item 12: "with the calls that ran out of memory" read
    # as if it had shared rounds with the first ones)
    assert ("FlexAttention (FLASH backend) did not fit in memory beside the others and was timed in later rounds of "
            "its own, taking turns with FlexAttention (compiled), which did not fit either, so its time and "
            "FlashAttention-4 (flash_attn.cute)'s were taken in different conditions") in orders_words.brief(o, label)
    text = method_words.timed_alone(0, 0, 2)
    assert "2 were timed in later rounds with the others that ran out of memory" in text
