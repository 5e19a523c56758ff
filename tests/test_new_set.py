"""A result set dropped into results/ shows up on every page with no code change.

The new set is the committed H200 set under another GPU name (as a
regeneration on another card would write it), beside the committed sets, with
two differences a real card would bring: sdpa_flash took twice as long, and
sdpa_efficient was not run. The comparison must show both.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from gen.analysis import compare, tables
from gen.report import render

ROOT = Path(__file__).resolve().parent.parent
NEW = "nvidia-h100-80gb-hbm3__torch-2.12.0"


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    results = tmp_path_factory.mktemp("results")
    for src in (ROOT / "results").iterdir():
        if src.is_dir():
            shutil.copytree(src, results / src.name)
    shutil.copytree(ROOT / "results" / "nvidia-h200__torch-2.11.0", results / NEW)
    data = json.loads((results / NEW / "result.json").read_text())
    data["name"] = NEW
    data["environment"].update(gpu_name="NVIDIA H100 80GB HBM3", torch="2.12.0+cu128")
    for run in data["runs"]:
        if run["variant"] == "sdpa_flash" and run["mode"] == "inference":
            # Its kernels took twice as long: every time of the call doubles, and so do its traced kernels.
            t = run["timing"]
            for key in ("gpu_only_ms", "eager_ms"):
                t[key] = [2 * x for x in t[key]]
            trace = results / NEW / run["trace"]
            events = json.loads(gzip.decompress(trace.read_bytes()))
            for e in events["traceEvents"]:
                if e.get("cat") == "kernel":
                    e["dur"] *= 2
            trace.write_bytes(gzip.compress(json.dumps(events).encode()))
    data["runs"] = [r for r in data["runs"] if r["variant"] != "sdpa_efficient"]
    (results / NEW / "result.json").write_text(json.dumps(data))
    sets, _ = tables.load_sets(results)
    assert NEW in [s.name for s in sets]
    ctx = render.Context(sets, [])
    return {p.path: p for p in render.render(ctx, workers=1)}, results


def test_new_set_appears_on_every_page(pages):
    pages, _ = pages
    assert f"generated/sets/{NEW}.md" in pages
    for path in ["generated/.home.md", "generated/sets/index.md", "generated/variants/naive.md",
                 "generated/variants/sdpa_flash.md", "generated/compare.md", "generated/findings.md",
                 "generated/scaling.md", "generated/.methodology.md"]:
        assert "H100" in pages[path].text, path
    for mode in ("inference", "train"):
        assert f"generated/traces/{NEW}/article__{mode}__naive.json.gz" in pages


def test_compare_cli_reads_the_new_set(pages):
    _, results = pages
    got = json.loads(compare.run(results, "nvidia-h200__torch-2.11.0", NEW, "json").text)
    rows = {r["variant"]: r for r in got["rows"]}
    flash = rows["sdpa_flash"]
    assert flash["kernels_base"] == flash["kernels_new"] == 1
    assert flash["ratio"] == pytest.approx(2.0, rel=1e-3)  # the slower card's time, read from its own set
    assert rows["naive"]["ratio"] == pytest.approx(1.0)
    assert rows["sdpa_efficient"]["status_base"] == "ok" and rows["sdpa_efficient"]["status_new"] == "absent"
