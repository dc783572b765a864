"""Facts and tables for lesson 3, "What a guard checks" (docs/guards.md).

Each `@fact` reads a recorded run and returns what it measured, the output lines it rests on and
the named outcome it took; the page's explain blocks hold the sentences, one per outcome. The
functions here build tables; they return no prose.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import pairwise

from ...run.record import SnippetResult
from ..claims import UNRECOGNISED, Derived, Measured, fact, in_dump, line_of, markers_for, page_table, run
from ..parse.guard_dump import TENSOR_FIELDS, Guard, parse_check_tensor, parse_guards_log, split_dumps, tensor_check
from ..parse.recompiles import attribute_to_steps, parse_recompiles
from .common import STEP_RE, code, plural, shorten, steps, table

ANATOMY = run("guards/anatomy.py", "guards")
EXPLAIN = run("guards/explain.py")
AMBIENT_RUN = run("guards/ambient.py", "recompiles")
DISPATCH = run("guards/dispatch_keys.py")
FIVE = run("guards/five_calls.py", "recompiles")
MODULE_GUARDS = run("guards/module_guards.py", "guards,recompiles")
MODULE_COUNTS = run("guards/module_counts.py")
HELPER = run("guards/stale_helper.py", "recompiles,guards", earlier_logs=("recompiles",))
UNGUARDED = run("guards/unguarded.py", "recompiles")

GROUP_TITLES = {
    "argument": "about your arguments",
    "ambient": "ambient state",
    "global": "globals the function read",
}


def first_dump(result: SnippetResult) -> list[Guard]:
    dumps = parse_guards_log(result.log("guards"))
    if not dumps:
        raise ValueError(f'{result.path} printed no guard dump (was it run with logs="guards"?)')
    return dumps[0]


def is_tree(result: SnippetResult) -> bool:
    return not first_dump(result)[0].flat


def guard_ev(result: SnippetResult, guard: Guard, dump: int = 0):
    return in_dump(result, dump, guard.predicate)


def _header_ev(result: SnippetResult, dump: int = 0):
    """The first line of a dump: the evidence for what a dump does or does not contain."""
    if not parse_guards_log(result.log("guards")):
        return line_of(result, result.output.strip().splitlines()[0] if result.output.strip() else "")
    return in_dump(result, dump, "TREE_GUARD_MANAGER:" if is_tree(result) else "GUARDS:")


def _dump_ev(result: SnippetResult) -> tuple:
    """The first dump, its header and every check: the evidence for what the dump does not contain
    (a header alone would show where to look, not that the line is missing)."""
    if not parse_guards_log(result.log("guards")):
        return (_header_ev(result),)
    return (_header_ev(result),) + tuple(guard_ev(result, g) for g in first_dump(result))


def _codes(items) -> Derived:
    items = list(items)
    return Derived(items, ", ".join(code(i) for i in items) or "none")


# -- 1. reading a guard dump -------------------------------------------------------------------
def group_counts(result: SnippetResult) -> Counter:
    return Counter(g.group for g in first_dump(result))


@fact("guards: dump format", ANATOMY, outcomes=("tree", "flat list"))
def dump_format(anatomy: SnippetResult) -> Measured:
    guards = first_dump(anatomy)
    counts = group_counts(anatomy)
    parts = ", ".join(f"{counts[g]} {GROUP_TITLES[g]}" for g in ("argument", "ambient", "global") if counts[g])
    slots = {"n": Derived(len(guards)), "parts": Derived(dict(counts), parts)}
    if is_tree(anatomy):
        return Measured("tree", (line_of(anatomy, "TREE_GUARD_MANAGER:"),), "tree", slots)
    return Measured("flat list", (guard_ev(anatomy, guards[0]),), "flat list", slots)


@fact("guards: checks printed for f(x, alpha)", ANATOMY)
def checks_printed(anatomy: SnippetResult) -> Measured:
    guards = first_dump(anatomy)
    return Measured(len(guards), tuple(guard_ev(anatomy, g) for g in guards))


@page_table
def guard_table(result: SnippetResult) -> str:
    rows = []
    for i, g in enumerate(first_dump(result), 1):
        rows.append(
            [
                f"{i}{markers_for([guard_ev(result, g)])}",
                code(g.kind) if not g.flat else "(none printed)",
                code(g.source) if g.source else "—",
                GROUP_TITLES[g.group],
                code(shorten(g.predicate, 90)),
            ]
        )
    return table(["#", "label", "source", "group", "predicate"], rows, "r----")


def _comment_kind(g: Guard) -> str:
    if not g.comment:
        return "none"
    if "snippets/" in g.comment:
        return "snippet"
    if "_dynamo/" in g.comment:
        return "dynamo"
    return "other"


@fact(
    "guards: where each line's comment points",
    ANATOMY,
    show=lambda v: ", ".join(f"{k} {n}" for k, n in v.items()),
    outcomes=("your code and dynamo's", "your code, dynamo's and no comment"),
)
def comment_sources(anatomy: SnippetResult) -> Measured:
    guards = first_dump(anatomy)
    kinds = Counter(_comment_kind(g) for g in guards)
    if kinds["other"] or not kinds["snippet"] or not kinds["dynamo"]:
        raise ValueError(f"comments of an unexpected shape: {dict(kinds)}")
    dynamo = [g for g in guards if _comment_kind(g) == "dynamo"]
    where = sorted({m.group(1) for g in dynamo for m in [re.search(r"in (\w+)\s*$", g.comment)] if m})
    slots = {
        "n": Derived(len(guards)),
        "user": Derived(kinds["snippet"]),
        "dynamo": Derived(kinds["dynamo"]),
        "bare": Derived(kinds["none"]),
        "where": _codes(where),
    }
    ev = tuple(
        guard_ev(anatomy, g) for kind in ("snippet", "dynamo", "none") for g in guards if _comment_kind(g) == kind
    )
    outcome = "your code, dynamo's and no comment" if kinds["none"] else "your code and dynamo's"
    return Measured(dict(kinds), ev, outcome, slots)


@fact(
    "guards: globals the body read",
    ANATOMY,
    show=lambda v: ", ".join(v) or "none",
    outcomes=("guarded", "not in the dump"),
)
def global_checks(anatomy: SnippetResult) -> Measured:
    globals_ = [g for g in first_dump(anatomy) if g.group == "global"]
    if not globals_:
        return Measured([], _dump_ev(anatomy), "not in the dump")
    sources = list(dict.fromkeys(g.source for g in globals_))
    return Measured(sources, tuple(guard_ev(anatomy, g) for g in globals_), "guarded", {"sources": _codes(sources)})


# -- guard eval latency, beside the snippet's own per-call timings --------------------------------
def call_timings(result: SnippetResult) -> dict[str, float]:
    return {
        m.group(1): float(m.group(2))
        for m in re.finditer(r"^(eager|compiled) call\s+([\d.]+) us$", result.stdout, re.M)
    }


@fact("guards: guard eval latency line", ANATOMY, outcomes=("printed", "not printed"), varies=True)
def latency_line(anatomy: SnippetResult) -> Measured:
    m = re.search(r"^Guard eval latency = ([\d.]+) us", anatomy.output, re.M)
    if not m:
        return Measured(None, _dump_ev(anatomy), "not printed")
    return Measured(float(m.group(1)), (line_of(anatomy, "Guard eval latency"),), "printed", {"latency": m.group(1)})


@fact("guards: per-call timings (one run each)", ANATOMY, outcomes=("measured",), varies=True)
def per_call_timings(anatomy: SnippetResult) -> Measured:
    t = call_timings(anatomy)
    if set(t) != {"eager", "compiled"}:
        raise ValueError(f"expected an eager and a compiled timing, got {t}")
    return Measured(
        t,
        (line_of(anatomy, "eager call"), line_of(anatomy, "compiled call")),
        "measured",
        {"eager": f"{t['eager']:.1f}", "compiled": f"{t['compiled']:.1f}"},
    )


# -- 2. what check_tensor compares ---------------------------------------------------------------
def tensor_fields(result: SnippetResult) -> dict[str, str]:
    check = tensor_check(first_dump(result))
    if check is None:
        raise ValueError(f"{result.path}: no check_tensor guard in the dump")
    return parse_check_tensor(check.predicate)


@fact("guards: tensor check fields", ANATOMY, show=lambda v: ", ".join(v), outcomes=("parsed",))
def tensor_field_names(result: SnippetResult) -> Measured:
    check = tensor_check(first_dump(result))
    if check is None:
        raise ValueError(f"{result.path}: no check_tensor guard in the dump")
    names = [f for f in TENSOR_FIELDS if f in parse_check_tensor(check.predicate)]
    return Measured(
        names,
        (guard_ev(result, check),),
        "parsed",
        {"n": Derived(len(names)), "names": Derived(names, ", ".join(names))},
    )


@page_table
def tensor_fields_table(result: SnippetResult) -> str:
    fields = tensor_fields(result)
    mark = markers_for([guard_ev(result, tensor_check(first_dump(result)))])
    rows = [[name, (code(fields[name]) + mark) if name in fields else "(not printed)"] for name in TENSOR_FIELDS]
    return table(["field", "value in this build's guard"], rows)


# -- dispatch keys of three tensors ------------------------------------------------------------------
def _keys(text: str) -> list[str] | None:
    m = re.fullmatch(r"DispatchKeySet\((.*)\)", text.strip())
    return [k.strip() for k in m.group(1).split(",") if k.strip()] if m else None


def dispatch_keys(result: SnippetResult) -> dict[str, list[str] | None]:
    out = {}
    for m in re.finditer(r"^(plain|requires_grad=True|inference_mode)\s+(.*)$", result.stdout, re.M):
        out[m.group(1)] = _keys(m.group(2))
    return out


@fact(
    "guards: requires_grad changes the dispatch keys",
    DISPATCH,
    outcomes=("no", "yes", "not measured"),
)
def grad_changes_keys(result: SnippetResult) -> Measured:
    keys = dispatch_keys(result)
    ev = (line_of(result, "plain "), line_of(result, "requires_grad=True "))
    if keys.get("plain") is None:
        return Measured("not measured", ev, "not measured")
    if keys["plain"] == keys["requires_grad=True"]:
        return Measured("no", ev, "no")
    diff = sorted(set(keys["plain"]) ^ set(keys["requires_grad=True"]))
    return Measured("yes", ev, "yes", {"diff": _codes(diff)})


@fact(
    "guards: keys inference_mode drops",
    DISPATCH,
    show=lambda v: ", ".join(v) or "none",
    outcomes=("some", "none", "not measured"),
)
def inference_lost(result: SnippetResult) -> Measured:
    keys = dispatch_keys(result)
    ev = (line_of(result, "plain "), line_of(result, "inference_mode "))
    if keys.get("plain") is None or keys.get("inference_mode") is None:
        return Measured([], ev, "not measured")
    lost = [k for k in keys["plain"] if k not in keys["inference_mode"]]
    return Measured(lost, ev, "some" if lost else "none", {"lost": _codes(lost)})


@fact(
    "guards: the guard's key set and _dispatch_keys",
    ANATOMY,
    DISPATCH,
    outcomes=("differ", "same", "not measured"),
)
def guard_vs_tensor_keys(anatomy: SnippetResult, keys_run: SnippetResult) -> Measured:
    check = tensor_check(first_dump(anatomy))
    if check is None:
        raise ValueError("no check_tensor guard in the dump")
    guard_set = parse_check_tensor(check.predicate).get("dispatch key set", "")
    guard = _keys(guard_set)
    plain = dispatch_keys(keys_run).get("plain")
    ev = (guard_ev(anatomy, check), line_of(keys_run, "plain "))
    if plain is None:
        return Measured("not measured", ev, "not measured")
    if guard is None:
        raise ValueError(f"unreadable key set in the guard: {guard_set!r}")
    printed = next(ln.split(None, 1)[1].strip() for ln in keys_run.stdout.splitlines() if ln.startswith("plain "))
    slots = {
        "guard": guard_set,
        "printed": printed,
        "only_guard": _codes(k for k in guard if k not in plain),
        "only_printed": _codes(k for k in plain if k not in guard),
    }
    outcome = "same" if set(guard) == set(plain) else "differ"
    return Measured(outcome, ev, outcome, slots)


# -- 3. ambient state ----------------------------------------------------------------------------
AMBIENT = (
    "GLOBAL_STATE",
    "DEFAULT_DEVICE",
    "TORCH_FUNCTION_MODE_STACK",
    "SAVED_TENSORS_HOOKS",
    "BACKEND_MATCH",
    "CONFIG_HASH_MATCH",
)


def ambient_guards(result: SnippetResult) -> dict[str, Guard]:
    """Family -> the printed guard, for the ambient checks of the first dump."""
    return {g.family: g for g in first_dump(result) if g.group == "ambient"}


@fact("guards: ambient guards present", ANATOMY, show=lambda v: ", ".join(v))
def ambient_families(result: SnippetResult) -> Measured:
    found = ambient_guards(result)
    return Measured(sorted(found), tuple(guard_ev(result, g) for g in found.values()))


def ambient_present(result: SnippetResult) -> set[str]:
    return set(ambient_families(result).value)


@page_table
def ambient_table(result: SnippetResult) -> str:
    found = ambient_guards(result)
    rows = []
    for family in AMBIENT:
        g = found.get(family)
        if g is None:
            printed = "(this dump has no such line)"
        else:
            label = f"{code(g.kind)}: " if not g.flat else ""
            printed = f"{label}{code(shorten(g.predicate, 70))}{markers_for([guard_ev(result, g)])}"
        rows.append([code(family), printed])
    return table(["check", "as printed in this build's dump"], rows)


@fact(
    "guards: the global state check, dump and log",
    ANATOMY,
    FIVE,
    outcomes=("printed with its fields", "printed without fields", "logged, not printed"),
)
def global_state_check(anatomy: SnippetResult, five: SnippetResult) -> Measured:
    g = ambient_guards(anatomy).get("GLOBAL_STATE")
    if g is not None:
        m = re.search(r"against (\{.*\})\s*$", g.predicate)
        if m:
            fields = list(json.loads(m.group(1)))
            return Measured(fields, (guard_ev(anatomy, g),), "printed with its fields", {"fields": _codes(fields)})
        return Measured([], (guard_ev(anatomy, g),), "printed without fields", {"line": g.predicate})
    logged = [f.reason for r in parse_recompiles(five.log("recompiles")) for f in r.failures]
    hit = next((r for r in logged if r.startswith("___check_global_state()")), None)
    if hit is None:
        raise ValueError("no global state check in the dump or in the five calls' log")
    return Measured([], _dump_ev(anatomy) + (line_of(five, hit),), "logged, not printed", {"line": hit})


def _config_steps(ambient_run: SnippetResult) -> list[dict]:
    calls = attribute_to_steps(ambient_run.output, STEP_RE)
    if len(calls) != 3:
        raise ValueError(f"{ambient_run.path}: expected 3 measured steps, got {[c['label'] for c in calls]}")
    return calls


@fact(
    "guards: flipping a config flag",
    AMBIENT_RUN,
    outcomes=("reuses the entry", "recompiles", "compiles a new graph, no guard failure logged"),
)
def config_flip(ambient_run: SnippetResult) -> Measured:
    base, flip, _ = _config_steps(ambient_run)
    ev = (line_of(ambient_run, "compiled with backend='eager'"), line_of(ambient_run, "config flag flipped"))
    slots = {"base": str(base["graphs"]), "after": str(flip["graphs"])}
    if flip["graphs"] == base["graphs"]:
        return Measured("reuses the entry", ev, "reuses the entry", slots)
    if flip["recompiles"] and any(f.reason for r in flip["recompiles"] for f in r.failures):
        reason = flip["recompiles"][0].failures[0].reason
        return Measured("recompiles", ev + (line_of(ambient_run, reason),), "recompiles", slots | {"reason": reason})
    if flip["recompiles"]:
        raise ValueError("a recompile was logged for the flip without a reason")
    lines = ambient_run.output.splitlines()
    i = next(n for n, ln in enumerate(lines) if ln.startswith("config flag flipped"))
    j = next(n for n, ln in enumerate(lines) if ln.startswith("compiled with backend"))
    between = [ln for ln in lines[j + 1 : i] if ln.strip()]
    if not between:
        raise ValueError("a new graph without any message")
    return Measured(
        "compiles a new graph",
        ev + (line_of(ambient_run, between[0]),),
        "compiles a new graph, no guard failure logged",
        slots | {"message": between[0]},
    )


@fact("guards: another backend", AMBIENT_RUN, outcomes=("recompiles", "reuses the entry"))
def backend_switch(ambient_run: SnippetResult) -> Measured:
    _, flip, other = _config_steps(ambient_run)
    ev = (line_of(ambient_run, "config flag flipped"), line_of(ambient_run, "same function, backend='aot_eager'"))
    slots = {"before": str(flip["graphs"]), "after": str(other["graphs"])}
    if other["graphs"] == flip["graphs"]:
        return Measured("reuses the entry", ev, "reuses the entry", slots)
    if not other["recompiles"]:
        raise ValueError("a new graph for the other backend without a recompile message")
    return Measured("recompiles", ev + (line_of(ambient_run, "Recompiling function"),), "recompiles", slots)


@fact(
    "guards: why the other backend recompiled",
    AMBIENT_RUN,
    ANATOMY,
    outcomes=("a printed backend check failed", "an unprinted backend check failed", "no reason given", "no recompile"),
)
def backend_reason(ambient_run: SnippetResult, anatomy: SnippetResult) -> Measured:
    other = _config_steps(ambient_run)[2]
    if not other["recompiles"]:
        return Measured(None, (line_of(ambient_run, "same function, backend='aot_eager'"),), "no recompile")
    failures = [f for r in other["recompiles"] for f in r.failures]
    reasons = [f.reason for f in failures if f.reason]
    printed = ambient_guards(anatomy).get("BACKEND_MATCH")
    head = (line_of(ambient_run, "Recompiling function"),)
    if not reasons:
        shown = Derived(len(failures), plural(len(failures), "failure line") if failures else "no failure line")
        return Measured(None, head + _dump_ev(anatomy), "no reason given", {"lines": shown})
    reason = reasons[0]
    if "backend" not in reason.lower():
        raise ValueError(f"the backend switch failed another guard: {reason!r}")
    ev = head + (line_of(ambient_run, reason[:60]),)
    slots = {
        "reason": Derived(reason, shorten(reason, 160)),
        "n": Derived(len(reasons)),
        # the words themselves (an empty string for one line: a count as the value would print "1")
        "more": Derived(more := f" (the first of {len(reasons)} failure lines)" if len(reasons) > 1 else "", more),
    }
    if printed is not None:
        return Measured(reason, ev + (guard_ev(anatomy, printed),), "a printed backend check failed", slots)
    return Measured(reason, ev + _dump_ev(anatomy), "an unprinted backend check failed", slots)


# -- 4. guards as objects ------------------------------------------------------------------------
# builder name -> the printed kinds (families) it produces; an object is matched to the printed
# lines of its own source (or, for ambient builders without a source, to its ambient family)
BUILDER_PRINTS = {
    "TENSOR_MATCH": {"TENSOR_MATCH", "DIMENSION_DYNAMIC_MARKING_GUARD", "NO_HASATTR"},
    "CONSTANT_MATCH": {"EQUALS_MATCH", "TYPE_MATCH"},
    "EQUALS_MATCH": {"EQUALS_MATCH"},
    "TYPE_MATCH": {"TYPE_MATCH"},
    "ID_MATCH": {"ID_MATCH"},
    "FUNCTION_MATCH": {"ID_MATCH"},
    "BUILTIN_MATCH": {"ID_MATCH"},
    "MODULE_MATCH": {"ID_MATCH"},
    "CLOSURE_MATCH": {"ID_MATCH"},
    "GLOBAL_STATE": {"GLOBAL_STATE"},
    "DEFAULT_DEVICE": {"DEFAULT_DEVICE"},
    "BACKEND_MATCH": {"BACKEND_MATCH"},
    "CONFIG_HASH_MATCH": {"CONFIG_HASH_MATCH"},
    "AUTOGRAD_SAVED_TENSORS_HOOKS": {"SAVED_TENSORS_HOOKS"},
    "TORCH_FUNCTION_STATE": {"TORCH_FUNCTION_MODE_STACK"},
}
# keys of the printed GLOBAL_STATE line that hold the state a silent builder is about
GLOBAL_STATE_KEYS = {
    "GRAD_MODE": "grad_mode",
    "DETERMINISTIC_ALGORITHMS": "deterministic_algorithms",
    "TORCH_FUNCTION_STATE": "torch_function",
}


def explain_objects(result: SnippetResult) -> list[tuple[str, str]]:
    rows = []
    for line in result.stdout.splitlines():
        m = re.match(r"^([A-Z][A-Z0-9_]+)\s+(\S.*)$", line)
        if m:
            rows.append((m.group(1), "" if m.group(2).strip() == "-" else m.group(2).strip()))
    return rows


def match_objects(
    result: SnippetResult, anatomy: SnippetResult
) -> tuple[list[tuple[str, str, list[Guard]]], list[Guard]]:
    """Each explain() object with the printed guards of its own source; and the printed guards left over."""
    left = list(first_dump(anatomy))
    matched = []
    for builder, name in explain_objects(result):
        kinds = BUILDER_PRINTS.get(builder, set())
        mine = [g for g in left if g.family in kinds and (g.source == name if name else g.group == "ambient")]
        left = [g for g in left if g not in mine]
        matched.append((builder, name, mine))
    return matched, left


@fact("guards: explain() objects", EXPLAIN, ANATOMY, outcomes=("counted",))
def explain_count(result: SnippetResult, anatomy: SnippetResult) -> Measured:
    m = re.search(r"^(\d+) guard objects$", result.stdout, re.M)
    if not m:
        raise ValueError("no count of guard objects printed")
    n = int(m.group(1))
    return Measured(
        n,
        (line_of(result, "guard objects"), *_dump_ev(anatomy)),
        "counted",
        {"n": str(n), "printed": Derived(len(first_dump(anatomy)))},
    )


@fact(
    "guards: builders that printed nothing",
    EXPLAIN,
    ANATOMY,
    show=lambda v: ", ".join(v) or "none",
    outcomes=("some", "none"),
)
def silent_builders(result: SnippetResult, anatomy: SnippetResult) -> Measured:
    matched, _ = match_objects(result, anatomy)
    silent = sorted({b for b, _, mine in matched if not mine} - {b for b, _, mine in matched if mine})
    if not silent:
        return Measured(silent, (line_of(result, "guard objects"),), "none")
    return Measured(silent, tuple(line_of(result, b + " ") for b in silent), "some", {"names": _codes(silent)})


@fact("guards: global state behind silent builders", EXPLAIN, ANATOMY, outcomes=("shown in GLOBAL_STATE", "not shown"))
def silent_in_global_state(result: SnippetResult, anatomy: SnippetResult) -> Measured:
    silent = silent_builders(result, anatomy).value
    state = next((g for g in first_dump(anatomy) if g.family == "GLOBAL_STATE" and not g.flat), None)
    held = [(b, k) for b, k in GLOBAL_STATE_KEYS.items() if b in silent]
    if state is not None:
        held = [(b, k) for b, k in held if f'"{k}"' in state.predicate]
    if state is None or not held:
        return Measured([], _dump_ev(anatomy), "not shown")
    return Measured(
        [b for b, _ in held],
        (guard_ev(anatomy, state),),
        "shown in GLOBAL_STATE",
        {"builders": _codes(b for b, _ in held), "keys": _codes(f'"{k}"' for _, k in held)},
    )


@fact("guards: one object, several printed lines", EXPLAIN, ANATOMY, outcomes=("found", "none"))
def one_object_many_lines(result: SnippetResult, anatomy: SnippetResult) -> Measured:
    matched, _ = match_objects(result, anatomy)
    many = [(b, mine) for b, _, mine in matched if len(mine) > 1]
    if not many:
        return Measured(None, (line_of(result, "guard objects"),), "none")
    builder, mine = many[0]
    return Measured(
        builder,
        (line_of(result, builder + " "),) + tuple(guard_ev(anatomy, g) for g in mine),
        "found",
        {"builder": builder, "n": Derived(len(mine))},
    )


@fact("guards: printed lines no object accounts for", EXPLAIN, ANATOMY, outcomes=("some", "none"))
def unmatched_lines(result: SnippetResult, anatomy: SnippetResult) -> Measured:
    _, left = match_objects(result, anatomy)
    if not left:
        return Measured([], (line_of(result, "guard objects"),), "none")
    kinds = list(dict.fromkeys(g.kind for g in left))
    return Measured(kinds, tuple(guard_ev(anatomy, g) for g in left), "some", {"kinds": _codes(kinds)})


@page_table
def explain_table(result: SnippetResult, anatomy: SnippetResult) -> str:
    matched, _ = match_objects(result, anatomy)
    rows = []
    for builder, name, mine in matched:
        if mine:
            if mine[0].flat:
                note = plural(len(mine), "unlabelled line")
            else:
                kinds = Counter(g.kind for g in mine)
                note = ", ".join(f"{n}× {code(k)}" for k, n in kinds.items())
            note += markers_for([guard_ev(anatomy, g) for g in mine])
        else:
            note = "nothing"
        rows.append(
            [
                code(builder) + markers_for([line_of(result, builder + " ")]),
                code(name) if name else "—",
                str(len(mine)),
                note,
            ]
        )
    return table(["builder (create_fn)", "source (name)", "lines printed for it", "which"], rows, "--r-")


# -- 5. five calls, one shape --------------------------------------------------------------------
def five_calls(result: SnippetResult) -> list[dict]:
    return attribute_to_steps(result.output, STEP_RE)


@page_table
def five_calls_table(result: SnippetResult) -> str:
    rows = []
    for step in five_calls(result):
        failures = [f for r in step["recompiles"] for f in r.failures]
        cell = (
            "<br>".join((f"{code(f.entry)}: " if f.entry else "") + code(shorten(f.reason, 100)) for f in failures)
            or "—"
        )
        rows.append([step["label"], str(step["graphs"]) + markers_for([line_of(result, step["label"] + " ")]), cell])
    return table(["call", "unique_graphs after", "failed guards in the log"], rows, "-r-")


@fact("guards: graphs for five calls of one shape", FIVE, outcomes=("one per call", "fewer than calls"))
def five_calls_graphs(result: SnippetResult) -> Measured:
    calls = five_calls(result)
    last = calls[-1]
    outcome = "one per call" if last["graphs"] == len(calls) else "fewer than calls"
    return Measured(
        last["graphs"],
        (line_of(result, last["label"] + " "),),
        outcome,
        {"n": str(last["graphs"]), "calls": Derived(len(calls))},
    )


@fact(
    "guards: failure lines per recompile",
    FIVE,
    show=lambda v: ", ".join(map(str, v)),
    outcomes=("one per entry", "other counts"),
)
def failure_lines(result: SnippetResult) -> Measured:
    calls = five_calls(result)
    counts = [sum(len(r.failures) for r in s["recompiles"]) for s in calls[1:]]
    before = [s["graphs"] for s in calls[:-1]]
    ev = tuple(line_of(result, s["recompiles"][0].failures[-1].reason) for s in calls[1:] if s["recompiles"])
    slots = {"counts": Derived(counts, ", ".join(map(str, counts)))}
    return Measured(counts, ev, "one per entry" if counts == before else "other counts", slots)


@fact("guards: no_grad recompile reason", FIVE, outcomes=("the whole global state", "names the field"))
def no_grad_failure(result: SnippetResult) -> Measured:
    step = next(s for s in five_calls(result) if s["label"] == "no_grad")
    failures = [f for r in step["recompiles"] for f in r.failures]
    if not failures:
        raise ValueError("the no_grad call reported no guard failure")
    reason = failures[0].reason.strip()
    if re.fullmatch(r"___check_global_state\(\)", reason):
        outcome = "the whole global state"
    elif reason.startswith("GLOBAL_STATE changed: "):
        outcome = "names the field"
    else:
        raise ValueError(f"an unknown no_grad reason: {reason!r}")
    return Measured(reason, (line_of(result, reason),), outcome, {"reason": reason})


# -- 6. modules: identity or type? ---------------------------------------------------------------
def self_guards(result: SnippetResult) -> list[list[Guard]]:
    """Per compiled entry, the guards on `self` itself and on its plain attributes."""
    out = []
    for dump in parse_guards_log(result.log("guards")):
        out.append(
            [
                g
                for g in dump
                if g.source == "L['self']"
                or re.fullmatch(r"L\['self'\]\.\w+", g.source)
                or "L['self'].k" in g.predicate
            ]
        )
    return out


@fact(
    "modules: guarded by",
    MODULE_GUARDS,
    show=lambda v: {"identity": "identity", "type": "type and attributes"}[v],
    outcomes=("guarded by identity", "guarded by type"),
)
def module_regime_fact(result: SnippetResult) -> Measured:
    on_self = [g for g in self_guards(result)[0] if g.source == "L['self']"]
    for g in on_self:
        if g.kind == "ID_MATCH":
            return Measured("identity", (guard_ev(result, g),), "guarded by identity", {"guard": g.predicate})
    for g in on_self:
        if g.kind == "TYPE_MATCH":
            return Measured("type", (guard_ev(result, g),), "guarded by type", {"guard": g.predicate})
    raise ValueError(f"no guard on L['self'] found in {result.path}: {[g.kind for g in on_self]}")


def module_regime(result: SnippetResult) -> str:
    """'identity' when self is guarded by object id, 'type' when by type plus attributes."""
    return module_regime_fact(result).value


@page_table
def module_guard_lines(result: SnippetResult) -> str:
    rows = []
    for i, dump in enumerate(self_guards(result)):
        for g in dump:
            rows.append(
                [
                    str(i),
                    code(g.kind) if not g.flat else "—",
                    code(shorten(g.predicate, 100)) + markers_for([guard_ev(result, g, i)]),
                ]
            )
    return table(["entry", "label", "guard on `self` or an attribute of it"], rows, "r--")


def module_counts(result: SnippetResult) -> dict[str, int]:
    return dict(steps(result.stdout))


@page_table
def module_counts_table(result: SnippetResult) -> str:
    return table(
        ["pattern", "graphs compiled"],
        [[k, str(v) + markers_for([line_of(result, k)])] for k, v in module_counts(result).items()],
        "-r",
    )


ENSEMBLE_16 = "ensemble of 16 identical members"
ENSEMBLE_K = "ensemble of 4, each with its own k"
LOOP = "model rebuilt in a 5-step eval loop"


def _count(result: SnippetResult, label: str, members: int, outcomes: tuple[str, str, str]) -> Measured:
    n = module_counts(result)[label]
    outcome = outcomes[0] if n == 1 else outcomes[1] if n == members else outcomes[2]
    return Measured(n, (line_of(result, label),), outcome, {"n": str(n), "members": Derived(members)})


_ENSEMBLE_OUTCOMES = ("one graph", "one per member", "other")
_LOOP_OUTCOMES = ("one graph", "one per rebuild", "other")
_K_OUTCOMES = ("one graph", "one per value", "fewer than values")


@fact(
    "modules: graphs for an ensemble of 16",
    MODULE_COUNTS,
    outcomes=_ENSEMBLE_OUTCOMES,
)
def ensemble_graphs(result: SnippetResult) -> Measured:
    return _count(result, ENSEMBLE_16, 16, _ENSEMBLE_OUTCOMES)


@fact(
    "modules: graphs for a model rebuilt in a loop",
    MODULE_COUNTS,
    outcomes=_LOOP_OUTCOMES,
)
def loop_graphs(result: SnippetResult) -> Measured:
    return _count(result, LOOP, 5, _LOOP_OUTCOMES)


@fact(
    "modules: graphs for 4 members with different k",
    MODULE_COUNTS,
    outcomes=_K_OUTCOMES,
)
def ensemble_k_graphs(result: SnippetResult) -> Measured:
    return _count(result, ENSEMBLE_K, 4, _K_OUTCOMES)


@fact(
    "modules: why the second instance recompiled",
    MODULE_GUARDS,
    outcomes=("a guard on k failed", "no guard failure logged"),
)
def module_recompile_reason(result: SnippetResult) -> Measured:
    reasons = [f.reason for r in parse_recompiles(result.log("recompiles")) for f in r.failures if f.reason]
    last = (line_of(result, "two instances"),)
    if not reasons:
        if "Recompiling function" in result.output:
            raise ValueError("a recompile without a reason")
        return Measured(None, last, "no guard failure logged")
    reason = reasons[0]
    if not re.search(r"\bk\b", reason):
        raise ValueError(f"the second instance failed another guard: {reason!r}")
    return Measured(
        reason,
        (line_of(result, reason[:60]),),
        "a guard on k failed",
        {"reason": Derived(reason, shorten(reason, 120))},
    )


_VALUE = re.compile(r"^L\['self'\]\.k == [\d.]+$")


@fact(
    "modules: second entry guards k by value",
    MODULE_GUARDS,
    outcomes=(
        "k not guarded",
        "value guard",
        "attribute became symbolic",
        "lambda guard, unknown var",
        "no second entry",
    ),
)
def second_entry_pins_k(result: SnippetResult) -> Measured:
    dumps = parse_guards_log(result.log("guards"))
    if len(dumps) < 2:
        return Measured("no second entry", (_header_ev(result),), "no second entry")
    on_k = [[g for g in d if "L['self'].k" in g.predicate] for d in dumps[:2]]
    if not on_k[0] and not on_k[1]:
        return Measured("neither entry does", (_header_ev(result), _header_ev(result, 1)), "k not guarded")
    first = [g for g in on_k[0] if _VALUE.match(g.predicate)]
    second = on_k[1]
    pinned = [g for g in second if _VALUE.match(g.predicate)]
    if pinned:
        return Measured("yes", (guard_ev(result, pinned[0], 1),), "value guard", {"guard": pinned[0].predicate})
    if not first:
        raise ValueError(f"the first entry does not compare k with a value: {[g.predicate for g in on_k[0]]}")
    slots = {"first": first[0].predicate}
    typ = next((g for g in second if g.kind == "TYPE_MATCH"), None)
    bug = next((g for g in second if "please file a bug" in g.comment), None)
    nan = next((g for g in second if "isnan" in g.predicate), None)
    if bug is not None and typ is not None:
        ev = (guard_ev(result, first[0]), guard_ev(result, typ, 1), guard_ev(result, bug, 1))
        return Measured(
            "no, only the first",
            ev,
            "lambda guard, unknown var",
            slots | {"type": typ.predicate, "lambda": bug.predicate, "comment": bug.comment},
        )
    if typ is not None and nan is not None and all(g in (typ, nan) for g in second):
        ev = (guard_ev(result, first[0]), guard_ev(result, typ, 1), guard_ev(result, nan, 1))
        return Measured(
            "no, only the first",
            ev,
            "attribute became symbolic",
            slots | {"type": typ.predicate, "nan": nan.predicate},
        )
    raise ValueError(f"second entry's guards on k of an unknown shape: {[g.predicate for g in second]}")


# -- 7. what guards do not cover -----------------------------------------------------------------
def helper_results(result: SnippetResult) -> dict[str, str]:
    out = {}
    for line in result.stdout.splitlines():
        label, sep, value = line.partition(":")
        if sep:
            out[label.strip()] = value.strip()
    return out


def helper_guard(guards_run: SnippetResult) -> Guard | None:
    for dump in parse_guards_log(guards_run.log("guards")):
        for g in dump:
            if "G['helper']" in g.predicate:
                return g
    return None


@fact(
    "inlined helper rebound",
    HELPER,
    show=lambda v: {True: "compiled code keeps the old body", False: "recompiles at once"}[v],
    outcomes=(
        "keeps the old body, no guard on the helper",
        "keeps the old body, despite a guard on the helper",
        "recompiles on a guard on the helper",
    ),
)
def helper_stale(result: SnippetResult) -> Measured:
    r = helper_results(result)
    stale = r["compiled, same shape"] != r["eager, after rebind"]
    guard = helper_guard(result)
    ev = (line_of(result, "eager, after rebind"), line_of(result, "compiled, same shape"))
    slots = {"first": r["compiled, first call"], "eager": r["eager, after rebind"], "same": r["compiled, same shape"]}
    ev = (line_of(result, "compiled, first call"),) + ev
    if stale and guard is None:
        return Measured(True, ev + (_header_ev(result),), "keeps the old body, no guard on the helper", slots)
    if guard is None:
        raise ValueError("the rebind was seen with no guard on the helper printed")
    slots |= {"guard": guard.predicate}
    if stale:
        return Measured(
            True, ev + (guard_ev(result, guard),), "keeps the old body, despite a guard on the helper", slots
        )
    return Measured(False, ev + (guard_ev(result, guard),), "recompiles on a guard on the helper", slots)


def helper_is_stale(result: SnippetResult) -> bool:
    return helper_stale(result).value


def _step_recompiled(result: SnippetResult, label: str) -> list[str]:
    """The failed guards logged between the previous printed line and the one starting with `label`."""
    lines = result.output.splitlines()
    idx = next(i for i, ln in enumerate(lines) if ln.startswith(label))
    prev = max((i for i, ln in enumerate(lines[:idx]) if ln.startswith(("compiled,", "eager,"))), default=0)
    found = parse_recompiles("\n".join(lines[prev:idx]))
    if not found:
        return []
    return [f.reason for r in found for f in r.failures] or ["(no reason printed)"]


def _body(r: dict[str, str], value: str) -> str:
    """Which body produced `value`: the elements are compared, so a result of another length still tells."""

    def elems(text: str) -> set[str]:
        return set(re.findall(r"-?[\d.]+", text))

    if elems(value) == elems(r["eager, after rebind"]):
        return "new body"
    if elems(value) == elems(r["compiled, first call"]):
        return "old body"
    return "neither"


@fact(
    "guards: helper probe, a new shape",
    HELPER,
    outcomes=("recompiles, new body", "recompiles, old body", "reuses an entry, new body", "reuses an entry, old body"),
)
def helper_new_shape(result: SnippetResult) -> Measured:
    return _helper_step(result, "compiled, new shape", "new")


@fact(
    "guards: helper probe, back to the first shape",
    HELPER,
    outcomes=("recompiles, new body", "recompiles, old body", "reuses an entry, new body", "reuses an entry, old body"),
)
def helper_back(result: SnippetResult) -> Measured:
    return _helper_step(result, "compiled, back to 3", "back")


def _helper_step(result: SnippetResult, label: str, slot: str) -> Measured:
    r = helper_results(result)
    value = r[label]
    body = _body(r, value)
    if body == "neither":
        raise ValueError(f"{label} returned neither body: {value}")
    failed = _step_recompiled(result, label)
    ev = (line_of(result, label),)
    slots = {slot: value}
    if failed:
        ev += (line_of(result, failed[0][:60]),) if failed[0] != "(no reason printed)" else ()
        slots["reason"] = Derived(failed[0], shorten(failed[0], 100))
        return Measured(f"recompiles, {body}", ev, f"recompiles, {body}", slots)
    return Measured(f"reuses an entry, {body}", ev, f"reuses an entry, {body}", slots)


# -- changes no guard sees ------------------------------------------------------------------------
def unguarded_results(result: SnippetResult) -> dict[str, str]:
    return helper_results(result)


@fact("guards: a change no guard sees", UNGUARDED, show=lambda v: ", ".join(v) or "none measured")
def unseen_changes(result: SnippetResult) -> Measured:
    r = unguarded_results(result)
    found, ev = [], []
    if "filtered, after rebind" in r and r["filtered, after rebind"] != r["eager, after rebind"]:
        found.append("helper rebound under skip_guard_on_globals_unsafe")
        ev += [line_of(result, "eager, after rebind"), line_of(result, "filtered, after rebind")]
    if "constant, after the change" in r and r["constant, after the change"] != r["eager, after the change"]:
        found.append("setting read through assume_constant_result")
        ev += [line_of(result, "eager, after the change"), line_of(result, "constant, after the change")]
    return Measured(found, tuple(ev))


@fact("guards: globals filtered out", UNGUARDED, outcomes=("stale", "seen", "not available"))
def filtered_globals(result: SnippetResult) -> Measured:
    r = unguarded_results(result)
    if "filtered, first call" not in r:
        label = next((k for k in r if k in ("skip_guard_on_globals_unsafe", "guard_filter_fn")), None)
        if label is None:
            raise ValueError("neither a filtered run nor a reason it is missing")
        printed = line_of(result, label)
        return Measured("not available", (printed,), "not available", {"line": printed.line})
    eager, same = r["eager, after rebind"], r["filtered, after rebind"]
    ev = (line_of(result, "eager, after rebind"), line_of(result, "filtered, after rebind"))
    outcome = "stale" if same != eager else "seen"
    return Measured(outcome, ev, outcome, {"eager": eager, "same": same})


@fact("guards: assume_constant_result", UNGUARDED, outcomes=("stale", "followed", "not available"))
def constant_result(result: SnippetResult) -> Measured:
    r = unguarded_results(result)
    if "constant, first call" not in r:
        if "assume_constant_result" not in r:
            raise ValueError("neither a constant run nor a reason it is missing")
        printed = line_of(result, "assume_constant_result")
        return Measured("not available", (printed,), "not available", {"line": printed.line})
    eager, compiled = r["eager, after the change"], r["constant, after the change"]
    ev = (line_of(result, "eager, after the change"), line_of(result, "constant, after the change"))
    outcome = "stale" if compiled != eager else "followed"
    return Measured(outcome, ev, outcome, {"eager": eager, "compiled": compiled})


def split_dump_count(result: SnippetResult) -> int:
    return len(split_dumps(result.log("guards")))


# -- what to do: the remedies, run ----------------------------------------------------------------
ALPHA_FIX = run("guards/anatomy_remedy.py")
AMBIENT_FIX = run("guards/ambient_remedy.py")
FIVE_FIX = run("guards/five_calls_fixed.py", "recompiles")
MODULE_FIX = run("guards/module_remedies.py")
HELPER_FIX = run("guards/stale_remedy.py")

_FIELDS_RE = re.compile(
    r"^(?P<label>.+?)\s+(?:unique_graphs|graphs)=(?P<graphs>\d+)(?:\s+same_as_eager=(?P<same>\w+))?\s*$"
)


def counted(result: SnippetResult) -> list[dict]:
    """The `label graphs=N [same_as_eager=B]` lines a remedy snippet prints, in order."""
    return [
        {"label": m["label"].strip(), "graphs": int(m["graphs"]), "same": m["same"], "line": m.group(0).strip()}
        for m in (_FIELDS_RE.match(line.strip()) for line in result.stdout.splitlines())
        if m
    ]


def _row(result: SnippetResult, label: str) -> dict:
    row = next((r for r in counted(result) if r["label"] == label), None)
    if row is None:
        raise LookupError(f"{result.path}: no line for {label!r}")
    if row["same"] not in (None, "True"):
        raise ValueError(f"{result.path}: {label!r} returned another result than eager")
    return row


@fact(
    "guards: alpha as a float or a 0-d tensor",
    ALPHA_FIX,
    show=lambda v: f"float {v[0]}, tensor {v[1]}",
    outcomes=(
        "a graph per float, one for the tensor",
        "the float recompiled once, the tensor not",
        "one graph either way",
        "the tensor recompiled too",
    ),
)
def alpha_as_tensor(result: SnippetResult) -> Measured:
    f, t = _row(result, "alpha as a float"), _row(result, "alpha as a 0-d tensor")
    evidence = (line_of(result, f["line"]), line_of(result, t["line"]))
    slots = {
        "float": Derived(f["graphs"], plural(f["graphs"], "graph")),
        "tensor": Derived(t["graphs"], plural(t["graphs"], "graph")),
    }
    by_float = {
        1: "one graph either way",
        2: "the float recompiled once, the tensor not",
        3: "a graph per float, one for the tensor",
    }
    outcome = "the tensor recompiled too" if t["graphs"] > 1 else by_float.get(f["graphs"], UNRECOGNISED)
    return Measured((f["graphs"], t["graphs"]), evidence, outcome, slots)


@fact(
    "guards: ambient state set once",
    AMBIENT_FIX,
    AMBIENT_RUN,
    show=lambda v: plural(v, "graph"),
    outcomes=(
        "one graph, where flipping the flag compiled again",
        "one graph, as with the flag flipped",
        "compiled again",
    ),
)
def ambient_set_once(result: SnippetResult, ambient_run: SnippetResult) -> Measured:
    rows = counted(result)
    if len(rows) != 3:
        raise LookupError(f"expected three steps, read {len(rows)}")
    flip = config_flip(ambient_run)
    evidence = (
        tuple(line_of(result, r["line"]) for r in rows) + flip.evidence[:2]
    )  # the compile and the flip it is compared with
    last = rows[-1]["graphs"]
    grew = [r["label"] for prev, r in pairwise(rows) if r["graphs"] > prev["graphs"]]
    slots = {
        "n": Derived(last, plural(last, "graph")),
        "grew": Derived(grew, "; ".join(code(g) for g in grew) or "none"),
    }
    if last != 1:
        outcome = "compiled again"
    elif flip.outcome == "reuses the entry":
        outcome = "one graph, as with the flag flipped"
    elif flip.outcome in ("recompiles", "compiles a new graph, no guard failure logged"):
        outcome = "one graph, where flipping the flag compiled again"
    else:
        outcome = UNRECOGNISED
    return Measured(last, evidence, outcome, slots)


_AUTOGRAD_CALLS = {"requires_grad", "no_grad"}


@fact(
    "guards: five calls with the remedies",
    FIVE_FIX,
    show=lambda v: ", ".join(v) or "none",
    outcomes=("the autograd calls alone recompiled", "none recompiled", "others recompiled"),
)
def five_fixed(result: SnippetResult) -> Measured:
    rows = [_row(result, r["label"]) for r in counted(result)]
    if len(rows) != 5:
        raise LookupError(f"expected five calls, read {len(rows)}")
    grew = [r["label"] for prev, r in pairwise(rows) if r["graphs"] > prev["graphs"]]
    evidence = tuple(line_of(result, r["line"]) for r in rows)
    others = [g for g in grew if g not in _AUTOGRAD_CALLS]
    outcome = "others recompiled" if others else "the autograd calls alone recompiled" if grew else "none recompiled"
    n = rows[-1]["graphs"]
    slots = {
        "n": Derived(n, plural(n, "graph")),
        "grew": Derived(grew, ", ".join(code(g) for g in grew) or "none"),
        "others": Derived(others, ", ".join(code(g) for g in others) or "none"),
    }
    return Measured(grew, evidence, outcome, slots)


KINDS_FIX = run("guards/kinds_remedies.py", "recompiles")
_COST_LINE = {"detached": "detached: the output's requires_grad=", "cast": "cast: the float64 input's result has dtype"}


def _kind_remedy(result: SnippetResult, before: str, after: str, cost: str | None) -> tuple:
    """The graphs of a pattern run as is and with its remedy, their lines, and the remedy's cost line."""
    a, b = _row(result, before), _row(result, after)
    evidence = [line_of(result, a["line"]), line_of(result, b["line"])]
    said = None
    if cost:
        said = line_of(result, _COST_LINE[cost])
        evidence.append(said)
    slots = {"before": _graph_count(a["graphs"]), "after": _graph_count(b["graphs"])}
    return a["graphs"], b["graphs"], tuple(evidence), slots, said


