"""The warm executor: a child forked from a worker that imported torch starts as a fresh process does."""

from __future__ import annotations

from fieldguide.run.executors import FreshProcessExecutor
from fieldguide.run.executors.warm import WarmExecutor
from fieldguide.run.record import result_from_run

STATE = """
import logging, os, sys, threading
import torch
import torch._dynamo
from torch._dynamo.utils import counters

print("threads", threading.active_count())
print("torch threads", torch.get_num_threads())
print("counters", dict(counters))
print("grad", torch.is_grad_enabled(), "dtype", torch.get_default_dtype())
torch.manual_seed(0)
print("seeded rng", torch.rand(2).tolist())
print("recompile limit", torch._dynamo.config.cache_size_limit)
print("guards logger enabled", logging.getLogger("torch._dynamo.guards.__guards").isEnabledFor(logging.DEBUG))
print("argv", sys.argv[0].rsplit("/", 1)[-1], "path0", sys.path[0].rsplit("/", 1)[-1])
print("env", os.environ.get("TORCH_LOGS"), os.environ.get("FIELDGUIDE_PROBE"))
print("name", __name__)
"""


def both(tmp_path, env):
    file = tmp_path / "state.py"
    file.write_text(STATE)
    outputs = []
    warm = WarmExecutor(cwd=tmp_path, workers=1)
    try:
        for ex in (FreshProcessExecutor(cwd=tmp_path), warm, warm):  # the second warm run reuses the worker
            raw = ex.run(file, env, 60)
            assert raw.exit_code == 0, raw.events
            outputs.append((raw.executor, result_from_run("s", env, raw.events, 0, 0, tmp_path).stdout))
    finally:
        warm.close()
    return outputs


def test_warm_child_state_equals_a_fresh_process(tmp_path):
    (fresh_name, fresh), (warm_name, warm), (_, again) = both(tmp_path, {})
    assert (fresh_name, warm_name) == ("fresh", "warm")
    assert warm == fresh and again == fresh
    assert "counters {}" in fresh and "guards logger enabled False" in fresh


def test_warm_child_honours_its_torch_logs(tmp_path):
    (_, fresh), (_, warm), _ = both(tmp_path, {"TORCH_LOGS": "guards"})
    assert warm == fresh and "guards logger enabled True" in warm and "env guards None" in warm


def test_import_time_variables_opt_out_to_a_fresh_process(tmp_path):
    file = tmp_path / "state.py"
    file.write_text(STATE)
    warm = WarmExecutor(cwd=tmp_path, workers=1)
    try:
        raw = warm.run(file, {"FIELDGUIDE_PROBE": "1"}, 60)
    finally:
        warm.close()
    assert raw.executor == "fresh" and raw.exit_code == 0


def test_unseeded_random_numbers_differ_between_warm_children(tmp_path):
    """A fresh process seeds its generators from the OS; forked children must not all share one seed."""
    file = tmp_path / "draw.py"
    file.write_text("import random, torch\nprint(torch.rand(3).tolist(), random.random())\n")
    warm = WarmExecutor(cwd=tmp_path, workers=1)
    try:
        draws = {result_from_run("s", {}, warm.run(file, {}, 60).events, 0, 0, tmp_path).stdout for _ in range(3)}
    finally:
        warm.close()
    assert len(draws) == 3


DIRTY_WORKER = """
import os, random, sys
os.environ["TORCH_LOGS"] = "guards"  # levels read at import from the worker's own TORCH_LOGS
import torch
import torch._dynamo
from torch._dynamo.utils import counters

# What a careless worker could leave behind for every child it forks: a compiled entry, counters,
# loggers bound to its TORCH_LOGS, a seeded generator. reset_torch_state() must undo all of it.
torch._logging.set_logs(guards=True, recompiles=True)
f = torch.compile(lambda x: x * 2, backend="eager")
f(torch.ones(3))
f(torch.ones(4, 4))
assert counters["stats"]["unique_graphs"] >= 1
torch.manual_seed(1234)
random.seed(1234)

from fieldguide.run.executors.warm import worker_main

worker_main()
"""


def test_warm_reset_undoes_what_a_dirty_worker_carries(tmp_path):
    """The worker itself compiled, counted, logged and seeded before forking: the child still starts clean."""
    launcher = tmp_path / "dirty-python"
    script = tmp_path / "dirty_worker.py"
    script.write_text(DIRTY_WORKER)
    import sys

    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n")  # called as `python -m fieldguide.warm`
    launcher.chmod(0o755)
    file = tmp_path / "state.py"
    # unseeded draws first (STATE seeds torch's generator): each child must draw its own numbers
    file.write_text(
        "import random, torch\nprint('unseeded python', random.random())\nprint('unseeded torch', torch.rand(2).tolist())\n"
        + STATE
    )
    fresh_raw = FreshProcessExecutor(cwd=tmp_path).run(file, {}, 60)
    warm = WarmExecutor(python=str(launcher), cwd=tmp_path, workers=1)
    try:
        runs = [warm.run(file, {}, 60) for _ in range(2)]
    finally:
        warm.close()
    fresh = result_from_run("s", {}, fresh_raw.events, 0, 0, tmp_path).stdout
    for raw in runs:
        assert raw.executor == "warm" and raw.exit_code == 0, raw.events
        warm_out = result_from_run("s", {}, raw.events, 0, 0, tmp_path).stdout
        strip = lambda text: [ln for ln in text.splitlines() if not ln.startswith("unseeded")]  # noqa: E731
        assert strip(warm_out) == strip(fresh)
        assert "counters {}" in warm_out and "guards logger enabled False" in warm_out
    unseeded = [
        line
        for raw in runs
        for line in result_from_run("s", {}, raw.events, 0, 0, tmp_path).stdout.splitlines()
        if line.startswith("unseeded")
    ]
    assert len(unseeded) == 4 and len(set(unseeded)) == 4  # python's and torch's: not the worker's seed twice
