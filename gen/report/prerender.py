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


# What each of Python-Markdown's inline patterns (its regular expression) cannot match without:
# a text holding none of its characters is left as it is by every pattern.
_NEEDS = {
    r"(?:(?<!\\)((?:\\{2})+)(?=`+)|(?<!\\)`)": "`",  # code spans
    r"\\(.)": "\\",  # escapes
    r"(?<!\!)\[": "[",  # links and references
    r"\!\[": "[",  # images
    r"<([A-Za-z][A-Za-z0-9+.-]*://[^<>]*)>": "<",
    r"<([^<> !]+@[^@<> ]+)>": "<",
    # An entity needs nothing: the pattern only stashes it to put it back as it was, and the
    # serializer leaves an entity's & as it is (its RE_AMP, the same expression), so a text whose
    # entities stay in it gives the same HTML. The report's escaper (format.md) makes every `:`,
    # `_` or `#` of a name an entity: most of a page's texts hold dozens, and nothing else.
    r"(&(?:\#[0-9]+|\#x[0-9a-fA-F]+|[a-zA-Z0-9]+);)": "",
    r"\*|_": "*_",
}
_LINE_BREAK = r"  \n"  # the line-break pattern: two spaces ending a line


class _Inline(markdown.treeprocessors.InlineProcessor):
    """Python-Markdown's inline pass, which tries each of its patterns (a dozen) on every text of
    the page: most of a page's texts are table cells and list items with none of the characters
    any pattern starts with, which it would leave as they are. Those are left at once; the others
    go through the patterns as before. Only where every pattern is one of _NEEDS's (`for_md`)."""

    def __init__(self, md: markdown.Markdown, trigger: re.Pattern, needs: dict[int, tuple[str, ...]]):
        super().__init__(md)
        self._trigger = trigger
        self._needs = needs  # id(pattern) -> the strings one of which its match holds
        self._patterns: list = []  # the registry's patterns in its order, with their needs (run)

    def run(self, tree: etree.Element, ancestors: list[str] | None = None) -> etree.Element:
        # A plain list: the registry's __getitem__ sorts and looks a pattern up by name on each
        # of some 12,000 asks a set. Taken again each page, should an extension register one.
        self._patterns = [(p, self._needs.get(id(p))) for p in self.inlinePatterns]
        return super().run(tree, ancestors)

    def _InlineProcessor__handleInline(self, data: str, patternIndex: int = 0) -> str:  # noqa: N802, N803
        # Python-Markdown's loop (treeprocessors.InlineProcessor.__handleInline) over the list.
        if patternIndex == 0 and not self._trigger.search(data):
            return data
        if isinstance(data, markdown.util.AtomicString):
            return data
        patterns, apply = self._patterns, self._InlineProcessor__applyPattern
        start, count = 0, len(patterns)
        while patternIndex < count:
            pattern, needs = patterns[patternIndex]
            # A pattern with none of its characters past `start` finds nothing there, which
            # Python-Markdown answers with (data, False, 0); one that needs nothing (the entity's)
            # is never tried. A loop, not all() over a generator: 11,000 asks a set.
            if needs is not None:
                find = data.find
                for n in needs:
                    if find(n, start) >= 0:
                        break
                else:
                    patternIndex, start = patternIndex + 1, 0
                    continue
            data, matched, start = apply(pattern, data, patternIndex, start)
            if not matched:
                patternIndex += 1
        return data

    @classmethod
    def for_md(cls, md: markdown.Markdown) -> _Inline | None:
        chars = set("\x02\x03")  # the placeholders of stashed elements, to be safe
        line_break = False
        needs: dict[int, tuple[str, ...]] = {}
        for pattern in md.inlinePatterns:
            if not isinstance(pattern, markdown.inlinepatterns.InlineProcessor):
                return None
            source = pattern.compiled_re.pattern
            if source == _LINE_BREAK:
                line_break, needs[id(pattern)] = True, ("  \n",)
            elif type(pattern).__module__.startswith("markdown.") and source in _NEEDS:
                chars |= set(_NEEDS[source])
                needs[id(pattern)] = tuple(_NEEDS[source])
            elif source.startswith("(<") and type(pattern) is markdown.inlinepatterns.HtmlInlineProcessor:
                chars.add("<")  # raw inline HTML starts with <
                needs[id(pattern)] = ("<",)
            else:
                return None
        alternatives = [f"[{re.escape(''.join(sorted(chars)))}]"] + ([_LINE_BREAK] if line_break else [])
        return cls(md, re.compile("|".join(alternatives)), needs)


