"""Every TFLOP/s names the FLOP count it was computed with (review 2, N9): the chunked-prefill page counts the
exact lower-right pairs with the diagonal, so its label must not say "causal S²/2 without the diagonal"."""

from __future__ import annotations

import html
import re

import pytest

from gen.analysis import flops
from gen.model import schema
from gen.report.words import common as words

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"
SQUARE = flops.FLOP_LABEL


def _point(q_len, kv_len, mask="causal", window=None, docs=None):
    return schema.Point(batch=1, q_heads=1, kv_heads=1, head_dim=64, q_len=q_len, kv_len=kv_len, mask=mask,
                        window=window, docs=docs)


@pytest.mark.parametrize("p, pairs", [
    (_point(1024, 1024), 1024 * 1024 / 2),  # square: S²/2, the diagonal not counted
    (_point(512, 8192), 512 * (8192 - 512) + 512 * 513 / 2),  # a chunk at the end: exact, the diagonal counted
    (_point(1, 4096, "none"), 4096),  # every pair
    (_point(4, 4, "document", docs=(3, 1)), 3 * 3 / 2 + 1 / 2),  # each document's square, halved
])
def test_the_count_a_label_names_is_the_count_taken(p, pairs):
    assert flops.score_pairs(p) == pytest.approx(pairs)
    kind = flops.count_kind(p.mask, p.q_len, p.kv_len)
    label = words.COUNT_LABEL[kind]
    if kind == "square":
        assert label == SQUARE
    else:
        assert "S²/2 without the diagonal" not in label
    if kind == "lower_right":
        assert "lower-right" in label and "diagonal counted" in label


def test_a_window_is_labelled_as_its_own_pairs():
    p = _point(4096, 4096, "sliding", window=512)
    assert words.flop_label([p]) == words.COUNT_LABEL["window"]
    assert "inside the window" in words.flop_label([p])


def test_points_of_two_counts_name_both():
    label = words.flop_label([_point(1024, 1024), _point(16, 8192), _point(2048, 2048)])
    assert label == f"{SQUARE}; {words.COUNT_LABEL['lower_right']}"


def _labels(text: str) -> set[str]:
    return set(re.findall(r"TFLOP/s \((FlashAttention count[^)]*)\)", html.unescape(text)))


@pytest.mark.parametrize("name", [H100, H200])
def test_the_chunked_page_names_the_lower_right_count(gpu_docs, name):
    page = (gpu_docs / "generated" / "sets" / name / "scenarios" / "chunked-prefill.md").read_text()
    labels = _labels(page) - {"FlashAttention count"}  # the roofline's axis names no halving at all
    assert labels == {words.COUNT_LABEL["lower_right"]}, labels


@pytest.mark.parametrize("scenario, kind", [("article", "square"), ("gqa-prefill", "square"),
                                            ("sliding-window", "window"), ("packed-documents", "documents")])
def test_each_scenario_page_names_its_own_count(gpu_docs, scenario, kind):
    page = (gpu_docs / "generated" / "sets" / H100 / "scenarios" / f"{scenario}.md").read_text()
    assert _labels(page) - {"FlashAttention count"} == {words.COUNT_LABEL[kind]}


def test_summary_json_gives_a_wrong_answer_no_rate():
    """The chunked-prefill is_causal row (a top-left mask: the wrong answer) did less work than the lower-right
    count says: `summary --format json` gives it no TFLOP/s, TB/s or share of a ceiling, and a right answer keeps
    its rate (review2 N9, the data's half)."""
    from gen.analysis import scenarios, tables
    from tests.conftest import RESULTS

    ls = tables.load_set(RESULTS / "nvidia-h100-80gb-hbm3__torch-2.11.0")
    rows = scenarios.summary_rows(ls, "chunked-prefill")
    wrong = [r for r in rows if r["wrong_answer"]]
    assert wrong and all(r["tflops"] is None and r["tbps"] is None and r["pct_of_ceiling"] is None for r in wrong)
    assert any(r["tflops"] is not None for r in rows if not r["wrong_answer"] and r["status"] == "ok")
