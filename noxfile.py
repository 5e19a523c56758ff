"""Sessions for attention-profile-report. `nox -l` lists them.

Dependencies are declared once, in pyproject.toml, and read from there.
"""

from __future__ import annotations

import os
import subprocess
import sys

import nox

nox.options.sessions = ["build-report", "tests"]
nox.options.reuse_existing_virtualenvs = True

PYTHON = "3.11" if sys.version_info[:2] == (3, 11) else None
# The CPU build of torch that pip takes from this machine's disk; uv does not look there.
TORCH_CPU = "torch==2.13.0"
ENV = {"NO_MKDOCS_2_WARNING": "1", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"}
# Everything a GPU's set holds: every scenario, the article's sweep, training, counters, ceilings,
# telemetry. Resumable: a capture cut short continues where it stopped (--resume), never starts over.
CAPTURE_ALL = ["profile", "--scenario", "all", "--mode", "inference,train", "--sweep", "--resume"]


def _has_cuda_torch(python: str) -> bool:
    try:
        probe = subprocess.run(
            [python, "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"],
            capture_output=True, timeout=120,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


# The name `profile` gives this GPU's set (gen.model.layout.set_name, as gen.capture.runner calls it).
OWN_SET = ("import torch; from gen.model import layout; "
           "print(layout.set_name(torch.cuda.get_device_properties(0).name, '', torch.__version__))")


def _own_set_missing(python: str) -> bool:
    """Whether results/ lacks this GPU's set, by the name `profile --if-missing` looks for."""
    try:
        probe = subprocess.run([python, "-c", OWN_SET], capture_output=True, text=True, timeout=120,
                               env={**os.environ, "PYTHONPATH": os.path.abspath(".")})
    except (OSError, subprocess.SubprocessError):
        return True
    name = probe.stdout.strip()
    return probe.returncode != 0 or not name or not os.path.isdir(os.path.join("results", name))


def capture_decision(has_cuda: bool, own_set_missing: bool, asked: bool) -> str:
    """What build-report does before building: "capture" only when asked for (--profile), never on its
    own (a capture takes minutes of the GPU); "advise" where this GPU has no set of its own; else "build"."""
    if asked:
        return "capture"
    return "advise" if has_cuda and own_set_missing else "build"


ADVICE = ("this machine has a CUDA torch and results/ holds no set of its GPU: the report is built from the "
          "committed sets only. To measure this GPU (minutes): nox -s profile, or nox -s build-report -- --profile")


@nox.session(name="build-report", python=PYTHON)
def build_report(session: nox.Session) -> None:
    """Render the committed result sets into site/. Captures this GPU only with `-- --profile`
    (else, on a CUDA machine without its own set, says how)."""
    session.install("-e", ".")
    args = list(session.posargs)
    asked = "--profile" in args
    args = [a for a in args if a != "--profile"]
    host_python = os.environ.get("GEN_CAPTURE_PYTHON", sys.executable)
    cuda = _has_cuda_torch(host_python)
    decision = capture_decision(cuda, cuda and not asked and _own_set_missing(host_python), asked)
    if decision == "capture":
        session.log(f"--profile: profiling this GPU with {host_python} unless its set exists")
        session.run(host_python, "-m", "gen", *CAPTURE_ALL, "--if-missing", external=True, env=ENV)
    elif decision == "advise":
        session.warn(ADVICE)
    else:
        session.log("building from the committed result sets")
    session.run("python", "-m", "gen", "build", *args, env=ENV)
    # mkdocs builds into a staging folder beside site/, swapped in whole: old site or new, never half
    session.run("python", "-m", "gen.report.publish_site", "--site-dir", "site", env=ENV)
    session.log(f"report built: {os.path.abspath('site/index.html')} (its charts draw over http: nox -s serve, or any "
                "static server of site/; a browser refuses their module script from file://)")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Unit, end-to-end CPU capture, strict site build and headless-browser tests."""
    session.run("python", "-m", "pip", "install", "-q", TORCH_CPU)
    session.install("-e", ".[test]")
    # Two workers (the 2-core machines CI and ours run on), a test file each: a file's own fixtures (a tiny
    # capture) are made once by the worker that runs it, the built sites once for both (tests/conftest.py's
    # shared_dir). Any posargs replace these.
    args = session.posargs or ["-n", "2", "--dist", "loadfile"]
    # Bytecode written once, not compiled again by every worker and build process (pytest's rewritten asserts
    # included): a shell that sets PYTHONDONTWRITEBYTECODE costs the suite about 11 s of CPU.
    session.run("pytest", *args, env={**ENV, "PYTHONDONTWRITEBYTECODE": ""})


@nox.session(python=False)
def profile(session: nox.Session) -> None:
    """Profile on this machine's GPU with the interpreter that already has CUDA torch (no venv)."""
    python = os.environ.get("GEN_CAPTURE_PYTHON", sys.executable)
    args = ["profile", *session.posargs] if session.posargs else CAPTURE_ALL
    session.run(python, "-m", "gen", *args, external=True)


@nox.session(python=PYTHON)
def serve(session: nox.Session) -> None:
    """Build the pages and serve the site on http://127.0.0.1:8000 with live reload."""
    session.install("-e", ".")
    session.run("python", "-m", "gen", "build", env=ENV)
    session.run("mkdocs", "serve", "--dev-addr", "127.0.0.1:8000", env=ENV)


ZENSICAL_SITE = ".nox/zensical/site"


@nox.session(python=PYTHON)
def zensical(session: nox.Session) -> None:
    """Trial, not run by default: build the site with Zensical (Material for MkDocs ends in May 2027)
    from the same mkdocs.yml and docs/, into .nox/zensical/site. Findings: docs/notes/zensical.md."""
    session.install("-e", ".")
    session.install("zensical")
    session.run("python", "-m", "gen", "build", *session.posargs, env=ENV)
    # Zensical has no --site-dir and wants its config inside the project: a config that inherits
    # mkdocs.yml and only moves the output, so that site/ (mkdocs' build) stays as it is.
    config = ".zensical.yml"
    with open(config, "w", encoding="utf-8") as fh:
        fh.write(f"INHERIT: mkdocs.yml\nsite_dir: {ZENSICAL_SITE}\n")
    try:
        session.run("zensical", "build", "--strict", "--config-file", config, env=ENV)
    finally:
        os.remove(config)
    session.log(f"Zensical build: {os.path.abspath(ZENSICAL_SITE)}/index.html")


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff over the package, tests and noxfile (the ruff of the `lint` extra)."""
    session.install(".[lint]")
    session.run("ruff", "check", "gen", "tests", "noxfile.py", "benchmarks")
