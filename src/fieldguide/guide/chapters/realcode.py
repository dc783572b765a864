"""Facts and tables for lesson 5, "Recompiles in real code" (docs/realcode.md).

Each case compares a failing pattern with its fix, both measured. Each `@fact` reads the recorded
runs and returns what it measured, the output lines it rests on and the named outcome it took; the
page's explain blocks hold the sentences, one per outcome. The functions here build tables; they
return no prose.
"""

from __future__ import annotations

import re

from ...run.record import SnippetResult
from .. import links
from ..claims import UNRECOGNISED, Derived, Fact, Measured, Run, fact, line_of, markers_for, page_table, run
from ..links import relative_link
from ..parse.recompiles import attribute_to_steps, parse_recompiles
from .common import STEP_RE, code, plural, shorten, steps, table

LR_FLOAT = run("realcode/lr_float.py", "recompiles")
LR_TENSOR = run("realcode/lr_tensor.py", "recompiles")
ONECYCLE = run("realcode/optim_onecycle.py", "recompiles")
ONECYCLE_TENSOR = run("realcode/optim_onecycle_tensor.py", "recompiles")
ONECYCLE_FIXED = run("realcode/optim_onecycle_fixed.py", "recompiles")
CAPTURABLE = run("realcode/optim_capturable.py", "recompiles")
WEIGHT_DECAY = run("realcode/optim_weight_decay.py", "recompiles")
PLATEAU = run("realcode/optim_plateau_tensor.py", "recompiles")
PLATEAU_FIX = run("realcode/optim_plateau_restored.py", "recompiles")
TRAIN_EVAL = run("realcode/train_eval.py", "recompiles")
TRAIN_EVAL_WARM = run("realcode/train_eval_warm.py", "recompiles")
LAYER_IDX = run("realcode/layer_idx.py", "recompiles")
LAYER_BUFFER = run("realcode/layer_idx_buffer.py", "recompiles")
GUARD_OVERHEAD = run("realcode/guard_overhead.py", "guards")
STANCE_TEST = run("realcode/stance_test.py")
TRACE = run("realcode/trace.py", TORCH_TRACE="trace")
PAGE_URL = "realcode/"  # where docs/realcode.md is served, for links to the tlparse report

_LIMIT = re.compile(r"hit config\.(\w+) \((\d+)\)")
_LIMIT_FUNCTION = re.compile(r"^\s*function: '(\w+)'", re.M)


def limit_hit(result: SnippetResult) -> tuple[str, int] | None:
    """(limit name, value) from the warning torch printed when a function hit its recompile limit."""
    m = _LIMIT.search(result.output + result.stderr)
    return (m.group(1), int(m.group(2))) if m else None


def first_reasons(result: SnippetResult) -> list[str]:
    """The newest entry's failed guard of each recompile, in order (without a trailing "(HINT: ...)")."""
    return [
        re.sub(r"\s+\(HINT:.*$", "", r.failures[0].reason).strip()
        for r in parse_recompiles(result.output)
        if r.failures
    ]


def _final(result: SnippetResult) -> int:
    s = steps(result.stdout)
    return s[-1][1] if s else 0


def _last_ev(result: SnippetResult):
    s = steps(result.stdout)
    return line_of(result, s[-1][0] + " ")


def _reason_ev(result: SnippetResult, reason: str):
    return line_of(result, reason[:80])


def _graphs(n: int) -> Derived:
    return Derived(n, plural(n, "graph"))


def _limit_fact(result: SnippetResult) -> Measured:
    """The recompile limit a run hit, as that release names it: `not hit`, or `hit, then stayed`
    (`unique_graphs` did not grow after the warning, up to the run's last step)."""
    hit = limit_hit(result)
    if not hit:
        return Measured("not hit", (_last_ev(result),), "not hit")
    name, value = hit
    graphs = steps(result.stdout)
    lines = result.output.splitlines()
    at = next(i for i, ln in enumerate(lines) if f"hit config.{name}" in ln)
    after = steps("\n".join(lines[at:]))
    if not after or any(g != graphs[-1][1] for _, g in after):
        raise LookupError(f"{result.path}: unique_graphs grew after the {name} warning")
    k = len(first_reasons(result))
    if k != graphs[-1][1]:  # the first graph, one per logged recompile, and the last one logged hit the limit
        raise LookupError(f"{result.path}: {k} recompiles logged for {graphs[-1][1]} graphs")
    fn = _LIMIT_FUNCTION.search("\n".join(lines[at : at + 3]))
    if not fn:
        raise LookupError(f"{result.path}: the {name} warning names no function")
    evidence = (line_of(result, f"hit config.{name}"), line_of(result, f"function: '{fn.group(1)}'"), _last_ev(result))
    return Measured(
        f"{name} ({value})",
        evidence,
        "hit, then stayed",
        {
            "name": name,
            "value": str(value),
            "function": fn.group(1),
            "final": Derived(graphs[-1][1]),
            "k": Derived(k, plural(k, "recompile")),
        },
    )


def _two(a: str, b: str):
    return lambda v: f"{a} {v[0]}, {b} {v[1]}"


# -- learning-rate schedules --------------------------------------------------------------------
@fact(
    "realcode: graphs over 10 epochs (lr as a float, lr in a tensor)",
    LR_FLOAT,
    LR_TENSOR,
    show=_two("float", "tensor"),
    outcomes=("a graph per value until the limit", "settled after one recompile", "a graph per epoch", "one graph"),
)
def lr_graphs(floats: SnippetResult, tensors: SnippetResult) -> Measured:
    """The float version's course over the epochs (the outcome), and both versions' last counts."""
    epochs = steps(floats.stdout)
    n, f, t = len(epochs), _final(floats), _final(tensors)
    reasons = first_reasons(floats)
    evidence = (_last_ev(floats), _last_ev(tensors))
    slots: dict[str, object] = {"n": Derived(n), "f": str(f), "t": str(t), "fg": _graphs(f)}
    if reasons:
        evidence += (_reason_ev(floats, reasons[0]),)
        slots["reason"] = Derived(reasons[0], shorten(reasons[0], 80))
    value = (f, t)
    if f == 1 and not reasons:
        return Measured(value, evidence, "one graph", slots)
    if f >= n and not limit_hit(floats):
        return Measured(value, evidence, "a graph per epoch", slots)
    if limit_hit(floats) and reasons and len(reasons) >= f - 1:
        return Measured(value, evidence, "a graph per value until the limit", slots)
    if f == 2 and len(reasons) == 1 and not limit_hit(floats):
        settled = next(label for label, graphs in epochs if graphs == f)
        slots["epoch"] = settled.split(":")[0]
        return Measured(value, evidence + (line_of(floats, settled + " "),), "settled after one recompile", slots)
    raise LookupError(f"{f} graphs with {len(reasons)} recompiles logged over {n} epochs")


@fact("realcode: lr as a float, the first recompile's reason", LR_FLOAT, show=lambda v: shorten(v, 60))
def lr_reason(floats: SnippetResult) -> Measured:
    reason = first_reasons(floats)[0]
    return Measured(reason, (_reason_ev(floats, reason),))


@fact("realcode: lr as a float, recompile limit", LR_FLOAT, outcomes=("not hit", "hit, then stayed"))
def lr_limit(floats: SnippetResult) -> Measured:
    return _limit_fact(floats)


@fact(
    "realcode: lr in a tensor, graphs over 10 epochs",
    LR_TENSOR,
    outcomes=("one graph", "more than one graph"),
)
def lr_tensor_graphs(tensors: SnippetResult) -> Measured:
    t = _final(tensors)
    slots = {"t": str(t), "n": Derived(len(steps(tensors.stdout))), "tg": _graphs(t)}
    return Measured(t, (_last_ev(tensors),), "one graph" if t == 1 else "more than one graph", slots)


@page_table
def lr_table(floats: SnippetResult, tensors: SnippetResult) -> str:
    a, b = steps(floats.stdout), steps(tensors.stdout)
    rows = [
        [la, str(ga) + markers_for([line_of(floats, la + " ")]), str(gb) + markers_for([line_of(tensors, la + " ")])]
        for (la, ga), (_, gb) in zip(a, b, strict=False)
    ]
    return table(["epoch", "unique_graphs, lr as a float", "unique_graphs, lr in a tensor"], rows, "-rr")


# -- optimizer settings beyond the learning rate -------------------------------------------------
_RAISED = re.compile(r"^(step \d+):.*? raised (\w+): (.*)$", re.M)
_REFUSED = re.compile(r"^AdamW refused tensor settings: .*$", re.M)
_TYPES = re.compile(r"^step \d+: lr=\S+ \((\w+)\)(?: beta1=\S+ \((\w+)\))?", re.M)
_COURSE = ("one graph", "a graph per step", "a recompile at every step", "settled after one recompile")


def _reason(failures) -> str:
    return re.sub(r"\s+\(HINT:.*$", "", failures[0].reason).strip()


def _course(result: SnippetResult) -> Measured:
    """How a compiled optimizer step's run went, step by step, from its step lines and the recompiles
    logged before each: no recompile and one graph; a recompile and a new graph at every step after the
    first; a recompile at every step after the first that adds no graph to `unique_graphs` (the
    recompiled frames hold none); one recompile at the second step and none after; or the step raised,
    or the optimizer refused the settings (the tensor version). Its value: (graphs, recompiles logged)."""
    if m := _REFUSED.search(result.stdout):
        return Measured("refused", (line_of(result, m.group(0)),), "refused", {"line": m.group(0)})
    if m := _RAISED.search(result.stdout):
        slots = {
            "step": m.group(1),
            "error": m.group(2),
            "message": Derived(m.group(3), shorten(m.group(3).rstrip("."), 90)),
        }
        return Measured(f"raised {m.group(2)}", (line_of(result, m.group(0)[:100]),), "raised", slots)
    s = attribute_to_steps(result.output, STEP_RE)
    if len(s) < 2:
        raise LookupError(f"{result.path}: {len(s)} step lines")
    graphs = [x["graphs"] for x in s]
    counts = [sum(1 for r in x["recompiles"] if r.failures) for x in s]
    n, f, k = len(s), graphs[-1], sum(counts)
    slots: dict[str, object] = {
        "n": Derived(n, plural(n, "step")),
        "f": str(f),
        "fg": _graphs(f),
        "k": Derived(k, plural(k, "recompile")),
        "k0": Derived(counts[0], plural(counts[0], "recompile")),
        "kl": Derived(k - counts[0], plural(k - counts[0], "recompile")),
    }
    evidence = (_last_ev(result),)
    later = [r for x in s[1:] for r in x["recompiles"] if r.failures]
    if later:
        reason = _reason(later[0].failures)
        evidence += (_reason_ev(result, reason),)
        slots["reason"] = Derived(reason, shorten(reason, 80))
    value = (f, k)
    if limit_hit(result):
        raise LookupError(f"{result.path}: hit the recompile limit within {n} steps")
    if k == 0 and set(graphs) == {1}:
        return Measured(value, evidence, "one graph", slots)
    if all(counts[1:]):
        first = line_of(result, s[0]["label"] + " ")
        slots["g0"] = _graphs(graphs[0])
        if all(b == a + 1 for a, b in zip(graphs, graphs[1:], strict=False)):
            return Measured(value, evidence, "a graph per step", slots)
        if len(set(graphs)) == 1:
            return Measured(value, evidence + (first,), "a recompile at every step", slots)
    if counts[1] == 1 and k == 1 and graphs[1:] == [graphs[0] + 1] * (n - 1):
        slots["settled"] = s[1]["label"].split(":")[0]
        return Measured(value, evidence + (line_of(result, s[1]["label"] + " "),), "settled after one recompile", slots)
    raise LookupError(f"{result.path}: graphs {graphs}, recompiles logged per step {counts}")


