"""Claims: sentences about torch that carry their evidence.

The pipeline for anything the guide says about torch is **measure → fact → sentence**:

- a *fact* (``@fact`` below, defined once in the chapter modules and listed by facts.py) reads
  one or more runs of a build record and returns a :class:`Measured` value together with the
  output lines it rests on;
- a *claim* (:func:`claim`) is a sentence template whose slots are filled from facts; it keeps
  the evidence, renders a footnote-style marker per evidence line (the site's script links the
  marker to that line of the output block above and highlights it), and can be checked:
  every evidence line must occur verbatim in an output the page displays, and every value
  quoted in a slot must occur in its evidence (:func:`problems`).

The diff tooling (facts.py) and the cross-release table (releases.py) evaluate the same facts
on other records, so the prose, the verdicts and the table never re-derive a measurement.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import html
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..run import context
from ..run.fences import find_fences
from ..run.record import BuildRecord, SnippetResult


# -- evidence ---------------------------------------------------------------------------------
def command(result: SnippetResult) -> str:
    """The run as its output block is titled, without the prompt: what a reader types."""
    return result.id.command_line()


@dataclass(frozen=True)
class Evidence:
    run: (
        str  # the command line that titles the output block, e.g. "TORCH_LOGS=guards python snippets/guards/anatomy.py"
    )
    line: str  # the output line (or the part of it) the claim rests on, verbatim
    nth: int = 0  # which of the output lines containing `line` (0: the first)

    @property
    def anchor(self) -> str:
        return "fg-ev-" + hashlib.sha1(f"{self.run}\n{self.line}\n{self.nth}".encode()).hexdigest()[:10]


def line_of(result: SnippetResult, text: str, after: int = 0) -> Evidence:
    """The first displayed output line of `result` at or after line `after` that contains `text`.

    The evidence is that whole line (stripped), with its occurrence number among identical lines.
    When no line contains `text`, the evidence keeps `text` itself: the check then reports it
    rather than the renderer hiding it.
    """
    lines = result.output.splitlines()
    for i in range(after, len(lines)):
        if text and text in lines[i]:
            whole = lines[i].strip()
            return Evidence(command(result), whole, sum(1 for ln in lines[:i] if whole in ln))
    return Evidence(command(result), text.strip())


def in_dump(result: SnippetResult, dump: int, text: str) -> Evidence:
    """Evidence for `text` inside the dump of compiled entry `dump` (0-based) of a guards log."""
    seen = -1
    for i, line in enumerate(result.output.splitlines()):
        if line.strip() == "GUARDS:":
            seen += 1
            if seen == dump:
                return line_of(result, text, i)
    return line_of(result, text)


def lines_matching(result: SnippetResult, pattern: str) -> list[Evidence]:
    rx = re.compile(pattern)
    return [Evidence(command(result), line.strip()) for line in result.output.splitlines() if rx.search(line)]


# -- facts --------------------------------------------------------------------------------------
UNRECOGNISED = "unrecognised"  # the outcome of a measurement that fits none of its fact's named outcomes


@dataclass(frozen=True)
class Measured:
    value: object  # what the fact says: a count, a verdict word, a list
    evidence: tuple[Evidence, ...] = ()
    # for a fact that declares outcomes: which one this measurement is (explain.py picks the text
    # the page wrote for it), and the values that text may inline as {name}
    outcome: str = ""
    slots: Mapping[str, object] = field(default_factory=dict)

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Run:
    path: str  # relative to snippets/
    env: tuple[tuple[str, str], ...] = ()
    # environments the same snippet ran under in records measured before its page changed them
    # (a fact whose value does not depend on the log channels can still be read from those)
    earlier: tuple[tuple[tuple[str, str], ...], ...] = ()

    def find(self, build: BuildRecord) -> SnippetResult:
        try:
            return build.find(self.path, **dict(self.env))
        except LookupError:
            for env in self.earlier:
                try:
                    return build.find(self.path, **dict(env))
                except LookupError:
                    continue
            raise


@dataclass(frozen=True)
class Fact:
    name: str  # how the diff tooling and the Across releases table label it
    runs: tuple[Run, ...]
    measure: Callable[..., Measured]
    show: Callable[[object], str] = str  # how a value reads in a table cell
    outcomes: tuple[str, ...] = ()  # the named outcomes an explanation is written for (explain.py)
    varies: bool = False  # its value changes between two runs of one build (a timing): builds compare its outcome
    orders: tuple[str, ...] = ()  # outcomes that only say which timing came out lower: builds compare them as one

    def __call__(self, *results: SnippetResult) -> Measured:
        return self.measure(*results)

    def on(self, build: BuildRecord) -> Measured:
        """Evaluate on any record: the live build's or a committed release's."""
        return self.measure(*(r.find(build) for r in self.runs))


FACTS: dict[str, Fact] = {}


def run(path: str, logs: str = "", earlier_logs: tuple[str, ...] = (), **env: str) -> Run:
    """A run of snippets/<path> under TORCH_LOGS=<logs>; `earlier_logs`: its channels in older records."""
    earlier = tuple(tuple(sorted({**env, **({"TORCH_LOGS": e} if e else {})}.items())) for e in earlier_logs)
    if logs:
        env["TORCH_LOGS"] = logs
    return Run(path, tuple(sorted(env.items())), earlier)


def fact(
    name: str,
    *runs: Run,
    show: Callable[[object], str] = str,
    outcomes: tuple[str, ...] = (),
    varies: bool = False,
    orders: tuple[str, ...] = (),
) -> Callable[[Callable[..., Measured]], Fact]:
    """Declare a fact: its name, the runs it reads, and (decorated) how it is measured from them.

    `outcomes` names what the measurement can turn out to be; a page explains the fact with one
    text per outcome (explain.py), and a measurement that fits none of them returns the outcome
    UNRECOGNISED rather than the nearest named one. `varies`: the value differs between two runs
    of the same build (a timing), so two builds are compared by its outcome (facts.comparable).
    `orders`: those of its outcomes that only say which of two timings came out lower in this
    build's runs (or that their ranges overlap): the page explains each, and two builds compare
    them as one, since the next build's runs may order them otherwise."""
    if UNRECOGNISED in outcomes:
        raise ValueError(f"fact {name!r}: {UNRECOGNISED!r} is every fact's outcome; do not declare it")
    if not set(orders) <= set(outcomes) or (orders and not varies):
        raise ValueError(f"fact {name!r}: `orders` must be outcomes of a fact that varies")

    def wrap(fn: Callable[..., Measured]) -> Fact:
        if name in FACTS:
            raise ValueError(f"fact {name!r} is defined twice")
        every = tuple(outcomes) + ((UNRECOGNISED,) if outcomes else ())
        f = Fact(name, tuple(runs), fn, show, every, varies, tuple(orders))
        FACTS[name] = f
        return f

    return wrap


