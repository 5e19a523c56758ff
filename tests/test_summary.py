"""`python -m gen summary` on the committed H200 set, and the torch-free boundary."""

from __future__ import annotations

import json
import subprocess
import sys

from gen.analysis import summary, tables
from tests import gen_main
from tests.conftest import RESULTS


def gen(*args):
    # the verb's output and exit status, from the CLI's main in this process (tests/gen_main.py); the torch-free
    # boundary below still needs a process of its own
    return gen_main.run(*args)


KERNEL_KEYS = {"name", "short_name", "kind", "launched_by", "count_per_forward", "duration_us", "occupancy_pct",
               "op_path", "achieved_occupancy_pct", "theoretical_occupancy_pct", "occupancy_limiter",
               "registers_per_thread", "shared_memory_bytes", "sm_throughput_pct", "dram_throughput_pct",
               "tensor_pipe_pct", "l2_hit_rate_pct"}


def _json_rows(set_dir):
    p = gen("summary", "--results", str(set_dir.parent), "--set", set_dir.name, "--format", "json")
    assert p.returncode == 0, p.stderr
    rows = {r["variant"]: r for r in json.loads(p.stdout)["rows"]}
    for r in rows.values():
        for key in ("variant", "status", "reason", "kernels_per_call", "peak_memory_mb", "rel_error", "kernels"):
            assert key in r
        assert "gpu_time_ms" not in r and "cpu_time_ms" not in r  # the legacy aliases (eager, host) are gone
        for key in ("gpu_only_ms", "gpu_only_method", "kernel_sum_ms", "eager_ms", "host_ms", "host_bound",
                    "counters"):
            assert key in r
        for k in r["kernels"]:
            assert set(k) == KERNEL_KEYS and isinstance(k["op_path"], list)
    return rows


def test_json_fields(h200_dir):
    rows = _json_rows(h200_dir)
    assert len(rows) == 9 and all(r["status"] == "ok" for r in rows.values())
    # Schema 2: Nsight Compute measured every launched kernel; memsets and copies have no counters.
    for r in rows.values():
        assert r["counters"] == "measured"
        for k in r["kernels"]:
            assert (k["achieved_occupancy_pct"] is not None) == (k["kind"] == "kernel"), (r["variant"], k["name"])
    assert rows["sdpa_math"]["kernels_per_call"] == 20
    assert rows["naive"]["kernels_per_call"] == rows["naive_inplace"]["kernels_per_call"] + 1
    assert rows["sdpa_flash"]["eager_ms"] < rows["naive"]["eager_ms"]
    # GPU-only is the CUDA-graph replay, apart from the trace's kernel sum (also reported); speed-ups use it.
    flash, naive = rows["sdpa_flash"], rows["naive"]
    assert flash["gpu_only_method"] == "cuda_graph" and flash["gpu_only_ms"] != flash["kernel_sum_ms"]
    assert {r["gpu_only_method"] for r in rows.values()} == {"cuda_graph"}
    assert flash["speedup_vs_naive"] == round(naive["gpu_only_ms"] / flash["gpu_only_ms"], 2)
    # cuDNN's loop waited 1.44x, but its host costs less than its kernels: within noise (null), not false.
    assert rows["sdpa_cudnn"]["host_bound"] is None and rows["sdpa_cudnn"]["host_bound_outcome"] == "within noise"
    assert naive["host_bound"] is False and naive["host_bound_outcome"] == "no"
    assert flash["kernels"][0]["op_path"][-1] == "aten::_flash_attention_forward"
    flash = rows["sdpa_flash"]["kernels"][0]
    assert flash["short_name"] == "flash_fwd_kernel" and flash["count_per_forward"] == 1
    # 255 registers a thread: 12.5% in theory, about 12% achieved, registers the limit.
    assert flash["occupancy_limiter"] == "registers" and 10 < flash["achieved_occupancy_pct"] <= 12.5
    assert all(r["rel_error"] < 1e-2 for r in rows.values())


def test_json_fields_of_a_schema1_set(h200_v1_dir):
    """Schema 1 had no CUDA-graph timing and no counters: GPU-only is the kernel sum, labelled so."""
    rows = _json_rows(h200_v1_dir)
    for r in rows.values():
        assert r["counters"] == ("not_captured" if r["status"] == "ok" else "not_run")
        assert all(k["achieved_occupancy_pct"] is None for k in r["kernels"])
    flash, naive = rows["sdpa_flash"], rows["naive"]
    assert {r["gpu_only_method"] for r in rows.values()} == {"kernel_sum"}
    assert flash["gpu_only_ms"] == flash["kernel_sum_ms"]
    assert flash["speedup_vs_naive"] == round(naive["gpu_only_ms"] / flash["gpu_only_ms"], 2)
    # FlexAttention's forward: 2.1x in the loop, its host at 1.4x the kernel sum (under host_rules.HOST_YES_MARGIN):
    # within noise, so host_bound is null, not false
    assert rows["flex"]["host_bound"] is None and rows["flex"]["host_bound_outcome"] == "within noise"
    assert naive["host_bound"] is False
    # pinned and unpinned cuDNN run the same kernels: one outcome, within noise (the rule gave them two)
    assert rows["sdpa_cudnn"]["host_bound_outcome"] == rows["sdpa_auto"]["host_bound_outcome"] == "within noise"


def test_table_and_train_mode(h200_dir):
    ls = tables.load_set(h200_dir)
    text = summary.table(ls, summary.records(ls, "train"))
    assert "NVIDIA H200" in text and "train" in text.splitlines()[0]
    assert len(text.splitlines()) == 3 + 9


def test_unknown_set_is_one_line(h200_dir):
    p = gen("summary", "--results", str(RESULTS), "--set", "nope")
    assert p.returncode == 2
    assert p.stderr.startswith("error: --set: no result set 'nope'") and len(p.stderr.splitlines()) == 1


def test_report_side_imports_no_torch():
    code = ("import sys, gen.analysis.tables, gen.analysis.summary, gen.model.trace, gen.model.schema, "
            "gen.model.variants, gen.cli; "
            "sys.exit(1 if 'torch' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
