"""The FlashAttention-4 variants (issue 32): flex_flash (FlexAttention's FLASH backend) and fa4 (flash_attn.cute),
with its paged and deterministic forms. On the CPU: their registration and the scenarios they run in, the
unavailable path and its install command, and FA4's arguments built from a Point, run through a stand-in for
flash_attn.cute written from FlashAttention's documented semantics and checked against the float64 reference."""

from __future__ import annotations

import importlib.util
import itertools
import subprocess
import sys
import types

import pytest

from gen.model import scenarios as sc
from gen.model import schema
from gen.model import variants as vd

FA4_NAMES = {"flex_flash", "fa4", "fa4_paged", "fa4_det"}
INSTALL = "pip install .[fa4]"


def test_the_fa4_variants_are_declared_with_their_keyword_and_compiled_per_shape():
    assert {v.name for v in vd.with_keyword("fa4")} == FA4_NAMES
    for name in FA4_NAMES:
        v = vd.VARIANTS[name]
        assert v.compiled and "optional" in v.keywords and v.gqa == vd.Gqa.NATIVE
        assert INSTALL in vd.source(v)
    assert vd.VARIANTS["fa4"].train and vd.VARIANTS["flex_flash"].train and vd.VARIANTS["fa4_det"].train
    assert not vd.VARIANTS["fa4_paged"].train  # a paged cache is an inference structure
    assert {"fa4", "flex_flash"} <= set(vd.DEFAULT_VARIANTS)
    assert not {"fa4_paged", "fa4_det"} & set(vd.DEFAULT_VARIANTS)
    assert "deterministic" in vd.VARIANTS["fa4_det"].keywords and "paged" in vd.VARIANTS["fa4_paged"].keywords
    assert "class FlexFlashAttention(FlexBlockMaskAttention)" in vd.source(vd.VARIANTS["flex_flash"])
    src = vd.source(vd.VARIANTS["fa4_paged"])
    assert "class FA4Plan" in src and "class FA4Attention" in src and "paged=True" in src


def test_fa4_and_flex_flash_run_in_every_scenario_where_they_apply():
    asked = vd.resolve(None)
    for s in sc.SCENARIOS.values():
        names = [v.name for v in s.variants_for(asked)]
        assert "fa4" in names, s.name
        # flex_flash wherever flex's block masks run; the deterministic comparison is FA4's own flag
        assert ("flex_flash" in names) == (s.name != "deterministic-backward"), s.name
        assert ("fa4_paged" in names) == (s.name == "decode-kernels"), s.name
        assert ("fa4_det" in names) == (s.name == "deterministic-backward"), s.name
    assert sc.SCENARIOS["deterministic-backward"].train_points()  # where fa4_det trains


def test_precompile_compiles_flex_flash_ahead_and_warms_its_own_one_time_costs(monkeypatch):
    import importlib.util

    from gen.capture import precompile

    installed = lambda name: object() if name == "flash_attn" else None  # noqa: E731
    monkeypatch.setattr(importlib.util, "find_spec", installed)
    assert precompile.wanted(vd.VARIANTS["flex_flash"]) and not precompile.wanted(vd.VARIANTS["fa4"])
    # without FlashAttention-4 no worker is given the FLASH backend (each would fail on its import)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert not precompile.wanted(vd.VARIANTS["flex_flash"]) and precompile.wanted(vd.VARIANTS["flex"])
    spec = lambda key, kind: {"key": key, "kind": kind}  # noqa: E731
    specs = [spec("a", "flex"), spec("b", "flex_flash"), spec("c", "flex_flash")]
    assert {k: s["key"] for k, s in precompile.warm_calls(specs).items()} == {"flex": "a", "flex_flash": "b"}
    assert list(precompile.warm_calls(specs[:1])) == ["flex"]


# --------------------------------------------------------------------------- FA4's arguments from a Point


torch = pytest.importorskip("torch")
from gen.capture import attention, extras, inputs, probe  # noqa: E402


def _point(name: str, tiny: bool = False) -> schema.Point:
    s = sc.tiny(sc.SCENARIOS[name]) if tiny else sc.SCENARIOS[name]
    return (s.points() or s.train_points())[0]


