"""What every executor shares: the result of a run, the environment and limits a snippet runs
under, and the supervision that makes sure nothing a snippet starts outlives it.

A snippet always runs below a *supervisor* (the warm worker, or the fresh executor's
`python -m fieldguide.run.runner`), in a PID namespace of its own where the kernel allows one
(runner.start_snippet: when the snippet ends, its namespace's init ends and the kernel kills the
rest). The supervisor enforces the timeout by killing the snippet tree's top process group. It is
also a Linux child subreaper: processes that escape (only possible without a PID namespace: a
double fork, `setsid`) are re-parented to it instead of to init, so when the snippet ends,
normally or at its timeout, the supervisor finds and kills every process left below it before it
reports the snippet's exit.

This module imports only the standard library: the runner and the warm worker import it.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

# Limits every snippet runs under (documented in the README's "Writing a page").
OUTPUT_LIMIT = 4_000_000  # bytes of stdout + stderr; past it the snippet is stopped and fails
MEMORY_LIMIT = 4 * 1024**3  # address space a snippet may map beyond its interpreter's (RLIMIT_AS; runner.confine)
KILL_GRACE = 15.0  # seconds past a snippet's timeout before the executor gives up on its supervisor

# The exit status a runner uses when it stopped a snippet at the output limit.
EXIT_OUTPUT_LIMIT = 120


@dataclass
class RawRun:
    events: list[tuple[str, str]]  # ("out" | "err", text) in the order written
    exit_code: int | None  # None when killed at the timeout or stopped by the engine
    seconds: float
    timed_out: bool = False
    executor: str = ""
    failure: str = ""  # set when the engine, not the snippet's exit code, failed the run
    reads: list[str] = field(default_factory=list)  # files under the repository the snippet opened
    artifacts: dict[str, str] = field(default_factory=dict)  # files the run wrote that the record keeps


TRACE_VAR = "TORCH_TRACE"


def read_trace(directory: Path) -> dict[str, str]:
    """The structured trace files torch wrote under TORCH_TRACE, as trace/<n>.log -> text.

    torch names them with a random suffix; they are numbered in name order so that a record
    reads the same from run to run.
    """
    if not directory.is_dir():
        return {}
    files = sorted(p for p in directory.iterdir() if p.is_file())
    return {f"trace/{i}.log": p.read_text(encoding="utf-8", errors="replace") for i, p in enumerate(files)}


def child_env(env: dict[str, str], tmp: str | None = None) -> dict[str, str]:
    """The environment a snippet runs under: a fixed base plus exactly what its fence declares.

    Nothing of the builder's shell reaches a snippet, so its output depends only on what the cache
    key covers (the fence's env, torch and Python). PATH leads with the build's interpreter, so a
    snippet that runs `python` gets the same one.
    """
    base = {
        "PATH": f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",  # the repository is read-only to a snippet
        "HOME": tmp or os.environ.get("HOME", "/"),
    }
    if tmp:
        base["TMPDIR"] = tmp
    base.update(env)
    return base


def read_events(path: Path) -> tuple[list[tuple[str, str]], list[str], str]:
    """(output events, files read, limit hit) from a runner's events file."""
    events: list[tuple[str, str]] = []
    reads: list[str] = []
    limit = ""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return events, reads, limit
    for line in text.splitlines():
        try:
            stream, chunk = json.loads(line)
        except (ValueError, TypeError):
            continue  # a line cut short by a kill
        if stream in ("out", "err"):
            events.append((stream, chunk))
        elif stream == "read":
            reads.append(chunk)
        elif stream == "limit":
            limit = chunk
    return events, reads, limit


def limit_message(limit: str) -> str:
    if limit == "output":
        return f"printed more than the output limit of {OUTPUT_LIMIT / 1e6:g} MB and was stopped"
    return ""


# -- process supervision ----------------------------------------------------------------------
PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Orphaned descendants re-parent to this process (Linux); False where that is not possible."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    return children


def descendants(pid: int) -> list[int]:
    if not os.path.isdir("/proc"):
        return []
    tree, out, todo = _children_map(), [], [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def kill_descendants(deadline: float = 10.0) -> None:
    """Kill and reap every process below this one (its children and whatever they left behind)."""
    me = os.getpid()
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        for pid in descendants(me):
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            while True:
                reaped, _ = os.waitpid(-1, os.WNOHANG)
                if reaped == 0:
                    break
        except ChildProcessError:
            return  # no child left
        time.sleep(0.01)


def supervise(pid: int, timeout: float) -> tuple[int | None, bool]:
    """Wait for the snippet process `pid` at most `timeout` seconds, then clean up below us.

    Returns (exit code as `python file.py` reports it, timed out). The wait does not depend on
    any pipe: a descendant holding the snippet's output open cannot stretch the timeout.
    """
    deadline = time.monotonic() + timeout
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    status, timed_out = None, False
    try:
        while True:
            done, raw = os.waitpid(pid, os.WNOHANG)
            if done == pid:
                status = os.waitstatus_to_exitcode(raw)
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                try:
                    os.killpg(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                os.waitpid(pid, 0)
                break
            if pidfd is not None:
                select.select([pidfd], [], [], min(remaining, 1.0))
            else:
                time.sleep(min(remaining, 0.02))
    finally:
        if pidfd is not None:
            os.close(pidfd)
        kill_descendants()
    return (None if timed_out else status), timed_out


def terminate_on_signal() -> None:
    """SIGTERM (the build was interrupted): kill everything below this supervisor, then exit."""

    def handler(signum, frame):  # noqa: ARG001
        kill_descendants(deadline=3.0)
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


def kill_group_id(pgid: int) -> None:
    """Kill a whole process group (a supervisor leads its own session), ignoring ones already gone."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Executor:
    """What execute.py needs from an executor."""

    name = ""

    def run(self, file: Path, env: dict[str, str], timeout: float) -> RawRun:  # pragma: no cover
        raise NotImplementedError

    def abort(self) -> None:
        """Stop every running snippet now (the build was interrupted); run() calls then return."""

    def close(self) -> None:
        pass


def request(file: Path, env: dict[str, str], timeout: float, tmp: str, cwd: Path, root: Path | None) -> dict:
    """Everything the process that becomes the snippet needs, as JSON-able data."""
    scratch = Path(tmp) / "scratch"  # the snippet's TMPDIR and HOME; the events file stays outside it
    scratch.mkdir(exist_ok=True)
    run_env = dict(env)
    if TRACE_VAR in run_env:  # the trace goes to a directory of this run only; the record keeps it
        run_env[TRACE_VAR] = str(Path(tmp) / "trace")
    return {
        "file": str(file),
        "env": child_env(run_env, str(scratch)),
        "scratch": str(scratch),
        "events": str(Path(tmp) / "events.jsonl"),
        "cwd": str(cwd),
        "root": str(root) if root else "",
        "timeout": timeout,
        "output_limit": OUTPUT_LIMIT,
        "memory_limit": MEMORY_LIMIT,
    }
