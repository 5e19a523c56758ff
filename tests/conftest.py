"""Shared fixtures: the committed result sets are the test data.

`built_site(*names)` is committed sets built once per session into a scratch project
(gen build, then mkdocs build --strict), for every test that reads a built site or serves
it to Chromium (tests/site_server.py: `with site.serving() as (served, url)`). Tests that change
what is built build their own.

`h200_new` is the committed schema-3 H200 set in results/ (NVML telemetry per timed window,
interleaved rounds, the graph check, issue 20's scenarios); `h200` is the schema-2 H200
capture it replaced (CUDA-graph GPU-only times, ncu counters, traces named
article__<mode>__<variant>), kept in tests/data/sets as a real fixture and as the other
capture of the same GPU that classifications must agree with; `h200_v1` is the schema-1
H200 set, kept in tests/data/sets as the old-format fixture (loads through
update_to_2; GPU-only time falls back to the kernel sum; traces <mode>__<variant>).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The tests' tensors are tiny: a second intra-op thread of torch only waits for a core, and on a
# 2-core machine busy with the rest of the suite each op then takes ~20 ms instead of ~0.05 ms
# (a tiny CPU capture: 22 s against 6 s). Set before torch is imported, here or in a capture's
# subprocess, which inherits it; a value the caller set is kept.
os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
H200 = ROOT / "tests" / "data" / "sets" / "nvidia-h200__torch-2.11.0__schema2"
H200_NEW = RESULTS / "nvidia-h200__torch-2.11.0"
H100_PAIRED = "nvidia-h100-80gb-hbm3__torch-2.11.0__paired"  # interleaved rounds, no FA4, stopped by its time limit
CAPTURED_LATER = ("nvidia-h100-80gb-hbm3__torch-2.11.0", H100_PAIRED)
H200_V1 = ROOT / "tests" / "data" / "sets" / "nvidia-h200__torch-2.11.0__schema1"
# The set the committed one replaced: one call plus a second merged into it (gen import --merge).
H200_MERGED = ROOT / "tests" / "data" / "sets" / "nvidia-h200__torch-2.11.0__prev"


@pytest.fixture(scope="session", autouse=True)
def _builds_in_one_process():
    """A build's sets are made in its own process here, not in worker processes forked one per core
    (gen.report.reading.workers_for): the suite's two test processes keep both cores busy, so forked
    workers only made each build's per-process work again (about a quarter more CPU a build, a set's
    parts split over them, each setting up the set's context). The same pages either way (test_render,
    test_build_cache); the tests of that parallel path ask for it back with `forked_builds`. Builds
    run as subprocesses (`python -m gen build`) are not changed."""
    from gen.report import reading

    _FORKED["workers_for"] = reading.workers_for
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reading, "workers_for", lambda n_tasks: 1)
        yield


@pytest.fixture
def forked_builds(monkeypatch):
    """gen.report.reading.workers_for as the build has it (worker processes forked, one per core), for a
    test of the parallel path (see _builds_in_one_process)."""
    from gen.report import reading

    monkeypatch.setattr(reading, "workers_for", _FORKED["workers_for"])


_FORKED: dict = {}  # gen.report.reading.workers_for itself, kept by _builds_in_one_process


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile: the heaviest test files first, none waiting on a shared build another worker is
    making (tests/schedule.py); other modes as xdist has them."""
    if config.getvalue("dist") != "loadfile":
        return None
    from tests.schedule import HeaviestFirst

    return HeaviestFirst(config, log)


_COMMITTED_SETS: dict = {}  # committed_set's LoadedSets, by name: one per test process


def committed_set(path):
    """A committed set of results/ (its folder, or its name), loaded (gen.analysis.tables.LoadedSet) once per test
    process and shared by every test file that reads it: the fixtures of the files that only read a set, none that
    monkeypatches what a set caches (its verdicts, its times, its advice are computed once on the object, for all of
    them). Each file's own load cost 0.3-0.9 s of CPU and its verdicts as much again. Read, never changed."""
    from gen.analysis import tables

    path = Path(path) if Path(path).is_absolute() else RESULTS / path
    assert path.parent == RESULTS and (path / "result.json").is_file(), path
    if path.name not in _COMMITTED_SETS:
        _COMMITTED_SETS[path.name] = tables.load_set(path)
    return _COMMITTED_SETS[path.name]


@pytest.fixture(scope="session")
def paired():
    """The paired H100 set, loaded (gen.analysis.tables.LoadedSet)."""
    return committed_set(H100_PAIRED)


@pytest.fixture(scope="session")
def h200_dir() -> Path:
    assert (H200 / "result.json").is_file(), "the committed H200 result set is missing"
    return H200


@pytest.fixture(scope="session")
def h200(h200_dir):
    from gen.analysis import tables

    return tables.load_set(h200_dir)


@pytest.fixture(scope="session")
def h200_v1_dir() -> Path:
    assert (H200_V1 / "result.json").is_file(), "the schema-1 H200 fixture set is missing"
    return H200_V1


