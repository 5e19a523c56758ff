"""Review 2026-12-07-9 (review 18), findings 5-12 and 15, on the committed sets and the words the build makes of them.
Numbers are the sets', read through the analysis; tolerances where they are medians."""

from __future__ import annotations

import types

import pytest

from gen.analysis import calls, leads, method, rules, tables, verdicts
from gen.model import schema
from gen.report.words import methodology as method_words
from gen.report.words import orders as orders_words
from tests.conftest import RESULTS

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
PAIRED = H100 + "__paired"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def loaded() -> dict:
    return {p.name: tables.load_set(p) for p in sorted(RESULTS.iterdir()) if (p / "result.json").is_file()}


# item 11: a kernel sum that disagrees with its own graph replay decides no pair


def _timed(ks, graph, ks_mhz=1980.0, graph_mhz=1980.0, variant="x"):
    return types.SimpleNamespace(variant=variant, kernel_sum_ms=ks, kernel_sum_mhz=ks_mhz, sm_clock_mhz=graph_mhz,
                                 gpu_only=types.SimpleNamespace(median=graph),
                                 gpu_only_method=schema.GpuOnlyMethod.CUDA_GRAPH)


def test_a_kernel_sum_off_its_graph_replay_either_way_is_marked():
    line = rules.KERNEL_SUM_GRAPH_RATIO
    assert calls.sums_off_graph(_timed(1.19, 1.0)).ratio == pytest.approx(1.19)  # SDPA flash at decode
    assert calls.sums_off_graph(_timed(1.0, 1.19)) is not None  # the replay above the sum counts too
    assert calls.sums_off_graph(_timed(line * 0.99, 1.0)) is None
    assert calls.sums_off_graph(_timed(1.0, line * 0.99)) is None
    # what the clock gap explains is taken off: a sum 1.12x under its replay at a 4% higher clock is 1.08x left
    assert calls.sums_off_graph(_timed(1.0, 1.12, ks_mhz=1980.0, graph_mhz=1980.0 / 1.04)) is None
    # windows past the clock gate are not set side by side
    assert calls.sums_off_graph(_timed(1.3, 1.0, ks_mhz=1980.0, graph_mhz=1700.0)) is None
    t = _timed(1.3, 1.0)
    t.gpu_only_method = schema.GpuOnlyMethod.KERNEL_SUM
    assert calls.sums_off_graph(t) is None  # no replay to set it against


def _pairs(ls):
    for key in dict.fromkeys((p.scenario, p.mode, p.point) for p in ls.rs.sweep):
        v = verdicts.verdict_at(ls, key[0], key[2], key[1])
        if v is None or v.basis != "gpu_only":
            continue
        rows = list(v.rows)
        for i, a in enumerate(rows):
            for b in rows[i + 1:]:
                yield key, a, b, verdicts.orders(a, b, v.basis)


@pytest.mark.parametrize("name", [H100, PAIRED, H200])
def test_no_pair_is_decided_by_a_kernel_sum_off_its_replay(loaded, name):
    """Over every sweep point: where either call's kernel sum (or a twin's) is off its graph replay, the pair's kernel
    sums are left out: they decide, overrule and put behind nothing, and the words say so."""
    seen = 0
    for key, a, b, o in _pairs(loaded[name]):
        ra, rb = a.rounds_record or a, b.rounds_record or b
        if ra.off_graph is None and rb.off_graph is None:
            continue
        seen += 1
        assert o.off_graph and o.kernel_sum is None and o.first_ks_ms is None, (key, a.variant, b.variant)
        assert not o.sums_decide and o.kernels_leader is None and o.deciding[1] == leads.AS_RUN
        said = orders_words.brief(o, str)
        assert "the kernel sums decide nothing here" in said and "as-run order alone" in said
    assert seen  # every committed GPU set has such pairs (SDPA flash or is_causal=True at decode and chunked prefill)


def test_paired_decode_flash_is_off_and_cudnn_is_not(loaded):
    ls = loaded[PAIRED]
    for kv in (16384, 65536, 131072):
        point = next(p.point for p in ls.rs.sweep if p.scenario == "decode" and p.point.kv_len == kv)
        rows = {t.variant: t for t in calls.timed_at(ls, "decode", point)}
        flash, cudnn = rows["sdpa_flash"], rows["sdpa_cudnn"]
        assert flash.off_graph is not None and flash.off_graph.variant == "sdpa_flash"
        assert 1.15 < flash.off_graph.ratio < 1.21
        assert cudnn.off_graph is None and abs(cudnn.kernel_sum_ms / cudnn.gpu_only.median - 1) < 0.02


