"""Stage 4 — render: the snippet fence's formatter, built on markdown-exec's formatter API.

Rendering never executes anything: the plugin ran every snippet before pages are rendered, and
the formatter reads the result from the current build record. markdown-exec's `base_format`
lays out source and output like every other markdown-exec fence on the site.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from markdown_exec import base_format

from . import record
from .fences import FenceError, SnippetFence, parse_options

SNIPPETS_DIR: Path | None = None  # set by the plugin


def command_line(path: str, env: dict[str, str]) -> str:
    """The command a reader runs to get the same output."""
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"{prefix} python {path}".strip()


def fenced(language: str, body: str, title: str = "") -> str:
    ticks = "`" * max(4, max((len(r) + 1 for r in body.split("\n") if set(r) == {"`"}), default=0))
    attr = f' title="{title}"' if title else ""
    return f"{ticks}{language}{attr}\n{body.rstrip(chr(10))}\n{ticks}"


def output_markdown(result: record.SnippetResult) -> str:
    body = result.output if result.output.strip() else "(this snippet printed nothing)"
    return fenced("text", body, "$ " + command_line(result.path, result.env))


def source_lines(fence: SnippetFence) -> str:
    assert SNIPPETS_DIR is not None
    text = (SNIPPETS_DIR / fence.path).read_text(encoding="utf-8")
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
    env = fence.run_env
    display = f"snippets/{fence.path}"
    result = next((s for s in record.current().snippets if s.path == display and s.env == env), None)
    if result is None:
        raise LookupError(f"{display} with env {env} was not executed in this build")
    title = fence.title or (display + (f" (lines {fence.lines[0]}-{fence.lines[1]})" if fence.lines else ""))
    code = source_lines(fence)

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
