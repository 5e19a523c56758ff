"""A call compiled per configuration gives its compile where it is named: the first screen the range over the set's
first calls that compiled, a forward's apart from a training step's (whose backward compiles too), not the article's
alone; each scenario page whose first table names it, the compile of that workload's configuration, or the earlier
workload's that paid it where this one found it compiled; and FlexAttention named for packed documents its compile
beside its BlockMask, as the sliding-window page gives it."""

from __future__ import annotations

import json

import pytest

from gen.analysis import advice, compiles, rules, verdicts
from gen.report.pages import scenario_first
from gen.report.words import compiles as compile_words
from gen.report.words import decision as decision_words
from tests.conftest import RESULTS, committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"


def _raw(name: str) -> dict:
    return json.loads((RESULTS / name / "result.json").read_text(encoding="utf-8"))


def test_the_spans_are_the_first_calls_that_compiled():
    raw = _raw(LEAD)
    recs = [r for r in (*raw["runs"], *raw["sweep"]) if r["variant"] == "fa4" and r["status"] == "ok"
            and (r.get("compile_time_s") or 0) >= rules.STARTUP_NOTE_S]
    fw = [r["compile_time_s"] for r in recs if r["mode"] == "inference"]
    tr = [r["compile_time_s"] for r in recs if r["mode"] == "train"]
    s = compiles.spans(committed_set(LEAD), "fa4")
    assert (s.forward.fewest_s, s.forward.most_s, s.forward.count) == (pytest.approx(min(fw)), pytest.approx(max(fw)),
                                                                       len(fw))
    assert (s.train.fewest_s, s.train.most_s, s.train.count) == (pytest.approx(min(tr)), pytest.approx(max(tr)),
                                                                 len(tr))
    assert compile_words.spans(s) == "1.29–3.16 s a forward in this set, 3.55–6.85 s a training step, whose backward " \
        "compiles too"


def test_the_first_screen_gives_the_range_before_the_articles_compile():
    a = advice.advice(committed_set(LEAD))
    line = next(x for x in decision_words.advice(a).lines if "is compiled on the first call" in x)
    assert ("is compiled on the first call of each new configuration (dtype, head dim, mask, grouping of heads): "
            "1.29–3.16 s a forward in this set, 3.55–6.85 s a training step, whose backward compiles too. At the "
            "article's shape it took 1.52 s, the process's first call of it.") in line


def _notes(ls, scenario: str) -> list[tuple[object, list[str]]]:
    f = scenario_first.facts(ls, scenario)
    return [(r, r["notes"]) for r in f["rows"]] if f else []


def test_every_first_table_that_names_fa4_gives_its_compile_there():
    ls = committed_set(LEAD)
    named = 0
    for sc in verdicts.scenarios(ls):
        for row, notes in _notes(ls, sc):
            if row["variant"] not in ("fa4", "fa4_det"):
                continue
            c = compiles.at_point(ls, sc, row["mode"], row["variant"])
            assert c is not None and c.seconds >= rules.STARTUP_NOTE_S, (sc, row["mode"])
            said = [x for x in notes if "at this configuration compiles" in x]
            assert len(said) == 1 and f"({compile_words.secs(c.seconds)}" in said[0], (sc, notes)
            assert ("its forward and backward" in said[0]) == (row["mode"] == "train")
            named += 1
    assert named >= 8
    # FP8 prefill ran the grouped-query configuration after that scenario compiled it (6.9 ms here): the compile a
    # fresh process pays is grouped-query prefill's 2.13 s
    (fp8,) = [n for _, n in _notes(ls, "fp8-prefill")]
    assert ("FlashAttention-4 (flash_attn.cute)'s first call at this configuration compiles (2.13 s in this set, at "
            "prefill with grouped-query attention, which ran this configuration first).") in fp8


def test_flexattention_named_for_packed_documents_gives_its_compile():
    ls = committed_set(H200)
    (notes,) = [n for _, n in _notes(ls, "packed-documents")]
    c = compiles.at_point(ls, "packed-documents", "inference", "flex")
    assert c.seconds == pytest.approx(1.719, abs=1e-3) and c.ahead
    assert ("FlexAttention (compiled)'s first call at this configuration compiles (1.72 s, in a side process, before "
            "the timings).") in notes
    # the sliding-window page gives it in the same words and digits, beside its BlockMask
    (sliding,) = [n for _, n in _notes(ls, "sliding-window")]
    assert any(x.startswith("FlexAttention (compiled)'s first call at this configuration compiles (1.65 s, in a side "
                            "process, before the timings); its BlockMask") for x in sliding)
