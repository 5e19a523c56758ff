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
    assert "1.08× its time, 0.93× its rate" in index  # our 0.5 ms against cuDNN's published 0.465 ms at 4k
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


def test_a_variants_scenario_kernels_are_the_grouped_frames(h200_new):
    """variant_kernels groups each variant's kernels_frame by (scenario, mode) itself: the groups, their
    first rows, kernels, totals (µs to the bit) and launches a pandas groupby of the frame gives."""
    from gen.analysis import scenarios as sa
    from gen.report import site
    from gen.report.pages import scenarios as pages

    ctx = site.Context([h200_new])
    for variant in sorted({p.variant for p in h200_new.rs.sweep}):
        got = pages.variant_kernels(ctx, variant, "generated/x.md")
        want = list(sa.kernels_frame(h200_new, variant).groupby(["scenario", "mode"], sort=False))
        assert [(g["scenario"], g["mode"]) for g in got] == [key for key, _ in want]
        for g, (_, frame) in zip(got, want):
            assert repr(g["total_us"]) == repr(float(frame["duration_us"].sum()))
            assert g["launches"] == int(frame["count"].sum()) and type(g["launches"]) is int
            assert repr(g["kernels"]) == repr(site.records(frame.head(site.MAX_KERNEL_ROWS)))


def _page_readings_by_frames(ls, name, pts):
    """What the scenario page read off the point frame with masks and groupby before it read the
    frame's records once: its figure, per mode its figure and ceiling, decode, whether head dims
    differ, the modes measured, the wrong answers' notes, the best right TB/s and the capture calls."""
    from gen.model import schema, variants
    from gen.report.pages import scenario_set as page
    from gen.report.words import scenarios as scenario_words

    def figure(p):
        inf = p[p["mode"] == schema.Mode.INFERENCE]
        return sa.FIGURE_TBPS if len(inf) and (inf["figure"] == sa.FIGURE_TBPS).all() else sa.FIGURE_TFLOPS

    notes = []
    bad = pts[pts["wrong"].fillna(False).astype(bool)]
    for v, g in bad.groupby("variant", sort=False):
        decl = variants.VARIANTS.get(v)
        worst = float(g["rel_error"].max())
        notes.append(scenario_words.wrong_note(page._label(v), decl.wrong, worst) if decl and decl.wrong
                     else scenario_words.wrong_by_error(page._label(v), worst, sa.rules.WRONG_ANSWER_REL_ERROR))
    ok = pts[~pts["wrong"].fillna(False).astype(bool)]["tbps"].dropna()
    modes = {}
    for mode in schema.Mode:
        m = pts[pts["mode"] == mode]
        if len(m):
            got = [c for c in dict.fromkeys(m["ceiling"]) if isinstance(c, str)]
            modes[mode] = (figure(m), got[0] if len(got) == 1 else None)
    okc = pts[pts["status"] == schema.Status.OK]
    merged = okc[okc["captured"].notna()]
    calls = None if merged.empty else page._calls(ls, name, lambda: pts, records_of(pts))
    return dict(figure=figure(pts), modes=modes, decode=bool(pts["q_len"].eq(1).all()),
                show_dim=pts["head_dim"].nunique() > 1,
                measured=(bool((pts["mode"] == schema.Mode.INFERENCE).any()),
                          bool((pts["mode"] == schema.Mode.TRAIN).any())),
                wrong=notes, best_tbps=float(ok.max()) if len(ok) else None, calls=calls)


def records_of(pts):
    from gen.report.site import records

    return records(pts)


def _page_readings_by_rows(ls, name, pts):
    from gen.model import schema
    from gen.report.pages import scenario_set as page

    rows = records_of(pts)
    modes = {}
    for mode in schema.Mode:
        m = [r for r in rows if r["mode"] == mode]
        if m:
            modes[mode] = (page._figure(m), page._ceiling_of(m))
    return dict(figure=page._figure(rows), modes=modes, decode=all(r["q_len"] == 1 for r in rows),
                show_dim=len({r["head_dim"] for r in rows}) > 1,
                measured=(any(r["mode"] == schema.Mode.INFERENCE for r in rows),
                          any(r["mode"] == schema.Mode.TRAIN for r in rows)),
                wrong=page._wrong_notes(rows), best_tbps=page._best_tbps(rows),
                calls=page._calls(ls, name, lambda: pts, rows))


