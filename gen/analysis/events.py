"""The rows of one forward's kernel table that the findings and hypotheses are about.

Takes: a kernel table (gen.analysis.tables.kernel_table's columns). Gives the rows it flags, as a frame
of the same columns and labels: `copy_events` (memcpy, memset, a copy or fill op's kernels),
`float32_events` (kernels computing in float32, and the conversions between 16-bit and float32),
`mask_events` (the kernels that build a causal mask inside the forward), and the places of those with 0%
or no occupancy estimate (`no_estimate_rows`). One definition each: every page counts the same kernels.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from gen.analysis import kernel_rules

# --------------------------------------------------------------------------- rules on one forward's kernel table
# Each takes a kernel table (tables.kernel_table's columns) and returns the rows it flags.


def copy_events(kt: pd.DataFrame) -> pd.DataFrame:
    """Memcpy and memset events, and kernels of a copy op (kernel_rules.is_copy)."""
    if kt.empty:
        return kt
    return kt.iloc[copy_rows(*table_columns(kt, "kind", "launched_by"))]


def copy_rows(kind: list, ops: list) -> list[int]:
    """The places of copy_events' rows in a kernel table's kind and launched_by columns (the rules
    that read columns as lists ask this, the one definition)."""
    return [i for i, (k, op) in enumerate(zip(kind, ops)) if kernel_rules.is_copy(k, op)]


def float32_events(kt: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Kernels computing in float32 (their op had float32 inputs and no 16-bit
    one, or a matrix product with f32 in its name), and the conversion kernels
    between a 16-bit type and float32."""
    kind, types, cat, names, ops = table_columns(kt, "kind", "input_types", "category", "name", "launched_by")
    kernel = [k == "kernel" for k in kind]
    if not any(kernel):
        k = kt[np.array(kernel, dtype=bool)]
        return k, k
    f32 = [is_k and (kernel_rules.is_float32_only(t) or (c == "matrix product" and bool(_F32_NAME.search(n))))
           for is_k, t, c, n in zip(kernel, types, cat, names)]
    ups = [is_k and o == "aten::copy_" and "float" in t and bool(_SIXTEEN_BIT.search(t))
           for is_k, o, t in zip(kernel, ops, types)]
    return kt[np.array(f32, dtype=bool)], kt[np.array(ups, dtype=bool)]


def mask_events(kt: pd.DataFrame) -> pd.DataFrame:
    """The kernels that build a causal mask inside the forward: triu/tril, what builds its
    input (ones, fill_), the scalars made for the where (scalar_tensor's fill_) and the where
    that applies it, all outside the softmax. Empty when the forward builds no mask. The one
    definition: the Findings page and the math backend's lesson count the same kernels."""
    names, ops, paths = table_columns(kt, "name", "launched_by", "op_path")
    tri = [bool(_TRI.search(n)) or o in ("aten::triu", "aten::tril") for n, o in zip(names, ops)]
    if not any(tri) and ("aten::fill_" not in ops or "aten::where" not in ops):
        return kt.iloc[0:0]
    tri_labels = set(kt.index[np.array(tri, dtype=bool)])  # by label, as index.isin: a label shared is flagged
    return kt[np.array([
        "softmax" not in p and (label in tri_labels or "aten::ones" in p or "aten::where" in p
                                or p.endswith("aten::scalar_tensor > aten::fill_"))
        for label, p in zip(kt.index, paths)], dtype=bool)]


def no_estimate_rows(kind: list, occ: list) -> list[int]:
    """The places of the kernels for which the profiler reported 0% or no occupancy, in a kernel table's kind
    and occupancy_pct columns."""
    return [i for i, (k, o) in enumerate(zip(kind, occ)) if k == "kernel" and kernel_rules.no_occupancy_estimate(o)]


# What pandas' str.contains read in these rules (case-insensitive where it was asked to be)
_F32_NAME = re.compile(r"f32|sgemm", re.IGNORECASE)
_SIXTEEN_BIT = re.compile("BFloat16|Half")
_TRI = re.compile("triu|tril", re.IGNORECASE)


def table_columns(kt: pd.DataFrame, *names: str) -> tuple[list, ...]:
    """Columns of a kernel table as lists (its strings never missing: tables.kernel_table)."""
    return tuple(kt[n].tolist() for n in names)
