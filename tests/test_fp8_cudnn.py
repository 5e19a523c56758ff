"""cuDNN's FP8 attention through its frontend graph (optional extra), what FP8 buys against bf16,
and the published FP8 figures beside ours. On the CPU: the refusals with their reasons, the
analysis on a synthetic set, and the FP8 section and the published figures on the scenario page."""

from __future__ import annotations

import dataclasses
import math
import sys
import types

import pytest

from gen.analysis import scenarios as sa
from gen.analysis import tables
from gen.model import anchors, schema
from gen.model import scenarios as sc
from gen.model import variants as vd
from tests.conftest import RESULTS
from tests.scenario_sets import _env

FP8 = "fp8-prefill"


def test_fp8_prefill_declares_the_cudnn_graph_beside_its_bf16_twins():
    s = sc.SCENARIOS[FP8]
    assert {"cudnn_fp8", "sdpa_cudnn", "flex_fp8", "flex"} <= set(s.extra_variants)
    (p,) = s.points()
    # the shape of the cuDNN frontend's published H200 figures (Llama 3.1: 64 query heads over 8)
    assert (p.batch, p.q_heads, p.kv_heads, p.head_dim, p.q_len, p.kv_len, p.mask) == (
        1, 64, 8, 128, 16384, 16384, "causal")
    v = vd.VARIANTS["cudnn_fp8"]
    assert (v.dtype, v.twin, v.default, v.train) == ("fp8_e4m3", "sdpa_cudnn", False, False)
    assert (vd.VARIANTS["flex_fp8"].dtype, vd.VARIANTS["flex_fp8"].twin) == ("fp8_e4m3", "flex")
    assert "class CudnnFP8Attention" in vd.source(v) and "pip install .[cudnn]" in vd.source(v)


torch = pytest.importorskip("torch")
from gen.capture import attention, extras, probe  # noqa: E402

POINT = sc.tiny(sc.SCENARIOS[FP8]).points()[0]


def _refusal(monkeypatch, module) -> str:
    monkeypatch.setitem(sys.modules, "cudnn", module)
    with pytest.raises(ValueError) as e:
        attention.build("cudnn_fp8", None, POINT, "cpu")
    return probe.refusal(e.value, [])


def test_cudnn_fp8_without_the_package_says_how_to_install_it(monkeypatch):
    reason = _refusal(monkeypatch, None)  # None in sys.modules: `import cudnn` raises ImportError
    assert reason == ("ValueError: the optional nvidia-cudnn-frontend package is not installed "
                      "(pip install .[cudnn])")


def test_cudnn_fp8_with_the_package_but_no_gpu_says_so(monkeypatch):
    assert "runs on CUDA GPUs, not on cpu" in _refusal(monkeypatch, types.ModuleType("cudnn"))


def test_a_broken_cudnn_install_is_named_not_hidden(monkeypatch):
    monkeypatch.delitem(sys.modules, "cudnn", raising=False)
    monkeypatch.setattr("builtins.__import__", _importer(OSError("libcudnn.so.9: cannot open shared object file")))
    with pytest.raises(ValueError, match="failed to import: OSError: libcudnn.so.9"):
        attention.build("cudnn_fp8", None, POINT, "cpu")


def _importer(exc):
    real = __import__

    def imp(name, *args, **kwargs):
        if name == "cudnn":
            raise exc
        return real(name, *args, **kwargs)
    return imp


class _Refusing:
    """A stand-in for the frontend module whose graph refuses as cuDNN does on a GPU it does not support."""

    class cudnnGraphNotSupportedError(RuntimeError):  # noqa: N801 (cuDNN's name)
        pass

    class data_type:  # noqa: N801
        BFLOAT16, FP8_E4M3, FLOAT = "bf16", "e4m3", "f32"

    class diagonal_alignment:  # noqa: N801
        TOP_LEFT, BOTTOM_RIGHT = "top_left", "bottom_right"

    def __init__(self):
        self.asked: list = []

    def create_handle(self):
        return 1

    def pygraph(self, **kw):
        owner = self

        class G:
            def tensor(self, **t):
                return object()

            def sdpa_fp8(self, **kw2):
                owner.asked.append(kw2)
                raise owner.cudnnGraphNotSupportedError(
                    "sdpa fp8 forward operation is only supported on Hopper architecture and newer.\nmore")
        return G()


def test_a_refused_graph_gives_cudnns_own_words(monkeypatch):
    fake = _Refusing()
    monkeypatch.setattr(extras, "_cudnn", lambda: fake)
    cuda = torch.device("cuda")  # never touched: the graph refuses before any tensor is made on it
    monkeypatch.setattr(extras.torch, "full", lambda *a, **k: torch.zeros(1, 1, 1, 1))
    with pytest.raises(ValueError) as e:
        extras.CudnnFP8Attention(POINT, cuda)
    assert str(e.value) == ("cuDNN refused the FP8 attention graph: sdpa fp8 forward operation is only supported "
                            "on Hopper architecture and newer.")
    assert len(fake.asked) == 2  # a BF16 output asked first, then float8 e4m3
    kw = fake.asked[0]
    assert kw["generate_stats"] is False and kw["right_bound"] == 0 and kw["attn_scale"] == POINT.head_dim**-0.5
    assert {"descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o"} <= set(kw)


