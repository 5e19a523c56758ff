"""Which NVML power reading a set's board power is (review 2026-12-06-2 item 10, the report side): the
instant reading (field 186) is a 5 ms sample that can exceed the enforced limit in a transient, because the
limit holds an average over about a second. A schema-5 window shows the averaged reading and the share of
samples held down for power beside the instant mean; a set that did not record its reading says so once
where its power is shown; a mean above the limit is never printed bare."""

from __future__ import annotations

import dataclasses
import re

import pytest

from gen.analysis import rules, timings, verdicts
from gen.analysis.values import missing
from gen.model import schema
from gen.report.words import as_run as as_run_words
from gen.report.words import tables as table_words

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"


def _schema5_timing() -> schema.Timing:
    """A graph-replay window of 2 s whose instant mean is above a 700 W limit, its averaged mean at it."""
    tel = schema.Telemetry(samples=400, duration_s=2.0, sm_clock_mhz=1712.0, sm_clock_min_mhz=1650.0,
                           sm_clock_max_mhz=1980.0, power_w=852.0, power_max_w=940.0, temp_c=61.0,
                           power_avg_w=699.0, power_cap_share=0.92)
    return schema.Timing(gpu_only_ms=[1.0, 1.1, 1.2, 1.0], gpu_only_method="cuda_graph", eager_ms=[1.3] * 4,
                         host_ms=[0.2] * 10, round_sizes={schema.Window.GPU_ONLY: [2, 2]},
                         telemetry={schema.Window.GPU_ONLY: tel})


@pytest.fixture(scope="module")
def h100():
    from gen.analysis import tables
    from tests.conftest import RESULTS

    return tables.load_set(RESULTS / H100)


def _env(ls, reading):
    return dataclasses.replace(ls.rs.environment, power_reading=reading, power_limit_w=700.0)


def test_a_schema5_window_shows_both_readings_and_the_power_capped_share(h100):
    tm = timings.times(schema.VariantRun(variant="v", mode="inference", status="ok", timing=_schema5_timing()))
    row = dict(timings.row(tm), status="ok", variant="fa4")
    assert list(timings.row(tm)) == timings.COLUMNS
    assert (row["power_avg_w"], row["power_cap_share"]) == (699.0, 0.92)
    env = _env(h100, schema.PowerReading.INSTANT)
    assert table_words.conditions_cell(row, env=env) == \
        "1712 MHz (min 1650) · 852 W instant, 699 W averaged · held for power 92% of samples · 61 °C"
    assert table_words.clock_cell(row, env=env).startswith(
        "1712 MHz, 852 W instant, 699 W averaged, held for power 92% of samples")
    two = [row, dict(row, power_w=790.0, power_avg_w=690.0, power_cap_share=0.5)]
    assert "790–852 W instant, 690–699 W averaged, held for power up to 92% of samples" in \
        table_words.conditions_range(two, env)
    note = table_words.conditions_note([row], env=env)
    assert "Board power is NVML's instant reading (NVML field 186), a 5 ms sample" in note
    assert "held down for power" in note and "not recorded in this set" not in note
    # the set page's table of every window reads the same conditions
    windows, why = timings.window_conditions(_schema5_timing())
    cell = table_words.conditions_cell(timings.window(windows, why, schema.Window.GPU_ONLY).__dict__, env=env)
    assert "852 W instant, 699 W averaged · held for power 92% of samples" in cell


def test_an_instant_reading_lags_not_and_an_averaged_one_is_named(h100):
    short = dict(status="ok", variant="v", sm_clock_mhz=1700.0, power_w=690.0, telemetry_window_s=0.2)
    assert table_words.conditions_cell(short, env=_env(h100, schema.PowerReading.INSTANT)) == "1700 MHz · 690 W instant"
    averaged = _env(h100, schema.PowerReading.AVERAGE)
    assert table_words.conditions_cell(short, env=averaged) == "1700 MHz · ≈690 W averaged"
    assert "averaged reading (nvmlDeviceGetPowerUsage)" in table_words.conditions_note(
        [short], env=_env(h100, schema.PowerReading.AVERAGE))
    # schema 5 in a short window: the instant mean stands bare of ≈, the averaged one beside it lags
    both = dict(short, power_avg_w=650.0, power_cap_share=0.0)
    instant = _env(h100, schema.PowerReading.INSTANT)
    assert table_words.conditions_cell(both, env=instant) == \
        "1700 MHz · 690 W instant, ≈650 W averaged · held for power 0% of samples"
    assert "A power marked ≈ was read in a window shorter than" in table_words.conditions_note([both], env=instant)
    text = table_words.conditions_range([both, dict(both, power_w=720.0, power_avg_w=702.0)], instant)
    assert "690–720 W instant, ≈650–702 W averaged" in text and "≈: windows under" in text
    long = dict(both, telemetry_window_s=2.0)
    assert "· 690 W instant, 650 W averaged ·" in table_words.conditions_cell(long, env=instant)


