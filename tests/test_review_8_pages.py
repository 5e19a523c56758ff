"""Review 2026-12-06-6 (review 8), the findings on the pages below the first screen: 4 (the same point in two
scenarios), 6 (the home map's reason for an unsettled cell), 7 (where the whole median falls), 8 (dynamic lengths'
reference call and a run's first length), 10 (like with like in FP8's twin table and the speed-up over naive),
12 (an interval's real level) and 13 (the methodology's held-for-power sentence). Each test fails if its rule is
broken: on the committed H100 set, or on synthetic rows."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from gen.analysis import method, rules, tables, timings
from gen.model import schema
from gen.report.words import methodology as method_words
from tests.conftest import RESULTS

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def lead():
    return tables.load_set(RESULTS / LEAD)


# --------------------------------------------------------------------------- item 7: where the whole median falls


def test_median_rounds_names_the_rounds_of_the_middle_samples():
    # 5 rounds of 2 samples; the sorted middle (5th and 6th of 10) are 3.0 and 3.5, both in round 1 (reversed)
    samples = [1.0, 9.0, 3.0, 3.5, 2.0, 8.0, 0.5, 9.5, 2.5, 7.0]
    assert timings.median_rounds(samples, [2] * 5) == (1,)
    assert timings.median_rounds([1.0, 2.0, 3.0], [1, 1, 1]) == (1,)  # an odd count: one middle sample
    assert timings.median_rounds([1.0, 2.0], [3]) == ()  # sizes that do not cut the samples
    # the whole median of the samples is what median_rounds locates
    assert np.median(samples) == pytest.approx((3.0 + 3.5) / 2)


def test_the_methodology_says_the_median_may_fall_in_a_reversed_round(lead):
    """The H100 set: 47 of its 229 oriented variant-points have their whole median in a reversed round (the review's
    recount), 9 of them on 3 rounds; the page says so and never that the median is a forward-round value."""
    o = method.orientation(lead)
    by_hand = 0
    for r in (*lead.rs.runs, *lead.rs.sweep):
        if r.status != schema.Status.OK or r.timing is None or None in timings.orientation_medians(r.timing):
            continue
        sizes = r.timing.round_sizes[schema.Window.GPU_ONLY]
        of = np.repeat(np.arange(len(sizes)), sizes)
        order = np.argsort(r.timing.gpu_only_ms, kind="stable")
        n = len(order)
        by_hand += all(of[order[i]] % 2 == 1 for i in {(n - 1) // 2, n // 2})
    assert o.median_reversed == by_hand == 47 and o.timed == 229
    assert dict(o.rounds) == {5: 220, 3: 9}
    text = method_words.orientation(o)
    assert "forward-round value" not in text
    # review 21 item 9: the rounds said as rounds, not "3 of 5 forward in 220, 2 of 3 in 9"
    assert "(5 rounds, 3 forward and 2 reversed, at 220; 3 rounds, 2 and 1, at 9)" in text
    assert "at 47 the median still came from a reversed round" in text
    assert "leans to the forward order" in text
    assert "forward-round value" not in method_words.orientation(dataclasses.replace(o, median_reversed=0))
    # the docstring and the rules' comment say the same
    assert "always a forward" not in timings.orientation_medians.__doc__
    assert "always a forward-round value" not in (ROOT / "gen" / "analysis" / "rules.py").read_text()


def test_the_interleaved_count_is_of_variant_points():
    text = method_words.interleave_order(247, 0, 247)
    assert text.startswith("Of the 247 interleaved variant-points,")


# --------------------------------------------------------------------------- item 13: held for power


def test_the_methodology_says_what_the_pages_say_of_a_hold_near_the_maximum():
    from gen.report.pages import methodology
    from gen.report.site import environment
    from gen.report.words import tables as table_words

    doc = (ROOT / "docs" / "methodology.md").read_text(encoding="utf-8")
    assert "no clock this set can tell" not in doc
    assert "a mean hides the window's dips" in doc
    # the pages' words, and the rules table gives the line they use
    cell = table_words.held_for_power(0.18, 1977.0, 1980.0)
    assert f"within {rules.CLOCK_GAP_PCT:g}% of the 1980 MHz maximum" in cell
    partial = environment().get_template("rules.md.j2").render(**methodology.rules_view())
    assert f"its mean SM clock within {rules.CLOCK_GAP_PCT:g}% of the GPU's maximum" in partial


# --------------------------------------------------------------------------- item 4: the same point elsewhere


def _same(ls, here, there):
    from gen.analysis import scenarios as sa

    got = [d for d in sa.same_point_elsewhere(ls, here) if d["other"] == there]
    assert len(got) == 1
    return got[0]


def test_the_same_point_differs_inside_the_intervals_on_the_h100_set(lead):
    """Decode 16k and GQA/FP8 16k: every variant's two intervals (one window each) overlap, so the sentence says the
    order differs inside them, claims nothing the intervals do not show, prints µs where the times are sub-ms, and
    sends the reader at a memory-bound point to no equal-clock time."""
    from gen.report.words import common as words
    from gen.report.words import scenarios as scenario_words

    for here, there in (("decode", "decode-kernels"), ("gqa-prefill", "fp8-prefill")):
        d = _same(lead, here, there)
        assert d["orders_differ"] and not d["moved"]
        assert all(r[5] or r[6] is False for r in d["rows"])
        text = scenario_words.same_point_line(d, words.label)
        assert "inside the intervals" in text and "do not hold that spread" not in text
        assert "95%" not in text and "93.75% intervals (the range of 5 rounds" in text
        assert "within noise in both windows" in text and "equal-clock" not in text
    d = _same(lead, "decode", "decode-kernels")
    assert d["memory_bound"]
    text = scenario_words.same_point_line(d, words.label)
    # each median at the resolution every sentence gives a time (words.common.us), as the decode-kernels page gives
    # the same medians (review 24 #10: 175.08 µs here, 175.1 µs there)
    assert "174.5 µs" in text and "175.1 µs" in text and "0.175 ms" not in text and "1 query against" in text
    assert not re.search(r"\d\.\d\d µs", text)


def test_the_same_point_compares_like_with_like(lead):
    """FlexAttention (compiled) at GQA 16k: a kernel sum here (10.331 ms at 1876 MHz), a graph replay there
    (11.322 ms at 1548 MHz); the sentence sets both kernel sums side by side, each at its window's clock."""
    from gen.report.words import common as words
    from gen.report.words import scenarios as scenario_words

    d = _same(lead, "gqa-prefill", "fp8-prefill")
    flex = next(r for r in d["rows"] if r[0] == "flex")
    assert flex[5] and flex[6] is None
    assert flex[1] == pytest.approx(10.331, abs=5e-4) and flex[3] == pytest.approx(10.313, abs=5e-4)
    assert flex[4] == pytest.approx(1965, abs=1)
    text = scenario_words.same_point_line(d, words.label)
    assert "11.322" not in text and "10.313 ms at 1965 MHz (kernel sum)" in text


