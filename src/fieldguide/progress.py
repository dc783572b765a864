"""Progress of the execute stage: a live line on a terminal, plain lines elsewhere (CI, logs)."""

from __future__ import annotations

import os
import sys
import threading
import time


class Progress:
    def __init__(self, total: int, stream=None, live: bool | None = None) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        if live is None:
            live = self.stream.isatty() and not os.environ.get("CI")
        self.live = live
        self.done = 0
        self.hits = 0
        self.running: list[str] = []
        self.started = time.perf_counter()
        self._lock = threading.Lock()

    def _emit(self, text: str) -> None:
        if self.live:
            width = 120
            self.stream.write("\r\x1b[2K" + text[:width])
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def start(self, name: str) -> None:
        with self._lock:
            self.running.append(name)
            if self.live:
                self._emit(self._status())

    def finish(self, name: str, cached: bool, seconds: float) -> None:
        with self._lock:
            if name in self.running:
                self.running.remove(name)
            self.done += 1
            self.hits += cached
            how = "cached" if cached else f"ran in {seconds:.1f}s"
            if self.live:
                self._emit(self._status())
            else:
                self._emit(f"fieldguide: [{self.done}/{self.total}] {name} {how}")

    def warn(self, text: str) -> None:
        """A problem the build survives (an unwritable cache), on a line of its own."""
        with self._lock:
            if self.live:
                self.stream.write("\r\x1b[2K")
            self.stream.write(f"fieldguide: warning: {text}\n")
            self.stream.flush()

    def _status(self) -> str:
        running = ", ".join(self.running) or "-"
        return f"fieldguide: {self.done}/{self.total} done, {self.hits} cached; running: {running}"

    def close(self) -> None:
        elapsed = time.perf_counter() - self.started
        summary = (
            f"fieldguide: executed {self.done - self.hits}, reused {self.hits} from cache, "
            f"{self.total} snippets in {elapsed:.1f}s"
        )
        if self.live:
            self.stream.write("\r\x1b[2K")
        self.stream.write(summary + "\n")
        self.stream.flush()
