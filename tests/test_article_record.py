"""Review 2026-12-07-4 items 3, 4, 5, 7: where the article's profiled runs and the sweep's shared rounds both time its
point, every time the pages show is the runs' (eager and host figures included) and the shared rounds are cited,
labelled, as the evidence that decides the order; the first screen's row names every workload its gain range comes
from; the † note never lists the recommended call's own tie partner."""

from __future__ import annotations

import pytest

from gen.analysis import calls, tables, verdicts
from gen.model import schema
from gen.report.pages import decision
from gen.report.words import verdicts as verdict_words
from tests.conftest import committed_set

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def older():
    return committed_set(OLDER)


def _runs_row(ls, variant):
    st = tables.summary_table(ls, "inference")
    return st[st.variant == variant].iloc[0]


def test_eager_and_host_figures_come_from_the_runs(paired, older):
    # item 3: SDPA (not pinned) on the paired set read 60.8 µs eager against 59.2 µs GPU-only in the runs (1.03×),
    # 1.37× in the sweep's short interleaved windows; FA4 on the older set 2.16× against 2.57×
    auto = verdicts.verdict(paired).row("sdpa_auto")
    assert auto.eager.median * 1e3 == pytest.approx(60.8, abs=0.05)
    assert auto.eager_over_gpu_only == pytest.approx(1.03, abs=0.005)
    fa4 = verdicts.verdict(older).row("fa4")
    assert fa4.eager_over_gpu_only == pytest.approx(2.16, abs=0.005)
    assert fa4.host_cost_ms * 1e3 == pytest.approx(104.2, abs=0.05)


@pytest.mark.parametrize("which", ["paired", "older"])
def test_the_article_verdict_shows_the_runs_times_and_cites_the_shared_rounds(which, paired, older):
    # item 4: one value per quantity: the verdict's times are the summary table's (the runs'), and the shared rounds
    # that decide the order are cited with their record and clocks
    ls = paired if which == "paired" else older
    v = verdicts.verdict(ls)
    f = v.fastest
    assert f.gpu_only.median == pytest.approx(_runs_row(ls, f.variant)["gpu_only_ms"])
    assert f.rounds == calls.OWN and f.rounds_record is not None and f.rounds_record.rounds == calls.SHARED
    point = calls.point_of(ls, "article", schema.Mode.INFERENCE)
    sweep = {t.variant: t for t in calls.timed_at(ls, "article", point)}
    head = verdict_words._headline(v)
    assert f"{f.gpu_only.median * 1e3:.1f} µs a forward" in head and "in the profiled runs" in head
    shared = head.split("in the sweep's shared rounds at this point, which decide the order: ")[1]
    assert shared.startswith(f"{sweep[f.variant].gpu_only.median * 1e3:.1f} µs against "
                             f"{sweep[v.runner_up.variant].gpu_only.median * 1e3:.1f} µs")
    assert verdicts.orders(f, v.runner_up, v.basis).decided and "timed apart" not in head


def test_the_first_row_names_every_workload_its_gains_come_from(older):
    # item 5, and review 2026-12-07-5 item 1: the article's shape, where SDPA unpinned decidedly leads FA4 by 1.18×
    # (under the 1.2× bar), is its own row keeping the default, so the first row names no workload where its call is
    # slower (its gains start at 1.00×) and grouped-query prefill by its own words
    table = decision.facts(older)["table"]
    first = table[0]
    assert float(first["gain"].split("–")[0]) >= 1.0
    named = first["workload"].split(", ")
    assert "prefill at the article's shape" not in named and "grouped-query prefill" in named and "prefill" not in named
    article = next(r for r in table if r["workload"] == "The article's shape")
    assert article["variant"] == "sdpa_auto" and article["gain"].startswith("same call (1.18× as run over")


def test_the_recommended_calls_tie_partner_is_no_faster_call(paired):
    # item 7: SDPA cuDNN runs the kernels of the recommended SDPA (not pinned): never "a call faster than it"
    rows = decision.facts(paired)["rows"]
    assert not [r for r in rows if r.get("why") and r["variant"] == "SDPA cuDNN"]
