"""Explanations written in the page, one text per outcome of the fact they explain.

A page explains a measurement with an ``explain`` block: the fact it rests on, then one text for
each outcome that fact can take (its outcomes are declared with the fact, ``@fact(...,
outcomes=...)``)::

    ```explain fact="breaks: graph breaks on the graph_breaks channel"
    [none]
    This torch wrote nothing on the `graph_breaks` channel for this run.

    [one | several]
    The channel reported {n} graph break(s), at line {line} of `logged.py`.
    ```

The build evaluates the fact on its record and puts the text written for the outcome it took in
place of the block, with ``{slot}`` filled from the fact's measured slots (``{slot:code}`` as
inline code) and the evidence markers of the lines the value rests on. Nothing else picks the
words: a text is shown only for the outcome it is headed by.

Before that, the block is checked against every record the guide holds (the live build and every
committed release, records/): an outcome any of them took without a text fails the build, naming
the fact, the outcome and the releases; so does a heading that names an outcome the fact does not
have, or a slot it does not measure. A measurement that fits none of the fact's named outcomes is
the outcome ``unrecognised``, which needs its own text like any other once a record takes it.

Renders only: evaluates facts on records, never executes a snippet.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..run import context, settings
from ..run.record import BuildRecord, note, reading
from .claims import (
    FACTS,
    UNRECOGNISED,
    Claim,
    Derived,
    Fact,
    Measured,
    _attr,
    _code,
    _collect,
    collecting,
    displayed_outputs,
    literal,
    markers_for,
)

BLOCK_NAME = "explain"

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})explain(?:[ \t]+(?P<info>[^\n]*))?[ \t]*$")
_ATTR = re.compile(r'(?P<key>[A-Za-z_][\w-]*)="(?P<value>[^"]*)"')
_HEADING = re.compile(r"^\[(?P<names>[^\]\n]+)\][ \t]*$")
_SLOT = re.compile(r"\{\{|\}\}|\{(?P<name>[A-Za-z_]\w*)(?::(?P<fmt>code))?\}")


class ExplainError(ValueError):
    """A block that cannot be rendered: named fact, outcome and releases where it applies."""


@dataclass
class Block:
    fact: str
    texts: dict[str, str]  # outcome -> its text (Markdown, unindented)
    line: int  # 1-based line of the opening fence in the page
    start: int  # index of the first line of the block (the fence)
    end: int  # index one past its closing fence
    indent: str = ""
    errors: list[str] = field(default_factory=list)


def find_blocks(markdown: str) -> list[Block]:
    """Every explain block of a page (blocks shown inside other code blocks are skipped)."""
    lines = markdown.splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        other = re.match(r"^[ \t]*(`{3,}|~{3,})", lines[i])
        if not m and other:  # some other code block: skip to its end
            fence = other.group(1)
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                i += 1
            i += 1
            continue
        if not m:
            i += 1
            continue
        indent, fence = m.group("indent"), m.group("fence")
        attrs = dict((a.group("key"), a.group("value")) for a in _ATTR.finditer(m.group("info") or ""))
        start, body = i, []
        i += 1
        while i < len(lines) and lines[i].strip() != fence:
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        block = Block(attrs.get("fact", ""), {}, start + 1, start, min(i + 1, len(lines)), indent)
        if i >= len(lines):
            block.errors.append("the block is not closed")
        if not block.fact:
            block.errors.append('the block names no fact: ```explain fact="NAME"')
        unknown = sorted(set(attrs) - {"fact"})
        if unknown:
            block.errors.append(f"unknown option(s) {', '.join(unknown)}; the only option is fact")
        _read_texts(body, block)
        out.append(block)
        i += 1
    return out


def _read_texts(body: list[str], block: Block) -> None:
    current: list[str] | None = None
    names: list[str] = []
    for line in body + ["[]"]:  # a sentinel heading closes the last text
        h = _HEADING.match(line) if line != "[]" else None
        if h or line == "[]":
            if current is not None:
                text = "\n".join(current).strip("\n")
                for name in names:
                    if name in block.texts:
                        block.errors.append(f"outcome {name!r} has two texts")
                    block.texts[name] = text
                    if not text.strip():
                        block.errors.append(f"outcome {name!r} has an empty text")
            if h:
                names = [n.strip() for n in h.group("names").split("|") if n.strip()]
                current = []
            continue
        if current is None:
            if line.strip():
                block.errors.append("text before the first [outcome] heading")
            continue
        current.append(line)
    if not block.texts and not block.errors:
        block.errors.append("the block has no [outcome] text")


# -- evaluating a fact's outcome on a record ----------------------------------------------------
# outcome_on per record object: the build's check (every block against every committed record,
# page by page), the survey and the pages ask for the same facts of the same records; the
# committed records are the same objects from one build (and serve rebuild) to the next, while a
# new live record starts afresh. Each entry pins its record, so an id is never reused for another.
_MEMO: dict[int, tuple[BuildRecord, dict]] = {}
_MEMO_RECORDS = 20


def outcome_on(f: Fact, build: BuildRecord) -> Measured | None:
    """The fact measured on `build`, with its outcome; None when the record lacks a run it reads.

    A measurement that raises, or names an outcome the fact did not declare, is `unrecognised`
    (its value is the reason, for the build's messages), never the nearest known outcome.
    """
    hit = _MEMO.get(id(build))
    if hit is None or hit[0] is not build:
        hit = _MEMO[id(build)] = (build, {})
        while len(_MEMO) > _MEMO_RECORDS:
            _MEMO.pop(next(iter(_MEMO)))
    found = hit[1]
    if f.name not in found or found[f.name][0] is not f:
        with reading() as reads:  # kept with the value: a later use reads what this one read
            found[f.name] = (f, _outcome_on(f, build), reads)
    else:
        note(found[f.name][2])
    return found[f.name][1]


def _outcome_on(f: Fact, build: BuildRecord) -> Measured | None:
    try:
        results = [r.find(build) for r in f.runs]
    except LookupError:
        return None
    try:
        m = f.measure(*results)
    except Exception as exc:  # noqa: BLE001 - a shape the fact cannot read is an outcome of its own
        return Measured(f"{type(exc).__name__}: {exc}", (), UNRECOGNISED)
    if m.outcome not in f.outcomes:
        return Measured(f"undeclared outcome {m.outcome!r}", m.evidence, UNRECOGNISED)
    return m


def _fact(block: Block) -> Fact:
    f = FACTS.get(block.fact)
    if f is None:
        raise ExplainError(f"line {block.line}: no fact is named {block.fact!r}")
    if not f.outcomes:
        raise ExplainError(
            f"line {block.line}: the fact {block.fact!r} declares no outcomes (@fact(..., outcomes=...)), "
            "so nothing can be explained per outcome"
        )
    return f


def check(block: Block, records: Iterable[tuple[str, BuildRecord]]) -> list[str]:
    """What is wrong with a block against every record: unknown outcomes or slots in its texts, and
    outcomes a record took that have no text (with the releases that took them)."""
    if block.errors:
        return [f"line {block.line}: {e}" for e in block.errors]
    f = _fact(block)
    problems = []
    declared = set(f.outcomes) | {UNRECOGNISED}
    for name in block.texts:
        if name not in declared:
            problems.append(
                f"line {block.line}: fact {block.fact!r} has no outcome {name!r} (its outcomes: "
                f"{', '.join(sorted(declared))})"
            )
    taken: dict[str, list[str]] = {}
    why: dict[str, str] = {}
    for release, build in records:
        m = outcome_on(f, build)
        if m is None:
            continue
        taken.setdefault(m.outcome, []).append(release)
        if m.outcome == UNRECOGNISED:
            why.setdefault(release, str(m.value))
        elif m.outcome in block.texts:
            for slot in _slots_in(block.texts[m.outcome]):
                if slot not in m.slots:
                    problems.append(
                        f"line {block.line}: the text for outcome {m.outcome!r} of fact {block.fact!r} names "
                        f"{{{slot}}}, which it does not measure on torch {release} (it measures: "
                        f"{', '.join(sorted(m.slots)) or 'nothing'})"
                    )
    for outcome, releases in taken.items():
        if outcome not in block.texts:
            detail = ""
            if outcome == UNRECOGNISED:
                detail = " (" + "; ".join(f"{r}: {why[r]}" for r in releases[:3] if r in why) + ")"
            problems.append(
                f"line {block.line}: fact {block.fact!r} took the outcome {outcome!r} on torch "
                f"{', '.join(releases)}, and the page has no text for it{detail}"
            )
    return sorted(set(problems), key=problems.index)


def _slots_in(text: str) -> list[str]:
    return [m.group("name") for m in _SLOT.finditer(text) if m.group("name")]


# -- rendering --------------------------------------------------------------------------------
def fill(text: str, m: Measured) -> Claim:
    """The outcome's text with its slots filled, as a claim carrying the fact's evidence."""
    quoted, derived = [], []

    def sub(s: re.Match) -> str:
        if s.group(0) in ("{{", "}}"):
            return s.group(0)[0]
        value = m.slots[s.group("name")]
        if isinstance(value, Derived):
            derived.append(str(value.value))
            shown = value.shown or str(value.value)
        else:
            quoted.append(str(value))
            shown = str(value)
        return _code(shown) if s.group("fmt") == "code" else shown

    return Claim(_SLOT.sub(sub, _unwrap(text)), list(m.evidence), quoted, derived)


_BLOCK_START = re.compile(r"^(?:[ \t]|[-*+>|#]|\d+\.\s|!!!|\?\?\?|```|~~~|$)")


def _unwrap(text: str) -> str:
    """A paragraph's lines joined into one (Markdown reads a line break there as a space), so that
    a sentence and its evidence markers stay on one line; lists, tables and other blocks are kept."""
    out: list[str] = []
    for line in text.splitlines():
        if out and out[-1].strip() and not _BLOCK_START.match(out[-1]) and not _BLOCK_START.match(line):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out)


def _comment(text: str) -> str:
    return text.replace("--", "- -").replace(">", "&gt;")


@dataclass
class Rendered:
    block: Block
    outcome: str | None  # None: the record has no run the fact reads
    claim: Claim | None
    markdown: str
    uncovered: bool = False  # the outcome taken has no text that fits it: the `unrecognised` text is shown


def _fits(text: str | None, m: Measured) -> bool:
    return text is not None and all(slot in m.slots for slot in _slots_in(text))


def uncovered(block: Block, m: Measured) -> bool:
    """Whether the outcome `m` took is one the page did not foresee: `unrecognised` (the measurement
    fits none of the fact's named outcomes), or an outcome the block has no text for (or whose text
    names a value this measurement lacks). Only a record no committed release holds gets here with a
    textless outcome (check() fails the build on the rest): a new torch, a reader's own build."""
    return m.outcome == UNRECOGNISED or not _fits(block.texts.get(m.outcome), m)


NOTICE_CLASS = "fg-unrecognised"


def unrecognised_notice(fact: str, m: Measured, torch: str) -> str:
    """What a page shows for an outcome no text was written for, when its block has no
    `[unrecognised]` text of its own: that it is unexplained, and what was measured."""
    value = " ".join(str(m.value).split())
    value = value if len(value) <= 300 else value[:297] + "..."
    taken = (
        "fits none of the outcomes this page explains"
        if m.outcome == UNRECOGNISED
        else f"took the outcome {literal(m.outcome)}, which no text on this page was written for"
    )
    return (
        f'!!! warning {NOTICE_CLASS} "Not explained on torch {_attr(torch)}"\n'
        f"    What this torch printed for “{_attr(fact)}” {taken} (measured: {literal(value)}). The output "
        "above is what it printed, unexplained here; the build report lists every explanation in this case.\n"
    )


def render(block: Block, build: BuildRecord, torch: str) -> Rendered:
    f = _fact(block)
    m = outcome_on(f, build)
    if m is None:
        text = (
            f'!!! warning "Not measured on torch {torch}"\n    This explanation rests on '
            f"“{block.fact}”, and this release's record has no run it reads.\n"
        )
        return Rendered(block, None, None, text)
    mark = f"<!-- fg-explain {_comment(block.fact)} = {_comment(m.outcome)} -->"  # for tests and reviewers
    if uncovered(block, m):
        # never another outcome's text: the page's own [unrecognised] text, or the notice
        mark = f"<!-- fg-explain {_comment(block.fact)} = {UNRECOGNISED} (measured: {_comment(m.outcome)}) -->"
        own = block.texts.get(UNRECOGNISED)
        if not _fits(own, m):
            return Rendered(block, m.outcome, None, mark + "\n" + unrecognised_notice(block.fact, m, torch), True)
        c = fill(own, m)
        _collect(c)
        return Rendered(block, m.outcome, c, mark + "\n" + c.text.rstrip() + markers_for(c.evidence) + "\n", True)
    c = fill(block.texts[m.outcome], m)
    _collect(c)
    return Rendered(block, m.outcome, c, mark + "\n" + c.text.rstrip() + markers_for(c.evidence) + "\n")


def render_blocks(markdown: str, build: BuildRecord, torch: str, records: Iterable[tuple[str, BuildRecord]] = ()):
    """The page with every explain block replaced by its outcome's text; raises ExplainError with
    every problem of every block (checked against `records` too) first."""
    blocks = find_blocks(markdown)
    if not blocks:
        return markdown, []
    records = list(records)
    problems = []
    for b in blocks:
        try:
            problems += check(b, records)
        except ExplainError as exc:
            problems.append(str(exc))
    if problems:
        raise ExplainError("\n".join(problems))
    lines = markdown.splitlines()
    rendered = []
    for b in reversed(blocks):
        r = render(b, build, torch)
        rendered.append(r)
        text = [(b.indent + ln if ln.strip() else "") for ln in r.markdown.splitlines()]
        lines[b.start : b.end] = text
    return "\n".join(lines) + ("\n" if markdown.endswith("\n") else ""), list(reversed(rendered))


# -- rendering a chapter outside MkDocs (for the tests and the release table) ---------------------
_EXEC_BLOCK = re.compile(
    r'^```python exec="on"(?: session="(?P<session>[^"]*)")?[^\n]*\n(?P<code>.*?)^```\s*$', re.M | re.S
)


@dataclass
class RenderedPage:
    markdown: str  # what the page's code blocks printed, in order
    claims: list[Claim]
    displayed: dict[str, str]  # command line of each output block the page shows -> that output


def render_page(page: str, build: BuildRecord, root: Path | None = None) -> RenderedPage:
    """Run a page's `python exec` blocks against `build`, as markdown-exec does during a build
    (with the settings of the site at root, by default this repository's)."""
    sessions: dict[str, dict] = {}
    printed = []
    site_root = root or Path(__file__).resolve().parents[3]
    context.activate(context.BuildContext(settings.load(site_root), build))
    try:
        with collecting() as found:
            for r in render_blocks(page, build, build.torch, [(build.torch, build)])[1]:
                printed.append(r.markdown)
            for m in _EXEC_BLOCK.finditer(page):
                namespace = sessions.setdefault(m.group("session") or "", {"__name__": "__page__"})
                buffer = io.StringIO()
                with contextlib.redirect_stdout(buffer):
                    exec(compile(m.group("code"), "<page>", "exec"), namespace)
                printed.append(buffer.getvalue())
    finally:
        context.activate(None)
    return RenderedPage("\n".join(printed), found, displayed_outputs(page, build))
