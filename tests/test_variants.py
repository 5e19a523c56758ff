"""The variant pages' view models (gen.report.pages.variants): readings replaced by faster ones,
kept here and compared."""

from __future__ import annotations

import pytest

from gen.analysis import tables
from gen.analysis.values import variant_role
from gen.report import site
from gen.report.pages import variants
from tests.conftest import RESULTS


def _generated_by_masks(ctx, ls, v, mode, run):
    """variants._generated as it read the table: generated_kernels' frame, two masks and iterrows."""
    if run.compile_time_s is None:
        return None
    gk = tables.generated_kernels(ls, v, mode)
    if gk.empty:
        return None
    link = lambda k: dict(index=k["index"], short_name=k["short_name"], name=k["name"], dur_us=k["dur_us"],  # noqa: E731
                          anchor=ctx.kernel_anchor(ls.name, v, mode, k["index"]))
    base = variant_role("baseline")
    triton, library = gk[gk["generated"]], gk[~gk["generated"] & (gk["kind"] == "kernel")]
    replaced = tables.replaced_kernels(ls, v, base, mode)["short_name"].tolist() if ls.rs.run(base, mode) else []
    return dict(triton=[link(k) for _, k in triton.head(site.MAX_LINKS).iterrows()], triton_n=len(triton),
                library=[link(k) for _, k in library.head(site.MAX_LINKS).iterrows()],
                library_more=max(0, len(library) - site.MAX_LINKS), baseline=base,
                replaced=replaced[:site.MAX_LINKS], replaced_n=len(replaced))


