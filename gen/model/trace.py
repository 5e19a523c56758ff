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

import bisect
import functools
import gzip
import json
import re
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from gen.model import limits
from gen.model.schema import UserError

FORWARD_RE = re.compile(r"^forward#(\d{1,9})$")
GPU_KINDS = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
LAUNCH_CATS = {"cuda_runtime", "cuda_driver"}
OP_CATS = {"cpu_op", "user_annotation"}
CPU_CATS = OP_CATS | LAUNCH_CATS

# Times are µs in floats: past 2^53 (285 years) a float cannot hold a whole µs, and
# NaN, infinities or a negative duration are no times at all. One line, never a traceback.
MAX_TIME_US = 2**53
# Names longer than this are cut (and say so): the committed traces' longest name is 1,010
# characters (CUTLASS's reach a few thousand), and each name is shown on pages several times.
MAX_NAME = 4096
# The longest name parse keeps: MAX_NAME characters and the note of what was cut ("… (n more characters)")
MAX_NAME_KEPT = MAX_NAME + 64


class TraceError(UserError):
    """A trace that cannot be used: the message names the file (a user error:
    the CLI prints it as one line)."""


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

    # A forward read from a trace's digest makes its CPU events when they are first read (`later_cpu`):
    # they are five in six of a set's events, and the pages read those of a few forwards only.
    def __getattr__(self, name: str):  # called only for an attribute the instance does not hold
        if name == "cpu":
            make = self.__dict__.pop("_cpu_later", None)
            if make is not None:
                self.cpu = make()
                return self.cpu
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __getstate__(self) -> dict:
        self.cpu  # noqa: B018 - made now: a copy or a pickle holds the events, not how to make them
        return self.__dict__


def later_cpu(fw: Forward, make) -> Forward:
    """fw, its CPU events made by make() when first read (fw.cpu): equal to fw with them made now."""
    del fw.cpu
    fw.__dict__["_cpu_later"] = make
    return fw


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


@dataclass(frozen=True)
class Sizes:
    """What the limits on a trace's size were checked against when it was parsed."""

    text_bytes: int  # its text once decompressed (limits.TRACE_BYTES)
    events: int  # the elements of its traceEvents (limits.TRACE_EVENTS)


def check_sizes(path, sizes: Sizes) -> None:
    """The limits parse checks while it reads, checked on sizes recorded earlier: the same
    one-line errors, for a trace read from its digest."""
    limit = limits.TRACE_BYTES.value()
    if sizes.text_bytes > limit:
        raise limits.TRACE_BYTES.exceeded(path, f"holds more than {limit // limits.MIB:,} MiB once decompressed")
    max_events = limits.TRACE_EVENTS.value()
    if sizes.events > max_events:
        raise limits.TRACE_EVENTS.exceeded(path, f"holds more than {max_events:,} events")


def check_call_sizes(path, calls: list[tuple[int, int]]) -> None:
    """The limits on a trace's calls (limits.TRACE_CALLS, CALL_EVENTS), on (index, events) of each call as a
    digest records them (before its Trace is made)."""
    limits.TRACE_CALLS.check(path, len(calls))
    limit = limits.CALL_EVENTS.value()  # read once (the environment's), not per call: a set has 1,200 calls
    for index, events in calls:
        if events > limit:
            limits.CALL_EVENTS.check(f"{path}: forward#{index}", events)


@functools.lru_cache(maxsize=4096)  # a trace launches the same few kernels again and again
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


_NUMBER = (int, float)


def _num(value):
    """A finite number within ±2^53, else None (a launch field the trace lacks or garbles).
    A decoded JSON value is an int or a float exactly where it is a number (not a bool)."""
    return value if type(value) in _NUMBER and -MAX_TIME_US <= value <= MAX_TIME_US else None


def _ints(value) -> tuple[int, ...] | None:
    if type(value) is list and 0 < len(value) <= 3 \
            and all(type(x) in _NUMBER and -MAX_TIME_US <= x <= MAX_TIME_US for x in value):
        return tuple(int(x) for x in value)
    return None


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
# The kernel arguments kept from a GPU event (the rest are dropped as events stream in).
GPU_ARGS = ("correlation", "stream", "grid", "block", "registers per thread", "shared memory", "blocks per SM",
            "warps per SM", "est. achieved occupancy %", "bytes")


