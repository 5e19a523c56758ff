"""mkdocs hook: blocks of finished HTML in a page skip Markdown and go into the page as they are.

Takes: pages whose Markdown holds blocks between a line `<!-- raw-html -->` (or `<!-- raw-html list -->`)
and a line `<!-- /raw-html -->`, each block maybe after a line `<!-- raw-html-toc BASE64 -->` (the
headings of the block as Python-Markdown's toc_tokens, in base64 JSON). These are the report's
kernel tables and the bodies the build converted to HTML already (gen.report.prerender). Gives: the
page with each block in its place, untouched by Markdown, through mkdocs' public plugin events only:
`on_page_markdown` sets each block aside (a placeholder takes its place), `on_page_content` adds its
ids to the page's anchors (so links to a kernel row are still checked), its headings to the page's
table of contents and, on a searched page, puts a converted body back before the search index reads
it; `on_post_page` puts every block back into the finished page.

Without this hook the markers are HTML comments and the blocks are converted as raw HTML.

Also: the navigation sidebar of a page outside the navigation (a set's own pages: about a thousand at
fifty sets) is drawn once per kind of folder and reused. Material draws the whole navigation on every
page; for a page it does not list nothing in it is active and no table of contents sits in it, and its
links are relative to the page's folder. Public interfaces only: `on_nav` lists the pages and the
folders the navigation links into, `on_env` gives the templates `report_nav_get`/`report_nav_put`, which
overrides/main.html calls in Material's `site_nav` block. The second page of each kind of folder is drawn
in full too and compared: where it differs, every page of that kind is drawn in full.

mkdocs loads this file by its path (mkdocs.yml `hooks:`): stdlib and mkdocs only.
"""

from __future__ import annotations

import base64
import json
import posixpath
import re
from html import unescape
from urllib.parse import unquote, urlsplit

from mkdocs.structure.toc import get_toc

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

# The one state kept between a page's events: page -> its blocks, their headings, bodies and LIST
# blocks, from on_page_markdown until on_post_page.
_blocks: dict[str, tuple] = {}
# This build's (mkdocs serve builds again in one process): the pages the navigation lists, every folder
# holding at any depth a page or file it links to, and per kind of folder (_nav_key) its navigation's HTML,
# whether a second page compared it, and whether it is the same for that page.
_in_nav: set[str] = set()
_linked: set[str] = set()
_navs: dict[tuple[str, int, bool, bool], list] = {}
_toc_integrated: list[bool] = [False]  # the theme draws no page's table of contents beside its navigation


def _key(page) -> str:
    return page.file.src_uri


def on_nav(nav, config, files, **kwargs):
    _in_nav.clear()
    _in_nav.update(p.file.src_uri for p in nav.pages)
    _linked.clear()
    _navs.clear()
    _toc_integrated[0] = "toc.integrate" in (config["theme"].get("features") or [])
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
    return nav


def on_env(env, config, files, **kwargs):
    env.globals.update(report_nav_get=report_nav_get, report_nav_put=report_nav_put)
    return env


def _nav_key(page) -> tuple[str, int, bool, bool] | None:
    """What the navigation of a page outside it depends on: its folder, as far down as the navigation links
    into it, how many folders deeper the page sits (its links go up to the deepest folder of its path that
    holds a linked page, then down: mkdocs' get_relative_url), and whether its front matter hides anything,
    and the navigation. None for a listed page (its entry is active, its table of contents inside it), and for every
    page where the theme draws the table of contents in the same block (no toc.integrate)."""
    if page is None or page.file.src_uri in _in_nav or not _toc_integrated[0]:
        return None
    hide = (page.meta or {}).get("hide")
    folder, _, base = page.url.rpartition("/")
    parts = [p for p in (folder if "." in base else page.url).strip("/").split("/") if p]
    kept = 0
    while kept < len(parts) and "/".join(parts[:kept + 1]) in _linked:
        kept += 1
    # the block's test of the front matter's `hide` writes its own blank lines where it holds
    return "/".join(parts[:kept]), len(parts) - kept, bool(hide), bool(hide) and "navigation" in hide


def report_nav_get(page) -> str | None:
    """The navigation kept for the page's kind of folder, or None where the theme draws it."""
    got = _navs.get(_nav_key(page))
    return got[0] if got is not None and got[1] and got[2] else None


def report_nav_put(page, html: str) -> str:
    """The navigation the theme drew for the page, kept for its kind of folder (or compared, for the second)."""
    key = _nav_key(page)
    if key is not None:
        got = _navs.get(key)
        if got is None:
            _navs[key] = [html, False, True]
        elif not got[1]:
            got[1], got[2] = True, got[0] == html
    return html


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    if BEGIN not in markdown and LIST not in markdown:
        return markdown
    out, blocks, toc, bodies, lists = hold(markdown)
    _blocks[_key(page)] = (blocks, toc, bodies, lists)
    return out


def hold(text: str) -> tuple[str, list[str], list, list[int], set[int]]:
    """The text with each block (a line BEGIN or LIST, the block, a line END; maybe after its headings'
    line) replaced by a placeholder; the blocks; their headings; which blocks had a headings line
    (a page's body converted by the build); which were marked LIST."""
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
    """The values of the block's id attributes that follow whitespace (\\sid="..."), unescaped."""
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
