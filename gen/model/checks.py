"""What a result.json may hold: the JSON parsed within limits, every field type-checked, one line per fault.

Takes: a result.json's text or decoded data (any version). Gives: `parse_json(text, where)`, `from_dict(data,
where) -> ResultSet` (migrated by gen.model.migrations, then built and checked field by field),
`check_name` (the rule for names that become folders and URLs) and the limits (`NAME_RE`, `MAX_TEXT`,
...). Every refusal is a `SchemaError` of one line naming the file and the field.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
import types
import typing
from typing import Any

from gen.model.migrations import migrate
from gen.model.records import (
    ENUM_FIELDS,
    RESULT_FILE,
    SCHEMA_VERSION,
    TRACE_DIR,
    Mask,
    Mode,
    Point,
    ResultSet,
    SchemaError,
)


@functools.cache
@typing.no_type_check
def _hints(cls) -> dict[str, Any]:
    # Cached: resolving the hints is most of a load's time otherwise.
    return typing.get_type_hints(cls)


def _type_name(tp) -> str:
    if isinstance(tp, type):
        return {"str": "a string", "int": "an integer", "float": "a number", "bool": "true or false",
                "list": "a list", "dict": "an object"}.get(tp.__name__, tp.__name__)
    return str(tp).replace("typing.", "")


# --------------------------------------------------------------------------- what a set may hold
#
# A set is untrusted: whatever load accepts, every later stage must take without a
# traceback, and every page must show without a string turning into markup. So load
# refuses, each with one line naming the file and the field:
# - names that become folders, files, URLs and anchors (sets, variants, scenarios,
#   dtypes, trace files) unless they match NAME_RE, and the names of pages a name
#   would overwrite (RESERVED_NAMES);
# - in any other string: control characters (tab and newline only in the free-text
#   fields of _MULTI_LINE), line and paragraph separators, bidirectional overrides,
#   lone surrogates and U+FFFE/U+FFFF, and text longer than MAX_TEXT;
# - numbers that are not finite or lie beyond ±MAX_NUMBER, negative ones (but those
#   of _SIGNED), zero ones where zero makes no sense (_POSITIVE), percentages of
#   _PERCENT over 100, and shapes that make no sense (_check_point);
# - JSON nested deeper than MAX_JSON_DEPTH, or with a key twice in one object.

NAME_PATTERN = r"[a-z0-9][a-z0-9._-]{0,99}"
NAME_RE = re.compile(NAME_PATTERN)
NAME_RULE = "lower-case letters, digits, '.', '_' and '-', starting with a letter or digit, at most 100 characters"
# A name that would take the place of a page the report writes itself (generated/<kind>/index.md),
# or of a device on Windows, where a checkout of results/ may land.
RESERVED_NAMES = frozenset({"index", "con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
                            *(f"lpt{i}" for i in range(10))})
TRACE_RE = re.compile(rf"{TRACE_DIR}/[a-z0-9][a-z0-9._-]{{0,199}}")
MAX_JSON_DEPTH = 32  # a result.json nests 8 deep; this leaves room for new fields
MAX_NUMBER = 1e15  # beyond any count, byte size or time a set holds; well inside float64's exact integers
MAX_DIM = 2**24  # any one dimension of a shape: batch, heads, head dim, lengths, window
MAX_WORK = 2**60  # batch × query heads × query length × KV length × head dim: FLOPs stay exact in int64
MAX_TEXT = 4096  # characters of a one-line string (the longest kernel names are ~500)
MAX_FREE_TEXT = 65536  # characters of a free-text field (a refusal's reason)

# Free text: the reasons and notes PyTorch or a source wrote, which may hold line breaks.
_MULTI_LINE = frozenset({"reason", "error_detail", "gpu_only_reason", "note", "error"})
_BAD_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")
_BAD_FREE_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                            "\ud800-\udfff\ufffe\uffff]")
# Numbers that must be above zero: shapes, the GPU's sizes, and every time sample (a call takes time).
_SHAPE = frozenset({"batch", "heads", "seq_len", "head_dim", "q_heads", "kv_heads", "q_len", "kv_len", "window"})
_POSITIVE = _SHAPE | frozenset({
    "sm_count", "max_threads_per_sm", "max_regs_per_sm", "max_shared_memory_per_sm", "l2_cache_bytes",
    "gpu_memory_bytes", "calls_per_replay", "graph_calls", "copy_bytes", "matmul_shape", "grid", "block",
    "gpu_only_ms", "eager_ms", "host_ms", "warmup_window_ms", "matmul_ms", "copy_ms", "gpu_time_ms",
    "cpu_time_ms", "tflops",
})
# Where the least sensible value is above 1: a GPU runs at least one warp (32 threads) per SM.
_AT_LEAST = {"max_threads_per_sm": 32}
_PERCENT = frozenset({"achieved_occupancy_pct", "theoretical_occupancy_pct", "occupancy_pct", "estimated_speedup_pct"})
_SIGNED = frozenset({"seed"})


class _BadNumber:
    """A JSON number no field may hold (NaN, Infinity, 1e400, an integer of 400 digits),
    kept as its text until the field that holds it is known."""

    def __init__(self, text: str):
        self.text = text if len(text) <= 24 else f"{text[:12]}... ({len(text)} digits)"


def _parse_float(text: str) -> float | _BadNumber:
    value = float(text)
    return value if math.isfinite(value) else _BadNumber(text)


def _parse_int(text: str) -> int | _BadNumber:
    # Python refuses to read integers of over 4300 digits with a ValueError; anything
    # beyond MAX_NUMBER is refused anyway, so long ones never reach int().
    return int(text) if len(text) <= 20 else _BadNumber(text)


class _Duplicated(dict):
    """A JSON object that had a key twice: json.loads keeps the last, load refuses it."""

    duplicates: list[str]


_STRINGS_RE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS_RE = re.compile(r"[^\[\]{}]+")


def _json_depth(text: str) -> int:
    """How deep JSON text nests, without recursing (json.loads recurses, and a file nested
    100,000 deep ends in RecursionError): brackets counted outside strings."""
    brackets = _NOT_BRACKETS_RE.sub("", _STRINGS_RE.sub("", text))
    depth = deepest = 0
    for c in brackets:
        depth += 1 if c in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether decoded JSON nests more than `limit` deep (as _json_depth counts: a list or object
    is one deeper than what holds it): a walk over the containers, level by level."""
    level = [data] if isinstance(data, list | dict) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below = []
        for c in level:
            values = c.values() if isinstance(c, dict) else c
            # the types first (a loop in C): most lists are samples, numbers only
            if any(issubclass(k, list | dict) for k in set(map(type, values))):
                below += [v for v in values if isinstance(v, list | dict)]
        level = below
    return False


