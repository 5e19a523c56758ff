"""A call ranked or named on a scenario page carries its costs beyond the GPU time: a host-bound call ranked between
two others gives its eager-loop ratio too; a host sentence reads its times in the GPU time's unit; a sliding-window
answer that builds a BlockMask gives its compile and its build under the top table, as packed documents does."""

from __future__ import annotations

from gen.analysis import advice
from gen.report.pages import scenario_first
from gen.report.words import decision as decision_words
from gen.report.words import host
from tests.conftest import H100_PAIRED, committed_set


def test_nested_jagged_tensors_give_their_eager_loop_beside_the_gpu():
    a = advice.advice(committed_set(H100_PAIRED))
    line = next(x for x in decision_words.advice(a).lines if x.startswith("For packed documents"))
    assert ("SDPA on nested jagged tensors 1.23× slower than varlen_attn on the GPU, 4.86× in an eager loop "
            "(host-bound, 6.211 ms a call with 6.008 ms on the host)") in line


def test_a_host_sentence_reads_one_unit():
    text = host.host_crossover(1.5829, 5.577, 0.0134, 6.0081)
    assert "under 1.583 ms" in text and "host took 5.577 ms at its 10th percentile (median 6.008 ms)" in text
    assert "µs at its" not in text
    # a GPU time under 1 ms keeps the host times in µs
    assert "host took 104.2 µs at its 10th percentile (median 134.5 µs)" in host.host_crossover(0.0589, 0.1042, None,
                                                                                                  0.1345)


def test_the_paired_sliding_window_top_block_gives_compile_and_build():
    ls = committed_set(H100_PAIRED)
    notes = scenario_first.facts(ls, "sliding-window")["rows"][0]["notes"]
    assert ("FlexAttention (compiled)'s first call at this configuration compiles (1.27 s, in a side process, before "
            "the timings); its "
            "BlockMask takes 13.6 ms to build (one timing of an uncompiled create_block_mask), repaid after about 8 "
            "calls with one mask.") in notes
