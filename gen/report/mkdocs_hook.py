"""mkdocs hook: blocks of finished HTML in a page skip Markdown and go into the page as they are.

Takes: pages whose Markdown holds blocks between a line `<!-- raw-html -->` and a line
`<!-- /raw-html -->`, each block maybe after a line `<!-- raw-html-toc BASE64 -->` (the
headings of the block as Python-Markdown's toc_tokens, in base64 JSON). These are the
report's kernel tables (thousands of elements a set, no Markdown inside) and the bodies of
a set's own pages and of the pages over all sets, converted by the build (gen.report.prerender). Gives: the same HTML
page, made faster: Python-Markdown parses raw HTML tag by tag, three times (mkdocs'
anchor scan, md_in_html, the search index). Here each block is set aside before Markdown
runs (a placeholder takes its place), its ids are added to the page's anchors (so links to
a kernel row are still checked), its headings to the page's table of contents, and it is
put back into the finished page. A block's text is not searched: the kernel tables are
data-search-exclude, and a set's own pages are left out of search.

Without this hook the markers are HTML comments and the blocks are converted as raw HTML:
the same page, slower, with no table of contents for a converted body.

Also: the theme's navigation sidebar of a page outside the navigation (a set's own pages: a
thousand at 50 sets) is rendered once per folder and reused (`report_nav_get`/`report_nav_put`,
called by overrides/main.html). Material draws the whole navigation on every page (every set's
entry), a third of mkdocs' time; for a page outside it nothing is active, and its links are
relative to the page's folder, so the pages of one folder share the same HTML.

And: a page outside the navigation that is nothing but its `# title` and one such block (a set's
own pages: a thousand at 50 sets, each otherwise some 3.5 ms of mkdocs' time) is not drawn by
the theme one by one. The theme draws, once per folder and depth (the key of the kept
navigation) and front matter, a shell: the page template with marks in the place of the
page's title, table of contents and content (`_Marked`); each page of that folder is the
shell with its own title (in each form the theme prints it: as it is, `striptags`,
`striptags | e`, `e`), first heading's anchor and content put in the marks' places
(`report_splice`, its template chosen by the page's `template` meta). Its title line is still
converted by Markdown, as mkdocs converts it, with one Markdown instance reset between pages
instead of one made per page (`_SplicedPage.render`); or, where the title is plain (words of letters,
digits and a few signs that Markdown leaves as they are: `_PLAIN`), its heading, anchor and permalink
are written as Markdown writes them (`_plain_values`, 0.3 ms a page less; the first TITLE_CHECKED
pages of a build are converted by Markdown too and compared, a difference turning it off). Its
front matter is read once per distinct text (`_get_data`: a set's own pages share a few).
Where the theme prints a page's values in any other way (a mark left in the shell, a table of
contents drawn), or where the first two pages of a shell, drawn in full as well, differ from
their spliced text, every page of that shell is drawn in full (a warning: a strict
build fails): the same site either way
(tests/test_mkdocs_hook.py compares the sites with and without it, byte for byte, with and
without a site_url). A page's canonical URL (where a site_url is set) is a mark too; a page
with an edit link (repo_url) is drawn in full. mkdocs still sees every page: its links,
anchors, search entry (a set's own pages are excluded) and sitemap entry are those of before.

And: the theme's templates, compiled, are kept in the project's .cache/mkdocs between builds
(`_bytecode_dir`): 0.15 s a build.

And: the search index (Material's search plugin) reads each page's sections through a port of
Material's search parser (`_search_sections`), where the installed parser is the version the port
follows (SEARCH_SOURCE): the same index, its parsing five times faster (at 50 sets, 0.3 s of the 0.6 s
the plugin took). HTML in a form the port does not read is parsed by Material's parser.

mkdocs loads this file by its path (mkdocs.yml `hooks:`): stdlib, jinja2, markupsafe and
mkdocs only.
"""

from __future__ import annotations

import base64
import copy
import json
import logging
import posixpath
import re
from html import escape as escape_html
from html import unescape
from urllib.parse import unquote, urlsplit

import jinja2
import markdown
from markupsafe import Markup, escape
from mkdocs.structure.pages import (
    Page,
    _ExtractAnchorsTreeprocessor,
    _ExtractTitleTreeprocessor,
    _RawHTMLPreprocessor,
    _RelativePathTreeprocessor,
)
from mkdocs.structure.toc import get_toc
from mkdocs.utils import meta

BEGIN, END = "<!-- raw-html -->", "<!-- /raw-html -->"
LIST = "<!-- raw-html list -->"  # BEGIN of a block standing for a Markdown list or table (gen.report.prerender)
_HREF = re.compile(r'\shref="([^"]*)"')
_TOC_LINE = re.compile(r"<!-- raw-html-toc ([A-Za-z0-9+/=]*) -->\n")
_ID = re.compile(r'id="([^"]+)"')  # an id attribute where whitespace precedes it (_ids)
_HOLDER = '<div class="raw-html" data-raw-html="{}"></div>'
# gen.report.render.GENERATED (mkdocs loads this file by its path: it imports nothing of gen; a test compares)
GENERATED = "generated/"
_HOLDER_RE = re.compile(r'<div class="raw-html" data-raw-html="(\d+)"></div>')
_HOLDER_GAP = re.compile(r'<div class="raw-html" data-raw-html="(\d+)"></div>\n\n')

