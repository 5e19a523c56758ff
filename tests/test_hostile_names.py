"""Hostile input, round 2 (issue 19): no script through any field, no traceback on input
that load accepts.

- Names that become folders, files, URLs and anchors (set, variant, scenario, dtype,
  trace file) match schema.NAME_RE, and not a page the report writes (`index`): refused
  at load and at import with one line naming the file and the field.
- Every other string is a display string: with HTML, Markdown, Jinja and entity payloads
  in every string field of a set (and in the kernel and op names of its traces), the
  built site runs no script, has no `javascript:` link, and keeps its <title> whole
  (Material's `striptags` un-escapes it: overrides/main.html escapes it again).
- Characters a page cannot carry (U+2028, NEL, DEL, controls, lone surrogates) are
  refused at load; from a trace they show as U+FFFD; `gen build` and
  `mkdocs build --strict` pass either way.
- Numbers: NaN, Infinity, 1e400, 400-digit integers, negative times, zero sizes, shapes
  attention cannot have, JSON nested 100,000 deep and keys given twice: one line each.
- What load accepts, build renders: a seeded property test mutates a real set's fields
  one at a time; each mutation is refused in one line or, with all the accepted ones
  together, built without a traceback.
"""

from __future__ import annotations

import copy
import gzip
import html
import io
import json
import random
import re
import shutil
import tarfile
import threading
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gen.model import layout, schema
from tests.test_hostile import _cli, _one_line_error

ROOT = Path(__file__).resolve().parent.parent
H200 = "nvidia-h200__torch-2.11.0"
CPU = "cpu-intel-r-xeon-r-processor__torch-2.13.0"  # schema 1 on disk: loads through update_to_2


def _small_h200(dest: Path) -> Path:
    """The committed H200 set cut down (every run, one sweep point in four, 20 samples per
    list) so that loads take milliseconds and a build seconds; only its traces are kept."""
    src = ROOT / "results" / H200
    data = json.loads((src / "result.json").read_text(encoding="utf-8"))
    data["sweep"] = data["sweep"][::4]

    def cut(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, list) and v and all(isinstance(x, float) for x in v):
                    node[k] = v[:20]
                else:
                    cut(v)
        elif isinstance(node, list):
            for v in node:
                cut(v)

    cut(data)
    dest.mkdir(parents=True)
    (dest / "traces").mkdir()
    for rec in data["runs"] + data["sweep"]:
        if rec.get("trace"):
            shutil.copyfile(src / rec["trace"], dest / rec["trace"])
    (dest / "result.json").write_text(json.dumps(data), encoding="utf-8")
    return dest


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    return _small_h200(tmp_path_factory.mktemp("small") / H200)


@pytest.fixture
def small_data(small) -> dict:
    return json.loads((small / "result.json").read_text(encoding="utf-8"))


def _load_text(text: str, where: str = "result.json") -> schema.ResultSet:
    """What load_set does with a result.json's text, without the disk."""
    return schema.from_dict(schema.parse_json(text, where), where)


def _refused(text: str, *named: str) -> str:
    with pytest.raises(schema.SchemaError) as exc:
        _load_text(text, "/x/result.json")
    msg = str(exc.value)
    assert msg.startswith("/x/result.json: ") and "\n" not in msg and len(msg) < 400, msg
    for n in named:
        assert n in msg, (n, msg)
    return msg


def _set(data, path: str, value):
    """Set the leaf at a path (`runs[2].timing.eager_ms[0]`) in place; returns what it held."""
    parts = [int(p[1:-1]) if p.startswith("[") else p for p in re.findall(r"[^.\[\]]+|\[\d+\]", path)]
    node = data
    for p in parts[:-1]:
        node = node[p]
    old, node[parts[-1]] = node[parts[-1]], value
    return old


def _with(data: dict, path: str, value) -> dict:
    """A deep copy of data with the leaf at a path set."""
    data = copy.deepcopy(data)
    _set(data, path, value)
    return data


RAW = "@@raw@@"


def _text_with(data: dict, path: str, raw: str) -> str:
    """The JSON text of data with the leaf at path written as raw JSON text (NaN, 1e400, ...);
    data itself is left as it was."""
    old = _set(data, path, RAW)
    try:
        return json.dumps(data).replace(json.dumps(RAW), raw)
    finally:
        _set(data, path, old)


# --------------------------------------------------------------------------- names


