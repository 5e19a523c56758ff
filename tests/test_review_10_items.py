"""Review 2026-12-07-1 (review 10), findings 6-13 and 15: the methodology's interval levels, a kernel-sum gain beside
the first screen's 1.2x line, the "behind by kernel sum" rule stated in the rules table, the round orientations said
as measured, the cuDNN switch's first calls length by length, the hosts' speeds beside a comparison's host ratios, a
headline rate whose orientations differ, a bandwidth share above its measured pass flagged, and the kernel sums' clock
gate at a memory-bound point. Each test fails if its rule is broken: on synthetic rows, or on the committed sets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gen.analysis import calls, compare, dynamic, leads, rules, tables, timings
from gen.analysis import scenarios as sa
from gen.model import stats
from gen.report.site import environment
from gen.report.words import common as words
from gen.report.words import compare as compare_words
from gen.report.words import dynamic as dynamic_words
from gen.report.words import first_screen, orders
from gen.report.words import methodology as method_words
from gen.report.words import oriented as oriented_words
from gen.report.words import scenarios as scenario_words
from gen.report.words.common import level_pct
from tests.conftest import RESULTS, committed_set

ROOT = Path(__file__).resolve().parent.parent
LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def lead():
    return committed_set(LEAD)


def label(v: str) -> str:
    return {"a": "A call", "b": "B call"}.get(v, v)


def _orders(**kw) -> leads.Orders:
    base = dict(first="a", second="b", as_run=1.08, apart=False, equal_clock=None, kernel_sum=1.0,
                first_mhz=1980.0, second_mhz=1980.0, first_ks_ms=1.0, second_ks_ms=1.0, first_ks_mhz=1980.0,
                second_ks_mhz=1980.0, clock_gap_pct=None, decided=False)
    base.update(kw)
    return leads.Orders(**base)


# --------------------------------------------------------------------------- item 6: no "95%" for 5-round medians


def test_the_methodology_names_the_real_levels_of_an_interval_of_a_median():
    assert "95% intervals of both medians" not in method_words.HOST_BOUND_RULE
    # the levels are the rules table's, read off the sets shown (review 2026-12-07-1 N6): the rule points there
    assert "at the level their rounds allow (the methodology's rules table gives the levels)" in \
        method_words.HOST_BOUND_RULE
    doc = " ".join((ROOT / "docs" / "methodology.md").read_text(encoding="utf-8").split())
    assert "the 95% interval of each" not in doc
    assert "the rules table at the end of this page gives the levels these pages show" in doc
    assert not re.search(r"\d%\s+for five rounds", doc)  # no level written by hand
    five = next(n for n in range(1, 100) if stats.interval_level(n + 1) >= stats.CI_LEVEL)
    assert stats.interval_level(five) < stats.CI_LEVEL  # five rounds stay under 95%: the table says their level
    assert f"{level_pct(stats.interval_level(five))} for 5, at least 95% from 6" in method_words.ci_levels([5, 6])
    assert five == 5


# --------------------------------------------------------------------------- item 7: 1.195x, not 1.20x, beside 1.2x


def test_a_kernel_sum_gain_beside_the_first_screens_line_keeps_its_side_of_it():
    # FP8 prefill: cuDNN FP8 5038.05 against FA4 6021.92 µs by kernel sum, at 1755 against 1965 MHz
    o = _orders(kernel_sum=6021.92 / 5038.05, first_ks_ms=5.03805, second_ks_ms=6.02192, first_ks_mhz=1755.0,
                second_ks_mhz=1965.0, forward=1.074, reverse=1.193)
    assert o.kernels_leader == "a"
    text = orders.kernels_ahead(o, label)
    assert "1.195×" in text and "1.20×" not in text
    assert "1.195×" in orders.kernels_ahead_detail(o, label)
    line = f"{rules.ADVICE_MIN_GAIN:g}×"
    assert o.sums_under_bar  # 1.195x, under the 1.2x line
    assert not _orders(kernel_sum=1.3).sums_under_bar and _orders(kernel_sum=1 / 1.1).sums_under_bar
    # at one clock (within the gate), a gain under the line is said to be under it
    fair = _orders(kernel_sum=1.15, first_ks_mhz=1980.0, second_ks_mhz=1965.0, forward=1.07, reverse=1.1)
    said = first_screen._led([(("FP8 prefill", "inference"), orders.kernels_ahead(fair, label), fair)])
    assert f"under the {line} the first screen asks" in said
    assert "so no rule decides it" in said
    # the FP8 sums' leader ran the lower clock: its 1.195× is a floor, never held against the line
    floor = first_screen._led([(("FP8 prefill", "inference"), text, o)])
    assert "under the" not in floor and f"at least {line}" not in floor and "so no rule decides it" in floor
    past = first_screen._led([(("FP8 prefill", "inference"), "x", _orders(kernel_sum=1.3))])
    assert "under the" not in past and f"by at least {line}" in past


# --------------------------------------------------------------------------- item 8: the rule stated in the table


def test_the_rules_table_states_the_behind_by_kernel_sum_rule_the_code_applies():
    from gen.report.pages import methodology

    partial = environment().get_template("rules.md.j2").render(**methodology.rules_view())
    row = next(x for x in partial.splitlines() if x.startswith("| Behind by kernel sum |"))
    assert f"within {rules.CLOCK_GAP_PCT:g}%" in row and f"at least {rules.TIME_FLOOR_PCT:g}%" in row
    assert "own noise line" in row  # review 2026-12-07-4 item 6: past the kernel sums' own noise, not the floor alone
    assert "the same or a lower clock" in row and "does not fall as its clock falls" in row
    # the code as the row states it: a lead at an 11% lower clock counts; at a higher one, only past what the gap can
    # explain (review 2026-12-07-3 item 6: 1.195x at 1.12x apart counts, at 1.25x apart not); within 5%, yes
    assert "more than the gap can explain" in row
    lower = _orders(kernel_sum=1.195, first_ks_mhz=1755.0, second_ks_mhz=1965.0, forward=1.07, reverse=1.19)
    higher = _orders(kernel_sum=1.195, first_ks_mhz=1965.0, second_ks_mhz=1755.0, forward=1.07, reverse=1.19)
    far = _orders(kernel_sum=1.195, first_ks_mhz=1965.0, second_ks_mhz=1572.0, forward=1.07, reverse=1.19)
    near = _orders(kernel_sum=1.195, first_ks_mhz=1900.0, second_ks_mhz=1965.0, forward=1.07, reverse=1.19)
    assert lower.kernels_leader == "a" and higher.kernels_leader == "a" and far.kernels_leader is None
    assert near.kernels_leader == "a"


# --------------------------------------------------------------------------- item 9: the orientations as measured


def test_orientations_that_agree_with_each_other_against_the_sums_are_said_so():
    # decode batch 8: FlexAttention (FLASH) ahead in both orientations, FA4 ahead by kernel sum (48.00 against 48.51)
    o = _orders(first="a", second="b", as_run=1.008, kernel_sum=48.00 / 48.51, first_ks_ms=0.04851,
                second_ks_ms=0.04800, forward=48.11 / 47.81, reverse=48.16 / 47.72)
    assert o.kernels_leader is None
    text = orders.brief(o, label)
    assert "disagree" not in text
    assert "both round orientations' medians put A call ahead (1.006× forward, 1.009× reversed)" in text
    split = _orders(kernel_sum=0.98, first_ks_ms=0.051, second_ks_ms=0.050, forward=1.02, reverse=0.97)
    assert "put different calls ahead" in orders.brief(split, label)


# --------------------------------------------------------------------------- item 10: the switch as measured


def _switch(pairs):
    later = pairs[1:]
    import statistics
    return dynamic.SwitchFacts("TORCH_X", "1", True, "no effect", None, "sdpa_cudnn", "prefill",
                               [dict(kv_len=k, without_ms=a, with_ms=b) for k, a, b in pairs],
                               statistics.median(a for _, a, _ in later), statistics.median(b for _, _, b in later),
                               0.1, 0.1)


def test_the_switch_probe_says_what_each_length_measured():
    slower = _switch([(1000, 41.68, 65.39), (1001, 36.89, 43.89), (1537, 36.19, 59.94), (2049, 36.17, 39.84)])
    text = dynamic_words.switch_sentence(slower)
    assert "no effect" not in text and "tens of percent" not in text
    assert "first call was slower at every prompt length, 1.10–1.66× its time without it" in text
    assert "one run each" in text
    mixed = _switch([(1000, 40.0, 39.0), (1001, 36.0, 38.0), (1537, 36.0, 35.0)])
    assert "was faster at 2 of 3 prompt lengths and slower at 1" in dynamic_words.switch_measured(mixed)


def test_the_committed_switch_probe_was_slower_at_every_length(lead):
    (sw,) = [s for s in dynamic.switch_facts(lead.rs) if s.pairs]
    assert all(r > 1 for r in sw.length_ratios)
    text = dynamic_words.switch_measured(sw)
    assert text.startswith("SDPA cuDNN's first call was slower at every prompt length, 1.05–1.66× its time without it")


# --------------------------------------------------------------------------- item 11: the hosts' speeds


def test_a_comparisons_host_ratios_stand_beside_the_hosts_speeds():
    a, b = tables.load_set(RESULTS / LEAD), tables.load_set(RESULTS / H200)
    rows = {r["variant"]: r for r in compare.records(compare.compare_frame(a, b))}
    flash = rows["sdpa_flash"]
    assert flash["host_ref_ms_a"] * 1e3 == pytest.approx(8.1, abs=0.05)
    assert flash["host_ref_ms_b"] * 1e3 == pytest.approx(13.8, abs=0.05)
    note = compare_words.host_note([0.0082], [0.0108], 11, 9)
    assert "8.2 µs on A and 10.8 µs on B" in note and "1.32× B/A" in note
    assert "Ranks in A are among 11 variants, in B among 9" in note
    assert compare_words.host_note([], [], 9, 9) is None


# --------------------------------------------------------------------------- item 12: a rate by orientation


def test_a_headline_rate_whose_orientations_differ_gives_each():
    t = calls.Timed("flex_flash", "ok", forward_ms=24.124, reversed_ms=30.553, kernel_sum_ms=27.157)
    o = calls.oriented_rate(t, 24.133, 729.0)
    assert o is not None and o.median_with == "forward"
    assert o.reversed_rate == pytest.approx(729.0 * 24.133 / 30.553)
    text = oriented_words.sentence(o, lambda x: f"{x:.0f}", "TFLOP/s")
    assert "1.27×" in text and "576 TFLOP/s" in text and "648 TFLOP/s" in text and "forward rounds (24.124 ms" in text
    close = calls.Timed("x", "ok", forward_ms=24.124, reversed_ms=24.124 * (1 + 0.99 * rules.ORIENTATION_GAP_PCT / 100))
    assert calls.oriented_rate(close, 24.13, 729.0) is None


def test_the_committed_gqa_headline_gives_its_reversed_rounds(lead):
    from gen.report import site
    from gen.report.pages import scenario_set

    ctx = site.Context([lead])
    view = scenario_set.set_view(ctx, lead, "gqa-prefill")
    assert "The reversed rounds' median is 30.553 ms, 576 TFLOP/s" in view["headline"]


# --------------------------------------------------------------------------- item 13: one rule for "above"


def _rate_row(pct: float) -> dict:
    return dict(gpu_only_ms=1.3406, gpu_only_method="cuda_graph", figure=sa.FIGURE_TBPS, tbps=3.204,
                tflops=float("nan"), pct_of_ceiling=pct, ceiling=sa.CEILING_READ, pct_of_datasheet=96.0,
                datasheet_tbps=3.35)


def test_a_bandwidth_share_above_its_measured_pass_is_flagged_by_the_matmul_rule():
    above = scenario_words._time_and_rate(_rate_row(102.4))
    assert "102% of the measured read bandwidth" in above
    # said plainly (review 2026-12-07-1 N8): what the pass is not, and that it is flagged as the matmul line is
    assert above.endswith("; above the measured read pass, which therefore is no ceiling for this call (flagged as "
                          "the matmul line is where a rate passes it)")
    assert "flagged as a rate above" not in above and "is: that pass" not in above
    # within the floor past 100%: flagged as a lower bound, not "no ceiling" (review 2026-12-07-3 item 10)
    at = scenario_words._time_and_rate(_rate_row(100.0 + rules.TIME_FLOOR_PCT - 0.1))
    assert "which therefore is no ceiling" not in at and "at or just above the measured read pass" in at
    assert "above" not in scenario_words._time_and_rate(_rate_row(99.0))


# --------------------------------------------------------------------------- item 15: the clock gate's real reason


def test_kernel_sums_refused_for_their_clocks_say_why_at_a_memory_bound_point():
    # decode 64k: FA4 timed alone; sums 683.55 at 1860 against cuDNN's 673.24 at 1980 MHz
    common = dict(first="a", second="b", as_run=1.024, apart=True, kernel_sum=683.55 / 673.24,
                  first_ks_ms=0.67324, second_ks_ms=0.68355, first_ks_mhz=1980.0, second_ks_mhz=1860.0,
                  same_rounds=False, first_rounds=calls.SHARED, second_rounds=calls.ALONE)
    mem = orders.timed_apart(_orders(memory_bound=True, **common), label)
    # the gap in the one form a clock gap takes, the side at the higher clock named
    assert orders.MEMORY_BOUND_GATE in mem and f"taken with {label('a')}'s clock 6.5% higher" in mem
    assert "apart" not in mem.split("the kernel sums", 1)[1].split(" cannot decide")[0]
    assert f"decide only at clocks within {rules.CLOCK_GAP_PCT:g}%" in mem  # rules.clock_gap_pct, to a tenth
    assert "their 1.02× lead is inside the 1.065× that a 6.5% clock gap can explain" in mem  # 1980 / 1860
    assert orders.MEMORY_BOUND_GATE not in orders.timed_apart(_orders(**common), label)
    assert "memory-bound points too" in " ".join(text for _, text in method_words.lead_rules())


def test_orders_know_a_memory_bound_point():
    sp = timings.spread([1.0, 1.01, 0.99, 1.0, 1.0])
    a = calls.Timed("a", "ok", gpu_only=sp, equal_clock=False)
    b = calls.Timed("b", "ok", gpu_only=sp, equal_clock=False)
    assert leads.orders(a, b, "gpu_only").memory_bound
    assert not leads.orders(calls.Timed("a", "ok", gpu_only=sp), calls.Timed("b", "ok", gpu_only=sp),
                            "gpu_only").memory_bound


# --------------------------------------------------------------------------- the second reader's check (N1, N2,
# N7, N9, N10): the scenario pages' bridge lines, an orientation's rate above the ceiling, the dynamic page's words


def _bridge(lead, name: str) -> tuple[dict, str]:
    from gen.report.pages import scenario_set

    head = sa.headline(None, None, name, sa.point_rows(lead, name), [])
    _, lines = scenario_set._at_verdict(lead, name, head)
    (said,) = [x for x in lines if x.startswith("At the scenario's largest point")]
    return head, said


def test_the_decode_bridge_names_the_unpinned_tie_as_the_headline_does(lead):
    # N1: SDPA not pinned's median is the lower (1340.03 against 1340.62 us), the same kernels as SDPA cuDNN
    head, said = _bridge(lead, "decode")
    auto, sp = head["auto_tie"], head["spreads"]
    assert auto == "sdpa_auto" and sp[auto].median < sp[head["fastest"]["variant"]].median
    assert "SDPA cuDNN leads" not in said
    assert ("D 128), SDPA cuDNN and SDPA (backend not pinned) run the same kernels and lead, one rank, a tie, by their "
            f"medians {words.us(sp['sdpa_cudnn'].median)} and {words.us(sp[auto].median)}") in said
    assert "1.341 ms and 1.340 ms" in said and "within noise of them as run" in said


def test_a_bridge_says_by_its_median_wherever_a_call_is_within_noise(lead):
    # N2: chunked prefill's 512 x 32k: FA4 within noise of FlexAttention FLASH was "fastest" on the bridge line
    head, said = _bridge(lead, "chunked-prefill")
    assert "flex_flash" in head["near"]
    assert "is fastest" not in said
    assert ("FlashAttention-4 (flash_attn.cute) leads by its median instead of SDPA with causal_lower_right, and "
            "FlexAttention (FLASH backend) is within noise of it as run") in said
    for name in ("decode", "gqa-prefill", "article"):
        head, said = _bridge(lead, name)
        assert ("is fastest" in said) == (not head.get("near") and not head.get("auto_tie")), name
    from gen.report.words import scenario_first as first_words
    alone = first_words.headline_elsewhere("S = 1", "a", ("b",))
    assert "a is fastest instead of b" in alone
    noisy = first_words.headline_elsewhere("S = 1", "a", ("b",), ("c",))
    assert "a leads by its median instead of b, and c is within noise of it as run" in noisy


def test_an_orientations_rate_above_the_measured_ceiling_is_flagged():
    # N7: chunked prefill 512 x 32k, FA4: forward rounds 732, kernel sum 740 TFLOP/s against a 717 ceiling
    t = calls.Timed("fa4", "ok", forward_ms=0.7449, reversed_ms=0.8438, kernel_sum_ms=0.7373)
    o = calls.oriented_rate(t, 0.7654, 712.64)
    text = oriented_words.sentence(o, lambda x: f"{x:.0f}", "TFLOP/s", (717.47, "the measured ceiling"))
    assert "732 TFLOP/s, 102% of the measured ceiling" in text
    assert "740 TFLOP/s, 103% of the measured ceiling" in text
    assert "843.8 µs, 646 TFLOP/s." in text  # below the ceiling: no flag
    at_floor = oriented_words.sentence(o, lambda x: f"{x:.0f}", "TFLOP/s", (732.0 / (1 + 0.009), "c"))
    assert "732 TFLOP/s, 10" not in at_floor  # within rules.TIME_FLOOR_PCT of the ceiling: the ceiling itself


def test_the_committed_chunked_headline_flags_its_orientations_above_the_ceiling(lead):
    from gen.report import site
    from gen.report.pages import scenario_set

    ctx = site.Context([lead])
    chunked = scenario_set.set_view(ctx, lead, "chunked-prefill")["headline"]
    assert "(744.9 µs, 732 TFLOP/s, 102% of the measured ceiling)" in chunked
    assert "Its kernel sum is 737.3 µs, 740 TFLOP/s, 103% of the measured ceiling" in chunked
    gqa = scenario_set.set_view(ctx, lead, "gqa-prefill")["headline"]
    assert "(24.131 ms, 729 TFLOP/s, 102% of the measured ceiling)" in gqa
    # the reversed rounds' median behind another call's there: its lowest median holds through its forward rounds only
    assert "576 TFLOP/s, behind FlashAttention-4 (flash_attn.cute)'s 23.686 ms there." in gqa
    assert "has the lowest median only through its forward rounds" in gqa


def test_the_dynamic_page_says_its_break_even_lengths_in_plain_sentences(lead):
    # N9: "calls a length: up to 380-704 calls (1,001-2,049)", twice on the dynamic page
    pf = dynamic.phase_facts(lead.rs, "prefill")
    text = dynamic_words.headline(pf) + " " + (dynamic_words.advice(pf) or "")
    for old in ("calls a length:", "tokens in brackets", "calls (1,001", "(3,001–8,209)"):
        assert old not in text, old
    clause = ("while a length is called up to 380–704 times (at 1,001–2,049 tokens), and at any number of calls at "
              "3,001–8,209 tokens")
    assert (f"Counting each length's cost, FlashAttention-4 (flash_attn.cute) costs less in all than SDPA cuDNN "
            f"{clause}.") in text
    assert (f"FlashAttention-4 (flash_attn.cute) costs less in all than SDPA cuDNN, counting each new length's cost, "
            f"{clause}.") in dynamic_words.advice(pf)


def test_the_switch_paragraph_says_each_number_once(lead):
    # N10: "40.16 against 36.89" twice in a row, two colons chained, a bare "(1.09x)"
    from gen.report import format as fmt

    (sw,) = [s for s in dynamic.switch_facts(lead.rs) if s.pairs]
    text = dynamic_words.switch_sentence(sw)
    for x in (sw.median_with_ms, sw.median_without_ms, sw.steady_with_ms, sw.steady_without_ms):
        assert text.count(fmt.ms(x)) == 1, x
    assert ":" not in text and f"({sw.ratio:.2f}×)" not in text and "Length by length" not in text
    assert ("With it set, SDPA cuDNN's first call was slower at every prompt length, 1.05–1.66× its time without it "
            "(median over the lengths after the first 40.157 ms against 36.886 ms), one run each, so the switch "
            "brought no gain") in text
