"""Render code for lesson 5, "Recompiles in real code" (docs/realcode.md).

Each case compares a failing pattern with its fix, both measured. Measure → fact → sentence, as in
guards.py: each `@fact` reads the recorded runs and returns what it measured with the output lines
it rests on; the render functions turn facts into claims that carry that evidence.
"""

from __future__ import annotations

import re

from .. import tlparse
from ..claims import Derived, Measured, claim, fact, line_of, markers_for, run
from ..parse.recompiles import attribute_to_steps, parse_recompiles
from ..record import SnippetResult
from ..report import relative_link
from .common import STEP_RE, across, code, plural, shorten, steps, table  # noqa: F401  (across: for the page)

LR_FLOAT = run("realcode/lr_float.py", "recompiles")
LR_TENSOR = run("realcode/lr_tensor.py", "recompiles")
TRAIN_EVAL = run("realcode/train_eval.py", "recompiles")
TRAIN_EVAL_WARM = run("realcode/train_eval_warm.py", "recompiles")
LAYER_IDX = run("realcode/layer_idx.py", "recompiles")
LAYER_BUFFER = run("realcode/layer_idx_buffer.py", "recompiles")
GUARD_OVERHEAD = run("realcode/guard_overhead.py", "guards")
STANCE_TEST = run("realcode/stance_test.py")
TRACE = run("realcode/trace.py", TORCH_TRACE="trace")

_LIMIT = re.compile(r"hit config\.(\w+) \((\d+)\)")


def _word(n: int, word: str, many: str | None = None) -> Derived:
    return Derived(word if n == 1 else (many or word + "s"))


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


def _limit_fact(result: SnippetResult) -> Measured:
    hit = limit_hit(result)
    if not hit:
        return Measured("not hit", (_last_ev(result),))
    return Measured(f"{hit[0]} ({hit[1]})", (line_of(result, f"hit config.{hit[0]}"),))


def _limit_claim(result: SnippetResult, what: str) -> str:
    limit = _limit_fact(result)
    if limit.value == "not hit":
        return ""
    name, value = limit_hit(result)
    graphs = steps(result.stdout)
    stopped = len({n for _, n in graphs[-2:]}) == 1
    last_hit = (
        len(first_reasons(result)) == graphs[-1][1]
    )  # one recompile logged more than the graphs compiled after the first
    return claim(
        ("The last of them hit {q_name} ({n}) instead of compiling" if last_hit else "It hit {q_name} ({n})")
        + " (the warning in the output)"
        + (
            ", and `unique_graphs` stayed at {final} for the remaining " + what + ": they ran without compiling."
            if stopped
            else "."
        ),
        q_name=name,
        n=value,
        final=graphs[-1][1] if stopped else None,
        evidence=list(limit.evidence) + ([_last_ev(result)] if stopped else []),
    ).markdown()


def _until_limit(result: SnippetResult, what: str) -> str:
    """Each new value logged a recompile until the limit."""
    k = len(first_reasons(result))
    return claim(
        "In all, {k} recompiles were logged, one per new " + what + " until the limit.",
        k=Derived(k),
        evidence=[line_of(result, "Recompiling function "), _last_ev(result)],
    ).markdown()


def _two(a: str, b: str):
    return lambda v: f"{a} {v[0]}, {b} {v[1]}"


# -- learning-rate schedules --------------------------------------------------------------------
@fact(
    "realcode: graphs over 10 epochs (lr as a float, lr in a tensor)", LR_FLOAT, LR_TENSOR, show=_two("float", "tensor")
)
def lr_graphs(floats: SnippetResult, tensors: SnippetResult) -> Measured:
    return Measured((_final(floats), _final(tensors)), (_last_ev(floats), _last_ev(tensors)))


@fact("realcode: lr as a float, the first recompile's reason", LR_FLOAT, show=lambda v: shorten(v, 60))
def lr_reason(floats: SnippetResult) -> Measured:
    reason = first_reasons(floats)[0]
    return Measured(reason, (_reason_ev(floats, reason),))


@fact("realcode: lr as a float, recompile limit", LR_FLOAT)
def lr_limit(floats: SnippetResult) -> Measured:
    return _limit_fact(floats)


