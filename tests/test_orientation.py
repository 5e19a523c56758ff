"""The who-leads rule after review 2026-12-06-3 items 1-3 and 7: a lead must hold in the forward and in the reversed
rounds each on its own; against any noise line, kernel sums at one clock decide; a kernel-sum lead taken with
its leader at the lower clock is told beside "within noise". Each test fails if the rule is broken."""

from __future__ import annotations

import dataclasses

import pytest

from gen.analysis import calls, leads, method, pair_noise, rules, timings
from gen.model import schema
from gen.report.words import methodology as method_words
from gen.report.words import orders as orders_words
from gen.report.words.common import label
from tests.conftest import all_verdicts, committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"
FLOOR = 1 + rules.TIME_FLOOR_PCT / 100
POINT = schema.Point(1, 64, 8, 128, 16384, 16384, "causal")
BORROWED = pair_noise.AsRunNoise(1.147, "sdpa_cudnn", "sdpa_auto", "gqa-prefill", "inference", POINT, borrowed=True)


@pytest.fixture(scope="module")
def lead():
    return committed_set(LEAD)


def _timing(rounds: list[float], reversed_: bool = True) -> schema.Timing:
    """A graph-replay timing of 4 samples per round, each round's samples at its value."""
    return schema.Timing(gpu_only_ms=[x for r in rounds for x in (r,) * 4],
                         gpu_only_method=schema.GpuOnlyMethod.CUDA_GRAPH,
                         round_sizes={schema.Window.GPU_ONLY: [4] * len(rounds)}, interleave_reversed=reversed_)


def _row(variant, rounds, noise=None, ks=None, ks_mhz=None, reversed_=True):
    t = _timing(rounds, reversed_)
    s = timings.spread(t.gpu_only_ms, t.round_sizes[schema.Window.GPU_ONLY])
    fwd, rev = timings.orientation_medians(t)
    return calls.Timed(variant, "ok", gpu_only=s, kernel_sum_ms=ks, kernel_sum_mhz=ks_mhz, as_run_noise=noise,
                       forward_ms=fwd, reversed_ms=rev)


def test_orientation_medians_split_rounds_by_direction():
    fwd, rev = timings.orientation_medians(_timing([1.0, 2.0, 1.1, 2.2, 1.2]))
    assert fwd == pytest.approx(1.1) and rev == pytest.approx(2.1)
    assert timings.orientation_medians(_timing([1.0, 2.0, 1.1], reversed_=False)) == (None, None)  # older sets


def _tight(variant, ms, fwd, rev):
    """A row whose interval is the floor band around `ms`: rounds whose range would give apart intervals can never
    flip (every round of the leader below every round of the other), so the rule's flip case is set up by its
    medians alone."""
    s = timings.Spread(n=20, median=ms, q1=ms, q3=ms, ci_lo=ms / FLOOR, ci_hi=ms * FLOOR, rounds=5)
    return calls.Timed(variant, "ok", gpu_only=s, forward_ms=fwd, reversed_ms=rev)


def test_a_lead_that_flips_between_orientations_is_not_decided():
    # a ahead in the forward rounds (the median's 3 of 5), b in the reversed ones: the sliding-window pattern of the
    # repeat capture
    a, b = _tight("fa4", 2.80, 2.80, 3.37), _tight("flex_flash", 3.12, 3.12, 2.81)
    o = leads.orders(a, b, "gpu_only")
    assert o.apart and o.as_run > FLOOR and o.forward > FLOOR and o.reverse < 1
    assert not o.decided and o.orientation_split and orders_words.state(o) == "not decided"
    text = orders_words.brief(o, label)
    assert "FlashAttention-4 (flash_attn.cute) ahead in the forward rounds (1.11×)" in text
    assert "FlexAttention (FLASH backend) in the reversed rounds (1.20×)" in text and "neighbour effect" in text
    assert rules.lead_decided(True, o.as_run, None) and not rules.lead_decided(True, o.as_run, None, None, None,
                                                                                (o.forward, o.reverse))


def test_a_lead_within_the_floor_in_one_orientation_is_not_decided():
    # five rounds whose ranges are apart: every round of a below every round of b, the reversed ones barely
    a, b = _row("a", [1.0, 1.0, 1.0, 1.0, 1.0]), _row("b", [1.2, 1.0 * FLOOR * 0.999, 1.2, 1.0 * FLOOR * 0.999, 1.2])
    o = leads.orders(a, dataclasses.replace(b, gpu_only=_tight("b", 1.2, 1.2, 1.0).gpu_only), "gpu_only")
    assert o.apart and not o.decided and "within 1% in the reversed rounds" in orders_words.orientations(o, label)


