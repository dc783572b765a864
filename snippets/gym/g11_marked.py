# GYM·11 · A marked dynamic dimension, then a new size
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def column_sums(x):
    return x.sum(0)


x = torch.ones(4, 3)
torch._dynamo.mark_dynamic(x, 0)
column_sums(x)  # first call: dimension 0 marked dynamic
print("before:", counters["stats"]["unique_graphs"])
y = torch.ones(9, 3)
torch._dynamo.mark_dynamic(y, 0)
column_sums(y)  # second call: 9 rows, also marked
print("after:", counters["stats"]["unique_graphs"])
