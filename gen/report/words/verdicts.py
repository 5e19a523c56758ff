"""A set's verdicts (gen.analysis.verdicts.Verdict) -> `VerdictWords`: the headline of the first
screen and its supporting lines (ranking, clocks, the automatic choice, the host, noise)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from gen.analysis import paged, rules, unmeasured, verdicts
from gen.analysis.calls import interval_gap
from gen.model.variants import VARIANTS
from gen.report.words import orders as orders_words
from gen.report.words import round_by_round, shared_rounds
from gen.report.words.as_run import equal_clock_line, ranked_by
from gen.report.words.batch_grid import grid_clause
from gen.report.words.common import (
    REASON_CHARS,
    apart_words,
    backend,
    bare_reason,
    clock_time,
    gib_units,
    intervals,
    join_and,
    label,
    ordinal,
    per_call,
    reason_first_clause,
    short_reason,
    times,
    us,
    variant_backend,
)
from gen.report.words.host import HOST_SPEED_LEAD, host_ratio_words, loop_lead
from gen.report.words.kernels import prose_kernel
from gen.report.words.methodology import BASIS, TIMING
from gen.report.words.why import why_line


@dataclass(frozen=True)
class VerdictWords:
    headline: str  # the answer in one sentence: which attention here, by how much
    lines: tuple[str, ...]  # the automatic choice, the host, why, noise: one sentence each
    fastest: str  # the fastest variant's name, for tests and links
    fastest_label: str
    fastest_ms: float  # its ranking time (ms)
    basis: str
    reasons: tuple[tuple[str, str], ...] = ()  # (who, reason) in full where a line shortened it


def noise(n: verdicts.Noise) -> str:
    if n.kind == "few":
        return f"{label(n.variant)}'s {TIMING[n.timing]} time rests on {n.n} sample{'s' if n.n != 1 else ''}"
    return f"{label(n.variant)}'s {TIMING[n.timing]} time spreads {n.iqr_pct:.0f}% (IQR over median)"


def noises(ns) -> str:
    """Noise flags grouped: the thin timings together, then the spread ones."""
    ns = list(ns)
    out = []
    few = [n for n in ns if n.kind == "few"]
    for timing in dict.fromkeys(n.timing for n in few):
        group = [n for n in few if n.timing == timing]
        counts = sorted({n.n for n in group})
        samples = f"{join_and(str(c) for c in counts)} sample{'s' if counts != [1] else ''}"
        if len(group) == 1:
            out.append(f"the {TIMING[timing]} time of {label(group[0].variant)} rests on {samples}")
        else:
            out.append(f"the {TIMING[timing]} times of {join_and(label(n.variant) for n in group)} rest on "
                       f"{samples} each")
    spread = [n for n in ns if n.kind == "spread"]
    if spread:
        out.append(join_and(f"{label(n.variant)}'s {TIMING[n.timing]} time spreads {n.iqr_pct:.0f}%" for n in spread)
                   + f" (IQR over median; the report calls a timing noisy above {rules.NOISY_IQR_PCT:.0f}%)")
    return "; ".join(out)


def _auto_line(v: verdicts.Verdict) -> str:
    a = v.auto
    text = f"With no backend pinned, scaled_dot_product_attention ran {backend(a.backend or a.kernel_backend)}"
    if a.same_as:
        text += f", the same {'kernels' if a.kernel else 'backend'} as {join_and(label(x) for x in a.same_as)}"
    elif a.kernel:
        text += f" ({prose_kernel(a.kernel)})"
    if a.is_fastest:
        text += ": the fastest choice here"
    elif a.ratio:
        text += f": {times(a.ratio)} the fastest's time"
    if a.contradicted and a.expected_refused:
        # the expected backend could not run this call: no hypothesis to contradict
        text += f" ({backend(a.expected_backend)} could not run this call: {a.expected_refused.rstrip('.')})"
    elif a.contradicted:
        hyp = VARIANTS[a.variant].expect if a.variant in VARIANTS else None
        said = f": {hyp.why}" if hyp is not None and hyp.why else ""
        text += (f", not {backend(a.expected_backend)}, which the report's hypothesis for this variant (set before "
                 f"measuring) expected{said}")
    return text + "."


def _host_line(v: verdicts.Verdict) -> str:
    f, h = v.fastest, v.host
    parts, shrinks = [], True
    for x in h.closed:
        t = v.row(x)
        gpu_ratio = t.gpu_only.median / f.gpu_only.median
        shrinks = shrinks and t.eager.median / f.eager.median < gpu_ratio
        parts.append(f"{label(x)} takes {us(t.eager.median)} per eager call against {us(f.eager.median)} for "
                     f"{label(f.variant)} (on the GPU alone {label(x)} takes {times(gpu_ratio)} "
                     f"{label(f.variant)}'s time)")
    if h.changes_answer:
        top = v.row(h.eager_fastest)
        head = (f"For short calls in a Python loop the answer changes: {label(top.variant)} is the fastest per "
                f"eager call ({us(top.eager.median)})")
        return head + (": " + "; ".join(parts) if parts else "") + ". The host's cost per call decides it."
    lead = leaders_eager(v)
    eager_ci = all(x is not None and not math.isnan(x.ci_lo)
                   for x in (f.eager, *(v.row(y).eager for y in (*h.closed, *v.near))))
    loop = "In a Python loop (eager calls" + ("" if eager_ci else ", no interval recorded") + ")"
    eager_level = intervals(*(t.eager for t in (f, *(v.row(y) for y in (*h.closed, *v.near))) if t is not None))
    if lead and not host_can_hide(v):  # no call brought up by the host's cost to name
        return f"{loop}, {lead}."
    if lead:  # the pair compared is the tied leaders first, then the call the loop brings up to them
        return (f"For short calls in a Python loop, {lead}" + (
            "; a call behind them on the GPU alone comes within the eager spread of the fastest (their "
            f"{eager_level} overlap): " + "; ".join(parts) if parts else "") + ".")
    if shrinks and not host_can_hide(v):
        # no host time recorded, or calls far longer than the time a loop spends off the GPU
        return (f"{loop} " + "; ".join(parts)
                + f"; {label(f.variant)} still leads: the eager and GPU-only times come from "
                "other windows, and the host's cost was not what set them apart.")
    if shrinks:
        return ("For short calls in a Python loop the lead shrinks into the spread: " + "; ".join(parts)
                + ". The host's cost per call hides the GPU's difference.")
    if not host_can_hide(v):
        # calls far longer than a loop spends off the GPU: the eager spread is the windows', not the host's
        return (f"{loop} " + "; ".join(parts) + f": their eager times' {eager_level} overlap, but a loop spends "
                "little beside calls this long off the GPU, so the host's cost is not what brings them together.")
    return ("For short calls in a Python loop the order holds but cannot be told apart: " + "; ".join(parts)
            + f". The eager times spread so widely that their {eager_level} overlap.")


def host_can_hide(v: verdicts.Verdict) -> bool:
    """The host's cost can hide a GPU difference only where the scenario recorded the host (a host time or its
    cost a call) and a loop spends at least that difference off the GPU: the fastest's eager time over its
    GPU-only time covers every closed call's GPU-only lead (never for millisecond calls whose
    eager time runs under the GPU difference)."""
    f = v.fastest
    if f.eager is None or f.gpu_only is None or (f.host is None and f.host_cost_ms is None):
        return False
    off_gpu = f.eager.median - f.gpu_only.median
    return all(v.row(x).gpu_only.median - f.gpu_only.median <= off_gpu for x in v.host.closed)


def leaders_eager(v: verdicts.Verdict) -> str | None:
    """Where calls share the first rank (within noise), their eager times side by side: the comparison a reader
    expects before any call further down."""
    f = v.fastest
    near = [v.row(x) for x in v.near if v.row(x) is not None and v.row(x).eager is not None]
    if not near or f.eager is None:
        return None
    return (f"the calls sharing the first rank take, per eager call: {label(f.variant)} {us(f.eager.median)}, "
            + join_and(f"{label(t.variant)} {us(t.eager.median)}" for t in near))


def cut_reasons(v: verdicts.Verdict) -> tuple[tuple[str, str], ...]:
    """The reasons the verdict's lines shortened, in full as the capture recorded them, each once
    with the variants it is about: (who, reason)."""
    said = [(x.variant, x.reason, variant_backend(x.variant)) for x in v.not_measured]
    if v.sweep_gaps:
        said.append((v.sweep_gaps[0].variant, v.sweep_gaps[0].reason, None))
    by: dict[str, list[str]] = {}
    for x, reason, backend_name in said:
        if reason and len(reason_first_clause(reason, backend_name)) > REASON_CHARS:
            by.setdefault(reason, []).append(label(x))
    # the capture's own sizes in GiB, as PyTorch's beside them
    return tuple((join_and(list(dict.fromkeys(xs))), gib_units(reason)) for reason, xs in by.items())


def not_measured_line(v: verdicts.Verdict) -> str | None:
    """The variants of the scenario that were not measured, with their reasons, grouped by reason."""
    if not v.not_measured:
        return None
    by: dict = {}
    for n in v.not_measured:
        x, status, reason = n.variant, n.status, n.reason
        by.setdefault(f"{status}: {short_reason(reason, variant_backend(x))}", []).append(label(x))
    parts = "; ".join(f"{join_and(xs)} ({why})" for why, xs in by.items())
    kind = v.missing_kind
    lead = f"No {kind.upper()} variant was measured" if kind else "Not measured here"
    return f"{lead}: {parts}."


def paged_line(v: verdicts.Verdict) -> str | None:
    """For a paged KV cache: the answer from the variants that page; SDPA reads a contiguous cache only."""
    p = paged.paged_facts(v)
    if p is None:
        return None
    if not p.ranked:
        return ("For a paged KV cache: no variant that pages was measured here ("
                + "; ".join(f"{label(n.variant)}: {short_reason(n.reason, variant_backend(n.variant))}"
                            for n in p.not_measured)
                + "); SDPA reads a contiguous cache only, so this set gives no paged answer.")
    best, best_ms = p.ranked[0]
    text = (f"For a paged KV cache, call {label(best)}: {us(best_ms)} {per_call(v.mode)}, the fastest of the calls "
            f"measured that read pages ({join_and(label(x) for x, _ in p.ranked)}); SDPA reads a contiguous cache only")
    if p.contiguous is not None and p.contiguous_ms:
        # paging's own cost: the same call without a page table, with the interval
        # rule that ranks any two calls: a cost is never said beside overlapping intervals without its noise
        a, b = v.spread(v.row(best)), v.spread(v.row(p.contiguous))
        text += (f". Against the same call on a contiguous cache ({label(p.contiguous)}, {us(p.contiguous_ms)}), "
                 f"paging costs {times(best_ms / p.contiguous_ms)}, "
                 + (apart_words(interval_gap(a, b), min(a.median, b.median), a, b) if p.contiguous_apart
                    else f"within noise (the {intervals(a, b)} overlap)"))
        if p.fastest not in (best, p.contiguous) and p.fastest_ms > 0:
            text += f"; the fastest call on a contiguous cache is {label(p.fastest)} ({us(p.fastest_ms)})"
    elif best != p.fastest and best_ms > 0:
        # no same call on a contiguous cache measured: the gap to the fastest is another kernel's, not paging's
        text += (f". Against the fastest call on a contiguous cache ({label(p.fastest)}, {us(p.fastest_ms)}), "
                 f"a paged cache costs {times(best_ms / p.fastest_ms)}")
        rows = (v.row(best), v.row(p.fastest))
        pair = tuple(v.spread(r) for r in rows) if None not in rows else None
        if pair is None:
            pass  # a row not in the verdict's: no interval to name
        elif best in v.same_kernel_apart or v.rank(best) not in (None, 1):
            text += f", the {intervals(*pair)} apart"
        elif v.rank(best) == 1:
            text += f", within noise (the {intervals(*pair)} overlap)"
        twin = VARIANTS[best].contiguous if best in VARIANTS else None
        text += (f" (another kernel: the same call on a contiguous cache, {label(twin)}, was not measured here, so "
                 "paging's own cost is not)" if twin else " (another kernel: paging's own cost is not measured here)")
    return text + "."


def _batch_runs(b) -> str:
    clock = getattr(b, "clock_mhz", None)
    return (f"the dynamic-lengths scenario's decode runs, the median GPU-only time over {b.lengths} KV lengths of "
            f"{b.kv_lo:,}–{b.kv_hi:,} tokens, " + (f"at {clock:.0f} MHz" if clock else "clock not recorded"))


def batch_sentence(b) -> str:
    """A decode verdict's batch, and the order of its calls at the dynamic-lengths runs' batch (verdicts.Verdict.
    other_batch), fastest first down to the verdict's calls."""
    (top, top_ms), rest = b.order[0], b.order[1:]
    text = (f"This holds at batch {b.at_batch}: at batch {b.batch} ({_batch_runs(b)}) the fastest is {label(top)}, "
            f"{us(top_ms)} a call")
    if rest:
        text += ", and against it " + join_and(
            f"{label(x)} takes {times(ms / top_ms, 1)}" + (f" ({us(ms)})" if x in b.named else "") if i == 0 else
            f"{label(x)} {times(ms / top_ms, 1)}" + (f" ({us(ms)})" if x in b.named else "")
            for i, (x, ms) in enumerate(rest))
    grid = grid_clause(b)  # where a call's traced grid under-fills the GPU, what the set shows of its batch
    return text + (f". {grid[0].upper()}{grid[1:]}" if grid else "")


