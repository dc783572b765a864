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

A hit marks its entry as used (its mtime); after each build the plugin prunes the least recently
used entries down to `cache_max_mb` (settings.py). To look at it or clear it by hand:

    nox -s cache -- info                   # python -m fieldguide.run.cache info
    nox -s cache -- prune --max-mb 100 --older-than 30
    nox -s cache -- clear
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .. import ENGINE_VERSION


class CacheUnwritable(OSError):
    """The cache directory cannot be written; the message says where and why."""


@dataclass(frozen=True)
class Toolchain:
    torch: str
    python: str
    engine: str = ENGINE_VERSION
    # torch.version's build attributes (git_version, cuda, hip, ...): two builds of one version
    # number (a CPU and a CUDA wheel, a local build) are two toolchains
    build: tuple[tuple[str, str], ...] = ()


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
    if toolchain.build:  # (a key made without a torch build to name keeps its earlier form)
        material["build"] = [list(kv) for kv in toolchain.build]
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
        found = self.entry(key)
        return found[0] if found else None

    def entry(self, key: str) -> tuple[dict, str] | None:
        """(payload, its checksum) stored under key, or None for a miss (absent, truncated, corrupted).
        The checksum names the payload's content: two reads with the same one read the same run."""
        path = self._file(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            if entry["key"] == key and entry["checksum"] == _checksum(entry["payload"]):
                try:
                    os.utime(path)  # recently used: pruning keeps it
                except OSError:
                    pass
                return entry["payload"], entry["checksum"]
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
            raise CacheUnwritable(
                f"cannot write the execution cache in {self.directory}: {exc.strerror or exc}"
            ) from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(entry, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    # -- inspecting and pruning --------------------------------------------------------------
    def entries(self) -> list[tuple[Path, int, float]]:
        """(file, bytes, last used) for every entry, least recently used first."""
        out = []
        for path in self.directory.glob("??/*.json"):
            try:
                st = path.stat()
            except FileNotFoundError:
                continue
            out.append((path, st.st_size, st.st_mtime))
        return sorted(out, key=lambda e: (e[2], e[0].name))

    def info(self) -> dict:
        entries = self.entries()
        return {
            "directory": str(self.directory),
            "entries": len(entries),
            "bytes": sum(e[1] for e in entries),
            "oldest_use": min((e[2] for e in entries), default=None),
            "newest_use": max((e[2] for e in entries), default=None),
        }

    def prune(self, max_bytes: int | None = None, older_than_days: float | None = None) -> int:
        """Remove entries unused for older_than_days, then the least recently used until the rest fit
        in max_bytes. Returns how many were removed."""
        entries = self.entries()
        total = sum(e[1] for e in entries)
        cutoff = time.time() - older_than_days * 86400 if older_than_days is not None else None
        removed = 0
        for path, size, used in entries:
            too_old = cutoff is not None and used < cutoff
            too_big = max_bytes is not None and total > max_bytes
            if not (too_old or too_big):
                continue
            path.unlink(missing_ok=True)
            total -= size
            removed += 1
        return removed

    def clear(self) -> int:
        n = len(self.entries())
        if self.directory.is_dir():
            shutil.rmtree(self.directory)
        return n


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MB"


def main(argv: list[str] | None = None) -> int:
    from .settings import load

    parser = argparse.ArgumentParser(
        prog="fieldguide-cache", description="Inspect, prune or clear the execution cache."
    )
    parser.add_argument("--dir", help="the cache directory (default: mkdocs.yml's cache_dir, or FIELDGUIDE_CACHE_DIR)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="entries, size and age")
    prune = sub.add_parser("prune", help="remove old or least recently used entries")
    prune.add_argument("--max-mb", type=float, default=None, help="keep at most this many megabytes")
    prune.add_argument("--older-than", type=float, default=None, metavar="DAYS", help="remove entries unused for DAYS")
    sub.add_parser("clear", help="remove every entry")
    args = parser.parse_args(argv)
    directory = Path(args.dir) if args.dir else load(Path.cwd()).cache_dir
    cache = Cache(directory)
    if args.command == "info":
        i = cache.info()
        age = (
            ""
            if i["oldest_use"] is None
            else f", least recently used {(time.time() - i['oldest_use']) / 86400:.1f} days ago"
        )
        print(f"{i['directory']}: {i['entries']} entries, {_mb(i['bytes'])}{age}")
    elif args.command == "prune":
        if args.max_mb is None and args.older_than is None:
            parser.error("prune needs --max-mb and/or --older-than")
        max_bytes = None if args.max_mb is None else int(args.max_mb * 1024 * 1024)
        n = cache.prune(max_bytes=max_bytes, older_than_days=args.older_than)
        print(f"{directory}: removed {n} entries; {_mb(cache.info()['bytes'])} left")
    else:
        print(f"{directory}: removed {cache.clear()} entries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
