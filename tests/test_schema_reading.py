"""Reading a result.json (parse_json then from_dict, as load_set reads it): every committed set reads
back what it writes, to the type; damaged copies are read or refused in one line naming the file; the
traces' paths are checked inside the set's folder."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import shutil
from pathlib import Path

import pytest

from gen.model import schema

ROOT = Path(__file__).resolve().parent.parent
SETS = sorted(p for base in (ROOT / "results", ROOT / "tests" / "data" / "sets") for p in base.iterdir()
              if (p / schema.RESULT_FILE).is_file())


def _read(text: str, where: str = "x"):
    """The set, or the message it is refused with."""
    try:
        return schema.from_dict(schema.parse_json(text, where), where)
    except schema.SchemaError as exc:
        return str(exc)


def _same(a, b, at: str = "") -> None:
    """Equal, and of the same types all the way down (1 == 1.0, but a float field holds a float)."""
    assert type(a) is type(b), (at, type(a), type(b))
    if dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            _same(getattr(a, f.name), getattr(b, f.name), f"{at}.{f.name}")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), at
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{at}[{i}]")
    elif isinstance(a, dict):
        assert list(a) == list(b), at
        for k in a:
            _same(a[k], b[k], f"{at}.{k}")
    else:
        assert a == b or (a != a and b != b), at


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_every_committed_set_reads_back_what_it_writes(path):
    """load_set, then dumps, then the reading again: the same set, to the type of every field."""
    rs = schema.load_set(path)
    _same(_read(schema.dumps(rs)), rs)


def _positions(data, at=()):
    """Every place of a value in decoded JSON: (path of keys and indexes)."""
    yield at
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _positions(v, (*at, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _positions(v, (*at, i))


def _put(data, at, value):
    node = data
    for k in at[:-1]:
        node = node[k]
    node[at[-1]] = value


RAW = "\x00RAW\x00"  # a value written into the text as is (a number JSON reads as infinite, NaN)
BAD = [None, True, 0, -1, 0.5, 101, 1e16, -1e16, 2**70, "", "x", "inference", "sliding", "a\u202eb", "a\nb", "a\tb",
       "y" * 5000, [], [1.5], ["x"], {}, {"batch": 1}, f"{RAW}1e400", f"{RAW}-1e400", f"{RAW}NaN", f"{RAW}Infinity",
       f"{RAW}{'9' * 30}", f"{RAW}1.0e15", f"{RAW}-0.0"]


def _text(data) -> str:
    text = json.dumps(data)
    for value in BAD:
        if isinstance(value, str) and value.startswith(RAW):
            text = text.replace(json.dumps(value), value[len(RAW):])
    return text


def test_damaged_copies_are_read_or_refused_in_one_line():
    """Values of every kind put in a hundred-odd places of the committed H200 set (one at a time): each
    copy is read (and reads back what it writes) or refused with one line that names the file."""
    data = json.loads((ROOT / "results" / "nvidia-h200__torch-2.11.0" / schema.RESULT_FILE).read_text())
    # a lighter set of the same shapes: a few records of each list
    data["runs"], data["sweep"] = data["runs"][:4], data["sweep"][:8]
    rng = random.Random(21)
    places = list(_positions(data))[1:]
    refused = accepted = 0
    for at in rng.sample(places, 70) + [("schema_version",), ("kind",), ("stage_seconds",)]:
        for value in rng.sample(BAD, 3):
            copy = json.loads(json.dumps(data))
            _put(copy, at, value)
            got = _read(_text(copy))
            if isinstance(got, str):
                refused += 1
                assert got.startswith("x:") and "\n" not in got, (at, value, got)
            else:
                accepted += 1
                _same(_read(schema.dumps(got)), got)
    assert refused > 60 and accepted > 15, (refused, accepted)  # both outcomes were met


@pytest.mark.parametrize("text, says", [
    ('{"schema_version": 3, "schema_version": 3}', "schema_version"),  # a key twice
    ("[" * 40 + "]" * 40, "nested"),  # too deep
    ('{"schema_version": NaN}', "no integer schema_version"),
    ("{", "not valid JSON"),
    ('"x"', "not a JSON object"),
    ('{"schema_version": 99}', "newer than this code reads"),
])
def test_what_the_reading_refuses(text, says):
    got = _read(text)
    assert isinstance(got, str) and got.startswith("x:") and says in got and "\n" not in got, got


def _outcome(d: Path, rs) -> str:
    try:
        schema._check_trace_files(d, str(d / schema.RESULT_FILE), rs)
        return "ok"
    except schema.SchemaError as exc:
        return str(exc)


@pytest.mark.parametrize("case, says", [
    ("as committed", "ok"), ("missing", "is missing"), ("file links inside", "ok"),
    ("file links outside", "points outside the set's folder"), ("folder links outside", "points outside"),
    ("folder links inside", "ok"), ("link to a folder", "points outside"), ("dangling link", "points outside")])
def test_trace_paths_must_be_files_inside_the_set(tmp_path, case, says):
    src = ROOT / "results" / "cpu-intel-r-xeon-r-processor__torch-2.13.0"  # a small set with traces
    d = tmp_path / "set" / src.name
    shutil.copytree(src, d)
    rs = schema.load_set(d)
    rec = next(r for r in [*rs.runs, *rs.sweep] if r.trace)
    f = d / rec.trace
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    if case == "missing":
        f.unlink()
    elif case == "file links inside":
        f.rename(d / "kept.json.gz")
        os.symlink(d / "kept.json.gz", f)
    elif case == "file links outside":
        f.rename(outside / f.name)
        os.symlink(outside / f.name, f)
    elif case in ("folder links outside", "folder links inside"):
        where = outside / "traces" if case == "folder links outside" else d / "kept"
        (d / "traces").rename(where)
        os.symlink(where, d / "traces")
    elif case == "link to a folder":
        f.unlink()
        os.symlink(outside, f)
    elif case == "dangling link":
        f.unlink()
        os.symlink(outside / "none.json.gz", f)
    got = _outcome(d, rs)
    assert says in got and (got == "ok") == (says == "ok"), got
    if got != "ok":
        assert rec.trace in got and "\n" not in got


def _nested(depth: int):
    value: object = 0
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("where", ["sweep_batch", "notes"])
def test_an_older_set_nested_too_deep_is_one_line(tmp_path, where):
    """A schema-1 set whose migration drops a field nested too deep: load_set refuses it in one line
    (the depth is checked before the migrations)."""
    src = ROOT / "results" / "cpu-intel-r-xeon-r-processor__torch-2.13.0"
    data = json.loads((src / schema.RESULT_FILE).read_text(encoding="utf-8"))
    assert data["schema_version"] == 1
    if where == "sweep_batch":
        data["sweep_batch"] = _nested(40)
    else:
        data["runs"][0]["notes"] = {"inplace_autograd": {"outcome": "gradients match", "explanation": _nested(40)}}
    text = json.dumps(data)
    assert "nested" in _read(text)
    dest = shutil.copytree(src, tmp_path / src.name)
    (dest / schema.RESULT_FILE).write_text(text, encoding="utf-8")
    with pytest.raises(schema.SchemaError, match="nested 4[0-9] deep"):
        schema.load_set(dest)


@pytest.mark.parametrize("edit", ['"zzz": NaN', '"zzz": 1e400', '"runs": 5', '"sweep": 2.5'])
def test_an_older_set_with_a_bad_value_is_one_line(tmp_path, edit):
    """Schema-1 and -2 sets go through the migrations before the checks: a number no field may hold,
    or a list that is not one, is named in one line (it once raised TypeError in update_to_3)."""
    for name in ("nvidia-h100-sxm5__flashattention3-paper", "cpu-intel-r-xeon-r-processor__torch-2.13.0"):
        src = ROOT / "results" / name
        dest = shutil.copytree(src, tmp_path / edit.split(":")[0].strip('"') / name)
        text = (src / schema.RESULT_FILE).read_text(encoding="utf-8")
        key = edit.split(":")[0]
        if key in text:  # replace the field's value rather than add the key twice
            data = json.loads(text)
            data[key.strip('"')] = json.loads(edit.split(":", 1)[1])
            text = json.dumps(data)
        else:
            text = text.replace("{", "{" + edit + ", ", 1)
        (dest / schema.RESULT_FILE).write_text(text, encoding="utf-8")
        with pytest.raises(schema.SchemaError) as got:
            schema.load_set(dest)
        assert "\n" not in str(got.value) and str(dest / schema.RESULT_FILE) in str(got.value)


def test_links_that_loop_are_one_line(tmp_path):
    """A traces folder or a trace file that links to itself: one line naming it, from load_set and
    from the build's content hash, for a set that names traces and for one that names none."""
    from gen.model.schema import UserError
    from gen.report import cache

    published = shutil.copytree(ROOT / "results" / "nvidia-a100-sxm4-80gb__article-2026-07", tmp_path / "pub")
    shutil.rmtree(published / "traces", ignore_errors=True)
    os.symlink("traces", published / "traces")
    schema.load_set(published)  # it names no trace: its folder is not read
    with pytest.raises(UserError, match="cannot read the result set's files"):
        cache.set_key(published)
    measured = shutil.copytree(ROOT / "results" / "cpu-intel-r-xeon-r-processor__torch-2.13.0", tmp_path / "cpu")
    rs = schema.load_set(measured)
    trace = next(r.trace for r in [*rs.runs, *rs.sweep] if r.trace)
    (measured / trace).unlink()
    os.symlink(Path(trace).name, measured / trace)
    with pytest.raises(schema.SchemaError, match="cannot be resolved") as got:
        schema.load_set(measured)
    assert "\n" not in str(got.value)
    shutil.rmtree(measured / "traces")
    os.symlink("traces", measured / "traces")
    with pytest.raises(schema.SchemaError, match="cannot be resolved"):
        schema.load_set(measured)
