"""`python -m gen ARGS` run in the test's own process: the CLI's main with ARGS, its exit status, stdout and
stderr, as a process would give them, for the tests about what a command says and leaves, not about the process
(its environment, its signals, its imports). A process of its own paid Python's start and the package's imports
again, 0.7 to 1.5 s of CPU a call on the 2-core machine, for a refusal that takes milliseconds."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import traceback
from pathlib import Path


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """What `python -m gen *args` gives: main's return value as the exit status; argparse's SystemExit as its
    code; an exception main lets through (a bug) as Python's exit status 1 with its traceback on stderr, so that
    a test that a refusal is one line still fails on it."""
    from gen import cli

    out, err = io.StringIO(), io.StringIO()
    before = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(list(args))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                if exc.code is not None and not isinstance(exc.code, int):
                    print(exc.code, file=sys.stderr)
            except Exception:  # noqa: BLE001 - what an uncaught exception does to a process
                traceback.print_exc()
                code = 1
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(["python", "-m", "gen", *args], code, out.getvalue(), err.getvalue())