def lr_table(floats: SnippetResult, tensors: SnippetResult) -> str:
    a, b = steps(floats.stdout), steps(tensors.stdout)
    rows = [
        [la, str(ga) + markers_for([line_of(floats, la + " ")]), str(gb) + markers_for([line_of(tensors, la + " ")])]
        for (la, ga), (_, gb) in zip(a, b, strict=False)
    ]
    return table(["epoch", "unique_graphs, lr as a float", "unique_graphs, lr in a tensor"], rows, "-rr")


def lr_claim(floats: SnippetResult, tensors: SnippetResult) -> str:
    """The last epoch's counts of both versions, as a claim resting on the lines they printed."""
    g = lr_graphs(floats, tensors)
    return claim(
        "After the last epoch, `unique_graphs` was {f} with the float and {t} with the tensor.",
        f=g.value[0],
        t=g.value[1],
        evidence=list(g.evidence),
    ).markdown()


def lr_summary(floats: SnippetResult, tensors: SnippetResult) -> str:
    epochs = steps(floats.stdout)
    n = len(epochs)
    g = lr_graphs(floats, tensors)
    f_graphs, t_graphs = g.value
    reasons = first_reasons(floats)
    reason = lr_reason(floats) if reasons else None
    text = [
        claim(
            "Over {n} epochs, the float version compiled {f} {g}"
            + (
                "; the first recompile failed on {q_reason}: the learning rate was guarded as a constant"
                if reason
                else ""
            )
            + ".",
            n=Derived(n),
            f=f_graphs,
            g=_word(f_graphs, "graph"),
            q_reason=Derived(reason.value, shorten(reason.value, 80)) if reason else None,
            evidence=[g.evidence[0]] + (list(reason.evidence) if reason else []),
        ).markdown()
    ]
    hit = limit_hit(floats)
    if 1 < f_graphs < n and not hit:
        settled = next(label for label, graphs in epochs if graphs == f_graphs)
        text.append(
            claim(
                "Then it stopped recompiling: `unique_graphs` stayed at {f} from {q_epoch} on, so every later value reused "
                "the entry compiled there: its guards no longer pinned the float's value (the automatic dynamism "
                "[lesson 4](../dynamic/#scalars) shows for scalars).",
                f=f_graphs,
                q_epoch=settled,
                evidence=[line_of(floats, settled + " "), g.evidence[0]],
            ).markdown()
        )
    elif f_graphs >= n:
        text.append(
            claim(
                "Every new value was a new entry: this torch kept specializing on the float.", evidence=[g.evidence[0]]
            ).markdown()
        )
    elif hit:
        text.append(_until_limit(floats, "value"))
        text.append(_limit_claim(floats, "epochs"))
    text.append(
        claim(
            "The tensor version compiled {t} {g} for the same {n} learning rates"
            + (": a value inside a tensor is data, and no guard reads it." if t_graphs == 1 else " on this torch."),
            t=t_graphs,
            g=_word(t_graphs, "graph"),
            n=Derived(n),
            evidence=[g.evidence[1]],
        ).markdown()
    )
    return " ".join(t for t in text if t)


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
)
def train_eval_graphs(loop: SnippetResult, warm: SnippetResult) -> Measured:
    a, b = phase_steps(loop), phase_steps(warm)
    return Measured(
        (a[-1]["graphs"], b[-1]["graphs"]), (_phase_ev(loop, a[-1]["label"]), _phase_ev(warm, b[-1]["label"]))
    )


@fact("realcode: train/validate, the recompile's reason", TRAIN_EVAL, show=lambda v: shorten(v, 60) or "none logged")
def train_eval_reason(loop: SnippetResult) -> Measured:
    first = next((s for s in phase_steps(loop) if s["reasons"]), None)
    if first is None:
        return Measured("", (_phase_ev(loop, phase_steps(loop)[-1]["label"]),))
    return Measured(first["reasons"][0], (_reason_ev(loop, first["reasons"][0]), _phase_ev(loop, first["label"])))


@fact("realcode: train/validate warmed up, graphs compiled inside the loop", TRAIN_EVAL_WARM)
def warm_loop_compiles(warm: SnippetResult) -> Measured:
    b = phase_steps(warm)
    return Measured(b[-1]["graphs"] - b[0]["graphs"], (_phase_ev(warm, b[0]["label"]), _phase_ev(warm, b[-1]["label"])))


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
    return table(["loop", "after", "unique_graphs", "recompile reason logged"], rows, "--r-")


