"""The build in progress, as page code sees it: one object, one accessor.

The plugin owns a `BuildContext` for each build: it makes one when the record is ready (on_files),
activates it for the rendering of the pages, and deactivates it when the build ends. Code that
MkDocs calls without a way to pass arguments — the `snippet` fence's formatter and the pages'
`python exec="on"` blocks (markdown-exec) — reads it through `active()`; nothing else is shared
between modules. `current()`, `base()` and `result()` below are shortcuts to it for page code.

The state objects the build carries (RenderState, ReplayState) are defined here, below both the
guide's code and the site's, so that each reads them without importing the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .record import BuildRecord, SnippetResult
from .settings import Chapter, Settings


# -- copies rendered from a release's record (FIELDGUIDE_REPLAY) --------------------------------
@dataclass
class ReplayState:
    """What a replayed record lacks against today's snippets: set by the plugin, read here."""

    torch: str
    status: dict[tuple, str] = field(default_factory=dict)  # (path, env) -> stale | unverified | missing | failed
    pages: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # docs/x.md -> [(status, label)]
    today: dict[tuple, str] = field(default_factory=dict)  # (path, env) -> digest of today's source

    def mark(self, key: tuple, status: str, label: str, pages: list[str]) -> None:
        self.status[key] = status
        for page in pages:
            self.pages.setdefault(page, []).append((status, label))

    @property
    def command(self) -> str:
        return f"nox -s matrix -- {self.torch}"


@dataclass
class RenderState:
    """Everything rendering keeps for one build (the plugin makes one per build and passes it on;
    page code reaches it as `context.active().render`): what the formatter needs, and what it
    reports back. No module-level state: two builds in one process never share any of it."""

    snippets_dir: Path
    replay: ReplayState | None = None  # set when the build renders from a record (FIELDGUIDE_REPLAY)
    page: str = ""
    page_url: str = ""  # the page being rendered
    rendered: int = 0
    errors: list[str] = field(default_factory=list)
    anchors: dict[str, int] = field(default_factory=dict)  # ids given on the page being rendered
    places: dict[str, str] = field(
        default_factory=dict
    )  # snippet key -> "page/#anchor" where its output is first shown
    # what this build's record took that no text covers (guide.outcomes.Uncovered, set in on_files):
    # the pages show the `unrecognised` text there; the build report and the end of the build list them
    uncovered: list = field(default_factory=list)

    def start_page(self, page: str, url: str = "") -> None:
        self.page, self.page_url, self.rendered, self.errors, self.anchors = page, url, 0, [], {}


@dataclass(frozen=True)
class BuildContext:
    settings: Settings
    record: BuildRecord
    base: BuildRecord | None = None  # an earlier build to compare with (FIELDGUIDE_BASE_RECORD)
    render: RenderState | None = None  # the pages' rendering state: replay notices, anchors, places

    def result(self, path: str, **env: str) -> SnippetResult:
        return self.record.find(path, **env)

    def chapter(self, slug: str) -> Chapter:
        return self.settings.chapter(slug)


_active: BuildContext | None = None


def activate(context: BuildContext | None) -> None:
    """Called by the plugin only: the build whose pages are being rendered (None when it ends)."""
    global _active
    _active = context


def active() -> BuildContext:
    if _active is None:
        raise RuntimeError(
            "no build in progress: results exist only while mkdocs builds the site with the fieldguide plugin"
        )
    return _active


# -- shortcuts for page code ---------------------------------------------------------------------
def current() -> BuildRecord:
    return active().record


def base() -> BuildRecord | None:
    """The record of an earlier build to compare this one with (nox -s docs -- --base OLD/record.json)."""
    return active().base


def result(path: str, **env: str) -> SnippetResult:
    """Shortcut for page code: the result of a snippet in the current build."""
    return current().find(path, **env)
