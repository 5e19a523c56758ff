"""Do two captures on one GPU give the same verdicts? The decision and every scenario's verdict, side by side.

Takes: two result sets (folders, or .tgz files as `python -m gen import` reads them; default: the committed
H100 set of 2026-12-06 and a paired-rounds capture with FlashAttention-4 a day later on a later lease, kept in
benchmarks/data/captures/).
Gives: a Markdown report on stdout (and --out FILE): the default call and each exception the decision box
makes; per scenario and mode, the verdict's fastest (with the variants whose intervals reach it), its
outcome, and the default call's standing; then how many of these agree. No torch.
capture_agreement.py compares the times and every rank; this compares what the site tells a reader to call.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from capture_agreement import open_set  # noqa: E402

from gen.analysis import advice, rules, tables, verdicts  # noqa: E402
from gen.model import schema  # noqa: E402
from gen.report.words import first_screen  # noqa: E402
from gen.report.words import orders as orders_words  # noqa: E402

DEFAULT_A = ROOT / "results" / "nvidia-h100-80gb-hbm3__torch-2.11.0"
DEFAULT_B = ROOT / "benchmarks" / "data" / "captures" / "nvidia-h100-80gb-hbm3__torch-2.11.0__paired-fa4.tgz"


def said(ls: tables.LoadedSet) -> dict[str, str]:
    """What the site says to call, keyed by the question: the decision box, then each scenario's verdict."""
    out: dict[str, str] = {}
    a = advice.advice(ls)
    if a is not None:
        out["decision: default call"] = a.default
        for e in a.exceptions:
            out[f"decision: exception in {e.scenario}, {e.mode}"] = e.variant
        for p in a.picks:
            out[f"decision: the default in {p.scenario}, {p.mode}"] = standing(p, a.default)
    for scenario in verdicts.scenarios(ls):
        for mode in schema.Mode:
            v = verdicts.verdict(ls, scenario, mode)
            if v is None:
                continue
            first = sorted({v.fastest.variant, *v.same_kernel, *v.near})
            out[f"verdict: {scenario}, {mode}"] = f"{', '.join(first)} ({outcome(v)})"
    return out


NOT_DECIDED = "not decided"
KERNELS_BEHIND = "within noise as run; {} behind by kernel sum"


def outcome(v) -> str:
    """A verdict's outcome as its page heads it (gen.report.words.verdicts): "not decided" where a pair's as-run
    intervals are apart and the rule leaves it open, "within noise as run; X behind by kernel sum" where the sums put a
    call of the first rank behind, else the verdict's own outcome (review 8, review 6 #5)."""
    if v.fastest_outcome != rules.YES and v.near:
        if v.undecided():
            return NOT_DECIDED
        behind = sorted({x for o in v.orders if (x := orders_words.kernels_behind(o))})
        if behind:
            return KERNELS_BEHIND.format(", ".join(behind))
    return v.fastest_outcome



NOISE = "within noise"
# The default's standing in the pages' words where the pick's outcome is within noise (gen.report.pages.decision, the
# first screen): another call leads it by kernel sum (Orders.kernels_leader), or the two were timed apart and not
# decided (Orders.timed_apart)
BEHIND_BY_KERNELS, TIMED_APART, SLOWER = "behind by kernel sum", "not decided (timed apart)", "slower"


def standing(p, default: str) -> str:
    """A pick's outcome as the first screen counts it: "behind by kernel sum" and "not decided (why)" (timed apart, or
    within identical kernels' noise: first_screen.not_decided) where within noise says less than the pages do, else
    the outcome."""
    if p.outcome != NOISE:
        return p.outcome
    if any(o.kernels_leader is not None and o.kernels_leader != default for o in p.orders):
        return BEHIND_BY_KERNELS
    open_ = [o for o in p.orders if o.undecided]
    if open_:
        return first_screen.not_decided(orders_words.undecided_why(open_[0]))
    return p.outcome


