"""Render code for lesson 4, "Dynamic shapes and the cache limits" (docs/dynamic.md).

Measure → fact → sentence, as in guards.py: facts read runs and return values with the output
lines they rest on; the render functions turn them into claims that carry that evidence.
"""

from __future__ import annotations

import re

from ..claims import Derived, Measured, claim, fact, in_dump, line_of, markers_for, run
from ..parse.guard_dump import Guard, parse_check_tensor, parse_guards_log, tensor_check
from ..parse.recompiles import attribute_to_steps
from ..record import SnippetResult
from .common import STEP_RE, across, code, plural, shorten, steps, table  # noqa: F401  (across: for the pages)

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


# -- 1. from static to dynamic -----------------------------------------------------------------
def size_steps(result: SnippetResult) -> list[dict]:
    return attribute_to_steps(result.output, STEP_RE)


def _step_ev(result: SnippetResult, label: str):
    return line_of(result, label + " ")


def static_to_dynamic(result: SnippetResult) -> str:
    calls = size_steps(result)
    rows = []
    previous = 0
    for step in calls:
        reasons = [f.reason for r in step["recompiles"] for f in r.failures]
        verdict = (
            "first compile" if previous == 0 else ("recompiled" if step["graphs"] > previous else "reused an entry")
        )
        rows.append(
            [
                step["label"],
                str(step["graphs"]) + markers_for([_step_ev(result, step["label"])]),
                verdict,
                "<br>".join(code(shorten(r, 90)) for r in reasons) or "—",
            ]
        )
        previous = step["graphs"]
    return table(["call", "unique_graphs", "what happened", "guard failures"], rows, "-r--")


@fact("dynamic: graphs for sizes 4, 5, 6, 7", NEW_SIZES)
def sizes_graphs(result: SnippetResult) -> Measured:
    step = next(s for s in size_steps(result) if s["label"] == "rows=7")
    return Measured(step["graphs"], (_step_ev(result, "rows=7"),))


def static_to_dynamic_summary(result: SnippetResult) -> str:
    calls = size_steps(result)
    by_label = {s["label"]: s for s in calls}
    first_new = calls[1]
    reasons = [f.reason for r in first_new["recompiles"] for f in r.failures]
    dumps = parse_guards_log(result.log("guards"))
    symbolic_at = next((i for i, d in enumerate(dumps) if shape_guards(d)), None)
    growth = [s["graphs"] for s in calls if s["label"] != "rows=1"]
    settled = len(set(growth[1:])) == 1
    text = []
    if reasons:
        text.append(
            claim(
                "The first new size recompiled with {q_reason}.",
                q_reason=Derived(reasons[0], shorten(reasons[0], 100)),
                evidence=[line_of(result, reasons[0][:60])],
            ).markdown()
        )
    else:
        text.append(
            claim("The first new size did not recompile.", evidence=[_step_ev(result, first_new["label"])]).markdown()
        )
    if symbolic_at is not None and settled:
        symbolic = dumps[symbolic_at]
        check = tensor_check(symbolic)
        size = parse_check_tensor(check.predicate)["size"] if check else "?"
        text.append(
            claim(
                "That recompile was already dynamic: this torch's **automatic dynamic shapes** marked the dimension that "
                "changed as symbolic, so the tensor check now reads {q_size} (`None` is the symbolic dimension) and every "
                "later size reused that entry ({n} {g} for {sizes} sizes).",
                q_size=f"size={size}",
                n=growth[-1],
                g=Derived("graph" if growth[-1] == 1 else "graphs"),
                sizes=Derived(len(growth)),
                evidence=[
                    in_dump(result, symbolic_at, check.predicate),
                    _step_ev(result, calls[len(growth) - 1]["label"]),
                ],
            ).markdown()
        )
        guards = shape_guards(symbolic)
        text.append(
            claim(
                "The symbolic dimension brings guards of its own, from the shape environment: {guards}.",
                guards=Derived([g.predicate for g in guards], ", ".join(code(g.predicate) for g in guards)),
                evidence=[in_dump(result, symbolic_at, g.predicate) for g in guards],
            ).markdown()
        )
    else:
        text.append(
            claim(
                "The sizes compiled {n} {g} in all: no symbolic dimension appeared.",
                n=growth[-1],
                g=Derived("graph" if growth[-1] == 1 else "graphs"),
                evidence=[_step_ev(result, calls[len(growth) - 1]["label"])],
            ).markdown()
        )
    one = by_label.get("rows=1")
    if one is not None:
        if one["graphs"] > calls[-2]["graphs"]:
            r = [f.reason for rc in one["recompiles"] for f in rc.failures]
            text.append(
                claim(
                    "A single row then **recompiled** (reason against the dynamic entry: {q_reason}): sizes 0 and 1 are "
                    "specialized. A symbolic size is assumed to be at least 2, because 0 and 1 change semantics "
                    "(broadcasting, empty tensors, contiguity) and the graph traced for a general size would be wrong for them.",
                    q_reason=Derived(r[0] if r else "none logged", shorten(r[0], 80) if r else "none logged"),
                    evidence=[
                        line_of(result, r[0][:60]) if r else _step_ev(result, "rows=1"),
                        _step_ev(result, "rows=1"),
                    ],
                ).markdown()
            )
        else:
            text.append(
                claim(
                    "A single row reused the dynamic entry on this torch.", evidence=[_step_ev(result, "rows=1")]
                ).markdown()
            )
    return " ".join(text)


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


