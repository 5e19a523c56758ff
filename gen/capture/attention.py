"""The attention implementations that the variants pin down, and their float64 reference.

Takes: a `schema.Point` (batch, query and KV heads, head dim, query and KV
lengths, mask) and a device. Gives: `build(kind, backend, point, device) ->
Built`, a callable `fn(q, k, v)` plus the context it must run inside (a
pinned SDPA backend); `make_inputs(point, ...)` (q of the query heads, k and v
of the KV heads); `reference_slice` / `reference_grads` (float64 attention
on one batch element and a few heads, with the same mask and GQA mapping) and
`rel_error`. Imports torch: only the capture stage uses this module. The
report shows the source of these classes, read from this file's text.

Queries sit at the end of the sequence (decode: the newest token), so query i
is at position kv_len - q_len + i. Causal: a query sees keys at or before its
position; sliding: and fewer than `window` tokens back; none: every key.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import itertools
import logging
import math
import os
import random
import re
import sys
import tempfile
import time
import warnings
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel

from gen.model import said as pytorch_said
from gen.model import schema
from gen.model.variants import BACKEND_ENUM

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
if hasattr(torch, "float8_e4m3fn"):
    DTYPES["fp8_e4m3"] = torch.float8_e4m3fn


def masked_out(point: schema.Point, device, rows: slice = slice(None)) -> torch.Tensor | None:
    """Boolean (q_len, kv_len), True where a query may not look; None when nothing is masked."""
    if point.mask == schema.Mask.NONE:
        return None
    start, stop, _ = rows.indices(point.q_len)
    pos = torch.arange(start, stop, device=device)[:, None] + (point.kv_len - point.q_len)
    key = torch.arange(point.kv_len, device=device)[None, :]
    out = key > pos
    if point.mask == schema.Mask.SLIDING:
        out |= pos - key >= point.window
    if point.mask == schema.Mask.DOCUMENT:
        doc = document_ids(point, device)
        out |= doc[pos] != doc[key]
    return out


def document_ids(point: schema.Point, device) -> torch.Tensor:
    """The document each position of a pack belongs to (Mask.DOCUMENT)."""
    if not point.docs or sum(point.docs) != point.kv_len or point.q_len != point.kv_len:
        raise ValueError(f"mask 'document' needs document lengths adding up to the sequence, not {point.docs}")
    lengths = torch.tensor(point.docs, device=device)
    return torch.repeat_interleave(torch.arange(len(point.docs), device=device), lengths)


class NaiveAttention(nn.Module):
    """softmax(q kᵀ · scale + mask) v, one primitive op at a time. With fewer
    KV heads than query heads, each KV head is copied out per query head."""

    def __init__(self, point: schema.Point, device: torch.device):
        super().__init__()
        self.scale = point.head_dim**-0.5
        self.groups = point.q_heads // point.kv_heads
        # Built once here, so no forward pays for it.
        self.register_buffer("mask", masked_out(point, device))

    def forward(self, q, k, v):
        if self.groups > 1:
            k = k.repeat_interleave(self.groups, dim=1)
            v = v.repeat_interleave(self.groups, dim=1)
        scores = q @ k.transpose(-2, -1)
        scores = scores * self.scale
        if self.mask is not None:
            scores = scores.masked_fill(self.mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return weights @ v


class NaiveInplaceAttention(NaiveAttention):
    """The same, masking in place with masked_fill_."""

    def forward(self, q, k, v):
        if self.groups > 1:
            k = k.repeat_interleave(self.groups, dim=1)
            v = v.repeat_interleave(self.groups, dim=1)
        scores = q @ k.transpose(-2, -1)
        scores = scores * self.scale
        if self.mask is not None:
            scores.masked_fill_(self.mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return weights @ v


class SDPAttention(nn.Module):
    """F.scaled_dot_product_attention; the backend is pinned outside. Square
    causal attention uses is_causal; any other mask goes in as an explicit
    boolean attn_mask (True: may attend), which some backends refuse."""

    def __init__(self, point: schema.Point, device: torch.device):
        super().__init__()
        self.is_causal = point.mask == schema.Mask.CAUSAL and point.q_len == point.kv_len
        self.gqa = point.q_heads != point.kv_heads
        mask = None if self.is_causal else masked_out(point, device)
        self.register_buffer("allowed", None if mask is None else ~mask)

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=self.allowed, is_causal=self.is_causal,
                                              enable_gqa=self.gqa)

    def sdpa_args(self, q, k, v):
        """What reaches SDPA's dispatcher: (q, k, v), attn_mask, is_causal, enable_gqa."""
        return (q, k, v), self.allowed, self.is_causal, self.gqa


