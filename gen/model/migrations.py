"""Schema migrations: a result.json of an older version upgraded one step at a time (asv's update_to_N).

Takes: decoded JSON data of any version up to SCHEMA_VERSION. Gives: `migrate(data, where)`, the data at
SCHEMA_VERSION; `MIGRATIONS` (version -> its step); `known_ref_mhz` (a GPU's reference clock, for sets
older than schema 4); TIME_LIMIT and NOT_INSTALLED (what the capture's reasons for a point not run hold).
"""

from __future__ import annotations

import copy
import re
import typing
from typing import Any

from gen.model.records import SCHEMA_VERSION, GpuOnlyMethod, GraphFidelity, SchemaError, SetKind, Status
from gen.model.variants import VARIANTS, extra_package


def _obj(value: Any) -> dict:
    """A migration's view of what should be an object: empty when it is not."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _ints(*values: Any) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _timing_v1(rec: dict, device: str | None) -> dict:
    """Schema 1 timed each call with events (now eager_ms) and host dispatch
    (host_ms); it had no CUDA-graph replay, so GPU-only time falls back to the
    kernel sum of the trace."""
    t = {"eager_ms": rec.pop("gpu_time_ms", []), "host_ms": rec.pop("cpu_time_ms", [])}
    if device == "cuda" and (t["eager_ms"] or rec.get("trace")):
        t.update(gpu_only_method=GpuOnlyMethod.KERNEL_SUM.value,
                 gpu_only_reason="captured with schema 1, before CUDA-graph timing")
    for key in ("warmup_iters", "warmup_window_ms"):
        if key in rec:
            t[key] = rec.pop(key)
    return t


def update_to_2(data: dict) -> dict:
    """Schema 1 -> 2: timings nested and renamed (three labelled times), notes
    split into typed fields (the stored English explanation dropped: the report
    words it), scenarios and points added (everything in schema 1 is the
    `article` scenario), published figures typed."""
    data = copy.deepcopy(data)  # never alter the caller's dict
    # What this step reads may be of any type in a damaged file: it reads what it
    # understands and leaves the rest as it is, for the load to name.
    cfg = _obj(data.get("config"))
    env = _obj(data.get("environment"))
    device = env.get("device", "cuda")
    b, h, s, d = (cfg.get(k) for k in ("batch", "heads", "seq_len", "head_dim"))
    default = {"batch": b, "q_heads": h, "kv_heads": h, "head_dim": d, "q_len": s, "kv_len": s, "mask": "causal"}
    for run in _list(data.get("runs")):
        if not isinstance(run, dict):
            continue
        run["timing"] = _timing_v1(run, run.get("device", device))
        run["point"] = dict(default)
        notes = run.pop("notes", None) or {}
        if not isinstance(notes, dict):
            run["notes"] = notes  # refused by the load, by name
            notes = {}
        if "first_call_s" in notes:
            run["first_call_s"] = notes.pop("first_call_s")
        if "traceback_tail" in notes:
            run["error_detail"] = notes.pop("traceback_tail")
        if isinstance(notes.get("inplace_autograd"), dict):
            check = dict(notes.pop("inplace_autograd"))
            check.pop("explanation", None)
            check.pop("claim", None)
            run["inplace_autograd"] = check
        if notes:
            run["notes"] = notes  # unknown notes stay, and the load refuses them by name
        if not run.get("published"):
            run.pop("published", None)
    sb, sh = data.pop("sweep_batch", None) or b, data.pop("sweep_heads", None) or h
    for p in _list(data.get("sweep")):
        if not isinstance(p, dict):
            continue
        p["timing"] = _timing_v1(p, device)
        seq, dim = p.pop("seq_len", None), p.pop("head_dim", None)
        p["point"] = {"batch": sb, "q_heads": sh, "kv_heads": sh, "head_dim": dim, "q_len": seq, "kv_len": seq,
                      "mask": "causal"}
    sweep_points = sorted({(p["point"]["head_dim"], p["point"]["kv_len"]) for p in _list(data.get("sweep"))
                           if isinstance(p, dict) and _ints(p["point"]["head_dim"], p["point"]["kv_len"])},
                          key=lambda x: (x[0] != d, x))
    points = [default] + [{**default, "batch": sb, "q_heads": sh, "kv_heads": sh, "head_dim": dd, "q_len": ss,
                           "kv_len": ss} for dd, ss in sweep_points if (dd, ss) != (d, s)]
    data["scenarios"] = [{"name": "article", "title": "The article's shape", "dtype": cfg.get("dtype", "bf16"),
                          "points": points,
                          "train_points": [default] if "train" in _list(cfg.get("modes")) else []}]
    data["schema_version"] = 2
    return data


TELEMETRY_NOT_RECORDED = "not recorded: captured before schema 3, without NVML telemetry"
GRAPH_NOT_CHECKED = "not checked: captured before schema 3, which compares a graph's kernels with eager ones"


def update_to_3(data: dict) -> dict:
    """Schema 2 -> 3: NVML telemetry, interleaved rounds, the graph check, the
    burst and read-bandwidth figures are new; what an older set did not record
    is marked so (never guessed). Measured sets only: reference sets publish no
    samples, so nothing of theirs was left unrecorded."""
    data = copy.deepcopy(data)  # not a JSON round trip: a number no field may hold is still _BadNumber here
    measured = data.get("kind", SetKind.MEASURED.value) == SetKind.MEASURED.value
    records = [r for key in ("runs", "sweep") for r in _list(data.get(key)) if isinstance(r, dict)]
    for rec in records:
        t = rec.get("timing")
        if not measured or not isinstance(t, dict) or not (t.get("eager_ms") or t.get("gpu_only_ms")):
            continue
        t["telemetry_reason"] = TELEMETRY_NOT_RECORDED
        if t.get("gpu_only_method") == GpuOnlyMethod.CUDA_GRAPH.value:
            t["graph_check"] = {"fidelity": GraphFidelity.NOT_CHECKED.value, "detail": GRAPH_NOT_CHECKED}
    data["schema_version"] = 3
    return data


# The maximum SM clock of the GPUs whose sets predate schema 4 without NVML's reading of it.
KNOWN_MAX_SM_MHZ = {"H100": 1980.0, "H200": 1980.0}


def known_ref_mhz(gpu_name: str | None) -> float | None:
    """The maximum SM clock of a GPU named in KNOWN_MAX_SM_MHZ (by a word of its name), else None."""
    words = re.split(r"[^A-Za-z0-9]+", (gpu_name or "").upper())
    return next((mhz for key, mhz in KNOWN_MAX_SM_MHZ.items() if key in words), None)


def update_to_4(data: dict) -> dict:
    """Schema 3 -> 4: the reference clock of equal-clock times (environment.ref_mhz): the maximum SM
    clock NVML read where the set has it, else that of a known GPU by its name, else None (then no
    equal-clock time). The interleaving, forward/backward and dynamic-lengths fields are new and
    default empty: an older set did not record them."""
    data = dict(data)  # the caller's dict is not altered: only the top level and the environment change
    env = data.get("environment")
    if isinstance(env, dict) and "ref_mhz" not in env:
        env = data["environment"] = dict(env)
        recorded = env.get("sm_clock_max_mhz")
        ok = isinstance(recorded, (int, float)) and not isinstance(recorded, bool) and recorded > 0
        env["ref_mhz"] = float(recorded) if ok else known_ref_mhz(env.get("gpu_name") if isinstance(
            env.get("gpu_name"), str) else None)
    data["schema_version"] = 4
    return data


def update_to_5(data: dict) -> dict:
    """Schema 4 -> 5: which NVML power reading the figures are (environment.power_reading), the mean of
    NVML's averaged power and the share of power-capped samples per window are new and default None:
    an older set did not record them (its power_w is the instant reading where the driver had it, which
    the set does not say)."""
    data = dict(data)
    data["schema_version"] = 5
    return data


# What the capture's reasons hold (gen.capture.extras, gen.capture.sweep_limits, gen.capture.dynamic).
TIME_LIMIT = "the run's time limit"
NOT_INSTALLED = re.compile(r"the optional (\S+) package .*is not installed")


def update_to_6(data: dict) -> dict:
    """Schema 5 -> 6: a record of a variant whose optional package the set shows missing (for any of its variants)
    and that the time limit kept from running gets the package's reason first, the time limit after it, and status
    unavailable: it could not have run however long the run. Captures before schema 6 checked the time limit first; from
    6 the capture checks the package first and writes this itself."""
    data = dict(data)
    lists = {key: [dict(r) if isinstance(r, dict) else r for r in data.get(key) or []]
             for key in ("runs", "sweep", "dynamic") if isinstance(data.get(key), list)}
    records = [r for rows in lists.values() for r in rows if isinstance(r, dict)]
    first: dict[str, str] = {}  # package -> the reason the set gives for it
    for r in records:
        reason = r.get("reason") if isinstance(r.get("reason"), str) else ""
        if (m := NOT_INSTALLED.search(reason)) is not None:
            first.setdefault(m.group(1), reason)
    for r in records:
        reason = r.get("reason") if isinstance(r.get("reason"), str) else ""
        v = VARIANTS.get(r.get("variant")) if isinstance(r.get("variant"), str) else None
        pkg = extra_package(v)[0] if v is not None and extra_package(v) else None
        if pkg in first and TIME_LIMIT in reason and NOT_INSTALLED.search(reason) is None:
            r["reason"] = f"{first[pkg]}; the run's time limit was also reached before this point"
            r["status"] = Status.UNAVAILABLE.value
    data.update(lists)
    data["schema_version"] = 6
    return data


# update_to_N upgrades a file of version N-1 to N, one step at a time.
MIGRATIONS: dict[int, typing.Callable[[dict], dict]] = {2: update_to_2, 3: update_to_3, 4: update_to_4, 5: update_to_5,
                                                        6: update_to_6}


def migrate(data: dict[str, Any], where: str) -> dict[str, Any]:
    version = data["schema_version"]
    for target in range(version + 1, SCHEMA_VERSION + 1):
        step = MIGRATIONS.get(target)
        if step is None:
            raise SchemaError(f"{where}: schema_version {version} is too old to read (no update_to_{target})")
        data = step(data)
        if data.get("schema_version") != target:
            raise AssertionError(f"update_to_{target} left schema_version {data.get('schema_version')}")
    return data


