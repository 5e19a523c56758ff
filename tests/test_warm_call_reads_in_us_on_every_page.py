"""A warm call's time reads in one unit wherever it is set beside a new length's cost: the dynamic-lengths page's
headline said "its warm call of 0.0912 ms" where the decode page said "91.2 µs" for the same call."""

from __future__ import annotations

import re

from gen.analysis import dynamic
from gen.report.words import dynamic as dynamic_words
from gen.report.words.common import us
from tests.conftest import committed_set

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def test_the_costliest_first_call_names_its_warm_call_in_us():
    ls = committed_set(OLDER)
    seen = 0
    for phase in dynamic.phases(ls.rs):
        pf = dynamic.phase_facts(ls.rs, phase)
        text = dynamic_words.headline(pf) or ""
        worst = pf.costliest
        if worst is None or "its warm call of" not in text:
            continue
        seen += 1
        assert f"its warm call of {us(worst.steady_ms)}." in text
        assert not re.search(r"its warm call of \d+\.\d+ ms", text) or worst.steady_ms >= 1
    assert seen  # decode: cuDNN's first call at a new length, about 618x its 91.2 us warm call
