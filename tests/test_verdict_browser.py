"""In a real headless Chromium at 1280x900: the home page answers "which attention
here" on its first screen (the lead set's decision as a chart and a table, above the fold:
tests/test_first_screen_browser.py at 1280 and 390 px), its verdicts folded below with the
fastest variant and its GPU-only time, and every verdict on every page reads the same as analysis."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gen.analysis import tables, verdicts
from gen.report.words import common as words
from gen.report.words import verdicts as verdict_words
from tests.site_server import CHROMIUM, chromium

ROOT = Path(__file__).resolve().parent.parent
LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"  # the first measured GPU set: compare.default_pair's A
FOLD = 900

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def served(built_site):
    """The committed sets built into a site (once per session, shared: conftest.py), served
    on 127.0.0.1 at its site_url while this module runs."""
    built = built_site()
    with built.serving() as (site, url):
        yield site, url


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def h200():
    """The lead set (named h200 when the H200 capture led)."""
    from gen.analysis import compare
    from gen.model import schema

    sets = [tables.load_set(p) for p in schema.list_sets(ROOT / "results")]
    lead = compare.default_pair(sets)[0]
    assert lead.name == LEAD
    return lead


def _page(browser, url: str):
    context = browser.new_context(viewport={"width": 1280, "height": FOLD})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url, wait_until="load")
    return context, page, errors


def test_home_answers_on_its_first_screen(browser, served, h200):
    site, url = served
    v = verdicts.verdict(h200)
    w = verdict_words.verdict(v)
    context, page, errors = _page(browser, f"{url}/index.html")
    table = page.locator(f"[data-decision-first][data-set='{LEAD}'] table[data-kind='decision']")
    box = table.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] < FOLD, box
    # the verdict of the article's shape, folded under the reasons: opened, it reads as analysis worded it
    page.locator("details.decision-reasons > summary").first.click()
    block = page.locator(f"[data-verdict][data-set='{LEAD}'][data-scenario='article']").first
    headline = block.locator(".verdict-headline").inner_text()
    # The fastest variant of the lead set, with its GPU-only time as analysis computed it.
    # the headline analysis worded: "X is the fastest here", or "X and Y tie for the fastest here"
    assert headline.startswith(w.fastest_label) and headline.split(":")[0] == w.headline.split(":")[0]
    assert words.us(v.spread(v.fastest).median) in headline and "on the GPU alone" in headline
    assert block.get_attribute("data-fastest") == v.fastest.variant
    assert not errors
    if os.environ.get("REPORT_SCREENSHOTS"):
        page.screenshot(path=str(Path(os.environ["REPORT_SCREENSHOTS"]) / "verdict-home.png"))
    context.close()


def test_every_verdict_reads_the_same_on_every_page(browser, served, h200):
    """The verdict block of the lead set shows the same words on the home page and
    the set page, after instant navigation between them too."""
    site, url = served
    texts = {}
    for path in ("index.html", f"generated/sets/{LEAD}.html"):
        context, page, errors = _page(browser, f"{url}/{path}")
        page.locator("details.decision-reasons > summary").first.click()  # the verdicts are folded
        block = page.locator(f"[data-verdict][data-set='{LEAD}'][data-scenario='article']").first
        texts[path] = (block.locator(".verdict-headline").inner_text(), block.get_attribute("data-fastest"),
                       block.get_attribute("data-host-bound"))
        assert not errors, (path, errors)
        context.close()
    assert len(set(texts.values())) == 1, texts
    v = verdicts.verdict(h200)
    assert texts["index.html"][1] == v.fastest.variant and texts["index.html"][2].split() == list(v.host_bound)
