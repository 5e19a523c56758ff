"""Review 21 (docs/notes/review-2026-12-07-12.md): its Part 1 residues (items 3 and 5) and its new findings 1-10, each
rule with a test that fails if it is broken. Every number is read from the committed sets, with tolerances."""

from __future__ import annotations

import pytest

from gen.analysis import advice, rules
from tests.conftest import bracket_depth

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


# --------------------------------------------------------------------------- item 1: a tie replayed at other lengths


@pytest.mark.parametrize("name", [H100, H200])
def test_a_borrowed_noise_line_never_denies_a_same_kernel_pair_that_ran_there(loaded, name):
    from gen.analysis import pair_noise
    from gen.report.words import orders as orders_words
    from gen.report.words.common import label

    ls = loaded[name]
    seen = 0
    for kind, sc, mode, p in pair_noise._points(ls):
        n = pair_noise.noise_at(ls, kind, sc, mode, p)
        if n is None or not n.borrowed:
            continue
        text = str(orders_words.pair_noise_aside(n, label))
        if n.unequal_replay is not None:
            seen += 1
            na, nb = n.unequal_replay.first_calls, n.unequal_replay.second_calls
            assert abs(na - nb) > rules.SAME_REPLAY_PCT / 100 * max(na, nb)
            assert "no identical pair ran here" not in text and f"replayed {na} and {nb} calls at a time" in text
        else:
            assert "no identical pair ran here" in text
    assert seen >= (2 if name == H100 else 4)  # the review's: H200 gqa-prefill, 14 and 13 forward, 2 and 1 training


def test_the_h200_gqa_verdict_says_why_its_tie_is_not_its_noise_line(gpu_docs):
    page = (gpu_docs / "generated" / "sets" / H200 / "scenarios" / "gqa-prefill.md").read_text(encoding="utf-8")
    assert "no identical pair ran here" not in page
    assert "replayed 14 and 13 calls at a time" in page and "replayed 2 and 1 calls at a time" in page


# --------------------------------------------------------------------------- item 2: a loop that waited


def test_the_rule_names_a_waited_loop_short_of_the_host_margin():
    from gen.analysis import host_rules as h

    # the review's numbers: FA4 at the H100 set's default shape, a 2.16x loop, the host's low end 1.497x the GPU time
    gpu = (0.0694, 0.0697)
    eager = (0.1490, 0.1520)
    assert h.host_bound_outcome(*eager, *gpu, 0.1042) == rules.WITHIN_NOISE
    assert h.loop_waited_short_of_rule(*eager, *gpu, 0.1042)
    assert not h.loop_waited_short_of_rule(*eager, *gpu, 0.2000)  # past the margin: host-bound, not short
    assert not h.loop_waited_short_of_rule(*eager, *gpu, 0.0600)  # a host faster than the GPU: not the host's gap
    assert not h.loop_waited_short_of_rule(0.0600, 0.0610, *gpu, 0.0400)  # the loop kept the GPU busy


@pytest.mark.parametrize("name", [H100, PAIRED, H200])
def test_a_waited_loop_the_rule_leaves_within_noise_is_listed_with_why(loaded, name):
    from gen.analysis import findings, host_rules
    from gen.report.words import findings as finding_words

    ls = loaded[name]
    short = [f for f in findings.rule_host(ls) if f.kind == findings.FindingKind.HOST_SHORT]
    for f in short:
        x = f.facts
        assert x["ratio"] >= host_rules.HOST_BOUND_EAGER_RATIO
        assert x["gpu_only_ms"] * 0.98 <= x["host_cost_ms"] < host_rules.HOST_YES_MARGIN * x["gpu_only_ms"] * 1.02
        line = finding_words.finding(f).short
        assert ("within noise of the host-bound line" in line or "The host-bound rule leaves it undecided" in line) \
            and f"{x['ratio']:.2f}×" in line, line
    if name == H100:
        fa4 = [f for f in short if (f.variant, f.mode) == ("fa4", "inference")]
        assert fa4 and fa4[0].facts["ratio"] == pytest.approx(2.16, abs=0.02)
        # at the two decimals of every host ratio, and at the line there: never "1.50×, under 1.5×"
        said = finding_words.finding(fa4[0]).short
        assert "1.50× its GPU time, at the rule's 1.5× line" in said and "1.498" not in said


@pytest.mark.parametrize("name", [H100, PAIRED, H200])
def test_the_scaling_tables_within_noise_cells_say_why(loaded, name):
    from gen.analysis import scaling
    from gen.report.pages import scaling as scaling_pages

    b = scaling.busy_frame(loaded[name])
    rows = scaling_pages._host_cells(b[b["source"] == "default"].to_dict("records"))
    noise = [r for r in rows if r["host_bound_outcome"] == rules.WITHIN_NOISE]
    assert noise
    for r in noise:
        assert r["host_cell"].startswith("within noise: "), r["host_cell"]
        assert f"{r['eager_over_gpu_only']:.2f}×" in r["host_cell"] or "interval" in r["host_cell"], r["host_cell"]
    if name == H100:  # the review's pair: FA4's 2.16x loop and cuDNN's 1.02x one no longer read the same
        cell = {r["variant"]: r["host_cell"] for r in noise}
        assert "the loop waited (2.16×)" in cell["fa4"] and "the loop kept the GPU busy (1.02×)" in cell["sdpa_cudnn"]


