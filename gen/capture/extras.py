"""The variants that need an optional extra: cuDNN's FP8 attention through its frontend, and FlashAttention-4.

Takes: a `schema.Point` and a CUDA device, and the optional package
(nvidia-cudnn-frontend: pip install .[cudnn]; flash-attn-4: pip install
.[fa4]). Gives: `_cudnn()` and `_fa4()` (the package, or a ValueError saying
how to get it), `CudnnFP8Attention`, `FA4Plan` (how a point is asked of
flash_attn.cute, with no tensor made) and `FA4Attention`, nn.Modules called
as `module(q, k, v)`. The report shows the source of these classes, read from
this file's text (gen.model.variants.source).
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import random
import sys
import time
import weakref
from dataclasses import dataclass

import torch
from torch import nn

from gen.model import schema

CUDNN_MISSING = ("the optional nvidia-cudnn-frontend package is not installed "
                 "(pip install .[cudnn])")
E4M3_MAX_POW2 = 256.0  # the largest power of two under float8 e4m3's 448: scales stay exact


def missing(variant) -> str | None:
    """Why an optional variant cannot run here, as its build would say it ("ValueError: the optional ... package is
    not installed ..."), or None: its package (gen.model.variants.EXTRA_PACKAGES) is found, or it needs none. Looked
    up without importing it, so that a point is marked unavailable before the time limit's skip (a missing package read
    as "the time limit was reached")."""
    from gen.model.variants import extra_package

    extra = extra_package(variant)
    if extra is None or importlib.util.find_spec(extra[1]) is not None:
        return None
    return f"ValueError: {CUDNN_MISSING if extra[1] == 'cudnn' else FA4_MISSING}"


def _cudnn():
    """The cuDNN frontend's Python module (optional extra), or a ValueError saying how to get it."""
    try:
        import cudnn
    except ImportError as exc:
        raise ValueError(CUDNN_MISSING) from exc
    except Exception as exc:  # it loads libcudnn when imported: a broken install says so
        raise ValueError(f"the nvidia-cudnn-frontend package failed to import: {type(exc).__name__}: {exc}") from exc
    return cudnn


