"""The jobs the guide runs: every snippet fence of its pages, plus the gym's scenarios, and which
of them a record has no current result for.

Collected from the files on disk, as a build collects them from MkDocs' pages: the build (the
plugin), the release matrix (measure.py) and the tests share these definitions.
"""

from __future__ import annotations

from pathlib import Path

from ..run.collect import Job, collect
from ..run.execute import source_digest
from ..run.identity import SnippetId
from ..run.record import BuildRecord
from . import gym


def page_texts(docs_dir: Path, label: str) -> dict[str, str]:
    """Every Markdown page under docs_dir, keyed as a build names it (docs/guards.md)."""
    return {
        f"{label}/{p.relative_to(docs_dir).as_posix()}": p.read_text(encoding="utf-8")
        for p in sorted(docs_dir.rglob("*.md"))
    }


def jobs_for_pages(pages: dict[str, str], docs_label: str, snippets_dir: Path) -> list[Job]:
    """The jobs of a site: the pages' snippet fences plus the gym's scenarios (on the gym page)."""
    gym_page = f"{docs_label}/{gym.GYM_PAGE}"
    drills = gym.load_drills(snippets_dir) if gym_page in pages else []
    extra = [(gym_page, s.fence) for d in drills for s in d.scenarios]
    return collect(pages, snippets_dir, extra)


def site_jobs(root: Path) -> list[Job]:
    return jobs_for_pages(page_texts(root / "docs", "docs"), "docs", root / "snippets")


def stale_entries(build: BuildRecord, jobs: list[Job], snippets_dir: Path) -> dict[str, list[str]]:
    """Which of today's jobs the record has no current, passing result for: stale, missing, failed."""
    have: dict[SnippetId, object] = {s.id: s for s in build.snippets}
    out: dict[str, list[str]] = {"stale": [], "missing": [], "failed": []}
    for job in jobs:
        entry = have.get(job.id)
        label = job.id.label()
        if entry is None:
            out["missing"].append(label)
        elif entry.digest != source_digest(job, snippets_dir):
            out["stale"].append(label)
        elif entry.exit_code != job.exit:  # failed on that release: measured again until it runs
            out["failed"].append(label)
    return out