def test_a_time_moved_past_its_intervals_is_said_so():
    """Synthetic: one variant's two intervals apart between the windows: the sentence says the windows' conditions
    moved it, with the kernel sums beside, and the equal-clock model only where the point is not memory-bound."""
    from gen.report.words import common as words
    from gen.report.words import scenarios as scenario_words

    d = dict(other="b", q_len=4096, kv_len=4096, orders_differ=True, moved=("x",), memory_bound=False,
             rows=(("x", 1.0, 1900.0, 1.2, 1500.0, False, True), ("y", 1.1, 1900.0, 1.1, 1880.0, False, False)),
             swapped=(("x", "y", True, False),), units=((5, 100), (5, 100), (6, 120), (6, 120)))
    text = scenario_words.same_point_line(d, words.label)
    assert "1.20× apart between the two windows" in text and "moved it past" in text
    assert "equal-clock model" in text and "93.75%" in text
    assert "equal-clock" not in scenario_words.same_point_line(dict(d, memory_bound=True), words.label)
    # only the order differs: inside the intervals, the pair apart in one window said so
    calm = dict(d, moved=())
    text = scenario_words.same_point_line(calm, words.label)
    assert "inside the intervals" in text and "within noise here and apart there" in text
    # nothing differs: no claim at all
    assert "as-run order" not in scenario_words.same_point_line(dict(calm, orders_differ=False), words.label)


# --------------------------------------------------------------------------- item 6: the home map's reason


def _cells(ls):
    from gen.report.pages import verdict

    return {r["scenario"]: r for r in verdict.fastest_rows(ls)}


def test_the_map_gives_each_unsettled_cell_its_real_reason(lead):
    """Sliding windows: FA4's and FLASH's intervals are apart (2787-2843 against 3007-3215 µs); the cell is unsettled
    because FLASH was timed alone, and says so. Decode: the intervals overlap, at their real level (5 rounds)."""
    from gen.analysis import leads, verdicts

    cells = _cells(lead)
    sliding = cells["sliding-window"]
    v = verdicts.verdict(lead, "sliding-window", "inference")
    o, why = verdicts.first_pair(v)
    assert o.apart and why == leads.TIMED_APART and sliding["settled"] is False
    assert "timed apart" in sliding["sure"] and "overlap" not in sliding["sure"]
    assert "93.75% intervals (the range of 5 rounds, widened to ±1%) overlap" in cells["decode"]["sure"]
    assert not any("95% intervals" in c["sure"] for c in cells.values())


