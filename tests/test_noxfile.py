"""`nox -s docs -- --torch X`: a malformed, unsupported or unlisted release is refused before anything is built."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import ROOT


def nox_docs(version: str) -> subprocess.CompletedProcess:
    nox = shutil.which("nox")
    assert nox, "nox is not on PATH (install it with: python3 -m pip install nox)"
    return subprocess.run(
        [
            nox,
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
