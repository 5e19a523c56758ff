"""The compare pages: why two sets' figures do not compare (gen.analysis.comparability.Issue), and
the clocks behind a ratio of ours to a published figure."""

from __future__ import annotations

from gen.analysis import comparability, rules
from gen.analysis.values import missing
from gen.report.words.common import join_and, us
from gen.report.words.verdicts import noises

DEFINITIONS = {
    "gpu_only_cuda_graph": "GPU-only time by CUDA-graph replay",
    "gpu_only_kernel_sum": "the GPU events of a profiled call added up",
    "published_cuda_time": "the CUDA time a profiler showed per call, as published",
    "host_dispatch": "host dispatch time with the GPU drained first",
    "published_cpu_time": "the profiler's CPU time per call, as published (the op's whole CPU time, not dispatch "
                          "alone)",
}


def issue(i: comparability.Issue) -> str:
    if i.kind == "shape":
        return (f"Different shapes: A measured {_point(i.a)}, B {_point(i.b)}. Times at different shapes are "
                "not comparable.")
    if i.kind == "dtype":
        return f"Different dtypes: A computed in {i.a}, B in {i.b}."
    if i.kind == "scenario":
        missing = join_and(s for s, has in (("A", i.a), ("B", i.b)) if not has)
        return f"{missing} {'has' if ' and ' not in missing else 'have'} no data for the {i.quantity} scenario."
    if i.kind == "definition":
        q = {"gpu": "GPU time", "cpu": "CPU time"}[i.quantity]
        return (f"{q} is defined differently: A shows {DEFINITIONS.get(i.a, i.a)}, B "
                f"{DEFINITIONS.get(i.b, i.b)}. Their ratio mixes two quantities.")
    if i.kind == "noisy":
        parts = [f"in {side}, {noises(ns)}" for side, ns in (("A", i.a), ("B", i.b)) if ns]
        return "Noisy or thin timings: " + "; ".join(parts) + "."
    return i.kind


def _point(p) -> str:
    s = f"batch {p.batch}, {p.q_heads} query heads"
    if p.kv_heads != p.q_heads:
        s += f" over {p.kv_heads} KV heads"
    s += f", {p.q_len} queries × {p.kv_len} keys, head dim {p.head_dim}, mask {p.mask}"
    return s + (f" (window {p.window})" if p.window else "")


def published_clock_note(rows: list[dict]) -> str:
    """Under a table of ours against published figures: the clock each side ran at, and what a ratio then
    holds. A source that states a fixed clock is compared at it; one that states none leaves the ratio mixing
    the kernels' speed with the clocks."""
    ours = sorted(r["ours_clock_mhz"] for r in rows if not missing(r.get("ours_clock_mhz")))
    stated = sorted({r["anchor_clock_mhz"] for r in rows if not missing(r.get("anchor_clock_mhz"))})
    span = (f"{ours[0]:.0f}–{ours[-1]:.0f} MHz" if ours[0] != ours[-1] else f"{ours[0]:.0f} MHz") if ours else None
    text = f"A's times ran at an SM clock of {span}, each row's in its column" if span else \
        "A's times carry no recorded SM clock"
    if stated:
        return (text + f"; the source states its clock fixed at {', '.join(f'{x:.0f}' for x in stated)} MHz, and "
                "each scenario page sets A's rate against it at that clock (A's rate × the stated clock / A's clock).")
    return (text + ". The source states no clock setting: a GPU at its power limit lowers its clock under load, "
            "and a kernel's time follows its clock, so these ratios mix the kernels' speed with the clocks each "
            "side ran at, which cannot be told apart here. The scenario pages set the burst and as-run times "
            "against the published ones by the clock rule.")


