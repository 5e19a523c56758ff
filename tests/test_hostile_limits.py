"""Hostile input, round 2 (issue 19): resources, crashes and interruptions.

- Limits (gen.model.limits) on what a trace and a set may hold, each a one-line
  error naming the limit and the variable that raises it, at import and at load;
  import takes only the files a set consists of.
- Pages stay bounded whatever a trace holds: kernel rows, timeline events and link
  lists are capped and say how many were left out.
- Trace times that are no times (NaN, infinities, 1e308, negative durations) are one line.
- A publish killed between its two renames is put back (or named) by every verb that reads.
- Build workers die with the build, even when it is SIGKILLed.
- A folder that cannot be written, a full disk and a capture.log in another encoding
  are one line, or no error at all, never a traceback.
"""

from __future__ import annotations

import errno
import gzip
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import textwrap
import time
from pathlib import Path

import pytest

from gen.cli import main
from gen.model import layout, limits, schema, trace, trace_digest

ROOT = Path(__file__).resolve().parent.parent
H200 = "nvidia-h200__torch-2.11.0"
CPU = "cpu-intel-r-xeon-r-processor__torch-2.13.0"
A100 = "nvidia-a100-sxm4-80gb__article-2026-07"  # published figures: sorts after every measured set
NAIVE_TRACE = "traces/article__inference__naive.json.gz"


def _copy(tmp: Path, name: str) -> Path:
    dst = tmp / "results" / name
    shutil.copytree(ROOT / "results" / name, dst)
    return dst


def _kernels_trace(path: Path, kernels: int, forwards: int = 1, pad: int = 0, **event) -> Path:
    """A trace of `forwards` calls, each `kernels` ops that launch one kernel each;
    `event` overrides fields of the first kernel; `pad` spaces after the JSON."""
    events, t, corr = [], 1000.0, 0
    for f in range(forwards):
        start = t
        for i in range(kernels):
            events += [
                {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "ts": t, "dur": 5, "tid": 1, "pid": 1},
                {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": t + 1, "dur": 2, "tid": 1,
                 "pid": 1, "args": {"correlation": corr}},
                {"ph": "X", "cat": "kernel", "name": f"void at::native::mul_kernel<{i % 5}>(float*)", "ts": t + 3,
                 "dur": 4, "tid": 7, "pid": 0, "args": {"correlation": corr, "grid": [1, 1, 1],
                                                        "block": [128, 1, 1], "stream": 7}},
            ]
            t, corr = t + 6, corr + 1
        events.append({"ph": "X", "cat": "user_annotation", "name": f"forward#{f}", "ts": start - 1,
                       "dur": t - start + 2, "tid": 1, "pid": 1})
        t += 10
    first = next(e for e in events if e["cat"] == "kernel")
    first.update(event)
    text = json.dumps({"traceEvents": events}) + " " * pad
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(text)
    return path


def _one_line(capsys, code: int, *needles: str) -> str:
    err = [ln for ln in capsys.readouterr().err.strip().splitlines() if not ln.startswith("note: ")]
    assert code == 2 and len(err) == 1 and err[0].startswith("error: "), (code, err)
    for n in needles:
        assert n in err[0], (n, err[0])
    return err[0]


# --------------------------------------------------------------------------- limits on a trace


def test_decompressed_size_is_limited_before_it_fills_the_memory(tmp_path, monkeypatch):
    """A gzip bomb: 3 MiB of a valid trace plus spaces, in a few KiB of gzip, over a 2 MiB limit."""
    path = _kernels_trace(tmp_path / "bomb.json.gz", 2, pad=3 * 2**20)
    assert path.stat().st_size < 64 * 1024
    monkeypatch.setenv("GEN_MAX_TRACE_MB", "2")
    with pytest.raises(schema.UserError) as exc:
        trace.parse(path)
    msg = str(exc.value)
    assert str(path) in msg and "GEN_MAX_TRACE_MB" in msg and "2 MiB" in msg and "\n" not in msg
    monkeypatch.setenv("GEN_MAX_TRACE_MB", "4")  # raised: it reads
    assert len(trace.parse(path).forwards) == 1


