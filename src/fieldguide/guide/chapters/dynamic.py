"""Facts and tables for lesson 4, "Dynamic shapes and the cache limits" (docs/dynamic.md).

Each `@fact` reads a recorded run and returns what it measured, the output lines it rests on and
the named outcome it took; the page's explain blocks hold the sentences, one per outcome. The
functions here build tables; they return no prose.
"""

from __future__ import annotations

import re

from ...run.record import SnippetResult
from ..claims import Derived, Measured, fact, in_dump, line_of, markers_for, page_table, run
from ..parse.guard_dump import Guard, parse_check_tensor, parse_guards_log, tensor_check
from ..parse.recompiles import attribute_to_steps
from .common import STEP_RE, code, plural, shorten, steps, table

NEW_SIZES = run("dynamic/new_sizes.py", "recompiles,guards")
THREE_MODES = run("dynamic/three_modes.py", "guards", earlier_logs=("",))
SCALARS = run("dynamic/scalars.py", "recompiles")
CACHE_LIST = run("dynamic/cache_list.py", "recompiles")
CACHE_WALK = run("dynamic/cache_walk.py")
LIMITS = run("dynamic/limits.py", "recompiles")
STANCES = run("dynamic/stances.py")

_SHAPE = re.compile(r"\.size\(\)\[\d+\]|\.stride\(\)\[\d+\]")


def shape_guards(dump: list[Guard]) -> list[Guard]:
    """Guards on symbolic sizes (SHAPE_ENV's output), e.g. `2 <= L['x'].size()[0]`."""
    return [g for g in dump if _SHAPE.search(g.predicate) and not g.predicate.startswith("check_tensor(")]


def _codes(items: list[str]) -> str:
    return ", ".join(code(i) for i in items)


# -- 1. from static to dynamic -----------------------------------------------------------------
def size_steps(result: SnippetResult) -> list[dict]:
    return attribute_to_steps(result.output, STEP_RE)


def _step_ev(result: SnippetResult, label: str):
    return line_of(result, label + " ")


def _what_happened(step: dict, previous: int | None) -> str:
    """A short label for a call, read from its count and from whether the recompile log named it."""
    if previous is None:
        return "compiled new code (first call)"
    if step["graphs"] == previous:
        return "reused an entry"
    return "recompiled" if step["recompiles"] else "compiled, no recompile logged"


@page_table
def static_to_dynamic(result: SnippetResult) -> str:
    rows = []
    previous = None
    for step in size_steps(result):
        reasons = [f.reason for r in step["recompiles"] for f in r.failures]
        rows.append(
            [
                step["label"],
                str(step["graphs"]) + markers_for([_step_ev(result, step["label"])]),
                _what_happened(step, previous),
                "<br>".join(code(shorten(r, 90)) for r in reasons) or "—",
            ]
        )
        previous = step["graphs"]
    return table(["call", "unique_graphs", "what happened", "guard failures logged"], rows, "-r--")


@fact("dynamic: graphs for sizes 4, 5, 6, 7", NEW_SIZES)
def sizes_graphs(result: SnippetResult) -> Measured:
    step = next(s for s in size_steps(result) if s["label"] == "rows=7")
    return Measured(step["graphs"], (_step_ev(result, "rows=7"),))


@fact(
    "dynamic: the first new size (automatic dynamic shapes)",
    NEW_SIZES,
    show=lambda v: v,
    outcomes=("became symbolic", "stayed static"),
)
def first_new_size(result: SnippetResult) -> Measured:
    calls = [s for s in size_steps(result) if s["label"] != "rows=1"]
    if [s["label"] for s in calls] != ["rows=4", "rows=5", "rows=6", "rows=7"]:
        raise LookupError("the sizes 4, 5, 6, 7 were not all printed")
    reasons = [f.reason for r in calls[1]["recompiles"] for f in r.failures]
    dumps = parse_guards_log(result.log("guards"))
    last = calls[-1]
    if calls[1]["graphs"] == 1:
        raise ValueError("the first new size compiled nothing")
    if not reasons:
        raise ValueError("the first new size logged no recompile")
    reason_ev = line_of(result, reasons[0][:60])
    slots: dict[str, object] = {
        "reason": Derived(reasons[0], shorten(reasons[0], 100)),
        "n": Derived(last["graphs"], plural(last["graphs"], "graph")),
    }
    symbolic_at = next((i for i, d in enumerate(dumps) if shape_guards(d)), None)
    settled = calls[1]["graphs"] == calls[2]["graphs"] == last["graphs"]
    if symbolic_at is None:
        if last["graphs"] != 4:
            raise ValueError(f"no symbolic dump, yet {last['graphs']} graphs for four sizes")
        return Measured("static", (reason_ev, _step_ev(result, "rows=7")), "stayed static", slots)
    if not settled:
        raise ValueError("a symbolic dump, yet the later sizes compiled again")
    check = tensor_check(dumps[symbolic_at])
    if check is None:
        raise ValueError("the symbolic entry's dump has no tensor check")
    size = parse_check_tensor(check.predicate)["size"]
    guards = [g.predicate for g in shape_guards(dumps[symbolic_at])]
    evidence = (
        reason_ev,
        in_dump(result, symbolic_at, check.predicate),
        _step_ev(result, "rows=7"),
        *(in_dump(result, symbolic_at, g) for g in guards),
    )
    slots |= {"size": f"size={size}", "guards": Derived(guards, _codes(guards))}
    return Measured(f"symbolic, size={size}", evidence, "became symbolic", slots)


@fact(
    "dynamic: a single row after the symbolic entry",
    NEW_SIZES,
    show=lambda v: v,
    outcomes=("own entry", "reused the symbolic entry"),
)
def single_row(result: SnippetResult) -> Measured:
    calls = size_steps(result)
    if len(calls) < 2 or calls[-1]["label"] != "rows=1":
        raise LookupError("no call with one row printed")
    one, before = calls[-1], calls[-2]
    if one["graphs"] == before["graphs"]:
        return Measured("reused", (_step_ev(result, "rows=1"),), "reused the symbolic entry")
    failures = [f.reason for r in one["recompiles"] for f in r.failures]
    bound = next((f for f in failures if "2 <=" in f), None)
    dumps = parse_guards_log(result.log("guards"))
    check = tensor_check(dumps[-1]) if dumps else None
    if bound is None or check is None:
        raise ValueError("one row compiled, but the log names no 2 <= size guard or the dump no tensor check")
    size = parse_check_tensor(check.predicate)["size"]
    # the guard as the dump of the symbolic entry wrote it, e.g. 2 <= L['x'].size()[0]
    guard = re.search(r"2 <= \S+\.size\(\)\[\d+\]", bound).group(0)
    evidence = (
        line_of(result, bound[:60]),
        in_dump(result, len(dumps) - 1, check.predicate),
        _step_ev(result, "rows=1"),
    )
    return Measured(
        "own entry",
        evidence,
        "own entry",
        {"guard": guard, "size": f"size={size}", "n": Derived(one["graphs"], plural(one["graphs"], "graph"))},
    )


