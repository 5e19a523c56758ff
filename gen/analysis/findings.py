"""Hypotheses checked against the data, and findings derived by rules.

Takes: a loaded result set (gen.analysis). Gives: `check_hypotheses(ls, mode)`,
a table of what each variant's `Hypothesis` expected against what its trace
shows, and `findings(ls)`, a list of `Finding`s produced by the rules below.
No finding is written by hand for a result: every sentence is built from the
numbers of the set, so a new set gets its own findings with no code change.

Rules (each a function `_rule_*` below):
- copy/fill: every memcpy or memset GPU event, and every kernel launched by a
  copy or fill op (aten::copy_, clone, fill_, zero_), grouped per variant and
  launching op; "unexpected" when the hypothesis said no copy or fill.
- float32: kernels whose launching op was given float32 tensors and no
  bf16/f16 one, or matrix products with f32 in their name, in a bf16/f16 set.
- mask rebuilt: triu/tril kernels, or a fill_ and an aten::where, inside the forward.
- occupancy: kernels for which the profiler reported 0% or no occupancy, per launch API.
- fastest variant, SDPA backend picked without pinning, forward-to-forward
  kernel count changes, the in-place autograd check of the train run, compile times.

Tensor-core rule (name based, documented on the page): a matrix product or
fused attention kernel is counted off the tensor cores when its name says
float32 math (`f32f32`, `sgemm`, `ffma`), on them when its name carries a
16-bit type or a matrix-unit marker (`bf16`, `bfloat16`, `f16`, `fp16`,
`h16`, `half`, `hmma`, `wgmma`, `tensorop`, `nvjet`, `fmha`, `flash`,
`triton_tem`), and undecided otherwise.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from gen.analysis import tables
from gen.model.variants import VARIANTS

OFF_TC = re.compile(r"f32f32|sgemm|ffma|_s\d+gemm", re.I)
ON_TC = re.compile(r"bf16|bfloat16|f16|fp16|h16|half|hmma|wgmma|tensorop|nvjet|fmha|flash|triton_tem", re.I)
COPY_OPS = {"aten::copy_", "aten::clone", "aten::fill_", "aten::zero_"}
TC_CATEGORIES = {"matrix product", "fused attention"}


def tensor_core_verdict(name: str) -> bool | None:
    """True: on the tensor cores by the name rule; False: off; None: undecided."""
    if OFF_TC.search(name):
        return False
    if ON_TC.search(name):
        return True
    return None


def anchor(variant: str, mode: str, index: int) -> str:
    """The HTML id of a kernel row: pages that list kernels use the same."""
    return f"k-{mode}-{variant}-{index}"


def _is_copy(k: pd.Series) -> bool:
    return k["kind"] in ("memcpy", "memset") or k["launched_by"] in COPY_OPS


def _has_gpu(ls: tables.LoadedSet) -> bool:
    return ls.rs.kind == "measured" and ls.rs.environment.device == "cuda"


def _rank_range(df: pd.DataFrame) -> pd.DataFrame:
    """Measured rank by median, and the ranks the IQRs allow: a variant whose
    interquartile range overlaps another's could be ranked on either side of it."""
    ok = df["gpu_ms"].notna()
    d = df[ok]
    out = pd.DataFrame(index=df.index, columns=["measured_rank", "rank_lo", "rank_hi"], dtype=float)
    for i, r in d.iterrows():
        q1 = r["gpu_q1"] if not math.isnan(r["gpu_q1"]) else r["gpu_ms"]
        q3 = r["gpu_q3"] if not math.isnan(r["gpu_q3"]) else r["gpu_ms"]
        o1 = d["gpu_q1"].fillna(d["gpu_ms"])
        o3 = d["gpu_q3"].fillna(d["gpu_ms"])
        out.loc[i, "measured_rank"] = 1 + int((d["gpu_ms"] < r["gpu_ms"]).sum())
        out.loc[i, "rank_lo"] = 1 + int((o3 < q1).sum())
        out.loc[i, "rank_hi"] = int((o1 <= q3).sum())
    return out


