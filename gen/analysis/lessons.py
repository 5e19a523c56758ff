"""The seed article's lessons for a set: each lesson's facts, whether this set bears it out, and why not.

Takes: a loaded set (gen.analysis.tables), its verdict (gen.analysis.verdicts) and each lesson's facts
(gen.analysis.lesson_facts, whose names it re-exports). Gives `lessons(ls) -> Lessons` (every lesson of a
measured GPU set, and the lesson-level claim of each variant), `claims(ls)` (per variant, does the
article's lesson hold here, apart from the hypothesis's counts, which findings check) and
`explain(ls, hyp)`: for each contradicted hypothesis item, what differs and the kernels behind it.

No sentences: gen.report's wording says them, citing the article.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from gen.analysis import findings, kernel_rules, tables, verdicts
from gen.analysis.lesson_facts import (  # noqa: F401
    CudnnCosts,
    EfficientKernel,
    FlashOccupancy,
    HiddenCopy,
    KernelRef,
    MathBackend,
    _kt,
    _memsets,
    _refs,
    attention_flops,
    cudnn_costs,
    efficient_kernel,
    flash_occupancy,
    hidden_copy,
    math_backend,
    timed_rows,
)
from gen.analysis.values import missing, variant_role
from gen.model import reference, schema
from gen.model.variants import VARIANTS

# --------------------------------------------------------------------------- claims and contradictions


@dataclass(frozen=True)
class Claim:
    """The article's lesson for one variant, and whether this set bears it out."""

    variant: str
    key: str  # hidden_copy, copy_removed, math_reference, efficient_fused, flash_fastest, flash_on_chip,
    #           cudnn_planning
    holds: bool | None  # None: the set cannot tell


def claims(ls: tables.LoadedSet) -> list[Claim]:
    """The article's lessons this set bears out or not (made once per set: each variant's page asks)."""
    key = ("claims",)
    if key not in ls._tables:
        ls._tables[key] = tuple(_claims(ls))
    return list(ls._tables[key])


def _parts(ls: tables.LoadedSet) -> tuple:
    """(hidden_copy, math_backend, efficient_kernel, flash_occupancy, cudnn_costs) of the set, made once:
    lessons and claims both read them (frozen records: shared as they are)."""
    key = ("lesson parts",)
    if key not in ls._tables:
        rows = timed_rows(ls)
        ls._tables[key] = (hidden_copy(ls, rows), math_backend(ls, rows), efficient_kernel(ls),
                           flash_occupancy(ls, rows), cudnn_costs(ls, rows))
    return ls._tables[key]


def _claims(ls: tables.LoadedSet) -> list[Claim]:
    v = verdicts.verdict(ls)
    hc, mb, ek, fo, cc = _parts(ls)
    out: list[Claim] = []
    if hc:
        out.append(Claim(hc.variant, "hidden_copy", bool(hc.copies)))
        if hc.inplace_memcpys is not None:
            out.append(Claim(hc.inplace, "copy_removed", hc.inplace_memcpys == 0 and (
                hc.inplace_events is not None and hc.events - hc.inplace_events == len(hc.copies))))
    if mb:
        slowest = bool(v and v.ranking and v.ranking[-1] == mb.variant)
        out.append(Claim(mb.variant, "math_reference", mb.holds and slowest))
    if ek:
        out.append(Claim(ek.variant, "efficient_fused", ek.holds))
    if fo:
        fastest = None if v is None else (v.fastest.variant == fo.variant or fo.variant in v.same_kernel)
        out.append(Claim(fo.variant, "flash_fastest", fastest))
        out.append(Claim(fo.variant, "flash_on_chip", fo.holds))
    if cc:
        out.append(Claim(cc.variant, "cudnn_planning", cc.holds))
    # What SDPA picks unpinned is the hypothesis's claim (findings' backend check), not the article's.
    return out