def modes_table(result: SnippetResult) -> str:
    graphs = mode_graphs(result).value
    sections = mode_sections(result)
    rows = []
    for label, n in graphs.items():
        before, dumps = sections.get(label, (0, []))
        last = dumps[-1] if dumps else []
        check = tensor_check(last)
        size = parse_check_tensor(check.predicate).get("size", "?") if check else "?"
        where = len(dumps) - 1 + before
        size_cell = code(f"size={size}") + (markers_for([in_dump(result, where, check.predicate)]) if check else "")
        sym = ", ".join(code(g.predicate) for g in shape_guards(last)) or "—"
        rows.append([label, str(n) + markers_for([line_of(result, label + " ")]), size_cell, sym])
    return table(["mode", "graphs for 5 sizes", "tensor check of the last entry", "shape guards"], rows, "-r--")


# -- 2. scalars ----------------------------------------------------------------------------------
def _reading(label: str, n: int, values: int = 4) -> str:
    """How a count reads, as a claim template: `{n}` is the measured count."""
    kind = label.split(":")[0].split(" ")[0].split("(")[0]
    if n == 1:
        return f"a {'value wrapped in a tensor' if kind == 'tensor' else 'Python ' + kind} compiled **once** for all {values} values: no guard read its value"
    if n >= values:
        return f"a Python {kind} was **burned in as a constant**: every new value compiled a new graph ({{n}} for {values} values)"
    first = "its first value" if n == 2 else f"its first {n - 1} values"
    return f"a Python {kind} was a constant for {first}, then **became a symbol** ({{n}} graphs for {values} values)"


@fact(
    "dynamic: scalars (graphs for 4 values)",
    SCALARS,
    show=lambda v: ", ".join(f"{k.split(':')[0]} {n}" for k, n in v.items()),
)
def scalar_graphs(result: SnippetResult) -> Measured:
    counts = dict(steps(result.stdout))
    return Measured(counts, tuple(line_of(result, label) for label in counts))


def scalars_table(result: SnippetResult) -> str:
    rows = [
        [label, str(n) + markers_for([line_of(result, label)]), _reading(label, n).format(n=n).replace("**", "")]
        for label, n in scalar_graphs(result).value.items()
    ]
    return table(["argument, 4 calls", "graphs", "reading"], rows, "-r-")


