"""Analysis tables on the committed H200 set."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from gen.analysis import host_rules, rules, tables
from gen.report.words import kernels as kernel_words
from tests.conftest import RESULTS


def test_summary_orders_and_speedups(h200):
    df = tables.summary_table(h200).set_index("variant")
    assert df.loc["naive", "speedup_vs_naive"] == pytest.approx(1.0)
    assert df.loc["sdpa_flash", "speedup_vs_naive"] > 5
    assert df.loc["sdpa_math", "kernels_per_forward"] == 20
    assert df.loc["sdpa_auto", "backend"] in {"flash", "cudnn", "efficient"}
    assert (df["gpu_only_q1_ms"] <= df["gpu_only_ms"]).all() and (df["gpu_only_ms"] <= df["gpu_only_q3_ms"]).all()
    assert (df["eager_q1_ms"] <= df["eager_ms"]).all() and (df["eager_ms"] <= df["eager_q3_ms"]).all()
    # Speed-ups are on GPU-only time (here the CUDA-graph replay every schema-2 run measured).
    assert set(df["gpu_only_method"]) == {"cuda_graph"}
    assert df.loc["sdpa_flash", "speedup_vs_naive"] == pytest.approx(
        df.loc["naive", "gpu_only_ms"] / df.loc["sdpa_flash", "gpu_only_ms"])


def test_schema1_speedups_rest_on_the_kernel_sum(h200_v1):
    """A schema-1 set had no graph replay: GPU-only time, and so the speed-up, is the trace's kernel sum."""
    df = tables.summary_table(h200_v1).set_index("variant")
    assert set(df["gpu_only_method"]) == {"kernel_sum"}
    assert df.loc["sdpa_flash", "speedup_vs_naive"] == pytest.approx(
        df.loc["naive", "gpu_only_ms"] / df.loc["sdpa_flash", "gpu_only_ms"])
    assert df.loc["sdpa_flash", "speedup_vs_naive"] > 5


def test_theoretical_occupancy_of_flash_is_register_bound(h200):
    env = h200.rs.environment
    th = tables.theoretical_occupancy(128, 255, 49152, env)
    # 255 registers round to 256 a thread: 8192 a warp, 8 warps an SM, 2 blocks of 4 warps.
    assert th["limiter"] == "registers" and th["blocks_per_sm"] == 2
    assert th["theoretical_pct"] == pytest.approx(12.5)
    assert tables.theoretical_occupancy(128, 18, 0, env)["theoretical_pct"] == 100.0


def test_occupancy_facts_explain_zero(h200):
    (fact, *_) = tables.occupancy_facts(h200, "sdpa_cudnn")
    assert fact["occupancy_pct"] == 0 and fact["no_estimate"] and fact["smem_opt_in"]
    text = kernel_words.occupancy_explanation(fact)
    assert "131 KiB of shared memory a block, above the 48 KiB" in text and "not an idle GPU" in text


def test_no_theoretical_occupancy_without_the_gpus_limits(h200):
    """A set that did not record its SM limits gets none, not another GPU's."""
    import dataclasses

    env = dataclasses.replace(h200.rs.environment, max_regs_per_sm=None)
    assert tables.theoretical_occupancy(128, 255, 49152, env) is None


def test_replaced_kernels_of_the_compiled_naive(h200):
    gone = tables.replaced_kernels(h200, "naive_compiled")
    assert sorted(gone["category"]) == ["copy and fill", "elementwise", "elementwise", "softmax"]
    assert tables.replaced_kernels(h200, "naive").empty


def test_busy_idle_and_categories(h200):
    b = tables.busy_idle(h200.trace("inference", "naive"))
    assert 0 < b["busy_us"] <= b["span_us"] and 0 < b["busy_pct"] <= 100 and b["launch_gap_us"] > 0
    cats = tables.category_split(h200, "naive").set_index("category")["duration_us"]
    assert cats["matrix product"] > 0 and cats["copy and fill"] > 100  # the 126 µs memcpy
    total = tables.kernel_summary(h200, "naive")["duration_us"].sum()
    assert math.isclose(cats.sum(), total)


def test_train_table_backward_adds_kernels(h200):
    t = tables.train_table(h200).set_index("variant")
    assert (t["backward_kernels"] > 0).all()
    assert (t["step_gpu_only_ms"] > t["gpu_only_ms_fwd"]).all()
    assert (t["backward_ms"] == t["step_gpu_only_ms"] - t["gpu_only_ms_fwd"]).all()
    assert tables.inplace_autograd(h200).outcome == "gradients match"


