"""The dynamic-lengths scenario on the site (issue 31, section 2): built from the committed H100 set (schema 4),
its page shows per variant the first call at each new length, the steady call, the calls per length to break
even and the switch probed; every number on it is the set's; a set without the scenario has no such page."""

from __future__ import annotations

import json
import re

import pytest

from gen.analysis import dynamic as dyn
from gen.analysis import rules, tables
from gen.model import schema
from gen.report import format as fmt
from gen.report.words import dynamic as dynamic_words
from gen.report.words import scenario_first as first_words
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
        # every break-even is taken length by length after both warm-ups (the warm-up is paid once, not per
        # length) against the fastest once warm at the same length, never from medians over mixed lengths
        best = pf.steady_best
        theirs = {x.kv_len: (x.cost_ms, x.steady_ms) for x in best.per_length}
        for f in pf.break_even:
            assert pf.wins(f.variant)
            mine = {x.kv_len: (x.cost_ms, x.steady_ms) for x in f.per_length}
            for o in pf.per_length[f.variant]:
                (ob, sb), (ov, sv) = theirs[o.kv_len], mine[o.kv_len]
                if o.kind == dyn.UP_TO:
                    assert o.calls == pytest.approx((ob - ov) / (sv - sb)) and sv > sb
                elif o.kind == dyn.ALWAYS:
                    assert sv <= sb * (1 + rules.LOOP_CALL_NOISE) and ov <= ob + rules.NEW_LENGTH_NOISE_MS
            assert f.break_even_calls == dyn.least_up_to(pf.per_length[f.variant])
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
        cost, calls = (json.loads(_unescape(x)) for x in re.findall(r"data-spec='([^']*)'", section)[:2])
        # first, what each new length cost (review 2026-12-07-1: cuDNN's tens of ms against the others' tenths), every
        # length the set's facts give past the warm-ups, a mark each where the cost is above zero (a log axis)
        costs = dyn.new_length_rows(pf)
        drawn = next(iter(cost["datasets"].values()))
        assert sorted((d["series"], d["kv_len"], d["ms"]) for d in drawn) == sorted(
            (fmt.label_of(r["variant"]), r["kv_len"], round(r["ms"], 6)) for r in costs if r["ms"] > 0)
        assert all(r["variant"] not in {w.variant for w in pf.warm_cache} for r in costs)  # no cost measured: left out
        assert section.index('class="vega-chart"') < table  # that chart is the one above the table
        dropped = sum(1 for r in costs if not r["ms"] > 0)
        assert fmt.md(first_words.new_length_note(dropped, [fmt.label_of(w.variant) for w in pf.warm_cache])) in section
        # then each call against length, first, steady and GPU-only
        drawn = next(iter(calls["datasets"].values()))
        assert {(d["kv_len"], d["call"]) for d in drawn} == {
            (r["kv_len"], r["call"]) for r in dyn.length_rows(rs, phase)}


def test_the_switch_probe_is_on_the_page_with_its_numbers(site, rs):
    text = _page(site, fmt.set_scenario_page(H100, "dynamic-lengths"))
    (sw,) = dyn.switch_facts(rs)
    assert "## Switch probed: " + fmt.md(sw.name) in text
    assert fmt.ms(sw.median_with_ms) in text and fmt.ms(sw.median_without_ms) in text
    # what each length measured, not the capture's "no effect" (review 2026-12-07-1 item 10)
    assert fmt.md(dynamic_words.switch_measured(sw)) in text


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


def _facts(variant, per_length, steady=1.0, gpu=None, mask=None):
    """A run's facts from (kv_len, new-length cost ms, warm call ms) per length."""
    return dyn.DynamicFacts(variant=variant, phase="prefill", status="ok", reason=None, env=(), lengths=len(per_length),
                            first_overhead_ms=None, steady_ms=steady, break_even_calls=None, first_median_ms=None,
                            first_total_ms=None, first_max_ms=None, kv_lens=tuple(kv for kv, _, _ in per_length),
                            gpu_median_ms=gpu, mask_median_ms=mask,
                            per_length=tuple(dyn.NewLength(*x) for x in per_length))


