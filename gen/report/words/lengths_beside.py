"""A set that did not measure new lengths, told what a set of the same GPU model and PyTorch measured there
(gen.analysis.length_cost.Beside; review 2026-12-07-5 item 5), and what to do about it."""

from __future__ import annotations

from gen.report.words.common import join_and, label, us

# what to do where cuDNN plans every new length: a backend that plans none, or fewer lengths
WHAT_TO_DO = ("where lengths change call by call, pin SDPA's flash backend (torch.nn.attention.sdpa_kernel("
              "SDPBackend.FLASH_ATTENTION)), or bucket or pad lengths to a few shapes so each plan is reused")


def lengths_beside(b, phase_words: dict) -> str:
    """The sibling set's cuDNN first-call extra per phase (median over lengths), SDPA flash's beside it where it ran,
    and what to do."""
    cudnn = join_and(f"{us(first)} at {phase_words.get(ph, ph)}" for ph, first, _ in b.phases)
    text = (f"The set {b.title} ({b.name}), on the same GPU model and PyTorch, did: {label('sdpa_cudnn')}'s first "
            f"call cost a median {cudnn} more than its second call")
    flash = dict(b.flash)
    if all(ph in flash for ph, _, _ in b.phases):
        text += f"; {label('sdpa_flash')}'s, " + join_and(us(flash[ph]) for ph, _, _ in b.phases)
    return text + f". So {WHAT_TO_DO}."
