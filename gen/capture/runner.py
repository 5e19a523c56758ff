"""Capture: run each variant under torch.profiler and write one result set.

Takes: a list of variants, a shape, a dtype, modes, an output root.
Gives: results/<gpu-slug>__torch-<version>/ (see gen.schema for the layout),
written into a hidden staging folder and renamed into place at the end.
Each variant's run at the article's point is gen.capture.variant_run's, the
scenarios' points gen.capture.sweep's, the machine's description
gen.capture.environment's.

Imports only torch, numpy-free standard library, and the torch-free gen
modules: it must run as-is on the GPU machine (Python 3.12, no registry).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import gc
import json
import shutil
import time
from pathlib import Path

import torch

from gen.capture import (
    ceilings,
    dynamic,
    gpuwork,
    precompile,
    probe,
    staging,
    sweep,
    sweep_limits,
    sweep_plan,
    telemetry,
)
from gen.capture import counters as counter_defs
from gen.capture import progress as progress_defs
from gen.capture.environment import environment, ref_mhz, set_name
from gen.capture.inputs import DTYPES
from gen.capture.probe import LOG as _LOG
from gen.capture.probe import free as _free
from gen.capture.probe import log
from gen.capture.timing import Budget, describe
from gen.capture.variant_run import inplace_autograd_check, run_point, run_variant
from gen.model import layout, schema, trace, trace_digest
from gen.model import scenarios as scenario_defs
from gen.model import variants as variant_defs
from gen.model.variants import Variant


def counter_pass(runs: list[schema.VariantRun], modes: list[str], cfg: schema.RunConfig, device: torch.device,
                 env: schema.Environment, traces: Path | None = None,
                 early=None) -> tuple[schema.Environment, dict[str, float]]:
    """Nsight Compute's counters of one warm call per variant that ran, in
    every mode asked, at the run point, in ONE process of its own
    (gen.capture.counters). `traces`: the folder of the runs' traces, whose
    kernel launches let ncu profile a repeated launch once. Returns the
    environment with ncu's version and the pass's seconds per mode (the
    whole pass on the first). `early`: its ncu process, started before the timings
    (counters.start_early)."""
    groups = {m: [r.variant for r in runs if r.mode == m and r.status == schema.Status.OK] for m in modes}
    groups = {m: names for m, names in groups.items() if names}
    if not groups:
        return env, {}
    _free(device)
    point = next(r.point for r in runs if r.status == schema.Status.OK) or run_point(cfg, cfg.seq_len, cfg.head_dim)
    launches = {}
    for r in runs:
        if traces is not None and r.trace and r.mode in groups and r.variant in groups[r.mode]:
            try:
                launches[counter_defs.job_name(r.mode, r.variant)] = gpuwork.launches_of_trace(traces / r.trace)
            except (OSError, ValueError, trace.TraceError) as exc:  # no dedupe then: every launch is profiled
                log(f"counter pass: the launches of {r.mode} {r.variant} unread ({exc})")
    got = counter_defs.collect_modes(groups, point, cfg.dtype, seed=cfg.seed or 0, device=device.type,
                                     launches=launches, early=early)
    for mode, p in got.items():
        for r in runs:
            if r.mode == mode and r.variant in p.counters:
                r.counters = p.counters[r.variant]
        for line in p.log:
            log(f"  ncu {mode}: {line}")
        kernels = sum(len(c.kernels) for c in p.counters.values())
        reasons = sorted({c.reason for c in p.counters.values() if c.reason})
        log(f"counter pass {mode}: {sum(c.status == 'ok' for c in p.counters.values())}/{len(groups[mode])} "
            f"variants, {kernels} kernels" + (f" ({'; '.join(reasons)})" if reasons else ""))
        if p.ncu_version:
            env = dataclasses.replace(env, ncu=p.ncu_version)
    log(f"counter pass: {', '.join(groups)} in one ncu process, {sum(p.seconds for p in got.values()):.1f} s")
    return env, {m: p.seconds for m, p in got.items()}



# --------------------------------------------------------------------------- the whole run


def _fingerprint(cfg: schema.RunConfig, scenarios, modes, budget: Budget, counters: bool,
                 env: schema.Environment) -> dict:
    """What must match for --resume to continue a partial capture, in the form meta.json holds it
    (JSON's: a scenario's packed documents are a tuple when made and a list when read back, and
    compared so they would differ)."""
    return json.loads(json.dumps({
        "config": dataclasses.asdict(cfg),
        "scenarios": [dataclasses.asdict(s.record(modes)) for s in scenarios],
        "budget": dataclasses.asdict(budget),
        "counters": counters,
        "gpu": env.gpu_name, "torch": env.torch, "driver": env.driver, "cuda": env.cuda,
        "schema_version": schema.SCHEMA_VERSION,
    }))


def _burst_points(env: schema.Environment) -> set:
    """(scenario, variant, mode, point) that a reference set of this GPU
    publishes (gen.model.anchors): also timed as their publisher did."""
    if env.gpu_name is None:
        return set()
    from gen.model import anchors

    slug = layout.name_slug(env.gpu_name)
    out = set()
    for ref in anchors.build_all():
        if not ref.name.startswith(slug + "__"):
            continue
        for p in ref.sweep:
            out.add((p.scenario, p.variant, p.mode, p.point))
    return out


def _bring_up_clocks(device: torch.device) -> None:
    """A second of matrix products, so that the first variant does not pay for the clocks' ramp."""
    a = torch.randn(4096, 4096, device=device, dtype=torch.bfloat16)
    t_end = time.perf_counter() + 1.0
    while time.perf_counter() < t_end:
        for _ in range(20):
            a @ a
        torch.cuda.synchronize()
    del a


