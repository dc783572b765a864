"""Facts and tables for lesson 1, "What torch.compile captures" (docs/capture.md).

Each `@fact` reads a snippet's recorded output and returns what it measured, the output lines it
rests on and the named outcome it took; the page's explain blocks hold the sentences, one per
outcome. The functions here build tables; they return no prose.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ...run.record import SnippetResult
from ..claims import UNRECOGNISED, Derived, Measured, fact, line_of, markers_for, page_table, run
from ..parse.recompiles import attribute_to_steps, parse_recompiles
from .common import STEP_RE, code, plural, shorten, table

COUNTERS = run("capture/counters.py", "recompiles")
FULLGRAPH = run("capture/fullgraph.py")
EXPLAIN = run("capture/explain.py")
RESET = run("capture/reset.py", "recompiles")
SHORTHAND = run("capture/shorthand.py", "recompiles")

_COUNTERS = re.compile(
    r"^(?P<label>.+?)\s+frames=(?P<frames>\d+)\s+unique_graphs=(?P<graphs>\d+)\s+graph_breaks=(?P<breaks>\d+)\s*$"
)


def _word(n: int, word: str, many: str | None = None) -> Derived:
    """A measured count with its noun (derived from the count, so not quoted)."""
    return Derived(n, plural(n, word, many))


def _codes(items: list[str], width: int = 100, sep: str = ", ") -> Derived:
    return Derived(items, sep.join(code(shorten(i, width)) for i in items))


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
            "reasons": [f.reason for r in s["recompiles"] for f in r.failures],
        }
        for s in attribute_to_steps(result.output, _COUNTERS.pattern)
    ]


def _step_ev(result: SnippetResult, label: str):
    return line_of(result, label + " ")


def _counts(step: dict) -> str:
    return f"frames {step['frames']}, graphs {step['graphs']}, breaks {step['breaks']}"


@fact(
    "capture: first call of a function with one break",
    COUNTERS,
    show=_counts,
    outcomes=("split at the break", "one graph, no break"),
)
def first_call_counts(result: SnippetResult) -> Measured:
    first = counter_steps(result)[0]
    shape = (first["frames"], first["graphs"], first["breaks"])
    outcome = {(2, 2, 1): "split at the break", (1, 1, 0): "one graph, no break"}.get(shape)
    if outcome is None:
        raise ValueError(f"first call counted {_counts(first)}")
    return Measured(
        first,
        (_step_ev(result, first["label"]),),
        outcome,
        {
            "frames": _word(first["frames"], "frame"),
            "graphs": _word(first["graphs"], "graph"),
            "breaks": _word(first["breaks"], "graph break"),
        },
    )


@fact("capture: the same tensor again", COUNTERS, outcomes=("no counter changed", "the counters changed"))
def same_tensor_again(result: SnippetResult) -> Measured:
    first, again = counter_steps(result)[:2]
    same = all(again[k] == first[k] for k in ("frames", "graphs", "breaks"))
    value = "no counter changed" if same else "the counters changed"
    return Measured(value, (_step_ev(result, first["label"]), _step_ev(result, again["label"])), value)


@fact(
    "capture: a float64 tensor after float32 (functions recompiled)",
    COUNTERS,
    show=lambda v: ", ".join(v) or "none",
    outcomes=("function and resume function", "one function", "none logged"),
)
def float64_recompiled(result: SnippetResult) -> Measured:
    steps = counter_steps(result)
    names, reasons = steps[2]["recompiled"], steps[2]["reasons"]
    evidence = tuple(line_of(result, f"Recompiling function {n} ") for n in names)
    evidence += tuple(line_of(result, r[:80]) for r in reasons) + (_step_ev(result, steps[2]["label"]),)
    if not names:
        return Measured(names, evidence, "none logged")
    slots = {"n": _word(len(names), "function"), "names": _codes(names), "reasons": _codes(reasons, 80, "; ")}
    if len(names) == 2 and "resume" in names[1] and "resume" not in names[0]:
        return Measured(names, evidence, "function and resume function", slots)
    if len(names) == 1:
        return Measured(names, evidence, "one function", slots)
    raise ValueError(f"recompiled {names}")


@fact(
    "capture: a float64 tensor after float32 (counters)",
    COUNTERS,
    show=lambda v: f"graphs {v['graphs'][0]} → {v['graphs'][1]}, graph_breaks {v['breaks'][0]} → {v['breaks'][1]}",
    outcomes=("graphs and breaks grew", "graphs grew", "no counter changed"),
)
def float64_counts(result: SnippetResult) -> Measured:
    again, other = counter_steps(result)[1:3]
    (g0, g1), (b0, b1) = (again["graphs"], other["graphs"]), (again["breaks"], other["breaks"])
    if g1 > g0:
        outcome = "graphs and breaks grew" if b1 > b0 else "graphs grew" if b1 == b0 else ""
    else:
        outcome = "no counter changed" if (g1, b1) == (g0, b0) else ""
    if not outcome:
        raise ValueError(f"graphs {g0} → {g1}, breaks {b0} → {b1}")
    return Measured(
        {"graphs": (g0, g1), "breaks": (b0, b1)},
        (_step_ev(result, again["label"]), _step_ev(result, other["label"])),
        outcome,
        {"g0": Derived(g0), "g1": Derived(g1), "b0": Derived(b0), "b1": Derived(b1)},
    )


@page_table
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


# -- fullgraph ----------------------------------------------------------------------------------
@fact("capture: fullgraph=True on a function without a break", FULLGRAPH, show=lambda v: v, outcomes=("ran",))
def fullgraph_quiet(result: SnippetResult) -> Measured:
    m = re.search(r"^smooth_quietly: (tensor\(.*\))\s*$", result.stdout, re.M)
    if not m:
        raise LookupError("smooth_quietly printed no tensor")
    return Measured("ran", (line_of(result, "smooth_quietly: "),), "ran", {"value": m.group(1)})


@fact(
    "capture: fullgraph=True on a function that prints",
    FULLGRAPH,
    outcomes=("raised", "compiled as one graph"),
)
def fullgraph_verdict(result: SnippetResult) -> Measured:
    raised = re.search(r"^smooth: raised (\S+)\s*$", result.stdout, re.M)
    if raised:
        return Measured(
            f"raised {raised.group(1)}", (line_of(result, "smooth: raised "),), "raised", {"error": raised.group(1)}
        )
    if re.search(r"^smooth: compiled as one graph\s*$", result.stdout, re.M):
        return Measured("no error", (line_of(result, "smooth: compiled"),), "compiled as one graph")
    raise LookupError("smooth printed neither line")


@fact(
    "capture: fullgraph=True, the error's first line",
    FULLGRAPH,
    show=lambda v: shorten(v, 80) if v else "no error",
    outcomes=("message printed", "no error"),
)
def fullgraph_message(result: SnippetResult) -> Measured:
    first = re.search(r"^first line: (.*)$", result.stdout, re.M)
    if not first:
        if fullgraph_verdict(result).outcome == "compiled as one graph":
            return Measured(None, (line_of(result, "smooth: compiled"),), "no error")
        raise LookupError("no error message printed")
    msg = first.group(1).strip()
    return Measured(
        msg, (line_of(result, "first line: "),), "message printed", {"message": Derived(msg, shorten(msg, 100))}
    )


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
    outcomes=("split at the print", "one graph, no break"),
)
def explain_counts(result: SnippetResult) -> Measured:
    n = explain_numbers(result)
    if n["graphs"] is None or n["breaks"] is None:
        raise LookupError("explain printed no graph count")
    outcome = {(2, 1): "split at the print", (1, 0): "one graph, no break"}.get((n["graphs"], n["breaks"]))
    if outcome is None:
        raise ValueError(f"explain counted {n['graphs']} graphs, {n['breaks']} breaks")
    return Measured(
        (n["graphs"], n["breaks"]),
        (line_of(result, "graph_count: "), line_of(result, "graph_break_count: ")),
        outcome,
        {"graphs": _word(n["graphs"], "graph"), "breaks": _word(n["breaks"], "graph break")},
    )


@fact(
    "capture: explain() break reason for print",
    EXPLAIN,
    show=lambda v: "; ".join(shorten(r, 80) for r in v) or "none",
    outcomes=("one reason", "several reasons", "no reason"),
)
def explain_reasons(result: SnippetResult) -> Measured:
    reasons = explain_numbers(result)["reasons"]
    if not reasons:
        return Measured(reasons, (line_of(result, "graph_break_count: "),), "no reason")
    return Measured(
        reasons,
        tuple(line_of(result, "break reason: " + r) for r in reasons),
        "one reason" if len(reasons) == 1 else "several reasons",
        {"reasons": _codes(reasons), "n": Derived(len(reasons))},
    )


# -- reset --------------------------------------------------------------------------------------
_RESET = re.compile(r"^(?P<label>[^:]+):\s+unique_graphs = (?P<graphs>\d+)\s*$", re.M)


def reset_steps(result: SnippetResult) -> list[tuple[str, int]]:
    return [(m.group("label").strip(), int(m.group("graphs"))) for m in _RESET.finditer(result.stdout)]


def _reset_ev(result: SnippetResult, i: int):
    return line_of(result, reset_steps(result)[i][0] + ":")


@fact("capture: the same tensor again, before reset()", RESET, outcomes=("reuses", "compiles again"))
def before_reset(result: SnippetResult) -> Measured:
    (_, first), (_, again) = reset_steps(result)[:2]
    outcome = "reuses" if again == first else "compiles again" if again > first else ""
    if not outcome:
        raise ValueError(f"unique_graphs {first} → {again}")
    return Measured(
        outcome, (_reset_ev(result, 0), _reset_ev(result, 1)), outcome, {"a": Derived(first), "b": Derived(again)}
    )


@fact("capture: unique_graphs across torch.compiler.reset()", RESET, outcomes=("kept", "changed"))
def reset_counter(result: SnippetResult) -> Measured:
    (_, again), (_, after) = reset_steps(result)[1:3]
    value = "kept" if after == again else "changed"
    return Measured(
        value, (_reset_ev(result, 1), _reset_ev(result, 2)), value, {"m": Derived(again), "n": Derived(after)}
    )


@fact(
    "capture: the same tensor after reset()",
    RESET,
    outcomes=("compiles new code", "recompiles", "reuses"),
)
def after_reset(result: SnippetResult) -> Measured:
    """Compiled again with no guard failure logged: new code (the cache was empty), not a recompile."""
    (_, after), (_, last) = reset_steps(result)[2:4]
    logged = parse_recompiles(result.output)
    if last <= after and not logged:
        outcome = "reuses"
    elif last > after:
        outcome = "recompiles" if logged else "compiles new code"
    else:
        raise ValueError("a recompile logged, and unique_graphs did not grow")
    ev = (_reset_ev(result, 2), _reset_ev(result, 3)) + tuple(
        line_of(result, "Recompiling function " + r.function) for r in logged
    )
    return Measured(outcome, ev, outcome, {"a": Derived(after), "b": Derived(last)})


# -- the shorthand ------------------------------------------------------------------------------
def shorthand_steps(result: SnippetResult) -> list[dict]:
    """One dict per call: label, unique_graphs after it, the verdict, and the guard failures logged before it.

    The verdict uses the course's words: `recompiles` when a graph was added and the recompile log
    named the function (a guard of an existing entry failed); `compiles new code` when a graph was
    added with nothing logged; `reuses` when neither; anything else is `unrecognised`."""
    steps, pending, previous = [], [], 0
    for line in result.output.splitlines():
        m = re.match(STEP_RE, line)
        if m:
            graphs = int(m.group("graphs"))
            logged = parse_recompiles("\n".join(pending))
            reasons = [f.reason for r in logged for f in r.failures]
            if graphs > previous:
                verdict = "recompiles" if logged else "compiles new code"
            else:
                verdict = "reuses" if graphs == previous and not logged else "unrecognised"
            steps.append({"label": m.group("label").strip(), "graphs": graphs, "verdict": verdict, "reasons": reasons})
            previous, pending = graphs, []
        else:
            pending.append(line)
    return steps


# what the shorthand ("recompiles happen when shapes or dtypes change") predicts for each call after the first
PREDICTED = {"4x4 float32, new values": "reuses", "4x4 float64": "recompiles", "8x4 float32": "recompiles"}


def _failure_ev(result: SnippetResult, reason: str):
    return line_of(result, reason[:80])


@fact("capture: the shorthand's calls", SHORTHAND, show=lambda v: ", ".join(f"{k}: {x}" for k, x in v.items()))
def shorthand_calls(result: SnippetResult) -> Measured:
    steps = shorthand_steps(result)
    return Measured(
        {s["label"]: s["verdict"] for s in steps[1:]}, tuple(line_of(result, s["label"] + " ") for s in steps)
    )


@fact(
    "capture: the shorthand predicted",
    SHORTHAND,
    show=lambda v: "every call" if not v else "missed " + ", ".join(v),
    outcomes=("every call", "missed some"),
)
def shorthand_missed(result: SnippetResult) -> Measured:
    calls = shorthand_calls(result)
    missed = [label for label, v in PREDICTED.items() if calls.value.get(label) != v]
    if not missed:
        return Measured(missed, calls.evidence, "every call")
    return Measured(missed, calls.evidence, "missed some", {"missed": _codes(missed)})


@fact(
    "capture: the shorthand's last call, failures logged",
    SHORTHAND,
    show=lambda v: "; ".join(shorten(r, 60) for r in v) or "none",
    outcomes=("one per entry", "one failure", "none logged"),
)
def shorthand_last_failures(result: SnippetResult) -> Measured:
    steps = shorthand_steps(result)
    if len(steps) < 2:
        raise LookupError("fewer than two calls printed")
    before, last = steps[-2], steps[-1]
    reasons = last["reasons"]
    evidence = tuple(_failure_ev(result, r) for r in reasons) + (
        line_of(result, before["label"] + " "),
        line_of(result, last["label"] + " "),
    )
    slots = {
        "n": Derived(len(reasons)),
        "entries": Derived(before["graphs"]),
        "reasons": _codes(reasons, 70, "; "),
    }
    if not reasons:
        return Measured(reasons, evidence, "none logged", slots)
    if len(reasons) == 1:
        return Measured(reasons, evidence, "one failure", slots)
    if len(reasons) == before["graphs"]:
        return Measured(reasons, evidence, "one per entry", slots)
    raise ValueError(f"{len(reasons)} failures logged with {before['graphs']} entries")


@page_table
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


# -- the backend --------------------------------------------------------------------------------
BACKENDS = run("capture/backends.py", "guards,recompiles")
BACKEND_NAMES = ("eager", "aot_eager", "inductor")  # the order the snippet compiles them in
_BACKEND_LINE = re.compile(r"^backend=(?P<name>\S+)\s*$")
_RECOMPILE_HEAD = re.compile(r"^Recompiling function \S+ in ")
_TRIGGERED = re.compile(r"^\s+triggered by the following guard failure\(s\):\s*$")
_FAILURE_LINE = re.compile(r"^\s+- ")
_LATENCY = re.compile(r"^Guard eval latency = [\d.]+ us\s*$")
_TREE_LINE = re.compile(r"^(?:TREE_GUARD_MANAGER:|[| ]*\+- \S)")
_SHAPE_FN_HEAD = "Python shape guard function:"
_SHAPE_FN_LINE = re.compile(r"^(?:def ___make_guard_fn\(|\s+\S)")
_FLAT_GUARD = re.compile(r"^[^\s#].*\S\s+# \S")  # torch 2.2-2.3: a predicate, then "# user code  # file:line"


def normalize_guard_line(line: str) -> str:
    """A guard line as compared across backends: object ids, addresses, line numbers, compile ids
    and the padding that aligns the comments are what differ between two compiles of one function."""
    line = re.sub(r"^\s*- (?:\d+/\d+:(?: |$))?", "", line)  # a recompile reason's dash and entry id
    line = re.sub(r"0x[0-9a-fA-F]+", "<addr>", line)
    line = re.sub(r"(?<![\w.])\d{6,}(?![\w.])", "<id>", line)  # an object id (id(), ___lookup_backend(...))
    line = re.sub(r"(\.py):\d+", r"\1:<n>", line)
    return " ".join(line.split())


@dataclass
class BackendRun:
    """One backend's part of capture/backends.py's output: its guard dumps and recompile reasons.

    A dump's lines are split into *checks* (a tree's guard leaves, a flat dump's predicates, a shape
    guard function's `if not (...)` conditions) and the other lines it prints (the tree's
    GuardManager nodes, the shape guard function's `def` lines and returns), which check nothing."""

    name: str
    start: int  # index in the output's lines of its `backend=` line
    dumps: list[list[tuple[int, str]]] = field(default_factory=list)  # per entry: (line index, check)
    other: list[tuple[int, str]] = field(default_factory=list)  # printed lines of the dumps that check nothing
    shape_checks: list[tuple[int, str]] = field(default_factory=list)  # the shape guard functions' conditions
    reasons: list[tuple[int, str]] = field(default_factory=list)  # failure lines after `triggered by ...`
    recompiles: list[int] = field(default_factory=list)  # line indexes of `Recompiling function ...`
    problems: list[str] = field(default_factory=list)  # lines or shapes the reader does not understand
    # lines printed between the blocks, outside any dump or recompile log (2.8's inductor logs a warning that
    # no CUDA runtime was found): not guards nor reasons, so not compared
    elsewhere: list[tuple[int, str]] = field(default_factory=list)

    def checks(self) -> list[Counter]:
        return [_norm_set(d) for d in self.dumps] + [_norm_set(self.shape_checks)]

    def reason_list(self) -> list[str]:
        return [normalize_guard_line(t) for _, t in self.reasons]


