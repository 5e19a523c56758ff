"""Issue 35, scale: the pages over all sets summarise the matrix (each GPU's newest set, a heat map of
them) and link out, so that their size does not grow with the number of sets. Measured on a matrix of
fabricated sets (benchmarks/bench_build.py's `fabricate`) at N and BIG sets: each page over all sets and
the search index, extrapolated from their growth per set, stay within issue 35's bounds at 200 sets
(no page over 300 KB, the search index under 2 MB)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchmarks.bench_build import GPUS, INDEX_LIMIT, PAGE_LIMIT, PUBLISHED
from gen.analysis import compare
from gen.report import build

ROOT = Path(__file__).resolve().parent.parent
N = 6  # every GPU of the matrix and one more: the 6 lead sets of BIG (each GPU's newest and the first set)
BIG = 11  # conftest.MATRIX_SETS: as many lead sets, 5 sets more, an older set of every GPU beside them
AT = 200  # the matrix issue 35 asks the bounds of


def _set(name, torch, gpu="G1", kind="measured", date="2026-01-01"):
    env = SimpleNamespace(gpu_name=gpu, cpu=None, torch=torch, date=date, device="cuda" if gpu else "cpu")
    # a loaded set's outline only (kind, environment): choosing the lead sets decodes no ResultSet
    return SimpleNamespace(name=name, measured=kind == "measured", kind=kind, environment=env)


def test_the_lead_sets_are_each_machines_newest_the_lead_and_the_published():
    old = _set("a-old", "2.9.0+cu130")
    new = _set("a-new", "2.10.0+cu130")  # 2.10 is newer than 2.9: versions compare as numbers
    later = _set("a-same", "2.10.0", date="2026-02-01")  # same version, a later date: newer
    other = _set("b", "2.1.0", gpu="G2")
    cpu = _set("c", "2.13.0", gpu=None)
    ref = _set("ref", None, kind="reference")
    sets = [old, new, later, other, cpu, ref]
    assert compare.lead_sets(sets) == [later, other, cpu, ref]
    assert compare.lead_sets(sets, first=old) == [old, later, other, cpu, ref]  # the site's lead set stays


def _sizes(site: Path) -> dict[str, int]:
    """The HTML pages over all sets (a set's own pages aside; the list of sets in) and the search index."""
    out = {p.relative_to(site).as_posix(): p.stat().st_size for p in site.rglob("*.html")}
    out = {k: v for k, v in out.items()
           if not (k.startswith("generated/sets/") and k != "generated/sets/index.html")}
    out["search/search_index.json"] = (site / "search" / "search_index.json").stat().st_size
    return out


@pytest.mark.slow
def test_pages_over_all_sets_stay_bounded_as_the_matrix_grows(tmp_path, matrix_site):
    # the BIG sets: the matrix built once for the session (conftest.py), which tests/test_matrix_browser.py opens
    made = json.loads((matrix_site / "names.json").read_text(encoding="utf-8"))
    assert len(made) == BIG
    big = _sizes(matrix_site / "project" / "site")
    home = (matrix_site / "project" / "docs" / "generated" / ".home.md").read_text(encoding="utf-8")
    home_sets = (matrix_site / "project" / "docs" / "generated" / ".home-sets.md").read_text(encoding="utf-8")
    every = (matrix_site / "project" / "docs" / "generated" / "compare.md").read_text(encoding="utf-8")
    # the first N sets, built in a project of their own (without the matrix build's cache: a published set's
    # cached compare page would link the newest set of its GPU among the BIG, gone from these N)
    results = tmp_path / "results"
    for name in [*PUBLISHED, *made[:N]]:
        shutil.copytree(matrix_site / "results" / name, results / name)
    project = build.copy_project(ROOT, tmp_path / "project")
    build.run(results, project / "docs")
    build.mkdocs_build(project, project / "site")
    small = _sizes(project / "site")

    over = []
    for page, size in big.items():
        per_set = max(0, size - small[page]) / (BIG - N)
        at = size + per_set * (AT - BIG)
        limit = INDEX_LIMIT if page.endswith(".json") else PAGE_LIMIT
        if at > limit:
            over.append(f"{page}: {size} bytes at {BIG} sets, {per_set:.0f} more a set: {at / 1000:.0f} KB at {AT}")
    assert not over, "\n".join(over)

    # the lead sets: each GPU's newest (fabricate: a later cell has a newer PyTorch) and the site's first set
    newest = {GPUS[i % len(GPUS)]: made[i] for i in range(BIG)}
    lead = set(newest.values()) | {made[0]}
    assert len(lead) == N  # as many lead sets in both: the growth measured is that of the sets beyond them
    # the home page's table: a row per GPU, linking its lead sets, the others left to the list of sets
    table = home_sets[home_sets.index("| GPU |"):]
    table = table[:table.index("\n\n")]
    rows = table.splitlines()[2:]
    assert len(rows) == len(GPUS)
    assert set(re.findall(r"sets/([^/)]+)\.md", table)) == lead | {"index"}
    assert all("older in [the list]" in r for r in rows)  # every GPU has older sets here
    # the compare page's table of every variant's time (HTML: the build converts it): the lead sets
    section = every[every.index("GPU-only time per variant, every set"):every.index("Each set against a measured set")]
    named = set(re.findall(r'href="sets/([^/"]+)\.html"', section)) - set(PUBLISHED)
    assert named == lead | {"index"}  # and the list of result sets
    assert f"the {BIG - len(lead)} others are in the" in section and "sort.A row" not in section
    assert "has a row; the [list of result sets]" in home and f"has the {BIG - len(lead)} others." in home
