"""Render code for lesson 2, "Graph breaks" (docs/breaks.md).

Measure → fact → sentence, as in guards.py: each `@fact` reads a recorded run and returns what it
measured with the output lines it rests on; the render functions turn facts into claims.
"""

from __future__ import annotations

import re

from ..claims import Derived, Measured, claim, fact, line_of, markers_for, run
from ..parse.recompiles import parse_recompiles
from ..record import SnippetResult
from .common import across, code, plural, shorten, table  # noqa: F401  (across: for the page)

CAUSES_RUN = run("breaks/causes.py")
LOGGED = run("breaks/logged.py", "graph_breaks")
COMPILE_IDS = run("breaks/compile_ids.py", "recompiles")

CAUSES = {
    "branch_on_values": "`if` on a tensor's value",
    "prints": "`print`",
    "calls_c_code": "a C function (`zlib.crc32`)",
    "reads_item": "`.item()`",
}
_CAUSE = re.compile(r"^(?P<fn>\w+): graphs=(?P<graphs>\d+) breaks=(?P<breaks>\d+)\s*$")


# -- what breaks a graph -------------------------------------------------------------------------
def causes(result: SnippetResult) -> list[dict]:
    rows, current = [], None
    for line in result.stdout.splitlines():
        m = _CAUSE.match(line)
        if m:
            current = {
                "fn": m.group("fn"),
                "graphs": int(m.group("graphs")),
                "breaks": int(m.group("breaks")),
                "reasons": [],
            }
            rows.append(current)
        elif current is not None and line.strip().startswith("reason:"):
            current["reasons"].append(line.strip()[len("reason:") :].strip())
    return rows


def _cause_ev(result: SnippetResult, fn: str):
    return line_of(result, f"{fn}: graphs=")


def _reason_ev(result: SnippetResult, fn: str, reason: str):
    lines = result.output.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith(f"{fn}: graphs=")), 0)
    return line_of(result, "reason: " + reason[:80], start)


@fact(
    "breaks: explain() per cause (graphs/breaks)",
    CAUSES_RUN,
    show=lambda v: ", ".join(f"{fn} {g}/{b}" for fn, (g, b) in v.items()),
)
def cause_counts(result: SnippetResult) -> Measured:
    found = causes(result)
    if not found:
        raise LookupError("no explain() lines")
    return Measured(
        {c["fn"]: (c["graphs"], c["breaks"]) for c in found}, tuple(_cause_ev(result, c["fn"]) for c in found)
    )


@fact("breaks: explain() reason for .item()", CAUSES_RUN, show=lambda v: shorten(v, 80))
def item_reason(result: SnippetResult) -> Measured:
    c = next(c for c in causes(result) if c["fn"] == "reads_item")
    return Measured(c["reasons"][0], (_reason_ev(result, "reads_item", c["reasons"][0]),))


def causes_table(result: SnippetResult) -> str:
    rows = [
        [
            code(c["fn"]),
            CAUSES.get(c["fn"], "—"),
            str(c["graphs"]) + markers_for([_cause_ev(result, c["fn"])]),
            str(c["breaks"]),
            "<br>".join(code(shorten(r, 80)) + markers_for([_reason_ev(result, c["fn"], r)]) for r in c["reasons"])
            or "—",
        ]
        for c in causes(result)
    ]
    return table(["function", "what it does", "graphs", "breaks", "reason explain() gave"], rows, "--rr-")


def causes_summary(result: SnippetResult) -> str:
    counts = cause_counts(result)
    broke = [fn for fn, (_, b) in counts.value.items() if b > 0]
    whole = [fn for fn, (_, b) in counts.value.items() if b == 0]
    text = [
        claim(
            (
                "On this torch, all {total} functions broke their graph"
                if len(broke) == len(counts.value)
                else "On this torch, {broke} of the {total} functions broke their graph"
            )
            + (
                ", each into one more graph than it has breaks"
                if broke and all(counts.value[fn][0] == counts.value[fn][1] + 1 for fn in broke)
                else ""
            )
            + ".",
            broke=Derived(len(broke)),
            total=Derived(len(counts.value)),
            evidence=list(counts.evidence),
        ).markdown()
    ]
    if whole:
        text.append(
            claim(
                "Traced whole, without a break: {fns}.",
                fns=Derived(whole, ", ".join(code(fn) for fn in whole)),
                evidence=[_cause_ev(result, fn) for fn in whole],
            ).markdown()
        )
    item = item_reason(result) if "reads_item" in broke else None
    if item is not None:
        text.append(
            claim(
                "For `.item()`, `explain` gave the reason {q_reason}.",
                q_reason=Derived(item.value, shorten(item.value, 100)),
                evidence=list(item.evidence),
            ).markdown()
        )
    return " ".join(text)


