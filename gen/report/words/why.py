"""The verdict's "Why" line: what the profiled calls show of why the fastest wins (the work a dense
mask adds, fewer GPU events, the main kernels' times and launches)."""

from __future__ import annotations

from gen.analysis import kernel_names, verdicts
from gen.analysis import why as why_facts
from gen.analysis.launches import Launch, TileWork, tile_work
from gen.report.words.common import flop_label, label, us
from gen.report.words.kernels import kernel_path, kernel_path_short


def why_line(v: verdicts.Verdict, launched: dict[str, Launch] | None = None) -> str | None:
    """Why the fastest wins, from its profiled call against the runner-up's; `launched`: their main kernels'
    launches (gen.analysis.launches.verdict_launches), said where both are known. None for a tie: where the
    runner-up is within noise of the fastest there is no win to explain."""
    w = v.why
    if w is None or (v.runner_up is not None and v.runner_up.variant in v.near):
        return None
    got = launched or {}
    pair = (got.get(v.fastest.variant), got.get(v.runner_up.variant)) if v.runner_up is not None else (None, None)
    if w.kind == "dense_mask":
        return dense_mask_line(w, label(v.runner_up.variant), label(v.fastest.variant))
    if w.kind == "fewer_events":
        runner = label(v.runner_up.variant)
        text = (f"Why: it runs {w.fastest_events} GPU event{'s' if w.fastest_events != 1 else ''} a call against "
                f"{w.runner_up_events} for {runner}")
        if w.runner_up_events_us and w.runner_up_main_us and w.fastest_events_us:
            gap = w.runner_up_events_us - w.fastest_events_us
            text += (f": {runner}'s events besides its main kernel take "
                     f"{us((w.runner_up_events_us - w.runner_up_main_us) / 1000)}"
                     + of_gap(w.runner_up_events_us - w.runner_up_main_us, gap))
            if w.fastest_main_us:
                text += (f"; the main kernels themselves: {kernel_path(kernel_names.path(v.fastest.main_kernel or ''))}"
                         f"{took(w.fastest_main_us)} against {runner}'s {us(w.runner_up_main_us / 1000)}")
        return text + "." + launches(w, runner, pair)
    mine = kernel_path(kernel_names.path(v.fastest.main_kernel or ""))
    rivals = "; ".join(f"{label(r.variant)} runs {kernel_path(kernel_names.path(r.kernel or ''))}{took(r.main_us)}"
                       for r in w.compared)
    if w.kind == "main_kernel" and w.fastest_main_us and w.runner_up_main_us:
        return main_kernel_line(w, v.fastest.main_kernel, label(v.runner_up.variant), pair)
    if w.kind == "main_kernel":
        extra = ""
        if w.runner_up_events_us and w.runner_up_main_us and w.runner_up_events_us > w.runner_up_main_us:
            extra = f"; {label(v.runner_up.variant)}'s other GPU events take " \
                    f"{us((w.runner_up_events_us - w.runner_up_main_us) / 1000)}"
            if w.fastest_events_us and w.runner_up_events_us > w.fastest_events_us:
                extra += of_gap(w.runner_up_events_us - w.runner_up_main_us,
                                w.runner_up_events_us - w.fastest_events_us)
        return f"Why: the attention kernels themselves: its main kernel is {mine}{took(w.fastest_main_us)}; " \
               f"{rivals}{extra}.{launches(w, label(v.runner_up.variant), pair)}"
    return native_arch_line(w, mine, rivals)


def native_arch_line(w: why_facts.Why, mine: str, rivals: str) -> str | None:
    """The kernels' build as the reason, only where the profiled calls bear it out: None where a rival's main
    kernel ran quicker than the fastest's (the build then explains nothing of the win)."""
    if w.fastest_main_us and any(r.main_us is not None and r.main_us < w.fastest_main_us for r in w.compared):
        return None
    return f"Why: its main kernel is {mine}{took(w.fastest_main_us)}; {rivals}."


