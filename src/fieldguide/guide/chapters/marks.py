"""Facts and tables for the marks section of lesson 4 (docs/dynamic.md, "Marking dimensions"):
mark_dynamic, maybe_mark_dynamic and mark_unbacked at sizes 0 and 1, and mark_static.

Kept apart from chapters/dynamic.py so the section can move without touching the rest of the lesson.
Each `@fact` names the outcome it took; the page's explain blocks hold the sentences.
"""

from __future__ import annotations

import re

from ...run.record import SnippetResult
from ..claims import Derived, Measured, fact, line_of, page_table, run
from .common import code, plural, shorten, table

ZERO_ONE = run("dynamic/zero_one.py")
FIRST_SIZE_ONE = run("dynamic/first_size_one.py")
MARK_STATIC = run("dynamic/mark_static.py")

_ROW = re.compile(r"^(?P<mark>[\w=+ ().,]+?): rows=(?P<rows>\d+) (?:graphs=(?P<graphs>\d+)|raised (?P<error>.*))$")
_ABSENT = ": does not exist in this torch"


def mark_runs(result: SnippetResult) -> dict[str, list[dict]]:
    """{mark: [{rows, graphs | error}, ...]}, plus marks this torch does not have (an empty list)."""
    out: dict[str, list[dict]] = {}
    for line in result.stdout.splitlines():
        if line.endswith(_ABSENT):
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


@page_table
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


def _line(result: SnippetResult, mark: str, r: dict) -> str:
    return f"{mark}: rows={r['rows']} "


def _evidence(result: SnippetResult, mark: str, rs: list[dict]) -> tuple:
    return tuple(line_of(result, _line(result, mark, r)) for r in rs)


def _counts(rs: list[dict]) -> Derived:
    shown = ", ".join(
        f"{r['graphs']} after rows={r['rows']}" if r["graphs"] is not None else f"raised at rows={r['rows']}"
        for r in rs
    )
    return Derived([r["graphs"] for r in rs], shown)


_SIZES = (4, 5, 1, 0)
_ZERO_ONE_OUTCOMES = ("new graphs at 1 and 0", "one graph for every size", "raised", "does not exist")


def _zero_one(mark: str, result: SnippetResult) -> Measured:
    """One mark's run at 4, 5, 1 and 0 rows, by outcome."""
    rs = mark_runs(result).get(mark)
    if rs is None:
        raise LookupError(f"{mark}: not printed")
    if rs == []:
        line = line_of(result, mark + _ABSENT)
        return Measured("does not exist", (line,), "does not exist", {"line": line.line})
    if tuple(r["rows"] for r in rs) != _SIZES:
        raise ValueError(f"{mark}: sizes printed {[r['rows'] for r in rs]}")
    evidence = _evidence(result, mark, rs)
    slots: dict[str, object] = {"counts": _counts(rs)}
    errors = [r for r in rs if r["error"]]
    if errors:
        slots["error"] = Derived(errors[0]["error"], shorten(errors[0]["error"], 100))
        slots["at"] = Derived(", ".join(f"rows={r['rows']}" for r in errors))
        return Measured("raised", evidence, "raised", slots)
    graphs = [r["graphs"] for r in rs]
    if graphs == [1, 1, 1, 1]:
        return Measured(graphs, evidence, "one graph for every size", slots)
    if graphs == [1, 1, 2, 3]:
        return Measured(graphs, evidence, "new graphs at 1 and 0", slots)
    raise ValueError(f"{mark}: graphs {graphs}")


@fact(
    "marks: mark_dynamic at rows 4, 5, 1, 0",
    ZERO_ONE,
    show=lambda v: ", ".join(map(str, v)) if isinstance(v, list) else v,
    outcomes=_ZERO_ONE_OUTCOMES,
)
def mark_dynamic_sizes(result: SnippetResult) -> Measured:
    return _zero_one("mark_dynamic", result)


@fact(
    "marks: mark_unbacked at rows 4, 5, 1, 0",
    ZERO_ONE,
    show=lambda v: ", ".join(map(str, v)) if isinstance(v, list) else v,
    outcomes=_ZERO_ONE_OUTCOMES,
)
def mark_unbacked_sizes(result: SnippetResult) -> Measured:
    return _zero_one("mark_unbacked", result)


