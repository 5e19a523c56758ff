"""Issue 20's scenarios: packed documents, chunked prefill, decode kernels, FP8,
deterministic backward, and why SDPA picked its backend. Declarations (no
torch), the capture's new attention classes against float64 on the CPU, the
analysis on synthetic points, and a tiny end-to-end capture of every new scenario."""

from __future__ import annotations

import dataclasses

import pytest

from gen.analysis import rules
from gen.analysis import scenarios as sa
from gen.model import scenarios as sc
from gen.model import schema
from gen.model import variants as vd

NEW = ["packed-documents", "chunked-prefill", "decode-kernels", "fp8-prefill", "deterministic-backward"]


# --------------------------------------------------------------------------- declarations


def test_new_scenarios_are_declared_small():
    s = sc.SCENARIOS
    packed = s["packed-documents"]
    assert packed.docs == (4096, 1024, 3072, 512, 2048, 3584, 1536, 512) and sum(packed.docs) == 16384
    (p,) = packed.points()
    assert (p.q_len, p.kv_len, p.mask, p.docs) == (16384, 16384, "document", packed.docs)
    chunk = s["chunked-prefill"]
    assert [(p.q_len, p.kv_len) for p in chunk.points()] == [(16, 8192), (16, 32768), (512, 8192), (512, 32768)]
    assert (chunk.q_heads, chunk.kv_heads, chunk.head_dim) == (64, 8, 128)
    assert s["deterministic-backward"].points() == [] and len(s["deterministic-backward"].train_points()) == 1
    for name in NEW:  # a few points each: the whole capture has a time budget
        assert len(s[name].points()) + len(s[name].train_points()) <= 4
    assert "varlen" in s["sliding-window"].extra_variants


def test_variants_for_adds_a_scenarios_own_and_can_drop_the_asked():
    asked = vd.resolve("naive,sdpa_auto")
    assert [v.name for v in sc.SCENARIOS["sliding-window"].variants_for(asked)] == ["naive", "sdpa_auto", "varlen"]
    got = [v.name for v in sc.SCENARIOS["chunked-prefill"].variants_for(asked)]
    assert got == ["sdpa_auto", "sdpa_is_causal", "sdpa_lower_right", "varlen", "fa4", "flex_flash"]
    assert [v.name for v in sc.SCENARIOS["gqa-prefill"].variants_for(asked)] == ["naive", "sdpa_auto"]
    for s in sc.SCENARIOS.values():
        assert all(n in vd.VARIANTS for n in s.extra_variants)
    assert not any(vd.VARIANTS[n].default for n in ("varlen", "sdpa_nested", "flex_paged", "flex_fp8"))


def test_document_scenarios_are_checked_and_tiny_keeps_the_pack():
    with pytest.raises(ValueError, match="document lengths"):
        sc.Scenario("x", "x", "x", 1, 4, 4, (16,), (16,), "document")
    with pytest.raises(ValueError, match="make 12 tokens"):
        sc.Scenario("x", "x", "x", 1, 4, 4, (16,), (16,), "document", docs=(4, 8))
    t = sc.tiny(sc.SCENARIOS["packed-documents"])
    assert t.lengths == (sum(t.docs),) and len(t.docs) == 8 and len(set(t.docs)) > 4  # still uneven
    c = sc.tiny(sc.SCENARIOS["chunked-prefill"])
    assert all(p.q_len < p.kv_len for p in c.points())


def test_new_point_fields_round_trip_and_old_files_read():
    p = sc.SCENARIOS["packed-documents"].points()[0]
    sp = schema.SweepPoint(variant="sdpa_auto", point=p, status="ok", scenario="packed-documents", dtype="bf16",
                           sdpa_choice="efficient", backend_reasons={"flash": "no mask"}, facts={"x": 1.0})
    back = schema._build(schema.SweepPoint, dataclasses.asdict(sp), "test")
    assert back == sp and back.point.docs == p.docs and isinstance(back.point.docs, tuple)
    old = dataclasses.asdict(schema.SweepPoint(variant="naive", point=sc.SCENARIOS["decode"].points()[0], status="ok"))
    for k in ("dtype", "sdpa_choice", "backend_reasons", "facts"):
        old.pop(k)
    old["point"].pop("docs")
    assert schema._build(schema.SweepPoint, old, "test").backend_reasons == {}
    with pytest.raises(schema.SchemaError, match="docs"):
        schema._build(schema.Point, {**dataclasses.asdict(p), "docs": "4,8"}, "test")


# --------------------------------------------------------------------------- capture on the CPU

torch = pytest.importorskip("torch")
from gen.capture import attention, explain, extras, inputs  # noqa: E402


def _check(point, kind, seed=0):
    b = attention.build(kind, None, point, "cpu")
    q, k, v = inputs.make_inputs(point, torch.float32, "cpu", seed, layout=b.layout)
    with torch.no_grad():
        out = b.fn(q, k, v)
    heads = list(range(point.q_heads))
    return inputs.rel_error(out[0], inputs.reference_slice(q, k, v, point, heads)), b