def scalars_summary(result: SnippetResult) -> str:
    parts = [
        claim(_reading(label, n), n=n, evidence=[line_of(result, label)]).markdown()
        for label, n in scalar_graphs(result).value.items()
    ]
    return "On this torch, " + "; ".join(parts) + "."


# -- 3. the cache is a list ------------------------------------------------------------------------
def list_growth(result: SnippetResult) -> list[tuple[str, int, int]]:
    """Per call: label, entries before it, failure lines its recompile logged."""
    out = []
    for step in attribute_to_steps(result.output, STEP_RE):
        lines = sum(len(r.failures) for r in step["recompiles"])
        out.append((step["label"], step["graphs"] - (1 if step["recompiles"] or not out else 0), lines))
    return out


def list_growth_table(result: SnippetResult) -> str:
    rows = [
        [
            label,
            str(before),
            (str(lines) if lines else "— (first compile)") + markers_for([line_of(result, label + " ")]),
        ]
        for label, before, lines in list_growth(result)
    ]
    return table(["call", "entries already in the cache", "failure lines in its recompile log"], rows, "-rr")


def list_growth_summary(result: SnippetResult) -> str:
    growth = list_growth(result)[1:]
    ev = [line_of(result, label + " ") for label, _, _ in growth]
    if all(lines == before for _, before, lines in growth):
        counts = [lines for _, _, lines in growth]
        return claim(
            "Each recompile logged exactly one failure line per entry already in the cache ({counts}): before "
            "compiling, dynamo had checked every one.",
            counts=Derived(counts, ", ".join(map(str, counts))),
            evidence=ev,
        ).markdown()
    return (
        "Failure lines per recompile on this torch: "
        + ", ".join(f"{label}: {lines}" for label, _, lines in growth)
        + "."
    )


def walk_timings(result: SnippetResult) -> tuple[float, list[tuple[int, float]]]:
    eager = float(re.search(r"^eager\s+([\d.]+) us/call", result.stdout, re.M).group(1))
    rows = [(int(n), float(t)) for n, t in re.findall(r"^entries=(\d+)\s+([\d.]+) us/call", result.stdout, re.M)]
    return eager, rows


def walk_table(result: SnippetResult) -> str:
    eager, rows = walk_timings(result)
    base = rows[0][1]
    out = [["eager (no compile)", f"{eager:.1f}" + markers_for([line_of(result, "eager ")]), "—"]]
    for n, t in rows:
        out.append(
            [
                plural(n, "entry", "entries"),
                f"{t:.1f}" + markers_for([line_of(result, f"entries={n} ")]),
                f"{t / base:.2f}×",
            ]
        )
    return table(["cache entries, calls cycling through all", "µs per call", "vs 1 entry"], out, "-rr")