def main_kernel_line(w: why_facts.Why, fastest_kernel: str | None, runner: str,
                     pair: tuple[Launch | None, Launch | None] = (None, None)) -> str:
    """The measured cause where the main kernels make the gap: their times in the profiled calls and how much of
    the gap their difference is, then each kernel by what its name says (an identity, not a reason: why one
    kernel is quicker than the other is not measured here beyond its launch)."""
    rival = w.compared[0].kernel if w.compared else None
    diff = w.runner_up_main_us - w.fastest_main_us
    gap = w.runner_up_events_us - w.fastest_events_us if w.runner_up_events_us and w.fastest_events_us else None
    text = (f"Why: the main kernels make the difference. In the profiled calls its own took "
            f"{us(w.fastest_main_us / 1000)} and that of {runner} {us(w.runner_up_main_us / 1000)}, "
            f"{us(diff / 1000)} apart" + (of_gap(diff, gap, rest=None) if gap else ""))
    if gap and 0 < gap < diff:
        # the main kernels differ the same way as the whole calls, by more: the other kernels give some back
        text += (f": its other GPU events take {us((diff - gap) / 1000)} more than {runner}'s, which the slower "
                 f"main kernel of {runner} more than outweighs (the other kernels differ the other way)")
    if w.runner_up_events_us and w.runner_up_main_us and w.runner_up_events_us > w.runner_up_main_us:
        text += (f"; {runner}'s other GPU events take {us((w.runner_up_events_us - w.runner_up_main_us) / 1000)}"
                 + (of_gap(w.runner_up_events_us - w.runner_up_main_us, gap, rest=None) if gap else ""))
    mine, theirs = (kernel_path_short(kernel_names.path(k or "")) for k in (fastest_kernel, rival))
    text += (f". Both main kernels: {mine}" if mine == theirs else f". Kernels: {mine} against {theirs}")
    return text + "." + launches(w, runner, pair)


def of_gap(part_us: float, gap_us: float, rest: str | None = "the main kernels") -> str:
    """A part set against the gap between two profiled calls: "of the gap" only where it fits in it (never
    "3.6 µs of the 3.2 µs gap"); a larger part is set beside the whole gap, and `rest` (what the gap holds besides
    the part) then differs the other way (None: not said)."""
    if gap_us <= 0:
        return ""
    if part_us <= gap_us:
        return f" of the {us(gap_us / 1000)} gap in the profiled calls"
    return (f", more than the whole {us(gap_us / 1000)} gap between the profiled calls"
            + (f" ({rest} differ the other way)" if rest else ""))


def launches(w: why_facts.Why, runner: str, pair: tuple[Launch | None, Launch | None] = (None, None)) -> str:
    """The two main kernels' launches as their traces recorded them (grid, block, registers, shared memory:
    `pair`, the fastest's and the runner-up's), what each makes of the GPU's SMs, and whether they differ.
    Without both launches, the grids alone and only where they differ and a grid leaves SMs idle (a decode
    step or a short chunk, no split of the keys)."""
    mine, theirs = pair
    if mine is not None and theirs is not None:
        return launched_line(mine, theirs, runner)
    a, b, sms = w.fastest_main_blocks, w.runner_up_main_blocks, w.sm_count
    # Only where a grid leaves SMs idle: past that, blocks that exit at once (a varlen grid sized
    # by the longest document) make a count of blocks say nothing of the work.
    if not a or not b or a == b or not sms or min(a, b) >= sms:
        return ""
    text = f" Launches: its main kernel runs {a:,} thread blocks, {runner}'s {b:,}"
    if sms:
        text += f", on {sms} SMs"
        idle = [f"{n:,} blocks leave {sms - n} SMs without one" for n in (a, b) if n < sms]
        if idle:
            text += f" ({'; '.join(idle)})"
    return text + "."


def _config(x: Launch) -> tuple:
    return x.blocks, x.threads, x.registers_per_thread, x.shared_memory


def _packed_grid(x: Launch) -> str | None:
    """How a packed-documents call's grid covers the documents (its block count then says nothing of waves)."""
    if x.sized_by_longest:
        return "a grid sized by the longest document: blocks past a shorter one exit at once"
    if x.packed_tiles:
        return "one block a query tile of the packed tokens: its scheduler finds each tile's document"
    if x.packed_row:
        return "one grid over the whole packed row: its block mask skips the tiles across documents"
    return None


