"""gen.report.prerender: a set's own pages converted as mkdocs converts them; its shortcut (texts
no inline pattern can match skip Python-Markdown's inline pass) changes nothing of the HTML."""

from __future__ import annotations

import base64
import json
import re
import types
from pathlib import Path

import markdown

from gen.analysis import tables
from gen.model import schema
from gen.report import prerender, site, units
from gen.report.pages import scenarios, sets, variants

ROOT = Path(__file__).resolve().parent.parent
_BLOCK = re.compile(rf"^({re.escape(prerender.BEGIN)}|{re.escape(prerender.LIST)})\n(.*?)\n{re.escape(prerender.END)}$",
                    re.S | re.M)
CHART = ("<div class=\"vega-chart\" data-search-exclude role=\"img\" aria-label=\"a &amp; b\" data-spec='{\"a\":"
         "[1,2],\"t\":\"x_y*z* [l](m.md) &lt;b&gt; &#39;q&#39;\"}'></div>")


class _Reference(prerender.Converter):
    """The conversion before its shortcuts: Python-Markdown as configured (links rewritten), marked
    blocks held by the regular expression, charts converted with the page."""

    def convert(self, text: str) -> tuple[str, list]:
        if self._md is None:
            self._md = markdown.Markdown(extensions=self.extensions, extension_configs=self.configs)
            self._md.treeprocessors.register(prerender._Links(self._md), "report_links", 0)
        self._md.reset()
        return self._md.convert(text), list(getattr(self._md, "toc_tokens", []))

    def page(self, text: str) -> str:
        m = prerender._FRONT.match(text)
        front = m.group(1) + "\n" if m else ""
        rest = text[m.end():] if m else text
        title, _, body = rest.partition("\n")
        if not title.startswith("# "):
            title, body = "", rest
        body, held, tight = _hold_by_regex(body)
        html, toc = self.convert(body)
        for i in tight:  # a list's or table's block: one newline before the next element, not a raw block's two
            html = html.replace(prerender._HOLDER.format(i) + "\n\n", held[i] + "\n")
        html = prerender._HOLDER_RE.sub(lambda m: held[int(m.group(1))], html)
        toc_json = base64.b64encode(json.dumps(toc, ensure_ascii=False).encode()).decode()
        head = f"{front}{title}\n\n" if title else front
        return f"{head}{prerender.TOC.format(toc_json)}\n{prerender.BEGIN}\n{html}\n{prerender.END}\n"


def _hold_by_regex(text: str) -> tuple[str, list[str], set[int]]:
    held: list[str] = []
    tight: set[int] = set()

    def hold(m: re.Match) -> str:
        if m.group(1) == prerender.LIST:
            tight.add(len(held))
        held.append(m.group(2))
        return prerender._HOLDER.format(len(held) - 1)

    return _BLOCK.sub(hold, text), held, tight


def _unmarked(text: str) -> str:
    """A page with its raw-html marker lines taken out: what Python-Markdown read before the block was marked."""
    return text.replace(prerender.BEGIN + "\n", "").replace(prerender.LIST + "\n", "").replace("\n" + prerender.END, "")


def test_marked_blocks_are_what_python_markdown_makes_of_them_unmarked(h200_new, tmp_path):
    """Each block a template marks as finished HTML (kernel tables, lists, standing lines, hypothesis
    tables, decision and verdict blocks) gives the HTML Python-Markdown gave with the block unmarked:
    the committed and a bench set's pages, and blocks holding what a set's strings could bring."""
    from benchmarks.bench_build import fabricate

    bench = fabricate(tmp_path, 1, points=2)
    conv, ref = prerender.Converter.from_project(ROOT / "mkdocs.yml"), _Reference.from_project(ROOT / "mkdocs.yml")
    marked = 0
    for ls in (h200_new, tables.LoadedSet(bench.name, bench, schema.load_set(bench))):
        ctx = units.set_context(site.Context([ls]), ls)
        for b in (sets.set_pages, variants.set_pages, scenarios.set_pages):
            for p in b(ctx, ls):
                if p.text and (prerender.BEGIN in p.text or prerender.LIST in p.text):
                    assert conv.page(p.text) == ref.page(_unmarked(p.text)), p.path
                    marked += p.text.count(prerender.BEGIN) + p.text.count(prerender.LIST)
    assert marked > 100
    env = site.shared_environment()
    for odd in ('<b>&"x\'</b>', "a\n\n    - b *c* [d](e.md)\n\n# f", "g\n\n| h | i |\n|---|---|\n", "</div>\n\nj",
                "k&#95;\x00\u202e" + "l" * (site.MAX_VALUE_CHARS + 5)):
        d = dict.fromkeys(("set", "default", "exceptions", "set_title", "decision", "head", "rest", "rest_title"),
                          odd) | {"lines": [odd, odd]}
        b = dict.fromkeys(("set", "scenario", "mode", "fastest", "fastest_ms", "basis", "runner_up", "host_bound",
                           "auto_backend", "set_title", "scenario_title", "point", "headline"), odd)
        b |= {"lines": [odd], "reasons": [(odd, odd)]}
        for name, args in (("_decision.md.j2", {"d": d}), ("verdict_block.md.j2", {"b": b})):
            block = env.get_template(name).render(**args)
            page = f"# T\n\ntext *a*\n\n{prerender.BEGIN}\n{block}{prerender.END}\n\nafter *b*\n"
            html = conv.page(page)
            assert html == ref.page(_unmarked(page)), (name, odd)
            assert "<b>" not in html and "</div>\n\nj" not in html and "<em>c</em>" not in html


