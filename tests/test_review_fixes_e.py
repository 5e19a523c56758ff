"""Second review, N4: a window's NVML power near the limit is a lagging average, not proof that this window
drew the power: no verdict puts a clock fall down to "the power limit" on that reading alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.analysis import verdicts
from gen.report.words import as_run as as_run_words
from tests import one_clock_off
from tests.conftest import committed_set

ROOT = Path(__file__).resolve().parent.parent
LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def lead():
    return committed_set(LEAD)


@pytest.mark.parametrize("verdict", [verdicts.verdict, one_clock_off.verdict], ids=["as committed", "one clock"])
def test_no_clock_fall_is_put_down_to_the_power_limit(lead, verdict):
    """The pairs whose order flips at equal clock all have a window with no single clock (rules.one_clock): the
    committed verdicts hold none, and the words for them are checked with that rule off (tests/one_clock_off)."""
    said = []
    for sc in verdicts.scenarios(lead):
        for mode in ("inference", "train"):
            v = verdict(lead, sc, mode)
            line = as_run_words.equal_clock_line(v) if v is not None else None
            if line:
                said.append(line)
                assert "W power limit (" not in line, line
    flips = [x for x in said if "at equal clock (a model) the order differs" in x.lower()]
    if verdict is verdicts.verdict:
        assert not flips
        return
    assert flips, "the lead set has pairs whose order flips at equal clock"
    if lead.rs.environment.power_reading is None:  # before schema 5: a reading near the limit may lag
        assert any("a lagging average" in x for x in flips)
    else:  # schema 5: the clock held down for power is NVML's word for each sample, not a reading's
        assert all("held for power " in x and "of its window's samples at " in x for x in flips)
        assert not any("a lagging average" in x for x in flips)