def train_eval_summary(loop: SnippetResult, warm: SnippetResult) -> str:
    a, b = phase_steps(loop), phase_steps(warm)
    if not a or not b:
        return "The runs printed no phases on this torch; see their output."
    graphs = train_eval_graphs(loop, warm)
    reason = train_eval_reason(loop)
    first = next((s for s in a if s["reasons"]), None)
    text = [
        claim(
            "The loop ended with {n} {g}"
            + (
                "; the second compiled at {q_when}, in the middle of training, and the log names the first guard it failed: "
                "{q_reason}"
                if first
                else ""
            )
            + ".",
            n=graphs.value[0],
            g=_word(graphs.value[0], "graph"),
            q_when=first["label"] if first else None,
            q_reason=Derived(reason.value, shorten(reason.value, 80)) if first else None,
            evidence=[graphs.evidence[0]] + (list(reason.evidence) if first else []),
        ).markdown()
    ]
    if first and "grad_mode" in reason.value:
        text.append(
            claim(
                "It names grad mode: `torch.no_grad()` around validation is enough to need a second entry, "
                "whatever `eval()` does to the modules.",
                evidence=list(reason.evidence),
            ).markdown()
        )
    elif first and "global_state" in reason.value.lower():
        text.append(
            claim(
                "That guard checks torch's global state, which `torch.no_grad()` around validation changes; this "
                "log names no other failed guard for that recompile.",
                evidence=list(reason.evidence),
            ).markdown()
        )
    grew = [s for s in a if s["graphs"] > a[0]["graphs"]]
    if grew and a[-1]["graphs"] == grew[0]["graphs"] and len(grew) > 1:
        text.append(
            claim(
                "After that, toggling back and forth reused the two entries: one per mode, not one per toggle.",
                evidence=[_phase_ev(loop, grew[0]["label"]), graphs.evidence[0]],
            ).markdown()
        )
    inside = warm_loop_compiles(warm)
    text.append(
        claim(
            "With both modes compiled before the loop ({w} {g} at warm-up), "
            + (
                "the loop itself compiled nothing."
                if inside.value == 0
                else "the loop still compiled on this torch; see the table."
            ),
            w=b[0]["graphs"],
            g=_word(b[0]["graphs"], "graph"),
            evidence=list(inside.evidence),
        ).markdown()
    )
    return " ".join(text)


# -- per-layer attributes and regional compilation ----------------------------------------------
@fact(
    "realcode: graphs for 12 blocks (layer_idx read in forward, a buffer)",
    LAYER_IDX,
    LAYER_BUFFER,
    show=_two("layer_idx", "buffer"),
)
def layer_graphs(fail: SnippetResult, fix: SnippetResult) -> Measured:
    return Measured((_final(fail), _final(fix)), (_last_ev(fail), _last_ev(fix)))


@fact("realcode: layer_idx, the first recompile's reason", LAYER_IDX, show=lambda v: shorten(v, 60) or "none logged")
def layer_reason(fail: SnippetResult) -> Measured:
    reasons = first_reasons(fail)
    if not reasons:
        return Measured("", (_last_ev(fail),))
    return Measured(reasons[0], (_reason_ev(fail, reasons[0]),))


@fact("realcode: layer_idx, recompile limit", LAYER_IDX)
def layer_limit(fail: SnippetResult) -> Measured:
    return _limit_fact(fail)


def layer_table(fail: SnippetResult, fix: SnippetResult) -> str:
    a, b = steps(fail.stdout), steps(fix.stdout)
    rows = [
        [la, str(ga) + markers_for([line_of(fail, la + " ")]), str(gb) + markers_for([line_of(fix, la + " ")])]
        for (la, ga), (_, gb) in zip(a, b, strict=False)
    ]
    return table(["block", "unique_graphs, layer_idx read in forward", "unique_graphs, a buffer"], rows, "-rr")


