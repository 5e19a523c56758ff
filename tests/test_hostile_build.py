"""Issue 35, the build's cache and publishing as a hostile user meets them: a cache that cannot lie
or run code, output that shares no file with its sources, a site published whole, signals obeyed.
Each test failed on the build before the fix."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from gen import cli
from gen.report import build, cache, render

ROOT = Path(__file__).resolve().parent.parent
CPU_SET = "cpu-intel-r-xeon-r-processor__torch-2.13.0"


def _results(tmp: Path) -> Path:
    results = tmp / "results"
    shutil.copytree(ROOT / "results" / CPU_SET, results / CPU_SET)
    return results


def _pages(docs: Path) -> dict[str, bytes]:
    gen = docs / "generated"
    return {p.relative_to(gen).as_posix(): p.read_bytes() for p in sorted(gen.rglob("*")) if p.is_file()}


def _cold(results: Path, tmp: Path) -> dict[str, bytes]:
    other = tmp / "cold" / "docs"
    build.run(results, other, use_cache=False, workers=1)
    return _pages(other)


def test_an_edit_that_keeps_size_and_mtime_is_seen(tmp_path):
    results = _results(tmp_path)
    docs = tmp_path / "project" / "docs"
    build.run(results, docs, workers=1)
    before = _pages(docs)
    rj = results / CPU_SET / "result.json"
    st = rj.stat()
    text = rj.read_text(encoding="utf-8")
    assert "Xeon" in text
    rj.write_text(text.replace("Xeon", "Xeom"), encoding="utf-8")  # same length
    os.utime(rj, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert rj.stat().st_size == st.st_size
    build.run(results, docs, workers=1)
    after = _pages(docs)
    assert after != before and any(b"Xeom" in v for v in after.values())
    assert after == _cold(results, tmp_path)


def _entries(docs: Path) -> list[Path]:
    return sorted(p for p in build.cache_dir(docs).rglob("*") if p.is_file())


class _Run:
    """A pickle that runs a command when loaded."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_pickle_in_the_cache_is_never_run(tmp_path):
    results = _results(tmp_path)
    docs = tmp_path / "project" / "docs"
    build.run(results, docs, workers=1)
    before = _pages(docs)
    marker = tmp_path / "ran"
    evil = pickle.dumps(_Run(marker))
    entries = _entries(docs)
    assert entries
    for e in entries:  # every entry, under its own name and as a pickle beside it
        e.write_bytes(evil)
        e.with_suffix(".pkl").write_bytes(evil)
    build.run(results, docs, workers=1)
    assert not marker.exists()
    assert _pages(docs) == before
    assert not list(build.cache_dir(docs).glob("*.pkl"))  # what no build reads is removed


def _forge(path: Path, value, kind: str | None = None, k: str | None = None) -> None:
    """An entry in the cache's own format, its hash right, holding `value`."""
    name = path.name.rsplit(".", 1)[0]
    kind_, _, key_ = name.partition("-")
    payload = json.dumps(cache.encode(value)).encode()
    head = json.dumps({"format": cache.FORMAT, "kind": kind or kind_, "key": k or key_,
                       "sha256": hashlib.sha256(payload).hexdigest()}).encode() + b"\n"
    path.write_bytes(head + payload)


def test_an_entry_of_the_wrong_type_is_made_again(tmp_path):
    results = _results(tmp_path)
    docs = tmp_path / "project" / "docs"
    build.run(results, docs, workers=1)
    before = _pages(docs)
    for e in _entries(docs):
        if e.suffix == ".pkl":  # the old cache's form
            e.write_bytes(pickle.dumps(["not a unit"]))
        else:
            _forge(e, ["not a unit", {"pages": 1}])
    build.run(results, docs, workers=1)
    assert _pages(docs) == before


def test_cached_text_edited_never_reaches_the_pages(tmp_path):
    results = _results(tmp_path)
    docs = tmp_path / "project" / "docs"
    build.run(results, docs, workers=1)
    before = _pages(docs)
    edited = 0
    for e in _entries(docs):
        data = e.read_bytes()
        if b"Xeon" in data:
            e.write_bytes(data.replace(b"Xeon", b"<script>FORGED</script>"))
            edited += 1
    assert edited
    build.run(results, docs, workers=1)
    assert not any(b"FORGED" in v for v in _pages(docs).values())
    assert _pages(docs) == before


def test_an_entry_under_another_key_is_a_miss(tmp_path):
    """An entry copied under another entry's name (its payload's hash right) is not believed."""
    results = _results(tmp_path)
    docs = tmp_path / "project" / "docs"
    build.run(results, docs, workers=1)
    before = _pages(docs)
    entries = [e for e in _entries(docs) if e.suffix == ".json"]
    assert len(entries) >= 2
    first = entries[0].read_bytes()
    for e in entries[1:]:
        e.write_bytes(first)
    build.run(results, docs, workers=1)
    assert _pages(docs) == before


