"""The build's cache: what a set's files determine, kept between builds, keyed by their content.

Takes: set folders, the code of gen/ and its templates. Gives: `set_key(path)` (a hash of
every file of a set: paths and bytes), `code_key()` (a hash of the code and the library
versions that shape a page), and `Store`: pickled values (`pickled(value)`, `put_pickled`: one
pickled once elsewhere) under one folder, read by key,
written atomically (a half-written entry is never read: it is a temporary file until
renamed), entries not used by a build removed after it. A value that cannot be read
(damaged, from another Python) is a miss, never an error: the build makes it again.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import platform
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

from gen.model.schema import UserError

GEN = Path(__file__).resolve().parent.parent
SUFFIX = ".pkl"
FILES = ".files"  # a folder of texts beside an entry (Store.files)


def set_key(path: Path, memo: dict | None = None) -> str:
    """Every file of a set folder, by path and bytes: a set that changed in any way gets a new key.
    With `memo` (folder -> (every file's path, size and mtime; key), kept by the caller), a folder
    whose files all have the size and modification time they had is not read again."""
    try:
        stats = tuple(sorted(_files(str(path))))
    except OSError as exc:  # a link that loops, a folder that cannot be read: the set's fault, in one line
        raise UserError(f"{exc.filename or path}: cannot read the result set's files ({exc.strerror or exc})") \
            from None
    known = memo.get(str(path)) if memo is not None else None
    if known is not None and known[0] == stats:
        return known[1]
    h = hashlib.sha256()
    for rel, _, _ in stats:
        h.update(rel.encode() + b"\0")
        try:
            with open(os.path.join(path, rel), "rb") as fh:  # not a Path per file: a set has hundreds
                h.update(fh.read())
        except OSError as exc:
            raise UserError(f"{os.path.join(path, rel)}: cannot read it ({exc.strerror or exc})") from None
        h.update(b"\0")
    key = h.hexdigest()
    if memo is not None:
        memo[str(path)] = (stats, key)
    return key


def _files(root: str, prefix: str = ""):
    """(path relative to root, size, mtime) of every regular file under root, a link to a file
    followed, a link to a folder not (os.scandir: a fraction of Path.rglob's time on a set's
    few hundred files)."""
    with os.scandir(os.path.join(root, prefix) if prefix else root) as it:
        for e in it:
            rel = f"{prefix}/{e.name}" if prefix else e.name
            if e.is_dir(follow_symlinks=False):
                yield from _files(root, rel)
            elif e.is_file():
                st = e.stat()
                yield rel, st.st_size, st.st_mtime_ns


@lru_cache(maxsize=1)
def code_key() -> str:
    """The code that turns a set into pages: every module and template of gen/, and the
    versions of the libraries whose output lands on a page."""
    from importlib.metadata import version  # not altair's import: 0.2 s of a build's start

    import jinja2
    import numpy
    import pandas

    h = hashlib.sha256(f"{platform.python_version()} altair {version('altair')} jinja2 {jinja2.__version__} "
                       f"numpy {numpy.__version__} pandas {pandas.__version__}".encode())
    for p in sorted(GEN.rglob("*")):
        if p.is_file() and p.suffix in (".py", ".j2"):
            h.update(p.relative_to(GEN).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def key(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def pickled(value) -> bytes:
    """A value as the Store keeps it."""
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


class Store:
    """Pickled values in one folder, one file per key."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.used: set[str] = set()

    def _path(self, kind: str, k: str) -> Path:
        return self.root / f"{kind}-{k}{SUFFIX}"

    def get(self, kind: str, k: str):
        path = self._path(kind, k)
        self.used.add(path.name)
        try:
            with open(path, "rb") as fh:
                return pickle.load(fh)
        except FileNotFoundError:
            return None
        except Exception:  # damaged or unreadable here: made again
            return None

    def put(self, kind: str, k: str, value) -> None:
        self.put_pickled(kind, k, pickled(value))

    def put_pickled(self, kind: str, k: str, data: bytes) -> None:
        """Keep a value already pickled (by `pickled`: a worker process sends it so)."""
        path = self._path(kind, k)
        self.used.add(path.name)
        self.root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=SUFFIX)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def files(self, kind: str, k: str, bodies: dict[str, str]) -> Path:
        """Texts kept as files beside the entry (relative path -> text), written whole into a
        folder of their own and renamed into place; returns the folder. A build links them where
        they go instead of unpickling and writing them again."""
        final = self.root / f"{kind}-{k}{FILES}"
        self.used.add(final.name)
        if final.is_dir():
            return final
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=self.root, prefix=".tmp-"))
        try:
            for rel, text in bodies.items():
                dest = tmp / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(text, encoding="utf-8", newline="\n")
            os.replace(tmp, final)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
            if not final.is_dir():  # another build wrote it meanwhile: that one serves
                raise
        return final

    def prune(self) -> None:
        """Remove the entries this build did not read or write (older sets, older code)."""
        if not self.root.is_dir():
            return
        for p in self.root.iterdir():
            if p.name in self.used or p.name.startswith(".tmp-"):
                continue
            if p.suffix == SUFFIX:
                p.unlink(missing_ok=True)
            elif p.name.endswith(FILES) and p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