def _too_deep(text: str, where: str) -> SchemaError | None:
    depth = _json_depth(text)
    if depth > MAX_JSON_DEPTH:
        return SchemaError(f"{where}: JSON nested {depth} deep; a result set nests at most {MAX_JSON_DEPTH}")
    return None


def parse_json(text: str, where: str) -> Any:
    """JSON text of a set, read as load trusts it: nesting at most MAX_JSON_DEPTH, no key
    twice in an object (each one line naming where), and NaN, Infinity and numbers too
    large to be finite kept for `_check` to refuse by field. The nesting is counted in the
    text (_json_depth) only where the decoder gave up (RecursionError:
    the C decoder nests within Python's recursion limit), the text was not JSON (the nesting's
    error comes first, as it did) or what it decoded is too deep."""
    seen_duplicate = []

    def pairs(items: list[tuple[str, Any]]) -> dict:
        obj = dict(items)
        if len(obj) == len(items):
            return obj
        dup = _Duplicated(obj)
        keys = [k for k, _ in items]
        dup.duplicates = sorted({k for k in keys if keys.count(k) > 1})
        seen_duplicate.append(dup)
        return dup

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_float=_parse_float, parse_int=_parse_int,
                          parse_constant=_BadNumber)
    except RecursionError:
        raise _too_deep(text, where) or SchemaError(f"{where}: JSON nested too deep to read") from None
    except json.JSONDecodeError as exc:
        raise _too_deep(text, where) or SchemaError(f"{where}: not valid JSON ({exc})") from None
    if _deeper_than(data, MAX_JSON_DEPTH):
        raise _too_deep(text, where)
    if seen_duplicate:
        path, keys = _find_duplicate(data)
        raise SchemaError(f"{where}: {path} has the key {keys[0]!r} twice "
                          f"(a damaged file: which of the two is meant is unknown)")
    return data


