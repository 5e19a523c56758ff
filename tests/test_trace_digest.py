"""The traces' digest (gen.model.trace_digest): the same Trace as the parser's, for every committed
trace; parsed around where it is missing, stale, damaged or of another version; written by
import and by `python -m gen digest`; the limits on a trace hold through it."""

from __future__ import annotations

import array
import gzip
import hashlib
import json
import math
import shutil
from pathlib import Path

import pytest

from gen import importer
from gen.analysis import tables
from gen.model import schema, trace, trace_digest
from tests import gen_main

ROOT = Path(__file__).resolve().parent.parent


def _trace_files(folder: Path) -> list[str]:
    """trace_digest.trace_files of the set in folder: its result.json read once for the module for the same bytes
    (the committed sets' and their copies' are read by most tests here; the list depends on nothing else)."""
    data = (folder / schema.RESULT_FILE).read_bytes()
    key = hashlib.sha256(data).hexdigest()
    if key not in _TRACE_FILES:
        _TRACE_FILES[key] = trace_digest.trace_files(schema.load_set(folder))
    return list(_TRACE_FILES[key])


_TRACE_FILES: dict[str, list[str]] = {}


# Every committed set that has traces: results/ and the test fixtures.
SETS = [p for p in sorted([*(ROOT / "results").iterdir(), *(ROOT / "tests" / "data" / "sets").iterdir()])
        if (p / schema.RESULT_FILE).is_file() and _trace_files(p)]
H200 = ROOT / "results" / "nvidia-h200__torch-2.11.0"


def _parsed(folder: Path) -> dict[str, trace.Trace]:
    return {rel: trace.parse(folder / rel) for rel in _trace_files(folder)}


def _from_digest(folder: Path) -> dict[str, trace.Trace | None]:
    d = trace_digest.read(folder)
    assert d is not None, f"{folder}: no usable digest"
    return {rel: d.trace(folder / rel, rel) for rel in _trace_files(folder)}


def _same(a: trace.Trace | None, b: trace.Trace) -> bool:
    """Equal, and to the type of every value (0 is not 0.0, a tuple not a list): repr shows both."""
    return a is not None and a == b and repr(a) == repr(b)


def test_the_committed_sets_are_the_ones_named():
    names = {p.name for p in SETS}
    assert {"nvidia-h200__torch-2.11.0", "nvidia-h200__torch-2.11.0__schema1"} <= names and len(names) >= 6


@pytest.fixture(scope="module", params=SETS, ids=[p.name for p in SETS])
def committed(request) -> tuple[Path, dict[Path, tuple]]:
    """A committed set and each of its traces parsed (trace.parse_sized, by path), once for the two tests of the
    set below: pytest runs both for one set, then both for the next (one set's traces held at a time)."""
    folder = request.param
    return folder, {folder / rel: trace.parse_sized(folder / rel) for rel in _trace_files(folder)}


def test_every_committed_trace_is_the_same_from_its_digest(committed):
    folder, parses = committed
    parsed = {rel: parses[folder / rel][0] for rel in _trace_files(folder)}
    digested = _from_digest(folder)
    assert parsed and digested.keys() == parsed.keys()
    bad = [rel for rel in parsed if not _same(digested[rel], parsed[rel])]
    assert not bad, f"{folder.name}: {len(bad)} traces differ from their digest, e.g. {bad[:2]}"


def test_every_committed_digest_is_what_the_code_writes_now(committed, monkeypatch):
    """A change to the parser or to the Trace (and its VERSION bump) must come with the committed
    digests written again: `python -m gen digest <set>`. (The digest is written from the set's traces as the
    parser made them for the test above, not parsed a second time.)"""
    folder, parses = committed
    real = trace.parse_sized
    monkeypatch.setattr(trace, "parse_sized", lambda path: parses.get(Path(path)) or real(path))
    made, bad = trace_digest.dumps(folder, _trace_files(folder))
    assert not bad
    assert (folder / trace_digest.FILE).read_bytes() == made, \
        f"{folder}: its digest is not current; run python -m gen digest {folder.relative_to(ROOT)}"


def test_a_set_reads_its_traces_from_the_digest_without_parsing(monkeypatch):
    def refuse(path):
        raise AssertionError(f"parsed {path}")

    monkeypatch.setattr(trace, "parse", refuse)
    ls = tables.load_set(H200)  # checks every trace
    assert ls.trace("inference", "sdpa_flash").forwards


