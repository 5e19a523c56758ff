"""The seed article's lessons recomputed from a result set, one function a lesson, as facts.

Takes: a loaded set (gen.analysis.tables), its timed calls (gen.analysis.calls) and, where a lesson needs
them, its kernel tables and counters. Gives one dataclass of numbers, kernel references (`KernelRef`) and
flags per lesson, or None where the set lacks the variant or its trace:

- `hidden_copy`: the Memcpy that out-of-place masked_fill launches (its kernel rows and share of the
  call), what the in-place variant saves (ms and %), and the copy its training step still makes
  (masked_fill_'s backward is out of place);
- `math_backend`: the float32 share of the math backend, the causal mask built and applied in every
  call, and the kernels of _safe_softmax with their share;
- `efficient_kernel`: the memory-efficient kernel's name decoded field by field;
- `flash_occupancy`: flash's low occupancy as a trade (its limiter, registers and shared memory a block,
  Nsight Compute's counters when the set has them), the tiles it keeps on chip against the score matrix
  a naive call writes, and its measured throughput under a named FLOP convention;
- `cudnn_costs`: its kernel's launch (API, grid against the SMs, shared memory), the first calls (the
  process's first cuDNN call, later first calls on the same problem, the first training step and, where
  the set records them, first calls at new shapes), the host cost a call, and the transposes the other
  fused backends dispatch and cuDNN does not.

No sentences: gen.report's wording says them, citing the article.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from gen.analysis import (
    calls,
    counters,
    determinism_rule,
    findings,
    first_calls,
    flops,
    kernel_names,
    kernel_rules,
    rules,
    scaling,
    tables,
)
from gen.analysis.values import missing, variant_role
from gen.model import schema
from gen.model.variants import VARIANTS

SUB_US_MEMSET = rules.SUB_US_MEMSET_US
BF16_BYTES = 2
SAFE_SOFTMAX_OP = "aten::_safe_softmax"
TRANSPOSE_OPS = ("aten::transpose", "aten::permute")


def timed_rows(ls: tables.LoadedSet) -> dict[str, calls.Timed]:
    """The article scenario's inference rows by variant (cached on the set)."""
    key = ("timed_rows",)
    if key not in ls._tables:
        ls._tables[key] = {t.variant: t for t in calls.timed(ls, "article", "inference")}
    return ls._tables[key]


@dataclass(frozen=True)
class KernelRef:
    """One GPU event of a variant's first profiled call: enough to link its row."""

    variant: str
    mode: str
    index: int
    short_name: str
    dur_us: float
    launched_by: str = ""


def _refs(variant: str, kt: pd.DataFrame, mode: str = "inference") -> tuple[KernelRef, ...]:
    cols = (kt[c].tolist() for c in ("index", "short_name", "dur_us", "launched_by"))
    return tuple(KernelRef(variant, mode, int(i), s, float(d), lb) for i, s, d, lb in zip(*cols))


def _kt(ls: tables.LoadedSet, variant: str) -> pd.DataFrame | None:
    run = ls.rs.run(variant, "inference")
    if run is None or run.status != schema.Status.OK or ls.trace("inference", variant) is None:
        return None
    kt = tables.kernel_frame(ls, variant, "inference")
    return None if kt.empty else kt


def _memsets(kt: pd.DataFrame) -> pd.DataFrame:
    return kt[(kt["kind"] == "memset") & (kt["dur_us"] < SUB_US_MEMSET)]


# --------------------------------------------------------------------------- the hidden copy


