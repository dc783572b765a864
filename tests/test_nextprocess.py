"""Lesson 6, the next process: its facts read the lines each process printed, and nothing else.

The live build runs the lesson's snippets (inductor on the CPU, three processes); the committed
records hold the same runs on every release. A line the parser does not know is `unrecognised`,
never the nearest known outcome.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from conftest import ROOT
from test_chapters import current

from fieldguide.guide.chapters import nextprocess as np
from fieldguide.guide.claims import FACTS, UNRECOGNISED
from fieldguide.run.record import BuildRecord

LESSON_FACTS = [name for name in FACTS if name.startswith("next process: ")]


@pytest.fixture(scope="module")
def live(site_record) -> BuildRecord:
    return BuildRecord.from_json(site_record)


def test_the_table_and_the_facts_read_the_processes_the_run_printed(live):
    result = live.find("nextprocess/restart.py")
    found = np.processes(result)
    printed = [line for line in result.stdout.splitlines() if "process" in line]
    assert len(found) == len(printed) >= 2
    for p in found.values():
        assert p.line in result.output  # the evidence is a displayed line
        if p.graphs is not None:
            assert f"graphs compiled={p.graphs}" in p.line
            assert all(f"{k}={v}" in p.line for k, v in p.counters.items())
    table = np.process_table(result)
    assert table.splitlines()[0] == "| printed | " + " | ".join(["first", "second", "third"][: len(found)]) + " |"
    graphs_row = next(line for line in table.splitlines() if line.startswith("| graphs compiled |"))
    assert graphs_row.split("|")[2:-1] == [f" {p.graphs} " for p in found.values()]
    for name in LESSON_FACTS:
        m = FACTS[name].on(live)
        assert m.outcome in FACTS[name].outcomes, (name, m.outcome)
        assert m.outcome != UNRECOGNISED, (name, result.stdout)
        outputs = [live.find(f"nextprocess/{name}.py").output for name in ("restart", "no_job_id", "warm_start")]
        assert all(any(e.line in out for out in outputs) for e in m.evidence), (name, m.evidence)


def test_the_second_process_is_judged_against_the_counters_it_printed(live):
    """The outcome follows the counters: swap the second process's hits for misses and it changes."""
    result = live.find("nextprocess/restart.py")
    second = np.processes(result)[np.SECOND]
    fact = FACTS["next process: FX graph cache, second process"]
    assert fact(result).outcome == np._cache(second, "fxgraph_cache")
    missed = second.line.replace("fxgraph_cache_hit=", "fxgraph_cache_miss=")
    changed = dataclasses.replace(result, stdout=result.stdout.replace(second.line, missed))
    expected = "all misses" if "fxgraph_cache_hit=" in second.line else fact(result).outcome
    assert fact(changed).outcome == expected


def test_a_failed_or_unknown_line_is_never_a_known_outcome(live):
    result = live.find("nextprocess/restart.py")
    second = np.processes(result)[np.SECOND]
    failed = dataclasses.replace(
        result, stdout=result.stdout.replace(second.line, f"{np.SECOND} failed: RuntimeError: no space left")
    )
    assert FACTS["next process: FX graph cache, second process"](failed).outcome == UNRECOGNISED
    assert FACTS["next process: graphs in the second process, same job id"](failed).outcome == UNRECOGNISED
    odd = dataclasses.replace(result, stdout=result.stdout.replace("graphs compiled=", "graphs captured="))
    for name in (
        "next process: FX graph cache, second process",
        "next process: a third process given the cache artifacts",
    ):
        assert FACTS[name](odd).outcome == UNRECOGNISED


@pytest.mark.parametrize("release", ["2.2.2", "2.8.0", "2.15.0"])
def test_each_release_record_takes_a_named_outcome(release):
    build = current(release, np.RESTART, np.NO_JOB_ID, np.WARM_START)
    for name in LESSON_FACTS:
        m = FACTS[name].on(build)
        assert m.outcome in FACTS[name].outcomes and m.outcome != UNRECOGNISED, (release, name, m)


