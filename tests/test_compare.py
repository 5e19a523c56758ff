"""Two sets side by side: frame, CLI text and JSON, bad names."""

from __future__ import annotations

import json
import math

import pytest

from gen import analysis, compare
from gen.cli import main

REF = "nvidia-a100-sxm4-80gb__article-2026-07"
CPU = "cpu-intel-r-xeon-r-processor__torch-2.13.0"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def vs_ref(h200, h200_dir):
    return compare.compare_frame(h200, analysis.load_set(h200_dir.parent / REF)).set_index("variant")


def test_against_reference(vs_ref):
    flash = vs_ref.loc["sdpa_flash"]
    assert flash["gpu_ratio"] == pytest.approx(0.1468 / flash["gpu_ms_a"])
    assert flash["kernels_added"] == [] and flash["kernels_removed"] == []
    cud = vs_ref.loc["sdpa_cudnn"]
    assert "Memset" in cud["kernels_removed"]  # the H200 forward has a memset the article's lacks
    assert vs_ref.loc["naive", "kernels_added"] is None  # the article named only the Memcpy
    assert math.isnan(vs_ref.loc["naive", "gpu_ms_b"])
    assert vs_ref.loc["flex", "status_b"] == "absent"
    assert vs_ref.loc["sdpa_math", "rank_a"] == 9


def test_h200_against_cpu(h200, h200_dir):
    df = compare.compare_frame(h200, analysis.load_set(h200_dir.parent / CPU)).set_index("variant")
    assert df["gpu_ms_b"].isna().all() and df.loc["sdpa_flash", "cpu_ms_b"] > 0
    assert df.loc["naive", "kernel_match"] == "no kernel list on B"
    assert df.loc["sdpa_cudnn", "status_b"] == "unavailable" and math.isnan(df.loc["sdpa_cudnn", "rank_b"])
    assert df.loc["naive", "time_basis_b"] == "host wall"


def test_cli_table_and_json(capsys, h200_dir):
    root = str(h200_dir.parent)
    assert main(["compare", H200, REF, "--results", root]) == 0
    out = capsys.readouterr().out
    assert "published figures, not measured here" in out and "sdpa_flash" in out
    assert main(["compare", H200, REF, "--results", root, "--format", "json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    flash = next(r for r in recs if r["variant"] == "sdpa_flash")
    assert flash["kernels_a"] == 1 and flash["gpu_ms_b"] == 0.1468


def test_unknown_set_names_the_option(capsys, h200_dir):
    assert main(["compare", H200, "nope", "--results", str(h200_dir.parent)]) == 2
    err = capsys.readouterr().err
    assert "SET_B" in err and "nope" in err and H200 in err
    with pytest.raises(ValueError, match="SET_A"):
        compare.run(h200_dir.parent, "nope", H200, "table")