def profile(variants: list[Variant], shape: tuple[int, int, int, int], dtype: str, modes: list[str],
            out_root: Path, force: bool = False, label: str | None = None, budget: Budget | None = None,
            sweep_seqs: list[int] | None = None, sweep_dims: list[int] | None = None,
            time_limit_s: float = 3600.0, seed: int = 0, if_missing: bool = False,
            scenarios: list[scenario_defs.Scenario] | None = None, counters: bool = True,
            resume: bool = False, started: float | None = None) -> Path:
    """Run everything asked for and publish one result set; returns its path.
    `scenarios` (gen.model.scenarios, shaped by the CLI) say what is swept;
    without them, the article's at `shape`, swept over sweep_seqs x sweep_dims.
    The profiled runs are the article's run point, when it is among them.
    Every finished item is kept in a staging area (gen.capture.staging) as it
    ends; `resume` continues a partial capture there. `started`: when the
    process began the capture (time.monotonic()), for the time by stage."""
    t_start = time.monotonic()
    session_start = started if started is not None else t_start
    _LOG.clear()
    # The objects of the imports (torch's are hundreds of thousands) are left out of every
    # collection from here on: each free() between runs then takes a millisecond, not 0.1-0.3 s.
    gc.freeze()
    budget = budget or Budget()
    if dtype not in DTYPES:
        raise schema.UserError(f"--dtype: {dtype!r} is not one of {', '.join(DTYPES)}")
    env = environment()
    device = torch.device("cuda" if env.device == "cuda" else "cpu")
    if device.type == "cpu":
        log("no GPU found (torch.cuda.is_available() is False): profiling the CPU side only; "
            "variants that need CUDA are recorded as unavailable")
    name = set_name(env, label)
    final = Path(out_root) / name
    if final.exists() and if_missing:
        log(f"{final} exists: nothing to profile")
        return final
    if final.exists() and not force:
        raise schema.UserError(f"{final}: result set exists; pass --force to replace it, or --label to keep both")
    B, H, S, D = shape
    cfg = schema.RunConfig(
        batch=B, heads=H, seq_len=S, head_dim=D, dtype=dtype, modes=list(modes),
        variants=[v.name for v in variants], warmup_min=budget.warmup_min, repeats=budget.repeats,
        profile_wait=1, profile_warmup=1, profile_active=3, error_draws=3, seed=seed,
    )
    if scenarios is None:
        dims = [D] + [d for d in (sweep_dims or []) if d != D]
        scenarios = [scenario_defs.with_overrides(
            scenario_defs.SCENARIOS[scenario_defs.ARTICLE], batch=B, heads=H, run_length=S, head_dims=dims,
            lengths=sweep_seqs or [], dtype=dtype)]
    layout.recover(Path(out_root))  # what a killed run left: restored or removed, and said
    sampler = telemetry.Sampler(device) if device.type == "cuda" else telemetry.Sampler(device)
    env = dataclasses.replace(env, nvml=sampler.version or sampler.reason, sm_clock_max_mhz=sampler.sm_clock_max_mhz,
                              power_limit_w=sampler.power_limit_w, ref_mhz=ref_mhz(env, sampler),
                              power_reading=sampler.power_reading)
    store = staging.Store(Path(out_root), name)
    fingerprint = _fingerprint(cfg, scenarios, modes, budget, counters, env)
    if store.exists() and not resume:
        if not force:
            raise schema.UserError(
                f"{store.path}: a partial capture of {store.count()} items is there; pass --resume to continue "
                f"it, or --force to start over")
        store.remove()
    if resume and store.exists() and _another_host(store, env, force):
        store.remove()
    if resume and store.exists():
        meta = store.meta()
        diff = staging.differences(meta.get("fingerprint", {}), fingerprint)
        if diff:
            raise schema.UserError(f"--resume: the partial capture at {store.path} was asked with other options "
                                   f"(they differ in: {', '.join(diff)}); run it with the same options, or "
                                   f"with --force to start over")
        env_first = staging.load(schema.Environment, meta["environment"], str(store.path / "meta.json"))
        env = dataclasses.replace(env_first, nvml=env.nvml, sm_clock_max_mhz=env.sm_clock_max_mhz,
                                  power_limit_w=env.power_limit_w, ref_mhz=env.ref_mhz,
                                  power_reading=env.power_reading)
        session = int(meta.get("sessions", 1)) + 1
        meta["sessions"] = session
        layout.atomic_write_text(store.path / "meta.json", json.dumps(meta, indent=1, sort_keys=True) + "\n")
    else:
        if resume:
            log(f"--resume: no partial capture at {store.path}: starting one")
        store.create({"fingerprint": fingerprint, "environment": dataclasses.asdict(env), "sessions": 1})
        session = 1
    probe.LOG_FILE[:] = [store.path / "capture.log"]
    staging_dir = store.path
    sampler.start()
    try:
        return _capture(variants, modes, cfg, scenarios, budget, counters, env, device, store, staging_dir,
                        sampler, final, force, session, session_start, t_start, time_limit_s, seed)
    finally:
        sampler.close()
        probe.LOG_FILE.clear()


