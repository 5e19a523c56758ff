"""gen.capture.telemetry with a fake NVML module, on the CPU: no GPU, no pynvml needed."""

from __future__ import annotations

import types

import pytest

from gen.capture import telemetry
from gen.model import schema


class FakeNvml:
    """pynvml's calls the sampler makes, reading from a script of (clock, mW, temp[, averaged mW, reasons])."""

    NVML_CLOCK_SM = 1
    NVML_TEMPERATURE_GPU = 0

    def __init__(self, script, instant=True):
        self.script, self.i, self.instant = script, -1, instant
        self.shut = False

    def nvmlInit(self):
        pass

    def nvmlShutdown(self):
        self.shut = True

    def nvmlDeviceGetHandleByPciBusId(self, bus):
        raise RuntimeError("no such bus")

    def nvmlDeviceGetHandleByIndex(self, i):
        return ("gpu", i)

    def nvmlSystemGetNVMLVersion(self):
        return b"12.580.1"

    def nvmlDeviceGetMaxClockInfo(self, h, kind):
        return 1980

    def nvmlDeviceGetEnforcedPowerLimit(self, h):
        return 700000

    def _row(self):
        return self.script[max(0, min(self.i, len(self.script) - 1))]

    def nvmlDeviceGetClockInfo(self, h, kind):
        self.i += 1
        return self._row()[0]

    def nvmlDeviceGetFieldValues(self, h, ids):
        if not self.instant:
            raise RuntimeError("field not supported")
        return [types.SimpleNamespace(nvmlReturn=0, value=types.SimpleNamespace(uiVal=self._row()[1]))]

    def nvmlDeviceGetPowerUsage(self, h):
        row = self._row()
        return row[3] if len(row) > 3 else row[1]

    def nvmlDeviceGetCurrentClocksEventReasons(self, h):
        row = self._row()
        if len(row) < 5:
            raise RuntimeError("not supported")
        return row[4]

    def nvmlDeviceGetTemperature(self, h, kind):
        return self._row()[2]


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def sampler(script, **kw):
    clock = Clock()
    s = telemetry.Sampler(device=None, nvml=FakeNvml(script, **kw), clock=clock)
    return s, clock


def test_environment_reads_version_max_clock_and_power_limit():
    s, _ = sampler([(1980, 100000, 30)])
    assert s.ok and s.version == "12.580.1" and s.sm_clock_max_mhz == 1980.0 and s.power_limit_w == 700.0


def test_a_window_summarises_the_samples_inside_it():
    s, clock = sampler([(1980, 300000, 40), (1700, 690000, 50), (1650, 700000, 52), (1980, 100000, 35)])
    for t in (0.0, 0.005, 0.010, 0.015):  # one read each 5 ms, by hand (no thread)
        clock.t = t
        s.sample_now()
    tel = s.of([(0.004, 0.011)])
    assert tel.samples == 2 and tel.sm_clock_mhz == pytest.approx(1675) and tel.sm_clock_min_mhz == 1650
    assert tel.power_w == pytest.approx(695) and tel.power_max_w == 700 and tel.temp_c == 52
    assert tel.duration_s == pytest.approx(0.007) and tel.reason is None


def test_a_window_names_the_instant_reading_and_keeps_the_averaged_one_and_the_power_cap_beside_it():
    """Instant samples can exceed the enforced limit in a transient; the averaged reading is the one the
    limit holds, and the clock-event reasons say whether the clock was held down for power."""
    s, clock = sampler([(1980, 850000, 40, 690000, 0x4), (1700, 760000, 50, 700000, 0x80 | 0x1),
                        (1650, 700000, 52, 699000, 0x1), (1980, 100000, 35, 300000, 0)])
    assert s.power_reading == telemetry.INSTANT
    for t in (0.0, 0.005, 0.010, 0.015):
        clock.t = t
        s.sample_now()
    tel = s.of([(0.0, 0.011)])
    assert tel.samples == 3 and tel.power_w == pytest.approx(770) and tel.power_max_w == 850
    assert tel.power_avg_w == pytest.approx(696.333, abs=0.01) and tel.power_cap_share == pytest.approx(2 / 3)
    bare, _ = sampler([(1500, 500000, 45)], instant=False)
    bare.sample_now()
    assert bare.power_reading == telemetry.AVERAGE
    got = bare.of([(0.0, 0.0)])
    assert got.power_w == 500.0 and got.power_avg_w is None and got.power_cap_share is None


def test_a_window_of_several_rounds_takes_each_interval_and_a_short_one_the_last_sample_before_it():
    s, clock = sampler([(1000, 1000, 1), (2000, 2000, 2), (3000, 3000, 3), (4000, 4000, 4)])
    for t in (0.0, 0.01, 0.02, 0.03):
        clock.t = t
        s.sample_now()
    tel = s.of([(0.011, 0.012), (0.029, 0.031)])  # neither holds a sample but the one before each
    assert tel.samples == 3 - 1 and tel.sm_clock_min_mhz == 2000 and tel.sm_clock_max_mhz == 4000


def test_averaged_power_where_instant_power_is_not_offered():
    s, clock = sampler([(1500, 500000, 45)], instant=False)
    s.sample_now()
    assert s.of([(0.0, 0.0)]).power_w == 500.0


def test_the_thread_samples_while_started():
    s = telemetry.Sampler(device=None, nvml=FakeNvml([(1980, 100000, 30)]), interval_s=0.001)
    s.start()
    import time

    time.sleep(0.05)
    s.stop()
    assert len(s.samples) >= 5
    s.close()
    assert s.nvml.shut


def test_without_pynvml_or_gpu_every_window_says_why(monkeypatch):
    monkeypatch.setattr(telemetry, "_load_nvml", lambda: None)
    s = telemetry.Sampler(device=types.SimpleNamespace(type="cuda"))
    assert not s.ok and s.reason == telemetry.NO_PYNVML
    assert s.of([(0, 1)]) == schema.Telemetry(reason=telemetry.NO_PYNVML)
    cpu = telemetry.Sampler(device=types.SimpleNamespace(type="cpu"))
    assert cpu.reason == telemetry.NO_GPU and cpu.version is None


def test_measure_stores_telemetry_per_window():
    pytest.importorskip("torch")
    from gen.capture import timers, timing

    s, clock = sampler([(1700, 690000, 50)])

    class T(timers.Timer):
        gpu = True

        def now(self):
            return clock.t

        def loop_ms(self, call, n):
            clock.t += n * 1e-3
            s.sample_now()
            return [1.0] * n

        def host_ms(self, call, n):
            clock.t += n * 1e-3
            return [0.1] * n

        def capture(self, call, n):
            return n

        def replay_ms(self, graph, n):
            clock.t += n * graph * 1e-3
            s.sample_now()
            return [float(graph)] * n

    s.clock = clock
    t = timing.measure(lambda: None, "cuda", timing.Budget(), timer=T(), sampler=s)
    assert set(t.telemetry) == {"gpu_only", "eager", "host"} and t.telemetry_reason is None
    assert t.telemetry["gpu_only"].sm_clock_mhz == 1700 and t.telemetry["gpu_only"].power_w == 690
