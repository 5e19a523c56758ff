"""End to end: results -> python -m gen build -> mkdocs build --strict, in a scratch project."""

from __future__ import annotations

import gzip
import html
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from gen.model.trace import short_name
from gen.report import build
from tests import gen_main

ROOT = Path(__file__).resolve().parent.parent
H200 = "nvidia-h200__torch-2.11.0"
CPU = "cpu-intel-r-xeon-r-processor__torch-2.13.0"
SETS = [H200, "nvidia-a100-sxm4-80gb__article-2026-07"]
HOSTILE_FULL = ("void evil::k<a|b, c*d*, __e__, `f`, [g](h), <script>alert(1)</script>&amp; #1>"
                "(x\\|y, T const&)")
HOSTILE_SHORT = "nvjet_*bold*_|pipe|_[link](x)_`tick`_\\esc_&amp;"

pytestmark = pytest.mark.slow


def _results(tmp: Path, names=SETS) -> Path:
    results = tmp / "results"
    for name in names:
        shutil.copytree(ROOT / "results" / name, results / name)
    return results


def _project(tmp: Path) -> Path:
    return build.copy_project(ROOT, tmp / "project")


def _cli(*args: str) -> subprocess.CompletedProcess:
    # `gen build`'s exit status and what it says, from the CLI's main in this process (tests/gen_main.py): a process
    # of its own paid Python's start and the build's imports again, about 1.5 s of CPU a call. Its sets are read
    # in this process (conftest.py's _builds_in_one_process); test_build_cache's
    # test_sets_read_in_parallel_fail_as_one_by_one holds the forked workers to the same errors.
    return gen_main.run(*args, cwd=ROOT)