BAD_NAMES = [
    "index",  # the variants', sets' and scenarios' own index pages
    "con",  # a device on Windows
    "Naive",  # upper case: two names one file on a case-insensitive disk
    "a b", "a/b", "..", ".hidden", "-x", "_x", "", "naïve", "x" * 101, "x" * 10_000,
    "` [c](javascript:alert(1)) `", "naive\n[c](javascript:alert(1))", "<img src=x onerror=alert(1)>",
    "a\u2028b", "a\ud800b",
]
NAME_FIELDS = {
    "name": "field name",
    "config.variants[0]": "field config.variants[0]",
    "config.dtype": "field config.dtype",
    "scenarios[1].name": "field scenarios[1].name",
    "scenarios[1].dtype": "field scenarios[1].dtype",
    "runs[3].variant": "field runs[3].variant",
    "runs[3].scenario": "field runs[3].scenario",
    "sweep[2].variant": "field sweep[2].variant",
    "sweep[2].scenario": "field sweep[2].scenario",
}


@pytest.mark.parametrize("bad", BAD_NAMES, ids=lambda s: repr(s[:12]))
def test_a_name_that_is_not_one_is_refused_naming_the_field(small_data, bad):
    for field in ("runs[3].variant", "scenarios[1].name", "name"):
        _refused(json.dumps(_with(small_data, field, bad)), NAME_FIELDS[field])


@pytest.mark.parametrize("field", NAME_FIELDS)
def test_every_name_field_is_checked(small_data, field):
    for bad in ("index" if not field.endswith("dtype") else "Index", "a b", "` [c](javascript:alert(1)) `"):
        _refused(json.dumps(_with(small_data, field, bad)), NAME_FIELDS[field])


def test_the_committed_sets_and_what_capture_names_are_names():
    for d in schema.list_sets(ROOT / "results"):
        rs = schema.load_set(d)
        assert schema.NAME_RE.fullmatch(d.name) and schema.NAME_RE.fullmatch(rs.name)
    odd = ["", "???", "NVIDIA H200 <img src=x>", "é" * 300, "x" * 1000]
    for gpu in [None, *odd]:
        for cpu in odd:
            for torch in ["2.11.0+cu130", "2.12.0a0+git1234", "<b>", "", "9" * 200]:
                for label in [None, "", "Re Run!", "` [c](javascript:alert(1)) `", "y" * 500]:
                    name = layout.set_name(gpu, cpu, torch, label)
                    schema.check_name(name, "capture", "set name")  # raises if not


@pytest.mark.parametrize("folder", ["index", "Evil Set", "` [c](javascript:alert(1)) `", "x" * 10_000])
def test_a_set_folder_that_is_not_a_name_is_refused_before_it_is_read(tmp_path, folder):
    """A 10,000-character folder cannot even be looked up (ENAMETOOLONG): the name is checked first."""
    d = tmp_path / folder
    if len(folder) < 200:
        shutil.copytree(ROOT / "results" / CPU, d)
    with pytest.raises(schema.SchemaError, match="the set's folder name") as exc:
        schema.load_set(d)
    assert "\n" not in str(exc.value) and len(str(exc.value)) < 400


def _tarball(tmp_path: Path, folder: str, change=None, src: str = CPU) -> Path:
    """A .tar.gz of a committed set under another folder name, its result.json changed."""
    data = json.loads((ROOT / "results" / src / "result.json").read_text(encoding="utf-8"))
    if change:
        change(data)
    out = tmp_path / "set.tgz"
    with tarfile.open(out, "w:gz") as tar:
        for p in sorted((ROOT / "results" / src).rglob("*")):
            rel = p.relative_to(ROOT / "results" / src).as_posix()
            if p.is_file() and rel != "result.json":
                tar.add(p, f"{folder}/{rel}")
        body = json.dumps(data).encode("utf-8")
        info = tarfile.TarInfo(f"{folder}/result.json")
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
    return out


