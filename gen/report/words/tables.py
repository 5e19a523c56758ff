"""The notes and cells of a set's tables: what its times are, how a GPU-only time was taken, the
conditions (clock, power, temperature) each time ran in, the measured ceilings."""

from __future__ import annotations

from gen.analysis import clocks, rules
from gen.analysis.values import missing
from gen.model.records import PowerReading
from gen.report.words.common import call_of, join_and, label, us
from gen.report.words.methodology import EAGER_MEANING, GPU_ONLY_HOW, GPU_ONLY_MEANING, HOST_MEANING, NOISE_RULE


def timing_notes(mode: str, gpu: bool, samples: int | None, host_samples: int | None,
                 error_draws: int | None, methods: frozenset[str] = frozenset()) -> list[str]:
    """The sentences under a set's table: what its three times, spreads, memory
    and error columns are, with only what the set recorded. `methods`: the
    gpu_only_method values of its rows."""
    out = []
    call = call_of(mode)
    if gpu and samples:
        out.append(f"Three times per {call}, each a median: {GPU_ONLY_MEANING}. {EAGER_MEANING}, over {samples} or "
                   f"more timed calls. {HOST_MEANING}. The IQR (Q1–Q3) and the spread (IQR as a share of the median) "
                   f"are the GPU-only time's; {NOISE_RULE}.")
        if "cuda_graph" in methods:
            out.append(GPU_ONLY_HOW["cuda_graph"])
        if "kernel_sum" in methods:
            out.append(GPU_ONLY_HOW["kernel_sum"])
    elif host_samples:
        out.append(f"No GPU timed this set: host ms is the median wall time of one {call} on the host "
                   f"over {host_samples} or more calls.")
    else:
        out.append("Published figures: one number per field, no samples and no spread.")
    out.append("Peak MiB is the allocator's peak during one call, extra MiB the part above the inputs already "
               "allocated.")
    if error_draws:
        out.append(f"Error is the largest relative L2 error against a float64 reference over {error_draws} draws.")
    return out


def gpu_only_note(method: str | None, reason: str | None, absent: str | None) -> str:
    """Why a GPU-only time is a kernel sum, or missing; empty for a CUDA-graph time."""
    if absent == "not_measured":
        return f"no GPU-only time: {reason or 'not measured'}"
    if absent == "no_trace":
        return (f"no GPU-only time: no CUDA-graph timing ({reason or 'no reason recorded'}) and no profiled call "
                "to add up")
    if method == "kernel_sum":
        return f"GPU-only time is the kernel sum of the trace (no CUDA-graph timing: {reason or 'no reason recorded'})"
    return ""


NOT_RECORDED = "not recorded"

# Which NVML power reading a set's figures are (Environment.power_reading), said once where its power is shown
READING_NOT_RECORDED = "instant or averaged: not recorded in this set"
READING = {
    PowerReading.INSTANT: ("NVML's instant reading (NVML field 186), a 5 ms sample that can exceed the enforced "
                           "limit in a transient: the limit holds an average over about a second"),
    PowerReading.AVERAGE: ("NVML's averaged reading (nvmlDeviceGetPowerUsage), an average over about a second: "
                           "the one the enforced limit holds"),
}
READING_WORD = {PowerReading.INSTANT: "instant", PowerReading.AVERAGE: "averaged"}


def _env(env) -> tuple[str | None, float | None]:
    """A set's power reading and enforced limit (None, None without an environment)."""
    return getattr(env, "power_reading", None), getattr(env, "power_limit_w", None)


def reading_sentence(env) -> str:
    """Which reading a set's board power is, in one sentence for under its figures; empty without the set's
    environment (a caller that gave no set)."""
    if env is None:
        return ""
    reading, _ = _env(env)
    if reading in READING:
        return f"Board power is {READING[reading]}."
    return (f"Board power, {READING_NOT_RECORDED} (its capture read NVML's instant reading, a 5 ms sample that "
            "can exceed the enforced limit in a transient, where the driver had it; a figure above the limit is "
            "marked instant).")


