"""How the first screen names workloads: a scenario in a reader's words (SCENARIO_WORDS), the scenario's own where two
rows would read the same (PRECISE_WORDS), and the places the default's claims hold (place_of)."""

from __future__ import annotations

# How a scenario reads in the decision (a reader's words for the workload); others by their name.
SCENARIO_WORDS = {"article": "prefill", "gqa-prefill": "prefill", "decode": "decode",
                  "sliding-window": "sliding windows", "packed-documents": "packed documents",
                  "chunked-prefill": "chunked prefill (a chunk of queries against a KV cache)",
                  "decode-kernels": "decode", "fp8-prefill": "FP8 prefill",
                  "deterministic-backward": "deterministic training"}
# Where two rows of the answer table would read the same word ("prefill" for the default's GQA prefill and for an
# exception at the article's shape), each scenario's own
PRECISE_WORDS = {"article": "prefill at the article's shape", "gqa-prefill": "grouped-query prefill",
                 "decode-kernels": "the decode kernels"}


# The workloads of the default's own claims, apart where SCENARIO_WORDS reads two as one ("prefill")
PLACE_WORDS = {"article": "the article's shape", "gqa-prefill": "prefill with grouped-query attention",
               "decode-kernels": "the decode kernels compared"}


def place_of(scenario: str, mode: str) -> str:
    """A workload of the default's own claims in a reader's words (training by its step)."""
    if mode == "train":
        return "training" if scenario != "deterministic-backward" else SCENARIO_WORDS[scenario]
    return PLACE_WORDS.get(scenario) or SCENARIO_WORDS.get(scenario, scenario)