@pytest.mark.parametrize("folder,change,named", [
    ("` [c](javascript:alert(1)) `", None, "the set's folder name"),  # issue 19's case: taken as it was
    ("index", None, "reserved"),
    (CPU, lambda d: d["runs"][1].__setitem__("variant", "index"), "field runs[1].variant 'index' is reserved"),
    (CPU, lambda d: d["runs"][1].__setitem__("variant", "v" * 10_000), "field runs[1].variant"),
    (CPU, lambda d: d["runs"][1].__setitem__("variant", "naive\n[c](javascript:alert(1))"), "field runs[1].variant"),
    (CPU, lambda d: d.__setitem__("config", ["batch", 8]), "field config must be an object"),  # schema 1
    (CPU, lambda d: d.__setitem__("config", "bf16"), "field config must be an object"),
    (CPU, lambda d: d.__setitem__("environment", 3), "field environment must be an object"),
    (CPU, lambda d: d["runs"][0].__setitem__("notes", "slow"), "field runs[0] has unknown key(s) notes"),
    (CPU, lambda d: d["runs"].__setitem__(0, 7), "field runs[0] must be an object"),
])
def test_import_refuses_what_build_cannot_render_in_one_line(tmp_path, folder, change, named):
    results = tmp_path / "results"
    _one_line_error(_cli("import", str(_tarball(tmp_path, folder, change)), "--results", str(results)), named)
    assert not results.exists() or schema.list_sets(results) == []  # nothing published


def test_two_records_of_one_trace_are_refused(small_data):
    data = copy.deepcopy(small_data)
    data["runs"][4]["trace"] = data["runs"][2]["trace"]
    _refused(json.dumps(data), "field runs[4].trace names the file of runs[2].trace")
    data = copy.deepcopy(small_data)
    data["sweep"][3]["trace"] = data["runs"][0]["trace"]
    _refused(json.dumps(data), "field sweep[3].trace names the file of runs[0].trace")


@pytest.mark.parametrize("trace", ["traces/../../x.json.gz", "/etc/passwd", "traces/a/b.json.gz", "x.json.gz",
                                   "traces/" + "t" * 300 + ".json.gz", "traces/<b>.json.gz", "traces/.hidden"])
def test_a_trace_path_is_a_file_of_the_traces_folder(small_data, trace):
    _refused(json.dumps(_with(small_data, "runs[1].trace", trace)), "field runs[1].trace")


def test_a_record_twice_or_an_undeclared_scenario_is_refused(small_data):
    data = copy.deepcopy(small_data)
    data["runs"].append(copy.deepcopy(data["runs"][1]) | {"trace": None})
    _refused(json.dumps(data), f"field runs[{len(data['runs']) - 1}] repeats runs[1]")
    _refused(json.dumps(_with(small_data, "runs[2].scenario", "prefill")), "'prefill' is not declared")
    data = copy.deepcopy(small_data)
    data["scenarios"].append(copy.deepcopy(data["scenarios"][0]))
    _refused(json.dumps(data), "declared twice")


# --------------------------------------------------------------------------- characters


BAD_CHARS = ["\u2028", "\u2029", "\u0085", "\x7f", "\x00", "\x1b", "\x9b", "\u202e", "\u2066", "\ud800", "\udfff",
             "\ufffe", "\t", "\n"]
TEXT_FIELDS = ["environment.gpu_name", "environment.cpu", "environment.torch", "scenarios[0].title",
               "runs[0].counters.kernels[0].name", "runs[0].counters.kernels[0].rules[0].name"]


