"""The first screen (gen.analysis.advice.Advice) -> `AdviceWords`: what to call on this GPU and
PyTorch, and one sentence per exception, start-up cost, varying lengths, determinism and host."""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import advice as advice_mod
from gen.analysis import leads, rules
from gen.analysis.values import variant_role
from gen.model.scenarios import ARTICLE
from gen.model.variants import VARIANTS
from gen.report.words import compiles as compile_words
from gen.report.words import dynamic
from gen.report.words import first_calls as first_call_words
from gen.report.words import orders as orders_words
from gen.report.words import verdicts as verdict_words
from gen.report.words.behind import behind_line
from gen.report.words.common import (
    backend,
    bare_reason,
    join_and,
    label,
    one_timing,
    short_label,
    short_reason,
    times,
    us,
)
from gen.report.words.deterministic import _determinism, _methods  # noqa: F401
from gen.report.words.first_screen import (  # noqa: F401
    TIMED_APART,
    deterministic_lead,
    gain_note,
    mask_arg_note,
    standing,
    standing_short,
    workloads,
)
from gen.report.words.host import host_crossover, host_not_the_gap, host_short_of_line, loop_clause, on_this_host
from gen.report.words.lengths_beside import lengths_beside
from gen.report.words.mask_cost import alternative_line, mask_cost_line
from gen.report.words.methodology import COMPILED_AHEAD_BRIEF
from gen.report.words.orders import DTYPE_WORDS
from gen.report.words.places import PRECISE_WORDS, SCENARIO_WORDS
from gen.report.words.places import place_of as _place_of
from gen.report.words.sentences import Aside
from gen.report.words.sentences import cap as _cap
from gen.report.words.sentences import note_sentences as _note_sentences
from gen.report.words.sum_clocks import clocks_note
from gen.report.words.sweep_turns import clock_fair, reversed_line  # noqa: F401  (moved there)

CALL = "scaled_dot_product_attention"


@dataclass(frozen=True)
class AdviceWords:
    sentences: tuple[str, ...]  # what to call, and the reason, in short sentences (each workload's notes after it)
    lines: tuple[str, ...]  # the exceptions, the start-up, the host: one sentence each
    default: str  # the variant, for tests and links

    @property
    def decision(self) -> str:
        """The sentences as the paragraph the pages show."""
        return " ".join(self.sentences)


def _workload(scenario: str, mode: str) -> str:
    return "training" if mode == "train" else SCENARIO_WORDS.get(scenario, scenario)


def _where(picks) -> str:
    """The workloads of some picks, inference before training."""
    ordered = sorted(picks, key=lambda p: p.mode == "train")
    return join_and(dict.fromkeys(_workload(p.scenario, p.mode) for p in ordered))


def _millions(x: float) -> str:
    return f"{x / 1e6:.1f} M" if x < 1e9 else f"{x / 1e9:.2f} G"


def _place(a: advice_mod.Advice) -> str:
    if a.device == "cuda":
        return f"On this GPU ({a.gpu}) and PyTorch {a.torch}"
    return f"On this CPU ({a.cpu or 'unnamed'}) and PyTorch {a.torch}"


def _default_call(a: advice_mod.Advice) -> str:
    if a.default_is_auto:
        return f"call {CALL} with no backend pinned"
    v = VARIANTS.get(a.default)
    if v is not None and v.backend:
        return f"call {CALL} with the {backend(v.backend)} backend pinned"
    return f"call {label(a.default)}"


def _picks(a: advice_mod.Advice) -> list[str]:
    """What the default call ran where it ranks first, grouped by backend, in a sentence; a default that pins its
    call: where it is first, where within noise of whom, and where it is not first at a verdict's point, in
    sentences."""
    if not a.default_is_auto:
        return _ranks(a)
    first = [p for p in a.picks if p.outcome != "slower"]
    if not first:
        return []
    by: dict = {}
    for p in first:
        by.setdefault(p.backend, []).append(p)
    parts = []
    for b, ps in by.items():
        text = f"picks {backend(b)} for {_where(ps)}" if a.default_is_auto and b else f"ranks first for {_where(ps)}"
        noise = [p for p in ps if p.outcome == "within noise"]
        twin = next((p.twin for p in ps if p.twin), None)
        pinned = (f"the pinned {backend(b.split(' ')[0])} call" if b and VARIANTS.get(twin) and VARIANTS[twin].backend
                  else label(twin) if twin else "")
        where = "" if all(p.twin for p in ps) else " wherever both were measured"
        if twin and not noise:
            text += f", and {pinned} runs the same kernels{where}: a tie"
        elif twin:
            text += f", as {pinned} does; the two are within noise of each other"
        elif noise:
            text += f", within noise of {join_and(dict.fromkeys(label(x) for p in noise for x in p.within))}"
        parts.append(text)
    lead = "It already " if a.default_is_auto else "It "
    return [lead + "; it ".join(parts) + "."]


