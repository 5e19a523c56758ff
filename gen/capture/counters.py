"""Hardware counters of one warm call per variant, read by Nsight Compute.

Takes: variants per mode, a point, a dtype. Gives: `collect_modes(...) ->
{mode: Pass}` (`collect(...)` for one mode), a `schema.Counters` per variant (ok with one `KernelCounters` per kernel launch,
in launch order from 0, or unavailable with the reason), ncu's version and
the seconds the pass took. A pass of its own, after the runs are timed (before the sweep): ncu replays
every kernel many times, so nothing measured here is timed elsewhere.

How: `ncu --clock-control none` (the clocks are never changed) runs
gen.capture.ncu_target, which makes one warm call per variant and mode inside an NVTX
start/end range `gen.<mode>__<variant>` (every mode in one process); `--nvtx-include` profiles only the kernels
launched inside those ranges. The report is exported with `ncu --import
--csv --page raw` (metrics) and `--page details` (rules fired, with their
estimated speed-up) and read with the csv module. Where the raw page names
no range, each variant gets a process of its own.

A call whose launches all repeat launches of earlier calls in its mode is not profiled:
where the runs' traces give each call's kernel launches (name, grid, block,
shared memory, in launch order), such a call (SDPA with no backend pinned,
the twin of pinned cuDNN; the in-place naive forward) takes the counters of
those earlier launches, each naming the launch it repeats in `same_as`: the
same kernel at the same launch shape on inputs of the same shapes, whose
counters ncu reads with the caches flushed before every pass. The earlier
calls' rows are checked against their traces (count, grid, block and shared memory); where
they do not match, the calls that copy from them are profiled after all.
(Nsight Compute's own `--filter-mode per-launch-config --launch-count 1`
was tried on the H200 and dropped: at the article's run point it profiled 37
launches where 45 differ by kernel, grid, block or shared memory, and 7 of
the 18 calls' rows did not match their traces, so its notion of a launch
configuration is not this one.)

Metrics: Nsight Compute's sections below, plus, where this ncu knows them
(`ncu --query-metrics`), the L2 hit rate and tensor pipe utilisation
(TENSOR_PIPES: all tensor pipes, wgmma and mma.sync alike).
Imports the standard library and gen.model only (ncu runs as a subprocess).
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gen.model import schema

# Few sections: every metric costs replay passes of every kernel. The L2 hit
# rate and tensor pipes are asked for by name (EXTRA, TENSOR_PIPES) instead of
# through the memory and compute workload sections.
SECTIONS = ["SpeedOfLight", "Occupancy", "LaunchStats"]
# The first metric of each list that the raw page holds fills the field.
FIELDS = {
    "duration_ns": ["gpu__time_duration.sum"],
    "achieved_occupancy_pct": ["sm__warps_active.avg.pct_of_peak_sustained_active"],
    "theoretical_occupancy_pct": ["sm__maximum_warps_per_active_cycle_pct"],
    "registers_per_thread": ["launch__registers_per_thread"],
    "sm_throughput_pct": ["sm__throughput.avg.pct_of_peak_sustained_elapsed"],
    "dram_throughput_pct": ["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                            "dram__throughput.avg.pct_of_peak_sustained_elapsed"],
    "l2_hit_rate_pct": ["lts__t_sector_hit_rate.pct"],
}
SHARED_MEMORY = ["launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic"]
# Blocks per SM each resource allows: the smallest limits occupancy.
LIMITS = {
    "registers": "launch__occupancy_limit_registers",
    "shared_memory": "launch__occupancy_limit_shared_mem",
    "warps": "launch__occupancy_limit_warps",
    "blocks": "launch__occupancy_limit_blocks",
}
# Tensor pipe utilisation, the first of these this ncu knows. On H200 with
# ncu 2025.3 no metric counts the wgmma (HGMMA) pipe alone:
# sm__pipe_tensor_cycles_active counts every tensor pipe, wgmma and mma.sync.
TENSOR_PIPES = [
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
]
EXTRA = ["lts__t_sector_hit_rate.pct"]
RULE_TYPES_KEPT = {"OPT", "WRN"}  # advice and warnings; INF rules only inform
RANGE_RE = re.compile(r"gen\.([A-Za-z0-9_]+)")
TIMEOUT_ENV = "GEN_NCU_TIMEOUT_S"  # seconds one ncu process may take, per mode
DEFAULT_TIMEOUT_S = 600.0


def timeout_s() -> float:
    """TIMEOUT_ENV's seconds, else DEFAULT_TIMEOUT_S; anything but a positive finite number is a
    one-line error naming the variable. Read only where counters are read (not with --no-counters)."""
    raw = os.environ.get(TIMEOUT_ENV)
    if raw is None:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value < 10**7:  # NaN too; past 10^7 s (4 months) subprocess's timeout overflows
        raise schema.UserError(f"{TIMEOUT_ENV}={raw!r}: expected a positive number of seconds (default "
                               f"{DEFAULT_TIMEOUT_S:.0f}), or unset it")
    return value
KEEP_ENV = "GEN_NCU_KEEP"  # a folder: keep the .ncu-rep reports there (for a look in Nsight Compute)


@dataclass
class Pass:
    """One counter pass: counters per variant, the ncu version, how long it took."""

    counters: dict[str, schema.Counters] = field(default_factory=dict)
    ncu_version: str | None = None
    seconds: float = 0.0
    log: list[str] = field(default_factory=list)


def find_ncu() -> str | None:
    found = shutil.which("ncu")
    if found:
        return found
    for candidate in ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/ncu"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def _run(args: list[str], timeout: float, env: dict | None = None, cwd: str | None = None):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)


def version(ncu: str) -> str | None:
    try:
        out = _run([ncu, "--version"], 60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [x.strip() for x in out.splitlines() if x.strip()]
    return lines[-1] if lines else None


@functools.lru_cache(maxsize=4)
def known_metrics(ncu: str) -> set[str]:
    """Base names of the metrics this ncu can collect on this GPU (empty if it cannot say)."""
    try:
        out = _run([ncu, "--query-metrics"], 120).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    return {m.group(0) for line in out.splitlines() if (m := re.match(r"^[a-z0-9]+__[a-z0-9_]+", line.strip()))}


def _base(metric: str) -> str:
    return metric.split(".", 1)[0]


def ncu_error(text: str) -> str | None:
    """The first ==ERROR== line of ncu's output, without its prefix."""
    for line in text.splitlines():
        if "==ERROR==" in line:
            return line.split("==ERROR==", 1)[1].strip()
    return None


