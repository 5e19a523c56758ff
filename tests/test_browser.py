"""A real headless Chromium opens the built site: every chart draws, and no request
leaves the machine. Screenshots go to $REPORT_SCREENSHOTS when it is set."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.site_server import CHROMIUM, Tab, chromium

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing (apt-get install chromium)"),
]


H200 = "nvidia-h200__torch-2.11.0"
# The committed sets only: other sets a run leaves in results/ must not change the test.
SETS = [H200, "nvidia-a100-sxm4-80gb__article-2026-07"]


@pytest.fixture(scope="module")
def served(built_site):
    """The sets built into a site (once per session, shared: conftest.py), served on
    127.0.0.1 at its site_url while this module runs."""
    built = built_site(*SETS)
    with built.serving() as (site, url):
        yield site, url


@pytest.fixture(scope="module")
def site(served) -> Path:
    return served[0]


@pytest.fixture(scope="module")
def server(served) -> str:
    return served[1]


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


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


_RESIZED = """async e => { await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
                           const v = window.reportViews && window.reportViews.get(e); if (v) await v.runAsync(); }"""


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
            # until its view has run the resize the tab's change asks for (report.js), not a fixed 300 ms (about
            # 0.3 s a hidden chart, in three passes); one never redrawn is reported below, at its zero width
            chart.evaluate(_RESIZED)
        info = chart.evaluate(
            """e => { const g = e.querySelector('svg, canvas');
                      const r = g ? g.getBoundingClientRect() : {width: 0, height: 0};
                      return {label: e.dataset.label || e.getAttribute('aria-label'), error: e.dataset.error || null,
                              width: r.width, height: r.height}; }""")
        info.update(chart.evaluate(_DATA_ITEMS))
        out.append(info)
    return out


def _open(browser, server, path: str, **context_args):
    """A page in a context of its own (a first visit: empty cache, nothing stored)."""
    requests: list[str] = []
    errors: list[str] = []
    context = browser.new_context(**({"viewport": {"width": 1280, "height": 900}} | context_args))
    page = context.new_page()
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/{path}", wait_until="load")
    return context, page, requests, errors


# What a reader at 1280 px sees of each page, looked at once for the tests below (one visit
# a page, not one a test): its tables' key columns as loaded, then each chart, drawn.
_TABLE_COLUMNS = """() => Array.from(document.querySelectorAll('article table'))
  .filter(t => t.offsetParent !== null).map(t => {
    const wrap = t.closest('.md-typeset__scrollwrap') || t.parentElement;
    const right = wrap.getBoundingClientRect().right + 1;
    const heads = Array.from(t.tHead ? t.tHead.rows[0].cells : []);
    return {kind: t.dataset.kind || '', names: heads.map(h => h.textContent.trim()),
            fits: heads.map(h => h.getBoundingClientRect().right <= right)};
  })"""


@pytest.fixture(scope="module")
def visits_1280(browser, server, site) -> dict[str, dict]:
    """Per page: its tables (as they fit), its charts (drawn), the requests it made, its errors."""
    out = {}
    with Tab(browser, server) as tab:
        for path in _site_pages(site):
            page = tab.visit(path)
            seen = {"tables": page.evaluate(_TABLE_COLUMNS)}  # before any tab is chosen, as the page loads
            try:
                seen["charts"] = _charts_drawn(page)
            except Exception as exc:  # said by the chart test, for this page
                seen["charts"], seen["failure"] = [], f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
            seen.update(requests=list(tab.requests), errors=list(tab.errors))
            out[path] = seen
    return out


def test_every_chart_on_every_page_shows_data(visits_1280):
    """Each chart of each page draws data marks that can be seen (not an empty frame:
    bars at NaN on a log scale fail here), and no page asks anything of another host."""
    problems: list[str] = []
    charts_seen = 0
    for path, seen in visits_1280.items():
        drawn, requests, errors = seen["charts"], seen["requests"], seen["errors"]
        if "failure" in seen:
            problems.append(f"{path}: charts not drawn: {seen['failure']}")
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
    assert charts_seen >= 10
    assert problems == [], "\n".join(problems)


SHOTS = [
    ("home", "index.html"),
    ("set-h200", "generated/sets/nvidia-h200__torch-2.11.0.html"),
    # a variant's page in a set holds its checks and timelines (the cross-set page compares sets)
    ("variant-naive", "generated/sets/nvidia-h200__torch-2.11.0/variants/naive.html"),
    ("variant-sdpa_math", "generated/sets/nvidia-h200__torch-2.11.0/variants/sdpa_math.html"),
    ("variant-sdpa_flash", "generated/sets/nvidia-h200__torch-2.11.0/variants/sdpa_flash.html"),
    ("variant-sdpa_cudnn", "generated/sets/nvidia-h200__torch-2.11.0/variants/sdpa_cudnn.html"),
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
    summary = page.locator("article table:not([data-kind='decision'])").nth(0)  # after the decision's table
    th = summary.locator("th").nth(2)  # GPU-only ms
    th.click()
    vals = summary.locator("tbody tr td:nth-child(3)").all_inner_texts()
    nums = [float(v.split()[0]) for v in vals if v != "–"]  # "0.0573 (kernel sum)": the label follows the number
    assert nums == sorted(nums)
    # The palette toggle redraws the charts in the dark theme.
    page.locator("label[for='__palette_1']").click()
    page.wait_for_function("() => Array.from(document.querySelectorAll('.vega-chart'))"
                           ".every(e => e.dataset.drawn === 'dark')", timeout=10_000)
    page.close()


# Hostile names and display strings in the browser: tests/test_hostile_names.py (issue 19).


# --- Weight, instant navigation, figure data, layout, search (issue 12) ---

def _requested_bundle(requests: list[str]) -> bool:
    return any(urlparse(u).path.endswith("/vendor/vega-bundle.js") for u in requests)


def test_chart_bundle_loads_only_where_charts_are(browser, server):
    """A page without charts does not fetch the 0.9 MB chart bundle; a page with charts does and draws."""
    context, page, requests, errors = _open(browser, server, "methodology.html")
    page.wait_for_load_state("networkidle")
    assert page.locator(".vega-chart").count() == 0
    assert not _requested_bundle(requests), requests
    context.close()
    context, page, requests, errors = _open(browser, server, "generated/sets/nvidia-h200__torch-2.11.0.html")
    drawn = _charts_drawn(page)
    assert drawn and all(d["error"] is None and d["svgPaths"] > 0 for d in drawn), drawn
    assert _requested_bundle(requests)
    assert errors == []
    context.close()


_NEW_CHARTS_DRAWN = """() => { const c = Array.from(document.querySelectorAll('.vega-chart'));
  return c.length > 0 && c.every(e => !e.dataset.old && (e.dataset.drawn || e.dataset.error)); }"""


def _follow(page, selector: str, expect_path: str) -> None:
    """Click a link as a reader would and wait for the new page's own charts to draw."""
    page.evaluate("() => document.querySelectorAll('.vega-chart').forEach(e => e.dataset.old = '1')")
    page.locator(selector).first.click()
    page.wait_for_url(f"**/{expect_path}", timeout=10_000)
    page.wait_for_function(_NEW_CHARTS_DRAWN, timeout=20_000)