def check_hypotheses(ls: tables.LoadedSet, mode: str = "inference") -> pd.DataFrame:
    """One row per variant with a hypothesis: expected against measured kernels
    per forward, copy/fill, tensor cores and speed rank, each with a
    `*_contradicted` flag (None where the set cannot tell) and `contradicted`."""
    st = tables.summary_table(ls, mode)
    cols = ["variant", "label", "status", "expected_kernels", "measured_kernels", "kernels_contradicted",
            "expected_copy_or_fill", "measured_copy_or_fill", "has_memcpy", "copy_or_fill_events",
            "copy_contradicted", "expected_tensor_cores", "measured_tensor_cores", "tensor_core_kernels",
            "off_tensor_core_kernels", "tensor_cores_contradicted", "expected_rank", "measured_rank", "rank_lo",
            "rank_hi", "rank_contradicted", "contradicted", "why", "note"]
    if st.empty:
        return pd.DataFrame(columns=cols)
    st = st[st["variant"].isin(VARIANTS)].reset_index(drop=True)
    ranks = _rank_range(st.where(st["status"] == "ok"))
    # Expected ranks, renumbered among the variants this set timed.
    timed = st[st["gpu_ms"].notna()]
    exp_order = sorted(timed["variant"], key=lambda v: VARIANTS[v].expect.rank)
    exp_rank = {v: i + 1 for i, v in enumerate(exp_order)}
    gpu = _has_gpu(ls)
    rows = []
    for i, r in st.iterrows():
        v = r["variant"]
        h = VARIANTS[v].expect
        row = dict(variant=v, label=r["label"], status=r["status"], expected_kernels=h.kernels_per_forward,
                   expected_copy_or_fill=h.copy_or_fill, expected_tensor_cores=h.tensor_cores,
                   expected_rank=exp_rank.get(v, np.nan), why=h.why, measured_kernels=np.nan,
                   kernels_contradicted=None, measured_copy_or_fill=None, has_memcpy=None, copy_or_fill_events="",
                   copy_contradicted=None, measured_tensor_cores=None, tensor_core_kernels="",
                   off_tensor_core_kernels="", tensor_cores_contradicted=None,
                   measured_rank=ranks.loc[i, "measured_rank"], rank_lo=ranks.loc[i, "rank_lo"],
                   rank_hi=ranks.loc[i, "rank_hi"], rank_contradicted=None, note="")
        if r["status"] != "ok":
            row["note"] = f"not run: {r['reason']}"
        elif not gpu:
            row["note"] = ("published figures only: kernel names and events were not all published"
                           if ls.rs.kind == "reference" else "no GPU in this set: no kernels, no GPU times to check")
            if ls.rs.kind == "reference" and not math.isnan(r["kernels_per_forward"]):
                row["measured_kernels"] = r["kernels_per_forward"]
                row["kernels_contradicted"] = bool(r["kernels_per_forward"] != h.kernels_per_forward)
            if ls.rs.kind == "reference" and not math.isnan(row["measured_rank"]):
                row["rank_contradicted"] = row["measured_rank"] != row["expected_rank"]
        else:
            kt = tables.kernel_table(ls, v, mode)
            row["measured_kernels"] = r["kernels_per_forward"]
            row["kernels_contradicted"] = bool(r["kernels_per_forward"] != h.kernels_per_forward)
            copies = kt[kt.apply(_is_copy, axis=1)] if not kt.empty else kt
            row["measured_copy_or_fill"] = bool(len(copies))
            row["has_memcpy"] = bool((kt["kind"] == "memcpy").any())
            row["copy_or_fill_events"] = "; ".join(f"{k['short_name']} ({k['launched_by']})"
                                                   for _, k in copies.iterrows())
            row["copy_contradicted"] = row["measured_copy_or_fill"] != h.copy_or_fill
            mm = kt[(kt["kind"] == "kernel") & kt["category"].isin(TC_CATEGORIES)]
            verdicts = [(k["short_name"], tensor_core_verdict(k["name"])) for _, k in mm.iterrows()]
            on = [n for n, t in verdicts if t is True]
            off = [n for n, t in verdicts if t is False]
            row["tensor_core_kernels"] = ", ".join(on)
            row["off_tensor_core_kernels"] = ", ".join(off)
            if verdicts and not off and len(on) == len(verdicts):
                row["measured_tensor_cores"] = True
            elif off:
                row["measured_tensor_cores"] = False
            if row["measured_tensor_cores"] is not None:
                row["tensor_cores_contradicted"] = row["measured_tensor_cores"] != h.tensor_cores
            if not math.isnan(row["measured_rank"]) and not math.isnan(row["expected_rank"]):
                row["rank_contradicted"] = not (row["rank_lo"] <= row["expected_rank"] <= row["rank_hi"])
        flags = [row[c] for c in ("kernels_contradicted", "copy_contradicted", "tensor_cores_contradicted",
                                  "rank_contradicted")]
        row["contradicted"] = any(f is True for f in flags)
        rows.append(row)
    return pd.DataFrame(rows, columns=cols)


