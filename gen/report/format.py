"""Formatting and naming for pages: Jinja filters, page paths, anchors, set titles.

Takes: plain values, set and variant names. Gives: the filters templates use
(`md` escapes text for Markdown, and for HTML alike; `html_url` a page's link in finished
HTML; `num`, `ms`, `us`, `size`, `integer`, `day`, `span` show a dash for a missing value), the times
sentences give with their unit (`sentence_ms`, `sentence_us`, `once_ms`, `spread_ms`),
the one `slug`, the paths of the generated pages, the HTML id of a kernel row, `set_title`
and `label_of`.
Imports nothing of the report: every other report module may use it.

One precision per quantity, each by one formatter, in a table and a sentence alike:
- a time: `ms` in a table, gen.report.words.common.us in a sentence, the same digits (0.1 µs below 1 ms, 1 µs from
  there), every figure of one quantity in a sentence by it (a median, its range, its first value);
- a ratio: words.common.times, two decimals, a range of them too (words.common.range_beside: "1.00× to just under
  1.2×" where the upper end would read as the line);
- a clock gap: words.sum_clocks.apart (a tenth below 10%, whole from there), said in one form, the side with the
  higher clock named (words.sum_clocks.clock_against: "FP8's clock 5.3% higher");
- an interval's level: words.common.level_pct (two decimals, a whole percent whole);
- a first call: words.first_calls.secs (s to two decimals from 0.1 s, ms to one below), a range across the two in ms.
"""

from __future__ import annotations

import functools
import html
import json
import math
import os
import re
from pathlib import PurePosixPath
from urllib.parse import urlsplit, urlunsplit

from markupsafe import Markup

from gen.analysis.tables import LoadedSet
from gen.analysis.values import missing
from gen.model import variants
from gen.model.schema import SetKind

GENERATED = "generated"
DASH = "–"

_MD_ESCAPES = {
    "|": "&#124;", "*": "&#42;", "_": "&#95;", "`": "&#96;", "[": "&#91;", "]": "&#93;",
    "\\": "&#92;", "#": "&#35;", "~": "&#126;", "$": "&#36;", "^": "&#94;", "=": "&#61;",
    "!": "&#33;", "{": "&#123;", "}": "&#125;", ":": "&#58;", "\n": " ", "\r": " ",
}
_MD_TABLE = str.maketrans(_MD_ESCAPES)

# Characters no page should carry: C0 and C1 controls but tab and newline, line and paragraph
# separators, bidirectional overrides, lone surrogates (a page with one cannot be written as
# UTF-8) and the non-characters U+FFFE/U+FFFF. A result set cannot hold them (the load refuses
# them); a trace's kernel and op names can.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                          "\ud800-\udfff\ufffe\uffff]")


def printable(value):
    """Every value a template writes (the Jinja environment's finalize): strings with each
    character of _UNPRINTABLE shown as U+FFFD; anything else as it is. Markup stays Markup."""
    if isinstance(value, str) and _UNPRINTABLE.search(value):
        cleaned = _UNPRINTABLE.sub("\ufffd", value)
        return Markup(cleaned) if isinstance(value, Markup) else cleaned
    return value


def md(value) -> Markup:
    """Text that shows literally inside Markdown: paragraphs, headings, table cells. The
    one escaper of display strings in Markdown (raw HTML is autoescaped by Jinja): HTML's
    characters and every character Markdown or its extensions read as markup become
    entities, line breaks spaces, so no string starts a block, a link or an attribute list."""
    if missing(value):
        return Markup(DASH)
    # Quotes are escaped after the table: their entities carry a `#` that must stay as it is.
    text = html.escape(printable(str(value)), quote=False).translate(_MD_TABLE)
    return Markup(text.replace('"', "&quot;").replace("'", "&#39;"))


DESCRIPTION_CHARS = 200  # a link preview shows about this much (Open Graph description)


def meta_description(text: str) -> Markup:
    """A page's description for its front matter (`description: ...`): its first sentence (cut at
    DESCRIPTION_CHARS), on one line, HTML-escaped (Material prints page.meta.description in an
    attribute as it is; overrides/main.html's og:description too), as a YAML scalar (JSON's quoting)."""
    one = " ".join(printable(str(text)).split())
    head, dot, _ = one.partition(". ")
    one = head + "." if dot else one
    if len(one) > DESCRIPTION_CHARS:
        one = one[:DESCRIPTION_CHARS - 1].rstrip() + "…"
    return Markup(json.dumps(html.escape(one, quote=True)))


def num(x, fmt: str = ".3g", unit: str = "") -> str:
    return DASH if missing(x) else f"{x:{fmt}}{unit}"


def ratio(x) -> str:
    """A speed-up: one decimal, and two significant figures below 0.95, where one decimal reads 0.0× for 0.026×."""
    if missing(x):
        return DASH
    return f"{x:.1f}×" if x >= 0.95 else f"{x:.2g}×"


