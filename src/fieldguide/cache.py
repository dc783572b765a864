"""Content-addressed cache of execution results.

The key covers what is known before a snippet runs: its path, its source, the sources of the
local modules and packages it imports from snippets/, its environment (the fence's variables on
top of a fixed base, see executors.base.child_env), torch's version, Python's version and the
engine's version. An entry also lists every file under the repository the snippet read while it
ran (data files, modules it imported dynamically) with a hash of each; execute.py treats the entry
as a miss when any of them changed.

Entries are written atomically and carry a checksum of their payload; an entry that is truncated,
corrupted or written for another key is treated as a miss. A cache directory that cannot be
written is reported once, and the build goes on without storing.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import ENGINE_VERSION


class CacheUnwritable(OSError):
    """The cache directory cannot be written; the message says where and why."""


@dataclass(frozen=True)
class Toolchain:
    torch: str
    python: str
    engine: str = ENGINE_VERSION


def cache_key(source: str, imports: dict[str, str], env: dict[str, str], toolchain: Toolchain, path: str = "") -> str:
    material = {
        "engine": toolchain.engine,
        "torch": toolchain.torch,
        "python": toolchain.python,
        "path": path,
        "source": source,
        "imports": sorted(imports.items()),
        "env": sorted(env.items()),
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


def file_hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    except OSError as exc:
        return f"unreadable: {exc.errno}"


def _checksum(payload: dict) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


class Cache:
    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def _file(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        """The payload stored under key, or None for a miss (absent, truncated, corrupted)."""
        path = self._file(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            if entry["key"] == key and entry["checksum"] == _checksum(entry["payload"]):
                return entry["payload"]
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            return None
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            pass
        try:
            path.unlink(missing_ok=True)  # corrupted: drop it so the fresh result replaces it
        except OSError:
            pass
        return None

    def put(self, key: str, payload: dict) -> None:
        """Store payload under key. Raises CacheUnwritable (an OSError) naming the directory."""
        path = self._file(key)
        entry = {"key": key, "checksum": _checksum(payload), "payload": payload}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        except OSError as exc:
            raise CacheUnwritable(f"cannot write the execution cache in {self.directory}: {exc.strerror or exc}") from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(entry, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
