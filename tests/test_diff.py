"""Diffs between builds: stable records, real records from two torch releases, a snippet edit."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys

from conftest import FRESH, ROOT, mkdocs_build
from fixtures import record

from fieldguide.run.record import BuildRecord, SnippetResult
from fieldguide.tools import diff

SNIPPETS = ROOT / "snippets"


def fixture_file(tmp_path, version: str):
    path = tmp_path / f"record-{version}.json"
    with gzip.open(ROOT / "records" / f"torch-{version}.json.gz", "rt") as fh:
        path.write_text(fh.read())
    return path


def test_two_cold_builds_have_identical_normalized_outputs(built_site, second_cold_build):
    """The session's site was built on a private cold cache: one more build without a cache is its twin."""
    first = BuildRecord.read(built_site / "record.json")
    second = BuildRecord.read(second_cold_build)
    assert not any(s.cached for s in first.snippets + second.snippets)
    report = diff.compare(first, second, SNIPPETS)
    assert not report.has_changes, diff.to_markdown(report)
    assert diff.to_markdown(report).startswith("**Generated outputs: no change**")
    assert diff.to_markdown(report).count("\n") == 1


def test_torch_upgrade_report_from_real_records():
    report = diff.compare(record("2.2.2"), record("2.14.1"), SNIPPETS)
    facts = {name: (a, b) for name, a, b in report.facts}
    assert facts["modules: guarded by"] == ("identity", "type and attributes")
    assert facts["inlined helper rebound"] == ("compiled code keeps the old body", "recompiles at once")
    assert facts["guards: dump format"] == ("flat list", "tree")
    assert facts["GYM·10 twin-module"] == ("recompiles", "reuses")
    md = diff.to_markdown(report)
    assert "## Generated outputs changed (torch `2.2.2` → `2.14.1`)" in md
    assert "| modules: guarded by | `identity` | `type and attributes` |" in md
    assert "#### Page `docs/guards.md`" in md and "```diff" in md  # release records name pages by their source
    assert "-___compile_config_hash() == '<hash>'" in md  # normalized, and shown as removed


def test_live_build_against_itself_reports_no_change(site_record):
    build = BuildRecord.from_json(site_record)
    assert not diff.compare(build, build, SNIPPETS).has_changes


def test_cli_exit_codes_and_outputs(tmp_path):
    old, new = fixture_file(tmp_path, "2.2.2"), fixture_file(tmp_path, "2.14.1")
    html, md = tmp_path / "report.html", tmp_path / "report.md"

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "fieldguide.tools.diff", *map(str, args), "--snippets", str(SNIPPETS)],
            capture_output=True,
            text=True,
        )

    changed = run(old, new, "--html", html, "--markdown", md)
    assert changed.returncode == 0 and "Generated outputs changed" in changed.stdout
    assert md.read_text() == changed.stdout
    page = html.read_text()
    assert page.startswith("<!doctype html>") and "identity" in page and 'class="add"' in page
    assert run(old, new, "--fail-on-change").returncode == 1
    same = run(new, new, "--fail-on-change")
    assert same.returncode == 0 and same.stdout.startswith("**Generated outputs: no change**")
    missing = run(tmp_path / "nope.json", new)
    assert missing.returncode != 0 and "does not exist" in missing.stderr
    (tmp_path / "bad.json").write_text("{}")
    bad = run(tmp_path / "bad.json", new)
    assert bad.returncode != 0 and "is not a build record" in bad.stderr


def test_a_snippet_edit_shows_as_that_snippets_diff(scratch):
    scratch.snippet("a/one.py", "print('one')\nprint('unchanged')\n")
    scratch.snippet("a/two.py", "print('two')\n")
    scratch.page("index.md", '# x\n\n```snippet path="a/one.py"\n```\n\n```snippet path="a/two.py"\n```\n')
    assert scratch.build(**FRESH).returncode == 0
    base = scratch.root / "base.json"
    shutil.copy(scratch.root / "site" / "record.json", base)
    scratch.snippet("a/one.py", "print('ONE')\nprint('unchanged')\n")
    proc = scratch.build(FIELDGUIDE_BASE_RECORD=str(base), **FRESH)
    assert proc.returncode == 0, proc.stderr
    report = diff.compare(BuildRecord.read(base), scratch.record_obj())
    assert [d.path for d in report.changed] == ["snippets/a/one.py"]
    text = report.changed[0].parts["stdout"]
    assert "-one\n" in text and "+ONE\n" in text and " unchanged\n" in text


