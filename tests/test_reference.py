"""The reference set: published figures only, loaded through the normal path."""

from __future__ import annotations

import json
import math

import pytest

from gen.analysis import tables
from gen.cli import main
from gen.model import anchors, reference, schema
from tests.conftest import RESULTS, committed_set

REF = "nvidia-a100-sxm4-80gb__article-2026-07"


@pytest.fixture(scope="module")
def ref(h200_dir):
    return committed_set(REF)


def test_committed_set_matches_the_builder(h200_dir):
    """The committed file is schema 1: read through the migration it equals what
    the builder makes today."""
    on_disk = json.loads((RESULTS / REF / "result.json").read_text())
    assert on_disk["schema_version"] == 1
    assert schema.load_set(RESULTS / REF) == reference.build()


def test_reference_kind_source_and_unknowns(ref):
    assert ref.rs.kind == "reference" and not ref.measured
    assert "huggingface.co/blog/torch-attention-profile" in ref.rs.source
    assert ref.rs.environment.gpu_name == "NVIDIA A100-SXM4-80GB"
    assert ref.rs.environment.driver is None and ref.rs.environment.torch is None
    assert (ref.rs.config.profile_wait, ref.rs.config.profile_warmup, ref.rs.config.profile_active) == (1, 1, 3)
    # Only the six variants the article covered, no samples.
    assert [r.variant for r in ref.rs.runs] == ["naive", "naive_inplace", "sdpa_math", "sdpa_efficient",
                                                  "sdpa_flash", "sdpa_cudnn"]
    assert all(r.status == "ok" and not r.timing.eager_ms and not r.timing.host_ms for r in ref.rs.runs)


def test_summary_reads_published_figures(ref):
    df = tables.summary_table(ref).set_index("variant")
    assert df.loc["sdpa_math", "kernels_per_forward"] == 20
    assert df.loc["sdpa_flash", "gpu_only_ms"] == pytest.approx(0.1468)
    assert df.loc["sdpa_cudnn", "host_ms"] == pytest.approx(0.214)
    assert math.isnan(df.loc["naive", "gpu_only_ms"])  # not published: not invented
    assert math.isnan(df.loc["sdpa_flash", "gpu_only_q1_ms"])  # no spread for a single number


def test_cli_refuses_to_overwrite_then_forces(tmp_path, capsys):
    assert main(["reference", "--results", str(tmp_path)]) == 0
    assert main(["reference", "--results", str(tmp_path)]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["reference", "--results", str(tmp_path), "--force"]) == 0
    assert schema.load_set(tmp_path / REF).kind == "reference"


# --------------------------------------------------------------------------- published anchors (issue 13)

ANCHORS = {anchors.CUDNN_NAME: anchors.build_cudnn_h200, anchors.FA3_NAME: anchors.build_fa3_h100}


@pytest.mark.parametrize("name", sorted(ANCHORS))
def test_committed_anchor_matches_the_builder(h200_dir, name):
    assert schema.load_set(RESULTS / name) == ANCHORS[name]()


def _figures(rs, variant, head_dim):
    return {p.point.q_len: p.published for p in rs.sweep if p.variant == variant and p.point.head_dim == head_dim}


