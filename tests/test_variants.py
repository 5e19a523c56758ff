"""The variant pages' view models (gen.report.pages.variants): a compiled run's generated and library
kernels, and the kernel table's rows as HTML."""

from __future__ import annotations

import math

import pytest

from gen.analysis import tables
from gen.report import site
from gen.report.pages import variants


@pytest.mark.parametrize("links", [site.MAX_LINKS, 1])
def test_a_compiled_runs_kernels_split_into_generated_and_library(h200_new, links, monkeypatch):
    """A compiled run's Triton kernels (named triton_*) and the library kernels it still calls, each list cut
    at MAX_LINKS links with the whole count kept, each link to its row; an eager run has none."""
    monkeypatch.setattr(site, "MAX_LINKS", links)
    ctx, ls, split = site.Context([h200_new]), h200_new, 0
    for run in ls.rs.runs:
        got = variants._generated(ctx, ls, run.variant, run.mode, run)
        if run.compile_time_s is None or got is None:
            assert run.compile_time_s is None or not tables.kernel_rows(ls, run.variant, run.mode)
            continue
        kernels = [k for k in tables.kernel_rows(ls, run.variant, run.mode) if k["kind"] == "kernel"]
        assert all(k["name"].startswith("triton_") for k in got["triton"])
        assert not any(k["name"].startswith("triton_") for k in got["library"])
        assert len(got["triton"]) == min(got["triton_n"], links)
        assert len(got["library"]) == min(len(got["library"]) + got["library_more"], links)
        assert got["triton_n"] + len(got["library"]) + got["library_more"] == len(kernels)
        assert len(got["replaced"]) == min(got["replaced_n"], links)
        for k in got["triton"] + got["library"]:
            assert k["anchor"] == ctx.kernel_anchor(ls.name, run.variant, run.mode, k["index"])
        split += bool(got["triton"]) and bool(got["library"] or got["library_more"])
    assert split


def _kernel(i: int, **changes) -> dict:
    return dict(dict(anchor=f"k-{i}", index=i, kind="kernel", name=f"void k{i}<float>(int)", short_name=f"k{i}",
                     dur_us=12.5, occupancy_pct=50.0, op_path="aten::mm", launched_by="aten::mm", grid="[1, 1, 1]",
                     block="[128, 1, 1]", registers_per_thread=32, shared_memory=1024, launch_api="cudaLaunchKernel",
                     category="gemm", start_us=3.0, counters=None), **changes)


def _cells(row: str) -> int:
    return row.count("<td")


def test_kernel_rows_are_one_row_a_kernel_with_counter_cells_only_where_measured():
    counters = dict(achieved_occupancy_pct=40.0, theoretical_occupancy_pct=50.0, occupancy_limiter="registers",
                    sm_throughput_pct=70.0, dram_throughput_pct=20.0, tensor_pipe_pct=10.0, copied_from="k-0")
    kernels = [_kernel(0), _kernel(1, counters=counters), _kernel(2, kind="memcpy")]
    plain = str(variants._kernel_rows(kernels, False)).split("\n")
    both = str(variants._kernel_rows(kernels, True)).split("\n")
    assert len(plain) == len(both) == 3
    assert all(r.startswith(f'<tr id="k-{i}" class="kind-{k["kind"]}">') for i, (r, k) in enumerate(zip(both, kernels)))
    assert {_cells(r) for r in both} == {_cells(plain[0]) + 5}
    assert both[0].count("<td>–</td>") >= 5  # no counters for this kernel: five dashes
    assert "40.0%" in both[1] and "(registers)" in both[1] and 'class="same-as" title="k-0"' in both[1]
    assert "1.0 KiB" in plain[0] and "1.0 KiB" not in plain[2]  # shared memory: a kernel's only


def test_kernel_rows_escape_mark_and_bound_what_the_trace_gives():
    """A kernel's names are data: markup escaped, unprintable characters shown as U+FFFD, a value past
    MAX_VALUE_CHARS cut with a note; numbers that are not numbers read as such, never as an error."""
    long = "é" * (site.MAX_VALUE_CHARS + 5)
    kernels = [_kernel(0, name='<b>&"x\'</b>', short_name="a\x00b\u202ec", anchor='a"0<', launched_by=None,
                       dur_us=math.nan, occupancy_pct=None, registers_per_thread=math.nan, shared_memory=None),
               _kernel(1, name=long, start_us=math.inf, dur_us=-3.5, grid=None)]
    html = str(variants._kernel_rows(kernels, False))
    assert "<b>" not in html and "&lt;b&gt;" in html and 'id="a&#34;0&lt;"' in html
    assert "\x00" not in html and "\u202e" not in html and "a\ufffdb\ufffdc" in html
    assert "5 more characters not shown" in html and long not in html
    assert "<td>–</td>" in html  # no launcher, no grid
