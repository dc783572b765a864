"""Render code for the marks section of lesson 4 (docs/dynamic.md, "Marking dimensions"):
mark_dynamic, maybe_mark_dynamic and mark_unbacked at sizes 0 and 1, and mark_static.

Kept apart from chapters/dynamic.py so the section can move without touching the rest of the lesson.
"""

from __future__ import annotations

import re

from ..record import SnippetResult
from .common import code, plural, shorten, table

_ROW = re.compile(r"^(?P<mark>[\w=+ ().,]+?): rows=(?P<rows>\d+) (?:graphs=(?P<graphs>\d+)|raised (?P<error>.*))$")


def mark_runs(result: SnippetResult) -> dict[str, list[dict]]:
    """{mark: [{rows, graphs | error}, ...]}, plus marks this torch does not have (an empty list)."""
    out: dict[str, list[dict]] = {}
    for line in result.stdout.splitlines():
        if line.endswith(": does not exist in this torch"):
            out[line.split(":")[0]] = []
            continue
        m = _ROW.match(line)
        if m:
            out.setdefault(m.group("mark"), []).append(
                {
                    "rows": int(m.group("rows")),
                    "graphs": int(m.group("graphs")) if m.group("graphs") else None,
                    "error": m.group("error") or "",
                }
            )
    return out


def _cell(run: dict) -> str:
    return str(run["graphs"]) if run["graphs"] is not None else "raised " + code(shorten(run["error"], 60))


def marks_table(result: SnippetResult) -> str:
    runs = mark_runs(result)
    order = []
    for rs in runs.values():
        for r in rs:
            if r["rows"] not in order:
                order.append(r["rows"])
    header = ["mark"] + [f"graphs after rows={n}" for n in order]
    rows = []
    for mark, rs in runs.items():
        if not rs:
            rows.append([code(mark)] + ["not in this torch"] * len(order))
            continue
        by_rows = {r["rows"]: r for r in rs}
        rows.append([code(mark)] + [_cell(by_rows[n]) if n in by_rows else "—" for n in order])
    return table(header, rows, "-" + "r" * len(order))


def _specializes(rs: list[dict]) -> list[int]:
    """The sizes at which a marked run compiled a new graph after the first (0/1 specialization)."""
    out, previous = [], None
    for r in rs:
        if r["graphs"] is None:
            continue
        if previous is not None and r["graphs"] > previous:
            out.append(r["rows"])
        previous = r["graphs"]
    return out


def marks_summary(result: SnippetResult) -> str:
    runs = mark_runs(result)
    text = []
    for mark in ("mark_dynamic", "maybe_mark_dynamic"):
        rs = runs.get(mark)
        if rs:
            new = _specializes(rs)
            errors = [r for r in rs if r["error"]]
            if new:
                text.append(
                    f"`{mark}` kept one graph while the size stayed above 1, then compiled again at "
                    + " and ".join(f"rows={n}" for n in new)
                    + ": sizes 0 and 1 are specialized, never symbolic."
                )
            elif not errors:
                text.append(f"`{mark}` kept one graph for every size here.")
            if errors:
                text.append(f"`{mark}` raised at " + ", ".join(f"rows={r['rows']}" for r in errors) + " on this torch.")
    unbacked = runs.get("mark_unbacked")
    if unbacked == []:
        text.append("`mark_unbacked` does not exist in this torch.")
    elif unbacked:
        new = _specializes(unbacked)
        text.append(
            "`mark_unbacked` kept one graph for every size, 0 and 1 included: an unbacked size has no hint, so "
            "dynamo cannot specialize on it."
            if not new and not any(r["error"] for r in unbacked)
            else "`mark_unbacked` did not keep one graph for every size on this torch; see the table."
        )
    return " ".join(text)


def first_size_one_summary(result: SnippetResult) -> str:
    runs = mark_runs(result)
    text = []
    for mark, rs in runs.items():
        if not rs:
            continue
        first = rs[0]
        later = rs[1] if len(rs) > 1 else None
        if first["error"]:
            text.append(f"`{mark}` on a first call with one row raised {code(shorten(first['error'], 80))}.")
        elif later and later["graphs"] is not None and later["graphs"] > (first["graphs"] or 0):
            text.append(
                f"`{mark}` on a first call with one row compiled a graph for that one row, and the next "
                f"size (rows={later['rows']}) compiled another: the mark could not make size 1 symbolic."
            )
        elif later:
            text.append(f"`{mark}` on a first call with one row kept one graph for rows={later['rows']} too.")
    return " ".join(text)


def static_summary(result: SnippetResult) -> str:
    runs = mark_runs(result)
    plain = runs.get("dynamic=True", [])
    marked = runs.get("dynamic=True + mark_static(x, 0)", [])
    if not plain or not marked:
        return "The run printed no counts on this torch; see its output."
    return (
        f"With `dynamic=True` alone, {plural(len(plain), 'size')} made {plural(plain[-1]['graphs'] or 0, 'graph')}; "
        f"with `mark_static(x, 0)` on each input, the same sizes made {plural(marked[-1]['graphs'] or 0, 'graph')}: "
        "the mark wins over the compile-wide setting for that one dimension."
    )