def layer_summary(fail: SnippetResult, fix: SnippetResult) -> str:
    blocks = steps(fail.stdout)
    n = len(blocks)
    g = layer_graphs(fail, fix)
    f_graphs, b_graphs = g.value
    reasons = first_reasons(fail)
    reason = layer_reason(fail)
    text = [
        claim(
            "Compiled block by block, the {n} blocks that read `layer_idx` made {f} {g}"
            + ("; the first recompile failed on {q_reason}" if reason.value else "")
            + ".",
            n=Derived(n),
            f=f_graphs,
            g=_word(f_graphs, "graph"),
            q_reason=Derived(reason.value, shorten(reason.value, 70)) if reason.value else None,
            evidence=[g.evidence[0]] + (list(reason.evidence) if reason.value else []),
        ).markdown()
    ]
    if len(reasons) >= 2 and f_graphs >= min(n, 3):
        text.append(
            claim(
                "The next failed on {q_b}: each block's index is guarded by value, so every new block needs "
                "an entry of its own.",
                q_b=Derived(reasons[1], shorten(reasons[1], 70)),
                evidence=[_reason_ev(fail, reasons[1])],
            ).markdown()
        )
        text.append(_until_limit(fail, "block") if limit_hit(fail) else "")
        text.append(_limit_claim(fail, "blocks"))
    elif len(reasons) == 1 and f_graphs < n:
        text.append(
            claim(
                "After that one recompile, the later blocks reused the second entry, whatever their index: its guards no "
                "longer pinned the integer's value.",
                evidence=[line_of(fail, blocks[1][0] + " "), g.evidence[0]],
            ).markdown()
        )
    elif not reasons and f_graphs == n:
        text.append(
            claim(
                "No recompile was logged, yet every block added a graph: on this torch, each compiled block got an entry "
                "of its own, whatever it reads.",
                evidence=[line_of(fail, blocks[1][0] + " "), g.evidence[0]],
            ).markdown()
        )
    if b_graphs == 1:
        tail = ": the buffer is a tensor input, so every block passes the same guards."
    elif b_graphs >= n:
        tail = ": on this torch the buffer did not help, and each block still compiled a graph of its own."
    else:
        tail = "."
    text.append(
        claim(
            "With the per-layer number in a buffer, the same {n} blocks made {b} {g}" + tail,
            n=Derived(n),
            b=b_graphs,
            g=_word(b_graphs, "graph"),
            evidence=[g.evidence[1]],
        ).markdown()
    )
    return " ".join(t for t in text if t)


def layer_warning(fail: SnippetResult) -> str:
    lines = [ln for ln in fail.output.splitlines() if "hit config." in ln or "last reason" in ln]
    if not lines:
        return ""
    return (
        "The warning from the run of `layer_idx.py`, as torch printed it:\n\n```text\n" + "\n".join(lines) + "\n```\n"
    )


# -- guard overhead -----------------------------------------------------------------------------
def guard_overhead(result: SnippetResult) -> dict:
    out = result.stdout
    times = {m.group(1): float(m.group(2)) for m in re.finditer(r"^(.+?): ([\d.]+) us per call$", out, re.M)}
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
)
def guard_filter(result: SnippetResult) -> Measured:
    g = guard_overhead(result)
    if not g["available"]:
        return Measured("absent", (line_of(result, "does not exist in this torch"),))
    if g["offered"] is None:
        raise LookupError("the filter printed nothing")
    return Measured((g["offered"], g["kept"]), (line_of(result, "guard_filter_fn: "),))


@fact("realcode: the guards log's Guard eval latency line", GUARD_OVERHEAD)
def latency_line(result: SnippetResult) -> Measured:
    lines = [ln for ln in result.output.splitlines() if "Guard eval latency" in ln]
    if not lines:
        return Measured("absent", (line_of(result, "compiled, every guard: "),))
    return Measured("present", tuple(line_of(result, ln.strip()) for ln in lines[:1]))


def guard_overhead_table(result: SnippetResult) -> str:
    g = guard_overhead(result)
    rows = [[label, f"{us:.1f}" + markers_for([line_of(result, f"{label}: ")])] for label, us in g["times"].items()]
    return table(["model", "median µs per call (this build's machine)"], rows, "-r")


