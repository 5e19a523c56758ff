"""A call compiled per configuration in words (gen.analysis.compiles): what its first call at a workload's
configuration compiles, under a scenario page's first table, and the range over a set's first calls for the first
screen."""

from __future__ import annotations

from gen.model.scenarios import SCENARIOS
from gen.report.words.common import join_and, label, short_label
from gen.report.words.dynamic import PHASE_WHERE
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
        after = (f"; {short_label(c.after.variant)} had compiled the same configuration for {secs(c.after.seconds)} "
                 "just before it, and what "
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
        parts.append(f"{span([s.forward.fewest_s, s.forward.most_s])} a forward in this set")
    if s.train is not None:
        parts.append(f"{span([s.train.fewest_s, s.train.most_s])} a training step"
                     + (", " if parts else " in this set, ") + "whose backward compiles too")
    return ", ".join(parts) if parts else None


def after_spans(s) -> str | None:
    """A sentence for each training step of the same library that compiled right after the range's variant
    (compiles.Spans.train_after), which the range leaves out: "The first training step of FlashAttention-4
    (deterministic backward) took 2.33 s right after FlashAttention-4 had compiled the same configuration; alone it
    was not measured."; None without one."""
    if s is None or not s.train_after:
        return None
    return " ".join(f"The first training step of {label(a.variant)} took {secs(a.seconds)} right after "
                    f"{short_label(s.variant)} had compiled the same configuration; alone it was not measured."
                    for a in s.train_after)


def _low(title: str) -> str:
    return title[0].lower() + title[1:] if len(title) > 1 and title[1].islower() else title


def _scenario(name: str) -> str:
    """A scenario's title as it reads mid-sentence ("decode from a KV cache"), its name where it has none."""
    return _low(SCENARIOS[name].title) if name in SCENARIOS else name


# The configuration fields of gen.analysis.recompiles in words
CONFIG_WORDS = {"batch": "batch", "q_heads": "query heads", "kv_heads": "KV heads", "head_dim": "head dim",
                "mask": "mask", "window": "window", "docs": "documents"}


def _config_value(name: str, v) -> str:
    if name == "mask":
        return "none" if v == "none" else str(v)
    if isinstance(v, tuple):
        return "+".join(f"{x:,}" for x in v)
    return f"{v:,}" if isinstance(v, int) else str(v)


def recompiled(recs, phase_words: str) -> str | None:
    """The compiled calls that compiled again at a phase's first length although an earlier scenario of the set had
    compiled the nearest configuration (gen.analysis.recompiles), grouped by what differed: "At
    decode steps, FlashAttention-4 (1.43 s) compiled again at its first length, although the set's decode scenario
    had compiled it earlier in this process for the same query heads (32), KV heads (8), head dim (128) and mask
    (none): only the batch differed (8 there, 1 here)."."""
    if not recs:
        return None
    groups: dict = {}
    for r in recs:
        groups.setdefault((r.scenario, r.differs, r.same), []).append(r)
    out = []
    for (scenario, differs, same), rs in groups.items():
        who = join_and(f"{label(r.variant)} ({r.first_ms / 1e3:.2f} s)" for r in rs)
        them = "it" if len(rs) == 1 else "them"
        alike = join_and(f"{CONFIG_WORDS.get(f, f)} ({_config_value(f, v)})" for f, v in same)
        diff = join_and(f"the {CONFIG_WORDS.get(f, f)} ({_config_value(f, a)} there, {_config_value(f, b)} here)"
                        for f, a, b in ((d.name, d.there, d.here) for d in differs))
        out.append(f"{phase_words[0].upper()}{phase_words[1:]}, {who} paid a compile again at the first length, "
                   f"although the set's {_scenario(scenario)} runs had compiled {them} earlier in this capture "
                   "process"
                   + (f" for the same {alike}" if alike else "")
                   + (f": of what the set records of a configuration, only {diff} differed." if diff
                      else ": nothing the set records of a configuration differed."))
    return " ".join(out)


# What a compiled call is compiled for, as the first screen lists it (the fields of gen.analysis.recompiles it
# covers); a field the set shows a compile for beyond these is added with its evidence
COMPILE_KEYS = "dtype, head dim, mask, grouping of heads"
COMPILE_KEY_FIELDS = frozenset({"head_dim", "mask", "q_heads", "kv_heads"})


def compiled_beyond_keys(recompiled) -> str | None:
    """Where the set's dynamic-lengths runs compiled again with none of COMPILE_KEYS' fields differing, a sentence
    saying the list is not all: "A configuration holds more than the set records: at decode steps it compiled again
    (1.43 s) after the set's decode from a KV cache runs had compiled it, though of the fields the set records only
    the batch differed (8 there, 1 here)."; None where no such compile. The set records no compile key, so the
    differing field is said, not called the cause."""
    extra = []
    for r in recompiled:
        missed = [(d.name, d.there, d.here) for d in r.differs if d.name not in COMPILE_KEY_FIELDS]
        if len(missed) == len(r.differs):  # nothing in the list explains this compile
            differed = join_and(f"{CONFIG_WORDS.get(f, f)}" for f, _, _ in missed)
            values = "; ".join(f"{_config_value(f, a)} there, {_config_value(f, b)} here" for f, a, b in missed)
            extra.append(f"{PHASE_WHERE.get(r.phase, r.phase)} it compiled again ({r.first_ms / 1e3:.2f} s) after "
                         f"the set's {_scenario(r.scenario)} runs had compiled it, though "
                         + (f"of the fields the set records only the {differed} differed ({values})" if missed
                            else "no field the set records differed"))
    return f"A configuration holds more than the set records: {'; '.join(extra)}." if extra else None
