"""Issue 20's trial: does each new variant run at its scenario's full size, and how does it refuse?

Takes: a device ("cuda" or "cpu"; "tiny" as a second argument shrinks the
scenarios). Gives: one JSON line per (scenario, variant, point) on stdout, and
$OUT/trial.json when OUT is set: status or PyTorch's refusal, SDPA's choice and
reasons, the error against float64 on the first heads, the facts a variant
measured while being built, and the mean of 5 eager calls (first ones included,
so compiled variants hold a recompile: a smoke figure, not a measurement).
Recorded output: benchmarks/scenarios20_trial.md.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings

import torch

from gen.capture.attention import build
from gen.capture.inputs import DTYPES, check_heads, make_inputs, reference_slice, rel_error
from gen.model import scenarios as sc

NAMES = ["packed-documents", "chunked-prefill", "decode-kernels", "fp8-prefill", "sliding-window",
         "deterministic-backward"]


def one(s, v, pt, dev: str) -> dict:
    train = not s.points()
    rec = {"scenario": s.name, "variant": v.name, "q": pt.q_len, "kv": pt.kv_len}
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            b = build(v.kind, v.backend, pt, dev)
            q, k, vv = make_inputs(pt, DTYPES[b.dtype or s.dtype], dev, 0, grad=train, layout=b.layout)
            if b.explain:
                rec["choice"], rec["reasons"] = b.explain(q, k, vv)
            with b.context():
                if train:
                    o = b.fn(q, k, vv)
                    o.backward(torch.ones_like(o))
                    rec["err"] = None
                else:
                    with torch.no_grad():
                        o = b.fn(q, k, vv)
                    h = check_heads(pt)
                    rec["err"] = rel_error(o[0, h], reference_slice(q, k, vv, pt, h))
                if dev == "cuda":
                    torch.cuda.synchronize()
                    t1 = time.perf_counter()
                    for _ in range(5):
                        out = b.fn(q, k, vv)
                        if train:
                            out.backward(torch.ones_like(out))
                    torch.cuda.synchronize()
                    rec["ms"] = (time.perf_counter() - t1) / 5 * 1e3
        rec["facts"], rec["status"] = b.facts, "ok"
    except Exception as exc:  # a refusal is a result here
        rec["status"] = "refused"
        rec["why"] = f"{type(exc).__name__}: {str(exc).strip()[:300]}"
        rec["warn"] = [str(w.message)[:200] for w in caught][:3]
    rec["s"] = round(time.perf_counter() - t0, 2)
    return rec


def main() -> None:
    dev = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    tiny = len(sys.argv) > 2 and sys.argv[2] == "tiny"
    out = []
    for name in NAMES:
        s = sc.tiny(sc.SCENARIOS[name]) if tiny else sc.SCENARIOS[name]
        for v in s.variants_for([]):
            for pt in s.points() or s.train_points():
                rec = one(s, v, pt, dev)
                print(json.dumps(rec)[:600], flush=True)
                out.append(rec)
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "trial.json"), "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