def test_an_old_sets_page_says_its_reading_was_not_recorded(gpu_docs):
    from gen.analysis import tables
    from tests.conftest import H200_NEW

    old = tables.load_set(H200_NEW)  # a committed set captured before schema 5, with board power
    assert old.rs.environment.power_reading is None  # migrated from schema 3: not recorded
    assert any(r.timing and any(t and not missing(t.power_w) for t in r.timing.telemetry.values())
               for r in old.rs.runs)
    page = (gpu_docs / "generated" / "sets" / f"{old.name}.md").read_text(encoding="utf-8")
    note = next(x for x in page.splitlines() if x.startswith("Conditions&#58;"))
    assert "Board power, instant or averaged&#58; not recorded in this set" in note
    assert page.count("Board power, instant or averaged") == 1  # once a page, not in each mode's note or cell
    assert "W averaged" not in page and "held for power" not in page  # no schema-5 figure it did not record
    for scenario in ("gqa-prefill", "sliding-window"):
        text = (gpu_docs / "generated" / "sets" / old.name / "scenarios" / f"{scenario}.md").read_text(encoding="utf-8")
        assert text.count("Board power, instant or averaged&#58; not recorded in this set") == 1


def test_a_schema5_sets_page_names_its_reading_and_says_not_recorded_nowhere(h100, gpu_docs):
    assert h100.rs.environment.power_reading == schema.PowerReading.INSTANT
    page = (gpu_docs / "generated" / "sets" / f"{H100}.md").read_text(encoding="utf-8")
    assert "not recorded in this set" not in page
    assert "Board power is NVML&#39;s instant reading (NVML field 186)" in page


# a power figure as the pages print it, the words after it kept: "775 W instant", "≈702 W averaged", "700 W limit"
FIGURE = re.compile(r"(?<![\d.,])(≈?)(\d{3,4}) W(?! limit)( instant| averaged| \(instant or averaged)?")


def test_a_reading_above_the_limit_is_never_printed_bare(h100, gpu_docs):
    """Above the enforced limit, a figure says its reading: an instant sample can pass it in a transient, and an
    averaged one only where it lags (a window under NVML's second: then marked ≈)."""
    limit = h100.rs.environment.power_limit_w
    assert limit == 700.0
    pages = [p for p in (gpu_docs / "generated").rglob("*.md") if H100 in str(p) or p.name.startswith(".")]
    seen = 0
    for path in pages:
        for m in FIGURE.finditer(path.read_text(encoding="utf-8")):
            if float(m.group(2)) > limit:
                seen += 1
                assert m.group(3), f"{path.name}: {m.group(0)!r} above the {limit:.0f} W limit, printed bare"
                if m.group(3) == " averaged":  # the limit holds the averaged reading: past it only in a lag
                    assert m.group(1), f"{path.name}: {m.group(0)!r} above the limit, averaged, not marked ≈"
    assert seen  # the H100 set has windows above its limit: the test reads them
    # the same verdict as a set before schema 5 would have it: no averaged reading, its reading not recorded
    v = verdicts.verdict(h100, "sliding-window")
    rows = tuple(dataclasses.replace(t, power_avg_w=None, power_cap_share=None) for t in v.rows)
    v4 = dataclasses.replace(v, rows=rows, power_reading=None, fastest=_same(rows, v.fastest),
                             runner_up=_same(rows, v.runner_up))
    line = as_run_words.equal_clock_line(v4)
    above = [t for t in (v4.fastest, v4.runner_up) if t is not None and t.power_w > limit]
    assert above  # the sliding-window verdict names a window above the limit
    for t in above:
        assert f"at {t.sm_clock_mhz:.0f} MHz and {t.power_w:.0f} W instant" in line
    assert "(power instant or averaged" in line and "W averaged" not in line


def _same(rows, t):
    return None if t is None else next(x for x in rows if x.variant == t.variant)


def test_a_schema5_verdict_names_its_reading_and_the_power_cap(h100):
    v = verdicts.verdict(h100, "sliding-window")
    assert v.power_reading == schema.PowerReading.INSTANT
    line = as_run_words.equal_clock_line(v)
    assert "not recorded in this set" not in line
    named = [t for t in (v.fastest, v.runner_up) if t is not None]
    for t in named:  # each named window: its instant mean, then its averaged one, ≈ where that lags
        lag = "≈" if rules.power_lags(t.power_window_s, schema.PowerReading.AVERAGE) else ""
        assert f"at {t.sm_clock_mhz:.0f} MHz and {t.power_w:.0f} W instant, {lag}{t.power_avg_w:.0f} W averaged" \
            in line, (t.variant, line)
    for f in v.clock_flips:  # who pays for a flip: NVML's own share of samples held down for power
        tb = v.row(f.second)
        if f.second in {t.variant for t in named}:
            for t in (tb, v.row(f.first)):  # both sides of the pair, each with its clock (review 2026-12-06-3 item 4)
                assert f"held for power {100 * t.power_cap_share:.0f}% of its window's samples at " \
                       f"{t.sm_clock_mhz:.0f} MHz" in line
    assert rules.reads_instant(650.0, 700.0, "instant") and not rules.reads_instant(750.0, 700.0, "average")
    assert rules.reads_instant(750.0, 700.0, None) and not rules.reads_instant(650.0, 700.0, None)
    assert rules.power_lags(0.1, "average") and not rules.power_lags(0.1, "instant")
    assert not rules.power_lags(2.0, "average")
