"""What `mkdocs serve` keeps from one rebuild to the next, so an edit costs what it changes.

A rebuild still renders every page from the new record (nothing shown is older than a full build
would show); this module only keeps *content-addressed* work, which cannot go stale:

    FileStore   the generated files (every release's outputs, snippet copies, zips, notebooks):
                each content is written once per session, under its hash, and every rebuild
                hard-links it into the new site instead of writing ~1,400 small files again.

The watcher polls every 0.15 s instead of MkDocs' 0.5 s (poll_faster): on average a third of a
second sooner from a save to the start of the rebuild.

The site directory itself is swapped in by plugin.py as in any build; the previous one is
removed in the background (nothing serves it any more).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path

from mkdocs.structure.files import File


class FileStore:
    """Contents by hash, in a directory on the site's filesystem (hard links need one filesystem)."""

    def __init__(self, parent: Path) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix=".fieldguide-serve-store-", dir=parent))
        self._lock = threading.Lock()

    def path_of(self, content: bytes) -> Path:
        path = self.dir / hashlib.sha256(content).hexdigest()
        with self._lock:
            if not path.exists():
                tmp = path.with_suffix(".tmp")
                tmp.write_bytes(content)
                os.chmod(tmp, 0o444)  # a link into the site must never be written through
                os.replace(tmp, path)
        return path

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


class StoredFile(File):
    """A generated file whose copy into the site is a hard link to its content in a FileStore."""

    store: FileStore | None = None

    def copy_file(self, dirty: bool = False) -> None:
        content = self._content
        if self.store is None:
            return super().copy_file(dirty)
        if content is None:
            content = Path(self.abs_src_path).read_bytes()
        elif isinstance(content, str):
            content = content.encode("utf-8")
        dest = self.abs_dest_path
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        try:
            if os.path.lexists(dest):
                os.unlink(dest)
            os.link(self.store.path_of(content), dest)
        except OSError:  # another filesystem, no hard links: write it as any build does
            super().copy_file(dirty)


def generated(config, src_uri: str, store: FileStore | None, **kwargs) -> File:
    """File.generated, linked from `store` when there is one (serve); a plain generated file otherwise."""
    if store is None:
        return File.generated(config, src_uri, **kwargs)
    file = StoredFile.generated(config, src_uri, **kwargs)
    file.store = store
    return file


def remove_later(path: Path) -> None:
    """Remove a directory in the background: a served site that was just replaced."""
    threading.Thread(target=shutil.rmtree, args=(path,), kwargs={"ignore_errors": True}, daemon=True).start()


POLL_SECONDS = 0.15


def poll_faster(server, seconds: float = POLL_SECONDS) -> None:
    """Make MkDocs' file watcher (a watchdog PollingObserver, 0.5 s) poll every `seconds`.

    Called from on_serve, before the observer starts: the watches scheduled so far and those
    scheduled later (the snippets) all poll at the new interval. Watchdog keeps the interval in
    `_timeout` (observer and emitters); without it, serving simply polls at MkDocs' pace.
    """
    observer = getattr(server, "observer", None)
    if observer is None or not hasattr(observer, "_timeout"):
        return
    observer._timeout = seconds
    for emitter in getattr(observer, "emitters", ()):
        if hasattr(emitter, "_timeout"):
            emitter._timeout = seconds