def _show_course(value: object) -> str:
    if isinstance(value, tuple):
        return f"{plural(value[0], 'graph')}, {plural(value[1], 'recompile')}"
    return str(value)


@fact(
    "realcode: OneCycleLR, lr and betas as floats, graphs over 8 steps",
    ONECYCLE,
    show=_show_course,
    outcomes=_COURSE,
)
def onecycle_graphs(result: SnippetResult) -> Measured:
    return _course(result)


@fact(
    "realcode: OneCycleLR, lr and betas as tensors, graphs over 8 steps",
    ONECYCLE_TENSOR,
    show=_show_course,
    outcomes=(*_COURSE, "raised", "refused"),
)
def onecycle_tensor_graphs(result: SnippetResult) -> Measured:
    return _course(result)


def _span(found: list[tuple]) -> dict[str, object]:
    """The steps the type lines cover, as a text reads them: "at step 0" for one line, else "from step 0 to step 7"."""
    first, last = found[0][0].split(":")[0], found[-1][0].split(":")[0]
    said = f"at `{first}`, the only step printed" if first == last else f"from `{first}` to `{last}`"
    return {"span": Derived((first, last), said)}


@fact(
    "realcode: OneCycleLR over tensor lr and betas, what the step read",
    ONECYCLE_TENSOR,
    outcomes=("lr a tensor, beta1 a float", "both floats", "both tensors", "refused"),
)
def onecycle_tensor_types(result: SnippetResult) -> Measured:
    """The types of `lr` and `betas[0]` the steps read, from the step lines (before each step)."""
    if m := _REFUSED.search(result.stdout):
        return Measured("refused", (line_of(result, m.group(0)),), "refused")
    found = [(m.group(0), m.group(1), m.group(2)) for m in _TYPES.finditer(result.stdout)]
    lr, beta1 = {t[1] for t in found}, {t[2] for t in found}
    if len(lr) != 1 or len(beta1) != 1:
        raise LookupError(f"{result.path}: lr read as {sorted(lr)}, beta1 as {sorted(map(str, beta1))}")
    evidence = (line_of(result, found[0][0]), line_of(result, found[-1][0]))
    kinds = (lr.pop(), beta1.pop())
    outcome = {
        ("Tensor", "float"): "lr a tensor, beta1 a float",
        ("float", "float"): "both floats",
        ("Tensor", "Tensor"): "both tensors",
    }.get(kinds)
    if outcome is None:
        raise LookupError(f"{result.path}: lr read as {kinds[0]}, beta1 as {kinds[1]}")
    return Measured(f"lr {kinds[0]}, beta1 {kinds[1]}", evidence, outcome, _span(found))


@fact(
    "realcode: OneCycleLR, tensor lr and cycle_momentum=False, graphs over 8 steps",
    ONECYCLE_FIXED,
    show=_show_course,
    outcomes=_COURSE,
)
def onecycle_fixed_graphs(result: SnippetResult) -> Measured:
    return _course(result)


@fact(
    "realcode: OneCycleLR, tensor lr and cycle_momentum=False, what the step read",
    ONECYCLE_FIXED,
    outcomes=("a tensor", "a float"),
)
def onecycle_fixed_types(result: SnippetResult) -> Measured:
    return _lr_types(result)


def _lr_types(result: SnippetResult) -> Measured:
    """The type of `lr` every step read, from the step lines (before each step): one type, or LookupError."""
    found = [(m.group(0), m.group(1)) for m in _TYPES.finditer(result.stdout)]
    kinds = {t[1] for t in found}
    if len(kinds) != 1 or kinds - {"Tensor", "float"}:
        raise LookupError(f"{result.path}: lr read as {sorted(kinds)}")
    kind = kinds.pop()
    evidence = (line_of(result, found[0][0]), line_of(result, found[-1][0]))
    return Measured(kind, evidence, "a tensor" if kind == "Tensor" else "a float", _span(found))


_REFUSED_CAPTURABLE = re.compile(r"^AdamW refused capturable=True: .*$", re.M)


@fact(
    "realcode: capturable=True, tensor lr and cycle_momentum=False, graphs over 8 steps",
    CAPTURABLE,
    show=_show_course,
    outcomes=(*_COURSE, "raised", "refused"),
)
def capturable_graphs(result: SnippetResult) -> Measured:
    if m := _REFUSED_CAPTURABLE.search(result.stdout):
        return Measured("refused", (line_of(result, m.group(0)[:100]),), "refused", {"line": m.group(0)})
    return _course(result)


@fact(
    "realcode: capturable=True, tensor lr and cycle_momentum=False, what the step read",
    CAPTURABLE,
    outcomes=("a tensor", "a float", "refused"),
)
def capturable_types(result: SnippetResult) -> Measured:
    if m := _REFUSED_CAPTURABLE.search(result.stdout):
        return Measured("refused", (line_of(result, m.group(0)[:100]),), "refused")
    return _lr_types(result)


@fact(
    "realcode: a weight-decay schedule, graphs over 8 steps",
    WEIGHT_DECAY,
    show=_show_course,
    outcomes=_COURSE,
)
def weight_decay_graphs(result: SnippetResult) -> Measured:
    return _course(result)


@fact("realcode: ReduceLROnPlateau over a tensor lr, what the step read", PLATEAU, outcomes=("a tensor", "a float"))
def plateau_types(result: SnippetResult) -> Measured:
    """`a tensor` when every step read a Tensor; `a float` when some step read a float (the types, in order)."""
    found = [(m.group(0), m.group(1)) for m in _TYPES.finditer(result.stdout)]
    kinds = [t[1] for t in found]
    if not found or set(kinds) - {"Tensor", "float"}:
        raise LookupError(f"{result.path}: lr read as {sorted(set(kinds))}")
    evidence = (line_of(result, found[0][0]), line_of(result, found[-1][0]))
    if set(kinds) == {"Tensor"}:
        return Measured("Tensor", evidence, "a tensor", _span(found))
    first_float = next(t[0] for t in found if t[1] == "float")
    tensors = [t[0].split(":")[0] for t in found if t[1] == "Tensor"]
    said = f"`{tensors[0]}` to `{tensors[-1]}` read a `Tensor`, " if tensors else ""
    said += f"a `float` from `{first_float.split(':')[0]}` on"
    value = "float from " + first_float.split(":")[0]
    return Measured(value, evidence + (line_of(result, first_float),), "a float", {"kinds": Derived(value, said)})


_RATE = re.compile(r"^step \d+: lr=(\S+) \((\w+)\)")


@fact(
    "realcode: ReduceLROnPlateau over a tensor lr, graphs over 7 steps",
    PLATEAU,
    show=_show_course,
    outcomes=("one graph", "a recompile at every new rate", "one recompile at the first float, then none"),
)
def plateau_graphs(result: SnippetResult) -> Measured:
    """The run's course against the rates it read: no recompile; a recompile (and a graph) at exactly
    the steps whose rate differs from the step before; or one recompile, at the first step that read a
    float, and none after. Its value: (graphs, recompiles logged)."""
    s = attribute_to_steps(result.output, STEP_RE)
    rates = [_RATE.match(x["label"]) for x in s]
    if len(s) < 2 or not all(rates):
        raise LookupError(f"{result.path}: {len(s)} step lines with a rate")
    graphs = [x["graphs"] for x in s]
    counts = [sum(1 for r in x["recompiles"] if r.failures) for x in s]
    n, f, k = len(s), graphs[-1], sum(counts)
    slots: dict[str, object] = {"n": Derived(n, plural(n, "step")), "fg": _graphs(f), "f": str(f)}
    evidence = (_last_ev(result),)
    if k == 0 and set(graphs) == {1}:
        return Measured((f, k), evidence, "one graph", slots)
    at = next(i for i, c in enumerate(counts) if c)
    reason = _reason(next(r for r in s[at]["recompiles"] if r.failures).failures)
    slots |= {"at": s[at]["label"].split(":")[0], "reason": Derived(reason, shorten(reason, 80))}
    evidence += (_reason_ev(result, reason), line_of(result, s[at]["label"] + " "))
    new = [i > 0 and rates[i].group(1) != rates[i - 1].group(1) for i in range(n)]
    if all((counts[i] >= 1 and graphs[i] == graphs[i - 1] + 1) if new[i] else counts[i] == 0 for i in range(1, n)):
        return Measured((f, k), evidence, "a recompile at every new rate", slots)
    first_float = next((i for i, m in enumerate(rates) if m.group(2) == "float"), None)
    if k == 1 and f == 2 and at == first_float:
        return Measured((f, k), evidence, "one recompile at the first float, then none", slots)
    raise LookupError(f"{result.path}: graphs {graphs}, recompiles logged per step {counts}")


_PUT_BACK = re.compile(r"^the loop put the tensor back after (\d+) of (\d+) scheduler steps$", re.M)


@fact(
    "realcode: ReduceLROnPlateau with the tensor put back, graphs over 7 steps",
    PLATEAU_FIX,
    show=lambda v: f"{plural(v[0], 'graph')}, put back {v[2]} times",
    outcomes=("one graph, floats put back", "one graph, nothing to put back", "compiled again"),
)
def plateau_put_back(result: SnippetResult) -> Measured:
    """The tensor-restoring loop's course: its graphs, recompiles logged and how often it put the
    tensor back (the scheduler had written a float over it)."""
    s = attribute_to_steps(result.output, STEP_RE)
    m = _PUT_BACK.search(result.stdout)
    if len(s) < 2 or not m:
        raise LookupError(f"{result.path}: {len(s)} step lines, put-back line {'found' if m else 'missing'}")
    graphs = [x["graphs"] for x in s]
    k = sum(1 for x in s for r in x["recompiles"] if r.failures)
    f, put = graphs[-1], int(m.group(1))
    slots: dict[str, object] = {"n": Derived(len(s), plural(len(s), "step")), "fg": _graphs(f), "put": m.group(1)}
    evidence = (_last_ev(result), line_of(result, m.group(0)))
    if k == 0 and set(graphs) == {1}:
        return Measured(
            (f, k, put), evidence, "one graph, floats put back" if put else "one graph, nothing to put back", slots
        )
    at = next((i for i, x in enumerate(s) if any(r.failures for r in x["recompiles"])), None)
    if at is not None:
        reason = _reason(next(r for r in s[at]["recompiles"] if r.failures).failures)
        slots |= {"at": s[at]["label"].split(":")[0], "reason": Derived(reason, shorten(reason, 80))}
        evidence += (_reason_ev(result, reason), line_of(result, s[at]["label"] + " "))
    else:
        slots |= {"at": Derived("", "no step"), "reason": Derived("", "no reason logged")}
    return Measured((f, k, put), evidence, "compiled again", slots)