_blocks: dict[str, tuple] = {}  # page -> its blocks, their headings, bodies and LIST blocks, until on_post_page
_in_nav: set[str] = set()  # the pages the navigation lists (this build's)
_linked: set[str] = set()  # every folder holding (at any depth) a page or file the navigation links to
_navs: dict[tuple[str, int], str] = {}  # _nav_key -> the navigation HTML of the pages outside it
_shells: dict[tuple, _Shell | None] = {}  # _shell_key -> its shell, None where its pages are drawn in full
_front: dict[str, tuple[bool, dict]] = {}  # a front matter's text -> whether read as a mapping, and it
_md: list[markdown.Markdown] = []  # this build's Markdown instance for the spliced pages' title lines

log = logging.getLogger("mkdocs.hooks.report")


def _key(page) -> str:
    return page.file.src_uri


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    if BEGIN not in markdown and LIST not in markdown:
        return markdown
    out, blocks, toc, bodies, lists = hold(markdown)
    _blocks[_key(page)] = (blocks, toc, bodies, lists)
    return out


def hold(text: str) -> tuple[str, list[str], list, list[int], set[int]]:
    """The text with each block (a line BEGIN or LIST, the block, a line END; maybe after its headings'
    line) replaced by a placeholder; the blocks; their headings; which blocks had a headings line
    (a page's body converted by the build); which were marked LIST. Found with str.find: a regular
    expression over a set's page (up to 300 kB) took 2 ms of a page's 3."""
    out, blocks, toc, bodies, lists = [], [], [], [], set()
    heads, tail = (BEGIN + "\n", LIST + "\n"), "\n" + END
    done = search = 0  # the text before `done` is in out; BEGIN is looked for from `search`
    while (begin := text.find("<!-- raw-html ", search)) >= 0:  # the start of both heads
        search = begin + 1
        if begin and text[begin - 1] != "\n":  # not a line of its own
            continue
        head = heads[0] if text.startswith(heads[0], begin) else heads[1] if text.startswith(heads[1], begin) else None
        if head is None:
            continue
        body = begin + len(head)
        end = text.find(tail, body)
        while end >= 0 and end + len(tail) < len(text) and text[end + len(tail)] != "\n":
            end = text.find(tail, end + 1)  # the END line must end there
        if end < 0:
            continue
        start = begin
        line = text.rfind("\n", 0, begin - 1) + 1 if begin else begin
        m = _TOC_LINE.fullmatch(text, line, begin) if line >= done and begin else None
        if m:
            start = line
            bodies.append(len(blocks))
            if m.group(1):
                toc.extend(json.loads(base64.b64decode(m.group(1))))
        if head is heads[1]:
            lists.add(len(blocks))
        out += [text[done:start], _HOLDER.format(len(blocks))]
        blocks.append(text[body:end])
        done = search = end + len(tail)
    out.append(text[done:])
    return "".join(out), blocks, toc, bodies, lists


def _ids(html: str) -> set[str]:
    """The values of a block's id attributes, as the regular expression \\sid="([^"]+)" finds them (test),
    found with str.find: five times faster over a set's page."""
    out, at = set(), 0
    while (i := html.find('id="', at)) >= 0:
        at = i + 1
        if i and html[i - 1].isspace() and (m := _ID.match(html, i)):
            out.add(unescape(m.group(1)))
            at = m.end()
    return out


def on_page_content(html: str, page, **kwargs) -> str:
    blocks, toc, bodies, lists = _blocks.get(_key(page), ([], [], [], set()))
    if lists:  # Python-Markdown ends a list or table with one newline, a raw block (the holder) with two
        html = _HOLDER_GAP.sub(lambda m: m.group()[:-1] if int(m.group(1)) in lists else m.group(), html)
    if blocks and getattr(page, "present_anchor_ids", None) is not None:
        page.present_anchor_ids |= {i for b in blocks for i in _ids(b)}
    if toc and getattr(page, "toc", None) is not None:
        extra = get_toc(toc).items
        if len(page.toc.items) == 1 and page.toc.items[0].level == 1:  # under the page's title
            page.toc.items[0].children.extend(extra)
        else:
            page.toc.items.extend(extra)
    searched = not ((page.meta or {}).get("search") or {}).get("exclude")
    if bodies and searched:
        # A searched page's body (a page the build converted) is back in its content before the search
        # index reads it, as mkdocs' own conversion gives it. Its links to anchors are checked by mkdocs
        # as those of a page it converts (the build checks that each link lands on a page, not on an anchor).
        html = _HOLDER_RE.sub(lambda m: blocks[int(m.group(1))] if int(m.group(1)) in bodies else m.group(), html)
        _check_anchors(page, kwargs.get("files"), [blocks[i] for i in bodies])
    elif blocks and searched and _key(page).startswith(GENERATED):
        # A generated page the build left as Markdown (gen build's convert=False): its held blocks are back
        # before the search index reads it too, so that the index is the one of the page converted whole.
        html = _HOLDER_RE.sub(lambda m: blocks[int(m.group(1))], html)
    return html