def _graph_count(n: int) -> Derived:
    return Derived(n, plural(n, "graph"))


def _one_entry_remedy(result: SnippetResult, before: str, after: str, cost: str, shown_cost: str, outcomes) -> Measured:
    """A change at the call that should leave one entry where the pattern as is compiled two: the
    outcome `fixed` (the pattern compiled two, the change one, and its cost line shows `shown_cost`),
    `either` (one graph as is too) or `again` (the change compiled more than one)."""
    fixed, either, again = outcomes
    a, b, evidence, slots, said = _kind_remedy(result, before, after, cost)
    if b > 1:
        outcome = again
    elif a == 1:
        outcome = either
    elif shown_cost in said.line:
        outcome = fixed
    else:
        outcome = UNRECOGNISED
    return Measured((a, b), evidence, outcome, slots)


_DETACHED = ("one graph detached, the output without grad", "one graph either way", "compiled again detached")
_CAST = ("one graph cast, the result in float32", "one graph either way", "compiled again cast")


@fact(
    "guards: requires_grad, detached at the call",
    KINDS_FIX,
    show=lambda v: f"as is {v[0]}, detached {v[1]}",
    outcomes=_DETACHED,
)
def detached_at_call(result: SnippetResult) -> Measured:
    return _one_entry_remedy(
        result, "requires_grad as is", "requires_grad, detached", "detached", "requires_grad=False (", _DETACHED
    )