def launch_words(x: Launch) -> str:
    """"768 blocks of 512 threads (4 warpgroups) at 128 registers a thread and 89.0 KiB of shared memory a
    block, about 5.8 waves of 132 blocks (1 a SM, set by its registers)"."""
    groups = x.warpgroups
    text = f"{x.blocks:,} blocks of {x.threads} threads"
    if groups:
        text += f" ({groups} warpgroup{'s' if groups != 1 else ''})"
    res = []
    if x.registers_per_thread:
        # the launch's allocation: a warp-specialized kernel moves registers between its warpgroups at run time
        # (setmaxnreg), which the trace does not record
        res.append(f"{x.registers_per_thread} registers a thread at launch")
    if x.shared_memory:
        res.append(f"{x.shared_memory / 1024:.1f} KiB of shared memory a block")
    if res:
        text += " at " + " and ".join(res)
    sms = x.sm_count
    packed = _packed_grid(x)
    if packed:
        return text + f" ({packed})"
    if x.persistent:
        return text + f", one block on each of the {sms} SMs (a persistent grid, each block looping over tiles)"
    if sms and x.blocks < sms:
        return text + f": {x.blocks:,} blocks leave {sms - x.blocks} SMs without one"
    if x.waves is not None:
        at_once = f"{sms * x.blocks_per_sm:,} blocks ({x.blocks_per_sm} a SM" + (
            f", set by its {x.limiter})" if x.limiter else ")")
        text += (f", under one wave of {at_once}" if x.waves < 1 else f", about {x.waves:.1f} waves of {at_once}")
    return text


def launched_line(mine: Launch, theirs: Launch, runner: str) -> str:
    """Both main kernels' launches: alike (then the launch does not set them apart), or each its own."""
    if _config(mine) == _config(theirs):
        if mine.name and theirs.name and mine.name != theirs.name:
            return (f" Launches (the profiled calls' traces): both main kernels run {launch_words(mine)}: the launch "
                    "does not set them apart, but the two are different compiled instances (their names differ), so "
                    "the gap is in what each does a tile (for FlexAttention's, following its block mask), which the "
                    "trace does not show.")
        return (f" Launches (the profiled calls' traces): both main kernels run {launch_words(mine)}: the launch "
                "does not set them apart; what does is not measured here.")
    return (f" Launches (the profiled calls' traces): its main kernel runs {launch_words(mine)}; {runner}'s "
            f"{launch_words(theirs)}." + work_line(mine, theirs, runner))


def work_line(mine: Launch, theirs: Launch, runner: str) -> str:
    """What the two launches and the counters pass make of the gap: the rows a grid's query tiles pad
    (inferred tile rows, Launch.tile_rows), the (query, key) pairs those tiles visit under the point's mask
    (launches.tile_work: causal) and the time each kernel's tensor pipes were active;
    "" without them."""
    parts = []
    for x, who in ((theirs, runner), (mine, "the fastest")):
        if x.padded_rows and x.queries and x.padded_rows > x.queries:
            # one tile or several agree in number; the tile's rows are read off its warpgroups, which the trace gives
            # (the kernel records no tile); an exact ratio of rows without trailing zeros
            tiles = "one query tile" if x.tiles_per_head == 1 else f"{x.tiles_per_head} query tiles"
            over = f"{x.padded_rows / x.queries:.3f}".rstrip("0").rstrip(".")
            parts.append(
                f"{who}'s {x.blocks:,} blocks are {tiles} a head; each tile holds {x.tile_rows} rows "
                f"({x.warpgroups - 1} MMA warpgroups of 64 rows beside one producer, the FA3 design, read from its "
                f"{x.warpgroups} warpgroups; the kernel records no tile size), so the tiles cover "
                f"{x.padded_rows:,} rows for {x.queries:,} queries, {over}× the rows needed")
    w = tile_work(mine, theirs)
    if w is not None:
        parts.append(_pairs_words(w, mine, runner))
    a, b = mine.tensor_busy_us, theirs.tensor_busy_us
    if a and b:
        parts.append(
            f"by Nsight Compute's counters pass the tensor pipes of {runner}'s main kernel were active "
            f"{theirs.tensor_pipe_pct:.0f}% of its {theirs.counted_us:.1f} µs ({b:.1f} µs) against "
            f"{mine.tensor_pipe_pct:.0f}% of {mine.counted_us:.1f} µs ({a:.1f} µs) for the fastest's: {b / a:.2f}× "
            "the tensor-pipe time for the same attention" if b > a else
            f"by Nsight Compute's counters pass the tensor pipes were active {b:.1f} µs in {runner}'s main kernel "
            f"against {a:.1f} µs in the fastest's")
    if not parts:
        return ""
    if w is not None and b > a and w.pairs > w.base_pairs:
        parts[-1] += "; " + _accounts_words(w)
    return " By inference from these: " + "; ".join(parts) + "."