@dataclass(frozen=True)
class Explanation:
    """Why one hypothesis item is contradicted: what differs, and the kernels behind it."""

    variant: str
    item: str  # kernels, copy_or_fill, tensor_cores, rank, backend
    expected: object
    measured: object
    cause: str  # memset: sub-µs memsets a library adds; events: other kernels; backend: another
    #             backend picked; beaten: ranked behind variants expected slower; ahead: ranked ahead of
    #             variants expected faster (both with their main kernels' arch); off_tensor_cores
    kernels: tuple[KernelRef, ...] = ()
    without: int | None = None  # the count with the sub-µs memsets left out
    faster: tuple[tuple[str, int | None], ...] = ()  # (variant, its main kernel's arch): the other side of the
    #                                                  rank swap, or for backend the pinned twin
    arch: int | None = None  # this variant's main kernel's arch
    lesson_stands: bool | None = None  # the article's lesson for the variant, apart from the count
    expected_ran: bool | None = None  # for backend: the expected backend, pinned, ran in this set
    main_kernels: tuple[tuple[str, str | None], ...] = ()  # rank: (variant, its main kernel's name), this
    #                                                        variant first, then those in `faster`


def _explain_kernels(name, h, kt, stands) -> Explanation:
    ms = _memsets(kt)
    without = len(kt) - len(ms)
    cause = "memset" if len(ms) and without == h["expected_kernels"] else "events"
    return Explanation(name, "kernels", int(h["expected_kernels"]), len(kt), cause,
                       _refs(name, ms if cause == "memset" else kt), without, lesson_stands=stands)


def _explain_copy(name, h, kt, stands) -> Explanation:
    copies = findings.copy_events(kt)  # the one definition the Findings page uses too
    only_memsets = bool(len(copies)) and set(copies["index"]) <= set(_memsets(kt)["index"])
    return Explanation(name, "copy_or_fill", bool(h["expected_copy_or_fill"]), bool(h["measured_copy_or_fill"]),
                       "memset" if only_memsets else "events", _refs(name, copies), lesson_stands=stands)


def _explain_rank(name, h, v: verdicts.Verdict, rows, stands) -> Explanation:
    exp, got = int(h["expected_rank"]), int(h["measured_rank"])
    mine = VARIANTS[name].expect.rank if name in VARIANTS else None
    pos = v.ranking.index(name) if name in v.ranking else 0
    ahead = {x for x in v.ranking if x in VARIANTS and mine is not None and VARIANTS[x].expect.rank < mine}
    me = rows.get(name)
    # A variant running this one's very kernel (the automatic pick and its pinned twin) is no rival.
    twin = {t.variant for t in v.rows if me is not None and me.identity and t.identity == me.identity}
    if got > exp:  # variants the hypothesis put behind it ran faster
        others, cause = [x for x in v.ranking[:pos] if x not in ahead and x not in twin], "beaten"
    else:  # it ran faster than variants the hypothesis put ahead of it
        others, cause = [x for x in v.ranking[pos + 1:] if x in ahead and x not in twin], "ahead"
    return Explanation(name, "rank", exp, got, cause, faster=tuple((x, _arch(rows, x)) for x in others),
                       arch=me.main_arch if me else None, lesson_stands=stands,
                       main_kernels=tuple((x, rows[x].main_kernel if x in rows else None) for x in [name, *others]))


def _arch(rows, variant) -> int | None:
    return rows[variant].main_arch if variant in rows else None


def _explain_backend(name, kt, v: verdicts.Verdict, rows, stands) -> Explanation:
    ref = ()
    if kt is not None and v.auto.kernel_index is not None:
        ref = _refs(name, kt[kt["index"] == v.auto.kernel_index])
    pinned = [t for t in v.rows if t.variant in VARIANTS and VARIANTS[t.variant].backend == v.auto.expected_backend]
    return Explanation(name, "backend", v.auto.expected_backend, v.auto.backend, "backend", ref,
                       faster=tuple((x, _arch(rows, x)) for x in v.auto.same_as), arch=_arch(rows, name),
                       lesson_stands=stands, expected_ran=bool(pinned))


