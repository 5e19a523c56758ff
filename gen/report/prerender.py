"""A set's own pages, converted from Markdown to HTML at build time, as mkdocs would convert them.

Takes: the project's mkdocs.yml (its `markdown_extensions`) and a page's Markdown. Gives:
`Converter.from_project(mkdocs_yml)` and `converter.page(path, text) -> text`: the page's
front matter and title as they were, and its body as finished HTML between the markers of
gen/report/mkdocs_hook.py (with its table of contents), which mkdocs then only splices in.
Why: Python-Markdown costs about a millisecond per kilobyte, and a set brings some 250 kB
of its own pages; converted here, the work runs in the build's worker processes, once per
set (the cache keeps it), instead of in `mkdocs build` for every set on every build.

The conversion is mkdocs' own: the same extensions and settings, and links rewritten as
mkdocs rewrites them with `use_directory_urls: false` (a relative `page.md#anchor` becomes
`page.html#anchor`). `links(html)` lists a converted page's relative links, for the build
to check that each lands on a page (mkdocs no longer sees them).
"""

from __future__ import annotations

import base64
import json
import re
import xml.etree.ElementTree as etree
from pathlib import Path
from urllib.parse import urlsplit

import markdown
import markdown.extensions.tables

from gen.report.format import html_url

BEGIN, END = "<!-- raw-html -->", "<!-- /raw-html -->"  # gen/report/mkdocs_hook.py's markers
# A block standing for a Markdown list or pipe table (BEGIN's place; the same END): Python-Markdown
# ends a list or table with one newline, a raw HTML block with two, so its holder's second newline
# is taken away and the block's HTML is the list's or table's to the byte (mkdocs_hook reads it too).
LIST = "<!-- raw-html list -->"
TOC = "<!-- raw-html-toc {} -->"
MKDOCS_BUILTIN = ["toc", "tables", "fenced_code"]  # mkdocs' MarkdownExtensions(builtins=...)
_FRONT = re.compile(r"\A(---\n.*?\n---\n)\n*", re.S)
_HREF = re.compile(r'\shref="([^"]*)"')
_BLOCK = re.compile(rf"^(?:{re.escape(BEGIN)}|{re.escape(LIST)})\n(.*?)\n{re.escape(END)}$", re.S | re.M)
_HOLDER = '<div class="raw-html" data-held="{}"></div>'
_HOLDER_RE = re.compile(r'<div class="raw-html" data-held="(\d+)"></div>')
_HOLDER_AFTER = re.compile(r'<div class="raw-html" data-held="(\d+)"></div>(\n\n)?')  # and its blank line
# An empty <div> on a line of its own between blank lines, every attribute value quoted and free of
# < and > (nor a `markdown` attribute, which md_in_html reads), in a page with no markdown="1"
# block: Python-Markdown gives it back as it is, as a raw HTML block, like the holder that takes
# its place. These are the charts (their specs
# in data-spec: some 500 kB of a set's 800 kB of pages), which Python-Markdown's whitespace pass
# and HTML parser would otherwise read through.
_RAW_DIV = re.compile(r"""<div(?:[ \t]+(?!markdown\b)[A-Za-z_:][-\w:.]*(?:="[^"<>\n]*"|='[^'<>\n]*')?)*"""
                      r"""[ \t]*></div>\n\n""")


def hold(body: str) -> tuple[str, list[str], int, set[int]]:
    """The body with a holder in the place of each block marked as finished HTML (a line BEGIN or
    LIST, the block, a line END: what _BLOCK matches) and of each chart's line (_RAW_DIV, after a
    blank line); the blocks and lines held, the marked ones first; how many were marked; which
    were marked LIST. Found with str.find: the regular expressions took a tenth of the conversion's time."""
    held: list[str] = []
    tight: set[int] = set()
    out, done, search = [], 0, 0
    heads, tail = (BEGIN + "\n", LIST + "\n"), "\n" + END
    while (begin := body.find("<!-- raw-html ", search)) >= 0:  # the start of both heads
        search = begin + 1
        if begin and body[begin - 1] != "\n":
            continue
        head = heads[0] if body.startswith(heads[0], begin) else heads[1] if body.startswith(heads[1], begin) else None
        if head is None:
            continue
        end = body.find(tail, begin + len(head))
        while end >= 0 and end + len(tail) < len(body) and body[end + len(tail)] != "\n":
            end = body.find(tail, end + 1)  # the END line must end there
        if end < 0:  # nor after any later BEGIN
            break
        if head is heads[1]:
            tight.add(len(held))
        out += [body[done:begin], _HOLDER.format(len(held))]
        held.append(body[begin + len(head):end])
        done = search = end + len(tail)
    out.append(body[done:])
    marked = len(held)
    text = "".join(out)
    if "markdown" in text.lower():  # a markdown="1" block (md_in_html) would rewrite a chart inside it
        return text, held, marked, tight
    out, done, search = [], 0, 0
    text = f"\n\n{text}\n\n"
    while (at := text.find("\n\n<div", search)) >= 0:
        search = at + 1
        m = _RAW_DIV.match(text, at + 2)
        if m and not _HOLDER_RE.match(text, at + 2):  # a marked block's holder stays as it is
            out += [text[done:at + 2], _HOLDER.format(len(held)), "\n\n"]
            held.append(m.group()[:-2])
            done = m.end()
            search = done - 2
    out.append(text[done:])
    return "".join(out)[2:-2], held, marked, tight


