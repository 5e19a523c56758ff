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

from gen.report import build

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


def _site_pages(site: Path) -> list[str]:
    """Every page of the built site, as paths relative to it."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if p.name != "404.html" and "assets" not in p.parts)


def test_site_pages_are_all_checked(site):
    pages = _site_pages(site)
    assert "index.html" in pages and "generated/variants/naive.html" in pages
    assert len(pages) >= 15, pages


# Marks of the data (Vega gives axes, legends and titles other roles), and how many of
# their items lie where they can be seen: finite coordinates, a size for bars.
_DATA_ITEMS = """el => {
  const view = window.reportViews && window.reportViews.get(el);
  if (!view) return {types: {}, visible: 0, total: 0};
  const ok = v => typeof v === "number" && isFinite(v);
  const types = {}; let visible = 0, total = 0;
  const walk = (node) => {
    if (!node) return;
    if (node.marktype && node.role === "mark" && node.items) {
      for (const it of node.items) {
        total++;
        let seen = ok(it.x) && ok(it.y);
        if (node.marktype === "rect") seen = seen && ok(it.width) && ok(it.height) && it.width > 0 && it.height > 0;
        if (node.marktype === "rule") seen = seen && (ok(it.x2) || ok(it.y2));
        if (seen && it.opacity !== 0) { visible++; types[node.marktype] = (types[node.marktype] || 0) + 1; }
      }
    }
    for (const child of node.items || []) if (child.items) walk(child);
  };
  walk(view.scenegraph().root);
  const svgPaths = Array.from(el.querySelectorAll("svg g.role-mark path[d]"))
    .filter(p => p.getAttribute("d") && !/NaN|Infinity/.test(p.getAttribute("d"))).length;
  return {types, visible, total, svgPaths};
}"""

DATA_MARKS = ("rect", "symbol", "line", "area", "rule", "trail")


def _charts_drawn(page) -> list[dict]:
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.vega-chart'))"
        ".every(e => e.dataset.drawn || e.dataset.error)", timeout=20_000,
    )
    # A chart in a hidden tab is drawn at zero width: choose its tab, as a reader would.
    out = []
    for i in range(page.locator(".vega-chart").count()):
        chart = page.locator(".vega-chart").nth(i)
        if not chart.is_visible():
            tab_id = chart.evaluate(
                """e => { const block = e.closest('.tabbed-block'); const set = block.closest('.tabbed-set');
                          const n = Array.from(block.parentElement.children).indexOf(block);
                          return set.querySelectorAll(':scope > input')[n].id; }""")
            page.locator(f"label[for='{tab_id}']").click()
            page.wait_for_timeout(300)
        info = chart.evaluate(
            """e => { const g = e.querySelector('svg, canvas');
                      const r = g ? g.getBoundingClientRect() : {width: 0, height: 0};
                      return {label: e.dataset.label || e.getAttribute('aria-label'), error: e.dataset.error || null,
                              width: r.width, height: r.height}; }""")
        info.update(chart.evaluate(_DATA_ITEMS))
        out.append(info)
    return out


def _open(browser, server, path: str, **context_args):
    requests: list[str] = []
    errors: list[str] = []
    context = browser.new_context(**({"viewport": {"width": 1280, "height": 900}} | context_args))
    page = context.new_page()
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/{path}", wait_until="load")
    return context, page, requests, errors


def test_every_chart_on_every_page_shows_data(browser, server, site):
    """Each chart of each page draws data marks that can be seen (not an empty frame:
    bars at NaN on a log scale fail here), and no page asks anything of another host."""
    problems: list[str] = []
    charts_seen = 0
    for path in _site_pages(site):
        context, page, requests, errors = _open(browser, server, path)
        drawn = _charts_drawn(page)
        charts_seen += len(drawn)
        for d in drawn:
            where = f"{path}: chart '{d['label']}'"
            if d["error"]:
                problems.append(f"{where}: {d['error']}")
            elif not (d["width"] > 0 and d["height"] > 0):
                problems.append(f"{where}: no size ({d['width']}×{d['height']})")
            elif not any(d["types"].get(m) for m in DATA_MARKS) or d["svgPaths"] == 0:
                problems.append(f"{where}: no visible data marks ({d['visible']} of {d['total']} items "
                                f"visible, {d['svgPaths']} drawn paths)")
        outside = [u for u in requests if urlparse(u).hostname not in ("127.0.0.1", "localhost")
                   and not u.startswith(("data:", "blob:"))]
        if outside:
            problems.append(f"{path}: requests leave the machine: {outside}")
        if errors:
            problems.append(f"{path}: page errors: {errors}")
        context.close()
    assert charts_seen >= 10
    assert problems == [], "\n".join(problems)


SHOTS = [
    ("home", "index.html"),
    ("set-h200", "generated/sets/nvidia-h200__torch-2.11.0.html"),
    ("variant-naive", "generated/variants/naive.html"),
    ("variant-sdpa_cudnn", "generated/variants/sdpa_cudnn.html"),
]


@pytest.mark.skipif(not os.environ.get("REPORT_SCREENSHOTS"), reason="set REPORT_SCREENSHOTS=<dir> to take them")
@pytest.mark.parametrize(("what", "path"), SHOTS)
def test_screenshots(browser, server, what, path):
    _screenshots(browser, f"{server}/{path}", Path(os.environ["REPORT_SCREENSHOTS"]), what)


def _screenshots(browser, url: str, out: Path, what: str) -> None:
    """Light, dark (the palette follows the system's scheme) and narrow views, to look at."""
    out.mkdir(parents=True, exist_ok=True)
    views = [("light", "light", 1280), ("dark", "dark", 1280), ("narrow", "light", 390), ("narrow-dark", "dark", 390)]
    for name, scheme, width in views:
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        page = context.new_page()
        page.goto(url, wait_until="load")
        _charts_drawn(page)
        page.wait_for_timeout(300)
        if what.startswith("variant"):  # long pages: the checks and the first timeline
            page.locator("table[data-kind='hypothesis']").first.scroll_into_view_if_needed()
            page.screenshot(path=str(out / f"{what}-{name}-checks.png"))
            page.locator(".vega-chart").first.scroll_into_view_if_needed()
            page.wait_for_timeout(300)
        page.screenshot(path=str(out / f"{what}-{name}.png"), full_page=not what.startswith("variant"))
        context.close()


def test_tab_and_sort(browser, server):
    """A header click sorts numerically, and the palette toggle redraws the charts dark."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/generated/sets/nvidia-h200__torch-2.11.0.html")
    _charts_drawn(page)
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


HOSTILE_SET = "evil-<img src=x onerror=alert(1)>-<script>alert('set')<\\script>-\"q\"-`b`-{{ 7*7 }}"
HOSTILE_NAME = HOSTILE_SET + "</script><script>alert(9)</script>"
HOSTILE_GPU = "GPU <script>alert('gpu')</script><img src=x onerror=alert(2)> \"q\" `b` {{ 7*7 }} {% raw %}"
HOSTILE_VARIANT = "naive_<img src=x onerror=alert(3)>_{{7*7}}"


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory):
    """A site built from a set whose folder name, set name, GPU name and one variant
    name carry HTML, quotes, backticks and Jinja braces."""
    import json

    results = tmp_path_factory.mktemp("hostile-results")
    dst = results / HOSTILE_SET
    shutil.copytree(ROOT / "results" / SETS[0], dst)
    data = json.loads((dst / "result.json").read_text(encoding="utf-8"))
    data["name"] = HOSTILE_NAME
    data["environment"]["gpu_name"] = HOSTILE_GPU
    for run in data["runs"]:
        if run["variant"] == "naive_inplace":
            run["variant"] = HOSTILE_VARIANT
    (dst / "result.json").write_text(json.dumps(data), encoding="utf-8")
    project = build.copy_project(ROOT, tmp_path_factory.mktemp("hostile-project"))
    build.run(results, project / "docs")
    build.mkdocs_build(project, project / "site")
    site = project / "site"
    handler = functools.partial(_Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", site
    httpd.shutdown()
    httpd.server_close()


def test_hostile_names_run_no_script_and_show_literally(browser, hostile_server):
    """No dialog opens on any page (the navigation included), no element is made
    from a name, and the names read literally in the page text."""
    server, site = hostile_server
    dialogs: list[str] = []
    seen_gpu = seen_variant = 0
    for path in _site_pages(site):
        context, page, _, _ = _open(browser, server, path)
        page.on("dialog", lambda d, where=path: (dialogs.append(f"{where}: {d.message}"), d.dismiss()))
        page.wait_for_timeout(150)
        injected = page.evaluate("() => document.querySelectorAll('img[src=\"x\"], img[onerror]').length")
        assert injected == 0, f"{path}: an <img> came out of a name"
        text = page.evaluate("() => document.body.innerText + ' ' + document.title")
        seen_gpu += HOSTILE_GPU in text
        seen_variant += HOSTILE_VARIANT in text
        context.close()
    assert dialogs == []
    assert seen_gpu >= 3 and seen_variant >= 3, (seen_gpu, seen_variant)
