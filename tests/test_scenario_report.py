"""Scenario pages and charts: a synthetic set with every scenario beside the committed published anchors."""

from __future__ import annotations

import re

import pytest

from gen.analysis import scaling, tables
from gen.analysis import scenarios as sa
from gen.model import anchors
from tests import scenario_sets
from tests.chart_marks import drawn_marks
from tests.conftest import RESULTS


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    d = scenario_sets.build(tmp_path_factory.mktemp("sets"))
    return [tables.load_set(d), tables.load_set(RESULTS / anchors.CUDNN_NAME),
            tables.load_set(RESULTS / anchors.FA3_NAME)]


SYN = "nvidia-h200__torch-2.11.0__scenarios"  # scenario_sets.build's set


@pytest.fixture(scope="module")
def all_pages(sets):
    from gen.report import render
    from gen.report.site import Context

    return {p.path: p for p in render.render(Context(sets), workers=1)}


@pytest.fixture(scope="module")
def pages(all_pages):
    """The scenario pages over every set, and the synthetic set's page of each scenario (by scenario name)."""
    out = {k: v for k, v in all_pages.items() if k.startswith("generated/scenarios/")}
    out.update({f"set/{k.rsplit('/', 1)[1]}": v for k, v in all_pages.items()
                if k.startswith(f"generated/sets/{SYN}/scenarios/")})
    return out


@pytest.mark.parametrize("scenario", ["gqa-prefill", "decode", "sliding-window", "article"])
def test_scenario_charts_draw_every_point(sets, scenario):
    from gen.report import charts

    ls = sets[0]
    pts, anc = sa.point_frame(ls, scenario), sa.anchor_frame(sets, scenario)
    ceil = scaling.ceilings(ls)
    ran = pts[(pts["status"] == "ok") & (pts["mode"] == "inference")]
    figure = sa.FIGURE_TBPS if scenario == "decode" else sa.FIGURE_TFLOPS
    same_shape_times = int((anc["same_shape"] & anc["published_ms"].notna()).sum()) if len(anc) else 0
    time = drawn_marks(charts.scenario_time(pts, anc, "length").to_dict())
    assert time.get("mark-symbol", 0) == len(ran) + same_shape_times, time
    rate = drawn_marks(charts.scenario_rate(pts, anc, figure, "rate", "length", [("measured", 100.0)]).to_dict())
    published_rates = int(anc["tflops"].notna().sum()) if figure == sa.FIGURE_TFLOPS and len(anc) else 0
    assert rate.get("mark-symbol", 0) == len(ran) + published_rates, rate
    assert rate.get("mark-rule", 0) >= 1  # the ceiling
    roof = drawn_marks(charts.scenario_roofline(pts, ceil["matmul_tflops"], ceil["copy_gbps"] / 1e3, "I").to_dict())
    assert roof.get("mark-symbol", 0) == int((pts["status"] == "ok").sum()), roof
    assert roof.get("mark-line", 0) >= 1


NAMES = ("article", "gqa-prefill", "decode", "sliding-window")


def test_pages_and_navigation(pages):
    # one measured set: no scenario's page over every set (it would hold one row, issue 33), the set's own pages
    assert list(pages) == ["generated/scenarios/index.md"] + [f"set/{n}.md" for n in NAMES]
    assert all(p.nav[0] == "Scenarios" for k, p in pages.items() if k.startswith("generated/"))
    assert all(p.nav is None for k, p in pages.items() if k.startswith("set/"))  # reached from the set's pages
    index = pages["generated/scenarios/index.md"].text
    # the index's row of each scenario opens the set's own page of it
    assert f"(../sets/{SYN}/scenarios/gqa-prefill.md)" in index and f"(../sets/{SYN}/scenarios/decode.md)" in index
    # the cuDNN frontend's times are profiler kernel times: our kernel sum first, as run beside (review 2026-12-07-9
    # item 5); our 0.5 ms as run against cuDNN's published 0.465 ms at 4k
    assert "its time by kernel sum, 1.08× its time as run, 0.93× its rate as run" in index
    # the set's page says what the scenario is and links the index back
    prefill = pages["set/gqa-prefill.md"].text
    assert "4·B·Hq·Sq·Sk·D" in prefill and "([every scenario](../../../scenarios/index.md)" in prefill