def _against(mss: list[float], top_ms: float) -> str:
    """"45.1 and 45.9 against 10.8 µs": the unit once where all read in the same one."""
    words = [us(ms) for ms in (*mss, top_ms)]
    unit = {w.split(" ")[1] for w in words}
    if len(unit) == 1:
        return f"{join_and(w.split(' ')[0] for w in words[:-1])} against {words[-1]}"
    return f"{join_and(words[:-1])} against {words[-1]}"


def batch_note(b, who: tuple[str, ...] = ()) -> list[str]:
    """The same, short, for a workload named in the decision's headline, as clauses (one a sentence there): the
    calls `who` (the verdict's first rank by default) against the fastest at the other batch, then the calls
    between."""
    (top, top_ms), rest = b.order[0], b.order[1:]
    who = tuple(x for x in (who or b.named) if x != top and any(x == y for y, _ in rest))
    mine = [(x, ms) for x, ms in rest if x in who]
    clock = getattr(b, "clock_mhz", None)
    runs = (f"at batch {b.batch}, in the dynamic-lengths decode runs at {b.kv_lo:,}–{b.kv_hi:,} KV tokens ("
            + (f"at {clock:.0f} MHz" if clock else "clock not recorded") + ")")
    if not mine:
        return [f"{runs}, {label(top)} is the fastest, {us(top_ms)}"]
    between = [(x, ms) for x, ms in rest if x not in who]
    grid = grid_clause(b, who)
    return [f"{runs}, {join_and(label(x) for x, _ in mine)} {'takes' if len(mine) == 1 else 'take'} "
            f"{join_and(times(ms / top_ms, 1) for _, ms in mine)} the GPU-only time of {label(top)}, "
            f"{_against([ms for _, ms in mine], top_ms)}",
            *([", ".join(f"{label(x)} {times(ms / top_ms, 1)}" for x, ms in between)] if between else []),
            *([grid] if grid else [])]


