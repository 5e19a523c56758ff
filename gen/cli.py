"""`attention-report VERB` (or `python -m gen VERB`): one function per verb, each calling one stage.

Takes: argv. Gives: an exit status. User errors (schema.UserError: bad input,
a bad option, a damaged file) are one line on stderr naming the file or option
at fault (exit 2), as are a folder it may not write and a full disk; anything
else is a bug and keeps its traceback. SIGTERM is handled like Ctrl-C, so that
nothing half-written is left.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from gen.model.schema import UserError

# Relative to the current directory, never to the installed package: an installed command works on
# the results of the project it is run in.
DEFAULT_RESULTS = Path("results")
DEFAULT_DOCS = Path("docs")
DISTRIBUTION = "attention-profile-report"
MODES = ("inference", "train")


def version() -> str:
    """The installed distribution's version (its metadata); the source tree's where it is not installed."""
    from importlib import metadata

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        import gen

        return f"{gen.__version__} (not installed)"


def _shape(text: str) -> tuple[int, int, int, int]:
    try:
        parts = tuple(int(x) for x in text.split(","))
    except ValueError:
        parts = ()
    if len(parts) != 4 or min(parts) < 1:
        raise argparse.ArgumentTypeError(f"--shape: expected B,H,S,D as four positive integers, got {text!r}")
    return parts  # type: ignore[return-value]


def _ints(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a comma list of integers, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected a comma list of positive integers, got {text!r}")
    return values


def _scenarios(a):
    """The --scenario list shaped by the other options: --tiny shrinks every
    one; --shape, --sweep, --sweep-seqs and --sweep-dims shape the article's
    (its lengths are swept only with --sweep); --dtype sets every one's.
    Returns (scenarios, the article as shaped, even when not chosen)."""
    from gen.model import scenarios as sc

    chosen = sc.resolve(a.scenario)
    if a.tiny:
        chosen = [sc.tiny(s) for s in chosen]
    article = sc.SCENARIOS[sc.ARTICLE]
    article = sc.tiny(article) if a.tiny else article
    b, h, s, d = a.shape or (article.batch, article.q_heads, article.run_length, article.head_dim)
    dims = [d] + [x for x in (a.sweep_dims or article.head_dims) if x != d]
    lengths = (a.sweep_seqs or list(article.lengths)) if a.sweep else []
    article = sc.with_overrides(article, batch=b, heads=h, run_length=s, head_dims=dims, lengths=lengths,
                                dtype=a.dtype)
    chosen = [article if x.name == sc.ARTICLE else sc.with_overrides(x, dtype=a.dtype) for x in chosen]
    return chosen, article


def _scenario_names() -> list[str]:
    from gen.model import scenarios as sc  # torch-free

    return list(sc.SCENARIOS)


def _capture_runner():
    """gen.capture.runner (the only verb that imports torch); without torch, the one-line error saying
    how to install it."""
    try:
        from gen.capture import runner
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != "torch":
            raise  # another module missing: a broken install, kept with its traceback
        raise UserError(f"profile needs PyTorch, which this Python ({sys.executable}) cannot import ({exc}): "
                        f"install the capture extra with `pip install .[capture]` (a CUDA build of torch "
                        f"to measure a GPU)") from None
    return runner


def _variant_names() -> list[str]:
    from gen.model import variants  # torch-free

    return list(variants.VARIANTS)


def _ratio(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0:  # NaN too
        raise argparse.ArgumentTypeError(f"expected a positive ratio such as 1.05, got {text!r}")
    return value


def cmd_profile(a) -> int:
    import time

    started = time.monotonic()  # the time by stage counts torch's import and CUDA's start too
    from gen.model import scenarios as sc
    from gen.model import variants

    # Every option is checked before torch is imported (seconds): a typo is said at once.
    vs = variants.resolve(a.variants)
    modes = [m.strip() for m in a.mode.split(",") if m.strip()]
    bad = [m for m in modes if m not in ("inference", "train")]
    if bad or not modes:
        raise UserError(f"--mode: unknown mode(s) {', '.join(bad)}; use inference, train or both" if bad
                        else f"--mode: no mode in {a.mode!r}; use inference, train or both")
    if a.dtype is not None and a.dtype not in sc.DTYPES:
        raise UserError(f"--dtype: {a.dtype!r} is not one of {', '.join(sc.DTYPES)}")
    chosen, article = _scenarios(a)
    from gen.capture import counters, staging  # torch-free

    staging.kill_after()
    if a.counters:
        counters.timeout_s()

    capture = _capture_runner()

    budget = capture.Budget()
    if a.quick:
        budget = capture.Budget(warmup_min=3, warmup_min_s=0.05, warmup_max_s=0.5, repeats=9,
                                min_measure_s=0.05, max_repeats=50, host_repeats=9, graph_replays=9,
                                max_rounds=3, round_s=0.01, max_measure_s=0.3)
    shape = (article.batch, article.q_heads, article.run_length, article.head_dim)
    path = capture.profile(
        vs, shape, a.dtype or article.dtype, modes, Path(a.out), force=a.force, label=a.label, budget=budget,
        time_limit_s=a.time_limit_s, if_missing=a.if_missing, scenarios=chosen, counters=a.counters,
        resume=a.resume, started=started,
    )
    print(path)
    return 0


def cmd_summary(a) -> int:
    from gen.analysis import summary

    print(summary.run(Path(a.results), a.set, a.format, a.mode, a.scenario))
    return 0


def cmd_compare(a) -> int:
    from gen.analysis import compare

    got = compare.run(Path(a.results), a.base, a.new, a.format, mode=a.mode, force=a.force,
                      warn=lambda line: print(line, file=sys.stderr), scenario=a.scenario,
                      variants=a.variant, fail_above=a.fail_above)
    print(got.text)
    return 1 if got.failed else 0


def cmd_list(a) -> int:
    from gen.analysis import sets

    print(sets.run(Path(a.results), a.format))
    return 0


def cmd_schema(a) -> int:
    import json

    from gen.model import layout, output

    text = json.dumps(output.json_schema(), indent=1, ensure_ascii=False) + "\n"
    if a.out:
        layout.atomic_write_bytes(Path(a.out), text.encode())
        print(a.out)
    else:
        print(text, end="")
    return 0


def cmd_reference(a) -> int:
    from gen.model import anchors, reference

    print(reference.write(Path(a.results), force=a.force))
    for path in anchors.write(Path(a.results), force=a.force):
        print(path)
    return 0


def cmd_build(a) -> int:
    from gen.report import build

    build.run(Path(a.results), Path(a.docs), skip_broken=a.skip_broken)
    return 0


def cmd_digest(a) -> int:
    from gen.model import layout, limits, schema, trace_digest

    if not a.sets:
        layout.settle(Path(a.results))  # what a killed publish left is put right first, or named
    folders = [Path(s) for s in a.sets] or schema.list_sets(Path(a.results))
    for folder in folders:
        limits.check_result_file(folder / schema.RESULT_FILE)
        rs = schema.load_set(folder)
        limits.check_set(folder, layout.set_files(rs))
        rels = trace_digest.trace_files(rs)
        if not rels:
            continue  # a published set: no traces
        data, _ = trace_digest.dumps(folder, rels)  # a trace that does not parse: its one-line error
        # No publish lock: a digest written while the set was replaced holds the old traces' hashes,
        # and is parsed around (gen.model.trace_digest), never wrong.
        layout.atomic_write_bytes(folder / trace_digest.FILE, data)
        print(folder / trace_digest.FILE)
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="attention-report", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=f"%(prog)s {version()}",
                   help="print the installed version and exit")
    sub = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    results_help = "the results folder (default ./results of the current directory)"

    pr = sub.add_parser("profile", help="run the variants under torch.profiler and write a result set")
    pr.add_argument("--variants", help="comma list (default: all default variants)")
    pr.add_argument("--scenario", default="article",
                    help="comma list of scenarios (gen/model/scenarios.py: "
                         + ", ".join(_scenario_names()) + "), or all (default article)")
    pr.add_argument("--tiny", action="store_true",
                    help="every scenario at toy sizes (lengths / 256, head dim 16, a few heads): for tests")
    pr.add_argument("--shape", type=_shape, help="the article's B,H,S,D (default 8,16,1024,64)")
    pr.add_argument("--dtype", help="bf16, fp16 or fp32 (default: each scenario's, bf16)")
    pr.add_argument("--mode", default="inference", help="inference, train, or inference,train")
    pr.add_argument("--out", default=str(DEFAULT_RESULTS), help=results_help)
    pr.add_argument("--force", action="store_true", help="replace an existing result set")
    pr.add_argument("--if-missing", action="store_true", help="do nothing if this GPU's set exists")
    pr.add_argument("--label", help="suffix for the set's name, to keep a second set of one GPU")
    pr.add_argument("--quick", action="store_true", help="few repeats: for tests, not for numbers")
    pr.add_argument("--counters", action=argparse.BooleanOptionalAction, default=True,
                    help="read hardware counters with Nsight Compute (ncu --clock-control none), one warm call "
                         "per variant and mode in a pass of its own (default on; unavailable without ncu)")
    pr.add_argument("--sweep", action="store_true", help="also sweep the article's sequence length and head dim")
    pr.add_argument("--sweep-seqs", type=_ints, help="sequence lengths (default 256..16384)")
    pr.add_argument("--sweep-dims", type=_ints, help="head dims (default 64,128)")
    pr.add_argument("--resume", action="store_true",
                    help="continue the partial capture an interrupted run left (results/.partial-<set>/), with "
                         "the same options, on the same host (one measured on another GPU, CPU or platform is refused; "
                         "--force starts it over): what it kept is not measured again; the set is published when "
                         "complete")
    pr.add_argument("--time-limit-s", type=float, default=3600.0,
                    help="stop starting sweep points this long after the start (default 3600)")
    pr.set_defaults(func=cmd_profile)

    su = sub.add_parser("summary", help="one row per variant of a result set (no torch needed)")
    su.add_argument("--results", default=str(DEFAULT_RESULTS), help=results_help)
    su.add_argument("--set", help="result set name (default: the only or first measured one; `list` names them)")
    su.add_argument("--format", choices=["table", "json"], default="table",
                    help="a text table, or JSON in the published data format (docs/data-format.md)")
    su.add_argument("--mode", choices=MODES,
                    help="inference or train (default: inference; with --scenario, both)")
    su.add_argument("--scenario", choices=_scenario_names(),
                    help="one scenario's rows instead, one per variant and sweep point, with TFLOP/s or TB/s under "
                         "the conventions it prints")
    su.set_defaults(func=cmd_summary)

    co = sub.add_parser("compare", help="compare two result sets per variant, or gate a change (no torch needed)",
                        description="NEW/BASE of GPU-only time per variant with its 95% interval; with "
                                    "--fail-above R, exit 1 when a selected variant is slower than R with "
                                    "intervals that do not overlap, else 0")
    co.add_argument("base", metavar="BASE", help="the result set to compare against (`list` names them)")
    co.add_argument("new", metavar="NEW", help="the result set under test")
    co.add_argument("--results", default=str(DEFAULT_RESULTS), help=results_help)
    co.add_argument("--mode", default="inference", choices=MODES, help="inference or train (default inference)")
    co.add_argument("--scenario", default="article", choices=_scenario_names(),
                    help="the scenario whose runs or sweep points are compared (default article)")
    co.add_argument("--variant", action="append", choices=_variant_names(), metavar="VARIANT",
                    help="compare only this variant (repeat for more; default every variant): "
                         + ", ".join(_variant_names()))
    co.add_argument("--fail-above", type=_ratio, metavar="R",
                    help="exit 1 when a selected variant's NEW/BASE exceeds R (e.g. 1.05) and the two medians' 95%% "
                         "intervals do not overlap")
    co.add_argument("--format", choices=["table", "json", "csv", "markdown"], default="table",
                    help="a text table, JSON in the published data format, CSV, or Markdown for a pull-request "
                         "comment (default table)")
    co.add_argument("--force", action="store_true",
                    help="show sets measured at different shapes, dtypes or scenarios side by side anyway "
                         "(they are refused otherwise; every difference is printed as a warning)")
    co.set_defaults(func=cmd_compare)

    ls = sub.add_parser("list", help="the result sets under the results folder: GPU, PyTorch, CUDA, date, scenarios")
    ls.add_argument("--results", default=str(DEFAULT_RESULTS), help=results_help)
    ls.add_argument("--format", choices=["table", "json"], default="table",
                    help="a text table, or JSON in the published data format")
    ls.set_defaults(func=cmd_list)

    sc = sub.add_parser("schema", help="print the JSON Schema of every verb's --format json output")
    sc.add_argument("--out", help="write it to this file instead (docs/data-format.schema.json is the published one)")
    sc.set_defaults(func=cmd_schema)

    rf = sub.add_parser("reference", help="write the published figures (the seed article's A100, cuDNN frontend H200, "
                                          "FlashAttention-3 paper H100) as reference sets")
    rf.add_argument("--results", default=str(DEFAULT_RESULTS), help=results_help)
    rf.add_argument("--force", action="store_true", help="replace an existing reference set")
    rf.set_defaults(func=cmd_reference)

    bu = sub.add_parser("build", help="render the result sets into Markdown pages under docs/")
    bu.add_argument("--results", default=str(DEFAULT_RESULTS), help=results_help)
    bu.add_argument("--docs", default=str(DEFAULT_DOCS),
                    help="the site's source folder; pages go to its generated/ (default ./docs)")
    bu.add_argument("--skip-broken", action="store_true", help="build the rest when a set is unreadable")
    bu.set_defaults(func=cmd_build)

    dg = sub.add_parser("digest", help="digest a set's traces into its trace-digest.json.gz, which the build reads "
                                       "instead of parsing them (capture and import write it; this is for a set "
                                       "that has none, or one of another version)")
    dg.add_argument("sets", nargs="*", help="result set folders (default: every set under --results)")
    dg.add_argument("--results", default=str(DEFAULT_RESULTS), help=results_help)
    dg.set_defaults(func=cmd_digest)

    im = sub.add_parser("import", help="check a result set made elsewhere (folder or .tar.gz) and publish it here")
    im.add_argument("path", help="a result set folder, or a .tar.gz / .tgz holding one")
    im.add_argument("--results", default=str(DEFAULT_RESULTS), help=results_help)
    im.add_argument("--force", action="store_true",
                    help="replace a set of the same name; with --merge, let the imported records win")
    im.add_argument("--merge", action="store_true",
                    help="merge into the set of the same name (same GPU, torch, driver): the union of records")
    im.set_defaults(func=cmd_import)
    return p


def cmd_import(a) -> int:
    from gen import importer

    print(importer.run(Path(a.path), Path(a.results), force=a.force, merge=a.merge))
    return 0


def main(argv: list[str] | None = None) -> int:
    from gen.model import layout, limits

    a = parser().parse_args(argv)
    try:
        for option in ("out", "results", "docs"):
            if getattr(a, option, None) is not None and not str(getattr(a, option)).strip():
                # Path("") is the current folder: pages or sets would be written among whatever is there
                raise UserError(f"--{option}: an empty path; name a folder")
        with layout.terminate_as_interrupt():
            limits.check_settings()  # a bad GEN_MAX_* is said once, before any set is read or skipped for it
            status = a.func(a)
            layout.raise_if_terminated()
            return status
    except UserError as exc:
        # SchemaError and TraceError are UserErrors: each message names the file or option.
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader stopped early (| head): nothing to say, and nothing more to print
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:
        if exc.errno not in layout.ENVIRONMENT_ERRNOS:
            raise  # a bug, or a failure nobody foresaw: keeps its traceback
        # A folder it may not write, a read-only file system, a full disk: this machine's
        # state, said in one line (publishing is atomic, so nothing half-written is left).
        where = exc.filename if exc.filename is not None else "a file"
        print(f"error: {where}: {exc.strerror}; nothing was published (give the user write access, "
              f"free the space, or point --results / --docs / --out elsewhere)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if getattr(a, "resume", None) is None:  # a verb that cannot be resumed (build, import...)
            print("interrupted: nothing was published; what was there before is kept", file=sys.stderr)
        else:
            print("interrupted: nothing was published; the points measured so far are kept: run the same "
                  "command with --resume to continue", file=sys.stderr)
        return 130
