"""What PyTorch said, as plain reasons: stdlib only, shared by capture (where reasons are read)
and analysis (where a committed set's reasons are shown).

Takes: lines PyTorch wrote (warnings, C++ warnings on stderr, its logging records). Gives:
`plain(line)` without a logging prefix (torch's stderr handler writes
"W1203 16:39:50.619000 452 torch/nested/_internal/sdpa.py:286] message"), and `reasons(text)`:
a "; "-joined reason with prefixes stripped and repeats dropped.
"""

from __future__ import annotations

import re

# glog-style: level letter, MMDD, time with fraction, thread/process id, file:line, "]".
LOG_PREFIX = re.compile(r"^\s*\[?[IWEF]\d{4} \d\d:\d\d:\d\d(?:\.\d+)? +\d+ +[^\s\]]+:\d+\] *")


def plain(line: str) -> str:
    return " ".join(LOG_PREFIX.sub("", line).split())


def reasons(text: str) -> str:
    """A "; "-joined reason: each part without its logging prefix, once, in order. A part's
    trailing period is not what makes it distinct."""
    seen: dict[str, str] = {}
    for part in text.split("; "):
        p = plain(part)
        if p:
            seen.setdefault(p.rstrip("."), p)
    return "; ".join(seen.values())