def test_cache_decode_builds_only_plain_values():
    import pandas as pd

    from gen.model.schema import Mode

    df = pd.DataFrame({"a": [1.0, float("nan")], "b": ["x", None], "c": [True, False], "d": [(1, 2), [3]]})
    value = {"t": (1, 2.5, "s", None), Mode.TRAIN: [df], ("k", 1): {1, 2}}
    back = cache.decode(json.loads(json.dumps(cache.encode(value))))
    assert back.keys() == value.keys() and back["t"] == value["t"] and back[("k", 1)] == {1, 2}
    got = back[Mode.TRAIN][0]
    assert list(got.dtypes.astype(str)) == list(df.dtypes.astype(str)) and got.equals(df)
    for bad in ({"$dataclass": "os:system", "values": []}, {"$enum": "subprocess:Popen", "value": 1},
                {"$numpy": "object", "value": 1}, {"$float": "1e999999"}, {"$other": 1}, {"$floats": "AAAA"},
                {"$floats": "not base64!"}, {"$floats": 1}):
        with pytest.raises((ValueError, TypeError, KeyError)):
            cache.decode(bad)
    with pytest.raises(TypeError):
        cache.encode(Path("/etc/passwd"))


def test_an_edited_vega_bundle_is_restored(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "vega_bundle", lambda: "// the bundle\n")
    docs = tmp_path / "docs"
    path = build.write_vendor(docs)
    assert path.read_text(encoding="utf-8") == "// the bundle\n"
    path.write_text("alert('edited')\n", encoding="utf-8")
    build.write_vendor(docs)
    assert path.read_text(encoding="utf-8") == "// the bundle\n"


def test_published_files_share_no_inode_with_results_or_cache(tmp_path):
    results = _results(tmp_path)
    docs = tmp_path / "project" / "docs"
    build.run(results, docs, workers=1)
    build.run(results, docs, workers=1)  # warm: pages from the cache
    sources = {(p.stat().st_dev, p.stat().st_ino) for root in (results, build.cache_dir(docs))
               for p in root.rglob("*") if p.is_file()}
    published = [p for p in (docs / "generated").rglob("*") if p.is_file()]
    assert any(p.parent.name == CPU_SET and "traces" in p.parts for p in published)
    for p in published:
        assert (p.stat().st_dev, p.stat().st_ino) not in sources and p.stat().st_nlink == 1, p
    trace = next(p for p in published if p.name.endswith(".json.gz"))
    source = results / CPU_SET / "traces" / trace.name
    size = source.stat().st_size
    trace.write_bytes(b"")  # `: > docs/generated/traces/...`
    assert source.stat().st_size == size


def test_temporary_files_of_a_killed_build_are_removed(tmp_path):
    results = _results(tmp_path)
    docs = tmp_path / "project" / "docs"
    build.run(results, docs, workers=1)
    folder = build.cache_dir(docs)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = [folder / f".tmp-{dead.pid}-abc.json", folder / ".tmp-xyz.pkl"]
    for p in left:
        p.write_bytes(b"half")
    (folder / ".tmp-leftdir").mkdir()
    alive = folder / f".tmp-{os.getpid()}-mine.json"  # a build still writing it: kept
    alive.write_bytes(b"")
    build.run(results, docs, workers=1)
    assert not any(p.exists() for p in left) and not (folder / ".tmp-leftdir").exists()
    assert alive.exists()


class _Dropped:
    """A finalizer during which SIGTERM lands: Python prints the handler's exception and drops it."""

    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100_000):
            pass


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_sigterm_dropped_in_a_finalizer_still_stops_the_build(tmp_path, monkeypatch, capsys):
    results = _results(tmp_path)
    docs = tmp_path / "project" / "docs"
    real = render.render

    def rendering(*args, **kwargs):
        _Dropped()
        return real(*args, **kwargs)

    monkeypatch.setattr(render, "render", rendering)
    status = cli.main(["build", "--results", str(results), "--docs", str(docs)])
    err = capsys.readouterr().err
    assert status == 130 and not (docs / "generated").exists()
    assert "--resume" not in err and "interrupted" in err
    # the flag went with the command: the next build publishes
    monkeypatch.setattr(render, "render", real)
    assert cli.main(["build", "--results", str(results), "--docs", str(docs)]) == 0
    assert (docs / "generated").is_dir()