@dataclass(frozen=True)
class HiddenCopy:
    variant: str  # the out-of-place baseline
    inplace: str
    copies: tuple[KernelRef, ...]  # memcpy events launched under masked_fill
    op_path: str
    copy_us: float
    copy_share_pct: float  # of the baseline call's GPU events
    events: int
    inplace_events: int | None
    inplace_memcpys: int | None
    gpu_only_ms: float | None
    inplace_gpu_only_ms: float | None
    saved_ms: float | None  # baseline minus in-place, GPU-only medians (like with like: determinism_rule)
    saved_pct: float | None
    settled: bool | None  # the two IQRs do not overlap
    method: str | None  # how the GPU-only time was taken
    train_copies: tuple[KernelRef, ...] = ()  # memcpys of the in-place variant's training step under masked_fill
    train_op_path: str = ""  # where they are launched (autograd's MaskedFillBackward0 ...)
    # (rounds, samples) of the two GPU-only times whose intervals `settled` compares, for their level
    units: tuple[tuple[int, int], ...] = ()
    # saved_ms is of the two kernel sums: one GPU-only time is a graph replay, the other a kernel sum;
    # `settled` is then None (the intervals are of times of two kinds)
    saved_by_sums: bool = False

    @property
    def holds(self) -> bool:
        """The article's lesson: the out-of-place call copies, the in-place one does not."""
        return bool(self.copies) and self.inplace_memcpys == 0


def hidden_copy(ls: tables.LoadedSet, rows: dict[str, calls.Timed] | None = None) -> HiddenCopy | None:
    base, inplace = variant_role("baseline"), variant_role("inplace")
    kt = _kt(ls, base)
    if kt is None:
        return None
    rows = rows if rows is not None else timed_rows(ls)
    mc = kt[(kt["kind"] == "memcpy") & kt["op_path"].str.contains("masked_fill", regex=False)]
    ik = _kt(ls, inplace)
    a, b = rows.get(base), rows.get(inplace)
    ga, gb = (a.gpu_only if a else None), (b.gpu_only if b else None)
    saved, by_sums = None, False
    if ga and gb:
        a_ms, b_ms, by_sums = determinism_rule.like_with_like(ga.median, a.gpu_only_method, a.kernel_sum_ms,
                                                              gb.median, b.gpu_only_method, b.kernel_sum_ms)
        saved = a_ms - b_ms
    trun = ls.rs.run(inplace, "train")
    tk = tables.kernel_frame(ls, inplace, "train") if trun and trun.status == schema.Status.OK and \
        ls.trace("train", inplace) is not None else None
    tc = tk[(tk["kind"] == "memcpy") & tk["op_path"].str.contains("masked_fill", regex=False)] \
        if tk is not None and len(tk) else None
    return HiddenCopy(
        variant=base, inplace=inplace, copies=_refs(base, mc), op_path=mc["op_path"].iloc[0] if len(mc) else "",
        copy_us=float(mc["dur_us"].sum()), copy_share_pct=100.0 * float(mc["dur_us"].sum()) / float(kt["dur_us"].sum()),
        events=len(kt), inplace_events=None if ik is None else len(ik),
        inplace_memcpys=None if ik is None else int((ik["kind"] == "memcpy").sum()),
        gpu_only_ms=ga.median if ga else None, inplace_gpu_only_ms=gb.median if gb else None,
        saved_ms=saved, saved_pct=100.0 * saved / (a_ms if by_sums else ga.median)
        if saved is not None and ga.median else None,
        settled=None if not (ga and gb) or by_sums else not calls.overlaps(ga, gb),
        method=a.gpu_only_method if a else None, saved_by_sums=by_sums,
        train_copies=_refs(inplace, tc, "train") if tc is not None else (),
        train_op_path=tc["op_path"].iloc[0] if tc is not None and len(tc) else "",
        units=tuple((g.rounds, g.n) for g in (ga, gb) if g))


# --------------------------------------------------------------------------- the math backend