def other_dtype_clause(a: advice_mod.Advice, scenario: str) -> Aside | None:
    """Where the default ranks first in a scenario of FP8 calls while itself not FP8: it is no FP8 kernel, and
    which FP8 calls were not measured, and why: "as a bf16 call", then those clauses."""
    got = next((x for x in a.other_dtype if x.scenario == scenario), None)
    if got is None:
        return None
    dtype, missing_ = got.dtype, tuple((n.variant, n.reason) for n in got.not_measured)
    return Aside(f"as a {DTYPE_WORDS.get(dtype, dtype) or 'wider'} call", (
        "no FP8 kernel measured there beats it",
        *(f"{label(x)} was not measured: {bare_reason(short_reason(r))}" if r else f"{label(x)} was not measured"
          for x, r in missing_)))


def _places(picks, name=None) -> str:
    name = name or (lambda p: _place_of(p.scenario, p.mode))
    ordered = sorted(picks, key=lambda p: p.mode == "train")
    return join_and(dict.fromkeys(name(p) for p in ordered))


def _place_namer(picks):
    """_place_of, with each training step named by its shape where the picks hold more than one (else "training"
    would stand for two workloads in two clauses)."""
    trains = {p.scenario for p in picks if p.mode == "train" and _place_of(p.scenario, p.mode) == "training"}

    def name(p) -> str:
        base = _place_of(p.scenario, p.mode)
        if len(trains) > 1 and base == "training":
            return f"training at {_place_of(p.scenario, 'inference')}"
        if p.other_batch is not None:
            # the standing holds at the verdict's batch only
            return f"{base} at batch {p.other_batch.at_batch}"
        return base
    return name


def _batch(p, default: str) -> list[str]:
    """The other batch's order beside a decode workload (verdict_words.batch_note), the default and the calls it
    shares the rank with named first; [] where the set measured no other batch, or where it names a call there
    (`batch_call` says it)."""
    if p.other_batch is None or p.batch_call is not None:
        return []
    return verdict_words.batch_note(p.other_batch, (default, *p.within))


def _note_parts(p, default: str, lead: bool = True) -> list[str]:
    """A workload's notes, one clause a sentence: its orders (orders_words.noted_parts), the eager loop's call, and,
    for decode, the call at the other batch (`batch_call`) or the other batch's order (`_batch`)."""
    return [*orders_words.noted_parts(p.orders, p.rows, label, lead),
            *(loop_call(p.loop_call, default, p.mode) if p.loop_call is not None else []),
            *(batch_call(p.batch_call) if p.batch_call is not None else []), *_batch(p, default)]


def loop_call(c, default: str, mode: str = "inference") -> list[str]:
    """Where a loop of eager calls answers otherwise (advice.Pick.loop_call), as clauses: "in an
    eager Python loop, call SDPA (backend not pinned)", "it takes 67.5 µs a call against FlashAttention-4's
    189.2 µs (2.80×)", and whose lead is on the GPU alone."""
    each = "a training step" if mode == "train" else "a call"
    return [f"in an eager Python loop, call {label(c.variant)}",
            f"it takes {us(c.eager_ms)} {each} against {short_label(default)}'s {us(c.own_ms)} "
            f"({times(c.own_ms / c.eager_ms)})",
            f"{short_label(default)}'s lead is on the GPU alone (a CUDA graph)"]


