"""Work the suite's processes share: each task runs once, in whichever process claims it first,
and its result is a JSON file that every process reads.

`nox -s tests` runs the suite in one pytest-xdist worker per core; without xdist there is one
process and the same rules hold. Every process queues the same tasks. Its background thread
claims and runs them from the moment the session starts: the site's cold build first (most tests
read it, so at normal priority), then, at low priority, the work only the last tests read. A
test asking for a result nobody has claimed runs the task itself; one that another process is
running, it waits for.
"""

from __future__ import annotations

import json
import os
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

WAIT_LIMIT = 1800.0  # seconds a result is waited for (the slowest task takes about a minute)


class TaskFailed(RuntimeError):
    """A shared task raised, or the process running it ended without a result."""


class SharedWork:
    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.tasks: dict[str, tuple[Callable[[], object], int]] = {}  # name -> (function, nice)
        self.stopped = threading.Event()
        self.thread: threading.Thread | None = None

    def add(self, name: str, function: Callable[[], object], nice: int = 10) -> None:
        """Queue a task (its result must be JSON); `nice` is its priority in the background thread."""
        self.tasks[name] = (function, nice)

    def start(self) -> None:
        """The background thread: every queued task, in the order queued, that no process has claimed."""
        if self.thread is None and self.tasks:
            self.thread = threading.Thread(target=self._background, daemon=True, name="shared-work")
            self.thread.start()

    def stop(self, wait: bool) -> None:
        """Claim nothing more; with `wait`, let the task this process is running finish and leave
        its result (another worker may be waiting for it, after this one has run out of tests)."""
        self.stopped.set()
        if wait and self.thread is not None:
            self.thread.join()

    def result(self, name: str):
        """The task's result: run here if no process has claimed it, else waited for."""
        path = self._result_path(name)
        if not path.exists() and self._claim(name):
            # in a thread of its own, as in the background: what a task holds per thread (a sync
            # Playwright, say) does not meet what the test's thread holds
            mine = threading.Thread(target=self._run, args=(name,), daemon=True, name=f"shared-{name}")
            mine.start()
            mine.join()
        deadline = time.monotonic() + WAIT_LIMIT
        while not path.exists():
            owner = self._owner(name)
            if owner is not None and not _alive(owner):
                time.sleep(0.5)  # (its result may have landed just before it ended)
                if not path.exists():
                    raise TaskFailed(f"the test process that ran {name!r} (pid {owner}) ended without a result")
            if time.monotonic() > deadline:
                raise TaskFailed(f"no result for {name!r} after {WAIT_LIMIT:g}s")
            time.sleep(0.2)
        data = json.loads(path.read_text())
        if "error" in data:
            raise TaskFailed(f"{name} failed:\n{data['error']}")
        return data["ok"]

    # -- inside -------------------------------------------------------------------------------
    def _background(self) -> None:
        for name, (_, nice) in list(self.tasks.items()):
            if self.stopped.is_set():
                return
            if nice:  # (Linux: this thread's own priority, which the processes it starts inherit)
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
            if self._claim(name):
                self._run(name)

    def _claim(self, name: str) -> bool:
        """A claim names its process from the moment it exists: written aside, then linked into
        place (a link fails if the name exists, so exactly one process gets it)."""
        mine = self.dir / f"{name}.claim.{os.getpid()}.{threading.get_native_id()}"
        mine.write_text(str(os.getpid()))
        try:
            os.link(mine, self.dir / f"{name}.claim")
        except FileExistsError:
            return False
        finally:
            mine.unlink()
        return True

    def _owner(self, name: str) -> int | None:
        try:
            return int((self.dir / f"{name}.claim").read_text())
        except (OSError, ValueError):
            return None  # (not claimed yet, or its pid not written yet)

    def _run(self, name: str) -> None:
        """Run a claimed task and leave its result, or its error, for every reader (also when the
        task is interrupted, so that no reader waits for it)."""
        function, _ = self.tasks[name]
        try:
            text = json.dumps({"ok": function()})
        except Exception as exc:  # noqa: BLE001 - raised again in every test that reads it
            text = json.dumps({"error": "".join(traceback.format_exception(exc))})
        except BaseException:  # Ctrl-C, exit
            self._leave(name, json.dumps({"error": f"{name} was interrupted"}))
            raise
        self._leave(name, text)

    def _leave(self, name: str, text: str) -> None:
        tmp = self.dir / f"{name}.json.{os.getpid()}.tmp"
        tmp.write_text(text)
        os.replace(tmp, self._result_path(name))

    def _result_path(self, name: str) -> Path:
        return self.dir / f"{name}.json"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
