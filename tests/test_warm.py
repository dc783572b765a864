"""The warm executor: a child forked from a worker that imported torch starts as a fresh process does."""

from __future__ import annotations

from fieldguide.executors import FreshProcessExecutor
from fieldguide.record import result_from_run
from fieldguide.executors.warm import WarmExecutor

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
