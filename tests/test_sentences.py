"""Every sentence right (issue 17, errors 1-13): each test asserts a corrected fact or number on the
pages built from the committed sets, or on the fact layer behind them.

The pages are built once for the module from results/ into a scratch folder; `page(name)` reads one
as plain text (HTML entities decoded), so assertions read as the page does.
"""

from __future__ import annotations

import dataclasses
import html
import math
import re
from pathlib import Path

import pytest

from gen.analysis import calls, flops, host_rules, scaling, tables
from gen.analysis import scenarios as sa
from gen.model import schema
from gen.report import build

ROOT = Path(__file__).resolve().parent.parent
H200 = "nvidia-h200__torch-2.11.0"
OWN = f"sets/{H200}"  # the H200 set's own pages: its variants, scenarios, findings (gen.report.units)
CPU = "cpu-intel-r-xeon-r-processor__torch-2.13.0"


@pytest.fixture(scope="module")
def docs(tmp_path_factory, schema2_results) -> Path:
    # Written against the schema-2 H200 capture: its facts, quoted below, are that capture's.
    out = tmp_path_factory.mktemp("sentences") / "docs"
    build.run(schema2_results, out, convert=False)  # a set's own pages as Markdown, read line by line
    return out / "generated"


@pytest.fixture(scope="module")
def page(docs):
    def read(name: str) -> str:
        text = (docs / name).read_text(encoding="utf-8")
        # Charts carry their data as JSON in an attribute: not prose.
        text = re.sub(r"<div class=\"vega-chart\".*?</div>", "", text, flags=re.S)
        return html.unescape(text)
    return read


@pytest.fixture(scope="module")
def h200(schema2_results):
    return tables.load_set(schema2_results / H200)


# --------------------------------------------------------------------------- 11: one FLOP convention, the roofline


def test_scaling_and_scenario_pages_count_flops_the_same_way(h200):
    """The scaling page counted causal FLOPs as S(S+1)/2, the scenario pages as S²/2: one convention now."""
    sw = scaling.sweep_frame(h200)
    pts = sa.point_frame(h200, "article")
    pts = pts[pts["mode"] == "inference"]
    both = sw.merge(pts, left_on=["variant", "seq_len", "head_dim"], right_on=["variant", "kv_len", "head_dim"])
    both = both[both["tflops_causal"].notna()]
    assert len(both) > 20
    assert (both["tflops_causal"] - both["tflops"]).abs().max() < 1e-9 * both["tflops"].max()
    assert scaling.flops(8, 16, 256, 64)["causal"] == flops.flops(
        schema.Point(batch=8, q_heads=16, kv_heads=16, head_dim=64, q_len=256, kv_len=256, mask="causal"))


def test_the_convention_is_named_once_and_printed_on_the_scaling_page(page):
    text = page("scaling.md")
    assert flops.FLOP_CONVENTION in text
    assert "S·(S+1)/2" not in text and "causal-useful" not in text


def test_roofline_points_above_the_line_are_explained(page, h200):
    above = sa.above_roof(sa.point_rows(h200, "decode"), scaling.ceilings(h200))
    assert above["n"] > 0  # decode passes the copy's rate
    text = page(f"{OWN}/scenarios/decode.md")
    assert f"{above['n']} of the {above['total']} points lie above the line" in text
    assert "datasheet's 4.8 TB/s is the bound" in text


def test_the_roof_takes_the_highest_bandwidth_ceiling_measured(h200):
    c = h200.rs.ceilings
    fake = schema.Ceilings(c.matmul_shape, c.matmul_dtype, c.matmul_ms, c.copy_bytes, c.copy_ms)
    fake.read_bytes, fake.read_ms = c.copy_bytes, [t / 2 for t in c.copy_ms]  # a read pass twice the copy's rate
    ceil = scaling.ceilings(tables.LoadedSet(h200.name, h200.path, dataclasses.replace(h200.rs, ceilings=fake)))
    assert ceil["bandwidth_name"] == "read"
    assert ceil["bandwidth_gbps"] == pytest.approx(2 * ceil["copy_gbps"])
    assert scaling.roof_tflops(1.0, ceil) == pytest.approx(ceil["bandwidth_gbps"] / 1e3)
    assert not math.isnan(ceil["ridge_intensity"])


