"""End-to-end capture on the CPU with tiny shapes: the same code path the GPU runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gen.analysis import tables
from gen.model import schema, trace, trace_digest
from tests import gen_main

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
TINY = "2,2,64,16"
ARGS = ["--shape", TINY, "--quick"]


def gen(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "gen", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


@pytest.fixture(scope="module")
def cpu_set(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    p = gen("profile", *ARGS, "--mode", "inference,train", "--out", str(out),
            "--variants", "naive,naive_inplace,sdpa_math,sdpa_flash,sdpa_cudnn,sdpa_auto",
            "--sweep", "--sweep-seqs", "32,64", "--sweep-dims", "16")
    assert p.returncode == 0, p.stderr
    assert "no GPU found" in p.stderr
    (path,) = [d for d in out.iterdir() if not d.name.startswith(".")]
    return out, path


def test_cpu_capture_writes_a_complete_set(cpu_set):
    out, path = cpu_set
    assert path.name.startswith("cpu-") and "__torch-" in path.name
    rs = schema.load_set(path)
    assert rs.environment.device == "cpu" and rs.environment.gpu_name is None
    log = (path / "capture.log").read_text()
    assert "[1/12] inference naive: ok (graph - (none: no GPU), eager " in log
    assert log.strip().splitlines()[-1].startswith("finished in ")
    ok = {(r.variant, r.mode) for r in rs.runs if r.status == "ok"}
    assert ("naive", "inference") in ok and ("sdpa_flash", "train") in ok
    for r in rs.runs:
        if r.status == "ok":
            t = r.timing
            # No CUDA events and no graph on a CPU: eager is wall time per call.
            assert t.host_ms and t.eager_ms and all(x > 0 for x in t.eager_ms + t.host_ms)
            assert t.gpu_only_method is None and t.gpu_only_reason == "no GPU" and not t.gpu_only_ms
            assert t.warmup_iters >= 3 and t.warmup_window_ms
            assert r.counters == schema.Counters(status="unavailable", reason="no GPU")
            assert r.point == schema.Point(2, 2, 2, 16, 64, 64, "causal")
            assert r.rel_errors and max(r.rel_errors) < 2e-2
            t = trace.parse(path / r.trace)
            assert len(t.forwards) == rs.config.profile_active and t.counts == [0] * len(t.forwards)
    assert {p.status for p in rs.sweep} <= {"ok", "unavailable"}
    assert rs.ceilings is None  # no GPU: no ceilings to measure
    n = len(trace_digest.trace_files(rs))
    assert f"digested {n} of {n} traces into {trace_digest.FILE}" in log and n >= 10
    assert not [p for p in out.iterdir() if p.name.startswith(".staging")]


def test_the_capture_digests_its_traces_and_the_build_reads_them(cpu_set, tmp_path, monkeypatch):
    """Capture publishes its traces' digest (gen.model.trace_digest): the same Traces as the
    parser's, and a build of the set parses none of its traces."""
    out, path = cpu_set
    rs = schema.load_set(path)
    rels = trace_digest.trace_files(rs)
    digest = trace_digest.read(path)
    for rel in rels:
        got, want = digest.trace(path / rel, rel), trace.parse(path / rel)
        assert got == want and repr(got) == repr(want)
    assert (path / trace_digest.FILE).read_bytes() == trace_digest.dumps(path, rels)[0]

    def refuse(p):
        raise AssertionError(f"parsed {p}")

    import shutil

    from gen.report import build, units

    # The committed H200 set (a report needs a GPU set; read through its digest too, as every committed set is
    # by test_trace_digest) and this one: the other committed sets only made the build longer (14.6 -> 7.7 s of CPU)
    results = tmp_path / "results"
    shutil.copytree(ROOT / "results" / "nvidia-h200__torch-2.11.0", results / "nvidia-h200__torch-2.11.0")
    shutil.copytree(path, results / path.name)
    monkeypatch.setattr(trace, "parse", refuse)  # worker processes, where a build forks them, inherit it
    loaded, real_load = [], units.load  # what the build loads, looked at as it goes (the sets loaded once)
    monkeypatch.setattr(units, "load", lambda *a, **k: loaded.append(real_load(*a, **k)) or loaded[-1])
    # The whole build (it loads the sets, without the cache, through units.load), its link check included:
    # a CPU set captured with --sweep has no scaling page, and its article scenario page once linked one
    # (the build refused the set)
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("generated"))
    build.run(results, docs, use_cache=False)
    ((ctx, made),) = loaded
    assert path.name in {ls.name for ls in ctx.sets} and made[path.name].pages and not ctx.skipped
    article = docs / "generated" / "sets" / path.name / "scenarios" / "article.md"
    assert article.is_file() and "scaling.html" not in article.read_text(encoding="utf-8")


