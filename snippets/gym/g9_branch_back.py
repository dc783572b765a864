# GYM·9 · A data-dependent branch goes back to the first side
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def clip(x):
    if x.sum() > 0:  # depends on the values: a graph break
        return x - 1
    return x + 1


clip(torch.ones(4))  # the sum is positive
clip(-torch.ones(4))  # the sum is negative
print("before:", counters["stats"]["unique_graphs"])
clip(torch.ones(4))  # positive again
print("after:", counters["stats"]["unique_graphs"])
