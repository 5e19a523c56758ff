"""Does the capture time a call as a bare Python loop would? cuDNN and flash SDPA
at the default shape (B8 H16 S1024 D64 bf16 causal), timed four ways:

  bare      a hand-written loop: CUDA events around each call of
            F.scaled_dot_product_attention (eager), and host time per call with
            the GPU drained before each (host)
  measure   gen.capture.timing.measure on the same bare call
  capture   gen.capture.timing.measure on the variant's callable, as
            `python -m gen profile` runs it (gen.capture.attention.build: an
            nn.Module, whose __call__ costs host time of its own)
  graph     measure's GPU-only time (CUDA-graph replay / N)

Goal (issue 11): measure's eager and host medians within 5% of the bare loop's.
Rounds alternate which goes first, so that drifting clocks hit both alike.

Usage (GPU): python benchmarks/bare_loop.py [--rounds 3] [--out benchmarks/bare_loop.md]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

from gen.capture import timing  # noqa: E402
from gen.capture.attention import build  # noqa: E402
from gen.capture.inputs import make_inputs  # noqa: E402
from gen.model import schema  # noqa: E402

POINT = schema.Point(batch=8, q_heads=16, kv_heads=16, head_dim=64, q_len=1024, kv_len=1024, mask="causal")
BACKENDS = {"sdpa_flash": ("flash", SDPBackend.FLASH_ATTENTION), "sdpa_cudnn": ("cudnn", SDPBackend.CUDNN_ATTENTION)}
GOAL = 0.05


def bare(q, k, v, n_eager: int, n_host: int) -> tuple[list[float], list[float]]:
    """The loop a reader would write: nothing in it but the call and the events."""
    sdpa = F.scaled_dot_product_attention
    for _ in range(200):
        sdpa(q, k, v, is_causal=True)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_eager)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_eager)]
    for s, e in zip(starts, ends):
        s.record()
        sdpa(q, k, v, is_causal=True)
        e.record()
    torch.cuda.synchronize()
    eager = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    host = []
    for _ in range(n_host):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        sdpa(q, k, v, is_causal=True)
        host.append((time.perf_counter() - t0) * 1e3)
    torch.cuda.synchronize()
    return eager, host


def med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("no GPU: this benchmark needs CUDA", file=sys.stderr)
        return 2
    device = torch.device("cuda")
    budget = timing.Budget()
    q, k, v = make_inputs(POINT, torch.bfloat16, device, seed=0)
    lines = [
        "# Bare loop vs capture timing\n",
        f"{torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
        f"B{POINT.batch} H{POINT.q_heads} S{POINT.q_len} D{POINT.head_dim} bf16 causal; "
        f"{a.rounds} rounds, medians in ms (µs where marked); Δ = measure vs bare.\n",
        "| variant | round | bare eager | measure eager | Δ eager | bare host µs | measure host µs | Δ host "
        "| capture eager | capture host µs | graph (GPU-only) | N |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    verdict = []
    for name, (_, backend) in BACKENDS.items():
        built = build("sdpa", BACKENDS[name][0], POINT, device)
        worst_e = worst_h = 0.0
        with sdpa_kernel(backend), torch.no_grad():
            for rnd in range(1, a.rounds + 1):
                def timed():
                    return timing.measure(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), device,
                                          budget)

                # Same sample counts as measure takes for a call this fast; who goes first alternates.
                if rnd % 2:
                    t = timed()
                    be, bh = bare(q, k, v, budget.max_repeats, budget.host_repeats)
                else:
                    be, bh = bare(q, k, v, budget.max_repeats, budget.host_repeats)
                    t = timed()
                assert (len(t.eager_ms), len(t.host_ms)) == (len(be), len(bh)), "sample counts differ"
                c = timing.measure(lambda: built.fn(q, k, v), device, budget)  # noqa: B023 (called at once)
                de = med(t.eager_ms) / med(be) - 1
                dh = med(t.host_ms) / med(bh) - 1
                worst_e, worst_h = max(worst_e, abs(de)), max(worst_h, abs(dh))
                lines.append(
                    f"| {name} | {rnd} | {med(be):.4f} | {med(t.eager_ms):.4f} | {de:+.1%} | {med(bh) * 1e3:.1f} "
                    f"| {med(t.host_ms) * 1e3:.1f} | {dh:+.1%} | {med(c.eager_ms):.4f} | {med(c.host_ms) * 1e3:.1f} "
                    f"| {med(t.gpu_only_ms):.4f} | {t.calls_per_replay} |")
                print(lines[-1], flush=True)
        ok = worst_e <= GOAL and worst_h <= GOAL
        verdict.append(f"- {name}: worst |Δ| eager {worst_e:.1%}, host {worst_h:.1%}: "
                       f"{'within' if ok else 'NOT within'} {GOAL:.0%}")
    lines += ["", *verdict, ""]
    text = "\n".join(lines)
    print("\n".join(verdict))
    if a.out:
        a.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
