"""Which plain call a deterministic one is priced against, and with which of their times: the one pairing rule
(`base_of`) and the one like-with-like rule (`like_with_like`) of the set's determinism costs
(gen.analysis.determinism) and of the scenario page's (gen.analysis.scenarios.determinism_frame). The like-with-like
rule is the report's for every ratio of two GPU-only times: FP8 against its twin (scenarios.fp8_frame), the speed-up
over naive (tables.summary_table) and the same point in two scenarios (same_point).
Takes variant names and times; reads no verdict, so that all may import it."""

from __future__ import annotations

from gen.analysis.values import missing
from gen.model.variants import VARIANTS


def deterministic(variant: str) -> bool:
    var = VARIANTS.get(variant)
    return var is not None and "deterministic" in var.keywords


def base_of(name: str, have) -> str | None:
    """The same call without determinism for a deterministic variant (keyword "deterministic"), among the variant
    names `have`: the same SDPA backend pinned, or for a call that pins none (FlashAttention-4) the variant its name
    extends (fa4_det -> fa4), never another library that also pins no backend; None where `name` is not deterministic
    or its plain call is not in `have`. The one pairing rule of the set's determinism costs and the scenario page's."""
    var = VARIANTS.get(name)
    if var is None or "deterministic" not in var.keywords:
        return None
    same = [k for k, b in VARIANTS.items() if b.backend == var.backend and "deterministic" not in b.keywords
            and k in have and (var.backend is not None or name.startswith(k + "_"))]
    return next((k for k in same if name.startswith(k + "_")), same[0] if same else None)


def like_with_like(det_ms: float | None, det_method: str | None, det_sum_ms: float | None, base_ms: float | None,
                   base_method: str | None, base_sum_ms: float | None) -> tuple[float | None, float | None, bool]:
    """(deterministic time, plain time, whether both are kernel sums): the two steps' GPU-only times where they are of
    one kind; where one is a graph replay and the other a kernel sum, both kernel sums, which every profiled step has
    (SDPA flash 10.09 ms replayed against 6.441 ms summed).
    The one like-with-like rule of the set's determinism costs and the scenario page's."""
    if det_method != base_method and not missing(det_sum_ms) and not missing(base_sum_ms):
        return det_sum_ms, base_sum_ms, True
    return det_ms, base_ms, False
