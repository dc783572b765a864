"""Render code for lesson 2, "Graph breaks" (docs/breaks.md)."""

from __future__ import annotations

import re

from ..parse.recompiles import parse_recompiles
from ..record import SnippetResult
from .common import code, plural, shorten, table

CAUSES = {
    "branch_on_values": "`if` on a tensor's value",
    "prints": "`print`",
    "calls_c_code": "a C function (`zlib.crc32`)",
    "reads_item": "`.item()`",
}
_CAUSE = re.compile(r"^(?P<fn>\w+): graphs=(?P<graphs>\d+) breaks=(?P<breaks>\d+)\s*$")


def causes(result: SnippetResult) -> list[dict]:
    rows, current = [], None
    for line in result.stdout.splitlines():
        m = _CAUSE.match(line)
        if m:
            current = {"fn": m.group("fn"), "graphs": int(m.group("graphs")), "breaks": int(m.group("breaks")), "reasons": []}
            rows.append(current)
        elif current is not None and line.strip().startswith("reason:"):
            current["reasons"].append(line.strip()[len("reason:"):].strip())
    return rows


def causes_table(result: SnippetResult) -> str:
    rows = [[code(c["fn"]), CAUSES.get(c["fn"], "—"), str(c["graphs"]), str(c["breaks"]),
             "<br>".join(code(shorten(r, 80)) for r in c["reasons"]) or "—"] for c in causes(result)]
    return table(["function", "what it does", "graphs", "breaks", "reason explain() gave"], rows, "--rr-")


def causes_summary(result: SnippetResult) -> str:
    found = causes(result)
    broke = [c for c in found if c["breaks"] > 0]
    whole = [c for c in found if c["breaks"] == 0]
    text = [f"On this torch, {len(broke)} of the {len(found)} functions broke their graph"]
    if broke and all(c["graphs"] == c["breaks"] + 1 for c in broke):
        text[0] += ", each into one more graph than it has breaks"
    text[0] += "."
    if whole:
        text.append("Traced whole, without a break: " + ", ".join(code(c["fn"]) for c in whole) + ".")
    return " ".join(text)


# -- TORCH_LOGS=graph_breaks ---------------------------------------------------------------------
def logged_breaks(result: SnippetResult) -> list[str]:
    """The first line of each graph break the graph_breaks channel reported."""
    return [line for line in result.log("graph_breaks").splitlines() if line.startswith("Graph break")]


def logged_summary(result: SnippetResult) -> str:
    lines = logged_breaks(result)
    if not lines:
        return "This torch wrote nothing on the `graph_breaks` channel for this run."
    reason = re.search(r"^Graph Break Reason: (.*)$", result.log("graph_breaks"), re.M)
    text = (f"The channel reported {plural(len(lines), 'graph break')}. Its first line, {code(shorten(lines[0], 100))}, "
            "says where in your code the break is")
    if reason:
        text += f"; the next says why dynamo stopped there: {code(shorten(reason.group(1).rstrip(':'), 100))}"
    return text + "."


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


def compile_id_table(result: SnippetResult) -> str:
    rows = []
    for i, c in enumerate(compile_id_steps(result), 1):
        graphs = "<br>".join(f"{code('[' + cid + ']')} {code(ops)}" for cid, ops in c["graphs"]) or "none: every frame reused an entry"
        rows.append([f"{i}: {c['label']}", graphs, "<br>".join(code(f) for f in c["recompiled"]) or "—"])
    return table(["call", "graphs compiled, with their compile id", "functions recompiled (log)"], rows)


def resume_functions(result: SnippetResult) -> list[str]:
    names = [r.function for r in parse_recompiles(result.log("recompiles"))]
    return sorted({n for n in names if "resume" in n})


def compile_id_summary(result: SnippetResult) -> str:
    calls = compile_id_steps(result)
    ids = [cid for c in calls for cid, _ in c["graphs"]]
    if not ids:
        return "The backend printed no compile id on this torch."
    frames = sorted({cid.split("/")[0] for cid in ids if "/" in cid})
    text = [
        f"This run compiled {plural(len(ids), 'graph')} with the ids {', '.join(code('[' + i + ']') for i in ids)}: "
        f"{plural(len(frames), 'frame')} ({', '.join(code(f) for f in frames)})."
    ]
    resumes = resume_functions(result)
    if resumes:
        text.append(
            f"Frame `1` is not a function you wrote: the recompile log calls it {', '.join(code(r) for r in resumes)}, "
            "the resume function dynamo generated for the code after the break."
        )
    if len(calls) > 1 and not calls[1]["graphs"]:
        text.append("The second call, with the same tensor, compiled nothing: both frames reused their entries.")
    return " ".join(text)


def compile_ids_claim(result: SnippetResult) -> str:
    """The first call's compile ids, as a claim resting on the lines the backend printed."""
    from ..claims import claim, line_of

    calls = compile_id_steps(result)
    if not calls or len(calls[0]["graphs"]) < 2:
        return ""
    (a, _), (b, _) = calls[0]["graphs"][:2]
    return claim(
        "The first call compiled the graph before the break as {first} and the one after it as {second}.",
        evidence=[line_of(result, f"[{a}]"), line_of(result, f"[{b}]")], first=f"[{a}]", second=f"[{b}]",
    ).markdown()
