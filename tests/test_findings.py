"""Hypotheses and rule-derived findings on the committed sets, and their words."""

from __future__ import annotations

import pytest

from gen.analysis import findings, rules, tables
from gen.report.words import findings as finding_words
from gen.report.words import methodology as method_words
from tests.conftest import RESULTS

CPU = "cpu-intel-r-xeon-r-processor__torch-2.13.0"


@pytest.fixture(scope="module")
def hyp(h200):
    return findings.check_hypotheses(h200).set_index("variant").to_dict("index")


@pytest.fixture(scope="module")
def facts(h200):
    return {f.id: f for f in findings.findings(h200)}


@pytest.fixture(scope="module")
def found(facts):
    """Each finding's words, by id."""
    return {i: finding_words.finding(f) for i, f in facts.items()}


@pytest.mark.parametrize("name, verdict", [
    ("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_ffma", False),
    ("ampere_bf16_s16816gemm_bf16_128x64", True),  # an MMA shape: tensor cores, float32 accumulation
    ("volta_s884gemm_fp16", True),
    ("maxwell_sgemm_128x64_nn", False),
    ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", True),
    ("fmha_cutlassF_bf16_aligned_64x64_rf_sm80", True),
    ("triton_tem_fused_flex_attention_0", True),
    ("some_kernel", None),
])
def test_tensor_core_rule(name, verdict):
    assert rules.tensor_core_verdict(name) is verdict


def test_tensor_core_rule_is_quoted_from_the_rules():
    for marker in rules.ON_TENSOR_CORE_MARKERS + rules.OFF_TENSOR_CORE_MARKERS:
        assert f"`{marker.replace(chr(92) + 'd+', 'NN')}`" in method_words.TENSOR_CORE_RULE


def test_hypotheses_on_h200(hyp):
    assert hyp["naive_inplace"]["has_memcpy"] is False
    assert hyp["naive"]["has_memcpy"] is True
    assert hyp["sdpa_math"]["measured_tensor_cores"] is False
    assert hyp["sdpa_math"]["tensor_cores_contradicted"] is False
    assert hyp["sdpa_flash"]["measured_tensor_cores"] is True
    assert hyp["sdpa_math"]["measured_kernels"] == 20 and not hyp["sdpa_math"]["kernels_contradicted"]
    # A sub-µs memset launched by aten::bmm makes 7, not the 6 expected: bookkeeping, no contradiction (issue 31)
    assert hyp["naive"]["measured_kernels"] == 7 and not hyp["naive"]["kernels_contradicted"]
    assert hyp["sdpa_math"]["measured_rank"] == 9


def test_memcpy_in_naive_is_attributed(facts, found):
    f = facts["copy-naive-memcpy-copy_"]
    assert f.facts["op"] == "aten::copy_" and any("aten::masked_fill" in p for p in f.facts["paths"])
    assert "aten::copy_" in found[f.id].text and "aten::masked_fill" in found[f.id].text
    assert f.kernels == (3,)
    assert "copy-naive_inplace-memcpy-copy_" not in facts


def test_cudnn_zero_occupancy_from_its_shared_memory(found):
    # The estimate fits no block over 48 KiB of shared memory, whatever API launched it (issue 17).
    f = found["occupancy-sdpa_cudnn-shared_memory"]
    assert "cudnn_generated" in f.text and "131 KiB of shared memory a block" in f.text


def test_auto_backend_fastest_mask_float32(facts, found):
    assert found["sdpa-auto-backend"].title == "sdpa_auto chose cudnn"
    # Ranked by GPU-only time (the verdict's rule): cuDNN's kernel leads flex's, IQRs apart; per eager
    # call cuDNN, auto (which runs cuDNN) and flash would sit within each other's spread.
    assert facts["fastest"].variant == "sdpa_cudnn" and facts["fastest"].facts["basis"] == "gpu_only"
    assert not facts["fastest"].facts["overlap"] and facts["fastest"].facts["baseline"] == "naive"
    assert "Naive takes" in found["fastest"].text
    assert "aten::tril" in found["mask-sdpa_math"].text
    # its hypothesis expected it off the tensor cores: the float32 path is expected (issue 31)
    assert facts["float32-sdpa_math"].severity == findings.Severity.INFO
    assert "float32-naive" not in found
    assert "gradients match" in found["inplace-autograd"].text
    assert {"compile-inference-flex", "compile-inference-naive_compiled"} <= set(found)
    assert "counts-stable" in found