def fa4_missing_line(missing: list[str]) -> str | None:
    """The decision box's line where a set measured no FA4 path: its rankings are of the calls measured."""
    if not missing:
        return None
    return (f"Not measured in this set: {join_and(label(x) for x in missing)} ({unmeasured.ABSENT_REASON}); every "
            "ranking here is of the calls measured, and its fastest the fastest of those.")


def _sweep_gaps_line(v: verdicts.Verdict) -> list[str]:
    """Where ranked rows come from the profiled runs but the sweep at the same point skipped them."""
    if not v.sweep_gaps:
        return []
    return [f"{join_and(label(x.variant) for x in v.sweep_gaps)}: from the profiled run at this point; the sweep at "
            f"the same point did not measure {'it' if len(v.sweep_gaps) == 1 else 'them'} "
            f"({short_reason(v.sweep_gaps[0].reason)}), so the scaling page has no such row."]


def _headline(v: verdicts.Verdict) -> str:
    f = v.fastest
    fs = v.spread(f)
    # Where FA4 was not measured the ranking is of those measured, and says so (issue 32)
    here = "of those measured here" if unmeasured.fa4_missing(v.not_measured) else "here"
    if v.unrankable:
        firsts = [x for x, r in v.rank_of_ if r == 1]
        spreads = sorted(p for _, p in v.unrankable)
        span = f"{spreads[0]:.0f}%" if len(spreads) == 1 else f"{spreads[0]:.0f}–{spreads[-1]:.0f}%"
        return (f"The times here cannot rank {join_and(label(x) for x in firsts)}: "
                f"{'its' if len(v.unrankable) == 1 else 'their'} {TIMING[v.basis]} times spread {span} (IQR over "
                f"median, past the {rules.CANNOT_RANK_IQR_PCT:.0f}% at which a median says little); the medians read "
                + join_and(f"{us(v.spread(v.row(x)).median)} for {label(x)}" for x in firsts)
                + (f", and their {intervals(*(v.spread(v.row(x)) for x in firsts))} overlap" if len(firsts) > 1
                   else ""))
    flips = order_flips_clause(v)
    if flips:
        head = flips
    elif v.near:
        times_ = (f"{us(fs.median)} {per_call(v.mode)} {BASIS[v.basis]} for {label(f.variant)} against "
                  + join_and(f"{us(v.spread(v.row(x)).median)} for {label(x)}" for x in v.near))
        told = [o for o in v.orders if orders_words.telling(o)]
        # more than one pair's orders in one sentence: each names its counterpart
        than = len(told) > 1
        if v.undecided():
            # the as-run intervals are apart, but another order puts the other call ahead (rules.lead_decided): no
            # winner as run, and the orders beside it
            head = (f"{join_and(label(x) for x in (f.variant, *v.near))} share the first rank {here}, not decided: "
                    f"{times_}; " + "; ".join(orders_words.brief(o, label, than=than) for o in told)
                    + ". The report names no winner (the rule in the methodology)")
        elif any(orders_words.kernels_behind(o) for o in told):
            head = _behind_by_kernels(v, told, times_, here, than)
        else:
            head = (f"{join_and(label(x) for x in (f.variant, *v.near))} are the fastest {here}, within noise: "
                    f"{times_}; the {intervals(fs, *(v.spread(v.row(x)) for x in v.near))} of their medians overlap, "
                    "so they share the first rank"
                    + "".join(f"; {orders_words.brief(o, label, noise=False, than=than)}" for o in told)
                    + "".join(f"; {p}" for p in (round_by_round.paired(o, label) for o in v.orders) if p))
        err = orders_words.errors([f, *(v.row(x) for x in v.near)], label)
        if err:
            head += f"; {err}"
    elif v.field_of_one:
        only = join_and(label(x) for x in (f.variant, *v.same_kernel))
        head = (f"A field of one: {only} {'is the only call' if not v.same_kernel else 'the only kernels'} "
                f"measured here, {us(fs.median)} {per_call(v.mode)} {BASIS[v.basis]}, with nothing to rank it against")
    else:
        if v.same_kernel:
            twins = join_and(f"{us(v.spread(v.row(x)).median)} for {label(x)}" for x in v.same_kernel)
            head = (f"{join_and(label(x) for x in (f.variant, *v.same_kernel))} tie for the fastest {here} (the same "
                    f"kernels: one rank): {us(fs.median)} {per_call(v.mode)} {BASIS[v.basis]} for {label(f.variant)}, "
                    f"{twins}")
        else:
            head = f"{label(f.variant)} is the fastest {here}: {us(fs.median)} {per_call(v.mode)} {BASIS[v.basis]}"
        head = _runner_up(v, head, here)
    named = {v.fastest.variant, *v.same_kernel, *v.near, *((v.runner_up.variant,) if v.runner_up else ())}
    gaps = [x.variant for x in v.sweep_gaps if x.variant in named]
    if gaps:
        head += (f" ({join_and(label(x) for x in gaps)}: from the profiled run at this point, which the sweep "
                 "skipped)")
    return head


