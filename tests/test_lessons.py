"""The article's lessons from data: small synthetic sets (traces built in memory), then the H200 set."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from gen.analysis import comparability, findings, lessons, tables, verdicts
from gen.model import schema, trace

RESULTS = Path(__file__).resolve().parent.parent / "results"
BF16 = ("c10::BFloat16", "c10::BFloat16")


def ev(index, name, dur, kind="kernel", launched_by="", op_path=(), api="cudaLaunchKernel", types=BF16, **kw):
    return trace.GpuEvent(index=index, name=name, short_name=trace.short_name(name), kind=kind, ts=index * 100.0,
                          dur=dur, stream=7, grid=kw.get("grid"), block=kw.get("block"),
                          registers_per_thread=kw.get("regs"), shared_memory=kw.get("smem"), blocks_per_sm=None,
                          warps_per_sm=None, occupancy_pct=kw.get("occ"), bytes=None, launch_api=api,
                          launch_ts=index * 100.0 - 5, launched_by=launched_by or (op_path[-1] if op_path else ""),
                          op_path=tuple(op_path), input_types=tuple(types))


def naive_events(memcpy=True, memset=False):
    """A naive forward: bmm, mul, (clone's memcpy), masked_fill_, softmax, bmm."""
    out = []
    if memset:
        out.append(("Memset (Device)", 0.7, "memset", ("aten::matmul", "aten::bmm")))
    out.append(("nvjet_sm90_tst_256x128", 80.0, "kernel", ("aten::matmul", "aten::bmm")))
    out.append(("vectorized_elementwise_kernel", 120.0, "kernel", ("aten::mul",)))
    if memcpy:
        out.append(("Memcpy DtoD (Device -> Device)", 125.0, "memcpy",
                    ("aten::masked_fill", "aten::clone", "aten::copy_")))
    out.append(("elementwise_kernel", 360.0, "kernel", ("aten::masked_fill", "aten::masked_fill_")))
    out.append(("softmax_warp_forward", 280.0, "kernel", ("aten::softmax", "aten::_softmax")))
    out.append(("nvjet_sm90_tst_64x512", 84.0, "kernel", ("aten::matmul", "aten::bmm")))
    return [ev(i, n, d, kind=k, op_path=p) for i, (n, d, k, p) in enumerate(out)]


ENV = schema.Environment(device="cuda", gpu_name="Test GPU", compute_capability="9.0", sm_count=132,
                         max_threads_per_sm=2048, max_regs_per_sm=65536, max_shared_memory_per_sm=233472,
                         l2_cache_bytes=None, gpu_memory_bytes=None, driver=None, cuda=None, cudnn=None, torch="2.11",
                         python=None, platform=None, cpu=None, date=None, git_commit=None)
POINT = schema.Point(batch=8, q_heads=16, kv_heads=16, head_dim=64, q_len=1024, kv_len=1024, mask="causal")


def make_set(calls: dict[str, tuple[list, list[float]]]) -> tables.LoadedSet:
    """A measured set whose variants have the given GPU events (three identical
    profiled calls) and CUDA-graph samples (ms)."""
    runs = [schema.VariantRun(variant=v, mode="inference", status="ok", point=POINT, trace=f"traces/{v}.json.gz",
                              timing=schema.Timing(gpu_only_ms=g, gpu_only_method="cuda_graph", eager_ms=g,
                                                   host_ms=[x / 10 for x in g]))
            for v, (_, g) in calls.items()]
    cfg = schema.RunConfig(batch=8, heads=16, seq_len=1024, head_dim=64, dtype="bf16", modes=["inference"],
                           variants=list(calls), warmup_min=1, repeats=1, profile_wait=1, profile_warmup=1,
                           profile_active=3, error_draws=1, seed=0)
    rs = schema.ResultSet(schema_version=2, name="synthetic", environment=ENV, config=cfg, runs=runs)
    ls = tables.LoadedSet("synthetic", Path("/nonexistent"), rs)
    for v, (events, _) in calls.items():
        fw = [trace.Forward(i, 0.0, 1000.0, cpu=[], gpu=list(events)) for i in range(3)]
        ls._traces[("inference", v)] = trace.Trace(f"{v}.json.gz", fw, 0, [])
    return ls


def samples(ms, n=20):
    return [ms * (1 + 0.001 * (i % 5)) for i in range(n)]


@pytest.mark.parametrize("naive_memcpy,inplace_memcpy,holds", [(True, False, True), (False, False, False),
                                                              (True, True, False)])
def test_hidden_copy(naive_memcpy, inplace_memcpy, holds):
    ls = make_set({"naive": (naive_events(memcpy=naive_memcpy), samples(1.07)),
                   "naive_inplace": (naive_events(memcpy=inplace_memcpy), samples(0.94))})
    hc = lessons.hidden_copy(ls)
    assert hc.holds is holds
    assert hc.saved_ms == pytest.approx(0.13, abs=0.005) and hc.settled
    assert hc.saved_pct == pytest.approx(100 * 0.13 / 1.07, abs=0.5)
    if naive_memcpy:
        assert [c.index for c in hc.copies] == [2] and hc.op_path.endswith("aten::clone > aten::copy_")
        assert hc.copy_us == pytest.approx(125.0)


@pytest.mark.parametrize("memset,extra_kernel,cause,without", [
    (True, False, "memset", 6),   # a sub-µs memset a library adds: without it the count is the article's
    (False, True, "events", 7),   # another kernel: the count itself differs
])
def test_explained_kernel_count(memset, extra_kernel, cause, without):
    events = naive_events(memset=memset)
    if extra_kernel:
        events.append(ev(len(events), "extra_kernel", 5.0, op_path=("aten::add",)))
    ls = make_set({"naive": (events, samples(1.0)), "naive_inplace": (naive_events(memcpy=False), samples(0.9))})
    hyp = pd.DataFrame([dict(variant="naive", expected_kernels=6, kernels_contradicted=True)])
    (e,) = lessons.explain(ls, hyp)
    assert (e.item, e.cause, e.measured, e.without) == ("kernels", cause, 7, without)
    assert e.lesson_stands is True  # the Memcpy is there either way: the article's point holds
    if memset:
        assert [k.short_name for k in e.kernels] == ["Memset (Device)"]


def test_copy_contradiction_by_a_memset_only():
    ls = make_set({"naive_inplace": (naive_events(memcpy=False, memset=True), samples(0.9))})
    hyp = pd.DataFrame([dict(variant="naive_inplace", expected_copy_or_fill=False, measured_copy_or_fill=True,
                             copy_contradicted=True)])
    (e,) = lessons.explain(ls, hyp)
    assert e.item == "copy_or_fill" and e.cause == "memset"


def test_flops_convention():
    assert lessons.attention_flops(POINT) == 4 * 8 * 16 * 1024 * 1024 * 64 / 2
    decode = schema.Point(batch=8, q_heads=32, kv_heads=8, head_dim=128, q_len=1, kv_len=4096, mask="none")
    assert lessons.attention_flops(decode) == 4 * 8 * 32 * 1 * 4096 * 128


# --------------------------------------------------------------------------- the H200 set


@pytest.fixture(scope="module")
def h200_lessons(h200):
    return lessons.lessons(h200)


def test_h200_hidden_copy(h200_lessons):
    hc = h200_lessons.hidden_copy
    assert hc.holds and [c.index for c in hc.copies] == [3]
    assert hc.copy_us == pytest.approx(127.1, abs=0.5) and hc.copy_share_pct == pytest.approx(11.8, abs=0.3)
    assert (hc.events, hc.inplace_events) == (7, 6) and hc.method == "cuda_graph" and hc.settled
    assert hc.saved_ms == pytest.approx(0.128, abs=0.003) and hc.saved_pct == pytest.approx(12.0, abs=0.3)


def test_h200_math_backend(h200_lessons):
    mb = h200_lessons.math_backend
    assert mb.holds and mb.events == 20
    assert {k.launched_by for k in mb.safe_softmax} == {"aten::isneginf", "aten::all", "aten::where", "aten::fill_"}
    assert mb.safe_softmax_share_pct == pytest.approx(25.4, abs=0.5)
    assert "aten::tril" in {k.launched_by for k in mb.mask_build}
    assert [k.launched_by for k in mb.mask_apply] == ["aten::add_"]
    assert mb.float32_share_pct > 80 and len(mb.off_tensor_cores) == 2 and len(mb.upcasts) == 5
    assert mb.slowdown == pytest.approx(2.77, abs=0.05)  # the article measured about 3.7x on its A100


def test_h200_kernels_decoded(h200_lessons):
    ek = h200_lessons.efficient_kernel
    assert ek.holds and ek.decoded.family == "fmha_cutlass" and ek.decoded.arch == 80 and ek.gpu_arch == 90
    assert [f.token for f in ek.decoded.fields] == ["fmha", "cutlassF", "F", "bf16", "aligned", "64x64", "rf", "sm80"]
    fo = h200_lessons.flash_occupancy
    assert (fo.threads, fo.registers, fo.shared_memory) == (128, 255, 49152)
    assert fo.limiter == "registers" and fo.theoretical_pct == pytest.approx(12.5) and fo.reported_pct == 13
    assert (fo.block_m, fo.block_n, fo.head_dim) == (128, 128, 64) and fo.holds
    assert fo.score_matrix_bytes == 8 * 16 * 1024 * 1024 * 2
    assert fo.tflops == pytest.approx(185.4, rel=0.02) and fo.ceiling_tflops > fo.tflops
    # Nsight Compute on the H200: 12% achieved, registers the limiter, latency-bound at ncu's SOL line.
    assert fo.counters["occupancy_limiter"] == "registers" and fo.counters["achieved_occupancy_pct"] < 13
    assert fo.counters["bound"] == "latency"
    cc = h200_lessons.cudnn_costs
    assert cc.holds and cc.launch_api == "cuLaunchKernelEx" and cc.reported_pct == 0 and cc.arch == 90
    assert cc.first_call_s == pytest.approx(0.87, abs=0.01)
    assert cc.others_first_call_s["sdpa_flash"] == pytest.approx(0.013, abs=0.001)
    assert cc.transposes == {"sdpa_cudnn": 0, "sdpa_efficient": 4, "sdpa_flash": 4}
    assert cc.host_ms > cc.others_host_ms["sdpa_flash"]
    assert [m.short_name for m in cc.memsets] == ["Memset (Device)"]


def test_h200_claims_and_explanations(h200, h200_lessons):
    claims = {(c.variant, c.key): c.holds for c in h200_lessons.claims}
    assert claims[("naive", "hidden_copy")] and claims[("naive_inplace", "copy_removed")]
    assert claims[("sdpa_flash", "flash_fastest")] is False  # cuDNN's sm90 kernel wins on the H200
    assert claims[("sdpa_flash", "flash_on_chip")] and claims[("sdpa_cudnn", "cudnn_planning")]
    ex = {(e.variant, e.item): e for e in lessons.explain(h200, findings.check_hypotheses(h200))}
    # A sub-µs memset is bookkeeping (issue 31): it contradicts no count or copy, so nothing to explain
    assert ("naive", "kernels") not in ex and ("sdpa_cudnn", "copy_or_fill") not in ex
    assert lessons.lessons(tables.load_set(RESULTS / "cpu-intel-r-xeon-r-processor__torch-2.13.0")) is None


# --------------------------------------------------------------------------- comparability


def test_comparability(h200):
    ref = tables.load_set(RESULTS / "nvidia-a100-sxm4-80gb__article-2026-07")
    kinds = {(i.kind, i.quantity): i for i in comparability.issues(h200, ref)}
    assert not comparability.refusals(h200, ref)  # same shape, dtype and scenario
    cpu = kinds[("definition", "cpu")]
    assert (cpu.a, cpu.b) == ("host_dispatch", "published_cpu_time")
    # Graph replay against the article's profiler CUDA time: two definitions, flagged.
    gpu = kinds[("definition", "gpu")]
    assert (gpu.a, gpu.b) == ("gpu_only_cuda_graph", "published_cuda_time")
    old = tables.load_set(Path(__file__).resolve().parent / "data" / "sets" / "nvidia-h200__torch-2.11.0__schema1")
    old_kinds = {(i.kind, i.quantity): i for i in comparability.issues(old, ref)}
    assert ("definition", "gpu") not in old_kinds  # a kernel sum and the article's CUDA time add up the same events
    noisy = old_kinds[("noisy", "ranking time")]
    assert noisy.a and all(n.kind == "few" for n in noisy.a)  # 3 profiled calls per kernel sum
    assert comparability.issues(h200, h200) == [i for i in comparability.issues(h200, h200) if i.kind == "noisy"]


def test_comparability_refuses_other_shapes(h200):
    import dataclasses

    rs = h200.rs
    other = dataclasses.replace(rs, scenarios=[dataclasses.replace(
        rs.scenarios[0], dtype="fp16", points=[dataclasses.replace(rs.scenarios[0].points[0], kv_len=2048,
                                                                    q_len=2048)])])
    b = tables.LoadedSet("other", h200.path, other)
    kinds = {i.kind for i in comparability.refusals(h200, b)}
    assert kinds == {"shape", "dtype"}
    none = dataclasses.replace(rs, runs=[], sweep=[])
    assert {i.kind for i in comparability.refusals(h200, tables.LoadedSet("empty", h200.path, none))} >= {"scenario"}
    assert verdicts.verdict(tables.LoadedSet("empty", h200.path, none)) is None


def test_incomparable_is_one_line(h200):
    import dataclasses

    rs = h200.rs
    p = dataclasses.replace(rs.scenarios[0].points[0], kv_len=2048, q_len=2048)
    b = tables.LoadedSet("other", h200.path, dataclasses.replace(rs, scenarios=[
        dataclasses.replace(rs.scenarios[0], points=[p])]))
    with pytest.raises(schema.UserError) as e:
        comparability.require_comparable(h200, b)
    msg = str(e.value)
    assert "\n" not in msg and "Sq1024 Skv1024" in msg and "Sq2048 Skv2048" in msg and "--force" in msg
    ref = tables.load_set(RESULTS / "nvidia-a100-sxm4-80gb__article-2026-07")
    assert {i.kind for i in comparability.require_comparable(h200, ref)} == {"definition"}


def test_compare_cli_refuses_other_shapes_and_flags_definitions(capsys, h200_dir):
    from gen.cli import main

    root = str(RESULTS)
    cpu, ref = "cpu-intel-r-xeon-r-processor__torch-2.13.0", "nvidia-a100-sxm4-80gb__article-2026-07"
    assert main(["compare", "nvidia-h200__torch-2.11.0", cpu, "--results", root]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "not comparable" in err and "Sq256" in err and "--force" in err
    assert main(["compare", "nvidia-h200__torch-2.11.0", cpu, "--results", root, "--force"]) == 0
    assert capsys.readouterr().out.startswith("warning: different shapes")
    assert main(["compare", "nvidia-h200__torch-2.11.0", ref, "--results", root]) == 0
    out = capsys.readouterr().out
    assert "warning: cpu time defined differently: BASE host_dispatch, NEW published_cpu_time" in out
    assert main(["compare", "nvidia-h200__torch-2.11.0", ref, "--results", root, "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.out.lstrip().startswith("{") and "warning: cpu time defined differently" in captured.err


FLASH_NAME = ("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
              "cutlass::bfloat16_t, Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false>(P)")


@pytest.mark.parametrize("with_counters", [True, False])
def test_flash_lesson_reads_counters_when_present(with_counters):
    from gen.report.words import lessons as lesson_words

    flash = [ev(0, FLASH_NAME, 96.6, op_path=("aten::_flash_attention_forward",), regs=255, block=(128, 1, 1),
                grid=(8, 16, 8), smem=49152, occ=13.0)]
    ls = make_set({"sdpa_flash": (flash, samples(0.0966))})
    if with_counters:
        ls.rs.run("sdpa_flash").counters = schema.Counters(status="ok", kernels=[schema.KernelCounters(
            index=0, name=FLASH_NAME.removeprefix("void "), achieved_occupancy_pct=12.4,
            theoretical_occupancy_pct=12.5, occupancy_limiter="registers", sm_throughput_pct=71.0,
            dram_throughput_pct=18.0, tensor_pipe_pct=55.0)])
    fo = lessons.flash_occupancy(ls)
    assert fo.limiter == "registers" and fo.theoretical_pct == pytest.approx(12.5) and fo.holds
    assert fo.tflops == pytest.approx(lessons.attention_flops(POINT) / (fo.gpu_only_ms * 1e-3) / 1e12)
    text = lesson_words.lesson(fo).text
    if with_counters:
        assert fo.counters["achieved_occupancy_pct"] == pytest.approx(12.4)
        assert fo.counters["bound"] == "compute"  # SM at 71% of peak, DRAM at 18%: ncu's 60% line
        assert "Nsight Compute measured: 12.4% achieved occupancy, limited by registers" in text
    else:
        assert fo.counters is None and "No Nsight Compute counters in this set" in text


def test_h200_backend_contradiction_explained(h200):
    hyp = findings.check_hypotheses(h200)
    auto = hyp[hyp["variant"] == "sdpa_auto"].iloc[0]
    assert (auto["expected_backend"], auto["measured_backend"]) == ("flash", "cudnn") and auto["backend_contradicted"]
    assert "backend" in auto["contradicted_items"]
    (e,) = [e for e in lessons.explain(h200, hyp) if e.item == "backend"]
    assert e.expected_ran and [x for x, _ in e.faster] == ["sdpa_cudnn"] and e.lesson_stands is None


def test_claims_are_made_once_per_set(h200, monkeypatch):
    """Each variant's page asks for the set's claims: made once, then the same claims (a fresh list each time)."""
    first = lessons.claims(h200)
    monkeypatch.setattr(lessons, "_claims", lambda ls: pytest.fail("claims made again"))
    again = lessons.claims(h200)
    assert again == first and again is not first and first


def test_explanations_made_once_are_each_variants_explain(h200, h200_new, h200_v1):
    """The pages read the set's explanations made once (site.Context.explanations); a variant's page
    read explain of its own hypothesis row before: the same list, in order, for every variant of the
    committed sets (and none for a variant without a row)."""
    from gen.report import site

    checked = 0
    sets = [h200, h200_new, h200_v1] + [tables.load_set(p) for p in sorted(RESULTS.iterdir()) if p.is_dir()]
    for ls in sets:
        ctx = site.Context([ls])
        hyp = findings.check_hypotheses(ls)
        assert ctx.explanations(ls) == lessons.explain(ls, hyp)
        for v in [*{r.variant for r in ls.rs.runs}, "absent"]:
            want = lessons.explain(ls, hyp[hyp["variant"] == v]) if not hyp.empty else []
            assert ctx.explanations(ls, v) == want
            checked += len(want)
    assert checked > 3




def test_a_kernel_tables_refs():
    """lessons._refs: one KernelRef per row of a kernel table, in its order, with Python ints and floats."""
    import pandas as pd

    kt = pd.DataFrame(dict(index=[4, 2], short_name=["a", "b"], dur_us=[1.5, 2], launched_by=["aten::mm", ""]))
    got = lessons._refs("naive", kt, "train")
    assert got == (lessons.KernelRef("naive", "train", 4, "a", 1.5, "aten::mm"),
                   lessons.KernelRef("naive", "train", 2, "b", 2.0, ""))
    assert type(got[0].index) is int and type(got[1].dur_us) is float and lessons._refs("naive", kt.iloc[:0]) == ()