def ms(x) -> str:
    """Milliseconds at the precision a sentence gives the same time (words.common.us: 0.1 µs below 1 ms, 1 µs from
    there), trailing zeros kept, so a table cell reads as its sentence does ("27.522", not "27.52" under "27.522 ms")
    and the cells of a column at one precision ("0.1290" beside "0.2383", not "0.129")."""
    if missing(x):
        return DASH
    return f"{x:.3f}" if x >= 1 else f"{x:.4f}" if x >= 0.001 else f"{x:.2e}"


def tbps(x) -> str:
    """A bandwidth in TB/s to two decimals, in a sentence or a table alike ("3.10", not "3.1" beside "3.10")."""
    return DASH if missing(x) else f"{x:.2f}"


def published_ms(x) -> str:
    """Milliseconds to three decimals: the one precision of a published-figure block, its table cells and its
    sentences (gen.report.words.published) alike (the table read "25.57" under a sentence
    that said 25.566 ms)."""
    return DASH if missing(x) else f"{x:.3f}"


def us(x) -> str:
    if missing(x):
        return DASH
    return f"{x:,.1f}" if x >= 10 else f"{x:.2f}"


def duration(x_us) -> str:
    """A duration given in µs, worded with its unit by the report's one rule: µs below 1 ms, ms from there
    (table columns carry their own unit and use `us`)."""
    if missing(x_us):
        return DASH
    return f"{us(x_us)} µs" if x_us < 1000 else f"{x_us / 1000:,.3f} ms"


# --------------------------------------------------------------------------- times in sentences, with their unit


def sentence_ms(x) -> str:
    """A time given in ms as a sentence says it: µs below 1 ms, ms from there, at the digits `ms` gives its table
    cell (0.1 µs, 1 µs): "56.4 µs" beside 0.0564, "27.522 ms" (words.common.us)."""
    if missing(x):
        return DASH
    return f"{x * 1000:.1f} µs" if x < 1 else f"{x:.3f} ms"


def sentence_us(x_us) -> str:
    """A duration given in µs as a sentence says it: µs to 0.1, ms from 1000 µs on (words.common.duration_us;
    `duration` gives a cell's, at `us`'s digits)."""
    if missing(x_us):
        return DASH
    return f"{x_us:.1f} µs" if x_us < 1000 else f"{x_us / 1000:.3f} ms"


def once_ms(x) -> str:
    """A time taken once (a BlockMask's build: one host timing, no median), given in ms, to three significant figures,
    as one timing supports ("12.647 ms" beside "12.6 ms" for the same build): "12.6 ms", "8.32 ms", "512 µs"
    (words.common.one_timing)."""
    if missing(x):
        return DASH
    v, unit = (float(f"{x * 1000:.3g}"), "µs") if x < 1 else (float(f"{x:.3g}"), "ms")
    if unit == "µs" and v >= 1000:  # rounded up to 1 ms
        v, unit = v / 1000, "ms"
    return f"{v:.{max(0, 2 - math.floor(math.log10(v)))}f} {unit}" if v > 0 else f"0 {unit}"


def spread_ms(x) -> str:
    """A time given in ms among calls that ran at very different speeds (a finding's split timing, a compiled call
    far slower than its module, a training step far past its forward), to three significant figures in ms, whole
    ms from 100: "0.825 ms", "31.9 ms", "225 ms"."""
    if missing(x):
        return DASH
    return f"{x:.3g} ms" if x < 100 else f"{x:,.0f} ms"


_PLAIN = re.compile(r"\d+(\.\d+)?")


def _decimals(text: str) -> int | None:
    """The decimals of a number printed plain ("1.100": 3); None for any other form ("1.2e-04", "1,234.5", "–")."""
    return len(text.partition(".")[2]) if _PLAIN.fullmatch(text) else None


def span_decimals(pair, fmt=ms) -> int | None:
    """The decimals `span` prints both ends of `pair` at: the larger number `fmt` gives either, so one range never
    reads at two precisions ("1.1–1.102"); None where an end is missing or `fmt` prints it other than plain."""
    lo, hi = pair
    if missing(lo) or missing(hi):
        return None
    ds = _decimals(fmt(lo)), _decimals(fmt(hi))
    return None if None in ds else max(ds)


def span(pair, fmt=ms) -> str:
    """A range "a–b" (an IQR) at `span_decimals`, "1.100–1.102", "1.06–1.07", or one dash when either end is missing
    (not "–––")."""
    lo, hi = pair
    if missing(lo) or missing(hi):
        return DASH
    d = span_decimals(pair, fmt)
    return f"{fmt(lo)}–{fmt(hi)}" if d is None else f"{lo:.{d}f}–{hi:.{d}f}"


def ms_span(pair) -> str:
    """A range of times in ms as a sentence gives it: one figure where both ends print alike at `ms`'s digits ("0.0590",
    not "0.0590–0.0590"), else `span`, both ends to one precision."""
    a, b = pair
    return ms(a) if ms(a) == ms(b) else span(pair)