@dataclass(frozen=True)
class MathBackend:
    variant: str
    events: int
    total_us: float  # the GPU events of one call, added up
    float32: tuple[KernelRef, ...]  # kernels whose op was given float32 tensors and no 16-bit one
    float32_share_pct: float
    upcasts: tuple[KernelRef, ...]  # conversions between the 16-bit dtype and float32
    off_tensor_cores: tuple[KernelRef, ...]  # matrix products the name rule puts off the tensor cores
    mask_build: tuple[KernelRef, ...]  # kernels that build the causal mask in the call
    mask_apply: tuple[KernelRef, ...]  # the in-place add of the mask as a float bias
    safe_softmax: tuple[KernelRef, ...]  # _safe_softmax's kernels other than the softmax itself
    safe_softmax_share_pct: float
    softmax_us: float
    slowdown: float | None  # GPU-only time over the in-place baseline's (the article: about 3.7x)
    gemm_share_pct: float = 0.0  # the float32 matrix products' share of the call's GPU time
    gemm_tensor_pipe_pct: float | None = None  # the highest tensor-pipe use Nsight Compute measured in them

    @property
    def holds(self) -> bool:
        """The article's three reasons are all in the trace."""
        return bool(self.float32) and bool(self.mask_build) and bool(self.safe_softmax)


def math_backend(ls: tables.LoadedSet, rows: dict[str, calls.Timed] | None = None) -> MathBackend | None:
    name = _pinned("math")
    kt = _kt(ls, name) if name else None
    if kt is None:
        return None
    rows = rows if rows is not None else timed_rows(ls)
    total = float(kt["dur_us"].sum())
    k = kt[kt["kind"] == "kernel"]
    f32 = k[k["input_types"].map(kernel_rules.is_float32_only) |
            (k["category"].eq("matrix product") & k["name"].str.contains(r"f32|sgemm", case=False, regex=True))]
    ups = k[k["op_path"].str.contains("aten::to", regex=False) & k["launched_by"].eq("aten::copy_")]
    mm = k[k["category"].isin(kernel_rules.TC_CATEGORIES)]
    off = mm[mm["name"].map(lambda n: kernel_rules.tensor_core_verdict(n) is False)]
    in_safe = kt["op_path"].str.contains(SAFE_SOFTMAX_OP, regex=False)
    safe = kt[in_safe & ~kt["launched_by"].eq("aten::_softmax")]
    soft = kt[kt["launched_by"].eq("aten::_softmax")]
    build = findings.mask_events(kt)  # the one definition the Findings page uses too
    apply = kt[kt["launched_by"].eq("aten::add_") & ~in_safe]
    a, base = rows.get(name), rows.get(variant_role("inplace"))
    slow = a.gpu_only.median / base.gpu_only.median if a and base and a.gpu_only and base.gpu_only else None
    run = ls.rs.run(name, "inference")
    pipes = [c["tensor_pipe_pct"] for c in (_counters(ls, run, int(i)) for i in off["index"])
             if c and c.get("tensor_pipe_pct") is not None]
    return MathBackend(name, len(kt), total, _refs(name, f32), 100.0 * float(f32["dur_us"].sum()) / total,
                       _refs(name, ups), _refs(name, off), _refs(name, build), _refs(name, apply), _refs(name, safe),
                       100.0 * float(safe["dur_us"].sum()) / total, float(soft["dur_us"].sum()), slow,
                       100.0 * float(off["dur_us"].sum()) / total, max(pipes) if pipes else None)


# --------------------------------------------------------------------------- the efficient kernel


@dataclass(frozen=True)
class EfficientKernel:
    variant: str
    kernel: KernelRef
    name: str
    decoded: kernel_names.DecodedName
    gpu_arch: int | None
    kernels: int  # kernels a call (memsets and memcpys aside)
    tensor_cores: bool | None

    @property
    def holds(self) -> bool:
        """One fused kernel on the tensor cores."""
        return self.kernels == 1 and self.tensor_cores is True


def _pinned(backend: str) -> str | None:
    """The variant that pins SDPA to this backend (gen/model/variants.py), if one does."""
    return next((v.name for v in VARIANTS.values() if v.backend == backend), None)


def _main_pinned(ls, backend: str) -> tuple[str, pd.DataFrame, pd.Series] | None:
    """(variant, its kernel table, its main kernel) for the variant pinned to backend."""
    name = _pinned(backend)
    got = _main(ls, name) if name else None
    return None if got is None else (name, *got)


