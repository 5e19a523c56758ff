"""The decision a reader takes from one measured set: which attention call to make, and why, as facts.

Takes: a loaded measured set (gen.analysis.tables) and its verdicts
(gen.analysis.verdicts). Gives `advice(ls) -> Advice | None`, made by rules from
the data (thresholds in gen.analysis.rules, "advice"):

- the default call: SDPA with no backend pinned, where it ranks first (alone,
  tied with the pinned variant that runs its very kernels, or within noise of
  the fastest) in every scenario and mode the set ranks; per scenario and mode,
  the backend it picked and the pinned variant it ties (`Pick`);
- exceptions: the scenarios where another call is decidedly faster (its interval
  apart, by at least rules.ADVICE_MIN_GAIN), with the factor, the work each
  does where the mask explains it (a sliding window that SDPA gets as a dense
  mask, so its kernels score every pair, against the pairs inside the window),
  and the other call's one-time compile;
- start-up: the one-time cost of the default call's backend, the first call of
  that backend in the process (schema 3 marks it; older sets: the first run in
  capture order that runs its kernels), when at least rules.STARTUP_NOTE_S;
- host: whether the default call, at the article's shape in a Python loop, is
  host-bound or within noise of it (host_rules.host_bound_outcome).
- determinism: each backend's deterministic step against its plain one
  (gen.analysis.determinism).

Where the data says otherwise (SDPA unpinned slower than a pinned backend or
another call), the default becomes the fastest call and every sentence follows.
No words here: gen.report.words.decision words an Advice.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from gen.analysis import (
    batch_call,
    calls,
    compiles,
    dynamic,
    first_calls,
    host_rules,
    leads,
    length_cost,
    mask_cost,
    named_calls,
    recompiles,
    rules,
    scenarios,
    sweep_turns,
    tables,
    verdicts,
)
from gen.analysis.behind_at import Behind, behind_at
from gen.analysis.between import Between, BetweenLoop
from gen.analysis.determinism import Determinism, DeterministicLead, determinism_costs, deterministic_leads
from gen.analysis.length_cost import LengthCost
from gen.analysis.named_calls import HostCall, LoopCall
from gen.analysis.unmeasured import NotMeasured
from gen.analysis.values import missing, variant_role
from gen.model import schema
from gen.model.scenarios import ARTICLE
from gen.model.variants import VARIANTS


@dataclass(frozen=True)
class Pick:
    """The default call in one scenario and mode: what it ran and how it stands."""

    scenario: str
    mode: str
    backend: str | None  # the SDPA backend it ran (aten op, else the kernel's name)
    twin: str | None  # the pinned variant running the same kernels: a tie
    outcome: str  # "fastest" (rank 1: alone or tied on kernels), "within noise", "slower"
    ratio: float | None  # its time over the fastest's
    fastest: str  # the scenario's fastest variant
    # Within noise: the other calls sharing the first rank with it (the fastest and the variants whose
    # intervals reach it, less itself and its kernel twins)
    within: tuple[str, ...] = ()
    # Each of `within` against it by the three orders (verdicts.Orders, the one ahead as run first), and the rows of
    # it and `within` (their output errors, where their inputs differ)
    orders: tuple = ()
    rows: tuple = ()
    # A decode verdict's standing holds at its batch: the dynamic-lengths runs' order at another (verdicts.Verdict.
    # other_batch), or None
    other_batch: object = None
    # First ("fastest") where the kernel sums decide the lead over the runner-up (Orders.sums_decide), not the as-run
    # times: the first screen says so
    by_sums: bool = False
    # Decode at the dynamic-lengths runs' batch: the call to make there instead (gen.analysis.batch_call), or None
    batch_call: object = None
    # the measure `ratio` is by where the default is slower: the one that decides the order (leads.Orders.deciding)
    ratio_by: str = leads.AS_RUN
    # Where a Python loop of eager calls changes the verdict's answer (verdicts.HostChange.changes_answer) to another
    # call than this one: that call, its eager median and this call's, or None
    loop_call: LoopCall | None = None
    # Where the call's gain over SDPA unpinned on the GPU is under rules.ADVICE_MIN_GAIN and an eager loop's call is
    # SDPA unpinned (loop_call): that GPU gain. The default's row must say the workload is no reason to switch
    # ("decode at batch 8" under FlashAttention-4 at 1.03x, SDPA 2.80x faster in a loop)
    loop_keeps: float | None = None


@dataclass(frozen=True)
class Exception_:
    """A scenario where another call is decidedly faster than the default."""

    scenario: str
    mode: str
    variant: str  # the call to make there
    ratio: float  # the default's time over it
    kv_len: int | None
    window: int | None
    mask: str | None  # schema.Mask of the verdict's point
    dense_mask: bool  # the default call got the mask as a dense boolean attn_mask (it scores every pair)
    pairs_scored: float | None  # (query, key) pairs the default's kernels compute, per batch and head
    pairs_needed: float | None  # pairs inside the mask (our FLOP convention)
    flops_needed: float | None  # FLOPs of the work the mask asks for (scenarios.flops)
    flops_dense: float | None  # FLOPs of every pair
    compile_s: float | None  # its one-time compile (first call), where it compiles
    q_len: int | None = None  # the verdict point's queries where fewer than its keys (a chunk, a decode step)
    compile_merged: bool = False  # that first call was measured by a later capture call merged into the set
    compile_ahead: bool = False  # that first call was a side process's, before the timings (gen.capture.precompile)
    # Where the call takes other inputs than the default (FP8 against bf16): both errors against float64
    # at the verdict's point and the error of rounding the inputs alone (the variant's fact).
    dtype: str | None = None
    error: float | None = None
    default_error: float | None = None
    input_rounding_error: float | None = None
    # Where the default got the mask as a dense attn_mask: the other calls that take the mask's structure
    # (ranked between the exception's call and the default).
    between: tuple[Between, ...] = ()
    forward_only: bool = False  # the scenario measured no training step: the ratio is of a forward pass
    mask_build_s: float | None = None  # the call's block mask build (a fact it measured at the verdict's point)
    call_ms: float | None = None  # the call's own time there (the ranking time), beside that build
    # the measure `ratio` is by: the one that decides the order (leads.Orders.deciding: as run, or kernel sum, where
    # the as-run order decides nothing)
    ratio_by: str = leads.AS_RUN
    # Sweep points of the scenario where the default is decidedly faster than this call (intervals apart): the
    # exception holds at its point, not there
    reversed_at: tuple[sweep_turns.ReversedAt, ...] = ()
    reversed_head_dim: int | None = None  # reversed_at's (the verdict point's) head dim, where several are swept
    # reversed_at's pairs' orders (leads.Orders, the default first), one a point in its order: where the as-run
    # clocks ran past rules.CLOCK_GAP_PCT the words give the kernel sums beside
    reversed_orders: tuple = ()
    # the scenario's other sweep points (same head dim) where this call too is decidedly faster than the default, and
    # those where neither is: "at 1k only" was said where it led at 256 and 512 too and 2k tied
    held_at: tuple[sweep_turns.Size, ...] = ()
    tied_at: tuple[sweep_turns.Size, ...] = ()
    other_dims: tuple = ()  # the two calls at every other head dim swept (sweep_turns.OtherDim)
    # Where this call and the gain's baseline (SDPA with no backend pinned) are the same unpinned SDPA call and only the
    # baseline got the point's mask as a dense boolean attn_mask: the backend the baseline then ran ("" where not
    # known), so the gain is the mask argument's, not another kernel's; None elsewhere
    mask_arg_backend: str | None = None
    # Its standing: Orders against each call of its first rank (Verdict.orders), ...
    shares: tuple = ()
    by_sums: object = None  # where the kernel sums decide its first place, its Orders against the runner-up
    between_apart: tuple[str, ...] = ()  # the `between` calls not timed in its rounds (calls.same_rounds False)
    # its Orders against each `between` call (this call first): a call timed apart is ranked by the measure that
    # decides the pair (Orders.deciding), its kernel sums where the as-run order decides nothing
    between_orders: tuple = ()
    # the `between` calls its verdict puts within noise of it (sharing its first rank: Verdict.near), whose ratio is
    # an order as run and no more
    between_noise: tuple[str, ...] = ()
    # the `between` calls that are host-bound, so a rank by GPU time is said beside what an eager loop on this host
    # pays (SDPA on nested jagged tensors: 1.23x varlen_attn's GPU time, 4.86x its eager loop, about 6 ms a call on
    # the host)
    between_loop: tuple[BetweenLoop, ...] = ()
    # SDPA unpinned, PyTorch's own call, kept where it decidedly leads a pinned default by less than the bar
    keeps_default: bool = False
    # the call's BlockMask build against the fastest ranked call that needs none (mask_cost.MaskCost), or None; where
    # `alternative` is set, the alternative's build against this call
    mask_cost: object = None
    # packed documents: the mask call sharing the first rank that this call, needing no mask, is named in place of
    # (mask_cost.MASKLESS_WHERE_SHARED); None elsewhere
    alternative: str | None = None
    # the Orders of the mask call (first) and the call that needs none, where mask_cost has both: the alternative and
    # this call, or this call and mask_cost.other (its kernel sums said beside its as-run lead)
    mask_orders: object = None
    loop_ms: tuple[float, float] | None = None  # a host-bound call: its and the default's eager medians
    # its Orders against the default (this call first): the as-run windows' clocks and the kernel sums beside an
    # as-run ratio (FP8's 1.43x at a higher clock, 1.39x by kernel sum)
    against: object = None


@dataclass(frozen=True)
class LengthsPaid:
    """What a variant's dynamic-lengths run paid in one phase (gen.analysis.dynamic): once at its first lengths, then
    per new length."""

    phase: str
    warmup_ms: float | None  # paid once at its first lengths
    warmup_lengths: int  # how many lengths that took
    per_length_ms: float | None  # what each new length cost after that


@dataclass(frozen=True)
class HostLoop:
    """A forward scenario where a loop of the default call clearly waited for the host (Advice.loops)."""

    scenario: str
    ratio: float  # its eager over GPU-only time
    ratio_ci: tuple[float, float]  # that ratio's interval
    outcome: str | None  # the host-bound outcome there
    host_cost_ms: float | None  # the host's cost of a call
    gpu_ms: float | None  # the GPU-only time


@dataclass(frozen=True)
class Startup:
    variant: str  # the run that paid it
    backend: str | None
    first_call_s: float
    later_first_call_s: float | None  # the first call at a new shape once the backend is loaded
    later_variant: str | None
    in_process: bool | None  # schema 3: first call of this backend in the process
    # the variant's dynamic-lengths runs, where the set has any: "ok" where one measured new lengths, else the
    # status of those that did not (a compile per new length is then not measured)
    lengths_status: str | None = None
    lengths: tuple[LengthsPaid, ...] = ()  # where they measured new lengths, per phase
    # Where its dynamic-lengths runs compiled again at their first length: what differed from the set's earlier run
    # nearest in configuration (gen.analysis.recompiles)
    recompiled: tuple = ()
    first_calls: tuple = ()  # the variant's first calls over the capture (gen.analysis.first_calls)
    # a call compiled per configuration: its first calls that compiled, over the set (gen.analysis.compiles.Spans)
    compiles: object = None


@dataclass(frozen=True)
class OtherDtype:
    """A scenario whose calls take other inputs (FP8) than the default, a call at the scenario's own dtype."""

    scenario: str
    dtype: str | None  # the default's own dtype, else the scenario's
    measured: tuple[str, ...]  # those calls measured there
    not_measured: tuple[NotMeasured, ...]  # those not, with why


