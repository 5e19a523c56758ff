"""The attention implementations that the variants pin down.

Takes: a shape and a device. Gives: `build(kind, ...) -> Built`, a callable
`fn(q, k, v)` plus the context it must run inside (a pinned SDPA backend).
Imports torch: only the capture stage uses this module. The report shows the
source of these classes, read from this file's text without importing it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel

from gen.model.variants import BACKEND_ENUM


class NaiveAttention(nn.Module):
    """softmax(q kᵀ · scale + causal mask) v, one primitive op at a time."""

    def __init__(self, seq_len: int, head_dim: int, device: torch.device):
        super().__init__()
        self.scale = head_dim**-0.5
        # Built once here, so no forward pays for it.
        mask = torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).triu(1)
        self.register_buffer("mask", mask)

    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1)
        scores = scores * self.scale
        scores = scores.masked_fill(self.mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return weights @ v


class NaiveInplaceAttention(NaiveAttention):
    """The same, masking in place with masked_fill_."""

    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1)
        scores = scores * self.scale
        scores.masked_fill_(self.mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return weights @ v


class SDPAttention(nn.Module):
    """F.scaled_dot_product_attention, causal; the backend is pinned outside."""

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


class FlexCausalAttention(nn.Module):
    """flex_attention with a causal block mask, made once per shape."""

    def __init__(self, seq_len: int, device: torch.device):
        super().__init__()
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention

        def causal(b, h, q_idx, kv_idx):
            return q_idx >= kv_idx

        self.block_mask = create_block_mask(
            causal, B=None, H=None, Q_LEN=seq_len, KV_LEN=seq_len, device=device
        )
        self.flex = torch.compile(flex_attention)

    def forward(self, q, k, v):
        return self.flex(q, k, v, block_mask=self.block_mask)




@dataclass
class Built:
    fn: Callable
    context: Callable[[], contextlib.AbstractContextManager]
    compiled: bool = False


def build(kind: str, backend: str | None, seq_len: int, head_dim: int, device) -> Built:
    """Make the callable for one variant; `kind` and `backend` come from gen.variants."""
    device = torch.device(device)
    if kind in ("naive_compiled", "flex"):
        # A fresh compile per build: otherwise every new module instance and
        # shape counts against dynamo's recompile limit, and past it the
        # "compiled" variant silently runs eager.
        torch._dynamo.reset()
    if kind == "naive":
        return Built(NaiveAttention(seq_len, head_dim, device), contextlib.nullcontext)
    if kind == "naive_inplace":
        return Built(NaiveInplaceAttention(seq_len, head_dim, device), contextlib.nullcontext)
    if kind == "naive_compiled":
        module = torch.compile(NaiveAttention(seq_len, head_dim, device))
        return Built(module, contextlib.nullcontext, compiled=True)
    if kind == "sdpa":
        if backend is None:
            return Built(SDPAttention(), contextlib.nullcontext)
        pinned = getattr(SDPBackend, BACKEND_ENUM[backend])
        return Built(SDPAttention(), lambda: sdpa_kernel(pinned))
    if kind == "flex":
        return Built(FlexCausalAttention(seq_len, device), contextlib.nullcontext, compiled=True)
    raise ValueError(f"unknown variant kind {kind!r}")
