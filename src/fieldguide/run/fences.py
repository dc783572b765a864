"""The snippet fence: its options, their parsing and validation.

A page embeds a snippet with a fence such as::

    ```snippet path="guards/anatomy.py" logs="guards" lines="3-9" timeout="60" exit="0"
    ```

or, in the attribute-list form, ```{.snippet path="guards/anatomy.py"}```. Collection
(collect.py) and rendering (render.py) both parse fences here, so the two stages can never
disagree about what a fence means; rendering also checks that it rendered exactly the fences
collection found on each page. Options are read strictly: values are quoted, a key appears once,
and anything left over (an unclosed quote, stray text) is an error naming the page and line.
"""

from __future__ import annotations

import math
import posixpath
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
    path = options.get("path", "")
    if not path.strip():
        raise FenceError('the fence names no snippet: add path="chapter/name.py"')
    if path.startswith(("/", "..")) or ".." in path.split("/") or not path.endswith(".py"):
        raise FenceError(f"path {path!r} must be a .py file inside snippets/, written relative to it")
    if not _PATH_RE.fullmatch(path):
        raise FenceError(f"path {path!r} may use only letters, digits, '_', '-', '.' and '/'")
    if posixpath.normpath(path) != path:
        raise FenceError(f"path {path!r} is not normalized: write {posixpath.normpath(path)!r}")

    logs = tuple(c.strip() for c in options.get("logs", "").split(",") if c.strip())
    for channel in logs:
        if not _CHANNEL_RE.match(channel):
            raise FenceError(f"logs: {channel!r} is not a TORCH_LOGS channel name")

    env: dict[str, str] = {}
    try:
        items = shlex.split(options.get("env", ""))
    except ValueError as exc:
        raise FenceError(f"env: {options['env']!r} cannot be read ({exc})") from None
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not _ENV_KEY_RE.match(key):
            raise FenceError(f"env: {item!r} is not KEY=VALUE")
        if key == "TORCH_LOGS":
            raise FenceError("env: set TORCH_LOGS with the logs option, so the page knows which channels to show")
        if key in env:
            raise FenceError(f"env: {key} is set twice")
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
    if not math.isfinite(timeout) or timeout <= 0:
        raise FenceError(f"timeout: {options['timeout']!r} must be a positive, finite number of seconds")

    try:
        exit_code = int(options.get("exit", 0))
    except ValueError:
        raise FenceError(f"exit: {options['exit']!r} is not an integer exit code") from None
    if not 0 <= exit_code <= 255:
        raise FenceError(f"exit: {exit_code} is not an exit code a process can end with (0-255)")

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


_PATH_RE = re.compile(r"[A-Za-z0-9_./-]+")
_ANY_FENCE_RE = re.compile(r"^(?P<indent>[ \t>]*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^\n]*)$")
_KEY_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass
class FoundFence:
    fence: SnippetFence | None
    line: int  # 1-based line of the opening fence in the page
    error: str = ""
    raw: dict[str, str] = field(default_factory=dict)


def parse_attrs(text: str, braces: bool = False) -> dict[str, str]:
    """Options of a fence's info string: key="value" or key='value', each key once.

    With braces (the attribute-list form) `.class` and `#id` tokens are allowed and ignored.
    Raises FenceError on anything else: an unclosed quote, a bare value, stray text.
    """
    attrs: dict[str, str] = {}
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        if braces and text[i] in ".#":
            j = i + 1
            while j < n and not text[j].isspace():
                j += 1
            i = j
            continue
        m = _KEY_RE.match(text, i)
        if not m:
            raise FenceError(f"cannot read the fence's options from {text[i:]!r}")
        key, i = m.group(0), m.end()
        if i >= n or text[i] != "=":
            raise FenceError(f'option {key!r} needs a quoted value: {key}="..."')
        i += 1
        if i >= n or text[i] not in "\"'":
            raise FenceError(f'option {key!r}: quote its value, as {key}="..."')
        quote = text[i]
        end = text.find(quote, i + 1)
        if end < 0:
            raise FenceError(f"option {key!r}: the quote opened at {text[i:]!r} is never closed")
        if key in attrs:
            raise FenceError(f"option {key!r} is given twice")
        attrs[key] = text[i + 1 : end]
        i = end + 1
        if i < n and not text[i].isspace():
            raise FenceError(f"option {key!r}: unexpected text after its closing quote: {text[i:]!r}")
    return attrs


def snippet_info(info: str) -> tuple[bool, str, bool]:
    """(is this a snippet fence, its options text, braces form) for a fence's info string."""
    info = info.strip()
    if info.startswith("{") and info.endswith("}"):
        inner = info[1:-1].strip()
        first = inner.split(None, 1)[0] if inner else ""
        return first == "." + FENCE_NAME, inner[len(first) :], True
    word = info.split(None, 1)[0] if info else ""
    if word == FENCE_NAME:
        return True, info[len(FENCE_NAME) :], False
    if word.startswith(FENCE_NAME + "{") or word.startswith("{." + FENCE_NAME):
        return True, "", False  # a malformed form of ours: reported, never silently skipped
    return False, "", False


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
            ours, options, braces = snippet_info(info)
            if ours:
                try:
                    if not options and info.strip().split(None, 1)[0] != FENCE_NAME and not braces:
                        raise FenceError(f"cannot read the fence's info string {info.strip()!r}")
                    attrs = parse_attrs(options, braces)
                    found.append(FoundFence(parse_options(attrs), i + 1, raw=attrs))
                except FenceError as exc:
                    found.append(FoundFence(None, i + 1, str(exc)))
            i += 1
            while i < len(lines):
                close = lines[i].lstrip(" \t>")
                if close.startswith(fence[0] * len(fence)) and not close.strip().strip(fence[0]):
                    break
                i += 1
        i += 1
    return found