def mode_sections(result: SnippetResult) -> dict[str, tuple[int, list[list[Guard]]]]:
    """Per mode label: the number of dumps printed before its '== label' line, and its own dumps."""
    sections: dict[str, list[str]] = {}
    before: dict[str, int] = {}
    current, seen = None, 0
    for line in result.output.splitlines():
        if line.startswith("== "):
            current = line[3:].strip()
            sections[current] = []
            before[current] = seen
        elif current is not None:
            sections[current].append(line)
        if line.strip() == "GUARDS:":
            seen += 1
    return {k: (before[k], parse_guards_log("\n".join(v))) for k, v in sections.items()}


@fact("dynamic: graphs for 5 sizes per mode", THREE_MODES, show=lambda v: ", ".join(f"{k} {n}" for k, n in v.items()))
def mode_graphs(result: SnippetResult) -> Measured:
    counts = dict(steps(result.stdout))
    return Measured(counts, tuple(line_of(result, label + " ") for label in counts))


def _last_check(result: SnippetResult, label: str):
    """The tensor check of a mode's last entry, its size field and its evidence (or Nones)."""
    before, dumps = mode_sections(result).get(label, (0, []))
    check = tensor_check(dumps[-1]) if dumps else None
    if check is None:
        return None, None, None
    return (
        check,
        parse_check_tensor(check.predicate).get("size"),
        in_dump(result, before + len(dumps) - 1, check.predicate),
    )


@page_table
def modes_table(result: SnippetResult) -> str:
    rows = []
    for label, n in mode_graphs(result).value.items():
        check, size, ev = _last_check(result, label)
        size_cell = code(f"size={size}") + markers_for([ev]) if check else "?"
        _, dumps = mode_sections(result).get(label, (0, []))
        sym = _codes([g.predicate for g in shape_guards(dumps[-1])]) if dumps else ""
        rows.append([label, str(n) + markers_for([line_of(result, label + " ")]), size_cell, sym or "—"])
    return table(["mode", "graphs for 5 sizes", "tensor check of the last entry", "shape guards"], rows, "-r--")


_MODES = ("dynamic=None (default)", "dynamic=True", "dynamic=False", "mark_dynamic(x, 0), dynamic=None")


@fact(
    "dynamic: what each mode made of five sizes",
    THREE_MODES,
    show=lambda v: v,
    outcomes=("each as asked", "other counts"),
)
def modes_outcome(result: SnippetResult) -> Measured:
    counts = mode_graphs(result).value
    if set(counts) != set(_MODES):
        raise LookupError(f"modes printed: {', '.join(counts)}")
    checks = {label: _last_check(result, label) for label in _MODES}
    if any(c[0] is None for c in checks.values()):
        raise ValueError("a mode printed no tensor check")
    evidence = tuple(line_of(result, label + " ") for label in _MODES) + tuple(c[2] for c in checks.values())
    slots = {
        "default_n": Derived(counts[_MODES[0]], plural(counts[_MODES[0]], "graph")),
        "true_n": Derived(counts[_MODES[1]], plural(counts[_MODES[1]], "graph")),
        "false_n": Derived(counts[_MODES[2]], plural(counts[_MODES[2]], "graph")),
        "mark_n": Derived(counts[_MODES[3]], plural(counts[_MODES[3]], "graph")),
        "true_size": f"size={checks[_MODES[1]][1]}",
        "mark_size": f"size={checks[_MODES[3]][1]}",
        "default_size": f"size={checks[_MODES[0]][1]}",
    }
    as_asked = (
        counts[_MODES[1]] == 1
        and counts[_MODES[2]] == 5
        and counts[_MODES[3]] == 1
        and checks[_MODES[1]][1].startswith("[None, None]")
        and checks[_MODES[3]][1].startswith("[None, 3]")
    )
    return Measured(
        "as asked" if as_asked else "other", evidence, "each as asked" if as_asked else "other counts", slots
    )


# -- 2. scalars ----------------------------------------------------------------------------------
@fact(
    "dynamic: scalars (graphs for 4 values)",
    SCALARS,
    show=lambda v: ", ".join(f"{k.split(':')[0]} {n}" for k, n in v.items()),
)
def scalar_graphs(result: SnippetResult) -> Measured:
    counts = dict(steps(result.stdout))
    return Measured(counts, tuple(line_of(result, label) for label in counts))


@page_table
def scalars_table(result: SnippetResult) -> str:
    rows = [[label, str(n) + markers_for([line_of(result, label)])] for label, n in scalar_graphs(result).value.items()]
    return table(["argument, 4 calls", "graphs"], rows, "-r")


_SCALAR_OUTCOMES = ("one graph", "a graph per value", "constant, then one entry for the rest")


def _scalar_fact(kind: str, prefix: str):
    """A fact for one argument of scalars.py: how many graphs its four values compiled."""

    @fact(f"dynamic: {kind}, 4 values", SCALARS, show=lambda v: str(v), outcomes=_SCALAR_OUTCOMES)
    def measure(result: SnippetResult) -> Measured:
        found = [(i, step) for i, step in enumerate(attribute_to_steps(result.output, STEP_RE))]
        i, step = next((i, s) for i, s in found if s["label"].startswith(prefix))
        n = step["graphs"]
        evidence = [line_of(result, step["label"])]
        slots: dict[str, object] = {"n": Derived(n, plural(n, "graph"))}
        guards = [f.reason for r in step["recompiles"] for f in r.failures]
        first = re.search(r"(?:L\['amount'\]|amount) == [\d.]+", guards[0]) if guards else None
        if first:
            evidence.insert(0, line_of(result, guards[0][:60]))
            slots["guard"] = first.group(0)
            every = [m.group(0) for g in guards if (m := re.search(r"(?:L\['amount'\]|amount) == [\d.]+", g))]
            every = list(dict.fromkeys(every))  # each failed value guard once, in log order
            evidence[1:1] = [line_of(result, g) for g in every[1:]]
            slots["guards"] = Derived(every, _codes(every))
        if n == 1:
            return Measured(n, tuple(evidence), "one graph", slots)
        if first is None:
            raise ValueError(f"{kind}: {n} graphs, and no `amount == ...` guard failure logged")
        if n >= 4:
            return Measured(n, tuple(evidence), "a graph per value", slots)
        slots["constant_for"] = Derived(n - 1, "its first value" if n == 2 else f"its first {n - 1} values")
        return Measured(n, tuple(evidence), "constant, then one entry for the rest", slots)

    return measure