WD_TENSOR = run("realcode/optim_weight_decay_tensor.py", "recompiles")
WD_FIXED = run("realcode/optim_weight_decay_fixed.py", "recompiles")
_WD_STEP = re.compile(
    r"^step (\d): weight_decay=[\d.]+ (?:\((\w+)\) )?unique_graphs=(\d+)(?: same as the float schedule: (True|False))?$",
    re.M,
)


def _wd_steps(result: SnippetResult) -> list[re.Match]:
    found = list(_WD_STEP.finditer(result.stdout))
    if [m.group(1) for m in found] != [str(i) for i in range(8)]:
        raise LookupError(f"{result.path}: {len(found)} step lines")
    return found


def _break_shown(reason: str) -> str:
    """A break reason as the page quotes it: a path under site-packages from `torch/` on (not the
    build environment's own path), without the quoting the counter's key left around it, and
    marked as cut where the snippet cut its line (120 characters)."""
    text, _, at = reason.partition(" (at: ")
    cut = len(text) >= 120
    text = re.sub(r"\S*site-packages/", "", text).strip().strip("',").strip()
    return text + ("…" if cut else "") + (f" (at: {at}" if at else "")


@fact(
    "realcode: a weight-decay schedule in a tensor, graphs over 8 steps",
    WD_TENSOR,
    show=lambda v: v,
    outcomes=(
        "no graph, a branch on the weight decay's value",
        "no graph, a branch on a tensor's value",
        "no graph",
        "one entry",
        "compiled again",
    ),
)
def wd_tensor(result: SnippetResult) -> Measured:
    found = _wd_steps(result)
    graphs = [int(m.group(3)) for m in found]
    kinds = sorted({m.group(2) for m in found})
    evidence = tuple(line_of(result, f"step {i}: ") for i in range(8))
    slots: dict[str, object] = {
        "final": Derived(graphs[-1], plural(graphs[-1], "graph")),
        "kinds": Derived(kinds, " and ".join(f"`{k}`" for k in kinds)),
    }
    k = len(parse_recompiles(result.output))
    if graphs == [0] * 8:
        m = re.search(r"^graph breaks counted: (\d+)$", result.stdout, re.M)
        reasons = re.findall(r"^  break: (.*)$", result.stdout, re.M)
        if not m:
            raise LookupError(f"{result.path}: no count of graph breaks")
        evidence += (line_of(result, "graph breaks counted: "),) + tuple(
            line_of(result, "  break: " + r) for r in reasons
        )
        slots["breaks"] = Derived(int(m.group(1)), plural(int(m.group(1)), "graph break"))
        slots["reasons"] = Derived(reasons, "; ".join(code(_break_shown(r)) for r in reasons))
        words = ("data-dependent", "data dependent", "dynamic control flow")
        branch = next((r for r in reasons if any(w in r.lower() for w in words)), None)
        if branch:
            at = re.search(r" \(at: (.*)\)$", branch)
            slots["branch"] = Derived(branch, shorten(branch.split(" (at: ")[0], 60))
            if at and "weight_decay" in at.group(1):
                slots["at"] = at.group(1)
                outcome = "no graph, a branch on the weight decay's value"
            else:
                outcome = "no graph, a branch on a tensor's value"
            return Measured(outcome, evidence, outcome, slots)
        return Measured("no graph", evidence, "no graph", slots)
    slots["k"] = Derived(k, plural(k, "recompile"))
    if len(set(graphs)) == 1 and k == 0:
        return Measured("one entry", evidence, "one entry", slots)
    return Measured("compiled again", evidence, "compiled again", slots)


@fact(
    "realcode: the decay applied in the compiled step, graphs over 8 steps",
    WD_FIXED,
    show=lambda v: v,
    outcomes=(
        "no recompile, the same weights",
        "one recompile at the second step, then none, the same weights",
        "no recompile, other weights",
        "compiled again",
    ),
)
def wd_fixed(result: SnippetResult) -> Measured:
    found = _wd_steps(result)
    graphs = [int(m.group(3)) for m in found]
    same = [m.group(4) == "True" for m in found]
    k = len(parse_recompiles(result.output))
    evidence = tuple(line_of(result, f"step {i}: ") for i in range(8))
    slots = {
        "final": Derived(graphs[-1], plural(graphs[-1], "graph")),
        "k": Derived(k, plural(k, "recompile")),
    }
    settled = k == 1 and graphs[1:] == [graphs[0] + 1] * 7
    if settled and all(same):
        reason = first_reasons(result)[0]
        slots["reason"] = _no_ids(reason)
        outcome = "one recompile at the second step, then none, the same weights"
        return Measured(outcome, evidence + (_reason_ev(result, reason),), outcome, slots)
    if len(set(graphs)) != 1 or k:
        return Measured("compiled again", evidence, "compiled again", slots)
    if all(same):
        return Measured("no recompile, the same weights", evidence, "no recompile, the same weights", slots)
    return Measured("no recompile, other weights", evidence, "no recompile, other weights", slots)


@page_table
def optim_table(*results: SnippetResult) -> str:
    """unique_graphs after each step, and the recompiles logged during it, one column per run (a run
    that stopped early has blanks)."""
    runs = [attribute_to_steps(r.output, STEP_RE) for r in results]
    n = max(len(s) for s in runs)
    rows = []
    for i in range(n):
        label = f"step {i}"
        cells = []
        for r, s in zip(results, runs, strict=True):
            got = next((x for x in s if x["label"].split(":")[0] == label), None)
            if got is None:
                cells.append("")
                continue
            k = sum(1 for x in got["recompiles"] if x.failures)
            cells.append(f"{got['graphs']} ({k})" + markers_for([line_of(r, label + ": ")]))
        rows.append([label, *cells])
    heads = ["floats", "lr, betas as tensors", "tensor lr, no beta cycling", "weight decay"][: len(results)]
    return table(["step", *heads], rows, "-" + "r" * len(results))


# -- one optimizer per parameter ----------------------------------------------------------------
PER_PARAM = run("realcode/optim_per_param.py")
PER_PARAM_FIXED = run("realcode/optim_per_param_fixed.py", "recompiles")
PER_PARAM_RAISED = run("realcode/optim_per_param_raised.py")
_LIMIT_RAISED = re.compile(r"^raised (\w+) to (\d+)$", re.M)
_LONG_ID = re.compile(r"\d{9,}")
_SITE = re.compile(r"^'(\w+)' \((?:.*site-packages/)?(.*?):\d+\)$")


def _no_ids(text: str) -> object:
    """A guard as a slot, without the object ids it prints (they change from run to run)."""
    shown = _LONG_ID.sub("…", text)
    return text if shown == text else Derived(text, shown)


def _line_at(lines: list[str], label: str) -> int:
    """The index of the step line `label` printed."""
    return next(i for i, ln in enumerate(lines) if ln.startswith(label + " "))


@fact(
    "realcode: one optimizer per parameter, 12 steps through one function",
    PER_PARAM,
    show=lambda v: v,
    outcomes=(
        "a graph per optimizer, then the limit",
        "the limit in the optimizer's step, on its state, and compiling went on",
        "a limit warning per frame, and compiling went on",
        "a graph per optimizer",
        "one graph",
    ),
)
def per_param(result: SnippetResult) -> Measured:
    s = steps(result.stdout)
    if len(s) != 12 or not all(label.startswith(f"optimizer {i} ") for i, (label, _) in enumerate(s)):
        raise LookupError(f"{result.path}: {len(s)} step lines")
    graphs = [g for _, g in s]
    evidence = tuple(line_of(result, label + " ") for label, _ in s)
    slots: dict[str, object] = {"final": Derived(graphs[-1], plural(graphs[-1], "graph"))}
    found = limit_warnings(result)
    if not found:
        if graphs == [1] * 12:
            return Measured("one graph", evidence, "one graph", slots)
        if graphs == list(range(1, 13)):
            return Measured("a graph per optimizer", evidence, "a graph per optimizer", slots)
        raise ValueError(f"unique_graphs {graphs}, no limit warning")
    if not all(w["function"] and w["reason"] for w in found):
        raise LookupError(f"{result.path}: a limit warning without its function: or last reason: line")
    lines = result.output.splitlines()
    after = [i for i, (label, _) in enumerate(s) if any(ln.startswith(label + " ") for ln in lines[found[-1]["at"] :])]
    if not after or after[0] == 0 or any(w["at"] < _line_at(lines, s[after[0] - 1][0]) for w in found):
        raise LookupError(f"{result.path}: the limit warnings are not all between two step lines")
    at = after[0]
    sites, reasons = [], []
    for w in found:
        fn = _SITE.match(w["function"][len("function: ") :])
        if not fn:
            raise LookupError(f"{result.path}: function line {w['function']!r}")
        sites.append(fn)
        reasons.append(re.sub(r"^\d+/\d+: ", "", w["reason"][len("last reason: ") :]).split("  #")[0].strip())
        evidence += (line_of(result, w["line"]), line_of(result, w["function"]), line_of(result, w["reason"][:80]))
    first = found[0]
    slots.update(
        {
            "hit": f"config.{first['hit'].group(1)} ({first['hit'].group(2)})",
            "function": sites[0].group(1),
            "file": sites[0].group(2),
            "reason": _no_ids(reasons[0]),
            "warnings": Derived(len(found), plural(len(found), "limit warning")),
            "functions": Derived(
                [f"{m.group(1)} ({m.group(2)})" for m in sites],
                ", ".join(f"`{m.group(1)}` ({m.group(2)})" for m in sites),
            ),
            "at": s[at][0].split("  ")[0],
            "before": Derived(graphs[at - 1], plural(graphs[at - 1], "graph")),
            "uncompiled": Derived(12 - at, plural(12 - at, "optimizer")),
        }
    )
    identity = all(r.startswith("___check_obj_id(") for r in reasons)
    stayed = graphs[:at] == list(range(1, at + 1)) and all(g == graphs[at - 1] for g in graphs[at:])
    if stayed and len(found) == 1 and identity:
        outcome = "a graph per optimizer, then the limit"
    elif graphs[-1] > graphs[at - 1] and len(found) == 1 and "state" in reasons[0]:
        outcome = "the limit in the optimizer's step, on its state, and compiling went on"
    elif graphs[-1] > graphs[at - 1] and len(found) > 1 and identity:
        outcome = "a limit warning per frame, and compiling went on"
    else:
        raise ValueError(f"unique_graphs {graphs}, {len(found)} limit warnings before {s[at][0]}: {reasons}")
    return Measured(outcome, evidence, outcome, slots)