def test_the_map_gives_the_ratio_of_the_measure_that_decides(lead):
    """Packed documents: decided by kernel sums, 1.095 (739.5/675.3 µs), not the as-run 1.17; the article: timed
    apart, decided by kernel sums (1.23)."""
    cells = _cells(lead)
    packed = cells["packed-documents"]
    assert packed["ratio"] == pytest.approx(1.095, abs=0.001) and packed["ratio_by"] == "by kernel sum"
    article = cells["article"]
    # since review 13 the article's order is decided as run in the sweep's shared rounds (1.18x), no longer by the
    # kernel sums of calls timed apart (1.23x): the map gives the measure that decides
    assert article["ratio_by"] == "as run" and article["ratio"] == pytest.approx(1.18, abs=0.005)
    assert cells["gqa-prefill"]["ratio_by"] == "as run"


def test_every_reason_has_its_words():
    """Each reason the rule can stop at reads as itself (synthetic Orders)."""
    from gen.analysis import leads, verdicts
    from gen.analysis.pair_noise import AsRunNoise
    from gen.report.words import orders as orders_words

    base = leads.Orders("a", "b", 1.1, True, None, None, None, None, None, None, None, None, None, False)
    said = {why: orders_words.map_state(False, base, why) for why in
            (leads.OVERLAP, leads.TIMED_APART, leads.ORIENTATION, leads.KERNEL_SUMS, verdicts.OTHER_WINDOW)}
    assert "overlap" in said[leads.OVERLAP] and "timed apart" in said[leads.TIMED_APART]
    assert "round orientation" in said[leads.ORIENTATION] and "kernel sums" in said[leads.KERNEL_SUMS]
    assert "other way round" in said[verdicts.OTHER_WINDOW]
    assert len(set(said.values())) == len(said)
    noise = AsRunNoise.__new__(AsRunNoise)
    object.__setattr__(noise, "ratio", 1.147)
    object.__setattr__(noise, "borrowed", True)
    got = orders_words.map_state(False, dataclasses.replace(base, noise=noise), leads.PAIR_NOISE)
    assert "identical kernels" in got and "1.147×" in got
    assert orders_words.map_state(True, base, None) == "yes" and orders_words.map_state(None, None, None) == "–"


# --------------------------------------------------------------------------- item 10: like with like


def test_fp8s_twin_table_compares_like_with_like(lead):
    """FlexAttention FP8's 12.67 ms is a kernel sum, its bf16 twin's 11.32 ms a graph replay: both kernel sums,
    10312.61/12672.79 = 0.81x, marked so; cuDNN FP8 against SDPA cuDNN stays two graph replays."""
    from gen.analysis import scenarios as sa
    from gen.report.words import common as words
    from gen.report.words import scenarios as scenario_words

    df = sa.fp8_frame(None, sa.point_rows(lead, "fp8-prefill")).set_index("variant")
    flex = df.loc["flex_fp8"]
    assert bool(flex["kernel_sums"]) and flex["speedup"] == pytest.approx(10312.61 / 12672.79, abs=1e-3)
    assert not bool(df.loc["cudnn_fp8", "kernel_sums"])
    cells = scenario_words.fp8_cells(flex.to_dict() | {"variant": "flex_fp8"}, words.label)
    # the two sums' clocks beside them (review 2026-12-07-9 item 6), under the table: the cell holds the ratio alone
    assert cells["speed"] == "0.81×" and cells["basis"] == " (kernel sum)"
    assert cells["speed_detail"].endswith(": 0.81× (both kernel sums, both at 1965 MHz)")


def test_the_speed_up_over_naive_compares_like_with_like(lead):
    """Naive's GPU-only time on the H100 set is a kernel sum (1.253 ms), every other row's a graph replay: SDPA
    cuDNN's speed-up is both kernel sums, 21.70x (not 21.23x), and the table says so."""
    df = tables.summary_table(lead).set_index("variant")
    assert df.loc["naive", "gpu_only_method"] == "kernel_sum"
    cudnn = df.loc["sdpa_cudnn"]
    assert bool(cudnn["speedup_kernel_sums"])
    assert cudnn["speedup_vs_naive"] == pytest.approx(df.loc["naive", "kernel_sum_ms"] / cudnn["kernel_sum_ms"])
    assert cudnn["speedup_vs_naive"] == pytest.approx(21.70, abs=0.01)
    assert not bool(df.loc["naive", "speedup_kernel_sums"])


