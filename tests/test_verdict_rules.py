"""Issue 31's rules for verdicts a kernel engineer would sign, each asserted on the pages built from the
committed sets (the lead H100 set and the H200 set) or on the fact layer behind them.

The pages are built once for the session from results/ into a scratch folder (conftest.results_docs);
`page(name)` reads one as plain text (HTML entities decoded, charts left out), as a reader does.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from gen.analysis import equal_clock_shown, host_rules, length_cost, rules, tables, verdicts
from gen.report.words import as_run as as_run_words
from gen.report.words import common as words
from gen.report.words import decision as decision_words
from gen.report.words import host as host_words
from gen.report.words import tables as table_words
from gen.report.words import verdicts as verdict_words
from gen.report.words import why as why_words
from tests import one_clock_off

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"
GPU_SETS = (LEAD, H200)


@pytest.fixture(scope="module")
def docs(results_docs) -> Path:
    return results_docs


@pytest.fixture(scope="module")
def page(docs):
    def read(name: str) -> str:
        text = (docs / name).read_text(encoding="utf-8")
        text = re.sub(r"<div class=\"vega-chart\".*?</div>", "", text, flags=re.S)
        return html.unescape(re.sub(r"<[^>]+>", " ", text))
    return read


@pytest.fixture(scope="module")
def pages(docs, page):
    """Every generated page's text, by its path under docs/."""
    return {str(p.relative_to(docs)): page(str(p.relative_to(docs))) for p in sorted(docs.rglob("*.md"))}


@pytest.fixture(scope="module")
def loaded():
    return {name: tables.load_set(RESULTS / name) for name in GPU_SETS}


def _set_page(name: str) -> str:
    return f"generated/sets/{name}.md"


# --------------------------------------------------------------------------- §3: host speed, a property of the host


def test_no_page_calls_a_loop_possibly_host_bound_within_noise(pages):
    """A loop at 1.02x of the GPU time is not host-bound, decode at 1.5-1.7x is not within noise: every page
    gives what this capture's host saw and the crossover instead."""
    for name, text in pages.items():
        assert "possibly host-bound" not in text, name
        assert "Host-bound or not depend" not in text, name
        assert "host-bound within noise" not in text, name


@pytest.mark.parametrize("name", GPU_SETS)
def test_every_host_line_gives_the_crossover_and_the_host_reference_call(page, name):
    """Where a set page speaks of host speed deciding, it states the crossover (the call's GPU time), this
    host's cost of a call and its reference call in µs; the crossover, a GPU time, in µs below 1 ms and in ms
    from there (the one rule for durations, review item 27)."""
    text = page(_set_page(name))
    leads = text.count(host_words.HOST_SPEED_LEAD)
    assert leads, "the lead set's verdicts have variants whose loop depends on the host"
    crossings = re.findall(r"a Python loop keeps the GPU busy while the host dispatches a call in under "
                           r"([\d.]+) (\S+) \(the call's GPU time\); this capture's host took ([\d.]+) (\S+) "
                           r"at its \d+th percentile(?: \(median [\d.]+ µs\))? "
                           r"\(its reference call: ([\d.]+) (\S+)\)", text)
    assert len(crossings) >= leads
    for x1, u1, _, u2, _, u3 in crossings:
        assert (u2, u3) == ("µs", "µs")
        assert (u1, float(x1) < 1000) == ("µs", True) or (u1, float(x1) >= 1) == ("ms", True)


def test_host_cost_of_a_call_reads_the_same_on_the_set_page_and_in_the_verdict(page, loaded):
    """One value per quantity: the host cost of one call in the verdict's host line is the one the set page's
    table note gives for the same variant (not 75.9 µs on one and 0.1321 ms on another)."""
    text = page(_set_page(LEAD))
    v = verdicts.verdict(loaded[LEAD], "article", "inference")
    for x in v.host_noise:
        t = v.row(x)
        cost = host_words.usec(t.host_cost_ms)
        # the verdict and the table note (in "this capture's host took", or "the host's cost (...)" where the host
        # is faster than the GPU: review item 8)
        assert text.count(cost) >= 2, (x, cost)


