"""Review 8 (docs/notes/review-2026-12-06-6.md) items 1, 2, 3, 5, 9, 11 and 14, and the home's rows of its status
table (review 6 #2 residual, #3, #5 in tests/test_verdict_repeat.py): the home page's first screen and its "What to
call" paragraph. Each test derives what the page must say from the committed H100 set (or a synthetic variation of its
facts) and fails if the rule is broken."""

from __future__ import annotations

import dataclasses
import re
import statistics

import pytest

from gen.analysis import advice, batch_call, calls, host_rules, rules, tables, verdicts
from gen.analysis import dynamic as dynamic_facts
from gen.analysis.advice import HostLoop
from gen.report.pages import decision
from gen.report.words import behind as behind_words
from gen.report.words import decision as decision_words
from gen.report.words import orders as orders_words
from gen.report.words import places
from gen.report.words.common import join_and, label, short_label, times, us
from tests.conftest import RESULTS

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def h100():
    ls = tables.load_set(RESULTS / H100)
    a = advice.advice(ls)
    return ls, a, decision_words.advice(a), decision.table_rows(ls)[0]


# --------------------------------------------------------------------------- item 1: a loop within noise


def test_a_loop_the_rule_leaves_within_noise_is_never_called_host_bound(h100):
    ls, a, w, _ = h100
    line = next(x for x in w.lines if " also waited in" in x)
    seen = 0
    for x in a.loops:
        sc, ratio, outcome, host_ms, gpu_ms = x.scenario, x.ratio, x.outcome, x.host_cost_ms, x.gpu_ms
        v = verdicts.verdict(ls, sc, "inference")
        t = v.row(a.default)
        assert (host_ms, gpu_ms) == (t.host_cost_ms, t.gpu_only.median)
        assert places.SCENARIO_WORDS.get(sc, sc) in line
        # the words after this loop's ratio, up to the next loop's sentence or the call named there
        part = re.split(r" (?:In |The call there|A loop)", line.split(f"{ratio:.2f}× its GPU-only time", 1)[1])[0]
        if outcome == rules.WITHIN_NOISE:
            seen += 1
            assert ", host-bound." not in part and "host-bound on this host" not in part
            assert host_ms < host_rules.HOST_YES_MARGIN * gpu_ms  # the premise of the words below
            assert (f"The host-bound rule leaves it undecided. The loop's {ratio:.2f}× says host-bound. Its "
                    f"10th-percentile host cost, {host_ms / gpu_ms:.2f}× its GPU time, lies between the rule's "
                    f"{1 / host_rules.HOST_HEADROOM:g}× and {host_rules.HOST_YES_MARGIN:g}× lines") in line
        elif outcome == rules.YES:
            assert ", host-bound." in part
    assert seen  # chunked prefill: 1.63x in the loop, its host cost 1.30x its GPU time
    # synthetic: the same words for each outcome, never "host-bound" unqualified but for YES
    fake = type("A", (), {"loops": (HostLoop("decode", 1.6, (1.5, 1.7), rules.WITHIN_NOISE, 0.13, 0.1),
                                    HostLoop("gqa-prefill", 1.6, (1.5, 1.7), rules.WITHIN_NOISE, None, None),
                                    HostLoop("sliding-window", 1.6, (1.5, 1.7), rules.YES, 0.2, 0.1)),
                         "default": "fa4", "host_calls": ()})()
    text = decision_words._loops(fake)
    assert text.count("host-bound") == 4 and text.count("The host-bound rule leaves it undecided") == 1 \
        and text.count("within noise of the host-bound line") == 1 \
        and "not called host-bound" not in text and ", host-bound." in text


# --------------------------------------------------------------------------- item 2: behind by kernel sum, elsewhere


def _kernels_led_sizes(ls, default):
    """Every sweep point past the verdicts' where the default is within noise as run of the fastest but the kernel
    sums put that call ahead (Orders.kernels_leader), derived here from the verdicts at those points."""
    out = []
    for sc in verdicts.scenarios(ls):
        for mode in ("inference", "train"):
            here = calls.point_of(ls, sc, mode)
            for p in calls._points(ls, sc, mode):
                v = verdicts.verdict_at(ls, sc, p, mode) if p != here else None
                if v is None or v.row(default) is None or v.rank(default) != 1 or v.fastest.variant == default:
                    continue
                o = verdicts.orders(v.fastest, v.row(default), v.basis)
                if not o.apart and o.kernels_leader == v.fastest.variant and v.fastest.kernels != \
                        v.row(default).kernels:
                    out.append((sc, mode, p, o))
    return out


