"""Render code for lesson 1, "What torch.compile captures" (docs/capture.md).

Measure → fact → sentence, as in guards.py: each `@fact` reads a snippet's recorded output and
returns what it measured with the output lines it rests on; the render functions turn facts into
claims that carry that evidence. Nothing here types a number or a verdict the output did not give.
"""

from __future__ import annotations

import re

from ..claims import Derived, Measured, claim, fact, line_of, markers_for, run
from ..parse.recompiles import attribute_to_steps, parse_recompiles
from ..record import SnippetResult
from .common import STEP_RE, across, code, plural, shorten, table  # noqa: F401  (across: for the page)

COUNTERS = run("capture/counters.py", "recompiles")
FULLGRAPH = run("capture/fullgraph.py")
EXPLAIN = run("capture/explain.py")
RESET = run("capture/reset.py", "recompiles")
SHORTHAND = run("capture/shorthand.py", "recompiles")

_COUNTERS = re.compile(
    r"^(?P<label>.+?)\s+frames=(?P<frames>\d+)\s+unique_graphs=(?P<graphs>\d+)\s+graph_breaks=(?P<breaks>\d+)\s*$"
)


def _word(n: int, word: str, many: str | None = None) -> Derived:
    """The noun after a measured count (derived from it, so not quoted)."""
    return Derived(word if n == 1 else (many or word + "s"))


# -- what the counters count ---------------------------------------------------------------------
def counter_steps(result: SnippetResult) -> list[dict]:
    """One dict per printed step: label, frames, graphs, breaks, and the functions recompiled before it."""
    return [
        {
            "label": s["label"],
            "frames": int(s["groups"]["frames"]),
            "graphs": s["graphs"],
            "breaks": int(s["groups"]["breaks"]),
            "recompiled": [r.function for r in s["recompiles"]],
        }
        for s in attribute_to_steps(result.output, _COUNTERS.pattern)
    ]


def _step_ev(result: SnippetResult, label: str):
    return line_of(result, label + " ")


def _counts(step: dict) -> str:
    return f"frames {step['frames']}, graphs {step['graphs']}, breaks {step['breaks']}"


@fact("capture: first call of a function with one break", COUNTERS, show=_counts)
def first_call_counts(result: SnippetResult) -> Measured:
    first = counter_steps(result)[0]
    return Measured(first, (_step_ev(result, first["label"]),))


@fact("capture: the same tensor again", COUNTERS)
def same_tensor_again(result: SnippetResult) -> Measured:
    first, again = counter_steps(result)[:2]
    same = all(again[k] == first[k] for k in ("frames", "graphs", "breaks"))
    return Measured(
        "no counter changed" if same else "the counters changed",
        (_step_ev(result, first["label"]), _step_ev(result, again["label"])),
    )


@fact("capture: a float64 tensor after float32 (functions recompiled)", COUNTERS, show=lambda v: ", ".join(v) or "none")
def float64_recompiled(result: SnippetResult) -> Measured:
    steps = counter_steps(result)
    names = steps[2]["recompiled"]
    return Measured(
        names,
        tuple(line_of(result, f"Recompiling function {n} ") for n in names) + (_step_ev(result, steps[2]["label"]),),
    )


@fact(
    "capture: a float64 tensor after float32 (counters)",
    COUNTERS,
    show=lambda v: f"graphs {v['graphs'][0]} → {v['graphs'][1]}, graph_breaks {v['breaks'][0]} → {v['breaks'][1]}",
)
def float64_counts(result: SnippetResult) -> Measured:
    again, other = counter_steps(result)[1:3]
    return Measured(
        {"graphs": (again["graphs"], other["graphs"]), "breaks": (again["breaks"], other["breaks"])},
        (_step_ev(result, again["label"]), _step_ev(result, other["label"])),
    )


def counters_table(result: SnippetResult) -> str:
    rows = []
    for s in counter_steps(result):
        rows.append(
            [
                s["label"],
                str(s["frames"]) + markers_for([_step_ev(result, s["label"])]),
                str(s["graphs"]),
                str(s["breaks"]),
                "<br>".join(code(f) for f in s["recompiled"]) or "—",
            ]
        )
    return table(
        ["after", "frames", "unique_graphs", "graph_breaks", "recompiled (TORCH_LOGS=recompiles)"], rows, "-rrr-"
    )


