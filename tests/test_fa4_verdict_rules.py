"""Verdict rules for FlashAttention-4 (issue 32): where a set did not measure FA4 (the H200 set, captured before
the variants), no verdict calls a measured variant the fastest of all: each says "fastest of those measured" and
names what was missing with the install command; a set that measured FA4 says plain "fastest"."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.analysis import tables, unmeasured, verdicts
from gen.model.variants import FA4_INSTALL
from gen.report.pages import verdict as verdict_page
from gen.report.words import common as words
from gen.report.words import verdicts as verdict_words
from tests.conftest import RESULTS, committed_set

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def h200():
    return committed_set(H200)


@pytest.fixture(scope="module")
def h100():
    return committed_set(H100)


def test_a_set_without_fa4_names_it_unmeasured_with_the_install_command(h200):
    absent = unmeasured.absent_fa4(h200.rs, ())
    assert [x.variant for x in absent] == list(unmeasured.FA4_FAMILY)
    assert all(FA4_INSTALL in x.reason for x in absent)


def test_no_verdict_of_a_set_without_fa4_calls_its_fastest_the_fastest_of_all(h200):
    seen = 0
    for scenario in verdicts.scenarios(h200):
        for mode in ("inference", "train"):
            v = verdicts.verdict(h200, scenario, mode)
            if v is None:
                continue
            seen += 1
            w = verdict_words.verdict(v)
            assert unmeasured.fa4_missing(v.not_measured) == list(unmeasured.FA4_FAMILY)
            assert "fastest of those measured here" in w.headline, (scenario, mode)
            assert "fastest here" not in w.headline
            text = " ".join(w.lines)
            assert "pip install .[fa4]" in text
    assert seen
    d = verdict_page.decision(h200)
    assert any("Not measured in this set" in line and FA4_INSTALL in line for line in d["lines"])


def test_a_set_that_measured_fa4_ranks_without_the_caveat(h100):
    assert unmeasured.absent_fa4(h100.rs, ()) == ()
    for scenario in verdicts.scenarios(h100):
        v = verdicts.verdict(h100, scenario, "inference")
        if v is not None:
            assert "of those measured" not in verdict_words.verdict(v).headline
    d = verdict_page.decision(h100)
    assert not any("Not measured in this set" in line for line in d["lines"])


def test_fa4s_first_call_is_a_compile_per_configuration_not_a_one_time_start_up(h100):
    d = verdict_page.decision(h100)
    run = h100.rs.run("fa4")
    line = next(line for line in d["lines"] if "first call" in line and "FlashAttention-4" in line
                and "compiled" in line)
    assert "compiled on the first call of each new configuration" in line and "one-time FlashAttention-4" not in line
    assert f"{run.first_call_s:.2f} s" in line


@pytest.mark.parametrize("name", [H100, H200])
def test_the_paged_kv_answer_rests_on_a_variant_that_pages(name):
    from gen.analysis import paged

    ls = tables.load_set(Path(RESULTS / name))
    v = verdicts.verdict(ls, "decode-kernels", "inference")
    facts = paged.paged_facts(v)
    assert facts is not None and facts.ranked
    assert all(paged.pages(x) for x, _ in facts.ranked)
    line = verdict_words.paged_line(v)
    best = facts.ranked[0][0]
    assert line.startswith(f"For a paged KV cache, call {words.label(best)}")
    assert "SDPA reads a contiguous cache only" in line
    assert line in verdict_words.verdict(v).lines
    assert not any(x.startswith("sdpa") for x, _ in facts.ranked)
