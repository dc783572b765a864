# GYM·13 · A job compiled block by block, run again: the second block's first call
import os
import subprocess
import sys
import tempfile

JOB = r"""
import torch
from torch._dynamo.utils import counters


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(32, 32)
        self.norm = torch.nn.LayerNorm(32)

    def forward(self, x):
        return self.norm(torch.relu(self.lin(x)) + x)


torch.manual_seed(0)
blocks = [torch.compile(Block(), backend="eager") for _ in range(8)]  # regional compilation
x = blocks[0](torch.randn(4, 32))  # block 0's first call
print("before:", counters["stats"]["unique_graphs"], flush=True)
x = blocks[1](x)  # block 1: the same class, its own parameters
print("after:", counters["stats"]["unique_graphs"], flush=True)
"""

env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=tempfile.mkdtemp(prefix="job-"))  # the job's cache, empty
env["TORCH_COMPILE_JOB_ID"] = "nightly-train"
subprocess.run([sys.executable, "-c", JOB], env=env, check=True, capture_output=True)  # the first run
subprocess.run([sys.executable, "-c", JOB], env=env, check=True)  # the job run again: its output is below
