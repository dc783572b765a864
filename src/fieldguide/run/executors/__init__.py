"""How a snippet's process is made. Each executor runs one snippet, isolated, and returns a RawRun.

    base.py   what both share: RawRun, the snippet's environment and limits, process supervision
    fresh.py  one new interpreter per snippet (a reader's `python file.py`)
    warm.py   workers that import torch once and fork a child per snippet (the default)

Executors know nothing about caching, records or HTML: execute.py schedules them, record.py
interprets what they return.
"""

from __future__ import annotations

from pathlib import Path

from .base import (
    MEMORY_LIMIT,
    OUTPUT_LIMIT,
    TRACE_VAR,
    Executor,
    RawRun,
    child_env,
    kill_group_id,
    read_events,
    read_trace,
)
from .fresh import FreshProcessExecutor
from .warm import WarmExecutor, WorkerError

__all__ = [
    "MEMORY_LIMIT",
    "OUTPUT_LIMIT",
    "Executor",
    "FreshProcessExecutor",
    "RawRun",
    "WarmExecutor",
    "WorkerError",
    "TRACE_VAR",
    "child_env",
    "kill_group_id",
    "make_executor",
    "read_events",
    "read_trace",
]


def make_executor(name: str, cwd: Path | None = None, workers: int | None = None, root: Path | None = None) -> Executor:
    """The executor a build asked for by name (config `executor`, or FIELDGUIDE_EXECUTOR).

    `root` is the repository, read-only to snippets (default: cwd).
    """
    if name == "fresh":
        return FreshProcessExecutor(cwd=cwd, root=root)
    if name == "warm":
        return WarmExecutor(cwd=cwd, workers=workers, root=root)
    raise ValueError(f"unknown executor {name!r}: use 'warm' or 'fresh'")
