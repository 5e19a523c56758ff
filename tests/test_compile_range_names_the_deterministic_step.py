"""The first screen's range of FlashAttention-4's compiles covers its own training steps only; the deterministic
call it names for deterministic training compiled right after the plain one, at the same configuration, and the
screen says so beside the range (2.33 s there; alone not measured)."""

from __future__ import annotations

import pytest

from gen.analysis import advice, compiles
from gen.report.words import compiles as compile_words
from gen.report.words import decision as decision_words
from gen.report.words.common import label, short_label
from gen.report.words.first_calls import secs
from tests.conftest import committed_set

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def test_the_deterministic_step_after_the_plain_one_is_a_fact_of_the_range():
    ls = committed_set(OLDER)
    s = compiles.spans(ls, "fa4")
    assert s is not None and s.train is not None
    (a,) = s.train_after
    x, t = a.variant, a.seconds
    assert x == "fa4_det" and t < s.train.fewest_s  # outside the plain step's range: found partly warm
    assert compiles.spans(ls, "fa4_det").train_after == ()


def test_the_first_screen_gives_the_deterministic_step_beside_the_range():
    ls = committed_set(OLDER)
    a = advice.advice(ls)
    s = a.startup.compiles
    x, t = s.train_after[0].variant, s.train_after[0].seconds
    text = decision_words._startup(a)
    said = (f"The first training step of {label(x)} took {secs(t)} right after {short_label(s.variant)} had "
            "compiled the same configuration; alone it was not measured.")
    assert said in text
    assert text.index(compile_words.spans(s)) < text.index(said)
    assert t == pytest.approx(2.33, abs=0.01)  # the review's figure, from the committed set
