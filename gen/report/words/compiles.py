"""A call compiled per configuration in words (gen.analysis.compiles): what its first call at a workload's
configuration compiles, under a scenario page's first table, and the range over a set's first calls for the first
screen."""

from __future__ import annotations

from gen.report.words.common import label, short_label
from gen.report.words.first_calls import place, secs, span
from gen.report.words.methodology import COMPILED_AHEAD_BRIEF


def _where(c) -> str:
    """Where the compile was measured, after its time: "here", in a side process, in a merged capture call, or by the
    workload that ran the configuration first."""
    if c.merged:
        return " in a later capture call, merged"
    if c.ahead:
        return f", {COMPILED_AHEAD_BRIEF}"
    if c.own:
        return " here"
    where = c.title or place(c.scenario, c.mode)
    where = where[0].lower() + where[1:] if len(where) > 1 and where[1].islower() else where
    return f" in this set, at {where}, which ran this configuration first"


def note(c) -> str | None:
    """Under a scenario page's first table, for the call What to call names there: "FlashAttention-4
    (flash_attn.cute)'s first call at this configuration compiles (2.13 s here)."; a training step's compiles its
    backward too; where a call of the same library compiled the configuration just before it, that compile beside
    it. None without a compile."""
    if c is None:
        return None
    what = ("first training step at this configuration compiles its forward and backward" if c.mode == "train" else
            "first call at this configuration compiles")
    after = ""
    if c.after is not None:
        other, s = c.after
        after = (f"; {short_label(other)} had compiled the same configuration for {secs(s)} just before it, and what "
                 "the two share is not recorded")
    return f"{label(c.variant)}'s {what} ({secs(c.seconds)}{_where(c)}{after})."


def cell(compile_s: float) -> str:
    """The first screen's clause for a call named for one workload: "its first call compiles (1.65 s)"."""
    return f"its first call compiles ({secs(compile_s)})"


def spans(s) -> str | None:
    """The first screen's range of a variant's compiles over the set (gen.analysis.compiles.Spans): "1.29–3.16 s a
    forward in this set, 3.55–6.85 s a training step, whose backward compiles too"; None without one."""
    if s is None:
        return None
    parts = []
    if s.forward is not None:
        parts.append(f"{span([s.forward[0], s.forward[1]])} a forward in this set")
    if s.train is not None:
        parts.append(f"{span([s.train[0], s.train[1]])} a training step" + (", " if parts else " in this set, ")
                     + "whose backward compiles too")
    return ", ".join(parts) if parts else None