def _runner_up(v: verdicts.Verdict, head: str, here: str) -> str:
    """The headline with the lead over the runner-up: its as-run ratio and the noise it stands beyond, or, where the
    kernel sums decide it, led by them (_by_kernel_sum)."""
    if v.runner_up is None:
        return head
    fs, rs = v.spread(v.fastest), v.spread(v.runner_up)
    o = verdicts.orders(v.fastest, v.runner_up, v.basis)
    if o.decided_by_kernel_sum and not v.same_kernel:
        return _by_kernel_sum(v, o, here)
    if shared_rounds.decided_in_rounds(v.fastest, v.runner_up) and o.decided:  # the times the runs', the order the
        # sweep's shared rounds' (one value per quantity, each record labelled)
        return (head + f", {times(v.ratio)} ahead of {label(v.runner_up.variant)} ({us(rs.median)}) "
                f"{shared_rounds.runs_pair(v.fastest, v.runner_up, label)}; "
                + shared_rounds.evidence(v.fastest, v.runner_up, o, label))
    if o.decided_by_rounds:  # the unpaired intervals need not be apart (rules.paired_leads)
        return (head + f", {times(v.ratio)} ahead of {label(v.runner_up.variant)} ({us(rs.median)}) as run; the "
                f"{intervals(fs, rs)} of the two medians " + ("do not overlap" if o.apart else "overlap")
                + f", but {round_by_round.paired(o, label)}")
    # two calls timed apart: the ratio is as run, which the sentence goes on to say decides nothing
    apart = " as run" if o.timed_apart else ""
    return (head + f", {times(v.ratio)} ahead of {label(v.runner_up.variant)} ({us(rs.median)}){apart}; the "
            f"{intervals(fs, rs)} of the two medians do not overlap" + _beyond_noise(o))