class CudnnFP8Attention(nn.Module):
    """cuDNN's FP8 (e4m3) fused attention forward, built as a cuDNN frontend
    graph (sdpa_fp8) and run on PyTorch's CUDA tensors, outside torch SDPA.
    q, k, v arrive in float8 e4m3 in (B, S, H, D) memory, unscaled (descale
    1); the softmax probabilities are scaled by 256 into e4m3's range before
    the second matrix product (descale 1/256). The output is BF16 where cuDNN
    gives it (Blackwell); else e4m3, scaled by a power of two from V's
    largest value (an output row is a mix of V's rows), and turned back into
    BF16 in the call (two small elementwise kernels, counted). Causal is the
    diagonal band with right bound 0 (bottom-right aligned when the queries
    are the last tokens). The handle runs on PyTorch's current stream, so a
    CUDA graph captures the call."""

    def __init__(self, point: schema.Point, device: torch.device):
        super().__init__()
        cudnn = _cudnn()
        if device.type != "cuda":
            raise ValueError(f"cuDNN's FP8 attention runs on CUDA GPUs, not on {device.type}")
        if point.mask not in (schema.Mask.CAUSAL, schema.Mask.NONE):
            raise ValueError(f"the cuDNN FP8 variant here covers causal and unmasked attention, not {point.mask}")
        self.cudnn, self.point, self.device = cudnn, point, device
        self.handle = cudnn.create_handle()
        b, hq, hk, s_q, s_kv, d = (point.batch, point.q_heads, point.kv_heads, point.q_len, point.kv_len,
                                   point.head_dim)
        # (B, H, S, D) dims over (B, S, H, D) memory, as make_inputs(layout="bshd") gives them
        self.dims = {"q": (b, hq, s_q, d), "k": (b, hk, s_kv, d), "o": (b, hq, s_q, d)}
        self.strides = {"q": (s_q * hq * d, d, hq * d, 1), "k": (s_kv * hk * d, d, hk * d, 1),
                        "o": (s_q * hq * d, d, hq * d, 1)}
        one = lambda x: torch.full((1, 1, 1, 1), x, dtype=torch.float32, device=device)  # noqa: E731
        self.scalars = {"descale_q": one(1.0), "descale_k": one(1.0), "descale_v": one(1.0),
                        "descale_s": one(1.0 / E4M3_MAX_POW2), "scale_s": one(E4M3_MAX_POW2), "scale_o": one(1.0)}
        self.amax = {"amax_s": one(0.0), "amax_o": one(0.0)}
        refusals = []
        for out_type in (cudnn.data_type.BFLOAT16, cudnn.data_type.FP8_E4M3):
            try:
                self.graph, self.t = self._build(out_type)
            except cudnn.cudnnGraphNotSupportedError as exc:
                refusals.append(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
                continue
            self.fp8_out = out_type == cudnn.data_type.FP8_E4M3
            break
        else:
            raise ValueError("cuDNN refused the FP8 attention graph: " + "; ".join(dict.fromkeys(refusals)))
        self.workspace = torch.empty(max(1, self.graph.get_workspace_size()), dtype=torch.uint8, device=device)
        self.descale_o, self.scaled_for = 1.0, None
        self.facts = {"cudnn_backend_version": float(cudnn.backend_version()), "fp8_output": float(self.fp8_out)}

    def _build(self, out_type):
        c = self.cudnn
        g = c.pygraph(io_data_type=c.data_type.FP8_E4M3, intermediate_data_type=c.data_type.FLOAT,
                      compute_data_type=c.data_type.FLOAT, handle=self.handle)
        t = {n: g.tensor(dim=self.dims["k" if n == "v" else n], stride=self.strides["k" if n == "v" else n],
                         data_type=c.data_type.FP8_E4M3) for n in ("q", "k", "v")}
        t.update({n: g.tensor(dim=(1, 1, 1, 1), stride=(1, 1, 1, 1), data_type=c.data_type.FLOAT)
                  for n in self.scalars})
        p = self.point
        mask = {}
        if p.mask == schema.Mask.CAUSAL:
            align = c.diagonal_alignment.TOP_LEFT if p.q_len == p.kv_len else c.diagonal_alignment.BOTTOM_RIGHT
            mask = {"diagonal_alignment": align, "right_bound": 0}
        o, _, amax_s, amax_o = g.sdpa_fp8(q=t["q"], k=t["k"], v=t["v"], **{n: t[n] for n in self.scalars},
                                          generate_stats=False, attn_scale=p.head_dim**-0.5, **mask)
        o.set_output(True).set_dim(list(self.dims["o"])).set_stride(list(self.strides["o"])).set_data_type(out_type)
        for name, x in (("amax_s", amax_s), ("amax_o", amax_o)):
            x.set_output(True).set_dim([1, 1, 1, 1]).set_stride([1, 1, 1, 1]).set_data_type(c.data_type.FLOAT)
            t[name] = x
        t["o"] = o
        g.validate()
        g.build_operation_graph()
        g.create_execution_plans([c.heur_mode.A, c.heur_mode.FALLBACK])
        g.check_support()
        g.build_plans()
        return g, t

    def _scale_output(self, v) -> None:
        """scale_o from V's largest value, once per V (outside the timed calls: same tensor)."""
        amax = float(v.detach().float().abs().amax())  # float8 has few kernels of its own
        scale = 2.0 ** math.floor(math.log2(448.0 / amax)) if amax > 0 else 1.0
        self.scalars["scale_o"].fill_(scale)
        self.descale_o, self.scaled_for = 1.0 / scale, v.data_ptr()

    def forward(self, q, k, v):
        if self.fp8_out and self.scaled_for != v.data_ptr():
            self._scale_output(v)
        b, h, s, d = self.dims["o"]
        buf = torch.empty(b, s, h, d, dtype=torch.float8_e4m3fn if self.fp8_out else torch.bfloat16,
                          device=q.device)
        out = buf.transpose(1, 2)
        pack = {self.t["q"]: q, self.t["k"]: k, self.t["v"]: v, self.t["o"]: out}
        pack.update({self.t[n]: x for n, x in {**self.scalars, **self.amax}.items()})
        self.cudnn.set_stream(self.handle, torch.cuda.current_stream(q.device).cuda_stream)
        self.graph.execute(pack, self.workspace, handle=self.handle)
        if not self.fp8_out:
            return out
        # On the contiguous buffer rather than the transposed view. Either way
        # PyTorch casts float8 with its unrolled (not vectorised) copy kernel:
        # 0.42 ms at 16k tokens on the H200, and the descale 0.12 ms more, in
        # the call's time (the published cuDNN figure times FP8 output alone).
        return buf.to(torch.bfloat16).mul_(self.descale_o).transpose(1, 2)


FA4_MISSING = ("the optional flash-attn-4 package (FlashAttention-4, flash_attn.cute) is not installed "
               "(pip install .[fa4])")
FA4_PAGE = 128  # tokens per page of the paged cache, as FlexPagedAttention's; fewer at toy sizes


def _fa4():
    """(flash_attn.cute (optional extra), the seconds its import took here: 0 once imported), or a
    ValueError saying how to get it. The first import loads the CuTe DSL: a cost of the process."""
    fresh = "flash_attn.cute" not in sys.modules
    t0 = time.perf_counter()
    try:
        from flash_attn import cute
    except ImportError as exc:
        if exc.name in ("flash_attn", "flash_attn.cute"):
            raise ValueError(FA4_MISSING) from exc
        # e.g. "No module named 'cutlass'": the CuTe DSL is found through a .pth file, which
        # Python reads from site directories only (wheels unpacked by hand need it on PYTHONPATH)
        raise ValueError(f"flash_attn.cute failed to import: {exc} (pip install .[fa4]; wheels unpacked by "
                         f"hand need DIR and DIR/nvidia_cutlass_dsl/dsl_packages on PYTHONPATH)") from exc
    except Exception as exc:  # it loads the CuTe DSL's libraries when imported: a broken install says so
        raise ValueError(f"flash_attn.cute failed to import: {type(exc).__name__}: {exc} "
                         f"(pip install .[fa4])") from exc
    return cute, (time.perf_counter() - t0 if fresh else 0.0)


@dataclass(frozen=True)
class FA4Plan:
    """How a point's attention is asked of FlashAttention-4 (flash_attn.cute),
    with no tensor made: `varlen` (flash_attn_varlen_func, else
    flash_attn_func), its keyword arguments, the packed documents'
    cumulative lengths (the same for queries and keys) and the paged
    cache's page size and pages per sequence. Causal and every window are
    bottom-right aligned in FlashAttention (queries at the end of the cache,
    as here); window_size=(left, 0) lets a query see itself and `left` keys
    before it, so a window of W tokens is left = W - 1. Grouped KV heads go
    in as they are: the kernel maps query heads to KV heads itself."""

    varlen: bool
    kwargs: dict
    cu_seqlens: tuple[int, ...] | None = None
    page_size: int | None = None
    pages_per_seq: int | None = None

    @classmethod
    def of(cls, point: schema.Point, paged: bool = False, deterministic: bool = False) -> FA4Plan:
        masks = (schema.Mask.NONE, schema.Mask.CAUSAL, schema.Mask.SLIDING, schema.Mask.DOCUMENT)
        if point.mask not in masks:
            raise ValueError(f"FlashAttention-4 takes causal, sliding-window, packed-document and unmasked attention; "
                             f"mask {point.mask!r} is no argument of flash_attn.cute")
        if point.q_heads % point.kv_heads:
            raise ValueError(f"{point.q_heads} query heads do not group over {point.kv_heads} KV heads")
        kwargs: dict = {"causal": point.mask != schema.Mask.NONE}
        if point.mask == schema.Mask.SLIDING:
            kwargs["window_size"] = (point.window - 1, 0)
        if deterministic:
            kwargs["deterministic"] = True
        if point.mask == schema.Mask.DOCUMENT:
            if paged:
                raise ValueError("the paged cache here holds whole sequences, not packed documents")
            if not point.docs or sum(point.docs) != point.kv_len or point.q_len != point.kv_len:
                raise ValueError(f"mask 'document' needs document lengths adding up to the sequence, not {point.docs}")
            lengths = list(point.docs) * point.batch  # every batch element holds the same pack
            kwargs["max_seqlen_q"] = kwargs["max_seqlen_k"] = max(lengths)
            return cls(True, kwargs, tuple(itertools.accumulate(lengths, initial=0)))
        if paged:
            page = math.gcd(FA4_PAGE, point.kv_len)
            if page < 16:
                raise ValueError(f"the paged cache here holds whole pages of 16 tokens or more, not {point.kv_len} "
                                 f"tokens")
            return cls(True, kwargs, page_size=page, pages_per_seq=point.kv_len // page)
        return cls(False, kwargs)

    def page_table(self, batch: int, seed: int = 0) -> list[list[int]]:
        """Each sequence's pages, in order, drawn shuffled (a real cache's pages are
        wherever they were free): (batch, pages per sequence), every page once."""
        order = list(range(batch * self.pages_per_seq))
        random.Random(seed).shuffle(order)
        return [order[b * self.pages_per_seq:(b + 1) * self.pages_per_seq] for b in range(batch)]


class FA4Attention(nn.Module):
    """FlashAttention-4 (flash_attn.cute, CuTe DSL kernels compiled on the
    first call of each new configuration) as FA4Plan asks it: flash_attn_func
    over (B, S, H, D) views of the inputs (make_inputs' bshd layout: no copy);
    flash_attn_varlen_func over the packed tokens with cu_seqlens for packed
    documents; or, paged, over a cache of pages found through page_table
    (with seqused_k, each sequence's length), filled from the contiguous K and V on the first call with them, outside
    every timed call. The output goes back as a (B, H, S, D) view."""

    def __init__(self, point: schema.Point, device: torch.device, paged: bool = False,
                 deterministic: bool = False, api=None):
        super().__init__()
        self.api = api if api is not None else _fa4()[0]
        self.plan = plan = FA4Plan.of(point, paged, deterministic)
        self.cu = None if plan.cu_seqlens is None else torch.tensor(plan.cu_seqlens, dtype=torch.int32,
                                                                      device=device)
        self.page_table = self.seqused_k = None
        if plan.page_size:
            self.page_table = torch.tensor(plan.page_table(point.batch), dtype=torch.int32, device=device)
            # each sequence's length said, not left to the page table's width
            self.seqused_k = torch.full((point.batch,), point.kv_len, dtype=torch.int32, device=device)
        self.filled_from = None  # weak references to the K and V the cache holds
        self.k_cache = self.v_cache = None

    def _fill(self, k, v):
        ks, vs = k.transpose(1, 2), v.transpose(1, 2)
        b, _, h, d = ks.shape
        shape = (b * self.plan.pages_per_seq, self.plan.page_size, h, d)
        where = self.page_table.flatten().long()
        self.k_cache, self.v_cache = (torch.empty(shape, dtype=t.dtype, device=t.device) for t in (ks, vs))
        self.k_cache[where] = ks.detach().reshape(shape)
        self.v_cache[where] = vs.detach().reshape(shape)
        # Weak references, not addresses: a freed tensor's memory comes back to the next one.
        self.filled_from = (weakref.ref(k), weakref.ref(v))

    def _filled_with(self, k, v) -> bool:
        return self.filled_from is not None and self.filled_from[0]() is k and self.filled_from[1]() is v

    def forward(self, q, k, v):
        b, h, s, d = q.shape
        qs, ks, vs = (t.transpose(1, 2) for t in (q, k, v))
        plan = self.plan
        if plan.page_size:
            if not self._filled_with(k, v):
                self._fill(k, v)
            out = self.api.flash_attn_varlen_func(qs, self.k_cache, self.v_cache, page_table=self.page_table,
                                                  seqused_k=self.seqused_k, **plan.kwargs)
        elif plan.varlen:
            packed = [t.reshape(-1, t.shape[2], d) for t in (qs, ks, vs)]
            out = self.api.flash_attn_varlen_func(*packed, cu_seqlens_q=self.cu, cu_seqlens_k=self.cu, **plan.kwargs)
        else:
            out = self.api.flash_attn_func(qs, ks, vs, **plan.kwargs)
        out = out[0] if isinstance(out, tuple) else out  # (out, lse)
        return out.reshape(b, s, h, d).transpose(1, 2)