@pytest.mark.parametrize("char", BAD_CHARS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_character_no_page_can_carry_is_refused(small_data, char):
    msg = _refused(json.dumps(_with(small_data, "environment.gpu_name", f"NVIDIA{char}H200")),
                   f"field environment.gpu_name holds U+{ord(char):04X}")
    assert char not in msg  # the message itself is one clean line


@pytest.mark.parametrize("field", TEXT_FIELDS)
def test_every_string_field_is_checked_for_characters(small_data, field):
    for char in ("\u2028", "\x7f", "\ud800"):
        _refused(json.dumps(_with(small_data, field, f"x{char}y")), f"field {field} holds U+{ord(char):04X}")


def test_free_text_keeps_its_lines_but_not_controls(small_data):
    ok = _with(small_data, "runs[0].timing.gpu_only_reason", "line one\r\n\tline two")
    assert _load_text(json.dumps(ok)).runs[0].timing.gpu_only_reason == "line one\r\n\tline two"
    _refused(json.dumps(_with(small_data, "runs[0].timing.gpu_only_reason", "a\x00b")),
             "field runs[0].timing.gpu_only_reason holds U+0000")
    _refused(json.dumps(_with(small_data, "environment.gpu_name", "G" * 5000)), "5000 characters long; at most 4096")


@pytest.mark.parametrize("char", ["\u2028", "\u0085", "\x7f", "\ud800"], ids=lambda c: f"U+{ord(c):04X}")
def test_gen_build_names_the_character_and_leaves_the_pages(tmp_path, char):
    """End to end: the build refuses in one line and the old pages stay (no nav file that
    stops mkdocs, no UnicodeEncodeError)."""
    d = tmp_path / "results" / CPU
    shutil.copytree(ROOT / "results" / CPU, d)
    data = json.loads((d / "result.json").read_text(encoding="utf-8"))
    data["environment"]["cpu"] = f"Intel{char}Xeon"
    (d / "result.json").write_text(json.dumps(data), encoding="utf-8")
    proc = _cli("build", "--results", str(d.parent), "--docs", str(tmp_path / "docs"))
    _one_line_error(proc, str(d / "result.json"), "field environment.cpu", f"U+{ord(char):04X}")
    assert not (tmp_path / "docs" / "generated").exists()


def test_the_nav_file_is_yaml_whatever_a_title_holds():
    """Defence in depth: the nav writer escapes what YAML reads as a line break or refuses,
    and mkdocs' own loader reads the titles back unchanged."""
    from mkdocs.utils import yaml_load

    from gen.report import build

    titles = ["a\u2028b", "c\u2029d", "e\x85f", "g\x7fh", "i\x9fj", "k\ufffel", "</title><script>", "é 😀"]
    nav = [{t: f"generated/p{i}.md"} for i, t in enumerate(titles)]
    text = build.nav_yaml(nav)
    assert all(c not in text for c in "\u2028\u2029\x85\x7f\x9f\ufffe")
    assert yaml_load(io.StringIO(text))["nav"] == nav


# --------------------------------------------------------------------------- numbers and shapes


NUMBER_CASES = [
    # (field, raw JSON text, what the message says)
    ("runs[0].timing.gpu_only_ms[0]", "NaN", "is NaN, not a finite number"),
    ("runs[0].timing.eager_ms[3]", "Infinity", "is Infinity, not a finite number"),
    ("runs[0].timing.host_ms[1]", "-Infinity", "is -Infinity, not a finite number"),
    ("runs[0].timing.gpu_only_ms[2]", "1e400", "is 1e400, not a finite number"),
    ("runs[0].peak_memory_bytes", "1" + "0" * 400, "(401 digits), not a finite number"),
    ("runs[0].peak_memory_bytes", "9" * 5000, "(5000 digits)"),  # past Python's 4300-digit int limit
    ("runs[0].timing.gpu_only_ms[0]", "-1.0668", "is -1.0668, expected above 0"),  # issue 19's verdict
    ("runs[0].timing.eager_ms[0]", "0", "expected above 0"),
    ("runs[0].timing.host_ms[0]", "1e308", "expected above 0 and at most 1e+15"),
    ("runs[0].peak_memory_bytes", "-5", "expected from 0 to 1e+15"),
    ("runs[0].compile_time_s", "-0.5", "expected from 0"),
    ("sweep[0].point.head_dim", "0", "sweep[0].point.head_dim is 0, expected above 0"),  # ZeroDivisionError before
    ("sweep[0].point.kv_len", "16777217", "expected above 0 and at most 1.67772e+07"),
    ("scenarios[0].points[0].batch", "-8", "expected above 0"),
    ("config.heads", "0", "field config.heads is 0"),
    ("environment.sm_count", "0", "field environment.sm_count is 0"),
    ("environment.max_threads_per_sm", "1", "expected from 32"),
    ("ceilings.matmul_shape[0]", "0", "field ceilings.matmul_shape[0] is 0"),
    ("ceilings.copy_bytes", "0", "ceilings.copy_bytes"),
    ("runs[0].counters.kernels[0].achieved_occupancy_pct", "101", "a percentage from 0 to 100"),
    ("runs[0].counters.kernels[0].rules[0].estimated_speedup_pct", "-3", "a percentage"),
    ("runs[0].counters.kernels[0].grid[0]", "0", "grid[0] is 0"),
    ("runs[0].rel_errors[0]", "-1e-3", "runs[0].rel_errors[0]"),
    ("runs[0].timing.calls_per_replay", "true", "expected an integer"),
    ("runs[0].counters.kernels[0].grid[1]", "1.5", "expected an integer"),  # a list of ints is checked in one pass
    ("config.seed", "10000000000000001", "within ±1e+15"),
]


@pytest.mark.parametrize("field,raw,said", NUMBER_CASES, ids=[f"{f}={r[:10]}" for f, r, _ in NUMBER_CASES])
def test_a_number_out_of_range_is_refused_naming_the_field(small_data, field, raw, said):
    _refused(_text_with(small_data, field, raw), f"field {field}", said)


@pytest.mark.parametrize("field,value,said", [
    ("sweep[0].point.kv_heads", 5, "query heads do not group over 5 KV heads"),
    ("sweep[0].point.window", 128, "a window goes with mask 'sliding', and only with it"),
    ("sweep[0].point.q_len", 1_000_000, "exceeds kv_len"),
    ("sweep[0].point", {"batch": 2**20, "q_heads": 2**10, "kv_heads": 1, "head_dim": 2**10, "q_len": 2**20,
                        "kv_len": 2**20, "mask": "causal"}, "exceeds 2^60"),
    ("ceilings.matmul_shape", [8192, 8192], "has 2 sizes, expected 3"),
])
def test_a_shape_attention_cannot_have_is_refused(small_data, field, value, said):
    _refused(json.dumps(_with(small_data, field, value)), said)


def test_a_sliding_mask_needs_its_window(small_data):
    p = small_data["sweep"][0]["point"] | {"mask": "sliding", "window": None}
    _refused(json.dumps(_with(small_data, "sweep[0].point", p)), "field sweep[0].point.window")


DEEP = 100_000


def test_json_nested_100000_deep_is_one_line_in_load_summary_and_import(tmp_path):
    d = tmp_path / "results" / CPU
    shutil.copytree(ROOT / "results" / CPU, d)
    text = (d / "result.json").read_text(encoding="utf-8")
    deep = text.replace('"name":', '"deep": ' + "[" * DEEP + "]" * DEEP + ', "name":', 1)
    (d / "result.json").write_text(deep, encoding="utf-8")
    with pytest.raises(schema.SchemaError, match=f"JSON nested {DEEP + 1} deep; a result set nests at most 32"):
        schema.load_set(d)
    _one_line_error(_cli("summary", "--results", str(d.parent), "--set", CPU), "nested", str(d / "result.json"))
    with tarfile.open(tmp_path / "deep.tgz", "w:gz") as tar:
        tar.add(d, CPU)
    out = tmp_path / "elsewhere"
    _one_line_error(_cli("import", str(tmp_path / "deep.tgz"), "--results", str(out)), "nested")
    assert not out.exists() or schema.list_sets(out) == []


def test_json_nesting_is_counted_outside_strings():
    assert schema._json_depth('{"a": "[[[[{{{{\\"[[[", "b": [[1], {"c": 2}]}') == 3
    brackets = "[" * 40
    assert schema.parse_json(json.dumps({"s": brackets}), "x") == {"s": brackets}


def test_a_key_given_twice_is_refused_naming_where(small_data):
    text = json.dumps(small_data)
    _refused(text.replace('"name": ', '"name": "x", "name": ', 1), "the top object has the key 'name' twice")
    data = copy.deepcopy(small_data)
    data["runs"][2]["timing"]["eager_ms"] = RAW
    twice = json.dumps(data).replace(json.dumps(RAW), '[1.0], "eager_ms": [2.0]')
    _refused(twice, "field runs[2].timing has the key 'eager_ms' twice")


def test_the_committed_sets_load_quickly():
    """The checks cost little: the H200 set's 1.5 MB load in well under a second (0.3 s before
    the type hints were cached, on its own, without the checks)."""
    import time

    text = (ROOT / "results" / H200 / "result.json").read_text(encoding="utf-8")
    _load_text(text)
    t0 = time.process_time()  # CPU time: other processes on the machine do not count
    _load_text(text)
    assert time.process_time() - t0 < 0.6


# --------------------------------------------------------------------------- what load accepts, build renders


# Leaves whose strings are names or point at a file (tested above, one at a time), and the
# shapes that tie records together: a mutation there would test the cross-record rules.
_KEYS = re.compile(r"(^name$|\.variant$|\.scenario$|\.trace$|\.point\b|^scenarios\[\d+\]\.(name|points|train_points)"
                   r"|^config\.(variants|modes|batch|heads|seq_len|head_dim)|^schema_version$|^kind$)")
HOSTILE_TEXT = ['</title><script>alert("t")</script>', '` [c](javascript:alert(1)) `', "[l](javascript:alert(2))",
                "<img src=x onerror=alert(3)>", "{{ 7*7 }} {% raw %}", "x" * 4096, "", "é 😀 \u00a0·",
                "&lt;script&gt;", "--8<-- \"mkdocs.yml\"", "{: onclick=alert(4) }", "a\u2028b", "\ud800", "NaN"]
HOSTILE_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e400", "-1", "0", "0.0", "5e-324", "1e-300", "1e15", "1e16",
                   "9" * 30, "-0.0", "100", "100.5", "true", "null", '"1"', "[]", "{}", "1.5"]


