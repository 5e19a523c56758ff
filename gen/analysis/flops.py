"""The report's one counting convention for FLOPs and bytes, named once.

Takes: a `schema.Point` (batch, query and KV heads, head dim, query and KV
lengths, mask, window) and a mode. Gives: `score_pairs(p)` and
`dense_pairs(p)` (the (query, key) pairs a kernel must score, and all of
them), `flops(p, mode)` and `dense_flops(p)`, `io_bytes(p, elem)`, and the
labels pages print next to every TFLOP/s and TB/s (`FLOP_CONVENTION`,
`FLOP_LABEL`, `BYTES_CONVENTION`, `BYTES_LABEL`), and `figure_of(p, mode)`: whether a
point is judged in TFLOP/s or, decode, in TB/s. The scaling, scenario,
lesson and verdict facts all count with these, so a rate means the same on
every page.

The convention is FlashAttention's benchmark count, the one the published
figures beside ours use: two matrix products (Q·Kᵀ and P·V) of 2 FLOPs a
multiply-add, 4·B·Hq·Sq·Sk·D, halved when the mask is causal and queries and
keys are the same sequence (S²/2: the diagonal is not counted apart; the
exact S·(S+1)/2 differs by 1/S). Any other mask counts exactly the pairs it
lets through (a sliding window: the pairs inside it). Softmax and scaling
are not counted. A training step is the forward and a backward of 2.5× its
matrix work.
"""

from __future__ import annotations

import numpy as np

from gen.analysis import rules
from gen.model import schema

FIGURE_TFLOPS = "tflops"  # the figure a compute-bound point is judged by; rules.MEMORY_BOUND_FIGURE the other


def is_decode(p: schema.Point) -> bool:
    """One query token per sequence against a KV cache."""
    return p.q_len == 1 and p.kv_len > 1


def figure_of(p: schema.Point, mode: str) -> str:
    """The figure a point is judged by: TB/s for decode (inference), TFLOP/s otherwise."""
    return rules.MEMORY_BOUND_FIGURE if is_decode(p) and mode == schema.Mode.INFERENCE else FIGURE_TFLOPS


FLOP_CONVENTION = ("FlashAttention's count: 4·B·Hq·Sq·Sk·D (two matrix products, 2 FLOPs per multiply-add), "
                   "halved when causal over a square (as many queries as keys: S²/2, the diagonal not counted, "
                   "where a count with it, S·(S + 1)/2 as the cuDNN frontend's benchmark, reads (S + 1)/S higher "
                   "for the same time); a causal chunk of Sq queries at the end of Sk keys counts exactly its "
                   "lower-right pairs, Sq·(Sk − Sq) + Sq·(Sq + 1)/2; "
                   "a sliding window counts exactly the (query, key) pairs inside it; "
                   "packed documents count each document's own causal square, halved (useful work only: "
                   "padding and cross-document pairs are not counted); "
                   "a training step is the forward plus a backward of 2.5× the forward (3.5×)")
FLOP_LABEL = "FlashAttention count, causal S²/2 without the diagonal"
BYTES_CONVENTION = "Q, K, V read once and the output written once (bytes of the four tensors)"
BYTES_LABEL = "Q, K, V, output once"
# The backward does 2.5x the forward's matrix work (FlashAttention's benchmark convention).
BACKWARD_FACTOR = 2.5

ELEM_SIZE = {"bf16": 2, "fp16": 2, "f16": 2, "float16": 2, "bfloat16": 2, "fp32": 4, "f32": 4, "float32": 4}


# FP8 points (issue 20) move one byte an element.
FP8_ELEM_SIZE = {"fp8_e4m3": 1, "fp8_e5m2": 1}


def element_size(dtype: str) -> int:
    return FP8_ELEM_SIZE.get(dtype) or ELEM_SIZE.get(dtype, 2)


def dense_pairs(p: schema.Point) -> float:
    """Every (query, key) pair per (batch, head): what a kernel given no way to skip masked ones scores."""
    return float(p.q_len * p.kv_len)


def score_pairs(p: schema.Point) -> float:
    """(query, key) pairs a kernel must score per (batch, head), under the convention.
    Queries sit at the end of the keys (decode: the last position), as capture masks them."""
    sq, sk = p.q_len, p.kv_len
    if p.mask == schema.Mask.DOCUMENT:
        return sum(d * d / 2.0 for d in p.docs or ())
    if p.mask == schema.Mask.NONE:
        return float(sq * sk)
    if p.mask == schema.Mask.CAUSAL and sq == sk:
        return sq * sk / 2.0  # FlashAttention halves the square: the diagonal is not counted apart
    # Exact count: query i (position i + offset) sees keys j <= i + offset, and with a window
    # of W only those fewer than W back: min(pos + 1, W) keys each.
    offset = sk - sq
    pos = np.arange(sq, dtype=np.int64) + offset
    seen = pos + 1
    if p.mask == schema.Mask.SLIDING:
        seen = np.minimum(seen, p.window or 0)
    return float(np.clip(seen, 0, sk).sum())


def count_kind(mask: str, q_len: int, kv_len: int) -> str:
    """Which of FLOP_CONVENTION's counts score_pairs takes for a point: "square" (causal over as many queries as
    keys, S²/2), "lower_right" (a causal chunk at the end of the keys: its exact pairs, the diagonal counted),
    "window" (the exact pairs inside a sliding window), "documents" (each document's causal square, halved) or
    "dense" (no mask: every pair)."""
    if mask == schema.Mask.DOCUMENT:
        return "documents"
    if mask == schema.Mask.NONE:
        return "dense"
    if mask == schema.Mask.SLIDING:
        return "window"
    return "square" if q_len == kv_len else "lower_right"


def _per_pair(p: schema.Point) -> float:
    return 4.0 * p.batch * p.q_heads * p.head_dim


def flops(p: schema.Point, mode: str = schema.Mode.INFERENCE) -> float:
    """FLOPs of one call under FLOP_CONVENTION (a training step: forward and backward)."""
    forward = _per_pair(p) * score_pairs(p)
    return forward * (1.0 + BACKWARD_FACTOR) if mode == schema.Mode.TRAIN else forward


def dense_flops(p: schema.Point) -> float:
    """FLOPs of one forward that scores every (query, key) pair, masked or not."""
    return _per_pair(p) * dense_pairs(p)


def io_bytes(p: schema.Point, elem_size: int) -> float:
    """Bytes under BYTES_CONVENTION: Q and the output over the query heads, K and V over the KV heads."""
    q_and_out = 2 * p.batch * p.q_heads * p.q_len * p.head_dim
    k_and_v = 2 * p.batch * p.kv_heads * p.kv_len * p.head_dim
    return float((q_and_out + k_and_v) * elem_size)
