"""FlashAttention-4's kernels on this GPU, beside FlashAttention-2 (SDPA flash), cuDNN and the Triton template:
one page per measured set whose FA4 variants have hardware counters (gen.analysis.kernel_story), linked from
the set's page. Every claim rests on what the set recorded; what it did not record is said to be not measured.

Takes: a `site.Context`. Gives: `set_pages(ctx, ls)`, `page(set_name)`, `has_page(ls)`. Template:
fa4_kernels.md.j2.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gen.analysis import kernel_story as ks
from gen.model import schema
from gen.report import format as fmt
from gen.report.site import Context, Page
from gen.report.words import common as words

TITLE = "FlashAttention-4's kernels"
SHORT_NAME = 56  # characters of a kernel's name shown in the table (the full name is on the variant's page)
_FA4_NAME = re.compile(r"FlashAttention(?:Forward|Backward)\w*?Sm\d+")


def page(set_name: str) -> str:
    return fmt.set_subpage(set_name, "fa4-kernels")


def has_page(ls) -> bool:
    return ls.measured and ks.story(ls.rs) is not None


def short_name(name: str) -> str:
    m = _FA4_NAME.search(name)
    if m:
        return m.group(0)
    return name if len(name) <= SHORT_NAME else name[:SHORT_NAME] + "…"


def _pct(x) -> str:
    return fmt.num(x, ".0f", "%")


def _row(k: ks.KernelFacts) -> dict:
    return dict(
        variant=fmt.label_of(k.variant), name=short_name(k.name), full_name=k.name,
        grid=" × ".join(map(str, k.grid)) or fmt.DASH, blocks=fmt.integer(k.blocks),
        block=(f"{fmt.integer(k.threads)} ({k.warps} warps"
               + (f", {k.warpgroups} warpgroup{'s' if k.warpgroups != 1 else ''}" if k.warpgroups else "") + ")")
        if k.threads else fmt.DASH,
        registers=(f"{k.registers_per_thread} × {fmt.integer(k.threads)} = {fmt.integer(k.registers_per_block)} "
                   f"({_pct(k.register_file_share * 100)} of the SM's)") if k.registers_per_block else fmt.DASH,
        smem=(f"{fmt.size(k.shared_memory_bytes)} ({_pct(k.shared_memory_share * 100)})"
              if k.shared_memory_bytes is not None and k.shared_memory_share is not None else fmt.DASH),
        occupancy=(f"{_pct(k.theoretical_occupancy_pct)} / {_pct(k.achieved_occupancy_pct)}"
                   + (f" ({k.occupancy_limiter})" if k.occupancy_limiter else "")),
        duration=fmt.num(k.duration_us, ",.1f"), sm=_pct(k.sm_throughput_pct), dram=_pct(k.dram_throughput_pct),
        tensor=_pct(k.tensor_pipe_pct))


def _main(by: dict[str, list[ks.KernelFacts]], variant: str, part: str) -> ks.KernelFacts | None:
    """A variant's forward (`fwd`) or backward (`bwd`) attention kernel: the longest whose name says which,
    else (a forward-only call) its longest."""
    got = by.get(variant, [])
    if not got:
        return None
    def backward(k: ks.KernelFacts) -> bool:
        low = k.name.lower()
        return any(w in low for w in ("bwd", "bprop", "backward"))

    pool = [k for k in got if backward(k) == (part == "bwd")]
    return max(pool, key=lambda k: k.duration_us or 0.0) if pool else None


def _launch_line(k: ks.KernelFacts, sm_count: int | None, max_regs: int | None) -> str:
    who = fmt.label_of(k.variant)
    text = (f"{who} launches {fmt.integer(k.blocks)} blocks of {fmt.integer(k.threads)} threads"
            + (f" ({k.warpgroups} warpgroup{'s' if k.warpgroups != 1 else ''} of four warps)" if k.warpgroups else
               f" ({k.warps} warps, not a whole number of warpgroups)"))
    if k.registers_per_block and max_regs:
        text += (f" at {k.registers_per_thread} registers a thread at launch: "
                 f"{fmt.integer(k.registers_per_block)} of the SM's {fmt.integer(max_regs)} registers a block, so "
                 f"{k.blocks_per_sm_by_registers} block"
                 f"{'s' if k.blocks_per_sm_by_registers != 1 else ''} a SM at most by registers")
    if k.grid_is_sm_count and sm_count:
        text += f"; its grid is the GPU's {sm_count} SMs, one block each (a persistent grid)"
    return text + "."


def _sentences(story: ks.Story, mode: str) -> list[dict]:
    by = story.modes.get(mode, {})
    out = []
    parts = ("fwd", "bwd") if mode == schema.Mode.TRAIN else ("fwd",)
    for part in parts:
        ks_ = [k for k in (_main(by, v, part) for v in ks.COMPARED) if k is not None]
        if not ks_:
            continue
        what = "forward" if part == "fwd" else "backward"
        out.append(dict(head=f"The {what}.", text=" ".join(_launch_line(k, story.sm_count, story.max_regs_per_sm)
                                                          for k in ks_)))
        tensor = [k for k in ks_ if k.tensor_pipe_pct is not None]
        if tensor:
            ranked = sorted(tensor, key=lambda k: -k.tensor_pipe_pct)
            out.append(dict(head=None, text=f"Tensor pipes active during the {what} kernel (Nsight Compute, share "
                                                f"of the SMs' active cycles): "
                       + ", ".join(f"{fmt.label_of(k.variant)} {_pct(k.tensor_pipe_pct)}" for k in ranked)
                       + "; its duration under the profiler: "
                       + ", ".join(f"{fmt.label_of(k.variant)} {words.duration_us(k.duration_us)}"
                                   for k in sorted(ks_, key=lambda k: k.duration_us or 0.0)) + "."))
    fa4, flash = _main(by, "fa4", "fwd"), _main(by, "flex_flash", "fwd")
    if fa4 and flash and (fa4.block, fa4.grid) != (flash.block, flash.grid):
        out.append(dict(head=None, text=f"The two FA4 paths do not launch the same forward at this shape: "
                   f"flash_attn.cute {fmt.integer(fa4.blocks)} blocks of {fmt.integer(fa4.threads)} threads at "
                   f"{fa4.registers_per_thread} "
                   f"registers, FlexAttention's FLASH backend {fmt.integer(flash.blocks)} blocks of "
                   f"{fmt.integer(flash.threads)} at {flash.registers_per_thread}: each picks its own configuration."))
    return out


def _names(ks_: list[ks.KernelFacts]) -> str:
    return ", ".join(sorted({fmt.label_of(k.variant) for k in ks_}))


# The designs as their authors describe them (FlashAttention-3, Shah et al. 2024, for Hopper; FlashAttention-4,
# Zadouri et al. 2026, for Blackwell), paraphrased: which one a set's kernels follow is read from their class names
FA3_DESIGN = ("the FlashAttention-3 authors describe that design as using the asynchrony of the tensor cores "
              "(wgmma) and of the Tensor Memory Accelerator (TMA) to overlap computation with data movement through "
              "warp specialization, and to interleave block-wise matrix products with the softmax (ping-pong "
              "scheduling between warpgroups)")
FA4_DESIGN = ("pipelines built on fully asynchronous MMA and larger tiles, a software-emulated exponential and "
              "conditional softmax rescaling, and tensor memory (tcgen05/TMEM) with the 2-CTA MMA mode in the "
              "backward pass")
HOPPER, BLACKWELL = 90, 100


def design(story: ks.Story) -> str:
    """The FlashAttention design whose authors' description the rest of the page checks: FlashAttention-3's where
    every flash_attn.cute kernel that ran is a Hopper (Sm90) class, FlashAttention-4's otherwise."""
    return "FlashAttention-3" if story.fa4_classes and set(story.fa4_classes) == {HOPPER} else "FlashAttention-4"