def test_instant_navigation_draws_every_page(browser, server):
    """home -> a set page -> a variant page -> back, by clicks: Material swaps the pages in
    (no reload: a mark on window survives), and each page's charts draw with data;
    the views of pages left behind are let go."""
    context, page, requests, errors = _open(browser, server, "index.html")
    _charts_drawn(page)
    page.evaluate("() => { window.__sameDocument = 1; }")
    steps = [
        ("nav a[href$='nvidia-h200__torch-2.11.0.html']", "generated/sets/nvidia-h200__torch-2.11.0.html"),
        ("article a[href$='variants/sdpa_flash.html']", f"generated/sets/{SETS[0]}/variants/sdpa_flash.html"),
    ]
    for selector, path in steps:
        _follow(page, selector, path)
        drawn = _charts_drawn(page)
        assert all(d["error"] is None and d["svgPaths"] > 0 for d in drawn), (path, drawn)
    page.evaluate("() => document.querySelectorAll('.vega-chart').forEach(e => e.dataset.old = '1')")
    page.go_back()
    page.wait_for_url("**/generated/sets/nvidia-h200__torch-2.11.0.html", timeout=10_000)
    page.wait_for_function(_NEW_CHARTS_DRAWN, timeout=20_000)
    drawn = _charts_drawn(page)
    assert all(d["error"] is None and d["svgPaths"] > 0 for d in drawn), drawn
    assert page.evaluate("() => window.__sameDocument") == 1, "a click reloaded the page: instant navigation is off"
    live = page.evaluate("() => window.reportViews.size")
    assert live == page.locator(".vega-chart").count()
    assert sum(urlparse(u).path.endswith("/vendor/vega-bundle.js") for u in requests) == 1
    assert errors == []
    context.close()