def test_unavailable_backend_is_recorded_with_the_reason(cpu_set):
    _, path = cpu_set
    rs = schema.load_set(path)
    cudnn = rs.run("sdpa_cudnn")
    assert cudnn.status == "unavailable"
    assert "RuntimeError" in cudnn.reason and cudnn.trace is None
    # and the variants after it still ran
    assert rs.run("sdpa_auto").status == "ok"


def _main(capsys, *argv: str) -> tuple[int, str, str]:
    """The CLI's main in this process (a process of its own cost its imports, torch's, 1.3-2.5 s of CPU):
    (exit status, stdout, stderr)."""
    from gen import cli

    capsys.readouterr()
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_overwrite_is_refused_and_nothing_lost(cpu_set, capsys):
    out, path = cpu_set
    before = (path / "result.json").read_bytes()
    code, _, err = _main(capsys, "profile", *ARGS, "--variants", "naive", "--out", str(out))
    assert code == 2
    assert err.strip().splitlines()[-1].startswith("error: ")
    assert "pass --force" in err and str(path.name) in err
    assert (path / "result.json").read_bytes() == before
    code, _, _ = _main(capsys, "profile", *ARGS, "--variants", "naive", "--out", str(out), "--if-missing")
    assert code == 0 and (path / "result.json").read_bytes() == before


def test_force_replaces_atomically(cpu_set, tmp_path, capsys):
    import shutil

    _, path = cpu_set
    out = tmp_path / "r"
    shutil.copytree(path, out / path.name)
    code, _, err = _main(capsys, "profile", *ARGS, "--variants", "naive", "--out", str(out), "--force")
    assert code == 0, err
    rs = schema.load_set(out / path.name)
    assert [r.variant for r in rs.runs] == ["naive"]
    from gen.model import layout

    # nothing left over but the publisher's lock file
    assert sorted(x.name for x in out.iterdir() if x.name != layout.LOCK_FILE) == [path.name]


def test_summary_reads_the_cpu_set(cpu_set, capsys):
    out, path = cpu_set
    code, stdout, err = _main(capsys, "summary", "--results", str(out), "--format", "json")
    assert code == 0, err
    rows = {r["variant"]: r for r in json.loads(stdout)["rows"]}
    assert rows["sdpa_cudnn"]["status"] == "unavailable" and rows["sdpa_cudnn"]["reason"]
    # no GPU: no GPU-only time; the eager loop's wall time and host time are there
    assert rows["naive"]["host_ms"] > 0 and rows["naive"]["gpu_only_ms"] is None
    assert rows["sdpa_flash"]["kernels"] == []
    ls = tables.load_set(path)
    assert tables.summary_table(ls)["kernels_per_forward"].isna().all()


@pytest.mark.parametrize("args,msg", [
    (["--variants", "naive,bogus"], "--variants: unknown variant(s) bogus"),
    (["--shape", "1,2,3"], "--shape: expected B,H,S,D"),
    (["--dtype", "int8"], "--dtype: 'int8' is not one of"),
    (["--mode", "eval"], "--mode: unknown mode(s) eval"),
])
def test_bad_options_are_one_line_errors(args, msg, tmp_path):
    # refused before torch is imported: the CLI's main in this process (tests/gen_main.py) says what a process would
    p = gen_main.run("profile", *ARGS, "--out", str(tmp_path), *args)
    assert p.returncode == 2
    assert msg in p.stderr and "Traceback" not in p.stderr
    assert list(tmp_path.iterdir()) == []


