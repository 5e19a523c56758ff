"""The reference set: the seed article's published A100 figures as a result set.

Takes: nothing but the figures below, copied from the article (and its
scripts) as gathered in shared/seed/README.md. Gives: `build() -> ResultSet`
with `kind="reference"`, `write(root, force)` for `python -m gen reference`,
and `published_fields(run)`, which the summary table uses to read a
reference run's numbers from `VariantRun.published`.

Nothing here is measured by this project. Only what the article published is
recorded; a figure it did not publish is None (the naive variant's time, every
CPU time but three). Variants it did not cover are absent, not guessed.
"""

from __future__ import annotations

import math
from pathlib import Path

from gen.model import layout, schema

NAME = "nvidia-a100-sxm4-80gb__article-2026-07"
TITLE = "Profiling in PyTorch (Part 3): Attention is all you profile"
SOURCE = (f'"{TITLE}", Hugging Face blog, huggingface.co/blog/torch-attention-profile, July 2026')

_PUBLISHED = [
    ("naive", dict(
        kernels_per_forward=6, kernels=["Memcpy"], gpu_time_ms=None, cpu_time_ms=None,
        note="six GPU events per forward, one of them a Memcpy the code never asked for "
             "(traced to the out-of-place masked_fill); other kernel names and the time were not published")),
    ("naive_inplace", dict(
        kernels_per_forward=5, kernels=[], gpu_time_ms=1.955, cpu_time_ms=None,
        note="masked_fill_ in place: the Memcpy is gone, five GPU events per forward")),
    ("sdpa_math", dict(
        kernels_per_forward=20, kernels=[], gpu_time_ms=7.239, cpu_time_ms=None,
        note="about 3.7x the in-place naive time; the article attributes it to float32 compute off the "
             "tensor cores, the causal mask rebuilt every forward, and _safe_softmax")),
    ("sdpa_efficient", dict(
        kernels_per_forward=1, kernels=["fmha_cutlassF_bf16_aligned_64x64_rf_sm80"], gpu_time_ms=0.2779,
        cpu_time_ms=0.117, note="one fused CUTLASS kernel in bfloat16")),
    ("sdpa_flash", dict(
        kernels_per_forward=1, kernels=["pytorch_flash::flash_fwd_kernel"], gpu_time_ms=0.1468,
        cpu_time_ms=0.138, occupancy_pct=13,
        note="one FlashAttention-2 kernel; about 13% occupancy shown (128 threads a block, 255 registers a thread)")),
    ("sdpa_cudnn", dict(
        kernels_per_forward=1,
        kernels=["cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_6_128x64x64_4x1x1_cga1x1x1_kernel0_0"],
        gpu_time_ms=0.1863, cpu_time_ms=0.214, occupancy_pct=0, launch_api="cuLaunchKernelEx",
        note="one kernel generated for the problem, launched with cuLaunchKernelEx; the profiler shows 0% occupancy")),
]


def build() -> schema.ResultSet:
    env = schema.Environment(
        device="cuda", gpu_name="NVIDIA A100-SXM4-80GB", compute_capability=None, sm_count=None,
        max_threads_per_sm=None, max_regs_per_sm=None, max_shared_memory_per_sm=None, l2_cache_bytes=None,
        gpu_memory_bytes=None, driver=None, cuda=None, cudnn=None, torch=None, python=None, platform=None,
        cpu=None, date=None, git_commit=None,
    )
    variants = [v for v, _ in _PUBLISHED]
    # The article's shape and profiler schedule: 3 warm-up calls, then
    # schedule(wait=1, warmup=1, active=3). Repeats, error draws and seed were not published.
    config = schema.RunConfig(
        batch=8, heads=16, seq_len=1024, head_dim=64, dtype="bf16", modes=["inference"], variants=variants,
        warmup_min=3, repeats=None, profile_wait=1, profile_warmup=1, profile_active=3, error_draws=None,
        seed=None,
    )
    point = schema.Point(batch=8, q_heads=16, kv_heads=16, head_dim=64, q_len=1024, kv_len=1024, mask="causal")
    runs = [schema.VariantRun(variant=v, mode="inference", status="ok", device="cuda", point=point,
                              published=schema.Published(**p))
            for v, p in _PUBLISHED]
    scenarios = [schema.ScenarioRecord(name="article", title="The article's shape", dtype="bf16", points=[point])]
    return schema.ResultSet(schema_version=schema.SCHEMA_VERSION, name=NAME, environment=env, config=config,
                            runs=runs, scenarios=scenarios, kind="reference", source=SOURCE)


def write(root: str | Path, force: bool = False) -> Path:
    """Write results/<NAME>/result.json atomically; an existing file needs force."""
    path = Path(root) / NAME / schema.RESULT_FILE
    if path.exists() and not force:
        raise schema.UserError(f"{path}: reference set exists; pass --force to replace it")
    layout.atomic_write_text(path, schema.dumps(build()))
    return path.parent


def _num(x) -> float:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else math.nan


def published_fields(run: schema.VariantRun) -> dict:
    """Summary-table fields of one reference run, read from what was published.
    Spreads are NaN: one number was published, no samples."""
    p = run.published or schema.Published()
    kernels = p.kernels
    nan = math.nan
    return dict(
        kernels_per_forward=_num(p.kernels_per_forward),
        # The source's GPU time stands where a measured set has its GPU-only time, labelled "published".
        gpu_only_ms=_num(p.gpu_time_ms), gpu_only_q1_ms=nan, gpu_only_q3_ms=nan, gpu_only_iqr_pct=nan,
        gpu_only_method="published" if p.gpu_time_ms is not None else None,
        host_ms=_num(p.cpu_time_ms), host_q1_ms=nan, host_q3_ms=nan,
        # The main kernel is known only when the source named every kernel and there is one: the article
        # named the naive variant's Memcpy, one of its six events, not its longest.
        main_kernel=kernels[0].split("::")[-1] if len(kernels) == 1 and p.kernels_per_forward == 1 else None,
        main_occupancy_pct=_num(p.occupancy_pct),
    )
