"""The set layout on disk and atomic publishing.

Takes: paths. Gives: `set_name` (a result set's folder name from its environment,
e.g. nvidia-h200__torch-2.11.0), `atomic_write_text` (readers see the old file or the new,
never half), `make_staging` (a hidden folder to write a set or the pages
into), `publish_dir` / `publish_set` (the staging folder renamed into place),
`recover` (what an earlier, killed run left behind: restored or removed, and
said), `settle` (recover before a read, or name what cannot be recovered), and
`terminate_as_interrupt` (SIGTERM raised as KeyboardInterrupt, so
that cleanup runs). Standard library only: capture uses it on the GPU machine.

Publishing holds an exclusive lock (fcntl.flock on `.publish.lock` in the
parent folder), so two runs at once take turns (on a file system without locks, a note says it
publishes without one); the two renames that swap the
old copy for the new run with SIGINT and SIGTERM held back, so an interrupt
comes before or after them, never between. Only SIGKILL or a crash can land
between; the next run's `recover` then puts the old copy back (no new one in
place) or removes it (the new one is in place). Files and folders get the
usual permissions (0666 / 0777 less the umask), not mkstemp's 0600.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from gen.model.schema import RESULT_FILE, UserError

# The OSErrors that are this machine's state, not a bug nor bad input: a folder without
# write permission, a read-only file system, a full disk or quota. The CLI says them in one line.
ENVIRONMENT_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT})
LOCK_FILE = ".publish.lock"
# What flock raises on a file system without locks
_NO_LOCKS = frozenset({errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOLCK})
_SAID_NO_LOCKS: set[str] = set()
STAGING_PREFIX = ".staging-"
_STAGING_RE = re.compile(r"^\.staging-(?P<name>.+)-(?P<pid>\d+)$")
_OLD_RE = re.compile(r"^\.(?P<name>.+)\.old-(?P<pid>\d+)$")
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def name_slug(text: str) -> str:
    """Lower-case letters and digits, runs of anything else one '-': the parts of a set's name."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def set_name(gpu_name: str | None, cpu: str, torch_version: str, label: str | None = None) -> str:
    """A result set's folder name: <gpu or cpu-...>__torch-<version without its local part>[__<label>].
    Always a name the load takes (schema.NAME_RE, at most 100 characters), whatever the
    machine calls its GPU, CPU or PyTorch build."""
    device = (name_slug(gpu_name)[:40].strip("-") or "gpu") if gpu_name else \
        ("cpu-" + name_slug(cpu)[:40]).strip("-")
    version = re.sub(r"[^a-z0-9.]+", "-", torch_version.split("+")[0].lower())[:20].strip("-.") or "unknown"
    name = f"{device}__torch-{version}"
    label = name_slug(label or "")[:24].strip("-")
    return f"{name}__{label}" if label else name


CAPTURE_LOG = "capture.log"


