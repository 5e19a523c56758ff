"""The variants' attention code as nn.Modules, each built from a point and a device.

Takes: a `schema.Point` and a device. Gives: one nn.Module per way of
computing attention, called as `module(q, k, v)` on `inputs.make_inputs`'
tensors: naive (eager and in place), SDPA (a mask or is_causal as the point
needs it; is_causal whatever the mask; the lower-right causal bias),
FlexAttention (block mask, forced Triton kernel, FLASH backend, paged cache),
varlen_attn, nested jagged tensors and a padded batch. The optional extras'
modules (cuDNN FP8, FlashAttention-4) are in gen.capture.extras. The report
shows the source of these classes, read from this file's text
(gen.model.variants.source).
"""

from __future__ import annotations

import inspect
import itertools
import math
import time

import torch
import torch.nn.functional as F
from torch import nn

from gen.capture.inputs import _attend64, document_ids, masked_out, rel_error
from gen.model import schema


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
