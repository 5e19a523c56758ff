"""Why the fastest of a verdict wins, as a fact: the fastest's timed call against the runner-up's (and SDPA
flash's) -> a `Why` or None, read off their kernels, GPU events and counted FLOPs (gen.analysis.calls: `Timed`).
`reason(fastest, runner, others, gpu, point, sm_count)` gives it; gen.analysis.verdicts.decide calls it, and
gen.report.words.why says it.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import flops, kernel_names, rules
from gen.analysis.calls import Timed
from gen.model import schema
from gen.model.variants import VARIANTS


@dataclass(frozen=True)
class Rival:
    """A call the fastest is set against: its main kernel's full name and that kernel's µs in the profiled call."""

    variant: str
    kernel: str | None
    main_us: float | None


@dataclass(frozen=True)
class Why:
    """One reason the fastest wins, read off the kernels."""

    kind: str  # "native_arch": built for this GPU's architecture, rivals for an older one;
    #            "fewer_events": fewer GPU events a call than the runner-up;
    #            "dense_mask": the runner-up (SDPA) got the mask as a dense attn_mask and scores every
    #            (query, key) pair, the fastest only those the mask lets through
    gpu_arch: int | None
    fastest_kernel: str | None
    fastest_arch: int | None
    instruction: str | None  # a matrix instruction the name carries (wgmma, hmma, ffma)
    older: tuple[tuple[str, str, int], ...] = ()  # (variant, kernel, arch) of rivals built for an older one
    fastest_events: int | None = None
    runner_up_events: int | None = None
    point: schema.Point | None = None  # dense_mask: the point, and its FLOPs (gen.analysis.flops)
    dense_flops: float | None = None  # every (query, key) pair scored
    masked_flops: float | None = None  # the pairs the mask lets through
    runner_up_main_us: float | None = None  # the runner-up's main kernel in its profiled call
    runner_up_events_us: float | None = None  # all its GPU events in that call
    fastest_main_us: float | None = None  # the fastest's main kernel in its profiled call
    fastest_events_us: float | None = None  # all its GPU events in that call
    fastest_main_blocks: int | None = None  # thread blocks of the main kernels' grids, and the GPU's SMs
    runner_up_main_blocks: int | None = None
    sm_count: int | None = None
    compared: tuple[Rival, ...] = ()  # native_arch, main_kernel: the runner-up and SDPA flash where present


def _instruction(name: str | None) -> str | None:
    d = kernel_names.decode(name or "")
    return d.get("instruction")


def _dense_mask(fastest: Timed, runner: Timed | None, point: schema.Point | None, gpu: int | None) -> Why | None:
    """SDPA takes no window or other mask but square causal as a rule: capture passes it as a dense
    boolean attn_mask (gen.capture.modules.SDPAttention), so an SDPA runner-up scores every pair;
    named when that is at least rules.MASKED_WORK_RATIO times the work the mask lets through."""
    if point is None or runner is None or point.mask == schema.Mask.NONE:
        return None
    if point.mask == schema.Mask.CAUSAL and point.q_len == point.kv_len:
        return None  # is_causal: SDPA's kernels skip the masked half themselves
    kinds = {t.variant: VARIANTS[t.variant].kind if t.variant in VARIANTS else None for t in (fastest, runner)}
    if kinds[runner.variant] != "sdpa" or kinds[fastest.variant] == "sdpa":
        return None
    dense, inside = flops.dense_flops(point), flops.flops(point)
    if not inside or dense < rules.MASKED_WORK_RATIO * inside:
        return None
    return Why("dense_mask", gpu, fastest.main_short, fastest.main_arch, _instruction(fastest.main_kernel), (),
               fastest.events, runner.events, point, dense, inside, runner.main_us, runner.events_us)


def reason(fastest: Timed, runner: Timed | None, others: list[Timed], gpu: int | None,
           point: schema.Point | None = None, sm_count: int | None = None) -> Why | None:
    masked = _dense_mask(fastest, runner, point, gpu)
    if masked is not None:
        return masked
    fa = fastest.main_arch
    # Against the runner-up, and SDPA flash where it ran other kernels: never against the slowest rows.
    flash = next((t for t in others if t.variant == "sdpa_flash" and t.identity != fastest.identity), None)
    rivals = [t for t in dict.fromkeys(x for x in (runner, flash) if x is not None)]
    compared = tuple(Rival(t.variant, t.main_kernel, t.main_us) for t in rivals if t.main_kernel)
    older = tuple((t.variant, t.main_short, t.main_arch) for t in rivals
                  if t.main_arch is not None and fa is not None and t.main_arch < fa)
    if fa is not None and gpu is not None and fa == gpu and compared and all(
            t.main_arch is None or t.main_arch < fa for t in rivals):
        return Why("native_arch", gpu, fastest.main_short, fa, _instruction(fastest.main_kernel), older,
                   fastest.events, runner.events if runner else None, fastest_main_us=fastest.main_us,
                   compared=compared)
    if runner and fastest.events is not None and runner.events is not None and fastest.events < runner.events \
            and _events_explain(fastest, runner):
        return _against("fewer_events", fastest, runner, gpu, sm_count)
    if runner and fastest.main_us and runner.main_us and _kernels_explain(fastest, runner):
        return _against("main_kernel", fastest, runner, gpu, sm_count)
    return None


def _against(kind: str, fastest: Timed, runner: Timed, gpu: int | None, sm_count: int | None) -> Why:
    """A why that sets the fastest's kernels against the runner-up's: events, main kernels, grids."""
    return Why(kind, gpu, fastest.main_short, fastest.main_arch, _instruction(fastest.main_kernel), (),
               fastest.events, runner.events, runner_up_main_us=runner.main_us,
               runner_up_events_us=runner.events_us, fastest_main_us=fastest.main_us,
               fastest_events_us=fastest.events_us,
               compared=(Rival(runner.variant, runner.main_kernel, runner.main_us),),
               fastest_main_blocks=fastest.main_blocks, runner_up_main_blocks=runner.main_blocks, sm_count=sm_count)


def _kernels_explain(fastest: Timed, runner: Timed) -> bool:
    """The main kernels' difference is at least rules.EVENTS_REASON_SHARE of the gap between the two
    profiled calls: the attention kernels themselves are the reason."""
    diff = runner.main_us - fastest.main_us
    if diff <= 0:
        return False
    if None in (fastest.events_us, runner.events_us):
        return True
    gap = runner.events_us - fastest.events_us
    return gap > 0 and diff >= rules.EVENTS_REASON_SHARE * gap


def _events_explain(fastest: Timed, runner: Timed) -> bool:
    """The runner-up's events besides its main kernel take at least rules.EVENTS_REASON_SHARE of the gap
    between the two profiled calls; unknown durations (no trace) leave the count as the reason."""
    if None in (fastest.events_us, runner.events_us, runner.main_us):
        return True
    gap = runner.events_us - fastest.events_us
    extra = runner.events_us - runner.main_us
    return gap <= 0 or extra >= rules.EVENTS_REASON_SHARE * gap