@dataclass(frozen=True)
class Advice:
    set_name: str
    device: str
    gpu: str | None
    cpu: str | None
    torch: str | None
    basis: str  # the ranking time: gpu_only, or eager/host on a set without a GPU
    default: str  # the variant to call by default
    default_is_auto: bool
    picks: tuple[Pick, ...]
    exceptions: tuple[Exception_, ...]
    startup: Startup | None
    host_outcome: str | None  # the default call's host-bound outcome at the article's forward
    host_ratio: float | None  # its eager over GPU-only time there
    host_ratio_ci: tuple[float, float] | None = None  # that ratio by the intervals of both medians
    host_cost_ms: float | None = None  # the host's own cost of a call there (host_rules.HOST_COST_QUANTILE)
    host_median_ms: float | None = None  # the median of the host's cost of a call there
    host_gpu_ms: float | None = None  # its GPU-only time there
    host_why: str | None = None  # why within noise (host_rules.host_bound_why, or "same kernels")
    host_ref_ms: float | None = None  # the host's reference call there (the host's speed, apart from the kernel)
    # Where the default is another call but an exception keeps or names SDPA unpinned: its own start-up (the backend it
    # picks, cuDNN's set-up at each new kind of problem), which the default's does not say
    auto_startup: Startup | None = None
    # Other forward scenarios where a loop of the default call clearly waited (the lower end of its
    # eager over GPU-only ratio at or past host_rules.HOST_BOUND_EAGER_RATIO)
    loops: tuple[HostLoop, ...] = ()
    # Where an exception names another call than the default in inference: that call's eager over GPU-only time at
    # the verdict's point, so the host line says whose loop waited
    host_calls: tuple[HostCall, ...] = ()
    determinism: tuple[Determinism, ...] = ()  # each backend under torch.use_deterministic_algorithms(True)
    det_leads: tuple[DeterministicLead, ...] = ()  # where a plain call leads deterministic ones
    lengths: LengthCost | None = None  # where the decision runs cuDNN: its cost per new length
    # Sweep points past the verdicts' where another call is decidedly faster than the default (its interval
    # apart): the default's claims must name them.
    behind_at: tuple[Behind, ...] = ()
    # Scenarios whose calls take other inputs (FP8) where the default is a call at the scenario's own dtype
    other_dtype: tuple[OtherDtype, ...] = ()