def test_a_lead_that_holds_in_both_orientations_is_decided():
    a, b = _row("a", [1.0, 1.02, 1.0, 1.02, 1.0]), _row("b", [1.2, 1.1, 1.2, 1.1, 1.2])
    o = leads.orders(a, b, "gpu_only")
    assert o.decided and not o.orientation_split and orders_words.orientations(o, label) == ""
    # one side timed alone (no reversed rounds): the other's lead must hold after each of its own neighbours
    alone = _row("b", [1.2] * 5, reversed_=False)
    assert leads.orders(a, alone, "gpu_only").decided
    assert not leads.orders(_row("a", [1.0, 1.25, 1.0, 1.25, 1.0]), alone, "gpu_only").decided


def test_kernel_sums_at_one_clock_decide_against_any_line():
    # deterministic training's pattern: 1.09x as run, inside a borrowed 1.147x, 1.14x by kernel sum at one clock
    a = _row("fa4", [3.20, 3.25, 3.22, 3.27, 3.24], BORROWED, ks=3.07, ks_mhz=1980)
    b = _row("sdpa_cudnn", [3.51, 3.9, 3.52, 4.0, 3.5], BORROWED, ks=3.50, ks_mhz=1980)
    o = leads.orders(a, b, "gpu_only")
    assert o.as_run < BORROWED.ratio and o.within_noise_of_pair and o.decided and o.decided_by_kernel_sum
    assert orders_words.SUMS_DECIDE in orders_words.brief(o, label)
    # the point's own line too (review 2026-12-06-7 item 3: one rule for a local line and a borrowed one)
    own = dataclasses.replace(BORROWED, borrowed=False)
    o_own = leads.orders(dataclasses.replace(a, as_run_noise=own), dataclasses.replace(b, as_run_noise=own), "gpu_only")
    assert o_own.decided and o_own.decided_by_kernel_sum and o_own.deciding[1] == leads.BY_KERNEL_SUM
    # not where the sums ran at clocks apart by as much as their lead (review 2026-12-07-3 item 6: a gap explains at
    # most its own ratio, so past it a larger lead still decides), or an orientation disagrees
    assert not leads.orders(a, dataclasses.replace(b, kernel_sum_mhz=1980 / 1.16), "gpu_only").decided
    far = 1980 * (1 - (rules.CLOCK_GAP_PCT + 1) / 100)
    assert leads.orders(a, dataclasses.replace(b, kernel_sum_mhz=far), "gpu_only").decided
    assert not leads.orders(a, dataclasses.replace(b, kernel_sum_ms=3.07 * FLOOR * 0.999), "gpu_only").decided
    flipped = _row("sdpa_cudnn", [3.51, 3.0, 3.52, 3.0, 3.5], BORROWED, ks=3.50, ks_mhz=1980)
    assert not leads.orders(a, flipped, "gpu_only").decided
    # older sets (no orientations): the borrowed line stands
    old_a, old_b = (dataclasses.replace(t, forward_ms=None, reversed_ms=None) for t in (a, b))
    assert not leads.orders(old_a, old_b, "gpu_only").decided


def test_a_kernel_sum_lead_at_a_lower_clock_is_told():
    # FP8 prefill's pattern: within noise as run, cuDNN FP8 1.20x by kernel sum at a clock 10% below FA4's (11% apart
    # as every gap is worded, the higher over the lower: review 20, Part 1 item 7)
    a = _row("fa4", [6.0, 6.2, 6.1, 6.3, 6.0], ks=6.02, ks_mhz=1965)
    b = _row("cudnn_fp8", [6.05, 5.1, 6.1, 5.2, 6.0], ks=5.02, ks_mhz=1965 * 0.9)
    o = leads.orders(a, b, "gpu_only")
    assert not o.apart and not o.kernel_sum_one_clock and o.kernel_sum_conservative and orders_words.kernels_lead(o)
    # both clocks named beside it (review 2026-12-07-5 item 3)
    assert (f"by kernel sum (cuDNN FP8 attention's sums at {1965 * 0.9:.0f} against 1965 MHz, FlashAttention-4's "
            "clock 11% higher)") in "; ".join(orders_words.noted_parts([o], [a, b], label))
    # the leader at the higher clock: where the gap may be all of its lead (1.25x apart, 1.20x lead), nothing is told
    hi = leads.orders(dataclasses.replace(a, kernel_sum_mhz=1965 * 0.8), dataclasses.replace(b, kernel_sum_mhz=1965),
                      "gpu_only")
    assert not hi.kernel_sum_conservative and not orders_words.kernels_lead(hi)
    # ... and where it cannot (1.11x apart), the lead past it is told (review 2026-12-07-3 item 6)
    hi = leads.orders(dataclasses.replace(a, kernel_sum_mhz=1965 * 0.9), dataclasses.replace(b, kernel_sum_mhz=1965),
                      "gpu_only")
    assert hi.past_clock is not None and orders_words.kernels_lead(hi)


