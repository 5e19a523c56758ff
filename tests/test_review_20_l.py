"""Review 2026-12-07-11 (review 20), Part 1 items 4, 7 and 9: one figure of ours per call and shape on the FP8 page
(tests/test_review_18_e.py), one precision for one quantity, no source file named in reader text, one convention for
a clock gap, and brackets one deep in reader sentences. Checked on the words' producers and on the pages gen build
makes of results/ (conftest.results_docs)."""

from __future__ import annotations

import html
import re

import pytest

from gen.report import format as fmt
from gen.report.words import first_screen as screen_words
from gen.report.words import scenarios as scenario_words
from gen.report.words.common import range_beside

# --------------------------------------------------------------------------- one precision for one range


def test_a_ratio_range_beside_a_line_gives_both_ends_one_precision():
    # two decimals, as every ratio of a range (the cell above it: "1.00–21.56×"); the line in words where the upper
    # end would read as it (review 24 #10: "1.000–1.196×" beside "1.00–21.56×"; before, "1.00–1.196×")
    assert range_beside(1.0, 1.1961, 1.2) == "1.00× to just under 1.2×"
    assert range_beside(1.0, 1.1, 1.2) == "1.00–1.10×"
    assert range_beside(1.1, 1.1001, 1.2) == "1.10×"
    said = screen_words.bar_cleared(["sliding windows"], True, [1.0, 1.1961])
    assert "1.00× to just under 1.2× in 2 others" in said and "1.20×" not in said


def test_an_interval_gives_both_ends_one_precision():
    assert fmt.span((0.406, 0.4067)) == "0.4060–0.4067"
    assert fmt.span((1.1, 1.102)) == "1.100–1.102"
    assert fmt.span((2.997, 3.0)) == "2.997–3.000"
    assert fmt.span((9.901, 10.06)) == "9.901–10.060"
    assert fmt.span((1.06, 1.07)) == "1.060–1.070" and fmt.span((0.0958, 0.1)) == "0.0958–0.1000"
    assert fmt.span((float("nan"), 1.0)) == fmt.DASH


# --------------------------------------------------------------------------- no source file in reader text


def test_the_fp8_rate_is_named_in_words():
    class Rate:
        flops_per_clk_per_sm = 8192

    for said in (scenario_words.fp8_sol(Rate()), scenario_words.fp8_sol(None)):
        assert ".py" not in said and "datasheet figures" in said
    assert "8192 FP8 FLOP per clock per SM" in scenario_words.fp8_sol(Rate())


# --------------------------------------------------------------------------- the pages as built


def _prose(text: str) -> str:
    """A Markdown page's reader text: code spans and blocks, chart specs and tags left out."""
    text = re.sub(r"(?s)<(script|style|code|pre)\b.*?</\1>", " ", text)
    text = re.sub(r"(?s)```.*?```", " ", text)
    text = re.sub(r"`[^`\n]*`", " ", text)
    text = re.sub(r'(?s)data-spec="[^"]*"', " ", text)
    text = re.sub(r"(?s)<[^>]+>", " ", text)
    return " ".join(html.unescape(text).replace("\\", "").split())


@pytest.fixture(scope="module")
def prose(results_docs) -> dict[str, str]:
    return {p.relative_to(results_docs).as_posix(): _prose(p.read_text(encoding="utf-8"))
            for p in sorted((results_docs / "generated").rglob("*.md"))}


MIXED_RANGE = re.compile(r"(?<![\d.])(\d+)\.(\d+)–(\d+)\.(\d+)(?![\d.])")


def test_no_range_on_the_pages_mixes_precisions(prose):
    seen = 0
    for path, text in prose.items():
        for m in MIXED_RANGE.finditer(text):
            seen += 1
            assert len(m.group(2)) == len(m.group(4)), f"{path}: {m.group(0)}"
    assert seen > 100


# a source's own file named where its figures come from (the FA3 paper's benchmark script in its repository) is a
# citation, not this report's code
CITED = re.compile(r"benchmarks/benchmark_flash_attention\.py in the same repository")


def test_no_source_file_of_the_report_is_named_in_reader_text(prose):
    for path, text in prose.items():
        named = re.findall(r"[\w/]+\.py\b", CITED.sub(" ", text))
        assert not named, f"{path}: {named}"


