"""Nsight Compute counters on the site and in `python -m gen summary`: a copy of the H200 set given counters.

Some runs' counters are replaced by made-up ones whose kernel names are printed
the way ncu may demangle them (so pairing with the trace is exercised), one run
is given an unavailable counter pass and one none; the real set and the
schema-1 fixture are checked as they are.
"""

from __future__ import annotations

import json
import shutil

import pytest

from gen.analysis import counters, findings, summary, tables
from gen.model import trace
from gen.report import format as fmt
from gen.report import render
from gen.report.words import findings as finding_words
from tests.conftest import H200

SET = "nvidia-h200__torch-2.11.0"


def ncu_name(name: str) -> str:
    """A trace kernel name as ncu's demangler might print it: spacing and literals differ."""
    return name.replace(", ", ",").replace("<64,", "<(int)64,")


def fake_counters(tr: trace.Trace) -> dict:
    kernels = []
    for i, g in enumerate(k for k in tr.forwards[0].gpu if k.kind == "kernel"):
        flash = g.short_name == "flash_fwd_kernel"
        kernels.append(dict(
            index=i, name=ncu_name(g.name), duration_ns=g.dur * 1e3, registers_per_thread=g.registers_per_thread,
            shared_memory_bytes=g.shared_memory, achieved_occupancy_pct=12.4 if flash else 41.0,
            theoretical_occupancy_pct=12.5 if flash else 50.0,
            occupancy_limiter="registers" if flash else "shared_memory",
            sm_throughput_pct=72.0 if flash else 35.0, dram_throughput_pct=15.0 if flash else 81.0,
            tensor_pipe_pct=61.0 if flash else 20.0, l2_hit_rate_pct=70.0,
            rules=[dict(name="IssueSlotUtilization", estimated_speedup_pct=8.0)]))
    return dict(status="ok", reason=None, kernels=kernels)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    shutil.copytree(H200, root / SET)
    data = json.loads((root / SET / "result.json").read_text())
    for run in data["runs"]:
        if run["mode"] == "inference" and run["variant"] in ("sdpa_flash", "sdpa_cudnn", "naive"):
            run["counters"] = fake_counters(trace.parse(root / SET / run["trace"]))
        elif run["mode"] == "inference" and run["variant"] == "sdpa_efficient":
            run["counters"] = dict(status="unavailable", reason="ERR_NVGPUCTRPERM", kernels=[])
        elif run["mode"] == "inference" and run["variant"] == "flex":
            run["counters"] = None  # as if this run's counter pass had not been taken
    (root / SET / "result.json").write_text(json.dumps(data))
    return root


@pytest.fixture(scope="module")
def ls(results):
    return tables.load_set(results / SET)


@pytest.fixture(scope="module")
def pages(ls):
    return {p.path: p for p in render.render(render.Context([ls], []), workers=1)}


def test_counters_pair_with_the_trace_despite_ncu_names(ls):
    for v in ("sdpa_flash", "sdpa_cudnn", "naive"):
        m = counters.for_run(ls, "inference", v)
        assert m.measured and m.mismatches == [] and set(m.frame["pairing"]) == {"ok"}, v
    assert counters.for_run(ls, "inference", "sdpa_efficient").absent == counters.Absent.UNAVAILABLE
    assert counters.for_run(ls, "inference", "flex").absent == counters.Absent.NOT_CAPTURED


def test_summary_json_carries_the_counters(ls):
    rows = {r["variant"]: r for r in summary.records(ls, "inference")}
    (k,) = rows["sdpa_flash"]["kernels"]
    assert k["achieved_occupancy_pct"] == 12.4 and k["theoretical_occupancy_pct"] == 12.5
    assert k["occupancy_limiter"] == "registers" and k["registers_per_thread"] == 255
    assert k["sm_throughput_pct"] == 72.0 and k["dram_throughput_pct"] == 15.0 and k["tensor_pipe_pct"] == 61.0
    assert k["op_path"][0] == "aten::scaled_dot_product_attention"
    memset = rows["sdpa_cudnn"]["kernels"][0]
    assert memset["kind"] == "memset" and memset["achieved_occupancy_pct"] is None  # ncu profiles kernels only
    assert rows["sdpa_flash"]["counters"] == "measured"
    assert rows["sdpa_efficient"]["counters"] == "unavailable"
    assert rows["sdpa_efficient"]["counters_reason"] == "ERR_NVGPUCTRPERM"


