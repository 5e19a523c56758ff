"""gen.report.prerender: a set's own pages converted as mkdocs converts them; its shortcut (texts
no inline pattern can match skip Python-Markdown's inline pass) changes nothing of the HTML."""

from __future__ import annotations

from pathlib import Path

import markdown

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


def test_the_committed_sets_pages_convert_the_same_with_the_shortcut(h200_new):
    h200 = h200_new
    ctx = units.set_context(site.Context([h200]), h200)
    conv, plain = prerender.Converter.from_project(ROOT / "mkdocs.yml"), _plain(
        prerender.Converter.from_project(ROOT / "mkdocs.yml"))
    pages = [p for b in (sets.set_pages, variants.set_pages, scenarios.set_pages) for p in b(ctx, h200) if p.text]
    assert len(pages) > 15 and sum(len(p.text) for p in pages) > 500_000
    for p in pages:
        assert conv.page(p.text) == plain.page(p.text), p.path