# --------------------------------------------------------------------------- findings


@dataclass
class Finding:
    id: str
    title: str
    kind: str  # copy, precision, mask, occupancy, speed, backend, consistency, autograd, compile
    severity: str  # "unexpected" (against a hypothesis or a cost), "info"
    text: str
    variant: str | None = None
    mode: str = "inference"
    kernels: list[dict] = field(default_factory=list)  # {variant, mode, index, anchor}
    short: str = ""  # one line with the numbers, for the Findings page; `text` says it in full

    def __post_init__(self):
        if not self.short:
            self.short = self.text

    def to_dict(self) -> dict:
        return asdict(self)


# Kinds in the order the Findings page groups them, with the group's heading.
# What a group's findings have in common, said once above them on the Findings page.
KIND_NOTES = {
    "occupancy": "The profiler reported 0% or no occupancy for these kernels: a failed estimate, not an idle GPU. "
                 "cuLaunchKernelEx passes launch attributes that the estimate does not read.",
    "host": "Calls bound by the host (the report's one rule): their kernels ran for less than 80% of their GPU "
            "time, or the host's dispatch took at least 80% of it.",
    "precision": "Kernels whose launching op was given float32 tensors and no 16-bit one, or matrix products "
                 "with f32 in their name.",
}
KINDS = {
    "copy": "Copies and fills",
    "precision": "float32 in a 16-bit model",
    "mask": "Causal mask rebuilt every forward",
    "occupancy": "Occupancy not estimated",
    "backend": "Backend choice",
    "speed": "Fastest",
    "host": "GPU waiting on the host",
    "consistency": "Kernel counts",
    "autograd": "Training: in-place autograd",
    "compile": "Compile time",
}


def kernel_groups(indices) -> list[tuple[int, int]]:
    """Launch indices as runs of consecutive numbers: [1, 2, 3, 7] -> [(1, 3), (7, 7)]."""
    out: list[list[int]] = []
    for i in sorted({int(i) for i in indices}):
        if out and i == out[-1][1] + 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return [(a, b) for a, b in out]


def _links(variant: str, mode: str, idx) -> list[dict]:
    return [dict(variant=variant, mode=mode, index=int(i), anchor=anchor(variant, mode, int(i))) for i in idx]


def _us(x: float) -> str:
    return f"{x:.1f} µs" if x < 1000 else f"{x / 1000:.3f} ms"


def _gpu_total(kt: pd.DataFrame) -> float:
    return float(kt["dur_us"].sum()) if not kt.empty else 0.0


def _kernel_runs(ls, mode="inference"):
    """(variant, kernel table) for each ok run of the mode that has GPU events."""
    for run in ls.rs.runs:
        if run.mode == mode and run.status == "ok" and run.variant in VARIANTS:
            kt = tables.kernel_table(ls, run.variant, mode)
            if not kt.empty:
                yield run.variant, kt


