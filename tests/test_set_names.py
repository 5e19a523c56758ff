"""A measured set's folder name comes from its environment in one place (gen.model.layout.set_name),
and names the committed sets exactly as they are on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.capture import environment, runner
from gen.model import layout, schema

RESULTS = Path(__file__).resolve().parent.parent / "results"
MEASURED = ["nvidia-h200__torch-2.11.0", "cpu-intel-r-xeon-r-processor__torch-2.13.0"]


@pytest.mark.parametrize("name", MEASURED)
def test_committed_sets_keep_their_names(name):
    env = schema.load_set(RESULTS / name).environment
    assert layout.set_name(env.gpu_name, env.cpu, env.torch) == name
    assert environment.set_name(env) == name
    assert environment.set_name(env, "Re Run!") == f"{name}__re-run"


def test_capture_has_no_slug_of_its_own():
    assert not hasattr(runner, "slug") and not hasattr(environment, "slug")
    assert layout.name_slug(" NVIDIA H200 (SXM) ") == "nvidia-h200-sxm"