scalar_int = _scalar_fact("a Python int", "int:")
scalar_float = _scalar_fact("a Python float", "float:")
scalar_tensor = _scalar_fact("a value in a tensor", "tensor(")


# -- 3. the cache is a list ------------------------------------------------------------------------
def list_growth(result: SnippetResult) -> list[tuple[str, int, int]]:
    """Per call: label, entries before it, failure lines its recompile logged."""
    out = []
    for step in attribute_to_steps(result.output, STEP_RE):
        lines = sum(len(r.failures) for r in step["recompiles"])
        out.append((step["label"], step["graphs"] - (1 if step["recompiles"] or not out else 0), lines))
    return out


@page_table
def list_growth_table(result: SnippetResult) -> str:
    rows = [
        [label, str(before), (str(lines) if lines else "—") + markers_for([line_of(result, label + " ")])]
        for label, before, lines in list_growth(result)
    ]
    return table(["call", "entries already in the cache", "failure lines in its recompile log"], rows, "-rr")


@fact(
    "dynamic: failure lines per recompile (cache_list)",
    CACHE_LIST,
    show=lambda v: ", ".join(map(str, v)),
    outcomes=("one line per entry, named by compile id", "one line per entry", "other counts"),
)
def list_walk(result: SnippetResult) -> Measured:
    found = attribute_to_steps(result.output, STEP_RE)
    growth = list_growth(result)[1:]
    if not growth:
        raise LookupError("no recompile printed")
    counts = [lines for _, _, lines in growth]
    evidence = tuple(line_of(result, label + " ") for label, _, _ in growth)
    slots: dict[str, object] = {"counts": Derived(counts, ", ".join(map(str, counts)))}
    if any(lines != before for _, before, lines in growth):
        return Measured(counts, evidence, "other counts", slots)
    failures = [f for r in found[-1]["recompiles"] for f in r.failures]
    last = [f.reason for f in failures]
    ids = [f.entry for f in failures if f.entry]
    evidence += tuple(line_of(result, f[:60]) for f in last[:1])
    slots["last_label"] = found[-1]["label"]
    slots["last_n"] = Derived(len(last))
    if ids and len(ids) == len(last):
        slots["ids"] = Derived(ids, ", ".join(code(i) for i in ids))
        return Measured(counts, evidence, "one line per entry, named by compile id", slots)
    return Measured(counts, evidence, "one line per entry", slots)


_EAGER = re.compile(r"^eager\s+([\d.]+) us/call", re.M)
_SIZES = re.compile(r"^sizes=(\d+)\s+graphs compiled=(\d+)\s+([\d.]+) us/call", re.M)


def walk_timings(result: SnippetResult) -> tuple[float, list[tuple[int, int, float]]]:
    """The eager time, then (input sizes, graphs compiled, µs per call) for each row printed."""
    eager = float(_EAGER.search(result.stdout).group(1))
    return eager, [(int(n), int(g), float(t)) for n, g, t in _SIZES.findall(result.stdout)]


@page_table
def walk_table(result: SnippetResult) -> str:
    eager, rows = walk_timings(result)
    out = [["eager (no compile)", "—", f"{eager:.1f}" + markers_for([line_of(result, "eager ")])]]
    for n, g, t in rows:
        marker = markers_for([line_of(result, f"sizes={n} ")])
        out.append([plural(n, "size", "sizes"), str(g), f"{t:.1f}" + marker])
    return table(["input sizes, calls cycling through all", "graphs compiled", "µs per call"], out, "-rr")


@fact(
    "dynamic: µs per call as the cache grows (cache_walk)",
    CACHE_WALK,
    show=lambda v: ", ".join(f"{g}: {t}" for _, g, t in v),
    outcomes=("single runs, a graph per size", "single runs, other graph counts"),
    varies=True,
)
def walk_cost(result: SnippetResult) -> Measured:
    """The snippet times each size once and prints no spread: a single run orders nothing."""
    if re.search(r"±|spread|repeats", result.stdout):
        raise ValueError("the walk printed repeats or a spread: this fact reads single runs only")
    _, rows = walk_timings(result)
    if len(rows) < 2:
        raise LookupError("fewer than two sizes timed")
    (n0, g0, t0), (n1, g1, t1) = rows[0], rows[-1]
    evidence = (line_of(result, f"sizes={n0} "), line_of(result, f"sizes={n1} "))
    slots: dict[str, object] = {"t0": f"{t0:.1f}", "t1": f"{t1:.1f}"}
    for key, value, word in (("g0", g0, "graph"), ("g1", g1, "graph"), ("n0", n0, "size"), ("n1", n1, "size")):
        slots[key] = Derived(value, plural(value, word))
    if all(n == g for n, g, _ in rows):
        return Measured(rows, evidence, "single runs, a graph per size", slots)
    return Measured(rows, evidence, "single runs, other graph counts", slots)


# -- 4. two limits -------------------------------------------------------------------------------
def limit_config(result: SnippetResult) -> dict[str, int]:
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^config\.(\w+) = (\d+)$", result.stdout, re.M)}


def _lowered(result: SnippetResult) -> str:
    m = re.search(r"^lowered config\.(\w+) to (\d+)$", result.stdout, re.M)
    if not m:
        raise LookupError("the snippet printed no lowered limit")
    return m.group(1)


@fact(
    "limits: names",
    LIMITS,
    show=lambda v: ", ".join(v),
    outcomes=("cache_size_limit only", "recompile_limit and cache_size_limit", "recompile_limit only"),
)
def limit_names(result: SnippetResult) -> Measured:
    config = limit_config(result)
    evidence = tuple(line_of(result, f"config.{k} = ") for k in config) + (line_of(result, "lowered config."),)
    slots: dict[str, object] = {f"{k}": str(v) for k, v in config.items()}
    slots["lowered"] = _lowered(result)
    names = set(config)
    if names == {"cache_size_limit", "accumulated_cache_size_limit"}:
        outcome = "cache_size_limit only"
    elif names == {
        "recompile_limit",
        "accumulated_recompile_limit",
        "cache_size_limit",
        "accumulated_cache_size_limit",
    }:
        outcome = "recompile_limit and cache_size_limit"
    elif names == {"recompile_limit", "accumulated_recompile_limit"}:
        outcome = "recompile_limit only"
    else:
        raise ValueError(f"limit names printed: {', '.join(config)}")
    return Measured(list(config), evidence, outcome, slots)