# --------------------------------------------------------------------------- item 3: "fastest" where none leads


@pytest.mark.parametrize("name", [H100, PAIRED, H200])
def test_the_scaling_pages_fastest_names_the_calls_within_noise_of_it(loaded, name):
    from gen.analysis import scaling, verdicts

    ls = loaded[name]
    for _, f in scaling.fastest_at_largest(ls).iterrows():
        p = next(p for p in scaling.article_sweep(ls) if p.head_dim == f["head_dim"] and p.seq_len == f["seq_len"])
        v = verdicts.verdict_at(ls, p.scenario, p.point)
        first = {x.variant for x in v.rows if v.rank(x.variant) == 1}
        assert set(f["within"]) == first - {f["variant"], *f["tie"]}, (f["head_dim"], f["within"], first)
    if name == H100:  # the review's row: D128 16k, flex_flash's lowest median, FA4 and SDPA within noise of it
        row = scaling.fastest_at_largest(ls).set_index("head_dim").loc[128]
        assert row["variant"] == "flex_flash" and {"fa4", "sdpa_auto", "sdpa_cudnn"} <= set(row["within"])


# --------------------------------------------------------------------------- item 4: the start-up a user pays


def test_the_start_up_rule_is_the_findings_and_the_variant_pages(loaded):
    from gen.analysis import findings, first_calls

    ls = loaded[H100]
    slower = [r for r in ls.rs.runs if first_calls.own_first_slower(r)]
    assert any(r.variant == "flex_flash" and r.mode == "inference" for r in slower)
    for f in findings.rule_compile(ls):
        run = ls.rs.run(f.variant, f.mode)
        assert f.facts["own_slower"] == first_calls.own_first_slower(run)
    for r in slower:
        assert r.first_call_s > r.compile_time_s and r.compiled_ahead


def test_the_flex_flash_page_gives_the_start_up_first(gpu_docs):
    page = (gpu_docs / "generated" / "sets" / H100 / "variants" / "flex_flash.md").read_text(encoding="utf-8")
    head = page.split("first call (compile)")[0]
    assert "start-up at least 3.61 s (the capture's own first call; 0.24 s compiling in a side process" in page
    assert "start-up at least" in head  # the inference summary no longer leads with the 0.24 s compile


# --------------------------------------------------------------------------- item 5: a kernel sum is never "as run"


def test_the_compare_pages_as_run_pairs_hold_no_kernel_sum(loaded):
    from gen.analysis import compare, verdicts
    from gen.model import schema

    found = compare.as_run_apart(loaded[H100], loaded[PAIRED])
    assert found
    for r in found:
        for ls in (loaded[H100], loaded[PAIRED]):
            row = verdicts.verdict_at(ls, r.scenario, r.point, r.mode).row(r.variant)
            assert row.gpu_only_method != schema.GpuOnlyMethod.KERNEL_SUM, (r.scenario, r.variant)
    # the review's: FlexAttention at gqa-prefill 16k, A's 10.331 ms a kernel sum
    assert not any(r.variant == "flex" and r.scenario == "gqa-prefill" and r.point.kv_len == 16384 for r in found)


@pytest.mark.parametrize("name", [H100, H200])
def test_a_gain_over_a_kernel_sum_is_not_labelled_as_run(loaded, name):
    from gen.analysis import leads, scenarios, verdict_point
    from gen.model import schema
    from gen.report.words import scenario_first

    ls = loaded[name]
    seen = 0
    for sc in scenarios.scenario_names([ls]):
        for f in verdict_point.point_facts_all(ls, sc):
            if f.gain is None or f.named_at is not None or f.gain_by != leads.AS_RUN:
                continue
            sums = [c for c in f.calls if c.variant in (f.fastest, f.runner_up)
                    and c.method == schema.GpuOnlyMethod.KERNEL_SUM]
            cell = scenario_first.gain_cell(f)
            if sums:
                seen += 1
                assert "as run" not in cell.split(";")[0] and "kernel sum" in cell, (sc, cell)
    if name == H200:  # the review's: deterministic backward, SDPA efficient's 41.159 ms a kernel sum
        assert seen


# --------------------------------------------------------------------------- item 8: labels that say what code does


def test_the_occupancy_limit_names_the_warps_where_they_bind():
    from types import SimpleNamespace

    from gen.analysis import kernel_rules, tables

    env = SimpleNamespace(max_threads_per_sm=2048, max_regs_per_sm=65536, max_shared_memory_per_sm=233472)
    small = tables.theoretical_occupancy(128, 18, 0, env)  # the review's elementwise kernel: 64 warps / 4 = 16
    tiny = tables.theoretical_occupancy(32, 18, 0, env)  # one warp a block: the 32 block slots bind
    assert small["blocks_per_sm"] == 16 and small["limiter"] == "warps per SM"
    assert tiny["blocks_per_sm"] == kernel_rules.MAX_BLOCKS_PER_SM and tiny["limiter"] == "blocks per SM"


