"""Render code for lesson 1, "What torch.compile captures" (docs/capture.md).

Every function reads a snippet's recorded output; none types a number or a verdict that the
output did not give.
"""

from __future__ import annotations

import re

from ..parse.recompiles import parse_recompiles
from ..record import SnippetResult
from .common import STEP_RE, code, plural, shorten, table

_COUNTERS = re.compile(
    r"^(?P<label>.+?)\s+frames=(?P<frames>\d+)\s+unique_graphs=(?P<graphs>\d+)\s+graph_breaks=(?P<breaks>\d+)\s*$"
)


def counter_steps(result: SnippetResult) -> list[dict]:
    """One dict per printed step: label, frames, graphs, breaks, and the functions recompiled before it."""
    steps, pending = [], []
    for line in result.output.splitlines():
        m = _COUNTERS.match(line)
        if m:
            recompiled = [r.function for r in parse_recompiles("\n".join(pending))]
            steps.append({"label": m.group("label").strip(), "frames": int(m.group("frames")),
                          "graphs": int(m.group("graphs")), "breaks": int(m.group("breaks")), "recompiled": recompiled})
            pending = []
        else:
            pending.append(line)
    return steps


def counters_table(result: SnippetResult) -> str:
    rows = []
    for s in counter_steps(result):
        rows.append([s["label"], str(s["frames"]), str(s["graphs"]), str(s["breaks"]),
                     "<br>".join(code(f) for f in s["recompiled"]) or "—"])
    return table(["after", "frames", "unique_graphs", "graph_breaks", "recompiled (TORCH_LOGS=recompiles)"], rows, "-rrr-")


def counters_summary(result: SnippetResult) -> str:
    steps = counter_steps(result)
    if len(steps) < 3:
        return "This build's run printed fewer counter lines than the snippet makes; see its output above."
    first, again, other = steps[0], steps[1], steps[2]
    text = [
        f"The first call made dynamo look at {plural(first['frames'], 'frame')} and compile "
        f"{plural(first['graphs'], 'graph')}, with {plural(first['breaks'], 'graph break')}."
    ]
    if first["breaks"] and first["graphs"] == first["breaks"] + 1:
        text.append(
            "One break, one more graph: the code before the break is one graph, and the code after it is "
            "a new frame (a *resume function*) that dynamo compiles into a graph of its own."
        )
    same = all(again[k] == first[k] for k in ("frames", "graphs", "breaks"))
    text.append(
        "Calling it again with the same tensor changed no counter: every frame found a cache entry whose guards passed."
        if same else "Calling it again with the same tensor changed the counters on this torch; see the table."
    )
    new_graphs = other["graphs"] - again["graphs"]
    names = other["recompiled"]
    text.append(
        f"The float64 tensor added {plural(new_graphs, 'graph')}"
        + (f", and the recompile log names {plural(len(names), 'function')}: {', '.join(code(n) for n in names)}. "
           "Both frames of the function recompiled, each for its own guards." if names else ".")
    )
    if other["breaks"] > again["breaks"]:
        text.append(
            f"`graph_breaks` went from {again['breaks']} to {other['breaks']}: it counts breaks each time one is "
            "compiled, not distinct places in your code."
        )
    return " ".join(text)


# -- fullgraph ----------------------------------------------------------------------------------
def fullgraph_summary(result: SnippetResult) -> str:
    out = result.stdout
    raised = re.search(r"^smooth: raised (\S+)\s*$", out, re.M)
    first = re.search(r"^first line: (.*)$", out, re.M)
    quiet_ok = re.search(r"^smooth_quietly: tensor", out, re.M)
    text = []
    if quiet_ok:
        text.append("Without a break, `fullgraph=True` changes nothing: `smooth_quietly` compiled and ran.")
    if raised:
        text.append(
            f"With the `print`, it raised `{raised.group(1)}` at the break"
            + (f", whose message starts {code(shorten(first.group(1), 100))}" if first else "")
            + ". That is the point of the flag: a break becomes an error you see, instead of a second graph you do not."
        )
    elif "compiled as one graph" in out:
        text.append("On this torch, the `print` did not break the graph: the function compiled as one graph.")
    return " ".join(text)


# -- explain ------------------------------------------------------------------------------------
def explain_numbers(result: SnippetResult) -> dict:
    out = result.stdout
    graphs = re.search(r"^graph_count: (\d+)", out, re.M)
    breaks = re.search(r"^graph_break_count: (\d+)", out, re.M)
    return {
        "graphs": int(graphs.group(1)) if graphs else None,
        "breaks": int(breaks.group(1)) if breaks else None,
        "reasons": re.findall(r"^break reason: (.*)$", out, re.M),
    }