def _another_host(store: staging.Store, env: schema.Environment, force: bool) -> bool:
    """The partial capture was measured on another host (its meta.json names another GPU, CPU,
    platform or software): refused, naming the fields, unless force (then True: it is started over).
    Continued, its points would be published as this host's."""
    moved = staging.other_host(store.meta().get("environment"), env)
    if not moved:
        return False
    what = "; ".join(moved)
    if not force:
        raise schema.UserError(f"--resume: the partial capture at {store.path} was measured on another host "
                               f"({what}); resume it there, or pass --force to start over here")
    log(f"--resume --force: the partial capture at {store.path} was measured on another host ({what}): "
        f"starting over")
    return True


def _run_steps(variants, modes, scenarios) -> list:
    with_runs = any(s.run_length for s in scenarios)
    return [(m, v) for m in modes for v in variants] if with_runs else []


def _counters_stage(runs, modes, cfg, device, env, store, progress, traces: Path,
                    early=None) -> schema.Environment:
    """The counter pass for the modes whose counters are not kept yet; one staging item per mode."""
    todo = []
    for mode in modes:
        key = staging.key_of("counters", mode)
        kept = store.get(key)
        if kept is None:
            todo.append(mode)
            continue
        for r in runs:
            if r.mode == mode and r.variant in kept["record"]:
                r.counters = staging.load(schema.Counters, kept["record"][r.variant], key)
        if kept.get("ncu"):
            env = dataclasses.replace(env, ncu=kept["ncu"])
    if not todo:
        return env
    env, seconds = counter_pass(runs, todo, cfg, device, env, traces, early)
    for mode in todo:
        got = {r.variant: dataclasses.asdict(r.counters) for r in runs if r.mode == mode and r.counters is not None}
        store.put(staging.key_of("counters", mode), {"kind": "counters", "stage": "counters", "record": got,
                                                     "ncu": env.ncu, "seconds": seconds.get(mode, 0.0)})
        progress.done("counters", seconds.get(mode, 0.0))
    return env