def _leaves(node, path=""):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, f"{path}.{k}" if path else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, f"{path}[{i}]")
    else:
        yield path, node


def _mutation(rng: random.Random, value) -> str:
    if isinstance(value, str):
        options = [json.dumps(t) for t in HOSTILE_TEXT]
        enum = next((e for name, e in schema.ENUM_FIELDS.items() if value in {m.value for m in e}), None)
        if enum:  # another allowed value: a status "oom" beside timings, a method without samples
            options += [json.dumps(m.value) for m in enum] * 4
        return rng.choice(options + ["null", "0", "[]"])
    return rng.choice(HOSTILE_NUMBERS + ["null" if value is not None else "1"])


def _key_mutation(rng: random.Random, path: str, value, data: dict) -> str:
    """Another value that looks right for a leaf that ties records together: a known or new
    variant, a declared scenario, another mode, point size, mask or trace."""
    from gen.model import variants

    last = re.sub(r"\[\d+\]$", "", path).rsplit(".", 1)[-1]
    declared = [sc["name"] for sc in data.get("scenarios", [])]
    traces = [r["trace"] for r in data["runs"] + data["sweep"] if r.get("trace")]
    options = {
        "variant": [*variants.VARIANTS, "zz-new", "a.b_c-d"], "variants": [*variants.VARIANTS, "zz-new"],
        "scenario": [*declared, "article", "zz-new"], "name": ["zz-new", *declared],
        "mode": list(schema.Mode), "modes": list(schema.Mode), "mask": list(schema.Mask), "kind": list(schema.SetKind),
        "trace": [None, *traces[:3]], "window": [None, 1, 128, 2**24],
        "schema_version": [1, 2, 3],
    }.get(last, [1, 2, 3, 7, 64, 4096, 2**24, 0])
    return json.dumps(rng.choice(options))


