"""Render code for the chapter "What a guard checks" (docs/guards.md).

Measure → fact → sentence: the `@fact` functions read runs and return what they measured with
the output lines it rests on; the render functions turn facts into claims (sentences carrying
that evidence) and tables. Nothing here states how a torch release behaves without a
measurement of it: the tests render these functions from every captured record.
"""

from __future__ import annotations

import re
from collections import Counter

from ..claims import Derived, Measured, claim, fact, in_dump, line_of, markers_for, run
from ..parse.guard_dump import TENSOR_FIELDS, Guard, parse_check_tensor, parse_guards_log, split_dumps, tensor_check
from ..parse.recompiles import attribute_to_steps, parse_recompiles
from ..record import SnippetResult
from .common import STEP_RE, across, code, plural, shorten, steps, table  # noqa: F401  (across: for the pages)

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
    "ambient": "ambient state nobody wrote down",
    "global": "globals the function touched",
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


# -- 1. reading a guard dump -------------------------------------------------------------------
@fact("guards: dump format", ANATOMY)
def dump_format(anatomy: SnippetResult) -> Measured:
    if is_tree(anatomy):
        return Measured("tree", (line_of(anatomy, "TREE_GUARD_MANAGER:"),))
    return Measured("flat list", (guard_ev(anatomy, first_dump(anatomy)[0]),))


@fact("guards: checks printed for f(x, alpha)", ANATOMY)
def checks_printed(anatomy: SnippetResult) -> Measured:
    guards = first_dump(anatomy)
    return Measured(len(guards), tuple(guard_ev(anatomy, g) for g in guards))


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


def group_counts(result: SnippetResult) -> Counter:
    return Counter(g.group for g in first_dump(result))


def dump_summary(result: SnippetResult) -> str:
    fmt = dump_format(result)
    n = checks_printed(result)
    counts = group_counts(result)
    parts = ", ".join(f"{counts[g]} {GROUP_TITLES[g]}" for g in ("argument", "ambient", "global") if counts[g])
    words = {
        "tree": "a tree of guard managers with the checks as leaves",
        "flat list": "a flat list of Python predicates, one per line",
    }
    return claim(
        "This torch printed the guards as {fmt}: **{n} checks** for a function of one tensor and one float. "
        "By where they come from: {parts}.",
        evidence=list(fmt.evidence) + [e for e in n.evidence if e not in fmt.evidence],
        fmt=Derived(fmt.value, words[fmt.value]),
        n=Derived(n.value),
        parts=Derived(parts),
    ).markdown()


def reading_notes(result: SnippetResult) -> str:
    """How to read this torch's dump format, and where its global checks came from."""
    guards = first_dump(result)
    if guards[0].flat:
        text = (
            "This dump is a flat list: each line is one Python predicate, evaluated in order, and the "
            "comment after `#` names the line of your code that made dynamo install it. "
        )
    else:
        text = (
            "Read the tree from each leaf up: a leaf (`TENSOR_MATCH`, `EQUALS_MATCH`, ...) is one check, and the "
            "`GuardManager` lines above it are how dynamo reaches the value it checks, one accessor per step "
            "(a frame local, a dict item, an attribute). "
        )
    text += (
        "Checks on your arguments are the ones you control directly. Ambient checks cover process-wide state "
        "that your code never mentions. "
    )
    globals_ = [g for g in guards if g.group == "global"]
    if globals_:
        sources = list(dict.fromkeys(g.source for g in globals_))
        text += claim(
            "The global checks ({sources}) appear because the function body looked those names up in module "
            "globals: rebinding any of them would invalidate the entry.",
            evidence=[guard_ev(result, g) for g in globals_],
            sources=Derived(sources, ", ".join(code(s) for s in sources)),
        ).markdown()
    else:
        text += claim(
            "This dump has no check on the globals the body read (`torch`, `torch.sin`): this entry does not "
            "watch them being rebound.",
            evidence=[_header_ev(result)],
        ).markdown()
    return text


# -- guard eval latency, beside the snippet's own per-call timings --------------------------------
def call_timings(result: SnippetResult) -> dict[str, float]:
    return {
        m.group(1): float(m.group(2))
        for m in re.finditer(r"^(eager|compiled) call\s+([\d.]+) us$", result.stdout, re.M)
    }


