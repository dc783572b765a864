# GYM·11 · A value wrapped in a tensor that changes
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def shifted(x, amount):
    return x + amount


shifted(torch.ones(3), torch.tensor(1.0))  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
shifted(torch.ones(3), torch.tensor(2.0))  # second call: another value
print("after:", counters["stats"]["unique_graphs"])
