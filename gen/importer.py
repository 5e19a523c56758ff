"""`python -m gen import PATH`: bring a result set made on another machine into results/.

Takes: a set folder, or a .tar.gz / .tgz holding one (as a CI job or a SLURM
task tars results/<set>). Gives: the set published under the results root,
checked and at the current schema version, or merged into the set of the same
name. How a matrix of GPUs and PyTorch versions run on many machines comes
together into one report (docs/matrix.md).

- Checked before anything is published: tar members stay inside the archive's
  folder (no absolute paths, no `..`, no links or devices; then extracted with
  tarfile's `data` filter), the set's folder is a name (schema.check_name),
  result.json loads (schema, every field's type and range, names, shapes,
  trace paths inside the set) and every run and sweep trace parses: what
  import accepts, build renders.
- An older schema is migrated and written at the current version.
- The set's traces are digested (gen.model.trace_digest) from the parse that checked them,
  and the digest published with the set; a digest that came with it is not taken.
- A set of the same name is refused unless --force (replace) or --merge.
- --merge: same GPU, torch and driver, or refused; the union of runs, sweep
  points and scenarios, where a record in both (same scenario, variant, mode,
  point) is refused by name unless --force (then the imported one wins, except
  that a record which measured nothing never replaces one which did); the
  imported traces are copied in, and each imported record keeps the start of
  the call that measured it (`captured`).
- Published atomically under the results root's lock (gen.model.layout), the
  merge read and written under the same lock, so two imports at once lose nothing.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
import tarfile
import zlib
from pathlib import Path, PurePosixPath

from gen.model import layout, limits, schema, trace_digest
from gen.model.schema import UserError

ARCHIVES = (".tar.gz", ".tgz")


def _part_of_a_set(rel: PurePosixPath) -> bool:
    """Could be a file of a result set: a result.json, a capture.log, or a file in a traces/ folder.
    Nothing else is unpacked (which files the set's result.json names is known only once it loads)."""
    return rel.name in (schema.RESULT_FILE, layout.CAPTURE_LOG) or schema.TRACE_DIR in rel.parts[:-1]


def _safe_members(archive: Path, tar: tarfile.TarFile) -> tuple[list[tarfile.TarInfo], list[str]]:
    """The members to unpack, and the names of files left packed as no part of a set:
    checked one by one as they are read, the archive refused once it holds more members
    or bytes than a set may (gen.model.limits), before any is written."""
    max_files, max_bytes = limits.SET_FILES.value(), limits.SET_BYTES.value()
    admitted, skipped, count, total = [], [], 0, 0
    for m in tar:
        count += 1
        if count > max_files:
            raise limits.SET_FILES.exceeded(archive, f"holds more than {max_files:,} members")
        parts = PurePosixPath(m.name).parts
        if m.name.startswith(("/", "\\")) or PurePosixPath(m.name).is_absolute():
            raise UserError(f"{archive}: member {m.name!r} has an absolute path; refused")
        if ".." in parts:
            raise UserError(f"{archive}: member {m.name!r} climbs out with '..'; refused")
        if not (m.isreg() or m.isdir()):
            kind = "a link" if m.issym() or m.islnk() else "a device or special file"
            raise UserError(f"{archive}: member {m.name!r} is {kind}; a result set holds only files and folders")
        if m.isreg():
            total += m.size
            if total > max_bytes:
                raise limits.SET_BYTES.exceeded(archive, f"unpacks to more than {max_bytes // limits.MIB:,} MiB")
            if _part_of_a_set(PurePosixPath(m.name)):
                admitted.append(m)
            else:
                skipped.append(m.name)
    return admitted, skipped


def _copy_set_files(source: Path, into: Path) -> list[str]:
    """A folder's files that could be part of a set, under the same limits as an archive's;
    returns the names of those left behind."""
    max_files, max_bytes = limits.SET_FILES.value(), limits.SET_BYTES.value()
    count, total, chosen, skipped = 0, 0, [], []
    for dirpath, dirs, files in os.walk(source):
        dirs.sort()
        for name in sorted(dirs + files):
            p = Path(dirpath) / name
            count += 1
            if count > max_files:
                raise limits.SET_FILES.exceeded(source, f"holds more than {max_files:,} files and folders")
            if p.is_symlink() or not (p.is_file() or p.is_dir()):
                raise UserError(f"{p}: a link or special file; a result set holds only files and folders")
            if p.is_file():
                total += p.stat().st_size
                if total > max_bytes:
                    raise limits.SET_BYTES.exceeded(source, f"holds more than {max_bytes // limits.MIB:,} MiB")
                rel = p.relative_to(source)
                if _part_of_a_set(PurePosixPath(rel.as_posix())):
                    chosen.append(rel)
                else:
                    skipped.append(f"{source.name}/{rel.as_posix()}")
    for rel in chosen:
        dest = into / source.name / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, dest)
    return skipped


