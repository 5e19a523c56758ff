"""The build's reading of the result sets: each set's key (the sha256 of its files), its ResultSet and its
outline, kept in the cache by the set's content.

Takes: the results/ tree and the cache (gen.report.cache). Gives: `read_sets(root, skip_broken, store, keys)` (every
set as a gen.analysis.loading.LoadedSet, in the build's order, the sets skipped, each set's key), `set_keys(paths)`,
`limits_key()`, and the worker processes the build forks (`workers_for`, `start_worker`, `map_paths`).

A new or changed set is hashed, read and checked against the schema in worker processes; its ResultSet and its
outline (gen.analysis.loading.SetOutline: what the set is and measured, without its numbers) are kept. A set kept
from a build before is read as its outline only, and its ResultSet decoded where something first asks for it (its
own pages, the sets compared with it): the pages over all sets and the build's plan read outlines, so that one new
set among fifty decodes the new set's neighbours, not all fifty (a ResultSet entry is some 2 MB of JSON).
"""

from __future__ import annotations

import functools
import multiprocessing as mp
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from gen.analysis import tables
from gen.analysis.loading import SetOutline, outline_of
from gen.model import layout, limits, schema
from gen.report import cache


def start_worker(parent: int) -> None:
    """A worker's initializer: the worker ends when the build that forked it ends, even by SIGKILL
    (no cleanup runs then, and a worker would wait on its queue for minutes): a thread watches for
    the parent to change."""
    if os.getppid() != parent:  # the parent died before the watch began
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def workers_for(n_tasks: int) -> int:
    """Worker processes: one per core, forked (so they inherit the loaded sets), and only
    where forking is safe: no other thread in this process."""
    if n_tasks < 2 or "fork" not in mp.get_all_start_methods() or threading.active_count() > 1:
        return 1
    return max(1, min(n_tasks, os.cpu_count() or 1))


def map_paths(fn, paths: list[Path]) -> list:
    """fn of each path, in worker processes where there are several, in the paths' order."""
    workers = workers_for(len(paths))
    if workers < 2:
        return list(map(fn, paths))
    with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork"), initializer=start_worker,
                             initargs=(os.getpid(),)) as pool:
        return list(pool.map(fn, paths, chunksize=max(1, len(paths) // (4 * workers))))


def load_one(path: Path) -> tuple[schema.ResultSet | None, schema.UserError | None]:
    try:
        return schema.load_set(path), None
    except schema.UserError as exc:  # one line naming the file, sent back to the build
        return None, exc


def _key_one(path: Path) -> tuple[str | None, schema.UserError | None]:
    """(its key, or its error) of one set: its result file within the limits (gen.model.limits: the
    environment's, checked on every build), then the sha256 of its files."""
    try:
        limits.check_result_file(path / schema.RESULT_FILE)
        return cache.set_key(path), None
    except schema.UserError as exc:
        return None, exc


def set_keys(paths: list[Path]) -> list[str | None]:
    """Each set's key (the sha256 of its files), None where it cannot be made (the reading says why)."""
    return [k for k, _ in map_paths(_key_one, paths)]


def _read_one(path: Path, store: cache.Store | None = None, keys: dict | None = None) \
        -> tuple[str | None, schema.ResultSet | None, SetOutline | None, schema.UserError | None]:
    """(its key, its ResultSet, its outline, or its error) of one set: its key (`_key_one`, unless `keys` has it),
    then the set loaded and checked, or the ResultSet this code loaded from the same files before (kept in `store`).
    Its outline is kept beside its ResultSet (which is kept as read: outline_of then settles its reasons)."""
    k = (keys or {}).get(path.name)
    if k is None:
        k, error = _key_one(path)
        if error is not None:
            return None, None, None, error
    rs = store.get("set", set_entry(k)) if store is not None else None
    if not isinstance(rs, schema.ResultSet):
        rs, error = load_one(path)
        if error is not None:
            return k, None, None, error
        if store is not None:
            store.put("set", set_entry(k), rs)
    outline = outline_of(rs)
    if store is not None:
        store.put("outline", set_entry(k), outline)
    return k, rs, outline, None


def _kept(store: cache.Store, k: str, path: Path) -> schema.ResultSet:
    """A kept set's ResultSet, decoded now (LoadedSet.rs asks for it); read from its files again where the entry
    is gone or damaged since its outline was read."""
    rs = store.get("set", set_entry(k))
    if isinstance(rs, schema.ResultSet):
        return rs
    rs = schema.load_set(path)
    store.put("set", set_entry(k), rs)
    return rs


def set_entry(set_key: str) -> str:
    """The cache key of a set's ResultSet and of its outline: its files' content, the code that reads them and the
    limits."""
    return cache.key(cache.code_key(), "set", set_key, limits_key())


def limits_key() -> str:
    """The limits in force (gen.model.limits: each raised by its variable)."""
    return repr([lim.value() for lim in limits.ALL])


def _checked(path: Path, outline: SetOutline | None, error: schema.UserError | None) -> None:
    """The set's files within the limits (those its outline names); or its error, raised."""
    if error is not None:
        raise error
    limits.check_set(path, layout.set_files(outline))


def read_sets(results_root: Path, skip_broken: bool, store: cache.Store | None = None, keys: dict | None = None):
    """(every set, loaded and checked, or kept in `store` for the same files: gen.analysis.tables.LoadedSet, in the
    build's order; the sets skipped; each set's key, the sha256 of its files). Each set's error is the one a
    set-by-set reading meets first (without skip_broken, the first set's). `keys`: the sets' keys where already
    made (set_keys). A kept set is its outline here, its ResultSet decoded when first asked for (`_kept`)."""
    layout.settle(Path(results_root))  # what a killed publish left is put right first, or named
    paths = schema.list_sets(results_root)
    known = dict(keys or {})
    kept: dict[int, SetOutline] = {}
    for i, path in enumerate(paths):
        k = known.get(path.name)
        got = store.get("outline", set_entry(k)) if store is not None and k is not None else None
        if isinstance(got, SetOutline) and got.name == path.name:
            kept[i] = got
    rest = iter(map_paths(functools.partial(_read_one, store=store, keys=known),
                          [p for i, p in enumerate(paths) if i not in kept]))
    loaded, skipped, keys = [], [], {}
    for i, path in enumerate(paths):
        k, rs, outline, error = (known[path.name], None, kept[i], None) if i in kept else next(rest)
        if store is not None and k is not None:
            store.keep("set", set_entry(k))  # read or written in a worker: not pruned
            store.keep("outline", set_entry(k))
        try:
            _checked(path, outline, error)
        except schema.UserError as exc:
            if not skip_broken:
                raise
            skipped.append(tables.Skipped(path.name, str(exc)))
            continue
        keys[path.name] = k
        loaded.append(tables.LoadedSet(path.name, path, rs, outline=outline,
                                       load=functools.partial(_kept, store, k, path)))
    return sorted(loaded, key=lambda s: (not s.measured, s.environment.device != "cuda", s.name)), skipped, keys
