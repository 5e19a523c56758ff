"""One set's share of the build: the pages that show only it, and the facts the pages over
all sets read, made once per set (in parallel across sets) and cached by the set's content.

Takes: a `site.Context` and the sets. Gives: `Unit` (pages and facts of one set),
`set_context(ctx, ls)` (what a set's builders may read: the set, the published sets
and the set it is compared against), `make(ctx, ls, part)`, `make_all(ctx, workers)`,
and `load(...)`, the build's path: each set's unit from the cache when its files, the
published sets, the compared set and the code are unchanged, made otherwise.

A unit has parts, so that a change reaches only what it changes:
- "own": the set's page, its variant, findings and scaling pages; "sweep": its scenario pages
  (both read the set and the published sets, "own" the first set too: its page links the comparison;
  apart, and of about the same cost, so that one new set runs on two cores);
- "pair": the page comparing the first measured GPU set with this one (it reads both).
Published (reference) sets hold no traces; their pages read the first set, the set each is compared
with (the newest measured set of its GPU) and the measured sets' scenarios and points: their one part.
A part's key holds every other set its pages read, by name and content (`_reads`): what a part read
from the cache is what a cold build of the same sets makes, whatever sets were built before.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing as mp
import os
import resource
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from gen.analysis import capture_gaps, compare, length_cost, tables
from gen.analysis import scenarios as scenario_analysis
from gen.model import schema
from gen.model.schema import SetKind, UserError
from gen.report import cache, charts, prerender, reading, site
from gen.report import format as fmt
from gen.report.pages import compare as compare_pages
from gen.report.pages import dynamic, findings, kernel_story, methodology, scaling, scenarios, sets, variants, verdict
from gen.report.site import Context, Page

# Per-set builders and facts (name -> facts(ctx, ls)) by part, parts in the order their pages
# are listed: "own" and "sweep" read the set (and the published sets), "own" and "pair" the first set too (_reads).
# "sweep" is apart from "own" so that one new set's work runs on two cores.
PARTS: dict[str, tuple[list[Callable[[Context, tables.LoadedSet], Iterable[Page]]], dict[str, Callable]]] = {
    "own": ([sets.set_pages, variants.set_pages, findings.set_pages, scaling.set_pages, kernel_story.set_pages],
            {"summary": sets.facts, "host_reference": sets.host_reference, "verdict": verdict.facts,
             "variants": variants.facts, "findings": findings.facts, "method": methodology.facts,
             "scaling": scaling.facts}),
    "sweep": ([scenarios.set_pages, dynamic.set_pages],
              {"scenarios": scenarios.facts, "beside": scenarios.beside, "dynamic": dynamic.facts}),
    "pair": ([compare_pages.set_pages], {"compare": compare_pages.facts}),
}


@dataclass
class Unit:
    pages: list[Page] = field(default_factory=list)
    facts: dict = field(default_factory=dict)
    cpu: dict = field(default_factory=dict)  # stage -> CPU seconds it took to make (for benchmarks)
    links: dict = field(default_factory=dict)  # converted page -> its relative links (build.check_links)

    def add(self, other: Unit) -> Unit:
        return Unit(self.pages + other.pages, {**self.facts, **other.facts}, _sum(self.cpu, other.cpu),
                    {**self.links, **other.links})


def _sum(*dicts: dict) -> dict:
    out: dict = {}
    for d in dicts:
        for k, v in d.items():
            out[k] = out.get(k, 0.0) + v
    return out


def _timed(cpu: dict, stage: str, fn, *args):
    t = time.process_time()
    try:
        return fn(*args)
    finally:
        cpu[stage] = cpu.get(stage, 0.0) + time.process_time() - t


def first_gpu_set(all_sets: list[tables.LoadedSet]) -> tables.LoadedSet | None:
    """The set every other set is compared with (gen.analysis.compare.default_pair's A)."""
    pair = compare.default_pair(all_sets)
    return pair[0] if pair else None


def references(all_sets: list[tables.LoadedSet]) -> list[tables.LoadedSet]:
    return [s for s in all_sets if s.kind == SetKind.REFERENCE]


# the parts whose pages cite what a sibling set measured at new lengths (Context.lengths_beside): the set page
# ("own") and its dynamic-lengths scenario page ("sweep"); their keys hold the siblings (_reads)
BESIDE_PARTS = ("own", "sweep")


def set_context(ctx: Context, ls: tables.LoadedSet, parts=BESIDE_PARTS) -> Context:
    """What the builders of one set's `parts` read: a measured set with the published sets beside it
    (so its pages are a function of its files and theirs); a published set with every set."""
    first = ctx.first if ctx.first is not None else first_gpu_set(ctx.sets)
    if ls.kind == SetKind.REFERENCE:
        return Context(ctx.sets, ctx.skipped, first=first, prerender=ctx.prerender)
    # a sibling is read (decoded, where kept) only for the parts that cite it
    beside = lengths_beside(ctx.sets, ls) if set(parts) & set(BESIDE_PARTS) else None
    scenarios = {n: (o.name, fmt.set_title(o)) for n, o in capture_gaps.measured_beside(ctx.sets, ls).items()} \
        if set(parts) & set(BESIDE_PARTS) else {}
    return Context([ls] + [s for s in references(ctx.sets) if s is not ls], first=first, prerender=ctx.prerender,
                   lengths_beside=beside, scenarios_beside=scenarios)


def lengths_beside(sets, ls: tables.LoadedSet):
    """What the first of `ls`'s siblings (capture_gaps.siblings: same GPU model and PyTorch) that measured cuDNN at new
    lengths measured (length_cost.Beside), for a set that did not: a fact its pages cite;
    the siblings are in the keys of the parts that cite it (BESIDE_PARTS, _reads)."""
    if length_cost.beside(ls, "") is not None:  # its own measurement is what its pages give
        return None
    return next((b for o in capture_gaps.siblings(sets, ls) if (b := length_cost.beside(o, fmt.set_title(o)))), None)


def make(ctx: Context, ls: tables.LoadedSet, part: str) -> Unit:
    """One part of one set's unit, with `ctx` = set_context(...)."""
    builders, facts = PARTS[part]
    if part == "pair" and (ctx.first is None or ctx.first is ls):
        return Unit()
    cpu: dict = {}
    pages = [p for b in builders for p in _timed(cpu, _stage(b), lambda b=b: list(b(ctx, ls)))]
    made = Unit(pages, {name: _timed(cpu, "facts", f, ctx, ls) for name, f in facts.items()}, cpu)
    if ctx.prerender is not None:  # the set's pages (its own and its page in the navigation) leave as HTML
        made.pages = [Page(p.path, _timed(cpu, "Markdown to HTML", ctx.prerender.page, p.text), p.nav, p.copy_from)
                      if _converted(p, ls) else p for p in made.pages]
        made.links = {p.path: prerender.links(p.text) for p in made.pages if _converted(p, ls)}
    return made


def _converted(page: Page, ls: tables.LoadedSet) -> bool:
    """A page the build converts to HTML: a set's page and its own pages (mkdocs' hook puts a
    searched page's body back before the search index reads it)."""
    return page.text is not None and (page.path.startswith(fmt.set_dir(ls.name) + "/")
                                      or page.path == fmt.set_page(ls.name))


def _stage(builder) -> str:
    return f"{builder.__module__.rsplit('.', 1)[-1]} pages"


def make_unit(ctx: Context, ls: tables.LoadedSet) -> Unit:
    sub = set_context(ctx, ls)
    unit = Unit()
    for part in PARTS:
        unit = unit.add(make(sub, ls, part))
    return unit


_FORKED: tuple | None = None  # what a forked worker inherits: (ctx, tasks, keep)


def _run_task(i: int):
    """(parts made, error) of one task."""
    ctx, tasks, keep = _FORKED
    ls, parts, check = tasks[i]
    try:
        cpu: dict = {}
        if check:
            _timed(cpu, "parse and check traces", ls.check_traces)
        sub = set_context(ctx, ls, parts)
        got = {part: make(sub, ls, part) for part in parts}
        got[parts[0]].cpu = _sum(got[parts[0]].cpu, cpu)
        if keep is not None:
            keep(ls, got)
        return got, None
    except schema.UserError as exc:  # a trace that does not parse: one line naming it
        return None, str(exc)


def run_tasks(ctx: Context, tasks: list[tuple[tables.LoadedSet, tuple[str, ...], bool]],
              workers: int | None = None, keep: Callable[[tables.LoadedSet, dict], None] | None = None,
              meanwhile: Callable[[], None] | None = None) -> list[tuple[dict | None, str | None]]:
    """(parts made, error) per task (a set, the parts to make, whether to check its traces first),
    in parallel processes where there are several; the results are the same either way. `keep(set, parts
    made)` runs in the process that made them (the cache's JSON of them is then made in parallel too);
    `meanwhile()` runs in this process while the workers make them (after them without workers)."""
    global _FORKED
    workers = reading.workers_for(len(tasks)) if workers is None else workers
    if workers > 1:
        # A worker draws with Altair where a chart's shape is new, the build's process for the pages over
        # all sets: imported once, before the fork, for them all (not once per worker)
        charts.preload()
    _FORKED = (ctx, tasks, keep)
    try:
        if workers > 1:
            with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork"), initializer=reading.start_worker,
                                     initargs=(os.getpid(),)) as pool:
                # Costliest first (most traces), so the workers finish together.
                order = sorted(range(len(tasks)), key=lambda i: -len(tasks[i][0].rs.sweep) - len(tasks[i][0].rs.runs))
                futures = {i: pool.submit(_run_task, i) for i in order}
                if meanwhile is not None:
                    meanwhile()
                done = [futures[i].result() for i in range(len(tasks))]
        else:
            done = [_run_task(i) for i in range(len(tasks))]
            if meanwhile is not None:
                meanwhile()
    finally:
        _FORKED = None
    return done


