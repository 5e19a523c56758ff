"""Build: results/ -> docs/generated/ (Markdown pages, traces, navigation) and the
vendored chart bundle in docs/assets/vendor/.

Takes: a results root (gen.schema layout) and the docs directory. Gives: the
files `mkdocs build --strict` turns into site/. Called by `python -m gen build`.

- Each set's own pages and facts come from `.cache/report/` beside docs/ when its
  files are unchanged (gen.report.units, gen.report.cache); a new or changed set is
  loaded, checked and rendered in worker processes. A set's own pages leave as HTML
  (gen.report.prerender), and so do the pages over all sets (converted here, after
  them), which mkdocs splices in (gen/report/mkdocs_hook.py).

- A build that finds in docs/generated, to the byte, the pages a build of the same sets (by
  content), code, limits and options wrote has nothing to do (the cache keeps that build's
  outcome: the sha256 of its pages and the sets it skipped).

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
from gen.model import layout, schema
from gen.model.schema import UserError
from gen.report import cache, prerender, reading, render, units

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


def write_pages(pages: list[render.Page], docs_dir: Path, written: dict | None = None) -> Path:
    """Write the pages into docs/generated/ as a whole: staging folder, then swap. `written` (if given)
    gets the digest of what was written, made before the swap (so it is this build's pages only)."""
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
        if written is not None:
            written["generated"] = digest(tmp)
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
        for run in ls.outline.runs:
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
    watch = units.Stopwatch(timings)
    keys, outcome = None, None
    if store is not None:
        with watch("nothing changed? (the sets' content hashes)"):
            keys, outcome = _outcome_key(results_root, docs_dir, converter, skip_broken)
            done = _unchanged(store, outcome, docs_dir)
        if done is not None:
            return done
    ctx, made = units.load(results_root, store, skip_broken=skip_broken, check=check_names, prerender=converter,
                           timings=timings, workers=workers, keys=keys)
    for s in ctx.skipped:
        print(f"skipped {s.name}: {s.error}", file=sys.stderr)
    if not ctx.sets:
        if ctx.skipped:
            raise UserError(f"{results_root}: no readable result set ({len(ctx.skipped)} skipped); "
                            f"the pages in {docs_dir / render.GENERATED} are kept")
        raise UserError(f"{results_root}: no result sets to build from")
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
        written: dict = {}
        final = write_pages(pages, docs_dir, written if outcome else None)
    if outcome is not None:  # what these sets, this code and these limits built, for the next build
        store.put("build", outcome, {"generated": written["generated"],
                                     "skipped": [[s.name, s.error] for s in ctx.skipped]})
    return final


def _outcome_key(results_root: Path, docs_dir: Path, converter, skip_broken: bool) \
        -> tuple[dict[str, str], str | None]:
    """(each set's key, the key of the whole build's outcome): every set's files by content, the code, the
    limits, the options and the hand-written pages that links may reach. None where a set's key cannot be
    made (the build says why)."""
    layout.settle(results_root)  # what a killed publish left is put right first, or named
    paths = schema.list_sets(results_root)
    keys = dict(zip([p.name for p in paths], reading.set_keys(paths)))
    if None in keys.values():
        return {k: v for k, v in keys.items() if v is not None}, None
    return keys, cache.key(cache.code_key(), converter.key() if converter is not None else "markdown",
                           reading.limits_key(), repr(skip_broken), repr(sorted(keys.items())),
                           repr(_hand_written_files(docs_dir)))


def _hand_written_files(docs_dir: Path) -> list[str]:
    """The files of docs/ beside the generated pages and the chart bundle, both the build's own (what the
    pages' links may reach)."""
    out = []
    for top, dirs, files in os.walk(docs_dir):
        rel = Path(os.path.relpath(top, docs_dir))
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and rel / d not in (Path(render.GENERATED), VENDOR))
        out += sorted(posixpath.normpath(f"{rel.as_posix()}/{f}") for f in files if not f.startswith("."))
    return out


