"""serve's file watcher (site/serving.py EventsOrPolling): by inotify where it can, polling otherwise.

Real watchdog observers on a real directory: what a save, a read and a rename deliver.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest
from watchdog.events import FileSystemEventHandler
from watchdog.observers.polling import PollingObserver

from fieldguide.site import serving

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


class Server:  # the two attributes of MkDocs' LiveReloadServer that serving touches
    def __init__(self, timeout: float = 0.5) -> None:
        self.observer = PollingObserver(timeout=timeout)


def _watch(server: Server, directory: Path) -> tuple[list, list, threading.Event]:
    changes: list[tuple[str, str]] = []
    saved: list[Path] = []
    seen = threading.Event()
    handler = FileSystemEventHandler()

    def on_any_event(event):
        changes.append((event.event_type, event.src_path))

    handler.on_any_event = on_any_event
    server.observer.schedule(handler, str(directory), recursive=True)
    serving.watch_by_events(server)
    serving.on_saved(server, directory, lambda path: (saved.append(path), seen.set()))
    return changes, saved, seen


def _stop(server: Server) -> None:
    server.observer.stop()
    server.observer.join()


def test_a_save_is_seen_by_inotify_and_a_read_asks_for_nothing(tmp_path):
    server = Server()
    changes, saved, seen = _watch(server, tmp_path)
    server.observer.start()
    try:
        assert server.observer.kind == "inotify"
        snippet = tmp_path / "sub" / "a.py"
        snippet.parent.mkdir()
        time.sleep(0.2)  # the new folder's watch
        snippet.write_text("print(1)\n")
        assert seen.wait(5)
        assert saved == [snippet.resolve()]  # once: when the file was closed, not at each write
        time.sleep(0.3)
        before = list(changes)
        snippet.read_text()  # what every build does to docs/ and snippets/
        time.sleep(0.5)
        assert changes == before, changes[len(before) :]
        moved = tmp_path / "b.py"
        snippet.rename(moved)  # an editor that saves by renaming a temporary file
        deadline = time.monotonic() + 5
        while moved.resolve() not in saved and time.monotonic() < deadline:
            time.sleep(0.05)
        assert saved == [snippet.resolve(), moved.resolve()]
    finally:
        _stop(server)


_NO_ROOM_FOR_INOTIFY = """
import os, resource, sys, time
from pathlib import Path
from watchdog.events import FileSystemEventHandler
from watchdog.observers.polling import PollingObserver
from fieldguide.site import serving

class Server:
    observer = PollingObserver(timeout=0.1)

directory, saved = Path(sys.argv[1]), []
server = Server()
server.observer.schedule(FileSystemEventHandler(), str(directory), recursive=True)
serving.watch_by_events(server)
serving.on_saved(server, directory, saved.append)
open_fds = {int(fd) for fd in os.listdir("/proc/self/fd")}
open_fds = {fd for fd in open_fds if os.path.exists(f"/proc/self/fd/{fd}")}  # (not listdir's own)
limit = next(n for n in range(4096) if n - len({fd for fd in open_fds if fd < n}) == 2)
before = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, before[1]))
server.observer.start()  # inotify needs three descriptors at once, polling none to start
resource.setrlimit(resource.RLIMIT_NOFILE, before)
(directory / "a.py").write_text("print(1)")
deadline = time.monotonic() + 5
while not saved and time.monotonic() < deadline:
    time.sleep(0.05)
print(server.observer.kind, [p.name for p in saved])
server.observer.stop()
"""


def test_where_inotify_cannot_start_it_polls_with_every_watch(tmp_path):
    import logging
    import subprocess

    script = "import logging; logging.basicConfig(level=logging.INFO)\n" + _NO_ROOM_FOR_INOTIFY
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.split("\n")[0] == "polling ['a.py']", out.stdout + out.stderr
    assert "watching for changes by polling" in out.stderr and "Too many open files" in out.stderr
    assert logging  # (the child logs; this process keeps its own configuration)
