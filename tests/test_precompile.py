"""The capture's side processes that compile FlexAttention ahead (gen.capture.precompile): how
calls are dealt, and how their answers are read. The compiles themselves need a GPU."""

from __future__ import annotations

import subprocess
import sys
import time

from gen.capture import precompile
from gen.model import schema, variants

POINT = schema.Point(batch=1, q_heads=2, kv_heads=2, head_dim=16, q_len=32, kv_len=32, mask="causal")


def spec(key, length=None, mode="inference"):
    import dataclasses

    point = dataclasses.replace(POINT, q_len=length, kv_len=length) if length else POINT
    return precompile.spec_of(key, "flex", None, mode, "bf16", point, 0)


def test_only_flexattention_kinds_compile_ahead():
    by_name = {v.name: v for v in variants.resolve(["flex", "naive_compiled", "sdpa_flash"])}
    assert precompile.wanted(by_name["flex"])
    # the compiled naive product's autotuner times configs on the GPU: never beside other work
    assert not precompile.wanted(by_name["naive_compiled"]) and not precompile.wanted(by_name["sdpa_flash"])


def test_the_runs_calls_go_first_to_one_worker_without_a_warm_compile():
    first = [spec("run inference"), spec("run train", mode="train")]
    rest = [spec(f"p{i}", 64 * (i + 2)) for i in range(7)]
    work = precompile.deal(first, rest, 3)
    # the inference run's first call pays the one-time costs, as the capture's first compile did
    assert work[0]["specs"][0] == first[0] and work[0]["warm"] is False
    # the training run comes after a warm compile, as it came after the inference run
    assert work[1]["specs"][0] == first[1] and work[1]["warm"] is True and work[2]["warm"] is True
    keys = [s["key"] for w in work for s in w["specs"]]
    assert sorted(keys) == sorted(s["key"] for s in first + rest)  # each call once
    # the workers that start with a run's compile take fewer points
    assert len(work[0]["specs"]) - 1 < len(work[2]["specs"]) and len(work[1]["specs"]) - 1 < len(work[2]["specs"])
    assert all(w["warm"] for w in precompile.deal([], rest, 2))
    assert precompile.deal(first, [], 1) == [{"warm": False, "specs": first}]


def test_a_sweep_point_at_a_runs_shape_follows_that_run_in_its_worker():
    run_inf, run_train = spec("run inference"), spec("run train", mode="train")
    same, other = spec("article point at the run's shape"), spec("p", 64)
    work = precompile.deal([run_inf, run_train], [other, same], 4)
    assert work[0]["specs"] == [run_inf, same]  # as in the capture's process: the run's compile is cached


def test_a_sweep_point_repeating_an_earlier_points_call_follows_it_in_its_worker():
    """Two scenarios can hold the same call (gqa-prefill's and fp8-prefill's FlexAttention at 16k): the
    later one's first call is then a load from the cache in every capture, as when one process compiled
    the points in turn, not a compile or a load depending on which side process got there first."""
    a, b = spec("gqa-prefill 16k", 512), spec("fp8-prefill 16k", 512)
    rest = [a, *(spec(f"p{i}", 64 * (i + 2)) for i in range(5)), b]
    for n in (2, 3, 8):
        work = precompile.deal([], rest, n)
        holder = next(w["specs"] for w in work if a in w["specs"])
        assert b in holder and holder.index(b) > holder.index(a)
        assert sorted(s["key"] for w in work for s in w["specs"]) == sorted(s["key"] for s in rest)


def test_worker_count_follows_the_calls_and_the_cores():
    assert precompile.workers_for(0, 16) == 0
    assert precompile.workers_for(1, 16) == 1
    assert precompile.workers_for(100, 16) == precompile.MAX_WORKERS
    assert precompile.workers_for(100, 2) == 1  # two cores: one side process


def _proc(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)


def test_answers_are_read_errors_said_and_a_stuck_worker_stopped(tmp_path):
    ok = _proc('import json; print(json.dumps({"key": "a", "s": 1.5})); print("noise");'
               'print(json.dumps({"key": "b", "error": "RuntimeError: no"}))')
    stuck = _proc("import time; time.sleep(60)")
    ahead = precompile.Ahead(procs=[(ok, tmp_path / "0.log"), (stuck, tmp_path / "1.log")],
                             started=time.monotonic(), jobs=3)
    said = []
    t0 = time.monotonic()
    got = ahead.wait(timeout=2.0, log=said.append)
    assert time.monotonic() - t0 < 10
    assert got == {"a": 1.5}
    assert any("b: RuntimeError: no" in line for line in said)
    assert any("still busy" in line for line in said)
    assert stuck.poll() is not None


def test_a_worker_that_dies_at_once_is_said_and_costs_nothing(tmp_path, monkeypatch):
    # an interpreter that cannot run the worker: each side process exits at once with an error
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'boom: no worker here' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(precompile.sys, "executable", str(fake))
    ahead = precompile.start([], [spec("p", 64), spec("q", 128)], tmp_path / "logs", cpus=4)
    said = []
    got = ahead.wait(timeout=30, log=said.append)
    assert got == {} and ahead.procs
    assert any("exited with 1" in line and "boom: no worker here" in line for line in said)