# The claims about speed; a rank contradiction is judged by them, the other items by the rest.
SPEED_CLAIMS = frozenset({"flash_fastest"})


def _stands(all_claims: list[Claim], variant: str, speed: bool = False) -> bool | None:
    """The lesson-level verdict for one variant: its speed claim for a rank item, else its other claims."""
    mine = [c for c in all_claims if c.variant == variant and (c.key in SPEED_CLAIMS) == speed]
    if not mine or any(c.holds is None for c in mine):
        return None
    return all(c.holds for c in mine)


def explain(ls: tables.LoadedSet, hyp: pd.DataFrame) -> list[Explanation]:
    """One Explanation per contradicted item of `hyp` (findings.check_hypotheses' frame)."""
    if hyp is None or hyp.empty:
        return []
    held_all = claims(ls)
    v = verdicts.verdict(ls)
    rows = timed_rows(ls)
    out = []
    for _, h in hyp.iterrows():
        name = h["variant"]
        kt = _kt(ls, name)
        stands = _stands(held_all, name)
        if h.get("kernels_contradicted") is True and kt is not None:
            out.append(_explain_kernels(name, h, kt, stands))
        if h.get("copy_contradicted") is True and kt is not None:
            out.append(_explain_copy(name, h, kt, stands))
        if h.get("tensor_cores_contradicted") is True and kt is not None:
            off = kt[kt["name"].map(lambda n: kernel_rules.tensor_core_verdict(n) is False)]
            out.append(Explanation(name, "tensor_cores", bool(h["expected_tensor_cores"]),
                                   h["measured_tensor_cores"], "off_tensor_cores", _refs(name, off),
                                   lesson_stands=stands))
        if h.get("rank_contradicted") is True and v is not None and not missing(h["measured_rank"]):
            out.append(_explain_rank(name, h, v, rows, _stands(held_all, name, speed=True)))
        if v is not None and v.auto and v.auto.variant == name and v.auto.contradicted:
            out.append(_explain_backend(name, kt, v, rows, stands))
    return out


@dataclass(frozen=True)
class ArticleFigures:
    """What the seed article published, read from its reference set (gen.model.reference): the
    figures the lessons set beside this set's."""

    naive_events: int | None
    inplace_events: int | None
    math_over_inplace: float | None  # its SDPA math time over its in-place naive time
    flash_occupancy_pct: float | None


def article_figures() -> ArticleFigures:
    runs = {r.variant: r.published for r in reference.build().runs if r.published is not None}

    def get(variant, name):
        p = runs.get(variant)
        return getattr(p, name, None) if p else None

    m, i = get("sdpa_math", "gpu_time_ms"), get(variant_role("inplace"), "gpu_time_ms")
    return ArticleFigures(get(variant_role("baseline"), "kernels_per_forward"),
                          get(variant_role("inplace"), "kernels_per_forward"), m / i if m and i else None,
                          get("sdpa_flash", "occupancy_pct"))


@dataclass(frozen=True)
class Lessons:
    set_name: str
    hidden_copy: HiddenCopy | None
    math_backend: MathBackend | None
    efficient_kernel: EfficientKernel | None
    flash_occupancy: FlashOccupancy | None
    cudnn_costs: CudnnCosts | None
    claims: tuple[Claim, ...]

    def for_variant(self, variant: str) -> list[object]:
        """The lesson facts that belong on one variant's page."""
        out = []
        for f in (self.hidden_copy, self.math_backend, self.efficient_kernel, self.flash_occupancy, self.cudnn_costs):
            if f is not None and variant in (f.variant, getattr(f, "inplace", None)):
                out.append(f)
        return out


def lessons(ls: tables.LoadedSet) -> Lessons | None:
    """Every lesson of a measured GPU set with traces (cached on the set); None otherwise."""
    if ls.kind != schema.SetKind.MEASURED or ls.environment.device != "cuda":
        return None
    key = ("lessons",)
    if key not in ls._tables:
        ls._tables[key] = Lessons(ls.name, *_parts(ls), tuple(claims(ls)))
    return ls._tables[key]

