"""`attention-report compare BASE NEW`: two result sets side by side, per variant, and the regression gate.

Takes: two loaded sets (gen.analysis.tables). Gives: `compare_frame(a, b, mode)`,
one row per variant of either set: kernels per forward on each side, kernels
added and removed (matched by short name, as multisets; memcpy and memset
events match by kind), GPU and CPU time on each side with the ratio B/A, and
the speed rank on each side (the site's comparison reads it). `rows(...)`: the
CLI's rows (gen.model.output.CompareRow), the gate's ratios with their intervals
(gen.analysis.gate) beside the kernels; `run(root, base, new, fmt, ...)` the verb
(table, JSON, CSV or Markdown, and whether the gate failed), `default_pair(sets)`
the pair the site shows first, `partner(ls, sets, lead)` the set each set is compared with, and
`lead_sets(sets)` the sets the pages over all sets show.

A reference set holds only what its source published: where it named fewer
kernels than it counted, the kernel lists are partial and only the names it
did publish are matched; the columns say so. No torch.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from gen.analysis import comparability, gate, leads, rules, sets, tables, verdicts
from gen.analysis.values import missing, number, text_table, variant_order
from gen.model import layout, output, schema, trace

COLUMNS = ["variant", "status_a", "status_b", "kernels_a", "kernels_b", "kernels_added", "kernels_removed",
           "kernel_match", "gpu_only_ms_a", "gpu_only_ms_b", "gpu_only_ratio", "gpu_only_method_a", "gpu_only_method_b",
           "host_ms_a", "host_ms_b", "host_ratio", "host_ref_ms_a", "host_ref_ms_b", "host_ref_us_a", "host_ref_us_b",
           "rank_a", "rank_b", "time_basis_a", "time_basis_b", "sm_clock_mhz_a", "sm_clock_mhz_b", "clocks_apart"]


def _key(name: str, kind: str | None = None) -> str:
    if kind == "memcpy" or name.startswith("Memcpy"):
        return "Memcpy"
    if kind == "memset" or name.startswith("Memset"):
        return "Memset"
    return trace.short_name(name)


def kernel_names(ls: tables.LoadedSet, variant: str, mode: str) -> tuple[list[str], bool] | None:
    """Matching keys of one forward's GPU events, and whether the list is complete.
    None when the set has no kernel list for the variant (CPU set, not run)."""
    run = ls.rs.run(variant, mode)
    if run is None or run.status != "ok":
        return None
    if ls.kind == "reference":
        names = [_key(n) for n in (run.published.kernels if run.published else [])]
        count = run.published.kernels_per_forward if run.published else None
        if not names:
            return None
        return names, count is not None and len(names) >= count
    kt = tables.kernel_table(ls, variant, mode)
    if kt.empty:
        return None
    return [_key(n, k) for n, k in zip(kt["name"], kt["kind"])], True


def _ranks(df: pd.DataFrame, ls: tables.LoadedSet | None = None, mode: str = "inference") -> tuple[pd.Series, str]:
    """The verdict's ranks where the set has a verdict (ties on the same kernels and rows within noise share a
    rank, as on every other page); else by median GPU-only time, or host wall time where the set has no GPU
    time (a published set)."""
    if df.empty:
        return pd.Series(dtype=float), "none"
    col, basis = ("gpu_only_ms", "GPU-only") if df["gpu_only_ms"].notna().any() else ("host_ms", "host wall")
    v = verdicts.verdict(ls, "article", mode) if ls is not None else None
    if v is not None and v.rank_of_:
        ranks = dict(v.rank_of_)
        return pd.Series({x: float(ranks[x]) if x in ranks else np.nan
                          for x in dict.fromkeys(df["variant"])}, dtype=float), basis
    return df.set_index("variant")[col].rank(method="min"), basis


def _num(x) -> float:
    """A float for the frame: NaN where missing."""
    n = number(x)
    return np.nan if n is None else n


# The summary columns a comparison reads of each variant's row.
_READ = ("variant", "status", "kernels_per_forward", "gpu_only_ms", "gpu_only_method", "host_ms", "host_ref_ms",
         "sm_clock_mhz")


def _first_rows(st: pd.DataFrame) -> dict[str, dict]:
    """variant -> the first summary row of it, the columns compare_frame reads (those the table has),
    as to_dict("records") gives them."""
    if st.empty:
        return {}
    cols = [c for c in _READ if c in st.columns]
    out: dict[str, dict] = {}
    for values in zip(*(st[c].tolist() for c in cols)):
        row = dict(zip(cols, values))
        out.setdefault(row["variant"], row)
    return out


def compare_frame(a: tables.LoadedSet, b: tables.LoadedSet, mode: str = "inference") -> pd.DataFrame:
    sa, sb = tables.summary_table(a, mode), tables.summary_table(b, mode)
    ra, basis_a = _ranks(sa, a, mode)
    rb, basis_b = _ranks(sb, b, mode)
    seen = set(sa.get("variant", [])) | set(sb.get("variant", []))
    order = variant_order(seen)
    by_a, by_b = _first_rows(sa), _first_rows(sb)
    # A GPU set's host time is the host's dispatch of GPU work, a CPU set's the whole computation: no ratio
    cross = a.environment.device != b.environment.device
    rows = []
    for v in order:
        ea, eb = by_a.get(v, {}), by_b.get(v, {})
        ka, kb = kernel_names(a, v, mode), kernel_names(b, v, mode)
        added = removed = None
        if ka is None or kb is None:
            match = "no kernel list on " + " and ".join(
                s for s, k in (("A", ka), ("B", kb)) if k is None)
        else:
            ca, cb = Counter(ka[0]), Counter(kb[0])
            # Names on a partial side that the complete side lacks are surely
            # added (or removed); "none" can only be said when both are complete.
            plus, minus = sorted((cb - ca).elements()), sorted((ca - cb).elements())
            added = plus if ka[1] and (kb[1] or plus) else None
            removed = minus if kb[1] and (ka[1] or minus) else None
            match = "full" if ka[1] and kb[1] else "partial: " + " and ".join(
                f"{s} names only {len(k[0])} kernel(s)" for s, k in (("A", ka), ("B", kb)) if not k[1])
        ga, gb = _num(ea.get("gpu_only_ms")), _num(eb.get("gpu_only_ms"))
        ca_, cb_ = _num(ea.get("host_ms")), _num(eb.get("host_ms"))
        rows.append(dict(
            variant=v, status_a=ea.get("status", "absent"), status_b=eb.get("status", "absent"),
            kernels_a=_num(ea.get("kernels_per_forward")), kernels_b=_num(eb.get("kernels_per_forward")),
            kernels_added=added, kernels_removed=removed, kernel_match=match,
            gpu_only_ms_a=ga, gpu_only_ms_b=gb, gpu_only_ratio=gb / ga if ga and gb else np.nan,
            gpu_only_method_a=ea.get("gpu_only_method"), gpu_only_method_b=eb.get("gpu_only_method"),
            host_ms_a=ca_, host_ms_b=cb_, host_ratio=cb_ / ca_ if ca_ and cb_ and not cross else np.nan,
            # the host's reference call beside each host time: how fast each set's host dispatched (a
            # host ratio of 2.55x means little without the hosts' own 1.7x)
            host_ref_ms_a=_num(ea.get("host_ref_ms")), host_ref_ms_b=_num(eb.get("host_ref_ms")),
            host_ref_us_a=_num(ea.get("host_ref_ms")) * 1e3, host_ref_us_b=_num(eb.get("host_ref_ms")) * 1e3,
            rank_a=_num(ra.get(v)) if ea.get("status") == "ok" else np.nan,
            rank_b=_num(rb.get(v)) if eb.get("status") == "ok" else np.nan,
            time_basis_a=basis_a, time_basis_b=basis_b,
            # the mean SM clock of each side's GPU-only window, and whether the two are farther apart than the clock
            # gate the kernel sums are read by (a B/A at one clock looked like any other)
            sm_clock_mhz_a=_num(ea.get("sm_clock_mhz")), sm_clock_mhz_b=_num(eb.get("sm_clock_mhz")),
            clocks_apart=_clocks_apart(ea.get("sm_clock_mhz"), eb.get("sm_clock_mhz")),
        ))
    return pd.DataFrame(rows, columns=COLUMNS)


def _clocks_apart(a_mhz, b_mhz) -> bool | None:
    """The two windows' clocks more than rules.CLOCK_GAP_PCT apart; None where either is not recorded."""
    gap = rules.clock_gap_pct(_num(a_mhz), _num(b_mhz))
    return None if gap is None else gap > rules.CLOCK_GAP_PCT