def _verdicts(ls: tables.LoadedSet) -> list[verdicts.Verdict]:
    out = []
    for scenario in verdicts.scenarios(ls):
        for mode in schema.Mode:
            v = verdicts.verdict(ls, scenario, mode)
            if v is not None:
                out.append(v)
    return out


def _pick(v: verdicts.Verdict, variant: str) -> Pick | None:
    t = v.row(variant)
    if t is None or v.field_of_one:
        return None  # a field of one: nothing was measured against it, so it picks nothing there
    rank = v.rank(variant)
    tied = rank == 1 and (variant == v.fastest.variant or variant in v.same_kernel)
    # Where another kernel's interval reaches the fastest's, which of the two leads by its median is chance
    # (two captures minutes apart swap them: benchmarks/verdict_repeat.md): both are within noise.
    outcome = ("slower" if rank != 1 else "within noise" if not tied or v.near else "fastest")
    fs, ts = v.spread(v.fastest), v.spread(t)
    ratio = ts.median / fs.median if fs and ts and fs.median else None
    ratio_by = leads.AS_RUN
    if outcome == "slower":  # behind: by the measure that decides the order
        ratio, ratio_by = verdicts.orders(v.fastest, t, v.basis).deciding
    twin = backend = None
    if v.auto is not None and v.auto.variant == variant:
        twin = v.auto.same_as[0] if v.auto.same_as else None
        backend = v.auto.backend or v.auto.kernel_backend
    within = tuple(x for x in dict.fromkeys((v.fastest.variant, *v.near)) if x != variant and x not in v.same_kernel
                   ) if outcome == "within noise" else ()
    def pair(x: str) -> verdicts.Orders:
        o = v.row(x)
        first = v.spread(o) is not None and ts is not None and v.spread(o).median <= ts.median
        return verdicts.orders(o, t, v.basis) if first else verdicts.orders(t, o, v.basis)
    by_sums = (outcome == "fastest" and variant == v.fastest.variant and v.runner_up is not None
               and verdicts.orders(t, v.runner_up, v.basis).sums_decide)
    return Pick(v.scenario, v.mode, backend, twin, outcome, ratio, v.fastest.variant, within,
                tuple(pair(x) for x in within if v.row(x) is not None), (t, *(v.row(x) for x in within)),
                v.other_batch, by_sums, ratio_by=ratio_by, loop_call=(loop := named_calls.loop_call(v, t)),
                loop_keeps=_loop_keeps(v, t, loop))