def _find_duplicate(data: Any) -> tuple[str, list[str]]:
    """Where the first object with a key twice lies, and its keys (a walk without recursion)."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, _Duplicated):
            return (f"field {path}" if path else "the top object"), node.duplicates
        if isinstance(node, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(node))))
    raise AssertionError("a duplicated key was seen but not found")


def _shown(value: Any) -> str:
    """A value as a message shows it: JSON, one line, cut at 60 characters."""
    if isinstance(value, _BadNumber):
        return value.text
    try:
        return json.dumps(value, default=lambda v: getattr(v, "text", "?"))[:60]
    except (ValueError, RecursionError):  # a huge integer made in memory, not read from a file
        return f"a {type(value).__name__}"


def _char_name(c: str) -> str:
    import unicodedata

    if "\ud800" <= c <= "\udfff":
        return f"U+{ord(c):04X} (a lone surrogate)"
    return f"U+{ord(c):04X}" + (f" ({unicodedata.name(c)})" if unicodedata.name(c, "") else "")


def _check_text(value: str, where: str, fname: str, short: str) -> None:
    free = short in _MULTI_LINE
    bad = (_BAD_FREE_TEXT if free else _BAD_TEXT).search(value)
    if bad:
        raise SchemaError(f"{where}: field {fname} holds {_char_name(bad.group())} at character {bad.start()}: "
                          f"control characters{'' if free else ' (tab and newline too)'}, line separators, "
                          f"bidirectional overrides and lone surrogates are refused")
    limit = MAX_FREE_TEXT if free else MAX_TEXT
    if len(value) > limit:
        raise SchemaError(f"{where}: field {fname} is {len(value)} characters long; at most {limit}")


@functools.cache
def _number_rule(short: str) -> tuple[float, bool, float, str]:
    """(least, whether the least itself is allowed, most, the rule in words) of a field."""
    if short in _POSITIVE:
        top = MAX_DIM if short in _SHAPE else MAX_NUMBER
        if short in _AT_LEAST:
            return _AT_LEAST[short], True, top, f"from {_AT_LEAST[short]} to {top:g}"
        return 0, False, top, f"above 0 and at most {top:g}"
    if short in _PERCENT:
        return 0, True, 100, "a percentage from 0 to 100"
    if short in _SIGNED:
        return -MAX_NUMBER, True, MAX_NUMBER, f"within ±{MAX_NUMBER:g}"
    return 0, True, MAX_NUMBER, f"from 0 to {MAX_NUMBER:g}"


def _numbers_ok(values: list, item: type, short: str) -> bool:
    """All of a list of numbers of type item (ints for int; no bools, no NaN) within its
    field's rule: one pass, for the long lists of time samples; _check says which is not."""
    least, closed, most, _ = _number_rule(short)
    kinds = (int, float) if item is float else (int,)
    if not all(type(v) in kinds for v in values):
        return False
    if closed:
        return all(least <= v <= most for v in values)
    return all(least < v <= most for v in values)


def _check_number(value: float, where: str, fname: str, short: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):  # a dataclass built in memory
        raise SchemaError(f"{where}: field {fname} is {value}, not a finite number")
    least, closed, most, what = _number_rule(short)
    if not ((least <= value) if closed else (least < value)) or not value <= most:
        raise SchemaError(f"{where}: field {fname} is {value!r}, expected {what}")


