"""Review 18 (docs/notes/review-2026-12-07-9.md), findings 1, 2, 3, 4, 13, 14, 16 and 17. Numbers are read from the
committed sets (or from small synthetic facts), never typed in where the sets give them."""

from __future__ import annotations

import dataclasses

import pytest

from gen.analysis import advice, calls, verdicts
from gen.analysis.calls import Spread
from gen.report.pages import decision
from gen.report.words import common as words
from gen.report.words import decision as decision_words
from gen.report.words import verdicts as verdict_words
from tests.conftest import CAPTURED_LATER, RESULTS, all_verdicts


@pytest.fixture(scope="module")
def loaded_h100():
    from gen.analysis import tables

    return tables.load_set(RESULTS / CAPTURED_LATER[0])

# --------------------------------------------------------------------------- finding 1: a host-bound call's loop gain


def _spread(median: float) -> Spread:
    return Spread(median=median, q1=median, q3=median, n=10)


def test_loop_ms_is_for_a_host_bound_call_only():
    """The eager medians are given where the call is host-bound (the rule's yes), and nowhere else."""
    fast = calls.Timed("a", "ok", gpu_only=_spread(0.06), eager=_spread(0.13), host_bound=True)
    slow = calls.Timed("b", "ok", gpu_only=_spread(0.18), eager=_spread(0.18))
    assert calls.loop_ms(fast, slow) == (0.13, 0.18)
    assert calls.loop_ms(dataclasses.replace(fast, host_bound=False), slow) is None
    assert calls.loop_ms(fast, dataclasses.replace(slow, eager=None)) is None


def _host_bound_fastest(ls):
    return [v for v in all_verdicts(ls) if v.loop_ms is not None]


def test_a_host_bound_fastest_gives_the_loop_gain_beside_the_gpu_one(paired):
    """Paired chunked prefill: the recommended call is host-bound. Its verdict, its What to call and its first-screen
    row each give the gain an eager loop gets (from the eager medians) beside the GPU-only one, and the verdict's host
    paragraph gives the host-bound call's host figures."""
    vs = _host_bound_fastest(paired)
    assert vs, "the paired set's chunked-prefill verdict has a host-bound fastest call"
    for v in vs:
        f, r = v.fastest, v.runner_up
        loop = words.times(r.eager.median / f.eager.median)
        text = " ".join(verdict_words.verdict(v).lines)
        assert f"leads {words.label(r.variant)} by {loop}" in text
        assert f"not by the {words.times(v.ratio)}" in text
        host = next(x for x in verdict_words.verdict(v).lines if x.startswith(verdict_words.HOST_SPEED_LEAD))
        assert f"{words.label(f.variant)}: " in host and f"{f.host_cost_ms * 1000:.1f} µs" in host
    a = advice.advice(paired)
    for e in a.exceptions:
        v = verdicts.verdict(paired, e.scenario, e.mode)
        t = v.row(e.variant)
        if not t.host_bound:
            assert e.loop_ms is None
            continue
        assert e.loop_ms == (t.eager.median, v.row(a.default).eager.median)
        line = decision_words._exception(a, e)
        assert f"in an eager loop on this host it is {words.times(e.loop_ms[1] / e.loop_ms[0])} slower" in line
        row = next(r for r in decision.table_rows(paired) if r["variant"] == e.variant)
        assert "on the GPU" in row["gain"] and row["gain"].endswith(
            f"in an eager loop, where the call is host-bound ({words.us(e.loop_ms[0])} against "
            f"{words.us(e.loop_ms[1])} a call)")
        assert "host-bound" not in row["condition"]  # said once, in the gain cell beside the loop's gain


def test_the_host_paragraph_names_every_host_bound_call(paired, h200_new):
    """Every verdict that calls a row host-bound gives that row's host cost in its host paragraph."""
    seen = 0
    for ls in (paired, h200_new):
        for v in all_verdicts(ls):
            lines = verdict_words.verdict(v).lines
            host = next((x for x in lines if x.startswith(verdict_words.HOST_SPEED_LEAD)), "")
            for x in v.host_bound:
                t = v.row(x)
                if t.host_cost_ms and t.gpu_only is not None:
                    seen += 1
                    assert f"{words.label(x)}: " in host, (v.scenario, x)
    assert seen


# --------------------------------------------------------------------------- findings 2 and 3: cuDNN's first calls