@pytest.fixture
def copy(tmp_path):
    dest = tmp_path / "results" / H200.name
    shutil.copytree(H200, dest)
    return dest


def _traces_of(folder: Path) -> dict[str, trace.Trace]:
    ls = tables.LoadedSet(folder.name, folder, schema.load_set(folder))
    ls.check_traces()
    return {rel: ls.sweep_trace(rel) for rel in trace_digest.trace_files(ls.rs)}


def test_without_a_digest_the_traces_are_parsed_and_nothing_is_said(copy, capfd):
    (copy / trace_digest.FILE).unlink()
    got = _traces_of(copy)
    assert all(_same(got[rel], t) for rel, t in _parsed(copy).items())
    assert capfd.readouterr().err == ""


def test_a_trace_changed_since_its_digest_is_parsed(copy, monkeypatch, capfd):
    rels = _trace_files(copy)
    changed = rels[0]
    shutil.copyfile(copy / rels[1], copy / changed)  # other bytes under the same name
    parsed = []
    real = trace.parse
    monkeypatch.setattr(trace, "parse", lambda p: parsed.append(Path(p)) or real(p))
    got = _traces_of(copy)
    assert parsed == [copy / changed]
    assert _same(got[changed], real(copy / changed)) and got[changed].path == str(copy / changed)
    assert capfd.readouterr().err == ""


def _split(data: bytes) -> tuple[dict, dict[str, dict[str, list]]]:
    """A digest's header and its packed columns (side -> column -> values), read without checks."""
    end = data.index(b"\n")
    doc, blob = json.loads(data[:end]), memoryview(data)[end + 1:]
    counts = {"cpu": 0, "gpu": 0}
    for entry in doc["traces"].values():
        counts["cpu"] += sum(f[3] for f in entry["forwards"])
        counts["gpu"] += sum(f[4] for f in entry["forwards"])
    cols, at = {"cpu": {}, "gpu": {}}, 0
    for side, spec in (("cpu", trace_digest.CPU_COLUMNS), ("gpu", trace_digest.GPU_COLUMNS)):
        for name, kind in spec:
            if kind != "num?":
                a = array.array(trace_digest._PACKED[kind][0])
                a.frombytes(blob[at:at + counts[side] * a.itemsize])
                at += counts[side] * a.itemsize
                cols[side][name] = a.tolist()
    assert at == len(blob)
    return doc, cols


def _rewrite(folder: Path, change) -> None:
    """The folder's digest with change(header, columns) made to it, its columns packed as they stand."""
    doc, cols = _split(gzip.decompress((folder / trace_digest.FILE).read_bytes()))
    change(doc, cols)
    blob = b"".join(trace_digest._packed(trace_digest._PACKED[kind][0], cols[side][name])
                    for side, spec in (("cpu", trace_digest.CPU_COLUMNS), ("gpu", trace_digest.GPU_COLUMNS))
                    for name, kind in spec if kind != "num?")
    # sealed again, as a forger would: each check below the seal is met on its own
    doc.pop("seal", None)
    header = json.dumps(doc, separators=(",", ":")).encode()
    (folder / trace_digest.FILE).write_bytes(gzip.compress(trace_digest.sealed(header, blob), 1))


def _set(side: str, name: str, value, i: int = 0):
    return lambda doc, cols: cols[side][name].__setitem__(i, value)


def _doc(change):
    return lambda doc, cols: change(doc)


