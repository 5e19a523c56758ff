"""Which charts draw too few points to be a chart: a table row says it better, so a page gives a row
instead of the chart (issue 33).

Takes: a Vega-Lite spec (as the chart modules give it, datasets inline). Gives: `one_point(spec)`.
"""

from __future__ import annotations


def one_point(spec: dict) -> bool:
    """A chart that draws one point at most (every dataset one row or none): a table row says it
    better, so the pages give a row instead of the chart."""
    sets = list((spec.get("datasets") or {}).values())
    inline = [(spec.get("data") or {}).get("values")] + [(layer.get("data") or {}).get("values")
                                                          for layer in spec.get("layer", [])]
    sets += [v for v in inline if isinstance(v, list)]
    return all(len(rows) <= 1 for rows in sets)