def _beyond_noise(o) -> str:
    """The noise of identical kernels a named lead stands beyond (rules.lead_decided; orders_words.noise_clause), ""
    where not known."""
    if o.timed_apart:  # neither the noise line nor the orientations apply (rules.lead_decided)
        return f"; {orders_words.timed_apart(o, label)}"
    if o.noise is None:
        return ""
    both = (f", ahead in both round orientations ({times(o.forward)} forward, {times(o.reverse)} reversed)"
            if o.oriented else "")
    return f"{both}, and {orders_words.noise_clause(o, label)}"


def _behind_by_kernels(v: verdicts.Verdict, told, times_: str, here: str, than: bool) -> str:
    """Calls within noise as run of which the kernel sums put one behind (Orders.kernels_leader), in the first screen's
    words (orders_words.BEHIND_BY_KERNELS): "X and Y are within noise as run here but Y is
    behind by kernel sum: ...; X 1.20× faster by kernel sum (...)", never "they share the first rank"; the calls no sum
    puts behind share it."""
    f = v.fastest
    led = [o for o in told if orders_words.kernels_behind(o)]
    behind = list(dict.fromkeys(orders_words.kernels_behind(o) for o in led))
    text = (f"{join_and(label(x) for x in (f.variant, *v.near))} are within noise as run {here}, but "
            f"{join_and(label(x) for x in behind)} {'are' if len(behind) > 1 else 'is'} behind by kernel sum: "
            f"{times_}; the "
            f"{intervals(v.spread(f), *(v.spread(v.row(x)) for x in v.near))} of their medians overlap; "
            + "; ".join(orders_words.kernels_ahead_detail(o, label, than) for o in led)
            + "".join(f"; {orders_words.brief(o, label, noise=False, than=than)}" for o in told if o not in led))
    sharing = [x for x in (f.variant, *v.near) if x not in behind]
    return text + (f"; {join_and(label(x) for x in sharing)} share the first rank" if len(sharing) > 1 else "")


