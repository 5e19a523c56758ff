"""Review 2026-12-06-5's open items on the verdicts' headlines: a lead the kernel sums decide is headlined by them, the
measure that decides, not by the forward-majority as-run ratio (review 2026-12-06-4 item 4: packed documents, 1.10x
by kernel sum against 1.17x as run); and a named lead's noise clause is said by one function
(gen.report.words.orders.noise_clause), never restated. Each test fails if the rule is broken."""

from __future__ import annotations

import inspect

import pytest

from gen.analysis import verdicts
from gen.model import schema
from gen.report.words import orders as orders_words
from gen.report.words import verdicts as verdict_words
from gen.report.words.common import label, times
from tests.conftest import all_verdicts, committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def lead():
    return committed_set(LEAD)


def test_a_lead_the_kernel_sums_decide_is_headlined_by_them(lead):
    seen = 0
    for v in all_verdicts(lead):
        if v.runner_up is None or v.near or v.same_kernel:
            continue
        o = verdicts.orders(v.fastest, v.runner_up, v.basis)
        head = verdict_words.verdict(v).headline
        if not o.decided_by_kernel_sum:
            assert "by kernel sum, the measure that decides it" not in head
            continue
        seen += 1
        lead_in = f"{label(v.fastest.variant)} is the fastest here by kernel sum, the measure that decides it: " \
                  f"{times(o.kernel_sum)} ahead of {label(v.runner_up.variant)}"
        assert head.startswith(lead_in)
        # the as-run ratio comes after, as run, with the orientation that falls within the line
        assert head.index(times(o.kernel_sum)) < head.index(f"as run, {orders_words.us(v.spread(v.fastest).median)}")
        assert head.count(orders_words.SUMS_DECIDE) == 1 and orders_words.noise_clause(o, label) in head
    assert seen  # packed documents


def test_packed_documents_leads_with_the_kernel_sums(lead):
    head = verdict_words.verdict(verdicts.verdict(lead, "packed-documents", schema.Mode.INFERENCE)).headline
    assert head.startswith("FlashAttention-4 (flash_attn.cute) is the fastest here by kernel sum, the measure that "
                           "decides it: 1.10× ahead of FlexAttention (FLASH backend)")
    assert head.index("1.10×") < head.index("1.17×") and "its reversed rounds' 1.07× within" in head
    assert "1.17× ahead of" not in head


def test_a_named_leads_noise_clause_is_said_once_by_orders_words(lead):
    seen = 0
    for v in all_verdicts(lead):
        if v.runner_up is None or v.near or v.basis != "gpu_only":
            continue
        o = verdicts.orders(v.fastest, v.runner_up, v.basis)
        if o.timed_apart or o.noise is None or o.decided_by_kernel_sum:
            continue
        seen += 1
        assert orders_words.noise_clause(o, label) in verdict_words.verdict(v).headline
    assert seen
    # the clause's words live in orders_words alone: the verdict's words do not restate them
    assert "beyond the as-run noise" not in inspect.getsource(verdict_words)
