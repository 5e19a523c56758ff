"""An expert's review of the pages built from the committed sets: every table keeps its shape,
and the scenario, set, findings and scaling pages say only what the data holds."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from gen.analysis import tables
from tests import html_table

ROOT = Path(__file__).resolve().parent.parent
H200 = "generated/sets/nvidia-h200__torch-2.11.0.md"
OWN = "sets/nvidia-h200__torch-2.11.0"  # the set's own pages: its scenarios, findings, scaling (gen.report.units)


@pytest.fixture(scope="module")
def pages(results_docs) -> dict[str, str]:
    """Every page gen build made of results/, by its path under docs/ (conftest.results_docs)."""
    return {p.relative_to(results_docs).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted((results_docs / "generated").rglob("*.md"))}


_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _cells(line: str) -> int:
    """Cells of one GFM table line: split on unescaped pipes, less the outer two."""
    return len(_CELL_SPLIT.split(line.strip().strip("|")))


def _tables(text: str):
    """Each Markdown table of a page (admonitions' indented ones included) as its lines."""
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.strip().startswith("|"):
            block.append(line)
        elif block:
            yield block
            block = []


def test_every_table_row_has_as_many_cells_as_its_header(pages):
    tables_seen = 0
    for path, text in pages.items():
        if not path.endswith(".md"):
            continue
        for block in _tables(text):
            if len(block) < 2 or not re.fullmatch(r"\s*\|[\s:|-]+\|\s*", block[1]):
                continue
            tables_seen += 1
            want = _cells(block[0])
            for line in block[1:]:
                assert _cells(line) == want, f"{path}: {want} header cells, {_cells(line)} in {line[:160]!r}"
    assert tables_seen > 20


def test_set_page_has_no_conditions_column_without_cells(pages):
    text = pages[H200]
    header = next(ln for ln in text.splitlines() if ln.startswith("| Variant | Kernels / forward"))
    assert "Spread | Eager ms" in header


def _page(pages, name: str) -> str:
    return pages[f"generated/{name}"]


def test_decode_does_not_claim_the_l2_cache_and_gives_the_datasheet_share(pages):
    """K and V of decode are GiBs against an L2 of tens of MiB: no kernel keeps them there; the read
    ceiling is one torch.sum, a weak bound, and the datasheet share stands beside it."""
    for name in ("decode", "decode-kernels"):
        text = _page(pages, f"{OWN}/scenarios/{name}.md")
        assert "L2 cache between calls" not in text, name
    text = _page(pages, f"{OWN}/scenarios/decode.md")
    assert "the read ceiling is one reduction (a torch.sum over 4 GiB), a weak bound" in text
    assert re.search(r"The best point, 4\.\d\d TB/s, is 9\d% of the datasheet&#39;s 4\.8 TB/s", text), text


def test_decode_table_names_the_ceiling_it_used_and_the_bandwidth_share(pages):
    text = _page(pages, f"{OWN}/scenarios/decode.md")
    assert "% of ceiling is of the measured read bandwidth" in text
    assert "% of ceiling is of the measured copy bandwidth" not in text
    header = next(ln for ln in html_table.lines(text) if ln.startswith("| Variant | Point | Status"))
    assert "% of datasheet" in header and "speed of light" not in header
    prefill = next(ln for ln in html_table.lines(_page(pages, f"{OWN}/scenarios/gqa-prefill.md"))
                   if ln.startswith("| Variant | Point | Status"))
    assert "Compute SOL" in prefill


def test_chunked_prefill_counts_lower_right_pairs_and_leaves_wrong_answers_out(pages):
    text = _page(pages, f"{OWN}/scenarios/chunked-prefill.md")
    assert "Sq·(Sk − Sq) + Sq·(Sq + 1)/2" in text
    # the top-left is_causal variant answers wrong while doing less work: no ceiling or roofline talk of it
    assert "pass the measured matmul ceiling" not in text
    roof = next(ln for ln in text.splitlines() if "lie above the line" in ln) if "lie above the line" in text else ""
    assert "is&#95;causal" not in roof


def test_decode_is_one_query_not_chunks_of_one(pages):
    for name in ("scenarios/decode.md", "scenarios/decode-kernels.md", "scenarios/index.md",
                 f"{OWN}/scenarios/decode.md", f"{OWN}/scenarios/decode-kernels.md"):
        assert "chunks of 1 queries" not in _page(pages, name), name
    assert "one query token per sequence (decode)" in _page(pages, f"{OWN}/scenarios/decode.md")


def test_scaling_names_the_roofline_share(pages):
    text = _page(pages, f"{OWN}/scaling.md")
    assert "Share of roofline" in text and "Share of bound" not in text


def test_pytorch_reasons_lose_their_logging_prefix_and_repeats(pages):
    from gen.model import said

    raw = ("W1203 16:39:50.619000 452 torch/nested/_internal/sdpa.py:286] Nested tensors for query / key are not "
           "supported when is_causal=True.; Nested tensors for query / key are not supported when is_causal=True.")
    assert said.reasons(raw) == "Nested tensors for query / key are not supported when is_causal=True."
    assert said.reasons("a; b; a") == "a; b"
    text = _page(pages, f"{OWN}/scenarios/packed-documents.md")
    assert "W1203" not in text and "sdpa.py&#58;286&#93;" not in text
    row = next(ln for ln in text.splitlines() if "Nested tensors for query / key" in ln)
    assert row.count("Nested tensors for query / key") == 1, row


def test_a_kernel_at_both_limits_is_not_called_compute_bound(pages):
    from gen.analysis import counters

    assert counters.bound(73.0, 69.0) == counters.Bound.BOTH
    assert counters.bound(90.0, 66.0) == counters.Bound.COMPUTE
    assert counters.bound(62.0, 30.0) == counters.Bound.LINE
    text = _page(pages, f"{OWN}/findings.md")
    key = "naive&#95;compiled&#58; triton&#95;per&#95;fused&#95;&#95;softmax"
    line = next(ln for ln in text.splitlines() if key in ln)
    assert "compute-bound" not in line and "at both limits" in line, line[:400]


def test_the_gap_is_the_clock_only_where_our_burst_lands_on_the_published_time(pages):
    """The clock rule holding for the sustained time is not enough to say the gap is the clock: our
    own burst must land on the published time too, and a burst that slowed within itself is read
    by its leading calls (rules.burst_lead)."""
    text = _page(pages, f"{OWN}/scenarios/gqa-prefill.md")
    lines = [ln for ln in text.splitlines() if ln.startswith("- At ") and "published" in ln and "burst" in ln]
    assert lines
    for ln in lines:
        assert "the source does not state its clock settings" in ln
        m = re.search(r"Our own burst at that clock took [\d.]+ ms, ([\d.]+)× the published time", ln)
        assert m, ln
        if "the gap is the clock." in ln:
            assert abs(float(m.group(1)) - 1) <= 0.05 + 0.005, ln
        if abs(float(m.group(1)) - 1) <= 0.05 - 0.005:
            # our burst lands on the published time: whatever the sustained time does, the kernels match
            assert "does not explain" not in ln and "the gap is the clock" in ln, ln
    # At 16k and 32k a burst of 20 calls heats the GPU: it slowed within itself (its last calls over
    # its first by more than 5%), and the rule takes its leading calls, which land on the published time.
    from gen.analysis import rules

    ls = tables.load_set(ROOT / "results" / "nvidia-h200__torch-2.11.0")
    for n in (16384, 32768):
        (p,) = [p for p in ls.rs.sweep if p.scenario == "gqa-prefill" and p.variant == "sdpa_cudnn"
                and p.mode == "inference" and p.point.kv_len == n]
        lead = rules.burst_lead(p.timing.burst_ms)
        assert lead and len(lead) < len(p.timing.burst_ms)
        ln = next(x for x in lines if x.startswith(f"- At {n:,} tokens"))
        first = f"its first {len(lead)} calls took" if len(lead) != 1 else "its first call took"
        assert "slowed within itself" in ln and first in ln, ln


def test_deterministic_backward_prices_reproducible_gradients_without_forward_anchors(pages):
    from gen.analysis import scenarios as sa

    ls = tables.load_set(ROOT / "results" / "nvidia-h200__torch-2.11.0")
    cost = sa.determinism_frame(sa.point_frame(ls, "deterministic-backward")).set_index("backend")
    assert cost.loc["flash", "ratio"] > 1 and cost.loc["efficient", "ratio"] > cost.loc["flash", "ratio"]
    text = _page(pages, f"{OWN}/scenarios/deterministic-backward.md")
    assert "### What reproducible gradients cost" in text
    assert f"{cost.loc['flash', 'ratio']:.2f}× the time" in text
    assert f"{cost.loc['efficient', 'ratio']:.2f}× the time" in text
    assert "### Published" not in text and "– – · –" not in text  # forward-only figures beside training steps


def test_packed_documents_says_what_was_measured_and_what_did_not_run(pages):
    text = _page(pages, f"{OWN}/scenarios/packed-documents.md")
    assert "Measured here&#58; forward passes only (inference); no training step was timed." in text
    head = text.split("### Every variant at every point")[0]
    # the committed set measured FlexAttention's document mask too: nothing is said skipped
    assert "FlexAttention" in head and "did not run here (skipped" not in head


def test_a_why_of_fewer_events_also_gives_the_time_of_those_events_and_the_main_kernels(h200_new):
    """The count of GPU events alone is no cause: the line says how long the runner-up's other events
    take against the gap, and the two main kernels' times."""
    from gen.analysis import verdicts
    from gen.report.words import verdicts as verdict_words

    v = verdicts.verdict(h200_new, "decode-kernels")
    assert v.why is not None and v.why.kind == "fewer_events"
    line = next(x for x in verdict_words.verdict(v).lines if x.startswith("Why: it runs"))
    assert "events besides its main kernel take" in line and "the main kernels themselves" in line
    assert f"{v.why.runner_up_main_us / 1000 * 1000:.1f} µs" in line


def test_graph_above_eager_is_marked_and_said(pages, h200_new):
    from gen.analysis import rules

    assert rules.graph_above_eager(1.03, 1.0, "cuda_graph") and not rules.graph_above_eager(1.01, 1.0, "cuda_graph")
    assert not rules.graph_above_eager(1.5, 1.0, "kernel_sum") and not rules.graph_above_eager(None, 1.0, "cuda_graph")
    from gen.analysis import scenarios as scen
    from gen.model.scenarios import SCENARIOS
    from gen.report.words import scenarios as scenario_words

    # Every scenario page of the committed set marks the rows its point table flags, and says why.
    ls, marked = h200_new, 0
    for name in SCENARIOS:
        path = f"{OWN}/scenarios/{name}.md"
        if f"generated/{path}" not in pages:
            continue
        text = _page(pages, path)
        frame = scen.point_frame(ls, name)
        want = int(frame["graph_above_eager"].sum()) if len(frame) else 0
        got = text.count("(graph above eager)</td>") + sum(
            1 for ln in text.splitlines() if ln.startswith("| ") and "(graph above eager)" in ln)
        assert got == want, name
        if want:
            # the note's level depends on the rows' samples (their real level): its opening does not
            head = scenario_words.graph_above_eager_note(want).split(" by median")[0]
            assert head in html.unescape(text) and "intervals" in html.unescape(text).split(head)[1][:400]
        marked += want
    assert marked >= 1  # the committed H200 set has such a row (fp8-prefill's unpinned SDPA at 16k)


def test_chunked_prefill_why_gives_the_launch_grids_against_the_sms(h200_new):
    """Split-KV or not shows in the grid: 64 blocks of cuDNN's kernel on 132 SMs leave half of them idle."""
    from gen.analysis import verdicts
    from gen.report.words import verdicts as verdict_words

    v = verdicts.verdict(h200_new, "chunked-prefill")
    w = v.why
    assert w is not None and w.sm_count == 132 and w.runner_up_main_blocks < w.sm_count < w.fastest_main_blocks
    line = next(x for x in verdict_words.verdict(v).lines if x.startswith("Why:"))
    assert (f"runs {w.fastest_main_blocks:,} thread blocks" in line
            and f"({w.runner_up_main_blocks:,} blocks leave {132 - w.runner_up_main_blocks} SMs without one)" in line)


def test_the_home_page_says_what_a_kernel_sum_row_is(pages):
    # the committed H200 set's Naive forward has no CUDA-graph time (its graph ran a copy as a kernel)
    home = pages["generated/.home.md"]
    assert "Naive (kernel sum)" in home and "A row marked *(kernel sum)* had no CUDA-graph time" in home


def test_a_scenario_row_with_few_samples_says_so(pages):
    """The sliding window's naive rows ran a few calls of ~150 ms: fewer GPU-only samples than the
    report's floor (rules.MIN_SAMPLES), marked thin in the scenario table as on the set page."""
    from gen.analysis import rules

    ls = tables.load_set(ROOT / "results" / "nvidia-h200__torch-2.11.0")
    few = [p for p in ls.rs.sweep if p.scenario == "sliding-window" and p.status == "ok"
           and 0 < len(p.timing.gpu_only_ms or p.timing.kernel_sum_ms or []) < rules.MIN_SAMPLES]
    assert few
    text = _page(pages, f"{OWN}/scenarios/sliding-window.md")
    assert ": thin)" in text