def test_cpu_set_says_so_instead_of_crashing(h200_dir):
    ls = tables.load_set(RESULTS / CPU)
    h = findings.check_hypotheses(ls)
    assert h["measured_tensor_cores"].isna().all()
    row = h.set_index("variant").loc["naive"]
    assert row["basis"] == "no gpu" and finding_words.hypothesis_note(row).startswith("no GPU")
    ids = {f.id for f in findings.findings(ls)}
    assert "fastest" in ids and not any(i.startswith("occupancy") for i in ids)


# --------------------------------------------------------------------------- the Findings page

REF = "nvidia-a100-sxm4-80gb__article-2026-07"


def test_kernel_groups():
    assert findings.kernel_groups([7, 1, 2, 3, 3]) == [(1, 3), (7, 7)]
    assert findings.kernel_groups([]) == []


def test_every_finding_is_worded_with_its_own_numbers(h200):
    """Title, short line and text come from the same facts: the short line is
    shorter than the text and every number of the short line is in the text."""
    import re

    for f in findings.findings(h200):
        w = finding_words.finding(f)
        assert f.kind in finding_words.KIND_TITLES and w.title and w.short and w.text
        assert len(w.short) < len(w.text), f.id
        for number in re.findall(r"\d+\.\d+", w.short):
            assert number in w.text, (f.id, number)
        assert " x " not in w.text + w.short and not re.search(r"\d+x\b", w.text + w.short), f.id  # ratios are ×


@pytest.fixture(scope="module")
def site(h200, h200_dir):
    from gen.report import render

    sets = [h200, tables.load_set(RESULTS / CPU), tables.load_set(RESULTS / REF)]
    pages = {p.path: p.text for p in render.render(render.Context(sets=sets), workers=1) if p.text is not None}
    return pages


def _section(text: str, start: str, end: str | None = None) -> str:
    i = text.index(start)
    j = text.index(end, i + 1) if end else len(text)
    return text[i:j]


H200_FINDINGS = "generated/sets/nvidia-h200__torch-2.11.0__schema2/findings.md"


def test_findings_page_is_scannable(site):
    import re

    text = site["generated/findings.md"]
    assert not text.startswith("---\nhide:")  # a long page: it keeps its table of contents
    # One row per set, linking its findings; the contradicted items marked as the set's page marks them.
    rows = [line for line in text.splitlines() if line.startswith("| [")]
    assert [r.split("](", 1)[1].split(")", 1)[0] for r in rows] == [
        "sets/nvidia-h200__torch-2.11.0__schema2/findings.md", f"sets/{CPU}/findings.md", f"sets/{REF}/findings.md"]
    assert 'data-variant="sdpa_flash" data-item="rank">rank</span>' in rows[0]
    assert 'data-item="copy or fill"' not in rows[0]  # a sub-µs memset is bookkeeping, no contradiction (issue 31)
    h200 = site[H200_FINDINGS]
    assert h200.startswith("---\nsearch:\n  exclude: true\n---\n\n# Findings · NVIDIA H200")
    # The hypothesis table comes first, then the findings grouped by kind.
    assert h200.index("| Variant |") < h200.index("### Copies and fills")
    heads = re.findall(r"^### (.+)$", h200, re.M)
    from gen.report.render import md

    order = [str(md(t)) for t in finding_words.KIND_TITLES.values()]
    kinds = [t for t in heads if t in order]
    assert kinds == [t for t in order if t in heads] and len(kinds) >= 6
    # After the kinds, the seed article's lessons (gen.analysis.lessons), each with its verdict.
    assert heads[-1] == "The seed article's lessons, from this set" and heads[:-1] == kinds
    assert "✗ contradicted: rank" in re.sub(r"<[^>]+>", "", h200)
    assert "✗ contradicted: kernels" not in re.sub(r"<[^>]+>", "", h200)  # sub-µs memsets: bookkeeping
    # One line per finding; consecutive kernel rows are one link ("#0–#3"), not one link each, to the
    # rows of the set's page of the variant.
    f32 = next(line for line in h200.splitlines() if "GPU events in float32" in line)
    # (The groups' lists are finished HTML: gen/report/templates/_findings_list.md.j2.)
    assert len(re.findall(r'href="variants/', f32)) <= 4
    assert re.search(r'<a href="variants/sdpa_math\.html#k-inference-sdpa_math-0">#0–#3</a>', f32)
    cpu = site[f"generated/sets/{CPU}/findings.md"].split("## CPU", 1)[1]
    # Compact: no hypothesis table (the timings the set contradicts get a line each, issue 17).
    lines = [x for x in cpu.splitlines() if "Timings the set itself contradicts" not in x]
    assert len(lines) < 15 and "| Variant |" not in cpu and "No GPU in this set" in cpu
    ref = site[f"generated/sets/{REF}/findings.md"].split("## NVIDIA A100", 1)[1]
    assert "only the figures published in" in ref and "### " not in ref