HOSTILE_COMMAND = "python -m gen build --set '<img src=x onerror=alert(5)>' && echo \"{{ 7*7 }}\""


def test_every_chart_offers_its_data_and_command(browser, server, tmp_path):
    """Under each chart: a JSON download of the rows the chart draws (made in the page, no
    request), and the data-command that reproduces it, shown literally (a hostile one too)."""
    path = "generated/sets/nvidia-h200__torch-2.11.0.html"
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))

    def add_command(route):
        import html

        body = route.fetch().text()
        attr = html.escape(HOSTILE_COMMAND, quote=True)
        body = body.replace('<div class="vega-chart"', f'<div class="vega-chart" data-command="{attr}"', 1)
        route.fulfill(body=body, content_type="text/html")

    page.route(f"{server}/{path}", add_command)
    page.goto(f"{server}/{path}")
    _charts_drawn(page)
    charts = page.locator(".vega-chart")
    assert charts.count() >= 2
    for i in range(charts.count()):
        chart = charts.nth(i)
        info = chart.evaluate("""async e => {
            const box = e.nextElementSibling, a = box && box.querySelector('a.chart-data');
            if (!a) return null;
            const rows = await (await fetch(a.href)).json();
            const spec = JSON.parse(e.dataset.spec);
            return {download: a.download, href: a.href, rows, datasets: spec.datasets || null,
                    command: box.querySelector('code.chart-command')?.textContent ?? null};
        }""")
        assert info is not None, f"chart {i} has no data download"
        assert info["href"].startswith("blob:") and info["download"].endswith(".json")
        assert isinstance(info["rows"], list) and len(info["rows"]) > 0
        assert info["rows"] == next(iter(info["datasets"].values()))
        if i == 0:  # the injected attribute comes first, so the browser keeps it
            assert info["command"] == HOSTILE_COMMAND
        else:
            assert info["command"].startswith("python -m gen summary --set nvidia-h200__torch-2.11.0 ")
    with page.expect_download() as dl:
        page.locator("a.chart-data").first.click()
    saved = tmp_path / dl.value.suggested_filename
    dl.value.save_as(saved)
    import json

    assert json.loads(saved.read_text(encoding="utf-8")) == info_rows_first(page)
    assert page.evaluate("() => document.querySelectorAll('img[src=\"x\"]').length") == 0
    assert not [u for u in requests if urlparse(u).hostname not in ("127.0.0.1", "localhost")
                and not u.startswith(("data:", "blob:"))]
    context.close()


def info_rows_first(page) -> list:
    return page.evaluate("() => { const s = JSON.parse(document.querySelector('.vega-chart').dataset.spec);"
                         " return Object.values(s.datasets)[0]; }")


# Columns a reader needs without scrolling sideways at 1280 px: kernel tables up to the
# block size (registers, shared memory, launch API, category and start may scroll);
# every column of every other table.
KEY_COLUMNS = {"kernels": 8}


