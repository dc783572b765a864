"""Shared fixtures. Tests run inside the nox environment that has torch, so sys.executable is it.

The real site is built once per session, on a private cold cache (so what the tests judge was
executed by the code under test, never read from a cache some older code filled), and every
test that needs a build reads that one. `site_cache` is that cache, warm afterwards: a test that
builds the site again copies it so that only what it changed runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
QUIET = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


def mkdocs_build(
    config_dir: Path, site_dir: Path, extra_env: dict | None = None, args=()
) -> subprocess.CompletedProcess:
    env = {**os.environ, **QUIET, **(extra_env or {})}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir), *args],
        cwd=config_dir,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def pytest_configure(config) -> None:
    """Tests press Ctrl-C on the builds they start, as a terminal does. A shell's background job
    (`cmd &` without job control) starts with SIGINT ignored, which every child would inherit and
    Python then honours (no KeyboardInterrupt): the session restores the terminal's default."""
    import signal

    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def site_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("site-cache")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, site_cache) -> Path:
    site = tmp_path_factory.mktemp("site")
    proc = mkdocs_build(ROOT, site, {"FIELDGUIDE_CACHE_DIR": str(site_cache), "FIELDGUIDE_REFRESH": "0"})
    assert proc.returncode == 0, f"mkdocs build --strict of the site failed:\n{proc.stdout}\n{proc.stderr}"
    return site


def copy_of_site_cache(site_cache: Path, dest: Path) -> Path:
    """A copy of the session site's (warm) cache, for a test that builds a changed copy of the site."""
    import shutil

    shutil.copytree(site_cache, dest, ignore=shutil.ignore_patterns("generated"))
    return dest


@pytest.fixture(scope="session")
def site_record(built_site) -> dict:
    return json.loads((built_site / "record.json").read_text())


MINI_MKDOCS = """
site_name: scratch
docs_dir: docs
plugins:
  - fieldguide:
      cache_dir: cache
markdown_extensions:
  - pymdownx.superfences
"""


@pytest.fixture
def scratch(tmp_path) -> Scratch:
    return Scratch(tmp_path)


class Scratch:
    """A throwaway docs project: pages, snippets and a cache of its own."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "docs").mkdir()
        (root / "snippets").mkdir()
        (root / "mkdocs.yml").write_text(MINI_MKDOCS)

    def snippet(self, name: str, code: str) -> Path:
        path = self.root / "snippets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code).lstrip())
        return path

    def page(self, name: str, text: str) -> Path:
        path = self.root / "docs" / name
        path.write_text(textwrap.dedent(text).lstrip())
        return path

    def build(self, *args: str, **env) -> subprocess.CompletedProcess:
        return mkdocs_build(self.root, self.root / "site", env, args)

    def record(self) -> dict:
        return json.loads((self.root / "site" / "record.json").read_text())

    def record_obj(self):
        from fieldguide.record import BuildRecord

        return BuildRecord.read(self.root / "site" / "record.json")


def output_block(page_html: str, command: str) -> list[str] | None:
    """The lines of the output block shown under `$ command` on a page (None if there is none).

    Assertions about what a page shows read this block, not the whole page: the source listing
    above it contains the same words as the snippet's print calls."""
    import html as _html
    import re

    m = re.search(
        r'<span class="filename">' + re.escape("$ " + _html.escape(command, quote=False)) + r"</span><pre>(.*?)</pre>",
        page_html,
        re.S,
    )
    if m is None:
        return None
    text = _html.unescape(re.sub(r"<[^>]+>", "", m.group(1)))
    return text.rstrip("\n").split("\n")
