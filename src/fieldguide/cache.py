"""Content-addressed cache of execution results.

The key covers everything that can change what a snippet prints: its source, the sources of
local modules it imports from snippets/, its environment, torch's version, Python's version and
the engine's version. Entries are written atomically and carry a checksum of their payload; an
entry that is truncated, corrupted or written for another key is treated as a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import ENGINE_VERSION


@dataclass(frozen=True)
class Toolchain:
    torch: str
    python: str
    engine: str = ENGINE_VERSION


def cache_key(source: str, imports: dict[str, str], env: dict[str, str], toolchain: Toolchain) -> str:
    material = {
        "engine": toolchain.engine,
        "torch": toolchain.torch,
        "python": toolchain.python,
        "source": source,
        "imports": sorted(imports.items()),
        "env": sorted(env.items()),
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


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
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            pass
        path.unlink(missing_ok=True)  # corrupted: drop it so the fresh result replaces it
        return None

    def put(self, key: str, payload: dict) -> None:
        path = self._file(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = {"key": key, "checksum": _checksum(payload), "payload": payload}
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(entry, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
