# What a kept cache directory saves in time: the job's compiled calls, timed in a process started
# from an empty cache directory (a cold start) and in one restarted with that directory and the
# same job id, three times each, with the default backend (inductor).
# Run it as: python snippets/nextprocess/warm_start.py
import os
import statistics
import subprocess
import sys
import tempfile

JOB = r"""
import time
import torch
from torch._dynamo.utils import counters


@torch.compile  # the default backend, inductor
def scale_shift(x):
    return torch.relu(x * 2 + 1)


start = time.perf_counter()
for rows in (8, 16):
    scale_shift(torch.ones(rows, 4))
print((time.perf_counter() - start) * 1000, counters["stats"]["unique_graphs"])
"""


def run(cache_dir):
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache_dir, TORCH_COMPILE_JOB_ID="warm-start-demo")
    out = subprocess.run([sys.executable, "-c", JOB], env=env, capture_output=True, text=True)
    if out.returncode:
        sys.exit("failed: " + out.stderr.strip().splitlines()[-1])
    ms, graphs = out.stdout.split()
    return float(ms), int(graphs)


times = {"cold start (empty cache)": [], "restart (same cache)": []}
for _ in range(3):
    cache_dir = tempfile.mkdtemp(prefix="warm-start-")  # a new, empty cache directory each time
    times["cold start (empty cache)"].append(run(cache_dir))
    times["restart (same cache)"].append(run(cache_dir))
for label, runs in times.items():
    ms = sorted(t for t, _ in runs)
    print(
        f"{label:<25} graphs={','.join(sorted({str(g) for _, g in runs}))} median={statistics.median(ms):7.1f} ms"
        f" min={ms[0]:7.1f} ms max={ms[-1]:7.1f} ms"
    )
