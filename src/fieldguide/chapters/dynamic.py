"""Render code for lesson four, "Dynamic shapes and the cache limits" (docs/dynamic.md)."""

from __future__ import annotations

import re

from ..parse.guard_dump import Guard, parse_check_tensor, parse_guards_log, tensor_check
from ..parse.recompiles import attribute_to_steps
from ..record import SnippetResult
from .common import STEP_RE, code, plural, shorten, steps, table

_SHAPE = re.compile(r"\.size\(\)\[\d+\]|\.stride\(\)\[\d+\]")


def shape_guards(dump: list[Guard]) -> list[Guard]:
    """Guards on symbolic sizes (SHAPE_ENV's output), e.g. `2 <= L['x'].size()[0]`."""
    return [g for g in dump if _SHAPE.search(g.predicate) and not g.predicate.startswith("check_tensor(")]


# -- 1. from static to dynamic -----------------------------------------------------------------
def size_steps(result: SnippetResult) -> list[dict]:
    return attribute_to_steps(result.output, STEP_RE)


def static_to_dynamic(result: SnippetResult) -> str:
    calls = size_steps(result)
    rows = []
    previous = 0
    for step in calls:
        reasons = [f.reason for r in step["recompiles"] for f in r.failures]
        verdict = "first compile" if previous == 0 else ("recompiled" if step["graphs"] > previous else "reused an entry")
        rows.append([step["label"], str(step["graphs"]), verdict, "<br>".join(code(shorten(r, 90)) for r in reasons) or "—"])
        previous = step["graphs"]
    return table(["call", "unique_graphs", "what happened", "guard failures"], rows, "-r--")


def static_to_dynamic_summary(result: SnippetResult) -> str:
    calls = size_steps(result)
    by_label = {s["label"]: s for s in calls}
    first_new = calls[1]
    reasons = [f.reason for r in first_new["recompiles"] for f in r.failures]
    dumps = parse_guards_log(result.log("guards"))
    symbolic = next((d for d in dumps if shape_guards(d)), None)
    growth = [s["graphs"] for s in calls if s["label"] != "rows=1"]
    settled = len(set(growth[1:])) == 1
    text = [f"The first new size recompiled with {code(shorten(reasons[0], 100))}." if reasons else "The first new size did not recompile."]
    if symbolic is not None and settled:
        check = tensor_check(symbolic)
        size = parse_check_tensor(check.predicate)["size"] if check else "?"
        text.append(
            f"That recompile was already dynamic: this torch's **automatic dynamic shapes** marked the dimension "
            f"that changed as symbolic, so the tensor check now reads `size={size}` (`None` is the symbolic "
            f"dimension) and every later size reused that entry ({plural(growth[-1], 'graph')} for "
            f"{plural(len(growth), 'size')})."
        )
        guards = shape_guards(symbolic)
        text.append(
            "The symbolic dimension brings guards of its own, from the shape environment: "
            + ", ".join(code(g.predicate) for g in guards) + "."
        )
    else:
        text.append(f"The sizes compiled {plural(growth[-1], 'graph')} in all: no symbolic dimension appeared.")
    one = by_label.get("rows=1")
    if one is not None:
        if one["graphs"] > calls[-2]["graphs"]:
            r = [f.reason for rc in one["recompiles"] for f in rc.failures]
            text.append(
                f"A single row then **recompiled** (reason against the dynamic entry: {code(shorten(r[0], 80)) if r else 'none logged'}): "
                "sizes 0 and 1 are specialized. A symbolic size is assumed to be at least 2, because 0 and 1 "
                "change semantics (broadcasting, empty tensors, contiguity) and the graph traced for a general "
                "size would be wrong for them."
            )
        else:
            text.append("A single row reused the dynamic entry on this torch.")
    return " ".join(text)