def make_all(ctx: Context, workers: int | None = None) -> dict[str, Unit]:
    """Every set's unit, made now (no cache): the sets are loaded and checked already."""
    first = first_gpu_set(ctx.sets)
    full = Context(ctx.sets, ctx.skipped, first=first, prerender=ctx.prerender)
    measured = [ls for ls in ctx.sets if ls.kind != SetKind.REFERENCE]
    done = run_tasks(full, [(ls, tuple(PARTS), False) for ls in measured], workers)
    units = {}
    for ls, (parts, error) in zip(measured, done):
        if error:
            raise UserError(error)
        units[ls.name] = Unit()
        for part in PARTS:
            units[ls.name] = units[ls.name].add(parts[part])
    for ls in references(ctx.sets):
        units[ls.name] = make_unit(full, ls)
    return {ls.name: units[ls.name] for ls in ctx.sets}


# --------------------------------------------------------------------------- the build's path, with the cache


SET_TEMPLATES = ("set.md.j2", "variant.md.j2", "findings_page.md.j2", "scaling_page.md.j2", "scenario_page.md.j2",
                 "compare_page.md.j2", "dynamic_page.md.j2",
                 "fa4_kernels.md.j2")  # what a set's own pages render (and the templates they include)


def _compile_templates() -> None:
    env = site.shared_environment()
    for name in SET_TEMPLATES:
        env.get_template(name)