def _check_anchors(page, files, bodies: list[str]) -> None:
    """Record the body's relative links that name an anchor where mkdocs' own conversion records
    them (page.links_to_anchors: validated once every page is built, `validation: anchors`)."""
    if files is None or getattr(page, "links_to_anchors", None) is None:
        return
    folder = posixpath.dirname(page.file.src_uri)
    for body in bodies:
        for href in _HREF.findall(body):
            url = unescape(href)
            parts = urlsplit(url)
            if parts.scheme or parts.netloc or not parts.fragment or parts.path.startswith("/"):
                continue
            target = page.file
            if parts.path:
                path = unquote(parts.path)
                path = path[:-5] + ".md" if path.endswith(".html") else path  # prerender's rewrite, undone
                target = files.get_file_from_path(posixpath.normpath(posixpath.join(folder, path)))
            if target is not None:
                page.links_to_anchors.setdefault(target, {}).setdefault(parts.fragment, url)


def on_post_page(output: str, page, **kwargs) -> str:
    blocks = _blocks.pop(_key(page), ([],))[0]
    if not blocks:
        return output
    return _HOLDER_RE.sub(lambda m: blocks[int(m.group(1))], output)


def on_nav(nav, config, files, **kwargs):
    """A new build (mkdocs serve rebuilds in one process): the pages listed, no navigation kept."""
    _in_nav.clear()
    _in_nav.update(p.file.src_uri for p in nav.pages)
    _linked.clear()
    urls = [config["theme"]["logo"]] if config["theme"].get("logo") else []
    items = list(nav.items)
    while items:
        item = items.pop()
        items.extend(getattr(item, "children", None) or [])
        if getattr(item, "url", None):
            urls.append(item.url)
    for url in urls:
        parts = url.lstrip("/").split("/")[:-1]
        _linked.update("/".join(parts[:i]) for i in range(len(parts) + 1))
    _navs.clear()
    _shells.clear()
    _md.clear()
    _front.clear()
    _plain.update(checked=0, usable=True)
    for file in files.documentation_pages() if SPLICE else []:  # mkdocs made a plain Page for those outside it
        if file.src_uri not in _in_nav and type(file.page) is Page:
            _SplicedPage(None, file, config)
    return nav


def on_env(env, config, files, **kwargs):
    env.globals.update(report_nav_get=report_nav_get, report_nav_put=report_nav_put, report_splice=report_splice)
    env.loader = jinja2.ChoiceLoader([jinja2.DictLoader({SPLICE_TEMPLATE: "{{ report_splice() }}"}), env.loader])
    if BYTECODE and env.bytecode_cache is None and (folder := _bytecode_dir(env, config)) is not None:
        env.bytecode_cache = _Bytecode(folder)
    return env


