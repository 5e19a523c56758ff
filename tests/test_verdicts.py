"""Verdicts: table-driven on small synthetic rows, then on the committed sets."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gen.analysis import calls, kernel_names, tables, verdicts
from gen.analysis.timings import Spread
from gen.model import variants

RESULTS = Path(__file__).resolve().parent.parent / "results"
CUDNN90 = "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0"
FLASH = "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false>, false>(P)"
FMHA80 = "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::arch::Sm80>)"


def sp(median, iqr=0.01, n=50):
    """A spread of `n` samples around `median` with an IQR of `iqr` x median, and an interval of its
    median as wide."""
    lo, hi = median * (1 - iqr / 2), median * (1 + iqr / 2)
    return Spread(median, lo, hi, n, lo, hi)


def row(variant, gpu=None, eager=None, host=None, kernel=None, events=1, backend=None, **kw):
    return calls.Timed(variant, "ok", sp(gpu) if isinstance(gpu, float) else gpu,
                          "cuda_graph" if gpu is not None else None,
                          sp(eager) if isinstance(eager, float) else eager,
                          sp(host) if isinstance(host, float) else host, events, kernel,
                          kernel.split("(")[0] if kernel else None, 0 if kernel else None, backend, **kw)


# name, rows, expected facts (attribute path -> value)
CASES = [
    ("clear lead, settled",
     [row("sdpa_flash", 0.10, kernel=FLASH), row("sdpa_efficient", 0.18, kernel=FMHA80)],
     {"fastest.variant": "sdpa_flash", "runner_up.variant": "sdpa_efficient", "settled": True, "basis": "gpu_only",
      "same_kernel": ()}),
    ("intervals overlap: not settled",
     [row("sdpa_flash", sp(0.100, 0.2)), row("sdpa_efficient", sp(0.105, 0.2))],
     {"fastest.variant": "sdpa_flash", "settled": False}),
    ("automatic pick on the pinned kernel: the pinned one is named, the pick joins it",
     [row("sdpa_auto", 0.0572, kernel=CUDNN90, backend="cudnn"), row("sdpa_cudnn", 0.0573, kernel=CUDNN90,
                                                                       backend="cudnn"),
      row("flex", 0.080, kernel="triton_tem_fused_flex_attention_0")],
     {"fastest.variant": "sdpa_cudnn", "same_kernel": ("sdpa_auto",), "runner_up.variant": "flex",
      "auto.is_fastest": True, "auto.same_as": ("sdpa_cudnn",), "auto.backend": "cudnn"}),
    ("automatic pick slower than the fastest",
     [row("sdpa_auto", 0.096, kernel=FLASH, backend="flash"), row("sdpa_flash", 0.096, kernel=FLASH, backend="flash"),
      row("sdpa_cudnn", 0.057, kernel=CUDNN90, backend="cudnn")],
     {"fastest.variant": "sdpa_cudnn", "auto.is_fastest": False, "auto.same_as": ("sdpa_flash",),
      "runner_up.variant": "sdpa_flash"}),
    ("no GPU-only time: ranks by eager, then by host",
     [row("naive", eager=2.0), row("sdpa_flash", eager=1.0)],
     {"basis": "eager", "fastest.variant": "sdpa_flash", "host": None}),
    ("host wall time only (a CPU set)",
     [row("naive", host=2.0), row("sdpa_math", host=3.0)],
     {"basis": "host", "fastest.variant": "naive", "ratio": 1.5}),
    ("a row without GPU-only time is not dropped: the ranking falls back to the time all rows have",
     [row("sdpa_flash", 0.10, eager=0.2), row("naive", None, eager=0.15)],
     {"basis": "eager", "fastest.variant": "naive", "ranking": ("naive", "sdpa_flash")}),
    ("a status other than ok is never ranked",
     [dataclasses.replace(row("sdpa_flash", 0.01), status="unavailable"), row("naive", 1.0)],
     {"fastest.variant": "naive", "runner_up": None, "ratio": None, "settled": None}),
]


def _get(obj, path):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name,rows,want", CASES, ids=[c[0] for c in CASES])
def test_decide(name, rows, want):
    v = verdicts.decide(rows, "s", gpu_arch=90)
    for path, value in want.items():
        got = _get(v, path)
        assert got == pytest.approx(value) if isinstance(value, float) else got == value, (path, got)


def test_nothing_to_rank():
    assert verdicts.decide([]) is None
    assert verdicts.decide([row("naive")]) is None


@pytest.mark.parametrize("eager_flash,closed,changes", [
    (0.0958, True, True),     # flash is the fastest per eager call, and within cuDNN's spread
    (0.1000, True, False),    # cuDNN still leads per eager call, but flash sits within its spread
    (0.2000, False, False),   # the loop keeps the GPU's order
])
def test_host_change(eager_flash, closed, changes):
    rows = [row("sdpa_cudnn", 0.057, sp(0.096, 0.2), kernel=CUDNN90),
            row("sdpa_flash", 0.0966, sp(eager_flash, 0.02), kernel=FLASH)]
    h = verdicts.decide(rows).host
    assert h.changes_answer is changes and h.matters is closed
    assert ("sdpa_flash" in h.closed) is closed
    assert h.gpu_order == ("sdpa_cudnn", "sdpa_flash")


@pytest.mark.parametrize("rows,kind", [
    ([row("sdpa_cudnn", 0.057, kernel=CUDNN90), row("sdpa_efficient", 0.08, kernel=FMHA80),
      row("flex", 0.18, kernel="triton_tem_0")], "native_arch"),
    ([row("sdpa_flash", 0.10, kernel=FLASH, events=1), row("naive", 1.0, kernel="elementwise", events=6)],
     "fewer_events"),
    ([row("a", 0.10, kernel="k1", events=2), row("b", 0.2, kernel="k2", events=1)], None),
])
def test_why(rows, kind):
    why = verdicts.decide(rows, gpu_arch=90).why
    assert (why.kind if why else None) == kind
    if kind == "native_arch":
        assert why.fastest_arch == 90 and why.instruction == "wgmma"
        assert ("sdpa_efficient", FMHA80.split("(")[0], 80) in why.older


def test_why_needs_the_gpu_arch():
    rows = [row("sdpa_cudnn", 0.057, kernel=CUDNN90), row("sdpa_efficient", 0.18, kernel=FMHA80)]
    assert verdicts.decide(rows, gpu_arch=None).why is None or verdicts.decide(rows).why.kind != "native_arch"


@pytest.mark.parametrize("spread,kind", [(sp(1.0, 0.25, 50), "spread"), (sp(1.0, 0.01, 3), "few"),
                                         (sp(1.0, 0.05, 50), None)])
def test_noise_flags(spread, kind):
    v = verdicts.decide([row("naive", spread), row("sdpa_flash", 0.1)])
    flags = [n.kind for n in v.noise if n.variant == "naive" and n.timing == "gpu_only"]
    assert flags == ([kind] if kind else [])


def test_auto_against_the_hypothesis(monkeypatch):
    auto = variants.VARIANTS["sdpa_auto"]
    if not hasattr(auto.expect, "backend"):
        pytest.skip("the hypothesis names no backend")
    rows = [row("sdpa_auto", 0.057, kernel=CUDNN90, backend="cudnn"), row("sdpa_cudnn", 0.057, kernel=CUDNN90)]
    for said, contradicted in (("flash", True), ("cudnn", False), (None, None)):
        hyp = dataclasses.replace(auto.expect, backend=said)
        monkeypatch.setitem(variants.VARIANTS, "sdpa_auto", dataclasses.replace(auto, expect=hyp))
        assert verdicts.decide(rows).auto.contradicted is contradicted


@pytest.mark.parametrize("name,arch_,family,fields", [
    (FMHA80, 80, "fmha_cutlass", {"dtype": "bf16", "alignment": True, "tile": (64, 64), "accumulator": "registers",
                                  "arch": 80, "library": "cutlass", "direction": "forward"}),
    (CUDNN90, 90, "cudnn_sdpa", {"arch": 90, "instruction": "wgmma", "knob": 7, "tile": (64, 128, 64),
                                 "layout": (4, 1, 1), "cluster": (1, 1, 1)}),
    ("cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_6_128x64x64_4x1x1_cga1x1x1_kernel0_0", 80,
     "cudnn_sdpa", {"instruction": "wmma", "knob": 6, "tile": (128, 64, 64)}),
    (FLASH, None, "flash2", {"head_dim": 64, "block_m": 128, "block_n": 128, "warps": 4}),
    ("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_execute_kernel", 80,
     "cublas_xmma", {"dtype": "f32", "instruction": "ffma", "tile": (128, 128, 8)}),
    ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", 90, "nvjet", {"tile": (256, 128)}),
    ("triton_tem_fused_flex_attention_0", None, None, {}),
    ("vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1> >", None, None, {}),
])
def test_kernel_names(name, arch_, family, fields):
    d = kernel_names.decode(name)
    assert kernel_names.arch(name) == arch_ and d.family == family
    for kind, value in fields.items():
        assert d.get(kind) == value, kind


def test_gpu_arch():
    assert kernel_names.gpu_arch("9.0") == 90 and kernel_names.gpu_arch("8.6") == 86
    assert kernel_names.gpu_arch(None) is None and kernel_names.gpu_arch("x") is None


# --------------------------------------------------------------------------- the committed sets


def test_h200_verdict(h200):
    v = verdicts.verdict(h200)
    assert v is verdicts.verdict(h200)  # computed once per set
    assert v.basis == "gpu_only" and v.method == "cuda_graph" and v.fastest.gpu_only.n >= calls.MIN_SAMPLES
    # cuDNN's sm90 kernel leads; the automatic choice runs the very same kernel.
    assert v.fastest.variant == "sdpa_cudnn" and v.same_kernel == ("sdpa_auto",)
    assert v.fastest.gpu_only.median == pytest.approx(0.0588, abs=5e-4)
    assert v.runner_up.variant == "flex" and v.ratio == pytest.approx(1.35, abs=0.02) and v.settled
    assert v.auto.backend == "cudnn" and v.auto.is_fastest and v.auto.same_as == ("sdpa_cudnn",)
    assert v.why.kind == "native_arch" and v.why.gpu_arch == 90 and v.why.instruction == "wgmma"
    # against the runner-up and SDPA flash, never the slowest rows
    assert [x.variant for x in v.why.compared] == ["flex", "sdpa_flash"] and not v.why.older
    # In a Python loop the host eats most of cuDNN's lead over flex (85 against 89 µs a call), but the
    # intervals of the two eager medians stay apart: the loop keeps the GPU's order.
    assert not v.host.changes_answer and not v.host.matters
    assert v.ranking[-1] == "sdpa_math" and not v.noise
    # cuDNN's loop waited (1.44x) but its host costs less than its kernels: within noise, as flex's 1.13x
    # with a host at 0.83x; the two cuDNN calls run the same kernels and share one rank and one outcome.
    assert v.host_bound == () and set(v.host_noise) == {"sdpa_cudnn", "sdpa_auto", "flex"}
    assert v.rank("sdpa_cudnn") == v.rank("sdpa_auto") == 1 and v.rank("flex") == 3
    assert v.fastest_outcome == "yes" and v.near == ()


def test_h200_scenario_verdicts(h200):
    """Every scenario of the real set gets its verdict, at the point it names."""
    got = {s: verdicts.verdict(h200, s) for s in verdicts.scenarios(h200)}
    assert set(got) == {"article", "gqa-prefill", "decode", "sliding-window"}
    assert got["gqa-prefill"].fastest.variant == "sdpa_cudnn"
    assert calls.point_of(h200, "decode").q_len == 1 and got["decode"].runner_up.variant == "sdpa_flash"
    # A 4096-token window at 16k: flex's block mask skips what SDPA's full causal kernels compute.
    sw = got["sliding-window"]
    # The reason is the work (issue 17): SDPA gets the window as a dense mask and scores every pair.
    assert sw.fastest.variant == "flex" and sw.ratio > 3 and sw.why.kind == "dense_mask"


def test_schema1_set_ranks_by_kernel_sum():
    old = tables.load_set(Path(__file__).resolve().parent / "data" / "sets" / "nvidia-h200__torch-2.11.0__schema1")
    v = verdicts.verdict(old)
    assert v.method == "kernel_sum" and v.fastest.variant == "sdpa_cudnn"
    assert any(n.kind == "few" and n.n == 3 for n in v.noise)  # 3 profiled calls: a thin timing, said so


def test_cpu_and_reference_sets():
    cpu = tables.load_set(RESULTS / "cpu-intel-r-xeon-r-processor__torch-2.13.0")
    v = verdicts.verdict(cpu)
    assert v.basis == "host" and v.why is None and v.host is None and not v.host_bound
    assert v.auto.same_as == ("sdpa_flash",)  # the CPU's flash kernel, by backend
    ref = tables.load_set(RESULTS / "nvidia-a100-sxm4-80gb__article-2026-07")
    assert verdicts.verdict(ref) is None  # published figures are not ranked as a measurement


# --------------------------------------------------------------------------- words


def test_words_follow_the_facts():
    from gen.report.words import common as words
    from gen.report.words import verdicts as verdict_words

    settled = verdict_words.verdict(verdicts.decide(CASES[0][1]))
    assert settled.headline.startswith("SDPA flash is the fastest here: 100.0 µs a forward on the GPU alone, 1.80×")
    assert "do not overlap" in settled.headline and settled.fastest == "sdpa_flash"
    unsettled = verdict_words.verdict(verdicts.decide(CASES[1][1]))
    assert "within noise" in unsettled.headline
    auto = verdict_words.verdict(verdicts.decide(CASES[2][1]))
    assert any("ran cuDNN, the same kernels as SDPA cuDNN: the fastest choice here" in x for x in auto.lines)
    host = [row("sdpa_cudnn", 0.057, sp(0.096, 0.2), kernel=CUDNN90), row("sdpa_flash", 0.0966, sp(0.0958, 0.02))]
    lines = verdict_words.verdict(verdicts.decide(host)).lines
    assert any(x.startswith("For short calls in a Python loop the answer changes") for x in lines)
    thin = verdict_words.verdict(verdicts.decide([row("naive", sp(1.0, 0.01, 3)), row("sdpa_math", 2.0)])).lines
    assert any("rests on 3 samples" in x for x in thin)
    assert words.label("sdpa_auto") == "SDPA (backend not pinned)"


def test_scenario_pages_name_the_verdicts_fastest(h200):
    """The scenario pages' fastest per point (gen.analysis.scenarios) is the verdict's, twin rule included."""
    from gen.analysis import scenarios

    fast = scenarios.fastest_rows(scenarios.point_rows(h200, "article"))
    assert len(fast)
    for r in fast:
        point = next(p.point for p in h200.rs.sweep if p.head_dim == r["head_dim"] and p.seq_len == r["kv_len"])
        assert r["variant"] == verdicts.verdict_at(h200, "article", point).fastest.variant


def test_a_scenario_whose_own_variants_were_not_measured_says_so():
    """FP8 prefill with both FlexAttention variants skipped: a field of one, no claim about FP8, the skipped
    variants named with their reason; and the first screen does not count it as a pick."""
    from gen.analysis import advice
    from gen.report.words import verdicts as verdict_words

    skipped = "not run: the run's time limit was reached"
    rows = [row("sdpa_auto", 3.9, kernel=CUDNN90, backend="cudnn"),
            dataclasses.replace(row("flex"), status="skipped", reason=skipped),
            dataclasses.replace(row("flex_fp8"), status="skipped", reason=skipped)]
    v = verdicts.decide(rows, scenario="fp8-prefill")
    assert v.field_of_one and v.missing_kind == "fp8"
    assert [x.variant for x in v.not_measured] == ["flex", "flex_fp8"]
    w = verdict_words.verdict(v)
    assert w.headline.startswith("A field of one: SDPA (backend not pinned) is the only call measured here")
    assert "fastest" not in w.headline
    assert w.lines[0] == ("No FP8 variant was measured: FlexAttention (compiled) and FlexAttention (float8 e4m3 "
                          "inputs) (skipped: the run's time limit was reached).")
    assert advice._pick(v, "sdpa_auto") is None
    # decode kernels: two calls ran, three did not: ranked, and the three named
    rows = [row("sdpa_auto", 0.12, kernel=CUDNN90, backend="cudnn"), row("varlen", 0.14, kernel=FLASH),
            *(dataclasses.replace(row(x), status="skipped", reason=skipped)
              for x in ("flex", "flex_triton", "flex_paged"))]
    v = verdicts.decide(rows, scenario="decode-kernels")
    assert not v.field_of_one and v.missing_kind is None
    assert verdict_words.verdict(v).lines[0].startswith(
        "Not measured here: FlexAttention (compiled), FlexAttention (main "
        "kernel forced) and FlexAttention on a paged KV cache")


def test_a_long_reason_is_cut_between_words_and_kept_in_full():
    """A refusal's reason longer than a verdict line holds is cut at a word with an ellipsis (never
    inside a word or a number: "139.8" of "139.80 GiB" would be another figure); the verdict keeps
    the reason in full, and its block shows it under <details>, escaped."""
    from gen.report import site
    from gen.report.words import common as words
    from gen.report.words import verdicts as verdict_words

    oom = ("out of memory: CUDA out of memory. Tried to allocate 16.00 GiB. GPU 0 has a total capacity of "
           "139.80 GiB of which 1.91 GiB is free.")
    cut = words.short_reason(oom)
    assert cut == "out of memory: CUDA out of memory. Tried to allocate 16.00 GiB…"  # at its last whole sentence
    # a clause, not a cut inside one (review 2026-12-07-7 item 6)
    assert words.short_reason("not run: the compiled naive product holds a mask of one length, so every new length is "
                              "a new module and a new compile, which no server would do; not measured") == \
        "the compiled naive product holds a mask of one length…"
    assert words.short_reason("flash refused <b>it</b>") == "flash refused <b>it</b>"  # short: whole
    assert words.shortened("x" * 150).endswith("…") and len(words.shortened("x" * 150)) == 100  # one long word
    hostile = ("RuntimeError: No available kernel. Aborting execution.; Flash attention kernel not used because: "
               "<script>alert(1)</script> requires <em>query</em> & key of head_dim <= 256, and the query's "
               "stride is 7; Memory efficient kernel not used because: the other one")
    rows = [row("sdpa_flash", 0.10, kernel=FLASH), row("sdpa_efficient", 0.18, kernel=FMHA80),
            dataclasses.replace(row("sdpa_cudnn"), status="oom", reason=oom),
            dataclasses.replace(row("flex"), status="unavailable", reason=hostile)]
    w = verdict_words.verdict(verdicts.decide(rows))
    assert w.lines[0] == (f"Not measured here: SDPA cuDNN (oom: {cut}); FlexAttention (compiled) (unavailable: "
                          "<script>alert(1)</script> requires <em>query</em> & key of head_dim <= 256…).")
    # the first clause that says why, cut at its last whole clause
    assert dict((who, r) for who, r in w.reasons) == {"SDPA cuDNN": oom, "FlexAttention (compiled)": hostile}

    b = dict(set="s", set_title="S", scenario="article", scenario_title="Article", point="", mode="inference",
             fastest=w.fastest, fastest_ms="0.1", basis=w.basis, runner_up="", host_bound="", auto_backend="",
             headline=w.headline, lines=w.lines, reasons=w.reasons)
    page = site.environment().get_template("verdict_block.md.j2").render(b=b)
    details = page.split('<details class="verdict-reasons"')[1].split("</details>")[0]
    assert "<script>" not in page and "<em>query</em>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; requires &lt;em&gt;query&lt;/em&gt; &amp; key" in details
    assert "139.80 GiB of which 1.91 GiB is free." in details


def test_same_kernels_tie_on_the_headline():
    rows = [row("sdpa_cudnn", 0.9359, kernel=CUDNN90, backend="cudnn"),
            row("sdpa_auto", 0.9322, kernel=CUDNN90, backend="cudnn"), row("sdpa_flash", 1.0, kernel=FLASH)]
    from gen.report.words import verdicts as verdict_words
    head = verdict_words.verdict(verdicts.decide(rows, scenario="decode")).headline
    assert "tie for the fastest here (the same kernels: one rank)" in head and " is the fastest" not in head
    assert "935.9 µs a forward" in head and "932.2 µs for SDPA (backend not pinned)" in head


def test_the_article_verdict_says_where_its_sweep_less_rows_come_from(tmp_path):
    # An earlier H200 capture's time limit cut FlexAttention's article sweep: the committed set with its
    # article Flex points recorded as such a capture recorded them.
    import dataclasses
    import shutil
    from pathlib import Path

    from gen.analysis import tables
    from gen.model import schema

    src = Path(__file__).parent.parent / "results" / "nvidia-h200__torch-2.11.0"
    rs = schema.load_set(src)
    cut = "not run: the run's time limit was reached"
    rs = dataclasses.replace(rs, sweep=[
        dataclasses.replace(p, status=schema.Status.SKIPPED.value, reason=cut, timing=schema.Timing(), trace=None)
        if p.scenario == "article" and p.variant == "flex" else p for p in rs.sweep])
    d = tmp_path / src.name
    shutil.copytree(src, d)
    (d / "result.json").write_text(schema.dumps(rs))
    prev = tables.load_set(d)
    v = verdicts.verdict(prev, "article")
    assert ("flex", "not run: the run's time limit was reached") in [(x.variant, x.reason) for x in v.sweep_gaps]
    from gen.report.words import verdicts as verdict_words
    line = next(x for x in verdict_words.verdict(v).lines if "from the profiled run at this point" in x)
    assert "FlexAttention (compiled)" in line
    # the headline names Flex as the runner-up: it says where that row comes from (the front page shows it alone)
    assert verdict_words.verdict(v).headline.endswith("(FlexAttention (compiled): from the profiled run at this point, "
                                                      "which the sweep skipped).")


def test_the_auto_line_introduces_the_hypothesis_it_contradicts():
    from gen.report.words import verdicts as verdict_words

    rows = [row("sdpa_auto", 0.0572, kernel=CUDNN90, backend="cudnn"), row("sdpa_cudnn", 0.0573, kernel=CUDNN90,
                                                                          backend="cudnn"),
            row("sdpa_flash", 0.09, kernel=FLASH, backend="flash")]
    v = verdicts.decide(rows)
    assert v.auto.contradicted
    line = next(x for x in verdict_words.verdict(v).lines if x.startswith("With no backend pinned"))
    assert "as the hypothesis said" not in line
    assert ("not flash, which the report's hypothesis for this variant (set before measuring) expected: "
            f"{variants.VARIANTS['sdpa_auto'].expect.why}") in line


MATH80 = ("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_"
          "execute_kernel")
TRITON = "triton_tem_fused_flex_attention_0"


def test_why_compares_the_runner_up_and_flash_not_the_slowest():
    from gen.report.words import verdicts as verdict_words

    rows = [row("sdpa_cudnn", 0.0586, kernel=CUDNN90, backend="cudnn", main_us=56.8, events_us=56.8),
            row("flex", 0.0795, kernel=TRITON, main_us=81.3, events_us=81.3),
            row("sdpa_flash", 0.0921, kernel=FLASH, backend="flash", main_us=92.7, events_us=92.7),
            row("sdpa_math", 2.6, kernel=MATH80, backend="math", main_us=1800.0, events_us=2600.0, events=5)]
    v = verdicts.decide(rows, gpu_arch=90)
    assert v.why.kind == "native_arch" and [x.variant for x in v.why.compared] == ["flex", "sdpa_flash"]
    line = next(x for x in verdict_words.verdict(v).lines if x.startswith("Why:"))
    assert "SDPA math" not in line and "FlexAttention (compiled) runs a Triton template" in line
    assert "SDPA flash runs FlashAttention-2" in line and "no wgmma" in line and "56.8 µs in its profiled call" in line


def test_an_event_count_is_never_the_reason_when_the_extra_events_are_a_small_share_of_the_gap():
    """Sliding window: varlen's second event is a 0.8 µs fill; the gap is its attention kernel (6.78 ms against
    4.77 ms for FlexAttention's Triton kernel)."""
    from gen.analysis import rules
    from gen.report.words import verdicts as verdict_words

    rows = [row("flex", 4.852, kernel=TRITON, main_us=4773.8, events_us=4773.8, events=1),
            row("varlen", 6.746, kernel=FLASH, main_us=6780.6, events_us=6781.4, events=2)]
    v = verdicts.decide(rows, scenario="sliding-window", gpu_arch=90)
    assert 0.8 < rules.EVENTS_REASON_SHARE * 2007
    assert v.why.kind == "main_kernel"
    line = next(x for x in verdict_words.verdict(v).lines if x.startswith("Why:"))
    assert "GPU event a call" not in line and "GPU events a call" not in line
    assert "In the profiled calls its own took 4.774 ms" in line and "6.781 ms" in line
    assert "other GPU events take 0.8 µs of the 2.008 ms gap" in line
    # where the extra events are the gap, the count is the reason
    rows = [row("varlen", 1.30, kernel=FLASH, main_us=1293.6, events_us=1294.5, events=2),
            row("sdpa_nested", 1.52, kernel=FLASH + " ", main_us=1256.8, events_us=1534.9, events=5)]
    assert verdicts.decide(rows, scenario="packed-documents", gpu_arch=90).why.kind == "fewer_events"