def _by_kernel_sum(v: verdicts.Verdict, o, here: str) -> str:
    """A lead the kernel sums decide (Orders.decided_by_kernel_sum), led by them, the measure that decides: the as-run
    medians after it, with the orientation that falls within the noise line."""
    f, r = v.fastest, v.runner_up
    fs, rs = v.spread(f), v.spread(r)
    sums = orders_words.sums(o, True, label)
    return (f"{label(f.variant)} is the fastest {here} by kernel sum, the measure that decides it: "
            f"{times(o.kernel_sum)} ahead of {label(r.variant)}" + (f" ({sums})" if sums else "")
            + f"; as run, {us(fs.median)} {per_call(v.mode)} {BASIS[v.basis]} against {us(rs.median)}, "
            f"{times(v.ratio)}" + (f" ({times(o.forward)} in the forward rounds, {times(o.reverse)} in the reversed)"
                                   if o.oriented else "")
            + f", the {intervals(fs, rs)} of the two medians apart; {orders_words.noise_clause(o, label)}")


def order_flips_clause(v: verdicts.Verdict) -> str | None:
    """Where another scenario timed this point with the fastest and a call sharing its rank the other way round
    (Verdict.order_flips), no ranking between them: the as-run order flips between windows."""
    f = v.fastest
    pairs = [x for x in v.order_flips if x.first == f.variant and x.second in v.near]
    if not pairs:
        return None
    fs = v.spread(f)
    others = [v.row(x.second) for x in pairs]
    by_other: dict[str, dict[str, float]] = {}
    for x in pairs:
        by_other.setdefault(x.scenario, {})[f.variant] = x.first_ms
        by_other[x.scenario][x.second] = x.second_ms
    there = "; ".join(f"the {other} scenario timed the same point: " + join_and(
        f"{label(x)} {us(ms)}" for x, ms in sorted(times_.items(), key=lambda kv: kv[1]))
        for other, times_ in by_other.items())
    return (f"{join_and(label(x) for x in (f.variant, *dict.fromkeys(t.variant for t in others)))} cannot be ranked at "
            f"this point: the as-run order flips between the windows that timed it. Here {label(f.variant)} took "
            f"{us(fs.median)} "
            f"{per_call(v.mode)} {BASIS[v.basis]} against "
            + join_and(f"{us(v.spread(t).median)} for {label(t.variant)}" for t in others)
            + f"; {there}")


