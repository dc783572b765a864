# GYM·10 · The same tensor, detached
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def double(x):
    return x * 2


torch.manual_seed(0)
x = torch.randn(4, 4)
double(x)  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
double(x.detach())  # second call: a detached view of it
print("after:", counters["stats"]["unique_graphs"])
