"""Facts and tables for lesson 6, "The next process" (docs/nextprocess.md).

The lesson's snippets start the processes they measure (`python -c JOB`, each with a cache
directory of its own) and print one line per process: the graphs it compiled and the cache
counters of inductor and AOTAutograd. The facts here read those lines; the page holds the
sentences, one per outcome.
"""

from __future__ import annotations

from ..claims import run

RESTART = run("nextprocess/restart.py")
NO_JOB_ID = run("nextprocess/no_job_id.py")
