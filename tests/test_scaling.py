"""FLOP counting, ceilings from stored samples, OOM sizes, sweep frames."""

from __future__ import annotations

import numpy as np
import pytest

from gen.analysis import host_rules, rules, scaling, tables
from tests.chart_marks import drawn_marks
from tests.conftest import RESULTS


def test_flops_on_small_numbers():
    f = scaling.flops(1, 1, 2, 3)
    assert f["dense"] == 4 * 2 * 2 * 3 == 48
    # The report's one convention (gen.analysis.flops): FlashAttention's, the dense count halved when causal.
    assert f["causal"] == 48 / 2
    assert scaling.min_bytes(1, 2, 3, 4, 2) == 4 * 2 * 3 * 4 * 2


def test_ceilings_from_samples(h200):
    c = scaling.ceilings(h200)
    ce = h200.rs.ceilings
    t = np.median(ce.matmul_ms)
    assert c["matmul_tflops"] == pytest.approx(2 * 8192**3 / (t * 1e-3) / 1e12)
    assert c["copy_gbps"] == pytest.approx(ce.copy_bytes / (np.median(ce.copy_ms) * 1e-3) / 1e9)
    assert 100 < c["matmul_tflops"] < 2000 and 1000 < c["copy_gbps"] < 10000


def test_oom_sizes(h200):
    assert scaling.oom_sizes(h200) == {"sdpa_math": {64: [16384], 128: [16384]}}


def test_sweep_frame(h200):
    df = scaling.sweep_frame(h200)
    assert len(df) == len(scaling.article_sweep(h200)) == 126  # 110 ok, 2 oom, 14 skipped at the time limit
    ok = df[df["status"] == "ok"]
    # GPU-only time is the CUDA-graph replay of every point that ran, whether or not a trace was kept
    # (the head-dim-128 points kept none): no kernel sum, no point without a GPU-only time.
    assert len(ok) == 110 and ok["gpu_only_ms"].notna().all() and (ok["fraction_of_matmul"] < 1).all()
    assert set(ok["gpu_only_method"]) == {"cuda_graph"} and ok["eager_ms"].notna().all()
    traced = ok[ok["trace"].notna()]
    assert len(traced) == 62 and set(traced["head_dim"]) == {64} and set(ok[ok["trace"].isna()]["head_dim"]) == {128}
    # The points the run's time limit cut off have no times, say why, and are no OOM.
    skipped = df[df["status"] == "skipped"]
    assert set(zip(skipped["variant"], skipped["head_dim"])) == {("flex", 128), ("naive_compiled", 128)}
    assert len(skipped) == 14 and skipped[["gpu_only_ms", "eager_ms"]].isna().all().all()
    assert set(skipped["gpu_only_absent"]) == {"not_measured"} and skipped["reason"].str.contains("time limit").all()
    assert df[df["status"] == "oom"]["gpu_only_ms"].isna().all()
    top = scaling.fastest_at_largest(h200)
    assert (top["seq_len"] == 16384).all()
    # at D 64 SDPA cuDNN and SDPA with no backend pinned tie (the same kernels): the faster median stands, the other
    # named (review 2026-12-07-9 item 10)
    assert dict(zip(top["head_dim"], top["variant"])) == {64: "sdpa_auto", 128: "sdpa_auto"}
    assert top["tie"].iloc[0] == ("sdpa_cudnn",)


def test_scaling_reads_only_the_article_sweep(h200):
    """The set's sweep also holds gqa-prefill, decode and sliding-window points (other shapes, other
    FLOP counts): the S x D scaling frames leave them out."""
    others = [p for p in h200.rs.sweep if p.scenario != "article"]
    assert {p.scenario for p in others} == {"gqa-prefill", "decode", "sliding-window"}
    assert len(scaling.sweep_frame(h200)) + len(others) == len(h200.rs.sweep)
    assert set(scaling.busy_frame(h200)["seq_len"]) <= {256, 512, 1024, 2048, 4096, 8192, 16384}
    assert scaling.oom_sizes(h200)["sdpa_math"][128] == [16384]  # not gqa-prefill's OOMs at 16384 and 32768


