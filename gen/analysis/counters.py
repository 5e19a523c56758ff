"""Nsight Compute counters matched to the trace's kernels, and the facts they support.

Takes: a run (gen.model.schema `VariantRun`, whose `counters` hold one
`KernelCounters` per kernel launch of one call, in launch order) and its
parsed trace (gen.model.trace). Gives: `match(run, trace) -> Matched`:
one row per kernel of the trace's first profiled call (`COLUMNS`: the
trace's launch index, name, estimate and op path beside the counters), the
name mismatches found on the way, and why there are no counters where there
are none (`Absent`); `kernel_facts(row)`, the numbers a page or finding words
(no sentences); `bound(sm_pct, dram_pct)`.

Matching: ncu profiles kernels only (no memcpy or memset) and demangles names
itself (template arguments may print differently from the trace's, e.g.
`2UL` for `2ul` or `T2` for a type), so the two are aligned in launch order
on the short name (`trace.short_name`): equal stretches pair up; a stretch
replaced by one of the same length pairs up with its names recorded as a
mismatch; anything else is left unpaired and recorded. No torch.
"""

from __future__ import annotations

import difflib
import enum
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import pandas as pd

from gen.analysis import kernel_rules, values
from gen.analysis.values import missing
from gen.model import schema
from gen.model import trace as trace_mod


class Bound(enum.StrEnum):
    MEMORY = "memory"  # DRAM throughput above the line and its band, and at least the SM's
    COMPUTE = "compute"  # SM throughput above the line and its band, above DRAM's
    LATENCY = "latency"  # both below the line by more than the band: neither unit is kept busy
    # the higher of the two within kernel_rules.BOUND_BAND_PCT of kernel_rules.BOUND_PCT: too close to call
    LINE = "line"
    BOTH = "both"  # both above the line and its band, within the band of each other: at both limits


class Absent(enum.StrEnum):
    """Why a run has no counters (gen.report words each)."""

    NO_GPU = "no_gpu"  # a CPU run
    PUBLISHED = "published"  # a reference set: figures as published, no counter pass
    NOT_RUN = "not_run"  # the run itself did not complete (status not ok)
    NOT_CAPTURED = "not_captured"  # the set's capture took no counter pass (schema 1 sets, or asked not to)
    # A capture that records its stages (schema 3 on) and no counter pass among them: it was not taken. A pass that
    # was taken and could not read counters (no ncu on the machine included) records why, as UNAVAILABLE,
    # so a set of schema 5 is not said to predate the pass
    NOT_TAKEN = "not_taken"
    UNAVAILABLE = "unavailable"  # the counter pass was tried and failed: capture's reason kept
    NO_TRACE = "no_trace"  # counters, but no trace to match them to


class Pairing(enum.StrEnum):
    OK = "ok"  # same short name, same place in launch order
    NAME_DIFFERS = "name_differs"  # same place, different short name
    NO_COUNTERS = "no_counters"  # the trace has this kernel, ncu did not profile it


COUNTER_FIELDS = ["achieved_occupancy_pct", "theoretical_occupancy_pct", "occupancy_limiter", "registers_per_thread",
                  "shared_memory_bytes", "sm_throughput_pct", "dram_throughput_pct", "tensor_pipe_pct",
                  "l2_hit_rate_pct"]
COLUMNS = (["index", "name", "short_name", "dur_us", "estimate_pct", "launch_api", "op_path", "pairing",
            "counter_index", "ncu_name", "ncu_duration_us", "same_as"] + COUNTER_FIELDS + ["bound", "rules"])


@dataclass
class Matched:
    """Counters of one run against its trace. `rows` has one dict per kernel of the first profiled
    call, as values.rows reads them off `frame` (empty when `absent`); `mismatches` one dict per
    kernel paired under another name or left unpaired (`where`: "both", "trace" or "ncu"); `reason`
    is capture's text for UNAVAILABLE."""

    rows: list[dict[str, Any]]
    absent: Absent | None = None
    reason: str | None = None
    mismatches: list[dict[str, Any]] = field(default_factory=list)

    @cached_property
    def frame(self) -> pd.DataFrame:
        # Made where asked (the summary's JSON and by_name): the pages read the rows.
        return pd.DataFrame(self.rows, columns=COLUMNS)

    @property
    def measured(self) -> bool:
        return self.absent is None and any(r["pairing"] != Pairing.NO_COUNTERS for r in self.rows)