def latency_note(result: SnippetResult) -> str:
    timings = call_timings(result)
    eager, compiled = timings["eager"], timings["compiled"]
    ev_eager, ev_compiled = line_of(result, "eager call"), line_of(result, "compiled call")
    m = re.search(r"^Guard eval latency = ([\d.]+) us", result.output, re.M)
    overhead = compiled - eager
    calls = claim(
        "The snippet then timed both versions: an eager call took {eager} µs and a call of the compiled function "
        "{compiled} µs, {overhead} µs more, and that difference covers everything dynamo does per call, the guard "
        "check included.",
        evidence=[ev_eager, ev_compiled],
        eager=f"{eager:.1f}",
        compiled=f"{compiled:.1f}",
        overhead=Derived(overhead, f"{overhead:.1f}"),
    ).markdown()
    if not m:
        return (
            claim(
                "This torch prints no guard eval latency line under the dump.", evidence=[_header_ev(result)]
            ).markdown()
            + " "
            + calls
        )
    latency = m.group(1)
    compare = "more than" if float(latency) > compiled else "less than"
    return (
        claim(
            "The dump ends with `Guard eval latency = {latency} us`: dynamo's own timing of evaluating this guard set, "
            "taken once, while the entry was being compiled.",
            evidence=[line_of(result, "Guard eval latency")],
            latency=latency,
        ).markdown()
        + " "
        + calls
        + " "
        + claim(
            "That one compile-time measurement is {compare} the whole compiled call measured afterwards "
            "({compiled} µs): a single cold evaluation, not the steady cost per call, so read the per-call timing "
            "when you want to know what the guards cost a hot loop.",
            evidence=[line_of(result, "Guard eval latency"), ev_compiled],
            compare=Derived(compare),
            compiled=f"{compiled:.1f}",
        ).markdown()
    )


# -- 2. what check_tensor compares ---------------------------------------------------------------
FIELD_MEANING = {
    "type": "the Python class: a Tensor subclass would not match",
    "dispatch key set": "the dispatch keys the tensor carries: its backend (`CPU`, `CUDA`, ...) and the autograd keys it dispatches through",
    "dtype": "element type",
    "device": "device index, when it matters",
    "requires_grad": "whether autograd will track it",
    "size": "every dimension (static here: an exact match)",
    "stride": "memory layout: a transposed view has the same size and different strides",
}


@fact("guards: tensor check fields", ANATOMY, show=lambda v: ", ".join(v))
def tensor_field_names(result: SnippetResult) -> Measured:
    check = tensor_check(first_dump(result))
    if check is None:
        raise ValueError(f"{result.path}: no check_tensor guard in the dump")
    return Measured([f for f in TENSOR_FIELDS if f in parse_check_tensor(check.predicate)], (guard_ev(result, check),))


def tensor_fields(result: SnippetResult) -> dict[str, str]:
    check = tensor_check(first_dump(result))
    if check is None:
        raise ValueError(f"{result.path}: no check_tensor guard in the dump")
    return parse_check_tensor(check.predicate)


def tensor_fields_table(result: SnippetResult) -> str:
    fields = tensor_fields(result)
    mark = markers_for([guard_ev(result, tensor_check(first_dump(result)))])
    rows = [
        [name, (code(fields[name]) + mark) if name in fields else "(not printed)", FIELD_MEANING[name]]
        for name in TENSOR_FIELDS
    ]
    return table(["field", "value in this build's guard", "what it pins"], rows)


def tensor_fields_summary(result: SnippetResult) -> str:
    names = tensor_field_names(result)
    return claim(
        "The tensor check of this build compares **{n} fields** for the one tensor argument: {names}.",
        n=Derived(len(names.value)),
        names=Derived(names.value, ", ".join(names.value)),
        evidence=list(names.evidence),
    ).markdown()


# -- dispatch keys of three tensors ------------------------------------------------------------------
def dispatch_keys(result: SnippetResult) -> dict[str, list[str] | None]:
    out = {}
    for m in re.finditer(r"^(plain|requires_grad=True|inference_mode)\s+(.*)$", result.stdout, re.M):
        keys = re.fullmatch(r"DispatchKeySet\((.*)\)", m.group(2).strip())
        out[m.group(1)] = [k.strip() for k in keys.group(1).split(",") if k.strip()] if keys else None
    return out


@fact("guards: requires_grad changes the dispatch keys", DISPATCH)
def grad_changes_keys(result: SnippetResult) -> Measured:
    keys = dispatch_keys(result)
    ev = (line_of(result, "plain "), line_of(result, "requires_grad=True "))
    if keys.get("plain") is None:
        return Measured("not measured", ev)
    return Measured("no" if keys["plain"] == keys["requires_grad=True"] else "yes", ev)