def guard_overhead_summary(result: SnippetResult) -> str:
    g = guard_overhead(result)
    text = []
    lat = latency_line(result)
    lat_lines = [ln.strip() for ln in result.output.splitlines() if "Guard eval latency" in ln]
    if lat.value == "present":
        text.append(
            claim(
                "`TORCH_LOGS=guards` ends each dump with a *Guard eval latency* line: a time torch measured for "
                "evaluating that entry's guards, when it built them. Here: {lat}.",
                lat=Derived(g["latencies"], ", then ".join(f"{v} {u}" for v, u in g["latencies"])),
                evidence=[line_of(result, ln) for ln in lat_lines],
            ).markdown()
        )
        compiled = g["times"].get("compiled, every guard")
        first_v, first_u = g["latencies"][0] if g["latencies"] else (None, None)
        if compiled is not None and first_u == "us" and float(first_v) > compiled:
            text.append(
                claim(
                    "The first figure ({q_first} us) is larger than a whole call of the compiled model ({t} µs, the "
                    "median in the table), so it is not what each call pays for its guards: the table's rows compare "
                    "that.",
                    q_first=first_v,
                    t=f"{compiled:.1f}",
                    evidence=[line_of(result, lat_lines[0]), line_of(result, "compiled, every guard: ")],
                ).markdown()
            )
    else:
        text.append(
            claim("This torch's guard dump has no *Guard eval latency* line.", evidence=list(lat.evidence)).markdown()
        )
    filt = guard_filter(result)
    if filt.value == "absent":
        text.append(
            claim(
                "`torch.compiler.skip_guard_on_all_nn_modules_unsafe` does not exist in this torch, so the "
                "filtered model was not compiled.",
                evidence=list(filt.evidence),
            ).markdown()
        )
    else:
        offered, kept = filt.value
        text.append(
            claim(
                "The filter was offered {offered} guards and kept {kept}: the helper dropped every guard whose source is inside "
                "a module (parameters, attributes), and the compiled model no longer re-checks those on each call. That is the "
                "unsafe part: change such an attribute after compiling, and the compiled code will not notice.",
                offered=offered,
                kept=kept,
                evidence=list(filt.evidence),
            ).markdown()
        )
    return " ".join(text)


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


@fact("realcode: set_logs(recompiles=True), recompiles logged", SET_LOGS)
def set_logs_recompiles(result: SnippetResult) -> Measured:
    before, _ = set_logs_halves(result)
    headers = [ln for ln in before if ln.startswith("Recompiling function")]
    evidence = tuple(line_of(result, ln) for ln in headers[:1]) or (line_of(result, _VERBOSE_FROM),)
    return Measured(len(headers), evidence)


@fact("realcode: set_logs(recompiles_verbose=True), sections per cache entry", SET_LOGS)
def set_logs_sections(result: SnippetResult) -> Measured:
    before, after = set_logs_halves(result)
    sections = [ln.strip() for ln in after if _SECTION.match(ln)]
    start = len(before) + 1
    evidence = tuple(line_of(result, ln, start) for ln in sections) or (line_of(result, _VERBOSE_FROM),)
    return Measured(len(sections), evidence)


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
)
def set_logs_failures_per_section(result: SnippetResult) -> Measured:
    sections = set_logs_failures(result)
    start = len(set_logs_halves(result)[0]) + 1
    evidence = tuple(line_of(result, ln, start) for sec in sections for ln in sec) or (line_of(result, _VERBOSE_FROM),)
    return Measured(tuple(len(sec) for sec in sections), evidence)


def set_logs_summary(result: SnippetResult) -> str:
    """What each channel printed in the output above (set_logs turned them on from the snippet's code)."""
    plain, sections = set_logs_recompiles(result), set_logs_sections(result)
    n = plain.value
    text = [
        claim(
            "With `recompiles=True`, the first dtype change logged {n}.",
            n=Derived(n, plural(n, "recompile")),
            evidence=plain.evidence,
        ).markdown()
        if n
        else claim("`recompiles=True` logged no recompile on this torch.", evidence=plain.evidence).markdown()
    ]
    if sections.value:
        per = set_logs_failures_per_section(result)
        counts = sorted(set(per.value))
        listed = (
            f"each listing {plural(counts[0], 'failed guard')}"
            if len(counts) == 1
            else "listing " + ", ".join(map(str, per.value)) + " failed guards"
        )
        text.append(
            claim(
                "With `recompiles_verbose=True`, the next call (a new dtype, a new shape and a new `eps` at once) "
                "logged one section per cache entry it was checked against ({k} here), {listed}.",
                k=Derived(sections.value, str(sections.value)),
                listed=Derived(per.value, listed),
                evidence=list(sections.evidence) + [e for e in per.evidence if e not in sections.evidence],
            ).markdown()
        )
    else:
        text.append(
            claim(
                "`recompiles_verbose=True` printed no per-entry sections on this torch: the output above shows "
                "what it logged after the switch.",
                evidence=sections.evidence,
            ).markdown()
        )
    return " ".join(text)