def test_the_crossover_is_the_call_s_gpu_time():
    cross = host_words.host_crossover(0.0589, 0.0556, 0.0133)
    assert "in under 58.9 µs" in cross and "took 55.6 µs" in cross and "reference call: 13.3 µs" in cross
    assert host_words.host_crossover(None, 0.05, 0.01) is None


def test_what_a_host_saw_is_never_within_noise():
    line = host_rules.HOST_BOUND_EAGER_RATIO
    assert "waited" in host_words.on_this_host(1.6, (1.5, 1.7))
    assert "stayed busy" in host_words.on_this_host(1.02, (0.99, 1.06))
    assert "line" in host_words.on_this_host(1.1, (1.0, line + 0.1))


# --------------------------------------------------------------------------- §1: kernels compared in equal conditions


def _gpu_verdicts(loaded, verdict=verdicts.verdict):
    for name, ls in loaded.items():
        for sc in verdicts.scenarios(ls):
            for mode in ("inference", "train"):
                v = verdict(ls, sc, mode)
                if v is not None and v.basis == "gpu_only":
                    yield name, v


def test_every_gpu_verdict_says_which_time_ranks_and_gives_each_time_its_clock_power_and_equal_clock(loaded):
    """A verdict ranks by the as-run time (what a user gets) and says so; each time it names stands with the SM
    clock and power it ran at and its time at the set's reference clock."""
    seen = 0
    for name, v in _gpu_verdicts(loaded):
        w = verdict_words.verdict(v)
        ranked = next(x for x in w.lines if x.startswith("Ranked by the as-run"))
        if v.memory_bound:  # review item 10: equal clock does not apply to a memory-bound point
            assert "equal clock does not apply" in ranked and all(t.at_ref_ms is None for t in v.rows)
            continue
        # the equal-clock time is named where the named rows' windows each had one clock (rules.one_clock)
        shown = equal_clock_shown.shown(v)
        assert (f"equal clock ({v.ref_mhz:.0f} MHz" in ranked) == bool(shown or equal_clock_shown.flips_shown(v)), \
            (name, v.scenario)
        clock = next(x for x in w.lines if x.startswith("As run, with the SM clock and board power"))
        named = {v.fastest.variant, *v.same_kernel, *v.near, *((v.runner_up.variant,) if v.runner_up else ())}
        for x in named:
            t = v.row(x)
            power = table_words.watts(t.power_w, v, t.power_window_s, t.power_avg_w)
            # a one-clock row beside a named row without one gets no model time: the two would stand on two bases
            said = (f", {words.us(t.at_ref_ms)} at equal clock" if x in shown
                    else "" if t.one_clock else f", no single clock to scale by (min {t.sm_clock_min_mhz:.0f} MHz)")
            head = f"{words.label(x)} {words.us(v.spread(t).median)} at {t.sm_clock_mhz:.0f} MHz and {power}{said}"
            assert head in clock, (name, v.scenario, x)
            if not said:
                assert f"{head}, {words.us(t.at_ref_ms)}" not in clock, (name, v.scenario, x)
        seen += 1
    assert seen >= 10


