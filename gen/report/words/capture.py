"""What a capture left out, in words (gen.analysis.capture_gaps.Gaps), beside its answer on the home page and its set
page: the optional packages it did not have, the scenarios its time limit never
reached or cut short, and another set of the same GPU and PyTorch that answers otherwise."""

from __future__ import annotations

from gen.analysis.capture_gaps import TIME_LIMIT, Gaps, package_of
from gen.report.words.common import join_and, kept_status, label


def _title(titles: dict, name: str) -> str:
    return titles.get(name, name)


def installed(g: Gaps) -> str | None:
    """"FlashAttention-4 (flash-attn-4) was not installed for this capture: the answer is among the calls it
    measured, without FlashAttention-4 (flash_attn.cute) and FlexAttention (FLASH backend)."."""
    if not g.packages:
        return None
    names = join_and(f"{who} ({pkg})" for pkg, who in g.packages)
    return (f"{names} {'was' if len(g.packages) == 1 else 'were'} not installed for this capture: the answer is "
            f"among the calls it measured, without {join_and(label(v) for v in g.variants)}.")


def stopped(g: Gaps, titles: dict) -> str | None:
    """"The capture stopped early, at its time limit (after 303 s): it never reached A and B; C measured 1 of its 4
    points." None where nothing was left out for time."""
    limited = [(n, why) for n, why in g.not_reached if "time limit" in why]
    if not (g.stopped and (limited or g.cut)):
        return None
    after = f" (after {g.duration_s:.0f} s)" if g.duration_s else ""
    parts = []
    if limited:
        parts.append(f"it never reached {join_and(_title(titles, n) for n, _ in limited)}")
    parts += [f"{_title(titles, c.scenario)} measured {c.measured} of its {c.planned} points" for c in g.cut]
    return f"The capture stopped early, at its time limit{after}: {'; '.join(parts)}."


def unreached_page(title: str, g: Gaps) -> str:
    """A scenario page of a set whose time limit kept it from the scenario (such pages printed the
    whole apparatus, ceilings and a table of dashes, with nothing measured)."""
    after = f" (after {g.duration_s:.0f} s)" if g.duration_s else ""
    return (f"Not reached: this capture stopped at its time limit{after} before it started {title}, so this set "
            "measured no point of it; this page has no table, chart or ceiling.")


def measured_by(set_title: str) -> str:
    """The set of the same GPU model and PyTorch that measured a scenario this one did not reach, before the link to its
    page of it."""
    return f"The set {set_title}, of the same GPU model and PyTorch, measured it:"


def not_reached(g: Gaps, titles: dict) -> str | None:
    """The set page's line after "Scenarios measured": the others, each with why."""
    if not g.not_reached:
        return None
    by: dict[str, list[str]] = {}
    for n, why in g.not_reached:
        by.setdefault(why, []).append(_title(titles, n))
    return "Not measured: " + "; ".join(f"{join_and(ns)} ({why})" for why, ns in by.items()) + "."


def differs(g: Gaps, others) -> list[str]:
    """One sentence per other set of the same GPU model and PyTorch whose answer differs: (its title, its answer, its
    Gaps, this set's answer)."""
    out = []
    for title, answer, theirs, mine in others:
        if answer in g.variants:
            why = f"a call this capture could not run ({join_and(p for p, _ in g.packages)} not installed)"
        elif mine in theirs.variants:
            why = f"that capture could not run {label(mine)} ({join_and(p for p, _ in theirs.packages)} not installed)"
        else:
            why = "the two captures rank the calls they share otherwise; each page gives its times"
        out.append(f"{title}, the same GPU model and PyTorch, answers {label(answer)}: {why}.")
    return out


def lines(g: Gaps, titles: dict, others=()) -> list[str]:
    """Every line beside a set's answer, in order: packages, the time limit, the other sets' answers."""
    return [x for x in (installed(g), stopped(g, titles), *differs(g, others)) if x]


def nothing_measured(not_measured, p, label_of) -> str:
    """A dynamic-lengths phase with no measured length: one line, and why, in place of
    its tables. `not_measured`: its runs (gen.analysis.dynamic.DynamicFacts), `p`: their first point."""
    first = (f"{p.kv_len:,} tokens in the KV cache" if p.q_len == 1 else f"{p.kv_len:,} tokens") if p else None
    limited = [f for f in not_measured if TIME_LIMIT in (f.reason or "") and package_of(f.reason) is None]
    text = "Nothing measured: " + (
        f"the capture's time limit was reached before its first length{f' ({first})' if first else ''}"
        if limited else "no variant ran at any length")
    others: dict[str, list[str]] = {}
    for f in not_measured:
        if f not in limited:
            pkg = package_of(f.reason)
            why = f"could not have run ({pkg} not installed)" if pkg else kept_status(f.reason)
            others.setdefault(why, []).append(label_of(f.variant))
    return text + "".join(f"; {join_and(names)}: {why}" for why, names in others.items()) + "."
