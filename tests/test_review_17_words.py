"""Review 2026-12-07-8 (review 17) items 5 and 7: a reason cut short keeps its verdict ("not measured (…)"), and
one timing of a BlockMask build is printed to three significant figures wherever it is printed."""

from __future__ import annotations

import re

from gen.analysis import advice, length_cost, verdicts
from gen.report import units
from gen.report.pages import decision as decision_page
from gen.report.pages import dynamic as dynamic_page
from gen.report.pages import scenario_first as first_page
from gen.report.words import capture as capture_words
from gen.report.words import decision as decision_words
from gen.report.words import lengths_beside as lengths_words
from gen.report.words import scenarios as scenario_words
from gen.report.words.common import NOT_MEASURED, kept_status, label, one_timing, us
from tests.conftest import H100_PAIRED, bracket_depth

# --------------------------------------------------------------------------- item 5: a cut reason keeps its verdict


def test_a_reason_cut_short_keeps_its_status():
    long = ("not run: the compiled naive product holds a mask of one length, so every new length is a new module and "
            "a new compile, which no server would do; not measured")
    got = kept_status(long)
    assert got == "not measured (the compiled naive product holds a mask of one length…)"
    assert kept_status("not run: too big") == "not measured (too big)"
    assert kept_status(None) == NOT_MEASURED


def test_the_paired_dynamic_page_says_the_compiled_naive_product_was_not_measured(loaded):
    ls = loaded[H100_PAIRED]
    for phase in ("prefill", "decode"):
        view = dynamic_page.phase_view(ls, phase)
        assert view["nothing"] and f"{label('naive_compiled')}: not measured (" in view["nothing"], view["nothing"]
        assert bracket_depth(view["nothing"]) == 1
    # the sibling's trade beside it, brackets one deep (item 5's first half: "(in decode its warm call is faster too
    # (54.2 µs against 91.2 µs))")
    beside = units.lengths_beside(list(loaded.values()), ls)
    for phase in ("prefill", "decode"):
        said = dynamic_page.phase_view(ls, phase, beside)["beside"]
        assert bracket_depth(said) == 1 and "its warm call" in said, said
    b = length_cost.beside(loaded[beside.name], "t")
    f = b.flash_trade("decode").flash_ms
    trade = lengths_words.flash_trade(b)
    assert f"in decode its warm call takes {us(f)}," in trade or f"its warm call is faster too, {us(f)}" in trade
    runs = [r for r in ls.rs.dynamic if r.variant == "naive_compiled"]
    assert runs and all(r.status != "ok" for r in runs)  # the premise: it measured nothing
    assert capture_words.nothing_measured([], None, label) == "Nothing measured: no variant ran at any length."


# --------------------------------------------------------------------------- item 7: one timing, three figures


def test_one_timing_has_three_significant_figures():
    assert [one_timing(x) for x in (12.647, 8.317, 13.595, 8.947, 0.5123, 99.96, 0.99996)] == [
        "12.6 ms", "8.32 ms", "13.6 ms", "8.95 ms", "512 µs", "100 ms", "1.00 ms"]
    assert scenario_words.FACT_WORDS["block_mask_build_s"][1](0.012647) == one_timing(12.647)


def test_every_blockmask_build_is_printed_as_one_timing(loaded):
    seen = 0
    for ls in loaded.values():
        a = advice.advice(ls)
        if a is None:
            continue
        text = " ".join([*(f"{r['condition']} {r.get('detail') or ''}" for r in decision_page.table_rows(ls)),
                         *decision_words.advice(a).lines,
                         *(n for name in verdicts.scenarios(ls) if (got := first_page.facts(ls, name))
                           for r in got["rows"] for n in r["notes"])])
        for e in a.exceptions:
            builds = [m.build_ms for m in (e.mask_cost,) if m is not None and m.build_ms] + \
                ([e.mask_build_s * 1e3] if e.mask_build_s else [])
            for ms in builds:
                seen += 1
                assert one_timing(ms) in text and us(ms) not in text, (ls.name, ms)
    assert seen >= 3  # paired and H200 packed documents, the older set's sliding window
    for n in re.findall(r"(?:BlockMask|block mask)[^.;]*? (\d+\.\d+) ms", text):
        assert len(n.replace(".", "").lstrip("0")) <= 3, n