def test_findings_links_resolve_to_kernel_rows(site):
    import re

    text = site[H200_FINDINGS]
    links = re.findall(r"\]\((variants/[^)#]+)#([^)]+)\)", text)  # Markdown links, and the finished HTML's
    links += [(page + ".md", anchor) for page, anchor in re.findall(r'href="(variants/[^"#]+)\.html#([^"]+)"', text)]
    assert len(links) >= 10
    for page, anchor in links:
        assert f'id="{anchor}"' in site[f"generated/sets/nvidia-h200__torch-2.11.0__schema2/{page}"], (page, anchor)


def test_long_kernel_names_stay_escaped(site):
    text = site[H200_FINDINGS]
    full = _section(text, "??? note")
    # Kernel names and op paths carry < > | * _ &: never raw inside Markdown.
    assert "Memcpy DtoD (Device -&gt; Device)" in text
    assert "&#95;" in full and "sm80_xmma" not in full and "->" not in full.replace("-&gt;", "")


def test_host_bound_finding_names_the_idle_gpu(facts, found):
    f = facts["host-train-flex"]
    assert f.kind == findings.FindingKind.HOST and f.facts["ratio"] >= rules.HOST_BOUND_EAGER_RATIO
    assert f.facts["gpu_only_method"] == "cuda_graph" and "waits on the host" in found[f.id].text
    assert "(kernel sum)" not in found[f.id].text  # a graph replay needs no label
    assert "host-inference-sdpa_flash" not in facts and "host-inference-naive" not in facts
    # cuDNN's forward is within noise (its host costs less than its kernels), so no finding calls it bound
    assert "host-inference-sdpa_cudnn" not in facts


def test_schema1_host_bound_finding_labels_the_kernel_sum(h200_v1, monkeypatch):
    """The schema-1 set had no graph replay: the GPU-only time it compares against is labelled a kernel sum.
    (Its FlexAttention forward waited 2.1x in the loop with a host at 1.4x the kernel sum: within noise by
    rules.HOST_YES_MARGIN; with a margin of 1x it is host-bound, which is what the label is tested on.)"""
    monkeypatch.setattr(rules, "HOST_YES_MARGIN", 1.0)
    fresh = tables.load_set(h200_v1.path)  # the session's set has its tables cached under the real margin
    f = {f.id: f for f in findings.findings(fresh)}["host-inference-flex"]
    assert f.facts["gpu_only_method"] == "kernel_sum" and f.facts["ratio"] >= rules.HOST_BOUND_EAGER_RATIO
    assert "GPU-only time (kernel sum)" in finding_words.finding(f).text