def batch_call(c) -> list[str]:
    """The call for decode with a growing KV cache at the dynamic-lengths runs' batch (gen.analysis.batch_call), as
    clauses, with the batch and the runs' clock."""
    clock = f"at {c.clock_mhz:.0f} MHz" if c.clock_mhz else "clock not recorded"
    out = [f"at batch {c.batch} with a growing KV cache, call {label(c.variant)}",
           f"in the dynamic-lengths decode runs ({c.kv_lo:,}–{c.kv_hi:,} keys, {clock}) it is {times(c.gpu_ratio)} "
           f"faster than {short_label(c.default)} on the GPU ({us(c.gpu_ms)} against {us(c.default_gpu_ms)}), "
           f"{times(c.steady_ratio)} as a warm call in a loop, and the cheapest at a new length ({us(c.new_length_ms)} "
           "beyond a warm call)"]
    if c.gpu_faster is not None:
        x, ms, new = c.gpu_faster.variant, c.gpu_faster.gpu_ms, c.gpu_faster.new_length_ms
        out.append(f"{label(x)}, {us(ms)} on the GPU, pays a median {us(new)} at each" if new is not None else
                   f"{label(x)}, {us(ms)} on the GPU, was not measured at new lengths")
    return out


def _ranks(a: advice_mod.Advice) -> list[str]:
    """A pinned default's standing at each verdict's point: first, within noise of a named call (the tie placed
    with its workloads), or not first, with who is faster there and by how much. Short sentences: each standing
    one, then each workload's notes, one clause a sentence, brackets one deep."""
    first = [p for p in a.picks if p.outcome == "fastest"]
    noise = [p for p in a.picks if p.outcome == "within noise"]
    told = {(e.scenario, e.mode) for e in a.exceptions}
    slower = [p for p in a.picks if p.outcome == "slower" and (p.scenario, p.mode) not in told]
    out: list[str] = []
    name = _place_namer(a.picks)
    odd = [p for p in first if other_dtype_clause(a, p.scenario)]
    first = [p for p in first if p not in odd]

    def notes(ps, lead: bool = True) -> None:
        for p in sorted(ps, key=lambda p: p.mode == "train"):
            out.extend(_note_sentences(name(p), _note_parts(p, a.default, lead)))

    if first:
        out.append(f"It ranks first at the verdict's point for "
                   f"{_places(first, lambda p: name(p) + (' (by kernel sum)' if p.by_sums else ''))}.")
        notes(first)
    for p in odd:  # "as a bf16 call", then its clauses ("no FP8 kernel measured there beats it", ...) a sentence each
        x = other_dtype_clause(a, p.scenario)
        out += [f"It ranks first for {name(p)} {x.head}.", *(f"{_cap(c)}." for c in x.inner)]
    led = [(p, o) for p in noise for o in p.orders if orders_words.kernels_behind(o) == a.default]
    out += _noise_sentences(a, [p for p in noise if p not in (q for q, _ in led)], name)
    for p, o in led:  # as the first screen counts it: not a first place
        err = orders_words.errors(p.rows, label)
        out.append(f"It is {orders_words.BEHIND_BY_KERNELS} for {name(p)}.")
        out += _note_sentences(name(p), [orders_words.kernels_ahead(o, label), *([err] if err else []),
                                         *_batch(p, a.default)])
    if slower:
        out.append(f"It is not first at the verdict's point for {join_and(name(p) for p in slower)}.")
        for p in slower:
            out += _note_sentences(name(p), [f"{label(p.fastest)} is {times(p.ratio)} faster", *_batch(p, a.default)])
    return out


def _noise_sentences(a: advice_mod.Advice, noise, name) -> list[str]:
    """The workloads within noise of (or not decided against) the same calls, one sentence a group, each workload's
    notes after it in sentences."""
    by: dict = {}
    for p in noise:
        # not decided where the as-run intervals are apart and the rule leaves them so
        by.setdefault((any(o.undecided for o in p.orders), join_and(label(x) for x in p.within)), []).append(p)
    out = []
    for (undecided, x), ps in sorted(by.items(), key=lambda kv: kv[0][0]):
        ordered = sorted(ps, key=lambda p: p.mode == "train")
        out.append(f"It is {'not decided against' if undecided else 'within noise of'} {x} for "
                   f"{join_and(dict.fromkeys(name(p) for p in ordered))}.")
        # "not decided: " before a pair's orders where the sentence does not already say it of every pair
        out += [s for p in ordered
                for s in _note_sentences(name(p), _note_parts(p, a.default, not all(o.undecided for o in p.orders)))]
    return out


