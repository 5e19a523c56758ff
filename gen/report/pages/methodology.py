"""Partials of docs/methodology.md: each set's configuration and environment, the
report's thresholds quoted from gen.analysis.rules, and the figures its prose cites read
from the measured sets (gen.analysis.method), so the prose never restates a number.

Takes: a `site.Context`. Gives: `build(ctx)`, `skipped(ctx)` (the page listing
unreadable sets), `facts(ctx, ls)` (a set's figures, made with its own pages: gen.report.units).
Templates: methodology.md.j2, rules.md.j2, skipped.md.j2.
"""

from __future__ import annotations

from collections.abc import Iterator

from gen.analysis import first_calls, host_rules, kernel_rules, method, reach, rules
from gen.analysis.values import missing
from gen.model import graph_rule
from gen.report import format as fmt
from gen.report.site import Context, Page
from gen.report.words import host as host_words
from gen.report.words import mask_cost as mask_words
from gen.report.words import methodology as method_words

RULES_PARTIAL = f"{fmt.GENERATED}/.rules.md"


def rules_view(by_set=(), one_clock: method.OneClockSplit | None = None) -> dict:
    """The thresholds a reader should know, each as code holds it; `by_set`: (set title, units) of every median each
    shown set's verdicts rank (verdicts.ranked_units), whose levels the interval's row gives
    (method_words.ci_levels); `one_clock`: the shown sets' evidence for rules.one_clock."""
    levels = method_words.ci_levels([u for _, units, _ in by_set for u in units], by_set)
    return dict(eager_ratio=host_rules.HOST_BOUND_EAGER_RATIO, bound_pct=kernel_rules.BOUND_PCT,
                bound_band=kernel_rules.BOUND_BAND_PCT,
                estimate_gap_pct=kernel_rules.ESTIMATE_GAP_PCT, noisy_pct=rules.NOISY_IQR_PCT,
                host_bound_rule=method_words.HOST_BOUND_RULE,
                tensor_core_rule=method_words.TENSOR_CORE_RULE, copy_ops=sorted(kernel_rules.COPY_OPS),
                smem_default_kib=kernel_rules.SMEM_DEFAULT_LIMIT // 1024,
                cuda_only=sorted(rules.CUDA_ONLY_BACKENDS), min_samples=rules.MIN_SAMPLES,
                sub_us_memset=rules.SUB_US_MEMSET_US, verdict_rule=method_words.verdict_rule(levels),
                graph_above_eager_pct=graph_rule.GRAPH_ABOVE_EAGER_PCT,
                graph_below_ratio=rules.GRAPH_BELOW_KERNELS_RATIO,
                ci_method=rules.CI_METHOD, ci_levels=levels, floor_pct=rules.TIME_FLOOR_PCT,
                host_quantile=host_rules.HOST_COST_QUANTILE, host_yes=host_rules.HOST_YES_MARGIN,
                host_headroom=host_rules.HOST_HEADROOM, host_clear=host_rules.HOST_CLEAR,
                clock_rule_pct=rules.CLOCK_RULE_PCT, clock_gap_pct=rules.CLOCK_GAP_PCT,
                power_at_limit_pct=rules.POWER_AT_LIMIT_PCT, sustained_s=rules.SUSTAINED_WINDOW_S,
                advice_gain=rules.ADVICE_MIN_GAIN, maskless_rule=mask_words.MASKLESS_RULE,
                startup_s=rules.STARTUP_NOTE_S, new_kind_s=first_calls.NEW_KIND_S, lead_rules=method_words.lead_rules(),
                behind_rule=method_words.behind_rule(), round_span_pct=rules.ROUND_CLOCK_SPAN_PCT,
                one_clock=one_clock if one_clock is not None and one_clock.past else None)


# The figures docs/methodology.md quotes, each a partial rendered from the measured GPU sets.
FIGURE_PARTS = ("kernel_sum", "occupancy", "host", "sweep", "interleave", "leads")


def facts(ctx: Context, ls) -> method.MethodFacts | None:
    """The figures a set gives the methodology (they read its traces: made once, with its own pages)."""
    return method.method_facts(ls)


