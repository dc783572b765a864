# GYM·11 · One row, after the size became dynamic
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager", dynamic=True)
def column_sums(x):
    return x.sum(0)


column_sums(torch.ones(4, 3))  # first call: compiles with a symbolic size
print("before:", counters["stats"]["unique_graphs"])
column_sums(torch.ones(1, 3))  # second call: a single row
print("after:", counters["stats"]["unique_graphs"])