def mode_sections(result: SnippetResult) -> dict[str, list[list[Guard]]]:
    """Per mode label, the guard dumps printed after its '== label' line."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in result.output.splitlines():
        if line.startswith("== "):
            current = line[3:].strip()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return {k: parse_guards_log("\n".join(v)) for k, v in sections.items()}


def modes_table(run: SnippetResult) -> str:
    graphs = dict(steps(run.stdout))
    dumps = mode_sections(run)
    rows = []
    for label, n in graphs.items():
        key = next((k for k in dumps if k.split(",")[0].split(" (")[0] in label), None)
        last = dumps[key][-1] if key and dumps[key] else []
        check = tensor_check(last)
        size = parse_check_tensor(check.predicate).get("size", "?") if check else "?"
        sym = ", ".join(code(g.predicate) for g in shape_guards(last)) or "—"
        rows.append([label, str(n), code(f"size={size}"), sym])
    return table(["mode", "graphs for 5 sizes", "tensor check of the last entry", "shape guards"], rows, "-r--")


# -- 2. scalars ----------------------------------------------------------------------------------
def _reading(label: str, n: int, values: int = 4) -> str:
    kind = label.split(":")[0].split(" ")[0].split("(")[0]
    if n == 1:
        return f"a {'value wrapped in a tensor' if kind == 'tensor' else 'Python ' + kind} compiled **once** for all {values} values: no guard read its value"
    if n >= values:
        return f"a Python {kind} was **burned in as a constant**: every new value compiled a new graph ({n} for {values} values)"
    first = "its first value" if n == 2 else f"its first {n - 1} values"
    return f"a Python {kind} was a constant for {first}, then **became a symbol** ({n} graphs for {values} values)"


def scalars_table(result: SnippetResult) -> str:
    rows = [[label, str(n), _reading(label, n).replace("**", "")] for label, n in steps(result.stdout)]
    return table(["argument, 4 calls", "graphs", "reading"], rows, "-r-")


def scalars_summary(result: SnippetResult) -> str:
    return "On this torch, " + "; ".join(_reading(label, n) for label, n in steps(result.stdout)) + "."


# -- 3. the cache is a list ------------------------------------------------------------------------
def list_growth(result: SnippetResult) -> list[tuple[str, int, int]]:
    """Per call: label, entries before it, failure lines its recompile logged."""
    out = []
    for step in attribute_to_steps(result.output, STEP_RE):
        lines = sum(len(r.failures) for r in step["recompiles"])
        out.append((step["label"], step["graphs"] - (1 if step["recompiles"] or not out else 0), lines))
    return out


def list_growth_table(result: SnippetResult) -> str:
    rows = [[label, str(before), str(lines) if lines else "— (first compile)"] for label, before, lines in list_growth(result)]
    return table(["call", "entries already in the cache", "failure lines in its recompile log"], rows, "-rr")


def list_growth_summary(result: SnippetResult) -> str:
    growth = list_growth(result)[1:]
    if all(lines == before for _, before, lines in growth):
        return (
            "Each recompile logged exactly one failure line per entry already in the cache "
            f"({', '.join(str(lines) for _, _, lines in growth)}): before compiling, dynamo had checked every one."
        )
    return "Failure lines per recompile on this torch: " + ", ".join(f"{label}: {lines}" for label, _, lines in growth) + "."


def walk_timings(result: SnippetResult) -> tuple[float, list[tuple[int, float]]]:
    eager = float(re.search(r"^eager\s+([\d.]+) us/call", result.stdout, re.M).group(1))
    rows = [(int(n), float(t)) for n, t in re.findall(r"^entries=(\d+)\s+([\d.]+) us/call", result.stdout, re.M)]
    return eager, rows


def walk_table(result: SnippetResult) -> str:
    eager, rows = walk_timings(result)
    base = rows[0][1]
    out = [["eager (no compile)", f"{eager:.1f}", "—"]]
    for n, t in rows:
        out.append([plural(n, "entry", "entries"), f"{t:.1f}", f"{t / base:.2f}×"])
    return table(["cache entries, calls cycling through all", "µs per call", "vs 1 entry"], out, "-rr")


def walk_summary(result: SnippetResult) -> str:
    _, rows = walk_timings(result)
    (n0, t0), (n1, t1) = rows[0], rows[-1]
    trend = "grew" if t1 > t0 * 1.1 else "stayed flat"
    return (
        f"On the machine that built this page, the cost per call {trend} from {t0:.1f} µs with {n0} entry to "
        f"{t1:.1f} µs with {n1} entries. These are this machine's figures, measured at build time: the shape of the "
        "curve is the lesson, the numbers are not a benchmark."
    )


# -- 4. two limits -------------------------------------------------------------------------------
def limit_config(result: SnippetResult) -> dict[str, int]:
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^config\.(\w+) = (\d+)$", result.stdout, re.M)}


ALIASES = {"cache_size_limit": "recompile_limit", "accumulated_cache_size_limit": "accumulated_recompile_limit"}


def limit_names_table(result: SnippetResult) -> str:
    config = limit_config(result)
    rows = []
    for name, value in config.items():
        note = "the per-function limit" if "accumulated" not in name else "the accumulated limit"
        if ALIASES.get(name) in config:
            note = f"the older name of `{ALIASES[name]}` (renamed in torch 2.7), still accepted"
        rows.append([code(f"torch._dynamo.config.{name}"), str(value), note])
    return table(["setting on this torch", "value", "what it is"], rows, "-r-")


def limit_warning(result: SnippetResult) -> str:
    lines = [ln for ln in result.output.splitlines() if "hit config." in ln or ln.strip().startswith(("function:", "last reason:"))]
    return "```text\n" + "\n".join(lines) + "\n```\n" if lines else "(this torch printed no warning)\n"


def limit_steps(result: SnippetResult) -> list[tuple[str, int, dict]]:
    out = []
    for m in re.finditer(r"^(rows=\d+(?: again)?)\s+unique_graphs=(\d+) served=(\{.*\})$", result.stdout, re.M):
        served = {int(k): int(v) for k, v in re.findall(r"(\d+): (\d+)", m.group(3))}
        out.append((m.group(1), int(m.group(2)), served))
    return out


def limit_verdict(result: SnippetResult) -> str:
    config = limit_config(result)
    per_fn = "recompile_limit" if "recompile_limit" in config else "cache_size_limit"
    steps_ = limit_steps(result)
    before_again = steps_[-2][2]
    again = steps_[-1][2]
    served_again = again.get(2, 0) > before_again.get(2, 0)
    new_after_limit = steps_[-2][1] == steps_[-3][1]
    text = [
        f"With `{per_fn}` lowered to 2, the third size hit the limit: `unique_graphs` stopped at {steps_[-1][1]}, "
        + ("and later new sizes compiled nothing more: they ran eagerly." if new_after_limit else "yet compiling went on.")
    ]
    if served_again:
        text.append(
            "Calling again with the first size **ran the existing compiled entry** (its run counter went up): on this "
            "torch, hitting the limit stops new compiles but the entries already made keep serving. That is the "
            "behaviour from torch 2.7 on; up to 2.4 the whole frame fell back to eager, and in 2.5–2.6 it was skipped."
        )
    else:
        text.append(
            "Calling again with the first size **did not run the compiled entry** (its run counter stayed put): on this "
            "torch, once the limit is hit the frame runs as plain Python, entries and all (up to torch 2.4 dynamo falls "
            "back to eager for the frame; in 2.5 and 2.6 it skips the frame and everything it calls). From torch 2.7 "
            "on, existing entries keep serving and only new inputs run eagerly."
        )
    return " ".join(text)


def accumulated_note(result: SnippetResult, regime: str) -> str:
    config = limit_config(result)
    acc = next((k for k in config if k.startswith("accumulated")), None)
    per = next((k for k in config if not k.startswith("accumulated")), None)
    text = (
        f"The per-function limit (`{per}`, {config.get(per)}) counts entries per code object and per object "
        f"guarded by identity; the accumulated limit (`{acc}`, {config.get(acc)}) caps all entries of the code object "
        "together. "
    )
    if regime == "identity":
        text += (
            "This build guards modules by identity, so every new instance of a module starts a fresh per-object "
            "count: a model rebuilt in a loop would never hit the per-function limit, and only the accumulated "
            "limit stops it from compiling forever."
        )
    else:
        text += (
            "This build guards modules by type and attributes, so identical instances share entries and the "
            "per-function limit does most of the work; the accumulated limit remains the backstop for code that "
            "still creates identity guards (closures, objects compared with `is`), and for torch releases up to 2.4, "
            "where every module instance was guarded by identity."
        )
    return text


# -- 5. stances ----------------------------------------------------------------------------------
def stance_summary(result: SnippetResult) -> str:
    if "set_stance does not exist" in result.stdout:
        return (
            "**This torch has no `torch.compiler.set_stance`** (it arrived in torch 2.6). On releases that have it, "
            "`fail_on_recompile` turns a would-be recompile into an error and `eager_on_recompile` runs such calls "
            "eagerly without compiling."
        )
    lines = result.output  # the printed lines, with repository paths shown relative
    raised = re.search(r"raised (\w+): (.*)$", lines, re.M)
    graphs = steps(lines)
    eager_graphs = next(n for label, n in graphs if label.startswith("eager_on_recompile"))
    final = graphs[-1][1]
    text = []
    if raised:
        text.append(f"Under `fail_on_recompile`, the call that needed a new entry raised `{raised.group(1)}`: {code(shorten(raised.group(2), 140))}.")
    else:
        text.append("Under `fail_on_recompile`, the call that needed a new entry did **not** raise on this torch.")
    text.append(
        f"Under `eager_on_recompile`, the same call ran eagerly: `unique_graphs` stayed at {eager_graphs}, and the result "
        f"was still correct. Back at the default stance the call compiled ({plural(final, 'graph')} in all)."
    )
    return " ".join(text)
