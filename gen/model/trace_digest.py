"""A result set's traces digested once: each trace's Trace kept as a compact table beside them.

Takes: a set folder and the traces its records name. Gives: `write(folder, rels)` (each trace
parsed by gen.model.trace, its Trace stored as columns in FILE, written atomically), `read(folder)`
(the digest, or None where it is missing, damaged or of another version) and `Digest.trace(path,
rel)` (the Trace of one trace, equal to what `trace.parse(path)` gives, or None where the digest
holds none for the file's present bytes: the caller parses the trace then).

Why: a set's ~200 traces are 17 MB of JSON; parsing and checking them took a quarter of a set's
time in a cold build (benchmarks/bench_build.md). The Trace is what the report reads of a trace
(its calls' CPU events and GPU events with their launch fields), and the digest holds exactly its
fields, nothing of the trace besides. Capture writes it when it publishes a set, `gen import`
when it publishes one, `python -m gen digest` for a set that has none.

A digest is data from a set, untrusted like the rest: it is used for a trace only where the
sha256 of the trace file's bytes is the one it records, and where every column has the types
and ranges `trace.parse` gives (else that trace is parsed). It is derived, not a source: a digest
that is missing, or whose trace changed since, is parsed around without a word; one that is damaged
or of another version is parsed around with a note naming it (never an error: the traces are
there). The limits on a trace (gen.model.limits) are checked on the sizes it records, with
parse's own errors. Standard library only: capture writes it on the GPU machine.
"""

from __future__ import annotations

import dataclasses
import functools
import gzip
import hashlib
import json
import math
import sys
import zlib
from pathlib import Path

from gen.model import layout, limits, trace
from gen.model.schema import UserError

FILE = "trace-digest.json.gz"  # beside result.json; not one of layout.set_files (a set's sources)
FORMAT = "attention-profile-report trace digest"
# Bump on any change to what parse makes of a trace (its rules, or the Trace's fields: those are also
# compared below): a digest of another version is parsed around, and `python -m gen digest` rewrites it.
VERSION = 1
FIELDS = {cls.__name__: [f.name for f in dataclasses.fields(cls)]
          for cls in (trace.Trace, trace.Forward, trace.CpuEvent, trace.GpuEvent, trace.Sizes)}
MAX_TIME_US = trace.MAX_TIME_US
# The columns of a trace's events, in the order stored. Kinds: "id" a string of the table, "id?" one
# or None, "ids" a tuple of them; "time" a float in ±2^54 (a time relative to its call), "dur" a
# float in 0..2^53, "num?" an int or float in ±2^53 or None (a launch field), "ints?" a tuple of
# 1 to 3 ints in ±2^53 or None, "int?" an int or None, "depth" an int from 0, "tid" an int or str.
CPU_COLUMNS = (("name", "id"), ("cat", "id"), ("ts", "time"), ("dur", "dur"), ("depth", "depth"), ("tid", "tid"),
               ("correlation", "int?"))
GPU_COLUMNS = (("name", "id"), ("kind", "id"), ("ts", "time"), ("dur", "dur"), ("stream", "num?"),
               ("grid", "ints?"), ("block", "ints?"), ("registers_per_thread", "num?"), ("shared_memory", "num?"),
               ("blocks_per_sm", "num?"), ("warps_per_sm", "num?"), ("occupancy_pct", "num?"), ("bytes", "num?"),
               ("launch_api", "id?"), ("launch_ts", "time?"), ("launched_by", "id?"), ("op_path", "ids"),
               ("input_types", "ids"))
# The columns are the events' fields, each one (a field added to an event without its column fails here,
# not later); a GPU event's index (its place in its call) and short name (made from its name) are not stored.
assert [name for name, _ in CPU_COLUMNS] == FIELDS["CpuEvent"]
assert [name for name, _ in GPU_COLUMNS] == [f for f in FIELDS["GpuEvent"] if f not in ("index", "short_name")]


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# --------------------------------------------------------------------------- writing


class _Strings:
    """The set's strings (names, categories, ops, input types), each stored once."""

    def __init__(self):
        self.ids: dict[str, int] = {}

    def __call__(self, s: str | None) -> int | None:
        if s is None:
            return None
        got = self.ids.get(s)
        if got is None:
            got = self.ids[s] = len(self.ids)
        return got


def _entry(tr: trace.Trace, sizes: trace.Sizes, digest: str) -> dict:
    return {"sha256": digest, "text_bytes": sizes.text_bytes, "events": sizes.events,
            "unattributed": tr.unattributed, "device_properties": tr.device_properties,
            "forwards": [[fw.index, fw.ts, fw.dur, len(fw.cpu), len(fw.gpu)] for fw in tr.forwards]}