def bound(sm_pct: float | None, dram_pct: float | None) -> Bound | None:
    """What bounds a kernel by its SM and DRAM throughput (% of peak), both counters read against
    Nsight Compute's line with a band around it (kernel_rules.BOUND_PCT ± kernel_rules.BOUND_BAND_PCT); None when
    either is missing."""
    if _missing(sm_pct) or _missing(dram_pct):
        return None
    top = max(sm_pct, dram_pct)
    if top < kernel_rules.BOUND_PCT - kernel_rules.BOUND_BAND_PCT:
        return Bound.LATENCY
    if top < kernel_rules.BOUND_PCT + kernel_rules.BOUND_BAND_PCT:
        return Bound.LINE
    band = kernel_rules.BOUND_BAND_PCT
    if min(sm_pct, dram_pct) >= kernel_rules.BOUND_PCT + band and abs(sm_pct - dram_pct) <= band:
        return Bound.BOTH
    return Bound.MEMORY if dram_pct >= sm_pct else Bound.COMPUTE


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


COUNTER_STAGE = "counters"  # the counter pass's name among a capture's stages (gen.capture.runner._counters_stage)


def _absent(run: schema.VariantRun, device: str, stages: dict | None = None) -> tuple[Absent, str | None] | None:
    if run.published is not None:
        return Absent.PUBLISHED, None
    if device != "cuda" or run.device != "cuda":
        return Absent.NO_GPU, None
    if run.status != schema.Status.OK:
        return Absent.NOT_RUN, None
    c = run.counters
    if c is None:
        return (Absent.NOT_TAKEN if stages and COUNTER_STAGE not in stages else Absent.NOT_CAPTURED), None
    if c.status != schema.Status.OK:
        return Absent.UNAVAILABLE, c.reason
    return None