def _unpack(source: Path, into: Path) -> list[str]:
    """The source's files that could be part of a set under into/, nothing outside it;
    returns the names of the files left out."""
    if source.is_dir():
        return _copy_set_files(source, into)
    if not source.is_file():
        raise UserError(f"{source}: no such folder or file")
    if not source.name.endswith(ARCHIVES):
        raise UserError(f"{source}: not a result set folder nor a .tar.gz / .tgz archive")
    try:
        with tarfile.open(source, "r:gz") as tar:
            members, skipped = _safe_members(source, tar)
            tar.extractall(into, members=members, filter="data")
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        if isinstance(exc, OSError) and exc.errno in layout.ENVIRONMENT_ERRNOS:
            raise  # this machine's disk or permissions, not the archive: said as such by the CLI
        raise UserError(f"{source}: unreadable archive ({exc})") from None
    return skipped


def _keep_only(folder: Path, files: list[str]) -> list[str]:
    """Remove what the set does not consist of (other files that came with it); returns their names."""
    keep = {(folder / f).resolve() for f in files}
    dropped = []
    for p in sorted(folder.rglob("*"), reverse=True):
        if p.is_file() and p.resolve() not in keep:
            dropped.append(p.relative_to(folder).as_posix())
            p.unlink()
        elif p.is_dir() and not any(p.iterdir()):
            p.rmdir()
    return sorted(dropped)


def _find_set(source: Path, unpacked: Path) -> Path:
    found = sorted(p.parent for p in unpacked.rglob(schema.RESULT_FILE))
    if not found:
        raise UserError(f"{source}: no {schema.RESULT_FILE} inside: not a result set")
    if len(found) > 1:
        names = ", ".join(str(p.relative_to(unpacked)) for p in found[:4])
        raise UserError(f"{source}: holds {len(found)} result sets ({names}); import one at a time")
    folder = found[0]
    if folder == unpacked:
        raise UserError(f"{source}: {schema.RESULT_FILE} lies at the archive's top; tar the set's folder "
                        f"(tar czf set.tgz -C results <set>)")
    if folder.name.startswith(".") or folder.name in ("", ".."):
        raise UserError(f"{source}: the set's folder {folder.name!r} is hidden; rename it")
    # The folder's name becomes the set's name in results/, its pages and URLs.
    schema.check_name(folder.name, str(source), "the set's folder name")
    return folder


def check(folder: Path, label: str) -> tuple[schema.ResultSet, bytes]:
    """Load and check a set folder: schema, types, paths, every trace parses. Gives the set and its
    traces' digest (gen.model.trace_digest: made from the traces just parsed, never taken from the
    source). Errors name `label` (where the user's copy is) instead of the scratch folder."""
    try:
        limits.check_result_file(folder / schema.RESULT_FILE)
        rs = schema.load_set(folder)
        limits.check_set(folder, layout.set_files(rs))
        digest, _ = trace_digest.dumps(folder, [rec.trace for rec in [*rs.runs, *rs.sweep] if rec.trace])
    except UserError as exc:
        raise UserError(str(exc).replace(str(folder), label)) from None
    return rs, digest


