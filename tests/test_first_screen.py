"""The first screen (issue 17): the decision and its reason, made by rules from each set's data
(gen.analysis.advice, worded by gen.report.words.decision.advice), on the committed H200 and CPU
sets, on synthetic verdicts where the data says otherwise, and on the built home page."""

from __future__ import annotations

import shutil

import pytest

from gen.analysis import advice, determinism, host_rules, rules, verdicts
from gen.report import build
from gen.report.words import common as words
from gen.report.words import decision as decision_words
from tests.conftest import RESULTS, committed_set
from tests.test_verdicts import CUDNN90, FLASH, row

CPU = RESULTS / "cpu-intel-r-xeon-r-processor__torch-2.13.0"


@pytest.fixture(scope="module")
def cpu():
    return committed_set(CPU)


def test_h200_first_screen(h200):
    a = advice.advice(h200)
    w = decision_words.advice(a)
    assert a.default == "sdpa_auto" and a.default_is_auto
    assert w.decision == ("On this GPU (NVIDIA H200) and PyTorch 2.11.0+cu130: call scaled_dot_product_attention "
                          "with no backend pinned. It already picks cuDNN for prefill, decode and training, and the "
                          "pinned cuDNN call runs the same kernels: a tie.")
    (exc,) = a.exceptions
    assert exc.scenario == "sliding-window" and exc.variant == "flex" and 5 < exc.ratio < 7
    assert exc.dense_mask and exc.pairs_scored == 16384 ** 2 and 4.5 < exc.pairs_scored / exc.pairs_needed < 4.7
    sliding, lengths, startup, host = w.lines
    # cuDNN where lengths vary: this schema-2 capture has no dynamic-lengths runs, and says so (issue 31 §2)
    assert "did not measure what that costs" in lengths
    # decode's one-token calls: a loop of the default call waited for the host past the line there too
    assert [x.scenario for x in a.loops] == ["decode"]
    # review item 3: "longer" only where it is
    assert " A loop of SDPA (backend not pinned) also waited in decode: " in host
    assert sliding.startswith("For sliding windows, use FlexAttention (compiled): SDPA (backend not pinned) is 5.99× "
                              "slower in a forward pass at 16k")
    assert "the 5.99× is against that dense mask" in sliding  # what the ratio is against (issue 31)
    assert "dense boolean attn_mask" in sliding and "16,384 × 16,384, 4.6×" in sliding and "8.8 TFLOP" in sliding
    # the compile at the verdict's own point (16k, the window's shape), not the article run's
    (pt,) = [p for p in h200.rs.sweep if p.scenario == "sliding-window" and p.variant == "flex"
             and p.mode == "inference" and p.status == "ok"]
    assert f"Its first call at this configuration compiled it in {pt.compile_time_s:.2f} s" in sliding
    assert abs(pt.compile_time_s - 5.3) > 0.1  # the article run's figure is not the one said
    # the start-up: the capture's first cuDNN call, not the unpinned call that followed it; never "one-time" where the
    # set does not record its process (schema 2), so cannot tell a new problem's set-up from a new process's (review 18
    # item 2)
    assert a.startup.variant == "sdpa_cudnn" and a.startup.later_variant == "sdpa_auto"
    assert startup.startswith("Expect about 0.9 s of cuDNN start-up at the capture's first cuDNN call")
    assert "one-time" not in startup and not a.startup.first_calls
    # what this host saw and the crossover (issue 31: host speed is the host's), never "possibly host-bound"
    assert a.host_outcome == rules.WITHIN_NOISE and "possibly host-bound" not in host
    # the host (47.7 µs) is under the GPU time (58.4 µs): its cost against the GPU time, and no "waited" (item 8)
    assert "the host's cost (its 10th percentile: 47.7 µs) is under the GPU time (58.4 µs)" in host
    assert "waited for this host" not in host


