"""The command line's machine output: one shape for every verb, and its JSON Schema.

Takes: nothing (declarations). Gives: the dataclasses of what `attention-report VERB --format json`
prints (an `Output`: schema_version, verb, the sets' identity, the options that selected the rows,
`rows`), `document(output)` (the JSON-ready dict) and `json_schema()` (a JSON Schema, draft 2020-12,
made from these dataclasses' fields and type hints, so that the published schema cannot drift from the
code). Every field of a row is always present, null where it does not apply, whatever the options:
a script reads the same names from every call. Standard library only.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Any, Union

# The output format's own version (not the results schema's): raised when a field is renamed or removed.
OUTPUT_VERSION = 1


@dataclass
class SetIdentity:
    """Which result set: where and with what it was measured."""

    name: str  # the set's folder under results/
    kind: str  # "measured" or "reference" (published figures, not measured here)
    gpu: str | None  # the GPU's name; null for a CPU-only set
    torch: str | None  # PyTorch's version
    cuda: str | None  # the CUDA runtime torch was built with
    date: str | None  # when the capture started (ISO 8601)
    schema_version: int  # the results schema version of its result.json (gen/model/schema.py)


@dataclass
class Point:
    """The shape a row was measured at."""

    batch: int | None
    q_heads: int | None
    kv_heads: int | None
    head_dim: int | None
    q_len: int | None
    kv_len: int | None
    mask: str | None
    window: int | None  # sliding window width; null without one
    docs: list[int] | None  # packed documents' lengths; null where not packed


@dataclass
class Window:
    """What NVML read during one timed window."""

    sm_clock_mhz: float | None
    sm_clock_min_mhz: float | None
    power_w: float | None
    temp_c: float | None
    samples: int | None
    reason: str | None  # why not recorded
    # schema 5 sets: NVML's averaged power (power_w is the instant reading) and the share of samples whose
    # clock NVML said was held down for power; null where the set did not record them
    power_avg_w: float | None = None
    power_cap_share: float | None = None


@dataclass
class Launch:
    name: str
    launches: int


@dataclass
class GraphDifferences:
    """GPU work that differs between one CUDA-graph replay and one eager call."""

    only_in_graph: list[Launch]
    only_in_eager: list[Launch]


@dataclass
class Kernel:
    """One GPU event of a forward, with its Nsight Compute counters (null where not measured)."""

    name: str
    short_name: str
    kind: str  # kernel, memcpy, memset
    launched_by: str | None
    count_per_forward: float | None
    duration_us: float | None
    occupancy_pct: float | None
    op_path: list[str] | None
    achieved_occupancy_pct: float | None
    theoretical_occupancy_pct: float | None
    occupancy_limiter: str | None
    registers_per_thread: int | None
    shared_memory_bytes: int | None
    sm_throughput_pct: float | None
    dram_throughput_pct: float | None
    tensor_pipe_pct: float | None
    l2_hit_rate_pct: float | None


@dataclass
class SummaryRow:
    """`summary`: one variant of a set (the article's shape), or one variant at one point of a scenario."""

    scenario: str
    variant: str
    mode: str  # inference or train
    point: Point | None
    status: str  # ok, unavailable, failed, ...
    reason: str | None  # why not ok
    dtype: str | None
    kernels_per_call: int | None
    counts_consistent: bool | None
    forward_counts: list[int] | None
    gpu_only_ms: float | None  # the GPU's own time of one call: ranks variants
    gpu_only_q1_ms: float | None
    gpu_only_q3_ms: float | None
    gpu_only_n: int | None
    gpu_only_ci_lo_ms: float | None  # interval of the median: at least 95%, lower on 3-5 rounds or samples
    gpu_only_ci_hi_ms: float | None
    gpu_only_method: str | None  # cuda_graph, kernel_sum or published
    gpu_only_reason: str | None
    gpu_only_ms_at_ref_clock: float | None  # gpu_only_ms * sm_clock_mhz / ref_mhz
    ref_mhz: float | None
    kernel_sum_ms: float | None
    eager_ms: float | None  # CUDA events around each call of a Python loop
    eager_q1_ms: float | None
    eager_q3_ms: float | None
    eager_n: int | None
    eager_ci_lo_ms: float | None
    eager_ci_hi_ms: float | None
    host_ms: float | None  # host dispatch of one call
    host_n: int | None
    host_cost_ms: float | None
    host_ref_ms: float | None
    host_overhead_ms: float | None
    host_bound: bool | None
    host_bound_outcome: str | None  # yes, no, within noise
    burst_ms: float | None
    burst_n: int | None
    graph_ms: float | None
    graph_fidelity: str | None
    graph_detail: str | None
    sm_clock_mhz: float | None
    sm_clock_min_mhz: float | None
    power_w: float | None
    temp_c: float | None
    telemetry_reason: str | None
    # the window (a key of `telemetry`) the row's sm_clock_mhz, power_w and temp_c come from: the GPU-only
    # time's own (gpu_only for a graph replay, kernel_sum for a kernel sum), the one the pages print
    conditions_window: str | None
    burst_sm_clock_mhz: float | None
    burst_throttled: bool | None
    burst_early_ms: float | None
    tflops: float | None
    tbps: float | None
    pct_of_ceiling: float | None
    ceiling: str | None
    sol_pct: float | None
    peak_memory_mb: float | None
    rel_error: float | None  # largest relative error against a float64 reference
    wrong_answer: bool | None
    speedup_vs_naive: float | None
    backend: str | None
    sdpa_choice: str | None
    backend_reasons: dict[str, str] | None
    facts: dict[str, float | None] | None
    telemetry: dict[str, Window] | None
    graph_differences: GraphDifferences | None
    counters: str | None
    counters_reason: str | None
    counter_mismatches: int | None
    kernels: list[Kernel] | None


@dataclass
class CompareRow:
    """`compare BASE NEW`: one variant (at one point of a scenario) in both sets; ratios are NEW/BASE."""

    scenario: str
    variant: str
    mode: str
    point: Point | None
    status_base: str
    status_new: str
    kernels_base: int | None
    kernels_new: int | None
    kernels_added: list[str] | None  # null: not known (a side has no complete kernel list)
    kernels_removed: list[str] | None
    kernel_match: str | None
    gpu_only_ms_base: float | None
    gpu_only_ms_new: float | None
    gpu_only_ci_lo_ms_base: float | None
    gpu_only_ci_hi_ms_base: float | None
    gpu_only_ci_lo_ms_new: float | None
    gpu_only_ci_hi_ms_new: float | None
    gpu_only_method_base: str | None
    gpu_only_method_new: str | None
    ratio: float | None  # gpu_only_ms_new / gpu_only_ms_base
    ratio_ci_lo: float | None  # 95% bootstrap interval of the ratio of medians
    ratio_ci_hi: float | None
    tie: bool | None  # the two medians' intervals (each at its level) overlap
    sm_clock_mhz_base: float | None
    sm_clock_mhz_new: float | None
    ref_mhz: float | None
    ratio_at_ref_clock: float | None  # the ratio of the equal-clock times (at_ref_clock)
    slower: bool | None  # ratio above --fail-above, not a tie; null without --fail-above or a ratio
    host_ms_base: float | None
    host_ms_new: float | None
    host_ratio: float | None
    rank_base: int | None
    rank_new: int | None


@dataclass
class ListRow:
    """`list`: one result set under the results folder."""

    name: str
    kind: str
    gpu: str | None
    torch: str | None
    cuda: str | None
    date: str | None
    schema_version: int
    modes: list[str]
    scenarios: list[str]
    variants: int  # variants recorded (any status)


@dataclass
class Gate:
    """`compare --fail-above R`: the regression gate's outcome."""

    fail_above: float | None  # R; null when not asked for
    failed: bool  # some selected row is slower than R with intervals that do not overlap
    failing: list[str]  # those rows' variants
    judged: int  # rows with a ratio and intervals to judge (a reference or CPU side has none)


@dataclass
class Selection:
    """The options that chose the rows (null where not given)."""

    mode: str | None
    scenario: str | None
    variants: list[str] | None


@dataclass
class Output:
    """What every verb prints with --format json."""

    schema_version: int
    verb: str  # summary, compare or list
    sets: list[SetIdentity]  # summary: the set; compare: BASE then NEW; list: empty (the sets are the rows)
    selection: Selection
    gate: Gate | None  # compare only
    rows: list[SummaryRow] | list[CompareRow] | list[ListRow]


def document(out: Output) -> dict[str, Any]:
    """The JSON-ready dict of an Output."""
    return dataclasses.asdict(out)


def from_dict(cls: type, data: dict[str, Any]) -> Any:
    """An instance of the dataclass `cls` from a dict holding its fields (nested dataclasses too);
    a missing field is null, a key that is not a field is a bug (KeyError), so nothing is dropped unseen."""
    extra = set(data) - {f.name for f in dataclasses.fields(cls)}
    if extra:
        raise KeyError(f"{cls.__name__} has no field(s) {', '.join(sorted(extra))}")
    hints = typing.get_type_hints(cls)
    return cls(**{f.name: _value(hints[f.name], data.get(f.name)) for f in dataclasses.fields(cls)})


def _value(tp: Any, v: Any) -> Any:
    if v is None:
        return None
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _value(inner[0], v) if len(inner) == 1 else v
    if dataclasses.is_dataclass(tp):
        return v if isinstance(v, tp) else from_dict(tp, v)
    if origin is list:
        return [_value(args[0], x) for x in v]
    if origin is dict:
        return {k: _value(args[1], x) for k, x in v.items()}
    if tp is bool:
        return bool(v)
    if tp is int:
        return int(v)
    if tp is float:
        return float(v)
    return v


# --------------------------------------------------------------------------- JSON Schema

_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean", Any: None}


def _doc_comments(cls: type) -> dict[str, str]:
    """Each field's trailing comment in the class's source: the schema's descriptions."""
    import inspect

    out: dict[str, str] = {}
    try:
        lines = inspect.getsource(cls).splitlines()
    except (OSError, TypeError):
        return out
    for line in lines:
        head, sep, comment = line.partition("  # ")
        name = head.strip().split(":")[0]
        if sep and name.isidentifier():
            out[name] = comment.strip()
    return out


def _schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        return {"anyOf": [_schema(a, defs) for a in args]}
    if tp is type(None):
        return {"type": "null"}
    if dataclasses.is_dataclass(tp):
        _define(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    if origin is list:
        return {"type": "array", "items": _schema(args[0], defs)}
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema(args[1], defs)}
    if tp in _SCALARS and _SCALARS[tp]:
        return {"type": _SCALARS[tp]}
    raise TypeError(f"no JSON Schema mapping for {tp!r}")


def _define(cls: type, defs: dict[str, Any]) -> None:
    if cls.__name__ in defs:
        return
    defs[cls.__name__] = {}  # a placeholder against recursion
    hints = typing.get_type_hints(cls)
    notes = _doc_comments(cls)
    props = {}
    for f in dataclasses.fields(cls):
        p = _schema(hints[f.name], defs)
        if f.name in notes:
            p = {"description": notes[f.name], **p}
        props[f.name] = p
    defs[cls.__name__] = {
        "type": "object", "description": " ".join((cls.__doc__ or "").split()),
        "properties": props, "required": [f.name for f in dataclasses.fields(cls)], "additionalProperties": False,
    }


def json_schema() -> dict[str, Any]:
    """The JSON Schema of `Output`, every row type defined under $defs."""
    defs: dict[str, Any] = {}
    _define(Output, defs)
    top = defs.pop("Output")
    top["properties"]["schema_version"] = {**top["properties"]["schema_version"], "const": OUTPUT_VERSION}
    # Each verb's rows are its own row type: tie `verb` to its rows.
    rows_of = {"summary": "SummaryRow", "compare": "CompareRow", "list": "ListRow"}
    top["properties"]["verb"] = {"enum": list(rows_of)}
    top["allOf"] = [
        {"if": {"properties": {"verb": {"const": verb}}},
         "then": {"properties": {"rows": {"type": "array", "items": {"$ref": f"#/$defs/{row}"}}}}}
        for verb, row in rows_of.items()
    ]
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "attention-report machine output", **top, "$defs": dict(sorted(defs.items()))}


__all__ = ["OUTPUT_VERSION", "Output", "SetIdentity", "SummaryRow", "CompareRow", "ListRow", "Gate", "Selection",
           "Point", "Kernel", "Window", "GraphDifferences", "Launch", "document", "from_dict", "json_schema"]
