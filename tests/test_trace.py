"""The trace parser on real recorded H200 traces."""

from __future__ import annotations

import gzip
import shutil

import pytest

from gen.model import trace


def parse(h200_dir, name):
    """A run trace of the article scenario: schema 2 names them article__<mode>__<variant>."""
    return trace.parse(h200_dir / "traces" / f"article__{name}.json.gz")


def test_naive_has_the_hidden_copy_attributed_to_masked_fill(h200_dir):
    t = parse(h200_dir, "inference__naive")
    assert len(t.forwards) == 3
    assert t.counts_consistent and t.unattributed == 0
    gpu = t.forwards[0].gpu
    memcpy = [g for g in gpu if g.kind == "memcpy"]
    assert len(memcpy) == 1
    m = memcpy[0]
    assert m.launched_by == "aten::copy_"
    assert "aten::masked_fill" in m.op_path and "aten::clone" in m.op_path
    assert m.launch_api == "cudaMemcpyAsync"
    assert m.short_name.startswith("Memcpy DtoD")


def test_inplace_removes_the_copy(h200_dir):
    naive, inplace = parse(h200_dir, "inference__naive"), parse(h200_dir, "inference__naive_inplace")
    assert inplace.counts[0] == naive.counts[0] - 1
    assert not [g for g in inplace.forwards[0].gpu if g.kind == "memcpy"]


def test_kernel_fields_and_launch_api(h200_dir):
    t = parse(h200_dir, "inference__sdpa_flash")
    (k,) = t.forwards[0].gpu
    assert k.short_name == "flash_fwd_kernel"
    assert k.kind == "kernel" and k.launch_api == "cudaLaunchKernel"
    assert k.launched_by == "aten::_flash_attention_forward"
    assert k.registers_per_thread == 255 and k.block == (128, 1, 1)
    assert k.grid is not None and k.shared_memory and k.shared_memory > 0
    assert k.occupancy_pct == pytest.approx(13, abs=1)
    assert 0 <= k.ts and k.dur > 0 and k.launch_ts < k.ts


def test_cudnn_launches_through_the_driver_with_no_occupancy(h200_dir):
    t = parse(h200_dir, "inference__sdpa_cudnn")
    k = [g for g in t.forwards[0].gpu if g.kind == "kernel"][0]
    assert k.launch_api == "cuLaunchKernelEx"
    assert k.occupancy_pct == 0


def test_math_counts_twenty_every_forward(h200_dir):
    t = parse(h200_dir, "inference__sdpa_math")
    assert t.counts == [20, 20, 20]


def test_backward_kernels_from_the_autograd_thread_are_counted(h200_dir):
    t = parse(h200_dir, "train__naive")
    assert t.unattributed == 0 and t.counts_consistent
    fw = t.forwards[0]
    assert t.counts[0] > parse(h200_dir, "inference__naive").counts[0]
    assert len({c.tid for c in fw.cpu}) >= 2
    assert any("Backward" in (g.launched_by or "") or any("Backward" in o for o in g.op_path) for g in fw.gpu)


def test_cpu_lane_is_nested(h200_dir):
    fw = parse(h200_dir, "inference__naive").forwards[0]
    depths = {c.name: c.depth for c in fw.cpu}
    assert depths["aten::masked_fill"] < depths["aten::clone"] < depths["aten::copy_"]
    assert any(c.cat == "cuda_runtime" for c in fw.cpu)


@pytest.mark.parametrize("name,short", [
    ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
     "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
     "vectorized_elementwise_kernel"),
    ("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
     "cutlass::bfloat16_t> >(Flash_fwd_params)", "flash_fwd_kernel"),
    ("Memcpy DtoD (Device -> Device)", "Memcpy DtoD (Device -> Device)"),
    ("triton_tem_fused_flex_attention_0", "triton_tem_fused_flex_attention_0"),
    ("a<b|c*>", "a"),
])
def test_short_name(name, short):
    assert trace.short_name(name) == short


