"""Facts and tables for lesson 6, "The next process" (docs/nextprocess.md).

The lesson's snippets start the processes they measure (`python -c JOB`, each given a cache
directory of its own) and print one line per process: the graphs dynamo captured there and the
cache counters of inductor (`fxgraph_cache_*`) and AOTAutograd (`autograd_cache_*`) that moved.
The facts here read those lines; the page holds the sentences, one per outcome.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...run.record import SnippetResult
from ..claims import Derived, Measured, fact, line_of, page_table, run
from .common import code, plural, table

RESTART = run("nextprocess/restart.py")
NO_JOB_ID = run("nextprocess/no_job_id.py")

FIRST, SECOND, THIRD = "first process:", "second process, same cache:", "third process, artifacts loaded:"
_LINE = re.compile(r"^(?P<label>[a-z, ]+:)\s+graphs compiled=(?P<graphs>\d+)(?P<rest>(?: \w+=\d+)*)\s*$")
_FAILED = re.compile(r"^(?P<label>[a-z, ]+:)\s+failed: (?P<error>.*)$")


@dataclass(frozen=True)
class Process:
    """One process's line: the graphs dynamo captured, and the cache counters that moved."""

    label: str
    line: str  # as printed, stripped
    graphs: int | None = None  # None: the process failed
    counters: dict[str, int] = field(default_factory=dict)
    error: str = ""

    def count(self, name: str) -> int:
        return self.counters.get(name, 0)


def processes(result: SnippetResult) -> dict[str, Process]:
    """The processes a lesson-6 snippet reported, by label."""
    found: dict[str, Process] = {}
    for raw in result.stdout.splitlines():
        line = raw.strip()
        if m := _LINE.match(line):
            counters = {k: int(v) for k, v in (kv.split("=") for kv in m.group("rest").split())}
            found[m.group("label")] = Process(m.group("label"), line, int(m.group("graphs")), counters)
        elif m := _FAILED.match(line):
            found[m.group("label")] = Process(m.group("label"), line, error=m.group("error"))
    return found


def _cache(p: Process, prefix: str) -> str:
    """A cache's outcome in one process: which of its lookups hit."""
    hits, misses = p.count(f"{prefix}_hit"), p.count(f"{prefix}_miss")
    if hits and not misses:
        return "all hits"
    if hits and misses:
        return "hits and misses"
    if misses:
        return "all misses"
    return "no lookup counted"


CACHE_OUTCOMES = ("all hits", "hits and misses", "all misses", "no lookup counted")


def _cache_fact(name: str, label: str, prefix: str) -> None:
    @fact(name, RESTART, outcomes=CACHE_OUTCOMES)
    def measure(result: SnippetResult) -> Measured:
        p = processes(result).get(label)
        if p is None or p.graphs is None:
            ev = (line_of(result, label),) if p else ()
            return Measured("unrecognised", ev, "unrecognised", {"line": p.line if p else ""})
        outcome = _cache(p, prefix)
        slots = {
            "hits": Derived(p.count(f"{prefix}_hit"), f"{prefix}_hit={p.count(f'{prefix}_hit')}"),
            "misses": Derived(p.count(f"{prefix}_miss"), f"{prefix}_miss={p.count(f'{prefix}_miss')}"),
            "graphs": Derived(p.graphs, plural(p.graphs, "graph")),
        }
        return Measured(outcome, (line_of(result, p.line),), outcome, slots)


_cache_fact("next process: FX graph cache, second process", SECOND, "fxgraph_cache")
_cache_fact("next process: AOTAutograd cache, second process", SECOND, "autograd_cache")
_cache_fact("next process: FX graph cache, first process", FIRST, "fxgraph_cache")


GRAPH_OUTCOMES = ("one graph for both sizes", "a graph per size")