def default_pair(sets: list[tables.LoadedSet]) -> tuple[tables.LoadedSet, tables.LoadedSet] | None:
    """The site's default comparison: the first measured GPU set against the first reference set
    (or against the next measured set when there is no reference)."""
    gpu = [s for s in sets if s.measured and s.environment.device == "cuda"]
    ref = [s for s in sets if s.kind == "reference"]
    if gpu and ref:
        return gpu[0], ref[0]
    others = [s for s in sets if s.measured and (not gpu or s is not gpu[0])]
    if gpu and others:
        return gpu[0], others[0]
    return None


def gpu_model(gpu_name: str | None) -> str | None:
    """The model word of a GPU's name ("NVIDIA H100 80GB HBM3" -> "H100"), else None."""
    m = re.search(r"\b([A-Z]{1,2}\d{2,3}[A-Z]?)\b", (gpu_name or "").upper())
    return m.group(1) if m else None


def partner(ls: tables.LoadedSet, sets: list[tables.LoadedSet],
            lead: tables.LoadedSet | None) -> tables.LoadedSet | None:
    """The measured set a set is compared with: for a published set, the newest (_newness) measured set of the
    same GPU model (published figures read against our run on that GPU), else the lead set."""
    if ls.kind == "reference":
        model = gpu_model(ls.environment.gpu_name)
        same = [s for s in sets if s.measured and s.environment.device == "cuda" and model
                and gpu_model(s.environment.gpu_name) == model]
        if same:
            return max(same, key=_newness)
    return lead


