"""Facts and tables for lesson 2, "Graph breaks" (docs/breaks.md).

Each `@fact` reads a recorded run and returns what it measured, the output lines it rests on and
the named outcome it took; the page's explain blocks hold the sentences, one per outcome. The
functions here build tables; they return no prose.
"""

from __future__ import annotations

import re

from ...run.record import SnippetResult
from ..claims import Derived, Measured, fact, line_of, markers_for, page_table, run
from ..parse.recompiles import parse_recompiles
from .common import code, plural, shorten, table

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
    outcomes=("all broke", "some broke", "none broke"),
)
def cause_counts(result: SnippetResult) -> Measured:
    found = causes(result)
    if not found:
        raise LookupError("no explain() lines")
    counts = {c["fn"]: (c["graphs"], c["breaks"]) for c in found}
    broke = [fn for fn, (_, b) in counts.items() if b > 0]
    whole = [fn for fn, (_, b) in counts.items() if b == 0]
    outcome = "all broke" if len(broke) == len(counts) else "none broke" if not broke else "some broke"
    return Measured(
        counts,
        tuple(_cause_ev(result, c["fn"]) for c in found),
        outcome,
        {
            "total": Derived(len(counts)),
            "broke": Derived(len(broke)),
            "whole": Derived(whole, ", ".join(code(fn) for fn in whole) or "none"),
        },
    )


@fact(
    "breaks: graphs per break (explain())",
    CAUSES_RUN,
    outcomes=("one graph more than breaks", "other counts"),
)
def graphs_per_break(result: SnippetResult) -> Measured:
    found = [c for c in causes(result) if c["breaks"] > 0]
    if not found:
        raise LookupError("no function broke")
    one_more = all(c["graphs"] == c["breaks"] + 1 for c in found)
    return Measured(
        "breaks + 1" if one_more else "other",
        tuple(_cause_ev(result, c["fn"]) for c in found),
        "one graph more than breaks" if one_more else "other counts",
    )


@fact(
    "breaks: explain() reason for .item()",
    CAUSES_RUN,
    show=lambda v: shorten(v, 80),
    outcomes=("gave a reason", "did not break"),
)
def item_reason(result: SnippetResult) -> Measured:
    c = next(c for c in causes(result) if c["fn"] == "reads_item")
    if not c["breaks"]:
        return Measured("no break", (_cause_ev(result, "reads_item"),), "did not break")
    reason = c["reasons"][0]
    return Measured(
        reason,
        (_reason_ev(result, "reads_item", reason),),
        "gave a reason",
        {"reason": Derived(reason, shorten(reason, 100))},
    )


def _explain_rows(result: SnippetResult, labels: dict[str, str]) -> list[list[str]]:
    """One row per function explain() counted: its name, what it does, graphs, breaks, reasons."""
    return [
        [
            code(c["fn"]),
            labels.get(c["fn"], "—"),
            str(c["graphs"]) + markers_for([_cause_ev(result, c["fn"])]),
            str(c["breaks"]),
            "<br>".join(code(shorten(r, 80)) + markers_for([_reason_ev(result, c["fn"], r)]) for r in c["reasons"])
            or "—",
        ]
        for c in causes(result)
    ]


@page_table
def causes_table(result: SnippetResult) -> str:
    header = ["function", "what it does", "graphs", "breaks", "reason explain() gave"]
    return table(header, _explain_rows(result, CAUSES), "--rr-")


# -- TORCH_LOGS=graph_breaks ---------------------------------------------------------------------
def logged_breaks(result: SnippetResult) -> list[str]:
    """The first line of each graph break the graph_breaks channel reported."""
    return [line for line in result.log("graph_breaks").splitlines() if line.startswith("Graph break")]


@fact("breaks: graph breaks on the graph_breaks channel", LOGGED, outcomes=("none", "one", "several"))
def logged_count(result: SnippetResult) -> Measured:
    lines = logged_breaks(result)
    n = len(lines)
    return Measured(
        n,
        tuple(line_of(result, ln) for ln in lines) or (line_of(result, "halfway"),),
        "none" if n == 0 else "one" if n == 1 else "several",
        {"n": Derived(n)},
    )


_WHERE = (
    re.compile(r"in user code at \S+?:(?P<line>\d+)"),
    re.compile(r'File "[^"]*logged\.py", line (?P<line>\d+), in smooth'),
)


