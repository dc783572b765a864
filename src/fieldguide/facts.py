"""The verdicts and counts a build rendered, as named facts, so two builds can be compared.

Each fact is computed by the same chapter and gym code that renders the pages; a fact whose
snippet is not in a record is left out rather than guessed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

from . import gym
from .chapters import dynamic as dyn
from .chapters import guards as g
from .chapters.common import steps
from .record import BuildRecord, SnippetResult


def _fact_functions(build: BuildRecord) -> dict[str, Callable[[], str]]:
    r = build.find
    return {
        "guards: dump format": lambda: "flat list" if not g.is_tree(r("guards/anatomy.py")) else "tree",
        "guards: checks printed for f(x, alpha)": lambda: str(len(g.first_dump(r("guards/anatomy.py")))),
        "guards: ambient guards present": lambda: ", ".join(sorted(g.ambient_present(r("guards/anatomy.py")))),
        "guards: flipping a config flag": lambda: "recompiles" if steps(r("guards/ambient.py").stdout)[1][1] > steps(r("guards/ambient.py").stdout)[0][1] else "reuses the entry",
        "guards: explain() objects": lambda: str(len(g.explain_objects(r("guards/explain.py")))),
        "guards: graphs for five calls of one shape": lambda: str(g.five_calls(r("guards/five_calls.py"))[-1]["graphs"]),
        "guards: no_grad recompile reason": lambda: next(f.reason for s in g.five_calls(r("guards/five_calls.py")) if s["label"] == "no_grad" for rc in s["recompiles"] for f in rc.failures),
        "modules: guarded by": lambda: {"identity": "identity", "type": "type and attributes"}[g.module_regime(r("guards/module_guards.py"))],
        "modules: graphs for an ensemble of 16": lambda: str(g.module_counts(r("guards/module_counts.py")).get("ensemble of 16 identical members")),
        "inlined helper rebound": lambda: "compiled code keeps the old body" if g.helper_is_stale(r("guards/stale_helper.py", TORCH_LOGS="recompiles")) else "recompiles at once",
        "dynamic: graphs for sizes 4, 5, 6, 7": lambda: str([s["graphs"] for s in dyn.size_steps(r("dynamic/new_sizes.py"))][-2]),
        "dynamic: scalars (graphs for 4 values)": lambda: ", ".join(f"{k.split(':')[0]} {v}" for k, v in steps(r("dynamic/scalars.py").stdout)),
        "limits: names": lambda: ", ".join(dyn.limit_config(r("dynamic/limits.py"))),
        "limits: after the limit, existing entries": lambda: "keep serving" if dyn.limit_steps(r("dynamic/limits.py"))[-1][2].get(2, 0) > dyn.limit_steps(r("dynamic/limits.py"))[-2][2].get(2, 0) else "fall back to eager",
        "stances: set_stance": lambda: "absent" if "does not exist" in r("dynamic/stances.py").stdout else "present",
        "limits: a new input past the limit": lambda: after_limit(r("releases/after_limit.py"))["new input"],
        "limits: a known input past the limit": lambda: after_limit(r("releases/after_limit.py"))["known input"],
        "modules: graphs for a model rebuilt 16 times (accumulated limit lowered to 8)": lambda: rebuild_loop(r("releases/rebuild_loop.py")),
    }


_LIMIT_STEP = re.compile(r"^(?P<label>.+?)\s+graphs compiled=(?P<graphs>\[.*?\]) ran=(?P<ran>\[.*?\])\s*$", re.M)


def after_limit(result: SnippetResult) -> dict[str, str]:
    """What ran after a function hit its recompile limit (snippets/releases/after_limit.py)."""
    steps = [(m["label"], ast.literal_eval(m["graphs"]), ast.literal_eval(m["ran"])) for m in _LIMIT_STEP.finditer(result.stdout)]
    if len(steps) != 3:
        raise ValueError(f"{result.path}: expected 3 steps, read {len(steps)}")
    (_, first_graphs, _), (_, over_graphs, over_ran), (_, _, again_ran) = steps
    new = over_graphs[len(first_graphs):]
    if new:
        new_input = "its frame runs eagerly; the functions it calls compile on their own"
    else:
        new_input = "runs eagerly; nothing is compiled, not even the functions it calls"
    known = "served by its compiled entry" if again_ran else "runs eagerly; the compiled entry is not used"
    return {"new input": new_input, "known input": known}


def rebuild_loop(result: SnippetResult) -> str:
    counts = [int(n) for n in re.findall(r"unique_graphs=(\d+)", result.stdout)]
    if not counts:
        raise ValueError(f"{result.path}: printed no counts")
    return str(counts[-1])


class _Reading:
    """A record that remembers which results a fact read (its evidence, for the matrix page)."""

    def __init__(self, build: BuildRecord) -> None:
        self.build = build
        self.read: list[SnippetResult] = []

    def find(self, path: str, **env: str) -> SnippetResult:
        found = self.build.find(path, **env)
        if found not in self.read:
            self.read.append(found)
        return found


def facts_with_sources(build: BuildRecord, snippets_dir: Path | None = None) -> dict[str, tuple[str, list[SnippetResult]]]:
    """Every fact this record can answer: name -> (value, the results it was read from)."""
    out: dict[str, tuple[str, list[SnippetResult]]] = {}
    for name, fn in _fact_functions(_Reading(build)).items():
        reading = _Reading(build)
        try:
            value = _fact_functions(reading)[name]()
        except (LookupError, ValueError, IndexError, KeyError, StopIteration, AttributeError):
            continue  # that snippet is not in this record (or printed nothing to read)
        out[name] = (value, reading.read)
    if snippets_dir is not None and (snippets_dir / "gym").is_dir():
        for drill in gym.load_drills(snippets_dir):
            for scenario in drill.scenarios:
                result = gym.find_result(build, scenario)
                try:
                    answer = gym.measure(scenario, result)
                except gym.DrillError:
                    continue
                out[f"{drill.label} {scenario.id}"] = (answer.verdict, [result])
    return out


def facts(build: BuildRecord, snippets_dir: Path | None = None) -> dict[str, str]:
    return {name: value for name, (value, _) in facts_with_sources(build, snippets_dir).items()}