def test_interrupted_run_publishes_nothing(tmp_path, monkeypatch):
    from gen.capture import runner as capture
    from gen.model import variants

    calls = {"n": 0}
    real = capture.run_variant

    def interrupted(*a, **k):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(capture, "run_variant", interrupted)
    budget = capture.Budget(warmup_min=2, warmup_min_s=0.0, warmup_max_s=0.2, repeats=3, min_measure_s=0.0,
                            max_repeats=5)
    with pytest.raises(KeyboardInterrupt):
        capture.profile(variants.resolve("naive,naive_inplace"), (1, 2, 32, 16), "bf16", ["inference"],
                        tmp_path, budget=budget)
    from gen.model import layout

    # nothing published; the first run is kept for --resume, in the partial capture's folder
    left = [p for p in tmp_path.iterdir() if p.name != layout.LOCK_FILE]
    assert [p.name.startswith(".partial-") for p in left] == [True]
    assert [p.name.split("__")[0] for p in (left[0] / "items").iterdir()] == ["overhead", "run"]


def _catch_all(filters) -> bool:
    """Is warnings.simplefilter("always") in force (as inside the capture's recording block)?"""
    return any(f[0] == "always" and f[2] is Warning and f[1] is None for f in filters)


@pytest.mark.parametrize("mode", ["inference", "train"])
def test_timed_loops_run_outside_the_warnings_recorder_and_no_grad_is_entered_once(mode, tmp_path, monkeypatch):
    import warnings

    import torch

    from gen.capture import timing, variant_run
    from gen.model import variants

    tiny = timing.Budget(warmup_min=2, warmup_min_s=0.0, warmup_max_s=0.05, repeats=3, min_measure_s=0.0,
                         max_repeats=3, host_repeats=3, min_rounds=3, max_rounds=3)
    seen = []

    def spy(call, device, budget, graph=True, **kw):
        seen.append((torch.is_grad_enabled(), _catch_all(warnings.filters), graph))
        return timing.measure(call, device, tiny, graph, **kw)

    monkeypatch.setattr(variant_run, "measure", spy)
    cfg = schema.RunConfig(batch=1, heads=2, seq_len=32, head_dim=16, dtype="bf16", modes=[mode], variants=["naive"],
                           warmup_min=2, repeats=3, profile_wait=0, profile_warmup=1, profile_active=1,
                           error_draws=1, seed=0)
    (tmp_path / schema.TRACE_DIR).mkdir()
    before = _catch_all(warnings.filters)
    r = variant_run.run_variant(variants.VARIANTS["naive"], mode, cfg, torch.device("cpu"), tiny, tmp_path)
    assert r.status == "ok", r.reason
    # inference: no_grad entered around measure (not inside each call); train: grads on
    assert not before  # else this test could not tell
    assert seen == [(mode == "train", False, True)]
    assert len(r.timing.eager_ms) == 3 and len(r.timing.host_ms) == 3 and r.timing.gpu_only_reason == "no GPU"
    assert r.trace == f"{schema.TRACE_DIR}/article__{mode}__naive.json.gz" and (tmp_path / r.trace).is_file()


def _records(path):
    rs = schema.load_set(path)
    runs = [(r.scenario, r.mode, r.variant, r.status, r.point) for r in rs.runs]
    sweep = [(p.scenario, p.mode, p.variant, p.status, p.point, p.trace) for p in rs.sweep]
    return rs, runs, sweep


# Two variants, two modes, two scenarios: a kill after 7 points leaves the article's sweep half done
RESUME_ARGS = ["profile", "--tiny", "--quick", "--mode", "inference,train", "--variants", "naive,sdpa_math",
               "--scenario", "article,decode", "--sweep", "--sweep-seqs", "32,64", "--sweep-dims", "16"]


