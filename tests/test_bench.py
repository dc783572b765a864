"""The benchmark's copy of the site is complete enough to build (replaying this build's record)."""

from __future__ import annotations

from conftest import mkdocs_build

from fieldguide.tools import bench


def test_bench_site_copy_builds(tmp_path, built_site):
    site = bench.copy_site(tmp_path / "copy")
    proc = mkdocs_build(site, tmp_path / "out", {"FIELDGUIDE_REPLAY": str(built_site / "record.json")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "out" / "record.json").exists()