def test_the_split_of_first_calls_is_by_the_named_line_and_agrees_with_what_was_new(paired, h200_new):
    """A first call at a new point is a new kind of problem where it took at least NEW_KIND_S, a new shape under it;
    in the committed sets every point over the line is also one where the mode, head dim, decode or mask was new, and
    none under it is: the line is read off the data, not set by hand."""
    from gen.analysis import first_calls

    for ls in (paired, h200_new):
        fs = first_calls.first_calls(ls, "sdpa_cudnn")
        assert fs and fs[0].first and fs[0].run
        for f in fs[1:]:
            if f.seen:
                assert not f.new_kind and not f.new_shape
                continue
            assert f.new_kind == (f.first_call_s >= first_calls.NEW_KIND_S) != f.new_shape
            assert f.new_kind == bool(f.new), (f.scenario, f.point, f.first_call_s, f.new)


def test_first_calls_need_a_set_that_records_its_process(h200):
    """A set before schema 3 does not say whether a run was the process's first call of its backend: no split."""
    from gen.analysis import first_calls

    assert not first_calls.first_calls(h200, "sdpa_cudnn")


def test_the_start_up_is_said_per_new_kind_of_problem(paired):
    """Review 18 item 2: "Expect about 0.8 s of one-time cuDNN start-up" while the same set paid 0.5-1.2 s again at
    each new kind of problem. The sentence gives the range of the new kinds with the process's first call, each new
    kind's time, and the range of the new shapes, every figure the set's own."""
    from gen.report.words.first_calls import secs, span

    a = advice.advice(paired)
    line = decision_words._startup(a)
    assert "one-time" not in line
    fs = a.startup.first_calls
    kinds = [f for f in fs if f.new_kind]
    shapes = [f for f in fs if f.new_shape]
    assert kinds and shapes
    assert line.startswith(f"Expect about {span([a.startup.first_call_s, *(f.first_call_s for f in kinds)])} of "
                           "cuDNN set-up at each new kind of problem")
    for f in kinds:
        assert secs(f.first_call_s) in line
    assert f"{span([f.first_call_s for f in shapes])} at each new shape" in line
    assert "the first backward" in line and "the first decode call" in line


def _point(**kw):
    from gen.model import schema

    base = dict(batch=1, q_heads=8, kv_heads=8, q_len=1024, kv_len=1024, head_dim=64, mask="causal")
    return schema.Point(**{**base, **kw})


def test_the_sweep_list_names_each_point_by_scenario_and_head_dim():
    """Review 18 item 3: two problems at one KV length were one entry, labelled "KV 1,024" with the other's time.
    Synthetic first calls at one KV length, two head dims: both given, each under its scenario and head dim, on its
    side of the line."""
    from gen.analysis.first_calls import NEW_KIND_S, FirstCall
    from gen.report.words import first_calls as words_

    calls = (FirstCall("article", "inference", _point(), 0.8, first=True, run=True, seen=False),
             FirstCall("article", "inference", _point(), 0.0002, first=False, run=False, seen=True),
             FirstCall("article", "inference", _point(head_dim=128), NEW_KIND_S * 3, first=False, run=False,
                       seen=False, new=("head_dim",)),
             FirstCall("decode", "inference", _point(q_len=1, kv_len=1024, head_dim=128, mask="none"),
                       NEW_KIND_S / 5, first=False, run=False, seen=False))
    text = words_.sweep_split(calls)
    assert (f"A new kind of problem: {words_.secs(NEW_KIND_S * 3)} (the article's shape, head dim 128, KV 1,024: "
            "the first call at head dim 128)") in text
    assert f"A new shape of a kind already set up: decode, head dim 128: {words_.secs(NEW_KIND_S / 5)} (KV 1,024)" \
        in text
    assert "The same problem as an earlier call: 0.2 ms (the article's shape, head dim 64, KV 1,024)" in text


def test_the_lesson_gives_every_sweep_first_call_once(paired):
    """The paired set's cuDNN lesson: every sweep point that timed a first call is given, with its head dim."""
    from gen.analysis import lesson_facts
    from gen.report.words import lessons as lesson_words

    x = lesson_facts.cudnn_costs(paired)
    text = lesson_words.cudnn_costs(x).text
    later = [f for f in x.first_calls if not f.run]
    assert len(later) == sum(1 for s in paired.rs.sweep if s.variant == "sdpa_cudnn" and s.first_call_s is not None
                             and s.status == "ok")
    from gen.report.words.first_calls import place, secs, where

    for f in later:
        assert secs(f.first_call_s) in text
        if f.new_kind or f.seen:  # named by its scenario, head dim and length
            assert f"{secs(f.first_call_s)} ({where(f)}" in text
        else:  # under its scenario and head dim
            assert f"{place(f.scenario, f.mode)}, head dim {f.point.head_dim}: " in text