def counters_claim(result: SnippetResult) -> str:
    """The first call's counts, as a claim resting on the line the snippet printed."""
    first = first_call_counts(result)
    v = first.value
    return claim(
        "The first call made dynamo compile {frames} {f_word} into {graphs} {g_word}, with {breaks} {b_word}.",
        frames=v["frames"],
        f_word=_word(v["frames"], "frame"),
        graphs=v["graphs"],
        g_word=_word(v["graphs"], "graph"),
        breaks=v["breaks"],
        b_word=_word(v["breaks"], "graph break"),
        evidence=list(first.evidence),
    ).markdown()


def counters_summary(result: SnippetResult) -> str:
    steps = counter_steps(result)
    if len(steps) < 3:
        return "This build's run printed fewer counter lines than the snippet makes; see its output above."
    first = steps[0]
    text = []
    if first["breaks"] == 1 and first["graphs"] == 2 and first["frames"] == 2:
        text.append(
            claim(
                "One break, one more graph: the code before the break is one graph, and the code after it is a new frame "
                "(a *resume function*) that dynamo compiles into a graph of its own.",
                evidence=list(first_call_counts(result).evidence),
            ).markdown()
        )
    again = same_tensor_again(result)
    text.append(
        claim(
            "Calling it again with the same tensor changed no counter: every frame found a cache entry whose guards passed."
            if again.value == "no counter changed"
            else "Calling it again with the same tensor changed the counters on this torch; see the table.",
            evidence=list(again.evidence),
        ).markdown()
    )
    counts, names = float64_counts(result), float64_recompiled(result)
    (g0, g1), (b0, b1) = counts.value["graphs"], counts.value["breaks"]
    if names.value:
        text.append(
            claim(
                "The float64 tensor took `unique_graphs` from {g0} to {g1}, and the recompile log names {n} {fn}: {names}"
                + (
                    ", so each frame of the function recompiled against its own guards."
                    if len(names.value) > 1
                    else "."
                ),
                g0=g0,
                g1=g1,
                n=Derived(len(names.value)),
                fn=_word(len(names.value), "function"),
                names=Derived(names.value, ", ".join(code(n) for n in names.value)),
                evidence=list(counts.evidence) + [e for e in names.evidence if e not in counts.evidence],
            ).markdown()
        )
    else:
        text.append(
            claim(
                "The float64 tensor took `unique_graphs` from {g0} to {g1}; the recompile log named no function.",
                g0=g0,
                g1=g1,
                evidence=list(counts.evidence),
            ).markdown()
        )
    if b1 > b0:
        text.append(
            claim(
                "`graph_breaks` went from {b0} to {b1} although the code has one break: it counts a break each time a "
                "compile meets it, not distinct places in your code.",
                b0=b0,
                b1=b1,
                evidence=list(counts.evidence),
            ).markdown()
        )
    return " ".join(text)


# -- fullgraph ----------------------------------------------------------------------------------
@fact("capture: fullgraph=True on a function that prints", FULLGRAPH)
def fullgraph_verdict(result: SnippetResult) -> Measured:
    raised = re.search(r"^smooth: raised (\S+)\s*$", result.stdout, re.M)
    if raised:
        return Measured(f"raised {raised.group(1)}", (line_of(result, "smooth: raised "),))
    return Measured("no error", (line_of(result, "smooth"),))


@fact("capture: fullgraph=True, the error's first line", FULLGRAPH, show=lambda v: shorten(v, 80))
def fullgraph_message(result: SnippetResult) -> Measured:
    first = re.search(r"^first line: (.*)$", result.stdout, re.M)
    if not first:
        raise LookupError("no error message printed")
    return Measured(first.group(1).strip(), (line_of(result, "first line: "),))


