"""The pull-request preview workflows: linted, and split into an untrusted build and a trusted commenter."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"


def test_zizmor_finds_nothing():
    zizmor = shutil.which("zizmor") or str(Path(sys.executable).parent / "zizmor")
    proc = subprocess.run([zizmor, "--offline", "--no-progress", str(WORKFLOWS)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No findings to report" in proc.stdout + proc.stderr


def test_untrusted_build_is_read_only_and_trusted_comment_runs_no_pr_code():
    build = (WORKFLOWS / "preview.yml").read_text()
    comment = (WORKFLOWS / "preview-comment.yml").read_text()
    assert "on:\n  pull_request:" in build and "pull_request_target" not in build
    assert "permissions:\n  contents: read\n" in build and ": write" not in build
    assert "GITHUB_STEP_SUMMARY" in build and "upload-artifact" in build
    assert "workflow_run:" in comment and "pull-requests: write" in comment
    assert "actions/checkout" not in comment  # never runs the pull request's code
