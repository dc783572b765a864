# A job that runs again in a new process: what the second process compiles again, and what it
# loads from what the first one left on disk.
# Run it as: python snippets/nextprocess/restart.py
import os
import subprocess
import sys
import tempfile

JOB = r"""
import sys
import torch
from torch._dynamo.utils import counters

if sys.argv[1] == "load":  # a process handed the first one's cache artifacts
    torch.compiler.load_cache_artifacts(open(sys.argv[2], "rb").read())


@torch.compile  # the default backend, inductor
def scale_shift(x):
    return torch.relu(x * 2 + 1)


for rows in (8, 16):
    scale_shift(torch.ones(rows, 4))

caches = {k: v for group in ("inductor", "aot_autograd") for k, v in counters[group].items() if "cache" in k}
print(f"graphs compiled={counters['stats']['unique_graphs']}", *(f"{k}={v}" for k, v in sorted(caches.items())))
if sys.argv[1] == "save" and hasattr(torch.compiler, "save_cache_artifacts"):
    artifacts = torch.compiler.save_cache_artifacts()
    if artifacts:
        open(sys.argv[2], "wb").write(artifacts[0])
"""

work = tempfile.mkdtemp(prefix="restart-")
artifacts = os.path.join(work, "artifacts.bin")
job = dict(os.environ, TORCH_COMPILE_JOB_ID="restart-demo")  # the job's name, the same on every run


def run(label, cache_dir, *args):
    env = dict(job, TORCHINDUCTOR_CACHE_DIR=os.path.join(work, cache_dir))  # a cache of its own
    out = subprocess.run([sys.executable, "-c", JOB, *args], env=env, capture_output=True, text=True)
    print(f"{label:<33}", out.stdout.strip() or "failed: " + out.stderr.strip().splitlines()[-1])


run("first process:", "cache", "save", artifacts)
run("second process, same cache:", "cache", "run")
if os.path.exists(artifacts):
    run("third process, artifacts loaded:", "empty-cache", "load", artifacts)
else:
    print("third process: skipped, the first saved no cache artifacts")
