"""Chunked prefill's charts (issue 31 §4): the wrong-answer row (SDPA is_causal=True, a top-left mask) is in
the table, marked, and in no chart; chunks of different sizes against the same KV lengths are separate charts."""

from __future__ import annotations

import html
import json
import re

import pytest

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"
SPEC = re.compile(r"""class="vega-chart"[^>]*?aria-label="([^"]*)"[^>]*?data-spec=(?:'([^']*)'|"([^"]*)")""")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def page(results_docs) -> str:
    return (results_docs / "generated" / "sets" / LEAD / "scenarios" / "chunked-prefill.md").read_text(encoding="utf-8")


def _charts(text: str) -> dict[str, list[dict]]:
    return {m.group(1): [r for v in json.loads(html.unescape(m.group(2) or m.group(3))).get("datasets", {}).values()
                         for r in v] for m in SPEC.finditer(text)}


def test_no_chart_draws_the_wrong_answer(page):
    charts = _charts(page)
    assert charts
    for title, rows in charts.items():
        assert not {r.get("series") for r in rows} & {"sdpa_is_causal"}, title
        assert not {r.get("variant") for r in rows} & {"sdpa_is_causal"}, title
    assert "(wrong answer)" in page  # the table still shows it, marked


def test_each_chunk_size_has_its_own_charts(page):
    titles = [t for t in _charts(page) if t.startswith(("GPU-only time", "TFLOP/s"))]
    sizes = {m.group(1) for t in titles for m in [re.search(r"chunks of ([\d,]+) queries", t)] if m}
    assert len(sizes) >= 2 and all(re.search(r"chunks of [\d,]+ queries", t) for t in titles), titles