def _exception(a: advice_mod.Advice, e: advice_mod.Exception_, told: bool = False) -> str:
    """One exception; `told`: an earlier one already said how SDPA takes a dense mask (said shorter here)."""
    # a kept SDPA unpinned reads beside the default's own rows of the same word ("prefill"): the scenario's own words
    where = PRECISE_WORDS.get(e.scenario, _workload(e.scenario, e.mode)) if e.keeps_default and e.mode != "train" \
        else _workload(e.scenario, e.mode)
    at = f" at {e.kv_len // 1024}k" if e.kv_len and e.kv_len % 1024 == 0 else (f" at {e.kv_len}" if e.kv_len else "")
    fwd = " in a forward pass" if e.forward_only else ""
    why_fwd = "; this scenario timed no training step" if e.forward_only else ""
    if e.q_len and at:  # a chunk against a cache: the ratio is of that chunk's size
        at = (f" with {e.q_len:,} quer{'y' if e.q_len == 1 else 'ies'} against{at[3:]} keys (the verdict's point; "
              f"other chunk sizes differ, each on the scenario page{why_fwd})")
    elif why_fwd:
        at += f" ({why_fwd[2:]})"
    by = (", by kernel sum, which decides the order" if e.ratio_by == leads.BY_KERNEL_SUM else _as_run_clocks(a, e))
    text = (f"For {where}, {'keep' if e.keeps_default else 'use'} {label(e.variant)}: {label(a.default)} is "
            f"{times(e.ratio)} slower{fwd}{at}{by}")
    text += loop_clause(e.loop_ms, label(e.variant))  # host-bound: the GPU's gain is not a loop's
    if e.q_len and "wrong-mask" not in VARIANTS.get(e.variant, VARIANTS["sdpa_is_causal"]).keywords:
        # fewer queries than keys: the plain causal flag is the wrong call here, whatever its speed
        why = VARIANTS["sdpa_is_causal"].wrong.split(": ", 1)[0].removeprefix("is_causal=True ")
        text += f". Not SDPA with is_causal=True: it {why}, which gives a wrong answer here"
    text += _dense_mask_text(e, told)
    if place := orders_words.first_place(e.shares, e.by_sums, label):
        text += f". At that point it {'' if place.startswith('shares') else 'is '}{place}"
    text += "." + reversed_line(a, e)
    said = (alternative_line(e.mask_cost, e.mask_orders, e.mask) if e.alternative is not None
            else mask_cost_line(e.mask_cost, e.mask))
    if said is not None:
        text += " " + said
    elif e.mask_build_s is not None and e.call_ms:
        text += (f" Its block mask took {one_timing(e.mask_build_s * 1e3)} to build, against {us(e.call_ms)} a call: "
                 "build it once per mask and reuse it" + ("; built for every call, it would cost more than the call "
                                                          "itself" if e.mask_build_s * 1e3 > e.call_ms else "") + ".")
    text += _start_up(e)
    if e.error is not None and e.default_error is not None:
        text += f" Its relative error: {e.error:.1e} ({short_label(a.default)}: {e.default_error:.1e})"
        if e.input_rounding_error is not None:
            text += (f"; rounding q, k, v to {DTYPE_WORDS.get(e.dtype, e.dtype)} alone moves the answer by "
                     f"{e.input_rounding_error:.1e}")
        text += "."
    return text


def untimed_setup(variant: str | None, who: str | None = None) -> str | None:
    """A set-up of the call no timing saw (Variant.untimed_setup), one sentence, on every page that names the call
    (the H200 FP8 scenario page named cuDNN FP8 without it); `who`: the call's
    label, where the sentence does not follow the call's own: "Its cuDNN graph build (...) runs before every timing
    and was not timed: its start-up is not known."; None for a call without one."""
    setup = getattr(VARIANTS.get(variant), "untimed_setup", None)
    if setup is None:
        return None
    setup = f"{who}'s {setup.removeprefix('its ')}" if who is not None and setup.startswith("its ") else \
        f"{setup[0].upper()}{setup[1:]}"
    return f"{setup} runs before every timing and was not timed: its start-up is not known."