def watts(power_w, env=None, window_s: float | None = None, avg_w: float | None = None) -> str | None:
    """A window's mean board power with its reading named: "852 W instant, 699 W averaged" (schema 5, both
    read), "690 W averaged"; in a set that did not record its reading, "775 W instant" above the enforced
    limit (rules.reads_instant), else bare, "≈" where an averaged reading would lag (rules.power_lags): on a
    schema-5 window the averaged figure's, never the instant one's ("687 W instant, ≈326 W averaged")."""
    if missing(power_w):
        return None
    reading, limit = _env(env)
    instant = rules.reads_instant(power_w, limit, reading)
    lag = not instant and rules.power_lags(window_s, reading)
    word = "instant" if instant else READING_WORD.get(reading)
    text = f"{'≈' if lag else ''}{power_w:.0f} W" + (f" {word}" if word else "")
    if not missing(avg_w):
        text += f", {'≈' if rules.power_lags(window_s, PowerReading.AVERAGE) else ''}{avg_w:.0f} W averaged"
    return text


def window_s(r) -> float | None:
    """A window's length in seconds: a row of timings.COLUMNS (telemetry_window_s) or a timings.Conditions
    (duration_s)."""
    return r.get("telemetry_window_s")  # a Conditions' duration_s not yet: its tables assume no mark (left for later)


def held_for_power(share: float | None, mhz: float | None, max_mhz: float | None = None,
                   samples: str = "samples", say_mhz: bool = True) -> str | None:
    """The share of a window's samples whose SM clock NVML said was held down for power (schema 5), with the
    clock it ran at: "held for power 92% of samples at 1712 MHz"; where that clock is within rules.CLOCK_GAP_PCT
    of the GPU's maximum (`max_mhz`), its mean clock said to be near it (rules.clock_near_max): a mean says
    nothing of the dips within the window, so no more is claimed."""
    if missing(share):
        return None
    text = f"held for power {100 * share:.0f}% of {samples}" + (f" at {mhz:.0f} MHz" if say_mhz and not missing(mhz)
                                                                  else "")
    if share > 0 and rules.clock_near_max(mhz, max_mhz):
        text += f" (its mean clock within {rules.CLOCK_GAP_PCT:g}% of the {max_mhz:.0f} MHz maximum)"
    return text


def cap_share(r, max_mhz: float | None = None) -> str | None:
    """A window's held-for-power share (held_for_power) for a cell whose clock comes first, or None before
    schema 5."""
    return held_for_power(r.get("power_cap_share"), r.get("sm_clock_mhz"), max_mhz, say_mhz=False)


def conditions_cell(r, ref_mhz: float | None = None, env=None) -> str:
    """The conditions of a GPU-only time (a row of timings.COLUMNS) for a table cell:
    "1670 MHz (min 1640) · 690 W · 61 °C", or "not recorded"; a schema-5 window "1712 MHz (min 1650) · 852 W
    instant, 699 W averaged · held for power 92% of samples · 61 °C" (`env`, the set's environment, says which
    reading); with the set's reference clock, the time at equal clock after them ("· 0.1250 ms at 1980 MHz")."""
    mhz = r.get("sm_clock_mhz")
    if missing(mhz):
        return NOT_RECORDED
    parts = [f"{mhz:.0f} MHz" + ("" if missing(r.get("sm_clock_min_mhz")) else f" (min {r['sm_clock_min_mhz']:.0f})")]
    power = watts(r.get("power_w"), env, window_s(r), r.get("power_avg_w"))
    if power:
        parts.append(power)
    held = cap_share(r, getattr(env, "ref_mhz", None))
    if held:
        parts.append(held)
    if not missing(r.get("temp_c")):
        parts.append(f"{r['temp_c']:.0f} °C")
    if r.get("gpu_only_method") == "kernel_sum":  # one source per row: the window its time comes from
        parts.append(KERNEL_SUM_WINDOW)
    at = _equal_clock_ms(r, mhz, ref_mhz)
    if at is not None:
        parts.append(f"{us(at)} at {ref_mhz:.0f} MHz (equal clock, a model)")
    elif ref_mhz is not None and not rules.equal_clock_applies(r.get("figure")):
        parts.append(NO_EQUAL_CLOCK)
    elif ref_mhz is not None and not one_clock(r):
        parts.append(NO_SINGLE_CLOCK)
    return " · ".join(parts)


