"""A real headless Chromium opens the built site: every chart draws, and no request
leaves the machine. Screenshots go to $REPORT_SCREENSHOTS when it is set."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

from gen import build

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing (apt-get install chromium)"),
]


# The committed sets only: other sets a run leaves in results/ must not change the test.
SETS = ["nvidia-h200__torch-2.11.0", "nvidia-a100-sxm4-80gb__article-2026-07"]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    results = tmp_path_factory.mktemp("results")
    for name in SETS:
        shutil.copytree(ROOT / "results" / name, results / name)
    project = build.copy_project(ROOT, tmp_path_factory.mktemp("project"))
    build.run(results, project / "docs")
    build.mkdocs_build(project, project / "site")
    return project / "site"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server(site):
    handler = functools.partial(_Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield b
        b.close()


PAGES = [
    ("home", "index.html", 1),
    ("summary", "generated/sets/nvidia-h200__torch-2.11.0.html", 2),
    ("variant", "generated/variants/naive.html", 2),
]


def _charts_drawn(page, expected_min: int) -> list[dict]:
    page.wait_for_function(
        "n => { const c = document.querySelectorAll('.vega-chart');"
        " return c.length >= n && Array.from(c).every(e => e.dataset.drawn || e.dataset.error); }",
        arg=expected_min, timeout=20_000,
    )
    # A chart in a hidden tab is drawn at zero width: choose its tab, as a reader would.
    for i in range(page.locator(".vega-chart").count()):
        chart = page.locator(".vega-chart").nth(i)
        if not chart.is_visible():
            tab_id = chart.evaluate(
                """e => { const block = e.closest('.tabbed-block'); const set = block.closest('.tabbed-set');
                          const n = Array.from(block.parentElement.children).indexOf(block);
                          return set.querySelectorAll(':scope > input')[n].id; }""")
            page.locator(f"label[for='{tab_id}']").click()
            page.wait_for_timeout(300)
    return page.eval_on_selector_all(
        ".vega-chart",
        """els => els.map(e => { const g = e.querySelector('svg, canvas');
             const r = g ? g.getBoundingClientRect() : {width: 0, height: 0};
             return {error: e.dataset.error || null, width: r.width, height: r.height}; })""",
    )


@pytest.mark.parametrize(("what", "path", "charts"), PAGES)
def test_page_draws_offline(browser, server, what, path, charts):
    requests: list[str] = []
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/{path}", wait_until="load")
    drawn = _charts_drawn(page, charts)
    assert len(drawn) >= charts
    for d in drawn:
        assert d["error"] is None, d
        assert d["width"] > 0 and d["height"] > 0, d
    assert page.locator("article table").count() >= 1
    outside = [u for u in requests if urlparse(u).hostname not in ("127.0.0.1", "localhost")
               and not u.startswith(("data:", "blob:"))]
    assert outside == [], outside
    assert errors == []
    shots = os.environ.get("REPORT_SCREENSHOTS")
    if shots:
        _screenshots(browser, f"{server}/{path}", Path(shots), what, charts)
    context.close()


def _screenshots(browser, url: str, out: Path, what: str, charts: int) -> None:
    """Light, dark (the palette follows the system's scheme) and narrow views, to look at."""
    out.mkdir(parents=True, exist_ok=True)
    views = [("light", "light", 1280), ("dark", "dark", 1280), ("narrow", "light", 390), ("narrow-dark", "dark", 390)]
    for name, scheme, width in views:
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        page = context.new_page()
        page.goto(url, wait_until="load")
        _charts_drawn(page, charts)
        if what == "variant":
            page.locator(".vega-chart").first.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        page.screenshot(path=str(out / f"{what}-{name}.png"), full_page=what != "variant")
        context.close()


def test_tab_and_sort(browser, server):
    """A header click sorts numerically, and the palette toggle redraws the charts dark."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/generated/sets/nvidia-h200__torch-2.11.0.html")
    _charts_drawn(page, 2)
    th = page.locator("article table").nth(0).locator("th").nth(2)  # GPU ms
    th.click()
    vals = page.locator("article table").nth(0).locator("tbody tr td:nth-child(3)").all_inner_texts()
    nums = [float(v) for v in vals if v != "–"]
    assert nums == sorted(nums)
    # The palette toggle redraws the charts in the dark theme.
    page.locator("label[for='__palette_1']").click()
    page.wait_for_function("() => Array.from(document.querySelectorAll('.vega-chart'))"
                           ".every(e => e.dataset.drawn === 'dark')", timeout=10_000)
    page.close()
