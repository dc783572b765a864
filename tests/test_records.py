"""The release matrix: one committed record per listed release, measured on that release, comparable."""

from __future__ import annotations

import shutil
import tomllib

import pytest
from conftest import ROOT

from fieldguide.guide.jobs import site_jobs, stale_entries
from fieldguide.run.record import BuildRecord
from fieldguide.tools.diff import compare

RELEASES = tomllib.loads((ROOT / "records" / "releases.toml").read_text())
LISTED = RELEASES["releases"]
REMEASURED = ROOT / "tests" / "fixtures" / "records" / "torch-2.2.2-remeasured.json.gz"


def record(release: str) -> BuildRecord:
    return BuildRecord.read(ROOT / "records" / f"torch-{release}.json.gz")


def test_releases_list_is_sorted_unique_and_holds_the_default():
    key = [tuple(int(p) for p in r.split(".")) for r in LISTED]
    assert key == sorted(set(key))
    assert RELEASES["default"] in LISTED


@pytest.mark.parametrize("release", LISTED)
def test_every_listed_release_has_a_record_measured_on_it(release):
    build = record(release)
    assert build.torch.split("+")[0] == release
    assert build.snippets, f"the record of torch {release} holds no results"
    for s in build.snippets:
        assert s.digest and s.measured_at, f"{release}: {s.path} has no source digest or measurement time"
        assert s.exit_code == 0, f"{release}: {s.path} exited with {s.exit_code}"
    # written root-relative: no checkout's absolute path in what a page shows
    assert not any("/work/" in s.output or "/home/runner/" in s.output for s in build.snippets)


def test_two_measurements_of_an_old_release_diff_to_nothing():
    """torch 2.2 prints values that vary by process (config hashes, explain() order): normalized away."""
    first, second = record("2.2.2"), BuildRecord.read(REMEASURED)
    assert first.torch == second.torch == "2.2.2"
    assert {s.measured_at for s in first.snippets}.isdisjoint({s.measured_at for s in second.snippets})
    report = compare(first, second, ROOT / "snippets")
    assert not report.has_changes, [d.path for d in report.changed] + [f for f in report.facts]


def test_a_changed_snippet_makes_each_record_stale_for_it(tmp_path):
    tree = tmp_path / "tree"
    for part in ("docs", "snippets"):
        shutil.copytree(ROOT / part, tree / part)
    (tree / "mkdocs.yml").write_text("site_name: copy\n")
    build = record(LISTED[0])
    assert stale_entries(build, site_jobs(tree), tree / "snippets") == stale_entries(
        build, site_jobs(ROOT), ROOT / "snippets"
    )
    target = tree / "snippets" / "guards" / "anatomy.py"
    target.write_text(target.read_text() + "\nprint('changed')\n")
    gaps = stale_entries(build, site_jobs(tree), tree / "snippets")
    assert any(s.startswith("snippets/guards/anatomy.py") for s in gaps["stale"])
    (tree / "snippets" / "guards" / "new_one.py").write_text("print(1)\n")
    page = tree / "docs" / "guards.md"
    page.write_text(page.read_text() + '\n```snippet path="guards/new_one.py"\n```\n')
    assert "snippets/guards/new_one.py" in stale_entries(build, site_jobs(tree), tree / "snippets")["missing"]


@pytest.mark.parametrize("release", LISTED)
def test_every_drill_has_a_measured_answer_on_every_release(release):
    from fieldguide.guide import gym

    build = record(release)
    for drill in gym.load_drills(ROOT / "snippets"):
        key = gym.answer_key(drill, build)  # raises DrillError when a scenario has no verdict
        assert set(key) == {s.id for s in drill.scenarios}
        assert {a.verdict for a in key.values()} <= {"reuses", "recompiles", "compiles new code"}


def test_a_release_measurement_records_a_failure_and_check_says_when_it_is_current(
    scratch, monkeypatch, tmp_path, capsys
):
    """README, *The release matrix*: a snippet that fails on a release is recorded as failed and
    reported (the others' measurements are kept); a record whose every entry is current passes
    `--check`, which is how `nox -s matrix` skips it and resumes an interrupted run; a snippet
    changed since makes it stale again.

    Checked against breakages: stale_entries made to ignore the digests -> the edited snippet is
    not named and `--check` passes; measure() made to drop failed results -> the record has no
    entry for the failing snippet."""
    from fieldguide.tools import measure

    scratch.snippet("m/ok.py", "print('ok')\n")
    scratch.snippet("m/bad.py", "raise SystemExit(3)\n")
    scratch.page("index.md", '# m\n\n```snippet path="m/ok.py"\n```\n\n```snippet path="m/bad.py"\n```\n')
    monkeypatch.chdir(scratch.root)
    monkeypatch.setenv("FIELDGUIDE_EXECUTOR", "fresh")  # print() snippets: no torch needed
    out = tmp_path / "torch-x.json.gz"

    assert measure.main([str(out)]) == 1
    assert "snippets/m/bad.py" in capsys.readouterr().err
    entries = {s.path: s for s in BuildRecord.read(out).snippets}
    assert (entries["snippets/m/ok.py"].exit_code, entries["snippets/m/ok.py"].stdout) == (0, "ok\n")
    assert entries["snippets/m/bad.py"].exit_code == 3
    assert measure.main([str(out), "--check"]) == 1
    assert capsys.readouterr().out.splitlines() == [f"{out}: failed: snippets/m/bad.py"]

    scratch.snippet("m/bad.py", "print('fixed')\n")
    assert measure.main([str(out)]) == 0
    assert measure.main([str(out), "--check"]) == 0  # current: nox -s matrix skips this release
    capsys.readouterr()
    scratch.snippet("m/ok.py", "print('ok, edited')\n")
    assert measure.main([str(out), "--check"]) == 1
    assert capsys.readouterr().out.splitlines() == [f"{out}: stale: snippets/m/ok.py"]
