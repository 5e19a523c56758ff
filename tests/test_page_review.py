"""An expert's review of the pages built from the committed sets: every table keeps its shape,
and the scenario, set, findings and scaling pages say only what the data holds."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from gen.analysis import tables
from gen.report import render

ROOT = Path(__file__).resolve().parent.parent
H200 = "generated/sets/nvidia-h200__torch-2.11.0.md"


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, str]:
    results = tmp_path_factory.mktemp("results")
    for d in sorted((ROOT / "results").iterdir()):
        if (d / "result.json").is_file():
            shutil.copytree(d, results / d.name)
    sets, skipped = tables.load_sets(results)
    return {p.path: p.text for p in render.render(render.Context(sets, skipped), workers=1) if p.text is not None}


_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _cells(line: str) -> int:
    """Cells of one GFM table line: split on unescaped pipes, less the outer two."""
    return len(_CELL_SPLIT.split(line.strip().strip("|")))


def _tables(text: str):
    """Each Markdown table of a page (admonitions' indented ones included) as its lines."""
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.strip().startswith("|"):
            block.append(line)
        elif block:
            yield block
            block = []


def test_every_table_row_has_as_many_cells_as_its_header(pages):
    tables_seen = 0
    for path, text in pages.items():
        if not path.endswith(".md"):
            continue
        for block in _tables(text):
            if len(block) < 2 or not re.fullmatch(r"\s*\|[\s:|-]+\|\s*", block[1]):
                continue
            tables_seen += 1
            want = _cells(block[0])
            for line in block[1:]:
                assert _cells(line) == want, f"{path}: {want} header cells, {_cells(line)} in {line[:160]!r}"
    assert tables_seen > 20


def test_set_page_has_no_conditions_column_without_cells(pages):
    text = pages[H200]
    header = next(ln for ln in text.splitlines() if ln.startswith("| Variant | Kernels / forward"))
    assert "Spread | Eager ms" in header
