"""Time the report build with 1, 10 and 50 copies of the committed H200 result set.

Usage: python benchmarks/bench_build.py [--counts 1,10,50] [--out benchmarks/bench_build.md]

For each count: a scratch project (mkdocs.yml and the hand-written docs/), a
results root with that many copies of the set (named <set>__copy-NN), then
`python -m gen build` and `mkdocs build --strict`, each timed as a subprocess
(imports included), and the weight of the site it made. Goal: linear growth,
under 10 s for one set and under 60 s for 50 on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gen.report import build  # noqa: E402

SET = "nvidia-h200__torch-2.11.0"


def timed(cmd: list[str], cwd: Path) -> float:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return dt


def weight(site: Path) -> dict[str, int]:
    out = {"html": 0, "traces": 0, "all": 0, "pages": 0}
    for p in site.rglob("*"):
        if p.is_file():
            n = p.stat().st_size
            out["all"] += n
            if p.suffix == ".html":
                out["html"] += n
                out["pages"] += 1
            elif p.name.endswith(".json.gz"):
                out["traces"] += n
    return out


def bench(count: int, work: Path) -> dict:
    results = work / "results"
    for i in range(count):
        shutil.copytree(ROOT / "results" / SET, results / f"{SET}__copy-{i + 1:02d}")
    project = build.copy_project(ROOT, work / "project")
    render_s = timed([sys.executable, "-m", "gen", "build", "--results", str(results),
                      "--docs", str(project / "docs")], project)
    mkdocs_s = timed([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", "site"], project)
    return dict(count=count, render_s=render_s, mkdocs_s=mkdocs_s, **weight(project / "site"))


def mib(n: int) -> str:
    return f"{n / 2**20:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", default="1,10,50")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "bench_build.md"))
    a = ap.parse_args()
    rows = []
    for n in [int(x) for x in a.counts.split(",")]:
        with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
            r = bench(n, Path(tmp))
        rows.append(r)
        print(f"{n:>3} sets: render {r['render_s']:.1f} s, mkdocs {r['mkdocs_s']:.1f} s, "
              f"site {mib(r['all'])} MiB", flush=True)
    lines = [
        "# Build benchmark",
        "",
        f"`python benchmarks/bench_build.py --counts {a.counts}`: copies of the committed `{SET}` set "
        "(inference and train, 18 traces each), a scratch project per count.",
        "",
        f"Machine: {os.cpu_count()} CPU cores, {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}.",
        "",
        "| Sets | Render (`python -m gen build`) | `mkdocs build --strict` | Total | Per set | HTML pages "
        "| HTML MiB | Traces MiB | Site MiB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        total = r["render_s"] + r["mkdocs_s"]
        lines.append(f"| {r['count']} | {r['render_s']:.1f} s | {r['mkdocs_s']:.1f} s | {total:.1f} s | "
                     f"{total / r['count']:.2f} s | {r['pages']} | {mib(r['html'])} | {mib(r['traces'])} | "
                     f"{mib(r['all'])} |")
    lines.append("")
    Path(a.out).write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
