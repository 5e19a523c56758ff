"""The who-leads rule after review 2026-12-06-2 item 2: an as-run lead is decided only beyond the as-run noise of
identical kernels at its point (gen.analysis.pair_noise), and the equal-clock time, a model, decides nothing. Each
test fails if the rule is broken."""

from __future__ import annotations

import dataclasses

import pytest

from gen.analysis import calls, leads, method, pair_noise, rules, timings
from gen.model import schema
from gen.report.words import methodology as method_words
from gen.report.words import orders as orders_words
from gen.report.words.common import label
from tests.conftest import committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"
FLOOR = 1 + rules.TIME_FLOOR_PCT / 100


@pytest.fixture(scope="module")
def lead():
    return committed_set(LEAD)


def test_a_lead_inside_the_noise_is_not_decided_one_beyond_is():
    assert not rules.lead_decided(True, 1.05, 1.07)  # inside what identical kernels read apart
    assert not rules.lead_decided(True, 1.07 * FLOOR - 1e-6, 1.07)  # the noise is itself known to the floor
    assert rules.lead_decided(True, 1.07 * FLOOR + 1e-3, 1.07)
    assert rules.lead_decided(True, 13.5, 1.16)  # packed documents' lead stays decided
    assert not rules.lead_decided(False, 13.5, 1.0)  # intervals overlapping: never


def _spread(ms: float) -> timings.Spread:
    return timings.Spread(n=20, median=ms, q1=ms, q3=ms, ci_lo=ms * 0.99, ci_hi=ms * 1.01)


def _row(variant, ms, mhz, at_ref, noise=None, ks=None, ks_mhz=None):
    return calls.Timed(variant, "ok", gpu_only=_spread(ms), sm_clock_mhz=mhz, at_ref_ms=at_ref, kernel_sum_ms=ks,
                       kernel_sum_mhz=ks_mhz, as_run_noise=noise)


NOISE = pair_noise.AsRunNoise(1.07, "sdpa_cudnn", "sdpa_auto", "article", "inference",
                              schema.Point(8, 16, 16, 64, 4096, 4096, "causal"))


def test_equal_clock_decides_nothing():
    # the equal-clock model puts b 1.2x ahead: the old rule left this not decided; the as-run lead beyond the noise
    # stands
    o = leads.orders(_row("a", 1.0, 1980, 1.0), _row("b", 1.2, 1500, 1.2 * 1500 / 1980), "gpu_only")
    assert o.apart and o.equal_clock is not None and o.equal_clock < 1 / FLOOR
    assert o.decided
    # and where it agrees, it cannot carry a lead inside the noise
    a, b = _row("a", 1.0, 1980, 1.0, NOISE), _row("b", 1.05, 1600, 1.5, NOISE)
    o = leads.orders(a, b, "gpu_only")
    assert o.apart and o.equal_clock > 1.4 and not o.decided and o.within_noise_of_pair
    # beyond it, decided whatever the clocks
    o = leads.orders(a, dataclasses.replace(b, gpu_only=_spread(1.2)), "gpu_only")
    assert o.decided and not o.within_noise_of_pair


def test_kernel_sums_overrule_only_at_close_clocks():
    a, b = _row("a", 1.0, 1980, 1.0, NOISE, ks=1.0, ks_mhz=1900), _row("b", 1.2, 1980, 1.2, NOISE, ks=0.8, ks_mhz=1890)
    assert not leads.orders(a, b, "gpu_only").decided
    # 16% apart, b's sums ahead at the higher clock by less than the gap can explain: no evidence either way
    far = dataclasses.replace(b, kernel_sum_ms=0.9, kernel_sum_mhz=1900)
    assert leads.orders(dataclasses.replace(a, kernel_sum_mhz=1600), far, "gpu_only").decided
    # b's sums ahead at the lower clock: at equal clock their lead would only grow, so they stand against a
    # (review 2026-12-07-3 item 6: the gap explains at most its own ratio)
    assert not leads.orders(a, dataclasses.replace(b, kernel_sum_mhz=1600), "gpu_only").decided


def test_the_words_give_the_noise():
    a, b = _row("sdpa_flash", 1.0, 1980, 1.0, NOISE), _row("flex", 1.05, 1980, 1.05, NOISE)
    o = leads.orders(a, b, "gpu_only")
    text = orders_words.brief(o, label)
    assert ("within the as-run noise of identical kernels at this point (SDPA cuDNN and SDPA (backend not pinned), "
            "same kernels, 1.070× apart)") in text
    o = leads.orders(a, dataclasses.replace(b, gpu_only=_spread(1.3)), "gpu_only")
    assert "beyond the as-run noise of identical kernels at this point" in orders_words.brief(o, label)
    far = dataclasses.replace(NOISE, borrowed=True)
    o = leads.orders(dataclasses.replace(a, as_run_noise=far), dataclasses.replace(b, as_run_noise=far), "gpu_only")
    assert "borrowed from another point (no identical pair ran here" in orders_words.brief(o, label)
    assert "at equal clock (a model)" in orders_words.brief(
        leads.orders(_row("a", 1.0, 1600, 1.2), _row("b", 1.05, 1980, 1.0), "gpu_only"), label)