@fact(
    "breaks: where the graph_breaks channel places the break",
    LOGGED,
    show=lambda v: f"line {v}" if v else "not given",
    outcomes=("line given", "not given"),
)
def logged_where(result: SnippetResult) -> Measured:
    for line in result.log("graph_breaks").splitlines():
        for rx in _WHERE:
            m = rx.search(line)
            if m:
                return Measured(
                    int(m.group("line")), (line_of(result, line.strip()),), "line given", {"line": m.group("line")}
                )
    return Measured(None, (line_of(result, "halfway"),), "not given")


_WHY = (
    re.compile(r"^Graph Break Reason: (?P<why>.+)$"),  # 2.7 on
    re.compile(r"^Reason: (?P<why>.+)$"),  # 2.6
    re.compile(r"^Graph break: (?P<why>.+?) from user code at:$"),  # 2.2
    re.compile(r"^torch\._dynamo\.exc\.Unsupported: (?P<why>.+)$"),  # 2.3 to 2.5: the exception ends the traceback
)


@fact(
    "breaks: why, on the graph_breaks channel",
    LOGGED,
    show=lambda v: shorten(v, 80) if v else "not given",
    outcomes=("reason given", "not given"),
)
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
            return Measured(why, (line_of(result, at),), "reason given", {"why": Derived(why, shorten(why, 110))})
    return Measured(None, (line_of(result, "halfway"),), "not given")


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
    outcomes=("no ids printed", "split at the break", "one graph on the first call"),
)
def compile_ids(result: SnippetResult) -> Measured:
    calls = compile_id_steps(result)
    if not calls:
        raise LookupError("no calls printed")
    ids = [[cid for cid, _ in c["graphs"]] for c in calls]
    flat = [cid for group in ids for cid in group]
    frames = sorted({cid.split("/")[0] for cid in flat if "/" in cid})
    evidence = tuple(_id_ev(result, cid) for cid in flat) + (line_of(result, "call "),)
    if not flat:
        return Measured(ids, evidence, "no ids printed")
    slots = {
        "n_graphs": Derived(len(flat), plural(len(flat), "graph")),
        "ids": Derived(flat, ", ".join(code("[" + i + "]") for i in flat)),
        "n_frames": Derived(len(frames), plural(len(frames), "frame")),
        "frames": Derived(frames, ", ".join(code(f) for f in frames)),
    }
    if len(ids[0]) < 2:
        return Measured(ids, evidence, "one graph on the first call", slots)
    first, second = ids[0][:2]
    slots |= {"first": f"[{first}]", "second": f"[{second}]"}
    return Measured(ids, evidence, "split at the break", slots)


@fact(
    "breaks: the same tensor again (second call)",
    COMPILE_IDS,
    show=lambda v: v,
    outcomes=("reused every entry", "compiled again"),
)
def second_call(result: SnippetResult) -> Measured:
    calls = compile_id_steps(result)
    if len(calls) < 2:
        raise LookupError("fewer than two calls printed")
    again = [cid for cid, _ in calls[1]["graphs"]]
    evidence = (line_of(result, "call 2: "), line_of(result, "call 3: "))
    if not again:
        return Measured("compiled nothing", evidence, "reused every entry")
    ids = Derived(again, ", ".join(code("[" + i + "]") for i in again))
    return Measured(
        f"compiled {len(again)}", evidence + tuple(_id_ev(result, c) for c in again), "compiled again", {"ids": ids}
    )


@fact(
    "breaks: the resume function's name",
    COMPILE_IDS,
    show=lambda v: ", ".join(v) or "none logged",
    outcomes=("logged", "none logged"),
)
def resume_names(result: SnippetResult) -> Measured:
    names = sorted({r.function for r in parse_recompiles(result.log("recompiles")) if "resume" in r.function})
    evidence = tuple(line_of(result, f"Recompiling function {n} ") for n in names)
    if not names:
        return Measured(names, (line_of(result, "call "),), "none logged")
    second = [cid for group in compile_ids(result).value for cid in group if cid.startswith("1/")]
    evidence += tuple(_id_ev(result, c) for c in second[:1])
    return Measured(names, evidence, "logged", {"names": Derived(names, ", ".join(code(n) for n in names))})


@page_table
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


# -- what to do: the remedies, run ----------------------------------------------------------------
REMEDIES = run("breaks/remedies.py")
FULLGRAPH = run("breaks/fullgraph.py")
IDS_FIXED = run("breaks/compile_ids_fixed.py", "recompiles")

REWRITES = {
    "branch_on_values": "`torch.where` instead of `if`",
    "prints": "the `print` moved to the caller",
    "calls_c_code": "the C function run once, outside",
    "reads_item": "the peak kept as a tensor",
    "reads_item_captured": "`.item()` kept, `capture_scalar_outputs=True`",
}


