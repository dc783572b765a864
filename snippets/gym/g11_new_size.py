# GYM·11 · A new number of rows, default settings
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def column_sums(x):
    return x.sum(0)


column_sums(torch.ones(4, 3))  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
column_sums(torch.ones(5, 3))  # second call: 5 rows
print("after:", counters["stats"]["unique_graphs"])
