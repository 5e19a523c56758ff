"""Review 2026-12-07-8 (review 17) items 3 and 6, on the committed sets and small synthetic facts: where What to call
names a call sharing the first rank that is not the fastest by median, a scenario's table leads with it (its time and
window, the fastest as the call sharing its rank), gives the kernel sums and their clocks once, under the table, and
says why no rank is decided; the chart's relative time is said from the fastest, as it is measured."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from gen.analysis import rules, verdict_point, verdicts
from gen.report import charts
from gen.report.pages import scenario_first as first_page
from gen.report.words import orders as orders_words
from gen.report.words import scenario_first as first_words
from gen.report.words.common import label, times, us
from tests.conftest import H100_PAIRED, bracket_depth

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"



def _named_rows(loaded):
    """Every verdict's point, on every committed set, where What to call names a call sharing the first rank that is
    not the fastest by median."""
    for ls in loaded.values():
        for name in verdicts.scenarios(ls) if ls.measured else ():
            for f in verdict_point.point_facts_all(ls, name):
                if f.named_at is not None:
                    yield ls, f



# --------------------------------------------------------------------------- item 3: the named call leads its row


def test_a_row_whose_named_call_shares_the_rank_leads_with_it(loaded):
    """Paired packed documents (varlen_attn named, FlexAttention fastest), and the older set's decode (FA4 named,
    FlexAttention FLASH fastest) and FP8 prefill (FA4 named, cuDNN FP8 fastest): the named call's time and window, the
    fastest given as sharing the rank, the gain and the holds short."""
    seen = set()
    for ls, f in _named_rows(loaded):
        seen.add((ls.name, f.scenario))
        n = f.named_at
        assert f.named in f.near and f.lead == f.named and f.named_apart
        assert first_words.call_cell(f).startswith((label(f.named) + " and ", label(f.named) + ", "))
        assert first_words.named_cell(f) == f"{first_words.NAMED} names it (why: under the table)"
        assert first_words.time_cell(f).startswith(us(n.median_ms))
        if n.sm_clock_mhz is not None:  # the CPU set's windows have none
            assert first_words.conditions_cell(f, ls.environment).startswith(f"{n.sm_clock_mhz:.0f} MHz")
        assert first_words.next_cell(f).startswith(f"{label(f.fastest)}, sharing the rank: {us(f.median_ms)}")
        gain, holds = first_words.gain_cell(f), first_words.holds_cell(f)
        assert gain.endswith(f"{times(n.median_ms / f.median_ms)} as run") and "(" not in gain.split(":")[-1]
        assert holds.startswith("no: ") and " ms" not in holds and " µs" not in holds
        # the row's page data lead with it too
        row = next(r for r in first_page.facts(ls, f.scenario)["rows"] if r["mode"] == f.mode)
        assert row["variant"] == f.named
    assert {(H100_PAIRED, "packed-documents"), (H100, "decode"), (H100, "fp8-prefill")} <= seen


def test_the_kernel_sums_are_given_once_under_the_table_and_no_rank_is_said_decided(loaded):
    checked = 0
    for ls, f in _named_rows(loaded):
        o = f.named_orders
        if not (o.kernels_leader == o.first and o.kernel_sum is not None):
            continue
        checked += 1
        row = next(r for r in first_page.facts(ls, f.scenario)["rows"] if r["mode"] == f.mode)
        section = " ".join([*(row[k] for k in ("call", "named", "time", "conditions", "next", "gain", "holds")),
                            *row["notes"]])
        sums = f"{us(o.first_ks_ms)} at {o.first_ks_mhz:.0f} MHz against {us(o.second_ks_ms)}"
        assert section.count(sums) == 1, section  # once on the table and its notes (review item 3)
        note = first_words.named_note(f)
        assert sums in note and "cannot show" not in note and "no rank is decided" in note
        assert note.startswith(f"{first_words.NAMED} names {label(f.named)} here, not {label(f.fastest)}. ")
        gain = orders_words.least(o) + orders_words.sum_gain(o.kernel_sum)
        assert f"{label(f.fastest)} is {gain} faster by kernel sum (" in note
        if o.oriented:
            assert f"ahead in both round orientations ({times(o.forward)} forward, {times(o.reverse)} reversed)" in note
        assert bracket_depth(note.split(". Output error")[0]) == 1
    assert checked >= 2  # paired packed documents, FP8 prefill


def test_the_paired_packed_note_says_the_swing_is_why_no_rank_is_decided(loaded):
    (f,) = [f for ls, f in _named_rows(loaded) if ls.name == H100_PAIRED and f.scenario == "packed-documents"]
    o = f.named_orders
    swing, lead = o.own_swing(f.fastest), f.named_at.median_ms / f.median_ms
    assert swing == pytest.approx(1.15, abs=0.005) and lead == pytest.approx(1.13, abs=0.005) and swing > lead
    note = first_words.named_note(f)
    said = (f"But {label(f.fastest)}'s own round orientations differ by {times(swing)}, more than its {times(lead)} "
            f"lead as run, so the two medians' ")
    assert said in note and "intervals overlap and no rank is decided." in note
    assert f"differ by {times(swing)}" in first_words.holds_cell(f)
    # the kernel-sum lead and the bar, from the set
    assert f"is {times(o.kernel_sum)} faster by kernel sum (" in note and o.kernel_sum < rules.ADVICE_MIN_GAIN
    # packed documents: the call that needs no mask is named for the build, not for a bar FlexAttention never faced
    # (review 2026-12-07-13 item 2: the H200's 1.19x mask call is named); the note under the table says why
    assert f"under the {rules.ADVICE_MIN_GAIN:g}× {first_words.NAMED} asks" not in note


def test_a_row_led_by_its_fastest_keeps_its_form_and_gives_the_sums_once(loaded):
    """The same facts without a named call sharing the rank (synthetic: named_at dropped) read as before, the row led
    by the fastest; a Holds cell beside a gain by kernel sum names the call behind without repeating the sums."""
    (f,) = [f for ls, f in _named_rows(loaded) if ls.name == H100 and f.scenario == "fp8-prefill"]
    plain = dataclasses.replace(f, named_at=None)
    assert plain.lead == plain.fastest and first_words.time_cell(plain) == us(f.median_ms)
    assert first_words.next_cell(plain).startswith(f"{label(f.runner_up)}, {us(f.runner_ms)}")
    assert first_words.gain_cell(plain).startswith("1.195× by kernel sum (5.038 ms at 1755 MHz against 6.022 ms")
    holds = first_words.holds_cell(plain)
    assert holds.endswith("behind by kernel sum, as Gain over it gives") and "5.038" not in holds and "11%" not in holds


# --------------------------------------------------------------------------- item 6: the chart's relative time


def test_the_chart_measures_rel_from_the_fastest_and_says_so(loaded):
    ls = loaded[H100_PAIRED]
    points = first_page.facts(ls, "packed-documents")["points"]
    fastest = next(p for p in points if p["role"] == verdict_point.FASTEST)
    named = next(p for p in points if p["named"])
    assert fastest["rel"] == 1.0 and named["call"] != fastest["call"]
    assert named["rel"] == pytest.approx(named["median_ms"] / fastest["median_ms"])
    spec = json.dumps(charts.verdict_point([dict(p, series="forward") for p in points], verdict_point.ROLES,
                                           "x").to_dict(), ensure_ascii=False)
    titles = re.findall(r'"field": "rel"[^}]*"title": "([^"]*)"', spec) + \
        re.findall(r'"title": "([^"]*)"[^}]*"field": "rel"', spec)
    assert titles and all(t == "× the fastest's median" for t in titles), titles
