"""Small helpers shared by chapter code."""

from __future__ import annotations

import re

STEP_RE = r"^(?P<label>.+?)\s+(?:unique_graphs|graphs)=(?P<graphs>\d+)\s*$"


def code(text: str) -> str:
    """Inline code that survives any backticks and pipes inside (for table cells)."""
    text = text.replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def shorten(text: str, width: int = 110) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def table(header: list[str], rows: list[list[str]], align: str = "") -> str:
    align = align or "-" * len(header)
    marks = {"-": "---", "r": "---:", "c": ":---:"}
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks[a] for a in align) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def steps(stdout: str) -> list[tuple[str, int]]:
    """The `label ... graphs=N` lines a counting snippet prints, in order."""
    return [(m.group("label").strip(), int(m.group("graphs"))) for m in re.finditer(STEP_RE, stdout, re.M)]


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"