def _run_key(r: schema.VariantRun) -> tuple:
    return (r.scenario, r.variant, r.mode)


def _sweep_key(p: schema.SweepPoint) -> tuple:
    return (p.scenario, p.variant, p.mode, p.point)


def _describe(key: tuple) -> str:
    scenario, variant, mode, *point = key
    where = f"scenario {scenario}, variant {variant}, mode {mode}"
    if point:
        pt = point[0]
        where += f", point q_len={pt.q_len} kv_len={pt.kv_len} head_dim={pt.head_dim} batch={pt.batch}"
    return where


def _same_machine(old: schema.ResultSet, new: schema.ResultSet, final: Path, label: str) -> None:
    for field in ("device", "gpu_name", "torch", "driver"):
        a, b = getattr(old.environment, field), getattr(new.environment, field)
        if a != b:
            raise UserError(f"{label}: cannot merge into {final}: environment.{field} differs "
                            f"({b!r} here, {a!r} there); import it under another name")


def merge_sets(old: schema.ResultSet, new: schema.ResultSet, final: Path, label: str, force: bool,
          new_dir: Path, out_dir: Path) -> schema.ResultSet:
    """old + new -> one set written into out_dir (a copy of old's folder); new's
    traces copied in. A record in both is refused unless force (new wins)."""
    _same_machine(old, new, final, label)
    clashes = [_describe(_run_key(r)) for r in new.runs if old.run(r.variant, r.mode, r.scenario)]
    old_points = {_sweep_key(p) for p in old.sweep}
    clashes += [_describe(_sweep_key(p)) for p in new.sweep if _sweep_key(p) in old_points]
    if clashes and not force:
        more = f" (and {len(clashes) - 1} more)" if len(clashes) > 1 else ""
        raise UserError(f"{label}: {clashes[0]}{more} is in {final} already; pass --force to let the imported "
                        f"records replace them")
    old_scen = {s.name: s for s in old.scenarios}
    for s in new.scenarios:
        if s.name in old_scen and old_scen[s.name] != s and not force:
            raise UserError(f"{label}: scenario {s.name} is declared differently in {final}; "
                            f"pass --force to take the imported declaration")

    # A record that measured nothing (unavailable, skipped, oom) never replaces one that measured: a
    # short capture made without an optional extra (the cuDNN frontend) must not erase its points.
    old_ok = {_run_key(r) for r in old.runs if r.status == schema.Status.OK} | {
        _sweep_key(p) for p in old.sweep if p.status == schema.Status.OK}
    new = dataclasses.replace(
        new, runs=[r for r in new.runs if r.status == schema.Status.OK or _run_key(r) not in old_ok],
        sweep=[p for p in new.sweep if p.status == schema.Status.OK or _sweep_key(p) not in old_ok])
    new_run_keys = {_run_key(r) for r in new.runs}
    new_point_keys = {_sweep_key(p) for p in new.sweep}
    runs = [r for r in old.runs if _run_key(r) not in new_run_keys]
    sweep = [p for p in old.sweep if _sweep_key(p) not in new_point_keys]
    used = {r.trace for r in [*runs, *sweep] if r.trace}

    def bring(rel: str | None) -> str | None:
        """Copy an imported trace in; a name a kept record uses gets a suffix."""
        if not rel:
            return rel
        dest = rel
        k = 1
        while dest in used:
            p = PurePosixPath(rel)
            stem = p.name.split(".", 1)[0]
            dest = str(p.with_name(f"{stem}__import-{k}{p.name[len(stem):]}"))
            k += 1
        used.add(dest)
        (out_dir / dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(new_dir / rel, out_dir / dest)
        return dest

    # Each imported record says which call measured it (a merged set compares across processes).
    when = new.environment.date if new.environment.date != old.environment.date else None
    runs += [dataclasses.replace(r, trace=bring(r.trace), captured=r.captured or when) for r in new.runs]
    sweep += [dataclasses.replace(p, trace=bring(p.trace), captured=p.captured or when) for p in new.sweep]
    scenarios = [s for s in old.scenarios if s.name not in {n.name for n in new.scenarios}] + list(new.scenarios)
    if not force:  # same declaration kept once, in the old order
        scenarios = list(old.scenarios) + [s for s in new.scenarios if s.name not in old_scen]
    cfg = dataclasses.replace(
        old.config,
        variants=old.config.variants + [v for v in new.config.variants if v not in old.config.variants],
        modes=old.config.modes + [m for m in new.config.modes if m not in old.config.modes],
    )
    duration = None if old.duration_s is None or new.duration_s is None else old.duration_s + new.duration_s
    return dataclasses.replace(old, schema_version=schema.SCHEMA_VERSION, config=cfg, runs=runs, sweep=sweep,
                               scenarios=scenarios, ceilings=old.ceilings or new.ceilings, duration_s=duration)


def run(source: Path, results_root: Path, force: bool = False, merge: bool = False) -> Path:
    """Check, migrate and publish (or merge) one set; returns its path under results_root."""
    source, results_root = Path(source), Path(results_root)
    results_root.mkdir(parents=True, exist_ok=True)
    layout.recover(results_root)
    staging = layout.make_staging(results_root, "import")
    try:
        unpacked = staging / "unpacked"
        unpacked.mkdir()
        left_out = _unpack(source, unpacked)
        folder = _find_set(source, unpacked)
        rel = folder.relative_to(unpacked)
        label = str(source) if source.is_dir() else f"{source}:{rel.as_posix()}"
        rs, digest = check(folder, label)
        dropped = left_out + [f"{rel.as_posix()}/{f}" for f in _keep_only(folder, layout.set_files(rs))]
        # A digest that came with the set is not read (untrusted, and made again here): no note for it.
        dropped = [f for f in dropped if PurePosixPath(f).name != trace_digest.FILE]
        if dropped:
            more = f" (and {len(dropped) - 3} more)" if len(dropped) > 3 else ""
            print(f"note: left out {len(dropped)} file(s) that are no part of the set: {', '.join(dropped[:3])}{more}",
                  file=sys.stderr)
        # Written at the current version: an older file was migrated by the load.
        layout.atomic_write_text(folder / schema.RESULT_FILE, schema.dumps(rs))
        layout.atomic_write_bytes(folder / trace_digest.FILE, digest)
        final = results_root / folder.name
        with layout.lock(results_root):
            if not (merge and final.exists()):
                layout.publish_dir(folder, final, replace=force, locked=True,
                                   hint="pass --force to replace it, or --merge to merge the two")
                return final
            old, _ = check(final, str(final))
            merged_dir = staging / "merged"
            shutil.copytree(final, merged_dir)
            merged = merge_sets(old, rs, final, label, force, folder, merged_dir)
            log = merged_dir / layout.CAPTURE_LOG
            if (folder / layout.CAPTURE_LOG).is_file():
                # Bytes, not text: a log in another encoding is kept as it is, not refused.
                prior = log.read_bytes() if log.is_file() else b""
                layout.atomic_write_bytes(log, prior + f"\n# merged from {label}\n".encode("utf-8", "replace")
                                          + (folder / layout.CAPTURE_LOG).read_bytes())
            layout.atomic_write_text(merged_dir / schema.RESULT_FILE, schema.dumps(merged))
            _, digest = check(merged_dir, str(final))  # what is published loads and parses
            layout.atomic_write_bytes(merged_dir / trace_digest.FILE, digest)
            layout.publish_dir(merged_dir, final, replace=True, locked=True)
            return final
    finally:
        shutil.rmtree(staging, ignore_errors=True)