def test_on_the_set_every_decided_lead_holds_in_both_orientations(lead):
    seen = 0
    for v in all_verdicts(lead):
        for t in v.rows:
            for x in v.rows:
                if x is t or v.basis != "gpu_only":
                    continue
                o = leads.orders(x, t, v.basis)
                if o.decided and o.oriented:
                    seen += 1
                    assert min(o.forward, o.reverse) > FLOOR
    assert seen


def test_the_methodology_gives_the_sets_orientation_counts(lead):
    o = method.orientation(lead)
    by_hand = 0
    for r in lead.rs.sweep:
        f, v = timings.orientation_medians(r.timing) if r.status == schema.Status.OK else (None, None)
        by_hand += f is not None and max(f, v) / min(f, v) - 1 > rules.ORIENTATION_GAP_PCT / 100
    assert o is not None and o.apart == by_hand and 0 < o.swapped <= o.points
    text = method_words.orientation(o)
    assert f"{o.apart} have forward and reversed medians" in text and f"{o.swapped} of the {o.points}" in text
    assert "rounds in pairs" in text and "idle gap" in text
    # the count of odd-numbered rounds is the set's, and the sentence follows it
    oriented = [r for r in (*lead.rs.runs, *lead.rs.sweep) if r.status == schema.Status.OK and r.timing is not None
                and None not in timings.orientation_medians(r.timing)]
    odd = sum(len((r.timing.round_sizes or {}).get(schema.Window.GPU_ONLY) or []) % 2 for r in oriented)
    where = f"all {o.timed}" if odd == o.timed else f"{odd} of the {o.timed}"
    assert o.odd == odd and (f"at {where} variant-points timed in both orientations" in text if odd
                             else "came in pairs" in text)
    assert "came in pairs" in method_words.orientation(dataclasses.replace(o, odd=0))
    rule = " ".join(text for _, text in method_words.lead_rules())
    assert "in the median of its forward rounds and in that of its reversed rounds" in rule


def test_the_weaker_orientation_must_clear_the_noise_line_too():
    """Packed documents (review 2026-12-06-4 item 4): 1.17x as run, 1.18x forward, 1.07x reversed, against a 1.147x
    line: the median clears it, the reversed rounds do not."""
    noise = 1.147
    assert rules.lead_decided(True, 1.17, noise, orientations=(1.18, 1.16))
    assert not rules.lead_decided(True, 1.17, noise, orientations=(1.18, 1.07))
    # any line, the point's own or borrowed: kernel sums at close clocks that agree decide instead of it
    assert rules.lead_decided(True, 1.17, noise, kernel_sum_ratio=1.095, kernel_sum_gap=0.0,
                              orientations=(1.18, 1.07))
    assert not rules.lead_decided(True, 1.17, noise, kernel_sum_ratio=1.095, kernel_sum_gap=9.0,
                                  orientations=(1.18, 1.07))
    # the sums must be known to have run at one clock, and beyond the floor
    assert not rules.lead_decided(True, 1.17, noise, kernel_sum_ratio=1.095, orientations=(1.18, 1.07))
    assert not rules.lead_decided(True, 1.17, noise, kernel_sum_ratio=1.005, kernel_sum_gap=0.0,
                                  orientations=(1.18, 1.07))


def test_the_noise_clause_names_the_weaker_orientation_and_says_the_sums_decide_once():
    """Review 2026-12-06-5 item 1: packed documents, 1.17x as run beyond a borrowed 1.147x line, 1.07x in the
    reversed rounds within it, the kernel sums at one clock deciding."""
    from gen.analysis import leads
    from gen.analysis.pair_noise import AsRunNoise
    from gen.report.words import orders as orders_words

    noise = AsRunNoise(1.147, "sdpa_cudnn", "sdpa_auto", "gqa-prefill", "inference",
                       schema.Point(1, 64, 8, 128, 16384, 16384, "causal"), borrowed=True)
    decided = rules.lead_decided(True, 1.17, 1.147, kernel_sum_ratio=1.095, kernel_sum_gap=0.0,
                                 orientations=(1.18, 1.07))
    o = leads.Orders(first="fa4", second="flex_flash", as_run=1.17, apart=True, equal_clock=None, kernel_sum=1.095,
                     first_mhz=1870.0, second_mhz=1865.0, first_ks_ms=0.675, second_ks_ms=0.7395,
                     first_ks_mhz=1965.0, second_ks_mhz=1965.0, clock_gap_pct=None, decided=decided, noise=noise,
                     forward=1.18, reverse=1.07)
    text = orders_words.brief(o, str)
    assert decided and o.decided_by_kernel_sum
    assert "its reversed rounds' 1.07× within the as-run noise" in text
    assert text.count(orders_words.SUMS_DECIDE) == 1
    beyond = dataclasses.replace(o, reverse=1.17)
    assert "beyond the as-run noise" in orders_words.brief(dataclasses.replace(beyond, decided=True), str)