def test_events_per_trace_and_per_call_and_calls_are_limited(tmp_path, monkeypatch):
    many_calls = _kernels_trace(tmp_path / "calls.json.gz", 1, forwards=30)
    monkeypatch.setenv("GEN_MAX_TRACE_CALLS", "20")
    with pytest.raises(schema.UserError, match="GEN_MAX_TRACE_CALLS"):
        trace.parse(many_calls)
    monkeypatch.setenv("GEN_MAX_TRACE_EVENTS", "50")  # 30 calls of 4 events
    monkeypatch.delenv("GEN_MAX_TRACE_CALLS")
    with pytest.raises(schema.UserError, match=r"more than 50 events.*GEN_MAX_TRACE_EVENTS=100"):
        trace.parse(many_calls)
    monkeypatch.delenv("GEN_MAX_TRACE_EVENTS")
    # The default on events in one call (10,000): 3,400 launches are 10,200 events.
    big_call = _kernels_trace(tmp_path / "call.json.gz", 3_400)
    with pytest.raises(schema.UserError, match=r"forward#0: holds 10,200 events.*GEN_MAX_CALL_EVENTS=20000"):
        trace.parse(big_call)


def test_a_bad_limit_value_is_one_line(tmp_path, monkeypatch, capsys):
    d = _copy(tmp_path, CPU)
    monkeypatch.setenv("GEN_MAX_TRACE_EVENTS", "lots")
    _one_line(capsys, main(["summary", "--results", str(d.parent)]), "GEN_MAX_TRACE_EVENTS='lots'")


@pytest.mark.parametrize("field,value", [
    ("ts", float("nan")), ("ts", 1e308), ("ts", float("inf")), ("ts", 10**400), ("dur", float("nan")),
    ("dur", -3.5), ("dur", float("-inf")), ("dur", 1e308),
])
def test_impossible_times_are_one_line(tmp_path, capsys, field, value):
    """In a trace file: JSON's NaN and Infinity, a number past 2^53 µs, a negative duration."""
    path = _kernels_trace(tmp_path / "t.json.gz", 3, **{field: value})
    with pytest.raises(trace.TraceError) as exc:
        trace.parse(path)
    assert str(path) in str(exc.value) and f"has {field}" in str(exc.value) and "\n" not in str(exc.value)
    # In a set, every verb says it in one line.
    d = _copy(tmp_path, H200)
    shutil.copyfile(path, d / NAIVE_TRACE)
    _one_line(capsys, main(["summary", "--results", str(d.parent), "--set", H200]), f"has {field}")
    _one_line(capsys, main(["import", str(d), "--results", str(tmp_path / "elsewhere")]), f"has {field}")


def test_an_integer_past_python_s_digit_limit_is_one_line(tmp_path):
    path = _kernels_trace(tmp_path / "digits.json.gz", 2)
    text = gzip.decompress(path.read_bytes()).decode().replace('"dur": 4,', '"dur": ' + "9" * 5000 + ",", 1)
    path.write_bytes(gzip.compress(text.encode()))
    with pytest.raises(trace.TraceError, match="digits.json.gz: holds an integer of 5,000 digits at character") as exc:
        trace.parse(path)
    assert "\n" not in str(exc.value) and len(str(exc.value)) < 500
    big = _kernels_trace(tmp_path / "big.json.gz", 2, ts=10**400)
    with pytest.raises(trace.TraceError, match="has ts a 401-digit integer"):
        trace.parse(big)


def test_deep_nesting_and_huge_numbers_in_a_trace_are_one_line(tmp_path):
    deep = tmp_path / "deep.json.gz"
    with gzip.open(deep, "wt") as fh:
        fh.write('{"traceEvents": [' + "[" * 100_000 + "]" * 100_000 + "]}")
    with pytest.raises(trace.TraceError, match="nested too deep"):
        trace.parse(deep)
    odd = _kernels_trace(tmp_path / "odd.json.gz", 2, args={"correlation": 0, "grid": [float("inf"), 1, 1],
                                                            "block": [10**30, 1, 1], "bytes": float("nan")})
    g = trace.parse(odd).forwards[0].gpu[0]  # launch fields that are no numbers are absent, not a crash
    assert g.grid is None and g.block is None and g.bytes is None


def test_names_are_cut_past_a_bound(tmp_path):
    path = _kernels_trace(tmp_path / "long.json.gz", 2, name="void k<" + "x" * 100_000 + ">()")
    name = trace.parse(path).forwards[0].gpu[0].name
    assert len(name) < trace.MAX_NAME + 100 and name.endswith("more characters)")


# --------------------------------------------------------------------------- limits on a set


