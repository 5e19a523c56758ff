"""The first screen's start-up and host sentences read one clause at a time: brackets at most one deep and at most one
colon a sentence (the FA4 compile sentence and the loops line had brackets in brackets and chains of colons), and an
exception row's loop gain says in one clause that the call is host-bound, with the two loop times beside it."""

from __future__ import annotations

import re

import pytest

from gen.analysis import advice, calls, verdicts
from gen.report.pages import decision
from gen.report.words import common as words
from gen.report.words import decision as decision_words
from gen.report.words import host as host_words
from tests.conftest import H100_PAIRED, bracket_depth
from tests.test_review_20_l import _prose

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.)])\s+(?=[A-Z])", text) if s]


def _one_clause_deep(text: str) -> None:
    for s in _sentences(text):
        assert bracket_depth(s) <= 1, s
        assert s.count(":") <= 1, s


@pytest.mark.parametrize("name", [OLDER, H100_PAIRED, "nvidia-h200__torch-2.11.0"])
def test_the_first_screens_start_up_and_loop_sentences_nest_no_brackets(loaded, name):
    a = advice.advice(loaded[name])
    said = [x for x in (decision_words._startup(a), decision_words._host(a), decision_words._loops(a)) if x]
    assert said
    for text in said:
        _one_clause_deep(text)


def test_the_fa4_compile_sentence_gives_the_time_then_what_else_compiled(loaded):
    a = advice.advice(loaded[OLDER])
    s = a.startup
    text = decision_words._startup(a)
    (r,) = [x for x in s.recompiled if x.phase == "decode"]
    fw, tr, det = s.compiles.forward, s.compiles.train, s.compiles.train_after[0]
    assert text.startswith(f"FlashAttention-4 (flash_attn.cute) is compiled on the first call of each new "
                           f"configuration (dtype, head dim, mask, grouping of heads): "
                           f"{fw.fewest_s:.2f}–{fw.most_s:.2f} s a forward in this set, "
                           f"{tr.fewest_s:.2f}–{tr.most_s:.2f} s a training step, whose backward "
                           f"compiles too. At the article's shape it took {s.first_call_s:.2f} s, the process's first "
                           f"call of it. The first training step of FlashAttention-4 (deterministic backward) took "
                           f"{det.seconds:.2f} s right after FlashAttention-4 had compiled the same "
                           f"configuration; alone it was not measured. A configuration holds more than the set "
                           f"records: at decode steps it compiled again ({r.first_ms / 1e3:.2f} s)")
    assert "only the batch differed (8 there, 1 here)." in text


def test_the_chunked_prefill_loop_is_its_own_sentences(loaded):
    a = advice.advice(loaded[OLDER])
    loops = decision_words._loops(a)
    x = next(x for x in a.loops if x.scenario == "chunked-prefill")
    sc, r, lo, host_ms, gpu_ms = x.scenario, x.ratio, x.ratio_ci[0], x.host_cost_ms, x.gpu_ms
    assert (f"a loop of FlashAttention-4 took {r:.2f}× its GPU-only time (at least {lo:.2f}×). The host-bound rule "
            f"leaves it undecided. The loop's {r:.2f}× says host-bound. Its 10th-percentile host cost, "
            f"{host_ms / gpu_ms:.2f}× its GPU time, lies between the rule's 0.5× and 1.5× lines.") in loops
    (v, ratio) = next((c.variant, c.eager_ratio) for c in a.host_calls if c.scenario == sc)
    assert f"The call there, {words.label(v)}, took {words.times(ratio)} its GPU-only time in a loop." in loops
    assert "percentile) is" not in host_words.host_short_of_line(1.3, 1.0)


def test_a_host_bound_exception_row_says_so_in_its_gain_cell(loaded, results_docs):
    ls = loaded[H100_PAIRED]
    a = advice.advice(ls)
    e = next(x for x in a.exceptions if x.scenario == "chunked-prefill")
    v = verdicts.verdict(ls, e.scenario, e.mode)
    mine, theirs = calls.loop_ms(v.row(e.variant), v.row(a.default))
    row = next(r for r in decision.table_rows(ls) if r["variant"] == e.variant)
    assert row["gain"].endswith(f"on the GPU; {words.times(theirs / mine)} in an eager loop, where the call is "
                                f"host-bound ({words.us(mine)} against {words.us(theirs)} a call)")
    assert row["condition"].startswith("at 16 queries")
    page = _prose((results_docs / "generated" / "sets" / f"{H100_PAIRED}.md").read_text(encoding="utf-8"))
    assert "in an eager loop host-bound:" not in page and "a call in an eager loop on this host" not in page
    assert f", where the call is host-bound ({words.us(mine)} against {words.us(theirs)} a call) at 16 queries" in page
