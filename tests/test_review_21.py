"""Review 21 (docs/notes/review-2026-12-07-12.md): its Part 1 residues (items 3 and 5) and its new findings 1-10, each
rule with a test that fails if it is broken. Every number is read from the committed sets, with tolerances."""

from __future__ import annotations

import pytest

from gen.analysis import advice

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
PAIRED = "nvidia-h100-80gb-hbm3__torch-2.11.0__paired"
H200 = "nvidia-h200__torch-2.11.0"


# --------------------------------------------------------------------------- Part 1 item 3: each clock named


def test_the_sizes_past_the_verdicts_name_the_call_of_each_clock(loaded):
    from gen.report.words import behind

    for name in (H100, H200):
        a = advice.advice(loaded[name])
        line = behind.behind_line(a) or ""
        for b in a.behind_at:
            if b.at_verdict or not b.decided or not b.default_mhz or not b.fastest_mhz:
                continue
            if abs(b.default_mhz - b.fastest_mhz) >= 1:  # "(X at f MHz against D's d MHz)": both calls named
                assert f"at {b.fastest_mhz:.0f} MHz against " in line and f"'s {b.default_mhz:.0f} MHz" in line, line


# --------------------------------------------------------------------------- item 7: the default's own kernels


@pytest.mark.parametrize("name", [H100, PAIRED, H200])
def test_no_call_running_the_defaults_own_kernels_is_listed_ahead_of_it(loaded, name):
    from gen.analysis import verdicts
    from gen.report.words import behind

    ls = loaded[name]
    a = advice.advice(ls)
    if a is None:
        return
    for b in a.behind_at:
        v = verdicts.verdict_at(ls, b.scenario, next(p for p in _points(ls, b)), b.mode)
        f, d = v.row(b.fastest), v.row(a.default)
        assert not (d.kernels and f.kernels == d.kernels), (b.scenario, b.kv_len, b.fastest)
    if name == H200:  # the review's case: SDPA cuDNN 1.03x ahead of SDPA at gqa 16k, the same cuDNN kernels
        assert "Not decided" not in (behind.behind_line(a) or "")


def _points(ls, b):
    from gen.analysis import calls

    return (p for p in calls._points(ls, b.scenario, b.mode) if p.kv_len == b.kv_len and p.q_len == b.q_len
            and p.head_dim == b.point_head_dim)