class FlexBlockMaskAttention(nn.Module):
    """flex_attention with a block mask made once per shape from the mask's
    rule (none when nothing is masked), and its own GQA. For a few query
    tokens flex_attention picks its decoding kernel by itself."""

    def __init__(self, point: schema.Point, device: torch.device):
        super().__init__()
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention

        offset, window = point.kv_len - point.q_len, point.window

        def causal(b, h, q_idx, kv_idx):
            return q_idx + offset >= kv_idx

        def sliding(b, h, q_idx, kv_idx):
            return (q_idx + offset >= kv_idx) & (q_idx + offset - kv_idx < window)

        doc = document_ids(point, device) if point.mask == schema.Mask.DOCUMENT else None

        def document(b, h, q_idx, kv_idx):
            return (q_idx >= kv_idx) & (doc[q_idx] == doc[kv_idx])

        rule = {schema.Mask.CAUSAL: causal, schema.Mask.SLIDING: sliding,
                schema.Mask.DOCUMENT: document}.get(point.mask)
        # Its build time and sparsity are facts of the set (SweepPoint.facts).
        self.facts: dict[str, float] = {}
        self.block_mask = None
        if rule is not None:
            _sync(device)
            t0 = time.perf_counter()
            self.block_mask = create_block_mask(rule, B=None, H=None, Q_LEN=point.q_len, KV_LEN=point.kv_len,
                                                device=device)
            _sync(device)
            self.facts["block_mask_build_s"] = time.perf_counter() - t0
            self.facts["block_mask_sparsity_pct"] = skipped_blocks_pct(self.block_mask, point)
        self.gqa = point.q_heads != point.kv_heads
        self.flex = torch.compile(flex_attention)
        self.kernel_options = None

    def forward(self, q, k, v):
        return self.flex(q, k, v, block_mask=self.block_mask, enable_gqa=self.gqa,
                         kernel_options=self.kernel_options)


def skipped_blocks_pct(block_mask, point: schema.Point) -> float:
    """The share of (query block, KV block) tiles a block mask skips, in %.
    Counted on tiles, not tokens: BlockMask.sparsity() divides by tokens and
    goes negative when a sequence is shorter than a block."""
    cols = math.ceil(point.kv_len / block_mask.BLOCK_SIZE[1])
    done = block_mask.kv_num_blocks.sum().item()
    if block_mask.full_kv_num_blocks is not None:
        done += block_mask.full_kv_num_blocks.sum().item()
    counts = block_mask.kv_num_blocks.numel()  # one per (batch, head, query block)
    return 100.0 * (1.0 - done / (counts * cols))


class FlexForcedKernel(FlexBlockMaskAttention):
    """The same, with FlexAttention's main Triton kernel forced
    (kernel_options BACKEND="TRITON"): below 128 queries it would otherwise
    pick its decoding kernel (BACKEND="TRITON_DECODE") by itself."""

    def __init__(self, point: schema.Point, device: torch.device):
        super().__init__(point, device)
        self.kernel_options = {"BACKEND": "TRITON"}


class FlexFlashAttention(FlexBlockMaskAttention):
    """The same block masks, with FlexAttention's FLASH backend
    (kernel_options BACKEND="FLASH"): Inductor generates a FlashAttention-4
    kernel (CuTe DSL, from the flash-attn-4 package) instead of a Triton one.
    fullgraph=True: past dynamo's recompile limit the call raises instead of
    running flex_attention's unfused fallback (the whole score matrix), so no
    fallback is ever timed. dynamic=False: the FLASH backend takes no
    symbolic scalar captured by a mask_mod (the offset, the window)."""

    def __init__(self, point: schema.Point, device: torch.device):
        super().__init__(point, device)
        from torch.nn.attention.flex_attention import flex_attention

        self.flex = torch.compile(flex_attention, fullgraph=True, dynamic=False)
        self.kernel_options = {"BACKEND": "FLASH"}


class FlexPagedAttention(nn.Module):
    """flex_attention reading K and V from a paged cache (PyTorch's
    experimental PagedAttention): fixed pages of 128 tokens, placed in a
    shuffled order, found through a page table by the converted block mask.
    The cache is filled from the contiguous K and V once, on the first call
    with them, outside every timed call."""

    PAGE = 128  # tokens per page (the block mask's KV block size must match); fewer at toy sizes

    def __init__(self, point: schema.Point, device: torch.device):
        super().__init__()
        from torch.nn.attention.experimental._paged_attention import PagedAttention
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention

        self.PAGE = math.gcd(self.PAGE, point.kv_len)
        if point.mask != schema.Mask.NONE or self.PAGE < 16:
            raise ValueError(f"the paged cache here holds whole pages (16 tokens or more) of an unmasked "
                             f"cache, not mask {point.mask} over {point.kv_len} tokens")
        self.point, per_seq = point, point.kv_len // self.PAGE
        n_pages = point.batch * per_seq
        self.paged = PagedAttention(n_pages, self.PAGE, point.batch, device=str(device))
        # Shuffled pages: a real cache's pages are wherever they were free.
        order = torch.randperm(n_pages, generator=torch.Generator().manual_seed(0)).tolist()
        self.paged.empty_pages = order
        for b in range(point.batch):
            self.paged.reserve(torch.tensor(b, device=device), torch.tensor(point.kv_len, device=device))

        def everything(b, h, q_idx, kv_idx):
            return q_idx >= 0

        logical = create_block_mask(everything, B=point.batch, H=None, Q_LEN=point.q_len, KV_LEN=point.kv_len,
                                    device=device, BLOCK_SIZE=self.PAGE)
        self.block_mask = self.paged.convert_logical_block_mask(logical)
        self.gqa = point.q_heads != point.kv_heads
        self.flex = torch.compile(flex_attention)
        self.filled_from = None
        self.k_cache = self.v_cache = None

    def _fill(self, k, v):
        p = self.point
        shape = (1, p.kv_heads, self.paged.n_pages * self.PAGE, p.head_dim)
        self.k_cache = torch.zeros(shape, dtype=k.dtype, device=k.device)
        self.v_cache = torch.zeros(shape, dtype=v.dtype, device=v.device)
        batch = torch.arange(p.batch, device=k.device)
        pos = torch.arange(p.kv_len, device=k.device)[None, :].expand(p.batch, -1)
        self.paged.assign(batch, pos, k.detach(), v.detach(), self.k_cache, self.v_cache)
        self.filled_from = (k.data_ptr(), v.data_ptr())

    def forward(self, q, k, v):
        if self.filled_from != (k.data_ptr(), v.data_ptr()):
            self._fill(k, v)
        return self.flex(q, self.k_cache, self.v_cache, block_mask=self.block_mask, enable_gqa=self.gqa)