def test_prefill_page_names_its_convention_and_the_anchor(pages):
    text = pages["set/gqa-prefill.md"].text
    assert sa.FLOP_LABEL in text and "4·B·Hq·Sq·Sk·D" in text
    # The cuDNN anchor: its own count quoted, converted from its time, what differs said.
    assert "published" in text and "(from its time)" in text and "cuDNN 9.19.1 (here 9.19.0)" in text
    assert "2&#42;B&#42;Hq&#42;N&#42;(Dqk+Dvo)" in text  # its count, escaped for Markdown
    assert "| 0.465 | 591 | 591 (from its time) |" in text
    assert "1.08×" in text  # our 0.5 ms over its 0.465 ms
    assert "### Training steps (forward and backward)" in text


def test_decode_page_shows_bandwidth_against_both_ceilings(pages):
    text = pages["set/decode.md"].text
    assert "TB/s (Q, K, V, output once)" in text and sa.BYTES_CONVENTION in text.replace("&#39;", "'")
    assert "Datasheet bandwidth&#58; 4.8 TB/s" in text and "measured copy bandwidth" in text
    assert "### Published" not in text  # no source published decode
    # Decode reads far more than it writes: passing the copy's rate is said to be possible, not hidden.
    assert "Above 100% of the measured copy bandwidth is possible" in text.replace("&#58;", ":")


def test_refusals_show_pytorchs_reason_escaped(pages):
    text = pages["set/decode.md"].text
    # The table of every point is finished HTML (a row's cells one a line).
    rows = [tr for tr in re.findall(r"<tr>\n(.*?)\n</tr>", text, re.S)
            if tr.startswith("<td>SDPA cuDNN</td>") and "unavailable" in tr]
    assert len(rows) == 2 and all(r.count("<td") == 13 for r in rows)  # the table keeps its columns
    ref = re.search(r'\(why: <a href="#([\w.-]+)">1</a>\)', rows[0]).group(1)
    assert ref.endswith("-inference-refusal-1") and all(f'href="#{ref}"' in r for r in rows)
    # PyTorch's reason once, for both points, escaped.
    (item,) = [ln for ln in text.splitlines() if f'<span id="{ref}"></span>' in ln]
    assert "**SDPA cuDNN**, unavailable at KV 4,096, KV 16,384:" in item
    assert "&lt;script&gt;" in item and "<script>" not in text
    assert "&#124;" in item and "&#42;not&#42;" in item and "&#91;a link&#93;" in item
    assert "](../variants/" not in text and 'href="../variants/' not in text  # no run, so no variant page to link to


def test_article_page_links_the_scaling_page_and_fa3_rates_only(pages):
    text = pages["set/article.md"].text
    assert "(../scaling.md)" in text  # the set's scaling page
    assert "rates compare, times do not" in text and "read off a chart" in text
    assert "GPU NVIDIA H100 80GB SXM5 (here NVIDIA H200)" in text


def test_variant_kernels_per_scenario(sets):
    from gen.report.pages import scenarios
    from gen.report.site import Context

    ctx = Context(sets)
    page = f"generated/sets/{SYN}/variants/sdpa_flash.md"
    groups = scenarios.variant_kernels(ctx, "sdpa_flash", page)
    assert [(g["scenario"], g["mode"]) for g in groups] == [
        ("article", "inference"), ("gqa-prefill", "inference"), ("gqa-prefill", "train"), ("decode", "inference")]
    text = ctx.template("_scenario_kernels.md.j2").render(scenario_kernels=groups, here=page)
    assert "## Kernels in each scenario" in text and "(../scenarios/decode.md)" in text  # the set's page of it
    assert "KV 16,384, D 128 · forward\n\n" in text and "<code>" in text  # a blank line after the heading
    assert "· training step\n" in text and " GPU event" in text
    assert ctx.template("_scenario_kernels.md.j2").render(scenario_kernels=[], here=page).strip() == ""


def test_a_published_set_stands_beside_a_scenario_only_in_a_mode_measured_there():
    """FlashAttention-3's forward figures match the deterministic-backward scenario's shape, but that
    scenario measured training steps only: its page says no published figure is known, so the pages
    listing where the FA3 set stands beside ours must not name it."""
    from gen.report.pages import scenarios as sp
    from gen.report.site import Context

    sets, _ = tables.load_sets(RESULTS)
    ctx = Context(sets)
    fa3 = next(s for s in sets if s.name == "nvidia-h100-sxm5__flashattention3-paper")
    titles = [t for t, _ in sp.beside(ctx, fa3)]
    assert "The article's shape" in titles and "Deterministic backward" not in titles


