"""Shared fixtures. Tests run inside the nox environment that has torch, so sys.executable is it.

The real site is built once per session, on a private cold cache (so what the tests judge was
executed by the code under test, never read from a cache some older code filled), and every
test that needs a build reads that one. `site_cache` is that cache, warm afterwards: a test that
builds the site again copies it so that only what it changed runs.

Work that only a few tests read (`fresh_runs`: every snippet run once more the way a reader runs
it, `python snippets/...py`; `second_cold_build`; `axe_sweeps`) runs in the background from the
moment that build is done (`Background`), and the tests that read it go last.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES_LOGS = ROOT / "tests" / "fixtures" / "logs"
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
    try:
        proc = mkdocs_build(ROOT, site, {"FIELDGUIDE_CACHE_DIR": str(site_cache), "FIELDGUIDE_REFRESH": "0"})
    finally:
        _background.site = site
        _background.go.set()
    assert proc.returncode == 0, f"mkdocs build --strict of the site failed:\n{proc.stdout}\n{proc.stderr}"
    return site


def fresh_run(path: str, env: dict[str, str]) -> dict:
    """One snippet run as a reader runs it: a new interpreter, from the repository's root."""
    from fieldguide.executors import child_env

    with tempfile.TemporaryDirectory(prefix="fidelity-") as tmp:
        if "TORCH_TRACE" in env:  # a reader's trace directory, here a private one (as the engine does)
            env = {**env, "TORCH_TRACE": f"{tmp}/trace"}
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, path],
            cwd=ROOT,
            env=child_env(env),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    return {
        "exit_code": proc.returncode,
        "events": [("out", proc.stdout), ("err", proc.stderr)],
        "seconds": time.monotonic() - start,
    }


class Background:
    """Work only the suite's last tests read, done in background threads at low priority from the
    moment the session's site is built (which needs both cores): the rest of the suite keeps about
    one core busy, and this fills the rest. Asking for a result adds a normal-priority thread and
    waits for all of it."""

    def __init__(self) -> None:
        self.todo: list = []  # (key, function)
        self.results: dict = {}
        self.lock = threading.Lock()
        self.threads: list[threading.Thread] = []
        self.kinds: set[str] = set()  # what has been queued
        self.dirs: list[Path] = []  # removed when the session ends
        self.go = threading.Event()  # set once the session's site is built
        self.site: Path | None = None  # that site

    def _work(self, nice: int) -> None:
        if nice:  # (Linux: a thread's own priority, which the processes it starts inherit)
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
            self.go.wait()
        while True:
            with self.lock:
                if not self.todo:
                    return
                key, function = self.todo.pop(0)
            try:
                result = function()
            except BaseException as exc:  # noqa: BLE001 - raised again in the test that reads it
                result = exc
            with self.lock:
                self.results[key] = result

    def add_thread(self, nice: int = 0) -> None:
        thread = threading.Thread(target=self._work, args=(nice,), daemon=True, name="background")
        thread.start()
        self.threads.append(thread)

    def results_of(self, kind: str, raise_first: bool = True) -> dict:
        """{rest of the key: result} of every task whose key starts with `kind`, once all are done
        (a task's exception is raised, or with raise_first=False left in its place)."""
        self.go.set()
        self.add_thread()
        for thread in self.threads:
            thread.join()
        out = {key[1:]: r for key, r in self.results.items() if key[0] == kind}
        for r in out.values():
            if raise_first and isinstance(r, BaseException):
                raise r
        return out


BACKGROUND_FIXTURES = ("fresh_runs", "second_cold_build", "axe_sweeps")
_background = Background()


def _add_fresh_runs(background: Background) -> None:
    from fieldguide.measure import site_jobs

    background.kinds.add("fresh")
    for job in site_jobs(ROOT):
        path, env = job.display_path, dict(job.env)
        background.todo.append((("fresh", path, tuple(sorted(env.items()))), lambda p=path, e=env: fresh_run(p, e)))


def _add_second_cold_build(background: Background) -> None:
    background.kinds.add("second")
    background.dirs.append(Path(tempfile.mkdtemp(prefix="fieldguide-second-build-")))
    site = background.dirs[-1] / "site"
    # last: its warm workers lead sessions of their own, which the scheduler shares the CPU with
    # whatever their priority, so it is left for the end of the suite, when the other core idles
    background.todo.append(
        (("second", "build"), lambda: (site, mkdocs_build(ROOT, site, {"FIELDGUIDE_NO_CACHE": "1"})))
    )


def _add_axe_sweeps(background: Background) -> None:
    from browser import axe_sweep

    background.kinds.add("axe")
    log = FIXTURES_LOGS / "torch-2.14.1-five_calls.stderr.txt"
    for scheme in ("light", "dark"):
        background.todo.insert(0, (("axe", scheme), lambda s=scheme: axe_sweep(background.site, s, log)))


def pytest_collection_modifyitems(session, config, items) -> None:
    """The tests that read background work go last, and that work starts now, behind the others."""
    readers = [item for item in items if set(getattr(item, "fixturenames", ())) & set(BACKGROUND_FIXTURES)]
    if not readers or config.option.collectonly:
        return
    items[:] = [item for item in items if item not in readers] + readers
    wanted = {name for item in readers for name in item.fixturenames}
    if "fresh_runs" in wanted:
        _add_fresh_runs(_background)
    if "second_cold_build" in wanted:
        _add_second_cold_build(_background)
    if "axe_sweeps" in wanted:  # first: the sweeps are the two pieces the end cannot share out
        _add_axe_sweeps(_background)
    _background.add_thread(nice=10)  # (one: two finished no sooner here, and slowed the others' tests)


def pytest_sessionfinish(session, exitstatus) -> None:
    """A session that ends early (-x, a selection) starts no more background work; a task already
    running ends by itself (a snippet's run, or the second build)."""
    import shutil

    with _background.lock:
        _background.todo.clear()
    for directory in _background.dirs:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="session")
def fresh_runs() -> dict:
    """(display path, sorted env items) -> fresh_run() of every snippet the site executes (the
    pages' jobs as collected from the files on disk)."""
    if "fresh" not in _background.kinds:  # (asked for by a test collection did not see)
        _add_fresh_runs(_background)
    return _background.results_of("fresh")


@pytest.fixture(scope="session")
def axe_sweeps(built_site) -> dict:
    """scheme -> browser.axe_sweep() of the session's site in that scheme (or the exception it raised)."""
    if "axe" not in _background.kinds:
        _add_axe_sweeps(_background)
    return {key[0]: found for key, found in _background.results_of("axe", raise_first=False).items()}


@pytest.fixture(scope="session")
def second_cold_build() -> Path:
    """The site built once more, without any cache (no result of the session's build reused):
    its record.json."""
    if "second" not in _background.kinds:
        _add_second_cold_build(_background)
    site, proc = _background.results_of("second")[("build",)]
    assert proc.returncode == 0, f"the second cold build failed:\n{proc.stdout}\n{proc.stderr}"
    return site / "record.json"


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