def other_calls_line(v: verdicts.Verdict) -> list[str]:
    """Where a merged set's ranked rows come from two capture calls: which, and what that means."""
    if not v.other_calls:
        return []
    later = sorted({x.captured for x in v.other_calls})
    return [f"Measured in two capture calls: {join_and(label(x.variant) for x in v.other_calls)} in a later call "
            f"(started {join_and(clock_time(w) for w in later)}, merged into this set by gen import --merge), "
            f"the other rows in the set's own call (started {clock_time(v.own_call)}). Comparisons between "
            "the two cross processes: each row's clock and power are its own (the conditions table), and the "
            "first compiled variant there paid that process's first compile."]


def same_kernel_line(v: verdicts.Verdict) -> str:
    """Calls that run kernels of the same names within noise of each other share a rank; where their times are
    apart (the 95% intervals do not overlap) they run the same kernel class with other arguments: no tie, and the
    measured ratio."""
    f = v.fastest
    fs = v.spread(f)
    out = []
    if v.same_kernel:
        auto = v.auto.variant if v.auto is not None else None
        if auto in (f.variant, *v.same_kernel):
            out.append(f"{join_and(label(x) for x in (f.variant, *v.same_kernel))} run the same kernels: one rank, "
                       "a tie.")
        else:
            # kernels of the same names tie only where the times agree: a name does not show the arguments, so the
            # tie is said with the intervals that allow it
            out.append(f"{join_and(label(x) for x in (f.variant, *v.same_kernel))} run kernels of the same names and "
                       f"their {intervals(fs, *(v.spread(v.row(x)) for x in v.same_kernel))} overlap: one rank, "
                       "within noise.")
    for x in v.same_kernel_apart:
        s = v.spread(v.row(x))
        # the tie test and the gap are the scenario page's too (calls.overlaps, calls.interval_gap)
        out.append(f"{label(x)} runs kernels of the same names as {label(f.variant)}, with other arguments (a "
                   f"kernel's name does not show them, a page table say): it takes {times(s.median / fs.median)} "
                   f"{label(f.variant)}'s time, {apart_words(interval_gap(fs, s), fs.median, fs, s)}, so it ranks "
                   f"{ordinal(v.rank(x))}, not tied.")
    return " ".join(out)


def other_dtype_line(v: verdicts.Verdict) -> str | None:
    """Where a scenario's calls that set their own inputs' dtype (FP8) lose to a call that does not: the fastest
    is no FP8 kernel, and which FP8 calls were not measured."""
    def own(x: str) -> str | None:
        return VARIANTS[x].dtype if x in VARIANTS else None

    if own(v.fastest.variant):
        return None
    ran = [t for t in v.rows if own(t.variant)]
    unmeasured_ = [(x.variant, x.reason) for x in v.not_measured if own(x.variant)]
    if not ran and not unmeasured_:
        return None
    text = f"The fastest here, {label(v.fastest.variant)}, is not an FP8 call"
    if ran:
        text += ("; no FP8 kernel measured here beats it: " + join_and(
            f"{label(t.variant)} {us(v.spread(t).median)}" for t in ran if v.spread(t) is not None))
    if unmeasured_:
        text += "; not measured: " + join_and(f"{label(x)} ({bare_reason(short_reason(r))})" if r else label(x)
                                           for x, r in unmeasured_)
    return text + "."


