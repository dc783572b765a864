"""Stage 1 — collect: every snippet fence the pages use, grouped into execution jobs."""

from __future__ import annotations

import ast
import functools
import hashlib
import io
import json
import os
import time
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from .fences import FoundFence, SnippetFence, find_fences
from .identity import SnippetId


class CollectError(Exception):
    """A page asks for something the build cannot provide."""


@dataclass
class Job:
    """One execution: a snippet file under one environment, shown by one or more pages."""

    path: str  # relative to the snippets directory
    env: dict[str, str]
    file: Path
    timeout: float
    exit: int
    pages: list[str] = field(default_factory=list)

    @property
    def id(self) -> SnippetId:
        return SnippetId.of(self.path, self.env)

    @property
    def key(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        return self.id.key

    @property
    def display_path(self) -> str:
        return self.id.display


def collect(pages: dict[str, str], snippets_dir: Path, extra: list[tuple[str, SnippetFence]] = ()) -> list[Job]:
    """Map page path -> markdown text to the list of jobs, in a deterministic order.

    `extra` adds fences a page uses without spelling them out (the gym's drills), as (page, fence).
    Raises CollectError naming every bad fence (unknown option, missing snippet, ...).
    """
    jobs: dict[tuple, Job] = {}
    problems: list[str] = []
    found_fences = [(page, found) for page in sorted(pages) for found in find_fences(pages[page])]
    found_fences += [(page, FoundFence(fence, 0)) for page, fence in extra]
    for page, found in found_fences:
        where = f"{page}:{found.line}" if found.line else page
        if found.fence is None:
            problems.append(f"{where}: snippet fence: {found.error}")
            continue
        fence: SnippetFence = found.fence
        file = snippets_dir / fence.path
        if not file.is_file():
            problems.append(f"{where}: snippet fence names {fence.id.display}, which does not exist")
            continue
        outside = escapes_repository(file, snippets_dir)
        if outside:
            problems.append(f"{where}: snippets/{fence.path} {outside}; a snippet must live in the repository")
            continue
        job = jobs.get(fence.key)
        if job is None:
            job = jobs[fence.key] = Job(fence.path, fence.run_env, file, fence.timeout, fence.exit)
        elif job.exit != fence.exit:
            problems.append(
                f"{where}: {fence.id.display} is declared with exit={fence.exit} here "
                f"and exit={job.exit} on {job.pages[0]}"
            )
            continue
        job.timeout = max(job.timeout, fence.timeout)
        if page not in job.pages:
            job.pages.append(page)
    if problems:
        raise CollectError("\n".join(problems))
    return sorted(jobs.values(), key=lambda j: j.key)


def escapes_repository(file: Path, snippets_dir: Path) -> str:
    """Why `file` is not a file of the repository holding snippets_dir ("" if it is)."""
    repository = snippets_dir.resolve().parent
    real = file.resolve()
    if not real.is_relative_to(repository):
        return f"is a link to {real}, outside the repository"
    return ""


def read_source(file: Path) -> str:
    """A Python file's text, decoded as Python decodes it (a coding cookie, else UTF-8)."""
    data = Path(file).read_bytes()
    try:
        return _decode(data)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return data.decode("utf-8", errors="replace")


def _decode(data: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


_LISTINGS: dict[str, tuple[int, frozenset[str], frozenset[str]]] = {}


def _listing(directory: str) -> tuple[frozenset[str], frozenset[str]]:
    """(files, directories) in a directory, kept while its modification time stays (an entry added,
    removed or renamed changes it): every build looks up each snippet's imports in the same few.
    A directory changed in the last two seconds is listed again each time (a file system whose times
    are coarse could change it again within the same tick)."""
    try:
        mtime = os.stat(directory).st_mtime_ns
    except OSError:
        return frozenset(), frozenset()
    kept = _LISTINGS.get(directory)
    if kept is None or kept[0] != mtime:
        files, dirs = set(), set()
        try:
            with os.scandir(directory) as it:
                for entry in it:
                    try:
                        (dirs if entry.is_dir() else files if entry.is_file() else set()).add(entry.name)
                    except OSError:
                        continue
        except OSError:
            return frozenset(), frozenset()
        kept = (mtime, frozenset(files), frozenset(dirs))
        if time.time_ns() - mtime > 2_000_000_000:
            if len(_LISTINGS) > 4096:
                _LISTINGS.clear()
            _LISTINGS[directory] = kept
    return kept[1], kept[2]


def _module_files(base: Path, dotted: str) -> list[Path]:
    """Files of a local module or package `dotted` found under base (a package: all its .py files)."""
    parts = dotted.split(".")
    for n in range(len(parts), 0, -1):
        parent = os.path.join(base, *parts[: n - 1])
        files, dirs = _listing(parent)
        name = parts[n - 1]
        if name in dirs and "__init__.py" in _listing(os.path.join(parent, name))[0]:
            top = base / parts[0]
            return sorted(p for p in top.rglob("*.py") if p.is_file())
        if f"{name}.py" in files:
            return [Path(parent, f"{name}.py")]
    return []


def sources(file: Path, snippets_dir: Path) -> tuple[str, dict[str, str]]:
    """A snippet's source and those of the local modules it imports (relative path -> text)."""
    imports = {str(p.relative_to(snippets_dir)): read_source(p) for p in local_imports(file, snippets_dir)}
    return read_source(file), imports


def source_digest(file: Path, snippets_dir: Path) -> str:
    """What a result was measured from: the snippet's source and its local imports (no toolchain)."""
    return digest_of(*sources(file, snippets_dir))


def digest_of(source: str, imports: dict[str, str]) -> str:
    """source_digest of a source and its imports already read."""
    material = json.dumps({"source": source, "imports": sorted(imports.items())}, sort_keys=True)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()[:16]


@functools.lru_cache(maxsize=1024)  # by source text: every build (and every serve rebuild) asks again
def _imported_names(source: str) -> tuple[str, ...] | None:
    """The absolute module names a source imports, sorted (None: it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return tuple(sorted(names))


def local_imports(file: Path, snippets_dir: Path, _seen: set[Path] | None = None) -> list[Path]:
    """Modules and packages under snippets/ that a snippet imports (transitively), for the cache key.

    Imports the source does not spell out (importlib, data files) are caught at run time instead:
    the cache entry lists every file under the repository the snippet read.
    """
    seen = _seen if _seen is not None else set()
    names = _imported_names(read_source(file))
    if names is None:
        return sorted(seen)
    for name in names:
        for base in (file.parent, snippets_dir):
            found = [p for p in _module_files(base, name) if p != file]
            if found:
                for candidate in found:
                    if candidate not in seen and candidate.resolve().is_relative_to(snippets_dir.resolve().parent):
                        seen.add(candidate)
                        local_imports(candidate, snippets_dir, seen)
                break
    return sorted(seen)
