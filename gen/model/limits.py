"""Limits on what one result set and its traces may hold, so that a hostile or
damaged set cannot take the machine's memory, disk or hours.

Takes: the environment (each limit is raised by its own variable). Gives: the
`Limit`s below, `Limit.value()` (in bytes, events or files) and
`Limit.exceeded(where, ...)`, the one-line error that names the file, the limit
and how to raise it. Checked where a set is imported (gen.importer), where it is
loaded (gen.analysis.tables) and where a trace is read (gen.model.trace), on sizes
before anything is read, and while a file is read a chunk at a time (`read_upto`).
Standard library only: capture could use it on the GPU machine.

The defaults sit far above what a real capture writes (the committed H200 set:
174 files, 2.5 MB, result.json 1.5 MB, its largest trace 0.4 MB and 1,136
events once decompressed) and below what ties a build up for minutes: the
parser takes about 4 s and 270 MB per 100 MB of trace (benchmarks/bench_trace.md).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from gen.model.schema import UserError

MIB = 2**20
UNLIMITED = 2**53  # what a limit set higher counts as (bytes, events or files): 8 PiB
CHUNK = 4 * MIB  # a file is read this much at a time, so that a limit costs no memory up front


@dataclass(frozen=True)
class Limit:
    env: str  # the variable that raises it
    default: int  # in units
    unit: str  # "MiB", "events", "files"
    what: str  # what is counted, e.g. "events per trace"
    scale: int = 1  # bytes per unit

    def value(self) -> int:
        """The limit in bytes, events or files: the environment's, else the default."""
        raw = os.environ.get(self.env, "").strip()
        if not raw:
            return self.default * self.scale
        try:
            n = int(raw.replace("_", ""))
        except ValueError:
            n = 0
        if n < 1:
            raise UserError(f"{self.env}={raw!r}: expected a positive whole number of {self.unit}")
        # Any larger is no limit at all (more than a machine holds), and a size past it overflows C's
        return min(n * self.scale, UNLIMITED)

    def amount(self, n: int) -> str:
        """n bytes, events or files in the limit's unit."""
        return f"{n / self.scale:,.1f} {self.unit}" if self.scale > 1 else f"{n:,} {self.unit}"

    def exceeded(self, where, holds: str, n: int = 0) -> UserError:
        """One line: the file, what it holds (n of them, where known), the limit, and how to raise it."""
        limit = self.value()
        enough = max(2 * limit, n) // self.scale + (1 if max(2 * limit, n) % self.scale else 0)
        return UserError(f"{where}: {holds}, over the limit of {limit // self.scale:,} {self.unit} ({self.what}, "
                         f"{self.env}); if it is genuine, raise the limit, e.g. {self.env}={enough}")

    def check(self, where, n: int) -> None:
        """n (bytes, events or files) within the limit, else the one-line error."""
        if n > self.value():
            raise self.exceeded(where, f"holds {self.amount(n)}", n)


TRACE_BYTES = Limit("GEN_MAX_TRACE_MB", 256, "MiB", "decompressed size of one trace", MIB)
TRACE_EVENTS = Limit("GEN_MAX_TRACE_EVENTS", 500_000, "events", "events in one trace")
TRACE_CALLS = Limit("GEN_MAX_TRACE_CALLS", 1_000, "calls", "profiled calls (forward#N ranges) in one trace")
CALL_EVENTS = Limit("GEN_MAX_CALL_EVENTS", 10_000, "events", "CPU and GPU events in one profiled call")
RESULT_BYTES = Limit("GEN_MAX_RESULT_MB", 64, "MiB", "size of one result.json", MIB)
SET_FILES = Limit("GEN_MAX_SET_FILES", 5_000, "files", "files in one result set or archive")
SET_BYTES = Limit("GEN_MAX_SET_MB", 1_024, "MiB", "bytes of one result set or archive, as stored", MIB)

ALL = (TRACE_BYTES, TRACE_EVENTS, TRACE_CALLS, CALL_EVENTS, RESULT_BYTES, SET_FILES, SET_BYTES)


def check_settings() -> None:
    """Every limit's variable, if set, is a positive whole number (else the one-line error)."""
    for lim in ALL:
        lim.value()


def check_result_file(path) -> None:
    """result.json within its limit, before it is read (json.loads holds several times its size)."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return  # missing: the load says so
    RESULT_BYTES.check(path, size)


def check_set(folder, files) -> None:
    """The files a set consists of (paths relative to folder) within the limits on their count and bytes."""
    sizes = []
    for rel in files:
        try:
            sizes.append(os.stat(os.path.join(folder, rel)).st_size)  # not a Path per file: a set has hundreds
        except OSError:
            continue  # missing: the load says so
    SET_FILES.check(folder, len(sizes))
    SET_BYTES.check(folder, sum(sizes))


def read_upto(fh, limit: int) -> bytes:
    """fh's bytes up to limit + 1 (more than limit: over it), read a chunk at a time: the memory taken
    is what the file holds up to the limit, never the limit itself (a raised limit is no allocation, and
    a gzip bomb stops at it)."""
    chunks, total = [], 0
    while total <= limit:
        chunk = fh.read(min(CHUNK, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)