def test_break_evens_are_taken_length_by_length_against_the_same_length():
    """Review 2026-12-06 item 4: a median over lengths mixes short and long calls. At each length: cheaper at any
    count (new length and warm call no dearer), up to n calls, past n calls, or never; new-length costs within
    rules.NEW_LENGTH_NOISE_MS count as equal."""
    best = _facts("cudnn", [(1000, 37.0, 0.05), (2000, 37.0, 0.10), (3000, 37.0, 0.15), (4000, 0.03, 0.2)])
    f = _facts("fa4", [(1000, 0.02, 0.13), (2000, 0.02, 0.12), (3000, 0.02, 0.14), (4000, 0.05, 0.3),
                       (5000, 0.01, 0.1)])
    got = dyn.outcomes(f, best)
    assert [o.kind for o in got] == [dyn.UP_TO, dyn.UP_TO, dyn.ALWAYS, dyn.NEVER]  # 5000: no partner length
    assert got[0].calls == pytest.approx((37.0 - 0.02) / (0.13 - 0.05))
    assert got[1].calls == pytest.approx((37.0 - 0.02) / (0.12 - 0.10))
    past = dyn.outcomes(_facts("x", [(1000, 40.0, 0.01)]), best)[0]
    assert past.kind == dyn.BEYOND and past.calls == pytest.approx(3.0 / 0.04)
    assert dyn.least_up_to(got) == pytest.approx(got[0].calls)
    # warm calls within rules.LOOP_CALL_NOISE count as equal: no break-even out of a few tenths of a microsecond
    near = _facts("flash", [(1000, 0.01, 0.05 * (1 + rules.LOOP_CALL_NOISE / 2))])
    assert dyn.outcomes(near, best)[0].kind == dyn.ALWAYS


def test_the_per_length_cell_groups_lengths_by_outcome():
    from gen.report.words import dynamic as dynamic_words

    outs = (dyn.LengthOutcome(1001, dyn.UP_TO, 492.0), dyn.LengthOutcome(1537, dyn.UP_TO, 442.4),
            dyn.LengthOutcome(3001, dyn.ALWAYS), dyn.LengthOutcome(4099, dyn.ALWAYS),
            dyn.LengthOutcome(8209, dyn.NEVER))
    want = "up to 442–491 calls (1,001–1,537), any number (3,001–4,099), never (8,209)"
    assert dynamic_words.per_length(outs) == want
    assert dynamic_words.per_length(()) == fmt.DASH
    # outcomes that alternate from length to length are counted by kind, not listed run by run
    flip = tuple(dyn.LengthOutcome(4096 + i, dyn.ALWAYS if i % 2 else dyn.UP_TO, 5000.0 + i) for i in range(8))
    assert dynamic_words.per_length(flip) == ("any number at 4 of 8 lengths, up to 4,999–5,005 calls at 4 "
                                              "(the outcome alternates from length to length)")


def test_a_loop_that_waits_on_the_host_is_said_so_with_the_kernels_order_beside():
    """Review 2026-12-06 item 4: at decode every warm loop call is the host's dispatch; where the set records each
    length's GPU-only time, the page says the loop's order is the host's and names the fastest kernel."""
    from gen.report.words import dynamic as dynamic_words

    a = _facts("sdpa_cudnn", [(4096, 33.0, 0.048)], steady=0.048, gpu=0.010)
    b = _facts("fa4", [(4096, 0.01, 0.13)], steady=0.13, gpu=0.008)
    pf = dyn.PhaseFacts(phase="decode", measured=[a, b], not_measured=[], steady_best=a, first_best=b,
                        break_even=[])
    text = dynamic_words.host_note(pf)
    assert "waited on the host" in text and "4.8–16.2×" in text and "FlashAttention-4" in text.split("fastest")[0]
    a2 = _facts("sdpa_cudnn", [(4096, 33.0, 0.048)], steady=0.011, gpu=0.010)
    text = dynamic_words.host_note(dyn.PhaseFacts("decode", [a2, b], [], a2, b, []))
    assert "waited" not in text and "By GPU-only time" in text
    none = dyn.PhaseFacts("decode", [_facts("x", [])], [], None, None, [])
    assert dynamic_words.host_note(none) is None and "not recorded" in dynamic_words.gpu_missing(none)