def _graphs(result: SnippetResult, label: str) -> Measured:
    """How many graphs dynamo captured in one process for the two sizes the job calls with."""
    p = processes(result).get(label)
    if p is None or p.graphs not in (1, 2):
        ev = (line_of(result, label),) if p else ()
        return Measured("unrecognised", ev, "unrecognised")
    outcome = GRAPH_OUTCOMES[0] if p.graphs == 1 else GRAPH_OUTCOMES[1]
    first = processes(result).get(FIRST)
    evidence = tuple(line_of(result, q.line) for q in (first, p) if q is not None and q is not p) + (
        line_of(result, p.line),
    )
    slots = {"graphs": Derived(p.graphs, plural(p.graphs, "graph"))}
    if first and first.graphs is not None:
        slots["first"] = Derived(first.graphs, plural(first.graphs, "graph"))
    return Measured(outcome, evidence, outcome, slots)


@fact("next process: graphs in the second process, same job id", RESTART, outcomes=GRAPH_OUTCOMES)
def second_with_job_id(result: SnippetResult) -> Measured:
    return _graphs(result, SECOND)


@fact("next process: graphs in the second process, no job id", NO_JOB_ID, outcomes=GRAPH_OUTCOMES)
def second_without_job_id(result: SnippetResult) -> Measured:
    return _graphs(result, SECOND)


@fact(
    "next process: a third process given the cache artifacts",
    RESTART,
    outcomes=("loaded", "compiled again", "no artifacts saved", "failed"),
)
def artifacts(result: SnippetResult) -> Measured:
    skipped = re.search(r"^third process: skipped.*$", result.stdout, re.M)
    if skipped:
        return Measured("no artifacts saved", (line_of(result, skipped.group(0)),), "no artifacts saved")
    p = processes(result).get(THIRD)
    if p is None:
        return Measured("unrecognised", (), "unrecognised")
    if p.graphs is None:
        return Measured("failed", (line_of(result, p.line),), "failed", {"error": p.error})
    fx = _cache(p, "fxgraph_cache")
    outcome = "loaded" if fx == "all hits" else "compiled again" if fx in ("all misses", "no lookup counted") else ""
    if not outcome:
        return Measured("unrecognised", (line_of(result, p.line),), "unrecognised")
    slots = {
        "graphs": Derived(p.graphs, plural(p.graphs, "graph")),
        "hits": Derived(p.count("fxgraph_cache_hit"), f"fxgraph_cache_hit={p.count('fxgraph_cache_hit')}"),
    }
    return Measured(outcome, (line_of(result, p.line),), outcome, slots)


@page_table
def process_table(result: SnippetResult) -> str:
    """One column per process, one row per count: the graphs dynamo captured, then each cache counter that
    moved in any process (a process that failed shows it in every row)."""
    found = list(processes(result).values())
    names = sorted({k for p in found for k in p.counters})
    short = {FIRST: "first", SECOND: "second", THIRD: "third"}
    header = ["printed"] + [short.get(p.label, p.label.rstrip(":")) for p in found]
    rows = [["graphs compiled"] + [str(p.graphs) if p.graphs is not None else "failed" for p in found]]
    for k in names:
        rows.append([code(k)] + [str(p.count(k)) if p.graphs is not None else "failed" for p in found])
    return table(header, rows, "-" + "r" * len(found))


# -- what to do: the job id ----------------------------------------------------------------------
@fact(
    "next process: what the job id changed in the second process",
    RESTART,
    NO_JOB_ID,
    outcomes=(
        "one graph with the job id, a graph per size without",
        "a graph per size either way",
        "one graph either way",
    ),
)
def job_id_difference(restart: SnippetResult, no_id: SnippetResult) -> Measured:
    with_id, without = _graphs(restart, SECOND), _graphs(no_id, SECOND)
    pair = (with_id.outcome, without.outcome)
    outcome = {
        (GRAPH_OUTCOMES[0], GRAPH_OUTCOMES[1]): "one graph with the job id, a graph per size without",
        (GRAPH_OUTCOMES[1], GRAPH_OUTCOMES[1]): "a graph per size either way",
        (GRAPH_OUTCOMES[0], GRAPH_OUTCOMES[0]): "one graph either way",
    }.get(pair, "unrecognised")
    slots = {"with": with_id.slots.get("graphs", ""), "without": without.slots.get("graphs", "")}
    return Measured(pair, with_id.evidence + without.evidence, outcome, slots)