@fact(
    "realcode: one optimizer over the 12 parameters, 3 steps",
    PER_PARAM_FIXED,
    show=lambda v: v,
    outcomes=("one graph", "settled after one recompile", "a graph per step"),
)
def per_param_fixed(result: SnippetResult) -> Measured:
    s = steps(result.stdout)
    if [label for label, _ in s] != ["step 0", "step 1", "step 2"]:
        raise LookupError(f"{result.path}: step lines {[label for label, _ in s]}")
    graphs = [g for _, g in s]
    evidence = tuple(line_of(result, label + " ") for label, _ in s)
    k = len(parse_recompiles(result.output))
    slots = {"final": Derived(graphs[-1], plural(graphs[-1], "graph")), "k": Derived(k, plural(k, "recompile"))}
    if graphs == [1, 1, 1] and k == 0:
        return Measured("one graph", evidence, "one graph", slots)
    if graphs == [1, 2, 2] and k == 1:
        reason = first_reasons(result)[0]
        slots["reason"] = _no_ids(reason)
        slots["at"] = "step 1"
        return Measured(
            "settled after one recompile",
            evidence + (_reason_ev(result, reason),),
            "settled after one recompile",
            slots,
        )
    if graphs == [1, 2, 3]:
        return Measured("a graph per step", evidence, "a graph per step", slots)
    raise ValueError(f"unique_graphs {graphs}, {k} recompiles logged")


# -- train() / eval() ---------------------------------------------------------------------------
def phase_steps(result: SnippetResult) -> list[dict]:
    """One dict per printed phase: label, graphs, and the first failed guard of each recompile before it."""
    return [
        {
            "label": s["label"],
            "graphs": s["graphs"],
            "reasons": [f.reason for r in s["recompiles"] for f in r.failures[:1]],
        }
        for s in attribute_to_steps(result.output, r"^(?P<label>.+?):\s+unique_graphs=(?P<graphs>\d+)\s*$")
    ]


def _phase_ev(result: SnippetResult, label: str):
    return line_of(result, label + ":")


@fact(
    "realcode: graphs after 3 epochs of train/validate (as written, both modes warmed up)",
    TRAIN_EVAL,
    TRAIN_EVAL_WARM,
    show=_two("as written", "warmed up"),
    outcomes=("one recompile, then one entry per mode", "one graph", "recompiled more than once"),
)
def train_eval_graphs(loop: SnippetResult, warm: SnippetResult) -> Measured:
    """The loop as written (the outcome): one recompile and no growth after it, or otherwise."""
    a, b = phase_steps(loop), phase_steps(warm)
    if not a or not b:
        raise LookupError("the runs printed no phases")
    value = (a[-1]["graphs"], b[-1]["graphs"])
    evidence = (_phase_ev(loop, a[-1]["label"]), _phase_ev(warm, b[-1]["label"]))
    recompiles = sum(len(s["reasons"]) for s in a)
    slots: dict[str, object] = {"n": _graphs(a[-1]["graphs"])}
    if a[-1]["graphs"] == 1 and not recompiles:
        return Measured(value, evidence, "one graph", slots)
    grew = [s for s in a if s["graphs"] > a[0]["graphs"]]
    if recompiles == 1 and a[-1]["graphs"] == 2 and len(grew) > 1 and grew[0]["reasons"]:
        slots["when"] = grew[0]["label"]
        return Measured(
            value, evidence + (_phase_ev(loop, grew[0]["label"]),), "one recompile, then one entry per mode", slots
        )
    if recompiles > 1:
        slots["k"] = Derived(recompiles)
        return Measured(value, evidence, "recompiled more than once", slots)
    raise LookupError(f"{a[-1]['graphs']} graphs with {recompiles} recompiles logged")


@fact(
    "realcode: train/validate, the recompile's reason",
    TRAIN_EVAL,
    show=lambda v: shorten(v, 60) or "none logged",
    outcomes=("grad mode named", "global state check", "none logged"),
)
def train_eval_reason(loop: SnippetResult) -> Measured:
    first = next((s for s in phase_steps(loop) if s["reasons"]), None)
    if first is None:
        return Measured("", (_phase_ev(loop, phase_steps(loop)[-1]["label"]),), "none logged")
    reason = first["reasons"][0]
    evidence = (_reason_ev(loop, reason), _phase_ev(loop, first["label"]))
    slots = {"reason": reason, "when": first["label"]}
    if re.fullmatch(r"GLOBAL_STATE changed: grad_mode", reason.strip()):
        return Measured(reason, evidence, "grad mode named", slots)
    if reason.strip() == "___check_global_state()":
        return Measured(reason, evidence, "global state check", slots)
    raise LookupError(f"a reason no text is written for: {reason}")


@fact(
    "realcode: train/validate warmed up, graphs compiled inside the loop",
    TRAIN_EVAL_WARM,
    TRAIN_EVAL,
    outcomes=("nothing compiled in the loop, the same total", "nothing compiled in the loop", "compiled in the loop"),
)
def warm_loop_compiles(warm: SnippetResult, loop: SnippetResult) -> Measured:
    """What the warm-up left for the loop to compile, and whether it changed the total against the
    loop as written (a warm-up can move a compile before the loop without saving it)."""
    a, b = phase_steps(loop), phase_steps(warm)
    k = b[-1]["graphs"] - b[0]["graphs"]
    evidence = (_phase_ev(warm, b[0]["label"]), _phase_ev(warm, b[-1]["label"]), _phase_ev(loop, a[-1]["label"]))
    slots = {"w": _graphs(b[0]["graphs"]), "k": _graphs(k), "written": _graphs(a[-1]["graphs"])}
    if k:
        outcome = "compiled in the loop"
    elif a[-1]["graphs"] == b[-1]["graphs"]:
        outcome = "nothing compiled in the loop, the same total"
    else:
        outcome = "nothing compiled in the loop"
    return Measured(k, evidence, outcome, slots)


@page_table
def train_eval_table(loop: SnippetResult, warm: SnippetResult) -> str:
    rows = []
    for name, res in (("validate every epoch", loop), ("both modes warmed up first", warm)):
        for s in phase_steps(res):
            rows.append(
                [
                    name,
                    s["label"],
                    str(s["graphs"]) + markers_for([_phase_ev(res, s["label"])]),
                    "<br>".join(code(shorten(r, 70)) for r in s["reasons"]) or "—",
                ]
            )
    return table(["loop", "after", "unique_graphs", "first failed guard logged"], rows, "--r-")


# -- per-layer attributes and regional compilation ----------------------------------------------
@fact(
    "realcode: graphs for 12 blocks (layer_idx read in forward, a buffer)",
    LAYER_IDX,
    LAYER_BUFFER,
    show=_two("layer_idx", "buffer"),
    outcomes=(
        "a graph per block, no recompile logged",
        "one recompile, then reused",
        "a recompile per block until the limit",
        "one graph",
    ),
)
def layer_graphs(fail: SnippetResult, fix: SnippetResult) -> Measured:
    """The blocks that read layer_idx (the outcome), and both versions' last counts."""
    blocks = steps(fail.stdout)
    n, f, b = len(blocks), _final(fail), _final(fix)
    reasons = first_reasons(fail)
    value = (f, b)
    evidence = (_last_ev(fail), _last_ev(fix))
    slots: dict[str, object] = {"n": Derived(n), "f": str(f), "fg": _graphs(f)}
    if reasons:
        evidence += (_reason_ev(fail, reasons[0]),)
        slots["reason"] = Derived(reasons[0], shorten(reasons[0], 70))
    if f == 1 and not reasons:
        return Measured(value, evidence, "one graph", slots)
    if not reasons and f == n:
        return Measured(
            value, evidence + (line_of(fail, blocks[1][0] + " "),), "a graph per block, no recompile logged", slots
        )
    if len(reasons) == 1 and 1 < f < n:
        return Measured(value, evidence + (line_of(fail, blocks[1][0] + " "),), "one recompile, then reused", slots)
    if len(reasons) >= 2 and limit_hit(fail) and f >= min(n, 3):
        slots["reason2"] = Derived(reasons[1], shorten(reasons[1], 70))
        return Measured(
            value, evidence + (_reason_ev(fail, reasons[1]),), "a recompile per block until the limit", slots
        )
    raise LookupError(f"{f} graphs with {len(reasons)} recompiles logged over {n} blocks")


@fact("realcode: layer_idx, the first recompile's reason", LAYER_IDX, show=lambda v: shorten(v, 60) or "none logged")
def layer_reason(fail: SnippetResult) -> Measured:
    reasons = first_reasons(fail)
    if not reasons:
        return Measured("", (_last_ev(fail),))
    return Measured(reasons[0], (_reason_ev(fail, reasons[0]),))


@fact("realcode: layer_idx, recompile limit", LAYER_IDX, outcomes=("not hit", "hit, then stayed"))
def layer_limit(fail: SnippetResult) -> Measured:
    m = _limit_fact(fail)
    if m.outcome == "hit, then stayed":
        lines = [ln for ln in fail.output.splitlines() if "hit config." in ln or "last reason" in ln]
        m.slots["warning"] = Derived(lines, "\n".join(lines))
    return m


@fact(
    "realcode: layer_idx in a buffer, graphs for 12 blocks",
    LAYER_BUFFER,
    outcomes=("one graph", "a graph per block"),
)
def buffer_graphs(fix: SnippetResult) -> Measured:
    blocks = steps(fix.stdout)
    b = _final(fix)
    slots = {"n": Derived(len(blocks)), "b": str(b), "bg": _graphs(b)}
    if b == 1:
        return Measured(b, (_last_ev(fix),), "one graph", slots)
    if b == len(blocks):
        return Measured(b, (_last_ev(fix),), "a graph per block", slots)
    raise LookupError(f"{b} graphs for {len(blocks)} blocks")


@page_table
def layer_table(fail: SnippetResult, fix: SnippetResult) -> str:
    a, b = steps(fail.stdout), steps(fix.stdout)
    rows = [
        [la, str(ga) + markers_for([line_of(fail, la + " ")]), str(gb) + markers_for([line_of(fix, la + " ")])]
        for (la, ga), (_, gb) in zip(a, b, strict=False)
    ]
    return table(["block", "unique_graphs, layer_idx read in forward", "unique_graphs, a buffer"], rows, "-rr")


