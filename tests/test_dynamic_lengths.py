"""The dynamic-lengths scenario on the site (issue 31, section 2): built from the committed H100 set (schema 4),
its page shows per variant the first call at each new length, the steady call, the calls per length to break
even and the switch probed; every number on it is the set's; a set without the scenario has no such page."""

from __future__ import annotations

import json
import re

import pytest

from gen.analysis import dynamic as dyn
from gen.analysis import tables
from gen.model import schema
from gen.report import format as fmt
from tests.conftest import RESULTS

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def rs():
    return schema.load_set(RESULTS / H100)


@pytest.fixture(scope="module")
def site(gpu_docs):
    return gpu_docs


def _page(site, path: str) -> str:
    return (site / path).read_text()


def test_phase_facts_rank_by_the_steady_cost_and_keep_the_capture_break_even(rs):
    for phase in dyn.phases(rs):
        pf = dyn.phase_facts(rs, phase)
        steady = [f.steady_ms for f in pf.measured]
        # the fastest once warm of the runs whose first calls were measured cold (review2 N2)
        cold = [f for f in pf.measured if not pf.cache_warmed(f.variant)]
        assert steady == sorted(steady) and pf.steady_best is cold[0]
        assert all(f.ok and not f.switched for f in pf.measured)
        # every break-even the page names is the capture's where the capture's baseline was the same run, and
        # means at least one whole call
        for f in pf.break_even:
            run = next(r for r in rs.dynamic if r.variant == f.variant and r.phase == phase and not r.env)
            if pf.steady_best is pf.measured[0]:
                assert f.break_even_calls == pytest.approx(run.break_even_calls)
            assert dyn.PhaseFacts.calls_below(f.break_even_calls) >= 1
    assert dyn.PhaseFacts.calls_below(1.19) == 1 and dyn.PhaseFacts.calls_below(1.0) is None
    assert dyn.PhaseFacts.calls_below(1363.36) == 1363 and dyn.PhaseFacts.calls_below(None) is None


def test_the_switch_is_set_against_the_same_variant_and_phase_without_it(rs):
    (sw,) = dyn.switch_facts(rs)
    with_ = next(r for r in rs.dynamic if r.env)
    without = next(r for r in rs.dynamic if not r.env and r.variant == with_.variant and r.phase == with_.phase)
    assert [p["with_ms"] for p in sw.pairs] == [c.first_ms for c in with_.lengths]
    assert [p["without_ms"] for p in sw.pairs] == [c.first_ms for c in without.lengths]
    assert sw.effect == rs.switches[0].effect


def test_the_set_page_shows_chart_then_table_then_reasoning_for_each_phase(site, rs):
    text = _page(site, fmt.set_scenario_page(H100, "dynamic-lengths"))
    for phase in dyn.phases(rs):
        section = text.split(f"## {dyn_title(phase)}")[1].split("\n## ")[0]
        chart, table, folded = (section.index('class="vega-chart"'), section.index("| Variant |"),
                                section.index("??? note"))
        assert chart < table < folded
        pf = dyn.phase_facts(rs, phase)
        for f in pf.measured:  # each measured variant's steady and overhead, as the set holds them
            name = fmt.md(fmt.label_of(f.variant))
            row = next(line for line in section.splitlines()
                       if line.startswith((f"| {name} |", f"| {name} ★ |")))
            assert fmt.ms(f.steady_ms) in row and fmt.ms(f.first_overhead_ms) in row
        for f in pf.not_measured:  # FA4 and the compiled variants were not run: named, with the recorded reason
            assert fmt.md(fmt.label_of(f.variant)) in section
            assert fmt.md(f.reason) in section
        spec = json.loads(_unescape(re.search(r"data-spec='([^']*)'", section).group(1)))
        drawn = next(iter(spec["datasets"].values()))
        assert {(d["kv_len"], d["call"]) for d in drawn} == {
            (r["kv_len"], r["call"]) for r in dyn.length_rows(rs, phase)}


def test_the_switch_probe_is_on_the_page_with_its_numbers(site, rs):
    text = _page(site, fmt.set_scenario_page(H100, "dynamic-lengths"))
    (sw,) = dyn.switch_facts(rs)
    assert "## Switch probed: " + fmt.md(sw.name) in text
    assert fmt.ms(sw.median_with_ms) in text and fmt.ms(sw.median_without_ms) in text
    assert fmt.md(sw.effect) in text


def test_the_site_lists_the_scenario_and_a_set_without_it_has_no_page(site):
    # one set ran it: the index links the set's own page, and no page over every set is made (issue 33; the
    # rule: tests/test_one_row_pages.py)
    index = _page(site, "generated/scenarios/index.md")
    assert f"(../sets/{H100}/scenarios/dynamic-lengths.md)" in index
    assert not (site / "generated/scenarios/dynamic-lengths.md").exists()
    assert not (site / fmt.set_scenario_page(H200, "dynamic-lengths")).exists()
    set_page = _page(site, fmt.set_page(H100))
    assert "scenarios/dynamic-lengths.md" in set_page
    assert "generated/scenarios/dynamic-lengths.md" not in (site / "generated" / ".nav.yml").read_text()


def dyn_title(phase: str) -> str:
    from gen.report import wording_dynamic

    return fmt.md(wording_dynamic.PHASE_TITLE[phase])


def _unescape(text: str) -> str:
    import html

    return html.unescape(text)


def test_a_set_without_the_scenario_has_no_facts():
    ls = tables.load_set(RESULTS / H200)
    assert not dyn.has_dynamic(ls.rs) and dyn.phases(ls.rs) == []