# -- the first compile's cost ---------------------------------------------------------------------
FIRST_COMPILE = run("nextprocess/first_compile.py")
# a timed line: label, the graphs of its runs ("1", or "1,2" where they differed), median, min, max
_TIMED = re.compile(
    r"^(?P<label>.+?)\s+graphs=(?P<graphs>\d+(?:,\d+)*) median=\s*(?P<median>[\d.]+) ms"
    r" min=\s*(?P<min>[\d.]+) ms max=\s*(?P<max>[\d.]+) ms$"
)
WHOLE, REGIONAL, STATIC, DYNAMIC = (
    "whole model",
    "regional (each block)",
    "whole model, dynamic=False",
    "whole model, dynamic=True",
)


def first_compiles(result: SnippetResult) -> dict[str, dict]:
    """label -> graphs, median, min and max ms of the first call, over the snippet's five runs."""
    out = {}
    for line in result.stdout.splitlines():
        m = _TIMED.match(line.strip())
        if m:
            if "," in m["graphs"]:
                continue  # the runs of one way differed in graphs: not a line this snippet prints
            out[m["label"]] = {
                "graphs": int(m["graphs"]),
                **{k: float(m[k]) for k in ("median", "min", "max")},
                "line": m.group(0),
            }
    missing = {WHOLE, REGIONAL, STATIC, DYNAMIC} - set(out)
    if missing:
        raise LookupError(f"{result.path}: no timing for {sorted(missing)}")
    return out


def _timing(r: dict) -> Derived:
    return Derived(r["median"], f"{r['median']:.0f} ms (from {r['min']:.0f} to {r['max']:.0f} ms)")


def _compare(result: SnippetResult, a: str, b: str, outcomes: tuple[str, str, str]) -> Measured:
    """Two ways' first calls, each a median with its min and max. The outcome is `outcomes[0]` where
    every run of `a` took less than the fastest run of `b`, `outcomes[1]` the other way round, and
    `outcomes[2]` where the two ranges overlap (these runs do not order them). The ranges move from
    build to build, so the three are declared `orders`: two builds compare them as one."""
    runs = first_compiles(result)
    ra, rb = runs[a], runs[b]
    evidence = (line_of(result, ra["line"]), line_of(result, rb["line"]))
    outcome = outcomes[0] if ra["max"] < rb["min"] else outcomes[1] if rb["max"] < ra["min"] else outcomes[2]
    return Measured((_span(ra), _span(rb)), evidence, outcome, {"a": _timing(ra), "b": _timing(rb)})


def _span(r: dict) -> tuple[float, float, float]:
    return r["median"], r["min"], r["max"]


def _shown(v: tuple[float, float, float]) -> str:
    """A timing as a table of releases shows it: the median with its range, never the median alone
    (one build's medians can order two ways that its ranges do not)."""
    return f"{v[0]:.0f} ms ({v[1]:.0f}–{v[2]:.0f})"


BLOCKS = 8  # the blocks of the snippet's model
REGIONAL_ORDERS = ("block by block lower in every run", "whole model lower in every run", "the ranges overlap")
DYNAMIC_ORDERS = ("dynamic=True lower in every run", "dynamic=False lower in every run", "the ranges overlap")


