"""Each variant's hypothesis checked against what its trace and the verdict show.

Takes: a loaded result set (gen.analysis.tables) and a mode. Gives `check_hypotheses(ls, mode)`, one row
per variant (`HYPOTHESIS_COLUMNS`): what its `Hypothesis` (gen.model.variants) expected (kernels a call,
a copy or fill, tensor cores, rank, SDPA backend) against what was measured, which checks the data
contradicts (`CHECKS`) and why; published sets are checked on their figures alone. Facts, not sentences.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from gen.analysis import kernel_rules, rules, tables, values, verdicts
from gen.analysis.events import (
    copy_rows,
    table_columns,
)
from gen.analysis.values import missing
from gen.model.schema import SetKind, Status
from gen.model.variants import VARIANTS


def has_gpu(ls: tables.LoadedSet) -> bool:
    return ls.kind == SetKind.MEASURED and ls.environment.device == "cuda"


def _rank_range(df: pd.DataFrame) -> pd.DataFrame:
    """Measured rank by median, and the ranks the IQRs allow: a variant whose
    interquartile range overlaps another's could be ranked on either side of it."""
    ok = df["gpu_only_ms"].notna()
    d = df[ok]
    out = pd.DataFrame(index=df.index, columns=["measured_rank", "rank_lo", "rank_hi"], dtype=float)
    for i, r in d.iterrows():
        q1 = r["gpu_only_q1_ms"] if not math.isnan(r["gpu_only_q1_ms"]) else r["gpu_only_ms"]
        q3 = r["gpu_only_q3_ms"] if not math.isnan(r["gpu_only_q3_ms"]) else r["gpu_only_ms"]
        o1 = d["gpu_only_q1_ms"].fillna(d["gpu_only_ms"])
        o3 = d["gpu_only_q3_ms"].fillna(d["gpu_only_ms"])
        out.loc[i, "measured_rank"] = 1 + int((d["gpu_only_ms"] < r["gpu_only_ms"]).sum())
        out.loc[i, "rank_lo"] = 1 + int((o3 < q1).sum())
        out.loc[i, "rank_hi"] = int((o1 <= q3).sum())
    return out


def _verdict_ranks(st: pd.DataFrame, v: verdicts.Verdict) -> pd.DataFrame:
    """measured_rank, rank_lo, rank_hi of each summary row, from the verdict's ranking."""
    ranks = verdicts.ranks(v)
    out = pd.DataFrame(index=st.index, columns=["measured_rank", "rank_lo", "rank_hi"], dtype=float)
    for i, name in st["variant"].items():
        if name in ranks:
            out.loc[i] = ranks[name]
    return out


HYPOTHESIS_COLUMNS = [
    "variant", "label", "status", "reason", "basis", "expected_kernels", "measured_kernels", "kernels_contradicted",
    "expected_copy_or_fill", "measured_copy_or_fill", "has_memcpy", "copy_or_fill_events", "copy_contradicted",
    "expected_tensor_cores", "measured_tensor_cores", "tensor_core_kernels", "off_tensor_core_kernels",
    "tensor_cores_contradicted", "expected_rank", "measured_rank", "rank_lo", "rank_hi", "rank_contradicted",
    "expected_backend", "measured_backend", "backend_contradicted", "contradicted", "contradicted_items", "why",
    "bookkeeping_memsets"]
# Which flag says which check was contradicted, in the order pages list them.
CHECKS = {"kernels_contradicted": "kernels", "copy_contradicted": "copy or fill",
          "tensor_cores_contradicted": "tensor cores", "rank_contradicted": "rank", "backend_contradicted": "backend"}