def _check_shared(ctx: Context, refs, fresh: set[str], pairs: bool) -> tuple[str, str] | None:
    """Check, before the workers start, the fresh sets that other sets' pages read (the
    published sets, and the first set where a comparison is to be made): a bad trace of
    theirs is their error, not their reader's. Parsed here, the workers inherit them."""
    shared = list(refs) + ([ctx.first] if pairs and ctx.first is not None else [])
    for ls in shared:
        if ls.name in fresh:
            try:
                ls.check_traces()
            except schema.UserError as exc:
                return ls.name, str(exc)
            fresh.discard(ls.name)
    return None


@dataclass
class _Plan:
    """One pass of the build over the sets: what each part's cache key is, what is made."""

    code: str
    keys: dict[str, str]  # set name -> cache.set_key
    fresh: set[str] = field(default_factory=set)  # sets with parts to make: their traces are checked first
    made: dict[str, Unit] = field(default_factory=dict)  # cache key -> part, across passes
    kept: set[str] = field(default_factory=set)  # keys of parts in the cache, read while the workers make the rest
    damaged: set[str] = field(default_factory=set)  # keys whose entry did not read back: made in the next pass
    part_keys: dict[tuple[str, str], str] = field(default_factory=dict)
    cpu: dict = field(default_factory=dict)  # stage -> CPU seconds of the parts made now


