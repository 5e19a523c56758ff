"""gen.report.prerender: a set's own pages converted as mkdocs converts them; its shortcut (texts
no inline pattern can match skip Python-Markdown's inline pass) changes nothing of the HTML."""

from __future__ import annotations

import base64
import json
import random
import re
import types
from pathlib import Path

import markdown

from gen.analysis import tables
from gen.model import schema
from gen.report import prerender, site, units
from gen.report.pages import scenarios, sets, variants

ROOT = Path(__file__).resolve().parent.parent


def _plain(conv: prerender.Converter) -> prerender.Converter:
    """A converter with Python-Markdown's own inline pass (the shortcut taken out)."""
    conv.convert("")
    conv._md.treeprocessors.register(markdown.treeprocessors.InlineProcessor(conv._md), "inline", 20)
    return conv


def test_the_inline_shortcut_is_taken_with_the_projects_extensions():
    conv = prerender.Converter.from_project(ROOT / "mkdocs.yml")
    conv.convert("")
    assert isinstance(conv._md.treeprocessors["inline"], prerender._Inline)


def test_an_unknown_inline_pattern_keeps_python_markdowns_pass():
    md = markdown.Markdown(extensions=["pymdownx.inlinehilite"])
    assert prerender._Inline.for_md(md) is None
    assert prerender._Inline.for_md(markdown.Markdown()) is not None


def test_the_inline_shortcut_gives_python_markdowns_html():
    """Texts of every kind an inline pattern reads (and none), and the committed set's own pages."""
    conv, plain = prerender.Converter.from_project(ROOT / "mkdocs.yml"), _plain(
        prerender.Converter.from_project(ROOT / "mkdocs.yml"))
    samples = ["plain 1,024 tokens", "a *b* _c_ **d**", "x  \ny", "`code` and \\*", "[l](p.md) ![i](a.png)",
               "<b>t</b> <https://x.y> <a@b.c>", "&amp; &#39; &x", "| a | b |\n|---|---|\n| 1 | *2* |\n| 3 | 4 |",
               "- one\n- two & three\n- <span>four</span>", "q < r > s", "snake_case_name", "a\\\nb",
               # Entities (format.md's escapes) in every place: headings (toc ids and names), links,
               # emphasis, cells, lists, beside other patterns and alone.
               "## aten&#58;&#58;fill&#95; &#124; x&lt;y&gt;\n\ntext &#35;4 &#95;a&#95;",
               "[sdpa&#95;math](v.md#k-1) **a&#58;b** *c&#95;d* `e&#95;f` &#x5f; &AMP; &#9999999;",
               "| a&#58; | b&#124; |\n|---|---|\n| &#95;1&#95; | [x&#58;](y.md) |", "- &#42;one&#42;\n- t&#95;  \nu",
               '!!! note "n&#58;&#95;"\n    body &#58; &amp;amp; &#38;lt;']
    for text in samples:
        assert conv.convert(text) == plain.convert(text), text


def test_the_inline_pass_reads_the_patterns_from_a_plain_list_in_the_registrys_order(monkeypatch):
    """The registry is no longer asked by index (12,000 asks a set); the list is its order, each pattern
    with its needs, and a pattern registered later is in the next page's list."""
    conv = prerender.Converter.from_project(ROOT / "mkdocs.yml")
    conv.convert("")
    inline = conv._md.treeprocessors["inline"]
    asked = []
    registry = type(conv._md.inlinePatterns)
    patterns = conv._md.inlinePatterns
    monkeypatch.setattr(registry, "__getitem__", lambda self, key, get=registry.__getitem__: (
        self is patterns and asked.append(key)) or get(self, key))
    text = "a *b* `c` [d](e.md) <https://f.g> &#95; x  \ny \\* <b>h</b>"
    html = conv.convert(text)
    assert not [k for k in asked if isinstance(k, int)]
    assert [p for p, _ in inline._patterns] == list(conv._md.inlinePatterns)
    assert [n for _, n in inline._patterns] == [inline._needs.get(id(p)) for p in conv._md.inlinePatterns]
    monkeypatch.undo()
    assert html == _plain(prerender.Converter.from_project(ROOT / "mkdocs.yml")).convert(text)
    conv._md.inlinePatterns.register(markdown.inlinepatterns.SimpleTextInlineProcessor(r"(~)"), "tilde", 1)
    conv.convert("x")
    assert inline._patterns[-1][0] is conv._md.inlinePatterns["tilde"]


