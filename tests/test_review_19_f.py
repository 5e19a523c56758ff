"""Review 19 (docs/notes/review-2026-12-07-10.md), the findings fixed on branch s46-F: 1 (the eager-loop lead read
from the data in either direction), review 18 item 1's residual on the scenario page, 3 (cuDNN's set-up on every set
that picks it), 7 and 8 (readability), 10 and 11 (unsupported and missing). Numbers are read from the committed sets
or from small synthetic facts, never typed in where the sets give them."""

from __future__ import annotations

import re

import pytest

from gen.report.words import common as words
from gen.report.words import host as host_words
from gen.report.words import verdicts as verdict_words
from tests.conftest import CAPTURED_LATER, all_verdicts, committed_set


@pytest.fixture(scope="module")
def older():
    """The older H100 set, the one the home answers for."""
    return committed_set(CAPTURED_LATER[0])


# --------------------------------------------------------------------------- finding 1: the loop's leader, either way


def test_the_loop_lead_names_the_call_faster_in_the_loop_either_way():
    """The GPU leader leads in the loop too (the paired chunked case) or the other call does (the older decode case):
    the sentence names as leader whichever call has the smaller eager median, and prints its time first."""
    same = host_words.loop_lead("A", "B", (0.1316, 0.1815), 2.96)
    assert same.startswith("In an eager loop on this host A leads B by 1.38× (131.6 µs against 181.5 µs")
    assert "not by the 2.96× it leads by on the GPU alone" in same
    reversed_ = host_words.loop_lead("A", "B", (0.3963, 0.1892), 1.006)
    assert reversed_.startswith("In an eager loop on this host B leads A by 2.09× (189.2 µs against 396.3 µs")
    assert "where A leads by 1.01×" in reversed_ and "A leads B" not in reversed_


def test_the_decision_clause_says_faster_where_the_loop_reverses():
    """What to call's "X is 2.96× slower; … in an eager loop it is …": "slower" only where the loop agrees."""
    assert "1.38× slower (181.5 µs against 131.6 µs" in host_words.loop_clause((0.1316, 0.1815), "A")
    assert " faster (" in host_words.loop_clause((0.1815, 0.1316), "A")


def test_every_verdict_names_the_loop_leader_by_its_eager_median(older, paired):
    """On the committed sets, each verdict whose fastest call is host-bound names as the loop's leader the call with
    the smaller eager median; the older set's decode verdict is one where the loop reverses the GPU's order."""
    reversed_seen = 0
    for ls in (older, paired):
        for v in all_verdicts(ls):
            if v.loop_ms is None:
                continue
            text = " ".join(verdict_words.verdict(v).lines)
            f, r = v.fastest, v.runner_up
            lead, behind = (f, r) if f.eager.median <= r.eager.median else (r, f)
            reversed_seen += lead is r
            assert f"{words.label(lead.variant)} leads {words.label(behind.variant)} by " \
                   f"{words.times(behind.eager.median / lead.eager.median)}" in text, (ls.name, v.scenario)
            assert f"{words.label(behind.variant)} leads {words.label(lead.variant)}" not in text
    assert reversed_seen, "the older set's decode verdict: FlashAttention-4 leads in the loop, FlexAttention on the GPU"


# ------------------------------------------------ review 18 item 1's residual: the scenario page's loop gain beside it


def test_the_scenario_page_gives_the_loop_gain_beside_the_gpu_one(older, paired):
    """Where the verdict's fastest is host-bound, the scenario page's Gain cell gives the gain an eager loop gets beside
    the GPU-only one, and its loop note the next call's loop time (paired chunked prefill: 2.96× and 1.38×)."""
    from gen.analysis import verdict_point
    from gen.report.words import scenario_first

    seen = 0
    for ls in (older, paired):
        for v in all_verdicts(ls):
            f = verdict_point.point_facts(ls, v.scenario, str(v.mode))
            if f is None or f.loop_ms is None or f.named_at is not None:
                continue
            seen += 1
            mine, theirs = f.loop_ms
            cell = scenario_first.gain_cell(f)
            lp = f.loop
            if lp is not None and lp.fastest not in (f.fastest, f.runner_up) and lp.fastest_ms < min(mine, theirs):
                # review 20 item 4: a third call faster in the loop than both: its lead, as the note under the table
                assert cell.endswith(f"in an eager loop {words.label(lp.fastest)} is "
                                     f"{words.times(mine / lp.fastest_ms)} faster than "
                                     f"{words.short_label(f.fastest)}"), cell
            else:
                assert cell.endswith(host_words.in_loop(f.loop_ms, words.label(f.runner_up))), cell
            note = scenario_first.loop_note(f) or ""
            if f.loop.fastest == f.fastest:
                assert f"{words.label(f.runner_up)} {words.us(theirs)}: a {words.times(theirs / mine)} lead" in note
    assert seen, "the paired set's chunked-prefill verdict has a host-bound fastest call"