def test_host_bound_is_one_column_for_every_page(h200):
    """The summary carries the flag once; the training table and findings read it, never recompute it."""
    inf = tables.summary_table(h200, "inference").set_index("variant")
    assert inf.loc["sdpa_cudnn", "host_bound_outcome"] == rules.WITHIN_NOISE and not inf.loc["sdpa_cudnn", "host_bound"]
    assert inf.loc["sdpa_cudnn", "eager_over_gpu_only"] >= host_rules.HOST_BOUND_EAGER_RATIO
    assert not inf.loc["naive", "host_bound"] and inf.loc["naive", "host_bound_outcome"] == rules.NO
    t = tables.train_table(h200).set_index("variant")
    trn = tables.summary_table(h200, "train").set_index("variant")
    assert (t["host_bound"] == trn.loc[t.index, "host_bound"]).all()


@pytest.mark.parametrize("eager, gpu_only, bound", [
    (0.3, 0.1, True),  # a loop sees 3x the GPU's own time
    (host_rules.HOST_BOUND_EAGER_RATIO * 0.1, 0.1, True),  # the threshold itself is bound
    (host_rules.HOST_BOUND_EAGER_RATIO * 0.1 - 1e-6, 0.1, False),
    (0.1, 0.1, False),
    (0.09, 0.1, False),  # eager under GPU-only: noise, not bound
    (float("nan"), 0.1, None),
    (0.2, None, None),
    (0.2, 0.0, None),
])
def test_one_host_bound_rule(eager, gpu_only, bound):
    assert host_rules.host_bound(eager, gpu_only) is bound


def test_train_steps_flagged_host_bound(h200):
    """Training steps: flex's is host-bound (eager 2.2x its GPU-only time, and its host alone costs 1.9x);
    torch.compile's naive (1.27x, at the line) and cuDNN's are within noise: cuDNN's pinned step waited
    1.39x, the unpinned one, the same kernels, 1.25x with a host under its GPU time, so the two share
    "within noise"; naive's step, long on the GPU, is not host-bound (eager within 1%)."""
    t = tables.train_table(h200).set_index("variant")
    trn = tables.summary_table(h200, "train").set_index("variant")
    assert set(t.index[t["host_bound"].astype(bool)]) == {"flex"}
    noise = set(trn.index[trn["host_bound_outcome"] == rules.WITHIN_NOISE])
    assert {"naive_compiled", "sdpa_cudnn", "sdpa_auto"} <= noise
    assert t.loc["flex", "eager_over_gpu_only"] > 2
    assert t.loc["sdpa_cudnn", "step_host_ms"] > t.loc["sdpa_cudnn", "step_gpu_only_ms"]
    assert not t.loc["naive", "host_bound"] and t.loc["naive", "eager_over_gpu_only"] < 1.02


def test_main_kernel_is_the_first_longest_kernel():
    """Memcpys and memsets never count; of equal kernels the first; a NaN duration is skipped as idxmax does;
    no kernel, no row."""
    import pandas as pd

    df = pd.DataFrame({"kind": ["memcpy", "kernel", "kernel", "memset", "kernel"],
                       "dur_us": [50.0, 3.0, 7.0, 60.0, 7.0], "name": ["c", "a", "b", "s", "d"]},
                      index=[10, 11, 12, 13, 14])
    mk = tables.main_kernel(df)
    assert mk["name"] == "b" and mk.name == 12
    with_nan = df.assign(dur_us=[50.0, float("nan"), 2.0, 60.0, 1.0])
    assert tables.main_kernel(with_nan)["name"] == "b"
    assert tables.main_kernel(df[df["kind"] != "kernel"]) is None


def test_kernel_totals_are_the_kernel_tables(h200, h200_new):
    """One profiled call's main kernel, events and their µs, kept per trace, as its kernel table gives
    them (main_kernel's row, the table's length and its sum), for every profiled call of both sets."""
    import math

    checked, kinds = 0, set()
    for ls in (h200, h200_new):
        for rec in [*ls.rs.runs, *ls.rs.sweep]:
            if rec.status != "ok" or not rec.trace:
                continue
            tr = ls.sweep_trace(rec.trace)
            kt = tables.kernel_table(ls, rec.variant, rec.mode, tr=tr)
            mk, events, total = tables.kernel_totals(ls, rec.variant, rec.mode, tr)
            row = tables.main_kernel(kt)
            assert (mk is None) == (row is None) and events == len(kt)
            assert repr(total) == repr(float(kt["dur_us"].sum()))
            if row is not None:
                for k in ("name", "short_name", "index", "dur_us"):
                    assert mk[k] == row[k] and type(mk[k]) is type(row[k].item() if hasattr(row[k], "item") else row[k])
                assert mk["blocks"] == row["blocks"] or (math.isnan(mk["blocks"]) and math.isnan(row["blocks"]))
                occupancy = row["occupancy_pct"]  # an int or a float, as the table's column holds them
                assert repr(mk["occupancy_pct"]) == repr(occupancy.item() if hasattr(occupancy, "item") else occupancy)
                kinds.add(type(mk["occupancy_pct"]))
            assert tables.kernel_totals(ls, rec.variant, rec.mode, tr)[0] is mk
            checked += 1
    assert checked > 200 and kinds == {int, float}