CUDNN_MISSING = ("the optional nvidia-cudnn-frontend package is not installed "
                 "(pip install .[cudnn])")
E4M3_MAX_POW2 = 256.0  # the largest power of two under float8 e4m3's 448: scales stay exact


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


def _varlen_api():
    """torch.nn.attention.varlen.varlen_attn and the keyword arguments it
    takes in this PyTorch, or a ValueError saying it is missing."""
    try:
        from torch.nn.attention.varlen import varlen_attn
    except ImportError as exc:
        raise ValueError(f"torch.nn.attention.varlen.varlen_attn is not in torch {torch.__version__} "
                         f"({exc})") from exc
    return varlen_attn, set(inspect.signature(varlen_attn).parameters)


def _cu_seqlens(lengths: list[int], device) -> torch.Tensor:
    return torch.tensor([0, *itertools.accumulate(lengths)], dtype=torch.int32, device=device)


class VarlenAttention(nn.Module):
    """torch.nn.attention.varlen.varlen_attn (FlashAttention-2's variable-length
    kernel) over packed (tokens, heads, D) tensors with cumulative lengths:
    one sequence per batch element, or one per document of a pack. Inputs
    come in (B, S, H, D) memory, so the packed view costs no copy. Causal is
    window_size=(-1, 0) (bottom-right aligned: queries at the end of the
    cache); a sliding window passes its left size so that a query sees
    exactly `window` keys, the edge convention measured first."""

    def __init__(self, point: schema.Point, device: torch.device):
        super().__init__()
        self.attn, params = _varlen_api()
        self.point = point
        if point.mask == schema.Mask.DOCUMENT:
            q_lens = k_lens = list(point.docs)
        else:
            q_lens, k_lens = [point.q_len] * point.batch, [point.kv_len] * point.batch
        self.cu_q, self.cu_k = _cu_seqlens(q_lens, device), _cu_seqlens(k_lens, device)
        self.max_q, self.max_k = max(q_lens), max(k_lens)
        self.kwargs: dict = {}
        self.facts: dict[str, float] = {}
        if point.q_heads != point.kv_heads and "enable_gqa" in params:
            self.kwargs["enable_gqa"] = True
        causal = point.mask in (schema.Mask.CAUSAL, schema.Mask.SLIDING, schema.Mask.DOCUMENT)
        if point.mask == schema.Mask.SLIDING:
            if "window_size" not in params:
                raise ValueError(f"varlen_attn in torch {torch.__version__} takes no window_size")
            extra = self._window_edge(point, device)
            self.facts["window_extra_keys"] = float(extra)
            self.kwargs["window_size"] = (point.window - extra, 0)
        elif causal:
            self.kwargs.update({"window_size": (-1, 0)} if "window_size" in params else {"is_causal": True})

    def _window_edge(self, point: schema.Point, device) -> int:
        """How many keys beyond W a query sees with window_size=(W, 0): run
        a small case (64 tokens, W=8) against float64 with W and W+1 keys."""
        n, w, d = 64, 8, point.head_dim
        g = torch.Generator(device=device).manual_seed(1)
        q, k, v = (torch.randn(n, 1, d, generator=g, device=device).to(torch.bfloat16) for _ in range(3))
        cu = _cu_seqlens([n], device)
        out = self.attn(q, k, v, cu, cu, n, n, window_size=(w, 0))
        errs = []
        for keys in (w, w + 1):
            p = schema.Point(1, 1, 1, d, n, n, schema.Mask.SLIDING, window=keys)
            ref = _attend64(q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1), p, slice(None))
            errs.append(rel_error(out.transpose(0, 1), ref))
        return int(errs[1] < errs[0])

    def forward(self, q, k, v):
        b, h, s, d = q.shape
        packed = [t.transpose(1, 2).reshape(-1, t.shape[1], d) for t in (q, k, v)]
        out = self.attn(*packed, self.cu_q, self.cu_k, self.max_q, self.max_k, **self.kwargs)
        return out.view(b, s, h, d).transpose(1, 2)


