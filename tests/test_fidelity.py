"""Every snippet of the site: what the build recorded equals what a reader's fresh
`python snippets/...py`, with the same environment, prints (after normalization)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import ROOT

from fieldguide import logs
from fieldguide.executors import child_env
from fieldguide.normalize import normalize_output


def fresh_run(path: str, env: dict[str, str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="fidelity-") as tmp:
        if "TORCH_TRACE" in env:  # a reader's trace directory, here a private one (as the engine does)
            env = {**env, "TORCH_TRACE": f"{tmp}/trace"}
        proc = subprocess.run(
            [sys.executable, path],
            cwd=ROOT,
            env=child_env(env),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    lines = logs.parse([("out", proc.stdout), ("err", proc.stderr)])
    return {
        "exit_code": proc.returncode,
        "normalized": normalize_output(logs.stdout_text(lines), logs.channels(lines), ROOT),
    }


@pytest.fixture(scope="session")
def fresh_runs(site_record) -> dict:
    snippets = site_record["snippets"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda s: fresh_run(s["path"], s["env"]), snippets))
    return {(s["path"], tuple(sorted(s["env"].items()))): r for s, r in zip(snippets, runs, strict=True)}


def test_every_snippet_matches_a_fresh_python_run(site_record, fresh_runs):
    assert site_record["snippets"], "the site executed no snippet"
    mismatches = []
    for snippet in site_record["snippets"]:
        fresh = fresh_runs[(snippet["path"], tuple(sorted(snippet["env"].items())))]
        if fresh["exit_code"] != snippet["exit_code"]:
            mismatches.append(f"{snippet['path']}: exit {fresh['exit_code']} fresh vs {snippet['exit_code']} recorded")
        for part in ("stdout", "logs"):
            if fresh["normalized"][part] != snippet["normalized"][part]:
                mismatches.append(
                    f"{snippet['path']} {snippet['env']}: {part} differs\n--- recorded\n{snippet['normalized'][part]}\n"
                    f"--- fresh python\n{fresh['normalized'][part]}"
                )
    assert not mismatches, "\n\n".join(mismatches)


def test_the_record_was_made_by_the_warm_executor(site_record):
    """Fidelity above is checked for the default executor, which is the warm one: every snippet it
    can fork ran warm; one whose environment torch reads at import (TORCH_TRACE) ran fresh."""
    from fieldguide.executors.warm import forkable

    ran = {(s["path"], s["executor"], forkable(s["env"])) for s in site_record["snippets"]}
    assert {e for _, e, fork in ran if fork} == {"warm"}
    assert {e for _, e, fork in ran if not fork} <= {"fresh"}