def _events_by_masks(kt):
    """float32_events, mask_events and no_estimate_events as they read the table (a pandas mask per
    test), to compare the lists' reading with."""
    k = kt[kt["kind"] == "kernel"]
    if k.empty:
        f32 = ups = k
    else:
        f32 = k[k["input_types"].map(rules.is_float32_only) | (k["category"].eq("matrix product") &
                                                                k["name"].str.contains(r"f32|sgemm", case=False))]
        ups = k[k["launched_by"].eq("aten::copy_") & k["input_types"].str.contains("float") &
                k["input_types"].str.contains("BFloat16|Half", regex=True)]
    tri = kt[kt["name"].str.contains("triu|tril", case=False) | kt["launched_by"].isin(["aten::triu", "aten::tril"])]
    if tri.empty and (kt[kt["launched_by"].eq("aten::fill_")].empty or kt[kt["launched_by"].eq("aten::where")].empty):
        mask = kt.iloc[0:0]
    else:
        path = kt["op_path"]
        mask = kt[~path.str.contains("softmax") & (
            kt.index.isin(tri.index) | path.str.contains("aten::ones") | path.str.contains("aten::where") |
            path.str.endswith("aten::scalar_tensor > aten::fill_"))]
    zero = kt[(kt["kind"] == "kernel") & kt["occupancy_pct"].map(rules.no_occupancy_estimate)]
    return f32, ups, mask, zero


def test_event_rules_read_off_lists_pick_the_rows_the_masks_picked(h200, h200_new):
    """Every profiled forward of the committed H200 sets (and each table reversed, cut to its kernels, and
    emptied): the same rows, index and columns as the pandas masks picked."""
    import pandas as pd

    checked = 0
    for ls in (h200, h200_new):
        for run in [r for r in ls.rs.runs if r.status == "ok" and r.trace]:
            tr = ls.trace(run.mode, run.variant)
            for i in range(len(tr.forwards)):
                kt = tables.kernel_table(ls, run.variant, run.mode, i, tr)
                for t in (kt, kt.iloc[::-1], kt[kt["kind"] == "kernel"], kt.iloc[0:0]):
                    got = (*findings.float32_events(t), findings.mask_events(t), findings.no_estimate_events(t))
                    for g, w in zip(got, _events_by_masks(t)):
                        pd.testing.assert_frame_equal(g, w)
                    checked += 1
    assert checked > 300


def _copies_by_groupby(ls):
    """rule_copies as it read the tables (a mask, then a pandas groupby per variant)."""
    out = []
    for v, kt in findings._kernel_runs(ls):
        copies = findings.copy_events(kt)
        expected = findings.VARIANTS[v].expect.copy_or_fill
        for (kind, op), g in copies.groupby(["kind", "launched_by"], sort=False):
            out.append(findings.Finding(
                id=f"copy-{v}-{kind}-{(op or 'none').replace('aten::', '')}", kind=findings.FindingKind.COPY,
                severity=findings.Severity.INFO if expected else findings.Severity.UNEXPECTED, variant=v,
                kernels=findings._indices(g["index"]),
                facts=dict(event_kind=kind, op=op or None, n=len(g), names=sorted(set(g["short_name"])),
                           paths=sorted(set(g["op_path"])), dur_us=float(g["dur_us"].sum()),
                           total_us=findings._gpu_total(kt), expected=expected)))
    return out


