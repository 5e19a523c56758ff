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


def test_phase_facts_rank_by_the_steady_cost_and_break_even_on_the_per_length_cost(rs):
    for phase in dyn.phases(rs):
        pf = dyn.phase_facts(rs, phase)
        steady = [f.steady_ms for f in pf.measured]
        # the fastest once warm of the runs whose first calls were measured cold (review2 N2)
        cold = [f for f in pf.measured if not pf.cache_warmed(f.variant)]
        assert steady == sorted(steady) and pf.steady_best is cold[0]
        assert all(f.ok and not f.switched for f in pf.measured)
        # every break-even the page names is taken on the per-length costs after the warm-up (the warm-up is
        # paid once, not per length) against the fastest once warm, and means at least one whole call
        best = pf.steady_best
        for f in pf.break_even:
            assert f.break_even_calls == pytest.approx(
                (best.first_overhead_ms - f.first_overhead_ms) / (f.steady_ms - best.steady_ms))
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
        # the sentences come after the picture and the table (pictures first)
        assert table < section.index("**Once warm") < folded
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
    from gen.report.words import dynamic as dynamic_words

    return fmt.md(dynamic_words.PHASE_TITLE[phase])


def _unescape(text: str) -> str:
    import html

    return html.unescape(text)


def test_a_set_without_the_scenario_has_no_facts():
    ls = tables.load_set(RESULTS / H200)
    assert not dyn.has_dynamic(ls.rs) and dyn.phases(ls.rs) == []


def test_the_build_at_each_new_length_is_its_median_over_the_measured_lengths():
    """A block mask or a mask tensor built at every new length is a per-length cost beside the first call:
    the facts carry its median over the lengths whose first call was measured, and none where none was."""
    def cost(kv, build, first):
        return schema.LengthCost(q_len=kv, kv_len=kv, build_ms=build, first_ms=first, second_ms=1.0,
                                 steady_ms=1.0 if first is not None else None)

    run = schema.DynamicRun(variant="flex", phase="prefill", status="ok", point=schema.Point(
        batch=1, q_heads=4, kv_heads=4, head_dim=16, q_len=16, kv_len=16, mask="causal"),
        lengths=[cost(16, 9.0, 900.0), cost(17, 2.0, 3.0), cost(24, 4.0, 2.0), cost(33, 50.0, None)],
        steady_ms=1.0, first_overhead_ms=1.0)
    f = dyn._facts(run)
    assert f.build_median_ms == pytest.approx(4.0) and f.first_max_ms == pytest.approx(900.0)
    run.lengths = [cost(16, 9.0, None)]
    assert dyn._facts(run).build_median_ms is None


def test_a_runs_warm_up_is_paid_once_and_its_per_length_cost_is_taken_after_it():
    """A compiled function compiles at its first lengths and recompiles for dynamic shapes, then costs little a
    length: the leading lengths above rules.WARMUP_FACTOR x what the run settles at are its warm-up, paid once,
    and the per-length cost is the median after them. A cost paid at every length (cuDNN's plan) is no warm-up."""
    from gen.analysis import rules

    n, per, once = dyn.warmup([3500.0, 1400.0, 1400.0, 0.5, 0.6, 0.8])
    assert n == 3 and per == pytest.approx(0.6) and once == pytest.approx(6300.0 - 3 * 0.6)
    n, per, once = dyn.warmup([37.0, 36.5, 38.0, 36.9, 37.2, 37.1])
    assert (n, once) == (0, 0.0) and per == pytest.approx(37.05)
    # below the floor an overhead is noise, never a warm-up
    n, _, _ = dyn.warmup([rules.WARMUP_FLOOR_MS * 0.9, 0.01, 0.01, 0.01])
    assert n == 0
    assert dyn.warmup([]) == (0, None, None)
    # never every length: the last one is always a per-length cost
    assert dyn.warmup([5000.0, 1.0])[0] == 1


def test_the_page_says_what_compiled_variants_paid_once_and_then_per_length(site, rs):
    """FlexAttention (one compiled function across lengths) and FA4 (its per-configuration cache) ran the
    scenario: the page names their warm-up in seconds beside their per-length cost, from the set's facts."""
    text = _page(site, f"generated/sets/{H100}/scenarios/dynamic-lengths.md")
    pf = dyn.phase_facts(rs, "prefill")
    paid = [f for f in pf.measured if f.warmup_lengths and f.warmup_ms >= 100]
    assert {f.variant for f in paid} >= {"flex", "flex_flash", "fa4"}
    for f in paid:
        assert f"{f.warmup_ms / 1e3:.2f} s" in text
        assert fmt.ms(f.first_overhead_ms) in text
    assert "Paid once" in text and "not run: the capture" not in text


def test_a_new_lengths_cost_is_its_first_call_against_its_second_on_the_same_clock():
    """The first and second calls are both wall-clock times with the GPU drained; the steady call is CUDA events in
    a loop: first minus steady would read the constant offset between the two clocks as a cost (review
    2026-12-06 item 12). The harness's build (a module, a block mask) is not a first-call cost either."""
    c = schema.LengthCost(q_len=16, kv_len=16, build_ms=5.0, first_ms=0.30, second_ms=0.28, steady_ms=0.13)
    assert dyn.excess(c) == pytest.approx(0.02)
    assert dyn.excess(schema.LengthCost(q_len=16, kv_len=16, first_ms=0.30, steady_ms=0.13)) == pytest.approx(0.17)
    assert dyn.excess(schema.LengthCost(q_len=16, kv_len=16, first_ms=None, second_ms=0.2)) is None