class NestedJaggedAttention(nn.Module):
    """SDPA on nested jagged tensors (torch.nested, layout=torch.jagged): one
    document per nested row, causal within it. The nested tensors are views
    of the packed inputs; KV heads are repeated for each query head, as
    nested SDPA takes no enable_gqa."""

    def __init__(self, point: schema.Point, device: torch.device):
        super().__init__()
        if point.mask != schema.Mask.DOCUMENT:
            raise ValueError("nested jagged tensors stand here for packed documents (mask 'document') only")
        self.offsets = _cu_seqlens(list(point.docs), device).long()
        self.max_len = max(point.docs)
        self.groups = point.q_heads // point.kv_heads

    def nest(self, t, kv: bool = False):
        values = t[0].transpose(0, 1)  # (tokens, heads, D): a view of (B, S, H, D) memory
        if kv and self.groups > 1:
            values = values.repeat_interleave(self.groups, dim=1)
        nt = torch.nested.nested_tensor_from_jagged(values, self.offsets, min_seqlen=1, max_seqlen=self.max_len)
        return nt.transpose(1, 2)  # (documents, heads, jagged, D)

    def forward(self, q, k, v):
        out = F.scaled_dot_product_attention(self.nest(q), self.nest(k, True), self.nest(v, True), is_causal=True)
        return out.transpose(1, 2).values().unsqueeze(0).transpose(1, 2)


class PaddedBatchAttention(nn.Module):
    """What many training loops do: each document copied into a row of a
    batch padded to the longest, SDPA with is_causal=True over the batch
    (right padding leaves every real row exact), the real rows gathered back.
    The gathers are in the call; the padded rows are computed and thrown away."""

    def __init__(self, point: schema.Point, device: torch.device):
        super().__init__()
        if point.mask != schema.Mask.DOCUMENT:
            raise ValueError("the padded batch stands here for packed documents (mask 'document') only")
        docs, self.width = list(point.docs), max(point.docs)
        starts = [0, *itertools.accumulate(docs)][:-1]
        # Padded slot -> packed token (pad slots read token 0); real token -> padded slot.
        src = torch.zeros(len(docs), self.width, dtype=torch.long)
        keep = []
        for i, (s0, n) in enumerate(zip(starts, docs)):
            src[i, :n] = torch.arange(s0, s0 + n)
            keep.append(torch.arange(i * self.width, i * self.width + n))
        self.register_buffer("src", src.flatten().to(device))
        self.register_buffer("keep", torch.cat(keep).to(device))
        self.rows = len(docs)
        self.gqa = point.q_heads != point.kv_heads

    def pad(self, t):
        h, d = t.shape[1], t.shape[-1]
        return t[0][:, self.src].view(h, self.rows, self.width, d).transpose(0, 1)

    def forward(self, q, k, v):
        out = F.scaled_dot_product_attention(self.pad(q), self.pad(k), self.pad(v), is_causal=True,
                                             enable_gqa=self.gqa)
        h, d = out.shape[1], out.shape[-1]
        return out.transpose(0, 1).reshape(h, -1, d)[:, self.keep].unsqueeze(0)

    def sdpa_args(self, q, k, v):
        return (self.pad(q), self.pad(k), self.pad(v)), None, True, self.gqa


class SDPAIsCausal(nn.Module):
    """F.scaled_dot_product_attention with is_causal=True whatever the
    workload: the mask is aligned to the top-left corner over the whole
    sequence. Right for square causal attention only; with queries at the
    end of a longer cache, or over packed documents, it is wrong (kept as a
    labelled scale reference; its error is measured)."""

    def __init__(self, point: schema.Point, device: torch.device):
        super().__init__()
        self.gqa = point.q_heads != point.kv_heads

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=self.gqa)

    def sdpa_args(self, q, k, v):
        return (q, k, v), None, True, self.gqa


class SDPALowerRight(nn.Module):
    """F.scaled_dot_product_attention with torch.nn.attention.bias.causal_lower_right:
    the causal mask aligned to the bottom-right corner, so the last query
    sees the whole cache. It dispatches by itself (CausalBias._dispatch): to
    flash when it can, else the efficient kernel, else math with the mask
    materialised; never to cuDNN."""

    def __init__(self, point: schema.Point, device: torch.device):
        super().__init__()
        from torch.nn.attention.bias import causal_lower_right

        if point.mask != schema.Mask.CAUSAL:
            raise ValueError(f"causal_lower_right is a causal mask, not {point.mask}")
        self.bias = causal_lower_right(point.q_len, point.kv_len)
        self.gqa = point.q_heads != point.kv_heads

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=self.bias, enable_gqa=self.gqa)


def _sync(device) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


@contextlib.contextmanager
def deterministic():
    """torch.use_deterministic_algorithms(True) inside, as it was after. With
    PyTorch's defaults, so new memory is also filled (fill_uninitialized_memory)."""
    before = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(before, warn_only=warn_only)


