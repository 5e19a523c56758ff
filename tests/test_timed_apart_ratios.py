"""Two calls timed apart are set side by side by the measure that decides them: where only their kernel sums count,
the ratio given as the gap is the sums', and the as-run ratio, where a table shows the two times, is said to decide
nothing. The paired set's sliding windows: varlen_attn 6.460 against FlexAttention's 4.690 ms by kernel sum (1.38×),
6.755 against 4.699 ms as run (1.44×)."""

from __future__ import annotations

import json
import statistics

import pytest

from gen.analysis import advice, verdicts
from gen.report.pages import scenario_first
from gen.report.words import decision as decision_words
from gen.report.words import verdicts as verdict_words
from tests.conftest import H100_PAIRED, RESULTS, committed_set


def _sliding(name: str) -> dict:
    raw = json.loads((RESULTS / name / "result.json").read_text(encoding="utf-8"))
    med = statistics.median
    return {s["variant"]: (med(s["timing"]["gpu_only_ms"]), med(s["timing"]["kernel_sum_ms"]))
            for s in raw["sweep"]
            if s["scenario"] == "sliding-window" and s["status"] == "ok" and s["variant"] in ("varlen", "flex")}


def test_a_call_timed_apart_is_ranked_by_its_kernel_sums_where_only_they_count():
    t = _sliding(H100_PAIRED)
    ks, run = t["varlen"][1] / t["flex"][1], t["varlen"][0] / t["flex"][0]
    assert f"{ks:.2f}" == "1.38" and f"{run:.2f}" == "1.44"
    a = advice.advice(committed_set(H100_PAIRED))
    e = next(e for e in a.exceptions if e.scenario == "sliding-window")
    o = next(o for o in e.between_orders if o.second == "varlen")
    assert o.timed_apart and o.decided and o.kernel_sum == pytest.approx(ks, rel=1e-3)
    line = next(x for x in decision_words.advice(a).lines if x.startswith("For sliding windows"))
    assert "varlen_attn (packed, cu_seqlens) 1.38× slower than FlexAttention by kernel sum (timed apart)" in line
    assert "1.44× slower" not in line and "(as run, timed apart)" not in line


def test_a_table_that_shows_two_times_taken_apart_says_their_ratio_decides_nothing():
    (row,) = scenario_first.facts(committed_set(H100_PAIRED), "sliding-window")["rows"]
    assert row["gain"].startswith("1.38× by kernel sum (")
    assert row["gain"].endswith("; 1.44× as run, timed apart, which decides nothing")
    assert row["holds"] == "yes, by kernel sum (timed apart)"


def test_a_verdict_names_the_as_run_ratio_of_two_calls_timed_apart_as_such():
    v = verdicts.verdict(committed_set(H100_PAIRED), "sliding-window", "inference")
    head = verdict_words.verdict(v).headline
    assert "1.44× ahead of varlen_attn (packed, cu_seqlens) (6.755 ms) as run;" in head
    assert "the as-run order decides nothing between them" in head