def _compile_ahead(steps, run_keys, jobs, cfg, device, store, staging_dir, seed) -> tuple[dict, float]:
    """FlexAttention's runs and sweep points not kept yet, compiled in side processes
    (gen.capture.precompile) before anything is timed: ({key: the side process's first call s},
    seconds waited). Nothing on a CPU, or where Inductor's FX graph cache is off (nothing would be
    reused)."""
    if device.type != "cuda":
        return {}, 0.0
    import torch._inductor.config as inductor_config

    if not inductor_config.fx_graph_cache:
        log("compile ahead: Inductor's FX graph cache is off, so the capture compiles every point itself")
        return {}, 0.0
    def todo(v, mode, key) -> bool:  # a FlexAttention call that runs in this mode and is not kept yet
        return precompile.wanted(v) and (mode != "train" or v.train) and store.get(key) is None

    point = run_point(cfg, cfg.seq_len, cfg.head_dim)
    first = [precompile.spec_of(key, v.kind, v.backend, mode, cfg.dtype, point, cfg.seed or 0)
             for (mode, v), key in zip(steps, run_keys) if todo(v, mode, key)]
    rest = [precompile.spec_of(key, j.variant.kind, j.variant.backend, j.mode, j.scenario.dtype, j.point, seed)
            for j, key in ((j, sweep_plan.job_key(j)) for j in jobs) if todo(j.variant, j.mode, key)]
    if not first and not rest:
        return {}, 0.0
    t0 = time.monotonic()
    try:
        ahead = precompile.start(first, rest, staging_dir / "compile_ahead")
    except OSError as exc:  # no side process could start: the capture compiles every point itself
        log(f"compile ahead: no side process started ({exc}); the capture compiles every point itself")
        return {}, 0.0
    log(f"compile ahead: {len(first) + len(rest)} FlexAttention calls in {len(ahead.procs)} side processes")
    precompile.prepare_imports()  # this process's own first compile of FlexAttention then skips them
    try:
        got = ahead.wait(log=log)
    finally:
        ahead.stop()
    waited = time.monotonic() - t0
    log(f"compile ahead: {len(got)} of {len(first) + len(rest)} compiled in {waited:.1f} s")
    return got, waited