def test_cpu_first_screen_changes_with_the_data(cpu):
    a = advice.advice(cpu)
    w = decision_words.advice(a)
    assert w.decision == ("On this CPU (Intel(R) Xeon(R) Processor) and PyTorch 2.13.0+cpu: call "
                          "scaled_dot_product_attention with no backend pinned. It already picks flash (its CPU "
                          "kernel) for prefill and training, as the pinned flash call does; the two are within noise "
                          "of each other.")
    assert w.lines == ("Ranked by wall time on the host: this set has no GPU.",)
    assert not a.exceptions and a.startup is None and a.host_outcome is None
    assert "cuDNN" not in " ".join((w.decision, *w.lines))


def test_the_default_follows_the_ranking():
    """Where SDPA unpinned loses (decidedly) to a pinned backend, the first screen names that one."""
    lose = [row("sdpa_auto", 0.150, kernel=FLASH, backend="flash"), row("sdpa_flash", 0.150, kernel=FLASH),
            row("sdpa_cudnn", 0.100, kernel=CUDNN90)]
    win = [row("sdpa_auto", 0.100, kernel=CUDNN90, backend="cudnn"), row("sdpa_cudnn", 0.1001, kernel=CUDNN90),
           row("sdpa_flash", 0.150, kernel=FLASH)]
    vs = [verdicts.decide(lose, scenario="article"), verdicts.decide(lose, scenario="decode")]
    assert advice._default(vs) == "sdpa_cudnn"
    assert advice._default([verdicts.decide(win), verdicts.decide(lose, scenario="decode")]) == "sdpa_cudnn"
    assert advice._default([verdicts.decide(win), verdicts.decide(win, scenario="decode")]) == "sdpa_auto"
    p = advice._pick(vs[0], "sdpa_auto")
    assert p.outcome == "slower" and p.ratio == pytest.approx(1.5) and p.twin == "sdpa_flash"
    a = advice.Advice("s", "cuda", "GPU X", None, "2.99", "gpu_only", "sdpa_cudnn", False,
                      (advice._pick(vs[0], "sdpa_cudnn"), advice._pick(vs[1], "sdpa_cudnn")), (), None, rules.NO, 1.0)
    w = decision_words.advice(a)
    assert w.decision == ("On this GPU (GPU X) and PyTorch 2.99: call scaled_dot_product_attention with the cuDNN "
                          "backend pinned. It ranks first at the verdict's point for the article's shape and decode.")


def test_home_page_opens_with_the_decision(tmp_path):
    results = tmp_path / "results"
    for name in ("nvidia-h200__torch-2.11.0", CPU.name):
        shutil.copytree(RESULTS / name, results / name)
    build.run(results, tmp_path / "docs")
    text = (tmp_path / "docs" / "generated" / ".verdict.md").read_text(encoding="utf-8")
    first = text.index("data-decision")
    assert first < text.index("data-verdict")  # the decision comes before the verdicts
    assert 'data-default="sdpa_auto" data-exceptions="sliding-window:flex ' in text
    # FP8 prefill measured SDPA alone (both FlexAttention variants skipped): a field of one, not a pick
    assert "FP8 prefill and training" not in text
    assert "It already picks cuDNN for prefill, decode and training" in text
    assert "[host-bound rule](methodology.md#host-bound)" in text
    assert f'data-set="{CPU.name}" data-default="sdpa_auto"' in text


def test_host_line_never_contradicts_its_ratio(h200, h200_new):
    """A ratio over the host-bound line is never called within noise without the reason: the ratio's interval
    crosses the line, or the host's own cost of a call sits close to the GPU's time (host_rules.host_bound_why)."""
    for ls in (h200, h200_new):
        a = advice.advice(ls)
        host = decision_words._host(a)
        assert a.host_outcome == rules.WITHIN_NOISE and a.host_ratio_ci is not None
        lo, hi = a.host_ratio_ci
        assert lo <= a.host_ratio <= hi
        # what this host saw, by the ratio and its interval; the host's own cost as the crossover (issue 31)
        if lo < host_rules.HOST_BOUND_EAGER_RATIO <= hi:
            assert a.host_why in ("eager", "both") and "at the 1.25× line" in host
        elif host_rules.host_under_gpu(a.host_cost_ms, a.host_gpu_ms) and lo >= host_rules.HOST_BOUND_EAGER_RATIO:
            # review item 8: a host faster than the GPU is not what the loop waited for
            assert a.host_why == "host" and "waited for this host" not in host and "not established" in host
        else:
            assert a.host_why == "host" and ("waited for this host" if lo >= host_rules.HOST_BOUND_EAGER_RATIO
                                             else "stayed busy") in host
            assert "this capture's host took" in host
    # schema 2: the loop saw 1.42x, clear of the line; the host's cost is what makes it uncertain
    assert advice.advice(h200).host_why == "host"
    assert host_rules.host_bound_why(0.13, 0.14, 0.099, 0.101) is None  # yes, clear: no reason needed
    assert host_rules.host_bound_why(0.12, 0.13, 0.099, 0.101) == "eager"
    assert host_rules.host_bound_why(0.13, 0.14, 0.099, 0.101, 0.08) == "host"