def _unchanged(store: cache.Store, outcome: str | None, docs_dir: Path) -> Path | None:
    """docs/generated where it holds, to the byte, the pages a build of the same outcome key wrote (then
    there is nothing to build: the sets it skipped are said again); else None."""
    kept = store.get("build", outcome) if outcome is not None else None
    final = docs_dir / render.GENERATED
    if not isinstance(kept, dict) or type(kept.get("generated")) is not str or not final.is_dir() \
            or not isinstance(kept.get("skipped"), list) \
            or not all(type(s) is list and len(s) == 2 and all(type(x) is str for x in s) for s in kept["skipped"]):
        return None
    if digest(final) != kept["generated"]:
        return None
    for name, error in kept["skipped"]:
        print(f"skipped {name}: {error}", file=sys.stderr)
    store.prune(temporary_only=True)  # what killed builds left; the entries stay for the next change
    write_vendor(docs_dir)  # checked by its content, made again if edited
    return final


def digest(directory: Path) -> str:
    """One hash over every file's path and bytes (gen.report.cache.set_key): what a build wrote, and
    determinism checks."""
    return cache.set_key(directory)


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


SITE_CACHE_DIR = Path(".cache") / "site"
# What mkdocs reads besides the configuration, relative to the project: the pages and the theme's
# overrides (and the hook, with the code of gen/ it imports)
SITE_SOURCES = ("docs", "overrides")
SITE_LIBRARIES = ("mkdocs", "mkdocs-material", "markdown", "pymdown-extensions", "jinja2", "pygments")


def publish_site(project: Path, site_dir: Path, config: str = "mkdocs.yml") -> Path:
    """`mkdocs build --strict` into a staging folder beside site_dir, then swapped in whole
    (gen.model.layout.publish_dir): a failed, killed or disk-full build leaves the old site as it was;
    what a killed one left beside it is removed by the next. Where site_dir holds, to the byte, what a
    build from the same sources made (`site_key`: the configuration, docs/, the theme's overrides, the
    hook's code, the libraries' versions), there is nothing to build and it is kept."""
    project, site_dir = Path(project), Path(site_dir).resolve()
    layout.settle(site_dir.parent)
    store = cache.Store(project / SITE_CACHE_DIR)
    sources = site_key(project, config)
    kept = store.get("site", sources)
    if type(kept) is str and site_dir.is_dir() and digest(site_dir) == kept:
        return site_dir
    staging = layout.make_staging(site_dir.parent, site_dir.name)
    try:
        mkdocs_build(project, staging, config)
        built = digest(staging)
        layout.publish_dir(staging, site_dir, replace=True, what="site")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    store.put("site", sources, built)
    store.prune()
    return site_dir


def site_key(project: Path, config: str = "mkdocs.yml") -> str:
    """What `mkdocs build` of project/config makes a site from, by content: the configuration and the
    variables it reads (!ENV), every file of the folders it reads (SITE_SOURCES), the hook and gen's code,
    the libraries' versions."""
    from importlib.metadata import PackageNotFoundError, version

    text = (project / config).read_bytes()
    env = sorted(set(re.findall(rb"!ENV\s*\[?\s*([A-Za-z_][A-Za-z0-9_]*)", text)))
    parts = [config, hashlib.sha256(text).hexdigest(), sys.version]
    parts += [f"{name.decode()}={os.environ.get(name.decode())!r}" for name in env]
    for name in SITE_LIBRARIES:
        try:
            parts.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name} -")
    hook = project / HOOK
    parts.append(f"hook {hashlib.sha256(hook.read_bytes()).hexdigest() if hook.is_file() else '-'} {cache.code_key()}")
    for folder in SITE_SOURCES:
        parts.append(f"{folder} {cache.set_key(project / folder) if (project / folder).is_dir() else '-'}")
    return cache.key(*parts)


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