# --------------------------------------------------------------------------- 1: the sliding window's reason is work


def test_sliding_window_verdict_gives_the_work_from_counted_flops(h200, page):
    from gen.analysis import verdicts

    v = verdicts.verdict(h200, "sliding-window")
    p = calls.point_of(h200, "sliding-window")
    assert v.why.kind == "dense_mask" and v.runner_up.variant == "sdpa_cudnn"
    assert v.why.dense_flops == flops.dense_flops(p) == pytest.approx(8.80e12, rel=1e-3)
    assert v.why.masked_flops == flops.flops(p) == pytest.approx(1.924e12, rel=1e-3)
    text = page(f"sets/{H200}.md")
    assert "1 GPU event a call against 5" not in text
    assert ("SDPA cuDNN scores every (query, key) pair: 8.80 TFLOP against 1.92 TFLOP inside the window (4.6×"
            in text)
    assert "its attention kernel takes 26.87 of the 27.48 ms of GPU events" in text


# --------------------------------------------------------------------------- 5: explanations from names and counters


def test_article_verdict_explains_against_the_runner_up_and_flash_not_math(page):
    """The reason the fastest wins is read against the runner-up (FlexAttention's Triton kernel) and SDPA
    flash (FlashAttention-2, mma.sync), never against the slowest row (SDPA math)."""
    why = next(line for line in page(f"sets/{H200}.md").splitlines() if line.startswith("<li>Why: its main kernel"))
    assert "SDPA math" not in why and "built for sm80" not in why
    assert "FlexAttention (compiled) runs a Triton template" in why and "SDPA flash runs FlashAttention-2" in why
    assert "wgmma" in why


def test_flash_is_named_flashattention2_and_cudnn_prefill_a_persistent_wgmma_kernel(page):
    text = page(f"{OWN}/variants/sdpa_cudnn.md")
    assert ("a cuDNN kernel compiled for sm90 (Hopper) that uses wgmma, Hopper's warpgroup matrix instructions, "
            "persistent (one block per SM, each looping over tiles): 132 blocks of 384 threads on 132 SMs") in text
    flash = page(f"{OWN}/variants/sdpa_cudnn.md").split("ran faster than SDPA flash (", 1)[1]
    assert flash.startswith("FlashAttention-2, warp-level mma.sync)")


def test_the_sm90_explanation_does_not_carry_over_to_decode(page):
    text = page(f"{OWN}/variants/sdpa_cudnn.md")
    decode = next(line for line in text.splitlines() if "lean_reduction_kernel: " in line)
    assert "compiled for sm80 (Ampere) that uses warp-level matrix instructions (the sm80 design), no wgmma" in decode
    assert "sm90" not in decode.split("What their names say:", 1)[1]


def test_math_lesson_gives_float32_on_the_cuda_cores_with_the_tensor_pipe_counter(page):
    text = page(f"{OWN}/variants/sdpa_math.md")
    assert ("Its 2 matrix products, 36% of the call, run in float32 on the CUDA cores (ffma in their names, cuBLAS "
            "kernels compiled for sm80 (Ampere); Nsight Compute measured the tensor pipes busy 0.01% of their time)"
            in text)


def test_efficient_kernel_is_not_called_older_architecture_code(page):
    text = page(f"{OWN}/variants/sdpa_efficient.md")
    assert "runs here as older-architecture code" not in text
    assert "the kernel is written for sm80 (Ampere): warp-level matrix instructions, none of Hopper's wgmma" in text


# --------------------------------------------------------------------------- 2: why the profiler reads 0% occupancy