def _version(text: str | None) -> tuple[int, ...]:
    """A PyTorch version's numbers ("2.11.0+cu130" -> (2, 11, 0)); () when none is known."""
    return tuple(int(x) for x in re.findall(r"\d+", (text or "").split("+")[0])[:3])


def machine(ls: tables.LoadedSet) -> str:
    """What a set ran on, as the matrix groups sets: its GPU's name, or its CPU's on a set without a GPU."""
    env = ls.environment
    return env.gpu_name or f"CPU {env.cpu or ''}".strip()


def _newness(s: tables.LoadedSet) -> tuple:
    """What "newest" orders sets by: PyTorch version, then capture date, then name."""
    return (_version(s.environment.torch), s.environment.date or "", s.name)


def lead_sets(sets: list[tables.LoadedSet], first: tables.LoadedSet | None = None) -> list[tables.LoadedSet]:
    """The sets the pages over all sets show one by one, however large the matrix: the newest measured set
    of each machine (by PyTorch version, then date, then name), the site's lead set (`first`) and every
    published set; in the sets' order. The others are each on their own pages and in the list of sets."""
    newest: dict[str, tables.LoadedSet] = {}
    for s in sets:
        if s.measured:
            m = machine(s)
            if m not in newest or _newness(s) > _newness(newest[m]):
                newest[m] = s
    keep = {id(s) for s in newest.values()} | ({id(first)} if first is not None else set())
    return [s for s in sets if id(s) in keep or s.kind == "reference"]


def describe(ls: tables.LoadedSet) -> str:
    env = ls.environment
    where = env.gpu_name or f"CPU: {env.cpu}"
    text = f"{ls.name} ({where}"
    text += f", torch {env.torch})" if env.torch else ")"
    if ls.kind == "reference":
        text += f": published figures, not measured here; source: {ls.outline.source}"
    return text


def _pick(root: Path, name: str, option: str) -> tables.LoadedSet:
    layout.settle(root)  # a set that a killed publish left aside is put back (or named), never read around
    known = [p.name for p in schema.list_sets(root)]
    if name not in known:
        raise schema.UserError(f"{option}: no result set {name!r} under {root}; "
                               f"known sets: {', '.join(known) or 'none'}")
    return tables.load_set(root / name)


