"""Issue 31 (review 2026-12-07-1, finding 1 and "Where a reader cannot see the answer as a chart and table first"):
every scenario page of the committed sets opens with a chart and a table, before any paragraph; on a set's page and on
the page over every set they are the verdict's point (the point the home answers for: its call, its time as run with
its SM clock and power, the next call and the gain over it, whether the lead holds), each number the set's; the full
argument folds away; the dynamic-lengths page opens each phase with a chart of what a new length cost. The home opens
with the answer table, then the map and the headline chart, then what to call in a sentence or two (the rest folded); a
set's page with the answer table, then its inference chart and table (the numbers its verdicts quote), then its
words, the verdicts folded."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gen.analysis import advice, verdict_point
from gen.analysis import dynamic as dyn
from gen.report import format as fmt
from gen.report import prerender
from gen.report.pages import verdict as verdict_page
from gen.report.words import decision as decision_words
from gen.report.words import dynamic as dynamic_words
from gen.report.words import home as home_words
from gen.report.words import scenario_first as first_words
from gen.report.words.common import label, us
from tests.conftest import ROOT, committed_set

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"
_P = re.compile(r"<p[ >]")
# The first-screen table's own footnotes (a dagger's reason, what the capture left out) sit under it, inside its block:
# notes on the table, not paragraphs before the pictures.
_TEXT_P = re.compile(r'<p(?! class="decision-(?:note|capture)")[ >]')


@pytest.fixture(scope="module")
def converter():
    return prerender.Converter.from_project(ROOT / "mkdocs.yml")


@pytest.fixture(scope="module")
def lead():
    return committed_set(H100)


def _scenario_pages(docs: Path) -> list[Path]:
    """Every scenario page the build made: each set's own, and those over every set (not their index)."""
    got = sorted((docs / "generated" / "sets").glob("*/scenarios/*.md"))
    got += [p for p in sorted((docs / "generated" / "scenarios").glob("*.md")) if p.name != "index.md"]
    return got


def _body(converter, page: Path) -> str:
    """The page's body as the site shows it (converted as mkdocs converts it), after its title."""
    return converter.page(page.read_text(encoding="utf-8")).split(prerender.BEGIN, 1)[1]


def test_every_scenario_page_shows_a_chart_and_a_table_before_any_paragraph(gpu_docs, converter):
    pages = _scenario_pages(gpu_docs)
    # both GPU sets' pages of every scenario they ran, the dynamic-lengths one and the pages over both sets
    assert len([p for p in pages if "/sets/" in p.as_posix()]) >= 19
    assert any(p.name == "dynamic-lengths.md" for p in pages)
    assert len([p for p in pages if "/sets/" not in p.as_posix()]) >= 9
    for page in pages:
        body = _body(converter, page)
        first_p = _P.search(body)
        assert first_p, page
        chart, table = body.find('class="vega-chart"'), body.find("<table")
        assert -1 < chart < first_p.start() and -1 < table < first_p.start(), page


def test_a_set_page_opens_with_the_verdicts_point_as_the_set_gives_it(gpu_docs, lead):
    """The H100 set's pages: the first table is the verdict's point, one row per mode with a verdict, each cell the
    set's numbers worded once (gen.report.words.scenario_first), and the chart above it draws every ranked call."""
    for page in sorted((gpu_docs / "generated" / "sets" / H100 / "scenarios").glob("*.md")):
        name = page.stem
        found = verdict_point.point_facts_all(lead, name)
        text = page.read_text(encoding="utf-8")
        if name == "dynamic-lengths":
            assert not found
            continue
        assert found, name
        first = text.split('<div class="scenario-first"', 1)[1].split("</table>", 1)[0]
        rows = re.findall(r'<tr data-variant="([^"]*)" data-mode="([^"]*)">(.*?)</tr>', first)
        # the row's call: the named one where it shares the rank (review 2026-12-07-8 item 3)
        assert [(v, m) for v, m, _ in rows] == [(f.lead, f.mode) for f in found]
        for f, (_, _, cells) in zip(found, rows):
            got = [html.unescape(c) for c in re.findall(r"<td[^>]*>(?:<strong>)?(.*?)(?:</strong>)?</td>", cells)]
            named = first_words.named_cell(f)
            call = first_words.call_cell(f) + (f"</strong><br>{named}" if named else "")
            assert got == [first_words.at_cell(f), call, first_words.time_cell(f),
                           first_words.conditions_cell(f, lead.rs.environment), first_words.next_cell(f),
                           first_words.gain_cell(f), first_words.holds_cell(f)], name
        spec = json.loads(html.unescape(re.search(r"data-spec='([^']*)'", first).group(1)))
        drawn = next(iter(spec["datasets"].values()))
        # each call once (a row beside the deterministic calls' own draws only the others), named as in the table
        assert sorted((d["call"], round(d["median_ms"], 9)) for d in drawn) == sorted(
            {(label(c.variant), round(c.median_ms, 9)) for f in found for c in f.calls}), name
        # the verdict in full is folded under it; the headline of the largest point too
        assert f'??? note "{first_words.FULL_VERDICT}"' in text and text.index("</table>") < text.index(
            first_words.FULL_VERDICT)