@page_table
def limit_names_table(result: SnippetResult) -> str:
    rows = [
        [code(f"torch._dynamo.config.{name}"), str(value) + markers_for([line_of(result, f"config.{name} = ")])]
        for name, value in limit_config(result).items()
    ]
    return table(["setting on this torch", "value"], rows, "-r")


def _warning_lines(result: SnippetResult) -> list[str]:
    return [
        ln.strip()
        for ln in result.output.splitlines()
        if "hit config." in ln or ln.strip().startswith(("function:", "last reason:"))
    ]


@page_table
def limit_warning(result: SnippetResult) -> str:
    """The warning's lines, as printed, in a text block (or nothing when none was printed)."""
    lines = _warning_lines(result)
    return "```text\n" + "\n".join(lines) + "\n```\n" if lines else ""


@fact(
    "limits: the warning when the lowered limit is hit",
    LIMITS,
    show=lambda v: v,
    outcomes=("warned", "no warning"),
)
def limit_warned(result: SnippetResult) -> Measured:
    lines = _warning_lines(result)
    lowered = _lowered(result)
    if not lines:
        return Measured("no warning", (line_of(result, f"lowered config.{lowered}"),), "no warning")
    hit = re.search(r"hit (config\.\w+ \(\d+\))", lines[0])
    function = next((ln[len("function: ") :] for ln in lines if ln.startswith("function:")), None)
    reason = next((ln[len("last reason: ") :] for ln in lines if ln.startswith("last reason:")), None)
    if not hit or function is None or reason is None:
        raise ValueError("a limit warning without its limit, function or last reason")
    acc = next(k for k in limit_config(result) if k == "accumulated_" + lowered)
    return Measured(
        hit.group(1),
        tuple(line_of(result, ln) for ln in lines) + (line_of(result, f"config.{acc} = "),),
        "warned",
        {
            "hit": hit.group(1),
            "function": function,
            "reason": reason,
            "acc": acc,
            "acc_value": str(limit_config(result)[acc]),
        },
    )


def limit_steps(result: SnippetResult) -> list[tuple[str, int, dict]]:
    out = []
    for m in re.finditer(r"^(rows=\d+(?: again)?)\s+unique_graphs=(\d+) served=(\{.*\})$", result.stdout, re.M):
        served = {int(k): int(v) for k, v in re.findall(r"(\d+): (\d+)", m.group(3))}
        out.append((m.group(1), int(m.group(2)), served))
    return out


@fact(
    "limits: new sizes past the limit",
    LIMITS,
    show=lambda v: v,
    outcomes=("nothing compiled or served", "compiling went on"),
)
def new_sizes_past_limit(result: SnippetResult) -> Measured:
    steps_ = limit_steps(result)
    labels = [s[0] for s in steps_]
    if labels != ["rows=2", "rows=3", "rows=4", "rows=5", "rows=2 again"]:
        raise LookupError(f"steps printed: {', '.join(labels)}")
    (_, g3, s3), (_, g4, s4), (_, g5, s5) = steps_[1:4]
    evidence = tuple(line_of(result, label + " ") for label in labels[1:4])
    slots = {"n": str(g5), "lowered": _lowered(result)}
    if g3 == g4 == g5 and s3 == s4 == s5:
        return Measured("nothing compiled or served", evidence, "nothing compiled or served", slots)
    return Measured("compiling went on", evidence, "compiling went on", slots)


@fact("limits: after the limit, existing entries", LIMITS, outcomes=("keep serving", "fall back to eager"))
def after_limit(result: SnippetResult) -> Measured:
    steps_ = limit_steps(result)
    before, again = steps_[-2][2].get(2, 0), steps_[-1][2].get(2, 0)
    served = again > before
    return Measured(
        "keep serving" if served else "fall back to eager",
        (line_of(result, steps_[-2][0] + " "), line_of(result, steps_[-1][0] + " ")),
        "keep serving" if served else "fall back to eager",
        {"a": Derived(before), "b": Derived(again)},
    )


# -- many instances and the accumulated limit ----------------------------------------------------
INSTANCES = run("dynamic/instances.py", "recompiles")
INSTANCES_REMEDY = run("dynamic/instances_remedy.py", "recompiles")
INSTANCES_RAISED = run("dynamic/instances_raised.py", "recompiles")
_LAYER = re.compile(r"^layer (\d+): unique_graphs=(\d+) output as eager: (True|False)$", re.M)
_HIT = re.compile(r"^torch\._dynamo hit (config\.\w+ \(\d+\))$")
INSTANCE_OUTCOMES = (
    "one entry for all",
    "an entry per instance, up to the accumulated limit",
    "an entry per instance, up to 4, the warning naming the other limit",
    "an entry per instance",
)