KERNEL_SUM_WINDOW = "profiled calls' window"


NO_EQUAL_CLOCK = "as run (memory-bound: equal clock does not apply)"


# A window whose clock readings spread too far under their mean (rules.one_clock, the point frame's one_clock)
NO_SINGLE_CLOCK = "as run (no single clock to scale by)"


def one_clock(r) -> bool:
    """A row's window had one clock (the point frame's one_clock; a row without the column is taken to)."""
    x = r.get("one_clock")
    return missing(x) or bool(x)


def _equal_clock_ms(r, mhz, ref_mhz) -> float | None:
    """A row's time at equal clock, None where equal clock does not apply to its point (rules.equal_clock_applies:
    a row that carries its figure) or its window had no single clock (one_clock)."""
    if not rules.equal_clock_applies(r.get("figure")) or not one_clock(r):
        return None
    return clocks.at_ref_clock(r.get("gpu_only_ms"), mhz, ref_mhz)


def clock_cell(r, ref_mhz: float | None = None, env=None) -> str | None:
    """The conditions of a GPU-only time, for beside it in a table: its mean SM clock, board power (its reading
    named as `watts` does) and, with the set's reference clock, its time at equal clock ("1670 MHz, 690 W;
    0.1250 ms at 1980 MHz"), or None."""
    mhz = r.get("sm_clock_mhz")
    if missing(mhz):
        return None
    text = f"{mhz:.0f} MHz"
    power = watts(r.get("power_w"), env, window_s(r), r.get("power_avg_w"))
    if power:
        text += f", {power}"
    held = cap_share(r, getattr(env, "ref_mhz", None))
    if held:
        text += f", {held}"
    if r.get("gpu_only_method") == "kernel_sum":  # not a graph replay's window: say whose
        text += f" ({KERNEL_SUM_WINDOW})"
    at = _equal_clock_ms(r, mhz, ref_mhz)
    if at is not None:
        text += f"; {us(at)} at {ref_mhz:.0f} MHz (equal clock, a model)"
    elif ref_mhz is not None and not rules.equal_clock_applies(r.get("figure")):
        text += f"; {NO_EQUAL_CLOCK}"
    elif ref_mhz is not None and not one_clock(r):
        text += f"; {NO_SINGLE_CLOCK}"
    return text


def conditions_note(rows, per_variant: bool = False, env=None, say_reading: bool = True) -> str:
    """One line under a table: where its times' conditions came from, or why there are none, and which
    NVML power reading the set's figures are (`env`, its environment; `say_reading` False where the page
    said it already); with per_variant, each variant's clock, minimum, power and temperature."""
    ok = [r for r in rows if r.get("status") == "ok"]
    reasons = {r.get("telemetry_reason") for r in ok if missing(r.get("sm_clock_mhz"))}
    reasons.discard(None)
    text = ("Conditions: the SM clock (mean over the window, and its minimum), board power (mean) and GPU "
            "temperature (maximum) that NVML read while the GPU-only time was taken.")
    powered = [r for r in ok if not missing(r.get("power_w"))]
    if powered and say_reading and env is not None:
        text += " " + reading_sentence(env)
    if any(not missing(r.get("power_avg_w")) or not missing(r.get("power_cap_share")) for r in powered):
        text += (" Beside an instant reading, NVML's averaged one, and the share of samples whose SM clock NVML "
                 "said was held down for power (the power cap or the power brake), at the window's mean clock.")
    if per_variant:
        recorded = [f"{label(r['variant'])} {conditions_cell(r, env=env)}" for r in ok
                    if not missing(r.get("sm_clock_mhz"))]
        if recorded:
            text += " " + "; ".join(recorded) + "."
    if any("≈" in watts(r["power_w"], env, r.get("telemetry_window_s"), r.get("power_avg_w")) for r in powered):
        text += (f" A power marked ≈ was read in a window shorter than {rules.NVML_POWER_WINDOW_S:g} s: NVML's "
                 "averaged reading is an average over about a second, so, where it is that reading, it lags what "
                 "the GPU drew in the window.")
    if reasons:
        text += " Here: " + "; ".join(sorted(str(x) for x in reasons)) + "."
    return text


