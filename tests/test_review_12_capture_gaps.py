"""Review 2026-12-07-3 (the paired H100 set: a capture without flash-attn-4 and the cuDNN frontend, stopped by its time
limit), items 1, 2, 3 and 8: the capture records a missing package as the reason even past the time limit, and the
report says what a capture left out, and why, where its answer stands. Synthetic small sets and the committed sets;
numbers are read from the sets, never typed in where a set gives them."""

from __future__ import annotations

import time

import pytest
import torch

from gen.capture import dynamic, extras, sweep
from gen.capture import timing as capture_timing
from gen.model import scenarios as sc
from gen.model.variants import VARIANTS


def _quick() -> capture_timing.Budget:
    return capture_timing.Budget(warmup_min=2, warmup_min_s=0.0, warmup_max_s=0.02, repeats=3, min_measure_s=0.0,
                                 max_repeats=3, host_repeats=2, min_rounds=2, max_rounds=2, round_s=0.002,
                                 heat_s=0.0)


@pytest.fixture
def no_extras(monkeypatch):
    """Neither optional package found, whatever this machine has."""
    real = extras.importlib.util.find_spec
    monkeypatch.setattr(extras.importlib.util, "find_spec",
                        lambda name, *a: None if name in ("flash_attn", "cudnn") else real(name, *a))


# --------------------------------------------------------------------------- 3: the capture's reason

def test_a_missing_package_is_the_reason_past_the_time_limit_too(tmp_path, no_extras):
    """A sweep past its deadline: the variants whose package is missing say so; the others are skipped for time."""
    s = sc.tiny(sc.SCENARIOS["article"])
    vs = [VARIANTS[n] for n in ("sdpa_math", "fa4", "flex_flash")]
    (tmp_path / "traces").mkdir()
    pts = sweep.run_sweep(vs, [s], ["inference"], torch.device("cpu"), tmp_path, deadline=time.monotonic(),
                          budget=_quick())
    by = {}
    for p in pts:
        by.setdefault(p.variant, set()).add((p.status, p.reason))
    assert by["sdpa_math"] == {("skipped", "not run: the run's time limit was reached")}
    for v in ("fa4", "flex_flash"):
        assert by[v] == {("unavailable", f"ValueError: {extras.FA4_MISSING}")}


def test_a_missing_cudnn_frontend_is_said_before_the_time_limit():
    assert extras.missing(VARIANTS["sdpa_cudnn"]) is None  # not an optional variant: nothing to look up
    real = extras.importlib.util.find_spec
    try:
        extras.importlib.util.find_spec = lambda name, *a: None if name == "cudnn" else real(name, *a)
        assert extras.missing(VARIANTS["cudnn_fp8"]) == f"ValueError: {extras.CUDNN_MISSING}"
    finally:
        extras.importlib.util.find_spec = real


def test_a_dynamic_run_of_a_missing_package_says_so_not_the_time_limit(no_extras):
    s = sc.tiny(sc.SCENARIOS["dynamic-lengths"])
    pts = s.dynamic_points()["prefill"]
    past = time.monotonic() - 1
    fa4 = dynamic.run_variant(VARIANTS["fa4"], "prefill", pts, "fp32", torch.device("cpu"), 0, past)
    assert (fa4.status, fa4.reason, fa4.lengths) == ("unavailable", f"ValueError: {extras.FA4_MISSING}", [])
    naive = dynamic.run_variant(VARIANTS["naive"], "prefill", pts, "fp32", torch.device("cpu"), 0, past)
    assert "time limit" in naive.reason and naive.lengths == []


# --------------------------------------------------------------------------- the report, on the committed sets

from pathlib import Path  # noqa: E402

from gen.analysis import capture_gaps, tables  # noqa: E402
from gen.analysis import method as method_facts  # noqa: E402
from gen.model import migrations  # noqa: E402
from gen.report.words import capture as capture_words  # noqa: E402
from gen.report.words import methodology as method_words  # noqa: E402
from tests.conftest import H100_PAIRED, RESULTS, shared_dir  # noqa: E402

PAIRED = H100_PAIRED
H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"


@pytest.fixture(scope="module")
def docs(tmp_path_factory) -> Path:
    """The two H100 sets built as Markdown pages (gen build, no mkdocs): the home, the set pages, the dynamic page."""
    import shutil

    from gen.report import build

    def make(root: Path) -> None:
        (root / "results").mkdir()
        for name in (H100, PAIRED):
            shutil.copytree(RESULTS / name, root / "results" / name)
        build.run(root / "results", root / "docs", convert=False, use_cache=False, workers=1)

    return shared_dir(tmp_path_factory, "review12-h100-docs", make) / "docs"


def _text(path: Path) -> str:
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))


def test_gaps_are_read_from_the_records(paired):
    g = paired.gaps
    assert g.packages == (("flash-attn-4", "FlashAttention-4"),)
    assert set(g.variants) == {"fa4", "flex_flash", "fa4_paged", "fa4_det"}
    measured = {s for s in {p.scenario for p in paired.rs.sweep}
                if any(p.scenario == s and p.status == "ok" for p in paired.rs.sweep)}
    assert set(g.measured) == measured and g.stopped
    assert {n for n, _ in g.not_reached} == {"decode-kernels", "fp8-prefill", "deterministic-backward",
                                              "dynamic-lengths"}
    assert all(why == "stopped by the time limit" for _, why in g.not_reached)
    assert g.cut == (capture_gaps.Cut("chunked-prefill", 1, 4),)
    # a complete set has none
    assert not tables.load_set(RESULTS / H100).gaps.any


