"""A probe on the GPU machine before the capture: does FlashAttention-4 (flash_attn.cute) and
FlexAttention's FLASH backend run here, with which arguments, and what does a first call at a new
shape cost for SDPA's cuDNN and flash backends (with and without TORCH_CUDNN_SDPA_AVOID_RECOMPILE)?

Takes: nothing (run with the FA4 wheels on PYTHONPATH). Gives: a table on stdout and, with --json,
the same rows as JSON. Its recorded output is gpu_probe.md beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import traceback

import torch
import torch.nn.functional as F

ROWS: list[dict] = []
DEV = "cuda"


def clock_mhz() -> int | None:
    try:
        import pynvml

        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(0)
        return pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM)
    except Exception:
        return None


def timed(fn, iters: int = 20) -> tuple[float, float]:
    """(first call s, steady ms per call) with CUDA events."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    first = time.perf_counter() - t0
    for _ in range(3):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return first, start.elapsed_time(end) / iters


def row(name: str, fn, ref=None, iters: int = 20, **extra) -> None:
    try:
        out = fn()
        out = out[0] if isinstance(out, tuple) else out
        err = None
        if ref is not None:
            r = ref()
            err = float((out.float() - r.float()).norm() / r.float().norm())
        first, ms = timed(fn, iters)
        ROWS.append({"name": name, "ok": True, "first_s": round(first, 4), "ms": round(ms, 4), "rel_err": err,
                     "sm_mhz": clock_mhz(), **extra})
    except Exception as exc:  # the probe records what fails and goes on
        ROWS.append({"name": name, "ok": False, "error": f"{type(exc).__name__}: {exc}"[:400],
                     "where": traceback.format_exc().splitlines()[-3:]})
    print(json.dumps(ROWS[-1]), flush=True)


def sdpa_ref(q, k, v, causal: bool):
    """SDPA math on (B,S,H,D) inputs, GQA by repeat: the check for FA4's outputs."""
    qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))
    rep = qh.shape[1] // kh.shape[1]
    kh, vh = kh.repeat_interleave(rep, 1), vh.repeat_interleave(rep, 1)
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):
        return F.scaled_dot_product_attention(qh.float(), kh.float(), vh.float(), is_causal=causal).transpose(1, 2)


