"""A verdict's as-run line sets its named calls on one base: where one of them had no single clock (rules.one_clock),
none gets a time at equal clock (the sliding-window pair read FlexAttention's 2.416 ms model beside FlashAttention-4's
unscaled 2.815 ms); and an equal-clock order is said to be the as-run one only where at least two named calls have an
equal-clock time (the FP8 pair, neither with one clock, read "the order is the same among the calls with one
clock")."""

from __future__ import annotations

import pytest

from gen.analysis import equal_clock_shown, verdicts
from gen.report.words import as_run
from tests.conftest import committed_set

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def older():
    return committed_set(OLDER)


def test_a_pair_with_one_unscaled_window_gets_no_equal_clock_time(older):
    v = verdicts.verdict(older, "sliding-window", "inference")
    rows = [v.row(x) for x in equal_clock_shown.named(v)]
    assert {"fa4", "flex_flash"} <= {t.variant for t in rows}
    assert any(not t.one_clock for t in rows) and any(t.at_ref_ms is not None for t in rows)
    assert equal_clock_shown.shown(v) == ()
    line = as_run.equal_clock_line(v)
    assert "at equal clock" not in line and "2.416 ms" not in line
    assert "no single clock to scale by (min 1725 MHz)" in line and "3.063 ms at 1562 MHz" in line
    assert "Beside it stands the time at equal clock" not in as_run.ranked_by(v)


def test_no_equal_clock_order_is_said_among_fewer_than_two_calls(older):
    checked = 0
    for name in (OLDER, f"{OLDER}__paired"):
        ls = older if name == OLDER else committed_set(name)
        for sc in verdicts.scenarios(ls):
            for mode in ("inference", "train"):
                v = verdicts.verdict(ls, sc, mode)
                line = as_run.equal_clock_line(v) if v is not None else None
                if not line:
                    continue
                if "the order is the same" in line:
                    assert len(equal_clock_shown.shown(v)) >= 2
                    assert line.count("at equal clock (a model);") + line.count("at equal clock (a model).") >= 2
                else:
                    checked += 1
    assert checked >= 2
    fp8 = as_run.equal_clock_line(verdicts.verdict(older, "fp8-prefill", "inference"))
    assert "the order is the same" not in fp8


def test_the_qualifier_names_calls_left_out_only_where_a_ranked_call_has_no_single_clock(older):
    v = verdicts.verdict(older, "packed-documents", "inference")
    line = as_run.equal_clock_line(v)
    assert equal_clock_shown.same_order(v)
    left_out = [t for t in v.rows if t.equal_clock and not t.one_clock]
    assert ("among the calls with one clock" in line) == bool(left_out)
    art = verdicts.verdict(older, "article", "inference")
    assert all(t.one_clock for t in art.rows if t.equal_clock)
    assert as_run.equal_clock_line(art).endswith("At equal clock (a model) the order is the same.")
