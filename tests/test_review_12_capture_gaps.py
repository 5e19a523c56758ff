"""Review 2026-12-07-3 (the paired H100 set: a capture without flash-attn-4 and the cuDNN frontend, stopped by its time
limit), items 1, 2, 3 and 8: the capture records a missing package as the reason even past the time limit, and the
report says what a capture left out, and why, where its answer stands. Synthetic small sets and the committed sets;
numbers are read from the sets, never typed in where a set gives them."""

from __future__ import annotations

import time

import pytest
import torch

from gen.capture import dynamic, extras, sweep
from gen.capture import timing as capture_timing
from gen.model import scenarios as sc
from gen.model.variants import VARIANTS


def _quick() -> capture_timing.Budget:
    return capture_timing.Budget(warmup_min=2, warmup_min_s=0.0, warmup_max_s=0.02, repeats=3, min_measure_s=0.0,
                                 max_repeats=3, host_repeats=2, min_rounds=2, max_rounds=2, round_s=0.002,
                                 heat_s=0.0)


@pytest.fixture
def no_extras(monkeypatch):
    """Neither optional package found, whatever this machine has."""
    real = extras.importlib.util.find_spec
    monkeypatch.setattr(extras.importlib.util, "find_spec",
                        lambda name, *a: None if name in ("flash_attn", "cudnn") else real(name, *a))


# --------------------------------------------------------------------------- 3: the capture's reason

def test_a_missing_package_is_the_reason_past_the_time_limit_too(tmp_path, no_extras):
    """A sweep past its deadline: the variants whose package is missing say so; the others are skipped for time."""
    s = sc.tiny(sc.SCENARIOS["article"])
    vs = [VARIANTS[n] for n in ("sdpa_math", "fa4", "flex_flash")]
    (tmp_path / "traces").mkdir()
    pts = sweep.run_sweep(vs, [s], ["inference"], torch.device("cpu"), tmp_path, deadline=time.monotonic(),
                          budget=_quick())
    by = {}
    for p in pts:
        by.setdefault(p.variant, set()).add((p.status, p.reason))
    assert by["sdpa_math"] == {("skipped", "not run: the run's time limit was reached")}
    for v in ("fa4", "flex_flash"):
        assert by[v] == {("unavailable", f"ValueError: {extras.FA4_MISSING}")}


def test_a_missing_cudnn_frontend_is_said_before_the_time_limit():
    assert extras.missing(VARIANTS["sdpa_cudnn"]) is None  # not an optional variant: nothing to look up
    real = extras.importlib.util.find_spec
    try:
        extras.importlib.util.find_spec = lambda name, *a: None if name == "cudnn" else real(name, *a)
        assert extras.missing(VARIANTS["cudnn_fp8"]) == f"ValueError: {extras.CUDNN_MISSING}"
    finally:
        extras.importlib.util.find_spec = real


def test_a_dynamic_run_of_a_missing_package_says_so_not_the_time_limit(no_extras):
    s = sc.tiny(sc.SCENARIOS["dynamic-lengths"])
    pts = s.dynamic_points()["prefill"]
    past = time.monotonic() - 1
    fa4 = dynamic.run_variant(VARIANTS["fa4"], "prefill", pts, "fp32", torch.device("cpu"), 0, past)
    assert (fa4.status, fa4.reason, fa4.lengths) == ("unavailable", f"ValueError: {extras.FA4_MISSING}", [])
    naive = dynamic.run_variant(VARIANTS["naive"], "prefill", pts, "fp32", torch.device("cpu"), 0, past)
    assert "time limit" in naive.reason and naive.lengths == []
