"""Can two sets be compared, number for number? The reasons they cannot, as facts.

Takes: two loaded sets (gen.analysis.tables), a scenario and a mode. Gives:
`issues(a, b, scenario, mode) -> list[Issue]`, each a kind, whether it makes
the comparison meaningless (`refuse`) or only needs saying (`flag`), and the
two sides' values; `refusals(...)` the first kind only. Kinds:

- shape: the scenario's point (batch, heads, lengths, head dim, mask) differs;
- dtype: the two sets computed in different dtypes;
- scenario: one side has no data for the scenario;
- definition: a quantity shown side by side is defined differently on each
  side (the seed article's "CPU time" is the profiler's CPU time around the
  call; ours is host dispatch with the GPU drained; GPU-only by CUDA-graph
  replay against a kernel sum or a published CUDA time);
- noisy: a side's ranking timing is spread (IQR / median over
  rules.NOISY_IQR_PCT) or has too few samples (calls.MIN_SAMPLES).

`python -m gen compare` refuses a pair with a refusal unless asked to go on;
the compare page shows every issue above the numbers. No sentences here.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import calls, tables, verdicts
from gen.model import schema

# What each side's GPU and CPU columns hold, by where the figure comes from.
GPU_DEFINITIONS = {
    schema.GpuOnlyMethod.CUDA_GRAPH.value: "gpu_only_cuda_graph",
    schema.GpuOnlyMethod.KERNEL_SUM.value: "gpu_only_kernel_sum",
    "published": "published_cuda_time",  # the profiler's CUDA time per call, as a source published it
}
CPU_DEFINITIONS = {"measured": "host_dispatch", "published": "published_cpu_time"}
# Definitions that measure the same thing: the article's CUDA time per forward
# is the profiler's GPU events of one call added up, as our kernel sum is.
SAME_DEFINITION = [{"gpu_only_kernel_sum", "published_cuda_time"}]


def same_definition(x: str, y: str) -> bool:
    return x == y or any({x, y} <= group for group in SAME_DEFINITION)
_DTYPE_ALIASES = {"bfloat16": "bf16", "float16": "fp16", "f16": "fp16", "half": "fp16", "float32": "fp32",
                  "f32": "fp32"}


@dataclass(frozen=True)
class Issue:
    kind: str  # shape, dtype, scenario, definition, noisy
    refuse: bool  # the numbers cannot be set against each other
    quantity: str | None = None  # the scenario; for definition: gpu or cpu
    a: object = None  # side A's value (for noisy: a tuple of calls.Noise)
    b: object = None


def _point(ls: tables.LoadedSet, scenario: str) -> schema.Point | None:
    rec = ls.outline.scenario(scenario)
    if rec is not None and rec.points:
        return rec.points[0]
    run = next((r for r in ls.rs.runs if r.scenario == scenario and r.point is not None), None)
    return run.point if run else None


def _dtype(ls: tables.LoadedSet, scenario: str) -> str:
    rec = ls.outline.scenario(scenario)
    d = (rec.dtype if rec else ls.config.dtype) or ""
    return _DTYPE_ALIASES.get(d.lower(), d.lower())


def _has(ls: tables.LoadedSet, scenario: str, mode: str) -> bool:
    return any(r.scenario == scenario and r.mode == mode for r in ls.rs.runs) or \
        any(p.scenario == scenario and p.mode == mode for p in ls.rs.sweep)


def _published(ls: tables.LoadedSet, scenario: str, mode: str, field_name: str) -> bool:
    """A reference set published this field for some variant of the scenario and mode."""
    return any(getattr(r.published, field_name, None) is not None for r in ls.rs.runs
               if r.scenario == scenario and r.mode == mode and r.published is not None)


def gpu_definition(ls: tables.LoadedSet, scenario: str = "article", mode: str = "inference") -> str | None:
    if ls.kind == schema.SetKind.REFERENCE:
        return GPU_DEFINITIONS["published"] if _published(ls, scenario, mode, "gpu_time_ms") else None
    if ls.environment.device != "cuda":
        return None
    methods = {r.timing.gpu_only_method for r in ls.rs.runs
               if r.scenario == scenario and r.mode == mode and r.status == schema.Status.OK}
    methods.discard(None)
    if not methods:
        return None
    # A set mixing methods is labelled by the weaker one: a kernel sum omits the gaps a graph replay keeps.
    m = schema.GpuOnlyMethod.KERNEL_SUM.value if schema.GpuOnlyMethod.KERNEL_SUM.value in methods else methods.pop()
    return GPU_DEFINITIONS[m]


def cpu_definition(ls: tables.LoadedSet, scenario: str = "article", mode: str = "inference") -> str | None:
    """What a set's CPU column holds; None for a published set that gave no CPU time."""
    if ls.kind == schema.SetKind.REFERENCE:
        return CPU_DEFINITIONS["published"] if _published(ls, scenario, mode, "cpu_time_ms") else None
    return CPU_DEFINITIONS["measured"]