def test_truncated_trace_is_a_clear_error(h200_dir, tmp_path):
    src = h200_dir / "traces" / "article__inference__naive.json.gz"
    bad = tmp_path / "cut.json.gz"
    cut = src.read_bytes()[: src.stat().st_size // 2]
    bad.write_bytes(cut)
    with pytest.raises(trace.TraceError, match="cut.json.gz.*truncated"):
        trace.parse(bad)
    assert bad.read_bytes() == cut  # the parser reads, never repairs or removes, the file it refuses


def test_not_json_and_missing_and_foreign(tmp_path):
    junk = tmp_path / "junk.json.gz"
    with gzip.open(junk, "wt") as fh:
        fh.write("{not json")
    with pytest.raises(trace.TraceError, match="junk.json.gz: not a JSON trace"):
        trace.parse(junk)
    with pytest.raises(trace.TraceError, match="missing"):
        trace.parse(tmp_path / "nope.json.gz")
    foreign = tmp_path / "foreign.json.gz"
    with gzip.open(foreign, "wt") as fh:
        fh.write('{"traceEvents": [{"ph": "X", "name": "x", "ts": 1, "dur": 1, "cat": "cpu_op"}]}')
    with pytest.raises(trace.TraceError, match="no forward#N ranges"):
        trace.parse(foreign)


def test_plain_json_trace_reads_too(h200_dir, tmp_path):
    plain = tmp_path / "t.json"
    src_path = h200_dir / "traces" / "article__inference__sdpa_flash.json.gz"
    with gzip.open(src_path, "rb") as src, open(plain, "wb") as dst:
        shutil.copyfileobj(src, dst)
    assert trace.parse(plain).counts == [1, 1, 1]


def test_streamed_reading_takes_any_json_layout(h200_dir, tmp_path):
    """parse reads the top-level object one event at a time: key order, indentation and
    other top-level keys must not matter; a traceEvents that is not a list is refused."""
    import json

    src = h200_dir / "traces" / "article__inference__naive.json.gz"
    with gzip.open(src, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    reordered = {"traceEvents": data["traceEvents"], **{k: v for k, v in data.items() if k != "traceEvents"},
                 "extra": {"traceEvents": "not this one", "nested": [1, {"a": "]}"}]}}
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(reordered, indent=3), encoding="utf-8")
    a, b = trace.parse(src), trace.parse(pretty)
    assert [f.gpu for f in a.forwards] == [f.gpu for f in b.forwards] and a.device_properties == b.device_properties
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"traceEvents": {"0": {}}}), encoding="utf-8")
    with pytest.raises(trace.TraceError, match="bad.json: no traceEvents list"):
        trace.parse(bad)
    trailing = tmp_path / "trailing.json"
    trailing.write_text(json.dumps(data) + " {", encoding="utf-8")
    with pytest.raises(trace.TraceError, match="trailing.json: not a JSON trace"):
        trace.parse(trailing)


def test_garbled_launch_fields_read_as_before(tmp_path):
    """The fast reading of launch fields (correlation, Input type, tid, grid, block, the
    numbers, the forward a time falls in) gives what the isinstance-based reading gave:
    bools are no numbers, a bool correlation of a kernel still finds launch 1, a tid of
    another type becomes its text, a time on two touching ranges is the first's.
    (Checked against the replaced code on every committed trace as well: the same Trace.)"""
    import json

    ev = [
        {"ph": "X", "cat": "user_annotation", "name": "forward#0", "ts": 0, "dur": 100, "tid": 1},
        {"ph": "X", "cat": "user_annotation", "name": "forward#1", "ts": 100, "dur": 50, "tid": 1},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 10, "dur": 20, "tid": True,
         "args": {"correlation": "7", "Input type": "float"}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 100, "dur": 10, "tid": 1,
         "args": {"correlation": 3, "Input type": ["float", 2, None]}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 101, "dur": 2, "tid": 1,
         "args": {"correlation": 5}},
        {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "ts": 12, "dur": 1, "tid": True,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "ts": 20, "dur": 1, "tid": [2],
         "args": {"correlation": True}},
        {"ph": "X", "cat": "kernel", "name": "void k<3>(int)", "ts": 200, "dur": 5, "tid": 7,
         "args": {"correlation": 5, "grid": [1, True, 2], "block": [1.5, 2, 3], "stream": True,
                  "registers per thread": float("nan"), "shared memory": 1e300, "bytes": 3, "blocks per SM": [1]}},
        {"ph": "X", "cat": "kernel", "name": "k2", "ts": 300, "dur": 5, "tid": 7,
         "args": {"correlation": True, "grid": [4, 5, 6, 7], "block": [], "stream": 7, "warps per SM": 2.5,
                  "est. achieved occupancy %": -1e20}},
        {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "ts": 301, "dur": 1, "tid": 7,
         "args": {"correlation": "5", "grid": [2**60, 1, 1]}},
    ]
    p = tmp_path / "garbled.json"
    p.write_text(json.dumps({"traceEvents": ev}), encoding="utf-8")
    t = trace.parse(p)
    assert t.unattributed == 1 and [len(f.gpu) for f in t.forwards] == [1, 1]
    f0, f1 = t.forwards
    assert [(c.name, c.ts, c.depth, c.tid, c.correlation) for c in f0.cpu] == [
        ("aten::mm", 10.0, 0, True, None), ("cuLaunchKernel", 12.0, 1, True, 1),
        ("cudaMemsetAsync", 20.0, 0, "[2]", None), ("aten::add", 100.0, 0, 1, 3)]
    assert [(c.name, c.ts, c.depth, c.tid, c.correlation) for c in f1.cpu] == [("cudaLaunchKernel", 1.0, 1, 1, 5)]
    k2, k = f0.gpu[0], f1.gpu[0]
    assert (k2.name, k2.stream, k2.grid, k2.block, k2.warps_per_sm, k2.occupancy_pct, k2.launch_api, k2.launch_ts,
            k2.launched_by, k2.op_path, k2.input_types) == (
        "k2", 7, None, None, 2.5, None, "cuLaunchKernel", 12.0, "aten::mm", ("aten::mm",), ())
    assert (k.short_name, k.ts, k.stream, k.grid, k.block, k.registers_per_thread, k.shared_memory, k.blocks_per_sm,
            k.bytes, k.launch_api, k.launch_ts, k.launched_by, k.input_types) == (
        "k", 100.0, None, None, (1, 2, 3), None, None, None, 3, "cudaLaunchKernel", 1.0, "aten::add",
        ("float", "2", "None"))
