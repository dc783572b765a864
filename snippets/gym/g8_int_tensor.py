# GYM·8 · Integers instead of floats
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def double(x):
    return x * 2


torch.manual_seed(0)
double(torch.randn(4, 4))  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
double(torch.randint(0, 10, (4, 4)))  # second call: same shape, int64
print("after:", counters["stats"]["unique_graphs"])
