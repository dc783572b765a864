"""Stage 4 — render: the snippet fence's formatter, registered with pymdownx.superfences.

Rendering never executes anything: the plugin ran every snippet before pages are rendered, and
the formatter reads the result from the current build record.

Whatever a snippet's source, output, title, path or environment contain, the page shows it as
text: source and output are highlighted by the same highlighter as every other code block on the
site (superfences' own), which escapes them, and are never passed through Markdown again (so no
backtick run, HTML, `--8<--` include or markdown-exec comment in them is interpreted). The source
shown is the file's exact text, checked against the digest of the source that ran.

Any error while rendering a fence is kept in the RenderState and fails the build (plugin.py),
naming the page: superfences itself would swallow it and print the raw fence.
"""

from __future__ import annotations

import html
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import record
from .collect import read_source, source_digest
from .fences import FenceError, SnippetFence, parse_options


SNIPPETS_DIR: Path | None = None  # set by the plugin; read by page code (docs/gym) that lists snippets


@dataclass
class RenderState:
    """What the formatter needs from the build, and what it reports back (one per build)."""

    snippets_dir: Path
    page: str = ""
    rendered: int = 0
    errors: list[str] = field(default_factory=list)

    def start_page(self, page: str) -> None:
        self.page, self.rendered, self.errors = page, 0, []


def command_line(path: str, env: dict[str, str]) -> str:
    """The command a reader runs to get the same output."""
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"{prefix} python {path}".strip()


def source_lines(fence: SnippetFence, snippets_dir: Path) -> str:
    text = read_source(snippets_dir / fence.path)
    if fence.lines:
        start, end = fence.lines
        text = "\n".join(text.splitlines()[start - 1 : end])
    return text.rstrip("\n")


_BLOCK_START = re.compile(r'^(<div class="[^"]*highlight[^"]*">)')


def code_html(md, code: str, language: str, title: str) -> str:
    """A highlighted, escaped code block as the site's other code blocks look, with a text title."""
    fences = md.preprocessors["fenced_code_block"]
    block = fences.highlight(src=code, language=language, options={}, md=md, classes=[], id_value="", attrs={})
    if title:
        span = f'<span class="filename">{html.escape(title)}</span>'
        block, n = _BLOCK_START.subn(lambda m: m.group(1) + span, block, count=1)
        if not n:
            block = f"<p>{span}</p>{block}"
    return block


def validator(language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any], md) -> bool:
    try:
        options["fence"] = parse_options(dict(inputs))
    except FenceError as exc:  # collect.py reports these first, with the page and line
        options["fence_error"] = str(exc)
    inputs.clear()
    return True


def formatter(source: str, language: str, css_class: str, options: dict[str, Any], md, state: RenderState, **kwargs: Any) -> str:
    state.rendered += 1
    try:
        return _render(options, md, state)
    except Exception as exc:  # noqa: BLE001 - reported by the plugin as a build failure
        state.errors.append(f"{type(exc).__name__}: {exc}" if not isinstance(exc, (FenceError, LookupError)) else str(exc))
        return f'<p class="fieldguide-error">{html.escape(str(exc))}</p>'


def _render(options: dict[str, Any], md, state: RenderState) -> str:
    if "fence_error" in options:
        raise FenceError(options["fence_error"])
    fence: SnippetFence = options["fence"]
    env = fence.run_env
    display = f"snippets/{fence.path}"
    result = next((s for s in record.current().snippets if s.path == display and s.env == env), None)
    if result is None:
        raise LookupError(f"{display} with env {env} was not executed in this build")
    if fence.show == "none":  # executed for the chapter's data; the page renders it its own way
        return ""
    if result.digest and source_digest(state.snippets_dir / fence.path, state.snippets_dir) != result.digest:
        raise LookupError(f"{display} changed on disk after it ran, so the page would not show the source that ran; build again")
    parts = []
    if fence.show in ("both", "source"):
        title = fence.title or (display + (f" (lines {fence.lines[0]}-{fence.lines[1]})" if fence.lines else ""))
        parts.append(code_html(md, source_lines(fence, state.snippets_dir), "python", title))
    if fence.show in ("both", "output"):
        body = result.output.rstrip("\n") if result.output.strip() else "(this snippet printed nothing)"
        parts.append(code_html(md, body, "text", "$ " + command_line(result.path, result.env)))
    return "\n".join(parts)
