"""Issue 33: a page over every set of a scenario is made only where it would hold two sets' rows or more; with
fewer it says no more than the one set's own page of the scenario, which every link to the scenario then leads to
(the scenarios' index, the navigation, a published set's "beside ours on"). Checked on the committed H200 set built
alone (every scenario run by one set), and on the H100 and H200 sets built together (gpu_docs: the sweep
scenarios run by both, the dynamic-lengths scenario by the H100 only)."""

from __future__ import annotations

import posixpath
import re

import pytest

from gen.analysis import scenarios as sa
from gen.report import format as fmt
from gen.report import render, site
from gen.report.pages import dynamic, scenario_paths
from gen.report.pages import scenarios as scenario_pages

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"
_LINK = re.compile(r"\]\(([^)\s]+)\)|href=\"([^\"#]+)")


def _links_to_scenario_pages(text: str, page: str) -> set[str]:
    """The pages under generated/scenarios/ a page's Markdown or HTML links (resolved, as .md)."""
    out = set()
    for md, href in _LINK.findall(text):
        target = (md or href).split("#")[0]
        if not target or "://" in target:
            continue
        path = posixpath.normpath(posixpath.join(posixpath.dirname(page), target))
        path = path[:-5] + ".md" if path.endswith(".html") else path
        if path.startswith(f"{fmt.GENERATED}/scenarios/"):
            out.add(path)
    return out


def test_the_rule_links_the_one_sets_page_under_two_sets():
    own = "own page of {}".format
    assert scenario_paths.over_sets([], "over.md", own) is None
    assert scenario_paths.over_sets(["a"], "over.md", own) == "own page of a"
    assert scenario_paths.over_sets(["a", "b"], "over.md", own) == "over.md"
    assert scenario_paths.MIN_SETS == 2


@pytest.fixture(scope="module")
def alone(h200_new):
    """The committed H200 set's pages, built with no other set: every scenario has one set's row."""
    ctx = site.Context([h200_new])
    return h200_new, render.render(ctx, workers=1)


def test_a_scenario_run_by_one_set_has_no_page_over_sets(alone):
    ls, pages = alone
    paths = {p.path for p in pages}
    names = sa.scenario_names([ls])
    assert names
    for name in names:
        assert fmt.set_scenario_page(ls.name, name) in paths
        assert scenario_pages.scenario_page(name) not in paths, name
    assert dynamic.PAGE not in paths
    index = next(p for p in pages if p.path == scenario_pages.INDEX)
    for name in names:  # the index's row of each scenario opens the set's own page of it
        assert f"]({fmt.relpath(fmt.set_scenario_page(ls.name, name), scenario_pages.INDEX)})" in index.text, name
    # the navigation's Scenarios section holds the index alone
    nav = [p for p in pages if p.nav and p.nav[0] == "Scenarios"]
    assert [p.path for p in nav] == [scenario_pages.INDEX]


def test_no_page_links_a_scenario_page_that_is_not_made(alone):
    _, pages = alone
    paths = {p.path for p in pages}
    for p in pages:
        if p.text:
            missing = _links_to_scenario_pages(p.text, p.path) - paths
            assert not missing, (p.path, missing)


def test_two_sets_keep_the_page_over_sets_and_one_set_links_its_own(gpu_docs):
    for name in ("decode", "article"):  # run by both sets: the page over both, with both rows
        text = (gpu_docs / scenario_pages.scenario_page(name)).read_text()
        assert f"sets/{H100}/scenarios/" in text and f"sets/{H200}/scenarios/" in text
    assert not (gpu_docs / dynamic.PAGE).exists()  # run by the H100 only
    index = (gpu_docs / scenario_pages.INDEX).read_text()
    assert f"]({fmt.relpath(dynamic.set_page(H100), scenario_pages.INDEX)})" in index
    assert "](decode.md)" in index
    nav = (gpu_docs / fmt.GENERATED / ".nav.yml").read_text()
    assert dynamic.PAGE not in nav and scenario_pages.scenario_page("decode") in nav
    # a set's own page of a scenario links the index, which exists whichever sets ran it
    own = (gpu_docs / dynamic.set_page(H100)).read_text()
    assert f"]({fmt.relpath(scenario_pages.INDEX, dynamic.set_page(H100))})" in own
