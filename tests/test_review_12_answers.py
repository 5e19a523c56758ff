"""Review 2026-12-07-3 (a kernel engineer's read of the paired H100 set, the home's first screen and the rules table),
findings 4-7 and 9-12: each fix, on the committed sets and the words the build makes of them. Numbers are the sets',
read through the analysis, never typed in where a set gives them."""

from __future__ import annotations

import pytest

from gen.analysis import advice, leads, rules, tables, verdict_point, verdicts
from gen.report.pages import decision as decision_page
from gen.report.words import decision as decision_words
from gen.report.words import methodology as method_words
from gen.report.words import orders as orders_words
from gen.report.words import scenario_first as first_words
from gen.report.words.common import label, short_label
from tests.conftest import H100_PAIRED, RESULTS, committed_set

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
PAIRED = H100_PAIRED


@pytest.fixture(scope="module")
def older():
    return committed_set(H100)


def _one(ls, scenario, mode="inference", scope=None):
    return next(f for f in verdict_point.point_facts_all(ls, scenario) if f.mode == mode and f.scope == scope)


# --------------------------------------------------------------------------- 6: a clock gap explains at most its ratio


def test_a_clock_gap_explains_at_most_its_own_ratio():
    # the review's sliding-window pair: 1.377x by kernel sum, the leader at 1980 against 1860 MHz: 1.29x is left
    left = rules.sums_past_clock(1.377, 1980, 1860)
    assert left == pytest.approx(1.377 / (1980 / 1860)) and left > rules.TIME_FLOOR
    # the older set's FA4 against FLASH: 1.03x at 1920 against 1575 MHz, all of it the gap's: the sums say nothing,
    # and what is left never turns the order round
    assert rules.sums_past_clock(1.03, 1920, 1575) is None
    assert rules.sums_past_clock(1 / 1.03, 1575, 1920) is None
    # a leader at the lower clock keeps its whole lead
    assert rules.sums_past_clock(1.2, 1700, 1965) == pytest.approx(1.2)
    assert rules.sums_past_clock(1 / 1.2, 1965, 1700) == pytest.approx(1 / 1.2)


def test_the_paired_sliding_window_verdict_is_decided_by_the_sums_past_the_clock_gap(paired):
    f = _one(paired, "sliding-window")
    o = f.orders
    assert f.settled and f.fastest == "flex" and o.timed_apart and o.decided and o.sums_decide
    assert rules.clock_gap_pct(o.first_ks_mhz, o.second_ks_mhz) > rules.CLOCK_GAP_PCT
    assert o.past_clock == pytest.approx(o.kernel_sum * o.second_ks_mhz / o.first_ks_mhz)
    text = orders_words.timed_apart(o, label)
    assert (f"and leading by {o.kernel_sum:.2f}×, more than the {o.clock_explains:.3f}× that gap can explain "
            f"({o.past_clock:.2f}× left") in text and text.endswith("and decide it")
    assert first_words.holds_cell(f) == "yes, by kernel sum (timed apart)"


def test_a_lead_the_gap_can_explain_still_decides_nothing(older):
    # the older set's sliding windows: FA4 1.03x by kernel sum at clocks 18% apart: not decided, and the page says
    # how much the gap could explain
    f = _one(older, "sliding-window")
    o = f.orders
    assert not f.settled and o.past_clock is None and not o.decided
    said = orders_words.timed_apart(o, label)
    assert "their 1.03× lead is inside the 1.219× that a 22% clock gap can explain" in said


def test_memory_bound_points_keep_the_gate(older):
    # decode: HBM's time need not follow the SM clock, so sums past the gap decide nothing there
    seen = 0
    for s in verdicts.scenarios(older):
        for f in verdict_point.point_facts_all(older, s):
            for o in (f.orders, *f.near_orders):
                if o is not None and o.memory_bound and o.kernel_sum is not None:
                    seen += 1
                    assert o.past_clock is None
    assert seen


