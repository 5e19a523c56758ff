"""Two sets side by side: frame, CLI text and JSON, bad names."""

from __future__ import annotations

import json
import math
import re

import pytest

from gen.analysis import compare, tables
from gen.cli import main
from gen.model import schema
from tests.chart_marks import shows, svg
from tests.conftest import RESULTS

REF = "nvidia-a100-sxm4-80gb__article-2026-07"
CPU = "cpu-intel-r-xeon-r-processor__torch-2.13.0"
H200 = "nvidia-h200__torch-2.11.0"


@pytest.fixture(scope="module")
def vs_ref(h200, h200_dir):
    return compare.compare_frame(h200, tables.load_set(RESULTS / REF)).set_index("variant")


def test_against_reference(vs_ref):
    flash = vs_ref.loc["sdpa_flash"]
    assert flash["gpu_only_ratio"] == pytest.approx(0.1468 / flash["gpu_only_ms_a"])
    assert flash["kernels_added"] == [] and flash["kernels_removed"] == []
    cud = vs_ref.loc["sdpa_cudnn"]
    assert "Memset" in cud["kernels_removed"]  # the H200 forward has a memset the article's lacks
    assert vs_ref.loc["naive", "kernels_added"] is None  # the article named only the Memcpy
    assert math.isnan(vs_ref.loc["naive", "gpu_only_ms_b"])
    assert vs_ref.loc["flex", "status_b"] == "absent"
    assert vs_ref.loc["sdpa_math", "rank_a"] == 9


def test_h200_against_cpu(h200, h200_dir):
    df = compare.compare_frame(h200, tables.load_set(RESULTS / CPU)).set_index("variant")
    assert df["gpu_only_ms_b"].isna().all() and df.loc["sdpa_flash", "host_ms_b"] > 0
    assert df.loc["naive", "kernel_match"] == "no kernel list on B"
    assert df.loc["sdpa_cudnn", "status_b"] == "unavailable" and math.isnan(df.loc["sdpa_cudnn", "rank_b"])
    assert df.loc["naive", "time_basis_b"] == "host wall"


def test_cli_table_and_json(capsys, h200_dir):
    root = str(RESULTS)
    assert main(["compare", H200, REF, "--results", root]) == 0
    out = capsys.readouterr().out
    assert "published figures, not measured here" in out and "sdpa_flash" in out
    assert main(["compare", H200, REF, "--results", root, "--format", "json"]) == 0
    recs = json.loads(capsys.readouterr().out)["rows"]
    flash = next(r for r in recs if r["variant"] == "sdpa_flash")
    assert flash["kernels_base"] == 1 and flash["gpu_only_ms_new"] == 0.1468


def test_unknown_set_names_the_option(capsys, h200_dir):
    assert main(["compare", H200, "nope", "--results", str(RESULTS)]) == 2
    err = capsys.readouterr().err
    assert "NEW" in err and "nope" in err and H200 in err
    with pytest.raises(schema.UserError, match="BASE"):
        compare.run(RESULTS, "nope", H200, "table")


# --------------------------------------------------------------------------- the chart of every set


def _svg_marks(spec: dict) -> list[str]:
    """Render a spec with vl-convert; the `d` of every path in a data mark group
    (axis and legend groups are role-axis/role-legend, not role-mark)."""
    groups = re.findall(r'<g class="mark-\w+ role-mark[^"]*"[^>]*>(.*?)</g>', svg(spec), re.S)
    return [d for g in groups for d in re.findall(r'<path[^>]*\sd="([^"]*)"', g)]


def _spec_rows(spec: dict) -> list[dict]:
    rows = list(spec.get("data", {}).get("values", []))
    for values in spec.get("datasets", {}).values():
        rows += values
    return rows


def _log_marks(spec: dict) -> list[str]:
    """Mark types of the layers whose x or y is on a log scale."""
    out = []
    for layer in spec.get("layer", [spec]):
        mark = layer.get("mark")
        mark = mark["type"] if isinstance(mark, dict) else mark
        enc = layer.get("encoding", {})
        if any(enc.get(c, {}).get("scale", {}).get("type") == "log" for c in ("x", "y")):
            out.append(mark)
    return out


def test_chart_of_every_set_draws_each_timed_set(h200_dir):
    import pandas as pd

    from gen.report import charts

    sets = [tables.load_set(RESULTS / n) for n in (H200, CPU, REF)]
    frame = pd.concat([tables.summary_table(ls).assign(set=ls.name, kind=ls.rs.kind) for ls in sets],
                      ignore_index=True)
    spec = charts.gpu_time_by_set(frame).to_dict()
    rows = _spec_rows(spec)
    timed = frame[frame["gpu_only_ms"].notna()]
    assert len(rows) == len(timed) > 0
    by_set = {r["set"] for r in rows}
    assert H200 in by_set and f"{REF} (published)" in by_set
    assert not any(s.startswith(CPU) for s in by_set)  # no GPU time: absent, not zero
    assert {r["figure"] for r in rows if r["kind"] == "reference"} == {charts.PUBLISHED}
    assert "bar" not in _log_marks(spec) and "point" in _log_marks(spec)
    drawn = [d for d in _svg_marks(spec) if shows(d)]
    assert len(drawn) >= len(rows)


def test_first_rows_read_what_a_mask_and_to_dict_read(h200, h200_new, h200_v1):
    """compare_frame's rows of each side, read once off the columns, against the reading they
    replaced (a mask and to_dict per variant): the same values to the type, the first of repeated
    variants, every mode of the committed sets, reversed, doubled and empty."""
    import pandas as pd

    def by_mask(st, v):
        got = st[st["variant"] == v].to_dict("records") if not st.empty else []
        return {k: got[0][k] for k in compare._READ if k in got[0]} if got else {}

    checked = 0
    sets = [h200, h200_new, h200_v1] + [tables.load_set(p) for p in sorted(RESULTS.iterdir()) if p.is_dir()]
    for ls in sets:
        for mode in ("inference", "train"):
            st = tables.summary_table(ls, mode)
            if not st.empty:
                doubled = pd.concat([st, st.assign(status="second")], ignore_index=True)
                for t in (st, st.iloc[::-1], doubled, st.iloc[0:0], st.drop(columns=["host_ms"])):
                    rows = compare._first_rows(t)
                    for v in (set(st["variant"]) | {"absent"}):
                        want, got = by_mask(t, v), rows.get(v, {})
                        assert list(got) == list(want)
                        for k in want:  # the same type, and NaN where NaN
                            g, w = got[k], want[k]
                            assert type(g) is type(w) and (g == w or (g != g and w != w))
                        checked += 1
    assert checked > 100
