"""Review 2026-12-06-3 items 5, 8, 9, 10 and 11 (docs/notes/review-2026-12-06-3.md): a same-name pair is tied or
apart by one test on the set page and the scenario page, and a small gap is said as "just outside"; FA4's causal tile
pairs are a range over key-block widths; an interval over too few rounds names its real level; a ratio beside a line
never rounds onto it, and the host cost says it is a quantile; the deterministic cost compares like with like. Each
test fails if its rule is broken; expectations come from the set."""

from __future__ import annotations

import dataclasses

import pytest

from gen.analysis import advice, calls, host_rules, kernel_rules, launches, rules, verdicts
from gen.analysis import scenarios as sa
from gen.analysis.timings import Spread
from gen.model import stats
from gen.report.words import decision as decision_words
from gen.report.words import host as host_words
from gen.report.words import methodology as method_words
from gen.report.words import verdicts as verdict_words
from gen.report.words import why as why_words
from gen.report.words.common import apart_words, intervals, label, times_beside, us
from tests.conftest import committed_set

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def h100():
    return committed_set(H100)


# --------------------------------------------------------------------------- item 5: one tie test, the gap


def test_just_outside_follows_its_margin():
    m = 100.0  # ms
    edge = m * rules.JUST_OUTSIDE_PCT / 100
    assert rules.just_outside(edge * 0.99, m) and rules.just_outside(edge, m)
    assert not rules.just_outside(edge * 1.01, m) and not rules.just_outside(0.0, m) and not rules.just_outside(-1, m)
    a, b = Spread(100.0, n=50, ci_lo=99.0, ci_hi=101.0, rounds=10), Spread(102.0, n=50, ci_lo=101.1, ci_hi=103.0,
                                                                           rounds=10)
    gap = calls.interval_gap(a, b)
    assert gap == pytest.approx(0.1) and calls.interval_gap(b, a) == pytest.approx(0.1)
    # at or above 95% an interval names its real level too (review 2026-12-06-7 item 9): 10 rounds, 97.85%
    assert apart_words(gap, a.median, a, b) == "just outside the 97.85% intervals (100.0 µs apart)"
    assert apart_words(edge * 2, a.median, a, b) == "the 97.85% intervals apart"


def test_both_pages_give_the_same_tie_test_and_gap_for_paged_fa4(h100):
    v = verdicts.verdict(h100, "decode-kernels", "inference")
    fa4, paged = v.spread(v.row("fa4")), v.spread(v.row("fa4_paged"))
    assert fa4 is not None and paged is not None
    tied = calls.overlaps(fa4, paged)
    h = sa.headline(None, None, "decode-kernels", sa.point_rows(h100, "decode-kernels"), [])
    apart_on_scenario = {x[0]: x[2] for x in h["same_apart"]}
    if h["fastest"]["variant"] == "fa4":  # the scenario page sets same-name calls against its fastest
        assert ("fa4_paged" in apart_on_scenario) == (not tied)
        if not tied:
            assert apart_on_scenario["fa4_paged"] == pytest.approx(calls.interval_gap(fa4, paged))
    main = verdict_words.same_kernel_line(v) + " " + (verdict_words.paged_line(v) or "")
    gap = calls.interval_gap(fa4, paged)
    if tied:
        assert "fa4_paged" not in v.same_kernel_apart or "overlap" in main
    elif rules.just_outside(gap, min(fa4.median, paged.median)):
        said = f"{gap * 1000:.2g} µs apart" if gap < 1e-3 else f"{gap * 1000:.1f} µs apart"
        assert "just outside the" in main and said in main and "intervals apart" not in main
        scen = __import__("gen.report.words.scenarios", fromlist=["headline"]).headline(
            h, sa.FIGURE_TBPS, True, label)
        if "fa4_paged" in apart_on_scenario:
            assert "just outside the" in scen and said in scen
    # never "overlap: one rank" beside intervals that are apart
    if not tied:
        assert "same names and their" not in main or label("fa4_paged") not in main.split("overlap")[0]


# --------------------------------------------------------------------------- item 8: key blocks


def test_causal_tiles_over_128_key_blocks():
    assert launches.tile_pairs(1024, 1024, 192, causal=True, key_block=128) == 786_432  # 192 x 4,096
    assert launches.tile_pairs(1024, 1024, 128, causal=True, key_block=128) == 589_824
    assert round(786_432 / 589_824, 3) == 1.333
    assert launches.tile_pairs(1024, 1024, 192, causal=True, key_block=1) == 749_568
    assert launches.tile_pairs(1024, 1024, 192, causal=True, key_block=64) == 749_568  # 192 is 3 blocks of 64
    assert 1 in kernel_rules.TILE_KEY_BLOCKS and 128 in kernel_rules.TILE_KEY_BLOCKS