# -- guard overhead -----------------------------------------------------------------------------
def guard_overhead(result: SnippetResult) -> dict:
    out = result.stdout
    times = {m.group(1): m.group(2) for m in re.finditer(r"^(.+?): ([\d.]+) us per call$", out, re.M)}
    filt = re.search(r"guard_filter_fn: (\d+) guards offered, (\d+) kept", out)
    latencies = re.findall(r"Guard eval latency = ([\d.]+) ?(\w+)", result.log("guards"))
    return {
        "times": times,
        "offered": int(filt.group(1)) if filt else None,
        "kept": int(filt.group(2)) if filt else None,
        "latencies": latencies,
        "available": "does not exist in this torch" not in out,
    }


@fact(
    "realcode: guard_filter_fn with skip_guard_on_all_nn_modules_unsafe",
    GUARD_OVERHEAD,
    show=lambda v: v if isinstance(v, str) else f"{v[0]} guards offered, {v[1]} kept",
    outcomes=("absent", "filtered"),
)
def guard_filter(result: SnippetResult) -> Measured:
    g = guard_overhead(result)
    if not g["available"]:
        return Measured("absent", (line_of(result, "does not exist in this torch"),), "absent")
    if g["offered"] is None:
        raise LookupError("the filter printed nothing")
    return Measured(
        (g["offered"], g["kept"]),
        (line_of(result, "guard_filter_fn: "),),
        "filtered",
        {"offered": str(g["offered"]), "kept": str(g["kept"])},
    )


_EVERY, _SKIPPED = "compiled, every guard", "compiled, module guards skipped"


@fact(
    "realcode: median µs per call, every guard and module guards skipped",
    GUARD_OVERHEAD,
    show=lambda v: f"{v[0]}, {v[1]}" if v[1] else f"{v[0]}, not run",
    outcomes=("single runs", "no filtered run"),
    varies=True,
)
def guard_timings(result: SnippetResult) -> Measured:
    """Two medians, one run each, no spread: the outcome says so, and draws no direction."""
    times = guard_overhead(result)["times"]
    if _EVERY not in times:
        raise LookupError("no timing of the compiled model")
    every, skipped = times[_EVERY], times.get(_SKIPPED)
    evidence = (line_of(result, _EVERY + ": "),)
    slots = {"every": every}
    if skipped is None:
        return Measured((every, None), evidence, "no filtered run", slots)
    return Measured(
        (every, skipped), evidence + (line_of(result, _SKIPPED + ": "),), "single runs", slots | {"skipped": skipped}
    )


@fact("realcode: the guards log's Guard eval latency line", GUARD_OVERHEAD, outcomes=("present", "absent"))
def latency_line(result: SnippetResult) -> Measured:
    lines = [ln.strip() for ln in result.output.splitlines() if "Guard eval latency" in ln]
    if not lines:
        return Measured("absent", (line_of(result, "compiled, every guard: "),), "absent")
    lat = guard_overhead(result)["latencies"]
    return Measured(
        "present",
        tuple(line_of(result, ln) for ln in lines),
        "present",
        {"lat": Derived(lat, ", then ".join(f"{v} {u}" for v, u in lat))},
    )


@page_table
def guard_overhead_table(result: SnippetResult) -> str:
    g = guard_overhead(result)
    rows = [[label, us + markers_for([line_of(result, f"{label}: ")])] for label, us in g["times"].items()]
    return table(["model", "median µs per call, one run (this build's machine)"], rows, "-r")


# -- diagnosis ----------------------------------------------------------------------------------
SET_LOGS = run("realcode/set_logs.py")
_VERBOSE_FROM = "--- recompiles_verbose from here"
_SECTION = re.compile(r"^\s*guard \d+ failures:")


def set_logs_halves(result: SnippetResult) -> tuple[list[str], list[str]]:
    """The displayed output before and after the snippet switched to recompiles_verbose."""
    lines = result.output.splitlines()
    at = next((i for i, ln in enumerate(lines) if ln.strip() == _VERBOSE_FROM), None)
    if at is None:
        raise LookupError(f"{result.path}: no {_VERBOSE_FROM!r} line in its output")
    if result.log("recompiles") and not any(ln.startswith("Recompiling function") for ln in lines[:at]):
        # a record made when the page did not show the channels a snippet turned on itself
        raise LookupError(f"{result.path}: this record's displayed output does not hold the set_logs records")
    return lines[:at], lines[at + 1 :]


@fact("realcode: set_logs(recompiles=True), recompiles logged", SET_LOGS, outcomes=("none", "one", "several"))
def set_logs_recompiles(result: SnippetResult) -> Measured:
    before, _ = set_logs_halves(result)
    headers = [ln for ln in before if ln.startswith("Recompiling function")]
    evidence = tuple(line_of(result, ln) for ln in headers[:1]) or (line_of(result, _VERBOSE_FROM),)
    n = len(headers)
    return Measured(n, evidence, "none" if n == 0 else "one" if n == 1 else "several", {"n": Derived(n)})


@fact(
    "realcode: set_logs(recompiles_verbose=True), sections per cache entry",
    SET_LOGS,
    outcomes=("sections", "no sections"),
)
def set_logs_sections(result: SnippetResult) -> Measured:
    before, after = set_logs_halves(result)
    sections = [ln.strip() for ln in after if _SECTION.match(ln)]
    start = len(before) + 1
    evidence = tuple(line_of(result, ln, start) for ln in sections) or (line_of(result, _VERBOSE_FROM),)
    n = len(sections)
    return Measured(n, evidence, "sections" if n else "no sections", {"k": Derived(n)})


def set_logs_failures(result: SnippetResult) -> list[list[str]]:
    """The failure lines of each recompiles_verbose section, in order (after the switch)."""
    _, after = set_logs_halves(result)
    sections: list[list[str]] = []
    for ln in after:
        if _SECTION.match(ln):
            sections.append([])
        elif sections and re.match(r"^\s*- ", ln) and not re.match(r"^\s*-\s{2,}", ln):
            sections[-1].append(ln.strip())
        elif sections and ln.startswith("Recompiling function"):
            break
    return sections


@fact(
    "realcode: set_logs(recompiles_verbose=True), failed guards listed per section",
    SET_LOGS,
    show=lambda v: ", ".join(map(str, v)) or "no sections",
    outcomes=("one per section", "several per section", "no sections"),
)
def set_logs_failures_per_section(result: SnippetResult) -> Measured:
    sections = set_logs_failures(result)
    start = len(set_logs_halves(result)[0]) + 1
    evidence = tuple(line_of(result, ln, start) for sec in sections for ln in sec) or (line_of(result, _VERBOSE_FROM),)
    counts = tuple(len(sec) for sec in sections)
    if not counts:
        return Measured(counts, evidence, "no sections")
    if set(counts) == {1}:
        return Measured(counts, evidence, "one per section")
    if min(counts) > 1:
        return Measured(
            counts, evidence, "several per section", {"counts": Derived(counts, " and ".join(map(str, counts)))}
        )
    raise LookupError(f"sections listing {counts} failed guards")


def stance_results(result: SnippetResult) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in re.finditer(r"^(test_\w+): (PASSED|FAILED.*)$", result.stdout, re.M)}


def _outcome(text: str) -> str:
    m = re.match(r"FAILED, (\w+)", text)
    return f"FAILED ({m.group(1)})" if m else text.split(",")[0]


@fact(
    "realcode: a fail_on_recompile test (fixed batch size, batch marked dynamic)",
    STANCE_TEST,
    show=lambda v: v if isinstance(v, str) else f"{v[0]}, {v[1]}",
    outcomes=(
        "fixed failed, marked passed",
        "both passed",
        "with error_on_recompile: fixed failed, marked passed",
        "with error_on_recompile: both passed",
    ),
)
def stance_test(result: SnippetResult) -> Measured:
    """Both tests' verdicts, under set_stance or, where this torch lacks it (the run says so), under
    error_on_recompile: an outcome per way they combine with the fixed batch's test failing or not
    (the marked batch's test failing is not an outcome any text was written for)."""
    absent = "does not exist in this torch" in result.stdout
    r = stance_results(result)
    if set(r) != {"test_fixed_batch_size", "test_batch_marked_dynamic"}:
        raise LookupError(f"{result.path}: the tests' verdicts were not printed ({sorted(r)})")
    fixed, marked = r["test_fixed_batch_size"], r["test_batch_marked_dynamic"]
    value = (_outcome(fixed), _outcome(marked))
    evidence = (line_of(result, "test_fixed_batch_size: "), line_of(result, "test_batch_marked_dynamic: "))
    if absent:
        evidence = (line_of(result, "does not exist in this torch"), *evidence)
    prefix = "with error_on_recompile: " if absent else ""
    if marked != "PASSED":
        raise LookupError(f"test_batch_marked_dynamic: {marked}")
    if fixed == "PASSED":
        return Measured(value, evidence, prefix + "both passed")
    msg = fixed[len("FAILED, ") :]
    shown = re.split(r" in \S*site-packages/", msg)[0]  # not the path of the build's own environment
    return Measured(value, evidence, prefix + "fixed failed, marked passed", {"msg": Derived(msg, shorten(shown, 110))})


@fact("realcode: files written under TORCH_TRACE", TRACE, outcomes=("report built", "no trace file"))
def trace_files(result: SnippetResult) -> Measured:
    m = re.search(r"^trace files written: (\d+)", result.stdout, re.M)
    if not m:
        raise LookupError("the run printed no count")
    n = int(m.group(1))
    evidence = (line_of(result, "trace files written: "),)
    traced = any(name.startswith("trace/") for name in result.artifacts)
    if n == 0 and not traced:
        return Measured(n, evidence, "no trace file")
    if n and traced:
        report = links.report_path(result)
        return Measured(
            n,
            evidence,
            "report built",
            {
                "files": Derived(n, plural(n, "trace file")),
                "report": Derived(relative_link(PAGE_URL, report + "index.html")),
                "raw": Derived(relative_link(PAGE_URL, report + "raw.log")),
            },
        )
    raise LookupError(f"{n} trace files printed, {'a' if traced else 'no'} trace recorded")