def _rule_copies(ls) -> list[Finding]:
    out = []
    for v, kt in _kernel_runs(ls):
        copies = kt[kt.apply(_is_copy, axis=1)]
        if copies.empty:
            continue
        total = _gpu_total(kt)
        expected = VARIANTS[v].expect.copy_or_fill
        for (kind, op), g in copies.groupby(["kind", "launched_by"], sort=False):
            paths = sorted(set(g["op_path"]))
            what = {"memcpy": "memory copy", "memset": "memory fill"}.get(kind, f"{kind} doing a copy or fill")
            what_s = {"memcpy": "memory copy", "memset": "memory fill"}.get(kind, f"{kind}")
            dur = float(g["dur_us"].sum())
            n = len(g)
            text = (f"In each forward of {v}, {n} {what} event(s) ({', '.join(sorted(set(g['short_name'])))}) "
                    f"launched by {op or 'no op'}, under {' | '.join(paths)}: {_us(dur)}, "
                    f"{100 * dur / total:.1f}% of the forward's {_us(total)} of GPU time. ")
            text += ("The hypothesis expected copies or fills in this variant." if expected else
                     "The hypothesis expected none in this variant.")
            short = (f"{n} {what_s}{'s' if n > 1 else ''} ({', '.join(sorted(set(g['short_name'])))}) "
                     f"from {op or 'no op'}: {_us(dur)}, {100 * dur / total:.1f}% of GPU time; "
                     + ("expected" if expected else "the hypothesis expected none"))
            out.append(Finding(
                short=short,
                id=f"copy-{v}-{kind}-{(op or 'none').replace('aten::', '')}",
                title=f"{v}: {n} {kind} from {op or 'no op'}",
                kind="copy", severity="info" if expected else "unexpected", text=text, variant=v,
                kernels=_links(v, "inference", g["index"])))
    return out


def _is_f32(types: str) -> bool:
    toks = [t.strip() for t in types.split(",")]
    return "float" in toks and not any("BFloat16" in t or "Half" in t for t in toks)


def _rule_float32(ls) -> list[Finding]:
    dtype = ls.rs.config.dtype
    if dtype not in ("bf16", "fp16", "f16", "bfloat16", "float16"):
        return []
    out = []
    for v, kt in _kernel_runs(ls):
        k = kt[kt["kind"] == "kernel"]
        f32 = k[k["input_types"].map(_is_f32) | (k["category"].eq("matrix product") &
                                                  k["name"].str.contains(r"f32|sgemm", case=False, regex=True))]
        if f32.empty:
            continue
        ups = k[k["launched_by"].eq("aten::copy_") & k["input_types"].str.contains("float") &
                k["input_types"].str.contains("BFloat16|Half", regex=True)]
        dur, total = float(f32["dur_us"].sum()), _gpu_total(kt)
        gem = f32[f32["category"] == "matrix product"]
        text = (f"{len(f32)} of the {len(kt)} GPU events of a {v} forward compute in float32 in this {dtype} "
                f"set: {_us(dur)}, {100 * dur / total:.0f}% of its GPU time.")
        if not gem.empty:
            text += (f" Its matrix products among them ({', '.join(gem['short_name'])}) are float32 kernels, "
                     f"which the tensor-core rule counts off the tensor cores.")
        if not ups.empty:
            text += f" {len(ups)} more kernel(s) convert between {dtype} and float32 (aten::copy_ under aten::to)."
        short = f"{len(f32)} of {len(kt)} GPU events in float32: {_us(dur)}, {100 * dur / total:.0f}% of GPU time"
        if not gem.empty:
            short += f"; {len(gem)} of them matrix products (off the tensor cores)"
        if not ups.empty:
            short += f"; {len(ups)} conversion kernel(s) to and from float32"
        out.append(Finding(short=short, id=f"float32-{v}", title=f"{v}: {len(f32)} kernels in float32 in a {dtype} model",
                           kind="precision", severity="unexpected", text=text, variant=v,
                           kernels=_links(v, "inference", list(f32["index"]) + list(ups["index"]))))
    return out