def test_findings_use_the_counters(ls):
    found = {f.id: f for f in findings.findings(ls)}
    flash = found["counters-sdpa_flash"]
    kinds = [c["fact"] for c in flash.facts["counters"]]
    assert kinds[:2] == ["occupancy_limit", "bound"] and flash.facts["category"] == "fused attention"
    words = finding_words.finding(flash)
    assert "255 registers per thread, by design" in words.text and "compute-bound" in words.title
    # cuDNN's kernel: the profiler's estimate is 0% (its shared memory), the counters measured 41%.
    cudnn = found["occupancy-sdpa_cudnn-shared_memory"]
    assert cudnn.facts["measured"] == [41.0] and "measured 41.0%" in finding_words.finding(cudnn).text
    est = found["counters-sdpa_cudnn"].facts["counters"][0]
    assert est["fact"] == "estimate_vs_measured" and est["estimate_missing"] and est["achieved_pct"] == 41.0
    assert "memory-bound" in finding_words.finding(found["counters-sdpa_cudnn"]).short


def test_variant_pages_show_measured_beside_estimated(pages):
    flash = pages[fmt.set_variant_page(SET, "sdpa_flash")].text
    assert "<th>Occupancy (profiler's estimate)</th><th>Achieved occupancy (ncu)</th>" in flash
    assert "<td>13%</td><td>12.4%</td><td>12.5% (registers)</td><td>72</td><td>15</td><td>61</td>" in flash
    assert "Measured by Nsight Compute" in flash and "by design" in flash
    assert "% to gain.\n\nRaw trace" in flash  # the notes list ends before the next paragraph
    cudnn = pages[fmt.set_variant_page(SET, "sdpa_cudnn")].text
    assert "<td>0%</td><td>41.0%</td>" in cudnn
    # where a run has no counters the page says why, and shows no counter columns for it
    eff, eff_train = pages[fmt.set_variant_page(SET, "sdpa_efficient")].text.split("## Training", 1)
    assert "Nsight Compute could not read the counters&#58; ERR&#95;NVGPUCTRPERM" in eff
    assert "Achieved occupancy (ncu)" not in eff and "Achieved occupancy (ncu)" in eff_train  # real counters
    flex = pages[fmt.set_variant_page(SET, "flex")].text.split("## Training", 1)[0]
    assert "took no Nsight Compute pass" in flex


def test_committed_set_shows_its_counters(h200):
    found = {f.id: f for f in findings.findings(h200) if f.kind == findings.FindingKind.COUNTERS}
    assert "counters-absent" not in found and "counters-sdpa_flash" in found
    words = finding_words.finding(found["counters-sdpa_cudnn"]).text
    # The cause is its shared memory, not the launch API (issue 17).
    assert ("estimate of 0% (the estimate fits no block that uses more than 48 KiB of shared memory; this one uses "
            "131 KiB), but Nsight Compute measured") in words
    assert "limited by 255 registers per thread, by design" in finding_words.finding(found["counters-sdpa_flash"]).text


def test_schema1_set_says_it_has_no_counters(h200_v1):
    (f,) = [f for f in findings.findings(h200_v1) if f.kind == findings.FindingKind.COUNTERS]
    assert f.id == "counters-absent" and f.facts["absent"] == "not_captured"
    assert "took no Nsight Compute pass" in finding_words.finding(f).text


def test_cpu_set_says_it_has_no_counters():
    from gen.model import schema
    from tests.conftest import RESULTS

    path = next(p for p in schema.list_sets(RESULTS) if p.name.startswith("cpu-"))
    pages = {p.path: p for p in render.render(render.Context([tables.load_set(path)], []), workers=1)}
    text = pages[fmt.set_variant_page(path.name, "naive")].text
    assert "Hardware counters: no GPU in this set, so no hardware counters." in text