def test_a_capture_killed_with_sigkill_resumes_and_publishes_the_same_set(tmp_path, capsys):
    """The killed capture and its resumption are processes of their own (a SIGKILL, then a new process that
    finds the partial capture); the uninterrupted capture to compare with and the two refusals run in this
    process (the CLI's main: the same code, without a process and torch's import each, about 2.5 s of CPU)."""
    import os

    whole, cut = tmp_path / "whole", tmp_path / "cut"
    code, _, err = _main(capsys, *RESUME_ARGS, "--out", str(whole))
    assert code == 0, err
    env = dict(os.environ, GEN_TEST_KILL_AFTER_POINTS="7")
    killed = subprocess.run([sys.executable, "-m", "gen", *RESUME_ARGS, "--out", str(cut)], capture_output=True,
                            text=True, timeout=600, env=env)
    assert killed.returncode == -9, killed.stderr  # SIGKILL: no handler ran
    assert not [d for d in cut.iterdir() if not d.name.startswith(".")]  # nothing published
    (partial,) = [d for d in cut.iterdir() if d.name.startswith(".partial-")]
    assert len(list((partial / "items").glob("*.json"))) == 7
    # without --resume the partial capture is not thrown away
    code, _, err = _main(capsys, *RESUME_ARGS, "--out", str(cut))
    assert code == 2 and "--resume" in err and partial.is_dir()
    # with other options it is refused, naming what differs
    code, _, err = _main(capsys, *RESUME_ARGS[:-4], "--out", str(cut), "--resume")
    assert code == 2 and "differ in" in err
    assert len(list((partial / "items").glob("*.json"))) == 7  # neither refusal changed it
    done = gen(*RESUME_ARGS, "--out", str(cut), "--resume")
    assert done.returncode == 0, done.stderr
    assert "kept from an earlier session" in done.stderr and "session 2" in done.stderr
    assert not partial.exists()
    (a,) = [d for d in whole.iterdir() if not d.name.startswith(".")]
    (b,) = [d for d in cut.iterdir() if not d.name.startswith(".")]
    rs_a, runs_a, sweep_a = _records(a)
    rs_b, runs_b, sweep_b = _records(b)
    assert runs_a == runs_b and sweep_a == sweep_b  # same points, statuses, order and traces
    assert set(rs_a.stage_seconds) == set(rs_b.stage_seconds) >= {"start", "runs", "sweep article"}
    log = (b / "capture.log").read_text()
    assert "session 2" in log and log.strip().splitlines()[-1].startswith("finished in ")
    for rec in [*rs_b.runs, *rs_b.sweep]:
        if rec.trace:
            assert (b / rec.trace).is_file()
    # the digest of the traces of both sessions, as one capture writes it
    assert (b / trace_digest.FILE).read_bytes() == trace_digest.dumps(b, trace_digest.trace_files(rs_b))[0]


def test_a_point_predicted_past_the_per_call_or_first_call_limit_is_skipped_with_why():
    import torch

    from gen.capture import sweep_limits, sweep_plan
    from gen.model import scenarios, variants

    s = scenarios.SCENARIOS["article"]
    job = sweep_plan.Job(s, "inference", s.point(16384), variants.VARIANTS["naive"], None)
    gpu, cpu = torch.device("cuda"), torch.device("cpu")
    far = float("inf")

    def seen(last_ms, firsts=(), oom_at=None):
        return sweep_limits.Series(oom_at=oom_at, last_s=3.0, prev=s.point(8192), last_ms=last_ms,
                             firsts=[(s.point(n), f) for n, f in firsts])

    why = sweep_limits.not_run(job, seen(87.2), far, gpu)
    assert why.startswith("not run: predicted 349 ms a call from 87.2 ms at 8192 tokens")
    assert sweep_limits.not_run(job, seen(87.2), far, cpu) is None  # a CPU's times are noise
    assert sweep_limits.not_run(job, seen(30.0), far, gpu) is None
    # First calls that grew with the work (autotuning runs the kernels) predict a long one...
    why = sweep_limits.not_run(job, seen(30.0, [(4096, 4.3), (8192, 17.2)]), far, gpu)
    assert why.startswith("not run: predicted a first call of 69 s from 17.2 s at 8192 tokens")
    # ...first calls that did not grow (a compile's fixed cost) predict none, and one alone says nothing.
    assert sweep_limits.not_run(job, seen(30.0, [(4096, 17.0), (8192, 17.2)]), far, gpu) is None
    assert sweep_limits.not_run(job, seen(30.0, [(8192, 17.2)]), far, gpu) is None
    oom = sweep_limits.not_run(job, seen(1.0, oom_at=4096), far, gpu)
    assert oom == "not run: out of memory already at 4096 tokens"


