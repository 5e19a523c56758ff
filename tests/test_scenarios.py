"""Scenarios (issue 13): declarations, the float64 reference of GQA/decode/window attention, and a CPU
capture of every scenario at toy sizes (`--tiny`): the code path the GPU runs."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import time

import pytest

from gen.model import scenarios as sc
from gen.model import schema, variants
from tests import gen_main

# --------------------------------------------------------------------------- declarations (no torch)


def test_the_declared_scenarios_have_the_issues_shapes():
    s = sc.SCENARIOS
    assert list(s)[:4] == ["article", "gqa-prefill", "decode", "sliding-window"]  # issue 20's follow
    a = s["article"]
    assert (a.batch, a.q_heads, a.kv_heads, a.head_dim, a.run_length, a.mask, a.dtype) == (
        8, 16, 16, 64, 1024, "causal", "bf16")
    assert a.lengths == tuple(256 * 2**i for i in range(7)) and a.head_dims == (64, 128)
    g = s["gqa-prefill"]
    assert (g.batch, g.q_heads, g.kv_heads, g.head_dim, g.mask) == (1, 64, 8, 128, "causal")
    assert [p.q_len for p in g.points()] == [p.kv_len for p in g.points()] == [2048, 4096, 8192, 16384, 32768]
    assert [(p.q_len, p.kv_len) for p in g.train_points()] == [(4096, 4096)]
    d = s["decode"]
    assert (d.batch, d.q_heads, d.kv_heads, d.head_dim, d.mask) == (8, 32, 8, 128, "none")
    assert [(p.q_len, p.kv_len) for p in d.points()] == [(1, 4096), (1, 16384), (1, 65536), (1, 131072)]
    w = s["sliding-window"]
    assert [(p.q_len, p.kv_len, p.mask, p.window) for p in w.points()] == [(16384, 16384, "sliding", 4096)]


def test_records_load_through_the_schema():
    for s in sc.SCENARIOS.values():
        rec = s.record(["inference", "train"])
        back = schema._build(schema.ScenarioRecord, dataclasses.asdict(rec), "test")
        assert back == rec and (rec.points or rec.train_points or s.dynamic_points())  # dynamic-lengths: its own
    art = sc.SCENARIOS["article"].record(["inference", "train"])
    run = art.points[0]
    assert (run.q_len, run.head_dim) == (1024, 64) and art.train_points == [run]
    # the run point is also a sweep point; D=128 at three of the seven lengths
    assert len(art.points) == len(set(map(str, art.points))) == 10
    assert [p.kv_len for p in art.points if p.head_dim == 128] == [1024, 4096, 16384]
    assert sc.SCENARIOS["article"].record(["inference"]).train_points == []
    assert sc.SCENARIOS["gqa-prefill"].record(["inference"]).train_points == []  # only what was asked
    assert len(sc.SCENARIOS["gqa-prefill"].record(["inference", "train"]).train_points) == 1


def test_resolve_names_all_and_errors():
    assert [s.name for s in sc.resolve(None)] == ["article"]
    assert [s.name for s in sc.resolve("decode, gqa-prefill,decode")] == ["decode", "gqa-prefill"]
    assert [s.name for s in sc.resolve("all")] == list(sc.SCENARIOS)
    with pytest.raises(schema.UserError, match=r"--scenario: unknown scenario\(s\) bogus; known: article"):
        sc.resolve("article,bogus")
    with pytest.raises(ValueError, match="do not group"):
        sc.Scenario("x", "x", "x", 1, 6, 4, (16,), (16,), "causal")
    with pytest.raises(ValueError, match="window"):
        sc.Scenario("x", "x", "x", 1, 4, 4, (16,), (16,), "causal", window=8)


def test_tiny_keeps_every_code_path():
    for s in sc.SCENARIOS.values():
        t = sc.tiny(s)
        assert t.q_heads // t.kv_heads == s.q_heads // s.kv_heads  # the same GQA grouping
        assert max(t.lengths, default=0) <= 512 and t.head_dim == 16 and t.mask == s.mask
        assert t.decode == s.decode and len(t.train_points()) == len(s.train_points())
    w = sc.tiny(sc.SCENARIOS["sliding-window"])
    assert w.window < w.lengths[0]


def test_variants_declare_roles_once():
    assert variants.by_role(variants.Role.BASELINE).name == "naive"
    assert [v.name for v in variants.inplace_pair()] == ["naive", "naive_inplace"]
    assert variants.by_role("automatic").name == "sdpa_auto"
    roles = [v.role for v in variants.VARIANTS.values() if v.role]
    assert len(roles) == len(set(roles))
    assert {v.name for v in variants.VARIANTS.values() if v.compiled} == {
        "flex", "naive_compiled", "flex_triton", "flex_paged", "flex_fp8", "flex_flash", "fa4", "fa4_paged", "fa4_det"}
    assert {v.name for v in variants.VARIANTS.values() if v.gqa == variants.Gqa.EXPAND} == {
        "naive", "naive_inplace", "naive_compiled", "sdpa_nested"}
    assert "FlexBlockMaskAttention(point, device)" in variants.source(variants.VARIANTS["flex"])


# --------------------------------------------------------------------------- the math, on the CPU

torch = pytest.importorskip("torch")
attention = pytest.importorskip("gen.capture.attention")
inputs = pytest.importorskip("gen.capture.inputs")


def _point(q_heads, kv_heads, q_len, kv_len, mask, window=None, batch=2, head_dim=8):
    return schema.Point(batch=batch, q_heads=q_heads, kv_heads=kv_heads, head_dim=head_dim, q_len=q_len,
                        kv_len=kv_len, mask=mask, window=window)


def _loops(q, k, v, p: schema.Point):
    """Attention written out one query and one key at a time, in float64: what the mask and GQA mean."""
    b, groups = 0, p.q_heads // p.kv_heads
    out = torch.zeros(p.q_heads, p.q_len, p.head_dim, dtype=torch.float64)
    for h in range(p.q_heads):
        for i in range(p.q_len):
            pos = p.kv_len - p.q_len + i
            keys = [j for j in range(p.kv_len)
                    if p.mask == "none" or (j <= pos and (p.mask == "causal" or pos - j < p.window))]
            s = torch.stack([q[b, h, i].double() @ k[b, h // groups, j].double() for j in keys]) / p.head_dim**0.5
            w = torch.softmax(s, 0)
            out[h, i] = sum(w[n] * v[b, h // groups, j].double() for n, j in enumerate(keys))
    return out


CASES = {
    "gqa-prefill": _point(8, 2, 12, 12, "causal"),
    "decode": _point(8, 2, 1, 20, "none"),
    "decode-causal": _point(4, 4, 3, 20, "causal"),
    "sliding": _point(4, 1, 16, 16, "sliding", window=5),
}


@pytest.mark.parametrize("name", list(CASES))
def test_reference_and_naive_agree_with_the_loops(name):
    p = CASES[name]
    q, k, v = inputs.make_inputs(p, torch.float64, "cpu", seed=1)
    want = _loops(q, k, v, p)
    heads = list(range(p.q_heads))
    got = inputs.reference_slice(q, k, v, p, heads)
    assert torch.allclose(got, want, atol=1e-12)
    naive = attention.build("naive", None, p, "cpu").fn(q, k, v)
    assert torch.allclose(naive[0], want, atol=1e-12)
    # SDPA's math backend (GQA and explicit masks its own way) agrees in float64 too.
    sdpa = attention.build("sdpa", "math", p, "cpu")
    with sdpa.context():
        assert torch.allclose(sdpa.fn(q, k, v)[0], want, atol=1e-10)


def test_the_dtype_names_the_cli_checks_are_the_capture_s():
    # the capture knows every name --dtype takes; beyond them only FP8, which a variant sets itself
    assert set(sc.DTYPES) <= set(inputs.DTYPES)
    assert set(inputs.DTYPES) - set(sc.DTYPES) <= {"fp8_e4m3"}


def test_reference_blocks_rows_without_changing_the_answer(monkeypatch):
    p = _point(4, 2, 40, 40, "sliding", window=7, batch=1)
    q, k, v = inputs.make_inputs(p, torch.float64, "cpu", seed=2)
    whole = inputs.reference_slice(q, k, v, p, [0, 3])
    monkeypatch.setattr(inputs, "REFERENCE_ROWS", 6)
    blocked = inputs.reference_slice(q, k, v, p, [0, 3])
    # Not bit-equal: a block of 6 rows is another matrix shape, for which the CPU's BLAS may
    # choose another kernel and sum in another order (it does on AMD EPYC). Each output is a
    # softmax over head_dim-term dot products, then a kv_len-term weighted sum of V's rows: two
    # orders of summation differ by at most about n·eps of max|V| each (Higham's gamma_n, n the
    # terms summed). A row masked or blocked wrongly is off by O(max|V|), far above this.
    n = p.head_dim + p.kv_len
    tol = 4 * n * torch.finfo(torch.float64).eps
    torch.testing.assert_close(blocked, whole, rtol=tol, atol=tol * float(v.abs().max()))


def test_reference_grads_through_one_kv_head():
    p = _point(6, 2, 10, 10, "causal", batch=1)
    q, k, v = inputs.make_inputs(p, torch.float64, "cpu", seed=3, grad=True)
    go = inputs.grad_output(p, torch.float64, "cpu", seed=4)
    attention.build("naive", None, p, "cpu").fn(q, k, v).backward(go)
    dq, dk, dv = inputs.reference_grads(q, k, v, go, p, kv_head=1)
    assert torch.allclose(dq, q.grad[0, 3:6]) and torch.allclose(dk, k.grad[0, 1]) and torch.allclose(dv, v.grad[0, 1])


def test_naive_expands_kv_heads_and_float32_stays_close():
    p = _point(8, 2, 16, 16, "causal")
    q, k, v = inputs.make_inputs(p, torch.float32, "cpu", seed=5)
    out = attention.build("naive_inplace", None, p, "cpu").fn(q, k, v)
    assert out.shape == (2, 8, 16, 8)
    ref = inputs.reference_slice(q, k, v, p, [0, 5], batch=1)
    assert inputs.rel_error(out[1, [0, 5]], ref) < 1e-5


# --------------------------------------------------------------------------- the sweep: statuses, never a crash

sweep = pytest.importorskip("gen.capture.sweep")
sweep_plan = pytest.importorskip("gen.capture.sweep_plan")


def _quick():
    return sweep.Budget(warmup_min=1, warmup_min_s=0.0, warmup_max_s=0.05, repeats=2, min_measure_s=0.0,
                        max_repeats=3, host_repeats=3)


def test_oom_stops_a_series_and_the_time_limit_skips(tmp_path, monkeypatch):
    decode = sc.tiny(sc.SCENARIOS["decode"])
    naive = variants.VARIANTS["naive"]
    real = sweep.build

    def build(kind, backend, point, device):
        if point.kv_len >= 64:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 1 TiB")
        return real(kind, backend, point, device)

    monkeypatch.setattr(sweep, "build", build)
    (tmp_path / "traces").mkdir()
    pts = sweep.run_sweep([naive], [decode], ["inference"], torch.device("cpu"), tmp_path,
                          deadline=time.monotonic() + 600, budget=_quick())
    assert [(p.point.kv_len, p.status) for p in pts] == [(16, "ok"), (64, "oom"), (256, "oom"), (512, "oom")]
    assert "Tried to allocate" in pts[1].reason and pts[2].reason == "not run: out of memory already at 64 tokens"
    assert pts[0].trace == "traces/decode__naive__inference__q1_k16.json.gz" and (tmp_path / pts[0].trace).is_file()
    assert pts[1].trace is None and pts[1].timing == schema.Timing()
    late = sweep.run_sweep([naive], [decode], ["inference"], torch.device("cpu"), tmp_path,
                           deadline=time.monotonic(), budget=_quick())
    assert {p.status for p in late} == {"skipped"} and "time limit" in late[0].reason


def test_plan_puts_compiled_variants_last_and_names_traces_uniquely():
    vs = [variants.VARIANTS[n] for n in ("flex", "naive", "sdpa_auto")]
    series = sweep_plan.plan(vs, [sc.tiny(s) for s in sc.SCENARIOS.values()], ["inference", "train"])
    order = [jobs[0].variant.compiled for jobs in series]
    assert order == sorted(order)
    jobs = [j for s in series for j in s]
    names = [j.trace for j in jobs if j.trace]
    assert len(names) == len(set(names))
    assert "traces/sweep__naive__s64_d16.json.gz" in names  # the article's schema-1 names stay
    assert "traces/gqa-prefill__flex__train__q16_k16.json.gz" in names
    decode_only = sweep_plan.plan(vs, [sc.tiny(sc.SCENARIOS["decode"])], ["inference", "train"])
    assert {j.mode for s in decode_only for j in s} == {"inference"}  # decode declares no train point


# --------------------------------------------------------------------------- end to end, on the CPU


@pytest.fixture(scope="module")
def tiny_set(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    p = subprocess.run([sys.executable, "-m", "gen", "profile", "--tiny", "--quick", "--no-counters",
                        "--scenario", "gqa-prefill,decode,sliding-window", "--mode", "inference,train",
                        "--variants", "naive,sdpa_math,sdpa_cudnn", "--out", str(out)],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    (path,) = [d for d in out.iterdir() if not d.name.startswith(".")]
    return path


def test_tiny_capture_records_every_scenario(tiny_set):
    rs = schema.load_set(tiny_set)
    assert rs.runs == []  # the article was not asked for: no profiled runs
    assert [s.name for s in rs.scenarios] == ["gqa-prefill", "decode", "sliding-window"]
    assert rs.scenario("gqa-prefill").train_points == [sc.tiny(sc.SCENARIOS["gqa-prefill"]).point(16)]
    declared = {(s.name, "inference", p) for s in rs.scenarios for p in s.points}
    declared |= {(s.name, "train", p) for s in rs.scenarios for p in s.train_points}
    for v in ("naive", "sdpa_math", "sdpa_cudnn"):
        assert {(p.scenario, p.mode, p.point) for p in rs.sweep if p.variant == v} == declared
    ok = [p for p in rs.sweep if p.variant in ("naive", "sdpa_math")]  # varlen (sliding-window's own) needs CUDA
    assert {p.status for p in ok} == {"ok"}
    for p in ok:
        assert p.rel_error < 2e-2 and p.timing.host_ms and (tiny_set / p.trace).is_file()
        assert p.trace.startswith(f"traces/{p.scenario}__{p.variant}__{p.mode}__q{p.point.q_len}_k")


def test_a_refusal_is_recorded_with_pytorchs_reason(tiny_set):
    rs = schema.load_set(tiny_set)
    cudnn = [p for p in rs.sweep if p.variant == "sdpa_cudnn"]
    assert {p.status for p in cudnn} == {"unavailable"}
    assert all(p.reason.startswith("RuntimeError: ") and p.trace is None for p in cudnn)
    assert "sweep" in (tiny_set / "capture.log").read_text()


def test_unknown_scenario_is_a_one_line_error(tmp_path):
    # refused before torch is imported: the CLI's main in this process (tests/gen_main.py) says what a process would
    p = gen_main.run("profile", "--scenario", "decode,prefil", "--out", str(tmp_path))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.strip().splitlines() == [
        f"error: --scenario: unknown scenario(s) prefil; known: {', '.join(sc.SCENARIOS)}, or all"]
    assert list(tmp_path.iterdir()) == []


def test_refusal_reason_keeps_pytorchs_why_without_the_cpp_location():
    from types import SimpleNamespace as W

    from gen.capture import probe

    caught = [W(message=UserWarning("Flash attention kernel not used because: (Triggered internally at "
                                    "/pytorch/aten/src/ATen/native/transformers/cuda/sdp_utils.cpp:986.)")),
              W(message=UserWarning("Both fused kernels do not support non-null attn_mask. (Triggered internally "
                                    "at /pytorch/aten/src/ATen/native/transformers/sdp_utils_cpp.h:300.)"))]
    text = probe.refusal(RuntimeError("No available kernel. Aborting execution."), caught)
    assert text == ("RuntimeError: No available kernel. Aborting execution.; Flash attention kernel not used "
                    "because: Both fused kernels do not support non-null attn_mask.")


def test_other_head_dims_sweep_their_own_lengths_unless_lengths_are_asked():
    a = sc.SCENARIOS["article"]
    assert a.lengths_at(64) == a.lengths and a.lengths_at(128) == (1024, 4096, 16384)
    asked = sc.with_overrides(a, lengths=[512, 2048])
    assert [(p.head_dim, p.kv_len) for p in asked.points()] == [(64, 512), (64, 2048), (128, 512), (128, 2048)]
    same = sc.with_overrides(a, lengths=list(a.lengths))
    assert same.other_dim_lengths == a.other_dim_lengths
    with pytest.raises(ValueError, match="not among its lengths"):
        dataclasses.replace(a, other_dim_lengths=(3000,))


def test_calls_out_of_memory_beside_the_others_take_turns_with_one_another_after_them(tmp_path, monkeypatch):
    prefill = sc.tiny(sc.SCENARIOS["gqa-prefill"])
    prefill = dataclasses.replace(prefill, lengths=prefill.lengths[:1], head_dims=prefill.head_dims[:1],
                                  train_lengths=())
    heavy = {"naive", "naive_inplace"}
    vs = [variants.VARIANTS[n] for n in ("sdpa_math", "naive", "naive_inplace")]
    real_interleave, real_one, calls = sweep.timing.interleave, sweep.timing._Rounds.one, []

    def interleave(preps, heat_s=None, on_error=None):
        calls.append(sorted(p.name for p in preps))
        for p in preps:  # the first rounds: the two heavy calls do not fit beside the third
            p.rounds.oom = len(preps) == 3 and p.name in heavy
        real_interleave(preps, heat_s=heat_s, on_error=on_error)

    def one(rounds):
        if getattr(rounds, "oom", False):
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 1 TiB")
        real_one(rounds)

    monkeypatch.setattr(sweep.timing, "interleave", interleave)
    monkeypatch.setattr(sweep.timing._Rounds, "one", one)
    (tmp_path / "traces").mkdir()
    pts = sweep.run_sweep(vs, [prefill], ["inference"], torch.device("cpu"), tmp_path,
                          deadline=time.monotonic() + 600, budget=_quick())
    assert calls == [["naive", "naive_inplace", "sdpa_math"], ["naive", "naive_inplace"]]
    by = {p.variant: p for p in pts}
    assert {p.status for p in pts} == {"ok"}
    for v in heavy:
        assert sorted(by[v].timing.interleaved_with) == sorted(heavy) and by[v].timing.interleave_later
    assert by["sdpa_math"].timing.interleaved_with == [] and not by["sdpa_math"].timing.interleave_later