def test_kernel_summary_is_the_named_aggregation(h200):
    """kernel_summary aggregates column by column: the frame a named .agg over every profiled forward gives."""
    import pandas as pd

    for run in [r for r in h200.rs.runs if r.status == "ok" and r.trace]:
        tr = h200.trace(run.mode, run.variant)
        df = pd.concat([tables.kernel_table(h200, run.variant, run.mode, i, tr).assign(forward=i)
                        for i in range(len(tr.forwards))], ignore_index=True)
        want = df.groupby(["name", "short_name", "kind", "category"], sort=False, dropna=False).agg(
            launched_by=("launched_by", "first"), count=("index", "size"), total=("dur_us", "sum"),
            occupancy_pct=("occupancy_pct", "median"), first=("index", "min")).reset_index().sort_values("first")
        got = tables.kernel_summary(h200, run.variant, run.mode)
        assert got["name"].tolist() == want["name"].tolist()
        assert [repr(x) for x in got["duration_us"]] == [repr(x) for x in want["total"] / len(tr.forwards)]
        assert got["occupancy_pct"].equals(want["occupancy_pct"].reset_index(drop=True))
        assert got["launched_by"].tolist() == want["launched_by"].tolist()


def test_rows_are_each_columns_tolist_zipped_and_missing_reads_as_pd_isna(h200_new):
    """values.rows (one conversion to objects) gives the values, to the type, of each column's
    tolist(), the reading it replaced; missing's shortcuts for Python scalars agree with pd.isna."""
    import numpy as np
    import pandas as pd

    from gen.analysis import values

    def by_column(df):
        cols = list(df.columns)
        return [dict(zip(cols, row)) for row in zip(*(df[c].tolist() for c in cols))]

    def same(a, b):
        if type(a) is not type(b):
            return False
        return (math.isnan(a) and math.isnan(b)) if isinstance(a, float) and a != a else a == b

    mixed = pd.DataFrame({"s": ["a", None, "c"], "i": [1, 2, 3], "f": [0.5, np.nan, 1e300], "b": [True, False, True],
                          "o": [(1, 2), None, "x"], "f32": np.array([0.1, 0.2, np.nan], dtype=np.float32)})
    frames = [mixed, mixed.iloc[0:0], tables.summary_table(h200_new, "inference"),
              tables.kernel_table(h200_new, "sdpa_math", "inference")]
    for df in frames:
        got, want = values.rows(df), by_column(df)
        assert len(got) == len(want) and all(
            g.keys() == w.keys() and all(same(g[k], w[k]) for k in g) for g, w in zip(got, want)), df.columns
    assert len(values.rows(frames[2])) > 5
    for x in (0.0, -1.5, math.nan, math.inf, 0, 7, True, False, "", "nan", np.float64("nan"), np.int64(3), pd.NA,
              pd.NaT, None):
        assert values.missing(x) == (x is None or bool(pd.isna(x))), x


def test_category_split_is_the_kernel_summarys_grouped_sum(h200, h200_new):
    """category_split: kernel_summary's rows grouped by category, for every profiled call of both H200 sets
    and the CPU set (no GPU event: empty)."""
    import pandas as pd

    from tests.conftest import RESULTS

    cpu = tables.load_set(RESULTS / "cpu-intel-r-xeon-r-processor__torch-2.13.0")
    checked = 0
    for ls in (h200, h200_new, cpu):
        for run in [r for r in ls.rs.runs if r.status == "ok" and r.trace]:
            ks = tables.kernel_summary(ls, run.variant, run.mode)
            if ks.empty:
                want = pd.DataFrame(columns=["variant", "category", "duration_us"])
            else:
                want = ks.groupby("category", sort=False)["duration_us"].sum().reset_index()
                want = want.assign(variant=run.variant)[["variant", "category", "duration_us"]]
            pd.testing.assert_frame_equal(tables.category_split(ls, run.variant, run.mode), want, check_exact=True)
            checked += not ks.empty
    assert checked > 20


