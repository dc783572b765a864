# GYM·9 · A function with a graph break, called with a new dtype
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def noisy(x):
    y = x * 2
    print("halfway")  # a graph break
    return y + 1


noisy(torch.ones(4))  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
noisy(torch.ones(4, dtype=torch.float64))  # second call: float64
print("after:", counters["stats"]["unique_graphs"])
