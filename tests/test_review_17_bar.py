"""Review 2026-12-07-7 (review 16) item 5: the default row says where its gain over SDPA unpinned reaches the 1.2x
bar and the range of its gains in the other workloads, in the row's folded detail (the visible cell has no line to
spare on the first screen at 390 px)."""

from __future__ import annotations

from gen.analysis import advice, rules
from gen.analysis.values import variant_role
from gen.report.pages import decision as decision_page
from gen.report.words import first_screen as screen_words

H100 = "nvidia-h100-80gb-hbm3__torch-2.11.0"



# --------------------------------------------------------------------------- review 2026-12-07-7 item 5: the bar


def test_the_default_rows_detail_says_where_its_gain_reaches_the_bar(loaded):
    ls = loaded[H100]
    a = advice.advice(ls)
    auto = variant_role("automatic")
    row = decision_page.table_rows(ls)[0]
    assert row["variant"] == a.default == "fa4"
    exceptions = {(e.scenario, str(e.mode)) for e in a.exceptions}
    gains = {v.scenario + str(v.mode): g for v, _ in decision_page._ranked(ls)
             if (v.scenario, str(v.mode)) not in exceptions
             and (g := decision_page._gain(v, a.default, auto)) is not None}
    under = [g for g in gains.values() if g < rules.ADVICE_MIN_GAIN]
    assert {k for k, g in gains.items() if g >= rules.ADVICE_MIN_GAIN} == {"sliding-windowinference",
                                                                           "packed-documentsinference"}
    # one precision, the cell's (review 20 item 9; review 24 #10): two decimals, and the line in words where the upper
    # end would read as it
    said = (f"Gains 1.2× or more over SDPA only where SDPA gets a dense mask (sliding windows and packed documents); "
            f"{min(under):.2f}× to just under 1.2× in {len(under)} others.")
    assert said in row["detail"] and max(under) < 1.2 and f"{max(under):.2f}" == "1.20"  # never "1.20×" beside 1.2×
    assert said not in row["condition"]  # the first screen's visible cell has no line to spare at 390 px


def test_the_bar_sentence_when_none_or_all_clear():
    none = screen_words.bar_cleared([], False, [1.0, 1.1])
    assert none == "Gains under 1.2× over SDPA in every workload (1.00–1.10×)."
    assert screen_words.bar_cleared(["decode"], False, [1.05]) == (
        "Gains 1.2× or more over SDPA only in decode; 1.05× in 1 other.")
    assert screen_words.bar_cleared(["decode"], True, []) is None