def verdict(v: verdicts.Verdict, launched: dict | None = None) -> VerdictWords:
    """The verdict's headline and lines; `launched`: its main kernels' launches (gen.analysis.launches), which
    the "Why" line states where the set has them."""
    f = v.fastest
    fs = v.spread(f)
    head = _headline(v)
    if v.other_batch is not None:
        head += ". " + batch_sentence(v.other_batch)
    lines = [ranked_by(v)] if v.method else []
    clock = equal_clock_line(v)
    if clock:
        lines.append(clock)
    gaps = not_measured_line(v)
    if gaps:
        lines.insert(0, gaps)
    lines += other_calls_line(v)
    lines += _sweep_gaps_line(v)
    lines += [x for x in (paged_line(v),) if x]
    lines += [x for x in (other_dtype_line(v),) if x]
    if v.same_kernel or v.same_kernel_apart:
        lines.append(same_kernel_line(v))
    if v.auto is not None:
        lines.append(_auto_line(v))
    lines += _host_lines(v)
    why = why_line(v, launched)
    if why:
        lines.append(why)
    if v.noise:
        lines.append(f"Read with care: {noises(v.noise)}.")
    return VerdictWords(head + ".", tuple(lines), f.variant, label(f.variant), fs.median, v.basis, cut_reasons(v))


def _host_lines(v: verdicts.Verdict) -> list[str]:
    """The verdict's host lines: the eager ranking where it matters, the host-bound variants, the host's noise."""
    lines = []
    if v.host is not None and v.host.matters:
        lines.append(_host_line(v))
    if v.host_bound:
        line = f"Host-bound (see the rule in the methodology): {join_and(label(x) for x in v.host_bound)}"
        if v.loop_ms is not None and v.ratio is not None:  # the lead a loop gets is not the GPU's
            # a runner-up within noise of the fastest ties it on the GPU: no "leads by 1.01×"
            line += ". " + loop_lead(label(v.fastest.variant), label(v.runner_up.variant), v.loop_ms, v.ratio,
                                     tie=v.runner_up.variant in v.near)
        lines.append(line + ".")
    # the host-bound calls beside those within noise, so the call a verdict names host-bound has its host figures
    if shown := [x for x in v.ranking if x in v.host_noise or x in v.host_bound]:
        parts = []
        for x in shown:
            t = v.row(x)
            ratio = host_ratio_words(t.eager_over_gpu_only, t.eager_ratio_ci, t.host_noise_why, t.host_cost_ms,
                                     t.gpu_only.median if t.gpu_only else None, t.host_ref_ms,
                                     t.host.median if t.host and t.host.n else None)
            parts.append(f"{label(x)}: {ratio}")
        lines.append(f"{HOST_SPEED_LEAD}: {'. '.join(parts)}.")
    return lines


def point_label(p) -> str:
    """A point in a few words for a title: "batch 8 · 16 heads · 1024 tokens · head dim 64"."""
    if p is None:
        return ""
    heads = f"{p.q_heads} heads" if p.kv_heads == p.q_heads else f"{p.q_heads} query / {p.kv_heads} KV heads"
    length = f"{p.kv_len} tokens" if p.q_len == p.kv_len else f"{p.q_len} query × {p.kv_len} cached tokens"
    return f"batch {p.batch} · {heads} · {length} · head dim {p.head_dim}" + (f" · window {p.window}" if p.window
                                                                              else "")


def at_verdict_point(v: verdicts.Verdict, point, mode: str) -> str:
    """A scenario page's opening: the verdict's point, the one the home's row and the set page
    answer for, with the verdict's own headline there."""
    what = "training steps" if mode == "train" else "a forward pass"
    return (f"At the verdict's point, {point_label(point)} ({what}; the point the home and the set page answer for): "
            f"{verdict(v).headline}")

