"""The record's schema: versioned, validated on load with a clear error, old records still read."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from conftest import ROOT
from fixtures import FIXTURES

from fieldguide.run.record import REQUIRED_V2, SCHEMA_VERSION, BuildRecord, RecordError, SnippetResult


def one_result(**over) -> SnippetResult:
    values = dict(
        path="snippets/a/b.py",
        env={"TORCH_LOGS": "guards"},
        stdout="x\n",
        logs={"guards": "g\n"},
        output="x\n",
        stderr="",
        exit_code=0,
        seconds=0.5,
        normalized={"stdout": "x\n", "logs": {"guards": "g\n"}},
        pages=["a/"],
        cached=True,
        executor="warm",
        digest="abc",
        measured_at="2026-01-01T00:00:00+00:00",
    )
    values.update(over)
    return SnippetResult(**values)


def written(tmp_path: Path, build: BuildRecord, edit=None) -> Path:
    data = build.to_json()
    if edit:
        edit(data)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data))
    return path


def test_a_written_record_carries_the_schema_and_reads_back_equal(tmp_path):
    build = BuildRecord("2.13.0", "3.11.7", "Linux x86_64", "2026-01-01T00:00:00+00:00", [one_result()])
    path = tmp_path / "record.json.gz"
    build.write(path)
    data = json.loads(gzip.decompress(path.read_bytes()))
    assert data["schema"] == SCHEMA_VERSION == 2
    assert set(REQUIRED_V2) == set(data["snippets"][0]) == set(SnippetResult.__dataclass_fields__)  # all required
    assert BuildRecord.read(path) == build


@pytest.mark.parametrize("field", ["cached", "exit_code", "normalized", "digest", "measured_at", "stderr"])
def test_a_missing_field_is_refused_naming_file_snippet_and_field(tmp_path, field):
    build = BuildRecord("2.13.0", "3.11.7", "Linux", "now", [one_result()])
    path = written(tmp_path, build, lambda d: d["snippets"][0].pop(field))
    with pytest.raises(RecordError) as info:
        BuildRecord.read(path)
    message = str(info.value)
    assert str(path) in message and "snippets/a/b.py" in message and f"requires {field}" in message


def test_a_newer_schema_is_refused(tmp_path):
    build = BuildRecord("2.13.0", "3.11.7", "Linux", "now", [one_result()])
    path = written(tmp_path, build, lambda d: d.update(schema=SCHEMA_VERSION + 1))
    with pytest.raises(RecordError, match=r"record schema 3 is not one this code reads \(1 to 2\)"):
        BuildRecord.read(path)


def test_schema_1_records_without_the_extras_still_read(tmp_path):
    """Records committed before the schema field existed: version 1, only the contract required."""
    for path in sorted((FIXTURES / "records").glob("*.json.gz")) + sorted((ROOT / "records").glob("*.json.gz")):
        data = json.loads(gzip.decompress(path.read_bytes()))
        assert data.get("schema", 1) in (1, SCHEMA_VERSION), path  # version 1 when written before the field
        build = BuildRecord.read(path)
        assert build.snippets and all(s.path.startswith("snippets/") for s in build.snippets)
    v1 = {
        "torch": "2.2.2",
        "python": "3.11",
        "platform": "Linux",
        "built_at": "then",
        "snippets": [
            {
                k: v
                for k, v in one_result().__dict__.items()
                if k not in ("output", "stderr", "executor", "digest", "measured_at")
            }
        ],
    }
    build = BuildRecord.from_json(v1)
    assert build.snippets[0].output == "x\n" and build.snippets[0].digest == ""  # derived, as version 1 allows
    v1["snippets"][0].pop("cached")
    with pytest.raises(RecordError, match="requires cached"):  # the contract's fields are required in version 1 too
        BuildRecord.from_json(v1)


def test_the_torch_build_is_kept_as_torch_version_prints_it(tmp_path):
    """The build's torch is named by torch.version's own attributes (read from torch/version.py
    without importing torch), and a record keeps them; older records, without them, still read."""
    import torch

    from fieldguide.run.execute import current_toolchain, torch_build

    found = torch_build()
    assert found["version"] == torch.__version__
    assert found["git_version"] == torch.version.git_version
    assert found["cuda"] == str(torch.version.cuda) and found["hip"] == str(torch.version.hip)
    assert dict(current_toolchain().build) == found
    build = BuildRecord("2.13.0", "3.11.7", "Linux", "now", [one_result()], found)
    build.write(tmp_path / "r.json")
    assert BuildRecord.read(tmp_path / "r.json").torch_build == found
    data = json.loads((tmp_path / "r.json").read_text())
    data.pop("torch_build")
    (tmp_path / "old.json").write_text(json.dumps(data))
    assert BuildRecord.read(tmp_path / "old.json").torch_build == {}