# --------------------------------------------------------------------------- finding 4: pinning flash, against whom


def test_pinning_flash_is_set_against_the_default_call_where_it_is_faster_warm(loaded_h100):
    """Review 18 item 4: in decode flash's warm call (54.2 µs) was called "faster too" against pinned cuDNN (91.2 µs),
    while the default call, on cuDNN's kernels, took 49.5 µs. Flash is set against the faster of the two cuDNN calls,
    and what decides is each new length: the break-even is cuDNN's plan against that warm gap."""
    from gen.analysis import dynamic, length_cost
    from gen.report.words import lengths_beside as lengths_words

    b = length_cost.beside(loaded_h100, "t")
    auto = dict(b.auto_warm)
    assert "decode" in auto  # the default's decode runs ran cuDNN (their plans cached by the pinned run)
    assert any(w.chose == "cudnn" for w in dynamic.phase_facts(loaded_h100.rs, "decode").warm_cache)
    text = lengths_words.flash_trade(b, ("decode",))
    got = b.flash_trade("decode")
    f, c, n, pinned = got.flash_ms, got.against_ms, got.calls, got.pinned_ms
    assert c == auto["decode"] < pinned and got.against == "sdpa_auto"
    cx = {p.phase: p.first_extra_ms for p in b.phases}["decode"]
    assert n == (cx - dict(b.flash)["decode"]) / (f - c)
    assert f"{words.us(f)}, {words.times(f / c)} the {words.us(c)} of unpinned SDPA on cuDNN's kernels" in text
    # pinned cuDNN's time has its own verb: the ratio is not of it too (review 19 item 8)
    assert f"while {words.label('sdpa_cudnn')} pinned takes {words.us(pinned)};" in text
    assert f"{words.us(c)} of unpinned SDPA on cuDNN's kernels and " not in text
    assert "what decides is each new length" in text and "faster too" not in text
    # where no default call ran cuDNN's kernels faster warm, pinned cuDNN stays the reference
    plain = dataclasses.replace(b, auto_warm=())
    assert plain.flash_trade("decode").against == "sdpa_cudnn" and "faster too" in lengths_words.flash_trade(plain)


# --------------------------------------------------------------------------- finding 13: memory in GiB, two moments


def test_a_captures_whole_gb_is_said_in_gib_as_rounded():
    """The capture wrote "34 GB" (rounded to a whole 10^9 bytes) beside PyTorch's GiB: said as the GiB it is."""
    from gen.report.words.common import GB, GIB, refusal

    text = refusal("skipped", "not run: the 34 GB score matrix alone is more than the 1 GB left free on the GPU at "
                   "this point (of its 85 GB; the rest held by the capture)")
    assert " GB" not in text
    for n in (34, 1, 85):
        assert f"≈{n * GB / GIB:.0f} GiB" in text
    assert refusal("skipped", "needs 0 GB and 1.5 GB") == f"needs <{0.5 * GB / GIB:.1f} GiB and 1.5 GB"


def test_the_paired_sliding_window_page_gives_memory_in_gib_and_its_two_moments():
    """The paired sliding-window page's list of calls that did not run: one unit, and the two free-memory readings said
    to be of two moments; every set's pages carry no whole-GB size of the capture's."""
    import re

    from gen.report.pages import scenario_set
    from gen.report.words.common import free_readings_note

    rows = [dict(variant="sdpa_math", label="SDPA math", status="oom",
                 why_not="out of memory: Tried to allocate 64.00 GiB. GPU 0 has a total capacity of 79.18 GiB of "
                         "which 4.31 GiB is free."),
            dict(variant="naive_compiled", label="Naive under torch.compile", status="skipped",
                 why_not="not run: the ≈32 GiB score matrix alone is more than the ≈1 GiB left free on the GPU")]
    said = scenario_set._not_run(rows)
    assert said[-1] == free_readings_note(said[:-1]) and said[-1].startswith("Both free-memory figures")
    assert free_readings_note(said[:1]) is None
    assert scenario_set._not_run(rows[:1]) == said[:1]  # one reading: no note
    from tests.conftest import ROOT

    page = ROOT / "docs" / "generated" / "sets" / "nvidia-h100-80gb-hbm3__torch-2.11.0__paired" / "scenarios"
    if (page / "sliding-window.md").is_file():  # a built tree (gen build): its text too
        text = (page / "sliding-window.md").read_text(encoding="utf-8")
        assert not re.search(r"\d GB\b", text) and "free-memory figures above were read at different moments" in text


