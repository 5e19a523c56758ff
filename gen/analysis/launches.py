"""How a verdict's main kernels were launched: grid, block, registers and shared memory as the profiled
call's trace recorded them (the trace digest), and what that launch makes of the GPU's SMs.

Takes: a LoadedSet and its Verdict. Gives: `verdict_launches(ls, v)` -> {variant: Launch} for the fastest and
the runner-up, each the launch of the kernel the verdict calls its main one (Timed.main_index), where the trace
holds it. Numbers only: gen.report.words.why words them.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from gen.analysis import kernel_names, kernel_rules, tables, verdicts
from gen.model import schema, trace
from gen.model.variants import VARIANTS

# Hopper's wgmma works on 64 rows a warpgroup (its M): an MMA warpgroup of a warp-specialized kernel holds 64 rows
WGMMA_ROWS = 64

# The variants that take packed documents through cu_seqlens: varlen_attn (FlashAttention-2) launches a grid
# sized by the longest document; FA4's varlen call a tile scheduler over the packed tokens' query tiles
VARLEN_KINDS = ("fa4", "varlen")
LONGEST_DOCUMENT_KINDS = ("varlen",)


@dataclass(frozen=True)
class Launch:
    variant: str
    blocks: int  # thread blocks in the grid
    threads: int  # threads a block
    registers_per_thread: int | None
    shared_memory: int | None  # bytes a block
    blocks_per_sm: int | None  # CUDA's occupancy calculation (tables.theoretical_occupancy); None: limits unknown
    limiter: str | None  # what sets blocks_per_sm: "registers", "shared memory", "warps per SM", "blocks per SM"
    sm_count: int | None
    # packed documents through cu_seqlens (FA4's varlen call, varlen_attn): a grid sized by the longest document,
    # whose blocks past a shorter one exit at once, so its count of blocks says nothing of the work (no waves)
    sized_by_longest: bool = False
    # packed documents through a block mask (FlexAttention): one grid over the whole packed row, every block with
    # work, the block mask skipping the tiles across documents
    packed_row: bool = False
    # packed documents through FA4's varlen call: one block a query tile of the packed tokens (its scheduler
    # finds each tile's document through cu_seqlens), not a grid sized by the longest document
    packed_tiles: bool = False
    name: str | None = None  # the kernel's name as the trace holds it (a compiled instance's, with its arguments)
    # The counters pass's longest kernel of the same call (Nsight Compute, one warm call): its duration and the share
    # of it the tensor pipes were active; their product is the time the tensor pipes worked (`tensor_busy_us`)
    counted_us: float | None = None
    tensor_pipe_pct: float | None = None
    # Query tiles: the grid's blocks a (batch, head) where they are a whole number, the queries a head, and the rows
    # a tile by inference (`tile_rows`)
    tiles_per_head: int | None = None
    queries: int | None = None
    keys: int | None = None  # keys a head at the point, where `queries` is set
    # A causal mask over as many queries as keys: a row tile runs over the keys up to its last row (tile_pairs)
    causal: bool = False

    @property
    def tensor_busy_us(self) -> float | None:
        if self.counted_us is None or self.tensor_pipe_pct is None:
            return None
        return self.counted_us * self.tensor_pipe_pct / 100.0

    @property
    def design_rows(self) -> int | None:
        """Rows a query tile by the FA3 design alone (one producer warpgroup, the others each an MMA of WGMMA_ROWS
        rows), not checked against the grid: all that can be said of a persistent grid, whose blocks loop over
        tiles. An inference, never a record."""
        g = self.warpgroups
        return (g - 1) * WGMMA_ROWS if g and g >= 2 else None

    @property
    def tile_rows(self) -> int | None:
        """Rows a query tile, by inference (design_rows), kept only where that many rows give the grid's tiles a
        head exactly (ceil(queries / rows) == tiles_per_head); None otherwise, and for a persistent grid."""
        rows = self.design_rows
        if not rows or not self.tiles_per_head or not self.queries or self.persistent:
            return None
        return rows if -(-self.queries // rows) == self.tiles_per_head else None

    @property
    def padded_rows(self) -> int | None:
        """The rows the tiles of a head cover (tiles × rows), where `tile_rows` is inferred."""
        return self.tile_rows * self.tiles_per_head if self.tile_rows else None

    @property
    def warpgroups(self) -> int | None:
        """Hopper's warpgroups of four warps a block; None where the block is not a whole number of them."""
        group = 4 * kernel_rules.WARP
        return self.threads // group if self.threads % group == 0 else None

    @property
    def persistent(self) -> bool:
        """One block on each SM (a grid of as many blocks as SMs, one fitting a SM): each loops over tiles."""
        return bool(self.sm_count) and self.blocks == self.sm_count and self.blocks_per_sm == 1

    @property
    def waves(self) -> float | None:
        """The grid's blocks over what the GPU holds at once (SMs × blocks a SM)."""
        if not self.sm_count or not self.blocks_per_sm or self.sized_by_longest or self.packed_tiles:
            return None
        return self.blocks / (self.sm_count * self.blocks_per_sm)


