"""A set that did not measure new lengths, told what a set of the same GPU model and PyTorch measured there
(gen.analysis.length_cost.Beside), and what to do about it, with the warm cost of the
call it advises."""

from __future__ import annotations

from gen.report.words.common import join_and, label, short_label, times, us

# what to do where cuDNN plans every new length: a backend that plans none, or fewer lengths
PIN_FLASH = ("where lengths change call by call, pin SDPA's flash backend with torch.nn.attention.sdpa_kernel("
             "SDPBackend.FLASH_ATTENTION)")
BUCKET = "or bucket or pad lengths to a few shapes so each plan is reused"
WHAT_TO_DO = f"{PIN_FLASH}, {BUCKET}"


def about_count(n: float) -> str:
    """A break-even count to two figures: it rests on medians of a few lengths each, no finer."""
    return f"{float(f'{n:.2g}'):,.0f}"


def flash_trade(b, phases=None) -> str:
    """What pinning flash costs once warm against cuDNN, per phase the sibling measured both (Beside.flash_trade):
    "in prefill its warm call takes 247.4 µs against cuDNN's 124.1 µs, 1.99×, so it costs less in all only at a
    length seen fewer than about 300 times"; against the default call where that call ran cuDNN's kernels faster warm
    than pinned cuDNN ("faster too, 54.2 against 91.2 µs" was against pinned cuDNN, while the
    default took 49.5 µs): "in decode its warm call takes 54.2 µs, 1.09× the 49.5 µs of unpinned SDPA on
    cuDNN's kernels, while SDPA cuDNN pinned takes 91.2 µs; what decides is each new length, 45.4 µs against cuDNN's
    56.375 ms: it costs less in all at a length seen fewer than about 12,000 times"; "" where neither phase has
    both."""
    parts = []
    extra = dict(b.flash)
    for p in b.phases:
        ph, cx = p.phase, p.first_extra_ms
        if phases is not None and ph not in phases:
            continue
        got = b.flash_trade(ph)
        if got is None:
            continue
        f, c, n, who, pinned = got.flash_ms, got.against_ms, got.calls, got.against, got.pinned_ms
        if who != "sdpa_cudnn":  # the default call on cuDNN's kernels, faster warm than pinned cuDNN
            # inside a bracket, so no label with a bracket of its own: brackets one deep
            name = "unpinned SDPA" if who == "sdpa_auto" else short_label(who)
            against = f"{us(c)} of {name} on cuDNN's kernels and {us(pinned)} of {label('sdpa_cudnn')} pinned"
            if n is None:
                parts.append(f"in {ph} its warm call is faster too, {us(f)} against the {against}")
                continue
            new = f"{us(extra[ph])} against cuDNN's {us(cx)}" if ph in extra else f"cuDNN's {us(cx)}"
            # the ratio is of the unpinned call's time alone; pinned cuDNN's gets its own verb, or "1.09× the 49.5
            # µs ... and 91.2 µs" reads as 1.09× of both
            parts.append(f"in {ph} its warm call takes {us(f)}, {times(f / c)} the {us(c)} of {name} on cuDNN's "
                         f"kernels, while {label('sdpa_cudnn')} pinned takes {us(pinned)}; what decides is each new "
                         f"length, {new}: it costs less in all at a length seen fewer than about "
                         f"{about_count(n)} times")
        elif n is None:
            parts.append(f"in {ph} its warm call is faster too, {us(f)} against {us(c)}")
        else:
            parts.append(f"in {ph} its warm call takes {us(f)} against {label('sdpa_cudnn')}'s {us(c)}, "
                         f"{times(f / c)}, so it costs less in all only at a length seen fewer than about "
                         f"{about_count(n)} times")
    return "; ".join(parts)


def lengths_beside(b, phase_words: dict, phases=None) -> str:
    """The sibling set's cuDNN first-call extra per phase (median over lengths), SDPA flash's beside it where it ran,
    and what to do, with flash's warm cost against cuDNN's; `phases`: only these (a scenario page's one phase)."""
    mine = [p for p in b.phases if phases is None or p.phase in phases]
    cudnn = join_and(f"{us(p.first_extra_ms)} at {phase_words.get(p.phase, p.phase)}" for p in mine)
    text = (f"The set {b.title} ({b.name}), on the same GPU model and PyTorch, did: {label('sdpa_cudnn')}'s first "
            f"call cost a median {cudnn} more than its second call")
    flash = dict(b.flash)
    if mine and all(p.phase in flash for p in mine):
        text += f"; {label('sdpa_flash')}'s, " + join_and(us(flash[p.phase]) for p in mine)
    trade = flash_trade(b, phases)
    return text + (f". So {PIN_FLASH} ({trade}), {BUCKET}." if trade else f". So {WHAT_TO_DO}.")