def set_files(rs) -> list[str]:
    """The files a result set consists of, relative to its folder: result.json, capture.log
    and the traces its runs and sweep points name. Nothing else is imported. Beside them a set
    may hold its traces' digest (gen.model.trace_digest): made from them, never taken on import."""
    traces = {rec.trace for rec in [*rs.runs, *rs.sweep] if rec.trace}
    return [RESULT_FILE, CAPTURE_LOG, *sorted(traces)]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that every cleanup (finally) runs."""


def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def file_mode() -> int:
    return 0o666 & ~_umask()


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write a file so that readers see the old content or the new, never half."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        try:
            os.fchmod(fd, file_mode())  # mkstemp makes 0600: others could not read the results
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            if exc.filename is not None:
                raise
            # A write's error names no file ("No space left on device"): the file it was for, then
            raise type(exc)(exc.errno, exc.strerror, str(path)) from exc
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_TERM = {"depth": 0, "seen": False}  # terminate_as_interrupt's nesting, and whether SIGTERM came inside it


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM raises Terminated (a KeyboardInterrupt) while inside: a job runner's
    kill then unwinds through the cleanups instead of stopping the process dead. The signal
    is also remembered until the outermost block ends: raised where it landed in a finalizer
    or a callback, Python prints and drops the exception, and `raise_if_terminated` (called
    before anything is published) raises it again."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        _TERM["seen"] = True
        raise Terminated("terminated (SIGTERM)")

    previous = signal.signal(signal.SIGTERM, handler)
    _TERM["depth"] += 1
    try:
        yield
    finally:
        _TERM["depth"] -= 1
        if _TERM["depth"] == 0:
            _TERM["seen"] = False
        signal.signal(signal.SIGTERM, previous)


def raise_if_terminated() -> None:
    """Terminated, where a SIGTERM came inside terminate_as_interrupt and was dropped on its way."""
    if _TERM["seen"]:
        raise Terminated("terminated (SIGTERM)")


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block is done, then arrive."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextlib.contextmanager
def lock(parent: Path) -> Iterator[None]:
    """Exclusive lock on parent/.publish.lock: one publisher at a time (waits)."""
    parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(parent / LOCK_FILE, os.O_RDWR | os.O_CREAT, file_mode())
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            if exc.errno not in _NO_LOCKS:
                raise
            # Some network file systems (Lustre without -o flock, some NFS mounts) have no locks: publishing
            # is still atomic (renames); only two publishers at once are not made to take turns.
            if str(parent) not in _SAID_NO_LOCKS:  # once a folder: a publish takes the lock twice
                _SAID_NO_LOCKS.add(str(parent))
                _say(f"{parent}: its file system has no locks ({exc.strerror}); publishing without one: run no "
                     f"second capture, import or build into it at the same time")
        yield
    finally:
        os.close(fd)  # releases the lock


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _say(msg: str) -> None:
    print(f"note: {msg}", file=sys.stderr, flush=True)


def recover(parent: Path, locked: bool = False) -> list[str]:
    """What killed runs left in parent: an old copy moved aside (`.<name>.old-PID`)
    is put back when no <name> replaced it, else removed; a staging folder
    (`.staging-<name>-PID`) of a process that is gone is removed. Each is said
    on stderr; returns the messages."""
    parent = Path(parent)
    if not parent.is_dir():
        return []
    if not locked:
        with lock(parent):
            return recover(parent, locked=True)
    said = []
    for p in sorted(parent.iterdir()):
        m = _OLD_RE.match(p.name) or _STAGING_RE.match(p.name)
        staging = p.name.startswith(STAGING_PREFIX)
        # An old copy exists only inside a publish, under the lock we hold: any
        # left is stale. A staging folder is written outside the lock: stale
        # only when its process is gone.
        if not m or not p.is_dir() or (staging and _alive(int(m["pid"]))):
            continue
        final = parent / m["name"]
        if staging:
            shutil.rmtree(p, ignore_errors=True)
            msg = f"removed {p}: the staging folder of an interrupted run (process {m['pid']} is gone)"
        elif not final.exists():
            os.replace(p, final)
            msg = f"restored {final} from {p.name}, left by an interrupted publish"
        else:
            shutil.rmtree(p, ignore_errors=True)
            msg = f"removed {p}: the old copy of {final.name}, left by an interrupted publish after the new one"
        if p.exists():
            msg = f"could not remove {p} (left by an interrupted run): remove it by hand"
        _say(msg)
        said.append(msg)
    return said


def leftovers(parent: Path) -> list[tuple[Path, Path]]:
    """(old copy, its set's folder) for each old copy an interrupted publish left in
    parent while no folder replaced it: the set is missing until `recover` runs."""
    parent = Path(parent)
    found = []
    for p in sorted(parent.iterdir()) if parent.is_dir() else []:
        m = _OLD_RE.match(p.name)
        if m and p.is_dir() and not (parent / m["name"]).exists():
            found.append((p, parent / m["name"]))
    return found


def settle(parent: Path) -> list[str]:
    """Before reading the sets (or pages) in parent: what a killed publish left is put
    right (`recover`, said on stderr), or, where parent cannot be written, a set it
    left missing is a one-line error naming the old copy: never read around it."""
    parent = Path(parent)
    try:
        names = [p.name for p in parent.iterdir()] if parent.is_dir() else []
    except OSError:
        return []  # unreadable: the read that follows says so
    if not any(_OLD_RE.match(n) or _STAGING_RE.match(n) for n in names):
        return []  # nothing left behind: no lock taken, no lock file made
    try:
        return recover(parent)
    except OSError as exc:
        missing = leftovers(parent)
        if missing:
            old, final = missing[0]
            raise UserError(f"{final}: missing: an interrupted publish left its old copy {old.name} beside it, "
                            f"and {parent} cannot be written to put it back ({exc.strerror}); run again with "
                            f"write access, or rename {old.name} to {final.name}") from None
        return []


def make_staging(parent: Path, name: str) -> Path:
    """A fresh hidden folder in parent to write <name> into before publishing."""
    parent = Path(parent)
    parent.mkdir(parents=True, exist_ok=True)
    staging = parent / f"{STAGING_PREFIX}{name}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(mode=0o777)  # the umask applies, unlike mkdtemp's 0700
    return staging


def _check_removable(tree: Path) -> None:
    """Every folder of the copy to be replaced can be emptied: found before the swap,
    not after the new copy is in place."""
    for dirpath, _dirs, _files in os.walk(tree):
        if not os.access(dirpath, os.W_OK | os.X_OK):
            raise UserError(f"{dirpath}: not writable, so {tree} cannot be replaced; fix its permissions")


def publish_dir(staging: Path, final: Path, replace: bool, what: str = "result set",
                hint: str = "pass --force to replace it", locked: bool = False) -> list[str]:
    """Move a fully written staging folder to final in one rename, under the lock.

    An existing final is refused unless replace; otherwise it is moved aside,
    the new one renamed in, and the old one removed: an interruption loses
    neither. Returns the notes of `recover` and of any leftover it could not remove.
    locked: the caller holds `lock(final.parent)` already (a read-modify-publish).
    """
    staging, final = Path(staging), Path(final)
    with terminate_as_interrupt(), contextlib.nullcontext() if locked else lock(final.parent):
        notes = recover(final.parent, locked=True)
        raise_if_terminated()  # a SIGTERM dropped on its way (a finalizer's) still stops the publish
        if final.exists() and not replace:
            raise UserError(f"{final}: {what} exists; {hint}")
        backup = None
        if final.exists():
            _check_removable(final)
            backup = final.with_name(f".{final.name}.old-{os.getpid()}")
        try:
            with _signals_held():
                if backup is not None:
                    os.replace(final, backup)
                try:
                    os.replace(staging, final)
                except BaseException:
                    if backup is not None:
                        os.replace(backup, final)
                    raise
        finally:
            # Also when a held signal arrives as the block ends: the new copy is
            # in place, so the old one goes.
            if backup is not None and backup.exists() and final.exists():
                shutil.rmtree(backup, ignore_errors=True)
                if backup.exists():
                    msg = f"could not remove the old copy {backup}; the next run removes it"
                    _say(msg)
                    notes.append(msg)
    return notes


def publish_set(staging: Path, final: Path, force: bool) -> list[str]:
    """A result set into place: refused if it exists, unless force."""
    return publish_dir(staging, final, replace=force,
                       hint="pass --force to replace it, or --label to keep both")
