"""Shared fixtures: the committed result sets are the test data."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
H200 = RESULTS / "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="session")
def h200_dir() -> Path:
    assert (H200 / "result.json").is_file(), "the committed H200 result set is missing"
    return H200


@pytest.fixture(scope="session")
def h200(h200_dir):
    from gen.analysis import tables

    return tables.load_set(h200_dir)