def mutate_and_build(small: Path, out: Path, seed: int, n: int) -> tuple[int, int]:
    """A random walk of n mutations over a set's leaves: each is loaded, and is refused in one
    line naming the file (and, for a value, the top-level field it is in) or kept; what is
    kept at the end is built into out/docs. Returns (refused, kept). Also a fuzzer:
    `mutate_and_build(small, out, seed, 2000)` for other seeds."""
    from gen.report import build

    rng = random.Random(seed)
    data = json.loads((small / "result.json").read_text(encoding="utf-8"))
    refused = kept = 0
    leaves = list(_leaves(data))
    for _ in range(n):
        path, value = rng.choice(leaves)
        key = bool(_KEYS.search(path))
        raw = _key_mutation(rng, path, value, data) if key else _mutation(rng, value)
        text = _text_with(data, path, raw)
        try:
            _load_text(text, "/x/result.json")
        except schema.SchemaError as exc:
            msg = str(exc)
            top = re.match(r"[^.\[]+(\[\d+\])?", path)[0]
            assert "\n" not in msg and msg.startswith("/x/result.json: ") and (key or top in msg), (path, raw, msg)
            refused += 1
        else:
            data = json.loads(text)
            leaves = list(_leaves(data))
            kept += 1
    d = out / "results" / small.name
    shutil.copytree(small, d)
    (d / "result.json").write_text(json.dumps(data), encoding="utf-8")
    build.run(d.parent, out / "docs")  # raises on any bug: no page is left unrendered
    assert (out / "docs" / "generated" / "sets" / f"{small.name}.md").is_file()
    return refused, kept


@pytest.mark.slow
def test_each_mutation_is_refused_in_one_line_or_built(tmp_path, small):
    """Property: 160 mutations of a real set's leaves (hostile strings and numbers,
    other enum values, nulls, wrong types). Each is refused with one line naming the file
    and the top-level field it is in, or accepted; all the accepted ones together then
    build without a traceback: `gen build` renders what `gen import` accepts. Seeded, so
    a failure repeats; benchmarks-style runs with other seeds found the NaN reason below."""
    refused, kept = mutate_and_build(small, tmp_path, seed=19, n=160)
    assert refused > 30 and kept > 30, (refused, kept)


def test_a_refused_point_without_a_reason_is_worded():
    """Found by the property test: a sweep point that did not run and recorded no reason
    reached the scenario page as NaN (a frame's None, which is truthy) and raised a TypeError."""
    from gen.report.words import common as words

    assert words.refusal("oom", float("nan")) == "out of memory"
    assert words.refusal("unavailable", None) == "no reason recorded"
    assert words.refusal("unavailable", float("nan")) == "no reason recorded"