def _cpu_row(e: trace.CpuEvent, sid: _Strings) -> tuple:
    return sid(e.name), sid(e.cat), e.ts, e.dur, e.depth, e.tid, e.correlation


def _gpu_row(g: trace.GpuEvent, sid: _Strings) -> tuple:
    return (sid(g.name), sid(g.kind), g.ts, g.dur, g.stream, g.grid, g.block, g.registers_per_thread,
            g.shared_memory, g.blocks_per_sm, g.warps_per_sm, g.occupancy_pct, g.bytes, sid(g.launch_api),
            g.launch_ts, sid(g.launched_by), [sid(o) for o in g.op_path], [sid(t) for t in g.input_types])


def dumps(folder: Path, rels: list[str], skip_bad: bool = False) -> tuple[bytes, list[str]]:
    """The digest of the traces rels (paths relative to folder), gzipped, and the messages of the
    traces left out (skip_bad: one that does not parse is left out, to be parsed, and refused, by
    whoever reads it; else its error is raised). The same traces give the same bytes.
    The events of all traces are columns of one table, in the order of the traces (by path), their
    calls and their events: a trace's rows are where the counts of the traces before it end."""
    parsed, bad = {}, []
    for rel in dict.fromkeys(rels):  # parsed in the order given: the first bad trace is the caller's first
        path = Path(folder) / rel
        try:
            parsed[rel] = (*trace.parse_sized(path), sha256(path))
        except UserError as exc:
            if not skip_bad:
                raise
            bad.append(str(exc))
    sid, traces, cpu, gpu = _Strings(), {}, [], []
    for rel in sorted(parsed):
        tr, sizes, digest = parsed[rel]
        traces[rel] = _entry(tr, sizes, digest)
        cpu += [_cpu_row(e, sid) for fw in tr.forwards for e in fw.cpu]
        gpu += [_gpu_row(g, sid) for fw in tr.forwards for g in fw.gpu]
    doc = {"format": FORMAT, "version": VERSION, "fields": FIELDS, "strings": list(sid.ids), "traces": traces,
           "cpu": [list(c) for c in zip(*cpu)] if cpu else [[] for _ in CPU_COLUMNS],
           "gpu": [list(c) for c in zip(*gpu)] if gpu else [[] for _ in GPU_COLUMNS]}
    # ASCII, with escapes: a name holding a lone surrogate (a JSON escape can make one) is kept as it
    # was read; allow_nan, the default: so is a deviceProperties value the trace wrote as NaN.
    text = json.dumps(doc, separators=(",", ":"))
    return gzip.compress(text.encode("ascii"), compresslevel=6, mtime=0), bad


def trace_files(rs) -> list[str]:
    """The traces a set's records name (layout.set_files, less result.json and capture.log)."""
    return [f for f in layout.set_files(rs) if f not in (layout.RESULT_FILE, layout.CAPTURE_LOG)]


def write(folder: Path, rels: list[str], skip_bad: bool = False) -> list[str]:
    """Write folder/FILE for the traces rels, atomically; returns the messages of traces left out (skip_bad)."""
    data, bad = dumps(folder, rels, skip_bad)
    layout.atomic_write_bytes(Path(folder) / FILE, data)
    return bad


# --------------------------------------------------------------------------- reading


def _note(msg: str) -> None:
    print(f"note: {msg}", file=sys.stderr, flush=True)


class Damaged(ValueError):
    """A digest, or one trace's entry, that is not what `write` writes."""


def read(folder: Path) -> Digest | None:
    """The set's digest; None where it has none (said nowhere), or where it is damaged or of
    another version (said in a note on stderr: its traces are parsed instead)."""
    path = Path(folder) / FILE
    try:
        # Decompressed up to the limit on a whole set's bytes (a digest holds less than its traces'
        # text: some 2.5 MB for 200 traces of 17 MB): a gzip bomb is not read whole.
        with gzip.open(path, "rb") as fh:
            data = fh.read(limits.SET_BYTES.value() + 1)
    except FileNotFoundError:
        return None
    except (OSError, EOFError, zlib.error) as exc:
        _note(f"{path}: unreadable ({exc}); its traces are parsed instead ({_REWRITE})")
        return None
    try:
        if len(data) > limits.SET_BYTES.value():
            raise Damaged(f"larger than {limits.SET_BYTES.value() // limits.MIB:,} MiB once decompressed")
        doc = json.loads(data)
        if type(doc) is not dict or doc.get("format") != FORMAT:
            raise Damaged("not a trace digest")
        if doc.get("version") != VERSION or doc.get("fields") != FIELDS:
            _note(f"{path}: a trace digest of another version ({str(doc.get('version'))[:20]}, this code reads "
                  f"{VERSION}); its traces are parsed instead ({_REWRITE})")
            return None
        digest = Digest(path, doc)
    except (ValueError, RecursionError) as exc:  # Damaged, JSONDecodeError, UnicodeDecodeError
        _note(f"{path}: damaged ({str(exc)[:120]}); its traces are parsed instead ({_REWRITE})")
        return None
    return digest