def median_beside(x, pair, fmt=ms) -> str:
    """A median set beside its IQR (`span(pair, fmt)`), given at least the IQR's decimals: "0.2600" beside
    "0.2596–0.2603", not "0.26", so the median keeps the trailing zeros its range keeps."""
    text = fmt(x)
    d, own = span_decimals(pair, fmt), _decimals(text)
    if missing(x) or d is None or own is None:
        return text
    return f"{x:.{d}f}" if d > own else text


def size(x) -> str:
    """Bytes in B / KiB / MiB / GiB."""
    if missing(x):
        return DASH
    x = float(x)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(x) < 1024 or unit == "GiB":
            return f"{x:.0f} {unit}" if unit == "B" else f"{x:.1f} {unit}"
        x /= 1024
    return f"{x:.1f} GiB"


def integer(x) -> str:
    return DASH if missing(x) else f"{int(x):,}"


def day(value) -> str:
    """The date part of an ISO timestamp."""
    return md(str(value)[:10]) if value else DASH


def html_url(href: str) -> str:
    """A relative link to a .md page as the built site has it: the page's .html (mkdocs rewrites
    Markdown links so, with `use_directory_urls: false`; links in finished HTML are written so)."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path.endswith(".md"):
        return href
    return urlunsplit(("", "", parts.path[:-3] + ".html", parts.query, parts.fragment))


def a_an(text) -> str:
    """The indefinite article for a figure or word as read aloud: "an" before 8, 11 and 18 (and their thousands:
    "an 8192×8192×8192 product") and before a vowel, "a" otherwise."""
    t = str(text)
    digits = re.match(r"\d+", t)
    if digits:
        n = digits.group()
        return "an" if n[0] == "8" or (len(n) % 3 == 2 and n[:2] in ("11", "18")) else "a"
    return "an" if t[:1].lower() in "aeio" and t[:1] else "a"


FILTERS = dict(meta_description=meta_description, a_an=a_an, md=md, day=day, num=num, ms=ms, us=us, size=size,
               published_ms=published_ms, median_beside=median_beside, integer=integer, span=span,
               html_url=html_url, duration=duration, ratio=ratio)


# --------------------------------------------------------------------------- names and paths


def slug(text: str) -> str:
    """A file-name-safe form of a name: letters, digits, - _ . kept, anything else -;
    leading dots too, since mkdocs leaves out a page whose name starts with one."""
    out = "".join(c if c.isalnum() or c in "-_." else "-" for c in text)
    dots = len(out) - len(out.lstrip("."))
    return "-" * dots + out[dots:]


def set_page(name: str) -> str:
    return f"{GENERATED}/sets/{slug(name)}.md"


def variant_page(name: str) -> str:
    return f"{GENERATED}/variants/{slug(name)}.md"


def set_dir(name: str) -> str:
    """The folder of a set's own pages (its variants, findings, scaling, scenarios), beside its page."""
    return f"{GENERATED}/sets/{slug(name)}"


def set_variant_page(set_name: str, variant: str) -> str:
    return f"{set_dir(set_name)}/variants/{slug(variant)}.md"


def set_scenario_page(set_name: str, scenario: str) -> str:
    return f"{set_dir(set_name)}/scenarios/{slug(scenario)}.md"


def set_subpage(set_name: str, what: str) -> str:
    """One of a set's own pages: findings, scaling, compare."""
    return f"{set_dir(set_name)}/{what}.md"


def trace_page(set_name: str, trace_rel: str) -> str:
    return f"{GENERATED}/traces/{slug(set_name)}/{PurePosixPath(trace_rel).name}"


@functools.lru_cache(maxsize=1 << 16)  # a page links the same pages from many rows (a set's variants)
def relpath(target: str, page: str) -> str:
    """A Markdown link from one docs/-relative page to another (mkdocs checks it)."""
    return os.path.relpath(target, os.path.dirname(page) or ".").replace(os.sep, "/")


def kernel_anchor(variant: str, mode: str, index: int, set_suffix: str | None = None) -> str:
    """The HTML id of a kernel row on a variant page; `set_suffix` keeps ids of
    the same variant's rows in another set's tab unique on the page."""
    base = f"k-{mode}-{variant}-{int(index)}"
    return f"{base}--{slug(set_suffix)}" if set_suffix else base


def set_title(ls: LoadedSet) -> str:
    """A set's name for people: GPU, PyTorch, and the label if any; the folder name otherwise."""
    env = ls.environment
    gpu = env.gpu_name or (f"CPU ({env.cpu})" if env.cpu else "CPU")
    if ls.kind == SetKind.REFERENCE:
        return f"{gpu} · published ({ls.name.split('__', 1)[-1]})"
    title = f"{gpu} · PyTorch {env.torch.split('+')[0]}" if env.torch else gpu
    suffix = ls.name.split("__", 2)[2] if ls.name.count("__") >= 2 else ""
    return f"{title} · {suffix}" if suffix else title


def label_of(variant: str) -> str:
    v = variants.VARIANTS.get(variant)
    return v.label if v else variant
