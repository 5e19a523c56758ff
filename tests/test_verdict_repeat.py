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


def test_the_table_says_what_the_pages_say(tmp_path):
    """Review 8 (review 6 #5): a verdict row says "not decided" exactly where the verdict's page heads it so, and "X
    behind by kernel sum" where the page puts X behind by kernel sum; a decision row says "not decided (why)" where
    the first screen's detail does. Read as the repeat's answers in other words, never as their opposite."""
    import re

    from gen.analysis import advice, tables, verdicts
    from gen.report.pages import decision
    from gen.report.words import verdicts as verdict_words
    from tests.conftest import all_verdicts

    m = _module()
    ls = tables.load_set(m.DEFAULT_A)
    said = m.said(ls)
    seen = 0
    for v in all_verdicts(ls):
        row = said[f"verdict: {v.scenario}, {v.mode}"]
        head = verdict_words.verdict(v).headline
        # "of those measured" where some calls of the scenario were unavailable to the capture
        undecided = re.search(r"share the first rank (of those measured )?here, not decided", head) is not None
        assert row.endswith(f"({m.NOT_DECIDED})") == undecided, (row, head)
        assert ("behind by kernel sum)" in row) == ("behind by kernel sum" in head.split(";")[0]), (row, head)
        seen += row.endswith(f"({m.NOT_DECIDED})")
    assert seen  # the premise: the set has verdicts the pages leave not decided (sliding windows, GQA training)
    detail = decision.table_rows(ls)[0]["detail"]
    a = advice.advice(ls)
    for p in a.picks:
        answer = said[f"decision: the default in {p.scenario}, {p.mode}"]
        if answer.startswith(m.NOT_DECIDED):
            assert f"{answer} against " in detail, (answer, detail)
            assert verdicts.verdict(ls, p.scenario, p.mode).undecided()
    c = m.compatible
    assert m._same_sense("fa4, flex_flash (not decided)") == m._same_sense("fa4, flex_flash (within noise)")
    assert m._same_sense("cudnn_fp8, fa4 (within noise as run; fa4 behind by kernel sum)") == "cudnn_fp8 (yes)"
    assert not c("cudnn_fp8, fa4 (within noise as run; fa4 behind by kernel sum)", "fa4 (yes)")
    assert c("not decided (within identical kernels' noise)", "within noise")
