"""Review 14 (docs/notes/review-2026-12-07-5.md), findings 4, 6, 7 and 9: the methodology's orientation count labels
swaps between calls that run the same kernels as ties; the round-by-round rule needs 2 rounds an orientation and words
its evidence jointly; the compare page gives the clocks behind its ratios; the levels of the intervals agree between
the methodology and the pages. Numbers are read from the committed sets, never typed in where they give them."""

from __future__ import annotations

import html
import re
from collections import Counter

import pytest

from gen.analysis import calls, compare, leads, method, rules, timings
from gen.model import schema
from gen.report.words import common as words
from gen.report.words import compare as compare_words
from gen.report.words import methodology as method_words
from gen.report.words import round_by_round
from tests.conftest import CAPTURED_LATER, RESULTS


@pytest.fixture(scope="module")
def older():
    from gen.analysis import tables

    return tables.load_set(RESULTS / CAPTURED_LATER[0])


# --------------------------------------------------------------------------- finding 4: swaps of identical kernels


def _graph_kernels(rec):
    g = rec.timing.graph_check
    return Counter(g.graph_kernels) if g is not None and g.graph_kernels else None


def _swaps_by_hand(ls):
    """Each point's fastest in the forward rounds against the reversed ones, and whether the two replayed the same graph
    kernels (a check apart from pair_noise's signatures: a same-kernel swap must at least share its graph's kernels)."""
    out = []
    for recs in (ls.rs.runs, ls.rs.sweep):  # a scenario's runs and its sweep: each its own points
        by: dict = {}
        for r in recs:
            if r.status != schema.Status.OK or r.timing is None:
                continue
            f, v = timings.orientation_medians(r.timing)
            if f is not None and v is not None:
                by.setdefault((r.scenario, r.mode, r.point), {})[r.variant] = (f, v, r)
        for ms in by.values():
            if len(ms) < 2:
                continue
            a, b = min(ms, key=lambda x: ms[x][0]), min(ms, key=lambda x: ms[x][1])
            if a != b:
                out.append((a, b, _graph_kernels(ms[a][2]) == _graph_kernels(ms[b][2]), ms[a][2].mode))
    return out


def test_the_orientation_count_labels_same_kernel_swaps_as_ties(paired, older):
    """The paired set: 14 of its 23 points (one a training step: the review's 13 of 22 counted inference alone) swap
    their fastest by orientation; 12 of the swaps are SDPA cuDNN and SDPA with no backend pinned, the same kernels."""
    for ls in (paired, older):
        o = method.orientation(ls)
        by_hand = _swaps_by_hand(ls)
        assert o.swapped == len(by_hand) and 0 < o.swapped <= o.points
        # every tie is a swap between calls that replayed the same graph kernels; every other swap is not one
        same = [tuple(sorted((a, b))) for a, b, alike, _ in by_hand if alike]
        assert sorted(o.ties) == sorted(same)
        assert all(set(t) == {"sdpa_auto", "sdpa_cudnn"} for t in o.ties)
        text = method_words.orientation(o)
        other = o.swapped - len(o.ties)
        assert (f"at {o.swapped} of the {o.points} points where two or more calls ran in both orientations the "
                "fastest differs by orientation") in text
        assert f"at {len(o.ties)} of them the two run the same kernels, a tie: " in text
        assert f"a call with other kernels takes the lead at {other}" in text
        assert "a different call is fastest" not in text
    o = method.orientation(paired)
    assert (o.swapped, o.points, len(o.ties)) == (14, 23, 12)
    assert [mode for *_, mode in _swaps_by_hand(paired)].count(schema.Mode.TRAIN) == 1  # the review's 14th


def test_the_swap_words_follow_the_counts():
    o = method.Orientation(timed=10, apart=2, points=5, swapped=3, ties=(("sdpa_auto", "sdpa_cudnn"),) * 2)
    text = method_words.swaps(o)
    assert "at 3 of the 5 points" in text and "at 2 of them the two run the same kernels" in text
    assert "a call with other kernels takes the lead at 1" in text
    assert "at none does a call with other kernels" in method_words.swaps(
        method.Orientation(10, 2, 5, 2, ties=(("sdpa_auto", "sdpa_cudnn"),) * 2))
    assert "each time a call with other kernels taking the lead" in method_words.swaps(method.Orientation(10, 2, 5, 2))
    assert method_words.swaps(method.Orientation(10, 2, 5, 0)).startswith("at none of the 5 points")


# --------------------------------------------------------------------------- finding 6: 2 rounds an orientation


