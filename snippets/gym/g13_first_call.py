# GYM·13 · A job run again with the same cache directory and job id: its first call
import os
import subprocess
import sys
import tempfile

JOB = r"""
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def scale_shift(x):
    return torch.relu(x * 2 + 1)


print("before:", counters["stats"]["unique_graphs"], flush=True)
scale_shift(torch.ones(8, 4))  # the run's first call: 8 rows, as in the run before
print("after:", counters["stats"]["unique_graphs"], flush=True)
"""

env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=tempfile.mkdtemp(prefix="job-"))  # the job's cache, empty
env["TORCH_COMPILE_JOB_ID"] = "nightly-train"
subprocess.run([sys.executable, "-c", JOB], env=env, check=True, capture_output=True)  # the first run
subprocess.run([sys.executable, "-c", JOB], env=env, check=True)  # the job run again: its output is below