@fact(
    "marks: maybe_mark_dynamic against mark_dynamic (rows 4, 5, 1, 0)",
    ZERO_ONE,
    show=lambda v: v,
    outcomes=("measured the same", "measured differently"),
)
def maybe_against_mark(result: SnippetResult) -> Measured:
    runs = mark_runs(result)
    a, b = runs.get("mark_dynamic"), runs.get("maybe_mark_dynamic")
    if not a or not b:
        raise LookupError("mark_dynamic or maybe_mark_dynamic not printed")
    evidence = _evidence(result, "mark_dynamic", a) + _evidence(result, "maybe_mark_dynamic", b)
    key = [(r["rows"], r["graphs"], r["error"]) for r in a]
    same = key == [(r["rows"], r["graphs"], r["error"]) for r in b]
    outcome = "measured the same" if same else "measured differently"
    return Measured(outcome, evidence, outcome, {"maybe": _counts(b), "mark": _counts(a)})


@fact(
    "marks: a first call with one row",
    FIRST_SIZE_ONE,
    show=lambda v: v,
    outcomes=("both compiled again at 4 rows", "both kept one graph", "the marks differ"),
)
def first_size_one(result: SnippetResult) -> Measured:
    runs = mark_runs(result)
    marks = ("mark_dynamic", "maybe_mark_dynamic")
    if any([r["rows"] for r in runs.get(m, [])] != [1, 4] for m in marks):
        raise LookupError("the rows 1 and 4 were not printed for both marks")
    evidence = sum((_evidence(result, m, runs[m]) for m in marks), ())
    if any(r["error"] for m in marks for r in runs[m]):
        raise ValueError("a mark raised on a first call with one row")
    graphs = {m: [r["graphs"] for r in runs[m]] for m in marks}
    slots = {"counts": _counts(runs["mark_dynamic"])}
    if graphs["mark_dynamic"] != graphs["maybe_mark_dynamic"]:
        return Measured(
            "differ",
            evidence,
            "the marks differ",
            {"mark": _counts(runs["mark_dynamic"]), "maybe": _counts(runs["maybe_mark_dynamic"])},
        )
    if graphs["mark_dynamic"] == [1, 2]:
        return Measured("compiled again", evidence, "both compiled again at 4 rows", slots)
    if graphs["mark_dynamic"] == [1, 1]:
        return Measured("one graph", evidence, "both kept one graph", slots)
    raise ValueError(f"graphs {graphs}")


@fact(
    "marks: mark_static under dynamic=True",
    MARK_STATIC,
    show=lambda v: v,
    outcomes=("the mark kept the dimension static", "no effect"),
)
def mark_static(result: SnippetResult) -> Measured:
    runs = mark_runs(result)
    plain = runs.get("dynamic=True", [])
    marked = runs.get("dynamic=True + mark_static(x, 0)", [])
    if len(plain) != 3 or len(marked) != 3 or any(r["graphs"] is None for r in plain + marked):
        raise LookupError("the run printed no three counts per setting")
    evidence = _evidence(result, "dynamic=True", plain[-1:]) + _evidence(
        result, "dynamic=True + mark_static(x, 0)", marked
    )
    slots = {
        "plain": Derived(plain[-1]["graphs"], plural(plain[-1]["graphs"], "graph")),
        "marked": Derived(marked[-1]["graphs"], plural(marked[-1]["graphs"], "graph")),
    }
    if plain[-1]["graphs"] == 1 and [r["graphs"] for r in marked] == [1, 2, 3]:
        return Measured("static", evidence, "the mark kept the dimension static", slots)
    if plain[-1]["graphs"] == marked[-1]["graphs"] == 1:
        return Measured("no effect", evidence, "no effect", slots)
    raise ValueError(f"graphs {[r['graphs'] for r in plain]} and {[r['graphs'] for r in marked]}")


# -- what to do: a mark for sizes 0 and 1 ---------------------------------------------------------
@fact(
    "marks: the marks that kept one graph at rows 4, 5, 1, 0",
    ZERO_ONE,
    show=lambda v: ", ".join(v) or "none",
    outcomes=("one mark", "several marks", "none"),
)
def marks_for_zero_one(result: SnippetResult) -> Measured:
    kept, evidence = [], []
    for mark in mark_runs(result):
        m = _zero_one(mark, result)
        evidence.extend(m.evidence)
        if m.outcome == "one graph for every size":
            kept.append(mark)
    outcome = "none" if not kept else "one mark" if len(kept) == 1 else "several marks"
    return Measured(
        kept, tuple(evidence), outcome, {"marks": Derived(kept, ", ".join(code(k) for k in kept) or "none")}
    )
