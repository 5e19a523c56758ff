"""Review 22 (docs/notes/review-2026-12-07-13.md), the rest: Part 1's residue of review 20 item 7 (a published block's
table at another precision than its sentences), finding 5 (a replay median above its eager loop given bare; one GPU
listed as a difference under two names) and finding 7 (one median in two precisions; a median shorter than its IQR).
The pages are those gen build makes of results/ (conftest.results_docs)."""

from __future__ import annotations

import math
import re

import pytest

from gen.analysis import rules
from gen.model import datasheets
from gen.report import format as fmt
from gen.report.words import scenario_first as first_words
from tests.test_review_20_l import _prose

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"
PAIRED = "nvidia-h100-80gb-hbm3__torch-2.11.0__paired"


def _page(results_docs, rel: str) -> str:
    return (results_docs / "generated" / rel).read_text(encoding="utf-8")


# --------------------------------------------------------------------------- Part 1: review 20 item 7's residue

def test_a_published_figure_reads_at_one_precision_in_its_table_and_its_sentence(results_docs):
    """The cuDNN frontend's 25.566 ms at 32k read "25.57" in the table under "published 25.566 ms" (and ours 28.257
    ms by kernel sum / 27.522 ms as run beside "28.26" / "27.52"): table cells take the sentences' precision."""
    assert fmt.published_ms(25.5664) == "25.566" and fmt.published_ms(math.nan) == fmt.DASH
    pages = [f"sets/{s}/scenarios/gqa-prefill.md" for s in (OLDER, PAIRED, "nvidia-h200__torch-2.11.0")]
    pages += ["sets/nvidia-h200__cudnn-frontend-9.19.1.md", "sets/nvidia-h200__cudnn-frontend-9.19.1/compare.md"]
    for rel in pages:
        text = _page(results_docs, rel).split("Every variant at every point")[0]  # the published block, not the sweep's
        assert not re.search(r"[>|] ?(25\.57|28\.26|27\.52)( \(| \||<| ·)", text), rel
        assert re.search(r"[>|] ?25\.566( \||<)", text), rel
    paired = _prose(_page(results_docs, f"sets/{PAIRED}/scenarios/gqa-prefill.md"))
    assert "published 25.566 ms" in paired and "28.257 (1575 MHz)" in paired and "27.522 · " in paired


# --------------------------------------------------------------------------- finding 7: one cost, one precision

def test_the_decode_step_cost_reads_alike_on_the_home_and_the_dynamic_lengths_page(results_docs):
    """56.375 ms on the home, 56.37 ms on the dynamic-lengths page, for one median."""
    dyn = _prose(_page(results_docs, f"sets/{OLDER}/scenarios/dynamic-lengths.md"))
    home = _prose(_page(results_docs, ".verdict.md"))
    got = re.findall(r"pays a median (\d+\.\d+) ms a decode step", dyn)
    assert got and len(got[0].partition(".")[2]) == 3, got
    assert f"a median {got[0]} ms at each" in home or f"pays a median {got[0]} ms" in home


# --------------------------------------------------------------------------- finding 5

def test_a_replay_above_its_eager_loop_is_marked_where_a_leader_time_is_given():
    timed = [("sdpa_cudnn", 16.582, 1602.0, 15.640), ("sdpa_auto", 15.731, 1549.0, None)]
    text = first_words.other_head_dim("head dim 128 (S = 16,384)", "sdpa_cudnn", ("sdpa_auto",), (), timed)
    assert "16.582 ms at 1602 MHz (‡ a graph replay's median, above its eager loop's 15.640 ms)" in text
    assert "15.731 ms at 1549 MHz." in text  # 1.01x its eager loop: under the line, no mark
    assert rules.graph_above_eager(16.582, 15.640, "cuda_graph")
    assert not rules.graph_above_eager(15.731, 15.576, "cuda_graph")


def test_the_paired_article_page_marks_cudnns_replay_at_d128(results_docs):
    text = _prose(_page(results_docs, f"sets/{PAIRED}/scenarios/article.md"))
    assert re.search(r"SDPA cuDNN 16\.582 ms at 1602 MHz \(‡ a graph replay's median, above its eager loop's "
                     r"15\.6\d\d ms\)", text)


def test_the_fa3_papers_gpu_is_not_a_difference_from_an_h100_sxm5_set(results_docs):
    """NVML names the H100 SXM5 board "NVIDIA H100 80GB HBM3": the paper's "H100 80GB SXM5" is the same GPU."""
    assert datasheets.same_gpu("NVIDIA H100 80GB SXM5", "NVIDIA H100 80GB HBM3")
    assert not datasheets.same_gpu("NVIDIA H100 80GB SXM5", "NVIDIA H200")
    assert not datasheets.same_gpu(None, None)
    for s in (OLDER, PAIRED):
        text = _prose(_page(results_docs, f"sets/{s}/scenarios/article.md"))
        assert "SXM5 (here NVIDIA H100 80GB HBM3)" not in text, s
        assert "Differs from this set: cuDNN 9.1.1.17" in text, s


# --------------------------------------------------------------------------- finding 7: a median beside its IQR

@pytest.mark.parametrize("x, pair, want", [(0.26001, (0.2596, 0.2603), "0.2600"), (3.07, (3.069, 3.072), "3.070"),
                                           (1.26, (1.259, 1.261), "1.260"), (12.345, (12.3, 12.4), "12.345"),
                                           (2.0, (math.nan, 1.0), "2.000")])
def test_a_median_keeps_its_iqrs_decimals(x, pair, want):
    assert fmt.median_beside(x, pair) == want


def test_the_variant_summary_gives_the_median_at_its_iqrs_precision(results_docs):
    text = _prose(_page(results_docs, f"sets/{PAIRED}/variants/sdpa_cudnn.md")).replace("**", "")
    assert "GPU-only time 0.2600 ms median" in text and "GPU-only time 0.26 ms median" not in text
    for m in re.finditer(r"(?:GPU-only time|eager time) (\d+\.\d+) ms(?: median)?[^;,]*?IQR (\d+\.\d+)–", text):
        assert len(m[1].partition(".")[2]) >= len(m[2].partition(".")[2]), m[0]
