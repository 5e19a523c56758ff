"""The results contract, read as one module: schema 4's records, their checks and migrations, and load_set.

Takes: a result set's folder. Gives: `load_set(directory) -> ResultSet` (read, migrated, type-checked,
its traces' paths checked inside the folder), `list_sets(root)`, and every name of the contract under
one roof: the records and enums (gen.model.records), `parse_json` / `from_dict` / `check_name` and the
limits (gen.model.checks), `migrate` and `MIGRATIONS` (gen.model.migrations). Imports only the standard
library: capture runs it on the GPU machine.

The on-disk layout of a set:

    results/<gpu-slug>__torch-<version>[__<label>]/
        result.json                 the ResultSet below (schema_version inside)
        capture.log                 what the capture printed
        traces/<scenario>__<mode>__<variant>.json.gz       profiled calls of a run
        traces/sweep__<variant>__s<S>_d<D>.json.gz         one profiled call per sweep point
        (schema 1 named run traces traces/<mode>__<variant>.json.gz)

Raw samples are stored; statistics (median, IQR) are derived by analysis.
Every field is type-checked on load and unknown keys are refused, each with
one line naming the file and the field. Older versions are upgraded one step
at a time by `MIGRATIONS` (asv's update_to_N).
"""

from __future__ import annotations

import dataclasses  # noqa: F401 - gen.capture.staging reads schema.dataclasses
import os
from pathlib import Path

from gen.model.checks import (  # noqa: F401 - the contract's names, read as schema.X (capture's staging: _build)
    NAME_RE,
    _build,
    _deeper_than,
    _json_depth,
    check_name,
    from_dict,
    parse_json,
)
from gen.model.migrations import known_ref_mhz  # noqa: F401
from gen.model.records import (  # noqa: F401
    ENUM_FIELDS,
    HOST_REF_CALLS,
    RESULT_FILE,
    SCHEMA_VERSION,
    TRACE_DIR,
    Ceilings,
    Counters,
    DynamicRun,
    Environment,
    GpuOnlyMethod,
    GraphCheck,
    GraphFidelity,
    InplaceCheck,
    KernelCounters,
    LengthCost,
    Mask,
    Mode,
    NcuRule,
    Point,
    PowerReading,
    Published,
    ResultSet,
    RunConfig,
    ScenarioRecord,
    SchemaError,
    SetKind,
    Status,
    SweepPoint,
    SwitchProbe,
    Telemetry,
    Timing,
    UserError,
    VariantRun,
    Window,
    dumps,
    to_dict,
)


def load_set(directory: str | os.PathLike) -> ResultSet:
    """Read, migrate and validate one result set directory. Trace paths must
    resolve inside the set's folder and exist."""
    directory = Path(directory)
    # First: the folder becomes a page, a URL and a folder of traces (and a name of
    # 10,000 characters cannot even be looked up: ENAMETOOLONG).
    check_name(directory.name, str(directory.parent), "the set's folder name")
    path = directory / RESULT_FILE
    if not path.is_file():
        raise SchemaError(f"{path}: no {RESULT_FILE} in this result set")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{path}: not valid JSON ({exc})") from None
    rs = from_dict(parse_json(text, str(path)), str(path))
    _check_trace_files(directory, str(path), rs)
    return rs


def _check_trace_files(directory: Path, where: str, rs: ResultSet) -> None:
    """Each trace a record names resolves inside the set's folder and is a file."""
    if not any(rec.trace for records in (rs.runs, rs.sweep) for rec in records):
        return  # a published set names no trace: its folder is not looked at
    # Each trace is traces/<file name> (_check_set, TRACE_RE): the folder is resolved once, and a
    # file in it resolves to itself unless it is a link.
    root, folder = _resolved(directory, where), _resolved(directory / TRACE_DIR, where)
    for kind, records in (("runs", rs.runs), ("sweep", rs.sweep)):
        for i, rec in enumerate(records):
            if not rec.trace:
                continue
            target = folder / rec.trace.removeprefix(f"{TRACE_DIR}/")
            if target.is_symlink():
                target = _resolved(target, f"{where}: field {kind}[{i}].trace")
            if os.path.isabs(rec.trace) or not target.is_relative_to(root):
                raise SchemaError(f"{where}: field {kind}[{i}].trace {rec.trace!r} points outside the set's folder")
            if not target.is_file():
                raise SchemaError(f"{where}: field {kind}[{i}].trace: trace {rec.trace} of {rec.variant} is missing")


def _resolved(path: Path, where: str) -> Path:
    """path.resolve(), or one line where links loop (Python 3.11 raises RuntimeError, later ones OSError)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError) as exc:
        raise SchemaError(f"{where}: {path} cannot be resolved ({exc})") from None


def list_sets(root: str | os.PathLike) -> list[Path]:
    """Result set directories under root, sorted by name; hidden ones skipped."""
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
