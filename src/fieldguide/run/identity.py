"""A snippet's identity: which file ran under which environment, and how a reader reproduces it.

One execution is one `SnippetId`: a path under snippets/ and the variables it ran with. Every
stage names executions through it — the cache and record lookups (`key`), what a page and the
record show (`display`, "snippets/guards/anatomy.py"), the command above each output
(`command_line`, quoted for a POSIX shell) — and every code fence the build writes comes from
`code_fence`, which picks a fence longer than any run of backticks in the body.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

PREFIX = "snippets/"


@dataclass(frozen=True, order=True)
class SnippetId:
    path: str  # relative to snippets/: "guards/anatomy.py"
    env: tuple[tuple[str, str], ...] = ()  # sorted

    @classmethod
    def of(cls, path: str, env: Mapping[str, str] | None = None) -> SnippetId:
        """From a path with or without the snippets/ prefix and variables in any order."""
        return cls(path.removeprefix(PREFIX), tuple(sorted((env or {}).items())))

    @property
    def display(self) -> str:
        """The path as a reader types it from the repository's root."""
        return PREFIX + self.path

    @property
    def environ(self) -> dict[str, str]:
        return dict(self.env)

    @property
    def key(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        return (self.path, self.env)

    def command_line(self) -> str:
        """The command a reader runs to get the same output (values quoted for the shell)."""
        return " ".join([*(f"{k}={shlex.quote(v)}" for k, v in self.env), "python", shlex.quote(self.display)])

    def label(self) -> str:
        """For messages: the path and its variables."""
        return " ".join([self.display, *(f"{k}={v}" for k, v in self.env)])


_TICKS = re.compile(r"`{3,}")


def code_fence(body: str, language: str = "", title: str = "", minimum: int = 3) -> str:
    """A Markdown code fence around body that no line of body can close."""
    longest = max((len(m.group()) for m in _TICKS.finditer(body)), default=0)
    ticks = "`" * max(minimum, longest + 1)
    attr = f' title="{title}"' if title else ""
    return f"{ticks}{language}{attr}\n{body.rstrip(chr(10))}\n{ticks}"
