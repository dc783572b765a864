"""The fresh executor: one new interpreter per snippet, exactly a reader's fresh run.

`python -m fieldguide.run.runner` is the snippet's supervisor: it starts the snippet's process tree
(runner.start_snippet) before importing anything, waits for it with its timeout, and kills
whatever it left behind (base.supervise).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .base import (
    KILL_GRACE,
    TRACE_VAR,
    Executor,
    RawRun,
    kill_group_id,
    limit_message,
    read_events,
    read_trace,
    request,
)


class FreshProcessExecutor(Executor):
    name = "fresh"

    def __init__(self, python: str = sys.executable, cwd: Path | None = None, root: Path | None = None) -> None:
        self.python = python
        self.cwd = Path(cwd or os.getcwd())
        self.root = root if root is not None else self.cwd
        self._running: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self._aborted = False

    def run(self, file: Path, env: dict[str, str], timeout: float) -> RawRun:
        with tempfile.TemporaryDirectory(prefix="fieldguide-") as tmp:
            req = request(file, env, timeout, tmp, self.cwd, self.root)
            result_file = Path(tmp) / "result.json"
            crash = Path(tmp) / "supervisor.log"
            start = time.perf_counter()
            with open(crash, "wb") as log:
                with self._lock:
                    if self._aborted:
                        return RawRun([], None, 0.0, False, self.name, "the build was interrupted")
                    proc = subprocess.Popen(
                        [self.python, "-m", "fieldguide.run.runner", json.dumps(req), str(result_file)],
                        cwd=self.cwd,
                        env=req["env"],
                        stdin=subprocess.DEVNULL,
                        stdout=log,  # files, not pipes: nothing a descendant holds open can stall the wait
                        stderr=log,
                        start_new_session=True,  # a terminal's Ctrl-C reaches the build, which stops it
                    )
                    self._running.add(proc)
                try:
                    proc.wait(timeout=timeout + KILL_GRACE)
                except subprocess.TimeoutExpired:
                    kill_group_id(proc.pid)
                    proc.wait()
                finally:
                    with self._lock:
                        self._running.discard(proc)
            seconds = time.perf_counter() - start
            events, reads, limit = read_events(Path(req["events"]))
            artifacts = read_trace(Path(tmp) / "trace") if TRACE_VAR in env else {}
            try:
                outcome = json.loads(result_file.read_text())
            except (OSError, ValueError):
                outcome = None
            failure = limit_message(limit)
            if outcome is None and not failure:
                log_text = crash.read_text(errors="replace").strip()
                failure = "the snippet's supervisor process ended without reporting an exit status" + (
                    f":\n{log_text}" if log_text else ""
                )
        exit_code = outcome["exit"] if outcome else None
        timed_out = bool(outcome and outcome["timed_out"])
        return RawRun(
            events,
            None if (timed_out or failure) else exit_code,
            seconds,
            timed_out,
            self.name,
            failure,
            reads,
            artifacts,
        )

    def abort(self) -> None:
        with self._lock:
            self._aborted = True
            running = list(self._running)
        for proc in running:
            try:
                proc.send_signal(signal.SIGTERM)  # the supervisor kills its snippet's tree, then exits
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 3
        for proc in running:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                kill_group_id(proc.pid)