def test_where_equal_clock_orders_otherwise_the_verdict_says_so_and_who_pays(loaded):
    """The H200's FP8 prefill: SDPA cuDNN ran at about 1607 MHz, FlexAttention FP8 at 1810 MHz; at equal clock
    cuDNN is the faster of the two, as run it is not. The verdict names the pair and the clocks. Every such pair of
    the committed sets has a window with no single clock (rules.one_clock), which gets no equal-clock time: the words
    are checked on the same rows with that rule off (tests/one_clock_off.py), and the committed verdicts hold none."""
    assert not any(v.clock_flips for _, v in _gpu_verdicts(loaded))
    flips = 0
    for _, v in _gpu_verdicts(loaded, one_clock_off.verdict):
        line = as_run_words.equal_clock_line(v)
        for f in v.clock_flips:
            ta, tb = v.row(f.first), v.row(f.second)
            assert ta.at_ref_ms > tb.at_ref_ms and v.spread(ta).median <= v.spread(tb).median
        if v.clock_flips:
            flips += 1
            assert "at equal clock (a model) the order differs" in line.lower()
            assert "the equal-clock order is a model of the kernels' efficiency" in line
            # the first pair said is one among the rows the line names, where there is one (review 2026-12-06)
            assert any(f"{words.label(f.second)} ran at {v.row(f.second).sm_clock_mhz:.0f} MHz against" in line
                       for f in v.clock_flips)
        elif v.memory_bound:
            assert line is None
        else:
            assert "At equal clock (a model) the order is the same" in line
    assert flips, "the committed sets' rows hold at least one pair the clock reorders"
    v = one_clock_off.verdict(loaded[H200], "fp8-prefill", "inference")
    assert verdicts.ClockFlip("flex_fp8", "sdpa_cudnn") in v.clock_flips


def test_equal_clock_time_is_the_time_times_its_clock_over_the_reference(loaded):
    for _, v in _gpu_verdicts(loaded):
        for t in v.rows:
            if t.at_ref_ms is not None:
                assert t.at_ref_ms == pytest.approx(t.gpu_only.median * t.sm_clock_mhz / v.ref_mhz)


@pytest.mark.parametrize("name", GPU_SETS)
def test_set_page_verdicts_carry_the_equal_clock_line(page, name):
    text = page(_set_page(name))
    # memory-bound verdicts (decode) carry none: equal clock does not apply there (review item 10)
    assert text.count("As run, with the SM clock and board power of each window") >= 5
    assert "equal clock does not apply" in text


def test_sustained_names_only_windows_long_enough(pages):
    """ "Sustained" only for a window of at least rules.SUSTAINED_WINDOW_S (the article's rows were windows of
    about 0.09 s at the maximum clock): a time called sustained states its window, long enough."""
    for name, text in pages.items():
        for m in re.finditer(r"ms sustained \(graph replays over ([\d.]+) s", text):
            assert float(m.group(1)) >= rules.SUSTAINED_WINDOW_S, name
        assert "ms sustained (graph replays, the GPU warm" not in text, name
    assert rules.sustained(rules.SUSTAINED_WINDOW_S) and not rules.sustained(0.09)


def test_methodology_says_clocks_fall_under_load():
    text = (ROOT / "docs" / "methodology.md").read_text(encoding="utf-8")
    assert "ramp up" not in text
    assert "under load its clocks fall" in text and "equal clock" in text


def test_the_rules_table_names_the_sustained_threshold_and_the_power_limit_share(page):
    text = page("generated/.rules.md")
    assert f"at least {rules.SUSTAINED_WINDOW_S:g} s long" in text
    assert f"at least {rules.POWER_AT_LIMIT_PCT:g}% of the enforced limit" in text


# --------------------------------------------------------------------------- §1: ceilings at the point's clock


@pytest.mark.parametrize("name", GPU_SETS)
def test_matmul_ceiling_is_set_at_each_point_s_clock_and_fp8_against_none(loaded, name):
    """A ceiling taken at one clock bounds a point at another only scaled to it (86% of a ceiling taken at
    1487 MHz against points at 1625-1980 MHz was wrong); FP8 points are not set against the BF16 product."""
    import math

    from gen.analysis import scaling
    from gen.analysis import scenarios as sa

    ls = loaded[name]
    cl, mm_clock = scaling.ceilings(ls), scaling.matmul_clock(ls)
    assert cl and mm_clock, "a schema-3/4 set records the matmul ceiling's clock"
    checked = 0
    for sc in sa.scenario_names([ls]):
        for r in sa.point_frame(ls, sc).to_dict("records"):
            if r["status"] != "ok" or math.isnan(r["tflops"]):
                continue
            if sa.element_size(r.get("dtype") or sa.scenario_dtype(ls, sc)) == 1 or r["variant"].endswith("fp8"):
                assert math.isnan(r["pct_of_matmul_at_clock"]) or r["ceiling"] != sa.CEILING_MATMUL, (sc, r["variant"])
                continue
            if math.isnan(r["sm_clock_mhz"]) or not r["one_clock"]:  # no clock, or no single clock to scale to
                assert math.isnan(r["pct_of_matmul_at_clock"])
                continue
            at = cl["matmul_tflops"] * r["sm_clock_mhz"] / mm_clock
            assert r["pct_of_matmul_at_clock"] == pytest.approx(100 * r["tflops"] / at), (sc, r["variant"])
            checked += 1
    assert checked > 20