DOCS = schema.Point(1, 4, 2, 16, 40, 40, "document", docs=(16, 4, 12, 8))
CHUNK = schema.Point(1, 4, 2, 16, 8, 40, "causal")


def test_document_mask_blocks_other_documents():
    m = inputs.masked_out(DOCS, "cpu")
    assert m[16, 15] and not m[16, 16] and m[19, 20] and not m[39, 32] and m[39, 31]
    assert (~m).sum() == sum(d * (d + 1) // 2 for d in DOCS.docs)


@pytest.mark.parametrize("kind", ["sdpa_padded", "sdpa", "naive"])
def test_packed_document_variants_match_float64(kind):
    err, _ = _check(DOCS, kind)
    assert err < 1e-5


def test_plain_causal_over_a_pack_and_top_left_chunks_are_wrong_and_lower_right_is_right():
    assert _check(DOCS, "sdpa_is_causal")[0] > rules.WRONG_ANSWER_REL_ERROR
    assert _check(CHUNK, "sdpa_is_causal")[0] > rules.WRONG_ANSWER_REL_ERROR
    assert _check(CHUNK, "sdpa_lower_right")[0] < 1e-5


def test_layouts_hold_the_same_values():
    a = inputs.make_inputs(CHUNK, torch.float32, "cpu", 3)
    for layout in ("bshd", "v_col"):
        b = inputs.make_inputs(CHUNK, torch.float32, "cpu", 3, grad=True, layout=layout)
        assert all(torch.equal(x, y) for x, y in zip(a, b)) and all(t.is_leaf and t.requires_grad for t in b)
    assert inputs.make_inputs(CHUNK, torch.float32, "cpu", 3, layout="bshd")[0].transpose(1, 2).is_contiguous()
    with pytest.raises(ValueError, match="layout"):
        inputs.make_inputs(CHUNK, torch.float32, "cpu", 3, layout="nope")


def test_unpinned_sdpa_explains_and_never_fails_its_point():
    _, b = _check(CHUNK, "sdpa_lower_right")
    q, k, v = inputs.make_inputs(CHUNK, torch.float32, "cpu", 0)
    choice, reasons = b.explain(q, k, v)
    assert choice == "math" and reasons["cudnn"].startswith("not asked")  # the bias never reaches cuDNN
    assert set(explain.backend_reasons(q, k, v, None, True, True)) == {"flash", "efficient", "cudnn"}  # CPU: not asked

    def broken(q, k, v):
        raise RuntimeError("moved API")
    assert explain._safe(broken)(q, k, v) == (None, {"error": "not asked: RuntimeError: moved API"})


def test_varlen_refusal_on_a_cpu_is_a_reason_not_a_crash():
    b = attention.build("varlen", None, CHUNK, "cpu")
    assert b.layout == "bshd"
    q, k, v = inputs.make_inputs(CHUNK, torch.bfloat16, "cpu", 0, layout=b.layout)
    with pytest.raises((NotImplementedError, RuntimeError)):
        b.fn(q, k, v)


# --------------------------------------------------------------------------- analysis


def test_document_flops_count_each_documents_square():
    p = sc.SCENARIOS["packed-documents"].points()[0]
    assert sa.score_pairs(p) == sum(d * d / 2 for d in p.docs)
    df = sa.document_frame(p)
    assert df["share_pct"].sum() == pytest.approx(100) and df["flops"].sum() == pytest.approx(sa.flops(p))
    assert df["padded_flops"].sum() / df["flops"].sum() == pytest.approx(8 * 4096**2 / sum(d * d for d in p.docs))
    assert sa.element_size("fp8_e4m3") == 1 and sa.element_size("bf16") == 2


def test_backend_frame_and_wrong_answers_are_never_fastest(tmp_path):
    from gen.analysis import tables
    from tests.scenario_sets import _env

    p = sc.SCENARIOS["chunked-prefill"].points()[0]
    t = schema.Timing(gpu_only_ms=[0.01] * 5, gpu_only_method="cuda_graph", eager_ms=[0.02] * 5, host_ms=[0.01] * 5)
    slow = dataclasses.replace(t, gpu_only_ms=[0.05] * 5)
    pts = [schema.SweepPoint("sdpa_is_causal", p, "ok", scenario="chunked-prefill", timing=t, rel_error=0.9,
                             sdpa_choice="flash", backend_reasons={"flash": "eligible", "cudnn": "no <mask> | *"}),
           schema.SweepPoint("sdpa_lower_right", p, "ok", scenario="chunked-prefill", timing=slow, rel_error=3e-3,
                             sdpa_choice="flash", backend_reasons={"flash": "eligible", "efficient": "eligible"})]
    cfg = schema.RunConfig(1, 1, 1, 1, "bf16", ["inference"], [], 1, 1, 1, 1, 1, 1, 0)
    rs = schema.ResultSet(schema.SCHEMA_VERSION, "x", _env(), cfg, [], sweep=pts,
                          scenarios=[sc.SCENARIOS["chunked-prefill"].record()])
    d = tmp_path / "x"
    d.mkdir()
    (d / schema.RESULT_FILE).write_text(schema.dumps(rs))
    ls = tables.load_set(d)
    bf = sa.backend_frame(ls, "chunked-prefill")
    assert set(zip(bf["variant"], bf["backend"], bf["verdict"])) == {
        ("sdpa_is_causal", "flash", "chosen"), ("sdpa_is_causal", "cudnn", "refused"),
        ("sdpa_lower_right", "flash", "chosen"), ("sdpa_lower_right", "efficient", "eligible")}
    pf = sa.point_frame(ls, "chunked-prefill")
    assert pf.set_index("variant")["wrong"].to_dict() == {"sdpa_is_causal": True, "sdpa_lower_right": False}
    fastest = sa.fastest_rows(sa.point_rows(ls, "chunked-prefill"))
    assert [r["variant"] for r in fastest] == ["sdpa_lower_right"]  # the faster one is wrong
    rows = sa.summary_rows(ls, "chunked-prefill")
    assert rows[0]["dtype"] == "bf16" and {r["wrong_answer"] for r in rows} == {True, False}
    assert rows[0]["backend_reasons"] and rows[0]["sdpa_choice"] == "flash"


# --------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def tiny20(readme_capture):
    """The set the README's capture published at tiny sizes on the CPU (conftest.py's readme_capture: scenario all,
    so every new scenario with its own variants, in both modes). Its own capture of the new scenarios compiled the
    same FlexAttention kernels again."""
    (path,) = [d for d in (readme_capture / "out").iterdir() if not d.name.startswith(".")]
    return path


def test_tiny_capture_covers_every_new_scenario(tiny20):
    rs = schema.load_set(tiny20)
    got = {(p.scenario, p.variant) for p in rs.sweep}
    for name in NEW:
        for v in sc.SCENARIOS[name].extra_variants:
            assert (name, v) in got, (name, v)
    for p in rs.sweep:
        assert p.status == "ok" or p.reason  # every refusal says why
        # a variant refused while being built records no dtype; analysis reads its declared one
        assert p.dtype in ("bf16", "fp8_e4m3") or (p.status == "unavailable" and p.dtype is None)
    fp8 = [p for p in rs.sweep if p.variant == "flex_fp8"]
    assert fp8 and all(p.dtype == "fp8_e4m3" for p in fp8)
    # cuDNN's FP8 graph: the optional package is missing here, or there is no GPU; either way said
    (cudnn,) = [p for p in rs.sweep if p.variant == "cudnn_fp8"]
    assert cudnn.scenario == "fp8-prefill" and cudnn.status == "unavailable"
    assert extras.CUDNN_MISSING in cudnn.reason or "CUDA GPUs" in cudnn.reason
    nested = next(p for p in rs.sweep if p.variant == "sdpa_nested")
    assert nested.backend_reasons  # even refused, PyTorch's reasons are kept
    flex = next(p for p in rs.sweep if p.variant == "flex" and p.scenario == "packed-documents")
    assert flex.status == "ok" and flex.rel_error < 2e-2 and "block_mask_build_s" in flex.facts
    wrong = next(p for p in rs.sweep if p.variant == "sdpa_is_causal" and p.scenario == "chunked-prefill")
    assert wrong.status == "ok" and rules.wrong_answer(wrong.rel_error)
    det = [p for p in rs.sweep if p.scenario == "deterministic-backward"]
    assert det and {p.mode for p in det} == {"train"}


def test_summary_json_gives_rows_for_each_new_scenario(tiny20, capsys):
    """`gen summary` (its CLI, in this process: a process each cost a second of imports) for each new scenario."""
    import json

    from gen import cli
    for name in NEW:
        code = cli.main(["summary", "--results", str(tiny20.parent), "--scenario", name, "--format", "json"])
        out, err = capsys.readouterr()
        assert code == 0, err[-2000:]
        rows = json.loads(out)["rows"]
        assert rows and all("dtype" in r and "backend_reasons" in r for r in rows)
        if name == "fp8-prefill":  # every FP8 row says so, the refused cuDNN one included
            got = {r["variant"]: r["dtype"] for r in rows}
            assert got["cudnn_fp8"] == got["flex_fp8"] == "fp8_e4m3" and got["sdpa_cudnn"] == "bf16"


def test_said_by_pytorch_reads_cpp_warnings_from_stderr_and_python_warnings():
    import os
    import warnings
    said: list[str] = []
    with explain.said_by_pytorch(said):
        os.write(2, b"[W1203 16:01:43.8 sdp_utils.cpp:457] Warning: Flash attention does not support the "
                    b"is_causal flag when seqlen_q != seqlen_k. (function check_flash_causal_non_square_seqlens)\n")
        os.write(2, b"[W1203 16:01:43.8 sdp_utils.cpp:9] Warning: Flash attention kernel not used because: "
                    b"(Triggered internally at x.cpp:1.)\n")
        warnings.warn("Memory efficient kernel not used because: no <mask> | *", UserWarning, stacklevel=1)
    assert said == ["Memory efficient kernel not used because: no <mask> | *",
                    "Flash attention does not support the is_causal flag when seqlen_q != seqlen_k."]