def _pairs_words(w: TileWork, mine: Launch, runner: str) -> str:
    """The pairs the runner-up's tiles visit, against the exact ones and the fastest's tiles (by the same
    inference, said whether its grid could check it)."""
    if w.causal:
        text = (f"under the causal mask each of {runner}'s tiles runs over the keys up to its last row, so its "
                f"{w.rows}-row tiles visit {w.pairs:,} (query, key) pairs a head against {w.exact:,} in the causal "
                f"triangle ({w.pairs / w.exact:.2f}×)")
    else:
        text = (f"{runner}'s {w.rows}-row tiles visit {w.pairs:,} (query, key) pairs a head against the {w.exact:,} "
                f"asked for ({w.pairs / w.exact:.3f}×)")
    if w.base_rows:
        check = ("as its grid confirms" if w.base_checked else "not checked: its grid is persistent"
                 if mine.persistent else "not checked against its grid")
        tile = ("; its name's tile field reads " + "×".join(str(x) for x in w.base_name_tile)
                if w.base_name_tile else "")
        text += (f"; the fastest's {mine.warpgroups} warpgroups give {w.base_rows}-row tiles by the same inference "
                 f"({check}{tile}), {w.base_pairs:,} pairs")
    return text


def _accounts_words(w: TileWork) -> str:
    """How much of the tensor-pipe ratio the tiles' pairs can account for (kernel_rules.TILE_WORK_MATCH), inferred."""
    against = "the fastest's tiles'" if w.base_rows else "the pairs asked for"
    lo, hi = w.ratio_range
    shown = f"{lo:.2f}×" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}×"
    head = f"the tiles' pairs are {shown} {against}"
    if lo != hi:
        ws = [f"{kb:,}" for kb, _ in w.by_key_block]
        widths = ", ".join(ws[:-1]) + f" or {ws[-1]} keys"
        head += f" depending on the key-block width ({widths} a block: not recorded)"
    if w.accounts == "all":
        # within kernel_rules.TILE_WORK_MATCH of the range: "about all", the range and the counters' spread being
        # what they are
        return f"{head}: the tiling can account for about all of the measured {w.tensor_ratio:.2f}× (inferred)"
    if w.accounts == "part":
        return (f"{head}: the tiling can account for {shown} of that {w.tensor_ratio:.2f}× (inferred), the "
                "rest is not measured here")
    return (f"{head}, more than that {w.tensor_ratio:.2f}×: the pairs' count does not carry over to tensor-pipe "
            "time whole here, or the tile inference does not hold (inferred)")


def took(x: float | None) -> str:
    """A main kernel's duration in its profiled call (µs in), as a parenthesis."""
    return f" ({us(x / 1000)} in its profiled call)" if x else ""


def dense_mask_line(w: why_facts.Why, runner: str, fastest: str) -> str:
    """Why a call that scores every (query, key) pair loses to one that skips the masked ones."""
    p = w.point
    if p.mask == "sliding":
        arg, mask, inside = "no sliding-window argument", f"the {p.window:,}-token window", "inside the window"
    else:
        arg, mask, inside = f"no argument for a {p.mask} mask of this shape", "the mask", "the mask lets through"
    text = (f"Why: the work. scaled_dot_product_attention has {arg}, so {mask} goes in as a dense boolean "
            f"attn_mask of {p.q_len:,} × {p.kv_len:,} and {runner} scores every (query, key) pair: "
            f"{w.dense_flops / 1e12:.2f} TFLOP against {w.masked_flops / 1e12:.2f} TFLOP {inside} "
            f"({w.dense_flops / w.masked_flops:.1f}×, {flop_label([p])})")
    if w.runner_up_main_us and w.runner_up_events_us:
        text += (f"; its attention kernel takes {w.runner_up_main_us / 1000:.2f} of the "
                 f"{w.runner_up_events_us / 1000:.2f} ms of GPU events in its profiled call")
    skip = "the blocks wholly outside the window" if p.mask == "sliding" else "the blocks the mask removes wholly"
    return text + f". {fastest}'s block mask lets it skip {skip}."