def test_scenario_pages_name_the_ceiling_at_the_point_s_clock(pages):
    """The share of the matmul ceiling is of the ceiling as measured, with the clock it ran at; a share scaled
    to the point's clock is labelled a model (review 2026-12-06-3 item 6)."""
    said = [t for t in pages.values() if "% of the measured matmul ceiling" in t]
    assert said
    for t in said:
        assert not re.search(r"% of the measured matmul ceiling(?! \(\d+ TFLOP/s at \d+ MHz)", t)
        for m in re.finditer(r"% of it scaled to this point&#39;s \d+ MHz( \(a model\))?", t):
            assert m.group(1), m.group(0)


# ------------------------------------------------------------------------- §1: published figures carry their conditions


def test_fa3_anchor_records_the_paper_s_stated_conditions():
    """The FlashAttention-3 paper states a fixed 1830 MHz clock, cuDNN 9.1.1.17 and PyTorch 2.3.0: recorded in
    the anchor (and the committed set), cited in its source, not "not stated"."""
    from gen.model import anchors, schema

    rs = schema.load_set(RESULTS / anchors.FA3_NAME)
    assert rs.environment.cudnn == "9.1.1.17" and rs.environment.torch == "2.3.0"
    assert "1830 MHz" in rs.source and "cuDNN 9.1.1.17" in rs.source and "PyTorch 2.3.0" in rs.source
    assert {p.published.clock_mhz for p in rs.sweep} == {1830.0}


def test_ours_against_fa3_is_also_given_at_the_paper_s_clock(pages, loaded):
    """Ours against a figure taken at a stated clock: at equal clock, our rate x 1830 / our clock."""
    from gen.analysis import scenarios as sa

    sets = [tables.load_set(RESULTS / n) for n in (LEAD, "nvidia-h100-sxm5__flashattention3-paper")]
    anchors = sa.anchor_frame(sets, "article", sets[0])
    vs = sa.versus_frame(sa.point_frame(sets[0], "article"), anchors)
    vs = vs[vs["anchor_clock_mhz"].notna() & vs["ours_clock_mhz"].notna()]
    assert len(vs)
    for r in vs.to_dict("records"):
        assert r["ours_rate_ratio_at_clock"] == pytest.approx(
            r["ours_tflops"] * 1830.0 / r["ours_clock_mhz"] / r["anchor_tflops"])
    assert any("The source states its clock fixed at 1830 MHz" in t for t in pages.values())


def test_cudnn_frontend_compare_explains_the_clock_and_flags_only_what_it_compares(page):
    """The published cuDNN-frontend figures state no clock: the page says the ratios mix kernels and clocks and
    gives A's clock per row; a thin timing of a variant the table does not show is no caveat of it."""
    text = page("generated/sets/nvidia-h200__cudnn-frontend-9.19.1/compare.md")
    assert "A's SM clock" in text and "The source states no clock setting" in text
    assert "GPU-only time of Naive rests on" not in text


# --------------------------------------------------------------------------- §2: every cost a user pays


def test_a_decision_running_cudnn_states_its_cost_per_new_length_or_that_it_was_not_measured(loaded):
    """The H200 set's decision calls SDPA unpinned, which picks cuDNN: it has no dynamic-lengths runs (schema 3),
    so the first screen says the cost per new length was not measured and what to do."""
    from gen.analysis import advice

    a = advice.advice(loaded[H200])
    assert a.lengths is not None and not a.lengths.measured
    w = decision_words.advice(a)
    assert any("did not measure what that costs" in x and "Bucket or pad" in x for x in w.lines)