def test_a_series_with_few_first_calls_is_predicted_from_the_variants_other_series():
    """The H200's compiled naive product: the article's D=128 series had one first call over a second
    (3.7 s at 4k) and took 71 s at 16k; the sliding window's one point (16k, the GQA shape) took 32 s.
    What the D=64 series and gqa-prefill showed predicts both."""
    import torch

    from gen.capture import sweep_limits, sweep_plan
    from gen.model import scenarios, variants

    art, gqa, win = (scenarios.SCENARIOS[n] for n in ("article", "gqa-prefill", "sliding-window"))
    v = variants.VARIANTS["naive_compiled"]
    gpu, far = torch.device("cuda"), float("inf")
    growth = sweep_limits.Growth()

    def ran(series, point, first_s):
        rec = schema.SweepPoint(variant=v.name, point=point, status="ok", first_call_s=first_s)
        rec.timing = schema.Timing(gpu_only_ms=[1.0])
        series.add(rec, point, first_s + 1.0)

    d64 = sweep_limits.Series(growth=growth, key=(v.name, "inference"), scenario="article")
    for n, f in [(2048, 1.9), (4096, 4.3), (8192, 15.7)]:
        ran(d64, art.point(n), f)
    assert 0.9 < growth.exponent[(v.name, "inference")] <= 1.0
    d128 = sweep_limits.Series(growth=growth, key=(v.name, "inference"), scenario="article")
    ran(d128, art.point(4096, 128), 3.7)
    why = sweep_limits.not_run(sweep_plan.Job(art, "inference", art.point(16384, 128), v, None), d128, far, gpu)
    assert why.startswith("not run: predicted a first call of ") and "from 3.7 s at 4096 tokens" in why
    assert "(the variant's first calls in another series grew as the work to the power 0.9" in why
    g = sweep_limits.Series(growth=growth, key=(v.name, "inference"), scenario="gqa-prefill")
    for n, f in [(2048, 1.5), (4096, 2.7), (8192, 10.3)]:
        ran(g, gqa.point(n), f)
    alone = sweep_limits.Series(growth=growth, key=(v.name, "inference"), scenario="sliding-window")
    why = sweep_limits.not_run(sweep_plan.Job(win, "inference", win.point(16384), v, None), alone, far, gpu)
    assert "from 10.3 s at gqa-prefill's 8192 tokens (B=1, 64 query heads)" in why
    # Decode's compiled product: one first call just over a second, the next under it: no growth.
    dec = scenarios.SCENARIOS["decode"]
    d = sweep_limits.Series(growth=growth, key=(v.name, "inference"), scenario="decode")
    ran(d, dec.point(4096), 1.01)
    ran(d, dec.point(16384), 0.61)
    assert sweep_limits.not_run(sweep_plan.Job(dec, "inference", dec.point(131072), v, None), d, far, gpu) is None
    # FlexAttention's compile does not grow with the work; a decode step's first call, at hundreds of
    # times less work than a 16k prefill, predicts nothing for it (the first H200 capture without that
    # bound skipped the sliding window's Flex point, predicted 37 s from decode's 1.8 s).
    fk = (variants.VARIANTS["flex"].name, "inference")
    fd = sweep_limits.Series(growth=growth, key=fk, scenario="decode")
    for n, f in [(4096, 1.2), (16384, 1.3), (65536, 2.5), (131072, 1.8)]:
        ran(fd, dec.point(n), f)
    fw = sweep_limits.Series(growth=growth, key=fk, scenario="sliding-window")
    assert sweep_limits.not_run(sweep_plan.Job(win, "inference", win.point(16384), variants.VARIANTS["flex"], None),
                          fw, far, gpu) is None
    # Training compiles other graphs: its series learn nothing from inference's.
    train = sweep_limits.Series(growth=growth, key=(v.name, "train"), scenario="sliding-window")
    assert sweep_limits.not_run(sweep_plan.Job(win, "train", win.point(16384), v, None), train, far, gpu) is None


