"""Loading result sets for analysis: each set read and checked once, its traces parsed once.

Takes: the results/ tree (gen.model.schema, gen.model.layout) and each set's traces (gen.model.trace,
read from its digest where it has one: gen.model.trace_digest). Gives `load_set(path) -> LoadedSet` (the
set checked against gen.model.limits, every trace parsed) and `load_sets(root)` (every set under root,
measured GPU sets first, or the broken ones skipped where asked). A `LoadedSet` keeps what is made of
it once (its traces, the times of each record, each trace's kernel signature, the tables built from it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gen.analysis import capture_gaps, timings
from gen.model import layout, limits, schema, trace, trace_digest


@dataclass
class Skipped:
    name: str
    error: str


@dataclass
class LoadedSet:
    name: str
    path: Path
    rs: schema.ResultSet
    _traces: dict = field(default_factory=dict, repr=False)
    _tables: dict = field(default_factory=dict, repr=False)
    gaps: object = field(default=None, repr=False)  # capture_gaps.Gaps: what the capture left out, and why

    def __post_init__(self):
        # read from the records as captured; then a missing package's reason before the time limit's (review
        # 2026-12-07-3 item 3), on every path that loads a set (idempotent: a cached ResultSet may be settled)
        self.gaps = capture_gaps.gaps(self.rs)
        capture_gaps.settle_reasons(self.rs)

    @property
    def measured(self) -> bool:
        return self.rs.kind == "measured"

    def trace(self, mode: str, variant: str) -> trace.Trace | None:
        key = (mode, variant)
        if key not in self._traces:
            run = self.rs.run(variant, mode)
            self._traces[key] = self.sweep_trace(run.trace) if run and run.trace else None
        return self._traces[key]

    def times(self, record, tr: trace.Trace | None = None) -> timings.Times:
        """timings.times of one of the set's runs or sweep points with its parsed trace (or None),
        made once: the summary, the scenario points, the verdicts and scaling all read them."""
        key = ("times", id(record), id(tr))
        got = self._tables.get(key)
        if got is None or got[0] is not record or got[1] is not tr:  # the objects are kept: ids stay theirs
            got = self._tables[key] = (record, tr, timings.times(record, tr))
        return got[2]

    def kernel_signature(self, tr: trace.Trace | None, check: schema.GraphCheck | None = None):
        """timings.kernel_signature(tr, check), made once per trace where the trace decides it (its first
        call's GPU events; the summary, the verdicts and the scenario points ask for the same calls')."""
        if tr is None or not tr.forwards or not tr.forwards[0].gpu:
            return timings.kernel_signature(tr, check)  # the graph check's names, or None: no trace to read
        key = ("kernel signature", id(tr))
        got = self._tables.get(key)
        if got is None or got[0] is not tr:  # the trace is kept: its id stays its own
            got = self._tables[key] = (tr, timings.kernel_signature(tr, check))
        return got[1]

    def sweep_trace(self, rel: str) -> trace.Trace:
        """The Trace of the set's trace at rel, made once: from the set's digest where it holds
        this file's bytes (gen.model.trace_digest), else parsed. The two are equal."""
        got = self._traces.get(rel)
        if got is None:
            digest, path = self.digest(), self.path / rel
            got = digest.trace(path, rel) if digest is not None else None
            got = self._traces[rel] = got if got is not None else trace.parse(path)
        return got

    def digest(self) -> trace_digest.Digest | None:
        """The set's trace digest, read once (when the first trace is asked for, or before the
        processes that make its pages fork: each then has it, and a damaged one's note is said once)."""
        key = ("trace digest",)
        if key not in self._tables:
            self._tables[key] = trace_digest.read(self.path)
        return self._tables[key]

    def check_traces(self) -> None:
        """Read every profiled trace once (runs and sweep points: all the pages
        read), so a bad one fails at load time."""
        for rec in [*self.rs.runs, *self.rs.sweep]:
            if rec.trace:
                self.sweep_trace(rec.trace)


def load_set(path: Path) -> LoadedSet:
    """One set, checked against the limits on its size (gen.model.limits) and with every trace parsed."""
    limits.check_result_file(Path(path) / schema.RESULT_FILE)
    ls = LoadedSet(path.name, path, schema.load_set(path))
    limits.check_set(path, layout.set_files(ls.rs))
    ls.check_traces()
    return ls


def load_sets(root: str | Path, skip_broken: bool = False) -> tuple[list[LoadedSet], list[Skipped]]:
    """Every result set under root: measured GPU sets, measured CPU sets, then
    published reference sets, each group by name.
    A broken set raises (one line naming the file) unless skip_broken. What a killed
    publish left under root is put right first, or named (gen.model.layout.settle)."""
    layout.settle(Path(root))
    loaded, skipped = [], []
    for path in schema.list_sets(root):
        try:
            loaded.append(load_set(path))
        except schema.UserError as exc:  # SchemaError, TraceError: one line naming the file
            if not skip_broken:
                raise
            skipped.append(Skipped(path.name, str(exc)))
    # GPU sets first (the report's subject), then CPU sets, then published ones.
    loaded.sort(key=lambda s: (not s.measured, s.rs.environment.device != "cuda", s.name))
    return loaded, skipped
