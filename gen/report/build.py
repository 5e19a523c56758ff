"""Build: results/ -> docs/generated/ (Markdown pages, traces, navigation) and the
vendored chart bundle in docs/assets/vendor/.

Takes: a results root (gen.schema layout) and the docs directory. Gives: the
files `mkdocs build --strict` turns into site/. Called by `python -m gen build`.

- Each set's own pages and facts come from `.cache/report/` beside docs/ when its
  files are unchanged (gen.report.units, gen.report.cache); a new or changed set is
  loaded, checked and rendered in worker processes. A set's own pages leave as HTML
  (gen.report.prerender), and so do the pages over all sets (converted here, after
  them), which mkdocs splices in (gen/report/mkdocs_hook.py).

- A broken set raises its SchemaError / TraceError (one line naming the file)
  unless skip_broken, when the others build, each skipped set is said on
  stderr and a page lists them. Broken means anything the pages would read:
  result.json, and every run and sweep trace. Nothing readable at all is an
  error, and the old pages stay.
- Sets or variants whose page names collide are one line naming both.
- The pages are written into a staging folder beside docs/generated/, which
  then replaces it under a lock (gen.model.layout.publish_dir), so a failed,
  interrupted or concurrent build leaves old or new pages, whole.
- Same results, same bytes: nothing of the build's own time or place is written,
  JSON keys are sorted, every list has a fixed order.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import shutil
import sys
from pathlib import Path
from urllib.parse import unquote

from gen.analysis import tables
from gen.model import layout
from gen.model.schema import UserError
from gen.report import cache, prerender, render, units

ROOT = Path(__file__).resolve().parent.parent.parent
VENDOR = Path("assets") / "vendor"
BUNDLE = "vega-bundle.js"
NAV_FILE = ".nav.yml"  # a dotfile: mkdocs does not copy it into the site
CACHE_DIR = Path(".cache") / "report"
HOOK = Path("gen") / "report" / "mkdocs_hook.py"  # mkdocs.yml's hooks: one path, relative to the project


def vega_bundle() -> str:
    """vega, vega-lite and vega-embed in one ES module, pinned to the Vega-Lite
    version that altair writes, so the specs and the runtime agree."""
    import altair as alt
    import vl_convert

    return vl_convert.javascript_bundle(vl_version="v" + alt.VEGALITE_VERSION.rsplit(".", 1)[0])


def write_vendor(docs_dir: Path) -> Path:
    """Write the bundle unless the one there is the one made for these versions, by its content:
    VERSIONS names the versions and the sha256 of the bundle made for them; a bundle edited (or a
    stamp that names other versions) is made again (it is 0.9 MB and slow to make)."""
    from importlib.metadata import version  # the versions without importing altair

    out = docs_dir / VENDOR
    # altair's version fixes the Vega-Lite version its specs are written for (alt.VEGALITE_VERSION)
    versions = f"altair {version('altair')} vl-convert-python {version('vl-convert-python')}"
    path, stamp_path = out / BUNDLE, out / "VERSIONS"
    try:
        stamp = stamp_path.read_text(encoding="utf-8")
        if stamp == f"{versions} sha256 {hashlib.sha256(path.read_bytes()).hexdigest()}\n":
            return path
    except (OSError, UnicodeDecodeError):
        pass
    out.mkdir(parents=True, exist_ok=True)
    data = vega_bundle().encode("utf-8")
    _write_atomic(path, data)
    _write_atomic(stamp_path, f"{versions} sha256 {hashlib.sha256(data).hexdigest()}\n".encode())
    return path


def _write_atomic(path: Path, data: bytes) -> None:
    layout.atomic_write_bytes(path, data)


def _copy(src: Path, dest: Path) -> None:
    """A trace, copied: published output never shares a file with results/ (a page's file emptied
    in docs/ or site/ must not empty the committed trace)."""
    shutil.copyfile(src, dest)


def write_pages(pages: list[render.Page], docs_dir: Path) -> Path:
    """Write the pages into docs/generated/ as a whole: staging folder, then swap."""
    docs_dir.mkdir(parents=True, exist_ok=True)
    final = docs_dir / render.GENERATED
    tmp = layout.make_staging(docs_dir, render.GENERATED)
    try:
        for p in pages:
            dest = tmp / Path(p.path).relative_to(render.GENERATED)
            dest.parent.mkdir(parents=True, exist_ok=True)
            if p.copy_from is not None:
                _copy(p.copy_from, dest)
            else:
                dest.write_text(p.text or "", encoding="utf-8", newline="\n")
        (tmp / NAV_FILE).write_text(nav_yaml(render.nav(pages)), encoding="utf-8")
        layout.publish_dir(tmp, final, replace=True, what="pages")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final


def _over_all_sets(page: render.Page, own: set[str]) -> bool:
    """A page over all sets (the comparison, findings, each variant's and scenario's page), converted
    to HTML here as a set's pages are. Not a snippet (a .name.md that a hand-written page includes:
    Markdown inside its page)."""
    return (page.text is not None and page.path not in own and page.path.endswith(".md")
            and not posixpath.basename(page.path).startswith("."))


def _hand_written(source: str) -> bool:
    """A page of the project's own docs/ (methodology.md...): there in any project made from
    this one (copy_project), though a build into a bare docs folder does not hold it."""
    return not source.startswith(f"{render.GENERATED}/") and (ROOT / "docs" / source).is_file()


def check_links(pages: list[render.Page], docs_dir: Path, known: dict | None = None) -> None:
    """Every relative link of a page converted here (gen.report.prerender) lands on a page or
    file of the site: mkdocs checks the others, not these. A link to nowhere is a bug.
    `known`: page -> its links, as the units listed them when they converted the page."""
    made = {p.path for p in pages}
    known = known or {}
    for p in pages:
        # a page a unit converted lists its links (kept with it when its text is a file in the cache)
        if p.path in known:
            hrefs = known[p.path]
        elif p.text is not None and prerender.BEGIN in p.text and "raw-html-toc" in p.text:
            hrefs = prerender.links(p.text)
        else:
            continue
        for href in hrefs:
            target = posixpath.normpath(posixpath.join(posixpath.dirname(p.path), unquote(href)))
            source = target[:-5] + ".md" if target.endswith(".html") else target
            if source not in made and not (docs_dir / source).is_file() and not _hand_written(source):
                raise ValueError(f"{p.path}: link {href} leads to no page ({source})")


# Characters YAML refuses (DEL, C1 controls, U+FFFE/F) or reads as line breaks (NEL, U+2028,
# U+2029) even inside a quoted string; JSON's own escapes cover those below U+0020.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def nav_yaml(nav: list) -> str:
    """The navigation as mkdocs.yml INHERITs it: JSON (a subset of YAML), with every
    character YAML would trip on written as a \\u escape, so no title can stop the build."""
    text = json.dumps({"nav": nav}, indent=1, ensure_ascii=False) + "\n"
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def check_names(sets: list[tables.LoadedSet]) -> None:
    """Two sets (or two variants) whose names slugify to one page would overwrite
    each other: one line naming both."""
    pages: dict[str, tables.LoadedSet] = {}
    for ls in sets:
        page = render.set_page(ls.name)
        if page in pages:
            raise UserError(f"result sets {pages[page].path} and {ls.path} would share the page {page}: "
                            f"rename one folder")
        pages[page] = ls
    variants: dict[str, tuple[str, tables.LoadedSet]] = {}
    for ls in sets:
        for run in ls.rs.runs:
            page = render.variant_page(run.variant)
            seen = variants.setdefault(page, (run.variant, ls))
            if seen[0] != run.variant:
                raise UserError(f"variants {seen[0]!r} (in {seen[1].path}) and {run.variant!r} (in {ls.path}) "
                                f"would share the page {page}: rename one")


def _check_writable(docs_dir: Path) -> None:
    """The pages can be staged in docs_dir, or one line saying why not."""
    try:
        docs_dir.mkdir(parents=True, exist_ok=True)
        layout.make_staging(docs_dir, render.GENERATED).rmdir()
    except OSError as exc:
        raise UserError(f"{exc.filename or docs_dir}: cannot write the pages there ({exc.strerror}); make "
                        f"{docs_dir} writable or pass --docs elsewhere") from None


def cache_dir(docs_dir: Path) -> Path:
    """Where a build keeps what each set's files determine: beside docs/, in the project."""
    return Path(docs_dir).resolve().parent / CACHE_DIR


