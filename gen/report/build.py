"""Build: results/ -> docs/generated/ (Markdown pages, traces, navigation) and the
vendored chart bundle in docs/assets/vendor/.

Takes: a results root (gen.schema layout) and the docs directory. Gives: the
files `mkdocs build --strict` turns into site/. Called by `python -m gen build`.

- A broken set raises its SchemaError / TraceError (one line naming the file)
  unless skip_broken, when the others build and a page lists what was skipped.
- The pages are rendered into a temporary folder beside docs/generated/, which
  then replaces it in two renames, so a failed build leaves the old pages.
- Same results, same bytes: nothing of the build's own time or place is written,
  JSON keys are sorted, every list has a fixed order.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from gen.analysis import tables
from gen.report import render

VENDOR = Path("assets") / "vendor"
BUNDLE = "vega-bundle.js"
NAV_FILE = ".nav.yml"  # a dotfile: mkdocs does not copy it into the site


def vega_bundle() -> str:
    """vega, vega-lite and vega-embed in one ES module, pinned to the Vega-Lite
    version that altair writes, so the specs and the runtime agree."""
    import altair as alt
    import vl_convert

    return vl_convert.javascript_bundle(vl_version="v" + alt.VEGALITE_VERSION.rsplit(".", 1)[0])


def write_vendor(docs_dir: Path) -> Path:
    """Write the bundle only when its bytes change (it is 0.9 MB and slow to make:
    a stamp of the versions keeps it from being rebuilt every time)."""
    import altair as alt
    import vl_convert

    out = docs_dir / VENDOR
    stamp = f"altair {alt.__version__} vega-lite {alt.VEGALITE_VERSION} vl-convert {vl_convert.__version__}\n"
    path, stamp_path = out / BUNDLE, out / "VERSIONS"
    if path.is_file() and stamp_path.is_file() and stamp_path.read_text(encoding="utf-8") == stamp:
        return path
    out.mkdir(parents=True, exist_ok=True)
    _write_atomic(path, vega_bundle().encode("utf-8"))
    _write_atomic(stamp_path, stamp.encode("utf-8"))
    return path


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_pages(pages: list[render.Page], docs_dir: Path) -> Path:
    """Write the pages into docs/generated/ as a whole: temp folder, then swap."""
    docs_dir.mkdir(parents=True, exist_ok=True)
    final = docs_dir / render.GENERATED
    tmp = Path(tempfile.mkdtemp(dir=docs_dir, prefix=".generated-"))
    try:
        for p in pages:
            dest = tmp / Path(p.path).relative_to(render.GENERATED)
            dest.parent.mkdir(parents=True, exist_ok=True)
            if p.copy_from is not None:
                shutil.copyfile(p.copy_from, dest)
            else:
                dest.write_text(p.text or "", encoding="utf-8", newline="\n")
        nav = {"nav": render.nav(pages)}
        # YAML is a superset of JSON: mkdocs.yml INHERITs this file for its nav.
        (tmp / NAV_FILE).write_text(json.dumps(nav, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        old = None
        if final.exists():
            old = docs_dir / f".generated-old-{os.getpid()}"
            os.replace(final, old)
        os.replace(tmp, final)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def run(results_root: Path, docs_dir: Path, skip_broken: bool = False) -> Path:
    results_root, docs_dir = Path(results_root), Path(docs_dir)
    if not results_root.is_dir():
        raise FileNotFoundError(f"{results_root}: no results directory")
    sets, skipped = tables.load_sets(results_root, skip_broken=skip_broken)
    if not sets and not skipped:
        raise FileNotFoundError(f"{results_root}: no result sets to build from")
    ctx = render.Context(sets, skipped)
    pages = render.render(ctx)
    write_vendor(docs_dir)
    return write_pages(pages, docs_dir)


def digest(directory: Path) -> str:
    """One hash over every file's path and bytes: for determinism checks."""
    h = hashlib.sha256()
    for p in sorted(directory.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(directory).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def mkdocs_build(project: Path, site_dir: Path) -> None:
    """`mkdocs build --strict` of project/mkdocs.yml into site_dir (run from project,
    where the snippets' base path lies). Raises with mkdocs' output on failure."""
    import subprocess
    import sys

    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", "mkdocs.yml",
         "--site-dir", str(Path(site_dir).resolve())],
        cwd=project, env=env, capture_output=True, text=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}")


def copy_project(src: Path, dest: Path) -> Path:
    """mkdocs.yml and the hand-written docs/ of src, without build output: a
    scratch project for tests and benchmarks."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src / "mkdocs.yml", dest / "mkdocs.yml")
    shutil.copytree(src / "docs", dest / "docs", dirs_exist_ok=True,
                    ignore=lambda d, names: [n for n in names if n in (render.GENERATED, "vendor")
                                             or n.startswith(".generated")])
    return dest
