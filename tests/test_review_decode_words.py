"""Review 2026-12-06-2 items 4, 9 and 11 (docs/notes/review-2026-12-06-2.md): a decode verdict says the batch it
holds at and carries the set's order at the dynamic-lengths batch; FA4's tile work under a causal mask counts the
keys each row tile runs over; a sentence that gives the orders of more than one pair names each counterpart; and
paging's cost is set against the same call on a contiguous cache. Each test fails if its rule is broken."""

from __future__ import annotations

import dataclasses
import statistics

import pytest

from gen.analysis import advice, calls, kernel_rules, launches, leads, paged, rules, tables, verdicts
from gen.analysis import dynamic as dynamic_facts
from gen.model import schema
from gen.model.records import DynamicRun, LengthCost
from gen.report.words import decision as decision_words
from gen.report.words import orders as orders_words
from gen.report.words import verdicts as verdict_words
from gen.report.words import why as why_words
from gen.report.words.common import label, times, us
from tests.conftest import RESULTS, all_verdicts, committed_set

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def h100():
    return committed_set(H100)


@pytest.fixture(scope="module")
def h200():
    return committed_set(H200)


# --------------------------------------------------------------------------- item 4: the decode verdict's batch


def _batch1_gpu(ls, variant):
    run = next(r for r in ls.rs.dynamic if r.variant == variant and r.phase == "decode" and not r.env)
    return statistics.median(c.gpu_ms for c in run.lengths if c.gpu_ms is not None)


def test_the_decode_verdict_says_its_batch_and_the_batch_1_order(h100):
    v = verdicts.verdict(h100, "decode", "inference")
    b = v.other_batch
    assert b is not None and (b.at_batch, b.batch) == (8, 1)
    head = verdict_words.verdict(v).headline
    assert "This holds at batch 8: at batch 1" in head
    # the numbers come from the set's dynamic runs: each call's ratio to the fastest of them at batch 1, and its time
    top = min(_batch1_gpu(h100, x) for x in ("sdpa_auto", "sdpa_cudnn", "sdpa_flash", "fa4", "flex_flash"))
    assert b.order[0][1] == top and f"the fastest is {label(b.order[0][0])}, {us(top)} a call" in head
    for x in ("fa4", "flex_flash", "sdpa_flash"):
        assert f"{label(x)} {times(_batch1_gpu(h100, x) / top, 1)}" in head or \
            f"{label(x)} takes {times(_batch1_gpu(h100, x) / top, 1)}" in head
    for x in b.named:  # the verdict's first-rank calls: each with its own time at batch 1
        assert f"{label(x)} {times(_batch1_gpu(h100, x) / top, 1)} ({us(_batch1_gpu(h100, x))})" in head
    # the order runs down to the verdict's first-rank calls, no further (Flex compiled, the naive calls: not named)
    assert [x for x, _ in b.order][-1] in ("fa4", "flex_flash") and label("naive") not in head


def test_the_home_verdict_says_decode_holds_at_batch_8(h100):
    a = advice.advice(h100)
    head = decision_words.advice(a).decision
    dec = next(p for p in a.picks if p.scenario == "decode" and p.mode == "inference")
    b = dec.other_batch
    assert b is not None and (b.at_batch, b.batch) == (8, 1)
    # wherever the decode standing is told (first, within noise of a call with its orders, or not first), the place
    # names its batch and the batch-1 order follows in its notes' sentences ("Decode at batch 8: …", review
    # 2026-12-07-1 N3), before the next standing
    assert head.count("for decode") == head.count("for decode at batch 8") >= 1
    clause = head.split("Decode at batch 8: ", 1)[1].split(". It is ", 1)[0].split(". It ranks ", 1)[0]
    # the set names a call at batch 1 (review 8 item 3, tests/test_review8_home.py): the clause says it
    assert dec.batch_call is not None and f"At batch {b.batch} with a growing KV cache, call" in clause
    # where no call is named there, the batch-1 order follows the place instead
    a = dataclasses.replace(a, picks=tuple(dataclasses.replace(p, batch_call=None) for p in a.picks))
    head = decision_words.advice(a).decision
    clause = head.split("Decode at batch 8: ", 1)[1].split(". It is ", 1)[0].split(". It ranks ", 1)[0]
    assert "At batch 1, in the dynamic-lengths decode runs" in clause and "clock not recorded" in clause
    # the default and the calls sharing its rank, against the fastest at batch 1 (derived from the dynamic runs)
    top_x, top = b.order[0]
    assert top == min(_batch1_gpu(h100, x) for x, _ in b.order)
    mine = [x for x in (a.default, *dec.within) if x in dict(b.order)]
    assert mine and f"the GPU-only time of {label(top_x)}" in clause
    told = clause.split(" the GPU-only time of ", 1)[0]
    for x in mine:
        assert label(x) in told and times(_batch1_gpu(h100, x) / top, 1) in told
    # dropped the batch, the test fails: every decode pick with another batch's runs names its own
    for p in a.picks:
        if p.other_batch is not None:
            assert f"at batch {p.other_batch.at_batch}" in head