def test_the_plan_maps_masks_windows_and_documents_to_fa4_arguments():
    assert extras.FA4Plan.of(_point("article")) == extras.FA4Plan(False, {"causal": True})
    assert extras.FA4Plan.of(_point("decode")).kwargs == {"causal": False}
    # a window of W tokens: the query and W - 1 keys before it
    assert extras.FA4Plan.of(_point("sliding-window")).kwargs == {"causal": True, "window_size": (4095, 0)}
    # grouped KV heads go in as they are: no argument, no copy
    assert extras.FA4Plan.of(_point("gqa-prefill")) == extras.FA4Plan(False, {"causal": True})
    docs = extras.FA4Plan.of(_point("packed-documents"))
    assert docs.varlen and docs.cu_seqlens == (0, 4096, 5120, 8192, 8704, 10752, 14336, 15872, 16384)
    assert docs.kwargs == {"causal": True, "max_seqlen_q": 4096, "max_seqlen_k": 4096}
    two = extras.FA4Plan.of(schema.Point(2, 4, 2, 16, 12, 12, "document", docs=(4, 8)))
    assert two.cu_seqlens == (0, 4, 12, 16, 24)  # each batch element holds the pack
    assert extras.FA4Plan.of(_point("deterministic-backward"), deterministic=True).kwargs == {
        "causal": True, "deterministic": True}


