"""Review 2026-12-07-1 (review 10), findings 2, 3, 5 and 14: the home's host line names whose loop waited and the call
the home names there; decode's first screen says what a Python loop of eager calls makes the answer; chunked prefill's
gain is worded as the mask argument's; the dynamic-lengths sentence parses. Each test fails if its rule is broken: on
the committed H100 set, or on synthetic outcomes."""

from __future__ import annotations

import re

import pytest

from gen.analysis import advice
from gen.analysis.dynamic import ALWAYS, BEYOND, UP_TO, LengthOutcome
from gen.model.variants import VARIANTS
from gen.report.pages import decision as decision_page
from gen.report.words import compiles as compile_words
from gen.report.words import decision as decision_words
from gen.report.words import dynamic as dynamic_words
from gen.report.words.common import label, short_label, times, us
from tests.conftest import RESULTS, committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def lead():
    return committed_set(LEAD)


@pytest.fixture(scope="module")
def lead_advice(lead):
    return advice.advice(lead)


# --------------------------------------------------------------------------- item 2: whose loop waited


def test_the_host_line_names_the_call_whose_loop_waited_and_the_call_named_there(lead_advice):
    a = lead_advice
    host, loops = decision_words._host(a), decision_words._loops(a)
    assert host and loops
    assert host.startswith(f"In short calls of {label(a.default)} at the article's shape")
    assert loops.startswith(f"A loop of {label(a.default)} also waited in")
    # every exception's call in inference, with its own loop's ratio, stands beside the default's loop there (since
    # review 2026-12-07-4 the article's shape is no exception on this set: SDPA cuDNN leads as run by 1.18x, under the
    # 1.2x bar; chunked prefill is the one left)
    said = {c.scenario for c in a.host_calls}
    assert said == {e.scenario for e in a.exceptions if e.mode == "inference"} and "chunked-prefill" in said
    text = host + " " + loops
    for c in a.host_calls:
        said = f"The call there, {label(c.variant)}, took {times(c.eager_ratio)} its GPU-only time in a loop."
        assert said in text, c.scenario
    # the article's FA4 loop is within noise of the line: the rule's words, never a bare "waited"
    assert a.host_outcome == "within noise" and "within noise of the host-bound line" in host


# --------------------------------------------------------------------------- item 3: decode in an eager loop


def test_decodes_first_screen_says_a_python_loop_answers_sdpa_not_pinned(lead_advice):
    a = lead_advice
    decode = next(p for p in a.picks if p.scenario == "decode" and p.mode == "inference")
    assert decode.loop_call is not None
    x, ms, mine = decode.loop_call.variant, decode.loop_call.eager_ms, decode.loop_call.own_ms
    assert x == "sdpa_auto" and mine / ms > 2  # 189.2 against 67.5 µs in the committed set
    head = decision_words.advice(a).decision
    # its own sentences after the workload's name (review 2026-12-07-1 N3)
    assert (f"In an eager Python loop, call {label(x)}. It takes {us(ms)} a call against {short_label(a.default)}'s "
            f"{us(mine)} ({times(mine / ms)})") in head


# --------------------------------------------------------------------------- item 5: a mask argument's gain


def test_chunked_prefills_gain_is_worded_as_the_mask_arguments(lead, lead_advice):
    e = {x.scenario: x for x in lead_advice.exceptions}
    assert e["chunked-prefill"].mask_arg_backend == "cudnn"  # the unpinned call given a dense mask went to cuDNN
    row = next(r for r in decision_page.table_rows(lead) if r["variant"] == "sdpa_lower_right")
    assert re.match(r"\d+\.\d\d×\*", row["gain"])
    assert ("is over the same SDPA call, backend not pinned, given the mask as a dense boolean attn_mask, which sent "
            "it to cuDNN: the gain is the mask argument's; pass torch.nn.attention.bias.causal_lower_right") \
        in row["condition"]