# --------------------------------------------------------------------------- reading the export


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    text = text.strip().replace(",", "")
    try:
        return float(text)
    except ValueError:
        return None


def _dims(text: str | None) -> list[int]:
    """'(128, 1, 1)' -> [128, 1, 1]."""
    return [int(x) for x in re.findall(r"\d+", text or "")]


def read_raw(text: str) -> list[dict[str, str]]:
    """Rows of `--page raw --csv`: a header, a row of units, then one row per kernel."""
    rows = list(csv.reader(io.StringIO(_csv_part(text))))
    if len(rows) < 2:
        return []
    header = rows[0]
    # The units row has an empty first cell (the ID has no unit); kernel rows an ID.
    body = [r for r in rows[1:] if r and r[0].strip()]
    return [dict(zip(header, r)) for r in body if len(r) == len(header)]


def _csv_part(text: str) -> str:
    """ncu may print ==PROF== or ==WARNING== lines before the CSV."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("=="))


def read_rules(text: str) -> dict[str, list[schema.NcuRule]]:
    """Rules fired per kernel ID from `--page details --csv`, best estimate per rule name."""
    out: dict[str, dict[str, float | None]] = {}
    for row in csv.DictReader(io.StringIO(_csv_part(text))):
        name = (row.get("Rule Name") or "").strip()
        if not name or (row.get("Rule Type") or "").strip().upper() not in RULE_TYPES_KEPT:
            continue
        speedup = _number(row.get("Estimated Speedup"))
        rules = out.setdefault(row.get("ID", ""), {})
        old = rules.get(name)
        rules[name] = speedup if old is None else max(old, speedup or 0.0)
    return {k: [schema.NcuRule(n, s) for n, s in sorted(v.items())] for k, v in out.items()}


def _range_of(row: dict[str, str], names: set[str]) -> str | None:
    """The variant whose NVTX range holds this kernel, from whichever column ncu put it in."""
    for key, value in row.items():
        if key == "Kernel Name" or "gen." not in (value or ""):
            continue
        for m in RANGE_RE.finditer(value):
            if m.group(1) in names:
                return m.group(1)
    return None


def kernel(index: int, row: dict[str, str], rules: list[schema.NcuRule]) -> schema.KernelCounters:
    def first(metrics):
        return next((_number(row[m]) for m in metrics if m in row and _number(row[m]) is not None), None)

    k = schema.KernelCounters(index=index, name=row.get("Kernel Name", "?"))
    for name, metrics in FIELDS.items():
        setattr(k, name, first(metrics))
    if k.registers_per_thread is not None:
        k.registers_per_thread = int(k.registers_per_thread)
    smem = [_number(row.get(m)) for m in SHARED_MEMORY]
    if any(x is not None for x in smem):
        k.shared_memory_bytes = int(sum(x or 0.0 for x in smem))
    limits = {what: _number(row.get(m)) for what, m in LIMITS.items()}
    limits = {what: x for what, x in limits.items() if x is not None}
    if limits:
        k.occupancy_limiter = min(limits, key=lambda what: limits[what])  # ties: the order of LIMITS
    k.tensor_pipe_pct = first(TENSOR_PIPES)
    k.grid = _dims(row.get("Grid Size")) or _dims(row.get("launch__grid_size"))
    k.block = _dims(row.get("Block Size")) or _dims(row.get("launch__block_size"))
    k.rules = rules
    return k


def split(rows: list[dict[str, str]], rules: dict[str, list[schema.NcuRule]], names: list[str],
          only: str | None = None) -> dict[str, list[schema.KernelCounters]]:
    """Kernels per variant, in launch order (ncu's ID) from 0. `only`: every row
    is that variant's (a process of its own). Rows in no known range are dropped."""
    known = set(names)
    per: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        owner = only or _range_of(row, known)
        if owner:
            per.setdefault(owner, []).append(row)
    out = {}
    for name, rs in per.items():
        rs.sort(key=lambda r: int(_number(r.get("ID")) or 0))
        out[name] = [kernel(i, r, rules.get(r.get("ID", ""), [])) for i, r in enumerate(rs)]
    return out


# --------------------------------------------------------------------------- running ncu


def _command(ncu: str, groups: dict[str, list[str]], point: schema.Point, dtype: str, seed: int, report: Path,
             extra_metrics: list[str], go: Path | None = None) -> list[str]:
    cmd = [ncu, "--clock-control", "none", "--target-processes", "application-only", "--nvtx"]
    for mode, names in groups.items():
        for n in names:
            cmd += ["--nvtx-include", range_name(mode, n)]
    for s in SECTIONS:
        cmd += ["--section", s]
    if extra_metrics:
        cmd += ["--metrics", ",".join(extra_metrics)]
    cmd += ["--export", str(report), "--force-overwrite", sys.executable, "-m", "gen.capture.ncu_target"]
    for mode, names in groups.items():
        cmd += ["--mode", mode, "--variants", ",".join(names)]
    cmd += ["--point", json.dumps(asdict(point)), "--dtype", dtype, "--seed", str(seed)]
    cmd += ["--parent-pid", str(os.getpid())]
    if go is not None:
        cmd += ["--wait-for", str(go)]
    return cmd


def _spawn(cmd: list[str], env_extra: dict | None = None) -> subprocess.Popen:
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""), **(env_extra or {}))
    # A session of its own, so that a timeout ends ncu and the program it runs.
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=root,
                            start_new_session=True)


