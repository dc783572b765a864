"""The warm executor: worker processes import torch once; each snippet runs in a child forked
from a worker, so it starts with torch already imported but nothing compiled, counted or logged.

What a fork would otherwise carry over from the worker, and how each is reset in the child:

* environment and working directory  -> replaced by the snippet's (`child_env`)
* torch logging handlers bound to the worker's stderr, levels read from the worker's TORCH_LOGS
                                      -> `torch._logging._internal._init_logs()` after the child's
                                         streams are installed, with the child's TORCH_LOGS
* dynamo caches, counters, compile ids -> the worker never compiles; `torch._dynamo.reset()` and
                                         `counters.clear()` in the child make sure
* random number generators: a fresh process seeds torch's default generator (and Python's
  `random`) from the OS, but a forked child inherits the worker's state, so every child would
  draw the same "random" numbers -> reseeded from the OS in the child
* modules: the worker also imports the compile backends' modules (`torch._dynamo.list_backends()`,
  registration only), which a fresh process imports at its first compile: a snippet that times
  its first compile in-process sees less import time than a fresh process would (the guide's
  first-compile timings warm up first, or time a subprocess)
* threads (intra-op pools)            -> the worker runs no tensor op, so no pool exists to fork;
                                         `warm_state()` reports the thread count, a test checks it
* fds 0, 1 and 2 (the worker's request and protocol pipes), and the protocol channel's own fd
                                      -> closed or replaced in the child before the snippet runs:
                                         a snippet cannot write a reply, or read the next request

Variables torch reads only at import time (TORCHDYNAMO_*, TORCHINDUCTOR_*, ...) cannot be reset in
a forked child: snippets whose fence sets any variable other than TORCH_LOGS run in a fresh
process instead, as do all snippets where os.fork does not exist.

The worker is the snippet's supervisor (base.supervise): it enforces the timeout and kills
whatever the snippet left behind before it replies. Each snippet runs two forks below it, as PID 2
of a PID namespace of its own (runner.start_snippet), still with the worker's imported torch.

Worker protocol (one JSON object a line): a request (base.request) on stdin; replies
{"pid": n} when the child starts and {"exit": code, "timed_out": bool} when it and everything it
started are gone.
"""

from __future__ import annotations

import json
import os
import queue
import select
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
    child_env,
    kill_group_id,
    limit_message,
    read_events,
    read_trace,
    request,
)
from .fresh import FreshProcessExecutor

FORK_SAFE_VARIABLES = {"TORCH_LOGS"}
START_TIMEOUT = 300.0


class WorkerError(RuntimeError):
    """A warm worker could not start, or died: the message says why."""


def forkable(env: dict[str, str]) -> bool:
    return hasattr(os, "fork") and set(env) <= FORK_SAFE_VARIABLES