def test_cudnn_cost_per_new_length_comes_from_the_set_s_dynamic_lengths_runs(loaded):
    """On the lead set, cuDNN's first call at each new length (about 35 ms against a steady 0.05-0.07 ms) as the
    dynamic-lengths page gives it (gen.analysis.dynamic: after the warm-up, against the second call), and a pinned
    call that breaks even first."""
    import dataclasses

    from gen.analysis import advice
    from gen.analysis import dynamic as dyn

    ls = loaded[LEAD]
    x = length_cost.lengths(ls, "sdpa_cudnn")
    assert x.measured
    rec = {d.phase: d for d in dyn.runs(ls.rs, switched=False) if d.variant == "sdpa_cudnn"}
    assert {p.phase: (p.first_extra_ms, p.steady_ms) for p in x.phases} == \
        {ph: (d.first_overhead_ms, d.steady_ms) for ph, d in rec.items()}
    line = decision_words.lengths_line(dataclasses.replace(advice.advice(ls), lengths=x))
    for d in rec.values():  # against its second call, as the page measures it (review 2026-12-06-2 item 13)
        assert f"{words.us(d.first_overhead_ms)} more than its second call (a warm call in a loop: " \
               f"{words.us(d.steady_ms)})" in line
    assert "Bucket or pad" in line and "sdpa_auto" not in {i.variant for i in x.instead}
    # what to call instead carries its whole length-by-length outcome, the lengths where it is cheaper at any count
    # included (review 2026-12-06-2 item 5)
    from gen.report.words import dynamic as dynamic_words

    for i in x.instead:
        assert i.outcomes and dynamic_words.per_length_clause(i.outcomes) in line  # as a clause (review 10 item 14)


@pytest.mark.parametrize("name", GPU_SETS)
def test_the_start_up_the_first_screen_expects_is_the_set_s_own_first_call(loaded, name):
    """"Expect about 0.48–1.24 s of cuDNN set-up at each new kind of problem" only from the set's measurement: every
    figure in seconds the line gives is a first call the set recorded (its runs' or its sweep's: review 18 item 2)."""
    from gen.analysis import advice

    ls = loaded[name]
    a = advice.advice(ls)
    line = decision_words._startup(a)
    if line is None:
        return
    from gen.analysis.first_calls import NEW_KIND_S
    from gen.report.words.first_calls import secs

    line = line.replace(f"the {secs(NEW_KIND_S)} that marks a new kind", "")  # the rule's line, not a measurement
    # a compiled call: every figure of its first two sentences (the range over the set's compiles, the article's)
    said = (re.findall(r"(\d+\.\d+)(?:–[\d.]+)? s\b", line) + re.findall(r"–(\d+\.\d+) s\b", line)
            if line.startswith("Expect about") else
            re.findall(r"(\d+\.\d+)(?=–| s\b)", line.split("configuration (", 1)[1].split(" A configuration")[0]))
    assert said
    firsts = [r.first_call_s for r in [*ls.rs.runs, *ls.rs.sweep] if r.first_call_s is not None]
    for x in said:
        digits = len(x.split(".")[1])
        assert any(round(f, digits) == float(x) for f in firsts), x


# --------------------------------------------------------------------------- §4: the other sentences


def test_ties_share_a_rank_on_compare_pages_too(loaded):
    """Compare pages ranked cuDNN 2 and the unpinned call 1 while they run the same kernels: the verdict's rank
    on every page now."""
    from gen.analysis import compare

    f = compare.compare_frame(loaded[LEAD], loaded[H200])
    for side, name in (("a", LEAD), ("b", H200)):
        v = verdicts.verdict(loaded[name], "article", "inference")
        for r in f.to_dict("records"):
            if v.rank(r["variant"]) is not None:
                assert r[f"rank_{side}"] == v.rank(r["variant"]), (side, r["variant"])
        ranks = dict(zip(f["variant"], f[f"rank_{side}"]))
        assert ranks["sdpa_cudnn"] == ranks["sdpa_auto"] == 1