def host_note(ref_a: list[float], ref_b: list[float], ranked_a: int, ranked_b: int) -> str | None:
    """Under a comparison's host columns: each set's host speed (the reference call, a one-element add, median over
    the compared variants' records) and how many variants each set ranks (host ratios
    B/A of up to 2.55x stood without the hosts' speeds, and ranks moved because B ranks fewer variants)."""
    import statistics

    parts = []
    if ref_a and ref_b:
        a, b = statistics.median(ref_a), statistics.median(ref_b)
        parts.append(f"The hosts' speeds: their reference call (a one-element add, host-timed beside each host "
                     f"window) took {a * 1e3:.1f} µs on A and {b * 1e3:.1f} µs on B (median over the rows; "
                     f"{b / a:.2f}× B/A; row by row in the reference column), so a host time's B/A is the host's as "
                     "much as the call's.")
    if ranked_a and ranked_b and ranked_a != ranked_b:
        parts.append(f"Ranks in A are among {ranked_a} variants, in B among {ranked_b}: a rank moves with the "
                     "variants each set ran.")
    return " ".join(parts) or None


def as_run_apart(found, label, shown: int = 3) -> str | None:
    """gen.analysis.compare.as_run_apart in words: how many calls read apart as run
    while their kernel sums agree, the largest `shown` of them with their times, clocks and sums, and what it means:
    the as-run time depends on the rounds' order and clock, not on the kernel. None where there is none."""
    if not found:
        return None

    def one(r) -> str:
        p = r.point
        size = f"{p.kv_len:,} keys" if p.q_len != p.kv_len else f"{p.kv_len:,} tokens"
        clock = lambda mhz: f" at {mhz:.0f} MHz" if not missing(mhz) else ""  # noqa: E731
        return (f"{label(r.variant)} at {r.scenario}, {size}, head dim {p.head_dim}"
                + ("" if r.mode == "inference" else f", {r.mode}")
                + f": {us(r.a_ms)}{clock(r.a_mhz)} in A against {us(r.b_ms)}{clock(r.b_mhz)} in B, kernel sums "
                  f"{us(r.a_ks_ms)} and {us(r.b_ks_ms)}")
    n = len(found)
    return (f"{n} call{'s' if n != 1 else ''} at points both sets timed read more than {rules.ORIENTATION_GAP_PCT:g}% "
            f"apart as run while {'their' if n != 1 else 'its'} kernel sums agree within {rules.TIME_FLOOR_PCT:g}%: "
            "there the as-run time "
            "depends on the rounds' order and the clock they ran at, not on the kernel. "
            f"{'The largest: ' if n > shown else ''}" + "; ".join(one(r) for r in found[:shown]) + ".")


def clocks(rows: list[dict]) -> tuple[str | None, bool]:
    """The SM clocks behind the B/A ratios of a comparison's GPU-only times (else no clock
    stands beside any time): where every row's two clocks are one value, a line saying so and no column; else a
    line for the column of each side's clock, with the rows past the clock gate (rules.CLOCK_GAP_PCT) counted. (line,
    whether to show the column); (None, False) where no row has a GPU-only time with a clock."""
    timed = [r for r in rows if r.get("gpu_only_ms_a") is not None and r.get("gpu_only_ms_b") is not None]
    pairs = [(r.get("sm_clock_mhz_a"), r.get("sm_clock_mhz_b")) for r in timed]
    said = {round(x) for p in pairs for x in p if not missing(x)}
    if not said:
        return None, False
    window = "the mean SM clock NVML sampled during each GPU-only window"
    if len(said) == 1 and all(not missing(x) for p in pairs for x in p):
        return (f"Every row here ran at {next(iter(said))} MHz in both sets ({window}): each B/A is a ratio at one "
                "clock."), False
    bare = [side for side, i in (("A", 0), ("B", 1)) if all(missing(p[i]) for p in pairs)]
    if bare:  # a published set records no clock
        return (f"The SM clock column gives each side's clock, A → B ({window}); {bare[0]}'s times carry no "
                "recorded clock, so a B/A here mixes the kernels' speed with whatever clocks each side ran at."), True
    apart = sum(1 for r in timed if r.get("clocks_apart"))
    gate = f"more than {rules.CLOCK_GAP_PCT:g}% apart"
    flagged = (f" Marked ≠: {apart} row{'s' if apart != 1 else ''} whose two clocks are {gate} (the clock gate the "
               "verdicts read kernel sums by): there B/A mixes the kernels' speed with the clocks."
               if apart else f" No row's two clocks are {gate} (the clock gate the verdicts read kernel sums by).")
    return f"The SM clock column gives each side's clock, A → B ({window}).{flagged}", True