def test_key_columns_fit_1280(visits_1280):
    problems = []
    for path, seen in visits_1280.items():
        for t in seen["tables"]:
            n = KEY_COLUMNS.get(t["kind"], len(t["names"]))
            cut = [name for name, fits in list(zip(t["names"], t["fits"]))[:n] if not fits]
            if cut:
                problems.append(f"{path}: {t['kind'] or 'table'} needs scrolling for {cut}")
    assert len(visits_1280) >= 15 and any(seen["tables"] for seen in visits_1280.values())
    assert problems == [], "\n".join(problems)


_AXIS_LABEL_OVERLAPS = """el => {
  const out = [];
  for (const axis of el.querySelectorAll('svg g.role-axis')) {
    const boxes = Array.from(axis.querySelectorAll('g.role-axis-label text'))
      .filter(t => t.textContent && getComputedStyle(t).opacity !== '0' && t.getAttribute('opacity') !== '0')
      .map(t => ({t: t.textContent, r: t.getBoundingClientRect()}));
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i].r, b = boxes[j].r;
      if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
        out.push(boxes[i].t + ' / ' + boxes[j].t);
    }
  }
  return out;
}"""


# Every chart drawn in the palette the page shows (Material's light scheme is "default", its dark one "slate").
_DRAWN_IN = {scheme: f"""() => document.body.getAttribute('data-md-color-scheme') === '{material}' && Array.from(
  document.querySelectorAll('.vega-chart')).every(e => e.dataset.drawn === '{scheme}' || e.dataset.error)"""
             for scheme, material in (("light", "default"), ("dark", "slate"))}


def _page_kind(path: str) -> str:
    """A page's kind: its path with a set's name and the page's own name left out
    ("generated/sets/*/scenarios/*.html")."""
    import re

    return re.sub(r"[^/]+\.html$", "*.html", re.sub(r"^generated/sets/[^/]+/", "generated/sets/*/", path))


