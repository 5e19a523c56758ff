"""What every page builder shares: the `Page` record, the `Context` (sets,
analysis cached once per set, the Jinja environment) and `chart_div`.

Takes: loaded sets (gen.analysis.tables). Gives: `Page`, `Context`,
`chart_div(chart, label)`. Page builders live in gen.report.pages; the list of
them and the navigation in gen.report.render. No file writes here.
"""

from __future__ import annotations

import html
import json
import shlex
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
import pandas as pd
from markupsafe import Markup, escape

from gen.analysis import compare, findings, lessons, tables, values
from gen.analysis.values import missing, variant_order
from gen.report import format as fmt
from gen.report.words import findings as finding_words

if TYPE_CHECKING:  # the annotations' only use: altair is imported where a chart is made (gen.report.charts)
    import altair as alt

TEMPLATES = Path(__file__).with_name("templates")
# A page lists at most this many GPU events of one call, and a timeline draws at most this many
# events (and nesting levels): past them a page would grow with the trace, whatever it holds. The
# largest committed call has 87 GPU and 268 CPU events, 8 levels deep; gen.model.limits bounds the trace.
MAX_KERNEL_ROWS = 300
MAX_TIMELINE_EVENTS = 1_000
MAX_TIMELINE_DEPTH = 16
MAX_LINKS = 50  # kernel-row links in one sentence (a finding's, a lesson's)
# Any one value a template prints (a name, a sentence of findings, a list joined) is cut past this
# many characters, saying so: the backstop that keeps a page bounded whatever a set's strings hold.
# Charts are bounded by the caps above and pass whole.
MAX_VALUE_CHARS = 20_000


class WholeHTML(Markup):
    """HTML made in Python whose size is bounded by what it holds: printed whole (bounded leaves it as it is)."""


class ChartHTML(WholeHTML):
    """A chart's <div>: printed whole (its size is bounded by what it draws)."""


class RowsHTML(WholeHTML):
    """Table rows made in Python (at most MAX_KERNEL_ROWS, each value bounded and escaped as a
    template's value is, by `hole`): printed whole."""


def bounded(value):
    """Jinja's finalize: a value longer than MAX_VALUE_CHARS is cut, and says how much was left out.
    Markup is cut before an entity or tag it would split, so the escaping stays whole."""
    if not isinstance(value, str) or len(value) <= MAX_VALUE_CHARS or isinstance(value, WholeHTML):
        return value
    cut = value[:MAX_VALUE_CHARS]
    if isinstance(value, Markup):
        amp, lt = cut.rfind("&"), cut.rfind("<")
        if amp > cut.rfind(";"):
            cut = cut[:amp]
        if lt > cut.rfind(">"):
            cut = cut[:lt]
    note = f" … ({len(value) - len(cut):,} more characters not shown)"
    return Markup(cut) + note if isinstance(value, Markup) else cut + note
def _finalize(value):
    """Every value a template writes: unprintable characters shown as U+FFFD, then bounded."""
    return bounded(fmt.printable(value))


def hole(value) -> Markup:
    """A value written into HTML made in Python, as a template writes `{{ value }}`: finalized, then autoescaped."""
    return escape(bounded(fmt.printable(value)))


BUILD_COMMAND = "python -m gen build"  # what reproduces a figure that no summary prints


@dataclass(frozen=True)
class Page:
    path: str  # relative to docs/, under generated/
    text: str | None = None
    nav: tuple[str, ...] | None = None
    copy_from: Path | None = None


@dataclass(frozen=True)
class Worded:
    """A finding with its words: what pages show."""

    finding: findings.Finding
    words: finding_words.Words