# --------------------------------------------------------------------------- display strings on the site


PAYLOADS = [
    '</title><script>alert("title")</script>',
    '<img src=x onerror=alert("img")>',
    '` [c](javascript:alert("code")) `',
    '[l](javascript:alert("link"))',
    '![i](javascript:alert("image"))',
    "<a href=\"javascript:alert('a')\">a</a>",
    "{: onclick=\"alert('attr')\" }",
    '<javascript:alert("auto")>',
    '&lt;script&gt;alert("entity")&lt;/script&gt;',
    '[e](&#106;avascript:alert("numeric"))',
    '"\'><svg onload=alert("quote")>',
    "{{ 7*7 }} {% raw %} *em* _u_ | pipe | \\ # ~ $ ^ = ! : --- <!-- ]]>",
    '--8<-- "mkdocs.yml"',
    "é 😀 · “q” ₂",
]
PAYLOAD = " ".join(PAYLOADS)
# Free text may hold line breaks: try to start blocks (an admonition, a reference link, a pymdownx block).
FREE = "\n\n!!! note\n    [adm](javascript:alert('adm'))\n[r]: javascript:alert('ref')\n[x][r]\n/// html | div\n///\n"
# Trace names are not checked at load: characters no page may carry, shown as U+FFFD.
UNPRINTABLE = " \ud800 \u2028 \x00 \x1b[31m \x85 \x7f \u202e"
FREE_TEXT = {"reason", "error_detail", "gpu_only_reason", "note", "error"}  # may hold line breaks
# Strings that are names, enums or paths (checked by pattern at load), not display strings.
NOT_DISPLAY = {"variant", "scenario", "mode", "status", "mask", "kind", "gpu_only_method", "trace", "dtype",
               "matmul_dtype", "device", "variants", "modes", "date", "fidelity"}


def _poison(node, path: str = "") -> None:
    """Every display string of a set (every string that is not a name) + PAYLOAD."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in NOT_DISPLAY or (k == "name" and (path == "" or path.startswith("scenarios"))):
                continue
            if isinstance(v, str):
                node[k] = f"{v} {PAYLOAD}" + (FREE if k in FREE_TEXT else "")
            else:
                _poison(v, f"{path}.{k}" if path else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            if isinstance(v, str):
                node[i] = f"{v} {PAYLOAD}"
            else:
                _poison(v, path)


def _poison_trace(path: Path) -> None:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    for e in data["traceEvents"]:
        if e.get("cat") in ("kernel", "cpu_op", "gpu_memcpy", "gpu_memset") and isinstance(e.get("name"), str):
            e["name"] = f"{e['name']} {PAYLOAD}{UNPRINTABLE}"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        json.dump(data, fh)


def _poisoned(src: Path, dst: Path, traces: bool) -> dict:
    shutil.copytree(src, dst)
    data = json.loads((dst / "result.json").read_text(encoding="utf-8"))
    _poison(data)
    (dst / "result.json").write_text(json.dumps(data), encoding="utf-8")
    if traces:
        for rec in data["runs"] + data["sweep"]:
            if rec.get("trace") and rec["variant"] in ("naive", "sdpa_flash"):
                _poison_trace(dst / rec["trace"])
    return data


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory, small):
    """The cut-down H200 set and the CPU set with PAYLOAD in every display string (and in
    the kernel and op names of some traces, with unprintable characters), built by
    `gen build` and `mkdocs build --strict`: (site, H200 data, CPU data)."""
    from gen.report import build

    results = tmp_path_factory.mktemp("hostile-results")
    gpu = _poisoned(small, results / H200, traces=True)
    cpu = _poisoned(ROOT / "results" / CPU, results / CPU, traces=True)
    project = build.copy_project(ROOT, tmp_path_factory.mktemp("hostile-project"))
    build.run(results, project / "docs")
    build.mkdocs_build(project, project / "site")
    return project / "site", gpu, cpu


_URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data", "srcdoc", "poster", "background"}


class _Markup(HTMLParser):
    """What a page's HTML makes of its strings: elements inside <title>, event-handler
    attributes, script URLs, scripts that call alert."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.title: list[str] = []
        self.text: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        if self._in == "title":
            self.problems.append(f"<{tag}> inside <title>")
        for k, v in attrs:
            if k.startswith("on"):
                self.problems.append(f"<{tag} {k}>")
            if k in _URL_ATTRS and v and re.match(r"\s*(javascript|vbscript|data):", v, re.I):
                self.problems.append(f"<{tag} {k}={v[:40]!r}>")
        if tag in ("title", "script"):
            self._in = tag

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        self.text.append(data)
        if self._in == "title":
            self.title.append(data)
        elif self._in == "script" and "alert" in data:
            self.problems.append(f"a script that alerts: {data[:40]!r}")


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "assets" not in p.relative_to(site).parts)