def _rule_mask(ls) -> list[Finding]:
    out = []
    for v, kt in _kernel_runs(ls):
        tri = kt[kt["name"].str.contains("triu|tril", case=False) | kt["launched_by"].isin(["aten::triu", "aten::tril"])]
        fill = kt[kt["launched_by"].eq("aten::fill_")]
        where = kt[kt["launched_by"].eq("aten::where")]
        if tri.empty and (fill.empty or where.empty):
            continue
        # The mask's own kernels: triu/tril, what builds its input (ones, fill_),
        # and the where that applies it outside the softmax.
        parts = kt[kt.index.isin(tri.index) | kt["op_path"].str.contains("aten::ones") |
                   (kt["launched_by"].eq("aten::where") & ~kt["op_path"].str.contains("softmax")) |
                   (kt["launched_by"].eq("aten::fill_") & kt["op_path"].str.contains("aten::where") &
                    ~kt["op_path"].str.contains("softmax"))]
        ops = ", ".join(dict.fromkeys(parts["launched_by"]))
        text = (f"{v} builds the causal mask again in every forward: {len(parts)} kernel(s) from {ops}, "
                f"{_us(float(parts['dur_us'].sum()))} a forward. A mask built once and kept, or a kernel "
                "that applies causality itself, would not pay this.")
        short = f"{len(parts)} kernel(s) from {ops}: {_us(float(parts['dur_us'].sum()))} a forward"
        out.append(Finding(short=short, id=f"mask-{v}", title=f"{v}: the causal mask is rebuilt in every forward",
                           kind="mask", severity="unexpected", text=text, variant=v,
                           kernels=_links(v, "inference", parts["index"])))
    return out


def _rule_occupancy(ls) -> list[Finding]:
    out = []
    sms = ls.rs.environment.sm_count
    for v, kt in _kernel_runs(ls):
        k = kt[(kt["kind"] == "kernel") & (kt["occupancy_pct"].isna() | (kt["occupancy_pct"] == 0))]
        for api, g in k.groupby("launch_api", sort=False):
            names = ", ".join(dict.fromkeys(g["short_name"]))
            small = g[g["blocks"] < (sms or 0)]
            text = (f"The profiler reported 0% or no occupancy for {len(g)} kernel(s) of a {v} forward, "
                    f"launched with {api or 'an unknown API'}: {names}; together they ran {_us(float(g['dur_us'].sum()))}, "
                    "so the figure is a failed estimate, not an idle GPU.")
            if api.startswith(("cuLaunchKernelEx", "cudaLaunchKernelEx")):
                text += f" {api} passes launch attributes that the estimate does not read."
            if len(small):
                text += (f" {len(small)} of them have grids of {', '.join(str(int(b)) for b in small['blocks'])} "
                         f"block(s) for {sms} SMs, too few to fill the GPU.")
            short = f"{len(g)} kernel(s) launched with {api or 'an unknown API'}, {_us(float(g['dur_us'].sum()))}"
            if len(small):
                short += f"; {len(small)} with grids smaller than the {sms} SMs"
            out.append(Finding(short=short, id=f"occupancy-{v}-{api}", title=f"{v}: no occupancy estimate ({api})",
                               kind="occupancy", severity="info", text=text, variant=v,
                               kernels=_links(v, "inference", g["index"])))
    return out


def _rule_fastest(ls) -> list[Finding]:
    st = tables.summary_table(ls, "inference")
    if st.empty:
        return []
    col, what = ("gpu_ms", "GPU time") if st["gpu_ms"].notna().any() else ("cpu_ms", "wall time on the host")
    d = st[st[col].notna()].sort_values(col)
    if d.empty:
        return []
    best = d.iloc[0]
    how = "published" if ls.rs.kind == "reference" else "median"
    text = f"{best['variant']} is the fastest variant of this set by {how} {what}: {best[col]:.4f} ms a forward"
    short = f"{best['variant']}: {best[col]:.4f} ms a forward ({how} {what})"
    if ls.rs.kind == "reference":
        text += f" (a figure published in {ls.rs.source}, not measured here)"
    if len(d) > 1:
        nxt = d.iloc[1]
        text += f", {nxt[col] / best[col]:.2f}x ahead of {nxt['variant']} ({nxt[col]:.4f} ms)"
        short += f", {nxt[col] / best[col]:.2f}× ahead of {nxt['variant']} ({nxt[col]:.4f} ms)"
        if col == "gpu_ms" and not math.isnan(best["gpu_q3"]) and not math.isnan(nxt["gpu_q1"]) \
                and best["gpu_q3"] >= nxt["gpu_q1"]:
            text += "; their interquartile ranges overlap, so the order of the two is not settled"
            short += ", interquartile ranges overlap: order not settled"
    naive = d[d["variant"] == "naive"]
    if len(naive) and best["variant"] != "naive":
        text += f". Naive takes {naive.iloc[0][col] / best[col]:.1f}x as long"
        short += f"; naive takes {naive.iloc[0][col] / best[col]:.1f}× as long"
    if col == "cpu_ms":
        text += ". No GPU timed this set"
    return [Finding(short=short, id="fastest", title=f"Fastest: {best['variant']}", kind="speed", severity="info",
                    text=text + ".", variant=best["variant"])]