@dataclass
class Early:
    """An ncu process started before the timings, its program waiting for a go file, given once
    the runs are timed (gen.capture.ncu_target --wait-for): torch, Inductor and FlexAttention
    are imported while the capture starts, not after the runs. `groups` may hold more calls than the pass
    runs: the go file names those it runs."""

    proc: subprocess.Popen
    ncu: str
    groups: dict[str, list[str]]
    point: schema.Point
    dtype: str
    seed: int
    extra: list[str]
    tmp: tempfile.TemporaryDirectory
    go: Path
    report: Path

    def covers(self, groups: dict[str, list[str]], point: schema.Point, dtype: str, seed: int) -> bool:
        return (self.proc.poll() is None and (point, dtype, seed) == (self.point, self.dtype, self.seed)
                and all(set(ns) <= set(self.groups.get(m, [])) for m, ns in groups.items()))

    def release(self, todo: dict[str, list[str]]) -> None:
        tmp = self.go.with_suffix(".tmp")
        tmp.write_text(json.dumps(todo), encoding="utf-8")
        os.replace(tmp, self.go)

    def stop(self) -> None:
        """Ends the process if the pass did not use it (its program exits on a go file of no calls)."""
        if self.proc.poll() is None:
            self.release({})
            try:
                self.proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.communicate()
        self.tmp.cleanup()