def _norm_set(lines: list[tuple[int, str]]) -> Counter:
    return Counter(normalize_guard_line(t) for _, t in lines)


def backend_runs(result: SnippetResult) -> list[BackendRun]:
    """Split the run's output at its `backend=` lines and read each part: every line must be a guard
    dump's (tree or flat format), a latency line, a recompile message or a shape guard function,
    else it is listed in `problems` (the fact is then `unrecognised`)."""
    lines = result.output.splitlines()
    runs: list[BackendRun] = []
    mode = ""  # "dump", "shape", "recompile" or "" (between blocks)
    for i, line in enumerate(lines):
        b = _BACKEND_LINE.match(line)
        if b:
            runs.append(BackendRun(b.group("name"), i))
            mode = ""
            continue
        if not runs:
            if line.strip():
                return [BackendRun("", i, problems=[f"a line before the first backend= line: {line.strip()!r}"])]
            continue
        cur = runs[-1]
        if line.strip() == "GUARDS:":
            cur.dumps.append([])
            mode = "dump"
        elif _LATENCY.match(line):
            mode = ""
        elif _RECOMPILE_HEAD.match(line):
            cur.recompiles.append(i)
            mode = "recompile"
        elif mode == "recompile" and _TRIGGERED.match(line):
            pass
        elif mode == "recompile" and _FAILURE_LINE.match(line):
            cur.reasons.append((i, line.strip()))
        elif line.strip() == _SHAPE_FN_HEAD:
            mode = "shape"
        elif mode == "shape" and _SHAPE_FN_LINE.match(line):
            (cur.shape_checks if line.strip().startswith("if not (") else cur.other).append((i, line.strip()))
        elif not line.strip():
            pass
        elif mode == "dump" and _TREE_LINE.match(line):
            leaf = re.match(r"^[| ]*\+- (?P<kind>\w+): ", line)
            if leaf and leaf.group("kind") not in ("GuardManager", "RootGuardManager", "DictGuardManager"):
                cur.dumps[-1].append((i, line.strip()))
            else:
                cur.other.append((i, line.strip()))
        elif mode == "dump" and _FLAT_GUARD.match(line):
            cur.dumps[-1].append((i, line.strip()))
        elif mode == "" and not _FLAT_GUARD.match(line) and not _TREE_LINE.match(line):
            cur.elsewhere.append((i, line.strip()))
        else:
            cur.problems.append(
                f"backend={cur.name}: a line not read as a guard or a recompile: {shorten(line.strip(), 80)!r}"
            )
    return runs


