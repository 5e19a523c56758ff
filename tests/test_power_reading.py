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
from gen.model import schema
from gen.report.words import tables as table_words
from gen.report.words import verdicts as verdict_words

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


def test_an_old_sets_page_says_its_reading_was_not_recorded(h100, gpu_docs):
    assert h100.rs.environment.power_reading is None  # migrated from schema 4: not recorded
    page = (gpu_docs / "generated" / "sets" / f"{H100}.md").read_text(encoding="utf-8")
    note = next(x for x in page.splitlines() if x.startswith("Conditions&#58;"))
    assert "Board power, instant or averaged&#58; not recorded in this set" in note
    assert page.count("Board power, instant or averaged") == 1  # once a page, not in each mode's note or cell
    for scenario in ("gqa-prefill", "sliding-window"):
        text = (gpu_docs / "generated" / "sets" / H100 / "scenarios" / f"{scenario}.md").read_text(encoding="utf-8")
        assert text.count("Board power, instant or averaged&#58; not recorded in this set") == 1


# a power figure as the pages print it, the words after it kept: "775 W instant", "≈690 W", "700 W limit"
FIGURE = re.compile(r"(?<![\d.,])(\d{3,4}) W(?! limit)( instant| \(instant or averaged)?")


def test_a_reading_above_the_limit_is_never_printed_bare(h100, gpu_docs):
    limit = h100.rs.environment.power_limit_w
    assert limit == 700.0
    pages = [p for p in (gpu_docs / "generated").rglob("*.md") if H100 in str(p) or p.name.startswith(".")]
    seen = 0
    for path in pages:
        for m in FIGURE.finditer(path.read_text(encoding="utf-8")):
            if float(m.group(1)) > limit:
                seen += 1
                assert m.group(2), f"{path.name}: {m.group(0)!r} above the {limit:.0f} W limit, printed bare"
    assert seen  # the H100 set has windows above its limit (up to 950 W): the test reads them
    v = verdicts.verdict(h100, "sliding-window")
    line = verdict_words.equal_clock_line(v)
    assert "3.005 ms at 1809 MHz and 775 W instant" in line and "(power instant or averaged" in line


def test_a_schema5_verdict_names_its_reading_and_the_power_cap(h100):
    v = verdicts.verdict(h100, "sliding-window")
    rows = tuple(dataclasses.replace(t, power_avg_w=699.0, power_cap_share=0.9) for t in v.rows)
    v5 = dataclasses.replace(v, rows=rows, power_reading=schema.PowerReading.INSTANT,
                             fastest=rows[0], runner_up=next((t for t in rows if v.runner_up
                                                              and t.variant == v.runner_up.variant), None))
    line = verdict_words.equal_clock_line(v5)
    assert "775 W instant, 699 W averaged" in line and "not recorded in this set" not in line
    assert rules.reads_instant(650.0, 700.0, "instant") and not rules.reads_instant(750.0, 700.0, "average")
    assert rules.reads_instant(750.0, 700.0, None) and not rules.reads_instant(650.0, 700.0, None)