def _tar(folder: Path, dest: Path, extra: dict[str, bytes] | None = None) -> Path:
    with tarfile.open(dest, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)
        for name, data in (extra or {}).items():
            info = tarfile.TarInfo(f"{folder.name}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return dest


def test_import_publishes_only_the_files_a_set_consists_of(tmp_path, capsys):
    extra = {"big.bin": b"\0" * 2**20, "traces/unnamed.json.gz": b"x", "notes/readme.txt": b"hi"}
    archive = _tar(ROOT / "results" / CPU, tmp_path / "cpu.tgz", extra)
    results = tmp_path / "results"
    assert main(["import", str(archive), "--results", str(results)]) == 0
    out = results / CPU
    want = {f for f in layout.set_files(schema.load_set(out)) if (ROOT / "results" / CPU / f).is_file()}
    got = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert got == want | {trace_digest.FILE}  # and the digest of its traces, which import writes
    assert "left out 3 file(s)" in capsys.readouterr().err
    # A folder too.
    folder = tmp_path / "src" / CPU
    shutil.copytree(ROOT / "results" / CPU, folder)
    (folder / "core.dump").write_bytes(b"\0" * 1000)
    out2 = tmp_path / "results2"
    assert main(["import", str(folder), "--results", str(out2)]) == 0
    assert not (out2 / CPU / "core.dump").exists()


def test_an_archive_over_the_set_limits_is_refused_before_it_is_unpacked(tmp_path, monkeypatch, capsys):
    archive = _tar(ROOT / "results" / CPU, tmp_path / "cpu.tgz", {"junk.bin": b"\0" * (3 * 2**20)})
    results = tmp_path / "results"
    monkeypatch.setenv("GEN_MAX_SET_MB", "2")
    _one_line(capsys, main(["import", str(archive), "--results", str(results)]), "GEN_MAX_SET_MB", str(archive))
    monkeypatch.delenv("GEN_MAX_SET_MB")
    monkeypatch.setenv("GEN_MAX_SET_FILES", "5")
    _one_line(capsys, main(["import", str(archive), "--results", str(results)]), "GEN_MAX_SET_FILES")
    assert not (results / CPU).exists()
    assert [p.name for p in results.iterdir() if p.name != layout.LOCK_FILE] == []  # no staging left


def test_a_set_over_its_limits_is_one_line_where_it_is_read(tmp_path, monkeypatch, capsys):
    d = _copy(tmp_path, H200)  # result.json is 1.5 MB
    monkeypatch.setenv("GEN_MAX_RESULT_MB", "1")
    _one_line(capsys, main(["summary", "--results", str(d.parent), "--set", H200]), "GEN_MAX_RESULT_MB",
              str(d / "result.json"))
    monkeypatch.delenv("GEN_MAX_RESULT_MB")
    monkeypatch.setenv("GEN_MAX_SET_FILES", "10")
    _one_line(capsys, main(["summary", "--results", str(d.parent), "--set", H200]), "GEN_MAX_SET_FILES")
    _one_line(capsys, main(["build", "--results", str(d.parent), "--docs", str(tmp_path / "docs")]),
              "GEN_MAX_SET_FILES")


# --------------------------------------------------------------------------- pages stay bounded


def test_a_call_of_thousands_of_kernels_makes_a_bounded_page(tmp_path, monkeypatch):
    """3,000 kernels in one call (9,000 events): the page lists the first rows, draws the first
    events, links a few rows per finding, says how many it left out, and every link lands on the page."""
    import re

    from gen.analysis import tables
    from gen.report import site
    from gen.report.pages import variants

    d = _copy(tmp_path, CPU)
    _kernels_trace(d / "traces/inference__naive.json.gz", 3_000)
    ls = tables.load_set(d)
    ctx = site.Context([ls])
    page = next(p for p in variants.set_pages(ctx, ls) if p.path.endswith("/naive.md"))  # the set's page of it
    text = page.text
    assert len(text) < 1_500_000, len(text)
    assert text.count('class="kind-kernel"') <= site.MAX_KERNEL_ROWS + 200  # + the training tab's
    assert f"{3_000 - site.MAX_KERNEL_ROWS:,} more GPU event(s) of this forward are not listed" in text
    assert re.search(rf"It leaves out [\d,]+ event\(s\).*the first {site.MAX_TIMELINE_EVENTS:,} events", text)
    ids = set(re.findall(r'id="([^"]+)"', text))
    # Markdown links, and the finished HTML of the findings' and lessons' lists
    links = set(re.findall(r"\]\(#(k-[^)]+)\)", text)) | set(re.findall(r'<a href="#(k-[^"]+)">', text))
    assert links and links <= ids, sorted(links - ids)[:5]
    spec = json.loads(re.search(r"data-spec='([^']*)'", text).group(1).replace("&amp;", "&").replace("&lt;", "<")
                      .replace("&gt;", ">").replace("&#39;", "'"))
    assert len(spec["datasets"]["cpu"]) + len(spec["datasets"]["gpu"]) <= site.MAX_TIMELINE_EVENTS


def test_any_one_printed_value_is_cut_past_a_bound():
    from markupsafe import Markup

    from gen.report import site

    long = "a<b>&" * 10_000
    out = site.bounded(long)
    assert len(out) < site.MAX_VALUE_CHARS + 100 and out.endswith("more characters not shown)")
    esc = site.bounded(Markup.escape(long))  # never cuts an entity in two
    assert isinstance(esc, Markup) and "&am…" not in esc and not esc.split(" …")[0].endswith(("&", "&amp", "&l"))
    chart = site.ChartHTML("x" * (site.MAX_VALUE_CHARS * 2))
    assert site.bounded(chart) is chart


# --------------------------------------------------------------------------- a publish killed between its renames


KILL_BETWEEN_RENAMES = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, sys.argv[1])
    from gen.model import layout
    real = os.replace
    def replace(src, dst):
        real(src, dst)
        if ".old-" in os.path.basename(str(dst)):  # the old copy went aside; the new one is not in yet
            os.kill(os.getpid(), signal.SIGKILL)
    layout.os.replace = replace
    from gen.cli import main
    sys.exit(main(sys.argv[2:]))