@fact(
    "breaks: the four causes rewritten (graphs/breaks)",
    REMEDIES,
    show=lambda v: ", ".join(f"{fn} {g}/{b}" for fn, (g, b) in v.items()),
    outcomes=("all one graph", "some still broke"),
)
def rewrites(result: SnippetResult) -> Measured:
    found = [c for c in causes(result) if c["fn"] != "reads_item_captured"]
    if len(found) != 4:
        raise LookupError(f"expected four rewritten functions, read {len(found)}")
    counts = {c["fn"]: (c["graphs"], c["breaks"]) for c in found}
    broke = [fn for fn, (g, b) in counts.items() if b or g != 1]
    return Measured(
        counts,
        tuple(_cause_ev(result, c["fn"]) for c in found),
        "some still broke" if broke else "all one graph",
        {"broke": Derived(broke, ", ".join(code(fn) for fn in broke) or "none")},
    )


@fact(
    "breaks: .item() with capture_scalar_outputs",
    REMEDIES,
    show=lambda v: v,
    outcomes=("one graph", "still broke"),
)
def item_captured(result: SnippetResult) -> Measured:
    c = next(c for c in causes(result) if c["fn"] == "reads_item_captured")
    evidence = (_cause_ev(result, "reads_item_captured"),)
    if c["breaks"] == 0 and c["graphs"] == 1:
        return Measured("one graph", evidence, "one graph")
    reason = c["reasons"][0] if c["reasons"] else ""
    if reason:
        evidence += (_reason_ev(result, "reads_item_captured", reason),)
    return Measured(
        f"{c['graphs']}/{c['breaks']}",
        evidence,
        "still broke",
        {
            "n": Derived(c["breaks"], plural(c["breaks"], "break")),
            "reason": Derived(reason, shorten(reason, 100) or "none"),
        },
    )


@page_table
def rewrites_table(result: SnippetResult) -> str:
    header = ["function", "rewritten with", "graphs", "breaks", "reason explain() gave"]
    return table(header, _explain_rows(result, REWRITES), "--rr-")


_RAISED = re.compile(r"^raised (?P<error>\w+)$")
_NAMES = re.compile(r'^names: File "[^"]*fullgraph\.py", line (?P<line>\d+), in (?P<fn>\w+)$')


@fact(
    "breaks: fullgraph=True at the break",
    FULLGRAPH,
    show=lambda v: v,
    outcomes=("raised, naming the line", "raised, no line named", "no error"),
)
def fullgraph_break(result: SnippetResult) -> Measured:
    lines = [ln.strip() for ln in result.stdout.splitlines()]
    raised = next((m for m in map(_RAISED.match, lines) if m), None)
    if raised is None:
        if "compiled with fullgraph=True, no error" not in lines:
            raise LookupError("neither an error nor a compile printed")
        return Measured("no error", (line_of(result, "compiled with fullgraph=True"),), "no error")
    evidence = (line_of(result, raised.group(0)),)
    named = next((m for m in map(_NAMES.match, lines) if m), None)
    if named is None:
        return Measured(raised["error"], evidence, "raised, no line named", {"error": raised["error"]})
    return Measured(
        f"{raised['error']} at line {named['line']}",
        evidence + (line_of(result, named.group(0)),),
        "raised, naming the line",
        {"error": raised["error"], "line": named["line"]},
    )


@fact(
    "breaks: compile ids without the break",
    IDS_FIXED,
    show=lambda v: "; ".join(" ".join(f"[{c}]" for c in ids) or "none" for ids in v),
    outcomes=("one frame", "several frames", "no ids printed"),
)
def ids_without_break(result: SnippetResult) -> Measured:
    calls = compile_id_steps(result)
    if len(calls) != 3:
        raise LookupError(f"expected three calls, read {len(calls)}")
    ids = [[cid for cid, _ in c["graphs"]] for c in calls]
    flat = [cid for group in ids for cid in group]
    evidence = tuple(_id_ev(result, cid) for cid in flat) + (line_of(result, "call 3: "),)
    if not flat:
        return Measured(ids, evidence, "no ids printed")
    frames = sorted({cid.split("/")[0] for cid in flat})
    slots = {
        "n_graphs": Derived(len(flat), plural(len(flat), "graph")),
        "ids": Derived(flat, ", ".join(code("[" + i + "]") for i in flat)),
        "third": Derived(ids[2], ", ".join(code("[" + i + "]") for i in ids[2]) or "nothing"),
        "n_frames": Derived(len(frames), plural(len(frames), "frame")),
    }
    return Measured(ids, evidence, "one frame" if len(frames) == 1 else "several frames", slots)
