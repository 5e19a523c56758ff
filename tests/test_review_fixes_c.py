"""Review items 14, 23, 25, 26, 27, 30 and 33 (notes/review.md), each held by a test on the committed H100 set:
what flash_attn.cute ran on sm90 read from its kernels' names, the warpgroup sentence stated as inference, "Why"
lines that state a measured cause, the FLOP count named beside every rate, variant labels without nested
brackets, one rule for durations, and no empty main-kernel label."""

from __future__ import annotations

import dataclasses
import re
import shutil

import pytest

from gen.analysis import calls, flops, kernel_names, verdicts
from gen.analysis import kernel_story as ks
from gen.model import schema
from gen.model.variants import VARIANTS, extra_install
from gen.report import build
from gen.report import format as fmt
from gen.report.pages import kernel_story as page_mod
from gen.report.words import common as words
from gen.report.words import host as host_words
from gen.report.words import kernels as kernel_words
from gen.report.words import why as why_words
from tests.conftest import RESULTS, committed_set

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
PUBLISHED = "nvidia-h200__cudnn-frontend-9.19.1"
FA4_FWD = ("kernel_cutlass_kernel_flash_attncuteflash_fwd_sm90FlashAttentionForwardSm90_object_at__tensor0000o1110")


@pytest.fixture(scope="module")
def rs():
    return schema.load_set(RESULTS / H100)


@pytest.fixture(scope="module")
def loaded():
    return committed_set(H100)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("fixc")
    results = root / "results"
    results.mkdir()
    for name in (H100, PUBLISHED):  # the published set: the scenario pages set it beside ours
        shutil.copytree(RESULTS / name, results / name)
    build.run(results, root / "docs", convert=False, use_cache=False, workers=1)
    return root / "docs"


# ---------------------------------------------------------------- 14: what flash_attn.cute ran on sm90


def test_fa4_classes_that_ran_are_read_from_the_kernel_names(rs):
    story = ks.story(rs)
    assert story.compute_capability == "9.0"
    assert story.fa4_classes == {90: ("FlashAttentionBackwardSm90", "FlashAttentionForwardSm90")}


def test_the_fa4_page_says_the_hopper_kernels_ran_and_whose_design_they_follow(site, rs):
    text = (site / page_mod.page(H100)).read_text()
    ran = text.split("**What ran.**")[1].split("\n\n")[0]
    assert "FlashAttentionForwardSm90" in ran and "FlashAttentionBackwardSm90" in ran
    assert "FlashAttention-3" in ran and "Blackwell" in ran and "software-emulated exponential" in ran
    assert text.count("**What ran.**") == 1  # said once on the page
    # the features the page checks are cited as the authors of the design that ran describe them
    assert "FlashAttention-3 authors describe" in text
    assert "FlashAttention-4 authors describe" not in text


def test_a_blackwell_class_is_not_called_the_hopper_design(rs):
    story = dataclasses.replace(ks.story(rs), fa4_classes={100: ("FlashAttentionForwardSm100",)})
    ran = page_mod.what_ran(story)
    assert "Sm100" in ran and "FlashAttention-3's Hopper design" not in ran
    assert page_mod.design(story) == "FlashAttention-4"


def test_the_fa4_variants_descriptions_name_the_sm90_kernels():
    for v in ("fa4", "flex_flash"):
        why = VARIANTS[v].expect.why
        assert "Sm90" in why and "FlashAttention-3" in why, v


# ---------------------------------------------------------------- 33: warpgroups as inference


def test_the_warpgroup_sentence_is_inference_from_the_launch(rs):
    story = ks.story(rs)
    text = next(e["text"] for e in page_mod.evidence(story) if e["head"] == "Warpgroups.")
    assert "By inference only" in text and "proves neither" in text
    assert "Every FA4 attention kernel here runs a whole number of warpgroups" not in text
    fa4 = [k for by in story.modes.values() for v, got in by.items() if v in ks.FA4_VARIANTS for k in got]
    for k in fa4:  # each FA4 block's threads, warpgroups and registers are the recorded launch's
        assert f"{fmt.integer(k.threads)} threads ({k.warpgroups} warpgroups) at {k.registers_per_thread}" in text