@fact("guards: a dtype, cast at the call", KINDS_FIX, show=lambda v: f"as is {v[0]}, cast {v[1]}", outcomes=_CAST)
def cast_at_call(result: SnippetResult) -> Measured:
    return _one_entry_remedy(result, "dtype as is", "dtype, cast to float32", "cast", "dtype torch.float32", _CAST)


@fact(
    "guards: a list's lengths, stacked into one tensor",
    KINDS_FIX,
    show=lambda v: f"list {v[0]}, stacked {v[1]}",
    outcomes=("a graph per length, two stacked", "a graph per length, one stacked", "no fewer graphs stacked"),
)
def stacked_list(result: SnippetResult) -> Measured:
    a, b, evidence, slots, _ = _kind_remedy(result, "list lengths 2-5 as is", "list lengths 2-5, stacked", None)
    if b >= a:
        outcome = "no fewer graphs stacked"
    elif a == 4 and b in (1, 2):
        outcome = "a graph per length, one stacked" if b == 1 else "a graph per length, two stacked"
    else:
        outcome = UNRECOGNISED
    return Measured((a, b), evidence, outcome, slots)


@page_table
def five_fixed_table(result: SnippetResult) -> str:
    rows, prev = [], 0
    for r in counted(result):
        rows.append(
            [
                code(r["label"]),
                str(r["graphs"]) + markers_for([line_of(result, r["line"])]),
                "yes" if r["graphs"] > prev else "no",
                {"True": "yes", "False": "no"}.get(r["same"] or "", "—"),
            ]
        )
        prev = r["graphs"]
    return table(["call", "graphs so far", "compiled", "same result as eager"], rows, "-rcc")