def test_both_ratios_read_the_one_rule(lead, monkeypatch):
    from gen.analysis import determinism_rule
    from gen.analysis import scenarios as sa

    monkeypatch.setattr(determinism_rule, "like_with_like", lambda *a: (2.0, 3.0, True))
    fresh = tables.load_set(RESULTS / LEAD)
    df = tables.summary_table(fresh)
    assert df.loc[df["variant"] != "naive", "speedup_vs_naive"].tolist() == pytest.approx([1.5] * (len(df) - 1))
    fp8 = sa.fp8_frame(None, sa.point_rows(fresh, "fp8-prefill"))
    assert fp8["speedup"].tolist() == pytest.approx([1.5] * len(fp8))


def test_the_set_and_fp8_pages_label_the_basis(gpu_docs):
    import re

    page = (gpu_docs / "generated" / "sets" / f"{LEAD}.md").read_text(encoding="utf-8")
    assert "†: both kernel sums, naive&#39;s and the row&#39;s times being of two kinds" in page
    assert re.search(r"21\.70×†", page) and "21.23×" not in page
    fp8 = (gpu_docs / "generated" / "sets" / LEAD / "scenarios" / "fp8-prefill.md").read_text(encoding="utf-8")
    assert "0.81× (both kernel sums, both at 1965 MHz)" in fp8 and "0.89×" not in fp8


# --------------------------------------------------------------------------- item 8: dynamic lengths


def test_a_runs_first_length_never_makes_a_variant_cheaper_in_all(lead):
    """Decode: SDPA flash's first length cost 3.73 ms against 0.046 ms after; the in-place naive product was
    "cheaper in all" only there (up to 48 calls at 4,096). No comparison reads a run's first length, and the decode
    phase has no call that costs less in all than SDPA flash."""
    from gen.analysis import dynamic

    for phase in dynamic.phases(lead.rs):
        for f in dynamic.runs(lead.rs, phase, switched=False):
            if f.per_length:
                assert f.per_length[0].kv_len != f.kv_lens[0], (phase, f.variant)
    pf = dynamic.phase_facts(lead.rs, "decode")
    assert pf.steady_best.variant == "sdpa_flash" and not pf.break_even
    assert all(o.kv_len != 4096 for outs in pf.per_length.values() for o in outs)


def test_the_lowest_warm_call_is_over_every_row_or_says_why_not(lead):
    """Decode: SDPA not pinned's loop call (0.04954 ms) is lower than SDPA flash's (0.05415 ms), but its first calls
    hit SDPA cuDNN's cached plans: the headline names it and says why the reference is SDPA flash."""
    from gen.analysis import dynamic
    from gen.report.words import dynamic as dynamic_words

    pf = dynamic.phase_facts(lead.rs, "decode")
    assert pf.lowest_warm.variant == "sdpa_auto" and pf.lowest_warm.steady_ms < pf.steady_best.steady_ms
    text = dynamic_words.headline(pf)
    assert text.startswith("Once warm, SDPA (backend not pinned) has the lowest median call in a Python loop")
    assert "0.0495 ms" in text and "Of the calls whose new lengths were costed, SDPA flash's is the lowest" in text
    # where the reference is the lowest over every row, it is said plainly
    prefill = dynamic.phase_facts(lead.rs, "prefill")
    assert prefill.lowest_warm.variant == prefill.steady_best.variant == "sdpa_cudnn"
    assert dynamic_words.headline(prefill).startswith("Once warm, SDPA cuDNN's call in a Python loop has the lowest")


def test_pinned_and_unpinned_cudnn_are_set_side_by_side_without_a_cause(lead):
    """The same cuDNN kernels, 0.0107 ms GPU-only each, 0.04954 against 0.09119 ms a loop call: the page gives both
    measures and what the loop holds beyond the GPU, and claims no reason the set does not record."""
    from gen.analysis import dynamic
    from gen.report.words import dynamic as dynamic_words

    pf = dynamic.phase_facts(lead.rs, "decode")
    note = " ".join(dynamic_words.cache_notes(pf))
    assert "GPU-only 0.0107 against 0.0107 ms a call, in a Python loop 0.0495 against 0.0912 ms a call" in note
    assert "this set does not record where the difference goes" in note
    assert "(0.0495 against 0.0912 ms a call)" not in note