def test_the_articles_tile_ratio_is_a_range_over_key_blocks(h100):
    v = verdicts.verdict(h100, "article", "inference")
    got = launches.verdict_launches(h100, v)
    w = launches.tile_work(got[v.fastest.variant], got[v.runner_up.variant])
    assert [kb for kb, _ in w.by_key_block] == list(kernel_rules.TILE_KEY_BLOCKS)
    q = got[v.runner_up.variant].queries
    for kb, r in w.by_key_block:
        assert r == launches.tile_pairs(q, q, w.rows, True, kb) / launches.tile_pairs(q, q, w.base_rows, True, kb)
    lo, hi = w.ratio_range
    line = why_words.why_line(v, got)
    assert f"{lo:.2f}-{hi:.2f}×" in line and "depending on the key-block width" in line and "not recorded" in line
    assert w.accounts == "all" and "about all of the measured" in line


def test_the_range_decides_how_much_the_tiling_accounts_for():
    w = launches.TileWork(192, 749_568, 524_800, True, 128, False, 589_824, None, 1.27, ((1, 1.27), (128, 1.333)))
    assert w.accounts == "all"
    assert dataclasses.replace(w, tensor_ratio=1.333 * (1 + kernel_rules.TILE_WORK_MATCH) * 1.01).accounts == "part"
    assert dataclasses.replace(w, tensor_ratio=1.27 / (1 + kernel_rules.TILE_WORK_MATCH) / 1.01).accounts == "more"


# --------------------------------------------------------------------------- item 9: the interval's real level


def test_the_range_of_five_rounds_is_a_93_75_percent_interval():
    assert stats.order_statistic_rank(5) == 1 and stats.interval_level(5) == 1 - 2 / 32
    assert stats.interval_level(6) == 1 - 2 / 64
    for n in range(1, 80):
        k = stats.order_statistic_rank(n)
        assert (stats.interval_level(n) >= stats.CI_LEVEL) == (k > 1 or 1 - 2 * 0.5 ** n >= stats.CI_LEVEL)
    five, six = Spread(1.0, n=250, ci_lo=0.9, ci_hi=1.1, rounds=5), Spread(1.0, n=300, ci_lo=0.9, ci_hi=1.1, rounds=6)
    assert five.level == 0.9375 and six.level >= stats.CI_LEVEL
    # each median's own level where they differ (review 2026-12-07-2 item 14: 5 rounds beside 6 said "93.75%" alone)
    assert intervals(five, six) == "93.75% and 96.88% intervals (the range of 5 and 6 rounds)"
    assert intervals(five, five) == "93.75% intervals (the range of 5 rounds)"
    assert intervals(six) == "96.88% intervals"  # its real level, not "95%" (review 2026-12-06-7 item 9)
    assert "the range of 5 rounds is a 93.75% interval" in method_words.SHORT_INTERVAL


def test_a_verdict_names_the_level_its_rounds_give(h100):
    v = verdicts.verdict(h100, "decode-kernels", "inference")
    s = v.spread(v.fastest)
    text = verdict_words.same_kernel_line(v) + (verdict_words.paged_line(v) or "")
    if s.level < stats.CI_LEVEL and text:
        assert f"the range of {s.units} rounds" in text and "95% interval" not in text


# --------------------------------------------------------------------------- item 10: the host line


def test_a_ratio_beside_a_line_never_rounds_onto_it():
    assert times_beside(1.4972, 1.5) == "1.497×"
    assert times_beside(1.4996, 1.5) == "1.4996×"
    assert times_beside(1.30, 1.5) == "1.30×" and times_beside(1.5, 1.5) == "1.50×"
    for x in (1.4951, 1.4999, 1.5001, 1.5049):
        shown = float(times_beside(x, 1.5).rstrip("×"))
        assert (shown < 1.5) == (x < 1.5) and (shown > 1.5) == (x > 1.5)


def test_the_host_cost_is_named_as_its_quantile_with_the_median():
    gpu, cost, med = 0.06957, 0.10416, 0.1345
    text = host_words.host_ratio_words(1.6, (1.5, 1.7), None, cost, gpu, 0.0103, med)
    assert f"{cost / gpu:.2f}× its GPU time, at the rule's 1.5× line" in text  # 1.497: at the line at two decimals
    q = host_rules.HOST_COST_QUANTILE
    assert f"{cost * 1000:.1f} µs at its {q}th percentile (median {med * 1000:.1f} µs)" in text


# --------------------------------------------------------------------------- item 11: like with like


def test_deterministic_costs_compare_like_with_like(h100):
    a = advice.advice(h100)
    assert a.determinism
    text = decision_words._determinism(a)
    for d in a.determinism:
        if d.ratio is None:
            continue
        assert d.det_method == d.base_method  # every deterministic step here has a kernel sum to fall back on
        assert d.ratio == pytest.approx(d.det_ms / d.base_ms)
        if d.det_method == "kernel_sum":
            assert f"{us(d.det_ms)} against {us(d.base_ms)} without determinism (both kernel sums)" in text
    assert decision_words._methods("cuda_graph", "kernel_sum") == " (graph replay against kernel sum)"