def _main(ls, variant) -> tuple[pd.DataFrame, pd.Series] | None:
    kt = _kt(ls, variant)
    mk = tables.main_kernel(kt) if kt is not None else None
    return None if mk is None else (kt, mk)


def efficient_kernel(ls: tables.LoadedSet) -> EfficientKernel | None:
    got = _main_pinned(ls, "efficient")
    if got is None:
        return None
    name, kt, mk = got
    return EfficientKernel(name, _refs(name, kt[kt["index"] == mk["index"]])[0], mk["name"],
                           kernel_names.decode(mk["name"]),
                           kernel_names.gpu_arch(ls.environment.compute_capability),
                           int((kt["kind"] == "kernel").sum()), kernel_rules.tensor_core_verdict(mk["name"]))


# --------------------------------------------------------------------------- flash: occupancy as a trade


# The report's one FLOP count (gen.analysis.flops), named next to every TFLOP/s.
FLOP_CONVENTION = flops.FLOP_CONVENTION


def attention_flops(p: schema.Point) -> float:
    """FLOPs of one forward at a point, under the report's count."""
    return flops.flops(p)


@dataclass(frozen=True)
class FlashOccupancy:
    variant: str
    kernel: KernelRef
    threads: int | None
    registers: int | None  # a thread
    shared_memory: int | None  # bytes a block
    reported_pct: float | None  # the profiler's estimate
    theoretical_pct: float | None
    limiter: str | None  # what caps blocks per SM
    blocks_per_sm: int | None
    limits: dict | None
    counters: dict | None  # Nsight Compute's (counters.COUNTER_FIELDS and bound), when the set has them
    block_m: int | None  # query rows a block keeps on chip (from the kernel's traits)
    block_n: int | None  # key/value rows a block loads at a time
    head_dim: int | None
    register_bytes: int | None  # a block's register file share
    score_matrix_bytes: float | None  # what a naive call writes to memory (bf16 scores, once)
    gpu_only_ms: float | None
    tflops: float | None
    ceiling_tflops: float | None  # the set's measured matmul ceiling (same convention: 2·M·N·K)
    method: str | None
    ceiling_mhz: float | None = None  # the SM clock the ceiling was measured at (scaling.matmul_clock)
    sm_clock_mhz: float | None = None  # the call's GPU-only window's SM clock
    ceiling_at_clock_tflops: float | None = None  # the ceiling scaled to that clock (scaling.matmul_at)

    @property
    def holds(self) -> bool:
        """Low occupancy set by the kernel's own resources, not by a failed estimate."""
        return self.theoretical_pct is not None and self.theoretical_pct < 50 and self.limiter in (
            "registers", "shared memory")


def _counters(ls, run: schema.VariantRun | None, index: int) -> dict | None:
    """Nsight Compute's counters of one kernel of a run (gen.analysis.counters), or None."""
    tr = ls.trace(run.mode, run.variant) if run is not None else None
    if run is None or tr is None:
        return None
    m = counters.for_run(ls, run.mode, run.variant)
    if not m.measured:
        return None
    r = next((r for r in m.rows if r["index"] == index and r["pairing"] != counters.Pairing.NO_COUNTERS), None)
    if r is None:
        return None
    return {k: (None if missing(r[k]) else r[k]) for k in [*counters.COUNTER_FIELDS, "bound"]}


def _ceiling_tflops(ls) -> float | None:
    """The measured matmul ceiling as every other page states it (scaling.ceilings)."""
    c = scaling.ceilings(ls)
    return c["matmul_tflops"] if c else None


