# GYM·11 · The third value of a Python int
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def shift(x, n):
    return x + n


x = torch.ones(4)
shift(x, 1)  # first call: compiles
shift(x, 2)  # a second value: compiles again
print("before:", counters["stats"]["unique_graphs"])
shift(x, 3)  # a third value
print("after:", counters["stats"]["unique_graphs"])