class _Bytecode(jinja2.FileSystemBytecodeCache):
    """Jinja's cache of compiled templates in a folder, where a template that cannot be kept (its
    folder gone: another build's cleared it) is only compiled."""

    def dump_bytecode(self, bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


BYTECODE = True  # False: the theme's templates compiled on every build (tests compare the two)
BYTECODE_DIR = ".cache/mkdocs"  # in the project, beside gen build's cache (.cache/report)


def _bytecode_dir(env, config) -> str | None:
    """Where the theme's compiled templates are kept between builds (43 templates: 0.15 s a build):
    a folder per version of Jinja, mkdocs and Python and per setting of the environment that shapes the
    compiled code (Jinja keys each entry by the template's path and checks its text, not the
    environment); older folders go. None where the project's folder cannot be written."""
    import sys

    import mkdocs

    shape = (jinja2.__version__, mkdocs.__version__, sys.version_info[:2], sorted(env.extensions), env.autoescape,
             env.optimized, env.block_start_string, env.block_end_string, env.variable_start_string,
             env.variable_end_string, env.comment_start_string, env.comment_end_string, env.line_statement_prefix,
             env.line_comment_prefix, env.trim_blocks, env.lstrip_blocks, env.newline_sequence,
             env.keep_trailing_newline, env.is_async, getattr(env, "newstyle_gettext", None))
    return _cache_dir(config, "templates-", shape)


def _cache_dir(config, prefix: str, shape: tuple) -> str | None:
    """The project's folder (in BYTECODE_DIR) for what the hook keeps between builds of this `shape`
    (everything the kept files depend on, hashed into its name), made where missing; the older
    folders of the same prefix go. None where it cannot be written."""
    import hashlib
    import os
    import shutil

    root = os.path.join(os.path.dirname(os.path.abspath(config["config_file_path"] or ".")), BYTECODE_DIR)
    here = os.path.join(root, prefix + hashlib.sha256(repr(shape).encode()).hexdigest()[:16])
    try:
        os.makedirs(here, exist_ok=True)
        if not os.access(here, os.W_OK):
            return None
        names = os.listdir(root)
    except OSError:
        return None
    for name in names:
        if name.startswith(prefix) and os.path.join(root, name) != here:
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
    return here


def _nav_key(page) -> tuple[str, int] | None:
    """What the navigation of a page outside it depends on, or None where the page's navigation
    is its own (a listed page: its entry is active, its table of contents inside it; or one whose
    front matter hides parts)."""
    if page is None or page.file.src_uri in _in_nav or (page.meta or {}).get("hide"):
        return None
    return _folder_key(page)


def _folder_key(page) -> tuple[str, int]:
    """A page's links to the pages of the navigation are relative to its folder (mkdocs'
    get_relative_url): they go up to the deepest folder of that path that holds a linked page,
    then down; so the folder's part down to there and the number of folders below it decide them."""
    folder, _, base = page.url.rpartition("/")
    parts = (folder if "." in base else page.url).strip("/").split("/")
    parts = [p for p in parts if p]
    kept = 0
    while kept < len(parts) and "/".join(parts[:kept + 1]) in _linked:
        kept += 1
    return "/".join(parts[:kept]), len(parts) - kept


def report_nav_get(page) -> str | None:
    key = _nav_key(page)
    return _navs.get(key) if key is not None else None


def report_nav_put(page, html: str) -> str:
    key = _nav_key(page)
    if key is not None:
        _navs[key] = html
    return html


# --------------------------------------------------------------------------- pages spliced into a shell

SPLICE = True  # False: every page drawn by the theme one by one (tests compare the two sites)
SPLICE_TEMPLATE = "report-spliced.html"  # a spliced page's template (its `template` meta): report_splice
SPLICE_CHECKED = 2  # pages of each shell also drawn in full and compared with their spliced text
_ONLY = re.compile(r"\A# [^\n]+\n\n" + re.escape(_HOLDER.format(0)) + r"\n*\Z")  # a held page: title, block
TITLE_FAST = True  # False: every spliced page's title line converted by Markdown (tests compare the two)
TITLE_CHECKED = 2  # spliced pages of a build also converted by Markdown and compared with _plain_values
# A held page whose title is plain: words of letters, digits, "·.,:()+/-" and "&#39;", single spaces.
_WORD = r"(?:[A-Za-z0-9\u00b7.,:()+/-]|&#39;)+"
_PLAIN = re.compile(rf"\A# ({_WORD}(?: {_WORD})*)\n\n" + re.escape(_HOLDER.format(0)) + r"\n*\Z")
_plain = {"checked": 0, "usable": True}  # this build's title lines compared, and whether _plain_values held
# Marks, in the place of a page's values while its shell is drawn. The title's mark takes a
# different form under each filter chain the theme may print a title with (_title_forms).
_TITLE = "\x02<i></i>&amp;title\x03"
_CONTENT = "\x02<h1 content\x03"  # holds "<h1": a page's content does (the theme adds one where not)
_ANCHOR = "\x02anchor\x03"
_CANONICAL = "\x02canonical\x03"  # a page's own URL where the site has a site_url (mkdocs serve sets it)
_TOC = [{"level": 1, "id": _ANCHOR, "name": "\x02toc\x03", "children": [
    {"level": 2, "id": "\x02anchor2\x03", "name": "\x02toc2\x03", "children": []}]}]


def _title_forms(title: str) -> dict[str, str]:
    """A title as the theme prints it: as it is (header), `striptags | e` (overrides/main.html),
    `striptags`, `e` (Jinja's filters: markupsafe's)."""
    stripped = Markup(title).striptags()
    return {"raw": title, "striptags": stripped, "striptags|e": str(escape(stripped)), "e": str(escape(title))}


class _SplicedPage(Page):
    """A page outside the navigation (on_nav makes it where mkdocs would make a plain Page). Where it
    is only a title and one held block, its Markdown (the title line and a placeholder) is converted
    as mkdocs' Page.render converts it, with this build's one Markdown instance, and it is drawn by
    report_splice; otherwise it is a plain Page."""

    def read_source(self, config) -> None:
        """mkdocs' Page.read_source, its front matter read by _get_data."""
        source = config.plugins.on_page_read_source(page=self, config=config)
        if source is None:
            try:
                source = self.file.content_string
            except OSError:
                log.error(f"File not found: {self.file.src_path}")
                raise
            except ValueError:
                log.error(f"Encoding error reading file: {self.file.src_path}")
                raise
        self.markdown, self.meta = _get_data(source)

    def render(self, config, files) -> None:
        # An edit link (repo_url) is printed through filters (Material's actions.html): drawn in full.
        if not _ONLY.match(self.markdown or "") or "template" in self.meta or self.edit_url is not None:
            return super().render(config, files)
        if not _md:
            _md.append(markdown.Markdown(extensions=config["markdown_extensions"],
                                         extension_configs=config["mdx_configs"] or {}))
        md = _md[0]
        plain = _PLAIN.match(self.markdown) if TITLE_FAST and _plain["usable"] else None
        if plain and _plain["checked"] >= TITLE_CHECKED and (values := _plain_values(plain[1], md, self.file)):
            self._set(*values)
            return
        md.reset()
        # mkdocs' Page.render, but for the new Markdown instance: these replace the last page's
        raw_html = _RawHTMLPreprocessor()
        raw_html._register(md)
        anchors = _ExtractAnchorsTreeprocessor(self.file, files, config)
        anchors._register(md)
        relative = _RelativePathTreeprocessor(self.file, files, config)
        relative._register(md)
        title = _ExtractTitleTreeprocessor()
        title._register(md)
        values = (md.convert(self.markdown), getattr(md, "toc_tokens", []), title.title,
                  anchors.present_anchor_ids | raw_html.present_anchor_ids, relative.links_to_anchors)
        if plain:
            _plain["checked"] += 1
            if _plain_values(plain[1], md, self.file) != values:
                log.info("%s: its title line is not converted as gen/report/mkdocs_hook.py converts a plain "
                         "title: every title line is converted by Markdown", self.file.src_uri)
                _plain["usable"] = False
        self._set(*values)

    def _set(self, content: str, toc_tokens: list, title: str | None, anchors: set, links: dict) -> None:
        self.content = content
        self.toc = get_toc(toc_tokens)
        self._title_from_render = title
        self.present_anchor_ids = anchors
        if logging.getLogger("mkdocs").getEffectiveLevel() > logging.DEBUG:
            self.links_to_anchors = links
        self.meta = {**self.meta, "template": SPLICE_TEMPLATE}


def _get_data(doc: str) -> tuple[str, dict]:
    """mkdocs' meta.get_data, each front matter's YAML read once a build (a set's own pages share a few
    texts: 0.1 ms a page less); each page has its own copy of it."""
    m = meta.YAML_RE.match(doc)
    if not m:
        return meta.get_data(doc)
    head = doc[:m.end()]
    if head not in _front:
        rest, data = meta.get_data(head)
        _front[head] = (rest == "", data)  # read as a mapping (its text gone), or not (the page as it is)
    read, data = _front[head]
    return (doc[m.end():].lstrip("\n"), copy.deepcopy(data)) if read else (doc, {})


def _plain_values(title: str, md: markdown.Markdown, file) -> tuple | None:
    """What Markdown and mkdocs' tree processors give for a page that is a plain title line (_PLAIN) and
    the held block: its content, toc_tokens, title, anchors and links to anchors (the heading's
    permalink); None where the toc extension's settings are not those written here. Checked against
    Markdown's on the first TITLE_CHECKED pages of a build, and in tests."""
    toc = md.treeprocessors["toc"] if "toc" in md.treeprocessors else None
    if (toc is None or toc.use_permalinks is not True or toc.permalink_leading or toc.use_anchors
            or toc.permalink_class != "headerlink" or not re.fullmatch(r"[A-Za-z ]+", toc.permalink_title or "")
            or not toc.toc_top <= 1 <= toc.toc_bottom):
        return None
    slug = toc.slugify(unescape(title), toc.sep)
    if not slug:  # the toc extension makes one up
        return None
    content = (f'<h1 id="{slug}">{title}<a class="headerlink" href="#{slug}" title="{toc.permalink_title}">&para;</a>'
               f"</h1>\n{_HOLDER.format(0)}")
    tokens = [{"level": 1, "id": slug, "name": title, "html": title, "data-toc-label": "", "children": []}]
    return content, tokens, title, {slug}, {file: {slug: "#" + slug}}


class _Marked:
    """A page as the theme sees it while its shell is drawn: marks for its title, table of contents
    and content, the rest (its folder, front matter, links) its own."""

    def __init__(self, page):
        self._page = page
        self.title, self.content, self.toc = _TITLE, _CONTENT, get_toc(_TOC)
        self.canonical_url = None if page.canonical_url is None else _CANONICAL

    def __getattr__(self, name: str):
        return getattr(self._page, name)


class _Shell:
    """The theme's text of a page with marks, cut at the marks; filled with each page's values."""

    def __init__(self, text: str):
        forms = _title_forms(_TITLE)
        marks = {text: ("title", form) for form, text in forms.items()}
        marks[_CONTENT], marks[_ANCHOR], marks[_CANONICAL] = ("content", None), ("anchor", None), ("canonical", None)
        cut = re.compile("|".join(re.escape(m) for m in sorted(marks, key=len, reverse=True)))
        self.parts: list = []
        at = 0
        for m in cut.finditer(text):
            self.parts += [text[at:m.start()], marks[m.group()]]
            at = m.end()
        self.parts.append(text[at:])
        self.usable = len(set(forms.values())) == len(forms) and not any(
            "\x02" in p or "\x03" in p for p in self.parts[::2])  # a mark in a form not known: drawn in full
        self.checked = 0

    def fill(self, page, content: str) -> str | None:
        """The page's text, or None where it has no first heading (its skip link is not the shell's)."""
        if not page.toc.items:
            return None
        forms = _title_forms(page.title)
        values = {"content": content, "anchor": page.toc.items[0].id, "canonical": page.canonical_url}
        return "".join(part if i % 2 == 0 else forms[part[1]] if part[0] == "title" else values[part[0]]
                       for i, part in enumerate(self.parts))


def _shell_key(page) -> tuple:
    """What a shell is drawn for: the page's folder and depth (as its kept navigation), its front matter
    and whether it has a canonical URL."""
    return _folder_key(page), json.dumps(page.meta, sort_keys=True, default=repr), page.canonical_url is None


@jinja2.pass_context
def report_splice(ctx) -> str:
    """A spliced page's text: its shell filled with its values and its block (on_post_page then has
    nothing to put back). A shell's first pages are also drawn in full and compared: where they
    differ, the splice does not follow the theme (a warning, so that a strict build fails) and every
    page of that shell is drawn in full."""
    page = ctx["page"]
    main = ctx.environment.get_template("main.html")
    key = _shell_key(page)
    if key not in _shells:
        shell = _Shell(main.render({**ctx.get_all(), "page": _Marked(page)}))
        _shells[key] = shell if shell.usable else None
        if not shell.usable:
            log.info("the theme prints a page's values in a way the spliced pages do not follow: the pages "
                     "of %s are drawn in full", key[0][0])
    blocks = _blocks.pop(_key(page), ([],))[0]

    def put(html: str) -> str:  # on_post_page's
        return _HOLDER_RE.sub(lambda m: blocks[int(m.group(1))], html) if blocks else html

    shell = _shells[key]
    if shell is None:
        return put(main.render(ctx.get_all()))
    text = shell.fill(page, put(page.content))
    if text is None or shell.checked < SPLICE_CHECKED:
        shell.checked += 1
        full = put(main.render(ctx.get_all()))
        if text is not None and full != text:
            log.warning("%s: its spliced text is not the theme's (gen/report/mkdocs_hook.py); the pages of %s "
                        "are drawn in full", page.file.src_uri, key[0][0])
            _shells[key] = None
        return full
    return text


# --------------------------------------------------------------------------- the search index's parser

SEARCH_FAST = True  # False: the search plugin parses each page with its own parser (tests compare the two)
# Material's search parser as _search_sections follows it (sha256 of the source of its Parser, Section,
# Element, SearchIndex.add_entry_from_context and its void tags): another version is left to parse itself.
SEARCH_SOURCE = "e81b378a"
_SEARCH_PARSER = "__report_search_parser__"  # the plugin's module, kept on its index (on_pre_build)
# A page's HTML in the forms of markup this port reads: text without "<", start tags with quoted values or
# none, end tags. Anything else (a comment, "<" in text, script or style, a bare value) is parsed by
# Material's own parser.
_TOKEN = re.compile(r"([^<]+)|<([a-zA-Z][a-zA-Z0-9]*)"
                    r"""((?:\s+[a-zA-Z_:][-a-zA-Z0-9_:.]*(?:="[^"]*"|='[^']*')?)*)\s*(/?)>"""
                    r"|</([a-zA-Z][a-zA-Z0-9]*)\s*>", re.ASCII)  # a tag spaced by U+00A0: Material's to read
_ATTR = re.compile(r"""\s+([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:="([^"]*)"|='([^']*)')?""", re.ASCII)
_HEADINGS = frozenset(f"h{x}" for x in range(1, 7))
_KEEP = frozenset(["p", "code", "pre", "li", "ol", "ul", "sub", "sup"])  # Material's Parser.keep
_SKIP = ("object", "script", "style")  # Material's Parser.skip, never left


def _search_source(module) -> str:
    import hashlib
    import inspect

    parts = [inspect.getsource(module.Parser), inspect.getsource(module.Section), inspect.getsource(module.Element),
             inspect.getsource(module.SearchIndex.add_entry_from_context), repr(sorted(module.void))]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:8]