def _part_keys(ctx: Context, plan: _Plan, ls: tables.LoadedSet) -> dict[str, str]:
    """The cache key of each part of a set: the code, the set's files and what else the part reads (_reads)."""
    parts = ("published",) if ls.kind == SetKind.REFERENCE else \
        ("own", "sweep") + (("pair",) if ctx.first is not None and ctx.first is not ls else ())
    return {part: cache.key(plan.code, part, ls.name, plan.keys[ls.name], *_reads(ctx, plan, ls, part))
            for part in parts}


def _reads(ctx: Context, plan: _Plan, ls: tables.LoadedSet, part: str) -> list[str]:
    """The name and content key of every other set a part's pages read, chosen as the builders choose it: every
    part the published sets; "own" and "pair" the first set (its page links the comparison; "pair" is it);
    "published" the first set, its partner (compare.partner: its GPU's newest measured set) and _list_digest."""
    def named(s: tables.LoadedSet | None) -> list[str]:
        return [s.name, plan.keys[s.name]] if s is not None else ["-"]

    out = [x for r in references(ctx.sets) for x in named(r)]
    if part in ("own", "pair", "published"):
        out += named(ctx.first)
    if part in BESIDE_PARTS and ls.kind == SetKind.MEASURED:  # Context.lengths_beside and scenarios_beside
        out += [x for s in capture_gaps.siblings(ctx.sets, ls) for x in named(s)]
    if part == "published":
        out += named(compare.partner(ls, ctx.sets, ctx.first))
        out.append(ctx._once(("list digest",), lambda: _list_digest(ctx)))
    return out


def _list_digest(ctx: Context) -> str:
    """What a published set's pages read of the measured sets beyond its partner and the first set: per
    scenario its title, the modes measured there and the points measured by dtype width
    (gen.analysis.scenarios.anchor_frame matches published figures to them; scenarios.beside shows a figure in a
    mode measured), and where a link to it leads (scenarios.link_of: one set's own page of it, or the page over
    every set)."""
    measured = [ls for ls in ctx.sets if ls.measured]
    out = []
    for n in scenario_analysis.scenario_names(measured):
        modes = sorted({str(p.mode) for ls in measured for p in ls.outline.sweep if p.scenario == n})
        out.append(repr((n, scenario_analysis.scenario_title(measured, n), modes,
                         scenario_analysis.our_points(measured, n), scenarios.link_of(ctx, n))))
    return cache.key(*out)


def _tasks(ctx: Context, plan: _Plan, store: cache.Store | None, workers: int | None) -> list:
    """The parts of measured sets to make now (neither made in this build nor in the cache), as
    tasks (a set, its parts, whether to check its traces first). With fewer tasks than worker
    processes, a set's parts go to several, so that one new set's work runs on every core."""
    tasks, published = [], []
    for ls in ctx.sets:
        parts = _part_keys(ctx, plan, ls)
        missing = []
        for part, k in parts.items():
            plan.part_keys[(ls.name, part)] = k
            if k not in plan.made:
                if store is not None and k not in plan.damaged and store.has("unit", k):
                    plan.kept.add(k)
                else:
                    missing.append(part)
        plan.fresh |= {ls.name} if missing else set()
        if missing and ls.kind != SetKind.REFERENCE:
            tasks.append((ls, tuple(missing), ls.name in plan.fresh))
        elif missing:  # a published set's one part: every part of its unit (make_unit), beside the others
            published.append((ls, tuple(PARTS), False))
    if 0 < len(tasks) < reading.workers_for(2 * len(tasks)) and workers != 1:
        split = []
        for ls, parts, check in tasks:  # the traces are checked in the first, parsed as needed in the others
            split += [(ls, (part,), check and i == 0) for i, part in enumerate(parts)]
            if len(parts) > 1:
                ls.digest()  # read here once, not in each worker (a damaged one's note said once)
        tasks = split
    return tasks + published