def flash_occupancy(ls: tables.LoadedSet, rows: dict[str, calls.Timed] | None = None) -> FlashOccupancy | None:
    got = _main_pinned(ls, "flash")
    if got is None:
        return None
    name, kt, mk = got
    rows = rows if rows is not None else timed_rows(ls)
    env = ls.environment
    threads = None if missing(mk["threads_per_block"]) else int(mk["threads_per_block"])
    regs = None if missing(mk["registers_per_thread"]) else int(mk["registers_per_thread"])
    smem = None if missing(mk["shared_memory"]) else int(mk["shared_memory"])
    th = tables.theoretical_occupancy(threads or 0, regs, smem, env)
    run = ls.rs.run(name, "inference")
    d = kernel_names.decode(mk["name"])
    t = rows.get(name)
    point = run.point if run else None
    gpu = t.gpu_only.median if t and t.gpu_only else None
    return FlashOccupancy(
        variant=name, kernel=_refs(name, kt[kt["index"] == mk["index"]])[0], threads=threads, registers=regs,
        shared_memory=smem, reported_pct=None if missing(mk["occupancy_pct"]) else float(mk["occupancy_pct"]),
        theoretical_pct=th["theoretical_pct"] if th else None, limiter=th["limiter"] if th else None,
        blocks_per_sm=th["blocks_per_sm"] if th else None, limits=th["limits"] if th else None,
        counters=_counters(ls, run, int(mk["index"])),
        block_m=d.get("block_m"), block_n=d.get("block_n"), head_dim=d.get("head_dim"),
        register_bytes=regs * threads * 4 if regs and threads else None,
        score_matrix_bytes=(point.batch * point.q_heads * point.q_len * point.kv_len * BF16_BYTES) if point else None,
        gpu_only_ms=gpu, tflops=attention_flops(point) / (gpu * 1e-3) / 1e12 if point and gpu else None,
        ceiling_tflops=_ceiling_tflops(ls), method=t.gpu_only_method if t else None,
        **_ceiling_at_clock(ls, t.sm_clock_mhz if t and t.one_clock else None))  # rules.one_clock


def _ceiling_at_clock(ls, mhz: float | None) -> dict:
    """The matmul ceiling's clock, the call's, and the ceiling at the call's clock (a ceiling measured
    throttled sits below what the tensor cores give at a higher clock)."""
    c, cmhz = scaling.ceilings(ls), scaling.matmul_clock(ls)
    if not c or cmhz is None or missing(mhz) or not mhz:
        return {}
    return dict(ceiling_mhz=cmhz, sm_clock_mhz=mhz,
                ceiling_at_clock_tflops=scaling.matmul_at(c["matmul_tflops"], cmhz, mhz))


# --------------------------------------------------------------------------- cuDNN: cost moved to the host


@dataclass(frozen=True)
class CudnnCosts:
    variant: str
    kernel: KernelRef
    name: str
    arch: int | None
    gpu_arch: int | None
    instruction: str | None
    launch_api: str
    reported_pct: float | None
    shared_memory: int | None  # bytes a block of its main kernel
    grid_blocks: int | None  # blocks of its main kernel's grid
    threads: int | None  # threads a block
    sm_count: int | None
    memsets: tuple[KernelRef, ...]
    first_call_s: float | None  # its first forward in the capture's process
    first_in_process: bool | None  # no run before it in the capture's order ran a cuDNN kernel
    same_problem_first_s: dict  # variant -> s: later runs of the same mode on the same cuDNN kernel, first call
    train_first_call_s: float | None  # its first training step: new problems for cuDNN (the backward)
    others_first_call_s: dict  # variant -> s, the other fused SDPA backends
    others_train_first_call_s: dict  # variant -> s
    host_ms: float | None  # median host dispatch a call
    others_host_ms: dict  # variant -> ms
    transposes: dict  # variant -> transpose/permute ops in one call, fused SDPA backends
    # its first calls over the capture, each point with what it paid and what was new (gen.analysis.first_calls;
    # not a dict by KV length, which would keep one problem a length)
    first_calls: tuple = ()

    @property
    def persistent(self) -> bool | None:
        """One block per SM: the kernel loops over its tiles (kernel_names.path)."""
        return kernel_names.path(self.name, (self.grid_blocks,) if self.grid_blocks else None,
                                 self.sm_count).persistent

    @property
    def new_problem_cost(self) -> bool | None:
        """A new problem costs cuDNN a host-side setup again once it is loaded: its first training
        step (the backward, a new problem) took over rules.FIRST_CALL_RATIO times the other fused
        backends' first steps, in a process where cuDNN had run before. None when the set cannot tell."""
        firsts = [s for s in self.others_train_first_call_s.values() if s is not None]
        if self.train_first_call_s is None or not firsts or not self.first_in_process:
            return None
        return self.train_first_call_s > rules.FIRST_CALL_RATIO * max(firsts)

    @property
    def holds(self) -> bool | None:
        """The article's lesson, cost moved to the host per problem: as far as the set can tell."""
        return self.new_problem_cost