def test_first_screen_gives_the_cost_of_deterministic_training(h200_new):
    """From the deterministic-backward scenario (training points only): cuDNN refuses under
    torch.use_deterministic_algorithms(True), with PyTorch's clause naming cuDNN; flash and efficient run,
    each at a cost over its own default step, by the medians."""
    v = verdicts.verdict(h200_new, "deterministic-backward", "train")
    assert v is not None and "sdpa_flash_det" in v.ranking
    a = advice.advice(h200_new)
    d = {x.backend: x for x in a.determinism}
    assert d["cudnn"].refused == "unavailable" and "not deterministic" in d["cudnn"].reason
    flash, eff = d["flash"], d["efficient"]
    assert flash.base == "sdpa_flash" and flash.ratio == pytest.approx(flash.det_ms / flash.base_ms)
    assert 1.3 < flash.ratio < 1.7 and 2.5 < eff.ratio < 3.2
    line = next(x for x in decision_words.advice(a).lines if x.startswith("For deterministic training"))
    assert "PyTorch's dispatcher refuses cuDNN (cuDNN SDPA is not deterministic)" in line
    if determinism.fair_sums(flash.det_ks, flash.base_ks):  # graph replays with kernel sums at one clock: sums first
        assert (f"SDPA flash (deterministic) takes {words.us(flash.det_ks[0])} against {words.us(flash.base_ks[0])} "
                "without determinism by kernel sum") in line
        assert f"{words.times(flash.ratio)} as run, {words.us(flash.det_ms)} against {words.us(flash.base_ms)}" in line
    else:
        assert f"SDPA flash (deterministic) takes {words.us(flash.det_ms)} against {words.us(flash.base_ms)}" in line
    assert f"{words.times(flash.ratio)}" in line and f"{words.times(eff.ratio)}" in line
    # the refusal's own clause, not the first backend PyTorch lists
    assert "Memory Efficient attention has been runtime disabled" not in line
    # the price a user pays: the fastest step without determinism (cuDNN) against the fastest with it
    assert flash.fastest_plain in ("sdpa_cudnn", "sdpa_auto")
    assert f"it costs {words.times(flash.det_ms / flash.fastest_plain_ms)} the fastest step without determinism" in line
    # a kernel-sum time beside graph times says so
    # like with like (review 2026-12-06-3 item 11): both kernel sums where the two steps' methods differ
    assert eff.det_method == eff.base_method
    assert (eff.det_method == "kernel_sum") == ("SDPA efficient (deterministic) takes "
                                                f"{words.us(eff.det_ms)} against {words.us(eff.base_ms)} without "
                                                "determinism (both kernel sums)" in line)


def test_the_fp8_pick_on_the_first_screen_says_what_it_costs_in_accuracy(h200_new):
    a = advice.advice(h200_new)
    e = next(x for x in a.exceptions if x.scenario == "fp8-prefill")
    assert e.variant == "cudnn_fp8" and e.dtype == "fp8_e4m3" and e.error > 5 * e.default_error
    line = next(x for x in decision_words.advice(a).lines if x.startswith("For FP8 prefill"))
    assert f"Its relative error: {e.error:.1e}" in line and f"{e.default_error:.1e}" in line
    assert f"q, k, v to float8 e4m3 alone moves the answer by {e.input_rounding_error:.1e}" in line
    # a pick at the default's own dtype says nothing of accuracy
    assert next(x for x in a.exceptions if x.scenario == "sliding-window").error is None