@dataclass
class Built:
    """A variant ready to call. Beyond fn and context, what capture needs to
    call it generically: `layout` of the inputs it wants from make_inputs
    (bhsd; bshd: (B, S, H, D) memory seen as (B, H, S, D), so packed views
    cost no copy; v_col: V column-major, as FP8 GEMMs want it), `dtype`
    when it sets its own (a DTYPES key), `facts` it measured while being
    built (SweepPoint.facts), and `explain(q, k, v)` -> (choice, reasons) for
    unpinned SDPA (SweepPoint.sdpa_choice / backend_reasons), else None."""

    fn: Callable
    context: Callable[[], contextlib.AbstractContextManager]
    compiled: bool = False
    layout: str = "bhsd"
    dtype: str | None = None
    facts: dict[str, float] = field(default_factory=dict)
    explain: Callable | None = None


# SDPA's backends as PyTorch's checks name them: the key stored, the check.
_SDPA_CHECKS = {
    "flash": "can_use_flash_attention",
    "efficient": "can_use_efficient_attention",
    "cudnn": "can_use_cudnn_attention",
}
_BACKEND_NAMES = {"FLASH_ATTENTION": "flash", "EFFICIENT_ATTENTION": "efficient", "CUDNN_ATTENTION": "cudnn",
                  "MATH": "math", "OVERRIDEABLE": "overrideable", "ERROR": "none"}
ELIGIBLE = "eligible"


# c10's warnings as its default handler prints them on stderr:
# "[W... file.cpp:457] Warning: <message> (function <name>)".
_CPP_WARNING = re.compile(r"Warning: (.*?)(?: \(function \w+\))?\s*$")
_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?")


@contextlib.contextmanager
def said_by_pytorch(out: list[str]):
    """What PyTorch says inside: Python warnings, and the C++ warnings that
    torch.backends.cuda.can_use_*(debug=True) writes straight to stderr (file
    descriptor 2, not Python's warnings) on torch 2.11, read back from a
    temporary file. Messages, in order, once each, into `out`."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            text = tmp.read().decode(errors="replace")
    said = [str(w.message) for w in caught]
    for line in text.splitlines():
        m = _CPP_WARNING.search(line)
        said.append(m.group(1) if m else line)
    said = [pytorch_said.plain(_TRIGGERED.sub("", x)) for x in said]
    out.extend(dict.fromkeys(x.rstrip(":") for x in said if x and not x.endswith("not used because:")))


def backend_reasons(q, k, v, mask, is_causal: bool, gqa: bool) -> dict[str, str]:
    """Per fused backend, "eligible" or PyTorch's own reasons for refusing
    these inputs: torch.backends.cuda.can_use_*(SDPAParams(...), debug=True)
    reports them as warnings, kept as text. Math is always eligible when on."""
    out: dict[str, str] = {}
    if q.device.type != "cuda":
        return {name: "not asked: PyTorch's checks are for CUDA tensors" for name in _SDPA_CHECKS}
    try:
        params = torch.backends.cuda.SDPAParams(q, k, v, mask, 0.0, is_causal, gqa)
    except (RuntimeError, TypeError) as exc:  # the signature moved between releases
        return {name: f"not asked: SDPAParams refused ({str(exc).strip().splitlines()[0][:200]})"
                for name in _SDPA_CHECKS}
    for name, check in _SDPA_CHECKS.items():
        fn = getattr(torch.backends.cuda, check, None)
        if fn is None:
            out[name] = f"not asked: torch.backends.cuda has no {check}"
            continue
        said: list[str] = []
        with said_by_pytorch(said):
            try:
                ok = fn(params, debug=True)
            except RuntimeError as exc:
                ok = False
                said.append(str(exc).strip().splitlines()[0])
        out[name] = ELIGIBLE if ok else ("; ".join(said)[:1000] or "refused (PyTorch gave no reason)")
    out["math"] = ELIGIBLE if torch.backends.cuda.math_sdp_enabled() else "disabled"
    return out


class _LogLines(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def nested_reasons(q, k, v, is_causal: bool) -> tuple[str | None, dict[str, str]]:
    """Nested SDPA's own choice (torch.nested._internal.sdpa, private: guarded)
    and, per backend, "eligible" or the reasons it logs: the generic checks
    plus its jagged ones, which it reports through logging, not warnings."""
    try:
        from torch.nested._internal import sdpa as nested_sdpa
    except ImportError as exc:
        return None, {"all": f"not asked: torch.nested._internal.sdpa is missing ({exc})"}
    params = torch.backends.cuda.SDPAParams(q, k, v, None, 0.0, is_causal, False)
    checks = {"flash": ("can_use_flash_attention", "_can_use_flash_sdpa_jagged"),
              "efficient": ("can_use_efficient_attention", "_can_use_efficient_sdpa_jagged"),
              "math": (None, "_can_use_math_sdpa_jagged")}
    reasons: dict[str, str] = {}
    handler = _LogLines()
    nested_sdpa.log.addHandler(handler)
    try:
        for name, (generic, jagged) in checks.items():
            handler.lines.clear()
            said: list[str] = []
            with said_by_pytorch(said):
                ok = generic is None or getattr(torch.backends.cuda, generic)(params, debug=True)
                fn = getattr(nested_sdpa, jagged, None)
                ok = ok and (fn is None or fn(params, debug=True))
            # torch's logger also prints each record on stderr, prefixed: said once, without the prefix
            said = said + [pytorch_said.plain(y) for y in handler.lines]
            reasons[name] = ELIGIBLE if ok else (pytorch_said.reasons("; ".join(said))[:1000]
                                                 or "refused (PyTorch gave no reason)")
        got = nested_sdpa._select_sdp_backend(q, k, v, None, 0.0, is_causal, False)
        choice = _BACKEND_NAMES.get(got.name, got.name.lower())
    except (RuntimeError, TypeError, AttributeError) as exc:
        return None, {**reasons, "error": f"not asked: {str(exc).strip().splitlines()[0][:200]}"}
    finally:
        nested_sdpa.log.removeHandler(handler)
    reasons["cudnn"] = reasons.get("cudnn", "not asked: nested SDPA tries cuDNN last, after math")
    return choice, reasons


def _explain_nested(module):
    @_safe
    def explain(q, k, v):
        return nested_reasons(module.nest(q), module.nest(k, True), module.nest(v, True), True)
    return explain


def sdpa_choice(q, k, v, mask, is_causal: bool, gqa: bool) -> str | None:
    """The backend SDPA's dispatcher picks for these inputs (torch._fused_sdp_choice)."""
    try:
        got = torch._fused_sdp_choice(q, k, v, mask, 0.0, is_causal, enable_gqa=gqa)
    except (RuntimeError, TypeError, AttributeError):
        return None
    return _BACKEND_NAMES.get(SDPBackend(got).name, SDPBackend(got).name.lower())