def _start_up(e: advice_mod.Exception_) -> str:
    """What the named call's start-up was: its compile, and a set-up no timing saw (Variant.untimed_setup: the cuDNN FP8
    graph's build in its constructor)."""
    text = ""
    if (setup := untimed_setup(e.variant)) is not None:
        text += f" {setup}"
    if e.compile_s is not None:
        text += f" Its first call at this configuration compiled it in {compile_words.secs(e.compile_s)}"
        text += " (in a later capture call, merged)." if e.compile_merged else (
            f" ({COMPILED_AHEAD_BRIEF})." if e.compile_ahead else ".")
    return text


def _as_run_clocks(a: advice_mod.Advice, e: advice_mod.Exception_) -> str:
    """An as-run ratio's two window clocks, each named, where they differ, and the kernel sums' ratio beside it: ", as
    run, cuDNN FP8 attention at 1779 MHz against SDPA's 1660 MHz (1.39× by kernel sum)"; "" where
    the clocks agree or are not recorded."""
    o = e.against
    if o is None or o.first_mhz is None or o.second_mhz is None or f"{o.first_mhz:.0f}" == f"{o.second_mhz:.0f}":
        return ""
    ks = f" ({times(o.kernel_sum)} by kernel sum)" if o.kernel_sum is not None else ""
    return (f", as run, {short_label(e.variant)} at {o.first_mhz:.0f} MHz against {short_label(a.default)}'s "
            f"{o.second_mhz:.0f} MHz{ks}")


def _dense_mask_text(e: advice_mod.Exception_, told: bool) -> str:
    """An exception's words on SDPA's dense mask, "" where it has none; `told` as in `_exception`."""
    if not (e.dense_mask and e.pairs_scored and e.pairs_needed):
        return ""
    text = ""
    what = {"sliding": ("no window", "inside the window", "block mask skips the blocks outside it"),
            "document": ("no document mask", "inside the documents",
                         "block mask skips the blocks wholly outside the documents")}.get(
        e.mask or "", ("no such mask", "the mask lets through", "call computes only those"))
    if e.mask == "document" and e.variant in VARIANTS and "varlen" in VARIANTS[e.variant].keywords:
        what = (*what[:2], "cu_seqlens keep each query within its own document")  # it builds no block mask
    if told:
        text += (f". SDPA has {what[0]} either: {e.pairs_scored / e.pairs_needed:.1f}× the "
                 f"{_millions(e.pairs_needed)} pairs {what[1]} per head scored")
    else:
        text += (f". SDPA has {what[0]}: it gets the mask as a dense boolean attn_mask, so its kernel scores "
                 f"every (query, key) pair, {e.kv_len:,} × {e.kv_len:,}, {e.pairs_scored / e.pairs_needed:.1f}× "
                 f"the {_millions(e.pairs_needed)} pairs {what[1]} per head, where {short_label(e.variant)}'s "
                 f"{what[2]}")
    if e.flops_dense and e.flops_needed and not told:
        text += f" ({e.flops_dense / 1e12:.1f} TFLOP against {e.flops_needed / 1e12:.2f})"
    text += f"; the {times(e.ratio)} is against that dense mask"
    if e.between:
        text += ("; calls given the mask's structure rather than a dense mask are closer: " + join_and(
            _between_ratio(e, x, r) + _between_loop(e, x) for x, r in ((b.variant, b.ratio) for b in e.between)))
    return text