def dispatch_keys_summary(result: SnippetResult) -> str:
    keys = dispatch_keys(result)
    if keys.get("plain") is None:
        return claim(
            "This torch does not offer `torch._C._dispatch_keys`, so the snippet could not print the keys.",
            evidence=[line_of(result, "plain ")],
        ).markdown()
    plain, grad, inference = keys["plain"], keys["requires_grad=True"], keys["inference_mode"] or []
    same = grad_changes_keys(result)
    if same.value == "no":
        text = claim(
            "A tensor that requires grad carries **the same dispatch keys** as a plain one here: "
            "`requires_grad` is pinned by its own field of the tensor check, not through the key set.",
            evidence=list(same.evidence),
        ).markdown()
    else:
        diff = sorted(set(plain) ^ set(grad))
        text = claim(
            "A tensor that requires grad carries **different dispatch keys** from a plain one here ({diff}).",
            evidence=list(same.evidence),
            diff=Derived(diff, ", ".join(code(k) for k in diff)),
        ).markdown()
    lost = [k for k in plain if k not in inference]
    if lost:
        text += (
            " "
            + claim(
                "The tensor made under `torch.inference_mode()` is the one that lacks keys: {lost}.",
                evidence=[line_of(result, "plain "), line_of(result, "inference_mode ")],
                lost=Derived(lost, ", ".join(code(k) for k in lost)),
            ).markdown()
        )
    return text


# -- 3. ambient state ----------------------------------------------------------------------------
AMBIENT = [
    (
        "GLOBAL_STATE",
        "global state: grad mode, autocast, deterministic algorithms, default dtype, thread count",
        "`torch.no_grad()`, `torch.autocast(...)`, `torch.use_deterministic_algorithms(True)`, `torch.set_num_threads(n)`",
    ),
    (
        "DEFAULT_DEVICE",
        "the default device set by `torch.set_default_device` or a device context manager",
        "`with torch.device('cuda'):`",
    ),
    ("TORCH_FUNCTION_MODE_STACK", "the stack of active `TorchFunctionMode`s", "entering a `TorchFunctionMode`"),
    ("SAVED_TENSORS_HOOKS", "active saved-tensor hooks", "`with torch.autograd.graph.saved_tensors_hooks(...)`"),
    (
        "BACKEND_MATCH",
        "the backend the entry was compiled for",
        "calling through a `torch.compile` wrapper with another backend",
    ),
    (
        "CONFIG_HASH_MATCH",
        "a hash of the dynamo config at compile time",
        "changing `torch._dynamo.config` and compiling again",
    ),
]


def ambient_guards(result: SnippetResult) -> dict[str, Guard]:
    """Family -> the printed guard, for the ambient checks of the first dump."""
    return {g.family: g for g in first_dump(result) if g.group == "ambient"}


@fact("guards: ambient guards present", ANATOMY, show=lambda v: ", ".join(v))
def ambient_families(result: SnippetResult) -> Measured:
    found = ambient_guards(result)
    return Measured(sorted(found), tuple(guard_ev(result, g) for g in found.values()))


def ambient_present(result: SnippetResult) -> set[str]:
    return set(ambient_families(result).value)


def ambient_table(result: SnippetResult) -> str:
    found = ambient_guards(result)
    rows = []
    for family, what, flips in AMBIENT:
        g = found.get(family)
        if g is None:
            printed = "not in this dump"
        else:
            label = f"{code(g.kind)}: " if not g.flat else ""
            printed = f"{label}{code(shorten(g.predicate, 70))}{markers_for([guard_ev(result, g)])}"
        rows.append([what, printed, flips])
    return table(["what it pins", "as printed in this build's dump", "what flips it"], rows)


@fact("guards: flipping a config flag", AMBIENT_RUN)
def config_flip(ambient_run: SnippetResult) -> Measured:
    measured = steps(ambient_run.stdout)
    if len(measured) != 3:
        raise ValueError(f"{ambient_run.path}: expected 3 measured steps, got {measured}")
    (_, base), (_, after_flag), _ = measured
    ev = (line_of(ambient_run, "compiled with backend='eager'"), line_of(ambient_run, "config flag flipped"))
    return Measured("recompiles" if after_flag > base else "reuses the entry", ev)


