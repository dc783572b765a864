"""Render code for the chapter "What a guard checks" (docs/guards.md).

Every function takes recorded results and returns markdown; the chapter's tests feed them
results recorded on other torch releases and check that the words and numbers follow.
"""

from __future__ import annotations

import re
from collections import Counter

from ..parse.guard_dump import TENSOR_FIELDS, Guard, parse_check_tensor, parse_guards_log, tensor_check
from ..parse.recompiles import attribute_to_steps, parse_recompiles
from ..record import SnippetResult
from .common import STEP_RE, code, plural, shorten, steps, table

GROUP_TITLES = {
    "argument": "about your arguments",
    "ambient": "ambient state nobody wrote down",
    "global": "globals the function touched",
}


def first_dump(result: SnippetResult) -> list[Guard]:
    dumps = parse_guards_log(result.log("guards"))
    if not dumps:
        raise ValueError(f"{result.path} printed no guard dump (was it run with logs=\"guards\"?)")
    return dumps[0]


def is_tree(result: SnippetResult) -> bool:
    return not first_dump(result)[0].flat


# -- 1. reading a guard dump -------------------------------------------------------------------
def guard_table(result: SnippetResult) -> str:
    rows = []
    for i, g in enumerate(first_dump(result), 1):
        rows.append([str(i), code(g.kind), code(g.source) if g.source else "—", GROUP_TITLES[g.group], code(shorten(g.predicate, 90))])
    return table(["#", "kind", "source", "group", "predicate"], rows, "r----")


def group_counts(result: SnippetResult) -> Counter:
    return Counter(g.group for g in first_dump(result))


def dump_summary(result: SnippetResult) -> str:
    guards = first_dump(result)
    counts = group_counts(result)
    fmt = "a tree of guard managers with the checks as leaves" if not guards[0].flat else "a flat list of Python predicates, one per line"
    parts = [f"{counts[g]} {GROUP_TITLES[g]}" for g in ("argument", "ambient", "global") if counts[g]]
    return (
        f"This torch printed the guards as {fmt}: **{plural(len(guards), 'check')}** for a function of one "
        f"tensor and one float. By where they come from: {', '.join(parts)}."
    )


