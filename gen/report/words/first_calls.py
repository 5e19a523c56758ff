"""A call's first calls over a capture in words (gen.analysis.first_calls): what a new kind of problem paid, what a new
shape of a kind already set up paid, each point named by its scenario and head dim."""

from __future__ import annotations

from gen.analysis.first_calls import NEW_KIND_S, FirstCall
from gen.report.words.common import join_and
from gen.report.words.places import PLACE_WORDS, SCENARIO_WORDS

# A mask a point is the first to take, after "the first call"
MASK_WORDS = {"none": "with no mask", "causal": "with a causal mask", "sliding": "with a sliding-window mask",
              "document": "with a document mask"}


def secs(x: float) -> str:
    """A first call's time: in s from 0.1 s, in ms under it."""
    return f"{x:.2f} s" if x >= 0.1 else f"{x * 1000:.1f} ms"


def span(xs: list[float]) -> str:
    """The range of first calls, in one unit: "37.6–73.1 ms", "0.48–1.24 s"; across the two units, in ms at secs'
    precision there ("37.8–157.3 ms", not "37.8 ms to 0.16 s": one range, one unit)."""
    lo, hi = min(xs), max(xs)
    if secs(lo) == secs(hi):
        return secs(lo)
    if (lo >= 0.1) == (hi >= 0.1):
        return f"{secs(lo).split()[0]}–{secs(hi)}"
    return f"{lo * 1000:.1f}–{hi * 1000:.1f} ms"


def what_was_new(f: FirstCall) -> str:
    """A new kind of problem by what no earlier call had: "the first backward at head dim 128", "the first decode
    call with no mask"; a point with nothing new by those fields (a new kind by its time alone), by its place."""
    noun = "backward" if "mode" in f.new and f.mode == "train" else "forward" if "mode" in f.new else "call"
    if "decode" in f.new and f.point.q_len == 1:
        noun = f"decode {noun}"
    quals = ([f"at head dim {f.point.head_dim}"] if "head_dim" in f.new else []) + (
        [MASK_WORDS.get(str(f.point.mask), f"with a {f.point.mask} mask")] if "mask" in f.new else [])
    return f"the first {noun}" + "".join(f" {q}" for q in quals) if f.new else f"the first call at {where(f)}"


def place(scenario: str, mode: str) -> str:
    """A scenario in a reader's words, its training step said: "prefill with grouped-query attention, training"."""
    said = PLACE_WORDS.get(scenario) or SCENARIO_WORDS.get(scenario, scenario)
    return said + (", training" if mode == "train" and "training" not in said else "")


def length(f: FirstCall) -> str:
    """A point's lengths: "KV 1,024"; with its queries where fewer than its keys: "16 queries × KV 8,192"."""
    p = f.point
    return f"KV {p.kv_len:,}" if p.q_len in (1, p.kv_len) else f"{p.q_len:,} queries × KV {p.kv_len:,}"


def where(f: FirstCall) -> str:
    """A point by scenario, head dim and length: "the article's shape, head dim 128, KV 1,024"."""
    return f"{place(f.scenario, f.mode)}, head dim {f.point.head_dim}, {length(f)}"


def kinds_line(b: str, who: str, variant_label: str, calls: tuple[FirstCall, ...], first_s: float) -> str | None:
    """The start-up as the set measured it ("one-time" it is not): "Expect about 0.48–1.24 s of
    cuDNN set-up at each new kind of problem, not once: the process's first cuDNN call (SDPA cuDNN) took 0.84 s, then
    the first backward 0.95 s, ...; and 37.6–73.1 ms at each new shape of a kind already set up (16 points)". None
    where the capture timed no first call past its first (the caller says what it has)."""
    kinds = [f for f in calls if f.new_kind]
    shapes = [f for f in calls if f.new_shape]
    if not kinds and not shapes:
        return None
    text = (f"{who} first {b} call ({variant_label}) took {secs(first_s)}" if variant_label else
            f"{who} first {b} call took {secs(first_s)}")
    if kinds:
        text = (f"Expect about {span([first_s, *(f.first_call_s for f in kinds)])} of {b} set-up at each new kind of "
                f"problem, not once: {text}, then "
                + join_and(f"{what_was_new(f)} {secs(f.first_call_s)}" for f in kinds))
    else:
        text = f"Expect about {secs(first_s)} of {b} set-up at its first call: {text}"
    if shapes:
        n = len(shapes)
        text += (f"; and {span([f.first_call_s for f in shapes])} at {'each' if n > 1 else 'a'} new shape of a kind "
                 f"already set up ({n} point{'s' if n > 1 else ''}, each under the {secs(NEW_KIND_S)} that marks a new "
                 "kind)")
    return text


def sweep_split(calls: tuple[FirstCall, ...]) -> str | None:
    """The first calls past the profiled runs, split by what they paid (NEW_KIND_S), each named by scenario and head
    dim (they were keyed by KV length alone, one point a length); None where there are none."""
    later = [f for f in calls if not f.run and not f.first]
    if not later:
        return None
    kinds = [f for f in later if f.new_kind]
    shapes = [f for f in later if f.new_shape]
    again = [f for f in later if f.seen]
    parts = [f"Over the sweep its first calls split at {secs(NEW_KIND_S)}"]
    if kinds:
        parts.append("A new kind of problem: " + join_and(
            f"{secs(f.first_call_s)} ({where(f)}: {what_was_new(f)})" for f in kinds))
    if shapes:
        groups: dict = {}
        for f in shapes:
            groups.setdefault((place(f.scenario, f.mode), f.point.head_dim), []).append(f)
        parts.append("A new shape of a kind already set up: " + "; ".join(
            f"{p}, head dim {d}: " + ", ".join(f"{secs(f.first_call_s)} ({length(f)})" for f in fs)
            for (p, d), fs in groups.items()))
    if again:
        parts.append("The same problem as an earlier call: " + join_and(
            f"{secs(f.first_call_s)} ({where(f)})" for f in again))
    return ". ".join(parts) + "."
