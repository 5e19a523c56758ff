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
