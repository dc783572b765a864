# The job of restart.py run twice more, this time without TORCH_COMPILE_JOB_ID. Each run calls the
# function with 8 rows, then 16, and starts from the cache directory the run before it left. It
# compiles with backend="eager": the question is dynamo's (how many graphs it captures), and eager
# keeps the run short.
# Run it as: python snippets/nextprocess/no_job_id.py
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


for rows in (8, 16):
    scale_shift(torch.ones(rows, 4))
print(f"graphs compiled={counters['stats']['unique_graphs']}")
"""

env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=tempfile.mkdtemp(prefix="job-"))  # a cache of its own
env.pop("TORCH_COMPILE_JOB_ID", None)
for run in ("first process:", "second process, same cache:"):
    out = subprocess.run([sys.executable, "-c", JOB], env=env, capture_output=True, text=True)
    print(f"{run:<33}", out.stdout.strip() or "failed: " + out.stderr.strip().splitlines()[-1])