def _backend_problems(runs: list[BackendRun]) -> list[str]:
    found = [p for r in runs for p in r.problems]
    names = tuple(r.name for r in runs)
    if names != BACKEND_NAMES:
        found.append(f"backends printed: {', '.join(names) or 'none'}")
    for r in runs:
        if not r.dumps or any(not d for d in r.dumps):
            found.append(f"backend={r.name}: {len(r.dumps)} guard dumps, some without a guard line read")
        if len(r.recompiles) > len(r.reasons):
            found.append(f"backend={r.name}: a recompile logged without a failure line")
    return found


def _only(a: list[tuple[int, str]], b: list[tuple[int, str]]) -> tuple[list, list]:
    na, nb = _norm_set(a), _norm_set(b)
    return (
        [(j, t) for j, t in a if normalize_guard_line(t) in na - nb],
        [(j, t) for j, t in b if normalize_guard_line(t) in nb - na],
    )


def guard_differences(result: SnippetResult) -> list[dict]:
    """Per backend after the first: the printed guard lines found under one backend and not under
    the first, once ids, addresses and line numbers are set aside; `check` says whether they are
    checks (guards) or lines that check nothing."""
    runs = backend_runs(result)
    base, out = runs[0], []
    for other in runs[1:]:
        parts = [
            (f"entry {i + 1}", True, base.dumps[i] if i < len(base.dumps) else [], d) for i, d in enumerate(other.dumps)
        ]
        parts += [(f"entry {i + 1}", True, d, []) for i, d in enumerate(base.dumps) if i >= len(other.dumps)]
        parts += [
            ("shape guard function", True, base.shape_checks, other.shape_checks),
            ("lines that check nothing", False, base.other, other.other),
        ]
        for where, is_check, a, b in parts:
            only_a, only_b = _only(a, b)
            if only_a or only_b:
                out.append(
                    {
                        "where": where,
                        "check": is_check,
                        "base": base.name,
                        "other": other.name,
                        "only_base": only_a,
                        "only_other": only_b,
                    }
                )
    return out


