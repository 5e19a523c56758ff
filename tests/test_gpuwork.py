"""The GPU work capture reads back from its own profiler traces (gen.capture.gpuwork), on a synthetic trace."""

import gzip
import json

import pytest

from gen.capture import gpuwork
from gen.model import trace


def _trace(tmp_path, events, name="t.json.gz"):
    path = tmp_path / name
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        json.dump({"traceEvents": events}, fh)
    return path


def _x(name, cat, ts, dur, **args):
    return {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": 1, "tid": 1, "args": args}


def test_work_and_launches_per_forward_range(tmp_path):
    path = _trace(tmp_path, [
        _x("forward#0", "user_annotation", 0, 100),
        _x("cudaLaunchKernel", "cuda_runtime", 10, 2, correlation=7),
        _x("cudaMemsetAsync", "cuda_runtime", 20, 2, correlation=8),
        _x("forward#1", "user_annotation", 200, 100),
        _x("cudaLaunchKernel", "cuda_runtime", 210, 2, correlation=9),
        # GPU events run after their launch, possibly past the range's end: attributed by correlation id
        _x("void flash_fwd<128>(Params)", "kernel", 50, 120, correlation=7, grid=[4, 8, 1], block=[128, 1, 1],
           **{"shared memory": 49152}),
        _x("Memset (Device)", "gpu_memset", 30, 3, correlation=8),
        _x("gemm", "kernel", 400, 40, correlation=9, grid=[1, 1, 1], block=[32, 1, 1]),
        _x("orphan", "kernel", 500, 5, correlation=99),
    ])
    work = gpuwork.work_of_trace(path)
    assert [names for names, _ in work] == [["Memset (Device)", "void flash_fwd<128>(Params)"], ["gemm"]]
    assert [ms for _, ms in work] == pytest.approx([0.123, 0.040])
    # kernels only, the first range's, with grid, block and shared memory as ints
    assert gpuwork.launches_of_trace(path) == [("void flash_fwd<128>(Params)", (4, 8, 1), (128, 1, 1), 49152)]


def test_a_trace_without_forward_ranges_is_named(tmp_path):
    path = _trace(tmp_path, [_x("gemm", "kernel", 0, 1, correlation=1)])
    with pytest.raises(trace.TraceError, match="no forward#N ranges"):
        gpuwork.work_of_trace(path)


def test_graph_against_eager_names_what_differs():
    check = gpuwork.compare_work(["void at::native::copy_kernel<float>(int)", "gemm"] * 2, ["gemm", "Memcpy DtoD"], 2)
    assert check.fidelity == "differs"
    assert "only in the graph: copy_kernel" in check.detail and "only eager: Memcpy DtoD" in check.detail
