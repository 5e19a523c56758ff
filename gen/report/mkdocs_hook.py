"""mkdocs hook: blocks of finished HTML in a page skip Markdown and go into the page as they are.

Takes: pages whose Markdown holds blocks between a line `<!-- raw-html -->` and a line
`<!-- /raw-html -->`, each block maybe after a line `<!-- raw-html-toc BASE64 -->` (the
headings of the block as Python-Markdown's toc_tokens, in base64 JSON). These are the
report's kernel tables (thousands of elements a set, no Markdown inside) and the bodies of
a set's own pages, converted by the build (gen.report.prerender). Gives: the same HTML
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

mkdocs loads this file by its path (mkdocs.yml `hooks:`): stdlib and mkdocs only.
"""

from __future__ import annotations

import base64
import json
import re
from html import unescape

BEGIN, END = "<!-- raw-html -->", "<!-- /raw-html -->"
_BLOCK = re.compile(r"^(?:<!-- raw-html-toc ([A-Za-z0-9+/=]*) -->\n)?" + re.escape(BEGIN) + r"\n(.*?)\n"
                    + re.escape(END) + "$", re.S | re.M)
_ID = re.compile(r'\sid="([^"]+)"')
_HOLDER = '<div class="raw-html" data-raw-html="{}"></div>'
_HOLDER_RE = re.compile(r'<div class="raw-html" data-raw-html="(\d+)"></div>')

_blocks: dict[str, tuple[list[str], list]] = {}  # page -> its blocks and their headings, until on_post_page
_in_nav: set[str] = set()  # the pages the navigation lists (this build's)
_linked: set[str] = set()  # every folder holding (at any depth) a page or file the navigation links to
_navs: dict[tuple[str, int], str] = {}  # _nav_key -> the navigation HTML of the pages outside it


def _key(page) -> str:
    return page.file.src_uri


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    if BEGIN not in markdown:
        return markdown
    blocks: list[str] = []
    toc: list = []

    def hold(m: re.Match) -> str:
        if m.group(1):
            toc.extend(json.loads(base64.b64decode(m.group(1))))
        blocks.append(m.group(2))
        return _HOLDER.format(len(blocks) - 1)

    out = _BLOCK.sub(hold, markdown)
    _blocks[_key(page)] = (blocks, toc)
    return out


def on_page_content(html: str, page, **kwargs) -> str:
    blocks, toc = _blocks.get(_key(page), ([], []))
    if blocks and getattr(page, "present_anchor_ids", None) is not None:
        page.present_anchor_ids |= {unescape(i) for b in blocks for i in _ID.findall(b)}
    if toc and getattr(page, "toc", None) is not None:
        from mkdocs.structure.toc import get_toc

        extra = get_toc(toc).items
        if len(page.toc.items) == 1 and page.toc.items[0].level == 1:  # under the page's title
            page.toc.items[0].children.extend(extra)
        else:
            page.toc.items.extend(extra)
    return html


def on_post_page(output: str, page, **kwargs) -> str:
    blocks, _ = _blocks.pop(_key(page), ([], []))
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
    return nav


def on_env(env, config, files, **kwargs):
    env.globals.update(report_nav_get=report_nav_get, report_nav_put=report_nav_put)
    return env


def _nav_key(page) -> tuple[str, int] | None:
    """What the navigation of a page outside it depends on, or None where the page's navigation
    is its own (a listed page: its entry is active, its table of contents inside it; or one whose
    front matter hides parts). Its links are relative to the page's folder (mkdocs'
    get_relative_url): they go up to the deepest folder of that path that holds a linked page,
    then down; so the folder's part down to there and the number of folders below it decide them."""
    if page is None or page.file.src_uri in _in_nav or (page.meta or {}).get("hide"):
        return None
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