def fullgraph_summary(result: SnippetResult) -> str:
    text = []
    if re.search(r"^smooth_quietly: tensor", result.stdout, re.M):
        text.append(
            claim(
                "Without a break, `fullgraph=True` changes nothing: `smooth_quietly` compiled and ran.",
                evidence=[line_of(result, "smooth_quietly: tensor")],
            ).markdown()
        )
    verdict = fullgraph_verdict(result)
    if verdict.value.startswith("raised "):
        try:
            msg = fullgraph_message(result)
        except LookupError:
            msg = None
        text.append(
            claim(
                "With the `print`, it raised {q_error} at the break"
                + (", whose message starts {q_msg}" if msg else "")
                + ". That is the point of the flag: a break becomes an error you see, instead of a second graph you do not.",
                q_error=verdict.value.removeprefix("raised "),
                q_msg=Derived(msg.value, shorten(msg.value, 100)) if msg else None,
                evidence=list(verdict.evidence) + (list(msg.evidence) if msg else []),
            ).markdown()
        )
    else:
        text.append(
            claim(
                "On this torch, the function with the `print` did not raise under `fullgraph=True`.",
                evidence=list(verdict.evidence),
            ).markdown()
        )
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


@fact(
    "capture: explain() on a function that prints",
    EXPLAIN,
    show=lambda v: f"{plural(v[0], 'graph')}, {plural(v[1], 'break')}",
)
def explain_counts(result: SnippetResult) -> Measured:
    n = explain_numbers(result)
    if n["graphs"] is None:
        raise LookupError("explain printed no graph count")
    return Measured(
        (n["graphs"], n["breaks"]), (line_of(result, "graph_count: "), line_of(result, "graph_break_count: "))
    )


@fact(
    "capture: explain() break reason for print", EXPLAIN, show=lambda v: "; ".join(shorten(r, 80) for r in v) or "none"
)
def explain_reasons(result: SnippetResult) -> Measured:
    reasons = explain_numbers(result)["reasons"]
    return Measured(reasons, tuple(line_of(result, "break reason: " + r) for r in reasons))


def explain_summary(result: SnippetResult) -> str:
    try:
        counts = explain_counts(result)
    except LookupError:
        return "This torch's `explain` printed no graph count."
    graphs, breaks = counts.value
    reasons = explain_reasons(result)
    return claim(
        "`explain` counted {graphs} {g_word} and {breaks} {b_word}"
        + (", with the reason {reasons}" if reasons.value else "")
        + ". It compiles the function itself, so the counts hold for the arguments you pass it.",
        graphs=graphs,
        g_word=_word(graphs, "graph"),
        breaks=breaks,
        b_word=_word(breaks, "graph break"),
        reasons=Derived(reasons.value, ", ".join(code(shorten(r, 100)) for r in reasons.value))
        if reasons.value
        else None,
        evidence=list(counts.evidence) + list(reasons.evidence),
    ).markdown()


# -- reset --------------------------------------------------------------------------------------
_RESET = re.compile(r"^(?P<label>[^:]+):\s+unique_graphs = (?P<graphs>\d+)\s*$", re.M)


def reset_steps(result: SnippetResult) -> list[tuple[str, int]]:
    return [(m.group("label").strip(), int(m.group("graphs"))) for m in _RESET.finditer(result.stdout)]


def _reset_ev(result: SnippetResult, i: int):
    return line_of(result, reset_steps(result)[i][0] + ":")


@fact("capture: unique_graphs across torch.compiler.reset()", RESET)
def reset_counter(result: SnippetResult) -> Measured:
    (_, again), (_, after) = reset_steps(result)[1:3]
    return Measured("kept" if after == again else "changed", (_reset_ev(result, 1), _reset_ev(result, 2)))


@fact("capture: the same tensor after reset()", RESET)
def after_reset(result: SnippetResult) -> Measured:
    (_, after), (_, last) = reset_steps(result)[2:4]
    logged = parse_recompiles(result.output)
    if last <= after:
        value = "not compiled again"
    else:
        value = "compiled again, logged as a recompile" if logged else "compiled again, no recompile logged"
    ev = (_reset_ev(result, 2), _reset_ev(result, 3)) + tuple(
        line_of(result, "Recompiling function " + r.function) for r in logged
    )
    return Measured(value, ev)


