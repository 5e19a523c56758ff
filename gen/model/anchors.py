"""Published anchors: other people's attention figures as reference result sets.

Takes: nothing but the figures below, copied from their sources (each cited
by repository, commit, path and URL). Gives: `build_cudnn_h200()` and
`build_fa3_h100()` -> ResultSet with `kind="reference"`, one SweepPoint per
(variant, point) with `published` holding the figure and its FLOP convention,
`build_all()` and `write(root, force)` for `python -m gen reference`.

Scenarios with no published figure at their shape (packed documents, chunked
prefill, decode kernels, deterministic backward; NVIDIA's H200 CSVs hold no
decode, and their deterministic rows are DeepSeek-V3 shapes: 128 heads, head dims
192 and 128) carry none. The FlashAttention-3 paper's FP8 forward figure (H100) is not
carried: its figures exist only as labels in a chart image, which could not be
read here from a primary copy.

Nothing here is measured by this project. A figure a source did not publish
is None, never derived; a variant a source did not cover is absent. Each
source's own FLOP count is kept by name: both count the two matmuls of the
unmasked score entries (2 FLOPs a multiply-add), cuDNN's benchmark counting
the diagonal of a causal mask, FlashAttention's plain S*S/2, a difference of
1/S (under 0.05% at 2k).

Sources' names map onto ours where the kernel is the one PyTorch 2.11 runs:
cuDNN -> sdpa_cudnn (same library, but called through the cuDNN frontend
graph API here, not through PyTorch), FlashAttention-2 -> sdpa_flash (PyTorch's
flash backend is FlashAttention-2). FlashAttention-3 keeps its own name: it is
not a PyTorch 2.11 backend.
"""

from __future__ import annotations

from pathlib import Path

from gen.model import layout, schema

FA3_VARIANT = "flash_attention_3"

# ------------------------------------------------------------------ cuDNN frontend on H200

CUDNN_NAME = "nvidia-h200__cudnn-frontend-9.19.1"
CUDNN_COMMIT = "3929da2ef4c1dba1bb8acb68727b9134f26f40c0"  # the snapshot read; the CSV landed in df73764
CUDNN_CSV = "benchmark/sdpa_benchmark_training/results/h200_919_only_cudnn/llama3.1_20260227_034703.csv"
CUDNN_SOURCE = (
    "NVIDIA cuDNN frontend SDPA benchmark, Llama 3.1 GQA, NVIDIA H200, cuDNN 9.19.1 (cudnn_backend_version 91901, "
    f"frontend 1.19.0): github.com/NVIDIA/cudnn-frontend/blob/{CUDNN_COMMIT}/{CUDNN_CSV} "
    "(rows data_type=bfloat16 and data_type=fp8, attn_mask=top_left; chart and parameters in "
    "benchmark/sdpa_benchmark_training/README.md, section 'H200 - Llama 3.1 Causal (top_left)')"
)
CUDNN_CONVENTION = ("cuDNN frontend benchmark: 2*B*Hq*N*(Dqk+Dvo) with N the unmasked score entries, "
                    "S*(S+1)/2 when causal (diagonal counted)")
CUDNN_NOTE = ("cuDNN called through the cuDNN frontend graph API (graph.execute), not torch SDPA; "
              "cuDNN 9.19.1, where torch 2.11 bundles 9.19.0; time is the median over iterations of the "
              "forward kernels' device time from torch.profiler, L2 flushed before each call; "
              "clock settings not stated in the source")
# (seq_len, fwd_time_ms, fwd_tflops): bfloat16, top_left (causal), batch 1, 64 q heads, 8 kv heads, d 128.
_CUDNN_ROWS = [
    (2048, 0.142, 484.0),
    (4096, 0.465, 591.0),
    (8192, 1.708, 644.0),
    (16384, 6.531, 673.0),
    (32768, 25.566, 688.0),
]


# The same CSV's FP8 rows (data_type=fp8, attn_mask=top_left), same shape: (seq_len, fwd_time_ms, fwd_tflops).
CUDNN_FP8_VARIANT = "cudnn_fp8"
CUDNN_FP8_NOTE = ("FP8 rows of the same cuDNN frontend benchmark, called and timed as its bf16 rows: q, k, v "
                  "and the output in float8 e4m3 through the graph's sdpa_fp8 "
                  "with every scale and descale 1.0, softmax statistics written (the benchmark's forward is a "
                  "training forward; ours writes none)")
