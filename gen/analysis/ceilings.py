"""The set's measured ceilings (matmul, copy, read) from their stored samples.

Takes: a loaded set (gen.analysis.tables). Gives: `ceilings(ls)` (medians, TFLOP/s, GB/s, the roof's
bandwidth and the ridge) and `bandwidths(c)`. Below scaling, clocks and scenarios, which all read it.
"""

from __future__ import annotations

import math

import pandas as pd

from gen.analysis import tables
from gen.analysis.values import missing
from gen.model import schema

BANDWIDTH_CEILINGS = (("copy", "copy_bytes", "copy_ms"), ("read", "read_bytes", "read_ms"))


def bandwidths(c: schema.Ceilings) -> dict[str, dict]:
    """Every bandwidth ceiling the set measured: name -> bytes, median ms, GB/s, samples."""
    out = {}
    for name, bytes_field, ms_field in BANDWIDTH_CEILINGS:
        nbytes, samples = getattr(c, bytes_field, None), getattr(c, ms_field, None)
        if nbytes and samples:
            t = tables.stats(samples)["median"]
            out[name] = dict(bytes=nbytes, ms=t, gbps=nbytes / (t * 1e-3) / 1e9, n=len(samples))
    return out


def ceilings(ls: tables.LoadedSet) -> dict | None:
    """The set's measured ceilings from their stored samples (medians), or None. `bandwidth_gbps`
    is the highest bandwidth ceiling measured (`bandwidth_name` says which): the roof."""
    c = ls.rs.ceilings
    if c is None or not c.matmul_ms or not c.copy_ms:
        return None
    m = tables.stats(c.matmul_ms)["median"]
    t = tables.stats(c.copy_ms)["median"]
    work = 2.0 * math.prod(c.matmul_shape) if len(c.matmul_shape) == 3 else 2.0 * c.matmul_shape[0] ** 3
    bw = bandwidths(c)
    top = max(bw, key=lambda k: bw[k]["gbps"])
    # schema 3: a read-only pass, the ceiling of kernels that almost only read (decode)
    r = tables.stats(c.read_ms)["median"] if c.read_ms and c.read_bytes else math.nan
    return dict(matmul_shape="×".join(map(str, c.matmul_shape)), matmul_dtype=c.matmul_dtype, matmul_ms=m,
                matmul_tflops=work / (m * 1e-3) / 1e12, matmul_n=len(c.matmul_ms),
                copy_bytes=c.copy_bytes, copy_ms=t, copy_gbps=c.copy_bytes / (t * 1e-3) / 1e9, copy_n=len(c.copy_ms),
                bandwidths=bw, bandwidth_name=top, bandwidth_gbps=bw[top]["gbps"],
                ridge_intensity=(work / (m * 1e-3)) / (bw[top]["gbps"] * 1e9),
                read_bytes=c.read_bytes, read_ms=r, read_n=len(c.read_ms),
                read_tbps=c.read_bytes / (r * 1e-3) / 1e12 if not math.isnan(r) else math.nan)


def roof_tflops(intensity: float, ceil: dict) -> float:
    """The roofline at an arithmetic intensity (FLOP per byte): the lower of the matmul ceiling
    and intensity × the highest measured bandwidth."""
    return min(ceil["matmul_tflops"], intensity * ceil["bandwidth_gbps"] / 1e3)


def above_roof(frame: pd.DataFrame, ceil: dict | None, intensity: str = "intensity",
               tflops: str = "tflops_causal") -> dict | None:
    """The points of a frame (one row per point, its arithmetic intensity and achieved TFLOP/s
    under the report's count) that lie above the roofline: n of total, and how many sit above
    the bandwidth slope (left of the ridge) or above the matmul ceiling; `variants` names them.
    None without ceilings or points."""
    if ceil is None or frame.empty:
        return None
    d = frame[frame[tflops].notna() & frame[intensity].notna()]
    if d.empty:
        return None
    roof = d[intensity].map(lambda x: roof_tflops(x, ceil))
    over = d[d[tflops] > roof]
    slope = over[over[intensity] * ceil["bandwidth_gbps"] / 1e3 < ceil["matmul_tflops"]]
    return dict(n=len(over), total=len(d), bandwidth=len(slope), compute=len(over) - len(slope),
                variants=list(dict.fromkeys(over["variant"])) if "variant" in over else [],
                bandwidth_name=ceil["bandwidth_name"], bandwidth_gbps=ceil["bandwidth_gbps"],
                max_over=float((over[tflops] / roof[over.index]).max()) if len(over) else None)


def matmul_clock(ls: tables.LoadedSet) -> float | None:
    """The SM clock NVML read while the matmul ceiling was measured; None where not recorded."""
    t = ls.rs.ceilings.telemetry.get("matmul") if ls.rs.ceilings is not None and ls.rs.ceilings.telemetry else None
    return t.sm_clock_mhz if t is not None and not missing(t.sm_clock_mhz) else None


def matmul_at(tflops: float, ceiling_mhz: float | None, point_mhz: float | None) -> float:
    """The matmul ceiling at a point's SM clock: a matrix product bound by its tensor cores scales with the
    clock, so a ceiling taken at one clock bounds a point at another only scaled to it. NaN where the ceiling
    has a clock and the point none (it cannot be set at the point's clock); unscaled where neither has one
    (a set captured before telemetry: no clock to scale by)."""
    if ceiling_mhz is None:
        return tflops
    if missing(point_mhz) or not point_mhz:
        return math.nan
    return tflops * float(point_mhz) / float(ceiling_mhz)
