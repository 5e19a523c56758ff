"""The first screen's chart and table (gen.report.pages.decision) read the advice and the verdicts, with no
number of their own; a chart of one point gives way to its table row (charts.one_point); every page carries
a description and Open Graph title and description, escaped (gen.report.format.meta_description,
overrides/main.html)."""

from __future__ import annotations

import html
import json
import re

import pandas as pd
import pytest
import yaml

from gen.analysis import advice, verdicts
from gen.analysis.values import variant_role
from gen.report import charts
from gen.report import format as fmt
from gen.report.pages import decision

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def test_table_follows_the_advice(h200_new):
    a = advice.advice(h200_new)
    rows = decision.table_rows(h200_new)
    default, *exceptions = rows
    assert default["variant"] == a.default
    assert [(r["variant"]) for r in exceptions] == [e.variant for e in a.exceptions]
    auto = variant_role("automatic")
    for r, e in zip(exceptions, a.exceptions):
        v = verdicts.verdict(h200_new, e.scenario, e.mode)
        gain = v.spread(v.row(auto)).median / v.spread(v.row(e.variant)).median
        assert r["gain"].startswith(f"{gain:.2f}×"), r
        assert r["call"] == fmt.label_of(e.variant)
        if e.compile_s is not None:
            assert f"({e.compile_s:.2f} s)" in r["condition"]  # as every page gives a compile (words.first_calls.secs)


def test_chart_marks_each_workloads_recommended_call(h200_new):
    a = advice.advice(h200_new)
    rows = decision.chart_rows(h200_new)
    picks = {(e.scenario, str(e.mode)): e.variant for e in a.exceptions}
    by_workload: dict[str, list[dict]] = {}
    for r in rows:
        by_workload.setdefault(r["workload"], []).append(r)
    for rs in by_workload.values():
        (rec,) = [r for r in rs if r["role"] == charts.RECOMMENDED]
        assert rec["rel"] == pytest.approx(1.0)
        assert all(r["rel_lo"] <= r["rel"] <= r["rel_hi"] for r in rs)
        assert all(r["ci_lo_ms"] <= r["median_ms"] <= r["ci_hi_ms"] for r in rs)
    recommended = {r["variant"] for r in rows if r["role"] == charts.RECOMMENDED}
    assert recommended == {fmt.label_of(a.default)} | {fmt.label_of(v) for v in picks.values()}


def test_one_point_chart_becomes_a_table_row(h200_new):
    f = decision.facts(h200_new)
    assert decision.view(f)["chart"] is not None
    one = dict(f, rows=f["rows"][:1])
    v = decision.view(one)
    assert v["chart"] is None and v["table"] == f["table"]  # the table holds what the chart would
    spec = charts.decision(pd.DataFrame(f["rows"][:1]), "x").to_dict(validate=False)
    assert charts.one_point(spec)
    assert not charts.one_point(charts.decision(pd.DataFrame(f["rows"][:2]), "x")
                                .to_dict(validate=False))
    assert charts.one_point({"data": {"values": [{"a": 1}]}}) and not charts.one_point(
        {"layer": [{"data": {"values": [{"a": 1}, {"a": 2}]}}]})


@pytest.mark.parametrize("text", ['</title><script>alert("x")</script> & co. More after.', "a\nb\u2028c"])
def test_meta_description_is_escaped_yaml(text):
    out = fmt.meta_description(text)
    value = yaml.safe_load(f"description: {out}\n")["description"]
    assert "<" not in value and '"' not in value and "\n" not in value
    assert html.unescape(value).startswith(" ".join(fmt.printable(text).split()).split(". ")[0])
    assert len(fmt.meta_description("word " * 100)) <= fmt.DESCRIPTION_CHARS + 20


def test_pages_carry_description_and_open_graph(built_site):
    site = built_site().site
    for page in ("index.html", f"generated/sets/{LEAD}.html", "methodology.html"):
        text = (site / page).read_text(encoding="utf-8")
        head = text.split("</head>", 1)[0]
        metas = dict(re.findall(r'<meta (?:name|property)="([^"]+)" content="([^"]*)"', head))
        for key in ("description", "og:title", "og:description", "og:type"):
            assert metas.get(key), (page, key)
        assert metas["og:description"] == metas["description"]
    lead = (site / f"generated/sets/{LEAD}.html").read_text(encoding="utf-8")
    assert '<meta property="og:title" content="NVIDIA H100 80GB HBM3 · PyTorch 2.11.0">' in lead
    assert re.search(r"<meta name=\"description\" content=\"On this GPU [^\"]*: call ", lead)
    # no site_url unless the publisher gives one: no canonical link to an origin the site is not at
    assert 'rel="canonical"' not in lead and "og:url" not in lead


def test_mkdocs_config_asks_for_search_and_site_url():
    from tests.site_server import ROOT

    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "- search.suggest" in text and "- search.highlight" in text
    assert re.search(r"^site_url: !ENV \[REPORT_SITE_URL, null\]$", text, re.M)
    assert re.search(r"^  /matrix\.md$", text, re.M)  # not in the navigation: linked from the home page


def test_lead_first_screen_facts_are_json(h200_new):
    """The home page reads the first screen from the build's cache: plain data only."""
    json.dumps(decision.facts(h200_new))


def test_a_default_within_noise_of_the_fastest_reads_within_noise_whichever_leads_by_its_median():
    """Two kernels whose intervals overlap lead by turns from one capture to the next (benchmarks/
    verdict_repeat.md): the default's standing there is "within noise" whether or not its median is first."""
    from gen.analysis import tables
    from tests.conftest import RESULTS

    lead = tables.load_set(RESULTS / LEAD)
    a = advice.advice(lead)
    seen = 0
    for p in a.picks:
        v = verdicts.verdict(lead, p.scenario, p.mode)
        if v.near and a.default in {v.fastest.variant, *v.near, *v.same_kernel}:
            assert p.outcome == "within noise", (p.scenario, p.mode, p.outcome)
            seen += 1
        elif v.rank(a.default) == 1:
            assert p.outcome == "fastest", (p.scenario, p.mode, p.outcome)
    assert seen >= 1  # the lead set has such a scenario (decode: FA4 and the FLASH backend)
