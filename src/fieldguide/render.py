"""Stage 4 — render: the snippet fence's formatter, built on markdown-exec's formatter API.

Rendering never executes anything: the plugin ran every snippet before pages are rendered, and
the formatter reads the result from the build in progress (context.active()). markdown-exec's `base_format`
lays out source and output like every other markdown-exec fence on the site.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from markdown_exec import base_format

from . import record
from .context import active
from .fences import FenceError, SnippetFence, parse_options
from .identity import code_fence


def output_markdown(result: record.SnippetResult) -> str:
    body = result.output if result.output.strip() else "(this snippet printed nothing)"
    return code_fence(body, "text", "$ " + result.id.command_line(), minimum=4)


def source_lines(fence: SnippetFence, snippets_dir: Path) -> str:
    text = (snippets_dir / fence.path).read_text(encoding="utf-8")
    if fence.lines:
        start, end = fence.lines
        text = "\n".join(text.splitlines()[start - 1 : end])
    return text.rstrip("\n")


def validator(language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any], md) -> bool:
    try:
        options["fence"] = parse_options(dict(inputs))
    except FenceError as exc:  # collect.py reports these first, with the page name
        options["fence_error"] = str(exc)
    inputs.clear()
    return True


def formatter(source: str, language: str, css_class: str, options: dict[str, Any], md, **kwargs: Any) -> str:
    if "fence_error" in options:
        raise FenceError(options["fence_error"])
    fence: SnippetFence = options["fence"]
    build = active()
    result = next((s for s in build.record.snippets if s.id == fence.id), None)
    if result is None:
        raise LookupError(f"{fence.id.label()} was not executed in this build")
    display = fence.id.display
    title = fence.title or (display + (f" (lines {fence.lines[0]}-{fence.lines[1]})" if fence.lines else ""))
    code = source_lines(fence, build.settings.snippets_dir)

    if fence.show == "none":  # executed for the chapter's data; the page renders it its own way
        return ""
    output = "" if fence.show == "source" else output_markdown(result)
    with_source = fence.show in ("both", "source")
    return base_format(
        language="python",
        run=lambda *a, **k: output,
        code=code,
        md=md,
        source="above" if with_source else "",
        extra={"title": title} if with_source else {},
    )