def test_cudnn_h200_figures_and_times():
    rs = anchors.build_cudnn_h200()
    assert rs.kind == "reference" and rs.environment.gpu_name == "NVIDIA H200" and rs.environment.cudnn == "9.19.1"
    assert rs.environment.torch is None and rs.environment.driver is None  # not published
    assert "github.com/NVIDIA/cudnn-frontend" in rs.source and "h200_919_only_cudnn" in rs.source
    pub = _figures(rs, "sdpa_cudnn", 128)
    assert {s: p.tflops for s, p in pub.items()} == {2048: 484, 4096: 591, 8192: 644, 16384: 673, 32768: 688}
    assert pub[16384].gpu_time_ms == pytest.approx(6.531)
    # the same CSV's FP8 rows (data_type=fp8, top_left), for the fp8-prefill scenario
    fp8 = _figures(rs, "cudnn_fp8", 128)
    assert {s: p.tflops for s, p in fp8.items()} == {2048: 698, 4096: 854, 8192: 964, 16384: 1010, 32768: 1042}
    assert fp8[16384].gpu_time_ms == pytest.approx(4.357) and "float8 e4m3" in fp8[16384].note
    assert {(p.variant, p.scenario, p.dtype) for p in rs.sweep} == {
        ("sdpa_cudnn", "gqa-prefill", None), ("cudnn_fp8", "fp8-prefill", "fp8_e4m3")}
    assert rs.scenario("fp8-prefill").dtype == "fp8_e4m3" and "data_type=fp8" in rs.source
    for p in rs.sweep:
        assert (p.status, p.point.batch, p.point.q_heads, p.point.kv_heads, p.point.mask) == (
            "ok", 1, 64, 8, "causal")
        # The published time and rate agree under the source's own convention (diagonal counted),
        # to the rounding of a time printed with three decimals: a mistyped figure fails here.
        s = p.point.q_len
        flop = 2 * 64 * (s * (s + 1) // 2) * (128 + 128)
        assert flop / (p.published.gpu_time_ms * 1e-3) / 1e12 == pytest.approx(p.published.tflops, rel=0.01)
        assert not p.published.approximate


def test_fa3_h100_figures_read_off_the_chart():
    rs = anchors.build_fa3_h100()
    # the paper states it (issue 31)
    assert rs.environment.gpu_name == "NVIDIA H100 80GB SXM5" and rs.environment.cudnn == "9.1.1.17"
    assert "flash3_fp16_fwd.png" in rs.source
    at_16k = {(v, d): _figures(rs, v, d)[16384].tflops
              for v in ("flash_attention_3", "sdpa_cudnn", "sdpa_flash") for d in (64, 128)}
    assert at_16k == {("flash_attention_3", 64): 473, ("sdpa_cudnn", 64): 388, ("sdpa_flash", 64): 299,
                      ("flash_attention_3", 128): 616, ("sdpa_cudnn", 128): 539, ("sdpa_flash", 128): 335}
    for p in rs.sweep:
        assert p.published.approximate and p.published.gpu_time_ms is None  # no times in the figure
        assert p.point.batch * p.point.q_len == 16384 and p.point.q_heads * p.point.head_dim == 2048
        assert p.point.mask == "causal" and p.scenario == "fa3-paper"
    assert {pt.head_dim for pt in rs.scenario("fa3-paper").points} == {64, 128}


def test_every_anchor_point_names_its_convention():
    for build in ANCHORS.values():
        rs = build()
        assert rs.sweep and not rs.runs
        for p in rs.sweep:
            assert p.published is not None and p.published.tflops > 0 and p.published.flop_convention
            assert rs.scenario(p.scenario) is not None and p.point in rs.scenario(p.scenario).points


def test_anchors_load_as_published_sets(h200_dir):
    loaded, skipped = tables.load_sets(RESULTS)
    by_name = {s.name: s for s in loaded}
    assert not skipped
    for name in ANCHORS:
        assert not by_name[name].measured
    # Published sets come after measured ones.
    assert [s.measured for s in loaded] == sorted((s.measured for s in loaded), reverse=True)


def test_cli_writes_the_anchors(tmp_path):
    assert main(["reference", "--results", str(tmp_path)]) == 0
    for name, build in ANCHORS.items():
        assert schema.load_set(tmp_path / name) == build()


@pytest.mark.slow
def test_site_builds_with_the_anchors(h200_dir, built_site):
    """Sweep-only reference sets (no runs) go through the whole report and a strict mkdocs build
    (the committed sets, which hold them, built once for the session: conftest.py)."""
    site = built_site()
    assert {"nvidia-h200__torch-2.11.0", REF, *ANCHORS} <= {p.name for p in site.results.iterdir()}
    assert (site.site / "index.html").is_file()
    for name in ANCHORS:
        page = (site.docs / "generated" / "sets" / f"{name}.md").read_text()
        assert "github.com/" in page