# --------------------------------------------------------------------------- analysis and page


def _t(ms: float) -> schema.Timing:
    return schema.Timing(gpu_only_ms=[ms * 0.99, ms, ms * 1.01], gpu_only_method="cuda_graph", calls_per_replay=10,
                         eager_ms=[ms * 1.1] * 3, host_ms=[0.01] * 3)


def _fp8_set(tmp_path, cudnn_ok: bool = True):
    p = sc.SCENARIOS[FP8].points()[0]
    rounding = {"fp8_input_rounding_error": 0.025}
    cudnn = (schema.SweepPoint("cudnn_fp8", p, "ok", scenario=FP8, timing=_t(4.5), rel_error=0.03,
                               dtype="fp8_e4m3", facts={**rounding, "fp8_output": 1.0, "cudnn_backend_version": 91900})
             if cudnn_ok else
             schema.SweepPoint("cudnn_fp8", p, "unavailable", scenario=FP8,
                               reason="ValueError: the optional nvidia-cudnn-frontend package is not installed "
                                      "(pip install .[cudnn]) <b>|x|</b>"))
    pts = [schema.SweepPoint("sdpa_cudnn", p, "ok", scenario=FP8, timing=_t(6.6), rel_error=2e-3, dtype="bf16"),
           schema.SweepPoint("flex", p, "ok", scenario=FP8, timing=_t(9.0), rel_error=3e-3, dtype="bf16"),
           schema.SweepPoint("flex_fp8", p, "ok", scenario=FP8, timing=_t(6.0), rel_error=0.04, dtype="fp8_e4m3",
                             facts=rounding),
           cudnn]
    cfg = schema.RunConfig(1, 64, 16384, 128, "bf16", ["inference"], [], 1, 1, 1, 1, 1, 1, 0)
    rs = schema.ResultSet(schema.SCHEMA_VERSION, "nvidia-h200__torch-2.11.0__fp8", _env(), cfg, [], sweep=pts,
                          scenarios=[sc.SCENARIOS[FP8].record()])
    d = tmp_path / rs.name
    d.mkdir()
    (d / schema.RESULT_FILE).write_text(schema.dumps(rs))
    return tables.load_set(d)


def test_fp8_frame_sets_each_fp8_variant_beside_its_twin(tmp_path):
    pf = sa.point_frame(_fp8_set(tmp_path), FP8)
    f = sa.fp8_frame(pf).set_index("variant")
    assert f.loc["cudnn_fp8", "twin"] == "sdpa_cudnn" and f.loc["flex_fp8", "twin"] == "flex"
    assert f.loc["cudnn_fp8", "speedup"] == pytest.approx(6.6 / 4.5)
    assert f.loc["flex_fp8", "speedup"] == pytest.approx(9.0 / 6.0)
    assert (f.loc["cudnn_fp8", "fp8_error"], f.loc["cudnn_fp8", "twin_error"]) == (0.03, 2e-3)
    assert f.loc["cudnn_fp8", "input_rounding_error"] == 0.025 and f.loc["cudnn_fp8", "twin_dtype"] == "bf16"


def test_a_refused_fp8_variant_keeps_its_dtype_and_reason(tmp_path):
    ls = _fp8_set(tmp_path, cudnn_ok=False)
    f = sa.fp8_frame(sa.point_frame(ls, FP8)).set_index("variant")
    assert math.isnan(f.loc["cudnn_fp8", "speedup"]) and "pip install .[cudnn]" in f.loc["cudnn_fp8", "reason"]
    rows = {r["variant"]: r for r in sa.summary_rows(ls, FP8)}
    assert rows["cudnn_fp8"]["dtype"] == "fp8_e4m3" and rows["cudnn_fp8"]["status"] == "unavailable"
    assert rows["sdpa_cudnn"]["dtype"] == "bf16"


