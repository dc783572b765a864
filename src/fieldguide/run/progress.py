"""Progress of the execute stage, through MkDocs' plugin logger.

On a terminal (and not in CI) a live status line is redrawn in place; elsewhere each executed
snippet is one INFO line. Cache hits are not listed one by one: the stage ends with one summary
line. Everything goes through the logger `mkdocs.plugins.fieldguide`, so `mkdocs build -q`
silences it (the live line is drawn only when that logger would show INFO).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time

from mkdocs.plugins import get_plugin_logger

log = get_plugin_logger("fieldguide")


class Progress:
    def __init__(self, total: int, stream=None, live: bool | None = None, logger=log, label: str = "") -> None:
        self.total = total
        self.label = label  # before each line: what this run is for (a serve run ahead of its rebuild)
        self.log = logger
        self.stream = stream or sys.stderr
        enabled = logger.isEnabledFor(logging.INFO)
        if live is None:
            live = self.stream.isatty() and not os.environ.get("CI")
        self.live = live and enabled
        self.done = 0
        self.hits = 0
        self.running: list[str] = []
        self.started = time.perf_counter()
        self._lock = threading.Lock()

    def _draw(self) -> None:
        running = ", ".join(self.running) or "-"
        text = f"fieldguide: {self.done}/{self.total} done, {self.hits} cached; running: {running}"
        self.stream.write("\r\x1b[2K" + text[:120])
        self.stream.flush()

    def start(self, name: str) -> None:
        with self._lock:
            self.running.append(name)
            if self.live:
                self._draw()

    def finish(self, name: str, cached: bool, seconds: float) -> None:
        with self._lock:
            if name in self.running:
                self.running.remove(name)
            self.done += 1
            self.hits += cached
            if self.live:
                self._draw()
            elif not cached:
                self.log.info(f"{self.label}[{self.done}/{self.total}] {name} ran in {seconds:.1f}s")

    def warn(self, text: str) -> None:
        """A problem the build survives (an unwritable cache), on a line of its own."""
        with self._lock:
            if self.live:
                self.stream.write("\r\x1b[2K")
                self.stream.flush()
            self.log.info(f"warning: {text}")  # INFO: --strict would turn a WARNING into a failed build

    def summary(self) -> str:
        elapsed = time.perf_counter() - self.started
        return f"{self.label}executed {self.done - self.hits}, reused {self.hits} from cache, {self.total} snippets in {elapsed:.1f}s"

    def close(self) -> None:
        with self._lock:
            if self.live:
                self.stream.write("\r\x1b[2K")
                self.stream.flush()
            self.log.info(self.summary())
