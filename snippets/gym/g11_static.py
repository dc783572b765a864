# GYM·11 · A new size with dynamic=False
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager", dynamic=False)
def column_sums(x):
    return x.sum(0)


column_sums(torch.ones(4, 3))
column_sums(torch.ones(5, 3))  # first calls: 4 rows, then 5
print("before:", counters["stats"]["unique_graphs"])
column_sums(torch.ones(6, 3))  # second call: 6 rows
print("after:", counters["stats"]["unique_graphs"])