def test_a_set_without_dynamic_decode_runs_says_nothing_of_batch_1(h200):
    for v in all_verdicts(h200):
        assert v.other_batch is None
        assert "at batch 1" not in verdict_words.verdict(v).headline
    assert "at batch 1" not in decision_words.advice(advice.advice(h200)).decision


def _run(variant, batch=1, heads=(32, 8), d=128, kvs=(4096, 4097), gpu=0.01, env=None):
    p = schema.Point(batch=batch, q_heads=heads[0], kv_heads=heads[1], head_dim=d, q_len=1, kv_len=kvs[0],
                     mask="none")
    return DynamicRun(variant, "decode", schema.Status.OK, p, env=env or {},
                      lengths=[LengthCost(1, k, gpu_ms=gpu) for k in kvs])


def test_the_other_batch_is_the_batch_alone():
    point = schema.Point(batch=8, q_heads=32, kv_heads=8, head_dim=128, q_len=1, kv_len=4096, mask="none")
    rs = dataclasses.replace(_rs(), dynamic=[_run("sdpa_cudnn", gpu=0.01), _run("fa4", gpu=0.04),
                                             _run("naive", gpu=0.1)])
    b = dynamic_facts.decode_at_other_batch(rs, point, ("fa4",))
    assert b.order == (("sdpa_cudnn", 0.01), ("fa4", 0.04)) and b.named == ("fa4",)
    # the same batch, other heads, another head dim, a KV length outside the runs', a switch set: no other batch
    for runs in ([_run("fa4", batch=8)], [_run("fa4", heads=(16, 16))], [_run("fa4", d=64)],
                 [_run("fa4", kvs=(8192, 8193))], [_run("fa4", env={"X": "1"})]):
        assert dynamic_facts.decode_at_other_batch(dataclasses.replace(rs, dynamic=runs), point, ("fa4",)) is None
    # none of the verdict's calls measured there: nothing to carry
    assert dynamic_facts.decode_at_other_batch(rs, point, ("flex_flash",)) is None


def _rs():
    return tables.load_set(RESULTS / H100).rs


# --------------------------------------------------------------------------- item 9: tiles under a causal mask


def test_causal_tile_pairs_count_the_keys_each_tile_runs_over():
    assert launches.tile_pairs(1024, 1024, 192, causal=True) == 749_568  # 192 x (192+384+576+768+960+1024)
    assert launches.tile_pairs(1024, 1024, 128, causal=True) == 589_824  # 128 x 4,608
    assert launches.exact_pairs(1024, 1024, causal=True) == 524_800
    assert round(749_568 / 589_824, 2) == 1.27
    # without the mask every tile runs over every key: the rows' padding alone (1.125x)
    assert launches.tile_pairs(1024, 1024, 192, causal=False) == 1152 * 1024
    assert launches.tile_pairs(1024, 1024, 192, causal=True) != 1152 * 1024 * 1025 // 2048


def test_the_articles_why_says_the_tiling_can_account_for_all_of_it(h100):
    v = verdicts.verdict(h100, "article", "inference")
    got = launches.verdict_launches(h100, v)
    mine, theirs = got[v.fastest.variant], got[v.runner_up.variant]
    w = launches.tile_work(mine, theirs)
    assert w.causal and (w.rows, w.pairs, w.base_rows, w.base_pairs, w.exact) == (192, 749_568, 128, 589_824, 524_800)
    assert w.accounts == "all" and abs(w.ratio / w.tensor_ratio - 1) <= kernel_rules.TILE_WORK_MATCH
    line = why_words.why_line(v, got)
    assert "the tiling can account for about all of the measured" in line  # a range over key blocks (review 3 #8)
    assert "749,568 (query, key) pairs a head against 524,800 in the causal triangle" in line
    assert "not checked: its grid is persistent" in line  # the fastest's rows: inferred, said so
    assert "up to 1.125" not in line and "padding accounts" not in line


def _launch(**kw):
    base = dict(variant="x", blocks=768, threads=512, registers_per_thread=128, shared_memory=None, blocks_per_sm=1,
                limiter=None, sm_count=132, tiles_per_head=6, queries=1024, keys=1024, causal=True,
                counted_us=72.0, tensor_pipe_pct=41.0)
    base.update(kw)
    return launches.Launch(**base)


def test_the_tile_work_conclusion_follows_the_tolerance():
    theirs = _launch()
    mine = _launch(blocks=1024, threads=384, tiles_per_head=8, counted_us=58.3, tensor_pipe_pct=40.0)
    w = launches.tile_work(mine, theirs)
    assert w.base_checked and w.accounts == "all"
    # twice the tensor-pipe time: the tiles account for part of it only
    short = launches.tile_work(mine, _launch(counted_us=144.0))
    assert short.accounts == "part"
    assert "can account for 1.27-1.33× of that" in why_words._accounts_words(short)  # over key blocks
    # the same pairs with no mask model (every key): the old 1.125x reading is gone for a causal point
    assert launches.tile_work(mine, _launch(causal=False)).pairs == 1152 * 1024