def test_the_snippets_keep_their_caches_out_of_the_tree():
    """Every snippet of lesson 6 that compiles with inductor (a torch.compile without backend="eager")
    gives it a cache directory of its own, made with tempfile."""
    for path in (ROOT / "snippets" / "nextprocess").glob("*.py"):
        text = path.read_text()
        compiles = re.findall(r"torch\.compile\b[^\n]*", text)
        if compiles and all('backend="eager"' in c for c in compiles):
            continue  # every compile names the eager backend: no inductor cache to keep out of the tree
        assert "tempfile.mkdtemp" in text and "TORCHINDUCTOR_CACHE_DIR" in text, path


def test_the_warm_start_times_are_read_from_the_two_lines_the_run_printed(live):
    """Each time is the median with the fastest and slowest of its line; a failed run, or a line the
    parser does not know, is unrecognised, not a time."""
    result = live.find("nextprocess/warm_start.py")
    fact = FACTS["next process: compiled calls' time, a cold start against a restart with the same cache"]
    m = fact(result)
    assert m.outcome != UNRECOGNISED, result.output
    lines = {
        label: next(ln for ln in result.stdout.splitlines() if ln.startswith(label)) for label in (np.COLD, np.WARM)
    }

    def counted(cold: str, warm: str) -> str:
        """The fact's outcome on this run's output with the two lines' graph counts replaced."""
        out = result.stdout
        for label, graphs in ((np.COLD, cold), (np.WARM, warm)):
            out = out.replace(lines[label], re.sub(r"graphs=\S+", f"graphs={graphs}", lines[label]))
        return fact(dataclasses.replace(result, stdout=out)).outcome

    assert counted("2", "2") == "timed"
    assert counted("2", "1") == "timed, the restart captured fewer graphs"
    assert counted("1", "2") == counted("1,2", "1") == "timed, other graph counts"
    for label, slot in ((np.COLD, "a"), (np.WARM, "b")):
        line = next(ln for ln in result.stdout.splitlines() if ln.startswith(label))
        median, low, high = (float(x) for x in re.findall(r"=\s*([\d.]+) ms", line))
        assert low <= median <= high
        assert str(m.slots[slot]) == f"{median:.0f} ms (from {low:.0f} to {high:.0f} ms)"
        assert any(e.line == line.strip() for e in m.evidence)
    failed = dataclasses.replace(result, stdout="", stderr="failed: RuntimeError: no space left")
    assert fact(failed).outcome == UNRECOGNISED
    odd = dataclasses.replace(result, stdout=result.stdout.replace("median=", "mean="))
    assert fact(odd).outcome == UNRECOGNISED


def test_the_first_compile_comparisons_say_which_way_every_run_was_lower_or_that_they_overlap(live):
    """The outcome is read from both ranges; two builds compare any of the three as one (facts.ORDERED)."""
    from fieldguide.guide import facts

    result = live.find("nextprocess/first_compile.py")

    def ranged(way: str, low: float, high: float, other: str, other_low: float, other_high: float) -> str:
        out = result.stdout
        for label, lo, hi in ((way, low, high), (other, other_low, other_high)):
            line = next(ln for ln in out.splitlines() if ln.startswith(label))
            graphs = re.search(r"graphs=\S+", line).group(0)
            times = f"median={lo:7.1f} ms min={lo:7.1f} ms max={hi:7.1f} ms"
            out = out.replace(line, f"{label:<40} {graphs} {times}")
        return dataclasses.replace(result, stdout=out)

    for name, a, b in (
        ("cold start: first call, regional against whole model", np.REGIONAL, np.WHOLE),
        ("cold start: first call, dynamic=True against dynamic=False", np.DYNAMIC, np.STATIC),
    ):
        fact = FACTS[name]
        first, second, overlap = fact.orders
        assert fact(ranged(a, 10, 20, b, 30, 40)).outcome == first
        assert fact(ranged(a, 30, 40, b, 10, 20)).outcome == second
        assert fact(ranged(a, 10, 35, b, 30, 40)).outcome == overlap
        assert fact(result).outcome in fact.orders
        assert facts.comparable(live)[name] == f"outcome: {facts.ORDERED}"