def _transposes(ls, variant) -> int | None:
    tr = ls.trace("inference", variant)
    if tr is None or not tr.forwards:
        return None
    return sum(1 for c in tr.forwards[0].cpu if c.name in TRANSPOSE_OPS)


def _uses_cudnn(ls, run: schema.VariantRun) -> bool:
    """A run whose profiled call launched a cuDNN kernel."""
    if run.status != schema.Status.OK or not run.trace:
        return False
    tr = ls.trace(run.mode, run.variant) if run.scenario == "article" else ls.sweep_trace(run.trace)
    return bool(tr and tr.forwards and any(g.name.startswith("cudnn") for g in tr.forwards[0].gpu))


def cudnn_costs(ls: tables.LoadedSet, rows: dict[str, calls.Timed] | None = None) -> CudnnCosts | None:
    got = _main_pinned(ls, "cudnn")
    if got is None:
        return None
    name, kt, mk = got
    rows = rows if rows is not None else timed_rows(ls)
    fused = [v.name for v in VARIANTS.values() if v.backend in ("flash", "efficient", "cudnn")]
    others = [v for v in fused if v != name and ls.rs.run(v, "inference")]

    def first(v, mode="inference"):
        r = ls.rs.run(v, mode)
        return r.first_call_s if r and r.status == schema.Status.OK else None

    def host(v):
        t = rows.get(v)
        return t.host.median if t and t.host else None

    # The runs in the order capture made them, one process (gen.capture.runner appends as it goes).
    order = ls.rs.runs
    me = ls.rs.run(name, "inference")
    at = order.index(me) if me in order else None
    before = order[:at] if at is not None else []
    first_in = None if at is None else not any(_uses_cudnn(ls, r) for r in before)
    same = {r.variant: r.first_call_s for r in order[at + 1:] if at is not None and r.mode == "inference"
            and r.scenario == "article" and r.variant in rows and rows[r.variant].main_kernel == mk["name"]
            and r.first_call_s is not None} if at is not None else {}
    grid = mk["blocks"]
    return CudnnCosts(
        variant=name, kernel=_refs(name, kt[kt["index"] == mk["index"]])[0], name=mk["name"],
        arch=kernel_names.arch(mk["name"]), gpu_arch=kernel_names.gpu_arch(ls.environment.compute_capability),
        instruction=kernel_names.decode(mk["name"]).get("instruction"), launch_api=mk["launch_api"],
        reported_pct=None if missing(mk["occupancy_pct"]) else float(mk["occupancy_pct"]),
        shared_memory=None if missing(mk["shared_memory"]) else int(mk["shared_memory"]),
        grid_blocks=None if missing(grid) else int(grid),
        threads=None if missing(mk["threads_per_block"]) else int(mk["threads_per_block"]),
        sm_count=ls.environment.sm_count,
        memsets=_refs(name, _memsets(kt)), first_call_s=first(name), first_in_process=first_in,
        same_problem_first_s=same, train_first_call_s=first(name, "train"),
        others_first_call_s={v: first(v) for v in others},
        others_train_first_call_s={v: first(v, "train") for v in others},
        first_calls=first_calls.first_calls(ls, name),
        host_ms=host(name), others_host_ms={v: host(v) for v in others},
        transposes={v: _transposes(ls, v) for v in [name, *others]})
