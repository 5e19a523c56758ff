"""A resumable capture's staging area: every finished item kept as it ends.

Takes: the results root, the set's name and a fingerprint of what was asked
(variants, modes, scenarios, shape, budget, GPU, torch). Gives: `Store`, the
folder `<root>/.partial-<name>/` holding `meta.json` (the fingerprint and the
environment of the first session), `items/<key>.json` (one finished run,
sweep point, counter pass, ceiling or session overhead, written atomically),
`traces/` (written before the item that names them) and `capture.log` (every
line of every session). An item is kept only once whole: a point interrupted
half-way has no item and is measured again. `python -m gen profile --resume`
reads it back; the set is published once, when every item is there.

Standard library and gen.model only.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from gen.model import layout, schema

PREFIX = ".partial-"
KILL_ENV = "GEN_TEST_KILL_AFTER_POINTS"  # tests: SIGKILL this process after N items are kept


def key_of(kind: str, *parts: str, point: schema.Point | None = None) -> str:
    """A file-safe key: the kind and names, plus a hash of the point."""
    text = "__".join([kind, *parts])
    if point is not None:
        blob = json.dumps(schema.dataclasses.asdict(point), sort_keys=True)
        text += "__" + hashlib.sha1(blob.encode()).hexdigest()[:12]
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def kill_after() -> int | None:
    """KILL_ENV's count of items, None where unset; anything but a positive whole number is a one-line
    error before the capture starts (0 or -1 would kill it at its first item)."""
    raw = os.environ.get(KILL_ENV, "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 9 and int(raw) >= 1):
        raise schema.UserError(f"{KILL_ENV}={raw!r}: expected a positive whole number of items (a test's switch)")
    return int(raw)


class Store:
    def __init__(self, root: Path, name: str):
        self.path = Path(root) / f"{PREFIX}{name}"
        self.items_dir = self.path / "items"
        self.kept = 0
        self.kill_after = kill_after()

    def exists(self) -> bool:
        return (self.path / "meta.json").is_file()

    def count(self) -> int:
        return len(list(self.items_dir.glob("*.json"))) if self.items_dir.is_dir() else 0

    def create(self, meta: dict) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        (self.path / schema.TRACE_DIR).mkdir(parents=True)
        self.items_dir.mkdir()
        layout.atomic_write_text(self.path / "meta.json", json.dumps(meta, indent=1, sort_keys=True) + "\n")

    def meta(self) -> dict:
        try:
            return json.loads((self.path / "meta.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise schema.UserError(f"{self.path / 'meta.json'}: unreadable ({exc}); remove {self.path} "
                                   "to start over") from None

    def get(self, key: str) -> dict | None:
        p = self.items_dir / f"{key}.json"
        if not p.is_file():
            return None
        try:
            return json.loads(p.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None  # a torn write cannot happen (atomic), but a damaged file is measured again

    def put(self, key: str, payload: dict) -> None:
        layout.atomic_write_text(self.items_dir / f"{key}.json", json.dumps(payload, sort_keys=True) + "\n")
        self.kept += 1
        if self.kill_after is not None and self.kept >= self.kill_after:
            import signal

            os.kill(os.getpid(), signal.SIGKILL)  # a controlled crash, for the resume test

    def all(self) -> dict[str, dict]:
        out = {}
        for p in sorted(self.items_dir.glob("*.json")):
            got = self.get(p.stem)
            if got is not None:
                out[p.stem] = got
        return out

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def load(cls, data: dict, where: str):
    """A record dataclass from its stored dict, type-checked as a set's are."""
    return schema._build(cls, data, where)


# The environment's fields that say which host measured: a partial capture is continued only on its own.
HOST_FIELDS = ("device", "gpu_name", "cpu", "platform", "driver", "cuda", "cudnn", "torch")


def other_host(stored, env: schema.Environment) -> list[str]:
    """'field: here ..., there ...' for each HOST_FIELDS value where the stored environment (meta.json's,
    a dict) names another than env; every field when there is none stored."""
    stored = stored if isinstance(stored, dict) else {}
    return [f"{name}: {getattr(env, name)!r} here, {stored.get(name, 'none')!r} in the partial capture"
            for name in HOST_FIELDS if stored.get(name, _UNSET) != getattr(env, name)]


_UNSET = object()  # a field meta.json lacks: no value matches it


def differences(a: dict, b: dict) -> list[str]:
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