""")


@pytest.fixture
def killed_import(tmp_path):
    """results/ with the CPU set and the A100's published figures, after `gen import --force`
    of the CPU set was SIGKILLed between its two renames: the CPU set's folder is missing, its
    old copy beside it, and the published set is the only one a reader would find."""
    results = tmp_path / "results"
    for name in (CPU, A100):
        shutil.copytree(ROOT / "results" / name, results / name)
    proc = subprocess.run([sys.executable, "-c", KILL_BETWEEN_RENAMES, str(ROOT), "import", str(ROOT / "results" / CPU),
                           "--results", str(results), "--force"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    assert not (results / CPU).exists() and [p for p in results.iterdir() if p.name.startswith(f".{CPU}.old-")]
    return results


@pytest.mark.parametrize("verb", [
    ["summary", "--set", CPU],
    ["summary"],
    ["compare", CPU, A100, "--force"],
    ["build"],
])
def test_every_reading_verb_puts_back_a_set_a_killed_publish_left_aside(killed_import, capsys, verb, tmp_path):
    args = [*verb, "--results", str(killed_import)] + (["--docs", str(tmp_path / "docs")] if verb == ["build"] else [])
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert f"restored {killed_import / CPU}" in err
    if verb[0] == "summary":  # the set itself, not the other one
        assert out.startswith(f"{CPU}: "), out[:200]
    assert (killed_import / CPU / "result.json").is_file()
    assert not [p for p in killed_import.iterdir() if ".old-" in p.name]
    if verb == ["build"]:
        assert (tmp_path / "docs" / "generated" / "sets" / f"{CPU}.md").is_file()


def test_where_it_cannot_put_it_back_the_verb_names_it(killed_import, monkeypatch, capsys):
    def read_only(parent):
        raise PermissionError(errno.EACCES, "Permission denied", str(parent / layout.LOCK_FILE))

    monkeypatch.setattr(layout, "lock", read_only)  # as on a read-only results folder (tests run as root)
    line = _one_line(capsys, main(["summary", "--results", str(killed_import)]),
                     f"{killed_import / CPU}: missing", ".old-", "rename")
    assert "Permission denied" in line


# --------------------------------------------------------------------------- workers die with the build


WORKERS = textwrap.dedent("""
    import sys, time
    from types import SimpleNamespace
    sys.path.insert(0, sys.argv[1])
    from gen.report import units
    def slow(i):  # a set's share of the build (gen.report.units), made in a worker
        time.sleep(120)
    units._run_task = slow
    one = SimpleNamespace(rs=SimpleNamespace(sweep=[], runs=[]))
    units.run_tasks(None, [(one, ("own",), False), (one, ("sweep",), False)], workers=2)
