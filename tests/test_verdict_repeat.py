"""benchmarks/verdict_repeat.py: two captures' answers are the same, or at least do not contradict each other."""

from __future__ import annotations

import importlib.util

from tests.conftest import ROOT


def _module():
    spec = importlib.util.spec_from_file_location("verdict_repeat", ROOT / "benchmarks" / "verdict_repeat.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_tie_in_one_capture_and_a_leader_among_it_in_the_other_do_not_contradict():
    c = _module().compatible
    assert c("fa4 (yes)", "fa4 (yes)")
    assert c("fa4, flex_flash (within noise)", "fa4 (yes)") and c("fa4 (yes)", "fa4, flex_flash (within noise)")
    assert not c("fa4, flex_flash (within noise)", "sdpa_cudnn (yes)")  # a leader outside the tie
    assert not c("fa4 (yes)", "flex_flash (yes)")  # two leaders, each told apart: a contradiction
    assert c("fa4, flex_flash (within noise)", "fa4, fa4_paged, flex_flash (within noise)")
    assert not c("fa4, flex (within noise)", "sdpa_auto, sdpa_cudnn (within noise)")
    # a decision's standing of the default
    assert c("within noise", "fastest") and c("slower", "within noise")
    assert not c("fastest", "slower") and not c("fa4", "sdpa_cudnn")
    assert not c(None, "fa4 (yes)")
