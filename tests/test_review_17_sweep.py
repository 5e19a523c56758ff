"""Review 2026-12-07-8 (review 17) item 4: the article paragraph of What to call gives the kernel sums first where the
as-run clocks may flatter a size's lead, and says how the two calls stand at every other head dim the sweep ran (head
dim 128: within a few percent, no lead decided), from the set's sweep."""

from __future__ import annotations

import dataclasses

import pytest

from gen.analysis import advice, sweep_turns
from gen.report.words import decision as decision_words
from gen.report.words import sum_clocks
from gen.report.words import sweep_turns as sweep_words
from gen.report.words.common import short_label, times, us
from tests.conftest import bracket_depth

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"




# --------------------------------------------------------------------------- item 4: the article paragraph


def test_the_other_head_dim_is_said_from_the_sweep(loaded):
    ls = loaded[H100]
    a = advice.advice(ls)
    e = next(x for x in a.exceptions if x.scenario == "article")
    (od,) = e.other_dims
    assert od.head_dim == 128 and [q.kv_len for q in od.points] == [1024, 4096, 16384]
    assert not any(q.leader for q in od.points)  # the intervals overlap at every size
    as_run = max(max(r, 1 / r) for r in (q.variant_ms / q.default_ms for q in od.points))
    ks = max(max(s, 1 / s) for s in (q.orders.kernel_sum for q in od.points))
    assert as_run == pytest.approx(1.036, abs=0.003) and ks == pytest.approx(1.064, abs=0.003)
    line = decision_words.reversed_line(a, e)
    # review 19 item 11: a third call fastest by median at a size of that head dim follows, in its own sentence
    line = line.split(" At head dim 128, 16k tokens, FlexAttention (FLASH backend) has the lowest median")[0]
    assert line.endswith(f"; use {short_label(a.default)} there at head dim 64. At head dim 128 neither call leads "
                         f"decidedly at any of 1k, 4k and 16k tokens: the two stay within {times(as_run)} of each "
                         f"other as run (SDPA ahead at 1k, FlashAttention-4 at 4k and 16k) and within {times(ks)} by "
                         "kernel sum.")
    assert bracket_depth(line) == 1
    # one head dim swept: nothing to add
    chunk = next(x for x in a.exceptions if x.scenario == "chunked-prefill")
    assert chunk.other_dims == () and "At head dim" not in decision_words.reversed_line(a, chunk)


def test_a_decided_size_at_another_head_dim_is_named_with_its_lead(loaded):
    """Synthetic: the default decidedly ahead at one size, the other call at none, neither at two."""
    a = advice.advice(loaded[H100])
    e = next(x for x in a.exceptions if x.scenario == "article")
    pts = (sweep_turns.DimPoint(1024, 0.100, 0.110, 1980, 1980, e.variant, None),
           sweep_turns.DimPoint(4096, 1.000, 0.990, 1980, 1980, None, None),
           sweep_turns.DimPoint(16384, 10.0, 10.3, 1980, 1980, None, None))
    line = sweep_words.other_dims_line(a, dataclasses.replace(e, other_dims=(sweep_turns.OtherDim(128, pts),)))
    assert line == ("At head dim 128, SDPA leads at 1k (1.10× as run) and neither leads decidedly at 4k and 16k "
                    "(within 1.03× as run).")


def test_a_size_whose_clocks_may_flatter_gives_the_kernel_sums_first(loaded):
    a = advice.advice(loaded[H100])
    e = next(x for x in a.exceptions if x.scenario == "article")
    line = decision_words.reversed_line(a, e)
    flattered = 0
    for r, o in zip(e.reversed_at, e.reversed_orders):
        d, x, dm, xm = r.default_ms, r.variant_ms, r.default_mhz, r.variant_mhz
        first = sweep_words.sums_first(o, d, x, dm, xm)
        if not first:
            continue
        flattered += 1
        assert first.startswith(f"{times(o.kernel_sum)} faster by kernel sum (") and first in line
        assert f" and {times(x / d)} as run ({us(d)} at {dm:.0f} MHz against {us(x)} at {xm:.0f} MHz, " in first
        # whose clock ran higher, in the one measure and the one form (review 24 #10)
        assert f"FlashAttention-4's clock {sum_clocks.apart(dm, xm)} higher)" in first
    assert flattered == 2  # 8k (3.1%, within the gate, FA4's the higher) and 16k (8.6%)
    assert "with FlashAttention-4's clock the higher as run" not in line
