"""The snippet fence: its options, their parsing and validation.

A page embeds a snippet with a fence such as::

    ```snippet path="guards/anatomy.py" logs="guards" lines="3-9" timeout="60" exit="0"
    ```

Collection (collect.py) and rendering (render.py) both parse fences here, so the
two stages can never disagree about what a fence means.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from .identity import SnippetId

FENCE_NAME = "snippet"
DEFAULT_TIMEOUT = 120.0
SHOW_CHOICES = ("both", "output", "source", "none")
KNOWN_OPTIONS = {"path", "logs", "env", "lines", "timeout", "exit", "show", "title"}
_CHANNEL_RE = re.compile(r"^[+-]?[A-Za-z_][A-Za-z0-9_.]*$")
_ENV_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class FenceError(ValueError):
    """A fence whose options cannot be honoured."""


@dataclass(frozen=True)
class SnippetFence:
    path: str  # relative to the snippets directory, e.g. "guards/anatomy.py"
    logs: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    lines: tuple[int, int] | None = None
    timeout: float = DEFAULT_TIMEOUT
    exit: int = 0
    show: str = "both"
    title: str = ""

    @property
    def run_env(self) -> dict[str, str]:
        """The variables the snippet runs under (what a reader would export)."""
        env = dict(self.env)
        if self.logs:
            env["TORCH_LOGS"] = ",".join(self.logs)
        return dict(sorted(env.items()))

    @property
    def id(self) -> SnippetId:
        """Identity of the execution: same snippet, same environment, same run."""
        return SnippetId.of(self.path, self.run_env)

    @property
    def key(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        return self.id.key

    def shown_channels(self) -> tuple[str, ...]:
        return tuple(c.lstrip("+-") for c in self.logs)


def parse_options(options: dict[str, str]) -> SnippetFence:
    """Turn raw fence attributes into a SnippetFence, or raise FenceError naming the problem."""
    unknown = sorted(set(options) - KNOWN_OPTIONS)
    if unknown:
        raise FenceError(
            f"unknown option(s) {', '.join(repr(u) for u in unknown)}; "
            f"known options are {', '.join(sorted(KNOWN_OPTIONS))}"
        )
    path = options.get("path", "").strip()
    if not path:
        raise FenceError('the fence names no snippet: add path="chapter/name.py"')
    if path.startswith(("/", "..")) or ".." in path.split("/") or not path.endswith(".py"):
        raise FenceError(f"path {path!r} must be a .py file inside snippets/, written relative to it")

    logs = tuple(c.strip() for c in options.get("logs", "").split(",") if c.strip())
    for channel in logs:
        if not _CHANNEL_RE.match(channel):
            raise FenceError(f"logs: {channel!r} is not a TORCH_LOGS channel name")

    env: dict[str, str] = {}
    for item in shlex.split(options.get("env", "")):
        key, sep, value = item.partition("=")
        if not sep or not _ENV_KEY_RE.match(key):
            raise FenceError(f"env: {item!r} is not KEY=VALUE")
        if key == "TORCH_LOGS":
            raise FenceError("env: set TORCH_LOGS with the logs option, so the page knows which channels to show")
        env[key] = value

    lines = None
    if options.get("lines"):
        m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", options["lines"])
        if not m or int(m.group(1)) < 1 or int(m.group(1)) > int(m.group(2)):
            raise FenceError(f"lines: {options['lines']!r} is not a range like 3-12")
        lines = (int(m.group(1)), int(m.group(2)))

    try:
        timeout = float(options.get("timeout", DEFAULT_TIMEOUT))
    except ValueError:
        raise FenceError(f"timeout: {options['timeout']!r} is not a number of seconds") from None
    if timeout <= 0:
        raise FenceError("timeout: must be a positive number of seconds")

    try:
        exit_code = int(options.get("exit", 0))
    except ValueError:
        raise FenceError(f"exit: {options['exit']!r} is not an integer exit code") from None

    show = options.get("show", "both")
    if show not in SHOW_CHOICES:
        raise FenceError(f"show: {show!r} is not one of {', '.join(SHOW_CHOICES)}")

    return SnippetFence(
        path=path,
        logs=logs,
        env=tuple(sorted(env.items())),
        lines=lines,
        timeout=timeout,
        exit=exit_code,
        show=show,
        title=options.get("title", ""),
    )


_ANY_FENCE_RE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})\s*(?P<info>[^\n]*)$")
_ATTR_RE = re.compile(r'([A-Za-z_][\w-]*)\s*=\s*("([^"]*)"|\'([^\']*)\'|(\S+))')


@dataclass
class FoundFence:
    fence: SnippetFence | None
    line: int  # 1-based line of the opening fence in the page
    error: str = ""
    raw: dict[str, str] = field(default_factory=dict)


def parse_attrs(text: str) -> dict[str, str]:
    return {m.group(1): next(g for g in m.groups()[2:] if g is not None) for m in _ATTR_RE.finditer(text)}


def find_fences(markdown: str) -> list[FoundFence]:
    """Every snippet fence in a page's markdown, parsed (errors kept, not raised).

    Fences nested in other code blocks (a contributor page showing the syntax) are skipped.
    """
    found = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        m = _ANY_FENCE_RE.match(lines[i])
        if m:
            fence, info = m.group("fence"), m.group("info")
            word = info.split(None, 1)[0] if info.split() else ""
            if word == FENCE_NAME:
                attrs = parse_attrs(info[len(FENCE_NAME):])
                try:
                    found.append(FoundFence(parse_options(attrs), i + 1, raw=attrs))
                except FenceError as exc:
                    found.append(FoundFence(None, i + 1, str(exc), attrs))
            i += 1
            while i < len(lines):
                close = lines[i].strip()
                if close.startswith(fence[0] * len(fence)) and not close.strip(fence[0]):
                    break
                i += 1
        i += 1
    return found