def _put(store: cache.Store, k: str, unit: Unit) -> Unit:
    """Keep a unit (its pages' texts and its facts, as JSON: gen.report.cache). Returns it."""
    store.put("unit", k, dataclasses.replace(unit, cpu={}))
    return unit


def _get(store: cache.Store, k: str) -> Unit | None:
    """A kept unit, or None where there is none or what is kept is not a unit of pages written
    from text under the generated folder (made again)."""
    unit = store.get("unit", k)
    if not isinstance(unit, Unit) or not isinstance(unit.pages, list) or not isinstance(unit.facts, dict) \
            or not isinstance(unit.links, dict):
        return None
    for p in unit.pages:
        if not isinstance(p, Page) or not isinstance(p.path, str) or not isinstance(p.text, str) \
                or p.copy_from is not None or not p.path.startswith(f"{fmt.GENERATED}/") or ".." in p.path.split("/"):
            return None
    return unit


def _read_kept(plan: _Plan, store: cache.Store | None) -> None:
    """The kept parts' units, read from the cache (run_tasks' `meanwhile`: while the workers make the other
    parts); an entry that does not read back (_get) is damaged, its part made in the next pass."""
    for k in sorted(plan.kept):
        got = _get(store, k) if store is not None else None
        if got is None:
            plan.damaged.add(k)
        else:
            plan.made[k] = got
    plan.kept.clear()


def _as_kept(ls: tables.LoadedSet, got: dict[str, Unit]) -> dict[str, Unit]:
    """A task's parts as the cache keeps them: a published set's as one unit, as make_unit makes it."""
    return {"published": _joined([got[part] for part in PARTS])} if ls.kind == SetKind.REFERENCE else got


def _putter(plan: _Plan, store: cache.Store):
    """run_tasks' `keep`: each part put in the cache under its key (_Plan.part_keys) by the process that made it."""
    def keep(ls: tables.LoadedSet, got: dict[str, Unit]) -> None:
        for part, unit in _as_kept(ls, got).items():
            _put(store, plan.part_keys[(ls.name, part)], unit)

    return keep


def _keep(plan: _Plan, store: cache.Store | None, tasks: list, results: list, skip_broken: bool) -> list:
    """Record what the tasks made (each part is in the cache already: _putter); the sets whose traces failed,
    as Skipped (or raise)."""
    failed = []
    for (ls, _, _), (got, error) in zip(tasks, results):
        if error:
            if not skip_broken:
                raise UserError(error)
            if ls.name not in {f.name for f in failed}:  # once, whichever of its parts met it
                failed.append(tables.Skipped(ls.name, error))
            continue
        plan.fresh.discard(ls.name)  # checked whole by its task
        for unit in got.values():
            plan.cpu = _sum(plan.cpu, unit.cpu)
        for part, unit in _as_kept(ls, got).items():
            k = plan.part_keys[(ls.name, part)]
            plan.made[k] = unit
            if store:
                store.keep("unit", k)  # written by the process that made it: not pruned
    return failed


def _joined(parts: list[Unit]) -> Unit:
    unit = Unit()
    for part in parts:
        unit = unit.add(part)
    return unit