def test_the_rules_table_states_the_clock_gap_rule():
    rows = dict(method_words.lead_rules())
    row = rows[f"{method_words.LEAD}: kernel sums at clocks apart"]
    gap = rows[f"{method_words.LEAD}: a clock gap"]  # the gap's measure, stated once (review 20, Part 1 item 7)
    assert f"more than {rules.CLOCK_GAP_PCT:g}% apart" in row and "1 + g" in gap and "the higher over the lower" in gap
    assert f"1 + {rules.TIME_FLOOR_PCT:g}%" in row and "memory-bound" in row
    assert leads.BY_KERNEL_SUM  # the measure those leads are given by


# --------------------------------------------------------------------------- 4: an answer row carries its verdict


def test_an_answer_row_never_names_a_bare_winner_where_its_verdict_names_none(paired, older):
    for ls in (paired, older):
        a = advice.advice(ls)
        rows = {r["workload"]: r for r in decision_page.table_rows(ls)}
        for e in a.exceptions:
            v = verdicts.verdict(ls, e.scenario, e.mode)
            row = next(r for w, r in rows.items() if r["variant"] == e.variant and w.lower().startswith(
                decision_page._title(ls, e.scenario).lower()[:8]))
            if not v.settled and e.alternative is not None:  # named before a mask call (review 2026-12-07-6 item 1)
                assert row["condition"].startswith(f"within noise of {short_label(e.alternative)} as run ("), row
            elif not v.settled:
                assert "shares the first rank with" in row["condition"], row
            elif e.by_sums is not None:
                assert row["condition"].startswith("first by kernel sum"), row


def test_the_paired_packed_and_sliding_rows_say_what_their_verdicts_say(paired):
    rows = {r["workload"]: r["condition"] for r in decision_page.table_rows(paired)}
    packed = next(c for w, c in rows.items() if w.startswith("Packed"))
    # FlexAttention ahead of varlen in each of the 6 shared rounds, but within identical kernels' per-round noise in the
    # forward rounds (review 2026-12-07-4 item 2): the row gives the standing, the rank shared, varlen behind by sums
    # (the clocks beside each kernel-sum lead: review 2026-12-07-5 item 3, tests/test_review_14_b.py)
    # since review 2026-12-07-6 items 1 and 4 the row names varlen_attn, FlexAttention beside it within noise as run
    assert packed.startswith("within noise of FlexAttention as run (1.286 ms against 1.140 ms); FlexAttention is 1.11× "
                             "faster by kernel sum (")
    assert "; at 16,384 tokens" in packed
    sliding = next(c for w, c in rows.items() if w.startswith("Sliding"))
    assert sliding.startswith("first by kernel sum (timed apart), 1.38× (") and "); at 16,384 tokens" in sliding
    # the fold: two calls timed apart ranked by the kernel sums that decide them; the standing follows
    words = decision_words.advice(advice.advice(paired))
    fold = next(x for x in words.lines if x.startswith("For sliding windows"))
    assert "varlen_attn (packed, cu_seqlens) 1.38× slower than FlexAttention by kernel sum (timed apart)" in fold
    assert "At that point it is first by kernel sum (timed apart), 1.38× (" in fold
    fold = next(x for x in words.lines if x.startswith("For packed documents"))
    ratio = verdicts.verdict(paired, "packed-documents", "inference").ratio
    assert fold.startswith("For packed documents, use varlen_attn (packed, cu_seqlens)")
    assert "FlexAttention (compiled) shares the first rank with it as run (1.140 ms against 1.286 ms)" in fold
    assert ratio == pytest.approx(1.286 / 1.140, abs=0.01)


def test_the_standing_words_for_a_pair_not_decided():
    # a pair the rule leaves not decided, as the older H100 set's sliding verdict (timed apart, sums not fair)
    o = _one(tables.load_set(RESULTS / H100), "sliding-window").orders
    assert orders_words.first_place((o,), None, label) == (
        "shares the first rank with FlexAttention (FLASH backend) (not decided: timed apart)")


# --------------------------------------------------------------------------- 7: the lines under the opening's table