def _between_ratio(e: advice_mod.Exception_, x: str, r: float) -> str:
    """A call between the exception's and the default, with how far its ratio holds (never "1.13× slower" bare before
    "shares the first rank" with that call): timed apart, by the measure that decides the pair, the kernel sums
    where the as-run order decides nothing ("varlen_attn 1.38× slower than FlexAttention by kernel sum (timed
    apart)", never its 1.44× as run as the gap), its clocks beside where the exception's own standing does not give
    that pair; " (as run, within noise)" where the verdict shares the first rank between the two; bare where it stands.
    In brackets: the ratios are said in a list joined by commas."""
    head = f"{label(x)} {{}} slower than {short_label(e.variant)}"
    o = next((o for o in e.between_orders if o.second == x), None)
    if x in e.between_apart:
        if o is not None and o.decided and o.deciding[1] == leads.BY_KERNEL_SUM:
            said = e.by_sums is not None and e.by_sums.second == x  # the standing gives its clocks next
            clocks = "" if said else clocks_note(o, short_label)
            return head.format(times(o.kernel_sum)) + f" by kernel sum (timed apart{'; ' + clocks if clocks else ''})"
        return head.format(f"{r:.2f}×") + " (as run, timed apart, which decides nothing)"
    return head.format(f"{r:.2f}×") + (" (as run, within noise)" if x in e.between_noise else "")


def _between_loop(e: advice_mod.Exception_, x: str) -> str:
    """Where a call ranked between the exception's and the default is host-bound, its ratio in an eager loop on this
    host beside the GPU's (advice.Exception_.between_loop): " on the GPU, 4.86× in an eager loop (host-bound, 6.211
    ms a call with 6.008 ms on the host)"; "" elsewhere."""
    got = next(((b.loop_ms, b.host_ms) for b in e.between_loop if b.variant == x), None)
    if got is None:
        return ""
    (mine, theirs), host = got
    on_host = f" with {us(host)} on the host" if host is not None else ""
    ratio = times(mine / theirs) if mine >= theirs else f"{times(theirs / mine)} faster"  # the loop may reverse it
    return f" on the GPU, {ratio} in an eager loop (host-bound, {us(mine)} a call{on_host})"


# The dynamic-lengths phases as a clause names them
PHASE_NAMES = {"prefill": "at new prompt lengths", "decode": "at decode steps"}


def _startup(a: advice_mod.Advice) -> str | None:
    return _startup_of(a.startup)


def _auto_startup(a: advice_mod.Advice) -> str | None:
    """SDPA unpinned's start-up where an exception names it and the default is another call."""
    text = _startup_of(a.auto_startup)
    # the start-up's variant is the process's first call of the backend (SDPA cuDNN): the call named is SDPA unpinned
    auto = label(variant_role("automatic"))
    return f"Where you call {auto} as above: {text[0].lower()}{text[1:]}" if text else None


def _startup_of(s: advice_mod.Startup | None) -> str | None:
    """A call's start-up: the default's (Advice.startup) or SDPA unpinned's where an exception names it
    (Advice.auto_startup)."""
    if s is None:
        return None
    b = backend(s.backend) if s.backend else label(s.variant)
    who = "the process's" if s.in_process else "the capture's"
    decl = VARIANTS.get(s.variant)
    if decl is not None and decl.compiled and not s.backend:
        return _compiled_startup(s, who)
    # the variant beside its backend; a call that pins none is named by its variant already
    text = first_call_words.kinds_line(b, who, label(s.variant) if s.backend else "", s.first_calls, s.first_call_s)
    after = f"{who} first {b} call"
    if text is None:  # no first call timed past this one: whether another problem pays again is not known
        text = f"Expect about {s.first_call_s:.1f} s of {b} start-up at {who} first {b} call"
        text += (f" ({label(s.variant)})" if s.backend else "") + f", which took {s.first_call_s:.2f} s"
        after = "it"
    if s.later_first_call_s is not None:
        text += (f". The first call of {label(s.later_variant)} after {after}, the same kernels at the same shape, "
                 f"took {us(s.later_first_call_s * 1e3)}")
    return text + "."