@fact("guards: another backend", AMBIENT_RUN)
def backend_switch(ambient_run: SnippetResult) -> Measured:
    (_, _), (_, after_flag), (_, after_backend) = steps(ambient_run.stdout)
    ev = (line_of(ambient_run, "config flag flipped"), line_of(ambient_run, "same function, backend='aot_eager'"))
    return Measured("recompiles" if after_backend > after_flag else "reuses the entry", ev)


def config_and_backend(ambient_run: SnippetResult, anatomy: SnippetResult) -> str:
    (_, base), (_, after_flag), (_, after_backend) = steps(ambient_run.stdout)
    found = ambient_guards(anatomy)
    out = []
    if "CONFIG_HASH_MATCH" in found:
        out.append(
            claim(
                "**Config hash: present.** This torch's dump has a {q_guard} check.",
                evidence=[guard_ev(anatomy, found["CONFIG_HASH_MATCH"])],
                q_guard=found["CONFIG_HASH_MATCH"].predicate,
            ).markdown()
        )
    else:
        out.append(claim("**Config hash: not in this torch's dump.**", evidence=[_header_ev(anatomy)]).markdown())
    flip = config_flip(ambient_run)
    if flip.value == "recompiles":
        out.append(
            claim(
                "Flipping `torch._dynamo.config.suppress_errors` and compiling the function again **compiled a new graph** "
                "(unique_graphs {base} → {after}): an entry made under one config is not reused under another.",
                evidence=list(flip.evidence),
                base=base,
                after=after_flag,
            ).markdown()
        )
    else:
        out.append(
            claim(
                "Flipping `torch._dynamo.config.suppress_errors` and compiling the function again **reused the existing entry** "
                "(unique_graphs stayed at {after}): this torch did not treat the changed config as a reason to recompile.",
                evidence=list(flip.evidence),
                after=after_flag,
            ).markdown()
        )
    switch = backend_switch(ambient_run)
    reasons = parse_recompiles(ambient_run.log("recompiles"))
    backend_reason = next((f.reason for r in reasons for f in r.failures if "backend" in f.reason.lower()), "")
    if switch.value == "recompiles":
        text = claim(
            "Compiling the same function with `backend='aot_eager'` **compiled again** (unique_graphs {before} → "
            "{after}): entries are not shared between backends.",
            evidence=list(switch.evidence),
            before=after_flag,
            after=after_backend,
        ).markdown()
        if backend_reason:
            text += (
                " "
                + claim(
                    "The recompile log gave the reason: {q_reason}.",
                    evidence=[line_of(ambient_run, backend_reason[:60])],
                    q_reason=Derived(backend_reason, shorten(backend_reason, 160)),
                ).markdown()
            )
        out.append(text)
    else:
        out.append(
            claim(
                "Compiling the same function with `backend='aot_eager'` **reused the entry** compiled for `eager` "
                "(unique_graphs stayed at {after}).",
                evidence=list(switch.evidence),
                after=after_backend,
            ).markdown()
        )
    if "BACKEND_MATCH" not in found and switch.value == "recompiles":
        out.append(
            claim(
                "No line of this torch's dump checks the backend, yet the backend switch recompiled: the backend "
                "check runs without being printed.",
                evidence=[_header_ev(anatomy), *switch.evidence],
            ).markdown()
        )
    return "\n\n".join(out)


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


@fact("guards: explain() objects", EXPLAIN)
def explain_count(result: SnippetResult) -> Measured:
    m = re.search(r"^(\d+) guard objects$", result.stdout, re.M)
    n = int(m.group(1)) if m else len(explain_objects(result))
    return Measured(n, (line_of(result, "guard objects"),))


@fact("guards: builders that printed nothing", EXPLAIN, ANATOMY, show=lambda v: ", ".join(v) or "none")
def silent_builders(result: SnippetResult, anatomy: SnippetResult) -> Measured:
    matched, _ = match_objects(result, anatomy)
    silent = sorted({b for b, _, mine in matched if not mine} - {b for b, _, mine in matched if mine})
    return Measured(silent, tuple(line_of(result, b + " ") for b in silent))


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