@pytest.mark.parametrize("which", ["h200", "h200_new", "h200_merged"])
def test_the_pages_readings_off_records_are_the_masks_readings(which, request):
    """The scenario page's questions read off the point frame's records against the masks and groupby
    that asked them before: every scenario of the committed sets (the merged one has a later capture
    call's rows), with wrong answers (one with no error recorded), no TB/s and a merged call made up."""
    ls = request.getfixturevalue(which)
    seen = 0
    for name in sa.scenario_names([ls]):
        pts = sa.point_frame(ls, name)
        odd = pts.copy()
        if len(odd) > 3:
            odd.loc[odd.index[:3], "wrong"] = True
            odd.loc[odd.index[1], "rel_error"] = float("nan")
            odd.loc[odd.index[2:], "tbps"] = float("nan")
            odd.loc[odd.index[0], "captured"] = "2026-01-01"
        for frame in (pts, odd):
            assert _page_readings_by_rows(ls, name, frame) == _page_readings_by_frames(ls, name, frame), name
            seen += 1
    assert seen > 0


@pytest.mark.parametrize("which", ["h200_new", "h200_merged"])  # (the older h200 set has neither variant)
def test_determinism_and_fp8_lines_skip_no_frame_they_had(which, request):
    """The determinism and FP8 lines of every scenario, made only where a variant of the page calls
    for them (sa.is_deterministic, sa.has_twin), against the frames made for every page before."""
    from gen.report.pages import scenario_set as page
    from gen.report.site import records
    from gen.report.words import scenarios as scenario_words

    ls = request.getfixturevalue(which)
    made = 0
    for name in sa.scenario_names([ls]):
        pts = sa.point_frame(ls, name)
        df = sa.determinism_frame(pts)
        show_len = df["kv_len"].nunique() > 1 if len(df) else False
        want = [scenario_words.determinism_line(r, page._label, show_len) for r in records(df)]
        assert page._determinism(records(pts)) == want, name
        fp8 = [dict(r, **scenario_words.fp8_cells(r, page._label), point=scenario_words.point_label(r, False, True))
               for r in records(sa.fp8_frame(pts))]
        assert repr(page._fp8(False, True, records(pts))) == repr(fp8), name
        made += len(want) + len(fp8)
    assert made > 0


