"""Which charts draw too few points to be a chart (issue 33): one point in all, or one point in each series
where a line is drawn (a line through one point draws nothing: the chart is a column of dots). A table row
says it better, so a page gives its table's rows instead of the chart.

Takes: a Vega-Lite spec (as the chart modules give it, datasets inline), or an Altair chart. Gives:
`one_point(spec)` and `drawn(chart)` (its spec, or None where it is not worth a chart).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

# The channels that split a mark's rows into series (one line each), with the facet's.
SERIES = ("color", "detail", "strokeDash", "shape", "fill", "stroke", "row", "column", "facet", "yOffset", "xOffset")


def _rows(spec: dict, data: dict | None) -> list[dict]:
    """The rows of a data reference: a named dataset of the spec, or values inline."""
    if not data:
        return []
    if "name" in data:
        return (spec.get("datasets") or {}).get(data["name"], [])
    values = data.get("values")
    return values if isinstance(values, list) else []


def _nodes(spec: dict) -> Iterator[dict]:
    """The spec and every view inside it (layers, a facet's spec)."""
    yield spec
    for layer in spec.get("layer", []):
        yield from _nodes(layer)
    if isinstance(spec.get("spec"), dict):
        yield from _nodes(spec["spec"])


def _marks(spec: dict, data: dict | None = None, split: tuple = ()) -> Iterator[tuple[str, dict, dict | None, tuple]]:
    """Every mark of a (layered, faceted) spec: its type, encoding, data (its own or inherited) and the fields
    of the facets above it."""
    data = spec.get("data") or data
    facet = spec.get("facet") or {}
    split = split + tuple(f["field"] for f in ([facet] if "field" in facet else facet.values())
                          if isinstance(f, dict) and "field" in f)
    mark = spec.get("mark")
    if mark:
        yield (mark if isinstance(mark, str) else mark.get("type", "")), spec.get("encoding") or {}, data, split
    for layer in spec.get("layer", []):
        yield from _marks(layer, data, split)
    if isinstance(spec.get("spec"), dict):
        yield from _marks(spec["spec"], data, split)


def one_point(spec: dict) -> bool:
    """A chart that draws one point at most (every dataset one row or none), or whose lines each go through one
    point at most (every line mark's rows, split by its series' fields, one row a series): a table row says it
    better, so the pages give their table's rows instead of the chart."""
    sets = list((spec.get("datasets") or {}).values())
    sets += [n["data"]["values"] for n in _nodes(spec) if isinstance((n.get("data") or {}).get("values"), list)]
    if all(len(rows) <= 1 for rows in sets):
        return True
    lines = [(enc, data, split) for kind, enc, data, split in _marks(spec) if kind == "line"]
    for enc, data, split in lines:
        fields = split + tuple(enc[c]["field"] for c in SERIES if isinstance(enc.get(c), dict) and "field" in enc[c])
        per = Counter(tuple(str(r.get(f)) for f in fields) for r in _rows(spec, data))
        if per and max(per.values()) > 1:
            return False
    return bool(lines)


def drawn(chart) -> dict | None:
    """The chart's spec where it is worth drawing, else None (one_point): the page shows its table's rows."""
    spec = chart if isinstance(chart, dict) else chart.to_dict(validate=False)
    return None if one_point(spec) else spec