def _same_sense(answer: str | None) -> str | None:
    """An answer reduced to what it tells a reader: a decision's standing first, sharing the first rank ("not decided"
    leaves it sharing it), or behind; a verdict's leaders and outcome, "not decided" read as within noise, and a call
    of a tie behind by kernel sum as behind."""
    if answer is None:
        return None
    if answer == NOT_DECIDED or (answer.startswith(NOT_DECIDED + " (") and answer.endswith(")")):
        return NOISE
    if answer == BEHIND_BY_KERNELS:
        return SLOWER
    leaders, said = _parts(answer)
    if not leaders:
        return answer
    if said == NOT_DECIDED:
        return f"{', '.join(sorted(leaders))} ({NOISE})"
    head, _, tail = KERNELS_BEHIND.partition("{}")
    if said.startswith(head) and said.endswith(tail):
        rest = sorted(leaders - set(said[len(head):len(said) - len(tail)].split(", ")))
        return f"{', '.join(rest)} ({'yes' if len(rest) == 1 else NOISE})"
    return answer


def _parts(answer: str | None) -> tuple[frozenset, str]:
    """A verdict answer 'a, b (outcome)' as (its leaders, its outcome); a decision's outcome alone as ({}, it)."""
    if answer is None:
        return frozenset(), ""
    head, _, tail = answer.rpartition(" (")
    return (frozenset(head.split(", ")), tail.rstrip(")")) if head else (frozenset(), answer)


def compatible(x: str | None, y: str | None) -> bool:
    """Two answers that do not contradict each other: the same; or one says two calls cannot be told apart
    ('within noise') where the other tells them apart, its leaders among the first's (a tie in one capture and
    a leader in the other: the reader's call is the same either way)."""
    x, y = _same_sense(x), _same_sense(y)
    if x is None or y is None:
        return x == y
    if x == y:
        return True
    (lx, ox), (ly, oy) = _parts(x), _parts(y)
    if NOISE not in (ox, oy):
        return False
    if not lx and not ly:  # a decision's standing: within noise against fastest or slower
        return True
    wide, narrow = ((lx, ly) if ox == NOISE else (ly, lx))
    return bool(narrow) and narrow <= wide if oy != ox else bool(lx & ly)


NOT_ASKED = "not captured"


def report(a: Path, b: Path) -> str:
    la, lb = tables.load_set(a), tables.load_set(b)
    sa, sb = said(la), said(lb)
    keys = list(dict.fromkeys([*sa, *sb]))
    both = [k for k in keys if k in sa and k in sb]  # a mode or scenario one capture did not run answers nothing
    same = sum(_same_sense(sa[k]) == _same_sense(sb[k]) for k in both)
    reworded = sum(sa[k] != sb[k] and _same_sense(sa[k]) == _same_sense(sb[k]) for k in both)
    lines = [f"A: `{la.name}` ({la.rs.environment.date}); B: `{lb.name}` ({lb.rs.environment.date}); "
             f"{la.rs.environment.gpu_name}, torch {la.rs.environment.torch}.", "",
             "| question | A says | B says | same |", "|---|---|---|---|"]
    lines += [f"| {k} | {sa.get(k, NOT_ASKED)} | {sb.get(k, NOT_ASKED)} | "
              + ("–" if k not in both else "yes" if sa[k] == sb[k] else
                 "yes, in other words" if _same_sense(sa[k]) == _same_sense(sb[k]) else "**no**") + " |"
              for k in keys]
    fit = sum(compatible(sa[k], sb[k]) for k in both)
    other = (f" ({reworded} in other words: '{BEHIND_BY_KERNELS}' and '{SLOWER}' both put another call first, "
             f"'{NOT_DECIDED}' and '{NOISE}' both leave the default, or the calls named, sharing the first rank, "
             f"and a call '{KERNELS_BEHIND.format('X')}' is behind)" if reworded else "")
    lines += ["", f"Of the {len(both)} questions both captures answer: the same answer to {same}{other}; {fit} do not "
              "contradict each other (the same, or one capture cannot tell two calls apart where the other can, its "
              "leader among the two)."]
    if len(both) < len(keys):
        lines.append(f"{len(keys) - len(both)} questions only one capture answers ({NOT_ASKED}: it did not run that "
                     "mode or scenario).")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", nargs="?", type=Path, default=DEFAULT_A)
    ap.add_argument("b", nargs="?", type=Path, default=DEFAULT_B)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as ta, tempfile.TemporaryDirectory() as tb:
        text = report(open_set(args.a, Path(ta)), open_set(args.b, Path(tb)))
    sys.stdout.write(text)
    if args.out:
        args.out.write_text(f"# Two captures, the same verdicts?\n\n`python {' '.join(sys.argv)}`\n\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