def test_zero_occupancy_is_put_down_to_shared_memory_not_the_launch_api(page):
    text = page(f"{OWN}/findings.md")
    assert "as for every cuLaunchKernelEx launch" not in text
    assert "passes launch attributes that the estimate does not read" not in text
    # FlexAttention (cuLaunchKernel) and cuDNN (cuLaunchKernelEx) get the same cause: their shared memory.
    assert "this one uses 112 KiB" in text and "this one uses 131 KiB" in text
    # Kernels of one block for 132 SMs: the estimate is right in kind, not a failure.
    math_small = next(line for line in text.splitlines() if "sdpa_math: near-zero occupancy" in line)
    assert "Their grids have 1, 1, 1 block(s) for 132 SMs" in math_small and "failed estimate" not in math_small


def test_every_kernel_over_48_kib_reads_zero_and_none_at_or_under_it_does(h200):
    """The rule behind the words, checked on every profiled kernel of the committed set."""
    from gen.analysis import kernel_rules

    seen = 0
    for run in h200.rs.runs:
        if run.status != "ok" or not run.trace or run.scenario != "article":
            continue
        for g in h200.trace(run.mode, run.variant).forwards[0].gpu:
            if g.kind != "kernel" or g.shared_memory is None or g.occupancy_pct is None:
                continue
            seen += 1
            if kernel_rules.estimate_blind(g.shared_memory):
                assert g.occupancy_pct == 0, g.name
            elif g.shared_memory == kernel_rules.SMEM_DEFAULT_LIMIT:
                assert g.occupancy_pct > 0, g.name  # flash_fwd_kernel, exactly 48 KiB: 13%
    assert seen > 50


# --------------------------------------------------------------------------- 6: the first cuDNN call


def test_cudnn_first_call_is_the_process_first_not_a_generated_kernel(page, h200):
    from gen.analysis import lessons

    cc = lessons.cudnn_costs(h200)
    assert cc.first_in_process and cc.same_problem_first_s["sdpa_auto"] < 0.001
    text = page(f"{OWN}/variants/sdpa_cudnn.md")
    assert "cuDNN generates its kernel for the problem" not in text
    assert ("Its first forward was the first cuDNN call of the capture's process and took 0.87 s against 12.188 ms "
            "for SDPA efficient and 13.334 ms for SDPA flash") in text
    assert "SDPA (backend not pinned), calling cuDNN on the same problem afterwards, took 504.8 µs" in text
    assert "this set does not record (no first call per sweep point)" in text


# --------------------------------------------------------------------------- 8: one count of the mask kernels


def test_math_page_counts_the_mask_kernels_once(page):
    text = page(f"{OWN}/variants/sdpa_math.md")
    assert "5 kernels from aten::fill_, aten::tril and aten::where, 11.0 µs, rows #4, #5, #6, #7, #8" in text
    assert "5 kernel(s) from aten::fill_, aten::tril, aten::where: 11.0 µs a forward" in text
    assert "4 kernel(s)" not in text and "10.3 µs" not in text


# --------------------------------------------------------------------------- 3, 4: published figures, like with like


def _row(text: str, start: str) -> list[str]:
    line = next(x for x in text.splitlines() if x.startswith(start))
    return [c.strip() for c in line.strip("|").split("|")]


