"""The first screen's table names its workloads so a reader can tell them apart (review 2, N10): a scenario
measured in inference and in training is not named twice in one list (its training workloads come after "in
training:"), and a default behind by less than the exception margin says what that margin is."""

from __future__ import annotations

import pytest

from gen.analysis import rules
from gen.report.pages import decision
from gen.report.words import decision as decision_words
from gen.report.words import first_screen
from tests.conftest import committed_set

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
GQA = "Prefill with grouped-query attention"


@pytest.fixture(scope="module")
def h100():
    return committed_set(H100)


def test_training_workloads_are_named_apart():
    text = decision_words.workloads([(GQA, "inference"), ("Packed documents", "inference"),
                                     ("The article's shape", "train"), (GQA, "train")])
    assert text == ("prefill with grouped-query attention and packed documents, and in training: the article's "
                    "shape and prefill with grouped-query attention")
    assert decision_words.workloads([(GQA, "train")]) == "training: prefill with grouped-query attention"
    assert decision_words.workloads([(GQA, "inference"), (GQA, "inference")]) == \
        "prefill with grouped-query attention"


def _lists(detail: str) -> list[str]:
    """Each list of workloads in the default row's detail, before and after "in training:"."""
    out = []
    for part in detail.split("; "):
        for side in part.split(", and in training: "):
            out.append(side)
    return out


def test_no_list_on_the_first_screen_names_a_workload_twice(h100):
    row = decision.table_rows(h100)[0]
    detail = row["detail"]
    assert "· training" not in detail
    lists = _lists(detail)
    gqa = GQA[0].lower() + GQA[1:]
    assert sum(gqa in x for x in lists) == 2  # inference and training, each in its own list
    assert all(x.count(gqa) <= 1 for x in lists)


def test_behind_says_what_the_margin_is(h100):
    detail = decision.table_rows(h100)[0]["detail"]
    assert f"under the {rules.ADVICE_MIN_GAIN:g}× line" not in detail
    margin = first_screen.behind_margin()
    assert f"under the {rules.ADVICE_MIN_GAIN:g}× gain the report asks before it names another call" in margin
    # every workload the default is behind in as run says the margin (the H100 set has none since review 9 item 1
    # named SDPA cuDNN for the article's shape)
    for part in detail.split("; "):
        if part.startswith("behind in "):
            assert margin in part, part