def test_the_block_mask_built_per_length_is_counted_in_what_a_new_length_costs():
    """Review 2026-12-06 item 5: FlexAttention's block mask is built at every new prompt length by a server that
    meets it; it is part of the new length's cost (not the harness's module), and the page says how much."""
    from gen.report.words import dynamic as dynamic_words

    c = schema.LengthCost(q_len=16, kv_len=16, build_ms=7.0, mask_ms=5.0, first_ms=0.30, second_ms=0.28)
    assert dyn.excess(c) == pytest.approx(5.02)
    f = _facts("flex", [(16, 5.02, 0.1)], mask=5.0)
    f = dyn.DynamicFacts(**{**f.__dict__, "first_overhead_ms": 5.02})
    text = dynamic_words.mask_note(dyn.PhaseFacts("prefill", [f], [], f, f, []))
    assert "create_block_mask" in text and fmt.ms(5.0) in text and fmt.ms(5.02) in text
    assert dynamic_words.mask_note(dyn.PhaseFacts("prefill", [_facts("fa4", [])], [], None, None, [])) is None


def test_the_chart_draws_gpu_only_times_only_where_a_set_has_them():
    from gen.report import charts

    rows = [dict(variant="fa4", kv_len=kv, call=call, ms=ms) for kv in (1000, 2000)
            for call, ms in (("first call", 0.3), ("steady call", 0.1))]
    spec = charts.dynamic_lengths(rows, "length").to_dict()
    assert "GPU-only" not in json.dumps(spec)
    rows += [dict(variant="fa4", kv_len=kv, call="GPU-only", ms=0.05) for kv in (1000, 2000)]
    spec = json.dumps(charts.dynamic_lengths(rows, "length").to_dict())
    assert '"GPU-only"' in spec and '"triangle"' in spec


def test_a_run_that_costs_less_only_past_some_calls_is_named_where_none_breaks_even():
    """Review 2026-12-06-7 item 6: the decode prose said no variant breaks even with SDPA flash while its table gave
    SDPA cuDNN 'past 2,335–21,663 calls (4,122–4,127)'. A run that costs less only past some calls at some lengths
    is named with the fewest such calls, its lengths and its warm calls beside the reference's there."""
    from gen.report.words import dynamic as dynamic_words

    best = _facts("sdpa_flash", [(1, 0.05, 0.06), (2, 0.05, 0.06), (3, 0.05, 0.06), (4, 0.05, 0.07)], steady=0.06)
    best = dyn.DynamicFacts(**{**best.__dict__, "first_overhead_ms": 0.05, "phase": "decode"})
    slow = _facts("sdpa_cudnn", [(1, 50.0, 0.09), (2, 50.0, 0.10), (3, 36.0, 0.05), (4, 36.0, 0.04)], steady=0.09)
    slow = dyn.DynamicFacts(**{**slow.__dict__, "first_overhead_ms": 50.0, "phase": "decode"})
    per = {"sdpa_cudnn": dyn.outcomes(slow, best)}
    pf = dyn.PhaseFacts("decode", [best, slow], [], best, best, [], per_length=per)
    [o] = pf.overtakers()
    want = dyn.PhaseFacts.calls_past((36.0 - 0.05) / (0.07 - 0.04))  # length 4's: fewer than length 3's 3,596
    assert (o.variant, o.kv_lens, o.fewest_calls, o.other_lengths, o.together) == ("sdpa_cudnn", (3, 4), want, 2, True)
    assert o.warm_ms == (0.04, 0.05) and o.best_warm_ms == (0.06, 0.07) and o.other_warm_ms == (0.09, 0.10)
    text = dynamic_words.headline(pf)
    assert f"no variant breaks even with it below {want:,} calls a length" in text
    assert "SDPA cuDNN costs less past" in text and "3–4 tokens" in text
    # with no such run the sentence stays the plain one
    never = dyn.PhaseFacts("decode", [best], [], best, best, [])
    assert never.overtakers() == [] and "no variant breaks even with it." in dynamic_words.headline(never)


def test_the_decode_prose_follows_its_tables_past_counts(site, rs):
    """On the committed H100 set: the decode headline's 'below N calls' is the fewest 'past' count in the table."""
    pf = dyn.phase_facts(rs, "decode")
    over = pf.overtakers()
    assert over and over[0].variant == "sdpa_cudnn"
    page = _page(site, fmt.set_scenario_page(H100, "dynamic-lengths"))
    n = over[0].fewest_calls
    assert f"past {n:,}" in page and f"no variant breaks even with it below {n:,} calls a length" in page
    assert "no variant breaks even with it." not in page