def test_a_verdict_on_spreads_past_half_the_median_says_it_cannot_rank():
    """The CPU set's training verdict rests on host times spreading 94-278%: it says it cannot rank."""
    ls = tables.load_set(RESULTS / "cpu-intel-r-xeon-r-processor__torch-2.13.0")
    v = verdicts.verdict(ls, "article", "train")
    assert v.unrankable and all(p > rules.CANNOT_RANK_IQR_PCT for _, p in v.unrankable)
    head = verdict_words.verdict(v).headline
    assert head.startswith("The times here cannot rank") and "are the fastest" not in head
    ok = verdicts.verdict(ls, "article", "inference")
    assert not ok.unrankable and "fastest" in verdict_words.verdict(ok).headline


def test_pytorch_s_dispatcher_refuses_not_cudnn(pages):
    for name, text in pages.items():
        assert "cuDNN refuses" not in text, name
        assert "an unnamed backend deterministic" not in text, name


def test_a_part_is_never_said_to_be_of_a_smaller_gap(pages):
    """"3.6 µs of the 3.2 µs gap": a part larger than the gap is set beside it instead."""
    def to_us(x, unit):
        return float(x) * (1000 if unit == "ms" else 1)

    for name, text in pages.items():
        for m in re.finditer(r"([\d.]+) (µs|ms) of the ([\d.]+) (µs|ms) gap", text):
            assert to_us(m.group(1), m.group(2)) <= to_us(m.group(3), m.group(4)), (name, m.group(0))
    assert "more than the whole 3.2 µs gap" in why_words.of_gap(3.6, 3.2)  # µs, as the Why holds them


@pytest.mark.parametrize("name", GPU_SETS)
def test_the_paged_kv_verdict_names_what_pages_and_its_cost(loaded, name):
    """The decode-kernels verdict answers a paged KV cache from the calls that page (SDPA cannot) and gives the cost
    of paging against the same call on a contiguous cache, never against another kernel that happens to be the
    fastest (review 2026-12-06-2 item 11: paged FA4 1.02x FA4 on the H100, not 1.03x SDPA's cuDNN; paged
    FlexAttention 1.47x FlexAttention on the H200)."""
    from gen.model.variants import VARIANTS

    v = verdicts.verdict(loaded[name], "decode-kernels", "inference")
    assert v.paged
    best = min(v.paged, key=lambda x: v.spread(v.row(x)).median)
    line = verdict_words.paged_line(v)
    assert line in verdict_words.verdict(v).lines
    assert f"call {words.label(best)}" in line and "SDPA reads a contiguous cache only" in line
    twin = VARIANTS[best].contiguous
    assert twin is not None and v.row(twin) is not None  # both committed sets measured the same call unpaged
    cost = words.times(v.spread(v.row(best)).median / v.spread(v.row(twin)).median)
    assert (f"Against the same call on a contiguous cache ({words.label(twin)}, "
            f"{words.us(v.spread(v.row(twin)).median)}), paging costs {cost}") in line
    if twin != v.fastest.variant:
        other = words.times(v.spread(v.row(best)).median / v.spread(v.fastest).median)
        assert f"paging costs {other}" not in line or other == cost


def test_chunked_prefill_first_screen_warns_of_the_top_left_mask_and_names_its_chunk_size(loaded):
    from gen.analysis import advice

    a = advice.advice(loaded[LEAD])
    line = next(x for x in decision_words.advice(a).lines if x.startswith("For chunked prefill"))
    assert "with 16 queries against 8k keys" in line and "other chunk sizes differ" in line
    assert "Not SDPA with is_causal=True" in line and "wrong answer" in line


