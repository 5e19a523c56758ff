"""The scenarios: named, declarative workloads the variants are measured on.

Takes: nothing. Gives: `SCENARIOS` (name -> `Scenario`), `resolve(names)` for
the CLI's `--scenario`, `tiny(scenario)` (the same scenario at toy sizes, for
CPU tests: `python -m gen profile --tiny`), and per scenario its `points()`,
`train_points()` and `record()` (the `schema.ScenarioRecord` a set stores).

A scenario is the attention of one model shape: batch, query heads over KV
heads (grouped-query attention when fewer KV heads), head dim, a query length
(prefill: the whole sequence; decode: one token against a KV cache), a mask
(causal, none, or a causal sliding window of W tokens), a dtype, and the
lengths swept. Adding one is one `Scenario(...)` entry below; capture runs
every variant on it and records what a variant refuses.
Standard library only: capture reads it on the GPU machine.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from gen.model import schema

ARTICLE = "article"
DYNAMIC = "dynamic-lengths"
# --tiny: new lengths that stay distinct at toy sizes (the full ones / 256 would all be 16)
TINY_DYNAMIC_LENGTHS = (16, 17, 24, 33, 47, 64)
TINY_DECODE_FROM, TINY_DECODE_STEPS = 16, 4


# The dtypes a scenario or --dtype may name (gen.capture.inputs.DTYPES maps each to torch's).
DTYPES = ("bf16", "fp16", "fp32")


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    why: str  # what today's models do that this shape stands for
    batch: int
    q_heads: int
    kv_heads: int
    head_dims: tuple[int, ...]  # the first is the scenario's own; the others are swept too
    lengths: tuple[int, ...]  # KV lengths swept (prefill: the sequence; decode: the cache)
    mask: str  # schema.Mask
    q_len: int | None = None  # None: prefill (queries = the sequence); decode: 1
    window: int | None = None  # tokens, with mask "sliding"
    dtype: str = "bf16"
    train_lengths: tuple[int, ...] = ()  # forward + backward points
    run_length: int | None = None  # the article's profiled runs (VariantRun), not a sweep point
    q_lens: tuple[int, ...] = ()  # chunked prefill: query chunks, each against every KV length
    docs: tuple[int, ...] = ()  # mask "document": lengths of the packed documents (they make the length)
    # Which variants run here: the ones asked for (--variants) when
    # `asked_variants`, and this scenario's own (run here whatever was asked:
    # they answer its question, e.g. varlen_attn on packed documents).
    asked_variants: bool = True
    extra_variants: tuple[str, ...] = ()
    # The lengths swept at the head dims after the first; empty: `lengths`.
    # The article compares head dims at a few lengths: its whole D=128 series
    # cost a fifth of the capture's budget for lines parallel to D=64's.
    other_dim_lengths: tuple[int, ...] = ()
    # The dynamic-lengths scenario: prefill at each of these new lengths in turn, then decode steps
    # from a cache of `decode_from` tokens growing one token a step, `decode_steps` of them; each
    # variant's first call at each new length against its steady call (schema.DynamicRun).
    dynamic_lengths: tuple[int, ...] = ()
    decode_from: int = 0
    decode_steps: int = 0

    def __post_init__(self):
        if self.mask not in {m.value for m in schema.Mask}:
            raise ValueError(f"scenario {self.name}: mask {self.mask!r} is not one of {', '.join(schema.Mask)}")
        if (self.mask == schema.Mask.SLIDING) != (self.window is not None):
            raise ValueError(f"scenario {self.name}: a window goes with mask 'sliding', and only with it")
        if (self.mask == schema.Mask.DOCUMENT) != bool(self.docs):
            raise ValueError(f"scenario {self.name}: document lengths go with mask 'document', and only with it")
        if self.docs and set(self.lengths) | set(self.train_lengths) != {sum(self.docs)}:
            raise ValueError(f"scenario {self.name}: packed documents make {sum(self.docs)} tokens, "
                             f"not {self.lengths}")
        if self.q_lens and (self.q_len is not None or self.mask == schema.Mask.DOCUMENT):
            raise ValueError(f"scenario {self.name}: query chunks go with prefill masks only")
        if not set(self.other_dim_lengths) <= set(self.lengths):
            raise ValueError(f"scenario {self.name}: the other head dims' lengths {self.other_dim_lengths} are not "
                             f"among its lengths {self.lengths}")
        if self.q_heads % self.kv_heads:
            raise ValueError(f"scenario {self.name}: {self.q_heads} query heads do not group over "
                             f"{self.kv_heads} KV heads")

    @property
    def head_dim(self) -> int:
        return self.head_dims[0]

    @property
    def decode(self) -> bool:
        return self.q_len is not None

    def point(self, length: int, head_dim: int | None = None, q_len: int | None = None) -> schema.Point:
        """The shape at one KV length (and head dim, and query chunk)."""
        return schema.Point(batch=self.batch, q_heads=self.q_heads, kv_heads=self.kv_heads,
                            head_dim=head_dim or self.head_dim, q_len=q_len or self.q_len or length,
                            kv_len=length, mask=self.mask, window=self.window, docs=self.docs or None)

    def points(self) -> list[schema.Point]:
        """The inference sweep in order: the scenario's head dim first, then the
        others; with query chunks, each chunk against the KV lengths in turn."""
        chunks = self.q_lens or (None,)
        return [self.point(n, d, c) for d in self.head_dims for c in chunks for n in self.lengths_at(d)]

    def lengths_at(self, head_dim: int) -> tuple[int, ...]:
        """The lengths swept at this head dim."""
        if head_dim != self.head_dim and self.other_dim_lengths:
            return self.other_dim_lengths
        return self.lengths

    def variants_for(self, asked: list) -> list:
        """The variants (gen.model.variants.Variant) this scenario runs, given
        the ones asked for: those when it takes them, then its own."""
        from gen.model.variants import VARIANTS

        out = list(asked) if self.asked_variants else []
        names = {v.name for v in out}
        return out + [VARIANTS[n] for n in self.extra_variants if n not in names]

    def train_points(self) -> list[schema.Point]:
        return [self.point(n) for n in self.train_lengths]

    def dynamic_points(self) -> dict[str, list[schema.Point]]:
        """The dynamic-lengths scenario's points by phase: prefill (causal, each a new length) and
        decode (one query against a cache growing a token each step, no mask); empty elsewhere."""
        prefill = [dataclasses.replace(self.point(n), q_len=n, mask=schema.Mask.CAUSAL.value)
                   for n in self.dynamic_lengths]
        decode = [dataclasses.replace(self.point(n), q_len=1, mask=schema.Mask.NONE.value)
                  for n in range(self.decode_from, self.decode_from + self.decode_steps)]
        return {k: v for k, v in (("prefill", prefill), ("decode", decode)) if v}

    def run_point(self) -> schema.Point | None:
        return self.point(self.run_length) if self.run_length else None

    def record(self, modes: list[str] | tuple[str, ...] = ()) -> schema.ScenarioRecord:
        """As a set stores it: the points asked for. The article's run point
        leads its points (as update_to_2 writes it) and, when `modes` train,
        its train points too; train points are recorded only when they train."""
        run = self.run_point()
        points = self.points()
        if run is not None:
            points = [run] + [p for p in points if p != run]
        train = []
        if schema.Mode.TRAIN in modes:
            train = self.train_points()
            if run is not None and run not in train:
                train = [run] + train
        return schema.ScenarioRecord(name=self.name, title=self.title, dtype=self.dtype, points=points,
                                     train_points=train)


# Fixed, uneven document lengths (a 4k document, a 512-token one, ...) that
# make 16384 tokens: the pack is the same on every run.
PACKED_DOCS = (4096, 1024, 3072, 512, 2048, 3584, 1536, 512)


def _pow2(lo: int, hi: int) -> tuple[int, ...]:
    out, n = [], lo
    while n <= hi:
        out.append(n)
        n *= 2
    return tuple(out)


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in [
        Scenario(
            ARTICLE, "The article's shape",
            "the seed article's workload, kept so that its A100 figures stay comparable",
            batch=8, q_heads=16, kv_heads=16, head_dims=(64, 128), lengths=_pow2(256, 16384),
            mask=schema.Mask.CAUSAL, run_length=1024, other_dim_lengths=(1024, 4096, 16384),
        ),
        Scenario(
            "gqa-prefill", "Prefill with grouped-query attention",
            "a long prompt through a large model: 64 query heads share 8 KV heads (Llama-3-70B-like)",
            batch=1, q_heads=64, kv_heads=8, head_dims=(128,), lengths=_pow2(2048, 32768),
            mask=schema.Mask.CAUSAL, train_lengths=(4096,),
        ),
        Scenario(
            "decode", "Decode from a KV cache",
            "generating one token per sequence against a long KV cache (Llama-3-8B-like heads)",
            batch=8, q_heads=32, kv_heads=8, head_dims=(128,), lengths=(4096, 16384, 65536, 131072),
            mask=schema.Mask.NONE, q_len=1,
        ),
        Scenario(
            "sliding-window", "Sliding-window prefill",
            "causal attention limited to the last 4096 tokens (Mistral-like), at 16k tokens",
            batch=1, q_heads=64, kv_heads=8, head_dims=(128,), lengths=(16384,),
            mask=schema.Mask.SLIDING, window=4096, extra_variants=("varlen",),
        ),
        Scenario(
            "packed-documents", "Packed documents",
            "sequence packing as training uses it, timed here as forward passes: 16k tokens made of eight "
            "documents of uneven length, each attending causally within itself only (Llama-3-8B-like heads)",
            batch=1, q_heads=32, kv_heads=8, head_dims=(128,), lengths=(16384,), mask=schema.Mask.DOCUMENT,
            docs=PACKED_DOCS, asked_variants=False,
            extra_variants=("varlen", "sdpa_nested", "flex", "sdpa_padded", "sdpa_auto", "sdpa_is_causal", "fa4",
                            "flex_flash"),
        ),
        Scenario(
            "chunked-prefill", "Chunked prefill and speculative decoding",
            "a chunk of new tokens (a prompt chunk, or draft tokens to verify) against the KV cache "
            "before it, causal with the queries at the end (Llama-3-70B-like heads)",
            batch=1, q_heads=64, kv_heads=8, head_dims=(128,), lengths=(8192, 32768), q_lens=(16, 512),
            mask=schema.Mask.CAUSAL, asked_variants=False,
            extra_variants=("sdpa_auto", "sdpa_is_causal", "sdpa_lower_right", "varlen", "fa4", "flex_flash"),
        ),
        Scenario(
            "decode-kernels", "Decode kernels and a paged KV cache",
            "one token per sequence against a 16k cache: FlexAttention's decoding kernel, its main kernel "
            "forced, and a paged cache (as vLLM and SGLang keep it) beside the contiguous one",
            batch=8, q_heads=32, kv_heads=8, head_dims=(128,), lengths=(16384,), mask=schema.Mask.NONE,
            q_len=1, asked_variants=False,
            extra_variants=("sdpa_auto", "varlen", "flex", "flex_triton", "flex_paged", "fa4", "fa4_paged",
                            "flex_flash"),
        ),
        Scenario(
            "fp8-prefill", "FP8 prefill",
            "causal prefill of 16k tokens with float8 (e4m3) queries, keys and values beside bf16 "
            "(Llama-3-70B-like heads, the shape of the cuDNN frontend's published H200 FP8 figures)",
            batch=1, q_heads=64, kv_heads=8, head_dims=(128,), lengths=(16384,), mask=schema.Mask.CAUSAL,
            asked_variants=False, extra_variants=("sdpa_auto", "sdpa_cudnn", "flex", "flex_fp8", "cudnn_fp8", "fa4",
                                                  "flex_flash"),
        ),
        Scenario(
            "deterministic-backward", "Deterministic backward",
            "training steps under torch.use_deterministic_algorithms(True) against the default, per "
            "backend: what reproducible gradients cost (32 heads, no grouping: the efficient backend takes "
            "no grouped KV heads in torch 2.11)",
            batch=1, q_heads=32, kv_heads=32, head_dims=(128,), lengths=(), train_lengths=(8192,),
            mask=schema.Mask.CAUSAL, asked_variants=False,
            extra_variants=("sdpa_flash", "sdpa_flash_det", "sdpa_efficient", "sdpa_efficient_det",
                            "sdpa_cudnn", "sdpa_cudnn_det", "fa4", "fa4_det"),
        ),
        Scenario(
            DYNAMIC, "Prompt lengths that vary",
            "a server sees a new prompt length at nearly every request, and decode a cache one token longer "
            "at every step: what each variant's first call at a new length costs (cuDNN builds an execution "
            "plan per shape), against its steady call (Llama-3-8B-like heads)",
            batch=1, q_heads=32, kv_heads=8, head_dims=(128,), lengths=(), mask=schema.Mask.CAUSAL,
            dynamic_lengths=(1000, 1001, 1537, 2049, 3001, 4099, 6151, 8209), decode_from=4096, decode_steps=32,
        ),
    ]
}

DEFAULT_SCENARIOS = [ARTICLE]


def break_even_calls(overhead_ms: float | None, steady_ms: float | None, best_overhead_ms: float | None,
                     best_steady_ms: float | None) -> float | None:
    """Calls per length below which a variant (first-call overhead, steady cost) costs less in all
    than the variant fastest in steady state: (O_best - O) / (S - S_best). None where it never does:
    it is as fast in steady state, or its first calls cost no less."""
    if None in (overhead_ms, steady_ms, best_overhead_ms, best_steady_ms):
        return None
    if steady_ms <= best_steady_ms or overhead_ms >= best_overhead_ms:
        return None
    return (best_overhead_ms - overhead_ms) / (steady_ms - best_steady_ms)


def resolve(names: str | list[str] | None) -> list[Scenario]:
    """Scenarios from a comma list (or list); `all` is every one; unknown
    names are a one-line error naming the option."""
    if names is None:
        return [SCENARIOS[n] for n in DEFAULT_SCENARIOS]
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    if "all" in names:
        return list(SCENARIOS.values())
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown or not names:
        raise schema.UserError(f"--scenario: unknown scenario(s) {', '.join(unknown) or '(none given)'}; "
                               f"known: {', '.join(SCENARIOS)}, or all")
    return [SCENARIOS[n] for n in dict.fromkeys(names)]


# Toy sizes keep every code path (GQA grouping, one-token decode, a window
# narrower than the sequence) while running in seconds on a CPU.
TINY_DIVISOR = 256
TINY_MIN_LENGTH = 16
TINY_DOC_DIVISOR = 128  # documents keep their unevenness: 4096 -> 32, 512 -> 4
TINY_MIN_DOC = 4
TINY_MIN_CHUNK = 2


def tiny(s: Scenario) -> Scenario:
    """The same scenario at toy sizes: lengths and window / 256 (at least 16),
    batch at most 2, head dim 16, at most 8 query heads in the same groups."""
    def shrink(n: int) -> int:
        return max(TINY_MIN_LENGTH, n // TINY_DIVISOR)

    groups = s.q_heads // s.kv_heads
    q_heads = min(s.q_heads, max(8, groups))
    lengths = tuple(dict.fromkeys(shrink(n) for n in s.lengths))
    train_lengths = tuple(shrink(n) for n in s.train_lengths)
    docs = tuple(max(TINY_MIN_DOC, d // TINY_DOC_DIVISOR) for d in s.docs)
    if docs:  # the pack is the documents' sum, at any size
        lengths = (sum(docs),) if s.lengths else ()
        train_lengths = (sum(docs),) if s.train_lengths else ()
    return dataclasses.replace(
        s, batch=min(s.batch, 2), q_heads=q_heads, kv_heads=max(1, q_heads // groups),
        head_dims=tuple(dict.fromkeys(16 * (i + 1) for i in range(len(s.head_dims)))),
        lengths=lengths, window=shrink(s.window) if s.window else None,
        other_dim_lengths=tuple(dict.fromkeys(shrink(n) for n in s.other_dim_lengths)),
        train_lengths=train_lengths, docs=docs,
        q_lens=tuple(dict.fromkeys(max(TINY_MIN_CHUNK, c // 32) for c in s.q_lens)),
        run_length=shrink(s.run_length) if s.run_length else None,
        dynamic_lengths=TINY_DYNAMIC_LENGTHS if s.dynamic_lengths else (),
        decode_from=TINY_DECODE_FROM if s.decode_steps else 0,
        decode_steps=min(s.decode_steps, TINY_DECODE_STEPS),
    )


def with_overrides(s: Scenario, *, batch: int | None = None, heads: int | None = None,
                   run_length: int | None = None, head_dims: list[int] | None = None,
                   lengths: list[int] | None = None, dtype: str | None = None) -> Scenario:
    """The scenario with options from the command line (the article's --shape,
    --sweep-seqs and --sweep-dims, --dtype); heads set both query and KV heads."""
    changes: dict = {}
    if batch:
        changes["batch"] = batch
    if heads:
        changes["q_heads"] = changes["kv_heads"] = heads
    if run_length:
        changes["run_length"] = run_length
    if head_dims:
        changes["head_dims"] = tuple(head_dims)
    if lengths is not None:
        changes["lengths"] = tuple(lengths)
        if tuple(lengths) != s.lengths:  # lengths asked for: every head dim sweeps them
            changes["other_dim_lengths"] = ()
    if dtype:
        changes["dtype"] = dtype
    return dataclasses.replace(s, **changes)
