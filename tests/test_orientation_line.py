"""Review 2026-12-06-5 item 2: the who-leads rule sets a lead's weaker round orientation against a noise line of the
orientations' own (the identical pair's larger forward-or-reversed ratio), not the line of the whole medians; where no
identical pair reversed its rounds, the whole medians' line stands, and the words say so. Each test fails if the rule
is broken."""

from __future__ import annotations

import dataclasses

import pytest

from gen.analysis import leads, pair_noise, rules, timings, verdicts
from gen.model import schema
from gen.report.words import orders as orders_words
from gen.report.words.common import label
from tests.conftest import committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"
FLOOR = rules.TIME_FLOOR
ARTICLE_1K_128 = ("sweep", "article", "inference", schema.Point(8, 16, 16, 128, 1024, 1024, "causal"))


@pytest.fixture(scope="module")
def lead():
    return committed_set(LEAD)


def test_the_weaker_orientation_is_set_against_the_orientations_line():
    """The review's case: whole medians 1.003x apart, orientation medians 1.02x: a lead whose weaker orientation reads
    1.018x clears the whole line (x the floor: 1.013) but not the orientations' (1.0302)."""
    assert rules.lead_decided(True, 1.05, 1.003, orientations=(1.06, 1.018))  # today's line: decided
    assert not rules.lead_decided(True, 1.05, 1.003, orientations=(1.06, 1.018), noise_oriented=1.02)
    assert rules.lead_decided(True, 1.05, 1.003, orientations=(1.06, 1.02 * FLOOR * 1.001), noise_oriented=1.02)
    # the whole median is still set against the whole line, whatever the orientations' line
    assert not rules.lead_decided(True, 1.003 * FLOOR, 1.003, orientations=(1.2, 1.2), noise_oriented=1.0)
    # no orientations to check (a set that did not reverse its rounds): the orientations' line plays no part
    assert rules.lead_decided(True, 1.05, 1.003, noise_oriented=1.2)
    assert rules.beyond_pair_noise(1.05, (1.06, 1.018), None, 1.02)  # no line at all: nothing to be within


def test_the_identical_pairs_orientation_line_is_their_larger_forward_or_reversed_ratio(lead):
    """Recomputed from the set: at the article's 1k tokens, head dim 128, SDPA cuDNN and SDPA not pinned read about
    1.005x apart as whole medians and 1.02x in each orientation (the review: 87.53/85.77, 87.22/85.47)."""
    n = pair_noise.measured(lead)[ARTICLE_1K_128]
    recs = {r.variant: r for r in lead.rs.sweep if (r.scenario, r.mode, r.point) == ARTICLE_1K_128[1:]}
    (fa, ra), (fb, rb) = (timings.orientation_medians(recs[x].timing) for x in ("sdpa_cudnn", "sdpa_auto"))
    by_hand = max(max(fa, fb) / min(fa, fb), max(ra, rb) / min(ra, rb))
    assert n.oriented == pytest.approx(by_hand)
    assert n.oriented == pytest.approx(1.0205, abs=0.001) and n.ratio == pytest.approx(1.005, abs=0.001)
    # every point's line of its own: its pairs' largest; a borrowed line: the largest of the points as bound
    for n in pair_noise.measured(lead).values():
        assert n.oriented is None or n.oriented >= 1
    borrowed = pair_noise.largest(lead, ARTICLE_1K_128[3], "inference")
    own = [m.oriented for m in pair_noise.measured(lead).values() if m.oriented is not None
           and not pair_noise._memory_bound(m.point, m.mode)]
    assert borrowed.borrowed and borrowed.oriented == pytest.approx(max(own))


def test_on_the_set_every_decided_lead_clears_the_orientations_line(lead):
    """Every lead the set decides on its as-run order, with orientations and a noise line, has its weaker orientation
    beyond the orientations' line (where the kernel sums do not decide against it)."""
    seen = 0
    for v in (verdicts.verdict(lead, s, m) for s in verdicts.scenarios(lead) for m in schema.Mode):
        if v is None or v.basis != "gpu_only":
            continue
        for a in v.rows:
            for b in v.rows:
                o = leads.orders(a, b, v.basis) if a is not b else None
                if o is None or not o.decided or not o.oriented or o.noise is None or o.timed_apart:
                    continue
                if o.decided_by_kernel_sum:
                    continue
                seen += 1
                line = o.noise.oriented if o.noise.oriented is not None else o.noise.ratio
                assert min(o.forward, o.reverse) > line * FLOOR
    assert seen


def test_gqa_training_is_decided_by_its_kernel_sums(lead):
    """GQA prefill training: FA4 1.04x ahead of FlexAttention (FLASH backend) as run and beyond the whole line
    (1.010x), but 1.02x in its forward rounds, where identical kernels read up to 1.06x apart; the kernel sums, 1.047x
    at one clock, decide it against that local line as they do against a borrowed one (review 2026-12-06-7 item 3)."""
    v = verdicts.verdict(lead, "gqa-prefill", schema.Mode.TRAIN)
    o = leads.orders(v.row("fa4"), v.row("flex_flash"), v.basis)
    assert o.apart and o.as_run > o.noise.ratio * FLOOR and min(o.forward, o.reverse) > o.noise.ratio * FLOOR
    assert min(o.forward, o.reverse) <= o.noise.oriented * FLOOR and not o.noise.borrowed
    assert v.fastest.variant == "fa4" and "flex_flash" not in v.near
    assert o.decided and o.decided_by_kernel_sum and o.deciding == (o.kernel_sum, leads.BY_KERNEL_SUM)
    text = orders_words.brief(o, label)
    assert f"its forward rounds' {orders_words.times(o.forward)} within the as-run noise" in text
    assert orders_words.SUMS_DECIDE in text
    assert f"up to {orders_words.times(o.noise.oriented, 3)} in one round orientation" in text


def test_the_words_say_which_line_an_orientation_is_set_against():
    point = schema.Point(1, 64, 8, 128, 4096, 4096, "causal")
    n = pair_noise.AsRunNoise(1.010, "sdpa_cudnn", "sdpa_auto", "gqa-prefill", "train", point, oriented=1.06)
    assert orders_words.pair_noise(n, label, oriented=True).endswith(
        "1.010× apart, up to 1.060× in one round orientation)")
    assert "round orientation" not in orders_words.pair_noise(n, label)  # a lead with no orientations: not said
    old = dataclasses.replace(n, oriented=None)
    assert "their rounds not reversed, so this line stands for each round orientation too" in \
        orders_words.pair_noise(old, label, oriented=True)
    far = dataclasses.replace(n, borrowed=True)
    assert "up to 1.060× in one round orientation at such points" in orders_words.pair_noise(far, label, True)