@pytest.mark.parametrize("name", GPU_SETS)
def test_sub_microsecond_memsets_contradict_no_hypothesis(loaded, name):
    """Findings said "7 of 9 contradicted" on 0.7 µs memsets: a memset under rules.SUB_US_MEMSET_US is a library's
    bookkeeping, so a count or a copy it alone makes differ is no contradiction."""
    from gen.analysis import findings

    ls = loaded[name]
    hyp = findings.check_hypotheses(ls, "inference")
    for r in hyp.to_dict("records"):
        if r["basis"] != "measured" or not (r["kernels_contradicted"] or r["copy_contradicted"]):
            continue
        kt = tables.kernel_table(ls, r["variant"], "inference")
        book = int(((kt["kind"] == "memset") & (kt["dur_us"] < rules.SUB_US_MEMSET_US)).sum())
        if r["kernels_contradicted"]:
            assert r["measured_kernels"] - book != r["expected_kernels"], r["variant"]
        if r["copy_contradicted"] and r["measured_copy_or_fill"]:
            assert r["copy_or_fill_events"], r["variant"]


def test_float32_kernels_are_unexpected_only_where_the_hypothesis_expected_tensor_cores(loaded):
    """sdpa_math was flagged unexpected for its float32 kernels while its hypothesis (off the tensor cores) held."""
    from gen.analysis import findings
    from gen.model.variants import VARIANTS

    seen = 0
    for ls in loaded.values():
        for f in findings.rule_float32(ls):
            expected = VARIANTS[f.variant].expect.tensor_cores is False
            assert (f.severity == findings.Severity.INFO) == expected, f.variant
            seen += f.variant == "sdpa_math"
    assert seen


def test_graph_above_eager_says_what_the_graph_check_found():
    from gen.report.words import scenarios as scenario_words

    note = scenario_words.graph_above_eager_note(1, [("Naive", "memcpy128 ×1", "Memcpy DtoD (Device -> Device) ×1")])
    assert "memcpy128 ×1 only in the graph" in note and "Memcpy DtoD" in note and "not established" not in note


def test_a_cpu_set_s_compute_is_not_divided_by_a_gpu_host_s_dispatch(page):
    from gen.analysis import compare

    a = tables.load_set(RESULTS / LEAD)
    b = tables.load_set(RESULTS / "cpu-intel-r-xeon-r-processor__torch-2.13.0")
    f = compare.compare_frame(a, b)
    assert f["host_ratio"].isna().all()
    # A CPU set against a GPU set could only say "not like for like": the site makes no such page (issue 33)
    with pytest.raises(FileNotFoundError):
        page("generated/sets/cpu-intel-r-xeon-r-processor__torch-2.13.0/compare.md")


def test_packed_documents_ratio_is_named_against_the_dense_mask_with_the_closer_calls(loaded):
    """The H200's 13.5x is against SDPA given a dense mask; varlen (1.19x) and nested tensors (1.39x) are closer;
    a forward pass only. Each said."""
    from gen.analysis import advice

    a = advice.advice(loaded[H200])
    line = next(x for x in decision_words.advice(a).lines if x.startswith("For packed documents"))
    e = next(x for x in a.exceptions if x.scenario == "packed-documents")
    assert f"the {words.times(e.ratio)} is against that dense mask" in line
    assert {b.variant for b in e.between} >= {"varlen", "sdpa_nested"}
    for b in e.between:
        assert f"{words.label(b.variant)} {b.ratio:.2f}× slower" in line
    assert e.forward_only and "in a forward pass" in line


def test_no_forward_only_published_figure_under_deterministic_backward(pages):
    """FlashAttention-3's published forward figures do not belong on a training-step scenario."""
    for name, text in pages.items():
        if name.endswith("scenarios/deterministic-backward.md"):
            assert "flashattention3-paper" not in text and "FlashAttention-3" not in text, name


# a window's board power as a cell gives it: one reading ("≈690 W", "775 W instant") or, schema 5, the instant
# mean, the averaged one and the share of samples held down for power ("852 W instant, ≈699 W averaged · held
# for power 92% of samples"; the set page's summary joins with ", " where a scenario cell joins with " · ")
POWER = r"≈?(\d+) W(?: instant| averaged)?(?:, ≈?\d+ W averaged · held for power \d+% of samples)?"