def _read(path: Path) -> tuple[str, int]:
    """The trace's text and its size in bytes, read up to its limit (gen.model.limits): a gzip
    bomb stops at the limit with one line instead of filling the memory."""
    if not path.is_file():
        raise TraceError(f"{path}: trace file is missing")
    limit = limits.TRACE_BYTES.value()
    try:
        gz = path.suffix == ".gz"
        # Its size on disk first: a plain trace over the limit is not read at all (a gzipped one is
        # decompressed a chunk at a time up to it: its size on disk says little)
        if not gz and path.stat().st_size > limit:
            raise limits.TRACE_BYTES.exceeded(path, f"holds more than {limit // limits.MIB:,} MiB")
        with (gzip.open if gz else open)(path, "rb") as fh:
            data = limits.read_upto(fh, limit)
    except (OSError, EOFError, zlib.error) as exc:
        raise TraceError(f"{path}: unreadable or truncated trace ({exc})") from None
    if len(data) > limit:
        raise limits.TRACE_BYTES.exceeded(path, f"holds more than {limit // limits.MIB:,} MiB once decompressed")
    try:
        return data.decode("utf-8"), len(data)
    except UnicodeDecodeError as exc:
        raise TraceError(f"{path}: not a JSON trace ({exc})") from None


def _stream(text: str, path: Path, on_event) -> dict:
    """The top-level object of a Chrome trace, with each element of traceEvents
    handed to on_event as it is decoded instead of kept: memory stays at the
    text plus what on_event keeps. Returns the other top-level keys."""
    def ws(i: int) -> int:
        return _WS.match(text, i).end()

    def expect(i: int, chars: str) -> int:
        if text[i:i + 1] not in chars:
            raise json.JSONDecodeError(f"expected {' or '.join(chars)}", text, i)
        return i + 1

    top: dict = {}
    seen_events = False
    i = expect(ws(0), "{")
    i = ws(i)
    if text[i:i + 1] == "}":
        i += 1
    else:
        while True:
            key, i = _DECODER.raw_decode(text, ws(i))
            if not isinstance(key, str):
                raise json.JSONDecodeError("expected a key", text, i)
            i = ws(expect(ws(i), ":"))
            if key == "traceEvents" and text[i:i + 1] == "[":
                seen_events = True
                i = ws(i + 1)
                if text[i:i + 1] == "]":
                    i += 1
                else:
                    while True:
                        value, i = _DECODER.raw_decode(text, ws(i))
                        on_event(value)
                        i = ws(i)
                        sep = text[i:i + 1]
                        if sep == "]":
                            i += 1
                            break
                        if sep != ",":
                            raise json.JSONDecodeError("expected ,", text, i)
                        i += 1
            else:
                top[key], i = _DECODER.raw_decode(text, i)
            i = ws(i)
            if text[i:i + 1] == "}":
                i += 1
                break
            i = expect(i, ",")
    if ws(i) != len(text):
        raise json.JSONDecodeError("extra data", text, ws(i))
    top["traceEvents"] = seen_events
    return top


def _not_json(path: Path, text: str, exc: ValueError) -> TraceError:
    """One line for a text json refused: its decoding error, or for an integer of more digits
    than Python reads (int()'s ValueError, not a JSONDecodeError, and no position) the
    integer's size and where it starts."""
    limit = sys.get_int_max_str_digits()
    if not isinstance(exc, json.JSONDecodeError) and limit:
        m = re.search(rf"\d{{{limit + 1},}}", text)
        if m:
            return TraceError(f"{path}: holds an integer of {len(m.group()):,} digits at character "
                              f"{m.start():,}, more than the {limit:,} Python reads: not a trace of "
                              f"torch.profiler")
    return TraceError(f"{path}: not a JSON trace ({str(exc)[:200]})")


def _shown(x) -> str:
    """A number as the trace wrote it, or its size where it is too long to show."""
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) >= 10**20:
        return f"a {len(str(abs(x))):,}-digit integer"
    return json.dumps(x)[:40]  # floats, NaN and Infinity included


class _Raw:
    """One complete (ph X) event kept from the stream: only what parse uses."""

    __slots__ = ("ts", "dur", "tid", "name", "cat", "args", "corr", "itypes")

    def __init__(self, ts, dur, tid, name, cat, args, corr=None, itypes=None):
        self.ts, self.dur, self.tid, self.name, self.cat, self.args = ts, dur, tid, name, cat, args
        self.corr, self.itypes = corr, itypes  # a CPU event's (args is None for those)