class _Worker:
    def __init__(self, python: str, cwd: Path) -> None:
        self.log = tempfile.TemporaryFile(prefix="fieldguide-worker-")
        self.proc = subprocess.Popen(
            [python, "-m", "fieldguide.run.executors.warm"],
            cwd=cwd,
            env=child_env({}),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            bufsize=0,
            start_new_session=True,  # a terminal's Ctrl-C reaches the build, which stops the worker
        )
        self._buffer = b""
        self.eof = False
        self.child: int | None = None
        self.python = python

    def wait_ready(self) -> None:
        ready = self.readline(START_TIMEOUT)
        if ready is None or ready.get("ready") is not True:
            self.kill()
            raise WorkerError(
                f"the warm worker ({self.python} -m fieldguide.run.executors.warm) failed to start{self.stderr_tail()}\n"
                "  (FIELDGUIDE_EXECUTOR=fresh builds without warm workers, about 3-4x slower)"
            )

    def stderr_tail(self) -> str:
        try:
            self.log.seek(0)
            text = self.log.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return ":\n" + "\n".join(text.splitlines()[-15:]) if text else ""

    def readline(self, timeout: float) -> dict | None:
        """The worker's next reply, or None if it died or said nothing for `timeout` seconds."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                self.eof = True  # the worker is gone (it may not be reaped yet: poll() can still say alive)
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            reply = json.loads(line)
        except ValueError:
            return None
        return reply if isinstance(reply, dict) else None

    def send(self, message: dict) -> None:
        self.proc.stdin.write((json.dumps(message) + "\n").encode())

    def alive(self) -> bool:
        return self.proc.poll() is None

    def terminate(self) -> None:
        """Ask the worker to kill its snippet and everything below it, then exit."""
        if self.alive():
            try:
                self.proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        kill_group_id(self.proc.pid)
        if self.child:
            kill_group_id(self.child)
        self.proc.wait()

    def close(self) -> None:
        if self.alive():
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        self.log.close()


class WarmExecutor(Executor):
    name = "warm"

    def __init__(
        self,
        python: str = sys.executable,
        cwd: Path | None = None,
        workers: int | None = None,
        root: Path | None = None,
    ) -> None:
        self.python = python
        self.cwd = Path(cwd or os.getcwd())
        self.root = root if root is not None else self.cwd
        from ..settings import default_workers  # not at import: the worker process needs none of it

        self.size = workers or default_workers()
        self.fresh = FreshProcessExecutor(python, self.cwd, self.root)
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._started = 0
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []
        self._aborted = False

    def _acquire(self) -> _Worker:
        with self._lock:
            if self._aborted:
                raise WorkerError("the build was interrupted")
            start = self._idle.empty() and self._started < self.size
            if start:
                self._started += 1
        if start:
            try:
                worker = _Worker(self.python, self.cwd)
                with self._lock:
                    self._workers.append(worker)  # from now on abort() reaches it
                if self._aborted:
                    worker.terminate()
                worker.wait_ready()
            except BaseException:
                with self._lock:
                    self._started -= 1
                raise
            return worker
        return self._idle.get()

    def start(self) -> None:
        """Start one worker now, so a worker that cannot start fails the build before anything runs."""
        self._idle.put(self._acquire())

    def run(self, file: Path, env: dict[str, str], timeout: float) -> RawRun:
        if not forkable(env):
            return self.fresh.run(file, env, timeout)
        worker = self._acquire()
        try:
            return self._run_in(worker, file, env, timeout)
        finally:
            if worker.alive() and not self._aborted:
                self._idle.put(worker)
            else:
                with self._lock:
                    self._started -= 1
                    if worker in self._workers:
                        self._workers.remove(worker)
                worker.close()

    def _run_in(self, worker: _Worker, file: Path, env: dict[str, str], timeout: float) -> RawRun:
        with tempfile.TemporaryDirectory(prefix="fieldguide-") as tmp:
            req = request(file, env, timeout, tmp, self.cwd, self.root)
            start = time.perf_counter()
            failure = ""
            reply = None
            try:
                worker.send(req)
                started = worker.readline(60)
                if started is None or "pid" not in started:
                    raise WorkerError("the warm worker died before it started the snippet")
                worker.child = started["pid"]
                reply = worker.readline(timeout + KILL_GRACE)
                if reply is None or "exit" not in reply:
                    raise WorkerError(
                        "the warm worker running it died"
                        if worker.eof or not worker.alive() or self._aborted
                        else f"the warm worker running it did not report within {timeout + KILL_GRACE:g}s"
                    )
            except (WorkerError, OSError) as exc:
                failure = "the build was interrupted" if self._aborted else (str(exc) or "the warm worker failed")
                reply = None
                worker.kill()
            finally:
                worker.child = None
            seconds = time.perf_counter() - start
            events, reads, limit = read_events(Path(req["events"]))
            artifacts = read_trace(Path(tmp) / "trace") if TRACE_VAR in env else {}
        failure = limit_message(limit) or failure
        timed_out = bool(reply and reply.get("timed_out"))
        exit_code = reply.get("exit") if reply and not failure and not timed_out else None
        return RawRun(events, exit_code, seconds, timed_out, self.name, failure, reads, artifacts)

    def abort(self) -> None:
        with self._lock:
            self._aborted = True
            workers = list(self._workers)
        for worker in workers:
            worker.terminate()
        self.fresh.abort()

    def close(self) -> None:
        for worker in list(self._workers):
            worker.close()


# -- the worker process ------------------------------------------------------------------------
def reset_torch_state() -> None:
    """Undo what importing torch in the worker left that a fresh process would not have."""
    import torch._logging._internal as torch_logging

    if hasattr(torch_logging.log_state, "clear"):
        # Settings the worker made (set_logs, or a TORCH_LOGS it imported torch under) survive
        # _init_logs when the child has no TORCH_LOGS of its own: a fresh process has none.
        torch_logging.log_state.clear()
    torch_logging._init_logs()  # handlers on the child's sys.stderr, levels from its TORCH_LOGS
    import torch._dynamo
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()

    from ..runner import hide_from_dynamo

    hide_from_dynamo()  # the output capture's frames are not the snippet's

    import random

    random.seed()  # from the OS, as at interpreter start
    torch.seed()  # a non-deterministic seed, as torch's default generator gets in a new process
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()


def warm_state() -> dict:
    """What a test compares between a warm child and a fresh process."""
    import threading as _threading

    return {
        "threads": _threading.active_count(),
        "tasks": len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None,
    }


def worker_main() -> None:
    from ..runner import start_snippet
    from .base import become_subreaper, supervise, terminate_on_signal

    become_subreaper()
    terminate_on_signal()
    import torch  # noqa: F401 - the whole point: pay for this once
    import torch._dynamo

    try:  # the backends' modules, which a process's first compile imports: paid here once, not per snippet
        torch._dynamo.list_backends()
    except Exception:  # noqa: BLE001 - a torch whose listing fails: each snippet imports them itself
        pass

    protocol_fd = os.dup(1)
    protocol = os.fdopen(protocol_fd, "w", buffering=1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)  # nothing but the protocol channel reaches the executor
    os.close(null)
    protocol.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        req = json.loads(line)
        # the snippet's tree cannot write replies (nor read requests: start_snippet replaces fd 0)
        pid = start_snippet(req, prepare=reset_torch_state, close=[protocol_fd])
        protocol.write(json.dumps({"pid": pid}) + "\n")
        code, timed_out = supervise(pid, req["timeout"])
        protocol.write(json.dumps({"exit": code, "timed_out": timed_out}) + "\n")


if __name__ == "__main__":
    worker_main()