def test_the_chunked_page_opens_with_the_homes_answer(gpu_docs, lead):
    """Finding 1's example: at 16 queries x 8,192 keys SDPA with causal_lower_right, 59.3 us, 1.44x ahead of FA4
    (85.6 us, both at 1980 MHz): the first row of the page, from the set."""
    (f,) = verdict_point.point_facts_all(lead, "chunked-prefill")
    assert (f.fastest, f.runner_up, f"{f.gain:.2f}") == ("sdpa_lower_right", "fa4", "1.44")
    text = (gpu_docs / "generated" / "sets" / H100 / "scenarios" / "chunked-prefill.md").read_text(encoding="utf-8")
    first = html.unescape(text.split("</table>", 1)[0])
    assert f"<strong>{label('sdpa_lower_right')}</strong>" in first and f">{us(f.median_ms)}<" in first
    assert f"{f.sm_clock_mhz:.0f} MHz" in first
    assert f"{label('fa4')}, {us(f.runner_ms)} at {f.runner_mhz:.0f} MHz" in first
    assert "1.44× as run" in first and ">yes: the intervals apart, in both round orientations" in first


def test_the_dynamic_page_opens_each_phase_with_what_a_new_length_cost(gpu_docs, lead):
    """Each phase opens with the chart of what each new length cost (cuDNN's plan per length against calls that only
    launch), then its table, then the sentences."""
    text = (gpu_docs / "generated" / "sets" / H100 / "scenarios" / "dynamic-lengths.md").read_text(encoding="utf-8")
    assert text.split("\n## ", 1)[0].count("\n") < 10  # the title, then the first phase: no paragraph before it
    for phase in dyn.phases(lead.rs):
        section = text.split(f"## {fmt.md(dynamic_words.PHASE_TITLE[phase])}\n", 1)[1].split("\n## ", 1)[0]
        spec = json.loads(html.unescape(re.search(r"data-spec='([^']*)'", section).group(1)))
        assert spec["layer"][0]["encoding"]["y"]["title"] == first_words.NEW_LENGTH_AXIS
        assert section.index('class="vega-chart"') < section.index("| Variant |") < section.index("**")
        drawn = {d["series"] for d in next(iter(spec["datasets"].values()))}
        assert fmt.label_of("sdpa_cudnn") in drawn  # the plan built per length, the chart's point
    # what the scenario is comes after the phases
    assert text.index("## What this scenario is") > text.index(f"## {fmt.md(dynamic_words.PHASE_TITLE['decode'])}")


def test_a_gain_by_the_line_is_printed_as_every_page_prints_it(lead):
    """FP8 prefill: cuDNN FP8's kernel sums are 1.195x FA4's, under the 1.2x the first screen asks (review 2026-12-07-1
    item 7): the first look's gain prints 1.195x, as its holds cell and the home do, never 1.20x beside it."""
    (f,) = verdict_point.point_facts_all(lead, "fp8-prefill")
    assert f"{f.gain:.2f}" == "1.20" and f.gain < 1.2
    gain, note = first_words.gain_cell(f), first_words.named_note(f)
    # its row leads with FA4, the call What to call names (review 2026-12-07-8 item 3): cuDNN FP8's lead over it
    assert gain.endswith("faster: at least 1.195× by kernel sum, 1.08× as run")
    assert "1.195× faster by kernel sum" in note
    assert first_words.call_cell(f).endswith(": within noise, one rank")


# --------------------------------------------------------------------------- the home and a set's own page