def _collect(path: Path) -> tuple[list[_Raw], list, Sizes]:
    """The complete events of the categories parse uses, type-checked, in file order; the
    deviceProperties; the sizes the limits are checked against."""
    kept: list[_Raw] = []
    wanted = CPU_CATS | set(GPU_KINDS)
    max_events = limits.TRACE_EVENTS.value()
    seen = 0

    number = (int, float)  # a decoded JSON value is an int or a float exactly where it is a number (not a bool)

    def on_event(e) -> None:
        nonlocal seen
        seen += 1
        if seen > max_events:
            raise limits.TRACE_EVENTS.exceeded(path, f"holds more than {max_events:,} events")
        if type(e) is not dict or e.get("ph") != "X":
            return
        cat = e.get("cat")
        if cat not in wanted:
            return
        name = e.get("name", "")
        if type(name) is not str:
            name = str(name)
        if len(name) > MAX_NAME:
            name = f"{name[:MAX_NAME]}… ({len(name) - MAX_NAME:,} more characters)"
        ts, dur, args = e.get("ts"), e.get("dur", 0), e.get("args")
        if type(ts) not in number:
            raise TraceError(f"{path}: event {name[:80]!r} has no numeric ts")
        if type(dur) not in number:
            raise TraceError(f"{path}: event {name[:80]!r} has a dur that is not a number ({json.dumps(dur)[:40]})")
        if not -MAX_TIME_US <= ts <= MAX_TIME_US:  # NaN fails every comparison
            raise TraceError(f"{path}: event {name[:80]!r} has ts {_shown(ts)}: not a time in µs "
                             f"(finite, within ±2^53)")
        if not 0 <= dur <= MAX_TIME_US:
            raise TraceError(f"{path}: event {name[:80]!r} has dur {_shown(dur)}: not a duration in µs "
                             f"(finite, 0 or more, within 2^53)")
        if args is None:
            args = {}
        elif not isinstance(args, dict):
            raise TraceError(f"{path}: event {name[:80]!r} has args that are not an object "
                             f"({type(args).__name__})")
        tid = e.get("tid")
        if not isinstance(tid, (int, str)):
            tid = str(tid)
        if cat in GPU_KINDS:
            kept.append(_Raw(ts, dur, tid, name, cat, {k: args[k] for k in GPU_ARGS if k in args}))
        else:
            itypes = args.get("Input type")
            kept.append(_Raw(ts, dur, tid, name, cat, None, args.get("correlation"),
                             itypes if type(itypes) is list else None))

    text, size = _read(path)
    try:
        top = _stream(text, path, on_event)
    except ValueError as exc:  # JSONDecodeError, or an integer past Python's digit limit
        raise _not_json(path, text, exc) from None
    except RecursionError:
        raise TraceError(f"{path}: a JSON value nested too deep to read (thousands of levels): "
                         f"not a trace of torch.profiler") from None
    if not top["traceEvents"]:
        raise TraceError(f"{path}: no traceEvents list")
    props = top.get("deviceProperties")
    return kept, props if isinstance(props, list) else [], Sizes(size, seen)


def _nest(cpu: list[_Raw]) -> tuple[list[int], dict[int, tuple[int, ...]]]:
    """Depth of each CPU event among the events of its thread, and for each launch
    call the ops around it (indices, outermost first). One sorted sweep per thread
    with a stack of open events: n log n."""
    depth = [0] * len(cpu)
    around: dict[int, tuple[int, ...]] = {}
    by_tid: dict = {}
    for i, e in enumerate(cpu):
        by_tid.setdefault(e.tid, []).append(i)
    for idxs in by_tid.values():
        idxs.sort(key=lambda i: (cpu[i].ts, -cpu[i].dur))
        stack: list[tuple[float, int]] = []  # (end, index) of the open events
        for i in idxs:
            e = cpu[i]
            while stack and e.ts >= stack[-1][0]:
                stack.pop()
            depth[i] = len(stack)
            if e.cat in LAUNCH_CATS:
                around[i] = tuple(j for _, j in stack if cpu[j].cat in OP_CATS)
            stack.append((e.ts + e.dur, i))
    return depth, around


