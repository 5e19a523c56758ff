"""A headline rate whose round orientations differ (gen.analysis.calls.OrientedRate) in words: each orientation's
median and rate and the kernel sum's beside the median's (review 2026-12-07-1 item 12: GQA prefill at 32k keys gave
729 TFLOP/s from its forward rounds alone, its reversed rounds 1.27x slower)."""

from __future__ import annotations

from gen.analysis import rules


def sentence(o, value, unit: str) -> str:
    """" Its round orientations differ by 1.27×, past the 5% the methodology marks: the median lies with the forward
    rounds (24.13 ms, 729 TFLOP/s); the reversed rounds' median is 30.55 ms, 576 TFLOP/s; its kernel sum 27.16 ms,
    648 TFLOP/s."; "" where `o` is None. `value` prints a rate, `unit` names it."""
    if o is None:
        return ""
    each = {"forward": (o.forward_ms, o.forward_rate), "reversed": (o.reversed_ms, o.reversed_rate)}
    other = "reversed" if o.median_with == "forward" else "forward"

    def at(ms, rate):
        return f"{ms:#.4g} ms, {value(rate)} {unit}"
    text = (f" Its round orientations differ by {o.ratio:.2f}×, past the {rules.ORIENTATION_GAP_PCT:g}% the "
            f"methodology marks: the median lies with the {o.median_with} rounds ({at(*each[o.median_with])}); the "
            f"{other} rounds' median is {at(*each[other])}")
    if o.kernel_sum_ms is not None and o.kernel_sum_rate is not None:
        text += f"; its kernel sum {at(o.kernel_sum_ms, o.kernel_sum_rate)}"
    return text + "."
