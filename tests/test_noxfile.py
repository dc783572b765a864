"""`nox -s docs -- --torch X`: any release the registry has (listed or not), a local wheel, or the torch
already installed in an environment; a malformed, unsupported or unavailable one is refused before
anything is built."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
from conftest import ROOT


def nox_command() -> list[str] | None:
    """nox as the running session was started: `nox -s tests` names its interpreter in
    FIELDGUIDE_NOX_PYTHON (so `python3 -m nox -s tests` works with no nox on PATH, as
    `pip install --user` often leaves it); outside nox, the nox on PATH; else None."""
    python = os.environ.get("FIELDGUIDE_NOX_PYTHON")
    if python and Path(python).exists():
        return [python, "-m", "nox"]
    found = shutil.which("nox")
    return [found] if found else None


NOX = nox_command()
needs_nox = pytest.mark.skipif(
    NOX is None,
    reason="nox is not on PATH: run the suite with `python3 -m nox -s tests` (or put nox on PATH)",
)


def nox_docs(*args: str, site_dir: str = "/nonexistent/never-built", timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*NOX, "-f", str(ROOT / "noxfile.py"), "-s", "docs", "--", *args, "--site-dir", site_dir],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@needs_nox
@pytest.mark.parametrize(
    ("version", "message"),
    [
        ("banana", "is not a release number like 2.13.0, a torch wheel (PATH.whl) or `installed`"),
        ("2.13", "is not a release number like 2.13.0"),
        ("1.13.1", "older than the oldest release this guide supports (2.2)"),
        ("2.99.0", "torch 2.99.0 is not on the package registry"),
    ],
)
def test_bad_torch_versions_are_refused_before_building(version, message):
    """2.99.0 is well formed and unlisted: it is refused because the registry has no such release
    (an unlisted release the registry has is built: test_releases' column test, the 2.12.0 build)."""
    proc = nox_docs("--torch", version)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert message in out
    assert "mkdocs" not in out and not (ROOT / ".nox" / f"torch-{version}").exists()


@needs_nox
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--torch", "/nonexistent/torch-2.13.0-cp311-cp311-linux_x86_64.whl"), "no such file"),
        (("--torch", str(ROOT / "pyproject.toml") + ".whl"), "no such file"),
        (("--python", "/nonexistent/bin/python"), "--python /nonexistent/bin/python: no such interpreter"),
        (("--torch", "2.12.0", "--python", sys.executable), "--python uses the torch installed there"),
    ],
)
def test_a_bad_wheel_or_interpreter_is_refused_before_building(args, message):
    proc = nox_docs(*args)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and message in out, out[-2000:]
    assert "mkdocs" not in out


@needs_nox
def test_a_file_that_is_not_a_torch_wheel_is_refused(tmp_path):
    wheel = tmp_path / "numpy-2.0.0-cp311-cp311-linux_x86_64.whl"
    wheel.write_bytes(b"not a wheel")
    proc = nox_docs("--torch", str(wheel))
    assert proc.returncode != 0 and "not a torch wheel" in proc.stdout + proc.stderr


@needs_nox
def test_an_interpreter_without_torch_is_named(tmp_path):
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    proc = nox_docs("--torch", "installed", "--python", str(bare / "bin" / "python"))
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and f"no torch is installed in {bare / 'bin' / 'python'}" in out, out[-2000:]


SCRATCH_MKDOCS = """
site_name: scratch
docs_dir: docs
theme:
  name: material
  custom_dir: {overrides}
plugins:
  - fieldguide:
      cache_dir: cache
markdown_extensions:
  - pymdownx.superfences
"""


def _installed() -> set[tuple[str, str]]:
    return {(d.metadata["Name"], d.version) for d in metadata.distributions()}


@needs_nox
def test_a_build_on_the_installed_torch_names_that_exact_version_and_leaves_its_environment_alone(tmp_path):
    """`--torch installed --python PATH`: the torch of an existing environment (here the one these
    tests run in), through a venv of its own under .nox/, so that environment is not changed; every
    page names the torch as torch.__version__ prints it, with its build."""
    import torch

    src = tmp_path / "src"
    (src / "docs").mkdir(parents=True)
    (src / "snippets").mkdir()
    (src / "mkdocs.yml").write_text(SCRATCH_MKDOCS.format(overrides=ROOT / "overrides"))
    (src / "snippets" / "version.py").write_text(
        textwrap.dedent(
            """
            import torch

            print(torch.__version__)
            print(torch.version.git_version)
            print(torch.version.cuda)
            """
        ).lstrip()
    )
    (src / "docs" / "index.md").write_text('# Which torch\n\n```snippet path="version.py"\n```\n')
    before = _installed()
    out = tmp_path / "site"
    proc = nox_docs(
        "--torch",
        "installed",
        "--python",
        sys.executable,
        "-f",
        str(src / "mkdocs.yml"),
        site_dir=str(out),
        timeout=900,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    assert f"torch {metadata.version('torch')} as installed in {sys.executable}" in log
    assert _installed() == before  # the environment whose torch was used is as it was
    page = (out / "index.html").read_text()
    made = f"CUDA {torch.version.cuda}" if torch.version.cuda else "CPU"
    assert f"torch {torch.__version__}</strong>" in page and f"({made} build, git <code" in page
    record = json.loads((out / "record.json").read_text())
    assert record["torch"] == metadata.version("torch") and record["torch_build"]["version"] == torch.__version__
    (run,) = record["snippets"]
    assert run["stdout"].split("\n")[:3] == [torch.__version__, torch.version.git_version, str(torch.version.cuda)]


@pytest.mark.skipif(not os.environ.get("NOX_CURRENT_SESSION"), reason="the suite was not started by nox")
def test_a_suite_started_by_nox_runs_nox_as_it_was_started():
    """`python3 -m nox -s tests` with no nox on PATH: the tests above run nox with the session's
    interpreter, not by name (four failures before). Broken on purpose once: without
    FIELDGUIDE_NOX_PYTHON in the tests session's environment, this fails under nox (and the tests
    above fail, or skip where nox is not on PATH)."""
    assert NOX is not None and NOX[1:] == ["-m", "nox"], NOX
    proc = subprocess.run([*NOX, "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