def explain_summary(result: SnippetResult, anatomy: SnippetResult) -> str:
    count = explain_count(result)
    matched, left = match_objects(result, anatomy)
    guards = first_dump(anatomy)
    text = [
        claim(
            "On this torch `explain()` returned **{n} guard objects**, while the dump of the same function printed "
            "**{printed} checks**.",
            n=count,
            printed=Derived(len(guards)),
            evidence=[_header_ev(anatomy)],
        ).markdown()
    ]
    silent = silent_builders(result, anatomy)
    if silent.value:
        text.append(
            claim(
                "Builders that printed nothing of their own: {names}.",
                names=Derived(silent.value, ", ".join(code(s) for s in silent.value)),
                evidence=list(silent.evidence),
            ).markdown()
        )
        state = next((g for g in guards if g.family == "GLOBAL_STATE" and not g.flat), None)
        held = [(b, GLOBAL_STATE_KEYS[b]) for b in silent.value if b in GLOBAL_STATE_KEYS]
        if state is not None and held:
            held = [(b, k) for b, k in held if f'"{k}"' in state.predicate]
            if held:
                text.append(
                    claim(
                        "What {builders} would check is not unguarded: the printed `GLOBAL_STATE` line holds it ({keys}).",
                        builders=Derived([b for b, _ in held], ", ".join(code(b) for b, _ in held)),
                        keys=Derived([k for _, k in held], ", ".join(code(f'"{k}"') for _, k in held)),
                        evidence=[guard_ev(anatomy, state)],
                    ).markdown()
                )
    many = [(b, mine) for b, _, mine in matched if len(mine) > 1]
    for builder, mine in many[:1]:
        text.append(
            claim(
                "In the other direction, one {q_builder} object printed **{n} lines**.",
                q_builder=builder,
                n=Derived(len(mine)),
                evidence=[line_of(result, builder + " ")] + [guard_ev(anatomy, g) for g in mine],
            ).markdown()
        )
    if left:
        kinds = list(dict.fromkeys(g.kind for g in left))
        text.append(
            claim(
                "Printed lines no object here accounts for: {kinds}.",
                kinds=Derived(kinds, ", ".join(code(k) for k in kinds)),
                evidence=[guard_ev(anatomy, g) for g in left],
            ).markdown()
        )
    return " ".join(text)


# -- 5. five calls, one shape --------------------------------------------------------------------
def five_calls(result: SnippetResult) -> list[dict]:
    return attribute_to_steps(result.output, STEP_RE)


def _failure_ev(result: SnippetResult, reason: str):
    return line_of(result, reason)


def five_calls_table(result: SnippetResult) -> str:
    rows = []
    for step in five_calls(result):
        failures = [f for r in step["recompiles"] for f in r.failures]
        cell = (
            "<br>".join((f"{code(f.entry)}: " if f.entry else "") + code(shorten(f.reason, 100)) for f in failures)
            or "— (first compile)"
        )
        rows.append([step["label"], str(step["graphs"]) + markers_for([line_of(result, step["label"] + " ")]), cell])
    return table(["call", "unique_graphs after", "guard failures reported, one per existing entry"], rows, "-r-")


@fact("guards: graphs for five calls of one shape", FIVE)
def five_calls_graphs(result: SnippetResult) -> Measured:
    last = five_calls(result)[-1]
    return Measured(last["graphs"], (line_of(result, last["label"] + " "),))


def five_calls_summary(result: SnippetResult) -> str:
    calls = five_calls(result)
    total = five_calls_graphs(result)
    counts = [sum(len(r.failures) for r in s["recompiles"]) for s in calls[1:]]
    grows = all(c == i + 1 for i, c in enumerate(counts))
    text = claim("Five calls with one shape and one dtype compiled **{n} graphs** on this torch.", n=total).markdown()
    if grows:
        text += (
            " "
            + claim(
                "Each recompile reported one failure line per entry already in the cache ({counts}): dynamo tried "
                "every entry before compiling.",
                counts=Derived(counts, ", ".join(map(str, counts))),
                evidence=[
                    line_of(result, s["recompiles"][0].failures[-1].reason) for s in calls[1:] if s["recompiles"]
                ],
            ).markdown()
        )
    else:
        text += f" Failure lines per recompile: {', '.join(str(c) for c in counts)}."
    return text


@fact("guards: no_grad recompile reason", FIVE)
def no_grad_failure(result: SnippetResult) -> Measured:
    step = next(s for s in five_calls(result) if s["label"] == "no_grad")
    failures = [f for r in step["recompiles"] for f in r.failures]
    if not failures:
        raise ValueError("the no_grad call reported no guard failure")
    reason = failures[0].reason.strip()
    return Measured(reason, (line_of(result, reason),))