# What each of Python-Markdown's block processors cannot say yes to a block without (a test that
# scans the whole block with a regular expression, asked of each of a page's 1,500 blocks): its
# class, the pattern its test searches with (where the pattern is another, the test is left as
# it is) and the necessary condition, asked first.
def _admonition_like(mark: str):
    # A new one starts with its mark; a continuation (parse_content) is indented by a tab and
    # follows one of its kind, or is the block a previous test already claimed (current_sibling).
    return lambda proc, block: (proc.current_sibling is not None or mark in block
                                or block.startswith(" " * proc.tab_length))


_BLOCK_NEEDS = {
    ("markdown.extensions.admonition", "AdmonitionProcessor", "RE"): _admonition_like("!!!"),
    ("pymdownx.details", "DetailsProcessor", "START"): _admonition_like("???"),
    # A table's first line holds a pipe (no pipe: one cell, no border) and a second line follows.
    ("markdown.extensions.tables", "TableProcessor", "RE_END_BORDER"):
        lambda proc, block: "\n" in block and "|" in block[:block.find("\n")],
    ("markdown.blockprocessors", "HashHeaderProcessor", "RE"):
        lambda proc, block: block.startswith("#") or "\n#" in block,
    ("markdown.blockprocessors", "SetextHeaderProcessor", "RE"):  # its second line starts with = or -
        lambda proc, block: block[block.find("\n") + 1:block.find("\n") + 2] in ("=", "-") and "\n" in block,
    ("markdown.blockprocessors", "BlockQuoteProcessor", "RE"): lambda proc, block: ">" in block,
}
_BLOCK_PATTERNS = {
    "AdmonitionProcessor": r'(?:^|\n)!!! ?([\w\-]+(?: +[\w\-]+)*)(?: +"(.*?)")? *(?:\n|$)',
    "DetailsProcessor": r'(?:^|\n)\?{3}(\+)? ?(?:([\w\-]+(?: +[\w\-]+)*?)?(?: +"(.*?)")|([\w\-]+(?: +[\w\-]+)*?))'
                        r' *(?:\n|$)',
    "TableProcessor": r'(?<!\\)(?:\\\\)*\|$',
    "HashHeaderProcessor": r'(?:^|\n)(?P<level>#{1,6})(?P<header>(?:\\.|[^\\#]|#+(?=[^#\n]))*?)#*(?:\n|$)',
    "SetextHeaderProcessor": r'^.*?\n(?:=+|-+)[ ]*(\n|$)',
    "BlockQuoteProcessor": r'(^|\n)[ ]{0,3}>[ ]?(.*)',
}
_REFERENCE = r'^[ ]{0,3}\[([^\[\]]*)\]:[ ]*(?:\n[ ]*)?([^\s]+)[ ]*(?:\n[ ]*)?((["\'])(.*)\4[ ]*|\((.*)\)[ ]*)?$'
_CODE_PIPES = r'(?:(\\\\)|(\\`+)|(`+)|(\\\|)|(\|))'
_BLOCKS_START = r'(?:^|\n)[ ]{0,3}(/{3,})[ ]*([\w-]+)[ ]*(?:\|[ ]*(.*?)[ ]*)?(?:\n|$)'


class _NeedsSlashes:
    """pymdownx.blocks' start pattern, searched only in a block holding `///` (which it needs)."""

    def __init__(self, pattern: re.Pattern):
        self._pattern = pattern

    def search(self, block: str, *args):
        return self._pattern.search(block, *args) if "///" in block else None

    def __getattr__(self, name: str):
        return getattr(self._pattern, name)


def _pattern_of(obj, attr: str) -> str | None:
    value = getattr(obj, attr, None)
    return getattr(value, "pattern", value) if not isinstance(value, _NeedsSlashes) else None


def _asking_first(proc, needs):
    test = proc.test
    return lambda parent, block: needs(proc, block) and test(parent, block)


