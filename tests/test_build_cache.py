"""The build's cache (gen.report.units, gen.report.cache): a set whose files did not change is
not read again, a new or changed set is made (and checked) whole, and whatever came from the
cache, the pages are byte for byte those of a build without it."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest

from benchmarks.bench_build import PUBLISHED, fabricate
from gen.analysis import loading, tables
from gen.model import trace, trace_digest
from gen.model.schema import UserError
from gen.report import build, cache, reading, units

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def _results(tmp: Path, n: int) -> tuple[Path, list[str]]:
    results = tmp / "results"
    for name in PUBLISHED[:1]:
        shutil.copytree(ROOT / "results" / name, results / name)
    return results, [fabricate(results, i, points=1).name for i in range(n)]


def _built(tmp: Path, n: int) -> tuple[Path, Path, str, list]:
    """_results(n) built into tmp/project/docs (one process, the cache on): (results, docs, the digest of its
    pages, the units it made, as `watched` sees them)."""
    results, _ = _results(tmp, n)
    docs = tmp / "project" / "docs"
    made, real = [], units.make
    units.make = lambda ctx, ls, part: made.append((ls.name, part)) or real(ctx, ls, part)
    try:
        build.run(results, docs, workers=1)
    finally:
        units.make = real
    return results, docs, build.digest(docs / "generated"), made


# Built once for the module: tests that need a build of the same sets to start from, or to compare with, copy
# it (built_copy) instead of making the same pages again.
@pytest.fixture(scope="module")
def one_set(tmp_path_factory):
    return _built(tmp_path_factory.mktemp("one-set"), 1)


@pytest.fixture(scope="module")
def two_sets(tmp_path_factory):
    return _built(tmp_path_factory.mktemp("two-sets"), 2)


@pytest.fixture(scope="module")
def three_sets_cold(tmp_path_factory, two_sets) -> str:
    """The digest of the pages of two_sets' sets and fabricate(2, points=1) built without the cache: the cold
    build that the warm builds of those sets (two_sets' build and cache, the third set added) must match to the
    byte. Made once for the module: the tests below each made the same build before."""
    results = tmp_path_factory.mktemp("three-sets-cold") / "results"
    shutil.copytree(two_sets[0], results)
    fabricate(results, 2, points=1)
    docs = results.parent / "docs"
    build.run(results, docs, use_cache=False, workers=1)
    return build.digest(docs / "generated")


def built_copy(built, tmp: Path) -> tuple[Path, Path, list[str]]:
    """A copy of a _built build's results and of its project (pages and cache) in tmp: (results, docs, the set
    names _results gives)."""
    results, docs = built[:2]
    shutil.copytree(results, tmp / "results")
    shutil.copytree(docs.parent, tmp / "project")
    return tmp / "results", tmp / "project" / "docs", sorted(p.name for p in results.iterdir()
                                                          if p.name not in PUBLISHED)


@pytest.fixture
def watched(monkeypatch):
    """The sets whose units were made, and the traces read (parsed, or made from the set's
    digest), during a build (one process)."""
    made, parsed = [], []
    real_make, real_parse, real_digested = units.make, trace.parse, trace_digest.Digest.trace

    def make(ctx, ls, part):
        made.append((ls.name, part))
        return real_make(ctx, ls, part)

    def parse(path):
        parsed.append(Path(path))
        return real_parse(path)

    def digested(self, path, rel):
        got = real_digested(self, path, rel)
        if got is not None:
            parsed.append(Path(path))
        return got

    monkeypatch.setattr(units, "make", make)
    monkeypatch.setattr(trace, "parse", parse)
    monkeypatch.setattr(trace_digest.Digest, "trace", digested)
    return made, parsed


def test_a_new_set_makes_only_its_own_pages(tmp_path, watched, two_sets, three_sets_cold):
    made, parsed = watched
    results, docs, names = built_copy(two_sets, tmp_path)  # built: the units that build made
    first, second = sorted(names)
    assert {(n, "own") for n in names} <= set(two_sets[3]) and (second, "pair") in two_sets[3]
    made.clear(), parsed.clear()
    build.run(results, docs, workers=1)  # nothing new: every set's pages from the cache, no trace read
    assert made == [] and parsed == []
    warm = build.digest(docs / "generated")
    new = fabricate(results, 2, points=1).name
    made.clear(), parsed.clear()
    build.run(results, docs, workers=1)
    assert {name for name, _ in made} == {new}  # the published set's pages stand: the same points measured
    assert {p.parent.parent.name for p in parsed} <= {new, first}  # and the first set's, to compare with
    assert {p for p in parsed if p.parent.parent.name == new} == set((results / new / "traces").iterdir())
    # Without the cache: the same bytes.
    assert build.digest(docs / "generated") == three_sets_cold != warm


def test_a_changed_set_is_read_and_checked_again(tmp_path, watched, two_sets):
    made, _ = watched
    results, docs, names = built_copy(two_sets, tmp_path)  # built, its cache written
    victim = results / sorted(names)[1]
    trace_file = next((victim / "traces").glob("sweep__*.json.gz"))
    trace_file.write_bytes(gzip.compress(gzip.decompress(trace_file.read_bytes()) + b" "))  # same events
    made.clear()
    build.run(results, docs, workers=1)
    assert {name for name, _ in made} == {victim.name}
    trace_file.write_bytes(trace_file.read_bytes()[:100])
    with pytest.raises(UserError, match=trace_file.name):
        build.run(results, docs, workers=1)


def test_a_damaged_cache_entry_is_made_again(tmp_path, one_set):
    results, docs, _ = built_copy(one_set, tmp_path)  # built, its cache written
    before = one_set[2]
    entries = sorted(build.cache_dir(docs).glob("*.json"))
    assert entries
    for e in entries:
        e.write_bytes(b"not an entry")
    build.run(results, docs, workers=1)
    assert build.digest(docs / "generated") == before
    assert all(e.read_bytes() != b"not an entry" for e in entries)


def test_sets_read_in_parallel_fail_as_one_by_one(tmp_path, forked_builds):
    """New sets' result.json are read and checked in worker processes: the same ResultSets and the same
    one-line errors as reading them one by one; without skip_broken the first broken set (by name) is the
    error, with it each broken set is skipped and the rest built."""
    results = tmp_path / "results"
    for name in PUBLISHED:
        shutil.copytree(ROOT / "results" / name, results / name)
    (results / PUBLISHED[1] / "result.json").write_text("{not json", encoding="utf-8")
    damaged = (results / PUBLISHED[2] / "result.json").read_text(encoding="utf-8").replace('"kind"', '"kind?"', 1)
    (results / PUBLISHED[2] / "result.json").write_text(damaged, encoding="utf-8")
    paths = [results / n for n in PUBLISHED]
    alone = [reading.load_one(p) for p in paths]
    together = reading.map_paths(reading.load_one, paths)
    assert [rs for rs, _ in together] == [rs for rs, _ in alone] and together[0][0] is not None
    assert [str(e) for _, e in together] == [str(e) for _, e in alone]
    assert [type(e) for _, e in together] == [type(e) for _, e in alone] and alone[1][1] and alone[2][1]
    with pytest.raises(UserError) as err:
        build.run(results, tmp_path / "docs", use_cache=False)
    assert str(err.value) == str(alone[1][1])
    build.run(results, tmp_path / "docs", skip_broken=True, use_cache=False)
    assert (tmp_path / "docs" / "generated").is_dir()


def test_published_sets_units_are_made_beside_the_measured_ones(tmp_path, monkeypatch, one_set, forked_builds):
    """A cold build makes the published sets' units in the worker tasks, after the measured sets' parts (a
    new set's parts split over the workers first), each whole (every part, as make_unit makes it): the main
    process no longer makes them one by one after the workers. One set to make, its parts in two worker
    processes (where forking is possible): the pages are those of one process (one_set's)."""
    results, (name,) = _results(tmp_path, 1)
    seen, real = [], units.run_tasks

    def run_tasks(ctx, tasks, workers=None, **kwargs):
        seen.extend((ls.name, parts) for ls, parts, _ in tasks)
        return real(ctx, tasks, workers, **kwargs)

    monkeypatch.setattr(units, "run_tasks", run_tasks)
    timings: dict = {}
    build.run(results, tmp_path / "docs", timings=timings)
    assert seen[-1] == (PUBLISHED[0], tuple(units.PARTS)) and {n for n, _ in seen[:-1]} == {name}
    assert "published sets' units" not in timings
    assert build.digest(tmp_path / "docs" / "generated") == one_set[2]  # those of one process


def test_a_damaged_digest_is_said_once_when_a_sets_parts_run_in_several_workers(tmp_path, capfd, forked_builds):
    """A new set (not the first, whose units are cached) has its parts run in several worker processes:
    its digest is read before they fork (each worker read it, and said a damaged one's note, before)."""
    results, (first,) = _results(tmp_path, 1)
    store = cache.Store(tmp_path / "cache")
    units.load(results, store)
    name = fabricate(results, 1, points=1).name
    (results / name / trace_digest.FILE).write_bytes(b"not gzip")
    capfd.readouterr()
    ctx, _ = units.load(results, store)
    notes = [line for line in capfd.readouterr().err.splitlines() if trace_digest.FILE in line]
    assert ctx.first.name == first and len(notes) == 1
    assert notes[0].startswith(f"note: {results / name / trace_digest.FILE}: unreadable")


def test_the_build_starts_without_importing_altair():
    """altair is imported where a chart is first made with it (gen.report.charts): a build with no page to
    make never imports it, its start 0.2 s shorter (benchmarks/bench_build.md)."""
    import subprocess
    import sys

    code = ("import sys; import gen.cli, gen.report.build, gen.report.units, gen.report.render, gen.report.site, "
            "gen.report.charts; from gen.report import cache; cache.code_key(); "
            "sys.exit('altair' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_a_rebuild_with_nothing_changed_reads_no_set_and_writes_nothing(tmp_path, watched, monkeypatch, capsys,
                                                                        one_set):
    """Nothing changed (the sets' files by content, the code, the limits): the pages in docs/generated are
    those the same build wrote, to the byte, so nothing is read or written; an edit of a page there, or of a
    set, and the build is made again (the edit gone, the set read)."""
    from gen.model import schema

    made, parsed = watched
    results, docs, names = built_copy(one_set, tmp_path)  # its units in the cache: the build below writes
    (results / "broken").mkdir()
    (results / "broken" / "result.json").write_text("{not json", encoding="utf-8")
    build.run(results, docs, workers=1, skip_broken=True)
    before = build.digest(docs / "generated")
    page = docs / "generated" / "sets" / f"{names[0]}.md"
    stamp = page.stat().st_mtime_ns
    loads = []
    real_load = schema.load_set
    monkeypatch.setattr(schema, "load_set", lambda path: loads.append(path) or real_load(path))
    monkeypatch.setattr(reading, "workers_for", lambda n: 1)  # the sets read in this process, where seen
    made.clear(), parsed.clear(), capsys.readouterr()
    build.run(results, docs, workers=1, skip_broken=True)
    assert made == [] and parsed == [] and loads == [] and page.stat().st_mtime_ns == stamp
    assert "skipped broken: " in capsys.readouterr().err  # said again
    page.write_text("edited", encoding="utf-8")
    build.run(results, docs, workers=1, skip_broken=True)
    assert build.digest(docs / "generated") == before and made == []  # the units from the cache
    assert loads == [results / "broken"]  # a kept set is not read again: its ResultSet is kept by content
    rj = results / names[0] / "result.json"
    data = json.loads(rj.read_text(encoding="utf-8"))
    data["environment"]["cpu"] = "Another CPU"
    rj.write_text(json.dumps(data), encoding="utf-8")
    build.run(results, docs, workers=1, skip_broken=True)
    assert results / names[0] in loads and build.digest(docs / "generated") != before


def test_a_site_built_from_the_same_sources_is_kept(tmp_path, monkeypatch):
    """publish_site: where site/ holds what mkdocs made from the same sources (configuration, docs/, overrides,
    code, libraries), by content, mkdocs is not run again; a changed page, or a site edited, and it is."""
    project = build.copy_project(ROOT, tmp_path / "project")
    results, _ = _results(tmp_path, 0)
    build.run(results, project / "docs", workers=1)
    site = project / "site"
    build.publish_site(project, site)
    before = build.digest(site)
    runs, real = [], build.mkdocs_build
    monkeypatch.setattr(build, "mkdocs_build", lambda *a, **k: runs.append(a) or real(*a, **k))
    build.publish_site(project, site)
    assert runs == [] and build.digest(site) == before
    (site / "index.html").write_text("edited", encoding="utf-8")
    build.publish_site(project, site)
    assert len(runs) == 1 and build.digest(site) == before
    methodology = project / "docs" / "methodology.md"
    methodology.write_text(methodology.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    build.publish_site(project, site)
    assert len(runs) == 2 and "One more line." in (site / "methodology.html").read_text(encoding="utf-8")


def test_lists_of_plain_values_and_of_others_come_back_equal():
    """cache.encode keeps a list of plain values as it is, and encodes the others item by item: NaN and the
    infinities (not JSON) and values of other types come back as they were."""
    import math

    values = [[1, 2.5, "a", None, True], [1.0, float("nan")], [float("inf"), -float("inf")], [(1, 2)], [[1], {1}]]
    back = cache.decode(json.loads(json.dumps(cache.encode(values), allow_nan=False)))
    assert back[0] == values[0] and math.isnan(back[1][1]) and back[2] == values[2] and back[3:] == values[3:]
    # a longer list of floats is packed: each comes back a float of the same bits (-0.0, NaN, infinities too)
    floats = [0.1, -0.0, 1e-310, float("inf"), -float("inf"), float("nan"), 2.0**60, 1 / 3]
    kept = cache.encode([floats, floats[:3] + [1]])
    assert "$floats" in json.dumps(kept[0]) and "$floats" not in json.dumps(kept[1])  # a list with an int: as is
    back = cache.decode(json.loads(json.dumps(kept, allow_nan=False)))
    assert [type(x) for x in back[0]] == [float] * len(floats) and back[1] == floats[:3] + [1]
    assert [math.copysign(1, x) for x in back[0]] == [math.copysign(1, x) for x in floats]
    assert back[0][:5] + back[0][6:] == floats[:5] + floats[6:] and math.isnan(back[0][5])


def _fabricated(results: Path, i: int, name: str | None = None) -> str:
    """fabricate(i, points=1), renamed where `name` is given (its folder and result.json): its name is all
    that orders it among the sets (the first set is the first GPU set by name)."""
    path = fabricate(results, i, points=1)
    if name is None:
        return path.name
    data = json.loads((path / "result.json").read_text(encoding="utf-8"))
    data["name"] = name
    (path / "result.json").write_text(json.dumps(data), encoding="utf-8")
    path.rename(results / name)
    return name


# The set one_set's pages change with when it is added: a newer A100 set (PyTorch 2.2.0, after one_set's 2.1.0),
# the published A100 set's partner (compare.partner: the newest measured set of its GPU); and the same under a name
# that orders it first, so that it is also the set every other set is compared with (units.first_gpu_set).
OTHER_SETS = {"partner": None, "first and partner": "nvidia-a100-sxm4-80gb__a-newer-torch"}


@pytest.mark.parametrize("other", OTHER_SETS)
def test_a_rebuild_after_adding_or_removing_a_set_is_a_cold_build(tmp_path, one_set, other):
    """A cached unit's pages read other sets (the published set's partner, the first set): adding a set that
    becomes one of them, or removing it, remakes what reads it. Each warm build writes, byte for byte, the
    pages of a cold build of the same sets (the build that added a set compared the published set with the
    old newest set; the build that removed it linked that set's pages, and check_links failed)."""
    # A cold build of one_set's sets and the other one: the pages to match, and a cache that holds that set
    results, docs, _ = built_copy(one_set, tmp_path / "small")
    big_results = tmp_path / "big" / "results"
    shutil.copytree(results, big_results)
    name = _fabricated(big_results, 5, OTHER_SETS[other])
    big_docs = tmp_path / "big" / "project" / "docs"
    build.run(big_results, big_docs, workers=1)
    cold_big = build.digest(big_docs / "generated")
    assert cold_big != one_set[2]
    # (a) one_set's build and cache, the set added
    shutil.copytree(big_results / name, results / name)
    build.run(results, docs, workers=1)
    assert build.digest(docs / "generated") == cold_big
    # (b) the bigger build's cache, the set removed
    shutil.rmtree(big_results / name)
    build.run(big_results, big_docs, workers=1)
    assert build.digest(big_docs / "generated") == one_set[2]


def test_a_new_set_decodes_the_kept_sets_its_pages_read_only(tmp_path, monkeypatch, two_sets, three_sets_cold):
    """A kept set is read as its outline (gen.analysis.loading.SetOutline), its ResultSet decoded only where
    something asks for it: with a set added, the first set (its pages compare the new set with it), never the
    other kept set, whose pages and facts come from the cache. The pages are a cold build's."""
    results, docs, names = built_copy(two_sets, tmp_path)
    first, second = sorted(names)
    decoded, real = [], reading._kept
    monkeypatch.setattr(reading, "_kept", lambda store, k, path: decoded.append(path.name) or real(store, k, path))
    fabricate(results, 2, points=1)
    build.run(results, docs, workers=1)
    assert first in decoded and second not in decoded and set(decoded) <= {first, *PUBLISHED}
    assert build.digest(docs / "generated") == three_sets_cold


@pytest.mark.parametrize("kind", ["outline", "set"])
def test_a_damaged_outline_or_result_set_entry_is_read_again(tmp_path, two_sets, three_sets_cold, kind):
    """Damaged outlines: each set is read again (its kept ResultSet, or its files) and its outline kept anew.
    Damaged ResultSets under good outlines: a set whose ResultSet is asked for (the first set, which a new set's
    pages compare with) is read from its files again. Either way, a cold build's pages."""
    results, docs, names = built_copy(two_sets, tmp_path)
    entries = sorted(build.cache_dir(docs).glob(f"{kind}-*.json"))
    assert len(entries) == 2 + len(PUBLISHED[:1])
    for e in entries:
        e.write_bytes(b"not an entry")
    fabricate(results, 2, points=1)
    build.run(results, docs, workers=1)
    assert build.digest(docs / "generated") == three_sets_cold
    store = cache.Store(build.cache_dir(docs))
    # (a set whose ResultSet nothing asked for keeps its damaged entry until something does)
    read = sorted(p.name for p in results.iterdir()) if kind == "outline" else [sorted(names)[0]]
    for name in read:
        entry = reading.set_entry(cache.set_key(results / name))
        assert loading.outline_of(store.get("set", entry)) == store.get("outline", entry), name


def test_a_sets_outline_is_its_records_without_their_numbers(h200):
    """The outline holds what the pages over all sets read of a set: its machine, configuration and scenarios
    as the ResultSet has them, and each run and sweep point's call, status and trace in the same order."""
    o = loading.outline_of(h200.rs)
    assert (o.name, o.kind, o.environment, o.config, o.scenarios) == \
        (h200.rs.name, h200.rs.kind, h200.rs.environment, h200.rs.config, h200.rs.scenarios)
    for records, full in ((o.runs, h200.rs.runs), (o.sweep, h200.rs.sweep)):
        assert [(r.variant, r.mode, r.scenario, r.status, r.point, r.trace) for r in records] == \
            [(r.variant, r.mode, r.scenario, r.status, r.point, r.trace) for r in full]
    assert o.run("naive") == next(r for r in o.runs if r.variant == "naive" and r.mode == "inference")
    assert o.scenario("decode") == h200.rs.scenario("decode")
    kept = tables.LoadedSet(h200.name, h200.path, outline=o, load=lambda: h200.rs)
    assert kept.measured and kept.environment is h200.rs.environment and kept.rs is h200.rs


def test_pages_that_did_not_change_are_the_old_files_linked(tmp_path, two_sets, three_sets_cold):
    """A rebuild links each page (and trace) whose file in the old docs/generated holds the same bytes, instead of
    writing it again (the old folder's removal then frees nothing of it); a page edited there, or a file that
    something else links too, is written anew. The pages are those of a cold build."""
    results, docs, names = built_copy(two_sets, tmp_path)
    generated = docs / "generated"
    first_page = generated / "sets" / f"{sorted(names)[0]}.md"
    edited = generated / "sets" / f"{sorted(names)[1]}.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "edited", encoding="utf-8")
    shared = next((generated / "traces").rglob("*.json.gz"))
    os.link(shared, tmp_path / "elsewhere")  # linked from outside docs/generated: not to be shared further
    inodes = {p: p.stat().st_ino for p in (first_page, edited, shared)}
    fabricate(results, 2, points=1)
    build.run(results, docs, workers=1)
    assert first_page.stat().st_ino == inodes[first_page]
    assert edited.stat().st_ino != inodes[edited] and not edited.read_text(encoding="utf-8").endswith("edited")
    assert shared.stat().st_ino != inodes[shared] and shared.stat().st_nlink == 1
    assert build.digest(generated) == three_sets_cold