def _led_key(b) -> tuple:
    return (b.scenario, str(b.mode), b.kv_len, b.q_len)


@pytest.mark.parametrize("name", [H100, H200, "nvidia-h100-80gb-hbm3__torch-2.11.0__paired"])
def test_the_points_behind_by_kernel_sum_are_exactly_those_the_verdicts_give(name):
    """advice.behind_at marks a sweep point past the verdicts' as behind by kernel sum exactly where its verdict leaves
    the default within noise as run and the kernel sums put another call (other kernels) ahead (_kernels_led_sizes),
    on every committed set with a decision; never between identical kernels. (Since review 2026-12-07-4 no committed
    point is such: decode at 131k keys on the H100 set, 1.03x by kernel sum, is decided as run by the shared rounds.)"""
    ls = tables.load_set(RESULTS / name)
    a = advice.advice(ls)
    exceptions = {(e.scenario, str(e.mode)) for e in a.exceptions}
    want = {(sc, str(mode), p.kv_len, p.q_len) for sc, mode, p, _ in _kernels_led_sizes(ls, a.default)
            if (sc, str(mode)) not in exceptions}
    got = {_led_key(b) for b in a.behind_at if b.by_kernels}
    assert got == want
    for b in a.behind_at:
        if b.by_kernels:
            assert not b.decided and b.orders.kernels_leader == b.fastest


def test_decode_at_131k_keys_is_behind_as_run_by_the_shared_rounds(h100):
    """The point the next test's behind-by-kernel-sum case was made of: since review 2026-12-07-4 the paired rule
    decides it (SDPA not pinned 1.02x ahead in every shared round), so it is behind, as run, not by kernel sum."""
    _, a, _, _ = h100
    b = next(b for b in a.behind_at if (b.scenario, b.kv_len) == ("decode", 131072))
    assert b.decided and not b.by_kernels and b.orders.decided_by_rounds and not b.orders.apart
    assert b.orders.kernel_sum > 1 and b.orders.kernels_leader == b.fastest  # the sums agree; the rounds decide


def test_past_the_verdicts_points_behind_by_kernel_sum_is_named(h100):
    """Review 8 item 2, on the committed decode point at 131k keys made what the rule words as behind by kernel sum
    (no committed point is one since review 2026-12-07-4): the same pair's orders with the as-run intervals
    overlapping and nothing decided, so the kernel sums name the leader; behind_line names the place, the size, the
    leader's ratio by kernel sum, the sums' clocks and both round orientations."""
    ls, a, _, _ = h100
    real = next(b for b in a.behind_at if (b.scenario, b.kv_len) == ("decode", 131072))
    o = dataclasses.replace(real.orders, apart=False, decided=False, by_rounds=None)
    assert o.kernels_leader == real.fastest and o.kernel_sum > 1 and not o.decided_by_rounds
    b = dataclasses.replace(real, orders=o, decided=False, by_kernels=True)
    line = behind_words.behind_line(dataclasses.replace(a, behind_at=(b,)))
    assert line.startswith(f"Past the verdicts' points, {short_label(a.default)} is {orders_words.BEHIND_BY_KERNELS}: ")
    led = line.split(f"{orders_words.BEHIND_BY_KERNELS}: ", 1)[1]
    assert f"{places.place_of(b.scenario, b.mode)} at {behind_words._size(b, False)} (" in led
    assert f"{label(o.kernels_leader)} {times(o.kernel_sum)} faster by kernel sum" in led
    assert f"{o.first_ks_mhz:.0f} MHz" in led  # the sums' clocks beside them
    assert orders_words.both_orientations(o) in led and "forward" in led and "reversed" in led
    # a point the rule decides is no such point: the real one is worded as behind, never by kernel sum
    real_line = behind_words.behind_line(dataclasses.replace(a, behind_at=(real,)))
    assert orders_words.BEHIND_BY_KERNELS not in real_line and "decode at 128k keys" in real_line.lower()
    # never between calls running identical kernels (the H200 set's SDPA cuDNN and SDPA not pinned: a tie)
    h200 = tables.load_set(RESULTS / H200)
    for x in advice.advice(h200).behind_at:
        assert not x.by_kernels


