"""Issue 31, capture side: the variants of one point timed in interleaved rounds, the equal-clock time,
schema 4's migration of the committed sets, and training's forward/backward split (CPU)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gen.analysis import clocks
from gen.model import schema

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = sorted([*schema.list_sets(ROOT / "results"), *schema.list_sets(ROOT / "tests" / "data" / "sets")])


def test_at_ref_clock_scales_a_time_by_its_clock_over_the_reference():
    # 1.0 ms at 1485 MHz is 0.75 ms of a kernel bound by SM cycles at 1980 MHz
    assert clocks.at_ref_clock(1.0, 1485.0, 1980.0) == pytest.approx(0.75, rel=1e-9)
    assert clocks.at_ref_clock(2.0, 1980.0, 1980.0) == pytest.approx(2.0, rel=1e-9)
    for ms, mhz, ref in [(None, 1500.0, 1980.0), (1.0, None, 1980.0), (1.0, 1500.0, None), (1.0, math.nan, 1980.0)]:
        assert clocks.at_ref_clock(ms, mhz, ref) is None


@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_the_committed_sets_migrate_to_the_schema_with_a_reference_clock(path):
    rs = schema.load_set(path)
    assert rs.schema_version == schema.SCHEMA_VERSION >= 4
    env = rs.environment
    if env.sm_clock_max_mhz:  # NVML read it: that is the reference
        assert env.ref_mhz == env.sm_clock_max_mhz
    elif env.gpu_name and ("H100" in env.gpu_name or "H200" in env.gpu_name):
        assert env.ref_mhz == 1980.0
    else:  # an A100 reference set, a CPU set: unknown, and so no equal-clock time
        assert env.ref_mhz is None
    import json

    if json.loads((path / "result.json").read_text(encoding="utf-8")).get("schema_version", 0) >= 4:
        return  # captured at schema 4: these fields hold what was measured
    for rec in [*rs.runs, *rs.sweep]:  # not recorded before schema 4: empty, never guessed
        assert rec.timing.fwd_ms == [] and rec.timing.interleaved_with == [] and rec.timing.slots == {}
    assert rs.dynamic == [] and rs.switches == []


def test_known_ref_mhz_reads_whole_words_of_a_gpu_name():
    assert schema.known_ref_mhz("NVIDIA H100 80GB HBM3") == 1980.0
    assert schema.known_ref_mhz("NVIDIA H200") == 1980.0
    assert schema.known_ref_mhz("NVIDIA A100-SXM4-80GB") is None
    assert schema.known_ref_mhz("NVIDIA GH1000") is None and schema.known_ref_mhz(None) is None


def test_summary_json_gives_the_equal_clock_time_beside_the_as_run_one():
    from gen.analysis import summary

    recs = summary.records(summary.pick_set(ROOT / "results", "nvidia-h200__torch-2.11.0"), "inference")
    ok = [r for r in recs if r["gpu_only_ms"] is not None and r["sm_clock_mhz"] is not None]
    assert ok
    for r in ok:
        assert r["ref_mhz"] == 1980.0 and "power_w" in r
        assert r["gpu_only_ms_at_ref_clock"] == pytest.approx(r["gpu_only_ms"] * r["sm_clock_mhz"] / 1980.0,
                                                                rel=1e-4)


# --------------------------------------------------------------------------- interleaving

torch = pytest.importorskip("torch")

from gen.capture import timers, timing  # noqa: E402


class LogTimer(timers.Timer):
    """A fake device that logs which call each timed window ran, on a simulated clock."""

    def __init__(self, gpu: bool):
        self.gpu = gpu
        self.clock_s = 0.0
        self.log: list[tuple[str, str]] = []

    def now(self):
        return self.clock_s

    def _run(self, call, n, kind):
        for _ in range(n):
            call()
        self.clock_s += n * 1e-3
        if kind:
            self.log.append((call.name, kind))
        return [1.0] * n

    def loop_ms(self, call, n):
        return self._run(call, n, "eager")

    def host_ms(self, call, n):
        return self._run(call, n, "host" if hasattr(call, "name") else "")

    def capture(self, call, n):
        return (call, n)

    def replay_ms(self, graph, n):
        call, calls = graph
        self.clock_s += n * calls * 1e-3
        self.log.append((call.name, "graph"))
        return [float(calls)] * n


class Named:
    def __init__(self, name):
        self.name = name

    def __call__(self):
        return None


def _preps(timer, names, budget):
    return [timing.prepare(Named(n), "cpu", budget, timer=timer, name=n) for n in names]


def test_the_variants_of_a_point_are_timed_in_rounds_whose_order_and_direction_change():
    """A rotation alone moves the start but keeps each variant's predecessor (review 2026-12-06-2, item 1): odd
    rounds run backwards, so each variant follows at least two others over four rounds."""
    b = timing.Budget(warmup_min=3, warmup_min_s=0.0, min_rounds=4, max_rounds=4, heat_s=0.0)
    timer = LogTimer(gpu=False)
    preps = _preps(timer, "ABCD", b)
    timer.log.clear()  # the warm-ups, one after another, before any round
    timing.interleave(preps)
    order = [name for name, kind in timer.log if kind == "eager"]
    rounds = ["".join(order[4 * r:4 * r + 4]) for r in range(4)]
    assert rounds == ["ABCD", "ADCB", "CDAB", "CBAD"]
    before = {n: {x[x.index(n) - 1] for x in rounds if x.index(n) > 0} for n in "ABCD"}
    assert all(len(p) >= 2 for p in before.values()), before
    times = [timing.finish(p) for p in preps]
    for t, name in zip(times, "ABCD"):
        assert t.rounds == 4 and t.interleaved_with == list("ABCD") and t.interleave_rotated and t.interleave_reversed
        # eager then host in each turn; four variants of two windows each per round
        assert t.slots == {"eager": [8 * r + 2 * rounds[r].index(name) for r in range(4)],
                           "host": [8 * r + 2 * rounds[r].index(name) + 1 for r in range(4)]}


def test_a_point_timed_alone_is_not_called_rotated():
    b = timing.Budget(warmup_min=3, warmup_min_s=0.0, min_rounds=2, max_rounds=2, heat_s=0.0)
    (p,) = _preps(LogTimer(gpu=False), "A", b)
    timing.interleave([p])
    t = timing.finish(p)
    assert t.interleaved_with == [] and not t.interleave_rotated


def test_on_a_gpu_the_graphs_heat_up_in_turn_then_each_round_takes_every_window_of_each_variant():
    b = timing.Budget(warmup_min=3, warmup_min_s=0.0, min_rounds=2, max_rounds=2, heat_s=0.15)
    timer = LogTimer(gpu=True)
    preps = _preps(timer, "AB", b)
    timer.log.clear()
    timing.interleave(preps)
    heat, rounds = timer.log[:-12], timer.log[-12:]  # 2 rounds x 2 variants x 3 windows
    assert len(heat) >= 4 and {k for _, k in heat} == {"graph"}
    assert [n for n, _ in heat] == list("AB" * (len(heat) // 2))
    assert [n for n, _ in rounds] == list("AAABBBAAABBB")  # the second round rotated and backwards: A again
    assert [k for _, k in rounds[:3]] == ["graph", "eager", "host"]
    assert timer.clock_s >= 0.15


def test_a_variant_whose_window_raises_leaves_the_turns_and_the_others_go_on():
    b = timing.Budget(warmup_min=3, warmup_min_s=0.0, min_rounds=3, max_rounds=3, heat_s=0.0)
    timer = LogTimer(gpu=False)
    preps = _preps(timer, "AB", b)
    timer.log.clear()
    boom = {"n": 0}

    def bad():
        boom["n"] += 1
        raise RuntimeError("refused at this length")

    bad.name = "A"
    preps[0].rounds.call = bad
    failed = []
    timing.interleave(preps, on_error=lambda p, exc: failed.append((p.name, str(exc))))
    assert failed == [("A", "refused at this length")]
    assert [n for n, k in timer.log if k == "eager"] == list("BBB")
    with pytest.raises(RuntimeError):
        timing.interleave(_preps(timer, "A", b)[:0] + [preps[0]])


def test_training_times_its_forward_and_backward_apart_on_the_cpu():
    q, k, v = (torch.randn(1, 2, 8, 4, requires_grad=True) for _ in range(3))
    go = torch.randn(1, 2, 8, 4)
    fn = torch.nn.functional.scaled_dot_product_attention
    fwd, bwd, method = timers.fwd_bwd_ms(fn, q, k, v, go, torch.device("cpu"), calls=4)
    assert len(fwd) == len(bwd) == 4 and method == "wall"
    assert all(x > 0 for x in fwd + bwd)
    assert q.grad is not None and q.grad.shape == q.shape


# --------------------------------------------------------------------------- dynamic lengths, fwd/bwd


def test_break_even_calls_against_the_fastest_steady_variant():
    from gen.model.scenarios import break_even_calls

    # cuDNN-like best: 70 ms first-call overhead, 0.30 ms steady; flash-like: 0.5 ms, 0.40 ms
    assert break_even_calls(0.5, 0.40, 70.0, 0.30) == pytest.approx(695.0, rel=1e-9)
    assert break_even_calls(70.0, 0.30, 70.0, 0.30) is None  # the fastest itself
    assert break_even_calls(80.0, 0.40, 70.0, 0.30) is None  # slower and dearer to start: never
    assert break_even_calls(None, 0.40, 70.0, 0.30) is None


def test_dynamic_lengths_runs_under_tiny_on_the_cpu():
    import time

    from gen.capture import dynamic
    from gen.model import scenarios as sc
    from gen.model.variants import VARIANTS

    s = sc.tiny(sc.SCENARIOS[sc.DYNAMIC])
    pts = s.dynamic_points()
    assert [p.q_len for p in pts["prefill"]] == list(sc.TINY_DYNAMIC_LENGTHS)
    assert [p.kv_len for p in pts["decode"]] == [16, 17, 18, 19] and {p.q_len for p in pts["decode"]} == {1}
    vs = [VARIANTS[n] for n in ("sdpa_math", "naive", "sdpa_cudnn", "naive_compiled")]
    runs, switches = dynamic.run(vs, s, torch.device("cpu"), None, time.monotonic() + 300, log=lambda m: None)
    by = {(r.phase, r.variant): r for r in runs}
    assert set(by) == {(ph, v.name) for ph in ("prefill", "decode") for v in vs}
    for phase in ("prefill", "decode"):
        ok = [by[(phase, n)] for n in ("sdpa_math", "naive")]
        for r in ok:
            assert r.status == "ok" and len(r.lengths) == len(pts[phase])
            assert all(x.first_ms > 0 and x.steady_ms > 0 and x.build_ms >= 0 for x in r.lengths)
            # no graph on a CPU, said so; no block mask outside FlexAttention; the per-length cost is the analysis's
            assert all(x.gpu_ms is None and "GPU" in x.gpu_reason and x.mask_ms is None for x in r.lengths)
            assert r.first_overhead_ms is None and r.break_even_calls is None and r.steady_ms > 0
        assert by[(phase, "sdpa_cudnn")].status == "unavailable" and by[(phase, "sdpa_cudnn")].reason
        assert by[(phase, "naive_compiled")].status == "skipped" and "compile" in by[(phase, "naive_compiled")].reason
    (sw,) = switches
    assert sw.name == "TORCH_CUDNN_SDPA_AVOID_RECOMPILE" and sw.effect == "not measured: no GPU"
    assert sw.present in (True, False, None)


def test_dynamic_lengths_keep_one_compiled_flex_function_across_lengths(monkeypatch):
    """A server compiles flex_attention once and calls it at every new length: the run makes one
    compiled function at its first length (after a fresh dynamo state) and every later length's
    module calls that same function, built without resetting dynamo; FA4 runs (its own cache)."""
    import contextlib
    import time

    from gen.capture import attention, dynamic
    from gen.model import scenarios as sc
    from gen.model.variants import VARIANTS

    made, fresh_builds, called = [], [], []

    def server_flex():
        fn = object()
        made.append(fn)
        return fn

    class Module:
        flex = "its own compile"
        facts = {"block_mask_build_s": 0.002}

        def __call__(self, q, k, v):
            called.append(self.flex)
            return q

    def build(kind, backend, point, device, room=True, fresh=True):
        fresh_builds.append(fresh)
        return attention.Built(Module(), contextlib.nullcontext)

    monkeypatch.setattr(dynamic, "_server_flex", server_flex)
    monkeypatch.setattr(dynamic, "build", build)
    monkeypatch.setattr(attention.extras, "missing", lambda v: None)  # the build is mocked: fa4 "installed"
    s = sc.tiny(sc.SCENARIOS["dynamic-lengths"])
    pts = s.dynamic_points()["prefill"]
    run = dynamic.run_variant(VARIANTS["flex"], "prefill", pts, "fp32", torch.device("cpu"), 0,
                              time.monotonic() + 60)
    assert run.status == "ok" and len(run.lengths) == len(pts)
    assert len(made) == 1 and set(map(id, called)) == {id(made[0])}
    assert fresh_builds == [True] + [False] * (len(pts) - 1)
    # the block mask's build is kept apart from the module's, at every length
    assert all(c.mask_ms == pytest.approx(2.0) and c.build_ms >= 0 for c in run.lengths)
    fresh_builds.clear()
    fa4 = dynamic.run_variant(VARIANTS["fa4"], "prefill", pts, "fp32", torch.device("cpu"), 0, time.monotonic() + 60)
    assert fa4.status == "ok" and len(made) == 1 and fresh_builds == [True] * len(pts)


def test_training_sweep_points_carry_forward_and_backward_times(tmp_path):
    import time

    from gen.capture import sweep
    from gen.model import scenarios as sc
    from gen.model.variants import VARIANTS

    s = sc.tiny(sc.SCENARIOS["gqa-prefill"])
    vs = [VARIANTS[n] for n in ("naive", "sdpa_math")]
    (tmp_path / "traces").mkdir()
    b = timing.Budget(warmup_min=3, warmup_min_s=0.0, warmup_max_s=0.05, repeats=6, min_measure_s=0.0,
                      max_repeats=6, host_repeats=3, min_rounds=2, max_rounds=2, round_s=0.005, heat_s=0.0)
    pts = sweep.run_sweep(vs, [s], ["train"], torch.device("cpu"), tmp_path, deadline=time.monotonic() + 300,
                          budget=b)
    train = [p for p in pts if p.mode == "train"]
    assert train and all(p.status == "ok" for p in train)
    for p in train:
        t = p.timing
        assert len(t.fwd_ms) == len(t.bwd_ms) >= 3 and t.fwd_bwd_method == "wall"
        assert all(x > 0 for x in t.fwd_ms + t.bwd_ms)
        assert t.interleaved_with == ["naive", "sdpa_math"]  # one point's variants took turns
    infer = [p for p in pts if p.mode == "inference" and p.status == "ok"]
    assert infer and all(p.timing.fwd_ms == [] for p in infer)


def test_a_length_s_gpu_only_time_is_a_replayed_graph_of_warm_calls(monkeypatch):
    """On a GPU each length also gets its GPU-only time: a graph of GRAPH_CALLS calls, the median replay / calls;
    a call that cannot be captured keeps its reason, and the graph is released either way."""
    from gen.capture import dynamic

    released = []

    class GraphTimer:
        gpu = True

        def capture(self, call, n):
            if call == "refuses":
                raise RuntimeError("operation not permitted when stream is capturing\nmore")
            return ("g", n)

        def replay_ms(self, graph, n):
            return [2.0 * graph[1], 1.0 * graph[1], 3.0 * graph[1]][:n] if n > 1 else [9.0]

        def release(self, graph):
            released.append(graph)

    monkeypatch.setattr(dynamic, "timer_for", lambda device: GraphTimer())
    monkeypatch.setattr(dynamic, "GRAPH_REPLAYS", 3)
    assert dynamic.gpu_only_ms(lambda: None, "cuda") == (pytest.approx(2.0), None)
    assert released == [("g", dynamic.GRAPH_CALLS)]
    ms, why = dynamic.gpu_only_ms("refuses", "cuda")
    assert ms is None and why.endswith("operation not permitted when stream is capturing")
