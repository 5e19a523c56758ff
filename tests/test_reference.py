"""The reference set: published figures only, loaded through the normal path."""

from __future__ import annotations

import json
import math

import pytest

from gen.analysis import tables
from gen.cli import main
from gen.model import reference, schema

REF = "nvidia-a100-sxm4-80gb__article-2026-07"


@pytest.fixture(scope="module")
def ref(h200_dir):
    return tables.load_set(h200_dir.parent / REF)


def test_committed_set_matches_the_builder(h200_dir):
    """The committed file is schema 1: read through the migration it equals what
    the builder makes today."""
    on_disk = json.loads((h200_dir.parent / REF / "result.json").read_text())
    assert on_disk["schema_version"] == 1
    assert schema.load_set(h200_dir.parent / REF) == reference.build()


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
    assert df.loc["sdpa_flash", "gpu_ms"] == pytest.approx(0.1468)
    assert df.loc["sdpa_cudnn", "cpu_ms"] == pytest.approx(0.214)
    assert math.isnan(df.loc["naive", "gpu_ms"])  # not published: not invented
    assert math.isnan(df.loc["sdpa_flash", "gpu_q1"])  # no spread for a single number


def test_cli_refuses_to_overwrite_then_forces(tmp_path, capsys):
    assert main(["reference", "--results", str(tmp_path)]) == 0
    assert main(["reference", "--results", str(tmp_path)]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["reference", "--results", str(tmp_path), "--force"]) == 0
    assert schema.load_set(tmp_path / REF).kind == "reference"