_REWRITE = "`python -m gen digest <set>` writes it again"


class Digest:
    """A digest read and checked whole: its strings, each trace's entry and where its rows start."""

    def __init__(self, path: Path, doc: dict):
        self.path = path
        self.strings, traces = doc.get("strings"), doc.get("traces")
        if type(self.strings) is not list or set(map(type, self.strings)) - {str} or type(traces) is not dict:
            raise Damaged("no strings or traces")
        self.entries: dict[str, tuple[dict, int, int]] = {}  # rel -> (entry, its first CPU row, first GPU row)
        n_cpu = n_gpu = 0
        for rel, entry in traces.items():
            _check_entry(entry)
            self.entries[rel] = (entry, n_cpu, n_gpu)
            n_cpu += sum(f[3] for f in entry["forwards"])
            n_gpu += sum(f[4] for f in entry["forwards"])
        self.cpu = _columns(doc, "cpu", CPU_COLUMNS, n_cpu, self.strings)
        self.gpu = _columns(doc, "gpu", GPU_COLUMNS, n_gpu, self.strings)

    def trace(self, path: Path, rel: str) -> trace.Trace | None:
        """The Trace of the trace at path (rel: its path in the set), as trace.parse(path) makes it;
        None where the digest has no entry for the file's present bytes (changed since, or none).
        The limits are checked on it: over one, parse's error is raised."""
        got = self.entries.get(rel)
        if got is None:
            return None
        entry, cpu_row, gpu_row = got
        try:
            if entry["sha256"] != sha256(path):
                return None
        except OSError:
            return None  # missing or unreadable: parse says which
        trace.check_sizes(path, trace.Sizes(entry["text_bytes"], entry["events"]))
        # trace.check_calls on the counts the entry records (those of the Trace it makes: _check_entry
        # and the columns' lengths), before it is made
        trace.check_call_sizes(str(path), [(f[0], f[3] + f[4]) for f in entry["forwards"]])
        return _build(str(path), entry, self.strings, self.cpu, cpu_row, self.gpu, gpu_row)


def _count(x) -> bool:
    return type(x) is int and x >= 0


def _check_entry(entry) -> None:
    """One trace's entry is what `write` writes (its events aside), else Damaged."""
    if type(entry) is not dict or type(entry.get("sha256")) is not str or not all(
            _count(entry.get(k)) for k in ("text_bytes", "events", "unattributed")):
        raise Damaged("a trace's entry lacks its sha256 or counts")
    if type(entry.get("device_properties")) is not list:
        raise Damaged("a trace's device_properties are not a list")
    forwards = entry.get("forwards")
    if type(forwards) is not list or not all(
            type(f) is list and len(f) == 5 and type(f[0]) is int and 0 <= f[0] < 10**9
            and type(f[1]) is float and type(f[2]) is float and _within(f[1:2], -MAX_TIME_US, MAX_TIME_US)
            and _within(f[2:3], 0, MAX_TIME_US) and _count(f[3]) and _count(f[4]) for f in forwards):
        raise Damaged("a trace's forwards are not [index, ts, dur, CPU events, GPU events]")


# Each kind's check over a whole column, in C loops (type, min, max, sum): a set holds some
# 30,000 events. A NaN slips past min and max but not the sum; an infinity not past them.
def _within(col: list, lo: float, hi: float) -> bool:
    return not col or (lo <= min(col) and max(col) <= hi and math.isfinite(sum(col)))


def _ids(col: list, n_strings: int) -> bool:
    return set(map(type, col)) <= {int} and (not col or (min(col) >= 0 and max(col) < n_strings))


_NONE = type(None)
TIME = 2 * MAX_TIME_US  # a time relative to its call: the difference of two times within ±2^53


