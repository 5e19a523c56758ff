"""The console command: the regression gate, one JSON shape against the published schema, --version and
--help without torch, the results folder of the current directory, and a fresh install's command."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from gen import cli
from gen.analysis import compare, gate, tables
from gen.model import output, schema
from tests.conftest import RESULTS, ROOT

H200 = "nvidia-h200__torch-2.11.0"
SLOW = H200 + "__slow"
SCHEMA_FILE = ROOT / "docs" / "data-format.schema.json"
PAGE = ROOT / "docs" / "data-format.md"
SLOWDOWN = 1.10
# The timing samples a capture stores per record (schema.Timing): every GPU-side one slowed alike.
GPU_SAMPLES = ("gpu_only_ms", "kernel_sum_ms", "graph_ms", "eager_ms", "burst_ms")


@pytest.fixture(scope="module")
def two_sets(tmp_path_factory) -> Path:
    """The committed H200 set and a copy of it whose GPU times are all 10% slower."""
    root = tmp_path_factory.mktemp("results")
    shutil.copytree(RESULTS / H200, root / H200)
    shutil.copytree(RESULTS / H200, root / SLOW)
    path = root / SLOW / schema.RESULT_FILE
    data = json.loads(path.read_text())
    data["name"] = SLOW
    slowed = 0
    for rec in [*data["runs"], *data.get("sweep", [])]:
        t = rec.get("timing") or {}
        for k in GPU_SAMPLES:
            if t.get(k):
                t[k] = [x * SLOWDOWN for x in t[k]]
                slowed += 1
    assert slowed > 50
    path.write_text(json.dumps(data))
    return root


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    published = json.loads(SCHEMA_FILE.read_text())
    jsonschema.Draft202012Validator.check_schema(published)
    return jsonschema.Draft202012Validator(published)


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = cli.main(list(argv))
    return code, capsys.readouterr().out


# --------------------------------------------------------------------------- the gate


def test_gate_fails_on_a_set_slowed_by_ten_percent(two_sets, capsys):
    root = str(two_sets)
    code, _ = _run(capsys, "compare", H200, SLOW, "--results", root, "--fail-above", "1.05")
    assert code == 1
    code, _ = _run(capsys, "compare", H200, H200, "--results", root, "--fail-above", "1.05")
    assert code == 0
    # past the slowdown, the same pair passes: the bound decides, not the mere difference
    code, _ = _run(capsys, "compare", H200, SLOW, "--results", root, "--fail-above", "1.2")
    assert code == 0


def test_gate_rows_carry_ratio_interval_and_tie(two_sets, capsys):
    code, out = _run(capsys, "compare", H200, SLOW, "--results", str(two_sets), "--fail-above", "1.05",
                     "--format", "json")
    assert code == 1
    doc = json.loads(out)
    assert doc["gate"]["failed"] and doc["gate"]["fail_above"] == pytest.approx(1.05)
    timed = [r for r in doc["rows"] if r["ratio"] is not None]
    assert len(timed) >= 8
    for r in timed:
        assert r["ratio"] == pytest.approx(SLOWDOWN, rel=1e-3)
        assert r["ratio_ci_lo"] <= r["ratio"] <= r["ratio_ci_hi"]
        assert r["ratio_at_ref_clock"] == pytest.approx(SLOWDOWN, rel=1e-3)  # the same clocks on both sides
        assert r["tie"] is False and r["slower"] is True
    assert set(doc["gate"]["failing"]) == {r["variant"] for r in timed}
    assert [s["name"] for s in doc["sets"]] == [H200, SLOW]


def test_gate_selects_by_variant_and_mode(two_sets, capsys):
    code, out = _run(capsys, "compare", H200, SLOW, "--results", str(two_sets), "--variant", "sdpa_flash",
                     "--variant", "flex", "--mode", "train", "--format", "json")
    assert code == 0  # no --fail-above: never fails
    doc = json.loads(out)
    assert {r["variant"] for r in doc["rows"]} == {"sdpa_flash", "flex"}
    assert {r["mode"] for r in doc["rows"]} == {"train"}
    assert all(r["slower"] is None for r in doc["rows"]) and doc["gate"]["fail_above"] is None


def test_gate_on_a_scenario_compares_points(two_sets, capsys):
    code, out = _run(capsys, "compare", H200, SLOW, "--results", str(two_sets), "--scenario", "decode",
                     "--fail-above", "1.05", "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["selection"]["scenario"] == "decode"
    pts = [r for r in doc["rows"] if r["ratio"] is not None]
    assert pts and all(r["point"]["q_len"] == 1 for r in pts)
    assert all(r["ratio"] == pytest.approx(SLOWDOWN, rel=1e-3) for r in pts)


def test_equal_clock_ratio_follows_the_clocks(h200_dir):
    """A side that ran at a lower clock is faster at the reference clock than as run."""
    ls = tables.load_set(RESULTS / H200)
    r = next(x for x in gate.ratios(ls, ls) if x.variant == "sdpa_flash")
    slow_clock = dataclasses.replace(r.new, sm_clock_mhz=r.base.sm_clock_mhz * 0.8)
    assert gate._at_ref(r.base, slow_clock, r.ref_mhz) == pytest.approx(0.8, rel=1e-6)
    assert r.ref_mhz == pytest.approx(1980.0)


def test_bootstrap_interval_covers_a_known_shift():
    base = tuple(1.0 + 0.01 * (i % 7) for i in range(40))
    lo, hi = gate.bootstrap_ratio(base, tuple(x * 1.2 for x in base))
    assert lo <= 1.2 <= hi and hi - lo < 0.05
    assert all(math.isnan(x) for x in gate.bootstrap_ratio((1.0,), (1.0, 2.0)))  # one unit: no interval


def test_markdown_and_csv(two_sets, capsys):
    code, md = _run(capsys, "compare", H200, SLOW, "--results", str(two_sets), "--fail-above", "1.05",
                    "--format", "markdown")
    assert code == 1 and md.startswith("**Regression gate failed**")
    table = [line for line in md.splitlines() if line.startswith("|")]
    assert len(table) >= 3 and all(line.count("|") == table[0].count("|") for line in table)
    assert "sdpa\\_flash" in md and "SLOWER" in md
    code, csv_text = _run(capsys, "compare", H200, SLOW, "--results", str(two_sets), "--format", "csv")
    head, *lines = csv_text.strip().splitlines()
    assert head.split(",")[:4] == ["scenario", "variant", "mode", "batch"] and "ratio_ci_lo" in head
    assert len(lines) >= 9


# --------------------------------------------------------------------------- one shape, the published schema


def test_published_schema_is_the_generated_one():
    assert json.loads(SCHEMA_FILE.read_text()) == output.json_schema(), (
        "docs/data-format.schema.json is stale: run `attention-report schema --out docs/data-format.schema.json`")


def test_page_describes_every_field():
    text = PAGE.read_text()
    classes = [output.SummaryRow, output.CompareRow, output.ListRow, output.SetIdentity, output.Point, output.Kernel,
               output.Window, output.Gate, output.Selection, output.Output, output.GraphDifferences, output.Launch]
    missing = [f"{c.__name__}.{f.name}" for c in classes for f in dataclasses.fields(c) if f"`{f.name}`" not in text]
    assert not missing


def _summaries() -> list[tuple[str, str | None, str | None]]:
    out = []
    for folder in schema.list_sets(RESULTS):
        rs = schema.load_set(folder)
        modes = sorted({r.mode for r in rs.runs})
        out += [(folder.name, None, m) for m in modes]
        if rs.kind == "measured":
            out += [(folder.name, s, None) for s in sorted({p.scenario for p in rs.sweep})]
    return out


_COMMITTED: dict[Path, tables.LoadedSet] = {}


@pytest.fixture
def committed_loaded_once(monkeypatch):
    """tables.load_set of a committed set (results/, read, never changed) made once for the module: the next
    summaries of a set read the LoadedSet its first one loaded (their verb, options and JSON are the test)."""
    real = tables.load_set

    def load(path):
        if Path(path).parent != RESULTS:
            return real(path)
        if Path(path) not in _COMMITTED:
            _COMMITTED[Path(path)] = real(path)
        return _COMMITTED[Path(path)]

    monkeypatch.setattr(tables, "load_set", load)


@pytest.mark.parametrize(("name", "scenario", "mode"), _summaries())
def test_every_committed_summary_validates(name, scenario, mode, validator, capsys, committed_loaded_once):
    argv = ["summary", "--results", str(RESULTS), "--set", name, "--format", "json"]
    code, out = _run(capsys, *argv, *(["--scenario", scenario] if scenario else ["--mode", mode]))
    assert code == 0
    doc = json.loads(out)
    validator.validate(doc)
    assert doc["verb"] == "summary" and doc["sets"][0]["name"] == name and doc["rows"]


def test_list_and_compare_validate(two_sets, validator, capsys):
    code, out = _run(capsys, "list", "--results", str(RESULTS), "--format", "json")
    doc = json.loads(out)
    validator.validate(doc)
    assert {r["name"] for r in doc["rows"]} == {p.name for p in schema.list_sets(RESULTS)}
    h200 = next(r for r in doc["rows"] if r["name"] == H200)
    assert h200["gpu"] == "NVIDIA H200" and h200["cuda"] and h200["torch"].startswith("2.11") and "decode" in \
        h200["scenarios"]
    for extra in ([], ["--scenario", "decode"], ["--fail-above", "1.05"]):
        _, out = _run(capsys, "compare", H200, SLOW, "--results", str(two_sets), "--format", "json", *extra)
        validator.validate(json.loads(out))
    ref = "nvidia-a100-sxm4-80gb__article-2026-07"
    _, out = _run(capsys, "compare", H200, ref, "--results", str(RESULTS), "--format", "json", "--force")
    validator.validate(json.loads(out))


def test_field_names_do_not_depend_on_the_options(capsys):
    base = ["summary", "--results", str(RESULTS), "--set", H200, "--format", "json"]
    keys = []
    options = ([], ["--scenario", "decode"], ["--mode", "train"],
               ["--scenario", "deterministic-backward", "--mode", "train"])
    for extra in options:
        _, out = _run(capsys, *base, *extra)
        keys.append([sorted(r) for r in json.loads(out)["rows"]])
    assert all(keys)
    assert all(k == keys[0][0] for ks in keys for k in ks)
    assert "gpu_time_ms" not in keys[0][0] and "cpu_time_ms" not in keys[0][0]  # legacy aliases gone


def test_summary_mode_selects_scenario_rows(capsys):
    base = ["summary", "--results", str(RESULTS), "--set", H200, "--format", "json", "--scenario", "gqa-prefill"]
    every = json.loads(_run(capsys, *base)[1])
    train = json.loads(_run(capsys, *base, "--mode", "train")[1])
    assert {r["mode"] for r in every["rows"]} == {"inference", "train"} and every["selection"]["mode"] is None
    assert {r["mode"] for r in train["rows"]} == {"train"} and len(train["rows"]) < len(every["rows"])


def test_a_variant_neither_set_holds_is_an_error(capsys):
    code = cli.main(["compare", H200, H200, "--results", str(RESULTS), "--variant", "flex_paged"])
    err = capsys.readouterr().err
    assert code == 2 and "--variant" in err and "flex_paged" in err


def test_a_gate_with_nothing_to_judge_says_so(capsys):
    ref = "nvidia-a100-sxm4-80gb__article-2026-07"
    code, out = _run(capsys, "compare", H200, ref, "--results", str(RESULTS), "--fail-above", "1.05")
    assert code == 0 and "gate: nothing to judge" in out


def test_a_field_the_analysis_adds_must_be_declared():
    with pytest.raises(KeyError, match="new_field"):
        output.from_dict(output.ListRow, {"name": "x", "new_field": 1})


# --------------------------------------------------------------------------- the parser


def _actions(p: argparse.ArgumentParser):
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            for sub in a.choices.values():
                yield from _actions(sub)
        elif not isinstance(a, argparse._HelpAction):
            yield p.prog, a


def test_every_option_has_a_help_line():
    bare = [f"{prog} {a.dest}" for prog, a in _actions(cli.parser()) if not a.help]
    assert not bare


def test_known_values_are_choices(capsys):
    for argv in (["summary", "--mode", "training"], ["compare", "a", "b", "--scenario", "nope"],
                 ["compare", "a", "b", "--variant", "nope"], ["compare", "a", "b", "--fail-above", "-1"]):
        with pytest.raises(SystemExit) as exc:
            cli.parser().parse_args(argv)
        assert exc.value.code == 2
        assert argv[-1] in capsys.readouterr().err


def test_results_default_to_the_current_directory(tmp_path, monkeypatch, capsys):
    a = cli.parser().parse_args(["list"])
    assert a.results == "results" and not Path(a.results).is_absolute()
    monkeypatch.chdir(tmp_path)
    shutil.copytree(RESULTS / "nvidia-a100-sxm4-80gb__article-2026-07",
                    tmp_path / "results" / "nvidia-a100-sxm4-80gb__article-2026-07")
    code, out = _run(capsys, "list")
    assert code == 0 and "nvidia-a100-sxm4-80gb__article-2026-07" in out and H200 not in out


NO_TORCH = "import sys\nraise ImportError('torch is not importable in this test')\n"


@pytest.fixture
def no_torch(tmp_path) -> dict:
    """An environment in which `import torch` fails."""
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(NO_TORCH)
    return {"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"}


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["compare", "--help"], ["summary", "--help"],
                                  ["profile", "--help"], ["list", "--help"]])
def test_version_and_help_without_torch(argv, no_torch):
    got = subprocess.run([sys.executable, "-m", "gen", *argv], capture_output=True, text=True, env=no_torch,
                         cwd=ROOT, timeout=120)
    assert got.returncode == 0, got.stderr
    assert ("attention-report" in got.stdout) and ("usage" in got.stdout or re.search(r"\d+\.\d+", got.stdout))
    code = "import gen.cli, sys; sys.exit('torch' in sys.modules or 'pandas' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], env=no_torch, cwd=ROOT, timeout=120).returncode == 0


@pytest.mark.slow
def test_a_fresh_install_gives_the_command(tmp_path):
    """`pip install .` into a new virtual environment, run from another folder."""
    venv = tmp_path / "venv"
    # No pip of its own (ensurepip's setuptools would shadow): the dependencies, pip and setuptools come
    # from this interpreter's site-packages, after the new environment's own: no network.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    site = subprocess.run([venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    import sysconfig

    Path(site, "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".nox", ".cache", "site", "results", "tests",
                                                                "benchmarks", "*.egg-info", "build", "generated"))
    pip = subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                          str(src)], capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr
    command = venv / "bin" / "attention-report"
    got = subprocess.run([command, "--version"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert got.returncode == 0 and got.stdout.strip() == "attention-report 0.1.0", got.stderr
    (tmp_path / "results").mkdir()
    shutil.copytree(RESULTS / H200, tmp_path / "results" / H200)
    got = subprocess.run([command, "list", "--format", "json"], capture_output=True, text=True, cwd=tmp_path,
                         timeout=120)
    assert got.returncode == 0, got.stderr
    assert [r["name"] for r in json.loads(got.stdout)["rows"]] == [H200]


def test_compare_run_result_type():
    got = compare.run(RESULTS, H200, H200, "table", fail_above=1.05)
    assert isinstance(got, compare.Result) and not got.failed and "gate: passed" in got.text


# --------------------------------------------------------------------------- build-report's capture decision


class _Session:
    """What build_report asks of a nox session, recorded."""

    def __init__(self, posargs):
        self.posargs, self.runs, self.warnings = posargs, [], []

    def install(self, *args):
        pass

    def run(self, *args, **kwargs):
        self.runs.append(args)

    def log(self, *args):
        pass

    def warn(self, text):
        self.warnings.append(text)


@pytest.mark.parametrize(("posargs", "captures"), [([], False), (["--profile"], True), (["--skip-broken"], False)])
def test_build_report_captures_only_when_asked(posargs, captures, monkeypatch):
    noxfile = pytest.importorskip("noxfile")
    monkeypatch.setattr(noxfile, "_has_cuda_torch", lambda python: True)
    monkeypatch.setattr(noxfile, "_own_set_missing", lambda python: True)
    s = _Session(posargs)
    noxfile.build_report(s)
    profiled = [r for r in s.runs if "profile" in r]
    assert bool(profiled) == captures
    assert bool(s.warnings) != captures and all("nox -s profile" in w for w in s.warnings)
    build = next(r for r in s.runs if "build" in r)
    assert "--profile" not in build and ("--skip-broken" in build) == ("--skip-broken" in posargs)


def test_capture_decision():
    noxfile = pytest.importorskip("noxfile")
    assert noxfile.capture_decision(has_cuda=True, own_set_missing=True, asked=False) == "advise"
    assert noxfile.capture_decision(has_cuda=True, own_set_missing=False, asked=False) == "build"
    assert noxfile.capture_decision(has_cuda=False, own_set_missing=True, asked=False) == "build"
    assert noxfile.capture_decision(has_cuda=True, own_set_missing=True, asked=True) == "capture"


def test_hta_trial_reads_the_trace_names_the_set_records():
    from benchmarks import hta_trial

    paths = hta_trial.trace_paths(RESULTS / H200, "naive")
    assert len(paths) == 2 and all(p.is_file() for p in paths)