class _Links(markdown.treeprocessors.Treeprocessor):
    """Relative links to .md pages point at their .html (mkdocs' _RelativePathTreeprocessor)."""

    def run(self, root: etree.Element) -> None:
        for el in root.iter("a"):
            href = el.get("href")
            if href:
                el.set("href", html_url(href))


def _read_config(path: Path) -> tuple[list, dict]:
    """markdown_extensions of an mkdocs.yml: the names in order, and each one's settings."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError:  # tags only mkdocs knows (!ENV, !relative): its loader reads them (not the
        # INHERITed file, which the build writes later: the extensions sit in this one)
        from mkdocs.utils.yaml import get_yaml_loader

        data = yaml.load(path.read_text(encoding="utf-8"), Loader=get_yaml_loader()) or {}
    names, configs = list(MKDOCS_BUILTIN), {}
    for item in data.get("markdown_extensions") or []:
        name, conf = next(iter(item.items())) if isinstance(item, dict) else (item, None)
        if name not in names:
            names.append(name)
        if conf:
            configs[name] = conf
    return names, configs


class Converter:
    """One Markdown instance per process, reset between pages."""

    def __init__(self, extensions: list, configs: dict):
        self.extensions, self.configs = extensions, configs
        self._md: markdown.Markdown | None = None

    @classmethod
    def from_project(cls, mkdocs_yml: Path) -> Converter:
        return cls(*_read_config(Path(mkdocs_yml)))

    def key(self) -> str:
        """What the converted pages depend on, for the cache."""
        return json.dumps([self.extensions, self.configs], sort_keys=True, default=str)

    def __getstate__(self):  # sent to worker processes without the Markdown instance
        return dict(extensions=self.extensions, configs=self.configs, _md=None)

    def convert(self, text: str) -> tuple[str, list]:
        if self._md is None:
            self._md = markdown.Markdown(extensions=self.extensions, extension_configs=self.configs)
            self._md.treeprocessors.register(_Links(self._md), "report_links", 0)
        md = self._md
        md.reset()
        out = md.convert(text)
        return out, list(getattr(md, "toc_tokens", []))

    def page(self, text: str) -> str:
        """The page with its body (after the front matter and the `# title` line) converted."""
        m = _FRONT.match(text)
        front = m.group(1) + "\n" if m else ""
        rest = text[m.end():] if m else text
        title, _, body = rest.partition("\n")
        if not title.startswith("# "):
            title, body = "", rest
        # Blocks already marked as finished HTML (kernel tables) skip the conversion too.
        short, held, marked, tight = hold(body)
        html, toc = self.convert(short)
        if len(held) > marked and sorted(i for i in map(int, _HOLDER_RE.findall(html)) if i >= marked) != list(
                range(marked, len(held))):
            # A chart's holder not given back as it is (in a code block, say): that page is
            # converted with its charts.
            html, toc = self.convert(_fill(short, held, marked))
            del held[marked:]
        html = _HOLDER_AFTER.sub(lambda m: put_back(m, held, tight), html)
        toc_json = base64.b64encode(json.dumps(toc, ensure_ascii=False).encode()).decode()
        head = f"{front}{title}\n\n" if title else front
        return f"{head}{TOC.format(toc_json)}\n{BEGIN}\n{html}\n{END}\n"


def put_back(m: re.Match, held: list[str], tight: set[int]) -> str:
    """A holder (and the newlines after it: _HOLDER_AFTER) given its block back; a LIST block's
    holder loses one newline of the two a raw HTML block's has before the next element."""
    after = m.group(2)
    i = int(m.group(1))
    return held[i] + ("\n" if i in tight else after) if after else held[i]


def _fill(text: str, held: list[str], start: int) -> str:
    """The text with the holders of held[start:] given their lines back."""
    return _HOLDER_RE.sub(lambda m: held[int(m.group(1))] if int(m.group(1)) >= start else m.group(), text)


def links(text: str) -> list[str]:
    """The relative links (href) of a converted page, to check."""
    out = []
    for href in _HREF.findall(text):
        parts = urlsplit(href)
        if not parts.scheme and not parts.netloc and parts.path:
            out.append(parts.path)
    return out