def _pair_ratio(lead, kind, scenario, mode, point, a="sdpa_cudnn", b="sdpa_auto") -> float:
    """The larger GPU-only median over the smaller of two calls at one point, read from the set's records."""
    recs = lead.rs.runs if kind == pair_noise.RUN else lead.rs.sweep
    ms = [timings.times(r).gpu_only.median for r in recs
          if (r.scenario, r.mode, r.point) == (scenario, mode, point) and r.variant in (a, b)]
    assert len(ms) == 2
    return max(ms) / min(ms)


def test_the_identical_pair_at_the_article_points(lead):
    """SDPA cuDNN and SDPA not pinned run the very same kernels: found at the article's points (article 8k D 64,
    4k D 128; GQA 4k, where review 2026-12-06-2 read them 1.07-1.16x apart), each the pair's own ratio."""
    own = pair_noise.measured(lead)
    article = {(k[0], k[3].q_len, k[3].head_dim): (k, n) for k, n in own.items()
               if k[1] == "article" and k[2] == schema.Mode.INFERENCE}
    assert (pair_noise.RUN, 1024, 64) in article and (pair_noise.SWEEP, 8192, 64) in article
    assert (pair_noise.SWEEP, 4096, 128) in article
    for k, n in article.values():
        assert {n.fast, n.slow} == {"sdpa_cudnn", "sdpa_auto"} and not n.borrowed
        assert n.ratio == pytest.approx(_pair_ratio(lead, *k), rel=1e-9)
    gqa = [(k, n) for k, n in own.items() if k[1] == "gqa-prefill" and k[3].q_len == 4096 and k[2] == "inference"]
    assert gqa and gqa[0][1].ratio == pytest.approx(_pair_ratio(lead, *gqa[0][0]), rel=1e-9)
    # FlexAttention bf16 and FP8 share graph kernel names, not launches: no pair
    assert not any({n.fast, n.slow} == {"flex", "flex_fp8"} for n in own.values())


def test_a_paged_call_and_its_contiguous_twin_are_no_identical_pair(lead):
    """Paged FA4 and FA4 launch kernels of the same names and grids at the decode-kernels point, but the page table
    moves every read: their gap is paging's cost. Taken as the point's noise it would leave paging's own cost not
    decided by construction (the recapture: 1.023x, the largest memory-bound pair, borrowed by every decode point)."""
    from gen.analysis import paged

    point = calls.point_of(lead, "decode-kernels", schema.Mode.INFERENCE)
    recs = {r.variant: r for r in lead.rs.sweep
            if (r.scenario, r.mode, r.point) == ("decode-kernels", "inference", point)}
    fa4, pg = recs["fa4"], recs["fa4_paged"]
    # the premise: both launch the same kernels, as the identical pairs do
    assert pair_noise._graph_kernels(fa4) == pair_noise._graph_kernels(pg) is not None
    assert pair_noise._signature(lead, fa4) == pair_noise._signature(lead, pg)
    assert paged.pages("fa4_paged") and not paged.pages("fa4")
    for n in pair_noise.measured(lead).values():
        assert paged.pages(n.fast) == paged.pages(n.slow)
    n = pair_noise.noise_at(lead, pair_noise.SWEEP, "decode-kernels", "inference", point)
    assert "fa4_paged" not in (n.fast, n.slow)


def test_the_verdict_rows_carry_their_point_noise_and_borrow_where_none(lead):
    rows = calls.timed(lead, "article", schema.Mode.INFERENCE)
    assert all(t.as_run_noise is not None and not t.as_run_noise.borrowed for t in rows if t.status == "ok")
    packed = calls.timed(lead, "packed-documents", schema.Mode.INFERENCE)
    n = next(t.as_run_noise for t in packed if t.status == "ok")
    assert n.borrowed and n.ratio == max(x.ratio for x in pair_noise.measured(lead).values()
                                         if rules.equal_clock_applies(
                                             pair_noise.flops.figure_of(x.point, x.mode)))


def test_packed_documents_lead_stays_decided(lead):
    from gen.analysis import verdicts
    v = verdicts.verdict(lead, "packed-documents", schema.Mode.INFERENCE)
    far = [t for t in v.rows if v.spread(t).median > 10 * v.spread(v.fastest).median]
    assert far and all(verdicts.leads(v.fastest, t, v.basis) for t in far)


def test_the_methodology_states_the_rule_and_its_evidence(lead):
    rule = " ".join(text for _, text in method_words.lead_rules())
    assert "noise of identical kernels" in rule and "decides nothing" in rule and "locked clocks" in rule
    ev = method.clock_evidence(lead)
    assert ev.checked and ev.scaled_wider > ev.checked / 2  # most rounds do not follow their clock
    assert {ev.widest.fast, ev.widest.slow} == {"sdpa_cudnn", "sdpa_auto"}
    text = method_words.lead_evidence(ev)
    assert f"{ev.scaled_wider} spread more" in text and "SDPA cuDNN against" in text
