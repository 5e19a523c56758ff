"""The review's items on the decision and its advice (review.md, fixB): each rule here fails if the page says
again what the committed sets contradict."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.analysis import advice, dynamic, tables, verdicts
from gen.report import wording_dynamic as wd
from gen.report import wording_verdicts as wv
from tests.conftest import RESULTS

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def h100():
    return tables.load_set(Path(RESULTS / H100))


@pytest.fixture(scope="module")
def h200():
    return tables.load_set(Path(RESULTS / H200))


# item 4: unpinned SDPA's cheap first calls followed pinned cuDNN's at the same lengths: cache hits
def test_a_run_measured_after_pinned_cudnn_is_not_advised_as_a_way_around_the_plan_build(h100):
    for phase in dynamic.phases(h100.rs):
        pf = dynamic.phase_facts(h100.rs, phase)
        order = [r.variant for r in h100.rs.dynamic if r.phase == phase and not r.env]
        assert order.index("sdpa_cudnn") < order.index("sdpa_auto")
        assert pf.cache_warmed("sdpa_auto")
        text = wd.headline(pf) + " " + (wd.advice(pf) or "") + " " + (wd.break_even_example(pf) or "")
        assert "hit the plan cache" in text
        advice_text = wd.advice(pf) or ""
        assert "SDPA, backend not pinned costs less" not in advice_text
        assert "SDPA, backend not pinned against" not in (wd.break_even_example(pf) or "")


# item 24: the switch probe's steady change is said beside the "no effect" judgement of first calls
def test_the_switch_probe_reports_its_steady_change(h100):
    for s in dynamic.switch_facts(h100.rs):
        text = wd.switch_sentence(s)
        if s.steady_with_ms and s.steady_without_ms and abs(s.steady_with_ms / s.steady_without_ms - 1) >= 0.10:
            r = s.steady_without_ms / s.steady_with_ms
            assert f"{r:.2f}× faster" in text or f"{1 / r:.2f}× slower" in text
            assert "fresh subprocess" in text