def on_pre_build(config, **kwargs):
    """The search plugin's index (Material's) reads each page with _search_sections, where its parser is the
    one this port follows; each page's sections kept between builds (_SearchCache)."""
    _search_cache.clear()
    if not SEARCH_FAST:
        return
    for plugin in config["plugins"].values():
        index = getattr(plugin, "search_index", None)
        module = __import__("sys").modules.get(type(index).__module__)
        if index is None or module is None or not all(
                hasattr(module, n) for n in ("Parser", "Section", "Element", "void", "SearchIndex")):
            continue
        try:
            known = _search_source(module) == SEARCH_SOURCE
        except (OSError, TypeError):  # no source to read: left as it is
            known = False
        if known:
            setattr(index, _SEARCH_PARSER, module)
            index.add_entry_from_context = _add_entry_from_context.__get__(index)
            if SEARCH_CACHE and (folder := _search_cache_dir(config)) is not None:
                _search_cache.append(_SearchCache(folder))
        else:
            log.info("the search plugin's parser is not the one gen/report/mkdocs_hook.py follows: it parses "
                     "each page itself")


SEARCH_CHECKED_PAGES = 2  # a build's first pages read by both parsers: any difference, Material's for the rest
_SEARCH_CHECKED = "__report_search_checked__"  # on the index: pages checked so far, or -1 once they differed