# --------------------------------------------------------------------------- item 11: counterparts and paging


def _kernel_sum_counterparts(v):
    head = verdict_words.verdict(v).headline
    told = [o for o in v.orders if orders_words.telling(o)]
    for o in told if len(told) > 1 else ():  # one pair's orders need no counterpart: the sentence names both calls
        # each call an order puts ahead (as run where apart, by kernel sum past the floor) is set against the other
        leaders = {o.first} if o.apart else set()
        if o.kernel_sum is not None and abs(o.kernel_sum - 1) * 100 > rules.TIME_FLOOR_PCT:
            leaders.add(o.first if o.kernel_sum >= 1 else o.second)
        for x in leaders:
            other = o.second if x == o.first else o.first
            assert f"{label(x)} " in head and f"faster than {label(other)} " in head
    return told, head


def test_the_decode_kernels_verdict_names_each_kernel_sums_counterpart(h100):
    # the decode-kernels point with FlexAttention FLASH's kernel sum 5% above FA4's: two pairs' orders to tell (the
    # capture of c6cac2b told both; the recapture's kernel sums of FA4 and FLASH sit within the floor)
    point = verdicts.point_of(h100, "decode-kernels", "inference")
    rows = calls.timed_at(h100, "decode-kernels", point)
    fa4 = next(t for t in rows if t.variant == "fa4")
    rows = [dataclasses.replace(t, kernel_sum_ms=fa4.kernel_sum_ms * 1.05, kernel_sum_mhz=fa4.kernel_sum_mhz)
            if t.variant == "flex_flash" else t for t in rows]
    v = verdicts.decide(rows, h100.name, "decode-kernels", "inference", point=point,
                        ref_mhz=h100.rs.environment.ref_mhz)
    told, head = _kernel_sum_counterparts(v)
    assert len(told) > 1 and head.count("faster than ") >= len(told)
    for vv in all_verdicts(h100):
        many, head = _kernel_sum_counterparts(vv)
        if len(many) > 1:
            assert head.count("faster than ") >= len(many)


def test_brief_names_the_counterpart_of_each_leader():
    o = leads.Orders(first="a", second="b", as_run=1.0, apart=False, equal_clock=0.97, kernel_sum=1.02,
                     first_mhz=None, second_mhz=None, first_ks_ms=1.0, second_ks_ms=1.02,
                     first_ks_mhz=1980.0, second_ks_mhz=1980.0, clock_gap_pct=None, decided=False)
    text = orders_words.brief(o, str, than=True)
    assert "b 1.03× faster than a at equal clock" in text and "a 1.02× faster than b by kernel sum" in text
    assert "than" not in orders_words.brief(o, str)


def test_paging_is_set_against_the_same_call_on_a_contiguous_cache(h100):
    v = verdicts.verdict(h100, "decode-kernels", "inference")
    p = paged.paged_facts(v)
    assert (p.ranked[0][0], p.contiguous) == ("fa4_paged", "fa4")
    line = verdict_words.paged_line(v)
    ratio = p.ranked[0][1] / p.contiguous_ms
    assert f"paging costs {times(ratio)}" in line
    # the fastest here another call than paged FA4's contiguous twin (unpinned SDPA 10% faster than every call): the
    # cost is still against FA4, never against the fastest
    rows = calls.timed_at(h100, "decode-kernels", verdicts.point_of(h100, "decode-kernels", "inference"))
    k = 0.9 * min(t.gpu_only.median for t in rows if t.gpu_only is not None) / next(
        t.gpu_only.median for t in rows if t.variant == "sdpa_auto")
    rows = [dataclasses.replace(t, gpu_only=_scaled(t.gpu_only, k)) if t.variant == "sdpa_auto" else t for t in rows]
    w = verdicts.decide(rows, h100.name, "decode-kernels", "inference", point=_point(h100),
                        ref_mhz=h100.rs.environment.ref_mhz)
    q = paged.paged_facts(w)
    assert q.fastest == "sdpa_auto" and q.contiguous == "fa4"
    line = verdict_words.paged_line(w)
    assert times(q.ranked[0][1] / q.fastest_ms) != times(ratio)
    assert f"paging costs {times(ratio)}" in line
    assert f"paging costs {times(q.ranked[0][1] / q.fastest_ms)}" not in line  # not against SDPA
    # without the same call unpaged, the gap to the fastest is another kernel's, and said so
    cut = dataclasses.replace(v, rows=tuple(t for t in v.rows if t.variant != "fa4"))
    line = verdict_words.paged_line(cut)
    assert "paging costs" not in line and "paging's own cost is not" in line


def _point(ls):
    return verdicts.point_of(ls, "decode-kernels", "inference")


def _scaled(s, k):
    return dataclasses.replace(s, median=s.median * k, q1=s.q1 * k, q3=s.q3 * k, ci_lo=s.ci_lo * k, ci_hi=s.ci_hi * k)