def _shortcut_blocks(md: markdown.Markdown) -> int:
    """Each known block processor's test asks its necessary condition first (_BLOCK_NEEDS); the
    reference processor (whose test says yes to every block, then its run searches) and
    pymdownx.blocks' start search likewise. Returns how many were given one."""
    done = 0
    for proc in md.parser.blockprocessors:
        cls = type(proc)
        for (module, name, attr), needs in _BLOCK_NEEDS.items():
            if cls.__module__ == module and cls.__name__ == name and _pattern_of(proc, attr) == _BLOCK_PATTERNS[name]:
                proc.test = _asking_first(proc, needs)
                done += 1
        if cls is markdown.blockprocessors.ReferenceProcessor and proc.RE.pattern == _REFERENCE:
            run = proc.run  # the pattern needs `]:`; without it run puts the block back and says no
            proc.run = lambda parent, blocks, run=run: "]:" in blocks[0] and run(parent, blocks)
            done += 1
        if cls is markdown.extensions.tables.TableProcessor and proc.RE_CODE_PIPES.pattern == _CODE_PIPES:
            split = proc._split  # a row without backticks or backslashes: every pipe divides it
            proc._split = lambda row, split=split: split(row) if "`" in row or "\\" in row else row.split("|")
            done += 1
        if cls.__module__ == "pymdownx.blocks" and cls.__name__ == "BlocksProcessor" \
                and _pattern_of(proc, "start") == _BLOCKS_START:
            proc.start = _NeedsSlashes(proc.start)
            done += 1
    return done


class _PageShortcuts:
    """Passes of the whole tree that cannot change a page without a character the page lacks:
    attr_list's (every attribute list is in braces), the unescape pass's (its placeholders come
    from backslash escapes only), and toc's search for its marker paragraph ([TOC]). `before(text)`
    leaves each out of the page that lacks it. And md.is_block_level's answers (a scan of a list
    of 60 names, asked 16,000 times a set) kept, while that list stays as it was."""

    def __init__(self, md: markdown.Markdown):
        self.md = md
        tree = md.treeprocessors
        self._skip: dict[str, bool] = {}
        self._needs: dict[str, str] = {}
        for name, cls, needs in (("attr_list", "AttrListTreeprocessor", "{"),
                                 ("unescape", "UnescapeTreeprocessor", "\\")):
            kind = type(tree[name]) if name in tree else None
            if kind is not None and kind.__name__ == cls and kind.__module__.startswith("markdown."):
                tree[name].run = self._unless_skipped(name, tree[name].run)
                self._skip[name], self._needs[name] = False, needs
        self._toc = tree["toc"] if "toc" in tree and type(tree["toc"]).__name__ == "TocTreeprocessor" else None
        self._marker = self._toc.marker if self._toc is not None else None
        self._levels: dict = {}
        self._names = list(md.block_level_elements)
        is_block_level = md.is_block_level

        def cached(tag) -> bool:
            try:
                return self._levels[tag]
            except (KeyError, TypeError):
                answer = is_block_level(tag)
                try:
                    self._levels[tag] = answer
                except TypeError:
                    pass
                return answer

        md.is_block_level = cached

    def _unless_skipped(self, name: str, run):
        return lambda root: None if self._skip[name] else run(root)

    def before(self, text: str) -> None:
        for name, needs in self._needs.items():
            self._skip[name] = needs not in text
        if self._toc is not None:
            self._toc.marker = self._marker if self._marker and self._marker in text else ""
        if self.md.block_level_elements != self._names:
            self._names = list(self.md.block_level_elements)
            self._levels.clear()


# The character references the HTML parser reads whole (its charref and entityref, ended by `;`),
# each given back as it was written (handle_charref and handle_entityref write `&#{}` and `&{}` +
# `;`); a `&` that starts none of them; a line the parser could be inside a tag on (a `<` whose
# `>` is not on its line).
_ENTITY = re.compile(r"(&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z][-.a-zA-Z0-9]*);)")
_BARE_AMP = re.compile(r"&(?!#[0-9]+;|#[xX][0-9a-fA-F]+;|[a-zA-Z][-.a-zA-Z0-9]*;)")
_OPEN_TAG_LINE = re.compile(r"<[^>\n]*\n")
_STAND_IN = 0xF0000  # Unicode's private use plane 15: stand-ins, where the page holds none of it
_STAND_INS = re.compile("[\U000F0000-\U000FFFFF]")