def check_name(value: str, where: str, what: str, reserved: bool = True) -> None:
    """A name that becomes a folder, a file, a URL or an anchor: NAME_RE, and not one of
    RESERVED_NAMES. One line naming where and what."""
    if not NAME_RE.fullmatch(value):
        shown = json.dumps(value if len(value) <= 60 else value[:60] + "...")
        raise SchemaError(f"{where}: {what} {shown} is not a name ({NAME_RULE})")
    if reserved and value in RESERVED_NAMES:
        raise SchemaError(f"{where}: {what} {value!r} is reserved (the report writes a page of that name); "
                          f"rename it")


def _check_point(p: Point, where: str, fname: str) -> None:
    """A shape that attention can have."""
    if p.q_heads % p.kv_heads:
        raise SchemaError(f"{where}: field {fname}: {p.q_heads} query heads do not group over {p.kv_heads} KV heads")
    if (p.mask == Mask.SLIDING) != (p.window is not None):
        raise SchemaError(f"{where}: field {fname}.window: a window goes with mask 'sliding', and only with it")
    if p.mask in (Mask.CAUSAL, Mask.SLIDING) and p.q_len > p.kv_len:
        raise SchemaError(f"{where}: field {fname}: q_len {p.q_len} exceeds kv_len {p.kv_len} under a "
                          f"{p.mask} mask (the queries are the last q_len of the keys)")
    if p.batch * p.q_heads * p.q_len * p.kv_len * p.head_dim > MAX_WORK:
        raise SchemaError(f"{where}: field {fname}: batch × q_heads × q_len × kv_len × head_dim exceeds 2^60")


def _check_set(rs: ResultSet, where: str) -> None:
    """What a set holds as a whole: names, shapes, one record per key, one record per trace."""
    check_name(rs.name, where, "field name")
    cfg = rs.config
    for i, v in enumerate(cfg.variants):
        check_name(v, where, f"field config.variants[{i}]")
    for i, m in enumerate(cfg.modes):
        if m not in {e.value for e in Mode}:
            raise SchemaError(f"{where}: field config.modes[{i}] is {m!r}, expected one of {', '.join(Mode)}")
    check_name(cfg.dtype, where, "field config.dtype", reserved=False)
    declared: set[str] = set()
    for i, s in enumerate(rs.scenarios):
        check_name(s.name, where, f"field scenarios[{i}].name")
        if s.name in declared:
            raise SchemaError(f"{where}: field scenarios[{i}].name: scenario {s.name} is declared twice")
        declared.add(s.name)
        check_name(s.dtype, where, f"field scenarios[{i}].dtype", reserved=False)
        for kind in ("points", "train_points"):
            for j, p in enumerate(getattr(s, kind)):
                _check_point(p, where, f"scenarios[{i}].{kind}[{j}]")
    if rs.ceilings is not None:
        check_name(rs.ceilings.matmul_dtype, where, "field ceilings.matmul_dtype", reserved=False)
        if len(rs.ceilings.matmul_shape) != 3:
            raise SchemaError(f"{where}: field ceilings.matmul_shape has {len(rs.ceilings.matmul_shape)} "
                              f"sizes, expected 3 (m, n, k)")
    traces: dict[str, str] = {}
    keys: dict[tuple, str] = {}
    for kind, records in (("runs", rs.runs), ("sweep", rs.sweep)):
        for i, rec in enumerate(records):
            at = f"{kind}[{i}]"
            check_name(rec.variant, where, f"field {at}.variant")
            check_name(rec.scenario, where, f"field {at}.scenario")
            if declared and rec.scenario not in declared:
                raise SchemaError(f"{where}: field {at}.scenario {rec.scenario!r} is not declared in scenarios")
            if rec.point is not None:
                _check_point(rec.point, where, f"{at}.point")
            key = (kind, rec.scenario, rec.variant, rec.mode) + ((rec.point,) if kind == "sweep" else ())
            if key in keys:
                raise SchemaError(f"{where}: field {at} repeats {keys[key]} (scenario {rec.scenario}, variant "
                                  f"{rec.variant}, mode {rec.mode}{', same point' if kind == 'sweep' else ''})")
            keys[key] = at
            if rec.trace is not None:
                if rec.trace.startswith(("/", "\\")) or ".." in re.split(r"[/\\]", rec.trace):
                    raise SchemaError(f"{where}: field {at}.trace {_shown(rec.trace)} points outside the set's folder")
                if not TRACE_RE.fullmatch(rec.trace):
                    shown = json.dumps(rec.trace if len(rec.trace) <= 60 else rec.trace[:60] + "...")
                    raise SchemaError(f"{where}: field {at}.trace {shown} is not {TRACE_DIR}/<file name> "
                                      f"(the file name: lower-case letters, digits, '.', '_', '-', at most 200)")
                if rec.trace in traces:
                    raise SchemaError(f"{where}: field {at}.trace names the file of {traces[rec.trace]}.trace "
                                      f"({rec.trace}); each record has its own trace")
                traces[rec.trace] = at
            counters = getattr(rec, "counters", None)
            for j, k in enumerate(counters.kernels if counters else []):
                for dim in ("grid", "block"):
                    if len(getattr(k, dim)) > 3:
                        raise SchemaError(f"{where}: field {at}.counters.kernels[{j}].{dim} has more than 3 sizes")