class _Text(HTMLParser):
    """The visible text and the attributes of a page, entities resolved."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend((tag, k, v or "") for k, v in attrs)

    def handle_data(self, data):
        self.text.append(data)


def _parse(path: Path) -> _Text:
    p = _Text()
    p.feed(path.read_text(encoding="utf-8"))
    return p


@pytest.fixture(scope="module")
def site(built_site) -> Path:
    """The sets built into a site (once per session, shared: conftest.py)."""
    return built_site(*SETS).site


def test_strict_build_makes_every_page(site):
    for page in ["index.html", "methodology.html", "generated/sets/index.html", f"generated/sets/{H200}.html",
                 "generated/variants/naive.html", "generated/variants/sdpa_flash.html"]:
        assert (site / page).is_file(), page
    assert (site / f"generated/traces/{H200}/article__train__naive.json.gz").is_file()
    assert (site / "assets/vendor/vega-bundle.js").stat().st_size > 500_000
    home = "".join(_parse(site / "index.html").text)
    assert "NVIDIA H200" in home and "nox -s build-report" in home


def _links_resolve(site: Path) -> None:
    """Every local href/src of every page points at a file of the site; no page loads
    anything from another host (links to other sites are text, not loads)."""
    for page in site.rglob("*.html"):
        if page.name == "404.html":  # served at any depth, so its links are absolute by design
            continue
        parsed = _parse(page)
        for tag, key, value in parsed.attrs:
            if key not in ("href", "src") or not value or value.startswith(("#", "mailto:", "data:")):
                continue
            url = urlparse(value)
            if url.scheme or url.netloc:
                assert key == "href" and tag == "a", f"{page}: {tag} {key}={value} loads from outside"
                continue
            target = (page.parent / unquote(url.path)).resolve()
            if value.endswith("/"):
                target = target / "index.html"
            assert target.exists(), f"{page.relative_to(site)}: {value} is missing"


def test_links_resolve_and_nothing_leaves_the_machine(site):
    _links_resolve(site)


def test_tables_and_charts_on_the_variant_page(site):
    page = _parse(site / f"generated/sets/{H200}/variants/naive.html")
    specs = [v for tag, k, v in page.attrs if k == "data-spec"]
    assert len(specs) == 2
    spec = json.loads(specs[0])  # the parser resolved the HTML escaping
    assert set(spec["datasets"]) == {"cpu", "gpu"}
    assert page.tags.count("details") >= 7  # one per GPU event: the full name on demand


def _hostile_set(results: Path) -> None:
    """The naive inference trace with its longest kernel (the summary's main kernel)
    and its first GEMM renamed."""
    path = results / H200 / "traces" / "article__inference__naive.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    for e in data["traceEvents"]:
        name = str(e.get("name", ""))
        if e.get("cat") == "kernel" and name.startswith("void at::native::elementwise_kernel<128, 4"):
            e["name"] = HOSTILE_SHORT
        elif e.get("cat") == "kernel" and name.startswith("nvjet_sm90_tst_256x128"):
            e["name"] = HOSTILE_FULL
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        json.dump(data, fh)


def test_hostile_kernel_names_show_literally(tmp_path):
    results = _results(tmp_path, [H200])
    _hostile_set(results)
    project = _project(tmp_path)
    build.run(results, project / "docs")
    build.mkdocs_build(project, project / "site")
    site = project / "site"

    variant = _parse(site / f"generated/sets/{H200}/variants/naive.html")
    text = "".join(variant.text)
    assert HOSTILE_FULL in text  # in the kernel table, under <details>
    assert HOSTILE_SHORT in text  # the short name, in the table and the occupancy notes
    titles = [v for tag, k, v in variant.attrs if k == "title"]
    assert HOSTILE_FULL in titles
    # The names stayed text: no element, link or emphasis came out of them.
    assert not any(k == "href" and v == "h" or v == "x" for _, k, v in variant.attrs)
    raw = (site / f"generated/sets/{H200}/variants/naive.html").read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in raw and "<em>bold</em>" not in raw
    # In the chart's data too (tooltips show these fields).
    spec = json.loads(next(v for tag, k, v in variant.attrs if k == "data-spec"))
    names = {r["name"] for r in spec["datasets"]["gpu"]}
    assert HOSTILE_FULL in names and HOSTILE_SHORT in names

    # The summary table (Markdown) names the main kernel, literally, in its own cell.
    summary = _parse(site / f"generated/sets/{H200}.html")
    assert short_name(HOSTILE_SHORT) in [t.strip() for t in summary.text]
    raw = (site / f"generated/sets/{H200}.html").read_text(encoding="utf-8")
    assert "<em>bold</em>" not in raw and '<a href="x">' not in raw


@pytest.mark.parametrize("damage", ["result-json", "trace"])
def test_broken_set_stops_the_build_or_is_skipped(tmp_path, damage):
    results = _results(tmp_path, [CPU])  # the smallest measured set: two builds and a site to make
    broken = results / "zz-broken__torch-0"
    shutil.copytree(results / CPU, broken)
    if damage == "result-json":
        (broken / "result.json").write_text('{"schema_version": 1, "name": ', encoding="utf-8")
        culprit = broken / "result.json"
    else:
        culprit = broken / "traces" / "inference__naive.json.gz"
        culprit.write_bytes(culprit.read_bytes()[:200])
    project = _project(tmp_path)
    docs = project / "docs"

    proc = _cli("build", "--results", str(results), "--docs", str(docs))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(culprit) in lines[0], proc.stderr
    assert not (docs / "generated").exists()  # nothing half-built

    proc = _cli("build", "--results", str(results), "--docs", str(docs), "--skip-broken")
    assert proc.returncode == 0, proc.stderr
    skipped = (docs / "generated" / "skipped.md").read_text(encoding="utf-8")
    assert "zz-broken&#95;&#95;torch-0" in skipped and culprit.name.replace("_", "&#95;") in skipped
    build.mkdocs_build(project, project / "site")
    _links_resolve(project / "site")  # a set without sweep points: no page links the scenarios it lacks
    page = "".join(_parse(project / "site" / "generated" / "skipped.html").text)
    assert "zz-broken__torch-0" in page and str(culprit) in page
    assert "skipped" in "".join(_parse(project / "site" / "index.html").text)


def _with_number(path: Path, field: str, number: str) -> None:
    """The trace at path with the first operator event's field (ts or dur) written as number."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        text = fh.read()
    event = rf'("cat": "user_annotation",[^{{}}]*?"{field}": )[-0-9.e]+'
    text, n = re.subn(event, lambda m: m.group(1) + number, text, count=1)
    assert n == 1
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(text)


def test_huge_integers_in_a_trace_are_one_line_and_said_by_their_digits(tmp_path):
    """An integer past Python's 4,300-digit limit (5,000 digits in dur) stops the build with one
    line naming the trace and the integer's size; one Python reads but too long to show (4,000
    digits in ts) is said by its digits, on the CLI and on the site's skipped page: never a
    traceback, never the number cut to another."""
    results = _results(tmp_path, [CPU])
    culprits = {}
    for name, field, digits in [("zz-huge__torch-0", "dur", 5000), ("zz-long__torch-0", "ts", 4000)]:
        shutil.copytree(results / CPU, results / name)
        culprits[name] = results / name / "traces" / "inference__naive.json.gz"
        _with_number(culprits[name], field, "9" * digits)
    project = _project(tmp_path)
    docs = project / "docs"
    said = {"zz-huge__torch-0": "holds an integer of 5,000 digits", "zz-long__torch-0": "has ts a 4,000-digit integer"}
    cut = "9" * 30  # a run of the digits shown would be a number that is not the trace's

    proc = _cli("build", "--results", str(results), "--docs", str(docs))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and len(lines[0]) < 500, proc.stderr
    assert any(str(culprits[n]) in lines[0] and said[n] in lines[0] for n in said), lines[0]
    assert cut not in lines[0]

    proc = _cli("build", "--results", str(results), "--docs", str(docs), "--skip-broken")
    assert proc.returncode == 0, proc.stderr
    build.mkdocs_build(project, project / "site")
    raw = (project / "site" / "generated" / "skipped.html").read_text(encoding="utf-8")
    rows = [html.unescape(re.sub(r"<[^>]*>|\n", "", r)) for r in re.findall(r"<tr>(.*?)</tr>", raw, re.S)]
    for name in said:  # each set's row: the file, the integer by its size, not cut to another number
        row = next(r for r in rows if r.startswith(name))
        assert str(culprits[name]) in row and said[name] in row and cut not in row, row


def test_build_is_deterministic(tmp_path, built_site):
    shared = built_site(*SETS)  # built once for the session, from a copy of the sets elsewhere, into an empty docs/
    results = _results(tmp_path)
    a = tmp_path / "a" / "docs"
    shutil.copytree(shared.docs / "generated", a / "generated")
    first = build.digest(a / "generated")
    # Again, from another copy, elsewhere (a project of its own: nothing from the cache), over the first build's
    # pages. (A third build into an empty docs/ here only repeated the shared one: built the same way.)
    build.run(results, a)
    assert build.digest(a / "generated") == first
    assert build.digest(a / build.VENDOR) == build.digest(shared.docs / build.VENDOR)
    # No trace of the build's own time or place in what it wrote.
    for p in (a / "generated").rglob("*.md"):
        text = p.read_text(encoding="utf-8")
        assert str(tmp_path) not in text and str(shared.results) not in text and str(shared.project) not in text
        assert not re.search(r"20\d\d-\d\d-\d\dT\d\d:\d\d", text.replace("2026-12-02T16:10:39", ""))


def test_failed_build_keeps_the_old_pages(tmp_path, monkeypatch):
    results = _results(tmp_path, [CPU])  # the smallest measured set: the build fails the same on any
    docs = tmp_path / "docs"
    build.run(results, docs)
    before = build.digest(docs / "generated")

    def boom(ctx, workers=None, units=None):
        raise RuntimeError("render failed")

    monkeypatch.setattr(build.render, "render", boom)
    with pytest.raises(RuntimeError):
        build.run(results, docs, use_cache=False)  # rendered again (with the cache, nothing changed: nothing to do)
    assert build.digest(docs / "generated") == before
    assert not [p for p in docs.iterdir() if p.name.startswith(".generated")]
