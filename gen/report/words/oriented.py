"""A headline rate whose round orientations differ (gen.analysis.calls.OrientedRate) in words: each orientation's
median and rate and the kernel sum's beside the median's (GQA prefill at 32k keys gave
729 TFLOP/s from its forward rounds alone, its reversed rounds 1.27x slower)."""

from __future__ import annotations

from gen.analysis import rules
from gen.report.words.common import us


def sentence(o, value, unit: str, ceiling: tuple[float, str] | None = None, variant_label=None) -> str:
    """" Its round orientations differ by 1.27×, past the 5% the methodology marks. The median lies with the forward
    rounds (24.130 ms, 729 TFLOP/s, 102% of the measured ceiling). The reversed rounds' median is 30.550 ms,
    576 TFLOP/s. Its kernel sum is 27.160 ms, 648 TFLOP/s."; "" where `o` is None. Short sentences, brackets one
    deep. `value` prints a rate, `unit` names it; `ceiling`: (the measured ceiling's rate, its name), each rate past
    it given as its share of that ceiling by the rule the headline's median is (rules.above_ceiling: chunked
    prefill's 732 and 740 TFLOP/s, 102-103% of the 717 ceiling, went unflagged); the calls sharing its rank that are
    faster in the other orientation (o.lower_there) named by the fastest of them and its median there, by
    `variant_label`."""
    if o is None:
        return ""
    each = {"forward": (o.forward_ms, o.forward_rate), "reversed": (o.reversed_ms, o.reversed_rate)}
    other = "reversed" if o.median_with == "forward" else "forward"

    def at(ms, rate):
        text = f"{us(ms)}, {value(rate)} {unit}"
        if ceiling is not None and ceiling[0] and rate is not None:
            pct = 100 * rate / ceiling[0]
            if rules.above_ceiling(pct):
                text += f", {pct:.0f}% of {ceiling[1]}"
        return text
    text = (f" Its round orientations differ by {o.ratio:.2f}×, past the {rules.ORIENTATION_GAP_PCT:g}% the "
            f"methodology marks. The median lies with the {o.median_with} rounds ({at(*each[o.median_with])}). The "
            f"{other} rounds' median is {at(*each[other])}")
    if o.lower_there and variant_label is not None:  # the fastest of the calls ahead of it there
        v, ms = o.lower_there[0]
        text += f", behind {variant_label(v)}'s {us(ms)} there"
    if o.kernel_sum_ms is not None and o.kernel_sum_rate is not None:
        text += f". Its kernel sum is {at(o.kernel_sum_ms, o.kernel_sum_rate)}"
    return text + "."