_SCALAR_OK = {
    bool: lambda v: isinstance(v, bool),
    int: lambda v: isinstance(v, int) and not isinstance(v, bool),
    float: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    str: lambda v: isinstance(v, str),
}


def _form(tp) -> tuple[str, tuple]:
    """What _check does with a type hint: (any, union, dataclass, list, tuple, dict or scalar, its arguments)."""
    if tp is Any:
        return "any", ()
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return "union", typing.get_args(tp)
    if dataclasses.is_dataclass(tp):
        return "dataclass", ()
    if origin in (list, tuple, dict):
        return origin.__name__, typing.get_args(tp)
    return "scalar", ()


_FORMS: dict = {}  # type hint -> _form: the same few hints are checked tens of thousands of times a set


@functools.cache
def _enum_values(short: str) -> frozenset[str]:
    return frozenset(e.value for e in ENUM_FIELDS[short])


def _short(fname: str) -> str:
    """A field's own name (what its rules are keyed by): `x` of `runs[2].timing.x[4]`."""
    return fname.rsplit(".", 1)[-1].split("[")[0]


def _check(value: Any, tp, where: str, fname: str, short: str | None = None) -> Any:
    """Value checked against a type hint; dataclasses built. Returns the value to store.
    `short`: _short(fname), passed down (the same for a list's items; a field's or key's own
    name below) instead of cut out of the path again for each of a set's 40,000 values."""
    if short is None:
        short = _short(fname)
    try:
        form, targs = _FORMS[tp]
    except KeyError:
        form, targs = _FORMS[tp] = _form(tp)
    except TypeError:  # a hint that cannot be a key
        form, targs = _form(tp)
    # The forms by how often a set holds them: scalars (18,000 a set), unions (14,000: optional fields).
    if form == "scalar":
        ok = _SCALAR_OK.get(tp)
        if ok is None:
            raise TypeError(f"schema: no check for type {tp!r} of {fname}")  # a bug here, not bad input
        if isinstance(value, _BadNumber):
            raise SchemaError(f"{where}: field {fname} is {value.text}, not a finite number "
                              f"(numbers in a set lie within ±{MAX_NUMBER:.0e})")
        if not ok(value):
            raise SchemaError(f"{where}: field {fname} is {_shown(value)}, expected {_type_name(tp)}")
        if tp is str and short in ENUM_FIELDS and value not in _enum_values(short):
            allowed = ", ".join(e.value for e in ENUM_FIELDS[short])
            raise SchemaError(f"{where}: field {fname} is {value!r}, expected one of {allowed}")
        if tp is str:
            _check_text(value, where, fname, short)
        elif tp in (int, float):
            _check_number(value, where, fname, short)
        return float(value) if tp is float else value
    if form == "union":
        args = targs
        if value is None and type(None) in args:
            return None
        others = _not_none(args)
        if len(others) == 1:  # X | None: X's own error, as the loop below gives it
            return _check(value, others[0], where, fname, short)
        errors = []
        for arg in others:
            try:
                return _check(value, arg, where, fname, short)
            except SchemaError as exc:
                errors.append(exc)
        raise errors[0] if len(errors) == 1 else SchemaError(
            f"{where}: field {fname} is {_shown(value)}, expected {_type_name(tp)}")
    if form == "dataclass":
        return _build(tp, value, where, fname)
    if form == "list":
        if not isinstance(value, list):
            raise SchemaError(f"{where}: field {fname} must be a list, not {type(value).__name__}")
        (item,) = targs
        if item in (int, float) and value and _numbers_ok(value, item, short):
            return [float(v) for v in value] if item is float else list(value)  # samples: checked in one pass
        return [_check(v, item, where, f"{fname}[{i}]", short) for i, v in enumerate(value)]
    if form == "tuple":  # tuple[X, ...]: a JSON list
        if not isinstance(value, list | tuple):
            raise SchemaError(f"{where}: field {fname} must be a list, not {type(value).__name__}")
        item = targs[0]
        return tuple(_check(v, item, where, f"{fname}[{i}]", short) for i, v in enumerate(value))
    if form == "dict":
        if not isinstance(value, dict):
            raise SchemaError(f"{where}: field {fname} must be an object, not {type(value).__name__}")
        _, item = targs
        return {str(k): _check(v, item, where, f"{fname}.{k}", _short(str(k))) for k, v in value.items()}
    return value  # "any"