def clears_bar(gain: float) -> bool:
    """A call's gain over another of at least rules.ADVICE_MIN_GAIN: enough for What to call to name it (the bar the
    first screen sets a default's gains against)."""
    return gain >= rules.ADVICE_MIN_GAIN


def _loop_keeps(v: verdicts.Verdict, t, loop) -> float | None:
    """Pick.loop_keeps: `t`'s GPU gain over SDPA unpinned where it is under the bar and the eager loop's call is that
    SDPA; None elsewhere."""
    auto = v.row(variant_role("automatic"))
    if loop is None or auto is None or auto is t or loop.variant != auto.variant:
        return None
    sa, st = v.spread(auto), v.spread(t)
    gain = sa.median / st.median if sa and st and st.median else None
    return gain if gain is not None and gain < rules.ADVICE_MIN_GAIN else None


def _default(vs: list[verdicts.Verdict]) -> str | None:
    """SDPA with no backend pinned where it ranks first everywhere; else the variant ranked first
    in the most scenarios (ties with the automatic pick counted for it)."""
    auto = variant_role("automatic")
    ranked = [v for v in vs if v.row(auto) is not None]
    if ranked and all(v.rank(auto) == 1 for v in ranked):
        return auto
    score = Counter(t.variant for v in vs for t in v.rows if v.rank(t.variant) == 1)
    return max(score, key=lambda x: (score[x], x == auto)) if score else None