def test_the_committed_sets_pages_convert_the_same_with_the_shortcut(h200_new):
    h200 = h200_new
    ctx = units.set_context(site.Context([h200]), h200)
    conv, plain = prerender.Converter.from_project(ROOT / "mkdocs.yml"), _plain(
        prerender.Converter.from_project(ROOT / "mkdocs.yml"))
    pages = [p for b in (sets.set_pages, variants.set_pages, scenarios.set_pages) for p in b(ctx, h200) if p.text]
    assert len(pages) > 15 and sum(len(p.text) for p in pages) > 500_000
    for p in pages:
        assert conv.page(p.text) == plain.page(p.text), p.path


# --------------------------------------------------------------------------- the reference readings

# What page() found marked blocks with before (hold's str.find must agree).
_BLOCK = re.compile(rf"^({re.escape(prerender.BEGIN)}|{re.escape(prerender.LIST)})\n(.*?)\n{re.escape(prerender.END)}$",
                    re.S | re.M)


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


def test_marked_blocks_are_found_as_the_regular_expression_finds_them():
    pieces = [prerender.BEGIN, prerender.END, "x", "", prerender.BEGIN + "x", "x" + prerender.END, prerender.LIST,
              "<!-- raw-html-toc  -->", prerender.LIST + " ", "<!-- raw-html x -->",
              prerender.END + " ", "\n", '<div class="a"></div>']
    rng = random.Random(21)
    found = 0
    for _ in range(20_000):
        text = "\n".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        expected, held, tight = _hold_by_regex(text)
        short, got, marked, got_tight = prerender.hold(text)
        assert (prerender._fill(short, got, marked), got[:marked], got_tight) == (expected, held, tight), repr(text)
        found += marked
    assert found > 1000


CHART = ("<div class=\"vega-chart\" data-search-exclude role=\"img\" aria-label=\"a &amp; b\" data-spec='{\"a\":"
         "[1,2],\"t\":\"x_y*z* [l](m.md) &lt;b&gt; &#39;q&#39;\"}'></div>")