def _occupancy_by_masks(ls):
    """rule_occupancy as it read the tables (a mask per cause, its columns as Series)."""
    import numpy as np

    out = []
    sms = ls.rs.environment.sm_count
    for v, kt in findings._kernel_runs(ls):
        achieved = findings._achieved(ls, v)
        zero = findings.no_estimate_events(kt)
        causes = [findings.occupancy_cause(m, b, sms) for m, b in zip(zero["shared_memory"], zero["blocks"])]
        for cause in dict.fromkeys(causes):
            g = zero[[c == cause for c in causes]]
            small = g[g["blocks"] < (sms or 0)]
            out.append(findings.Finding(
                id=f"occupancy-{v}-{cause}", kind=findings.FindingKind.OCCUPANCY, severity=findings.Severity.INFO,
                variant=v, kernels=findings._indices(g["index"]),
                facts=dict(cause=cause, apis=list(dict.fromkeys(a for a in g["launch_api"] if a)), n=len(g),
                           names=list(dict.fromkeys(g["short_name"])), dur_us=float(g["dur_us"].sum()),
                           shared_memory=[int(m) for m in g["shared_memory"] if not np.isnan(m)],
                           small_grids=[int(b) for b in small["blocks"]], sm_count=sms,
                           smem_limit=rules.SMEM_DEFAULT_LIMIT,
                           measured=[achieved[i] for i in g["index"] if i in achieved])))
    return out


@pytest.mark.parametrize("cut", ["whole", "reversed", "durations perturbed"])
def test_copy_and_occupancy_rules_read_off_lists_give_what_groupby_and_masks_gave(h200, h200_new, h200_v1, cut,
                                                                                  monkeypatch):
    """rule_copies and rule_occupancy group the rows in plain Python; the readings they replaced are
    kept above: the same findings, floats to the bit, types alike, for the committed H200 sets, their
    tables reversed, and with durations whose plain sum differs from numpy's (pairwise) one."""
    real = tables.kernel_table

    def kernel_table(*a, **k):
        kt = real(*a, **k)
        if cut == "reversed":
            return kt.iloc[::-1]
        if cut == "durations perturbed":
            return kt.assign(dur_us=[0.1 * (i % 7) + 1e-9 * i + 1e6 * (i % 3) for i in range(len(kt))])
        return kt

    monkeypatch.setattr(tables, "kernel_table", kernel_table)
    monkeypatch.setattr(tables, "kernel_frame", kernel_table)  # what the rules read (the kept table)
    checked = 0
    for ls in (h200, h200_new, h200_v1):
        for new, old in ((findings.rule_copies(ls), _copies_by_groupby(ls)),
                         (findings.rule_occupancy(ls), _occupancy_by_masks(ls))):
            assert new == old
            for a, b in zip(new, old):
                assert {k: type(x) for k, x in a.facts.items()} == {k: type(x) for k, x in b.facts.items()}
                assert [type(x) for x in a.facts["measured" if "measured" in a.facts else "names"]] == \
                    [type(x) for x in b.facts["measured" if "measured" in b.facts else "names"]]
            checked += len(new)
    assert checked > 10


def _check_measured_by_masks(ls, r, row, h, mode):
    """findings._check_measured as it read the kernel table (masks and iterrows)."""
    import math

    kt = tables.kernel_table(ls, r["variant"], mode)
    # a sub-µs memset is bookkeeping (issue 31): neither a copy nor a kernel the hypothesis counts
    book = (kt["kind"] == "memset") & (kt["dur_us"] < rules.SUB_US_MEMSET_US)
    copies = findings.copy_events(kt)
    copies = copies[~copies.index.isin(kt.index[book])]
    n = r["kernels_per_forward"]
    out = dict(measured_kernels=n,
               kernels_contradicted=bool(n != h.kernels_per_forward and n - int(book.sum()) != h.kernels_per_forward),
               measured_copy_or_fill=bool(len(copies)), has_memcpy=bool((kt["kind"] == "memcpy").any()),
               copy_or_fill_events="; ".join(f"{k['short_name']} ({k['launched_by']})" for _, k in copies.iterrows()),
               bookkeeping_memsets=int(book.sum()))
    out["copy_contradicted"] = out["measured_copy_or_fill"] != h.copy_or_fill
    mm = kt[(kt["kind"] == "kernel") & kt["category"].isin(rules.TC_CATEGORIES)]
    verdicts = [(k["short_name"], rules.tensor_core_verdict(k["name"])) for _, k in mm.iterrows()]
    on = [n for n, t in verdicts if t is True]
    off = [n for n, t in verdicts if t is False]
    out.update(tensor_core_kernels=", ".join(on), off_tensor_core_kernels=", ".join(off))
    if off:
        out["measured_tensor_cores"] = False
    elif verdicts and len(on) == len(verdicts):
        out["measured_tensor_cores"] = True
    if out.get("measured_tensor_cores") is not None:
        out["tensor_cores_contradicted"] = out["measured_tensor_cores"] != h.tensor_cores
    if not math.isnan(row["measured_rank"]) and not math.isnan(row["expected_rank"]):
        out["rank_contradicted"] = not (row["rank_lo"] <= row["expected_rank"] <= row["rank_hi"])
    return out