def _safe(explain):
    """An explanation never fails the point it explains: its error is its answer."""
    def safe(q, k, v):
        try:
            return explain(q, k, v)
        except Exception as exc:  # private or moved APIs; the point still runs
            return None, {"error": f"not asked: {type(exc).__name__}: {str(exc).strip()[:200]}"}
    return safe


def _explain_sdpa(module):
    @_safe
    def explain(q, k, v):
        (q, k, v), mask, is_causal, gqa = module.sdpa_args(q, k, v)
        return sdpa_choice(q, k, v, mask, is_causal, gqa), backend_reasons(q, k, v, mask, is_causal, gqa)
    return explain


def _explain_lower_right(module):
    """CausalBias._dispatch's own order: flash, else efficient, else math with the
    mask materialised, asked with no mask and is_causal False; cuDNN is never asked."""
    def explain(q, k, v):
        reasons = backend_reasons(q, k, v, None, False, module.gqa)
        reasons["cudnn"] = "not asked: the lower-right causal bias dispatches to flash, efficient or math only"
        choice = next((b for b in ("flash", "efficient") if reasons[b] == ELIGIBLE), "math")
        return choice, reasons
    return explain


def _fp8_input_error(point: schema.Point, device) -> float:
    """What rounding q, k, v to float8 e4m3 alone does to the answer: float64
    attention of the rounded inputs against that of the unrounded (N(0, 1)
    draws, one head, the last 256 queries). The kernel's own error adds to it."""
    g = torch.Generator(device=device).manual_seed(2)
    rows = min(256, point.q_len)
    sub = schema.Point(1, 1, 1, point.head_dim, rows, point.kv_len, point.mask, point.window, point.docs)
    if point.mask == schema.Mask.DOCUMENT:
        sub = dataclasses.replace(sub, q_len=point.kv_len)
    x = [torch.randn(1, sub.q_len if i == 0 else sub.kv_len, point.head_dim, generator=g, device=device)
         for i in range(3)]
    r = [t.to(torch.float8_e4m3fn) for t in x]
    return rel_error(_attend64(*r, sub, slice(None)), _attend64(*x, sub, slice(None)))


def _sdpa(backend, point, device) -> Built:
    module = SDPAttention(point, device)
    if backend is None:
        return Built(module, contextlib.nullcontext, explain=_explain_sdpa(module))
    pinned = getattr(SDPBackend, BACKEND_ENUM[backend])
    return Built(module, lambda: sdpa_kernel(pinned))


def _sdpa_deterministic(backend, point, device) -> Built:
    pinned = getattr(SDPBackend, BACKEND_ENUM[backend])

    @contextlib.contextmanager
    def both():
        with sdpa_kernel(pinned), deterministic():
            yield
    return Built(SDPAttention(point, device), both)


def _flex(backend, point, device) -> Built:
    module = FlexBlockMaskAttention(point, device)
    return Built(module, contextlib.nullcontext, compiled=True, facts=module.facts)


def _flex_triton(backend, point, device) -> Built:
    module = FlexForcedKernel(point, device)
    return Built(module, contextlib.nullcontext, compiled=True, facts=module.facts)


def _flex_fp8(backend, point, device) -> Built:
    if "fp8_e4m3" not in DTYPES:
        raise ValueError(f"torch {torch.__version__} has no float8_e4m3fn")
    module = FlexBlockMaskAttention(point, device)
    facts = {**module.facts, "fp8_input_rounding_error": _fp8_input_error(point, device)}
    return Built(module, contextlib.nullcontext, compiled=True, layout="v_col", dtype="fp8_e4m3", facts=facts)