def _dense(ls: tables.LoadedSet, v: verdicts.Verdict, variant: str) -> dict:
    """What the mask makes the default call compute at the verdict's point, where SDPA gets the mask
    as a dense boolean attn_mask (any mask but causal on a square): every (query, key) pair."""
    p = calls.point_of(ls, v.scenario, v.mode)
    if p is None:
        return dict(kv_len=None, window=None, mask=None, dense_mask=False, pairs_scored=None, pairs_needed=None,
                    flops_needed=None, flops_dense=None, q_len=None)
    sdpa = variant.startswith("sdpa")
    causal_square = p.mask == schema.Mask.CAUSAL and p.q_len == p.kv_len
    # The extra work is the reason only where scoring every pair is decidedly more than the mask
    # asks for (rules.MASKED_WORK_RATIO): a chunk of queries at the end of a cache asks for almost all.
    dense = (sdpa and p.mask != schema.Mask.NONE and not causal_square
             and p.q_len * p.kv_len >= rules.MASKED_WORK_RATIO * scenarios.score_pairs(p))
    full = schema.Point(**{**p.__dict__, "mask": schema.Mask.NONE, "window": None, "docs": None})
    return dict(kv_len=p.kv_len, window=p.window, mask=p.mask, dense_mask=dense,
                q_len=p.q_len if p.q_len < p.kv_len else None,
                pairs_scored=float(p.q_len * p.kv_len) if dense else None,
                pairs_needed=scenarios.score_pairs(p), flops_needed=scenarios.flops(p, v.mode),
                flops_dense=scenarios.flops(full, v.mode))


def dense_mask_at(ls: tables.LoadedSet, v: verdicts.Verdict, variant: str) -> bool:
    """Whether `variant` got the verdict point's mask as a dense boolean attn_mask (it scores every pair)."""
    return bool(_dense(ls, v, variant).get("dense_mask"))


def _compile(ls: tables.LoadedSet, v: verdicts.Verdict, variant: str) -> dict:
    """compile_s, compile_merged and compile_ahead of the pick: its first call at the verdict's configuration, as
    every page gives it (gen.analysis.compiles.at_point)."""
    c = compiles.at_point(ls, v.scenario, v.mode, variant)
    if c is None:
        return dict(compile_s=None)
    return dict(compile_s=c.seconds, compile_merged=c.merged, compile_ahead=c.ahead)


