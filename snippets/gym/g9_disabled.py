# GYM·9 · A helper under torch.compiler.disable, new values
import torch
from torch._dynamo.utils import counters


@torch.compiler.disable
def log_mean(x):
    return float(x.mean())


@torch.compile(backend="eager")
def step(x):
    m = log_mean(x)  # runs eagerly: a graph break
    return x - m


step(torch.ones(4))  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
step(torch.full((4,), 3.0))  # second call: another mean
print("after:", counters["stats"]["unique_graphs"])
