"""The dynamic-lengths scenario: what a variant's first call at each new length costs.

Takes: variants, the scenario (gen.model.scenarios, its `dynamic_points()`), a device, a staging
store and a deadline. Gives: `run(...) -> (list[schema.DynamicRun], list[schema.SwitchProbe])`.

For each variant and phase (prefill at a run of new lengths; decode with a cache one token longer
at each step), at each length in turn: the call is made (`build_ms`; FlexAttention's block mask apart in `mask_ms`),
then its first call and its second are timed on a wall clock with the device drained before and after
(plan building, loading and compiles included), then its steady cost in a Python loop (the median of a
few back-to-back calls, CUDA events) and its GPU-only time (a CUDA graph of GRAPH_CALLS warm calls,
replayed). What a new length costs and the break-even counts are the analysis's
(gen.analysis.dynamic), from these raw times: one definition, not two.

The switch probe: PyTorch PR 155958 adds TORCH_CUDNN_SDPA_AVOID_RECOMPILE, read when cuDNN's SDPA
first runs, so the cuDNN prefill run is repeated in a subprocess with it set (`python -m
gen.capture.dynamic SPEC`), and whether this PyTorch's libraries name the variable at all is read
from their bytes.

Compiled variants run as a server runs them: FlexAttention (Triton and FLASH backends) through one
`torch.compile(flex_attention)` kept across every length of a run, with dynamo's automatic dynamic
shapes and a block mask built per length (`mask_ms`); FlashAttention-4 through its own
per-configuration cache of compiled kernels, which lives in the process. The naive product compiled is
not run: its module holds a mask of one length, so each length would be a new module and a new compile.
Imports torch, the standard library and gen.model.
"""

from __future__ import annotations

import dataclasses
import json
import mmap
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

from gen.capture import extras, probe, staging
from gen.capture.attention import build
from gen.capture.inputs import DTYPES, make_inputs
from gen.capture.timers import NO_GPU, timer_for
from gen.capture.timing import first_line
from gen.model import scenarios as scenario_defs
from gen.model import schema
from gen.model.variants import VARIANTS, Variant

STEADY_CALLS = 10  # back-to-back warm calls whose median is the steady cost
# Warm calls in the CUDA graph of a length's GPU-only time, and its timed replays (the median is kept):
# enough calls that a replay of the smallest (a decode step, some microseconds) is not launch-bound
GRAPH_CALLS, GRAPH_REPLAYS = 20, 5
SWITCH = "TORCH_CUDNN_SDPA_AVOID_RECOMPILE"
SWITCH_VARIANT = "sdpa_cudnn"
SWITCH_TIMEOUT_S = 300
# The switch's first calls against those without it: below LOWER, it lowers them; above HIGHER, it
# raises them; between, no effect (first calls at a new length vary by tens of percent run to run).
LOWER, HIGHER = 0.7, 1.3
COMPILED_NOT_RUN = ("not run: the compiled naive product holds a mask of one length, so every new length is a new "
                    "module and a new compile, which no server would do; not measured")
# Variants whose module calls a compiled `flex_attention` held in `.flex`: one compiled function is
# kept across the lengths of a run, as a server keeps one.
SHARED_FLEX = ("flex", "flex_flash")


def _server_flex():
    """flex_attention compiled once for all lengths. fullgraph: past dynamo's recompile limit a call
    raises (its reason recorded) instead of running the unfused fallback; dynamic left to dynamo
    (automatic dynamic shapes after the second length), as a server's compiled function is."""
    from torch.nn.attention.flex_attention import flex_attention

    return torch.compile(flex_attention, fullgraph=True)


def _wall_ms(fn, device) -> float:
    probe.sync(device)
    t0 = time.perf_counter()
    fn()
    probe.sync(device)
    return (time.perf_counter() - t0) * 1e3


def one_length(v: Variant, point: schema.Point, dtype: str, device, seed: int,
               shared: dict | None = None) -> schema.LengthCost:
    """The costs of one variant at one new length; a refusal or an OOM is its reason. `shared`: the
    run's compiled function for a SHARED_FLEX variant, made at its first length and reused after."""
    lc = schema.LengthCost(q_len=point.q_len, kv_len=point.kv_len)
    caught: list = []
    try:
        t0 = time.perf_counter()
        first = shared is None or "flex" not in shared
        built = build(v.kind, v.backend, point, device, fresh=first)
        if shared is not None:
            if first:
                shared["flex"] = _server_flex()
            built.fn.flex = shared["flex"]
        lc.build_ms = (time.perf_counter() - t0) * 1e3
        mask_s = getattr(built.fn, "facts", {}).get("block_mask_build_s")
        lc.mask_ms = mask_s * 1e3 if mask_s is not None else None
        q, k, v_ = make_inputs(point, DTYPES[built.dtype or dtype], device, seed, layout=built.layout)
        with built.context(), torch.no_grad():
            def call():
                return built.fn(q, k, v_)

            lc.first_ms = _wall_ms(call, device)
            lc.second_ms = _wall_ms(call, device)
            lc.steady_ms = statistics.median(timer_for(device).loop_ms(call, STEADY_CALLS))
            lc.gpu_ms, lc.gpu_reason = gpu_only_ms(call, device)
    except torch.OutOfMemoryError as exc:
        lc.reason = probe.out_of_memory(exc)
    except Exception as exc:  # noqa: BLE001 - a refusal at this length: its reason, not a crash
        lc.reason = probe.refusal(exc, caught)
    finally:
        probe.free(device, collect=False)
    return lc