def _instances(result: SnippetResult) -> Measured:
    """The graphs six instances of one class needed through one compiled function (accumulated limit 4)."""
    layers = [(int(i), int(g), e == "True") for i, g, e in _LAYER.findall(result.stdout)]
    if [i for i, _, _ in layers] != list(range(6)):
        raise LookupError(f"{result.path}: layer lines printed: {[i for i, _, _ in layers]}")
    evidence = tuple(line_of(result, f"layer {i}: ") for i, _, _ in layers)
    if not all(same for _, _, same in layers):
        differ = [f"layer {i}" for i, _, same in layers if not same]
        raise ValueError(f"output not as eager for {', '.join(differ)}")
    graphs = [g for _, g, _ in layers]
    lines = _warning_lines(result)
    slots: dict[str, object] = {"final": Derived(graphs[-1], plural(graphs[-1], "graph"))}
    lowered = re.search(r"^lowered config\.(\w+) to 4", result.stdout, re.M)
    if lowered:
        slots["acc"] = lowered.group(1)
        evidence = (line_of(result, "lowered config."),) + evidence
    if graphs == [1] * 6 and not lines:
        return Measured("one entry for all", evidence, "one entry for all", slots)
    if graphs == list(range(1, 7)) and not lines:
        return Measured("an entry per instance", evidence, "an entry per instance", slots)
    hit = _HIT.match(lines[0]) if lines else None
    if hit and graphs[0] == 1:
        n = max(graphs)
        stop = graphs.index(n)
        if graphs[: stop + 1] == list(range(1, n + 1)) and all(g == n for g in graphs[stop:]) and stop < 5:
            reason = next((ln[len("last reason: ") :] for ln in lines if ln.startswith("last reason:")), "")
            function = next((ln[len("function: ") :] for ln in lines if ln.startswith("function:")), "")
            # the recompile log: one block, at the call that met the limit, whose failed guards are an
            # identity check on the layer for each of the n entries (the texts say so; anything else
            # raises, which the page shows as the `unrecognised` outcome, never as one of these)
            log = result.log("recompiles")
            checks = [ln.strip() for ln in log.splitlines() if ln.strip().startswith("- ___check_obj_id(")]
            if log.count("Recompiling function") != 1 or len(checks) != n:
                raise ValueError(f"{log.count('Recompiling function')} recompile blocks, {len(checks)} identity checks")
            evidence += (line_of(result, "Recompiling function"), *(line_of(result, ln) for ln in checks))
            slots.update(
                {
                    "checks": Derived(n, plural(n, "identity check")),
                    "n": Derived(n, plural(n, "graph")),
                    "hit": hit.group(1),
                    "function": function,
                    "reason": _guard_slot(reason.split("  #")[0].strip()),
                    "uncompiled": Derived(5 - stop, plural(5 - stop, "layer")),
                }
            )
            named = hit.group(1).startswith(f"config.{slots.get('acc')} ")
            outcome = (
                "an entry per instance, up to the accumulated limit"
                if named
                else "an entry per instance, up to 4, the warning naming the other limit"
            )
            return Measured(outcome, evidence + tuple(line_of(result, ln) for ln in lines), outcome, slots)
    raise ValueError(f"unique_graphs {graphs}, {'a' if lines else 'no'} limit warning")


@fact("limits: six instances through one function", INSTANCES, outcomes=INSTANCE_OUTCOMES)
def instances(result: SnippetResult) -> Measured:
    return _instances(result)


@fact("limits: six instances, their weights as tensors", INSTANCES_REMEDY, outcomes=INSTANCE_OUTCOMES)
def instances_remedy(result: SnippetResult) -> Measured:
    return _instances(result)


@fact(
    "limits: six instances, the accumulated limit raised to 8",
    INSTANCES_RAISED,
    outcomes=("one entry for all", "an entry per instance", "stopped short of six"),
)
def instances_raised(result: SnippetResult) -> Measured:
    """The same six layers with room in the accumulated limit: an entry each, one for all, or a limit
    met all the same (any other shape of the run is `unrecognised`)."""
    raised = re.search(r"^raised config\.(\w+) to 8$", result.stdout, re.M)
    if not raised:
        raise LookupError(f"{result.path}: no 'raised config.' line")
    m = _instances(result)
    slots = {**m.slots, "acc": raised.group(1)}
    evidence = (line_of(result, "raised config."), *m.evidence)
    outcome = m.outcome if m.outcome in ("one entry for all", "an entry per instance") else "stopped short of six"
    return Measured(outcome, evidence, outcome, slots)


# -- 5. stances ----------------------------------------------------------------------------------
@fact(
    "stances: set_stance",
    STANCES,
    outcomes=("absent", "raised, then ran eagerly, then compiled"),
)
def stance_available(result: SnippetResult) -> Measured:
    if "set_stance does not exist" in result.stdout:
        line = line_of(result, "set_stance does not exist")
        return Measured("absent", (line,), "absent", {"line": line.line})
    lines = result.output
    raised = re.search(r"raised (\w+): (.*)$", lines, re.M)
    graphs = steps(lines)
    equal = re.search(r"^eager_on_recompile result equals eager double\(x\): (\w+)$", lines, re.M)
    eager = next(((label, n) for label, n in graphs if label.startswith("eager_on_recompile")), None)
    cached = next(((label, n) for label, n in graphs if label.startswith("fail_on_recompile, rows=4")), None)
    final = graphs[-1] if graphs else None
    if not (raised and equal and eager and cached and final and final[0].startswith("default again")):
        raise ValueError("set_stance exists, yet the run did not print raise, eager and default steps")
    if not (eager[1] == cached[1] and equal.group(1) == "True" and final[1] > eager[1]):
        raise ValueError(f"stances: counts {graphs}, equal {equal.group(1)}")
    return Measured(
        "present",
        (
            line_of(result, "raised " + raised.group(1)),
            line_of(result, eager[0] + " "),
            line_of(result, "equals eager"),
            line_of(result, final[0] + " "),
        ),
        "raised, then ran eagerly, then compiled",
        {
            "error": raised.group(1),
            "message": Derived(raised.group(2), shorten(raised.group(2), 200)),
            "eager_n": str(eager[1]),
            "equal": f"equals eager double(x): {equal.group(1)}",
            "final_n": str(final[1]),
        },
    )


# -- 6. when dynamic=True still recompiles -------------------------------------------------------
STILL = run("dynamic/still_recompiles.py", "recompiles")
REMEDIES = run("dynamic/still_remedies.py", "recompiles")