# -- claims -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Derived:
    """A slot value computed from evidence (a slope, a difference), so not quoted verbatim."""

    value: object
    shown: str = ""

    def __str__(self) -> str:
        return self.shown or str(self.value)


@dataclass
class Claim:
    text: str  # the rendered sentence (markdown), without markers
    evidence: list[Evidence]
    quoted: list[str] = field(default_factory=list)  # slot values that must occur in the evidence
    derived: list[str] = field(default_factory=list)

    def markdown(self, markers: bool = True) -> str:
        _collect(self)
        return self.text + (markers_for(self.evidence) if markers else "")

    def __str__(self) -> str:
        return self.markdown()


def _shown(value: object) -> str:
    return value.shown if isinstance(value, Derived) and value.shown else str(value)


def claim(template: str, evidence: list[Evidence] | tuple[Evidence, ...] = (), **slots: object) -> Claim:
    """A sentence from a template whose `{slots}` are measured values.

    A slot given as a Measured brings its evidence along; a Derived slot is exempt from the
    verbatim check (its inputs must be in the evidence); any other value must occur verbatim in
    the evidence. Slots named `q_...` are shown as inline code.
    """
    ev: list[Evidence] = list(evidence)
    quoted, derived, shown = [], [], {}
    for name, value in slots.items():
        if isinstance(value, Measured):
            ev += [e for e in value.evidence if e not in ev]
            value = value.value
        if isinstance(value, Derived):
            derived.append(str(value.value))
        elif value is not None and str(value) != "":
            quoted.append(str(value))
        text = _shown(value)
        shown[name] = _code(text) if name.startswith("q_") else text
    return Claim(template.format(**shown), ev, quoted, derived)