SAMPLES = [
    # charts: between blank lines (held), in a paragraph, a list, a code block, an admonition, a raw block
    f"text\n\n{CHART}\n\nmore", f"{CHART}\n\n{CHART}", f"a\n{CHART}\n\nb", f"- a\n\n{CHART}\n\n- b",
    f"```\n\n{CHART}\n\n```", f"    code\n\n{CHART}\n\n    code", f'!!! note "n"\n\n    {CHART}\n\n    x',
    f"<div>\n\n{CHART}\n\n</div>", f'<div markdown="1">\n\n{CHART}\n\n</div>',
    '<div class="vega-chart" markdown="1"></div>\n\nx', "<div x='<b>'></div>\n\nx",
    f"{prerender.BEGIN}\n<p>held</p>\n{prerender.END}\n\n{CHART}\n\n" + prerender._HOLDER.format(0),
    # block processors: admonitions and details (new, continued, nested in lists), tables (pipes in
    # code, escaped, one column), headers (hash, setext), rules, quotes, references, blocks
    '!!! note "t"\n    body\n\n    more\n\nafter', '??? info "t"\n    body\n\n    more\n\n???+ tip\n    x',
    "- item\n\n    !!! note\n        in a list\n\n        more", "!!! warning\n\n    lazy\n\n        deep",
    "| a | `b|c` |\n|---|---|\n| \\| | `x` |", "|a|\n|-|\n|b|", "a | b\n--|--\n1 | 2", "| a |\nb",
    "# h1\n## h2 ##\ntext\n### h3", "Title\n=====\n\nSub\n---\n\ntext\n-", "a\n\n---\n\n* * *\n\n___",
    "> quote\n> more\n\n> again", "a > b\n\n>not", "[r]: http://x.y \"t\"\n\n[link][r] [r]", "x]: y\n\n[a]",
    "/// tab | A\ncontent\n///\n\n/// tab | B\nmore\n///", "a /// b",
    # attribute lists, escapes, the toc marker
    "# head {: #custom .c }\n\npara\n{: .p }", "`{code}` and {braces}", "\\*not\\* \\_x\\_ a\\\\b",
    "[TOC]\n\n# a\n\n## b", "text [TOC] text\n\n# a",
    "- a\n- b\n\n1. c\n2. d\n\n    indented\n\n* e",
    # character references (the HTML parser's stand-ins): beside tags, in raw blocks and their tails,
    # in comments, scripts and tags across lines, a bare & or &#, a markdown block, the stand-ins' plane
    "a&#95;b &#58; &amp; &lt;x&gt; &#x5F; &AMP; &a-b.c;\n\n<p>c&#95;d</p>&#95;e\nf&#95;g",
    "<div>\nin &#95; raw\n\nstill &#58;\n</div> tail &#95;\nafter &#95;\n\n<span>x&#95;</span> &#95;",
    "<!--\ncomment &#95;\n-->\n\n<script>\nvar a = 1 &#95; 2;\n</script>\n\nt&#95;",
    '<div class="x"\ndata-a="&#95;">\nb &#95;\n</div>\n\nc &#95;', "bare & amp &#95;", "&#x; then &#95; and ;",
    "&#x then &#95;\n\n<div>\n*a* &#95;\n</div>",
    "&#95a; and &#95;", '<div markdown="1">\n*a* &#95;\n</div>\n\n&#95;', "\U000F0001 &#95; \U000F0000",
    "- i &#95;\n    <b>&#95;</b>\n- j &#58;&#58;\n\n| a&#95; |\n|---|\n| &#124; |", "</div>&#95;\n&#95;",
]


def test_the_shortcuts_give_python_markdowns_html():
    conv, ref = prerender.Converter.from_project(ROOT / "mkdocs.yml"), _Reference.from_project(ROOT / "mkdocs.yml")
    for text in SAMPLES:
        for page in (f"# T\n\n{text}\n", f"---\nsearch:\n  exclude: true\n---\n\n# T\n{text}"):
            assert conv.page(page) == ref.page(page), text
        assert conv.convert(text) == ref.convert(text), text


def test_character_references_are_given_stand_ins_where_the_parser_only_passes_them_on():
    conv = prerender.Converter.from_project(ROOT / "mkdocs.yml")
    conv.convert("")
    seen = []
    run = conv._md.preprocessors["html_block"].run
    assert isinstance(run, prerender._EntityStandIns)
    run._run = lambda lines, inner=run._run: seen.append("\n".join(lines)) or inner(lines)
    conv.convert("a&#95;b &#58;\n\n<p>c&#95;</p>")
    assert "&" not in seen[-1].split("\n")[0] and "<p>c&#95;</p>" in seen[-1]
    for kept in ("a & b &#95;", '<div markdown="1">&#95;</div>', "<div\n>&#95;</div>"):
        conv.convert(kept)
        assert seen[-1].rstrip("\n") == kept


