"""Every training table shows the forward and the backward apart, for every variant (issue 32): on the set
page and on each scenario page with training steps, the numbers the set holds (schema 4's fwd_ms, bwd_ms);
a set captured before the split (schema 3) says "not recorded" there."""

from __future__ import annotations

import statistics

import pytest

from gen.analysis import fwdbwd
from gen.model import schema
from gen.report import format as fmt
from tests.conftest import RESULTS

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def site(gpu_docs):
    return gpu_docs


def _split_section(text: str) -> list[str]:
    """Each 'Forward and backward, apart' block of a page, up to the next heading or admonition."""
    out = []
    for part in text.split("**Forward and backward, apart.**")[1:]:
        out.append(part.split("\n#")[0].split("\n!!!")[0].split("\nWhy not")[0])
    return out


def _row(section: str, variant: str) -> str:
    name = fmt.md(fmt.label_of(variant))
    return next(line for line in section.splitlines() if line.startswith(f"| {name} |"))


def test_split_is_the_median_of_each_part():
    t = schema.Timing(fwd_ms=[1.0, 3.0, 2.0], bwd_ms=[4.0, 6.0, 5.0], fwd_bwd_method="events_behind_sleep")
    s = fwdbwd.split(t)
    assert (s.fwd_ms, s.bwd_ms, s.recorded) == (2.0, 5.0, True) and s.bwd_share == pytest.approx(5 / 7)
    old = fwdbwd.split(schema.Timing())
    assert not old.recorded and old.reason is None and old.bwd_share is None


def test_the_set_page_splits_every_training_variant(site):
    rs = schema.load_set(RESULTS / H100)
    (section,) = _split_section((site / fmt.set_page(H100)).read_text())
    assert 'class="vega-chart"' in section
    train = [r for r in rs.runs if r.mode == "train" and r.scenario == "article"]
    assert train
    for r in train:
        row = _row(section, r.variant)
        if r.status == "ok":
            assert fmt.ms(statistics.median(r.timing.fwd_ms)) in row
            assert fmt.ms(statistics.median(r.timing.bwd_ms)) in row


def test_each_scenario_page_with_training_steps_splits_them(site):
    rs = schema.load_set(RESULTS / H100)
    scenarios = {p.scenario for p in rs.sweep if p.mode == "train"}
    assert "deterministic-backward" in scenarios
    for name in scenarios:
        text = (site / fmt.set_scenario_page(H100, name)).read_text()
        (section,) = _split_section(text)
        for p in (p for p in rs.sweep if p.scenario == name and p.mode == "train" and p.status == "ok"):
            row = _row(section, p.variant)
            assert fmt.ms(statistics.median(p.timing.fwd_ms)) in row
            assert fmt.ms(statistics.median(p.timing.bwd_ms)) in row


def test_a_set_without_the_split_says_not_recorded(site):
    rs = schema.load_set(RESULTS / H200)
    assert not any(r.timing.fwd_ms for r in rs.runs)
    pages = [fmt.set_page(H200)] + [fmt.set_scenario_page(H200, n) for n in {p.scenario for p in rs.sweep
                                                                            if p.mode == "train"}]
    for page in pages:
        sections = _split_section((site / page).read_text())
        assert sections and all("not recorded" in s and "| Variant |" not in s for s in sections), page


def test_steps_that_never_ran_do_not_claim_an_older_schema():
    """A capture stopped by its time limit before any training step ran is no schema-4 set: its rows keep their
    own reasons and the "captured before the split" line stays away; one unsplit step that ran brings it."""
    from gen.report.pages import training

    def row(status):
        return fwdbwd._row("sdpa_flash", status, None, schema.Timing(), None)

    skipped = row(schema.Status.SKIPPED)
    assert training.view([skipped], "deterministic backward", "")["not_recorded"] is None
    ran = row(schema.Status.OK)
    assert "schema 4" in training.view([ran, skipped], "deterministic backward", "")["not_recorded"]
