"""Notes as short sentences (review 2026-12-07-1, second reader, N3): a clause list cut at its top-level "; ", a
closing bracket that holds another bracket opened up, each clause a sentence after the workload's name.
gen.report.words.decision builds the "What to call" paragraph with these."""

from __future__ import annotations


def split_top(text: str) -> list[str]:
    """`text` cut at each "; " outside parentheses (the clauses of a note, one a sentence)."""
    pieces, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and text.startswith("; ", i):
            pieces.append(text[start:i])
            start = i + 2
    return [x.strip() for x in [*pieces, text[start:]] if x.strip()]


def unnest(piece: str) -> list[str]:
    """A clause whose closing bracket holds another bracket, as sentences: "X (a; b (c))" -> "X: a", "b (c)"."""
    if not piece.endswith(")"):
        return [piece]
    level, i = 0, len(piece) - 1
    for i in range(len(piece) - 1, -1, -1):
        level += (piece[i] == ")") - (piece[i] == "(")
        if level == 0:
            break
    inner = piece[i + 1:-1]
    if "(" not in inner or i == 0:
        return [piece]
    first, *rest = split_top(inner)
    return [*unnest(f"{piece[:i].rstrip()}: {first}"), *(x for r in rest for x in unnest(r))]


def cap(text: str) -> str:
    """`text` with a capital first letter, but a name spelt with its own capitals kept ("cuDNN FP8 …")."""
    word = text.split(" ", 1)[0]
    return text if any(c.isupper() for c in word[1:]) else text[:1].upper() + text[1:]


def note_sentences(place: str, parts: list[str]) -> str:
    """A workload's notes as short sentences, one clause each, after the workload's name (review 2026-12-07-1 N3:
    the decision was one sentence of 418 words with brackets three deep)."""
    pieces = [y for part in parts for x in split_top(part) for y in unnest(x)]
    if not pieces:
        return ""
    return " ".join([f"{cap(place)}: {pieces[0]}.", *(f"{cap(x)}." for x in pieces[1:])])