def test_busy_and_categories(h200):
    busy = scaling.busy_frame(h200)
    assert {"default", "sweep"} == set(busy["source"])
    flash = busy[(busy["variant"] == "sdpa_flash") & (busy["source"] == "sweep")].set_index("seq_len")
    assert flash.loc[256, "busy_pct"] < flash.loc[16384, "busy_pct"]
    # one host-bound rule everywhere: small sizes wait on the host, large ones on the GPU
    assert flash.loc[256, "host_bound"] and not flash.loc[16384, "host_bound"]
    row = busy[(busy["variant"] == "sdpa_cudnn") & (busy["source"] == "default")].iloc[0]
    # the loop waited (1.44x: the bare line says yes), but the host costs less than the kernels: within noise
    assert host_rules.host_bound(row["eager_ms"], row["gpu_only_ms"]) is True
    assert row["host_bound_outcome"] == rules.WITHIN_NOISE and not row["host_bound"]
    cat = scaling.category_frame(h200)
    assert "fused attention" in set(cat[cat["variant"] == "sdpa_flash"]["category"])


def test_cpu_set_has_nothing_to_scale(h200_dir):

    ls = tables.load_set(RESULTS / "cpu-intel-r-xeon-r-processor__torch-2.13.0")
    assert scaling.sweep_frame(ls).empty and scaling.ceilings(ls) is None
    assert scaling.busy_frame(ls).empty and scaling.fastest_at_largest(ls).empty


# --------------------------------------------------------------------------- the charts draw their data


def _spec_rows(spec: dict) -> list[dict]:
    rows = list(spec.get("data", {}).get("values", []))
    for values in spec.get("datasets", {}).values():
        rows += values
    return rows


@pytest.fixture(scope="module")
def frames(h200):
    return dict(sweep=scaling.sweep_frame(h200), ceil=scaling.ceilings(h200), cat=scaling.category_frame(h200),
                busy=scaling.busy_frame(h200))


@pytest.mark.parametrize("name", ["time", "memory", "roofline", "categories", "busy"])
def test_charts_render_their_data(frames, name):
    from gen.report import charts

    sw = frames["sweep"]
    chart, rows, mark = {
        "time": (lambda: charts.time_vs_seq(sw), sw["gpu_only_ms"].notna().sum(), "mark-symbol"),
        "memory": (lambda: charts.memory_vs_seq(sw), sw["peak_mb"].notna().sum(), "mark-symbol"),
        "roofline": (lambda: charts.roofline(sw, frames["ceil"]), sw["tflops_causal"].notna().sum(),
                     "mark-symbol"),
        "categories": (lambda: charts.category_bars(frames["cat"]), len(frames["cat"]), "mark-rect"),
        "busy": (lambda: charts.busy_vs_seq(frames["busy"]), (frames["busy"]["source"] == "sweep").sum(),
                 "mark-symbol"),
    }[name]
    spec = chart().to_dict()
    assert rows > 0
    assert len(_spec_rows(spec)) >= rows
    drawn = drawn_marks(spec)
    assert drawn.get(mark, 0) >= rows, drawn
    if name in ("time", "memory", "busy"):  # one line per variant (and head dim)
        assert drawn.get("mark-line", 0) >= 1




@pytest.mark.parametrize("verdict", [True, False])
def test_the_fastest_at_the_largest_length_of_each_head_dim(h200_new, verdict, monkeypatch):
    """fastest_at_largest: per head dim, a row at the largest length timed; the verdict's fastest there, or
    (no verdict) the lowest GPU-only time."""
    from gen.analysis import verdicts

    if not verdict:
        monkeypatch.setattr(verdicts, "verdict_at", lambda *a, **k: None)
    df = scaling.sweep_frame(h200_new)
    df = df[df["gpu_only_ms"].notna()]
    got = scaling.fastest_at_largest(h200_new)
    assert list(got["head_dim"]) == sorted(df["head_dim"].unique())
    for r in got.itertuples():
        at_d = df[df["head_dim"] == r.head_dim]
        top = at_d[at_d["seq_len"] == at_d["seq_len"].max()]
        assert r.seq_len == top["seq_len"].iloc[0]
        if not verdict:
            assert r.gpu_only_ms == top["gpu_only_ms"].min()
        else:
            p = next(p for p in scaling.article_sweep(h200_new) if p.head_dim == r.head_dim and p.seq_len == r.seq_len)
            v = verdicts.verdict_at(h200_new, p.scenario, p.point)
            if v is None:
                assert r.variant == top.sort_values("gpu_only_ms")["variant"].iloc[0]
                continue
            # the verdict's first rank with its identical-kernel twins, a tie: the faster median stands for it and
            # the others are named (review 2026-12-07-9 item 10)
            tie = top[top["variant"].isin({v.fastest.variant, *v.same_kernel})]
            assert r.variant in set(tie["variant"]) and r.gpu_only_ms == tie["gpu_only_ms"].min()
            assert set(r.tie) == set(tie["variant"]) - {r.variant}
