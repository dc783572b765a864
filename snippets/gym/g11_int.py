# GYM·11 · A Python int that changes
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def shifted(x, amount):
    return x + amount


shifted(torch.ones(3), 1)  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
shifted(torch.ones(3), 2)  # second call: amount 2
print("after:", counters["stats"]["unique_graphs"])