# (what the fact is about, the label the snippet prints for it, its calls when a graph per call
# with a guard on one value is an outcome of its own; 0 where it is not)
STILL_CASES = (
    ("a str", "str: 'sum', 'mean'", 0),
    ("a bool", "bool: True, False", 0),
    ("an enum", "enum: Mode.SUM, Mode.MEAN", 0),
    ("an int in a dict", "dict value: 2, 3", 0),
    ("an int in a config object", "config object: scale 2, 3", 0),
    ("an int", "int: 2, 3, 4", 0),
    ("an int of 0 and 1", "int: 0, 1, 2", 3),
    ("an int in an if", "int in an if: 3, 4, 1", 3),
    ("an int in range()", "int in range(n): 2, 3, 4", 3),
    ("an int module attribute", "module attribute: k = 2, 3, 4", 3),
    ("a transposed input", "contiguous, then transposed", 0),
    ("an expanded input", "contiguous, then expanded", 0),
    ("a size of 1", "rows: 4, then 1", 0),
    ("a size outside mark_dynamic's range, not marked", "range 2..8: rows=16, not marked", 0),
)
# (what the remedy is, the label it prints, the line it prints where this torch lacks it, the case
# of still_recompiles.py it changes)
REMEDY_CASES = (
    ("a bool as a tensor", "bool as a tensor: True, False", "", "bool: True, False"),
    ("an int without the loop", "int without the loop: 2, 3, 4", "", "int in range(n): 2, 3, 4"),
    (
        "allow_unspec_int_on_nn_module",
        "allow_unspec_int_on_nn_module: k = 2, 3, 4",
        "allow_unspec_int_on_nn_module: not in",
        "module attribute: k = 2, 3, 4",
    ),
    ("a module int in a buffer", "k in a buffer: 2, 3, 4", "", "module attribute: k = 2, 3, 4"),
    (
        "a transposed input made contiguous",
        "transposed, .contiguous() at the call",
        "",
        "contiguous, then transposed",
    ),
    ("an expanded input made contiguous", "expanded, .contiguous() at the call", "", "contiguous, then expanded"),
    ("a size of 1 marked unbacked", "rows 4, then 1, marked unbacked", "mark_unbacked: not in", "rows: 4, then 1"),
    ("a wider mark_dynamic range", "range 2..32: rows 4, 6, 16", "", "range 2..8: rows=16, not marked"),
)
REMEDY_OUTCOMES = ("one graph", "compiles again", "raised", "not in this torch", "a range refused")
_RANGED = ("range 2..8", "range 2..32")
_VALUE_GUARD = re.compile(r"==\s*-?\d+$")  # a guard on one value of an int (`n == 2`, `L['n'] == 0`)
_OBJ_ID = re.compile(r"(___check_obj_id\(.+?), \d+\)(?:, type=<class '[^']*'>)?")


def _step_lines(result: SnippetResult) -> dict[str, int]:
    """label -> the index of its line in the run's output (where a step's log ends)."""
    lines = result.output.splitlines()
    return {m.group("label").strip(): i for i, ln in enumerate(lines) if (m := re.match(STEP_RE, ln))}


def _raised(result: SnippetResult, label: str) -> re.Match | None:
    return re.search(rf"^{re.escape(label)} raised (\w+): (.*)$", result.output, re.M)


def _guard_slot(guard: str) -> object:
    """The guard as a slot: verbatim, or without the object id (and type) an identity check prints."""
    shown = _OBJ_ID.sub(r"\1, …)", guard)
    return guard if shown == guard else Derived(guard, shown)


def _case(result: SnippetResult, label: str, since: str = "", served: str = "one graph", calls: int = 0) -> Measured:
    """The graphs one case of a counting snippet compiled, and the first guard its calls failed.

    `since`: the case continues the calls of that step (its new graphs are counted from there, and
    a call that compiled none has the outcome `served`). `calls`: a graph for each of that many
    calls, with a guard on one value failing, is the outcome `a graph per value`."""
    raised = _raised(result, label)
    if raised:
        ev = line_of(result, f"{label} raised")
        slots = {"error": raised.group(1), "message": Derived(raised.group(2), shorten(raised.group(2), 160))}
        return Measured("raised", (ev,), "raised", slots)
    found = {s["label"]: s for s in attribute_to_steps(result.output, STEP_RE)}
    if label not in found:
        raise LookupError(f"{result.path} printed no line for {label!r}")
    step = found[label]
    new = step["graphs"] - (found[since]["graphs"] if since else 1)  # graphs beyond the first (or since)
    evidence = [line_of(result, label + " ")]
    slots: dict[str, object] = {"n": Derived(step["graphs"], plural(step["graphs"], "graph"))}
    failures = [f for r in step["recompiles"] for f in r.failures if f.reason.strip()]
    if new == 0 and not failures:
        return Measured(step["graphs"], tuple(evidence), served, slots)
    if not failures:
        raise ValueError(f"{label}: {new} more graphs and no guard failure logged")
    if new < 1:
        raise ValueError(f"{label}: a guard failure logged and no new graph")
    lines = _step_lines(result)
    before = [i for lab, i in lines.items() if i < lines[label]]
    # the guard itself: without a hint torch may append after a run of spaces (no `#` before it)
    guard = re.split(r"\s{2,}|\s+\(HINT:", failures[0].reason.strip())[0]
    evidence.insert(0, line_of(result, guard[:80], after=max(before, default=0)))
    slots["guard"] = _guard_slot(guard)
    if calls and step["graphs"] == calls and _VALUE_GUARD.search(guard):
        return Measured(step["graphs"], tuple(evidence), "a graph per value", slots)
    return Measured(step["graphs"], tuple(evidence), "compiles again", slots)


_RANGE_FIRST = "range 2..8: rows=4, marked"


def _range_refused(result: SnippetResult, label: str = "") -> Measured | None:
    """The first call with a ranged mark raised: this torch's mark_dynamic took no range here (the
    graphs `label`, a call without the mark, compiled are kept as the slot `n`)."""
    raised = _raised(result, _RANGE_FIRST)
    if raised is None or not _refuses_range(raised.group(1), raised.group(2)):
        return None
    evidence = [line_of(result, f"{_RANGE_FIRST} raised")]
    slots: dict[str, object] = {
        "error": raised.group(1),
        "message": Derived(raised.group(2), shorten(raised.group(2), 160)),
    }
    step = next((s for s in attribute_to_steps(result.output, STEP_RE) if s["label"] == label), None)
    if label and step is None:
        raise LookupError(f"{result.path}: the ranged mark was refused, and {label!r} printed no count")
    if step is not None:
        evidence.append(line_of(result, label + " "))
        slots["n"] = Derived(step["graphs"], plural(step["graphs"], "graph"))
    return Measured("a range refused", tuple(evidence), "a range refused", slots)


def _refuses_range(error: str, message: str) -> bool:
    """mark_dynamic without the `min`/`max` keywords: the TypeError Python raises for them."""
    return error == "TypeError" and re.search(r"unexpected keyword argument '(?:min|max)'", message) is not None


def _still_fact(kind: str, label: str, calls: int):
    ranged = label.startswith(_RANGED)
    since = "range 2..8: rows=6, marked" if ranged else ""
    served = "served by the entry" if since else "one graph"
    outcomes = (served, "compiles again", "raised")
    outcomes += ("a range refused",) if ranged else ()
    outcomes += ("a graph per value",) if calls else ()

    @fact(f"dynamic=True: {kind}", STILL, show=str, outcomes=outcomes)
    def measure(result: SnippetResult) -> Measured:
        refused = _range_refused(result, label) if ranged else None
        return refused or _case(result, label, since, served, calls)

    return measure


STILL_FACTS = [_still_fact(kind, label, calls) for kind, label, calls in STILL_CASES]