def test_a_long_out_of_memory_line_is_cut_between_words_and_says_so():
    from gen.capture import probe

    words = " ".join(["Tried to allocate 64.00 GiB. GPU 0 has a total capacity of 139.80 GiB"] * 12)
    got = probe.out_of_memory(RuntimeError(words))
    assert got.startswith("out of memory: Tried to allocate") and got.endswith(" …")
    assert len(got) <= len("out of memory: ") + probe.OOM_REASON_CHARS + 2
    assert got[:-2].split(" ")[-1] in words.split(" ")  # the last word is whole
    assert probe.out_of_memory(RuntimeError("short")) == "out of memory: short"


def test_the_recorded_commit_says_when_the_tracked_files_differ_from_it(tmp_path, monkeypatch):
    """A remote GPU machine's copy of a working tree may carry an older .git: HEAD alone then names
    older code than what ran."""
    import subprocess

    from gen.capture import environment

    def git(*a):
        subprocess.run(["git", *a], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "f.py").write_text("x = 1\n")
    git("add", "f.py")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    monkeypatch.chdir(tmp_path)
    head = environment._commit()
    assert head and len(head) == 40 and "+" not in head
    (tmp_path / "f.py").write_text("x = 2\n")
    assert environment._commit() == head + "+modified"
    (tmp_path / "new.py").write_text("")  # an untracked file is not the code that ran
    (tmp_path / "f.py").write_text("x = 1\n")
    assert environment._commit() == head


def test_a_compiled_naive_point_whose_score_matrix_the_gpu_cannot_hold_twice_is_not_run(monkeypatch):
    """Inductor's autotuner keeps a copy of the in-place score matrix: past the room on the GPU it copies
    it to host memory around every candidate, minutes at 16k tokens. Judged with the H200's free memory."""
    import torch

    from gen.capture import sweep_limits, sweep_plan
    from gen.model import scenarios, variants

    art = scenarios.SCENARIOS["article"]
    gpu, far = torch.device("cuda"), float("inf")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (140e9, 143e9))
    fresh = sweep_limits.Series(growth=sweep_limits.Growth(), key=("naive_compiled", "inference"), scenario="article")
    compiled, naive = variants.VARIANTS["naive_compiled"], variants.VARIANTS["naive"]
    # 8k tokens, B8 H16: 16 GiB, room for a copy; 16k: 64 GiB, none (sizes in GiB, as PyTorch's OOM messages give
    # them: review 18 item 13)
    job = sweep_plan.Job(art, "inference", art.point(8192), compiled, None)
    assert sweep_limits.not_run(job, fresh, far, gpu) is None
    why = sweep_limits.not_run(sweep_plan.Job(art, "inference", art.point(16384), compiled, None), fresh, far, gpu)
    assert why.startswith("not run: the first call's autotuner would keep a pinned host copy of the 64.00 GiB score "
                          "matrix")
    # at 32k the matrix alone (256 GiB) is more than the GPU holds
    why = sweep_limits.not_run(sweep_plan.Job(art, "inference", art.point(32768), compiled, None), fresh, far, gpu)
    assert why == ("not run: the 256.00 GiB score matrix alone is more than the 130.39 GiB left free on the GPU at "
                   "this point (of its 133.18 GiB; the rest held by the capture)")
    # the eager product has no autotuner
    eager = sweep_limits.Series(growth=sweep_limits.Growth(), key=("naive", "inference"), scenario="article")
    job = sweep_plan.Job(art, "inference", art.point(16384), naive, None)
    assert sweep_limits.not_run(job, eager, far, gpu) is None