def test_a_loop_gain_cell_names_the_other_call_where_the_loop_reverses():
    assert host_words.in_loop((0.1316, 0.1815), "B") == "1.38× in an eager loop"
    assert host_words.in_loop((0.3963, 0.1892), "B") == "B 2.09× faster in an eager loop"
    # review 20 item 4: the decision table's exception row, against SDPA unpinned, never a gain below 1×
    from gen.report.words import first_screen
    gain = first_screen.loop_cell("1.05×", (0.9309, 0.2664))
    assert gain == ("1.05× on the GPU; SDPA (backend not pinned) 3.49× faster in an eager loop, where the call is "
                    "host-bound (930.9 µs against 266.4 µs a call)")


def test_the_training_row_gives_the_loop_leader_not_a_gain_over_the_runner_up(older):
    """Review 20 item 4: FlashAttention-4 leads FlexAttention on the GPU in training at the article's shape and is
    host-bound; in a loop SDPA (backend not pinned) is 3.49× faster than it, which the cell says, not "1.46×"."""
    from gen.analysis import verdict_point
    from gen.report.words import scenario_first

    f = verdict_point.point_facts(older, "article", "train")
    cell = scenario_first.gain_cell(f)
    assert cell.endswith("on the GPU, timed apart, which decides nothing; in an eager loop SDPA (backend not pinned) "
                         "is 3.49× faster than FlashAttention-4"), cell
    assert "1.46×" not in cell


# --------------------------------------------------------------- finding 3: cuDNN's set-up wherever SDPA is named


def test_every_set_that_names_sdpa_on_cudnn_warns_of_its_set_up(older, paired, h200_new):
    """Review 19 item 3: the older set names SDPA (backend not pinned) for the article's shape though its default is
    FlashAttention-4, and said nothing of cuDNN's set-up per new kind of problem; the paired and H200 sets (default
    SDPA) did. Wherever What to call names SDPA unpinned, default or exception, its first screen gives that set-up."""
    from gen.analysis import advice
    from gen.analysis.values import variant_role
    from gen.report.words import decision as decision_words

    auto = variant_role("automatic")
    for ls in (older, paired, h200_new):
        a = advice.advice(ls)
        names = a.default == auto or any(e.variant == auto for e in a.exceptions)
        s = a.startup if a.default == auto else a.auto_startup
        assert names and s is not None, ls.name
        first = [f for f in s.first_calls if f.new_kind]
        assert first, ls.name
        text = " ".join(decision_words.advice(a).lines)
        assert s.backend == "cudnn", s.backend  # SDPA unpinned picks cuDNN at the article's shape on these sets
        assert "of cuDNN set-up at each new kind of problem" in text, ls.name
        if a.default != auto:  # the call the reader is told to make, not the process's first cuDNN call
            assert f"Where you call {words.label(auto)} as above: expect about" in text, text
    assert advice.advice(older).auto_startup is not None and advice.advice(older).default != auto


# ------------------------------------------------------- findings 7 and 8: a verb for each clause, one ratio each


def test_the_sums_clause_past_a_clock_gap_has_its_verb(older, paired):
    """Review 19 item 7: "the kernel sums, taken at clocks 6.1% apart (...), their 1.38× lead more than the 1.065× ..."
    and "..., their leader at the higher one (...)" had no verb for "their lead"/"their leader"."""
    from gen.analysis import verdict_point
    from gen.report.words import orders as orders_words

    seen = 0
    for ls in (older, paired):
        f = verdict_point.point_facts(ls, "sliding-window", "inference")
        text = orders_words.timed_apart(f.orders, words.label)
        seen += 1
        assert "lead more than" not in text and ", their leader at" not in text, text
        # the refused sums' clocks in the one form a gap takes, the side at the higher clock named (review 24 #10)
        assert "and leading by " in text or re.search(r"taken with .*?'s clock \d+(\.\d)?% higher", text), text
    assert seen == 2


# ------------------------------------------------------------------- finding 10: why What to call names one of a tie


def test_a_tie_named_gives_the_reason_what_to_call_used(older, paired):
    """Review 19 item 10: the older decode page named FlashAttention-4 over FlexAttention (FLASH backend) with a tie as
    its only reason. Where What to call names its default over a fastest it shares the first rank with, the note says
    it keeps its default there, and where an eager loop puts the named call ahead, by how much (its eager medians)."""
    from gen.analysis import verdict_point, verdicts
    from gen.report.words import scenario_first

    seen = 0
    for ls in (older, paired):
        for s in verdicts.scenarios(ls):
            for f in verdict_point.point_facts_all(ls, s):
                note = scenario_first.named_note(f)
                if note is None or f.named_rank != 1 or not f.named_default or "share the first rank" not in note:
                    continue
                seen += 1
                assert "keeps its default" in note, note
                if f.loop_ms is not None and f.runner_up == f.named and f.loop_ms[0] > f.loop_ms[1]:
                    assert f"also {words.times(f.loop_ms[0] / f.loop_ms[1])} faster, {words.us(f.loop_ms[1])}" in note
    decode = verdict_point.point_facts(older, "decode", "inference")
    assert decode.named == "fa4" and decode.named_default and "keeps its default" in scenario_first.named_note(decode)
    assert seen


# ------------------------------------------------------- finding 11: a third call fastest at another head dim