def test_the_host_rule_names_its_module_and_the_rank_range_its_intervals():
    from tests.conftest import ROOT

    rules_md = (ROOT / "gen" / "report" / "templates" / "rules.md.j2").read_text(encoding="utf-8")
    assert "named once in `gen/analysis/host_rules.py`" in rules_md and "`gen/analysis/rules.py`" not in rules_md
    variant = (ROOT / "gen" / "report" / "templates" / "variant.md.j2").read_text(encoding="utf-8")
    assert "IQRs allow" not in variant and "the intervals of the medians allow" in variant


# --------------------------------------------------------------------------- Part 1 item 5 and item 9: sentences


@pytest.mark.parametrize("name", [H100, PAIRED, H200])
def test_the_timed_apart_rule_and_its_reach_nest_brackets_at_most_two_deep(loaded, name):
    from gen.analysis import reach
    from gen.report.words import methodology as method_words

    text = method_words.timed_alone(1, 0, reach=reach.reach(loaded[name]))
    assert "))" not in text and "nearest to it" not in text
    assert max(bracket_depth(s) for s in text.split(". ")) <= 2, text


def test_an_article_before_a_figure_read_aloud():
    from gen.report.format import a_an

    assert [a_an(x) for x in ("8192×8192×8192", "4096×4096", "11×11", "18000", "1100", "elementwise", "copy")] == \
        ["an", "a", "an", "an", "a", "an", "a"]


def test_the_methodologys_host_example_says_yet_only_where_a_loop_waits(loaded):
    from gen.analysis import host_rules, method

    for name in (H100, PAIRED, H200):
        f = method.method_facts(loaded[name])
        if f is None or f.host_bound is None:
            continue
        h = f.host_bound
        line = host_rules.HOST_BOUND_EAGER_RATIO * h.gpu_only_ms
        assert not h.waits or h.eager_ms >= line, name  # "yet" only where a loop waits
        assert h.slow_loop == (h.eager_ms >= line), name
    assert method.method_facts(loaded[H100]).host_bound.waits  # flex_flash, 308.1 µs in a loop against 71.4 µs
    assert not method.method_facts(loaded[PAIRED]).host_bound.waits  # sdpa_cudnn, 60.3 against 58.9 µs
    # H200: flex's loop reads 2.22x, but its host is faster than the GPU: no example of a loop waiting on the host
    assert not method.method_facts(loaded[H200]).host_bound.waits


# --------------------------------------------------------------------------- item 6: FP8's untimed set-up and clocks


def test_the_fp8_exception_says_its_graph_build_was_not_timed_and_gives_both_clocks(loaded):
    from gen.model.variants import VARIANTS
    from gen.report.words import decision

    a = advice.advice(loaded[H200])
    e = next(e for e in a.exceptions if e.variant == "cudnn_fp8")
    text = decision._exception(a, e)
    assert VARIANTS["cudnn_fp8"].untimed_setup and "was not timed" in text
    o = e.against
    assert o.first_mhz > o.second_mhz  # FP8 at the higher clock: the reader is told so
    assert f"at {o.first_mhz:.0f} MHz against SDPA's {o.second_mhz:.0f} MHz" in text
    assert f"({o.kernel_sum:.2f}× by kernel sum)" in text and o.kernel_sum == pytest.approx(1.39, abs=0.02)
    # only a variant whose constructor does untimed work says so
    assert all("was not timed" not in decision._exception(a, x) for x in a.exceptions if x.variant != "cudnn_fp8")


# --------------------------------------------------------------------------- item 10: a replay median above the loop


@pytest.mark.parametrize("name", [H100, PAIRED, H200])
def test_a_replay_median_above_the_eager_loop_is_marked(loaded, name):
    from gen.analysis import scaling
    from gen.report.pages import scaling as scaling_pages

    sw = scaling.sweep_frame(loaded[name])
    rows = scaling_pages._above_eager(sw.to_dict("records"))
    for r in rows:
        # past the one line for a replay above its loop (review 2026-12-07-13, Part 1 item 10: 1.0001x was marked)
        above = (r["gpu_only_method"] == "cuda_graph" and r["gpu_only_ms"] == r["gpu_only_ms"]
                 and r["eager_ms"] == r["eager_ms"]
                 and r["gpu_only_ms"] > r["eager_ms"] * (1 + rules.GRAPH_ABOVE_EAGER_PCT / 100))
        assert r["above_eager"] == above, (r["variant"], r["seq_len"])
    if name == H100:  # the review's rows: naive and flex at D128 4k
        marked = {(r["variant"], r["head_dim"], r["seq_len"]) for r in rows if r["above_eager"]}
        assert {("naive", 128, 4096), ("flex", 128, 4096)} <= marked
