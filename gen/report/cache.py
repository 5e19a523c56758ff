"""The build's cache: what a set's files determine, kept between builds, keyed by their content.

Takes: set folders, the code of gen/ and its templates, values to keep. Gives: `set_key(path)`
(the sha256 of every file of a set: paths and bytes), `code_key()` (a hash of the code and the
library versions that shape a page), and `Store`: values kept as JSON, one file per key.

The cache lies in the project, where anyone who can write the checkout can write it, so nothing
read from it is trusted further than data:
- no pickle, no compiled code: an entry is JSON, decoded by `decode`, which builds only plain
  values (None, bools, numbers, strings, lists, dicts), tuples, sets, numpy scalars, pandas
  frames of plain dtypes, and dataclasses and enums of the `gen` package already imported (a
  list of floats is kept as their little-endian float64 bytes in base64, a dataclass as its
  fields' values in their declared order: JSON's parser reads those several times faster);
- an entry carries its kind, its key and the sha256 of its payload, checked on read: a damaged,
  edited, misnamed or undecodable entry is a miss (made again), never an error;
- entries are written whole (a temporary file renamed); temporary files of processes that are gone
  (a build killed with SIGKILL) are removed by the next build.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import hashlib
import json
import math
import os
import platform
import re
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from gen.model.schema import UserError

GEN = Path(__file__).resolve().parent.parent
SUFFIX = ".json"
FORMAT = 2  # raised when what an entry holds changes
TMP_PREFIX = ".tmp-"
_TMP_RE = re.compile(r"^\.tmp-(\d+)-")


def set_key(path: Path) -> str:
    """Every file of a set folder, by path and bytes: a set whose content changed in any way gets a
    new key (its files' sizes and times are not looked at: an edit that keeps them is still seen)."""
    try:
        rels = sorted(_files(str(path)))
    except OSError as exc:  # a link that loops, a folder that cannot be read: the set's fault, in one line
        raise UserError(f"{exc.filename or path}: cannot read the result set's files ({exc.strerror or exc})") \
            from None
    h = hashlib.sha256()
    for rel in rels:
        full = os.path.join(path, rel)
        # a link is its target too: the same bytes behind a link that leads out of the set read otherwise
        h.update(rel.encode() + b"\0" + (b"link " + os.fsencode(os.readlink(full)) + b"\0"
                                         if os.path.islink(full) else b""))
        try:
            with open(full, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    h.update(chunk)
        except OSError as exc:
            raise UserError(f"{full}: cannot read it ({exc.strerror or exc})") from None
        h.update(b"\0")
    return h.hexdigest()


def _files(root: str, prefix: str = ""):
    """The path (relative to root) of every regular file under root, a link to a file followed,
    a link to a folder not."""
    with os.scandir(os.path.join(root, prefix) if prefix else root) as it:
        for e in it:
            rel = f"{prefix}/{e.name}" if prefix else e.name
            if e.is_dir(follow_symlinks=False):
                yield from _files(root, rel)
            elif e.is_file():
                yield rel


@lru_cache(maxsize=1)
def code_key() -> str:
    """The code that turns a set into pages: every module and template of gen/, and the
    versions of the libraries whose output lands on a page."""
    from importlib.metadata import version

    import jinja2
    import numpy
    import pandas

    h = hashlib.sha256(f"{platform.python_version()} altair {version('altair')} jinja2 {jinja2.__version__} "
                       f"numpy {numpy.__version__} pandas {pandas.__version__} markdown {version('markdown')} "
                       f"cache {FORMAT}".encode())
    for p in sorted(GEN.rglob("*")):
        if p.is_file() and p.suffix in (".py", ".j2"):
            h.update(p.relative_to(GEN).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def key(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


# ----------------------------------------------------------------------------- values as JSON

_PLAIN_DTYPES = {"bool", "int64", "float64", "object", "str", "string"}


def encode(value):
    """A value as JSON-able data that `decode` gives back equal. TypeError for anything else (not kept)."""
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) in _CONTAINERS:
        return _CONTAINERS[type(value)](value)
    if isinstance(value, enum.Enum):
        return {"$enum": _name(type(value)), "value": encode(value.value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"$dataclass": _name(type(value)),
                "values": [encode(getattr(value, n)) for n in _field_names(type(value))]}
    import numpy as np
    import pandas as pd

    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return {"$numpy": value.dtype.name, "value": encode(value.item())}
    if type(value) is pd.DataFrame:
        return _encode_frame(value)
    raise TypeError(f"not kept in the cache: {type(value).__module__}.{type(value).__qualname__}")


def _plain(items: list) -> bool:
    """Items that are their own JSON: None, bools, whole numbers, strings and finite floats."""
    return all(type(x) in _SCALARS and (type(x) is not float or math.isfinite(x)) for x in items)


def _encode_list(v: list):
    if len(v) >= _PACKED_MIN and all(type(x) is float for x in v):
        import numpy as np

        return {"$floats": base64.b64encode(np.asarray(v, dtype="<f8").tobytes()).decode("ascii")}
    return list(v) if _plain(v) else [encode(x) for x in v]


_PACKED_MIN = 4  # a shorter list of floats is as short written out

_CONTAINERS = {
    float: lambda v: v if v == v and abs(v) != float("inf") else {"$float": repr(v)},
    list: _encode_list,
    tuple: lambda v: {"$tuple": [encode(x) for x in v]},
    set: lambda v: {"$set": [encode(x) for x in v], "frozen": False},
    frozenset: lambda v: {"$set": [encode(x) for x in v], "frozen": True},
    dict: lambda v: {"$dict": [[encode(k), encode(x)] for k, x in v.items()]},
}


def _name(cls: type) -> str:
    if not cls.__module__.startswith("gen."):
        raise TypeError(f"not kept in the cache: {cls.__module__}.{cls.__qualname__}")
    return f"{cls.__module__}:{cls.__qualname__}"


def _encode_frame(df) -> dict:
    import pandas as pd

    dtypes = [str(t) for t in df.dtypes]
    if not set(dtypes) <= _PLAIN_DTYPES or not isinstance(df.index, pd.RangeIndex) \
            or not df.columns.is_unique:
        raise TypeError("not kept in the cache: a frame of other dtypes or index")
    idx = df.index
    return {"$frame": [encode(c) for c in df.columns], "dtypes": dtypes,
            "index": [idx.start, idx.stop, idx.step],
            "columns": [[encode(v) for v in df[c].tolist()] for c in df.columns]}


def _class(name: str) -> type:
    """A class of the gen package that is already imported (no module is imported for an entry)."""
    module, _, qual = str(name).partition(":")
    if not module.startswith("gen.") or module not in sys.modules:
        raise ValueError(f"unknown class {name!r}")
    obj = sys.modules[module]
    for part in qual.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise ValueError(f"not a class: {name!r}")
    return obj


def decode(data):
    """The value `encode` gave `data` for; ValueError (or TypeError, KeyError) for anything else."""
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is list:
        if all(type(v) in _SCALARS for v in data):  # most lists: numbers or names
            return data
        return [decode(v) for v in data]
    if type(data) is not dict or len(data) == 0:
        raise ValueError("not an encoded value")
    tag = next(iter(data))
    if tag not in _DECODERS:
        raise ValueError(f"unknown tag {tag!r}")
    return _DECODERS[tag](data)


_SCALARS = frozenset((type(None), bool, int, float, str))


def _decode_float(data: dict) -> float:
    if data["$float"] not in ("nan", "inf", "-inf"):
        raise ValueError("not a float")
    return float(data["$float"])


def _decode_set(data: dict):
    items = [decode(v) for v in _list(data["$set"])]
    return frozenset(items) if data["frozen"] is True else set(items)


def _decode_enum(data: dict):
    cls = _class(data["$enum"])
    if not issubclass(cls, enum.Enum):
        raise ValueError("not an enum")
    return cls(decode(data["value"]))


_NUMPY = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64")


def _decode_numpy(data: dict):
    import numpy as np

    if data["$numpy"] not in _NUMPY:
        raise ValueError("not a numpy scalar type")
    return np.dtype(data["$numpy"]).type(decode(data["value"]))


def _list(x) -> list:
    if type(x) is not list:
        raise ValueError("not a list")
    return x


def _pair(p) -> tuple:
    if type(p) is not list or len(p) != 2:
        raise ValueError("not a pair")
    return p[0], p[1]


@lru_cache(maxsize=1024)
def _dataclass(name: str) -> tuple[type, tuple[str, ...]]:
    """A dataclass of the gen package already imported, and its fields' names (once per name: an entry
    holds thousands of records)."""
    cls = _class(name)
    if not dataclasses.is_dataclass(cls):
        raise ValueError("not a dataclass")
    return cls, _field_names(cls)


def _decode_dataclass(data: dict):
    name = data["$dataclass"]
    if type(name) is not str:
        raise ValueError("not a class name")
    cls, names = _dataclass(name)
    values = data["values"]
    # (the entry's key holds the code's: the fields are the ones encoded, in that order)
    if type(values) is not list or len(values) != len(names):
        raise ValueError(f"{cls.__qualname__}: other fields")
    obj = object.__new__(cls)  # the fields as kept (no __init__ or __post_init__ runs for a cached value)
    for name, value in zip(names, values):
        object.__setattr__(obj, name, decode(value))
    return obj


def _decode_floats(data: dict) -> list[float]:
    import numpy as np

    packed = data["$floats"]
    if type(packed) is not str:
        raise ValueError("not packed floats")
    raw = base64.b64decode(packed, validate=True)
    if len(raw) % 8:
        raise ValueError("not packed floats")
    return np.frombuffer(raw, dtype="<f8").tolist()


@lru_cache(maxsize=1024)
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def _decode_frame(data: dict):
    import pandas as pd

    columns = [decode(c) for c in _list(data["$frame"])]
    dtypes, values = _list(data["dtypes"]), _list(data["columns"])
    start, stop, step = _list(data["index"])
    if len(dtypes) != len(columns) or len(values) != len(columns) or not set(dtypes) <= _PLAIN_DTYPES:
        raise ValueError("a frame's columns do not match")
    import numpy as np

    index = pd.RangeIndex(int(start), int(stop), int(step))
    series = {}
    for c, dtype, vals in zip(columns, dtypes, values):
        rows = decode(_list(vals))
        if len(rows) != len(index):
            raise ValueError("a frame's column has another length")
        if dtype in _NUMPY_COLUMNS and all(type(v) in _NUMPY_COLUMNS[dtype] for v in rows):
            series[c] = np.array(rows, dtype=dtype)  # a column of numbers: one array, no Series of its own
        else:
            series[c] = pd.Series(rows, index=index, dtype=dtype) if rows else pd.Series([], index=index, dtype=dtype)
    return pd.DataFrame(series, index=index)


# The numbers a column of these dtypes holds, as JSON gives them back (NaN and infinities are decoded floats)
_NUMPY_COLUMNS = {"float64": (float, int), "int64": (int,), "bool": (bool,)}


# ----------------------------------------------------------------------------- the store


class Store:
    """Values kept as JSON in one folder, one file per kind and key."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.used: set[str] = set()

    def _path(self, kind: str, k: str) -> Path:
        return self.root / f"{kind}-{k}{SUFFIX}"

    def get(self, kind: str, k: str):
        """The value kept for (kind, key), or None: missing, unreadable, damaged, edited or of
        another kind or key (a file renamed) are all a miss."""
        path = self._path(kind, k)
        self.used.add(path.name)
        try:
            with open(path, "rb") as fh:
                head = fh.readline()
                payload = fh.read()
            meta = json.loads(head)
            if (type(meta) is not dict or meta.get("format") != FORMAT or meta.get("kind") != kind
                    or meta.get("key") != k or meta.get("sha256") != hashlib.sha256(payload).hexdigest()):
                return None
            return decode(json.loads(payload))
        except (OSError, ValueError, TypeError, KeyError, AttributeError, LookupError, RecursionError):
            return None

    def has(self, kind: str, k: str) -> bool:
        """Whether an entry for (kind, key) is there; not read (`get` may still find it damaged)."""
        return self._path(kind, k).is_file()

    def keep(self, kind: str, k: str) -> None:
        """Count an entry as used by this build (read or written by another process of it): not pruned."""
        self.used.add(self._path(kind, k).name)

    def put(self, kind: str, k: str, value) -> bool:
        """Keep a value (written whole); False where it is not something the cache can keep."""
        path = self._path(kind, k)
        self.used.add(path.name)
        try:
            payload = json.dumps(encode(value), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        except (TypeError, ValueError, RecursionError):
            return False
        head = json.dumps({"format": FORMAT, "kind": kind, "key": k,
                           "sha256": hashlib.sha256(payload).hexdigest()}).encode() + b"\n"
        self.root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=f"{TMP_PREFIX}{os.getpid()}-", suffix=SUFFIX)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(head + payload)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return True

    def prune(self, temporary_only: bool = False) -> None:
        """Remove the entries this build did not read or write (older sets, older code), anything
        else left in the folder by older versions of the build, and the temporary files of
        processes that are gone (only those with temporary_only)."""
        if not self.root.is_dir():
            return
        for p in self.root.iterdir():
            if p.name in self.used or (temporary_only and not p.name.startswith(TMP_PREFIX)):
                continue
            if p.name.startswith(TMP_PREFIX):
                m = _TMP_RE.match(p.name)
                if m and _alive(int(m.group(1))):
                    continue  # another build's, being written
            if p.is_dir() and not p.is_symlink():
                import shutil

                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError, ValueError):
        return False
    except PermissionError:
        return True
    return True


_DECODERS = {
    "$float": _decode_float,
    "$tuple": lambda data: tuple(decode(v) for v in _list(data["$tuple"])),
    "$set": _decode_set,
    "$dict": lambda data: {decode(k): decode(v) for k, v in (_pair(p) for p in _list(data["$dict"]))},
    "$enum": _decode_enum,
    "$dataclass": lambda data: _decode_dataclass(data),
    "$numpy": _decode_numpy,
    "$floats": _decode_floats,
    "$frame": lambda data: _decode_frame(data),
}