def fa4_probe(S: int) -> None:
    from flash_attn.cute import flash_attn_func, flash_attn_varlen_func

    torch.manual_seed(0)
    B, Hq, Hk, D = 1, 32, 8, 128
    q = torch.randn(B, S, Hq, D, device=DEV, dtype=torch.bfloat16)
    k = torch.randn(B, S, Hk, D, device=DEV, dtype=torch.bfloat16)
    v = torch.randn(B, S, Hk, D, device=DEV, dtype=torch.bfloat16)
    small = S <= 4096
    row(f"fa4 causal gqa S={S}", lambda: flash_attn_func(q, k, v, causal=True),
        (lambda: sdpa_ref(q, k, v, True)) if small else None)
    row(f"fa4 window(1024,0) S={S}", lambda: flash_attn_func(q, k, v, causal=True, window_size=(1024, 0)))
    # packed documents: 8 documents of S/8 tokens as one varlen batch
    n = 8
    cu = torch.arange(0, S + 1, S // n, device=DEV, dtype=torch.int32)
    qp, kp, vp = q[0], k[0], v[0]
    row(f"fa4 varlen {n} docs S={S}", lambda: flash_attn_varlen_func(qp, kp, vp, cu_seqlens_q=cu, cu_seqlens_k=cu,
                                                                      max_seqlen_q=S // n, max_seqlen_k=S // n,
                                                                      causal=True))
    # paged decode: one query token a sequence, a KV cache of pages
    Bd, L, page = 8, 8192, 128
    pages = Bd * L // page
    kc = torch.randn(pages, page, Hk, D, device=DEV, dtype=torch.bfloat16)
    vc = torch.randn(pages, page, Hk, D, device=DEV, dtype=torch.bfloat16)
    pt = torch.randperm(pages, device=DEV, dtype=torch.int32).view(Bd, L // page)
    qd = torch.randn(Bd, 1, Hq, D, device=DEV, dtype=torch.bfloat16)
    seqused = torch.full((Bd,), L, device=DEV, dtype=torch.int32)
    cuq = torch.arange(0, Bd + 1, device=DEV, dtype=torch.int32)

    def paged():
        return flash_attn_varlen_func(qd.view(Bd, Hq, D), kc, vc, cu_seqlens_q=cuq, max_seqlen_q=1,
                                      seqused_k=seqused, page_table=pt, causal=True)

    def paged_ref():
        kk = kc[pt.long()].reshape(Bd, L, Hk, D)
        vv = vc[pt.long()].reshape(Bd, L, Hk, D)
        return sdpa_ref(qd, kk, vv, False).reshape(Bd, Hq, D)

    row(f"fa4 paged decode B={Bd} L={L} page={page}", paged, paged_ref)
    # backward, deterministic and not
    qg, kg, vg = (t.detach().clone().requires_grad_(True) for t in (q, k, v))
    go = torch.randn_like(q)

    def fwd_bwd(det: bool):
        def f():
            o = flash_attn_func(qg, kg, vg, causal=True, deterministic=det)
            o = o[0] if isinstance(o, tuple) else o
            o.backward(go)
            return o
        return f

    row(f"fa4 fwd+bwd S={S}", fwd_bwd(False), iters=5)
    row(f"fa4 fwd+bwd deterministic S={S}", fwd_bwd(True), iters=5)


def flex_probe(S: int) -> None:
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    torch._dynamo.config.recompile_limit = 64
    B, Hq, Hk, D = 1, 32, 8, 128
    q = torch.randn(B, Hq, S, D, device=DEV, dtype=torch.bfloat16)
    k = torch.randn(B, Hk, S, D, device=DEV, dtype=torch.bfloat16)
    v = torch.randn(B, Hk, S, D, device=DEV, dtype=torch.bfloat16)

    def causal(b, h, qi, ki):
        return qi >= ki

    bm = create_block_mask(causal, B, None, S, S, device=DEV)
    for backend in ("TRITON", "FLASH"):
        fn = torch.compile(lambda q, k, v, bm=bm, be=backend: flex_attention(
            q, k, v, block_mask=bm, enable_gqa=True, kernel_options={"BACKEND": be}))
        row(f"flex {backend} causal gqa S={S}", lambda fn=fn: fn(q, k, v))


def cudnn_first_calls(avoid: bool) -> None:
    """First and second call of SDPA pinned to cuDNN and to flash at new lengths, in a fresh process."""
    env = dict(os.environ)
    if avoid:
        env["TORCH_CUDNN_SDPA_AVOID_RECOMPILE"] = "1"
    else:
        env.pop("TORCH_CUDNN_SDPA_AVOID_RECOMPILE", None)
    code = r"""
import json, time, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
out = []
for be in (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION):
    for S in (1000, 1001, 1537, 2049, 3001, 4099):
        q = torch.randn(1, 32, S, 128, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(1, 32, S, 128, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(1, 32, S, 128, device="cuda", dtype=torch.bfloat16)
        t = []
        for _ in range(3):
            torch.cuda.synchronize(); t0 = time.perf_counter()
            with sdpa_kernel(be):
                F.scaled_dot_product_attention(q, k, v, is_causal=True)
            torch.cuda.synchronize(); t.append((time.perf_counter() - t0) * 1e3)
        out.append({"backend": be.name, "S": S, "ms_calls": [round(x, 3) for x in t]})
print("JSON" + json.dumps(out))
"""
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("JSON")), None)
    rows = json.loads(line[4:]) if line else [{"error": p.stderr[-600:]}]
    for r in rows:
        r["avoid_recompile"] = avoid
        ROWS.append({"name": "first calls", **r})
        print(json.dumps(ROWS[-1]), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args()
    print(json.dumps({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(),
                      "cudnn": torch.backends.cudnn.version(), "env_avoid": "TORCH_CUDNN_SDPA_AVOID_RECOMPILE"}))
    for part in (lambda: fa4_probe(2048), lambda: fa4_probe(16384), lambda: flex_probe(16384),
                 lambda: cudnn_first_calls(False), lambda: cudnn_first_calls(True)):
        try:
            part()
        except Exception as exc:
            ROWS.append({"name": "part failed", "error": f"{type(exc).__name__}: {exc}"[:600]})
            print(json.dumps(ROWS[-1]), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(ROWS, fh, indent=1)


if __name__ == "__main__":
    main()