DAMAGE = {
    "not gzip": lambda f: (f / trace_digest.FILE).write_bytes(b"not a digest"),
    "truncated": lambda f: (f / trace_digest.FILE).write_bytes((f / trace_digest.FILE).read_bytes()[:5000]),
    "not JSON": lambda f: (f / trace_digest.FILE).write_bytes(gzip.compress(b"{\"format\": ")),
    "the header alone": lambda f: (f / trace_digest.FILE).write_bytes(gzip.compress(
        gzip.decompress((f / trace_digest.FILE).read_bytes()).split(b"\n")[0])),
    "another format": lambda f: _rewrite(f, _doc(lambda d: d.update(format="something else"))),
    "a ts past 2^54": lambda f: _rewrite(f, _set("cpu", "ts", 2.0**60)),
    "an infinite ts": lambda f: _rewrite(f, _set("gpu", "ts", -math.inf)),
    "a NaN duration": lambda f: _rewrite(f, _set("gpu", "dur", math.nan)),
    "a NaN duration not first": lambda f: _rewrite(f, _set("cpu", "dur", math.nan, 7)),
    "a negative duration": lambda f: _rewrite(f, _set("cpu", "dur", -1.0)),
    "an infinite launch time": lambda f: _rewrite(f, _set("gpu", "launch_ts", math.inf, 3)),
    "a negative depth": lambda f: _rewrite(f, _set("cpu", "depth", -1)),
    "a name past the strings": lambda f: _rewrite(f, _set("cpu", "name", 10**6)),
    "a launch api past the strings": lambda f: _rewrite(f, _set("gpu", "launch_api", 10**6)),
    "an index below None's": lambda f: _rewrite(f, _set("gpu", "launched_by", -2)),
    "a category past the categories": lambda f: _rewrite(f, _set("cpu", "cat", 4)),
    "a tid past its table": lambda f: _rewrite(f, lambda d, c: _set("cpu", "tid", len(d["tids"]))(d, c)),
    "a correlation past its table": lambda f: _rewrite(
        f, lambda d, c: _set("cpu", "correlation", len(d["ints"]), 5)(d, c)),
    "a grid past its table": lambda f: _rewrite(f, lambda d, c: _set("gpu", "grid", len(d["int_tuples"]))(d, c)),
    "ops past their table": lambda f: _rewrite(f, lambda d, c: _set("gpu", "op_path", len(d["id_tuples"]))(d, c)),
    "a bool where a number goes": lambda f: _rewrite(f, _doc(lambda d: d["gpu_numbers"]["stream"].__setitem__(
        0, True))),
    "a string where a number goes": lambda f: _rewrite(f, _doc(lambda d: d["gpu_numbers"]["bytes"].__setitem__(
        0, "12"))),
    "a launch number short": lambda f: _rewrite(f, _doc(lambda d: d["gpu_numbers"]["occupancy_pct"].pop())),
    "a bool where a correlation goes": lambda f: _rewrite(f, _doc(lambda d: d["ints"].__setitem__(0, True))),
    "a tid that is a list": lambda f: _rewrite(f, _doc(lambda d: d["tids"].__setitem__(0, [1]))),
    "a string that is a number": lambda f: _rewrite(f, _doc(lambda d: d["strings"].__setitem__(0, 5))),
    "a grid of four": lambda f: _rewrite(f, _doc(lambda d: d["int_tuples"].__setitem__(0, [1, 2, 3, 4]))),
    "a grid of a float": lambda f: _rewrite(f, _doc(lambda d: d["int_tuples"].__setitem__(0, [1.0]))),
    "an op past the strings": lambda f: _rewrite(f, _doc(lambda d: d["id_tuples"].__setitem__(-1, [10**6]))),
    "a column short": lambda f: _rewrite(f, lambda d, c: c["gpu"]["dur"].pop()),
    "a column long": lambda f: _rewrite(f, lambda d, c: c["cpu"]["correlation"].append(-1)),
    "a call without counts": lambda f: _rewrite(
        f, _doc(lambda d: next(iter(d["traces"].values()))["forwards"][0].pop())),
    "a name longer than parse keeps": lambda f: _rewrite(f, lambda d, c: d["strings"].__setitem__(
        c["gpu"]["name"][0], "k" * (trace.MAX_NAME_KEPT + 1))),
    "an entry without its hash": lambda f: _rewrite(f, _doc(lambda d: next(iter(d["traces"].values())).pop("sha256"))),
}


