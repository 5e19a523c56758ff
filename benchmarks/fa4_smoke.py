"""FlashAttention-4 on a GPU before a capture: every FA4 variant (fa4, fa4_paged, fa4_det, flex_flash) in every
scenario that runs it, at the scenario's toy size (--tiny's) and at its own size, checked against float64.

Usage (GPU, the fa4 extra on PYTHONPATH):
    python benchmarks/fa4_smoke.py [--only tiny|real] [--scenario NAME,...] [--variants NAME,...]
                                   [--time-limit-s 540] [--json OUT.json]

Per case (scenario, variant, mode, shape): the build (block mask, page table) and the first call (FA4's CuTe
DSL compile, or torch.compile's with the FLASH backend) in seconds, a steady time (median of CUDA-event timed
calls after a warm-up: a forward, or a forward and backward), and the relative error against float64 (inference:
the output of batch element 0 on the first query heads; training: dq, dk, dv through KV head 0, as the capture
checks them). A refusal is a row with its reason, never a crash. Cases not started by the time limit say so.
Always exits 0 once the table is printed; the last line counts ok, refused, wrong and not run.
Imports torch and gen (run from the repository's root).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import traceback
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from gen.capture import attention, inputs, probe  # noqa: E402
from gen.model import scenarios as sc  # noqa: E402
from gen.model import schema  # noqa: E402
from gen.model import variants as vd  # noqa: E402

# bf16 against float64: the capture's fused kernels land near 2e-3 (output) and 1e-2 (gradients).
TOLERANCE = {"inference": 2e-2, "train": 5e-2}
WARMUP, CALLS = 3, 20
PACKAGES = ("flash-attn-4", "nvidia-cutlass-dsl", "nvidia-cutlass-dsl-libs-cu13", "quack-kernels", "apache-tvm-ffi")


@dataclass
class Case:
    scenario: str
    variant: str
    mode: str
    size: str  # tiny | real
    point: schema.Point
    status: str = "not run"
    reason: str = ""
    build_s: float | None = None
    first_s: float | None = None
    steady_ms: float | None = None
    rel_error: float | None = None


def cases(scenarios: list[sc.Scenario], names: set[str], sizes: list[str]) -> list[Case]:
    """Each size in turn (toy sizes first: they find a broken install in seconds), each scenario's FA4
    variants, inference at its own head dim's largest length, and training at its training point."""
    out = []
    for size in sizes:
        for s in scenarios:
            shaped = sc.tiny(s) if size == "tiny" else s
            runs = [v for v in s.variants_for(vd.resolve(None)) if "fa4" in v.keywords and v.name in names]
            own = [p for p in shaped.points() if p.head_dim == shaped.head_dim]
            for v in runs:
                if own:
                    out.append(Case(s.name, v.name, "inference", size, max(own, key=lambda p: (p.kv_len, p.q_len))))
                if shaped.train_points() and v.train:
                    out.append(Case(s.name, v.name, "train", size, shaped.train_points()[0]))
    return out


def _error(built, case: Case, q, k, v, go) -> float:
    p = case.point
    if case.mode == "inference":
        heads = inputs.check_heads(p)
        with torch.no_grad():
            out = built.fn(q, k, v)
        return inputs.rel_error(out[0, heads], inputs.reference_slice(q, k, v, p, heads))
    q.grad = k.grad = v.grad = None
    built.fn(q, k, v).backward(go)
    groups = p.q_heads // p.kv_heads
    want = inputs.reference_grads(q, k, v, go, p)
    got = (q.grad[0, :groups], k.grad[0, 0], v.grad[0, 0])
    return max(inputs.rel_error(a, b) for a, b in zip(got, want))


