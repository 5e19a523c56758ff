"""Review 2026-12-06-5's open item 6: the like-with-like rule of the determinism ratios, and the pairing of each
deterministic call with the same call without determinism, live once (gen.analysis.determinism_rule.like_with_like and
base_of) and feed both the set's determinism costs (the home's, determinism_costs) and the scenario page's
(scenarios.determinism_frame). Each test fails if one of the two computes its own."""

from __future__ import annotations

import pytest

from gen.analysis import advice, determinism, determinism_rule, tables
from gen.analysis import scenarios as sa
from tests.conftest import RESULTS

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def lead():
    return tables.load_set(RESULTS / LEAD)


def _frame(ls):
    rows = sa.point_rows(ls, "deterministic-backward")
    return {r["deterministic_variant"]: r for r in sa.determinism_frame(None, rows).to_dict("records")
            if (r["q_len"], r["kv_len"]) == (8192, 8192)}


def test_the_home_and_the_scenario_page_give_the_same_ratios(lead):
    costs = [d for d in advice.advice(lead).determinism if d.ratio is not None]
    frame = _frame(lead)
    assert {d.variant for d in costs} == {"fa4_det", "sdpa_flash_det", "sdpa_efficient_det"}
    for d in costs:
        r = frame[d.variant]
        assert r["default_variant"] == d.base
        assert r["ratio"] == pytest.approx(d.ratio) and r["deterministic_ms"] == pytest.approx(d.det_ms)
        assert bool(r["kernel_sums"]) == (d.det_method == d.base_method == "kernel_sum")
    # the review's numbers: both kernel sums for SDPA flash and efficient, FA4's graph replays as run
    assert frame["sdpa_flash_det"]["ratio"] == pytest.approx(1.55, abs=0.005) and frame["sdpa_flash_det"]["kernel_sums"]
    assert frame["fa4_det"]["ratio"] == pytest.approx(1.14, abs=0.005) and not frame["fa4_det"]["kernel_sums"]


def test_both_read_one_rule(lead, monkeypatch):
    """Replace the one rule: both the costs and the frame follow it."""
    monkeypatch.setattr(determinism_rule, "like_with_like", lambda *a: (3.0, 2.0, True))
    costs = determinism.determinism_costs([advice.verdicts.verdict(lead, "deterministic-backward", "train")])
    assert all(d.ratio == pytest.approx(1.5) for d in costs if d.ratio is not None)
    assert all(r["ratio"] == pytest.approx(1.5) and r["kernel_sums"] for r in _frame(lead).values()
               if r["status"] == "ok")
    monkeypatch.undo()
    monkeypatch.setattr(determinism_rule, "base_of", lambda name, have: None)
    costs = determinism.determinism_costs([advice.verdicts.verdict(lead, "deterministic-backward", "train")])
    assert not _frame(lead) and costs and all(d.base is None and d.ratio is None for d in costs)


def test_the_pairing_rule():
    assert determinism_rule.base_of("fa4_det", {"fa4", "flex_flash", "sdpa_flash"}) == "fa4"
    assert determinism_rule.base_of("sdpa_flash_det", {"fa4", "sdpa_flash"}) == "sdpa_flash"
    assert determinism_rule.base_of("fa4_det", {"flex_flash"}) is None  # never another library that pins no backend
    assert determinism_rule.base_of("fa4", {"fa4"}) is None  # not deterministic
    got = determinism_rule.like_with_like(10.09, "cuda_graph", 9.997, 6.441, "kernel_sum", 6.441)
    assert got == (9.997, 6.441, True)
    assert determinism_rule.like_with_like(3.68, "cuda_graph", 3.48, 3.24, "cuda_graph", 3.07) == (3.68, 3.24, False)
