"""How a snippet's process is made. Each executor runs one snippet, isolated, and returns a RawRun.

Executors know nothing about caching, records or HTML: execute.py schedules them, record.py
interprets what they return.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# Variables from the builder's shell that would change what a snippet prints. A snippet gets
# exactly the variables its fence declares, on top of a clean environment.
_SCRUBBED_PREFIXES = ("TORCH_LOGS", "TORCHDYNAMO_", "TORCHINDUCTOR_", "TORCH_COMPILE", "TORCH_TRACE", "PYTHONSTARTUP")


@dataclass
class RawRun:
    events: list[tuple[str, str]]  # ("out" | "err", text) in the order written
    exit_code: int | None  # None when killed at the timeout
    seconds: float
    timed_out: bool = False
    executor: str = ""
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


def child_env(env: dict[str, str]) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(_SCRUBBED_PREFIXES)}
    base.update(env)
    return base


def read_events(path: Path) -> list[tuple[str, str]]:
    events = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return events
    for line in text.splitlines():
        try:
            stream, chunk = json.loads(line)
        except (ValueError, TypeError):
            continue  # a line cut short by a kill
        events.append((stream, chunk))
    return events


def kill_group_id(pgid: int) -> None:
    """Kill a snippet's whole process group (it leads its own session), children included."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class FreshProcessExecutor:
    """One new interpreter per snippet: `python -m fieldguide.runner`, exactly a reader's fresh run."""

    name = "fresh"

    def __init__(self, python: str = sys.executable, cwd: Path | None = None) -> None:
        self.python = python
        self.cwd = cwd

    def run(self, file: Path, env: dict[str, str], timeout: float) -> RawRun:
        with tempfile.TemporaryDirectory(prefix="fieldguide-") as tmp:
            events_path = Path(tmp) / "events.jsonl"
            run_env = dict(env)
            if TRACE_VAR in run_env:  # the trace goes to a directory of this run only; the record keeps it
                run_env[TRACE_VAR] = str(Path(tmp) / "trace")
            start = time.perf_counter()
            proc = subprocess.Popen(
                [self.python, "-m", "fieldguide.runner", str(events_path), str(file)],
                cwd=self.cwd,
                env=child_env(run_env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group, so a timeout kills its children too
            )
            timed_out = False
            try:
                raw_out, raw_err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                kill_group_id(proc.pid)
                raw_out, raw_err = proc.communicate()
            seconds = time.perf_counter() - start
            events = read_events(events_path)
            artifacts = read_trace(Path(tmp) / "trace") if TRACE_VAR in env else {}
        # Writes that bypassed Python's sys.stdout/sys.stderr (C++ printing to the fd).
        for stream, raw in (("out", raw_out), ("err", raw_err)):
            if raw:
                events.append((stream, raw.decode("utf-8", errors="replace")))
        return RawRun(events, None if timed_out else proc.returncode, seconds, timed_out, self.name, artifacts)

    def close(self) -> None:
        pass


def make_executor(name: str, cwd: Path | None = None, workers: int | None = None):
    """The executor a build asked for by name (config `executor`, or FIELDGUIDE_EXECUTOR)."""
    if name == "fresh":
        return FreshProcessExecutor(cwd=cwd)
    if name == "warm":
        from .warm import WarmExecutor

        return WarmExecutor(cwd=cwd, workers=workers)
    raise ValueError(f"unknown executor {name!r}: use 'warm' or 'fresh'")