def test_the_shortcuts_are_taken_with_the_projects_extensions():
    md = markdown.Markdown(**{k: v for k, v in zip(("extensions", "extension_configs"), prerender._read_config(
        ROOT / "mkdocs.yml"))})
    assert prerender._shortcut_blocks(md) == 9
    # Python-Markdown's own and the table's alone; a processor whose pattern is another keeps its test.
    md = markdown.Markdown(extensions=["tables"])
    md.parser.blockprocessors["quote"].RE = re.compile(r"(^|\n)>(.*)")
    assert prerender._shortcut_blocks(md) == 5
    procs = md.parser.blockprocessors
    assert "test" not in vars(procs["quote"]) and "test" in vars(procs["hashheader"])


def test_the_committed_and_bench_sets_pages_convert_as_before(h200_new, tmp_path):
    from benchmarks.bench_build import fabricate

    bench = fabricate(tmp_path, 1, points=2)
    loaded = [h200_new, tables.LoadedSet(bench.name, bench, schema.load_set(bench))]
    conv, ref = prerender.Converter.from_project(ROOT / "mkdocs.yml"), _Reference.from_project(ROOT / "mkdocs.yml")
    n = 0
    for ls in loaded:
        ctx = units.set_context(site.Context([ls]), ls)
        for b in (sets.set_pages, variants.set_pages, scenarios.set_pages):
            for p in b(ctx, ls):
                if p.text:
                    assert conv.page(p.text) == ref.page(p.text), p.path
                    n += 1
    assert n > 30


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
        d = dict.fromkeys(("set", "default", "exceptions", "set_title", "decision"), odd) | {"lines": [odd, odd]}
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


# The findings page's loop over a group's findings before it wrote them as finished HTML (_findings_list.md.j2).
OLD_FINDING_ITEMS = (
    '{% for f in items %}\n- {% if f.severity == "unexpected" %}✗ **unexpected** · {% endif %}'
    '{% if f.name_variant %}**{{ f.variant | md }}**: {% endif %}{% if f.kind == "speed" and verdict %}'
    '<span data-flag="fastest" data-set="{{ ls.name }}" data-mode="inference" data-variant="{{ f.variant }}">★</span> '
    '{% elif f.kind == "host" %}<span data-flag="host-bound" data-set="{{ ls.name }}" data-mode="{{ f.mode }}" '
    'data-variant="{{ f.variant }}">⚠</span> {% endif %}{{ f.short | md }}{% if f.links %} · '
    'kernel{{ "s" if f.n_kernels > 1 else "" }} {% for label, href in f.links %}[{{ label }}]({{ href }})'
    '{% if not loop.last %}, {% endif %}{% endfor %}{% endif +%}\n{% endfor %}\n')


def test_findings_lists_are_the_html_python_markdown_made_of_the_markdown_lists(h200_new, tmp_path):
    """Each group's findings (the committed and a bench set's, and items of hostile strings) as the finished
    HTML of _findings_list.md.j2 convert to the bytes the Markdown loop it replaced converted to, between the
    headings and notes that stand around it on the page."""
    from benchmarks.bench_build import fabricate
    from gen.report.pages import findings

    bench = fabricate(tmp_path, 1, points=2)
    env = site.shared_environment()
    new, old = env.get_template("_findings_list.md.j2").module.finding_items, env.from_string(OLD_FINDING_ITEMS)
    conv, ref = prerender.Converter.from_project(ROOT / "mkdocs.yml"), _Reference.from_project(ROOT / "mkdocs.yml")
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
        held, md = new(items, ls, verdict), old.render(items=items, ls=ls, verdict=verdict)
        for before, after in (("### Copies\n\n", "\n\n### Next\n\ntext\n"), ("### G\n\nA note &#95;.\n\n", "\n")):
            assert conv.page(f"# T\n\n{before}{held}{after}") == ref.page(f"# T\n\n{before}{md}{after}"), items
    html = conv.page(f"# T\n\n{new(hostile, ls, True)}\n")
    assert "<b>" not in html and "<i>" not in html and "<em>" not in html and "<h1" not in html