def _accuracy(ls: tables.LoadedSet, v: verdicts.Verdict, variant: str, default: str) -> dict:
    """The pick's and the default's errors where the pick declares its own inputs' dtype (FP8)."""
    rec = {n: s for n, s in verdicts.point_records(ls, v.scenario, v.mode).items() if s.status == schema.Status.OK}
    mine, theirs = rec.get(variant), rec.get(default)
    if mine is None or not mine.dtype or (theirs is not None and theirs.dtype == mine.dtype):
        return {}
    return dict(dtype=mine.dtype, error=mine.rel_error, default_error=theirs.rel_error if theirs else None,
                input_rounding_error=(mine.facts or {}).get("fp8_input_rounding_error"))


def _exceptions(ls: tables.LoadedSet, vs: list[verdicts.Verdict], default: str) -> tuple[Exception_, ...]:
    out = []
    for v in vs:
        t = v.row(default)
        if t is None or v.rank(default) == 1:
            continue
        f = v.fastest
        # the gain by the measure that decides the order, not the as-run one where that decides nothing
        ratio, ratio_by = verdicts.orders(f, t, v.basis).deciding
        if missing(ratio) or ratio < rules.ADVICE_MIN_GAIN:
            # The bar guards a switch away from SDPA unpinned, PyTorch's own call; a pinned default that call
            # decidedly leads here is that switch made for a slower call, so SDPA unpinned stays, at any ratio
            # (FA4 named at the article's shape, 1.18x slower)
            auto = v.row(variant_role("automatic"))
            if auto is None or auto is t or not verdicts.leads(auto, t, v.basis):
                continue
            f, keeps = auto, True
            ratio, ratio_by = verdicts.orders(f, t, v.basis).deciding
        else:
            keeps = False
        # packed documents: a maskless call sharing the first rank is named before a mask call (MASKLESS_WHERE_SHARED)
        alt = None
        if not keeps and (x := mask_cost.maskless_first(ls, v, lambda y, v=v: dense_mask_at(ls, v, y))) is not None:
            r2, by2 = verdicts.orders(v.row(x), t, v.basis).deciding
            if not missing(r2) and r2 >= rules.ADVICE_MIN_GAIN:  # it must pass the bar on its own
                alt, f, ratio, ratio_by = f.variant, v.row(x), r2, by2
        fs, ts = v.spread(f), v.spread(t)
        dense = _dense(ls, v, default)
        # the calls that rank between the exception's and the default, other kernels than the default's
        between = tuple((r.variant, v.spread(r).median / fs.median) for r in v.rows
                        if r.variant not in (f.variant, default, alt) and v.spread(r) is not None
                        and v.spread(r).median < ts.median and not (t.kernels and r.kernels == t.kernels)
                        and r.variant not in v.same_kernel)[:3] if dense.get("dense_mask") else ()
        trained = any(x.scenario == v.scenario and x.mode == schema.Mode.TRAIN for x in vs)
        out.append(Exception_(v.scenario, v.mode, f.variant, ratio, **dense,
                              **_compile(ls, v, f.variant),
                              **_accuracy(ls, v, f.variant, default),
                              between=tuple(Between(x, r) for x, r in between),
                              forward_only=v.mode == schema.Mode.INFERENCE and not trained,
                              mask_build_s=_mask_build(ls, v, f.variant), call_ms=fs.median,
                              **sweep_turns.turns(ls, v, f.variant, default), ratio_by=ratio_by,
                              reversed_head_dim=sweep_turns.head_dim_if_several(ls, v),
                              mask_arg_backend=named_calls.mask_arg(ls, v, f.variant),
                              # the named maskless call's standing is worded beside its alternative (mask_cost)
                              shares=() if alt else tuple(o for o in v.orders if f.variant in (o.first, o.second)),
                              by_sums=o1 if v.settled and (o1 := verdicts.first_pair(v)[0]) and o1.sums_decide
                              else None,
                              between_apart=tuple(x for x, _ in between if calls.same_rounds(f, v.row(x)) is False),
                              between_orders=tuple(verdicts.orders(f, v.row(x), v.basis) for x, _ in between),
                              between_noise=tuple(x for x, _ in between if x in v.near),
                              between_loop=tuple(BetweenLoop(x, lm, _host_median(v.row(x))) for x, _ in between
                                                 if (lm := calls.loop_ms(v.row(x), f)) is not None),
                              keeps_default=keeps, alternative=alt, loop_ms=calls.loop_ms(f, t),
                              mask_cost=(mc := mask_cost.mask_cost(ls, v, alt or f.variant,
                                                                   lambda x, v=v: dense_mask_at(ls, v, x))),
                              mask_orders=_mask_orders(v, f, alt, mc), against=verdicts.orders(f, t, v.basis)))
    return tuple(out)


