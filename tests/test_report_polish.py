"""Page details built from the committed sets: kernel names for search, the trace's size and
Perfetto, each chart's command, which pages keep a table of contents, no claim without data."""

from __future__ import annotations

import html
import re
import shlex
import shutil
from pathlib import Path

import pytest

from gen.analysis import tables
from gen.report import format as fmt
from gen.report import render
from gen.report.site import chart_div, summary_command

ROOT = Path(__file__).resolve().parent.parent
SET = "nvidia-h200__torch-2.11.0"
TOC_HIDDEN = "---\nhide:\n  - toc\n---"


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, str]:
    results = tmp_path_factory.mktemp("results")
    shutil.copytree(ROOT / "results" / SET, results / SET)
    sets, skipped = tables.load_sets(results)
    return {p.path: p.text for p in render.render(render.Context(sets, skipped), workers=1) if p.text is not None}


def test_variant_page_gives_search_its_kernel_names(pages):
    """A set's own pages are left out of search: the variant's page over every set names, once each,
    every kernel its pages in the sets list (its profiled calls' and its scenarios'), hidden."""
    for v in ("naive", "sdpa_cudnn"):
        own = pages[fmt.set_variant_page(SET, v)]
        shown = {html.unescape(s) for s in re.findall(r'<summary title="[^"]*">([^<]*)</summary>', own)}
        assert shown and 'class="kernel-names"' not in own, v
        hidden = re.findall(r'<p class="kernel-names" hidden>([^<]*)</p>', pages[f"generated/variants/{v}.md"])
        assert len(hidden) == 2, v  # one per mode
        names = [n for h in hidden for n in html.unescape(h).split(" ")]
        assert set(" ".join(names).split()) == set(" ".join(shown).split()), v
        assert all(len(h.split(" ")) == len(set(h.split(" "))) for h in hidden)  # each name once


def test_kernel_names_paragraph_is_escaped():
    env = render.Context([], []).env
    tpl = env.from_string('<p class="kernel-names" hidden>{{ t.kernels | map(attribute="short_name") | unique '
                          '| join(" ") }}</p>')
    out = tpl.render(t={"kernels": [{"short_name": "gemm<T|*>"}, {"short_name": "gemm<T|*>"}]})
    assert out == '<p class="kernel-names" hidden>gemm&lt;T|*&gt;</p>'


def test_trace_link_shows_its_size_and_perfetto(pages):
    text = pages[fmt.set_variant_page(SET, "naive")]
    links = re.findall(r"Raw trace: \[[^\]]+\]\((?:\.\./)+traces/([^)]+)\) \(([^,]+), ", text)
    assert links
    for rel, shown in links:
        set_name, trace = rel.split("/", 1)
        assert shown == fmt.size((ROOT / "results" / set_name / "traces" / trace).stat().st_size), rel
    assert "[Perfetto](https://ui.perfetto.dev)" in text


def test_every_chart_names_the_command_that_reproduces_it(pages):
    commands = []
    for path, text in pages.items():
        for div in re.findall(r'<div class="vega-chart"[^>]*?data-spec=', text):
            m = re.search(r'data-command="([^"]+)"', div)
            assert m, f"{path}: a chart without data-command"
            commands.append((path, html.unescape(m.group(1))))
    assert commands
    byset = {c for p, c in commands if p == f"generated/sets/{SET}.md"}
    assert byset == {f"python -m gen summary --set {SET} --format json",
                     f"python -m gen summary --set {SET} --mode train --format json"}
    assert all(c.startswith("python -m gen ") for _, c in commands)


def test_chart_command_is_escaped_and_quoted():
    hostile = "x'\" <img src=y onerror=alert(1)>"
    div = str(chart_div({"mark": "point"}, "label", summary_command(hostile, scenario="decode")))
    attr = re.search(r'data-command="([^"]*)"', div).group(1)
    assert "<" not in attr and "'" not in attr
    words = shlex.split(html.unescape(attr))
    assert words[words.index("--set") + 1] == hostile and words[-2:] == ["--format", "json"]


def test_long_pages_keep_their_table_of_contents(pages):
    # (one set: its own page of a scenario, no page over every set of it: tests/test_one_row_pages.py)
    for path in ("generated/findings.md", "generated/scaling.md", f"generated/sets/{SET}.md",
                 f"generated/sets/{SET}/scenarios/decode.md"):
        assert not pages[path].startswith(TOC_HIDDEN), path
    for path in ("generated/compare.md", "generated/sets/index.md", "generated/variants/index.md",
                 "generated/scenarios/index.md"):
        if path in pages:
            assert pages[path].startswith(TOC_HIDDEN), path
    # the home page's front matter hides the TOC (and gives its description: test_decision)
    assert (ROOT / "docs" / "index.md").read_text(encoding="utf-8").startswith("---\nhide:\n  - toc\n")


def test_no_unmeasured_rerun_claim(pages):
    for path, text in pages.items():
        assert "re-run on the same H200" not in text and "by up to 2×" not in text, path


def test_methodology_says_where_instant_navigation_works():
    text = (ROOT / "docs" / "methodology.md").read_text(encoding="utf-8")
    section = text.split("## Reading the site", 1)[1].split("\n## ", 1)[0]
    for words in ("`nox -s serve`", "instant navigation", "from disk", "whole pages", "charts draw"):
        assert words in section, words
    mkdocs = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    # site_url only where the publisher gives it (REPORT_SITE_URL): no fixed address in every page's canonical link
    assert "navigation.instant" in mkdocs and [line for line in mkdocs.splitlines() if line.startswith("site_url:")] \
        == ["site_url: !ENV [REPORT_SITE_URL, null]"]