# --------------------------------------------------------------------------- item 3: decode at batch 1


def _decode_runs(ls):
    return {r.variant: r for r in ls.rs.dynamic if r.phase == "decode" and not r.env and r.status == "ok"}


def test_decode_advice_states_the_batch_and_names_the_batch_1_call_from_the_dynamic_records(h100):
    ls, a, w, row = h100
    dec = next(p for p in a.picks if p.scenario == "decode" and p.mode == "inference")
    c = dec.batch_call
    assert c is not None and (c.batch, c.at_batch) == (1, 8)
    runs = _decode_runs(ls)
    # the numbers, recomputed from the records: GPU-only medians and warm loop calls over the lengths
    gpu = {x: statistics.median(k.gpu_ms for k in r.lengths if k.gpu_ms is not None) for x, r in runs.items()
           if any(k.gpu_ms is not None for k in r.lengths)}
    steady = {x: statistics.median(k.steady_ms for k in r.lengths if k.steady_ms is not None) for x, r in runs.items()
              if any(k.steady_ms is not None for k in r.lengths)}
    assert c.gpu_ms == pytest.approx(gpu[c.variant]) and c.default_gpu_ms == pytest.approx(gpu[a.default])
    assert c.steady_ms == pytest.approx(steady[c.variant])
    # the call named is the fastest warm loop call and the cheapest new length of the runs measured cold
    pf = dynamic_facts.phase_facts(ls.rs, "decode")
    cold = [f for f in pf.measured if not pf.cache_warmed(f.variant)]
    assert c.variant == min(cold, key=lambda f: f.steady_ms).variant
    assert c.variant == min((f for f in cold if f.first_overhead_ms is not None),
                            key=lambda f: f.first_overhead_ms).variant
    assert gpu[c.variant] < gpu[a.default] and steady[c.variant] < steady[a.default]
    # a call faster on the GPU is named with what it pays at each new length (SDPA cuDNN: 56 ms)
    x, ms, new = c.gpu_faster.variant, c.gpu_faster.gpu_ms, c.gpu_faster.new_length_ms
    assert ms == min(gpu[f.variant] for f in cold) < gpu[c.variant] and new > 100 * c.gpu_ms
    # the words: the batch, the call, both ratios, the times, the clock (none recorded), in the decode notes' sentences
    # (review 2026-12-07-1 N3: "Decode at batch 8: …", up to the next standing)
    clause = w.decision.split("Decode at batch 8: ", 1)[1].split(". It is ", 1)[0]
    assert (f"At batch 1 with a growing KV cache, call {label(c.variant)}. In the dynamic-lengths decode runs "
            f"({c.kv_lo:,}–{c.kv_hi:,} keys, clock not recorded) it is {times(gpu[a.default] / gpu[c.variant])} "
            "faster than") in clause
    assert f"({us(c.gpu_ms)} against {us(c.default_gpu_ms)})" in clause
    assert f"{times(steady[a.default] / steady[c.variant])} as a warm call in a loop" in clause
    assert f"{label(x)}, {us(ms)} on the GPU, pays a median {us(new)} at each" in clause
    assert "at batch 1 (" not in w.decision  # the batch-1 order is not told twice
    # the first screen's row is scoped to the batch its decode claim holds at, and names decode once
    assert "decode at batch 8" in row["workload"] and row["workload"].count("decode") == 1