def test_a_missing_package_is_the_reason_wherever_the_set_shows_it_missing(paired):
    for r in [*paired.rs.sweep, *paired.rs.dynamic]:
        if r.variant in ("fa4", "flex_flash", "fa4_paged", "fa4_det"):
            assert r.status == "unavailable" and capture_gaps.package_of(r.reason) == "flash-attn-4", r
    # a variant whose package is not shown missing keeps the time limit as its reason
    fp8 = next(p for p in paired.rs.sweep if p.variant == "cudnn_fp8")
    assert fp8.status == "skipped" and migrations.TIME_LIMIT in fp8.reason


def test_item1_the_home_and_the_set_page_say_why_the_answers_differ(docs):
    home = _text(docs / "generated" / ".verdict.md") + _text(docs / "generated" / ".first.md")
    line = next(x for x in home.splitlines() if PAIRED in x or "paired" in x and "call" in x)
    assert "FlashAttention-4 (flash-attn-4) was not installed for this capture: the answer is among the calls it " \
           "measured" in line
    assert "the same GPU model and PyTorch, answers FlashAttention-4" in line
    # the other side: the older set's first screen names the paired set's answer and why
    assert "that capture could not run FlashAttention-4" in home
    page = _text(docs / "generated" / "sets" / f"{PAIRED}.md")
    first = page.split("What to call")[0]
    assert "was not installed for this capture" in first


def test_item2_scenarios_measured_only_with_a_point_and_the_first_screen_says_the_capture_stopped(docs, paired):
    page = _text(docs / "generated" / "sets" / f"{PAIRED}.md")
    first = page.split("What to call")[0]
    stopped = f"The capture stopped early, at its time limit (after {paired.rs.duration_s:.0f} s): it never reached"
    assert stopped in first
    measured = next(x for x in page.splitlines() if x.startswith("Scenarios measured in this set"))
    for n, _ in paired.gaps.not_reached:
        assert paired.rs.scenario(n).title not in measured
    assert "Not measured: " in page and "(stopped by the time limit)" in page
    assert "Chunked prefill and speculative decoding measured 1 of its 4 points" in first


def test_item3_a_dynamic_page_with_no_length_says_so_in_one_line(docs):
    page = _text(docs / "generated" / "sets" / PAIRED / "scenarios" / "dynamic-lengths.md")
    assert "lengths in turn: ." not in page and "| Variant |" not in page
    assert page.count("Nothing measured: the capture's time limit was reached before its first length") == 2
    assert "(1,000 tokens)" in page and "could not have run (flash-attn-4 not installed)" in page
    fp8 = _text(docs / "generated" / "sets" / PAIRED / "scenarios" / "fp8-prefill.md")
    assert "FlashAttention-4 (flash_attn.cute) did not run here (skipped" not in fp8
    # a scenario the time limit kept the capture from is a stub since review 18 item 17: no list of calls at all
    assert "Not reached: this capture stopped at its time limit" in fp8 and "did not run here" not in fp8


def test_item3_the_lengths_line_says_the_runs_were_stopped(docs):
    page = _text(docs / "generated" / "sets" / f"{PAIRED}.md")
    assert "it has no dynamic-lengths runs" not in page
    assert "its dynamic-lengths runs were stopped by the time limit before any length" in page


def test_item8_round_places_follow_the_set(paired):
    o = method_facts.orientation(paired)
    assert max(o.rounds, key=lambda x: x[1])[0] == 6
    text = method_words.orientation(o)
    assert "reversed ones (2, 4, 6" in text and "(2, 4)" not in text
    assert method_words.round_places(((5, 10),)) == ("1, 3, 5", "2, 4")


def test_item8_the_timed_apart_row_names_every_way():
    rules = dict(method_words.lead_rules())
    assert any(who.endswith("calls timed apart") for who in rules)  # the rule, then why calls are timed apart
    text = next(why for who, why in rules.items() if who.endswith("why calls are timed apart"))
    assert "ran out of memory" in text and "replayed alone after" in text
    assert "a sequence of its own at a point with no shared rounds" in text


def test_words_are_none_for_a_complete_capture():
    g = capture_gaps.Gaps((), (), False, 10.0, ("article",), (), ())
    assert capture_words.lines(g, {}) == [] and capture_words.not_reached(g, {}) is None


def test_schema_6_migration_settles_a_missing_packages_reason_once_on_the_file():
    """A schema-5 file whose FA4 records the time limit skipped, and whose set shows FA4 missing elsewhere: the
    migration gives those records the package's reason first and status unavailable; others keep theirs, and the
    caller's dict is not altered."""
    missing = "unavailable: the optional flash-attn-4 package (import flash_attn.cute) is not installed"
    limit = "skipped: not run: the run's time limit was reached"
    data = {"schema_version": 5, "runs": [], "dynamic": [],
            "sweep": [{"variant": "fa4", "status": "unavailable", "reason": missing},
                      {"variant": "fa4_det", "status": "skipped", "reason": limit},
                      {"variant": "cudnn_fp8", "status": "skipped", "reason": limit},
                      {"variant": "sdpa_flash", "status": "ok", "reason": None}]}
    out = migrations.update_to_6(data)
    assert out["schema_version"] == 6 and data["sweep"][1]["reason"] == limit  # the input stays as it was
    det = out["sweep"][1]
    assert det["status"] == "unavailable" and det["reason"].startswith(missing)
    assert migrations.TIME_LIMIT in det["reason"]
    assert out["sweep"][2] == data["sweep"][2] and out["sweep"][3] == data["sweep"][3]
    # without a record showing the package missing, the time limit stays the reason
    alone = migrations.update_to_6({"schema_version": 5, "sweep": [data["sweep"][1]]})
    assert alone["sweep"][0]["status"] == "skipped"