def test_fa3_table_sets_each_published_kernel_against_ours_running_it(page, h200):
    text = page(f"{OWN}/scenarios/article.md")
    # The paper's FlashAttention-2 against our sdpa_flash (FlashAttention-2): 0.72x at 512 tokens, D 64.
    # the source states its clock (1830 MHz): our clock and the rate at that clock stand beside the rate (review
    # 2026-12-07-9 item 8), columns 6 and 9
    fa2 = _row(text, "| S = 512, D 64, FlashAttention-2 (our sdpa_flash)")
    assert fa2[4] == "our SDPA flash" and fa2[8] == "0.72×"
    assert (fa2[6], fa2[9]) == ("–", "–") or (fa2[6].endswith(" MHz") and fa2[9].endswith("×"))  # a clock: a model
    fa2_rates = [float(_row(text, f"| S = {n:,}, D {d}, FlashAttention-2")[8].rstrip("×"))
                 for d in (64, 128) for n in (512, 1024, 2048, 4096, 8192, 16384)]
    assert min(fa2_rates) == 0.72 and max(fa2_rates) == 1.02
    # FlashAttention-3, which PyTorch does not run, against our best.
    fa3 = _row(text, "| S = 16,384, D 64, FlashAttention-3")
    assert fa3[4] == "our fastest, SDPA cuDNN" and fa3[8] == "0.94×"


def test_fa3_source_shape_is_read_from_its_points(page):
    text = page(f"{OWN}/scenarios/article.md")
    assert "The source measured batch 32 with 32 heads" not in text
    assert ("The source held batch × length at 16,384 tokens (batch 32 at S = 512 down to batch 1 at S = 16,384) and "
            "query heads × head dim at 2,048 (32 heads at D 64, 16 heads at D 128)") in text


def test_scenario_headlines_name_their_head_dim_and_compare_at_it(page):
    line = next(x for x in page("scenarios/index.md").splitlines() if x.startswith("| [The article's shape]"))
    # SDPA with no backend pinned runs the same kernels: named with it (review 2026-12-06-7 item 11)
    assert ("At S = 16,384, D 64, SDPA cuDNN and SDPA (backend not pinned) run the same kernels and are fastest"
            in line) and "447 TFLOP/s" in line
    assert "Against FlashAttention-3 at S = 16,384, D 64" in line and "0.94× its rate" in line
    assert "0.90×" not in line


# --------------------------------------------------------------------------- 7: one kernel, one class


def test_the_same_masked_fill_kernel_gets_one_class_in_both_naive_variants(h200, page):
    from gen.analysis import counters

    got = {}
    for v in ("naive", "naive_inplace"):
        f = counters.for_run(h200, "inference", v).frame
        row = f[f["short_name"] == "elementwise_kernel"].iloc[0]
        got[v] = (row["sm_throughput_pct"], row["bound"])
    assert got["naive"][0] > 60 > got["naive_inplace"][0]  # 60.05% and 59.92%: one counter either side of 60
    assert got["naive"][1] == got["naive_inplace"][1] == counters.Bound.LINE
    for v in ("naive", "naive_inplace"):
        text = page(f"{OWN}/variants/{v}.md")
        note = next(x for x in text.splitlines() if x.startswith("- **elementwise_kernel** (36"))
        assert "Nsight Compute's line: the SMs at" in note and "-bound:" not in note


# --------------------------------------------------------------------------- 10: no Memcpy, no nan, no empty column


def test_a100_naive_main_kernel_is_not_the_one_kernel_the_article_named(page):
    row = _row(page("sets/nvidia-a100-sxm4-80gb__article-2026-07.md"), "| [Naive](")
    assert row[-1] == "–" and "Memcpy" not in row


def test_no_variant_page_prints_nan(page, docs):
    own = sorted((docs / OWN / "variants").glob("*.md"))  # a variant's page in a set: its kernels, its findings
    assert own
    for p in sorted((docs / "variants").glob("*.md")) + own:
        text = page(str(p.relative_to(docs)))
        assert "<td>nan</td>" not in text, p.name
    assert "Backend SDPA picks" not in page(f"{OWN}/variants/naive.md")


