"""`nox -s docs -- --torch X`: a malformed, unsupported or unlisted release is refused before anything is built."""

from __future__ import annotations

import os
import shutil
import subprocess
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


def nox_docs(version: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            *NOX,
            "-f",
            str(ROOT / "noxfile.py"),
            "-s",
            "docs",
            "--",
            "--torch",
            version,
            "--site-dir",
            "/nonexistent/never-built",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


@needs_nox
@pytest.mark.parametrize(
    ("version", "message"),
    [
        ("banana", "is not a release number like 2.13.0"),
        ("2.13", "is not a release number like 2.13.0"),
        ("1.13.1", "older than the oldest release this guide supports (2.2)"),
        ("2.99.0", "is not one of the releases this guide measures"),
    ],
)
def test_bad_torch_versions_are_refused_before_building(version, message):
    proc = nox_docs(version)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert message in out
    assert "mkdocs" not in out and not (ROOT / ".nox" / f"torch-{version}").exists()


@pytest.mark.skipif(not os.environ.get("NOX_CURRENT_SESSION"), reason="the suite was not started by nox")
def test_a_suite_started_by_nox_runs_nox_as_it_was_started():
    """`python3 -m nox -s tests` with no nox on PATH: the tests above run nox with the session's
    interpreter, not by name (four failures before). Broken on purpose once: without
    FIELDGUIDE_NOX_PYTHON in the tests session's environment, this fails under nox (and the tests
    above fail, or skip where nox is not on PATH)."""
    assert NOX is not None and NOX[1:] == ["-m", "nox"], NOX
    proc = subprocess.run([*NOX, "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