def _code(text: str) -> str:
    text = text.replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _attr(text: str) -> str:
    """An HTML attribute value that survives Markdown: no pipe, backtick or backslash left to parse."""
    return (
        html.escape(text, quote=True)
        .replace("|", "&#124;")
        .replace("`", "&#96;")
        .replace("\\", "&#92;")
        .replace("*", "&#42;")
        .replace("_", "&#95;")
    )


MAX_MARKERS = 3  # a claim resting on many lines links the first few; the check covers them all


def markers_for(evidence: list[Evidence]) -> str:
    """Footnote-style links, one per evidence line; fieldguide.js ties each to its output line."""
    out = []
    for ev in evidence[:MAX_MARKERS]:
        out.append(
            f'<sup class="fg-ev"><a href="#{ev.anchor}" data-run="{_attr(ev.run)}" data-line="{_attr(ev.line)}" '
            f'data-nth="{ev.nth}" title="{_attr("Evidence: " + ev.line[:200])}">&#8593;</a></sup>'
        )
    return "".join(out)


# -- collecting what a page rendered ------------------------------------------------------------
_collector: contextvars.ContextVar[list[Claim] | None] = contextvars.ContextVar("fieldguide_claims", default=None)


def _collect(c: Claim) -> None:
    for bucket in (_collector.get(), _page.get()):
        if bucket is not None and c not in bucket:
            bucket.append(c)


@contextmanager
def collecting() -> Iterator[list[Claim]]:
    bucket: list[Claim] = []
    token = _collector.set(bucket)
    try:
        yield bucket
    finally:
        _collector.reset(token)


# -- a page being built (the plugin brackets each page's rendering) ------------------------------------
_page: contextvars.ContextVar[list[Claim] | None] = contextvars.ContextVar("fieldguide_page_claims", default=None)


def begin_page() -> None:
    """Start collecting the claims a page renders (fieldguide.site.plugin, on_page_markdown)."""
    _page.set([])


def page_claims() -> list[Claim]:
    """The claims the page being built has rendered so far."""
    return list(_page.get() or [])


def replay_page_claims(found: list[Claim]) -> None:
    """Claims a page rendered in an earlier build, reused as they were (serve's page memo): checked again."""
    for c in found:
        _collect(c)


def end_page(page_markdown: str, build: BuildRecord) -> list[str]:
    """Stop collecting; what is wrong with the page's claims, given the outputs it displays."""
    found = _page.get() or []
    _page.set(None)
    if not found:
        return []
    shown = displayed_outputs(page_markdown, build)
    return [f"{p} — in: {c.text[:100]}" for c in found for p in problems(c, shown)]


def displayed_outputs(page: str, build: BuildRecord) -> dict[str, str]:
    """The outputs a page displays (fences with show both or output), from `build`."""
    out = {}
    for found in find_fences(page):
        f = found.fence
        if f is None or f.show not in ("both", "output"):
            continue
        result = build.find(f.path, **f.run_env)
        out[command(result)] = result.output
    return out


# -- the check ------------------------------------------------------------------------------------
def _occurs(value: str, text: str) -> bool:
    if re.fullmatch(r"-?\d+(?:\.\d+)?", value):  # a number: as a whole token, not a digit of another
        return re.search(rf"(?<![\d.]){re.escape(value)}(?![\d])", text) is not None
    return value in text


