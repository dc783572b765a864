"""The verdicts and counts a build rendered, as named facts, so builds and releases can be compared.

Every fact is defined once, with `@fact` (fieldguide.guide.claims): the chapters define the facts their
prose states, next to that prose, and the facts only the Across releases page asks about are
defined here. The prose, the diff tooling and the release matrix all evaluate the same
definitions; a fact whose snippet is not in a record is left out rather than guessed.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

from ..run.normalize import normalize_text
from ..run.record import BuildRecord, SnippetResult
from . import chapters, gym
from .claims import FACTS, Derived, Fact, Measured, fact, line_of, run

# Every chapter module (fieldguide/guide/chapters/<slug>.py) defines its facts with @fact on import: a new
# chapter's facts are found here without being listed.
for _module in sorted(m.name for m in pkgutil.iter_modules(chapters.__path__)):
    importlib.import_module(f"{chapters.__name__}.{_module}")

_MISSING = (LookupError, ValueError, IndexError, KeyError, StopIteration, AttributeError, TypeError)


# -- facts the Across releases page asks about (snippets/releases/) -------------------------------
_LIMIT_STEP = re.compile(r"^(?P<label>.+?)\s+graphs compiled=(?P<graphs>\[.*?\]) ran=(?P<ran>\[.*?\])\s*$", re.M)
AFTER_LIMIT = run("releases/after_limit.py", "recompiles")


def after_limit(result: SnippetResult) -> dict[str, object]:
    """What ran after a function hit its recompile limit (snippets/releases/after_limit.py): the
    graphs compiled for the new input (the operations of each), and which graphs ran for the first
    input again."""
    steps = [
        (m["label"], ast.literal_eval(m["graphs"]), ast.literal_eval(m["ran"]))
        for m in _LIMIT_STEP.finditer(result.stdout)
    ]
    if len(steps) != 3:
        raise ValueError(f"{result.path}: expected 3 steps, read {len(steps)}")
    (_, first_graphs, _), (_, over_graphs, _), (_, _, again_ran) = steps
    return {"new": over_graphs[len(first_graphs) :], "again": again_ran}


def _limit_evidence(result: SnippetResult) -> tuple:
    return tuple(line_of(result, m["label"]) for m in _LIMIT_STEP.finditer(result.stdout))


@fact(
    "limits: a new input past the limit",
    AFTER_LIMIT,
    outcomes=("the functions it calls compile", "nothing compiled"),
)
def new_input_past_limit(result: SnippetResult) -> Measured:
    new = after_limit(result)["new"]
    if any("mul" in g for g in new):
        raise LookupError(f"{result.path}: the whole function compiled past the limit: {new}")
    outcome = "the functions it calls compile" if new else "nothing compiled"
    return Measured(outcome, _limit_evidence(result), outcome, {"new": Derived(new, ", ".join(map(str, new)))})


@fact(
    "limits: a known input past the limit",
    AFTER_LIMIT,
    outcomes=("served by its entry", "not served"),
)
def known_input_past_limit(result: SnippetResult) -> Measured:
    again = after_limit(result)["again"]
    outcome = "served by its entry" if again else "not served"
    return Measured(outcome, _limit_evidence(result), outcome, {"ran": Derived(again, ", ".join(map(str, again)))})


def rebuild_loop(result: SnippetResult) -> str:
    counts = [int(n) for n in re.findall(r"unique_graphs=(\d+)", result.stdout)]
    if not counts:
        raise ValueError(f"{result.path}: printed no counts")
    return str(counts[-1])


_HIT = re.compile(r"hit config\.(\w+) \((\d+)\)")


@fact(
    "modules: graphs for a model rebuilt 16 times (accumulated limit lowered to 8)",
    run("releases/rebuild_loop.py", "recompiles"),
    outcomes=(
        "one graph",
        "the per-function limit hit",
        "the accumulated limit hit",
        "a graph per model, no limit hit",
    ),
)
def rebuilt_16_times(result: SnippetResult) -> Measured:
    """Which limit, if any, the loop of rebuilt models reached (as the warning names it)."""
    value = rebuild_loop(result)
    last = [ln for ln in result.stdout.splitlines() if "unique_graphs=" in ln][-1]
    evidence = (line_of(result, last.strip()),)
    slots: dict[str, object] = {"n": value}
    hit = _HIT.search(result.output)
    if value == "1" and not hit:
        return Measured(value, evidence, "one graph", slots)
    rebuilds = re.findall(r"after +(\d+) rebuilds unique_graphs=(\d+)", result.stdout)
    if not hit and rebuilds and all(a == g for a, g in rebuilds):
        lowered = next((ln for ln in result.stdout.splitlines() if ln.startswith("lowered config.")), "")
        return Measured(value, (line_of(result, lowered),) + evidence, "a graph per model, no limit hit", slots)
    if not hit:
        raise LookupError(f"{result.path}: {value} graphs and no limit warning")
    slots |= {"name": hit.group(1), "value": hit.group(2)}
    evidence = (line_of(result, hit.group(0)),) + evidence
    outcome = "the accumulated limit hit" if hit.group(1).startswith("accumulated") else "the per-function limit hit"
    return Measured(value, evidence, outcome, slots)


# -- evaluating them ------------------------------------------------------------------------------
def evaluate(f: Fact, build: BuildRecord) -> Measured | None:
    """The fact measured on `build` (a live build or a committed release), or None when it cannot say."""
    try:
        return f.on(build)
    except _MISSING:
        return None


def facts_with_sources(
    build: BuildRecord, snippets_dir: Path | None = None
) -> dict[str, tuple[str, list[SnippetResult]]]:
    """Every fact this record can answer: name -> (value as a table shows it, the results it was read from)."""
    out: dict[str, tuple[str, list[SnippetResult]]] = {}
    for name, f in FACTS.items():
        measured = evaluate(f, build)
        if measured is not None:
            out[name] = (f.show(measured.value), [r.find(build) for r in f.runs])
    if snippets_dir is not None and (snippets_dir / "gym").is_dir():
        for drill in gym.load_drills(snippets_dir):
            for scenario in drill.scenarios:
                try:
                    result = gym.find_result(build, scenario)
                    answer = gym.measure(scenario, result)
                except (gym.DrillError, LookupError):
                    continue
                out[f"{drill.label} {scenario.id}"] = (answer.verdict, [result])
    return out


def facts(build: BuildRecord, snippets_dir: Path | None = None) -> dict[str, str]:
    return {name: value for name, (value, _) in facts_with_sources(build, snippets_dir).items()}


def comparable(build: BuildRecord, snippets_dir: Path | None = None) -> dict[str, str]:
    """The facts as two builds are compared: normalized as outputs are (an object id or address in
    a value reads as a placeholder), and a fact whose value varies from run to run (a timing,
    declared `varies=True`) by its outcome, since its value differs between two runs of one build;
    an outcome that only orders two timings (declared in `orders`) reads as ORDERED whichever it is."""
    out = {name: normalize_text(value) for name, value in facts(build, snippets_dir).items()}
    for name, f in FACTS.items():
        if f.varies and name in out:
            measured = evaluate(f, build)
            if measured is not None:
                out[name] = f"outcome: {ORDERED if measured.outcome in f.orders else measured.outcome}"
    return out


ORDERED = "timed (which came out lower varies from build to build)"