def test_twins_share_the_mark_so_no_tie_is_split(loaded):
    """H200, the article's 256 tokens: SDPA cuDNN's sum is 0.88x its replay, SDPA with no backend pinned's 0.90x (a
    hair inside the line past its clock gap): both are marked, and FlexAttention's as-run lead holds over both."""
    ls = loaded[H200]
    point = next(p.point for p in ls.rs.sweep if p.scenario == "article" and p.point.kv_len == 256)
    v = verdicts.verdict_at(ls, "article", point)
    rows = {t.variant: t for t in v.rows}
    assert rows["sdpa_cudnn"].off_graph is not None and rows["sdpa_auto"].off_graph is not None
    assert rows["sdpa_auto"].off_graph.variant == "sdpa_cudnn"
    assert v.rank("sdpa_cudnn") == v.rank("sdpa_auto")


def test_the_methodology_gives_the_range_over_every_sweep_point(loaded):
    ls = loaded[PAIRED]
    s = method.sweep_sums(ls)
    assert s is not None and s.high.variant == "sdpa_flash" and s.high.scenario == "decode"
    assert s.high.ratio > rules.KERNEL_SUM_GRAPH_RATIO and s.low.ratio < 1 / rules.KERNEL_SUM_GRAPH_RATIO
    assert {a.variant for a in s.off} >= {"sdpa_flash"}
    text = method_words.sweep_sums(s)
    assert f"from {s.low.ratio:.2f}×" in text and f"to {s.high.ratio:.2f}×" in text
    assert f"more than {rules.KERNEL_SUM_GRAPH_RATIO:g}× apart" in text and "decide no pair" in text
    rows = dict(method_words.lead_rules())
    assert f"more than {rules.KERNEL_SUM_GRAPH_RATIO:g}× apart" in rows[f"{method_words.LEAD}: kernel sums off their "
                                                                         "graph replay"]


# item 7: the cost of determinism by kernel sum first where both steps' sums ran at one clock


def test_determinism_cost_gives_the_kernel_sums_first(loaded):
    from gen.analysis import advice, determinism
    from gen.report.words import decision as decision_words
    from gen.report.words.common import times, us

    a = advice.advice(loaded[H100])
    fa4 = next(d for d in a.determinism if d.variant == "fa4_det")
    assert determinism.fair_sums(fa4.det_ks, fa4.base_ks)
    (dk, dm), (bk, bm) = fa4.det_ks, fa4.base_ks
    assert round(dm) == round(bm) == 1980 and dk / bk == pytest.approx(1.13, abs=0.01)
    text = decision_words._determinism(a)
    part = text[text.index("FlashAttention-4 (flash_attn.cute) deterministic takes"):].split("; flash")[0]
    head = f"takes {us(dk)} against {us(bk)} by default by kernel sum (both at 1980 MHz), {times(dk / bk)}"
    assert head in part
    # as run second, the equal-clock model last
    assert part.index(head) < part.index(f"{times(fa4.ratio)} as run") < part.index("at equal clock, a model")
    # flash and efficient, kernel sums as their GPU-only times, keep their wording: one measure for all three
    assert "flash deterministic takes" in text and "(both kernel sums), " in text
    tail = text.split("is the fastest deterministic call", 1)[1]
    assert tail.index(f"costs {times(dk / bk)} the fastest step without it by kernel sum") < tail.index("as run")


def test_determinism_sums_at_clocks_apart_are_not_first():
    from gen.analysis import determinism

    assert not determinism.fair_sums((3.0, 1980.0), (2.7, 1700.0))
    assert determinism.fair_sums((3.0, 1980.0), (2.7, 1900.0))
    assert not determinism.fair_sums(None, (2.7, 1900.0))


def test_determinism_headline_gives_the_kernel_sums_first(loaded):
    from gen.analysis import advice
    from gen.report.words import deterministic as det_words

    a = advice.advice(loaded[H100])
    fa4 = next(d for d in a.determinism if d.variant == "fa4_det")
    (dk, _), (bk, _) = fa4.det_ks, fa4.base_ks
    said = det_words.cost_clause(fa4, "FA4", False)
    assert said.startswith(f"Determinism costs it {dk / bk:.2f}×") and f"{fa4.ratio:.2f}× as run" in said
