"""A matrix of eleven result sets in a real headless Chromium: the committed H200 set relabelled as
eleven GPU and PyTorch versions (benchmarks/bench_build.py's `fabricate`, each scenario at its first
two lengths, to keep the test cheap) beside the published sets, built (once, for tests/test_scale.py too:
conftest.py's matrix_site) and served. The pages that
summarise the matrix and one set's own pages draw every chart with data, the heat map holds one
cell per lead set (each GPU's newest) and scenario, nothing is asked of another host, and no page or the search index
grows past issue 21's bounds."""

from __future__ import annotations

import json
import threading
from urllib.parse import urlparse

import pytest

from benchmarks.bench_build import INDEX_LIMIT, PAGE_LIMIT
from gen.analysis import tables, verdicts
from tests.site_server import CHROMIUM, Tab, bind, chromium
from tests.test_browser import DATA_MARKS, _charts_drawn

N = 11  # conftest.MATRIX_SETS
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def matrix(matrix_site):
    """(site, url, the fabricated sets' names) of the matrix (built once for the session, shared with
    tests/test_scale.py: conftest.py), served on 127.0.0.1."""
    site = matrix_site / "project" / "site"
    names = json.loads((matrix_site / "names.json").read_text(encoding="utf-8"))
    assert len(names) == N
    httpd = bind(site)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield site, f"http://127.0.0.1:{httpd.server_address[1]}", sorted(names)
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


_HEAT_CELLS = """e => { const v = window.reportViews.get(e); const out = [];
  const walk = n => { if (!n) return; if (n.marktype === 'rect' && n.role === 'mark')
    for (const it of n.items) if (it.width > 0 && it.height > 0) out.push(it.datum);
    for (const c of n.items || []) if (c.items) walk(c); };
  walk(v.scenegraph().root); return out.map(d => [d.set_title, d.scenario, d.fastest_label]); }"""


@pytest.fixture(scope="module")
def matrix_visits(browser, matrix) -> dict[str, dict]:
    """Per page that summarises the matrix, and one set's own pages: its charts (drawn), the requests it
    made and its errors; on the home page also the heat map's cells. One visit a page, in one tab."""
    site, url, names = matrix
    one = names[0]
    pages = ["index.html", "generated/compare.html", "generated/variants/naive.html", "generated/findings.html",
             "generated/scaling.html", "generated/scenarios/decode.html", f"generated/sets/{one}.html",
             f"generated/sets/{one}/variants/sdpa_math.html", f"generated/sets/{one}/scenarios/gqa-prefill.html",
             f"generated/sets/{one}/scaling.html"]
    out = {}
    with Tab(browser, url) as tab:
        for path in pages:
            assert (site / path).is_file(), path
            page = tab.visit(path)
            seen = {"charts": _charts_drawn(page)}
            if path == "index.html":
                chart = page.locator(".vega-chart[data-label='fastest variant per set and scenario']")
                seen["heat"] = chart.evaluate(_HEAT_CELLS)
            out[path] = seen | {"requests": list(tab.requests), "errors": list(tab.errors)}
    return out


def test_matrix_pages_draw_their_charts(matrix_visits):
    problems, charts = [], 0
    for path, seen in matrix_visits.items():
        for d in seen["charts"]:
            charts += 1
            if d["error"] or not any(d["types"].get(m) for m in DATA_MARKS) or d["svgPaths"] == 0:
                problems.append(f"{path}: chart '{d['label']}' draws no data ({d})")
        outside = [u for u in seen["requests"] if urlparse(u).hostname not in ("127.0.0.1", "localhost")
                   and not u.startswith(("data:", "blob:"))]
        problems += [f"{path}: requests leave the machine: {outside}"] * bool(outside)
        problems += [f"{path}: page errors: {seen['errors']}"] * bool(seen["errors"])
    assert len(matrix_visits) == 10 and charts >= 12 and problems == [], "\n".join(problems)


def test_heat_map_holds_every_lead_set_and_scenario(matrix, matrix_visits):
    """One cell per lead set (each GPU's newest, and the first set: issue 35) and scenario on the home page,
    each named by its fastest variant."""
    site, url, names = matrix
    cells = matrix_visits["index.html"]["heat"]
    # Every scenario with a verdict in the sets the matrix is made of (the committed H200's, under other names).
    one = tables.load_set(site.parent.parent / "results" / names[0])  # the matrix fixture's results/
    scenarios = {sc for sc in verdicts.scenarios(one) if verdicts.verdict(one, sc) is not None}
    assert len(scenarios) >= 4
    newest = {}
    for n in names:  # fabricate's names: <gpu>__torch-<version>
        gpu, version = n.split("__torch-")
        newest[gpu] = max(newest.get(gpu, version), version, key=lambda v: tuple(map(int, v.split("."))))
    lead = len({f"{g}__torch-{v}" for g, v in newest.items()} | {names[0]})
    assert 1 < lead < N
    assert len(cells) == lead * len(scenarios) and len({(s, sc) for s, sc, _ in cells}) == lead * len(scenarios)
    assert {sc for _, sc, _ in cells} == scenarios
    assert all(f for _, _, f in cells) and matrix_visits["index.html"]["errors"] == []


def test_no_page_and_no_index_grows_past_its_bound(matrix):
    site, _, _ = matrix
    largest = max(site.rglob("*.html"), key=lambda p: p.stat().st_size)
    assert largest.stat().st_size <= PAGE_LIMIT, largest
    index = site / "search" / "search_index.json"
    assert index.stat().st_size < INDEX_LIMIT
    docs = json.loads(index.read_text(encoding="utf-8"))["docs"]
    own = [d["location"] for d in docs if d["location"].split("#")[0].count("/") > 2
           and d["location"].startswith("generated/sets/")]
    assert own == []  # a set's own pages are left out of search