def no_grad_reason(result: SnippetResult) -> str:
    reason = no_grad_failure(result)
    if re.fullmatch(r"___check_global_state\(\)", str(reason)):
        return claim(
            "For the `no_grad` call this torch reports only {q_reason}: the whole global state is one check, so "
            "the log cannot say which part changed.",
            q_reason=reason,
        ).markdown()
    return claim(
        "For the `no_grad` call this torch names the field that changed: {q_reason}.", q_reason=reason
    ).markdown()


# -- 6. modules: identity or type? ---------------------------------------------------------------
def self_guards(result: SnippetResult) -> list[list[Guard]]:
    """Per compiled entry, the guards on `self` itself and on its plain attributes."""
    out = []
    for dump in parse_guards_log(result.log("guards")):
        out.append([g for g in dump if g.source == "L['self']" or re.fullmatch(r"L\['self'\]\.\w+", g.source)])
    return out


@fact("modules: guarded by", MODULE_GUARDS, show=lambda v: {"identity": "identity", "type": "type and attributes"}[v])
def module_regime_fact(result: SnippetResult) -> Measured:
    on_self = [g for g in self_guards(result)[0] if g.source == "L['self']"]
    for g in on_self:
        if g.kind == "ID_MATCH":
            return Measured("identity", (guard_ev(result, g),))
    for g in on_self:
        if g.kind == "TYPE_MATCH":
            return Measured("type", (guard_ev(result, g),))
    raise ValueError(f"no guard on L['self'] found in {result.path}: {[g.kind for g in on_self]}")


def module_regime(result: SnippetResult) -> str:
    """'identity' when self is guarded by object id, 'type' when by type plus attributes."""
    return module_regime_fact(result).value


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


def module_counts_table(result: SnippetResult) -> str:
    return table(
        ["pattern", "graphs compiled"],
        [[k, str(v) + markers_for([line_of(result, k)])] for k, v in module_counts(result).items()],
        "-r",
    )


def _count(result: SnippetResult, label: str) -> Measured:
    return Measured(module_counts(result)[label], (line_of(result, label),))


ENSEMBLE_16 = "ensemble of 16 identical members"
ENSEMBLE_K = "ensemble of 4, each with its own k"
LOOP = "model rebuilt in a 5-step eval loop"


@fact("modules: graphs for an ensemble of 16", MODULE_COUNTS)
def ensemble_graphs(result: SnippetResult) -> Measured:
    return _count(result, ENSEMBLE_16)


@fact("modules: graphs for 4 members with different k", MODULE_COUNTS)
def ensemble_k_graphs(result: SnippetResult) -> Measured:
    return _count(result, ENSEMBLE_K)


@fact("modules: second entry guards k by value", MODULE_GUARDS)
def second_entry_pins_k(result: SnippetResult) -> Measured:
    dumps = self_guards(result)
    if len(dumps) < 2:
        return Measured("no second entry", (_header_ev(result),))

    def pins(i):
        return [g for g in dumps[i] if g.source == "L['self'].k" and re.search(r"==\s*[\d.]+$", g.predicate)]

    if pins(1):
        return Measured("yes", (guard_ev(result, pins(1)[0], 1),))
    if not pins(0):
        return Measured("neither entry does", (_header_ev(result), _header_ev(result, 1)))
    return Measured(
        "no, only the first",
        tuple(guard_ev(result, g, 1) for g in dumps[1] if g.source == "L['self'].k") or (_header_ev(result, 1),),
    )


