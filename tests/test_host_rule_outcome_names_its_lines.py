"""A loop that waited while the host's cost of a call stays under the rule's upper line reads as the rule's outcome,
with the lines the share lies between, read from gen.analysis.host_rules: "within noise of the host-bound line" is
kept for a share that rounds onto that line (FA4's 1.498). The decode rows read "within noise of the host-bound line:
its 10th-percentile host cost is 0.82× its GPU time, under the rule's 1.5× line", a colon chain that set a share 45%
short of the line beside the word "within noise"."""

from __future__ import annotations

import re

from gen.analysis import host_rules, rules, verdicts
from gen.report.words import host as host_words
from tests.conftest import committed_set

OLDER = "nvidia-h100-80gb-hbm3__torch-2.11.0"
UPPER, LOWER = host_rules.HOST_YES_MARGIN, 1 / host_rules.HOST_HEADROOM


def test_the_host_measure_reads_the_rules_lines():
    g = 0.05
    assert host_rules.host_measure(UPPER * g, g) == rules.YES
    assert host_rules.host_measure(0.82 * g, g) == rules.WITHIN_NOISE
    assert host_rules.host_measure(LOWER * g, g) == rules.NO
    assert host_rules.host_measure(None, g) is None and host_rules.host_measure(0.1, 0) is None


def test_a_share_between_the_lines_is_worded_as_undecided_with_both_lines():
    said = host_words.host_short_of_line(0.0408, 0.0498, 1.40)
    assert said == ("The host-bound rule leaves it undecided. The loop's 1.40× says host-bound. Its 10th-percentile "
                    f"host cost, 0.82× its GPU time, lies between the rule's {LOWER:g}× and {UPPER:g}× lines")
    assert "within noise" not in said and ":" not in said
    under = host_words.host_short_of_line(0.3 * 0.05, 0.05, 2.0)
    assert f"0.30× its GPU time, is under the rule's {LOWER:g}× line" in under
    # onto the line at two decimals: within noise of it, said so
    at = host_words.host_short_of_line(0.10425, 0.0696, 2.16)
    assert at.startswith("It is within noise of the host-bound line.") and f"at the rule's {UPPER:g}× line" in at


def test_the_decode_rows_read_the_rules_outcome_in_short_sentences():
    ls = committed_set(OLDER)
    from gen.report.words import verdicts as verdict_words

    v = verdicts.verdict(ls, "decode", "inference")
    text = " ".join(verdict_words.verdict(v).lines)
    assert "within noise of the host-bound line" not in text
    seen = 0
    for x in ("sdpa_cudnn", "sdpa_auto", "sdpa_flash", "flex"):
        t = v.row(x)
        share = t.host_cost_ms / t.gpu_only.median
        assert LOWER < share < UPPER
        seen += f"Its 10th-percentile host cost, {share:.2f}× its GPU time, lies between the rule's" in text
    assert seen == 4
    # the rule's outcome and the median's words are sentences of their own, without a colon
    host = next(line for line in verdict_words.verdict(v).lines if line.startswith(host_words.HOST_SPEED_LEAD))
    said = [s for s in re.split(r"(?<=\.) (?=[A-Z])", host) if s.startswith(("The host-bound rule", "The loop's",
                                                                             "Its 10th", "So the loop", "The host's"))]
    assert len(said) == 5 * 4 and not any(":" in s for s in said)
    assert "): the loop waits" not in host