@pytest.mark.parametrize("cut", ["whole", "reversed"])
def test_hypotheses_read_off_lists_give_what_masks_gave(h200, h200_new, h200_v1, cut, monkeypatch):
    """check_hypotheses' measured checks read the kernel table as lists; with the masked reading above
    swapped in, the same frame, for both modes of the committed H200 sets (tables reversed too)."""
    import pandas as pd

    real = tables.kernel_table
    if cut == "reversed":
        monkeypatch.setattr(tables, "kernel_table", lambda *a, **k: real(*a, **k).iloc[::-1])
        monkeypatch.setattr(tables, "kernel_frame", tables.kernel_table)  # what the checks read (the kept table)
    new_check = findings._check_measured
    for ls in (h200, h200_new, h200_v1):
        for mode in ("inference", "train"):
            got = findings.check_hypotheses(ls, mode)
            monkeypatch.setattr(findings, "_check_measured", _check_measured_by_masks)
            want = findings.check_hypotheses(ls, mode)
            monkeypatch.setattr(findings, "_check_measured", new_check)
            pd.testing.assert_frame_equal(got, want)
            assert (got["basis"] == "measured").sum() > 0 or ls is h200_v1


def test_hypothesis_rows_read_as_dicts_give_what_iterrows_gave(h200, h200_new, h200_v1, monkeypatch):
    """check_hypotheses reads each summary row and its ranks as dicts (findings._rows_and_ranks); with the
    earlier reading (iterrows and ranks.loc's to_dict) swapped in, the same frame to the dtype, and the
    same values to the type, for both modes of every committed set, rows reversed too."""
    import pandas as pd

    from tests.conftest import RESULTS

    def by_iterrows(st, ranks):
        return [(r, ranks.loc[i].to_dict()) for i, r in st.iterrows()]

    new = findings._rows_and_ranks
    sets = [h200, h200_new, h200_v1] + [tables.load_set(p) for p in sorted(RESULTS.iterdir()) if p.is_dir()]
    checked = 0
    for ls in sets:
        for mode in ("inference", "train"):
            for st_cut in (lambda st: st, lambda st: st.iloc[::-1].reset_index(drop=True)):
                st = st_cut(tables.summary_table(ls, mode))
                ranks = pd.DataFrame({"measured_rank": range(len(st)), "rank_lo": float("nan"), "rank_hi": 2.0},
                                     index=st.index, dtype=float)
                for (a, ra), (b, rb) in zip(new(st, ranks), by_iterrows(st, ranks)):
                    assert list(a) == list(b.index) and list(ra) == list(rb)
                    assert all(type(a[k]) is type(b[k]) and (a[k] == b[k] or a[k] != a[k] and b[k] != b[k])
                               for k in a if not isinstance(a[k], list)), ls.name
                    assert all(type(ra[k]) is type(rb[k]) for k in ra)
                    checked += 1
            got = findings.check_hypotheses(ls, mode)
            with monkeypatch.context() as m:
                m.setattr(findings, "_rows_and_ranks", by_iterrows)
                want = findings.check_hypotheses(ls, mode)
            pd.testing.assert_frame_equal(got, want, check_exact=True)
            assert [type(x) for c in got for x in got[c]] == [type(x) for c in want for x in want[c]]
    assert checked > 50