# -- the course of a counting run: what each step after the first did -----------------------------
def step_course(result: SnippetResult) -> dict:
    """How `unique_graphs` moved over a run's printed steps, with the recompiles logged before each.

    Outcome words (the page's explain blocks are written for these):
    `one graph` (one graph, no recompile), `a recompile per step` (each later step added a graph and
    logged a recompile), `a graph per step, no recompile logged`, `settled after one recompile`
    (one recompile, then no growth), `reused after the first step` (no later step added a graph or
    logged a recompile, whatever the first step compiled), or None (none of these)."""
    s = attribute_to_steps(result.output, r"^(?P<label>.+?):?\s+unique_graphs=(?P<graphs>\d+)\s*$")
    if len(s) < 2:
        raise LookupError(f"{result.path}: fewer than two steps printed")
    first, later = s[0], s[1:]
    recompiles = [len(x["recompiles"]) for x in later]
    grew = [b["graphs"] > a["graphs"] for a, b in zip(s, later, strict=False)]
    outcome = None
    if s[-1]["graphs"] == 1 and not any(recompiles) and not first["recompiles"]:
        outcome = "one graph"
    elif not any(grew) and not any(recompiles):
        outcome = "reused after the first step"
    elif all(grew) and all(r == 1 for r in recompiles) and not limit_hit(result):
        outcome = "a recompile per step"
    elif all(grew) and not any(recompiles):
        outcome = "a graph per step, no recompile logged"
    else:
        k = next((i for i, g in enumerate(grew) if not g), len(grew))  # later steps that grew, from the start
        if 0 < k < len(grew) and not any(grew[k:]) and not any(recompiles[k:]):
            if all(r == 1 for r in recompiles[:k]):
                outcome = "settled after one recompile" if k == 1 else "settled after several recompiles"
        if (
            outcome is None
            and sum(recompiles) >= 2
            and all(g == bool(r) for g, r in zip(grew, recompiles, strict=True))
        ):
            outcome = "recompiled at several steps"  # each step that grew logged one recompile; others reused
    settled = s[next((i for i, g in enumerate(grew, 1) if not g), len(s) - 1)]["label"]
    reasons = first_reasons(result)
    return {
        "steps": s,
        "n": len(s),
        "first": first["graphs"],
        "final": s[-1]["graphs"],
        "recompiles": sum(recompiles),
        "reasons": reasons,
        "outcome": outcome,
        "settled": settled,
    }


_COURSES = (
    "one graph",
    "reused after the first step",
    "a recompile per step",
    "a graph per step, no recompile logged",
    "settled after one recompile",
    "settled after several recompiles",
    "recompiled at several steps",
)


def _course_fact(result: SnippetResult, absent: str = "") -> Measured:
    """A counting run's course as a fact: value (first step's graphs, last step's), the outcome, slots."""
    if absent and absent in result.stdout:
        return Measured("absent", (line_of(result, absent),), "absent")
    c = step_course(result)
    s = c["steps"]
    evidence = (line_of(result, s[0]["label"] + ":"), line_of(result, s[-1]["label"] + ":"))
    slots: dict[str, object] = {
        "n": Derived(c["n"]),
        "first": str(c["first"]),
        "firstg": Derived(c["first"], plural(c["first"], "graph")),
        "final": str(c["final"]),
        "fg": _graphs(c["final"]),
        "k": Derived(c["recompiles"], plural(c["recompiles"], "recompile")),
        "label": s[0]["label"],
        "last": s[-1]["label"],
        "settled": c["settled"],
    }
    if c["reasons"]:
        evidence += (_reason_ev(result, c["reasons"][0]),)
        slots["reason"] = Derived(c["reasons"][0], shorten(c["reasons"][0], 80))
    if c["outcome"] and c["outcome"].startswith("settled"):
        evidence += (line_of(result, c["settled"] + ":"),)
    if c["outcome"] == "recompiled at several steps":
        at = [x["label"] for x in s[1:] if x["recompiles"]]
        evidence += tuple(line_of(result, label + ":") for label in at)
        slots["when"] = Derived(at, " and ".join(f"`{label}`" for label in at))
        slots["reason2"] = Derived(c["reasons"][-1], shorten(c["reasons"][-1], 80))
        evidence += (_reason_ev(result, c["reasons"][-1]),)
    if c["outcome"] is None:
        raise LookupError(f"{result.path}: {c['final']} graphs, {c['recompiles']} recompiles over {c['n']} steps")
    return Measured((c["first"], c["final"]), evidence, c["outcome"], slots)


def _course_show(v) -> str:
    return v if isinstance(v, str) else (plural(v[1], "graph") if v[0] == v[1] else f"{v[0]} → {v[1]} graphs")


def course_fact(name: str, source: Run, absent: str = "") -> Fact:
    """A fact whose value and outcome are a counting run's course (`_course_fact`); with `absent`, the
    line the snippet prints where this torch lacks what it measures, the outcome `absent`."""
    return fact(name, source, show=_course_show, outcomes=(("absent",) if absent else ()) + _COURSES)(
        lambda result: _course_fact(result, absent=absent)
    )


@page_table
def course_table(*columns: tuple[str, SnippetResult]) -> str:
    """unique_graphs after each step, one column per run (the runs print the same step labels)."""
    runs = [(head, res, step_course(res)["steps"]) for head, res in columns]
    rows = []
    for i, st in enumerate(runs[0][2]):
        row = [st["label"]]
        for _, res, s in runs:
            row.append(str(s[i]["graphs"]) + markers_for([line_of(res, s[i]["label"] + ":")]) if i < len(s) else "—")
        rows.append(row)
    return table(["after", *(f"unique_graphs, {head}" for head, _, _ in runs)], rows, "-" + "r" * len(runs))


# -- a counter a module updates -----------------------------------------------------------------
COUNTER = run("realcode/module_counter.py", "recompiles")
COUNTER_BUFFER = run("realcode/module_counter_buffer.py", "recompiles")
COUNTER_UNSPEC = run("realcode/module_counter_unspec.py", "recompiles")
_UNSPEC_ABSENT = "allow_unspec_int_on_nn_module does not exist in this torch"


counter_graphs = course_fact("realcode: a module's int counter, graphs over 6 calls", COUNTER)


@fact(
    "realcode: a module's int counter, the recompile log's hint",
    COUNTER,
    outcomes=("names allow_unspec_int_on_nn_module", "no hint", "no recompile"),
)
def counter_hint(result: SnippetResult) -> Measured:
    headers = parse_recompiles(result.output)
    if not headers:
        return Measured("no recompile", (line_of(result, "step 1:"),), "no recompile")
    reason = headers[0].failures[0].reason if headers[0].failures else ""
    line = next((ln for ln in result.output.splitlines() if reason and reason in ln), "")
    hint = re.search(r"\(HINT: (.*)\)\s*$", line)
    if not hint:
        return Measured("no hint", (_reason_ev(result, reason),), "no hint")
    if "allow_unspec_int_on_nn_module" not in hint.group(1) or "tensor" not in hint.group(1):
        raise LookupError(f"a hint no text is written for: {hint.group(1)}")
    return Measured(
        "names allow_unspec_int_on_nn_module",
        (line_of(result, "(HINT: "),),
        "names allow_unspec_int_on_nn_module",
    )


@fact(
    "realcode: a module's counter after 6 compiled calls (int, buffer, allow_unspec_int_on_nn_module)",
    COUNTER,
    COUNTER_BUFFER,
    COUNTER_UNSPEC,
    show=lambda v: ", ".join(map(str, v)),
    outcomes=("counted every call", "missed calls"),
)
def counter_values(*results: SnippetResult) -> Measured:
    values, evidence = [], []
    for r in results:
        if _UNSPEC_ABSENT in r.stdout:
            values.append("absent")
            continue
        m = re.search(r"^model\.step after (\d+) calls: (-?\d+)$", r.stdout, re.M)
        if not m:
            raise LookupError(f"{r.path}: no counter value printed")
        values.append(m.group(2))
        evidence.append(line_of(r, "model.step after "))
        calls = m.group(1)
    counted = all(v == calls for v in values if v != "absent")
    return Measured(
        tuple(values),
        tuple(evidence),
        "counted every call" if counted else "missed calls",
        {"calls": Derived(int(calls)), "values": Derived(values, ", ".join(v for v in values if v != "absent"))},
    )


counter_buffer_graphs = course_fact(
    "realcode: a module's counter in a tensor buffer, graphs over 6 calls", COUNTER_BUFFER
)


counter_unspec_graphs = course_fact(
    "realcode: allow_unspec_int_on_nn_module, graphs over 6 calls", COUNTER_UNSPEC, absent=_UNSPEC_ABSENT
)


@page_table
def counter_table(fail: SnippetResult, buffer: SnippetResult, unspec: SnippetResult) -> str:
    columns = [("an int attribute", fail), ("a tensor buffer", buffer)]
    if _UNSPEC_ABSENT not in unspec.stdout:
        columns.append(("allow_unspec_int_on_nn_module", unspec))
    return course_table(*columns)


# -- hooks on identical layers, an object per layer -------------------------------------------------
HOOKS = run("realcode/layer_hooks.py", "recompiles")
INNER_HOOKS = run("realcode/inner_hooks.py", "recompiles")
PROCESSOR = run("realcode/per_layer_processor.py", "recompiles")
SHARED_PROCESSOR = run("realcode/shared_processor.py", "recompiles")


hooks_graphs = course_fact("realcode: 4 blocks, a pre-hook on each compiled block", HOOKS)


@fact(
    "realcode: 4 blocks, the pre-hook on the Linear inside each",
    INNER_HOOKS,
    HOOKS,
    show=_course_show,
    outcomes=("one graph, where the hook on each block recompiled nothing", *_COURSES),
)
def inner_hooks_graphs(inner: SnippetResult, on_block: SnippetResult) -> Measured:
    """The inner hook's course; one graph where the hook on each block logged no recompile either is
    its own outcome: the change then removed no recompile, it only merged graphs."""
    m = _course_fact(inner)
    before = _course_fact(on_block)
    if m.outcome == "one graph" and before.outcome in ("one graph", "reused after the first step"):
        s = step_course(on_block)["steps"]
        evidence = (*m.evidence, line_of(on_block, s[-1]["label"] + ":"))
        slots = {**m.slots, "before": Derived(s[-1]["graphs"], plural(s[-1]["graphs"], "graph"))}
        return Measured(m.value, evidence, "one graph, where the hook on each block recompiled nothing", slots)
    return m


processor_graphs = course_fact("realcode: 4 blocks, a processor object per layer", PROCESSOR)


@fact(
    "realcode: 4 blocks, one processor object shared",
    SHARED_PROCESSOR,
    PROCESSOR,
    show=_course_show,
    outcomes=("one graph, as with a processor per layer", *_COURSES),
)
def shared_processor_graphs(shared: SnippetResult, per_layer: SnippetResult) -> Measured:
    """The shared processor's course; one graph where the per-layer version had one too is its own
    outcome, since the change then removed nothing."""
    m = _course_fact(shared)
    if m.outcome == "one graph" and _course_fact(per_layer).outcome == "one graph":
        s = step_course(per_layer)["steps"]
        evidence = (*m.evidence, line_of(per_layer, s[-1]["label"] + ":"))
        return Measured(m.value, evidence, "one graph, as with a processor per layer", m.slots)
    return m


# -- no_grad, inference_mode, autocast ------------------------------------------------------------
MODES = run("realcode/inference_modes.py", "recompiles")


def _mode_step(result: SnippetResult, label: str) -> dict:
    for s in attribute_to_steps(result.output, r"^(?P<label>.+?)\s+unique_graphs=(?P<graphs>\d+)\s*$"):
        if s["label"] == label:
            return s
    raise LookupError(f"{result.path}: no step {label!r}")