def test_the_paged_plan_gives_every_sequence_its_own_shuffled_pages():
    p = _point("decode-kernels")
    plan = extras.FA4Plan.of(p, paged=True)
    assert plan.varlen and (plan.page_size, plan.pages_per_seq) == (128, 16384 // 128)
    table = plan.page_table(p.batch)
    assert len(table) == p.batch and all(len(row) == plan.pages_per_seq for row in table)
    flat = list(itertools.chain(*table))
    assert sorted(flat) == list(range(p.batch * plan.pages_per_seq)) and flat != sorted(flat)
    assert table == plan.page_table(p.batch)  # the same cache on every run


@pytest.mark.parametrize("point, paged, match", [
    (schema.Point(1, 4, 4, 16, 32, 32, "alibi"), False, "no argument of flash_attn.cute"),
    (schema.Point(1, 4, 4, 16, 32, 32, "document", docs=(16, 16)), True, "packed documents"),
    (schema.Point(1, 4, 4, 16, 1, 40, "none"), True, "16 tokens or more"),
    (schema.Point(1, 4, 4, 16, 32, 32, "document", docs=(16, 8)), False, "adding up"),
])
def test_what_fa4_cannot_express_is_refused_with_why(point, paged, match):
    with pytest.raises(ValueError, match=match):
        extras.FA4Plan.of(point, paged)


# --------------------------------------------------------------------------- a stand-in for flash_attn.cute


def _attend(q, k, v, causal, window_size=(None, None)):
    """FlashAttention's documented semantics on (B, S, H, D): query i sees keys j with
    i + Sk - Sq - left <= j <= i + Sk - Sq + right (causal: right = 0); KV heads shared by groups."""
    groups = q.shape[2] // k.shape[2]
    k, v = (t.double().repeat_interleave(groups, dim=2) for t in (k, v))
    s = torch.einsum("bqhd,bkhd->bhqk", q.double(), k) * q.shape[-1] ** -0.5
    i = torch.arange(q.shape[1])[:, None] + (k.shape[1] - q.shape[1])
    j = torch.arange(k.shape[1])[None, :]
    left, right = window_size
    right = 0 if causal else right
    allowed = torch.ones_like(s[0, 0], dtype=torch.bool)
    if right is not None:
        allowed &= j <= i + right
    if left is not None:
        allowed &= j >= i - left
    out = torch.einsum("bhqk,bkhd->bqhd", torch.softmax(s.masked_fill(~allowed, float("-inf")), -1), v)
    return out.to(q.dtype)


class _FakeFA4:
    """flash_attn.cute's two calls, keeping what they were given."""

    def __init__(self):
        self.calls = []

    def flash_attn_func(self, q, k, v, causal=False, window_size=(None, None), deterministic=False):
        self.calls.append(("func", q, k, v, dict(causal=causal, window_size=window_size)))
        return _attend(q, k, v, causal, window_size), None

    def flash_attn_varlen_func(self, q, k, v, cu_seqlens_q=None, cu_seqlens_k=None, max_seqlen_q=None,
                               max_seqlen_k=None, seqused_k=None, page_table=None, causal=False,
                               window_size=(None, None), deterministic=False):
        self.calls.append(("varlen", q, k, v, dict(page_table=page_table, cu=cu_seqlens_q, seqused_k=seqused_k)))
        if page_table is not None:  # q (B, Sq, H, D); k, v (pages, page size, Hk, D); seqused_k keys each
            kb, vb = (t[page_table.long()].flatten(1, 2) for t in (k, v))
            outs = [_attend(q[b:b + 1], kb[b:b + 1, :n], vb[b:b + 1, :n], causal, window_size)
                    for b, n in enumerate(seqused_k.tolist())]
            return torch.cat(outs), None
        assert max_seqlen_q == max(torch.diff(cu_seqlens_q)).item()
        outs = [_attend(q[None, a:b], k[None, a:b], v[None, a:b], causal, window_size)[0]
                for a, b in itertools.pairwise(cu_seqlens_q.tolist())]
        return torch.cat(outs), None


CASES = [("article", False, False), ("gqa-prefill", False, False), ("decode", False, False),
         ("sliding-window", False, False), ("packed-documents", False, False), ("chunked-prefill", False, False),
         ("decode-kernels", True, False), ("deterministic-backward", False, True)]


@pytest.mark.parametrize("name, paged, det", CASES)
def test_fa4_attention_through_the_stand_in_matches_float64(name, paged, det):
    """The whole plumbing: (B, H, S, D) views in, FA4's (B, S, H, D) views or packed tokens or pages, and a
    (B, H, S, D) output that the capture's check compares with the float64 reference."""
    point = _point(name, tiny=True)
    fake = _FakeFA4()
    module = extras.FA4Attention(point, torch.device("cpu"), paged=paged, deterministic=det, api=fake)
    q, k, v = inputs.make_inputs(point, torch.float32, "cpu", seed=3, layout="bshd")
    out = module(q, k, v)
    assert out.shape == q.shape
    heads = list(range(point.q_heads))
    for b in range(point.batch):
        assert inputs.rel_error(out[b], inputs.reference_slice(q, k, v, point, heads, batch=b)) < 1e-5
    kind, fq, fk, _, kw = fake.calls[-1]
    if paged:
        assert kind == "varlen" and kw["page_table"].dtype == torch.int32 and fk.shape[1] == module.plan.page_size
        assert kw["seqused_k"].dtype == torch.int32 and kw["seqused_k"].tolist() == [point.kv_len] * point.batch
    elif point.mask == schema.Mask.DOCUMENT:
        assert kind == "varlen" and fq.shape == (point.q_len, point.q_heads, point.head_dim)
        assert kw["cu"].dtype == torch.int32 and kw["cu"].tolist() == list(module.plan.cu_seqlens)
    else:  # (B, S, H, D) views of the (B, S, H, D) memory: no copy
        assert kind == "func" and fq.shape == (point.batch, point.q_len, point.q_heads, point.head_dim)
        assert fk.shape[2] == point.kv_heads and fq.is_contiguous() and fq.data_ptr() == q.data_ptr()


def test_the_paged_cache_is_filled_once_per_k_and_v_and_again_for_new_ones():
    point = _point("decode-kernels", tiny=True)
    module = extras.FA4Attention(point, torch.device("cpu"), paged=True, api=_FakeFA4())
    heads = list(range(point.q_heads))
    for seed in (3, 4):  # the second K and V may reuse the first's memory: still refilled
        q, k, v = inputs.make_inputs(point, torch.float32, "cpu", seed=seed, layout="bshd")
        cache = module(q, k, v) is not None and module.k_cache
        assert module(q, k, v) is not None and module.k_cache is cache  # the same K, V: no new fill
        assert inputs.rel_error(module(q, k, v)[0], inputs.reference_slice(q, k, v, point, heads)) < 1e-5
        del q, k, v


def test_fa4_gradients_through_the_stand_in_match_float64():
    point = _point("gqa-prefill", tiny=True)
    module = extras.FA4Attention(point, torch.device("cpu"), api=_FakeFA4())
    q, k, v = inputs.make_inputs(point, torch.float32, "cpu", seed=5, grad=True, layout="bshd")
    go = inputs.grad_output(point, torch.float32, "cpu", seed=6)
    module(q, k, v).backward(go)
    groups = point.q_heads // point.kv_heads
    dq, dk, dv = inputs.reference_grads(q, k, v, go, point)
    for got, want in zip((q.grad[0, :groups], k.grad[0, 0], v.grad[0, 0]), (dq, dk, dv)):
        assert inputs.rel_error(got, want) < 1e-5


# --------------------------------------------------------------------------- without flash_attn.cute


KINDS = ["flex_flash", "fa4", "fa4_paged", "fa4_deterministic"]


def _refusal(kind: str) -> str:
    point = _point("decode-kernels" if kind == "fa4_paged" else "article", tiny=True)
    with pytest.raises(ValueError) as e:
        attention.build(kind, None, point, "cpu")
    return probe.refusal(e.value, [])


@pytest.mark.parametrize("kind", KINDS)
def test_without_the_package_each_says_how_to_install_it(kind, monkeypatch):
    monkeypatch.setitem(sys.modules, "flash_attn", None)  # `from flash_attn import cute` raises ImportError
    assert _refusal(kind) == f"ValueError: {extras.FA4_MISSING}" and INSTALL in extras.FA4_MISSING


@pytest.mark.parametrize("kind", KINDS)
def test_with_the_package_but_no_gpu_each_says_so(kind, monkeypatch):
    pkg = types.ModuleType("flash_attn")
    pkg.cute = types.ModuleType("flash_attn.cute")
    monkeypatch.setitem(sys.modules, "flash_attn", pkg)
    monkeypatch.setitem(sys.modules, "flash_attn.cute", pkg.cute)
    reason = _refusal(kind)
    assert "CUDA" in reason and "not on cpu" in reason and INSTALL not in reason


def test_a_cute_dsl_missing_from_the_path_is_named_with_the_fix(monkeypatch):
    monkeypatch.delitem(sys.modules, "flash_attn", raising=False)
    real = __import__

    def imp(name, *args, **kwargs):
        if name == "flash_attn":
            raise ModuleNotFoundError("No module named 'cutlass'", name="cutlass")
        return real(name, *args, **kwargs)

    monkeypatch.setattr("builtins.__import__", imp)
    reason = _refusal("fa4")
    assert "No module named 'cutlass'" in reason and "dsl_packages on PYTHONPATH" in reason and INSTALL in reason


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("flash_attn") is not None, reason="flash_attn is installed here")
def test_a_tiny_cpu_capture_records_every_fa4_variant_unavailable_with_the_install_command(tmp_path):
    p = subprocess.run([sys.executable, "-m", "gen", "profile", "--tiny", "--quick", "--no-counters",
                        "--scenario", "article,deterministic-backward", "--mode", "inference,train",
                        "--variants", "fa4,flex_flash", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    (path,) = [d for d in tmp_path.iterdir() if not d.name.startswith(".")]
    rs = schema.load_set(path)
    records = [*rs.runs, *rs.sweep]
    fa4 = [r for r in records if r.variant in FA4_NAMES]
    assert {(r.variant, r.mode) for r in fa4} >= {("fa4", "inference"), ("fa4", "train"), ("flex_flash", "inference"),
                                                  ("flex_flash", "train"), ("fa4_det", "train")}
    assert all(r.status == "unavailable" and INSTALL in r.reason for r in fa4)
    # the other variants of the scenario still ran
    assert any(r.status == "ok" for r in records if r.variant not in FA4_NAMES)


def test_the_first_import_of_flash_attn_cute_is_timed_once(tmp_path, monkeypatch):
    (tmp_path / "flash_attn").mkdir()
    (tmp_path / "flash_attn" / "__init__.py").write_text("")
    (tmp_path / "flash_attn" / "cute.py").write_text("import time\ntime.sleep(0.05)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("flash_attn", "flash_attn.cute"):  # absent again after the test, as before it
        monkeypatch.setitem(sys.modules, name, None)
        monkeypatch.delitem(sys.modules, name)
    cute, first = extras._fa4()
    assert cute.__name__ == "flash_attn.cute" and first >= 0.05
    assert extras._fa4() == (cute, 0.0)