@pytest.fixture(scope="module")
def visits_390(browser, server, site) -> dict[str, list[str]]:
    """Per palette, what overlaps or overflows at 390 px: each page with a chart loaded once in the
    light palette and looked at; the first of each kind then switched to the dark one by its toggle,
    as a reader would (every chart redraws in the dark theme), and looked at again."""
    problems: dict[str, list[str]] = {"light": [], "dark": []}
    # Only the pages with a chart: a page without one has no axis to overlap nor chart to overflow.
    with_charts = [p for p in _site_pages(site) if 'class="vega-chart"' in (site / p).read_text(encoding="utf-8")]
    assert len(with_charts) >= 10, with_charts
    # The dark palette changes the charts' colours, not their layout, through one script on every page: it is
    # looked at on the first page of each kind (the home, a set's page, a scenario page, a variant page, ...),
    # not on all of them again (about 15 s of Chromium on 2 cores)
    kinds: dict[str, str] = {}
    for path in with_charts:
        kinds.setdefault(_page_kind(path), path)
    dark = set(kinds.values())
    assert len(dark) >= 5, kinds
    with Tab(browser, server, viewport={"width": 390, "height": 844}, color_scheme="light") as tab:
        for path in with_charts:
            page = tab.visit(path)  # light: the palette chosen on the page before is forgotten
            for scheme in ("light", "dark") if path in dark else ("light",):
                try:
                    if scheme == "dark":
                        page.evaluate("() => document.querySelector('input#__palette_1').click()")
                    page.wait_for_function(_DRAWN_IN[scheme], timeout=20_000)
                    for i, d in enumerate(_charts_drawn(page)):
                        overlaps = page.locator(".vega-chart").nth(i).evaluate(_AXIS_LABEL_OVERLAPS)
                        if overlaps:
                            problems[scheme].append(f"{path}: chart '{d['label']}': {overlaps[:4]}")
                        if d["width"] > 390:
                            problems[scheme].append(f"{path}: chart '{d['label']}' is {d['width']:.0f} px wide")
                except Exception as exc:
                    problems[scheme].append(f"{path}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    return problems


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axis_labels_do_not_overlap_at_390(visits_390, scheme):
    """On a phone-sized screen no two labels of one axis overlap, in either palette."""
    assert visits_390[scheme] == [], "\n".join(visits_390[scheme])


def _kernel_names(page_html: str) -> list[tuple[str, str]]:
    """(short name, full name) of each kernel row of a built variant page."""
    import html
    import re

    return [(html.unescape(s), html.unescape(f))
            for f, s in re.findall(r'<summary title="([^"]*)">([^<]*)</summary>', page_html)]


# A set's own pages are left out of search (at 50 sets they would make the index tens of MB) and the
# kernel tables are data-search-exclude besides (full signatures would bloat it); the short names reach
# search through the hidden <p class="kernel-names"> of the variant's page over every set.
def test_search_finds_kernel_names(browser, server, site):
    """Every kernel a variant's page in a set lists is in the search index under the variant's page,
    and typing one that no visible text names finds that page; the full C++ signatures stay out of
    the index (they would bloat it and match everything), and so does every set's own page."""
    import html
    import json

    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    raw = json.dumps(index, ensure_ascii=False)
    assert not [d["location"] for d in index if d["location"].startswith("generated/sets/") and
                d["location"].split("#")[0].count("/") > 2]
    searched = 0
    tab = Tab(browser, server)
    page = tab.visit("index.html")  # one page, one search index loaded: a search a variant
    for variant in ("naive", "sdpa_flash", "sdpa_cudnn"):
        own = (site / "generated" / "sets" / SETS[0] / "variants" / f"{variant}.html").read_text(encoding="utf-8")
        names = _kernel_names(own)
        assert names, variant
        here = f"generated/variants/{variant}.html"
        text = " ".join(html.unescape(d["text"]) for d in index if d["location"].startswith(here))
        missing = sorted({short for short, _ in names if short not in text})
        assert missing == [], f"{variant}: not searchable: {missing}"
        for short, full in names:
            if full != short:
                assert html.escape(full, quote=False) not in raw and full not in raw, full[:80]
        page_html = (site / here).read_text(encoding="utf-8")
        visible = html.unescape(re.sub(r'<p class="kernel-names" hidden>.*?</p>', "", page_html, flags=re.S))
        hidden = sorted({short for short, _ in names if short not in visible}, key=len)
        if not hidden:
            continue
        box = page.locator("input.md-search__input")
        box.click()
        if searched:  # the last search's results go with its words, before the next is typed
            box.press("Control+A")
            box.press("Backspace")
            page.wait_for_selector(".md-search-result__item", state="detached", timeout=10_000)
        # Material searches on key events, not on fill(): the name goes in whole, its last letter typed
        page.keyboard.insert_text(hidden[-1][:-1])
        page.keyboard.type(hidden[-1][-1])
        page.wait_for_selector(f".md-search-result__item a[href*='variants/{variant}.html']", timeout=10_000)
        searched += 1
    assert tab.errors == []
    tab.context.close()


def test_long_pages_have_a_table_of_contents(browser, server):
    """The methodology page lists its sections in the left sidebar (toc.integrate), and the
    content keeps the width it has on pages without one."""
    widths = {}
    for path in ("methodology.html", "generated/sets/index.html"):
        context, page, _, _ = _open(browser, server, path)
        widths[path] = page.evaluate("() => document.querySelector('article').getBoundingClientRect().width")
        if path == "methodology.html":
            toc = page.locator("nav.md-nav--primary nav.md-nav--secondary a.md-nav__link")
            assert toc.count() >= 8 and toc.first.is_visible()
            href = toc.nth(1).get_attribute("href")
            # Instant navigation makes the links absolute: the fragment names a heading of this page.
            assert href and "#" in href, href
            assert page.locator(f"article [id='{href.split('#', 1)[1]}']").count() == 1, href
        context.close()
    assert abs(widths["methodology.html"] - widths["generated/sets/index.html"]) < 2, widths