def test_home_table_has_no_column_of_dashes(docs):
    # The home page's headline table, every set's time of every variant, is the Compare page's (a row per set).
    text = html.unescape((docs / "compare.md").read_text(encoding="utf-8"))
    table = text[text.index("| Result set |"):].split("\n\n")[0].splitlines()
    header = [c.strip() for c in table[0].strip("|").split("|")]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in table[2:]]
    sets = [row[0] for row in cells]
    for row in cells:
        assert any(c not in ("–", "unavailable") for c in row[1:]), row[0]
    cpu = next(row for row in cells if "CPU (Intel(R) Xeon(R) Processor) · PyTorch 2.13.0" in row[0])
    assert cpu[header.index("[Naive](variants/naive.md)")] == "0.8251‡ (1.0×)"
    assert not [s for s in sets if "flashattention3-paper" in s] and "so not in this table" in text


# --------------------------------------------------------------------------- 9: published sets, what they published


def _section(text: str, title: str) -> str:
    start = next(m.start() for m in re.finditer(r"^## .* against (.*)$", text, flags=re.M) if m.group(1) == title)
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def test_compare_sets_published_figures_at_their_points_not_host_times(page):
    # Each set's comparison with the first GPU set is a page of that set (sets/<set>/compare.md).
    pair = {title: page(f"sets/{name}/compare.md") for title, name in (
        ("NVIDIA H100 80GB SXM5 · published (flashattention3-paper)", "nvidia-h100-sxm5__flashattention3-paper"),
        ("NVIDIA H200 · published (cudnn-frontend-9.19.1)", "nvidia-h200__cudnn-frontend-9.19.1"),
        ("NVIDIA A100-SXM4-80GB · published (article-2026-07)", "nvidia-a100-sxm4-80gb__article-2026-07"))}
    for title in ("NVIDIA H100 80GB SXM5 · published (flashattention3-paper)",
                  "NVIDIA H200 · published (cudnn-frontend-9.19.1)"):
        sec = _section(pair[title], title)
        assert "B has no GPU time" not in sec and "CPU time is defined differently" not in sec, title
        assert "B published no figure at A's default shape" in sec, title
    text = "".join(pair.values())
    cudnn = _section(text, "NVIDIA H200 · published (cudnn-frontend-9.19.1)")
    # A's SM clock beside its time (issue 31): this schema-2 capture recorded none
    assert ("| S = 32,768, D 128 | cuDNN (our sdpa_cudnn) | 25.566 | 688 | our SDPA cuDNN | 29.368 · 599 | – | 1.15× "
            "| 0.87× |") in cudnn
    a100 = _section(text, "NVIDIA A100-SXM4-80GB · published (article-2026-07)")
    assert "CUDA time ms B (profiler, as published)" in a100 and "CPU time ms B (profiler, as published)" in a100


def test_reference_set_pages_print_what_was_published_with_its_shape(page):
    cudnn = page("sets/nvidia-h200__cudnn-frontend-9.19.1.md")
    assert "64 heads" not in cudnn.replace("64 query / 8 KV heads", "")
    assert "Shapes, from its points: batch 1; 64 query / 8 KV heads, head dim 128; S = 2,048 to 32,768" in cudnn
    assert "| S = 2,048, D 128 | cuDNN (our sdpa_cudnn) | 0.142 | 484 | 484 (from its time) |" in cudnn
    fa3 = page("sets/nvidia-h100-sxm5__flashattention3-paper.md")
    assert "Shape: batch 32, 32 heads, 512 tokens" not in fa3
    assert "| S = 16,384, D 128 | FlashAttention-3 | – | 616 (read off a chart) | 616 |" in fa3
    a100 = page("sets/nvidia-a100-sxm4-80gb__article-2026-07.md")
    assert "CUDA time ms (profiler, as published)" in a100 and "GPU-only ms (median)" not in a100


# --------------------------------------------------------------------------- 12: training's copy, CPU anomalies


def test_in_place_saving_says_training_still_copies(page):
    text = page(f"{OWN}/variants/naive_inplace.md")
    assert "128.0 µs (12.0%) less GPU-only time a call" in text  # the forward's saving, claimed
    assert ("in training the in-place variant still copies, because autograd's backward of masked_fill_ is an "
            "out-of-place masked_fill") in text
    assert "MaskedFillBackward0 > MaskedFillBackward0 > aten::masked_fill > aten::clone" in text
    assert "a Memcpy DtoD (Device -> Device) of 125.2 µs in each training step" in text


