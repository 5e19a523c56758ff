"""gen/report/mkdocs_hook.py: its blocks are found as the regular expression it replaced found them,
and a set's own pages spliced into a shell are, byte for byte, the pages the theme draws one by one."""

from __future__ import annotations

import base64
import importlib.util
import json
import random
import re
import shutil
from html import unescape
from pathlib import Path

import markdown
import pytest

from benchmarks.bench_build import PUBLISHED, fabricate
from gen.report import build, prerender

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("report_mkdocs_hook", ROOT / build.HOOK)
hook = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hook)

# What the hook found blocks and ids with before (the reference the faster search must agree with).
BLOCK = re.compile(r"^(?:<!-- raw-html-toc ([A-Za-z0-9+/=]*) -->\n)?(" + re.escape(hook.BEGIN) + "|"
                   + re.escape(hook.LIST) + r")\n(.*?)\n" + re.escape(hook.END) + "$", re.S | re.M)
ID = re.compile(r'\sid="([^"]+)"')


def _hold_by_regex(text: str) -> tuple[str, list[str], list, list[int], set[int]]:
    blocks, toc, bodies, lists = [], [], [], set()

    def hold(m: re.Match) -> str:
        if m.group(1):
            toc.extend(json.loads(base64.b64decode(m.group(1))))
        if m.group(1) is not None:
            bodies.append(len(blocks))
        if m.group(2) == hook.LIST:
            lists.add(len(blocks))
        blocks.append(m.group(3))
        return hook._HOLDER.format(len(blocks) - 1)

    return BLOCK.sub(hold, text), blocks, toc, bodies, lists


def test_blocks_are_found_as_the_regular_expression_finds_them():
    toc = "<!-- raw-html-toc " + base64.b64encode(json.dumps([{"level": 2}]).encode()).decode() + " -->"
    pieces = [hook.BEGIN, hook.END, toc, "x", "", hook.BEGIN + "x", "x" + hook.END, hook.END + " ",
              "<!-- raw-html-toc  -->", "\n", "<p id=\"a\">", hook.LIST, hook.LIST + "x", "<!-- raw-html x -->"]
    rng = random.Random(21)
    found = 0
    for _ in range(30_000):
        text = "\n".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        expected = _hold_by_regex(text)
        assert hook.hold(text) == expected, repr(text)
        found += len(expected[1])
    assert found > 1000  # the texts do hold blocks, nested, unclosed and after a headings line


