"""Rules on small synthetic kernel tables and summaries: each case names what it checks.

Table-driven, so a rule that drifts fails on a case built for it, not only on
the committed H200 set.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from gen.analysis import findings, host_rules, kernel_rules, rules, tables
from gen.analysis.findings import Finding, FindingKind, Severity
from gen.report.words import findings as finding_words
from gen.report.words import kernels as kernel_words
from gen.report.words import methodology as method_words

NAN = float("nan")


def kframe(*rows: dict) -> pd.DataFrame:
    """A kernel table (tables.kernel_table's columns) from a few rows; unspecified fields are defaults."""
    cols = tables._kernel_table(None, 0).columns
    base = dict(name="k", short_name="k", kind="kernel", launched_by="", op_path="", launch_api="cudaLaunchKernel",
                start_us=0.0, dur_us=1.0, blocks=1000.0, occupancy_pct=50.0, input_types="")
    out = []
    for i, r in enumerate(rows):
        row = {**base, "index": i, **r}
        row.setdefault("category", kernel_rules.category(row["name"], row["kind"], row["launched_by"]))
        out.append(row)
    return pd.DataFrame(out).reindex(columns=cols)


@pytest.mark.parametrize("case, rows, flagged", [
    ("memcpy always", [dict(kind="memcpy", name="Memcpy DtoD")], [0]),
    ("memset always", [dict(kind="memset", name="Memset (Device)", launched_by="aten::bmm")], [0]),
    ("kernel of a copy op", [dict(launched_by="aten::copy_"), dict(launched_by="aten::mul")], [0]),
    ("a dtype conversion is a copy", [dict(launched_by="aten::_to_copy")], [0]),
    ("a GEMM is not", [dict(name="nvjet_sm90_tst", launched_by="aten::bmm")], []),
])
def test_copy_rule(case, rows, flagged):
    assert list(findings.copy_events(kframe(*rows))["index"]) == flagged, case


def test_copy_ops_are_one_list():
    # The category split and the copy findings agree on every copy op.
    for op in kernel_rules.COPY_OPS:
        assert kernel_rules.category("some_kernel", "kernel", op) == "copy and fill"
        assert kernel_rules.is_copy("kernel", op)


@pytest.mark.parametrize("case, rows, f32, ups", [
    ("float32 inputs only", [dict(input_types="float, float")], [0], []),
    ("bf16 with float scalar", [dict(input_types="c10::BFloat16, float")], [], []),
    ("f32 GEMM by name", [dict(name="sm80_xmma_gemm_f32f32_f32f32", input_types="")], [0], []),
    ("conversion kernel", [dict(launched_by="aten::copy_", input_types="float, c10::BFloat16")], [], [0]),
    ("memcpy is not a kernel", [dict(kind="memcpy", name="Memcpy", input_types="float")], [], []),
])
def test_float32_rule(case, rows, f32, ups):
    a, b = findings.float32_events(kframe(*rows))
    assert (list(a["index"]), list(b["index"])) == (f32, ups), case


@pytest.mark.parametrize("case, rows, flagged", [
    ("tril and its where", [dict(name="triu_tril_kernel", launched_by="aten::tril"),
                            dict(launched_by="aten::where", op_path="aten::where")], [0, 1]),
    ("fill and where build a mask", [dict(launched_by="aten::fill_", op_path="aten::where > aten::fill_"),
                                     dict(launched_by="aten::where", op_path="aten::where")], [0, 1]),
    ("a where inside softmax is not", [dict(name="triu_tril_kernel"),
                                       dict(launched_by="aten::where", op_path="aten::softmax > aten::where")], [0]),
    ("no mask kernels", [dict(launched_by="aten::bmm"), dict(launched_by="aten::where")], []),
])
def test_mask_rule(case, rows, flagged):
    assert list(findings.mask_events(kframe(*rows))["index"]) == flagged, case


@pytest.mark.parametrize("case, occupancy, flagged", [
    ("0% is a failed estimate", 0.0, True),
    ("missing is a failed estimate", NAN, True),
    ("an estimate", 12.5, False),
])
def test_occupancy_rule(case, occupancy, flagged):
    kt = kframe(dict(occupancy_pct=occupancy, launch_api="cuLaunchKernelEx"))
    assert (len(findings.no_estimate_rows(kt["kind"].tolist(), kt["occupancy_pct"].tolist())) == 1) is flagged, case
    assert kernel_rules.launched_with_attributes("cuLaunchKernelEx")
    assert not kernel_rules.launched_with_attributes("cudaLaunchKernel")


def summary(*rows: dict) -> pd.DataFrame:
    base = dict(status="ok", gpu_only_ms=NAN, gpu_only_q1_ms=NAN, gpu_only_q3_ms=NAN, eager_ms=NAN, host_ms=NAN)
    return pd.DataFrame([{**base, **r} for r in rows])


@pytest.mark.parametrize("case, rows, best, facts", [
    ("by GPU time, with the baseline",
     [dict(variant="naive", gpu_only_ms=2.0, gpu_only_q1_ms=1.9, gpu_only_q3_ms=2.1),
      dict(variant="fast", gpu_only_ms=0.5, gpu_only_q1_ms=0.4, gpu_only_q3_ms=0.6)],
     "fast", dict(basis="gpu", next_variant="naive", overlap=False, baseline="naive", baseline_ms=2.0)),
    ("overlapping IQRs leave the order open",
     [dict(variant="a", gpu_only_ms=1.0, gpu_only_q1_ms=0.9, gpu_only_q3_ms=1.2),
      dict(variant="b", gpu_only_ms=1.1, gpu_only_q1_ms=1.0, gpu_only_q3_ms=1.3)],
     "a", dict(overlap=True, baseline=None)),
    ("no GPU time: by host time", [dict(variant="a", host_ms=3.0), dict(variant="b", host_ms=1.0)],
     "b", dict(basis="host", next_variant="a", overlap=False)),
])
def test_fastest_rule(case, rows, best, facts):
    variant, got = findings.fastest(summary(*rows))
    assert variant == best, case
    assert {k: got[k] for k in facts} == facts, case


def test_fastest_of_nothing():
    assert findings.fastest(summary(dict(variant="a", status="oom"))) is None


@pytest.mark.parametrize("iqr, noisy", [(5.0, False), (rules.NOISY_IQR_PCT, False), (10.5, True), (NAN, False)])
def test_noise_rule(iqr, noisy):
    assert rules.noisy(iqr) is noisy


@pytest.mark.parametrize("status, device, backend, needs", [
    ("unavailable", "cpu", "efficient", True), ("unavailable", "cpu", "cudnn", True),
    ("unavailable", "cpu", "flash", False), ("unavailable", "cuda", "cudnn", False), ("ok", "cpu", "cudnn", False),
])
def test_needs_cuda(status, device, backend, needs):
    assert rules.needs_cuda(status, device, backend) is needs


# --------------------------------------------------------------------------- words from facts


def test_one_finding_worded_from_its_facts():
    f = Finding(id="copy-v-memcpy-copy_", kind=FindingKind.COPY, severity=Severity.UNEXPECTED, variant="v",
                kernels=(3,), facts=dict(event_kind="memcpy", op="aten::copy_", n=2, names=["Memcpy DtoD"],
                                         paths=["aten::masked_fill > aten::copy_"], dur_us=50.0, total_us=200.0,
                                         expected=False))
    w = finding_words.finding(f)
    assert w.title == "v: 2 memcpy from aten::copy_"
    assert w.short == ("2 memory copies (Memcpy DtoD) from aten::copy_: 50.0 µs, 25.0% of GPU time; the hypothesis "
                       "expected none")
    assert "25.0%" in w.text and "200.0 µs" in w.text and "expected none" in w.text


@pytest.mark.parametrize("kind", list(FindingKind))
def test_every_kind_has_words_and_a_title(kind):
    assert kind in finding_words.KIND_TITLES and kind in finding_words._WORDERS


def test_rules_are_quoted_not_restated():
    """The sentence of the host-bound rule carries the code's thresholds."""
    assert f"{host_rules.HOST_BOUND_EAGER_RATIO:.2f}×" in method_words.HOST_BOUND_RULE
    assert f"{rules.NOISY_IQR_PCT:.0f}%" in method_words.NOISE_RULE
    assert f"{kernel_rules.BOUND_PCT:.0f}%" in kernel_words.BOUND_WORDS["latency"]
    assert not math.isnan(host_rules.HOST_BOUND_EAGER_RATIO)


def test_methodology_quotes_the_thresholds_from_code():
    """docs/methodology.md includes the partial made from gen.analysis.rules and restates no threshold."""
    import re
    from pathlib import Path

    from gen.report.pages import methodology
    from gen.report.site import environment

    doc = (Path(__file__).resolve().parent.parent / "docs" / "methodology.md").read_text(encoding="utf-8")
    assert '--8<-- "generated/.rules.md"' in doc
    section = doc[doc.index("## Host-bound or GPU-bound"):doc.index("## Scaling sweep")]
    assert not re.search(r"\d+\s?%", section), "a threshold restated as a literal"
    partial = environment().get_template("rules.md.j2").render(**methodology.rules_view())
    for value in (rules.NOISY_IQR_PCT, kernel_rules.BOUND_PCT):
        assert f"{value:.0f}%" in partial
    assert f"{host_rules.HOST_BOUND_EAGER_RATIO:.2f}×" in partial
    assert all(f"`{op}`" in partial for op in kernel_rules.COPY_OPS)