def run(results_root: Path, docs_dir: Path, skip_broken: bool = False, use_cache: bool = True,
        convert: bool = True, timings: dict | None = None, workers: int | None = None) -> Path:
    """Build the pages. Each set's pages and facts come from the cache (cache_dir) when its
    files, the published sets, the set it is compared with and the code are those of a
    previous build; otherwise the set is loaded, checked and rendered (in parallel, one
    process per core). use_cache=False neither reads nor writes the cache. A set's own pages
    and the pages over all sets are converted to HTML here (gen.report.prerender) unless
    convert=False: the same site.
    `timings` (benchmarks/bench_build.py) gets the wall and CPU seconds of each stage;
    `workers` sets the number of worker processes (default: one per core)."""
    results_root, docs_dir = Path(results_root), Path(docs_dir)
    if not results_root.is_dir():
        raise UserError(f"{results_root}: no results directory")
    _check_writable(docs_dir)  # before minutes of rendering, not after
    store = cache.Store(cache_dir(docs_dir)) if use_cache else None
    config = docs_dir.parent / "mkdocs.yml"
    converter = prerender.Converter.from_project(config if config.is_file() else ROOT / "mkdocs.yml") \
        if convert else None
    ctx, made = units.load(results_root, store, skip_broken=skip_broken, check=check_names, prerender=converter,
                           timings=timings, workers=workers)
    for s in ctx.skipped:
        print(f"skipped {s.name}: {s.error}", file=sys.stderr)
    if not ctx.sets:
        if ctx.skipped:
            raise UserError(f"{results_root}: no readable result set ({len(ctx.skipped)} skipped); "
                            f"the pages in {docs_dir / render.GENERATED} are kept")
        raise UserError(f"{results_root}: no result sets to build from")
    watch = units.Stopwatch(timings)
    with watch("pages over all sets"):
        pages = render.render(ctx, units=made)
    if converter is not None:
        with watch("pages over all sets, Markdown to HTML"):
            own = {p.path for u in made.values() for p in u.pages}
            pages = [render.Page(p.path, converter.page(p.text), p.nav, p.copy_from) if _over_all_sets(p, own) else p
                     for p in pages]
    with watch("check links, write the pages"):
        check_links(pages, docs_dir, {path: hrefs for u in made.values() for path, hrefs in u.links.items()})
        layout.raise_if_terminated()
        write_vendor(docs_dir)
        return write_pages(pages, docs_dir)


