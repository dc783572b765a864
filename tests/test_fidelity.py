"""Every snippet of the site: what the build recorded equals what a reader's fresh
`python snippets/...py`, with the same environment, prints (after normalization).

The fresh runs come from tests/fresh.py: the committed run of a snippet while what its output
depends on is unchanged (source, local imports, environment, torch, Python), else one run now."""

from __future__ import annotations

from conftest import ROOT
from fresh import REFERENCE

from fieldguide.run import logs
from fieldguide.run.normalize import normalize_output


def normalized(run: dict) -> dict:
    """A fresh run's output as the build normalizes its own (read here by the log parser, not by the
    engine's record stage, so the two sides do not share the code under test beyond the rules)."""
    lines = logs.parse(run["events"])
    return normalize_output(logs.stdout_text(lines), logs.channels(lines), ROOT)


PROVENANCE = {
    "committed": f"the committed run in {REFERENCE.relative_to(ROOT)}; `nox -s fresh -- --all` measures it again",
    "now": "run by this session",
}


def test_every_snippet_matches_a_fresh_python_run(site_record, fresh_runs):
    assert site_record["snippets"], "the site executed no snippet"
    built = {(s["path"], tuple(sorted(s["env"].items()))) for s in site_record["snippets"]}
    assert set(fresh_runs) == built, "the fresh runs (the pages' jobs on disk) are not the snippets the build ran"
    mismatches = []
    for snippet in site_record["snippets"]:
        run = fresh_runs[(snippet["path"], tuple(sorted(snippet["env"].items())))]
        fresh = {"exit_code": run["exit_code"], "normalized": normalized(run)}
        if fresh["exit_code"] != snippet["exit_code"]:
            mismatches.append(f"{snippet['path']}: exit {fresh['exit_code']} fresh vs {snippet['exit_code']} recorded")
        for part in ("stdout", "logs"):
            if fresh["normalized"][part] != snippet["normalized"][part]:
                mismatches.append(
                    f"{snippet['path']} {snippet['env']}: {part} differs\n--- recorded\n{snippet['normalized'][part]}\n"
                    f"--- fresh python ({PROVENANCE[run['measured']]})\n{fresh['normalized'][part]}"
                )
    assert not mismatches, "\n\n".join(mismatches)


def test_the_record_was_made_by_the_warm_executor(site_record):
    """Fidelity above is checked for the default executor, which is the warm one: every snippet it
    can fork ran warm; one whose environment torch reads at import (TORCH_TRACE) ran fresh."""
    from fieldguide.run.executors.warm import forkable

    ran = {(s["path"], s["executor"], forkable(s["env"])) for s in site_record["snippets"]}
    assert {e for _, e, fork in ran if fork} == {"warm"}
    assert {e for _, e, fork in ran if not fork} <= {"fresh"}
