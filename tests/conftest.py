"""Shared fixtures. Tests run inside the nox environment that has torch, so sys.executable is it.

The real site is built once per run, on a private cold cache (so what the tests judge was
executed by the code under test, never read from a cache some older code filled), and every
test that needs a build reads that one, whichever xdist worker it runs in. `site_cache` is that
cache, warm afterwards: a test that builds the site again copies it so that only what it changed
runs. Tests that do not read the site run first, while it builds.

Work that only a few tests read (`fresh_runs`: every snippet run the way a reader runs it,
`python snippets/...py`, where tests/fresh.py has no committed run of it; `second_cold_build`;
`axe_sweeps`) runs in the background, at low priority, once the site is built, and the tests
that read it go last. Each of these tasks runs once for the whole run (tests/shared.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from shared import SharedWork, TaskFailed

ROOT = Path(__file__).resolve().parent.parent
FIXTURES_LOGS = ROOT / "tests" / "fixtures" / "logs"
QUIET = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
# For a build whose test is not about the executor: its print() snippets need no torch, which a
# warm worker imports before it runs anything (about 3 s of CPU per worker). The site's own build,
# the executor's tests and serve's keep the default, warm executor.
FRESH = {"FIELDGUIDE_EXECUTOR": "fresh"}


# Builds run with the umask a user's shell usually has, whatever the runner's: the modes a build
# leaves are then those of any folder made under it (0755 and 0644), which tests check.
UMASK = 0o022


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
        umask=UMASK,
    )


def unreadable(tree: Path, umask: int = UMASK) -> list[str]:
    """What in `tree` (itself included) has other modes than a plain folder or file made under
    `umask` has (0755 and 0644 under 022), as `mkdocs build` leaves them: a folder made 0700 is
    one a web server running as another user answers 403 for."""
    wrong = []
    for path in [tree, *sorted(tree.rglob("*"))]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode & 0o777
        want = (0o777 if path.is_dir() else 0o666) & ~umask
        if mode != want:
            wrong.append(f"{path.relative_to(tree.parent)}: {oct(mode)}, not {oct(want)}")
    return wrong


def pytest_configure(config) -> None:
    """Tests press Ctrl-C on the builds they start, as a terminal does. A shell's background job
    (`cmd &` without job control) starts with SIGINT ignored, which every child would inherit and
    Python then honours (no KeyboardInterrupt): the session restores the terminal's default."""
    import signal

    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# -- work the suite's processes share (tests/shared.py) ----------------------------------------
READERS = ("fresh_runs", "second_cold_build", "axe_sweeps")  # fixtures of work only the last tests read
_work: SharedWork | None = None
_fresh: dict = {}  # (display path, sorted env items) -> a committed run, or the name of the task running it


def _run_dir(config) -> Path:
    """One directory for the whole run: the workers' common parent under xdist, else the session's."""
    base = config._tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared"


def _build_site(directory: Path) -> dict:
    """The session's site, built on a private cold cache (kept, for tests that copy it), with
    strict_outcomes: on the default torch, every explanation, drill scenario and table must read
    what it printed (on a torch no record holds, a build without it lists them instead)."""
    site, cache = directory / "site", directory / "site-cache"
    env = {"FIELDGUIDE_CACHE_DIR": str(cache), "FIELDGUIDE_REFRESH": "0", "FIELDGUIDE_STRICT_OUTCOMES": "1"}
    proc = mkdocs_build(ROOT, site, env)
    return {"site": str(site), "cache": str(cache), **_outcome(proc)}


def _second_cold_build(directory: Path) -> dict:
    site = directory / "second" / "site"
    return {"site": str(site), **_outcome(mkdocs_build(ROOT, site, {"FIELDGUIDE_NO_CACHE": "1"}))}


def _outcome(proc: subprocess.CompletedProcess) -> dict:
    return {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}


def _queue_fresh_runs(work: SharedWork) -> None:
    """A reader's fresh run of every snippet the pages use: the committed one while its key is
    current (fresh.REFERENCE), else a task that runs it now."""
    import fresh

    committed, todo = fresh.split(fresh.site_jobs(), fresh.load_reference())
    for job, run in committed:
        _fresh[(job.id.display, job.id.env)] = {**run, "measured": "committed"}
    for job in todo:
        name = f"fresh-{fresh.run_key(job)[:20]}"  # (the same name in every worker)
        _fresh[(job.id.display, job.id.env)] = name
        path, env = job.display_path, dict(job.env)
        work.add(name, lambda p=path, e=env: {**fresh.fresh_run(p, e), "measured": "now"})


def _readers_and_site_tests(items) -> tuple[list, list]:
    readers = [item for item in items if set(item.fixturenames) & set(READERS)]
    on_site = [item for item in items if item not in readers and "built_site" in item.fixturenames]
    return readers, on_site


