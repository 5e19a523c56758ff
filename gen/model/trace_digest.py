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

The file (version 3), gzipped: one line of JSON (the header: the set's strings and the other
tables, each trace's entry, the GPU events' launch numbers, last the seal), then the events' other columns as
packed little-endian arrays, in the order of CPU_COLUMNS then GPU_COLUMNS, each of as many values
as the entries' calls count (the layout below: `_PACKED`): the events of a set are read as arrays,
not a number at a time.
Its name is version 1's, so that a digest of version 1 is found, and named as of another version.

A digest is data from a set, untrusted like the rest: it is used only where its seal (the sha256
of all it holds, the traces' hashes included: SEAL_RE) holds, for a trace only where the
sha256 of the trace file's bytes is the one it records, and where every column has the types
and ranges `trace.parse` gives (else that trace is parsed): the packed columns have their types by
their layout, and each is checked against its bounds (an index within its table). It is derived,
not a source: a digest that is missing, or whose trace changed since, is parsed around without a
word; one that is damaged or of another version is parsed around with a note naming it (never an
error: the traces are there). The limits on a trace (gen.model.limits) are checked on the sizes it
records (on the events it holds where it records fewer), with parse's own errors; an event's name
longer than parse keeps makes the digest damaged. Standard library only: capture writes it on the GPU machine.
"""

from __future__ import annotations

import array
import dataclasses
import functools
import gzip
import hashlib
import json
import math
import re
import sys
import zlib
from pathlib import Path

from gen.model import layout, limits, trace
from gen.model.schema import UserError

FILE = "trace-digest.json.gz"  # beside result.json; not one of layout.set_files (a set's sources)
FORMAT = "attention-profile-report trace digest"
# Bump on any change to what parse makes of a trace (its rules, or the Trace's fields: those are also
# compared below) or to the layout: a digest of another version is parsed around, and
# `python -m gen digest` rewrites it.
VERSION = 3  # 3: sealed (SEAL)
FIELDS = {cls.__name__: [f.name for f in dataclasses.fields(cls)]
          for cls in (trace.Trace, trace.Forward, trace.CpuEvent, trace.GpuEvent, trace.Sizes)}
# An event's category as its place in these (compared like FIELDS: a category added is another version)
CATEGORIES = {"cpu": sorted(trace.CPU_CATS), "gpu": sorted(set(trace.GPU_KINDS.values()))}
MAX_TIME_US = trace.MAX_TIME_US
# The columns of a trace's events, in the order stored. Kinds: "id" a string of the table, "id?" one
# or None, "cat" a category (CATEGORIES), "time" a float in ±2^54 (a time relative to its call),
# "time?" one or None, "dur" a float in 0..2^53, "depth" an int from 0, "tid" an int, str or bool
# (of the table tids), "int?" an int or None (the table ints), "ints?" a tuple of 1 to 3 ints in
# ±2^53 or None (the table int_tuples), "ids" a tuple of strings (the table id_tuples): these are
# packed; "num?" an int or float in ±2^53 or None (a launch field) is a list in the header.
CPU_COLUMNS = (("name", "id"), ("cat", "cat"), ("ts", "time"), ("dur", "dur"), ("depth", "depth"), ("tid", "tid"),
               ("correlation", "int?"))
GPU_COLUMNS = (("name", "id"), ("kind", "cat"), ("ts", "time"), ("dur", "dur"), ("stream", "num?"),
               ("grid", "ints?"), ("block", "ints?"), ("registers_per_thread", "num?"), ("shared_memory", "num?"),
               ("blocks_per_sm", "num?"), ("warps_per_sm", "num?"), ("occupancy_pct", "num?"), ("bytes", "num?"),
               ("launch_api", "id?"), ("launch_ts", "time?"), ("launched_by", "id?"), ("op_path", "ids"),
               ("input_types", "ids"))
# The columns are the events' fields, each one (a field added to an event without its column fails here,
# not later); a GPU event's index (its place in its call) and short name (made from its name) are not stored.
assert [name for name, _ in CPU_COLUMNS] == FIELDS["CpuEvent"]
assert [name for name, _ in GPU_COLUMNS] == [f for f in FIELDS["GpuEvent"] if f not in ("index", "short_name")]
# kind -> (array typecode, the table its values index or None, the value that stands for None or None).
# An index of None is -1; a time of None is NaN (never a time: the checks refuse it where no None goes).
_PACKED = {"id": ("I", "strings", None), "id?": ("i", "strings", -1), "cat": ("B", "categories", None),
           "time": ("d", None, None), "time?": ("d", None, math.nan), "dur": ("d", None, None),
           "depth": ("q", None, None), "tid": ("I", "tids", None), "int?": ("i", "ints", -1),
           "ints?": ("i", "int_tuples", -1), "ids": ("I", "id_tuples", None)}
# Each typecode's size, the same on every platform CPython runs on (the layout depends on it)
assert {c: array.array(c).itemsize for c in "BiIqd"} == {"B": 1, "i": 4, "I": 4, "q": 8, "d": 8}
_SWAP = sys.byteorder != "little"  # stored little-endian


def sha256(path: Path) -> str:
    with open(path, "rb") as fh:  # a chunk at a time: a trace is not held whole to be hashed
        return hashlib.file_digest(fh, "sha256").hexdigest()


# --------------------------------------------------------------------------- writing


class _Table:
    """Values each stored once, by key (a string, a tid, a tuple): a value's place in the table."""

    def __init__(self, key=lambda v: v):
        self.ids: dict = {}
        self.values: list = []
        self.key = key

    def __call__(self, v) -> int:
        k = self.key(v)
        got = self.ids.get(k)
        if got is None:
            got = self.ids[k] = len(self.values)
            self.values.append(v)
        return got


def _entry(tr: trace.Trace, sizes: trace.Sizes, digest: str) -> dict:
    return {"sha256": digest, "text_bytes": sizes.text_bytes, "events": sizes.events,
            "unattributed": tr.unattributed, "device_properties": tr.device_properties,
            "forwards": [[fw.index, fw.ts, fw.dur, len(fw.cpu), len(fw.gpu)] for fw in tr.forwards]}


class _Encoder:
    """Each kind's value as it is stored: a number packed, or a list in the header ("num?")."""

    def __init__(self):
        self.strings = _Table()
        self.tables = {"strings": self.strings, "tids": _Table(lambda v: (type(v), v)), "ints": [],
                       "int_tuples": _Table(), "id_tuples": _Table()}
        self.cats = {side: {c: i for i, c in enumerate(cats)} for side, cats in CATEGORIES.items()}

    def column(self, kind: str, side: str, values: list) -> list:
        if kind == "num?":
            return values
        sid, ints = self.strings, self.tables["ints"]
        if kind == "id":
            return [sid(v) for v in values]
        if kind == "id?":
            return [-1 if v is None else sid(v) for v in values]
        if kind == "cat":
            return [self.cats[side][v] for v in values]
        if kind == "time?":
            return [math.nan if v is None else v for v in values]
        if kind == "tid":
            return list(map(self.tables["tids"], values))
        if kind == "int?":
            return [-1 if v is None else ints.append(v) or len(ints) - 1 for v in values]
        if kind == "ints?":
            return [-1 if v is None else self.tables["int_tuples"](v) for v in values]
        if kind == "ids":
            return [self.tables["id_tuples"](tuple(map(sid, v))) for v in values]
        return values  # time, dur, depth


def _packed(typecode: str, values: list) -> bytes:
    a = array.array(typecode, values)
    if _SWAP:
        a.byteswap()
    return a.tobytes()


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
    traces, cpu, gpu = {}, [], []
    for rel in sorted(parsed):
        tr, sizes, digest = parsed[rel]
        traces[rel] = _entry(tr, sizes, digest)
        cpu += [e for fw in tr.forwards for e in fw.cpu]
        gpu += [g for fw in tr.forwards for g in fw.gpu]
    enc, blob, numbers = _Encoder(), [], {}
    for side, spec, events in (("cpu", CPU_COLUMNS, cpu), ("gpu", GPU_COLUMNS, gpu)):
        for name, kind in spec:
            values = enc.column(kind, side, [getattr(e, name) for e in events])
            if kind == "num?":
                numbers[name] = values
            else:
                blob.append(_packed(_PACKED[kind][0], values))
    doc = {"format": FORMAT, "version": VERSION, "fields": FIELDS, "categories": CATEGORIES,
           **{k: list(t.values) if isinstance(t, _Table) else t for k, t in enc.tables.items()},
           "traces": traces, "gpu_numbers": numbers}
    # ASCII, with escapes (so one line: no newline but the one that ends it): a name holding a lone
    # surrogate (a JSON escape can make one) is kept as it was read; allow_nan, the default: so is a
    # deviceProperties value the trace wrote as NaN.
    text = json.dumps(doc, separators=(",", ":"))
    return gzip.compress(sealed(text.encode("ascii"), b"".join(blob)), compresslevel=6, mtime=0), bad


# The header's last field: the sha256 of the digest as written without it (its header, which holds
# each trace's sha256, then its packed columns). An entry is used only where its trace's bytes have
# the sha256 it records, and the table that entry's rows index (a kernel's name) only where the seal
# holds: a digest edited since it was written, a name in it changed and its hashes left alone, is
# parsed around, never believed. (A seal is no signature: whoever writes one again could as well
# write the traces; it keeps a digest to what its writer derived from the traces it names.)
SEAL_RE = re.compile(rb',"seal":"([0-9a-f]{64})"\}\Z')


def _seal_of(header: bytes | memoryview, blob: bytes | memoryview) -> str:
    h = hashlib.sha256(header)
    h.update(b"\n")
    h.update(blob)
    return h.hexdigest()


def sealed(header: bytes, blob: bytes) -> bytes:
    """A digest's bytes (before gzip) from its header (one line of JSON, an object) and its packed columns:
    the seal added as the header's last field."""
    seal = _seal_of(header, blob).encode("ascii")
    return header[:-1] + b',"seal":"' + seal + b'"}\n' + blob


def _check_seal(header: bytes, blob: memoryview) -> None:
    m = SEAL_RE.search(header)
    if m is None:
        raise Damaged("it has no seal")
    if _seal_of(header[:m.start()] + b"}", blob) != m[1].decode("ascii"):
        raise Damaged("its seal is not the sha256 of what it holds: it was changed since it was written")


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
        # text: some 1.6 MB for 200 traces of 17 MB): a gzip bomb is not read whole.
        with gzip.open(path, "rb") as fh:
            data = limits.read_upto(fh, limits.SET_BYTES.value())
    except FileNotFoundError:
        return None
    except (OSError, EOFError, zlib.error) as exc:
        _note(f"{path}: unreadable ({exc}); its traces are parsed instead ({_REWRITE})")
        return None
    try:
        if len(data) > limits.SET_BYTES.value():
            raise Damaged(f"larger than {limits.SET_BYTES.value() // limits.MIB:,} MiB once decompressed")
        end = data.find(b"\n")  # none in version 1: all JSON, whose version is then named
        doc = json.loads(data if end < 0 else data[:end])
        if type(doc) is not dict or doc.get("format") != FORMAT:
            raise Damaged("not a trace digest")
        if doc.get("version") != VERSION or doc.get("fields") != FIELDS or doc.get("categories") != CATEGORIES:
            _note(f"{path}: a trace digest of another version ({str(doc.get('version'))[:20]}, this code reads "
                  f"{VERSION}); its traces are parsed instead ({_REWRITE})")
            return None
        blob = memoryview(data)[end + 1:] if end >= 0 else memoryview(b"")
        _check_seal(data[:end] if end >= 0 else data, blob)
        digest = Digest(path, doc, blob)
    except (ValueError, RecursionError) as exc:  # Damaged, JSONDecodeError, UnicodeDecodeError
        _note(f"{path}: damaged ({str(exc)[:120]}); its traces are parsed instead ({_REWRITE})")
        return None
    return digest


_REWRITE = "`python -m gen digest <set>` writes it again"


class Digest:
    """A digest read and checked whole: its tables, each trace's entry and where its rows start,
    the events' columns (packed ones as arrays)."""

    def __init__(self, path: Path, doc: dict, blob: memoryview):
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
        sizes = _tables(doc, len(self.strings))  # and "categories", each side's, below
        self.tids, ints = doc["tids"], doc["ints"]
        size = sum(n * array.array(_PACKED[kind][0]).itemsize
                   for spec, n in ((CPU_COLUMNS, n_cpu), (GPU_COLUMNS, n_gpu)) for _, kind in spec if kind != "num?")
        if len(blob) != size:
            raise Damaged(f"its packed columns are {len(blob):,} bytes, not the {size:,} its calls count")
        at = 0
        self.cpu, self.gpu = [], []  # each column: an array (packed) or a list (num?)
        for side, spec, n, cols in (("cpu", CPU_COLUMNS, n_cpu, self.cpu), ("gpu", GPU_COLUMNS, n_gpu, self.gpu)):
            sizes["categories"] = len(CATEGORIES[side])
            for name, kind in spec:
                if kind == "num?":
                    col = _number_column(doc, name, n_gpu)
                else:
                    col = array.array(_PACKED[kind][0])
                    col.frombytes(blob[at:at + n * col.itemsize])
                    at += n * col.itemsize
                    if _SWAP:
                        col.byteswap()
                    _check_packed(kind, col, sizes)
                cols.append(col)
        # An event's name is one parse kept (cut at MAX_NAME): a longer one is no digest of a trace
        for side in (self.cpu, self.gpu):
            if side and side[0] and max(len(self.strings[i]) for i in set(side[0])) > trace.MAX_NAME_KEPT:
                raise Damaged(f"an event's name is longer than a trace's parse keeps ({trace.MAX_NAME_KEPT:,})")
        # What an index stands for, -1 (None) the last of each
        self.names = [*self.strings, None]
        self.cats = {side: tuple(CATEGORIES[side]) for side in CATEGORIES}
        self.ints = [*ints, None]
        self.int_tuples = [*map(tuple, doc["int_tuples"]), None]
        self.id_tuples = [tuple(map(self.strings.__getitem__, t)) for t in doc["id_tuples"]]

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
        # the events the entry holds, where it says fewer (a digest is read as untrusted as a trace)
        events = max(entry["events"], sum(f[3] + f[4] for f in entry["forwards"]))
        trace.check_sizes(path, trace.Sizes(entry["text_bytes"], events))
        # the call limits on the counts the entry records (those of the Trace it makes: _check_entry
        # and the columns' lengths), before it is made
        trace.check_call_sizes(str(path), [(f[0], f[3] + f[4]) for f in entry["forwards"]])
        return _build(str(path), entry, self, cpu_row, gpu_row)


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


# Each check over a whole column, in C loops (type, min, max, sum): a set holds some 30,000
# events. A NaN slips past min and max but not the sum; an infinity not past them.
def _within(col, lo: float, hi: float) -> bool:
    return not col or (lo <= min(col) and max(col) <= hi and math.isfinite(sum(col)))


def _ids(col, n: int) -> bool:
    return set(map(type, col)) <= {int} and (not col or (min(col) >= 0 and max(col) < n))


_NONE = type(None)
TIME = 2 * MAX_TIME_US  # a time relative to its call: the difference of two times within ±2^53


def _ints_ok(given: list) -> bool:
    flat = [v for x in given for v in x]
    return set(map(len, given)) <= {1, 2, 3} and set(map(type, flat)) <= {int} \
        and _within(flat, -MAX_TIME_US, MAX_TIME_US)


def _tables(doc: dict, n_strings: int) -> dict[str, int]:
    """The header's tables other than strings are what `write` writes, else Damaged; their sizes."""
    tids, ints, int_tuples, id_tuples = (doc.get(k) for k in ("tids", "ints", "int_tuples", "id_tuples"))
    if not (type(tids) is list and set(map(type, tids)) <= {int, str, bool}
            and type(ints) is list and set(map(type, ints)) <= {int}
            and type(int_tuples) is list and set(map(type, int_tuples)) <= {list} and _ints_ok(int_tuples)
            and type(id_tuples) is list and set(map(type, id_tuples)) <= {list}
            and _ids([i for t in id_tuples for i in t], n_strings)):
        raise Damaged("its tables (tids, ints, int_tuples, id_tuples) hold other values")
    return {"strings": n_strings, "tids": len(tids), "ints": len(ints), "int_tuples": len(int_tuples),
            "id_tuples": len(id_tuples)}


def _check_packed(kind: str, col: array.array, sizes: dict[str, int]) -> None:
    """A packed column's values in their kind's bounds (its type is its typecode's), else Damaged."""
    _, table, none = _PACKED[kind]
    if table is not None:
        ok = not col or (min(col) >= (-1 if none is not None else 0) and max(col) < sizes[table])
    elif kind == "time":
        ok = _within(col, -TIME, TIME)
    elif kind == "time?":
        ok = _within([x for x in col if x == x], -TIME, TIME)  # NaN, None, aside
    elif kind == "dur":
        ok = _within(col, 0, MAX_TIME_US)
    else:  # depth
        ok = not col or min(col) >= 0
    if not ok:
        raise Damaged(f"a {kind} column holds other values")


def _number_column(doc: dict, name: str, n: int) -> list:
    """A GPU event's launch field ("num?"): ints or floats within ±2^53, or None."""
    numbers = doc.get("gpu_numbers")
    col = numbers.get(name) if type(numbers) is dict else None
    if type(col) is not list or len(col) != n:
        raise Damaged(f"its gpu_numbers lack {name} ({n} values)")
    types = set(map(type, col))
    if not (types <= {int, float, _NONE} and _within(
            [x for x in col if x is not None] if _NONE in types else col, -MAX_TIME_US, MAX_TIME_US)):
        raise Damaged("a num? column holds other values")
    return col


def _build(path: str, entry: dict, d: Digest, c: int, g: int) -> trace.Trace:
    """The Trace of an entry whose events are the rows from c (CPU) and g (GPU) on; each call's CPU
    events made when first read (trace.later_cpu). The GPU rows of the whole trace are read in one
    pass (a slice of each column per trace, not per call: a set has 1,200 calls)."""
    forwards = []
    short = trace.short_name
    names, kinds, int_tuples, id_tuples = d.names, d.cats["gpu"], d.int_tuples, d.id_tuples
    n_trace = sum(f[4] for f in entry["forwards"])
    rows = zip(*(col[g:g + n_trace] for col in d.gpu))
    for index, ts, dur, n_cpu, n_gpu in entry["forwards"]:
        gpu_events = [trace.GpuEvent(
            i, names[name], short(names[name]), kinds[kind], t, du, stream, int_tuples[grid], int_tuples[block],
            regs, smem, bps, wps, occ, nbytes, names[api], lts if lts == lts else None, names[by],
            id_tuples[ops], id_tuples[itypes])
            for i, (name, kind, t, du, stream, grid, block, regs, smem, bps, wps, occ, nbytes, api, lts, by, ops,
                    itypes) in zip(range(n_gpu), rows)]
        fw = trace.Forward(index, ts, dur, gpu=gpu_events)
        forwards.append(trace.later_cpu(fw, functools.partial(_cpu_events, d, c, n_cpu)))
        c += n_cpu
    return trace.Trace(path, forwards, entry["unattributed"], entry["device_properties"])




def _cpu_events(d: Digest, c: int, n: int) -> list[trace.CpuEvent]:
    """The CPU events of the rows c to c + n."""
    s, cats, tids, ints = d.names, d.cats["cpu"], d.tids, d.ints
    return [trace.CpuEvent(s[name], cats[cat], t, du, depth, tids[tid], ints[corr])
            for name, cat, t, du, depth, tid, corr in zip(*(col[c:c + n] for col in d.cpu))]