def _cudnn_fp8(backend, point, device) -> Built:
    if "fp8_e4m3" not in DTYPES:
        raise ValueError(f"torch {torch.__version__} has no float8_e4m3fn")
    module = CudnnFP8Attention(point, device)
    facts = {**module.facts, "fp8_input_rounding_error": _fp8_input_error(point, device)}
    return Built(module, contextlib.nullcontext, layout="bshd", dtype="fp8_e4m3", facts=facts)


def _flex_flash(backend, point, device) -> Built:
    _fa4()  # Inductor generates the FLASH backend's kernels with flash_attn.cute
    if device.type != "cuda":
        raise ValueError(f"FlexAttention's FLASH backend generates CUDA kernels (CuTe DSL): it runs on CUDA GPUs, "
                         f"not on {device.type}")
    module = FlexFlashAttention(point, device)
    return Built(module, contextlib.nullcontext, compiled=True, facts=module.facts)


def _fa4_kind(paged: bool = False, deterministic: bool = False):
    """A builder of FA4Attention. compiled: the CuTe DSL compiles its kernels on the first call
    of each new configuration (seconds), like torch.compile at a new shape."""
    def make(backend, point, device) -> Built:
        api, import_s = _fa4()
        if device.type != "cuda":
            raise ValueError(f"FlashAttention-4 runs on CUDA GPUs, not on {device.type}")
        module = FA4Attention(point, device, paged=paged, deterministic=deterministic, api=api)
        # The process's first import of flash_attn.cute, where this build paid it (a cost beside the compile).
        facts = {"fa4_import_s": import_s} if import_s else {}
        return Built(module, contextlib.nullcontext, compiled=True, layout="bshd", facts=facts)
    return make


def _varlen(backend, point, device) -> Built:
    module = VarlenAttention(point, device)
    return Built(module, contextlib.nullcontext, layout="bshd", facts=module.facts)


def _explained(cls, explainer, layout: str = "bhsd"):
    def make(backend, point, device) -> Built:
        module = cls(point, device)
        return Built(module, contextlib.nullcontext, layout=layout,
                     explain=explainer(module) if explainer else None)
    return make


_BUILDERS: dict[str, Callable[..., Built]] = {
    "naive": lambda b, p, d: Built(NaiveAttention(p, d), contextlib.nullcontext),
    "naive_inplace": lambda b, p, d: Built(NaiveInplaceAttention(p, d), contextlib.nullcontext),
    "naive_compiled": lambda b, p, d: Built(torch.compile(NaiveAttention(p, d)), contextlib.nullcontext,
                                            compiled=True),
    "sdpa": _sdpa,
    "sdpa_deterministic": _sdpa_deterministic,
    "flex": _flex,
    "flex_triton": _flex_triton,
    "flex_fp8": _flex_fp8,
    "cudnn_fp8": _cudnn_fp8,
    "flex_paged": lambda b, p, d: Built(FlexPagedAttention(p, d), contextlib.nullcontext, compiled=True),
    "flex_flash": _flex_flash,
    "fa4": _fa4_kind(),
    "fa4_paged": _fa4_kind(paged=True),
    "fa4_deterministic": _fa4_kind(deterministic=True),
    "varlen": _varlen,
    "sdpa_nested": _explained(NestedJaggedAttention, _explain_nested, "bshd"),
    "sdpa_padded": _explained(PaddedBatchAttention, _explain_sdpa, "bshd"),
    "sdpa_is_causal": _explained(SDPAIsCausal, _explain_sdpa),
    "sdpa_lower_right": _explained(SDPALowerRight, _explain_lower_right),
}
COMPILED_KINDS = ("naive_compiled", "flex", "flex_triton", "flex_paged", "flex_fp8", "flex_flash")


def build(kind: str, backend: str | None, point: schema.Point, device, room: bool = True,
          fresh: bool = True) -> Built:
    """Make the callable for one variant at one point; `kind` and `backend` come from gen.model.variants.
    `room`: lend a compiled variant's autotuner room on the GPU (room_for_autotuning); the
    precompile workers, which compile FlexAttention (no candidates timed for its attention
    kernels, nor an in-place score matrix to copy), do not. `fresh=False` keeps dynamo's compiled
    code (the dynamic-lengths scenario's one compiled function across lengths)."""
    device = torch.device(device)
    if kind not in _BUILDERS:
        raise ValueError(f"unknown variant kind {kind!r}")
    if kind in COMPILED_KINDS and fresh:
        # A fresh compile per build: otherwise every new module instance and
        # shape counts against dynamo's recompile limit, and past it the
        # "compiled" variant silently runs eager.
        torch._dynamo.reset()
        if room:
            room_for_autotuning(device)
    return _BUILDERS[kind](backend, point, device)


# Inductor's autotuner times the candidate configs of a kernel that writes into
# one of its inputs on clones of that input when the clones fit under the
# process's peak memory so far; otherwise it keeps a pinned host copy for every
# candidate and copies it back after every timed call (copy_args_to_cpu_if_needed
# and restore_args_from_cpu in torch/_inductor/runtime/triton_heuristics.py). For
# the compiled naive product at 8k tokens that is a 17 GB score matrix: 16.6 of
# the 21.3 s of its first call (4.7 s with the room below, the same per-call time
# after it; benchmarks/data/compile_probe_room.json). Raising the allocator's
# recorded peak to this share of the free memory lets the clone stay on the GPU;
# a clone never exceeds the room, so it fits. Peak memory is measured after a
# reset (probe.peak_memory): unaffected. A compile after such a reset (a
# recompile) finds no room and takes the host path: slower, not different.
AUTOTUNE_ROOM_SHARE = 0.5