def _steady_ms(step) -> float:
    for _ in range(WARMUP):
        step()
    torch.cuda.synchronize()
    ms = []
    for _ in range(CALLS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        step()
        b.record()
        b.synchronize()
        ms.append(a.elapsed_time(b))
    return statistics.median(ms)


def run_case(case: Case, device) -> None:
    v = vd.VARIANTS[case.variant]
    train = case.mode == "train"
    dtype = inputs.DTYPES[sc.SCENARIOS[case.scenario].dtype]
    try:
        t0 = time.perf_counter()
        built = attention.build(v.kind, v.backend, case.point, device)
        q, k, v_ = inputs.make_inputs(case.point, dtype, device, seed=0, grad=train, layout=built.layout)
        go = inputs.grad_output(case.point, dtype, device, seed=7) if train else None
        torch.cuda.synchronize()
        case.build_s = time.perf_counter() - t0
        step = probe.call(built, q, k, v_, go)
        with built.context(), probe.mode_context(train):
            t0 = time.perf_counter()
            step()  # the first call: FA4 compiles this configuration, or Inductor the FLASH kernel
            torch.cuda.synchronize()
            case.first_s = time.perf_counter() - t0
            case.steady_ms = _steady_ms(step)
        with built.context():
            case.rel_error = _error(built, case, q, k, v_, go)
        ok = case.rel_error == case.rel_error and case.rel_error <= TOLERANCE[case.mode]
        case.status = "ok" if ok else "WRONG"
        if not ok:
            case.reason = f"relative error {case.rel_error:.2e} over {TOLERANCE[case.mode]:.0e}"
    except torch.OutOfMemoryError as exc:
        case.status, case.reason = "oom", probe.out_of_memory(exc)
    except Exception as exc:  # a refusal (the extra missing, a shape FA4 refuses, an Inductor error): a row
        case.status, case.reason = "refused", probe.refusal(exc, [])
        if not str(exc).strip():  # a bare assert: the line that failed says what
            case.reason += " at " + traceback.format_exc().strip().splitlines()[-2].strip()[:160]
    finally:
        probe.free(device)


def _num(x, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def table(rows: list[Case]) -> str:
    head = ["scenario", "variant", "mode", "size", "B", "Hq/Hkv", "D", "q", "kv", "mask", "status", "build s",
            "first call s", "steady ms", "rel err"]
    body = [[c.scenario, c.variant, c.mode, c.size, str(c.point.batch), f"{c.point.q_heads}/{c.point.kv_heads}",
             str(c.point.head_dim), str(c.point.q_len), str(c.point.kv_len),
             c.point.mask + (f" {c.point.window}" if c.point.window else ""), c.status, _num(c.build_s, ".2f"),
             _num(c.first_s, ".2f"), _num(c.steady_ms, ".3f"), _num(c.rel_error, ".1e")] for c in rows]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    line = lambda r: "  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip()  # noqa: E731
    out = [line(head), line(["-" * w for w in widths])] + [line(r) for r in body]
    notes = [f"  {c.scenario} {c.variant} {c.mode} {c.size}: {c.reason}" for c in rows if c.reason]
    return "\n".join(out + (["", "reasons:"] + notes if notes else []))


def environment() -> dict:
    env = {"torch": torch.__version__, "cuda": torch.version.cuda,
           "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
    for name in PACKAGES:
        try:
            env[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            env[name] = None  # unpacked by hand (no metadata on PYTHONPATH), or missing
    try:
        from flash_attn import cute  # noqa: F401

        env["flash_attn.cute"] = "imports"
    except Exception as exc:  # said, not raised: every row then says why
        env["flash_attn.cute"] = f"{type(exc).__name__}: {exc}"
    return env


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=("tiny", "real"), help="one size only (default: tiny, then real)")
    ap.add_argument("--scenario", default="all", help="comma list of scenarios, or all")
    ap.add_argument("--variants", default=",".join(v.name for v in vd.with_keyword("fa4")))
    ap.add_argument("--time-limit-s", type=float, default=540.0, help="start no case after this (a call: 600 s)")
    ap.add_argument("--json", type=Path, help="also write the rows and the environment here")
    a = ap.parse_args(argv)
    t_end = time.monotonic() + a.time_limit_s
    env = environment()
    print("environment: " + ", ".join(f"{k} {v}" for k, v in env.items()), flush=True)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type != "cuda":
        print("no GPU: every case is refused (this script is for the GPU machine)", flush=True)
    names = {n.strip() for n in a.variants.split(",") if n.strip()}
    rows = cases(sc.resolve(a.scenario), names, [a.only] if a.only else ["tiny", "real"])
    for i, c in enumerate(rows, 1):
        if time.monotonic() > t_end:
            c.reason = f"not started: past --time-limit-s {a.time_limit_s:.0f}"
            continue
        run_case(c, device)
        print(f"[{i}/{len(rows)}] {c.scenario} {c.variant} {c.mode} {c.size}: {c.status}"
              f" first {_num(c.first_s, '.2f')} s, steady {_num(c.steady_ms, '.3f')} ms, err {_num(c.rel_error, '.1e')}"
              + (f" ({c.reason[:200]})" if c.reason else ""), flush=True)
    print()
    print(table(rows))
    counts = {s: sum(c.status == s for c in rows) for s in ("ok", "refused", "oom", "WRONG", "not run")}
    print("\n" + ", ".join(f"{n} {s}" for s, n in counts.items()))
    if a.json:
        a.json.write_text(json.dumps({"environment": env, "rows": [asdict(c) for c in rows]}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