class _EntityStandIns:
    """md_in_html's HTML parser (HtmlBlockPreprocessor) reads a page's character references one at
    a time (some 4,600 a set, which the escaper writes: `&#95;`, `&#58;`): each a handler call that
    gives it back as it was, to the text or to the raw block it is in. Outside a tag, on a line
    with no `<`, that is all it does with one (the `intail` state that would send it elsewhere ends
    at the line's end). There each is given a one-character stand-in the parser passes as text,
    and put back after. Only in a page where every `&` starts a reference ended by `;` (a bare
    `&#` makes the parser look for a later `;`, which stand-ins would take away), with no
    `markdown` attribute (md_in_html's own blocks read references differently), no tag across
    lines and no character of the stand-ins' plane."""

    def __init__(self, md: markdown.Markdown, run):
        self.md, self._run = md, run

    @classmethod
    def install(cls, md: markdown.Markdown) -> bool:
        proc = md.preprocessors["html_block"] if "html_block" in md.preprocessors else None
        kind = type(proc)
        if proc is None or kind.__name__ != "HtmlBlockPreprocessor" or kind.__module__ not in (
                "markdown.preprocessors", "markdown.extensions.md_in_html"):
            return False
        proc.run = cls(md, proc.run)
        return True

    def __call__(self, lines: list[str]) -> list[str]:
        source = "\n".join(lines)
        if ("&" not in source or "markdown" in source.lower() or _BARE_AMP.search(source)
                or _OPEN_TAG_LINE.search(source) or _STAND_INS.search(source)):
            return self._run(lines)
        table: dict[str, str] = {}
        for name in set(_ENTITY.findall(source)):
            table[name] = chr(_STAND_IN + len(table))
        get = table.__getitem__
        given = []
        for line in lines:
            if "&" in line and "<" not in line:
                parts = _ENTITY.split(line)
                parts[1::2] = map(get, parts[1::2])
                line = "".join(parts)
            given.append(line)
        stash = self.md.htmlStash.rawHtmlBlocks
        first = len(stash)
        text = "\n".join(self._run(given))
        back = [(s, name) for name, s in table.items()]
        stash[first:] = [_put_back(b, back) if isinstance(b, str) else b for b in stash[first:]]
        return _put_back(text, back).split("\n")


def _put_back(text: str, back: list[tuple[str, str]]) -> str:
    for s, name in back:
        if s in text:
            text = text.replace(s, name)
    return text


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
    except yaml.YAMLError:  # tags only mkdocs knows (!ENV, !relative): let it read the file
        from mkdocs.config import load_config

        cfg = load_config(str(path))
        return list(cfg["markdown_extensions"]), dict(cfg["mdx_configs"])
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
        self._shortcuts: _PageShortcuts | None = None

    @classmethod
    def from_project(cls, mkdocs_yml: Path) -> Converter:
        return cls(*_read_config(Path(mkdocs_yml)))

    def key(self) -> str:
        """What the converted pages depend on, for the cache."""
        return json.dumps([self.extensions, self.configs], sort_keys=True, default=str)

    def __getstate__(self):  # sent to worker processes without the Markdown instance
        return dict(extensions=self.extensions, configs=self.configs, _md=None, _shortcuts=None)

    def convert(self, text: str) -> tuple[str, list]:
        if self._md is None:
            self._md = markdown.Markdown(extensions=self.extensions, extension_configs=self.configs)
            self._md.treeprocessors.register(_Links(self._md), "report_links", 0)
            inline, tree = _Inline.for_md(self._md), self._md.treeprocessors
            if inline is not None and "inline" in tree:  # in the place of Python-Markdown's own
                tree.register(inline, "inline", next(i.priority for i in tree._priority if i.name == "inline"))
            _shortcut_blocks(self._md)
            self._shortcuts = _PageShortcuts(self._md)
            _EntityStandIns.install(self._md)
        md = self._md
        md.reset()
        self._shortcuts.before(text)
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
