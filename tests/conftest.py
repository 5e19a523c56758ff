"""Shared fixtures: the committed result sets are the test data.

`h200_new` is the committed schema-3 H200 set in results/ (NVML telemetry per timed window,
interleaved rounds, the graph check, issue 20's scenarios); `h200` is the schema-2 H200
capture it replaced (CUDA-graph GPU-only times, ncu counters, traces named
article__<mode>__<variant>), kept in tests/data/sets as a real fixture and as the other
capture of the same GPU that classifications must agree with; `h200_v1` is the schema-1 H200 set, kept in tests/data/sets as the old-format fixture (loads through
update_to_2; GPU-only time falls back to the kernel sum; traces <mode>__<variant>).
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
H200 = ROOT / "tests" / "data" / "sets" / "nvidia-h200__torch-2.11.0__schema2"
H200_NEW = RESULTS / "nvidia-h200__torch-2.11.0"
H200_V1 = ROOT / "tests" / "data" / "sets" / "nvidia-h200__torch-2.11.0__schema1"


@pytest.fixture(scope="session")
def h200_dir() -> Path:
    assert (H200 / "result.json").is_file(), "the committed H200 result set is missing"
    return H200


@pytest.fixture(scope="session")
def h200(h200_dir):
    from gen.analysis import tables

    return tables.load_set(h200_dir)


@pytest.fixture(scope="session")
def h200_v1_dir() -> Path:
    assert (H200_V1 / "result.json").is_file(), "the schema-1 H200 fixture set is missing"
    return H200_V1


@pytest.fixture(scope="session")
def h200_v1(h200_v1_dir):
    from gen.analysis import tables

    return tables.load_set(h200_v1_dir)


@pytest.fixture(scope="session")
def h200_new_dir() -> Path:
    assert (H200_NEW / "result.json").is_file(), "the committed H200 result set is missing"
    return H200_NEW


@pytest.fixture(scope="session")
def h200_new(h200_new_dir):
    from gen.analysis import tables

    return tables.load_set(h200_new_dir)