@functools.cache
def _not_none(args: tuple) -> tuple:
    return tuple(a for a in args if a is not type(None))


@functools.cache
def _fields(cls) -> tuple[frozenset[str], tuple[str, ...]]:
    """A dataclass's field names, and those without a default, in order (read once per class)."""
    fields = dataclasses.fields(cls)
    return frozenset(f.name for f in fields), tuple(
        f.name for f in fields if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)


def _build(cls, data: Any, where: str, path: str = ""):
    """One dataclass from a JSON object: every field type-checked, unknown keys refused."""
    name = path or cls.__name__
    if not isinstance(data, dict):
        raise SchemaError(f"{where}: field {name} must be an object ({cls.__name__})")
    names, required = _fields(cls)
    if not names.issuperset(data):
        unknown = sorted(set(data) - names)
        raise SchemaError(f"{where}: field {name} has unknown key(s) {', '.join(unknown)} "
                          f"(a newer schema, or a damaged file)")
    missing = [f for f in required if f not in data]
    if missing:
        raise SchemaError(f"{where}: {cls.__name__} lacks {', '.join(missing)}"
                          + (f" (in {path})" if path else ""))
    hints = _hints(cls)
    prefix = f"{path}." if path else ""
    return cls(**{k: _check(v, hints[k], where, prefix + k, k) for k, v in data.items()})


def from_dict(data: Any, where: str = RESULT_FILE) -> ResultSet:
    rs = _build(ResultSet, _upgraded(data, where), where)
    _check_set(rs, where)
    return rs


def _upgraded(data: Any, where: str) -> dict:
    """A set's top object, migrated to SCHEMA_VERSION; its version checked first."""
    if not isinstance(data, dict):
        raise SchemaError(f"{where}: not a JSON object")
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise SchemaError(f"{where}: no integer schema_version")
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"{where}: schema_version {version} is newer than this code reads "
            f"({SCHEMA_VERSION}); update the project"
        )
    return migrate(data, where)