def _host_median(t) -> float | None:
    return t.host.median if t.host is not None and t.host.n else None


def _mask_orders(v: verdicts.Verdict, f, alt: str | None, mc) -> object:
    """Exception_.mask_orders: the mask call first, the call that needs none second; None where there is no pair."""
    if alt:
        return verdicts.orders(v.row(alt), f, v.basis)
    other = v.row(mc.other) if mc is not None and mc.other is not None else None
    return verdicts.orders(f, other, v.basis) if other is not None else None


def _mask_build(ls: tables.LoadedSet, v: verdicts.Verdict, variant: str) -> float | None:
    """The block mask's build time the variant measured at the verdict's point (SweepPoint.facts), or None."""
    rec = verdicts.point_records(ls, v.scenario, v.mode).get(variant)
    x = rec.facts.get("block_mask_build_s") if rec is not None and rec.facts else None
    return float(x) if x is not None else None


def _startup(ls: tables.LoadedSet, vs: list[verdicts.Verdict], default: str) -> Startup | None:
    """The one-time cost of the default call's kernels: the first run, in capture order, that runs
    the same kernels as the default at the article's forward (or is the default), unless schema 3
    says it was not the process's first call of its backend."""
    v = next((v for v in vs if v.scenario == ARTICLE and v.mode == schema.Mode.INFERENCE), None)
    if v is None or v.row(default) is None:
        return None
    me = v.row(default)
    group = {t.variant for t in v.rows if t.variant == default or (me.kernels and t.kernels == me.kernels)}
    runs = [r for r in ls.rs.runs if r.scenario == v.scenario and r.mode == v.mode and r.variant in group
            and r.status == schema.Status.OK and r.first_call_s is not None]
    if not runs:
        return None
    known = [r for r in runs if r.first_in_process]
    first = known[0] if known else runs[0]
    later = next((r for r in runs if r is not first), None)
    if first.first_call_s < rules.STARTUP_NOTE_S:
        return None
    backend = v.auto.backend or v.auto.kernel_backend if v.auto is not None and v.auto.variant in group else None
    dyn = [d for d in getattr(ls.rs, "dynamic", None) or [] if d.variant == first.variant and not d.env]
    status = (schema.Status.OK if any(d.status == schema.Status.OK for d in dyn) else dyn[0].status) if dyn else None
    costs = tuple(LengthsPaid(f.phase, f.warmup_ms, f.warmup_lengths, f.first_overhead_ms)
                  for f in dynamic.runs(ls.rs, switched=False) if f.variant == first.variant and f.ok)
    return Startup(first.variant, backend, first.first_call_s, later.first_call_s if later else None,
                   later.variant if later else None, first.first_in_process, status, costs,
                   tuple(r for r in recompiles.recompiles(ls.rs) if r.variant == first.variant),
                   first_calls.first_calls(ls, first.variant), compiles.spans(ls, first.variant))


def _auto_startup(ls: tables.LoadedSet, vs: list[verdicts.Verdict], default: str,
                  exceptions: tuple[Exception_, ...]) -> Startup | None:
    """SDPA unpinned's start-up where What to call names it in an exception but defaults to another call: a reader
    told to call it pays its backend's set-up too (the older H100 set named SDPA for the article's
    shape and never said cuDNN's 0.38-1.79 s per new kind of problem)."""
    auto = variant_role("automatic")
    if default == auto or not any(e.variant == auto for e in exceptions):
        return None
    return _startup(ls, vs, auto)