def start_early(groups: dict[str, list[str]], point: schema.Point, dtype: str, seed: int = 0,
                device: str = "cuda") -> Early | None:
    """The counter pass's ncu process, started now and waiting (Early); None where there is no
    GPU or no ncu, or a folder of kept reports is asked for (GEN_NCU_KEEP)."""
    ncu = find_ncu() if device == "cuda" else None
    if ncu is None or os.environ.get(KEEP_ENV) or not any(groups.values()):
        return None
    extra = _extra_metrics(ncu)
    tmp = tempfile.TemporaryDirectory(prefix="gen-ncu-")
    go, report = Path(tmp.name) / "go.json", Path(tmp.name) / "counters.ncu-rep"
    # Its compiled calls find their code in Inductor's cache (the runs compiled it): no pool of
    # compile workers to start.
    try:
        proc = _spawn(_command(ncu, groups, point, dtype, seed, report, extra, go),
                      {"TORCHINDUCTOR_COMPILE_THREADS": "1"})
    except OSError:  # the pass starts its own, and says why if that fails too
        tmp.cleanup()
        return None
    return Early(proc, ncu, groups, point, dtype, seed, extra, tmp, go, report)


def _profile(ncu: str, groups: dict[str, list[str]], point: schema.Point, dtype: str, seed: int, work: Path,
             extra_metrics: list[str], timeout: float, tag: str,
             early: Early | None = None) -> tuple[list[dict], dict, str, str | None]:
    """One ncu process over some variants in some modes (`early`'s, told to go, where it covers
    them). Returns raw rows, rules, the target's stdout, and the reason when nothing could be read."""
    t0 = time.monotonic()
    if early is not None and early.covers(groups, point, dtype, seed) and early.extra == extra_metrics:
        report, p = early.report, early.proc
        early.release(groups)
    else:
        report = work / f"{tag}.ncu-rep"
        p = _spawn(_command(ncu, groups, point, dtype, seed, report, extra_metrics))
    try:
        stdout, stderr = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return [], {}, "", f"ncu did not finish within {timeout:.0f} s"
    out = stdout + "\n" + stderr
    if not report.is_file():
        why = ncu_error(out) or f"ncu exited {p.returncode} and wrote no report"
        return [], {}, out, why
    t1 = time.monotonic()
    base = [ncu, "--import", str(report), "--csv", "--print-units", "base", "--print-kernel-base", "demangled"]
    raw = _run(base + ["--page", "raw"], 300)
    details = _run(base + ["--page", "details"], 300)
    out += f"\ntimes: ncu ran the program in {t1 - t0:.1f} s, its report was read in {time.monotonic() - t1:.1f} s"
    rows = read_raw(raw.stdout)
    if not rows:
        why = ncu_error(out) or ncu_error(raw.stdout + raw.stderr) or "ncu's report holds no kernel"
        return [], {}, out, why
    return rows, read_rules(details.stdout), out, None


def job_name(mode: str, variant: str) -> str:
    """One profiled call's name: gen.capture.ncu_target's NVTX range is gen.<this>."""
    return f"{mode}__{variant}"


def range_name(mode: str, variant: str) -> str:
    return f"gen.{job_name(mode, variant)}"


def collect(names: list[str], mode: str, point: schema.Point, dtype: str, seed: int = 0,
            timeout: float | None = None, device: str = "cuda") -> Pass:
    """Counters for each variant named, in one mode at one point (see the module doc)."""
    return collect_modes({mode: names}, point, dtype, seed, timeout, device)[mode]


def _attribute(groups: dict[str, list[str]], passes: dict[str, Pass], found: dict, log: list[str]) -> None:
    """Each mode's counters (ok, or unavailable with why) and log lines, from the kernels found per job."""
    refused = {line.split()[1].rstrip(":"): line.split(":", 1)[1].strip()
               for line in log if line.startswith("refused ")}
    for m, names in groups.items():
        mine = [line for line in log if f" {m}__" in line or not line.startswith(("ran ", "refused "))]
        passes[m].log = [line.replace(f" {m}__", " ", 1) for line in mine]
        for n in names:
            j = job_name(m, n)
            if j in found:
                passes[m].counters[n] = schema.Counters(status=schema.Status.OK.value, kernels=found[j])
            else:
                passes[m].counters[n] = schema.Counters(
                    status=schema.Status.UNAVAILABLE.value,
                    reason=f"the counter pass could not run it: {refused[j]}" if j in refused
                    else "no kernel of this call was profiled")


