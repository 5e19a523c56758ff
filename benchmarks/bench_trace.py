"""Time and peak memory of gen.model.trace.parse against the trace's size.

Usage: python benchmarks/bench_trace.py [--mb 2,4,8,16,50,100,200] [--old-up-to 8] [--out benchmarks/bench_trace.md]

A trace of each size is made from the committed H200 `article__train__naive` trace (3
training steps, forward and backward, two threads): its complete events are
copied N times, each copy shifted in time past the previous one, with its own
forward#N ranges and correlation ids, and written gzipped as capture writes
it. Each parse runs in a fresh subprocess, timed from outside, its peak
resident memory read from getrusage (imports included). With --old-up-to, the
parser of commit a20cf2e (before this rewrite) is timed too on the sizes up to
that many MB, to show the curve it replaced. Goal: linear growth; 200 MB in
under a minute and under 2 GB on 2 cores.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "results" / "nvidia-h200__torch-2.11.0" / "traces" / "article__train__naive.json.gz"
OLD_COMMIT = "a20cf2e"

CHILD = """
import importlib.util, resource, sys, time
spec = importlib.util.spec_from_file_location("trace_under_test", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
sys.modules["trace_under_test"] = mod
spec.loader.exec_module(mod)
t0 = time.perf_counter()
t = mod.parse(sys.argv[2])
dt = time.perf_counter() - t0
print(dt, len(t.forwards), sum(t.counts), t.unattributed,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def make_trace(target_mb: float, dest: Path) -> tuple[float, float, int]:
    """A trace of about target_mb MB of JSON; returns (JSON MB, gzip MB, events)."""
    with gzip.open(SOURCE, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    events = data.pop("traceEvents")
    meta = [e for e in events if e.get("ph") == "M"]
    body = [e for e in events if e.get("ph") != "M"]
    t0 = min(e["ts"] for e in body if isinstance(e.get("ts"), (int, float)))
    t1 = max(e["ts"] + e.get("dur", 0) for e in body if isinstance(e.get("ts"), (int, float)))
    span = t1 - t0 + 1000.0
    per_copy = len(json.dumps(body)) / 1e6
    copies = max(1, round(target_mb / per_copy))
    n_forwards = sum(1 for e in body if str(e.get("name", "")).startswith("forward#"))
    max_corr = max((e.get("args", {}).get("correlation", 0) for e in body if isinstance(e.get("args"), dict)),
                   default=0) + 1
    json_bytes = 0
    n = 0
    with gzip.open(dest, "wt", encoding="utf-8", compresslevel=1) as out:
        head = json.dumps(data)[:-1]
        out.write(head + ', "traceEvents": [')
        json_bytes += len(head) + 18
        first = True
        for e in meta:
            text = json.dumps(e)
            out.write(text if first else ", " + text)
            json_bytes += len(text) + 2
            first = False
            n += 1
        for k in range(copies):
            for e in body:
                c = dict(e)
                if isinstance(c.get("ts"), (int, float)):
                    c["ts"] = c["ts"] + k * span
                name = str(c.get("name", ""))
                if name.startswith("forward#"):
                    c["name"] = f"forward#{int(name[8:]) + k * n_forwards}"
                if isinstance(c.get("args"), dict) and "correlation" in c["args"]:
                    c["args"] = dict(c["args"], correlation=c["args"]["correlation"] + k * max_corr)
                if "id" in c and isinstance(c["id"], int):
                    c["id"] = c["id"] + k * max_corr
                text = json.dumps(c)
                out.write(", " + text)
                json_bytes += len(text) + 2
                n += 1
        out.write("]}")
    return json_bytes / 1e6, dest.stat().st_size / 1e6, n


# The parser's scaling is measured past the limits a build applies (gen.model.limits): raised here.
NO_LIMITS = {"GEN_MAX_TRACE_MB": "4096", "GEN_MAX_TRACE_EVENTS": "100000000", "GEN_MAX_TRACE_CALLS": "100000000"}


def measure(parser_file: Path, trace: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(parser_file), str(trace)],
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT), **NO_LIMITS),
                          timeout=3600)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    dt, forwards, gpu, unattributed, rss_kb = proc.stdout.split()
    return dict(seconds=float(dt), forwards=int(forwards), gpu=int(gpu), unattributed=int(unattributed),
                peak_mb=int(rss_kb) / 1024)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", default="2,4,8,16,50,100,200")
    ap.add_argument("--old-up-to", type=float, default=0.0)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "bench_trace.md"))
    a = ap.parse_args()
    new_parser = ROOT / "gen" / "analysis" / "trace.py"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        old_parser = None
        if a.old_up_to:
            old_parser = Path(tmp) / "trace_old.py"
            old_parser.write_text(subprocess.run(["git", "show", f"{OLD_COMMIT}:gen/analysis/trace.py"], cwd=ROOT,
                                                 capture_output=True, text=True, check=True).stdout)
        for mb in (float(x) for x in a.mb.split(",")):
            path = Path(tmp) / f"trace-{mb:g}.json.gz"
            json_mb, gz_mb, n = make_trace(mb, path)
            new = measure(new_parser, path)
            old = measure(old_parser, path) if old_parser and mb <= a.old_up_to else None
            rows.append((json_mb, gz_mb, n, new, old))
            print(f"{json_mb:.1f} MB: {new['seconds']:.1f} s, {new['peak_mb']:.0f} MB peak"
                  + (f"; old {old['seconds']:.1f} s" if old else ""), file=sys.stderr, flush=True)
            path.unlink()
    lines = [
        "# Trace parse benchmark", "",
        f"`python benchmarks/bench_trace.py --mb {a.mb}" + (f" --old-up-to {a.old_up_to:g}`" if a.old_up_to else "`")
        + ": copies of the committed H200 `article__train__naive` trace (3 training steps) shifted in time, gzipped; "
        "`gen.analysis.trace.parse` in a fresh process per size. Peak memory is the process's maximum resident "
        "set (Python and imports included).", "",
        f"Machine: {os.cpu_count()} CPU cores, {platform.machine()}, Python {platform.python_version()}.", "",
        "| Trace JSON MB | gzip MB | Events | Forwards | GPU events | Parse s | s per 100 MB | Peak MB | "
        f"Parser of {OLD_COMMIT} s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for json_mb, gz_mb, n, new, old in rows:
        lines.append(f"| {json_mb:.1f} | {gz_mb:.1f} | {n:,} | {new['forwards']:,} | {new['gpu']:,} | "
                     f"{new['seconds']:.1f} | {100 * new['seconds'] / json_mb:.1f} | {new['peak_mb']:.0f} | "
                     + (f"{old['seconds']:.1f}" if old else "–") + " |")
    text = "\n".join(lines) + "\n"
    out = Path(a.out)
    notes = ""
    if out.is_file() and "\n## Notes" in out.read_text(encoding="utf-8"):
        notes = out.read_text(encoding="utf-8").split("\n## Notes", 1)[1]
        text += "\n## Notes" + notes
    out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    t = time.perf_counter()
    main()
    print(f"benchmark took {time.perf_counter() - t:.0f} s", file=sys.stderr)