def gpu_only_ms(call, device) -> tuple[float | None, str | None]:
    """A warm call's GPU-only time at this length (ms a call: a CUDA graph of GRAPH_CALLS calls, the median of
    GRAPH_REPLAYS replays), or (None, why not)."""
    timer = timer_for(device)
    if not timer.gpu:
        return None, NO_GPU
    try:
        graph = timer.capture(call, GRAPH_CALLS)
    except Exception as exc:  # noqa: BLE001 - a call that cannot be captured: its reason
        return None, first_line(exc)
    try:
        timer.replay_ms(graph, 1)  # the first replay uploads the graph
        return statistics.median(timer.replay_ms(graph, GRAPH_REPLAYS)) / GRAPH_CALLS, None
    finally:
        timer.release(graph)


def run_variant(v: Variant, phase: str, points: list[schema.Point], dtype: str, device, seed: int,
                deadline: float, env: dict | None = None) -> schema.DynamicRun:
    run = schema.DynamicRun(variant=v.name, phase=phase, status=schema.Status.OK.value, point=points[0],
                            env=dict(env or {}))
    if v.compiled and v.kind not in SHARED_FLEX and not v.kind.startswith("fa4"):
        run.status, run.reason = schema.Status.SKIPPED.value, COMPILED_NOT_RUN
        return run
    if (why := extras.missing(v)) is not None:  # before the time limit: the reason it cannot run at any length
        run.status, run.reason = schema.Status.UNAVAILABLE.value, why
        return run
    shared = {} if v.kind in SHARED_FLEX else None
    for pt in points:
        if time.monotonic() > deadline:
            run.reason = f"stopped at {pt.kv_len} tokens: the run's time limit was reached"
            break
        lc = one_length(v, pt, dtype, device, seed, shared)
        run.lengths.append(lc)
        if lc.reason is not None and not any(x.steady_ms is not None for x in run.lengths):
            break  # refused at its first length: the others would say the same
    ok = [x for x in run.lengths if x.steady_ms is not None and x.first_ms is not None]
    if not ok:
        run.status = schema.Status.UNAVAILABLE.value
        run.reason = next((x.reason for x in run.lengths if x.reason), run.reason or "no length measured")
        return run
    run.steady_ms = statistics.median(x.steady_ms for x in ok)
    return run


def switch_present(name: str = SWITCH) -> bool | None:
    """Does any of torch's shared libraries hold the variable's name? None: none could be read."""
    lib = Path(torch.__file__).parent / "lib"
    needle, read = name.encode(), False
    for path in sorted(lib.glob("*.so*")) if lib.is_dir() else []:
        try:
            with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                read = True
                if m.find(needle) >= 0:
                    return True
        except (OSError, ValueError):
            continue
    return False if read else None


def _in_subprocess(spec: dict, env: dict) -> schema.DynamicRun:
    out = subprocess.run([sys.executable, "-m", "gen.capture.dynamic", json.dumps(spec)], capture_output=True,
                         text=True, timeout=SWITCH_TIMEOUT_S, env={**os.environ, **env})
    if out.returncode != 0:
        raise RuntimeError(f"the switch's subprocess failed ({out.returncode}): "
                           f"{(out.stderr.strip().splitlines() or ['no output'])[-1]}")
    return staging.load(schema.DynamicRun, json.loads(out.stdout.strip().splitlines()[-1]), "switch subprocess")


def probe_switch(without: schema.DynamicRun | None, points: list[schema.Point], dtype: str, seed: int,
                 device) -> tuple[schema.SwitchProbe, schema.DynamicRun | None]:
    """SWITCH set in a subprocess for the cuDNN prefill run, compared with the run without it (the
    first length left out of both: the subprocess's first cuDNN call also loads cuDNN)."""
    probe_rec = schema.SwitchProbe(name=SWITCH, value="1", present=switch_present())
    if device.type != "cuda" or without is None or without.status != schema.Status.OK:
        probe_rec.effect = "not measured: " + ("no GPU" if device.type != "cuda" else
                                                f"no {SWITCH_VARIANT} prefill run to compare with")
        return probe_rec, None
    spec = {"variant": SWITCH_VARIANT, "phase": "prefill", "dtype": dtype, "seed": seed,
            "points": [dataclasses.asdict(p) for p in points]}
    try:
        with_run = _in_subprocess(spec, {SWITCH: "1"})
    except (OSError, subprocess.SubprocessError, RuntimeError, ValueError, schema.UserError) as exc:
        probe_rec.effect = f"not measured: {first_line(exc)}"
        return probe_rec, None

    def later(r):
        return [x.first_ms for x in r.lengths[1:] if x.first_ms is not None]

    a, b = later(without), later(with_run)
    if not a or not b:
        probe_rec.effect = "not measured: no first call past the first length in one of the two runs"
        return probe_rec, with_run
    ratio = statistics.median(b) / statistics.median(a)
    word = "lower first calls" if ratio < LOWER else "higher first calls" if ratio > HIGHER else "no effect"
    probe_rec.effect = word
    probe_rec.detail = (f"median first call at lengths 2-{len(points)}: {statistics.median(b):.2f} ms with "
                        f"{SWITCH}=1 against {statistics.median(a):.2f} ms without ({ratio:.2f}x)")
    return probe_rec, with_run