def test_published_fp8_figures_stand_beside_our_fp8_calls_only(tmp_path):
    ls = _fp8_set(tmp_path)
    cudnn_anchor = tables.load_set(RESULTS / anchors.CUDNN_NAME)
    a = sa.anchor_frame([ls, cudnn_anchor], FP8, ls)
    assert set(zip(a["variant"], a["dtype"], a["kv_len"])) == {("cudnn_fp8", "fp8_e4m3", 16384),
                                                                ("sdpa_cudnn", "bf16", 16384)}
    assert a["same_shape"].all() and set(a["gpu"]) == {"NVIDIA H200"}
    v = sa.versus_frame(sa.point_frame(ls, FP8), a).set_index("anchor_variant")
    # like with like: the FP8 figure against our FP8 calls, the bf16 one against our bf16 calls
    assert v.loc["cudnn_fp8", "ours_variant"] == "cudnn_fp8" and v.loc["cudnn_fp8", "anchor_ms"] == 4.357
    assert v.loc["cudnn_fp8", "ours_time_ratio"] == pytest.approx(4.5 / 4.357)
    assert v.loc["cudnn_fp8", "fastest_variant"] == "cudnn_fp8"
    assert v.loc["sdpa_cudnn", "ours_variant"] == v.loc["sdpa_cudnn", "fastest_variant"] == "sdpa_cudnn"
    # a 16-bit scenario never meets the FP8 figures
    gqa = sa.anchor_frame([cudnn_anchor], "gqa-prefill")
    assert set(gqa["variant"]) == {"sdpa_cudnn"} and set(gqa["dtype"]) == {"bf16"}


def _page(tmp_path, cudnn_ok: bool = True) -> str:
    from gen.report import site
    from gen.report.pages import scenarios as sp

    ls = _fp8_set(tmp_path, cudnn_ok)
    sets = [ls, tables.load_set(RESULTS / anchors.CUDNN_NAME)]
    ctx = site.Context(sets)
    return _own_page(sp, ctx, ls, FP8)


def _own_page(sp, ctx, ls, scenario: str) -> str:
    """The set's own page of the scenario (gen.report.units): its points, FP8 section and published figures."""
    from gen.report import format as fmt

    return next(p.text for p in sp.set_pages(ctx, ls) if p.path == fmt.set_scenario_page(ls.name, scenario))


def test_the_fp8_page_shows_speed_and_error_side_by_side_and_the_published_figures(tmp_path):
    text = _page(tmp_path)
    assert "### What FP8 buys and costs" in text
    section = text.split("### What FP8 buys and costs")[1]
    row = next(x for x in section.splitlines() if x.startswith("| cuDNN FP8 attention"))
    assert "SDPA cuDNN (bf16)" in row and "1.47×" in row and "3.0e-02" in row and "2.0e-03" in row
    assert "2.5e-02" in row  # rounding the inputs alone
    assert "FP8 rows are set against the dense FP8 rate" in text
    assert "Published: [" in text and "NVIDIA H200" in text and "4.357" in text
    assert "| S &#61; 16,384, cuDNN FP8 (our cudnn&#95;fp8) | 4.357 | 1,010 |" in text
    assert "No published figure is known" not in text


def test_fp8_rows_are_judged_by_the_fp8_rate_not_the_bf16_ceiling(tmp_path):
    from tests.scenario_sets import COPY_BYTES, COPY_MS, MATMUL, MATMUL_MS

    ls = _fp8_set(tmp_path)
    rs = dataclasses.replace(ls.rs, ceilings=schema.Ceilings(matmul_shape=MATMUL, matmul_dtype="bf16",
                                                             matmul_ms=[MATMUL_MS] * 3, copy_bytes=COPY_BYTES,
                                                             copy_ms=[COPY_MS] * 3))
    (tmp_path / rs.name / schema.RESULT_FILE).write_text(schema.dumps(rs))
    pf = sa.point_frame(tables.load_set(tmp_path / rs.name), FP8).set_index("variant")
    assert pf.loc["sdpa_cudnn", "ceiling"] == "matmul" and pf.loc["sdpa_cudnn", "pct_of_ceiling"] > 0
    assert not isinstance(pf.loc["cudnn_fp8", "ceiling"], str) and math.isnan(pf.loc["cudnn_fp8", "pct_of_ceiling"])


def test_a_refused_cudnn_graph_is_said_with_its_reason_escaped(tmp_path):
    text = _page(tmp_path, cudnn_ok=False)
    row = next(x for x in text.splitlines() if x.startswith("| cuDNN FP8 attention") and "pip install" in x)
    assert "<b>" not in row and "&lt;b&gt;" in row and "&#124;x&#124;" in row


def test_a_scenario_with_no_published_figure_says_so(tmp_path):
    ls = _fp8_set(tmp_path)
    p = sc.SCENARIOS["decode-kernels"].points()[0]
    extra = schema.SweepPoint("flex", p, "ok", scenario="decode-kernels", timing=_t(0.1), rel_error=1e-3)
    rs = dataclasses.replace(ls.rs, sweep=[*ls.rs.sweep, extra],
                             scenarios=[*ls.rs.scenarios, sc.SCENARIOS["decode-kernels"].record()])
    (tmp_path / rs.name / schema.RESULT_FILE).write_text(schema.dumps(rs))
    from gen.report import site
    from gen.report.pages import scenarios as sp

    own = tables.load_set(tmp_path / rs.name)
    ctx = site.Context([own, tables.load_set(RESULTS / anchors.CUDNN_NAME)])
    text = _own_page(sp, ctx, own, "decode-kernels")
    assert "No published figure is known for this scenario" in text
