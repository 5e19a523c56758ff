"""The analysis decides, the words word (issue 34): no module of gen/report compares a number with a threshold of a
rules module of gen.analysis (rules, host_rules, kernel_rules); it reads the fact analysis made with it. A threshold's
value may be printed ("under the 1.2× line"), or set the digits a ratio is printed at beside it (times_beside):
wording, not deciding; every such use outside an f-string is named in WORDING below. The facts the words read instead
are tested here against the rule, and the formatters that moved to gen.report.format against the digits they give.
"""

from __future__ import annotations

import ast
import importlib
import math
from pathlib import Path
from types import SimpleNamespace

import pytest

from gen.analysis import advice, calls, clocks, host_rules, leads, rules, verdict_point
from gen.analysis import dynamic as dyn
from gen.report import format as fmt
from gen.report.words import common

REPORT = Path(__file__).resolve().parent.parent / "gen" / "report"

# Uses of a threshold outside an f-string that only word it: (module under gen/report, constant) -> how.
WORDING = {
    ("pages/methodology.py", "*"): "the rules table and the methodology's prose print every threshold",
    ("pages/scaling.py", "GRAPH_ABOVE_EAGER_PCT"): "printed in the note under the scaling tables",
    ("pages/scaling.py", "HOST_COST_QUANTILE"): "printed as an ordinal ('10th percentile')",
    ("pages/scenario_set.py", "WRONG_ANSWER_REL_ERROR"): "printed by scenarios.wrong_by_error ('past 0.1')",
    ("words/first_screen.py", "ADVICE_MIN_GAIN"): "printed, and the digits of a gain range beside it (range_beside)",
    ("words/host.py", "HOST_BOUND_EAGER_RATIO"): "printed as 'the 1.25× line'",
    ("words/host.py", "HOST_HEADROOM"): "the digits of a share printed beside 1/HOST_HEADROOM (times_beside)",
    ("words/host.py", "HOST_YES_MARGIN"): "a share printed as 'at', 'under' or 'over' the line (against_line)",
    ("words/kernels.py", "SMEM_DEFAULT_LIMIT"): "printed in KiB",
    ("words/methodology.py", "PAIRED_MIN_ORIENTATION_ROUNDS"): "printed as a count of rounds",
    ("words/orders.py", "ADVICE_MIN_GAIN"): "the digits of a ratio printed beside the line (times_beside)",
    ("words/scenario_first.py", "ADVICE_MIN_GAIN"): "the digits of a ratio printed beside the line (times_beside)",
}


def _rule_modules(tree: ast.AST) -> dict[str, object]:
    """The rules modules a source imports (`from gen.analysis import rules, host_rules as hr`), by local name."""
    out = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.module == "gen.analysis":
            for a in n.names:
                if a.name.endswith(("rules", "rule")):
                    out[a.asname or a.name] = importlib.import_module(f"gen.analysis.{a.name}")
        if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("gen.analysis.") \
                and n.module.endswith(("rules", "rule")):
            for a in n.names:  # a threshold imported by name: `from gen.analysis.rules import MIN_SAMPLES`
                value = getattr(importlib.import_module(n.module), a.name, None)
                if _threshold(value):
                    out.setdefault("", {})[a.asname or a.name] = a.name
    return out


