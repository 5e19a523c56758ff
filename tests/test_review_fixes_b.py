"""The review's items on the decision and its advice (review.md, fixB): each rule here fails if the page says
again what the committed sets contradict."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gen.analysis import advice, calls, dynamic, verdicts
from gen.analysis.unmeasured import NotMeasured
from gen.report.words import common as words
from gen.report.words import decision as decision_words
from gen.report.words import dynamic as dynamic_words
from gen.report.words import orders as orders_words
from gen.report.words import verdicts as verdict_words
from tests.conftest import committed_set

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def h100():
    return committed_set(H100)


@pytest.fixture(scope="module")
def h200():
    return committed_set(H200)


# item 4: unpinned SDPA's cheap first calls followed pinned cuDNN's at the same lengths: cache hits
def test_a_run_measured_after_pinned_cudnn_is_not_advised_as_a_way_around_the_plan_build(h100):
    for phase in dynamic.phases(h100.rs):
        pf = dynamic.phase_facts(h100.rs, phase)
        order = [r.variant for r in h100.rs.dynamic if r.phase == phase and not r.env]
        assert order.index("sdpa_cudnn") < order.index("sdpa_auto")
        assert pf.cache_warmed("sdpa_auto")
        text = (dynamic_words.headline(pf) + " " + (dynamic_words.advice(pf) or "") + " "
                + (dynamic_words.break_even_example(pf) or ""))
        assert "hit the plan cache" in text
        advice_text = dynamic_words.advice(pf) or ""
        assert "SDPA, backend not pinned costs less" not in advice_text
        assert "SDPA, backend not pinned against" not in (dynamic_words.break_even_example(pf) or "")


# item 24: the switch probe's steady change is said beside the "no effect" judgement of first calls
def test_the_switch_probe_reports_its_steady_change(h100):
    for s in dynamic.switch_facts(h100.rs):
        text = dynamic_words.switch_sentence(s)
        if s.steady_with_ms and s.steady_without_ms and abs(s.steady_with_ms / s.steady_without_ms - 1) >= 0.10:
            r = s.steady_without_ms / s.steady_with_ms
            assert f"{r:.2f}× faster" in text or f"{1 / r:.2f}× slower" in text
            assert "fresh subprocess" in text


def _decision(ls):
    return decision_words.advice(advice.advice(ls))


# items 5, 19: a pinned default's claims agree with every verdict at its point; the tie is placed with its workloads
def test_the_default_claims_first_only_where_each_verdict_puts_it_first(h100):
    a = advice.advice(h100)
    w = decision_words.advice(a)
    assert not a.default_is_auto
    for p in a.picks:
        place = decision_words._place_of(p.scenario, p.mode)
        v = verdicts.verdict(h100, p.scenario, p.mode)
        if p.outcome == "slower" and (p.scenario, p.mode) not in {(e.scenario, e.mode) for e in a.exceptions}:
            assert f"{decision_words._cap(place)}: {words.label(v.fastest.variant)} is {words.times(p.ratio)} faster." \
                in w.decision
        if p.outcome == "within noise" and any(orders_words.kernels_behind(o) == a.default for o in p.orders):
            # the first screen counts it behind: "within noise as run but behind by kernel sum" (review 2026-12-06-4 #1)
            assert f"{orders_words.BEHIND_BY_KERNELS} for {place}. {decision_words._cap(place)}: " in w.decision
        elif p.outcome == "within noise":
            others = words.join_and(words.label(x) for x in p.within)
            assert p.within and a.default not in p.within
            # a pair whose as-run intervals are apart and which the rule leaves open is "not decided" (review 8 #5)
            how = "not decided against" if any(o.undecided for o in p.orders) else "within noise of"
            clause = w.decision.split(f"{how} {others} for ", 1)[1].split(". ")[0]
            assert place in clause
    first = w.decision.split("ranks first at the verdict's point for ", 1)[1].split(". ")[0]
    named = {x.removesuffix(" (by kernel sum)") for x in first.replace(" and ", ", ").split(", ")}
    for p in a.picks:
        place = decision_words._place_of(p.scenario, p.mode)
        if decision_words.other_dtype_clause(a, p.scenario):  # said apart, with its inputs' dtype
            assert (f"ranks first for {place} as a" in w.decision) == (p.outcome == "fastest")
        else:
            assert (place in named) == (p.outcome == "fastest") or p.mode == "train"


def test_sizes_where_the_default_is_decidedly_behind_are_named(h100):
    a = advice.advice(h100)
    line = next(x for x in _decision(h100).lines if "past the verdicts' points" in x.lower())
    for b in a.behind_at:
        if not b.at_verdict:
            # the undecided sizes lead their own sentences: the place capitalized there
            assert decision_words._place_of(b.scenario, b.mode) in line.lower()
            v = verdicts.verdict_at(h100, b.scenario, next(
                q for q in calls._points(h100, b.scenario, b.mode) if q.kv_len == b.kv_len and q.q_len == b.q_len
                and (b.head_dim is None or q.head_dim == b.head_dim)
                and q != calls.point_of(h100, b.scenario, b.mode)),
                b.mode)
            # the call named leads the default by its intervals; decided: behind by the one rule (and named, though
            # the fastest as run may sit within noise of the default); not decided: the default shares the first rank;
            # behind by kernel sum (review 8 item 2): within noise as run, the sums' leader named
            if b.by_kernels:
                assert b.orders.kernels_leader == b.fastest and not b.decided and v.rank(a.default) == 1
                continue
            # decided round by round (rules.paired_leads), the unpaired intervals may overlap; else they are apart
            assert b.orders.decided_by_rounds or calls.faster(v.spread(v.row(b.fastest)), v.spread(v.row(a.default)))
            assert (v.rank(a.default) != 1) == b.decided
            assert not b.decided or verdicts.leads(v.row(b.fastest), v.row(a.default), v.basis)
    # each size's call and ratio named; where the two windows' clocks differ, the clocks beside it (the lead set:
    # decode at 64k keys, SDPA cuDNN ahead of FA4 as run at 1977 against 1738 MHz)
    rest = [b for b in a.behind_at if not b.at_verdict and b.decided]
    # a size past the verdicts' points with a call decidedly ahead of the default is said as such, and only then (the
    # H100 set has none since review 9 item 1 made the article's shape an exception: its 256 and 512 tokens with it)
    assert ("is not first at every size" in line) == bool(rest)
    for b in rest:
        assert f"{words.label(b.fastest)} " in line
        if b.orders is not None and b.orders.sums_decide:  # the kernel sums' clocks, which decide, not the windows'
            assert "by kernel sum" in line and "which decides the order" in line
            continue
        if b.orders is not None and b.orders.decided_by_rounds:  # the rounds' evidence, not intervals said apart
            assert "so the shared rounds decide it" in line
        if b.default_mhz and b.fastest_mhz and abs(b.default_mhz - b.fastest_mhz) >= 1:
            assert f"{b.default_mhz:.0f}" in line and f"{b.fastest_mhz:.0f}" in line
    if any(b.default_mhz and b.fastest_mhz and abs(b.default_mhz - b.fastest_mhz) >= 1 for b in rest):
        assert "MHz" in line


# item 28: the top table's count spells out its workloads
def test_the_top_tables_count_names_every_workload(h100):
    from gen.report.pages import decision

    row = decision.table_rows(h100)[0]
    cond = row["detail"]  # the first screen's cell gives counts; its folded detail names every workload
    assert row["condition"].startswith("first in ")
    n = int(cond.split("ranks first in ", 1)[1].split(" of ")[1].split(" ")[0])
    assert n == len([1 for v, rec in decision._ranked(h100) if rec == row["variant"]])
    for v, rec in decision._ranked(h100):
        if rec == row["variant"]:
            title = decision._title(h100, v.scenario)  # a training one after "in training:" (review2 N10)
            assert title in cond or (title[0].lower() + title[1:]) in cond, title


# item 16: the gain range says what it is against
def test_the_gain_range_names_the_dense_mask_and_the_loss(h100):
    from gen.report.pages import decision

    row = decision.table_rows(h100)[0]
    gain, detail = row["gain"], row["detail"]  # the cell's figure is starred; the folded detail says against what
    lo = float(gain.split("–")[0])
    assert gain.endswith("*")
    assert lo >= 1 or "under 1×: slower than SDPA" in detail
    assert "dense boolean mask" in detail


# item 20: where PyTorch refused the hypothesis's backend at the point (flash takes no attn_mask), no contradiction
def test_the_hypothesis_is_not_said_contradicted_where_its_backend_could_not_run(h100):
    seen = 0
    for sc in verdicts.scenarios(h100):
        v = verdicts.verdict(h100, sc, "inference")
        if v is None or v.auto is None:
            continue
        rec = verdicts.point_records(h100, sc, "inference").get(v.auto.variant)
        why = (rec.backend_reasons or {}).get(v.auto.expected_backend) if rec is not None else None
        line = verdict_words._auto_line(v)
        if why and why != "eligible":
            seen += 1
            assert "hypothesis" not in line and "could not run this call" in line, sc
    assert seen >= 3  # sliding windows, packed documents, chunked prefill


# item 22: FA4's compile is said as measured (one shape), not as a compile at each new configuration
def test_the_compile_warning_claims_only_what_was_measured(h100):
    """FA4's first call is a compile at the article's shape; what new lengths cost is said only from the
    dynamic-lengths runs that measured it (warm-up once, then per new length), else said not measured."""
    a = advice.advice(h100)
    line = decision_words._startup(a)
    assert "Expect a compile at each new configuration" not in line
    assert a.startup.lengths_status == "ok" and a.startup.lengths
    assert "article's shape only" not in line and "lengths vary" in line  # the measured form, not "was not measured"
    for x in a.startup.lengths:
        assert words.us(x.per_length_ms) in line
        if x.warmup_lengths:
            assert f"{x.warmup_ms / 1e3:.2f} s once at its first" in line
    unmeasured = replace(a.startup, lengths_status="skipped", lengths=())
    line = decision_words._startup(replace(a, startup=unmeasured))
    assert "was not measured" in line and "article's shape only" in line and "lengths vary" not in line


# item 34: "fastest" in one sense a page: an FP8 variant set against a published FP8 figure is our fastest FP8 one
def test_an_fp8_variant_against_a_published_figure_is_our_fastest_fp8_variant():
    from gen.report.words import published as published_words

    v = dict(ours_variant="flex_fp8", ours_same=False)
    assert published_words.ours_name(v, lambda x: x) == "our fastest FP8 variant, flex_fp8"
    assert published_words.ours_name(dict(ours_variant="fa4", ours_same=False), lambda x: x) == "our fastest, fa4"


# item 13: the FP8 workload's first call is named as not FP8, and the FP8 call left unmeasured with its reason.
# The committed H100 set measured cuDNN's FP8 kernel (first, within noise of FA4): the case is made from it with
# the FP8 kernel taken out, as a capture without the frontend records it.
def test_a_bf16_call_first_in_the_fp8_scenario_is_not_called_an_fp8_kernel(h100):
    from gen.model.variants import VARIANTS

    missing = "ValueError: the optional nvidia-cudnn-frontend package is not installed (pip install .[cudnn])"
    v = verdicts.verdict(h100, "fp8-prefill", "inference")
    rows = tuple(t for t in v.rows if t.variant != "cudnn_fp8")
    v = replace(v, rows=rows, fastest=rows[0], near=(),
                not_measured=(NotMeasured("cudnn_fp8", "unavailable", missing),))
    assert not VARIANTS[v.fastest.variant].dtype
    line = verdict_words.other_dtype_line(v)
    assert "is not an FP8 call" in line and "cuDNN FP8" in line and "not installed" in line
    a = advice.advice(h100)
    picks = tuple(replace(p, outcome="fastest", within=(), fastest=a.default) if p.scenario == "fp8-prefill" else p
                  for p in a.picks)
    a = replace(a, picks=picks, other_dtype=(advice.OtherDtype(
        "fp8-prefill", "bf16", ("flex_fp8",), (NotMeasured("cudnn_fp8", "unavailable", missing),)),))
    d = decision_words.advice(a).decision
    assert "It ranks first for FP8 prefill as a bf16 call. No FP8 kernel measured there beats it." in d
    assert "cuDNN FP8" in d and "was not measured" in d


# item 12: the chunked-prefill exception names the chunk sizes where the default is decidedly faster
def test_the_chunked_prefill_advice_says_where_it_turns(h100):
    a = advice.advice(h100)
    e = next(x for x in a.exceptions if x.scenario == "chunked-prefill")
    assert e.reversed_at, "FA4 is decidedly faster at 512-query chunks in the committed set"
    line = next(x for x in decision_words.advice(a).lines if x.startswith("For chunked prefill"))
    for r in e.reversed_at:
        assert r.default_ms < r.variant_ms
        assert f"{r.q_len:,}-query chunks" in line and words.us(r.default_ms) in line and words.us(r.variant_ms) in line
    assert f"This holds for {e.q_len:,}-query chunks" in line


# item 17: a skip reason's free memory is the capture's leftover, never said as the GPU's capacity (captures since
# say "left free on the GPU at this point"; a set recorded before says "more than the GPU's", which the words mend)
def test_skip_reasons_do_not_blame_the_gpus_capacity(h100):
    from gen.report.words import common as words

    old = ("the 34 GB score matrix alone is more than the GPU's 7 GB free (of its 85 GB); not run: it would only "
           "fail or thrash")
    # the short reason is cut at REASON_CHARS: since its sizes read in GiB ("≈32 GiB" for "34 GB", review 18 item 13)
    # the cut falls inside "(not the GPU's capacity)", which the full reason keeps
    for text in (words.short_reason(old), words.refusal("skipped", old)):
        assert "more than the GPU's" not in text and "the capture left free (not the GPU's" in text
    assert "the capture left free (not the GPU's capacity)" in words.refusal("skipped", old)
    assert not [p.reason for p in h100.rs.sweep if p.reason and "more than the GPU's" in p.reason]
    for sc in verdicts.scenarios(h100):
        v = verdicts.verdict(h100, sc, "inference")
        if v is not None:
            assert "more than the GPU's" not in (verdict_words.not_measured_line(v) or "")


# item 15: calls of the same kernel names whose times are apart are said to differ (review2 N7: and are no tie).
# Made from the committed decode-kernels point (FA4 and FA4 on a paged cache, one kernel; 1.02x apart in this capture)
# with FA4's time set 30% shorter (the fastest, ahead of every other call and of the paged one), as an earlier capture
# of the same GPU measured the paged call 30% slower.
def test_a_tie_by_kernel_names_says_where_the_times_differ(h100):
    point = verdicts.point_of(h100, "decode-kernels", "inference")
    rows = calls.timed_at(h100, "decode-kernels", point)
    fa4 = next(t for t in rows if t.variant == "fa4")
    s, k = fa4.gpu_only, 0.7
    faster = replace(s, median=s.median * k, q1=s.q1 * k, q3=s.q3 * k, ci_lo=s.ci_lo * k, ci_hi=s.ci_hi * k)
    # its orientations with it: the kernel sums, within the point's kernel-sum noise of identical kernels (borrowed,
    # 1.04x at decode; review 2026-12-07-4 item 6), no longer decide in their place
    oriented = dict(forward_ms=fa4.forward_ms * k, reversed_ms=fa4.reversed_ms * k) if fa4.forward_ms else {}
    rows = [replace(t, gpu_only=faster, **oriented) if t is fa4 else t for t in rows]
    v = verdicts.decide(rows, h100.name, "decode-kernels", "inference", point=point,
                        ref_mhz=h100.rs.environment.ref_mhz)
    assert v.same_kernel_apart == ("fa4_paged",) and "fa4_paged" not in v.same_kernel
    fs = v.spread(v.fastest)
    line = verdict_words.same_kernel_line(v)
    s = v.spread(v.row("fa4_paged"))
    assert not calls.overlaps(fs, s)
    assert "not tied" in line and words.times(s.median / fs.median) in line


# item 29: where calls share the first rank, the loop sentence compares them before any call behind them
def test_the_loop_sentence_compares_the_tied_leaders_first(h100):
    v = verdicts.verdict(h100, "decode-kernels", "inference")
    assert v.near
    line = verdict_words._host_line(v)
    lead = line.split(";")[0]
    for x in (v.fastest.variant, *v.near):
        assert words.label(x) in lead
