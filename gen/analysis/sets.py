"""`attention-report list` and every verb's set identity.

Takes: a results root, or a loaded set (gen.analysis.tables). Gives: `identity(ls)`, the
gen.model.output.SetIdentity every JSON output carries; `listing(root)`, one ListRow per set
(GPU, PyTorch, CUDA, date, modes, scenarios); `run(root, fmt)` the verb (a text table or JSON).
Reads only result.json (no traces). No torch.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gen.analysis.values import text_table
from gen.model import layout, output, schema


def identity_of(rs: schema.ResultSet, name: str) -> output.SetIdentity:
    env = rs.environment
    return output.SetIdentity(name=name, kind=rs.kind, gpu=env.gpu_name, torch=env.torch, cuda=env.cuda,
                              date=env.date, schema_version=rs.schema_version)


def identity(ls) -> output.SetIdentity:
    """The identity of a loaded set (gen.analysis.tables.LoadedSet)."""
    return identity_of(ls.rs, ls.name)


def _scenarios(rs: schema.ResultSet) -> list[str]:
    seen = dict.fromkeys([*(r.scenario for r in rs.runs), *(p.scenario for p in rs.sweep)])
    return list(seen)


def listing(root: Path) -> list[output.ListRow]:
    """One row per result set under root, in the order the site shows them; a set that does not
    load is named on stderr and left out (the other verbs say why in full)."""
    layout.settle(root)
    rows = []
    for folder in schema.list_sets(root):
        try:
            rs = schema.load_set(folder)
        except schema.UserError as exc:
            print(f"note: skipped result set {folder.name}: {exc}", file=sys.stderr)
            continue
        ident = identity_of(rs, folder.name)
        rows.append(output.ListRow(
            **vars(ident), modes=list(dict.fromkeys(r.mode for r in [*rs.runs, *rs.sweep])), scenarios=_scenarios(rs),
            variants=len({r.variant for r in [*rs.runs, *rs.sweep]})))
    return rows


def envelope(verb: str, sets: list[output.SetIdentity], rows: list, *, mode: str | None = None,
             scenario: str | None = None, variants: list[str] | None = None,
             gate: output.Gate | None = None) -> str:
    """The JSON text of one verb's output (gen.model.output.Output)."""
    out = output.Output(schema_version=output.OUTPUT_VERSION, verb=verb, sets=sets,
                        selection=output.Selection(mode=mode, scenario=scenario, variants=variants), gate=gate,
                        rows=rows)
    return json.dumps(output.document(out), indent=1, ensure_ascii=False)


def run(root: Path, fmt: str = "table") -> str:
    rows = listing(root)
    if fmt == "json":
        return envelope("list", [], rows)
    cols = ["set", "kind", "GPU", "PyTorch", "CUDA", "date", "modes", "scenarios"]
    body = [[r.name, r.kind, r.gpu or "CPU", r.torch or "—", r.cuda or "—", (r.date or "—")[:10],
             ",".join(r.modes), ",".join(r.scenarios)] for r in rows]
    if not rows:
        return f"no result sets under {root}"
    return "\n".join(text_table(cols, body))
