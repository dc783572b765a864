"""The execution cache's size cap and its command (nox -s cache -- info|prune|clear)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from fieldguide.run.cache import Cache


def fill(cache: Cache, n: int) -> list[str]:
    keys = [f"{i:02d}" * 32 for i in range(n)]
    for age, key in enumerate(keys):  # keys[0] used most recently (an hour ago), each next one an hour earlier
        cache.put(key, {"blob": "x" * 1000})
        path = cache._file(key)
        os.utime(path, (time.time() - 3600 * (age + 1),) * 2)
    return keys


def test_prune_keeps_the_most_recently_used_within_the_cap(tmp_path):
    cache = Cache(tmp_path)
    keys = fill(cache, 6)
    assert cache.get(keys[5]) is not None  # a hit marks the oldest entry as just used
    size = cache.info()["bytes"] // 6
    removed = cache.prune(max_bytes=size * 3)
    assert removed == 3
    assert [cache.get(k) is not None for k in keys] == [True, True, False, False, False, True]


def test_prune_by_age_and_clear(tmp_path):
    cache = Cache(tmp_path)
    keys = fill(cache, 4)  # used 1, 2, 3 and 4 hours ago
    assert cache.prune(older_than_days=2.5 / 24) == 2
    assert [cache.get(k) is not None for k in keys] == [True, True, False, False]
    assert cache.clear() == 2 and cache.info()["entries"] == 0


def test_the_cache_command(tmp_path):
    cache = Cache(tmp_path / "c")
    fill(cache, 3)

    def run(*a):
        return subprocess.run(
            [sys.executable, "-m", "fieldguide.run.cache", "--dir", str(tmp_path / "c"), *a],
            capture_output=True,
            text=True,
        )

    info = run("info")
    assert info.returncode == 0 and "3 entries" in info.stdout
    assert "removed 2 entries" in run("prune", "--older-than", str(1.5 / 24)).stdout
    assert "removed 1 entries" in run("clear").stdout
    assert run("prune").returncode != 0  # says what it needs
