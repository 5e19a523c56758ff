"""The same spec as Altair's, made faster: a chart's shape (its marks, encodings, scales, titles: all but
its rows) is made by Altair once per process and shape, then filled with each call's rows. Altair takes
some 60 ms a chart, and a set brings about twenty. Each chart module's `*_spec` functions give what their
chart's `.to_dict()` gives (tests/test_charts.py compares them).

Takes: a key, the chart's frames (or rows) and the function that builds it. Gives: `fast`, `open_shape`
(a shape with placeholders for the series order and length ticks), `values` (a frame's rows as Altair
writes them), and `shapes` / `add_shapes` (the shapes held, which a build keeps between runs).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd

from gen.report.charts.base import alt


def _dataset_name(values: list) -> str:
    """The name altair gives an inline dataset of these rows (altair.vegalite.v6.api._dataset_name: the
    sha256 of its sorted JSON), without importing altair: a chart filled from a kept shape needs no
    altair at all (a test compares the two)."""
    if values == [{}]:
        return "empty"
    return "data-" + hashlib.sha256(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _records(df: pd.DataFrame) -> list[dict]:
    cols = list(df.columns)
    values = [df[c].tolist() for c in cols]
    return [{k: (None if isinstance(v, float) and v != v else v) for k, v in zip(cols, row)}
            for row in zip(*values)]



_MARK = "__frame__"
_SHAPES: dict[tuple, tuple[str, dict[str, str]]] = {}


def shapes() -> dict:
    """The chart shapes this process holds (key -> shape): a build keeps them between runs
    (gen.report.units, in its cache, keyed by the code), so a new set's charts skip Altair."""
    return dict(_SHAPES)


def add_shapes(shapes: dict) -> None:
    _SHAPES.update(shapes)


def fast(key: tuple, frames: dict[str, pd.DataFrame], build) -> dict:
    """build(frames).to_dict(): Altair builds the chart once per `key` (everything build reads
    besides the frames' rows), from one marked row per frame; the real rows go in after."""
    if any(len(f) == 0 for f in frames.values()):
        return build(frames).to_dict(validate=False)
    if key not in _SHAPES:
        marked = {n: f.iloc[:1].assign(**{_MARK: n}) for n, f in frames.items()}
        spec = build(marked).to_dict(validate=False)
        slots = {name: rows[0][_MARK] for name, rows in spec.get("datasets", {}).items()}
        if len(set(slots.values())) != len(frames):  # a frame Altair did not keep as a dataset
            return build(frames).to_dict(validate=False)
        _SHAPES[key] = (json.dumps(spec), slots)
    return _filled(key, {n: values_of(f) for n, f in frames.items()})


def _filled(key: tuple, values: dict[str, list[dict]], subs: dict[str, str] | None = None) -> dict:
    """The shape kept for `key`, filled with each frame's rows (as values_of gives them), and each
    placeholder's JSON text in `subs` replaced by its chart's (open_shape)."""
    text, slots = _SHAPES[key]
    names = {n: _dataset_name(v) for n, v in values.items()}
    for old, frame in slots.items():
        text = text.replace(f'"{old}"', f'"{names[frame]}"')
    for old, real in (subs or {}).items():
        text = text.replace(old, real)
    spec = json.loads(text)
    spec["datasets"] = {names[frame]: values[frame] for frame in slots.values()}
    return spec


# The scenario charts differ from set to set and scenario to scenario mostly by their series order
# (the variants drawn) and length ticks: their shape is made once per process with placeholders in
# their place, and each chart's order and ticks are written into its text (a shape per order and
# ticks before: some thirty Altair charts in a worker's first set, 1 s of its CPU).
_ORDER_MARK = "__series_order__"  # no variant's name
_TICKS_MARK = -7770001  # no length


def open_shape(key: tuple, frames, build, order: list[str], ticks: list[int] | None,
          values: dict[str, list[dict]]) -> dict | None:
    """build(frames, order, ticks).to_dict() with `values` its frames' rows (as values_of gives them),
    from a shape made once per `key` (everything build reads besides the rows, the order and the
    ticks) with placeholders for the order and ticks. `frames()` gives the frames where the shape
    is to be made. None where no shape can be made so (an empty frame or order; a frame Altair did
    not keep as a dataset): the caller makes the chart as before."""
    if not order or ticks == []:
        return None
    if key not in _SHAPES:
        made = frames()
        if any(len(f) == 0 for f in made.values()):
            return None
        marked = {n: f.iloc[:1].assign(**{_MARK: n}) for n, f in made.items()}
        spec = build(marked, [_ORDER_MARK], [_TICKS_MARK] if ticks is not None else None).to_dict(validate=False)
        slots = {name: rows[0][_MARK] for name, rows in spec.get("datasets", {}).items()}
        if len(set(slots.values())) != len(made):
            return None
        _SHAPES[key] = (json.dumps(spec), slots)
    subs = {json.dumps([_ORDER_MARK]): json.dumps(order)}
    if ticks is not None:
        subs[json.dumps([_TICKS_MARK])] = json.dumps(ticks)
    return _filled(key, values, subs)


def _all_text(vals: list) -> bool:
    return all(type(v) is str for v in vals)


def values_of(df: pd.DataFrame) -> list[dict]:
    """The rows Altair's data transformer gives for a frame (`alt.data_transformers.get()(df)["values"]`:
    its row limit, sanitize_pandas_dataframe, to_dict(orient="records")), read column by column: a
    quarter of a scenario page's time went to Altair's copies and casts. Integers and booleans as
    Python's; floats too, NaN and ±inf as None; text as it is (pandas' str columns: a missing value
    as None). Any other column (an object column of anything but text, categories, dates...) goes
    to Altair."""
    cols = list(df.columns)
    if (len(df) > 5000 or not all(type(c) is str for c in cols) or len(set(cols)) != len(cols)
            or isinstance(df.index, pd.MultiIndex)):
        return alt.data_transformers.get()(df)["values"]
    out = []
    for i in range(len(cols)):
        col = df.iloc[:, i]
        numpy, kind = isinstance(col.dtype, np.dtype), col.dtype.kind
        if numpy and kind in "iub":
            out.append(col.tolist())
        elif numpy and kind == "f":
            a = col.to_numpy()
            bad = ~np.isfinite(a)
            vals = a.tolist()
            if bad.any():
                for j in np.flatnonzero(bad).tolist():
                    vals[j] = None
            out.append(vals)
        elif col.dtype == object and _all_text(vals := col.tolist()):
            out.append(vals)  # (with a missing value, pandas' `where` makes it NaN: Altair's say)
        elif isinstance(col.dtype, pd.StringDtype) and col.dtype.na_value is not pd.NA:
            out.append([None if type(v) is float else v for v in col.tolist()])  # NaN: missing
        else:
            return alt.data_transformers.get()(df)["values"]
    return [dict(zip(cols, row)) for row in zip(*out)] if cols else [{} for _ in range(len(df))]