# --------------------------------------------------------------------------- repeated launches

Launch = tuple[str, tuple[int, ...], tuple[int, ...], int]  # as gen.capture.gpuwork: name, grid, block, smem


def plan_once(jobs: dict[str, list[Launch]]) -> dict[str, list[tuple[str, int]]]:
    """Per job (in the order ncu_target runs them), per launch: the job and launch
    index whose counters it takes. The k-th launch of a configuration (the same
    kernel, grid, block and shared memory) in a call matches the k-th launch of
    it in the first earlier call of the same mode that has one, so a twin's
    backward masked_fill matches the backward's, not the forward's; else it is
    its own. Within one mode only: a training step's forward may launch the
    inference forward's kernel at the same shape with other arguments (its
    softmax statistics written out)."""
    seen: dict[tuple[str, Launch], list[tuple[str, list[int]]]] = {}  # per key: (job, its indices), in job order
    plan: dict[str, list[tuple[str, int]]] = {}
    for job, launches in jobs.items():
        mode = job.split("__", 1)[0]
        mine: dict[Launch, list[int]] = {}
        out = []
        for i, launch in enumerate(launches):
            k = len(mine.setdefault(launch, []))
            mine[launch].append(i)
            owner = next(((j, idx[k]) for j, idx in seen.get((mode, launch), []) if len(idx) > k), (job, i))
            out.append(owner)
        for launch, idx in mine.items():
            seen.setdefault((mode, launch), []).append((job, idx))
        plan[job] = out
    return plan


def covered(jobs: dict[str, list[Launch]]) -> set[str]:
    """The jobs every launch of which repeats a launch of an earlier job: they need not be profiled."""
    return {job for job, owners in plan_once(jobs).items() if owners and all(o != job for o, _ in owners)}


def fill(found: dict[str, list[schema.KernelCounters]], jobs: dict[str, list[Launch]], skip: set[str]
         ) -> tuple[dict[str, list[schema.KernelCounters]], set[str]]:
    """`found` with the counters of each skipped job added, copied launch by launch
    from the earlier job's identical launch (named in `same_as`); and the skipped
    jobs that cannot be filled: a job they copy from was not profiled launch for
    launch as its trace predicts (count, grid, block and shared memory), so they are profiled after all."""
    plan = plan_once(jobs)

    def checks(job: str) -> bool:
        got = found.get(job, [])
        # ncu's shared memory (static + dynamic) equals the trace's: 108 of 108 launches on the H200.
        return len(got) == len(jobs[job]) and all(
            list(k.grid) == list(w[1]) and list(k.block) == list(w[2]) and (k.shared_memory_bytes or 0) == w[3]
            for k, w in zip(got, jobs[job]))

    out, bad = dict(found), set()
    for job in skip:
        owners = plan[job]
        if not all(checks(o) for o, _ in owners):
            bad.add(job)
            continue
        out[job] = [dataclasses.replace(found[o][i], index=n, same_as=f"{o}#{i}") for n, (o, i) in enumerate(owners)]
    return out, bad


def _launches_of(launches: dict | None, jobs: list[str]) -> dict[str, list[Launch]] | None:
    """The launches of every job in order; None (every call profiled) where one is missing."""
    if not launches or not all(launches.get(j) for j in jobs):
        return None
    return {j: list(launches[j]) for j in jobs}


def _one_by_one(ncu, groups, point, dtype, seed, work, extra, timeout) -> dict:
    found: dict = {}
    for m, names in groups.items():
        for n in names:
            j = job_name(m, n)
            rows, rules, _, why = _profile(ncu, {m: [n]}, point, dtype, seed, work, extra, timeout, j)
            found.update(split(rows, rules, [j], only=j) if not why else {})
    return found


def _extra_metrics(ncu: str) -> list[str]:
    """The tensor-pipe metric and EXTRA, those this ncu knows."""
    known = known_metrics(ncu)
    pipe = next((m for m in TENSOR_PIPES if _base(m) in known), None)
    return [m for m in [pipe, *EXTRA] if m and _base(m) in known]