def advice(ls: tables.LoadedSet) -> Advice | None:
    """The set's decision (see the module docstring); None for a reference set or one with nothing ranked.
    Cached on the set, as its verdicts are: its page, its decision and its scenario pages ask for it."""
    if not ls.measured:
        return None
    key = ("advice",)
    if key not in ls._tables:
        ls._tables[key] = _advice(ls)
    return ls._tables[key]


def _advice(ls: tables.LoadedSet) -> Advice | None:
    vs = _verdicts(ls)
    default = _default(vs)
    if default is None:
        return None
    picks = tuple(replace(p, batch_call=batch_call.batch_call(ls.rs, p.other_batch, default))
                  if p.other_batch is not None else p for p in (_pick(v, default) for v in vs) if p is not None)
    art = next((v for v in vs if v.scenario == ARTICLE and v.mode == schema.Mode.INFERENCE), None)
    row = art.row(default) if art is not None else None
    env = ls.environment
    exceptions = _exceptions(ls, vs, default)
    return Advice(
        set_name=ls.name, device=env.device, gpu=env.gpu_name, cpu=env.cpu, torch=env.torch,
        basis=vs[0].basis if vs else "gpu_only", default=default,
        default_is_auto=default == variant_role("automatic"), picks=picks,
        exceptions=exceptions, startup=_startup(ls, vs, default),
        auto_startup=_auto_startup(ls, vs, default, exceptions),
        host_outcome=row.host_bound_outcome if row is not None else None,
        host_ratio=row.eager_over_gpu_only if row is not None else None,
        host_ratio_ci=row.eager_ratio_ci if row is not None else None,
        host_cost_ms=row.host_cost_ms if row is not None else None,
        host_median_ms=row.host.median if row is not None and row.host and row.host.n else None,
        host_gpu_ms=row.gpu_only.median if row is not None and row.gpu_only else None,
        host_why=row.host_noise_why if row is not None else None,
        host_ref_ms=row.host_ref_ms if row is not None else None, determinism=determinism_costs(vs),
        det_leads=deterministic_leads(vs),
        loops=_loops(vs, default), host_calls=named_calls.host_calls(vs, exceptions),
        lengths=length_cost.cudnn_lengths(ls, vs, picks, exceptions, default),
        behind_at=behind_at(ls, vs, default, exceptions), other_dtype=_other_dtype(ls, vs, default))


def _other_dtype(ls: tables.LoadedSet, vs: list[verdicts.Verdict], default: str) -> tuple[OtherDtype, ...]:
    """Per verdict with calls that set their own inputs' dtype (FP8) unlike the default: which ran, which not."""
    mine = VARIANTS[default].dtype if default in VARIANTS else None
    out = []
    for v in vs:
        ran = tuple(t.variant for t in v.rows if t.variant in VARIANTS and VARIANTS[t.variant].dtype
                    and VARIANTS[t.variant].dtype != mine)
        missing_ = tuple(x for x in v.not_measured if x.variant in VARIANTS and VARIANTS[x.variant].dtype
                         and VARIANTS[x.variant].dtype != mine)
        if ran or missing_:
            rec = ls.outline.scenario(v.scenario)
            out.append(OtherDtype(v.scenario, mine or (rec.dtype if rec is not None else None), ran, missing_))
    return tuple(out)


def _loops(vs, default: str) -> tuple[HostLoop, ...]:
    out = []
    for v in vs:
        if v.scenario == ARTICLE or v.mode != schema.Mode.INFERENCE:
            continue
        r = v.row(default)
        ci = r.eager_ratio_ci if r is not None else None
        if ci is not None and ci[0] >= host_rules.HOST_BOUND_EAGER_RATIO:
            out.append(HostLoop(v.scenario, r.eager_over_gpu_only, ci, r.host_bound_outcome, r.host_cost_ms,
                                r.gpu_only.median if r.gpu_only else None))
    return tuple(out)