def walk_slope(result: SnippetResult) -> float:
    """Least-squares µs per extra cache entry, over the measured rows."""
    _, rows = walk_timings(result)
    xs, ys = [n for n, _ in rows], [t for _, t in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def walk_summary(result: SnippetResult) -> str:
    _, rows = walk_timings(result)
    (n0, t0), (n1, t1) = rows[0], rows[-1]
    slope = walk_slope(result)
    ev = [line_of(result, f"entries={n} ") for n, _ in rows]
    change = slope * (n1 - n0)
    trend = "grew" if change > 0.1 * t0 else ("fell" if change < -0.1 * t0 else "stayed roughly flat")
    return claim(
        "On the machine that built this page, a call took {t0} µs with {n0} entry and {t1} µs with {n1} entries; a "
        "straight line fitted through all the rows has a slope of **{slope} µs per entry**: the cost per call {trend} "
        "as the cache grew. These are this machine's figures, measured at build time: the shape of the curve is the "
        "lesson, the numbers are not a benchmark.",
        evidence=ev,
        trend=Derived(trend),
        t0=f"{t0:.1f}",
        n0=n0,
        t1=f"{t1:.1f}",
        n1=n1,
        slope=Derived(slope, f"{slope:.2f}"),
    ).markdown()


# -- 4. two limits -------------------------------------------------------------------------------
def limit_config(result: SnippetResult) -> dict[str, int]:
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^config\.(\w+) = (\d+)$", result.stdout, re.M)}


@fact("limits: names", LIMITS, show=lambda v: ", ".join(v))
def limit_names(result: SnippetResult) -> Measured:
    config = limit_config(result)
    return Measured(list(config), tuple(line_of(result, f"config.{k} = ") for k in config))


ALIASES = {"cache_size_limit": "recompile_limit", "accumulated_cache_size_limit": "accumulated_recompile_limit"}


def limit_names_table(result: SnippetResult) -> str:
    config = limit_config(result)
    rows = []
    for name, value in config.items():
        note = "the per-function limit" if "accumulated" not in name else "the accumulated limit"
        if ALIASES.get(name) in config:
            note = f"an older name of `{ALIASES[name]}`, still present on this torch"
        rows.append(
            [
                code(f"torch._dynamo.config.{name}"),
                str(value) + markers_for([line_of(result, f"config.{name} = ")]),
                note,
            ]
        )
    return table(["setting on this torch", "value", "what it is"], rows, "-r-")


def limit_warning(result: SnippetResult) -> str:
    lines = [
        ln
        for ln in result.output.splitlines()
        if "hit config." in ln or ln.strip().startswith(("function:", "last reason:"))
    ]
    return "```text\n" + "\n".join(lines) + "\n```\n" if lines else "(this torch printed no warning)\n"


def limit_steps(result: SnippetResult) -> list[tuple[str, int, dict]]:
    out = []
    for m in re.finditer(r"^(rows=\d+(?: again)?)\s+unique_graphs=(\d+) served=(\{.*\})$", result.stdout, re.M):
        served = {int(k): int(v) for k, v in re.findall(r"(\d+): (\d+)", m.group(3))}
        out.append((m.group(1), int(m.group(2)), served))
    return out


@fact("limits: after the limit, existing entries", LIMITS)
def after_limit(result: SnippetResult) -> Measured:
    steps_ = limit_steps(result)
    served = steps_[-1][2].get(2, 0) > steps_[-2][2].get(2, 0)
    return Measured(
        "keep serving" if served else "fall back to eager",
        (line_of(result, steps_[-2][0] + " "), line_of(result, steps_[-1][0] + " ")),
    )


def limit_verdict(result: SnippetResult) -> str:
    config = limit_config(result)
    per_fn = "recompile_limit" if "recompile_limit" in config else "cache_size_limit"
    steps_ = limit_steps(result)
    new_after_limit = steps_[-2][1] == steps_[-3][1]
    text = [
        claim(
            "With {q_name} lowered to 2, the third size hit the limit: `unique_graphs` stopped at {n}, "
            + (
                "and later new sizes compiled nothing more: they ran eagerly."
                if new_after_limit
                else "yet compiling went on."
            ),
            q_name=per_fn,
            n=steps_[-1][1],
            evidence=[
                line_of(result, f"lowered config.{per_fn}"),
                line_of(result, steps_[-3][0] + " "),
                line_of(result, steps_[-2][0] + " "),
            ],
        ).markdown()
    ]
    served = after_limit(result)
    before, again = steps_[-2][2].get(2, 0), steps_[-1][2].get(2, 0)
    if served.value == "keep serving":
        text.append(
            claim(
                "Calling again with the first size **ran the existing compiled entry** (its run counter went from {a} to "
                "{b}): on this torch, hitting the limit stops new compiles but the entries already made keep serving.",
                a=before,
                b=again,
                evidence=list(served.evidence),
            ).markdown()
        )
    else:
        text.append(
            claim(
                "Calling again with the first size **did not run the compiled entry** (its run counter stayed at {a}): on "
                "this torch, once the limit is hit the frame runs as plain Python, entries and all.",
                a=before,
                evidence=list(served.evidence),
            ).markdown()
        )
    return " ".join(text)


def accumulated_note(result: SnippetResult, regime: str) -> str:
    config = limit_config(result)
    acc = next((k for k in config if k.startswith("accumulated")), None)
    per = next((k for k in config if not k.startswith("accumulated")), None)
    text = claim(
        "The per-function limit ({q_per}, {per_v}) counts entries per code object and per object guarded by identity; "
        "the accumulated limit ({q_acc}, {acc_v}) caps all entries of the code object together. ",
        q_per=per,
        per_v=config.get(per),
        q_acc=acc,
        acc_v=config.get(acc),
        evidence=[line_of(result, f"config.{per} = "), line_of(result, f"config.{acc} = ")],
    ).markdown()
    if regime == "identity":
        text += (
            " This build guards modules by identity, so every new instance of a module starts a per-object count "
            "of its own, and the per-function limit alone cannot stop a model that is rebuilt again and again; "
            "whether such a loop ever reaches the accumulated limit is measured on the "
            "[Across releases](../releases/#does-a-model-rebuilt-in-a-loop-ever-reach-the-accumulated-limit) page."
        )
    else:
        text += (
            " This build guards modules by type and attributes, so identical instances share entries and the "
            "per-function limit does most of the work; the accumulated limit remains the backstop for code that "
            "still creates identity guards (closures, objects compared with `is`)."
        )
    return text


# -- 5. stances ----------------------------------------------------------------------------------
@fact("stances: set_stance", STANCES)
def stance_available(result: SnippetResult) -> Measured:
    if "set_stance does not exist" in result.stdout:
        return Measured("absent", (line_of(result, "set_stance does not exist"),))
    return Measured("present", (line_of(result, "default stance"),))


def stance_summary(result: SnippetResult) -> str:
    if stance_available(result).value == "absent":
        return claim(
            "**This torch has no `torch.compiler.set_stance`**: the snippet printed so and stopped. On releases that "
            "have it, `fail_on_recompile` turns a would-be recompile into an error and `eager_on_recompile` runs such "
            "calls eagerly without compiling.",
            evidence=list(stance_available(result).evidence),
        ).markdown()
    lines = result.output  # the printed lines, with repository paths shown relative
    raised = re.search(r"raised (\w+): (.*)$", lines, re.M)
    graphs = steps(lines)
    eager_label, eager_graphs = next((label, n) for label, n in graphs if label.startswith("eager_on_recompile"))
    final_label, final = graphs[-1]
    text = []
    if raised:
        text.append(
            claim(
                "Under `fail_on_recompile`, the call that needed a new entry raised {q_error}: {q_msg}.",
                q_error=raised.group(1),
                q_msg=Derived(raised.group(2), shorten(raised.group(2), 140)),
                evidence=[line_of(result, "raised " + raised.group(1))],
            ).markdown()
        )
    else:
        text.append(
            claim(
                "Under `fail_on_recompile`, the call that needed a new entry did **not** raise on this torch.",
                evidence=[line_of(result, "fail_on_recompile, float64")],
            ).markdown()
        )
    equal = re.search(r"^eager_on_recompile result equals eager double\(x\): (\w+)$", lines, re.M)
    text.append(
        claim(
            "Under `eager_on_recompile`, the same call ran eagerly: `unique_graphs` stayed at {n}"
            + (
                ", and its result equals the eager function's ({q_eq})."
                if equal and equal.group(1) == "True"
                else ", and its result does **not** equal the eager function's ({q_eq})."
                if equal
                else "."
            ),
            n=eager_graphs,
            q_eq=(f"equals eager double(x): {equal.group(1)}" if equal else None),
            evidence=[line_of(result, eager_label + " ")] + ([line_of(result, "equals eager")] if equal else []),
        ).markdown()
    )
    text.append(
        claim(
            "Back at the default stance the call compiled ({n} {g} in all).",
            n=final,
            g=Derived("graph" if final == 1 else "graphs"),
            evidence=[line_of(result, final_label + " ")],
        ).markdown()
    )
    return " ".join(text)