def _clean(x):
    """A number to six significant figures: rounding to decimals left 0.0590 as 0.059 and 0.1290 as 0.129, so a page
    could not print them at the precision of the cells beside them."""
    if isinstance(x, (float, np.floating)):
        return None if missing(x) else float(f"{float(x):.6g}")
    if isinstance(x, np.integer):
        return number(x)
    return x


def records(df: pd.DataFrame) -> list[dict]:
    out = []
    for r in df.to_dict("records"):
        rec = {k: _clean(v) for k, v in r.items()}
        for k in ("kernels_a", "kernels_b", "rank_a", "rank_b"):
            rec[k] = None if rec[k] is None else int(rec[k])
        out.append(rec)
    return out


def _f(x, spec: str) -> str:
    return "—" if x is None else format(x, spec)


def _point_label(p: output.Point) -> str:
    text = f"B{p.batch} H{p.q_heads}/{p.kv_heads} D{p.head_dim} q{p.q_len} kv{p.kv_len}"
    return text + (f" w{p.window}" if p.window else "")


def _names(x) -> str:
    return "?" if x is None else (", ".join(x) or "none")


def _interval(r: output.CompareRow) -> str:
    if r.ratio is None:
        return "—"
    text = f"{r.ratio:.3f}"
    return text + (f" [{r.ratio_ci_lo:.3f}, {r.ratio_ci_hi:.3f}]" if r.ratio_ci_lo is not None else "")


def _outcome(r: output.CompareRow) -> str:
    if r.slower:
        return "SLOWER"
    if r.tie is None:
        return "—"
    if r.tie:
        return "tie"
    if r.ratio < 1:
        return "faster"
    return "slower, within the bound" if r.slower is False else "slower"


def gate_cells(r: output.CompareRow, scenario: str) -> list[str]:
    """The gate's columns of one row, as text: what both the table and the Markdown show."""
    where = [] if scenario == "article" else [_point_label(r.point) if r.point else "—"]
    return [r.variant, *where, _f(r.gpu_only_ms_base, ".4f"), _f(r.gpu_only_ms_new, ".4f"), _interval(r),
            _f(r.ratio_at_ref_clock, ".3f"), _outcome(r)]


def gate_columns(scenario: str) -> list[str]:
    where = [] if scenario == "article" else ["point"]
    return ["variant", *where, "GPU-only ms BASE", "GPU-only ms NEW", "NEW/BASE [95%]", "at equal clock", "outcome"]


def _verdict_line(verdict: output.Gate) -> str:
    if verdict.fail_above is None:
        return "gate: not asked for (--fail-above R)"
    if not verdict.judged:
        return ("gate: nothing to judge: no selected row has GPU-only times with intervals on both sides "
                "(a reference or CPU set has none)")
    if verdict.failed:
        return (f"gate: FAILED: slower than x{verdict.fail_above:g} beyond the 95% intervals: "
                + ", ".join(verdict.failing))
    return (f"gate: passed: none of the {verdict.judged} rows judged is slower than x{verdict.fail_above:g} beyond "
            "the 95% intervals")


def table(a: tables.LoadedSet, b: tables.LoadedSet, recs: list[output.CompareRow], mode: str,
          scenario: str = "article", verdict: output.Gate | None = None) -> str:
    head = [f"BASE: {describe(a)}", f"NEW: {describe(b)}",
            f"mode: {mode}; scenario: {scenario}; ratios are NEW/BASE of GPU-only time, with the 95% bootstrap "
            "interval; tie: the medians' intervals overlap; equal clock: each time scaled to the GPU's highest SM "
            "clock (a model, see the methodology; the gate judges the ratio as run)"]
    body = text_table(gate_columns(scenario), [gate_cells(r, scenario) for r in recs])
    kernels = []
    if scenario == "article":
        cols = ["variant", "kernels BASE", "kernels NEW", "added in NEW", "removed in NEW", "host ms BASE",
                "host ms NEW", "NEW/BASE", "rank BASE", "rank NEW"]
        kernels = ["", "'?' = not known (a side published only some kernel names, or has no kernels)", *text_table(
            cols, [[r.variant, _f(r.kernels_base, "d"), _f(r.kernels_new, "d"), _names(r.kernels_added),
                    _names(r.kernels_removed), _f(r.host_ms_base, ".4f"), _f(r.host_ms_new, ".4f"),
                    _f(r.host_ratio, ".2f"), _f(r.rank_base, "d"), _f(r.rank_new, "d")] for r in recs])]
    tail = [] if verdict is None else ["", _verdict_line(verdict)]
    return "\n".join([*head, *body, *kernels, *tail])