@pytest.fixture(scope="session")
def h200_v1(h200_v1_dir):
    from gen.analysis import tables

    return tables.load_set(h200_v1_dir)


@pytest.fixture(scope="session")
def h200_merged():
    from gen.analysis import tables

    return tables.load_set(H200_MERGED)


@pytest.fixture(scope="session")
def h200_new_dir() -> Path:
    assert (H200_NEW / "result.json").is_file(), "the committed H200 result set is missing"
    return H200_NEW


@pytest.fixture(scope="session")
def h200_new(h200_new_dir):
    return committed_set(h200_new_dir)


def all_verdicts(ls):
    """Every verdict of a loaded set: each scenario's, inference then training, where it has one."""
    from gen.analysis import verdicts

    for scenario in verdicts.scenarios(ls):
        for mode in ("inference", "train"):
            v = verdicts.verdict(ls, scenario, mode)
            if v is not None:
                yield v


def shared_dir(tmp_path_factory, name: str, make) -> Path:
    """A folder made once per session by `make(folder)` and shared by the session's test processes
    (pytest-xdist's workers: the first to ask makes it under a lock, the others wait and read it;
    a folder left half made by a process that died is made again). Read, never changed."""
    import fcntl
    import shutil

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the session's folder, above each worker's own
    folder, done = base / f"shared-{name}", base / f"shared-{name}.done"
    with open(base / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            done.write_text("")
    return folder


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """`built_site(*names)`: those committed sets built into a site (gen build, then mkdocs
    build --strict), once per session for each list of sets, shared by every test file (and test
    process) that asks for the same list; serve it with `with site.serving() as (served, url)`
    (tests/site_server.py). Its files are read, never changed."""
    import hashlib

    from tests import site_server

    built: dict[frozenset, site_server.BuiltSite] = {}

    def get(*names: str) -> site_server.BuiltSite:
        key = frozenset(names or site_server.committed_sets())
        if key not in built:
            sets = sorted(key)
            root = shared_dir(tmp_path_factory, "site-" + hashlib.sha256("\0".join(sets).encode()).hexdigest()[:16],
                              lambda folder: site_server.build_site(folder, sets).httpd.server_close())
            built[key] = site_server.BuiltSite(root / "results", root / "project", root / "project" / "site",
                                               site_server.bind_served(root / "project"))
        return built[key]

    yield get
    for site in built.values():
        site.httpd.server_close()


@pytest.fixture(scope="session")
def gpu_docs(tmp_path_factory) -> Path:
    """The committed H100 and H200 sets built as Markdown pages (gen build, no mkdocs, no cache), once per
    session (shared by the test processes): the pages of the FA4 kernels, dynamic lengths and forward/backward
    tests. Read, never changed."""
    import shutil

    from gen.report import build

    def make(root: Path) -> None:
        results = root / "results"
        results.mkdir()
        for name in ("nvidia-h100-80gb-hbm3__torch-2.11.0", H200_NEW.name):
            shutil.copytree(RESULTS / name, results / name)
        build.run(results, root / "docs", convert=False, use_cache=False, workers=1)

    return shared_dir(tmp_path_factory, "gpu-docs", make) / "docs"


@pytest.fixture(scope="session")
def results_docs(tmp_path_factory) -> Path:
    """results/ built as Markdown pages (gen build, no mkdocs), once per session (shared by the test
    processes): the pages the chunked-prefill charts and verdict rules tests read. Read, never changed."""
    from gen.report import build

    return shared_dir(tmp_path_factory, "results-docs",
                      lambda root: build.run(RESULTS, root / "docs", convert=False)) / "docs"


@pytest.fixture(scope="session")
def schema2_results(tmp_path_factory) -> Path:
    """The committed results/ as they stood with the schema-2 H200 capture in place of the
    schema-3 one: the pages whose facts tests were written against that capture build from here."""
    import shutil

    root = tmp_path_factory.mktemp("schema2-results")
    later = {H200_NEW.name, *CAPTURED_LATER}  # sets captured after those tests were written
    for d in RESULTS.iterdir():
        if d.is_dir() and not d.name.startswith(".") and d.name not in later:
            shutil.copytree(d, root / d.name)
    shutil.copytree(H200, root / H200_NEW.name)
    return root


# The matrix of fabricated sets (benchmarks/bench_build.py's `fabricate`: the committed H200 set relabelled, each
# scenario at its first two lengths) that tests/test_scale.py measures against its first 6 sets and
# tests/test_matrix_browser.py opens in Chromium: built once for both. Eleven, the fewest for both: every GPU's newest
# set and an older one that is not a lead set (the first GPU's: the site's first set, its newest and one between).
MATRIX_SETS = 11


@pytest.fixture(scope="session")
def matrix_site(tmp_path_factory) -> Path:
    """The published sets and MATRIX_SETS fabricated ones (fabricate(results, i, points=2), i = 0, 1, ...) built
    into a site (gen build, then mkdocs build --strict), once per session, shared by the test processes: the folder
    holding results/, project/ (docs/, its build cache, site/) and names.json (the fabricated sets' names, in
    the order made). Read, never changed."""
    import json
    import shutil

    from benchmarks.bench_build import PUBLISHED, fabricate
    from gen.report import build

    def make(root: Path) -> None:
        results = root / "results"
        for name in PUBLISHED:
            shutil.copytree(RESULTS / name, results / name)
        names = [fabricate(results, i, points=2).name for i in range(MATRIX_SETS)]
        (root / "names.json").write_text(json.dumps(names), encoding="utf-8")
        project = build.copy_project(ROOT, root / "project")
        build.run(results, project / "docs")
        build.mkdocs_build(project, project / "site")

    return shared_dir(tmp_path_factory, "matrix", make)


# The README's capture command at tiny sizes on the CPU (scenario all: every scenario, issue 20's among them, each with
# its own variants), in three steps as issue 35's regression test has them: killed (SIGKILL) after two points, asked
# again with the partial capture's meta.json naming another CPU (refused, nothing lost), then resumed and published.
README_CAPTURE = ["profile", "--scenario", "all", "--mode", "inference,train", "--sweep", "--resume"]
README_TINY = ["--tiny", "--quick", "--variants", "naive"]


def _items(partial: Path) -> int | None:
    return len(list((partial / "items").glob("*.json"))) if partial.is_dir() else None


def _readme_capture(root: Path) -> None:
    """What each step of the README's capture did, in root/steps.json (tests/test_hostile_round3.py asserts
    it), and the set it published, in root/out. Nothing is asserted here: a step that went wrong is recorded,
    and the next steps that need it are not run."""
    import contextlib
    import io
    import json
    import subprocess
    import sys

    from gen import cli
    from gen.capture import staging

    out = root / "out"
    cmd = [sys.executable, "-m", "gen", *README_CAPTURE, *README_TINY, "--out", str(out)]
    steps: dict = {}
    killed = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT,
                            env={**os.environ, staging.KILL_ENV: "2"})
    partials = [d for d in out.iterdir() if d.name.startswith(staging.PREFIX)]
    steps["killed"] = {"returncode": killed.returncode, "stderr": killed.stderr,
                       "partials": len(partials), "items": _items(partials[0]) if partials else None}
    if len(partials) == 1:
        partial = partials[0]
        meta = json.loads((partial / "meta.json").read_text())
        mine = meta["environment"]["cpu"]
        meta["environment"]["cpu"] = "Another CPU"
        (partial / "meta.json").write_text(json.dumps(meta))
        # In this process (the CLI's main, refused before anything is measured): a process of its own cost
        # torch's import, about 1.5 s of CPU.
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = cli.main([*cmd[3:]])
        steps["other"] = {"returncode": code, "stderr": err.getvalue(), "items": _items(partial)}
        meta["environment"]["cpu"] = mine
        (partial / "meta.json").write_text(json.dumps(meta))
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT)
        steps["done"] = {"returncode": done.returncode, "stderr": done.stderr, "partial_left": partial.exists()}
    (root / "steps.json").write_text(json.dumps(steps), encoding="utf-8")


