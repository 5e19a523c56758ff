"""NVML telemetry: SM clock, board power and temperature, sampled in a thread.

Takes: a torch device (or an NVML module, for tests). Gives: `Sampler`, which
samples every `interval_s` (5 ms) from `start()` to `stop()` into a time
series, and `window()` / `of(intervals)`, the `schema.Telemetry` of the
samples that fall in one timed window (a window may be several intervals: the
rounds of an interleaved measurement). `environment()` gives NVML's version,
the GPU's highest SM clock and its enforced power limit.

nvidia-ml-py (`pynvml`) is imported here only, guarded: where it is missing,
or there is no GPU, every Telemetry says why ("not recorded: ...") and the
capture goes on. NVML calls release the GIL (ctypes), so the thread costs the
timed loops little; a window shorter than the interval still gets the sample
taken just before it ended (the conditions then). Imports the standard
library and gen.model only.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator

from gen.model import schema

INTERVAL_S = 0.005  # NVML's SM clock and instant power update about this often on Hopper
NO_PYNVML = "not recorded: nvidia-ml-py (pynvml) is not installed"
NO_GPU = "not recorded: no GPU"
NVML_FI_DEV_POWER_INSTANT = 186  # nvml.h: the board's instant power, where the driver has it
# nvml.h's clock event reasons that mean "held down for power": the software power cap and the hardware power brake
POWER_CAP_REASONS = 0x4 | 0x80
INSTANT, AVERAGE = schema.PowerReading.INSTANT.value, schema.PowerReading.AVERAGE.value


def _load_nvml():
    try:
        import pynvml  # noqa: PLC0415 - optional, capture only
    except ImportError:
        return None
    return pynvml


def _handle(nvml, device):
    """The NVML handle of torch's device: by PCI bus id where torch gives it
    (CUDA_VISIBLE_DEVICES renumbers), else by index."""
    index = getattr(device, "index", None) or 0
    try:
        import torch

        props = torch.cuda.get_device_properties(index)
        bus = f"{props.pci_domain_id:08x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0"
        return nvml.nvmlDeviceGetHandleByPciBusId(bus)
    except Exception:  # an older torch, a fake device: fall back to the index
        visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
        ids = [x.strip() for x in visible.split(",") if x.strip()]
        if ids and ids[index].isdigit():
            index = int(ids[index])
        return nvml.nvmlDeviceGetHandleByIndex(index)


class Sampler:
    """A thread that reads NVML every interval while started; `samples` holds
    (host seconds, SM MHz, watts, deg C, averaged watts, power-capped). The watts are NVML's instant
    reading where the driver has it (`power_reading` says which), the averaged watts NVML's
    `nvmlDeviceGetPowerUsage` (the reading the enforced limit is held to), power-capped whether a
    power clock-event reason was set. `reason` is set when nothing can be read."""

    def __init__(self, device=None, nvml=None, interval_s: float = INTERVAL_S, clock=time.perf_counter):
        self.interval_s = interval_s
        self.clock = clock
        self.samples: list[tuple] = []
        self.reason: str | None = None
        self.version: str | None = None
        self.sm_clock_max_mhz: float | None = None
        self.power_limit_w: float | None = None
        self.power_reading: str | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.nvml = nvml
        self.handle = None
        if device is not None and getattr(device, "type", str(device)) != "cuda" and nvml is None:
            self.reason = NO_GPU
            return
        if self.nvml is None:
            self.nvml = _load_nvml()
            if self.nvml is None:
                self.reason = NO_PYNVML
                return
        try:
            self.nvml.nvmlInit()
            self.handle = _handle(self.nvml, device)
        except Exception as exc:  # NVMLError and its many subclasses
            self.reason = f"not recorded: NVML could not be read ({type(exc).__name__}: {exc})"
            self.handle = None
            return
        self._instant = True
        self.version = self._call(self.nvml.nvmlSystemGetNVMLVersion)
        mhz = self._call(self.nvml.nvmlDeviceGetMaxClockInfo, self.handle, self.nvml.NVML_CLOCK_SM)
        self.sm_clock_max_mhz = float(mhz) if mhz is not None else None
        mw = self._call(self.nvml.nvmlDeviceGetEnforcedPowerLimit, self.handle)
        self.power_limit_w = mw / 1000.0 if mw is not None else None
        if self._power_w() is not None:  # settles which reading the figures are, before the first window
            self.power_reading = INSTANT if self._instant else AVERAGE

    @staticmethod
    def _call(fn, *args):
        try:
            out = fn(*args)
        except Exception:
            return None
        return out.decode() if isinstance(out, bytes) else out

    @property
    def ok(self) -> bool:
        return self.handle is not None

    def _power_w(self) -> float | None:
        nvml, h = self.nvml, self.handle
        if self._instant:
            try:
                (v,) = nvml.nvmlDeviceGetFieldValues(h, [NVML_FI_DEV_POWER_INSTANT])
                if getattr(v, "nvmlReturn", 0) == 0:
                    return float(v.value.uiVal) / 1000.0
            except Exception:
                pass
            self._instant = False  # not on this driver: the averaged reading from now on
        mw = self._call(nvml.nvmlDeviceGetPowerUsage, h)
        return mw / 1000.0 if mw is not None else None

    def _capped(self) -> bool | None:
        nvml, h = self.nvml, self.handle
        fn = getattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
            nvml, "nvmlDeviceGetCurrentClocksThrottleReasons", None)
        bits = self._call(fn, h) if fn is not None else None
        return bool(int(bits) & POWER_CAP_REASONS) if bits is not None else None

    def read(self) -> tuple | None:
        nvml, h = self.nvml, self.handle
        mhz = self._call(nvml.nvmlDeviceGetClockInfo, h, nvml.NVML_CLOCK_SM)
        if mhz is None:
            return None
        temp = self._call(nvml.nvmlDeviceGetTemperature, h, nvml.NVML_TEMPERATURE_GPU)
        avg = self._call(nvml.nvmlDeviceGetPowerUsage, h) if self._instant else None
        return (self.clock(), float(mhz), self._power_w(), float(temp) if temp is not None else None,
                avg / 1000.0 if avg is not None else None, self._capped())

    def _run(self) -> None:
        while not self._stop.is_set():
            s = self.read()
            if s is not None:
                with self._lock:
                    self.samples.append(s)
            self._stop.wait(self.interval_s)

    def start(self) -> Sampler:
        if self.ok and self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="nvml-sampler", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None

    def sample_now(self) -> None:
        """One reading taken at once (a window that starts the thread late)."""
        if self.ok:
            s = self.read()
            if s is not None:
                with self._lock:
                    self.samples.append(s)

    def of(self, intervals: list[tuple[float, float]]) -> schema.Telemetry:
        """The telemetry of the samples inside the intervals (host seconds from
        `clock`), plus for each interval the last sample before it ended."""
        if not self.ok:
            return schema.Telemetry(reason=self.reason)
        if not intervals:
            return schema.Telemetry(reason="not recorded: the window was not timed")
        with self._lock:
            samples = list(self.samples)
        times = [s[0] for s in samples]
        import bisect

        picked: dict[int, tuple] = {}
        for t0, t1 in intervals:
            lo = bisect.bisect_left(times, t0)
            hi = bisect.bisect_right(times, t1)
            for i in range(lo, hi):
                picked[i] = samples[i]
            if hi > 0 and (hi - 1) not in picked:
                picked[hi - 1] = samples[hi - 1]  # the conditions as the window ran (shorter than the interval)
        got = [picked[i] for i in sorted(picked)]
        duration = sum(t1 - t0 for t0, t1 in intervals)
        if not got:
            return schema.Telemetry(duration_s=duration, reason="not recorded: no NVML sample in the window")
        return summarise(got, duration)

    @contextlib.contextmanager
    def window(self, intervals: list[tuple[float, float]] | None = None) -> Iterator[list[tuple[float, float]]]:
        """Adds (start, end) of the block to `intervals` (a list it returns)."""
        intervals = [] if intervals is None else intervals
        t0 = self.clock()
        try:
            yield intervals
        finally:
            intervals.append((t0, self.clock()))

    def close(self) -> None:
        self.stop()
        if self.ok:
            with contextlib.suppress(Exception):
                self.nvml.nvmlShutdown()


def summarise(samples: list[tuple], duration_s: float | None) -> schema.Telemetry:
    clocks = [s[1] for s in samples]
    power = [s[2] for s in samples if s[2] is not None]
    temps = [s[3] for s in samples if s[3] is not None]
    averaged = [s[4] for s in samples if len(s) > 4 and s[4] is not None]
    capped = [s[5] for s in samples if len(s) > 5 and s[5] is not None]
    return schema.Telemetry(
        power_avg_w=sum(averaged) / len(averaged) if averaged else None,
        power_cap_share=sum(capped) / len(capped) if capped else None,
        samples=len(samples), duration_s=duration_s,
        sm_clock_mhz=sum(clocks) / len(clocks), sm_clock_min_mhz=min(clocks), sm_clock_max_mhz=max(clocks),
        power_w=sum(power) / len(power) if power else None, power_max_w=max(power) if power else None,
        temp_c=max(temps) if temps else None,
    )