@fact(
    "cold start: graphs of a first call, regional against whole model",
    FIRST_COMPILE,
    show=lambda v: f"regional {v[0]}, whole {v[1]}",
    outcomes=("one graph for all blocks", "some blocks reused a graph", "a graph per block"),
)
def first_compile_graphs(result: SnippetResult) -> Measured:
    runs = first_compiles(result)
    r, w = runs[REGIONAL]["graphs"], runs[WHOLE]["graphs"]
    by_count = {1: "one graph for all blocks", BLOCKS: "a graph per block"}
    outcome = by_count.get(r, "some blocks reused a graph" if 1 < r < BLOCKS else "unrecognised")
    evidence = (line_of(result, runs[REGIONAL]["line"]), line_of(result, runs[WHOLE]["line"]))
    slots = {"regional": Derived(r, plural(r, "graph")), "whole": Derived(w, plural(w, "graph"))}
    return Measured((r, w), evidence, outcome, slots)


@fact(
    "cold start: first call, regional against whole model",
    FIRST_COMPILE,
    show=lambda v: f"regional {_shown(v[0])}, whole {_shown(v[1])}",
    outcomes=REGIONAL_ORDERS,
    varies=True,
    orders=REGIONAL_ORDERS,
)
def regional_cost(result: SnippetResult) -> Measured:
    return _compare(result, REGIONAL, WHOLE, REGIONAL_ORDERS)


@fact(
    "cold start: first call, dynamic=True against dynamic=False",
    FIRST_COMPILE,
    show=lambda v: f"dynamic=True {_shown(v[0])}, dynamic=False {_shown(v[1])}",
    outcomes=DYNAMIC_ORDERS,
    varies=True,
    orders=DYNAMIC_ORDERS,
)
def dynamic_cost(result: SnippetResult) -> Measured:
    return _compare(result, DYNAMIC, STATIC, DYNAMIC_ORDERS)


# -- what the kept cache saves in time --------------------------------------------------------------
WARM_START = run("nextprocess/warm_start.py")
COLD, WARM = "cold start (empty cache)", "restart (same cache)"


@fact(
    "next process: compiled calls' time, a cold start against a restart with the same cache",
    WARM_START,
    show=lambda v: f"cold {_shown(v[0])}, restart {_shown(v[1])}",
    outcomes=("timed", "timed, the restart captured fewer graphs", "timed, other graph counts"),
    varies=True,
)
def warm_start_cost(result: SnippetResult) -> Measured:
    """The two compiled calls of the job, timed in three cold starts and in three restarts (each a
    median with its min and max). The outcome names how the two sides' graph counts compare, since
    a restart that captured fewer graphs is not timing the same work: `timed` (the same counts),
    `timed, the restart captured fewer graphs`, or `timed, other graph counts` (more, or counts
    that differed between runs of one side)."""
    runs = {}
    for line in result.stdout.splitlines():
        if m := _TIMED.match(line.strip()):
            runs[m["label"]] = {**{k: float(m[k]) for k in ("median", "min", "max")}, "graphs": m["graphs"]}
            runs[m["label"]]["line"] = m.group(0)
    if set(runs) != {COLD, WARM}:
        failed = re.search(r"^failed: .*$", result.stdout + "\n" + result.stderr, re.M)
        return Measured("unrecognised", (line_of(result, failed.group(0)),) if failed else (), "unrecognised")
    cold, warm = runs[COLD], runs[WARM]
    evidence = (line_of(result, cold["line"]), line_of(result, warm["line"]))
    slots = {
        "a": _timing(cold),
        "b": _timing(warm),
        "cold_graphs": Derived(cold["graphs"], f"graphs={cold['graphs']}"),
        "warm_graphs": Derived(warm["graphs"], f"graphs={warm['graphs']}"),
    }
    if cold["graphs"] == warm["graphs"]:
        outcome = "timed"
    elif "," not in cold["graphs"] + warm["graphs"] and int(warm["graphs"]) < int(cold["graphs"]):
        outcome = "timed, the restart captured fewer graphs"
    else:
        outcome = "timed, other graph counts"
    return Measured((_span(cold), _span(warm)), evidence, outcome, slots)
