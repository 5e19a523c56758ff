"""Trace parsing: a gzipped Chrome trace from torch.profiler -> per-forward events.

Takes: a trace written by gen.capture (each profiled call inside a
`forward#N` record_function range). Gives: `parse(path) -> Trace`, whose
forwards each hold their CPU events (aten ops, annotations, runtime and driver
calls, nested by depth) and their GPU events (kernels, memcpys, memsets), each
GPU event attributed to the CPU op that launched it through the correlation id
of its runtime or driver launch call.

Standard library only, so that capture could use it too and the report needs
no torch. HolisticTraceAnalysis was tried for this (docs/notes/hta-trial.md):
it keys its frames by rank and iteration (ProfilerStep), not by our forward
ranges, so this module does the attribution itself.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

FORWARD_RE = re.compile(r"^forward#(\d+)$")
GPU_KINDS = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
LAUNCH_CATS = {"cuda_runtime", "cuda_driver"}
OP_CATS = {"cpu_op", "user_annotation"}
CPU_CATS = OP_CATS | LAUNCH_CATS


class TraceError(ValueError):
    """A trace that cannot be used: the message names the file."""


@dataclass(frozen=True)
class CpuEvent:
    name: str
    cat: str
    ts: float  # µs from the forward's start
    dur: float
    depth: int  # 0 = directly inside the forward range
    tid: int
    correlation: int | None = None


@dataclass(frozen=True)
class GpuEvent:
    index: int  # launch order within the forward
    name: str
    short_name: str
    kind: str  # kernel, memcpy or memset
    ts: float  # µs from the forward's start
    dur: float
    stream: int | None
    grid: tuple[int, ...] | None
    block: tuple[int, ...] | None
    registers_per_thread: int | None
    shared_memory: int | None
    blocks_per_sm: float | None
    warps_per_sm: float | None
    occupancy_pct: float | None
    bytes: int | None
    launch_api: str | None
    launch_ts: float | None
    launched_by: str | None  # innermost op around the launch call
    op_path: tuple[str, ...]  # outermost to innermost op around it
    input_types: tuple[str, ...]  # dtypes the launching op was given


@dataclass
class Forward:
    index: int
    ts: float  # absolute µs, the origin of the relative times below
    dur: float
    cpu: list[CpuEvent] = field(default_factory=list)
    gpu: list[GpuEvent] = field(default_factory=list)

    @property
    def gpu_end(self) -> float:
        return max((g.ts + g.dur for g in self.gpu), default=0.0)


@dataclass
class Trace:
    path: str
    forwards: list[Forward]
    unattributed: int  # GPU events whose launch lies in no forward range
    device_properties: list[dict]

    @property
    def counts(self) -> list[int]:
        return [len(f.gpu) for f in self.forwards]

    @property
    def counts_consistent(self) -> bool:
        return len(set(self.counts)) <= 1


def short_name(name: str) -> str:
    """`void ns::kernel<T, 3>(Args)` -> `kernel`; plain names are kept."""
    text = name.strip()
    if text.startswith(("Memcpy", "Memset")):
        return text
    if text.startswith("void "):
        text = text[5:]
    out, depth = [], 0
    for ch in text:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    flat = "".join(out).strip()
    if not flat:
        return name
    if " " in flat and "::" not in flat:
        return flat  # e.g. "Memcpy DtoD (Device -> Device)" keeps its words
    return flat.split("::")[-1].split(" ")[-1] or name


def _ints(value) -> tuple[int, ...] | None:
    if isinstance(value, list) and all(isinstance(x, (int, float)) for x in value):
        return tuple(int(x) for x in value)
    return None


def _num(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def load_events(path: str | Path) -> dict:
    path = Path(path)
    if not path.is_file():
        raise TraceError(f"{path}: trace file is missing")
    try:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, EOFError, zlib.error) as exc:
        raise TraceError(f"{path}: unreadable or truncated trace ({exc})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise TraceError(f"{path}: not a JSON trace ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list):
        raise TraceError(f"{path}: no traceEvents list")
    return data


def _nest(events: list[dict]) -> dict[int, int]:
    """Depth of each complete event among the events of its thread."""
    depth: dict[int, int] = {}
    by_tid: dict = {}
    for i, e in enumerate(events):
        by_tid.setdefault(e.get("tid"), []).append(i)
    for idxs in by_tid.values():
        idxs.sort(key=lambda i: (events[i]["ts"], -events[i].get("dur", 0)))
        stack: list[float] = []
        for i in idxs:
            e = events[i]
            while stack and e["ts"] >= stack[-1]:
                stack.pop()
            depth[i] = len(stack)
            stack.append(e["ts"] + e.get("dur", 0))
    return depth


def parse(path: str | Path) -> Trace:
    data = load_events(path)
    events = [e for e in data["traceEvents"] if isinstance(e, dict) and e.get("ph") == "X"]
    for e in events:
        if not isinstance(e.get("ts"), (int, float)):
            raise TraceError(f"{path}: event {e.get('name')!r} has no numeric ts")
    ranges = []
    for e in events:
        m = FORWARD_RE.match(str(e.get("name", "")))
        if m and e.get("cat") == "user_annotation":
            ranges.append((int(m.group(1)), e))
    if not ranges:
        raise TraceError(f"{path}: no forward#N ranges: not a trace written by gen.capture")
    ranges.sort(key=lambda r: r[1]["ts"])
    forwards = [Forward(i, float(e["ts"]), float(e.get("dur", 0))) for i, e in ranges]

    # By time alone, on any thread: backward kernels are launched from the
    # autograd engine's thread while the step's range is open on the main one.
    def forward_of(ts: float) -> Forward | None:
        for (_, e), fw in zip(ranges, forwards):
            if e["ts"] <= ts <= e["ts"] + e.get("dur", 0):
                return fw
        return None

    cpu = [e for e in events if e.get("cat") in CPU_CATS and not FORWARD_RE.match(str(e.get("name")))
           and not str(e.get("name", "")).startswith("ProfilerStep#")]
    depth = _nest(cpu)
    ops = [e for e in cpu if e.get("cat") in OP_CATS]
    launches: dict[int, tuple[dict, Forward | None]] = {}
    for i, e in enumerate(cpu):
        fw = forward_of(e["ts"])
        corr = (e.get("args") or {}).get("correlation")
        if e.get("cat") in LAUNCH_CATS and isinstance(corr, int):
            launches[corr] = (e, fw)
        if fw is not None:
            fw.cpu.append(CpuEvent(str(e["name"]), e["cat"], e["ts"] - fw.ts, float(e.get("dur", 0)),
                                   depth[i], e.get("tid"), corr if isinstance(corr, int) else None))

    def enclosing(launch: dict) -> list[dict]:
        t, tid = launch["ts"], launch.get("tid")
        around = [o for o in ops if o.get("tid") == tid and o["ts"] <= t <= o["ts"] + o.get("dur", 0)]
        return sorted(around, key=lambda o: (o["ts"], -o.get("dur", 0)))

    unattributed = 0
    gpu = sorted((e for e in events if e.get("cat") in GPU_KINDS), key=lambda e: e["ts"])
    for e in gpu:
        args = e.get("args") or {}
        launch, fw = launches.get(args.get("correlation"), (None, None))
        if fw is None:
            unattributed += 1
            continue
        path_ops = enclosing(launch) if launch else []
        inner = path_ops[-1] if path_ops else None
        itypes = (inner.get("args") or {}).get("Input type") if inner else None
        fw.gpu.append(GpuEvent(
            index=len(fw.gpu),
            name=str(e.get("name")),
            short_name=short_name(str(e.get("name"))),
            kind=GPU_KINDS[e["cat"]],
            ts=e["ts"] - fw.ts,
            dur=float(e.get("dur", 0)),
            stream=_num(args.get("stream")),
            grid=_ints(args.get("grid")),
            block=_ints(args.get("block")),
            registers_per_thread=_num(args.get("registers per thread")),
            shared_memory=_num(args.get("shared memory")),
            blocks_per_sm=_num(args.get("blocks per SM")),
            warps_per_sm=_num(args.get("warps per SM")),
            occupancy_pct=_num(args.get("est. achieved occupancy %")),
            bytes=_num(args.get("bytes")),
            launch_api=str(launch["name"]) if launch else None,
            launch_ts=launch["ts"] - fw.ts if launch else None,
            launched_by=str(inner["name"]) if inner else None,
            op_path=tuple(str(o["name"]) for o in path_ops),
            input_types=tuple(str(t) for t in itypes) if isinstance(itypes, list) else (),
        ))
    for fw in forwards:
        fw.cpu.sort(key=lambda c: (c.ts, c.depth))
    props = data.get("deviceProperties") if isinstance(data.get("deviceProperties"), list) else []
    return Trace(str(path), forwards, unattributed, props)