def test_the_home_names_the_reference_call(lead):
    """The first screen's dynamic-lengths line names the call 'costs less in all' is set against, and no longer
    names the in-place naive product for decode."""
    from gen.analysis import advice
    from gen.report.words import decision as decision_words

    a = advice.advice(lead)
    assert dict(a.lengths.against) == {"prefill": "sdpa_cudnn"}
    line = decision_words.lengths_line(a)
    assert "costs less in all than SDPA cuDNN (the fastest once warm) while a length is called" in line
    assert "Naive (in-place mask) in decode" not in line


# --------------------------------------------------------------------------- item 12: an interval's real level


def test_the_verdicts_name_the_real_levels_of_their_intervals(lead):
    """The H100 set's verdicts rank medians of 5 rounds (93.75%), 6 rounds (96.88%) and kernel sums of 3 profiled
    calls (75%): the line under the decision gives that span, not "95%"."""
    from gen.analysis import verdicts
    from gen.model.schema import Mode
    from gen.report.pages import verdict
    from gen.report.words import common as words

    units = [v.spread(t).units for s in verdicts.scenarios(lead) for m in Mode
             if (v := verdicts.verdict(lead, s, m)) is not None for t in v.rows if v.spread(t) is not None]
    levels = sorted({timings.ci_level(u) for u in units})
    text = verdict.decision(lead)["intervals"]
    assert text == (f"the interval of each median (at {words.level_pct(levels[0])}–{words.level_pct(levels[-1])}, "
                    "the level its rounds, or its profiled calls, allow)")
    assert "93.75%" not in text and "75%–96.88%" in text  # the span's ends, as the set gives them
    # review 9 item 9: the real levels, never "95%" for intervals at 96.15–97.85%
    assert "95%" not in words.each_median_interval([6, 10, 40])
    assert words.each_median_interval([5, 5]) == "the interval of each median (at 93.75%, the level its rounds, or " \
                                                 "its profiled calls, allow)"


def test_the_graph_above_eager_note_gives_the_level_of_its_samples():
    """The graph rule sets the medians' intervals of raw samples side by side (gen.model.graph_rule): five replays
    give 93.75%, six or more at least 95%."""
    from gen.report.words import scenarios as scenario_words
    from gen.report.words.common import level_pct

    five = scenario_words.graph_above_eager_note(1, None, [5, 15])
    fifteen = level_pct(timings.ci_level(15))  # each median's level (review 2026-12-07-2 item 14)
    # the 15-sample interval is no range (its order statistics lie inside it): the levels' span, no counts
    assert f"intervals (each at the level its samples allow, 93.75%–{fifteen}) overlapped" in five
    assert "range of" not in five
    # review 9 item 9: the real levels, not "95%"
    ten, twenty = (level_pct(timings.ci_level(n)) for n in (10, 20))
    assert f"the medians' {twenty} and {ten} intervals overlapped" in scenario_words.graph_above_eager_note(
        1, None, [10, 20])


def test_no_page_of_the_h100_set_prints_95_for_a_5_round_interval(gpu_docs):
    import re

    gen = gpu_docs / "generated"
    home = (gen / ".verdict.md").read_text(encoding="utf-8")
    main = (gen / "sets" / f"{LEAD}.md").read_text(encoding="utf-8")
    for text in (home, main):
        assert "the ranking with the interval of each median (at 75%–96.88%" in text
        assert "the ranking with the 95% interval" not in text
    for page in (gen / "sets" / LEAD / "scenarios").glob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert "do not hold that spread" not in text
        for m in re.finditer(r"medians&#39; ([^ ]+) intervals? (\([^)]*\) )?overlapped", text):
            assert m.group(1) != "95%" or m.group(2) is None


def test_the_hidden_copy_saving_is_like_with_like():
    """The in-place variant's saving over naive takes both kernel sums where naive's GPU-only time is one and the
    in-place call's a graph replay (on the H100 set: naive's graph did not run), never their difference."""
    from gen.analysis import lesson_facts
    from gen.analysis.lesson_facts import timed_rows
    from gen.report.words import lessons as lesson_words

    ls = tables.load_set(RESULTS / "nvidia-h100-80gb-hbm3__torch-2.11.0")
    rows = timed_rows(ls)
    a, b = rows["naive"], rows["naive_inplace"]
    assert a.gpu_only_method != b.gpu_only_method
    h = lesson_facts.hidden_copy(ls, rows)
    assert h.saved_by_sums and h.settled is None
    assert h.saved_ms == pytest.approx(a.kernel_sum_ms - b.kernel_sum_ms, rel=1e-9)
    assert h.saved_pct == pytest.approx(100 * h.saved_ms / a.kernel_sum_ms, rel=1e-9)
    assert "by both kernel sums" in lesson_words.hidden_copy(h).text