def _material_sections(html: str, module) -> list:
    parser = module.Parser()
    parser.feed(html)
    parser.close()
    return parser.data


def _sections_seen(sections: list) -> list:
    return [(s.el.tag, s.el.attrs, s.depth, s.id, s.title, s.text) for s in sections]


def _port_sections(index, page, module) -> list:
    """The page's sections as the port reads them. The first SEARCH_CHECKED_PAGES pages a build parses
    are also read by Material's parser and compared (SEARCH_SOURCE pins Material's code, not the
    standard library's HTMLParser under it): where they differ, Material's parser for the rest."""
    checked = getattr(index, _SEARCH_CHECKED, 0)
    if checked < 0:
        return _material_sections(page.content, module)
    sections = _search_sections(page.content, module)
    if checked < SEARCH_CHECKED_PAGES:
        theirs = _material_sections(page.content, module)
        if _sections_seen(sections) != _sections_seen(theirs):
            log.info("%s: the search port's sections are not Material's parser's (gen/report/mkdocs_hook.py): "
                     "Material's parser reads every page", page.file.src_uri)
            sections, checked = theirs, -2
        setattr(index, _SEARCH_CHECKED, checked + 1)
    return sections


def on_post_build(config, **kwargs):
    """The kept sections of pages this build did not have go (the cache holds one build's pages)."""
    for cache in _search_cache:
        cache.prune()
    _search_cache.clear()