def reset_summary(result: SnippetResult) -> str:
    steps = reset_steps(result)
    if len(steps) < 4:
        return "This build's run printed fewer lines than the snippet makes; see its output above."
    (_, first), (_, again), (_, after), (_, last) = steps[:4]
    text = []
    if again == first:
        text.append(
            claim(
                "Before the reset, the second call reused the entry (`unique_graphs` stayed {n}).",
                n=again,
                evidence=[_reset_ev(result, 0), _reset_ev(result, 1)],
            ).markdown()
        )
    kept = reset_counter(result)
    text.append(
        claim(
            "`reset()` left the counter at {n}: it empties dynamo's caches, not the counters."
            if kept.value == "kept"
            else "`reset()` changed the counter from {m} to {n} on this torch.",
            n=after,
            m=again if kept.value != "kept" else None,
            evidence=list(kept.evidence),
        ).markdown()
    )
    verdict = after_reset(result)
    if verdict.value == "not compiled again":
        text.append(
            claim(
                "The same tensor after the reset did not compile again on this torch.", evidence=list(verdict.evidence)
            ).markdown()
        )
    else:
        text.append(
            claim(
                "The same tensor then compiled again (`unique_graphs` {a} → {b})"
                + (
                    ", and the recompile log stayed silent: with the cache empty, this is a first compile, not a recompile."
                    if verdict.value.endswith("no recompile logged")
                    else ", and the log called it a recompile."
                ),
                a=after,
                b=last,
                evidence=list(verdict.evidence),
            ).markdown()
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


# what the shorthand ("recompiles happen when shapes or dtypes change") predicts for each call after the first
PREDICTED = {"4x4 float32, new values": "reused", "4x4 float64": "recompiled", "8x4 float32": "recompiled"}


def _failure_ev(result: SnippetResult, reason: str):
    return line_of(result, reason[:80])


@fact("capture: the shorthand's calls", SHORTHAND, show=lambda v: ", ".join(f"{k}: {x}" for k, x in v.items()))
def shorthand_calls(result: SnippetResult) -> Measured:
    steps = shorthand_steps(result)
    return Measured(
        {s["label"]: s["verdict"] for s in steps[1:]}, tuple(line_of(result, s["label"] + " ") for s in steps)
    )


@fact("capture: the shorthand predicted", SHORTHAND, show=lambda v: "every call" if not v else "missed " + ", ".join(v))
def shorthand_missed(result: SnippetResult) -> Measured:
    calls = shorthand_calls(result)
    return Measured([label for label, v in PREDICTED.items() if calls.value.get(label) != v], calls.evidence)


def shorthand_table(result: SnippetResult) -> str:
    rows = []
    for s in shorthand_steps(result):
        rows.append(
            [
                code(s["label"]),
                str(s["graphs"]) + markers_for([line_of(result, s["label"] + " ")]),
                s["verdict"],
                "<br>".join(code(shorten(r, 90)) + markers_for([_failure_ev(result, r)]) for r in s["reasons"]) or "—",
            ]
        )
    return table(["call", "unique_graphs", "what happened", "guard failures logged"], rows, "-r--")


def shorthand_verdict(result: SnippetResult) -> str:
    """Does the measurement agree with 'recompiles happen when shapes or dtypes change'?"""
    missed = shorthand_missed(result)
    steps = {s["label"]: s for s in shorthand_steps(result)}
    if not missed.value:
        text = [
            claim(
                "On this torch the shorthand predicted every call: new values reused the entry, and a new dtype and a new "
                "shape each recompiled.",
                evidence=list(missed.evidence),
            ).markdown()
        ]
        last, before = steps.get("8x4 float32"), steps.get("4x4 float64")
        if last and before and len(last["reasons"]) > 1 and len(last["reasons"]) == before["graphs"]:
            text.append(
                claim(
                    "Read the log of the last call closely, though: it lists {n} failures, one per entry already in the cache, "
                    "and each names what differs from *that* entry ({reasons}). The recompile log does not say what changed "
                    "since the previous call; it says which guard of each entry the call failed.",
                    n=Derived(len(last["reasons"])),  # = the entries before it: `unique_graphs` of the call before
                    reasons=Derived(last["reasons"], "; ".join(code(shorten(r, 70)) for r in last["reasons"])),
                    evidence=[_failure_ev(result, r) for r in last["reasons"]] + [line_of(result, "4x4 float64 ")],
                ).markdown()
            )
        text.append(
            "It is a good first model, and it is incomplete: [lesson 3](../guards/) reads the guards themselves and "
            "finds what else a recompile can hang on."
        )
        return " ".join(text)
    return claim(
        "On this torch the shorthand missed {missed} (see the table). [Lesson 3](../guards/) reads the guards themselves, "
        "which is where the real rule is.",
        missed=Derived(missed.value, ", ".join(code(w) for w in missed.value)),
        evidence=list(missed.evidence),
    ).markdown()
