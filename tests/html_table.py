"""The rows of a page's finished-HTML tables (a row's cells one a line, as the report writes them)
as Markdown table lines, `| a | b |`, each cell's HTML as it is: for tests that read a table line
by line, whichever form the page gives it."""

from __future__ import annotations

import re

_ROW = re.compile(r"<tr>\n(.*?)\n</tr>", re.S)
_CELL = re.compile(r"<t[hd][^>]*>(.*?)</t[hd]>")


def lines(text: str) -> list[str]:
    """The page's lines, then each row of its finished-HTML tables as one Markdown table line."""
    return text.splitlines() + ["| " + " | ".join(_CELL.findall(row)) + " |" for row in _ROW.findall(text)]