def _mode_reason(result: SnippetResult, label: str, named: tuple[tuple[str, str], ...]) -> Measured:
    """The first failed guard logged for the call printed as `label`, by what it names."""
    s = _mode_step(result, label)
    step_ev = line_of(result, label + " ")
    if not s["recompiles"]:
        return Measured("no recompile", (step_ev,), "no recompile")
    reason = s["recompiles"][0].failures[0].reason.strip() if s["recompiles"][0].failures else ""
    # the reason logged for this call: searched from the step printed before it, since two calls can
    # fail guards whose lines share their first 80 characters (two dispatch key sets)
    lines = result.output.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith(label + " "))
    start = max((i for i, ln in enumerate(lines[:at]) if re.search(r"\sunique_graphs=\d+\s*$", ln)), default=0)
    evidence = (line_of(result, reason[:80], start), step_ev) if reason else (step_ev,)
    slots = {"reason": Derived(reason, reason)}
    for outcome, pattern in named:
        if re.search(pattern, reason):
            return Measured(reason, evidence, outcome, slots)
    raise LookupError(f"a reason no text is written for: {reason!r}")


@fact(
    "realcode: no_grad, then inference_mode: the first failed guard",
    MODES,
    show=lambda v: shorten(str(v), 60),
    outcomes=("dispatch key set", "grad mode", "global state check", "no recompile"),
)
def inference_reason(result: SnippetResult) -> Measured:
    return _mode_reason(
        result,
        "inference_mode",
        (
            ("dispatch key set", r"dispatch key set mismatch"),
            ("grad mode", r"grad_mode"),
            ("global state check", r"^___check_global_state\(\)$"),
        ),
    )


@fact(
    "realcode: then no_grad with autocast: the first failed guard",
    MODES,
    show=lambda v: shorten(str(v), 60),
    outcomes=("autocast named", "dispatch key set", "global state check", "no recompile"),
)
def autocast_reason(result: SnippetResult) -> Measured:
    return _mode_reason(
        result,
        "no_grad + autocast(bfloat16)",
        (
            ("dispatch key set", r"dispatch key set mismatch"),
            ("autocast named", r"autocast"),
            ("global state check", r"^___check_global_state\(\)$"),
        ),
    )


@fact(
    "realcode: no_grad and inference_mode again, graphs compiled",
    MODES,
    outcomes=("reused", "compiled again"),
)
def modes_again(result: SnippetResult) -> Measured:
    before = _mode_step(result, "no_grad + autocast(bfloat16)")
    after = _mode_step(result, "inference_mode again")
    again = [_mode_step(result, "no_grad again"), after]
    k = after["graphs"] - before["graphs"]
    evidence = (line_of(result, "no_grad + autocast(bfloat16) "), line_of(result, "inference_mode again "))
    logged = sum(len(s["recompiles"]) for s in again)
    slots = {"g": str(after["graphs"]), "k": Derived(k, plural(k, "graph"))}
    if k == 0 and not logged:
        return Measured(k, evidence, "reused", slots)
    return Measured(k, evidence, "compiled again", slots)


@page_table
def modes_table(result: SnippetResult) -> str:
    rows = []
    for s in attribute_to_steps(result.output, r"^(?P<label>.+?)\s+unique_graphs=(?P<graphs>\d+)\s*$"):
        reasons = [f.reason for r in s["recompiles"] for f in r.failures[:1]]
        rows.append(
            [
                code(s["label"]),
                str(s["graphs"]) + markers_for([line_of(result, s["label"] + " ")]),
                "<br>".join(code(r) for r in reasons) or "—",
            ]
        )
    return table(["the call under", "unique_graphs after it", "first failed guard logged"], rows, "-r-")


# -- the last batch, sequence lengths, a growing decode cache ---------------------------------------
LAST_BATCH = run("realcode/last_batch.py", "recompiles")
LAST_DROPPED = run("realcode/last_batch_dropped.py", "recompiles")
LAST_MARKED = run("realcode/last_batch_marked.py", "recompiles")
SEQ_LENGTHS = run("realcode/seq_lengths.py", "recompiles")
SEQ_BUCKETS = run("realcode/seq_buckets.py", "recompiles")
DECODE_GROWING = run("realcode/decode_growing.py", "recompiles")
DECODE_STATIC = run("realcode/decode_static.py", "recompiles")
LIMIT_FULLGRAPH = run("realcode/limit_fullgraph.py", "recompiles")
_STEP_LINE = r"^(?P<label>.+?):\s+unique_graphs=(?P<graphs>\d+)\s*$"


@fact(
    "realcode: 2 epochs with a short last batch, as written",
    LAST_BATCH,
    show=_course_show,
    outcomes=(
        "one recompile, at the first short batch",
        "no recompile",
        "recompiled again after the first short batch",
    ),
)
def last_batch_graphs(result: SnippetResult) -> Measured:
    s = attribute_to_steps(result.output, _STEP_LINE)
    at = [x for x in s if x["recompiles"]]
    evidence = (line_of(result, s[-1]["label"] + ":"),)
    slots: dict[str, object] = {"final": str(s[-1]["graphs"]), "fg": _graphs(s[-1]["graphs"])}
    value = (s[0]["graphs"], s[-1]["graphs"])
    if not at and s[-1]["graphs"] == s[0]["graphs"]:
        return Measured(value, evidence, "no recompile", slots)
    short = [
        x
        for x in s
        if re.search(r"rows=(\d+)", x["label"]).group(1) != re.search(r"rows=(\d+)", s[0]["label"]).group(1)
    ]
    if not short or not at:
        raise LookupError(f"{result.path}: {len(at)} recompiles, {len(short)} short batches")
    reason = at[0]["recompiles"][0].failures[0].reason if at[0]["recompiles"][0].failures else ""
    slots |= {"when": at[0]["label"], "reason": Derived(reason, shorten(reason, 80))}
    evidence += (line_of(result, at[0]["label"] + ":"),) + ((_reason_ev(result, reason),) if reason else ())
    if len(at) == 1 and at[0] is short[0] and s[-1]["graphs"] == at[0]["graphs"]:
        return Measured(value, evidence, "one recompile, at the first short batch", slots)
    slots["k"] = Derived(len(at), plural(len(at), "recompile"))
    return Measured(value, evidence, "recompiled again after the first short batch", slots)


last_dropped_graphs = course_fact("realcode: 2 epochs, drop_last=True", LAST_DROPPED)


last_marked_graphs = course_fact("realcode: 2 epochs, the batch marked dynamic", LAST_MARKED)


seq_lengths_graphs = course_fact("realcode: 6 sequence lengths, one per call", SEQ_LENGTHS)


@fact(
    "realcode: 6 sequence lengths, unpadded and padded to multiples of 8",
    SEQ_LENGTHS,
    SEQ_BUCKETS,
    show=_two("unpadded", "padded"),
    outcomes=("the same count", "fewer with padding", "more with padding"),
)
def seq_buckets_graphs(plain: SnippetResult, padded: SnippetResult) -> Measured:
    a, b = steps(plain.stdout), steps(padded.stdout)
    fa, fb = a[-1][1], b[-1][1]
    buckets = sorted({int(m) for m in re.findall(r"-> +(\d+):", padded.stdout)})
    cost = re.search(r"^token positions computed: (\d+) for (\d+) real tokens$", padded.stdout, re.M)
    if not cost:
        raise LookupError(f"{padded.path}: no token count printed")
    evidence = (_last_ev(plain), _last_ev(padded), line_of(padded, "token positions computed: "))
    slots = {
        "computed": cost.group(1),
        "real": cost.group(2),
        "a": str(fa),
        "b": str(fb),
        "ag": _graphs(fa),
        "bg": _graphs(fb),
        "buckets": Derived(buckets, " and ".join(map(str, buckets))),
        "nb": Derived(len(buckets)),
    }
    outcome = "the same count" if fa == fb else "fewer with padding" if fb < fa else "more with padding"
    return Measured((fa, fb), evidence, outcome, slots)


decode_growing_graphs = course_fact("realcode: 8 decode steps, a cache that grows", DECODE_GROWING)


decode_static_graphs = course_fact("realcode: 8 decode steps, a static cache", DECODE_STATIC)


@fact(
    "realcode: fullgraph=True past the recompile limit",
    LIMIT_FULLGRAPH,
    show=lambda v: v if isinstance(v, str) else f"{v[0]}",
    outcomes=("raised", "no error"),
)
def limit_fullgraph(result: SnippetResult) -> Measured:
    lowered = re.search(r"^lowered config\.(\w+) to (\d+)$", result.stdout, re.M)
    if not lowered:
        raise LookupError(f"{result.path}: no limit lowered")
    slots: dict[str, object] = {"name": lowered.group(1), "value": lowered.group(2)}
    raised = re.search(r"^(n=\d+): raised (\w+): (.*)$", result.stdout, re.M)
    if not raised:
        return Measured("no error", (line_of(result, "lowered config."), _last_ev(result)), "no error", slots)
    n_ok = len(re.findall(r"^n=\d+: unique_graphs=", result.stdout, re.M))
    slots |= {
        "call": raised.group(1),
        "error": raised.group(2),
        "msg": Derived(raised.group(3), shorten(raised.group(3), 100)),
        "ok": Derived(n_ok, plural(n_ok, "call")),
    }
    return Measured(
        (raised.group(2), raised.group(3)),
        (line_of(result, "lowered config."), line_of(result, raised.group(0))),
        "raised",
        slots,
    )


# -- a limit warning, line by line (dynamic/limits.py's run, read line by line) -------------------
LIMITS = run("dynamic/limits.py", "recompiles")
AFTER_LIMIT = run("releases/after_limit.py", "recompiles")
_HIT_LINE = re.compile(r"^torch\._dynamo hit config\.(\w+) \((\d+)\)$")
_LAST_REASON = re.compile(r"^last reason: (?:(\d+/\d+): )?(.*)$")
# the line each call prints: `rows=4   unique_graphs=2 served={...}` (dynamic/limits.py) or
# `new size, over the limit   graphs compiled=[...] ran=[...]` (releases/after_limit.py)
_CALL = re.compile(
    r"^(?P<label>rows=\d+(?: again)?|\S.*?)\s+(?:unique_graphs=(?P<graphs>\d+) served=|graphs compiled=)", re.M
)


