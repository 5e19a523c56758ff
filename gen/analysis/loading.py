"""Loading result sets for analysis: each set read and checked once, its traces parsed once.

Takes: the results/ tree (gen.model.schema, gen.model.layout) and each set's traces (gen.model.trace,
read from its digest where it has one: gen.model.trace_digest). Gives `load_set(path) -> LoadedSet` (the
set checked against gen.model.limits, every trace parsed) and `load_sets(root)` (every set under root,
measured GPU sets first, or the broken ones skipped where asked). A `LoadedSet` keeps what is made of
it once (its traces, the times of each record, each trace's kernel signature, the tables built from it).

A set's `outline` (`SetOutline`: its kind, machine, configuration, scenarios, and each run and sweep point without
its numbers) is what the pages over all sets and the build's plan read of it; its ResultSet (`rs`) may be read only
when first asked for (`LoadedSet(name, path, outline=..., load=...)`: the build keeps each set's outline apart from
its ResultSet, gen.report.units), so that a build with one new set among many decodes the others' outlines only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gen.analysis import capture_gaps, timings
from gen.model import layout, limits, schema, trace, trace_digest


@dataclass
class Skipped:
    name: str
    error: str


@dataclass(frozen=True)
class Recorded:
    """One run or sweep point of a set without its numbers: what was called, where, how it ended (and why not,
    where it did not), its trace."""

    variant: str
    mode: str
    scenario: str
    status: str
    reason: str | None
    point: schema.Point | None
    dtype: str | None  # a sweep point's input dtype where it has its own
    trace: str | None
    captured: str | None  # the capture call a record merged into the set came from


@dataclass(frozen=True)
class SetOutline:
    """What a set is and what it measured, without its numbers (a ResultSet's fields of the same names; its
    runs and sweep points as `Recorded`)."""

    name: str
    kind: str
    source: str | None
    environment: schema.Environment
    config: schema.RunConfig
    scenarios: list[schema.ScenarioRecord]
    duration_s: float | None
    stage_seconds: dict[str, float]
    runs: list[Recorded]
    sweep: list[Recorded]
    gaps: capture_gaps.Gaps  # what the capture left out, and why, read from its records as captured

    def run(self, variant: str, mode: str = "inference", scenario: str = "article") -> Recorded | None:
        return next((r for r in self.runs if r.variant == variant and r.mode == mode and r.scenario == scenario),
                    None)

    def scenario(self, name: str) -> schema.ScenarioRecord | None:
        return next((s for s in self.scenarios if s.name == name), None)


def outline_of(rs: schema.ResultSet) -> SetOutline:
    """The set's outline (SetOutline): its records without their numbers, and its gaps."""
    gaps = capture_gaps.gaps(rs)
    runs = [Recorded(r.variant, r.mode, r.scenario, r.status, r.reason, r.point, None, r.trace, r.captured)
            for r in rs.runs]
    sweep = [Recorded(p.variant, p.mode, p.scenario, p.status, p.reason, p.point, p.dtype, p.trace, p.captured)
             for p in rs.sweep]
    return SetOutline(rs.name, rs.kind, rs.source, rs.environment, rs.config, rs.scenarios, rs.duration_s,
                      rs.stage_seconds, runs, sweep, gaps)


class LoadedSet:
    """A result set: its name, folder, outline and ResultSet, and what is made of it once. Made from its ResultSet
    (`LoadedSet(name, path, rs)`), or from its outline and a function that reads its ResultSet when `rs` is first
    asked for."""

    def __init__(self, name: str, path: Path, rs: schema.ResultSet | None = None, *,
                 outline: SetOutline | None = None, load: Callable[[], schema.ResultSet] | None = None):
        if rs is None and (outline is None or load is None):
            raise ValueError(f"{name}: a loaded set needs its ResultSet, or its outline and a way to read it")
        self.name, self.path = name, path
        self._rs, self._load = rs, load
        self.outline = outline_of(rs) if outline is None else outline
        self._traces: dict = {}
        self._tables: dict = {}

    def __repr__(self) -> str:
        return f"LoadedSet({self.name!r}, {str(self.path)!r})"

    @property
    def rs(self) -> schema.ResultSet:
        if self._rs is None:
            self._rs, self._load = self._load(), None
        return self._rs

    @property
    def gaps(self) -> capture_gaps.Gaps:
        return self.outline.gaps

    @property
    def kind(self) -> str:
        return self.outline.kind

    @property
    def environment(self) -> schema.Environment:
        return self.outline.environment

    @property
    def config(self) -> schema.RunConfig:
        return self.outline.config

    @property
    def measured(self) -> bool:
        return self.outline.kind == "measured"

    def trace(self, mode: str, variant: str) -> trace.Trace | None:
        key = (mode, variant)
        if key not in self._traces:
            run = self.rs.run(variant, mode)
            self._traces[key] = self.sweep_trace(run.trace) if run and run.trace else None
        return self._traces[key]

    def times(self, record, tr: trace.Trace | None = None) -> timings.Times:
        """timings.times of one of the set's runs or sweep points with its parsed trace (or None),
        made once: the summary, the scenario points, the verdicts and scaling all read them. The trace gives only the
        kernel sum of a record that stores none: elsewhere the times with and without it are one entry."""
        if record.timing.kernel_sum_ms:
            tr = None
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
    loaded.sort(key=lambda s: (not s.measured, s.environment.device != "cuda", s.name))
    return loaded, skipped