# ---------------------------------------------------------------- 23: Why lines state a measured cause


def _verdicts(loaded):
    for sc in ("article", "gqa-prefill", "decode", "sliding-window", "packed-documents"):
        for mode in ("inference", "train"):
            for p in calls._points(loaded, sc, mode):
                v = verdicts.verdict_at(loaded, sc, p, mode)
                if v is not None and v.why is not None:
                    yield v


def test_why_lines_state_a_measured_cause(loaded):
    seen = 0
    for v in _verdicts(loaded):
        line = why_words.why_line(v)
        w = v.why
        if v.runner_up is not None and v.runner_up.variant in v.near:
            assert line is None  # a tie: no win to explain (review2 N8)
            continue
        if w.kind == "main_kernel" and w.fastest_main_us and w.runner_up_main_us:
            seen += 1
            assert line.startswith("Why: the main kernels make the difference.")
            assert "apart" in line and "runs a kernel compiled for" not in line
        if w.kind == "native_arch" and any(r.main_us is not None and r.main_us < w.fastest_main_us
                                           for r in w.compared):
            assert line is None  # the rival's kernel ran quicker: the architecture explains nothing
    assert seen


# ---------------------------------------------------------------- 25: the FLOP count named beside the rates


def test_the_flop_label_says_the_diagonal_is_not_counted(site):
    assert "S²/2" in flops.FLOP_LABEL and "diagonal" in flops.FLOP_LABEL
    page = (site / "generated" / "sets" / H100 / "scenarios" / "gqa-prefill.md").read_text()
    assert f"TFLOP/s ({flops.FLOP_LABEL})" in page
    assert "converted to our count" in page and "(S + 1)/S" in page


# ---------------------------------------------------------------- 26: clean variant labels


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_labels_have_no_nested_brackets_and_no_optional(name):
    for text in (VARIANTS[name].label, words.label(name)):
        assert "optional" not in text, text
        depth = 0
        for ch in text:
            depth += {"(": 1, ")": -1}.get(ch, 0)
            assert depth <= 1, text


def test_optional_is_said_once_on_the_variant_page(site):
    for v in ("fa4", "flex_flash"):
        page = (site / fmt.variant_page(v)).read_text()
        assert page.count("Optional: it runs only where its extra is installed") == 1
        assert extra_install(VARIANTS[v]) in page
    assert extra_install(VARIANTS["sdpa_cudnn"]) is None


# ---------------------------------------------------------------- 27: one rule for durations


def test_durations_use_ms_from_one_millisecond_and_host_costs_take_the_gpu_times_unit():
    assert words.us(3.1234) == "3.123 ms" and words.us(0.0589) == "58.9 µs"
    # beside a GPU time in ms, the host's cost reads in ms too: one unit in the sentence (host.in_unit_of)
    cross = host_words.host_crossover(3.1234, 0.3298, 0.0133)
    assert "in under 3.123 ms" in cross and "took 0.330 ms" in cross and "reference call: 13.3 µs" in cross
    assert "took 329.8 µs" in host_words.host_crossover(0.5, 0.3298, 0.0133)  # beside one in µs, µs
    assert host_words.usec(1.5) == "1500.0 µs"


def test_no_sentence_prints_a_millisecond_duration_in_us(site):
    """Outside tables and host costs (always µs), a duration of 1 ms or more reads in ms."""
    big = re.compile(r"(\d[\d,]*\.\d) µs")
    for path in (site / "generated" / "sets").rglob("*.md"):
        for line in path.read_text().splitlines():
            if line.startswith("|") or "<td" in line:
                continue
            for m in big.finditer(line):
                if float(m.group(1).replace(",", "")) >= 1000:
                    before = line[max(0, m.start() - 60):m.start()]
                    assert "host" in before or "reference call" in before, (path.name, line[m.start() - 80:m.end()])


# ---------------------------------------------------------------- 30: no empty main-kernel label


def test_flash_attn_cute_kernels_are_named_by_their_class(site):
    assert kernel_words.kernel_path_short(kernel_names.path(FA4_FWD)) == "flash_attn.cute FlashAttentionForwardSm90"
    findings = (site / "generated" / "sets" / H100 / "findings.md").read_text()
    assert "main kernel: kernel, sm90" not in findings