def room_for_autotuning(device) -> None:
    """Raise the CUDA allocator's peak to AUTOTUNE_ROOM_SHARE of the free memory, and release it."""
    if device.type != "cuda" or AUTOTUNE_ROOM_SHARE <= 0:
        return
    free, _ = torch.cuda.mem_get_info(device)
    size = int(free * AUTOTUNE_ROOM_SHARE)
    if size > 0:
        torch.empty(size, dtype=torch.uint8, device=device)  # allocated and freed at once
        torch.cuda.empty_cache()


# --------------------------------------------------------------------------- inputs and the float64 reference


LAYOUTS = ("bhsd", "bshd", "v_col")


def make_inputs(point: schema.Point, dtype, device, seed: int, grad: bool = False, layout: str = "bhsd"):
    """q (B, query heads, q_len, D), k and v (B, KV heads, kv_len, D), drawn on
    the device; the same values in any `layout` (Built.layout): bshd keeps
    them in (B, S, H, D) memory, v_col keeps V column-major. Leaves when `grad`."""
    if layout not in LAYOUTS:
        raise ValueError(f"make_inputs: layout {layout!r} is not one of {', '.join(LAYOUTS)}")
    # Drawn on the device: the CPU generator takes seconds at 16k tokens.
    g = torch.Generator(device=device).manual_seed(seed)
    shapes = [(point.batch, point.q_heads, point.q_len, point.head_dim)]
    shapes += [(point.batch, point.kv_heads, point.kv_len, point.head_dim)] * 2
    ts = [torch.randn(s, generator=g, device=device, dtype=torch.float32).to(dtype) for s in shapes]
    if layout == "bshd":
        ts = [t.transpose(1, 2).contiguous().transpose(1, 2) for t in ts]
    elif layout == "v_col":
        ts[2] = ts[2].transpose(-2, -1).contiguous().transpose(-2, -1)
    if grad:
        # detach(): a leaf with the same strides, so .grad is kept.
        ts = [t.detach().requires_grad_(True) for t in ts]
    return ts


def grad_output(point: schema.Point, dtype, device, seed: int):
    g = torch.Generator(device=device).manual_seed(seed)
    shape = (point.batch, point.q_heads, point.q_len, point.head_dim)
    return torch.randn(shape, generator=g, device=device, dtype=torch.float32).to(dtype)


def _attend64(q, k, v, point: schema.Point, rows: slice):
    s = (q.double() @ k.double().transpose(-2, -1)) * (point.head_dim**-0.5)
    mask = masked_out(point, q.device, rows)
    if mask is not None:
        s = s.masked_fill(mask, float("-inf"))
    return torch.softmax(s, dim=-1) @ v.double()


# Query rows per float64 block: bounds the reference's memory at long sequences.
REFERENCE_ROWS = 2048


def reference_slice(q, k, v, point: schema.Point, heads: list[int], batch: int = 0) -> torch.Tensor:
    """float64 attention of one batch element and some query heads, each
    against the KV head it reads (h // groups), in blocks of query rows.
    Shape (len(heads), q_len, D)."""
    groups = point.q_heads // point.kv_heads
    kv = [h // groups for h in heads]
    qs, ks, vs = q[batch, heads], k[batch, kv], v[batch, kv]
    out = [_attend64(qs[:, r0:r0 + REFERENCE_ROWS], ks, vs, point, slice(r0, r0 + REFERENCE_ROWS))
           for r0 in range(0, point.q_len, REFERENCE_ROWS)]
    return torch.cat(out, dim=1)


def check_heads(point: schema.Point, n: int = 2) -> list[int]:
    """The query heads checked: the first n; under GQA they share KV head 0."""
    return list(range(min(n, point.q_heads)))


def reference_grads(q, k, v, grad_out, point: schema.Point, kv_head: int = 0, batch: int = 0):
    """float64 gradients of one batch element through one KV head and the
    query heads of its group (only they read it, so its dk, dv are whole).
    Returns (dq of the group's query heads, dk, dv of the KV head)."""
    groups = point.q_heads // point.kv_heads
    hs = list(range(kv_head * groups, (kv_head + 1) * groups))
    qs = q[batch, hs].detach().double().requires_grad_(True)
    ks = k[batch, kv_head:kv_head + 1].detach().double().requires_grad_(True)
    vs = v[batch, kv_head:kv_head + 1].detach().double().requires_grad_(True)
    out = _attend64(qs, ks, vs, point, slice(None))
    out.backward(grad_out[batch, hs].double())
    return qs.grad, ks.grad[0], vs.grad[0]


def rel_error(out, ref) -> float:
    """‖out − ref‖ / ‖ref‖ in float64; NaN when out holds a non-finite value."""
    out = out.double()
    if not torch.isfinite(out).all():
        return float("nan")
    return float(torch.linalg.vector_norm(out - ref) / torch.linalg.vector_norm(ref))
