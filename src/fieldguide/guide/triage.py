"""The triage page (docs/triage.md): a symptom, the line to look for, and the section with the remedy.

Stage 4 (render): reads this build's record, never executes. The page holds every sentence (the
symptom and the cause of each row, in its own Markdown); this module adds, per row, a link to the
section's "What to do" heading (where the remedies run on this torch, next to the pattern) and the line the
row's lesson run printed on this torch: the first failed guard its recompile log names, or the
first output line containing a given text (a limit warning, a count). Where that run printed no such
line on this torch, the cell says so, from the run: the row's section shows what it did instead.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from ..run.record import BuildRecord, SnippetResult
from .links import relative_link
from .parse.recompiles import parse_recompiles

PAGE_URL = "triage/"
WIDTH = 96  # a looked-for line longer than this is cut, with an ellipsis


@dataclass(frozen=True)
class Row:
    symptom: str  # what the reader sees, in their words (Markdown)
    run: str  # the lesson snippet whose output the row quotes (relative to snippets/)
    cause: str  # what the lesson measured as the cause (Markdown, no torch-dependent value)
    section: str  # "realcode.md#learning-rate-schedules": the section with the cause and its remedies
    title: str  # that section's title, as the link text
    logs: str = "recompiles"  # the run's TORCH_LOGS, as its page's fence sets it ("" for none)
    look: str = ""  # quote the first output line containing this; empty: the first failed guard
    own_output: bool = False  # the quoted line is one the snippet printed itself, not one torch logged
    fix: str = ""  # the anchor of the section's "What to do" heading; empty: the section's anchor + "-fix"
    guards: tuple[str, ...] = ()  # quote, for each text, the first failed guard containing it (not only the first)

    @property
    def fix_section(self) -> str:
        """E.g. realcode.md#learning-rate-schedules-fix: the heading under which the section runs its remedies."""
        page, _, anchor = self.section.partition("#")
        return f"{page}#{self.fix or anchor + '-fix'}"


def _result(record: BuildRecord, row: Row) -> SnippetResult:
    if row.logs:
        return record.find(row.run, TORCH_LOGS=row.logs)
    return record.find(row.run)


def looked_for(result: SnippetResult, look: str = "") -> str | None:
    """The line a row quotes from `result`: the first line containing `look`, or the newest entry's
    failed guard of the first logged recompile (without a trailing "(HINT: ...)"); None when the run
    printed no such line."""
    if look:
        return next((ln.strip() for ln in result.output.splitlines() if look in ln), None)
    for r in parse_recompiles(result.output):
        if r.failures:
            return re.sub(r"\s+\(HINT:.*$", "", r.failures[0].reason).strip()
    return None


def looked_for_each(result: SnippetResult, texts: tuple[str, ...]) -> list[tuple[str, str | None]]:
    """For each text, the first logged recompile's failed guard containing it (None where none does)."""
    reasons = [
        re.sub(r"\s+\(HINT:.*$", "", r.failures[0].reason).strip()
        for r in parse_recompiles(result.output)
        if r.failures
    ]
    return [(text, next((r for r in reasons if text in r), None)) for text in texts]


def _code(text: str) -> str:
    cut = text if len(text) <= WIDTH else text[: WIDTH - 1] + "…"
    return "<code>" + html.escape(cut).replace("|", "&#124;") + "</code>"


def _link(section: str) -> str:
    page, _, anchor = section.partition("#")
    url = page.removesuffix(".md") + "/" + (f"#{anchor}" if anchor else "")
    return relative_link(PAGE_URL, url.split("#")[0]) + (f"#{anchor}" if anchor else "")


def table(record: BuildRecord, rows: list[Row]) -> str:
    """The triage table: one row per symptom, its quoted line from this build's run and the link."""
    out = [
        "| you see | look for (this torch's run printed) | the cause the section measures | what to do |",
        "|---|---|---|---|",
    ]
    for row in rows:
        result = _result(record, row)
        line = looked_for(result, row.look)
        if row.guards:
            found = looked_for_each(result, row.guards)
            quoted = "<br>".join(
                _code(ln) if ln else f"no failed guard with <code>{html.escape(text)}</code> in its run on this torch"
                for text, ln in found
            )
        elif not line:
            quoted = "its run printed no such line on this torch: see the section"
        elif row.own_output and "recompiles" in row.logs.split(","):
            n = len(parse_recompiles(result.output))  # its count says what it says, recompiled or not
            quoted = _code(line) + f" (*its output*; the run logged {n} recompile{'' if n == 1 else 's'})"
        else:
            quoted = _code(line) + (" (*its output*)" if row.own_output else "")
        link = f"[{row.title}]({_link(row.section)})"
        if row.fix_section != row.section:
            link += f": [its remedies, run here]({_link(row.fix_section)})"
        out.append(f"| {row.symptom} | {quoted} | {row.cause} | {link} |")
    return "\n".join(out) + "\n"


def sections(rows: list[Row]) -> list[str]:
    """The sections the rows send a reader to, in order, each once."""
    return list(dict.fromkeys(r.section for r in rows))