class _Reader(HTMLParser):
    """A page's body as a reader meets it: the words of each paragraph not folded away (outside every <details>),
    and for each element holding a verdict whether it sits in a fold."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.folds = 0
        self.p: list[str] | None = None
        self.paragraphs: list[tuple[int, int]] = []  # (offset in the body, words) of each unfolded paragraph
        self.verdicts: list[bool] = []  # per data-verdict element: folded

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        if tag == "details":
            self.folds += 1
        elif tag == "p" and not self.folds:
            self.p, self.at = [], self.getpos()
        if "data-verdict" in names:
            self.verdicts.append(self.folds > 0)

    def handle_endtag(self, tag):
        if tag == "details":
            self.folds -= 1
        elif tag == "p" and self.p is not None:
            self.paragraphs.append((self.at, len(" ".join(self.p).split())))
            self.p = None

    def handle_data(self, data):
        if self.p is not None:
            self.p.append(data)


def _read(body: str) -> _Reader:
    r = _Reader()
    r.feed(body)
    r.close()
    return r


def _words_before(body: str, end: int) -> int:
    """The words of the paragraphs not folded away that start before offset `end` of the body."""
    lines = body[:end].count("\n") + 1
    # the first table's footnotes are not counted (_TEXT_P); blanked with their line breaks kept
    notes = re.compile(r'<p class="decision-(?:note|capture)".*?</p>', re.S)
    body = notes.sub(lambda m: "\n" * m.group(0).count("\n"), body)
    return sum(n for (line, _), n in _read(body).paragraphs if line <= lines)


def _home(converter, docs: Path) -> str:
    """The home as the site shows it: docs/index.md with each partial it includes (--8<--) from `docs`, converted."""
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    text = re.sub(r'^--8<-- "([^"]+)"$', lambda m: (docs / m.group(1)).read_text(encoding="utf-8"), text, flags=re.M)
    return converter.page(text).split(prerender.BEGIN, 1)[1]


def _box(body: str) -> tuple[str, str]:
    """What to call as it shows (its first sentences) and as it folds (the rest)."""
    box = body.split('class="admonition tip decision"', 1)[1].split('<p class="admonition-title">', 1)[1]
    head = re.search(r'class="decision-headline"><strong>(.*?)</strong>', box, re.S).group(1)
    rest = re.search(r'<details class="decision-more"[^>]*>\s*<summary>.*?</summary>\s*<p class="decision-rest">(.*?)'
                     r'</p>\s*</details>\s*</div>', box, re.S)
    return html.unescape(head), html.unescape(rest.group(1)) if rest else ""


def test_the_home_shows_the_answer_then_the_map_and_headline_chart_then_short_words(gpu_docs, converter, lead):
    """Review 2026-12-07-1: the home's first screen is the answer table and the map and headline chart; what to call
    follows in a sentence or two, the rest of it and every verdict folded. On the old page the map and the headline
    chart came after what to call (26 sentences on screen), its reasons and the other sets' lines."""
    body = _home(converter, gpu_docs)
    answer = body.index('<table data-kind="decision"')
    fastest = body.index('aria-label="fastest variant per set and scenario"')
    headline = body.index('aria-label="GPU-only time per variant"')
    box, reasons = body.index('class="admonition tip decision"'), body.index("data-reasons")
    assert answer < fastest < headline < box < reasons
    # no paragraph before the map; before the headline chart only the map's caption (its reading folds away)
    assert _TEXT_P.search(body).start() > fastest
    assert _words_before(body, headline) <= 60
    assert f'??? note "{home_words.MAP_FOLD}"' in (gpu_docs / "generated" / ".home.md").read_text(encoding="utf-8")
    # what to call: its first sentences show, the rest folds; together they are the producers' sentences
    w = decision_words.advice(advice.advice(lead))
    head, rest = _box(body)
    assert len(w.sentences) > home_words.SHOWN and head == home_words.head(w.sentences) and rest
    assert f"{head} {rest}" == w.decision and len(head.split()) <= 80
    # every verdict of the lead set lies folded, after what to call
    read = _read(body)
    assert read.verdicts and all(read.verdicts)
    assert body.index("data-verdict") > reasons


def test_a_set_page_shows_the_table_the_verdicts_quote_before_their_words(gpu_docs, converter, lead):
    """A set's page: the answer table, then the set's inference chart and table (the numbers every verdict quotes),
    before any paragraph; what to call after them, short, its rest and every verdict folded. On the old page the
    inference table came after what to call and the ten verdicts."""
    body = _body(converter, gpu_docs / "generated" / "sets" / f"{H100}.md")
    answer = body.index('<table data-kind="decision"')
    chart = body.index('aria-label="GPU-only time per variant, inference"')
    table = body.index("<table", chart)
    box, reasons = body.index('class="admonition tip decision"'), body.index("data-reasons")
    assert answer < chart < table < box < reasons
    assert "<th>Variant</th>" in body[table:table + 200].replace(' style="text-align: left;"', "")
    assert _TEXT_P.search(body).start() > table and _words_before(body, table) == 0
    assert body.index('id="what-to-call-and-why"') < box
    # the training mode follows the words
    assert body.index('aria-label="GPU-only time per variant, train"') > reasons
    w = decision_words.advice(advice.advice(lead))
    head, rest = _box(body)
    assert f"{head} {rest}" == w.decision and head == home_words.head(w.sentences)
    read = _read(body)
    assert len(read.verdicts) == len(verdict_page.set_blocks(lead)) >= 8 and all(read.verdicts)


def test_a_page_without_a_decision_keeps_its_order(results_docs):
    """A published set's page has no decision: its figures first, then its modes, no heading for words it lacks."""
    text = (results_docs / "generated" / "sets" / "nvidia-a100-sxm4-80gb__article-2026-07.md").read_text(
        encoding="utf-8")
    assert home_words.WHAT_TO_CALL not in text
    assert text.index("Published figures, not measured here") < text.index("Inference (forward only)")
