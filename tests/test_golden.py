"""Golden pages: a template rendered from a small fixed view model, compared with a file.

A change to a template or a filter shows up here as a diff to read. After a
deliberate change, regenerate with `GOLDEN_UPDATE=1 pytest tests/test_golden.py`
and review the diff of tests/data/golden/.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from gen.report import site
from gen.report.words import common as words
from gen.report.words import home as home_words
from gen.report.words import host as host_words
from gen.report.words import methodology as method_words
from gen.report.words import tables as table_words

GOLDEN = Path(__file__).resolve().parent / "data" / "golden"
NAN = float("nan")


def _ls(kind: str = "measured"):
    env = SimpleNamespace(gpu_name="GPU <X>", cpu=None, torch="2.11.0+cu130", cuda="13.0", date="2026-12-02T10:00",
                          device="cuda")
    cfg = SimpleNamespace(batch=2, heads=4, seq_len=256, head_dim=64, dtype="bf16", error_draws=3)
    rs = SimpleNamespace(kind=kind, environment=env, config=cfg, source=None)
    # a LoadedSet's: its ResultSet, its outline (what the templates read of it) and the outline's kind, machine and
    # configuration
    return SimpleNamespace(name="gpu-x__torch-2.11.0", rs=rs, outline=rs, kind=kind, environment=env, config=cfg)


def _row(variant, label, **kw):
    row = dict(variant=variant, label=label, status="ok", why_not="", kernels_per_forward=1, counts_consistent=True,
               gpu_only_ms=0.1, gpu_only_q1_ms=0.09, gpu_only_q3_ms=0.11, gpu_only_iqr_pct=20.0, noisy=True,
               gpu_only_label=None, eager_ms=0.12, host_ms=0.05, host_bound=False,
               speedup_vs_naive=1.0, speedup_kernel_sums=False, peak_mb=100.0, extra_mb=10.0, max_rel_error=2e-3,
               backend=None,
               main_kernel="k<T*>|x", fastest=False, thin=False, clock=None, tie=False, host_cost_ms=0.04)
    row.update(kw)
    return row


def set_view() -> dict:
    rows = [
        _row("naive", "Naive", kernels_per_forward=7, gpu_only_ms=1.0625, gpu_only_q1_ms=1.06, gpu_only_q3_ms=1.07,
             gpu_only_iqr_pct=0.9, noisy=False),
        _row("sdpa_cudnn", "SDPA cuDNN", gpu_only_q1_ms=NAN, gpu_only_q3_ms=NAN, gpu_only_iqr_pct=NAN, noisy=False,
             host_bound=True, gpu_only_label="kernel sum", eager_ms=0.2, speedup_kernel_sums=True,
             backend="cudnn", counts_consistent=False, clock="1670 MHz"),
        _row("sdpa_auto", "SDPA <auto>", tie=True, host_bound_outcome="within noise"),
        _row("sdpa_efficient", "SDPA efficient", status="unavailable",
             why_not=words.refusal("unavailable", "RuntimeError: No viable backend", needs_cuda=True)),
    ]
    mode = dict(mode="inference", call="forward", rows=rows, chart=None, speedup_basis="GPU-only", reference=False,
                anomalies=[], windows=None,
                notes=table_words.timing_notes("inference", True, 191, 191, 3, frozenset({"cuda_graph", "kernel_sum"})),
                host_bound=[rows[1]],
                host_noise=[dict(rows[2],
                                 host_words=host_words.host_ratio_words(1.2, (1.1, 1.3), "eager", 0.04, 0.1, 0.01))],
                host_speed_lead=host_words.HOST_SPEED_LEAD, host_bound_consequence=method_words.HOST_BOUND_CONSEQUENCE)
    rows[0]["fastest"] = True
    verdict = dict(set="gpu-x__torch-2.11.0", set_title="GPU <X> · PyTorch 2.11.0", scenario="article",
                   scenario_title="The article's shape", point="batch 2 · 4 heads · 256 tokens · head dim 64",
                   mode="inference",
                   headline="Naive is the fastest here: 1062.5 µs a forward on the GPU alone.",
                   lines=("Ranked by <GPU-only> time.",),
                   reasons=(("SDPA efficient", "RuntimeError: No viable backend <for> this & that"),),
                   fastest="naive", fastest_ms="1.0625", basis="gpu_only",
                   runner_up="", settled=None, host_bound="sdpa_cudnn", noisy=False, auto_backend="")
    return dict(here="generated/sets/gpu-x__torch-2.11.0.md", ls=_ls(), modes=[mode], first_modes=[],
                later_modes=[mode], what_to_call=home_words.WHAT_TO_CALL, verdicts=[verdict], scenarios=[],
                variant_pages={r["variant"]: f"gpu-x__torch-2.11.0/variants/{r['variant']}.md" for r in rows},
                own_pages=[dict(title="Findings", link="gpu-x__torch-2.11.0/findings.md"),
                           dict(title="Scaling", link="gpu-x__torch-2.11.0/scaling.md")],
                published=None, host_speed=method_words.host_speed(0.0099, 0.0079, 0.0378, 8856),
                description="On GPU <X>: call \"naive\" & go.", first=None,
                decision=dict(set="gpu-x__torch-2.11.0", set_title="GPU <X> · PyTorch 2.11.0", default="naive",
                              exceptions="decode:sdpa_cudnn", decision="On this GPU (GPU <X>): call <naive> & go. "
                              "It ranks first <here>. Decode: SDPA & cuDNN.",
                              head="On this GPU (GPU <X>): call <naive> & go. It ranks first <here>.",
                              rest="Decode: SDPA & cuDNN.", rest_title=home_words.rest_title(("a", "b", "c")),
                              intervals="the interval of each median (at <93.75%>)",
                              lines=("For decode, use SDPA cuDNN: 1.2× faster <here>.",)))


CASES = {"set.md": ("set.md.j2", set_view)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_page(name):
    template, view = CASES[name]
    text = site.environment().get_template(template).render(**view())
    path = GOLDEN / name
    if os.environ.get("GOLDEN_UPDATE"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"{path} missing: run with GOLDEN_UPDATE=1 once and review it"
    assert text == path.read_text(encoding="utf-8")
