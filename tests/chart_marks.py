"""What a chart draws, read from vl-convert's SVG: the tests' one way to count visible marks."""

from __future__ import annotations

import re


def shows(d: str) -> bool:
    """An SVG path that shows: no NaN, and not a rectangle of zero width or height
    (what a bar on a log scale becomes)."""
    return bool(d) and "NaN" not in d and not re.search(r"[hv]0(?![\d.])", d)


def svg(spec: dict) -> str:
    import vl_convert

    spec = dict(spec)
    if spec.get("width") == "container":  # no container outside a browser
        spec["width"] = 600
    return vl_convert.vegalite_to_svg(spec)


def drawn_marks(spec: dict) -> dict[str, int]:
    """Per mark type (mark-symbol, mark-rect, ...), the marks that show: paths that pass
    `shows`, and rules (drawn as lines) that have a length and no NaN."""
    out: dict[str, int] = {}
    for kind, body in re.findall(r'<g class="(mark-\w+) role-mark[^"]*"[^>]*>(.*?)</g>', svg(spec), re.S):
        out[kind] = out.get(kind, 0) + sum(shows(d) for d in re.findall(r'<path[^>]*\sd="([^"]*)"', body))
        lines = re.findall(r'<line[^>]*x2="([^"]*)" y2="([^"]*)"', body)
        out[kind] += sum("NaN" not in x + y and (float(x) or float(y)) != 0 for x, y in lines)
    return out