def _pass(ncu, groups, jobs, point, dtype, seed, extra, timeout, ordered,
          early: Early | None = None) -> tuple[dict, list[str], str | None]:
    """The ncu process(es) of one pass over `jobs` (groups' job names): (kernels per job, log lines,
    why nothing could be read). The first is `early`'s where it covers them."""
    skip = covered(ordered) if ordered else set()
    todo = {m: [n for n in names if job_name(m, n) not in skip] for m, names in groups.items()}
    keep = os.environ.get(KEEP_ENV)
    with tempfile.TemporaryDirectory(prefix="gen-ncu-") as tmp:
        work = Path(keep) if keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        rows, rules, out, why = _profile(ncu, {m: ns for m, ns in todo.items() if ns}, point, dtype, seed, work,
                                         extra, timeout, "counters", early)
        log = [line for line in out.splitlines() if line.startswith(("ran ", "refused ", "==ERROR==", "times: "))]
        if why:
            return {}, log, why
        found = split(rows, rules, jobs)
        if skip and found:
            found, log = _fill_or_again(found, ordered, skip, log, groups,
                                        lambda again: _profile(ncu, again, point, dtype, seed, work, extra, timeout,
                                                               "again"))
        if not found:
            # The raw page names no NVTX range: one process per variant instead.
            log.append("the raw page names no NVTX range: one ncu process per variant")
            found = _one_by_one(ncu, groups, point, dtype, seed, work, extra, timeout)
    return found, log, None


def _fill_or_again(found, ordered, skip, log, groups, profile) -> tuple[dict, list[str]]:
    """fill(); the skipped calls it cannot fill profiled after all (profile(groups))."""
    found, bad = fill(found, ordered, skip)
    def named(js) -> str:  # "mode variant", the log's way (a job name's "__" is stripped per mode from "ran" lines)
        return ", ".join(j.replace("__", " ", 1) for j in sorted(js))

    log.append("not profiled, every launch repeating one of an earlier call of its mode (the same kernel, grid, "
               f"block and shared memory): {named(skip - bad)}")
    if bad:
        again = {m: [n for n in names if job_name(m, n) in bad] for m, names in groups.items()}
        log.append(f"profiled after all (a call they repeat did not check out): {named(bad)}")
        rows, rules, out, why = profile({m: ns for m, ns in again.items() if ns})
        log += [line for line in out.splitlines() if line.startswith(("ran ", "refused ", "==ERROR=="))]
        if not why:
            found.update(split(rows, rules, sorted(bad)))
    return found, log


def collect_modes(groups: dict[str, list[str]], point: schema.Point, dtype: str, seed: int = 0,
                  timeout: float | None = None, device: str = "cuda",
                  launches: dict[str, list[Launch]] | None = None, early: Early | None = None) -> dict[str, Pass]:
    """Counters for the variants named per mode, all in ONE ncu process (torch
    imported, ncu's metrics queried and its report read once). A Pass per
    mode; the seconds of the whole pass are the first mode's, so that stages
    still sum to the capture. `launches`: each job's kernel launches (from
    its run's trace, keyed by job_name); given for every job, a call whose
    launches all repeat earlier calls' is not profiled (see the module doc)."""
    timeout = timeout_s() if timeout is None else timeout
    t0 = time.monotonic()
    passes = {mode: Pass() for mode in groups}

    def finish() -> dict[str, Pass]:
        for i, p in enumerate(passes.values()):
            p.seconds = time.monotonic() - t0 if i == 0 else 0.0
        return passes

    def unavailable(reason: str) -> dict[str, Pass]:
        for mode, names in groups.items():
            passes[mode].counters = {n: schema.Counters(status=schema.Status.UNAVAILABLE.value, reason=reason)
                                     for n in names}
        return finish()

    if device != "cuda":
        return unavailable("no GPU")
    ncu = find_ncu()
    if ncu is None:
        return unavailable("Nsight Compute (ncu) not found on PATH")
    ver = version(ncu)
    for p in passes.values():
        p.ncu_version = ver
    extra = _extra_metrics(ncu)
    jobs = [job_name(m, n) for m, names in groups.items() for n in names]
    found, log, why = _pass(ncu, groups, jobs, point, dtype, seed, extra, timeout, _launches_of(launches, jobs),
                            early)
    if why:
        _attribute(groups, passes, {}, log)
        return unavailable(why)
    _attribute(groups, passes, found, log)
    return finish()