def test_the_longest_kernels_are_distinct_and_longest_first():
    """tables._longest: kernels only, one of each name (its longest), longest first, missing times last."""
    import pandas as pd

    kt = pd.DataFrame(dict(index=[0, 1, 2, 3, 4], name=["a", "b", "a", "c", "m"], dur_us=[5.0, float("nan"), 9.0, 7.0,
                                                                                       99.0],
                           kind=["kernel"] * 4 + ["memcpy"]))
    assert [r["index"] for r in tables._longest(kt, 3)] == [2, 3, 1]
    assert [r["index"] for r in tables._longest(kt, 1)] == [2] and tables._longest(kt.iloc[4:], 3) == []


def _committed(*fixtures):
    return list(fixtures) + [tables.load_set(p) for p in sorted(RESULTS.iterdir()) if p.is_dir()]


def test_kernel_tables_read_in_place_stay_as_built(h200_new):
    """This module's readers read the kept kernel table itself (no copy): after every one of them, and
    after a caller changed its copy, the kept table is still the one the trace gives."""
    import pandas as pd

    ls = tables.load_set(h200_new.path)
    for run in ls.rs.runs:
        if run.status != "ok" or not run.trace:
            continue
        tr = ls.trace(run.mode, run.variant)
        tables.timeline_events(ls, run.variant, run.mode)
        tables.occupancy_facts(ls, run.variant, run.mode)
        tables.kernel_summary(ls, run.variant, run.mode)
        tables.replaced_kernels(ls, run.variant, mode=run.mode)
        tables.category_split(ls, run.variant, run.mode)
        mine = tables.kernel_table(ls, run.variant, run.mode)
        if len(mine):
            mine.loc[mine.index[0], "dur_us"] = -1.0
            mine["name"] = "changed"
        pd.testing.assert_frame_equal(tables._kernel_frame(ls, run.variant, run.mode), tables._kernel_table(tr, 0),
                                      check_exact=True)


def _same_to_the_type(a, b) -> bool:
    """Equal values of the same types (NaN equal to NaN), through lists, tuples and dicts."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_to_the_type(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_to_the_type(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def test_kernel_rows_are_the_records_of_a_copy(h200, h200_new, h200_v1):
    """kernel_rows (made once per trace, shared) against the earlier reading, records of kernel_table's copy
    and of its head, to the type of every value; kept per trace (the same list again); no trace, no rows."""
    from gen.report import site

    checked = 0
    for ls in _committed(h200, h200_new, h200_v1):
        for run in ls.rs.runs:
            got = tables.kernel_rows(ls, run.variant, run.mode)
            kt = tables.kernel_table(ls, run.variant, run.mode)
            assert _same_to_the_type(got, kt.to_dict("records")), (ls.name, run.variant, run.mode)
            for n in (0, 3, site.MAX_KERNEL_ROWS):
                assert _same_to_the_type(got[:n], site.records(kt.head(n)))
            assert tables.kernel_rows(ls, run.variant, run.mode) is got or not got
            pd.testing.assert_frame_equal(tables.kernel_frame(ls, run.variant, run.mode), kt, check_exact=True)
            checked += len(got)
    assert checked > 500


def test_findings_lessons_and_hypotheses_read_the_kept_tables_as_their_copies(h200, h200_new, h200_v1, monkeypatch):
    """The findings' rules, the lessons and the hypothesis checks read the kept kernel table (kernel_frame,
    no copy): the same findings, lessons, explanations and hypothesis frames as with kernel_table's copies
    put back, and every kept table still the one its trace gives after them."""
    from gen.analysis import findings, lessons

    def readings(ls):
        ls._tables.clear()
        hyp = {mode: findings.check_hypotheses(ls, mode) for mode in ("inference", "train")}
        return (findings.findings(ls), lessons.lessons(ls), lessons.explain(ls, hyp["inference"]), hyp,
                [tables.replaced_kernels(ls, r.variant, mode=r.mode) for r in ls.rs.runs])

    for ls in _committed(h200, h200_new, h200_v1):
        got = readings(ls)
        for run in ls.rs.runs:
            tr = ls.trace(run.mode, run.variant)
            if tr is not None:
                pd.testing.assert_frame_equal(tables._kernel_frame(ls, run.variant, run.mode),
                                              tables._kernel_table(tr, 0), check_exact=True)
        with monkeypatch.context() as m:  # the earlier reading: a copy for every reader
            m.setattr(tables, "kernel_frame", tables.kernel_table)
            m.setattr(tables, "_kernel_frame", lambda *a, _f=tables._kernel_frame: _f(*a).copy())
            want = readings(ls)
        assert got[0] == want[0] and got[1] == want[1] and got[2] == want[2], ls.name
        for mode in got[3]:
            pd.testing.assert_frame_equal(got[3][mode], want[3][mode], check_exact=True)
        for a, b in zip(got[4], want[4]):
            pd.testing.assert_frame_equal(a, b, check_exact=True)