def test_an_out_of_memory_refusal_says_what_was_asked_and_free():
    """PyTorch's OOM message is a paragraph of allocator statistics; the scenario page keeps the two facts."""
    from gen.report.words import scenarios as scenario_words

    reason = ("out of memory: CUDA out of memory. Tried to allocate 16.00 GiB. GPU 0 has a total capacity of "
              "139.80 GiB of which 1.50 GiB is free. Including non-PyTorch memory, this process has 138.17 GiB "
              "memory in use. Of the allocated memory 132.72 GiB is allocated by PyTorch, with …")
    assert scenario_words.not_run("SDPA math", "oom", reason) == (
        "SDPA math did not run here (oom: it asked for 16.00 GiB more with 1.50 GiB of the GPU's 139.80 GiB "
        "free); it is not ranked.")
    assert scenario_words.not_run("SDPA math", "oom", "out of memory: no figures") == \
        "SDPA math did not run here (oom: no figures); it is not ranked."


def test_a_variants_kernels_are_grouped_by_scenario_and_mode(h200_new):
    """variant_kernels: one group per (scenario, mode) in the order the kernels come, each with its first
    kernels (the rest counted), its total µs and its launches."""
    from gen.report import site
    from gen.report.pages import scenarios as pages

    ctx = site.Context([h200_new])
    for variant in sorted({p.variant for p in h200_new.rs.sweep}):
        got = pages.variant_kernels(ctx, variant, "generated/x.md")
        rows = sa.kernel_rows(h200_new, variant)
        keys = list(dict.fromkeys((r["scenario"], r["mode"]) for r in rows))
        assert [(g["scenario"], g["mode"]) for g in got] == keys
        for g in got:
            mine = [r for r in rows if (r["scenario"], r["mode"]) == (g["scenario"], g["mode"])]
            assert [(k["index"], k["name"]) for k in g["kernels"]] == \
                [(k["index"], k["name"]) for k in mine[:site.MAX_KERNEL_ROWS]]
            assert g["left_out"] == len(mine) - len(g["kernels"])
            assert g["total_us"] == pytest.approx(sum(r["duration_us"] for r in mine), rel=1e-12)
            assert g["launches"] == sum(r["count"] for r in mine) and type(g["launches"]) is int


def _point(**changes) -> dict:
    return dict(dict(variant="sdpa_flash", mode="inference", status="ok", figure=sa.FIGURE_TBPS, ceiling="copy",
                     wrong=False, rel_error=1e-3, tbps=2.0), **changes)


def test_a_scenario_tables_figure_and_ceiling():
    """TB/s where every inference point is judged by it (training steps never are); the one ceiling the rows
    were set against, or none where they name several."""
    from gen.report.pages import scenario_set as page

    assert page._figure([_point(), _point(mode="train", figure=sa.FIGURE_TFLOPS)]) == sa.FIGURE_TBPS
    assert page._figure([_point(), _point(figure=sa.FIGURE_TFLOPS)]) == sa.FIGURE_TFLOPS
    assert page._figure([_point(mode="train")]) == sa.FIGURE_TFLOPS
    assert page._ceiling_of([_point(), _point(ceiling=None)]) == "copy"
    assert page._ceiling_of([_point(), _point(ceiling="matmul")]) is None


def test_wrong_answers_get_one_note_a_variant_and_no_best_rate():
    """A note per variant that answered wrong, in the order they come, with its worst recorded error (a
    missing one skipped); the best TB/s is that of the points that answered right (a missing `wrong` is right)."""
    from gen.report.pages import scenario_set as page
    from gen.report.words import scenarios as scenario_words

    rows = [_point(variant="naive", wrong=True, rel_error=0.5, tbps=9.0), _point(wrong=float("nan"), tbps=3.0),
            _point(variant="naive", wrong=True, rel_error=float("nan")), _point(tbps=float("nan")),
            _point(variant="sdpa_math", wrong=True, rel_error=0.2, tbps=8.0)]
    bound = sa.rules.WRONG_ANSWER_REL_ERROR
    assert page._wrong_notes(rows) == [scenario_words.wrong_by_error(page._label("naive"), 0.5, bound),
                                       scenario_words.wrong_by_error(page._label("sdpa_math"), 0.2, bound)]
    assert page._best_tbps(rows) == 3.0
    assert page._best_tbps(rows[:1]) is None and page._wrong_notes(rows[1:2]) == []