def pair(trace_names: list[str], ncu_names: list[str]) -> tuple[list[tuple[int, int | None, Pairing]], list[dict]]:
    """Align two lists of kernel names in launch order. Returns (trace position,
    ncu position or None, pairing) for every trace kernel, and the mismatches."""
    ta = [trace_mod.short_name(n) for n in trace_names]
    na = [trace_mod.short_name(n) for n in ncu_names]
    pairs: list[tuple[int, int | None, Pairing]] = []
    mism: list[dict] = []
    sm = difflib.SequenceMatcher(a=ta, b=na, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            pairs += [(i, j1 + k, Pairing.OK) for k, i in enumerate(range(i1, i2))]
        elif op == "replace" and i2 - i1 == j2 - j1:
            for k, i in enumerate(range(i1, i2)):
                pairs.append((i, j1 + k, Pairing.NAME_DIFFERS))
                mism.append(dict(where="both", trace_position=i, ncu_position=j1 + k, trace_name=trace_names[i],
                                 ncu_name=ncu_names[j1 + k]))
        else:
            for i in range(i1, i2):
                pairs.append((i, None, Pairing.NO_COUNTERS))
                mism.append(dict(where="trace", trace_position=i, ncu_position=None, trace_name=trace_names[i],
                                 ncu_name=None))
            for j in range(j1, j2):
                mism.append(dict(where="ncu", trace_position=None, ncu_position=j, trace_name=None,
                                 ncu_name=ncu_names[j]))
    return sorted(pairs, key=lambda p: p[0]), mism


def source(same_as: Any) -> dict[str, Any] | None:
    """A KernelCounters.same_as ("<mode>__<variant>#<index>") as mode, variant and index (ncu's,
    among kernels only); None where there is none (None, or NaN from a frame)."""
    if not isinstance(same_as, str) or not same_as:
        return None
    job, _, at = same_as.rpartition("#")
    mode, _, variant = job.partition("__")
    return dict(mode=mode, variant=variant, at=int(at) if at.isdigit() else None)


def repeats(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The launches capture did not profile because an identical launch (kernel, grid, block,
    shared memory) was profiled in another call: index, and that launch's mode, variant and
    index. One of another mode carries no counters here (see match). Reads a Matched's rows; a
    missing same_as is None, NaN or NA."""
    return [dict(index=int(r["index"]), **source(r["same_as"])) for r in rows if not missing(r["same_as"])]


def match(run: schema.VariantRun, tr: trace_mod.Trace | None, device: str = "cuda",
          stages: dict | None = None) -> Matched:
    """The counters of `run` beside the kernels of `tr`'s first profiled call.
    `device` is the set's (environment.device); `stages`, its capture's time by stage (ResultSet.stage_seconds)."""
    why = _absent(run, device, stages)
    if why is not None:
        return Matched([], why[0], why[1])
    if tr is None or not tr.forwards:
        return Matched([], Absent.NO_TRACE)
    kernels = [g for g in tr.forwards[0].gpu if g.kind == "kernel"]
    counted = sorted(run.counters.kernels, key=lambda k: k.index)
    pairs, mism = pair([g.name for g in kernels], [k.name for k in counted])
    for m in mism:  # positions -> the trace's launch index and ncu's own index
        if m["trace_position"] is not None:
            m["index"] = kernels[m["trace_position"]].index
        if m["ncu_position"] is not None:
            m["counter_index"] = counted[m["ncu_position"]].index
    rows = []
    for i, j, how in pairs:
        g = kernels[i]
        k = counted[j] if j is not None else None
        same_as = k.same_as if k else None
        if same_as and source(same_as)["mode"] != run.mode:
            # Copied from a launch of another mode (captures of 2026-12-04): the same kernel at the same
            # shape, but a training forward passes other arguments (it writes its softmax statistics).
            k, how = None, Pairing.NO_COUNTERS
        row = dict(index=g.index, name=g.name, short_name=g.short_name, dur_us=g.dur,
                   estimate_pct=g.occupancy_pct if g.occupancy_pct is not None else math.nan,
                   launch_api=g.launch_api, op_path=list(g.op_path), pairing=how.value,
                   counter_index=k.index if k else None, ncu_name=k.name if k else None,
                   ncu_duration_us=k.duration_ns / 1e3 if k and k.duration_ns is not None else math.nan,
                   same_as=same_as)
        for f in COUNTER_FIELDS:
            v = getattr(k, f) if k else None
            row[f] = v if v is not None else (None if f == "occupancy_limiter" else math.nan)
        row["bound"] = bound(row["sm_throughput_pct"], row["dram_throughput_pct"])
        row["rules"] = [dict(name=r.name, estimated_speedup_pct=r.estimated_speedup_pct) for r in k.rules] if k else []
        rows.append(row)
    return Matched(values.rows(pd.DataFrame(rows, columns=COLUMNS)) if rows else [], mismatches=mism)


NUMERIC_FIELDS = [f for f in COUNTER_FIELDS if f != "occupancy_limiter"]


def by_name(frame: pd.DataFrame) -> pd.DataFrame:
    """The counters per full kernel name (the grouping of the summary's kernel list):
    numbers are the median over that name's measured launches in the call; the op
    path and the limiter are its first launch's. Indexed by name; launches without
    counters are left out."""
    cols = ["op_path", "occupancy_limiter"] + NUMERIC_FIELDS
    got = frame[frame["pairing"] != Pairing.NO_COUNTERS] if not frame.empty else frame
    if got.empty:
        return pd.DataFrame(columns=cols, index=pd.Index([], name="name"))
    g = got.groupby("name", sort=False)
    out = g[NUMERIC_FIELDS].median()
    first = g[["op_path", "occupancy_limiter"]].first()
    return first.join(out)[cols]


def kernel_facts(row: dict | pd.Series) -> list[dict[str, Any]]:
    """The facts one kernel's counters support, as numbers and names (`fact` says which):

    - estimate_vs_measured: the profiler's estimate was 0% or missing, or more than
      kernel_rules.ESTIMATE_GAP_PCT points from the measured occupancy (estimate_pct, achieved_pct,
      theoretical_pct, launch_api, estimate_missing, shared_memory_bytes).
    - occupancy_limit: theoretical occupancy under 100% (theoretical_pct, limiter,
      registers_per_thread, shared_memory_bytes, achieved_pct, main_loop: an attention main loop).
    - bound: memory, compute or latency (kind, sm_pct, dram_pct, tensor_pipe_pct, higher: "dram" or "sm").
    - ncu_rule: each rule with an estimated speed-up (name, estimated_speedup_pct), largest first.
    """
    r = dict(row)
    if r.get("pairing") == Pairing.NO_COUNTERS:
        return []
    out: list[dict[str, Any]] = []
    est, ach, theo = r.get("estimate_pct"), r.get("achieved_occupancy_pct"), r.get("theoretical_occupancy_pct")
    if not _missing(ach):
        est_missing = _missing(est) or est == 0
        if est_missing or abs(est - ach) > kernel_rules.ESTIMATE_GAP_PCT:
            smem = r.get("shared_memory_bytes")
            out.append(dict(fact="estimate_vs_measured", estimate_pct=None if _missing(est) else est,
                            achieved_pct=ach, theoretical_pct=None if _missing(theo) else theo,
                            launch_api=r.get("launch_api"), estimate_missing=est_missing,
                            shared_memory_bytes=None if _missing(smem) else int(smem)))
    tp = r.get("tensor_pipe_pct")
    tp = None if _missing(tp) else tp
    if not _missing(theo) and theo < 100:
        limiter = r.get("occupancy_limiter")
        # main_loop: an attention main loop, whose registers hold its tiles (kernel_rules.attention_main_loop)
        out.append(dict(fact="occupancy_limit", theoretical_pct=theo, limiter=None if _missing(limiter) else limiter,
                        main_loop=kernel_rules.attention_main_loop(r.get("name"), tensor_pipe_pct=tp),
                        registers_per_thread=None if _missing(r.get("registers_per_thread"))
                        else int(r["registers_per_thread"]),
                        shared_memory_bytes=None if _missing(r.get("shared_memory_bytes"))
                        else int(r["shared_memory_bytes"]),
                        achieved_pct=None if _missing(ach) else ach))
    b = r.get("bound")
    if not _missing(b) and b:
        sm, dram = r["sm_throughput_pct"], r["dram_throughput_pct"]
        # higher: the unit whose throughput the line is read at (Bound.LINE names no unit of its own)
        out.append(dict(fact="bound", kind=str(b), sm_pct=sm, dram_pct=dram, tensor_pipe_pct=tp,
                        higher="dram" if not _missing(dram) and (_missing(sm) or dram >= sm) else "sm"))
    fired = [x for x in (r.get("rules") or []) if not _missing(x.get("estimated_speedup_pct"))]
    for x in sorted(fired, key=lambda x: -x["estimated_speedup_pct"]):
        out.append(dict(fact="ncu_rule", name=x["name"], estimated_speedup_pct=x["estimated_speedup_pct"]))
    return out


def json_fields(r) -> dict[str, Any]:
    """The counters of one kernel (a row of `by_name` or of `Matched.frame`, or None
    where not measured) as JSON-ready values: op_path and COUNTER_FIELDS, None where missing."""
    out: dict[str, Any] = {"op_path": None, **{f: None for f in COUNTER_FIELDS}}
    if r is None:
        return out
    out["op_path"] = list(r["op_path"]) if isinstance(r["op_path"], (list, tuple)) else None
    for f in COUNTER_FIELDS:
        v = r[f]
        if f == "occupancy_limiter":
            out[f] = v if isinstance(v, str) else None
        elif not _missing(v):
            out[f] = int(v) if f in ("registers_per_thread", "shared_memory_bytes") else round(float(v), 2)
    return out


def for_run(ls, mode: str, variant: str) -> Matched:
    """`match` for one run of a loaded set (gen.analysis.tables.LoadedSet), built once per set."""
    key = ("counters", mode, variant)
    if key not in ls._tables:
        run = ls.rs.run(variant, mode)
        if run is None:
            raise KeyError(f"{ls.name}: no {mode} run of {variant}")
        tr = ls.trace(mode, variant) if run.status == schema.Status.OK and run.trace else None
        ls._tables[key] = match(run, tr, ls.environment.device, ls.rs.stage_seconds)
    return ls._tables[key]