@fact(
    "dynamic=True: a size outside mark_dynamic's range, marked",
    STILL,
    show=str,
    outcomes=("raised", "compiles again", "served by an entry", "a range refused"),
)
def still_range_marked(result: SnippetResult) -> Measured:
    label = "range 2..8: rows=16, marked"
    return _range_refused(result) or _case(result, label, "range 2..8: rows=16, not marked", "served by an entry")


def _results_of(result: SnippetResult, prefix: str) -> re.Match | None:
    """The `PREFIX: compiled returned [...] (eager: [...])` line a run printed for a module's k."""
    line = rf"^{re.escape(prefix)}: compiled returned \[(?P<got>[^\]]*)\] \(eager: \[(?P<want>[^\]]*)\]\)$"
    return re.search(line, result.stdout, re.M)


@fact("dynamic=True: the module attribute's results", STILL, show=str, outcomes=("as eager", "stale values"))
def still_attribute_results(result: SnippetResult) -> Measured:
    m = _results_of(result, "module attribute")
    if not m:
        raise LookupError(f"{result.path} printed no results for the module attribute")
    ev = (line_of(result, "module attribute: compiled returned"),)
    slots = {"got": f"[{m.group('got')}]", "want": f"[{m.group('want')}]"}
    return Measured(m.group("got"), ev, "as eager" if m.group("got") == m.group("want") else "stale values", slots)


_AS_WITHOUT = "one graph, as without it"
_STALE_TOO = "one graph, as without it, where the results went stale"
_STALE_CHANGED = "stale values"


def _remedy_fact(kind: str, label: str, absent: str, case: str):
    attribute = case == _ATTRIBUTE

    @fact(
        f"dynamic=True remedy: {kind}",
        REMEDIES,
        STILL,
        show=str,
        outcomes=(_AS_WITHOUT, _STALE_TOO, *REMEDY_OUTCOMES, *((_STALE_CHANGED,) if attribute else ())),
    )
    def measure(result: SnippetResult, still: SnippetResult) -> Measured:
        """What the change compiled; one graph where the case as written compiled one graph too is
        an outcome of its own (the change removed no recompile there), and so is that case where
        the module attribute's results went stale (the change then returned eager's values: a
        change for a module's k whose own results differ from eager's is `stale values`)."""
        m = _remedy(result, label, absent)
        if attribute and m.outcome not in ("not in this torch", "raised", "a range refused"):
            prefix = label.split(":")[0]
            returned = _results_of(result, prefix)
            if returned is None:
                raise LookupError(f"{result.path} printed no results for {prefix!r}")
            ev = line_of(result, f"{prefix}: compiled returned")
            slots = {"changed": f"[{returned.group('got')}]", "want": f"[{returned.group('want')}]"}
            if returned.group("got") != returned.group("want"):
                return Measured(m.value, (*m.evidence, ev), _STALE_CHANGED, {**m.slots, **slots})
            m = Measured(m.value, (*m.evidence, ev), m.outcome, {**m.slots, **slots})
        if m.outcome != "one graph":
            return m
        without = _STILL_BY_LABEL[case].measure(still)
        if without.outcome not in ("one graph", "served by an entry") or without.value != 1:
            return m
        evidence = (*m.evidence, *without.evidence)
        if case == _ATTRIBUTE:
            stale = still_attribute_results.measure(still)
            if stale.outcome == "stale values":
                return Measured(m.value, (*evidence, *stale.evidence), _STALE_TOO, {**stale.slots, **m.slots})
        return Measured(m.value, evidence, _AS_WITHOUT, m.slots)

    return measure


def _remedy(result: SnippetResult, label: str, absent: str) -> Measured:
    if absent and absent in result.stdout:
        ev = line_of(result, absent)
        return Measured("not in this torch", (ev,), "not in this torch", {"line": ev.line})
    m = _case(result, label)
    if (
        label.startswith(_RANGED)
        and m.outcome == "raised"
        and _refuses_range(str(m.slots["error"]), str(m.slots["message"]))
    ):
        return Measured("a range refused", m.evidence, "a range refused", m.slots)
    return m


_ATTRIBUTE = "module attribute: k = 2, 3, 4"
_STILL_BY_LABEL = {label: f for f, (_, label, _) in zip(STILL_FACTS, STILL_CASES, strict=True)}
REMEDY_FACTS = [_remedy_fact(kind, label, absent, case) for kind, label, absent, case in REMEDY_CASES]


def _graphs_cell(m: Measured) -> str:
    marks = markers_for(list(m.evidence))
    if m.outcome == "not in this torch":
        return "not in this torch" + marks
    if m.outcome in ("raised", "a range refused"):
        shown = f"raised {code(str(m.slots['error']))}"
        if m.outcome == "a range refused":
            shown = f"{m.slots['n']}; the ranged mark raised {code(str(m.slots['error']))}" if "n" in m.slots else shown
        return shown + marks
    return str(m.value) + marks


def _guard_cell(m: Measured) -> str:
    if "guard" in m.slots:
        return code(str(m.slots["guard"]))
    if m.outcome in ("raised", "a range refused"):
        return code(f"{m.slots['error']}: {m.slots['message']}")
    return "none"


@page_table
def still_table(result: SnippetResult) -> str:
    rows = []
    for f, (_, label, _) in zip(STILL_FACTS, STILL_CASES, strict=True):
        m = f.measure(result)
        rows.append([code(label), _graphs_cell(m), _guard_cell(m)])
    m = still_range_marked.measure(result)
    rows.append([code("range 2..8: rows=16, marked"), _graphs_cell(m), _guard_cell(m)])
    return table(["case", "graphs", "first guard that failed, or the error"], rows, "-r-")


@page_table
def remedies_table(still: SnippetResult, remedies: SnippetResult) -> str:
    cases = {label: f for f, (_, label, _) in zip(STILL_FACTS, STILL_CASES, strict=True)}
    rows = []
    for f, (_, label, _, case) in zip(REMEDY_FACTS, REMEDY_CASES, strict=True):
        rows.append([code(label), _graphs_cell(cases[case].measure(still)), _graphs_cell(f.measure(remedies, still))])
    return table(["change", "graphs without it", "graphs with it"], rows, "-rr")


# -- 7. at the limit: what to change ---------------------------------------------------------------
LIMIT_REMEDIES = run("dynamic/limit_remedies.py", "recompiles")