def tile_pairs(queries: int, keys: int, rows: int, causal: bool, key_block: int = 1) -> int:
    """(query, key) pairs a head that query tiles of `rows` rows visit, every tile whole (the rows past the last
    query too): all keys for each, or under a causal mask (queries == keys) the keys up to the tile's last row, for
    a tile skips no key below the diagonal of its last row (192-row tiles over 1,024
    causal queries visit 749,568 pairs, not 1.125x the triangle's 524,800). A tile loops over whole key blocks of
    `key_block` keys, up to ceil(last row / key_block) of them (with 128-key blocks
    those tiles visit 786,432); key_block 1 is no key tiling at all."""
    tiles = -(-queries // rows)
    padded = -(-keys // key_block) * key_block
    if not causal:
        return tiles * rows * padded
    return sum(rows * min(padded, -(-((i + 1) * rows) // key_block) * key_block) for i in range(tiles))


def exact_pairs(queries: int, keys: int, causal: bool) -> int:
    """The pairs the attention asks for a head: the causal triangle (queries == keys), else every pair."""
    return queries * (queries + 1) // 2 if causal else queries * keys


@dataclass(frozen=True)
class TileWork:
    """What the runner-up's inferred query tiles make of its tensor-pipe time against the fastest's. Inferred
    throughout: the tile rows are the FA3 design's reading of the warpgroups."""

    rows: int  # the runner-up's rows a tile (Launch.tile_rows: checked against its grid)
    pairs: int  # the (query, key) pairs a head its tiles visit (tile_pairs)
    exact: int  # the pairs the attention asks for (exact_pairs)
    causal: bool
    base_rows: int | None  # the fastest's rows a tile by the same design (Launch.design_rows), where inferred
    base_checked: bool  # those rows give the fastest's grid exactly (False: a persistent grid, not checked)
    base_pairs: int  # the pairs of the fastest's tiles, else the exact pairs: what `pairs` is set against
    base_name_tile: tuple | None  # the tile field of the fastest's kernel name, where it has one (not decoded)
    tensor_ratio: float  # the runner-up's tensor-pipe time over the fastest's (the counters pass)
    # The pairs' ratio (both kernels' tiles over key blocks of the same width) at each of
    # kernel_rules.TILE_KEY_BLOCKS: the key-block width is not recorded, so the ratio is a range;
    # (width, ratio)
    by_key_block: tuple[tuple[int, float], ...] = ()

    @property
    def ratio(self) -> float:
        return self.pairs / self.base_pairs

    @property
    def ratio_range(self) -> tuple[float, float]:
        """The lowest and highest pairs' ratio over the key-block widths (the one-key ratio where none given)."""
        rs = [r for _, r in self.by_key_block] or [self.ratio]
        return min(rs), max(rs)

    @property
    def accounts(self) -> str:
        """"all": the tensor-pipe ratio lies within kernel_rules.TILE_WORK_MATCH of the pairs' ratio range
        (ratio_range);
        "part": the whole range is smaller; "more": it is all larger (the extra pairs do not all cost tensor-pipe
        time, or the inference is off)."""
        lo, hi = self.ratio_range
        if hi / self.tensor_ratio - 1 < -kernel_rules.TILE_WORK_MATCH:
            return "part"
        return "more" if lo / self.tensor_ratio - 1 > kernel_rules.TILE_WORK_MATCH else "all"


def tile_work(mine: Launch, theirs: Launch) -> TileWork | None:
    """The runner-up's (`theirs`) tile work against the fastest's (`mine`), where its tile rows are inferred, the
    point's queries and keys known and both tensor-pipe times counted; None otherwise."""
    a, b = mine.tensor_busy_us, theirs.tensor_busy_us
    rows, q, k = theirs.tile_rows, theirs.queries, theirs.keys
    if not (a and b and rows and q and k):
        return None
    causal = theirs.causal
    pairs, exact = tile_pairs(q, k, rows, causal), exact_pairs(q, k, causal)
    base_rows = mine.design_rows if mine.queries == q and mine.keys == k else None
    checked = base_rows is not None and mine.tile_rows == base_rows
    base = tile_pairs(q, k, base_rows, causal) if base_rows else exact
    tile = kernel_names.decode(mine.name or "").get("tile") if mine.name else None
    by_block = tuple((kb, tile_pairs(q, k, rows, causal, kb)
                      / (tile_pairs(q, k, base_rows, causal, kb) if base_rows else exact))
                     for kb in kernel_rules.TILE_KEY_BLOCKS)
    return TileWork(rows, pairs, exact, causal, base_rows, checked, base, tile, b / a, by_block)


def profiled_trace(ls: tables.LoadedSet, scenario: str, mode: str, variant: str,
                   point: schema.Point | None) -> trace.Trace | None:
    """The trace a verdict's row came from: the scenario's profiled run of the variant, else its sweep record
    at the verdict's point (the same choice as gen.analysis.verdicts.timed)."""
    runs = [r for r in ls.rs.runs if r.scenario == scenario and r.mode == mode]
    if runs:
        run = next((r for r in runs if r.variant == variant), None)
        if run is None or not run.trace or run.status != schema.Status.OK:
            return None
        return ls.trace(mode, variant) if scenario == "article" else ls.sweep_trace(run.trace)
    rec = next((p for p in ls.rs.sweep if p.scenario == scenario and p.mode == mode and p.variant == variant
                and p.point == point), None)
    if rec is None or not rec.trace or rec.status != schema.Status.OK:
        return None
    return ls.sweep_trace(rec.trace)


def launch_of(ls: tables.LoadedSet, variant: str, tr: trace.Trace | None, index: int | None,
              sized_by_longest: bool = False, packed_row: bool = False,
              packed_tiles: bool = False) -> Launch | None:
    """The launch of event `index` of the trace's first profiled call; None where the trace lacks its grid."""
    if tr is None or not tr.forwards or index is None:
        return None
    g = next((e for e in tr.forwards[0].gpu if e.index == index), None)
    if g is None or not g.grid or not g.block:
        return None
    env = ls.environment
    threads = math.prod(g.block)
    occ = tables.theoretical_occupancy(threads, g.registers_per_thread, g.shared_memory, env)
    return Launch(variant, math.prod(g.grid), threads, g.registers_per_thread, g.shared_memory,
                  occ["blocks_per_sm"] if occ else None, occ["limiter"] if occ else None, env.sm_count,
                  sized_by_longest, packed_row, packed_tiles, g.name)


def verdict_launches(ls: tables.LoadedSet, v: verdicts.Verdict, point: schema.Point | None = None
                     ) -> dict[str, Launch]:
    """The main kernels' launches of a verdict's fastest and runner-up; `point`: the verdict's, by default its
    scenario's (verdicts.point_of)."""
    point = point or verdicts.point_of(ls, v.scenario, v.mode)
    out = {}
    for t in (v.fastest, v.runner_up):
        if t is None or t.main_index is None:
            continue
        packed = point is not None and point.mask == "document"
        varlen = VARIANTS[t.variant].kind in VARLEN_KINDS if t.variant in VARIANTS else False
        kind = VARIANTS[t.variant].kind if t.variant in VARIANTS else None
        got = launch_of(ls, t.variant, profiled_trace(ls, v.scenario, v.mode, t.variant, point), t.main_index,
                        sized_by_longest=packed and kind in LONGEST_DOCUMENT_KINDS, packed_row=packed and not varlen,
                        packed_tiles=packed and varlen and kind not in LONGEST_DOCUMENT_KINDS)
        if got is not None:
            out[t.variant] = dataclasses.replace(got, **_work(ls, v, t.variant, got, point))
    return out


def _work(ls: tables.LoadedSet, v: verdicts.Verdict, variant: str, got: Launch, point: schema.Point | None) -> dict:
    """The counters pass's longest kernel (duration, tensor-pipe share) of the variant's profiled run, and the query
    tiles a head of the launch's grid where the point is one of whole heads (no packed documents)."""
    out: dict = {}
    run = ls.rs.run(variant, v.mode, v.scenario)
    ks = run.counters.kernels if run is not None and run.counters and run.counters.status == schema.Status.OK else []
    k = max((k for k in ks if k.duration_ns), key=lambda k: k.duration_ns, default=None)
    if k is not None:
        out.update(counted_us=k.duration_ns / 1e3, tensor_pipe_pct=k.tensor_pipe_pct)
    if point is not None and point.mask != "document" and point.batch and point.q_heads:
        per = point.batch * point.q_heads
        # the point's queries and keys set the tiles' pairs, a persistent grid's too (it gives no tiles a head)
        out.update(queries=point.q_len, keys=point.kv_len,
                   causal=point.mask == schema.Mask.CAUSAL and point.q_len == point.kv_len)
        if got.blocks % per == 0:
            out.update(tiles_per_head=got.blocks // per)
    return out