def load(results_root: Path, store: cache.Store | None, skip_broken: bool = False,
         check: Callable[[list[tables.LoadedSet]], None] | None = None,
         workers: int | None = None, prerender=None, timings: dict | None = None,
         keys: dict[str, str] | None = None) -> tuple[Context, dict[str, Unit]]:
    """The sets under results_root and each one's unit. A set whose files are in the cache
    is not read again (its outline comes from the cache, its ResultSet too where a page asks for it, its
    traces are parsed only if a page still needs them: gen.report.reading); a new or changed set is loaded
    and checked whole, as
    tables.load_sets does. `check(sets)` runs once every set's ResultSet is known.
    A set whose trace fails is skipped (skip_broken) and the rest made again without it:
    the first set, hence the comparisons, may change. `timings` (if given) gets, per stage,
    [wall seconds or None, CPU seconds] (the CPU of the sets' units summed over the workers).
    `keys`: set name -> its key, where the caller made them (reading.set_keys) for the same files."""
    watch = Stopwatch(timings)
    code = cache.key(cache.code_key(), prerender.key() if prerender is not None else "markdown")
    with watch("read the sets (content hash, ResultSet)"):
        loaded, skipped, keys = reading.read_sets(results_root, skip_broken, store, keys)
    plan = _Plan(code, keys)
    if check:
        check(loaded)
    while True:
        gone = {s.name for s in skipped}
        all_sets = [ls for ls in loaded if ls.name not in gone]
        ctx = Context(all_sets, skipped, first=first_gpu_set(all_sets), prerender=prerender)
        plan.part_keys = {}  # this pass's parts: a set skipped may change the first set, hence the pairs
        tasks = _tasks(ctx, plan, store, workers)
        error = _check_shared(ctx, references(all_sets), plan.fresh, any("pair" in t[1] for t in tasks))
        if error is not None:
            if not skip_broken:
                raise UserError(error[1])
            skipped.append(tables.Skipped(*error))
            continue
        with watch("make the new sets' units (in workers)"):
            if tasks:
                _compile_templates()  # once, before the workers fork: each inherits them compiled
            made = run_tasks(ctx, tasks, workers, keep=_putter(plan, store) if store else None,
                             meanwhile=lambda: _read_kept(plan, store))
            failed = _keep(plan, store, tasks, made, skip_broken)
        if not failed and not set(plan.part_keys.values()) - plan.made.keys():
            break  # every part of this pass is made or read (a damaged entry's part is made in another pass)
        skipped.extend(failed)
    units = _units(ctx, plan, store, watch)
    if store:
        store.prune()
    for stage, cpu in plan.cpu.items():
        watch.add(f"  in the units: {stage}", None, cpu)
    return ctx, units


def _units(ctx: Context, plan: _Plan, store: cache.Store | None, watch: Stopwatch) -> dict[str, Unit]:
    """Each set's unit, in the sets' order: a measured set's parts as made or cached; a published
    set's (it reads every measured set's scenario points) cached as one part, made here if new."""
    units: dict[str, Unit] = {}
    for ls in ctx.sets:
        unit = Unit()
        if ls.kind == SetKind.REFERENCE:
            k = plan.part_keys[(ls.name, "published")]
            if k not in plan.made:
                with watch("published sets' units"):
                    plan.made[k] = make_unit(ctx, ls)
                if store:
                    plan.made[k] = _put(store, k, plan.made[k])
            units[ls.name] = plan.made[k]
            continue
        for part in PARTS:
            if (ls.name, part) in plan.part_keys:
                unit = unit.add(plan.made[plan.part_keys[(ls.name, part)]])
        units[ls.name] = unit
    return units


class Stopwatch:
    """Wall and CPU seconds per stage into a dict (stage -> [wall, cpu]); a no-op without one.
    CPU counts this process and the worker processes it waited for."""

    def __init__(self, into: dict | None):
        self.into = into

    def add(self, stage: str, wall: float | None, cpu: float) -> None:
        if self.into is not None:
            w, c = self.into.get(stage, [None, 0.0])
            self.into[stage] = [None if wall is None else (w or 0.0) + wall, c + cpu]

    @contextlib.contextmanager
    def __call__(self, stage: str):
        if self.into is None:
            yield
            return
        t, c = time.perf_counter(), _cpu()
        try:
            yield
        finally:
            self.add(stage, time.perf_counter() - t, _cpu() - c)


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