def _add_entry_from_context(index, page) -> None:
    """Material's SearchIndex.add_entry_from_context, its parser's sections read by _search_sections (or
    kept from an earlier build of the same HTML)."""
    search = page.meta.get("search") or {}
    if search.get("exclude"):
        return
    module = getattr(index, _SEARCH_PARSER)
    cache = _search_cache[0] if _search_cache else None
    kept = cache.get(page.content) if cache is not None else None
    if kept is None:
        kept = [(s.id, s.title, s.text) for s in _port_sections(index, page, module) if not s.is_excluded()]
        if cache is not None:
            cache.put(page.content, kept)  # before create_entry_for_section, which fills an empty title
    for id_, title, text in kept:
        section = module.Section(module.Element("hx"))
        section.id, section.title, section.text = id_, list(title), list(text)
        index.create_entry_for_section(section, page.toc, page.url, page)


SEARCH_CACHE = True  # False: each page's sections parsed on every build (tests compare the two)
SEARCH_CACHE_VERSION = 1  # raised where what an entry holds changes
_search_cache: list[_SearchCache] = []  # this build's cache, where it has one


def _search_cache_dir(config) -> str | None:
    """The folder of the kept sections: one per version of this file (the port), of Material's parser
    (SEARCH_SOURCE, checked) and of Python (html.unescape and escape); older folders go. None where the
    project's folder cannot be written."""
    import hashlib
    import sys

    try:
        with open(__file__, "rb") as f:
            port = hashlib.sha256(f.read()).hexdigest()
    except (OSError, NameError):
        return None
    return _cache_dir(config, "search-", (SEARCH_CACHE_VERSION, SEARCH_SOURCE, port, sys.version))


class _SearchCache:
    """The sections of each searched page, kept in a file named by the sha256 of its HTML (the page's
    search entries are made from them, its table of contents, URL and front matter, on every build: 0.3 s
    at 50 sets). A file that cannot be read, or does not hold what put wrote for that HTML, is not used
    (the page is parsed, its file written again); files are written whole (a temporary file renamed)."""

    def __init__(self, folder: str):
        self.folder = folder
        self.used: set[str] = set()  # this build's file names

    @staticmethod
    def _key(html: str) -> str | None:
        """None for HTML that is not text UTF-8 can hold (a lone surrogate: JSON would not give it back
        as it was); a page's HTML is read from UTF-8, and html.unescape gives no surrogate."""
        import hashlib

        try:
            return hashlib.sha256(html.encode("utf-8")).hexdigest()
        except UnicodeEncodeError:
            return None

    def get(self, html: str) -> list | None:
        key = self._key(html)
        if key is None:
            return None
        self.used.add(key + ".json")
        try:
            with open(f"{self.folder}/{key}.json", "rb") as f:
                data = json.loads(f.read())
        except (OSError, ValueError):
            return None
        if not (isinstance(data, dict) and data.get("html") == key and isinstance(data.get("sections"), list)):
            return None
        out = []
        for section in data["sections"]:
            if not (isinstance(section, list) and len(section) == 3 and isinstance(section[0], (str, type(None)))
                    and all(isinstance(part, list) and all(isinstance(x, str) for x in part) for part in section[1:])):
                return None
            out.append(tuple(section))
        return out

    def put(self, html: str, sections: list) -> None:
        import os
        import tempfile

        key = self._key(html)
        if key is None:
            return
        self.used.add(key + ".json")
        try:
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.folder)
            try:
                with os.fdopen(fd, "wb") as f:  # json.dumps: json.dump to a file encodes in Python, piece by piece
                    f.write(json.dumps({"html": key, "sections": sections}).encode())
                os.replace(tmp, f"{self.folder}/{key}.json")
            except BaseException:
                os.unlink(tmp)
                raise
        except (OSError, ValueError):  # not kept: parsed again next build
            pass

    def prune(self) -> None:
        import os

        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        for name in names:
            if name not in self.used:
                try:
                    os.unlink(os.path.join(self.folder, name))
                except OSError:
                    pass