def module_verdict(guards_run: SnippetResult, counts_run: SnippetResult) -> str:
    regime = module_regime_fact(guards_run)
    ensemble, varied, loop = ensemble_graphs(counts_run), ensemble_k_graphs(counts_run), _count(counts_run, LOOP)
    reasons = [f.reason for r in parse_recompiles(guards_run.log("recompiles")) for f in r.failures]
    out = []
    if regime.value == "identity":
        out.append(
            claim(
                "**This build guards modules by identity.** `self` is checked with {q_fn}, the address of the "
                "object: the 16-member ensemble compiled {ensemble} graphs and the rebuilt model compiled {loop}.",
                evidence=list(regime.evidence),
                q_fn="___check_obj_id",
                ensemble=ensemble,
                loop=loop,
            ).markdown()
        )
    else:
        out.append(
            claim(
                "**This build guards modules by type and attributes.** `self` gets {q_guard}, and the code's reads of "
                "`self` become guards of their own.",
                evidence=list(regime.evidence),
                q_guard=next(
                    g.predicate
                    for g in self_guards(guards_run)[0]
                    if g.source == "L['self']" and g.kind == "TYPE_MATCH"
                ),
            ).markdown()
        )
        share = (
            "Identical instances share a graph"
            if ensemble.value == 1 and loop.value == 1
            else "Identical instances do not all share a graph"
        )
        out.append(
            claim(
                share
                + ": the 16-member ensemble compiled {ensemble} {g1} and the model rebuilt in a loop compiled {loop} {g2}.",
                evidence=list(ensemble.evidence) + list(loop.evidence),
                ensemble=ensemble.value,
                loop=loop.value,
                g1=Derived("graph" if ensemble.value == 1 else "graphs"),
                g2=Derived("graph" if loop.value == 1 else "graphs"),
            ).markdown()
        )
    if reasons:
        out.append(
            claim(
                "The second instance recompiled because {q_reason} failed.",
                q_reason=Derived(reasons[0], shorten(reasons[0], 120)),
                evidence=[line_of(guards_run, reasons[0][:60])],
            ).markdown()
        )
    pinned = second_entry_pins_k(guards_run)
    if varied.value >= 4:
        out.append(
            claim(
                "Members that differ in the float attribute compiled one graph each: {n} graphs for 4 values of `k`.",
                n=varied,
            ).markdown()
        )
    else:
        text = claim(
            "Members that differ in the float attribute did **not** compile one graph each: {n} {g} for 4 values of `k`.",
            n=varied,
            g=Derived("graph" if varied.value == 1 else "graphs"),
        ).markdown()
        if pinned.value == "no, only the first":
            text += (
                " "
                + claim(
                    "The second entry's guards, in the table above, explain it: they no longer compare `k` with a value, "
                    "only check what kind of number it is, so after the first miss the float became a symbol that every "
                    "later value reuses.",
                    evidence=list(pinned.evidence),
                ).markdown()
            )
        out.append(text)
    return " ".join(out)


# -- 7. what guards do not cover -----------------------------------------------------------------
def helper_results(result: SnippetResult) -> dict[str, str]:
    out = {}
    for line in result.stdout.splitlines():
        label, sep, value = line.partition(":")
        if sep:
            out[label.strip()] = value.strip()
    return out


@fact(
    "inlined helper rebound",
    HELPER,
    show=lambda v: {True: "compiled code keeps the old body", False: "recompiles at once"}[v],
)
def helper_stale(result: SnippetResult) -> Measured:
    r = helper_results(result)
    return Measured(
        r["compiled, same shape"] != r["eager, after rebind"],
        (line_of(result, "eager, after rebind"), line_of(result, "compiled, same shape")),
    )


def helper_is_stale(result: SnippetResult) -> bool:
    return helper_stale(result).value


def helper_guard(guards_run: SnippetResult) -> Guard | None:
    for dump in parse_guards_log(guards_run.log("guards")):
        for g in dump:
            if "G['helper']" in g.predicate:
                return g
    return None


def _recompiled_before(result: SnippetResult, label: str) -> bool:
    """Whether a recompile message came between the previous printed line and the one starting with `label`."""
    lines = result.output.splitlines()
    idx = next(i for i, ln in enumerate(lines) if ln.startswith(label))
    prev = max((i for i, ln in enumerate(lines[:idx]) if ln.startswith(("compiled,", "eager,"))), default=0)
    return any(ln.startswith("Recompiling function") for ln in lines[prev:idx])


