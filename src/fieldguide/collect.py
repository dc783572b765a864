"""Stage 1 — collect: every snippet fence the pages use, grouped into execution jobs."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from .identity import SnippetId
from .fences import FoundFence, SnippetFence, find_fences


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


def local_imports(file: Path, snippets_dir: Path, _seen: set[Path] | None = None) -> list[Path]:
    """Modules under snippets/ that a snippet imports (transitively), for the cache key."""
    seen = _seen if _seen is not None else set()
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"))
    except SyntaxError:
        return sorted(seen)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    for name in sorted(names):
        for base in (file.parent, snippets_dir):
            candidate = base / f"{name}.py"
            if candidate.is_file() and candidate not in seen and candidate != file:
                seen.add(candidate)
                local_imports(candidate, snippets_dir, seen)
                break
    return sorted(seen)
