"""The build in progress, as page code sees it: one object, one accessor.

The plugin owns a `BuildContext` for each build: it makes one when the record is ready (on_files),
activates it for the rendering of the pages, and deactivates it when the build ends. Code that
MkDocs calls without a way to pass arguments — the `snippet` fence's formatter and the pages'
`python exec="on"` blocks (markdown-exec) — reads it through `active()`; nothing else is shared
between modules. `fieldguide.record.result/current/base` are shortcuts to it for page code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .record import BuildRecord, SnippetResult
    from .render import RenderState
    from .settings import Chapter, Settings


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
