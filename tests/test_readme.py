"""The README's layout, verbs and benchmarks name what is in the tree."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_paths_exist():
    layout = README.split("## Layout", 1)[1]
    paths = set(re.findall(r"\b((?:gen|docs|benchmarks|results|tests)/[\w./-]*\w)", README))
    for folder, files in re.findall(r"^(gen/\w+/)\s+(.*(?:\n {10,}.*)*)", layout, re.M):
        paths |= {folder + f for f in re.findall(r"\b(\w+\.py)\b", files)}
    assert len(paths) > 20
    built = ("docs/generated",)  # build output, absent from a fresh checkout
    missing = sorted(p for p in paths if not (ROOT / p).exists() and "<" not in p and not p.startswith(built))
    assert missing == []


def test_readme_names_every_verb_and_benchmark():
    verbs = re.findall(r'add_parser\(\s*"(\w+)"', (ROOT / "gen" / "cli.py").read_text(encoding="utf-8"))
    assert set(verbs) >= {"profile", "summary", "compare", "reference", "import", "build"}
    for verb in verbs:
        assert f"attention-report {verb}" in README, verb
    for opt in ("--scenario", "--counters", "--tiny"):
        assert opt in README
    for script in sorted(ROOT.glob("benchmarks/*.md")):
        assert f"benchmarks/{script.stem}.py" in README or f"`{script.stem}.py`" in README, script.name
    for script in sorted(ROOT.glob("benchmarks/*.py")):  # every script is named (and so kept running) or removed
        assert f"benchmarks/{script.name}" in README or f"`{script.name}`" in README, script.name
    assert "docs/matrix.md" in README


def test_readme_schema_version_is_the_real_one():
    from gen.model import schema

    said = re.findall(r"schema\.py \(schema (\d+)", README)
    assert said == [str(schema.SCHEMA_VERSION)]
