"""Do several captures on the same GPU agree? Every pair's differing classifications, beside each host's speed.

Takes: result sets (folders, or .tgz files as `python -m gen import` reads them). Gives: a Markdown
table on stdout (and --out FILE, whose hand-written notes from "## Notes" on are kept): per capture
its date, its host's speed (the reference call's host time, gen.analysis.timings.host_reference)
and how many host-bound outcomes it decides; per pair, how many classifications differ (host-bound
outcomes, ranks, the fastest, the ties: gen.analysis.verdicts.classes) and which. No torch.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from capture_agreement import open_set, write_report  # noqa: E402

from gen.analysis import rules, tables, timings, verdicts  # noqa: E402


def _differ(x: verdicts.Classes, y: verdicts.Classes) -> dict[str, list[str]]:
    """What two captures' classifications of one verdict disagree on, by kind."""
    ra, rb, ha, hb = dict(x.ranks), dict(y.ranks), dict(x.host_bound), dict(y.host_bound)
    return {"host-bound": [v for v in ha if v in hb and ha[v] != hb[v]],
            "rank": [v for v in ra if v in rb and ra[v] != rb[v]],
            "fastest": ["fastest"] if (x.fastest, x.fastest_outcome) != (y.fastest, y.fastest_outcome) else [],
            "ties": ["ties"] if x.ties != y.ties else []}


def pairs(sets: list[tables.LoadedSet]) -> str:
    """Every pair of captures: the classifications that differ, counted by kind, and named."""
    classes = [verdicts.all_classes(ls) for ls in sets]
    lines = ["| capture | date | host reference call, median [10th–90th percentile] µs | host-bound outcomes "
             "decided (yes or no) |", "|---|---|---|---|"]
    for ls, c in zip(sets, classes):
        ref = timings.host_reference(ls.rs)
        speed = (f"{ref.median_ms * 1e3:.1f} [{ref.p10_ms * 1e3:.1f}–{ref.p90_ms * 1e3:.1f}]"
                 if ref else "not recorded")
        decided = sum(o not in (None, rules.WITHIN_NOISE) for v in c.values() for _, o in v.host_bound)
        rows = sum(len(v.host_bound) for v in c.values())
        lines.append(f"| `{ls.name}` | {ls.rs.environment.date} | {speed} | {decided} of {rows} |")
    lines += ["", "| pair | host-bound | rank | fastest | ties | which |", "|---|---:|---:|---:|---:|---|"]
    for (i, a), (j, b) in itertools.combinations(enumerate(sets), 2):
        total = {"host-bound": 0, "rank": 0, "fastest": 0, "ties": 0}
        which = []
        for key in [k for k in classes[i] if k in classes[j]]:
            for kind, names in _differ(classes[i][key], classes[j][key]).items():
                total[kind] += len(names)
                which += [f"{key[0]} {key[1]} {n} ({kind})" for n in names]
        lines.append(f"| {a.name.split('__')[-1]} / {b.name.split('__')[-1]} | " + " | ".join(
            str(total[k]) for k in total) + f" | {'; '.join(which) or '–'} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sets", type=Path, nargs="+", metavar="SET")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        loaded = [tables.load_set(open_set(s, Path(tmp) / str(i))) for i, s in enumerate(args.sets)]
        text = pairs(loaded)
    print(text, end="")
    if args.out:
        gpu = loaded[0].rs.environment.gpu_name or "CPU"
        write_report(args.out, f"# Several captures on {gpu} machines\n\n`python benchmarks/capture_agreement_pairs.py "
                         + " ".join(map(str, args.sets)) + "`\n\n", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
