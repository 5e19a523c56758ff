"""One measured set in one scenario: the view model of its page (`set_view(ctx, ls, name)`, made once per
context) and the rows of its tables (`table_rows`).

Takes: a `site.Context`, a loaded set and a scenario's name. Gives: per mode the table of every variant at every
point (refusals with PyTorch's reason, grouped), the headline, the ceilings, the charts (time, rate, roofline),
the published anchors beside our numbers with what differs, and the notes (conditions, determinism, FP8,
wrong answers, packed documents, merged calls); `source_notes` (a source's notes, merged). Numbers from
gen.analysis.scenarios, sentences from gen.report.words.scenarios and .published, charts from
gen.report.charts. The page itself (scenario_page.md.j2) is laid out by gen.report.pages.scenarios.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from gen.analysis import calls, clocks, determinism, fwdbwd, published_sums, rules, scaling, unmeasured, verdicts
from gen.analysis import scenarios as sa
from gen.analysis.points import sol_floors
from gen.analysis.values import missing
from gen.model import datasheets, schema, variants
from gen.model import scenarios as declared
from gen.report import charts
from gen.report import format as fmt
from gen.report.pages import scenario_first, training
from gen.report.site import Context, RowsHTML, chart_div, hole, records, summary_command
from gen.report.words import ceiling_share
from gen.report.words import common as words
from gen.report.words import published as published_words
from gen.report.words import scenarios as scenario_words
from gen.report.words import tables as table_words
from gen.report.words import verdicts as verdict_words


def _label(v: str) -> str:
    return fmt.label_of(v)


def _anchors(ctx: Context, ls, name: str):
    return ctx._once(("scenario_anchors", ls.name, name), lambda: sa.anchor_frame(ctx.sets, name, ls))


def _against(ls, name: str, anchors, rows: list[dict]) -> list[tuple]:
    """The published figures (a frame) and the point rows each is set against (published_sums.anchor_rows): one
    record of ours per call and shape on every page."""
    groups = published_sums.anchor_rows(name, records(anchors), rows, lambda other: sa.point_rows(ls, other))
    return [(pd.DataFrame(a, columns=anchors.columns), r) for a, r in groups]


def _graph_found(rows: list[dict]) -> list[tuple[str, str | None, str | None]]:
    """Per variant marked graph above eager whose graph check saw other kernels: (label, only in the graph,
    only in the eager call), the first point of each."""
    out: dict[str, tuple] = {}
    for r in rows:
        if r.get("graph_above_eager") and r.get("graph_fidelity") == "differs" and r["variant"] not in out:
            out[r["variant"]] = (_label(r["variant"]), r.get("graph_only_in_graph") or None,
                                 r.get("graph_only_in_eager") or None)
    return list(out.values())


def _figure(rows: list[dict]) -> str:
    """TB/s where every inference point of the rows (records of a point frame) is judged by it."""
    inf = [r for r in rows if r["mode"] == schema.Mode.INFERENCE]
    return sa.FIGURE_TBPS if inf and all(r["figure"] == sa.FIGURE_TBPS for r in inf) else sa.FIGURE_TFLOPS


def _backend(variant: str) -> str | None:
    v = variants.VARIANTS.get(variant)
    return v.backend if v else None


def _rows(rows: list[dict], decode: bool, show_dim: bool, pages: dict[str, str], device: str,
          ref_mhz: float | None = None, env=None) -> list[dict]:
    """A table's rows: the point frame's records (left as they are), worded (`env`: the set's environment,
    whose power reading the conditions name)."""
    out = []
    for r in rows:
        fig = scenario_words.figure_of_row(r)
        if r.get("wrong"):
            # A wrong answer did other work than its count says (top-left causal with fewer
            # queries than keys computes a triangle): no rate or share of a ceiling for it.
            r = dict(r, **{fig: None, "pct_of_ceiling": None, "pct_of_datasheet": None, "sol_pct": None,
                           "sol_floor_pct": None, "pct_of_matmul_at_clock": None})
        out.append(dict(r, label=_label(r["variant"]), point=scenario_words.point_label(r, decode, show_dim),
                        page=pages.get(r["variant"]),
                        why_not=words.refusal(r["status"], r["reason"], rules.needs_cuda(
                            r["status"], device, _backend(r["variant"]))) if r["status"] != schema.Status.OK else None,
                        value=scenario_words.figure_value(r[fig], fig), unit=scenario_words.FIGURE_UNIT[fig],
                        thin=calls.thin(r.get("gpu_only_n")),
                        conditions=(table_words.conditions_cell(r, ref_mhz, env) if r["status"] == schema.Status.OK
                                    else None)))
    return out


_RIGHT = ' style="text-align: right;"'  # a right-aligned cell, as Python-Markdown's tables write it
_REFUSED_CELLS = "\n".join(f"<td{a}>–</td>" for a in (_RIGHT, "", "", *[_RIGHT] * 7))  # a refused row's figures


def _at_clock(r: dict) -> str:
    """Beside a share of the matmul ceiling as measured, its share scaled to the point's clock (a model), " (86%)"; ""
    where the row is not set against that ceiling."""
    at = r.get("pct_of_matmul_at_clock")
    return f" ({fmt.num(at, '.0f', '%')})" if not missing(r.get("ceiling_mhz")) and not missing(at) else ""


def table_rows(m: dict, key: str, here: str) -> RowsHTML:
    """A mode's table of every variant at every point: its rows (scenario_page.md.j2's layout, a cell a
    line), written here rather than in the template (some fifteen values a row). Each value of the set is
    finalized and escaped as a template would (site.hole, after fmt.md for Markdown text); a number's
    formatted text (digits, signs, '.', ',', '%', the dash, units) needs neither and is written as it is."""
    h, md, ms, num, R = hole, fmt.md, fmt.ms, fmt.num, _RIGHT
    tbps, dtype, out = m["figure"] == sa.FIGURE_TBPS, m["dtype"], []
    floors = sol_floors(m["rows"])  # one base for the whole compute-SOL column
    for r in m["rows"]:
        label = h(md(r["label"]))
        cells = [f'<td><a href="{h(fmt.html_url(fmt.relpath(r["page"], here)))}">{label}</a></td>' if r["page"]
                 else f"<td>{label}</td>", f'<td>{h(md(r["point"]))}</td>']
        if r["status"] == "ok":
            # (each flag as the template's `if` reads it: Python's truth)
            cells += [
                "<td>ok" + (" (kernel sum)" if r["gpu_only_method"] == "kernel_sum" else "")
                + (" (noisy)" if r["noisy"] else "")
                + (f' (n = {fmt.integer(r["gpu_only_n"])}: thin)' if r["thin"] else "")
                + (" (graph above eager)" if r["graph_above_eager"] else "")
                + (" (host-bound)" if r["host_bound"] else "") + (" (wrong answer)" if r["wrong"] else "")
                + (f' ({h(md(r["dtype"]))})' if r["dtype"] and r["dtype"] != dtype else "") + "</td>",
                f'<td{R}>{ms(r["gpu_only_ms"])}</td>',
                f'<td>{fmt.span((r["gpu_only_q1_ms"], r["gpu_only_q3_ms"]))}</td>',
                f'<td>{h(md(r["conditions"]))}</td>',
                f'<td{R}>{ms(r["eager_ms"])}</td>',
                f'<td{R}>{h(r["value"])}</td>',
                f'<td{R}>{num(r["pct_of_ceiling"], ".0f", "%")}{_at_clock(r)}</td>',
                f'<td{R}>{num(r["pct_of_datasheet"], ".0f", "%") if tbps else h(ceiling_share.sol_cell(r, floors))}'
                '</td>',
                f'<td{R}>{fmt.integer(r["kernels_per_call"])}</td>',
                f'<td{R}>{fmt.size(r["peak_memory_bytes"])}</td>',
                f'<td{R}>{num(r["rel_error"], ".1e")}</td>']
        else:
            ref, at = h(r["ref"]), f'{h(key)}-{h(m["mode"])}-refusal'
            cells += [f'<td>{h(md(r["status"]))} (why: <a href="#{at}-{ref}">{ref}</a>)</td>', _REFUSED_CELLS]
        out.append("<tr>\n" + "\n".join(cells) + "\n</tr>")
    return RowsHTML("\n".join(out))


def _not_run(rows: list[dict]) -> list[str]:
    """The variants of a table with no point that ran, each with why (the first point's reason)."""
    ran = {r["variant"] for r in rows if r["status"] == schema.Status.OK}
    out: dict[str, str] = {}
    for r in rows:
        if r["variant"] not in ran and r["variant"] not in out:
            out[r["variant"]] = scenario_words.not_run(r["label"], r["status"], r["why_not"])
    note = words.free_readings_note(list(out.values()))  # two readings of free memory: two moments
    return list(out.values()) + ([note] if note else [])


def _reason_key(why: str) -> str:
    """PyTorch's refusals quote tensor sizes: compared with the numbers blanked. The capture's own
    "not run" reasons are predictions whose numbers are the reason: each kept whole."""
    return why if why.startswith("not run") else re.sub(r"\d+", "#", why)


def _refusals(rows: list[dict]) -> list[dict]:
    """The refused points of a table grouped by variant, status and reason, the reason compared
    with its numbers blanked (PyTorch quotes the tensor sizes): each reason once, with its points."""
    groups: dict = {}
    for r in rows:
        if r["why_not"] is None:
            continue
        key = (r["variant"], r["status"], _reason_key(r["why_not"]))
        g = groups.setdefault(key, dict(label=r["label"], status=r["status"], reason=r["why_not"], points=[],
                                        sizes_differ=False))
        g["points"].append(r["point"])
        g["sizes_differ"] |= r["why_not"] != g["reason"]
    for i, g in enumerate(groups.values()):
        g["points"] = ", ".join(g["points"])
        g["ref"] = i + 1
    for r in rows:
        if r["why_not"] is not None:
            key = (r["variant"], r["status"], _reason_key(r["why_not"]))
            r["ref"] = groups[key]["ref"]
    return list(groups.values())


def source_notes(notes) -> list[str]:
    """A source's notes once each; notes that differ only by a leading "Name: " are merged
    ("A, B: the same text")."""
    by_text: dict[str, list[str]] = {}
    for n in dict.fromkeys(x for x in notes if isinstance(x, str)):
        head, sep, rest = n.partition(": ")
        key, name = (rest, head) if sep and len(head) < 40 else (n, "")
        by_text.setdefault(key, []).append(name)
    return [f"{', '.join(sorted(names))}: {text}" if all(names) else text for text, names in by_text.items()]


def _versus_short(ctx: Context, head: dict | None, decode: bool) -> str | None:
    a = head and head["anchor"]
    if not a:
        return None
    ref = next(s for s in ctx.sets if s.name == a["anchor_set"])
    return published_words.versus_short(a, fmt.set_title(ref), decode, _label) or None


def _sentence(best: dict | None, title: str, decode: bool, scenario: str | None = None) -> str | None:
    return published_words.versus(best, title, _label, decode, scenario) if best else None


def _anchor_groups(ctx: Context, ls, anchors, vrows: list[dict], decode: bool, scenario: str) -> list[dict]:
    """Per source of published figures: its figures beside ours. `vrows`: records of the versus frame (left
    as they are)."""
    groups = []
    by_name = {s.name: s for s in ctx.sets}
    for name in dict.fromkeys(anchors["anchor_set"]):
        a = anchors[anchors["anchor_set"] == name]
        v = [r for r in vrows if r["anchor_set"] == name]
        ref = by_name[name]
        title = fmt.set_title(ref)
        rows = []
        dims = a["head_dim"].nunique() > 1
        for r in map(dict, v):
            r["label"] = scenario_words.point_label(r, decode, dims)
            r["anchor_name"] = published_words.anchor_name(r["anchor_variant"])
            r["fastest_label"] = _label(r["fastest_variant"]) if r["fastest_variant"] else None
            if r["fastest_label"] and r.get("fastest_tie"):  # the same kernels: one tie, named as the scaling page does
                r["fastest_label"] += f" (tied with {', '.join(map(_label, r['fastest_tie']))}, the same kernels)"
            r["ours_label"] = published_words.ours_name(r, _label) if r["ours_variant"] else None
            rows.append(r)
        groups.append(dict(
            name=name, title=title, page=fmt.set_page(name), source=ref.outline.source,
            conventions=sorted({c for c in a["published_convention"] if isinstance(c, str)}),
            notes=source_notes(a["note"]),
            same_shape=bool(a["same_shape"].all()), approximate=bool(a["approximate"].any()),
            source_shape=published_words.source_shape(sa.source_shapes(a)),
            differences=published_words.differences(sa.differences(ls, ref)), rows=rows,
            kernel_time=any(r.get("kernel_time") is True for r in rows),
            stated_clock=next((r["anchor_clock_mhz"] for r in rows if not missing(r["anchor_clock_mhz"])), None),
            elsewhere=published_words.timed_elsewhere(rows, scenario),
            sentence=_sentence(sa.strongest_of(v, sa.own_head_dim_of(v, scenario)) if v else None, title,
                               decode, scenario)))
    return groups


def _ceilings(figure: str, ceil: dict | None, sheet, matmul_mhz: float | None = None) -> list[tuple[str, float]]:
    """The rate chart's ceilings (label, value): the measured ones of the figure (the matmul's with the clock it
    ran at: it is drawn as measured, not scaled to the points' clocks), and the datasheet's bandwidth."""
    out = []
    if ceil:
        matmul = "measured matmul" + (f" (at {matmul_mhz:.0f} MHz)" if matmul_mhz is not None else "")
        out.append(("measured copy" if figure == sa.FIGURE_TBPS else matmul,
                    ceil["copy_gbps"] / 1e3 if figure == sa.FIGURE_TBPS else ceil["matmul_tflops"]))
        if figure == sa.FIGURE_TBPS and ceil.get("read_tbps") == ceil.get("read_tbps") and ceil.get("read_tbps"):
            out.append(("measured read", ceil["read_tbps"]))
    if sheet and figure == sa.FIGURE_TBPS:
        out.append(("datasheet", sheet.hbm_tbps))
    return out


def _charts(pts, anchors, figure: str, ceil: dict | None, sheet, x_title: str, name: str, command: str,
            rows: list[dict], matmul_mhz: float | None = None) -> list[dict]:
    """Per head dim (the scenario's own first): the time and rate charts; then one roofline. `rows`:
    records of the point frame; `pts`: a function that makes the frame."""
    out = []
    # A wrong answer (rules.wrong_answer) did other work than its count says: no chart draws it (the table
    # shows it, marked)
    rows = [r for r in rows if not r.get("wrong")]
    # The length charts draw inference points (charts.scenario._measured): a training-only scenario has none.
    dims = list(dict.fromkeys(r["head_dim"] for r in rows if not missing(r["gpu_only_ms"])
                              and r["mode"] == "inference" and r["status"] == "ok"))
    if not dims:
        return out
    frame = pts()
    frame = frame[~frame["wrong"].astype(bool)] if "wrong" in frame.columns else frame
    # Chunked prefill: chunks of several sizes against the same KV lengths are separate curves, never one axis
    chunks = sorted({r["q_len"] for r in rows if r["q_len"] != r["kv_len"]})
    chunks = chunks if len(chunks) > 1 else [None]
    own = sa.own_head_dim_of(rows, name)
    ceilings = _ceilings(figure, ceil, sheet, matmul_mhz)
    for d in sorted(dims, key=lambda x: (x != own, x)):
        for q in chunks:
            def keep(r, d=d, q=q):
                return (len(dims) == 1 or r["head_dim"] == d) and (q is None or r["q_len"] == q)

            p = frame if len(dims) == 1 else frame[frame["head_dim"] == d]
            p = p if q is None else p[p["q_len"] == q]
            a = anchors[anchors["head_dim"] == d] if len(anchors) and set(anchors["head_dim"].tolist()) != {d} \
                else anchors
            parts = ([f"head dim {d}"] if len(dims) > 1 else []) + ([f"chunks of {q:,} queries"] if q else [])
            suffix = "".join(f", {x}" for x in parts)
            p_rows = [r for r in rows if keep(r)]
            # a chart of one point, or of one point a variant (every variant at one length), is left to the
            # table of every variant at every point below it (charts.drawn)
            time = charts.drawn(charts.scenario_time(p, a, x_title))
            rate = charts.drawn(charts.scenario_rate(p, a, figure, scenario_words.figure_label(figure, p_rows),
                                                     x_title, ceilings))
            if time is None and rate is None:
                continue
            out.append(dict(kind="lengths", head_dim=", ".join(parts).capitalize() if parts else None,
                            time=chart_div(time, f"GPU-only time against length{suffix}, {name}", command)
                            if time else None,
                            rate=chart_div(rate, f"{scenario_words.FIGURE_UNIT[figure]} against length{suffix}, {name}",
                                           command) if rate else None))
    roof = charts.drawn(charts.scenario_roofline(frame, ceil["matmul_tflops"], ceil["bandwidth_gbps"] / 1e3,
                                                 scenario_words.ROOFLINE_X)) if ceil else None
    if roof is not None:
        out.append(dict(kind="roofline", roof_line=scenario_words.roof_line(ceil, matmul_mhz),
                        above_roof=scenario_words.above_roof(sa.above_roof(rows, ceil), sheet,
                                                    ceil.get("read_bytes"), _best_tbps(rows),
                                                    sa.above_matmul_at_clock(rows, ceil, matmul_mhz)),
                        roofline=chart_div(roof, f"roofline, {name}", command)))
    return out


def _best_tbps(rows: list[dict]) -> float | None:
    """The best TB/s among the points (records of a point frame) that answered right (rules.wrong_answer),
    or None."""
    ok = [r["tbps"] for r in rows if not _wrong(r) and not missing(r["tbps"])]
    return float(max(ok)) if ok else None


def _wrong(r: dict) -> bool:
    """A point frame's row whose answer is wrong (its `wrong` column read as a mask reads it: missing is not)."""
    return not missing(r["wrong"]) and bool(r["wrong"])


def _backend_groups(ls, name: str, decode: bool, show_dim: bool) -> list[dict]:
    """Why SDPA picked its backend: per unpinned SDPA variant and backend not chosen,
    PyTorch's reason once, with the points it was given at (numbers blanked to group)."""
    out: dict = {}
    for r in sa.backend_rows(ls, name):  # (the frame's rows, no frame made)
        key = (r["variant"], r["mode"], r["backend"], re.sub(r"\d+", "#", str(r["reason"])), r["verdict"])
        g = out.setdefault(key, dict(label=_label(r["variant"]), mode=r["mode"],
                                     backend=scenario_words.backend_name(r["backend"]),
                                     verdict=scenario_words.backend_verdict(r["verdict"], r["reason"]), points=[],
                                     chose=[]))
        g["points"].append(scenario_words.point_label(r, decode, show_dim))
        g["chose"].append(scenario_words.backend_name(r["sdpa_choice"]))
    for g in out.values():
        g["points"] = ", ".join(dict.fromkeys(g["points"]))
        g["chose"] = ", ".join(dict.fromkeys(g["chose"]))
    return list(out.values())


def _wrong_notes(rows: list[dict]) -> list[str]:
    """Per variant that answered wrong (in first-seen order), its worst recorded error."""
    notes = []
    bad: dict[str, list[float]] = {}
    for r in rows:
        if _wrong(r):
            bad.setdefault(r["variant"], []).append(r["rel_error"])
    for v, errors in bad.items():
        decl = variants.VARIANTS.get(v)
        known = [e for e in errors if not missing(e)]
        worst = float(max(known)) if known else math.nan
        notes.append(scenario_words.wrong_note(_label(v), decl.wrong, worst) if decl and decl.wrong
                     else scenario_words.wrong_by_error(_label(v), worst, rules.WRONG_ANSWER_REL_ERROR))
    return notes


def _fact_lines(rows: list[dict], decode: bool, show_dim: bool) -> list[str]:
    lines = []
    for r in rows:
        got = r.get("facts") or {}
        if got:
            line = scenario_words.facts(_label(r["variant"]), scenario_words.point_label(r, decode, show_dim), got)
            if line:
                lines.append(line)
    return list(dict.fromkeys(lines))


def _documents(ls, name: str) -> dict | None:
    rec = ls.outline.scenario(name)
    p = next((q for q in (rec.points if rec else []) if q.docs), None)
    if p is None:
        return None
    df = sa.document_frame(p)
    useful, width = float(df["flops"].sum()), max(p.docs)
    return dict(rows=records(df), note=scenario_words.documents_note(sum(p.docs), width * len(p.docs),
                                                            float(df["padded_flops"].sum()), useful),
                total_flops=useful)


def _head_verdict(ls, name: str, head: dict | None):
    """The headline point's verdict (verdicts.verdict_at, the one ranking rule); None where the headline's fastest is
    not the verdict's."""
    if not head or ls.kind != schema.SetKind.MEASURED:
        return None
    top = head["fastest"]
    p = next((q for q in calls._points(ls, name, top["mode"]) if (q.q_len, q.kv_len, q.head_dim)
              == (top["q_len"], top["kv_len"], top["head_dim"])), None)
    v = verdicts.verdict_at(ls, name, p, top["mode"]) if p is not None else None
    return v if v is not None and v.fastest.variant == top["variant"] else None


def _head_orders(ls, name: str, head: dict | None) -> tuple[tuple, tuple]:
    """The headline point's fastest's orders against the calls sharing its rank, and their rows; empty where the
    headline's fastest is not the verdict's."""
    v = _head_verdict(ls, name, head)
    if v is None:
        return (), ()
    # the headline's calls within the intervals that the verdict ranks behind (by the shared rounds: Orders.paired)
    behind = tuple(verdicts.orders(v.fastest, v.row(x), v.basis) for x in head.get("near") or ()
                   if x not in v.near and v.row(x) is not None)
    return v.orders + behind, (v.fastest, *(v.row(x) for x in v.near))


def _head_oriented(ls, name: str, head: dict | None):
    """The headline's rate by round orientation where they differ (calls.oriented_rate); None elsewhere."""
    f, rows = (head["fastest"] if head else None), _head_orders(ls, name, head)[1]
    row = next((r for r in rows if f and r is not None and r.variant == f["variant"]), None)
    if row is None:
        return None
    return calls.oriented_rate(row, f["gpu_only_ms"], f[sa.FIGURE_TBPS if f["figure"] == sa.FIGURE_TBPS
                                                        else sa.FIGURE_TFLOPS], rows)


def _head_determinism(ls, name: str, head: dict | None, rows: list[dict]) -> tuple | None:
    """Where the headline point ranks deterministic calls led by a plain one (determinism.deterministic_head): those
    facts and the first deterministic call's row at that point, for the headline to open with; None elsewhere."""
    d = determinism.deterministic_head(_head_verdict(ls, name, head))
    if d is None:
        return None
    at = tuple(head["fastest"][k] for k in sa.AT_KEYS)
    row = next((r for r in rows if r["variant"] == d.first and tuple(r[k] for k in sa.AT_KEYS) == at), None)
    return (d, row) if row is not None else None


def _at_verdict(ls, name: str, head: dict | None) -> tuple[list[str], list[str]]:
    """The scenario page's opening: per mode, the verdict's point and its answer in full (the home's
    row; the page folds it under its first look, gen.report.pages.scenario_first); and, where the headline's point is
    another, which it is and whether its fastest differs (a short line the page shows)."""
    if ls.kind != schema.SetKind.MEASURED:
        return [], []
    out, after = [], []
    for mode in schema.Mode:
        v = verdicts.verdict(ls, name, mode)
        p = verdicts.point_of(ls, name, mode)
        if v is None or p is None or v.field_of_one:
            continue
        out.append(verdict_words.at_verdict_point(v, p, mode))
        if head and head["fastest"]["mode"] == mode:
            after += scenario_first.largest_lines(ls, name, head, v, p, mode)
    return out, after


def set_view(ctx: Context, ls, name: str) -> dict | None:
    """One measured set in one scenario; made once per context (its page and its facts share it)."""
    return ctx._once(("scenario_view", ls.name, name), lambda: _set_view(ctx, ls, name))


def _set_view(ctx: Context, ls, name: str) -> dict | None:
    # The point frame's rows, made with no frame: the page reads rows (no mask per question); the frame
    # is made only where a reader needs it (the charts, a merged set's calls).
    point_rows = sa.point_rows(ls, name)
    if not point_rows:
        return None
    made: list = []

    def pts():
        if not made:
            made.append(sa.point_frame(ls, name))
        return made[0]
    decode = all(r["q_len"] == 1 for r in point_rows)
    figure = _figure(point_rows)
    gpu = ls.environment.device == "cuda"
    anchors = _anchors(ctx, ls, name) if gpu else _anchors(ctx, ls, name).iloc[0:0]
    # a published forward is no anchor for a scenario that timed only training steps (and the reverse)
    anchors = anchors[anchors["mode"].isin({r["mode"] for r in point_rows})] if len(anchors) else anchors
    against = _against(ls, name, anchors, point_rows) if len(anchors) else []
    versus = (sa.versus_frame(None, anchors, point_rows) if not against
              else pd.concat([sa.versus_frame(None, a, r) for a, r in against], ignore_index=True))
    versus_rows = records(versus)
    head = sa.headline(None, versus, name, point_rows, versus_rows)
    ceil = sa.ceilings(ls)
    sheet = datasheets.bandwidth(ls.environment.gpu_name) if gpu else None
    ch = _charts(pts, anchors, figure, ceil, sheet, scenario_words.length_axis(decode), name,
                 summary_command(ls.name, scenario=name), point_rows,
                 scaling.matmul_clock(ls) if ceil else None) if gpu else []
    show_dim = len({r["head_dim"] for r in point_rows}) > 1
    pages = {r.variant: fmt.set_variant_page(ls.name, r.variant) for r in ls.rs.runs}
    full, elsewhere = _at_verdict(ls, name, head)
    modes = []
    for mode in schema.Mode:
        m = [r for r in point_rows if r["mode"] == mode]
        if m:
            fig = _figure(m) if mode == schema.Mode.INFERENCE else sa.FIGURE_TFLOPS
            rows = _rows(m, decode, show_dim, pages, ls.environment.device, ls.environment.ref_mhz,
                         ls.environment)
            modes.append(dict(mode=mode, rows=rows, refusals=_refusals(rows), figure=fig, not_run=_not_run(rows),
                              dtype=sa.scenario_dtype(ls, name),
                              figure_note=scenario_words.table_note(fig, mode, _ceiling_of(m),
                                                                    sheet if fig == sa.FIGURE_TBPS else None, m),
                              graph_note=scenario_words.graph_above_eager_note(
                                  sum(bool(r.get("graph_above_eager")) for r in rows), _graph_found(m),
                                  [r.get(k) for r in rows if r.get("graph_above_eager") for k in ("gpu_only_n",
                                                                                                 "eager_n")]),
                              split=training.view(fwdbwd.point_rows(ls.rs, name), name,
                                                  summary_command(ls.name, mode, name))
                              if mode == schema.Mode.TRAIN else None))
    return dict(
        ls=ls, key=fmt.slug(ls.name), gpu=gpu, figure=figure, charts=ch, modes=modes,
        at_verdict=full, elsewhere=elsewhere,
        headline=scenario_words.headline(head, figure, decode, _label,
                                         [x.variant for x in unmeasured.absent_fa4(ls.rs, ())],
                                         *_head_orders(ls, name, head),
                                         determinism=_head_determinism(ls, name, head, point_rows),
                                         oriented=_head_oriented(ls, name, head)) if head else None,
        measured=scenario_words.measured_modes(declared.SCENARIOS[name].why,
                                      any(r["mode"] == schema.Mode.INFERENCE for r in point_rows),
                                      any(r["mode"] == schema.Mode.TRAIN for r in point_rows))
        if name in declared.SCENARIOS else None,
        not_run=[n for m in modes if m["mode"] == schema.Mode.INFERENCE for n in m["not_run"]],
        versus_short=_versus_short(ctx, head, decode),
        ceil=ceil, copy_tbps=ceil["copy_gbps"] / 1e3 if ceil else None,
        datasheet=(published_words.datasheet(sheet, ls.environment.gpu_name) if gpu and figure == sa.FIGURE_TBPS
                   else None),
        copy_note=(scenario_words.COPY_CEILING_NOTE if ceil and figure == sa.FIGURE_TBPS and not ceil.get("read_n")
                   else None),
        anchors=_anchor_groups(ctx, ls, anchors, versus_rows, decode, name) if len(anchors) else [],
        conditions=_conditions(ctx, ls, name, anchors, point_rows) if gpu else None,
        backends=_backend_groups(ls, name, decode, show_dim), backend_note=scenario_words.BACKEND_NOTE,
        determinism=_determinism(point_rows), fp8=_fp8(decode, show_dim, point_rows),
        fp8_note=scenario_words.FP8_NOTE,
        no_anchor=published_words.NO_ANCHOR if gpu and not len(anchors) else None,
        wrong=_wrong_notes(point_rows), facts=_fact_lines(point_rows, decode, show_dim),
        documents=_documents(ls, name), calls=_calls(ls, name, pts, point_rows),
    )


def _calls(ls, name: str, pts, rows: list[dict]) -> str | None:
    """Where a merged set's scenario holds records of a later capture call: which, with the clock of
    each call's rows, so that a ratio across the two can be read against the clocks. `rows`: records of
    the point frame, `pts` a function that makes it."""
    if not any(r["status"] == schema.Status.OK and not missing(r["captured"]) for r in rows):
        return None  # (most sets: no frame made or cut to learn it)
    pts = pts()
    ok = pts[pts["status"] == schema.Status.OK]
    merged, own = ok[ok["captured"].notna()], ok[ok["captured"].isna()]
    if merged.empty:
        return None
    return scenario_words.calls_note(sorted(dict.fromkeys(map(_label, merged["variant"]))),
                                     sorted(set(merged["captured"])), ls.environment.date,
                                     merged["sm_clock_mhz"].dropna().tolist(), own["sm_clock_mhz"].dropna().tolist())


def _determinism(rows: list[dict]) -> list[str]:
    """What reproducible gradients cost, one line per backend and point (sa.determinism_frame). `rows`:
    records of the point frame: with no deterministic variant among them, none (and no frame made to learn it)."""
    if not any(sa.is_deterministic(v) for v in dict.fromkeys(r["variant"] for r in rows)):
        return []
    df = sa.determinism_frame(None, rows)
    show_len = df["kv_len"].nunique() > 1 if len(df) else False
    return [scenario_words.determinism_line(r, _label, show_len) for r in records(df)]


def _fp8(decode: bool, show_dim: bool, rows: list[dict]) -> list[dict]:
    """What FP8 buys and costs: per FP8 variant and point, its time and error beside its bf16 twin's.
    `rows`: records of the point frame: with no variant that has a twin among them, none (no frame made to
    learn it)."""
    if not any(sa.has_twin(v) for v in dict.fromkeys(r["variant"] for r in rows)):
        return []
    return [dict(r, **scenario_words.fp8_cells(r, _label), point=scenario_words.point_label(r, decode, show_dim))
            for r in records(sa.fp8_frame(None, rows))]


def _ceiling_of(rows: list[dict]) -> str | None:
    """The ceiling a table's rows (records of a point frame) were set against (one per figure and set), or None."""
    got = [c for c in dict.fromkeys(r["ceiling"] for r in rows) if isinstance(c, str)]
    return got[0] if len(got) == 1 else None


def _ceiling_lines(ctx: Context, ls) -> list[str]:
    """The set's ceilings with their clocks, worded: once per set (every scenario page states them)."""
    lines = ctx._once(("scenario ceiling lines", ls.name),
                      lambda: [table_words.ceiling_line(c, ls.environment) for c in clocks.ceilings(ls)])
    return list(lines)


def _conditions(ctx: Context, ls, name: str, anchors, rows: list[dict]) -> dict:
    """The clocks of the set's ceilings, the points a ceiling does not bound, the speed of light, and
    sustained against burst at the published anchors (gen.analysis.clocks), worded. `rows`: records of the
    point frame."""
    above = clocks.above_ceiling_rows(rows)
    ceiling = above[0]["ceiling"] if above else None
    rate = datasheets.tensor_rate(ls.environment.compute_capability, sa.scenario_dtype(ls, name))
    fp8 = [r for r in rows if sa.element_size(r["dtype"]) == 1]
    return dict(ceilings=_ceiling_lines(ctx, ls),
                above=table_words.above_ceiling_line(above, ceiling) if ceiling else None,
                sol=table_words.sol_note(rate) + (scenario_words.fp8_sol(datasheets.tensor_rate(
                    ls.environment.compute_capability, fp8[0]["dtype"])) if fp8 else ""),
                note=" ".join([table_words.conditions_note(rows, env=ls.environment),
                               *scenario_words.graph_below_lines(rows, words.label),
                               *(scenario_words.same_point_line(d, words.label)
                                 for d in sa.same_point_elsewhere(ls, name))]),
                burst=[published_words.burst_line(b, words.label, ls.environment, name)
                       for a, r in (_against(ls, name, anchors, rows) if len(anchors) else [])
                       for b in records(clocks.burst_frame(None, a, r))])

