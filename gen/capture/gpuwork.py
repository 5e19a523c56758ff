"""The GPU work of profiled calls, read back from torch.profiler's Chrome trace.

Takes: a zero-argument step, or a captured CUDA graph, and a device. Gives:
`work_of_trace(path)` -> per `forward#i` range, (names of its kernels, memcpys
and memsets in launch order, their summed GPU time in ms), read with the
report's own trace model (gen.model.trace.parse: each GPU event attributed to a
range through the correlation id of the runtime or driver call that launched
it; a graph replay's kernels all carry its cudaGraphLaunch's id);
`graph_work(graph, device)`: the names for one profiled replay;
`launches_of_trace(path)`: the kernel launches (name, grid, block, shared
memory) of the first `forward#i` range, for the counter pass's dedupe;
`compare_work(graph, eager, n) -> schema.GraphCheck`: does one replay of a graph
of n calls run n times one eager call's GPU work (the graph's fidelity).

Imports torch (the profiler, in graph_work only), the standard library and gen.model.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path

from gen.model import schema, trace

Launch = tuple[str, tuple[int, ...], tuple[int, ...], int]  # name, grid, block, shared memory


def work_of_trace(path: str | os.PathLike) -> list[tuple[list[str], float]]:
    """One (names, ms) per forward#i range, in range order."""
    return [([g.name for g in fw.gpu], sum(g.dur for g in fw.gpu) / 1e3) for fw in trace.parse(path).forwards]


def launches_of_trace(path: str | os.PathLike) -> list[Launch]:
    """The kernel launches of the first forward#i range, in launch order (no memcpy or memset)."""
    first = trace.parse(path).forwards[0]
    return [(g.name, g.grid or (), g.block or (), int(g.shared_memory or 0)) for g in first.gpu if g.kind == "kernel"]


def graph_work(graph, device) -> list[str] | None:
    """The GPU work of one replay of a captured graph, as the profiler lists it;
    None where it lists none (CUPTI did not see the graph's kernels)."""
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function

    torch.cuda.synchronize(device)
    fd, raw = tempfile.mkstemp(prefix="gen-graph-", suffix=".json")
    os.close(fd)
    try:
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            with record_function("forward#0"):
                graph.replay()
                torch.cuda.synchronize(device)
        prof.export_chrome_trace(raw)
        (names, _), = work_of_trace(raw) or [([], 0.0)]
    finally:
        Path(raw).unlink(missing_ok=True)
    return names or None


def _same_kind(name: str) -> str:
    """A memset is a memset whatever memory the profiler says it sets
    ("Memset (Device)" eagerly, "Memset (Unknown)" in a graph); a memcpy keeps
    its kind (a copy-engine "Memcpy DtoD" is not a memcpy32_post kernel)."""
    return "Memset" if name.startswith("Memset (") else name


def compare_work(graph: list[str] | None, eager: list[str] | None, n: int) -> schema.GraphCheck:
    """Does one replay of n calls run n times one eager call's GPU work?"""
    graph = [_same_kind(x) for x in graph] if graph is not None else None
    eager = [_same_kind(x) for x in eager] if eager is not None else None
    if graph is None:
        return schema.GraphCheck(fidelity=schema.GraphFidelity.NOT_CHECKED.value,
                                 detail="not checked: the profiler listed no GPU work of the graph replay")
    if eager is None:
        return schema.GraphCheck(fidelity=schema.GraphFidelity.NOT_CHECKED.value, graph_kernels=graph[:200],
                                 detail="not checked: no profiled eager call")
    per_call = graph[: len(graph) // n] if n and len(graph) % n == 0 else graph
    same = n > 0 and len(graph) % n == 0 and graph == per_call * n and Counter(per_call) == Counter(eager)
    if same:
        return schema.GraphCheck(fidelity=schema.GraphFidelity.SAME.value, graph_kernels=per_call,
                                 eager_kernels=eager)
    g, e = Counter(per_call), Counter(eager)
    only_g, only_e = list((g - e).elements()), list((e - g).elements())
    parts = []
    if len(graph) % n:
        parts.append(f"the replay of {n} calls ran {len(graph)} GPU operations, not a multiple of {n}")
    if only_g:
        parts.append("only in the graph: " + ", ".join(trace.short_name(x)[:80] for x in only_g[:4]))
    if only_e:
        parts.append("only eager: " + ", ".join(trace.short_name(x)[:80] for x in only_e[:4]))
    if not parts:
        parts.append("the same GPU operations in another order")
    return schema.GraphCheck(fidelity=schema.GraphFidelity.DIFFERS.value, graph_kernels=per_call[:200],
                             eager_kernels=eager[:200], detail="; ".join(parts))
