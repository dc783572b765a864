# GYM·9 · A data-dependent branch takes the same side
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def clip(x):
    if x.sum() > 0:  # depends on the values: a graph break
        return x - 1
    return x + 1


clip(torch.ones(4))  # first call: the sum is positive
print("before:", counters["stats"]["unique_graphs"])
clip(torch.full((4,), 2.0))  # second call: other values, the sum is still positive
print("after:", counters["stats"]["unique_graphs"])