def _rule_backend(ls) -> list[Finding]:
    st = tables.summary_table(ls, "inference")
    r = st[(st["variant"] == "sdpa_auto") & (st["status"] == "ok")] if not st.empty else st
    if r.empty or not r.iloc[0]["backend"]:
        return []
    r = r.iloc[0]
    kt = tables.kernel_table(ls, "sdpa_auto")
    main = tables.main_kernel(kt)
    pinned = st[(st["backend"] == r["backend"]) & (st["variant"] != "sdpa_auto")]
    text = f"With no backend pinned, scaled_dot_product_attention ran the {r['backend']} backend"
    short = f"no backend pinned: ran {r['backend']}"
    if main is not None:
        text += f" (main kernel {main['short_name']})"
    if len(pinned) and not math.isnan(pinned.iloc[0]["gpu_ms"]) and not math.isnan(r["gpu_ms"]):
        p = pinned.iloc[0]
        text += f"; it took {r['gpu_ms']:.4f} ms against {p['gpu_ms']:.4f} ms for {p['variant']} pinned"
        short += f", {r['gpu_ms']:.4f} ms against {p['gpu_ms']:.4f} ms for {p['variant']} pinned"
    fast = st[st["variant"].str.startswith("sdpa_") & (st["variant"] != "sdpa_auto") & st["gpu_ms"].notna()]
    if len(fast):
        f = fast.sort_values("gpu_ms").iloc[0]
        text += f". The fastest pinned backend here is {f['variant']} ({f['gpu_ms']:.4f} ms)"
        short += f"; fastest pinned: {f['variant']} ({f['gpu_ms']:.4f} ms)"
    text += f". The hypothesis said: {VARIANTS['sdpa_auto'].expect.why}."
    return [Finding(short=short, id="sdpa-auto-backend", title=f"sdpa_auto chose {r['backend']}", kind="backend",
                    severity="info", text=text, variant="sdpa_auto",
                    kernels=_links("sdpa_auto", "inference", [main["index"]]) if main is not None else [])]


def _rule_counts(ls) -> list[Finding]:
    if ls.rs.kind != "measured":
        return []
    out, checked = [], 0
    for run in ls.rs.runs:
        tr = ls.trace(run.mode, run.variant) if run.status == "ok" else None
        if tr is None or not tr.forwards or not any(tr.counts):
            continue
        checked += 1
        if not tr.counts_consistent:
            out.append(Finding(
                id=f"counts-{run.mode}-{run.variant}", title=f"{run.variant} ({run.mode}): kernel count varies",
                kind="consistency", severity="unexpected", variant=run.variant, mode=run.mode,
                short=f"{run.variant} ({run.mode}): {', '.join(map(str, tr.counts))} GPU events in its forwards",
                text=(f"The {len(tr.counts)} profiled forwards of {run.variant} in {run.mode} launched "
                      f"{', '.join(map(str, tr.counts))} GPU events: the work differs from call to call.")))
    if not out and checked:
        out.append(Finding(id="counts-stable", title="Kernel counts are stable", kind="consistency",
                           severity="info", short=f"every profiled forward of each of the {checked} runs with GPU "
                           "events launched as many GPU events as the others of its run",
                           text=f"Every profiled forward of each of the {checked} runs with GPU "
                           "events launched the same number of GPU events as the others of its run."))
    return out