def _md_cell(text: str) -> str:
    """A table cell of GitHub Markdown: pipes and markup characters escaped, so a set's strings show as text."""
    for ch in "\\|`*_[]<>":
        text = text.replace(ch, "\\" + ch)
    return text


def markdown(a: tables.LoadedSet, b: tables.LoadedSet, recs: list[output.CompareRow], mode: str, scenario: str,
             verdict: output.Gate, warnings: list[str]) -> str:
    """A pull-request comment: the gate's outcome first, then one row per variant."""
    cols = gate_columns(scenario)
    status = ("**Regression gate failed**" if verdict.failed else "**Regression gate passed**"
              if verdict.fail_above is not None else "**Comparison**")
    lines = [f"{status}: {_md_cell(_verdict_line(verdict))}", "",
             f"BASE: {_md_cell(describe(a))}  ", f"NEW: {_md_cell(describe(b))}  ",
             f"mode {_md_cell(mode)}, scenario {_md_cell(scenario)}; NEW/BASE of GPU-only time, 95% bootstrap "
             "interval in brackets; tie: the medians' 95% intervals overlap.", ""]
    lines += [f"> {_md_cell(w)}" for w in warnings] + ([""] if warnings else [])
    lines += ["| " + " | ".join(cols) + " |", "|" + "|".join(["---"] + ["--:"] * (len(cols) - 2) + ["---"]) + "|"]
    lines += ["| " + " | ".join(_md_cell(c) for c in gate_cells(r, scenario)) + " |" for r in recs]
    return "\n".join(lines)


CSV_POINT = ("batch", "q_heads", "kv_heads", "head_dim", "q_len", "kv_len", "mask", "window")


def csv_text(recs: list[output.CompareRow]) -> str:
    """One line per row: CompareRow's fields, the point's as columns of their own, lists joined by ';'."""
    import csv
    import dataclasses
    import io

    names = [f.name for f in dataclasses.fields(output.CompareRow) if f.name != "point"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*names[:3], *CSV_POINT, *names[3:]])
    for r in recs:
        d = dataclasses.asdict(r)
        p = d.pop("point") or {}
        cells = [";".join(v) if isinstance(v, list) else v for v in d.values()]
        w.writerow([*cells[:3], *(p.get(k) for k in CSV_POINT), *cells[3:]])
    return buf.getvalue().rstrip("\n")


def issue_line(i: comparability.Issue) -> str:
    """One comparability issue as a line of the CLI's output."""
    if i.kind == "shape":
        return (f"warning: different shapes: BASE {comparability.point_text(i.a)}, "
                f"NEW {comparability.point_text(i.b)}; times at different shapes are not comparable")
    if i.kind == "noisy":
        def one(n) -> str:
            return f"{n.variant} ({n.timing}: " + (f"n={n.n})" if n.kind == "few" else f"IQR {n.iqr_pct:.0f}%)")

        sides = [f"{side} " + ", ".join(one(n) for n in ns) for side, ns in (("BASE", i.a), ("NEW", i.b)) if ns]
        return "warning: noisy or thin timings: " + "; ".join(sides)
    if i.kind == "scenario":
        return f"warning: {'BASE' if not i.a else 'NEW'} has no data for scenario {i.quantity}"
    what = {"definition": f"{i.quantity} time defined differently"}.get(i.kind, f"different {i.kind}s")
    return f"warning: {what}: BASE {i.a}, NEW {i.b}"


