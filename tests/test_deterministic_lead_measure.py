"""The lead among deterministic calls says its measure, with the kernel sums beside it where they ran at one clock,
so a reader who divides the paragraph's two kernel sums finds the ratio the first screen gives; and each deterministic
call has one name, its label, on the first screen and in the paragraph below it (FlashAttention-4's deterministic
step read "FlashAttention-4 (deterministic backward)" in one and "FlashAttention-4 (flash_attn.cute) deterministic"
in the other)."""

from __future__ import annotations

import json
import statistics

import pytest

from gen.analysis import advice
from gen.report.pages import decision as decision_page
from gen.report.words import decision as decision_words
from gen.report.words.common import label
from tests.conftest import RESULTS, committed_set

LEAD = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def _det_point() -> dict:
    raw = json.loads((RESULTS / LEAD / "result.json").read_text(encoding="utf-8"))
    return {s["variant"]: s["timing"] for s in raw["sweep"]
            if s["scenario"] == "deterministic-backward" and s["status"] == "ok"}


def test_the_deterministic_lead_carries_its_measure_and_the_kernel_sums():
    t = _det_point()
    med = statistics.median
    as_run = med(t["sdpa_flash_det"]["gpu_only_ms"]) / med(t["fa4_det"]["gpu_only_ms"])
    ks = med(t["sdpa_flash_det"]["kernel_sum_ms"]) / med(t["fa4_det"]["kernel_sum_ms"])
    (d,) = advice.advice(committed_set(LEAD)).det_leads
    assert (d.det_first, d.det_second) == ("fa4_det", "sdpa_flash_det")
    assert d.det_ratio == pytest.approx(as_run, rel=1e-3) and d.det_ks_ratio == pytest.approx(ks, rel=1e-3)
    text = " ".join(str(v) for r in decision_page.table_rows(committed_set(LEAD)) for v in r.values())
    assert (f"among the deterministic calls, {label('fa4_det')} is {as_run:.2f}× ahead of {label('sdpa_flash_det')} "
            f"as run, and {ks:.2f}× by kernel sum (both at 1980 MHz)") in text
    assert f"{as_run:.2f}× ahead of {label('sdpa_flash_det')};" not in text


def test_each_deterministic_call_is_named_by_its_label():
    a = advice.advice(committed_set(LEAD))
    line = next(x for x in decision_words.advice(a).lines if x.startswith("For deterministic training"))
    assert f"{label('fa4_det')} takes 3.479 ms against 3.071 ms without determinism by kernel sum" in line
    assert f"{label('sdpa_flash_det')} takes 9.997 ms" in line
    assert f"{label('fa4_det')} is the fastest deterministic call" in line
    assert ") deterministic takes" not in line and "flash deterministic" not in line