def pytest_collection_modifyitems(session, config, items) -> None:
    """Tests that do not read the site go first (the site builds meanwhile), those that read
    background work go last."""
    readers, on_site = _readers_and_site_tests(items)
    items[:] = [item for item in items if item not in readers and item not in on_site] + on_site + readers


def pytest_xdist_make_scheduler(config, log):
    """Under xdist: the tests one by one, in the order above, to whichever worker is free (a worker
    holds the test it runs and the next; xdist's own modes hand out chunks or whole files, which
    would start the last tests early)."""
    from xdist.scheduler import LoadScopeScheduling

    class InOrder(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid  # every test a scope of its own

    return InOrder(config, log)


def pytest_collection_finish(session) -> None:
    """The shared work the selected tests need (after -k and -m), queued in that order; it starts now."""
    global _work
    readers, on_site = _readers_and_site_tests(session.items)
    if session.config.option.collectonly or not (readers or on_site):
        return
    _work = SharedWork(_run_dir(session.config))
    _work.add("site", lambda: _build_site(_work.dir), nice=0)  # first, at normal priority
    wanted = {name for item in readers for name in item.fixturenames}
    if "axe_sweeps" in wanted:
        from browser import axe_sweep

        log = FIXTURES_LOGS / "torch-2.14.1-five_calls.stderr.txt"
        for scheme in ("light", "dark"):
            _work.add(f"axe-{scheme}", lambda s=scheme: axe_sweep(Path(_work.result("site")["site"]), s, log))
    if "fresh_runs" in wanted:
        _queue_fresh_runs(_work)
    if "second_cold_build" in wanted:  # last: its warm workers lead sessions of their own, which the
        _work.add("second-build", lambda: _second_cold_build(_work.dir))  # scheduler does not nice
    _work.start()


def pytest_sessionfinish(session, exitstatus) -> None:
    """A process out of tests claims no more shared work. Under xdist it finishes the task it is
    running, as the other worker may be waiting for its result (not when the run was interrupted)."""
    if _work is not None:
        xdist = bool(os.environ.get("PYTEST_XDIST_WORKER"))
        _work.stop(wait=xdist and exitstatus != pytest.ExitCode.INTERRUPTED)


def _shared_work() -> SharedWork:
    if _work is None:
        pytest.fail("no shared work in this session: collection saw no test that reads the site")
    return _work


def _shared(name: str):
    return _shared_work().result(name)


@pytest.fixture(scope="session")
def built_site() -> Path:
    built = _shared("site")
    assert built["returncode"] == 0, f"mkdocs build --strict of the site failed:\n{built['stdout']}\n{built['stderr']}"
    return Path(built["site"])


@pytest.fixture(scope="session")
def site_cache(built_site) -> Path:
    """The execution cache the session's site was built on (warm): copy it before building with it."""
    return Path(_shared("site")["cache"])


@pytest.fixture(scope="session")
def fresh_runs() -> dict:
    """(display path, sorted env items) -> a fresh run of every snippet the site executes (the
    pages' jobs as collected from the files on disk): fresh.fresh_run() plus "measured", which
    says whether it is the committed run of the same key or was run now."""
    return {key: _shared(run) if isinstance(run, str) else run for key, run in _fresh.items()}


@pytest.fixture(scope="session")
def axe_sweeps(built_site) -> dict:
    """scheme -> browser.axe_sweep() of the session's site in that scheme (or the exception it raised)."""
    found = {}
    for scheme in ("light", "dark"):
        try:
            found[scheme] = _shared(f"axe-{scheme}")
        except TaskFailed as exc:
            found[scheme] = exc
    return found


@pytest.fixture(scope="session")
def second_cold_build() -> Path:
    """The site built once more, without any cache (no result of the session's build reused):
    its record.json."""
    built = _shared("second-build")
    assert built["returncode"] == 0, f"the second cold build failed:\n{built['stdout']}\n{built['stderr']}"
    return Path(built["site"]) / "record.json"


@pytest.fixture(scope="session")
def session_browser():
    """Debian's chromium, one per test process (under xdist a module's tests are spread over the
    workers, so a module-scoped browser would start again in each worker for each module). The
    sync Playwright of a thread drives one browser at a time: a test takes this one."""
    from browser import chromium

    with chromium() as b:
        yield b


@pytest.fixture
def browser(session_browser):
    """The session's browser; the contexts (and pages) a test opens are closed after it."""
    before = set(session_browser.contexts)
    yield session_browser
    for context in session_browser.contexts:
        if context not in before:
            context.close()


def shared_once(name: str, function):
    """function()'s JSON result, computed once for the whole run (by whichever process asks
    first): for a fixture too costly to make again in each xdist worker."""
    _shared_work().add(name, function)
    return _shared(name)


def shared_dir() -> Path:
    """A directory of the whole run (every xdist worker's), for what shared_once() makes."""
    return _shared_work().dir


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
        from fieldguide.run.record import BuildRecord

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
