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
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel

from gen.model import schema
from gen.model.variants import BACKEND_ENUM

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


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
    return out


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

        rule = {schema.Mask.CAUSAL: causal, schema.Mask.SLIDING: sliding}.get(point.mask)
        self.block_mask = None if rule is None else create_block_mask(
            rule, B=None, H=None, Q_LEN=point.q_len, KV_LEN=point.kv_len, device=device
        )
        self.gqa = point.q_heads != point.kv_heads
        self.flex = torch.compile(flex_attention)

    def forward(self, q, k, v):
        return self.flex(q, k, v, block_mask=self.block_mask, enable_gqa=self.gqa)




@dataclass
class Built:
    fn: Callable
    context: Callable[[], contextlib.AbstractContextManager]
    compiled: bool = False


def build(kind: str, backend: str | None, point: schema.Point, device) -> Built:
    """Make the callable for one variant at one point; `kind` and `backend` come from gen.model.variants."""
    device = torch.device(device)
    if kind in ("naive_compiled", "flex"):
        # A fresh compile per build: otherwise every new module instance and
        # shape counts against dynamo's recompile limit, and past it the
        # "compiled" variant silently runs eager.
        torch._dynamo.reset()
    if kind == "naive":
        return Built(NaiveAttention(point, device), contextlib.nullcontext)
    if kind == "naive_inplace":
        return Built(NaiveInplaceAttention(point, device), contextlib.nullcontext)
    if kind == "naive_compiled":
        module = torch.compile(NaiveAttention(point, device))
        return Built(module, contextlib.nullcontext, compiled=True)
    if kind == "sdpa":
        if backend is None:
            return Built(SDPAttention(point, device), contextlib.nullcontext)
        pinned = getattr(SDPBackend, BACKEND_ENUM[backend])
        return Built(SDPAttention(point, device), lambda: sdpa_kernel(pinned))
    if kind == "flex":
        return Built(FlexBlockMaskAttention(point, device), contextlib.nullcontext, compiled=True)
    raise ValueError(f"unknown variant kind {kind!r}")


# --------------------------------------------------------------------------- inputs and the float64 reference


def make_inputs(point: schema.Point, dtype, device, seed: int, grad: bool = False):
    """q (B, query heads, q_len, D), k and v (B, KV heads, kv_len, D), drawn on the device."""
    # Drawn on the device: the CPU generator takes seconds at 16k tokens.
    g = torch.Generator(device=device).manual_seed(seed)
    shapes = [(point.batch, point.q_heads, point.q_len, point.head_dim)]
    shapes += [(point.batch, point.kv_heads, point.kv_len, point.head_dim)] * 2
    ts = [torch.randn(s, generator=g, device=device, dtype=torch.float32).to(dtype) for s in shapes]
    if grad:
        for t in ts:
            t.requires_grad_(True)
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
