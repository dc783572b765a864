"""The benchmark's copy of the site is complete enough to build (replaying this build's record)."""

from __future__ import annotations

from conftest import mkdocs_build

from fieldguide.tools import bench


def test_bench_site_copy_builds(tmp_path, built_site):
    site = bench.copy_site(tmp_path / "copy")
    proc = mkdocs_build(site, tmp_path / "out", {"FIELDGUIDE_REPLAY": str(built_site / "record.json")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "out" / "record.json").exists()


def test_the_report_says_where_the_snippet_time_goes(built_site):
    """`nox -s bench` lists each folder's and each slow run's share, and the recently added snippets'."""
    import json

    record = built_site / "record.json"
    runs = json.loads(record.read_text())["snippets"]
    newest = max(runs, key=lambda r: r["seconds"])
    report = bench.snippet_shares(record, {newest["path"]: "2026-12-02"}, top=3)
    total = sum(r["seconds"] for r in runs)
    assert f"{total:.0f} s summed over {len(runs)} runs" in report
    for folder in {r["path"].split("/")[1] for r in runs}:
        assert f"| {folder} |" in report
    assert f"| {newest['path']} | {newest['seconds']:.1f} |" in report  # the slowest run
    assert f"| {newest['path']} (2026-12-02) |" in report and "| all 1 of them |" in report
    assert bench.TARGETS["cold_seconds"] == 180.0
