"""One quantity, one precision: a table cell reads as its sentence does (format.ms at words.common.us's precision),
the cells of a column keep their trailing zeros (the compare records keep six significant figures, not four
decimals), a first call reads alike on every page, a bandwidth to two decimals everywhere."""

from __future__ import annotations

import re

import pytest

from gen.analysis import compare
from gen.report import format as fmt
from gen.report.words import common as words
from gen.report.words import lessons
from tests.conftest import H100_PAIRED
from tests.test_review_20_l import _prose

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def _page(results_docs, rel: str) -> str:
    return _prose((results_docs / "generated" / rel).read_text(encoding="utf-8"))


@pytest.mark.parametrize("x", [0.059023, 0.129012, 0.2383, 1.38468, 27.5221, 28.257, 131.6])
def test_a_table_cell_reads_at_its_sentences_precision(x):
    cell, said = fmt.ms(x), words.us(x)
    number, unit = said.split()
    assert float(cell) == pytest.approx(float(number) / (1000 if unit == "µs" else 1), abs=1e-12), (cell, said)
    assert len(cell.partition(".")[2]) == (4 if x < 1 else 3)


def test_the_compare_columns_keep_their_trailing_zeros(loaded):
    rows = compare.records(compare.compare_frame(loaded[OLDER], loaded[H100_PAIRED]))
    cells = [fmt.ms(r[k]) for r in rows for k in ("gpu_only_ms_a", "gpu_only_ms_b", "host_ms_a", "host_ms_b")
             if r[k] is not None and r[k] < 1]
    assert cells and all(len(c.partition(".")[2]) == 4 for c in cells), cells
    cudnn = next(r for r in rows if r["variant"] == "sdpa_cudnn")
    assert fmt.ms(cudnn["gpu_only_ms_a"]) == "0.0590"  # 0.059023 ms: it read "0.059" beside "0.0589"


def test_one_median_reads_alike_across_the_paired_gqa_and_decode_pages(results_docs):
    gqa = _page(results_docs, f"sets/{H100_PAIRED}/scenarios/gqa-prefill.md")
    for shown in re.findall(r"\b2[78]\.\d+\b", gqa):
        assert len(shown.partition(".")[2]) == 3, shown  # 27.522 and 28.257, never 27.52 or 28.26
    decode = _page(results_docs, f"sets/{H100_PAIRED}/scenarios/decode.md")
    rates = set(re.findall(r"(\d+\.\d+) TB/s \(Q, K, V", decode))
    rates |= set(re.findall(r"best point, (\d+\.\d+) TB/s", decode))
    assert rates and all(len(r.partition(".")[2]) == 2 for r in rates), rates


def test_a_first_call_reads_alike_on_the_home_and_the_findings_page(results_docs):
    assert lessons._s(0.000363) == words.us(0.363) == "363.0 µs"
    assert lessons._s(0.8) == "0.80 s"
    home = _page(results_docs, ".verdict.md")
    findings = _page(results_docs, f"sets/{OLDER}/findings.md")
    said = re.search(r"the same kernels at the same shape, took (\S+ µs)", home)
    assert said and f"afterwards, took {said.group(1)} on its first call" in findings
