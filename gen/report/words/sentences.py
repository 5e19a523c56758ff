"""Notes as short sentences (the "What to call" paragraph was one sentence of
418 words with brackets three deep). A note's producer gives its clauses as a list, a clause whose bracket holds
clauses of its own as an `Aside`; each clause is then a sentence after the workload's name. Nothing here reads a
clause's text, so a producer that changes its punctuation cannot move where the sentences fall.
gen.report.words.decision builds the "What to call" paragraph with these."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Aside:
    """A clause with clauses of its own in a bracket. In a running clause (`str`): "X (a; b)". As sentences
    (`sentences`): "X: a", "b", so that no bracket holds another where a call's name has one of its own
    ("SDPA (backend not pinned)")."""
    head: str
    inner: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.head} ({'; '.join(self.inner)})"

    def sentences(self) -> list[str]:
        first, *rest = self.inner
        return [f"{self.head}: {first}", *rest]


Clause = str | Aside


def inline(clauses: Iterable[Clause]) -> str:
    """Clauses as one running clause, "; " between them (a verdict's or a scenario page's sentence)."""
    return "; ".join(str(c) for c in clauses)


def flat(clauses: Iterable[Clause]) -> list[str]:
    """Clauses ready to be one sentence each: an Aside's own clauses each one (Aside.sentences)."""
    return [s for c in clauses for s in (c.sentences() if isinstance(c, Aside) else [c])]


def cap(text: str) -> str:
    """`text` with a capital first letter, but a name spelt with its own capitals kept ("cuDNN FP8 …")."""
    word = text.split(" ", 1)[0]
    return text if any(c.isupper() for c in word[1:]) else text[:1].upper() + text[1:]


def note_sentences(place: str, clauses: Iterable[Clause]) -> list[str]:
    """A workload's notes as short sentences, one clause each, the first after the workload's name; [] for none."""
    said = flat(clauses)
    if not said:
        return []
    return [f"{cap(place)}: {said[0]}.", *(f"{cap(x)}." for x in said[1:])]