@pytest.fixture(scope="session")
def readme_capture(tmp_path_factory) -> Path:
    """The README's capture at tiny sizes, killed, refused on another host and resumed (_readme_capture),
    once per session, shared by the test processes: the folder holding steps.json (each step's exit status
    and stderr, the partial capture's items) and out/ (what it published). test_hostile_round3 asserts the
    steps; test_scenarios20 reads the published set, which holds issue 20's scenarios (it made a capture of
    its own before, compiling the same FlexAttention kernels: 14.5 s of CPU warm). Read, never changed."""
    pytest.importorskip("torch")
    return shared_dir(tmp_path_factory, "readme-capture", _readme_capture)


# The H100 capture of 2026-12-06 01:53 UTC, timed in a fixed interleave order: the windows' clocks set leaders apart
# as run where the kernel sums and equal clock disagree. The rules for such pairs are tested on it where the set
# in results/ (rotated rounds) holds none.
FIXED_ORDER = ROOT / "benchmarks" / "data" / "captures" / "nvidia-h100-80gb-hbm3__torch-2.11.0__fixed-order.tgz"


@pytest.fixture(scope="session")
def fixed_order(tmp_path_factory):
    from benchmarks.capture_agreement import open_set
    from gen.analysis import tables

    return tables.load_set(open_set(FIXED_ORDER, tmp_path_factory.mktemp("fixed-order")))


@pytest.fixture(scope="session")
def loaded() -> dict:
    """Every committed result set, loaded (gen.analysis.tables.LoadedSet), by name: once per test process
    (committed_set's), for the files that only read them (once per module before)."""
    return {p.name: committed_set(p) for p in sorted(RESULTS.iterdir()) if (p / "result.json").is_file()}


def bracket_depth(text: str) -> int:
    """How deep the brackets of a sentence nest."""
    level = deepest = 0
    for ch in text:
        level += (ch == "(") - (ch == ")")
        deepest = max(deepest, level)
    return deepest