def test_cpu_set_page_words_its_anomalies(page):
    text = page(f"sets/{CPU}.md")
    assert "The wall time of a flex forward ranges from 0.38 ms to 16.3 ms over its 20 timed calls" in text
    assert "naive_compiled takes 38.7× the wall time of naive, the eager module it compiles" in text
    assert "Its profiled calls took 1.55 ms, 9.38 ms, 32.1 ms, each slower than the last" in text
    assert "A training step of naive takes 145× its forward" in text
    assert "aten::bmm takes 7.705 ms a call against 154.9 µs in a profiled forward" in text
    assert "The wall time of a sdpa_math training step rests on 3 samples" in text


def test_h200_set_has_no_such_anomaly(h200):
    from gen.analysis import findings

    assert findings.rule_anomalies(h200) == []


# --------------------------------------------------------------------------- 13: every number from a result set


def test_lessons_quote_the_article_from_its_reference_set():
    from gen.analysis import lessons
    from gen.model import reference

    a = lessons.article_figures()
    runs = {r.variant: r.published for r in reference.build().runs}
    assert (a.naive_events, a.inplace_events) == (runs["naive"].kernels_per_forward,
                                                  runs["naive_inplace"].kernels_per_forward)
    assert a.math_over_inplace == pytest.approx(runs["sdpa_math"].gpu_time_ms / runs["naive_inplace"].gpu_time_ms)


def test_methodology_prose_holds_no_measured_figure():
    """The hand-written methodology describes the method; what a set measured comes from the set."""
    text = (ROOT / "docs" / "methodology.md").read_text(encoding="utf-8")
    assert not re.findall(r"\d[\d,.]*\s*(?:µs|KiB|GiB|MiB|TFLOP|TB/s|×)", text)
    assert "H200" not in text and "96 µs" not in text and "33 backward" not in text
    for part in ("kernel_sum", "occupancy", "host", "sweep"):
        assert f'--8<-- "generated/.method_{part}.md"' in text


def test_methodology_figures_are_the_sets(docs, h200):
    from gen.analysis import verdicts

    v = verdicts.verdict(h200, "article", "inference")
    host = html.unescape((docs / ".method_host.md").read_text(encoding="utf-8"))
    waits = [x for x in v.host_noise if host_rules.host_bound(v.row(x).eager.median, v.row(x).gpu_only.median)
             and not host_rules.host_under_gpu(v.row(x).host_cost_ms, v.row(x).gpu_only.median)]
    if v.host_bound or waits:
        t = v.row((v.host_bound or waits)[0])
        assert f"yet a loop of its forwards sees {t.eager.median * 1000:.1f} µs a call" in host
    else:  # no loop waits on its host: the example is the fastest, and a loop past the eager line says why not
        t = v.fastest
        assert "no forward at the default shape is host-bound" in host and "yet" not in host
        assert f"and a loop of its forwards sees {t.eager.median * 1000:.1f} µs a call" in host
        ratio = t.eager.median / t.gpu_only.median
        said = f"{ratio:.2f}× its GPU-only time, while the host's own cost of a call"
        assert (said in host) == (ratio >= host_rules.HOST_BOUND_EAGER_RATIO)
    ksum = html.unescape((docs / ".method_kernel_sum.md").read_text(encoding="utf-8"))
    st = tables.summary_table(h200, "inference")
    above = int((st["kernel_sum_ms"] > st["gpu_only_ms"]).sum())
    assert f"above the graph replay's time for {above} of the {len(st)} variants" in ksum
    assert "a little under a graph replay" not in (ROOT / "docs" / "methodology.md").read_text(encoding="utf-8")
