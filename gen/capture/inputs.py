"""The inputs every variant is called with, and the float64 reference they are checked against.

Takes: a `schema.Point` (batch, query and KV heads, head dim, query and KV
lengths, mask), a dtype (a `DTYPES` value) and a device. Gives:
`make_inputs(point, ...)` (q of the query heads, k and v of the KV heads, in
any of `LAYOUTS`) and `grad_output`; `masked_out` / `document_ids` (the mask
as a boolean matrix, the packed documents); `reference_slice` /
`reference_grads` (float64 attention on one batch element and a few heads,
with the same mask and GQA mapping), `check_heads` and `rel_error`.

Queries sit at the end of the sequence (decode: the newest token), so query i
is at position kv_len - q_len + i. Causal: a query sees keys at or before its
position; sliding: and fewer than `window` tokens back; none: every key.
"""

from __future__ import annotations

import torch

from gen.model import schema

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