# scenario_page.md.j2's loop over a mode's table rows as it was, before pages.scenario_set.table_rows wrote them.
_OLD_TABLE_ROWS = "\n".join([
    '{% set R = \' style="text-align: right;"\' | safe %}',
    '{% for r in m.rows %}',
    '<tr>',
    '<td>{% if r.page %}<a href="{{ relpath(r.page, here) | html_url }}">{{ r.label | md }}</a>'
    '{% else %}{{ r.label | md }}{% endif %}</td>',
    '<td>{{ r.point | md }}</td>',
    '{% if r.status == "ok" %}',
    '<td>ok{% if r.gpu_only_method == "kernel_sum" %} (kernel sum){% endif %}'
    '{% if r.noisy %} (noisy){% endif %}'
    '{% if r.thin %} (n = {{ r.gpu_only_n | integer }}: thin){% endif %}'
    '{% if r.graph_above_eager %} (graph above eager){% endif %}'
    '{% if r.host_bound %} (host-bound){% endif %}{% if r.wrong %} (wrong answer){% endif %}'
    '{% if r.dtype and r.dtype != m.dtype %} ({{ r.dtype | md }}){% endif %}</td>',
    '<td{{ R }}>{{ r.gpu_only_ms | ms }}</td>',
    '<td>{{ (r.gpu_only_q1_ms, r.gpu_only_q3_ms) | span }}</td>',
    '<td>{{ r.conditions | md }}</td>',
    '<td{{ R }}>{{ r.eager_ms | ms }}</td>',
    '<td{{ R }}>{{ r.value }}</td>',
    '<td{{ R }}>{{ r.pct_of_ceiling | num(".0f", "%") }}</td>',
    '<td{{ R }}>{{ (r.pct_of_datasheet if m.figure == "tbps" else r.sol_pct) | num(".0f", "%") }}</td>',
    '<td{{ R }}>{{ r.kernels_per_call | integer }}</td>',
    '<td{{ R }}>{{ r.peak_memory_bytes | size }}</td>',
    '<td{{ R }}>{{ r.rel_error | num(".1e") }}</td>',
    '{% else %}',
    '<td>{{ r.status | md }} (why: <a href="#{{ s.key }}-{{ m.mode }}-refusal-{{ r.ref }}">{{ r.ref }}</a>)</td>',
    '<td{{ R }}>–</td>',
    '<td>–</td>',
    '<td>–</td>',
    '<td{{ R }}>–</td>',
    '<td{{ R }}>–</td>',
    '<td{{ R }}>–</td>',
    '<td{{ R }}>–</td>',
    '<td{{ R }}>–</td>',
    '<td{{ R }}>–</td>',
    '<td{{ R }}>–</td>',
    '{% endif %}',
    '</tr>',
    '{% endfor %}',
    '',
])


def _table_rows_both(m: dict, key: str, here: str) -> tuple[str, str]:
    from gen.report import site
    from gen.report.pages import scenario_set as page

    old = site.shared_environment().from_string(_OLD_TABLE_ROWS).render(m=m, s=dict(key=key), here=here)
    return str(page.table_rows(m, key, here)) + "\n", old


def _modes(ls):
    from gen.report import site
    from gen.report.pages import scenario_set as page

    ctx = site.Context([ls])
    for name in sa.scenario_names([ls]) if ls.measured else []:
        view = page.set_view(ctx, ls, name)
        for m in view["modes"] if view else []:
            yield view, m, f"generated/sets/{ls.name}/scenarios/{name}.md"


def test_table_rows_written_in_python_give_the_template_loops_bytes(sets, h200, h200_new, h200_merged, h200_v1):
    """Every mode's table of every scenario of the committed sets and the synthetic one (refusals, kernel
    sums, wrong answers, FP8 dtypes, TB/s and TFLOP/s tables): the same bytes as the template's loop."""
    checked, seen = 0, ""
    for ls in [sets[0], h200, h200_new, h200_merged, h200_v1] + [tables.load_set(p) for p in sorted(RESULTS.iterdir())
                                                               if p.is_dir()]:
        for view, m, here in _modes(ls):
            new, old = _table_rows_both(m, view["key"], here)
            assert new == old
            checked += 1
            seen += new
    assert checked > 20
    for flag in ("(kernel sum)", "(wrong answer)", "refusal-", "<a href=", "(host-bound)", "(noisy)", "(thin)"):
        assert flag in seen or flag == "(thin)", flag


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


def test_table_rows_written_in_python_escape_and_bound_as_the_template_did(sets, h200_new):
    """Hostile strings, odd flags and odd numbers in every field, both figures, a hostile key and mode: the
    same bytes as the template's loop."""
    seen = ""
    for ls in (sets[0], h200_new):
        for _view, m, here in _modes(ls):
            for fig in ("tbps", "tflops"):
                odd = dict(m, rows=[_hostile_row(r, i) for i, r in enumerate(m["rows"])], figure=fig, mode='<m"')
                new, old = _table_rows_both(odd, 'k"<&', here)
                assert new == old
                seen += new
    assert "nan" in seen and "inf" in seen and "&lt;b&gt;" in seen and "\ufffd" in seen
    assert "more characters not shown" in seen
    assert "&#34;" in seen or "&quot;" in seen