@pytest.mark.parametrize("which", ["h200_new", "h200_merged"])  # (the older h200 set has neither variant)
def test_determinism_and_fp8_lines_stand_only_where_their_variants_ran(which, request):
    """The determinism lines on the deterministic-backward page and the FP8 rows on the FP8 page, each naming
    its variants; no other scenario has either."""
    from gen.report.pages import scenario_set as page
    from gen.report.site import records

    ls = request.getfixturevalue(which)
    for name in sa.scenario_names([ls]):
        rows = records(sa.point_frame(ls, name))
        det, fp8 = page._determinism(rows), page._fp8(False, True, rows)
        assert bool(det) == (name == "deterministic-backward"), name
        assert bool(fp8) == (name == "fp8-prefill"), name
        assert all(r["variant"] in {x["variant"] for x in rows} for r in fp8)


def _modes(ls):
    from gen.report import site
    from gen.report.pages import scenario_set as page

    ctx = site.Context([ls])
    for name in sa.scenario_names([ls]) if ls.measured else []:
        view = page.set_view(ctx, ls, name)
        for m in view["modes"] if view else []:
            yield view, m, f"generated/sets/{ls.name}/scenarios/{name}.md"


def test_a_modes_table_has_a_row_a_point_with_its_flags(sets, h200, h200_new, h200_merged, h200_v1):
    """Every mode's table of every scenario of the committed sets and the synthetic one: a row per point, a
    refused point's cell linking its refusal below, the flags of a point that ran (kernel sums, wrong
    answers, host-bound, noisy) in its status cell."""
    from gen.report.pages import scenario_set as page

    checked, seen = 0, ""
    for ls in [sets[0], h200, h200_new, h200_merged, h200_v1] + [tables.load_set(p) for p in sorted(RESULTS.iterdir())
                                                               if p.is_dir()]:
        for view, m, here in _modes(ls):
            html = str(page.table_rows(m, view["key"], here))
            assert html.count("<tr>") == len(m["rows"])
            for r in m["rows"]:
                if r["status"] != "ok":
                    assert f'href="#{view["key"]}-{m["mode"]}-refusal-{r["ref"]}"' in html
            checked += 1
            seen += html
    assert checked > 20
    for flag in ("(kernel sum)", "(wrong answer)", "refusal-", "<a href=", "(host-bound)", "(noisy)"):
        assert flag in seen, flag


def _hostile_row(r: dict, i: int) -> dict:
    """A table row's strings made hostile (markup, quotes, unprintables, past MAX_VALUE_CHARS), its flags odd
    (NaN, None, 0, text) and its numbers odd (NaN, None, inf, negative, huge), differently for each row."""
    import math

    from gen.report import site

    bad = ['<b>&"x\'</b>', "a\x00b\u202ec", "é" * (site.MAX_VALUE_CHARS + 5), "", None, math.nan][i % 6]
    num = [math.nan, None, math.inf, -3.5, 1e21, 0.004][i % 6]
    flag = [math.nan, None, 0, "yes", True, False][i % 6]
    return dict(r, label=bad, point=bad, conditions=bad, value=bad, dtype=bad, status=["ok", "<x>", "oom", "ok"][i % 4],
                page=[None, 'a b/"c".md', r["page"]][i % 3], ref=[1, '"2"', None][i % 3],
                gpu_only_method=["kernel_sum", bad][i % 2], noisy=flag, thin=flag, graph_above_eager=flag,
                host_bound=flag, wrong=flag, gpu_only_n=[3, 4.0, 12345][i % 3],
                **{k: num for k in ("gpu_only_ms", "gpu_only_q1_ms", "eager_ms", "pct_of_ceiling", "pct_of_datasheet",
                                    "sol_pct", "peak_memory_bytes", "rel_error")},
                kernels_per_call=7 if num == math.inf else num, gpu_only_q3_ms=[1.0, num][i % 2])


def test_table_rows_escape_and_bound_hostile_values(sets, h200_new):
    """Hostile strings, odd flags and odd numbers in every field, both figures, a hostile key and mode: markup
    escaped (quotes too), unprintable characters shown as U+FFFD, a value past MAX_VALUE_CHARS cut with a
    note, a number that is not one written as such."""
    from gen.report.pages import scenario_set as page

    seen = ""
    for ls in (sets[0], h200_new):
        for _view, m, here in _modes(ls):
            for fig in ("tbps", "tflops"):
                odd = dict(m, rows=[_hostile_row(r, i) for i, r in enumerate(m["rows"])], figure=fig, mode='<m"')
                seen += str(page.table_rows(odd, 'k"<&', here))
    assert "<b>" not in seen and "&lt;b&gt;" in seen and "\x00" not in seen and "\ufffd" in seen
    assert "more characters not shown" in seen and 'k"<&' not in seen
    assert "&#34;" in seen or "&quot;" in seen
    assert "nan" in seen and "inf" in seen