def reading_notes(result: SnippetResult) -> str:
    """How to read this torch's dump format, and where its global checks came from."""
    guards = first_dump(result)
    if guards[0].flat:
        text = (
            "This torch prints a flat list: each line is one Python predicate, evaluated in order, and the "
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
    globals_ = [g.source for g in guards if g.group == "global"]
    if globals_:
        text += (
            f"The global checks ({', '.join(code(s) for s in dict.fromkeys(globals_))}) appear because the function "
            "body looked those names up in module globals: rebinding any of them would invalidate the entry."
        )
    else:
        text += (
            "This dump has no check on the globals the body read (`torch`, `torch.sin`): on this torch, rebinding "
            "them is not something the entry watches."
        )
    return text


# -- 2. what check_tensor compares ---------------------------------------------------------------
FIELD_MEANING = {
    "type": "the Python class: a Tensor subclass would not match",
    "dispatch key set": "backend and autograd keys: a CUDA tensor, or one that needs autograd, carries different keys",
    "dtype": "element type",
    "device": "device index, when it matters",
    "requires_grad": "whether autograd will track it",
    "size": "every dimension (static here: an exact match)",
    "stride": "memory layout: a transposed view has the same size and different strides",
}


def tensor_fields(result: SnippetResult) -> dict[str, str]:
    check = tensor_check(first_dump(result))
    if check is None:
        raise ValueError(f"{result.path}: no check_tensor guard in the dump")
    return parse_check_tensor(check.predicate)


def tensor_fields_table(result: SnippetResult) -> str:
    fields = tensor_fields(result)
    rows = [[name, code(fields[name]) if name in fields else "(not printed)", FIELD_MEANING[name]] for name in TENSOR_FIELDS]
    return table(["field", "value in this build's guard", "what it pins"], rows)


def tensor_fields_summary(result: SnippetResult) -> str:
    fields = tensor_fields(result)
    present = [f for f in TENSOR_FIELDS if f in fields]
    return f"The tensor check of this build compares **{plural(len(present), 'field')}** for the one tensor argument: {', '.join(present)}."


# -- 3. ambient state ----------------------------------------------------------------------------
AMBIENT = [
    ("GLOBAL_STATE", "global state: grad mode, autocast, deterministic algorithms, torch-function state, default dtype, thread count", "`torch.no_grad()`, `torch.autocast(...)`, `torch.use_deterministic_algorithms(True)`, `torch.set_num_threads(n)`"),
    ("DEFAULT_DEVICE", "the default device set by `torch.set_default_device` or a device context manager", "`with torch.device('cuda'):`"),
    ("TORCH_FUNCTION_MODE_STACK", "the stack of active `TorchFunctionMode`s", "entering a `TorchFunctionMode`"),
    ("SAVED_TENSORS_HOOKS", "active saved-tensor hooks", "`with torch.autograd.graph.saved_tensors_hooks(...)`"),
    ("BACKEND_MATCH", "the backend the entry was compiled for", "calling through a `torch.compile` wrapper with another backend"),
    ("CONFIG_HASH_MATCH", "a hash of the dynamo config at compile time", "changing `torch._dynamo.config` and compiling again"),
]


def ambient_present(result: SnippetResult) -> set[str]:
    return {g.family for g in first_dump(result) if g.group == "ambient"}


def ambient_table(result: SnippetResult) -> str:
    present = ambient_present(result)
    rows = [
        [code(family), "**yes**" if family in present else "no", what, flips]
        for family, what, flips in AMBIENT
    ]
    return table(["ambient guard", "in this build's dump", "what it pins", "what flips it"], rows, "-c--")


def config_and_backend(ambient_run: SnippetResult, anatomy: SnippetResult) -> str:
    measured = steps(ambient_run.stdout)
    if len(measured) != 3:
        raise ValueError(f"{ambient_run.path}: expected 3 measured steps, got {measured}")
    (_, base), (_, after_flag), (_, after_backend) = measured
    present = ambient_present(anatomy)
    reasons = parse_recompiles(ambient_run.log("recompiles"))
    backend_reason = next((f.reason for r in reasons for f in r.failures if "backend" in f.reason.lower()), "")
    out = []
    if "CONFIG_HASH_MATCH" in present:
        out.append("**Config hash: present.** This torch prints a `___compile_config_hash()` guard.")
    else:
        out.append("**Config hash: not in this torch's dump.**")
    if after_flag > base:
        out.append(
            f"Flipping `torch._dynamo.config.suppress_errors` and compiling the function again **compiled a new graph** "
            f"(unique_graphs {base} → {after_flag}): an entry made under one config is not reused under another."
        )
    else:
        out.append(
            f"Flipping `torch._dynamo.config.suppress_errors` and compiling the function again **reused the existing entry** "
            f"(unique_graphs stayed at {after_flag}): this torch did not treat the changed config as a reason to recompile. "
            "On torch 2.2 a `___compile_config_hash()` guard pinned the config saved when a function was compiled, "
            "so the same sequence compiled twice; it is gone from 2.3 on."
        )
    if after_backend > after_flag:
        tail = f" The recompile log gave the reason: {code(shorten(backend_reason, 160))}." if backend_reason else ""
        out.append(
            f"Compiling the same function with `backend='aot_eager'` **compiled again** (unique_graphs {after_flag} → "
            f"{after_backend}): entries are not shared between backends.{tail}"
        )
    else:
        out.append(
            f"Compiling the same function with `backend='aot_eager'` **reused the entry** compiled for `eager` "
            f"(unique_graphs stayed at {after_backend})."
        )
    if "BACKEND_MATCH" not in present and after_backend > after_flag:
        out.append(
            "The backend check is not among the printed guards on this torch: it runs inside the cache lookup. "
            "Torch 2.2 printed it as `(___skip_backend_check() or ___current_backend() == ...)`, and 2.3 as "
            "`___check_current_backend(...)`."
        )
    return "\n\n".join(out)


# -- 4. guards as objects ------------------------------------------------------------------------
# builder name -> the printed kinds it produces (explain() objects vs printed predicates)
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
ALWAYS_SILENT = {
    "GRAD_MODE": "covered by the global-state check",
    "DETERMINISTIC_ALGORITHMS": "covered by the global-state check",
    "TORCH_FUNCTION_STATE": "covered by the global-state check",
    "SHAPE_ENV": "emits code only when a dimension is symbolic (lesson four)",
}


def explain_objects(result: SnippetResult) -> list[tuple[str, str]]:
    rows = []
    for line in result.stdout.splitlines():
        m = re.match(r"^([A-Z][A-Z0-9_]+)\s+(\S.*)$", line)
        if m:
            rows.append((m.group(1), "" if m.group(2).strip() == "-" else m.group(2).strip()))
    return rows


def explain_table(result: SnippetResult, anatomy: SnippetResult) -> str:
    objects = Counter(b for b, _ in explain_objects(result))
    printed = Counter(g.family for g in first_dump(anatomy))
    rows = []
    for builder in sorted(objects):
        kinds = BUILDER_PRINTS.get(builder, set())
        shown = sum(printed[k] for k in kinds)
        if shown:
            note = ", ".join(f"{printed[k]}× {code(k)}" for k in sorted(kinds) if printed[k])
        else:
            note = "nothing printed" + (f": {ALWAYS_SILENT[builder]}" if builder in ALWAYS_SILENT else "")
        rows.append([code(builder), str(objects[builder]), note])
    return table(["builder (create_fn)", "objects", "printed for it in anatomy.py's dump"], rows, "-r-")


def explain_summary(result: SnippetResult, anatomy: SnippetResult) -> str:
    objects = explain_objects(result)
    guards = first_dump(anatomy)
    builders = Counter(b for b, _ in objects)
    printed = Counter(g.family for g in guards)
    silent = sorted(b for b in builders if not any(printed[k] for k in BUILDER_PRINTS.get(b, set())))
    extra = sorted(k for k in printed if not any(k in BUILDER_PRINTS.get(b, set()) for b in builders))
    text = [
        f"On this torch `explain()` returned **{plural(len(objects), 'guard object')}** "
        f"from {plural(len(builders), 'builder')}, while the dump of the same function printed **{plural(len(guards), 'check')}**."
    ]
    if silent:
        text.append(f"Builders that printed nothing: {', '.join(code(s) for s in silent)}.")
    if printed.get("DIMENSION_DYNAMIC_MARKING_GUARD", 0) > 1:
        text.append(
            f"In the other direction, one `TENSOR_MATCH` object printed {printed['DIMENSION_DYNAMIC_MARKING_GUARD']} "
            "dynamic-marking checks beside the tensor check."
        )
    if extra:
        text.append(f"Printed kinds no builder here accounts for: {', '.join(code(e) for e in extra)}.")
    if "GLOBAL_STATE" in printed:
        text.append(
            "This torch prints the global-state check as its own `GLOBAL_STATE` line, with the state it expects. "
            "On torch 2.2 and 2.3 `___check_global_state()` ran first in every check function and was never printed."
        )
    else:
        text.append(
            "The global-state check, `___check_global_state()`, is not in the dump: on this torch it runs first "
            "in every check function and is never printed (later releases print it as a `GLOBAL_STATE` line)."
        )
    return " ".join(text)


# -- 5. five calls, one shape --------------------------------------------------------------------
def five_calls(result: SnippetResult) -> list[dict]:
    return attribute_to_steps(result.output, STEP_RE)


def five_calls_table(result: SnippetResult) -> str:
    rows = []
    for step in five_calls(result):
        failures = [f for r in step["recompiles"] for f in r.failures]
        cell = "<br>".join(
            (f"{code(f.entry)}: " if f.entry else "") + code(shorten(f.reason, 100)) for f in failures
        ) or "— (first compile)"
        rows.append([step["label"], str(step["graphs"]), cell])
    return table(["call", "unique_graphs after", "guard failures reported, one per existing entry"], rows, "-r-")


def five_calls_summary(result: SnippetResult) -> str:
    calls = five_calls(result)
    total = calls[-1]["graphs"]
    counts = [sum(len(r.failures) for r in s["recompiles"]) for s in calls[1:]]
    grows = all(c == i + 1 for i, c in enumerate(counts))
    text = f"Five calls with one shape and one dtype compiled **{plural(total, 'graph')}** on this torch."
    if grows:
        text += (
            " Each recompile reported one failure line per entry already in the cache "
            f"({', '.join(str(c) for c in counts)}): dynamo tried every entry, newest first, before compiling."
        )
    else:
        text += f" Failure lines per recompile: {', '.join(str(c) for c in counts)}."
    return text


def no_grad_reason(result: SnippetResult) -> str:
    step = next(s for s in five_calls(result) if s["label"] == "no_grad")
    failures = [f for r in step["recompiles"] for f in r.failures]
    if not failures:
        raise ValueError("the no_grad call reported no guard failure")
    reason = failures[0].reason
    if re.fullmatch(r"___check_global_state\(\)", reason.strip()):
        return (
            f"For the `no_grad` call this torch reports only {code(reason)}: the whole global state is one check, "
            "so the log cannot say which part changed. Newer releases (2.4 on) name the field, as in "
            "`GLOBAL_STATE changed: grad_mode`."
        )
    return (
        f"For the `no_grad` call this torch names the field that changed: {code(reason.strip())}. "
        "Before 2.4 the same failure read only `___check_global_state()`, with nothing more specific to report."
    )


# -- 6. modules: identity or type? ---------------------------------------------------------------
def self_guards(result: SnippetResult) -> list[list[Guard]]:
    """Per compiled entry, the guards on `self` itself and on its plain attributes."""
    out = []
    for dump in parse_guards_log(result.log("guards")):
        out.append([g for g in dump if g.source == "L['self']" or re.fullmatch(r"L\['self'\]\.\w+", g.source)])
    return out


def module_regime(result: SnippetResult) -> str:
    """'identity' when self is guarded by object id, 'type' when by type plus attributes."""
    on_self = [g for g in self_guards(result)[0] if g.source == "L['self']"]
    kinds = {g.kind for g in on_self}
    if "ID_MATCH" in kinds:
        return "identity"
    if "TYPE_MATCH" in kinds:
        return "type"
    raise ValueError(f"no guard on L['self'] found in {result.path}: {kinds}")


def module_guard_lines(result: SnippetResult) -> str:
    lines = []
    for i, dump in enumerate(self_guards(result)):
        for g in dump:
            lines.append(f"[entry {i}] {g.kind}: {g.predicate}" if not g.flat else f"[entry {i}] {g.predicate}")
    return "```text\n" + "\n".join(lines) + "\n```\n"


def module_counts(result: SnippetResult) -> dict[str, int]:
    return dict(steps(result.stdout))


def module_counts_table(result: SnippetResult) -> str:
    return table(["pattern", "graphs compiled"], [[k, str(v)] for k, v in module_counts(result).items()], "-r")


def module_verdict(guards_run: SnippetResult, counts_run: SnippetResult) -> str:
    regime = module_regime(guards_run)
    counts = module_counts(counts_run)
    ensemble = counts.get("ensemble of 16 identical members")
    loop = counts.get("model rebuilt in a 5-step eval loop")
    reasons = [f.reason for r in parse_recompiles(guards_run.log("recompiles")) for f in r.failures]
    why = f" The second instance recompiled because {code(shorten(reasons[0], 120))} failed." if reasons else ""
    if regime == "identity":
        return (
            "**This build guards modules by identity.** `self` is checked with `___check_obj_id`, the address of the "
            f"object, so every instance gets its own graph: the 16-member ensemble compiled {ensemble} graphs and the "
            f"rebuilt model compiled {loop}, one per rebuild.{why} From torch 2.5 on, with `inline_inbuilt_nn_modules`, "
            "`self` is guarded by type, plus the attributes and parameters the code read, and identical instances "
            "share one graph."
        )
    return (
        "**This build guards modules by type and attributes.** `self` gets a `TYPE_MATCH`, and the code's reads of "
        f"`self` become guards of their own (such as `L['self'].k == 2.0`). Identical instances share a graph: the "
        f"16-member ensemble compiled {plural(ensemble, 'graph')} and the model rebuilt in a loop compiled "
        f"{plural(loop, 'graph')}; instances that differ in an attribute the code read still compile separately.{why} "
        "Up to torch 2.4, `self` was guarded by identity (`___check_obj_id(L['self'], ...)`): every instance, even an "
        "identical one, compiled its own graph, which is why dynamo carries a second, accumulated cache limit "
        "(see lesson four)."
    )


# -- 7. what guards do not cover -----------------------------------------------------------------
def helper_results(result: SnippetResult) -> dict[str, str]:
    out = {}
    for line in result.stdout.splitlines():
        label, sep, value = line.partition(":")
        if sep:
            out[label.strip()] = value.strip()
    return out


def helper_is_stale(result: SnippetResult) -> bool:
    r = helper_results(result)
    return r["compiled, same shape"] != r["eager, after rebind"]


def helper_guard(guards_run: SnippetResult) -> Guard | None:
    for dump in parse_guards_log(guards_run.log("guards")):
        for g in dump:
            if "G['helper']" in g.predicate:
                return g
    return None


def helper_verdict(result: SnippetResult) -> str:
    r = helper_results(result)
    guard = helper_guard(result)
    if helper_is_stale(result):
        return (
            f"**On this torch the compiled function kept running the old body.** After the rebind, eager Python "
            f"returned `{r['eager, after rebind']}` while the compiled function still returned "
            f"`{r['compiled, same shape']}`. No guard watches the helper"
            + (f" (the closest is {code(guard.predicate)})" if guard else " (none of the printed guards mentions it)")
            + ", so the stale window stayed open until the call with a new shape missed the tensor guard; that "
            f"recompile picked up the new body (`{r['compiled, new shape']}`). From torch 2.4 on, dynamo guards the "
            "helper's code object and the rebind recompiles at once."
        )
    return (
        f"**On this torch the rebind recompiled at once.** Right after it, the compiled function returned "
        f"`{r['compiled, same shape']}`, the same as eager Python"
        + (f", because the first compile installed {code(shorten(guard.predicate, 100))}: a guard on the helper's "
           "code object, which the new function does not share." if guard else ".")
        + " Up to torch 2.3 no guard watched an inlined helper: the compiled function kept running the old body "
        "until some other guard missed."
    )