def test_the_damage_done_is_there_to_find(copy):
    """Each damage below changes the digest (a test of a change that misses would pass unseen)."""
    before = gzip.decompress((copy / trace_digest.FILE).read_bytes())
    doc, cols = _split(before)
    assert doc["ints"] and doc["tids"] and doc["int_tuples"] and doc["id_tuples"]
    for name, damage in DAMAGE.items():
        damage(copy)
        try:
            after = _split(gzip.decompress((copy / trace_digest.FILE).read_bytes()))
        except (OSError, EOFError, ValueError, LookupError, AssertionError):
            after = None  # not a digest to split: changed
        assert after != (doc, cols), name
        (copy / trace_digest.FILE).write_bytes(gzip.compress(before, 1))


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_digest_is_parsed_around_with_a_note_naming_it(copy, damage, capfd):
    """The digest is refused whole (one note) and each trace parsed: a few of them compared with parse's
    (every one of 196, for each of 35 damages, was half a minute of the suite)."""
    DAMAGE[damage](copy)
    ls = tables.LoadedSet(copy.name, copy, schema.load_set(copy))
    rels = trace_digest.trace_files(ls.rs)
    rels = rels[:2] + rels[-2:]
    assert all(_same(ls.sweep_trace(rel), trace.parse(copy / rel)) for rel in rels)
    err = capfd.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"note: {copy / trace_digest.FILE}: ")
    assert "python -m gen digest" in err[0]


def test_a_digest_of_another_version_is_parsed_around_with_a_note(copy, monkeypatch, capfd):
    monkeypatch.setattr(trace_digest, "VERSION", trace_digest.VERSION + 1)
    got = _traces_of(copy)
    assert all(_same(got[rel], t) for rel, t in _parsed(copy).items())
    err = capfd.readouterr().err
    assert "a trace digest of another version" in err and str(copy / trace_digest.FILE) in err
    # and so is one whose Trace has other fields than the code's
    monkeypatch.undo()
    monkeypatch.setitem(trace_digest.FIELDS, "CpuEvent", [*trace_digest.FIELDS["CpuEvent"], "new"])
    assert trace_digest.read(copy) is None and "another version" in capfd.readouterr().err


def test_a_digest_of_version_1_is_named_as_of_another_version(copy, capfd):
    """Version 1 was all JSON (its events' columns in it, no line of packed columns after): the
    file a set made before version 2 holds is found, and named, never taken for damaged."""
    doc, _ = _split(gzip.decompress((copy / trace_digest.FILE).read_bytes()))
    old = {"format": trace_digest.FORMAT, "version": 1, "fields": doc["fields"], "strings": doc["strings"],
           "traces": doc["traces"], "cpu": [[] for _ in trace_digest.CPU_COLUMNS],
           "gpu": [[] for _ in trace_digest.GPU_COLUMNS]}
    (copy / trace_digest.FILE).write_bytes(gzip.compress(json.dumps(old, separators=(",", ":")).encode()))
    got = _traces_of(copy)
    assert all(_same(got[rel], t) for rel, t in _parsed(copy).items())
    err = capfd.readouterr().err.strip().splitlines()
    assert err == [f"note: {copy / trace_digest.FILE}: a trace digest of another version (1, this code reads "
                   f"{trace_digest.VERSION}); its traces are parsed instead (`python -m gen digest <set>` writes it "
                   f"again)"]


@pytest.mark.parametrize("env, value", [("GEN_MAX_TRACE_EVENTS", "1000"), ("GEN_MAX_TRACE_MB", "1"),
                                        ("GEN_MAX_TRACE_CALLS", "2"), ("GEN_MAX_CALL_EVENTS", "100")])
def test_the_limits_on_a_trace_say_the_same_through_the_digest(copy, monkeypatch, env, value):
    if env == "GEN_MAX_TRACE_MB":  # no committed trace reaches 1 MiB: one made to
        big = copy / "traces" / "article__inference__naive.json.gz"
        doc = json.loads(gzip.decompress(big.read_bytes()))
        doc["padding"] = "x" * (1 << 20)
        big.write_bytes(gzip.compress(json.dumps(doc).encode()))
        assert trace_digest.write(copy, _trace_files(copy)) == []
    monkeypatch.setenv(env, value)
    rels = _trace_files(copy)
    d = trace_digest.read(copy)
    for rel in rels:
        try:
            trace.parse(copy / rel)
        except schema.UserError as exc:
            expected = str(exc)
            break
    else:
        pytest.fail(f"no committed trace is over {env}={value}")
    with pytest.raises(schema.UserError) as got:
        for rel in rels:
            d.trace(copy / rel, rel)
    assert str(got.value) == expected and env in expected