def test_an_exception_that_is_another_call_is_no_mask_arguments_gain(paired):
    # the older set's article exception (SDPA cuDNN, which pins its backend) checked this until review 2026-12-07-4
    # folded the article into the first row there (1.18x as run, under the 1.2x bar); the paired set's FlexAttention
    # exceptions (sliding windows, packed documents) are other calls, not another argument of the same one
    a = advice.advice(paired)
    other = [x for x in a.exceptions if x.mask_arg_backend is None]
    assert {x.scenario for x in other} >= {"sliding-window", "packed-documents"}
    calls = {x.variant for x in other}
    assert not calls & {x.variant for x in a.exceptions if x.mask_arg_backend is not None}  # each row told apart
    rows = decision_page.table_rows(paired)[1:]  # the exceptions' rows
    mine = [r for r in rows if r["variant"] in calls]
    assert len(mine) == len(other)
    for r in mine:
        assert "*" not in r["gain"] and "mask argument" not in r["condition"], r
    assert any("*" in r["gain"] and "mask argument" in r["condition"] for r in rows)  # chunked prefill's


# --------------------------------------------------------------------------- item 14: a sentence that parses


def test_the_break_even_clause_reads_as_the_end_of_a_sentence():
    outs = (LengthOutcome(1001, UP_TO, 436.0), LengthOutcome(2049, UP_TO, 705.0), LengthOutcome(3001, ALWAYS),
            LengthOutcome(8209, ALWAYS))
    assert dynamic_words.per_length_clause(outs) == (
        "while a length is called up to 435–704 times (at 1,001–2,049 tokens), and at any number of calls at "
        "3,001–8,209 tokens")
    assert dynamic_words.per_length_clause((LengthOutcome(4096, BEYOND, 9.5),)) == \
        "once a length is called 10 times or more (at 4,096 tokens)"


def test_the_homes_dynamic_lengths_sentence_parses(lead_advice):
    text = decision_words.lengths_line(lead_advice)
    assert "calls a length (tokens in brackets)" not in text
    assert re.search(r"or call FlashAttention-4 \(flash_attn\.cute\) in prefill: counting each new length's cost, it "
                     r"costs less in all than SDPA cuDNN \(the fastest once warm\) while a length is called up to "
                     r"[\d,–]+ times \(at [\d,–]+ tokens\), and at any number of calls at [\d,–]+ tokens\.", text)


# --------------------------------------------------------------------------- item 4: what differed at a recompile


def test_a_compile_in_the_dynamic_runs_names_what_differed_from_the_earlier_run(lead):
    from gen.analysis import recompiles

    recs = {(r.variant, r.phase): r for r in recompiles.recompiles(lead.rs)}
    # FlexAttention's runs (torch.compile) start from a fresh compile by construction: none is a recompile to explain
    assert recs and not any(VARIANTS[v].torch_compiled for v, _ in recs)
    fa4 = recs[("fa4", "decode")]
    assert fa4.scenario == "decode" and fa4.differs == (recompiles.FieldDiff("batch", 8, 1),) and fa4.first_ms > 1e3
    assert dict(fa4.same) == {"q_heads": 32, "kv_heads": 8, "head_dim": 128, "mask": "none"}
    # the page says so under the decode table, and no longer claims FA4 at decode was found warm
    from gen.report.pages import dynamic as dynamic_page

    notes = " ".join(dynamic_page.phase_view(lead, "decode")["notes"])
    assert ("FlashAttention-4 (flash_attn.cute) (1.43 s) paid a compile again at the first length" in notes
            and "only the batch (8 there, 1 here) differed" in notes)
    # torch.compile's calls start each run from a fresh compile (the capture resets Dynamo): never blamed on a field
    assert "FlexAttention (compiled) (1.66 s)" not in notes and "FLASH backend (2.04 s)" not in notes
    template = (RESULTS.parent / "gen/report/templates/dynamic_page.md.j2").read_text()
    assert "(FA4 at decode) is found warm here" not in template


