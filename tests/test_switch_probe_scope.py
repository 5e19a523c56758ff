"""A switch probed in one phase of the dynamic-lengths runs says so wherever its outcome is given: the committed set
ran TORCH_CUDNN_SDPA_AVOID_RECOMPILE=1 at new prompt lengths only, so the first screen's "brought no gain", beside a
decode step's 56 ms plan, names its lengths as prompt lengths and says no decode step ran with it, and the decode
page's fold on a growing KV cache says the same (the paired set's too, which borrows the older set's runs)."""

from __future__ import annotations

import json

from gen.analysis import advice, dynamic, length_cost
from gen.report.pages import scenario_first
from gen.report.words import decision as decision_words
from gen.report.words import dynamic as dynamic_words
from tests.conftest import H100_PAIRED, RESULTS, committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"
UNPROBED = "No decode step ran with it, so what it does to a cache that grows a token a step is not measured"
FOLD = ("TORCH_CUDNN_SDPA_AVOID_RECOMPILE=1 was probed at new prompt lengths only: no decode step ran with it, so what "
        "it does to a growing cache is not measured.")


def test_the_probe_knows_the_phases_it_did_not_cover():
    raw = json.loads((RESULTS / LEAD / "result.json").read_text(encoding="utf-8"))
    probed = {r["phase"] for r in raw["dynamic"] if r["env"]}
    run = {r["phase"] for r in raw["dynamic"] if not r["env"]}
    assert probed == {"prefill"} and "decode" in run
    (s,) = dynamic.switch_facts(committed_set(LEAD).rs)
    assert s.phase == "prefill" and s.unprobed == ("decode",)
    said = dynamic_words.switch_measured(s)
    assert "slower at every prompt length" in said and said.endswith(UNPROBED)


def test_the_first_screen_gives_the_switchs_scope_beside_the_decode_cost():
    line = next(x for x in decision_words.advice(advice.advice(committed_set(LEAD))).lines
                if "TORCH_CUDNN_SDPA_AVOID_RECOMPILE" in x)
    assert "a decode step" in line.split("TORCH_CUDNN_SDPA_AVOID_RECOMPILE")[0]
    assert "at every prompt length" in line and f"{UNPROBED}." in line
    assert "at every length" not in line


def test_the_decode_folds_say_the_switch_was_not_run_at_decode():
    lead = committed_set(LEAD)
    (row,) = scenario_first.facts(lead, "decode")["rows"]
    assert FOLD in row["folds"][0]["text"]
    beside = length_cost.beside(lead, "the older set")
    (row,) = scenario_first.facts(committed_set(H100_PAIRED), "decode", beside)["rows"]
    assert FOLD in row["folds"][0]["text"]