def test_ids_are_found_as_the_regular_expression_finds_them():
    pieces = ['id="a"', 'id="', '"', " ", "\n", "\t", "x", 'data-id="b"', "\xa0", "&amp;", 'id=""', "\x1c"]
    rng = random.Random(21)
    for _ in range(30_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert hook._ids(text) == {unescape(i) for i in ID.findall(text)}, repr(text)


def test_a_title_takes_each_form_the_theme_prints_it_in():
    forms = hook._title_forms("A &lt;b&gt; <code>x</code>  y")
    assert forms == {"raw": "A &lt;b&gt; <code>x</code>  y", "striptags": "A <b> x y",
                     "striptags|e": "A &lt;b&gt; x y", "e": "A &amp;lt;b&amp;gt; &lt;code&gt;x&lt;/code&gt;  y"}
    marks = hook._title_forms(hook._TITLE)
    assert len(set(marks.values())) == len(marks)  # a shell tells the forms apart


# Pieces of HTML for the search parser: every tag and attribute its parser treats apart, and forms of
# markup the port leaves to it (a comment, "<" in text, script, a bare value).
SEARCH_PIECES = ['<p>', '</p>', '<h1 id="t">', '</h1>', '<h2 id="a">', '</h2>', '<H3 ID=\'b&amp;\'>', '</h3>',
                 '<h4>', '</h4>', '<a class="headerlink" href="#a">', '<a href="x">', '</a>',
                 '<ul data-search-exclude>', '<ul>', '</ul>', '<li>', '</li>', '<pre>', '</pre>', '<code>', '</code>',
                 '<sub>', '</sub>', '<br>',
                 '<br/>', '<img src="x" />', '<p/>', "<div class='linenodiv'>", '<div data-search-exclude="">',
                 '<div>', '</div>', '<object>', '</object>', '<P>', '</P>', '<hx>', '</hx>', '<span a b="" c=\'>\'>',
                 '</span >', 'text', 'x\ny', ' ', '\n', '  \n ', '&amp;', '&#39;', '&lt;b&gt;', '&para', '<!-- c -->',
                 'a < b', '<script>x</script>', '<td id=q>', '<p data-x="a>b">', '<p>x<h2 id="c">y</h2></p>']


def _sections(parse) -> tuple:
    try:
        return "ok", [(s.el.tag, s.el.attrs, s.depth, s.id, s.title, s.text) for s in parse()]
    except Exception as e:  # noqa: BLE001 - the two parsers must fail alike
        return "error", type(e)


def test_search_sections_are_material_parsers():
    """The search index's sections are those Material's parser gives, page for page (where the port reads
    the HTML and where it leaves it to the parser), a failure alike; and the port follows the parser
    installed (another version of Material: SEARCH_SOURCE is checked again, and the port with it)."""
    search = pytest.importorskip("material.plugins.search.plugin")
    assert hook._search_source(search) == hook.SEARCH_SOURCE

    def material(html: str):
        parser = search.Parser()
        parser.feed(html)
        parser.close()
        return parser.data

    rng = random.Random(21)
    read = 0
    for _ in range(20_000):
        html = "".join(rng.choice(SEARCH_PIECES) for _ in range(rng.randint(0, 14)))
        expected = _sections(lambda html=html: material(html))
        assert _sections(lambda html=html: hook._search_sections(html, search)) == expected, repr(html)
        read += hook._tokens(html) is not None
    assert read > 5000  # the port read most of them


def test_search_cache_gives_back_what_was_put_and_nothing_damaged(tmp_path):
    """A page's kept sections are those put for the same HTML, never another's; an entry cut short, not
    JSON, of another page or of the wrong shape is not used; a build's unused entries go."""
    cache = hook._SearchCache(str(tmp_path))
    sections = [(None, [], ["<p>", "a \u00e9 \U0001f600 \ufffd", "</p>"]), ("b", ["B"], [])]
    assert cache.get("<p>x</p>") is None
    cache.put("<p>x</p>", sections)
    assert cache.get("<p>x</p>") == sections
    assert cache.get("<p>x</p> ") is None and cache.get("<p>X</p>") is None
    cache.put("<p>\ud83d</p>", [(None, [], ["\ud83d"])])  # not text UTF-8 holds: not kept
    assert cache.get("<p>\ud83d</p>") is None and len(list(tmp_path.iterdir())) == 1
    entry = tmp_path / f"{cache._key('<p>x</p>')}.json"
    good = entry.read_bytes()
    bad = [good[:-1], b"", b"\xff", b"[]", good.replace(b'"html": "', b'"html": "0'),
           json.dumps({"html": entry.stem, "sections": [[None, ["a"], "b"]]}).encode(),
           json.dumps({"html": entry.stem, "sections": [[1, [], []]]}).encode(),
           json.dumps({"html": entry.stem, "sections": [[None, [], []], "x"]}).encode(),
           json.dumps({"html": entry.stem}).encode()]
    for text in bad:
        entry.write_bytes(text)
        assert cache.get("<p>x</p>") is None, text
    entry.write_bytes(good)
    other = hook._SearchCache(str(tmp_path))  # the next build: only its pages' entries stay
    other.put("<p>y</p>", [])
    (tmp_path / ".tmp-left").write_bytes(b"")
    other.prune()
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{cache._key('<p>y</p>')}.json"]
    assert not list(tmp_path.glob(".tmp-*"))


FRONT_PIECES = ["---\n", "--- \n", "...\n", "search:\n  exclude: true\n", "hide:\n  - toc\n", "title: a\n", "- x\n",
                ": [bad\n", "date: 2020-01-01\n", "{}\n", "\n", "# T\n", "text\n", "a: {b: [1, 2]}\n"]


def test_front_matter_is_read_as_mkdocs_reads_it():
    """_get_data gives each page's Markdown and front matter as mkdocs' meta.get_data does (a mapping,
    a list, bad YAML, no front matter), each page its own copy of the front matter."""
    from mkdocs.utils import meta

    rng = random.Random(21)
    hook._front.clear()
    read = matched = 0
    for _ in range(5000):
        doc = "---\n" * (rng.random() < 0.8) + "".join(rng.choice(FRONT_PIECES) for _ in range(rng.randint(0, 6)))
        expected = meta.get_data(doc)
        got = hook._get_data(doc)
        assert got == expected, repr(doc)
        matched += meta.YAML_RE.match(doc) is not None
        read += bool(got[1]) and meta.YAML_RE.match(doc) is not None
        if got[1]:
            got[1]["changed"] = True  # the next page's copy is not this one
            assert hook._get_data(doc) == expected
    assert read > 300 and matched - len(hook._front) > 300  # YAML front matters read, and texts met again


# Words of plain titles (_PLAIN), and pieces no plain title holds.
TITLE_WORDS = ["a", "Z", "9", "\u00b7", ".", ",", ":", "(", ")", "+", "/", "-", "&#39;", "x-y", "2.5.0", "--", "...",
               "::", "(a)", "1.", "+1", "A100-SXM4-80GB", "&#39;s", "-a-", "/b/", "a:b", "1)", "::a"]
NOT_PLAIN = ["*a*", "_a_", "`a`", "&amp;", "<b>", "a #", "{: .x}", "[a](b)", "a  b", "a\\b", "é", "~a~", "!a"]


def test_plain_title_lines_are_converted_as_markdown_converts_them(tmp_path, monkeypatch):
    """_plain_values gives a plain title line's content, headings, title, anchors and links to anchors
    as Markdown with this site's extensions and mkdocs' tree processors give them (the spliced page's
    full conversion, TITLE_FAST off); a title of another form is not taken for plain."""
    import yaml
    from mkdocs.config import load_config
    from mkdocs.structure.files import File

    extensions = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["markdown_extensions"]
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump({"site_name": "t", "markdown_extensions": extensions}),
                                         encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # the snippets' base path
    config = load_config(str(tmp_path / "mkdocs.yml"), use_directory_urls=False)
    file = File("sets/a/p.md", str(tmp_path / "docs"), str(tmp_path / "site"), False)
    monkeypatch.setattr(hook, "TITLE_FAST", False)
    rng = random.Random(21)
    titles = [" ".join(rng.choice(TITLE_WORDS) for _ in range(rng.randint(1, 6))) for _ in range(1500)]
    compared = 0
    for title in titles + ["The article&#39;s shape \u00b7 NVIDIA L40S \u00b7 PyTorch 2.5.0"]:
        text = f"# {title}\n\n{hook._HOLDER.format(0)}\n"
        assert hook._PLAIN.match(text), title
        page = hook._SplicedPage(None, file, config)
        page.markdown, page.meta = text, {}
        page.render(config, None)
        values = hook._plain_values(title, hook._md[0], file)
        if values is None:  # the toc extension made its id up (an empty slug)
            continue
        compared += 1
        assert values == (page.content, hook._md[0].toc_tokens, page._title_from_render, page.present_anchor_ids,
                          page.links_to_anchors), title
    assert compared > 1000
    for piece in NOT_PLAIN:
        assert not hook._PLAIN.match(f"# a {piece}\n\n{hook._HOLDER.format(0)}"), piece


def _mkdocs(project: Path, site: str, monkeypatch, site_url: str | None = None, **settings):
    """mkdocs build --strict in this process (with site_url, as `mkdocs serve` builds: each page has
    its canonical URL), the hook's settings changed for this build; returns the hook module."""
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    monkeypatch.chdir(project)  # the snippets' base path
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    config = load_config(str(project / "mkdocs.yml"), site_dir=str(project / site), site_url=site_url)
    module = config["hooks"][build.HOOK.as_posix()]  # mkdocs loads it once: the settings are undone after
    with monkeypatch.context() as patch:
        for name, value in settings.items():
            patch.setattr(module, name, value)
        mkdocs_build(config)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("site_url", [None, "http://127.0.0.1:8000/report/"])
def test_spliced_pages_are_the_pages_the_theme_draws(tmp_path, monkeypatch, site_url):
    """Every spliced page is also drawn in full and compared (a difference is a warning: the strict
    build fails); and the site is the one drawn without splicing, its search index made by Material's own
    parser and the theme's templates compiled anew, to the byte (and again with them read compiled)."""
    results = tmp_path / "results"
    shutil.copytree(ROOT / "results" / PUBLISHED[0], results / PUBLISHED[0])
    names = [fabricate(results, i, points=1).name for i in range(2)]
    project = build.copy_project(ROOT, tmp_path / "project")
    build.run(results, project / "docs")
    sets = project / "docs" / "generated" / "sets"
    own = [p for p in sets.rglob("*.md") if p.parent != sets]
    left = []  # pages whose HTML the search port left to Material's parser

    def tokens(html: str):
        out = hook._tokens(html)
        left.extend([html] if out is None else [])
        return out

    module = _mkdocs(project, "spliced", monkeypatch, site_url, SPLICE_CHECKED=10**9, _tokens=tokens)
    shells = [s for s in module._shells.values() if s is not None]
    assert shells and None not in module._shells.values()
    assert sum(s.checked for s in shells) == len(own) > 40  # every set page spliced, and compared
    assert not left  # every searched page read by the port
    assert module._plain == {"checked": module.TITLE_CHECKED, "usable": True}  # the rest by _plain_values
    _mkdocs(project, "drawn", monkeypatch, site_url, SPLICE=False, SEARCH_FAST=False, BYTECODE=False)
    assert (project / "spliced" / "generated" / "sets" / names[1] / "findings.html").is_file()
    assert build.digest(project / "spliced") == build.digest(project / "drawn")
    if site_url is None:  # again, the theme's templates read compiled and the search sections kept
        assert len(list((project / module.BYTECODE_DIR).glob("templates-*/*"))) > 20
        kept = sorted((project / module.BYTECODE_DIR).glob("search-*/*.json"))
        assert len(kept) > 5
        parsed = []

        def sections(html, search):
            parsed.append(html)
            return hook._search_sections(html, search)

        _mkdocs(project, "again", monkeypatch, site_url, _search_sections=sections)
        assert not parsed  # every page's sections read from the first build's
        assert build.digest(project / "again") == build.digest(project / "drawn")
        # Damaged entries (cut short, not JSON, another page's, of the wrong shape) are parsed again, rewritten.
        damage = [b"", b'{"html": ', b"\xff\xfe", kept[1].read_bytes(),
                  json.dumps({"html": kept[2].stem, "sections": [[None, ["a"], "b"]]}).encode()]
        for path, text in zip(kept, damage):
            path.write_bytes(text)
        _mkdocs(project, "damaged", monkeypatch, site_url, _search_sections=sections)
        assert len(parsed) == len(damage)
        assert build.digest(project / "damaged") == build.digest(project / "drawn")
        assert all(json.loads(p.read_bytes())["html"] == p.stem for p in kept)


@pytest.mark.slow
def test_a_set_pages_links_to_anchors_are_still_checked(tmp_path, monkeypatch):
    """A set's page in the navigation is converted by the build; mkdocs still checks its links'
    anchors (the hook records them as mkdocs' conversion does): one to nowhere fails the build."""
    from mkdocs.exceptions import Abort

    results = tmp_path / "results"
    name = fabricate(results, 0, points=1).name
    project = build.copy_project(ROOT, tmp_path / "project")
    build.run(results, project / "docs")
    page = project / "docs" / "generated" / "sets" / f"{name}.md"
    text = page.read_text(encoding="utf-8")
    assert hook.BEGIN in text and "../../methodology.html#host-bound" in text
    _mkdocs(project, "site", monkeypatch)
    page.unlink()  # a link, into the cache's copy: replaced, not written through
    page.write_text(text.replace("../../methodology.html#host-bound", "../../methodology.html#no-such-part"),
                    encoding="utf-8")
    with pytest.raises(Abort):
        _mkdocs(project, "broken", monkeypatch)


def test_the_search_port_is_checked_on_the_first_pages(monkeypatch):
    """The first SEARCH_CHECKED_PAGES pages the port reads are read by Material's parser too: where the
    two differ (here a port made wrong on purpose), that page and every later one get Material's sections."""
    search = pytest.importorskip("material.plugins.search.plugin")
    from types import SimpleNamespace

    index = SimpleNamespace()
    page = SimpleNamespace(meta={}, content='<h2 id="a">Title</h2><p>some text</p><h2 id="b">Other</h2><p>more</p>',
                           file=SimpleNamespace(src_uri="x.md"))
    want = hook._sections_seen(hook._material_sections(page.content, search))
    assert len(want) >= 2
    assert hook._sections_seen(hook._port_sections(index, page, search)) == want  # the port, checked: the same
    assert getattr(index, hook._SEARCH_CHECKED) == 1
    monkeypatch.setattr(hook, "_search_sections", lambda html, module: [])  # a port that lost every section
    assert hook._sections_seen(hook._port_sections(index, page, search)) == want
    assert getattr(index, hook._SEARCH_CHECKED) < 0
    assert hook._sections_seen(hook._port_sections(index, page, search)) == want  # Material's from then on


def test_the_hook_names_the_generated_folder_and_markers_as_the_build_does():
    """The hook imports nothing of gen (mkdocs loads it by its path): what it shares with the build is
    written twice, and compared here."""
    from gen.report import format as fmt

    assert hook.GENERATED == fmt.GENERATED + "/"
    assert (hook.BEGIN, hook.END, hook.LIST) == (prerender.BEGIN, prerender.END, prerender.LIST)
    toc = prerender.TOC.format("eyJhIjogMX0=")
    assert hook._TOC_LINE.fullmatch(toc + "\n")


def test_a_list_block_is_the_list_markdown_makes_without_the_build_too():
    """mkdocs converting the page itself (the build's convert=False): the hook gives a LIST block's
    holder one newline less, as gen.report.prerender does, so the page is the Markdown list's or table's."""
    import types

    from tests.test_prerender import _unmarked, list_pages

    names, configs = prerender._read_config(ROOT / "mkdocs.yml")
    md = markdown.Markdown(extensions=names, extension_configs=configs)
    md.treeprocessors.register(prerender._Links(md), "report_links", 0)  # mkdocs' rewrite of .md links

    def through_hook(text: str) -> str:
        page = types.SimpleNamespace(file=types.SimpleNamespace(src_uri="x.md"), meta={}, toc=None)
        md.reset()
        return hook.on_post_page(hook.on_page_content(md.convert(hook.on_page_markdown(text, page)), page), page)

    n = 0
    for text, held in list_pages():
        html = through_hook(held)
        md.reset()
        assert html == md.convert(_unmarked(text)), (text, held)
        n += 1
    assert n > 50
    assert through_hook(held.replace(hook.LIST, hook.BEGIN)) != html  # the marker is what does it
