"""The committed fresh runs (tests/fresh.py) that the fidelity test reads: keyed by what a run's
output depends on, and read back as the run printed it."""

from __future__ import annotations

import gzip
import sys

import fresh
from conftest import ROOT

from fieldguide.run.collect import Job


def test_a_run_is_taken_from_the_reference_only_while_what_it_depends_on_is_unchanged(tmp_path):
    snippets = tmp_path / "snippets"
    snippets.mkdir()
    (snippets / "helper.py").write_text("WIDTH = 3\n")
    (snippets / "uses_helper.py").write_text("import helper\nprint(helper.WIDTH)\n")
    (snippets / "alone.py").write_text("print('alone')\n")

    def jobs(logs: str = "recompiles"):
        return [
            Job("uses_helper.py", {}, snippets / "uses_helper.py", 60, 0),
            Job("alone.py", {"TORCH_LOGS": logs}, snippets / "alone.py", 60, 0),
        ]

    reference = {fresh.run_key(job, snippets): {"path": job.display_path} for job in jobs()}
    committed, todo = fresh.split(jobs(), reference, snippets)
    assert [job.path for job, _ in committed] == ["uses_helper.py", "alone.py"] and not todo
    # a local module the snippet imports, the snippet itself, or its environment: run again
    (snippets / "helper.py").write_text("WIDTH = 4\n")
    assert [job.path for job in fresh.split(jobs(), reference, snippets)[1]] == ["uses_helper.py"]
    (snippets / "helper.py").write_text("WIDTH = 3\n")
    (snippets / "alone.py").write_text("print('changed')\n")
    assert [job.path for job in fresh.split(jobs(), reference, snippets)[1]] == ["alone.py"]
    (snippets / "alone.py").write_text("print('alone')\n")
    assert [job.path for job in fresh.split(jobs("guards"), reference, snippets)[1]] == ["alone.py"]
    assert not fresh.split(jobs(), reference, snippets)[1]


def test_a_committed_run_reads_back_as_it_was_printed(tmp_path):
    """Stored with the checkout's and the interpreter's paths as placeholders; read back with this
    machine's, so that a committed run reads as one made here."""
    run = {"exit_code": 3, "events": [("out", f"{ROOT}/snippets/x.py\n"), ("err", f"{sys.base_prefix}/lib/python3\n")]}
    path = tmp_path / "runs.json.gz"
    fresh.write_reference({"k": {"path": "snippets/x.py", "env": {}, **fresh.portable(run)}}, path)
    first = path.read_bytes()
    stored = gzip.decompress(first).decode()
    assert str(ROOT) not in stored and sys.base_prefix not in stored
    back = fresh.load_reference(path)["k"]
    assert back["exit_code"] == 3 and back["events"] == run["events"]
    fresh.write_reference({"k": {"path": "snippets/x.py", "env": {}, **fresh.portable(run)}}, path)
    assert path.read_bytes() == first, "the same runs are written byte for byte the same"


def test_the_key_covers_how_a_fresh_run_is_made_and_what_torch_brings():
    """Besides the snippet: fresh_run and child_env (how it runs), the platform, and the versions
    of torch's dependencies, theirs and numpy, which a torch import loads."""
    from importlib import metadata

    material = fresh.reader_material()
    assert "def fresh_run" in material["run"] and "def child_env" in material["env"]
    versions = dict(material["versions"])
    for name in ("torch", "numpy", "sympy", "mpmath", "jinja2", "markupsafe"):  # mpmath, markupsafe: theirs
        assert versions.get(name) == metadata.version(name), name


def test_the_default_environment_has_the_pinned_dependency_versions():
    """The fresh runs' keys hold the versions of torch's dependencies: the default environment
    installs them from tests/default-torch-deps-<default>.txt, so a fresh machine computes the same keys."""
    import re
    import tomllib

    default = tomllib.loads((ROOT / "records" / "releases.toml").read_text())["default"]
    path = ROOT / "tests" / f"default-torch-deps-{default}.txt"
    assert path.exists(), (
        f"no pins for the default release: write {path.name} (torch's dependencies as installed), then nox -s fresh -- --all"
    )
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    installed = dict(fresh.reader_material()["versions"])
    assert {k: installed.get(k) for k in pins} == pins
    assert set(installed) - {"torch"} <= set(pins), "a dependency of torch the pins do not hold"
