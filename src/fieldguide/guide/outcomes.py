"""The outcomes a build took that its pages did not foresee, listed for the build's report.

On a torch no committed record holds (a new release, a patch release, a reader's own build), a
fact can take an outcome no explain block was written for, and a gym scenario one its drill has
no text for. The page then shows the `unrecognised` text (explain.render, gym.reveal_text); this
module lists every such place once per build, from the record alone: the fact or scenario, the
page and section, the outcome and value measured, and the block that needs a text. The plugin
prints the list at the end of the build, the build report shows it, and `--strict-outcomes`
fails the build on it.

Renders only: evaluates facts on a record, never executes a snippet.
"""

from __future__ import annotations

import re
from pathlib import Path

from markdown.extensions.toc import slugify

from ..run.record import BuildRecord
from . import explain, gym
from .claims import Uncovered

_HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<title>.+?)(?:[ \t]+\{[^}]*#(?P<id>[\w-]+)[^}]*\})?[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


def headings(markdown: str) -> list[tuple[int, str, str]]:
    """(line index, title, id) of every heading outside code blocks, ids as the toc extension gives them
    (an explicit `{ #id }` wins; repeated slugs get _1, _2 ...)."""
    out, seen, fence = [], {}, None
    for i, line in enumerate(markdown.splitlines()):
        f = _FENCE.match(line)
        if fence:
            if f and f.group(1).startswith(fence):
                fence = None
            continue
        if f:
            fence = f.group(1)
            continue
        m = _HEADING.match(line)
        if not m:
            continue
        title = m.group("title").strip()
        anchor = m.group("id")
        if not anchor:
            plain = re.sub(r"[`*_]|<[^>]+>", "", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title))
            anchor = slugify(plain, "-")
            if anchor in seen:
                seen[anchor] += 1
                anchor = f"{anchor}_{seen[anchor]}"
        seen.setdefault(anchor, 0)
        out.append((i, title, anchor))
    return out


def _section(marks: list[tuple[int, str, str]], line: int) -> tuple[str, str]:
    above = [(title, anchor) for i, title, anchor in marks if i < line]
    return above[-1] if above else ("", "")


def survey(
    pages: dict[str, str], build: BuildRecord, snippets_dir: Path | None, docs_label: str = "docs"
) -> list[Uncovered]:
    """Every explain block and gym scenario whose outcome on `build` no text covers, in page order.

    `pages`: page path as the plugin names it ("docs/capture.md") -> its Markdown."""
    out: list[Uncovered] = []
    prefix = docs_label.rstrip("/") + "/"
    for name, markdown in pages.items():
        blocks = explain.find_blocks(markdown) if explain.BLOCK_NAME in markdown else []
        marks = headings(markdown) if blocks else []
        for block in blocks:
            f = explain.FACTS.get(block.fact)
            if block.errors or f is None or not f.outcomes:
                continue  # the build fails on these with its own message
            m = explain.outcome_on(f, build)
            if m is None or not explain.uncovered(block, m):
                continue
            section, anchor = _section(marks, block.start)
            page = name.removeprefix(prefix)
            value = " ".join(str(m.value).split())
            out.append(
                Uncovered("explain", block.fact, page, section, anchor, m.outcome, value, f"{name}, line {block.line}")
            )
    if snippets_dir is not None and (snippets_dir / "gym").is_dir() and f"{prefix}gym/index.md" in pages:
        for drill in gym.load_drills(snippets_dir):
            for s in drill.scenarios:
                result = gym.find_result(build, s)
                if result is None:
                    continue
                answer = gym.measure(s, result)
                if not gym.uncovered(drill, s, answer):
                    continue
                value = " ".join((answer.reason or answer.verdict).split())
                out.append(
                    Uncovered(
                        "gym",
                        f"{drill.label} {s.id}",
                        "gym/index.md",
                        s.title,
                        f"{drill.anchor}-{s.id}",
                        answer.outcome,
                        value,
                        str(drill.source),
                    )
                )
    return out