def test_the_homes_list_of_compile_keys_grows_by_what_the_set_shows(lead_advice):
    from dataclasses import replace

    from gen.analysis.recompiles import FieldDiff, Recompile

    s = lead_advice.startup
    text = decision_words._startup(lead_advice)
    # the set records no compile key: the field that differed is said, never called the cause
    assert ("(dtype, head dim, mask, grouping of heads): 1.29–3.16 s a forward in this set, 3.55–6.85 s a training "
            "step, whose backward compiles too. At the article's shape it took 1.52 s, the process's first call of "
            "it. The first training step of FlashAttention-4 (deterministic backward) took 2.33 s right after "
            "FlashAttention-4 had compiled the same configuration; alone it was not measured. A configuration holds "
            "more than the set records: at decode steps it compiled again (1.43 s) after "
            "the set's decode from a KV cache runs had compiled it, though of the fields the set records only the "
            "batch differed (8 there, 1 here).") in text
    assert "batch size at least" not in text
    # a compile the list explains (query heads differ: the grouping of heads) adds nothing
    heads = Recompile("fa4", "prefill", 2000.0, "gqa-prefill", 2.1, (FieldDiff("q_heads", 64, 32),), ())
    a = replace(lead_advice, startup=replace(s, recompiled=(heads,)))
    assert f"({compile_words.COMPILE_KEYS}): " in decision_words._startup(a)
    assert "holds more than the set records" not in decision_words._startup(a)


# --------------------------------------------------------------------------- item 1: the verdict's point first


@pytest.mark.parametrize("name", ["chunked-prefill", "article", "decode", "gqa-prefill", "sliding-window"])
def test_a_scenario_page_opens_with_the_verdicts_point_and_says_why_the_headline_differs(lead, name):
    from gen.analysis import scenarios as sa
    from gen.analysis import verdicts
    from gen.report.pages import scenario_set
    from gen.report.words import verdicts as verdict_words

    head = sa.headline(None, None, name, sa.point_rows(lead, name), [])
    full, lines = scenario_set._at_verdict(lead, name, head)
    v = verdicts.verdict(lead, name, "inference")
    p = verdicts.point_of(lead, name, "inference")
    # the full line is the verdict's own headline at its point: the home's row for this workload (folded on the page,
    # under the verdict point's chart and table: review 2026-12-07-1, pictures first)
    assert full[0].startswith(f"At the verdict's point, {verdict_words.point_label(p)} (a forward pass; ")
    assert verdict_words.verdict(v).headline in full[0]
    top = head["fastest"]
    elsewhere = (top["q_len"], top["kv_len"], top["head_dim"]) != (p.q_len, p.kv_len, p.head_dim)
    said = [x for x in lines if x.startswith("At the scenario's largest point")]
    # one line where the headline is at another point, none where the same; after it, one a head dim the scenario ran
    # at that length besides its own (review 2026-12-07-2 item 9: the article at head dim 128)
    assert len(said) == elsewhere == len(lines[:1])
    assert all(x.startswith("At head dim ") for x in lines[1:])
    if elsewhere:
        firsts = {v.fastest.variant, *v.same_kernel, *v.near}
        if top["variant"] not in firsts and not firsts & {*(head.get("near") or ()), *(head.get("ties") or ())}:
            # the page's fastest is not the home's answer: says so, "by its median" where calls are within noise
            assert ("leads by its median instead of" if head.get("near") else "is fastest instead of") in said[0]


def test_the_chunked_page_names_the_homes_call_first(lead):
    from gen.analysis import scenarios as sa
    from gen.report.pages import scenario_set

    head = sa.headline(None, None, "chunked-prefill", sa.point_rows(lead, "chunked-prefill"), [])
    full, lines = scenario_set._at_verdict(lead, "chunked-prefill", head)
    assert "SDPA with causal_lower_right is the fastest here" in full[0]
    assert ("At the scenario's largest point (512 queries × KV 32,768, D 128), FlashAttention-4 (flash_attn.cute) "
            "leads by its median instead of SDPA with causal_lower_right, and FlexAttention (FLASH backend) is within "
            "noise of it as run: the order changes with the size") in lines[-1]
    # the verdict's point first (its chart and table, gen.report.pages.scenario_first), then the line on the largest
    # point, then the verdict in full (folded), and the headline paragraph of the largest point after them
    template = (RESULTS.parent / "gen/report/templates/scenario_page.md.j2").read_text()
    assert -1 < template.index("_scenario_first.md.j2") < template.index("s.elsewhere") < template.index(
        "s.at_verdict") < template.index("{{ s.headline | md }}")