# -- TORCH_LOGS=graph_breaks ---------------------------------------------------------------------
def logged_breaks(result: SnippetResult) -> list[str]:
    """The first line of each graph break the graph_breaks channel reported."""
    return [line for line in result.log("graph_breaks").splitlines() if line.startswith("Graph break")]


@fact("breaks: graph breaks on the graph_breaks channel", LOGGED)
def logged_count(result: SnippetResult) -> Measured:
    lines = logged_breaks(result)
    return Measured(len(lines), tuple(line_of(result, ln) for ln in lines) or (line_of(result, "halfway"),))


_WHERE = (
    re.compile(r"in user code at \S+?:(?P<line>\d+)"),
    re.compile(r'File "[^"]*logged\.py", line (?P<line>\d+), in smooth'),
)


@fact("breaks: where the graph_breaks channel places the break", LOGGED, show=lambda v: f"line {v}")
def logged_where(result: SnippetResult) -> Measured:
    for line in result.log("graph_breaks").splitlines():
        for rx in _WHERE:
            m = rx.search(line)
            if m:
                return Measured(int(m.group("line")), (line_of(result, line.strip()),))
    raise LookupError("no location on the graph_breaks channel")


_WHY = (
    re.compile(r"^Graph Break Reason: (?P<why>.+)$"),  # 2.7 on
    re.compile(r"^Reason: (?P<why>.+)$"),  # 2.6
    re.compile(r"^Graph break: (?P<why>.+?) from user code at:$"),  # 2.2
    re.compile(r"^torch\._dynamo\.exc\.Unsupported: (?P<why>.+)$"),  # 2.3 to 2.5: the exception ends the traceback
)


@fact("breaks: why, on the graph_breaks channel", LOGGED, show=lambda v: shorten(v, 80))
def logged_why(result: SnippetResult) -> Measured:
    lines = result.log("graph_breaks").splitlines()
    for rx in _WHY:
        for i, line in enumerate(lines):
            m = rx.match(line.strip())
            if not m:
                continue
            why, at = m.group("why").strip().removeprefix("Unsupported: "), line.strip()
            if why.endswith(":"):  # 2.10 on: "while tracing CALL:", then the reason on its own line
                nxt = next((ln for ln in lines[i + 1 :] if ln.strip()), "")
                if nxt and not nxt.startswith(" "):
                    why, at = nxt.strip(), nxt.strip()
            return Measured(why, (line_of(result, at),))
    raise LookupError("no reason on the graph_breaks channel")


def logged_summary(result: SnippetResult) -> str:
    n = logged_count(result)
    if not n.value:
        return claim(
            "This torch wrote nothing on the `graph_breaks` channel for this run.", evidence=list(n.evidence)
        ).markdown()
    text = [
        claim(
            "The channel reported {n} {word}.",
            n=Derived(n.value),
            word=Derived("graph break" if n.value == 1 else "graph breaks"),
            evidence=list(n.evidence),
        ).markdown()
    ]
    try:
        where = logged_where(result)
        text.append(
            claim(
                "It says where the break is in your code (line {line} of `logged.py`, the `print`)",
                line=where.value,
                evidence=list(where.evidence),
            ).markdown()
        )
    except LookupError:
        where = None
    try:
        why = logged_why(result)
        text.append(
            claim(
                ("and " if where else "It says ") + "why dynamo stopped there: {q_why}.",
                q_why=Derived(why.value, shorten(why.value, 110)),
                evidence=list(why.evidence),
            ).markdown()
        )
    except LookupError:
        if where:
            text[-1] += "."
    return " ".join(text)


# -- compile ids and resume functions ------------------------------------------------------------
_GRAPH = re.compile(r"^\s*compiled graph \[(?P<cid>[^\]]+)\]: (?P<ops>.*)$")
_CALL = re.compile(r"^call (?P<n>\d+): (?P<label>.*)$")