# Markdown lists and tables, each with what may follow it on a page: not a list (it would join a list
# before it), nor an indented block (a list's item would take it in), which a template must keep apart.
LISTS = ["- a\n- b &#95; [c](d.md#e) **f**", "- one", "1. a\n2. b",
         "| a | b |\n|---|---:|\n| 1 | <span data-x=\"y\">2</span> |\n| &#124; | `c` |"]
AFTERS = ["## h &#95;", "text *x*", f"{prerender.BEGIN}\n<p>held</p>\n{prerender.END}", CHART, "!!! note \"n\"\n    x",
          "??? info \"i\"\n    - in details", "", '<div markdown="1">\n*a*\n</div>']


def list_pages(lists=LISTS, afters=AFTERS):
    """(page with each list as Markdown, the page with it as a LIST block of the HTML Python-Markdown makes of it)."""
    plain = _Reference.from_project(ROOT / "mkdocs.yml")
    for text in lists:
        html = plain.convert(text)[0]
        for after in afters:
            for other_md, other in (("", ""), (f"\n\n{text}", f"\n\n{prerender.LIST}\n{html}\n{prerender.END}"))[
                    :2 if after else 1]:
                for before in ("# T\n\nbefore", "# T"):  # and a second one after it
                    yield (f"{before}\n\n{text}\n\n{after}{other_md}\n",
                           f"{before}\n\n{prerender.LIST}\n{html}\n{prerender.END}\n\n{after}{other}\n")


def test_a_list_block_is_the_html_python_markdown_makes_of_the_list_or_table():
    """A LIST block's holder loses the newline a raw block has more than a list or table, wherever it stands."""
    conv, ref = prerender.Converter.from_project(ROOT / "mkdocs.yml"), _Reference.from_project(ROOT / "mkdocs.yml")
    n = 0
    for md, held in list_pages():
        assert conv.page(held) == ref.page(md), (md, held)
        n += 1
    # a raw block marked BEGIN keeps its two newlines: the marker matters
    md, held = next(list_pages(afters=["## h"]))
    assert conv.page(held.replace(prerender.LIST, prerender.BEGIN)) != ref.page(md)
    assert n > 50


def _items(html: str) -> list[str]:
    return re.findall(r"<li>(.*?)</li>", html, re.S)


def test_a_findings_list_converts_to_one_item_a_finding_with_its_marks_and_links(h200_new, tmp_path):
    """Each group's findings (the committed and a bench set's, and items of hostile strings), held as
    _findings_list.md.j2's finished HTML and converted with the page: one item a finding, in order, between
    the headings and notes around it; an unexpected one marked, the fastest and host-bound flagged, its
    kernels linked to the variant page's HTML; a set's strings stay text."""
    from benchmarks.bench_build import fabricate
    from gen.report.pages import findings

    bench = fabricate(tmp_path, 1, points=2)
    items_of = site.shared_environment().get_template("_findings_list.md.j2").module.finding_items
    conv = prerender.Converter.from_project(ROOT / "mkdocs.yml")
    cases = []
    for ls in (h200_new, tables.LoadedSet(bench.name, bench, schema.load_set(bench))):
        ctx = units.set_context(site.Context([ls]), ls)
        view = findings.set_view(ctx, ls, "generated/sets/x/findings.md")
        cases += [(g["items"], ls, view["verdict"]) for g in view["groups"]]
    assert len(cases) > 10 and sum(len(c[0]) for c in cases) > 40
    odd = ['<b>&"x\'</b>', "a  ", " b", "*c* _d_ `e` [f](g.md) \\\\ <i>", "h\n\n- i\n# j",
           "k&#95;\x00\u202e" + "l" * 300, "m | n", "{: .o }", "&amp; &x; &#9999999;", "p\\\n", "q:r", ""]
    # Names (variant, mode, set) are NAME_RE's (schema.check_name refuses others); the sentences anything.
    names = ["a_b_", "x.y-z", "9__", "naive"]
    hostile = [dict(kind=k, severity=sev, variant=v, mode=v, short=s, links=links, n_kernels=2, name_variant=named)
               for k, sev, named in (("speed", "unexpected", True), ("host", "expected", False), ("copy", "x", True))
               for v, s in zip(names * 3, odd)
               for links in ([], [("#0–#2", "variants/naive.md#k-inference-naive-0"), ("#5", "v.md#k-5")])]
    assert all(schema.NAME_RE.fullmatch(n) for n in names)
    ls = types.SimpleNamespace(name="a_b_")
    cases += [(hostile[i:i + 5], ls, True) for i in range(0, len(hostile), 5)] + [(hostile, ls, None)]
    for items, ls, verdict in cases:
        page = conv.page(f"# T\n\n### Copies\n\n{items_of(items, ls, verdict)}\n\n### Next\n\ntext\n")
        got = _items(page)
        assert len(got) == len(items) and page.index(">Copies<") < page.index("<ul>") < page.index(">Next<")
        for f, li in zip(items, got):
            assert li.startswith("✗ <strong>unexpected</strong>") == (f["severity"] == "unexpected")
            assert ('data-flag="fastest"' in li) == (f["kind"] == "speed" and bool(verdict))
            assert ('data-flag="host-bound"' in li) == (f["kind"] == "host")
            assert li.count("<a href=") == len(f["links"])
            assert all(f'href="{href.replace(".md", ".html", 1)}"' in li for _, href in f["links"])
    html = conv.page(f"# T\n\n{items_of(hostile, ls, True)}\n")
    assert "<b>" not in html and "<i>" not in html and "<em>" not in html and "<h1" not in html
