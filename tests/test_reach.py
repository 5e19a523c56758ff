"""Review 8 (docs/notes/review-2026-12-06-6.md), its status of review 6 #3: the lead past rules.TIMED_APART_REACH
that decides two calls timed apart stands only where the set's own bound (its lowest window clock against its maximum,
times identical kernels' largest ratio as run: gen.analysis.reach) stays under it, and the methodology prints that
bound and where it decides."""

from __future__ import annotations

import pytest

from gen.analysis import pair_noise, reach, rules, tables
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
        assert all(lead > rules.TIMED_APART_REACH for *_, lead in r.decides)


def test_the_methodology_prints_the_sets_reach():
    from gen.report.words import methodology as method_words

    ls = tables.load_set(RESULTS / H100)
    r = reach.reach(ls)
    text = method_words.timed_alone(1, 0, reach=r)
    assert f"{r.lowest_mhz:.0f} MHz" in text and f"{r.clock_ratio:.2f}× under its {r.ref_mhz:.0f} MHz maximum" in text
    assert f"{r.pair:.3f}× apart as run: {r.bound:.2f}× together" in text
    sc, mode, p, a, b, lead = r.decides[0]
    assert lead == min(x[-1] for x in r.decides) and f"{label(a)} {lead:.1f}× ahead of {label(b)}" in text
    assert f"it decides {len(r.decides)} pairs here" in text
