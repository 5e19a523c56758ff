"""Review 8 (docs/notes/review-2026-12-06-6.md), its status of review 6 #3: the lead past rules.TIMED_APART_REACH
that decides two calls timed apart stands only where the set's own bound (its lowest window clock against its maximum,
times identical kernels' largest ratio as run: gen.analysis.reach) stays under it, and the methodology prints that
bound and where it decides."""

from __future__ import annotations

import pytest

from gen.analysis import pair_noise, reach, rules, tables
from gen.report.words import methodology as method_words
from gen.report.words.common import label
from tests.conftest import RESULTS

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"


# --------------------------------------------------------------------------- review 6 #3: the 2x reach


@pytest.mark.parametrize("name", [H100, H200])
def test_the_timed_apart_reach_stays_beyond_what_the_sets_conditions_can_move(name):
    ls = tables.load_set(RESULTS / name)
    r = reach.reach(ls)
    assert r is not None
    lows = [p.timing.telemetry["gpu_only"].sm_clock_min_mhz for p in ls.rs.sweep
            if p.timing is not None and p.timing.telemetry.get("gpu_only") is not None
            and p.timing.telemetry["gpu_only"].sm_clock_min_mhz]
    assert r.lowest_mhz == min(lows) and r.ref_mhz == ls.rs.environment.ref_mhz
    pairs = [n.ratio for n in pair_noise.measured(ls).values()]
    assert r.pair == max(pairs)
    # the rule's premise where it decides: the set's own bound under the line
    if r.decides:
        assert r.bound < rules.TIMED_APART_REACH, (r.bound, r.decides[0])
        assert all(x.as_run > rules.TIMED_APART_REACH for x in r.decides)


def test_the_methodology_prints_the_sets_reach():
    from gen.report.words import methodology as method_words

    ls = tables.load_set(RESULTS / H100)
    r = reach.reach(ls)
    text = method_words.timed_alone(1, 0, reach=r)
    assert f"{r.lowest_mhz:.0f} MHz" in text and f"{r.clock_ratio:.2f}× under its {r.ref_mhz:.0f} MHz maximum" in text
    assert f"{r.pair:.3f}× apart as run: {r.bound:.2f}× together" in text
    d = r.decides[0]
    a, b, lead = d.first, d.second, d.as_run
    assert lead == min(x.as_run for x in r.decides) and f"{lead:.2f}×: {label(a)} ahead of {label(b)}" in text
    assert f"The 2× line alone decides {len(r.decides)} pairs here" in text
    assert f"the smallest lead of the {len(r.decides)} is {lead:.2f}×" in text and "nearest to it" not in text
    assert f"the fair kernel sums decide {r.sums_decide} more on their own" in text


def test_the_reach_counts_only_the_pairs_it_alone_decides():
    """Review 2026-12-06-7 item 8: the count took in pairs the fair kernel sums decide on their own (Naive 2.2x behind
    SDPA math at decode 131k keys, both sums at 1980 MHz). A pair the reach counts has no kernel sums that decide it
    within the line (missing, more than CLOCK_GAP_PCT apart in clock, or within the floor); every other decided
    timed-apart pair past the line is one the sums decide, and is counted apart."""
    ls = tables.load_set(RESULTS / H100)
    r = reach.reach(ls)
    past = [(sc, p, o) for sc, _mode, p, _a, _b, _lead, o in reach._past_the_line(ls)]
    alone = [(sc, p, o) for sc, p, o in past if o.reach_decides]
    assert len(r.decides) == len(alone) and r.sums_decide == len(past) - len(alone) > 0
    for sc, _p, o in past:
        gap = rules.clock_gap_pct(o.first_ks_mhz, o.second_ks_mhz)
        sums = (o.kernel_sum is not None and gap is not None and gap <= rules.CLOCK_GAP_PCT
                and o.kernel_sum > rules.TIME_FLOOR) or (o.past_clock is not None and o.past_clock > rules.TIME_FLOOR)
        assert o.reach_decides == (not sums), (sc, o.first, o.second)
    # the pair the review named is the sums', not the reach's
    named = [o for sc, p, o in past if sc == "decode" and p.kv_len == 131072 and {o.first, o.second} ==
             {"naive", "sdpa_math"}]
    assert named and not any(o.reach_decides for o in named)
    # the nearest reach-only pair: once the review's 2.24x (sliding windows, FLASH backend against varlen, sums 10%
    # apart), which its sums now decide, 2.24x being more than that gap can explain (review 2026-12-07-3 item 6); now
    # decode at 64k keys, FA4 against FlexAttention, sums 6% apart at a memory-bound point
    assert not any((x.scenario, x.first, x.second) == ("sliding-window", "flex_flash", "varlen") for x in r.decides)
    d = r.decides[0]
    assert (d.scenario, d.first, d.second) == ("decode", "fa4", "flex") and d.as_run == pytest.approx(3.239, abs=5e-3)
    assert rules.clock_gap_pct(*(r.nearest.first_ks_mhz, r.nearest.second_ks_mhz)) > rules.CLOCK_GAP_PCT
    assert r.nearest.memory_bound and "at a memory-bound point" in method_words._why_sums_not(r.nearest)