def check_hypotheses(ls: tables.LoadedSet, mode: str = "inference") -> pd.DataFrame:
    """One row per variant with a hypothesis: expected against measured kernels
    per forward, copy/fill, tensor cores and speed rank, each with a
    `*_contradicted` flag (None where the set cannot tell), `contradicted` and
    the list of contradicted checks. `basis` says what the set could check:
    "measured", "not run", "reference" (published figures) or "no gpu"."""
    st = tables.summary_table(ls, mode)
    if st.empty:
        return pd.DataFrame(columns=HYPOTHESIS_COLUMNS)
    st = st[st["variant"].isin(VARIANTS)].reset_index(drop=True)
    # A measured set ranks as its verdict does (GPU-only time: the ranking every page shows);
    # published figures by the one time they give.
    v = verdicts.verdict(ls, "article", mode)
    if v is not None and v.basis == "gpu_only":
        ranks = _verdict_ranks(st, v)
        timed = st[st["variant"].isin(v.ranking)]
    else:
        ranks = _rank_range(st.where(st["status"] == Status.OK))
        timed = st[st["gpu_only_ms"].notna()]
    # Expected ranks, renumbered among the variants this set timed.
    exp_order = sorted(timed["variant"], key=lambda v: VARIANTS[v].expect.rank)
    exp_rank = {v: i + 1 for i, v in enumerate(exp_order)}
    rows = []
    for r, rank in _rows_and_ranks(st, ranks):
        h = VARIANTS[r["variant"]].expect
        row = dict(variant=r["variant"], label=r["label"], status=r["status"], reason=r["reason"],
                   expected_kernels=h.kernels_per_forward, expected_copy_or_fill=h.copy_or_fill,
                   expected_tensor_cores=h.tensor_cores, expected_rank=exp_rank.get(r["variant"], np.nan), why=h.why,
                   measured_kernels=np.nan, kernels_contradicted=None, measured_copy_or_fill=None, has_memcpy=None,
                   copy_or_fill_events="", copy_contradicted=None, measured_tensor_cores=None,
                   tensor_core_kernels="", off_tensor_core_kernels="", tensor_cores_contradicted=None,
                   rank_contradicted=None, expected_backend=getattr(h, "backend", None), measured_backend=None,
                   backend_contradicted=None, bookkeeping_memsets=0, **rank)
        if r["status"] != Status.OK:
            row["basis"] = "not run"
        elif ls.kind == SetKind.REFERENCE:
            row.update(basis="reference", **_check_published(r, row, h))
        elif not has_gpu(ls):
            row["basis"] = "no gpu"
        else:
            row.update(basis="measured", **_check_measured(ls, r, row, h, mode))
        if v is not None and v.auto is not None and v.auto.variant == r["variant"]:
            row.update(measured_backend=v.auto.backend or v.auto.kernel_backend,
                       backend_contradicted=v.auto.contradicted)
        row["contradicted_items"] = [name for col, name in CHECKS.items() if row[col] is True]
        row["contradicted"] = bool(row["contradicted_items"])
        rows.append(row)
    df = pd.DataFrame(rows, columns=HYPOTHESIS_COLUMNS)
    # Names stay None where there is none (pandas' string columns would turn None into NaN, which pages print).
    for col in ("expected_backend", "measured_backend"):
        df[col] = df[col].astype(object).where(df[col].notna(), None)
    return df


def _rows_and_ranks(st: pd.DataFrame, ranks: pd.DataFrame) -> list[tuple[dict, dict]]:
    """Each summary row and its ranks as dicts of Python values (values.rows)."""
    return list(zip(values.rows(st), values.rows(ranks)))


def _check_published(r, row: dict, h) -> dict:
    """What a reference set can check: the kernel count and the rank it published."""
    out = {}
    if not math.isnan(r["kernels_per_forward"]):
        out.update(measured_kernels=r["kernels_per_forward"],
                   kernels_contradicted=bool(r["kernels_per_forward"] != h.kernels_per_forward))
    if not math.isnan(row["measured_rank"]):
        out["rank_contradicted"] = row["measured_rank"] != row["expected_rank"]
    return out


def _check_measured(ls: tables.LoadedSet, r, row: dict, h, mode: str) -> dict:
    kt = tables.kernel_frame(ls, r["variant"], mode)
    kind, ops, short, names, cats = table_columns(kt, "kind", "launched_by", "short_name", "name", "category")
    # A memset under rules.SUB_US_MEMSET_US is a library's bookkeeping, not a copy of the data: it contradicts
    # neither the kernel count nor "no copy or fill" (the explanation still names it).
    durs = table_columns(kt, "dur_us")[0] if "dur_us" in kt else [math.nan] * len(kind)
    bookkeeping = {i for i, (k, d) in enumerate(zip(kind, durs))
                   if k == "memset" and not missing(d) and d < rules.SUB_US_MEMSET_US}
    copies = [i for i in copy_rows(kind, ops) if i not in bookkeeping]
    n = r["kernels_per_forward"]
    out = dict(measured_kernels=n,
               kernels_contradicted=bool(n != h.kernels_per_forward and n - len(bookkeeping) != h.kernels_per_forward),
               measured_copy_or_fill=bool(len(copies)), has_memcpy="memcpy" in kind,
               copy_or_fill_events="; ".join(f"{short[i]} ({ops[i]})" for i in copies),
               bookkeeping_memsets=len(bookkeeping))
    out["copy_contradicted"] = out["measured_copy_or_fill"] != h.copy_or_fill
    verdicts = [(short[i], kernel_rules.tensor_core_verdict(names[i])) for i, (k, c) in enumerate(zip(kind, cats))
                if k == "kernel" and c in kernel_rules.TC_CATEGORIES]
    on = [n for n, t in verdicts if t is True]
    off = [n for n, t in verdicts if t is False]
    out.update(tensor_core_kernels=", ".join(on), off_tensor_core_kernels=", ".join(off))
    if off:
        out["measured_tensor_cores"] = False
    elif verdicts and len(on) == len(verdicts):
        out["measured_tensor_cores"] = True
    if out.get("measured_tensor_cores") is not None:
        out["tensor_cores_contradicted"] = out["measured_tensor_cores"] != h.tensor_cores
    if not math.isnan(row["measured_rank"]) and not math.isnan(row["expected_rank"]):
        out["rank_contradicted"] = not (row["rank_lo"] <= row["expected_rank"] <= row["rank_hi"])
    return out