def compile_id_steps(result: SnippetResult) -> list[dict]:
    """Per call: the compile ids of the graphs it compiled, their ops, and the functions recompiled."""
    calls, pending = [], []
    for line in result.output.splitlines():
        m = _CALL.match(line)
        if m:
            if calls:
                calls[-1]["recompiled"] = [r.function for r in parse_recompiles("\n".join(pending))]
            calls.append({"label": m.group("label"), "graphs": [], "recompiled": []})
            pending = []
            continue
        g = _GRAPH.match(line)
        if g and calls:
            calls[-1]["graphs"].append((g.group("cid"), g.group("ops")))
        pending.append(line)
    if calls:
        calls[-1]["recompiled"] = [r.function for r in parse_recompiles("\n".join(pending))]
    return calls


def _id_ev(result: SnippetResult, cid: str):
    return line_of(result, f"compiled graph [{cid}]")


@fact(
    "breaks: compile ids, per call (float32, again, float64)",
    COMPILE_IDS,
    show=lambda v: "; ".join(" ".join(f"[{c}]" for c in ids) or "none" for ids in v),
)
def compile_ids(result: SnippetResult) -> Measured:
    calls = compile_id_steps(result)
    if not calls:
        raise LookupError("no calls printed")
    ids = [[cid for cid, _ in c["graphs"]] for c in calls]
    return Measured(ids, tuple(_id_ev(result, cid) for group in ids for cid in group) + (line_of(result, "call "),))


@fact("breaks: the resume function's name", COMPILE_IDS, show=lambda v: ", ".join(v) or "none logged")
def resume_names(result: SnippetResult) -> Measured:
    names = sorted({r.function for r in parse_recompiles(result.log("recompiles")) if "resume" in r.function})
    return Measured(names, tuple(line_of(result, f"Recompiling function {n} ") for n in names))


def compile_id_table(result: SnippetResult) -> str:
    rows = []
    for i, c in enumerate(compile_id_steps(result), 1):
        graphs = "<br>".join(
            f"{code('[' + cid + ']')} {code(ops)}" + markers_for([_id_ev(result, cid)]) for cid, ops in c["graphs"]
        )
        rows.append(
            [
                f"{i}: {c['label']}",
                graphs or "none: every frame reused an entry",
                "<br>".join(code(f) for f in c["recompiled"]) or "—",
            ]
        )
    return table(["call", "graphs compiled, with their compile id", "functions recompiled (log)"], rows)


def resume_functions(result: SnippetResult) -> list[str]:
    return resume_names(result).value


def compile_id_summary(result: SnippetResult) -> str:
    ids = compile_ids(result)
    flat = [cid for group in ids.value for cid in group]
    if not flat:
        return claim("The backend printed no compile id on this torch.", evidence=list(ids.evidence)).markdown()
    frames = sorted({cid.split("/")[0] for cid in flat if "/" in cid})
    text = [
        claim(
            "This run compiled {n} {word} with the ids {ids}: {f} {fword} ({frames}).",
            n=Derived(len(flat)),
            word=Derived("graph" if len(flat) == 1 else "graphs"),
            ids=Derived(flat, ", ".join(code("[" + i + "]") for i in flat)),
            f=Derived(len(frames)),
            fword=Derived("frame" if len(frames) == 1 else "frames"),
            frames=Derived(frames, ", ".join(code(f) for f in frames)),
            evidence=[_id_ev(result, cid) for cid in flat],
        ).markdown()
    ]
    resumes = resume_names(result)
    second = [cid for cid in flat if cid.startswith("1/")]
    if resumes.value and second:
        text.append(
            claim(
                "Frame `1` is not a function you wrote: the recompile log calls it {names}, the resume function dynamo "
                "generated for the code after the break.",
                names=Derived(resumes.value, ", ".join(code(r) for r in resumes.value)),
                evidence=list(resumes.evidence) + [_id_ev(result, second[0])],
            ).markdown()
        )
    if len(ids.value) > 1 and not ids.value[1]:
        text.append(
            claim(
                "The second call, with the same tensor, compiled nothing: both frames reused their entries.",
                evidence=[line_of(result, "call 2: "), line_of(result, "call 3: ")],
            ).markdown()
        )
    return " ".join(text)


def compile_ids_claim(result: SnippetResult) -> str:
    """The first call's compile ids, as a claim resting on the lines the backend printed."""
    ids = compile_ids(result).value
    if not ids or len(ids[0]) < 2:
        return ""
    a, b = ids[0][:2]
    return claim(
        "The first call compiled the graph before the break as {q_first} and the one after it as {q_second}.",
        evidence=[_id_ev(result, a), _id_ev(result, b)],
        q_first=f"[{a}]",
        q_second=f"[{b}]",
    ).markdown()
