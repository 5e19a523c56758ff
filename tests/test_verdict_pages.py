"""One rule per verdict, the same on every page: the built site's home, set,
variant, findings and scaling pages mark "fastest", "host-bound" and
"contradicted" with data attributes (`data-flag`, `data-set`, `data-variant`,
`data-mode`, `data-item`) and verdict blocks with `data-verdict`; every page
must show exactly what analysis computed once."""

from __future__ import annotations

from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gen.analysis import findings, tables, verdicts
from gen.model import schema

ROOT = Path(__file__).resolve().parent.parent
H200 = "nvidia-h200__torch-2.11.0"

pytestmark = pytest.mark.slow


class _Marks(HTMLParser):
    """Every element carrying data-flag or data-verdict: its attributes and its text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.marks: list[dict] = []
        self._open: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if "data-flag" in a or "data-verdict" in a:
            a["_text"] = ""
            self.marks.append(a)
            self._open.append((tag, a))

    def handle_endtag(self, tag):
        if self._open and self._open[-1][0] == tag:
            self._open.pop()

    def handle_data(self, data):
        for _, a in self._open:
            a["_text"] += data


def marks(path: Path) -> list[dict]:
    p = _Marks()
    p.feed(path.read_text(encoding="utf-8"))
    return p.marks


@pytest.fixture(scope="module")
def site(built_site) -> Path:
    """The sets built into a site (once per session, shared: conftest.py)."""
    return built_site().site


@pytest.fixture(scope="module")
def sets(built_site):
    """Every set the site was built from, loaded as analysis loads it."""
    return {p.name: tables.load_set(p) for p in schema.list_sets(built_site().results)}


@pytest.fixture(scope="module")
def pages(site) -> dict[str, list[dict]]:
    return {p.relative_to(site).as_posix(): marks(p) for p in site.rglob("*.html") if "assets" not in p.parts}


def _variant_of(page: str) -> str | None:
    """The variant a page is about: its page over every set, or its page in one set."""
    parts = page.split("/")
    if page.startswith("generated/variants/") or (len(parts) == 5 and parts[1] == "sets" and parts[3] == "variants"):
        return parts[-1].removesuffix(".html")
    return None


def _flags(pages, flag, where=lambda page: True):
    """(page -> set -> mode -> {variant or (variant, item)}) for one flag."""
    out: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(set)))
    for page, ms in pages.items():
        if not where(page):
            continue
        for m in ms:
            if m.get("data-flag") == flag:
                key = (m["data-variant"], m["data-item"]) if flag == "contradicted" else m["data-variant"]
                out[page][m["data-set"]][m.get("data-mode", "inference")].add(key)
    return out


@pytest.fixture(scope="module")
def lead(sets) -> str:
    """The set the home page leads with (the first measured GPU set)."""
    from gen.analysis import compare

    return compare.default_pair(list(sets.values()))[0].name


def test_verdict_blocks_agree_with_analysis(pages, sets, lead):
    blocks = [(page, m) for page, ms in pages.items() for m in ms if "data-verdict" in m]
    on_home = [m for page, m in blocks if page == "index.html"]
    on_set = [m for page, m in blocks if page == f"generated/sets/{lead}.html"]
    assert on_home and on_set, "the home page and the lead set's page open with a verdict"
    for page, m in blocks:
        v = verdicts.verdict(sets[m["data-set"]], m["data-scenario"], m["data-mode"])
        assert m["data-fastest"] == v.fastest.variant, page
        assert float(m["data-fastest-ms"]) == pytest.approx(v.spread(v.fastest).median, rel=1e-5), page
        assert m["data-host-bound"].split() == list(v.host_bound), page
    h = next(m for m in on_home if m["data-set"] == lead and m["data-scenario"] == "article")
    s = next(m for m in on_set if m["data-scenario"] == "article")
    # the home page words the first scenario as a block and the others as lines: the class differs, not the facts
    facts = {"_text", "class", "markdown", "data-runner-up", "data-auto-backend"}
    assert {k: v for k, v in h.items() if k not in facts} == {k: v for k, v in s.items() if k not in facts}


def test_fastest_is_one_variant_everywhere(pages, sets, lead):
    flags = _flags(pages, "fastest")
    seen = defaultdict(set)
    for page, by_set in flags.items():
        for name, by_mode in by_set.items():
            for mode, variants in by_mode.items():
                v = verdicts.verdict(sets[name], "article", mode)
                if page.startswith("generated/scaling") or page.endswith("/scaling.html"):
                    continue  # other points: checked below
                assert variants == {v.fastest.variant}, (page, name, mode, variants)
                seen[name].add(page)
    for page, ms in pages.items():  # verdict blocks name the fastest too (checked against analysis above)
        if any("data-verdict" in m and m["data-set"] == lead for m in ms):
            seen[lead].add(page)
    kinds = {p.split("/")[1] if "/" in p else p for p in seen[lead]}
    assert {"index.html", "sets", "variants", "findings.html"} <= kinds, seen[lead]
    kinds = {p.split("/")[1] if "/" in p else p for p in seen[H200]}
    assert {"sets", "variants", "findings.html"} <= kinds, seen[H200]


def test_host_bound_is_one_rule_everywhere(pages, sets):
    flags = _flags(pages, "host-bound")
    union: dict = defaultdict(lambda: defaultdict(set))
    for page, by_set in flags.items():
        for name, by_mode in by_set.items():
            for mode, variants in by_mode.items():
                truth = set(tables.summary_table(sets[name], mode).query("host_bound")["variant"])
                assert variants <= truth, (page, name, mode, variants - truth)
                if _variant_of(page) is None:
                    assert variants == truth, (page, name, mode)
                union[(name, mode)][page.split("/")[1] if "/" in page else page] |= variants
    for (name, mode), by_kind in union.items():
        truth = set(tables.summary_table(sets[name], mode).query("host_bound")["variant"])
        assert all(got == truth for got in by_kind.values()), (name, mode, dict(by_kind))
    # flex's training step is host-bound by the rule; cuDNN's forward is within noise, flagged nowhere
    assert union[(H200, "train")]["sets"] == {"flex"}
    assert (H200, "inference") not in union


def test_contradicted_is_one_rule_everywhere(pages, sets):
    flags = _flags(pages, "contradicted")
    for page, by_set in flags.items():
        for name, by_mode in by_set.items():
            hyp = findings.check_hypotheses(sets[name])
            truth = {(r["variant"], item) for _, r in hyp.iterrows() for item in r["contradicted_items"]}
            got = by_mode["inference"]
            if _variant_of(page) is not None:
                truth = {t for t in truth if t[0] == _variant_of(page)}
            assert got == truth, (page, name, got ^ truth)
    pages_with = {p for p, by_set in flags.items() if H200 in by_set}
    assert {"generated/findings.html", f"generated/sets/{H200}/findings.html"} <= pages_with
    assert any(_variant_of(p) for p in pages_with)


def test_scaling_fastest_uses_the_verdict_rule(pages, sets):
    marks = [m for m in pages[f"generated/sets/{H200}/scaling.html"] if m.get("data-flag") == "fastest"]
    assert {m["data-set"] for m in marks} == {H200}  # one per head dim with GPU-only times
    for m in marks:
        ls = sets[m["data-set"]]
        p = next(p for p in ls.rs.sweep if p.head_dim == int(m["data-head-dim"]) and p.seq_len == int(m["data-kv-len"]))
        assert m["data-variant"] == verdicts.verdict_at(ls, p.scenario, p.point).fastest.variant