def run(variants: list[Variant], scenario: scenario_defs.Scenario, device, store, deadline: float, seed: int = 0,
        progress=None, log=probe.log) -> tuple[list[schema.DynamicRun], list[schema.SwitchProbe]]:
    """Every variant over every phase's new lengths; each run kept in `store` as it ends; the switch probe."""
    runs: list[schema.DynamicRun] = []
    points = scenario.dynamic_points()
    for phase, pts in points.items():
        for v in scenario.variants_for(variants):
            key = staging.key_of("dynamic", phase, v.name)
            kept = store.get(key) if store is not None else None
            if kept is not None:
                runs.append(staging.load(schema.DynamicRun, kept["record"], key))
                continue
            t0 = time.monotonic()
            r = run_variant(v, phase, pts, scenario.dtype, device, seed, deadline)
            seconds = time.monotonic() - t0
            if store is not None:
                store.put(key, {"kind": "dynamic", "stage": f"sweep {scenario.name}", "seconds": seconds,
                                "record": dataclasses.asdict(r)})
            if progress is not None:
                progress.done(f"sweep {scenario.name}", seconds)
            runs.append(r)
            log(f"  {scenario.name} {phase} {v.name}: " + (
                f"{len(r.lengths)} lengths in {seconds:.1f} s, {_summary(r)}" if r.status == schema.Status.OK
                else f"{r.status} ({r.reason})"))
    switches = []
    if "prefill" in points and any(v.name == SWITCH_VARIANT for v in scenario.variants_for(variants)):
        switches = [_switch_stage(runs, points["prefill"], scenario, device, store, seed, log)]
    return runs, switches


def _summary(r: schema.DynamicRun) -> str:
    """The log's line of raw times: first and second calls (wall clock), steady loop call and GPU-only time,
    each the median over the lengths (the analysis, not this, says what a new length costs)."""
    def med(name):
        xs = [getattr(c, name) for c in r.lengths if getattr(c, name) is not None]
        return f"{statistics.median(xs):.4f}" if xs else "-"
    return (f"medians: first {med('first_ms')} ms, second {med('second_ms')}, loop call {med('steady_ms')}, "
            f"GPU-only {med('gpu_ms')}, block mask {med('mask_ms')}")


def _switch_stage(runs: list, points: list, scenario, device, store, seed: int, log) -> schema.SwitchProbe:
    """The switch probe, kept in `store`; its run with the switch set is added to `runs`."""
    kept = store.get("switch") if store is not None else None
    if kept is not None:
        if kept["record"]["run"] is not None:
            runs.append(staging.load(schema.DynamicRun, kept["record"]["run"], "switch"))
        return staging.load(schema.SwitchProbe, kept["record"]["probe"], "switch")
    without = next((r for r in runs if r.phase == "prefill" and r.variant == SWITCH_VARIANT and not r.env), None)
    t0 = time.monotonic()
    sw, with_run = probe_switch(without, points, scenario.dtype, seed, torch.device(device))
    if store is not None:
        store.put("switch", {"kind": "switch", "stage": f"sweep {scenario.name}", "seconds": time.monotonic() - t0,
                             "record": {"probe": dataclasses.asdict(sw),
                                        "run": None if with_run is None else dataclasses.asdict(with_run)}})
    if with_run is not None:
        runs.append(with_run)
    log(f"  {scenario.name}: {SWITCH} in torch's libraries: {sw.present}; {sw.effect}"
        + (f" ({sw.detail})" if sw.detail else ""))
    return sw


def _main(argv: list[str]) -> None:
    """The switch's subprocess: one variant's run from a JSON spec; its DynamicRun as the last line."""
    spec = json.loads(argv[0])
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    points = [staging.load(schema.Point, p, "spec") for p in spec["points"]]
    env = {SWITCH: os.environ[SWITCH]} if SWITCH in os.environ else {}
    r = run_variant(VARIANTS[spec["variant"]], spec["phase"], points, spec["dtype"], device, spec["seed"],
                    deadline=time.monotonic() + SWITCH_TIMEOUT_S, env=env)
    print(json.dumps(dataclasses.asdict(r)))


if __name__ == "__main__":
    _main(sys.argv[1:])