@fact(
    "realcode: one optimizer per parameter, the limit raised to 16",
    PER_PARAM_RAISED,
    show=lambda v: f"{plural(v[0], 'graph')}, {plural(v[1], 'limit warning')}",
    outcomes=("a graph per optimizer, no warning", "warned all the same", "one graph"),
)
def per_param_raised(result: SnippetResult) -> Measured:
    """The 12 optimizers' steps with the limit raised: their graphs and the limit warnings printed."""
    s = steps(result.stdout)
    m = _LIMIT_RAISED.search(result.stdout)
    if len(s) != 12 or not m:
        raise LookupError(f"{result.path}: {len(s)} step lines, raised line {'found' if m else 'missing'}")
    graphs = [g for _, g in s]
    found = limit_warnings(result)
    evidence = (line_of(result, m.group(0)), line_of(result, s[0][0] + " "), line_of(result, s[-1][0] + " "))
    evidence += tuple(line_of(result, w["line"]) for w in found)
    slots = {"setting": m.group(1), "final": Derived(graphs[-1], plural(graphs[-1], "graph"))}
    slots["warnings"] = Derived(len(found), plural(len(found), "limit warning"))
    value = (graphs[-1], len(found))
    if found:
        outcome = "warned all the same"
    elif graphs == list(range(1, 13)):
        outcome = "a graph per optimizer, no warning"
    elif graphs == [1] * 12:
        outcome = "one graph"
    else:
        outcome = UNRECOGNISED
    return Measured(value, evidence, outcome, slots)


def limit_warnings(result: SnippetResult) -> list[dict]:
    """Every limit warning a run printed, in order: its line index in the output, its lines as printed
    (stripped), the `function:` and `last reason:` lines, the hint lines after them (`To ...`), the
    `Recompiling function` block printed before it, and the step line printed after it."""
    lines = result.output.splitlines()
    out = []
    for i, line in enumerate(lines):
        hit = _HIT_LINE.match(line.strip())
        if not hit:
            continue
        rest = [ln.strip() for ln in lines[i + 1 : i + 3]]
        function = rest[0] if len(rest) > 0 and rest[0].startswith("function: ") else None
        reason = rest[1] if len(rest) > 1 and rest[1].startswith("last reason: ") else None
        hints = []
        for ln in lines[i + 3 :]:
            if not ln.strip().startswith("To "):
                break
            hints.append(ln.strip())
        before = parse_recompiles("\n".join(lines[:i]))
        after = _CALL.search("\n".join(lines[i + 1 :]))
        out.append(
            {
                "at": i,
                "hit": hit,
                "line": line.strip(),
                "function": function,
                "reason": reason,
                "hints": hints,
                "block": before[-1] if before else None,
                "step": after.group("label").strip() if after else None,
            }
        )
    return out


def _lowered_to(result: SnippetResult) -> tuple[str, str]:
    m = re.search(r"^lowered config\.(\w+) to (\d+)$", result.stdout, re.M)
    if not m:
        raise LookupError(f"{result.path}: no limit lowered")
    return m.group(1), m.group(2)


def _the_warning(result: SnippetResult) -> dict:
    found = limit_warnings(result)
    if len(found) != 1:
        raise LookupError(f"{result.path}: {len(found)} limit warnings")
    w = found[0]
    if not (w["function"] and w["reason"]):
        raise LookupError(f"{result.path}: a limit warning without its function: or last reason: line")
    return w


@fact(
    "realcode: the limit warning, its first line",
    LIMITS,
    outcomes=("cache_size_limit", "recompile_limit"),
)
def warning_first_line(result: SnippetResult) -> Measured:
    """Which limit the warning names, and with what value: the name and value the snippet lowered."""
    w = _the_warning(result)
    name, value = w["hit"].group(1), w["hit"].group(2)
    lowered, to = _lowered_to(result)
    if (name, value) != (lowered, to) or name not in ("cache_size_limit", "recompile_limit"):
        raise LookupError(f"{result.path}: the warning names {name} ({value}); the snippet lowered {lowered} to {to}")
    evidence = (line_of(result, w["line"]), line_of(result, f"lowered config.{lowered} to"))
    return Measured(f"{name} ({value})", evidence, name, {"line": w["line"], "name": name, "value": value})


@fact(
    "realcode: the limit warning, its function: line",
    LIMITS,
    outcomes=("the function and place of the recompile log",),
)
def warning_function_line(result: SnippetResult) -> Measured:
    """The function and file:line the warning names, against the `Recompiling function` line before it."""
    w = _the_warning(result)
    m = re.fullmatch(r"function: '(\w+)' \((.+)\)", w["function"])
    block = w["block"]
    if not m or block is None:
        raise LookupError(f"{result.path}: {w['function']!r}, and no recompile logged before it")
    head = f"Recompiling function {block.function} in {block.where}"
    evidence = (line_of(result, w["function"], w["at"]), line_of(result, head))
    slots = {"line": w["function"], "function": m.group(1), "where": m.group(2), "head": head}
    if (m.group(1), m.group(2)) != (block.function, block.where):
        raise LookupError(f"{result.path}: the warning names {m.group(1)} at {m.group(2)}; the log, {head}")
    return Measured(w["function"], evidence, "the function and place of the recompile log", slots)


def _entry_sizes(result: SnippetResult) -> dict[int, int]:
    """rows -> the count of graphs once the call with that many rows first compiled one (its entry's age)."""
    out, prev = {}, 0
    for call in _CALL.finditer(result.stdout):
        rows, graphs = re.match(r"rows=(\d+)", call["label"]), int(call["graphs"] or 0)
        if rows and graphs > prev:
            out.setdefault(int(rows.group(1)), graphs)
        prev = graphs
    return out


@fact(
    "realcode: the limit warning, its last reason: line",
    LIMITS,
    outcomes=("the newest entry's failure", "the oldest entry's failure"),
)
def warning_last_reason(result: SnippetResult) -> Measured:
    """Which failure of the `Recompiling function` block printed just before the warning its `last reason:`
    quotes: the one of the entry compiled last, or first (an entry's age read from the step at which the
    graph count grew for its size, the size read from the failure's `expected N`)."""
    w = _the_warning(result)
    m = _LAST_REASON.match(w["reason"])
    block = w["block"]
    if not m or block is None or len(block.failures) < 2:
        raise LookupError(f"{result.path}: no recompile block of several entries before the warning")
    quoted = m.group(2)
    index = next(
        (i for i, f in enumerate(block.failures) if f.reason == quoted and f.entry == (m.group(1) or "")), None
    )
    if index is None:
        raise LookupError(f"{result.path}: the last reason {quoted!r} is none of the block's failures")
    ages = _entry_sizes(result)
    sizes = [re.search(r"expected (\d+), actual", f.reason) for f in block.failures]
    if not all(sizes) or any(int(s.group(1)) not in ages for s in sizes):
        raise LookupError(f"{result.path}: failures whose entries the steps do not date")
    age = [ages[int(s.group(1))] for s in sizes]
    size = int(sizes[index].group(1))
    if age[index] == max(age):
        outcome = "the newest entry's failure"
    elif age[index] == min(age):
        outcome = "the oldest entry's failure"
    else:
        raise LookupError(f"{result.path}: the last reason quotes an entry neither newest nor oldest")
    failure_lines = [f"{f.entry}: {f.reason}" if f.entry else f.reason for f in block.failures]
    compiled = f"rows={size} "
    evidence = (
        line_of(result, w["reason"], w["at"]),
        *(line_of(result, "- " + ln) for ln in failure_lines),
        line_of(result, compiled),
        *((line_of(result, w["step"] + " "),) if w["step"] else ()),
    )
    pos = "first" if index == 0 else "last" if index == len(block.failures) - 1 else f"number {index + 1}"
    slots = {
        "reason": quoted,
        "size": str(size),
        "pos": Derived(pos),
        "n": Derived(len(block.failures)),
        "call": w["step"] or "",
    }
    return Measured(quoted, evidence, outcome, slots)


@fact(
    "realcode: the limit warning, the compile id in its last reason",
    LIMITS,
    outcomes=("with a compile id", "without a compile id"),
)
def warning_reason_id(result: SnippetResult) -> Measured:
    """Whether the `last reason:` line starts with a compile id (`0/1: `), as the block's failures do or not."""
    w = _the_warning(result)
    m = _LAST_REASON.match(w["reason"])
    block = w["block"]
    if not m or block is None or not block.failures:
        raise LookupError(f"{result.path}: no recompile block before the warning")
    ids = [f.entry for f in block.failures]
    evidence = (line_of(result, w["reason"], w["at"]),)
    if m.group(1):
        if m.group(1) not in ids:
            raise LookupError(f"{result.path}: the id {m.group(1)} is none of the block's")
        failure = next(f for f in block.failures if f.entry == m.group(1))
        evidence += (line_of(result, f"- {failure.entry}: {failure.reason}"),)
        return Measured(m.group(1), evidence, "with a compile id", {"id": m.group(1)})
    if any(ids):
        raise LookupError(f"{result.path}: the block's failures carry ids, the last reason none")
    same = next((f for f in block.failures if f.reason == m.group(2)), None)
    if same is None:
        raise LookupError(f"{result.path}: the last reason is none of the block's failures")
    evidence += (line_of(result, "- " + same.reason),)
    return Measured("none", evidence, "without a compile id", {})


@fact(
    "realcode: the limit warning, the lines after it",
    LIMITS,
    outcomes=("a log hint and a link",),
)
def warning_hints(result: SnippetResult) -> Measured:
    """The `To ...` lines the warning ends with: the TORCH_LOGS hint and the address it points to."""
    w = _the_warning(result)
    hints = w["hints"]
    log = next((h for h in hints if h.startswith("To log all recompilation reasons")), None)
    diag = next((h for h in hints if h.startswith("To diagnose recompilation issues, see ")), None)
    if len(hints) != 2 or not log or not diag:
        raise LookupError(f"{result.path}: the warning ends with {hints!r}")
    url = diag.removeprefix("To diagnose recompilation issues, see ").rstrip(".")
    evidence = (line_of(result, log, w["at"]), line_of(result, diag, w["at"]))
    return Measured(url, evidence, "a log hint and a link", {"log": log, "url": url})


@fact(
    "realcode: the functions the limit warnings name past the limit",
    AFTER_LIMIT,
    show=lambda v: ", ".join(v),
    outcomes=("the compiled function only", "the compiled function, then the function it calls"),
)
def warnings_after_limit(result: SnippetResult) -> Measured:
    """releases/after_limit.py: which functions the run's limit warnings name, in order, and the step each
    one was printed before (the call that printed it)."""
    found = limit_warnings(result)
    names = [re.fullmatch(r"function: '(\w+)' \(.+\)", w["function"] or "") for w in found]
    if not found or not all(names):
        raise LookupError(f"{result.path}: {len(found)} limit warnings, not all naming a function")
    functions = [n.group(1) for n in names]
    evidence = tuple(line_of(result, w["function"], w["at"]) for w in found) + tuple(
        line_of(result, w["step"]) for w in found if w["step"]
    )
    slots: dict[str, object] = {"first": functions[0], "call": found[0]["step"] or ""}
    if functions == ["double_plus_one"]:
        return Measured(functions, evidence, "the compiled function only", slots)
    if functions == ["double_plus_one", "add_one"]:
        slots |= {"second": functions[1], "second_call": found[1]["step"] or ""}
        return Measured(functions, evidence, "the compiled function, then the function it calls", slots)
    raise LookupError(f"{result.path}: warnings for {', '.join(functions)}")