def _noisy(ls: tables.LoadedSet, scenario: str, mode: str) -> list[calls.Noise]:
    v = verdicts.verdict(ls, scenario, mode)
    if v is None:
        return []
    return [n for t in calls.timed(ls, scenario, mode) if t.status == schema.Status.OK
            for n in t.noise() if n.timing == v.basis]


def issues(a: tables.LoadedSet, b: tables.LoadedSet, scenario: str = "article",
           mode: str = "inference") -> list[Issue]:
    out: list[Issue] = []
    ha, hb = _has(a, scenario, mode), _has(b, scenario, mode)
    if not (ha and hb):
        out.append(Issue("scenario", True, scenario, ha, hb))
    pa, pb = _point(a, scenario), _point(b, scenario)
    if pa is not None and pb is not None and pa != pb:
        out.append(Issue("shape", True, scenario, pa, pb))
    da, db = _dtype(a, scenario), _dtype(b, scenario)
    if da and db and da != db:
        out.append(Issue("dtype", True, scenario, da, db))
    ga, gb = gpu_definition(a, scenario, mode), gpu_definition(b, scenario, mode)
    if ga and gb and not same_definition(ga, gb):
        out.append(Issue("definition", False, "gpu", ga, gb))
    ca, cb = cpu_definition(a, scenario, mode), cpu_definition(b, scenario, mode)
    if ca and cb and ca != cb:
        out.append(Issue("definition", False, "cpu", ca, cb))
    na, nb = tuple(_noisy(a, scenario, mode)), tuple(_noisy(b, scenario, mode))
    if na or nb:
        out.append(Issue("noisy", False, "ranking time", na, nb))
    return out


def refusals(a: tables.LoadedSet, b: tables.LoadedSet, scenario: str = "article",
             mode: str = "inference") -> list[Issue]:
    return [i for i in issues(a, b, scenario, mode) if i.refuse]


def point_text(p: schema.Point) -> str:
    """A point as a compact identifier: B8 H16/16 Sq1024 Skv1024 D64 causal."""
    text = f"B{p.batch} H{p.q_heads}/{p.kv_heads} Sq{p.q_len} Skv{p.kv_len} D{p.head_dim} {p.mask}"
    return text + (f" W{p.window}" if p.window else "")


class Incomparable(schema.UserError):
    """Two sets whose numbers cannot be set against each other (the CLI prints the one line)."""

    def __init__(self, a: str, b: str, found: list[Issue]):
        self.issues = found
        parts = []
        for i in found:
            if i.kind == "shape":
                parts.append(f"different shapes ({point_text(i.a)} against {point_text(i.b)})")
            elif i.kind == "scenario":
                parts.append(f"no data for scenario {i.quantity} in {'SET_A' if not i.a else 'SET_B'}")
            else:
                parts.append(f"different {i.kind}s ({i.a} against {i.b})")
        super().__init__(f"compare: {a} and {b} are not comparable: {'; '.join(parts)}. "
                         "Pass --force to show them side by side anyway")


def require_comparable(a: tables.LoadedSet, b: tables.LoadedSet, scenario: str = "article",
                       mode: str = "inference") -> list[Issue]:
    """The issues to flag; raises Incomparable when one of them refuses the comparison."""
    found = issues(a, b, scenario, mode)
    refused = [i for i in found if i.refuse]
    if refused:
        raise Incomparable(a.name, b.name, refused)
    return found