def _point(p: schema.Point | None) -> output.Point | None:
    if p is None:
        return None
    return output.Point(batch=p.batch, q_heads=p.q_heads, kv_heads=p.kv_heads, head_dim=p.head_dim, q_len=p.q_len,
                        kv_len=p.kv_len, mask=str(p.mask), window=p.window, docs=list(p.docs) if p.docs else None)


def _ratio_of(x: float, y: float) -> float | None:
    return number(y / x, 4) if x and y and not (np.isnan(x) or np.isnan(y)) else None


def rows(a: tables.LoadedSet, b: tables.LoadedSet, mode: str = "inference", scenario: str = "article",
         variants: list[str] | None = None, fail_above: float | None = None) -> list[output.CompareRow]:
    """The compare verb's rows: the gate's ratios (gen.analysis.gate) of every selected variant (and
    point), with the article's kernel lists and ranks (compare_frame) beside them."""
    frame = {r["variant"]: r for r in records(compare_frame(a, b, mode))} if scenario == "article" else {}
    out = []
    for g in gate.ratios(a, b, mode, scenario, variants):
        f = frame.get(g.variant, {})
        ga = f.get("gpu_only_ms_a", number(g.base.spread.median, 4))
        gb = f.get("gpu_only_ms_b", number(g.new.spread.median, 4))
        ha = f.get("host_ms_a", number(g.base.host_ms, 4))
        hb = f.get("host_ms_b", number(g.new.host_ms, 4))
        ratio = number(g.ratio, 4)
        out.append(output.CompareRow(
            scenario=g.scenario, variant=g.variant, mode=g.mode, point=_point(g.point),
            status_base=g.base.status, status_new=g.new.status,
            kernels_base=f.get("kernels_a"), kernels_new=f.get("kernels_b"), kernels_added=f.get("kernels_added"),
            kernels_removed=f.get("kernels_removed"), kernel_match=f.get("kernel_match"),
            gpu_only_ms_base=ga, gpu_only_ms_new=gb,
            gpu_only_ci_lo_ms_base=number(g.base.spread.ci_lo, 6),
            gpu_only_ci_hi_ms_base=number(g.base.spread.ci_hi, 6),
            gpu_only_ci_lo_ms_new=number(g.new.spread.ci_lo, 6), gpu_only_ci_hi_ms_new=number(g.new.spread.ci_hi, 6),
            gpu_only_method_base=f.get("gpu_only_method_a", g.base.method),
            gpu_only_method_new=f.get("gpu_only_method_b", g.new.method),
            ratio=ratio if ratio is not None else _ratio_of(ga, gb),
            ratio_ci_lo=number(g.ci_lo, 4), ratio_ci_hi=number(g.ci_hi, 4), tie=g.tie,
            sm_clock_mhz_base=number(g.base.sm_clock_mhz, 1), sm_clock_mhz_new=number(g.new.sm_clock_mhz, 1),
            ref_mhz=number(g.ref_mhz, 1), ratio_at_ref_clock=number(g.ratio_at_ref_clock, 4),
            slower=None if fail_above is None else gate.slower(g, fail_above),
            host_ms_base=ha, host_ms_new=hb, host_ratio=_ratio_of(ha, hb),
            rank_base=f.get("rank_a"), rank_new=f.get("rank_b"),
        ))
    return out


@dataclass(frozen=True)
class Result:
    """The compare verb's text and whether the gate failed (exit status 1)."""

    text: str
    failed: bool


