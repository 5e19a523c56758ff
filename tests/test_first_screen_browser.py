"""Issue 33 in a real headless Chromium: the home page and the lead set's page open with a chart of the
decision and its table, on the first screen at 1280 x 800 and at 390 x 844, before any sentence; no two
text elements (axis labels and titles, legend labels, text marks) of any chart on those pages, nor on a
scenario page of the lead set (time, TB/s under three ceilings, roofline), overlap at either width; no chart on
them nor on the dynamic-lengths page warns in the console; the decision chart saves as PNG, SVG and CSV, made in the
page."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from tests.site_server import CHROMIUM, Tab, chromium

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"  # the first measured GPU set: compare.default_pair's A
PAGES = ("index.html", f"generated/sets/{LEAD}.html")
# A scenario page with every kind of scenario chart: lines over lengths, rates under labelled ceilings, a roofline.
SCENARIO = f"generated/sets/{LEAD}/scenarios/decode.html"
SCREENS = ({"width": 1280, "height": 800}, {"width": 390, "height": 844})
# The page whose first/steady-call chart drew a dash legend and a shape legend of one field, one of them disabled:
# Vega-Lite warned 'Conflicting legend property "disable"' (as the decision chart did, its size unsorted besides)
DYNAMIC = f"generated/sets/{LEAD}/scenarios/dynamic-lengths.html"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing (apt-get install chromium)"),
]

_DRAWN = ("() => Array.from(document.querySelectorAll('.vega-chart'))"
          ".every(e => e.dataset.drawn || e.dataset.error)")

# Every text a chart shows (axis labels and titles, legend labels, text marks): its box, where it can be seen.
_TEXT_OVERLAPS = """el => {
  const boxes = Array.from(el.querySelectorAll('svg text'))
    .filter(t => t.textContent.trim() && getComputedStyle(t).opacity !== '0' && t.getAttribute('opacity') !== '0'
                 && !t.closest('[opacity="0"]'))
    .map(t => ({t: t.textContent, r: t.getBoundingClientRect()}))
    .filter(b => b.r.width > 0 && b.r.height > 0);
  const out = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i].r, b = boxes[j].r;
    if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
      out.push(boxes[i].t + ' / ' + boxes[j].t);
  }
  return {count: boxes.length, overlaps: out};
}"""


@pytest.fixture(scope="module")
def served(built_site):
    built = built_site()
    with built.serving() as (site, url):
        yield site, url


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _texts(page) -> list[dict]:
    charts = page.locator(".vega-chart")
    return [charts.nth(i).evaluate(_TEXT_OVERLAPS) for i in range(charts.count())]


@pytest.fixture(scope="module")
def looks(browser, served) -> dict:
    """Per page and screen: where the first screen's chart, table and first sentence sit, and the
    overlapping texts of every chart on the page; for the scenario page its charts' texts only. Each page
    opened once per screen, in one tab a screen (site_server.Tab)."""
    _, url = served
    out = {}
    for screen in SCREENS:
        with Tab(browser, url, viewport=screen) as tab:
            for path in PAGES:
                page = tab.visit(path)
                page.wait_for_function(_DRAWN, timeout=20_000)
                first = page.locator("[data-decision-first]").first
                chart = first.locator(".vega-chart svg").first
                table = first.locator("table[data-kind='decision']")
                row = table.locator("tbody tr").first
                out[(path, screen["width"])] = dict(
                    chart=chart.bounding_box(), table=table.bounding_box(), row=row.bounding_box(),
                    rows=table.locator("tbody tr").count(),
                    sentence=page.locator("article [data-decision]").first.bounding_box(),
                    paragraph=page.locator("article > p").first.bounding_box(),
                    texts=_texts(page), errors=list(tab.errors), console=list(tab.console),
                    height=screen["height"])
            for path in (SCENARIO, DYNAMIC):
                page = tab.visit(path)
                page.wait_for_function(_DRAWN, timeout=20_000)
                out[(path, screen["width"])] = dict(texts=_texts(page), console=list(tab.console))
    return out


@pytest.mark.parametrize("width", [s["width"] for s in SCREENS])
@pytest.mark.parametrize("path", PAGES)
def test_chart_and_table_on_the_first_screen(looks, path, width):
    seen = looks[(path, width)]
    chart, row, height = seen["chart"], seen["row"], seen["height"]
    assert chart is not None and chart["height"] > 100 and chart["width"] > 250, chart
    assert 0 <= chart["y"] and chart["y"] + chart["height"] <= height, (chart, height)
    # the table's first row whole on the first screen, after the chart
    assert seen["rows"] >= 1 and row is not None
    assert chart["y"] + chart["height"] <= seen["table"]["y"] and row["y"] + row["height"] <= height, (row, height)
    # sentences after the picture and the table
    for box in (seen["sentence"], seen["paragraph"]):
        assert box is None or box["y"] >= seen["table"]["y"] + seen["table"]["height"] - 1, box
    assert not seen["errors"]


@pytest.mark.parametrize("width", [s["width"] for s in SCREENS])
@pytest.mark.parametrize("path", (*PAGES, SCENARIO))
def test_no_chart_text_overlaps(looks, path, width):
    texts = looks[(path, width)]["texts"]
    assert texts and all(t["count"] > 0 for t in texts)
    problems = [t["overlaps"] for t in texts if t["overlaps"]]
    assert not problems, problems


@pytest.mark.parametrize("width", [s["width"] for s in SCREENS])
@pytest.mark.parametrize("path", (*PAGES, SCENARIO, DYNAMIC))
def test_no_chart_warns_in_the_console(looks, path, width):
    """Vega-Lite compiles every chart without a warning: no legend given to one channel of a field and taken from
    another ("Conflicting legend property"), no discrete size unsorted."""
    warned = [m for m in looks[(path, width)]["console"] if "WARN" in m]
    assert not warned, warned


def test_decision_chart_saves_as_png_svg_and_csv(browser, served, tmp_path):
    _, url = served
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{url}/generated/sets/{LEAD}.html", wait_until="load")
    page.wait_for_function(_DRAWN, timeout=20_000)
    tools = page.locator("[data-decision-first] .chart-tools").first
    saved = {}
    for kind in ("png", "svg", "csv"):
        with page.expect_download() as dl:
            tools.locator(f"a.chart-{kind}").click()
        path = tmp_path / dl.value.suggested_filename
        dl.value.save_as(path)
        assert path.suffix == f".{kind}", path
        saved[kind] = path
    assert saved["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in saved["svg"].read_text(encoding="utf-8")[:500]
    rows = list(csv.DictReader(io.StringIO(saved["csv"].read_text(encoding="utf-8"))))
    spec_rows = page.evaluate("() => { const s = JSON.parse(document.querySelector('[data-decision-first] "
                              ".vega-chart').dataset.spec); return Object.values(s.datasets)[0]; }")
    assert len(rows) == len(spec_rows) and {"workload", "variant", "role", "median_ms"} <= set(rows[0])
    assert [r["variant"] for r in rows] == [r["variant"] for r in spec_rows]
    assert not [u for u in requests if not u.startswith((url, "data:", "blob:"))]
    context.close()


def test_pages_stay_small(served):
    site, _ = served
    big = {p.relative_to(site).as_posix(): p.stat().st_size for p in Path(site).rglob("*.html")
           if p.stat().st_size > 300_000}
    assert not big, big


def test_no_chart_on_the_site_draws_one_point(served):
    """Every chart of the built site draws more than one point, and more than one a series where it draws
    lines (charts.one_point): a chart of fewer is a row of its page's table instead."""
    import html
    import json
    import re

    from gen.report import charts

    site, _ = served
    specs = [(p, json.loads(html.unescape(s))) for p in Path(site).rglob("*.html")
             for s in re.findall(r"data-spec='([^']*)'", p.read_text(encoding="utf-8"))]
    assert len(specs) > 100
    single = sorted({p.relative_to(site).as_posix() for p, s in specs if charts.one_point(s)})
    assert not single, single