def test_no_field_makes_markup_on_any_page(hostile_site):
    site, _, _ = hostile_site
    problems, shown = [], 0
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        parser = _Markup()
        parser.feed(text)
        problems += [f"{page.relative_to(site)}: {p}" for p in parser.problems]
        shown += PAYLOADS[1] in "".join(parser.text)
    assert problems == []
    assert shown >= 10  # the payload is on the pages, as text


def _title(page: Path) -> str:
    parser = _Markup()
    parser.feed(page.read_text(encoding="utf-8"))
    return "".join(parser.title)


def test_every_title_field_stays_inside_the_title(hostile_site):
    """GPU name and PyTorch version (a GPU set's title), CPU model (a CPU set's), scenario
    title: each reads literally in <title>, which holds nothing but text."""
    site, gpu, cpu = hostile_site
    gpu_title = _title(site / "generated" / "sets" / f"{H200}.html")
    assert gpu["environment"]["gpu_name"] in gpu_title
    assert gpu["environment"]["torch"].split("+")[0] in gpu_title
    cpu_title = _title(site / "generated" / "sets" / f"{CPU}.html")
    assert cpu["environment"]["cpu"] in cpu_title
    scenario = gpu["scenarios"][1]
    # its page over every set where two sets ran it, else the set's own page of it (scenario_paths.over_sets)
    over = site / "generated" / "scenarios" / f"{scenario['name']}.html"
    own = site / "generated" / "sets" / H200 / "scenarios" / f"{scenario['name']}.html"
    assert scenario["title"] in _title(over if over.is_file() else own)
    # And in the navigation, as text.
    nav = (site / "index.html").read_text(encoding="utf-8")
    assert html.escape(gpu["environment"]["gpu_name"]) in nav


def test_trace_names_with_unprintable_characters_show_a_replacement(hostile_site):
    site, _, _ = hostile_site
    page = (site / "generated" / "variants" / "naive.html").read_text(encoding="utf-8")
    assert "\ufffd" in page
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202e]", page)


def _browsed(site: Path) -> list[Path]:
    """One page of each kind (every page carries the navigation with the GPU name; the set,
    variant and scenario pages the rest): the static scan above reads every page."""
    g = site / "generated"
    return [site / "index.html", g / "sets" / f"{H200}.html", g / "sets" / f"{CPU}.html", g / "variants" / "naive.html",
            g / "scenarios" / "gqa-prefill.html", g / "findings.html", g / "compare.html"]


@pytest.mark.browser
@pytest.mark.slow
def test_no_page_runs_a_script_or_holds_a_script_link(hostile_site):
    """Pages of each kind in Chromium with a dialog handler: no dialog on load; every
    `javascript:` link (there should be none) clicked; a search for the payload lists
    its results as text."""
    from tests.site_server import CHROMIUM, bind, chromium

    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is missing (apt-get install chromium)")
    site, gpu, _ = hostile_site
    httpd = bind(site)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    server = f"http://127.0.0.1:{httpd.server_address[1]}"
    dialogs: list[str] = []
    script_links: list[str] = []
    body = ""
    try:
        with chromium() as browser:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.on("dialog", lambda d: (dialogs.append(f"{page.url}: {d.message}"), d.dismiss()))
            for p in _browsed(site):
                page.goto(f"{server}/{p.relative_to(site).as_posix()}", wait_until="load")
                links = page.locator("a[href^='javascript:' i], a[href^=' javascript:' i]")
                for i in range(links.count()):
                    script_links.append(f"{p.relative_to(site)}: {links.nth(i).get_attribute('href')}")
                    links.nth(i).click(force=True, no_wait_after=True)
                if p.name == f"{H200}.html":
                    body = page.evaluate("() => document.body.innerText + ' ' + document.title")
            page.goto(f"{server}/index.html", wait_until="load")
            page.locator("input.md-search__input").click()
            page.keyboard.type("onerror", delay=10)  # Material searches on key events
            page.wait_for_selector(".md-search-result__item", timeout=10_000)
            page.wait_for_timeout(300)
            context.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert script_links == [] and dialogs == []
    assert gpu["environment"]["gpu_name"] in body  # shown as text
