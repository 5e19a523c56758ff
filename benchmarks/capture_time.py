"""Where a capture's time goes, by stage, from a result set's capture.log and result.json.

Usage: PYTHONPATH=. python benchmarks/capture_time.py results/<set> [more sets...] > benchmarks/capture_time.md

A schema-3 set carries `stage_seconds` (start: imports, CUDA's start, the clocks'
bring-up; runs; counters; ceilings; one sweep stage per scenario) and per-item
seconds in its log. An older set has none: its stages are read off the log
("[i/n] ... in X s" for runs, "counter pass ... in X s", "finished in X s" per
capture call), the sweep and ceilings being the rest of each call. Compile time
(the first call of compiled variants) is summed from the records. Standard library only.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gen.model import schema  # noqa: E402

RUN_RE = re.compile(r"^\[\d+/\d+\] .* in ([\d.]+) s")
NCU_RE = re.compile(r"^counter pass \w+: .* in ([\d.]+) s")
FINISHED_RE = re.compile(r"^finished in ([\d.]+) s")
PHASES = "  sweep, seconds by phase over every point:"
SWEEP_RE = re.compile(r"^  sweep \[\d+/\d+\] (\S+) .* in ([\d.]+) s")


def stages_from_log(text: str) -> dict[str, float]:
    stages: dict[str, float] = {}
    call_runs = call_ncu = call_sweep = 0.0
    for line in text.splitlines():
        if m := RUN_RE.match(line):
            call_runs += float(m[1])
        elif m := NCU_RE.match(line):
            call_ncu += float(m[1])
        elif m := SWEEP_RE.match(line):
            key = f"sweep {m[1]}"
            stages[key] = stages.get(key, 0.0) + float(m[2])
            call_sweep += float(m[2])
        elif m := FINISHED_RE.match(line):
            stages["runs"] = stages.get("runs", 0.0) + call_runs
            stages["counters"] = stages.get("counters", 0.0) + call_ncu
            rest = float(m[1]) - call_runs - call_ncu - call_sweep
            key = "start, ceilings, sweep (not split in the log)" if not call_sweep else "start, ceilings"
            stages[key] = stages.get(key, 0.0) + rest
            call_runs = call_ncu = call_sweep = 0.0
    return stages


def report(path: Path) -> list[str]:
    rs = schema.load_set(path)
    log = (path / "capture.log").read_text(encoding="utf-8") if (path / "capture.log").is_file() else ""
    stages = dict(rs.stage_seconds) or stages_from_log(log)
    total = sum(stages.values())
    # The set's own call: records merged in from another call (gen import --merge) carry `captured`.
    own = [r for r in [*rs.sweep, *rs.runs] if not r.captured]
    # A call compiled ahead in a side process (gen.capture.precompile): its compile_time_s is that
    # process's first call, and this process's own first call is first_call_s.
    compiled = sum((r.first_call_s or 0.0) if r.compiled_ahead else (r.compile_time_s or 0.0) for r in own)
    ahead = [r for r in own if r.compiled_ahead]
    merged = sum(r.compile_time_s or 0.0 for r in [*rs.sweep, *rs.runs] if r.captured)
    statuses: dict[str, int] = {}
    for p in rs.sweep:
        statuses[p.status] = statuses.get(p.status, 0) + 1
    calls = sorted({r.captured for r in [*rs.sweep, *rs.runs] if r.captured})
    title = f"## {path.name}" + (f" (named {rs.name} in its result.json)" if rs.name != path.name else "")
    lines = [title, "",
             f"{len(rs.runs)} runs, {len(rs.sweep)} sweep points ("
             + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())) + f"); "
             f"duration_s {rs.duration_s:.0f} s" if rs.duration_s else "",
             f"(the set's own call and {len(calls)} merged into it with `gen import --merge`; the stages below "
             "are the set's own call's)" if calls else "", "",
             "| stage | seconds | share |", "| --- | ---: | ---: |"]
    for stage, s in sorted(stages.items(), key=lambda kv: -kv[1]):
        lines.append(f"| {stage} | {s:.1f} | {100 * s / total:.1f}% |")
    lines += [f"| **all** | **{total:.1f}** | |", "",
              f"Of which the first calls of compiled variants in the capture's process (compile): {compiled:.1f} s"
              + (f" (and {merged:.1f} s in the calls merged into it)." if calls else "."),
              f"The side processes of the compile-ahead stage made {len(ahead)} of those first calls before it "
              f"(FlexAttention's): {sum(r.compile_time_s or 0.0 for r in ahead):.1f} s of compiles in them, "
              f"{sum(r.first_call_s or 0.0 for r in ahead):.1f} s of first calls here." if ahead else "", ""]
    phases = [line.split(":", 1)[1].strip() for line in log.splitlines() if line.startswith(PHASES)]
    if phases:  # the first: the set's own call (a merged call's log follows it)
        lines += [f"Inside the sweep, seconds by phase over every point: {phases[0]}.", ""]
    skipped = [p for p in rs.sweep if p.status == schema.Status.SKIPPED]
    if skipped:
        lines.append("Skipped points:")
        for p in skipped:
            lines.append(f"- {p.scenario} {p.mode} {p.variant} kv={p.point.kv_len} D={p.point.head_dim}: {p.reason}")
        lines.append("")
    return lines


def report_partial(path: Path) -> list[str]:
    """A capture cut short: its staging area's items (gen.capture.staging), seconds by stage."""
    import json

    stages: dict[str, float] = {}
    first: dict[str, float] = {}
    n = 0
    for f in sorted((path / "items").glob("*.json")):
        item = json.loads(f.read_text(encoding="utf-8"))
        stage = item.get("stage")
        if stage:
            stages[stage] = stages.get(stage, 0.0) + float(item.get("seconds", 0.0))
        rec = item.get("record") or {}
        if item.get("kind") == "sweep":
            n += 1
            if rec.get("compile_time_s"):
                first[rec["variant"]] = first.get(rec["variant"], 0.0) + rec["compile_time_s"]
    total = sum(stages.values())
    lines = [f"## {path.name} (cut short: {n} sweep points kept)", "", "| stage | seconds | share |",
             "| --- | ---: | ---: |"]
    for stage, s in sorted(stages.items(), key=lambda kv: -kv[1]):
        lines.append(f"| {stage} | {s:.1f} | {100 * s / total:.1f}% |")
    lines += [f"| **all** | **{total:.1f}** | |", "",
              "First calls of compiled variants: " + ", ".join(f"{k} {v:.1f} s" for k, v in sorted(first.items())),
              ""]
    return lines


def main(argv: list[str]) -> int:
    out = ["# Capture time by stage", "", "Made by `benchmarks/capture_time.py` from each set's result.json "
           "and capture.log.", ""]
    for arg in argv:
        out += report_partial(Path(arg)) if (Path(arg) / "items").is_dir() else report(Path(arg))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