def digest(directory: Path) -> str:
    """One hash over every file's path and bytes: for determinism checks."""
    h = hashlib.sha256()
    for p in sorted(directory.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(directory).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def mkdocs_build(project: Path, site_dir: Path, config: str = "mkdocs.yml") -> None:
    """`mkdocs build --strict` of project/mkdocs.yml (or another config there) into site_dir
    (run from project, where the snippets' base path lies). Raises with mkdocs' output on failure."""
    import subprocess
    import sys

    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", config,
         "--site-dir", str(Path(site_dir).resolve())],
        cwd=project, env=env, capture_output=True, text=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}")


def publish_site(project: Path, site_dir: Path, config: str = "mkdocs.yml") -> Path:
    """`mkdocs build --strict` into a staging folder beside site_dir, then swapped in whole
    (gen.model.layout.publish_dir): a failed, killed or disk-full build leaves the old site as it was;
    what a killed one left beside it is removed by the next."""
    site_dir = Path(site_dir).resolve()
    layout.settle(site_dir.parent)
    staging = layout.make_staging(site_dir.parent, site_dir.name)
    try:
        mkdocs_build(project, staging, config)
        layout.publish_dir(staging, site_dir, replace=True, what="site")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return site_dir


def copy_project(src: Path, dest: Path) -> Path:
    """mkdocs.yml (with the hook it names), the theme's overrides/ and the hand-written docs/
    of src, without build output: a scratch project for tests and benchmarks."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src / "mkdocs.yml", dest / "mkdocs.yml")
    hook = dest / HOOK  # mkdocs.yml names it by its path in the project
    hook.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src / HOOK, hook)
    shutil.copytree(src / "overrides", dest / "overrides", dirs_exist_ok=True)
    shutil.copytree(src / "docs", dest / "docs", dirs_exist_ok=True,
                    ignore=lambda d, names: [n for n in names if n in (render.GENERATED, "vendor")
                                             or n.startswith((".generated", layout.STAGING_PREFIX, layout.LOCK_FILE))])
    return dest