_CUDNN_FP8_ROWS = [
    (2048, 0.098, 698.0),
    (4096, 0.322, 854.0),
    (8192, 1.141, 964.0),
    (16384, 4.357, 1010.0),
    (32768, 16.884, 1042.0),
]


def _env(gpu: str, cudnn: str | None = None, torch: str | None = None) -> schema.Environment:
    return schema.Environment(
        device="cuda", gpu_name=gpu, compute_capability=None, sm_count=None, max_threads_per_sm=None,
        max_regs_per_sm=None, max_shared_memory_per_sm=None, l2_cache_bytes=None, gpu_memory_bytes=None,
        driver=None, cuda=None, cudnn=cudnn, torch=torch, python=None, platform=None, cpu=None, date=None,
        git_commit=None, ref_mhz=schema.known_ref_mhz(gpu),
    )


def build_cudnn_h200() -> schema.ResultSet:
    points = [schema.Point(batch=1, q_heads=64, kv_heads=8, head_dim=128, q_len=s, kv_len=s, mask="causal")
              for s, _, _ in _CUDNN_ROWS]
    sweep = [
        schema.SweepPoint(
            variant="sdpa_cudnn", point=p, status="ok", scenario="gqa-prefill", mode="inference",
            published=schema.Published(gpu_time_ms=ms, tflops=tf, flop_convention=CUDNN_CONVENTION,
                                       note=CUDNN_NOTE, kernel_time=True))
        for p, (_, ms, tf) in zip(points, _CUDNN_ROWS, strict=True)
    ]
    sweep += [
        schema.SweepPoint(
            variant=CUDNN_FP8_VARIANT, point=p, status="ok", scenario="fp8-prefill", mode="inference",
            dtype="fp8_e4m3",
            published=schema.Published(gpu_time_ms=ms, tflops=tf, flop_convention=CUDNN_CONVENTION,
                                       note=CUDNN_FP8_NOTE, kernel_time=True))
        for p, (_, ms, tf) in zip(points, _CUDNN_FP8_ROWS, strict=True)
    ]
    # num_iterations=10 per the CSV; no profiler schedule of ours applies (0).
    config = schema.RunConfig(
        batch=1, heads=64, seq_len=points[0].q_len, head_dim=128, dtype="bf16", modes=["inference"],
        variants=["sdpa_cudnn", CUDNN_FP8_VARIANT], warmup_min=None, repeats=10, profile_wait=0, profile_warmup=0,
        profile_active=0, error_draws=None, seed=None,
    )
    scen = schema.ScenarioRecord(name="gqa-prefill", title="Llama 3.1 GQA prefill (64 query heads over 8 KV heads)",
                                 dtype="bf16", points=points)
    fp8 = schema.ScenarioRecord(name="fp8-prefill", title="Llama 3.1 GQA prefill in FP8 e4m3 (64 query heads over "
                                "8 KV heads)", dtype="fp8_e4m3", points=points)
    return schema.ResultSet(schema_version=schema.SCHEMA_VERSION, name=CUDNN_NAME, environment=_env(
        "NVIDIA H200", cudnn="9.19.1"), config=config, runs=[], sweep=sweep, scenarios=[scen, fp8], kind="reference",
        source=CUDNN_SOURCE)


# ------------------------------------------------------------------ FlashAttention-3 paper on H100

FA3_NAME = "nvidia-h100-sxm5__flashattention3-paper"
FA3_COMMIT = "0251105a2fb19d2957484b7f023cd8c115286ced"  # the snapshot read; the image landed in 7ef2484 (2024-07)
FA3_PNG = "assets/flash3_fp16_fwd.png"
FA3_SOURCE = (
    "FlashAttention-3 paper (Shah, Bikshandi, Zhang, Thakkar, Ramani, Dao, 2024; tridao.me/publications/flash3/"
    "flash3.pdf), forward-speed figure on H100 80GB SXM5 as kept at "
    f"github.com/Dao-AILab/flash-attention/blob/{FA3_COMMIT}/{FA3_PNG} "
    "(panels (b) causal head dim 64 and (d) causal head dim 128); shape batch*seqlen = 16k tokens, "
    "hidden 2048 (nheads = 2048/headdim) per benchmarks/benchmark_flash_attention.py in the same repository; "
    "conditions as the paper's section 4 states them: GPU clock fixed at 1830 MHz, cuDNN 9.1.1.17, PyTorch 2.3.0"
)
FA3_CONVENTION = "FlashAttention: 4*B*H*S*S*D, halved when causal"
FA3_NOTE = ("the integer printed above the bar in the figure (rounded TFLOP/s); no times published; "
            "fp16 per the figure's file name and README caption")