def explain_summary(result: SnippetResult) -> str:
    n = explain_numbers(result)
    if n["graphs"] is None:
        return "This torch's `explain` printed no graph count."
    text = f"`explain` counted {plural(n['graphs'], 'graph')} and {plural(n['breaks'], 'graph break')}"
    if n["reasons"]:
        text += ", with the reason " + ", ".join(code(shorten(r, 100)) for r in n["reasons"])
    return text + ". It compiles the function itself, so the counts hold for the arguments you pass it."


# -- reset --------------------------------------------------------------------------------------
_RESET = re.compile(r"^(?P<label>[^:]+):\s+unique_graphs = (?P<graphs>\d+)\s*$", re.M)


def reset_steps(result: SnippetResult) -> list[tuple[str, int]]:
    return [(m.group("label").strip(), int(m.group("graphs"))) for m in _RESET.finditer(result.stdout)]


def reset_summary(result: SnippetResult) -> str:
    steps = reset_steps(result)
    if len(steps) < 4:
        return "This build's run printed fewer lines than the snippet makes; see its output above."
    (_, first), (_, again), (_, after_reset), (_, last) = steps[:4]
    logged = parse_recompiles(result.output)
    text = [f"Before the reset, the second call reused the entry (`unique_graphs` stayed {again})."]
    text.append(
        f"`reset()` left the counter at {after_reset}: it empties dynamo's caches, not the counters."
        if after_reset == again else f"`reset()` changed the counter from {again} to {after_reset} on this torch."
    )
    text.append(
        f"The same tensor then compiled again (`unique_graphs` {after_reset} → {last})"
        + (", and the recompile log stayed silent: with the cache empty, this is a first compile, not a recompile."
           if not logged else ".")
        if last > after_reset else "The same tensor after the reset did not compile again on this torch."
    )
    return " ".join(text)


# -- the shorthand ------------------------------------------------------------------------------
def shorthand_steps(result: SnippetResult) -> list[dict]:
    steps, pending, previous = [], [], 0
    for line in result.output.splitlines():
        m = re.match(STEP_RE, line)
        if m:
            graphs = int(m.group("graphs"))
            reasons = [f.reason for r in parse_recompiles("\n".join(pending)) for f in r.failures]
            verdict = "first compile" if previous == 0 else ("recompiled" if graphs > previous else "reused")
            steps.append({"label": m.group("label").strip(), "graphs": graphs, "verdict": verdict, "reasons": reasons})
            previous, pending = graphs, []
        else:
            pending.append(line)
    return steps


def shorthand_table(result: SnippetResult) -> str:
    rows = [[code(s["label"]), str(s["graphs"]), s["verdict"], "<br>".join(code(shorten(r, 90)) for r in s["reasons"]) or "—"]
            for s in shorthand_steps(result)]
    return table(["call", "unique_graphs", "what happened", "guard failures logged"], rows, "-r--")


def shorthand_verdict(result: SnippetResult) -> str:
    """Does the measurement agree with 'recompiles happen when shapes or dtypes change'?"""
    steps = shorthand_steps(result)
    expected = {"4x4 float32, new values": "reused", "4x4 float64": "recompiled", "8x4 float32": "recompiled"}
    got = {s["label"]: s["verdict"] for s in steps}
    agree = [label for label, v in expected.items() if got.get(label) == v]
    if len(agree) == len(expected):
        return (
            "On this torch the shorthand predicted every call: new values reused the entry, a new dtype and a "
            "new shape each recompiled, and the log named the changed property each time. It is a good first "
            "model, and it is incomplete: [lesson 3](../guards/) reads the guards themselves and finds what else "
            "a recompile can hang on."
        )
    wrong = [label for label in expected if label not in agree]
    return (
        "On this torch the shorthand missed " + ", ".join(code(w) for w in wrong)
        + " (see the table). [Lesson 3](../guards/) reads the guards themselves, which is where the real rule is."
    )


def counters_claim(result: SnippetResult) -> str:
    """The first call's counts, as a claim resting on the line the snippet printed."""
    from ..claims import claim, line_of

    steps = counter_steps(result)
    if not steps:
        return ""
    first = steps[0]
    return claim(
        "The first call counted {frames} frames and {graphs} graphs, with {breaks} graph break.",
        evidence=[line_of(result, first["label"])], frames=first["frames"], graphs=first["graphs"], breaks=first["breaks"],
    ).markdown()