def environment() -> jinja2.Environment:
    """The Jinja environment of every template: autoescaped HTML, strict undefined,
    unprintable characters replaced in every value (fmt.printable), the formatting
    filters and the helpers that name pages and sets."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, finalize=_finalize,
    )
    env.tests["missing"] = missing
    env.filters.update(fmt.FILTERS)
    env.globals.update(set_title=fmt.set_title, set_page=fmt.set_page, variant_page=fmt.variant_page,
                       trace_page=fmt.trace_page, relpath=fmt.relpath, label_of=fmt.label_of)
    return env


_ENV: jinja2.Environment | None = None


def shared_environment() -> jinja2.Environment:
    """One environment per process, so each template is compiled once however many sets (and
    contexts) a build renders; worker processes forked after a template is compiled inherit it."""
    global _ENV
    if _ENV is None:
        _ENV = environment()
    return _ENV


@dataclass
class Context:
    """What the builders read. A per-set builder runs with `sets` = its set and the
    published (reference) sets, `first` = the set it is compared against; the pages
    over all sets read `facts` (what each set's unit left for them, gen.report.units)
    rather than the sets' traces, so that a set that did not change costs nothing."""

    sets: list[tables.LoadedSet]
    skipped: list[tables.Skipped] = field(default_factory=list)
    facts: dict = field(default_factory=dict)  # set name -> {builder: facts}
    first: tables.LoadedSet | None = None  # the first measured GPU set: the compare pages' A
    prerender: object | None = None  # a gen.report.prerender.Converter: a set's own pages leave as HTML
    # a per-set builder's: what a set of the same GPU model and PyTorch measured of cuDNN at new lengths
    # (gen.analysis.length_cost.Beside), made where every set is loaded (units.set_context), or None
    lengths_beside: object | None = None
    # a per-set builder's: per scenario the set's time limit kept it from, (name, title) of a set of the same GPU model
    # and PyTorch that measured it (capture_gaps.measured_beside), made with lengths_beside
    scenarios_beside: dict = field(default_factory=dict)
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def env(self) -> jinja2.Environment:
        return shared_environment()

    def template(self, name: str) -> jinja2.Template:
        return self.env.get_template(name)

    def _once(self, key, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def summary(self, ls: tables.LoadedSet, mode: str) -> pd.DataFrame:
        made = self.facts.get(ls.name, {}).get("summary")
        if made is not None:  # the set's unit made it: no trace is read again
            return made[mode].copy()
        return tables.summary_table(ls, mode)  # cached by analysis

    def summary_records(self, ls: tables.LoadedSet, mode: str) -> list[dict]:
        """A set's summary table as rows, made once per set and mode: copy a row before changing it."""
        return self._once(("summary_records", ls.name, mode), lambda: records(self.summary(ls, mode)))

    def summary_row(self, ls: tables.LoadedSet, mode: str, variant: str) -> dict | None:
        """One variant's row of a set's summary table (a copy)."""
        rows = self._once(("summary_rows", ls.name, mode),
                          lambda: {r["variant"]: r for r in self.summary_records(ls, mode)})
        row = rows.get(variant)
        return dict(row) if row is not None else None

    def fact(self, ls: tables.LoadedSet, builder: str):
        """What `builder`'s facts(ctx, ls) gave for this set (gen.report.units)."""
        return self.facts[ls.name][builder]

    def hypotheses(self, ls: tables.LoadedSet, mode: str = "inference") -> pd.DataFrame:
        return self._once(("hyp", ls.name, mode), lambda: findings.check_hypotheses(ls, mode))

    def explanations(self, ls: tables.LoadedSet, variant: str | None = None) -> list:
        """lessons.explain of the set's inference hypotheses, made once for every page: all of them,
        or one variant's (explain reads a row at a time: a variant's are its rows' explanations)."""
        every = self._once(("explanations", ls.name), lambda: lessons.explain(ls, self.hypotheses(ls)))
        if variant is None:
            return list(every)
        by = self._once(("explanations by variant", ls.name), lambda: _by_variant(every))
        return list(by.get(variant, []))

    def findings(self, ls: tables.LoadedSet) -> list[Worded]:
        """Every finding of a set with its words, made once for every page."""
        return self._once(("findings", ls.name),
                          lambda: [Worded(f, finding_words.finding(f)) for f in findings.findings(ls)])

    def train(self, ls: tables.LoadedSet) -> pd.DataFrame:
        return self._once(("train", ls.name), lambda: tables.train_table(ls))

    def kernel_anchor(self, set_name: str, variant: str, mode: str, index: int) -> str:
        """The HTML id of a kernel row on the set's page of the variant (one set per page)."""
        # A row past the page's cap: the note that says it was left out carries the first one's id.
        return fmt.kernel_anchor(variant, mode, min(int(index), MAX_KERNEL_ROWS))

    def chart(self, chart: alt.TopLevelMixin, label: str, command: str = BUILD_COMMAND) -> Markup:
        return chart_div(chart, label, command)

    @cached_property
    def lead(self) -> list[tables.LoadedSet]:
        """The sets a page over all sets shows one by one (gen.analysis.compare.lead_sets): its size is
        bounded by the machines of the matrix, not by its sets; the others are one link away."""
        return compare.lead_sets(self.sets, self.first)

    @property
    def left_out(self) -> int:
        """How many sets the pages over all sets leave to the list of result sets."""
        return len(self.sets) - len(self.lead)

    @cached_property
    def variant_names(self) -> list[str]:
        """Every variant of any set: the declared order first, then unknown ones by name."""
        return variant_order(r.variant for ls in self.sets for r in ls.outline.runs)


def _by_variant(items) -> dict[str, list]:
    out: dict[str, list] = {}
    for x in items:
        out.setdefault(x.variant, []).append(x)
    return out


def summary_command(set_name: str, mode: str | None = None, scenario: str | None = None) -> str:
    """The command that prints a chart's numbers as JSON (shell-quoted: set names come from data)."""
    words = ["python -m gen summary --set", shlex.quote(set_name)]
    if mode and mode != "inference":
        words.append(f"--mode {shlex.quote(mode)}")
    if scenario:
        words.append(f"--scenario {shlex.quote(scenario)}")
    return " ".join(words + ["--format json"])


def chart_div(chart: alt.TopLevelMixin | dict, label: str, command: str = BUILD_COMMAND) -> ChartHTML:
    """A chart's Vega-Lite spec in an HTML-escaped data-spec attribute, drawn by
    docs/assets/report.js, and in data-command the command that reproduces it (report.js
    shows it under the chart). Keys sorted, so that a rebuild gives the same bytes.
    Takes an Altair chart or a spec already made (charts.timeline_spec)."""
    spec = chart if isinstance(chart, dict) else chart.to_dict(validate=False)
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    # Single-quoted, so JSON's many double quotes need no escaping: pages stay small
    # and quick for mkdocs to parse. Search skips the chart's data.
    value = html.escape(text, quote=False).replace("'", "&#39;")
    return ChartHTML(Markup('<div class="vega-chart" data-search-exclude role="img" aria-label="{}" data-command="{}" '
                            'data-spec=\'').format(label, command) + Markup(value) + Markup("'></div>"))


def records(df: pd.DataFrame) -> list[dict]:
    """df.to_dict("records"): the same values (Python scalars, NaN as it is), in a fraction of
    its time (values.rows)."""
    return values.rows(df)


def capped(rows: list, limit: int) -> tuple[list, int]:
    """The first `limit` rows and how many were left out."""
    return rows[:limit], max(0, len(rows) - limit)