def helper_verdict(result: SnippetResult) -> str:
    r = helper_results(result)
    guard = helper_guard(result)
    ev = lambda label: line_of(result, label)  # noqa: E731
    out = [
        claim(
            "The first call compiled and returned {first}.",
            first=r["compiled, first call"],
            evidence=[ev("compiled, first call")],
        ).markdown(),
        claim(
            "After the rebind, eager Python returns {eager}: the new body.",
            eager=r["eager, after rebind"],
            evidence=[ev("eager, after rebind")],
        ).markdown(),
    ]
    if helper_is_stale(result):
        out.append(
            claim(
                "**On this torch the compiled function kept running the old body**: the same shape returned {same}.",
                same=r["compiled, same shape"],
                evidence=[ev("compiled, same shape")],
            ).markdown()
        )
        if guard is None:
            out.append(
                claim(
                    "None of the printed guards mentions the helper, so nothing invalidated the entry.",
                    evidence=[_header_ev(result)],
                ).markdown()
            )
        else:
            out.append(
                claim(
                    "The closest guard is {q_guard}.", q_guard=guard.predicate, evidence=[guard_ev(result, guard)]
                ).markdown()
            )
    else:
        out.append(
            claim(
                "**On this torch the rebind recompiled at once**: the same shape returned {same}, like eager Python.",
                same=r["compiled, same shape"],
                evidence=[ev("compiled, same shape")],
            ).markdown()
        )
        if guard is not None:
            out.append(
                claim(
                    "The first compile had installed {q_guard}: a guard on the helper's code object, which the "
                    "new function does not share.",
                    q_guard=guard.predicate,
                    evidence=[guard_ev(result, guard)],
                ).markdown()
            )
    new_recompiled = _recompiled_before(result, "compiled, new shape")
    out.append(
        claim(
            "The call with a new shape "
            + ("missed every entry and compiled again" if new_recompiled else "reused an entry")
            + ", returning {new}.",
            new=r["compiled, new shape"],
            evidence=[ev("compiled, new shape")],
        ).markdown()
    )
    back = r.get("compiled, back to 3")
    if back is not None:
        body = (
            "the new body"
            if back == r["eager, after rebind"]
            else ("the old body" if back == r["compiled, first call"] else "neither body")
        )
        how = (
            "had to compile again"
            if _recompiled_before(result, "compiled, back to 3")
            else "found an entry without compiling"
        )
        out.append(
            claim(
                "Back at the first shape, the call " + how + " and returned {back}: " + body + ".",
                back=back,
                evidence=[ev("compiled, back to 3")],
            ).markdown()
        )
    return " ".join(out)


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


def unguarded_verdict(result: SnippetResult) -> str:
    r = unguarded_results(result)
    ev = lambda label: line_of(result, label)  # noqa: E731
    out = []
    if "filtered, first call" in r:
        stale = r["filtered, after rebind"] != r["eager, after rebind"]
        out.append(
            claim(
                "**With the guards on globals filtered out**, the helper probe above goes stale: after the rebind eager "
                "Python returns {eager}, the filtered compile still {same}."
                if stale
                else "**With the guards on globals filtered out**, the rebind was still seen: the filtered compile returned {same}, like eager ({eager}).",
                eager=r["eager, after rebind"],
                same=Derived(r["filtered, after rebind"], ("returns " if stale else "") + r["filtered, after rebind"]),
                evidence=[ev("eager, after rebind"), ev("filtered, after rebind")],
            ).markdown()
        )
        if stale:
            out.append(
                "`guard_filter_fn` chooses which guards dynamo installs; every guard you drop is a change the "
                "entry will no longer notice, which is why these filters carry `_unsafe` in their names."
            )
    else:
        label = next((k for k in r if k in ("skip_guard_on_globals_unsafe", "guard_filter_fn")), None)
        if label:
            printed = ev(label)
            out.append(
                claim(
                    "This torch cannot drop its guards on globals that way; the snippet printed {q_line}.",
                    q_line=printed.line,
                    evidence=[printed],
                ).markdown()
            )
    if "constant, first call" in r:
        stale = r["constant, after the change"] != r["eager, after the change"]
        if stale:
            out.append(
                claim(
                    "**A value dynamo was told is constant** is read once, while tracing: after the setting changed, "
                    "eager code computes {eager} and the compiled function still returns {compiled}, with no recompile.",
                    eager=r["eager, after the change"],
                    compiled=r["constant, after the change"],
                    evidence=[ev("eager, after the change"), ev("constant, after the change")],
                ).markdown()
            )
        else:
            out.append(
                claim(
                    "The value read through `assume_constant_result` followed the change here: the compiled function "
                    "returned {compiled}, like eager ({eager}).",
                    eager=r["eager, after the change"],
                    compiled=r["constant, after the change"],
                    evidence=[ev("eager, after the change"), ev("constant, after the change")],
                ).markdown()
            )
    elif "assume_constant_result" in r:
        out.append(
            claim(
                "This torch has no `assume_constant_result`: the snippet printed {q_line}.",
                q_line="assume_constant_result",
                evidence=[ev("assume_constant_result")],
            ).markdown()
        )
    return " ".join(out)


def split_dump_count(result: SnippetResult) -> int:
    return len(split_dumps(result.log("guards")))