def _ev_at(result: SnippetResult, index: int):
    """Evidence for the output's line `index` itself (its occurrence among identical lines counted)."""
    lines = result.output.splitlines()
    return line_of(result, lines[index].strip(), index)


_BACKEND_OUTCOMES = (
    "the same guards and reasons",
    "the same checks, other printed lines differ",
    "guards differ",
    "reasons differ",
    "guards and reasons differ",
)


def _show_backends(v: object) -> str:
    return v if isinstance(v, str) else "; ".join(f"{k}: {x}" for k, x in v.items())


@fact(
    "capture: guards and recompile reasons across backends",
    BACKENDS,
    show=_show_backends,
    outcomes=_BACKEND_OUTCOMES,
)
def backends_compared(result: SnippetResult) -> Measured:
    """eager, aot_eager and inductor compared on one function called with 4 rows, then 6: the guard
    dumps of each entry (ids, addresses, line numbers, latencies and compile ids set aside) and the
    recompile reasons logged. Any line the reader does not place makes it `unrecognised`."""
    runs = backend_runs(result)
    heads = tuple(_ev_at(result, r.start) for r in runs)
    wrong = _backend_problems(runs)
    if wrong:
        return Measured("; ".join(wrong), heads, UNRECOGNISED)
    base = runs[0]
    guards_differ = [r.name for r in runs[1:] if r.checks() != base.checks()]
    printed_differ = [r.name for r in runs[1:] if _norm_set(r.other) != _norm_set(base.other)]
    reasons_differ = [r.name for r in runs[1:] if r.reason_list() != base.reason_list()]
    reason_ev = tuple(_ev_at(result, j) for r in runs for j, _ in r.reasons)
    diffs = guard_differences(result)
    diff_ev = tuple(_ev_at(result, j) for d in diffs for j, _ in d["only_base"] + d["only_other"])
    evidence = heads + reason_ev + diff_ev
    value = {
        "guards": "same" if not guards_differ else "differ under " + ", ".join(guards_differ),
        "lines that check nothing": "same" if not printed_differ else "differ under " + ", ".join(printed_differ),
        "reasons": "same" if not reasons_differ else "differ under " + ", ".join(reasons_differ),
    }
    reasons = list(dict.fromkeys(base.reason_list()))
    slots = {
        "dumps": _word(len(base.dumps), "guard dump"),
        "recompiles": _word(len(base.recompiles), "recompile"),
        "reasons": _codes(reasons, 90, "; ") if reasons else Derived([], "none"),
        "guards_differ": Derived(guards_differ, ", ".join(code(n) for n in guards_differ) or "none"),
        "printed_differ": Derived(printed_differ, ", ".join(code(n) for n in printed_differ) or "none"),
        "reasons_differ": Derived(reasons_differ, ", ".join(code(n) for n in reasons_differ) or "none"),
        # a line printed differently counts once (its eager and its other side are one difference)
        "lines": _word(sum(max(len(d["only_base"]), len(d["only_other"])) for d in diffs), "line"),
    }
    if not guards_differ and not reasons_differ:
        outcome = "the same guards and reasons" if not printed_differ else "the same checks, other printed lines differ"
    elif guards_differ and reasons_differ:
        outcome = "guards and reasons differ"
    else:
        outcome = "guards differ" if guards_differ else "reasons differ"
    return Measured(value, evidence, outcome, slots)


