"""tests/shared.py, the work the suite's xdist workers share: each task runs once, whoever asks."""

from __future__ import annotations

import subprocess

import pytest
from shared import SharedWork, TaskFailed


def test_a_task_runs_once_for_every_process_that_asks(tmp_path):
    calls = []
    first, second = SharedWork(tmp_path), SharedWork(tmp_path)  # two workers' views of one directory
    for work in (first, second):
        work.add("t", lambda: calls.append(1) or {"value": len(calls)})
    assert first.result("t") == {"value": 1}
    assert second.result("t") == {"value": 1}
    assert calls == [1]


def test_a_task_that_raised_fails_every_reader_with_its_traceback(tmp_path):
    work = SharedWork(tmp_path)
    work.add("t", lambda: 1 / 0)
    for _ in range(2):
        with pytest.raises(TaskFailed, match="ZeroDivisionError"):
            work.result("t")


def test_a_task_whose_process_ended_without_a_result_fails_instead_of_waiting(tmp_path):
    gone = subprocess.Popen(["true"])
    gone.wait()
    (tmp_path / "t.claim").write_text(str(gone.pid))  # claimed by a worker that then died
    work = SharedWork(tmp_path)
    work.add("t", lambda: "never run here")
    with pytest.raises(TaskFailed, match=f"pid {gone.pid}"):
        work.result("t")


def test_the_background_thread_runs_the_tasks_no_process_has_claimed_in_order(tmp_path):
    order = []
    work = SharedWork(tmp_path)
    (tmp_path / "b.claim").write_text("1")  # another worker's (pid 1 is alive)
    for name in ("a", "b", "c"):
        work.add(name, lambda n=name: order.append(n) or n, nice=0)
    work.start()
    work.thread.join()
    assert order == ["a", "c"]
    assert work.result("a") == "a" and work.result("c") == "c" and not (tmp_path / "b.json").exists()