def test_no_batch_1_call_where_no_run_is_both_fastest_once_warm_and_cheapest_per_length(h100):
    ls, a, _, _ = h100
    dec = next(p for p in a.picks if p.scenario == "decode" and p.mode == "inference")
    assert batch_call.batch_call(ls.rs, dec.other_batch, a.default) is not None
    # the steady-best run's new lengths made dearer than another's: no one run is both, so none is named
    flash = dec.batch_call.variant
    runs = [dataclasses.replace(r, lengths=[dataclasses.replace(k, first_ms=k.first_ms + 1.0) for k in r.lengths])
            if r.variant == flash and r.phase == "decode" else r for r in ls.rs.dynamic]
    rs = dataclasses.replace(ls.rs, dynamic=runs)
    assert batch_call.batch_call(rs, dec.other_batch, a.default) is None
    # the default itself the best: nothing to name
    assert batch_call.batch_call(ls.rs, dec.other_batch, flash) is None
    assert batch_call.batch_call(ls.rs, None, a.default) is None


# --------------------------------------------------------------------------- item 5 and review 6 #2: the counts


def test_the_row_counts_not_decided_apart_from_within_noise_and_says_where_the_sums_decide(h100):
    ls, a, w, row = h100
    told = {(e.scenario, e.mode) for e in a.exceptions}
    mine = [p for p in a.picks if (p.scenario, p.mode) not in told]
    led = [p for p in mine if any(orders_words.kernels_behind(o) == a.default for o in p.orders)]
    undecided = [p for p in mine if p.outcome == "within noise" and p not in led
                 and any(o.undecided for o in p.orders)]
    noise = [p for p in mine if p.outcome == "within noise" and p not in led and p not in undecided]
    alone = [p for p in mine if p.outcome == "fastest"]
    # by the kernel sums: the default's lead over the runner-up decided by them (review 6 #2 residual)
    sums = []
    for p in alone:
        v = verdicts.verdict(ls, p.scenario, p.mode)
        o = verdicts.orders(v.fastest, v.runner_up, v.basis)
        by = o.decided and (o.decided_by_kernel_sum or (o.timed_apart and o.as_run <= rules.TIMED_APART_REACH))
        assert p.by_sums == by
        sums += [p] if by else []
    assert undecided and sums and any(p.scenario == "deterministic-backward" for p in sums)
    assert f"({len(alone)} outright, {len(noise)} within noise, {len(undecided)} not decided)" in row["condition"]
    for p in sums:
        title = ls.rs.scenario(p.scenario).title
        assert f"{title[0].lower() + title[1:]} (by kernel sum)" in row["detail"] or \
            f"{title} (by kernel sum)" in row["detail"]
        assert f"{decision_words._place_namer(a.picks)(p)} (by kernel sum)" in w.decision
    for p in undecided:
        o = next(o for o in p.orders if o.undecided)
        assert f"not decided ({orders_words.undecided_why(o)}) against" in row["detail"]
    # the paragraph: one clause for within noise, one for not decided; no workload in the wrong one
    for p in undecided:
        place = decision_words._place_namer(a.picks)(p)
        who = join_and(label(x) for x in p.within)
        assert f"within noise of {who} for {place}" not in w.decision
        clause = w.decision.split(f"not decided against {who} for ", 1)[1].split("; it is ")[0]
        assert place in clause
    for p in noise:
        assert f"{decision_words._place_namer(a.picks)(p)}" in w.decision.split("within noise of ", 1)[1]


# --------------------------------------------------------------------------- items 9 and 11: FP8 prefill


def test_the_fp8_error_on_the_first_screen_says_what_rounding_the_inputs_costs(h100):
    ls, a, w, _ = h100
    p = next(p for p in a.picks if p.scenario == "fp8-prefill")
    rec = next(r for r in ls.rs.sweep if r.scenario == "fp8-prefill" and r.variant == "cudnn_fp8" and r.status == "ok"
               and r.point == calls.point_of(ls, "fp8-prefill", "inference"))
    cost = rec.facts["fp8_input_rounding_error"]
    clause = w.decision.split("for FP8 prefill", 1)[1].split(". It ", 1)[0]
    assert f"{rec.rel_error:.1e} for {label('cudnn_fp8')} with float8 e4m3 inputs (the kernel's own; rounding " \
           f"bf16 inputs to float8 e4m3 alone costs {cost:.1e})" in clause
    assert p.outcome == "within noise"