_MEMBER_OUTCOMES = ("one graph", "one per member", "other")


def _members(result: SnippetResult, label: str) -> Measured:
    r = _row(result, label)
    n = r["graphs"]
    outcome = _MEMBER_OUTCOMES[0] if n == 1 else _MEMBER_OUTCOMES[1] if n == 4 else _MEMBER_OUTCOMES[2]
    return Measured(n, (line_of(result, r["line"]),), outcome, {"n": Derived(n, plural(n, "graph"))})


@fact("modules: 4 members, k as a buffer", MODULE_FIX, outcomes=_MEMBER_OUTCOMES)
def members_buffer(result: SnippetResult) -> Measured:
    return _members(result, "k as a buffer")


_INLINED_OUTCOMES = (
    "one graph only with the flag on",
    "one per member with the flag off",
    "one graph, with the flag or without",
    "one graph, the setting deprecated",
    "other",
    "not on this torch",
)
_DEFAULT_RE = re.compile(r"^inline_inbuilt_nn_modules by default: (True|False)$", re.M)


@fact("modules: 4 members, k as a buffer, inline_inbuilt_nn_modules", MODULE_FIX, outcomes=_INLINED_OUTCOMES)
def members_inlined(result: SnippetResult) -> Measured:
    """The buffer run again with the flag set the other way from the default the run printed: an
    outcome per way the two counts (the buffer at the default, then flipped) and a warning that
    reading or setting the flag printed can combine; anything else is `other`."""
    if "inline_inbuilt_nn_modules: not on this torch" in result.stdout:
        return Measured(
            "not on this torch", (line_of(result, "inline_inbuilt_nn_modules: not on"),), "not on this torch"
        )
    default = _DEFAULT_RE.search(result.stdout)
    if default is None:
        raise LookupError(f"{result.path}: the flag is there and its default was not printed")
    flipped = default.group(1) == "False"  # the value the run set it to
    m = _members(result, f"k as a buffer, inline_inbuilt_nn_modules={flipped}")
    alone = _row(result, "k as a buffer")
    warning = next(
        (
            ln.strip()
            for ln in result.stdout.splitlines()
            if ln.startswith(("reading it warned: ", "setting it warned: "))
        ),
        None,
    )
    evidence = [line_of(result, default.group(0)), line_of(result, alone["line"]), *m.evidence]
    slots = {
        **m.slots,
        "default": default.group(0),
        "alone": Derived(alone["graphs"], plural(alone["graphs"], "graph")),
        "flipped": f"inline_inbuilt_nn_modules={flipped}",
    }
    n, a = m.value, alone["graphs"]
    if warning:
        evidence.append(line_of(result, warning))
        first = warning.split(" warned: ", 1)[1]
        slots["warning"] = Derived(first, shorten(first, 110))
    if warning and n == 1 and a == 1:
        outcome = "one graph, the setting deprecated"
    elif warning:
        outcome = "other"
    elif flipped and a == 4 and n == 1:
        outcome = "one graph only with the flag on"
    elif not flipped and a == 1 and n == 4:
        outcome = "one per member with the flag off"
    elif a == 1 and n == 1:
        outcome = "one graph, with the flag or without"
    else:
        outcome = "other"
    return Measured(n, tuple(evidence), outcome, slots)