def _compiled_startup(s: advice_mod.Startup, who: str) -> str:
    """A call compiled per configuration (FA4's CuTe DSL): its first call is a compile at that shape, not a
    one-time start-up; in short sentences, one colon each at most: the keys and the time, what else compiled, the
    lengths. The range over the set's first calls that compiled leads: each workload is a configuration of its own,
    and the article's shape paid the least of them."""
    head = f"{label(s.variant)} is compiled on the first call of each new configuration ({compile_words.COMPILE_KEYS})"
    over = compile_words.spans(s.compiles)
    text = (f"{head}: {over}. At the article's shape it took {s.first_call_s:.2f} s, {who} first call of it" if over
            else f"{head}: {s.first_call_s:.2f} s at the article's shape, {who} first call of it")
    if s.later_first_call_s is not None:
        text += f", against {us(s.later_first_call_s * 1e3)} for {label(s.later_variant)} after it"
    text += "." + (f" {after}" if (after := compile_words.after_spans(s.compiles)) else "")
    if beyond := compile_words.compiled_beyond_keys(s.recompiled):
        text += f" {beyond}"
    # measured at one shape: whether another configuration or length compiles again is not (review item 22)
    if s.lengths_status != "ok":
        text += (" That was measured at the article's shape only. Whether a new configuration or new lengths "
                 "compile again was not measured" + (f" (the dynamic-lengths runs: {s.lengths_status})"
                                                     if s.lengths_status else "") + ".")
    parts = []
    for x in s.lengths:
        if x.per_length_ms is None:
            continue
        n = x.warmup_lengths
        first = "its first length" if n == 1 else f"its first {n} lengths"
        paid = f"{x.warmup_ms / 1e3:.2f} s once at {first}, then " if n and x.warmup_ms is not None else \
            "no compile again, "
        parts.append(f"{PHASE_NAMES.get(x.phase, x.phase)} {paid}{us(x.per_length_ms)} a new length beyond a warm call")
    if parts:
        text += f" Where lengths vary (the dynamic-lengths scenario): {'; '.join(parts)}."
    return text


PHASE_WORDS = {"prefill": "a new prompt length", "decode": "a decode step (the KV cache one token longer)"}


def lengths_line(a: advice_mod.Advice, beside=None) -> str | None:
    """Where the decision runs cuDNN: what a new length costs (the set's dynamic-lengths runs) and what to do
    instead; where the set has none, that it was not measured, and what a set of the same GPU model and PyTorch
    measured (`beside`, gen.analysis.length_cost.Beside) where one did."""
    x = a.lengths
    if x is None:
        return None
    if not x.measured:
        head = ("Where lengths vary (prompts of many lengths, or decode with a growing KV cache), cuDNN plans each "
                "new shape on its first call: this set did not measure what that costs ("
                + (f"its dynamic-lengths runs were {x.why_not} before any length" if x.why_not else
                   "it has no dynamic-lengths runs") + ").")
        if beside is not None:
            return head + " " + lengths_beside(beside, PHASE_WORDS)
        return head + (" Bucket or pad lengths to a few shapes, or measure the first call at new lengths before "
                       "relying on the steady times.")
    costs = "; ".join(f"{PHASE_WORDS.get(p.phase, p.phase)}: {us(p.first_extra_ms)} more than its second call (a warm "
                      f"call in a loop: {us(p.steady_ms)})" for p in x.phases)
    who = (f"scaled_dot_product_attention with no backend pinned picks cuDNN in this set, and {label(x.variant)}'s"
           if x.aside else f"{label(x.variant)}'s")
    text = (f"Where lengths vary, {who} first call at each new shape costs more (the set's dynamic-lengths runs, "
            f"median over lengths): {costs}. Bucket or pad lengths to a few shapes so each plan is reused")
    if x.instead:
        ref = dict(x.against)
        # one clause a phase that parses: who, against whom, for how many calls a length
        text += ", or call " + "; or ".join(
            f"{label(i.variant)} in {i.phase}: counting each new length's cost, it costs less in all than "
            + (f"{label(ref[i.phase])} (the fastest once warm)" if i.phase in ref else "the fastest once warm")
            + f" {dynamic.per_length_clause(i.outcomes)}"
            for i in x.instead)
    text += "."
    if x.switch is not None:
        name, effect, detail = x.switch.name, x.switch.effect, x.switch.detail
        measured = dynamic.switch_measured(x.switch_facts) if x.switch_facts is not None else None
        text += (f" With {name}=1 set, {measured}." if measured else
                 f" {name}=1: {effect or 'not measured'}" + (f" ({detail})" if detail else "") + ".")
        if x.switch_steady is not None:
            text += dynamic.steady_change(*x.switch_steady)
    return text


