"""Review 2026-12-06-7 (review 9), findings 2, 4, 5, 6, 9 and 11: an interval widened to the ±1% floor labelled as
built, an overlap only the floor makes said so; the start-up a compiled call pays where its capture's own first call
was slower than the side process's compile; the findings' speed-up over naive like with like; the dynamic-lengths
decode break-even; every interval's real level; identical kernels named as one rank. Each test fails if its rule is
broken: on the committed H100 set, or on synthetic rows."""

from __future__ import annotations

import pytest

from gen.analysis import findings, rules, tables, timings
from gen.report.words import common as words
from gen.report.words import findings as finding_words
from tests.conftest import committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def lead():
    return committed_set(LEAD)


# --------------------------------------------------------------------------- item 2: the ±1% floor


def _rounds(medians, per=3):
    return [m for m in medians for _ in range(per)], [per] * len(medians)


def test_an_interval_the_floor_widened_is_labelled_so_and_a_floor_only_overlap_is_told_apart():
    # the decode 131k pair of the review: every FA4 round above every cuDNN round, ~22 µs apart; ±1% joins them
    a = timings.spread(*_rounds([1340.25, 1340.16, 1339.54, 1340.79, 1341.25]))
    b = timings.spread(*_rounds([1366.38, 1363.18, 1365.40, 1363.43, 1367.61]))
    assert a.widened and b.widened
    assert (a.raw_lo, a.raw_hi) == (1339.54, 1341.25)
    assert timings.floor_only_overlap(a, b) and timings.floor_only_overlap(b, a)
    assert not rules.apart(a.ci_hi, b.ci_lo)  # the ranking rule itself still reads the floored intervals
    floor = f"±{rules.TIME_FLOOR_PCT:g}%"
    assert words.intervals(a, b) == f"93.75% intervals (the range of 5 rounds, widened to {floor})"
    said = words.overlap_words(a, [("x", b)], str)
    assert said.startswith(f"every round apart; within the {floor} floor") and "overlap" not in said
    # rounds that overlap themselves: "overlap", and no floor named where it did not widen the interval
    c = timings.spread(*_rounds([100.0, 90.0, 110.0, 95.0, 105.0]))
    d = timings.spread(*_rounds([101.0, 91.0, 111.0, 96.0, 106.0]))
    assert not c.widened and not timings.floor_only_overlap(c, d)
    assert words.intervals(c, d) == "93.75% intervals (the range of 5 rounds)"
    said = words.overlap_words(c, [("y", d)], str)
    assert said == "the 93.75% intervals of the medians overlap, each the range of 5 rounds"


def test_the_h100_pages_say_where_only_the_floor_joins_two_intervals(lead):
    from gen.analysis import scenarios as sa
    from gen.report.words import scenarios as scenario_words

    d = next(d for d in sa.same_point_elsewhere(lead, "decode-kernels") if d["other"] == "decode")
    assert d["floor_only"] == ("sdpa_auto",)
    text = scenario_words.same_point_line(d, words.label)
    assert "widened to ±1%" in text and "only through the ±1% floor (every round apart)" in text


# --------------------------------------------------------------------------- item 4: the start-up a user pays


def test_a_first_call_slower_than_the_side_process_compile_is_the_start_up(lead):
    got = {f.id: f for f in findings.rule_compile(lead)}
    f = got["compile-inference-flex_flash"]
    run = lead.rs.run("flex_flash", "inference")
    assert run.compiled_ahead and run.first_call_s > run.compile_time_s  # the set's own facts
    assert f.facts["own_slower"] and f.facts["startup_s"] == run.first_call_s
    w = finding_words.finding(f)
    for said in (w.short, w.text):
        assert f"at least {run.first_call_s:.2f} s" in said and "Inductor's cache" not in said
    # where the side process's compile was the longer, the compile stands and the cache is named
    other = [g for g in got.values() if g.facts["ahead"] and not g.facts["own_slower"]]
    for g in other:
        assert g.facts["startup_s"] == g.facts["compile_s"]
        assert "Inductor's cache" in finding_words.finding(g).text


# --------------------------------------------------------------------------- item 5: naive's time like with like


def test_the_findings_speed_up_over_naive_is_like_with_like(lead):
    f = findings.rule_fastest(lead)[0]
    base = tables.summary_table(lead, "inference").set_index("variant").loc["naive"]
    top = tables.summary_table(lead, "inference").set_index("variant").loc[f.variant]
    assert base["gpu_only_method"] == "kernel_sum" != top["gpu_only_method"]  # the set's own facts
    want = base["kernel_sum_ms"] / top["kernel_sum_ms"]
    assert f.facts["baseline_sums"] and f.facts["baseline_ms"] / f.facts["baseline_of_ms"] == pytest.approx(want)
    w = finding_words.finding(f)
    assert f"naive takes {want:.2f}× as long (both kernel sums)" in w.short
    assert f"{base['gpu_only_ms'] / top['gpu_only_ms']:.1f}×" not in w.text  # the graph-over-sum ratio is gone


# --------------------------------------------------------------------------- item 9: the real level, never "95%"


def test_intervals_name_their_real_level_and_the_rules_table_its_range():
    from gen.model import stats
    from gen.report.words import methodology as method_words

    six = timings.spread(*_rounds([100.0, 90.0, 110.0, 95.0, 105.0, 101.0]))
    assert words.intervals(six, six) == f"{words.level_pct(stats.interval_level(6))} intervals"
    assert "96.88%" in words.intervals(six) and "95%" not in words.intervals(six)
    levels = method_words.ci_levels([5, 6])  # the rule's span without a set (review 2026-12-07-1 N6: from the sets')
    assert levels.startswith("93.75%–96.88%, ") and words.level_pct(stats.interval_level(5)) in levels
    rule = method_words.verdict_rule(levels)
    assert levels in rule and "its 95% interval" not in rule
