"""What every chart shares: altair imported where a chart is first made (`alt`, `preload`), the log
scales (`log`, `seq_len`; as Vega-Lite's JSON: LOG, LENGTH), the row height, the colour of a measured figure and
the two kinds of figure (MEASURED, PUBLISHED, and their marks' shapes), and a view written in Vega-Lite's JSON
(`view`, `inline`, `quantitative`, `nominal`). Takes nothing; gives these to the chart modules beside it.
"""

from __future__ import annotations

ROW_PX = 20  # one lane or one variant
MEASURED_COLOUR = "#4f7fd6"
MEASURED = "measured (median, IQR)"
PUBLISHED = "published (one figure)"


class _Altair:
    """altair, imported where a chart is first made with it: a build with no page to make (every set's
    pages in the cache) never imports it, and its start is 0.2 s shorter."""

    def __getattr__(self, name: str):
        import altair

        return getattr(altair, name)


alt = _Altair()


def preload() -> None:
    """Import altair now (where the caller has time to spare, or before forking workers that will draw)."""
    import altair  # noqa: F401


# Times span orders of magnitude: log axes, fitted to the data (a "nice" log
# domain would run to the next power of ten), with room for the marks. A bar
# starts at zero, which a log scale cannot place: on it, draw points, not bars.
LOG = {"type": "log", "nice": False, "padding": 12}
LENGTH = {"type": "log", "base": 2, "nice": False, "padding": 12}  # lengths: base 2, fitted as LOG
FIGURE_SHAPES = {"domain": [MEASURED, PUBLISHED], "range": ["circle", "diamond"]}


def log():  # a function: altair is imported where a chart is made
    return alt.Scale(**LOG)


def seq_len():  # a function: altair is imported where a chart is made
    return alt.Scale(type="log", base=2)


def quantitative(name: str, **props) -> dict:
    """A quantitative field's channel, in Vega-Lite's JSON (its properties as Vega-Lite names them)."""
    return {"field": name, "type": "quantitative", **props}


def nominal(name: str, **props) -> dict:
    """A nominal field's channel, in Vega-Lite's JSON."""
    return {"field": name, "type": "nominal", **props}


def inline(rows: list[dict]) -> dict:
    """Rows as a view's or layer's data: Vega-Lite's inline data as a dict, which Altair names and moves to the
    spec's datasets as it does alt.InlineData. alt.InlineData(values=rows) is checked against the schema, every row,
    when it is made (Altair's default); a dict is taken as it is."""
    return {"values": rows}


def view(data, mark: dict, transform: list | None = None, **encoding):
    """One view: its data (None: its layer's), its mark, its transforms and its encoding (channel name ->
    Vega-Lite's JSON of the channel). Altair holds it, layers it and names its data; it copies a chart's channel
    objects several times over (each layer and to_dict), and dicts copy cheaply."""
    return alt.Chart(alt.Undefined if data is None else data, mark=mark, encoding=alt.FacetedEncoding(**encoding),
                     **({"transform": transform} if transform else {}))