# --------------------------------------------------------------------------- one convention for a clock gap


def test_a_clock_gap_is_the_higher_clock_over_the_lower_less_one():
    from gen.analysis import rules
    from gen.report.words import sum_clocks

    assert rules.clock_gap_pct(1980, 1860) == pytest.approx((1980 / 1860 - 1) * 100)  # 6.45%, not 6.06%
    assert rules.clock_gap_pct(1860, 1980) == rules.clock_gap_pct(1980, 1860)
    assert sum_clocks.apart(1980, 1860) == "6.5%"  # beside "that gap can explain up to 1.065×"
    assert rules.clock_gap_pct(None, 1980) is None and rules.clock_gap_pct(0, 1980) is None
    # the gate in the same measure: 5% is a clock ratio of 1.05
    assert not rules.clocks_apart(1049.9, 1000) and rules.clocks_apart(1051, 1000) and not rules.clocks_apart(None, 1)
    assert rules.clocks_apart(1975, 1880)  # 5.05% apart; 4.8% of the higher, as gaps were read before
    # "within 5% of the maximum" too: 1885 MHz is 5.04% below 1980 as the gate reads a gap
    assert not rules.clock_near_max(1885, 1980) and rules.clock_near_max(1890, 1980)
    assert rules.clock_near_max(1990, 1980)


# every gap in its one form (review 24 #10): "... taken with X's clock 6.5% higher (1980 against 1860 MHz) and leading
# by 1.38×, more than the 1.065× that gap can explain"; "... taken with X's clock 6.5% higher (...; their 1.02× lead
# is inside the 1.065× that a 6.5% clock gap can explain)"; "X's sums at 1950 against 1845 MHz, its clock 5.7% higher"
_EXPLAINS = re.compile(r"clock (\d+(?:\.\d)?)% higher[^.]*?(?:the|up to) (\d\.\d{3})× (?:that gap can explain)?")
_PAIR = re.compile(r"(\d{3,4}) against (\d{3,4}) MHz, its clock (\d+(?:\.\d)?)% higher")
# "FlashAttention-4's clock 12% higher (1755 against 1965 MHz"; "sums at 1755 against 1965 MHz, FlashAttention-4's clock
# 12% higher": the gap and the two clocks it is taken of, in either order
_LOWER = re.compile(r"'s? clock (\d+(?:\.\d)?)% higher[ ,(]+(\d{3,4}) against (\d{3,4}) MHz|"
                    r"at (\d{3,4}) against (\d{3,4}) MHz, [^;.()]*?'s? clock (\d+(?:\.\d)?)% higher")


def _close(pct: str, gap: float) -> bool:
    # the clocks on the page are whole MHz: a tenth's leeway for a tenth, a half for a whole percent
    return abs(float(pct) - gap) <= (0.1 if "." in pct else 0.6)


def test_every_clock_gap_on_the_pages_reads_as_what_it_explains(prose):
    from gen.analysis import rules

    seen = 0
    for path, text in prose.items():
        for pct, explains in _EXPLAINS.findall(text):
            seen += 1
            assert _close(pct, (float(explains) - 1) * 100), (path, pct, explains)
        for rx in (_PAIR, _LOWER):
            for m in rx.finditer(text):
                g = m.groups()
                pct, a, b = (g[2], g[0], g[1]) if rx is _PAIR else g[:3] if g[0] else (g[5], g[3], g[4])
                seen += 1
                assert _close(pct, rules.clock_gap_pct(float(a), float(b))), (path, m.group(0))
    assert seen > 10
    assert "clock 6.5% higher (1980 against 1860 MHz)" in " ".join(prose.values())  # the paired sliding-window verdict
    # no other form of a clock gap ("clocks 6.2% apart", "1920 against 1575 MHz, 22% apart")
    assert not any(re.search(r"(clocks|MHz[,)]?) \d+(\.\d)?% apart", text) for text in prose.values())


def test_the_methodology_states_the_gaps_measure_once(prose):
    rules_text = prose["generated/.rules.md"]
    assert rules_text.count("the higher over the lower, less one, as a percentage") == 1


# --------------------------------------------------------------------------- the clock gate is analysis's (issue 34)