def what_ran(story: ks.Story) -> str | None:
    """Which of flash_attn.cute's kernel classes ran on this GPU, by their names, and whose design they follow.
    None where no kernel name states a class."""
    if not story.fa4_classes:
        return None
    names = words.join_and([c for cs in story.fa4_classes.values() for c in cs])
    gpu = f"this GPU (compute capability {story.compute_capability})" if story.compute_capability else "this GPU"
    users = words.join_and(sorted({fmt.label_of(k.variant) for by in story.modes.values() for got in by.values()
                                     for k in got if k.fa4_class}))
    head = (f"By their names, the flash_attn.cute kernels that ran on {gpu} are {names}, for {users}. "
            f"flash_attn.cute, the package released as FlashAttention-4, picks its kernel classes by the GPU's "
            f"architecture. ")
    if set(story.fa4_classes) == {HOPPER}:
        return (head + "Here it ran its Hopper (Sm90) classes, which follow FlashAttention-3's Hopper design: "
                + FA3_DESIGN + ". The techniques the FlashAttention-4 authors introduce target Blackwell (sm100): "
                + FA4_DESIGN + ". None of them runs on sm90, so every FA4 figure on this page and in this set is "
                "that of the Hopper kernels.")
    if BLACKWELL in story.fa4_classes:
        return (head + "Here it ran Blackwell (Sm100) classes, where the techniques the FlashAttention-4 authors "
                "introduce apply: " + FA4_DESIGN + ". Whether each was used is not measured.")
    return head + "Which design these classes follow is not stated by their names."


