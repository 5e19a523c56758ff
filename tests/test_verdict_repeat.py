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


def test_a_standing_in_the_pages_words_reads_as_the_same_answer():
    """The first screen's 'behind by kernel sum' is the repeat's 'slower' in other words (both put another call
    first), 'not decided (timed apart)' its 'within noise' (both leave the default sharing the first rank); neither
    turns into the other's opposite (review 2026-12-06-5, the repeat's vocabulary)."""
    m = _module()
    c = m.compatible
    assert c(m.BEHIND_BY_KERNELS, m.SLOWER) and c(m.TIMED_APART, m.NOISE)
    assert not c(m.BEHIND_BY_KERNELS, "fastest") and not c(m.TIMED_APART + "x", "fastest")
    assert m._same_sense(m.BEHIND_BY_KERNELS) == m._same_sense(m.SLOWER) != m._same_sense(m.TIMED_APART)


def test_the_committed_record_is_what_the_script_prints_at_this_commit(tmp_path):
    """benchmarks/verdict_repeat.md, which the methodology names, is regenerated whenever the rules change what it
    prints: its first section is the script's output on the committed set and its repeat, at this commit."""
    m = _module()
    text = m.report(m.open_set(m.DEFAULT_A, tmp_path / "a"), m.open_set(m.DEFAULT_B, tmp_path / "b"))
    committed = (ROOT / "benchmarks" / "verdict_repeat.md").read_text()
    assert text in committed, "regenerate benchmarks/verdict_repeat.md: python benchmarks/verdict_repeat.py"
    assert committed.index(text) < committed.index("## Earlier")


def test_the_methodology_names_the_repeat_and_gives_no_number_of_its_own():
    """The site says the verdicts were re-captured and where the comparison is, and copies none of its counts (every
    number on the site comes from a result set or a recorded output: review 2026-12-06-5 open item 5)."""
    import re

    text = (ROOT / "docs" / "methodology.md").read_text()
    para = next(p for p in text.split("\n\n") if "verdict_repeat" in p)
    for path in re.findall(r"`(benchmarks/[^`]+)`", para):
        assert (ROOT / path).is_file(), path
    assert "`benchmarks/verdict_repeat.md`" in para and "`benchmarks/verdict_repeat.py`" in para
    assert "same machine" in para and not re.search(r"\d", para.replace("H100", ""))
