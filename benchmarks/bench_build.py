"""Time the report build over a matrix of 1, 10 and 50 result sets, cold, warm and after one new set.

Usage: python benchmarks/bench_build.py [--counts 1,10,50] [--out benchmarks/bench_build.md]

The sets: copies of the committed `nvidia-h200__torch-2.11.0` set (its article runs, its
nine scenarios' sweeps: 194 traces), each relabelled as another cell of a GPU x PyTorch
matrix (`fabricate`: its folder name, `name`, `environment.gpu_name` and `environment.torch`;
every number is the H200's), beside the committed published sets. Scratch data for timing,
never committed, never shown as results.

For each count, in a scratch project (mkdocs.yml, its hook, the hand-written docs/, and the
chart bundle made once beforehand, as any project has it after its first build):
1. cold: `python -m gen build` with an empty cache, then the site published as `nox -s build-report`
   does (`python -m gen.report.publish_site`: `mkdocs build --strict` into a staging folder, swapped in);
2. warm: both again, nothing changed (the build finds the pages it wrote from the same sets, code and
   limits in docs/generated, the publish the site made from the same sources in site/, both by content);
3. one new set: a set added to the matrix, both again.
Each is a subprocess, timed by wall clock and by CPU (user + sys of it and its workers): the
machine is shared, so wall time depends on the load, CPU time much less. `gen build` reports
its time by stage (gen.report.build.run's timings). Then the weight of the site: its largest
HTML page (own bytes, shared assets aside), its search index, its Markdown.

Goals (issue 34, 2 cores): 50 sets cold in at most 60 s, one new set added in at most 10 s
including mkdocs, a rebuild with nothing changed in at most 5 s; no HTML page over 300 KB
(issue 35: and the search index under 2 MB, at 200 sets too).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gen.report import build, prerender  # noqa: E402

SET = "nvidia-h200__torch-2.11.0"
PUBLISHED = ["nvidia-a100-sxm4-80gb__article-2026-07", "nvidia-h100-sxm5__flashattention3-paper",
             "nvidia-h200__cudnn-frontend-9.19.1"]
GPUS = ["NVIDIA A100-SXM4-80GB", "NVIDIA B200", "NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA L40S"]
# 11 versions: 5 x 10 = 50 cells, and one more; then patch releases, for 200 cells and one more (issue 35)
TORCH = [f"2.{k}.0" for k in range(1, 12)] + [f"2.{k}.{p}" for p in (1, 2, 3) for k in range(1, 12)]
PAGE_LIMIT = 300 * 1000
INDEX_LIMIT = 2 * 1000 * 1000
GOALS_S = {"cold": 60.0, "warm": 5.0, "new": 10.0}  # gen build + mkdocs, wall seconds
NOTES = "## Notes"  # from this heading on, bench_build.md is written by hand and kept


def fabricate(results: Path, i: int, points: int | None = None) -> Path:
    """The i-th cell of the matrix (GPU i % 5, PyTorch version i // 5): the committed H200
    set under that GPU's and version's name. Returns its folder. With `points`, each
    scenario keeps only its first `points` lengths (a lighter set, for tests)."""
    gpu, torch = GPUS[i % len(GPUS)], TORCH[i // len(GPUS)]
    name = f"{re.sub(r'[^a-z0-9]+', '-', gpu.lower()).strip('-')}__torch-{torch}"
    dest = results / name
    shutil.copytree(ROOT / "results" / SET, dest)
    data = json.loads((dest / "result.json").read_text(encoding="utf-8"))
    data["name"] = name
    data["environment"].update(gpu_name=gpu, torch=f"{torch}+cu130")
    if points is not None:
        kept = []
        for sc in data["scenarios"]:
            sc["points"] = sc["points"][:points]
            kept += [(sc["name"], "inference", json.dumps(p, sort_keys=True)) for p in sc["points"]]
            kept += [(sc["name"], "train", json.dumps(p, sort_keys=True)) for p in sc.get("train_points", [])]
        data["sweep"] = [p for p in data["sweep"]
                         if (p["scenario"], p["mode"], json.dumps(p["point"], sort_keys=True)) in kept]
        used = {r["trace"] for r in data["runs"] + data["sweep"] if r.get("trace")}
        for t in (dest / "traces").iterdir():
            if f"traces/{t.name}" not in used:
                t.unlink()
    (dest / "result.json").write_text(json.dumps(data), encoding="utf-8")
    return dest


def published(results: Path) -> None:
    for name in PUBLISHED:
        shutil.copytree(ROOT / "results" / name, results / name)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# ru_maxrss (KiB on Linux): the build process's peak, and the largest of its worker processes' peaks
_BUILD = ("import json, resource, sys; from pathlib import Path; from gen.report import build; t = {}; "
          "build.run(Path(sys.argv[1]), Path(sys.argv[2]), timings=t); "
          "t['peak'] = [resource.getrusage(w).ru_maxrss * 1024 for w in (resource.RUSAGE_SELF, "
          "resource.RUSAGE_CHILDREN)]; print(json.dumps(t))")


def timed(cmd: list[str], cwd: Path) -> tuple[float, float, str]:
    """(wall s, CPU s, stdout) of one subprocess and the processes it waited for."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(ROOT))
    c0, t0 = _cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return wall, cpu, proc.stdout


def step(project: Path, results: Path) -> dict:
    """`gen build` (with its stages) and the site's publish (`mkdocs build --strict`) once."""
    wall, cpu, out = timed([sys.executable, "-c", _BUILD, str(results), str(project / "docs")], project)
    stages = json.loads(out.strip().splitlines()[-1])
    peak = stages.pop("peak")
    mk_wall, mk_cpu, _ = timed([sys.executable, "-m", "gen.report.publish_site", "--site-dir", "site"], project)
    return dict(render=(wall, cpu), mkdocs=(mk_wall, mk_cpu), stages=stages, peak=peak)


def weight(project: Path) -> dict:
    site = project / "site"
    pages = [p for p in site.rglob("*.html")]
    largest = max(pages, key=lambda p: p.stat().st_size)
    # the pages over all sets: everything but a set's own pages (generated/sets/<set>.html and below)
    over_all = max((p for p in pages
                    if not re.match(r"generated/sets/(?!index\.html$)", p.relative_to(site).as_posix())),
                   key=lambda p: p.stat().st_size)
    md = [p for p in (project / "docs" / "generated").rglob("*.md")]
    md_bytes = sum(p.stat().st_size for p in md)
    raw = sum(len(b) for p in md for b in re.findall(rf"{re.escape(prerender.BEGIN)}.*?{re.escape(prerender.END)}",
                                                     p.read_text(encoding="utf-8"), re.S))
    return dict(pages=len(pages), largest=largest.stat().st_size, largest_page=largest.relative_to(site).as_posix(),
                over_all=over_all.stat().st_size, over_all_page=over_all.relative_to(site).as_posix(),
                index=(site / "search" / "search_index.json").stat().st_size,
                site=sum(p.stat().st_size for p in site.rglob("*") if p.is_file()),
                md=md_bytes, md_parsed=md_bytes - raw)


def bench(count: int, work: Path, vendor: Path) -> dict:
    results = work / "results"
    published(results)
    for i in range(count):
        fabricate(results, i)
    project = build.copy_project(ROOT, work / "project")
    shutil.copytree(vendor, project / "docs" / build.VENDOR)
    out = dict(count=count, cold=step(project, results))
    out["weight"] = weight(project)
    out["warm"] = step(project, results)
    fabricate(results, count)
    out["new"] = step(project, results)
    return out


# --------------------------------------------------------------------------- the record


def s(x: float) -> str:
    return f"{x:.1f} s"


def kb(n: int) -> str:
    return f"{n / 1000:.0f} KB"


def mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def table(rows: list[dict]) -> list[str]:
    lines = [
        "| Sets | Build | `gen build` wall / CPU | publish (`mkdocs build`) wall / CPU | Total wall / CPU "
        "| Peak memory: build, a worker | Goal |",
        "|---:|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        n = r["count"]
        for key, label in (("cold", "cold (empty cache)"), ("warm", "warm (nothing new)"), ("new", "one new set")):
            b = r[key]
            (rw, rc), (mw, mc) = b["render"], b["mkdocs"]
            target = f"total ≤ {GOALS_S[key]:.0f} s"
            peak = " / ".join(mb(x) for x in b["peak"])
            lines.append(f"| {n} | {label} | {s(rw)} / {s(rc)} | {s(mw)} / {s(mc)} | {s(rw + mw)} / {s(rc + mc)} "
                         f"| {peak} | {target} |")
    return lines


def weights(rows: list[dict]) -> list[str]:
    lines = ["| Sets | HTML pages | Largest page | Largest page over all sets | Search index "
             "| Markdown (parsed by mkdocs) | Site |",
             "|---:|---:|---|---|---:|---:|---:|"]
    for r in rows:
        w = r["weight"]
        lines.append(f"| {r['count']} | {w['pages']} | {kb(w['largest'])} (`{w['largest_page']}`) "
                     f"| {kb(w['over_all'])} (`{w['over_all_page']}`) | {mb(w['index'])} "
                     f"| {mb(w['md'])} ({mb(w['md_parsed'])}) | {mb(w['site'])} |")
    return lines


BUILDS = ("cold", "warm", "new")


def stages(rows: list[dict]) -> list[str]:
    names = list(dict.fromkeys(k for r in rows for b in BUILDS for k in r[b]["stages"]))
    head = " | ".join(f"{r['count']}: {b}" for r in rows for b in BUILDS)
    lines = [f"| Stage (wall / CPU s) | {head} |", "|---|" + "---:|" * (len(BUILDS) * len(rows))]
    for name in names:
        cells = []
        for r in rows:
            for b in BUILDS:
                wall, cpu = r[b]["stages"].get(name, (None, None))
                cells.append("–" if cpu is None else (f"{cpu:.2f}" if wall is None else f"{wall:.2f} / {cpu:.2f}"))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", default="1,10,50")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "bench_build.md"))
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        vendor = Path(tmp) / "vendor"
        build.write_vendor(Path(tmp) / "docs")
        shutil.copytree(Path(tmp) / "docs" / build.VENDOR, vendor)
        for n in [int(x) for x in a.counts.split(",")]:
            work = Path(tmp) / f"n{n}"
            r = bench(n, work, vendor)
            shutil.rmtree(work)
            rows.append(r)
            print(f"{n:>3} sets: cold {s(r['cold']['render'][0])} + {s(r['cold']['mkdocs'][0])}, "
                  f"new set {s(r['new']['render'][0])} + {s(r['new']['mkdocs'][0])}, "
                  f"largest page {kb(r['weight']['largest'])}, index {mb(r['weight']['index'])}", flush=True)
    load = os.getloadavg()
    lines = [
        "# Build benchmark",
        "",
        f"`python benchmarks/bench_build.py --counts {a.counts}`: a matrix of copies of the committed `{SET}` set "
        "(each relabelled as one GPU and PyTorch version: same numbers), beside the three committed published sets; "
        "a scratch project per count. See the script's docstring for the steps.",
        "",
        f"Machine: {os.cpu_count()} CPU cores, {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}; load average at the end {load[0]:.1f} (the machine is shared: "
        "wall times grow with the load, CPU times much less).",
        "",
        "## Time",
        "",
        *table(rows),
        "",
        "## Weight (the cold build's site)",
        "",
        *weights(rows),
        "",
        "## `gen build` by stage (cold, warm, and after one new set)",
        "",
        "Wall / CPU seconds; stages in the units (indented) are CPU seconds summed over the worker processes.",
        "",
        *stages(rows),
        "",
    ]
    out = Path(a.out)
    old = out.read_text(encoding="utf-8") if out.is_file() else ""
    notes = old[old.index(NOTES):] if NOTES in old else ""  # the notes by hand stay
    out.write_text("\n".join(lines) + ("\n" + notes if notes else ""), encoding="utf-8")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