def _tokens(html: str) -> list | None:
    """The calls html.parser.HTMLParser (convert_charrefs) makes for the HTML, as (kind, tag or text, attrs):
    "d" data, "s" a start tag, "e" an end tag; None where the HTML holds markup of another form."""
    out, at = [], 0
    for m in _TOKEN.finditer(html):
        if m.start() != at:
            return None
        at = m.end()
        text, tag, attrs, close, end = m.groups()
        if text is not None:
            out.append(("d", unescape(text), None))
        elif tag is not None:
            tag = tag.lower()
            if tag in ("script", "style"):  # HTMLParser reads their content as text
                return None
            pairs = [(a[1].lower(), unescape(v) if (v := a[2] if a[3] is None else a[3]) else v)
                     for a in _ATTR.finditer(attrs)]
            out.append(("s", tag, pairs))
            if close:
                out.append(("e", tag, None))
        else:
            out.append(("e", end.lower(), None))
    return out if at == len(html) else None


def _search_sections(html: str, module) -> list:
    """The sections Material's search parser (module.Parser) gives for a page's HTML: five times faster
    (_SearchPort). HTML of another form is parsed by module.Parser itself."""
    tokens = _tokens(html)
    if tokens is None:
        return _material_sections(html, module)
    port = _SearchPort(module)
    calls = {"s": port.start, "e": port.end, "d": port.text}
    for kind, value, attrs in tokens:
        calls[kind](value, attrs)
    return port.data


class _SearchPort:
    """Material's search parser's handle_starttag, handle_endtag and handle_data, its elements told apart
    by tag as its Element's __eq__ and __hash__ do: the tags skipped are a set of tags, the open elements
    of each tag are counted (Material intersects a set of elements with the list of open ones at each
    tag and text)."""

    def __init__(self, module):
        self.Element, self.Section, self.void = module.Element, module.Section, module.void
        self.context: list = []
        self.opened: dict[str, int] = {}  # tag -> its elements in context
        self.skip = set(_SKIP)
        self.skipping = 0  # the elements in context whose tag is in skip
        self.permalinks = 0  # the <a class="headerlink"> in context
        self.data: list = []
        self.section = None

    def _top(self) -> None:  # Material's "ensure top-level section"
        if self.section is None:
            self.section = self.Section(self.Element("hx"))
            self.data.append(self.section)

    def _kept(self) -> list:  # the section's title while its heading is open, else its text
        return self.section.title if self.opened.get(self.section.el.tag) else self.section.text

    def start(self, tag: str, pairs: list) -> None:
        attrs = dict(pairs)
        el = self.Element(tag, attrs)
        if tag in self.void:
            return
        self.context.append(el)
        self.opened[tag] = self.opened.get(tag, 0) + 1
        self.skipping += tag in self.skip
        self.permalinks += tag == "a" and attrs.get("class") == "headerlink"
        if tag in _HEADINGS and "id" in attrs:
            depth = len(self.context)
            if tag != "h1" and not self.data:
                self.data.append(self.Section(self.Element("hx"), depth))
            self.section = self.Section(el, depth)
            if self.data:
                self.section.id = attrs["id"]
            self.data.append(self.section)
        self._top()
        if "data-search-exclude" in attrs or attrs.get("class") == "linenodiv":
            if tag not in self.skip:
                self.skip.add(tag)
                self.skipping += self.opened[tag]
        elif not self.skipping and tag in _KEEP:
            self._kept().append(f"<{tag}>")

    def end(self, tag: str, _=None) -> None:
        context = self.context
        if not context or context[-1].tag != tag:
            return
        if self.section.depth > len(context):
            for section in reversed(self.data):
                if section.depth <= len(context):
                    self.section.depth = float("inf")
                    self.section = section
                    break
        el = context.pop()
        self.opened[tag] -= 1
        self.skipping -= tag in self.skip
        self.permalinks -= tag == "a" and el.attrs.get("class") == "headerlink"
        if tag in self.skip:
            if tag not in _SKIP:
                self.skip.remove(tag)
                self.skipping -= self.opened[tag]
        elif not self.skipping and tag in _KEEP:
            out = self._kept()
            index = out.index(f"<{tag}>")
            if any(not x.isspace() for x in out[index + 1:]):
                out.append(f"</{tag}>")
            else:  # only whitespace since: the element is dropped
                del out[index:]

    def text(self, text: str, _=None) -> None:
        if self.skipping:
            return
        pre = self.opened.get("pre")
        if not pre:
            text = " " if text.isspace() else text.replace("\n", " ")
        self._top()
        section = self.section
        if self.opened.get(section.el.tag):
            if not self.permalinks:
                section.title.append(escape_html(text, quote=False))
        elif text.isspace():
            if not section.text or not section.text[-1].isspace() or pre:
                section.text.append(text)
        else:
            section.text.append(escape_html(text, quote=False))
