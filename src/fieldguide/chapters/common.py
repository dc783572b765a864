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


# -- other releases, from the committed records (never typed) ------------------------------------
_matrix_cache: dict[tuple, tuple] = {}


def _matrix():
    """The release matrix for the build in progress: (columns, fact rows), computed once per build."""
    from .. import context, releases

    build_context = context.active()
    build = build_context.record
    key = (id(build), build.torch, build.built_at, len(build.snippets))
    if key not in _matrix_cache:
        cols = releases.of_build(build_context)
        _matrix_cache.clear()
        _matrix_cache[key] = (cols, releases.fact_rows(cols, build_context.settings.snippets_dir))
    return _matrix_cache[key]


def across(*names: str) -> str:
    """How the releases this guide measures answer the same facts: a collapsed note, one line per fact,
    rendered from the committed release records by the Across releases page's own code."""
    from .. import releases

    cols, rows = _matrix()
    lines = [f"    - {releases.history(cols, rows, name)}" for name in names]
    return (
        '??? abstract "On the other releases this guide measures"\n\n'
        + "\n".join(lines)
        + ("\n\n    Each value links from the [Across releases](../releases/) table to the output it was read from.\n")
    )