def _threshold(value) -> bool:
    """A number of a rules module (the outcomes YES, NO, WITHIN_NOISE are words a fact carries, not thresholds)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _walk_numbers(node: ast.AST):
    """ast.walk, less what f-strings hold: a threshold printed in a string binds no number to a name."""
    todo = [] if isinstance(node, ast.JoinedStr) else [node]
    while todo:
        n = todo.pop()
        yield n
        todo += [c for c in ast.iter_child_nodes(n) if not isinstance(c, ast.JoinedStr)]


def _uses(node: ast.AST, mods: dict, walk=ast.walk) -> list[str]:
    """The thresholds `node` reads: rules.NAME attributes and names imported from a rules module."""
    out = []
    for s in walk(node):
        if isinstance(s, ast.Attribute) and isinstance(s.value, ast.Name) and s.value.id in mods \
                and s.value.id != "" and _threshold(getattr(mods[s.value.id], s.attr, None)):
            out.append(s.attr)
        elif isinstance(s, ast.Name) and s.id in mods.get("", {}):
            out.append(mods[""][s.id])
    return out


def comparisons(source: str) -> list[tuple[int, str]]:
    """(line, threshold) of each comparison in `source` that reads a threshold, directly or through a name bound to
    one in the same function or at module level (`line = rules.ADVICE_MIN_GAIN` ... `gain < line`)."""
    tree = ast.parse(source)
    mods = _rule_modules(tree)
    out = []
    def bound(stmts) -> dict[str, str]:
        return {n.targets[0].id: names[0] for n in stmts
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and (names := _uses(n.value, mods, _walk_numbers))}

    module = bound(tree.body)
    scopes = [(tree, module)] + [(f, {**module, **bound(ast.walk(f))}) for f in ast.walk(tree)
                                 if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for scope, names in scopes:
        for n in ast.walk(scope):
            if isinstance(n, ast.Compare):
                out += [(n.lineno, name) for name in _uses(n, mods)]
                out += [(n.lineno, names[s.id]) for s in ast.walk(n) if isinstance(s, ast.Name) and s.id in names]
    return sorted(set(out))


def _in_fstring(node: ast.AST, parents: dict) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.JoinedStr):
            return True
    return False


def wording_uses(source: str) -> set[str]:
    """The thresholds `source` reads outside an f-string."""
    tree = ast.parse(source)
    mods = _rule_modules(tree)
    parents = {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    return {name for n in ast.walk(tree) if not isinstance(n, ast.JoinedStr) and not _in_fstring(n, parents)
            and isinstance(n, (ast.Attribute, ast.Name)) and parents.get(n) is not None
            and not isinstance(parents[n], ast.Attribute)
            for name in _uses(n, mods)}


def _modules():
    return sorted(REPORT.rglob("*.py"))


def test_the_scan_finds_a_comparison_direct_or_through_a_name():
    src = ("from gen.analysis import rules, host_rules as hr\n"
           "from gen.analysis.rules import MIN_SAMPLES\n"
           "def f(g, r, n):\n"
           "    line = rules.ADVICE_MIN_GAIN\n"
           "    a = g < rules.ADVICE_MIN_GAIN\n"
           "    b = r >= line\n"
           "    c = n < MIN_SAMPLES\n"
           "    d = r > hr.HOST_BOUND_EAGER_RATIO * 2\n"
           "    e = g == rules.YES\n"
           "    return f'under {rules.ADVICE_MIN_GAIN:g}x'\n")
    assert comparisons(src) == [(5, "ADVICE_MIN_GAIN"), (6, "ADVICE_MIN_GAIN"), (7, "MIN_SAMPLES"),
                                (8, "HOST_BOUND_EAGER_RATIO")]
    assert wording_uses(src) == {"ADVICE_MIN_GAIN", "MIN_SAMPLES", "HOST_BOUND_EAGER_RATIO"}
    assert wording_uses("from gen.analysis import rules\nx = f'{rules.TIME_FLOOR_PCT:g}%'\n") == set()
    # a name bound at module level is read in any function; a string that prints a threshold is no threshold
    assert comparisons("from gen.analysis import rules\nLINE = rules.CLOCK_GAP_PCT\nNOTE = f'{rules.TIME_FLOOR_PCT}'\n"
                       "def f(x, s):\n    return x > LINE or NOTE in s\n") == [(5, "CLOCK_GAP_PCT")]


def test_no_report_module_compares_a_number_with_a_threshold():
    found = [f"{p.relative_to(REPORT)}:{line}: {name}" for p in _modules()
             for line, name in comparisons(p.read_text())]
    assert not found, "decide these in gen.analysis and read the fact:\n" + "\n".join(found)


def test_every_threshold_read_outside_a_sentence_is_named_wording():
    seen, stray = set(), []
    for p in _modules():
        rel = p.relative_to(REPORT).as_posix()
        for name in wording_uses(p.read_text()):
            key = (rel, "*") if (rel, "*") in WORDING else (rel, name)
            seen.add(key)
            if key not in WORDING:
                stray.append(f"{rel}: {name}")
    assert not stray, "a threshold read outside a sentence, not named as wording:\n" + "\n".join(stray)
    assert set(WORDING) <= seen, f"WORDING names uses that are gone: {sorted(set(WORDING) - seen)}"


# --------------------------------------------------------------------------- the facts the words read instead


def _orders(ks):
    return leads.Orders(first="a", second="b", as_run=1.0, apart=False, equal_clock=None, kernel_sum=ks,
                        first_mhz=None, second_mhz=None, first_ks_ms=None, second_ks_ms=None, first_ks_mhz=None,
                        second_ks_mhz=None, clock_gap_pct=None, decided=False)


def test_the_bar_what_to_call_asks_is_decided_in_analysis():
    bar = rules.ADVICE_MIN_GAIN
    assert advice.clears_bar(bar) and advice.clears_bar(bar * 1.01) and not advice.clears_bar(bar * 0.999)
    assert _orders(bar * 0.999).sums_under_bar and _orders(1 / (bar * 0.999)).sums_under_bar
    assert not _orders(bar).sums_under_bar and not _orders(1 / bar).sums_under_bar
    assert not _orders(None).sums_under_bar

    def named(ks, named_ms, median_ms=1.0):
        f = SimpleNamespace(named_orders=_orders(ks), named_at=SimpleNamespace(median_ms=named_ms),
                            median_ms=median_ms)
        return verdict_point.PointFacts.named_under_bar.fget(f)
    assert named(bar * 0.99, bar * 0.98)  # both measures under the bar
    assert not named(bar * 0.99, bar * 1.01)  # as run past it
    assert not named(bar * 1.01, 1.0)  # by kernel sum past it
    assert not named(None, 1.0)


def test_the_clock_rule_names_work_the_source_does_not_time_past_its_tolerance():
    share = rules.CLOCK_RULE_PCT / 100
    assert clocks.untimed_work(1.0 - share * 1.01, share * 1.01)
    assert not clocks.untimed_work(1.0 - share * 0.99, share * 0.99)
    assert not clocks.untimed_work(math.nan, 1.0) and not clocks.untimed_work(1.0, math.nan)


def test_a_thin_timing_is_decided_in_analysis():
    n = rules.MIN_SAMPLES
    assert calls.thin(n - 1) and not calls.thin(n)
    assert not calls.thin(0) and not calls.thin(None) and not calls.thin(math.nan)


def test_the_host_bound_line_and_margin_are_decided_in_host_rules():
    line, margin = host_rules.HOST_BOUND_EAGER_RATIO, host_rules.HOST_YES_MARGIN
    assert host_rules.loop_waited(line) and not host_rules.loop_waited(line * 0.999)
    assert host_rules.straddles_line((line * 0.99, line)) and not host_rules.straddles_line((line, line * 1.1))
    assert not host_rules.straddles_line(None)
    assert host_rules.host_short_of_margin(margin * 0.99, 1.0) and not host_rules.host_short_of_margin(margin, 1.0)
    assert not host_rules.host_short_of_margin(0.0, 1.0) and not host_rules.host_short_of_margin(1.0, None)


def test_the_time_floor_is_decided_in_analysis():
    floor = rules.TIME_FLOOR
    assert leads.beyond_floor(floor * 1.001) and leads.beyond_floor(1 / (floor * 1.001))
    assert not leads.beyond_floor(floor) and not leads.beyond_floor(1.0) and not leads.beyond_floor(None)


def _run(variant, overhead=None, steady=1.0, gpu=None, warmup_ms=None, warmup_lengths=0):
    return dyn.DynamicFacts(variant=variant, phase="prefill", status="ok", reason=None, env=(), lengths=4,
                            first_overhead_ms=overhead, steady_ms=steady, break_even_calls=None, first_median_ms=None,
                            first_total_ms=None, first_max_ms=None, gpu_median_ms=gpu, warmup_ms=warmup_ms,
                            warmup_lengths=warmup_lengths)


def test_dynamic_lengths_decide_their_notes_in_analysis():
    noise, start = rules.NEW_LENGTH_NOISE_MS, rules.STARTUP_NOTE_S * 1e3
    a, b, c = _run("a", 1.0), _run("b", 1.0 + noise * 0.9), _run("c", 1.0 + noise * 1.1)
    pf = dyn.PhaseFacts("prefill", [a, b, c], [], a, a, [])
    assert pf.first_alike == [b]
    d, e = _run("d", warmup_ms=start, warmup_lengths=1), _run("e", warmup_ms=start * 0.99, warmup_lengths=2)
    assert dyn.PhaseFacts("prefill", [d, e], [], d, None, []).startup_paid == [d]
    warmed = dyn.PhaseFacts("prefill", [d, e], [], d, None, [], warm_cache=(dyn.WarmCache("d", "x", None),))
    assert warmed.startup_paid == []
    line = host_rules.HOST_BOUND_EAGER_RATIO
    waits = [_run("f", steady=line, gpu=1.0), _run("g", steady=2 * line, gpu=2.0)]
    assert dyn.PhaseFacts("decode", waits, [], None, None, []).loop_waits_on_host
    busy = [_run("f", steady=line, gpu=1.0), _run("g", steady=line * 0.99, gpu=1.0)]
    assert not dyn.PhaseFacts("decode", busy, [], None, None, []).loop_waits_on_host
    assert not dyn.PhaseFacts("decode", waits[:1], [], None, None, []).loop_waits_on_host  # one run ranks nothing


def test_a_training_steps_op_slower_than_in_a_forward_is_a_fact():
    from gen.analysis import findings
    from tests.conftest import committed_set

    ls = committed_set("cpu-intel-r-xeon-r-processor__torch-2.13.0")
    train = [f.facts for f in findings.findings(ls) if f.facts.get("what") == "train_over_forward"]
    assert train, "the CPU set's training steps are far past their forwards"
    for x in train:
        if x["op_ratio"] is None:
            assert not x["op_slower"]
        else:
            assert x["op_ratio"] == pytest.approx(x["op_step_us_per_call"] / x["op_forward_us_per_call"])
            assert x["op_slower"] == (x["op_ratio"] >= rules.COMPILED_SLOWER_RATIO)


# --------------------------------------------------------------------------- times, formatted in one module


def test_a_sentences_times_are_formatted_in_format():
    assert common.us is fmt.sentence_ms and common.duration_us is fmt.sentence_us
    assert common.one_timing is fmt.once_ms
    assert fmt.sentence_ms(0.0564) == "56.4 µs" and fmt.sentence_ms(27.5224) == "27.522 ms"
    assert fmt.sentence_ms(None) == fmt.DASH == fmt.sentence_us(math.nan)
    assert fmt.sentence_us(363.44) == "363.4 µs" and fmt.sentence_us(1500.0) == "1.500 ms"
    assert fmt.once_ms(12.647) == "12.6 ms" and fmt.once_ms(0.512) == "512 µs" and fmt.once_ms(0.9996) == "1.00 ms"
    assert fmt.spread_ms(0.8251) == "0.825 ms" and fmt.spread_ms(31.94) == "31.9 ms"
    assert fmt.spread_ms(225.4) == "225 ms" and fmt.spread_ms(1234.5) == "1,234 ms"
    assert fmt.ms_span((0.05901, 0.05904)) == "0.0590" and fmt.ms_span((1.1, 1.102)) == "1.100–1.102"
    # a sentence's time and its table cell at one precision
    for x in (0.0564, 0.2383, 1.0, 27.5224):
        assert fmt.sentence_ms(x).split()[0].replace(",", "") in (fmt.ms(x), f"{float(fmt.ms(x)) * 1000:.1f}")


def test_no_words_module_keeps_its_own_time_formatter():
    own = [f"{p.relative_to(REPORT)}: {n.name}" for p in _modules() if p.name != "format.py"
           for n in ast.walk(ast.parse(p.read_text())) if isinstance(n, ast.FunctionDef)
           and n.name in ("_ms", "_us", "_ms_span", "us", "duration_us", "one_timing")]
    assert not own, own