@page_table
def members_table(result: SnippetResult) -> str:
    rows = [[r["label"], str(r["graphs"]) + markers_for([line_of(result, r["line"])])] for r in counted(result)]
    if "inline_inbuilt_nn_modules: not on this torch" in result.stdout:
        ev = line_of(result, "inline_inbuilt_nn_modules: not on")
        rows.append(["k as a buffer, inline_inbuilt_nn_modules=True", "not on this torch" + markers_for([ev])])
    return table(["4 members, each its own k", "graphs"], rows, "-r")


@fact(
    "guards: torch.compiler.reset() after the rebind",
    HELPER_FIX,
    HELPER,
    show=lambda v: v,
    outcomes=("new body, where the rebind alone kept the old", "new body, as the rebind alone gave", "old body"),
)
def reset_after_rebind(result: SnippetResult, probe: SnippetResult) -> Measured:
    r = helper_results(result)
    eager, after = r["eager, after rebind"], r["compiled, after reset"]
    evidence = tuple(
        line_of(result, k) for k in ("compiled, first call", "eager, after rebind", "compiled, after reset")
    )
    evidence += (line_of(result, "graphs compiled in all"), line_of(probe, "compiled, same shape"))
    n = int(r["graphs compiled in all"])
    slots = {"eager": eager, "after": after, "first": r["compiled, first call"], "n": Derived(n, plural(n, "graph"))}
    if after != eager:
        return Measured("old body", evidence, "old body", slots)
    stale = helper_stale(probe).value
    outcome = "new body, where the rebind alone kept the old" if stale else "new body, as the rebind alone gave"
    return Measured("new body", evidence, outcome, slots)