""")


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc to find the workers")
def test_build_workers_die_when_the_build_is_killed():
    proc = subprocess.Popen([sys.executable, "-c", WORKERS, str(ROOT)])
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
            workers = _children(proc.pid)
        assert len(workers) == 2, workers
        time.sleep(0.5)  # inside their builders now
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        alive = workers
        while alive and time.monotonic() < deadline:
            time.sleep(0.1)
            alive = [w for w in workers if Path(f"/proc/{w}").exists() and "Z" not in _state(w)]
        assert alive == [], "workers outlived the build they served"
    finally:
        for pid in [proc.pid, *workers]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


# --------------------------------------------------------------------------- folders, disks, encodings


def test_a_read_only_docs_folder_is_one_line(tmp_path, monkeypatch, capsys):
    d = _copy(tmp_path, CPU)
    docs = tmp_path / "docs"
    docs.mkdir()
    real = Path.mkdir

    def mkdir(self, *args, **kwargs):
        if self.parent == docs:  # as a read-only folder does to anyone but root
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    _one_line(capsys, main(["build", "--results", str(d.parent), "--docs", str(docs)]), str(docs),
              "Permission denied", "--docs")


def test_a_full_disk_while_writing_is_one_line(tmp_path, monkeypatch, capsys):
    d = _copy(tmp_path, CPU)
    for name in ("write_text", "write_bytes"):  # pages are written as bytes, the nav as text
        real = getattr(Path, name)

        def write(self, *args, _real=real, **kwargs):
            if self.suffix == ".md":
                raise OSError(errno.ENOSPC, "No space left on device", str(self))
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(Path, name, write)
    _one_line(capsys, main(["build", "--results", str(d.parent), "--docs", str(tmp_path / "docs")]),
              "No space left on device", "nothing was published")
    assert not (tmp_path / "docs" / "generated").exists()


def test_a_capture_log_in_another_encoding_merges_as_it_is(tmp_path, capsys):
    results = tmp_path / "results"
    shutil.copytree(ROOT / "results" / CPU, results / CPU)
    log = results / CPU / "capture.log"
    log.write_bytes(log.read_bytes() + "température 85 °C\n".encode("latin-1"))
    src = tmp_path / "src" / CPU
    shutil.copytree(ROOT / "results" / CPU, src)
    (src / "capture.log").write_bytes(b"\xff\xfe caf\xe9\n")
    assert main(["import", str(src), "--results", str(results), "--merge", "--force"]) == 0, capsys.readouterr().err
    merged = (results / CPU / "capture.log").read_bytes()
    assert "température".encode("latin-1") in merged and merged.endswith(b"\xff\xfe caf\xe9\n")


def test_the_limits_are_documented_with_their_defaults():
    """Each limit has its variable and default in gen.model.limits, and its message says both."""
    for lim in limits.ALL:
        assert lim.env.startswith("GEN_MAX_") and lim.default > 0
        msg = str(lim.exceeded("somewhere", "holds too much"))
        assert lim.env in msg and f"{lim.default:,} {lim.unit}" in msg and "\n" not in msg


# --------------------------------------------------------------------------- the same, with real permissions


def _unprivileged() -> list[str] | None:
    """The prefix that runs a command as a user who cannot write a 0555 folder: none needed for
    an ordinary user; root drops to nobody with setpriv (None where it cannot)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] if setpriv else None


@pytest.fixture
def shared_tmp():
    """A scratch folder another user can read (pytest's tmp_path is 0700)."""
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="gen-hostile-"))
    tmp.chmod(0o755)
    yield tmp
    for p in [tmp, *tmp.rglob("*")]:
        if p.is_dir() and not p.is_symlink():
            p.chmod(0o755)
    shutil.rmtree(tmp, ignore_errors=True)


def _run_unprivileged(prefix: list[str], *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1", HOME="/tmp")
    return subprocess.run([*prefix, sys.executable, "-m", "gen", *args], capture_output=True, text=True, env=env,
                          cwd="/", timeout=300)


def _said_in_one_line(proc: subprocess.CompletedProcess, *needles: str) -> str:
    lines = [ln for ln in proc.stderr.strip().splitlines() if not ln.startswith("note: ")]
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), proc.stderr[-2000:]
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def test_a_read_only_folder_for_real_is_one_line(shared_tmp):
    prefix = _unprivileged()
    if prefix is None:
        pytest.skip("root without setpriv: no user to lack the permission")
    if prefix and not all(p.stat().st_mode & 0o001 for p in (ROOT, *ROOT.parents)):
        # a checkout inside a private folder (mktemp -d makes 0700 ones): nobody cannot import gen
        pytest.skip(f"{ROOT} lies in a folder other users cannot enter: nobody cannot run the project")
    results = shared_tmp / "results"
    shutil.copytree(ROOT / "results" / CPU, results / CPU)
    docs = shared_tmp / "docs"
    docs.mkdir()
    docs.chmod(0o555)
    _said_in_one_line(_run_unprivileged(prefix, "build", "--results", str(results), "--docs", str(docs)),
                      str(docs), "Permission denied", "--docs")
    # A set a killed publish left aside, in a results folder this user cannot write: named, not read around.
    os.replace(results / CPU, results / f".{CPU}.old-999999999")
    results.chmod(0o555)
    _said_in_one_line(_run_unprivileged(prefix, "summary", "--results", str(results)),
                      f"{results / CPU}: missing", f".{CPU}.old-999999999")
