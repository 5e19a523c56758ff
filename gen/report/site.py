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

import altair as alt
import jinja2
import pandas as pd
from markupsafe import Markup

from gen.analysis import findings, tables
from gen.analysis.values import missing, variant_order
from gen.report import format as fmt
from gen.report import wording

TEMPLATES = Path(__file__).with_name("templates")
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
    words: wording.Words


def environment() -> jinja2.Environment:
    """The Jinja environment of every template: autoescaped HTML, strict undefined,
    unprintable characters replaced in every value (fmt.printable), the formatting
    filters and the helpers that name pages and sets."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, finalize=fmt.printable,
    )
    env.tests["missing"] = missing
    env.filters.update(fmt.FILTERS)
    env.globals.update(set_title=fmt.set_title, set_page=fmt.set_page, variant_page=fmt.variant_page,
                       trace_page=fmt.trace_page, relpath=fmt.relpath, label_of=fmt.label_of)
    return env


@dataclass
class Context:
    sets: list[tables.LoadedSet]
    skipped: list[tables.Skipped] = field(default_factory=list)
    _cache: dict = field(default_factory=dict, repr=False)

    @cached_property
    def env(self) -> jinja2.Environment:
        return environment()

    def template(self, name: str) -> jinja2.Template:
        return self.env.get_template(name)

    def _once(self, key, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def summary(self, ls: tables.LoadedSet, mode: str) -> pd.DataFrame:
        return tables.summary_table(ls, mode)  # cached by analysis

    def hypotheses(self, ls: tables.LoadedSet, mode: str = "inference") -> pd.DataFrame:
        return self._once(("hyp", ls.name, mode), lambda: findings.check_hypotheses(ls, mode))

    def findings(self, ls: tables.LoadedSet) -> list[Worded]:
        """Every finding of a set with its words, made once for every page."""
        return self._once(("findings", ls.name),
                          lambda: [Worded(f, wording.finding(f)) for f in findings.findings(ls)])

    def train(self, ls: tables.LoadedSet) -> pd.DataFrame:
        return self._once(("train", ls.name), lambda: tables.train_table(ls))

    @cached_property
    def _kernel_owner(self) -> dict:
        """(variant, mode) -> the first set (in report order) with a kernel table for it:
        its rows carry the plain anchor ids, other sets' rows a set suffix."""
        owner: dict = {}
        for ls in self.sets:
            for run in ls.rs.runs:
                if run.status == "ok" and run.trace and (run.variant, run.mode) not in owner \
                        and ls.rs.environment.device == "cuda":
                    owner[(run.variant, run.mode)] = ls.name
        return owner

    def kernel_anchor(self, set_name: str, variant: str, mode: str, index: int) -> str:
        """The HTML id of a kernel row on the variant page: plain in the first set
        that lists the variant's kernels, with the set appended in the others."""
        own = self._kernel_owner.get((variant, mode)) == set_name
        return fmt.kernel_anchor(variant, mode, index, None if own else set_name)

    def chart(self, chart: alt.TopLevelMixin, label: str, command: str = BUILD_COMMAND) -> Markup:
        return chart_div(chart, label, command)

    @cached_property
    def variant_names(self) -> list[str]:
        """Every variant of any set: the declared order first, then unknown ones by name."""
        return variant_order(r.variant for ls in self.sets for r in ls.rs.runs)


def summary_command(set_name: str, mode: str | None = None, scenario: str | None = None) -> str:
    """The command that prints a chart's numbers as JSON (shell-quoted: set names come from data)."""
    words = ["python -m gen summary --set", shlex.quote(set_name)]
    if mode and mode != "inference":
        words.append(f"--mode {shlex.quote(mode)}")
    if scenario:
        words.append(f"--scenario {shlex.quote(scenario)}")
    return " ".join(words + ["--format json"])


def chart_div(chart: alt.TopLevelMixin | dict, label: str, command: str = BUILD_COMMAND) -> Markup:
    """A chart's Vega-Lite spec in an HTML-escaped data-spec attribute, drawn by
    docs/assets/report.js, and in data-command the command that reproduces it (report.js
    shows it under the chart). Keys sorted, so that a rebuild gives the same bytes.
    Takes an Altair chart or a spec already made (charts.timeline_spec)."""
    spec = chart if isinstance(chart, dict) else chart.to_dict(validate=False)
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    # Single-quoted, so JSON's many double quotes need no escaping: pages stay small
    # and quick for mkdocs to parse. Search skips the chart's data.
    value = html.escape(text, quote=False).replace("'", "&#39;")
    return Markup('<div class="vega-chart" data-search-exclude role="img" aria-label="{}" data-command="{}" '
                  'data-spec=\'').format(label, command) + Markup(value) + Markup("'></div>")


def records(df: pd.DataFrame) -> list[dict]:
    return [] if df.empty else df.to_dict("records")
