"""`python -m gen import`: sets made elsewhere, checked, migrated, published or merged."""

from __future__ import annotations

import dataclasses
import io
import json
import shutil
import tarfile
from pathlib import Path

import pytest

from gen import importer
from gen.cli import main
from gen.model import schema

ROOT = Path(__file__).resolve().parent.parent
H200 = "nvidia-h200__torch-2.11.0"
CPU = "cpu-intel-r-xeon-r-processor__torch-2.13.0"


def _tar(src: Path, dest: Path) -> Path:
    with tarfile.open(dest, "w:gz") as tar:
        tar.add(src, arcname=src.name)
    return dest


def _tar_with(dest: Path, member: tarfile.TarInfo, data: bytes = b"") -> Path:
    """The CPU set plus one hostile member."""
    with tarfile.open(dest, "w:gz") as tar:
        tar.add(ROOT / "results" / CPU, arcname=CPU)
        tar.addfile(member, io.BytesIO(data) if data else None)
    return dest


def _err_line(capsys) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    lines = [x for x in lines if not x.startswith("note: ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


def test_import_tarball_migrates_and_publishes(tmp_path, capsys):
    archive = _tar(ROOT / "results" / CPU, tmp_path / "cpu.tgz")
    results = tmp_path / "results"
    assert main(["import", str(archive), "--results", str(results)]) == 0
    out = results / CPU
    assert capsys.readouterr().out.strip() == str(out)
    data = json.loads((out / "result.json").read_text())
    assert data["schema_version"] == schema.SCHEMA_VERSION  # was 1 on disk: written at the current version
    assert schema.load_set(out) == schema.load_set(ROOT / "results" / CPU)
    assert sorted(p.name for p in (out / "traces").iterdir()) == sorted(
        p.name for p in (ROOT / "results" / CPU / "traces").iterdir())
    assert [p.name for p in results.iterdir() if p.name.startswith(".") and p.name != ".publish.lock"] == []

    # A duplicate is refused in one line; --force replaces it.
    assert main(["import", str(archive), "--results", str(results)]) == 2
    assert "exists; pass --force" in _err_line(capsys)
    assert main(["import", str(archive), "--results", str(results), "--force"]) == 0


def test_import_folder(tmp_path):
    out = importer.run(ROOT / "results" / H200, tmp_path / "results")
    assert schema.load_set(out).runs == schema.load_set(ROOT / "results" / H200).runs


@pytest.mark.parametrize("kind", ["absolute", "dotdot", "symlink", "hardlink", "device"])
def test_hostile_archive_members_are_refused(tmp_path, capsys, kind):
    m = tarfile.TarInfo({"absolute": "/tmp/evil-import", "dotdot": f"{CPU}/../../evil-import"}.get(
        kind, f"{CPU}/traces/evil"))
    data = b""
    if kind in ("absolute", "dotdot"):
        data = b"x"
        m.size = 1
    elif kind == "symlink":
        m.type, m.linkname = tarfile.SYMTYPE, "/etc/passwd"
    elif kind == "hardlink":
        m.type, m.linkname = tarfile.LNKTYPE, "/etc/passwd"
    else:
        m.type, m.devmajor, m.devminor = tarfile.CHRTYPE, 1, 3
    archive = _tar_with(tmp_path / "evil.tgz", m, data)
    results = tmp_path / "results"
    assert main(["import", str(archive), "--results", str(results)]) == 2
    line = _err_line(capsys)
    assert str(archive) in line and m.name in line
    assert not (results / CPU).exists() and not Path("/tmp/evil-import").exists()
    assert not (tmp_path / "evil-import").exists()


def test_damaged_set_in_an_archive_names_the_field(tmp_path, capsys):
    src = tmp_path / "src" / CPU
    shutil.copytree(ROOT / "results" / CPU, src)
    data = json.loads((src / "result.json").read_text())
    data["runs"][0]["gpu_time_ms"] = "abc"
    (src / "result.json").write_text(json.dumps(data))
    archive = _tar(src, tmp_path / "bad.tgz")
    assert main(["import", str(archive), "--results", str(tmp_path / "results")]) == 2
    line = _err_line(capsys)
    assert f"{archive}:{CPU}/result.json" in line and "runs[0].timing.eager_ms" in line
    assert not (tmp_path / "results" / CPU).exists()


def test_broken_trace_in_a_folder_is_refused(tmp_path, capsys):
    src = tmp_path / "src" / H200
    shutil.copytree(ROOT / "results" / H200, src)
    bad = sorted((src / "traces").glob("*.json.gz"))[0]
    bad.write_bytes(bad.read_bytes()[:50])
    assert main(["import", str(src), "--results", str(tmp_path / "results")]) == 2
    assert str(bad) in _err_line(capsys)


def _halves(tmp_path: Path) -> tuple[Path, Path]:
    """The H200 set split in two as two machines would make it: inference runs with the
    first half of the sweep, train runs with the rest; each with only its own traces."""
    full = schema.load_set(ROOT / "results" / H200)
    out = []
    for part, mode in ((0, "inference"), (1, "train")):
        d = tmp_path / f"m{part}" / H200
        (d / "traces").mkdir(parents=True)
        half = len(full.sweep) // 2
        rs = schema.ResultSet(**{**full.__dict__, "runs": [r for r in full.runs if r.mode == mode],
                                 "sweep": full.sweep[:half] if part == 0 else full.sweep[half:]})
        for rec in [*rs.runs, *rs.sweep]:
            if rec.trace:
                shutil.copyfile(ROOT / "results" / H200 / rec.trace, d / rec.trace)
        (d / "result.json").write_text(schema.dumps(rs))
        out.append(d)
    return out[0], out[1]


def test_merge_makes_the_union_and_refuses_a_record_in_both(tmp_path, capsys):
    a, b = _halves(tmp_path)
    results = tmp_path / "results"
    importer.run(_tar(a, tmp_path / "a.tgz"), results)
    assert main(["import", str(_tar(b, tmp_path / "b.tgz")), "--results", str(results)]) == 2
    assert "--merge" in _err_line(capsys)
    assert main(["import", str(tmp_path / "b.tgz"), "--results", str(results), "--merge"]) == 0
    merged, full = schema.load_set(results / H200), schema.load_set(ROOT / "results" / H200)
    key = lambda r: (r.scenario, r.variant, r.mode)  # noqa: E731
    assert sorted(merged.runs, key=key) == sorted(full.runs, key=key)
    assert len(merged.sweep) == len(full.sweep) and {p.trace for p in merged.sweep} == {p.trace for p in full.sweep}
    assert all((results / H200 / r.trace).is_file() for r in [*merged.runs, *merged.sweep] if r.trace)
    assert merged.config.modes == ["inference", "train"]

    # Again: every record is in both now. Refused in one line naming one, unless --force.
    assert main(["import", str(tmp_path / "b.tgz"), "--results", str(results), "--merge"]) == 2
    line = _err_line(capsys)
    assert "is in" in line and "mode train" in line and "--force" in line
    assert main(["import", str(tmp_path / "b.tgz"), "--results", str(results), "--merge", "--force"]) == 0
    assert len(schema.load_set(results / H200).runs) == len(full.runs)


def test_merge_refuses_another_machine(tmp_path, capsys):
    a, b = _halves(tmp_path)
    data = json.loads((b / "result.json").read_text())
    data["environment"]["driver"] = "999.1"
    (b / "result.json").write_text(json.dumps(data))
    results = tmp_path / "results"
    importer.run(a, results)
    assert main(["import", str(b), "--results", str(results), "--merge"]) == 2
    assert "environment.driver differs" in _err_line(capsys)
    assert len(schema.load_set(results / H200).runs) == len(schema.load_set(a).runs)


def test_not_a_set(tmp_path, capsys):
    (tmp_path / "x.txt").write_text("hi")
    assert main(["import", str(tmp_path / "x.txt"), "--results", str(tmp_path / "r")]) == 2
    assert "not a result set folder" in _err_line(capsys)
    assert main(["import", str(tmp_path / "nope"), "--results", str(tmp_path / "r")]) == 2
    assert "no such folder or file" in _err_line(capsys)


def test_a_merged_record_that_measured_nothing_keeps_the_measured_one(tmp_path):
    """A short capture made without the optional cuDNN frontend says cudnn_fp8 is unavailable; merged
    with --force into the set that measured it, the measurement stays and the others are replaced."""
    full = schema.load_set(ROOT / "results" / H200)
    measured = next(p for p in full.sweep if p.variant == "cudnn_fp8" and p.status == "ok")
    other = next(p for p in full.sweep if p.scenario == measured.scenario and p.status == "ok"
                 and p.variant != "cudnn_fp8")
    short = dataclasses.replace(
        full, runs=[], sweep=[
            dataclasses.replace(measured, status="unavailable", reason="the optional package is not installed",
                                timing=schema.Timing(), trace=None),
            dataclasses.replace(other, first_call_s=123.0, trace=None, captured=None)])
    d = tmp_path / "short" / H200
    d.mkdir(parents=True)
    (d / "result.json").write_text(schema.dumps(short))
    results = tmp_path / "results"
    shutil.copytree(ROOT / "results" / H200, results / H200)
    assert main(["import", str(d), "--results", str(results), "--merge", "--force"]) == 0
    merged = schema.load_set(results / H200)
    got = {(p.variant, p.point): p for p in merged.sweep if p.scenario == measured.scenario}
    assert got[(measured.variant, measured.point)].status == "ok"
    assert got[(other.variant, other.point)].first_call_s == 123.0
    assert len(merged.sweep) == len(full.sweep)
    # The imported record says which call measured it; the kept one does not claim another call.
    assert got[(other.variant, other.point)].captured is None  # the same environment.date: the same call
    env = dataclasses.replace(short.environment, date="2026-12-04T01:02:03+00:00")
    later = dataclasses.replace(short, environment=env)
    (d / "result.json").write_text(schema.dumps(later))
    assert main(["import", str(d), "--results", str(results), "--merge", "--force"]) == 0
    merged = schema.load_set(results / H200)
    got = {(p.variant, p.point): p for p in merged.sweep if p.scenario == measured.scenario}
    assert got[(other.variant, other.point)].captured == "2026-12-04T01:02:03+00:00"
    assert got[(measured.variant, measured.point)].captured is None