def test_an_entry_that_counts_fewer_events_than_it_holds_is_held_to_what_it_holds(copy, monkeypatch):
    """The per-trace event limit is checked on the events the entry holds where it says fewer."""
    rel = max(_trace_files(copy), key=lambda r: (copy / r).stat().st_size)
    held = trace_digest.read(copy).entries[rel][0]
    n = sum(f[3] + f[4] for f in held["forwards"])
    _rewrite(copy, _doc(lambda d: d["traces"][rel].update(events=0)))
    monkeypatch.setenv("GEN_MAX_TRACE_EVENTS", str(n - 1))
    with pytest.raises(schema.UserError, match="GEN_MAX_TRACE_EVENTS"):
        trace_digest.read(copy).trace(copy / rel, rel)


def test_the_digest_is_the_same_bytes_for_the_same_traces(copy):
    rels = _trace_files(copy)
    a, _ = trace_digest.dumps(copy, rels)
    b, _ = trace_digest.dumps(copy, list(reversed(rels)))
    assert a == b == (H200 / trace_digest.FILE).read_bytes()


def test_a_trace_that_does_not_parse_is_left_out_where_asked(copy):
    rels = _trace_files(copy)
    (copy / rels[0]).write_bytes(gzip.compress(b"{}"))
    with pytest.raises(trace.TraceError, match="no traceEvents"):
        trace_digest.dumps(copy, rels)
    bad = trace_digest.write(copy, rels, skip_bad=True)  # capture: the set is still published
    assert len(bad) == 1 and rels[0] in bad[0]
    d = trace_digest.read(copy)
    assert d.trace(copy / rels[0], rels[0]) is None and d.trace(copy / rels[1], rels[1]) is not None


def test_import_writes_its_own_digest(tmp_path, capfd):
    source = tmp_path / "from" / H200.name
    shutil.copytree(H200, source)
    (source / trace_digest.FILE).write_bytes(b"whatever came with it")
    final = importer.run(source, tmp_path / "results")
    assert "left out" not in capfd.readouterr().err  # the digest that came with it: not said
    assert (final / trace_digest.FILE).read_bytes() == (H200 / trace_digest.FILE).read_bytes()
    # merged: the digest of the merged set's traces
    other = tmp_path / "from2" / H200.name
    shutil.copytree(ROOT / "tests" / "data" / "sets" / "nvidia-h200__torch-2.11.0__rerun", other)
    rs = schema.load_set(other)
    merged = importer.run(other, tmp_path / "results", merge=True, force=True)
    made, _ = trace_digest.dumps(merged, _trace_files(merged))
    assert (merged / trace_digest.FILE).read_bytes() == made and rs.runs


def test_the_digest_verb_writes_one_for_a_set_without(copy):
    (copy / trace_digest.FILE).unlink()
    # the verb's output and exit status, from the CLI's main in this process (tests/gen_main.py): a process of its
    # own paid Python's start and the imports again
    p = gen_main.run("digest", str(copy), cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(copy / trace_digest.FILE)
    assert (copy / trace_digest.FILE).read_bytes() == (H200 / trace_digest.FILE).read_bytes()
    (copy / "traces" / "article__inference__naive.json.gz").write_bytes(b"junk")
    p = gen_main.run("digest", "--results", str(copy.parent), cwd=ROOT)
    assert p.returncode == 2 and p.stderr.startswith("error: ") and "article__inference__naive" in p.stderr


def test_a_calls_cpu_events_are_made_when_first_read():
    """The digest's Trace makes each call's CPU events when they are first read: equal to the parsed
    trace's (to the type), and so is a copy or a pickle of one unread."""
    import copy as copying
    import pickle

    d = trace_digest.read(H200)
    parsed = _parsed(H200)
    for rel in d.entries:
        old = parsed[rel]
        new = d.trace(H200 / rel, rel)
        assert all("cpu" not in vars(fw) for fw in new.forwards)  # none made yet
        assert _same(pickle.loads(pickle.dumps(new)), old) and _same(copying.deepcopy(new), old)
        fresh = d.trace(H200 / rel, rel)
        first = fresh.forwards[0].cpu
        assert first is fresh.forwards[0].cpu and all("cpu" not in vars(fw) for fw in fresh.forwards[1:])
        assert _same(fresh, old) and fresh == old
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        new.forwards[0].nope  # noqa: B018


