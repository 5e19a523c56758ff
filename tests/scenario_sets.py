"""A small synthetic schema-2 set with every scenario, for the scenario analysis and pages.

The numbers are made up for the tests (chosen so each expected figure can be
worked out by hand); the traces are real ones from the committed H200 set,
copied in so that kernels per call and the variant pages' kernel lists have
something to read.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from gen.model import scenarios as declared
from gen.model import schema
from tests.conftest import H200

# GPU-only ms per (scenario, variant, kv_len); None: refused (see REFUSED), "oom": out of memory.
GQA = {"sdpa_flash": {2048: 0.2, 4096: 0.7}, "sdpa_cudnn": {2048: 0.15, 4096: 0.5},
       "naive": {2048: 1.0, 4096: "oom"}}
DECODE = {"sdpa_flash": {4096: 0.02, 16384: 0.06}, "sdpa_efficient": {4096: 0.03, 16384: 0.1},
          "sdpa_cudnn": {4096: None, 16384: None}}
SLIDING = {"flex": {16384: 2.0}, "sdpa_flash": {16384: None}}
ARTICLE = {"sdpa_flash": {1024: 0.05}, "naive": {1024: 0.4}}
REFUSED = "No available kernel. Aborting execution. <script>x</script> | *not* [a link]"
TRAIN_MS = {"sdpa_flash": 1.5, "sdpa_cudnn": 1.2}
COPY_BYTES, COPY_MS = 8 * 2**30, 2.0  # 4.29 TB/s measured copy
MATMUL, MATMUL_MS = [8192, 8192, 8192], 1.4  # 785 TFLOP/s measured matmul
TRACE = "sweep__sdpa_flash__s1024_d64.json.gz"  # a real one-call trace


def _env() -> schema.Environment:
    return schema.Environment(
        device="cuda", gpu_name="NVIDIA H200", compute_capability="9.0", sm_count=132, max_threads_per_sm=2048,
        max_regs_per_sm=65536, max_shared_memory_per_sm=233472, l2_cache_bytes=62914560, gpu_memory_bytes=1 << 37,
        driver="580", cuda="13.0", cudnn="91900", torch="2.11.0+cu130", python="3.12", platform="linux", cpu="x",
        date="2026-12-03T08:00:00+00:00", git_commit="abc")


def _timing(ms: float) -> schema.Timing:
    return schema.Timing(gpu_only_ms=[ms * 0.99, ms, ms * 1.01], gpu_only_method="cuda_graph", calls_per_replay=10,
                         eager_ms=[ms * 1.1] * 3, host_ms=[0.01] * 3)


def _points(name: str, table: dict, trace_dir: Path, mode: str = "inference") -> list[schema.SweepPoint]:
    s = declared.SCENARIOS[name]
    out = []
    for variant, by_len in table.items():
        for n, ms in by_len.items():
            p = s.point(n)
            if ms is None:
                out.append(schema.SweepPoint(variant=variant, point=p, status="unavailable", reason=REFUSED,
                                             scenario=name, mode=mode))
            elif ms == "oom":
                out.append(schema.SweepPoint(variant=variant, point=p, status="oom", reason="CUDA out of memory",
                                             scenario=name, mode=mode))
            else:
                rel = f"traces/{name}__{variant}__{mode}__q{p.q_len}_k{p.kv_len}.json.gz"
                shutil.copyfile(H200 / "traces" / TRACE, trace_dir / Path(rel).name)
                out.append(schema.SweepPoint(variant=variant, point=p, status="ok", scenario=name, mode=mode,
                                             timing=_timing(ms), peak_memory_bytes=2**30, rel_error=1e-3, trace=rel))
    return out


def build(root: Path, name: str = "nvidia-h200__torch-2.11.0__scenarios") -> Path:
    """Write the set under root/name and return its folder."""
    d = root / name
    (d / "traces").mkdir(parents=True)
    sweep = (_points("article", ARTICLE, d / "traces") + _points("gqa-prefill", GQA, d / "traces")
             + _points("decode", DECODE, d / "traces") + _points("sliding-window", SLIDING, d / "traces"))
    gqa = declared.SCENARIOS["gqa-prefill"]
    for variant, ms in TRAIN_MS.items():
        p = gqa.point(4096)
        rel = f"traces/gqa-prefill__{variant}__train__q4096_k4096.json.gz"
        shutil.copyfile(H200 / "traces" / TRACE, d / rel)
        sweep.append(schema.SweepPoint(variant=variant, point=p, status="ok", scenario="gqa-prefill", mode="train",
                                       timing=_timing(ms), trace=rel))
    variants = sorted({p.variant for p in sweep})
    config = schema.RunConfig(batch=8, heads=16, seq_len=1024, head_dim=64, dtype="bf16", modes=["inference", "train"],
                              variants=variants, warmup_min=5, repeats=10, profile_wait=1, profile_warmup=1,
                              profile_active=1, error_draws=1, seed=0, graph_calls=10)
    rs = schema.ResultSet(
        schema_version=schema.SCHEMA_VERSION, name=name, environment=_env(), config=config, runs=[], sweep=sweep,
        scenarios=[s.record() for s in declared.SCENARIOS.values()],
        ceilings=schema.Ceilings(matmul_shape=MATMUL, matmul_dtype="bf16", matmul_ms=[MATMUL_MS] * 3,
                                 copy_bytes=COPY_BYTES, copy_ms=[COPY_MS] * 3))
    (d / schema.RESULT_FILE).write_text(schema.dumps(rs), encoding="utf-8")
    return d