# The paper's stated benchmarking conditions (its section 4, "Benchmarking attention"): the GPU's clock fixed at
# 1830 MHz, cuDNN 9.1.1.17 for its cuDNN bars, PyTorch 2.3.0. Figures compare with ours at equal clock only
# through this clock (gen.analysis.scenarios.versus_row).
FA3_CLOCK_MHZ = 1830.0
FA3_CUDNN = "9.1.1.17"
FA3_TORCH = "2.3.0"
FA3_CONDITIONS = (f"the paper states its conditions: the GPU clock fixed at {FA3_CLOCK_MHZ:.0f} MHz, cuDNN "
                  f"{FA3_CUDNN}, PyTorch {FA3_TORCH}")
_FA3_SEQ = [512, 1024, 2048, 4096, 8192, 16384]
# Causal panels, label per sequence length above: source name -> (our variant, {head_dim: TFLOP/s}).
_FA3_TFLOPS = {
    "FlashAttention-3": (FA3_VARIANT, {64: [197, 265, 371, 420, 460, 473], 128: [292, 423, 521, 579, 602, 616]}),
    "cuDNN": ("sdpa_cudnn", {64: [225, 288, 334, 363, 379, 388], 128: [315, 410, 484, 518, 529, 539]}),
    "FlashAttention-2": ("sdpa_flash", {64: [180, 229, 262, 284, 295, 299], 128: [191, 260, 298, 319, 333, 335]}),
}
_FA3_TOKENS, _FA3_HIDDEN = 16384, 2048


def _fa3_point(head_dim: int, seq: int) -> schema.Point:
    heads = _FA3_HIDDEN // head_dim
    return schema.Point(batch=_FA3_TOKENS // seq, q_heads=heads, kv_heads=heads, head_dim=head_dim, q_len=seq,
                        kv_len=seq, mask="causal")


def build_fa3_h100() -> schema.ResultSet:
    dims = [64, 128]
    points = [_fa3_point(d, s) for d in dims for s in _FA3_SEQ]
    sweep = [
        schema.SweepPoint(
            variant=ours, point=_fa3_point(d, s), status="ok", scenario="fa3-paper", mode="inference",
            published=schema.Published(tflops=float(tf), flop_convention=FA3_CONVENTION, approximate=True,
                                       note=f"{theirs}: {FA3_NOTE}; {FA3_CONDITIONS}", clock_mhz=FA3_CLOCK_MHZ))
        for theirs, (ours, by_dim) in _FA3_TFLOPS.items() for d in dims
        for s, tf in zip(_FA3_SEQ, by_dim[d], strict=True)
    ]
    first = points[0]
    config = schema.RunConfig(
        batch=first.batch, heads=first.q_heads, seq_len=first.q_len, head_dim=first.head_dim, dtype="fp16",
        modes=["inference"], variants=[v for v, _ in _FA3_TFLOPS.values()], warmup_min=None, repeats=None,
        profile_wait=0, profile_warmup=0, profile_active=0, error_draws=None, seed=None,
    )
    scen = schema.ScenarioRecord(
        name="fa3-paper", title="FlashAttention-3 paper: 16k tokens (batch x seqlen), hidden 2048, causal",
        dtype="fp16", points=points)
    return schema.ResultSet(schema_version=schema.SCHEMA_VERSION, name=FA3_NAME,
                            environment=_env("NVIDIA H100 80GB SXM5", cudnn=FA3_CUDNN, torch=FA3_TORCH),
                            config=config, runs=[], sweep=sweep,
                            scenarios=[scen], kind="reference", source=FA3_SOURCE)


# ------------------------------------------------------------------ writing


def build_all() -> list[schema.ResultSet]:
    return [build_cudnn_h200(), build_fa3_h100()]


def write(root: str | Path, force: bool = False) -> list[Path]:
    """Write results/<name>/result.json of every anchor set atomically; an
    existing file needs force (checked for all before any is written)."""
    sets = build_all()
    paths = [Path(root) / rs.name / schema.RESULT_FILE for rs in sets]
    existing = [p for p in paths if p.exists()]
    if existing and not force:
        raise schema.UserError(f"{existing[0]}: reference set exists; pass --force to replace it")
    for rs, path in zip(sets, paths, strict=True):
        layout.atomic_write_text(path, schema.dumps(rs))
    return [p.parent for p in paths]