def evidence(story: ks.Story) -> list[dict]:
    """What the names and launch shapes show of the features the design's authors describe, and what they do not."""
    every = [k for by in story.modes.values() for got in by.values() for k in got]
    fa4 = [k for k in every if k.variant in ks.FA4_VARIANTS]
    wgmma = [k for k in every if k.name_wgmma]
    tma = [k for k in every if k.name_tma]
    clusters = sorted({(fmt.label_of(k.variant), k.name_cluster) for k in every if k.name_cluster})
    who = f"The {design(story)} authors"
    shapes = sorted({(k.threads, k.warpgroups, k.registers_per_thread) for k in fa4 if k.warpgroups})
    others: dict[str, set[int]] = {}
    for k in every:
        if k.variant not in ks.FA4_VARIANTS and k.warpgroups:
            others.setdefault(k.variant, set()).add(k.warpgroups)
    warpgroups = ("Hopper's wgmma (warpgroup matrix multiply) is issued by a warpgroup of four warps. "
                  + (("The FA4 kernels here launch blocks of "
                      + " and ".join(f"{fmt.integer(t)} threads ({g} warpgroups) at {r} registers a thread"
                                     for t, g, r in shapes)
                      + f". By inference only, a block of several warpgroups fits the split {who[0].lower()}"
                        f"{who[1:]} describe (one warpgroup loading, the others computing); a block's size proves "
                        "neither the split nor wgmma: any block of a multiple of 128 threads is a whole number of "
                        "warpgroups"
                      + ((", and so is every other kernel's here: "
                          + ", ".join(f"{fmt.label_of(v)} {' or '.join(map(str, sorted(g)))}"
                                      for v, g in sorted(others.items()))
                          + (". SDPA flash runs FlashAttention-2, which issues warp-level mma.sync, not wgmma"
                             if "sdpa_flash" in others else ""))
                         if others else "")
                      + ". ")
                     if shapes else "")
                  + (f"Only {_names(wgmma)} names wgmma in its kernel's name. " if wgmma else
                     "No kernel here names wgmma. ")
                  + "The instructions a kernel issues were not recorded, and the tensor-pipe counter recorded counts "
                    "wgmma and the older mma.sync alike: whether FA4's kernels issue wgmma is not measured here; the "
                    "tensor-pipe shares above say how busy the tensor pipes were, whichever instruction fed them.")
    specialization = (f"{who} describe kernels whose warpgroups have roles (some load tiles, "
                      "others run the matrix products and the softmax) and move registers between them. A launch "
                      "records one register count for every thread of a block and no role per warp: what this set "
                      "shows is the block's size and its share of the register file (above); the roles and any "
                      "register moves are not measured.")
    tma_text = (f"{who} describe loads through the Tensor Memory Accelerator. "
                + (f"Only {_names(tma)} names it in a kernel's name; " if tma else "No kernel name here names it, ")
                + "and the counters recorded do not separate TMA traffic from other loads: not measured.")
    softmax = (f"The overlap of one tile's softmax with the next tile's matrix products that {who[0].lower()}{who[1:]} "
               "describe would show in warp-state sampling or an instruction timeline, neither recorded "
               "here: not measured.")
    cluster = ("The launch records hold grid, block, registers and shared memory, not cluster dimensions. "
               + ("Only a kernel's name states one: "
                  + ", ".join(f"{v}, cga{'x'.join(map(str, c))}" for v, c in clusters)
                  + ". FA4's clusters are not recorded." if clusters
                  else "No cluster is recorded for any kernel here."))
    return [dict(head="Warpgroups.", text=warpgroups), dict(head="Warp specialization.", text=specialization),
        dict(head="TMA.", text=tma_text), dict(head="Softmax pipeline.", text=softmax),
        dict(head="Clusters.", text=cluster)]


def view(ls) -> dict | None:
    story = ks.story(ls.rs)
    if story is None:
        return None
    modes = []
    for mode in schema.Mode:
        by = story.modes.get(mode)
        if not by:
            continue
        rows = [_row(k) for v in ks.COMPARED for k in by.get(v, [])]
        modes.append(dict(mode=mode, title="One forward" if mode == schema.Mode.INFERENCE else
                          "One training step (forward and backward)", rows=rows, sentences=_sentences(story, mode)))
    p = next((r.point for r in ls.rs.runs if r.scenario == ks.SCENARIO and r.point is not None), None)
    c = ls.config
    shape = (f"batch {c.batch}, {c.heads} heads, {c.seq_len:,} tokens, head dim {c.head_dim}, {c.dtype}, causal"
             if p is None else f"batch {p.batch}, {p.q_heads} heads, {p.kv_len:,} tokens, head dim {p.head_dim}, "
                               f"{c.dtype}, {p.mask}")
    return dict(modes=modes, evidence=evidence(story), what_ran=what_ran(story), shape=shape,
                missing=[f"{fmt.label_of(v)}: {why}" for v, why in story.missing.items()],
                share=int(ks.MAIN_SHARE * 100), sm_count=story.sm_count, max_regs=story.max_regs_per_sm,
                max_smem=story.max_shared_memory_per_sm)


def set_pages(ctx: Context, ls) -> Iterator[Page]:
    if not ls.measured:
        return
    v = view(ls)
    if v is None:
        return
    here = page(ls.name)
    yield Page(here, ctx.template("fa4_kernels.md.j2").render(here=here, ls=ls, title=TITLE, **v))