def _largest(ls, scenario):
    from gen.analysis import scenarios as sa
    from gen.report.pages import scenario_first as first_page
    from gen.report.site import records

    v = verdicts.verdict(ls, scenario)
    p = verdicts.point_of(ls, scenario, "inference")
    rows = sa.point_rows(ls, scenario)
    versus = sa.versus_frame(None, sa.anchor_frame([ls], scenario, ls), rows)
    head = sa.headline(None, versus, scenario, rows, records(versus))
    return first_page.largest_lines(ls, scenario, head, v, p, "inference")


def test_the_lines_under_the_table_say_of_those_measured_where_fa4_was_not(paired, older):
    for scenario in ("article", "gqa-prefill", "decode"):
        lines = _largest(paired, scenario)
        assert lines and all(", of those measured," in x for x in lines), lines
    assert not any("of those measured" in x for x in _largest(older, "article"))


def test_the_head_dim_128_line_gives_its_times_and_clocks(paired):
    line = _largest(paired, "article")[-1]
    v = verdicts.verdict_at(paired, "article", next(
        s.point for s in paired.rs.sweep if s.scenario == "article" and s.point.kv_len == 16384
        and s.point.head_dim == 128))
    for x in (v.fastest.variant, *v.same_kernel):
        t = v.row(x)
        assert f"{label(x)} {v.spread(t).median:.3f} ms at {t.sm_clock_mhz:.0f} MHz" in line, line


def test_the_compare_page_says_where_as_run_times_differ_and_kernel_sums_agree(paired, older):
    from gen.analysis import compare
    from gen.report.words import compare as compare_words

    found = compare.as_run_apart(older, paired)
    top = found[0]
    assert (top.scenario, top.point.head_dim, top.point.kv_len, top.variant) == ("article", 128, 16384, "sdpa_cudnn")
    for r in found:
        assert max(r.a_ms, r.b_ms) / min(r.a_ms, r.b_ms) > 1 + rules.ORIENTATION_GAP_PCT / 100
        assert max(r.a_ks_ms, r.b_ks_ms) / min(r.a_ks_ms, r.b_ks_ms) <= rules.TIME_FLOOR
    text = compare_words.as_run_apart(found, label)
    assert "depends on the rounds' order and the clock they ran at, not on the kernel" in text
    assert "SDPA cuDNN at article, 16,384 tokens, head dim 128: 13.704 ms at 1514 MHz in A against 16.582 ms" in text
    # sets of other GPUs are never set against each other so
    assert compare.as_run_apart(older, tables.load_set(RESULTS / "nvidia-h200__torch-2.11.0")) == []


# --------------------------------------------------------------------------- 9, 10, 12: marks and words


def test_a_ceiling_window_under_a_second_marks_its_averaged_power(paired):
    from gen.analysis import clocks
    from gen.report.words import tables as table_words

    lines = {c.kind: (c, table_words.ceiling_line(c, paired.rs.environment)) for c in clocks.ceilings(paired)}
    for kind in ("matmul", "copy", "read"):
        c, line = lines[kind]
        assert c.conditions.duration_s < rules.NVML_POWER_WINDOW_S
        assert f"≈{c.conditions.power_avg_w:.0f} W averaged" in line, line
        assert f"{c.conditions.power_w:.0f} W instant" in line and f"≈{c.conditions.power_w:.0f} W instant" not in line


def test_a_rate_just_past_the_read_pass_is_flagged():
    from gen.report.words import tables as table_words

    assert table_words.pass_flag(100.6, "the measured read pass").startswith(
        "; at or just above the measured read pass, within the 1% time floor of it")
    assert table_words.pass_flag(107.0, "the measured read pass").startswith("; above the measured read pass")
    assert table_words.pass_flag(99.4, "the measured read pass") == ""


def test_never_held_for_power_where_no_window_was():
    from gen.report.words import tables as table_words

    rows = [dict(sm_clock_mhz=1980.0, power_w=600.0, power_cap_share=0.0, telemetry_window_s=2.0),
            dict(sm_clock_mhz=1980.0, power_w=650.0, power_cap_share=0.0, telemetry_window_s=2.0)]
    text = table_words._range(rows)
    assert "never held for power" in text and "up to 0%" not in text
    rows[1]["power_cap_share"] = 0.2
    assert "held for power up to 20% of samples" in table_words._range(rows)


