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
* threads (intra-op pools)            -> the worker runs no tensor op, so no pool exists to fork;
                                         `warm_state()` reports the thread count, a test checks it
* fds 1 and 2 (the worker's protocol pipe) -> redirected to files in the child

Variables torch reads only at import time (TORCHDYNAMO_*, TORCHINDUCTOR_*, ...) cannot be reset in
a forked child: snippets whose fence sets any variable other than TORCH_LOGS run in a fresh
process instead, as do all snippets where os.fork does not exist.

Worker protocol (one JSON object a line): request {"file", "env", "events", "raw", "cwd"} on
stdin; replies {"pid": n} when the child starts and {"exit": code} when it ends.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .executors import FreshProcessExecutor, RawRun, child_env, kill_group_id, read_events

FORK_SAFE_VARIABLES = {"TORCH_LOGS"}


def forkable(env: dict[str, str]) -> bool:
    return hasattr(os, "fork") and set(env) <= FORK_SAFE_VARIABLES


class _Worker:
    def __init__(self, python: str, cwd: Path | None) -> None:
        self.proc = subprocess.Popen(
            [python, "-m", "fieldguide.warm"],
            cwd=cwd,
            env=child_env({}),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        ready = self.proc.stdout.readline()
        if json.loads(ready or "{}").get("ready") is not True:
            raise RuntimeError("warm worker failed to start")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        if self.alive():
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class WarmExecutor:
    name = "warm"

    def __init__(self, python: str = sys.executable, cwd: Path | None = None, workers: int | None = None) -> None:
        self.python = python
        self.cwd = cwd
        from .settings import default_workers  # not at import: the worker process needs none of it

        self.size = workers or default_workers()
        self.fresh = FreshProcessExecutor(python, cwd)
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._started = 0
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []

    def _acquire(self) -> _Worker:
        with self._lock:
            if self._idle.empty() and self._started < self.size:
                self._started += 1
                worker = _Worker(self.python, self.cwd)
                self._workers.append(worker)
                return worker
        return self._idle.get()

    def run(self, file: Path, env: dict[str, str], timeout: float) -> RawRun:
        if not forkable(env):
            return self.fresh.run(file, env, timeout)
        try:
            worker = self._acquire()
        except (OSError, RuntimeError, ValueError):
            return self.fresh.run(file, env, timeout)
        try:
            return self._run_in(worker, file, env, timeout)
        finally:
            if worker.alive():
                self._idle.put(worker)
            else:
                with self._lock:
                    self._started -= 1

    def _run_in(self, worker: _Worker, file: Path, env: dict[str, str], timeout: float) -> RawRun:
        with tempfile.TemporaryDirectory(prefix="fieldguide-") as tmp:
            events = Path(tmp) / "events.jsonl"
            raw = Path(tmp) / "raw"
            request = {"file": str(file), "env": child_env(env), "events": str(events), "raw": str(raw), "cwd": str(self.cwd or os.getcwd())}
            start = time.perf_counter()
            worker.proc.stdin.write(json.dumps(request) + "\n")
            worker.proc.stdin.flush()
            pid = json.loads(worker.proc.stdout.readline())["pid"]
            killed = threading.Event()

            def on_timeout() -> None:
                killed.set()
                kill_group_id(pid)

            timer = threading.Timer(timeout, on_timeout)
            timer.start()
            try:
                reply = json.loads(worker.proc.stdout.readline() or "{}")
            finally:
                timer.cancel()
            timed_out = killed.is_set()
            seconds = time.perf_counter() - start
            run_events = read_events(events)
            for stream in ("out", "err"):
                extra = Path(f"{raw}.{stream}")
                if extra.exists() and extra.stat().st_size:
                    run_events.append((stream, extra.read_text(encoding="utf-8", errors="replace")))
        exit_code = reply.get("exit")
        return RawRun(run_events, None if timed_out else exit_code, seconds, timed_out, self.name)

    def close(self) -> None:
        for worker in self._workers:
            worker.close()


# -- the worker process ------------------------------------------------------------------------
def _child(request: dict) -> None:
    """In the forked child: become a snippet process. Never returns."""
    code = 70
    try:
        os.setsid()  # own process group: a timeout kills the snippet and whatever it started
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        for fd, stream in ((1, "out"), (2, "err")):
            target = os.open(f"{request['raw']}.{stream}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(target, fd)
            os.close(target)
        sys.stdin = open(os.devnull)  # noqa: SIM115
        os.dup2(sys.stdin.fileno(), 0)
        from . import runner

        runner.install(request["events"])
        reset_torch_state()
        code = runner.run(request["file"])
    except BaseException:  # noqa: BLE001
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code if isinstance(code, int) else 1)


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

    import random

    random.seed()  # from the OS, as at interpreter start
    torch.seed()  # a non-deterministic seed, as torch's default generator gets in a new process
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()


def warm_state() -> dict:
    """What a test compares between a warm child and a fresh process."""
    import threading as _threading

    return {"threads": _threading.active_count(), "tasks": len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None}


def worker_main() -> None:
    import torch  # noqa: F401 - the whole point: pay for this once
    import torch._dynamo  # noqa: F401

    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    protocol.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request)
        protocol.write(json.dumps({"pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        protocol.write(json.dumps({"exit": os.waitstatus_to_exitcode(status)}) + "\n")


if __name__ == "__main__":
    worker_main()