def _rule_autograd(ls) -> list[Finding]:
    run = ls.rs.run("naive_inplace", "train")
    note = run.inplace_autograd if run else None
    if not note:
        return []
    text = f"Claim tested: in-place ops are unsafe for training. Outcome: {note.outcome}"
    if note.max_abs_grad_diff is not None:
        text += f" (largest gradient difference from the out-of-place variant: {note.max_abs_grad_diff:g})"
    if note.outcome == "gradients match":
        text += (". Why: masked_fill_ overwrites the output of `scores * scale`; the backward of a "
                 "multiplication by a Python number needs no saved tensor, and softmax's backward "
                 "saves its own output, so autograd's version counter finds nothing it needs overwritten")
    short = f"{note.outcome}"
    if note.max_abs_grad_diff is not None:
        short += f" (largest gradient difference from the out-of-place variant: {note.max_abs_grad_diff:g})"
    return [Finding(short=short, id="inplace-autograd", title=f"In-place masked_fill_ under autograd: {note.outcome}",
                    kind="autograd", severity="info", text=text + ".", variant="naive_inplace", mode="train")]


def _rule_compile(ls) -> list[Finding]:
    out = []
    for run in ls.rs.runs:
        if run.compile_time_s is None:
            continue
        med = tables.stats(run.timing.eager_ms or run.timing.host_ms)["median"]
        text = f"{run.variant} ({run.mode}): the first call, which compiles, took {run.compile_time_s:.2f} s"
        if not math.isnan(med) and med > 0:
            text += (f", the time of about {run.compile_time_s * 1000 / med:,.0f} timed calls at their median "
                     f"{med:.4f} ms")
        short = f"{run.variant} ({run.mode}): first call {run.compile_time_s:.2f} s"
        if not math.isnan(med) and med > 0:
            short += f", about {run.compile_time_s * 1000 / med:,.0f} timed calls"
        out.append(Finding(short=short, id=f"compile-{run.mode}-{run.variant}", title=f"{run.variant}: compile time ({run.mode})",
                           kind="compile", severity="info", text=text + ".", variant=run.variant, mode=run.mode))
    return out


def _rule_host(ls) -> list[Finding]:
    """Calls the report's host-bound rule flags, with which half of the rule fired."""
    out = []
    for mode in ("inference", "train"):
        st = tables.summary_table(ls, mode)
        if st.empty or ls.rs.kind != "measured":
            continue
        for _, r in st[st["status"] == "ok"].iterrows():
            if not tables.host_bound(r["fill_pct"], r["cpu_ms"], r["gpu_ms"]):
                continue
            call = "forward" if mode == "inference" else "training step"
            short = (f"{mode}: kernels ran {r['kernel_ms']:.4f} ms of a {r['gpu_ms']:.4f} ms "
                     f"{call} ({r['fill_pct']:.0f}%); host dispatch {r['cpu_ms']:.4f} ms")
            if r["fill_pct"] < tables.HOST_BOUND_FILL_PCT:
                why = (f"the GPU idled for {100 - r['fill_pct']:.0f}% of the {call} between launches, so its "
                       "kernels are faster than its GPU time says")
            else:
                why = (f"the kernels fill the {call}'s GPU time, but the host needs {r['cpu_ms']:.4f} ms to "
                       f"dispatch it, {r['cpu_ms'] / r['gpu_ms']:.2f}x the GPU time: the host barely keeps ahead, "
                       "and a slower host would pace it")
            text = (f"In each {call} of {r['variant']} the GPU events ran for {r['kernel_ms']:.4f} ms of its "
                    f"{r['gpu_ms']:.4f} ms of GPU time (median): {why}")
            out.append(Finding(short=short, id=f"host-{mode}-{r['variant']}", title=f"{r['variant']}: host-bound",
                               kind="host", severity="info", text=text + ".", variant=r["variant"], mode=mode))
    return out


RULES = [_rule_copies, _rule_float32, _rule_mask, _rule_occupancy, _rule_fastest, _rule_host, _rule_backend,
         _rule_counts, _rule_autograd, _rule_compile]


def findings(ls: tables.LoadedSet) -> list[Finding]:
    """Every rule's findings for one set, in rule order."""
    out: list[Finding] = []
    for rule in RULES:
        out.extend(rule(ls))
    return out