def _row(variant, rounds_ms, noise=None):
    med = sorted(rounds_ms)[len(rounds_ms) // 2]
    s = timings.Spread(n=8 * len(rounds_ms), median=med, q1=min(rounds_ms), q3=max(rounds_ms), ci_lo=min(rounds_ms),
                       ci_hi=max(rounds_ms), rounds=len(rounds_ms))
    fwd, rev = (sorted(g)[len(g) // 2] for g in (rounds_ms[0::2], rounds_ms[1::2]))
    return calls.Timed(variant, "ok", gpu_only=s, rounds=calls.SHARED, rounds_with=("a", "b"),
                       round_ms=tuple(rounds_ms), forward_ms=fwd, reversed_ms=rev, as_run_noise=noise)


def test_one_round_in_an_orientation_decides_nothing_by_rounds():
    """3 shared rounds: 2 forward, 1 reversed; a ahead by 10% in each, its medians' intervals overlapping b's."""
    a, b = [1.00, 1.30, 1.02], [1.10, 1.43, 1.12]
    o = leads.orders(_row("a", a), _row("b", b), "gpu_only")
    assert o.paired is None and o.by_rounds is None and not o.decided_by_rounds and not o.decided
    assert round_by_round.paired(o, str) == ""
    # a fourth round, the second reversed one: now decided round by round
    o4 = leads.orders(_row("a", a + [1.28]), _row("b", b + [1.41]), "gpu_only")
    assert o4.paired is not None and o4.decided_by_rounds


def test_the_evidence_is_worded_jointly(older):
    """The older set's decode at 131,072 keys (3 forward rounds, 2 reversed) stays decided by the shared rounds, and its
    words give every round past the line, not 50% and 75% intervals."""
    p = next(q for q in calls._points(older, "decode", schema.Mode.INFERENCE) if q.kv_len == 131072)
    rows = {t.variant: t for t in calls.timed_at(older, "decode", p)}
    o = leads.orders(rows["sdpa_cudnn"], rows["flex_flash"], "gpu_only")
    assert o.decided_by_rounds and [len(g) for g in o.round_groups] == [3, 2]
    line = rules.paired_past(o.paired_line)
    assert min(o.per_round) > line  # every round past the line by more than the floor
    text = round_by_round.paired(o, str)
    assert (f"sdpa_cudnn was ahead in all 5 shared rounds, each past the {o.paired_line:.3f}× line (identical "
            "kernels' per-round noise here) by more than 1%, so the shared rounds decide it") in text
    assert "(50%)" not in text and "(75%)" not in text and "interval" not in text


# --------------------------------------------------------------------------- finding 7: clocks on the compare page


def test_the_compare_rows_carry_each_sides_clock(paired, h200_new):
    rows = compare.records(compare.compare_frame(paired, h200_new))
    timed = [r for r in rows if r["gpu_only_ms_a"] is not None and r["gpu_only_ms_b"] is not None]
    assert timed and all(r["sm_clock_mhz_a"] and r["sm_clock_mhz_b"] for r in timed)
    for r in timed:
        gap = rules.clock_gap_pct(r["sm_clock_mhz_a"], r["sm_clock_mhz_b"])
        assert r["clocks_apart"] == (gap > rules.CLOCK_GAP_PCT)
    line, column = compare_words.clocks(rows)
    said = {round(x) for r in timed for x in (r["sm_clock_mhz_a"], r["sm_clock_mhz_b"])}
    if len(said) == 1:  # the review: every article-shape row at 1980 MHz on both GPUs
        assert not column and line.startswith(f"Every row here ran at {said.pop()} MHz in both sets")
    else:
        assert column and "A → B" in line


def test_the_clock_words_flag_rows_past_the_clock_gate():
    one = [dict(gpu_only_ms_a=1.0, gpu_only_ms_b=0.9, sm_clock_mhz_a=1980.0, sm_clock_mhz_b=1980.0,
                clocks_apart=False)] * 2
    line, column = compare_words.clocks(one)
    assert not column and "Every row here ran at 1980 MHz in both sets" in line and "one clock" in line
    apart = one + [dict(gpu_only_ms_a=1.0, gpu_only_ms_b=0.9, sm_clock_mhz_a=1980.0, sm_clock_mhz_b=1700.0,
                        clocks_apart=True)]
    line, column = compare_words.clocks(apart)
    assert column and f"Marked ≠: 1 row whose two clocks are more than {rules.CLOCK_GAP_PCT:g}% apart" in line
    near = one + [dict(gpu_only_ms_a=1.0, gpu_only_ms_b=0.9, sm_clock_mhz_a=1980.0, sm_clock_mhz_b=1950.0,
                       clocks_apart=False)]
    line, column = compare_words.clocks(near)
    assert column and "No row's two clocks are more than" in line
    assert compare_words.clocks([dict(gpu_only_ms_a=1.0, gpu_only_ms_b=None)]) == (None, False)
    published = [dict(gpu_only_ms_a=1.0, gpu_only_ms_b=0.9, sm_clock_mhz_a=1980.0, sm_clock_mhz_b=None,
                      clocks_apart=None)]
    line, column = compare_words.clocks(published)
    assert column and "B's times carry no recorded clock" in line and "No row's" not in line


def test_the_compare_template_shows_the_clock_column_and_marks(paired, h200_new):
    from gen.report.pages import compare as compare_page
    from gen.report.site import environment

    view = compare_page.pair_view(paired, h200_new)
    env = environment()

    def render(v):
        return html.unescape(" ".join(env.get_template("compare_page.md.j2").render(
            here="x.md", pairs=[v], one_set=h200_new, references=[], fastest=None, every=None, pair_pages=[]).split()))

    text = render(view)
    assert view["clock_line"] and view["clock_line"] in text  # the committed pair: its clocks said on the page
    # one row's B clock 15% lower: a column of each side's clock, that row marked past the gate
    rows = [dict(r) for r in view["rows"]]
    r = next(r for r in rows if r["gpu_only_ms_a"] is not None and r["gpu_only_ms_b"] is not None)
    r.update(sm_clock_mhz_b=r["sm_clock_mhz_a"] * 0.85, clocks_apart=True)
    line, column = compare_words.clocks(rows)
    text = render(dict(view, rows=rows, clock_line=line, clock_column=column))
    assert column and "SM clock MHz A → B" in text and "Marked ≠: 1 row" in text
    assert f"{r['sm_clock_mhz_a']:.0f} → {r['sm_clock_mhz_b']:.0f} ≠" in text


# --------------------------------------------------------------------------- finding 9: one range of levels


def test_the_methodology_names_each_sets_range():
    by_set = [("GPU one", [3, 5, 6], True), ("GPU two", [5, 6], True), ("CPU", [3, 11], False)]
    units = [u for _, us, _ in by_set for u in us]
    text = method_words.ci_levels(units, by_set)
    assert text.startswith(words.level_span(units) + ", ")
    assert (f"by set: {words.level_span([3, 5, 6])} in GPU one (the top from 6 rounds), {words.level_span([5, 6])} in "
            f"GPU two (the top from 6 rounds), {words.level_span([3, 11])} in CPU (the top from 11 raw samples, in one "
            "round)") in text
    # the top is the count that gives the highest level: 11 samples (98.83%), not 20 (95.86%)
    assert "(the top from 11 raw samples" in method_words.ci_levels([3, 20, 11, 6], [("a", [3, 6], True),
                                                                                   ("b", [3, 20, 11], False)])
    # where every set gives one span, no per-set list
    assert "by set" not in method_words.ci_levels([3, 6], [("a", [3, 6], True), ("b", [6, 3], True)])


def test_the_pages_levels_agree_with_the_methodology(results_docs):
    """Each set page's range, and the home's, is the methodology's range for that set (review 14 #9: the methodology
    gave 75%-98.83% beside the home's 75%-96.88%, the CPU set's 11 samples the only 98.83%)."""
    rules_md = html.unescape(" ".join((results_docs / "generated" / ".rules.md").read_text(encoding="utf-8").split()))
    found = re.search(r"Interval of a median \| .*? at (\S+?), the level its rounds", rules_md)
    assert found
    whole = found.group(1)
    pages = {p: " ".join(p.read_text(encoding="utf-8").split())
             for p in (results_docs / "generated" / "sets").glob("*.md")}
    pages[results_docs / "generated" / ".verdict.md"] = " ".join(
        (results_docs / "generated" / ".verdict.md").read_text(encoding="utf-8").split())
    spans = {}
    for path, text in pages.items():
        m = re.search(r"interval of each median \(at ([^,]+), the level its rounds", text)
        if m:
            spans[path] = m.group(1)
    assert spans
    lo, hi = whole.split("–")
    for path, span in spans.items():
        assert span in rules_md, (path, span)
        a, b = span.split("–") if "–" in span else (span, span)
        assert float(lo.rstrip("%")) <= float(a.rstrip("%")) and float(b.rstrip("%")) <= float(hi.rstrip("%"))
    if len(set(spans.values())) > 1:
        assert "by set: " in rules_md