def _mid_sentence(text: str) -> str:
    """A sentence set after "In <set>, ": its first word's capital dropped ("Of the 247 ..." -> "of the 247 ...")."""
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def figures_view(ctx: Context) -> list[dict]:
    out = []
    for ls in ctx.lead:  # a GPU's newest set stands for the GPU: the figures do not grow with the matrix
        f = ctx.fact(ls, "method")
        if f is None:
            continue
        pct = [100 * (x.kernel_sum_ms - x.graph_ms) / x.graph_ms for x in f.graph_vs_sum if x.graph_ms]
        h, a = f.host_bound, f.apart
        out.append(dict(ls=ls, graph_vs_sum=f.graph_vs_sum, low=min(pct, default=None), high=max(pct, default=None),
                        sweep_sums=method_words.sweep_sums(f.sums),
                        zero_estimate=f.zero_estimate, estimated=f.estimated,
                        host_bound=dict(variant=h.variant, events_us=h.events_us, gpu_only_us=1000 * h.gpu_only_ms,
                                        eager_us=1000 * h.eager_ms, waits=h.waits, loop_ratio=h.loop_ratio,
                                        host_cost="" if missing(h.host_cost_ms)
                                        else host_words.host_cost(h.host_cost_ms),
                                        slow_loop=h.slow_loop)
                        if h else None,
                        lengths=f.lengths, head_dims=f.head_dims, ceilings=f.ceilings,
                        interleave=_mid_sentence(" ".join(
                            x for x in (method_words.interleave_order(f.rotated, f.fixed, f.varied),
                                        method_words.orientation(f.orientation),
                                        a and method_words.timed_alone(a.alone, a.after, a.later,
                                                                       reach=reach.reach(ls))) if x))
                        or None,
                        leads=method_words.lead_evidence(f.clocks),
                        copy_size=f.ceilings["copy_bytes"] // 2 if f.ceilings else None))
    return out


def shown_units(ctx: Context) -> list[tuple[str, list[int], bool]]:
    """Each lead set's title, the units of every median its verdicts rank (its decision facts, as the home's and its
    page's line under its decision read them) and whether its timings have rounds (else its units are raw samples):
    the levels the pages show, set by set."""
    out = []
    for ls in ctx.lead:
        got = ctx.fact(ls, "verdict") if ls.measured else None
        decision = (got or {}).get("decision") or {}
        if units := decision.get("units") or []:
            out.append((fmt.set_title(ls), list(units), bool(decision.get("rounds"))))
    return out


def calls_view(ls) -> dict | None:
    """A set that `gen import --merge` brought records into from other capture calls: how many calls,
    records, and the seconds of the set's own call (its stages); None for a set of one call."""
    merged = [r for r in [*ls.outline.runs, *ls.outline.sweep] if r.captured]
    if not merged:
        return None
    own = sum(ls.outline.stage_seconds.values()) if ls.outline.stage_seconds else None
    later = ls.outline.duration_s - own if own is not None and ls.outline.duration_s else None
    return dict(calls=len({r.captured for r in merged}), records=len(merged), own_s=own, later_s=later)


def build(ctx: Context) -> Iterator[Page]:
    # the lead sets in full; every other set in one row of a table (each has its page)
    lead = {id(ls) for ls in ctx.lead}
    text = ctx.template("methodology.md.j2").render(here="methodology.md", sets=ctx.lead,
                                                    others=[ls for ls in ctx.sets if id(ls) not in lead],
                                                    calls={ls.name: calls_view(ls) for ls in ctx.lead})
    yield Page(f"{fmt.GENERATED}/.methodology.md", text)
    split = method.added(f.one_clock for ls in ctx.lead if (f := ctx.fact(ls, "method")) is not None)
    yield Page(RULES_PARTIAL, ctx.template("rules.md.j2").render(**rules_view(shown_units(ctx), split)))
    facts = figures_view(ctx)
    for part in FIGURE_PARTS:
        yield Page(f"{fmt.GENERATED}/.method_{part}.md", ctx.template("method_figures.md.j2").render(
            part=part, facts=facts, smem_limit_kib=kernel_rules.SMEM_DEFAULT_LIMIT // 1024))


def skipped(ctx: Context) -> Iterator[Page]:
    if ctx.skipped:
        page = f"{fmt.GENERATED}/skipped.md"
        yield Page(page, ctx.template("skipped.md.j2").render(here=page, skipped=ctx.skipped), nav=("Skipped sets",))