def _types(x):
    if isinstance(x, dict):
        return {k: _types(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_types(v) for v in x]
    return type(x)


@pytest.mark.parametrize("links", [site.MAX_LINKS, 1])
def test_generated_kernels_split_in_python_give_the_masked_links(h200, h200_new, h200_v1, links, monkeypatch):
    """Every run of the committed sets (compiled or not), also with the links capped at one: the same
    view, to the types of its values."""
    monkeypatch.setattr(site, "MAX_LINKS", links)
    checked = 0
    for ls in [h200, h200_new, h200_v1] + [tables.load_set(p) for p in sorted(RESULTS.iterdir()) if p.is_dir()]:
        ctx = site.Context([ls])
        for run in ls.rs.runs:
            got = variants._generated(ctx, ls, run.variant, run.mode, run)
            want = _generated_by_masks(ctx, ls, run.variant, run.mode, run)
            assert got == want and _types(got) == _types(want)
            checked += bool(want and want["triton"])
    assert checked >= 2


# variant.md.j2's loop over the kernel rows as it was, before variants._kernel_rows wrote them.
_OLD_ROWS = (
    '{% set t = tab %}\n'
    '{% for k in t.kernels %}\n'
    '<tr id="{{ k.anchor }}" class="kind-{{ k.kind }}"><td>{{ k.index }}</td>'
    '<td class="kernel-name"><details><summary title="{{ k.name }}">{{ k.short_name }}'
    '</summary><code>{{ k.name }}</code></details></td><td>{{ k.dur_us | us }}</td>'
    '<td>{{ k.occupancy_pct | num(".0f", "%") }}'
    '</td>{% if t.counters and t.counters.measured %}{% set c = k.counters %}{% if c %}'
    '<td>{{ c.achieved_occupancy_pct | num(".1f", "%") }}{% if c.copied_from %} '
    '<span class="same-as" title="{{ c.copied_from }}">≡</span>{% endif %}</td>'
    '<td>{{ c.theoretical_occupancy_pct | num(".1f", "%") }}{% if c.occupancy_limiter %} ({{ c.'
    'occupancy_limiter }}){% endif %}</td><td>{{ c.sm_throughput_pct | num(".0f") }}</td>'
    '<td>{{ c.dram_throughput_pct | num(".0f") }}</td><td>{{ c.tensor_pipe_pct | num(".0f") }}'
    '</td>{% else %}<td>–</td><td>–</td><td>–</td><td>–</td><td>–</td>{% endif %}{% endif %}'
    '<td title="{{ k.op_path }}">{{ k.launched_by or "–" }}</td><td>{{ k.kind }}</td>'
    '<td>{{ k.grid or "–" }}</td><td>{{ k.block or "–" }}</td>'
    '<td>{{ k.registers_per_thread | integer }}</td>'
    '<td>{% if k.kind == "kernel" %}{{ k.shared_memory | size }}{% else %}–{% endif %}</td>'
    '<td>{{ k.launch_api or "–" }}</td><td>{{ k.category }}</td><td>{{ k.start_us | us }}</td>'
    '</tr>\n'
    '{% endfor %}\n'
)


def _old_rows(tab: dict) -> str:
    return site.shared_environment().from_string(_OLD_ROWS).render(tab=tab)


def _new_rows(tab: dict) -> str:
    return str(tab["kernel_html"]) + "\n"


def _tabs(sets):
    for ls in sets:
        ctx = site.Context([ls])
        for run in ls.rs.runs:
            tab = variants.tab_view(ctx, ls, run.variant, run.mode, "generated/x/y.md")
            if tab["kernels"]:
                yield tab


def test_kernel_rows_written_in_python_give_the_template_loops_bytes(h200, h200_new, h200_v1):
    """Every profiled run of the committed sets (counters measured, absent, copied): the same bytes
    as the template's loop."""
    checked = counted = 0
    for tab in _tabs([h200, h200_new, h200_v1] + [tables.load_set(p) for p in sorted(RESULTS.iterdir()) if p.is_dir()]):
        assert _new_rows(tab) == _old_rows(tab)
        checked += 1
        counted += bool(tab["counters"] and tab["counters"]["measured"])
    assert checked > 20 and counted > 5


def _hostile(k: dict, i: int) -> dict:
    """A row's strings made hostile (markup, quotes, unprintables, past MAX_VALUE_CHARS) and its
    numbers odd (NaN, None, inf, negative, huge), differently for each row."""
    import math

    bad = ['<b>&"x\'</b>', "a\x00b\u202ec", "é" * (site.MAX_VALUE_CHARS + 5), "", None, math.nan][i % 6]
    num = [math.nan, None, math.inf, -3.5, 1e21, 0.004][i % 6]
    k = dict(k, name=bad if bad is not None else "n", short_name=bad or "s", op_path=bad, launched_by=bad, grid=bad,
             block=bad, launch_api=bad, category=bad or "c", anchor=f'a"{i}<', dur_us=num, occupancy_pct=num,
             registers_per_thread=num if num not in (math.inf,) else 7, shared_memory=num, start_us=num,
             kind=["kernel", "memcpy", "<k>"][i % 3])
    if k.get("counters"):
        k["counters"] = dict(k["counters"], copied_from=bad, occupancy_limiter=bad, achieved_occupancy_pct=num,
                             theoretical_occupancy_pct=num, sm_throughput_pct=num, dram_throughput_pct=num,
                             tensor_pipe_pct=num)
    return k


def test_kernel_rows_written_in_python_escape_and_bound_as_the_template_did(h200, h200_new):
    """Hostile strings and odd numbers in every field: the same bytes as the template's loop."""
    checked, seen = 0, ""
    for tab in _tabs([h200, h200_new]):
        kernels = [_hostile(k, i) for i, k in enumerate(tab["kernels"])]
        with_counters = bool(tab["counters"] and tab["counters"]["measured"])
        tab = dict(tab, kernels=kernels, kernel_html=variants._kernel_rows(kernels, with_counters))
        assert _new_rows(tab) == _old_rows(tab)
        seen += _new_rows(tab)
        checked += with_counters
    assert checked and "nan" in seen and "&lt;b&gt;" in seen and "\ufffd" in seen
    assert "more characters not shown" in seen