def test_a_third_call_fastest_at_another_head_dim_is_named(older):
    """Review 19 item 11: the article paragraph compared SDPA and FlashAttention-4 at head dim 128 and left out that
    FlexAttention (FLASH backend) is fastest by median at 16k. Every such point is named with its own figures; a call
    running either's kernels (SDPA cuDNN beside SDPA unpinned) is not a third call."""
    from gen.analysis import advice
    from gen.report.words import sweep_turns

    a = advice.advice(older)
    seen = 0
    for e in a.exceptions:
        text = sweep_turns.other_dims_line(a, e)
        for od in e.other_dims:
            for q in od.points:
                if q.third is None:
                    continue
                seen += 1
                who, ms, pair = q.third.variant, q.third.median_ms, q.third.orders
                assert who not in (a.default, e.variant)
                assert [o.second for o in pair] == [a.default, e.variant] and all(o.first == who for o in pair)
                head = (f"At head dim {od.head_dim}, {q.kv_len // 1024}k tokens, {words.label(who)} has the lowest "
                        f"median, {words.us(ms)} as run")
                assert head in text
                # review 20 item 1: against both calls, by the pair rule (Orders.decided), with the clock gap
                for o in pair:
                    # the side with the higher clock named: "SDPA 1.15× behind as run, X's clock 9.8% higher"
                    assert re.search(rf"{re.escape(words.short_label(o.second))} {re.escape(words.times(o.as_run))} "
                                     r"behind as run, \S+'s? clock \d+(\.\d)?% higher", text), text
                if not any(o.decided for o in pair):
                    assert head + ", but " in text and "within noise of it" in text and " ahead of " not in text
                assert ms < min(q.default_ms, q.variant_ms)
        depth = 0
        for ch in text:  # brackets one deep
            depth += (ch == "(") - (ch == ")")
            assert depth <= 1, text
    assert seen, "the older set: FlexAttention (FLASH backend) is fastest by median at head dim 128, 16k"


# ------------------------------------------------------- review 20 item 1: the third call by the pair rule


def test_the_third_call_at_head_dim_128_is_within_noise_of_both(older):
    """Review 20 item 1: at head dim 128, 16k, FlexAttention (FLASH backend) has the lowest median but is decided
    against neither FlashAttention-4 nor SDPA; the sentence says so, with the as-run clock gaps and the kernel sums."""
    from gen.analysis import advice
    from gen.report.words import sweep_turns

    a = advice.advice(older)
    e = next(x for x in a.exceptions if x.scenario == "article")
    q = next(q for od in e.other_dims for q in od.points if q.third)
    assert not any(o.decided for o in q.third.orders)
    text = sweep_turns.other_dims_line(a, e)
    assert ("FlexAttention (FLASH backend) has the lowest median, 12.364 ms as run, but FlashAttention-4 and SDPA are "
            "within noise of it: FlashAttention-4 1.12× behind as run, FlexAttention's clock 6.5% higher, and by "
            "kernel sum "
            "1.03×") in text
    assert "SDPA 1.15× behind as run, FlexAttention's clock 9.8% higher, and by kernel sum 1.09×" in text
    assert text.endswith("No call leads decidedly there.")


# ------------------------------------- review 20 items 5 and 6: a tie said as a tie, a clock gap past the gate


def test_a_loop_lead_over_a_gpu_tie_says_tie():
    """Review 20 item 6: the older decode verdict ties FlexAttention and FlashAttention-4 on the GPU (1.006×); the loop
    sentence says they tie there, not that FlexAttention "leads by 1.01×"."""
    tie = host_words.loop_lead("A", "B", (0.3963, 0.1892), 1.006, tie=True)
    assert tie.startswith("In an eager loop on this host B leads A by 2.09× (189.2 µs against 396.3 µs")
    assert tie.endswith("where on the GPU alone the two tie, within noise") and "leads by 1.01" not in tie


def test_the_older_decode_verdict_says_the_gpu_tie(older):
    from gen.analysis import verdicts
    v = verdicts.verdict(older, "decode", "inference")
    assert v.runner_up.variant in v.near
    text = " ".join(verdict_words.verdict(v).lines)
    assert "leads FlexAttention (FLASH backend) by 2.10×" in text and "where on the GPU alone the two tie" in text
    assert "where FlexAttention (FLASH backend) leads by" not in text


def test_the_higher_clock_is_said_only_past_the_gate():
    """Review 20 item 5: 1980 against 1975 MHz (0.25%) is no higher clock worth a "though"; 1821 against 1601 is."""
    from gen.analysis import calls, rules
    from gen.report.words import orders as orders_words
    near = orders_words.sum_off_graph(calls.OffGraph("sdpa_flash", 1.19, 1980.0, 1975.0), "SDPA flash")
    far = orders_words.sum_off_graph(calls.OffGraph("flex_flash", 1.125, 1821.0, 1601.0), "FlexAttention")
    assert "higher clock" not in near and ", at 1980 against 1975 MHz;" in near
    assert "though taken at the higher clock" in far
    assert rules.clock_gap_pct(1980.0, 1975.0) < rules.CLOCK_GAP_PCT < rules.clock_gap_pct(1821.0, 1601.0)
