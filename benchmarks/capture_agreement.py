"""Do two captures on the same GPU agree? GPU-only (CUDA-graph) times and ranking side by side.

Takes: two result sets (folders, or .tgz files as `python -m gen import` reads them;
default: the committed H200 set and the whole second capture kept in tests/data/sets/). Gives: a
Markdown table on stdout (and --out FILE): per variant of the article scenario's
inference runs, each capture's GPU-only median with its IQR, the difference, whether
the two IQRs overlap, the eager times, and the two rankings by median; then every
classification the report makes (gen.analysis.verdicts.classes: host-bound, the
fastest, each rank, the ties, with the uncertainty of the times) side by side.
No torch. Several captures, pair by pair: capture_agreement_pairs.py.
"""

from __future__ import annotations

import argparse
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gen.analysis import tables, timings, verdicts  # noqa: E402
from gen.model import schema  # noqa: E402

DEFAULT_A = ROOT / "results" / "nvidia-h200__torch-2.11.0"
DEFAULT_B = ROOT / "tests" / "data" / "sets" / "nvidia-h200__torch-2.11.0__rerun"


def open_set(path: Path, tmp: Path) -> Path:
    """A result set's folder: `path` itself, or the one set a .tar.gz holds, unpacked under `tmp`."""
    if path.is_dir():
        return path
    with tarfile.open(path) as tf:
        tf.extractall(tmp, filter="data")
    found = [p.parent for p in tmp.rglob(schema.RESULT_FILE)]
    if len(found) != 1:
        raise SystemExit(f"{path}: expected one result set inside, found {len(found)}")
    return found[0]


def _times(rs: schema.ResultSet) -> dict[str, timings.Times]:
    return {r.variant: timings.times(r) for r in rs.runs
            if r.mode == "inference" and r.scenario == "article" and r.status == "ok"}


def table(a: schema.ResultSet, b: schema.ResultSet) -> str:
    ta, tb = _times(a), _times(b)
    names = [v for v in ta if v in tb]
    rank_a = {v: i + 1 for i, v in enumerate(sorted(names, key=lambda v: ta[v].gpu_only.median))}
    rank_b = {v: i + 1 for i, v in enumerate(sorted(names, key=lambda v: tb[v].gpu_only.median))}
    lines = [
        f"A: `{a.name}` ({a.environment.date}); B: `{b.name}` ({b.environment.date}); "
        f"{a.environment.gpu_name}, torch {a.environment.torch}.",
        "GPU-only = CUDA-graph replay of back-to-back calls / calls per replay (median, IQR in brackets); "
        "eager = events around each call of a bare loop.",
        "",
        "| variant | GPU-only A ms | GPU-only B ms | B vs A | IQRs overlap | eager A ms | eager B ms "
        "| rank A | rank B |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for v in sorted(names, key=lambda v: rank_a[v]):
        ga, gb = ta[v].gpu_only, tb[v].gpu_only
        overlap = ga.q1 <= gb.q3 and gb.q1 <= ga.q3
        lines.append(
            f"| {v} | {ga.median:.4f} [{ga.q1:.4f}–{ga.q3:.4f}] | {gb.median:.4f} [{gb.q1:.4f}–{gb.q3:.4f}] "
            f"| {100 * (gb.median / ga.median - 1):+.1f}% | {'yes' if overlap else 'no'} "
            f"| {ta[v].eager.median:.4f} | {tb[v].eager.median:.4f} | {rank_a[v]} | {rank_b[v]} |")
    same = [rank_a[v] == rank_b[v] for v in names]
    lines += ["", f"Same GPU-only ranking: {'yes' if all(same) else 'no'} "
                  f"({sum(same)} of {len(names)} variants hold their rank)."]
    return "\n".join(lines) + "\n"


def sweep_vs_run(rs: schema.ResultSet) -> str:
    """The article's default point measured twice in one capture: the run and its sweep point."""
    lines = ["", f"Within `{rs.name}`: each default run against the sweep point at the same shape.", "",
             "| variant | run GPU-only ms | sweep point GPU-only ms | difference |", "|---|---|---|---|"]
    c = rs.config
    for r in rs.runs:
        if r.mode != "inference" or r.scenario != "article" or r.status != "ok":
            continue
        p = next((p for p in rs.sweep if p.scenario == "article" and p.variant == r.variant and p.status == "ok"
                  and p.point.kv_len == c.seq_len and p.point.head_dim == c.head_dim), None)
        if p is None:
            continue
        a, b = timings.times(r).gpu_only, timings.times(p).gpu_only
        lines.append(f"| {r.variant} | {a.median:.4f} [{a.q1:.4f}–{a.q3:.4f}] | {b.median:.4f} [{b.q1:.4f}–{b.q3:.4f}] "
                     f"| {100 * (b.median / a.median - 1):+.1f}% |")
    return "\n".join(lines) + "\n"


def classifications(a: tables.LoadedSet, b: tables.LoadedSet) -> str:
    """Each classification of both captures, one line per variant and verdict they share."""
    ca, cb = verdicts.all_classes(a), verdicts.all_classes(b)
    lines = ["", "Classifications, as the report makes them (the 95% interval of each median; "
             "gen/analysis/rules.py):", "",
             "| scenario, mode | variant | rank A | rank B | host-bound A | host-bound B | tie (same kernels) |",
             "|---|---|---|---|---|---|---|"]
    agree = True
    for key in [k for k in ca if k in cb]:
        x, y = ca[key], cb[key]
        agree &= x == y
        ra, rb, ha, hb = dict(x.ranks), dict(y.ranks), dict(x.host_bound), dict(y.host_bound)
        tie = {v: "+".join(g) for g in x.ties for v in g}
        for v in ra:
            lines.append(f"| {key[0]}, {key[1]} | {v} | {ra[v]} | {rb.get(v, '–')} | {ha[v] or '–'} "
                         f"| {hb.get(v) or '–'} | {tie.get(v, '')} |")
        lines.append(f"| {key[0]}, {key[1]} | fastest | {', '.join(x.fastest)} ({x.fastest_outcome}) "
                     f"| {', '.join(y.fastest)} ({y.fastest_outcome}) | | | |")
    lines += ["", f"Same classifications: {'yes' if agree else 'no'}."]
    return "\n".join(lines) + "\n"


NOTES = "## Notes"  # from this heading on, the file is written by hand and kept


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a", nargs="?", type=Path, default=DEFAULT_A)
    p.add_argument("b", nargs="?", type=Path, default=DEFAULT_B)
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        la = tables.load_set(open_set(args.a, Path(tmp) / "a"))
        lb = tables.load_set(open_set(args.b, Path(tmp) / "b"))
        a, b = la.rs, lb.rs
        text = table(a, b) + classifications(la, lb) + sweep_vs_run(a)
    print(text, end="")
    if args.out:
        write_report(args.out, "# Two captures on the same H200\n\n`python benchmarks/capture_agreement.py`\n\n", text)
    return 0


def write_report(out: Path, head: str, text: str) -> None:
    """The generated part, then the notes (from NOTES on, written by hand) that the file already held."""
    kept = out.read_text(encoding="utf-8") if out.is_file() else ""
    notes = kept[kept.index(NOTES):] if NOTES in kept else ""
    out.write_text(head + text + ("\n" + notes if notes else ""), encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