def stance_results(result: SnippetResult) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in re.finditer(r"^(test_\w+): (PASSED|FAILED.*)$", result.stdout, re.M)}


def _outcome(text: str) -> str:
    m = re.match(r"FAILED, (\w+)", text)
    return f"FAILED ({m.group(1)})" if m else text.split(",")[0]


@fact(
    "realcode: a fail_on_recompile test (fixed batch size, batch marked dynamic)",
    STANCE_TEST,
    show=lambda v: v if isinstance(v, str) else f"{v[0]}, {v[1]}",
)
def stance_test(result: SnippetResult) -> Measured:
    if "does not exist in this torch" in result.stdout:
        return Measured("set_stance absent", (line_of(result, "does not exist in this torch"),))
    r = stance_results(result)
    return Measured(
        (_outcome(r["test_fixed_batch_size"]), _outcome(r["test_batch_marked_dynamic"])),
        (line_of(result, "test_fixed_batch_size: "), line_of(result, "test_batch_marked_dynamic: ")),
    )


def stance_summary(result: SnippetResult) -> str:
    verdict = stance_test(result)
    if verdict.value == "set_stance absent":
        return claim(
            "`torch.compiler.set_stance` does not exist in this torch: this kind of test needs a newer release.",
            evidence=list(verdict.evidence),
        ).markdown()
    r = stance_results(result)
    fixed, marked = r.get("test_fixed_batch_size", ""), r.get("test_batch_marked_dynamic", "")
    text = []
    if fixed.startswith("FAILED"):
        text.append(
            claim(
                "`test_fixed_batch_size` failed, as a test should when its code recompiles: {q_msg}.",
                q_msg=Derived(fixed, shorten(fixed[len("FAILED, ") :], 110)),
                evidence=[verdict.evidence[0]],
            ).markdown()
        )
    elif fixed:
        text.append(
            claim(
                "`test_fixed_batch_size` passed on this torch: the short batch did not recompile.",
                evidence=[verdict.evidence[0]],
            ).markdown()
        )
    if marked == "PASSED":
        text.append(
            claim(
                "`test_batch_marked_dynamic`, with the batch dimension marked dynamic before the warm-up, passed.",
                evidence=[verdict.evidence[1]],
            ).markdown()
        )
    elif marked:
        text.append(
            claim(
                "`test_batch_marked_dynamic` did not pass on this torch: {q_msg}.",
                q_msg=Derived(marked, shorten(marked, 110)),
                evidence=[verdict.evidence[1]],
            ).markdown()
        )
    return " ".join(text)


@fact("realcode: files written under TORCH_TRACE", TRACE)
def trace_files(result: SnippetResult) -> Measured:
    m = re.search(r"^trace files written: (\d+)", result.stdout, re.M)
    if not m:
        raise LookupError("the run printed no count")
    return Measured(int(m.group(1)), (line_of(result, "trace files written: "),))


def trace_summary(result: SnippetResult, page_url: str) -> str:
    written = trace_files(result)
    n = written.value
    if not any(name.startswith("trace/") for name in result.artifacts):
        return claim(
            "This torch wrote {n} {f} under `TORCH_TRACE`, so there is no tlparse report for this build.",
            n=n,
            f=_word(n, "trace file"),
            evidence=list(written.evidence),
        ).markdown()
    link = relative_link(page_url, tlparse.report_path(result) + "index.html")
    raw = relative_link(page_url, tlparse.report_path(result) + "raw.log")
    return claim(
        "This torch wrote {n} {f}.", n=n, f=_word(n, "trace file"), evidence=list(written.evidence)
    ).markdown() + (
        f" The build ran tlparse on the recorded trace: [open the tlparse report of this run]({link}){{ .md-button }} "
        f"(or [the trace itself]({raw})). Its index lists every compile by compile id, with each one's graph, guards "
        "and, for a recompile, the reason."
    )
