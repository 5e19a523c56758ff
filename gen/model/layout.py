"""The set layout on disk and atomic publishing.

Takes: paths. Gives: `atomic_write_text` (readers see the old file or the new,
never half) and `publish_set` (a fully written staging folder renamed into
place). Standard library only: capture uses it on the GPU machine.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write a file so that readers see the old content or the new, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def publish_set(staging: Path, final: Path, force: bool) -> None:
    """Move a fully written staging directory into place in one rename.

    An existing set is only replaced with force, and then the old one is kept
    aside until the new one is in place, so an interruption loses neither.
    """
    if final.exists() and not force:
        raise FileExistsError(
            f"{final}: result set exists; pass --force to replace it, or --label to keep both"
        )
    backup = None
    if final.exists():
        backup = final.with_name(f".{final.name}.old-{os.getpid()}")
        os.replace(final, backup)
    os.replace(staging, final)
    if backup is not None:
        shutil.rmtree(backup)