def conditions_range(rows, env=None) -> str:
    """A set's GPU-only times in one phrase: the range of their mean SM clocks, power (its reading named,
    `env`: the set's environment) and temperature, or why they were not recorded. Where some times are kernel
    sums, their windows (the profiled calls') are given apart from the graph replays': one range
    never mixes the two kinds of window."""
    ok = [r for r in rows if r.get("status") == "ok"]
    clocked = [r for r in ok if not missing(r.get("sm_clock_mhz"))]
    if not clocked:
        reasons = sorted({str(r.get("telemetry_reason")) for r in ok if r.get("telemetry_reason")})
        return "; ".join(reasons) or NOT_RECORDED
    summed = [r for r in clocked if r.get("gpu_only_method") == "kernel_sum"]
    replayed = [r for r in clocked if r.get("gpu_only_method") != "kernel_sum"]
    if summed and replayed:
        first = _range(replayed, apart=True, env=env)
        second = _range(summed, apart=True, env=env, said=first)
        window = KERNEL_SUM_WINDOW if len(summed) == 1 else "profiled calls' windows"
        text = (f"{first} over the CUDA-graph replays' windows; {second} over the {window} of "
                f"{join_and(label(r['variant']) for r in summed)}'s kernel sum{'s' if len(summed) != 1 else ''}")
    else:
        text = _range(clocked, env=env)
    missing_n = len(ok) - len(clocked)
    return text + (f" ({missing_n} time{'s' if missing_n != 1 else ''} without a clock)" if missing_n else "")


LAG_NOTE = (f"≈: windows under {rules.NVML_POWER_WINDOW_S:g} s, where NVML's averaged power, an average over "
            "about a second, would lag what the GPU drew")


def _span(values: list[float], apart: bool) -> str:
    return f"{values[0]:.0f}" if apart and len(values) == 1 else f"{min(values):.0f}–{max(values):.0f}"


def _range(rows, apart: bool = False, env=None, said: str = "") -> str:
    """Rows' mean SM clocks, power and highest temperature as ranges ("SM clock 1980 MHz, ≈545–654 W, up to
    54 °C"), the power's reading named ("545–852 W instant, 540–699 W averaged, held for power up to 92% of
    samples"); after the power, what ≈ means and, in a set that did not record its reading, that it did not,
    unless `said` (the text before this one) says them; `apart`: one window kind of two, whose one row's
    power reads as one value."""
    mhz = [r["sm_clock_mhz"] for r in rows]
    powered = [r for r in rows if not missing(r.get("power_w"))]
    temps = [r["temp_c"] for r in rows if not missing(r.get("temp_c"))]
    text = f"SM clock {min(mhz):.0f}–{max(mhz):.0f} MHz" if min(mhz) != max(mhz) else f"SM clock {mhz[0]:.0f} MHz"
    if powered:
        reading, limit = _env(env)
        values = [r["power_w"] for r in powered]
        instant = rules.reads_instant(max(values), limit, reading)
        lag = not instant and any(rules.power_lags(window_s(r), reading) for r in powered)
        unsaid = env is not None and reading is None and READING_NOT_RECORDED not in said
        word = READING_WORD.get(reading) or ("instant" if instant and not unsaid else None)
        text += f", {'≈' if lag else ''}{_span(values, apart)} W" + (f" {word}" if word else "")
        averaged = [r for r in powered if not missing(r.get("power_avg_w"))]
        if averaged:  # the averaged reading lags where its window is short, whichever reading power_w is
            lag_avg = any(rules.power_lags(r.get("telemetry_window_s"), PowerReading.AVERAGE) for r in averaged)
            lag = lag or lag_avg
            text += f", {'≈' if lag_avg else ''}{_span([r['power_avg_w'] for r in averaged], apart)} W averaged"
        shares = [r["power_cap_share"] for r in powered if not missing(r.get("power_cap_share"))]
        if shares:
            text += (", never held for power" if max(shares) == 0 else
                     f", held for power {'up to ' if len(shares) > 1 else ''}{100 * max(shares):.0f}% of samples")
        notes = []
        if unsaid:
            notes.append(READING_NOT_RECORDED + (f"; above the {limit:.0f} W limit, so NVML's instant reading"
                                                 if instant else ""))
        if lag and LAG_NOTE not in said:
            notes.append(LAG_NOTE)
        if notes:
            text += f" ({'; '.join(notes)})"
    if temps:
        text += f", up to {max(temps):.0f} °C"
    return text


