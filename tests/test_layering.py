"""The tree reads as the pipeline: no import runs backwards and none makes a cycle.

model <- capture, model <- analysis <- report; cli and build sit on top. Read
from the source (ast), so a function-level import counts as much as a top one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GEN = Path(__file__).resolve().parent.parent / "gen"
# What each stage may import of gen, besides itself.
ALLOWED = {
    "gen.model": {"gen.model"},
    "gen.capture": {"gen.model", "gen.capture"},
    "gen.analysis": {"gen.model", "gen.analysis"},
    "gen.report": {"gen.model", "gen.analysis", "gen.report"},
}


def _module(path: Path) -> str:
    parts = path.relative_to(GEN.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in sorted(GEN.rglob("*.py"))}


def imports(name: str) -> set[str]:
    """The gen modules one module imports (a `from pkg import mod` names the module)."""
    out = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in MODULES else node.module
                    for a in node.names}
    return {m for m in out if m == "gen" or m.startswith("gen.") or m.split(".")[0] in ("torch",)}


def _stage(name: str) -> str | None:
    return next((s for s in ALLOWED if name == s or name.startswith(s + ".")), None)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_import_runs_backwards(name):
    stage = _stage(name)
    if stage is None:
        return  # gen, gen.cli, gen.__main__: the top
    bad = {m for m in imports(name) if m.startswith("gen") and _stage(m) not in ALLOWED[stage]}
    assert not bad, f"{name} ({stage}) imports {sorted(bad)}"


def test_only_capture_imports_torch():
    users = {name for name in MODULES if any(m.split(".")[0] == "torch" for m in imports(name))}
    assert users and all(_stage(u) == "gen.capture" for u in users), sorted(users)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the import graph as a path, or None. A package importing its
    own modules (or a module its package) is not a cycle."""
    done, path = set(), []

    def visit(node):
        if node in path:
            return path[path.index(node):] + [node]
        if node in done:
            return None
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if not (nxt.startswith(node + ".") or node.startswith(nxt + ".")):
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        done.add(node)
        return None

    return next((c for c in (visit(n) for n in sorted(graph)) if c), None)


def test_no_import_cycle():
    graph = {name: {m for m in imports(name) if m in MODULES and m != name} for name in MODULES}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_checks_can_fail():
    """A planted cycle is found (render <-> pages_extra was one); a backward import is refused."""
    assert find_cycle({"gen.report.render": {"gen.report.pages_extra"},
                       "gen.report.pages_extra": {"gen.report.render"}}) == [
        "gen.report.pages_extra", "gen.report.render", "gen.report.pages_extra"]
    assert find_cycle({"gen.report": {"gen.report.site"}, "gen.report.site": {"gen.report"}}) is None
    assert _stage("gen.analysis.tables") == "gen.analysis" and _stage("gen.cli") is None
    assert "gen.report" not in ALLOWED["gen.analysis"] and ALLOWED["gen.model"] == {"gen.model"}