@pytest.mark.parametrize("name", GPU_SETS)
def test_the_set_summary_table_gives_each_time_its_clock_power_and_equal_clock(docs, name, loaded):
    text = (docs / _set_page(name)).read_text(encoding="utf-8")
    cells = re.findall(rf"<small>@ (\d+) MHz, {POWER.replace(' · ', ', ')}; ([\d.]+) (?:ms|µs) at (\d+) MHz "
                       r"\(equal clock, a model\)</small>", text)
    ref = loaded[name].rs.environment.ref_mhz
    assert len(cells) >= 10
    # every graph-replay time's cell reads so (a kernel sum's names its window before its equal-clock time)
    every = re.findall(r"<small>@ [^<]*\(equal clock, a model\)</small>", text)
    assert len(cells) == len([c for c in every if "profiled calls" not in c])
    assert all(int(r) == round(ref) for *_, r in cells)


@pytest.mark.parametrize("name", GPU_SETS)
def test_scenario_tables_give_each_time_its_equal_clock_time(docs, name):
    text = (docs / f"generated/sets/{name}/scenarios/gqa-prefill.md").read_text(encoding="utf-8")
    cell = rf"(\d+) MHz \(min (\d+)\) · {POWER} · \d+ °C · [\d.]+ (?:ms|µs) at \d+ MHz \(equal clock, a model\)"
    scaled = re.findall(cell, text)
    # a window whose lowest clock lies past the clock gap under its mean has no single clock: no equal-clock time,
    # and the cell says so (most of this scenario's windows: its long calls dip below the clock gap)
    assert scaled and all(rules.one_clock(float(mean), float(low)) for mean, low, *_ in scaled)
    none = rf"(\d+) MHz \(min (\d+)\) · {POWER} · \d+ °C · {re.escape(table_words.NO_SINGLE_CLOCK)}"
    unscaled = re.findall(none, text)
    assert unscaled and not any(rules.one_clock(float(mean), float(low)) for mean, low, *_ in unscaled)
    assert len(scaled) + len(unscaled) >= 5


def test_a_block_mask_build_stands_beside_the_call_it_serves(loaded):
    """BlockMask build time (8.32 ms against a 1.10 ms forward for packed documents) beside the steady time."""
    from gen.analysis import advice

    ls = loaded[H200]
    a = advice.advice(ls)
    e = next(x for x in a.exceptions if x.scenario == "packed-documents")
    rec = verdicts.point_records(ls, "packed-documents", "inference")[e.variant]
    assert e.mask_build_s == rec.facts["block_mask_build_s"]
    line = next(x for x in decision_words.advice(a).lines if x.startswith("For packed documents"))
    # since review 2026-12-07-5 item 2, against the call that needs no mask (varlen_attn): after how many calls with one
    # layout the build is repaid, and which call a new layout every batch asks for (8.32 + 1.10 ms against 1.31 ms)
    m = e.mask_cost
    assert m.build_ms == pytest.approx(e.mask_build_s * 1e3) and m.call_ms == pytest.approx(e.call_ms)
    # one timing of the build, to three figures (review 2026-12-07-8 item 7): 8.32 ms, not 8.317 ms
    assert f"Its BlockMask took {words.one_timing(e.mask_build_s * 1e3)} to build" in line
    assert f"takes {words.us(m.other_ms)} a call against {words.us(e.call_ms)}" in line
    # the break-even from every lead the set holds (review 2026-12-07-6 item 2): here the whole medians and kernel sums
    lo, hi = m.repay_range
    assert m.calls_to_repay == pytest.approx(40, abs=1)
    assert lo == pytest.approx(40, abs=1) and hi == pytest.approx(44, abs=1)
    # the ends round alike, so the range is given unrounded (review 2026-12-07-7 item 1: "40" for 40-44)
    assert "FlexAttention's lead of" in line
    assert "repays one build, timed once, only after 40–44 calls with one document layout" in line
    assert "builds it every step, once for all of that step's calls" in line and "for a step of one call" not in line
    assert "with fewer than 40 such calls a step, call varlen_attn" in line
