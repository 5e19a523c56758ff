"""Why SDPA picks the backend it picks: PyTorch's own choice and its reasons for refusing the others.

Takes: the tensors and arguments that reach SDPA's dispatcher (or an
nn.Module of gen.capture.modules with `sdpa_args` / `nest`). Gives:
`sdpa_choice` (the backend the dispatcher picks), `backend_reasons` (per
fused backend, "eligible" or PyTorch's words for refusing),
`nested_reasons` (nested SDPA's choice and reasons), `said_by_pytorch` (what
PyTorch warns inside, Python and C++), and `explain_sdpa` /
`explain_nested` / `explain_lower_right`, each giving a variant's
`Built.explain(q, k, v) -> (choice, reasons)`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import tempfile
import warnings

import torch
from torch.nn.attention import SDPBackend

from gen.model import said as pytorch_said

# SDPA's backends as PyTorch's checks name them: the key stored, the check.
_SDPA_CHECKS = {
    "flash": "can_use_flash_attention",
    "efficient": "can_use_efficient_attention",
    "cudnn": "can_use_cudnn_attention",
}
_BACKEND_NAMES = {"FLASH_ATTENTION": "flash", "EFFICIENT_ATTENTION": "efficient", "CUDNN_ATTENTION": "cudnn",
                  "MATH": "math", "OVERRIDEABLE": "overrideable", "ERROR": "none"}
ELIGIBLE = "eligible"


# c10's warnings as its default handler prints them on stderr:
# "[W... file.cpp:457] Warning: <message> (function <name>)".
_CPP_WARNING = re.compile(r"Warning: (.*?)(?: \(function \w+\))?\s*$")
_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?")


@contextlib.contextmanager
def said_by_pytorch(out: list[str]):
    """What PyTorch says inside: Python warnings, and the C++ warnings that
    torch.backends.cuda.can_use_*(debug=True) writes straight to stderr (file
    descriptor 2, not Python's warnings) on torch 2.11, read back from a
    temporary file. Messages, in order, once each, into `out`."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            text = tmp.read().decode(errors="replace")
    said = [str(w.message) for w in caught]
    for line in text.splitlines():
        m = _CPP_WARNING.search(line)
        said.append(m.group(1) if m else line)
    said = [pytorch_said.plain(_TRIGGERED.sub("", x)) for x in said]
    out.extend(dict.fromkeys(x.rstrip(":") for x in said if x and not x.endswith("not used because:")))


def backend_reasons(q, k, v, mask, is_causal: bool, gqa: bool) -> dict[str, str]:
    """Per fused backend, "eligible" or PyTorch's own reasons for refusing
    these inputs: torch.backends.cuda.can_use_*(SDPAParams(...), debug=True)
    reports them as warnings, kept as text. Math is always eligible when on."""
    out: dict[str, str] = {}
    if q.device.type != "cuda":
        return {name: "not asked: PyTorch's checks are for CUDA tensors" for name in _SDPA_CHECKS}
    try:
        params = torch.backends.cuda.SDPAParams(q, k, v, mask, 0.0, is_causal, gqa)
    except (RuntimeError, TypeError) as exc:  # the signature moved between releases
        return {name: f"not asked: SDPAParams refused ({str(exc).strip().splitlines()[0][:200]})"
                for name in _SDPA_CHECKS}
    for name, check in _SDPA_CHECKS.items():
        fn = getattr(torch.backends.cuda, check, None)
        if fn is None:
            out[name] = f"not asked: torch.backends.cuda has no {check}"
            continue
        said: list[str] = []
        with said_by_pytorch(said):
            try:
                ok = fn(params, debug=True)
            except RuntimeError as exc:
                ok = False
                said.append(str(exc).strip().splitlines()[0])
        out[name] = ELIGIBLE if ok else ("; ".join(said)[:1000] or "refused (PyTorch gave no reason)")
    out["math"] = ELIGIBLE if torch.backends.cuda.math_sdp_enabled() else "disabled"
    return out


class _LogLines(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def nested_reasons(q, k, v, is_causal: bool) -> tuple[str | None, dict[str, str]]:
    """Nested SDPA's own choice (torch.nested._internal.sdpa, private: guarded)
    and, per backend, "eligible" or the reasons it logs: the generic checks
    plus its jagged ones, which it reports through logging, not warnings."""
    try:
        from torch.nested._internal import sdpa as nested_sdpa
    except ImportError as exc:
        return None, {"all": f"not asked: torch.nested._internal.sdpa is missing ({exc})"}
    params = torch.backends.cuda.SDPAParams(q, k, v, None, 0.0, is_causal, False)
    checks = {"flash": ("can_use_flash_attention", "_can_use_flash_sdpa_jagged"),
              "efficient": ("can_use_efficient_attention", "_can_use_efficient_sdpa_jagged"),
              "math": (None, "_can_use_math_sdpa_jagged")}
    reasons: dict[str, str] = {}
    handler = _LogLines()
    nested_sdpa.log.addHandler(handler)
    try:
        for name, (generic, jagged) in checks.items():
            handler.lines.clear()
            said: list[str] = []
            with said_by_pytorch(said):
                ok = generic is None or getattr(torch.backends.cuda, generic)(params, debug=True)
                fn = getattr(nested_sdpa, jagged, None)
                ok = ok and (fn is None or fn(params, debug=True))
            # torch's logger also prints each record on stderr, prefixed: said once, without the prefix
            said = said + [pytorch_said.plain(y) for y in handler.lines]
            reasons[name] = ELIGIBLE if ok else (pytorch_said.reasons("; ".join(said))[:1000]
                                                 or "refused (PyTorch gave no reason)")
        got = nested_sdpa._select_sdp_backend(q, k, v, None, 0.0, is_causal, False)
        choice = _BACKEND_NAMES.get(got.name, got.name.lower())
    except (RuntimeError, TypeError, AttributeError) as exc:
        return None, {**reasons, "error": f"not asked: {str(exc).strip().splitlines()[0][:200]}"}
    finally:
        nested_sdpa.log.removeHandler(handler)
    reasons["cudnn"] = reasons.get("cudnn", "not asked: nested SDPA tries cuDNN last, after math")
    return choice, reasons


def explain_nested(module):
    @_safe
    def explain(q, k, v):
        return nested_reasons(module.nest(q), module.nest(k, True), module.nest(v, True), True)
    return explain


def sdpa_choice(q, k, v, mask, is_causal: bool, gqa: bool) -> str | None:
    """The backend SDPA's dispatcher picks for these inputs (torch._fused_sdp_choice)."""
    try:
        got = torch._fused_sdp_choice(q, k, v, mask, 0.0, is_causal, enable_gqa=gqa)
    except (RuntimeError, TypeError, AttributeError):
        return None
    return _BACKEND_NAMES.get(SDPBackend(got).name, SDPBackend(got).name.lower())


def _safe(explain):
    """An explanation never fails the point it explains: its error is its answer."""
    def safe(q, k, v):
        try:
            return explain(q, k, v)
        except Exception as exc:  # private or moved APIs; the point still runs
            return None, {"error": f"not asked: {type(exc).__name__}: {str(exc).strip()[:200]}"}
    return safe


def explain_sdpa(module):
    @_safe
    def explain(q, k, v):
        (q, k, v), mask, is_causal, gqa = module.sdpa_args(q, k, v)
        return sdpa_choice(q, k, v, mask, is_causal, gqa), backend_reasons(q, k, v, mask, is_causal, gqa)
    return explain


def explain_lower_right(module):
    """CausalBias._dispatch's own order: flash, else efficient, else math with the
    mask materialised, asked with no mask and is_causal False; cuDNN is never asked."""
    def explain(q, k, v):
        reasons = backend_reasons(q, k, v, None, False, module.gqa)
        reasons["cudnn"] = "not asked: the lower-right causal bias dispatches to flash, efficient or math only"
        choice = next((b for b in ("flash", "efficient") if reasons[b] == ELIGIBLE), "math")
        return choice, reasons
    return explain