def test_a_label_with_a_comma_inside_its_bracket_is_not_bracketed_twice():
    from gen.report.words import common as words

    assert words.label("sdpa_auto") == "SDPA (backend not pinned)"
    assert words.label("cudnn_fp8") == "cuDNN FP8 attention (frontend graph)"
    assert words.label("varlen").count("(") == 1


def test_a_merged_sets_verdict_says_which_rows_another_capture_call_measured(h200_merged):
    """The H200 set committed before this one: the sliding window's FlexAttention, varlen_attn and compiled naive rows
    were measured by a second call (merged with gen import --merge); the verdict says so, with both
    calls' start times, and a verdict whose rows all come from one call says nothing."""
    from gen.report.words import decision as decision_words
    from gen.report.words import verdicts as verdict_words

    v = verdicts.verdict(h200_merged, "sliding-window")
    assert {x.variant for x in v.other_calls} >= {"flex", "varlen"}
    assert "sdpa_cudnn" not in {x.variant for x in v.other_calls}
    line = next(x for x in verdict_words.verdict(v).lines if x.startswith("Measured in two capture calls"))
    assert "FlexAttention (compiled)" in line and "UTC on 2026-12-03" in line and "cross processes" in line
    assert verdicts.verdict(h200_merged, "article").other_calls == ()
    article = verdict_words.verdict(verdicts.verdict(h200_merged, "article"))
    assert not any(x.startswith("Measured in two") for x in article.lines)
    assert __import__("gen.report.words.common", fromlist=["x"]).clock_time("<script>") == "another time"
    from gen.report.pages import methodology

    got = methodology.calls_view(h200_merged)
    assert got["calls"] == 1 and got["records"] == 7 and 370 < got["own_s"] < 390 and 60 < got["later_s"] < 80
    # the scenario page of a merged scenario says which rows the later call measured, with both calls' clocks
    from gen.report.pages import scenarios as sp
    from gen.report.site import Context

    view = sp.set_view(Context([h200_merged]), h200_merged, "sliding-window")
    assert view["calls"].startswith("Two capture calls measured this scenario: FlexAttention (compiled)")
    assert "varlen_attn" in view["calls"] and "MHz" in view["calls"] and "SDPA cuDNN" not in view["calls"]
    # the pages escape every backtick of a note (its Markdown is data-safe): none to show literally
    assert "`" not in view["calls"] and "`" not in line
    assert sp.set_view(Context([h200_merged]), h200_merged, "decode")["calls"] is None
    # the first screen's sliding-window line: its compile time is the merged call's, and says so
    from gen.analysis import advice

    a = advice.advice(h200_merged)
    exc = next(e for e in a.exceptions if e.scenario == "sliding-window")
    assert exc.compile_merged
    line = next(x for x in decision_words.advice(a).lines if x.startswith("For sliding windows"))
    assert "in a later capture call, merged" in line
    assert not next(e for e in a.exceptions if e.scenario == "packed-documents").compile_merged