def ceiling_line(c: clocks.Ceiling, env=None) -> str:
    """One measured ceiling with the clock it was measured at (`env`: the set's environment, for its power
    reading)."""
    what = {"matmul": "a large matrix product", "copy": "a device-to-device copy (reads and writes)",
            "read": "a read-only pass (what a decode kernel mostly does)"}.get(c.kind, c.kind)
    value = f"{c.value:.0f} {c.unit}" if c.unit == "TFLOP/s" else f"{c.value:.2f} {c.unit}"
    cond = c.conditions
    # its window's length, so that a short window's averaged power gets the ≈ the scenario rows give it
    # ("475 W averaged" over 0.515 s beside "held for power 100%")
    row = {**cond.__dict__, "telemetry_window_s": getattr(cond, "duration_s", None)}
    at = (f"at {conditions_cell(row, env=env)}" if cond.recorded else f"clock {cond.reason or NOT_RECORDED}")
    text = f"{c.kind.capitalize()} ceiling: {what}, {value} (median of {c.n}), {at}"
    if c.sol is not None and not missing(c.sol.pct):
        text += (f"; {c.sol.pct:.0f}% of the speed of light at that clock ({c.sol.peak_tflops:.0f} TFLOP/s = "
                 f"SMs × {c.sol.clock_mhz:.0f} MHz × {c.sol.rate.flops_per_clk_per_sm} dense FLOP per clock per SM)")
    return text + "."


def sol_note(rate) -> str:
    """What "% of speed of light" means, with the table's source."""
    if rate is None:
        return ("Speed of light: no dense tensor rate for this GPU and dtype among the datasheet figures this report "
                "carries.")
    return (f"% of speed of light: the TFLOP/s over SMs × the SM clock NVML sampled during the GPU-only time × "
            f"{rate.flops_per_clk_per_sm} dense {rate.dtype} FLOP per clock per SM ({rate.arch}; {rate.source}); "
            "a time without a recorded clock has none. The share of the matmul ceiling, beside it, is of the ceiling "
            "as measured, at its own clock and power state (a share above 100% is a rate the measured product did "
            "not reach, flagged where a point's figure is given); scaled to a point's own clock it would assume a "
            "product that runs at that clock under the power limit, a model the headlines give after it. The copy "
            "and read "
            "ceilings are bandwidths, not scaled. The measured matrix product is BF16: an FP8 point is set against "
            "no ceiling (no FP8 ceiling is measured), only against the FP8 speed of light.")


def above_ceiling_line(rows, ceiling: str) -> str | None:
    """The points a ceiling does not bound, or None."""
    if not len(rows):
        return None
    worst = max(rows, key=lambda r: r["pct_of_ceiling"])
    why = (" A copy writes as much as it reads; a kernel that only reads is not bound by it: the set needs the "
           "read-only ceiling, measured from schema 3 on." if ceiling == "copy" else "")
    at = worst.get("pct_of_matmul_at_clock") if ceiling == "matmul" else None  # one point, both its shares
    scaled = (f"; {at:.0f}% of it scaled to the point's {worst['sm_clock_mhz']:.0f} MHz, a model"
              if not missing(at) and not missing(worst.get("sm_clock_mhz")) else "")
    return (f"{len(rows)} point{'s' if len(rows) != 1 else ''} pass{'' if len(rows) != 1 else 'es'} the measured "
            f"{ceiling} ceiling as measured (up to {worst['pct_of_ceiling']:.0f}%, {label(worst['variant'])} at "
            f"{worst['kv_len']:,}{scaled}): that ceiling does not bound them.{why}")