def _ints_ok(given: list) -> bool:
    flat = [v for x in given for v in x]
    return set(map(len, given)) <= {1, 2, 3} and set(map(type, flat)) <= {int} \
        and _within(flat, -MAX_TIME_US, MAX_TIME_US)


# kind -> (the types its values may have, a check of its values other than None given the number of strings)
_KINDS = {
    "id": ({int}, lambda v, n: _ids(v, n)),
    "id?": ({int, _NONE}, lambda v, n: _ids(v, n)),
    "ids": ({list}, lambda v, n: _ids([x for ids in v for x in ids], n)),
    "time": ({float}, lambda v, n: _within(v, -TIME, TIME)),
    "time?": ({float, _NONE}, lambda v, n: _within(v, -TIME, TIME)),
    "dur": ({float}, lambda v, n: _within(v, 0, MAX_TIME_US)),
    "num?": ({int, float, _NONE}, lambda v, n: _within(v, -MAX_TIME_US, MAX_TIME_US)),
    "ints?": ({list, _NONE}, lambda v, n: _ints_ok(v)),
    "int?": ({int, _NONE}, lambda v, n: True),
    "depth": ({int}, lambda v, n: not v or min(v) >= 0),
    "tid": ({int, str, bool}, lambda v, n: True),
}


def _check(kind: str, col: list, n_strings: int) -> None:
    allowed, values_ok = _KINDS[kind]
    types = set(map(type, col))
    if not (types <= allowed and values_ok([x for x in col if x is not None] if _NONE in types else col, n_strings)):
        raise Damaged(f"a {kind} column holds other values")


def _columns(doc: dict, key: str, spec: tuple, n: int, strings: list[str]) -> list[list]:
    cols = doc.get(key)
    if type(cols) is not list or len(cols) != len(spec) or any(type(c) is not list or len(c) != n for c in cols):
        raise Damaged(f"its {key} columns are not {len(spec)} columns of {n} values")
    for (_, kind), col in zip(spec, cols):
        _check(kind, col, len(strings))
    # The categories an event may have: those parse keeps
    if {strings[i] for i in cols[1]} - (trace.CPU_CATS if key == "cpu" else set(trace.GPU_KINDS.values())):
        raise Damaged(f"a {key} event of a category parse does not keep")
    return cols


def _build(path: str, entry: dict, s: list[str], cpu: list[list], c: int, gpu: list[list], g: int) -> trace.Trace:
    """The Trace of an entry whose events are the rows from c (CPU) and g (GPU) on; each call's CPU
    events made when first read (trace.later_cpu)."""
    forwards = []
    short = trace.short_name
    name_of = s.__getitem__
    for index, ts, dur, n_cpu, n_gpu in entry["forwards"]:
        gpu_events = [_gpu_event((
            i, s[name], short(s[name]), s[kind], t, d, stream, tuple(grid) if grid is not None else None,
            tuple(block) if block is not None else None, regs, smem, bps, wps, occ, nbytes,
            s[api] if api is not None else None, lts, s[by] if by is not None else None,
            tuple(map(name_of, ops)), tuple(map(name_of, itypes))))
            for i, (name, kind, t, d, stream, grid, block, regs, smem, bps, wps, occ, nbytes, api, lts, by, ops,
                    itypes) in enumerate(zip(*(col[g:g + n_gpu] for col in gpu)))]
        fw = trace.Forward(index, ts, dur, gpu=gpu_events)
        forwards.append(trace.later_cpu(fw, functools.partial(_cpu_events, s, cpu, c, n_cpu)))
        c, g = c + n_cpu, g + n_gpu
    return trace.Trace(path, forwards, entry["unattributed"], entry["device_properties"])


_GPU_FIELDS = tuple(FIELDS["GpuEvent"])
_new = object.__new__


def _gpu_event(values: tuple) -> trace.GpuEvent:
    """GpuEvent(*values), its fields set without its __init__: a frozen dataclass's sets each of its 20
    fields through object.__setattr__ (9 ms of the H200 set's 4,400 events; 4 ms so). The same object:
    the same fields in the same order, compared, hashed and shown alike; nothing else runs in __init__."""
    ev = _new(trace.GpuEvent)
    ev.__dict__.update(zip(_GPU_FIELDS, values))
    return ev


def _cpu_events(s: list[str], cpu: list[list], c: int, n: int) -> list[trace.CpuEvent]:
    """The CPU events of the rows c to c + n."""
    return [trace.CpuEvent(s[name], s[cat], t, d, depth, tid, corr)
            for name, cat, t, d, depth, tid, corr in zip(*(col[c:c + n] for col in cpu))]