def _capture(variants, modes, cfg, scenarios, budget, counters, env, device, store, staging_dir, sampler, final,
             force, session, session_start, t_start, time_limit_s, seed) -> Path:
    B, H, S, D = cfg.batch, cfg.heads, cfg.seq_len, cfg.head_dim
    log(f"profiling into {final} on {env.gpu_name or 'CPU'} with torch {env.torch}, "
        f"shape B={B} H={H} S={S} D={D} {cfg.dtype}" + (f" (session {session}: resumed, "
                                                        f"{store.count()} items kept)" if session > 1 else ""))
    if not sampler.ok:
        log(f"telemetry {sampler.reason}")
    steps = _run_steps(variants, modes, scenarios)
    run_keys = [staging.key_of("run", "article", m, v.name) for m, v in steps]
    series = sweep_plan.plan(variants, scenarios, modes)
    jobs = [j for s in series for j in s]
    todo = {"runs": sum(store.get(k) is None for k in run_keys)}
    if counters and steps:
        todo["counters"] = sum(store.get(staging.key_of("counters", m)) is None for m in modes)
    if jobs:
        todo["ceilings"] = int(store.get("ceilings") is None)
        for j in jobs:
            if store.get(sweep_plan.job_key(j)) is None:
                todo[f"sweep {j.scenario.name}"] = todo.get(f"sweep {j.scenario.name}", 0) + 1
    for s in scenarios:
        for phase in s.dynamic_points():
            left = sum(store.get(staging.key_of("dynamic", phase, v.name)) is None for v in s.variants_for(variants))
            todo[f"sweep {s.name}"] = todo.get(f"sweep {s.name}", 0) + left
    progress = progress_defs.Progress(todo)
    bursts = _burst_points(env)
    waited = 0.0
    early = None
    pending = None
    if counters and steps and device.type == "cuda" and any(
            store.get(staging.key_of("counters", m)) is None for m in modes):
        # Started now, so that ncu's query of its metrics and its program's imports overlap the
        # compiles ahead; it waits for the counter pass before it touches the GPU. A thread: the
        # query is a subprocess, waited on without the GIL.
        pool = concurrent.futures.ThreadPoolExecutor(1)
        pending = pool.submit(counter_defs.start_early, {m: [v.name for mm, v in steps if mm == m] for m in modes},
                              run_point(cfg, cfg.seq_len, cfg.head_dim), cfg.dtype, cfg.seed or 0)
        pool.shutdown(wait=False)  # the one task still runs; the thread ends with it
    try:
        try:
            ahead, waited = _compile_ahead(steps, run_keys, jobs, cfg, device, store, staging_dir, seed)
        finally:
            early = pending.result() if pending is not None else None
        if waited:
            store.put(f"overhead__{session}__compile_ahead", {"kind": "overhead", "stage": "compile ahead",
                                                              "seconds": waited})
        if device.type == "cuda" and sum(todo.values()):
            _bring_up_clocks(device)
        store.put(f"overhead__{session}__start", {"kind": "overhead", "stage": "start",
                                                  "seconds": time.monotonic() - session_start - waited})
        runs = []
        for i, ((mode, v), key) in enumerate(zip(steps, run_keys), 1):
            kept = store.get(key)
            if kept is not None:
                r = staging.load(schema.VariantRun, kept["record"], f"{store.path}/items/{key}.json")
                runs.append(r)
                log(f"[{i}/{len(steps)}] {mode} {v.name}: {r.status} (kept from an earlier session)")
                continue
            t0 = time.monotonic()
            burst = ("article", v.name, mode, run_point(cfg, cfg.seq_len, cfg.head_dim)) in bursts
            r = run_variant(v, mode, cfg, device, budget, staging_dir, sampler=sampler, burst=burst,
                            ahead_s=ahead.get(key))
            if mode == "train" and v.role == variant_defs.Role.INPLACE and r.status == "ok":
                r.inplace_autograd = inplace_autograd_check(cfg, device)
            runs.append(r)
            seconds = time.monotonic() - t0
            store.put(key, {"kind": "run", "stage": "runs", "record": dataclasses.asdict(r), "seconds": seconds})
            progress.done("runs", seconds)
            what = r.reason if r.status != "ok" else (
                f"{describe(r.timing)}, "
                f"err {max(r.rel_errors) if r.rel_errors else float('nan'):.2e}"
            )
            log(f"[{i}/{len(steps)}] {mode} {v.name}: {r.status} ({what}) in {seconds:.1f} s, {progress.suffix()}")
        if counters and runs:
            env = _counters_stage(runs, modes, cfg, device, env, store, progress, staging_dir, early)
        rs = schema.ResultSet(schema.SCHEMA_VERSION, final.name, env, cfg, runs)
        rs.scenarios = [s.record(modes) for s in scenarios]
        if jobs:
            kept = store.get("ceilings")
            if kept is None:
                log("measuring the GPU's ceilings")
                t0 = time.monotonic()
                rs.ceilings = ceilings.ceilings(device, sampler)
                seconds = time.monotonic() - t0
                store.put("ceilings", {"kind": "ceilings", "stage": "ceilings", "seconds": seconds,
                                       "record": dataclasses.asdict(rs.ceilings) if rs.ceilings else None})
                progress.done("ceilings", seconds)
            elif kept["record"] is not None:
                rs.ceilings = staging.load(schema.Ceilings, kept["record"], "ceilings")
            # The sweep stops starting points once the run's time limit nears,
            # keeping time to write the set; points not reached say so.
            rs.sweep = sweep.run_sweep(variants, scenarios, modes, device, staging_dir, t_start + time_limit_s,
                                       seed=seed, budget=sweep.budget_for(budget), store=store, sampler=sampler,
                                       progress=progress, bursts=bursts, ahead=ahead)
        for s in scenarios:
            if s.dynamic_points():
                deadline = t_start + time_limit_s - sweep_limits.WRITE_MARGIN_S
                got, switches = dynamic.run(variants, s, device, store, deadline, seed=seed, progress=progress)
                rs.dynamic += got
                rs.switches += switches
    finally:
        progress.close()
        if early is not None:
            early.stop()
    t0 = time.monotonic()
    # The traces digested once, here, so that no build parses them (gen.model.trace_digest); published
    # with the set. A trace that does not parse is left out of it, and the set still published: the
    # build names the trace.
    rels = trace_digest.trace_files(rs)
    digest, bad = trace_digest.dumps(staging_dir, rels, skip_bad=True)
    for msg in bad:
        log(f"note: left out of the trace digest: {msg}")
    log(f"digested {len(rels) - len(bad)} of {len(rels)} traces into {trace_digest.FILE} in "
        f"{time.monotonic() - t0:.1f} s")
    stages: dict[str, float] = {}
    for item in store.all().values():
        stage = item.get("stage")
        if stage:
            stages[stage] = stages.get(stage, 0.0) + float(item.get("seconds", 0.0))
    rs.stage_seconds = {k: round(v, 3) for k, v in stages.items()}
    rs.duration_s = sum(stages.values()) + (time.monotonic() - t0)
    for line in progress_defs.summary(rs.stage_seconds):
        log(line)
    log(f"finished in {rs.duration_s:.0f} s")
    publish = layout.make_staging(final.parent, final.name)
    try:
        (publish / schema.TRACE_DIR).mkdir()
        for rec in [*rs.runs, *rs.sweep]:
            if rec.trace:
                shutil.copy2(staging_dir / rec.trace, publish / rec.trace)
        layout.atomic_write_bytes(publish / trace_digest.FILE, digest)
        layout.atomic_write_text(publish / "capture.log", (staging_dir / "capture.log").read_text(encoding="utf-8"))
        layout.atomic_write_text(publish / schema.RESULT_FILE, schema.dumps(rs))
        layout.publish_set(publish, final, force)
    finally:
        shutil.rmtree(publish, ignore_errors=True)
    probe.LOG_FILE.clear()
    store.remove()
    log(f"wrote {final} in {rs.duration_s:.0f} s")
    return final