def test_what_changed_page_renders_the_diff_against_a_base(tmp_path, built_site):
    """The session's build (replayed: nothing runs again) compared with 2.2.2's record."""
    base = fixture_file(tmp_path, "2.2.2")
    env = {
        "FIELDGUIDE_BASE_RECORD": str(base),
        "FIELDGUIDE_REPLAY": str(built_site / "record.json"),
        "FIELDGUIDE_CACHE_DIR": str(tmp_path / "cache"),
    }
    proc = mkdocs_build(ROOT, tmp_path / "site", env)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "site" / "build" / "changes" / "index.html").read_text()
    assert "Compared with a build of torch <code>2.2.2</code>" in page
    assert "modules: guarded by" in page


def test_what_changed_page_without_a_base(built_site):
    page = (built_site / "build" / "changes" / "index.html").read_text()
    assert "No base record for this build" in page


def test_bad_base_record_fails_the_build(tmp_path):
    (tmp_path / "bad.json").write_text("not json")
    # (an empty cache: the build must fail on the base record before it executes anything)
    env = {"FIELDGUIDE_BASE_RECORD": str(tmp_path / "bad.json"), "FIELDGUIDE_CACHE_DIR": str(tmp_path / "cache")}
    proc = mkdocs_build(ROOT, tmp_path / "site", env)
    assert proc.returncode != 0 and "the base record" in proc.stdout + proc.stderr
    assert "executed" not in proc.stdout + proc.stderr


# -- fast unit tests of compare(), on records built in memory ------------------------------------
def _result(path="snippets/u/a.py", stdout="same\n", logs=None, env=None) -> SnippetResult:
    from fieldguide.run.normalize import normalize_output

    logs = {"guards": "G1\n", "recompiles": "R1\n"} if logs is None else logs
    return SnippetResult(
        path=path,
        env=env or {"TORCH_LOGS": "guards,recompiles"},
        stdout=stdout,
        logs=logs,
        output=stdout,
        stderr="",
        exit_code=0,
        seconds=0.1,
        normalized=normalize_output(stdout, logs),
        pages=["u/"],
        cached=False,
    )


def _build(*results) -> BuildRecord:
    return BuildRecord("2.13.0", "3.11.7", "Linux", "now", list(results))


def test_a_change_in_one_log_channel_only_is_reported_as_that_channel():
    old = _build(_result(), _result("snippets/u/b.py"))
    new = _build(_result(logs={"guards": "G1\n", "recompiles": "R2: size changed\n"}), _result("snippets/u/b.py"))
    report = diff.compare(old, new)
    assert report.has_changes and not report.added and not report.removed
    assert [(d.path, list(d.parts)) for d in report.changed] == [("snippets/u/a.py", ["logs:recompiles"])]
    text = report.changed[0].parts["logs:recompiles"]
    assert "-R1\n" in text and "+R2: size changed\n" in text


def test_noise_alone_is_no_change_and_same_path_other_env_is_another_snippet():
    old = _build(_result(stdout="at 0x7f0000000001\n"))
    new = _build(_result(stdout="at 0x7f00000000ff\n"))
    assert not diff.compare(old, new).has_changes  # addresses normalize away
    other_env = _build(_result(env={"TORCH_LOGS": "guards"}))
    report = diff.compare(old, other_env)
    assert [s.env for s in report.added] == [{"TORCH_LOGS": "guards"}]
    assert [s.env for s in report.removed] == [{"TORCH_LOGS": "guards,recompiles"}]


def test_html_report_escapes_and_marks_lines():
    old = _build(_result(stdout="<b>old</b>\n"))
    new = _build(_result(stdout="<b>new</b>\n"))
    page = diff.to_html(diff.compare(old, new))
    assert "<b>new</b>" not in page and "&lt;b&gt;new&lt;/b&gt;" in page
    assert '<span class="add">+&lt;b&gt;new&lt;/b&gt;</span>' in page
    assert '<span class="del">-&lt;b&gt;old&lt;/b&gt;</span>' in page
    assert "style=" not in page  # styled by the stylesheet, not inline