def test_no_words_module_compares_a_gap_with_the_gate():
    """The gate rules.CLOCK_GAP_PCT is read in analysis (rules.clocks_apart, leads.Orders.kernel_sum_clocks_apart,
    calls.OffGraph.slower_at_higher_clock, sweep_turns.clocks_may_flatter); the words print it, never compare."""
    from pathlib import Path

    compared = re.compile(r"[<>]=?\s*rules\.CLOCK_GAP_PCT\b|\brules\.CLOCK_GAP_PCT\s*[<>]")
    report = Path(__file__).resolve().parent.parent / "gen" / "report"
    found = [f"{p.name}:{i}" for p in report.rglob("*.py")
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if compared.search(line)]
    assert not found


def test_the_facts_carry_the_gate():
    from gen.analysis import calls, leads
    from gen.analysis.sweep_turns import clocks_may_flatter

    common = dict(first="a", second="b", as_run=1.0, apart=False, equal_clock=None, first_mhz=None, second_mhz=None,
                  clock_gap_pct=None, decided=False)
    o = leads.Orders(kernel_sum=1.38, first_ks_ms=4.69, second_ks_ms=6.46, first_ks_mhz=1980.0, second_ks_mhz=1860.0,
                     **common)
    assert o.kernel_sum_clocks_apart and not o.kernel_sum_one_clock
    assert o.kernel_sum_leader_clock_pct == pytest.approx(-(1980 / 1860 - 1) * 100)  # the leader at the higher one
    near = leads.Orders(kernel_sum=1.1, first_ks_ms=1.0, second_ks_ms=1.1, first_ks_mhz=1980.0, second_ks_mhz=1975.0,
                        **common)
    assert not near.kernel_sum_clocks_apart and near.kernel_sum_one_clock
    assert calls.OffGraph("x", 1.13, 1839.0, 1720.0).slower_at_higher_clock  # 6.9% apart, the sum at the higher
    assert not calls.OffGraph("x", 1.19, 1980.0, 1975.0).slower_at_higher_clock  # within the gate
    assert not calls.OffGraph("x", 0.9, 1839.0, 1720.0).slower_at_higher_clock  # the sum below its replay
    assert clocks_may_flatter(1917, 1857) and clocks_may_flatter(1860, 1980) and not clocks_may_flatter(1937, 1960)
    assert not clocks_may_flatter(None, 1980)


# --------------------------------------------------------------------------- brackets one deep in reader sentences

# The clauses review 20 (Part 1 item 4, new finding 5) found two deep: the shared rounds' ratios with the calls'
# bracketed names in a bracket, the off-graph reason's clocks in a bracket inside the reach's, the set's reach inside
# timed_alone's bracket, a graph replayed alone with its reason in a bracket inside the counts'.
CLAUSES = ("round by round", "the rule allows", "line alone decides", "in later rounds of their own")


def _depth(text: str) -> int:
    """How deep the brackets nest, a call's own brackets counted ("FlashAttention-4 (flash_attn.cute)" inside a
    bracket is two deep); a trademark sign in a CPU's name is no bracket."""
    level = deepest = 0
    for ch in re.sub(r"\((?:R|TM|C)\)", "", text):
        level += (ch == "(") - (ch == ")")
        deepest = max(deepest, level)
    return deepest


def _clauses(sentence: str) -> list[str]:
    """A sentence's clauses: cut at each ";" outside brackets."""
    out, level, start = [], 0, 0
    for i, ch in enumerate(sentence):
        level += (ch == "(") - (ch == ")")
        if ch == ";" and level == 0:
            out.append(sentence[start:i])
            start = i + 1
    return [*out, sentence[start:]]


def test_the_review_20_clauses_nest_brackets_one_deep(prose):
    pages = {p: t for p, t in prose.items()
             if p.startswith("generated/sets/") and p.count("/") == 2 or p.startswith("generated/.")}
    seen = 0
    for path, text in pages.items():
        for s in re.split(r"(?<=\.) (?=[A-Z])", text):
            if "|" in s:  # a table row, not a sentence
                continue
            for c in _clauses(s):
                if any(k in c for k in CLAUSES):
                    seen += 1
                    assert _depth(c) <= 1, (path, c)
    assert seen >= 10
