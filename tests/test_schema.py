"""Reading, refusing and writing result sets."""

from __future__ import annotations

import json
import shutil

import pytest

from gen.model import layout, migrations, schema


def copy_set(h200_dir, tmp_path):
    dst = tmp_path / h200_dir.name
    shutil.copytree(h200_dir, dst)
    return dst


def test_committed_set_round_trips(h200_dir):
    rs = schema.load_set(h200_dir)
    assert rs.schema_version == schema.SCHEMA_VERSION
    assert rs.environment.gpu_name == "NVIDIA H200" and rs.environment.sm_count == 132
    again = schema.from_dict(json.loads(schema.dumps(rs)))
    assert again == rs


def test_every_default_variant_was_measured(h200_dir):
    rs = schema.load_set(h200_dir)
    from gen.model.variants import DEFAULT_VARIANTS, VARIANTS

    for mode in ("inference", "train"):
        for v in DEFAULT_VARIANTS:
            run = rs.run(v, mode)
            if "optional" in VARIANTS[v].keywords and (run is None or run.status != "ok"):
                # an optional extra's variant (FlashAttention-4): newer than the set, or its extra not installed
                assert run is None or "pip install .[" in run.reason, (v, mode)
                continue
            assert run is not None and run.status == "ok", (v, mode)
            assert len(run.timing.eager_ms) >= 100 and run.rel_errors


def test_newer_schema_is_refused(h200_dir, tmp_path):
    d = copy_set(h200_dir, tmp_path)
    data = json.loads((d / "result.json").read_text())
    data["schema_version"] = schema.SCHEMA_VERSION + 1
    (d / "result.json").write_text(json.dumps(data))
    with pytest.raises(schema.SchemaError, match=r"result.json: schema_version \d+ is newer"):
        schema.load_set(d)


def test_truncated_result_file_is_a_clear_error(h200_dir, tmp_path):
    d = copy_set(h200_dir, tmp_path)
    text = (d / "result.json").read_text()
    (d / "result.json").write_text(text[: len(text) // 3])
    with pytest.raises(schema.SchemaError, match="result.json: not valid JSON"):
        schema.load_set(d)


def test_missing_field_and_missing_trace(h200_dir, tmp_path):
    d = copy_set(h200_dir, tmp_path)
    data = json.loads((d / "result.json").read_text())
    del data["environment"]["gpu_name"]
    (d / "result.json").write_text(json.dumps(data))
    with pytest.raises(schema.SchemaError, match="Environment lacks gpu_name"):
        schema.load_set(d)
    d2 = tmp_path / "second"
    shutil.copytree(h200_dir, d2)
    (d2 / "traces" / "article__inference__naive.json.gz").unlink()
    with pytest.raises(schema.SchemaError, match="trace traces/article__inference__naive.json.gz of naive is missing"):
        schema.load_set(d2)


def test_atomic_write_leaves_old_content_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "f.json"
    layout.atomic_write_text(target, "old")

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(layout.os, "replace", boom)
    with pytest.raises(OSError):
        layout.atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]


def test_publish_refuses_and_force_replaces(tmp_path):
    final = tmp_path / "set"
    final.mkdir()
    (final / "result.json").write_text("old")
    staging = tmp_path / ".staging"
    staging.mkdir()
    (staging / "result.json").write_text("new")
    with pytest.raises(schema.UserError, match="set: result set exists; pass --force"):
        layout.publish_set(staging, final, force=False)
    assert (final / "result.json").read_text() == "old"
    layout.publish_set(staging, final, force=True)
    assert (final / "result.json").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != layout.LOCK_FILE) == ["set"]


def test_update_to_3_marks_telemetry_and_graph_check_not_recorded(h200_v1_dir):
    """A set captured before schema 3 loads with its telemetry and graph check
    marked as not recorded, never guessed; reference sets publish no samples and
    are left alone."""
    import json

    data = json.loads((h200_v1_dir / schema.RESULT_FILE).read_text(encoding="utf-8"))
    rs = schema.from_dict(data, "v1")
    timed = [r for r in rs.runs if r.timing.eager_ms]
    assert timed and all(r.timing.telemetry_reason == migrations.TELEMETRY_NOT_RECORDED for r in timed)
    assert all(not r.timing.telemetry for r in timed)
    two = migrations.update_to_2(data)
    for r in two["runs"]:
        r["timing"]["gpu_only_method"] = "cuda_graph"
    three = migrations.update_to_3(two)
    timed3 = [r for r in three["runs"] if r["timing"]["eager_ms"]]
    assert all(r["timing"]["graph_check"]["fidelity"] == "not_checked" for r in timed3)
    ref = migrations.update_to_3({**two, "kind": "reference"})
    assert all("telemetry_reason" not in r["timing"] for r in ref["runs"])


def test_a_hint_is_read_once_and_checked_the_same_each_time():
    """_check keeps what each type hint asks (a list of numbers, a union, a dataclass...) after its first use:
    the second check of the same hint refuses the same bad value with the same line."""
    from gen.model.checks import _FORMS, SchemaError, _check

    tp = list[float]
    assert _check([1, 2.5], tp, "f", "timing.eager_ms") == [1.0, 2.5]
    assert tp in _FORMS
    for _ in range(2):
        with pytest.raises(SchemaError, match=r"^f: field timing\.eager_ms\[1\] is \"x\", expected a number$"):
            _check([1, "x"], tp, "f", "timing.eager_ms")
        with pytest.raises(SchemaError, match=r"^f: field mode is 'nope', expected one of inference, train$"):
            _check("nope", str, "f", "mode")
    assert _check(None, float | None, "f", "tflops") is None


def _nested(rng, depth: int):
    """Random JSON data nesting exactly `depth` deep (lists, objects, numbers, strings with brackets)."""
    if depth == 0:
        return rng.choice([1, 2.5, "[{", "a\\\"]", None, True])
    inner = [_nested(rng, depth - 1)]
    inner += [_nested(rng, rng.randint(0, min(2, depth - 1))) for _ in range(rng.randint(0, 2))]
    rng.shuffle(inner)
    return inner if rng.random() < 0.5 else {f"k{i}": v for i, v in enumerate(inner)}


def test_the_decoded_nesting_is_the_nesting_counted_in_the_text():
    """parse_json counts the nesting in the text (_json_depth) only where the decoded data is too
    deep: both measures agree (the decoded walk decides which sets are refused)."""
    import random

    rng = random.Random(21)
    for _ in range(400):
        depth = rng.randint(0, 40)
        data = _nested(rng, depth)
        text = json.dumps(data)
        assert schema._json_depth(text) == depth
        for limit in {max(0, depth - 1), depth, depth + 1}:
            assert schema._deeper_than(json.loads(text), limit) == (depth > limit)


@pytest.mark.parametrize("depth", [33, 900, 5000])
def test_json_too_deep_is_refused_with_its_depth(depth):
    text = "[" * depth + "1" + "]" * depth
    with pytest.raises(schema.SchemaError, match=f"x: JSON nested {depth} deep; a result set nests at most 32"):
        schema.parse_json(text, "x")
    # the nesting is said before a fault of the text further on, as it was
    with pytest.raises(schema.SchemaError, match=f"JSON nested {depth} deep"):
        schema.parse_json(text[:-1] + ",]", "x")
    assert schema.parse_json("[" * 32 + "1" + "]" * 32, "x") is not None