# --------------------------------------------------------------------------- 11: chunked prefill's yardstick and loop


def test_a_point_left_of_the_ridge_is_rated_by_its_memory_side_too(paired):
    from gen.analysis import scenarios as sa
    from gen.report.words import ceiling_share

    rows = [r for r in sa.point_rows(paired, "chunked-prefill") if r["status"] == "ok" and r["q_len"] == 16
            and r["ceiling"] == "matmul"]
    r = rows[0]
    assert r["intensity"] < r["ridge_intensity"]
    text = ceiling_share.matmul_share(r)
    assert (f"below the roofline's ridge ({r['intensity']:.0f} against {r['ridge_intensity']:.0f} FLOP/B), so its "
            f"bound is memory: {r['achieved_tbps']:.2f} TB/s, {r['pct_of_read']:.0f}% of the measured read "
            "pass") in text
    # a point right of the ridge says nothing of it
    assert ceiling_share.matmul_share({**r, "intensity": r["ridge_intensity"] * 2}).find("ridge") == -1


def test_the_loop_never_calls_a_call_the_fastest_past_a_faster_wrong_one(paired):
    f = _one(paired, "chunked-prefill")
    lp = f.loop
    assert lp is not None and lp.wrong_faster
    w = lp.wrong_faster[0]
    assert w.variant == "sdpa_is_causal" and w.eager_ms < lp.fastest_ms and rules.wrong_answer(w.rel_error)
    note = first_words.loop_note(f)
    assert "is still the fastest correct call" in note and "gives a wrong answer here" in note


def test_the_first_answer_row_names_grouped_query_prefill_where_an_exception_is_a_prefill(older):
    rows = decision_page.table_rows(older)
    first = rows[0]["workload"]
    # since the article's verdict reads the sweep's shared rounds (review 2026-12-07-3 item 5), SDPA cuDNN leads there
    # as run, not by kernel sum between calls timed apart: the article's shape is no exception row of its own but one of
    # the first row's workloads (behind in it), so that row's prefills are both the article's and grouped-query ones,
    # each named, never a bare "prefill" (review 2026-12-07-4 item 5)
    if any(r["workload"] == "The article's shape" for r in rows[1:]):
        assert first.startswith("grouped-query prefill, ") and not first.startswith("prefill")
    else:
        assert first.startswith("prefill at the article's shape, grouped-query prefill, ")
        assert "the article's shape (SDPA cuDNN" in rows[0]["condition"]


def test_a_dot_faster_than_the_recommended_call_says_why_it_is_not_the_call(older):
    from gen.report import charts

    rows = decision_page.chart_rows(older)
    fp8 = next(r for r in rows if r["workload"] == "FP8 prefill" and r["variant"] == label("cudnn_fp8"))
    # the kernel-sum lead carries its clocks, past the gate (review 2026-12-07-5 item 3)
    # its leader at the lower clock: a floor, held against no bar
    assert fp8["rel"] < 1 and fp8["why"] == ("within noise as run; at least 1.195× by kernel sum (cuDNN FP8 "
                                             "attention's sums at 1755 against 1965 MHz, FlashAttention-4's clock 12% "
                                             "higher)")
    for r in rows:  # every faster dot, and only those, says why
        assert bool(r["why"]) == (r["rel"] < 1 and r["role"] == charts.OTHER_CALLS
                                  and r["why"] is not None), r
    import pandas as pd
    spec = charts.decision(pd.DataFrame(rows), "x").to_dict()
    marks = [layer for layer in spec["layer"] if layer.get("mark", {}).get("type") == "text"]
    assert marks and marks[0]["mark"]["text"] == charts.NOT_THE_CALL
    # the note under the chart says what the mark means and why, for each such dot
    view = decision_page.view(decision_page.facts(older))
    assert view["chart_note"].startswith(f"{charts.NOT_THE_CALL} A call faster by its median than the recommended one")
    assert f"FP8 prefill, {label('cudnn_fp8')}: {fp8['why']}" in view["chart_note"]