def test_fp8_prefill_says_why_the_default_stays_named(h100):
    ls, a, _, row = h100
    p = next(p for p in a.picks if p.scenario == "fp8-prefill")
    o = next(o for o in p.orders if orders_words.kernels_behind(o) == a.default)
    # the reason the report names no other call: an exception needs a call decided faster by the rule (rank); the
    # kernel sums' 1.195x, taken with its leader at the lower clock, is a floor and is held against no bar
    assert not o.apart and verdicts.verdict(ls, p.scenario, p.mode).rank(a.default) == 1
    assert ("within noise as run but behind by kernel sum in FP8 prefill (" in row["detail"]
            and f"within noise as run, {times(o.as_run)} at 1675 against 1660 MHz, so no rule decides it faster"
            in row["detail"] and f"under the {rules.ADVICE_MIN_GAIN:g}× the first screen asks" not in row["detail"])
    assert "behind in FP8 prefill (by kernel sum)" in row["condition"]  # short at 390 px: the reason in the detail


# --------------------------------------------------------------------------- item 14: clocks beside the times


def test_the_chunk_sizes_that_turn_the_exception_carry_their_clocks(h100):
    ls, a, w, _ = h100
    e = next(x for x in a.exceptions if x.scenario == "chunked-prefill")
    line = next(x for x in w.lines if x.startswith("For chunked prefill"))
    assert e.reversed_at
    for r in e.reversed_at:
        d, x, dm, xm = r.default_ms, r.variant_ms, r.default_mhz, r.variant_mhz
        p = next(p for p in calls._points(ls, e.scenario, e.mode) if (p.q_len, p.kv_len) == (r.q_len, r.kv_len))
        v = verdicts.verdict_at(ls, e.scenario, p, e.mode)
        assert (dm, xm) == (v.row(a.default).sm_clock_mhz, v.row(e.variant).sm_clock_mhz)
        assert f"{us(d)} at {dm:.0f} MHz against {us(x)} at {xm:.0f} MHz" in line
    # a clock not recorded is said so
    none = dataclasses.replace(e, reversed_at=tuple(dataclasses.replace(r, default_mhz=None, variant_mhz=None)
                                                    for r in e.reversed_at))
    assert "(clock not recorded)" in decision_words.reversed_line(a, none)


def test_batch_1_times_say_their_clock_is_not_recorded(h100):
    ls, a, w, _ = h100
    # the premise: the set's dynamic records hold no clock
    assert not any(getattr(k, "sm_clock_mhz", None) for r in ls.rs.dynamic for k in r.lengths)
    from gen.report.words import verdicts as verdict_words

    v = verdicts.verdict(ls, "decode", "inference")
    assert v.other_batch.clock_mhz is None
    assert "clock not recorded" in verdict_words.verdict(v).headline
    assert "clock not recorded" in w.decision.split("At batch 1", 1)[1]
    # where a clock is recorded, it is printed instead
    c = dataclasses.replace(next(p for p in a.picks if p.batch_call).batch_call, clock_mhz=1755.0)
    said = " ".join(decision_words.batch_call(c))
    assert "at 1755 MHz" in said and "not recorded" not in said


def test_the_sizes_that_turn_the_article_exception_name_their_head_dim(h100):
    """Review 11 item 9: the article's shape sweeps head dims 64 and 128; the sizes where the default is faster are
    at the verdict point's head dim, and the sentence says which (a length alone names no point)."""
    ls, a, w, _ = h100
    # since review 2026-12-07-5 item 1 the article's shape is an exception again, one that keeps SDPA unpinned (FA4
    # 1.18x slower as run, under the 1.2x bar but decidedly slower): its sizes and head dim as advice finds them
    e = next(x for x in a.exceptions if x.scenario == "article")
    assert e.keeps_default
    assert e.reversed_at and e.reversed_head_dim == calls.point_of(ls, e.scenario, e.mode).head_dim == 64
    line = decision_words.reversed_line(a, e)
    assert f"tokens (head dim {e.reversed_head_dim}) " in line and "SDPA leads at 256 and 512 tokens too" in line
    single = next((x for x in a.exceptions if x.scenario == "chunked-prefill"), None)
    assert single is not None and single.reversed_head_dim is None  # one head dim swept: nothing to tell apart