def problems(c: Claim, displayed: dict[str, str]) -> list[str]:
    """What is wrong with a claim, given the outputs a page displays (command line -> output text)."""
    found = []
    if not c.evidence:
        found.append("no evidence")
    for ev in c.evidence:
        out = displayed.get(ev.run)
        if out is None:
            found.append(f"evidence from a run the page does not display: {ev.run}")
        elif sum(1 for line in out.splitlines() if ev.line in line) <= ev.nth:
            found.append(f"evidence line not in the displayed output of `{ev.run}`: {ev.line!r}")
    joined = "\n".join(ev.line for ev in c.evidence)
    for value in c.quoted:
        if not _occurs(value, joined):
            found.append(f"quoted value {value!r} does not occur in the claim's evidence")
    if c.derived and not c.evidence:
        found.append("a derived value without the lines it was derived from")
    return found


# -- what a build took that its pages did not foresee ---------------------------------------------
@dataclass(frozen=True)
class Uncovered:
    """A place whose measurement on this build fits nothing its page was written for (the build
    report lists these; guide.outcomes.survey finds the explain blocks' and the drills' before the
    pages render, page_table the tables' while they render)."""

    kind: str  # "explain" (a page's explain block), "gym" (a drill's scenario), "table" (a measured table)
    name: str  # the fact, the scenario ("GYM·8 other-backend") or the table's function
    page: str  # the page, docs-relative ("capture.md", "gym/index.md")
    section: str  # the heading it sits under ("" when not known)
    anchor: str  # that heading's id on the built page
    outcome: str  # the outcome measured: `unrecognised`, or one no text was written for
    value: str  # what was measured (for `unrecognised`: why it fits no named outcome)
    needs: str  # where the text (or the reading) goes: "docs/capture.md, line 320", a drill's TOML, a function

    @property
    def url(self) -> str:
        """The section's address, site-relative (directory URLs)."""
        page = self.page.removesuffix(".md")
        page = page.removesuffix("index") if page.endswith("index") else page + "/"
        return page + (f"#{self.anchor}" if self.anchor else "")

    def line(self) -> str:
        """One line for the terminal."""
        where = f"{self.page}" + (f" § {self.section}" if self.section else "")
        return (
            f"{self.name!r} on {where}: outcome {self.outcome!r}, measured {self.value!r} (text needed in {self.needs})"
        )


def literal(text: str) -> str:
    """A measured value as inline code that Markdown leaves as it is (it may hold any character a
    snippet printed: no markup, emphasis or link can come of it), on one line."""
    safe = html.escape(" ".join(text.split()), quote=True)
    for ch in "_*`|[]\\{}":
        safe = safe.replace(ch, f"&#{ord(ch)};")
    return f"<code>{safe}</code>"


# What a reading of output raises when the output is not what it was written for.
MEASUREMENT_ERRORS = (LookupError, ValueError, IndexError, KeyError, StopIteration, AttributeError, TypeError)


def page_table(function: Callable[..., str]) -> Callable[..., str]:
    """A table (or list) a page prints from measured output. On a torch whose output it cannot read
    (a new release, a reader's own build), the page gets a notice in its place, the `unrecognised`
    outcome of that table, and the build report an entry, instead of a failed build."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs) -> str:
        try:
            return function(*args, **kwargs)
        except MEASUREMENT_ERRORS as exc:
            try:
                build = context.active()
            except RuntimeError:
                raise exc from None  # outside a build (a test calling it): the error itself
            if build.render is None:
                raise
            value = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
            name = f"{function.__module__.rsplit('.', 1)[-1]}.{function.__name__}"
            page = build.render.page
            build.render.uncovered.append(
                Uncovered(
                    "table", name, page, "", "", "unrecognised", value, f"{function.__module__}.{function.__name__}"
                )
            )
            return (
                f'\n!!! warning fg-unrecognised "Not read on torch {_attr(build.record.torch)}"\n'
                f"    This table reads the output above, and what this torch printed fits none of the shapes "
                f"it was written for ({literal(value)}): the output is shown unread. The build report lists "
                "every place in this case.\n"
            )

    return wrapper