# (what the case is, the label it prints, the line it prints where this torch lacks it)
LIMIT_CASES = (
    ("the limit as it stands", "dynamic=False, limit 2", ""),
    ("a raised limit", "dynamic=False, limit 8", ""),
    ("mark_dynamic", "mark_dynamic(x, 0), limit 2", ""),
    ("automatic dynamic", "default (automatic dynamic), limit 2", ""),
    ("a setting that raises at the limit", "raise at the limit, limit 2", "a setting that raises at the limit: not in"),
)
_LIMIT_LINE = r"^{label}\s+compiled calls=(\d+) of (\d+) graphs=(\d+)\s*$"
LIMIT_OUTCOMES = ("every call compiled", "calls ran uncompiled", "raised")


def limit_case(result: SnippetResult, label: str, absent: str = "") -> Measured:
    """How many of the 4 calls ran a compiled graph, the graphs compiled, and a raise on the way."""
    if absent and absent in result.stdout:
        ev = line_of(result, absent)
        return Measured("not in this torch", (ev,), "not in this torch", {"line": ev.line})
    m = re.search(_LIMIT_LINE.format(label=re.escape(label)), result.stdout, re.M)
    if not m:
        raise LookupError(f"{result.path} printed no counts for {label!r}")
    ran, calls, graphs = (int(g) for g in m.groups())
    evidence = [line_of(result, m.group(0).strip())]
    limit = re.search(r"^the limit patched below: config\.(\w+)$", result.stdout, re.M)
    default = limit and re.search(rf"^config\.{limit.group(1)}: (\d+)$", result.stdout, re.M)
    if not (limit and default):
        raise LookupError(f"{result.path} printed no limit or no default for it")
    evidence += [line_of(result, limit.group(0)), line_of(result, default.group(0))]
    slots: dict[str, object] = {
        "limit": limit.group(1),
        "default": default.group(1),
        "ran": f"compiled calls={ran} of {calls}",
        "graphs": f"graphs={graphs}",
        "uncompiled": Derived(calls - ran, str(calls - ran)),
    }
    setting = re.search(r"^the setting that raises at the limit: (config\.\w+)$", result.stdout, re.M)
    if setting and label.startswith("raise at the limit"):
        evidence.append(line_of(result, setting.group(0)))
        slots["setting"] = setting.group(1)
    raised = re.findall(rf"^{re.escape(label)}: (rows=\d+) raised (\w+): (.*)$", result.stdout, re.M)
    if raised:
        evidence[:0] = [line_of(result, f"{label}: {rows} raised") for rows, _, _ in raised]
        rows = [r for r, _, _ in raised]
        slots |= {
            "rows": rows[0],
            "raised_at": Derived(rows, " and ".join(f"`{r}`" for r in rows)),
            "error": raised[0][1],
            "message": raised[0][2].strip(),
        }
        return Measured("raised", tuple(evidence), "raised", slots)
    outcome = "every call compiled" if ran == calls else "calls ran uncompiled"
    return Measured(f"{ran} of {calls}", tuple(evidence), outcome, slots)


def _limit_fact(kind: str, label: str, absent: str):
    outcomes = LIMIT_OUTCOMES + (("not in this torch",) if absent else ())

    @fact(f"limits: {kind}", LIMIT_REMEDIES, show=str, outcomes=outcomes)
    def measure(result: SnippetResult) -> Measured:
        return limit_case(result, label, absent)

    return measure


LIMIT_FACTS = [_limit_fact(kind, label, absent) for kind, label, absent in LIMIT_CASES]


@page_table
def limit_remedies_table(result: SnippetResult) -> str:
    rows = []
    for f, (_, label, _) in zip(LIMIT_FACTS, LIMIT_CASES, strict=True):
        m = f.measure(result)
        marks = markers_for(list(m.evidence))
        if m.outcome == "not in this torch":
            rows.append([code(label), "not in this torch" + marks, "—"])
            continue
        what = str(m.slots["ran"]).replace("compiled calls=", "")
        if m.outcome == "raised":
            what += f"; raised {code(str(m.slots['error']))} at {m.slots['raised_at']}"
        rows.append([code(label), what + marks, str(m.slots["graphs"]).replace("graphs=", "")])
    return table(["case (calls with 2, 3, 4, 5 rows)", "calls that ran compiled", "graphs"], rows, "--r")


_SETTING = re.compile(
    r"^(?:config\.(?P<name>\w+)|torch\.compiler\.(?P<api>set_stance)|torch\.compile\((?P<arg>recompile_limit)=\.\.\.\)): "
    r"(?P<value>.+)$",
    re.M,
)


def _setting_name(m: re.Match) -> str:
    if m.group("name"):
        return f"torch._dynamo.config.{m.group('name')}"
    if m.group("api"):
        return "torch.compiler.set_stance"
    return "torch.compile(recompile_limit=...)"


@fact("limits: the settings this torch has", LIMIT_REMEDIES, show=lambda v: ", ".join(v))
def limit_settings(result: SnippetResult) -> Measured:
    found = [m for m in _SETTING.finditer(result.stdout)]
    if not found:
        raise LookupError(f"{result.path} printed no settings")
    present = [
        _setting_name(m).removeprefix("torch._dynamo.config.") for m in found if m.group("value") != "not in this torch"
    ]
    return Measured(present, tuple(line_of(result, m.group(0)) for m in found))


@page_table
def limit_settings_table(result: SnippetResult) -> str:
    rows = []
    for m in _SETTING.finditer(result.stdout):
        name = _setting_name(m)
        rows.append([code(name), code(m.group("value")) + markers_for([line_of(result, m.group(0))])])
    if not rows:
        raise LookupError(f"{result.path} printed no settings")
    return table(["setting", "on this torch"], rows)


# -- the cache is a list: what to do -----------------------------------------------------------------
CACHE_MARKED = run("dynamic/cache_list_marked.py", "recompiles")


@fact(
    "dynamic: five sizes marked dynamic (cache_list_marked)",
    CACHE_MARKED,
    show=lambda v: plural(v, "entry", "entries"),
    outcomes=("one entry", "an entry per size", "other"),
)
def cache_marked(result: SnippetResult) -> Measured:
    rows = steps(result.stdout)
    if len(rows) != 5:
        raise LookupError(f"expected five sizes, read {len(rows)}")
    n = rows[-1][1]
    recompiles = result.log("recompiles").count("Recompiling function")
    outcome = "one entry" if n == 1 else "an entry per size" if n == 5 else "other"
    slots = {
        "n": Derived(n, plural(n, "graph")),
        "recompiles": Derived(recompiles, plural(recompiles, "recompile")),
    }
    return Measured(n, tuple(line_of(result, label) for label, _ in rows), outcome, slots)