def test_the_reasons_in_full_give_the_captures_sizes_in_gib(paired):
    """The verdict's "reasons above in full" box: PyTorch's GiB and the capture's sizes in one unit."""
    import re

    seen = 0
    for v in all_verdicts(paired):
        for _, reason in verdict_words.cut_reasons(v):
            assert not re.search(r"\d GB\b", reason), reason
            seen += "GiB" in reason
    assert seen


# --------------------------------------------------------------------------- finding 14: why there are no counters


def test_a_capture_that_records_its_stages_and_no_counter_pass_says_so(paired, h200_v1):
    """The paired set (schema 5) records its stages, and no counter pass among them: it took none. It was said to
    predate the pass, as a schema-1 set does; a schema-1 set (no stages recorded) keeps that reason."""
    from gen.analysis import counters
    from gen.report.words import kernels as kernel_words

    assert paired.rs.stage_seconds and counters.COUNTER_STAGE not in paired.rs.stage_seconds
    ok = [r for r in paired.rs.runs if r.status == "ok"]
    assert ok and all(r.counters is None for r in ok)
    for r in ok:
        m = counters.for_run(paired, r.mode, r.variant)
        assert m.absent == counters.Absent.NOT_TAKEN
        said = kernel_words.counters_absent(m.absent, m.reason)
        assert "schema 1" not in said and "none is among its recorded stages" in said
    # a schema-1 set records no stages: its reason stays
    run = next(r for r in h200_v1.rs.runs if r.status == "ok")
    assert counters.for_run(h200_v1, run.mode, run.variant).absent == counters.Absent.NOT_CAPTURED
    # a set whose stages include the pass and a run without counters: not "not taken"
    assert counters.match(run, None, "cuda", {counters.COUNTER_STAGE: 1.0}).absent == counters.Absent.NOT_CAPTURED


# --------------------------------------------------------------------------- finding 16: the tiles' sentence


def test_the_tiles_sentence_agrees_in_number_and_prints_an_exact_ratio():
    """"1 query tiles", "inferred …: not recorded" and "8.000×" (review 18 item 16), on synthetic launches."""
    from types import SimpleNamespace

    from gen.report.words import why as why_words

    def launch(tiles, rows, queries):
        return SimpleNamespace(padded_rows=tiles * rows, queries=queries, blocks=64 * tiles, tiles_per_head=tiles,
                               warpgroups=rows // 64 + 1, tile_rows=rows, tensor_busy_us=None)

    mine = launch(1, 128, 16)
    import unittest.mock as mock

    with mock.patch.object(why_words, "tile_work", lambda a, b: None):
        one = why_words.work_line(mine, launch(1, 128, 16), "X")
        six = why_words.work_line(mine, launch(6, 192, 1024), "X")
    assert "X's 64 blocks are one query tile a head" in one and "8× the rows needed" in one
    assert "X's 384 blocks are 6 query tiles a head" in six and "1.125× the rows needed" in six
    for text in (one, six):
        assert "not recorded" not in text and ".000×" not in text and "1 query tiles" not in text


# --------------------------------------------------------------------------- finding 17: pages of scenarios not reached


def test_a_scenario_the_time_limit_kept_the_capture_from_is_a_stub(paired, loaded_h100, monkeypatch):
    """The paired set's pages of the scenarios its time limit kept it from: that (with the capture's duration), a link
    to the page of a set of the same GPU model and PyTorch that measured it, and no conventions, ceilings or tables."""
    from gen.analysis import capture_gaps
    from gen.report import format as fmt
    from gen.report import site, units
    from gen.report.pages import scenarios as scenario_pages

    monkeypatch.setattr(scenario_pages, "set_view", lambda *a: None)  # the measured scenarios' pages: not made here
    unreached = [n for n, why in paired.gaps.not_reached if why == capture_gaps.STOPPED]
    for sets, beside in (([loaded_h100, paired], True), ([paired], False)):
        ctx = units.set_context(site.Context(sets), paired)
        pages = {p.path: p.text for p in scenario_pages.set_pages(ctx, paired)}
        stubs = [n for n in unreached if fmt.set_scenario_page(paired.name, n) in pages]
        assert stubs and len(pages) == len(stubs)
        for n in stubs:
            text = pages[fmt.set_scenario_page(paired.name, n)]
            assert f"stopped at its time limit (after {paired.rs.duration_s:.0f} s)" in text
            for absent in ("ceiling</", "TFLOP/s", "<table", "How the rates are counted", "Clocks, power"):
                assert absent not in text, (n, absent)
            theirs = fmt.set_scenario_page(loaded_h100.name, n)
            assert (fmt.relpath(theirs, fmt.set_scenario_page(paired.name, n)) in text) == (
                beside and n in loaded_h100.gaps.measured), n
