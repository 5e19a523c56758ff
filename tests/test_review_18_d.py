"""Review 18 (docs/notes/review-2026-12-07-9.md), findings 1, 2, 3, 4, 13, 14, 16 and 17. Numbers are read from the
committed sets (or from small synthetic facts), never typed in where the sets give them."""

from __future__ import annotations

import dataclasses

from gen.analysis import advice, calls, verdicts
from gen.analysis.calls import Spread
from gen.report.pages import decision
from gen.report.words import common as words
from gen.report.words import decision as decision_words
from gen.report.words import verdicts as verdict_words
from tests.conftest import all_verdicts

# --------------------------------------------------------------------------- finding 1: a host-bound call's loop gain


def _spread(median: float) -> Spread:
    return Spread(median=median, q1=median, q3=median, n=10)


def test_loop_ms_is_for_a_host_bound_call_only():
    """The eager medians are given where the call is host-bound (the rule's yes), and nowhere else."""
    fast = calls.Timed("a", "ok", gpu_only=_spread(0.06), eager=_spread(0.13), host_bound=True)
    slow = calls.Timed("b", "ok", gpu_only=_spread(0.18), eager=_spread(0.18))
    assert calls.loop_ms(fast, slow) == (0.13, 0.18)
    assert calls.loop_ms(dataclasses.replace(fast, host_bound=False), slow) is None
    assert calls.loop_ms(fast, dataclasses.replace(slow, eager=None)) is None


def _host_bound_fastest(ls):
    return [v for v in all_verdicts(ls) if v.loop_ms is not None]


def test_a_host_bound_fastest_gives_the_loop_gain_beside_the_gpu_one(paired):
    """Paired chunked prefill: the recommended call is host-bound. Its verdict, its What to call and its first-screen
    row each give the gain an eager loop gets (from the eager medians) beside the GPU-only one, and the verdict's host
    paragraph gives the host-bound call's host figures."""
    vs = _host_bound_fastest(paired)
    assert vs, "the paired set's chunked-prefill verdict has a host-bound fastest call"
    for v in vs:
        f, r = v.fastest, v.runner_up
        loop = words.times(r.eager.median / f.eager.median)
        text = " ".join(verdict_words.verdict(v).lines)
        assert f"leads {words.label(r.variant)} by {loop}" in text
        assert f"not by the {words.times(v.ratio)}" in text
        host = next(x for x in verdict_words.verdict(v).lines if x.startswith(verdict_words.HOST_SPEED_LEAD))
        assert f"{words.label(f.variant)}: " in host and f"{f.host_cost_ms * 1000:.1f} µs" in host
    a = advice.advice(paired)
    for e in a.exceptions:
        v = verdicts.verdict(paired, e.scenario, e.mode)
        t = v.row(e.variant)
        if not t.host_bound:
            assert e.loop_ms is None
            continue
        assert e.loop_ms == (t.eager.median, v.row(a.default).eager.median)
        line = decision_words._exception(a, e)
        assert f"in an eager loop on this host it is {words.times(e.loop_ms[1] / e.loop_ms[0])} slower" in line
        row = next(r for r in decision.table_rows(paired) if r["variant"] == e.variant)
        assert row["gain"].endswith("in an eager loop") and "on the GPU" in row["gain"]
        assert row["condition"].startswith("host-bound: ")


def test_the_host_paragraph_names_every_host_bound_call(paired, h200_new):
    """Every verdict that calls a row host-bound gives that row's host cost in its host paragraph."""
    seen = 0
    for ls in (paired, h200_new):
        for v in all_verdicts(ls):
            lines = verdict_words.verdict(v).lines
            host = next((x for x in lines if x.startswith(verdict_words.HOST_SPEED_LEAD)), "")
            for x in v.host_bound:
                t = v.row(x)
                if t.host_cost_ms and t.gpu_only is not None:
                    seen += 1
                    assert f"{words.label(x)}: " in host, (v.scenario, x)
    assert seen