@page_table
def backends_table(result: SnippetResult) -> str:
    """Per backend: its guard dumps (guard lines per entry) and its recompile reasons, with markers."""
    runs = backend_runs(result)
    if _backend_problems(runs):
        return ""
    rows = []
    for r in runs:
        reasons = "<br>".join(code(shorten(t, 90)) + markers_for([_ev_at(result, j)]) for j, t in r.reasons) or "—"
        rows.append(
            [
                code(r.name) + markers_for([_ev_at(result, r.start)]),
                ", ".join(str(len(d)) for d in r.dumps),
                reasons,
            ]
        )
    return table(
        [
            "backend",
            "guard lines in each entry's dump (a shape guard function's conditions not counted)",
            "recompile reasons logged",
        ],
        rows,
        "-r-",
    )


def _around_difference(line: str, partner: str | None, width: int = 110) -> str:
    """The line, or where it is long the part of it from a little before where it departs from the
    line it pairs with under the other backend (so a difference in a long line stays visible)."""
    if len(line) <= width or partner is None:
        return shorten(line, width)
    start = next(
        (i for i, (x, y) in enumerate(zip(line, partner, strict=False)) if x != y), min(len(line), len(partner))
    )
    start = max(0, start - 30)
    piece = line[start : start + width - 2]
    return ("…" if start else "") + piece + ("…" if start + len(piece) < len(line) else "")


@page_table
def backend_differences_table(result: SnippetResult) -> str:
    """Where the dumps differ: the lines printed under one backend and not under the other, per part.
    A long line is shown from a little before where it departs from its counterpart."""
    rows = []
    for d in guard_differences(result):
        pairs = len(d["only_base"]) == len(d["only_other"])
        for side, name, partners in (
            ("only_base", d["base"], d["only_other"]),
            ("only_other", d["other"], d["only_base"]),
        ):
            for k, (j, t) in enumerate(d[side]):
                partner = partners[k][1] if pairs else None
                rows.append(
                    [
                        f"{code(d['base'])} / {code(d['other'])}",
                        d["where"],
                        "check" if d["check"] else "no check",
                        code(name),
                        code(_around_difference(t, partner)) + markers_for([_ev_at(result, j)]),
                    ]
                )
    if not rows:
        return ""
    return table(["backends", "where", "kind", "printed only under", "line (as printed)"], rows)