def _the_call_there(a: advice_mod.Advice, scenario: str) -> str | None:
    """Where the first screen names another call than the default for `scenario`: that call and its loop, as a
    sentence (the host line says whose loop waited): "The call there, SDPA with causal_lower_right,
    took 1.29× its GPU-only time in a loop."."""
    there = next((c for c in a.host_calls if c.scenario == scenario), None)
    return (f"The call there, {label(there.variant)}, took {times(there.eager_ratio)} its GPU-only time in a loop."
            if there else None)


def _host(a: advice_mod.Advice) -> str | None:
    if a.host_outcome not in (rules.YES, rules.WITHIN_NOISE) or a.host_ratio is None:
        return None
    # The first screen's short form of the verdict's host line: whose loop, what this host saw, and the crossover,
    # in short sentences with brackets one deep
    text = (f"In short calls of {label(a.default)} at the article's shape, "
            f"{on_this_host(a.host_ratio, a.host_ratio_ci, a.host_cost_ms, a.host_gpu_ms, a.host_median_ms)}.")
    short = host_short_of_line(a.host_cost_ms, a.host_gpu_ms, a.host_ratio) \
        if a.host_outcome == rules.WITHIN_NOISE else None
    if short:
        text += f" {short}."
    if there := _the_call_there(a, ARTICLE):
        text += f" {there}"
    cross = None if host_not_the_gap(a.host_ratio, a.host_ratio_ci, a.host_cost_ms, a.host_gpu_ms,
                                     a.host_median_ms) else \
        host_crossover(a.host_gpu_ms, a.host_cost_ms, a.host_ref_ms, a.host_median_ms)
    return text + (f" {cross[0].upper()}{cross[1:]}." if cross else "")


def _loops(a: advice_mod.Advice) -> str | None:
    """Where else a loop of the default call clearly waited for the host (decode's short calls), with the call the
    first screen names there where it is another: a sentence or three a workload, no bracket in a bracket."""
    if not a.loops:
        return None
    out = []
    for i, x in enumerate(a.loops):
        sc = x.scenario
        took = f"{x.ratio:.2f}× its GPU-only time (at least {x.ratio_ci[0]:.2f}×)"
        head = (f"A loop of {label(a.default)} also waited in {SCENARIO_WORDS.get(sc, sc)}: {took}" if i == 0 else
                f"In {SCENARIO_WORDS.get(sc, sc)}, a loop of {short_label(a.default)} took {took}")
        out.append(head + (", host-bound." if x.outcome == rules.YES else
                           f". {_loop_outcome(x.outcome, x.host_cost_ms, x.gpu_ms, x.ratio)}."))
        if there := _the_call_there(a, sc):
            out.append(there)
    return " ".join(out)


def _loop_outcome(outcome: str | None, host_ms: float | None = None, gpu_ms: float | None = None,
                  ratio: float | None = None) -> str:
    """A loop's host-bound outcome as the verdict words it, as a sentence: within noise is never
    "host-bound"."""
    if outcome == rules.YES:
        return "It is host-bound"
    if outcome == rules.NO:
        return "It is not host-bound by the host's own cost"
    if outcome == rules.WITHIN_NOISE:
        return host_short_of_line(host_ms, gpu_ms, ratio) or "It is within noise of the host-bound line"
    return "Whether it is host-bound is undecided"


def advice(a: advice_mod.Advice, beside=None) -> AdviceWords:
    """The first screen: the decision and its reason, then one sentence per exception, start-up, host; `beside` as
    `lengths_line` takes it."""
    sentences = (f"{_place(a)}: {_default_call(a)}.", *_picks(a))
    dense = [i for i, e in enumerate(a.exceptions) if e.dense_mask and e.pairs_scored and e.pairs_needed]
    lines = [_exception(a, e, told=bool(dense) and i != dense[0] and i in dense) for i, e in enumerate(a.exceptions)]
    # The loop lines share one paragraph: the first screen must end above the fold.
    loop = " ".join(x for x in (_host(a), _loops(a)) if x) or None
    if loop:
        loop += " A CUDA graph, or more work per call, keeps the GPU fed."
    for extra in (behind_line(a), _determinism(a), lengths_line(a, beside), _startup(a), _auto_startup(a), loop):
        if extra:
            lines.append(extra)
    if a.device != "cuda":
        lines.append("Ranked by wall time on the host: this set has no GPU.")
    return AdviceWords(sentences, tuple(lines), a.default)