def test_an_interrupted_build_does_not_say_resume(tmp_path, monkeypatch, capsys):
    results = _results(tmp_path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(render, "render", interrupted)
    assert cli.main(["build", "--results", str(results), "--docs", str(tmp_path / "docs")]) == 130
    err = capsys.readouterr().err
    assert "--resume" not in err and "nothing was published" in err


def test_build_report_publishes_the_site_through_a_staging_folder():
    text = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    session = text[text.index("def build_report"):text.index("def tests")]
    assert '"mkdocs", "build"' not in session and "gen.report.publish_site" in session


def _project(tmp: Path) -> tuple[Path, Path]:
    project = build.copy_project(ROOT, tmp / "project")
    results = _results(tmp)
    build.run(results, project / "docs", workers=1)
    return project, results


@pytest.mark.slow
def test_a_failed_or_killed_site_build_leaves_the_old_site(tmp_path):
    project, _ = _project(tmp_path)
    site = project / "site"
    build.publish_site(project, site)
    old = build.digest(site)
    assert (site / "search" / "search_index.json").is_file()
    # strict mkdocs fails on a link to nowhere: the old site stays, whole
    (project / "docs" / "broken.md").write_text("# Broken\n\n[nowhere](nowhere.md)\n", encoding="utf-8")
    with pytest.raises(RuntimeError):
        build.publish_site(project, site)
    assert build.digest(site) == old
    (project / "docs" / "broken.md").unlink()
    # killed part way: the old site stays; the next publish removes what the killed one left
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "gen.report.publish_site"], cwd=project, env=env)
    time.sleep(1.5)
    proc.kill()
    proc.wait()
    assert build.digest(site) == old
    build.publish_site(project, site)
    assert not [p for p in project.iterdir() if p.name.startswith((".staging-", ".site.old-"))]
    assert (site / "index.html").is_file()


@pytest.mark.slow
def test_the_site_build_keeps_no_cache_of_its_own(tmp_path):
    """The search index is Material's, made from the pages on every build: no section or template kept
    in .cache/mkdocs (an edited section file reached the site's search index unescaped)."""
    project, _ = _project(tmp_path)
    build.publish_site(project, project / "site")
    assert not (project / ".cache" / "mkdocs").exists()


@pytest.mark.slow
def test_two_builds_of_different_results_in_one_checkout(tmp_path):
    """Two builds with different --results into one docs/ at once: both finish (each prunes the other's
    cache entries, which are then a miss), and the pages are one build's whole."""
    a = _results(tmp_path / "a")
    b = tmp_path / "b" / "results"
    shutil.copytree(ROOT / "results" / "nvidia-h200__cudnn-frontend-9.19.1", b / "nvidia-h200__cudnn-frontend-9.19.1")
    shutil.copytree(ROOT / "results" / CPU_SET, b / CPU_SET)
    docs = tmp_path / "project" / "docs"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for _ in range(3):
        procs = [subprocess.Popen([sys.executable, "-m", "gen", "build", "--results", str(r), "--docs", str(docs)],
                                  env=env, stderr=subprocess.PIPE, text=True) for r in (a, b)]
        errs = [p.communicate()[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0], errs
    assert (docs / "generated").is_dir()


def test_a_trace_recompressed_with_a_kernel_renamed_is_seen(tmp_path):
    """Issue 35: a trace re-compressed with an operator renamed (same length), its time put back: the
    set's key is its files' bytes, so the pages show the new name, as a cold build does."""
    results = _results(tmp_path)
    docs = tmp_path / "project" / "docs"
    build.run(results, docs, workers=1)
    before = _pages(docs)
    trace = results / CPU_SET / "traces" / "inference__naive.json.gz"
    st = trace.stat()
    raw = gzip.decompress(trace.read_bytes())
    assert b'"aten::_softmax"' in raw and not any(b"aten::_softmix" in v for v in before.values())
    trace.write_bytes(gzip.compress(raw.replace(b'"aten::_softmax"', b'"aten::_softmix"'), mtime=0))
    os.utime(trace, ns=(st.st_atime_ns, st.st_mtime_ns))
    build.run(results, docs, workers=1)
    after = _pages(docs)
    assert any(b"aten::_softmix" in v for v in after.values())
    assert after == _cold(results, tmp_path)


def test_a_stray_sparse_file_in_a_set_is_hashed_a_chunk_at_a_time(tmp_path):
    """Issue 35: a stray 2 GB file in a set folder cost 2 GB of memory (read whole to hash the set)."""
    results = _results(tmp_path)
    with open(results / CPU_SET / "stray.bin", "wb") as fh:
        fh.truncate(256 * 2**20)  # sparse: no disk used; a whole read would take 256 MiB
    tracemalloc.start()
    try:
        cache.set_key(results / CPU_SET)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20


def test_an_edited_page_of_a_copied_checkout_is_gone_after_a_rebuild_and_the_original_untouched(tmp_path):
    """Issue 35: pages were hard links into .cache/: an edit of a page survived `rm -rf docs/generated` and a
    rebuild, and a checkout copied with `cp -a` shared the original's cache."""
    results = _results(tmp_path)
    a = tmp_path / "a"
    build.run(results, a / "docs", workers=1)
    pages = _pages(a / "docs")
    b = tmp_path / "b"
    subprocess.run(["cp", "-a", str(a), str(b)], check=True)
    original = build.digest(a)
    page = next(p for p in (b / "docs" / "generated").rglob("*.md") if p.name != "index.md")
    page.write_text("EDITED\n", encoding="utf-8")
    assert build.digest(a) == original
    shutil.rmtree(b / "docs" / "generated")
    build.run(results, b / "docs", workers=1)  # warm: the pages from b's own cache
    assert _pages(b / "docs") == pages and build.digest(a) == original