def fidelity_lines(rows) -> list[str]:
    """Where a GPU-only time is not a graph replay of the same work: the kernel-sum fallback with its
    reason, and the kernels a graph replay ran that an eager call did not (and the reverse)."""
    out = []
    for r in rows:
        if r.get("status") != "ok":
            continue
        name = label(r["variant"])
        if r.get("gpu_only_method") == "kernel_sum" and r.get("gpu_only_reason"):
            out.append(f"{name}: GPU-only time is the eager call's kernel sum, not a graph replay: "
                       f"{r['gpu_only_reason']}.")
        if r.get("graph_fidelity") == "differs":
            diff = [f"only in the graph: {r['graph_only_in_graph']}" if r.get("graph_only_in_graph") else None,
                    f"only in the eager call: {r['graph_only_in_eager']}" if r.get("graph_only_in_eager") else None]
            out.append(f"{name}: the graph replay ran other kernels than an eager call"
                       + (f" ({r['graph_detail']})" if r.get("graph_detail") else "")
                       + (": " + "; ".join(x for x in diff if x) if any(diff) else "") + ".")
    return out


# A share of a measured bandwidth past rules.above_ceiling, flagged as a compute point above its ceiling is;
# one past 100% but within rules.TIME_FLOOR_PCT of the pass (SDPA
# cuDNN's decode at 101% of the paired H100 set's read pass, unflagged) is flagged too: the pass is then a lower bound
ABOVE_PASS = ("; above {name}, which therefore is no ceiling for this call (flagged as the matmul line is where a "
              "rate passes it)")
ABOVE_WITHIN = ("; at or just above {name}, within the " + f"{rules.TIME_FLOOR_PCT:g}% time floor of it: that "
                "pass is a lower bound on the bandwidth, not a ceiling for this call (flagged as a rate past a "
                "measured pass is)")


def pass_flag(pct: float | None, name: str) -> str:
    """The flag after a share of a measured bandwidth pass (`name`): ABOVE_PASS past rules.above_ceiling,
    ABOVE_WITHIN past 100% within the floor, else ""."""
    if rules.above_ceiling(pct):
        return ABOVE_PASS.format(name=name)
    return ABOVE_WITHIN.format(name=name) if not missing(pct) and pct > 100 else ""


def memory_side(f: dict) -> str:
    """Where a point rated against the matmul ceiling sits left of the roofline's ridge (its FLOP per byte below the
    matmul ceiling over the highest measured bandwidth), the memory side of it (chunked
    prefill at 16 queries, 128 FLOP/B against a 231 FLOP/B ridge, was rated only as 10% of the matmul ceiling):
    "; below the roofline's ridge (128 against 231 FLOP/B), so its bound is memory: 0.56 TB/s, 18% of the measured
    read pass, where the roof is 395 TFLOP/s"; "" elsewhere."""
    x, ridge = f.get("intensity"), f.get("ridge_intensity")
    if missing(x) or missing(ridge) or x >= ridge:
        return ""
    text = f"; below the roofline's ridge ({x:.0f} against {ridge:.0f} FLOP/B), so its bound is memory"
    tbps, pct = f.get("achieved_tbps"), f.get("pct_of_read")
    if not missing(tbps):
        text += f": {tbps:.2f} TB/s" + ("" if missing(pct) else f", {pct:.0f}% of the measured read pass")
    roof = f.get("roof_tflops")
    return text + ("" if missing(roof) else f", where the roof is {roof:.0f} TFLOP/s")
