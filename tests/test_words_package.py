"""The report's words live in one package, gen.report.words: a module per page kind, none over 600 lines,
no private name of gen.analysis imported, and `refusal` (why a call did not run) defined once."""

from __future__ import annotations

import ast
from pathlib import Path

GEN = Path(__file__).resolve().parents[1] / "gen"
WORDS = GEN / "report" / "words"
MAX_LINES = 600


def _modules():
    return sorted(p for p in WORDS.glob("*.py"))


def test_the_old_wording_modules_are_gone():
    assert not sorted((GEN / "report").glob("wording*.py"))


def test_no_words_module_over_600_lines():
    long = {p.name: n for p in _modules() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, long


def test_no_module_of_gen_over_600_lines():
    """Issue 34's bound holds for every stage, not only the words."""
    long = {str(p.relative_to(GEN)): n for p in GEN.rglob("*.py") if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, long


def _private_analysis_names(tree: ast.AST) -> set[str]:
    """Names with a leading underscore taken from gen.analysis: imported, or read off an imported module."""
    modules, bad = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gen.analysis"):
            for a in node.names:
                if a.name.startswith("_"):
                    bad.add(f"{node.module}.{a.name}")
                elif node.module == "gen.analysis":
                    modules.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name.startswith("gen.analysis")}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and isinstance(node.value, ast.Name)
                and node.value.id in modules):
            bad.add(f"{node.value.id}.{node.attr}")
    return bad


def test_no_words_module_takes_a_private_name_of_analysis():
    found = {p.name: names for p in _modules() if (names := _private_analysis_names(ast.parse(p.read_text())))}
    assert not found, found


def test_the_check_finds_a_private_name():
    planted = ast.parse("from gen.analysis import rules\nfrom gen.analysis.tables import _x\nrules._y\n")
    assert _private_analysis_names(planted) == {"gen.analysis.tables._x", "rules._y"}


def test_refusal_is_defined_once():
    """Once in the report (capture's probe.refusal, which turns an exception into the reason, is another thing)."""
    where = [p.relative_to(GEN).as_posix() for p in sorted((GEN / "report").rglob("*.py"))
             for node in ast.parse(p.read_text()).body
             if isinstance(node, ast.FunctionDef) and node.name == "refusal"]
    assert where == ["report/words/common.py"]


def test_refusal_says_why_for_a_table_and_a_point():
    from gen.report.words.common import refusal

    # a capture's whole GB said in GiB (review 18 item 13): 5 GB is 4.66 GiB
    assert refusal("skipped", "needs 90 GB: more than the GPU's 5 GB free").endswith(
        "more than the ≈5 GiB the capture left free (not the GPU's capacity)")
    assert refusal("oom", None) == "out of memory"
    assert refusal("error", float("nan")) == "no reason recorded"
    assert refusal("skipped", None, needs_cuda=True).startswith("needs CUDA")