def parse(path: str | Path) -> Trace:
    """Time and memory linear in the trace's size (n log n for the sorts)."""
    return parse_sized(path)[0]


def parse_sized(path: str | Path) -> tuple[Trace, Sizes]:
    """`parse`, and the sizes its limits were checked against (gen.model.trace_digest keeps them).
    What a Trace holds, or how it is made from a trace, is also what a digest stores: a change to
    either bumps trace_digest.VERSION, so that digests written before it are parsed again."""
    path = Path(path)
    events, props, sizes = _collect(path)
    ranges = []
    for e in events:
        if e.cat == "user_annotation" and (m := FORWARD_RE.match(e.name)):
            ranges.append((int(m.group(1)), e))
    if not ranges:
        raise TraceError(f"{path}: no forward#N ranges: not a trace written by gen.capture")
    limits.TRACE_CALLS.check(path, len(ranges))
    ranges.sort(key=lambda r: r[1].ts)
    forwards = [Forward(i, float(e.ts), float(e.dur)) for i, e in ranges]
    starts = [e.ts for _, e in ranges]

    # By time alone, on any thread: backward kernels are launched from the
    # autograd engine's thread while the step's range is open on the main one.
    bounds = [(e.ts, e.ts + e.dur) for _, e in ranges]

    def forward_of(ts: float) -> Forward | None:
        j = bisect.bisect_right(starts, ts) - 1
        if j >= 1:
            lo, hi = bounds[j - 1]  # the first range holding ts, as ranges may touch
            if lo <= ts <= hi:
                return forwards[j - 1]
        if j >= 0:
            lo, hi = bounds[j]
            if lo <= ts <= hi:
                return forwards[j]
        return None

    cpu = [e for e in events if e.cat in CPU_CATS and not FORWARD_RE.match(e.name)
           and not e.name.startswith("ProfilerStep#")]
    depth, around = _nest(cpu)
    launches: dict[int, tuple[int, Forward | None]] = {}
    for i, e in enumerate(cpu):
        fw = forward_of(e.ts)
        corr = e.corr
        if type(corr) is not int:
            corr = None
        if e.cat in LAUNCH_CATS and corr is not None:
            launches[corr] = (i, fw)
        if fw is not None:
            fw.cpu.append(CpuEvent(e.name, e.cat, e.ts - fw.ts, float(e.dur), depth[i], e.tid, corr))

    unattributed = 0
    gpu = sorted((e for e in events if e.cat in GPU_KINDS), key=lambda e: e.ts)
    for e in gpu:
        args = e.args
        corr = args.get("correlation")
        li, fw = launches.get(corr, (None, None)) if isinstance(corr, int) else (None, None)
        if fw is None:
            unattributed += 1
            continue
        launch = cpu[li] if li is not None else None
        path_ops = [cpu[j] for j in around.get(li, ())] if launch else []
        inner = path_ops[-1] if path_ops else None
        itypes = inner.itypes if inner else None
        fw.gpu.append(GpuEvent(
            index=len(fw.gpu),
            name=e.name,
            short_name=short_name(e.name),
            kind=GPU_KINDS[e.cat],
            ts=e.ts - fw.ts,
            dur=float(e.dur),
            stream=_num(args.get("stream")),
            grid=_ints(args.get("grid")),
            block=_ints(args.get("block")),
            registers_per_thread=_num(args.get("registers per thread")),
            shared_memory=_num(args.get("shared memory")),
            blocks_per_sm=_num(args.get("blocks per SM")),
            warps_per_sm=_num(args.get("warps per SM")),
            occupancy_pct=_num(args.get("est. achieved occupancy %")),
            bytes=_num(args.get("bytes")),
            launch_api=launch.name if launch else None,
            launch_ts=launch.ts - fw.ts if launch else None,
            launched_by=inner.name if inner else None,
            op_path=tuple(o.name for o in path_ops),
            input_types=tuple(str(t) for t in itypes) if isinstance(itypes, list) else (),
        ))
    for fw in forwards:
        fw.cpu.sort(key=lambda c: (c.ts, c.depth))
        limits.CALL_EVENTS.check(f"{path}: forward#{fw.index}", len(fw.cpu) + len(fw.gpu))
    return Trace(str(path), forwards, unattributed, props), sizes