def run(root: Path, set_a: str, set_b: str, fmt: str = "table", mode: str = "inference", force: bool = False,
        warn=None, scenario: str = "article", variants: list[str] | None = None,
        fail_above: float | None = None) -> Result:
    """The compare verb (BASE = set_a, NEW = set_b). Refuses sets measured at different shapes, dtypes or
    without the scenario (comparability.Incomparable, one line) unless `force`; every issue is a
    "warning:" line on top of the table, or handed to `warn` (the CLI's stderr) with a machine format."""
    a = _pick(Path(root), set_a, "BASE")
    b = _pick(Path(root), set_b, "NEW")
    found = comparability.issues(a, b, scenario, mode) if force else comparability.require_comparable(
        a, b, scenario, mode)
    lines = [issue_line(i) for i in found]
    recs = rows(a, b, mode, scenario, variants, fail_above)
    absent = [v for v in variants or [] if not any(r.variant == v for r in recs)]
    if absent:
        raise schema.UserError(f"--variant: neither {a.name} nor {b.name} holds {', '.join(absent)} "
                               f"({mode}, scenario {scenario})")
    failing = [r.variant + ("" if r.point is None or scenario == "article" else f" @ {_point_label(r.point)}")
               for r in recs if r.slower]
    judged = sum(r.tie is not None for r in recs)
    verdict = output.Gate(fail_above=fail_above, failed=bool(failing), failing=failing, judged=judged)
    if fmt in ("json", "csv"):
        for line in lines:
            (warn or (lambda _: None))(line)
        if fmt == "csv":
            return Result(csv_text(recs), verdict.failed)
        text = sets.envelope("compare", [sets.identity(a), sets.identity(b)], recs, mode=mode, scenario=scenario,
                             variants=variants, gate=verdict)
        return Result(text, verdict.failed)
    if fmt == "markdown":
        return Result(markdown(a, b, recs, mode, scenario, verdict, lines), verdict.failed)
    return Result("\n".join([*lines, table(a, b, recs, mode, scenario, verdict)]), verdict.failed)


@dataclass(frozen=True)
class RunApart:
    """One call at one point timed in two sets of the same GPU: apart as run, by kernel sum within the floor."""

    scenario: str
    mode: str
    point: schema.Point
    variant: str
    a_ms: float
    b_ms: float
    a_mhz: float | None
    b_mhz: float | None
    a_ks_ms: float
    b_ks_ms: float


def as_run_apart(a: tables.LoadedSet, b: tables.LoadedSet) -> list[RunApart]:
    """Where two sets of one GPU model timed the same call at the same point and its as-run medians differ by more
    than rules.ORIENTATION_GAP_PCT (the gap at which the methodology marks a round order's effect) while its kernel
    sums agree within rules.TIME_FLOOR_PCT (SDPA cuDNN at the article's
    16k, head dim 128, 13.70 ms in one H100 set and 16.58 ms in the other at a higher clock, kernel sums 13.73 and
    13.76 ms): the as-run time moved with the rounds' order and clock, not with the kernel. Largest ratio first."""
    if (a.rs.kind != schema.SetKind.MEASURED or b.rs.kind != schema.SetKind.MEASURED
            or gpu_model(a.rs.environment.gpu_name) != gpu_model(b.rs.environment.gpu_name)):
        return []
    out = []
    here = {(s.scenario, s.mode, s.point) for s in a.rs.sweep}
    for sc, mode, p in sorted({(s.scenario, s.mode, s.point) for s in b.rs.sweep} & here, key=str):
        va, vb = verdicts.verdict_at(a, sc, p, mode), verdicts.verdict_at(b, sc, p, mode)
        if va is None or vb is None or va.basis != "gpu_only" or vb.basis != "gpu_only":
            continue
        for ra in va.rows:
            rb = vb.row(ra.variant)
            sa, sb = va.spread(ra), (vb.spread(rb) if rb is not None else None)
            ka, kb = leads.kernel_sum_ms(ra), (leads.kernel_sum_ms(rb) if rb is not None else None)
            if sa is None or sb is None or not ka or not kb or not sa.median or not sb.median:
                continue
            if schema.GpuOnlyMethod.KERNEL_SUM in (ra.gpu_only_method, rb.gpu_only_method):
                continue  # a kernel sum standing in for a set-aside replay is no as-run time
            if max(sa.median, sb.median) / min(sa.median, sb.median) <= 1 + rules.ORIENTATION_GAP_PCT / 100:
                continue
            if max(ka, kb) / min(ka, kb) <= rules.TIME_FLOOR:
                out.append(RunApart(sc, mode, p, ra.variant, sa.median, sb.median, ra.sm_clock_mhz, rb.sm_clock_mhz,
                                    ka, kb))
    return sorted(out, key=lambda r: -max(r.a_ms, r.b_ms) / min(r.a_ms, r.b_ms))
