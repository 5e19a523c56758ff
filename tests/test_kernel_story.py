"""FlashAttention-4's kernels story (issue 32): built from the committed H100 set's counters, beside FA2, cuDNN and
the Triton template; every launch figure on the page is the set's; what the set did not record (TMA, warp roles,
the softmax pipeline, FA4's clusters) is said to be not measured; a set without FA4 counters has no such page."""

from __future__ import annotations

import pytest

from gen.analysis import kernel_story as ks
from gen.model import schema
from gen.report import format as fmt
from gen.report.pages import kernel_story as page_mod
from tests.conftest import RESULTS

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def rs():
    return schema.load_set(RESULTS / H100)


@pytest.fixture(scope="module")
def site(gpu_docs):
    return gpu_docs


def test_launch_facts_follow_from_the_recorded_counters(rs):
    story = ks.story(rs)
    env = rs.environment
    assert set(story.modes["inference"]) == set(ks.COMPARED)
    for by in story.modes.values():
        for kernels in by.values():
            for k in kernels:
                assert k.threads == (k.block[0] * k.block[1] * k.block[2])
                assert k.registers_per_block == k.registers_per_thread * k.threads
                assert k.register_file_share == k.registers_per_block / env.max_regs_per_sm
                assert k.warpgroups is None or k.warpgroups * ks.WARPGROUP == k.threads
                assert k.grid_is_sm_count == (k.blocks == env.sm_count)
                assert k.share >= ks.MAIN_SHARE


def test_a_set_without_fa4_counters_has_no_story():
    assert ks.story(schema.load_set(RESULTS / H200)) is None


def test_the_page_shows_the_sets_launches_and_says_what_is_not_measured(site, rs):
    text = (site / page_mod.page(H100)).read_text()
    for mode in ("inference", "train"):
        for run in (rs.run(v, mode) for v in ks.COMPARED):
            for k in ks.main_kernels(run, rs.environment):
                assert f"{k.registers_per_thread} × {fmt.integer(k.threads)}" in text
                assert fmt.num(k.tensor_pipe_pct, ".0f", "%") in text
    for claim in ("TMA.", "Softmax pipeline.", "Warp specialization.", "Clusters."):
        part = text.split(f"**{claim}**")[1].split("\n")[0]
        assert "not measured" in part or "not recorded" in part, claim
    # the design is cited only as the authors' description
    assert "FlashAttention-3 authors describe" in text and "FlashAttention-4 authors introduce" in text
    set_page = (site / fmt.set_page(H100)).read_text()
    assert "fa4-kernels.md" in set_page
    assert not (site / page_mod.page(H200)).exists()


def test_the_forward_of_a_training_step_is_not_its_backward(rs):
    story = ks.story(rs)
    by = story.modes["train"]
    for v in ks.COMPARED:
        fwd, bwd = page_mod._main(by, v, "fwd"), page_mod._main(by, v, "bwd")
        assert fwd is not None and bwd is not None and fwd is not bwd, v
